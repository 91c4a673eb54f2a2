//! Skinned triangle meshes and their materials, independent of any file format.
//!
//! - [`SkinnedMesh`]: positions, normals, UVs, four joint influences per vertex, indices.
//! - [`Material`]: base colour factor and optional decoded base-colour texture.
//! - [`Aabb`]: axis-aligned bounds.
//! - [`generate`] / [`simplify`] ([`LodLevel`]): LOD levels made with the meshoptimizer
//!   simplifier, keeping the skin attributes of the vertices they keep; flat-shaded and
//!   many-island meshes are simplified over welded vertex copies ([`LodMethod`]).

mod bounds;
mod lod;
mod material;
mod skinned;
mod weld;

pub use bounds::Aabb;
pub use lod::{LodError, LodLevel, LodMethod, LodOptions, generate, level_budget, simplify};
pub use material::{Material, Texture};
pub use skinned::{MeshError, SkinnedMesh, smooth_normals};
