//! Bone-matrix texels: each skinning matrix as the three rows of its 3×4 affine part, one RGBA
//! texel per row, stored as f32 or packed to f16; and the skinned-vertex error that f16 and
//! linear interpolation between frames make.

use glam::{Mat4, Vec3};
use half::f16;

use crate::mesh::SkinnedMesh;

/// Texel precision.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Precision {
    /// 32-bit floats: exact.
    F32,
    /// 16-bit floats: half the size; error measured and bounded at bake time.
    F16,
}

/// The three rows of `m`'s affine part, `[m00 m01 m02 m03]` ... `[m20 m21 m22 m23]`: a vertex
/// shader computes `dot(row_k, vec4(p, 1))` for each output coordinate `k`.
#[inline]
pub fn rows(m: &Mat4) -> [[f32; 4]; 3] {
    let r = m.transpose();
    [
        r.x_axis.to_array(),
        r.y_axis.to_array(),
        r.z_axis.to_array(),
    ]
}

/// The matrix the three rows describe (bottom row `0 0 0 1`).
#[inline]
pub fn from_rows(r: &[[f32; 4]; 3]) -> Mat4 {
    Mat4::from_cols_array(&[
        r[0][0], r[1][0], r[2][0], 0.0, //
        r[0][1], r[1][1], r[2][1], 0.0, //
        r[0][2], r[1][2], r[2][2], 0.0, //
        r[0][3], r[1][3], r[2][3], 1.0,
    ])
}

/// Texels of `matrices`, three per matrix, in order.
pub fn to_texels(matrices: &[Mat4]) -> Vec<[f32; 4]> {
    matrices.iter().flat_map(rows).collect()
}

/// Packs texels to f16 bits (round to nearest even; values beyond ±65504 become infinite, which
/// the error measure then reports).
pub fn to_f16(texels: &[[f32; 4]]) -> Vec<[u16; 4]> {
    texels
        .iter()
        .map(|t| t.map(|x| f16::from_f32(x).to_bits()))
        .collect()
}

/// Unpacks f16 texels.
pub fn from_f16(texels: &[[u16; 4]]) -> Vec<[f32; 4]> {
    texels
        .iter()
        .map(|t| t.map(|b| f16::from_bits(b).to_f32()))
        .collect()
}

/// The matrices f16 storage turns `matrices` into (what a GPU reading the packed texture sees).
pub fn through_f16(matrices: &[Mat4]) -> Vec<Mat4> {
    from_f16(&to_f16(&to_texels(matrices)))
        .chunks_exact(3)
        .map(|r| from_rows(&[r[0], r[1], r[2]]))
        .collect()
}

/// The largest distance, metres, between `mesh` skinned with `exact` and with `approx` (both one
/// matrix per joint). Infinite if `approx` holds non-finite values.
pub fn skinned_error(mesh: &SkinnedMesh, exact: &[Mat4], approx: &[Mat4]) -> f32 {
    let (mut a, mut b) = (
        vec![Vec3::ZERO; mesh.vertex_count()],
        vec![Vec3::ZERO; mesh.vertex_count()],
    );
    crate::anim::skin_positions(exact, &mesh.positions, &mesh.joints, &mesh.weights, &mut a);
    crate::anim::skin_positions(approx, &mesh.positions, &mesh.joints, &mesh.weights, &mut b);
    a.iter()
        .zip(&b)
        .map(|(x, y)| x.distance(*y))
        .fold(
            0.0,
            |m, d| if d.is_nan() { f32::INFINITY } else { m.max(d) },
        )
}

/// Linear interpolation of two matrices, element-wise, as the runtime blends neighbouring
/// frames.
#[inline]
pub fn lerp(a: &Mat4, b: &Mat4, t: f32) -> Mat4 {
    *a * (1.0 - t) + *b * t
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn rows_round_trip_exactly() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::new(1.0, 2.0, 0.5),
            Quat::from_rotation_y(0.3),
            Vec3::new(1.0, -2.0, 3.0),
        );
        let r = rows(&m);
        assert_eq!(r[0][3], 1.0);
        assert_eq!(r[2][3], 3.0);
        assert_eq!(from_rows(&r), m);
        // A row dotted with (p, 1) is that coordinate of m * p.
        let p = Vec3::new(0.2, -0.7, 1.5);
        let q = m.transform_point3(p);
        let dot = |row: [f32; 4]| row[0] * p.x + row[1] * p.y + row[2] * p.z + row[3];
        assert!(
            (dot(r[0]) - q.x).abs() < 1e-6
                && (dot(r[1]) - q.y).abs() < 1e-6
                && (dot(r[2]) - q.z).abs() < 1e-6
        );
    }

    #[test]
    fn f16_round_trip_error_is_bounded() {
        let m = Mat4::from_scale_rotation_translation(
            Vec3::ONE,
            Quat::from_rotation_x(0.7),
            Vec3::new(0.3, 1.2, -0.4),
        );
        let back = through_f16(&[m])[0];
        // f16 keeps 11 significant bits: relative error at most 2^-11 per element.
        for (a, b) in m.to_cols_array().iter().zip(back.to_cols_array()) {
            assert!(
                (a - b).abs() <= a.abs() * 2f32.powi(-11) + 1e-7,
                "{a} vs {b}"
            );
        }
        assert!(from_f16(&to_f16(&[[1e6, 0.0, 0.0, 0.0]]))[0][0].is_infinite());
    }
}
