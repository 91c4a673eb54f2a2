//! Shadows of the crowd: which kind ([`Shadows`]), chosen per frame on the renderer.
//!
//! - [`Shadows::Map`]: a sun shadow map. Agents drawn at LOD levels below
//!   [`MAP_LEVELS`] are rendered into it with the one skinning function (GPU path) or from
//!   their CPU-skinned vertices (CPU path); characters and the ground look it up with a
//!   filtered (percentage-closer) comparison. Agents at coarser levels, far away, get blobs.
//! - [`Shadows::Blob`]: an instanced contact shadow under every agent, drawn from the same
//!   instance records: a soft dark disc on the ground.
//! - [`Shadows::Off`]: no shadows.

use std::fmt;
use std::str::FromStr;

/// LOD levels that cast into the shadow map: agents at level 0 and 1; coarser (more distant)
/// ones get a blob instead, which costs a fraction and reads the same from afar.
pub const MAP_LEVELS: u32 = 2;

/// Which shadows the crowd gets.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Shadows {
    /// No shadows.
    Off,
    /// A soft contact shadow (blob) under each agent (the default of a renderer: it draws
    /// in the pass the caller began, needing no pass of its own).
    #[default]
    Blob,
    /// A sun shadow map for near agents (LOD levels below [`MAP_LEVELS`]), blobs beyond.
    Map,
}

impl Shadows {
    /// Every kind, cheapest first.
    pub const ALL: [Self; 3] = [Self::Off, Self::Blob, Self::Map];

    /// Its name on the command line and in reports: `off`, `blob` or `map`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Off => "off",
            Self::Blob => "blob",
            Self::Map => "map",
        }
    }
}

impl Shadows {
    /// What reads best at the demo's speed on `gpu`: the shadow map on a real GPU, blobs on a
    /// software renderer (lavapipe, llvmpipe), where the map's extra pass costs a frame rate
    /// that is already low.
    pub fn default_for(gpu: &super::Gpu) -> Self {
        if gpu.is_software() {
            Self::Blob
        } else {
            Self::Map
        }
    }
}

impl fmt::Display for Shadows {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A shadow kind that is not `off`, `blob` or `map`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("unknown shadows '{0}': use off, blob or map")]
pub struct UnknownShadows(pub String);

impl FromStr for Shadows {
    type Err = UnknownShadows;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == s)
            .ok_or_else(|| UnknownShadows(s.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_unknown_ones_are_named() {
        for k in Shadows::ALL {
            assert_eq!(k.name().parse::<Shadows>(), Ok(k));
        }
        assert_eq!(
            "soft".parse::<Shadows>().unwrap_err().to_string(),
            "unknown shadows 'soft': use off, blob or map"
        );
    }
}
