//! `throng bench`: frame time and picture quality per LOD preset, shadows, skinning path,
//! instance count and backend, headless, with a table, CSV, JSON and plots.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result, bail};

use crate::atomic::{check_not_input, check_target};

use super::args::parse_size;
use super::baking::default_bake;
use crate::bench::error::BenchError;
use crate::bench::report::{
    CSV_FILE, FRAME_TIME_FILE, JSON_FILE, LOD_QUALITY_FILE, table, write_all,
};
use crate::bench::run::{BenchOptions, cases, run as run_bench};
use crate::crowd::Terrain;
use crate::crowd::lod_presets;
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
is compared with the `off` preset's under the same shadows (mean and p99 CIE76 ΔE); and each \
mesh level a preset reaches is drawn alone where the preset starts it (one agent facing the \
camera, at the preset's distance times its character's size factor), against LOD 0 there, on \
the first backend that opens: the table's last block, results.json's `levels`. Shadows: \
off, blob (a contact shadow under each agent), map (a sun shadow map for near agents, blobs \
beyond); each one's frame time and last frame are compared with shadows `off` under the same \
LOD preset (the table's \"vs no shadows\" columns). The default, off only, keeps a plain run \
comparable with runs from before shadows and as cheap; --shadows off,blob,map measures their \
cost.\n\
Writes DIR/results.csv, DIR/results.json, DIR/frame_time.png, DIR/lod_quality.png, and each \
case's last frame in DIR/pictures/ as BACKEND-SKINNING-LOD-SHADOWS-COUNT.png.\n\
How long the run will take is said after its first frame (that frame's time for every frame \
of every case, scaled by agent count) and again after its first case. A run that its first \
frame says would take more than an hour stops there, writing nothing, unless --long is given.\n\
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
    /// Run even when its first frame says the whole run would take more than an hour
    /// (without it such a run stops after that frame, saying how long it would take).
    #[arg(long)]
    long: bool,
    /// No progress bar, no estimate of the run's length printed (a run of more than an hour
    /// still stops without --long).
    #[arg(short, long)]
    quiet: bool,
}

/// The longest run, seconds as estimated from its first frame, that starts without `--long`:
/// an hour. Past it the matrix is more likely a slip (a count of agents or frames a few
/// zeros too long, a software renderer mistaken for a GPU) than the wish, and a run of hours
/// on a software renderer ties up the machine; `--long` says it is meant.
const LONG_RUN: f64 = 3600.0;

/// What `--quick` measures: frames, warm-up frames, image size, agents.
const QUICK: (usize, usize, (u32, u32), usize) = (5, 2, (480, 270), 1000);

/// `secs` seconds as "1 h 05 min", "4 min 10 s" or "12 s".
pub(super) fn duration(secs: f64) -> String {
    let s = secs.max(0.0).round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s % 3600 / 60),
    }
}

/// The whole run's length, seconds, estimated from one frame of `seconds` of the case
/// `case` (counted from 1) of `weights`, each case `frames` frames long: each case's frames
/// taken as long as that one, scaled by weight (agent count) as [`estimate`] does.
fn estimate_from_frame(seconds: f64, weights: &[f64], case: usize, frames: usize) -> Option<f64> {
    let w = *weights.get(case.checked_sub(1)?)?;
    (w > 0.0).then(|| seconds * frames as f64 * weights.iter().sum::<f64>() / w)
}

/// The whole run's length, seconds, estimated from `elapsed` seconds for the cases of
/// `weights` done so far (`done` of them): each case's time taken as proportional to its
/// weight (its agent count, what a software renderer's frame time follows).
fn estimate(elapsed: f64, weights: &[f64], done: usize) -> Option<f64> {
    let so_far: f64 = weights.iter().take(done).sum();
    (done > 0 && so_far > 0.0).then(|| elapsed * weights.iter().sum::<f64>() / so_far)
}

/// `secs` seconds as "52 ms" under a second, else as [`duration`] says it.
pub(super) fn duration_fine(secs: f64) -> String {
    if secs < 1.0 {
        format!("{:.0} ms", secs * 1e3)
    } else if secs < 10.0 {
        format!("{secs:.1} s")
    } else {
        duration(secs)
    }
}

/// A bar of `frames` frames on stderr, hidden when `quiet` or when stderr is not a terminal.
fn progress_bar(quiet: bool, frames: u64) -> indicatif::ProgressBar {
    let bar = if quiet || !std::io::IsTerminal::is_terminal(&std::io::stderr()) {
        indicatif::ProgressBar::hidden()
    } else {
        indicatif::ProgressBar::new(frames)
    };
    bar.set_style(
        indicatif::ProgressStyle::with_template(
            "{elapsed_precise} [{bar:30}] case {msg} ({eta} left)",
        )
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
    );
    bar
}

