//! Fixtures shared by the IK solvers' unit tests (skeletons, poses, checks), the tests of the
//! two chain solvers (CCD and FABRIK run through the same cases), and the test of every solver
//! under a non-uniformly scaled joint. Two-bone and aim tests live beside their jobs.

use glam::{EulerRot, Mat4, Quat, Vec3};

use super::{
    AimJob, CcdJob, FabrikJob, IkError, IkResult, IterLimits, MAX_CCD_CHAIN, TwoBoneJob, origin,
};
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::Transform;
use crate::anim::{RawSkeleton, local_to_model};

/// A model-space base with a rotation and an offset: solvers must not assume identity roots.
pub(super) fn tilted_base(scale: f32) -> Mat4 {
    Mat4::from_scale_rotation_translation(
        Vec3::splat(scale),
        Quat::from_euler(EulerRot::YXZ, 0.6, -0.3, 0.25),
        Vec3::new(1.0, 0.2, -2.0),
    )
}

pub(super) fn joint(translation: Vec3, rotation: Quat) -> Transform {
    Transform {
        translation,
        rotation,
        scale: Vec3::ONE,
    }
}

pub(super) fn skeleton(parents: &[Option<usize>], rest: Vec<Transform>, base: Mat4) -> Skeleton {
    let n = parents.len();
    RawSkeleton {
        names: (0..n).map(|j| format!("j{j}")).collect(),
        parents: parents.to_vec(),
        rest,
        inverse_bind: vec![Mat4::IDENTITY; n],
        root_bases: parents
            .iter()
            .map(|p| if p.is_none() { base } else { Mat4::IDENTITY })
            .collect(),
    }
    .validate()
    .unwrap()
}

/// Hips (0), thigh (1), shin (2), foot (3), toe (4), other thigh (5): two-bone on 1-2-3,
/// with a joint below the effector and one beside the chain to check the model refresh.
pub(super) fn leg(base: Mat4) -> Skeleton {
    skeleton(
        &[None, Some(0), Some(1), Some(2), Some(3), Some(0)],
        vec![
            joint(Vec3::new(0.0, 1.0, 0.0), Quat::from_rotation_y(0.2)),
            joint(Vec3::new(0.1, -0.05, 0.0), Quat::from_rotation_x(0.1)),
            joint(
                Vec3::new(0.0, -0.45, 0.01),
                Quat::from_rotation_x(-0.3) * Quat::from_rotation_z(0.05),
            ),
            joint(Vec3::new(0.0, -0.42, -0.02), Quat::from_rotation_y(0.2)),
            joint(Vec3::new(0.0, -0.05, 0.12), Quat::IDENTITY),
            joint(Vec3::new(-0.1, -0.05, 0.0), Quat::IDENTITY),
        ],
        base,
    )
}

/// Pelvis (0), a 5-joint chain 1-2-3-4-5 (bones 0.3, 0.25, 0.2, 0.15 m, slightly bent at
/// rest so no sweep starts degenerate) and a branch (6) off joint 3.
pub(super) fn tail() -> Skeleton {
    let bend = |a: f32| Quat::from_rotation_z(a) * Quat::from_rotation_x(0.5 * a);
    skeleton(
        &[None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(2)],
        vec![
            joint(Vec3::new(0.0, 1.0, 0.0), Quat::IDENTITY),
            joint(Vec3::new(0.0, 0.1, 0.0), bend(0.2)),
            joint(Vec3::new(0.0, 0.3, 0.0), bend(0.15)),
            joint(Vec3::new(0.0, 0.25, 0.0), bend(-0.1)),
            joint(Vec3::new(0.0, 0.2, 0.0), bend(0.1)),
            joint(Vec3::new(0.0, 0.15, 0.0), Quat::IDENTITY),
            joint(Vec3::new(0.1, 0.0, 0.0), Quat::IDENTITY),
        ],
        tilted_base(1.0),
    )
}
pub(super) const TAIL: [usize; 5] = [1, 2, 3, 4, 5];
pub(super) const TAIL_LENGTH: f32 = 0.9;

