//! The ground's triangles for a [`Terrain`]: the flat plaza as one square; the relief as a
//! grid over its extent whose lines include every step edge, each cell with its own corners
//! (sampled just inside it, so that a step's edge splits cells rather than slanting across
//! one), vertical risers wherever neighbouring cells meet at different heights, and a flat
//! ring out to the ground's edge. CPU only.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;

use crate::crowd::plaza::terrain::{
    RAMP_LENGTH, RELIEF_RADIUS, STEPS, TERRACE_MAX, TERRACE_MIN, TREAD, Terrain,
};

/// A ground vertex: world position, unit normal, material.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct GroundVertex {
    /// World position, metres.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// 1 on the relief's built parts (terrace, steps, ramp: stone), 0 on the plaza.
    pub stone: f32,
}

/// Spacing of the relief's grid, metres: its slopes' waves are 40 m and more long, so 1 m
/// cells follow them within a few millimetres; the steps' and the ramp's edges are grid lines
/// of their own.
const CELL: f32 = 1.0;

/// How far inside a cell its corners are sampled, metres: the heights of the cell's own side
/// of an edge.
const INSIDE: f32 = 1e-3;

/// Neighbouring cells whose shared corners differ by more than this, metres, get a riser
/// between them (slopes and the ramp are continuous; steps jump by a rise).
const JUMP: f32 = 1e-3;

/// The ground of `terrain` out to `half` metres either side of the origin (at least the
/// relief's extent): vertices and triangle indices, front faces up (risers facing their lower
/// side).
pub fn ground_mesh(terrain: Terrain, half: f32) -> (Vec<GroundVertex>, Vec<u32>) {
    let mut mesh = Mesh::default();
    match terrain {
        Terrain::Flat => mesh.flat(-half, half, -half, half),
        Terrain::Relief => {
            let extent = (1.5 * RELIEF_RADIUS).ceil();
            let half = half.max(extent + 1.0);
            mesh.relief(terrain, extent);
            // The flat ring around it.
            mesh.flat(-half, half, -half, -extent);
            mesh.flat(-half, half, extent, half);
            mesh.flat(-half, -extent, -extent, extent);
            mesh.flat(extent, half, -extent, extent);
        }
    }
    (mesh.vertices, mesh.indices)
}

/// Grid lines from `-extent` to `extent` every [`CELL`], with `edges` added, sorted, without
/// duplicates.
fn lines(extent: f32, edges: impl IntoIterator<Item = f32>) -> Vec<f32> {
    let n = (2.0 * extent / CELL).round() as i32;
    let mut v: Vec<f32> = (0..=n)
        .map(|i| -extent + i as f32 * CELL)
        .chain(edges)
        .collect();
    v.sort_by(f32::total_cmp);
    v.dedup_by(|a, b| (*a - *b).abs() < 10.0 * INSIDE);
    v
}

#[derive(Default)]
struct Mesh {
    vertices: Vec<GroundVertex>,
    indices: Vec<u32>,
}

impl Mesh {
    /// A quad of corners `p` facing `normal` (wound so that its front faces that way), of
    /// material `stone`.
    fn quad(&mut self, p: [Vec3; 4], normal: Vec3, stone: f32) {
        let base = self.vertices.len() as u32;
        for q in p {
            self.vertices.push(GroundVertex {
                position: q.to_array(),
                normal: normal.to_array(),
                stone,
            });
        }
        let facing = (p[1] - p[0]).cross(p[2] - p[0]).dot(normal) >= 0.0;
        let order = if facing {
            [0, 1, 2, 0, 2, 3]
        } else {
            [0, 2, 1, 0, 3, 2]
        };
        self.indices.extend(order.map(|i| base + i));
    }

    /// A flat quad at y = 0 over x in `x0..x1`, z in `z0..z1`.
    fn flat(&mut self, x0: f32, x1: f32, z0: f32, z1: f32) {
        self.quad(
            [
                Vec3::new(x0, 0.0, z0),
                Vec3::new(x0, 0.0, z1),
                Vec3::new(x1, 0.0, z1),
                Vec3::new(x1, 0.0, z0),
            ],
            Vec3::Y,
            0.0,
        );
    }

