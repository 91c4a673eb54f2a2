//! Running the benchmark: every combination of backend, instance count, skinning path, shadows
//! and LOD preset, headless, on the same seeded crowd and camera path, measured frame by frame;
//! the last frame of each case kept to compare pictures with the `off` preset's (same shadows)
//! and with the shadowless one's (same preset).

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use glam::Vec3;

use super::error::BenchError;
use super::live::Live;
use super::quality::delta_e;
use super::results::{Adapter, Case, CaseResult, HybridResult, Quality, Report, Settings, Stat};
use crate::bake::Recipe;
use crate::crowd::Terrain;
use crate::crowd::{
    InstanceRecord, LodPolicy, LodPresets, Plaza, PlazaSettings, UpdateStats, View,
};
use crate::format::ThrongFile;
use crate::hybrid::{LiveTier, quantile_abs};
use crate::render::{
    BackendChoice, CrowdFrame, CrowdRenderer, FrameStats, Gpu, PassFormat, PathLimits, PathRequest,
    Shadows, SkinningPath, Stage, Target, choose_path,
};

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
    /// Skinning paths.
    pub skinning: Vec<SkinningPath>,
    /// Shadows (`off` first when present: the others are compared with it).
    pub shadows: Vec<Shadows>,
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
    /// Where to save each case's last frame as `BACKEND-PATH-LOD-SHADOWS-COUNT.png`, if
    /// anywhere.
    pub pictures: Option<PathBuf>,
    /// The ground the crowd stands on (flat keeps runs comparable with earlier ones; the
    /// hybrid path's foot IK has something to do on the relief).
    pub ground: Terrain,
}

/// Simulated seconds per frame: the crowd advances at 60 frames a second whatever the
/// machine, so every case sees the same scene.
pub const DT: f32 = 1.0 / 60.0;

/// The camera `k` frames in, for a plaza of half-size `half`: above the plaza's southern edge,
/// looking at its middle, so agents are seen from a few metres to across the plaza (every LOD
/// level), drifting east and back (the same path for every case).
pub fn camera(half: f32, k: usize, aspect: f32) -> View {
    camera_on(Terrain::Flat, half, k, aspect)
}

/// The camera of frame `k` on `ground`: on the flat plaza as [`camera`]; on the relief, a
/// slow sweep over the terrace and its steps (the relief's features are within 12 m of the
/// plaza's centre, far from the flat camera's near agents), so that the near agents the
/// hybrid path evaluates live stand on them.
pub fn camera_on(ground: Terrain, half: f32, k: usize, aspect: f32) -> View {
    let t = k as f32 * DT;
    let (eye, target) = match ground {
        Terrain::Flat => {
            let height = (0.12 * half + 2.0).max(3.0);
            (
                Vec3::new(0.3 * half * (t * 0.3).sin(), height, 0.9 * half),
                Vec3::new(0.0, 0.0, 0.1 * half),
            )
        }
        Terrain::Relief => (
            Vec3::new(8.0 + 10.0 * (t * 0.3).sin(), 6.0, 18.0),
            Vec3::new(8.0, 0.3, 0.0),
        ),
    };
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

/// Where a run is: what [`run`] tells its caller after each frame and each skipped case.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Progress {
    /// The case, counted from 1 in [`cases`]' order.
    pub case: usize,
    /// Frames of it done, warm-up included; 0 for a case skipped.
    pub frame: usize,
    /// How long that frame took, seconds (0 for a case skipped): the whole frame, as the
    /// report's frame time measures it.
    pub seconds: f64,
}

/// A case with its backend, path and shadows as types (the report's [`Case`] names them).
struct Planned {
    backend: BackendChoice,
    path: SkinningPath,
    shadows: Shadows,
    case: Case,
}

