//! Blend trees: clips combined by 1D blends, masked layers and additive clips, evaluated as a
//! flattened post-order over a stack of pose slots, with no allocation per evaluation.
//!
//! A [`BlendTree`] is immutable shared data. Each playing instance owns a [`TreeState`]
//! (phases) and a [`TreeScratch`] (pose slots). [`BlendTree::advance`] moves time and reports
//! events; [`BlendTree::evaluate`] writes the local pose.
//!
//! Time is kept as a normalised phase per node. The children of a `Blend1D` and the base of a
//! layer or additive node share their parent's phase, so gaits blended on a speed axis stay in
//! step (feet contact the ground at the same phase in walk and run); the blend's cycle length is
//! the weighted mix of its children's. Layered and additive clips keep their own phase.

use glam::Vec2;
use thiserror::Error;

use super::blend::{add, difference, layer, mix};
use super::clip::Clip;
use super::events::EventTrack;
use super::root_motion::MotionTrack;
use super::sample::{ClipCursor, sample_with_cursor};
use super::skeleton::Skeleton;
use super::transform::Transform;

/// Index of a node in [`BlendTree::nodes`].
pub type NodeId = usize;

/// A weight in [0, 1]: fixed, or read from a float parameter (clamped).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Weight {
    /// A constant weight.
    Const(f32),
    /// The value of parameter `index`, clamped to [0, 1].
    Param(usize),
}

impl Weight {
    #[inline]
    fn get(self, params: &[f32]) -> f32 {
        match self {
            Self::Const(w) => w,
            Self::Param(i) => params.get(i).copied().unwrap_or(0.0),
        }
        .clamp(0.0, 1.0)
    }
}

/// One node of a blend tree.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// Plays a clip. `speed` (> 0) scales its rate; `looping` wraps it, else it holds its end.
    Clip {
        clip: usize,
        speed: f32,
        looping: bool,
    },
    /// Blends children placed on a parameter axis at strictly increasing `positions`: the two
    /// children around the parameter's value are mixed linearly; outside the axis it clamps.
    Blend1D {
        param: usize,
        positions: Vec<f32>,
        children: Vec<NodeId>,
    },
    /// Mixes `over` onto `base` per joint by `mask` (0..=1 per joint) times `weight`.
    Layer {
        base: NodeId,
        over: NodeId,
        mask: Vec<f32>,
        weight: Weight,
    },
    /// Adds `clip`'s difference from `reference` (a local pose) onto `base`, scaled by `weight`.
    Additive {
        base: NodeId,
        clip: usize,
        speed: f32,
        looping: bool,
        reference: Vec<Transform>,
        weight: Weight,
    },
}

/// Why a blend tree is invalid.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GraphError {
    /// A node refers to a node, clip or parameter that does not exist.
    #[error("node {node}: {what}")]
    BadReference { node: NodeId, what: String },
    /// A node is used by two parents, or the tree has a cycle.
    #[error("node {node} is used more than once (blend trees must be trees, without cycles)")]
    NotATree { node: NodeId },
    /// A value is out of range.
    #[error("node {node}: {what}")]
    BadValue { node: NodeId, what: String },
}

/// An immutable, validated blend tree.
#[derive(Clone, Debug)]
pub struct BlendTree {
    nodes: Vec<Node>,
    root: NodeId,
    /// Post-order: children before parents.
    order: Vec<NodeId>,
    /// Pose slot of each node's output.
    slot: Vec<usize>,
    slots: usize,
    joints: usize,
    /// Whether each node's phase follows its parent (Blend1D children, layer and additive
    /// bases) rather than running on its own clock (the root, layered `over` subtrees).
    synced: Vec<bool>,
    /// Whether each node loops (a clip's flag; a blend loops when all its children do).
    looping: Vec<bool>,
    /// A fresh key cursor per node for the clip it samples (empty for blend nodes).
    cursors: Vec<ClipCursor>,
    /// Whether the clock each node follows loops (the node's own flag for the root and layered
    /// subtrees; the parent's clock for synced nodes). Events and motion use it: a looping clip
    /// inside a clamped blend stops when the blend does.
    clock_looping: Vec<bool>,
}

