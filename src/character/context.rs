//! The context a character file is resolved in: the file's text (for line numbers), the
//! model, and what is built so far (parameters, masks, named trees), with the look-ups every
//! resolving step shares (clips, joints, parameters, weights) and their messages. `resolve`,
//! `tree` and `ik` all work through it, so none of them needs another.

use std::collections::BTreeMap;
use std::ops::Range;

use toml::Spanned;

use super::error::CharacterError;
use super::file::{NodeSpec, WeightSpec};
use crate::anim::graph::Weight;
use crate::anim::state_machine::{ParamDef, ParamKind};
use crate::import::Model;

/// Resolution context: the file's text (for line numbers), the model and what is built so far.
pub(super) struct Ctx<'a> {
    pub(super) file: String,
    pub(super) text: &'a str,
    pub(super) model: &'a Model,
    pub(super) params: Vec<ParamDef>,
    pub(super) masks: BTreeMap<String, Vec<f32>>,
    pub(super) trees: &'a BTreeMap<String, Spanned<NodeSpec>>,
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

    pub(super) fn joint(
        &self,
        name: &str,
        span: Range<usize>,
        owner: &str,
    ) -> Result<usize, CharacterError> {
        self.model.skeleton.find(name).ok_or_else(|| {
            self.err(span, format!("{owner} names joint '{name}', which the skeleton does not have; joints are: {}", self.model.skeleton.names().join(", ")))
        })
    }

    pub(super) fn param(
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

    pub(super) fn weight(
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
pub(super) fn listing(names: &[&str]) -> String {
    if names.is_empty() {
        "(none)".into()
    } else {
        names.join(", ")
    }
}

/// 1-based line of byte `offset` in `text`.
pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.get(..offset).unwrap_or(text).matches('\n').count() + 1
}
