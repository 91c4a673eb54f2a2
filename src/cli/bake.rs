//! `throng bake`: bake a recipe (or a bare model) into a `.throng` file, with a progress bar on
//! a terminal and a summary of what was baked and the errors measured.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::Result;

use super::baking::{bake_and_write, recipe_for};
use crate::bake::recipe::AUTO_RATES;
use crate::bake::{
    BakeReport, DefaultSource, ImpostorReport, Recipe, check_output, default_recipe, length,
    up_to_date,
};

/// Arguments of `throng bake`.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "With no RECIPE, bakes the default bake (the mannequin crowd that demo, render, bench and \
inspect use when given no file): in the repository root, bake/mannequin.toml into \
bake/mannequin.throng; anywhere else, throng's built-in copy of that recipe into the cache, \
$XDG_CACHE_HOME/throng/mannequin.throng (or ~/.cache/throng/), with the recipe, character file \
and model written beside it in builtin/ and the bake reused while it is up to date. --out \
writes it elsewhere instead.\n\
Recipes are described in docs/BAKING.md; the file format in docs/FORMAT.md.\n\
Examples:\n  throng bake                          the default bake (the demo's crowd)\n  throng bake bake/large-scene.toml    several characters in one file\n  throng bake Fox.glb -o fox.throng    every clip of a model, with the defaults"
)]
pub struct Args {
    /// A recipe (.toml) or a glTF model (.glb/.gltf) to bake with the defaults (default: the
    /// default bake; see below).
    #[arg(value_name = "RECIPE|MODEL")]
    input: Option<PathBuf>,
    /// Output file (default: the recipe's `output`; for a model, MODEL.throng in the current
    /// folder; for the default bake, see below).
    #[arg(long, short)]
    out: Option<PathBuf>,
    /// Write f16 texels even when their measured error exceeds the recipe's budget.
    #[arg(long)]
    force: bool,
    /// Bake even if the output is up to date.
    #[arg(long)]
    rebuild: bool,
    /// Print only errors.
    #[arg(long, short)]
    quiet: bool,
}

/// An error in metres with its fraction of the character's height.
fn err(e: f32, height: f32) -> String {
    format!("{} ({:.3}%)", length(e), e / height * 100.0)
}

/// `n` with a comma between each group of three digits: `23,887,872`.
fn grouped(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(ch);
    }
    out
}

/// The summary's line on a character's impostors.
fn impostors(r: Option<&ImpostorReport>) -> String {
    match r {
        None => "impostors: off".into(),
        Some(r) => format!(
            "impostors: {v}×{v} views, {} px cells, {} frames from LOD {}, {} bytes",
            r.cell,
            r.frames,
            r.level,
            grouped(r.bytes),
            v = r.views
        ),
    }
}

