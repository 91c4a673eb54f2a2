//! Character files: a TOML description of how a glTF model animates — clip options (root
//! motion, events), joint masks, parameters, blend trees, the state machine and IK chains —
//! resolved against the model into the animation core's runtime types.
//!
//! Errors name the file, the line and the element, for instance
//! `mannequin.toml:42: state 'jog' uses clip 'Jogg', which the model does not have; clips are:
//! idle, walk, run, wave`. The format is described in docs/CHARACTER.md.

mod error;
mod file;
mod poser;

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3};
use toml::Spanned;

pub use error::CharacterError;
pub use poser::Poser;

use crate::anim::events::{Event, EventTrack};
use crate::anim::graph::{BlendTree, Node, NodeId, Weight};
use crate::anim::ik::{self, IterLimits};
use crate::anim::root_motion::{self, MotionTrack};
use crate::anim::state_machine::{Condition, ParamDef, ParamKind, State, StateMachine, Transition};
use crate::anim::{Playback, Transform, sample};
use crate::import::{ImportOptions, MergeAnimations, Model};
use file::{CharacterFile, NodeSpec, ReferenceSpec, TargetSpec, WeightSpec};

/// Default crossfade length of a transition without `duration`, seconds.
pub const DEFAULT_CROSSFADE: f32 = 0.25;

/// What an IK chain solves.
#[derive(Clone, Debug)]
pub enum IkKind {
    /// Analytic two-bone IK; the middle joint bends towards its FK position plus `pole`
    /// (a model-space direction).
    TwoBone {
        root: usize,
        mid: usize,
        end: usize,
        pole: Vec3,
    },
    /// Cyclic coordinate descent over a parent-to-child chain.
    Ccd {
        chain: Vec<usize>,
        limits: IterLimits,
    },
    /// FABRIK over a parent-to-child chain.
    Fabrik {
        chain: Vec<usize>,
        limits: IterLimits,
    },
    /// Turns `joint` so its `forward` axis points at the target, keeping `up` near +Y.
    Aim {
        joint: usize,
        forward: Vec3,
        up: Vec3,
    },
}

/// Where an IK chain's effector goes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum IkTarget {
    /// A fixed model-space point, metres.
    Point(Vec3),
    /// Keep the effector at or above `floor` (metres): feet never sink through the ground.
    Ground { floor: f32 },
}

/// One IK post-process step, applied after forward kinematics in file order.
#[derive(Clone, Debug)]
pub struct IkChain {
    /// Name from the file.
    pub name: String,
    /// Solver and joints.
    pub kind: IkKind,
    /// Target.
    pub target: IkTarget,
    /// Blend weight from the FK pose (constant or a float parameter).
    pub weight: Weight,
}

/// A loaded character: the model (with root-motion clips made in place), per-clip events and
/// motion tracks, the state machine and the IK chains.
#[derive(Clone, Debug)]
pub struct Character {
    /// The character file.
    pub path: PathBuf,
    /// The imported model; clips with root motion are replaced by their in-place versions.
    pub model: Model,
    /// Event markers per clip (empty tracks for clips without).
    pub events: Vec<EventTrack>,
    /// Root motion per clip, for clips that extract it.
    pub motion: Vec<Option<MotionTrack>>,
    /// The state machine.
    pub machine: StateMachine,
    /// IK chains, applied in order after FK.
    pub ik: Vec<IkChain>,
}

/// Resolution context: the file's text (for line numbers), the model and what is built so far.
struct Ctx<'a> {
    file: String,
    text: &'a str,
    model: &'a Model,
    params: Vec<ParamDef>,
    masks: BTreeMap<String, Vec<f32>>,
    trees: &'a BTreeMap<String, Spanned<NodeSpec>>,
}

