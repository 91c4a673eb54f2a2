//! What `throng bench` measured: per case (backend, skinning path, LOD preset, shadows,
//! instance count), the per-frame times by phase as median, 95th and 99th percentiles, the
//! picture's difference from the LOD-off render and from the shadowless one, and the machine
//! and settings they were measured with.
//!
//! Reports written before shadows existed read back with shadows `off` (what they drew).

use serde::{Deserialize, Serialize};

/// Median, 95th and 99th percentile of per-frame values, milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Stat {
    /// Median.
    pub median: f64,
    /// 95th percentile.
    pub p95: f64,
    /// 99th percentile.
    pub p99: f64,
}

impl Stat {
    /// The statistics of `values` (sorted here; nearest-rank percentiles); zeros when empty.
    pub fn of(values: &mut [f64]) -> Self {
        if values.is_empty() {
            return Self::default();
        }
        values.sort_by(f64::total_cmp);
        let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
        Self {
            median: at(0.5),
            p95: at(0.95),
            p99: at(0.99),
        }
    }
}

/// One combination of settings.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Case {
    /// `vulkan` or `gl`.
    pub backend: String,
    /// `gpu` (baked, skinned in the vertex shader), `cpu` (baked, skinned on the CPU), `live`
    /// (every visible agent evaluated through the animation pipeline each frame on the CPU,
    /// joint matrices uploaded, skinned on the GPU) or `static` (the bind pose drawn
    /// instanced: the floor animation cost is measured against).
    pub skinning: String,
    /// LOD preset name.
    pub lod: String,
    /// Shadows: `off`, `blob` or `map` (`off` in reports from before shadows).
    #[serde(default = "no_shadows")]
    pub shadows: String,
    /// Agents.
    pub instances: usize,
}

/// The shadows of a case or run that does not name them: `off` (reports from before shadows
/// drew none).
fn no_shadows() -> String {
    crate::render::Shadows::Off.name().to_string()
}

/// [`no_shadows`] as the settings' list.
fn no_shadows_list() -> Vec<String> {
    vec![no_shadows()]
}

/// How the picture of a case differs from a reference picture of the same frames (the `off`
/// LOD preset's, or the shadowless one's, with everything else the same): per pixel, the CIE76 colour difference ΔE*ab in CIELAB
/// (about 2.3 is a just-noticeable difference).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    /// Mean ΔE over pixels and compared frames.
    pub mean: f64,
    /// 99th percentile of ΔE over pixels and compared frames.
    pub p99: f64,
    /// Fraction of pixels with ΔE above 10 (clearly another colour).
    pub changed: f64,
}

/// What one case measured.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CaseResult {
    /// The settings.
    pub case: Case,
    /// Measured frames (after warm-up).
    pub frames: usize,
    /// Agents drawn (not culled), median over frames.
    pub drawn: f64,
    /// Agents stepped per frame, median.
    pub stepped: f64,
    /// Crowd simulation (grid, steps, records).
    pub simulate_ms: Stat,
    /// Culling, LOD levels, schedule moves.
    pub lod_ms: Stat,
    /// Writing instance records, skinned vertices or live matrices to the GPU.
    pub upload_ms: Stat,
    /// Skinning vertices on the CPU (`cpu` path).
    pub cpu_skin_ms: Stat,
    /// Evaluating poses through the animation pipeline (`live` path).
    pub live_ms: Stat,
    /// The CPU side of a frame: the sum of the five above.
    pub cpu_ms: Stat,
    /// The GPU time of the crowd pass.
    pub gpu_ms: Stat,
    /// How `gpu_ms` was measured: `timestamps` (queries around the pass) or `wall` (submit
    /// until the device finished).
    pub gpu_timing: String,
    /// Wall time of the whole frame, CPU and GPU.
    pub frame_ms: Stat,
    /// Difference from the picture of the `off` LOD preset with the same shadows (for presets
    /// other than `off`).
    pub quality: Option<Quality>,
    /// Difference from the picture with shadows `off` under the same LOD preset (for cases
    /// with shadows).
    #[serde(default)]
    pub shadows_quality: Option<Quality>,
    /// Why the case did not run, if it did not (e.g. a backend missing).
    pub skipped: Option<String>,
    /// The live tier, on the `hybrid` path.
    #[serde(default)]
    pub hybrid: Option<HybridResult>,
}

/// What the `hybrid` path's live tier did over a case's measured frames.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct HybridResult {
    /// Agents in the live tier, median over frames.
    pub live: f64,
    /// Planted feet measured (one per foot per frame).
    pub feet: usize,
    /// p99 of the live agents' foot-ground error after IK, millimetres.
    pub foot_live_p99_mm: f64,
    /// p99 of the same feet's error in the bake's pose (what the `gpu` path draws),
    /// millimetres.
    pub foot_baked_p99_mm: f64,
    /// Handoffs seen (agents joining or leaving the tier in view).
    pub handoffs: usize,
    /// p99 of the handoff jumps, % of the agent's height.
    pub jump_p99: f64,
    /// The largest handoff jump, % of the agent's height.
    pub jump_max: f64,
    /// How live agents were posed: `None` when their animations were evaluated live, else
    /// why they were posed from the bake's matrices (the bake's sources gone or changed).
    #[serde(default)]
    pub posed_from_bake: Option<String>,
}