/// The summary printed after a bake of `recipe`.
fn summary(report: &BakeReport, recipe: &Recipe, bytes: u64, seconds: f64) -> String {
    let file = recipe.output.as_path();
    let mut s = String::new();
    let anims: usize = report.characters.iter().map(|c| c.anims.len()).sum();
    let frames: u64 = report
        .characters
        .iter()
        .flat_map(|c| &c.anims)
        .map(|a| u64::from(a.frames))
        .sum();
    s += &format!(
        "baked {} in {seconds:.2} s: {} characters, {anims} animations, {frames} frames, {} texels, {:.2} MB\n",
        file.display(),
        report.characters.len(),
        report.texels,
        bytes as f64 / 1e6
    );
    s += &format!("precision: {}\n", report.format_reason);
    for c in &report.characters {
        s += &format!(
            "\ncharacter '{}': {} joints, height {:.3} m; LOD triangles {}\n",
            c.name,
            c.joints,
            c.height,
            c.lod_triangles
                .iter()
                .zip(&c.lod_errors)
                .map(|(t, e)| format!("{t} (error {})", length(*e)))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if c.lod_joints.iter().skip(1).any(|k| *k < c.joints) {
            s += &format!(
                "  skeleton LOD: {}\n",
                c.lod_joints
                    .iter()
                    .enumerate()
                    .skip(1)
                    .map(|(l, k)| format!("LOD {l} skins {k} of {} joints", c.joints))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
        }
        s += &format!("  {}\n", impostors(c.impostors.as_ref()));
        if !c.feet.is_empty() {
            s += &format!("  feet: {}\n", c.feet.join(", "));
        }
        for w in &c.warnings {
            s += &format!("  note: {w}\n");
        }
        s += &format!(
            "  {:<5} {:<22} {:>8} {:>7} {:>7}  {:<22} {:<22} {}\n",
            "kind", "name", "length", "frames", "fps", "interpolation error", "f16 error", "extra"
        );
        for a in &c.anims {
            let name = match &a.param {
                Some((p, v)) => format!("{} {p}={v}", a.name),
                None => a.name.clone(),
            };
            let mut extra = Vec::new();
            if !a.looping {
                extra.push("once".to_string());
            }
            if a.auto_rate {
                extra.push("auto rate".into());
            }
            if a.events > 0 {
                extra.push(format!("{} events", a.events));
            }
            if a.root_motion {
                extra.push("root motion".into());
            }
            if let Some(v) = a.declared_speed {
                extra.push(format!("{v:.2} m/s"));
            }
            extra.extend(a.figures());
            s += &format!(
                "  {:<5} {:<22} {:>7.3}s {:>7} {:>7.2}  {:<22} {:<22} {}\n",
                a.kind,
                name,
                a.duration,
                a.frames,
                a.fps,
                err(a.interpolation_error, c.height),
                a.f16_error
                    .map_or("(not measured)".to_string(), |e| err(e, c.height)),
                extra.join(", ")
            );
            if let Some(n) = &a.note {
                s += &format!("        note: {n}\n");
            }
            if let Some(why) = &a.no_ground_speed {
                s += &format!("        no ground speed: {why}\n");
            }
            // A fixed rate (a bare bake's default) is kept even where it leaves more error
            // between frames than the budget an "auto" rate keeps: say so, and how to meet it.
            let budget = recipe.interpolation_budget;
            if !a.auto_rate && a.interpolation_error > budget * c.height {
                s += &format!(
                    "        over the interpolation budget: {:.2}% of the height between frames at {:.0} fps, the budget is {}%; `fps = \"auto\"` in a recipe samples it as fast as it needs, up to {:.0} fps (docs/BAKING.md)\n",
                    a.interpolation_error / c.height * 100.0,
                    a.fps,
                    budget * 100.0,
                    AUTO_RATES[AUTO_RATES.len() - 1],
                );
            }
        }
    }
    s
}

pub(super) fn run(args: &Args, external: crate::import::ExternalFiles) -> Result<()> {
    // Whether the output is the default bake in the cache, which messages say.
    let mut in_cache = false;
    let recipe = match &args.input {
        Some(input) => recipe_for(input, args.out.as_deref())?,
        None => {
            let default = default_recipe()?;
            let mut recipe = default.recipe;
            if let Some(o) = &args.out {
                recipe.output = o.clone();
            } else if let DefaultSource::Builtin { folder } = &default.source {
                in_cache = true;
                if !args.quiet {
                    println!(
                        "no {} here: the built-in default recipe (copied to {}) bakes into the cache",
                        crate::bake::DEFAULT_RECIPE,
                        folder.display()
                    );
                }
            }
            recipe
        }
    };
    // Before hashing the inputs and baking (bake_to_file checks again, for its other callers):
    // an output that cannot be written (the cache's own, named as the cache's), or that is one
    // of the inputs, fails now, naming it.
    if in_cache {
        crate::bake::check_cache_entry(&recipe.output)?;
    }
    check_output(&recipe, external)?;
    if !args.rebuild && up_to_date(&recipe, args.force, external)? {
        if !args.quiet {
            println!(
                "{} is up to date: its recipe, models and throng version are unchanged (--rebuild bakes anyway)",
                recipe.output.display()
            );
        }
        return Ok(());
    }
    let start = Instant::now();
    let report = bake_and_write(&recipe, args.force, args.quiet, external)?;
    let seconds = start.elapsed().as_secs_f64();
    let bytes = std::fs::metadata(&recipe.output).map_or(0, |m| m.len());
    if !args.quiet {
        print!("{}", summary(&report, &recipe, bytes, seconds));
    }
    Ok(())
}
