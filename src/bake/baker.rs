//! The baker: every selected clip and state of every character of a recipe, sampled frame by
//! frame through [`Poser`] (the evaluation `throng pose` uses), into a [`Builder`] with the
//! skeletons, events, root motion, per-frame bounds, LOD meshes and measured errors.
//!
//! Work is parallel over animations and frames (rayon). Progress is reported through a
//! callback so that the command line can draw a bar and tests stay quiet.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};
use rayon::prelude::*;
use sha2::{Digest, Sha256};

use super::error::BakeError;
use super::frames::FrameSchedule;
use super::measure::JointBoxes;
use super::recipe::{AUTO_RATES, PrecisionChoice, Rate, Recipe, Selection, Source};
use super::texels::{from_rows, lerp, rows, through_f16};
use crate::anim::Playback;
use crate::anim::graph::Node;
use crate::anim::state_machine::ParamKind;
use crate::character::{Character, Poser};
use crate::format::records::{
    AnimRecord, BoundsRecord, CharacterRecord, EventRecord, JointRecord, MeshRecord, MotionRecord,
    NONE, VertexRecord, anim_flags, anim_kind, mesh_flags,
};
use crate::format::{Builder, InputFile, TexelFormat};
use crate::import::{Images, ImportOptions, Model};
use crate::mesh::{LodOptions, SkinnedMesh};

/// The tool name and version stored in every file.
pub const TOOL: &str = concat!("throng ", env!("CARGO_PKG_VERSION"));

/// A clip whose last pose is within this fraction of the character's height of its first
/// (every point of the mesh) loops; otherwise it plays once. 1% is 18 mm on a 1.8 m character:
/// looping clips exported with a matching end key measure 0, one-shots (a fall, a jump) move
/// tens of percent.
pub const LOOP_TOLERANCE: f32 = 0.01;

/// Progress of a bake.
#[derive(Clone, Copy, Debug)]
pub enum Progress<'a> {
    /// A stage begins with `total` units of work.
    Stage(&'a str, u64),
    /// `n` more units are done.
    Advance(u64),
}

/// How to bake.
#[derive(Clone, Copy, Default)]
pub struct BakeOptions<'a> {
    /// Write f16 texels even when their error exceeds the budget.
    pub force: bool,
    /// Called as work progresses (from several threads).
    pub progress: Option<&'a (dyn Fn(Progress) + Sync)>,
}

/// What was baked for one animation.
#[derive(Clone, Debug, PartialEq)]
pub struct AnimReport {
    /// Clip or state name.
    pub name: String,
    /// `clip` or `state`.
    pub kind: &'static str,
    /// For a state baked at a parameter value: the parameter and value.
    pub param: Option<(String, f32)>,
    /// Duration, seconds.
    pub duration: f32,
    /// Frames.
    pub frames: u32,
    /// Frames per second.
    pub fps: f32,
    /// Whether the rate was chosen by `fps = "auto"`.
    pub auto_rate: bool,
    /// Whether it loops.
    pub looping: bool,
    /// Largest mid-frame interpolation error, model units (a bound; see `bake::measure`).
    pub interpolation_error: f32,
    /// Largest error f16 texels make, model units (a bound), whatever the precision chosen;
    /// `None` when the recipe asks for f32 (it is not measured).
    pub f16_error: Option<f32>,
    /// Events stored.
    pub events: usize,
    /// Whether root motion is stored.
    pub root_motion: bool,
    /// A note on something approximate (a state whose layers do not repeat with it).
    pub note: Option<String>,
}

/// What was baked for one character.
#[derive(Clone, Debug, PartialEq)]
pub struct CharacterReport {
    /// Name.
    pub name: String,
    /// Joints.
    pub joints: usize,
    /// Height in the rest pose, model units.
    pub height: f32,
    /// Triangles per LOD level (all parts).
    pub lod_triangles: Vec<usize>,
    /// Largest simplification error per LOD level, model units.
    pub lod_errors: Vec<f32>,
    /// Animations.
    pub anims: Vec<AnimReport>,
    /// Import warnings and notes.
    pub warnings: Vec<String>,
}

/// What a bake made.
#[derive(Clone, Debug, PartialEq)]
pub struct BakeReport {
    /// Characters.
    pub characters: Vec<CharacterReport>,
    /// Texel format written.
    pub format: TexelFormat,
    /// Why that format.
    pub format_reason: String,
    /// Texels written.
    pub texels: u64,
}

