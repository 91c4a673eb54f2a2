//! The crowd on the CPU: agents and their behaviour, LOD levels and update rates, culling, and
//! the instance records the renderer uploads. Knows no wgpu.
//!
//! - `record`: the per-instance record the vertex shader reads, and the frames it shows.
//! - `lod`: LOD policy (distances, update rates) and named presets (`assets/lod.toml`).
//! - `cull`: view-frustum planes and conservative sphere and box tests.
//! - `palette`: what each character of a bake can play: gaits by speed, families, bounds.
//! - `grid`: the uniform neighbour grid, rebuilt each frame.
//! - `schedule`: slots in buckets per character, LOD level and update phase: one draw range
//!   per (character, level), one contiguous due run per group and frame, dirty ranges.
//! - `agent`, `sim`: agents, their behaviour and the parallel, deterministic step.
//! - `rng`: the small deterministic generator agents (and `render::scene`) draw from.
//! - `crowd`: [`Crowd`], tying it together: update, records, draws, dirty ranges, stats.

pub mod agent;
// The module holding `Crowd` is named after it, as the other modules are after their job.
#[allow(clippy::module_inception)]
pub mod crowd;
pub mod cull;
pub mod error;
pub mod grid;
pub mod lod;
pub mod palette;
pub mod record;
pub mod rng;
pub mod schedule;
pub mod sim;
#[cfg(test)]
mod testing;

pub use agent::{Agent, Behaviour};
pub use crowd::{Crowd, CrowdSettings, LOD_COLOURS, MAX_AGENTS, UpdateStats, View, agent_sphere};
pub use cull::Frustum;
pub use error::CrowdError;
pub use grid::Grid;
pub use lod::{LodPolicy, LodPresets, MAX_LEVELS, MAX_RATE};
pub use palette::{AnimInfo, CharacterPalette, Family, Gait, Palette, PaletteNames};
pub use record::{FramePose, InstanceRecord, frame_pose_of, rgba8};
pub use schedule::{DIRTY_GAP, DrawRange, Schedule};
