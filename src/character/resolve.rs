//! The TOML of a character file resolved into the animation core's types: the model and its
//! clip options (events, root motion), parameters, masks, the states' blend trees, transitions
//! and IK chains. Each step reports errors with the file, the line and the element at fault.
//! Blend-tree nodes are resolved in `tree.rs`, IK chains in `ik.rs`.

use std::collections::BTreeMap;
use std::path::Path;

use toml::Spanned;

use super::context::{Ctx, line_of, listing};
use super::error::CharacterError;
use super::file::{CharacterFile, TransitionSpec};
use super::number::{parse_f32, to_f32};
use super::toml_error::located;
use super::tree::Named;
use super::{Character, DEFAULT_CROSSFADE, ik, nesting};
use crate::anim::events::{Event, EventTrack};
use crate::anim::graph::BlendTree;
use crate::anim::root_motion::{self, MotionTrack};
use crate::anim::state_machine::{Condition, ParamDef, ParamKind, State, StateMachine, Transition};
use crate::import::{ImportOptions, MergeAnimations, Model};

/// Character file `text` named `file` (for messages), with the model path resolved against
/// `dir`, into a [`Character`] at `path`.
pub(super) fn resolve(
    text: &str,
    file: &str,
    dir: &Path,
    path: &Path,
) -> Result<Character, CharacterError> {
    let spec: CharacterFile = toml::from_str(text).map_err(|e| {
        let (line, message) = located(text, &e);
        CharacterError::Syntax {
            file: file.to_string(),
            line,
            message,
        }
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
    .map_err(|error| CharacterError::Model {
        file: file.to_string(),
        line: line_of(text, spec.model.span().start),
        error: Box::new(error),
    })?;
    let (events, motion) = clip_options(&spec, file, text, &mut model)?;

    let mut ctx = Ctx::new(file, text, &model, &spec.trees);
    let params = parameters(&ctx, &spec)?;
    ctx.set_params(params);
    // Before anything is built: what the trees would cost, and that they nest finitely.
    nesting::check(&ctx, &spec)?;
    ctx.masks = masks(&ctx, &spec)?;

    // Every named tree must resolve, used or not, so that a typo never waits for the day
    // a state starts using it. Each is checked once, on its own (the trees it names are
    // checked on their own too), so that checking them is linear in the file.
    for (name, tree) in &spec.trees {
        ctx.node(
            tree,
            &format!("tree '{name}'"),
            &mut Vec::new(),
            Named::Skip,
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
    let states = states(&ctx, &spec)?;
    let state_names: BTreeMap<&str, usize> = spec
        .states
        .keys()
        .enumerate()
        .map(|(i, k)| (k.as_str(), i))
        .collect();
    let initial = match &spec.initial {
        Some(name) => state_index(&ctx, &state_names, name, "initial")?,
        None if states.len() == 1 => 0,
        None => {
            return Err(CharacterError::Invalid {
                file: file.to_string(),
                line: 1,
                message: format!("{} states and no 'initial' state", states.len()),
            });
        }
    };
    let transitions = spec
        .transitions
        .iter()
        .enumerate()
        .map(|(i, t)| transition(&ctx, &state_names, i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let ik = spec
        .ik
        .iter()
        .map(|c| ik::build(&ctx, c))
        .collect::<Result<Vec<_>, _>>()?;
    let machine =
        StateMachine::new(ctx.params.clone(), states, transitions, initial).map_err(|e| {
            CharacterError::Invalid {
                file: file.to_string(),
                line: 1,
                message: e.to_string(),
            }
        })?;
    Ok(Character {
        path: path.to_path_buf(),
        model,
        events,
        motion,
        machine,
        ik,
    })
}

/// The clips' options: event tracks, and root motion (which replaces the clip with its in-place
/// version and yields its motion track).
fn clip_options(
    spec: &CharacterFile,
    file: &str,
    text: &str,
    model: &mut Model,
) -> Result<(Vec<EventTrack>, Vec<Option<MotionTrack>>), CharacterError> {
    let mut events = vec![EventTrack::default(); model.clips.len()];
    let mut motion = vec![None; model.clips.len()];
    {
        let ctx = Ctx::new(file, text, model, &spec.trees);
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
                let t = e.get_ref().time.get();
                if !(0.0..=duration).contains(&t) {
                    return Err(ctx.err(
                        e.span(),
                        format!(
                            "{owner}: event '{}' at {t} s is outside the clip (0 to {duration} s)",
                            e.get_ref().name
                        ),
                    ));
                }
                list.push(Event {
                    name: e.get_ref().name.clone(),
                    time: t,
                });
            }
            events[c] = EventTrack::new(list);
            if clip_spec.get_ref().root_motion {
                let (in_place, track) =
                    root_motion::extract(&model.clips[c], &model.skeleton, root).map_err(|e| {
                        ctx.err(clip_spec.span(), format!("{owner}: root motion: {e}"))
                    })?;
                replaced.push((c, in_place, track));
            }
        }
        for (c, in_place, track) in replaced {
            model.clips[c] = in_place;
            motion[c] = Some(track);
        }
    }
    Ok((events, motion))
}

/// The declared parameters, in file order.
fn parameters(ctx: &Ctx, spec: &CharacterFile) -> Result<Vec<ParamDef>, CharacterError> {
    let mut params = Vec::new();
    for (name, p) in &spec.parameters {
        let kind = match p.get_ref().kind.get_ref().as_str() {
            "float" => ParamKind::Float,
            "bool" => ParamKind::Bool,
            "trigger" => ParamKind::Trigger,
            other => {
                return Err(ctx.err(
                    p.get_ref().kind.span(),
                    format!(
                        "parameter '{name}': type '{other}' is not 'float', 'bool' or 'trigger'"
                    ),
                ));
            }
        };
        let default = match (&p.get_ref().default, kind) {
            (None, _) => 0.0,
            (Some(v), ParamKind::Float) => match v.get_ref() {
                toml::Value::Float(f) => to_f32(*f)
                    .map_err(|e| ctx.err(v.span(), format!("parameter '{name}': default {e}")))?,
                toml::Value::Integer(i) => *i as f32,
                _ => {
                    return Err(ctx.err(
                        v.span(),
                        format!("parameter '{name}': default must be a number"),
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
        params.push(ParamDef {
            name: name.clone(),
            kind,
            default,
        });
    }
    Ok(params)
}

/// The named joint masks: per-joint weights in [0, 1].
fn masks(ctx: &Ctx, spec: &CharacterFile) -> Result<BTreeMap<String, Vec<f32>>, CharacterError> {
    let model = ctx.model;
    let mut masks = BTreeMap::new();
    for (name, m) in &spec.masks {
        let owner = format!("mask '{name}'");
        let mut weights = vec![0.0f32; model.skeleton.len()];
        let m_spec = m.get_ref();
        let subtree_weight = match &m_spec.weight {
            Some(w) if !(0.0..=1.0).contains(&w.get_ref().get()) => {
                return Err(ctx.err(
                    w.span(),
                    format!("{owner}: weight {} is outside [0, 1]", w.get_ref().get()),
                ));
            }
            Some(w) => w.get_ref().get(),
            None => 1.0,
        };
        if let Some(root) = &m_spec.subtree {
            let j = ctx.joint(root.get_ref(), root.span(), &owner)?;
            weights = model.skeleton.subtree_mask(j, subtree_weight);
        }
        for (joint, w) in &m_spec.joints {
            let j = ctx.joint(joint, w.span(), &owner)?;
            let w_value = w.get_ref().get();
            if !(0.0..=1.0).contains(&w_value) {
                return Err(ctx.err(
                    w.span(),
                    format!("{owner}: weight {w_value} of joint '{joint}' is outside [0, 1]"),
                ));
            }
            weights[j] = w_value;
        }
        if m_spec.subtree.is_none() && m_spec.joints.is_empty() {
            return Err(ctx.err(
                m.span(),
                format!("{owner} selects no joints: give 'subtree' or 'joints'"),
            ));
        }
        masks.insert(name.clone(), weights);
    }
    Ok(masks)
}

/// One state per `[states.NAME]`, each with its blend tree built and checked.
fn states(ctx: &Ctx, spec: &CharacterFile) -> Result<Vec<State>, CharacterError> {
    let model = ctx.model;
    let mut states = Vec::new();
    for (name, node) in &spec.states {
        let owner = format!("state '{name}'");
        let mut nodes = Vec::new();
        let root = ctx.node(node, &owner, &mut nodes, Named::Expand, false)?;
        let tree = BlendTree::new(nodes, root, &model.skeleton, &model.clips, ctx.params.len())
            .map_err(|e| ctx.err(node.span(), format!("{owner}: {e}")))?;
        states.push(State {
            name: name.clone(),
            tree,
        });
    }
    Ok(states)
}

/// The index of the state `name`, which `what` names, among `states` (by name).
fn state_index(
    ctx: &Ctx,
    states: &BTreeMap<&str, usize>,
    name: &Spanned<String>,
    what: &str,
) -> Result<usize, CharacterError> {
    states.get(name.get_ref().as_str()).copied().ok_or_else(|| {
        let names: Vec<&str> = states.keys().copied().collect();
        ctx.err(
            name.span(),
            format!(
                "{what} names state '{}', which is not defined; states are: {}",
                name.get_ref(),
                listing(&names)
            ),
        )
    })
}

/// Transition `i` (0-based) of the file.
fn transition(
    ctx: &Ctx,
    states: &BTreeMap<&str, usize>,
    i: usize,
    t: &Spanned<TransitionSpec>,
) -> Result<Transition, CharacterError> {
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
        Some(state_index(ctx, states, &ts.from, &what)?)
    };
    let to = state_index(ctx, states, &ts.to, &what)?;
    let mut conditions = Vec::new();
    for c in &ts.when {
        conditions.push(parse_condition(ctx, c, &what)?);
    }
    let duration = match &ts.duration {
        Some(d) if d.get_ref().get() < 0.0 => {
            return Err(ctx.err(
                d.span(),
                format!(
                    "{what}: duration {} must be >= 0 seconds",
                    d.get_ref().get()
                ),
            ));
        }
        Some(d) => d.get_ref().get(),
        None => DEFAULT_CROSSFADE,
    };
    let exit_time = match &ts.exit_time {
        Some(e) if e.get_ref().get() < 0.0 => {
            return Err(ctx.err(
                e.span(),
                format!(
                    "{what}: exit_time {} must be >= 0 (in cycles of the source state)",
                    e.get_ref().get()
                ),
            ));
        }
        Some(e) => Some(e.get_ref().get()),
        None => None,
    };
    if conditions.is_empty() && exit_time.is_none() {
        return Err(ctx.err(
            t.span(),
            format!(
                "{what} has neither 'when' conditions nor an 'exit_time', so it would fire at once"
            ),
        ));
    }
    Ok(Transition {
        from,
        to,
        conditions,
        exit_time,
        duration,
        sync: ts.sync,
    })
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
            let value = parse_f32(value)
                .map_err(|e| ctx.err(span.clone(), format!("{what}: condition '{text}': {e}")))?;
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
