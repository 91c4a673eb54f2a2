//! How named trees nest, worked out once before any blend tree is built: no tree contains itself, no state nests deeper than
//! [`MAX_TREE_DEPTH`](super::MAX_TREE_DEPTH) levels, and the character's blend trees, with named
//! trees copied into every place that uses them, stay within
//! [`MAX_TREE_NODES`](super::MAX_TREE_NODES) nodes and
//! [`MAX_JOINT_VALUES`](super::MAX_JOINT_VALUES) per-joint values.
//!
//! Named trees form a graph; it is walked with an explicit stack, each tree once, so a chain of
//! a hundred thousand trees costs a hundred thousand steps and no stack. Only the nodes written
//! inside one tree or state are walked by recursion, and TOML itself limits how deep those nest
//! (its parser refuses nesting beyond 80 tables and arrays). With these checks passed, building
//! the trees (`tree.rs`, which does recurse through named trees) is bounded in depth and work.

use std::collections::BTreeMap;

use toml::Spanned;

use super::context::Ctx;
use super::error::CharacterError;
use super::file::{CharacterFile, NodeSpec};
use super::{MAX_JOINT_VALUES, MAX_TREE_DEPTH, MAX_TREE_NODES};

/// What the nodes written inside one tree or state hold, named trees not expanded.
#[derive(Default)]
struct Inline<'a> {
    /// Each `tree = NAME` reference, with the level of the node that makes it (1 = the root).
    refs: Vec<(&'a Spanned<String>, u64)>,
    /// Levels of the deepest node.
    depth: u64,
    /// Nodes, `tree = NAME` references not counted (they become the tree they name).
    nodes: u64,
    /// Layer and additive nodes: each holds a value per joint (a mask or a reference pose).
    heavy: u64,
}

/// Walks the nodes written inside `spec`, at `level`, into `out`. Recursive over inline nesting
/// only, which the TOML parser bounds.
fn walk<'a>(spec: &'a NodeSpec, level: u64, out: &mut Inline<'a>) {
    out.depth = out.depth.max(level);
    match &spec.tree {
        Some(name) => out.refs.push((name, level)),
        None => out.nodes += 1,
    }
    if spec.layer.is_some() || spec.additive.is_some() {
        out.heavy += 1;
    }
    let children = spec.children.iter().flatten();
    let inner = spec.layer.iter().chain(&spec.base).map(|b| &**b);
    for child in children.chain(inner) {
        walk(child.get_ref(), level + 1, out);
    }
}

fn inline(spec: &NodeSpec) -> Inline<'_> {
    let mut out = Inline::default();
    walk(spec, 1, &mut out);
    out
}

/// A named tree with everything it names expanded.
#[derive(Clone, Copy, Default)]
struct Expanded {
    /// Levels, counting each `tree = NAME` node and the tree it brings in.
    depth: u64,
    /// Nodes (saturating: a tree that doubles per level overflows any integer).
    nodes: u64,
    /// Layer and additive nodes (saturating).
    heavy: u64,
    /// The named tree on the deepest path, for messages.
    next: Option<usize>,
}

impl Expanded {
    /// `inline`'s nodes with the trees it names, whose expansions are in `done`.
    fn of(inline: &Inline, index: &BTreeMap<&str, usize>, done: &[Expanded]) -> Self {
        let mut e = Expanded {
            depth: inline.depth,
            nodes: inline.nodes,
            heavy: inline.heavy,
            next: None,
        };
        for (name, level) in &inline.refs {
            // An undefined tree adds nothing; resolution reports it.
            let Some(&t) = index.get(name.get_ref().as_str()) else {
                continue;
            };
            let d = done[t];
            if level.saturating_add(d.depth) > e.depth {
                e.depth = level.saturating_add(d.depth);
                e.next = Some(t);
            }
            e.nodes = e.nodes.saturating_add(d.nodes);
            e.heavy = e.heavy.saturating_add(d.heavy);
        }
        e
    }
}