pub(super) fn rest_pose(s: &Skeleton) -> (Vec<Transform>, Vec<Mat4>) {
    let local = s.rest().to_vec();
    let mut model = vec![Mat4::IDENTITY; s.len()];
    local_to_model(s, &local, &mut model);
    (local, model)
}

pub(super) fn pos(model: &[Mat4], j: usize) -> Vec3 {
    origin(&model[j])
}

pub(super) fn bone_lengths(model: &[Mat4], joints: &[usize]) -> Vec<f32> {
    joints
        .windows(2)
        .map(|p| pos(model, p[0]).distance(pos(model, p[1])))
        .collect()
}

/// `model` must equal a fresh FK of `local`, and nothing may be NaN.
pub(super) fn assert_consistent(s: &Skeleton, local: &[Transform], model: &[Mat4]) {
    assert!(local.iter().all(Transform::is_finite), "NaN in local pose");
    let mut fresh = vec![Mat4::IDENTITY; s.len()];
    local_to_model(s, local, &mut fresh);
    for (j, (m, f)) in model.iter().zip(&fresh).enumerate() {
        // Same products in the same order, so in practice exact; 1e-5 is far above f32
        // rounding at metre scale (~1e-7) and far below a stale matrix (centimetres off).
        assert!(m.abs_diff_eq(*f, 1e-5), "joint {j}: {m} vs {f}");
    }
}

pub(super) fn assert_lengths(before: &[f32], after: &[f32]) {
    for (b, a) in before.iter().zip(after) {
        // Only rotations change; lengths move by f32 rounding of a few matrix products
        // (~1e-7 at metre scale), well inside 1e-5.
        assert!((a - b).abs() < 1e-5, "bone length {b} became {a}");
    }
}

pub(super) fn bits(local: &[Transform], model: &[Mat4]) -> Vec<u32> {
    let l = local.iter().flat_map(|t| {
        t.translation
            .to_array()
            .into_iter()
            .chain(t.rotation.to_array())
            .chain(t.scale.to_array())
    });
    let m = model.iter().flat_map(|m| m.to_cols_array());
    l.chain(m).map(f32::to_bits).collect()
}

/// Deterministic directions spread over the sphere (a Fibonacci lattice).
pub(super) fn sphere(count: usize) -> impl Iterator<Item = Vec3> {
    (0..count).map(move |i| {
        let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
        let r = (1.0 - y * y).sqrt();
        let phi = i as f32 * 2.399_963;
        Vec3::new(r * phi.cos(), y, r * phi.sin())
    })
}

pub(super) fn angle(a: Vec3, b: Vec3) -> f32 {
    a.cross(b).length().atan2(a.dot(b))
}

/// Angle of the rotation between two unit quaternions, accurate for small angles (glam's
/// `Quat::angle_between` uses an approximate `acos`).
pub(super) fn rotation_angle(a: Quat, b: Quat) -> f32 {
    let d = a.inverse() * b;
    2.0 * d.xyz().length().atan2(d.w.abs())
}

/// Head on a neck: the head (2) has a rest twist and a child (3) to be carried along.
pub(super) fn neck() -> Skeleton {
    skeleton(
        &[None, Some(0), Some(1), Some(2)],
        vec![
            joint(Vec3::Y, Quat::from_rotation_y(0.4)),
            joint(Vec3::Y * 0.5, Quat::from_rotation_x(0.3)),
            joint(
                Vec3::Y * 0.1,
                Quat::from_euler(EulerRot::XYZ, 0.2, -0.5, 0.1),
            ),
            joint(Vec3::Z * 0.1, Quat::IDENTITY),
        ],
        tilted_base(1.0),
    )
}

/// Builds a [`TwoBoneJob`] on `joints` (root, middle, end) and runs it once.
pub(super) fn two_bone(
    s: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    [root, mid, end]: [usize; 3],
    target: Vec3,
    pole: Vec3,
    weight: f32,
) -> Result<IkResult, IkError> {
    TwoBoneJob::new(s, root, mid, end)?.run(s, local, model, target, pole, weight)
}