impl Ctx<'_> {
    fn line(&self, span: Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    fn err(&self, span: Range<usize>, message: impl Into<String>) -> CharacterError {
        CharacterError::Invalid {
            file: self.file.clone(),
            line: self.line(span),
            message: message.into(),
        }
    }

    fn clip(&self, name: &Spanned<String>, owner: &str) -> Result<usize, CharacterError> {
        self.model
            .clips
            .iter()
            .position(|c| c.name() == name.get_ref())
            .ok_or_else(|| {
                let names: Vec<&str> = self.model.clips.iter().map(|c| c.name()).collect();
                self.err(
                    name.span(),
                    format!(
                        "{owner} uses clip '{}', which the model does not have; clips are: {}",
                        name.get_ref(),
                        listing(&names)
                    ),
                )
            })
    }

    fn joint(&self, name: &str, span: Range<usize>, owner: &str) -> Result<usize, CharacterError> {
        self.model.skeleton.find(name).ok_or_else(|| {
            self.err(span, format!("{owner} names joint '{name}', which the skeleton does not have; joints are: {}", self.model.skeleton.names().join(", ")))
        })
    }

    fn param(
        &self,
        name: &str,
        span: Range<usize>,
        owner: &str,
        kinds: &[ParamKind],
    ) -> Result<usize, CharacterError> {
        let Some(i) = self.params.iter().position(|p| p.name == name) else {
            let names: Vec<&str> = self.params.iter().map(|p| p.name.as_str()).collect();
            return Err(self.err(
                span,
                format!(
                    "{owner} uses parameter '{name}', which is not declared; parameters are: {}",
                    listing(&names)
                ),
            ));
        };
        if !kinds.contains(&self.params[i].kind) {
            return Err(self.err(
                span,
                format!(
                    "{owner} uses parameter '{name}' as {}, but it is a {}",
                    kind_names(kinds),
                    kind_name(self.params[i].kind)
                ),
            ));
        }
        Ok(i)
    }

    fn weight(
        &self,
        w: &Option<Spanned<WeightSpec>>,
        owner: &str,
    ) -> Result<Weight, CharacterError> {
        match w {
            None => Ok(Weight::Const(1.0)),
            Some(s) => match s.get_ref() {
                WeightSpec::Value(v) if (0.0..=1.0).contains(v) => Ok(Weight::Const(*v)),
                WeightSpec::Value(v) => {
                    Err(self.err(s.span(), format!("{owner}: weight {v} is outside [0, 1]")))
                }
                WeightSpec::Param(p) => Ok(Weight::Param(self.param(
                    p,
                    s.span(),
                    owner,
                    &[ParamKind::Float],
                )?)),
            },
        }
    }

    /// Builds the node `spec` (and its children) into `nodes`; returns its id.
    fn node(
        &self,
        spec: &Spanned<NodeSpec>,
        owner: &str,
        nodes: &mut Vec<Node>,
        expanding: &mut Vec<String>,
        in_blend: bool,
    ) -> Result<NodeId, CharacterError> {
        let s = spec.get_ref();
        let span = spec.span();
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
        let speed = match &s.speed {
            Some(v) if !(v.get_ref().is_finite() && *v.get_ref() > 0.0) => {
                return Err(self.err(
                    v.span(),
                    format!("{owner}: speed {} must be a positive number", v.get_ref()),
                ));
            }
            Some(v) => *v.get_ref(),
            None => 1.0,
        };
        let looping = s.looping.unwrap_or(true);
        let for_fields = |present: &[(&str, bool)]| -> Result<(), CharacterError> {
            match present.iter().find(|(_, p)| *p) {
                Some((name, _)) => Err(self.err(
                    span.clone(),
                    format!("{owner}: '{name}' does not apply to this kind of node"),
                )),
                None => Ok(()),
            }
        };
        // Keys that only combining nodes take; clip and tree nodes refuse them.
        let leaf_only = [
            ("children", s.children.is_some()),
            ("base", s.base.is_some()),
            ("mask", s.mask.is_some()),
            ("weight", s.weight.is_some()),
            ("reference", s.reference.is_some()),
        ];
        let node = if let Some(clip) = &s.clip {
            for_fields(&leaf_only)?;
            Node::Clip {
                clip: self.clip(clip, owner)?,
                speed,
                looping,
            }
        } else if let Some(tree) = &s.tree {
            for_fields(&leaf_only)?;
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
            if expanding.contains(name) {
                let mut cycle = expanding.clone();
                cycle.push(name.clone());
                return Err(self.err(
                    tree.span(),
                    format!("tree '{name}' contains itself: {}", cycle.join(" -> ")),
                ));
            }
            expanding.push(name.clone());
            let id = self.node(def, &format!("tree '{name}'"), nodes, expanding, false)?;
            expanding.pop();
            return Ok(id);
        } else if let Some(param) = &s.blend1d {
            for_fields(&[
                ("base", s.base.is_some()),
                ("mask", s.mask.is_some()),
                ("weight", s.weight.is_some()),
                ("reference", s.reference.is_some()),
            ])?;
            let p = self.param(param.get_ref(), param.span(), owner, &[ParamKind::Float])?;
            let children = s
                .children
                .as_ref()
                .filter(|c| !c.is_empty())
                .ok_or_else(|| {
                    self.err(span.clone(), format!("{owner}: blend1d needs 'children'"))
                })?;
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
                if let Some(prev) = positions.last()
                    && *at.get_ref() <= *prev
                {
                    return Err(self.err(
                        at.span(),
                        format!(
                            "{owner}: blend1d positions must increase; {} follows {prev}",
                            at.get_ref()
                        ),
                    ));
                }
                if !at.get_ref().is_finite() {
                    return Err(self.err(
                        at.span(),
                        format!("{owner}: position must be a finite number"),
                    ));
                }
                positions.push(*at.get_ref());
                ids.push(self.node(child, owner, nodes, expanding, true)?);
            }
            Node::Blend1D {
                param: p,
                positions,
                children: ids,
            }
        } else if let Some(over) = &s.layer {
            for_fields(&[
                ("children", s.children.is_some()),
                ("reference", s.reference.is_some()),
            ])?;
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
            let base = self.node(base, owner, nodes, expanding, false)?;
            let over = self.node(over, owner, nodes, expanding, false)?;
            Node::Layer {
                base,
                over,
                mask,
                weight,
            }
        } else if let Some(clip_name) = &s.additive {
            for_fields(&[
                ("children", s.children.is_some()),
                ("mask", s.mask.is_some()),
            ])?;
            let clip = self.clip(clip_name, owner)?;
            let base = s.base.as_ref().ok_or_else(|| {
                self.err(
                    span.clone(),
                    format!("{owner}: additive needs 'base', the pose it adds onto"),
                )
            })?;
            let reference = self.reference(s.reference.as_ref(), clip, owner)?;
            let weight = self.weight(&s.weight, owner)?;
            let base = self.node(base, owner, nodes, expanding, false)?;
            Node::Additive {
                base,
                clip,
                speed,
                looping,
                reference,
                weight,
            }
        } else {
            unreachable!("exactly one kind was checked above")
        };
        nodes.push(node);
        Ok(nodes.len() - 1)
    }

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
                let c = self.clip(&at.clip, owner)?;
                let clip = &self.model.clips[c];
                if !(at.time.is_finite() && (0.0..=clip.duration()).contains(&at.time)) {
                    return Err(self.err(span, format!("{owner}: reference time {} s is outside clip '{}' (0 to {} s)", at.time, clip.name(), clip.duration())));
                }
                sample(clip, skeleton, clip.local_time(at.time, Playback::Clamp), &mut pose);
            }
        }
        Ok(pose)
    }
}

