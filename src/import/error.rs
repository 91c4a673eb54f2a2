//! Import errors. Every message starts with the file name and names the glTF element at fault.
//!
//! Each message is complete and says its cause once: a variant that wraps another error
//! writes that error's text into its own message and does not also return it from
//! `Error::source()` (its field is called `cause`, not `source`, so `thiserror` does not make
//! it one). A printer that walks the chain of causes therefore cannot repeat it.

use std::path::PathBuf;

use thiserror::Error;

use crate::anim::AnimError;
use crate::mesh::MeshError;

/// Why a model could not be imported.
#[derive(Debug, Error)]
pub enum ImportError {
    /// The model file could not be read.
    #[error("{file}: cannot read {what} '{}': {cause}", path.display())]
    Io {
        /// The model's file name (the last part of its path).
        file: String,
        /// What was being read, e.g. "model".
        what: &'static str,
        /// The path as it was given.
        path: PathBuf,
        /// What the system said.
        cause: std::io::Error,
    },
    /// Not a well-formed glTF or GLB file, or its JSON breaks the schema.
    #[error("{file}: not a valid glTF file: {cause}")]
    Parse {
        /// The model's file name (the last part of its path), or the name given to
        /// [`load_bytes`](super::load_bytes).
        file: String,
        /// The glTF parser's error.
        cause: gltf::Error,
    },
    /// The file is well-formed but its content is unusable; `what` names the element.
    #[error("{file}: {what}")]
    Invalid {
        /// The model's file name (the last part of its path), or the name given to
        /// [`load_bytes`](super::load_bytes).
        file: String,
        /// What is wrong, naming the glTF element (accessor, mesh, node, animation ...).
        what: String,
    },
    /// Skeleton or clip data failed validation (the message names the joint or the clip).
    #[error("{file}: {cause}")]
    Anim {
        /// The model's file name (the last part of its path), or the name given to
        /// [`load_bytes`](super::load_bytes).
        file: String,
        /// Why the skeleton or a clip was refused.
        cause: Box<AnimError>,
    },
    /// Mesh data failed validation.
    #[error("{file}: {cause}")]
    Mesh {
        /// The model's file name (the last part of its path), or the name given to
        /// [`load_bytes`](super::load_bytes).
        file: String,
        /// Why the mesh was refused.
        cause: Box<MeshError>,
    },
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;

    use super::*;

    #[test]
    fn no_error_returns_the_cause_its_message_already_says() {
        let io = ImportError::Io {
            file: "x.glb".into(),
            what: "model",
            path: "/m/x.glb".into(),
            cause: std::io::Error::new(std::io::ErrorKind::NotFound, "gone"),
        };
        assert_eq!(io.to_string(), "x.glb: cannot read model '/m/x.glb': gone");
        assert!(io.source().is_none());
        let cause = || gltf::Error::Io(std::io::Error::other("cut"));
        let parse = ImportError::Parse {
            file: "x.gltf".into(),
            cause: cause(),
        };
        assert!(parse.to_string().ends_with(&cause().to_string()));
        assert!(parse.source().is_none());
    }
}
