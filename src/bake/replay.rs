//! [`Replay`]: a bake's animations posed again, at any time, exactly as its baker posed them
//! into texels: the character's state (its blend tree with the state's parameter values, IK
//! chains) or clip through [`Poser`], the recipe's scale, a clip's root drift removal, a
//! cycle's foot locks and the character's facing turn. The live tier of the hybrid path poses
//! its agents with it, so that a live pose and the bake's frame at the same instant differ
//! only by the bake's frame interpolation and texel precision.
//!
//! Making one runs a bake's stages up to its assembly (load, plan, sample, face, lock): the
//! locks are measured on the sampled frames, as the baker measured them. For a baked file
//! ([`Replay::of_file`]), from the recipe its metadata holds, refused when the sources are
//! not the ones it was baked from (the input key differs) or its animations do not match.

use glam::Mat4;

use super::baker::{BakeOptions, Prepared, prepare};
use super::error::BakeError;
use super::facing::turn_matrix;
use super::inputs::inputs;
use super::load::Loaded;
use super::plan::Job;
use super::recipe::Recipe;
use super::sample::pose_into;
use crate::character::Poser;
use crate::format::ThrongFile;
use crate::import::ExternalFiles;

/// A bake's animations, posed as baked (see the module docs).
pub struct Replay {
    loaded: Vec<Loaded>,
    jobs: Vec<Job>,
    /// Per character, the quarter turns about +y its frames were turned by.
    turns: Vec<u8>,
}

impl Replay {
    /// The animations `recipe` bakes, in the order of the file it bakes.
    ///
    /// # Errors
    /// As [`super::bake`] (but for the precision budget and the meshes, which it does not
    /// reach).
    pub fn new(recipe: &Recipe, options: &BakeOptions) -> Result<Self, BakeError> {
        let Prepared {
            loaded,
            jobs,
            turns,
            ..
        } = prepare(recipe, options)?;
        Ok(Self {
            loaded,
            jobs,
            turns: turns.into_iter().map(|t| t.0).collect(),
        })
    }

    /// The animations of `file`, from the recipe its metadata holds (read from its recipe's
    /// folder, or for a bare model's bake the folder it was baked from), with the model files
    /// it may read held to `external`.
    ///
    /// # Errors
    /// [`BakeError::Replay`] naming the file when its recipe cannot be read back, its sources
    /// are not those it was baked from (changed, moved or missing), or its animations are not
    /// the recipe's.
    pub fn of_file(file: &ThrongFile, external: ExternalFiles) -> Result<Self, BakeError> {
        let fail = |what: String| BakeError::Replay {
            file: file.name().to_string(),
            what,
        };
        let meta = file.metadata();
        if meta.recipe.is_empty() {
            return Err(fail("it holds no recipe (a bake made in code)".into()));
        }
        // A bare model's recipe is made in code: its paths are as the command line gave them.
        let at = if meta.recipe_path == "-" {
            "recipe.toml"
        } else {
            meta.recipe_path.as_str()
        };
        let mut recipe = Recipe::parse(&meta.recipe, std::path::Path::new(at))
            .map_err(|e| fail(format!("its recipe does not read back: {e}")))?;
        if meta.recipe_path == "-" {
            recipe.path = None;
        }
        let same =
            |force| inputs(&recipe, force, external).is_ok_and(|(key, _)| key == meta.input_key);
        if !same(false) && !same(true) {
            return Err(fail(
                "its recipe or model files changed, moved or are missing since it was baked (bake it again)"
                    .into(),
            ));
        }
        let options = BakeOptions {
            external_files: external,
            ..BakeOptions::default()
        };
        let replay = Self::new(&recipe, &options).map_err(|e| fail(e.to_string()))?;
        replay.matches(file).map_err(fail)?;
        Ok(replay)
    }

    /// Whether `file`'s animations are this replay's, in order (name, character, duration).
    ///
    /// # Errors
    /// What differs first.
    pub fn matches(&self, file: &ThrongFile) -> Result<(), String> {
        let anims = file.anims();
        if anims.len() != self.jobs.len() {
            return Err(format!(
                "it has {} animations, its recipe {}",
                anims.len(),
                self.jobs.len()
            ));
        }
        for (i, (a, j)) in anims.iter().zip(&self.jobs).enumerate() {
            let name = file.str(a.name);
            if name != j.name || a.character as usize != j.character || a.duration != j.duration {
                return Err(format!(
                    "animation {i} is '{name}' of {:.3} s, its recipe's '{}' of {:.3} s",
                    a.duration, j.name, j.duration
                ));
            }
        }
        for (c, l) in file.characters().iter().zip(&self.loaded) {
            if c.joint_count as usize != l.model.skeleton.len() {
                return Err(format!(
                    "character '{}' has {} joints, its recipe's {}",
                    l.name,
                    c.joint_count,
                    l.model.skeleton.len()
                ));
            }
        }
        Ok(())
    }

    /// Characters.
    pub fn characters(&self) -> usize {
        self.loaded.len()
    }

    /// Scratch buffers to pose `character` with ([`Replay::pose`]).
    ///
    /// # Panics
    /// If `character` is not one of [`Replay::characters`].
    pub fn poser(&self, character: usize) -> Poser {
        Poser::new(&self.loaded[character].model)
    }

    /// The character of animation `anim`, if there is one.
    pub fn character_of(&self, anim: usize) -> Option<usize> {
        self.jobs.get(anim).map(|j| j.character)
    }

    /// The skinning matrices of animation `anim` at `time` seconds (wrapped into a looping
    /// animation, held at its ends otherwise), as baked (model space, metres, turned to
    /// face +z), into `out` (one per joint of its character), with `poser` made by
    /// [`Replay::poser`] for its character. Allocates nothing once the poser has posed this
    /// animation. Unknown `anim`: `out` is left as it is.
    pub fn pose(&self, anim: usize, time: f32, poser: &mut Poser, out: &mut [Mat4]) {
        let Some(job) = self.jobs.get(anim) else {
            return;
        };
        let t = if job.looping && job.duration > 0.0 {
            time.rem_euclid(job.duration)
        } else {
            time.clamp(0.0, job.duration)
        };
        let l = &self.loaded[job.character];
        pose_into(l, job, poser, t, out);
        let k = self.turns[job.character];
        if !k.is_multiple_of(4) {
            for m in out.iter_mut() {
                *m = turn_matrix(*m, k);
            }
        }
    }
}