/// The folders of `dir` and above it that do not exist yet, deepest first: what creating it
/// makes, and so what a stopped run removes (when still empty).
fn missing_folders(dir: &Path) -> Vec<PathBuf> {
    dir.ancestors()
        .take_while(|d| !d.as_os_str().is_empty() && !d.exists())
        .map(Path::to_path_buf)
        .collect()
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
    let made = missing_folders(&args.out);
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
    let bar = progress_bar(args.quiet, total_cases as u64 * per_case);
    let weights: Vec<f64> = cases(&options).iter().map(|c| c.instances as f64).collect();
    let quick_hint = if args.quick {
        ""
    } else {
        "; --quick for a first look"
    };
    let matrix = format!(
        "{total_cases} case{} of {per_case} frames",
        if total_cases == 1 { "" } else { "s" }
    );
    let started = std::time::Instant::now();
    // Said twice: from the first frame measured (so a run of hours says so before it has
    // taken them, and stops past LONG_RUN without --long), then, closer, once a case has run
    // (and a quarter second passed, which a skipped case does not take).
    let mut from_frame = None;
    let mut estimated = args.quiet;
    let outcome = run_bench(&options, &mut |p| {
        if from_frame.is_none()
            && p.frame == 1
            && let Some(total) = estimate_from_frame(p.seconds, &weights, p.case, per_case as usize)
        {
            from_frame = Some((total, p.seconds));
            if total > LONG_RUN && !args.long {
                return std::ops::ControlFlow::Break(());
            }
            if !args.quiet {
                bar.suspend(|| {
                    eprintln!(
                        "the first frame took {}: the whole run ({matrix}) should take \
                         about {} (frames scaled by agent count){quick_hint}",
                        duration_fine(p.seconds),
                        duration(total)
                    );
                });
            }
        }
        let elapsed = started.elapsed().as_secs_f64();
        if !estimated
            && elapsed >= 0.25
            && let Some(total) = estimate(elapsed, &weights, p.case.saturating_sub(1))
        {
            estimated = true;
            bar.suspend(|| {
                eprintln!(
                    "{} after {} of {total_cases} cases: the whole run should take about {} \
                     (cases scaled by agent count){quick_hint}",
                    duration(elapsed),
                    p.case - 1,
                    duration(total),
                );
            });
        }
        bar.set_message(format!("{}/{total_cases}", p.case));
        bar.set_position((p.case.saturating_sub(1) as u64) * per_case + p.frame as u64);
        std::ops::ControlFlow::Continue(())
    });
    bar.finish_and_clear();
    let report = match outcome {
        Err(BenchError::Stopped) => {
            // Nothing of the run is kept: the folders made for its report go too.
            for dir in made {
                let _ = std::fs::remove_dir(dir);
            }
            let (total, first) = from_frame.unwrap_or((f64::INFINITY, f64::INFINITY));
            bail!(
                "the first frame took {}, so the whole run ({matrix}) would take about {}, \
                 more than the hour a run may take without --long: give --long to run it \
                 anyway, {}",
                duration_fine(first),
                duration(total),
                if args.quick {
                    "or fewer cases"
                } else {
                    "or --quick for a first look (or fewer cases, --instances or --frames)"
                }
            );
        }
        other => other.with_context(|| format!("benchmarking {}", options.bake.display()))?,
    };
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

    #[test]
    fn the_first_frame_stands_for_every_frame_scaled_by_agent_count() {
        let w = [1000.0, 10000.0, 1000.0, 10000.0];
        // 20 ms for a frame of the first case (1000 agents): 35 frames a case, 22 case-weights.
        let t = estimate_from_frame(0.02, &w, 1, 35).unwrap();
        assert!((t - 0.02 * 35.0 * 22.0).abs() < 1e-9, "{t}");
        // A frame of a 10,000-agent case (the first ones skipped) weighs ten times less.
        let t = estimate_from_frame(0.2, &w, 2, 35).unwrap();
        assert!((t - 0.2 * 35.0 * 2.2).abs() < 1e-9, "{t}");
        assert_eq!(estimate_from_frame(0.02, &w, 0, 35), None);
        assert_eq!(estimate_from_frame(0.02, &w, 5, 35), None);
        assert_eq!(duration_fine(0.0523), "52 ms");
        assert_eq!(duration_fine(1.26), "1.3 s");
    }

    #[test]
    fn a_stopped_run_knows_the_folders_it_made() {
        let base = std::env::temp_dir();
        let out = base.join("throng-no-such-folder-a").join("b");
        assert_eq!(
            missing_folders(&out),
            [out.clone(), base.join("throng-no-such-folder-a")]
        );
        assert!(missing_folders(&base).is_empty());
    }
}
