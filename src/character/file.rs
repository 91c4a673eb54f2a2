//! The character file's syntax: serde structures mirroring the TOML, with spans kept on every
//! name so that errors can point at the line.

use std::collections::BTreeMap;

use serde::Deserialize;
use toml::Spanned;

use super::number::Number;
use super::toml_error::FromTable;

/// The whole file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct CharacterFile {
    /// glTF model, relative to the character file.
    pub model: Spanned<String>,
    /// `auto` (default), `always` or `never`.
    pub merge_animations: Option<Spanned<String>>,
    /// Joint whose horizontal travel and yaw become root motion (default: the first root).
    pub root_joint: Option<Spanned<String>>,
    /// State the machine starts in (default: the only state).
    pub initial: Option<Spanned<String>>,
    #[serde(default)]
    pub clips: BTreeMap<String, Spanned<ClipSpec>>,
    #[serde(default)]
    pub masks: BTreeMap<String, Spanned<MaskSpec>>,
    #[serde(default)]
    pub parameters: BTreeMap<String, Spanned<ParamSpec>>,
    #[serde(default)]
    pub trees: BTreeMap<String, Spanned<NodeSpec>>,
    #[serde(default)]
    pub states: BTreeMap<String, Spanned<NodeSpec>>,
    #[serde(default)]
    pub transitions: Vec<Spanned<TransitionSpec>>,
    #[serde(default)]
    pub ik: Vec<Spanned<IkSpec>>,
}

/// [`ClipFields`], from a table only ([`FromTable`]).
pub(super) type ClipSpec = FromTable<ClipFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClipFields {
    #[serde(default)]
    pub root_motion: bool,
    #[serde(default)]
    pub events: Vec<Spanned<EventSpec>>,
}

/// [`EventFields`], from a table only ([`FromTable`]).
pub(super) type EventSpec = FromTable<EventFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct EventFields {
    pub name: String,
    pub time: Number,
}

/// [`MaskFields`], from a table only ([`FromTable`]).
pub(super) type MaskSpec = FromTable<MaskFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct MaskFields {
    /// Every joint below and including this one.
    pub subtree: Option<Spanned<String>>,
    /// Weight of the subtree's joints (default 1).
    pub weight: Option<Spanned<Number>>,
    /// Per-joint weights, applied after the subtree.
    #[serde(default)]
    pub joints: BTreeMap<String, Spanned<Number>>,
}

/// [`ParamFields`], from a table only ([`FromTable`]).
pub(super) type ParamSpec = FromTable<ParamFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ParamFields {
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    pub default: Option<Spanned<toml::Value>>,
}

/// A number, or the name of a float parameter. The number is kept at TOML's precision until its
/// range is checked (an untagged enum would swallow [`Number`]'s own message).
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "must be a weight in [0, 1] or the name of a float parameter"
)]
pub(super) enum WeightSpec {
    Value(f64),
    Param(String),
}

/// The additive reference pose: `"rest"`, `"first_frame"` or `{ clip, time }`.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "must be \"rest\", \"first_frame\" or { clip = NAME, time = SECONDS }"
)]
pub(super) enum ReferenceSpec {
    Named(String),
    ClipAt(FromTable<ClipAtSpec>),
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ClipAtSpec {
    /// A plain string: inside an untagged enum, a `Spanned` field cannot be read (serde buffers
    /// the value and toml's span is lost), so `{ clip, time }` never parsed.
    pub clip: String,
    /// Seconds; checked in range when resolved (untagged, as [`WeightSpec`]).
    #[serde(default)]
    pub time: f64,
}

/// [`NodeFields`], from a table only ([`FromTable`]).
pub(super) type NodeSpec = FromTable<NodeFields>;

/// A blend-tree node. Exactly one of `clip`, `tree`, `blend1d`, `layer`, `additive` is set.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct NodeFields {
    pub clip: Option<Spanned<String>>,
    pub speed: Option<Spanned<Number>>,
    #[serde(rename = "loop")]
    pub looping: Option<bool>,
    pub tree: Option<Spanned<String>>,
    pub blend1d: Option<Spanned<String>>,
    pub children: Option<Vec<Spanned<NodeSpec>>>,
    /// Position on the parent Blend1D's axis (children only).
    pub at: Option<Spanned<Number>>,
    pub layer: Option<Box<Spanned<NodeSpec>>>,
    pub base: Option<Box<Spanned<NodeSpec>>>,
    pub mask: Option<Spanned<String>>,
    pub weight: Option<Spanned<WeightSpec>>,
    pub additive: Option<Spanned<String>>,
    pub reference: Option<Spanned<ReferenceSpec>>,
}

/// [`TransitionFields`], from a table only ([`FromTable`]).
pub(super) type TransitionSpec = FromTable<TransitionFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct TransitionFields {
    /// A state name, or `*` for any state.
    pub from: Spanned<String>,
    pub to: Spanned<String>,
    #[serde(default)]
    pub when: Vec<Spanned<String>>,
    #[serde(default)]
    pub duration: Option<Spanned<Number>>,
    pub exit_time: Option<Spanned<Number>>,
    /// Start the target at the source's normalised phase.
    #[serde(default)]
    pub sync: bool,
}

/// Where an IK chain's effector should go.
#[derive(Debug, Deserialize)]
#[serde(
    untagged,
    expecting = "must be \"ground\" or a model-space point [x, y, z]"
)]
pub(super) enum TargetSpec {
    /// A model-space point, model units (checked to fit `f32` when resolved, as
    /// [`WeightSpec`]).
    Point([f64; 3]),
    /// `"ground"`: keep the effector at or above `floor`.
    Named(String),
}

/// [`IkFields`], from a table only ([`FromTable`]).
pub(super) type IkSpec = FromTable<IkFields>;

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct IkFields {
    pub name: Spanned<String>,
    #[serde(rename = "type")]
    pub kind: Spanned<String>,
    pub joints: Spanned<Vec<String>>,
    pub target: Spanned<TargetSpec>,
    /// Floor height for `target = "ground"`, model units.
    pub floor: Option<Spanned<Number>>,
    /// Two-bone: model-space direction the middle joint bends towards.
    pub pole: Option<Spanned<[Number; 3]>>,
    /// Aim: the joint's forward and up axes in its own space.
    pub forward: Option<Spanned<[Number; 3]>>,
    pub up: Option<Spanned<[Number; 3]>>,
    /// Read as any integer, so that a huge one gets the range message rather than serde's.
    pub iterations: Option<Spanned<i64>>,
    pub tolerance: Option<Spanned<Number>>,
    pub weight: Option<Spanned<WeightSpec>>,
}
