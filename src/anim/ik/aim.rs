//! Aim (look-at) as a job: the joint and its axes are checked once in [`AimJob::new`];
//! [`AimJob::run`] turns the joint each frame so its forward axis points at the target with its
//! up axis kept near model +Y.

use glam::{Mat3, Mat4, Quat, Vec3};

use super::{
    IkError, IkResult, blend, check_inputs, check_joint, clamp_weight, direction, inverse, origin,
    parent_matrix, refresh_from, swing,
};
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::Transform;

/// Aim of one joint: its local axis `forward` (in the joint's own space, e.g. +Z for a head;
/// need not be unit) is pointed at the target, turning it about that axis so that `up` (a
/// joint-space axis) is as close as possible to model +Y.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimJob {
    joint: usize,
    forward: Vec3,
    up: Vec3,
    /// Joint count of the skeleton the job was checked against.
    joints: usize,
}

impl AimJob {
    /// Checks the joint and axes once. With `up` zero or parallel to `forward`, the up-keeping
    /// falls back to the joint's current up (or, failing that, to the shortest swing).
    ///
    /// # Errors
    /// [`IkError::JointOutOfRange`] for a joint the skeleton does not have,
    /// [`IkError::BadForward`] for a zero or non-finite `forward`, [`IkError::NonFiniteUp`] for
    /// a non-finite `up`.
    pub fn new(
        skeleton: &Skeleton,
        joint: usize,
        forward: Vec3,
        up: Vec3,
    ) -> Result<Self, IkError> {
        check_joint(skeleton, &[joint])?;
        if !forward.is_finite() || forward == Vec3::ZERO {
            return Err(IkError::BadForward { forward });
        }
        if !up.is_finite() {
            return Err(IkError::NonFiniteUp { up });
        }
        Ok(Self {
            joint,
            forward,
            up,
            joints: skeleton.len(),
        })
    }

    /// The aimed joint.
    pub fn joint(&self) -> usize {
        self.joint
    }

    /// Rotates the joint so that its forward axis points at `target` (model space, metres).
    /// With the target straight above or below, the up-keeping falls back as in
    /// [`AimJob::new`]. `weight` in [0, 1] (clamped; NaN counts as 0) blends from the FK
    /// rotation; 0 returns at once. The result's `error` is the angle (radians) left between the
    /// forward axis and the target direction.
    ///
    /// # Errors
    /// [`IkError::PoseLength`] for a pose of the wrong length, [`IkError::SkeletonChanged`] for
    /// a skeleton other than the job's, [`IkError::NonFiniteTarget`] for a non-finite target,
    /// [`IkError::Degenerate`] for a target on the joint's origin or a singular parent space or
    /// joint scale; the pose is then untouched.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut [Mat4],
        target: Vec3,
        weight: f32,
    ) -> Result<IkResult, IkError> {
        check_inputs(skeleton, self.joints, local, model, target)?;
        let (joint, forward, up) = (self.joint, self.forward, self.up);
        let t = local[joint];
        let parent_inv =
            inverse(&parent_matrix(skeleton, model, joint)).ok_or(IkError::Degenerate {
                what: "a parent space is singular",
            })?;
        // Joint-space axes reach the parent space through `rotation * scale`; the rotation acts
        // on the scaled axes.
        let (Some(aim_dir), Some(fwd)) = (
            direction(parent_inv.transform_point3(target) - t.translation),
            direction(t.scale * forward),
        ) else {
            return Err(IkError::Degenerate {
                what: "the target is on the aimed joint, or its scale is zero",
            });
        };
        let w = clamp_weight(weight);
        if w > 0.0 {
            let world_up = parent_inv.transform_vector3(Vec3::Y);
            let ik = look_rotation(t.rotation, fwd, t.scale * up, aim_dir, world_up);
            local[joint].rotation = blend(t.rotation, ik, w);
            refresh_from(skeleton, local, model, joint);
        }
        Ok(IkResult {
            error: aim_error(&model[joint], forward, target),
            iterations: u32::from(w > 0.0),
            reached: true,
        })
    }
}

/// The rotation (in parent space) that maps `forward` onto `aim` and `up` as close as possible to
/// `world_up`, all in parent space except `forward` and `up`, which are pre-rotation axes.
fn look_rotation(current: Quat, forward: Vec3, up: Vec3, aim: Vec3, world_up: Vec3) -> Quat {
    let swing_only = || swing(current, current * forward, aim).unwrap_or(current);
    let Some(side) = direction(forward.cross(up)) else {
        return swing_only();
    };
    // Right-handed frames (forward, up, forward x up) before and after: the rotation maps one
    // onto the other. The target frame's up is model +Y with its part along `aim` removed.
    let up = side.cross(forward);
    let Some(aim_side) =
        direction(aim.cross(world_up)).or_else(|| direction(aim.cross(current * up)))
    else {
        return swing_only();
    };
    let aim_up = aim_side.cross(aim);
    let from = Quat::from_mat3(&Mat3::from_cols(forward, up, side));
    let to = Quat::from_mat3(&Mat3::from_cols(aim, aim_up, aim_side));
    let q = (to * from.inverse()).normalize();
    if q.is_finite() { q } else { swing_only() }
}

