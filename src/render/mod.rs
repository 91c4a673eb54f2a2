//! Rendering baked crowds with wgpu, on Vulkan and GL.
//!
//! - `device`: backend and adapter choice, limits, the texel layout for a device;
//!   `driver_env`: driver settings made in the environment before any driver loads;
//! - `path`: the skinning paths (GPU, CPU, live, static) and the one rule choosing between
//!   them, with its reason;
//! - `crowd`: the crowd renderer and its frame entry points (upload, encode, submit) for a
//!   `frame` (what it shows, what it drew), built
//!   from `pipelines` (shaders, layouts, pipelines, the camera and light), `upload` (texels
//!   and instance records), `meshes` (mesh parts and materials per character and LOD),
//!   `cpu_path` (the CPU-skinning fallback's cache and draws), `live` (matrices the CPU
//!   evaluated), `ground` and `timer` (GPU time of the pass);
//! - `target`: offscreen targets and readback; `attachment`: props on joints;
//! - `cpu_skin`: the CPU skinning path (no wgpu), the same arithmetic as `shaders/skinning.wgsl`;
//! - `parity`: a compute pass running the shader's skinning function, for tests;
//! - `image_diff`: comparing rendered images.

pub mod attachment;
mod cpu_path;
pub mod cpu_skin;
pub mod crowd;
pub mod device;
pub mod driver_env;
mod error;
mod frame;
mod ground;
pub mod image_diff;
mod live;
mod meshes;
pub mod parity;
pub mod path;
pub mod pipelines;
pub mod target;
mod timer;
mod upload;

pub use crate::crowd::InstanceRecord;
pub use attachment::Attachment;
pub use cpu_path::CPU_CACHE_LIMIT;
pub use crowd::{CrowdFrame, CrowdRenderer, FrameStats, RendererOptions, SceneDraw};
pub use device::{BackendChoice, Gpu, TexelLayout};
pub use error::RenderError;
pub use path::{
    PathChoice, PathLimits, PathReason, PathRequest, PathUnavailable, SkinningPath, UnknownPath,
    choose_path, gpu_path_unavailable,
};
pub use target::{FrameViews, SurfaceTarget, TARGET_FORMAT, Target};
