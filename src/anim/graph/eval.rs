//! Playing a [`BlendTree`]: advancing each node's phase (with Blend1D phase sync), reporting
//! the events crossed, the root motion of a step, and evaluating the local pose over the stack
//! of pose slots without allocating.

use glam::Vec2;

use super::clock::Clock;
use super::{BlendTree, EventHit, Node, TreeScratch, TreeState};
use crate::anim::blend::{add, difference, layer, mix};
use crate::anim::clip::Clip;
use crate::anim::events::EventTrack;
use crate::anim::root_motion::MotionTrack;
use crate::anim::sample::sample_with_cursor;
use crate::anim::skeleton::Skeleton;
use crate::anim::transform::Transform;

impl BlendTree {
    /// The two children a Blend1D mixes at `value` and the weight of the second.
    #[inline]
    fn blend1d_pair(positions: &[f32], value: f32) -> (usize, usize, f32) {
        let last = positions.len() - 1;
        // NaN parameters clamp to the first child.
        if value.is_nan() || value <= positions[0] {
            return (0, 0, 0.0);
        }
        if value >= positions[last] {
            return (last, last, 0.0);
        }
        // positions[k] <= value < positions[k + 1]
        let k = positions.partition_point(|p| *p <= value) - 1;
        let w = (value - positions[k]) / (positions[k + 1] - positions[k]);
        (k, k + 1, w)
    }

    /// Advances the instance by `dt` seconds with parameters `params`, reporting every event
    /// marker crossed by a node with non-zero effective weight through `on_event`.
    /// `events[c]` holds clip `c`'s markers (missing entries mean none).
    pub fn advance(
        &self,
        clips: &[Clip],
        events: &[EventTrack],
        state: &mut TreeState,
        params: &[f32],
        dt: f32,
        mut on_event: impl FnMut(EventHit),
    ) {
        let dt = if dt.is_finite() { dt.max(0.0) } else { 0.0 };
        self.weights(state, params);
        state.prev.copy_from_slice(&state.phase);
        state.aux_prev.copy_from_slice(&state.aux);
        self.cycles(clips, state, params);
        // Phases top-down: the root and layered subtrees run on their own clocks; Blend1D
        // children and bases follow their parent. Event windows are computed in phase with the
        // same sums as the phases, so markers on step boundaries fire exactly once.
        let step_of = |cycle: f32| Clock::Cycle(cycle).step(dt);
        state.step[self.root] = step_of(state.cycle[self.root]);
        state.prev_elapsed = state.elapsed;
        for &node in self.order.iter().rev() {
            let step = state.step[node];
            let old = state.prev[node];
            if !self.synced[node] {
                let new = if self.looping[node] {
                    (old + step).fract()
                } else {
                    (old + step).min(1.0)
                };
                state.phase[node] = new;
                if node == self.root {
                    state.elapsed += if self.looping[node] { step } else { new - old };
                }
            }
            let phase = state.phase[node];
            match &self.nodes[node] {
                Node::Clip { clip, .. } => {
                    if state.weight[node] > 0.0
                        && let Some(track) = events.get(*clip)
                    {
                        let w = state.weight[node];
                        track.crossed(
                            old,
                            step,
                            clips[*clip].duration(),
                            self.clock_looping[node],
                            |event, count| {
                                on_event(EventHit {
                                    clip: *clip,
                                    event,
                                    count,
                                    weight: w,
                                })
                            },
                        );
                    }
                }
                Node::Blend1D { children, .. } => {
                    for &c in children {
                        state.phase[c] = phase;
                        state.step[c] = step;
                    }
                }
                Node::Layer { base, over, .. } => {
                    state.phase[*base] = phase;
                    state.step[*base] = step;
                    state.step[*over] = step_of(state.cycle[*over]);
                }
                Node::Additive {
                    base,
                    clip,
                    speed,
                    looping,
                    weight,
                    ..
                } => {
                    state.phase[*base] = phase;
                    state.step[*base] = step;
                    let d = clips[*clip].duration();
                    let aux_step = Clock::Rate {
                        speed: *speed,
                        duration: d,
                    }
                    .step(dt);
                    let aux_old = state.aux[node];
                    state.aux_step[node] = aux_step;
                    state.aux[node] = if *looping {
                        (aux_old + aux_step).fract()
                    } else {
                        (aux_old + aux_step).min(1.0)
                    };
                    let w = state.weight[node] * weight.get(params);
                    if w > 0.0
                        && let Some(track) = events.get(*clip)
                    {
                        track.crossed(aux_old, aux_step, d, *looping, |event, count| {
                            on_event(EventHit {
                                clip: *clip,
                                event,
                                count,
                                weight: w,
                            })
                        });
                    }
                }
            }
        }
    }