/// Angle (radians) between the joint's `forward` axis and the direction to `target`. `atan2`
/// rather than `acos` keeps small angles accurate (acos of a dot product near 1 is not).
fn aim_error(joint_model: &Mat4, forward: Vec3, target: Vec3) -> f32 {
    let f = joint_model.transform_vector3(forward);
    let d = target - origin(joint_model);
    f.cross(d).length().atan2(f.dot(d))
}

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use crate::anim::ik::tests::{
        aim, angle, assert_consistent, bits, neck, pos, rest_pose, sphere,
    };

    #[test]
    fn aim_points_forward_at_the_target_with_up_kept_upright() {
        let s = neck();
        let (local0, model0) = rest_pose(&s);
        let head = pos(&model0, 2);
        for (i, dir) in sphere(50).enumerate() {
            let target = head + dir * (0.5 + i as f32 * 0.1);
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = aim(
                &s,
                &mut local,
                &mut model,
                2,
                [Vec3::Z, Vec3::Y],
                target,
                1.0,
            )
            .unwrap();
            assert_consistent(&s, &local, &model);
            let forward = model[2].transform_vector3(Vec3::Z);
            // 1e-4 rad: the required accuracy (0.1 mm at a metre); quaternion-from-frame
            // rounding is ~1e-6 rad.
            assert!(angle(forward, target - head) < 1e-4, "{target}: {r:?}");
            assert!(r.error < 1e-4 && r.reached && r.iterations == 1, "{r:?}");
            assert!((r.error - angle(forward, target - head)).abs() < 1e-6);
            // Up stays in the vertical plane through forward, on the upper side: no roll.
            // 1e-4: rounding, as above; skipped within 0.1 rad of vertical, where the
            // vertical plane is ill-defined.
            let up = model[2].transform_vector3(Vec3::Y);
            if angle(forward, Vec3::Y).min(angle(forward, -Vec3::Y)) > 0.1 {
                assert!(up.dot(forward.cross(Vec3::Y).normalize()).abs() < 1e-4);
                assert!(up.y > 0.0, "upside down: {up}");
            }
            assert_eq!(local[2].translation, local0[2].translation);
            assert_eq!(&local[..2], &local0[..2], "only the aimed joint rotates");
        }
    }

    #[test]
    fn aim_weights_and_degenerate_input() {
        let s = neck();
        let (local0, model0) = rest_pose(&s);
        let head = pos(&model0, 2);
        let target = head + Vec3::new(1.0, 0.3, -0.5);
        let run = |forward: Vec3, up: Vec3, target: Vec3, w: f32| {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = aim(&s, &mut local, &mut model, 2, [forward, up], target, w);
            assert_consistent(&s, &local, &model);
            (local, model, r)
        };
        for w in [0.0, -2.0, f32::NAN] {
            let (local, model, r) = run(Vec3::Z, Vec3::Y, target, w);
            let r = r.unwrap();
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
            let fk = angle(model0[2].transform_vector3(Vec3::Z), target - head);
            // The untouched pose's error, measured the same way (1e-6 rad: rounding).
            assert!((r.error - fk).abs() < 1e-6 && r.iterations == 0, "{r:?}");
        }
        let half = run(Vec3::Z, Vec3::Y, target, 0.5).2.unwrap();
        assert!(
            half.error > 1e-3 && half.error < run(Vec3::Z, Vec3::Y, target, 0.0).2.unwrap().error
        );
        // Up parallel to forward, or zero: a plain swing still points forward at the target,
        // as does a target straight above (1e-4 rad: the required accuracy).
        for (up, target) in [
            (Vec3::Z, target),
            (Vec3::ZERO, target),
            (Vec3::Y, head + Vec3::Y * 2.0),
        ] {
            let (_, model, r) = run(Vec3::Z, up, target, 1.0);
            let r = r.unwrap();
            assert!(r.error < 1e-4, "{r:?}");
            assert!(angle(model[2].transform_vector3(Vec3::Z), target - head) < 1e-4);
        }
        // Nothing to aim at, or nothing to aim with: untouched.
        let nan = Vec3::splat(f32::NAN);
        for (forward, up, target) in [
            (Vec3::Z, Vec3::Y, nan),
            (nan, Vec3::Y, target),
            (Vec3::Z, nan, target),
            (Vec3::ZERO, Vec3::Y, target),
            (Vec3::Z, Vec3::Y, head),
        ] {
            let (local, model, r) = run(forward, up, target, 1.0);
            assert!(r.is_err(), "{r:?}");
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
        }
        let (mut local, mut model) = (local0.clone(), model0.clone());
        let r = aim(
            &s,
            &mut local,
            &mut model,
            4,
            [Vec3::Z, Vec3::Y],
            target,
            1.0,
        );
        assert!(r.is_err(), "joint out of range");
    }
}