/// A finished bake, ready to write.
pub struct Baked {
    /// The file's contents.
    pub builder: Builder,
    /// What was baked.
    pub report: BakeReport,
}

/// A loaded character of the recipe.
struct Loaded {
    name: String,
    character: Option<Character>,
    model: Model,
    scale: Mat4,
    boxes: JointBoxes,
    height: f32,
}

impl Loaded {
    fn posed<'p>(&self, job: &Job, poser: &'p mut Poser, t: f32) -> &'p [Mat4] {
        match (&job.source, &self.character) {
            (JobSource::State { state, params }, Some(c)) => poser.state(c, *state, params, t),
            (JobSource::Clip(clip), _) => poser.clip(&self.model, Some(*clip), t, Playback::Clamp),
            // States exist only for characters.
            (JobSource::State { .. }, None) => poser.clip(&self.model, None, t, Playback::Clamp),
        }
    }

    /// Skinning matrices at `t`, with the recipe's scale applied, into `out`.
    fn pose_into(&self, job: &Job, poser: &mut Poser, t: f32, out: &mut [Mat4]) {
        let skin = self.posed(job, poser, t);
        if self.scale == Mat4::IDENTITY {
            out.copy_from_slice(skin);
        } else {
            for (o, m) in out.iter_mut().zip(skin) {
                *o = self.scale * *m;
            }
        }
    }
}

#[derive(Clone, Debug)]
enum JobSource {
    Clip(usize),
    State { state: usize, params: Vec<f32> },
}

/// One animation to bake.
#[derive(Clone, Debug)]
struct Job {
    character: usize,
    name: String,
    source: JobSource,
    param: Option<(String, f32)>,
    duration: f32,
    looping: bool,
    rate: Rate,
    note: Option<String>,
}

/// A baked animation before it goes into the file.
struct Done {
    sampled: Sampled,
    motion: Option<(Vec<MotionRecord>, [f32; 3])>,
    events: Vec<(String, f32)>,
}

fn report(options: &BakeOptions, p: Progress) {
    if let Some(f) = options.progress {
        f(p);
    }
}

fn character_err(name: &str, what: String) -> BakeError {
    BakeError::Character {
        character: name.to_string(),
        what,
    }
}

