//! Import: glTF files to the animation core's and the mesh module's types. The only module
//! that knows the `gltf` crate. Also home of the procedural mannequin generator, which writes
//! the project's own default character as a GLB.
//!
//! Model space equals the glTF scene's world space: static non-joint ancestors of the skeleton
//! are folded into the root joints' bases, several skins over one skeleton share one joint set,
//! and rigid meshes hanging from joint nodes become meshes bound 100% to that joint.

mod error;
mod gltf;
pub mod mannequin;

use std::path::Path;

pub use error::ImportError;
pub use gltf::{MERGED_CLIP_NAME, MergeAnimations};

use crate::anim::{Clip, Skeleton};
use crate::mesh::{Aabb, Material, SkinnedMesh};

/// Whether base-colour images are read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Images {
    /// Decode them. An image that cannot be read or decoded (a missing file, a bad data URI,
    /// corrupt bytes) is a warning naming it, and its materials are drawn untextured.
    #[default]
    Load,
    /// Leave them out, without reading them: for code that needs only geometry and animation.
    Skip,
}

/// Which external files (buffer and image URIs) a model may make throng read.
///
/// A model is untrusted input: without this rule, a URI such as `/etc/passwd`,
/// `../../.ssh/id_rsa` or a symbolic link out of the folder would make a bake read files the
/// user never handed over. Data URIs and the GLB binary chunk are always read.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ExternalFiles {
    /// Only regular files inside the model's folder or its subfolders: no absolute path or
    /// `file:` URI, no `..` that climbs out, no symbolic link that leads out (checked on the
    /// canonical paths, before anything is opened). A refused buffer is an error; a refused
    /// image is a warning and its materials are drawn untextured, as for any unreadable image.
    #[default]
    ModelFolder,
    /// Any regular file: relative paths may climb out of the model's folder, and absolute
    /// paths and `file:` URIs are read. For trusted pipelines, such as models in `models/`
    /// that share `../textures/` (`throng --allow-outside-uris`). Devices, FIFOs and folders
    /// are still refused, and so are URI schemes other than `file:` and `data:`.
    Anywhere,
}

/// Options for [`load`] and [`load_bytes`].
#[derive(Clone, Copy, Debug, Default)]
pub struct ImportOptions {
    /// Whether animations are merged into one clip (default: [`MergeAnimations::Auto`]).
    pub merge_animations: MergeAnimations,
    /// Whether base-colour images are decoded (default: [`Images::Load`]).
    pub images: Images,
    /// Which files buffer and image URIs may name (default: [`ExternalFiles::ModelFolder`]).
    pub external_files: ExternalFiles,
}

/// Where a mesh came from in the glTF file (indices into `nodes`, `meshes`, `primitives`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PrimitiveRef {
    /// glTF node index.
    pub node: usize,
    /// glTF mesh index.
    pub mesh: usize,
    /// Primitive index within the mesh.
    pub primitive: usize,
}

/// A mesh of an imported model with its origin in the file.
#[derive(Clone, Debug)]
pub struct ModelMesh {
    /// The glTF primitive it was read from.
    pub source: PrimitiveRef,
    /// The mesh, bound to the model's skeleton.
    pub mesh: SkinnedMesh,
}