/// `items` with the first one that `is_off` moved to the front (the one the others are
/// compared with runs first).
fn off_first<T: Clone>(items: &[T], is_off: impl Fn(&T) -> bool) -> Vec<T> {
    let mut items = items.to_vec();
    if let Some(i) = items.iter().position(is_off) {
        let off = items.remove(i);
        items.insert(0, off);
    }
    items
}

/// The cases of `options` in run order: per backend, per count, per path, per shadows, per
/// preset (`off` first in both: a case's LOD reference (preset `off`, same shadows) and its
/// shadows reference (shadows `off`, same preset) both run before it).
fn plan(options: &BenchOptions) -> Vec<Planned> {
    let lods = off_first(&options.lods, |l| l == "off");
    let shadows = off_first(&options.shadows, |s| *s == Shadows::Off);
    let mut out = Vec::new();
    for &backend in &options.backends {
        for &n in &options.instances {
            for &path in &options.skinning {
                for &sh in &shadows {
                    for l in &lods {
                        out.push(Planned {
                            backend,
                            path,
                            shadows: sh,
                            case: Case {
                                backend: backend.name().to_string(),
                                skinning: path.name().to_string(),
                                lod: l.clone(),
                                shadows: sh.name().to_string(),
                                instances: n,
                            },
                        });
                    }
                }
            }
        }
    }
    out
}

/// The cases of `options` in run order: per backend, per count, per path, per shadows, per
/// preset.
pub fn cases(options: &BenchOptions) -> Vec<Case> {
    plan(options).into_iter().map(|p| p.case).collect()
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
    live_agents: Vec<f64>,
    timestamps: bool,
}

/// What one frame measured, seconds.
struct FrameTimes {
    update: UpdateStats,
    stats: FrameStats,
    /// Evaluating the live path's (or the hybrid path's live tier's) matrices.
    live: f64,
    /// Agents the hybrid path's live tier posed.
    live_agents: usize,
    /// Writing the live path's matrices.
    live_upload: f64,
    /// The whole frame.
    wall: f64,
}

impl Samples {
    /// Adds a measured frame, in milliseconds.
    fn push(&mut self, f: &FrameTimes) {
        let upload = f.stats.upload_seconds + f.live_upload;
        let cpu = f.update.simulate_seconds
            + f.update.lod_seconds
            + upload
            + f.stats.cpu_skin_seconds
            + f.live;
        self.simulate.push(f.update.simulate_seconds * 1e3);
        self.lod.push(f.update.lod_seconds * 1e3);
        self.upload.push(upload * 1e3);
        self.skin.push(f.stats.cpu_skin_seconds * 1e3);
        self.live.push(f.live * 1e3);
        self.cpu.push(cpu * 1e3);
        self.timestamps = f.stats.gpu_seconds.is_some();
        self.gpu
            .push(f.stats.gpu_seconds.unwrap_or(f.stats.submit_seconds) * 1e3);
        self.frame.push(f.wall * 1e3);
        self.drawn.push(f.update.visible as f64);
        self.stepped.push(f.update.due as f64);
        self.live_agents.push(f.live_agents as f64);
    }

    /// The case's result from its frames.
    fn result(
        mut self,
        case: &Case,
        quality: Option<Quality>,
        shadows_quality: Option<Quality>,
    ) -> CaseResult {
        CaseResult {
            case: case.clone(),
            frames: self.frame.len(),
            drawn: Stat::of(&mut self.drawn).median,
            stepped: Stat::of(&mut self.stepped).median,
            simulate_ms: Stat::of(&mut self.simulate),
            lod_ms: Stat::of(&mut self.lod),
            upload_ms: Stat::of(&mut self.upload),
            cpu_skin_ms: Stat::of(&mut self.skin),
            live_ms: Stat::of(&mut self.live),
            cpu_ms: Stat::of(&mut self.cpu),
            gpu_ms: Stat::of(&mut self.gpu),
            gpu_timing: if self.timestamps {
                "timestamps"
            } else {
                "wall"
            }
            .into(),
            frame_ms: Stat::of(&mut self.frame),
            quality,
            shadows_quality,
            skipped: None,
            hybrid: None,
        }
    }
}