    /// The relief's grid over `-extent..extent` (x and z), with its risers.
    fn relief(&mut self, terrain: Terrain, extent: f32) {
        let steps = |from: f32, sign: f32| (0..STEPS).map(move |j| from + sign * j as f32 * TREAD);
        let xs = lines(
            extent,
            steps(TERRACE_MIN.x, -1.0)
                .chain(steps(TERRACE_MAX.x, 1.0))
                .chain([TERRACE_MAX.x + RAMP_LENGTH]),
        );
        let zs = lines(
            extent,
            steps(TERRACE_MIN.y, -1.0).chain(steps(TERRACE_MAX.y, 1.0)),
        );
        // A cell's corner heights, sampled just inside it: [x0z0, x0z1, x1z1, x1z0].
        let corners = |i: usize, j: usize| {
            let (x0, x1, z0, z1) = (xs[i], xs[i + 1], zs[j], zs[j + 1]);
            [(x0, z0), (x0, z1), (x1, z1), (x1, z0)].map(|(x, z)| {
                let inside_x = x + if x == x0 { INSIDE } else { -INSIDE };
                let inside_z = z + if z == z0 { INSIDE } else { -INSIDE };
                (
                    Vec3::new(x, terrain.height(inside_x, inside_z), z),
                    (inside_x, inside_z),
                )
            })
        };
        for i in 0..xs.len() - 1 {
            for j in 0..zs.len() - 1 {
                let c = corners(i, j);
                let base = self.vertices.len() as u32;
                let middle = (0.5 * (xs[i] + xs[i + 1]), 0.5 * (zs[j] + zs[j + 1]));
                let stone = f32::from(u8::from(terrain.built(middle.0, middle.1)));
                for (p, (x, z)) in c {
                    self.vertices.push(GroundVertex {
                        position: p.to_array(),
                        normal: terrain.normal(x, z).to_array(),
                        stone,
                    });
                }
                // Corners in order x0z0, x0z1, x1z1: front face up.
                self.indices.extend([0, 1, 2, 0, 2, 3].map(|k| base + k));
                // Risers against the cells on the +x and +z sides.
                if i + 1 < xs.len() - 1 {
                    let n = corners(i + 1, j);
                    // This cell's x1 edge (x1z0, x1z1) against the next one's x0 edge.
                    self.riser([c[3].0, c[2].0], [n[0].0, n[1].0], Vec3::X);
                }
                if j + 1 < zs.len() - 1 {
                    let n = corners(i, j + 1);
                    self.riser([c[1].0, c[2].0], [n[0].0, n[3].0], Vec3::Z);
                }
            }
        }
    }

    /// A vertical face between edge `a` of one cell and the same edge `b` of its neighbour
    /// along `axis` (+x or +z), where they differ in height: facing the lower side.
    fn riser(&mut self, a: [Vec3; 2], b: [Vec3; 2], axis: Vec3) {
        let jump = (a[0].y - b[0].y).abs().max((a[1].y - b[1].y).abs());
        if jump <= JUMP {
            return;
        }
        // The neighbour (+axis) is lower: the face looks towards it.
        let normal = if b[0].y + b[1].y < a[0].y + a[1].y {
            axis
        } else {
            -axis
        };
        // Risers are the steps' faces: stone.
        self.quad([a[0], a[1], b[1], b[0]], normal, 1.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flat_ground_is_one_square_facing_up() {
        let (v, i) = ground_mesh(Terrain::Flat, 200.0);
        assert_eq!((v.len(), i.len()), (4, 6));
        assert!(
            v.iter()
                .all(|v| v.position[1] == 0.0 && v.normal == [0.0, 1.0, 0.0])
        );
    }

    /// The geometric normal of triangle `t` of the mesh.
    fn facing(v: &[GroundVertex], t: &[u32]) -> Vec3 {
        let p = |k: usize| Vec3::from(v[t[k] as usize].position);
        (p(1) - p(0)).cross(p(2) - p(0))
    }

    #[test]
    fn the_relief_follows_the_height_field_with_risers_at_the_steps() {
        let t = Terrain::Relief;
        let (v, idx) = ground_mesh(t, 200.0);
        let (mut up, mut risers) = (0, 0);
        for tri in idx.chunks_exact(3) {
            let n = facing(&v, tri);
            // Every front face looks the way its vertices' normal says (up-ish for ground,
            // sideways for risers).
            let said = Vec3::from(v[tri[0] as usize].normal);
            let ps: Vec<[f32; 3]> = tri.iter().map(|&k| v[k as usize].position).collect();
            assert!(
                n.dot(said) > 0.0,
                "a triangle faces away from its normal {said}: {ps:?} ({n})"
            );
            if said.y > 0.5 {
                up += 1;
            } else {
                risers += 1;
            }
        }
        // Steps on three sides and the corners: risers along all of them.
        assert!(
            risers >= 2 * 3 * (STEPS as usize) * 8,
            "{risers} riser triangles"
        );
        assert!(up > 2 * 100 * 100);
        // Every grid vertex lies on the height field, sampled from its cell's side.
        for p in v.iter().map(|v| Vec3::from(v.position)) {
            if p.x.abs() < 59.0 && p.z.abs() < 59.0 {
                let near = [-INSIDE, INSIDE]
                    .iter()
                    .flat_map(|dx| [-INSIDE, INSIDE].map(|dz| t.height(p.x + dx, p.z + dz)));
                assert!(
                    near.into_iter().any(|h| (h - p.y).abs() < 1e-5),
                    "{p} is off the ground"
                );
            }
        }
    }

    #[test]
    fn a_step_edge_is_a_grid_line_with_a_riser_one_rise_high() {
        let (v, idx) = ground_mesh(Terrain::Relief, 200.0);
        // The terrace's −x edge at x = 4, z = 0: a riser from the first tread to the top.
        let found = idx.chunks_exact(3).any(|tri| {
            let ps: Vec<Vec3> = tri
                .iter()
                .map(|&k| Vec3::from(v[k as usize].position))
                .collect();
            let n = Vec3::from(v[tri[0] as usize].normal);
            n == -Vec3::X
                && ps.iter().all(|p| (p.x - TERRACE_MIN.x).abs() < 1e-6)
                && ps.iter().any(|p| p.z.abs() < 1.0)
        });
        assert!(found, "no riser facing −x at the terrace's edge");
    }
}
