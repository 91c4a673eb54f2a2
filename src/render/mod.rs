//! Rendering baked crowds with wgpu, on Vulkan and GL.
//!
//! - `device`: backend and adapter choice, limits, the texel layout for a device;
//! - `crowd`: the bake on the GPU and the crowd pass: GPU skinning (one instanced draw per
//!   mesh part and LOD), the CPU-skinning fallback, the static draw, the ground, offscreen
//!   targets and readback;
//! - `cpu_skin`: the CPU skinning path (no wgpu), the same arithmetic as `shaders/skinning.wgsl`;
//! - `parity`: a compute pass running the shader's skinning function, for tests;
//! - `image_diff`: comparing rendered images.

pub mod attachment;
pub mod cpu_skin;
pub mod crowd;
pub mod device;
mod error;
pub mod image_diff;
pub mod parity;
pub mod target;

pub use crate::crowd::InstanceRecord;
pub use attachment::Attachment;
pub use crowd::{
    CPU_CACHE_LIMIT, CrowdFrame, CrowdRenderer, FrameStats, RendererOptions, SkinningPath,
    gpu_path_unavailable,
};
pub use device::{BackendChoice, Gpu, TexelLayout};
pub use error::RenderError;
pub use target::{FrameViews, SurfaceTarget, TARGET_FORMAT, Target};

/// The crowd pass's light: unit direction towards it (x, y, z) and the ambient level (w).
pub const LIGHT: [f32; 4] = [0.4, 0.8, 0.45, 0.35];
