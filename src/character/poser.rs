//! The one place a pose is computed from a clip or a state at a time: sampling or the blend
//! tree, forward kinematics, IK, skinning matrices. `throng pose` and the baker both call it, so
//! baked texels and printed poses are the same numbers.

use glam::{Mat4, Vec3};

use super::Character;
use crate::anim::graph::{TreeScratch, TreeState};
use crate::anim::{Transform, Wrap, local_to_model, sample, skinning_matrices};
use crate::import::Model;

/// Scratch buffers for posing one skeleton, reused between calls.
#[derive(Clone, Debug)]
pub struct Poser {
    local: Vec<Transform>,
    world: Vec<Mat4>,
    skin: Vec<Mat4>,
    ik: Vec<Vec3>,
    /// Per state: its tree's playback state and pose slots, made on first use.
    trees: Vec<Option<(TreeState, TreeScratch)>>,
}

impl Poser {
    /// Buffers for `model`'s skeleton.
    pub fn new(model: &Model) -> Self {
        let n = model.skeleton.len();
        Self {
            local: vec![Transform::IDENTITY; n],
            world: vec![Mat4::IDENTITY; n],
            skin: vec![Mat4::IDENTITY; n],
            ik: Vec::new(),
            trees: Vec::new(),
        }
    }

    /// The model-space (world) joint matrices of the last pose.
    pub fn world(&self) -> &[Mat4] {
        &self.world
    }

    /// The skinning matrices of the last pose.
    pub fn skin(&self) -> &[Mat4] {
        &self.skin
    }

    /// Poses clip `clip` of `model` at `time` seconds (mapped by `wrap`), or the rest pose
    /// for `None`: sampling, forward kinematics, skinning matrices. No IK: a bare clip is the
    /// clip as authored (with root motion removed, for a character that extracts it).
    pub fn clip(&mut self, model: &Model, clip: Option<usize>, time: f32, wrap: Wrap) -> &[Mat4] {
        match clip.and_then(|c| model.clips.get(c)) {
            Some(c) => sample(
                c,
                &model.skeleton,
                c.local_time(time, wrap),
                &mut self.local,
            ),
            None => self.local.copy_from_slice(model.skeleton.rest()),
        }
        local_to_model(&model.skeleton, &self.local, &mut self.world);
        skinning_matrices(&model.skeleton, &self.world, &mut self.skin);
        &self.skin
    }

    /// Poses state `state` of `character`'s machine with parameters `params`, `time` seconds
    /// after it started: its blend tree played from the start for `time` in one step,
    /// evaluated, forward kinematics, the character's IK chains, skinning matrices.
    ///
    /// # Panics
    /// If `state` is not one of the machine's states.
    pub fn state(
        &mut self,
        character: &Character,
        state: usize,
        params: &[f32],
        time: f32,
    ) -> &[Mat4] {
        let model = &character.model;
        let tree = &character.machine.states()[state].tree;
        if self.trees.len() <= state {
            self.trees.resize(state + 1, None);
        }
        let (st, scratch) =
            self.trees[state].get_or_insert_with(|| (tree.new_state(), tree.new_scratch()));
        tree.reset(st);
        tree.advance(&model.clips, &[], st, params, time, |_| {});
        tree.evaluate(
            &model.clips,
            &model.skeleton,
            st,
            params,
            scratch,
            &mut self.local,
        );
        local_to_model(&model.skeleton, &self.local, &mut self.world);
        self.ik.resize(character.ik_scratch_len(), Vec3::ZERO);
        character.apply_ik(params, &mut self.local, &mut self.world, &mut self.ik);
        skinning_matrices(&model.skeleton, &self.world, &mut self.skin);
        &self.skin
    }
}