/// A device opened for one backend, with what its cases share.
struct Device {
    gpu: Gpu,
    target: Target,
    renderer: CrowdRenderer,
    /// The sky, the ground and the pass's timing.
    stage: Stage,
    /// Why each path cannot run on it (the CPU path's limit is per case).
    limits: PathLimits,
    /// The live path's per-frame scratch: matrices, records and visible slots.
    live_rows: Vec<[f32; 4]>,
    live_records: Vec<InstanceRecord>,
    visible: Vec<u32>,
}

/// The state of a run across backends and cases.
struct Runner<'a> {
    options: &'a BenchOptions,
    file: &'a Arc<ThrongFile>,
    /// The live baseline, where a live case is asked for (or why it cannot run).
    live: Option<Result<Live, BenchError>>,
    /// The last pictures of cases others are compared with (LOD preset `off` or shadows
    /// `off`), by case.
    references: Vec<(Case, image::RgbaImage)>,
    /// Cases done so far.
    index: usize,
    progress: &'a mut dyn FnMut(Progress) -> ControlFlow<()>,
    report: Report,
}

/// Runs every case, calling `progress` after each frame and each case skipped; the run stops
/// when it answers [`ControlFlow::Break`] (having saved nothing of the case under way).
///
/// # Errors
/// When the bake or presets cannot be read, or a frame fails on a device that opened;
/// [`BenchError::Stopped`] when `progress` stopped it. Backends that do not open, and paths
/// that cannot run, are reported as skipped cases.
pub fn run(
    options: &BenchOptions,
    progress: &mut dyn FnMut(Progress) -> ControlFlow<()>,
) -> Result<Report, BenchError> {
    let file = Arc::new(ThrongFile::open(&options.bake)?);
    for l in &options.lods {
        if options.presets.get(l).is_none() {
            return Err(BenchError::Settings(format!(
                "no LOD preset '{l}' (there are: {})",
                options.presets.names().collect::<Vec<_>>().join(", ")
            )));
        }
    }
    let live = options
        .skinning
        .contains(&SkinningPath::Live)
        .then(|| load_live(options, &file));
    let mut runner = Runner {
        options,
        file: &file,
        live,
        references: Vec::new(),
        index: 0,
        progress,
        report: new_report(options),
    };
    let plan = plan(options);
    for &backend in &options.backends {
        let cases: Vec<&Planned> = plan.iter().filter(|p| p.backend == backend).collect();
        runner.backend(backend, &cases)?;
    }
    Ok(runner.report)
}

/// The live baseline's characters, from the recipe `options` names.
fn load_live(options: &BenchOptions, file: &ThrongFile) -> Result<Live, BenchError> {
    match &options.recipe {
        Some(r) => Recipe::load(r)
            .map_err(|e| BenchError::Live(e.to_string()))
            .and_then(|recipe| Live::new(file, &recipe)),
        None => Err(BenchError::Live(format!(
            "{}: no recipe to load its characters from (give --recipe)",
            file.name()
        ))),
    }
}

/// An empty report of `options`, dated now, on this machine.
fn new_report(options: &BenchOptions) -> Report {
    Report {
        date: super::machine::now_rfc3339(),
        command: options.command.clone(),
        settings: Settings {
            bake: options.bake.display().to_string(),
            instances: options.instances.clone(),
            lods: options.lods.clone(),
            skinning: options
                .skinning
                .iter()
                .map(|p| p.name().to_string())
                .collect(),
            shadows: options
                .shadows
                .iter()
                .map(|s| s.name().to_string())
                .collect(),
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
            ground: options.ground.name().to_string(),
        },
        machine: super::machine::describe(),
        results: Vec::new(),
        levels: Vec::new(),
    }
}

