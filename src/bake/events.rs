//! The event markers of a baked animation, as (name, time) sorted by time: a clip's markers as
//! the character file places them; a state's found by playing it with the runtime's own code
//! and timing each firing by bisection, so that baked times agree with the runtime's. A marker
//! at the end of a looping animation is stored at its start. Jobs that pose alike (variants of
//! one source, [`super::sample::PoseKey`]) have the same markers: [`GroupEvents`] finds them
//! once for the group.
//!
//! The work is bounded and linear in the events stored: an animation holds at most
//! [`MAX_EVENTS`] (counted before any is timed, refused past it), and each firing is timed by
//! [`BISECTION_STEPS`] probes of its own marker's clock, each in constant time
//! ([`EventClock::crossings`]), whatever the number of markers and nodes.

use std::collections::HashMap;

use super::load::Loaded;
use super::plan::{Job, JobSource};
use crate::anim::graph::{EventClock, Node};
use crate::character::Character;

/// Bisection steps timing a state's event: 32 halvings end within 2^-32 of its period.
const BISECTION_STEPS: u32 = 32;

/// Most events one baked animation may hold. The runtime looks at every event of an
/// animation on each step of each agent playing it, and each takes 16 bytes of the file, so
/// an animation's events are kept to what a cycle can use: a marker on every frame of a
/// 60 fps cycle of 18 minutes. Far past it lie only mistakes (an additive clip at `speed =
/// 1e5` fires 200,000 times a second), whose events would take minutes to time and
/// megabytes to store. At the limit a state's events are timed in half a second in a
/// debug build (65,000 firings of an additive clip: docs/BAKING.md).
pub const MAX_EVENTS: u64 = 65_536;

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
    ///
    /// # Errors
    /// As [`events`].
    pub fn of(&mut self, l: &Loaded, job: &Job) -> Result<Events, String> {
        let key = (job.duration.to_bits(), job.looping);
        match &self.found {
            Some((k, e)) if *k == key => Ok(e.clone()),
            _ => {
                let e = events(l, job)?;
                self.found = Some((key, e.clone()));
                Ok(e)
            }
        }
    }
}

/// Event markers of a job, as (name, time in the animation), sorted by time; none for a bare
/// model.
///
/// # Errors
/// More than [`MAX_EVENTS`] of them, said naming the job and what makes them (the node's
/// `speed` or the clip's markers, in the character file).
pub(super) fn events(l: &Loaded, job: &Job) -> Result<Events, String> {
    let Some(ch) = &l.character else {
        return Ok(Vec::new());
    };
    match &job.source {
        JobSource::Clip(c) => {
            let track = ch.events.get(*c).map_or(&[][..], |t| t.events());
            if track.len() as u64 > MAX_EVENTS {
                return Err(format!(
                    "clip '{}': {} has {} event markers, more than the {MAX_EVENTS} a baked \
                     animation may hold: give [clips.{}] fewer events",
                    job.name,
                    file_name(ch),
                    track.len(),
                    job.name
                ));
            }
            let mut v: Events = track
                .iter()
                .map(|e| {
                    let t = loop_point(job, e.time.clamp(0.0, job.duration));
                    (e.name.clone(), t)
                })
                .collect();
            v.sort_by(|a, b| a.1.total_cmp(&b.1));
            Ok(v)
        }
        JobSource::State { state, params } => {
            let tree = &ch.machine.states()[*state].tree;
            // Each node that reports markers, with the clock it plays them on: the code the
            // runtime advances with, so the baked times agree with it.
            let clocks = tree.event_clocks(&ch.model.clips, params);
            let firings = count_firings(ch, &clocks, job.duration);
            let total: u64 = firings.iter().map(|f| u64::from(f.times)).sum();
            if total > MAX_EVENTS {
                return Err(too_many(ch, job, tree.nodes(), &clocks, &firings, total));
            }
            // A marker a clip has on two nodes fires at the union of their firings: grouped
            // by marker, in the order the runtime first reports each, each in time order.
            let mut order: Vec<(usize, usize)> = Vec::new();
            let mut by_marker: HashMap<(usize, usize), Vec<f32>> = HashMap::new();
            for f in &firings {
                let c = &clocks[f.clock];
                let track = &ch.events[c.clip];
                let times = by_marker.entry((c.clip, f.marker)).or_insert_with(|| {
                    order.push((c.clip, f.marker));
                    Vec::new()
                });
                times.extend(
                    (1..=f.times)
                        .map(|k| first_time(job.duration, k, |t| c.crossings(track, f.marker, t))),
                );
            }
            let mut out = Vec::with_capacity(total as usize);
            for key in order {
                let mut times = by_marker.remove(&key).unwrap_or_default();
                times.sort_by(f32::total_cmp);
                let name = &ch.events[key.0].events()[key.1].name;
                // Bisection ends within 2^-32 of the period; microseconds are as exact as
                // marker times are written, and give back 0.5 rather than 0.50000006.
                out.extend(times.into_iter().map(|hi| {
                    let t = ((f64::from(hi) * 1e6).round() / 1e6) as f32;
                    (name.clone(), loop_point(job, t))
                }));
            }
            out.sort_by(|a, b| a.1.total_cmp(&b.1));
            Ok(out)
        }
    }
}

/// How often one marker of one event clock fires over a state's period.
struct Firings {
    /// Index into the clocks.
    clock: usize,
    /// The marker's index in its clip's track.
    marker: usize,
    /// Times it fires (saturating at `u32::MAX`).
    times: u32,
}

