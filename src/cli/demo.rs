//! `throng demo` (and `throng` with no command): the crowd in a window with a panel of live
//! statistics and settings; without a display, one headless picture and its statistics.

use std::path::PathBuf;

use anyhow::Result;

use super::args::{BackendArg, SkinningArg, check_count, parse_size};
use super::baking::{cached_bake, default_bake};
use super::bench::{duration, duration_fine};
use crate::app::{AppError, DemoOptions, Picture, Scene, SkinningChoice, render_headless, window};
use crate::atomic::{check_not_input, check_target};
use crate::crowd::{Terrain, stats_level_name};
use crate::render::{BackendChoice, Shadows};

/// Arguments of `throng demo`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Give a glTF model (.glb or .gltf) or a bake recipe (.toml) to see a crowd of it: \
it is baked with the defaults of `throng bake` into a cache file, $XDG_CACHE_HOME/throng/ \
(or ~/.cache/throng/, else the system temp folder), named after the file and a hash of its \
path, and reused while the model, its buffers and images, the recipe and the character files \
it names are unchanged. --bake FILE shows a .throng file as it is.\n\
Camera: left drag turns, right or middle drag pans, the wheel zooms, \
WASD flies (Q/E down and up, Shift faster), Esc quits.\n\
Without a display (no DISPLAY or WAYLAND_DISPLAY), the demo renders one picture to crowd.png \
(or --screenshot) instead and prints the frame's statistics.\n\
Examples:\n  throng demo Fox.glb                     a crowd of a model, baked once into the cache\n  \
throng demo --count 20000 --lod aggressive --backend gl\n  \
throng demo --shadows off                the crowd without shadows\n  \
throng demo --view motion                its motion vectors\n  \
throng demo --ground flat                on the flat plaza (default: the relief)\n  \
throng demo --skinning hybrid            the nearest agents live, with foot IK on the steps"
)]
pub struct Args {
    /// A glTF model (.glb/.gltf) or a recipe (.toml) to bake into the cache (or reuse from it)
    /// and show.
    #[arg(value_name = "MODEL|RECIPE", conflicts_with = "bake")]
    input: Option<PathBuf>,
    /// The baked file (default: the default bake, baked first if missing or out of date:
    /// bake/mannequin.throng in the repository root, else the built-in mannequin crowd's in
    /// the cache, ~/.cache/throng/mannequin.throng; see throng bake --help).
    #[arg(long, value_name = "FILE")]
    bake: Option<PathBuf>,
    /// Number of agents (1 to 200000; the panel changes it live).
    #[arg(long, default_value_t = 2_000)]
    count: usize,
    /// Seed of the crowd: places, looks and choices.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// LOD preset: off, balanced or aggressive (or one from --lod-config).
    #[arg(long, default_value = "balanced")]
    lod: String,
    /// A TOML file of LOD presets to use instead of the built-in assets/lod.toml.
    #[arg(long, value_name = "FILE")]
    lod_config: Option<PathBuf>,
    /// Graphics backend (the panel restarts on another).
    #[arg(long, value_enum, default_value = "auto")]
    backend: BackendArg,
    /// Skinning path.
    #[arg(long, value_enum, default_value = "auto")]
    skinning: SkinningArg,
    /// Shadows: off, blob (a soft contact shadow under each agent) or map (a sun shadow map
    /// for near agents, blobs beyond). Default: what reads best at the demo's speed on the
    /// device: map on a GPU, blob on a software renderer (lavapipe, llvmpipe).
    #[arg(long, value_name = "off|blob|map")]
    shadows: Option<Shadows>,
    /// The ground: relief (slopes, a terrace with steps and a ramp; agents stand on it) or
    /// flat.
    #[arg(long, value_name = "relief|flat", default_value = "relief")]
    ground: Terrain,
    /// What the picture shows (the panel switches it live).
    #[arg(long, value_enum, default_value = "shaded")]
    view: ViewArg,
    /// Stop after this many frames (with a window); frames simulated before the picture
    /// (without one; default 30: the first frame's time then says on stderr how long they
    /// will take).
    #[arg(long, value_name = "N")]
    frames: Option<u64>,
    /// Save the last frame to this PNG (with --frames, or crowd.png without a display).
    #[arg(long, value_name = "PNG")]
    screenshot: Option<PathBuf>,
    /// Window or picture size, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "1280x720", value_parser = parse_size)]
    size: (u32, u32),
    /// Draw as fast as possible instead of waiting for the display's refresh.
    #[arg(long)]
    no_vsync: bool,
    /// No hats (a hat goes on a joint named `head`, on characters that have one).
    #[arg(long)]
    no_hats: bool,
    /// Render the headless picture even where a window could open.
    #[arg(long)]
    headless: bool,
    /// Tint agents by LOD level (green, yellow, red...; the live tier violet), as the panel's
    /// "LOD colours".
    #[arg(long)]
    lod_colours: bool,
    /// With --skinning hybrid: live agents turn their heads toward the camera (up to 70°
    /// aside and 30° up or down; characters with a joint named "head"), as the panel's "live
    /// heads look at the camera".
    #[arg(long)]
    head_look: bool,
    /// Start the camera looking at this point, X,Y,Z metres (e.g. 8,0.4,5.5: the terrace's
    /// southern steps), from the south, --distance away (default: over the plaza's southern
    /// part, looking north).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_point)]
    look_at: Option<glam::Vec3>,
    /// With --look-at: the camera's distance from that point, metres.
    #[arg(long, value_name = "M", default_value_t = 8.0, requires = "look_at")]
    distance: f32,
    /// Headless (implies --headless): fly the camera this many metres forward (towards where it looks,
    /// level; negative: back) over the --frames, at an even speed. With --record, a camera
    /// move to look at frame by frame (e.g. agents changing LOD level or tier).
    #[arg(
        long,
        value_name = "M",
        default_value_t = 0.0,
        allow_negative_numbers = true
    )]
    fly: f32,
    /// Headless (implies --headless): save every frame into this folder as frame-0001.png, ... (made
    /// if missing), besides the last one's --screenshot.
    #[arg(long, value_name = "DIR")]
    record: Option<PathBuf>,
}

