//! From local poses to matrices: local-to-model (forward kinematics) and skinning matrices.

use glam::Mat4;

use super::skeleton::Skeleton;
use super::transform::Transform;
use super::wide::to_mat4_4;
#[cfg(target_arch = "x86_64")]
use super::wide::{avx, mul_mat4_avx};

/// Forward kinematics: model-space matrix of every joint from its local transform.
/// One forward loop, since a parent always comes before its children. A root joint starts from
/// its root base (the folded-in non-joint ancestors), so model space is the glTF scene's world
/// space.
///
/// The local matrices are built first, four joints at a time (`wide::to_mat4_4`: the bits of
/// [`Transform::to_mat4`]), into `model`, and the parents' products then replace them in
/// place: a parent's slot is final before its children read it.
///
/// # Panics
/// If `local` or `model` is not `skeleton.len()` long.
pub fn local_to_model(skeleton: &Skeleton, local: &[Transform], model: &mut [Mat4]) {
    let n = skeleton.len();
    assert!(
        local.len() == n && model.len() == n,
        "pose length must equal joint count"
    );
    #[cfg(target_arch = "x86_64")]
    if avx() {
        // SAFETY: the CPU has AVX, checked just above.
        return unsafe { local_to_model_avx(skeleton, local, model) };
    }
    local_to_model_in(skeleton, local, model, |a, b| *a * *b);
}

/// [`local_to_model`] compiled for AVX: the same bits (see `wide::avx`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn local_to_model_avx(skeleton: &Skeleton, local: &[Transform], model: &mut [Mat4]) {
    local_to_model_in(skeleton, local, model, |a, b| mul_mat4_avx(a, b));
}

/// [`local_to_model`]'s work, once the lengths are checked, with `mul` for `a * b`.
#[inline(always)]
fn local_to_model_in(
    skeleton: &Skeleton,
    local: &[Transform],
    model: &mut [Mat4],
    mul: impl Fn(&Mat4, &Mat4) -> Mat4,
) {
    let mut locals = local.chunks_exact(4);
    let mut slots = model.chunks_exact_mut(4);
    for (l, m) in (&mut locals).zip(&mut slots) {
        let l: &[Transform; 4] = l.try_into().expect("chunks of four");
        m.copy_from_slice(&to_mat4_4(l));
    }
    for (l, m) in locals.remainder().iter().zip(slots.into_remainder()) {
        *m = l.to_mat4();
    }
    let bases = skeleton.root_bases();
    for (j, parent) in skeleton.parents().iter().enumerate() {
        model[j] = match parent {
            Some(p) => mul(&model[usize::from(*p)], &model[j]),
            None => mul(&bases[j], &model[j]),
        };
    }
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
    #[cfg(target_arch = "x86_64")]
    if avx() {
        // SAFETY: the CPU has AVX, checked just above.
        return unsafe { skinning_matrices_avx(ibm, model, out) };
    }
    skinning_matrices_in(ibm, model, out, |a, b| *a * *b);
}

/// [`skinning_matrices`] compiled for AVX: the same bits (see `wide::avx`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn skinning_matrices_avx(ibm: &[Mat4], model: &[Mat4], out: &mut [Mat4]) {
    skinning_matrices_in(ibm, model, out, |a, b| mul_mat4_avx(a, b));
}

#[inline(always)]
fn skinning_matrices_in(
    ibm: &[Mat4],
    model: &[Mat4],
    out: &mut [Mat4],
    mul: impl Fn(&Mat4, &Mat4) -> Mat4,
) {
    for ((o, m), inv) in out.iter_mut().zip(model).zip(ibm) {
        *o = mul(m, inv);
    }
}

#[cfg(test)]
mod tests {
    use glam::{Quat, Vec3};

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

    /// Local matrices built four at a time and the products in place give the bits of one
    /// `to_mat4` and one product per joint: at rest, off rest, and with a −0 where the rest pose
    /// has 0 (whose matrix differs in sign bits); so do the skinning matrices, and the plain
    /// copies of both beside the AVX ones.
    #[test]
    fn forward_kinematics_is_one_product_per_joint() {
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
            // The plain copies, which a CPU with AVX never runs through the public functions.
            let mut plain = vec![Mat4::IDENTITY; s.len()];
            local_to_model_in(&s, &pose, &mut plain, |a, b| *a * *b);
            assert_eq!(bits(&plain), bits(&model));
            let (mut skin, mut plain_skin) = (plain.clone(), plain.clone());
            skinning_matrices(&s, &model, &mut skin);
            skinning_matrices_in(s.inverse_bind(), &model, &mut plain_skin, |a, b| *a * *b);
            let products: Vec<Mat4> = model
                .iter()
                .zip(s.inverse_bind())
                .map(|(m, b)| *m * *b)
                .collect();
            assert_eq!(bits(&skin), bits(&products));
            assert_eq!(bits(&plain_skin), bits(&products));
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
