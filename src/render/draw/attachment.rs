//! Attachments: prop meshes on a named joint (a socket), drawn instanced with the crowd and
//! skinned by the same baked matrices. A prop's vertices sit in the character's bind space
//! and are bound to the one joint with weight 1, so the skinning shader moves them rigidly
//! with that joint: no extra shader, no extra per-instance data.

use glam::{Mat4, Vec3};

use crate::format::ThrongFile;
use crate::format::records::VertexRecord;
use crate::render::error::RenderError;

/// A prop bound to one joint of one character.
#[derive(Clone, Debug, PartialEq)]
pub struct Attachment {
    /// What it is, for messages and the panel.
    pub name: String,
    /// The character (index in the bake) that wears it.
    pub character: u32,
    /// The joint within the character.
    pub joint: u32,
    /// The coarsest LOD level it is drawn at (it is too small to matter further away).
    pub max_level: u32,
    /// Vertices in the character's bind space, bound to `joint` with weight 1.
    pub vertices: Vec<VertexRecord>,
    /// Triangles (counter-clockwise seen from outside).
    pub indices: Vec<u32>,
    /// Base colour, linear RGBA in [0, 1].
    pub color: [f32; 4],
}

/// Segments around a hat.
const SEGMENTS: u32 = 16;

impl Attachment {
    /// A brimmed hat on joint `joint` (by name) of `character`, resting on the top of the
    /// geometry that joint carries (the vertices whose main influence it is), sized to it,
    /// drawn up to LOD level `max_level`.
    ///
    /// # Errors
    /// [`RenderError::Unsupported`] when the character or joint does not exist or no vertex
    /// of LOD 0 follows the joint.
    pub fn hat(
        file: &ThrongFile,
        character: u32,
        joint: &str,
        max_level: u32,
        color: [f32; 4],
    ) -> Result<Self, RenderError> {
        let fail = |what: String| RenderError::Unsupported {
            file: file.name().to_string(),
            what,
        };
        let c = file
            .characters()
            .get(character as usize)
            .ok_or_else(|| fail(format!("no character {character} to attach a hat to")))?;
        let cname = file.str(c.name).to_string();
        let joints = &file.joints()[c.first_joint as usize..][..c.joint_count as usize];
        let j = joints
            .iter()
            .position(|r| file.str(r.name) == joint)
            .ok_or_else(|| {
                fail(format!(
                    "character '{cname}' has no joint '{joint}' for a hat"
                ))
            })?;
        let bind = Mat4::from_cols_array(&joints[j].inverse_bind).inverse();
        let origin = bind.w_axis.truncate();
        // The geometry the joint carries, at LOD 0: its top and its radius about the joint.
        let mut top = f32::NEG_INFINITY;
        let mut carried = Vec::new();
        for (mi, m) in file.meshes().iter().enumerate() {
            if m.character != character || m.lod != 0 {
                continue;
            }
            for v in file.mesh_data(mi).0 {
                if usize::from(v.joints[0]) == j && v.weights[0] >= 0.5 {
                    top = top.max(v.position[1]);
                    carried.push(Vec3::from_array(v.position));
                }
            }
        }
        if carried.is_empty() {
            return Err(fail(format!(
                "no vertex of character '{cname}' follows joint '{joint}', so a hat has nothing to sit on"
            )));
        }
        // Radius of the carried geometry's upper part, about the joint's vertical axis.
        let band = (top - origin.y).max(0.05) * 0.5;
        let radius = carried
            .iter()
            .filter(|p| p.y >= top - band)
            .map(|p| ((p.x - origin.x).powi(2) + (p.z - origin.z).powi(2)).sqrt())
            .fold(0.0f32, f32::max)
            .max(0.03);
        let base = Vec3::new(origin.x, top - radius * 0.35, origin.z);
        let (vertices, indices) = hat_mesh(base, radius * 1.05, radius * 1.9, radius * 1.1, j);
        Ok(Self {
            name: format!("hat on {cname}/{joint}"),
            character,
            joint: j as u32,
            max_level,
            vertices,
            indices,
            color,
        })
    }