fn kind_name(k: ParamKind) -> &'static str {
    match k {
        ParamKind::Float => "float",
        ParamKind::Bool => "bool",
        ParamKind::Trigger => "trigger",
    }
}

fn kind_names(kinds: &[ParamKind]) -> String {
    kinds
        .iter()
        .map(|k| kind_name(*k))
        .collect::<Vec<_>>()
        .join(" or ")
}

/// Names for a message: `a, b, c`, or `(none)`.
fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(", ")
    }
}

/// 1-based line of byte `offset` in `text`.
fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}

impl Character {
    /// Loads a character file and the model it names (relative paths resolve against the
    /// file's folder).
    ///
    /// # Errors
    /// [`CharacterError`] with the file, line and element at fault.
    pub fn load(path: &Path) -> Result<Self, CharacterError> {
        let file = path
            .file_name()
            .map(|f| f.to_string_lossy().into_owned())
            .unwrap_or_else(|| path.display().to_string());
        let text = std::fs::read_to_string(path).map_err(|source| CharacterError::Io {
            file: file.clone(),
            source,
        })?;
        Self::parse(&text, &file, path.parent().unwrap_or(Path::new(".")), path)
    }

    /// Parses character file `text` named `file` (for messages), resolving the model path
    /// against `dir`.
    ///
    /// # Errors
    /// As [`Character::load`].
    pub fn parse(text: &str, file: &str, dir: &Path, path: &Path) -> Result<Self, CharacterError> {
        let spec: CharacterFile = toml::from_str(text).map_err(|e| CharacterError::Syntax {
            file: file.to_string(),
            line: e.span().map_or(1, |s| line_of(text, s.start)),
            message: e.message().trim_end().to_string(),
        })?;
        let merge = match spec
            .merge_animations
            .as_ref()
            .map(|m| (m.get_ref().as_str(), m.span()))
        {
            None | Some(("auto", _)) => MergeAnimations::Auto,
            Some(("always", _)) => MergeAnimations::Always,
            Some(("never", _)) => MergeAnimations::Never,
            Some((other, span)) => {
                return Err(CharacterError::Invalid {
                    file: file.to_string(),
                    line: line_of(text, span.start),
                    message: format!(
                        "merge_animations is '{other}'; expected 'auto', 'always' or 'never'"
                    ),
                });
            }
        };
        let model_path = dir.join(spec.model.get_ref());
        let mut model = crate::import::load(
            &model_path,
            &ImportOptions {
                merge_animations: merge,
                ..Default::default()
            },
        )
        .map_err(|source| CharacterError::Model {
            file: file.to_string(),
            line: line_of(text, spec.model.span().start),
            source: Box::new(source),
        })?;

        // Clip options: events, then root motion (which replaces the clip).
        let mut events = vec![EventTrack::default(); model.clips.len()];
        let mut motion = vec![None; model.clips.len()];
        {
            let ctx = Ctx {
                file: file.to_string(),
                text,
                model: &model,
                params: Vec::new(),
                masks: BTreeMap::new(),
                trees: &spec.trees,
            };
            let root = match &spec.root_joint {
                Some(r) => ctx.joint(r.get_ref(), r.span(), "root_joint")?,
                None => 0,
            };
            let mut replaced = Vec::new();
            for (name, clip_spec) in &spec.clips {
                let owner = format!("clips.{name}");
                let c = ctx.clip(&Spanned::new(clip_spec.span(), name.clone()), &owner)?;
                let duration = model.clips[c].duration();
                let mut list = Vec::new();
                for e in &clip_spec.get_ref().events {
                    let t = e.get_ref().time;
                    if !(0.0..=duration).contains(&t) {
                        return Err(ctx.err(e.span(), format!("{owner}: event '{}' at {t} s is outside the clip (0 to {duration} s)", e.get_ref().name)));
                    }
                    list.push(Event {
                        name: e.get_ref().name.clone(),
                        time: t,
                    });
                }
                events[c] = EventTrack::new(list);
                if clip_spec.get_ref().root_motion {
                    let (in_place, track) =
                        root_motion::extract(&model.clips[c], &model.skeleton, root).map_err(
                            |e| ctx.err(clip_spec.span(), format!("{owner}: root motion: {e}")),
                        )?;
                    replaced.push((c, in_place, track));
                }
            }
            for (c, in_place, track) in replaced {
                model.clips[c] = in_place;
                motion[c] = Some(track);
            }
        }

        let mut ctx = Ctx {
            file: file.to_string(),
            text,
            model: &model,
            params: Vec::new(),
            masks: BTreeMap::new(),
            trees: &spec.trees,
        };
        for (name, p) in &spec.parameters {
            let kind =
                match p.get_ref().kind.get_ref().as_str() {
                    "float" => ParamKind::Float,
                    "bool" => ParamKind::Bool,
                    "trigger" => ParamKind::Trigger,
                    other => return Err(ctx.err(
                        p.get_ref().kind.span(),
                        format!(
                            "parameter '{name}': type '{other}' is not 'float', 'bool' or 'trigger'"
                        ),
                    )),
                };
            let default = match (&p.get_ref().default, kind) {
                (None, _) => 0.0,
                (Some(v), ParamKind::Float) => match v.get_ref() {
                    toml::Value::Float(f) if f.is_finite() => *f as f32,
                    toml::Value::Integer(i) => *i as f32,
                    _ => {
                        return Err(ctx.err(
                            v.span(),
                            format!("parameter '{name}': default must be a finite number"),
                        ));
                    }
                },
                (Some(v), _) => match v.get_ref() {
                    toml::Value::Boolean(b) => f32::from(u8::from(*b)),
                    _ => {
                        return Err(ctx.err(
                            v.span(),
                            format!("parameter '{name}': default must be true or false"),
                        ));
                    }
                },
            };
            ctx.params.push(ParamDef {
                name: name.clone(),
                kind,
                default,
            });
        }
        for (name, m) in &spec.masks {
            let owner = format!("mask '{name}'");
            let mut weights = vec![0.0f32; model.skeleton.len()];
            let m_spec = m.get_ref();
            let subtree_weight = match &m_spec.weight {
                Some(w) if !(0.0..=1.0).contains(w.get_ref()) => {
                    return Err(ctx.err(
                        w.span(),
                        format!("{owner}: weight {} is outside [0, 1]", w.get_ref()),
                    ));
                }
                Some(w) => *w.get_ref(),
                None => 1.0,
            };
            if let Some(root) = &m_spec.subtree {
                let j = ctx.joint(root.get_ref(), root.span(), &owner)?;
                weights = model.skeleton.subtree_mask(j, subtree_weight);
            }
            for (joint, w) in &m_spec.joints {
                let j = ctx.joint(joint, w.span(), &owner)?;
                if !(0.0..=1.0).contains(w.get_ref()) {
                    return Err(ctx.err(
                        w.span(),
                        format!(
                            "{owner}: weight {} of joint '{joint}' is outside [0, 1]",
                            w.get_ref()
                        ),
                    ));
                }
                weights[j] = *w.get_ref();
            }
            if m_spec.subtree.is_none() && m_spec.joints.is_empty() {
                return Err(ctx.err(
                    m.span(),
                    format!("{owner} selects no joints: give 'subtree' or 'joints'"),
                ));
            }
            ctx.masks.insert(name.clone(), weights);
        }

        // Every named tree must resolve, used or not, so that a typo never waits for the day
        // a state starts using it.
        for (name, tree) in &spec.trees {
            let mut expanding = vec![name.clone()];
            ctx.node(
                tree,
                &format!("tree '{name}'"),
                &mut Vec::new(),
                &mut expanding,
                false,
            )?;
        }
        if spec.states.is_empty() {
            return Err(CharacterError::Invalid {
                file: file.to_string(),
                line: 1,
                message: "no states: define at least one [states.NAME]".into(),
            });
        }
        let mut states = Vec::new();
        for (name, node) in &spec.states {
            let owner = format!("state '{name}'");
            let mut nodes = Vec::new();
            let root = ctx.node(node, &owner, &mut nodes, &mut Vec::new(), false)?;
            let tree = BlendTree::new(nodes, root, &model.skeleton, &model.clips, ctx.params.len())
                .map_err(|e| ctx.err(node.span(), format!("{owner}: {e}")))?;
            states.push(State {
                name: name.clone(),
                tree,
            });
        }
        let state_index = |name: &Spanned<String>, what: &str| -> Result<usize, CharacterError> {
            spec.states
                .keys()
                .position(|k| k == name.get_ref())
                .ok_or_else(|| {
                    ctx.err(
                        name.span(),
                        format!(
                            "{what} names state '{}', which is not defined; states are: {}",
                            name.get_ref(),
                            spec.states.keys().cloned().collect::<Vec<_>>().join(", ")
                        ),
                    )
                })
        };
        let initial = match &spec.initial {
            Some(name) => state_index(name, "initial")?,
            None if states.len() == 1 => 0,
            None => {
                return Err(CharacterError::Invalid {
                    file: file.to_string(),
                    line: 1,
                    message: format!("{} states and no 'initial' state", states.len()),
                });
            }
        };
        let mut transitions = Vec::new();
        for (i, t) in spec.transitions.iter().enumerate() {
            let ts = t.get_ref();
            let what = format!(
                "transition {} ({} -> {})",
                i + 1,
                ts.from.get_ref(),
                ts.to.get_ref()
            );
            let from = if ts.from.get_ref() == "*" {
                None
            } else {
                Some(state_index(&ts.from, &what)?)
            };
            let to = state_index(&ts.to, &what)?;
            let mut conditions = Vec::new();
            for c in &ts.when {
                conditions.push(parse_condition(&ctx, c, &what)?);
            }
            let duration = match &ts.duration {
                Some(d) if !(d.get_ref().is_finite() && *d.get_ref() >= 0.0) => {
                    return Err(ctx.err(
                        d.span(),
                        format!("{what}: duration {} must be >= 0 seconds", d.get_ref()),
                    ));
                }
                Some(d) => *d.get_ref(),
                None => DEFAULT_CROSSFADE,
            };
            let exit_time = match &ts.exit_time {
                Some(e) if !(e.get_ref().is_finite() && *e.get_ref() >= 0.0) => {
                    return Err(ctx.err(
                        e.span(),
                        format!(
                            "{what}: exit_time {} must be >= 0 (in cycles of the source state)",
                            e.get_ref()
                        ),
                    ));
                }
                Some(e) => Some(*e.get_ref()),
                None => None,
            };
            if conditions.is_empty() && exit_time.is_none() {
                return Err(ctx.err(t.span(), format!("{what} has neither 'when' conditions nor an 'exit_time', so it would fire at once")));
            }
            transitions.push(Transition {
                from,
                to,
                conditions,
                exit_time,
                duration,
                sync: ts.sync,
            });
        }
        let ik = spec
            .ik
            .iter()
            .map(|c| build_ik(&ctx, c))
            .collect::<Result<Vec<_>, _>>()?;
        let machine =
            StateMachine::new(ctx.params.clone(), states, transitions, initial).map_err(|e| {
                CharacterError::Invalid {
                    file: file.to_string(),
                    line: 1,
                    message: e.to_string(),
                }
            })?;
        Ok(Self {
            path: path.to_path_buf(),
            model,
            events,
            motion,
            machine,
            ik,
        })
    }

