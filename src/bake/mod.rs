//! Baking: sampling every frame of a clip through the animation pipeline into bone-matrix
//! texels. So far: frame schedules, per-frame skinning matrices (bit-identical to the CPU
//! pipeline), texel rows, f16 packing and the error measures. Recipes, LOD meshes and writing
//! `.throng` files come next.

mod error;
pub mod frames;
pub mod texels;

pub use error::BakeError;
pub use frames::{FrameSchedule, MAX_FRAMES, bake_clip};
pub use texels::{
    Precision, from_f16, from_rows, rows, skinned_error, through_f16, to_f16, to_texels,
};
