//! The event markers of a baked animation, as (name, time) sorted by time: a clip's markers as
//! the character file places them; a state's found by playing it with the runtime's own code
//! and timing each firing by bisection, so that baked times agree with the runtime's. A marker
//! at the end of a looping animation is stored at its start. Jobs that pose alike (variants of
//! one source, [`super::sample::PoseKey`]) have the same markers: [`GroupEvents`] finds them
//! once for the group.

use super::load::Loaded;
use super::plan::{Job, JobSource};

/// Bisection steps timing a state's event: 32 halvings end within 2^-32 of its period.
const BISECTION_STEPS: u32 = 32;

/// A marker at the end of a looping animation is stored at its start, where the loop puts it.
fn loop_point(job: &Job, t: f32) -> f32 {
    if job.looping && t >= job.duration * (1.0 - 1e-6) {
        0.0
    } else {
        t
    }
}

/// The markers of the jobs of one group that pose alike, found for its first job and given
/// again to each later one of the same duration and looping (the only things of a job, beyond
/// its source, that [`events`] reads).
#[derive(Default)]
pub(super) struct GroupEvents {
    /// The markers found, with the duration (bits) and looping of the job they were found for.
    found: Option<((u32, bool), Events)>,
}

/// Event markers as (name, seconds), sorted by time.
type Events = Vec<(String, f32)>;

impl GroupEvents {
    /// [`events`] of `job` of `l`: found now unless an earlier job of the group had them.
    /// A state's are many plays of it (a bisection per marker): the largest share of a bake
    /// of many variants, found once.
    pub fn of(&mut self, l: &Loaded, job: &Job) -> Events {
        let key = (job.duration.to_bits(), job.looping);
        match &self.found {
            Some((k, e)) if *k == key => e.clone(),
            _ => {
                let e = events(l, job);
                self.found = Some((key, e.clone()));
                e
            }
        }
    }
}

/// Event markers of a job, as (name, time in the animation), sorted by time; none for a bare
/// model.
pub(super) fn events(l: &Loaded, job: &Job) -> Events {
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
                    for _ in 0..BISECTION_STEPS {
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
