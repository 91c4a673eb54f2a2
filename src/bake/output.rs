//! A recipe's output file: whether it is up to date (baked from exactly these inputs by this
//! throng) and baking into it (atomically, through the container writer).
//!
//! Printing stays the caller's: progress goes through [`BakeOptions::progress`].

use thiserror::Error;

use super::baker::{BakeOptions, bake};
use super::error::BakeError;
use super::inputs::{input_files, inputs};
use super::recipe::Recipe;
use super::report::BakeReport;
use crate::atomic::{TargetError, WriteError, check_not_input, check_target, remove_stale};
use crate::format::ThrongFile;

/// The repository's default recipe, relative to the current folder: used instead of the
/// built-in one when it is there (the repository root; see `bake::default`).
pub const DEFAULT_RECIPE: &str = "bake/mannequin.toml";

/// Why a bake could not be written to its file.
#[derive(Debug, Error)]
pub enum OutputError {
    /// The repository's default recipe ([`DEFAULT_RECIPE`] in the current folder, used
    /// instead of the built-in one) could not be read or is invalid.
    #[error(
        "{DEFAULT_RECIPE} in the current folder (the default recipe, used instead of the built-in one): {source}"
    )]
    DefaultRecipe {
        /// Why it could not.
        #[source]
        source: BakeError,
    },
    /// A file of the built-in default recipe could not be written into the cache folder.
    #[error("cannot write the built-in default recipe into the cache: {error}")]
    Builtin {
        /// The failed write, naming the file.
        #[source]
        error: WriteError,
    },
    /// The output cannot be written there (empty, a folder, a device or FIFO, a folder that
    /// cannot be created or written in, one of the bake's own inputs); found before baking.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// A folder stands where throng keeps a file of its cache (the default bake, its
    /// built-in inputs, the demo's bakes of models); found before baking. Said as the
    /// cache's, not as an output the user named.
    #[error("the cache entry {} is a folder; remove it", .path.display())]
    CacheFolder {
        /// The cache entry.
        path: std::path::PathBuf,
    },
    /// A file of throng's cache cannot be written there for another reason (e.g. a read-only
    /// cache); found before baking.
    #[error("cannot write the cache entry {}: {}", .0.path.display(), .0.what)]
    Cache(TargetError),
    /// Baking or writing failed.
    #[error(transparent)]
    Bake(#[from] BakeError),
}

/// Whether `recipe`'s output exists and was baked from exactly these inputs (recipe, models,
/// character files, throng version and `force`). An output that cannot be read is not up to
/// date. `external` says which files bare models' URIs may name, as in [`BakeOptions`].
///
/// When it is up to date, the temporaries that killed bakes of it left beside it are removed
/// ([`remove_stale`]): the bake that writes nothing still cleans up after a killed one, as the
/// one that writes does.
///
/// # Errors
/// [`BakeError::Input`] if an input file cannot be read for hashing.
pub fn up_to_date(
    recipe: &Recipe,
    force: bool,
    external: crate::import::ExternalFiles,
) -> Result<bool, BakeError> {
    if !recipe.output.exists() {
        return Ok(false);
    }
    let (key, _) = inputs(recipe, force, external)?;
    let fresh = ThrongFile::open(&recipe.output).is_ok_and(|f| f.metadata().input_key == key);
    if fresh {
        remove_stale(&recipe.output);
    }
    Ok(fresh)
}

/// Checks, before any work, that `recipe`'s output can be written ([`check_target`], creating
/// its folder) and is none of the bake's own inputs: the recipe file, the models with their
/// buffers and images, the character files ([`check_not_input`]; by identity, not by name).
///
/// # Errors
/// [`OutputError::Target`] naming the output and what is wrong with it.
pub fn check_output(
    recipe: &Recipe,
    external: crate::import::ExternalFiles,
) -> Result<(), OutputError> {
    check_target(&recipe.output, true)?;
    let files = input_files(recipe, external);
    let inputs = recipe
        .path
        .iter()
        .map(|p| (p.as_path(), "the recipe"))
        .chain(files.iter().map(|f| (f.path.as_path(), f.what.as_str())));
    check_not_input(&recipe.output, inputs)?;
    Ok(())
}

/// Bakes `recipe` and writes it to `recipe.output` atomically, creating its folder if needed.
/// The output is checked first ([`check_output`]), so a path that cannot be written, or that
/// is one of the bake's inputs, fails before the bake rather than after it; the bake is
/// validated as the reader validates before anything is written.
///
/// # Errors
/// [`OutputError::Target`] if the output cannot be written there, [`OutputError::Bake`] if
/// baking, validating or writing fails (the old output stays as it was).
pub fn bake_to_file(recipe: &Recipe, options: &BakeOptions) -> Result<BakeReport, OutputError> {
    check_output(recipe, options.external_files)?;
    let baked = bake(recipe, options)?;
    baked
        .builder
        .write(&recipe.output)
        .map_err(BakeError::from)?;
    Ok(baked.report)
}

/// Bakes `recipe` into its output unless that is up to date ([`up_to_date`]), calling
/// `before_baking` with the recipe just before the bake (not at all when it is up to date).
/// Returns the bake's report (what `throng bake` prints: units read, warnings), or `None`
/// when the output was up to date.
///
/// # Errors
/// As [`up_to_date`] and [`bake_to_file`].
pub fn bake_if_stale(
    recipe: &Recipe,
    options: &BakeOptions,
    before_baking: impl FnOnce(&Recipe),
) -> Result<Option<BakeReport>, OutputError> {
    if up_to_date(recipe, options.force, options.external_files)? {
        return Ok(None);
    }
    before_baking(recipe);
    bake_to_file(recipe, options).map(Some)
}
