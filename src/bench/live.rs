//! The live baseline: what general-purpose engines do for a crowd. Every visible agent's
//! animations are evaluated on the CPU each frame through the full pipeline (sampling, blend
//! trees, forward kinematics, IK, skinning matrices; rayon over agents), and the matrices are
//! written to the GPU for the same vertex shader to skin with. The characters come from the
//! bake's recipe, so the live poses are the ones the bake sampled, turned as the bake turned
//! its character (format 1.2's facing turn).

use std::sync::Mutex;

use glam::Mat4;
use rayon::prelude::*;

use super::error::BenchError;
use crate::anim::Wrap;
use crate::bake::recipe::Source;
use crate::bake::{Recipe, lerp, rows};
use crate::character::{Character, Poser};
use crate::crowd::{Agent, InstanceRecord};
use crate::format::records::{anim_flags, anim_kind, turn_matrix};
use crate::format::{TEXELS_PER_MATRIX, ThrongFile};

/// Most joints per character the live baseline evaluates: its two per-agent scratch poses
/// live on the stack (2 x 256 matrices, 32 KiB per rayon task), so that evaluating a frame
/// allocates nothing. Far below [`crate::format::MAX_JOINTS`]; a character with more joints
/// is refused by [`Live::new`], naming this limit.
pub const LIVE_STACK_JOINTS: usize = 256;

/// What one baked animation is, live.
#[derive(Clone, Debug)]
enum Origin {
    Clip { clip: usize },
    State { state: usize, params: Vec<f32> },
}

#[derive(Clone, Debug)]
struct LiveAnim {
    character: usize,
    /// Quarter turns about +y the bake turned its character by (format 1.2's facing turn):
    /// the evaluated matrices are turned alike, to face as the baked frames do.
    turns: u8,
    source: Origin,
    duration: f32,
    looping: bool,
}

/// The characters of a bake, loaded from its recipe, and what each baked animation is.
pub struct Live {
    characters: Vec<Character>,
    anims: Vec<LiveAnim>,
    /// Matrices per instance in the live texture: the most joints of any character.
    stride: usize,
    /// One set of posers (per character) per rayon thread.
    posers: Vec<Mutex<Vec<Poser>>>,
}

impl Live {
    /// Loads the characters of `recipe` (the recipe `file` was baked from) and matches every
    /// animation of `file` to its clip or state.
    ///
    /// # Errors
    /// [`BenchError::Live`] when a character is a bare model or scaled, or an animation has no
    /// match (the bake is not from this recipe).
    pub fn new(file: &ThrongFile, recipe: &Recipe) -> Result<Self, BenchError> {
        let fail = |what: String| BenchError::Live(format!("{}: {what}", file.name()));
        let mut characters = Vec::new();
        for (ci, c) in file.characters().iter().enumerate() {
            let name = file.str(c.name);
            let spec = recipe
                .characters
                .iter()
                .find(|s| s.name == name)
                .ok_or_else(|| fail(format!("the recipe has no character '{name}'")))?;
            let Source::Character(path) = &spec.source else {
                return Err(fail(format!(
                    "character '{name}' is a bare model; the live baseline needs a character file"
                )));
            };
            let character = Character::load(path).map_err(|e| fail(e.to_string()))?;
            let standing = crate::bake::standing_height(&character.model);
            if spec.size.factor(standing).0 != glam::Vec3::ONE {
                return Err(fail(format!(
                    "character '{name}' is baked with a scale; the live baseline evaluates unscaled characters"
                )));
            }
            if character.model.skeleton.len() != c.joint_count as usize {
                return Err(fail(format!(
                    "character '{name}' has {} joints, the bake {}",
                    character.model.skeleton.len(),
                    c.joint_count
                )));
            }
            debug_assert_eq!(characters.len(), ci);
            characters.push(character);
        }
        let mut anims = Vec::new();
        for a in file.anims() {
            let ch = &characters[a.character as usize];
            let name = file.str(a.name);
            let source = if a.kind == anim_kind::CLIP {
                let clip = ch
                    .model
                    .find_clip(name)
                    .ok_or_else(|| fail(format!("no clip '{name}' in the character")))?;
                Origin::Clip { clip }
            } else {
                let machine = &ch.machine;
                let state = machine
                    .states()
                    .iter()
                    .position(|s| s.name == name)
                    .ok_or_else(|| fail(format!("no state '{name}' in the character")))?;
                let mut params: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
                let param = file.str(a.param);
                if !param.is_empty() {
                    let p = machine
                        .params()
                        .iter()
                        .position(|p| p.name == param)
                        .ok_or_else(|| fail(format!("no parameter '{param}' in the character")))?;
                    params[p] = a.param_value;
                }
                Origin::State { state, params }
            };
            anims.push(LiveAnim {
                character: a.character as usize,
                turns: file.facing_turns(a.character as usize),
                source,
                duration: a.duration,
                looping: a.flags & anim_flags::LOOPING != 0,
            });
        }
        let stride = file
            .characters()
            .iter()
            .map(|c| c.joint_count as usize)
            .max()
            .unwrap_or(0);
        if stride > LIVE_STACK_JOINTS {
            return Err(fail(format!(
                "a character has {stride} joints; the live baseline evaluates up to {LIVE_STACK_JOINTS}"
            )));
        }
        let threads = rayon::current_num_threads() + 1;
        let posers = (0..threads)
            .map(|_| Mutex::new(characters.iter().map(|c| Poser::new(&c.model)).collect()))
            .collect();
        Ok(Self {
            characters,
            anims,
            stride,
            posers,
        })
    }

