//! The crowd on the CPU: agents and their behaviour, LOD levels and update rates, culling, and
//! the instance records the renderer uploads. Knows no wgpu.
//!
//! - `record`: the per-instance record the vertex shader reads, and the frames it shows.
//! - `lod`: LOD policy (distances, update rates) and named presets (`assets/lod.toml`).

pub mod error;
pub mod lod;
pub mod record;

pub use error::CrowdError;
pub use lod::{LodPolicy, LodPresets, MAX_LEVELS, MAX_RATE};
pub use record::{FramePose, InstanceRecord, frame_pose_of, rgba8};
