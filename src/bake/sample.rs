//! Sampling one animation: its poses at the frames of its [`FrameSchedule`] through [`Poser`]
//! (the evaluation `throng pose` uses), scaled as the recipe says, packed into texels
//! ([`super::texels`]), with each frame's bounds and f16 error and the interpolation error at
//! the mid-frames ([`super::measure`]). For `fps = "auto"`, the lowest rate within the
//! interpolation budget. Parallel over frames (rayon). A clip's root drift, when the plan
//! removes it, is taken out of every pose here, so texels, bounds and errors all see the
//! seamless loop; so are a cycle's foot locks (`lock`), in its second sampling.

use glam::Mat4;
use rayon::prelude::*;

use super::error::BakeError;
use super::frames::FrameSchedule;
use super::load::Loaded;
use super::plan::{Job, JobSource};
use super::recipe::{AUTO_RATES, PrecisionChoice, Rate, Recipe};
use super::texels::{from_rows, lerp, rows, through_f16};
use crate::anim::Playback;
use crate::character::Poser;
use crate::format::TEXELS_PER_MATRIX;
use crate::format::records::BoundsRecord;

/// [`TEXELS_PER_MATRIX`] as an index.
const ROWS: usize = TEXELS_PER_MATRIX as usize;

/// One animation sampled: texels and the measures taken frame by frame.
pub(super) struct Sampled {
    pub schedule: FrameSchedule,
    /// [`TEXELS_PER_MATRIX`] texels (matrix rows) per joint per frame, frame-major: the
    /// texture's layout.
    pub texels: Vec<[f32; 4]>,
    /// Bounds of the skinned mesh per frame.
    pub bounds: Vec<BoundsRecord>,
    /// Largest error f16 texels make, model units (0 when not measured).
    pub f16_error: f32,
    /// Largest mid-frame interpolation error, model units.
    pub interpolation_error: f32,
}

/// Samples `job` of `l` again at the frames of `schedule` (those of its first sampling), as
/// the recipe's precision asks: for a job whose poses changed since (its feet locked).
pub(super) fn resample(l: &Loaded, job: &Job, schedule: FrameSchedule, recipe: &Recipe) -> Sampled {
    sample(l, job, schedule, recipe.precision != PrecisionChoice::F32)
}

/// Samples `job` of `l` at the rate it asks for; the f16 error is measured unless the recipe
/// asks for f32 (then it decides nothing).
///
/// # Errors
/// [`BakeError::BadSchedule`] for a rate or duration that cannot be baked.
pub(super) fn sample_job(l: &Loaded, job: &Job, recipe: &Recipe) -> Result<Sampled, BakeError> {
    let f16 = recipe.precision != PrecisionChoice::F32;
    Ok(match job.rate {
        Rate::Fixed(fps) => sample(
            l,
            job,
            FrameSchedule::new(&job.name, job.duration, fps, job.looping)?,
            f16,
        ),
        Rate::Auto => sample_auto(l, job, recipe.interpolation_budget, f16)?,
    })
}

/// The skinning matrices of `job` at `t`, with the recipe's scale applied and the clip's root
/// drift removed (see [`super::plan::Drift`]), into `out`.
pub(super) fn pose_into(l: &Loaded, job: &Job, poser: &mut Poser, t: f32, out: &mut [Mat4]) {
    let skin = match (&job.source, &l.character) {
        (JobSource::State { state, params }, Some(c)) => poser.state(c, *state, params, t),
        (JobSource::Clip(clip), _) => poser.clip(&l.model, Some(*clip), t, Playback::Clamp),
        // States exist only for characters.
        (JobSource::State { .. }, None) => poser.clip(&l.model, None, t, Playback::Clamp),
    };
    if l.scale == Mat4::IDENTITY {
        out.copy_from_slice(skin);
    } else {
        for (o, m) in out.iter_mut().zip(skin) {
            *o = l.scale * *m;
        }
    }
    if let Some(d) = &job.drift {
        d.remove(t, job.duration, out);
    }
    if let Some(lock) = &job.lock {
        lock.apply(t, out);
    }
}

/// The matrix of joint `j` of frame `f` in `texels` with `n` joints per frame.
#[inline]
fn matrix_at(texels: &[[f32; 4]], n: usize, f: usize, j: usize) -> Mat4 {
    let k = (f * n + j) * ROWS;
    from_rows(&[texels[k], texels[k + 1], texels[k + 2]])
}

/// Samples `job` at `schedule`'s frames into texels, with each frame's bounds and f16 error,
/// then measures the interpolation error at the mid-frames. Parallel over frames.
fn sample(l: &Loaded, job: &Job, schedule: FrameSchedule, f16: bool) -> Sampled {
    let n = l.model.skeleton.len();
    let count = schedule.count as usize;
    let mut texels = vec![[0.0f32; 4]; n * ROWS * count];
    let mut bounds = vec![BoundsRecord::default(); count];
    let scratch = || {
        (
            Poser::new(&l.model),
            vec![Mat4::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
        )
    };
    let f16_error = texels
        .par_chunks_mut(n * ROWS)
        .zip(bounds.par_iter_mut())
        .enumerate()
        .map_init(scratch, |(poser, frame, packed), (i, (out, b))| {
            pose_into(l, job, poser, schedule.time(i as u32), frame);
            for (o, m) in out.chunks_exact_mut(ROWS).zip(frame.iter()) {
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
                pose_into(l, job, poser, t, exact);
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
