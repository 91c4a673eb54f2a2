//! Baking: every selected clip and state of a recipe's characters sampled frame by frame
//! through the animation pipeline into bone-matrix texels, with skeletons, events, root
//! motion, per-frame bounds, LOD meshes and measured errors, ready for `format` to write.
//!
//! - `recipe`: the TOML recipe ([`Recipe`]), or the defaults for a bare model;
//! - `frames`: which times a clip is baked at ([`FrameSchedule`]);
//! - `texels`: matrices as 3×4 rows, f16 packing, error measures;
//! - `measure`: cheap conservative bounds and errors from per-joint boxes;
//! - `baker`: [`bake`] itself;
//! - `output`: baking into the recipe's file, whether it is up to date, the default bake.

mod baker;
mod error;
pub mod frames;
pub mod measure;
mod output;
pub mod recipe;
pub mod texels;

pub use baker::{
    AnimReport, BakeOptions, BakeReport, Baked, CharacterReport, Progress, TOOL, bake, inputs,
};
pub use error::BakeError;
pub use frames::{FrameSchedule, MAX_FRAMES};
pub use output::{DEFAULT_RECIPE, OutputError, bake_to_file, default_bake, up_to_date};
pub use recipe::{PrecisionChoice, Rate, Recipe};
pub use texels::{from_rows, lerp, rows, skinned_error, through_f16};
