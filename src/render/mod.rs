//! Rendering baked crowds with wgpu, on Vulkan and GL.
//!
//! The folders say which is which. At the top, the renderer's public API:
//! - `device`: backend and adapter choice ([`Gpu`], [`BackendChoice`]), limits, the texel
//!   layout for a device; `driver_env`: driver settings made in the environment before any
//!   driver loads;
//! - `path`: the skinning paths (GPU, CPU, live, static, hybrid) and the one rule choosing
//!   between them, with its reason;
//! - `crowd`: the crowd renderer ([`CrowdRenderer`]), drawn into a pass the caller owns:
//!   `prepare` a `frame` ([`CrowdFrame`]: what it shows; [`FrameStats`]: what it drew) on the
//!   queue, then `draw` it in the caller's pass of a `pass` format ([`PassFormat`]), lit by a
//!   [`Light`];
//! - `target`: where frames are drawn: offscreen targets with readback, a window's extra
//!   buffers, velocity attachments; `error`: why rendering failed.
//!
//! [`draw`]: the renderer's insides, which [`CrowdRenderer`] is built from: shaders,
//! layouts and pipelines, uploads, the meshes on the GPU, the CPU-skinning path (its
//! arithmetic, `cpu_skin`, is the reference of `shaders/skinning.wgsl`), the live path's
//! texels, shadows, motion vectors' previous frame, and props on joints. What of it a
//! caller names ([`Shadows`], [`Attachment`]) is re-exported here.
//!
//! [`pictures`]: helpers outside the renderer, for throng's own pictures (the demo,
//! `throng render`, `throng bench`, the tests) and for embedders who want them, built on the
//! public API above only: the [`Stage`] (sky, [`Ground`], GPU timing, test scenes), the
//! motion-vector view, the GPU skinning parity pass and image comparison.

pub mod crowd;
pub mod device;
pub mod draw;
pub mod driver_env;
mod error;
mod frame;
mod pass;
pub mod path;
pub mod pictures;
pub mod target;

pub use crate::crowd::InstanceRecord;
pub use crowd::{CrowdFrame, CrowdRenderer, FrameStats, RendererOptions};
pub use device::{BackendChoice, Gpu, TexelLayout};
pub use draw::{Attachment, CPU_CACHE_LIMIT, MAP_LEVELS, Shadows, UnknownShadows, shadows_choice};
pub use error::RenderError;
pub use pass::{Fog, Light, PassFormat, SKY};
pub use path::{
    PathChoice, PathLimits, PathReason, PathRequest, PathUnavailable, SkinningPath, UnknownPath,
    choose_path, gpu_path_unavailable,
};
pub use pictures::{
    FULL_PIXELS, GROUND_HALF_SIZE, Ground, GroundVertex, MOTION_VIEW_WGSL, MotionView, SceneDraw,
    Stage, ground_half_size, ground_mesh,
};
pub use target::{FrameViews, SurfaceTarget, TARGET_FORMAT, Target, VELOCITY_FORMAT, Velocity};
