//! Sampling one animation, in two steps:
//!
//! - [`pose`]: the poses at the frames and mid-frames of a [`FrameSchedule`] through [`Poser`]
//!   (the evaluation `throng pose` uses), as the character's file gives them: before the
//!   recipe's scale. Parallel over frames (rayon). Every character of a recipe made from one
//!   source file (variants in size and tint, [`Loaded::poses`]) poses alike, so a
//!   [`PoseCache`] evaluates each of its animations once for all of them, and a cycle's
//!   second sampling with its feet locked reads its first sampling's poses again;
//! - [`finish`]: those poses scaled as the recipe says, with a clip's root drift taken out when
//!   the plan removes it (so texels, bounds and errors all see the seamless loop) and a cycle's
//!   foot locks (`lock`, in its second sampling), packed into texels ([`super::texels`]), with
//!   each frame's bounds and f16 error and the interpolation error at the mid-frames
//!   ([`super::measure`]).
//!
//! For `fps = "auto"`, the lowest rate within the interpolation budget. The two steps do what
//! one evaluation per frame did, in the same order, so a bake's bytes do not depend on what
//! was shared.

use std::sync::Arc;

use glam::{Mat4, Vec4};
use rayon::prelude::*;

use super::error::BakeError;
use super::frames::FrameSchedule;
use super::load::Loaded;
use super::plan::{Job, JobSource};
use super::recipe::{AUTO_RATES, PrecisionChoice, Rate, Recipe};
use super::texels::{from_rows, lerp, rows, through_f16};
use crate::anim::Wrap;
use crate::character::Poser;
use crate::format::TEXELS_PER_MATRIX;
use crate::format::records::BoundsRecord;

/// [`TEXELS_PER_MATRIX`] as an index.
const ROWS: usize = TEXELS_PER_MATRIX as usize;

/// One animation sampled: texels and the measures taken frame by frame.
pub(super) struct Sampled {
    pub schedule: FrameSchedule,
    /// [`TEXELS_PER_MATRIX`] texels (matrix rows) per joint per frame, frame-major: the
    /// texture's layout. Only the feet's joints when [`Sampled::feet_only`].
    pub texels: Vec<[f32; 4]>,
    /// Bounds of the skinned mesh per frame.
    pub bounds: Vec<BoundsRecord>,
    /// Largest error f16 texels make, model units (0 when not measured).
    pub f16_error: f32,
    /// Largest mid-frame interpolation error, model units.
    pub interpolation_error: f32,
    /// The poses it was made from, kept while the baker may sample it again (its feet locked);
    /// `None` once it will not.
    pub poses: Option<Arc<Poses>>,
    /// Whether this is a first sampling of feet alone ([`sample_feet`]): `texels` hold the
    /// matrices of the joints it was given, in that order, and there are no bounds or errors
    /// yet ([`complete`] makes them).
    pub feet_only: bool,
}

/// The skinning matrices of one animation source at the frames and mid-frames of a schedule,
/// as [`Poser`] gives them: model space, before the recipe's scale, a clip's drift removal and
/// a cycle's foot locks.
pub(super) struct Poses {
    schedule: FrameSchedule,
    /// Joints per pose.
    joints: usize,
    /// One pose per frame, frame-major.
    frames: Vec<Mat4>,
    /// One pose per interval, at its middle ([`mid_time`]); empty when the schedule has no
    /// interval to measure.
    mids: Vec<Mat4>,
}

/// The poses a group of jobs that pose alike (the same [`PoseKey`]) have needed so far, by
/// schedule: each evaluated once for the group.
pub(super) struct PoseCache {
    kept: Vec<Arc<Poses>>,
    /// Whether other jobs will ask (a group of one keeps nothing: an `auto` rate's tries
    /// would only hold memory).
    keep: bool,
}

impl PoseCache {
    /// An empty cache for a group of `jobs` jobs.
    pub fn new(jobs: usize) -> Self {
        Self {
            kept: Vec::new(),
            keep: jobs > 1,
        }
    }