    /// Applies the IK chains, in order, to a pose after forward kinematics. `local` and `model`
    /// stay consistent. `scratch` holds FABRIK positions (at least the longest chain; see
    /// [`Character::ik_scratch_len`]). Allocates nothing.
    pub fn apply_ik(
        &self,
        params: &[f32],
        local: &mut [Transform],
        model: &mut [Mat4],
        scratch: &mut [Vec3],
    ) {
        for chain in &self.ik {
            let weight = match chain.weight {
                Weight::Const(w) => w,
                Weight::Param(p) => params.get(p).copied().unwrap_or(0.0).clamp(0.0, 1.0),
            };
            if weight <= 0.0 {
                continue;
            }
            let effector = match &chain.kind {
                IkKind::TwoBone { end, .. } => *end,
                IkKind::Ccd { chain, .. } | IkKind::Fabrik { chain, .. } => {
                    *chain.last().unwrap_or(&0)
                }
                IkKind::Aim { joint, .. } => *joint,
            };
            let target = match chain.target {
                IkTarget::Point(p) => p,
                IkTarget::Ground { floor } => {
                    let at = model[effector].w_axis.truncate();
                    if at.y >= floor {
                        continue;
                    }
                    Vec3::new(at.x, floor, at.z)
                }
            };
            let skeleton = &self.model.skeleton;
            // Chains were validated at load, so the solvers cannot fail on them.
            match &chain.kind {
                IkKind::TwoBone {
                    root,
                    mid,
                    end,
                    pole,
                } => {
                    let pole_point = model[*mid].w_axis.truncate() + *pole;
                    ik::two_bone(
                        skeleton, local, model, *root, *mid, *end, target, pole_point, weight,
                    );
                }
                IkKind::Ccd { chain, limits } => {
                    let _ = ik::ccd(skeleton, local, model, chain, target, *limits, weight);
                }
                IkKind::Fabrik { chain, limits } => {
                    let _ = ik::fabrik(
                        skeleton, local, model, chain, target, *limits, scratch, weight,
                    );
                }
                IkKind::Aim { joint, forward, up } => {
                    ik::aim(
                        skeleton, local, model, *joint, *forward, *up, target, weight,
                    );
                }
            }
        }
    }