/// Builds an [`AimJob`] on `joint` with `[forward, up]` and runs it once.
pub(super) fn aim(
    s: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    joint: usize,
    [forward, up]: [Vec3; 2],
    target: Vec3,
    weight: f32,
) -> Result<IkResult, IkError> {
    AimJob::new(s, joint, forward, up)?.run(s, local, model, target, weight)
}

/// Builds a [`CcdJob`] on `chain` and runs it once.
fn ccd(
    s: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    chain: &[usize],
    target: Vec3,
    limits: IterLimits,
    weight: f32,
) -> Result<IkResult, IkError> {
    CcdJob::new(s, chain, limits)?.run(s, local, model, target, weight)
}

/// Builds a [`FabrikJob`] on `chain` and runs it once with `scratch`.
fn fabrik(
    s: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    chain: &[usize],
    (target, limits): (Vec3, IterLimits),
    scratch: &mut [Vec3],
    weight: f32,
) -> Result<IkResult, IkError> {
    FabrikJob::new(s, chain, limits)?.run(s, local, model, target, scratch, weight)
}

/// Reachable targets for the tail: across the sphere, 30% to 85% of full reach (CCD
/// converges slowly only near full extension).
fn tail_targets(base: Vec3) -> impl Iterator<Item = Vec3> {
    sphere(40)
        .enumerate()
        .map(move |(i, d)| base + d * TAIL_LENGTH * (0.3 + 0.55 * ((i * 7) % 10) as f32 / 9.0))
}

type ChainSolver = fn(
    &Skeleton,
    &mut [Transform],
    &mut [Mat4],
    &[usize],
    Vec3,
    IterLimits,
    f32,
) -> Result<IkResult, IkError>;

fn run_fabrik(
    s: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    chain: &[usize],
    target: Vec3,
    limits: IterLimits,
    weight: f32,
) -> Result<IkResult, IkError> {
    let mut scratch = [Vec3::ZERO; 8];
    fabrik(
        s,
        local,
        model,
        chain,
        (target, limits),
        &mut scratch,
        weight,
    )
}

const SOLVERS: [(&str, ChainSolver); 2] = [("ccd", ccd), ("fabrik", run_fabrik)];

#[test]
fn chain_solvers_reach_reachable_targets() {
    let s = tail();
    let (local0, model0) = rest_pose(&s);
    let lengths = bone_lengths(&model0, &TAIL);
    assert!((lengths.iter().sum::<f32>() - TAIL_LENGTH).abs() < 1e-5);
    // 1e-5 m tolerance, checked against the required 1e-4 m below.
    let limits = IterLimits {
        max_iterations: 100,
        tolerance: 1e-5,
    };
    for (name, solve) in SOLVERS {
        let mut most = 0;
        for target in tail_targets(pos(&model0, 1)) {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = solve(&s, &mut local, &mut model, &TAIL, target, limits, 1.0).unwrap();
            let tip = pos(&model, 5);
            // 1e-4 m: the required accuracy (0.1 mm); the solvers stop at 1e-5, plus rounding.
            assert!(
                tip.distance(target) < 1e-4,
                "{name}: {target} -> {tip} ({r:?})"
            );
            assert!(r.reached && r.error < 1e-4, "{name}: {r:?}");
            assert!(r.iterations >= 1 && r.iterations <= limits.max_iterations);
            assert_lengths(&lengths, &bone_lengths(&model, &TAIL));
            assert_consistent(&s, &local, &model);
            assert_eq!(
                local[5], local0[5],
                "{name}: the effector's rotation is kept"
            );
            assert_eq!(local[6], local0[6], "{name}: off-chain joints are kept");
            for j in 0..s.len() {
                assert_eq!(local[j].translation, local0[j].translation);
                assert_eq!(local[j].scale, local0[j].scale);
            }
            most = most.max(r.iterations);
        }
        println!("{name}: at most {most} iterations");
    }
}