fn load(spec: &super::recipe::CharacterSpec) -> Result<Loaded, BakeError> {
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

fn pick(
    sel: &Selection,
    all: &[String],
    what: &str,
    character: &str,
) -> Result<Vec<usize>, BakeError> {
    match sel {
        Selection::All => Ok((0..all.len()).collect()),
        Selection::Named(names) => names
            .iter()
            .map(|n| {
                all.iter().position(|a| a == n).ok_or_else(|| {
                    character_err(
                        character,
                        format!(
                            "no {what} '{n}'; {what}s are: {}",
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
/// root cycles (up to 16) after which its layered and additive clocks also complete whole
/// cycles, so that the baked loop has no seam.
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
    for k in 1..=16 {
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
            "its layers run on clocks ({}) that do not repeat within 16 cycles of its {root:.3} s; baked over one cycle, the layers jump at the loop",
            clocks
                .iter()
                .map(|(c, _)| format!("{c:.3} s"))
                .collect::<Vec<_>>()
                .join(", ")
        )),
    )
}

fn jobs_for(
    ci: usize,
    spec: &super::recipe::CharacterSpec,
    l: &Loaded,
) -> Result<Vec<Job>, BakeError> {
    let name = &spec.name;
    let clip_names: Vec<String> = l.model.clips.iter().map(|c| c.name().to_string()).collect();
    let mut jobs = Vec::new();
    let mut known: BTreeSet<String> = BTreeSet::new();
    let rate_of = |n: &str| spec.rates.get(n).copied().unwrap_or(spec.fps);
    for (list, what) in [(&spec.once, "once"), (&spec.looping, "loop")] {
        if let Some(unknown) = list.iter().find(|o| !clip_names.contains(o)) {
            return Err(character_err(
                name,
                format!(
                    "{what}: no clip is called '{unknown}'; clips are: {}",
                    clip_names.join(", ")
                ),
            ));
        }
    }
    let mut poser = Poser::new(&l.model);
    for c in pick(&spec.clips, &clip_names, "clip", name)? {
        let clip = &l.model.clips[c];
        known.insert(clip.name().to_string());
        let looping = if spec.once.iter().any(|o| o == clip.name()) {
            false
        } else if spec.looping.iter().any(|o| o == clip.name()) {
            true
        } else {
            // A clip loops when it ends in the pose it starts with.
            let first = poser.clip(&l.model, Some(c), 0.0, Playback::Clamp).to_vec();
            let last = poser.clip(&l.model, Some(c), clip.duration(), Playback::Clamp);
            l.boxes.error(&first, last) <= LOOP_TOLERANCE * l.height
        };
        jobs.push(Job {
            character: ci,
            name: clip.name().to_string(),
            source: JobSource::Clip(c),
            param: None,
            duration: clip.duration(),
            looping,
            rate: rate_of(clip.name()),
            note: None,
        });
    }
    if let Some(ch) = &l.character {
        let machine = &ch.machine;
        let state_names: Vec<String> = machine.states().iter().map(|s| s.name.clone()).collect();
        for k in spec.params.keys() {
            match machine.param(k) {
                Some(p) if machine.params()[p].kind == ParamKind::Float => {}
                _ => {
                    return Err(character_err(
                        name,
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
        for s in pick(&spec.states, &state_names, "state", name)? {
            let state = &machine.states()[s];
            known.insert(state.name.clone());
            let defaults: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
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
                return Err(character_err(
                    name,
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
            let variants: Vec<Option<(usize, f32)>> = match axes.first() {
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
            };
            for v in variants {
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
                    rate: rate_of(&state.name),
                    note,
                });
            }
        }
    }
    if let Some(unknown) = spec.rates.keys().find(|k| !known.contains(*k)) {
        return Err(character_err(
            name,
            format!("rates.{unknown}: no baked clip or state is called '{unknown}'"),
        ));
    }
    Ok(jobs)
}

/// One animation sampled: texels and the measures taken frame by frame.
struct Sampled {
    schedule: FrameSchedule,
    /// Three texels (matrix rows) per joint per frame, frame-major: the texture's layout.
    texels: Vec<[f32; 4]>,
    bounds: Vec<BoundsRecord>,
    f16_error: f32,
    interpolation_error: f32,
}

/// The matrix of joint `j` of frame `f` in `texels` with `n` joints per frame.
#[inline]
fn matrix_at(texels: &[[f32; 4]], n: usize, f: usize, j: usize) -> Mat4 {
    let k = (f * n + j) * 3;
    from_rows(&[texels[k], texels[k + 1], texels[k + 2]])
}

/// Samples `job` at `schedule`'s frames into texels, with each frame's bounds and f16 error,
/// then measures the interpolation error at the mid-frames. Parallel over frames.
fn sample(l: &Loaded, job: &Job, schedule: FrameSchedule, f16: bool) -> Sampled {
    let n = l.model.skeleton.len();
    let count = schedule.count as usize;
    let mut texels = vec![[0.0f32; 4]; n * 3 * count];
    let mut bounds = vec![BoundsRecord::default(); count];
    let scratch = || {
        (
            Poser::new(&l.model),
            vec![Mat4::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
        )
    };
    let f16_error = texels
        .par_chunks_mut(n * 3)
        .zip(bounds.par_iter_mut())
        .enumerate()
        .map_init(scratch, |(poser, frame, packed), (i, (out, b))| {
            l.pose_into(job, poser, schedule.time(i as u32), frame);
            for (o, m) in out.chunks_exact_mut(3).zip(frame.iter()) {
                o.copy_from_slice(&rows(m));
            }
            let (lo, hi) = l.boxes.bounds(frame);
            *b = BoundsRecord {
                min: lo.to_array(),
                max: hi.to_array(),
            };
            if !f16 {
                return 0.0;
            }
            for (p, m) in packed.iter_mut().zip(frame.iter()) {
                *p = through_f16(m);
            }
            l.boxes.error(frame, packed)
        })
        .reduce(|| 0.0, f32::max);
    let intervals = if schedule.looping { count } else { count - 1 };
    let interpolation_error = if intervals == 0 || schedule.step() <= 0.0 {
        0.0
    } else {
        (0..intervals)
            .into_par_iter()
            .map_init(scratch, |(poser, exact, mid), i| {
                let t = schedule.time(i as u32) + schedule.step() * 0.5;
                l.pose_into(job, poser, t, exact);
                for (j, m) in mid.iter_mut().enumerate() {
                    let (a, b) = (
                        matrix_at(&texels, n, i, j),
                        matrix_at(&texels, n, (i + 1) % count, j),
                    );
                    *m = lerp(&a, &b, 0.5);
                }
                l.boxes.error(exact, mid)
            })
            .reduce(|| 0.0, f32::max)
    };
    Sampled {
        schedule,
        texels,
        bounds,
        f16_error,
        interpolation_error,
    }
}

/// Samples an `auto` job at the lowest of [`AUTO_RATES`] within the budget (the highest if
/// none is).
fn sample_auto(l: &Loaded, job: &Job, budget: f32, f16: bool) -> Result<Sampled, BakeError> {
    let mut last: Option<Sampled> = None;
    for fps in AUTO_RATES {
        let s = FrameSchedule::new(&job.name, job.duration, fps, job.looping)?;
        if last.as_ref().is_some_and(|l| l.schedule.count == s.count) {
            continue;
        }
        let sampled = sample(l, job, s, f16);
        let fits = sampled.interpolation_error <= budget * l.height;
        last = Some(sampled);
        if fits {
            break;
        }
    }
    match last {
        Some(s) => Ok(s),
        None => Ok(sample(
            l,
            job,
            FrameSchedule::new(&job.name, job.duration, 1.0, job.looping)?,
            f16,
        )),
    }
}

/// Root motion per frame and over the whole cycle.
fn root_motion(
    l: &Loaded,
    job: &Job,
    schedule: &FrameSchedule,
) -> Option<(Vec<MotionRecord>, [f32; 3])> {
    let ch = l.character.as_ref()?;
    let (sx, sz) = (l.scale.x_axis.x, l.scale.z_axis.z);
    let rec = |p: Vec2, yaw: f32| MotionRecord {
        x: p.x * sx,
        z: p.y * sz,
        yaw,
    };
    match &job.source {
        JobSource::Clip(c) => {
            let track = ch.motion.get(*c)?.as_ref()?;
            let frames = (0..schedule.count)
                .map(|i| {
                    let (p, y) = track.at(schedule.time(i));
                    rec(p, y)
                })
                .collect();
            let (p, y) = track.cycle();
            let r = rec(p, y);
            Some((frames, [r.x, r.z, r.yaw]))
        }
        JobSource::State { state, params } => {
            let tree = &ch.machine.states()[*state].tree;
            let mut st = tree.new_state();
            let mut moves = false;
            tree.advance(&ch.model.clips, &[], &mut st, params, 0.0, |_| {});
            for (node, n) in tree.nodes().iter().enumerate() {
                if let Node::Clip { clip, .. } = n
                    && tree.node_weights(&st)[node] > 0.0
                    && ch.motion.get(*clip).is_some_and(Option::is_some)
                {
                    moves = true;
                }
            }
            if !moves {
                return None;
            }
            tree.reset(&mut st);
            let (mut pos, mut yaw) = (Vec3::ZERO, 0.0f32);
            let mut frames = Vec::with_capacity(schedule.count as usize);
            let mut t = 0.0;
            let mut step = |to: f32, st: &mut crate::anim::graph::TreeState| {
                tree.advance(&ch.model.clips, &[], st, params, to - t, |_| {});
                t = to;
                let (m, y) = tree.motion(&ch.model.clips, &ch.motion, st);
                pos += Quat::from_rotation_y(yaw) * Vec3::new(m.x, 0.0, m.y);
                yaw += y;
                rec(Vec2::new(pos.x, pos.z), yaw)
            };
            frames.push(rec(Vec2::ZERO, 0.0));
            for i in 1..schedule.count {
                let r = step(schedule.time(i), &mut st);
                frames.push(r);
            }
            let end = step(schedule.duration, &mut st);
            Some((frames, [end.x, end.z, end.yaw]))
        }
    }
}

/// A marker at the end of a looping animation is stored at its start, where the loop puts it.
fn loop_point(job: &Job, t: f32) -> f32 {
    if job.looping && t >= job.duration * (1.0 - 1e-6) {
        0.0
    } else {
        t
    }
}

/// Event markers of a job, as (name, time in the animation).
fn events(l: &Loaded, job: &Job) -> Vec<(String, f32)> {
    let Some(ch) = &l.character else {
        return Vec::new();
    };
    match &job.source {
        JobSource::Clip(c) => ch
            .events
            .get(*c)
            .map(|t| {
                t.events()
                    .iter()
                    .map(|e| {
                        (
                            e.name.clone(),
                            loop_point(job, e.time.clamp(0.0, job.duration)),
                        )
                    })
                    .collect()
            })
            .map(|mut v: Vec<(String, f32)>| {
                v.sort_by(|a, b| a.1.total_cmp(&b.1));
                v
            })
            .unwrap_or_default(),
        JobSource::State { state, params } => {
            let tree = &ch.machine.states()[*state].tree;
            // How often each marker fires playing the state from its start for `t` seconds:
            // the very code the runtime uses, so the baked times agree with it.
            let hits = |t: f32| {
                let mut st = tree.new_state();
                let mut seen: Vec<((usize, usize), u32)> = Vec::new();
                tree.advance(
                    &ch.model.clips,
                    &ch.events,
                    &mut st,
                    params,
                    t,
                    |h| match seen.iter_mut().find(|(k, _)| *k == (h.clip, h.event)) {
                        Some((_, n)) => *n += h.count,
                        None => seen.push(((h.clip, h.event), h.count)),
                    },
                );
                seen
            };
            let mut out = Vec::new();
            for ((clip, event), total) in hits(job.duration) {
                let count = |t: f32| {
                    hits(t)
                        .iter()
                        .find(|(k, _)| *k == (clip, event))
                        .map_or(0, |(_, n)| *n)
                };
                for k in 1..=total {
                    // The first time the k-th crossing has happened, by bisection.
                    let (mut lo, mut hi) = (0.0f32, job.duration);
                    for _ in 0..32 {
                        let mid = 0.5 * (lo + hi);
                        if count(mid) >= k {
                            hi = mid;
                        } else {
                            lo = mid;
                        }
                    }
                    // Bisection ends within 2^-32 of the period; microseconds are as exact
                    // as marker times are written, and give back 0.5 rather than 0.50000006.
                    let t = loop_point(job, ((f64::from(hi) * 1e6).round() / 1e6) as f32);
                    let name = ch.events[clip].events()[event].name.clone();
                    out.push((name, t));
                }
            }
            out.sort_by(|a, b| a.1.total_cmp(&b.1));
            out
        }
    }
}

fn bake_job(l: &Loaded, job: &Job, recipe: &Recipe) -> Result<Done, BakeError> {
    // The f16 error decides the precision; a recipe that asks for f32 does not need it.
    let f16 = recipe.precision != PrecisionChoice::F32;
    let sampled = match job.rate {
        Rate::Fixed(fps) => sample(
            l,
            job,
            FrameSchedule::new(&job.name, job.duration, fps, job.looping)?,
            f16,
        ),
        Rate::Auto => sample_auto(l, job, recipe.interpolation_budget, f16)?,
    };
    Ok(Done {
        motion: root_motion(l, job, &sampled.schedule),
        events: events(l, job),
        sampled,
    })
}

/// Hex SHA-256.
fn hex(d: impl AsRef<[u8]>) -> String {
    d.as_ref().iter().map(|b| format!("{b:02x}")).collect()
}

/// Every file a bake of `recipe` reads, with hashes, and the key that identifies the bake's
/// inputs: equal keys mean an identical output. `force` is part of the key (it decides whether
/// an over-budget f16 bake is written).
///
/// # Errors
/// [`BakeError::Input`] for a file that cannot be read.
pub fn inputs(recipe: &Recipe, force: bool) -> Result<(String, Vec<InputFile>), BakeError> {
    let mut files: Vec<PathBuf> = Vec::new();
    for c in &recipe.characters {
        match &c.source {
            Source::Model(m) => files.extend(crate::import::source_files(m)),
            Source::Character(f) => {
                files.push(f.clone());
                // The model the character file names (read without loading the character).
                let model = std::fs::read_to_string(f)
                    .ok()
                    .and_then(|t| t.parse::<toml::Table>().ok())
                    .and_then(|t| t.get("model")?.as_str().map(str::to_string));
                if let Some(m) = model {
                    let dir = f.parent().unwrap_or(Path::new("."));
                    files.extend(crate::import::source_files(&dir.join(m)));
                }
            }
        }
    }
    let mut key = Sha256::new();
    key.update(TOOL.as_bytes());
    key.update([0, u8::from(force)]);
    key.update(recipe.text.as_bytes());
    let mut out = Vec::new();
    for f in files {
        let bytes = std::fs::read(&f).map_err(|source| BakeError::Input {
            file: f.display().to_string(),
            source,
        })?;
        let h = Sha256::digest(&bytes);
        key.update(f.display().to_string().as_bytes());
        key.update(h);
        out.push(InputFile {
            path: f.display().to_string(),
            sha256: hex(h),
            bytes: bytes.len() as u64,
        });
    }
    Ok((hex(key.finalize()), out))
}

/// Bakes `recipe`.
///
/// # Errors
/// [`BakeError`] naming the character, clip, state or file at fault, or
/// [`BakeError::PrecisionBudget`] when f16 was asked for, exceeds the budget and is not forced.
pub fn bake(recipe: &Recipe, options: &BakeOptions) -> Result<Baked, BakeError> {
    let (input_key, input_files) = inputs(recipe, options.force)?;
    report(
        options,
        Progress::Stage("loading", recipe.characters.len() as u64),
    );
    let loaded: Vec<Loaded> = recipe
        .characters
        .iter()
        .map(|spec| {
            let l = load(spec);
            report(options, Progress::Advance(1));
            l
        })
        .collect::<Result<_, _>>()?;
    let mut jobs = Vec::new();
    for (ci, (spec, l)) in recipe.characters.iter().zip(&loaded).enumerate() {
        jobs.extend(jobs_for(ci, spec, l)?);
    }
    // Progress in frames; an auto rate counts as the default rate (its frames are not known
    // before its rate is chosen), so each animation advances the bar by its estimate.
    let estimates: Vec<u64> = jobs
        .iter()
        .map(|j| {
            let fps = match j.rate {
                Rate::Fixed(f) => f,
                Rate::Auto => super::recipe::DEFAULT_FPS,
            };
            FrameSchedule::new(&j.name, j.duration, fps, j.looping)
                .map_or(1, |s| u64::from(s.count))
        })
        .collect();
    report(
        options,
        Progress::Stage("sampling frames", estimates.iter().sum()),
    );
    let mut done: Vec<Done> = jobs
        .par_iter()
        .zip(&estimates)
        .map(|(j, estimate)| {
            let d = bake_job(&loaded[j.character], j, recipe);
            report(options, Progress::Advance(*estimate));
            d
        })
        .collect::<Result<_, _>>()?;

    // Precision: f16 where asked or where every animation fits the budget.
    let worst = jobs
        .iter()
        .zip(&done)
        .map(|(j, d)| (j, d.sampled.f16_error / loaded[j.character].height))
        .max_by(|a, b| a.1.total_cmp(&b.1));
    let fits = worst.is_none_or(|(_, f)| f <= recipe.precision_budget);
    // f16 tops out at 65504: larger values (a character far from its origin, in centimetres)
    // become infinite, which no budget or force can allow.
    let representable = worst.is_none_or(|(_, f)| f.is_finite());
    let (format, reason) = match recipe.precision {
        PrecisionChoice::F32 => (TexelFormat::Rgba32F, "f32 (asked for)".to_string()),
        PrecisionChoice::F16 if fits => (
            TexelFormat::Rgba16F,
            "f16 (asked for; within the budget)".to_string(),
        ),
        PrecisionChoice::F16 if options.force && representable => (
            TexelFormat::Rgba16F,
            "f16 (forced, over the budget)".to_string(),
        ),
        PrecisionChoice::F16 if !representable => {
            let (j, _) = worst.expect("not representable means there is a worst animation");
            return Err(character_err(
                &loaded[j.character].name,
                format!(
                    "'{}' has skinning matrix values beyond 65504, the largest f16; use precision = \"f32\"",
                    j.name
                ),
            ));
        }
        PrecisionChoice::F16 => {
            let (j, f) = worst.expect("over budget means there is a worst animation");
            return Err(BakeError::PrecisionBudget {
                character: loaded[j.character].name.clone(),
                anim: j.name.clone(),
                error: f * loaded[j.character].height,
                fraction: f * 100.0,
                budget: recipe.precision_budget * 100.0,
            });
        }
        PrecisionChoice::Auto if fits => (
            TexelFormat::Rgba16F,
            "f16 (auto: within the budget)".to_string(),
        ),
        PrecisionChoice::Auto => (
            TexelFormat::Rgba32F,
            format!(
                "f32 (auto: f16 would exceed the budget in '{}')",
                worst.map_or(String::new(), |(j, _)| j.name.clone())
            ),
        ),
    };

    report(options, Progress::Stage("meshes", loaded.len() as u64));
    let mut b = Builder::new(format);
    let mut reports = Vec::new();
    let mut lod_cache: Vec<(Source, Vec<Vec<crate::mesh::LodLevel>>)> = Vec::new();
    for (ci, l) in loaded.iter().enumerate() {
        let model = &l.model;
        let skeleton = &model.skeleton;
        let name = b.string(&l.name);
        let first_joint = b.joints.len() as u32;
        for j in 0..skeleton.len() {
            let jn = b.string(&skeleton.names()[j]);
            b.joints.push(JointRecord {
                name: jn,
                parent: skeleton.parent(j).map_or(-1, |p| p as i32),
                reserved: 0,
                inverse_bind: skeleton.inverse_bind()[j].to_cols_array(),
            });
        }
        // Anims.
        let first_anim = b.anims.len() as u32;
        let mut anim_reports = Vec::new();
        for (j, d) in jobs
            .iter()
            .zip(done.iter_mut())
            .filter(|(j, _)| j.character == ci)
        {
            let first_texel = b.push_texel_vec(std::mem::take(&mut d.sampled.texels));
            let ai = b.anims.len() as u32;
            let first_event = b.events.len() as u32;
            for (en, t) in &d.events {
                let en = b.string(en);
                b.events.push(EventRecord {
                    anim: ai,
                    name: en,
                    time: *t,
                });
            }
            let first_bounds = b.bounds.len() as u32;
            b.bounds.extend_from_slice(&d.sampled.bounds);
            let first_motion = b.motion.len() as u32;
            let mut cycle_motion = [0.0; 3];
            if let Some((m, c)) = &d.motion {
                b.motion.extend_from_slice(m);
                cycle_motion = *c;
            }
            let anim_name = b.string(&j.name);
            let (param, param_value) = match &j.param {
                Some((p, v)) => (b.string(p), *v),
                None => (b.string(""), 0.0),
            };
            let s = d.sampled.schedule;
            let intervals = if s.looping { s.count } else { s.count - 1 };
            // In f64, so that 30 frames over 1 s store 30 rather than 1 / (1 / 30).
            let fps = if s.duration > 0.0 && intervals > 0 {
                (f64::from(intervals) / f64::from(s.duration)) as f32
            } else {
                0.0
            };
            let precision_error = match format {
                TexelFormat::Rgba32F => 0.0,
                TexelFormat::Rgba16F => d.sampled.f16_error,
            };
            b.anims.push(AnimRecord {
                name: anim_name,
                character: ci as u32,
                kind: match j.source {
                    JobSource::Clip(_) => anim_kind::CLIP,
                    JobSource::State { .. } => anim_kind::STATE,
                },
                flags: if s.looping { anim_flags::LOOPING } else { 0 }
                    | if d.motion.is_some() {
                        anim_flags::ROOT_MOTION
                    } else {
                        0
                    },
                frame_count: s.count,
                first_texel,
                duration: s.duration,
                fps,
                param,
                param_value,
                first_event,
                event_count: d.events.len() as u32,
                first_motion: if d.motion.is_some() { first_motion } else { 0 },
                cycle_motion,
                first_bounds,
                interpolation_error: d.sampled.interpolation_error,
                precision_error,
                reserved: [0; 2],
            });
            anim_reports.push(AnimReport {
                name: j.name.clone(),
                kind: match j.source {
                    JobSource::Clip(_) => "clip",
                    JobSource::State { .. } => "state",
                },
                param: j.param.clone(),
                duration: s.duration,
                frames: s.count,
                fps,
                auto_rate: j.rate == Rate::Auto,
                looping: s.looping,
                interpolation_error: d.sampled.interpolation_error,
                f16_error: (recipe.precision != PrecisionChoice::F32)
                    .then_some(d.sampled.f16_error),
                events: d.events.len(),
                root_motion: d.motion.is_some(),
                note: j.note.clone(),
            });
        }
        // Meshes: LOD-major.
        let first_mesh = b.meshes.len() as u32;
        let lod_options = LodOptions {
            max_error: recipe.lod_max_error,
            // Parts that meet at open edges must not crack apart when simplified separately.
            lock_border: model.meshes.len() > 1,
        };
        // Characters made from the same file (variants in scale and tint) share their LODs.
        let source = &recipe.characters[ci].source;
        let levels = match lod_cache.iter().find(|(s, _)| s == source) {
            Some((_, levels)) => levels.clone(),
            None => {
                let mut levels = Vec::new();
                for part in &model.meshes {
                    levels.push(
                        crate::mesh::generate(&part.mesh, &recipe.lods, &lod_options).map_err(
                            |source| BakeError::Lod {
                                character: l.name.clone(),
                                mesh: part.mesh.name.clone(),
                                source,
                            },
                        )?,
                    );
                }
                lod_cache.push((source.clone(), levels.clone()));
                levels
            }
        };
        // Simplification errors are measured on the unscaled mesh; the recipe's scale
        // stretches them by at most its largest factor.
        let lod_scale = recipe.characters[ci].scale.max_element();
        let mut images: Vec<Option<u32>> = vec![None; model.materials.len()];
        let (mut lod_triangles, mut lod_errors) = (Vec::new(), Vec::new());
        for lod in 0..recipe.lods.len() {
            let (mut tris, mut err) = (0, 0.0f32);
            for (part, parts) in levels.iter().enumerate() {
                let level = &parts[lod];
                tris += level.mesh.triangle_count();
                err = err.max(level.error * lod_scale);
                let material = model.materials.get(level.mesh.material);
                let image = match material.and_then(|m| m.base_color_texture.as_ref()) {
                    Some(t) => *images[level.mesh.material]
                        .get_or_insert_with(|| b.push_image(t.width, t.height, &t.rgba)),
                    None => NONE,
                };
                let mesh_name = b.string(&model.meshes[part].mesh.name);
                let first_vertex = b.vertices.len() as u32;
                push_vertices(&mut b.vertices, &level.mesh);
                let first_index = b.indices.len() as u32;
                b.indices.extend_from_slice(&level.mesh.indices);
                b.meshes.push(MeshRecord {
                    name: mesh_name,
                    character: ci as u32,
                    part: part as u32,
                    lod: lod as u32,
                    flags: if level.mesh.rigid {
                        mesh_flags::RIGID
                    } else {
                        0
                    },
                    ratio: level.ratio,
                    error: level.error * lod_scale,
                    first_vertex,
                    vertex_count: level.mesh.vertex_count() as u32,
                    first_index,
                    index_count: level.mesh.indices.len() as u32,
                    base_color: material
                        .map_or(Vec4::ONE, |m| m.base_color_factor)
                        .to_array(),
                    image,
                    reserved: [0; 3],
                });
            }
            lod_triangles.push(tris);
            lod_errors.push(err);
        }
        b.characters.push(CharacterRecord {
            name,
            first_joint,
            joint_count: skeleton.len() as u32,
            first_anim,
            anim_count: b.anims.len() as u32 - first_anim,
            first_mesh,
            part_count: model.meshes.len() as u32,
            lod_count: if model.meshes.is_empty() {
                0
            } else {
                recipe.lods.len() as u32
            },
            height: l.height,
            reserved: [0; 2],
        });
        let mut warnings: Vec<String> =
            model.warnings.iter().chain(&model.notes).cloned().collect();
        warnings.extend(lod_shortfalls(&recipe.lods, &lod_triangles));
        reports.push(CharacterReport {
            name: l.name.clone(),
            joints: skeleton.len(),
            height: l.height,
            lod_triangles,
            lod_errors,
            anims: anim_reports,
            warnings,
        });
        report(options, Progress::Advance(1));
    }
    b.metadata = crate::format::Metadata {
        tool: TOOL.to_string(),
        input_key,
        recipe_path: recipe
            .path
            .as_ref()
            .map_or("-".to_string(), |p| p.display().to_string()),
        recipe: recipe.text.clone(),
        inputs: input_files,
        precision: reason.clone(),
        precision_budget: recipe.precision_budget,
        interpolation_budget: recipe.interpolation_budget,
    };
    let texels = b.texel_count();
    Ok(Baked {
        builder: b,
        report: BakeReport {
            characters: reports,
            format,
            format_reason: reason,
            texels,
        },
    })
}

/// A note for each LOD level that kept far more triangles than asked (half as many again):
/// the user should know that the level saves little.
fn lod_shortfalls(ratios: &[f32], triangles: &[usize]) -> Vec<String> {
    let full = triangles.first().copied().unwrap_or(0) as f32;
    ratios
        .iter()
        .zip(triangles)
        .enumerate()
        .skip(1)
        .filter(|(_, (r, t))| full > 0.0 && **t as f32 > **r * full * 1.5 + 3.0)
        .map(|(l, (r, t))| {
            format!(
                "LOD {l} asked for {r} of the triangles and kept {:.2}: the mesh does not simplify further (triangles that share no vertices, as in flat-shaded models, or lod_max_error reached)",
                *t as f32 / full
            )
        })
        .collect()
}

fn push_vertices(out: &mut Vec<VertexRecord>, mesh: &SkinnedMesh) {
    for i in 0..mesh.vertex_count() {
        out.push(VertexRecord {
            position: mesh.positions[i].to_array(),
            normal: mesh.normals[i].to_array(),
            uv: mesh.uvs.get(i).map_or([0.0; 2], |u| u.to_array()),
            joints: mesh.joints[i],
            weights: mesh.weights[i],
        });
    }
}