/// Per-instance playback state of one tree.
#[derive(Clone, Debug)]
pub struct TreeState {
    /// Normalised phase per node (its own clip phase for additive nodes in `aux`).
    phase: Vec<f32>,
    /// Phases before the current advance (for event windows).
    prev: Vec<f32>,
    /// Phase of an additive node's own clip, before and after the last advance, and its step.
    aux: Vec<f32>,
    aux_prev: Vec<f32>,
    aux_step: Vec<f32>,
    /// Key cursors of the clip each node samples, so playback finds keys in O(1).
    cursors: Vec<ClipCursor>,
    /// Scratch: per-node cycle length (s), effective weight and phase step of the last advance.
    cycle: Vec<f32>,
    weight: Vec<f32>,
    step: Vec<f32>,
    /// Unwrapped normalised time of the root since the state started, and before the last
    /// advance.
    elapsed: f32,
    prev_elapsed: f32,
}

/// Per-instance pose slots for evaluation.
#[derive(Clone, Debug)]
pub struct TreeScratch {
    poses: Vec<Transform>,
}

/// An event crossed during [`BlendTree::advance`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EventHit {
    /// Clip the marker belongs to.
    pub clip: usize,
    /// Index of the marker in that clip's [`EventTrack`].
    pub event: usize,
    /// How many times it was crossed in this step (more than 1 only for steps over a loop).
    pub count: u32,
    /// Effective weight of the node that played it, in (0, 1].
    pub weight: f32,
}

