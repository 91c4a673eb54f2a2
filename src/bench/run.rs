//! Running the benchmark: every combination of backend, instance count, skinning path and LOD
//! preset, headless, on the same seeded crowd and camera path, measured frame by frame; the
//! last frame of each case kept to compare pictures with the `off` preset.

use std::path::PathBuf;
use std::time::Instant;

use glam::Vec3;

use super::error::BenchError;
use super::live::Live;
use super::quality::delta_e;
use super::results::{Adapter, Case, CaseResult, Report, Settings, Stat};
use crate::bake::Recipe;
use crate::crowd::{Crowd, CrowdSettings, InstanceRecord, LodPresets, View};
use crate::format::ThrongFile;
use crate::render::{
    BackendChoice, CrowdFrame, CrowdRenderer, Gpu, SkinningPath, Target, gpu_path_unavailable,
};

/// The skinning paths a benchmark can measure.
pub const PATHS: [&str; 4] = ["gpu", "cpu", "live", "static"];

/// What to run.
#[derive(Clone, Debug)]
pub struct BenchOptions {
    /// The bake.
    pub bake: PathBuf,
    /// The recipe it was baked from (for the live baseline's characters).
    pub recipe: Option<PathBuf>,
    /// LOD presets on offer.
    pub presets: LodPresets,
    /// Instance counts.
    pub instances: Vec<usize>,
    /// LOD presets to run (`off` first when present: the others are compared with it).
    pub lods: Vec<String>,
    /// Skinning paths, from [`PATHS`].
    pub skinning: Vec<String>,
    /// Backends.
    pub backends: Vec<BackendChoice>,
    /// Measured frames per case.
    pub frames: usize,
    /// Warm-up frames per case.
    pub warmup: usize,
    /// Image size, pixels.
    pub size: (u32, u32),
    /// Seed of the crowd.
    pub seed: u64,
    /// The command line, for the report.
    pub command: String,
    /// Where to save each case's last frame as `BACKEND-PATH-LOD-COUNT.png`, if anywhere.
    pub pictures: Option<PathBuf>,
}

/// Simulated seconds per frame: the crowd advances at 60 frames a second whatever the
/// machine, so every case sees the same scene.
pub const DT: f32 = 1.0 / 60.0;

/// The camera `k` frames in, for a plaza of half-size `half`: above the plaza's southern edge,
/// looking at its middle, so agents are seen from a few metres to across the plaza (every LOD
/// level), drifting east and back (the same path for every case).
pub fn camera(half: f32, k: usize, aspect: f32) -> View {
    let t = k as f32 * DT;
    let height = (0.12 * half + 2.0).max(3.0);
    let eye = Vec3::new(0.3 * half * (t * 0.3).sin(), height, 0.9 * half);
    let target = Vec3::new(0.0, 0.0, 0.1 * half);
    let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(
        60f32.to_radians(),
        aspect,
        0.1,
        2.5 * half + 100.0,
    );
    View {
        view_proj: proj * view,
        eye,
    }
}

/// The cases of `options` in run order: per backend, per count, per path, per preset.
pub fn cases(options: &BenchOptions) -> Vec<Case> {
    let mut lods = options.lods.clone();
    if let Some(i) = lods.iter().position(|l| l == "off") {
        let off = lods.remove(i);
        lods.insert(0, off);
    }
    let mut out = Vec::new();
    for b in &options.backends {
        for &n in &options.instances {
            for s in &options.skinning {
                for l in &lods {
                    out.push(Case {
                        backend: b.name().to_string(),
                        skinning: s.clone(),
                        lod: l.clone(),
                        instances: n,
                    });
                }
            }
        }
    }
    out
}

/// Per-frame measurements of one case.
#[derive(Default)]
struct Samples {
    simulate: Vec<f64>,
    lod: Vec<f64>,
    upload: Vec<f64>,
    skin: Vec<f64>,
    live: Vec<f64>,
    cpu: Vec<f64>,
    gpu: Vec<f64>,
    frame: Vec<f64>,
    drawn: Vec<f64>,
    stepped: Vec<f64>,
    timestamps: bool,
}

