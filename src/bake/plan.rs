//! What to bake and at which rates: the [`Job`]s of a recipe's character, one per selected clip
//! and one per selected state and parameter value, with each one's duration, whether it loops
//! (as the recipe says, or measured: a clip loops when it ends in the pose it starts with, once
//! the root's horizontal travel over the clip is taken out; a state over the period after which
//! all its clocks repeat) and its frame rate. A looping clip whose root drifts, with no root
//! motion extracted, has that drift removed from its frames ([`Drift`]), so the crowd sees no
//! snap back at the loop. Every name the recipe gives is checked against the character here.

use std::collections::BTreeSet;

use glam::{Mat4, Vec2, Vec3};

use super::error::BakeError;
use super::frames::FrameSchedule;
use super::load::Loaded;
use super::recipe::{CharacterSpec, DEFAULT_FPS, Rate, Selection};
use crate::anim::Wrap;
use crate::anim::graph::Node;
use crate::anim::state_machine::{ParamKind, StateMachine};
use crate::character::{Character, Poser};

/// A clip whose last pose is within this fraction of the character's height of its first
/// (every point of the mesh) loops; otherwise it plays once. 1% is 18 mm on a 1.8 m character:
/// looping clips exported with a matching end key measure 0, one-shots (a fall, a jump) move
/// tens of percent.
pub const LOOP_TOLERANCE: f32 = 0.01;

/// A clip whose seam is over [`LOOP_TOLERANCE`] still loops when no joint's seam is more than
/// this many frames of that joint's own mean motion per frame (at the clip's rate): the wrap
/// then moves each point no farther than a frame of its motion does, which nobody sees as a
/// pop (a cycle exported without a closing key has a seam of about one frame). A jump or a
/// fall ends many frames of motion away from its start.
pub const LOOP_FRAMES: f32 = 1.0;

/// The largest seam, as a fraction of the character's height, that [`LOOP_FRAMES`] may let
/// loop: 5% (9 cm on 1.8 m), past which a clip plays once however fast it moves: a seam that
/// large is a different pose, not a cut a little off its first key.
pub const LOOP_CAP: f32 = 0.05;

/// A looping clip's seam left over [`LOOP_TOLERANCE`] is spread over its last frames, at most
/// this many at its rate (and at most half the clip): each of them then moves an eighth of the
/// seam more or less than the clip does, under an eighth of a frame's motion when the seam is
/// at most [`LOOP_FRAMES`], instead of the whole seam at the wrap.
pub const SPREAD_FRAMES: f32 = 8.0;

/// Root drift under this fraction of the character's height over a clip is left in: 0.1% (1.8 mm
/// on 1.8 m) is a tenth of [`LOOP_TOLERANCE`], a seam nobody sees, and below the f16 budget.
pub const DRIFT_MIN: f32 = 0.001;

/// The most root cycles a state's period may span while waiting for its layered clocks to
/// complete whole cycles too: beyond it the baked loop would be long for little gain.
const MAX_PERIOD_CYCLES: u32 = 16;

/// What a job samples.
#[derive(Clone, Debug)]
pub(super) enum JobSource {
    /// Clip `.0` of the model.
    Clip(usize),
    /// A state of the character's machine at fixed parameter values.
    State { state: usize, params: Vec<f32> },
}

/// One animation to bake.
#[derive(Clone, Debug)]
pub(super) struct Job {
    /// Index of its character in the recipe.
    pub character: usize,
    /// Clip or state name.
    pub name: String,
    pub source: JobSource,
    /// For a state baked at a parameter value: the parameter and value.
    pub param: Option<(String, f32)>,
    /// Seconds.
    pub duration: f32,
    pub looping: bool,
    pub rate: Rate,
    /// Something approximate about it, for the report.
    pub note: Option<String>,
    /// For a clip: how far its last pose is from its first (every point of the mesh), with the
    /// root's drift taken out when that is what makes it loop, as a fraction of the height.
    pub seam: Option<f32>,
    /// For a clip whose seam is over [`LOOP_TOLERANCE`] and that the recipe does not call
    /// `once` or `loop`: the seam in frames of the clip's own motion ([`seam_in_frames`]).
    pub seam_frames: Option<f32>,
    /// For a looping clip whose seam is over [`LOOP_TOLERANCE`] (looping by [`LOOP_FRAMES`] or
    /// by the recipe's `loop`): its seam, spread over its last frames.
    pub spread: Option<Spread>,
    /// The root drift removed from its frames, if any.
    pub drift: Option<Drift>,
    /// The corrections that pin its planted feet, once its ground speed is measured (set by
    /// the baker's `lock` step; `None` until then, or when it has none).
    pub lock: Option<std::sync::Arc<super::lock::FootLock>>,
}

