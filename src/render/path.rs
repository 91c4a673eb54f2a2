//! Skinning paths and the one rule that chooses between them: from what the device can do
//! with the file (and what the CPU path can hold), and what the caller asked for, a path and
//! the reason for it. The demo, `throng render` and `throng bench` all choose here and only
//! word the reason their own way.

use std::fmt;
use std::str::FromStr;

use super::device::{Gpu, TexelLayout};
use super::draw::pipelines::SKINNED_VERTEX_ATTRIBUTES;
use crate::format::{MAX_JOINTS, ThrongFile};

/// How characters are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum SkinningPath {
    /// In the vertex shader, from the texel texture.
    Gpu,
    /// On the CPU (rayon), into a vertex buffer drawn unskinned.
    Cpu,
    /// In the vertex shader, from joint matrices the CPU evaluated this frame and wrote with
    /// [`super::CrowdRenderer::upload_live`] (the live baseline `throng bench` measures
    /// against).
    Live,
    /// No skinning: the bind pose drawn instanced (the floor `throng bench` measures
    /// animation cost against).
    Static,
    /// The GPU path for the crowd, plus a live tier: its nearest agents (the LOD policy's
    /// `live_max` within `live_distance`) posed on the CPU with foot IK on the ground
    /// (`throng::hybrid::LiveTier`, feature `bake`), written with
    /// [`super::CrowdRenderer::upload_live`] and drawn from there as one more draw range per
    /// character.
    Hybrid,
}

impl SkinningPath {
    /// Every path, in the order `throng bench` lists them.
    pub const ALL: [Self; 5] = [Self::Gpu, Self::Cpu, Self::Live, Self::Static, Self::Hybrid];

    /// Its name: `gpu`, `cpu`, `live`, `static` or `hybrid` (the spelling of `--skinning` and of the
    /// bench report's column).
    pub fn name(self) -> &'static str {
        match self {
            Self::Gpu => "gpu",
            Self::Cpu => "cpu",
            Self::Live => "live",
            Self::Static => "static",
            Self::Hybrid => "hybrid",
        }
    }

    /// Whether vertices are skinned on the CPU before drawing.
    pub fn skins_on_cpu(self) -> bool {
        self == Self::Cpu
    }
}

impl fmt::Display for SkinningPath {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A name that is not a skinning path.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("no skinning path '{0}' (there are: gpu, cpu, live, static, hybrid)")]
pub struct UnknownPath(pub String);

impl FromStr for SkinningPath {
    type Err = UnknownPath;

    /// Parses a [`SkinningPath::name`] (surrounding spaces ignored).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        Self::ALL
            .into_iter()
            .find(|p| p.name() == s)
            .ok_or_else(|| UnknownPath(s.to_string()))
    }
}

/// Why the GPU skinning path cannot draw `file` on `gpu`, if it cannot.
pub fn gpu_path_unavailable(gpu: &Gpu, file: &ThrongFile) -> Option<String> {
    let count = file.info().texel_count;
    let l = &gpu.limits;
    if TexelLayout::choose(
        count,
        l.max_texture_dimension_2d,
        l.max_texture_array_layers,
    )
    .is_none()
    {
        return Some(format!(
            "its {count} texels do not fit a {}x{} texture of {} layers (the device's limits)",
            l.max_texture_dimension_2d, l.max_texture_dimension_2d, l.max_texture_array_layers
        ));
    }
    if l.max_vertex_attributes < SKINNED_VERTEX_ATTRIBUTES {
        return Some(format!(
            "the device allows {} vertex attributes; GPU skinning needs {SKINNED_VERTEX_ATTRIBUTES}",
            l.max_vertex_attributes
        ));
    }
    if file.info().max_joints > MAX_JOINTS {
        return Some(format!(
            "a skeleton has {} joints; the shader supports {MAX_JOINTS}",
            file.info().max_joints
        ));
    }
    None
}

/// Why each path cannot run, where it cannot (`None`: it can, as far as was checked).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PathLimits {
    /// Why the device cannot skin the file in the vertex shader (the GPU and live paths).
    pub gpu: Option<String>,
    /// Why the CPU path cannot hold the crowd (see
    /// [`super::CrowdRenderer::cpu_path_unavailable`]).
    pub cpu: Option<String>,
    /// Why the live path has nothing to evaluate (e.g. no characters to load).
    pub live: Option<String>,
    /// Why the hybrid path's live tier cannot pose the bake's characters.
    pub hybrid: Option<String>,
}

impl PathLimits {
    /// What `gpu` can do with `file` (the CPU path and the live path unchecked).
    pub fn of(gpu: &Gpu, file: &ThrongFile) -> Self {
        Self {
            gpu: gpu_path_unavailable(gpu, file),
            ..Self::default()
        }
    }

    /// Why `path` cannot run, if it cannot. The static path needs nothing.
    pub fn why_not(&self, path: SkinningPath) -> Option<&str> {
        match path {
            SkinningPath::Gpu => self.gpu.as_deref(),
            SkinningPath::Cpu => self.cpu.as_deref(),
            SkinningPath::Live => self.gpu.as_deref().or(self.live.as_deref()),
            SkinningPath::Hybrid => self.gpu.as_deref().or(self.hybrid.as_deref()),
            SkinningPath::Static => None,
        }
    }
}

/// What the caller asks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathRequest {
    /// GPU skinning where the device can, else the CPU path.
    Auto,
    /// This path; where it cannot run, the other of GPU and CPU skinning, saying why.
    Prefer(SkinningPath),
    /// This path or none.
    Only(SkinningPath),
}

