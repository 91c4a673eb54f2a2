//! Loading a recipe's characters for baking: the character file or bare model, with the
//! recipe's tint applied to its materials, the per-joint boxes the measures use, its standing
//! height as authored, the scale that puts it in metres (the recipe's `height` or `scale`, or
//! the default rule of [`Size::factor`](crate::bake::Size::factor)) and its height in metres
//! (what every error budget is a fraction of), and per mesh part the metres one unit of its
//! vertices makes.
//!
//! The standing height is the y extent of the conservative box of its skinned mesh (the
//! per-joint boxes of `measure`) in the rest pose: the glTF nodes' own transforms, no clip
//! playing. A character lying flat (y under 5% of its largest extent) measures its largest
//! extent instead, and one with no extent at all measures 1.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;

use glam::{Mat4, Vec3};

use super::error::BakeError;
use super::measure::JointBoxes;
use super::recipe::{
    CENTIMETRES_RANGE, CharacterSpec, DefaultRule, METRES_RANGE, Recipe, Selection, Source,
};
use crate::anim::Wrap;
use crate::anim::graph::Node;
use crate::anim::state_machine::ParamKind;
use crate::character::{Character, Poser};
use crate::import::{ExternalFiles, Images, ImportOptions, Model};

/// A loaded character of the recipe.
pub(super) struct Loaded {
    /// Its name in the recipe.
    pub name: String,
    /// The character file's contents (states, root motion, events); `None` for a bare model.
    /// Shared by the characters made from the file (it is read, never changed).
    pub character: Option<Arc<Character>>,
    /// The model (materials tinted).
    pub model: Model,
    /// Its scale ([`Loaded::factors`] on the diagonal), applied to every posed skinning
    /// matrix.
    pub scale: Mat4,
    /// The scale's factors along model x, y, z: metres per model unit.
    pub factors: Vec3,
    /// Per-joint boxes of its meshes, for bounds and errors.
    pub boxes: JointBoxes,
    /// Standing height as authored, model units.
    pub standing: f32,
    /// What the default rule did, when the recipe gives neither `height` nor `scale`.
    pub rule: Option<DefaultRule>,
    /// Height in the rest pose, scaled: metres.
    pub height: f32,
    /// Per mesh part: metres per unit of its own coordinates (its vertex positions, which
    /// the baker simplifies). The largest stretch ([`JointBoxes::stretch`]) of the rest pose's
    /// skinning matrices, its scale applied, over the joints that move the part; the largest
    /// of [`Loaded::factors`] for a part that no matrix stretches. A model authored in
    /// centimetres under a 0.01 node scale keeps its vertices in centimetres and the 0.01 in
    /// its matrices: this is what carries a length measured on the vertices (a LOD error) into
    /// metres.
    pub part_scales: Vec<f32>,
    /// The keys of its `[[characters]]` entry that have no effect on it, as warnings.
    pub unused_keys: Vec<String>,
    /// The index in the recipe of the first character loaded from the same source (the same
    /// character file or model, see [`load_all`]): characters with the same index pose alike
    /// before their scale, so the baker evaluates their poses once.
    pub poses: usize,
}

/// The height of skinning matrices `rest` over `boxes`: their y extent, unless the character
/// lies flat (under 5% of its largest extent): then its largest extent, and 1 for a character
/// with no extent at all.
fn measure_height(boxes: &JointBoxes, rest: &[Mat4]) -> f32 {
    let (lo, hi) = boxes.bounds(rest);
    let size = hi - lo;
    if size.y > size.max_element() * 0.05 {
        size.y
    } else if size.max_element() > 0.0 {
        size.max_element()
    } else {
        1.0
    }
}

/// Loads every character of `specs`, each source once: characters made from the same file
/// (variants in size and tint) are given copies of one loaded model and character file, and
/// the same [`Loaded::poses`]. A bare model's URIs may name the files `external` allows.
/// `loaded_one` is called as each character is ready.
///
/// # Errors
/// [`BakeError::CharacterFile`] or [`BakeError::Model`] when a file does not load (said of the
/// first character that names it), or [`load`]'s for a character that cannot be sized.
pub(super) fn load_all(
    specs: &[CharacterSpec],
    external: ExternalFiles,
    mut loaded_one: impl FnMut(),
) -> Result<Vec<Loaded>, BakeError> {
    // Per character, the first that names its source; per source, how many still will.
    let mut first_of = std::collections::HashMap::new();
    let firsts: Vec<usize> = specs
        .iter()
        .enumerate()
        .map(|(i, s)| *first_of.entry(&s.source).or_insert(i))
        .collect();
    let mut users = vec![0usize; specs.len()];
    for &f in &firsts {
        users[f] += 1;
    }
    // What was read of a source that later characters still need, untinted, with its joint
    // boxes (a tint does not move a vertex).
    let mut kept: Vec<Option<Read>> = specs.iter().map(|_| None).collect();
    let mut out = Vec::with_capacity(specs.len());
    for (spec, &first) in specs.iter().zip(&firsts) {
        let source = match kept[first].take() {
            Some(source) => source,
            None => {
                let (character, model) = read(spec, external)?;
                let boxes =
                    JointBoxes::new(model.skeleton.len(), model.meshes.iter().map(|m| &m.mesh));
                (character, model, boxes)
            }
        };
        users[first] -= 1;
        if users[first] > 0 {
            kept[first] = Some(source.clone());
        }
        out.push(load(spec, source, first)?);
        loaded_one();
    }
    Ok(out)
}

