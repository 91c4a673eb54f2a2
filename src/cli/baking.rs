//! Baking glue the commands share: the recipe a command line names (a recipe file, or the
//! bare-model defaults), a bake's progress bar on stderr, the default bake with the message
//! users see before it (`throng demo`, `render`, `bench` and `inspect` given no file), and the
//! demo's cache of bakes of the models it is given. The work itself is the library's
//! ([`crate::bake::bake_to_file`], [`crate::bake::up_to_date`], [`crate::bake::default_recipe`]).

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};

use crate::bake::{
    BakeOptions, BakeProgress, BakeReport, DefaultRecipe, DefaultSource, Recipe, bake_if_stale,
    bake_to_file, cache_dir, check_cache_entry, default_recipe, up_to_date,
};
use crate::import::ExternalFiles;

/// The recipe `input` names: a recipe file (.toml), or the defaults for a bare glTF model
/// (.glb/.gltf; [`Recipe::for_model`]). `out` replaces the output (default: the recipe's
/// `output`; for a model, MODEL.throng in the current folder). `throng bake` and
/// `throng demo` both come here, so a model bakes with the same defaults in either.
pub(super) fn recipe_for(input: &Path, out: Option<&Path>) -> Result<Recipe> {
    let ext = input
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match ext.as_str() {
        "toml" => {
            let mut recipe = Recipe::load(input)?;
            if let Some(o) = out {
                recipe.output = o.to_path_buf();
            }
            Ok(recipe)
        }
        "glb" | "gltf" => {
            let output = match out {
                Some(o) => o.to_path_buf(),
                None => PathBuf::from(format!("{}.throng", stem(input))),
            };
            Ok(Recipe::for_model(input, &output))
        }
        _ => bail!(
            "{}: give a recipe (.toml) or a glTF model (.glb or .gltf)",
            input.display()
        ),
    }
}

/// The file name of `path` without its extension ("model" when it has none).
fn stem(path: &Path) -> String {
    path.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "model".into())
}

/// The cache file for the recipe or model at `canonical` (an absolute path without links):
/// `STEM-HASH.throng` in the cache folder ([`cache_dir`]), HASH being the first 8 hex digits of the SHA-256 of the
/// path, so that two Fox.glb in different folders get two files.
fn cache_file(canonical: &Path) -> PathBuf {
    let hash = Sha256::digest(canonical.as_os_str().as_encoded_bytes());
    let short: String = hash.iter().take(4).map(|b| format!("{b:02x}")).collect();
    cache_dir().join(format!("{}-{short}.throng", stem(canonical)))
}

/// The demo's bake of `input` (a glTF model or a recipe): its cache file, baked first (with a
/// progress bar) unless it is up to date with every file the bake reads (recipe, models with
/// their buffers and images, character files; [`up_to_date`]). Prints one line saying where
/// the cache is and whether it was reused.
pub(super) fn cached_bake(input: &Path, external: ExternalFiles) -> Result<PathBuf> {
    let canonical = std::fs::canonicalize(input)
        .with_context(|| format!("{}: cannot open", input.display()))?;
    let out = cache_file(&canonical);
    let recipe = recipe_for(&canonical, Some(&out))?;
    check_cache_entry(&out)?;
    if up_to_date(&recipe, false, external)? {
        println!(
            "cache: {} (reused: {} and the files it reads are unchanged)",
            out.display(),
            input.display()
        );
    } else {
        println!(
            "cache: {} (baking {} into it; reused while its inputs are unchanged)",
            out.display(),
            input.display()
        );
        let report = bake_and_write(&recipe, false, false, external)?;
        // What the user may want to change (the units rule applied, a size that needs a
        // `height`, unreadable images): the same notes `throng bake` prints.
        for c in &report.characters {
            eprintln!(
                "'{}': {} joints, height {:.3} m, {} animations",
                c.name,
                c.joints,
                c.height,
                c.anims.len()
            );
            for w in &c.warnings {
                eprintln!("  note: {w}");
            }
        }
    }
    Ok(out)
}

/// A progress bar per bake stage on stderr, or nothing when quiet; cleared when dropped.
struct Bar {
    quiet: bool,
    current: Mutex<Option<indicatif::ProgressBar>>,
}

impl Bar {
    fn new(quiet: bool) -> Self {
        Self {
            quiet,
            current: Mutex::new(None),
        }
    }

    /// Shows `p`: a new bar for a new stage, or the current one advanced.
    fn show(&self, p: BakeProgress) {
        if self.quiet {
            return;
        }
        let Ok(mut bar) = self.current.lock() else {
            return;
        };
        match p {
            BakeProgress::Stage(what, total) => {
                if let Some(b) = bar.take() {
                    b.finish_and_clear();
                }
                let b = indicatif::ProgressBar::with_draw_target(
                    Some(total),
                    indicatif::ProgressDrawTarget::stderr(),
                );
                b.set_style(
                    indicatif::ProgressStyle::with_template(
                        "{msg:>16} [{bar:40}] {pos}/{len} ({eta})",
                    )
                    .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar())
                    .progress_chars("=> "),
                );
                b.set_message(what.to_string());
                *bar = Some(b);
            }
            BakeProgress::Advance(n) => {
                if let Some(b) = bar.as_ref() {
                    b.inc(n);
                }
            }
        }
    }
}

impl Drop for Bar {
    fn drop(&mut self) {
        if let Ok(mut b) = self.current.lock()
            && let Some(b) = b.take()
        {
            b.finish_and_clear();
        }
    }
}

/// Bakes `recipe` into its output file, with a progress bar unless `quiet`; its bare models'
/// URIs may name the files `external` allows.
pub(super) fn bake_and_write(
    recipe: &Recipe,
    force: bool,
    quiet: bool,
    external: ExternalFiles,
) -> Result<BakeReport> {
    let bar = Bar::new(quiet);
    let progress = |p: BakeProgress| bar.show(p);
    let options = BakeOptions {
        force,
        progress: Some(&progress),
        external_files: external,
    };
    Ok(bake_to_file(recipe, &options)?)
}

/// The line printed before the default bake is baked: what is baked from what, and for the
/// built-in recipe where the cache is.
pub(super) fn before_default(default: &DefaultRecipe) -> String {
    let out = default.recipe.output.display();
    match &default.source {
        DefaultSource::Repository => {
            format!("baking {out} from {} first", crate::bake::DEFAULT_RECIPE)
        }
        DefaultSource::Builtin { folder } => format!(
            "baking the built-in mannequin crowd first, into the cache: {out} (reused while it is up to date; its recipe is in {})",
            folder.display()
        ),
    }
}

/// The default bake's file, baked first (saying what and where on stderr, with a progress
/// bar, unless `quiet`) when missing or out of date: `bake/mannequin.throng` in the
/// repository root, else the built-in recipe's bake in the cache folder
/// ([`crate::bake::default_bake`]).
pub(super) fn default_bake(quiet: bool) -> Result<PathBuf> {
    let bar = Bar::new(quiet);
    let progress = |p: BakeProgress| bar.show(p);
    let options = BakeOptions {
        force: false,
        progress: Some(&progress),
        // The project's own mannequin recipe.
        ..BakeOptions::default()
    };
    // The library's default_bake, with the source at hand for the message.
    let default = default_recipe()?;
    if let DefaultSource::Builtin { .. } = default.source {
        check_cache_entry(&default.recipe.output)?;
    }
    bake_if_stale(&default.recipe, &options, |_| {
        if !quiet {
            eprintln!("{}", before_default(&default));
        }
    })?;
    Ok(default.recipe.output)
}