    /// The poses of `job` of `l` at `schedule`: evaluated now unless the group has them.
    fn get(&mut self, l: &Loaded, job: &Job, schedule: FrameSchedule) -> Arc<Poses> {
        if let Some(p) = self.kept.iter().find(|p| p.schedule == schedule) {
            return Arc::clone(p);
        }
        let p = Arc::new(pose(l, job, schedule));
        if self.keep {
            self.kept.push(Arc::clone(&p));
        }
        p
    }
}

/// What makes jobs pose alike: their source ([`Loaded::poses`]) and their clip, or their state
/// and its parameter values, to the bit.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) struct PoseKey {
    poses: usize,
    clip: Option<usize>,
    state: Option<(usize, Vec<u32>)>,
}

/// The [`PoseKey`] of `job` of `l`.
pub(super) fn pose_key(l: &Loaded, job: &Job) -> PoseKey {
    let (clip, state) = match &job.source {
        JobSource::Clip(c) => (Some(*c), None),
        JobSource::State { state, params } => (
            None,
            Some((*state, params.iter().map(|p| p.to_bits()).collect())),
        ),
    };
    PoseKey {
        poses: l.poses,
        clip,
        state,
    }
}

/// Samples `job` of `l` again at the frames of `schedule` (those of its first sampling), as the
/// recipe's precision asks: for a job whose corrections changed since (its feet locked). It
/// reads the first sampling's `poses` when they were kept, else evaluates them again.
pub(super) fn resample(
    l: &Loaded,
    job: &Job,
    schedule: FrameSchedule,
    poses: Option<&Poses>,
    recipe: &Recipe,
) -> Sampled {
    let f16 = recipe.precision != PrecisionChoice::F32;
    match poses {
        Some(p) if p.schedule == schedule => finish(l, job, p, f16),
        _ => finish(l, job, &pose(l, job, schedule), f16),
    }
}

/// Samples `job` of `l` at the rate it asks for, with the poses of `cache` (which belongs to
/// the group of jobs that pose as it does); the f16 error is measured unless the recipe asks
/// for f32 (then it decides nothing). The result keeps its poses.
///
/// # Errors
/// [`BakeError::BadSchedule`] for a rate or duration that cannot be baked.
pub(super) fn sample_job(
    l: &Loaded,
    job: &Job,
    recipe: &Recipe,
    cache: &mut PoseCache,
) -> Result<Sampled, BakeError> {
    let f16 = recipe.precision != PrecisionChoice::F32;
    let mut sample = |schedule| {
        let poses = cache.get(l, job, schedule);
        let mut s = finish(l, job, &poses, f16);
        s.poses = Some(poses);
        s
    };
    Ok(match job.rate {
        Rate::Fixed(fps) => sample(FrameSchedule::new(
            &job.name,
            job.duration,
            fps,
            job.looping,
        )?),
        Rate::Auto => {
            let budget = recipe.interpolation_budget * l.height;
            let mut last: Option<Sampled> = None;
            for fps in AUTO_RATES {
                let s = FrameSchedule::new(&job.name, job.duration, fps, job.looping)?;
                if last.as_ref().is_some_and(|t| t.schedule.count == s.count) {
                    continue;
                }
                let sampled = sample(s);
                let fits = sampled.interpolation_error <= budget;
                last = Some(sampled);
                if fits {
                    break;
                }
            }
            match last {
                Some(s) => s,
                None => sample(FrameSchedule::new(
                    &job.name,
                    job.duration,
                    1.0,
                    job.looping,
                )?),
            }
        }
    })
}

