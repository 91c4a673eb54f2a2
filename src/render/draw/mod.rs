//! The crowd renderer's insides: what [`CrowdRenderer`](super::CrowdRenderer) is built from.
//! A caller reaches them through the renderer; the few names it uses are re-exported by
//! [`render`](super).
//!
//! - `pipelines`: shaders, bind group layouts, render pipelines, the camera and light
//!   uniform;
//! - `upload`: texels and instance records written to the GPU, and the growable buffers
//!   they go into;
//! - `meshes`: mesh parts and materials per character and LOD level; `influences`: a
//!   mesh's triangles grouped by how many joint influences they need;
//! - `cpu_skin`: the CPU skinning arithmetic (no wgpu), the same as
//!   `shaders/skinning.wgsl`, and the reference the parity tests compare with; `cpu_path`:
//!   the CPU-skinning path's vertex cache and draws;
//! - `live`: matrices the CPU evaluated this frame (the live and hybrid paths);
//! - `shadow`: which shadows ([`Shadows`]), the sun's shadow map and blob shadows;
//! - `motion`: the previous frame, for motion vectors;
//! - `attachment`: props on joints ([`Attachment`]).

pub mod attachment;
pub(super) mod cpu_path;
pub mod cpu_skin;
pub mod impostor_mips;
pub mod impostors;
pub mod influences;
pub(super) mod live;
pub(super) mod meshes;
pub(super) mod motion;
pub mod pipelines;
pub mod shadow;
pub(super) mod upload;

pub use attachment::Attachment;
pub use cpu_path::CPU_CACHE_LIMIT;
pub use shadow::{MAP_LEVELS, Shadows, UnknownShadows, shadows_choice};
