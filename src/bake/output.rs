//! A recipe's output file: whether it is up to date (baked from exactly these inputs by this
//! throng), baking into it (atomically, through the container writer), and the default bake
//! that the demo, `throng render` and `throng bench` fall back on when given no file.
//!
//! Printing stays the caller's: progress goes through [`BakeOptions::progress`], and
//! [`default_bake`] says when it is about to bake through a callback, so each command keeps
//! its own messages (or none).

use std::path::PathBuf;

use thiserror::Error;

use super::baker::{BakeOptions, bake};
use super::error::BakeError;
use super::inputs::inputs;
use super::recipe::Recipe;
use super::report::BakeReport;
use crate::atomic::{TargetError, check_target};
use crate::format::ThrongFile;

/// The recipe of the default bake (the mannequin crowd of the demo), relative to the current
/// folder: commands run from the repository root find it.
pub const DEFAULT_RECIPE: &str = "bake/mannequin.toml";

/// Why a bake could not be written to its file.
#[derive(Debug, Error)]
pub enum OutputError {
    /// The default recipe could not be read.
    #[error(
        "the default bake needs {DEFAULT_RECIPE} (run from the repository root, or give --bake FILE)"
    )]
    DefaultRecipe {
        /// Why it could not.
        #[source]
        source: BakeError,
    },
    /// The output cannot be written there (empty, a folder, a folder that cannot be created
    /// or written in); found before baking.
    #[error(transparent)]
    Target(#[from] TargetError),
    /// Baking or writing failed.
    #[error(transparent)]
    Bake(#[from] BakeError),
}

/// Whether `recipe`'s output exists and was baked from exactly these inputs (recipe, models,
/// character files, throng version and `force`). An output that cannot be read is not up to
/// date. `external` says which files bare models' URIs may name, as in [`BakeOptions`].
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
    Ok(ThrongFile::open(&recipe.output).is_ok_and(|f| f.metadata().input_key == key))
}

/// Bakes `recipe` and writes it to `recipe.output` atomically, creating its folder if needed.
/// The output is checked first ([`check_target`]), so a path that cannot be written fails
/// before the bake rather than after it; the bake is validated as the reader validates
/// before anything is written.
///
/// # Errors
/// [`OutputError::Target`] if the output cannot be written there, [`OutputError::Bake`] if
/// baking, validating or writing fails (the old output stays as it was).
pub fn bake_to_file(recipe: &Recipe, options: &BakeOptions) -> Result<BakeReport, OutputError> {
    check_target(&recipe.output, true)?;
    let baked = bake(recipe, options)?;
    baked
        .builder
        .write(&recipe.output)
        .map_err(BakeError::from)?;
    Ok(baked.report)
}

/// The default bake's file, baked first from [`DEFAULT_RECIPE`] when missing or out of date;
/// `before_baking` is called with the recipe just before that bake (not at all when the file
/// is up to date).
///
/// # Errors
/// [`OutputError::DefaultRecipe`] if the recipe cannot be read (e.g. when run outside the
/// repository), else as [`up_to_date`] and [`bake_to_file`].
pub fn default_bake(
    options: &BakeOptions,
    before_baking: impl FnOnce(&Recipe),
) -> Result<PathBuf, OutputError> {
    let recipe = Recipe::load(std::path::Path::new(DEFAULT_RECIPE))
        .map_err(|source| OutputError::DefaultRecipe { source })?;
    if !up_to_date(&recipe, options.force, options.external_files)? {
        before_baking(&recipe);
        bake_to_file(&recipe, options)?;
    }
    Ok(recipe.output)
}
