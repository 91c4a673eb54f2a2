//! A game's own code driving a throng crowd: 1,200 agents in 24 columns march across a field.
//! Each column keeps a program of its own: stand, walk off, speed up until it breaks into a
//! run, slow down, stop, turn about, march back. The program decides every agent's place,
//! heading and speed each frame and writes them in one call (`Crowd::set_transforms`); when
//! a column's speed crosses from one gait into another it cross-fades its agents into that
//! gait, in step, and plays each gait at `speed / gait speed` (`Crowd::set_rate`), so feet
//! never slide. It listens to the agents' footstep events.
//!
//! ```sh
//! cargo run --release --example march                      # 600 frames, then a picture
//! cargo run --example march -- --backend gl --frames 300 --screenshot march.png
//! ```
//! Headless: it renders its last frame offscreen (Vulkan or GL; lavapipe or llvmpipe without a
//! GPU) with throng's own stage (sky and ground), and checks what it did: that every column
//! walked and ran, that the footsteps heard match the ground covered (about one step per
//! stride length: the feet are in step with the ground), and that the crowd is in its
//! picture. It exits non-zero when any check fails. Without `--bake` it uses throng's default
//! bake (the mannequin crowd), baking it first if needed.

use std::path::PathBuf;
use std::sync::Arc;

use anyhow::{Context as _, Result, bail, ensure};
use glam::Vec3;
use throng::bake::{BakeOptions, default_bake};
use throng::crowd::{AgentId, Crowd, CrowdSettings, Gait, LodPresets, Play, Spawn, View};
use throng::format::ThrongFile;
use throng::render::{
    BackendChoice, CrowdFrame, CrowdRenderer, Gpu, PassFormat, PathLimits, PathRequest, Stage,
    Target, choose_path,
};

const COLUMNS: usize = 24;
const RANKS: usize = 50;
/// Metres between columns and between ranks.
const SPACING: (f32, f32) = (2.0, 1.6);
/// Seconds per frame.
const DT: f32 = 1.0 / 30.0;
/// Seconds of a cross-fade between gaits.
const FADE: f32 = 0.3;
/// The columns' colours, in turn (RGBA8, multiplying the character's own).
const COLOURS: [[u8; 4]; 4] = [
    [220, 70, 60, 255],
    [60, 120, 220, 255],
    [240, 190, 60, 255],
    [80, 180, 90, 255],
];

/// Command-line options.
struct Options {
    backend: BackendChoice,
    frames: u32,
    screenshot: Option<PathBuf>,
    bake: Option<PathBuf>,
}

fn options() -> Result<Options> {
    let mut o = Options {
        backend: BackendChoice::Auto,
        frames: 600,
        screenshot: None,
        bake: None,
    };
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        let mut value = || args.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--backend" => {
                o.backend = match value()?.as_str() {
                    "vulkan" => BackendChoice::Vulkan,
                    "gl" => BackendChoice::Gl,
                    "auto" => BackendChoice::Auto,
                    other => bail!("--backend {other}: use vulkan, gl or auto"),
                }
            }
            "--frames" => o.frames = value()?.parse().context("--frames N")?,
            "--screenshot" => o.screenshot = Some(value()?.into()),
            "--bake" => o.bake = Some(value()?.into()),
            other => bail!(
                "unknown argument {other}; use --backend vulkan|gl|auto, --frames N, --screenshot PNG, --bake FILE"
            ),
        }
    }
    ensure!(o.frames >= 60, "--frames {}: at least 60", o.frames);
    Ok(o)
}

/// A column's speed, metres per second, `t` seconds into its 12 s program: stand 2 s, walk
/// off (up to `walk`), speed up into a run (up to `run`), hold it, slow down, stop.
fn speed_at(t: f32, walk: f32, run: f32) -> f32 {
    let t = t.rem_euclid(12.0);
    match t {
        t if t < 2.0 => 0.0,
        t if t < 4.0 => walk * 0.5 * (t - 2.0),
        t if t < 6.0 => walk + (run - walk) * 0.5 * (t - 4.0),
        t if t < 8.0 => run,
        t if t < 11.0 => run * (11.0 - t) / 3.0,
        _ => 0.0,
    }
}

