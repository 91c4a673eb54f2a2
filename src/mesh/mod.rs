//! Skinned triangle meshes and their materials, independent of any file format.
//!
//! - [`SkinnedMesh`]: positions, normals, UVs, four joint influences per vertex, indices.
//! - [`Material`]: base colour factor and optional decoded base-colour texture.
//! - [`Aabb`]: axis-aligned bounds.

mod bounds;
mod material;
mod skinned;

pub use bounds::Aabb;
pub use material::{Material, Texture};
pub use skinned::{MeshError, SkinnedMesh, smooth_normals};