    /// Each node's cycle length, seconds, under `params` into `state.cycle`, bottom-up. A
    /// blend's cycle mixes its children's, leaving out children without one (single-pose
    /// clips), which would otherwise speed the others up.
    pub(super) fn cycles(&self, clips: &[Clip], state: &mut TreeState, params: &[f32]) {
        for &node in &self.order {
            state.cycle[node] = match &self.nodes[node] {
                Node::Clip { clip, speed, .. } => clips[*clip].duration() / speed,
                Node::Blend1D {
                    param,
                    positions,
                    children,
                } => {
                    let (a, b, w) =
                        Self::blend1d_pair(positions, params.get(*param).copied().unwrap_or(0.0));
                    let (ca, cb) = (state.cycle[children[a]], state.cycle[children[b]]);
                    match (ca > 0.0, cb > 0.0) {
                        (true, true) => ca * (1.0 - w) + cb * w,
                        (true, false) => ca,
                        (false, true) => cb,
                        (false, false) => 0.0,
                    }
                }
                Node::Layer { base, .. } | Node::Additive { base, .. } => state.cycle[*base],
            };
        }
    }

    /// Root motion of the last [`BlendTree::advance`]: the weighted sum, over the clips playing
    /// with non-zero weight, of each clip's motion-track delta over the stretch it played
    /// (`tracks[c]` for clip `c`; clips without a track add nothing, additive clips never
    /// move the root). Returns the horizontal displacement (x, z, metres, in the character's
    /// heading frame at the start of the step) and the change of yaw (radians).
    pub fn motion(
        &self,
        clips: &[Clip],
        tracks: &[Option<MotionTrack>],
        state: &TreeState,
    ) -> (Vec2, f32) {
        let mut moved = Vec2::ZERO;
        let mut turned = 0.0;
        for (node, n) in self.nodes.iter().enumerate() {
            let w = state.weight[node];
            if let Node::Clip { clip, .. } = n
                && w > 0.0
                && let Some(Some(track)) = tracks.get(*clip)
            {
                let d = clips[*clip].duration();
                let (m, y) = track.delta(
                    state.prev[node] * d,
                    state.step[node] * d,
                    self.clock_looping[node],
                );
                moved += m * w;
                turned += y * w;
            }
        }
        (moved, turned)
    }

    /// Whether the last advance reached the root's normalised time `exit`: for a looping root,
    /// whether its cycle passed `exit`, `exit + 1`, `exit + 2`... (so 0.5 fires at every half
    /// cycle from the first on); for a clamped root, whether it is at or past `exit`. A root
    /// without a cycle (a single pose) has always reached it.
    pub fn reached(&self, state: &TreeState, exit: f32) -> bool {
        if state.cycle[self.root] <= 0.0 {
            return true;
        }
        if !self.looping[self.root] {
            return state.elapsed >= exit;
        }
        state.elapsed >= exit
            && (state.elapsed - exit).floor() > (state.prev_elapsed - exit).floor()
    }

