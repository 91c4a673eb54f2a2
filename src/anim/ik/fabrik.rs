//! FABRIK (forward and backward reaching IK) as a job: the chain and limits are checked once in
//! [`FabrikJob::new`]; [`FabrikJob::run`] solves joint positions each frame, in a scratch buffer
//! the caller owns, and turns them into local rotations.

use glam::{Mat4, Vec3};

use super::{
    IkError, IkResult, IterLimits, blend, check_inputs, clamp_weight, direction, inverse, origin,
    parent_matrix, refresh_from, swing, validate_chain,
};
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::Transform;

/// FABRIK over a chain of joint indices from the chain root to the end effector, each the parent
/// of the next.
#[derive(Clone, Debug)]
pub struct FabrikJob {
    chain: Vec<usize>,
    limits: IterLimits,
    /// Joint count of the skeleton the job was checked against.
    joints: usize,
}

impl FabrikJob {
    /// Checks `chain` against `skeleton` once and keeps a copy of it (the only allocation).
    ///
    /// # Errors
    /// [`IkError`] for a chain that is too short, out of range or not linked parent to child.
    pub fn new(skeleton: &Skeleton, chain: &[usize], limits: IterLimits) -> Result<Self, IkError> {
        validate_chain(skeleton, chain)?;
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

    /// Positions [`FabrikJob::run`]'s scratch must hold: one per chain joint.
    pub fn scratch_len(&self) -> usize {
        self.chain.len()
    }

    /// Solves joint positions first: alternately pulls the effector onto `target` (model space,
    /// metres) and the chain root back onto its place, keeping every bone's length, until the
    /// effector is within `tolerance` or `max_iterations` sweeps are done. A target beyond the
    /// chain's total length lays the chain straight towards it in one sweep. The positions then
    /// become local rotations, from the chain root down: each joint swings its bone from the old
    /// to the new direction along the shortest arc, in its parent space, so no twist is added.
    /// `scratch` holds the positions (at least [`FabrikJob::scratch_len`] entries; its contents
    /// are overwritten), so that nothing is allocated. `weight` in [0, 1] (clamped; NaN counts as
    /// 0) blends each chain joint from its FK rotation; 0 returns at once.
    ///
    /// # Errors
    /// [`IkError::PoseLength`] for a pose of the wrong length, [`IkError::SkeletonChanged`] for
    /// a skeleton other than the job's, [`IkError::NonFiniteTarget`] for a non-finite target,
    /// [`IkError::ScratchTooShort`] for a scratch buffer that is too short; the pose is then
    /// untouched.
    pub fn run(
        &self,
        skeleton: &Skeleton,
        local: &mut [Transform],
        model: &mut [Mat4],
        target: Vec3,
        scratch: &mut [Vec3],
        weight: f32,
    ) -> Result<IkResult, IkError> {
        check_inputs(skeleton, self.joints, local, model, target)?;
        let (chain, limits) = (&self.chain[..], self.limits);
        if scratch.len() < chain.len() {
            return Err(IkError::ScratchTooShort {
                scratch: scratch.len(),
                joints: chain.len(),
            });
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
                    let dir =
                        direction(points[k] - points[k + 1]).unwrap_or(-bone.normalize_or_zero());
                    points[k] = points[k + 1] + dir * bone.length();
                }
                points[0] = base;
                for k in 0..last {
                    let bone = fk_bone(model, chain, k);
                    let dir =
                        direction(points[k + 1] - points[k]).unwrap_or(bone.normalize_or_zero());
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
}

/// The model-space vector of bone `k` (chain[k] to chain[k + 1]) in `model`.
fn fk_bone(model: &[Mat4], chain: &[usize], k: usize) -> Vec3 {
    origin(&model[chain[k + 1]]) - origin(&model[chain[k]])
}
