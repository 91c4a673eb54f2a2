//! Errors of the crowd: LOD preset files that cannot be read or are invalid, bakes that a
//! crowd cannot use, and counts it cannot hold. Every message names the file and the problem.

use thiserror::Error;

/// Why a crowd, a palette or a set of LOD presets could not be made.
#[derive(Debug, Error)]
pub enum CrowdError {
    /// A presets file could not be read.
    #[error("{file}: cannot read LOD presets: {error}")]
    Io {
        /// The file, as given.
        file: String,
        /// What the system said (in the message, so not also the error's `source()`).
        error: std::io::Error,
    },
    /// A presets file is not TOML, or not a table of presets.
    #[error("{file}: {what}")]
    PresetSyntax {
        /// The file.
        file: String,
        /// What is wrong, with the line where the TOML parser gives one.
        what: String,
    },
    /// One key of one preset is missing, unknown or invalid.
    #[error("{file}: preset '{preset}': key '{key}': {what}")]
    Preset {
        /// The file.
        file: String,
        /// The preset (table) name.
        preset: String,
        /// The key: `distances`, `rates`, `offscreen_rate`, `culling`, or the unknown key.
        key: String,
        /// What is wrong with it.
        what: String,
    },
    /// A bake holds no characters.
    #[error("{file}: the bake holds no characters, so there is nothing to make a crowd of")]
    NoCharacters {
        /// The bake.
        file: String,
    },
    /// A character of a bake has no animations.
    #[error("{file}: character '{character}' has no animations (a crowd agent must play one)")]
    NoAnims {
        /// The bake.
        file: String,
        /// The character's name.
        character: String,
    },
    /// The file given to a crowd is not the bake it was made from.
    #[error(
        "{file}: not the bake this crowd was made from ({what}); make a new crowd for another file"
    )]
    OtherFile {
        /// The file given.
        file: String,
        /// What differs.
        what: String,
    },
    /// More agents than a crowd holds.
    #[error("{count} agents asked for; a crowd holds at most {max}")]
    TooMany {
        /// The count asked for.
        count: usize,
        /// [`crate::crowd::MAX_AGENTS`].
        max: usize,
    },
}