/// Why a path was chosen.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PathReason {
    /// It was asked for and can run.
    Asked,
    /// Nothing particular was asked for and the device skins in the vertex shader.
    Default,
    /// It stands in for `instead`, which cannot run because of `why`.
    Fallback {
        /// The path that cannot run.
        instead: SkinningPath,
        /// Why it cannot.
        why: String,
    },
}

/// A chosen path with its reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathChoice {
    /// The path to draw with.
    pub path: SkinningPath,
    /// Why it.
    pub reason: PathReason,
}

/// A path that was demanded ([`PathRequest::Only`]) but cannot run.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("the {} skinning path cannot run: {why}", .path.name())]
pub struct PathUnavailable {
    /// The path demanded.
    pub path: SkinningPath,
    /// Why it cannot run.
    pub why: String,
}

/// Chooses the skinning path for `request` within `limits`, with the reason.
///
/// [`PathRequest::Auto`] takes the GPU path, or the CPU path when the device cannot skin.
/// [`PathRequest::Prefer`] takes the path asked for where it can run; else the first of GPU
/// and CPU skinning that can; else the CPU path (for the device's reason where the device
/// cannot skin), which then refuses the crowd itself.
///
/// # Errors
/// [`PathUnavailable`] when [`PathRequest::Only`] names a path that cannot run.
pub fn choose_path(
    limits: &PathLimits,
    request: PathRequest,
) -> Result<PathChoice, PathUnavailable> {
    let chosen = |path, reason| Ok(PathChoice { path, reason });
    let fallback = |path, instead, why: &str| {
        chosen(
            path,
            PathReason::Fallback {
                instead,
                why: why.to_string(),
            },
        )
    };
    match request {
        PathRequest::Only(path) => match limits.why_not(path) {
            None => chosen(path, PathReason::Asked),
            Some(why) => Err(PathUnavailable {
                path,
                why: why.to_string(),
            }),
        },
        PathRequest::Auto => match limits.why_not(SkinningPath::Gpu) {
            None => chosen(SkinningPath::Gpu, PathReason::Default),
            Some(why) => fallback(SkinningPath::Cpu, SkinningPath::Gpu, why),
        },
        PathRequest::Prefer(path) => {
            let Some(why) = limits.why_not(path) else {
                return chosen(path, PathReason::Asked);
            };
            let stand_in = [SkinningPath::Gpu, SkinningPath::Cpu]
                .into_iter()
                .find(|&p| p != path && limits.why_not(p).is_none());
            match (stand_in, limits.why_not(SkinningPath::Gpu)) {
                (Some(other), _) => fallback(other, path, why),
                // Nothing can run: a device that cannot skin draws on the CPU path, which
                // then says itself what it cannot hold.
                (None, Some(gpu_why)) => fallback(SkinningPath::Cpu, SkinningPath::Gpu, gpu_why),
                (None, None) => fallback(SkinningPath::Cpu, path, why),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(gpu: Option<&str>, cpu: Option<&str>) -> PathLimits {
        PathLimits {
            gpu: gpu.map(str::to_string),
            cpu: cpu.map(str::to_string),
            live: None,
            hybrid: None,
        }
    }

    #[test]
    fn names_round_trip_and_unknown_names_are_refused() {
        for p in SkinningPath::ALL {
            assert_eq!(p.name().parse::<SkinningPath>(), Ok(p));
        }
        assert_eq!(
            "magic".parse::<SkinningPath>().unwrap_err().to_string(),
            "no skinning path 'magic' (there are: gpu, cpu, live, static, hybrid)"
        );
    }

    #[test]
    fn the_choice_follows_the_request_and_the_limits() {
        use PathRequest::*;
        use SkinningPath::*;
        let path = |l: &PathLimits, r| choose_path(l, r).unwrap().path;
        let ok = limits(None, None);
        assert_eq!(path(&ok, Auto), Gpu);
        assert_eq!(choose_path(&ok, Auto).unwrap().reason, PathReason::Default);
        assert_eq!(path(&ok, Prefer(Cpu)), Cpu);
        let no_gpu = limits(Some("small"), None);
        assert_eq!(
            choose_path(&no_gpu, Auto).unwrap(),
            PathChoice {
                path: Cpu,
                reason: PathReason::Fallback {
                    instead: Gpu,
                    why: "small".into()
                }
            }
        );
        assert_eq!(path(&no_gpu, Prefer(Gpu)), Cpu);
        assert_eq!(path(&no_gpu, Only(Static)), Static);
        assert_eq!(choose_path(&no_gpu, Only(Live)).unwrap_err().why, "small");
        let no_cpu = limits(None, Some("big"));
        assert_eq!(path(&no_cpu, Prefer(Cpu)), Gpu);
        assert_eq!(choose_path(&no_cpu, Only(Cpu)).unwrap_err().path, Cpu);
        // Neither: the CPU path, for the device's reason.
        let neither = limits(Some("small"), Some("big"));
        assert_eq!(
            choose_path(&neither, Prefer(Cpu)).unwrap().reason,
            PathReason::Fallback {
                instead: Gpu,
                why: "small".into()
            }
        );
        let no_live = PathLimits {
            live: Some("no recipe".into()),
            ..ok
        };
        assert_eq!(
            choose_path(&no_live, Only(Live)).unwrap_err().why,
            "no recipe"
        );
        assert_eq!(path(&no_live, Only(Gpu)), Gpu);
    }
}