/// Runs every case, calling `progress(case index, frame)` as it goes.
///
/// # Errors
/// When the bake or presets cannot be read, or a frame fails on a device that opened.
/// Backends that do not open, and paths that cannot run, are reported as skipped cases.
pub fn run(
    options: &BenchOptions,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<Report, BenchError> {
    let file = ThrongFile::open(&options.bake)?;
    for l in &options.lods {
        if options.presets.get(l).is_none() {
            return Err(BenchError::Settings(format!(
                "no LOD preset '{l}' (there are: {})",
                options.presets.names().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    if let Some(s) = options
        .skinning
        .iter()
        .find(|s| !PATHS.contains(&s.as_str()))
    {
        return Err(BenchError::Settings(format!(
            "no skinning path '{s}' (there are: {})",
            PATHS.join(", ")
        )));
    }
    let live = if options.skinning.iter().any(|s| s == "live") {
        Some(match &options.recipe {
            Some(r) => Recipe::load(r)
                .map_err(|e| BenchError::Live(e.to_string()))
                .and_then(|recipe| Live::new(&file, &recipe)),
            None => Err(BenchError::Live(format!(
                "{}: no recipe to load its characters from (give --recipe)",
                file.name()
            ))),
        })
    } else {
        None
    };
    let all = cases(options);
    let mut report = Report {
        date: super::machine::now_rfc3339(),
        command: options.command.clone(),
        settings: Settings {
            bake: options.bake.display().to_string(),
            instances: options.instances.clone(),
            lods: options.lods.clone(),
            skinning: options.skinning.clone(),
            backends: options
                .backends
                .iter()
                .map(|b| b.name().to_string())
                .collect(),
            frames: options.frames,
            warmup: options.warmup,
            size: options.size,
            seed: options.seed,
            dt: DT,
        },
        machine: super::machine::describe(),
        results: Vec::new(),
    };
    let (w, h) = options.size;
    let aspect = w as f32 / h as f32;
    // Pictures of the `off` preset per (backend, path, count), to compare the others with.
    let mut off_pictures: Vec<(String, String, usize, image::RgbaImage)> = Vec::new();
    let mut index = 0;
    for &backend in &options.backends {
        let backend_cases: Vec<&Case> =
            all.iter().filter(|c| c.backend == backend.name()).collect();
        let gpu = match Gpu::new(backend) {
            Ok(g) => g,
            Err(e) => {
                for c in backend_cases {
                    report.results.push(skipped(c, e.to_string()));
                    index += 1;
                    progress(index, 0);
                }
                continue;
            }
        };
        report.machine.adapters.push(Adapter {
            backend: backend.name().to_string(),
            name: gpu.info.name.clone(),
            driver: gpu.info.driver.clone(),
            driver_info: gpu.info.driver_info.clone(),
        });
        let samples = Target::best_samples(&gpu);
        let target = Target::new(&gpu, w, h, samples);
        let mut renderer = CrowdRenderer::new(&gpu, &file, samples)?;
        let mut live_rows = Vec::new();
        let mut live_records: Vec<InstanceRecord> = Vec::new();
        let mut visible: Vec<u32> = Vec::new();
        for case in backend_cases {
            index += 1;
            let why_not = match case.skinning.as_str() {
                "gpu" | "live" => gpu_path_unavailable(&gpu, &file),
                "cpu" => renderer.cpu_path_unavailable(case.instances),
                _ => None,
            }
            .or_else(|| match (&case.skinning[..], &live) {
                ("live", Some(Err(e))) => Some(e.to_string()),
                _ => None,
            });
            if let Some(why) = why_not {
                report.results.push(skipped(case, why));
                progress(index, 0);
                continue;
            }
            let Some(policy) = options.presets.get(&case.lod).cloned() else {
                continue; // checked above
            };
            let settings = CrowdSettings {
                count: case.instances,
                seed: options.seed,
                ..CrowdSettings::default()
            };
            let mut crowd = Crowd::new(&file, &settings, policy)?;
            let half = crowd.plaza_half_size();
            let (path, static_pose) = match case.skinning.as_str() {
                "cpu" => (SkinningPath::Cpu, false),
                "live" => (SkinningPath::Live, false),
                "static" => (SkinningPath::Gpu, true),
                _ => (SkinningPath::Gpu, false),
            };
            let mut s = Samples::default();
            for k in 0..options.warmup + options.frames {
                let view = camera(half, k, aspect);
                let start = Instant::now();
                let update = crowd.update(&file, DT, &view)?;
                let mut live_seconds = 0.0;
                let mut live_upload = 0.0;
                let mut stats = if let (SkinningPath::Live, Some(Ok(live))) = (path, &live) {
                    // Every visible agent, evaluated now; all records written.
                    let t = Instant::now();
                    visible.clear();
                    for d in crowd.draws() {
                        visible.extend(d.slots.clone());
                    }
                    live_records.clear();
                    live_records.extend_from_slice(crowd.records());
                    live.evaluate(crowd.agents(), &visible, &mut live_records, &mut live_rows);
                    live_seconds = t.elapsed().as_secs_f64();
                    live_upload = renderer.upload_live(&gpu, &live_rows)?;
                    let all_slots = 0..live_records.len() as u32;
                    let frame = CrowdFrame {
                        records: &live_records,
                        dirty: std::slice::from_ref(&all_slots),
                        draws: crowd.draws(),
                        slot_agent: crowd.slot_agent(),
                    };
                    renderer.upload(&gpu, &file, &frame, view.view_proj, path, false)?
                } else {
                    let frame = CrowdFrame {
                        records: crowd.records(),
                        dirty: crowd.dirty(),
                        draws: crowd.draws(),
                        slot_agent: crowd.slot_agent(),
                    };
                    renderer.upload(&gpu, &file, &frame, view.view_proj, path, static_pose)?
                };
                let frame = CrowdFrame {
                    records: if path == SkinningPath::Live {
                        &live_records
                    } else {
                        crowd.records()
                    },
                    dirty: &[],
                    draws: crowd.draws(),
                    slot_agent: crowd.slot_agent(),
                };
                let mut encoder =
                    gpu.device
                        .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                            label: Some("bench frame"),
                        });
                stats.draws =
                    renderer.encode(&mut encoder, &target.views(), &frame, path, static_pose);
                renderer.submit(&gpu, encoder, &mut stats)?;
                crowd.clear_dirty();
                let wall = start.elapsed().as_secs_f64();
                progress(index, k + 1);
                if k < options.warmup {
                    continue;
                }
                let upload = stats.upload_seconds + live_upload;
                let cpu = update.simulate_seconds
                    + update.lod_seconds
                    + upload
                    + stats.cpu_skin_seconds
                    + live_seconds;
                s.simulate.push(update.simulate_seconds * 1e3);
                s.lod.push(update.lod_seconds * 1e3);
                s.upload.push(upload * 1e3);
                s.skin.push(stats.cpu_skin_seconds * 1e3);
                s.live.push(live_seconds * 1e3);
                s.cpu.push(cpu * 1e3);
                s.timestamps = stats.gpu_seconds.is_some();
                s.gpu
                    .push(stats.gpu_seconds.unwrap_or(stats.submit_seconds) * 1e3);
                s.frame.push(wall * 1e3);
                s.drawn.push(update.visible as f64);
                s.stepped.push(update.due as f64);
            }
            let picture = target.read(&gpu)?;
            if let Some(dir) = &options.pictures {
                let path = dir.join(format!(
                    "{}-{}-{}-{}.png",
                    case.backend, case.skinning, case.lod, case.instances
                ));
                std::fs::create_dir_all(dir)
                    .and_then(|()| {
                        picture
                            .save(&path)
                            .map_err(|e| std::io::Error::other(e.to_string()))
                    })
                    .map_err(|e| BenchError::Settings(format!("{}: {e}", path.display())))?;
            }
            let quality = off_pictures
                .iter()
                .find(|(b, p, n, _)| {
                    *b == case.backend && *p == case.skinning && *n == case.instances
                })
                .filter(|_| case.lod != "off")
                .map(|(.., off)| delta_e(off, &picture));
            if case.lod == "off" {
                off_pictures.push((
                    case.backend.clone(),
                    case.skinning.clone(),
                    case.instances,
                    picture,
                ));
            }
            report.results.push(CaseResult {
                case: case.clone(),
                frames: s.frame.len(),
                drawn: Stat::of(&mut s.drawn).median,
                stepped: Stat::of(&mut s.stepped).median,
                simulate_ms: Stat::of(&mut s.simulate),
                lod_ms: Stat::of(&mut s.lod),
                upload_ms: Stat::of(&mut s.upload),
                cpu_skin_ms: Stat::of(&mut s.skin),
                live_ms: Stat::of(&mut s.live),
                cpu_ms: Stat::of(&mut s.cpu),
                gpu_ms: Stat::of(&mut s.gpu),
                gpu_timing: if s.timestamps { "timestamps" } else { "wall" }.into(),
                frame_ms: Stat::of(&mut s.frame),
                quality,
                skipped: None,
            });
        }
    }
    Ok(report)
}

fn skipped(case: &Case, why: String) -> CaseResult {
    CaseResult {
        case: case.clone(),
        skipped: Some(why),
        ..CaseResult::default()
    }
}
