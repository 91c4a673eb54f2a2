//! `throng bench`: frame time and picture quality per LOD preset, shadows, skinning path,
//! instance count and backend, headless, with a table, CSV, JSON and plots.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::atomic::check_target;

use super::baking::default_bake;
use super::render::parse_size;
use crate::app::lod_presets;
use crate::bench::report::{CSV_FILE, table, write_all};
use crate::bench::run::{BenchOptions, cases, run as run_bench};
use crate::crowd::terrain::Terrain;
use crate::format::ThrongFile;
use crate::render::{BackendChoice, Shadows, SkinningPath, UnknownShadows};

/// Arguments of `throng bench`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Every combination of --backend, --instances, --skinning, --shadows and --lod runs \
headless on the same seeded crowd and camera path: --warmup frames, then --frames measured \
frames at 1/60 s of simulated time each. Per frame: CPU time by phase (simulation, LOD and \
culling, upload, CPU skinning, live evaluation), GPU time (timestamp queries, or wall time \
around submit and wait where there are none) and the whole frame; median, p95 and p99. \
Skinning paths: gpu (baked, vertex shader), cpu (baked, skinned on the CPU), live (every \
visible agent evaluated through the animation pipeline each frame, matrices uploaded: the \
baseline general engines use), static (the bind pose: the floor), hybrid (gpu, plus a live tier: \
the preset's live_max nearest agents within live_distance posed on the CPU with foot IK on the \
ground; the table's \"live tier\" block gives their foot-ground error against the bake's pose \
for the same feet, and the jumps at handoffs). Each LOD preset's last frame \
is compared with the `off` preset's under the same shadows (mean and p99 CIE76 ΔE). Shadows: \
off, blob (a contact shadow under each agent), map (a sun shadow map for near agents, blobs \
beyond); each one's frame time and last frame are compared with shadows `off` under the same \
LOD preset (the table's \"vs no shadows\" columns). The default, off only, keeps a plain run \
comparable with runs from before shadows and as cheap; --shadows off,blob,map measures their \
cost.\n\
Writes DIR/results.csv, DIR/results.json, DIR/frame_time.png, DIR/lod_quality.png, and each \
case's last frame in DIR/pictures/ as BACKEND-SKINNING-LOD-SHADOWS-COUNT.png.\n\
Examples:\n  throng bench --instances 1000,10000 --backend vulkan,gl --out bench-out\n  \
throng bench --shadows off,blob,map --skinning gpu --lod off   the cost of shadows\n  \
throng bench --ground relief --skinning gpu,hybrid --lod balanced --instances 10000   the live tier"
)]
pub struct Args {
    /// The baked file (default: the default bake, baked first if missing or out of date:
    /// bake/mannequin.throng in the repository root, else the built-in mannequin crowd's in
    /// the cache, ~/.cache/throng/mannequin.throng; see throng bake --help).
    #[arg(long, value_name = "FILE")]
    bake: Option<PathBuf>,
    /// The recipe the bake was made from, whose character files the live baseline evaluates
    /// (default: the one recorded in the bake).
    #[arg(long, value_name = "FILE")]
    recipe: Option<PathBuf>,
    /// A TOML file of LOD presets (default: the built-in assets/lod.toml).
    #[arg(long, value_name = "FILE")]
    config: Option<PathBuf>,
    /// Instance counts, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "1000,10000")]
    instances: Vec<usize>,
    /// LOD presets, comma-separated (`off` runs first: the others are compared with it).
    #[arg(long, value_delimiter = ',', default_value = "off,balanced,aggressive")]
    lod: Vec<String>,
    /// Skinning paths, comma-separated: gpu, cpu, live, static, hybrid.
    #[arg(long, value_delimiter = ',', default_value = "gpu,cpu,live,static")]
    skinning: Vec<String>,
    /// Shadows, comma-separated: off, blob, map (`off` runs first: the others are compared
    /// with it). Default off only: comparable with runs from before shadows, and cheap.
    #[arg(long, value_delimiter = ',', default_value = "off")]
    shadows: Vec<String>,
    /// Backends, comma-separated: vulkan, gl.
    #[arg(long, value_delimiter = ',', default_value = "vulkan,gl")]
    backend: Vec<String>,
    /// Measured frames per case.
    #[arg(long, default_value_t = 30)]
    frames: usize,
    /// Warm-up frames per case (not measured).
    #[arg(long, default_value_t = 5)]
    warmup: usize,
    /// Image size, WIDTHxHEIGHT pixels.
    #[arg(long, default_value = "960x540", value_parser = parse_size)]
    size: (u32, u32),
    /// Seed of the crowd.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// The ground: flat (comparable with runs from before the relief) or relief (slopes, a
    /// terrace with steps, a ramp: what the hybrid path's foot IK is for).
    #[arg(long, value_name = "flat|relief", default_value = "flat")]
    ground: Terrain,
    /// Folder for results.csv, results.json and the plots.
    #[arg(long, default_value = "bench-out")]
    out: PathBuf,
    /// No progress bar.
    #[arg(short, long)]
    quiet: bool,
}

