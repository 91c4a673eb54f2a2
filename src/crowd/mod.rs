//! The crowd on the CPU: agents and their behaviour, LOD levels and update rates, culling, and
//! the instance records the renderer uploads. Knows no wgpu.
//!
//! - `record`: the per-instance record the vertex shader reads, and the frames it shows.

pub mod record;

pub use record::{DrawRange, FramePose, InstanceRecord, frame_pose_of, rgba8};