/// The character file (if any) and model `spec` names, as read.
fn read(
    spec: &CharacterSpec,
    external: ExternalFiles,
) -> Result<(Option<Arc<Character>>, Model), BakeError> {
    let name = &spec.name;
    Ok(match &spec.source {
        Source::Character(path) => {
            let c = Character::load(path).map_err(|e| BakeError::CharacterFile {
                at: spec.lines.at("character"),
                character: name.clone(),
                error: Box::new(e),
            })?;
            let m = c.model.clone();
            (Some(Arc::new(c)), m)
        }
        Source::Model(path) => {
            let m = crate::import::load(
                path,
                &ImportOptions {
                    images: Images::Load,
                    external_files: external,
                    ..ImportOptions::default()
                },
            )
            .map_err(|e| BakeError::Model {
                at: spec.lines.at("model"),
                character: name.clone(),
                error: Box::new(e),
            })?;
            (None, m)
        }
    })
}

/// What was read of a source, untinted: its character file (if any), its model and the
/// model's joint boxes.
type Read = (Option<Arc<Character>>, Model, JointBoxes);

/// The character `spec` names, from what was read of its source (`source`), tinted and sized
/// as `spec` says; `poses` is its [`Loaded::poses`].
///
/// # Errors
/// [`BakeError::Recipe`] (at its `height` or `scale` key) when no scale can size it.
fn load(
    spec: &CharacterSpec,
    (character, mut model, boxes): Read,
    poses: usize,
) -> Result<Loaded, BakeError> {
    let name = spec.name.clone();
    for m in &mut model.materials {
        m.base_color_factor *= spec.tint;
    }
    let mut poser = Poser::new(&model);
    let rest = poser.clip(&model, None, 0.0, Wrap::Clamp);
    let standing = measure_height(&boxes, rest);
    let (factors, rule) = spec.size.factor(standing);
    if !(factors.is_finite() && factors.min_element() > 0.0) {
        let key = if spec.lines.has("height") {
            "height"
        } else {
            "scale"
        };
        return Err(spec.error(
            key,
            format!(
                "its standing height measures {standing} units, so no scale can size it ({factors})"
            ),
        ));
    }
    let scale = Mat4::from_scale(factors);
    let scaled: Vec<Mat4> = rest.iter().map(|m| scale * *m).collect();
    let height = measure_height(&boxes, &scaled);
    let part_scales = model
        .meshes
        .iter()
        .map(|p| {
            JointBoxes::new(model.skeleton.len(), [&p.mesh])
                .stretch(&scaled)
                .unwrap_or(factors.max_element())
        })
        .collect();
    let unused_keys = unused_keys(spec, &model, character.as_deref());
    Ok(Loaded {
        name,
        character,
        model,
        scale,
        factors,
        boxes,
        standing,
        rule,
        height,
        part_scales,
        unused_keys,
        poses,
    })
}