impl BlendTree {
    /// Validates `nodes` as a tree rooted at `root` for `skeleton`, `clips` and `param_count`
    /// float parameters.
    ///
    /// # Errors
    /// [`GraphError`] naming the node: dangling references, shared nodes or cycles, Blend1D
    /// positions not strictly increasing, non-positive speeds, masks or reference poses of the
    /// wrong length, non-finite values.
    pub fn new(
        nodes: Vec<Node>,
        root: NodeId,
        skeleton: &Skeleton,
        clips: &[Clip],
        param_count: usize,
    ) -> Result<Self, GraphError> {
        let n = nodes.len();
        let bad_ref = |node, what: String| GraphError::BadReference { node, what };
        let bad = |node, what: String| GraphError::BadValue { node, what };
        if root >= n {
            return Err(bad_ref(root, format!("root is not one of the {n} nodes")));
        }
        let mut parents = vec![0u32; n];
        for (i, node) in nodes.iter().enumerate() {
            let check_clip = |c: usize| {
                if c < clips.len() {
                    Ok(())
                } else {
                    Err(bad_ref(
                        i,
                        format!("clip {c} does not exist ({} clips)", clips.len()),
                    ))
                }
            };
            let check_speed = |s: f32| {
                if s.is_finite() && s > 0.0 {
                    Ok(())
                } else {
                    Err(bad(i, format!("speed {s} must be a positive number")))
                }
            };
            let check_weight = |w: Weight| match w {
                Weight::Const(x) if !(0.0..=1.0).contains(&x) => {
                    Err(bad(i, format!("weight {x} is outside [0, 1]")))
                }
                Weight::Param(p) if p >= param_count => {
                    Err(bad_ref(i, format!("parameter {p} does not exist")))
                }
                _ => Ok(()),
            };
            match node {
                Node::Clip { clip, speed, .. } => {
                    check_clip(*clip)?;
                    check_speed(*speed)?;
                }
                Node::Blend1D {
                    param,
                    positions,
                    children,
                } => {
                    if *param >= param_count {
                        return Err(bad_ref(i, format!("parameter {param} does not exist")));
                    }
                    if children.is_empty() || children.len() != positions.len() {
                        return Err(bad(
                            i,
                            format!(
                                "{} children need as many positions, found {}",
                                children.len(),
                                positions.len()
                            ),
                        ));
                    }
                    if let Some(k) = (0..positions.len()).find(|&k| {
                        !positions[k].is_finite() || (k > 0 && positions[k] <= positions[k - 1])
                    }) {
                        return Err(bad(
                            i,
                            format!(
                                "position {k} ({}) must be finite and greater than the one before",
                                positions[k]
                            ),
                        ));
                    }
                }
                Node::Layer { mask, weight, .. } => {
                    if mask.len() != skeleton.len() {
                        return Err(bad(
                            i,
                            format!(
                                "mask has {} weights, the skeleton has {} joints",
                                mask.len(),
                                skeleton.len()
                            ),
                        ));
                    }
                    if let Some(j) = mask.iter().position(|w| !(0.0..=1.0).contains(w)) {
                        return Err(bad(
                            i,
                            format!("mask weight of joint {j} is outside [0, 1]"),
                        ));
                    }
                    check_weight(*weight)?;
                }
                Node::Additive {
                    clip,
                    speed,
                    reference,
                    weight,
                    ..
                } => {
                    check_clip(*clip)?;
                    check_speed(*speed)?;
                    check_weight(*weight)?;
                    if reference.len() != skeleton.len() || reference.iter().any(|t| !t.is_finite())
                    {
                        return Err(bad(
                            i,
                            "reference pose must hold one finite transform per joint".into(),
                        ));
                    }
                }
            }
            for c in children(node) {
                if c >= n {
                    return Err(bad_ref(i, format!("child {c} is not one of the {n} nodes")));
                }
                parents[c] += 1;
                if parents[c] > 1 || c == root {
                    return Err(GraphError::NotATree { node: c });
                }
            }
        }
        // Post-order by an explicit stack; a node reached twice means a cycle.
        let mut order = Vec::with_capacity(n);
        let mut visited = vec![false; n];
        let mut stack = vec![(root, false)];
        while let Some((node, expanded)) = stack.pop() {
            if expanded {
                order.push(node);
                continue;
            }
            if visited[node] {
                return Err(GraphError::NotATree { node });
            }
            visited[node] = true;
            stack.push((node, true));
            for c in children(&nodes[node]).into_iter().rev() {
                stack.push((c, false));
            }
        }
        if let Some(node) = (0..n).find(|i| !visited[*i]) {
            return Err(GraphError::BadValue {
                node,
                what: "is not part of the tree (the root does not reach it)".into(),
            });
        }
        // Slots: simulate the stack. A node's children sit in consecutive slots from its own;
        // additive nodes also need the slot above their base for the sampled clip.
        let mut slot = vec![0; n];
        let mut height = 0usize;
        let mut slots = 1;
        for &node in &order {
            let c = children(&nodes[node]).len();
            height -= c;
            slot[node] = height;
            let extra = usize::from(matches!(nodes[node], Node::Additive { .. }));
            slots = slots.max(height + 1 + extra);
            height += 1;
        }
        let cursors = nodes
            .iter()
            .map(|node| match node {
                Node::Clip { clip, .. } | Node::Additive { clip, .. } => {
                    ClipCursor::new(&clips[*clip])
                }
                _ => ClipCursor::default(),
            })
            .collect();
        let mut synced = vec![true; n];
        synced[root] = false;
        let mut looping = vec![false; n];
        for &node in &order {
            looping[node] = match &nodes[node] {
                Node::Clip { looping, .. } => *looping,
                Node::Blend1D { children, .. } => children.iter().all(|c| looping[*c]),
                Node::Layer { base, over, .. } => {
                    synced[*over] = false;
                    looping[*base]
                }
                Node::Additive { base, .. } => looping[*base],
            };
        }
        let mut clock_looping = vec![false; n];
        for &node in order.iter().rev() {
            clock_looping[node] = if synced[node] {
                // Parents come later in post-order, so they were set before their children.
                let parent = order
                    .iter()
                    .find(|&&p| children(&nodes[p]).contains(&node))
                    .copied()
                    .unwrap_or(root);
                clock_looping[parent]
            } else {
                looping[node]
            };
        }
        Ok(Self {
            nodes,
            root,
            order,
            slot,
            slots,
            joints: skeleton.len(),
            clock_looping,
            synced,
            looping,
            cursors,
        })
    }

