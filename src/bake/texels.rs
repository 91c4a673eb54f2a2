//! Bone-matrix texels: each skinning matrix as the three rows of its 3×4 affine part, one RGBA
//! texel per row, stored as f32 or rounded to f16; interpolation between frames; and the exact
//! skinned-vertex error between two sets of matrices (what tests compare the baker's bounds
//! with).

use glam::{Mat4, Vec3};

use crate::mesh::SkinnedMesh;

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

/// What `m` becomes when stored as f16 texels (each element rounded to the nearest binary16,
/// ties to even, as GPUs convert; beyond ±65504 it becomes infinite).
pub fn through_f16(m: &Mat4) -> Mat4 {
    use half::slice::HalfFloatSliceExt as _;
    let exact: [f32; 12] = bytemuck::cast(rows(m));
    let mut packed = [half::f16::ZERO; 12];
    packed.convert_from_f32_slice(&exact);
    let mut back = [0.0f32; 12];
    packed.convert_to_f32_slice(&mut back);
    from_rows(&bytemuck::cast(back))
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
        let back = through_f16(&m);
        // f16 keeps 11 significant bits: relative error at most 2^-11 per element.
        for (a, b) in m.to_cols_array().iter().zip(back.to_cols_array()) {
            assert!(
                (a - b).abs() <= a.abs() * 2f32.powi(-11) + 1e-7,
                "{a} vs {b}"
            );
        }
        let far = Mat4::from_translation(Vec3::new(1e6, 0.0, 0.0));
        assert!(through_f16(&far).w_axis.x.is_infinite());
    }
}
