//! Loading a recipe's characters for baking: the character file or bare model, with the
//! recipe's tint applied to its materials, its scale, the per-joint boxes the measures use,
//! and its height in the rest pose (what every error budget is a fraction of).

use glam::Mat4;

use super::error::BakeError;
use super::measure::JointBoxes;
use super::recipe::{CharacterSpec, Source};
use crate::anim::Playback;
use crate::character::{Character, Poser};
use crate::import::{Images, ImportOptions, Model};

/// A loaded character of the recipe.
pub(super) struct Loaded {
    /// Its name in the recipe.
    pub name: String,
    /// The character file's contents (states, root motion, events); `None` for a bare model.
    pub character: Option<Character>,
    /// The model (materials tinted).
    pub model: Model,
    /// The recipe's scale, applied to every posed skinning matrix.
    pub scale: Mat4,
    /// Per-joint boxes of its meshes, for bounds and errors.
    pub boxes: JointBoxes,
    /// Height in the rest pose, scaled, model units.
    pub height: f32,
}

/// Loads the character `spec` names.
///
/// # Errors
/// [`BakeError::CharacterFile`] or [`BakeError::Model`] when its file does not load.
pub(super) fn load(spec: &CharacterSpec) -> Result<Loaded, BakeError> {
    let name = spec.name.clone();
    let (character, mut model) = match &spec.source {
        Source::Character(path) => {
            let c = Character::load(path).map_err(|e| BakeError::CharacterFile {
                character: name.clone(),
                source: Box::new(e),
            })?;
            let m = c.model.clone();
            (Some(c), m)
        }
        Source::Model(path) => {
            let m = crate::import::load(
                path,
                &ImportOptions {
                    images: Images::Load,
                    ..ImportOptions::default()
                },
            )
            .map_err(|e| BakeError::Model {
                character: name.clone(),
                source: Box::new(e),
            })?;
            (None, m)
        }
    };
    for m in &mut model.materials {
        m.base_color_factor *= spec.tint;
    }
    let scale = Mat4::from_scale(spec.scale);
    let boxes = JointBoxes::new(model.skeleton.len(), model.meshes.iter().map(|m| &m.mesh));
    let mut poser = Poser::new(&model);
    let rest: Vec<Mat4> = poser
        .clip(&model, None, 0.0, Playback::Clamp)
        .iter()
        .map(|m| scale * *m)
        .collect();
    let (lo, hi) = boxes.bounds(&rest);
    let size = hi - lo;
    // The vertical extent, unless the character lies flat (under 5% of its largest extent):
    // then its largest extent, and 1 for a character with no extent at all.
    let height = if size.y > size.max_element() * 0.05 {
        size.y
    } else if size.max_element() > 0.0 {
        size.max_element()
    } else {
        1.0
    };
    Ok(Loaded {
        name,
        character,
        model,
        scale,
        boxes,
        height,
    })
}
