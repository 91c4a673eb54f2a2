//! The crowd on the CPU: the agents a program drives, LOD levels and update rates, culling,
//! and the instance records the renderer uploads; and the plaza, a wandering crowd built on
//! the same calls. Knows no wgpu.
//!
//! The runtime:
//! - `agent`: an agent, what spawns it ([`Spawn`]) and how an animation is played
//!   ([`Play`]); `id`: its handle ([`AgentId`]).
//! - `population`: [`Crowd`], tying it together: agents and their records in slot order,
//!   draws, dirty ranges; the calls that drive agents, what a program reads back (events,
//!   root motion), and the `update` step each frame (with an optional [`Driver`]).
//! - `record`: the per-instance record the vertex shader reads, the frames it shows, and the
//!   [`Playback`] (animations, times, fade) both agents and the test scene turn into them.
//! - `lod`: LOD policy (distances, update rates) and named presets (`assets/lod.toml`).
//! - `cull`: view-frustum planes and conservative sphere and box tests.
//! - `assign`: culling and LOD level of every agent for a view (private).
//! - `schedule`: slots in buckets per character, LOD level and update phase: one draw range
//!   per (character, level), one contiguous due run per group and frame, dirty ranges.
//! - `palette`: what each character of a bake can play: gaits by speed, families, bounds.
//! - `settings`: how a crowd is made, the view an update sees, what an update reports.
//!
//! On top, the plaza (the demo's, `throng render`'s and `throng bench`'s crowd):
//! - `plaza`: [`Plaza`], the agents it spawns and its [`Driver`];
//! - `wander`: what each plaza agent is doing and how it chooses;
//! - `sim`: a plaza agent's step, and avoidance over the neighbour `grid`;
//! - `turn`: the arithmetic of a heading in a step (private);
//! - `terrain`: the ground agents stand on (flat, or the relief plaza), a height field.
//!
//! And `rng`, the small deterministic generator the plaza (and `scene`) draw from; `scene`, a
//! deterministic test scene (placements, camera) from a seed, for `throng render`, the parity
//! tests and the benchmarks.

pub mod agent;
mod assign;
pub mod cull;
pub mod error;
mod grid;
mod id;
pub mod lod;
pub mod palette;
pub mod plaza;
pub mod population;
pub mod record;
pub(crate) mod rng;
pub mod scene;
pub mod schedule;
pub mod settings;
mod sim;
pub mod terrain;
#[cfg(test)]
mod testing;
mod turn;
pub mod wander;

pub use agent::{Agent, AgentId, End, Play, Spawn, Start};
pub use assign::agent_sphere;
pub use cull::Frustum;
pub use error::CrowdError;
pub use lod::{LodPolicy, LodPresets, MAX_LEVELS, MAX_LIVE, MAX_RATE};
pub use palette::{AnimInfo, CharacterPalette, Family, Gait, Palette, PaletteNames};
pub use plaza::{Plaza, PlazaSettings};
pub use population::{
    AgentData, AgentMut, Crowd, Driver, DueView, LIVE_BLEND_SECONDS, LIVE_COLOUR, LOD_COLOURS,
    MAX_STEP, RootMotion,
};
pub use record::{FramePose, InstanceRecord, Playback, rgba8};
pub use schedule::{DIRTY_GAP, DrawRange, Schedule};
pub use settings::{CrowdSettings, MAX_AGENTS, STATS_LEVELS, UpdateStats, View};
pub use wander::{Behaviour, Wander};

/// Passes over fewer items than this run on the calling thread: handing work to rayon's pool
/// costs tens of microseconds of wake-ups, more than a small pass. The default of
/// [`CrowdSettings::parallel_min`] (and of the plaza's neighbour grid); the crowd is the same either way.
pub const PARALLEL_MIN: usize = 4096;