/// Checks how `spec`'s named trees and states nest (see the module's header).
///
/// # Errors
/// [`CharacterError::Invalid`] at the reference that closes a cycle (naming the cycle), at the
/// state or top-level tree whose nesting passes the depth limit (naming the chain of trees), or
/// at the state that takes the character past the node or per-joint budget.
pub(super) fn check(ctx: &Ctx, spec: &CharacterFile) -> Result<(), CharacterError> {
    let names: Vec<&str> = spec.trees.keys().map(String::as_str).collect();
    let index: BTreeMap<&str, usize> = names.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let trees: Vec<Inline> = spec.trees.values().map(|t| inline(t.get_ref())).collect();
    let states: Vec<(&String, &Spanned<NodeSpec>, Inline)> = spec
        .states
        .iter()
        .map(|(n, s)| (n, s, inline(s.get_ref())))
        .collect();

    // A reference to an undefined tree is left to resolution, which reports it in file order
    // with the node's other mistakes; here it counts as nothing.
    let expanded = expand_all(ctx, &names, &index, &trees)?;

    // Depth: states first, then the trees no other tree uses, so that a chain is reported
    // where it starts.
    let used: Vec<bool> = {
        let mut used = vec![false; names.len()];
        for (name, _) in trees.iter().flat_map(|t| &t.refs) {
            if let Some(&t) = index.get(name.get_ref().as_str()) {
                used[t] = true;
            }
        }
        used
    };
    let chain_from = |first: Option<usize>| {
        let mut path = Vec::new();
        let mut at = first;
        while let Some(t) = at {
            path.push(names[t]);
            at = expanded[t].next;
        }
        path
    };
    for (name, s, inl) in &states {
        let e = Expanded::of(inl, &index, &expanded);
        if e.depth > MAX_TREE_DEPTH {
            return Err(ctx.err(
                s.span(),
                format!(
                    "state '{name}' nests its blend tree {} levels deep, through trees {}; at most {MAX_TREE_DEPTH} levels are allowed",
                    e.depth,
                    arrows(&chain_from(e.next))
                ),
            ));
        }
    }
    for (t, e) in expanded.iter().enumerate() {
        if !used[t] && e.depth > MAX_TREE_DEPTH {
            return Err(ctx.err(
                spec.trees[names[t]].span(),
                format!(
                    "tree '{}' nests {} levels deep, through trees {}; at most {MAX_TREE_DEPTH} levels are allowed",
                    names[t],
                    e.depth,
                    arrows(&chain_from(Some(t)))
                ),
            ));
        }
    }

    budget(ctx, spec, &trees, &states, &index, &expanded)
}

/// Each named tree expanded, in index order, by a depth-first walk with an explicit stack.
///
/// # Errors
/// At the reference that closes a cycle, naming it.
fn expand_all(
    ctx: &Ctx,
    names: &[&str],
    index: &BTreeMap<&str, usize>,
    trees: &[Inline],
) -> Result<Vec<Expanded>, CharacterError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark = vec![Mark::New; names.len()];
    let mut out = vec![Expanded::default(); names.len()];
    for root in 0..names.len() {
        if mark[root] != Mark::New {
            continue;
        }
        // (tree, next reference to follow)
        let mut stack = vec![(root, 0usize)];
        mark[root] = Mark::Open;
        while let Some(top) = stack.last_mut() {
            let (t, k) = *top;
            let Some((name, _)) = trees[t].refs.get(k) else {
                out[t] = Expanded::of(&trees[t], index, &out);
                mark[t] = Mark::Done;
                stack.pop();
                continue;
            };
            top.1 += 1;
            let Some(&r) = index.get(name.get_ref().as_str()) else {
                continue;
            };
            match mark[r] {
                Mark::Done => {}
                Mark::New => {
                    mark[r] = Mark::Open;
                    stack.push((r, 0));
                }
                Mark::Open => {
                    let from = stack.iter().position(|(s, _)| *s == r).unwrap_or(0);
                    let mut cycle: Vec<&str> =
                        stack[from..].iter().map(|(s, _)| names[*s]).collect();
                    cycle.push(names[r]);
                    return Err(ctx.err(
                        name.span(),
                        format!("tree '{}' contains itself: {}", names[r], arrows(&cycle)),
                    ));
                }
            }
        }
    }
    Ok(out)
}

