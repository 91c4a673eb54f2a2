//! What a crowd is made with ([`CrowdSettings`]; up to [`MAX_AGENTS`] agents), the camera an
//! update sees ([`View`]) and what an update reports ([`UpdateStats`]): the plain values that cross
//! the crowd's API, apart from the machinery that uses them.

use glam::{Mat4, Vec3};

use super::PARALLEL_MIN;
use super::palette::PaletteNames;

/// Most agents a crowd holds.
pub const MAX_AGENTS: usize = 1_000_000;

/// LOD levels [`UpdateStats::per_level`] counts apart: 0 to 4, and the last bucket for 5 or
/// coarser. The built-in presets (`assets/lod.toml`) make five levels and bakes have five
/// LOD meshes by default, so six buckets show them all and still catch a coarser one.
pub const STATS_LEVELS: usize = 6;

/// The name of bucket `bucket` of [`UpdateStats::per_level`]: `LOD 2`, or `LOD 5+` for the
/// last, which also counts every coarser level.
pub fn stats_level_name(bucket: usize) -> String {
    let plus = if bucket + 1 == STATS_LEVELS { "+" } else { "" };
    format!("LOD {bucket}{plus}")
}

/// How a crowd is made.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdSettings {
    /// The animation families of each character ([`super::Palette`]): gaits of one family
    /// cross-fade in step ([`super::Start::InStep`]), and the plaza walks with them.
    pub names: PaletteNames,
    /// Metres added around the baked bounds for culling: room for props attached to a
    /// character that its bounds do not hold. Default 0.1.
    pub bounds_margin: f32,
    /// Passes over fewer agents (or grid points) than this run on the calling thread, larger
    /// ones in parallel (0 counts as 1). Default [`PARALLEL_MIN`]. The crowd is the same
    /// either way; unit tests lower it so that their small crowds run the parallel paths.
    pub parallel_min: usize,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        Self {
            names: PaletteNames::default(),
            bounds_margin: 0.1,
            parallel_min: PARALLEL_MIN,
        }
    }
}

/// The camera an update culls and picks LOD levels for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Projection × view, wgpu clip space (depth 0..1): see
    /// [`super::Frustum::from_view_proj`].
    pub view_proj: Mat4,
    /// Camera position, metres: LOD distances are measured from it.
    pub eye: Vec3,
}

/// What one [`super::Crowd::update`] did and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// Seconds spent on the neighbour grid and the steps of due agents, records included.
    pub simulate_seconds: f64,
    /// Seconds spent on culling, LOD levels and moving agents between buckets.
    pub lod_seconds: f64,
    /// Agents in the crowd.
    pub agents: usize,
    /// Agents drawn (not culled).
    pub visible: usize,
    /// Agents drawn with meshes at LOD 0 to 4 and at 5 or coarser (see [`STATS_LEVELS`]).
    pub per_level: [usize; STATS_LEVELS],
    /// Agents in the impostor tier (not in `per_level`).
    pub impostors: usize,
    /// Agents stepped this frame.
    pub due: usize,
    /// Slots in [`super::Crowd::dirty`] after the update: the records to upload when the
    /// renderer clears the changes every frame.
    pub written: usize,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_stats_bucket_is_named_for_the_coarser_levels_too() {
        assert_eq!(stats_level_name(0), "LOD 0");
        assert_eq!(stats_level_name(STATS_LEVELS - 1), "LOD 5+");
    }
}