    /// The nodes, as given.
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The root node.
    pub fn root(&self) -> NodeId {
        self.root
    }

    /// A fresh playback state at phase 0.
    pub fn new_state(&self) -> TreeState {
        let n = self.nodes.len();
        TreeState {
            phase: vec![0.0; n],
            prev: vec![0.0; n],
            aux: vec![0.0; n],
            aux_prev: vec![0.0; n],
            aux_step: vec![0.0; n],
            cursors: self.cursors.clone(),
            cycle: vec![0.0; n],
            weight: vec![0.0; n],
            step: vec![0.0; n],
            elapsed: 0.0,
            prev_elapsed: 0.0,
        }
    }

    /// Rewinds `state` to phase 0, as when its state is entered again.
    pub fn reset(&self, state: &mut TreeState) {
        state.phase.fill(0.0);
        state.prev.fill(0.0);
        state.aux.fill(0.0);
        state.aux_prev.fill(0.0);
        state.aux_step.fill(0.0);
        state.step.fill(0.0);
        state.elapsed = 0.0;
        state.prev_elapsed = 0.0;
    }

    /// Normalised phase of the root, in [0, 1].
    pub fn root_phase(&self, state: &TreeState) -> f32 {
        state.phase[self.root]
    }

    /// Moves the root (and so everything synced to it) to normalised phase `phase` (clamped to
    /// [0, 1)), e.g. to enter a state in step with the one it replaces.
    pub fn set_root_phase(&self, state: &mut TreeState, phase: f32) {
        let p = if phase.is_finite() {
            phase.clamp(0.0, 1.0)
        } else {
            0.0
        };
        let p = if self.looping[self.root] {
            p.fract()
        } else {
            p
        };
        state.phase[self.root] = p;
        // Everything that follows the root's clock moves with it.
        for &node in self.order.iter().rev() {
            let phase = state.phase[node];
            let mut follow = |c: NodeId| {
                if self.synced[c] {
                    state.phase[c] = phase;
                }
            };
            match &self.nodes[node] {
                Node::Clip { .. } => {}
                Node::Blend1D { children, .. } => children.iter().for_each(|c| follow(*c)),
                Node::Layer { base, over, .. } => {
                    follow(*base);
                    follow(*over);
                }
                Node::Additive { base, .. } => follow(*base),
            }
        }
        state.prev.copy_from_slice(&state.phase);
    }

    /// Pose slots for evaluating this tree.
    pub fn new_scratch(&self) -> TreeScratch {
        TreeScratch {
            poses: vec![Transform::IDENTITY; self.slots * self.joints],
        }
    }

    /// Number of pose slots evaluation needs (the stack depth).
    pub fn slot_count(&self) -> usize {
        self.slots
    }

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
        // Cycle lengths bottom-up. A blend's cycle mixes its children's, leaving out children
        // without one (single-pose clips), which would otherwise speed the others up.
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
        // Phases top-down: the root and layered subtrees run on their own clocks; Blend1D
        // children and bases follow their parent. Event windows are computed in phase with the
        // same sums as the phases, so markers on step boundaries fire exactly once.
        let step_of = |cycle: f32| if cycle > 0.0 { dt / cycle } else { 0.0 };
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
                    let aux_step = if d > 0.0 { dt * speed / d } else { 0.0 };
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
    fn weights(&self, state: &mut TreeState, params: &[f32]) {
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

    /// Effective weight of each node as of the last `advance` or `evaluate` (the product of the
    /// weights on its path from the root; 0 for nodes that were not evaluated).
    pub fn node_weights<'a>(&self, state: &'a TreeState) -> &'a [f32] {
        &state.weight
    }

    /// Normalised phase of each node, in [0, 1].
    pub fn node_phases<'a>(&self, state: &'a TreeState) -> &'a [f32] {
        &state.phase
    }

    /// Whether the root loops.
    pub fn looping(&self) -> bool {
        self.looping[self.root]
    }

    /// Length of the root's cycle as of the last [`BlendTree::advance`], seconds (0 for a
    /// single pose).
    pub fn root_cycle(&self, state: &TreeState) -> f32 {
        state.cycle[self.root]
    }

    /// The other clocks that played with non-zero weight in the last [`BlendTree::advance`]:
    /// the cycle length (seconds) and looping flag of every layered `over` subtree and every
    /// additive clip. A state repeats exactly only after a whole number of cycles of the root
    /// and of each of these.
    pub fn independent_clocks(&self, clips: &[Clip], state: &TreeState) -> Vec<(f32, bool)> {
        let mut out = Vec::new();
        for (node, n) in self.nodes.iter().enumerate() {
            if state.weight[node] <= 0.0 {
                continue;
            }
            if node != self.root && !self.synced[node] && state.cycle[node] > 0.0 {
                out.push((state.cycle[node], self.looping[node]));
            }
            if let Node::Additive {
                clip,
                speed,
                looping,
                ..
            } = n
            {
                let d = clips[*clip].duration() / speed;
                if d > 0.0 {
                    out.push((d, *looping));
                }
            }
        }
        out
    }

    /// Normalised time of the root since the state started (1.0 = one cycle; unwrapped).
    pub fn elapsed_cycles(&self, state: &TreeState) -> f32 {
        state.elapsed
    }

    /// Writes the tree's local pose for `params` and the phases in `state` into `out`
    /// (`skeleton.len()` transforms). Allocates nothing; nodes with zero effective weight are
    /// not evaluated.
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

