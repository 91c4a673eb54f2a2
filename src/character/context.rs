//! The context a character file is resolved in: the file's text (for line numbers), the
//! model, and what is built so far (parameters, masks, named trees), with the look-ups every
//! resolving step shares (clips, joints, parameters, weights) and their messages. `resolve`,
//! `tree` and `ik` all work through it, so none of them needs another.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use super::error::CharacterError;
use super::file::{NodeSpec, WeightSpec};
use super::number::short;
use crate::anim::graph::Weight;
use crate::anim::state_machine::{ParamDef, ParamKind};
use crate::import::Model;

/// Resolution context: the file's text (for line numbers), the model and what is built so far.
/// Names are looked up through maps, so a file that names many things costs no more than
/// linear-logarithmic time.
pub(super) struct Ctx<'a> {
    pub(super) file: String,
    pub(super) text: &'a str,
    pub(super) model: &'a Model,
    pub(super) params: Vec<ParamDef>,
    pub(super) masks: BTreeMap<String, Vec<f32>>,
    pub(super) trees: &'a BTreeMap<String, Spanned<NodeSpec>>,
    /// Clip and joint indices by name (the first of equal names, as the model's own look-ups).
    clip_index: BTreeMap<&'a str, usize>,
    joint_index: BTreeMap<&'a str, usize>,
    /// Parameter indices by name, matching `params`.
    param_index: BTreeMap<String, usize>,
}

impl<'a> Ctx<'a> {
    /// A context for `file` (its `text`) over `model`, with no parameters or masks yet.
    pub(super) fn new(
        file: &str,
        text: &'a str,
        model: &'a Model,
        trees: &'a BTreeMap<String, Spanned<NodeSpec>>,
    ) -> Self {
        let mut clip_index = BTreeMap::new();
        for (i, c) in model.clips.iter().enumerate() {
            clip_index.entry(c.name()).or_insert(i);
        }
        let mut joint_index = BTreeMap::new();
        for (i, n) in model.skeleton.names().iter().enumerate() {
            joint_index.entry(n.as_str()).or_insert(i);
        }
        Self {
            file: file.to_string(),
            text,
            model,
            params: Vec::new(),
            masks: BTreeMap::new(),
            trees,
            clip_index,
            joint_index,
            param_index: BTreeMap::new(),
        }
    }

    /// Sets the declared parameters.
    pub(super) fn set_params(&mut self, params: Vec<ParamDef>) {
        self.param_index = params
            .iter()
            .enumerate()
            .map(|(i, p)| (p.name.clone(), i))
            .collect();
        self.params = params;
    }
}

impl Ctx<'_> {
    pub(super) fn line(&self, span: Range<usize>) -> usize {
        line_of(self.text, span.start)
    }

    pub(super) fn err(&self, span: Range<usize>, message: impl Into<String>) -> CharacterError {
        CharacterError::Invalid {
            file: self.file.clone(),
            line: self.line(span),
            message: message.into(),
        }
    }

    pub(super) fn clip(
        &self,
        name: &Spanned<String>,
        owner: &str,
    ) -> Result<usize, CharacterError> {
        self.clip_index
            .get(name.get_ref().as_str())
            .copied()
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

    pub(super) fn joint(
        &self,
        name: &str,
        span: Range<usize>,
        owner: &str,
    ) -> Result<usize, CharacterError> {
        self.joint_index.get(name).copied().ok_or_else(|| {
            let names: Vec<&str> = self.model.skeleton.names().iter().map(String::as_str).collect();
            self.err(span, format!("{owner} names joint '{name}', which the skeleton does not have; joints are: {}", listing(&names)))
        })
    }

    pub(super) fn param(
        &self,
        name: &str,
        span: Range<usize>,
        owner: &str,
        kinds: &[ParamKind],
    ) -> Result<usize, CharacterError> {
        let Some(&i) = self.param_index.get(name) else {
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

    pub(super) fn weight(
        &self,
        w: &Option<Spanned<WeightSpec>>,
        owner: &str,
    ) -> Result<Weight, CharacterError> {
        match w {
            None => Ok(Weight::Const(1.0)),
            Some(s) => match s.get_ref() {
                WeightSpec::Value(v) if (0.0..=1.0).contains(v) => Ok(Weight::Const(*v as f32)),
                WeightSpec::Value(v) => Err(self.err(
                    s.span(),
                    if v.is_finite() {
                        format!("{owner}: weight {} is outside [0, 1]", short(*v))
                    } else {
                        format!("{owner}: weight {} must be a finite number", short(*v))
                    },
                )),
                WeightSpec::Param(p) => Ok(Weight::Param(self.param(
                    p,
                    s.span(),
                    owner,
                    &[ParamKind::Float],
                )?)),
            },
        }
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

/// Names for a message: `a, b, c`, or `(none)`; past [`LISTED`] names, the first of them and
/// how many more (a file or model with thousands of names would otherwise make a message of
/// thousands of lines).
pub(super) fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".into()
    } else if names.len() > LISTED {
        format!(
            "{}, ... and {} more",
            names[..LISTED].join(", "),
            names.len() - LISTED
        )
    } else {
        names.join(", ")
    }
}

/// Most names a message lists.
pub(super) const LISTED: usize = 32;

pub(super) use super::toml_error::line_of;
