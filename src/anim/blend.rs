//! Blending local poses: weighted mixes, masked layers and additive poses.
//!
//! Everything happens on local transforms, never on matrices: translations and scales mix
//! linearly, rotations by a normalised weighted sum with every quaternion flipped into the
//! hemisphere of the first (so the mix takes the short way round). A weight of exactly 0 leaves
//! the base untouched bit for bit, and exactly 1 copies the other pose, so masks and boundary
//! parameter values are exact.

use glam::{Quat, Vec3};

use super::transform::Transform;

/// Mixes two transforms: `a` at weight `1 - w`, `b` at weight `w` (`w` in [0, 1]).
#[inline]
pub fn mix(a: &Transform, b: &Transform, w: f32) -> Transform {
    if w <= 0.0 {
        return *a;
    }
    if w >= 1.0 {
        return *b;
    }
    let bq = if a.rotation.dot(b.rotation) < 0.0 {
        -b.rotation
    } else {
        b.rotation
    };
    Transform {
        translation: a.translation.lerp(b.translation, w),
        rotation: (a.rotation * (1.0 - w) + bq * w).normalize(),
        scale: a.scale.lerp(b.scale, w),
    }
}

/// `out[j] = mix(a[j], b[j], w)` for every joint. `out` may alias neither input; all three have
/// the same length.
///
/// # Panics
/// If `a`, `b` and `out` differ in length.
pub fn mix_poses(a: &[Transform], b: &[Transform], w: f32, out: &mut [Transform]) {
    assert!(
        a.len() == out.len() && b.len() == out.len(),
        "pose lengths differ"
    );
    for ((o, x), y) in out.iter_mut().zip(a).zip(b) {
        *o = mix(x, y, w);
    }
}

/// Layers `over` onto `base` in place: joint `j` gets `mix(base[j], over[j], weight * mask[j])`.
/// Joints whose mask is 0 are left bit-identical.
///
/// # Panics
/// If `base`, `over` and `mask` differ in length.
pub fn layer(base: &mut [Transform], over: &[Transform], mask: &[f32], weight: f32) {
    assert!(
        base.len() == over.len() && mask.len() == base.len(),
        "pose lengths differ"
    );
    for ((b, o), m) in base.iter_mut().zip(over).zip(mask) {
        let w = weight * m;
        if w > 0.0 {
            *b = mix(b, o, w);
        }
    }
}

/// The additive difference that takes `reference` to `pose`, per joint: translation
/// `pose - reference`, rotation `reference⁻¹ · pose`, scale `pose / reference` (a zero reference
/// scale component gives a difference of 1 there, so degenerate joints add nothing).
#[inline]
pub fn difference(reference: &Transform, pose: &Transform) -> Transform {
    let safe = |p: f32, r: f32| if r != 0.0 { p / r } else { 1.0 };
    Transform {
        translation: pose.translation - reference.translation,
        rotation: (reference.rotation.inverse() * pose.rotation).normalize(),
        scale: Vec3::new(
            safe(pose.scale.x, reference.scale.x),
            safe(pose.scale.y, reference.scale.y),
            safe(pose.scale.z, reference.scale.z),
        ),
    }
}

/// Applies additive difference `d` onto `base` with weight `w` in [0, 1]: translation adds,
/// rotation composes on the right (`base · d`, in the joint's local frame) and scale multiplies,
/// each scaled by `w` from the identity. Weight 0 leaves `base` bit-identical; weight 1 onto the
/// reference pose reproduces the pose the difference was made from.
#[inline]
pub fn add(base: &Transform, d: &Transform, w: f32) -> Transform {
    if w <= 0.0 {
        return *base;
    }
    let (dq, dt, ds) = if w >= 1.0 {
        (d.rotation, d.translation, d.scale)
    } else {
        let q = if d.rotation.w < 0.0 {
            -d.rotation
        } else {
            d.rotation
        };
        (
            (Quat::IDENTITY * (1.0 - w) + q * w).normalize(),
            d.translation * w,
            Vec3::ONE.lerp(d.scale, w),
        )
    };
    Transform {
        translation: base.translation + dt,
        rotation: (base.rotation * dq).normalize(),
        scale: base.scale * ds,
    }
}

/// Accumulates a weighted sum of poses for an N-way mix without allocating: start with
/// [`Accumulator::begin`], [`Accumulator::push`] each pose, then [`Accumulator::finish`].
/// Rotations are flipped into the hemisphere of the first pushed pose's rotation per joint.
pub struct Accumulator;