/// The first sampling of `job` of `l`, at its fixed rate `schedule`, of a cycle whose feet the
/// baker means to lock: only the matrices of the joints `feet` (its feet, in that order), which
/// are all that the ground-speed measure and the lock read, with the poses of `cache` (kept).
/// A locked cycle is sampled again with its locks, and only that sampling is baked; one that
/// is not locked after all is [`complete`]d, to the same bits as [`sample_job`] would have
/// made (an `auto` rate needs its errors to choose, so it is never sampled this way).
pub(super) fn sample_feet(
    l: &Loaded,
    job: &Job,
    cache: &mut PoseCache,
    feet: &[usize],
    schedule: FrameSchedule,
) -> Sampled {
    let poses = cache.get(l, job, schedule);
    let n = poses.joints;
    let mut texels = vec![[0.0f32; 4]; feet.len() * ROWS * schedule.count as usize];
    texels
        .par_chunks_mut((feet.len() * ROWS).max(1))
        .zip(poses.frames.par_chunks(n.max(1)))
        .enumerate()
        .for_each_init(
            || vec![Mat4::IDENTITY; n],
            |frame, (i, (out, skin))| {
                finish_pose(l, job, skin, schedule.time(i as u32), frame);
                for (o, &j) in out.chunks_exact_mut(ROWS).zip(feet) {
                    o.copy_from_slice(&rows(&frame[j]));
                }
            },
        );
    Sampled {
        schedule,
        texels,
        bounds: Vec::new(),
        f16_error: 0.0,
        interpolation_error: 0.0,
        poses: Some(poses),
        feet_only: true,
    }
}

/// A first sampling of feet alone ([`sample_feet`]) of `job` of `l` made whole: every joint's
/// texels, the bounds and the errors, from its poses (posed again if they were let go), as
/// [`sample_job`] makes them. It keeps its poses. Any other sampling is left as it is.
pub(super) fn complete(l: &Loaded, job: &Job, sampled: &mut Sampled, recipe: &Recipe) {
    if !sampled.feet_only {
        return;
    }
    let poses = sampled.poses.take();
    *sampled = resample(l, job, sampled.schedule, poses.as_deref(), recipe);
    sampled.poses = poses;
}

/// The skinning matrices of `job` at `t`, with the recipe's scale applied, the clip's root
/// drift removed (see [`super::plan::Drift`]), its seam spread ([`super::plan::Spread`]) and
/// the cycle's foot locks, into `out`.
pub(super) fn pose_into(l: &Loaded, job: &Job, poser: &mut Poser, t: f32, out: &mut [Mat4]) {
    let skin = posed(l, job, poser, t);
    finish_pose(l, job, skin, t, out);
}

/// The skinning matrices of `job` at `t` as the poser gives them (see [`Poses`]).
fn posed<'p>(l: &Loaded, job: &Job, poser: &'p mut Poser, t: f32) -> &'p [Mat4] {
    match (&job.source, &l.character) {
        (JobSource::State { state, params }, Some(c)) => poser.state(c, *state, params, t),
        (JobSource::Clip(clip), _) => poser.clip(&l.model, Some(*clip), t, Wrap::Clamp),
        // States exist only for characters.
        (JobSource::State { .. }, None) => poser.clip(&l.model, None, t, Wrap::Clamp),
    }
}

/// `skin`, the poser's matrices of `job` at `t`, with the recipe's scale, the clip's drift
/// removal and the cycle's foot locks, into `out`.
fn finish_pose(l: &Loaded, job: &Job, skin: &[Mat4], t: f32, out: &mut [Mat4]) {
    let s = l.factors;
    if l.scale == Mat4::IDENTITY {
        out.copy_from_slice(skin);
    } else if s.is_finite() && s.min_element() > 0.0 && l.scale == Mat4::from_scale(s) {
        // What loading makes: the product's bits, with a multiply per element.
        for (o, m) in out.iter_mut().zip(skin) {
            *o = scaled(&l.scale, s.extend(1.0), m);
        }
    } else {
        for (o, m) in out.iter_mut().zip(skin) {
            *o = l.scale * *m;
        }
    }
    if let Some(d) = &job.drift {
        d.remove(t, job.duration, out);
    }
    if let Some(sp) = &job.spread {
        sp.apply(t, job.duration, out);
    }
    if let Some(lock) = &job.lock {
        lock.apply(t, out);
    }
}

