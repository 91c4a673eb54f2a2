//! The CPU skinning path: the same baked texels (read in place from the mapped file), the same
//! arithmetic as `skinning.wgsl` (frame interpolation, cross-fade, linear blend skinning with a
//! cofactor normal), run with rayon. It feeds the fallback renderer and is the reference the
//! GPU parity tests compare with. No wgpu here.

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};
use rayon::prelude::*;

use crate::crowd::FramePose;
use crate::format::records::VertexRecord;
use crate::format::{TEXELS_PER_MATRIX, Texels};

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

type Rows = [Vec4; 3];

/// The rows of matrix `base + joint` (texels `3 (base + joint)` to `+ 2`). f16 texels are
/// converted 12 values at a time (F16C where the CPU has it), as the GPU's sampler would.
#[inline]
fn rows_at(t: &Texels, base: u32, joint: u32) -> Rows {
    let i = (base as usize + joint as usize) * TEXELS_PER_MATRIX as usize;
    match t {
        Texels::F32(v) => [
            Vec4::from_array(v[i]),
            Vec4::from_array(v[i + 1]),
            Vec4::from_array(v[i + 2]),
        ],
        Texels::F16(v) => {
            use half::slice::{HalfBitsSliceExt as _, HalfFloatSliceExt as _};
            let bits: [u16; 12] = bytemuck::cast([v[i], v[i + 1], v[i + 2]]);
            let mut out = [0.0f32; 12];
            bits.reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(&mut out);
            [
                Vec4::from_slice(&out[0..4]),
                Vec4::from_slice(&out[4..8]),
                Vec4::from_slice(&out[8..12]),
            ]
        }
    }
}

/// WGSL's `mix`: `a × (1 − t) + b × t`.
#[inline]
fn mix(a: Vec4, b: Vec4, t: f32) -> Vec4 {
    a * (1.0 - t) + b * t
}

#[inline]
fn mix_rows(a: Rows, b: Rows, t: f32) -> Rows {
    [mix(a[0], b[0], t), mix(a[1], b[1], t), mix(a[2], b[2], t)]
}

/// Joint `joint`'s matrix rows for `pose`, as `joint_rows` in skinning.wgsl.
#[inline]
pub fn joint_rows(t: &Texels, pose: &FramePose, joint: u32) -> Rows {
    let mut a = rows_at(t, pose.a0, joint);
    if pose.aw > 0.0 {
        a = mix_rows(a, rows_at(t, pose.a1, joint), pose.aw);
    }
    if pose.fade > 0.0 {
        let mut b = rows_at(t, pose.b0, joint);
        if pose.bw > 0.0 {
            b = mix_rows(b, rows_at(t, pose.b1, joint), pose.bw);
        }
        a = mix_rows(a, b, pose.fade);
    }
    a
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
