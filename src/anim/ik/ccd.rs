//! Cyclic coordinate descent as a job: the chain and limits are checked once in [`CcdJob::new`];
//! [`CcdJob::run`] sweeps the chain each frame, swinging one joint at a time towards the target.

use glam::{Mat4, Quat, Vec3};

use super::{
    IkError, IkResult, IterLimits, check_inputs, clamp_weight, inverse, origin, parent_matrix,
    refresh_from, swing, validate_chain,
};
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::{Transform, slerp_shortest};

/// Longest chain [`CcdJob`] accepts: it keeps the FK rotations for weight blending in a fixed
/// stack buffer so that a run never allocates. Real IK chains (limbs, spines, tails) are far
/// shorter.
pub const MAX_CCD_CHAIN: usize = 64;

/// CCD over a chain of joint indices from the chain root to the end effector, each the parent of
/// the next.
#[derive(Clone, Debug)]
pub struct CcdJob {
    chain: Vec<usize>,
    limits: IterLimits,
    /// Joint count of the skeleton the job was checked against.
    joints: usize,
}

impl CcdJob {
    /// Checks `chain` against `skeleton` once and keeps a copy of it (the only allocation).
    ///
    /// # Errors
    /// [`IkError`] for a chain that is too short, out of range, not linked parent to child, or
    /// longer than [`MAX_CCD_CHAIN`].
    pub fn new(skeleton: &Skeleton, chain: &[usize], limits: IterLimits) -> Result<Self, IkError> {
        validate_chain(skeleton, chain)?;
        if chain.len() > MAX_CCD_CHAIN {
            return Err(IkError::ChainTooLong {
                joints: chain.len(),
                max: MAX_CCD_CHAIN,
            });
        }
        Ok(Self {
            chain: chain.to_vec(),
            limits,
            joints: skeleton.len(),
        })
    }

    /// The chain, root first.
    pub fn chain(&self) -> &[usize] {
        &self.chain
    }

    /// The iteration limits.
    pub fn limits(&self) -> IterLimits {
        self.limits
    }

    /// Each sweep visits the joints from the one nearest the effector back to the chain root and
    /// swings each (shortest arc, in its parent space) so that the effector's origin points at
    /// `target` (model space, metres). Sweeps stop at `max_iterations` or once the effector is
    /// within `tolerance`. An unreachable target stretches the chain towards it. `weight` in
    /// [0, 1] (clamped; NaN counts as 0) blends each chain joint from its FK rotation; 0 returns
    /// at once. The effector's own rotation is never changed.
    ///
    /// # Errors
    /// [`IkError::PoseLength`] for a pose of the wrong length, [`IkError::SkeletonChanged`] for
    /// a skeleton other than the job's, [`IkError::NonFiniteTarget`] for a non-finite target;
    /// the pose is then untouched.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut [Mat4],
        target: Vec3,
        weight: f32,
    ) -> Result<IkResult, IkError> {
        check_inputs(skeleton, self.joints, local, model, target)?;
        let (chain, limits) = (&self.chain[..], self.limits);
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
}