/// A looping clip's root drift: the hips' horizontal travel from the first frame to the last,
/// removed from the baked frames linearly in time (at `t` seconds, `travel × t / duration`
/// is taken from the hips and everything below them), which makes the loop seamless when the
/// cycle is seamless but for that travel. The travel is forward motion: the ground speed
/// measured on the frames then includes it.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Drift {
    /// Travel over the clip, (x, z), model units with the recipe's scale.
    pub travel: Vec2,
    /// The hips and their descendants, one flag per joint.
    pub joints: Vec<bool>,
}

impl Drift {
    /// Takes the drift at `t` seconds of a `duration`-second clip out of `skin` (one skinning
    /// matrix per joint, model space): a translation of the model-space transform, so only
    /// the translation column changes.
    pub fn remove(&self, t: f32, duration: f32, skin: &mut [Mat4]) {
        if duration <= 0.0 {
            return;
        }
        let d = self.travel * (t / duration);
        for (m, inside) in skin.iter_mut().zip(&self.joints) {
            if *inside {
                m.w_axis.x -= d.x;
                m.w_axis.z -= d.y;
            }
        }
    }
}

/// A looping clip's seam spread over its last `window` seconds: at `t` seconds of a
/// `duration`-second clip, `delta × w` is added to each skinning matrix, `w` rising linearly
/// from 0 at `duration − window` to 1 at `duration`, where the pose then is the first one.
/// The matrices' difference is blended element by element: for a seam under a frame's motion
/// the joints' rotations differ little, and the blend is near a rotation.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Spread {
    /// First pose minus last (drift removed), one per joint, model space with the scale.
    pub delta: Vec<Mat4>,
    /// Seconds at the end of the clip over which the seam is spread (> 0).
    pub window: f32,
}

impl Spread {
    /// Adds the share of the seam due at `t` seconds of a `duration`-second clip to `skin`.
    pub fn apply(&self, t: f32, duration: f32, skin: &mut [Mat4]) {
        let w = (t - (duration - self.window)) / self.window;
        if w.is_nan() || w <= 0.0 {
            return;
        }
        let w = w.min(1.0);
        for (m, d) in skin.iter_mut().zip(&self.delta) {
            *m += *d * w;
        }
    }
}

impl Job {
    /// Frames it will have, for progress: an auto rate counts as the default rate (its frames
    /// are not known before its rate is chosen); 1 when the schedule is refused (the bake then
    /// fails with the reason).
    pub fn estimated_frames(&self) -> u64 {
        let fps = match self.rate {
            Rate::Fixed(f) => f,
            Rate::Auto => DEFAULT_FPS,
        };
        FrameSchedule::new(&self.name, self.duration, fps, self.looping)
            .map_or(1, |s| u64::from(s.count))
    }
}

/// The indices of `all` (the `what`s of `spec`'s character) that `sel` selects; a name it
/// lacks is an error at the recipe's `{what}s` key.
fn pick(
    sel: &Selection,
    all: &[String],
    what: &str,
    spec: &CharacterSpec,
) -> Result<Vec<usize>, BakeError> {
    match sel {
        Selection::All => Ok((0..all.len()).collect()),
        Selection::Named(names) => names
            .iter()
            .map(|n| {
                all.iter().position(|a| a == n).ok_or_else(|| {
                    spec.error(
                        &format!("{what}s"),
                        format!(
                            "{what}s: no {what} '{n}'; {what}s are: {}",
                            if all.is_empty() {
                                "(none)".to_string()
                            } else {
                                all.join(", ")
                            }
                        ),
                    )
                })
            })
            .collect(),
    }
}