/// A `--look-at` point: three finite numbers.
fn parse_point(s: &str) -> Result<glam::Vec3, String> {
    let v: Vec<f32> = s
        .split(',')
        .map(|p| p.trim().parse::<f32>())
        .collect::<Result<_, _>>()
        .map_err(|e| format!("'{s}': {e}; give X,Y,Z in metres, e.g. 8,0.4,5.5"))?;
    match v[..] {
        [x, y, z] if v.iter().all(|c| c.is_finite()) => Ok(glam::Vec3::new(x, y, z)),
        _ => Err(format!(
            "'{s}': give three finite numbers X,Y,Z in metres, e.g. 8,0.4,5.5"
        )),
    }
}

/// A `--view` value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
enum ViewArg {
    /// The crowd, lit and shaded.
    Shaded,
    /// The motion vectors a host's TAA or motion blur would read: hue for each pixel's
    /// direction of screen motion, brightness for its speed (full at 8 pixels a frame).
    Motion,
}

impl Default for Args {
    fn default() -> Self {
        Self {
            input: None,
            bake: None,
            count: 2_000,
            seed: 1,
            lod: "balanced".into(),
            lod_config: None,
            backend: BackendArg::Auto,
            skinning: SkinningArg::Auto,
            shadows: None,
            ground: Terrain::Relief,
            view: ViewArg::Shaded,
            frames: None,
            screenshot: None,
            size: (1280, 720),
            no_vsync: false,
            no_hats: false,
            headless: false,
            lod_colours: false,
            head_look: false,
            look_at: None,
            distance: 8.0,
            fly: 0.0,
            record: None,
        }
    }
}