impl Runner<'_> {
    /// Tells the caller that `frame` frames of the current case are done, the last in
    /// `seconds`.
    ///
    /// # Errors
    /// [`BenchError::Stopped`] when the caller stops the run.
    fn done(&mut self, frame: usize, seconds: f64) -> Result<(), BenchError> {
        let p = Progress {
            case: self.index,
            frame,
            seconds,
        };
        match (self.progress)(p) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(()) => Err(BenchError::Stopped),
        }
    }

    /// Runs the `cases` of `backend` (all skipped if it does not open).
    fn backend(&mut self, backend: BackendChoice, cases: &[&Planned]) -> Result<(), BenchError> {
        let gpu = match Gpu::new(backend) {
            Ok(g) => g,
            Err(e) => {
                for c in cases {
                    self.report.results.push(skipped(&c.case, e.to_string()));
                    self.index += 1;
                    self.done(0, 0.0)?;
                }
                return Ok(());
            }
        };
        self.report.machine.adapters.push(Adapter {
            backend: backend.name().to_string(),
            name: gpu.info.name.clone(),
            driver: gpu.info.driver.clone(),
            driver_info: gpu.info.driver_info.clone(),
        });
        let samples = Target::best_samples(&gpu);
        let (w, h) = self.options.size;
        let renderer = CrowdRenderer::new(&gpu, self.file, PassFormat::offscreen(samples))?;
        let mut device = Device {
            target: Target::new(&gpu, w, h, samples),
            stage: Stage::with_terrain(&gpu, &renderer, self.options.ground)?,
            renderer,
            limits: PathLimits {
                live: match &self.live {
                    Some(Err(e)) => Some(e.to_string()),
                    _ => None,
                },
                hybrid: LiveTier::new(self.file).err().map(|e| e.to_string()),
                ..PathLimits::of(&gpu, self.file)
            },
            gpu,
            live_rows: Vec::new(),
            live_records: Vec::new(),
            visible: Vec::new(),
        };
        for c in cases {
            self.index += 1;
            let limits = PathLimits {
                cpu: device.renderer.cpu_path_unavailable(c.case.instances),
                ..device.limits.clone()
            };
            if let Err(e) = choose_path(&limits, PathRequest::Only(c.path)) {
                self.report.results.push(skipped(&c.case, e.why));
                self.done(0, 0.0)?;
                continue;
            }
            let Some(policy) = self.options.presets.get(&c.case.lod).cloned() else {
                continue; // checked in `run`
            };
            let result = self.case(&mut device, c, policy)?;
            self.report.results.push(result);
        }
        if self.report.levels.is_empty() {
            let presets: Vec<_> = (self.options.lods.iter())
                .filter_map(|l| Some((l.clone(), self.options.presets.get(l)?.clone())))
                .collect();
            let tools = super::levels::Tools {
                gpu: &device.gpu,
                renderer: &mut device.renderer,
                stage: &mut device.stage,
                target: &device.target,
                size: self.options.size,
            };
            self.report.levels = super::levels::measure(tools, self.file, &presets)?;
        }
        Ok(())
    }

    /// Runs one case: warm-up and measured frames with its shadows, then its last picture
    /// saved and compared with the `off` preset's (same shadows) and the shadowless one's
    /// (same preset).
    fn case(
        &mut self,
        device: &mut Device,
        planned: &Planned,
        policy: LodPolicy,
    ) -> Result<CaseResult, BenchError> {
        let case = &planned.case;
        let options = self.options;
        let settings = PlazaSettings {
            count: case.instances,
            seed: options.seed,
            terrain: options.ground,
            ..PlazaSettings::default()
        };
        // Only the hybrid path has a live tier; the others draw every agent baked.
        let policy = if planned.path == SkinningPath::Hybrid {
            policy
        } else {
            policy.without_live()
        };
        let mut tier = if planned.path == SkinningPath::Hybrid {
            let mut tier = LiveTier::new(self.file)?;
            tier.set_measuring(true);
            Some(tier)
        } else {
            None
        };
        let mut crowd = Plaza::new(self.file.clone(), &settings, policy)?;
        let half = crowd.half_size();
        device.stage.reach(&device.gpu, half);
        let (w, h) = options.size;
        let aspect = w as f32 / h as f32;
        device.renderer.set_shadows(planned.shadows);
        let mut s = Samples::default();
        for k in 0..options.warmup + options.frames {
            let view = camera_on(options.ground, half, k, aspect);
            if k == options.warmup
                && let Some(t) = tier.as_mut()
            {
                // Measure the measured frames only.
                t.restart_measures();
            }
            let times = self.frame(device, &mut crowd, planned.path, &view, tier.as_mut())?;
            self.done(k + 1, times.wall)?;
            if k >= options.warmup {
                s.push(&times);
            }
        }
        let live_median = Stat::of(&mut s.live_agents.clone()).median;
        let picture = device.target.read(&device.gpu)?;
        if let Some(dir) = &options.pictures {
            save_picture(dir, case, &picture)?;
        }
        let off = Shadows::Off.name();
        let compare = |reference: Case| {
            (reference != *case)
                .then(|| self.references.iter().find(|(c, _)| *c == reference))
                .flatten()
                .map(|(_, r)| delta_e(r, &picture))
        };
        let quality = compare(Case {
            lod: "off".to_string(),
            ..case.clone()
        });
        let shadows_quality = compare(Case {
            shadows: off.to_string(),
            ..case.clone()
        });
        if case.lod == "off" || case.shadows == off {
            self.references.push((case.clone(), picture));
        }
        let mut result = s.result(case, quality, shadows_quality);
        if let Some((t, m)) = tier.as_ref().and_then(|t| Some((t, t.measures()?))) {
            let mm = |v: &[f32]| f64::from(quantile_abs(v, 0.99)) * 1e3;
            result.hybrid = Some(HybridResult {
                live: live_median,
                feet: m.live_errors.len(),
                foot_live_p99_mm: mm(&m.live_errors),
                foot_baked_p99_mm: mm(&m.baked_errors),
                handoffs: m.jumps.len(),
                jump_p99: f64::from(quantile_abs(&m.jumps, 0.99)),
                jump_max: f64::from(quantile_abs(&m.jumps, 1.0)),
                posed_from_bake: t.why_baked().map(str::to_string),
            });
        }
        Ok(result)
    }

    /// One frame of a case: the crowd advanced, its changes (or, live, every visible agent's
    /// matrices) uploaded, the pass drawn and waited for.
    fn frame(
        &self,
        device: &mut Device,
        plaza: &mut Plaza,
        path: SkinningPath,
        view: &View,
        tier: Option<&mut LiveTier>,
    ) -> Result<FrameTimes, BenchError> {
        let file: &ThrongFile = self.file;
        let start = Instant::now();
        let update = plaza.update(DT, view);
        let crowd = plaza.crowd_mut();
        let (mut live, mut live_upload, mut live_agents) = (0.0, 0.0, 0);
        if let Some(tier) = tier {
            let stats = tier.evaluate(file, crowd, self.options.ground);
            live = stats.seconds;
            live_agents = stats.agents;
            live_upload = device.renderer.upload_live(&device.gpu, tier.rows())?;
        }
        let live_baseline = match (&self.live, path) {
            (Some(Ok(l)), SkinningPath::Live) => Some(l),
            _ => None,
        };
        let mut stats = if let Some(baseline) = live_baseline {
            // Every visible agent, evaluated now; all records written.
            let t = Instant::now();
            device.visible.clear();
            for d in crowd.draws() {
                device.visible.extend(d.slots.clone());
            }
            device.live_records.clear();
            device.live_records.extend_from_slice(crowd.records());
            baseline.evaluate(
                crowd.agents(),
                &device.visible,
                &mut device.live_records,
                &mut device.live_rows,
            );
            live = t.elapsed().as_secs_f64();
            live_upload = device
                .renderer
                .upload_live(&device.gpu, &device.live_rows)?;
            let all_slots = 0..device.live_records.len() as u32;
            let frame = CrowdFrame {
                records: &device.live_records,
                dirty: std::slice::from_ref(&all_slots),
                draws: crowd.draws(),
                slot_agent: crowd.slot_agent(),
                prepared: None,
            };
            device
                .renderer
                .prepare(&device.gpu, file, &frame, view.view_proj, path)?
        } else {
            let frame = CrowdFrame::of(crowd);
            device
                .renderer
                .prepare(&device.gpu, file, &frame, view.view_proj, path)?
        };
        let frame = CrowdFrame {
            records: if path == SkinningPath::Live {
                &device.live_records
            } else {
                crowd.records()
            },
            dirty: &[],
            draws: crowd.draws(),
            slot_agent: crowd.slot_agent(),
            prepared: None,
        };
        let mut encoder =
            device
                .gpu
                .device
                .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                    label: Some("bench frame"),
                });
        let renderer = &device.renderer;
        stats.draws = renderer.encode_shadows(&mut encoder, &frame, path);
        stats.draws +=
            device
                .stage
                .encode(&mut encoder, &device.target.views(), renderer, |pass| {
                    renderer.draw(pass, &frame, path)
                });
        device.stage.submit(&device.gpu, encoder, &mut stats)?;
        crowd.clear_dirty();
        Ok(FrameTimes {
            update,
            stats,
            live,
            live_agents,
            live_upload,
            wall: start.elapsed().as_secs_f64(),
        })
    }
}