/// The node and per-joint budgets over every blend tree loading builds: each state with its
/// named trees expanded, each named tree's own nodes (checked on their own), and the masks.
fn budget(
    ctx: &Ctx,
    spec: &CharacterFile,
    trees: &[Inline],
    states: &[(&String, &Spanned<NodeSpec>, Inline)],
    index: &BTreeMap<&str, usize>,
    expanded: &[Expanded],
) -> Result<(), CharacterError> {
    let joints = ctx.model.skeleton.len() as u64;
    let mut nodes: u64 = trees.iter().map(|t| t.nodes).sum();
    let mut heavy: u64 = trees.iter().map(|t| t.heavy).sum::<u64>() + spec.masks.len() as u64;
    for (name, s, inl) in states {
        let e = Expanded::of(inl, index, expanded);
        nodes = nodes.saturating_add(e.nodes);
        heavy = heavy.saturating_add(e.heavy);
        if nodes > MAX_TREE_NODES {
            return Err(ctx.err(
                s.span(),
                format!(
                    "state '{name}' takes the character's blend trees to {} nodes (this state: {}; named trees are copied into every place that uses them); a character holds at most {MAX_TREE_NODES}",
                    count(nodes),
                    count(e.nodes)
                ),
            ));
        }
        let values = heavy.saturating_mul(joints);
        if values > MAX_JOINT_VALUES {
            return Err(ctx.err(
                s.span(),
                format!(
                    "state '{name}' takes the character to {} masks, layer and additive nodes, each holding a value per joint ({joints} joints): {} values; a character holds at most {MAX_JOINT_VALUES}",
                    count(heavy),
                    count(values)
                ),
            ));
        }
    }
    let values = heavy.saturating_mul(joints);
    if values > MAX_JOINT_VALUES {
        return Err(ctx.err(
            0..0,
            format!(
                "{} masks, layer and additive nodes, each holding a value per joint ({joints} joints), are {} values; a character holds at most {MAX_JOINT_VALUES}",
                count(heavy),
                count(values)
            ),
        ));
    }
    Ok(())
}

/// A saturated count says so.
fn count(n: u64) -> String {
    if n == u64::MAX {
        format!("{n} or more")
    } else {
        n.to_string()
    }
}

