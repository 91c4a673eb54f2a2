//! Import errors. Every message starts with the file name and names the glTF element at fault.
//! Each message is complete: it ends with its cause's text, so the CLI, which prints a chain of
//! causes, leaves out a cause whose text the message already holds (see `cli::error_report`).

use std::path::PathBuf;

use thiserror::Error;

use crate::anim::AnimError;
use crate::mesh::MeshError;

/// Why a model could not be imported.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The model file could not be read.
    #[error("{file}: cannot read {what} '{}': {source}", path.display())]
    Io {
        file: String,
        what: &'static str,
        path: PathBuf,
        source: std::io::Error,
    },
    /// Not a well-formed glTF or GLB file, or its JSON breaks the schema.
    #[error("{file}: not a valid glTF file: {source}")]
    Parse { file: String, source: gltf::Error },
    /// The file is well-formed but its content is unusable; `what` names the element.
    #[error("{file}: {what}")]
    Invalid { file: String, what: String },
    /// Skeleton or clip data failed validation (the message names the joint or the clip).
    #[error("{file}: {source}")]
    Anim {
        file: String,
        source: Box<AnimError>,
    },
    /// Mesh data failed validation.
    #[error("{file}: {source}")]
    Mesh {
        file: String,
        source: Box<MeshError>,
    },
}
