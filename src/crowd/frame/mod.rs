//! Who is drawn and updated when: the crowd's side of each frame, after the agents moved.
//!
//! - `lod`: LOD policy (distances, update rates, the live tier) and named presets
//!   (`assets/lod.toml`);
//! - `cull`: view-frustum planes and conservative sphere and box tests;
//! - `assign`: culling and LOD level of every agent for a view;
//! - `schedule`: slots in buckets per character, LOD level and update phase: one draw range
//!   per (character, level), one contiguous due run per group and frame, dirty ranges;
//! - `record`: the per-instance record the vertex shader reads, the frames it shows, and the
//!   [`Playback`] (animations, times, fade) both agents and the test scene turn into them.

pub(super) mod assign;
pub mod cull;
pub mod lod;
pub mod record;
pub mod schedule;

pub use assign::agent_sphere;
pub use cull::Frustum;
pub use lod::{
    LodPolicy, LodPresets, MAX_LEVELS, MAX_LIVE, MAX_RATE, REFERENCE_HEIGHT, lod_presets,
    size_factor,
};
pub use record::{FramePose, InstanceRecord, Playback, rgba8};
pub use schedule::{DIRTY_GAP, DrawRange, Schedule};
