//! Building a [`BlendTree`]: each node checked against the skeleton, clips and parameters, the
//! nodes proven to form one tree, flattened into post-order with a pose slot per node, and each
//! node's clock (synced to its parent or its own, looping or not) worked out once.

use super::{BlendTree, GraphError, Node, NodeId, Weight};
use crate::anim::clip::Clip;
use crate::anim::sample::ClipCursor;
use crate::anim::skeleton::Skeleton;

/// What a node may refer to: the skeleton's joint count, the clips and the float parameters.
struct Bounds<'a> {
    joints: usize,
    clips: &'a [Clip],
    param_count: usize,
}

/// Each node's clock: whether it follows its parent's phase, whether it loops itself, and
/// whether the clock it follows loops.
struct Clocks {
    synced: Vec<bool>,
    looping: Vec<bool>,
    clock_looping: Vec<bool>,
}

fn bad_ref(node: NodeId, what: String) -> GraphError {
    GraphError::BadReference { node, what }
}

fn bad(node: NodeId, what: String) -> GraphError {
    GraphError::BadValue { node, what }
}

impl BlendTree {
    /// Validates `nodes` as a tree rooted at `root` for `skeleton`, `clips` and `param_count`
    /// float parameters.
    ///
    /// # Errors
    /// [`GraphError`] naming the node: [`GraphError::BadReference`] for a node, clip or
    /// parameter that does not exist; [`GraphError::NotATree`] for shared nodes or cycles;
    /// [`GraphError::BadValue`] for Blend1D positions not strictly increasing, non-positive
    /// speeds, weights outside [0, 1], masks or reference poses of the wrong length, non-finite
    /// values, or a node the root does not reach.
    pub fn new(
        nodes: Vec<Node>,
        root: NodeId,
        skeleton: &Skeleton,
        clips: &[Clip],
        param_count: usize,
    ) -> Result<Self, GraphError> {
        let n = nodes.len();
        if root >= n {
            return Err(bad_ref(root, format!("root is not one of the {n} nodes")));
        }
        let bounds = Bounds {
            joints: skeleton.len(),
            clips,
            param_count,
        };
        let mut parents = vec![0u32; n];
        for (i, node) in nodes.iter().enumerate() {
            check_node(i, node, &bounds)?;
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
        let order = post_order(&nodes, root)?;
        let (slot, slots) = stack_slots(&nodes, &order);
        let cursors = nodes
            .iter()
            .map(|node| match node {
                Node::Clip { clip, .. } | Node::Additive { clip, .. } => {
                    ClipCursor::new(&clips[*clip])
                }
                _ => ClipCursor::default(),
            })
            .collect();
        let Clocks {
            synced,
            looping,
            clock_looping,
        } = clocks(&nodes, &order, root);
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
}

/// Checks node `i`'s own references and values (its children are checked by the caller).
fn check_node(i: NodeId, node: &Node, bounds: &Bounds) -> Result<(), GraphError> {
    let check_clip = |c: usize| {
        if c < bounds.clips.len() {
            Ok(())
        } else {
            Err(bad_ref(
                i,
                format!("clip {c} does not exist ({} clips)", bounds.clips.len()),
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
        Weight::Param(p) if p >= bounds.param_count => {
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
        } => check_blend1d(i, *param, positions, children, bounds)?,
        Node::Layer { mask, weight, .. } => {
            if mask.len() != bounds.joints {
                return Err(bad(
                    i,
                    format!(
                        "mask has {} weights, the skeleton has {} joints",
                        mask.len(),
                        bounds.joints
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
            if reference.len() != bounds.joints || reference.iter().any(|t| !t.is_finite()) {
                return Err(bad(
                    i,
                    "reference pose must hold one finite transform per joint".into(),
                ));
            }
        }
    }
    Ok(())
}

/// A Blend1D: an existing parameter, one position per child, positions finite and increasing.
fn check_blend1d(
    i: NodeId,
    param: usize,
    positions: &[f32],
    children: &[NodeId],
    bounds: &Bounds,
) -> Result<(), GraphError> {
    if param >= bounds.param_count {
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
    if let Some(k) = (0..positions.len())
        .find(|&k| !positions[k].is_finite() || (k > 0 && positions[k] <= positions[k - 1]))
    {
        return Err(bad(
            i,
            format!(
                "position {k} ({}) must be finite and greater than the one before",
                positions[k]
            ),
        ));
    }
    Ok(())
}

/// The nodes in post-order (children before parents) from `root`, by an explicit stack; a node
/// reached twice means a cycle, one never reached is not part of the tree.
fn post_order(nodes: &[Node], root: NodeId) -> Result<Vec<NodeId>, GraphError> {
    let n = nodes.len();
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
    Ok(order)
}

/// The pose slot of each node's output and the number of slots, by simulating the evaluation
/// stack. A node's children sit in consecutive slots from its own; additive nodes also need
/// the slot above their base for the sampled clip.
fn stack_slots(nodes: &[Node], order: &[NodeId]) -> (Vec<usize>, usize) {
    let mut slot = vec![0; nodes.len()];
    let mut height = 0usize;
    let mut slots = 1;
    for &node in order {
        let c = children(&nodes[node]).len();
        height -= c;
        slot[node] = height;
        let extra = usize::from(matches!(nodes[node], Node::Additive { .. }));
        slots = slots.max(height + 1 + extra);
        height += 1;
    }
    (slot, slots)
}

/// Each node's clock. The root and layered `over` subtrees run on their own clocks; every other
/// node follows its parent's. A clip loops by its flag, a blend when all its children do, a
/// layer or additive node when its base does.
fn clocks(nodes: &[Node], order: &[NodeId], root: NodeId) -> Clocks {
    let n = nodes.len();
    let mut synced = vec![true; n];
    synced[root] = false;
    let mut looping = vec![false; n];
    for &node in order {
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
    // Each node's parent, found once: searching the order for it per node would be quadratic
    // in the tree's size.
    let mut parent = vec![root; n];
    for &p in order {
        for c in children(&nodes[p]) {
            parent[c] = p;
        }
    }
    let mut clock_looping = vec![false; n];
    for &node in order.iter().rev() {
        clock_looping[node] = if synced[node] {
            // Parents come later in post-order, so they were set before their children.
            clock_looping[parent[node]]
        } else {
            looping[node]
        };
    }
    Clocks {
        synced,
        looping,
        clock_looping,
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
