//! The crowd on the CPU: agents and their behaviour, LOD levels and update rates, culling, and
//! the instance records the renderer uploads. Knows no wgpu.
//!
//! - `record`: the per-instance record the vertex shader reads, the frames it shows, and the
//!   [`Playback`] (animations, times, fade) both agents and the test scene turn into them.
//! - `lod`: LOD policy (distances, update rates) and named presets (`assets/lod.toml`).
//! - `cull`: view-frustum planes and conservative sphere and box tests.
//! - `palette`: what each character of a bake can play: gaits by speed, families, bounds.
//! - `grid`: the uniform neighbour grid, rebuilt each frame.
//! - `schedule`: slots in buckets per character, LOD level and update phase: one draw range
//!   per (character, level), one contiguous due run per group and frame, dirty ranges.
//! - `agent`, `sim`: agents, their behaviour and the parallel, deterministic step.
//! - `rng`: the small deterministic generator agents (and `scene`) draw from.
//! - `terrain`: the ground agents stand on (flat, or the relief plaza), a height field.
//! - `settings`: how a crowd is made, the view an update sees, what an update reports.
//! - `assign`: culling and LOD level of every agent for a view (private).
//! - `population`: [`Crowd`], tying it together: its state in slot order, records, draws,
//!   dirty ranges; its `update` step each frame.
//! - `turn`: the arithmetic of a heading in a step: wrapping, the steering turn, a turned
//!   sine and cosine (private).
//! - `scene`: a deterministic test scene (placements, camera) from a seed, for
//!   `throng render`, the parity tests and the benchmarks.

pub mod agent;
mod assign;
pub mod cull;
pub mod error;
pub mod grid;
pub mod lod;
pub mod palette;
pub mod population;
pub mod record;
pub mod rng;
pub mod scene;
pub mod schedule;
pub mod settings;
pub mod sim;
pub mod terrain;
#[cfg(test)]
mod testing;
mod turn;

pub use agent::{Agent, Behaviour};
pub use assign::agent_sphere;
pub use cull::Frustum;
pub use error::CrowdError;
pub use grid::Grid;
pub use lod::{LodPolicy, LodPresets, MAX_LEVELS, MAX_LIVE, MAX_RATE};
pub use palette::{AnimInfo, CharacterPalette, Family, Gait, Palette, PaletteNames};
pub use population::{Crowd, LIVE_BLEND_SECONDS, LIVE_COLOUR, LOD_COLOURS};
pub use record::{FramePose, InstanceRecord, Playback, rgba8};
pub use schedule::{DIRTY_GAP, DrawRange, Schedule};
pub use settings::{CrowdSettings, MAX_AGENTS, STATS_LEVELS, UpdateStats, View};

/// Passes over fewer items than this run on the calling thread: handing work to rayon's pool
/// costs tens of microseconds of wake-ups, more than a small pass. The default of
/// [`CrowdSettings::parallel_min`] (and of [`Grid::new`]); the crowd is the same either way.
pub const PARALLEL_MIN: usize = 4096;
