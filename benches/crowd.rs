//! The crowd's CPU cost per frame for 1,000, 10,000 and 100,000 agents of the default
//! mannequin bake, under the `balanced` and `off` LOD presets, in two scenes:
//! - `plaza`: the demo's wandering crowd, `Plaza::update` (neighbour grid, culling, LOD
//!   levels, bucket moves, the steps of due agents and their records);
//! - `driven`: a game's crowd, every agent's place written by the program each frame
//!   (`Crowd::set_transforms`: columns marching across a square as large as the plaza, at
//!   the walk's ground speed) and then `Crowd::update` (culling, LOD levels, bucket moves,
//!   the due agents' animations and records). The positions are worked out before the timer
//!   starts: what is timed is throng's part (the write, the update and the upload).
//!
//! A camera orbits over the plaza, 15 m up, looking across it; each crowd runs 60 warm-up
//! frames, then 300 measured frames at 1/60 s. Printed per case: median and 95th percentile of
//! the simulation, LOD (culling + levels + bucket moves) and total update times in
//! milliseconds, and per frame the medians of agents drawn, agents stepped and records written
//! (the slots `dirty()` holds, which the renderer uploads; it clears them every frame, as
//! here), heap allocations per measured frame (all threads; 0 once warm is the goal), and the
//! time of the very first update (every agent finds its LOD group then). After each case, a
//! checksum of every record after the last frame (FNV-1a over their bytes, in slot order):
//! two builds that print the same checksums moved the same crowd to the bit.
//! With a GPU adapter (Vulkan, else GL; lavapipe or llvmpipe without a GPU), each frame's
//! changed records are also written to the renderer's instance buffer
//! (`CrowdRenderer::prepare`, as the demo does), and the upload time and the CPU side of the
//! frame (update + upload) are printed; the frame is submitted (empty) and waited for outside
//! the timed part. Without an adapter those columns say `-`.
//!
//! Rayon's pool is built as the `throng` binary builds it, the main thread one of its workers
//! (docs/CROWD.md, "Cost").
//!
//! Run: `cargo bench --bench crowd`. THRONG_BENCH_COUNTS (e.g. `100000`) limits the counts;
//! THRONG_BENCH_PRESETS (e.g. `balanced,aggressive`) chooses the presets;
//! THRONG_BENCH_SCENES (`plaza`, `driven`) the scenes.
//! Reads bake/mannequin.throng, baking it first (as `throng bake` would) when it is missing
//! or unreadable.

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use glam::Vec3;
use throng::bake::{BakeOptions, Recipe, bake};
use throng::crowd::{
    AgentId, Crowd, CrowdSettings, LodPolicy, LodPresets, Plaza, PlazaSettings, Spawn, UpdateStats,
    View,
};
use throng::format::ThrongFile;
use throng::render::{BackendChoice, CrowdFrame, CrowdRenderer, Gpu, PassFormat, SkinningPath};

/// Counts every allocation, on every thread: the bench runs one crowd at a time.
struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const WARM_UP: u32 = 60;
const FRAMES: u32 = 300;
const DT: f32 = 1.0 / 60.0;

