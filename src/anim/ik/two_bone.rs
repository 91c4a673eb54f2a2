//! Analytic two-bone IK (thigh-shin-foot, upper arm-forearm-hand) as a job: the three joints are
//! checked once in [`TwoBoneJob::new`], and [`TwoBoneJob::run`] bends the chain towards a pole
//! each frame by the law of cosines.

use glam::{Mat4, Quat, Vec3};

use super::{
    IkError, IkResult, MIN_LENGTH, blend, check_inputs, check_joint, clamp_weight, direction,
    inverse, origin, parent_matrix, refresh_from, swing,
};
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::Transform;

/// Two-bone IK over `root`, `mid` and `end`: `root` a strict ancestor of `mid`, `mid` of `end`.
/// Joints in between (twist joints) are carried along unchanged.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TwoBoneJob {
    root: usize,
    mid: usize,
    end: usize,
    /// Joint count of the skeleton the job was checked against.
    joints: usize,
}

impl TwoBoneJob {
    /// Checks the joints against `skeleton` once.
    ///
    /// # Errors
    /// [`IkError::JointOutOfRange`] for an index that is not a joint, [`IkError::NotAncestor`]
    /// when `mid` does not hang below `root` or `end` below `mid`.
    pub fn new(skeleton: &Skeleton, root: usize, mid: usize, end: usize) -> Result<Self, IkError> {
        check_joint(skeleton, &[root, mid, end])?;
        for (ancestor, joint) in [(mid, end), (root, mid)] {
            if !skeleton.is_ancestor(ancestor, joint) {
                return Err(IkError::NotAncestor { ancestor, joint });
            }
        }
        Ok(Self {
            root,
            mid,
            end,
            joints: skeleton.len(),
        })
    }

    /// The root, middle and end joints.
    pub fn joints(&self) -> [usize; 3] {
        [self.root, self.mid, self.end]
    }

    /// Rotates `root` and `mid` so that `end`'s origin reaches `target` (model space, metres),
    /// with the chain bending in the plane that contains `pole` (a model-space point the middle
    /// joint bends towards, e.g. in front of the knee).
    ///
    /// A target beyond reach straightens the chain and points it at the target; one closer than
    /// the bones' length difference folds it, pointing at the target. A target at the root keeps
    /// the chain's current reach direction; a pole on the root-target line keeps the current
    /// bend plane. `weight` in [0, 1] (clamped; NaN counts as 0) blends from the FK pose; 0
    /// returns at once.
    ///
    /// # Errors
    /// [`IkError::PoseLength`] for a `local`/`model` length other than the joint count,
    /// [`IkError::SkeletonChanged`] for a skeleton other than the job's,
    /// [`IkError::NonFiniteTarget`] or [`IkError::NonFinitePole`] for a non-finite `target` or
    /// `pole`, [`IkError::Degenerate`] for a bone shorter than 1 µm or a singular parent space;
    /// the pose is then untouched.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut [Mat4],
        target: Vec3,
        pole: Vec3,
        weight: f32,
    ) -> Result<IkResult, IkError> {
        check_inputs(skeleton, self.joints, local, model, target)?;
        if !pole.is_finite() {
            return Err(IkError::NonFinitePole { pole });
        }
        let (root, mid, end) = (self.root, self.mid, self.end);
        let (a, b, c) = (
            origin(&model[root]),
            origin(&model[mid]),
            origin(&model[end]),
        );
        let (upper, lower) = (a.distance(b), b.distance(c));
        if upper < MIN_LENGTH || lower < MIN_LENGTH {
            return Err(IkError::Degenerate {
                what: "a bone is shorter than 1 µm",
            });
        }
        let dist = a.distance(target);
        let reached = dist <= upper + lower && dist >= (upper - lower).abs();
        let w = clamp_weight(weight);
        if w == 0.0 {
            return Ok(IkResult {
                error: c.distance(target),
                iterations: 0,
                reached,
            });
        }
        let (root_ik, mid_ik) = solve(skeleton, local, model, [root, mid, end], target, pole)
            .ok_or(IkError::Degenerate {
                what: "a parent space is singular",
            })?;
        let (root_fk, mid_fk) = (local[root].rotation, local[mid].rotation);
        local[root].rotation = blend(root_fk, root_ik, w);
        local[mid].rotation = blend(mid_fk, mid_ik, w);
        refresh_from(skeleton, local, model, root);
        Ok(IkResult {
            error: origin(&model[end]).distance(target),
            iterations: 1,
            reached,
        })
    }
}