/// `a -> b -> c`, with the middle of a long chain left out.
fn arrows(path: &[&str]) -> String {
    const SHOWN: usize = 4;
    if path.len() <= 2 * SHOWN {
        return path.join(" -> ");
    }
    format!(
        "{} -> ... ({} more) ... -> {}",
        path[..SHOWN].join(" -> "),
        path.len() - 2 * SHOWN,
        path[path.len() - SHOWN..].join(" -> ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::import::{ImportOptions, Model, load_bytes};

    fn mannequin() -> Model {
        let glb = crate::import::mannequin::generate_glb();
        load_bytes(&glb, "mannequin.glb", &ImportOptions::default()).unwrap()
    }

    /// `check` on character file `text` (its `model` key is not read).
    fn check_text(model: &Model, text: &str) -> Result<(), String> {
        let text = format!("model = \"m.glb\"\n{text}");
        let spec: CharacterFile = toml::from_str(&text).unwrap();
        let ctx = Ctx::new("c.toml", &text, model, &spec.trees);
        check(&ctx, &spec).map_err(|e| e.to_string())
    }

    /// A state using t0, and trees t0 .. t{n} each naming the next, the last playing a clip.
    fn chain(n: usize) -> String {
        let mut t = String::from("[states.s]\ntree = \"t0\"\n");
        for i in 0..n {
            t += &format!("[trees.t{i}]\ntree = \"t{}\"\n", i + 1);
        }
        t + &format!("[trees.t{n}]\nclip = \"walk\"\n")
    }

    #[test]
    fn a_chain_within_the_limit_passes_and_one_beyond_names_its_start() {
        let m = mannequin();
        // The state, then t0 .. t{n}: n + 2 levels.
        let n = MAX_TREE_DEPTH as usize - 2;
        assert_eq!(check_text(&m, &chain(n)), Ok(()));
        let e = check_text(&m, &chain(n + 1)).unwrap_err();
        assert_eq!(
            e,
            format!(
                "c.toml:2: state 's' nests its blend tree 65 levels deep, through trees t0 -> t1 -> t2 -> t3 -> ... (56 more) ... -> t60 -> t61 -> t62 -> t63; at most {MAX_TREE_DEPTH} levels are allowed"
            )
        );
        // Unused, the chain is reported at the tree that starts it (t0 .. t64: 65 levels).
        let unused = chain(n + 1).replace("tree = \"t0\"", "clip = \"idle\"");
        assert_eq!(check_text(&m, &unused), Ok(()));
        let e = check_text(
            &m,
            &chain(n + 2).replace("tree = \"t0\"", "clip = \"idle\""),
        )
        .unwrap_err();
        assert!(
            e.starts_with("c.toml:4: tree 't0' nests 65 levels deep"),
            "{e}"
        );
    }

    #[test]
    fn inline_levels_count_with_named_ones() {
        let m = mannequin();
        // Each tree nests a blend1d child one level down before naming the next tree.
        let mut t =
            String::from("[parameters]\nx = { type = \"float\" }\n[states.s]\ntree = \"t0\"\n");
        let n = 40;
        for i in 0..n {
            t += &format!(
                "[trees.t{i}]\nblend1d = \"x\"\nchildren = [{{ at = 0, tree = \"t{}\" }}]\n",
                i + 1
            );
        }
        t += &format!("[trees.t{n}]\nclip = \"walk\"\n");
        // 1 (state) + 40 × 2 + 1 levels.
        let e = check_text(&m, &t).unwrap_err();
        assert!(e.contains("nests its blend tree 82 levels deep"), "{e}");
    }

    #[test]
    fn cycles_are_named() {
        let m = mannequin();
        let e = check_text(
            &m,
            "[states.s]\ntree = \"t1\"\n[trees.t1]\ntree = \"t2\"\n[trees.t2]\nlayer = { tree = \"t1\" }\nbase = { clip = \"idle\" }\nmask = \"m\"\n",
        )
        .unwrap_err();
        assert_eq!(e, "c.toml:7: tree 't1' contains itself: t1 -> t2 -> t1");
        let e =
            check_text(&m, "[states.s]\nclip = \"idle\"\n[trees.t]\ntree = \"t\"\n").unwrap_err();
        assert_eq!(e, "c.toml:5: tree 't' contains itself: t -> t");
        // An undefined tree is left to resolution, which reports it with its node's mistakes.
        assert_eq!(check_text(&m, "[states.s]\ntree = \"nope\"\n"), Ok(()));
    }

    #[test]
    fn trees_that_double_per_level_are_refused_before_they_are_built() {
        let m = mannequin();
        let mut t = String::from("[states.s]\ntree = \"t0\"\n");
        let n = 20;
        for i in 0..n {
            t += &format!(
                "[trees.t{i}]\nlayer = {{ tree = \"t{0}\" }}\nbase = {{ tree = \"t{0}\" }}\nmask = \"m\"\n",
                i + 1
            );
        }
        t += &format!("[trees.t{n}]\nclip = \"walk\"\n");
        // 2^20 clips and 2^20 - 1 layers, and the trees' own 21 nodes (checked on their own).
        let e = check_text(&m, &t).unwrap_err();
        assert!(
            e.starts_with(&format!(
                "c.toml:2: state 's' takes the character's blend trees to {} nodes (this state: {}",
                (1u64 << 21) - 1 + 21,
                (1u64 << 21) - 1
            )),
            "{e}"
        );
        // Within the budget at 15 levels (2^16 - 1 + 16 nodes is just over it; 14 is under).
        let small = |levels: usize| {
            let mut t = String::from("[states.s]\ntree = \"t0\"\n");
            for i in 0..levels {
                t += &format!(
                    "[trees.t{i}]\nlayer = {{ tree = \"t{0}\" }}\nbase = {{ tree = \"t{0}\" }}\nmask = \"m\"\n",
                    i + 1
                );
            }
            t + &format!("[trees.t{levels}]\nclip = \"walk\"\n")
        };
        assert_eq!(check_text(&m, &small(14)), Ok(()));
        assert!(check_text(&m, &small(16)).is_err());
    }

    #[test]
    fn per_joint_values_are_budgeted() {
        let m = mannequin();
        let joints = m.skeleton.len() as u64;
        let masks = MAX_JOINT_VALUES / joints + 1;
        let mut t = String::from("[states.s]\nclip = \"walk\"\n");
        for i in 0..masks {
            t += &format!("[masks.m{i}]\nsubtree = \"spine\"\n");
        }
        let e = check_text(&m, &t).unwrap_err();
        assert!(
            e.contains(&format!("{masks} masks, layer and additive nodes")),
            "{e}"
        );
    }

    #[test]
    fn long_chains_are_shortened() {
        assert_eq!(arrows(&["a", "b", "a"]), "a -> b -> a");
        let names: Vec<String> = (0..20).map(|i| format!("t{i}")).collect();
        let refs: Vec<&str> = names.iter().map(String::as_str).collect();
        assert_eq!(
            arrows(&refs),
            "t0 -> t1 -> t2 -> t3 -> ... (12 more) ... -> t16 -> t17 -> t18 -> t19"
        );
    }
}
