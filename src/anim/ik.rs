//! Inverse kinematics, applied to a pose after forward kinematics: analytic two-bone with a pole,
//! CCD and FABRIK on chains, and aim (look-at) of a single joint.
//!
//! Every solver takes a pose as its local transforms plus the model-space matrices FK made from
//! them ([`crate::anim::local_to_model`]), changes only the local *rotations* of the joints it
//! solves (bone lengths survive by construction), and leaves `model` consistent with `local` for
//! all joints. `weight` in [0, 1] blends each changed rotation from its FK value to its IK value;
//! weight 0 leaves the pose bit-identical. Solvers never allocate and never write NaN.
//!
//! Rotations are solved in the space of each joint's parent (via the inverse of the parent's
//! model matrix), so directions are exact under any parent transform. Positions are exact when
//! parent spaces are conformal (rotation and uniform scale); under non-uniform parent scale a
//! rotation also changes a bone's model-space length, and the result is approximate.

use glam::{Mat3, Mat4, Quat, Vec3};
use thiserror::Error;

use super::skeleton::Skeleton;
use super::transform::{Transform, slerp_shortest};

/// Longest chain [`ccd`] accepts: it keeps the FK rotations for weight blending in a fixed stack
/// buffer so that a solve never allocates. Real IK chains (limbs, spines, tails) are far shorter.
pub const MAX_CCD_CHAIN: usize = 64;

/// Vectors shorter than this (metres, or parent-space units) have no reliable direction in f32:
/// at metre scale positions carry about 1e-7 of rounding, so a shorter vector's direction is noise.
const MIN_LENGTH: f32 = 1e-6;

/// Outcome of a solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkResult {
    /// Distance from the end effector to the target in the pose as left (metres, >= 0; for
    /// [`aim`], the angle in radians, in [0, π], between the forward axis and the target
    /// direction). Measured after weight blending. `f32::INFINITY` when nothing could be solved
    /// (bad joint indices, non-finite input, degenerate geometry); the pose is then untouched.
    pub error: f32,
    /// Iterations used: full sweeps for [`ccd`] and [`fabrik`] (never more than
    /// [`IterLimits::max_iterations`]), 1 for the analytic solvers, 0 when nothing was solved.
    pub iterations: u32,
    /// Whether the target was reachable, judged on the full-weight solution: two-bone, the target
    /// lies within the chain's reach; CCD and FABRIK, the solution came within
    /// [`IterLimits::tolerance`]; aim, the direction was defined. With weight 0 (no solve):
    /// two-bone and aim as above, CCD and FABRIK whether the untouched pose is within tolerance.
    pub reached: bool,
}

/// Returned when a solver could do nothing; the pose is untouched.
const UNSOLVED: IkResult = IkResult {
    error: f32::INFINITY,
    iterations: 0,
    reached: false,
};

/// Limits for the iterative solvers ([`ccd`], [`fabrik`]).
#[derive(Clone, Copy, Debug)]
pub struct IterLimits {
    /// Most full sweeps over the chain (0 solves nothing). Default 32.
    pub max_iterations: u32,
    /// Stop once the end effector is this close to the target (metres, >= 0; negative or NaN
    /// counts as 0). Default 1e-4 (0.1 mm, far below what a rendered crowd can show).
    pub tolerance: f32,
}

impl Default for IterLimits {
    fn default() -> Self {
        Self {
            max_iterations: 32,
            tolerance: 1e-4,
        }
    }
}