/// `scale * m`, to the bit, for `scale` = diag(`s`) with `s.w` = 1 and the other factors
/// finite and > 0 (a recipe's scale), with one multiply per element instead of the product's
/// four and three adds. Each element of glam's product (`Mat4::mul_vec4`, column by column)
/// sums four terms, of which three are `0 · m_k`: exact zeros, which leave a nonzero sum
/// `s_i · m_i` as it is and decide only the sign of a zero one (−0 only when every term is
/// −0, that is when all four elements of the column have their sign bit set: `s_i` > 0).
/// A column holding a number that is not finite takes the product (its zeros become NaN).
#[inline]
fn scaled(scale: &Mat4, s: Vec4, m: &Mat4) -> Mat4 {
    let column = |c: Vec4| {
        if !c.is_finite() {
            return *scale * c;
        }
        let p = c * s;
        if c.is_negative_bitmask() == 0b1111 {
            p
        } else {
            Vec4::select(p.cmpeq(Vec4::ZERO), Vec4::ZERO, p)
        }
    };
    Mat4::from_cols(
        column(m.x_axis),
        column(m.y_axis),
        column(m.z_axis),
        column(m.w_axis),
    )
}

/// The matrix of joint `j` of frame `f` in `texels` with `n` joints per frame.
#[inline]
fn matrix_at(texels: &[[f32; 4]], n: usize, f: usize, j: usize) -> Mat4 {
    let k = (f * n + j) * ROWS;
    from_rows(&[texels[k], texels[k + 1], texels[k + 2]])
}

/// The intervals of `schedule` whose middles the interpolation error is measured at: one per
/// frame for a loop (the last wraps to frame 0), one fewer otherwise; none for a schedule
/// without time between frames.
fn intervals(schedule: &FrameSchedule) -> usize {
    let count = schedule.count as usize;
    let n = if schedule.looping { count } else { count - 1 };
    if schedule.step() <= 0.0 { 0 } else { n }
}

/// Clip time of the middle of interval `i` of `schedule`, seconds.
fn mid_time(schedule: &FrameSchedule, i: usize) -> f32 {
    schedule.time(i as u32) + schedule.step() * 0.5
}

/// The poses of `job` of `l` at `schedule`'s frames and mid-frames. Parallel over them.
fn pose(l: &Loaded, job: &Job, schedule: FrameSchedule) -> Poses {
    let n = l.model.skeleton.len();
    let at = |times: &(dyn Fn(usize) -> f32 + Sync), count: usize| {
        let mut out = vec![Mat4::IDENTITY; n * count];
        out.par_chunks_mut(n.max(1)).enumerate().for_each_init(
            || Poser::new(&l.model),
            |poser, (i, o)| o.copy_from_slice(posed(l, job, poser, times(i))),
        );
        out
    };
    Poses {
        schedule,
        joints: n,
        frames: at(&|i| schedule.time(i as u32), schedule.count as usize),
        mids: at(&|i| mid_time(&schedule, i), intervals(&schedule)),
    }
}

/// `job` of `l` sampled from `poses`: texels, with each frame's bounds and f16 error, then the
/// interpolation error at the mid-frames. Parallel over frames.
fn finish(l: &Loaded, job: &Job, poses: &Poses, f16: bool) -> Sampled {
    let (n, schedule) = (poses.joints, poses.schedule);
    let count = schedule.count as usize;
    let len = n * ROWS * count;
    // Every texel is written below: zeroing them first would only cost a pass over the
    // bake's largest buffer.
    assert_eq!(poses.frames.len(), n * count, "a pose per joint per frame");
    let mut texels: Vec<[f32; 4]> = Vec::with_capacity(len);
    let mut bounds = vec![BoundsRecord::default(); count];
    // Each job of the parallel loops keeps the largest error it has found so far: the next
    // frame's measure need not look closely at a joint that cannot beat it
    // ([`JointBoxes::error_above`](super::measure::JointBoxes::error_above)). The largest of
    // all is the same whatever the order.
    let scratch = || (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n], 0.0f32);
    let f16_error = texels.spare_capacity_mut()[..len]
        .par_chunks_mut((n * ROWS).max(1))
        .zip(bounds.par_iter_mut())
        .zip(poses.frames.par_chunks(n.max(1)))
        .enumerate()
        .map_init(scratch, |(frame, packed, worst), (i, ((out, b), skin))| {
            finish_pose(l, job, skin, schedule.time(i as u32), frame);
            for (o, m) in out.chunks_exact_mut(ROWS).zip(frame.iter()) {
                for (o, r) in o.iter_mut().zip(rows(m)) {
                    o.write(r);
                }
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
            *worst = l.boxes.error_above(frame, packed, *worst);
            *worst
        })
        .reduce(|| 0.0, f32::max);
    // SAFETY: the loop above wrote all `len` texels: `count` chunks of `n` matrices of `ROWS`
    // rows each, one chunk per frame (the assert above: `poses.frames` has those `count`
    // frames of `n` matrices, and `bounds` one entry per frame, so the zip stops at none
    // before the last).
    unsafe { texels.set_len(len) };
    let interpolation_error = poses
        .mids
        .par_chunks(n.max(1))
        .enumerate()
        .map_init(scratch, |(exact, mid, worst), (i, skin)| {
            finish_pose(l, job, skin, mid_time(&schedule, i), exact);
            for (j, m) in mid.iter_mut().enumerate() {
                let (a, b) = (
                    matrix_at(&texels, n, i, j),
                    matrix_at(&texels, n, (i + 1) % count, j),
                );
                *m = lerp(&a, &b, 0.5);
            }
            *worst = l.boxes.error_above(exact, mid, *worst);
            *worst
        })
        .reduce(|| 0.0, f32::max);
    Sampled {
        schedule,
        texels,
        bounds,
        f16_error,
        interpolation_error,
        poses: None,
        feet_only: false,
    }
}

