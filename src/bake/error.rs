//! Errors of baking: what is wrong, naming the recipe, character, clip or file.

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
    BadSchedule { clip: String, what: String },
    /// The recipe is unreadable or wrong.
    #[error("{file}: {what}")]
    Recipe { file: String, what: String },
    /// A character of the recipe asks for something its model or file does not have.
    #[error("character '{character}': {what}")]
    Character { character: String, what: String },
    /// A character file failed to load.
    #[error("character '{character}': {source}")]
    CharacterFile {
        character: String,
        source: Box<CharacterError>,
    },
    /// A model failed to import.
    #[error("character '{character}': {source}")]
    Model {
        character: String,
        source: Box<ImportError>,
    },
    /// LOD generation failed (the message names the mesh where it is one mesh's fault).
    #[error("character '{character}': {source}")]
    Lod {
        character: String,
        mesh: String,
        source: LodError,
    },
    /// f16 texels would exceed the error budget.
    #[error(
        "f16 texels would move vertices by up to {error:.3e} m ({fraction:.3}% of the height of character '{character}') in '{anim}'; the budget is {budget:.3}%. Use precision = \"f32\" (or \"auto\"), raise max_precision_error, or force it with --force"
    )]
    PrecisionBudget {
        character: String,
        anim: String,
        error: f32,
        fraction: f32,
        budget: f32,
    },
    /// An input file could not be read for hashing.
    #[error("{file}: cannot read: {source}")]
    Input {
        file: String,
        source: std::io::Error,
    },
    /// Writing the file failed.
    #[error(transparent)]
    Format(#[from] FormatError),
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