    /// Skinning matrices of `anim` at `time` seconds (wrapped for a looping animation, held
    /// at the ends otherwise), into `out`.
    fn pose(&self, posers: &mut [Poser], anim: u32, time: f32, out: &mut [Mat4]) {
        let Some(a) = self.anims.get(anim as usize) else {
            return;
        };
        let t = if a.looping && a.duration > 0.0 {
            time.rem_euclid(a.duration)
        } else {
            time.clamp(0.0, a.duration)
        };
        let ch = &self.characters[a.character];
        let poser = &mut posers[a.character];
        let skin = match &a.source {
            Origin::Clip { clip } => poser.clip(&ch.model, Some(*clip), t, Wrap::Clamp),
            Origin::State { state, params } => poser.state(ch, *state, params, t),
        };
        for (o, m) in out.iter_mut().zip(skin) {
            *o = match a.turns {
                0 => *m,
                k => Mat4::from_cols_array(&turn_matrix(m.to_cols_array(), k)),
            };
        }
    }

    /// Evaluates every agent of `visible` (by slot) in parallel: its animation A, and B
    /// cross-faded in by its fade weight, into `rows` (three texels per matrix, `stride()`
    /// matrices per visible agent, in order); and points each agent's record in `records`
    /// at its matrices (no frame interpolation, no fade: the matrices are final).
    pub fn evaluate(
        &self,
        agents: &[Agent],
        visible: &[u32],
        records: &mut [InstanceRecord],
        rows_out: &mut Vec<[f32; 4]>,
    ) {
        let stride = self.stride;
        let texels = TEXELS_PER_MATRIX as usize;
        rows_out.resize(visible.len() * stride * texels, [0.0; 4]);
        rows_out
            .par_chunks_mut(stride * texels)
            .zip(visible.par_iter())
            .for_each(|(dst, &slot)| {
                let Some(agent) = agents.get(slot as usize) else {
                    return;
                };
                let index = rayon::current_thread_index().unwrap_or(self.posers.len() - 1);
                let Some(cell) = self.posers.get(index.min(self.posers.len() - 1)) else {
                    return;
                };
                let Ok(mut posers) = cell.lock() else {
                    return;
                };
                let mut a = [Mat4::IDENTITY; LIVE_STACK_JOINTS];
                let mut b = [Mat4::IDENTITY; LIVE_STACK_JOINTS];
                let n = stride.min(LIVE_STACK_JOINTS);
                self.pose(&mut posers, agent.anim_a, agent.time_a, &mut a[..n]);
                if agent.fade > 0.0 {
                    self.pose(&mut posers, agent.anim_b, agent.time_b, &mut b[..n]);
                    for j in 0..n {
                        a[j] = lerp(&a[j], &b[j], agent.fade);
                    }
                }
                for (j, m) in a[..n].iter().enumerate() {
                    dst[j * texels..(j + 1) * texels].copy_from_slice(&rows(m));
                }
            });
        for (k, &slot) in visible.iter().enumerate() {
            if let Some(r) = records.get_mut(slot as usize) {
                let base = (k * stride) as u32;
                r.frames = [base; 4];
                r.weights[1] = 0.0;
                r.weights[2] = 0.0;
                r.weights[3] = 0.0;
            }
        }
    }
}