/// The keys of `spec`'s entry that have no effect on the character (`model`, with `character`
/// when it comes from a character file), each as `FILE:LINE: KEY has no effect: why`. Names
/// the recipe asks for that the character lacks are errors, found when its jobs are planned.
fn unused_keys(spec: &CharacterSpec, model: &Model, character: Option<&Character>) -> Vec<String> {
    let mut out = Vec::new();
    let mut warn = |key: &str, why: String| {
        if let Some(at) = spec.lines.at(key) {
            out.push(format!("{at}: {key} has no effect: {why}"));
        }
    };
    let params = spec
        .lines
        .keys
        .keys()
        .filter_map(|k| k.strip_prefix("params."));
    let Some(ch) = character else {
        if spec.lines.has("states") {
            warn(
                "states",
                format!(
                    "'{}' is a bare model, which has clips only (states come from a character file: character = \"FILE.toml\")",
                    spec.name
                ),
            );
        }
        for p in params {
            warn(
                &format!("params.{p}"),
                format!(
                    "'{}' is a bare model, which has no states to bake at parameter values (states come from a character file: character = \"FILE.toml\")",
                    spec.name
                ),
            );
        }
        return out;
    };
    let selected = |sel: &Selection, all: &[&str]| -> Vec<usize> {
        match sel {
            Selection::All => (0..all.len()).collect(),
            Selection::Named(names) => names
                .iter()
                .filter_map(|n| all.iter().position(|a| a == n))
                .collect(),
        }
    };
    let machine = &ch.machine;
    let state_names: Vec<&str> = machine.states().iter().map(|s| s.name.as_str()).collect();
    let states = selected(&spec.states, &state_names);
    let blended: BTreeSet<&str> = states
        .iter()
        .flat_map(|&s| machine.states()[s].tree.nodes())
        .filter_map(|n| match n {
            Node::Blend1D { param, .. } => machine.params().get(*param).map(|p| p.name.as_str()),
            _ => None,
        })
        .collect();
    for p in params {
        // A name that is no float parameter is an error, reported when the jobs are planned.
        let float = machine
            .param(p)
            .is_some_and(|i| machine.params()[i].kind == ParamKind::Float);
        if float && !blended.contains(p) {
            warn(
                &format!("params.{p}"),
                format!("no state it bakes blends on '{p}'"),
            );
        }
    }
    let clip_names: Vec<&str> = model.clips.iter().map(|c| c.name()).collect();
    let clips = selected(&spec.clips, &clip_names);
    for (key, list) in [("once", &spec.once), ("loop", &spec.looping)] {
        for name in list {
            let known = clip_names.iter().position(|c| c == name);
            if known.is_some_and(|c| !clips.contains(&c)) {
                warn(
                    &format!("{key}.{name}"),
                    format!("clip '{name}' is not baked (see clips)"),
                );
            }
        }
    }
    let baked: Vec<&str> = clips
        .iter()
        .map(|&c| clip_names[c])
        .chain(states.iter().map(|&s| state_names[s]))
        .collect();
    if !baked.is_empty() && baked.iter().all(|n| spec.rates.contains_key(*n)) {
        warn(
            "fps",
            "every clip and state it bakes has its own rate in rates".into(),
        );
    }
    out
}

/// The standing height of `model` as authored, model units: what a recipe's `height` and
/// the default rule of [`Size::factor`](crate::bake::Size::factor) go by. The y extent of
/// the box that holds its skinned mesh in the rest pose (no clip playing); for a character
/// lying flat, its largest extent; 1 for one with no extent (docs/BAKING.md).
pub fn standing_height(model: &Model) -> f32 {
    let boxes = JointBoxes::new(model.skeleton.len(), model.meshes.iter().map(|m| &m.mesh));
    let mut poser = Poser::new(model);
    measure_height(&boxes, poser.clip(model, None, 0.0, Wrap::Clamp))
}

impl Loaded {
    /// The bake report's notes for it, as character `ci` of `recipe`: its size (see
    /// [`Loaded::size_warning`]), the recipe's top-level keys that have no effect (with the
    /// first character), and its entry's keys that have none.
    pub fn notes(&self, ci: usize, recipe: &Recipe) -> Vec<String> {
        let spec = &recipe.characters[ci];
        let top = if ci == 0 { &recipe.warnings[..] } else { &[] };
        self.size_warning(spec, recipe)
            .into_iter()
            .chain(top.iter().cloned())
            .chain(self.unused_keys.iter().cloned())
            .collect()
    }

    /// The bake report's warning about its size, when the recipe gives neither `height` nor
    /// `scale` and its standing height is not read as metres: which rule applied and the key
    /// that chooses instead, in `spec`'s entry of `recipe` (for a bare `throng bake MODEL`, the
    /// recipe to write).
    pub fn size_warning(&self, spec: &CharacterSpec, recipe: &Recipe) -> Option<String> {
        let keys = match self.rule? {
            DefaultRule::Metres => return None,
            DefaultRule::Centimetres => "`height = <metres>` or `scale = [1, 1, 1]`",
            DefaultRule::Unknown => "`height = <metres>` (e.g. `height = 1.8`)",
        };
        let how = match (&recipe.path, &spec.source) {
            (Some(p), _) => format!("add {keys} under its [[characters]] in {}", p.display()),
            (None, source) => {
                let (key, path) = match source {
                    Source::Model(m) => ("model", m),
                    Source::Character(c) => ("character", c),
                };
                format!(
                    "bake a recipe (docs/BAKING.md): `output = {:?}`, then `[[characters]]` with `{key} = {:?}` (relative to the recipe's folder) and {keys}",
                    file_name(&recipe.output),
                    path.display().to_string()
                )
            }
        };
        let ((lo, hi), (clo, chi)) = (METRES_RANGE, CENTIMETRES_RANGE);
        Some(if self.rule? == DefaultRule::Centimetres {
            format!(
                "standing height {:.1} units, read as centimetres ({clo}–{chi} units): scaled by 0.01 to {:.2} m; to choose, {how}",
                self.standing, self.height
            )
        } else {
            format!(
                "standing height {:.2} units, outside both {lo}–{hi} (read as metres) and {clo}–{chi} (read as centimetres): baked as authored, {:.2} m tall; if that is not its size, {how}",
                self.standing, self.height
            )
        })
    }
}

/// The last component of `p`, as the recipe a user writes beside it would name it.
fn file_name(p: &Path) -> String {
    p.file_name().map_or_else(
        || p.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}