/// An imported character: skeleton, clips, meshes and materials, validated.
#[derive(Clone, Debug)]
pub struct Model {
    /// The file name it came from (used in messages).
    pub name: String,
    /// The skeleton (joints parents-first).
    pub skeleton: Skeleton,
    /// glTF node index of each joint.
    pub joint_nodes: Vec<usize>,
    /// Per joint: whether it is a joint of a glTF skin. The others are added by throng:
    /// animated ancestors, nodes between joints, static props, and aliases for skins whose
    /// inverse binds differ (see docs/IMPORT.md).
    pub joint_in_skin: Vec<bool>,
    /// Clips, in file order (or one merged clip).
    pub clips: Vec<Clip>,
    /// Parallel to `clips`: the indices into the glTF file's `animations` each clip came from,
    /// ascending. One index per clip, or several for a clip merged from animations that drive
    /// disjoint joints (see [`MergeAnimations`]).
    pub clip_sources: Vec<Vec<usize>>,
    /// Meshes, one per triangle primitive, in scene order.
    pub meshes: Vec<ModelMesh>,
    /// Materials referenced by `SkinnedMesh::material`.
    pub materials: Vec<Material>,
    /// Things that were ignored or approximated (morph targets, skipped primitives...).
    pub warnings: Vec<String>,
    /// Things that were done on the user's behalf (merged animations).
    pub notes: Vec<String>,
}

impl Model {
    /// Finds a clip by name, or by index when `key` is a number.
    pub fn find_clip(&self, key: &str) -> Option<usize> {
        self.clips
            .iter()
            .position(|c| c.name() == key)
            .or_else(|| key.parse::<usize>().ok().filter(|i| *i < self.clips.len()))
    }

    /// Bounds of all meshes in the bind pose (bind space).
    pub fn bind_bounds(&self) -> Aabb {
        self.meshes
            .iter()
            .fold(Aabb::EMPTY, |b, m| b.union(m.mesh.bounds()))
    }
}

/// Loads a .glb or .gltf file.
///
/// # Errors
/// [`ImportError`] naming the file and the element at fault; never panics on bad input:
/// [`ImportError::Io`] when it cannot be read, is not a regular file or is over the size
/// limit of models ([`crate::input`]); [`ImportError::Parse`] when it is not valid glTF or
/// GLB; [`ImportError::Invalid`] for content that cannot be used (a bad accessor, an
/// unusable skin or animation ...); [`ImportError::Anim`] or [`ImportError::Mesh`] when the
/// skeleton, a clip or a mesh fails validation.
pub fn load(path: &Path, options: &ImportOptions) -> Result<Model, ImportError> {
    let file = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let io = |cause| ImportError::Io {
        file: file.clone(),
        what: "model",
        path: path.to_path_buf(),
        cause,
    };
    // A device or a FIFO given as the model would be read forever: refused unopened.
    let bytes = crate::input::read(path, crate::input::Kind::Model).map_err(io)?;
    gltf::import(&bytes, &file, Some(gltf::folder_of(path)), options)
}

/// A file that importing a model reads ([`source_files`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceFile {
    /// The file, as it is read.
    pub path: std::path::PathBuf,
    /// The element of the model that names it (`buffer 0 ('body')`, `image 2`); `None` for
    /// the model itself.
    pub element: Option<String>,
}

/// Every file importing `path` with `external` reads: the model and the external buffers and
/// images it refers to (for a bake to notice when any of them changes). A model or buffer that
/// does not exist is listed anyway (reading it is what reports the error); an image that
/// cannot be read is left out, as importing only warns about it. A URI that `external`
/// refuses is left out, so that nothing reads it on the model's behalf.
pub fn source_files(path: &Path, external: ExternalFiles) -> Vec<SourceFile> {
    let mut files = vec![SourceFile {
        path: path.to_path_buf(),
        element: None,
    }];
    if let Ok(bytes) = crate::input::read(path, crate::input::Kind::Model) {
        files.extend(
            gltf::external_files(&bytes, gltf::folder_of(path), external)
                .into_iter()
                .map(|(path, element)| SourceFile {
                    path,
                    element: Some(element),
                }),
        );
    }
    files
}

/// Loads a model from memory. `name` is used in messages; external files cannot be resolved,
/// so buffers and images must be embedded (GLB chunk or data URIs).
///
/// # Errors
/// As [`load`].
pub fn load_bytes(bytes: &[u8], name: &str, options: &ImportOptions) -> Result<Model, ImportError> {
    gltf::import(bytes, name, None, options)
}
