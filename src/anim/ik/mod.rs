//! Inverse kinematics, applied to a pose after forward kinematics: analytic two-bone with a pole
//! ([`TwoBoneJob`]), CCD ([`CcdJob`]) and FABRIK ([`FabrikJob`]) on chains, and aim (look-at) of a
//! single joint ([`AimJob`]).
//!
//! Each solver is a job in ozz-animation's style: the joints and settings are checked once, when
//! the job is built (`new`, which is the job's validation), and each frame's `run` takes only the
//! per-frame buffers and target, borrowed. All four report failure with the one [`IkError`].
//!
//! Every `run` takes a pose as its local transforms plus the model-space matrices FK made from
//! them ([`crate::anim::local_to_model`]), changes only the local *rotations* of the joints it
//! solves (bone lengths survive by construction), and leaves `model` consistent with `local` for
//! all joints. `weight` in [0, 1] blends each changed rotation from its FK value to its IK value;
//! weight 0 leaves the pose bit-identical. Runs never allocate and never write NaN; a run that
//! returns an error leaves the pose untouched.
//!
//! Rotations are solved in the space of each joint's parent (via the inverse of the parent's
//! model matrix), so directions are exact under any parent transform. Positions are exact when
//! parent spaces are conformal (rotation and uniform scale); under non-uniform parent scale a
//! rotation also changes a bone's model-space length, and the result is approximate.
//!
//! This file holds what the solvers share: the result, limits and error types, chain and pose
//! checks, and the small vector and quaternion helpers.

mod aim;
mod ccd;
mod fabrik;
mod two_bone;

#[cfg(test)]
mod tests;

use glam::{Mat4, Quat, Vec3};
use thiserror::Error;

use super::skeleton::Skeleton;
use super::transform::{Transform, slerp_shortest};

pub use aim::AimJob;
pub use ccd::{CcdJob, MAX_CCD_CHAIN};
pub use fabrik::FabrikJob;
pub use two_bone::TwoBoneJob;

/// Vectors shorter than this (metres, or parent-space units) have no reliable direction in f32:
/// at metre scale positions carry about 1e-7 of rounding, so a shorter vector's direction is noise.
const MIN_LENGTH: f32 = 1e-6;

/// Outcome of a solve.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IkResult {
    /// Distance from the end effector to the target in the pose as left (metres, >= 0; for
    /// [`AimJob`], the angle in radians, in [0, π], between the forward axis and the target
    /// direction). Measured after weight blending.
    pub error: f32,
    /// Iterations used: full sweeps for [`CcdJob`] and [`FabrikJob`] (never more than
    /// [`IterLimits::max_iterations`]), 1 for the analytic solvers, 0 when nothing was solved.
    pub iterations: u32,
    /// Whether the target was reachable, judged on the full-weight solution: two-bone, the target
    /// lies within the chain's reach; CCD and FABRIK, the solution came within
    /// [`IterLimits::tolerance`]; aim, the direction was defined. With weight 0 (no solve):
    /// two-bone and aim as above, CCD and FABRIK whether the untouched pose is within tolerance.
    pub reached: bool,
}

/// Limits for the iterative solvers ([`CcdJob`], [`FabrikJob`]).
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