/// `(median, 95th percentile)` of `v`.
fn quantiles(v: &mut [f64]) -> (f64, f64) {
    v.sort_by(f64::total_cmp);
    let at = |q: f64| v[((v.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

/// FNV-1a, 64 bits, over `bytes`: enough to tell two crowds apart, not a cryptographic hash.
fn checksum(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The camera `k` frames into its orbit over a plaza of half-size `half`: on a circle of half
/// the plaza's half-size, 15 m up, looking 60 m ahead towards the centre and down at the
/// ground; 60° vertical field of view, 16:9, far enough to see across the plaza.
fn orbit(half: f32, k: u32) -> View {
    let angle = k as f32 * 0.004;
    let eye = Vec3::new(angle.cos(), 0.0, angle.sin()) * (0.5 * half) + Vec3::Y * 15.0;
    let inward = Vec3::new(-eye.x, 0.0, -eye.z).normalize_or(Vec3::Z);
    let target = Vec3::new(eye.x, 0.0, eye.z) + inward * 60.0;
    let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(
        60f32.to_radians(),
        16.0 / 9.0,
        0.1,
        2.5 * half + 100.0,
    );
    View {
        view_proj: proj * view,
        eye,
    }
}

/// Writes the crowd's changed records to the renderer's instance buffer (as the demo does)
/// and returns the seconds it took; then submits and waits, untimed, so the writes are
/// flushed. `None` without a GPU.
fn upload<S: throng::crowd::AgentData>(
    gpu: &Option<Gpu>,
    renderer: Option<&mut CrowdRenderer>,
    file: &ThrongFile,
    crowd: &Crowd<S>,
    view: &View,
) -> Option<f64> {
    let (g, r) = (gpu.as_ref()?, renderer?);
    let frame = CrowdFrame::of(crowd);
    let stats = r
        .prepare(g, file, &frame, view.view_proj, SkinningPath::Gpu)
        .expect("prepare");
    g.queue.submit([]);
    g.device
        .poll(wgpu::PollType::wait_indefinitely())
        .expect("poll");
    Some(stats.upload_seconds)
}

/// A scene the bench runs: the plaza, or a crowd the program drives.
// One scene lives at a time: the size of its variants does not matter.
#[allow(clippy::large_enum_variant)]
enum Scene {
    Plaza(Plaza),
    Driven {
        crowd: Crowd,
        /// Each agent's place this frame, worked out before the timer starts.
        moves: Vec<(AgentId, Vec3, f32)>,
        half: f32,
        speed: f32,
    },
}

impl Scene {
    fn new(name: &str, file: &Arc<ThrongFile>, count: usize, policy: LodPolicy) -> Self {
        let plaza = PlazaSettings {
            count,
            seed: 1,
            ..PlazaSettings::default()
        };
        if name == "plaza" {
            return Self::Plaza(Plaza::new(file.clone(), &plaza, policy).expect("plaza"));
        }
        // Columns 2 m apart, rows 3 m apart (the plaza's 6 m² an agent), marching along +x.
        let mut crowd = Crowd::new(file.clone(), &CrowdSettings::default(), policy).expect("crowd");
        let character = &crowd.palette().characters()[0];
        let gait = character
            .walk()
            .map_or(character.locomotion[0], |w| character.locomotion[w]);
        let side = (count as f32 * plaza.area_per_agent).sqrt();
        let half = 0.5 * side;
        let columns = (side / 2.0).ceil().max(1.0) as usize;
        let spawns: Vec<_> = (0..count)
            .map(|i| {
                let (row, column) = (i / columns, i % columns);
                let at = Vec3::new(-half + 2.0 * column as f32, 0.0, -half + 3.0 * row as f32);
                let phase = (i % 17) as f32 / 17.0;
                let spawn = Spawn::new(0, gait.anim, at)
                    .with_heading(std::f32::consts::FRAC_PI_2)
                    .with_play(throng::crowd::Play::at_phase(phase));
                (spawn, ())
            })
            .collect();
        let ids = crowd.spawn_many(&spawns).expect("spawn");
        let moves = ids
            .iter()
            .zip(&spawns)
            .map(|(&id, (s, _))| (id, s.position, s.heading))
            .collect();
        Self::Driven {
            crowd,
            moves,
            half,
            speed: gait.speed,
        }
    }

    fn half(&self) -> f32 {
        match self {
            Self::Plaza(p) => p.half_size(),
            Self::Driven { half, .. } => *half,
        }
    }

    /// The program's own work for the next frame (untimed): the marchers' places.
    fn prepare(&mut self) {
        if let Self::Driven {
            moves, half, speed, ..
        } = self
        {
            for (_, p, _) in moves.iter_mut() {
                p.x += *speed * DT;
                if p.x > *half {
                    p.x -= 2.0 * *half;
                }
            }
        }
    }

    /// The timed part: the program's writes and the crowd's update.
    fn update(&mut self, view: &View) -> UpdateStats {
        match self {
            Self::Plaza(p) => p.update(DT, view),
            Self::Driven { crowd, moves, .. } => {
                crowd.set_transforms(moves).expect("places");
                crowd.update(DT, view)
            }
        }
    }

    fn upload(
        &self,
        gpu: &Option<Gpu>,
        renderer: Option<&mut CrowdRenderer>,
        file: &ThrongFile,
        view: &View,
    ) -> Option<f64> {
        match self {
            Self::Plaza(p) => upload(gpu, renderer, file, p.crowd(), view),
            Self::Driven { crowd, .. } => upload(gpu, renderer, file, crowd, view),
        }
    }

    fn clear_dirty(&mut self) {
        match self {
            Self::Plaza(p) => p.crowd_mut().clear_dirty(),
            Self::Driven { crowd, .. } => crowd.clear_dirty(),
        }
    }

    fn records(&self) -> &[throng::crowd::InstanceRecord] {
        match self {
            Self::Plaza(p) => p.crowd().records(),
            Self::Driven { crowd, .. } => crowd.records(),
        }
    }
}

fn open_bake(root: &Path) -> ThrongFile {
    let path = root.join("bake/mannequin.throng");
    if let Ok(file) = ThrongFile::open(&path) {
        return file;
    }
    println!(
        "baking {} (as `cargo run --release -- bake` would)",
        path.display()
    );
    let recipe = Recipe::load(&root.join("bake/mannequin.toml")).expect("bake/mannequin.toml");
    bake(&recipe, &BakeOptions::default())
        .expect("bake")
        .builder
        .write(&recipe.output)
        .expect("write the bake");
    ThrongFile::open(&recipe.output).expect("open the bake")
}

fn main() {
    // The pool as the `throng` binary builds it and docs/CROWD.md asks of a program: the
    // calling thread one of its workers, so that the crowd is measured the way it runs.
    // Fails only when a pool exists already, which cannot happen this early.
    let _ = rayon::ThreadPoolBuilder::new()
        .use_current_thread()
        .build_global();
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let file = Arc::new(open_bake(root));
    let presets = LodPresets::builtin();
    let gpu = Gpu::new(BackendChoice::Auto)
        .map_err(|e| eprintln!("no upload measured: {e}"))
        .ok();
    let mut renderer = gpu
        .as_ref()
        .map(|g| CrowdRenderer::new(g, &file, PassFormat::offscreen(1)).expect("renderer"));
    if let Some(g) = &gpu {
        println!("uploads to {}", g.describe());
    }
    let counts: Vec<usize> = std::env::var("THRONG_BENCH_COUNTS")
        .ok()
        .map(|v| v.split(',').filter_map(|c| c.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![1_000, 10_000, 100_000]);
    println!(
        "Plaza::update and Crowd::set_transforms + update, {} rayon threads, {WARM_UP} warm-up + {FRAMES} frames at 1/60 s",
        rayon::current_num_threads()
    );
    println!(
        "{:>6}  {:>10}  {:>7}  {:>13}  {:>13}  {:>13}  {:>13}  {:>13}  {:>8}  {:>8}  {:>8}  {:>7}  {:>8}",
        "scene",
        "preset",
        "agents",
        "simulate ms",
        "lod ms",
        "update ms",
        "upload ms",
        "CPU frame ms",
        "drawn",
        "stepped",
        "written",
        "allocs",
        "first"
    );
    println!(
        "{:>6}  {:>10}  {:>7}  {:>13}  {:>13}  {:>13}  {:>13}  {:>13}  {:>8}  {:>8}  {:>8}  {:>7}  {:>8}",
        "",
        "",
        "",
        "median  p95",
        "median  p95",
        "median  p95",
        "median  p95",
        "median  p95",
        "median",
        "median",
        "median",
        "/frame",
        "frame ms"
    );
    let names: Vec<String> = std::env::var("THRONG_BENCH_PRESETS")
        .ok()
        .map(|v| v.split(',').map(|p| p.trim().to_string()).collect())
        .unwrap_or_else(|| vec!["balanced".into(), "off".into()]);
    let scenes: Vec<String> = std::env::var("THRONG_BENCH_SCENES")
        .ok()
        .map(|v| v.split(',').map(|p| p.trim().to_string()).collect())
        .unwrap_or_else(|| vec!["plaza".into(), "driven".into()]);
    for scene_name in &scenes {
        for preset in &names {
            let Some(policy) = presets.get(preset).cloned() else {
                eprintln!(
                    "no preset '{preset}' (built in: {})",
                    presets.names().collect::<Vec<_>>().join(", ")
                );
                continue;
            };
            for &count in &counts {
                let mut scene = Scene::new(scene_name, &file, count, policy.without_live());
                let half = scene.half();
                scene.prepare();
                let start = Instant::now();
                scene.update(&orbit(half, 0));
                let first = start.elapsed().as_secs_f64() * 1e3;
                scene.clear_dirty();
                for k in 1..WARM_UP {
                    let view = orbit(half, k);
                    scene.prepare();
                    scene.update(&view);
                    // Warm the instance buffer too (its first write covers every record).
                    scene.upload(&gpu, renderer.as_mut(), &file, &view);
                    scene.clear_dirty();
                }
                let (mut sim, mut lod, mut total) = (Vec::new(), Vec::new(), Vec::new());
                let (mut uploads, mut frame_cpu) = (Vec::new(), Vec::new());
                let (mut drawn, mut stepped, mut written) = (Vec::new(), Vec::new(), Vec::new());
                for v in [
                    &mut sim,
                    &mut lod,
                    &mut total,
                    &mut drawn,
                    &mut stepped,
                    &mut written,
                ] {
                    v.reserve(FRAMES as usize);
                }
                let mut allocations = 0;
                for k in WARM_UP..WARM_UP + FRAMES {
                    let view = orbit(half, k);
                    scene.prepare();
                    let before = ALLOCATIONS.load(Ordering::Relaxed);
                    let start = Instant::now();
                    let stats = scene.update(&view);
                    let seconds = start.elapsed().as_secs_f64();
                    allocations += ALLOCATIONS.load(Ordering::Relaxed) - before;
                    if let Some(up) = scene.upload(&gpu, renderer.as_mut(), &file, &view) {
                        uploads.push(up * 1e3);
                        frame_cpu.push((seconds + up) * 1e3);
                    }
                    scene.clear_dirty();
                    sim.push(stats.simulate_seconds * 1e3);
                    lod.push(stats.lod_seconds * 1e3);
                    total.push(seconds * 1e3);
                    drawn.push(stats.visible as f64);
                    stepped.push(stats.due as f64);
                    written.push(stats.written as f64);
                }
                let (s50, s95) = quantiles(&mut sim);
                let (l50, l95) = quantiles(&mut lod);
                let (t50, t95) = quantiles(&mut total);
                let pair = |v: &mut Vec<f64>| {
                    if v.is_empty() {
                        format!("{:>13}", "-")
                    } else {
                        let (a, b) = quantiles(v);
                        format!("{a:>6.3} {b:>6.3}")
                    }
                };
                let (up, cpu) = (pair(&mut uploads), pair(&mut frame_cpu));
                println!(
                    "{scene_name:>6}  {preset:>10}  {count:>7}  {s50:>6.3} {s95:>6.3}  {l50:>6.3} {l95:>6.3}  {t50:>6.3} {t95:>6.3}  {up}  {cpu}  {:>8.0}  {:>8.0}  {:>8.0}  {:>7.2}  {first:>8.2}",
                    quantiles(&mut drawn).0,
                    quantiles(&mut stepped).0,
                    quantiles(&mut written).0,
                    allocations as f64 / f64::from(FRAMES)
                );
                println!(
                    "{:>17}  records after frame {}: checksum {:016x}",
                    "",
                    WARM_UP + FRAMES,
                    checksum(bytemuck::cast_slice(scene.records()))
                );
            }
        }
    }
}
