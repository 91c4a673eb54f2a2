//! Errors of `throng bench`: report files that cannot be written or drawn. Every message names
//! the file and what went wrong.

use std::path::PathBuf;

use thiserror::Error;

/// Why a benchmark report could not be written.
#[derive(Debug, Error)]
pub enum BenchError {
    /// A file or folder could not be created, written, flushed or renamed into place.
    #[error("{}: {what}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The step that failed ("creating the folder", "writing", "renaming into place", ..).
        what: &'static str,
        /// What the system said.
        source: std::io::Error,
    },
    /// The report could not be turned into JSON.
    #[error("{}: cannot write the report as JSON: {source}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What serde_json said.
        source: serde_json::Error,
    },
    /// A plot could not be drawn (fonts or the drawing backend failed).
    #[error("{}: cannot draw the plot: {what}", path.display())]
    Plot {
        /// The file.
        path: PathBuf,
        /// What failed.
        what: String,
    },
    /// A plot could not be encoded or saved as PNG.
    #[error("{}: cannot write the PNG: {source}", path.display())]
    Png {
        /// The file.
        path: PathBuf,
        /// What the encoder said.
        source: image::ImageError,
    },
}
