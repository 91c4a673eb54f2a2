//! Character file errors: every message starts with `file:line:` and names the element.
//!
//! A message that includes its cause's text does not also return the cause from `source()`:
//! a printer of the whole chain would say it twice. The cause is kept in a field named `error`
//! for whoever wants to look at it.

use thiserror::Error;

use crate::import::ImportError;

/// Why a character file could not be loaded.
#[derive(Debug, Error)]
pub enum CharacterError {
    /// The file could not be read.
    #[error("{file}: cannot read: {error}")]
    Io { file: String, error: std::io::Error },
    /// Syntax, an unknown key or a value of the wrong type (`toml`'s message, with the line).
    #[error("{file}:{line}: {message}")]
    Syntax {
        file: String,
        line: usize,
        message: String,
    },
    /// A reference to something that does not exist, a cycle, or a value out of range.
    #[error("{file}:{line}: {message}")]
    Invalid {
        file: String,
        line: usize,
        message: String,
    },
    /// The model the file names failed to import.
    #[error("{file}:{line}: model: {error}")]
    Model {
        file: String,
        line: usize,
        error: Box<ImportError>,
    },
}
