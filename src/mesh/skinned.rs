//! The skinned triangle mesh shared by import, baking and rendering.

use glam::{Mat4, Vec2, Vec3};
use thiserror::Error;

use super::bounds::Aabb;
use crate::anim::{skin_normals, skin_positions};

/// What is wrong with a mesh's arrays.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum MeshError {
    /// Per-vertex arrays disagree in length.
    #[error("mesh '{mesh}': {what} has {found} elements, mesh has {vertices} vertices")]
    AttributeLength {
        /// The mesh's name.
        mesh: String,
        /// The attribute that disagrees, by its glTF name: "NORMAL", "TEXCOORD_0", "JOINTS_0"
        /// or "WEIGHTS_0".
        what: &'static str,
        /// The attribute's number of elements.
        found: usize,
        /// The mesh's number of vertices (its positions).
        vertices: usize,
    },
    /// The index count is not a multiple of three or an index is out of range.
    #[error("mesh '{mesh}': {what}")]
    BadIndices {
        /// The mesh's name.
        mesh: String,
        /// What is wrong, e.g. "index 42 is 1800, but the mesh has 1728 vertices".
        what: String,
    },
    /// A vertex references a joint the skeleton does not have, or its weights are unusable.
    #[error("mesh '{mesh}', vertex {vertex}: {what}")]
    BadInfluence {
        /// The mesh's name.
        mesh: String,
        /// The vertex's index in the mesh.
        vertex: usize,
        /// What is wrong with it: a joint index out of range, weights that are negative, not
        /// finite or do not sum to 1, or a position or normal that is not finite.
        what: String,
    },
}

/// A triangle mesh bound to a skeleton with up to four influences per vertex.
///
/// Positions and normals are in bind space: skinning matrices map them to model space. A rigid
/// part (a mesh that hung from one joint in the source file) has every vertex bound 100% to that
/// joint.
#[derive(Clone, Debug, Default)]
pub struct SkinnedMesh {
    /// A readable name, for messages and `inspect`.
    pub name: String,
    /// Vertex positions, metres, bind space.
    pub positions: Vec<Vec3>,
    /// Unit vertex normals, bind space.
    pub normals: Vec<Vec3>,
    /// Texture coordinates (glTF convention: origin top-left).
    pub uvs: Vec<Vec2>,
    /// Four joint indices per vertex; unused slots have weight 0.
    pub joints: Vec<[u16; 4]>,
    /// Four weights per vertex, non-negative, summing to 1, largest first.
    pub weights: Vec<[f32; 4]>,
    /// Triangle list, three indices per triangle.
    pub indices: Vec<u32>,
    /// Index into the model's materials.
    pub material: usize,
    /// True for a rigid part bound to a single joint.
    pub rigid: bool,
}

