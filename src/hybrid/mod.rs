//! The hybrid path's live tier: the few agents nearest the camera (chosen by the crowd, see
//! [`crate::crowd::LodPolicy::live_max`]) posed on the CPU every frame with foot IK on the
//! ground, the thousands behind them drawn from the bake, with handoffs that show no jump.
//!
//! A live agent's pose starts from the bake's own matrices at the agent's phase (its
//! animations, times and fade), so that its first live frame and its first baked frame after
//! the tier are the bake's, and only the IK (faded in and out by the crowd's blend) differs.
//! Works for every bake: the joints, feet and legs come from the file.
//!
//! - `rig`: per character, feet, legs and contact boxes from the bake.
//! - `pose`: one agent's pose: bake matrices, pelvis drop and two-bone legs onto the ground.
//! - `tier`: [`LiveTier`], the frame's live agents in parallel, rows for the GPU.
//! - `measure`: foot-ground errors and handoff jumps.
//!
//! Knows no wgpu: the renderer draws the rows ([`crate::render::SkinningPath::Hybrid`]).

pub mod error;
pub mod measure;
pub mod pose;
pub mod rig;
pub mod tier;

pub use error::HybridError;
pub use measure::{Measures, quantile_abs};
pub use rig::{LiveRig, MAX_FEET, MAX_LIVE_JOINTS};
pub use tier::{LiveStats, LiveTier};