#[test]
fn chain_solvers_stretch_towards_unreachable_targets() {
    let s = tail();
    let (local0, model0) = rest_pose(&s);
    let base = pos(&model0, 1);
    let lengths = bone_lengths(&model0, &TAIL);
    let limits = IterLimits {
        max_iterations: 200,
        tolerance: 1e-5,
    };
    for (name, solve) in SOLVERS {
        for dir in sphere(12) {
            let target = base + dir * (TAIL_LENGTH + 0.4);
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = solve(&s, &mut local, &mut model, &TAIL, target, limits, 1.0).unwrap();
            assert_consistent(&s, &local, &model);
            assert_lengths(&lengths, &bone_lengths(&model, &TAIL));
            assert!(!r.reached && r.iterations <= limits.max_iterations, "{r:?}");
            // Straight towards the target: the error is the 0.4 m beyond reach. FABRIK lays
            // the chain straight directly; CCD approaches it asymptotically, and within these
            // iterations to ~1e-6 rad and ~3e-7 m, so 1e-5 m and 1e-4 rad leave margin for
            // rounding while catching any real bend (1e-4 rad over 0.9 m is 0.09 mm).
            assert!((r.error - 0.4).abs() < 1e-5, "{name}: {r:?}");
            for pair in TAIL.windows(2) {
                let bone = pos(&model, pair[1]) - pos(&model, pair[0]);
                assert!(angle(bone, target - base) < 1e-4, "{name}: bent chain");
            }
        }
    }
}

#[test]
fn chain_solvers_respect_the_iteration_limit_and_weights() {
    let s = tail();
    let (local0, model0) = rest_pose(&s);
    let target = pos(&model0, 1) + Vec3::new(-0.4, -0.2, 0.3);
    for (name, solve) in SOLVERS {
        for max_iterations in [0, 1, 2, 3] {
            let limits = IterLimits {
                max_iterations,
                tolerance: 0.0,
            };
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = solve(&s, &mut local, &mut model, &TAIL, target, limits, 1.0).unwrap();
            assert!(r.iterations <= max_iterations, "{name}: {r:?}");
            assert_consistent(&s, &local, &model);
            if max_iterations == 0 {
                assert_eq!(local, local0, "{name}: no iterations, no change");
            }
        }
        let limits = IterLimits::default();
        let run = |w: f32| {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = solve(&s, &mut local, &mut model, &TAIL, target, limits, w).unwrap();
            assert_consistent(&s, &local, &model);
            (local, model, r)
        };
        for w in [0.0, -0.5, f32::NAN] {
            let (local, model, r) = run(w);
            assert_eq!(bits(&local, &model), bits(&local0, &model0), "{name}");
            assert_eq!(r.iterations, 0);
        }
        let (full, _, r1) = run(1.0);
        let (half, _, rh) = run(0.5);
        assert!(r1.reached, "{name}: {r1:?}");
        assert!(
            rh.error > r1.error && rh.error < run(0.0).2.error,
            "{name}: {rh:?}"
        );
        for &j in &TAIL[..4] {
            // Half weight is the slerp midpoint of each joint's FK and IK rotations; 1e-5
            // rad covers the series slerp and quaternion rounding.
            let whole = rotation_angle(local0[j].rotation, full[j].rotation);
            let first = rotation_angle(local0[j].rotation, half[j].rotation);
            assert!((first - whole / 2.0).abs() < 1e-5, "{name}: joint {j}");
        }
    }
}