/// The machine and software a report was measured on.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Machine {
    /// CPU model.
    pub cpu: String,
    /// Logical cores.
    pub cores: usize,
    /// Operating system.
    pub os: String,
    /// throng's version.
    pub throng_version: String,
    /// The git commit of the source, when known.
    pub git_commit: Option<String>,
    /// Per backend used: adapter name, driver and driver info.
    pub adapters: Vec<Adapter>,
}

/// One adapter.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Adapter {
    /// `vulkan` or `gl`.
    pub backend: String,
    /// Adapter name.
    pub name: String,
    /// Driver name.
    pub driver: String,
    /// Driver version and details.
    pub driver_info: String,
}

/// The settings a report was run with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// The bake.
    pub bake: String,
    /// Instance counts.
    pub instances: Vec<usize>,
    /// LOD presets.
    pub lods: Vec<String>,
    /// Skinning paths.
    pub skinning: Vec<String>,
    /// Shadows (`off` in reports from before shadows).
    #[serde(default = "no_shadows_list")]
    pub shadows: Vec<String>,
    /// Backends.
    pub backends: Vec<String>,
    /// Measured frames per case.
    pub frames: usize,
    /// Warm-up frames per case.
    pub warmup: usize,
    /// Image size, pixels.
    pub size: (u32, u32),
    /// Seed of the scene.
    pub seed: u64,
    /// Simulated seconds per frame.
    pub dt: f32,
    /// The ground the crowd stood on: `flat` or `relief`.
    #[serde(default)]
    pub ground: String,
}

/// A whole run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Report {
    /// When it ran (RFC 3339, UTC).
    pub date: String,
    /// The command line that produced it.
    pub command: String,
    /// Settings.
    pub settings: Settings,
    /// Machine.
    pub machine: Machine,
    /// One entry per case, in run order.
    pub results: Vec<CaseResult>,
    /// Each preset's LOD levels at their starting distances, on the first backend that
    /// opened (`bench::levels`); empty in reports from before they were measured.
    #[serde(default)]
    pub levels: Vec<LevelQuality>,
}

/// One LOD level of one character drawn alone at the distance a preset starts it, against
/// LOD 0 there (`bench::levels`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LevelQuality {
    /// The LOD preset.
    pub lod: String,
    /// The character's name.
    pub character: String,
    /// The mesh level (1 or more); for the impostor tier, the character's mesh levels.
    pub level: u32,
    /// Whether this is the impostor tier rather than a mesh level.
    #[serde(default)]
    pub impostor: bool,
    /// Where the preset starts it for this character, metres from the camera (the preset's
    /// distance times the character's size factor).
    pub distance: f32,
    /// Triangles of the level, all parts.
    pub triangles: u32,
    /// Triangles of LOD 0, all parts.
    pub full_triangles: u32,
    /// Pixels either drawing covers (where the comparison is made).
    pub pixels: u32,
    /// ΔE of the level's drawing against LOD 0's over those pixels.
    pub quality: Quality,
    /// Wall time of drawing `bench::levels::TIMED_AGENTS` agents at this level at its
    /// distance and reading the picture back, milliseconds (the best of two); 0 in reports
    /// from before it was measured.
    #[serde(default)]
    pub level_ms: f64,
    /// The same at LOD 0, milliseconds: `full_ms - level_ms` is the frame time the level
    /// saves on that many agents.
    #[serde(default)]
    pub full_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reports_from_before_shadows_read_back_without_shadows() {
        let report = Report {
            settings: Settings {
                shadows: vec!["blob".to_string()],
                ..Settings::default()
            },
            results: vec![CaseResult {
                case: Case {
                    backend: "vulkan".to_string(),
                    shadows: "blob".to_string(),
                    ..Case::default()
                },
                shadows_quality: Some(Quality::default()),
                ..CaseResult::default()
            }],
            ..Report::default()
        };
        let mut json = serde_json::to_value(&report).unwrap();
        // What an older throng wrote: no shadows anywhere.
        json["settings"].as_object_mut().unwrap().remove("shadows");
        let case = &mut json["results"][0];
        case.as_object_mut().unwrap().remove("shadows_quality");
        case["case"].as_object_mut().unwrap().remove("shadows");
        let old: Report = serde_json::from_value(json).unwrap();
        assert_eq!(old.settings.shadows, ["off"]);
        assert_eq!(old.results[0].case.shadows, "off");
        assert_eq!(old.results[0].case.backend, "vulkan");
        assert_eq!(old.results[0].shadows_quality, None);
    }
}