/// Which gait (an index into `gaits`, slowest first) a speed plays: the one whose speed is
/// nearest, standing below a third of the slowest moving gait.
fn gait_for(gaits: &[Gait], speed: f32) -> usize {
    let mut best = 0;
    for (i, g) in gaits.iter().enumerate() {
        if (g.speed - speed).abs() < (gaits[best].speed - speed).abs() {
            best = i;
        }
    }
    best
}

/// One column: its agents, where along the field it is, which way it faces, its gait.
struct Column {
    agents: Vec<AgentId>,
    /// How far it has marched along x, metres, and where it stands across the field.
    x: f32,
    z: f32,
    /// Heading, radians: +x (π/2) or −x (−π/2).
    heading: f32,
    gait: usize,
    /// Seconds into its program (columns start at different points of it).
    clock: f32,
}

/// The game's side of the march: its crowd, columns, gaits and what it has counted.
struct March {
    crowd: Crowd,
    columns: Vec<Column>,
    /// The character's gaits, slowest first (standing, walking, running for the mannequin).
    gaits: Vec<Gait>,
    /// What a standing agent plays.
    standing: u32,
    moves: Vec<(AgentId, Vec3, f32)>,
    /// Footsteps heard; agent-metres walked and run.
    steps: u64,
    walked: f64,
    ran: f64,
    /// Per column, the gaits it played.
    gaits_seen: [[bool; 8]; COLUMNS],
}

impl March {
    /// The columns, standing at the west end of the field, facing +x.
    fn new(file: &Arc<ThrongFile>) -> Result<Self> {
        let policy = LodPresets::builtin()
            .get("balanced")
            .map(|p| p.without_live())
            .unwrap_or_default();
        let mut crowd = Crowd::new(file.clone(), &CrowdSettings::default(), policy)?;
        let palette = crowd.palette().characters()[0].clone();
        // Standing first, then the moving gaits, slowest first (the mannequin's move at 1.2
        // and 3.0 m/s; a bare Fox's Walk and Run, its Survey standing).
        let moving: Vec<Gait> = palette
            .locomotion
            .iter()
            .filter(|g| g.speed > 0.0)
            .copied()
            .collect();
        ensure!(
            !moving.is_empty(),
            "{}: character '{}' has no moving gait to march with",
            file.name(),
            palette.name
        );
        let standing = palette
            .idle
            .or_else(|| {
                palette
                    .locomotion
                    .iter()
                    .find(|g| g.speed == 0.0)
                    .map(|g| g.anim)
            })
            .unwrap_or(moving[0].anim);
        let gaits: Vec<Gait> = std::iter::once(Gait {
            anim: standing,
            speed: 0.0,
        })
        .chain(moving)
        .collect();
        let mut columns = Vec::new();
        for c in 0..COLUMNS {
            let z = (c as f32 - COLUMNS as f32 / 2.0) * SPACING.0;
            let spawns: Vec<_> = (0..RANKS)
                .map(|r| {
                    let x = -40.0 - r as f32 * SPACING.1;
                    let spawn = Spawn::new(0, standing, Vec3::new(x, 0.0, z))
                        .with_heading(std::f32::consts::FRAC_PI_2)
                        .with_tint(COLOURS[c % COLOURS.len()])
                        .with_play(Play::at_phase(r as f32 / RANKS as f32));
                    (spawn, ())
                })
                .collect();
            columns.push(Column {
                agents: crowd.spawn_many(&spawns)?,
                x: 0.0,
                z,
                heading: std::f32::consts::FRAC_PI_2,
                gait: 0,
                clock: c as f32 * 0.5,
            });
        }
        Ok(Self {
            crowd,
            columns,
            gaits,
            standing,
            moves: Vec::with_capacity(COLUMNS * RANKS),
            steps: 0,
            walked: 0.0,
            ran: 0.0,
            gaits_seen: [[false; 8]; COLUMNS],
        })
    }

