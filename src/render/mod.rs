//! Rendering baked crowds with wgpu, on Vulkan and GL.
//!
//! - `device`: backend and adapter choice, limits, the texel layout for a device;
//!   `driver_env`: driver settings made in the environment before any driver loads;
//! - `path`: the skinning paths (GPU, CPU, live, static) and the one rule choosing between
//!   them, with its reason;
//! - `crowd`: the crowd renderer, drawn into a pass the caller owns: `prepare` a `frame` (what
//!   it shows, what it drew) on the queue, then `draw` it in the caller's pass of a `pass`
//!   format, lit by a `pass::Light`; built from `pipelines` (shaders, layouts,
//!   pipelines, the camera and light uniform), `upload` (texels and instance records),
//!   `meshes` (mesh parts and materials per character and LOD), `cpu_path` (the
//!   CPU-skinning fallback's cache and draws), `live` (matrices the CPU evaluated),
//!   `shadow` (the sun's shadow map and blob shadows) and `motion` (the previous frame, for
//!   motion vectors);
//! - helpers outside the renderer, for throng's own pictures and for embedders who want
//!   them: `stage` (the pass of the demo, `render` and `bench`: sky, `ground` (its triangles
//!   from `ground_mesh`, flat or the relief), `timer` for
//!   the pass's GPU time, submitting, test scenes), `target` (offscreen targets, a window's
//!   extra buffers, velocity attachments, readback), `motion_view` (a velocity attachment
//!   drawn as colours); `attachment`: props on joints;
//! - `cpu_skin`: the CPU skinning path (no wgpu), the same arithmetic as `shaders/skinning.wgsl`;
//! - `parity`: a compute pass running the shader's skinning function, for tests;
//! - `image_diff`: comparing rendered images (feature `image`).

pub mod attachment;
mod cpu_path;
pub mod cpu_skin;
pub mod crowd;
pub mod device;
pub mod driver_env;
mod error;
mod frame;
mod ground;
mod ground_mesh;
#[cfg(feature = "image")]
pub mod image_diff;
pub mod influences;
mod live;
mod meshes;
mod motion;
mod motion_view;
pub mod parity;
mod pass;
pub mod path;
pub mod pipelines;
mod shadow;
mod stage;
pub mod target;
mod timer;
mod upload;

pub use crate::crowd::InstanceRecord;
pub use attachment::Attachment;
pub use cpu_path::CPU_CACHE_LIMIT;
pub use crowd::{CrowdFrame, CrowdRenderer, FrameStats, RendererOptions};
pub use device::{BackendChoice, Gpu, TexelLayout};
pub use error::RenderError;
pub use ground::{GROUND_HALF_SIZE, Ground, ground_half_size};
pub use ground_mesh::{GroundVertex, ground_mesh};
pub use motion_view::{FULL_PIXELS, MOTION_VIEW_WGSL, MotionView};
pub use pass::{Fog, Light, PassFormat, SKY};
pub use path::{
    PathChoice, PathLimits, PathReason, PathRequest, PathUnavailable, SkinningPath, UnknownPath,
    choose_path, gpu_path_unavailable,
};
pub use shadow::{MAP_LEVELS, Shadows, UnknownShadows};
pub use stage::{SceneDraw, Stage};
pub use target::{FrameViews, SurfaceTarget, TARGET_FORMAT, Target, VELOCITY_FORMAT, Velocity};
