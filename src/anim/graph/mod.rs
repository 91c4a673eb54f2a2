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
//!
//! This file holds the types and the per-instance state; `build.rs` validates a tree and
//! flattens it ([`BlendTree::new`]), `eval.rs` advances time and evaluates poses, `clock.rs`
//! says how each node's phase follows time (for timing single event markers).

mod build;
mod clock;
mod eval;

pub use clock::{Clock, EventClock};

use thiserror::Error;

use super::clip::Clip;
use super::sample::ClipCursor;
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
        /// The clip's index in the `clips` given to [`BlendTree::new`].
        clip: usize,
        /// Playback rate as a multiple of the clip's own (1.0 = as authored); finite and > 0.
        speed: f32,
        /// Whether the clip wraps at its end (true) or holds its last pose (false).
        looping: bool,
    },
    /// Blends children placed on a parameter axis at strictly increasing `positions`: the two
    /// children around the parameter's value are mixed linearly; outside the axis it clamps.
    Blend1D {
        /// The index of the float parameter that places the blend on its axis.
        param: usize,
        /// Each child's place on the axis, in the parameter's units (e.g. m/s for a speed
        /// blend): one per child, finite and strictly increasing.
        positions: Vec<f32>,
        /// The blended nodes, at least one; they share this node's phase.
        children: Vec<NodeId>,
    },
    /// Mixes `over` onto `base` per joint by `mask` (0..=1 per joint) times `weight`.
    Layer {
        /// The node whose pose is layered over; it shares this node's phase.
        base: NodeId,
        /// The node mixed on top; it keeps its own phase.
        over: NodeId,
        /// How much of `over` each joint takes, in [0, 1]: one weight per skeleton joint, by
        /// joint index.
        mask: Vec<f32>,
        /// The layer's overall weight, multiplied into every joint's mask weight.
        weight: Weight,
    },
    /// Adds `clip`'s difference from `reference` (a local pose) onto `base`, scaled by `weight`.
    Additive {
        /// The node the difference is added onto; it shares this node's phase.
        base: NodeId,
        /// The additive clip's index in the `clips` given to [`BlendTree::new`]; it keeps its
        /// own phase.
        clip: usize,
        /// Playback rate of `clip` as a multiple of its own (1.0 = as authored); finite and > 0.
        speed: f32,
        /// Whether `clip` wraps at its end (true) or holds its last pose (false).
        looping: bool,
        /// The local pose the clip's difference is measured from: one finite transform per
        /// skeleton joint, by joint index.
        reference: Vec<Transform>,
        /// How much of the difference is added, in [0, 1].
        weight: Weight,
    },
}

/// Why a blend tree is invalid.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum GraphError {
    /// A node refers to a node, clip or parameter that does not exist.
    #[error("node {node}: {what}")]
    BadReference {
        /// The index of the node that holds the reference (or, for the root, the root index
        /// that was given).
        node: NodeId,
        /// What it refers to that does not exist, e.g. "clip 4 does not exist (3 clips)".
        what: String,
    },
    /// A node is used by two parents, or the tree has a cycle.
    #[error("node {node} is used more than once (blend trees must be trees, without cycles)")]
    NotATree {
        /// The index of the node reached twice (a second parent, the root used as a child, or
        /// a cycle).
        node: NodeId,
    },
    /// A value is out of range.
    #[error("node {node}: {what}")]
    BadValue {
        /// The index of the offending node.
        node: NodeId,
        /// What is wrong with it, e.g. "speed 0 must be a positive number".
        what: String,
    },
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
    /// Index of the marker in that clip's [`EventTrack`](crate::anim::events::EventTrack).
    pub event: usize,
    /// How many times it was crossed in this step (more than 1 only for steps over a loop).
    pub count: u32,
    /// Effective weight of the node that played it, in (0, 1].
    pub weight: f32,
}

impl BlendTree {
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
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::{Interpolation, Property, RawChannel, RawClip};
    use crate::anim::events::EventTrack;
    use crate::anim::skeleton::Skeleton;
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
    fn a_step_of_more_cycles_than_an_f32_holds_keeps_the_phases_finite() {
        let s = sample_skeleton();
        let c = clips(&s);
        let nodes = vec![
            Node::Additive {
                base: 1,
                clip: 0,
                speed: 2.0,
                looping: true,
                reference: s.rest().to_vec(),
                weight: Weight::Const(1.0),
            },
            Node::Clip {
                clip: 0,
                speed: 4.0,
                looping: true,
            },
        ];
        let tree = BlendTree::new(nodes, 0, &s, &c, 0).unwrap();
        let mut state = tree.new_state();
        // 3e38 s of a 1 s clip at speeds 2 and 4: 6e38 and 1.2e39 cycles, beyond f32.
        tree.advance(&c, &[], &mut state, &[], 3e38, |_| {});
        assert!(tree.node_phases(&state).iter().all(|p| p.is_finite()));
        let mut scratch = tree.new_scratch();
        let mut out = vec![Transform::IDENTITY; s.len()];
        tree.evaluate(&c, &s, &mut state, &[], &mut scratch, &mut out);
        assert!(out.iter().all(|t| t.is_finite()));
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
