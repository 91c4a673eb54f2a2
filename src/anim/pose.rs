//! From local poses to matrices: local-to-model (forward kinematics) and skinning matrices.

use glam::{Mat4, Quat, Vec3};

use super::skeleton::Skeleton;
use super::transform::Transform;

/// Forward kinematics: model-space matrix of every joint from its local transform.
/// One forward loop, since a parent always comes before its children. A root joint starts from
/// its root base (the folded-in non-joint ancestors), so model space is the glTF scene's world
/// space. A joint whose local transform is, bit for bit, its rest pose takes the skeleton's
/// rest matrix instead of building it again (the same bits; the joints a clip has no channel
/// for).
///
/// # Panics
/// If `local` or `model` is not `skeleton.len()` long.
pub fn local_to_model(skeleton: &Skeleton, local: &[Transform], model: &mut [Mat4]) {
    let n = skeleton.len();
    assert!(
        local.len() == n && model.len() == n,
        "pose length must equal joint count"
    );
    let bases = skeleton.root_bases();
    let (rest, rest_matrices) = (skeleton.rest(), skeleton.rest_matrices());
    for (j, parent) in skeleton.parents().iter().enumerate() {
        let m = if same_bits(&local[j], &rest[j]) {
            rest_matrices[j]
        } else {
            local[j].to_mat4()
        };
        model[j] = match parent {
            Some(p) => model[usize::from(*p)] * m,
            None => bases[j] * m,
        };
    }
}

/// Whether `a` and `b` are the same bits (`==` would take −0 for 0, whose matrices differ in
/// sign bits). Rotations first: a joint a clip drives usually differs there.
#[inline]
fn same_bits(a: &Transform, b: &Transform) -> bool {
    let quat = |q: Quat| bytemuck::cast::<Quat, u128>(q);
    let vec = |v: Vec3| (v.x.to_bits(), v.y.to_bits(), v.z.to_bits());
    quat(a.rotation) == quat(b.rotation)
        && vec(a.translation) == vec(b.translation)
        && vec(a.scale) == vec(b.scale)
}

/// Skinning matrices: `model[j] * inverse_bind[j]` for every joint, mapping bind-space vertices
/// to model space.
///
/// # Panics
/// If `model` or `out` is not `skeleton.len()` long.
pub fn skinning_matrices(skeleton: &Skeleton, model: &[Mat4], out: &mut [Mat4]) {
    let ibm = skeleton.inverse_bind();
    assert!(
        model.len() == ibm.len() && out.len() == ibm.len(),
        "pose length must equal joint count"
    );
    for ((o, m), inv) in out.iter_mut().zip(model).zip(ibm) {
        *o = *m * *inv;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::skeleton::tests::sample_skeleton;

    #[test]
    fn forward_kinematics_chains_parents() {
        let s = sample_skeleton();
        let mut local = s.rest().to_vec();
        local[0].rotation = Quat::from_rotation_z(std::f32::consts::FRAC_PI_2);
        let mut model = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, &local, &mut model);
        // Joint 2 sits two units up the chain; rotating the root 90 degrees about Z puts it at -X.
        let p = model[2].transform_point3(Vec3::ZERO);
        assert!(p.abs_diff_eq(Vec3::new(-2.0, 0.0, 0.0), 1e-6), "{p}");
        let c = model[3].transform_point3(Vec3::ZERO);
        assert!(c.abs_diff_eq(Vec3::new(0.0, 1.0, 0.0), 1e-6), "{c}");
    }

    /// Joints at rest take the skeleton's rest matrix: the same bits as building every local
    /// matrix, at rest, off rest, and with a −0 where the rest pose has 0.
    #[test]
    fn rest_matrices_are_built_matrices() {
        let s = sample_skeleton();
        let built = |local: &[Transform]| -> Vec<Mat4> {
            let mut model: Vec<Mat4> = Vec::new();
            for (j, parent) in s.parents().iter().enumerate() {
                let m = local[j].to_mat4();
                model.push(match parent {
                    Some(p) => model[usize::from(*p)] * m,
                    None => s.root_bases()[j] * m,
                });
            }
            model
        };
        let bits = |m: &[Mat4]| -> Vec<u32> {
            m.iter()
                .flat_map(|m| m.to_cols_array())
                .map(f32::to_bits)
                .collect()
        };
        let mut local = s.rest().to_vec();
        let zero = local
            .iter()
            .position(|t| t.translation.x == 0.0)
            .expect("a joint with x = 0");
        local[zero].translation.x = -local[zero].translation.x;
        local[3].rotation = Quat::from_rotation_y(0.4);
        for pose in [s.rest().to_vec(), local] {
            let mut model = vec![Mat4::IDENTITY; s.len()];
            local_to_model(&s, &pose, &mut model);
            assert_eq!(bits(&model), bits(&built(&pose)));
        }
    }

    #[test]
    fn skinning_is_identity_when_bound_at_rest() {
        let s = sample_skeleton();
        let mut model = vec![Mat4::IDENTITY; s.len()];
        local_to_model(&s, s.rest(), &mut model);
        // Re-bind the skeleton at its rest pose.
        let raw = crate::anim::skeleton::RawSkeleton {
            names: s.names().to_vec(),
            parents: s.parents().iter().map(|p| p.map(usize::from)).collect(),
            rest: s.rest().to_vec(),
            inverse_bind: model.iter().map(|m| m.inverse()).collect(),
            root_bases: s.root_bases().to_vec(),
        };
        let bound = raw.validate().unwrap();
        let mut skin = vec![Mat4::ZERO; s.len()];
        skinning_matrices(&bound, &model, &mut skin);
        for m in skin {
            assert!(m.abs_diff_eq(Mat4::IDENTITY, 1e-6));
        }
    }
}
