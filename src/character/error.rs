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
    Io {
        /// The character file's name (the last part of its path).
        file: String,
        /// What the system said.
        error: std::io::Error,
    },
    /// Syntax, an unknown key or a value of the wrong type (`toml`'s message, with the line).
    #[error("{file}:{line}: {message}")]
    Syntax {
        /// The character file's name (the last part of its path), or the name given to
        /// [`Character::parse`](super::Character::parse).
        file: String,
        /// The 1-based line of the key at fault (1 when the error has no position).
        line: usize,
        /// The TOML parser's message, naming the key.
        message: String,
    },
    /// A reference to something that does not exist, a cycle, or a value out of range.
    #[error("{file}:{line}: {message}")]
    Invalid {
        /// The character file's name (the last part of its path), or the name given to
        /// [`Character::parse`](super::Character::parse).
        file: String,
        /// The 1-based line of the key at fault (1 when the error has no position).
        line: usize,
        /// What is wrong, naming the state, clip, joint or parameter at fault.
        message: String,
    },
    /// The model the file names failed to import.
    #[error("{file}:{line}: model: {error}")]
    Model {
        /// The character file's name (the last part of its path), or the name given to
        /// [`Character::parse`](super::Character::parse).
        file: String,
        /// The 1-based line of the `model` key.
        line: usize,
        /// Why the model did not import (it names the model file).
        error: Box<ImportError>,
    },
}