    /// One frame of the game: each column's speed, gait and place, written in one call; the
    /// crowd's update; the footsteps it heard.
    fn frame(&mut self, view: &View) -> Result<()> {
        self.moves.clear();
        let crowd = &mut self.crowd;
        for (c, col) in self.columns.iter_mut().enumerate() {
            col.clock += DT;
            let (walk, run) = (self.gaits[1].speed, self.gaits[self.gaits.len() - 1].speed);
            let speed = speed_at(col.clock, walk, run);
            let t = col.clock.rem_euclid(12.0);
            // Stopped at the end of a pass: turn about.
            if t >= 11.0 && t - DT < 11.0 {
                col.heading = -col.heading;
            }
            // Below a third of the slowest moving gait's speed, an agent stands.
            let gait = if speed < self.gaits[1].speed / 3.0 {
                0
            } else {
                gait_for(&self.gaits, speed).max(1)
            };
            let (anim, rate) = if gait == 0 {
                (self.standing, 1.0)
            } else {
                // Played at speed / gait speed, so feet cover the ground at the column's speed.
                (self.gaits[gait].anim, speed / self.gaits[gait].speed)
            };
            for &id in &col.agents {
                if gait != col.gait {
                    crowd.cross_fade(id, anim, FADE, &Play::in_step())?;
                }
                crowd.set_rate(id, rate)?;
            }
            col.gait = gait;
            self.gaits_seen[c][gait.min(7)] = true;
            col.x += speed * DT * col.heading.sin();
            let distance = f64::from(speed * DT) * col.agents.len() as f64;
            if gait == 1 {
                self.walked += distance;
            } else if gait >= 2 {
                self.ran += distance;
            }
            for (r, &id) in col.agents.iter().enumerate() {
                let x = col.x - 40.0 - r as f32 * SPACING.1;
                self.moves.push((id, Vec3::new(x, 0.0, col.z), col.heading));
            }
        }
        crowd.set_transforms(&self.moves)?;
        crowd.update(DT, view);
        for col in &self.columns {
            for &id in &col.agents {
                crowd.events(id, |name, n| {
                    if name.starts_with("foot") {
                        self.steps += u64::from(n);
                    }
                })?;
            }
        }
        Ok(())
    }

    /// Footsteps heard against those the ground covered calls for (a step's length is the
    /// gait's speed times its cycle over the footstep markers in it); `None` when the walk
    /// or the run has no footstep markers (`foot…`; a bare model's clips have none).
    fn steps_ratio(&self) -> Option<(f64, f64)> {
        let (walk, run) = (&self.gaits[1], &self.gaits[self.gaits.len() - 1]);
        let file = self.crowd.file();
        let stride = |g: &Gait| {
            let a = &file.anims()[g.anim as usize];
            let first = a.first_event as usize;
            let markers = file.events()[first..first + a.event_count as usize]
                .iter()
                .filter(|e| file.str(e.name).starts_with("foot"))
                .count();
            (markers > 0).then(|| f64::from(g.speed * a.duration) / markers as f64)
        };
        let expected = self.walked / stride(walk)? + self.ran / stride(run)?;
        Some((expected, self.steps as f64 / expected))
    }
}

/// The last frame drawn offscreen, and the share of its pixels the crowd changes (against
/// the same frame with every agent hidden).
fn picture(
    options: &Options,
    file: &ThrongFile,
    march: &mut March,
    view_proj: glam::Mat4,
    (w, h): (u32, u32),
) -> Result<(image::RgbaImage, f64)> {
    let gpu = Gpu::new(options.backend)?;
    let mut renderer = CrowdRenderer::new(&gpu, file, PassFormat::offscreen(1))?;
    let path = choose_path(&PathLimits::of(&gpu, file), PathRequest::Auto)?.path;
    let mut stage = Stage::new(&gpu, &renderer)?;
    stage.reach(&gpu, 80.0);
    let target = Target::new(&gpu, w, h, 1);
    let mut shot = |crowd: &Crowd| -> Result<image::RgbaImage> {
        let frame = CrowdFrame::of(crowd);
        let views = target.views();
        stage.render(&gpu, &mut renderer, file, &views, &frame, view_proj, path)?;
        Ok(target.read(&gpu)?)
    };
    let picture = shot(&march.crowd)?;
    for col in &march.columns {
        for &id in &col.agents {
            march.crowd.set_hidden(id, true)?;
        }
    }
    let empty = shot(&march.crowd)?;
    let differ = picture
        .pixels()
        .zip(empty.pixels())
        .filter(|(a, b)| a.0.iter().zip(b.0).any(|(x, y)| x.abs_diff(y) > 8))
        .count();
    let share = differ as f64 / f64::from(w * h);
    println!(
        "{} ({}, {} path): the crowd covers {:.1}% of the picture",
        gpu.describe(),
        options.backend.name(),
        path.name(),
        share * 100.0
    );
    Ok((picture, share))
}

