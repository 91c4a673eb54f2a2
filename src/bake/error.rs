//! Errors of baking: what is wrong, naming the recipe (file and line), character, clip or file.
//!
//! A message that includes its cause's text does not also return the cause from `source()`
//! (a printer of the whole chain, like the CLI's, would say it twice); such causes are kept in
//! fields named `error`.

use std::fmt;

use thiserror::Error;

use crate::character::CharacterError;
use crate::format::FormatError;
use crate::import::ImportError;
use crate::mesh::LodError;

/// Why a bake could not be done.
#[derive(Debug, Error)]
pub enum BakeError {
    /// A frame rate or duration that cannot be baked.
    #[error("clip '{clip}': {what}")]
    BadSchedule {
        /// The clip or blend state being scheduled.
        clip: String,
        /// What is wrong, e.g. "frame rate 0 must be a positive number".
        what: String,
    },
    /// The recipe is unreadable or wrong, or asks for something its characters do not have:
    /// at the line of the key at fault.
    #[error("{at}: {what}")]
    Recipe {
        /// The recipe file, and the line of the key at fault when there is one.
        at: RecipeAt,
        /// What is wrong, naming the character where it is one character's fault.
        what: String,
    },
    /// What the recipe's `key` asked for failed (an f16 budget exceeded, a frame rate that gives
    /// too many frames).
    #[error("{at}: {key}: {error}")]
    InRecipe {
        /// The recipe file and the line of `key`.
        at: RecipeAt,
        /// The recipe's top-level key that asked for what failed, e.g. `precision`.
        key: String,
        /// What failed.
        error: Box<BakeError>,
    },
    /// A character of a recipe made in code (a bare model's) asks for something its model or
    /// file does not have.
    #[error("character '{character}': {what}")]
    Character {
        /// The character's name.
        character: String,
        /// What it asks for that is not there, or what is wrong with it.
        what: String,
    },
    /// A character file failed to load; `at` is where the recipe names it.
    #[error("{}character '{character}': {error}", prefix(at.as_ref()))]
    CharacterFile {
        /// The recipe file and line of the character's `character` key; `None` for a recipe made
        /// in code.
        at: Option<RecipeAt>,
        /// The character's name in the recipe.
        character: String,
        /// Why the character file did not load (it names the file).
        error: Box<CharacterError>,
    },
    /// A model failed to import; `at` is where the recipe names it.
    #[error("{}character '{character}': {error}", prefix(at.as_ref()))]
    Model {
        /// The recipe file and line of the character's `model` key; `None` for a recipe made in
        /// code.
        at: Option<RecipeAt>,
        /// The character's name in the recipe.
        character: String,
        /// Why the model did not import (it names the file).
        error: Box<ImportError>,
    },
    /// LOD generation failed (the message names the mesh where it is one mesh's fault).
    #[error("character '{character}': {error}")]
    Lod {
        /// The character's name.
        character: String,
        /// The name of the mesh part being simplified (not part of the message).
        mesh: String,
        /// Why simplification failed.
        error: LodError,
    },
    /// f16 texels would exceed the error budget.
    #[error(
        "f16 texels would move vertices by up to {error:.3e} m ({fraction:.3}% of the height of character '{character}') in '{anim}'; the budget is {budget}%. Use precision = \"f32\" (or \"auto\"), raise max_precision_error, or force it with --force"
    )]
    PrecisionBudget {
        /// The character's name.
        character: String,
        /// The clip or blend state with the largest error.
        anim: String,
        /// The largest vertex displacement f16 texels would cause, metres.
        error: f32,
        /// `error` as a percentage of the character's height (0.1 = 0.1 %).
        fraction: f32,
        /// The budget it exceeds, percent of the character's height (the recipe's
        /// `max_precision_error` × 100).
        budget: f32,
    },
    /// An input file could not be read for hashing; `named` says where it was named (the
    /// recipe's line and character, and the character file's line for its model).
    #[error("{named}{file}: cannot read: {error}")]
    Input {
        /// Where the file was named, as a message prefix ending in `": "` (e.g.
        /// `"crowd.toml:12: character 'knight': "`); empty for a recipe made in code.
        named: String,
        /// The file's path as it was resolved for reading.
        file: String,
        /// The read's I/O error.
        error: std::io::Error,
    },
    /// A baked file's animations cannot be posed again as its baker posed them
    /// ([`super::Replay::of_file`]): its recipe or sources are gone or changed since.
    #[error("{file}: cannot pose its animations as baked: {what}")]
    Replay {
        /// The baked file.
        file: String,
        /// Why, e.g. "its sources changed since it was baked".
        what: String,
    },
    /// Writing the file failed.
    #[error(transparent)]
    Format(#[from] FormatError),
}

/// `FILE:LINE: ` for a located error, else nothing.
fn prefix(at: Option<&RecipeAt>) -> String {
    at.map_or_else(String::new, |a| format!("{a}: "))
}

impl BakeError {
    /// A [`BakeError::Character`]: character `name` asks for something it does not have.
    pub(super) fn character(name: &str, what: String) -> Self {
        Self::Character {
            character: name.to_string(),
            what,
        }
    }
}

/// Where something was given in a recipe, for messages: its file and, when known, its line
/// (`bake/crowd.toml:12`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecipeAt {
    /// The recipe file, as the user named it.
    pub file: String,
    /// 1-based line, when known.
    pub line: Option<usize>,
}

impl fmt::Display for RecipeAt {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.line {
            Some(l) => write!(f, "{}:{l}", self.file),
            None => f.write_str(&self.file),
        }
    }
}
