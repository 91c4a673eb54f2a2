//! The CPU skinning path: the same baked texels (read in place from the mapped file), the same
//! arithmetic as `skinning.wgsl` (frame interpolation, cross-fade, linear blend skinning with a
//! cofactor normal), run with rayon. It feeds the fallback renderer and is the reference the
//! GPU parity tests compare with. No wgpu here.
//!
//! A pose's joint matrices are blended once per instance into a [`SkinPalette`] (its frames
//! interpolated and cross-faded, f16 texels converted, rows turned into columns), and every
//! vertex then sums its influences from it. The shader does the same blend per vertex, which
//! on a CPU would repeat it for every vertex a joint moves. The sums are the same operations
//! in the same order, so the result is bit for bit what blending per vertex gives.

use std::cell::RefCell;

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec3A};
use rayon::prelude::*;

use crate::crowd::FramePose;
use crate::crowd::frame::record::{Rows, joint_rows};
use crate::format::Texels;
use crate::format::records::VertexRecord;

/// A skinned vertex in model space, as the fallback's vertex buffer holds it (32 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct SkinnedVertex {
    /// Position, model units.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Texture coordinate.
    pub uv: [f32; 2],
}

/// A joint's skinning matrix as its four columns (the 3x3 part, then the translation): a
/// vertex is moved by three multiply-adds of whole columns, where the texels' rows would need
/// three dot products, and the cofactor normal reads the columns as they are.
pub type Columns = [Vec3A; 4];

/// The columns of the matrix whose top three rows are `r`.
#[inline]
fn columns(r: &Rows) -> Columns {
    [
        Vec3A::new(r[0].x, r[1].x, r[2].x),
        Vec3A::new(r[0].y, r[1].y, r[2].y),
        Vec3A::new(r[0].z, r[1].z, r[2].z),
        Vec3A::new(r[0].w, r[1].w, r[2].w),
    ]
}

/// One pose's joint matrices, blended from the texels once for all the vertices skinned with
/// it.
#[derive(Clone, Debug, Default)]
pub struct SkinPalette {
    joints: Vec<Columns>,
}

impl SkinPalette {
    /// An empty palette; [`SkinPalette::fill`] sizes it.
    pub fn new() -> Self {
        Self::default()
    }

    /// Blends joints `0..joints` of `pose` (as `joint_rows` in skinning.wgsl). Reuses its
    /// storage, so refilling for another pose allocates nothing once it has held `joints`.
    pub fn fill(&mut self, t: &Texels, pose: &FramePose, joints: usize) {
        self.joints.clear();
        self.joints
            .extend((0..joints as u32).map(|j| columns(&joint_rows(t, pose, j))));
    }

    /// Skins one vertex, as `skin` in skinning.wgsl: model-space position and unit normal.
    ///
    /// # Panics
    /// If a joint the vertex weighs is not in the palette.
    #[inline]
    pub fn skin_vertex(&self, v: &VertexRecord) -> (Vec3, Vec3) {
        skinned(v, |j| self.joints[usize::from(j)])
    }

    /// Skins `vertices` into `out` (as many as both hold), on this thread.
    pub fn skin_into(&self, vertices: &[VertexRecord], out: &mut [SkinnedVertex]) {
        for (o, v) in out.iter_mut().zip(vertices) {
            let (p, n) = self.skin_vertex(v);
            *o = SkinnedVertex {
                position: p.to_array(),
                normal: n.to_array(),
                uv: v.uv,
            };
        }
    }
}

thread_local! {
    /// Each thread's palette, so that skinning a frame allocates nothing once warm.
    static PALETTE: RefCell<SkinPalette> = RefCell::new(SkinPalette::new());
}

/// Runs `f` with this thread's palette filled with joints `0..joints` of `pose`.
pub fn with_palette<R>(
    t: &Texels,
    pose: &FramePose,
    joints: usize,
    f: impl FnOnce(&SkinPalette) -> R,
) -> R {
    PALETTE.with_borrow_mut(|palette| {
        palette.fill(t, pose, joints);
        f(palette)
    })
}

/// The number of joints `vertices` weigh: one more than the largest joint index with a
/// non-zero weight (0 when there are none).
pub fn joints_used(vertices: &[VertexRecord]) -> usize {
    vertices
        .iter()
        .flat_map(|v| v.joints.iter().zip(v.weights))
        .filter(|(_, w)| *w != 0.0)
        .map(|(j, _)| usize::from(*j) + 1)
        .max()
        .unwrap_or(0)
}

/// Skins one vertex for `pose`, as `skin` in skinning.wgsl: model-space position and unit
/// normal. Blends each of its joints from the texels; to skin many vertices with one pose, a
/// [`SkinPalette`] blends each joint once (with the same result, bit for bit).
#[inline]
pub fn skin_vertex(t: &Texels, pose: &FramePose, v: &VertexRecord) -> (Vec3, Vec3) {
    skinned(v, |j| columns(&joint_rows(t, pose, u32::from(j))))
}