/// The full-weight local rotations of the two-bone root and middle joint, or `None` when a
/// parent space is singular. Inputs are validated by [`TwoBoneJob`].
fn solve(
    skeleton: &Skeleton,
    local: &[Transform],
    model: &[Mat4],
    [root, mid, end]: [usize; 3],
    target: Vec3,
    pole: Vec3,
) -> Option<(Quat, Quat)> {
    let (a, b, c) = (
        origin(&model[root]),
        origin(&model[mid]),
        origin(&model[end]),
    );
    let (upper, lower) = (a.distance(b), b.distance(c));
    // A target at the root gives no direction: keep the one the chain reaches in now (and if the
    // chain is folded onto its root, the upper bone's, which is at least MIN_LENGTH long).
    let axis = direction(target - a)
        .or_else(|| direction(c - a))
        .or_else(|| direction(b - a))?;
    // The bend direction is the pole's offset from the root-target line; with the pole on that
    // line, the current bend plane; with a straight chain along it too, any perpendicular.
    let bend = direction((pole - a).reject_from_normalized(axis))
        .or_else(|| direction((b - a).reject_from_normalized(axis)))
        .unwrap_or_else(|| axis.any_orthonormal_vector());
    // Clamping the reach makes unreachable targets straighten (or fold) the chain towards them.
    let reach = a
        .distance(target)
        .clamp((upper - lower).abs(), upper + lower);
    // Law of cosines for the angle at the root; a zero reach (equal bones, target at the root)
    // leaves the middle joint anywhere on a sphere, so put it straight along the bend direction.
    let cos = if reach < MIN_LENGTH {
        0.0
    } else {
        ((upper * upper + reach * reach - lower * lower) / (2.0 * upper * reach)).clamp(-1.0, 1.0)
    };
    let sin = (1.0 - cos * cos).max(0.0).sqrt();
    let mid_goal = a + upper * (cos * axis + sin * bend);
    let end_goal = a + reach * axis;

    // Swing the root so the middle joint moves onto `mid_goal`.
    let root_parent = parent_matrix(skeleton, model, root);
    let root_parent_inv = inverse(&root_parent)?;
    let t_root = &local[root];
    let root_ik = swing(
        t_root.rotation,
        root_parent_inv.transform_point3(b) - t_root.translation,
        root_parent_inv.transform_point3(mid_goal) - t_root.translation,
    )?;

    // The root's swing moves everything below it rigidly by `moved`; the end's position in the
    // middle joint's parent space does not change, but the goal must be seen from the moved one.
    let root_ik_model = root_parent
        * Transform {
            rotation: root_ik,
            ..*t_root
        }
        .to_mat4();
    let moved = root_ik_model * inverse(&model[root])?;
    let mid_parent = parent_matrix(skeleton, model, mid);
    let mid_parent_inv = inverse(&mid_parent)?;
    let mid_parent_ik_inv = inverse(&(moved * mid_parent))?;
    let t_mid = &local[mid];
    let mid_ik = swing(
        t_mid.rotation,
        mid_parent_inv.transform_point3(c) - t_mid.translation,
        mid_parent_ik_inv.transform_point3(end_goal) - t_mid.translation,
    )?;
    Some((root_ik, mid_ik))
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Quat, Vec3};

    use crate::anim::ik::tests::{
        angle, assert_consistent, assert_lengths, bits, bone_lengths, joint, leg, pos, rest_pose,
        rotation_angle, skeleton, sphere, tilted_base, two_bone,
    };

    #[test]
    fn two_bone_reaches_reachable_targets_on_the_pole_side() {
        // Identity base, a rotated base, and a rotated base with uniform scale 1.5 (conformal,
        // so still exact).
        for base in [Mat4::IDENTITY, tilted_base(1.0), tilted_base(1.5)] {
            let s = leg(base);
            let (local0, model0) = rest_pose(&s);
            let hip = pos(&model0, 1);
            let lengths = bone_lengths(&model0, &[1, 2, 3]);
            let (upper, lower) = (lengths[0], lengths[1]);
            let mut solved = 0;
            for (i, dir) in sphere(60).enumerate() {
                // Distances across the reachable shell, nearly folded to nearly straight.
                let f = [0.05, 0.3, 0.6, 0.9, 0.999][i % 5];
                let reach = (upper - lower).abs() + f * (upper + lower - (upper - lower).abs());
                let target = hip + dir * reach;
                let poles = [Vec3::Z, Vec3::X, -Vec3::Y, Vec3::new(-1.0, 1.0, 0.5)];
                for pole_dir in poles {
                    let pole = hip + pole_dir * 2.0;
                    if angle(pole - hip, target - hip) < 0.1 {
                        continue; // a pole on the root-target line defines no bend plane
                    }
                    let (mut local, mut model) = (local0.clone(), model0.clone());
                    let r =
                        two_bone(&s, &mut local, &mut model, [1, 2, 3], target, pole, 1.0).unwrap();
                    let end = pos(&model, 3);
                    // 1e-4 m: the required accuracy (0.1 mm, invisible on a character); the
                    // analytic solution is exact up to f32 rounding of a few matrix inverses and
                    // products (~1e-6 m here).
                    assert!(end.distance(target) < 1e-4, "{target} -> {end}");
                    assert!((r.error - end.distance(target)).abs() < 1e-6);
                    assert!(r.reached && r.iterations == 1, "{r:?}");
                    assert_lengths(&lengths, &bone_lengths(&model, &[1, 2, 3]));
                    assert_consistent(&s, &local, &model);
                    // The knee bends towards the pole: it lies in the root-target-pole plane
                    // (1e-4 m: rounding of the solve, as above) on the pole's side of the line.
                    let axis = (target - hip).normalize();
                    let knee = pos(&model, 2) - hip;
                    let pole_side = (pole - hip).reject_from_normalized(axis).normalize();
                    let normal = axis.cross(pole_side);
                    assert!(knee.dot(normal).abs() < 1e-4, "knee off the pole plane");
                    if f < 0.999 {
                        // At 0.999 of full reach the knee is within millimetres of the line.
                        assert!(knee.dot(pole_side) > 0.0, "knee bends away from the pole");
                    }
                    // Only the thigh and shin rotate; translations and scales never change.
                    for j in 0..s.len() {
                        assert_eq!(local[j].translation, local0[j].translation);
                        assert_eq!(local[j].scale, local0[j].scale);
                        if j != 1 && j != 2 {
                            assert_eq!(local[j].rotation, local0[j].rotation);
                        }
                    }
                    solved += 1;
                }
            }
            assert!(solved > 200, "only {solved} cases ran");
        }
    }

    #[test]
    fn two_bone_skips_joints_between_root_and_mid() {
        // Thigh (1), a twist joint (2), shin (3), foot (4): root and mid are not parent and child.
        let s = skeleton(
            &[None, Some(0), Some(1), Some(2), Some(3)],
            vec![
                joint(Vec3::Y, Quat::IDENTITY),
                joint(Vec3::new(0.1, 0.0, 0.0), Quat::from_rotation_x(0.2)),
                joint(Vec3::new(0.0, -0.2, 0.0), Quat::from_rotation_y(0.7)),
                joint(Vec3::new(0.01, -0.25, 0.0), Quat::from_rotation_x(-0.4)),
                joint(Vec3::new(0.0, -0.42, 0.0), Quat::IDENTITY),
            ],
            tilted_base(1.0),
        );
        let (mut local, mut model) = rest_pose(&s);
        let before = bone_lengths(&model, &[1, 3, 4]);
        let target = pos(&model, 1) + Vec3::new(0.3, -0.4, 0.4);
        let r = two_bone(
            &s,
            &mut local,
            &mut model,
            [1, 3, 4],
            target,
            Vec3::Z * 5.0,
            1.0,
        )
        .unwrap();
        // 1e-4 m: the required accuracy (0.1 mm, invisible on a character), as for the plain leg.
        assert!(r.error < 1e-4 && r.reached, "{r:?}");
        assert!(pos(&model, 4).distance(target) < 1e-4);
        assert_lengths(&before, &bone_lengths(&model, &[1, 3, 4]));
        assert_eq!(
            local[2],
            s.rest()[2],
            "the twist joint is carried, not solved"
        );
        assert_consistent(&s, &local, &model);
    }

    #[test]
    fn two_bone_straightens_towards_unreachable_targets() {
        let s = leg(tilted_base(1.0));
        let (local0, model0) = rest_pose(&s);
        let hip = pos(&model0, 1);
        let lengths = bone_lengths(&model0, &[1, 2, 3]);
        let total = lengths[0] + lengths[1];
        for dir in sphere(24) {
            let target = hip + dir * (total + 0.5);
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = two_bone(
                &s,
                &mut local,
                &mut model,
                [1, 2, 3],
                target,
                hip + Vec3::Z,
                1.0,
            )
            .unwrap();
            assert_consistent(&s, &local, &model);
            assert!(!r.reached);
            // Error is the distance beyond reach; 1e-5 m is f32 rounding of the solve.
            assert!((r.error - 0.5).abs() < 1e-5, "{r:?}");
            let (knee, foot) = (pos(&model, 2), pos(&model, 3));
            // Both bones along the target direction. 1e-5 rad: a fully stretched chain is solved
            // with cos = 1 exactly, leaving only rounding (a 1e-6 m sideways error over 0.4 m).
            assert!(angle(knee - hip, target - hip) < 1e-5);
            assert!(angle(foot - knee, target - hip) < 1e-5);
            assert_lengths(&lengths, &bone_lengths(&model, &[1, 2, 3]));
        }
    }

    #[test]
    fn two_bone_handles_degenerate_targets_and_poles() {
        let s = leg(tilted_base(1.0));
        let (local0, model0) = rest_pose(&s);
        let hip = pos(&model0, 1);
        let lengths = bone_lengths(&model0, &[1, 2, 3]);
        let inner = (lengths[0] - lengths[1]).abs();
        let knee = pos(&model0, 2);
        let cases = [
            (hip, hip + Vec3::Z),                       // target on the root
            (hip + Vec3::X * 1e-3, hip + Vec3::Z),      // inside the inner radius
            (hip - Vec3::Y * 0.5, hip - Vec3::Y * 2.0), // pole on the root-target line
            (hip - Vec3::Y * 0.5, hip),                 // pole on the root
            (knee, hip),                                // target on the current knee
        ];
        for (target, pole) in cases {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = two_bone(&s, &mut local, &mut model, [1, 2, 3], target, pole, 1.0).unwrap();
            assert!(r.error.is_finite(), "{r:?}");
            assert_consistent(&s, &local, &model);
            assert_lengths(&lengths, &bone_lengths(&model, &[1, 2, 3]));
            let d = hip.distance(target);
            if d < inner {
                // Folded as far as it goes; the error is the shortfall (1e-5: rounding).
                assert!(!r.reached && (r.error - (inner - d)).abs() < 1e-5, "{r:?}");
            } else {
                // Reachable: 1e-4 m, the required accuracy (0.1 mm, invisible on a character).
                assert!(r.reached && r.error < 1e-4, "{target}: {r:?}");
            }
        }
    }

    #[test]
    fn two_bone_rejects_bad_input_without_touching_the_pose() {
        let s = leg(Mat4::IDENTITY);
        let (local0, model0) = rest_pose(&s);
        let good = pos(&model0, 1) + Vec3::new(0.2, -0.5, 0.3);
        let nan = Vec3::new(f32::NAN, 0.0, 0.0);
        let inf = Vec3::new(0.0, f32::INFINITY, 0.0);
        let cases = [
            (1, 2, 3, nan, Vec3::Z),  // non-finite target
            (1, 2, 3, inf, Vec3::Z),  // infinite target
            (1, 2, 3, good, nan),     // non-finite pole
            (1, 2, 9, good, Vec3::Z), // end out of range
            (2, 1, 3, good, Vec3::Z), // root below mid
            (5, 2, 3, good, Vec3::Z), // root not an ancestor
            (1, 3, 2, good, Vec3::Z), // mid below end
        ];
        for (root, mid, end, target, pole) in cases {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = two_bone(
                &s,
                &mut local,
                &mut model,
                [root, mid, end],
                target,
                pole,
                1.0,
            );
            assert!(r.is_err(), "{r:?}");
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
        }
        // A pose of the wrong length.
        let (mut local, mut model) = (local0.clone(), model0.clone());
        let r = two_bone(
            &s,
            &mut local[..5],
            &mut model,
            [1, 2, 3],
            good,
            Vec3::Z,
            1.0,
        );
        assert!(r.is_err(), "{r:?}");
    }

    #[test]
    fn two_bone_weight_blends_from_fk() {
        let s = leg(tilted_base(1.0));
        let (local0, model0) = rest_pose(&s);
        let target = pos(&model0, 1) + Vec3::new(0.3, -0.3, 0.4);
        let pole = target + Vec3::Z;
        let run = |w: f32| {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = two_bone(&s, &mut local, &mut model, [1, 2, 3], target, pole, w).unwrap();
            assert_consistent(&s, &local, &model);
            (local, model, r)
        };
        // Weight 0, negative and NaN weights leave every bit alone.
        for w in [0.0, -1.0, f32::NAN] {
            let (local, model, r) = run(w);
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
            assert_eq!(r.iterations, 0);
            assert!(
                r.reached,
                "the target is reachable even though nothing was solved"
            );
        }
        let (full, _, r1) = run(1.0);
        let (over, _, _) = run(7.0);
        assert_eq!(full, over, "weights above 1 clamp to 1");
        let (half, _, rh) = run(0.5);
        let r0 = run(0.0).2;
        assert!(
            rh.error > r1.error && rh.error < r0.error,
            "{r0:?} {rh:?} {r1:?}"
        );
        for j in [1, 2] {
            // Half weight is the slerp midpoint: half the arc from FK, half from IK. 1e-5 rad:
            // the series slerp and quaternion rounding are far below it.
            let whole = rotation_angle(local0[j].rotation, full[j].rotation);
            let first = rotation_angle(local0[j].rotation, half[j].rotation);
            let second = rotation_angle(half[j].rotation, full[j].rotation);
            assert!(whole > 0.05, "joint {j} barely moved: {whole}");
            assert!((first - whole / 2.0).abs() < 1e-5 && (second - whole / 2.0).abs() < 1e-5);
        }
    }
}