pub(super) fn run(args: &Args, external: crate::import::ExternalFiles) -> Result<()> {
    if let Some(p) = &args.screenshot
        && !p.extension().is_some_and(|e| e.eq_ignore_ascii_case("png"))
    {
        anyhow::bail!("{}: --screenshot must end in .png", p.display());
    }
    if args.screenshot.is_some() && args.frames.is_none() && !args.headless {
        anyhow::bail!("--screenshot needs --frames N (the frame to save) when a window opens");
    }
    check_count("--count", args.count)?;
    if !args.fly.is_finite() {
        anyhow::bail!("--fly {}: give a finite number of metres", args.fly);
    }
    if let Some(dir) = &args.record {
        std::fs::create_dir_all(dir).map_err(|e| {
            anyhow::anyhow!("--record {}: cannot make the folder: {e}", dir.display())
        })?;
    }
    // Before the bake and the window: a picture that cannot be saved fails now, not after.
    if let Some(p) = &args.screenshot {
        check_target(p, true)?;
        let inputs = [
            (&args.input, "the model or recipe"),
            (&args.bake, "the baked file"),
            (&args.lod_config, "the LOD presets"),
        ];
        let inputs = inputs
            .iter()
            .filter_map(|(p, what)| Some((p.as_deref()?, *what)));
        check_not_input(p, inputs)?;
    }
    // The LOD presets and the one asked for, before a bake that may take minutes.
    let presets = crate::crowd::lod_presets(args.lod_config.as_deref())?;
    crate::app::scene::lod_policy(&presets, &args.lod)?;
    let bake = match (&args.input, &args.bake) {
        (Some(input), _) => cached_bake(input, external)?,
        (None, Some(p)) => p.clone(),
        (None, None) => default_bake(false)?,
    };
    let options = DemoOptions {
        bake,
        count: args.count,
        seed: args.seed,
        lod: args.lod.clone(),
        lod_config: args.lod_config.clone(),
        backend: match args.backend {
            // The panel offers Vulkan and GL; auto starts on Vulkan where there is one.
            BackendArg::Auto => BackendChoice::Auto,
            b => b.into(),
        },
        skinning: match args.skinning {
            SkinningArg::Auto => SkinningChoice::Auto,
            SkinningArg::Gpu => SkinningChoice::Gpu,
            SkinningArg::Cpu => SkinningChoice::Cpu,
            SkinningArg::Hybrid => SkinningChoice::Hybrid,
        },
        shadows: args.shadows,
        terrain: args.ground,
        picture: match args.view {
            ViewArg::Shaded => Picture::Shaded,
            ViewArg::Motion => Picture::Motion,
        },
        frames: args.frames,
        screenshot: args.screenshot.clone(),
        size: args.size,
        vsync: !args.no_vsync,
        hats: !args.no_hats,
        lod_colours: args.lod_colours,
        head_look: args.head_look,
        look_at: args.look_at.map(|p| (p, args.distance)),
        fly: args.fly,
        record: args.record.clone(),
    };
    // No context added: the scene's errors name the bake (or the setting) themselves.
    let scene = Scene::new(&options)?;
    let reason = if args.headless {
        "--headless was given".to_string()
    } else if args.fly != 0.0 || args.record.is_some() {
        "--fly and --record draw headless".to_string()
    } else if std::env::var_os("DISPLAY").is_none() && std::env::var_os("WAYLAND_DISPLAY").is_none()
    {
        "neither DISPLAY nor WAYLAND_DISPLAY is set".to_string()
    } else {
        match window::run(&options, scene) {
            Ok(outcome) => {
                if let Some(p) = &options.screenshot {
                    println!(
                        "{} frames; last frame saved to {}",
                        outcome.frames,
                        p.display()
                    );
                }
                return Ok(());
            }
            Err(AppError::NoDisplay(why)) => {
                // The scene was moved into the window; build it again for the picture.
                return headless(&options, &why);
            }
            Err(e) => return Err(e.into()),
        }
    };
    let _ = scene;
    headless(&options, &reason)
}

fn headless(options: &DemoOptions, why: &str) -> Result<()> {
    let out = options
        .screenshot
        .clone()
        .unwrap_or_else(|| PathBuf::from("crowd.png"));
    println!(
        "No window: {why}; rendering the crowd headless to {} instead.",
        out.display()
    );
    let scene = Scene::new(options)?;
    if let Some(why) = scene
        .live
        .as_ref()
        .ok()
        .and_then(|t| t.why_baked())
        .filter(|_| options.skinning == SkinningChoice::Hybrid)
    {
        println!("live tier: posed from the bake's matrices, not evaluated live: {why}");
    }
    // How long the frames asked for will take, from the first (which includes the first
    // use of each pipeline, so the estimate runs high), said on stderr as progress is.
    let report = render_headless(options, scene, &out, &mut |done, all, seconds| {
        if done == 1 && all > 1 {
            eprintln!(
                "the first frame took {}: {all} frames should take about {}",
                duration_fine(seconds),
                duration(seconds * all as f64)
            );
        }
    })?;
    let r = &report.last;
    let u = &r.update;
    println!("adapter: {}", report.adapter);
    println!("skinning: {}", report.path);
    println!("shadows: {}", report.shadows);
    println!(
        "frame {} of {}: {} agents, {} visible ({}), {} updated, {} records written, {} draw calls",
        report.frames,
        report.frames,
        u.agents,
        u.visible,
        u.per_level
            .iter()
            .enumerate()
            .map(|(l, n)| format!("{}: {n}", stats_level_name(l)))
            .chain(std::iter::once(format!("impostors: {}", u.impostors)))
            .collect::<Vec<_>>()
            .join(", "),
        u.due,
        r.render.records_written,
        r.render.draws
    );
    if r.live.agents > 0 {
        println!(
            "live tier: {} agents {} with foot IK in {:.2} ms",
            r.live.agents,
            if r.live.evaluated {
                "evaluated live (as baked: states' blend trees, clips)"
            } else {
                "posed from the bake's matrices"
            },
            r.live.seconds * 1e3
        );
    }
    let ms = |s: f64| format!("{:.2} ms", s * 1e3);
    println!(
        "CPU: simulation {}, LOD + culling {}, upload {}; CPU skinning {}; GPU {}; submit to done {}",
        ms(u.simulate_seconds),
        ms(u.lod_seconds),
        ms(r.render.upload_seconds),
        ms(r.render.cpu_skin_seconds),
        r.render
            .gpu_seconds
            .map_or("n/a (no timestamps)".into(), ms),
        ms(r.render.submit_seconds)
    );
    println!("wrote {}", out.display());
    Ok(())
}