/// What is wrong with a job's joints or settings (from `new`) or with the data handed to `run`.
/// A run that fails leaves the pose untouched.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum IkError {
    /// A chain needs a joint to rotate and an end effector.
    #[error("IK chain needs at least 2 joints, got {joints}")]
    ChainTooShort {
        /// The number of joints in the chain given (0 or 1).
        joints: usize,
    },
    /// The chain is longer than [`CcdJob`]'s fixed buffer.
    #[error("CCD chain has {joints} joints; at most {max} are supported")]
    ChainTooLong {
        /// The number of joints in the chain given.
        joints: usize,
        /// The most joints a CCD chain may have ([`MAX_CCD_CHAIN`]).
        max: usize,
    },
    /// A joint index is not a joint of the skeleton.
    #[error("IK chain: joint {joint} is out of range (skeleton has {joint_count} joints)")]
    JointOutOfRange {
        /// The joint index given, which is `joint_count` or more.
        joint: usize,
        /// The number of joints in the skeleton.
        joint_count: usize,
    },
    /// Consecutive chain entries must be parent and child.
    #[error("IK chain: joint {parent} is not the parent of joint {child}")]
    NotParent {
        /// The index of the chain entry that should be `child`'s parent.
        parent: usize,
        /// The index of the joint that follows it in the chain.
        child: usize,
    },
    /// Two-bone joints must each be a strict ancestor of the next.
    #[error("IK chain: joint {ancestor} is not an ancestor of joint {joint}")]
    NotAncestor {
        /// The index of the joint that should be above `joint` (the root or the middle joint).
        ancestor: usize,
        /// The index of the joint that does not hang below it (the middle or the end joint).
        joint: usize,
    },
    /// `local` or `model` does not have one entry per joint.
    #[error(
        "IK pose has {local} local transforms and {model} model matrices, skeleton has {joints} joints"
    )]
    PoseLength {
        /// The length of `local` (local transforms).
        local: usize,
        /// The length of `model` (model-space matrices).
        model: usize,
        /// The number of joints in the skeleton, which both must equal.
        joints: usize,
    },
    /// The job was built against a skeleton with another joint count than the one it runs on.
    #[error("IK job was built for a skeleton of {built} joints, run on one of {joints}")]
    SkeletonChanged {
        /// The joint count of the skeleton the job was built for.
        built: usize,
        /// The joint count of the skeleton given to `run`.
        joints: usize,
    },
    /// FABRIK's scratch buffer cannot hold one position per chain joint.
    #[error("FABRIK scratch holds {scratch} positions, chain has {joints} joints")]
    ScratchTooShort {
        /// The number of positions the scratch buffer holds.
        scratch: usize,
        /// The number of joints in the chain, the least the scratch must hold.
        joints: usize,
    },
    /// The target contains NaN or infinity.
    #[error("IK target {target} is not finite")]
    NonFiniteTarget {
        /// The target as given (model space, metres).
        target: Vec3,
    },
    /// The two-bone pole contains NaN or infinity.
    #[error("IK pole {pole} is not finite")]
    NonFinitePole {
        /// The pole as given (model space, metres).
        pole: Vec3,
    },
    /// The aim's forward axis is zero or not finite.
    #[error("IK aim forward axis {forward} must be finite and non-zero")]
    BadForward {
        /// The forward axis as given (in the aimed joint's own space).
        forward: Vec3,
    },
    /// The aim's up axis is not finite.
    #[error("IK aim up axis {up} is not finite")]
    NonFiniteUp {
        /// The up axis as given (in the aimed joint's own space).
        up: Vec3,
    },
    /// This frame's pose gives the solver nothing to work with: a bone shorter than 1 µm, a
    /// singular parent space (zero scale above the joint), or a target on the aimed joint.
    #[error("IK cannot solve this pose: {what}")]
    Degenerate {
        /// What made the pose unsolvable, e.g. "a bone is shorter than 1 µm".
        what: &'static str,
    },
}

/// Checks what every job's `run` is given: `local` and `model` hold one entry per joint of
/// `skeleton`, the skeleton the job was built for (`built` joints), so every index the job
/// validated is in range; and `target` is finite.
fn check_inputs(
    skeleton: &Skeleton,
    built: usize,
    local: &[Transform],
    model: &[Mat4],
    target: Vec3,
) -> Result<(), IkError> {
    let n = skeleton.len();
    if local.len() != n || model.len() != n {
        return Err(IkError::PoseLength {
            local: local.len(),
            model: model.len(),
            joints: n,
        });
    }
    if n != built {
        return Err(IkError::SkeletonChanged { built, joints: n });
    }
    if !target.is_finite() {
        return Err(IkError::NonFiniteTarget { target });
    }
    Ok(())
}

/// Checks a chain for [`CcdJob`] and [`FabrikJob`]: long enough, in range, and linked parent to
/// child.
fn validate_chain(skeleton: &Skeleton, chain: &[usize]) -> Result<(), IkError> {
    if chain.len() < 2 {
        return Err(IkError::ChainTooShort {
            joints: chain.len(),
        });
    }
    check_joint(skeleton, chain)?;
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

/// Checks that every entry of `joints` is a joint of `skeleton`.
fn check_joint(skeleton: &Skeleton, joints: &[usize]) -> Result<(), IkError> {
    let n = skeleton.len();
    match joints.iter().find(|&&j| j >= n) {
        Some(&joint) => Err(IkError::JointOutOfRange {
            joint,
            joint_count: n,
        }),
        None => Ok(()),
    }
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
pub(crate) fn arc(from: Vec3, to: Vec3) -> Quat {
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
