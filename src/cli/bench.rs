//! `throng bench`: frame time and picture quality per LOD preset, shadows, skinning path,
//! instance count and backend, headless, with a table, CSV, JSON and plots.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::atomic::{check_not_input, check_target};

use super::baking::default_bake;
use super::render::parse_size;
use crate::app::lod_presets;
use crate::bench::report::{
    CSV_FILE, FRAME_TIME_FILE, JSON_FILE, LOD_QUALITY_FILE, table, write_all,
};
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
the preset's live_max nearest agents within live_distance evaluated on the CPU as the baker \
evaluates them, from the bake's recipe and sources, with foot IK on the ground; the table's \"live tier\" block gives their foot-ground error against the bake's pose \
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
throng bench --quick                    a first look (a minute or two on a software renderer)\n  \
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
    /// A first look, in a minute or two on a software renderer: 5 measured frames after 2 of
    /// warm-up per case, a 480x270 image, 1000 agents (it stands for --frames, --warmup,
    /// --size and --instances, and cannot be given with them).
    #[arg(long, conflicts_with_all = ["frames", "warmup", "size", "instances"])]
    quick: bool,
    /// No progress bar, no estimate of the run's length.
    #[arg(short, long)]
    quiet: bool,
}

/// What `--quick` measures: frames, warm-up frames, image size, agents.
const QUICK: (usize, usize, (u32, u32), usize) = (5, 2, (480, 270), 1000);

/// `secs` seconds as "1 h 05 min", "4 min 10 s" or "12 s".
fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// The whole run's length, seconds, estimated from `elapsed` seconds for the cases of
/// `weights` done so far (`done` of them): each case's time taken as proportional to its
/// weight (its agent count, what a software renderer's frame time follows).
fn estimate(elapsed: f64, weights: &[f64], done: usize) -> Option<f64> {
    let so_far: f64 = weights.iter().take(done).sum();
    (done > 0 && so_far > 0.0).then(|| elapsed * weights.iter().sum::<f64>() / so_far)
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

/// Before minutes of measuring: an explicit `--recipe` loads (its errors said now, not as
/// skipped cases), and no report file is one of the inputs (`--bake`, `--recipe`,
/// `--config`), which writing it would destroy.
fn check_inputs(args: &Args) -> Result<()> {
    if let Some(r) = &args.recipe {
        crate::bake::Recipe::load(r)?;
    }
    let inputs = [
        (&args.bake, "the baked file"),
        (&args.recipe, "the recipe"),
        (&args.config, "the LOD presets"),
    ];
    for name in [CSV_FILE, JSON_FILE, FRAME_TIME_FILE, LOD_QUALITY_FILE] {
        let inputs = inputs
            .iter()
            .filter_map(|(p, what)| Some((p.as_deref()?, *what)));
        check_not_input(&args.out.join(name), inputs)?;
    }
    Ok(())
}

/// The recipe recorded in `bake`, if it names one that exists.
fn recorded_recipe(bake: &Path) -> Option<PathBuf> {
    let file = ThrongFile::open(bake).ok()?;
    let path = PathBuf::from(&file.metadata().recipe_path);
    path.is_file().then_some(path)
}

pub(super) fn run(args: &Args) -> Result<()> {
    let (frames, warmup, size, instances) = if args.quick {
        (QUICK.0, QUICK.1, QUICK.2, vec![QUICK.3])
    } else {
        (args.frames, args.warmup, args.size, args.instances.clone())
    };
    if frames == 0 {
        bail!("--frames 0: measure at least one frame");
    }
    if instances.is_empty() || instances.contains(&0) {
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
    // folder is checked through its first file (which also creates the folder), once the
    // inputs are known good.
    check_inputs(args)?;
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
        instances,
        lods: args.lod.clone(),
        skinning,
        shadows,
        backends,
        frames,
        warmup,
        size,
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
    // Once a case has run (and a quarter second passed, which a skipped case does not take):
    // how long the whole run should take.
    let weights: Vec<f64> = cases(&options).iter().map(|c| c.instances as f64).collect();
    let started = std::time::Instant::now();
    let mut estimated = args.quiet;
    let report = run_bench(&options, &mut |case, frame| {
        let elapsed = started.elapsed().as_secs_f64();
        if !estimated
            && elapsed >= 0.25
            && let Some(total) = estimate(elapsed, &weights, case.saturating_sub(1))
        {
            estimated = true;
            bar.suspend(|| {
                eprintln!(
                    "{} after {} of {total_cases} cases: the whole run should take about {} \
                     (cases scaled by agent count){}",
                    duration(elapsed),
                    case - 1,
                    duration(total),
                    if args.quick {
                        ""
                    } else {
                        "; --quick for a first look"
                    }
                );
            });
        }
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_estimate_scales_the_time_so_far_by_agent_counts() {
        let w = [1000.0, 10000.0, 1000.0, 10000.0];
        assert_eq!(estimate(10.0, &w, 0), None);
        assert_eq!(estimate(10.0, &w, 1), Some(220.0));
        assert_eq!(estimate(110.0, &w, 2), Some(220.0));
        assert_eq!(duration(12.4), "12 s");
        assert_eq!(duration(250.0), "4 min 10 s");
        assert_eq!(duration(3900.0), "1 h 05 min");
    }
}