#[test]
fn chain_errors_name_what_is_wrong() {
    let s = tail();
    let (mut local, mut model) = rest_pose(&s);
    let target = Vec3::ONE;
    let limits = IterLimits::default();
    let message = |chain: &[usize], local: &mut [Transform], model: &mut [Mat4], t: Vec3| {
        let c = ccd(&s, local, model, chain, t, limits, 1.0).unwrap_err();
        let mut scratch = [Vec3::ZERO; 8];
        let f = fabrik(&s, local, model, chain, (t, limits), &mut scratch, 1.0).unwrap_err();
        // Compared as text: a NaN target makes the errors unequal under `PartialEq`.
        assert_eq!(c.to_string(), f.to_string(), "both solvers validate alike");
        c.to_string()
    };
    let cases: [(&[usize], &str); 5] = [
        (&[3], "IK chain needs at least 2 joints, got 1"),
        (&[], "IK chain needs at least 2 joints, got 0"),
        (
            &[1, 2, 4, 5],
            "IK chain: joint 2 is not the parent of joint 4",
        ),
        (&[2, 6, 3], "IK chain: joint 6 is not the parent of joint 3"),
        (
            &[1, 2, 9],
            "IK chain: joint 9 is out of range (skeleton has 7 joints)",
        ),
    ];
    for (chain, expected) in cases {
        assert_eq!(message(chain, &mut local, &mut model, target), expected);
    }
    assert_eq!(
        message(&TAIL, &mut local, &mut model, Vec3::new(f32::NAN, 1.0, 2.0)),
        "IK target [NaN, 1, 2] is not finite"
    );
    assert_eq!(
        message(&TAIL, &mut local[..6], &mut model, target),
        "IK pose has 6 local transforms and 7 model matrices, skeleton has 7 joints"
    );
    let mut scratch = [Vec3::ZERO; 3];
    let err = fabrik(
        &s,
        &mut local,
        &mut model,
        &TAIL,
        (target, limits),
        &mut scratch,
        1.0,
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "FABRIK scratch holds 3 positions, chain has 5 joints"
    );
    // None of the failures touched the pose.
    let (local0, model0) = rest_pose(&s);
    assert_eq!(bits(&local, &model), bits(&local0, &model0));
}

#[test]
fn ccd_rejects_chains_beyond_its_buffer() {
    let n = MAX_CCD_CHAIN + 1;
    let parents: Vec<_> = (0..n).map(|j| j.checked_sub(1)).collect();
    let s = skeleton(
        &parents,
        vec![joint(Vec3::Y * 0.1, Quat::IDENTITY); n],
        Mat4::IDENTITY,
    );
    let (mut local, mut model) = rest_pose(&s);
    let chain: Vec<_> = (0..n).collect();
    let limits = IterLimits::default();
    let err = ccd(&s, &mut local, &mut model, &chain, Vec3::X, limits, 1.0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "CCD chain has 65 joints; at most 64 are supported"
    );
    // FABRIK has no such limit: its scratch is the caller's.
    let mut scratch = vec![Vec3::ZERO; n];
    let r = fabrik(
        &s,
        &mut local,
        &mut model,
        &chain,
        (Vec3::X, limits),
        &mut scratch,
        1.0,
    );
    assert!(r.unwrap().reached);
    assert_consistent(&s, &local, &model);
}

#[test]
fn solvers_under_a_scaled_joint_keep_directions() {
    // A non-uniform scale on the tail's pelvis makes the chain's parent space non-conformal:
    // positions are then approximate, but nothing may break and the aim stays exact.
    let mut raw_rest = tail().rest().to_vec();
    raw_rest[0].scale = Vec3::new(1.0, 1.3, 0.8);
    let s = skeleton(
        &[None, Some(0), Some(1), Some(2), Some(3), Some(4), Some(2)],
        raw_rest,
        tilted_base(1.0),
    );
    let (local0, model0) = rest_pose(&s);
    let target = pos(&model0, 1) + Vec3::new(0.3, 0.4, -0.2);
    for (name, solve) in SOLVERS {
        let (mut local, mut model) = (local0.clone(), model0.clone());
        let limits = IterLimits::default();
        let r = solve(&s, &mut local, &mut model, &TAIL, target, limits, 1.0).unwrap();
        assert!(r.error.is_finite(), "{name}: {r:?}");
        assert_consistent(&s, &local, &model);
    }
    let (mut local, mut model) = (local0.clone(), model0.clone());
    let r = aim(
        &s,
        &mut local,
        &mut model,
        3,
        [Vec3::Y, Vec3::Z],
        target,
        1.0,
    )
    .unwrap();
    // 1e-4 rad: the required accuracy (0.1 mm at a metre); directions are solved
    // exactly in parent space.
    assert!(r.error < 1e-4, "{r:?}");
    assert_consistent(&s, &local, &model);
}