    /// Positions [`Character::apply_ik`]'s scratch must hold.
    pub fn ik_scratch_len(&self) -> usize {
        self.ik
            .iter()
            .map(|c| match &c.kind {
                IkKind::Fabrik { chain, .. } => chain.len(),
                _ => 0,
            })
            .max()
            .unwrap_or(0)
    }
}

/// Parses `speed > 1.5`, `speed < 0.2`, `wave` (bool or trigger set) or `!wave` (bool clear).
fn parse_condition(
    ctx: &Ctx,
    c: &Spanned<String>,
    what: &str,
) -> Result<Condition, CharacterError> {
    let text = c.get_ref().trim();
    let span = c.span();
    for (op, make) in [
        (">", Condition::Greater as fn(usize, f32) -> Condition),
        ("<", Condition::Less),
    ] {
        if let Some((name, value)) = text.split_once(op) {
            let name = name.trim();
            let value: f32 = value.trim().parse().map_err(|_| {
                ctx.err(
                    span.clone(),
                    format!(
                        "{what}: condition '{text}': '{}' is not a number",
                        value.trim()
                    ),
                )
            })?;
            if !value.is_finite() {
                return Err(ctx.err(
                    span,
                    format!("{what}: condition '{text}': the value must be finite"),
                ));
            }
            return Ok(make(
                ctx.param(name, span, what, &[ParamKind::Float])?,
                value,
            ));
        }
    }
    if let Some(name) = text.strip_prefix('!') {
        return Ok(Condition::IsClear(ctx.param(
            name.trim(),
            span,
            what,
            &[ParamKind::Bool],
        )?));
    }
    if text.is_empty() || text.contains(char::is_whitespace) {
        return Err(ctx.err(span, format!("{what}: condition '{text}' is not 'PARAM > NUMBER', 'PARAM < NUMBER', 'FLAG' or '!FLAG'")));
    }
    Ok(Condition::IsSet(ctx.param(
        text,
        span,
        what,
        &[ParamKind::Bool, ParamKind::Trigger],
    )?))
}