/// The period of a state at fixed parameters: its root cycle, or the smallest whole number of
/// root cycles (up to [`MAX_PERIOD_CYCLES`]) after which its layered and additive clocks also
/// complete whole cycles, so that the baked loop has no seam.
fn state_period(c: &Character, state: usize, params: &[f32]) -> (f32, bool, Option<String>) {
    let tree = &c.machine.states()[state].tree;
    let mut st = tree.new_state();
    tree.advance(&c.model.clips, &[], &mut st, params, 1.0, |_| {});
    let root = tree.root_cycle(&st);
    let looping = tree.looping();
    if root <= 0.0 {
        return (0.0, looping, None);
    }
    let clocks = tree.independent_clocks(&c.model.clips, &st);
    if !looping || clocks.is_empty() {
        return (root, looping, None);
    }
    for k in 1..=MAX_PERIOD_CYCLES {
        let period = root * k as f32;
        let whole = clocks.iter().all(|(cycle, l)| {
            let n = period / cycle;
            *l && n.round() >= 1.0 && (n - n.round()).abs() < 1e-3
        });
        if whole {
            return (period, looping, None);
        }
    }
    (
        root,
        looping,
        Some(format!(
            "its layers run on clocks ({}) that do not repeat within {MAX_PERIOD_CYCLES} cycles of its {root:.3} s; baked over one cycle, the layers jump at the loop",
            clocks
                .iter()
                .map(|(c, _)| format!("{c:.3} s"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    )
}

/// The jobs of character `ci` (`spec`, loaded as `l`): its clips, then its states.
///
/// # Errors
/// [`BakeError::Character`] for a clip, state or parameter the recipe names that the
/// character lacks, or a state that blends on more than one parameter.
pub(super) fn jobs_for(ci: usize, spec: &CharacterSpec, l: &Loaded) -> Result<Vec<Job>, BakeError> {
    let mut known: BTreeSet<String> = BTreeSet::new();
    let mut jobs = clip_jobs(ci, spec, l, &mut known)?;
    if let Some(ch) = &l.character {
        jobs.extend(state_jobs(ci, spec, ch, &mut known)?);
    }
    if let Some(unknown) = spec.rates.keys().find(|k| !known.contains(*k)) {
        return Err(spec.error(
            &format!("rates.{unknown}"),
            format!("rates.{unknown}: no baked clip or state is called '{unknown}'"),
        ));
    }
    Ok(jobs)
}

/// The frame rate of the clip or state `name`.
fn rate_of(spec: &CharacterSpec, name: &str) -> Rate {
    spec.rates.get(name).copied().unwrap_or(spec.fps)
}

/// The frames per second of the clip or state `name`, an auto rate counted as the default.
fn rate_fps(spec: &CharacterSpec, name: &str) -> f32 {
    match rate_of(spec, name) {
        Rate::Fixed(f) => f,
        Rate::Auto => DEFAULT_FPS,
    }
}

/// The selected clips, each added to `known`.
fn clip_jobs(
    ci: usize,
    spec: &CharacterSpec,
    l: &Loaded,
    known: &mut BTreeSet<String>,
) -> Result<Vec<Job>, BakeError> {
    let clip_names: Vec<String> = l.model.clips.iter().map(|c| c.name().to_string()).collect();
    for (list, what) in [(&spec.once, "once"), (&spec.looping, "loop")] {
        if let Some(unknown) = list.iter().find(|o| !clip_names.contains(o)) {
            return Err(spec.error(
                &format!("{what}.{unknown}"),
                format!(
                    "{what}: no clip is called '{unknown}'; clips are: {}",
                    clip_names.join(", ")
                ),
            ));
        }
    }
    let mut jobs = Vec::new();
    let mut poser = Poser::new(&l.model);
    let hips = crate::anim::gait::hips(&l.model.skeleton);
    let hips_bind = l.model.skeleton.inverse_bind()[hips]
        .inverse()
        .transform_point3(Vec3::ZERO);
    let subtree = l.model.skeleton.subtree(hips);
    for c in pick(&spec.clips, &clip_names, "clip", spec)? {
        let clip = &l.model.clips[c];
        known.insert(clip.name().to_string());
        let ends = |poser: &mut Poser, t: f32| -> Vec<Mat4> {
            poser
                .clip(&l.model, Some(c), t, Wrap::Clamp)
                .iter()
                .map(|m| l.scale * *m)
                .collect()
        };
        let first = ends(&mut poser, 0.0);
        let mut last = ends(&mut poser, clip.duration());
        let raw = l.boxes.error(&first, &last);
        // The hips' horizontal travel over the clip; a character that extracts root motion
        // has made the clip in place already.
        let moved = (last[hips] - first[hips]).transform_point3(hips_bind);
        let extracted = l
            .character
            .as_ref()
            .is_some_and(|ch| ch.motion.get(c).is_some_and(Option::is_some));
        let mut drift = (!extracted && Vec2::new(moved.x, moved.z).length() > DRIFT_MIN * l.height)
            .then(|| Drift {
                travel: Vec2::new(moved.x, moved.z),
                joints: subtree.clone(),
            });
        let mut seam = raw;
        if let Some(d) = &drift {
            d.remove(clip.duration(), clip.duration(), &mut last);
            let removed = l.boxes.error(&first, &last);
            if removed < raw {
                seam = removed;
            } else {
                drift = None;
            }
        }
        let once = spec.once.iter().any(|o| o == clip.name());
        let forced = once || spec.looping.iter().any(|o| o == clip.name());
        // A clip loops when it ends in the pose it starts with (its drift aside), or close
        // enough next to its own motion; the motion is measured only when that decides.
        let seam_frames = (!forced && seam > LOOP_TOLERANCE * l.height).then(|| {
            let fps = rate_fps(spec, clip.name());
            let mut at = |t: f32| {
                let mut m = ends(&mut poser, t);
                if let Some(d) = &drift {
                    d.remove(t, clip.duration(), &mut m);
                }
                m
            };
            seam_in_frames(l, &mut at, clip.duration(), fps, &first, &last)
        });
        let looping = if forced {
            !once
        } else {
            seam_frames.is_none_or(|f| f <= LOOP_FRAMES && seam <= LOOP_CAP * l.height)
        };
        jobs.push(Job {
            character: ci,
            name: clip.name().to_string(),
            source: JobSource::Clip(c),
            param: None,
            duration: clip.duration(),
            looping,
            rate: rate_of(spec, clip.name()),
            note: None,
            seam: Some(seam / l.height),
            seam_frames,
            // A seam left in a loop, by its motion or forced by the recipe, is spread.
            spread: (looping && seam > LOOP_TOLERANCE * l.height).then(|| Spread {
                delta: first.iter().zip(&last).map(|(a, b)| *a - *b).collect(),
                window: (SPREAD_FRAMES / rate_fps(spec, clip.name())).min(clip.duration() * 0.5),
            }),
            // A clip played once keeps its travel.
            drift: drift.filter(|_| looping),
            lock: None,
        });
    }
    Ok(jobs)
}

/// The seam between `first` and `last` (a clip's poses at its ends, one skinning matrix per
/// joint) in frames of its own motion: the largest, over the joints whose seam is over
/// [`LOOP_TOLERANCE`] of the height (a smaller one needs no motion to hide it), of the
/// joint's seam over its mean motion per frame, sampling `at` (the clip's poses at `t`
/// seconds) at `fps` over the `duration`-second clip. Infinite for such a joint that does not
/// move. Each is measured as [`super::measure::JointBoxes::error`] measures: the farthest
/// point of the joint's box.
fn seam_in_frames(
    l: &Loaded,
    at: &mut dyn FnMut(f32) -> Vec<Mat4>,
    duration: f32,
    fps: f32,
    first: &[Mat4],
    last: &[Mat4],
) -> f32 {
    let visible = LOOP_TOLERANCE * l.height;
    let seams: Vec<(usize, f32)> = l
        .boxes
        .joint_errors(first, last)
        .into_iter()
        .filter(|(_, s)| *s > visible)
        .collect();
    if seams.is_empty() {
        return 0.0;
    }
    // Whole intervals over the clip, each as close to a frame at `fps` as the duration allows;
    // the motion over one is scaled to one frame's.
    let steps = (duration * fps).round().max(1.0);
    let per_frame = steps / (duration * fps).max(f32::MIN_POSITIVE);
    let mut moved = vec![0.0f32; first.len()];
    let mut prev = first.to_vec();
    for k in 1..=steps as u32 {
        let next = at(duration * k as f32 / steps);
        for (j, d) in l.boxes.joint_errors(&prev, &next) {
            moved[j] += d;
        }
        prev = next;
    }
    seams
        .iter()
        .map(|(j, s)| {
            let motion = moved[*j] / steps * per_frame;
            if motion > 0.0 {
                s / motion
            } else {
                f32::INFINITY
            }
        })
        .fold(0.0, f32::max)
}

/// Every parameter the recipe gives values for is a float parameter of `machine`.
fn check_params(spec: &CharacterSpec, machine: &StateMachine) -> Result<(), BakeError> {
    for k in spec.params.keys() {
        match machine.param(k) {
            Some(p) if machine.params()[p].kind == ParamKind::Float => {}
            _ => {
                return Err(spec.error(
                    &format!("params.{k}"),
                    format!(
                        "params.{k}: the character has no float parameter '{k}'; float parameters are: {}",
                        machine
                            .params()
                            .iter()
                            .filter(|p| p.kind == ParamKind::Float)
                            .map(|p| p.name.as_str())
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The selected states of `ch`, one job per parameter value, each added to `known`.
fn state_jobs(
    ci: usize,
    spec: &CharacterSpec,
    ch: &Character,
    known: &mut BTreeSet<String>,
) -> Result<Vec<Job>, BakeError> {
    let machine = &ch.machine;
    let state_names: Vec<String> = machine.states().iter().map(|s| s.name.clone()).collect();
    check_params(spec, machine)?;
    let mut jobs = Vec::new();
    for s in pick(&spec.states, &state_names, "state", spec)? {
        let state = &machine.states()[s];
        known.insert(state.name.clone());
        let defaults: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
        for v in state_variants(spec, machine, s)? {
            let mut params = defaults.clone();
            if let Some((p, value)) = v {
                params[p] = value;
            }
            let (duration, looping, note) = state_period(ch, s, &params);
            jobs.push(Job {
                character: ci,
                name: state.name.clone(),
                param: v.map(|(p, value)| (machine.params()[p].name.clone(), value)),
                source: JobSource::State { state: s, params },
                duration,
                looping,
                rate: rate_of(spec, &state.name),
                note,
                seam: None,
                seam_frames: None,
                spread: None,
                drift: None,
                lock: None,
            });
        }
    }
    Ok(jobs)
}

/// The parameter values state `s` is baked at: `None` once for a state that reads no
/// parameter; for one that blends on a parameter, (parameter, value) at each value the recipe
/// gives for it, or else at its Blend1D nodes' positions, sorted and without repeats.
fn state_variants(
    spec: &CharacterSpec,
    machine: &StateMachine,
    s: usize,
) -> Result<Vec<Option<(usize, f32)>>, BakeError> {
    let state = &machine.states()[s];
    // The parameters its Blend1D nodes read, with their positions.
    let mut axes: Vec<(usize, Vec<f32>)> = Vec::new();
    for n in state.tree.nodes() {
        if let Node::Blend1D {
            param, positions, ..
        } = n
        {
            match axes.iter_mut().find(|(p, _)| p == param) {
                Some((_, v)) => v.extend(positions),
                None => axes.push((*param, positions.clone())),
            }
        }
    }
    if axes.len() > 1 {
        return Err(spec.error(
            "states",
            format!(
                "state '{}' blends on {} parameters ({}); throng bakes states along one parameter",
                state.name,
                axes.len(),
                axes.iter()
                    .map(|(p, _)| machine.params()[*p].name.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        ));
    }
    Ok(match axes.first() {
        None => vec![None],
        Some((p, positions)) => {
            let pname = &machine.params()[*p].name;
            let mut values = spec
                .params
                .get(pname)
                .cloned()
                .unwrap_or_else(|| positions.clone());
            values.sort_by(f32::total_cmp);
            values.dedup();
            values.into_iter().map(|v| Some((*p, v))).collect()
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_spread_seam_rises_over_its_window_to_the_first_pose() {
        // A 1 s clip whose last pose is 0.3 along x from its first; spread over 0.25 s.
        let first = Mat4::IDENTITY;
        let last = Mat4::from_translation(Vec3::new(0.3, 0.0, 0.0));
        let spread = Spread {
            delta: vec![first - last],
            window: 0.25,
        };
        let at = |t: f32| {
            let mut m = [last];
            spread.apply(t, 1.0, &mut m);
            m[0].w_axis.x - last.w_axis.x
        };
        // Untouched before the window, half the seam taken out halfway, all of it at the end.
        assert_eq!(at(0.5), 0.0);
        assert_eq!(at(0.75), 0.0);
        assert!((at(0.875) + 0.15).abs() < 1e-6, "{}", at(0.875));
        assert!((at(1.0) + 0.3).abs() < 1e-6, "{}", at(1.0));
    }
}
