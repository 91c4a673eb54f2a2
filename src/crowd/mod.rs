//! The crowd on the CPU: the agents a program drives, LOD levels and update rates, culling,
//! and the instance records the renderer uploads; and the plaza, a wandering crowd built on
//! the same calls. Knows no wgpu.
//!
//! The folders say which is which. At the top, the agents API:
//! - `agent`: an agent, what spawns it ([`Spawn`]) and how an animation is played
//!   ([`Play`]); `id`: its handle ([`AgentId`]).
//! - `population`: [`Crowd`], tying it together: agents and their records in slot order,
//!   draws, dirty ranges; the calls that drive agents, what a program reads back (events,
//!   root motion), and the `update` step each frame (with an optional [`Driver`]).
//! - `palette`: what each character of a bake can play: gaits by speed, families, bounds.
//! - `settings`: how a crowd is made, the view an update sees, what an update reports;
//!   `error`: why a crowd could not be made or a call was refused.
//! - `scene`: a deterministic test scene (placements, camera) from a seed, for
//!   `throng render`, the parity tests and the benchmarks.
//!
//! [`frame`]: who is drawn and updated when: LOD policy and presets (`lod`), culling
//! (`cull`), each agent's LOD level for a view (`assign`), slots in update buckets and draw
//! ranges (`schedule`), and the per-instance record the vertex shader reads (`record`).
//!
//! [`plaza`]: how agents move: [`Plaza`], the wandering crowd of the demo, `throng render`
//! and `throng bench`, with what each agent is doing (`wander`), its step and avoidance
//! (`sim`, `grid`, `turn`), the ground it stands on (`terrain`) and the generator it draws
//! from (`rng`).

pub mod agent;
pub mod error;
pub mod frame;
mod id;
pub mod palette;
pub mod plaza;
pub mod population;
pub mod scene;
pub mod settings;
#[cfg(test)]
mod testing;

pub use agent::{Agent, AgentId, End, Play, Spawn, Start};
pub use error::CrowdError;
pub use frame::{
    DIRTY_GAP, DrawRange, FramePose, Frustum, InstanceRecord, LodPolicy, LodPresets, MAX_LEVELS,
    MAX_LIVE, MAX_RATE, Playback, REFERENCE_HEIGHT, Schedule, agent_sphere, lod_presets, rgba8,
    size_factor,
};
pub use palette::{AnimInfo, CharacterPalette, Family, Gait, Palette, PaletteNames};
pub use plaza::terrain::Terrain;
pub use plaza::wander::{Behaviour, Wander};
pub use plaza::{Plaza, PlazaSettings};
pub use population::{
    AgentData, AgentMut, Crowd, Driver, DueView, IMPOSTOR_COLOUR, LIVE_BLEND_SECONDS, LIVE_COLOUR,
    LOD_COLOURS, MAX_STEP, RootMotion,
};
pub use settings::{CrowdSettings, MAX_AGENTS, STATS_LEVELS, UpdateStats, View, stats_level_name};

/// Passes over fewer items than this run on the calling thread: handing work to rayon's pool
/// costs tens of microseconds of wake-ups, more than a small pass. The default of
/// [`CrowdSettings::parallel_min`] (and of the plaza's neighbour grid); the crowd is the same either way.
pub const PARALLEL_MIN: usize = 4096;
