//! Import errors. Every message starts with the file name and names the glTF element at fault.

use std::path::PathBuf;

use thiserror::Error;

use crate::anim::AnimError;
use crate::mesh::MeshError;

/// Why a model could not be imported.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The file (or a buffer or image it references) could not be read.
    #[error("{file}: cannot read {what} '{path}': {source}")]
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
    /// Skeleton or clip data failed validation.
    #[error("{file}: {context}: {source}")]
    Anim {
        file: String,
        context: String,
        source: Box<AnimError>,
    },
    /// Mesh data failed validation.
    #[error("{file}: {source}")]
    Mesh {
        file: String,
        source: Box<MeshError>,
    },
}