fn main() -> Result<()> {
    // Mesa's Vulkan device-select layer prints "error: XDG_RUNTIME_DIR is invalid..." where
    // there is no Wayland session; switch it off then, first thing, while this program has one
    // thread (a library cannot do it soundly later; throng's own binary does the same).
    // SAFETY: first in main: no other thread exists yet.
    unsafe { throng::render::driver_env::quiet_drivers() };
    let options = options()?;
    let bake = match &options.bake {
        Some(path) => path.clone(),
        None => default_bake(&BakeOptions::default(), |recipe| {
            eprintln!("baking {} first", recipe.output.display())
        })?,
    };
    let file = Arc::new(ThrongFile::open(&bake)?);
    let mut march = March::new(&file)?;
    println!(
        "{} agents in {COLUMNS} columns; gaits {}",
        march.crowd.alive(),
        march
            .gaits
            .iter()
            .map(|g| format!("{:.1} m/s", g.speed))
            .collect::<Vec<_>>()
            .join(", ")
    );

    // The camera: over the field's side, looking along it.
    let size = (960u32, 540u32);
    let eye = Vec3::new(0.0, 9.0, 26.0);
    let view_proj =
        glam::camera::rh::proj::directx::perspective(
            0.9,
            size.0 as f32 / size.1 as f32,
            0.5,
            400.0,
        ) * glam::camera::rh::view::look_at_mat4(eye, Vec3::new(-35.0, 0.0, -4.0), Vec3::Y);
    let view = View { view_proj, eye };
    for _ in 0..options.frames {
        march.frame(&view)?;
    }
    let steps = march.steps_ratio();
    match steps {
        Some((expected, ratio)) => println!(
            "{} frames: walked {:.0} m, ran {:.0} m (agent-metres); {} footsteps heard, {expected:.0} expected from the ground covered ({ratio:.3})",
            options.frames, march.walked, march.ran, march.steps
        ),
        None => println!(
            "{} frames: walked {:.0} m, ran {:.0} m (agent-metres); the gaits have no footstep markers (foot...): footsteps not checked",
            options.frames, march.walked, march.ran
        ),
    }
    let (picture, share) = picture(&options, &file, &mut march, view_proj, size)?;
    if let Some(out) = &options.screenshot {
        picture
            .save(out)
            .with_context(|| format!("{}: cannot write the picture", out.display()))?;
        println!("wrote {}", out.display());
    }

    // What a game would check of its own crowd.
    let last = march.gaits.len() - 1;
    for (c, seen) in march.gaits_seen.iter().enumerate() {
        ensure!(
            seen[0] && seen[1] && seen[last],
            "column {c} did not stand, walk and run: {seen:?}"
        );
    }
    // Within 5%: a step is heard when its foot lands, so steps under way at the end are not.
    if let Some((expected, ratio)) = steps {
        ensure!(
            (0.95..1.05).contains(&ratio),
            "footsteps heard {}, expected {expected:.0} from the ground covered: the feet are out of step",
            march.steps
        );
    }
    // Hundreds of small figures: at least 2% of the picture (measured 4.2% on lavapipe,
    // 4.4% on llvmpipe's GL).
    ensure!(
        share > 0.02,
        "the crowd covers only {:.2}% of the picture",
        share * 100.0
    );
    println!("ok");
    Ok(())
}