    /// Effective weight of every node from the parameters, top-down.
    pub(super) fn weights(&self, state: &mut TreeState, params: &[f32]) {
        state.weight.fill(0.0);
        state.weight[self.root] = 1.0;
        for &node in self.order.iter().rev() {
            let w = state.weight[node];
            if w <= 0.0 {
                continue;
            }
            match &self.nodes[node] {
                Node::Clip { .. } => {}
                Node::Blend1D {
                    param,
                    positions,
                    children,
                } => {
                    let (a, b, t) =
                        Self::blend1d_pair(positions, params.get(*param).copied().unwrap_or(0.0));
                    state.weight[children[a]] += w * (1.0 - t);
                    if t > 0.0 {
                        state.weight[children[b]] += w * t;
                    }
                }
                Node::Layer {
                    base, over, weight, ..
                } => {
                    state.weight[*base] = w;
                    state.weight[*over] = w * weight.get(params);
                }
                Node::Additive { base, .. } => state.weight[*base] = w,
            }
        }
    }

    /// Writes the tree's local pose for `params` and the phases in `state` into `out`
    /// (`skeleton.len()` transforms). Allocates nothing; nodes with zero effective weight are
    /// not evaluated.
    ///
    /// # Panics
    /// If `out` is not the tree's joint count long or `scratch` was made by another tree (see
    /// [`BlendTree::new_scratch`]); may panic if `clips` or `skeleton` is not the one the tree
    /// was built with.
    pub fn evaluate(
        &self,
        clips: &[Clip],
        skeleton: &Skeleton,
        state: &mut TreeState,
        params: &[f32],
        scratch: &mut TreeScratch,
        out: &mut [Transform],
    ) {
        let j = self.joints;
        assert!(
            out.len() == j && scratch.poses.len() >= self.slots * j,
            "scratch or output sized for another tree"
        );
        self.weights(state, params);
        for &node in &self.order {
            if state.weight[node] <= 0.0 {
                continue;
            }
            let s = self.slot[node];
            match &self.nodes[node] {
                Node::Clip { clip, .. } => {
                    let clip = &clips[*clip];
                    sample_with_cursor(
                        clip,
                        skeleton,
                        state.phase[node] * clip.duration(),
                        &mut state.cursors[node],
                        &mut scratch.poses[s * j..(s + 1) * j],
                    );
                }
                Node::Blend1D {
                    param,
                    positions,
                    children,
                } => {
                    let (a, b, w) =
                        Self::blend1d_pair(positions, params.get(*param).copied().unwrap_or(0.0));
                    let (sa, sb) = (self.slot[children[a]], self.slot[children[b]]);
                    for k in 0..j {
                        let m = mix(&scratch.poses[sa * j + k], &scratch.poses[sb * j + k], w);
                        scratch.poses[s * j + k] = m;
                    }
                }
                Node::Layer {
                    base,
                    over,
                    mask,
                    weight,
                } => {
                    let w = weight.get(params);
                    let (sb, so) = (self.slot[*base], self.slot[*over]);
                    if sb != s {
                        scratch.poses.copy_within(sb * j..(sb + 1) * j, s * j);
                    }
                    if w > 0.0 {
                        let (lo, hi) = scratch.poses.split_at_mut(so * j);
                        layer(&mut lo[s * j..(s + 1) * j], &hi[..j], mask, w);
                    }
                }
                Node::Additive {
                    base,
                    clip,
                    reference,
                    weight,
                    ..
                } => {
                    let w = weight.get(params);
                    let sb = self.slot[*base];
                    if sb != s {
                        scratch.poses.copy_within(sb * j..(sb + 1) * j, s * j);
                    }
                    if w > 0.0 {
                        let clip = &clips[*clip];
                        let (lo, hi) = scratch.poses.split_at_mut((s + 1) * j);
                        let sampled = &mut hi[..j];
                        sample_with_cursor(
                            clip,
                            skeleton,
                            state.aux[node] * clip.duration(),
                            &mut state.cursors[node],
                            sampled,
                        );
                        for ((b, p), r) in lo[s * j..].iter_mut().zip(sampled.iter()).zip(reference)
                        {
                            *b = add(b, &difference(r, p), w);
                        }
                    }
                }
            }
        }
        let s = self.slot[self.root];
        out.copy_from_slice(&scratch.poses[s * j..(s + 1) * j]);
    }
}