impl SkinnedMesh {
    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.indices.len() / 3
    }

    /// The largest number of non-zero influences on any vertex (0..=4).
    pub fn max_influences(&self) -> usize {
        self.weights
            .iter()
            .map(|w| w.iter().filter(|x| **x > 0.0).count())
            .max()
            .unwrap_or(0)
    }

    /// Bounds of the bind-space positions.
    pub fn bounds(&self) -> Aabb {
        Aabb::from_points(&self.positions)
    }

    /// Checks array lengths, indices and influences against a skeleton of `joint_count` joints.
    ///
    /// # Errors
    /// Naming the mesh and the first offending element: [`MeshError::AttributeLength`] when a
    /// per-vertex array is not one per position, [`MeshError::BadIndices`] for an index count
    /// that is not a multiple of 3 or an index out of range, [`MeshError::BadInfluence`] for a
    /// joint index out of range, bad weights, or a non-finite position or normal.
    pub fn validate(&self, joint_count: usize) -> Result<(), MeshError> {
        let n = self.positions.len();
        let lengths = [
            ("NORMAL", self.normals.len()),
            ("TEXCOORD_0", self.uvs.len()),
            ("JOINTS_0", self.joints.len()),
            ("WEIGHTS_0", self.weights.len()),
        ];
        for (what, found) in lengths {
            if found != n {
                return Err(MeshError::AttributeLength {
                    mesh: self.name.clone(),
                    what,
                    found,
                    vertices: n,
                });
            }
        }
        if !self.indices.len().is_multiple_of(3) {
            return Err(MeshError::BadIndices {
                mesh: self.name.clone(),
                what: format!(
                    "{} indices is not a whole number of triangles",
                    self.indices.len()
                ),
            });
        }
        if let Some((i, v)) = self
            .indices
            .iter()
            .enumerate()
            .find(|(_, v)| **v as usize >= n)
        {
            return Err(MeshError::BadIndices {
                mesh: self.name.clone(),
                what: format!("index {i} is {v}, but the mesh has {n} vertices"),
            });
        }
        for (vertex, (j, w)) in self.joints.iter().zip(&self.weights).enumerate() {
            let bad = |what: String| MeshError::BadInfluence {
                mesh: self.name.clone(),
                vertex,
                what,
            };
            if let Some(k) = (0..4).find(|&k| w[k] > 0.0 && usize::from(j[k]) >= joint_count) {
                return Err(bad(format!(
                    "joint index {} is out of range (skeleton has {joint_count} joints)",
                    j[k]
                )));
            }
            let sum: f32 = w.iter().sum();
            if !w.iter().all(|x| x.is_finite() && *x >= 0.0) || (sum - 1.0).abs() > 1e-3 {
                return Err(bad(format!("weights {w:?} do not sum to 1")));
            }
        }
        if let Some(i) = self.positions.iter().position(|p| !p.is_finite()) {
            return Err(bad_vertex(&self.name, i, "position is not finite"));
        }
        if let Some(i) = self.normals.iter().position(|p| !p.is_finite()) {
            return Err(bad_vertex(&self.name, i, "normal is not finite"));
        }
        Ok(())
    }

    /// Skins this mesh with `matrices` (one per joint) into model-space positions and normals.
    /// `positions` and `normals` are resized to the vertex count.
    pub fn skin(&self, matrices: &[Mat4], positions: &mut Vec<Vec3>, normals: &mut Vec<Vec3>) {
        let n = self.vertex_count();
        positions.resize(n, Vec3::ZERO);
        normals.resize(n, Vec3::ZERO);
        skin_positions(
            matrices,
            &self.positions,
            &self.joints,
            &self.weights,
            positions,
        );
        skin_normals(
            matrices,
            &self.normals,
            &self.joints,
            &self.weights,
            normals,
        );
    }
}

/// Area-weighted smooth vertex normals of a triangle list (for meshes that have none).
/// Vertices on no triangle, or only on degenerate ones, get +Y.
pub fn smooth_normals(positions: &[Vec3], indices: &[u32]) -> Vec<Vec3> {
    let mut acc = vec![Vec3::ZERO; positions.len()];
    for tri in indices.chunks_exact(3) {
        let [a, b, c] = [tri[0] as usize, tri[1] as usize, tri[2] as usize];
        // Cross product length is twice the area: larger faces weigh more.
        let face = (positions[b] - positions[a]).cross(positions[c] - positions[a]);
        for v in [a, b, c] {
            acc[v] += face;
        }
    }
    acc.into_iter()
        .map(|n| n.try_normalize().unwrap_or(Vec3::Y))
        .collect()
}

fn bad_vertex(mesh: &str, vertex: usize, what: &str) -> MeshError {
    MeshError::BadInfluence {
        mesh: mesh.to_string(),
        vertex,
        what: what.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smooth_normals_of_a_square() {
        let p = [
            Vec3::ZERO,
            Vec3::X,
            Vec3::new(1.0, 0.0, -1.0),
            Vec3::new(0.0, 0.0, -1.0),
        ];
        let n = smooth_normals(&p, &[0, 1, 2, 0, 2, 3]);
        for x in n {
            assert!(x.abs_diff_eq(Vec3::Y, 1e-6));
        }
    }
}