impl Accumulator {
    /// Starts a sum in `acc` with `pose` at weight `w` (the first pose sets the hemispheres).
    pub fn begin(acc: &mut [Transform], pose: &[Transform], w: f32) {
        for (a, p) in acc.iter_mut().zip(pose) {
            *a = Transform {
                translation: p.translation * w,
                rotation: p.rotation * w,
                scale: p.scale * w,
            };
        }
    }

    /// Adds `pose` at weight `w`; `first` is the first pushed pose (for hemisphere flips).
    pub fn push(acc: &mut [Transform], first: &[Transform], pose: &[Transform], w: f32) {
        for ((a, f), p) in acc.iter_mut().zip(first).zip(pose) {
            let q = if f.rotation.dot(p.rotation) < 0.0 {
                -p.rotation
            } else {
                p.rotation
            };
            a.translation += p.translation * w;
            a.rotation += q * w;
            a.scale += p.scale * w;
        }
    }

    /// Normalises the rotations. Weights must have summed to 1.
    pub fn finish(acc: &mut [Transform]) {
        for a in acc {
            a.rotation = a.rotation.normalize();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(x: f32, angle: f32, s: f32) -> Transform {
        Transform {
            translation: Vec3::new(x, 0.0, 0.0),
            rotation: Quat::from_rotation_y(angle),
            scale: Vec3::splat(s),
        }
    }

    #[test]
    fn mix_ends_are_exact_and_middle_is_halfway() {
        let (a, b) = (t(1.0, 0.2, 1.0), t(3.0, 0.8, 2.0));
        assert_eq!(mix(&a, &b, 0.0), a);
        assert_eq!(mix(&a, &b, 1.0), b);
        let m = mix(&a, &b, 0.5);
        assert!((m.translation.x - 2.0).abs() < 1e-6);
        assert!((m.scale.x - 1.5).abs() < 1e-6);
        // Normalised sum of two unit quaternions bisects them.
        assert!(m.rotation.abs_diff_eq(Quat::from_rotation_y(0.5), 1e-6));
    }

    #[test]
    fn mix_flips_into_the_first_hemisphere() {
        let a = t(0.0, 0.0, 1.0);
        let mut b = t(0.0, 1.0, 1.0);
        b.rotation = -b.rotation;
        let m = mix(&a, &b, 0.5);
        assert!(m.rotation.dot(Quat::from_rotation_y(0.5)).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn layer_leaves_unmasked_joints_bit_identical() {
        let mut base = vec![t(1.0, 0.1, 1.0), t(2.0, 0.2, 1.0)];
        let before = base.clone();
        let over = vec![t(5.0, 1.0, 2.0), t(6.0, 1.5, 2.0)];
        layer(&mut base, &over, &[0.0, 1.0], 1.0);
        assert_eq!(base[0], before[0]);
        assert_eq!(base[1], over[1]);
    }

    #[test]
    fn additive_round_trip() {
        let r = t(1.0, 0.3, 2.0);
        let c = Transform {
            translation: Vec3::new(0.5, 2.0, -1.0),
            rotation: Quat::from_rotation_x(0.7) * Quat::from_rotation_z(-0.2),
            scale: Vec3::new(1.0, 3.0, 0.5),
        };
        let d = difference(&r, &c);
        let back = add(&r, &d, 1.0);
        assert!(back.translation.abs_diff_eq(c.translation, 1e-6));
        assert!(back.rotation.dot(c.rotation).abs() > 1.0 - 1e-6);
        assert!(back.scale.abs_diff_eq(c.scale, 1e-6));
        assert_eq!(add(&r, &d, 0.0), r);
    }

    #[test]
    fn accumulator_weights_three_poses() {
        let poses = [
            vec![t(0.0, 0.0, 1.0)],
            vec![t(3.0, 0.3, 1.0)],
            vec![t(6.0, 0.6, 1.0)],
        ];
        let mut acc = vec![Transform::IDENTITY];
        Accumulator::begin(&mut acc, &poses[0], 0.5);
        Accumulator::push(&mut acc, &poses[0], &poses[1], 0.25);
        Accumulator::push(&mut acc, &poses[0], &poses[2], 0.25);
        Accumulator::finish(&mut acc);
        assert!((acc[0].translation.x - 2.25).abs() < 1e-6);
        assert!((acc[0].scale.x - 1.0).abs() < 1e-6);
    }
}
