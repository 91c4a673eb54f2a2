//! Errors of `throng bench`: settings that name nothing, a bake or device that fails, a live
//! baseline that cannot load its characters, report files that cannot be written or drawn.
//! Every message names the file and what went wrong.

use std::path::PathBuf;

use thiserror::Error;

/// Why a benchmark could not run or its report could not be written.
#[derive(Debug, Error)]
pub enum BenchError {
    /// The caller's progress callback stopped the run (it says why).
    #[error("the run was stopped")]
    Stopped,
    /// A preset, path or other setting names nothing.
    #[error("{0}")]
    Settings(String),
    /// The live baseline cannot evaluate this bake's characters.
    #[error("live baseline: {0}")]
    Live(String),
    /// The bake could not be read.
    #[error(transparent)]
    Format(#[from] crate::format::FormatError),
    /// The hybrid path's live tier cannot pose the bake.
    #[error(transparent)]
    Hybrid(#[from] crate::hybrid::HybridError),
    /// The crowd could not be built.
    #[error(transparent)]
    Crowd(#[from] crate::crowd::CrowdError),
    /// Rendering failed.
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// A file or folder could not be created, written, flushed or renamed into place. (The
    /// causes of this and the next variants are part of their messages, so they are not also
    /// their `source()`: a chain printed whole would say them twice.)
    #[error("{}: {what}: {error}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The step that failed ("creating the folder", "writing", "renaming into place", ..).
        what: &'static str,
        /// What the system said.
        error: std::io::Error,
    },
    /// The report could not be turned into JSON.
    #[error("{}: cannot write the report as JSON: {error}", path.display())]
    Json {
        /// The file.
        path: PathBuf,
        /// What serde_json said.
        error: serde_json::Error,
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
    #[error("{}: cannot write the PNG: {error}", path.display())]
    Png {
        /// The file.
        path: PathBuf,
        /// What the encoder said.
        error: image::ImageError,
    },
}