fn build_ik(ctx: &Ctx, c: &Spanned<file::IkSpec>) -> Result<IkChain, CharacterError> {
    let s = c.get_ref();
    let owner = format!("ik '{}'", s.name.get_ref());
    let joints = s
        .joints
        .get_ref()
        .iter()
        .map(|j| ctx.joint(j, s.joints.span(), &owner))
        .collect::<Result<Vec<_>, _>>()?;
    let skeleton = &ctx.model.skeleton;
    let is_ancestor = |a: usize, mut b: usize| {
        while let Some(p) = skeleton.parent(b) {
            if p == a {
                return true;
            }
            b = p;
        }
        false
    };
    let limits = IterLimits {
        max_iterations: match &s.iterations {
            Some(i) if *i.get_ref() == 0 || *i.get_ref() > 1000 => {
                return Err(ctx.err(
                    i.span(),
                    format!("{owner}: iterations {} must be 1 to 1000", i.get_ref()),
                ));
            }
            Some(i) => *i.get_ref(),
            None => IterLimits::default().max_iterations,
        },
        tolerance: match &s.tolerance {
            Some(t) if !(t.get_ref().is_finite() && *t.get_ref() > 0.0) => {
                return Err(ctx.err(
                    t.span(),
                    format!(
                        "{owner}: tolerance {} must be a positive distance in metres",
                        t.get_ref()
                    ),
                ));
            }
            Some(t) => *t.get_ref(),
            None => IterLimits::default().tolerance,
        },
    };
    let chain_linked = || -> Result<(), CharacterError> {
        if joints.len() < 2 {
            return Err(ctx.err(
                s.joints.span(),
                format!("{owner}: a chain needs at least 2 joints"),
            ));
        }
        for w in joints.windows(2) {
            if skeleton.parent(w[1]) != Some(w[0]) {
                return Err(ctx.err(
                    s.joints.span(),
                    format!(
                        "{owner}: '{}' is not the parent of '{}'",
                        skeleton.names()[w[0]],
                        skeleton.names()[w[1]]
                    ),
                ));
            }
        }
        Ok(())
    };
    // Axes and directions must be finite and not zero, or the solvers would quietly do nothing.
    let vec3 = |key: &str, v: Option<[f32; 3]>, default: Vec3| -> Result<Vec3, CharacterError> {
        match v.map(Vec3::from) {
            None => Ok(default),
            Some(x) if x.is_finite() && x.length() > 1e-6 => Ok(x),
            Some(x) => Err(ctx.err(
                c.span(),
                format!("{owner}: {key} {x} must be a finite, non-zero vector"),
            )),
        }
    };
    let kind = match s.kind.get_ref().as_str() {
        "two_bone" => {
            let [root, mid, end] = joints[..] else {
                return Err(ctx.err(
                    s.joints.span(),
                    format!("{owner}: two_bone needs exactly 3 joints (root, middle, end)"),
                ));
            };
            if !is_ancestor(root, mid) || !is_ancestor(mid, end) {
                return Err(ctx.err(
                    s.joints.span(),
                    format!("{owner}: each joint must be an ancestor of the next"),
                ));
            }
            IkKind::TwoBone {
                root,
                mid,
                end,
                pole: vec3("pole", s.pole, Vec3::Z)?,
            }
        }
        "ccd" => {
            chain_linked()?;
            if joints.len() > ik::MAX_CCD_CHAIN {
                return Err(ctx.err(
                    s.joints.span(),
                    format!(
                        "{owner}: CCD chains hold at most {} joints",
                        ik::MAX_CCD_CHAIN
                    ),
                ));
            }
            IkKind::Ccd {
                chain: joints.clone(),
                limits,
            }
        }
        "fabrik" => {
            chain_linked()?;
            IkKind::Fabrik {
                chain: joints.clone(),
                limits,
            }
        }
        "aim" => {
            let [joint] = joints[..] else {
                return Err(ctx.err(
                    s.joints.span(),
                    format!("{owner}: aim turns exactly 1 joint"),
                ));
            };
            IkKind::Aim {
                joint,
                forward: vec3("forward", s.forward, Vec3::Z)?,
                up: vec3("up", s.up, Vec3::Y)?,
            }
        }
        other => {
            return Err(ctx.err(
                s.kind.span(),
                format!("{owner}: type '{other}' is not 'two_bone', 'ccd', 'fabrik' or 'aim'"),
            ));
        }
    };
    let target = match s.target.get_ref() {
        TargetSpec::Point(p) if p.iter().all(|x| x.is_finite()) => IkTarget::Point(Vec3::from(*p)),
        TargetSpec::Named(n) if n == "ground" && s.floor.is_none_or(f32::is_finite) => {
            IkTarget::Ground {
                floor: s.floor.unwrap_or(0.0),
            }
        }
        _ => {
            return Err(ctx.err(
                s.target.span(),
                format!("{owner}: target must be \"ground\" or a model-space point [x, y, z]"),
            ));
        }
    };
    Ok(IkChain {
        name: s.name.get_ref().clone(),
        kind,
        target,
        weight: ctx.weight(&s.weight, &owner)?,
    })
}