/// What is wrong with a chain or the data handed to [`ccd`] or [`fabrik`]. The pose is untouched.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IkError {
    /// A chain needs a joint to rotate and an end effector.
    #[error("IK chain needs at least 2 joints, got {joints}")]
    ChainTooShort { joints: usize },
    /// The chain is longer than [`ccd`]'s fixed buffer.
    #[error("CCD chain has {joints} joints; at most {max} are supported")]
    ChainTooLong { joints: usize, max: usize },
    /// A chain entry is not a joint of the skeleton.
    #[error("IK chain: joint {joint} is out of range (skeleton has {joint_count} joints)")]
    JointOutOfRange { joint: usize, joint_count: usize },
    /// Consecutive chain entries must be parent and child.
    #[error("IK chain: joint {parent} is not the parent of joint {child}")]
    NotParent { parent: usize, child: usize },
    /// `local` or `model` does not have one entry per joint.
    #[error(
        "IK pose has {local} local transforms and {model} model matrices, skeleton has {joints} joints"
    )]
    PoseLength {
        local: usize,
        model: usize,
        joints: usize,
    },
    /// FABRIK's scratch buffer cannot hold one position per chain joint.
    #[error("FABRIK scratch holds {scratch} positions, chain has {joints} joints")]
    ScratchTooShort { scratch: usize, joints: usize },
    /// The target contains NaN or infinity.
    #[error("IK target {target} is not finite")]
    NonFiniteTarget { target: Vec3 },
}

/// Analytic two-bone IK (thigh-shin-foot, upper arm-forearm-hand).
///
/// Rotates `root` and `mid` so that `end`'s origin reaches `target` (model space, metres), with
/// the chain bending in the plane that contains `pole` (a model-space point the middle joint
/// bends towards, e.g. in front of the knee). `root` must be an ancestor of `mid` and `mid` of
/// `end`; joints in between (twist joints) are carried along unchanged.
///
/// A target beyond reach straightens the chain and points it at the target; one closer than
/// the bones' length difference folds it, pointing at the target. A target at the root keeps the
/// chain's current reach direction; a pole on the root-target line keeps the current bend plane.
/// `weight` in [0, 1] (clamped; NaN counts as 0) blends from the FK pose; 0 returns at once.
///
/// Bad indices, a `local`/`model` length other than the joint count, non-finite `target` or
/// `pole`, or a bone shorter than 1 µm leave the pose untouched with `error` = infinity.
// Flat like the other solvers: a pose, three joints, two points, a weight.
#[allow(clippy::too_many_arguments)]
pub fn two_bone(
    skeleton: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    root: usize,
    mid: usize,
    end: usize,
    target: Vec3,
    pole: Vec3,
    weight: f32,
) -> IkResult {
    let n = skeleton.len();
    // Order matters: `mid < end < n` must hold before `mid` is walked from.
    let valid = local.len() == n
        && model.len() == n
        && end < n
        && is_ancestor(skeleton, mid, end)
        && is_ancestor(skeleton, root, mid);
    if !valid || !target.is_finite() || !pole.is_finite() {
        return UNSOLVED;
    }
    let (a, b, c) = (
        origin(&model[root]),
        origin(&model[mid]),
        origin(&model[end]),
    );
    let (upper, lower) = (a.distance(b), b.distance(c));
    if upper < MIN_LENGTH || lower < MIN_LENGTH {
        return UNSOLVED;
    }
    let dist = a.distance(target);
    let reached = dist <= upper + lower && dist >= (upper - lower).abs();
    let w = clamp_weight(weight);
    if w == 0.0 {
        return IkResult {
            error: c.distance(target),
            iterations: 0,
            reached,
        };
    }
    let Some((root_ik, mid_ik)) =
        solve_two_bone(skeleton, local, model, [root, mid, end], target, pole)
    else {
        return UNSOLVED;
    };
    let (root_fk, mid_fk) = (local[root].rotation, local[mid].rotation);
    local[root].rotation = blend(root_fk, root_ik, w);
    local[mid].rotation = blend(mid_fk, mid_ik, w);
    refresh_from(skeleton, local, model, root);
    IkResult {
        error: origin(&model[end]).distance(target),
        iterations: 1,
        reached,
    }
}