/// The markers `clocks` fire over `duration` seconds played from the start, with how often:
/// one probe per marker, so that a period of too many events is refused before any is timed.
fn count_firings(ch: &Character, clocks: &[EventClock], duration: f32) -> Vec<Firings> {
    let mut out = Vec::new();
    for (ci, c) in clocks.iter().enumerate() {
        let Some(track) = ch.events.get(c.clip) else {
            continue;
        };
        for marker in 0..track.events().len() {
            let times = c.crossings(track, marker, duration);
            if times > 0 {
                out.push(Firings {
                    clock: ci,
                    marker,
                    times,
                });
            }
        }
    }
    out
}

/// The smallest time in `[0, duration]` (within 2^-32 of `duration`, above it) by which
/// `count`, a count of firings that grows with time, reaches `k`: [`BISECTION_STEPS`] probes.
fn first_time(duration: f32, k: u32, count: impl Fn(f32) -> u32) -> f32 {
    let (mut lo, mut hi) = (0.0f32, duration);
    for _ in 0..BISECTION_STEPS {
        let mid = 0.5 * (lo + hi);
        if count(mid) >= k {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    hi
}

/// The character file's name, for messages.
fn file_name(ch: &Character) -> String {
    ch.path.file_name().map_or_else(
        || ch.path.display().to_string(),
        |f| f.to_string_lossy().into_owned(),
    )
}

/// Why state `job` cannot hold its `total` events: the node that fires the most of them, its
/// clip, markers and `speed`, and what to change in the character file.
fn too_many(
    ch: &Character,
    job: &Job,
    nodes: &[Node],
    clocks: &[EventClock],
    firings: &[Firings],
    total: u64,
) -> String {
    // A count that saturated (u32::MAX firings of one marker) is a floor, said as such.
    let over = if firings.iter().any(|f| f.times == u32::MAX) {
        "over "
    } else {
        ""
    };
    let mut per_clock = vec![0u64; clocks.len()];
    for f in firings {
        per_clock[f.clock] += u64::from(f.times);
    }
    let most = (0..clocks.len()).max_by_key(|&c| per_clock[c]).unwrap_or(0);
    let culprit = clocks.get(most).map_or_else(String::new, |c| {
        let (kind, speed) = match nodes.get(c.node) {
            Some(Node::Additive { speed, .. }) => ("additive", *speed),
            Some(Node::Clip { speed, .. }) => ("clip", *speed),
            _ => ("clip", 1.0),
        };
        let clip = ch.model.clips.get(c.clip).map_or("?", |c| c.name());
        let markers = ch.events.get(c.clip).map_or(0, |t| t.events().len());
        format!(
            ": its {kind} node of clip '{clip}' ({markers} marker{}, speed = {}) fires {over}{} \
             of them; lower that node's speed or give [clips.{clip}] fewer events",
            if markers == 1 { "" } else { "s" },
            number(speed),
            per_clock[most]
        )
    });
    format!(
        "state '{}' of {} fires {over}{total} events in its baked {:.3} s, more than the \
         {MAX_EVENTS} a baked animation may hold{culprit}",
        job.name,
        file_name(ch),
        job.duration
    )
}

/// `x` as a file would give it: plainly, or in exponent form when very large or small
/// (`3.4e38`, not 39 digits).
fn number(x: f32) -> String {
    if x != 0.0 && !(1e-3..1e6).contains(&x.abs()) {
        format!("{x:e}")
    } else {
        format!("{x}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::events::{Event, EventTrack};
    use crate::anim::graph::Clock;
    use std::cell::Cell;

    #[test]
    fn each_firing_costs_the_same_probes_whatever_came_before() {
        // The structure that keeps finding events linear: the k-th firing is timed by
        // BISECTION_STEPS probes, however large k is, and each probe follows one marker.
        let probes = Cell::new(0u32);
        let count = |t: f32| {
            probes.set(probes.get() + 1);
            (t * 1000.0) as u32
        };
        for k in [1, 10, 999] {
            probes.set(0);
            let t = first_time(1.0, k, count);
            assert_eq!(probes.get(), BISECTION_STEPS);
            assert!((t - k as f32 / 1000.0).abs() < 1e-6, "{k}: {t}");
        }
    }

    /// Times every firing of a track of `n` markers spread over a 1 s looping clip, as
    /// [`events`] does, and checks each lands on its marker.
    fn time_markers(n: usize) -> std::time::Duration {
        let track = EventTrack::new(
            (0..n)
                .map(|i| Event {
                    name: format!("e{i}"),
                    time: (i as f32 + 0.5) / n as f32,
                })
                .collect(),
        );
        let clock = EventClock {
            node: 0,
            clip: 0,
            duration: 1.0,
            clock: Clock::Cycle(1.0),
            looping: true,
        };
        let started = std::time::Instant::now();
        for (i, e) in track.events().iter().enumerate() {
            assert_eq!(clock.crossings(&track, i, 1.0), 1);
            let t = first_time(1.0, 1, |t| clock.crossings(&track, i, t));
            assert!((t - e.time).abs() < 1e-6, "marker {i}: {t} vs {}", e.time);
        }
        started.elapsed()
    }

    #[test]
    fn markers_by_the_hundred_thousand_are_timed_in_linear_time() {
        // Each marker is timed by its own clock, not by replaying every marker: 10,000 take
        // about 10 ms in a debug build, and 100,000 (more than a bake may hold, to see the
        // growth) about 0.1 s. The quadratic way took over a minute for 1,000 and would take
        // days for 100,000, so the bound below (60 s, for a busy shared machine) cannot be
        // met by it.
        let small = time_markers(10_000);
        let large = time_markers(100_000);
        eprintln!("10,000 markers: {small:?}; 100,000: {large:?}");
        assert!(
            large.as_secs_f64() < 60.0,
            "100,000 markers took {large:?} (10,000: {small:?})"
        );
    }
}
