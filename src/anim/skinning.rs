//! Linear blend skinning on the CPU: positions and normals with up to four influences.

use glam::{Mat3, Mat4, Vec3};

/// Blends the skinning matrices of one vertex's influences. Weights are expected to sum to 1
/// (importers renormalise); unused influences have weight 0.
#[inline]
fn blend(matrices: &[Mat4], joints: &[u16; 4], weights: &[f32; 4]) -> Mat4 {
    let mut m = Mat4::ZERO;
    for (j, w) in joints.iter().zip(weights) {
        if *w != 0.0 {
            m += matrices[usize::from(*j)] * *w;
        }
    }
    m
}

/// The matrix that maps normals for the linear part `m`: the cofactor matrix, which is the
/// inverse-transpose scaled by `det(m)`. It stays exact under non-uniform scale and needs no
/// inverse; the sign of the determinant keeps mirrored joints' normals pointing outwards.
#[inline]
fn normal_matrix(m: &Mat4) -> Mat3 {
    let (c0, c1, c2) = (
        m.x_axis.truncate(),
        m.y_axis.truncate(),
        m.z_axis.truncate(),
    );
    let cof = Mat3::from_cols(c1.cross(c2), c2.cross(c0), c0.cross(c1));
    if c0.dot(c1.cross(c2)) < 0.0 {
        -cof
    } else {
        cof
    }
}

/// Skins `positions` (bind space) into `out` (model space) with the given skinning matrices.
///
/// # Panics
/// If the per-vertex slices differ in length or a joint index is out of range of
/// `matrices` (meshes are validated against their skeleton at import).
pub fn skin_positions(
    matrices: &[Mat4],
    positions: &[Vec3],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    out: &mut [Vec3],
) {
    assert!(
        positions.len() == joints.len()
            && joints.len() == weights.len()
            && out.len() == positions.len()
    );
    for (((o, p), j), w) in out.iter_mut().zip(positions).zip(joints).zip(weights) {
        *o = blend(matrices, j, w).transform_point3(*p);
    }
}

/// Skins `normals` into `out`, unit length. Uses the inverse-transpose of the blended matrix, so
/// normals stay perpendicular to surfaces under non-uniform scale.
///
/// # Panics
/// As [`skin_positions`]: if the per-vertex slices differ in length or a joint index is out of
/// range of `matrices`.
pub fn skin_normals(
    matrices: &[Mat4],
    normals: &[Vec3],
    joints: &[[u16; 4]],
    weights: &[[f32; 4]],
    out: &mut [Vec3],
) {
    assert!(
        normals.len() == joints.len()
            && joints.len() == weights.len()
            && out.len() == normals.len()
    );
    for (((o, n), j), w) in out.iter_mut().zip(normals).zip(joints).zip(weights) {
        *o = (normal_matrix(&blend(matrices, j, w)) * *n).normalize_or_zero();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use glam::Quat;

    #[test]
    fn blends_two_influences() {
        let m = [
            Mat4::IDENTITY,
            Mat4::from_translation(Vec3::new(2.0, 0.0, 0.0)),
        ];
        let mut out = [Vec3::ZERO];
        skin_positions(
            &m,
            &[Vec3::Y],
            &[[0, 1, 0, 0]],
            &[[0.75, 0.25, 0.0, 0.0]],
            &mut out,
        );
        assert!(out[0].abs_diff_eq(Vec3::new(0.5, 1.0, 0.0), 1e-6));
    }

    #[test]
    fn normals_use_inverse_transpose_under_non_uniform_scale() {
        // Squash X by 4: a 45-degree surface normal (1,1,0) must tilt towards X, not away.
        let m = [Mat4::from_scale(Vec3::new(0.25, 1.0, 1.0))];
        let mut out = [Vec3::ZERO];
        let n = Vec3::new(1.0, 1.0, 0.0).normalize();
        skin_normals(&m, &[n], &[[0; 4]], &[[1.0, 0.0, 0.0, 0.0]], &mut out);
        let expected = (m[0].inverse().transpose().transform_vector3(n)).normalize();
        assert!(
            out[0].abs_diff_eq(expected, 1e-6),
            "{} vs {}",
            out[0],
            expected
        );
        assert!(out[0].x > out[0].y);
    }

    #[test]
    fn normals_follow_rotation_and_mirroring() {
        let r = Mat4::from_quat(Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let mirror = Mat4::from_scale(Vec3::new(-1.0, 1.0, 1.0));
        let mut out = [Vec3::ZERO; 2];
        skin_normals(
            &[r, mirror],
            &[Vec3::X, Vec3::X],
            &[[0; 4], [1, 0, 0, 0]],
            &[[1.0, 0.0, 0.0, 0.0]; 2],
            &mut out,
        );
        assert!(out[0].abs_diff_eq(Vec3::Y, 1e-6));
        assert!(out[1].abs_diff_eq(-Vec3::X, 1e-6));
    }
}