/// The full-weight local rotations of the two-bone root and middle joint, or `None` when a
/// parent space is singular. Inputs are validated by [`two_bone`].
fn solve_two_bone(
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

/// Cyclic coordinate descent over `chain` (joint indices from the chain root to the end
/// effector, each the parent of the next).
///
/// Each sweep visits the joints from the one nearest the effector back to the chain root and
/// swings each (shortest arc, in its parent space) so that the effector's origin points at
/// `target` (model space, metres). Sweeps stop at `limits.max_iterations` or once the effector is
/// within `limits.tolerance`. An unreachable target stretches the chain towards it. `weight` in
/// [0, 1] (clamped; NaN counts as 0) blends each chain joint from its FK rotation; 0 returns at
/// once. The effector's own rotation is never changed.
///
/// # Errors
/// [`IkError`] for a chain that is too short, longer than [`MAX_CCD_CHAIN`], out of range or not
/// linked parent to child, a pose of the wrong length, or a non-finite target; the pose is then
/// untouched.
pub fn ccd(
    skeleton: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    chain: &[usize],
    target: Vec3,
    limits: IterLimits,
    weight: f32,
) -> Result<IkResult, IkError> {
    validate_chain(skeleton, local.len(), model.len(), chain)?;
    if chain.len() > MAX_CCD_CHAIN {
        return Err(IkError::ChainTooLong {
            joints: chain.len(),
            max: MAX_CCD_CHAIN,
        });
    }
    if !target.is_finite() {
        return Err(IkError::NonFiniteTarget { target });
    }
    let tolerance = limits.tolerance.max(0.0);
    let (first, last) = (chain[0], chain.len() - 1);
    let effector = chain[last];
    let mut tip = origin(&model[effector]);
    let w = clamp_weight(weight);
    if w == 0.0 {
        let error = tip.distance(target);
        return Ok(IkResult {
            error,
            iterations: 0,
            reached: error <= tolerance,
        });
    }
    // The FK rotations, for blending once the full-weight solution is known.
    let mut fk = [Quat::IDENTITY; MAX_CCD_CHAIN];
    for (saved, &joint) in fk.iter_mut().zip(chain) {
        *saved = local[joint].rotation;
    }

    let mut iterations = 0;
    while iterations < limits.max_iterations && tip.distance(target) > tolerance {
        iterations += 1;
        for k in (0..last).rev() {
            let joint = chain[k];
            let parent = parent_matrix(skeleton, model, joint);
            // A singular parent space or an effector/target on the joint's origin gives this
            // joint nothing to do; the others still can.
            let Some(parent_inv) = inverse(&parent) else {
                continue;
            };
            let t = &local[joint];
            let Some(rotation) = swing(
                t.rotation,
                parent_inv.transform_point3(tip) - t.translation,
                parent_inv.transform_point3(target) - t.translation,
            ) else {
                continue;
            };
            local[joint].rotation = rotation;
            // Only the chain below matters for the next joint; the rest is refreshed at the end.
            model[joint] = parent * local[joint].to_mat4();
            for pair in chain[k..].windows(2) {
                model[pair[1]] = model[pair[0]] * local[pair[1]].to_mat4();
            }
            tip = origin(&model[effector]);
        }
    }
    let solved_error = tip.distance(target);

    if w < 1.0 {
        for (&fk_rotation, &joint) in fk.iter().zip(chain) {
            local[joint].rotation = slerp_shortest(fk_rotation, local[joint].rotation, w);
        }
    }
    refresh_from(skeleton, local, model, first);
    Ok(IkResult {
        error: origin(&model[effector]).distance(target),
        iterations,
        reached: solved_error <= tolerance,
    })
}

/// FABRIK (forward and backward reaching IK) over `chain` (joint indices from the chain root to
/// the end effector, each the parent of the next).
///
/// Solves joint positions first: alternately pulls the effector onto `target` (model space,
/// metres) and the chain root back onto its place, keeping every bone's length, until the
/// effector is within `limits.tolerance` or `limits.max_iterations` sweeps are done. A target
/// beyond the chain's total length lays the chain straight towards it in one sweep. The
/// positions then become local rotations, from the chain root down: each joint swings its bone
/// from the old to the new direction along the shortest arc, in its parent space, so no twist is
/// added. `scratch` holds the positions (at least `chain.len()` entries; its contents are
/// overwritten), so that nothing is allocated. `weight` in [0, 1] (clamped; NaN counts as 0)
/// blends each chain joint from its FK rotation; 0 returns at once.
///
/// # Errors
/// [`IkError`] for a chain that is too short, out of range or not linked parent to child, a pose
/// of the wrong length, a scratch buffer that is too short, or a non-finite target; the pose is
/// then untouched.
// Flat like the other solvers: a pose, a chain, limits, scratch.
#[allow(clippy::too_many_arguments)]
pub fn fabrik(
    skeleton: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    chain: &[usize],
    target: Vec3,
    limits: IterLimits,
    scratch: &mut [Vec3],
    weight: f32,
) -> Result<IkResult, IkError> {
    validate_chain(skeleton, local.len(), model.len(), chain)?;
    if scratch.len() < chain.len() {
        return Err(IkError::ScratchTooShort {
            scratch: scratch.len(),
            joints: chain.len(),
        });
    }
    if !target.is_finite() {
        return Err(IkError::NonFiniteTarget { target });
    }
    let tolerance = limits.tolerance.max(0.0);
    let (first, last) = (chain[0], chain.len() - 1);
    let effector = chain[last];
    let w = clamp_weight(weight);
    if w == 0.0 {
        let error = origin(&model[effector]).distance(target);
        return Ok(IkResult {
            error,
            iterations: 0,
            reached: error <= tolerance,
        });
    }

    // `model` stays the FK pose while positions are solved, so bone k (chain[k] to chain[k+1])
    // reads its length, and its fallback direction for coincident points, from there.
    let points = &mut scratch[..chain.len()];
    for (point, &joint) in points.iter_mut().zip(chain) {
        *point = origin(&model[joint]);
    }
    let base = points[0];
    let total: f32 = (0..last).map(|k| fk_bone(model, chain, k).length()).sum();
    let mut iterations = 0;
    if points[last].distance(target) <= tolerance || limits.max_iterations == 0 {
        // Nothing to solve; converting the unchanged positions would only add rounding.
        return Ok(IkResult {
            error: points[last].distance(target),
            iterations,
            reached: points[last].distance(target) <= tolerance,
        });
    }
    if base.distance(target) >= total {
        // Out of reach: the closest pose is the straight chain pointing at the target.
        if let Some(dir) = direction(target - base) {
            for k in 0..last {
                points[k + 1] = points[k] + dir * fk_bone(model, chain, k).length();
            }
        }
        iterations = 1;
    } else {
        while iterations < limits.max_iterations && points[last].distance(target) > tolerance {
            iterations += 1;
            points[last] = target;
            for k in (0..last).rev() {
                let bone = fk_bone(model, chain, k);
                let dir = direction(points[k] - points[k + 1]).unwrap_or(-bone.normalize_or_zero());
                points[k] = points[k + 1] + dir * bone.length();
            }
            points[0] = base;
            for k in 0..last {
                let bone = fk_bone(model, chain, k);
                let dir = direction(points[k + 1] - points[k]).unwrap_or(bone.normalize_or_zero());
                points[k + 1] = points[k] + dir * bone.length();
            }
        }
    }

    // Positions to rotations, root first: `model` of each solved joint is overwritten with its
    // full-weight matrix, which is the parent space the next joint is solved in, while `local`
    // receives the blended rotation. The final refresh makes `model` match `local` again.
    for k in 0..last {
        let (joint, child) = (chain[k], chain[k + 1]);
        let parent = parent_matrix(skeleton, model, joint);
        let t = local[joint];
        // The bone to the child in parent space is fixed in the joint's own space.
        let bone = t.rotation * (t.scale * local[child].translation);
        let ik = inverse(&parent)
            .and_then(|inv| {
                swing(
                    t.rotation,
                    bone,
                    inv.transform_point3(points[k + 1]) - t.translation,
                )
            })
            .unwrap_or(t.rotation);
        model[joint] = parent * Transform { rotation: ik, ..t }.to_mat4();
        local[joint].rotation = blend(t.rotation, ik, w);
    }
    let solved_tip = model[chain[last - 1]].transform_point3(local[effector].translation);
    refresh_from(skeleton, local, model, first);
    Ok(IkResult {
        error: origin(&model[effector]).distance(target),
        iterations,
        reached: solved_tip.distance(target) <= tolerance,
    })
}

/// The model-space vector of bone `k` (chain[k] to chain[k + 1]) in `model`.
fn fk_bone(model: &[Mat4], chain: &[usize], k: usize) -> Vec3 {
    origin(&model[chain[k + 1]]) - origin(&model[chain[k]])
}

/// Aim (look-at): rotates `joint` so that its local axis `forward` (in the joint's own space,
/// e.g. +Z for a head; need not be unit) points at `target` (model space, metres), turning it
/// about that axis so that `up` (a joint-space axis) is as close as possible to model +Y.
///
/// With `up` zero or parallel to `forward`, or the target straight above or below, the
/// up-keeping falls back to the joint's current up (or, failing that, to the shortest swing).
/// `weight` in [0, 1] (clamped; NaN counts as 0) blends from the FK rotation; 0 returns at once.
/// The result's `error` is the angle (radians) left between the forward axis and the target
/// direction. A bad joint index or pose length, non-finite input, a zero `forward`, or a target
/// on the joint's origin leaves the pose untouched with `error` = infinity.
// Flat like the other solvers: a pose, a joint, two axes, a point.
#[allow(clippy::too_many_arguments)]
pub fn aim(
    skeleton: &Skeleton,
    local: &mut [Transform],
    model: &mut [Mat4],
    joint: usize,
    forward: Vec3,
    up: Vec3,
    target: Vec3,
    weight: f32,
) -> IkResult {
    let n = skeleton.len();
    let valid = local.len() == n && model.len() == n && joint < n;
    if !valid || !forward.is_finite() || !up.is_finite() || !target.is_finite() {
        return UNSOLVED;
    }
    let t = local[joint];
    let Some(parent_inv) = inverse(&parent_matrix(skeleton, model, joint)) else {
        return UNSOLVED;
    };
    // Joint-space axes reach the parent space through `rotation * scale`; the rotation acts on
    // the scaled axes.
    let (Some(aim_dir), Some(fwd)) = (
        direction(parent_inv.transform_point3(target) - t.translation),
        direction(t.scale * forward),
    ) else {
        return UNSOLVED;
    };
    let w = clamp_weight(weight);
    if w > 0.0 {
        let world_up = parent_inv.transform_vector3(Vec3::Y);
        let ik = look_rotation(t.rotation, fwd, t.scale * up, aim_dir, world_up);
        local[joint].rotation = blend(t.rotation, ik, w);
        refresh_from(skeleton, local, model, joint);
    }
    IkResult {
        error: aim_error(&model[joint], forward, target),
        iterations: u32::from(w > 0.0),
        reached: true,
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

/// Checks a chain for [`ccd`] and [`fabrik`]: long enough, in range, linked parent to child, and a
/// pose with one entry per joint.
fn validate_chain(
    skeleton: &Skeleton,
    local_len: usize,
    model_len: usize,
    chain: &[usize],
) -> Result<(), IkError> {
    let n = skeleton.len();
    if local_len != n || model_len != n {
        return Err(IkError::PoseLength {
            local: local_len,
            model: model_len,
            joints: n,
        });
    }
    if chain.len() < 2 {
        return Err(IkError::ChainTooShort {
            joints: chain.len(),
        });
    }
    if let Some(&joint) = chain.iter().find(|&&j| j >= n) {
        return Err(IkError::JointOutOfRange {
            joint,
            joint_count: n,
        });
    }
    if let Some(pair) = chain
        .windows(2)
        .find(|pair| skeleton.parent(pair[1]) != Some(pair[0]))
    {
        return Err(IkError::NotParent {
            parent: pair[0],
            child: pair[1],
        });
    }
    Ok(())
}

/// True when `ancestor` is a strict ancestor of `joint` (`joint < skeleton.len()`).
fn is_ancestor(skeleton: &Skeleton, ancestor: usize, joint: usize) -> bool {
    let mut j = joint;
    while let Some(p) = skeleton.parent(j) {
        if p == ancestor {
            return true;
        }
        // Parents-first order: once below `ancestor`, the walk cannot meet it.
        if p < ancestor {
            return false;
        }
        j = p;
    }
    false
}

/// Recomputes model matrices from joint `first` to the end, exactly as
/// [`crate::anim::local_to_model`] does; earlier joints are unchanged, and parents-first order
/// makes one forward loop correct.
fn refresh_from(skeleton: &Skeleton, local: &[Transform], model: &mut [Mat4], first: usize) {
    let bases = skeleton.root_bases();
    for (j, parent) in skeleton.parents().iter().enumerate().skip(first) {
        let m = local[j].to_mat4();
        model[j] = match parent {
            Some(p) => model[usize::from(*p)] * m,
            None => bases[j] * m,
        };
    }
}

/// Model matrix of the space `joint` hangs in: its parent's, or its root base.
fn parent_matrix(skeleton: &Skeleton, model: &[Mat4], joint: usize) -> Mat4 {
    match skeleton.parent(joint) {
        Some(p) => model[p],
        None => skeleton.root_bases()[joint],
    }
}

/// A matrix's inverse, or `None` when it is singular (a zero scale somewhere above the joint).
fn inverse(m: &Mat4) -> Option<Mat4> {
    let det = m.determinant();
    if !det.is_finite() || det.abs() < f32::MIN_POSITIVE {
        return None;
    }
    let inv = m.inverse();
    inv.is_finite().then_some(inv)
}

/// The translation column: a joint's origin in model space.
#[inline]
fn origin(m: &Mat4) -> Vec3 {
    m.w_axis.truncate()
}

/// The unit direction of `v`, or `None` when it is too short (or not finite) to have one.
#[inline]
fn direction(v: Vec3) -> Option<Vec3> {
    if v.length_squared() > MIN_LENGTH * MIN_LENGTH {
        Some(v.normalize()).filter(|d| d.is_finite())
    } else {
        None
    }
}

/// `rotation` preceded (on the parent side) by the shortest arc taking the parent-space bone
/// vector `from` onto the direction of `to`; `None` when either has no direction.
#[inline]
fn swing(rotation: Quat, from: Vec3, to: Vec3) -> Option<Quat> {
    let q = (arc(direction(from)?, direction(to)?) * rotation).normalize();
    q.is_finite().then_some(q)
}

/// The shortest-arc rotation taking unit `from` onto unit `to`.
///
/// Not `Quat::from_rotation_arc`: it returns identity for arcs under about 7e-4 rad, which stalls
/// iterative solvers about 0.1 mm short of the target. The half-angle form `(from x to,
/// 1 + from . to)` is accurate for small arcs; past 90 degrees, where `1 + dot` loses precision,
/// the axis comes from the cross product and the angle from `atan2`, and an arc of nearly
/// 180 degrees (no defined axis) turns about any perpendicular.
#[inline]
fn arc(from: Vec3, to: Vec3) -> Quat {
    let cross = from.cross(to);
    let dot = from.dot(to);
    if dot >= 0.0 {
        Quat::from_xyzw(cross.x, cross.y, cross.z, 1.0 + dot).normalize()
    } else {
        let axis = direction(cross).unwrap_or_else(|| from.any_orthonormal_vector());
        Quat::from_axis_angle(axis, cross.length().atan2(dot))
    }
}

/// Weight clamped to [0, 1]; NaN counts as 0 so that it leaves the pose alone.
#[inline]
fn clamp_weight(weight: f32) -> f32 {
    if weight.is_nan() {
        0.0
    } else {
        weight.clamp(0.0, 1.0)
    }
}

/// The blended local rotation: the IK value itself at full weight (no slerp rounding).
#[inline]
fn blend(fk: Quat, ik: Quat, w: f32) -> Quat {
    if w >= 1.0 {
        ik
    } else {
        slerp_shortest(fk, ik, w)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::{RawSkeleton, local_to_model};
    use glam::EulerRot;

    /// A model-space base with a rotation and an offset: solvers must not assume identity roots.
    fn tilted_base(scale: f32) -> Mat4 {
        Mat4::from_scale_rotation_translation(
            Vec3::splat(scale),
            Quat::from_euler(EulerRot::YXZ, 0.6, -0.3, 0.25),
            Vec3::new(1.0, 0.2, -2.0),
        )
    }

    fn joint(translation: Vec3, rotation: Quat) -> Transform {
        Transform {
            translation,
            rotation,
            scale: Vec3::ONE,
        }
    }

    fn skeleton(parents: &[Option<usize>], rest: Vec<Transform>, base: Mat4) -> Skeleton {
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
    fn leg(base: Mat4) -> Skeleton {
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
    fn tail() -> Skeleton {
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
    const TAIL: [usize; 5] = [1, 2, 3, 4, 5];
    const TAIL_LENGTH: f32 = 0.9;

    fn rest_pose(s: &Skeleton) -> (Vec<Transform>, Vec<Mat4>) {
        let local = s.rest().to_vec();
        let mut model = vec![Mat4::IDENTITY; s.len()];
        local_to_model(s, &local, &mut model);
        (local, model)
    }

    fn pos(model: &[Mat4], j: usize) -> Vec3 {
        origin(&model[j])
    }

    fn bone_lengths(model: &[Mat4], joints: &[usize]) -> Vec<f32> {
        joints
            .windows(2)
            .map(|p| pos(model, p[0]).distance(pos(model, p[1])))
            .collect()
    }

    /// `model` must equal a fresh FK of `local`, and nothing may be NaN.
    fn assert_consistent(s: &Skeleton, local: &[Transform], model: &[Mat4]) {
        assert!(local.iter().all(Transform::is_finite), "NaN in local pose");
        let mut fresh = vec![Mat4::IDENTITY; s.len()];
        local_to_model(s, local, &mut fresh);
        for (j, (m, f)) in model.iter().zip(&fresh).enumerate() {
            // Same products in the same order, so in practice exact; 1e-5 is far above f32
            // rounding at metre scale (~1e-7) and far below a stale matrix (centimetres off).
            assert!(m.abs_diff_eq(*f, 1e-5), "joint {j}: {m} vs {f}");
        }
    }

    fn assert_lengths(before: &[f32], after: &[f32]) {
        for (b, a) in before.iter().zip(after) {
            // Only rotations change; lengths move by f32 rounding of a few matrix products
            // (~1e-7 at metre scale), well inside 1e-5.
            assert!((a - b).abs() < 1e-5, "bone length {b} became {a}");
        }
    }

    fn bits(local: &[Transform], model: &[Mat4]) -> Vec<u32> {
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
    fn sphere(count: usize) -> impl Iterator<Item = Vec3> {
        (0..count).map(move |i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
            let r = (1.0 - y * y).sqrt();
            let phi = i as f32 * 2.399_963;
            Vec3::new(r * phi.cos(), y, r * phi.sin())
        })
    }

    fn angle(a: Vec3, b: Vec3) -> f32 {
        a.cross(b).length().atan2(a.dot(b))
    }

    /// Angle of the rotation between two unit quaternions, accurate for small angles (glam's
    /// `Quat::angle_between` uses an approximate `acos`).
    fn rotation_angle(a: Quat, b: Quat) -> f32 {
        let d = a.inverse() * b;
        2.0 * d.xyz().length().atan2(d.w.abs())
    }

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
                    let r = two_bone(&s, &mut local, &mut model, 1, 2, 3, target, pole, 1.0);
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
            1,
            3,
            4,
            target,
            Vec3::Z * 5.0,
            1.0,
        );
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
                1,
                2,
                3,
                target,
                hip + Vec3::Z,
                1.0,
            );
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
            let r = two_bone(&s, &mut local, &mut model, 1, 2, 3, target, pole, 1.0);
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
                &s, &mut local, &mut model, root, mid, end, target, pole, 1.0,
            );
            assert_eq!(r, UNSOLVED);
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
        }
        // A pose of the wrong length.
        let (mut local, mut model) = (local0.clone(), model0.clone());
        let r = two_bone(&s, &mut local[..5], &mut model, 1, 2, 3, good, Vec3::Z, 1.0);
        assert_eq!(r, UNSOLVED);
    }

    #[test]
    fn two_bone_weight_blends_from_fk() {
        let s = leg(tilted_base(1.0));
        let (local0, model0) = rest_pose(&s);
        let target = pos(&model0, 1) + Vec3::new(0.3, -0.3, 0.4);
        let pole = target + Vec3::Z;
        let run = |w: f32| {
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = two_bone(&s, &mut local, &mut model, 1, 2, 3, target, pole, w);
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
        fabrik(s, local, model, chain, target, limits, &mut scratch, weight)
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
            let f = fabrik(&s, local, model, chain, t, limits, &mut scratch, 1.0).unwrap_err();
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
            target,
            limits,
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
            Vec3::X,
            limits,
            &mut scratch,
            1.0,
        );
        assert!(r.unwrap().reached);
        assert_consistent(&s, &local, &model);
    }

    /// Head on a neck: the head (2) has a rest twist and a child (3) to be carried along.
    fn neck() -> Skeleton {
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

    #[test]
    fn aim_points_forward_at_the_target_with_up_kept_upright() {
        let s = neck();
        let (local0, model0) = rest_pose(&s);
        let head = pos(&model0, 2);
        for (i, dir) in sphere(50).enumerate() {
            let target = head + dir * (0.5 + i as f32 * 0.1);
            let (mut local, mut model) = (local0.clone(), model0.clone());
            let r = aim(&s, &mut local, &mut model, 2, Vec3::Z, Vec3::Y, target, 1.0);
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
            let r = aim(&s, &mut local, &mut model, 2, forward, up, target, w);
            assert_consistent(&s, &local, &model);
            (local, model, r)
        };
        for w in [0.0, -2.0, f32::NAN] {
            let (local, model, r) = run(Vec3::Z, Vec3::Y, target, w);
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
            let fk = angle(model0[2].transform_vector3(Vec3::Z), target - head);
            // The untouched pose's error, measured the same way (1e-6 rad: rounding).
            assert!((r.error - fk).abs() < 1e-6 && r.iterations == 0, "{r:?}");
        }
        let half = run(Vec3::Z, Vec3::Y, target, 0.5).2;
        assert!(half.error > 1e-3 && half.error < run(Vec3::Z, Vec3::Y, target, 0.0).2.error);
        // Up parallel to forward, or zero: a plain swing still points forward at the target,
        // as does a target straight above (1e-4 rad: the required accuracy).
        for (up, target) in [
            (Vec3::Z, target),
            (Vec3::ZERO, target),
            (Vec3::Y, head + Vec3::Y * 2.0),
        ] {
            let (_, model, r) = run(Vec3::Z, up, target, 1.0);
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
            assert_eq!(r, UNSOLVED);
            assert_eq!(bits(&local, &model), bits(&local0, &model0));
        }
        let (mut local, mut model) = (local0.clone(), model0.clone());
        let r = aim(&s, &mut local, &mut model, 4, Vec3::Z, Vec3::Y, target, 1.0);
        assert_eq!(r, UNSOLVED, "joint out of range");
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
        let r = aim(&s, &mut local, &mut model, 3, Vec3::Y, Vec3::Z, target, 1.0);
        // 1e-4 rad: the required accuracy (0.1 mm at a metre); directions are solved
        // exactly in parent space.
        assert!(r.error < 1e-4, "{r:?}");
        assert_consistent(&s, &local, &model);
    }
}