/// Saves a case's last frame as `dir/BACKEND-PATH-LOD-SHADOWS-COUNT.png`.
fn save_picture(
    dir: &std::path::Path,
    case: &Case,
    picture: &image::RgbaImage,
) -> Result<(), BenchError> {
    let path = dir.join(format!(
        "{}-{}-{}-{}-{}.png",
        case.backend, case.skinning, case.lod, case.shadows, case.instances
    ));
    std::fs::create_dir_all(dir)
        .map_err(|e| BenchError::Settings(format!("{}: {e}", dir.display())))?;
    crate::app::save_png(picture, &path).map_err(|e| BenchError::Settings(e.to_string()))
}

fn skipped(case: &Case, why: String) -> CaseResult {
    CaseResult {
        case: case.clone(),
        skipped: Some(why),
        ..CaseResult::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_case_runs_after_both_of_its_references() {
        let options = BenchOptions {
            bake: PathBuf::from("m.throng"),
            recipe: None,
            presets: LodPresets::builtin(),
            instances: vec![100],
            lods: vec!["balanced".to_string(), "off".to_string()],
            skinning: vec![SkinningPath::Gpu],
            shadows: vec![Shadows::Map, Shadows::Off, Shadows::Blob],
            backends: vec![BackendChoice::Vulkan],
            frames: 1,
            warmup: 0,
            size: (16, 16),
            seed: 1,
            command: String::new(),
            pictures: None,
            ground: Terrain::Flat,
        };
        let cases = cases(&options);
        let names: Vec<(&str, &str)> = cases
            .iter()
            .map(|c| (c.shadows.as_str(), c.lod.as_str()))
            .collect();
        assert_eq!(
            names,
            [
                ("off", "off"),
                ("off", "balanced"),
                ("map", "off"),
                ("map", "balanced"),
                ("blob", "off"),
                ("blob", "balanced"),
            ]
        );
        // The LOD reference (preset off, same shadows) and the shadows reference (shadows
        // off, same preset) of every case come before it.
        for (i, c) in cases.iter().enumerate() {
            for reference in [
                Case {
                    lod: "off".to_string(),
                    ..c.clone()
                },
                Case {
                    shadows: "off".to_string(),
                    ..c.clone()
                },
            ] {
                let at = cases.iter().position(|r| *r == reference).unwrap();
                assert!(at <= i, "{reference:?} runs after {c:?}");
            }
        }
    }
}
