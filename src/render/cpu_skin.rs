//! The CPU skinning path: the same baked texels (read in place from the mapped file), the same
//! arithmetic as `skinning.wgsl` (frame interpolation, cross-fade, linear blend skinning with a
//! cofactor normal), run with rayon. It feeds the fallback renderer and is the reference the
//! GPU parity tests compare with. No wgpu here.

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

use crate::crowd::FramePose;
use crate::crowd::record::joint_rows;
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

/// Skins one vertex for `pose`, as `skin` in skinning.wgsl: model-space position and unit
/// normal.
#[inline]
pub fn skin_vertex(t: &Texels, pose: &FramePose, v: &VertexRecord) -> (Vec3, Vec3) {
    let mut m = [Vec4::ZERO; 3];
    for (j, w) in v.joints.iter().zip(v.weights) {
        if w != 0.0 {
            let r = joint_rows(t, pose, u32::from(*j));
            m = [m[0] + r[0] * w, m[1] + r[1] * w, m[2] + r[2] * w];
        }
    }
    let h = Vec3::from(v.position).extend(1.0);
    let position = Vec3::new(m[0].dot(h), m[1].dot(h), m[2].dot(h));
    let c0 = Vec3::new(m[0].x, m[1].x, m[2].x);
    let c1 = Vec3::new(m[0].y, m[1].y, m[2].y);
    let c2 = Vec3::new(m[0].z, m[1].z, m[2].z);
    let n = Vec3::from(v.normal);
    // cof * n, with cof's columns c1×c2, c2×c0, c0×c1.
    let mut normal = c1.cross(c2) * n.x + c2.cross(c0) * n.y + c0.cross(c1) * n.z;
    if c0.dot(c1.cross(c2)) < 0.0 {
        normal = -normal;
    }
    (position, normal.normalize_or_zero())
}

/// Skins `vertices` for every pose in `poses` into `out`, pose-major (`out` holds
/// `poses × vertices` entries; extra entries are left alone), in parallel over poses.
/// Allocates nothing, so a frame can reuse one buffer.
pub fn skin_instances(
    t: &Texels,
    poses: &[FramePose],
    vertices: &[VertexRecord],
    out: &mut [SkinnedVertex],
) {
    if vertices.is_empty() {
        return;
    }
    out.par_chunks_mut(vertices.len())
        .zip(poses.par_iter())
        .for_each(|(dst, pose)| skin_into(t, pose, vertices, dst));
}

/// Skins `vertices` for `pose` into `out` (as many as both hold), on this thread.
pub fn skin_into(
    t: &Texels,
    pose: &FramePose,
    vertices: &[VertexRecord],
    out: &mut [SkinnedVertex],
) {
    for (o, v) in out.iter_mut().zip(vertices) {
        let (p, n) = skin_vertex(t, pose, v);
        *o = SkinnedVertex {
            position: p.to_array(),
            normal: n.to_array(),
            uv: v.uv,
        };
    }
}