/// The point and normal of `v` moved by the sum of its influences' matrices (`joint(j)`:
/// joint `j`'s columns) weighted; the normal goes through the cofactor of the 3x3 part (right
/// under non-uniform scale and mirroring) and is normalised.
#[inline]
fn skinned(v: &VertexRecord, joint: impl Fn(u16) -> Columns) -> (Vec3, Vec3) {
    let mut m = [Vec3A::ZERO; 4];
    for (j, w) in v.joints.iter().zip(v.weights) {
        if w != 0.0 {
            let c = joint(*j);
            m = [
                m[0] + c[0] * w,
                m[1] + c[1] * w,
                m[2] + c[2] * w,
                m[3] + c[3] * w,
            ];
        }
    }
    let [c0, c1, c2, t] = m;
    let [px, py, pz] = v.position;
    let position = c0 * px + c1 * py + c2 * pz + t;
    let [nx, ny, nz] = v.normal;
    // cof * n, with cof's columns c1×c2, c2×c0, c0×c1.
    let c12 = c1.cross(c2);
    let mut normal = c12 * nx + c2.cross(c0) * ny + c0.cross(c1) * nz;
    if c0.dot(c12) < 0.0 {
        normal = -normal;
    }
    (position.into(), normal.normalize_or_zero().into())
}

/// Skins `vertices` for every pose in `poses` into `out`, pose-major (`out` holds
/// `poses × vertices` entries; extra entries are left alone), in parallel over poses, each
/// pose's joints blended once. Allocates nothing once each thread's palette is warm, so a
/// frame can reuse one buffer.
pub fn skin_instances(
    t: &Texels,
    poses: &[FramePose],
    vertices: &[VertexRecord],
    out: &mut [SkinnedVertex],
) {
    if vertices.is_empty() {
        return;
    }
    let joints = joints_used(vertices);
    out.par_chunks_mut(vertices.len())
        .zip(poses.par_iter())
        .for_each(|(dst, pose)| with_palette(t, pose, joints, |p| p.skin_into(vertices, dst)));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Eight joints in four frames of varied (not rigid) rows, and vertices of one to four
    /// influences.
    fn fixture() -> (Vec<[f32; 4]>, Vec<VertexRecord>) {
        let texels: Vec<[f32; 4]> = (0..4 * 8 * 3)
            .map(|i| {
                let x = i as f32;
                [
                    (x * 0.37).sin(),
                    (x * 0.11).cos(),
                    0.5 + (x * 0.05).sin(),
                    x * 0.01,
                ]
            })
            .collect();
        let vertices = (0..40u16)
            .map(|i| {
                let f = f32::from(i);
                let weights = match i % 4 {
                    0 => [1.0, 0.0, 0.0, 0.0],
                    1 => [0.75, 0.25, 0.0, 0.0],
                    2 => [0.5, 0.3, 0.2, 0.0],
                    _ => [0.4, 0.3, 0.2, 0.1],
                };
                VertexRecord {
                    position: [f * 0.1, 1.0 - f * 0.02, 0.3],
                    normal: [0.0, 0.6, 0.8],
                    uv: [0.0, 0.0],
                    joints: [i % 8, (i + 3) % 8, (i + 5) % 7, 1],
                    weights,
                }
            })
            .collect();
        (texels, vertices)
    }

    #[test]
    fn a_palette_skins_bit_for_bit_as_blending_per_vertex() {
        let (texels, vertices) = fixture();
        let halves: Vec<[u16; 4]> = texels
            .iter()
            .map(|t| t.map(|x| half::f16::from_f32(x).to_bits()))
            .collect();
        // A cross-fade between two interpolated animations: every blend the shader has.
        let pose = FramePose {
            a0: 0,
            a1: 8,
            aw: 0.3,
            b0: 16,
            b1: 24,
            bw: 0.6,
            fade: 0.45,
        };
        for t in [Texels::F32(&texels), Texels::F16(&halves)] {
            let joints = joints_used(&vertices);
            assert_eq!(joints, 8);
            let mut out = vec![SkinnedVertex::default(); vertices.len()];
            skin_instances(&t, &[pose], &vertices, &mut out);
            for (v, o) in vertices.iter().zip(&out) {
                let (p, n) = skin_vertex(&t, &pose, v);
                assert_eq!(o.position, p.to_array());
                assert_eq!(o.normal, n.to_array());
            }
        }
    }

    #[test]
    fn joints_used_ignores_zero_weights() {
        let (_, mut vertices) = fixture();
        vertices.truncate(1);
        vertices[0].joints = [2, 9, 0, 0];
        vertices[0].weights = [1.0, 0.0, 0.0, 0.0];
        assert_eq!(joints_used(&vertices), 3);
        assert_eq!(joints_used(&[]), 0);
    }
}
