//! Blend-tree nodes of a character file (`clip`, `tree`, `blend1d`, `layer`, `additive`)
//! resolved into the animation core's [`Node`]s, flattened children-first into one list, with
//! named trees expanded in place.
//!
//! This recurses through named trees: `nesting.rs` has checked beforehand that every named
//! tree exists, none contains itself, and how deep and large the expansion gets, so the
//! recursion here is bounded by [`MAX_TREE_DEPTH`](super::MAX_TREE_DEPTH) levels.

use std::ops::Range;

use toml::Spanned;

use super::context::{Ctx, listing};
use super::error::CharacterError;
use super::file::{NodeSpec, ReferenceSpec};
use super::number::to_f32;
use crate::anim::graph::{Node, NodeId};
use crate::anim::state_machine::ParamKind;
use crate::anim::{Transform, Wrap, sample};

/// What a `tree = NAME` node becomes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Named {
    /// The named tree, built in its place (for a state's blend tree).
    Expand,
    /// A stand-in node: the named tree is checked on its own. For checking each named tree
    /// once, whoever uses it, so that checking them all is linear in the file; the nodes built
    /// so are thrown away.
    Skip,
}

impl Ctx<'_> {
    /// Builds the node `spec` (and its children) into `nodes`; returns its id. `named` says
    /// what `tree = NAME` nodes become; `in_blend` allows `at`.
    pub(super) fn node(
        &self,
        spec: &Spanned<NodeSpec>,
        owner: &str,
        nodes: &mut Vec<Node>,
        named: Named,
        in_blend: bool,
    ) -> Result<NodeId, CharacterError> {
        let s = spec.get_ref();
        let span = spec.span();
        self.check_node_keys(s, span.clone(), owner, in_blend)?;
        let speed = match &s.speed {
            Some(v) if v.get_ref().get() <= 0.0 => {
                return Err(self.err(
                    v.span(),
                    format!(
                        "{owner}: speed {} must be a positive number",
                        v.get_ref().get()
                    ),
                ));
            }
            Some(v) => v.get_ref().get(),
            None => 1.0,
        };
        let looping = s.looping.unwrap_or(true);
        // Keys that only combining nodes take; clip and tree nodes refuse them.
        let leaf_only = [
            ("children", s.children.is_some()),
            ("base", s.base.is_some()),
            ("mask", s.mask.is_some()),
            ("weight", s.weight.is_some()),
            ("reference", s.reference.is_some()),
        ];
        let node = if let Some(clip) = &s.clip {
            self.refuse_keys(&span, owner, &leaf_only)?;
            Node::Clip {
                clip: self.clip(clip, owner)?,
                speed,
                looping,
            }
        } else if let Some(tree) = &s.tree {
            self.refuse_keys(&span, owner, &leaf_only)?;
            return self.named_tree(tree, owner, nodes, named);
        } else if let Some(param) = &s.blend1d {
            self.blend1d(spec, param, owner, nodes, named)?
        } else if let Some(over) = &s.layer {
            self.layer(spec, over, owner, nodes, named)?
        } else if let Some(clip_name) = &s.additive {
            let leaf = (speed, looping);
            self.additive(spec, clip_name, leaf, owner, (&mut *nodes, named))?
        } else {
            unreachable!("exactly one kind was checked above")
        };
        nodes.push(node);
        Ok(nodes.len() - 1)
    }

    /// Refuses a node without exactly one kind, `at` outside a blend1d, and `speed` or `loop`
    /// on a node that plays no clip.
    fn check_node_keys(
        &self,
        s: &NodeSpec,
        span: Range<usize>,
        owner: &str,
        in_blend: bool,
    ) -> Result<(), CharacterError> {
        let kinds = [
            s.clip.is_some(),
            s.tree.is_some(),
            s.blend1d.is_some(),
            s.layer.is_some(),
            s.additive.is_some(),
        ];
        if kinds.iter().filter(|k| **k).count() != 1 {
            return Err(self.err(
                span,
                format!(
                    "{owner}: a node needs exactly one of clip, tree, blend1d, layer, additive"
                ),
            ));
        }
        if s.at.is_some() && !in_blend {
            return Err(self.err(
                span,
                format!("{owner}: 'at' places a child on a blend1d axis and is allowed only there"),
            ));
        }
        if (s.speed.is_some() || s.looping.is_some()) && s.clip.is_none() && s.additive.is_none() {
            return Err(self.err(
                span,
                format!("{owner}: 'speed' and 'loop' apply to clip and additive nodes only"),
            ));
        }
        Ok(())
    }

    /// The first of `present`'s keys (name, whether the file gives it) that the file gives, as
    /// an error: it does not apply to this kind of node.
    fn refuse_keys(
        &self,
        span: &Range<usize>,
        owner: &str,
        present: &[(&str, bool)],
    ) -> Result<(), CharacterError> {
        match present.iter().find(|(_, p)| *p) {
            Some((name, _)) => Err(self.err(
                span.clone(),
                format!("{owner}: '{name}' does not apply to this kind of node"),
            )),
            None => Ok(()),
        }
    }

    /// A `tree = NAME` node: the named tree, expanded in place (or a stand-in, see [`Named`]).
    fn named_tree(
        &self,
        tree: &Spanned<String>,
        owner: &str,
        nodes: &mut Vec<Node>,
        named: Named,
    ) -> Result<NodeId, CharacterError> {
        let name = tree.get_ref();
        let Some(def) = self.trees.get(name) else {
            let names: Vec<&str> = self.trees.keys().map(String::as_str).collect();
            return Err(self.err(
                tree.span(),
                format!(
                    "{owner} uses tree '{name}', which is not defined; trees are: {}",
                    listing(&names)
                ),
            ));
        };
        if named == Named::Skip {
            // Never built into a tree: the list is thrown away after the check.
            nodes.push(Node::Clip {
                clip: 0,
                speed: 1.0,
                looping: true,
            });
            return Ok(nodes.len() - 1);
        }
        self.node(def, &format!("tree '{name}'"), nodes, named, false)
    }

    /// A `blend1d = PARAM` node: children placed at increasing positions on a float axis.
    fn blend1d(
        &self,
        spec: &Spanned<NodeSpec>,
        param: &Spanned<String>,
        owner: &str,
        nodes: &mut Vec<Node>,
        named: Named,
    ) -> Result<Node, CharacterError> {
        let s = spec.get_ref();
        let span = spec.span();
        self.refuse_keys(
            &span,
            owner,
            &[
                ("base", s.base.is_some()),
                ("mask", s.mask.is_some()),
                ("weight", s.weight.is_some()),
                ("reference", s.reference.is_some()),
            ],
        )?;
        let p = self.param(param.get_ref(), param.span(), owner, &[ParamKind::Float])?;
        let children = s
            .children
            .as_ref()
            .filter(|c| !c.is_empty())
            .ok_or_else(|| self.err(span.clone(), format!("{owner}: blend1d needs 'children'")))?;
        let mut positions = Vec::new();
        let mut ids = Vec::new();
        for child in children {
            let at = child.get_ref().at.as_ref().ok_or_else(|| {
                self.err(
                    child.span(),
                    format!(
                        "{owner}: each blend1d child needs 'at', its position on the '{}' axis",
                        param.get_ref()
                    ),
                )
            })?;
            let at_value = at.get_ref().get();
            if let Some(prev) = positions.last()
                && at_value <= *prev
            {
                return Err(self.err(
                    at.span(),
                    format!("{owner}: blend1d positions must increase; {at_value} follows {prev}"),
                ));
            }
            positions.push(at_value);
            ids.push(self.node(child, owner, nodes, named, true)?);
        }
        Ok(Node::Blend1D {
            param: p,
            positions,
            children: ids,
        })
    }

    /// A `layer = NODE` node: `over` on `base` through a named joint mask.
    fn layer(
        &self,
        spec: &Spanned<NodeSpec>,
        over: &Spanned<NodeSpec>,
        owner: &str,
        nodes: &mut Vec<Node>,
        named: Named,
    ) -> Result<Node, CharacterError> {
        let s = spec.get_ref();
        let span = spec.span();
        self.refuse_keys(
            &span,
            owner,
            &[
                ("children", s.children.is_some()),
                ("reference", s.reference.is_some()),
            ],
        )?;
        let base = s.base.as_ref().ok_or_else(|| {
            self.err(
                span.clone(),
                format!("{owner}: layer needs 'base', the pose it is layered onto"),
            )
        })?;
        let mask_name = s.mask.as_ref().ok_or_else(|| {
            self.err(
                span.clone(),
                format!("{owner}: layer needs 'mask', the joints it overrides"),
            )
        })?;
        let mask = self
            .masks
            .get(mask_name.get_ref())
            .cloned()
            .ok_or_else(|| {
                let names: Vec<&str> = self.masks.keys().map(String::as_str).collect();
                self.err(
                    mask_name.span(),
                    format!(
                        "{owner} uses mask '{}', which is not defined; masks are: {}",
                        mask_name.get_ref(),
                        listing(&names)
                    ),
                )
            })?;
        let weight = self.weight(&s.weight, owner)?;
        let base = self.node(base, owner, nodes, named, false)?;
        let over = self.node(over, owner, nodes, named, false)?;
        Ok(Node::Layer {
            base,
            over,
            mask,
            weight,
        })
    }

    /// An `additive = CLIP` node: the clip's difference from its reference pose added onto
    /// `base`. `(speed, looping)` are the node's clip playback settings.
    fn additive(
        &self,
        spec: &Spanned<NodeSpec>,
        clip_name: &Spanned<String>,
        (speed, looping): (f32, bool),
        owner: &str,
        (nodes, named): (&mut Vec<Node>, Named),
    ) -> Result<Node, CharacterError> {
        let s = spec.get_ref();
        let span = spec.span();
        self.refuse_keys(
            &span,
            owner,
            &[
                ("children", s.children.is_some()),
                ("mask", s.mask.is_some()),
            ],
        )?;
        let clip = self.clip(clip_name, owner)?;
        let base = s.base.as_ref().ok_or_else(|| {
            self.err(
                span.clone(),
                format!("{owner}: additive needs 'base', the pose it adds onto"),
            )
        })?;
        let reference = self.reference(s.reference.as_ref(), clip, owner)?;
        let weight = self.weight(&s.weight, owner)?;
        let base = self.node(base, owner, nodes, named, false)?;
        Ok(Node::Additive {
            base,
            clip,
            speed,
            looping,
            reference,
            weight,
        })
    }

    /// The pose an additive clip's difference is taken from: the clip's first frame (the
    /// default), the rest pose, or another clip at a time.
    fn reference(
        &self,
        spec: Option<&Spanned<ReferenceSpec>>,
        clip: usize,
        owner: &str,
    ) -> Result<Vec<Transform>, CharacterError> {
        let skeleton = &self.model.skeleton;
        let mut pose = vec![Transform::IDENTITY; skeleton.len()];
        match spec.map(|s| (s.get_ref(), s.span())) {
            None => sample(&self.model.clips[clip], skeleton, 0.0, &mut pose),
            Some((ReferenceSpec::Named(n), span)) => match n.as_str() {
                "first_frame" => sample(&self.model.clips[clip], skeleton, 0.0, &mut pose),
                "rest" => pose.copy_from_slice(skeleton.rest()),
                other => return Err(self.err(span, format!("{owner}: reference '{other}' is not 'rest', 'first_frame' or {{ clip = NAME, time = SECONDS }}"))),
            },
            Some((ReferenceSpec::ClipAt(at), span)) => {
                let c = self.clip(&Spanned::new(span.clone(), at.clip.clone()), owner)?;
                let clip = &self.model.clips[c];
                let time = to_f32(at.time).map_err(|e| self.err(span.clone(), format!("{owner}: reference time: {e}")))?;
                if !(0.0..=clip.duration()).contains(&time) {
                    return Err(self.err(span, format!("{owner}: reference time {time} s is outside clip '{}' (0 to {} s)", clip.name(), clip.duration())));
                }
                sample(clip, skeleton, clip.local_time(time, Wrap::Clamp), &mut pose);
            }
        }
        Ok(pose)
    }
}