    /// Its bounding radius about the joint's bind position, metres at scale 1: how far it
    /// can reach beyond the character's baked bounds.
    pub fn reach(&self) -> f32 {
        let (min, max) = self.vertices.iter().fold(
            (Vec3::splat(f32::INFINITY), Vec3::splat(f32::NEG_INFINITY)),
            |(lo, hi), v| {
                let p = Vec3::from_array(v.position);
                (lo.min(p), hi.max(p))
            },
        );
        ((max - min) * 0.5).length()
    }
}

/// A hat with its crown's base at `base` (bind space, +y up): a crown cylinder of `crown`
/// radius and `height`, capped, on a thin brim of `brim` radius; flat normals; every vertex
/// bound to `joint` with weight 1.
fn hat_mesh(
    base: Vec3,
    crown: f32,
    brim: f32,
    height: f32,
    joint: usize,
) -> (Vec<VertexRecord>, Vec<u32>) {
    let mut vertices = Vec::new();
    let mut indices = Vec::new();
    let vertex = |p: Vec3, n: Vec3| VertexRecord {
        position: p.to_array(),
        normal: n.to_array(),
        uv: [0.0, 0.0],
        joints: [joint as u16, 0, 0, 0],
        weights: [1.0, 0.0, 0.0, 0.0],
    };
    let ring = |k: u32, r: f32, y: f32| {
        let a = k as f32 / SEGMENTS as f32 * std::f32::consts::TAU;
        base + Vec3::new(r * a.sin(), y, r * a.cos())
    };
    let thickness = height * 0.08;
    // Quads around a band between two rings (outward facing), then caps.
    let mut band = |r0: f32, y0: f32, r1: f32, y1: f32| {
        for k in 0..SEGMENTS {
            let (a, b) = (ring(k, r0, y0), ring(k + 1, r0, y0));
            let (c, d) = (ring(k + 1, r1, y1), ring(k, r1, y1));
            let n = (b - a).cross(d - a).normalize_or_zero();
            let first = vertices.len() as u32;
            vertices.extend([a, b, c, d].map(|p| vertex(p, n)));
            indices.extend([first, first + 1, first + 2, first, first + 2, first + 3]);
        }
    };
    band(crown, 0.0, crown, height); // crown wall
    band(brim, -thickness, brim, 0.0); // brim edge
    band(brim, 0.0, crown, 0.0); // brim top (inward rings face up)
    band(crown, -thickness, brim, -thickness); // brim underside (outward rings face down)
    // Crown top cap: a fan facing up.
    let centre = vertices.len() as u32;
    vertices.push(vertex(base + Vec3::Y * height, Vec3::Y));
    for k in 0..SEGMENTS {
        let first = vertices.len() as u32;
        vertices.push(vertex(ring(k, crown, height), Vec3::Y));
        vertices.push(vertex(ring(k + 1, crown, height), Vec3::Y));
        indices.extend([centre, first, first + 1]);
    }
    (vertices, indices)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_triangle_of_a_hat_faces_away_from_its_axis_or_up_or_down() {
        let base = Vec3::new(0.0, 1.6, 0.0);
        let (v, i) = hat_mesh(base, 0.1, 0.2, 0.12, 5);
        assert!(
            v.iter()
                .all(|v| v.joints[0] == 5 && v.weights == [1.0, 0.0, 0.0, 0.0])
        );
        for t in i.chunks_exact(3) {
            let p = [t[0], t[1], t[2]].map(|k| Vec3::from_array(v[k as usize].position));
            let n = (p[1] - p[0]).cross(p[2] - p[0]);
            let centre = (p[0] + p[1] + p[2]) / 3.0;
            let out = Vec3::new(centre.x, 0.0, centre.z);
            // A face's winding normal agrees with its stored normal (counter-clockwise seen
            // from outside), walls face outwards, the underside down, other flat faces up.
            let stored = Vec3::from_array(v[t[0] as usize].normal);
            assert!(n.dot(stored) > 0.0, "winding disagrees with the normal");
            // 1e-4 of the face's size: flat faces lie in one plane up to f32 rounding.
            if n.y.abs() < 1e-4 * n.length() {
                assert!(n.dot(out) > 0.0, "a wall faces inwards");
            } else if centre.y < base.y - 1e-4 {
                assert!(n.y < 0.0, "the brim's underside faces up");
            } else {
                assert!(n.y > 0.0, "a top face faces down");
            }
        }
    }
}
