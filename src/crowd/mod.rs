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

pub mod cull;
pub mod error;
pub mod grid;
pub mod lod;
pub mod palette;
pub mod record;
#[cfg(test)]
mod rng;
pub mod schedule;
#[cfg(test)]
mod testing;

pub use cull::Frustum;
pub use error::CrowdError;
pub use grid::Grid;
pub use lod::{LodPolicy, LodPresets, MAX_LEVELS, MAX_RATE};
pub use palette::{AnimInfo, CharacterPalette, Family, Gait, Palette, PaletteNames};
pub use record::{FramePose, InstanceRecord, frame_pose_of, rgba8};
pub use schedule::{DIRTY_GAP, DrawRange, Schedule};