/// The children of a node, in order (build time only).
fn children(node: &Node) -> Vec<NodeId> {
    match node {
        Node::Clip { .. } => Vec::new(),
        Node::Blend1D { children, .. } => children.clone(),
        Node::Layer { base, over, .. } => vec![*base, *over],
        Node::Additive { base, .. } => vec![*base],
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::{Interpolation, Property, RawChannel, RawClip};
    use crate::anim::skeleton::tests::sample_skeleton;
    use glam::Vec4;

    fn clips(s: &Skeleton) -> Vec<Clip> {
        vec![
            RawClip {
                name: "a".into(),
                channels: vec![RawChannel {
                    joint: 1,
                    property: Property::Translation,
                    interpolation: Interpolation::Linear,
                    times: vec![0.0, 1.0],
                    values: vec![Vec4::ZERO, Vec4::X],
                }],
            }
            .validate(s)
            .unwrap(),
        ]
    }

    fn clip_node() -> Node {
        Node::Clip {
            clip: 0,
            speed: 1.0,
            looping: true,
        }
    }

    #[test]
    fn refuses_graphs_that_are_not_trees() {
        let s = sample_skeleton();
        let c = clips(&s);
        let blend = |children: Vec<NodeId>| Node::Blend1D {
            param: 0,
            positions: (0..children.len()).map(|i| i as f32).collect(),
            children,
        };
        // Node 1 used twice.
        let err = BlendTree::new(vec![blend(vec![1, 1]), clip_node()], 0, &s, &c, 1).unwrap_err();
        assert_eq!(err, GraphError::NotATree { node: 1 });
        // A cycle back to the root.
        let err = BlendTree::new(vec![blend(vec![1]), blend(vec![0])], 0, &s, &c, 1).unwrap_err();
        assert_eq!(err, GraphError::NotATree { node: 0 });
        // Dangling child, clip and parameter.
        assert!(matches!(
            BlendTree::new(vec![blend(vec![5])], 0, &s, &c, 1),
            Err(GraphError::BadReference { .. })
        ));
        assert!(matches!(
            BlendTree::new(
                vec![Node::Clip {
                    clip: 3,
                    speed: 1.0,
                    looping: true
                }],
                0,
                &s,
                &c,
                0
            ),
            Err(GraphError::BadReference { .. })
        ));
        assert!(matches!(
            BlendTree::new(vec![blend(vec![1]), clip_node()], 0, &s, &c, 0),
            Err(GraphError::BadReference { .. })
        ));
    }

    #[test]
    fn refuses_bad_values() {
        let s = sample_skeleton();
        let c = clips(&s);
        let err = BlendTree::new(
            vec![
                Node::Blend1D {
                    param: 0,
                    positions: vec![1.0, 1.0],
                    children: vec![1, 2],
                },
                clip_node(),
                clip_node(),
            ],
            0,
            &s,
            &c,
            1,
        )
        .unwrap_err();
        assert_eq!(
            err.to_string(),
            "node 0: position 1 (1) must be finite and greater than the one before"
        );
        let err = BlendTree::new(
            vec![Node::Clip {
                clip: 0,
                speed: 0.0,
                looping: true,
            }],
            0,
            &s,
            &c,
            0,
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "node 0: speed 0 must be a positive number");
        let layer = Node::Layer {
            base: 1,
            over: 2,
            mask: vec![1.0; 2],
            weight: Weight::Const(1.0),
        };
        let err = BlendTree::new(vec![layer, clip_node(), clip_node()], 0, &s, &c, 0).unwrap_err();
        assert_eq!(
            err.to_string(),
            "node 0: mask has 2 weights, the skeleton has 4 joints"
        );
    }

    #[test]
    fn a_looping_clip_in_a_clamped_blend_stops_with_it() {
        let s = sample_skeleton();
        let c = clips(&s);
        let events = vec![EventTrack::new(vec![crate::anim::events::Event {
            name: "start".into(),
            time: 0.0,
        }])];
        // The blend holds a looping and a clamped clip, so it is clamped: it plays once.
        let nodes = vec![
            Node::Blend1D {
                param: 0,
                positions: vec![0.0, 1.0],
                children: vec![1, 2],
            },
            Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: true,
            },
            Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: false,
            },
        ];
        let tree = BlendTree::new(nodes, 0, &s, &c, 1).unwrap();
        let mut state = tree.new_state();
        let mut fired = 0;
        for _ in 0..300 {
            tree.advance(&c, &events, &mut state, &[0.0], 1.0 / 60.0, |_| fired += 1);
        }
        // Five seconds of a 1 s clip: the marker at 0 fires once, not once per second.
        assert_eq!(fired, 1);
        assert_eq!(tree.root_phase(&state), 1.0);
    }

    #[test]
    fn single_pose_children_do_not_speed_up_a_blend() {
        let s = sample_skeleton();
        let mut c = clips(&s);
        // A second clip with a single key: a pose, no cycle.
        c.push(
            RawClip {
                name: "pose".into(),
                channels: vec![RawChannel {
                    joint: 1,
                    property: Property::Translation,
                    interpolation: Interpolation::Step,
                    times: vec![0.0],
                    values: vec![Vec4::ZERO],
                }],
            }
            .validate(&s)
            .unwrap(),
        );
        let nodes = vec![
            Node::Blend1D {
                param: 0,
                positions: vec![0.0, 1.0],
                children: vec![1, 2],
            },
            Node::Clip {
                clip: 1,
                speed: 1.0,
                looping: true,
            },
            Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: true,
            },
        ];
        let tree = BlendTree::new(nodes, 0, &s, &c, 1).unwrap();
        let mut state = tree.new_state();
        // Nine tenths of the way to the pose: the 1 s clip still plays at its own rate.
        tree.advance(&c, &[], &mut state, &[0.1], 0.25, |_| {});
        assert!((tree.root_phase(&state) - 0.25).abs() < 1e-6);
    }

    #[test]
    fn slots_follow_the_stack_depth() {
        let s = sample_skeleton();
        let c = clips(&s);
        // layer(blend(a, b), c): the blend's children need slots 0 and 1, then the layer's
        // `over` sits in slot 1: two slots in all.
        let nodes = vec![
            Node::Layer {
                base: 1,
                over: 4,
                mask: vec![1.0; 4],
                weight: Weight::Const(0.5),
            },
            Node::Blend1D {
                param: 0,
                positions: vec![0.0, 1.0],
                children: vec![2, 3],
            },
            clip_node(),
            clip_node(),
            clip_node(),
        ];
        let tree = BlendTree::new(nodes, 0, &s, &c, 1).unwrap();
        assert_eq!(tree.slot_count(), 2);
    }
}