fn backend(name: &str) -> Result<BackendChoice> {
    Ok(match name.trim() {
        "vulkan" => BackendChoice::Vulkan,
        "gl" => BackendChoice::Gl,
        other => bail!("--backend {other}: give vulkan, gl or both (vulkan,gl)"),
    })
}

/// A `--skinning` value; an unknown one is refused, naming the ones there are.
fn skinning_path(name: &str) -> Result<SkinningPath> {
    name.parse().map_err(|_| {
        let names: Vec<&str> = SkinningPath::ALL.iter().map(|p| p.name()).collect();
        anyhow::anyhow!("--skinning {name}: give some of {}", names.join(", "))
    })
}

/// A `--shadows` value; an unknown one is refused, naming the ones there are.
fn shadows(name: &str) -> Result<Shadows> {
    name.trim()
        .parse()
        .map_err(|e: UnknownShadows| anyhow::anyhow!("--shadows {name}: {e}"))
}

/// The recipe recorded in `bake`, if it names one that exists.
fn recorded_recipe(bake: &Path) -> Option<PathBuf> {
    let file = ThrongFile::open(bake).ok()?;
    let path = PathBuf::from(&file.metadata().recipe_path);
    path.is_file().then_some(path)
}

pub(super) fn run(args: &Args) -> Result<()> {
    if args.frames == 0 {
        bail!("--frames 0: measure at least one frame");
    }
    if args.instances.is_empty() || args.instances.contains(&0) {
        bail!("--instances: give positive counts, e.g. 1000,10000");
    }
    let skinning = args
        .skinning
        .iter()
        .map(|s| skinning_path(s))
        .collect::<Result<Vec<_>>>()?;
    let shadows = args
        .shadows
        .iter()
        .map(|s| shadows(s))
        .collect::<Result<Vec<_>>>()?;
    let backends = args
        .backend
        .iter()
        .map(|b| backend(b))
        .collect::<Result<Vec<_>>>()?;
    let presets = lod_presets(args.config.as_deref())?;
    if let Some(l) = args.lod.iter().find(|l| presets.get(l).is_none()) {
        bail!(
            "--lod {l}: no such preset (there are: {})",
            presets.names().collect::<Vec<_>>().join(", ")
        );
    }
    // Before the bake and minutes of measuring: a report that cannot be saved fails now. The
    // folder is checked through its first file (which also creates the folder).
    check_target(&args.out.join(CSV_FILE), true)
        .with_context(|| format!("--out {}", args.out.display()))?;
    let bake = match &args.bake {
        Some(p) => p.clone(),
        None => default_bake(args.quiet)?,
    };
    let recipe = args.recipe.clone().or_else(|| recorded_recipe(&bake));
    let options = BenchOptions {
        bake,
        recipe,
        presets,
        instances: args.instances.clone(),
        lods: args.lod.clone(),
        skinning,
        shadows,
        backends,
        frames: args.frames,
        warmup: args.warmup,
        size: args.size,
        seed: args.seed,
        command: std::env::args().collect::<Vec<_>>().join(" "),
        pictures: Some(args.out.join("pictures")),
        ground: args.ground,
    };
    let total_cases = cases(&options).len();
    let per_case = (options.frames + options.warmup) as u64;
    let bar = if args.quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(total_cases as u64 * per_case)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] case {msg} ({eta} left)",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    let report = run_bench(&options, &mut |case, frame| {
        bar.set_message(format!("{case}/{total_cases}"));
        bar.set_position((case.saturating_sub(1) as u64) * per_case + frame as u64);
    })
    .with_context(|| format!("benchmarking {}", options.bake.display()))?;
    bar.finish_and_clear();
    print!("{}", table(&report));
    let written = write_all(&report, &args.out)?;
    for p in written {
        println!("wrote {}", p.display());
    }
    Ok(())
}