#[cfg(test)]
mod tests {
    use glam::{Mat4, Quat, Vec3};

    use super::scaled;

    /// The bits of glam's product for every recipe-like scale (uniform, per axis, tiny, huge)
    /// and matrices whose elements are ±0 in every pattern (columns all −0, all sign bits
    /// set, mixed), products that underflow to zero or overflow to infinity, and columns with
    /// an infinity or a NaN.
    #[test]
    fn scaled_gives_the_products_bits() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut f = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let special = [
            0.0,
            -0.0,
            1.0,
            -1.0,
            1e-40,
            -1e-40,
            3e38,
            -3e38,
            f32::INFINITY,
            f32::NAN,
            0.25,
            -7.5,
        ];
        let scales = [
            Vec3::splat(0.01),
            Vec3::new(0.95, 1.12, 0.95),
            Vec3::splat(1e-30),
            Vec3::splat(3e5),
            Vec3::new(1.0, 2.0, 0.5),
        ];
        let mut checked = 0;
        for s in scales {
            let scale = Mat4::from_scale(s);
            for round in 0..4000u32 {
                let r = f();
                let mut m = if round.is_multiple_of(2) {
                    let q = Quat::from_xyzw(1.0, (r % 7) as f32, 0.0, 0.0).normalize();
                    Mat4::from_rotation_translation(q, Vec3::new(0.0, -((r % 3) as f32), 0.0))
                } else {
                    Mat4::from_cols_array(&std::array::from_fn(|_| {
                        (f() >> 40) as f32 / (1u64 << 24) as f32 - 0.5
                    }))
                };
                // Each element replaced by a special value with probability 1/2, from a pool
                // that leans to zeros of both signs; some columns all −0 or all negative.
                let cols = m.as_mut();
                for e in cols.iter_mut() {
                    let k = f();
                    if k.is_multiple_of(2) {
                        let pick = (k >> 8) as usize % (special.len() + 6);
                        *e = special
                            .get(pick)
                            .copied()
                            .unwrap_or(if pick.is_multiple_of(2) { 0.0 } else { -0.0 });
                        if round.is_multiple_of(5) && *e > 0.0 {
                            *e = -*e;
                        }
                    }
                }
                if round.is_multiple_of(7) {
                    cols[(r % 4) as usize * 4..][..4].copy_from_slice(&[-0.0; 4]);
                }
                let (want, got) = (scale * m, scaled(&scale, s.extend(1.0), &m));
                assert_eq!(
                    want.to_cols_array().map(f32::to_bits),
                    got.to_cols_array().map(f32::to_bits),
                    "scale {s}, matrix {m}"
                );
                checked += 1;
            }
        }
        assert_eq!(checked, 20_000);
    }
}
