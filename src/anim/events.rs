//! Timed event markers on clips ("foot_l", "wave_peak") and which of them a playback step
//! crosses: each crossing exactly once, across loop wraps and steps longer than the clip.

/// One marker: a name and a clip time in seconds.
#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    /// Event name, e.g. `foot_l`.
    pub name: String,
    /// Clip time, seconds, in `[0, duration]`.
    pub time: f32,
}

/// The markers of one clip, sorted by time.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct EventTrack {
    events: Vec<Event>,
}

impl EventTrack {
    /// A track from markers in any order (sorted here, stable for equal times).
    pub fn new(mut events: Vec<Event>) -> Self {
        events.sort_by(|a, b| a.time.total_cmp(&b.time));
        Self { events }
    }

    /// The markers, sorted by time.
    pub fn events(&self) -> &[Event] {
        &self.events
    }

    /// True when the track has no markers.
    pub fn is_empty(&self) -> bool {
        self.events.is_empty()
    }

    /// Reports the markers crossed when playback moves forward from normalised phase `from`
    /// (in `[0, 1]`) by `step` (in cycles, >= 0) through a clip of `duration` seconds. The
    /// window is half-open, `[from, from + step)` in phase, and is computed with the same f32
    /// sum the caller uses for the next phase (`fract(from + step)`, or the sum clamped to 1),
    /// so consecutive steps never report a marker twice or miss one, even on a step boundary.
    /// A marker at time 0 fires on the first step.
    ///
    /// Looping clips wrap: a step spanning several loops reports each marker once per loop it
    /// crosses, via `count`. Clamped clips stop at the end, where a marker exactly at `duration`
    /// fires once when playback reaches it; nothing fires once `from` is at the end.
    ///
    /// `report(index, count)` is called in the order of each marker's first crossing; `index`
    /// points into [`EventTrack::events`].
    pub fn crossed(
        &self,
        from: f32,
        step: f32,
        duration: f32,
        looping: bool,
        mut report: impl FnMut(usize, u32),
    ) {
        let Some(end) = window_end(from, step, duration) else {
            return;
        };
        let phase = |e: &Event| e.time / duration;
        if !looping {
            for (i, e) in self.events.iter().enumerate() {
                let n = crossings(phase(e), from, end, false);
                if n > 0 {
                    report(i, n);
                }
            }
            return;
        }
        // Markers at or after `from` are first crossed in this loop; the others after the wrap.
        for pass in 0..2u8 {
            for (i, e) in self.events.iter().enumerate() {
                let p = phase(e);
                let first = if p >= from { 0u8 } else { 1 };
                if pass != first {
                    continue;
                }
                let n = crossings(p, from, end, true);
                if n > 0 {
                    report(i, n);
                }
            }
        }
    }

    /// How often marker `index` alone is crossed by the step [`EventTrack::crossed`] is given
    /// the same arguments for (0 for an index past the track): what `crossed` reports for it,
    /// in constant time whatever the track's length, for callers that follow one marker.
    pub fn crossings_of(
        &self,
        index: usize,
        from: f32,
        step: f32,
        duration: f32,
        looping: bool,
    ) -> u32 {
        match (self.events.get(index), window_end(from, step, duration)) {
            (Some(e), Some(end)) => crossings(e.time / duration, from, end, looping),
            _ => 0,
        }
    }
}

/// The end, in phase, of a step of `step` cycles from phase `from` through a clip of
/// `duration` seconds; `None` for a step that crosses nothing (not positive and finite, or
/// a clip without length). NaN fails every comparison, so `is_nan` is checked explicitly.
fn window_end(from: f32, step: f32, duration: f32) -> Option<f32> {
    let bad =
        step.is_nan() || step <= 0.0 || !step.is_finite() || duration.is_nan() || duration <= 0.0;
    (!bad).then_some(from + step)
}

/// Crossings of the marker at phase `p` by the half-open window `[from, end)` (see
/// [`EventTrack::crossed`]).
fn crossings(p: f32, from: f32, end: f32, looping: bool) -> u32 {
    if !looping {
        if from >= 1.0 {
            // At the end of a clamped clip: nothing more fires.
            return 0;
        }
        return u32::from(p >= from && (p < end || (p >= 1.0 && end >= 1.0)));
    }
    // Loops k >= first with from <= k + p < end, tested as p < end - k, which is exact for
    // the small k that matter (Sterbenz) and matches fract(end). A marker before `from` is
    // first crossed after the wrap.
    let first = if p >= from { 0u32 } else { 1 };
    let mut count = 0u32;
    let mut k = first;
    while k < 64 && p < end - k as f32 {
        count += 1;
        k += 1;
    }
    if k == 64 && p < end - 64.0 {
        // A step of more than 64 loops: the rest by arithmetic, saturating (a step of 1e30
        // loops, from a script's huge dt, is u32::MAX crossings).
        count = count.saturating_add(((end - p - 64.0).ceil() as u32).max(1));
    }
    count
}

#[cfg(test)]
mod tests {
    use super::*;

    fn track() -> EventTrack {
        EventTrack::new(vec![
            Event {
                name: "b".into(),
                time: 0.5,
            },
            Event {
                name: "a".into(),
                time: 0.0,
            },
            Event {
                name: "c".into(),
                time: 0.9,
            },
        ])
    }

    #[test]
    fn a_step_of_more_loops_than_a_count_holds_saturates() {
        let mut counts = Vec::new();
        track().crossed(0.0, 1e30, 1.0, true, |_, n| counts.push(n));
        assert_eq!(counts, [u32::MAX; 3]);
    }

    fn hits(t: &EventTrack, from: f32, dt: f32, d: f32, looping: bool) -> Vec<(String, u32)> {
        let mut out = Vec::new();
        t.crossed(from, dt, d, looping, |i, n| {
            out.push((t.events()[i].name.clone(), n))
        });
        out
    }

    #[test]
    fn consecutive_steps_report_each_marker_once() {
        let t = track();
        let mut total = std::collections::HashMap::new();
        let mut time = 0.0f32;
        // 1/60 s steps over exactly 3 loops of a 1 s clip (times stay exact multiples).
        for _ in 0..180 {
            let dt = 1.0 / 60.0;
            t.crossed(time, dt, 1.0, true, |i, n| {
                *total.entry(t.events()[i].name.clone()).or_insert(0) += n
            });
            time = (time + dt) % 1.0;
        }
        assert_eq!(total.get("a"), Some(&3));
        assert_eq!(total.get("b"), Some(&3));
        assert_eq!(total.get("c"), Some(&3));
    }

    #[test]
    fn markers_on_step_boundaries_fire_exactly_once_per_loop() {
        // 60 Hz steps through clips whose markers sit on frame times: the f32 sums land a
        // marker exactly on a window's end, where a naive seconds-based test reports it twice
        // or not at all.
        for (duration, marker) in [
            (0.9f32, 0.25f32),
            (0.6666667, 0.13333334),
            (1.1583333, 0.5),
            (0.7083333, 0.35),
        ] {
            let t = EventTrack::new(vec![Event {
                name: "m".into(),
                time: marker,
            }]);
            let step = (1.0 / 60.0) / duration;
            let steps_per_loop = duration * 60.0;
            let mut phase = 0.0f32;
            let mut fired_at = Vec::new();
            for i in 0..6000 {
                t.crossed(phase, step, duration, true, |_, n| {
                    assert_eq!(n, 1);
                    fired_at.push(i);
                });
                phase = (phase + step).fract();
            }
            for w in fired_at.windows(2) {
                let gap = (w[1] - w[0]) as f32;
                assert!(
                    (gap - steps_per_loop).abs() <= 1.0,
                    "d={duration}: marker fired {gap} steps apart, a loop is {steps_per_loop}"
                );
            }
            let expected = (6000.0 / steps_per_loop - marker / duration).floor() + 1.0;
            assert!(
                (fired_at.len() as f32 - expected).abs() <= 1.0,
                "d={duration}: {} firings, expected about {expected}",
                fired_at.len()
            );
        }
    }

    #[test]
    fn wraps_and_long_steps() {
        let t = track();
        // From 0.8 by 0.4: crosses c (0.9), wraps, crosses a (0.0); not b.
        assert_eq!(
            hits(&t, 0.8, 0.4, 1.0, true),
            vec![("c".into(), 1), ("a".into(), 1)]
        );
        // From 0.6 by 2.5 (to 3.1): c at 0.9, 1.9, 2.9; a at 1.0, 2.0, 3.0; b at 1.5, 2.5.
        assert_eq!(
            hits(&t, 0.6, 2.5, 1.0, true),
            vec![("c".into(), 3), ("a".into(), 3), ("b".into(), 2)]
        );
        // Half-open: a marker exactly at the end of a step waits for the next step.
        assert_eq!(hits(&t, 0.2, 0.3, 1.0, true), vec![]);
        assert_eq!(hits(&t, 0.5, 0.1, 1.0, true), vec![("b".into(), 1)]);
    }

    #[test]
    fn clamped_clips_stop_at_the_end() {
        let t = EventTrack::new(vec![
            Event {
                name: "end".into(),
                time: 1.0,
            },
            Event {
                name: "mid".into(),
                time: 0.5,
            },
        ]);
        assert_eq!(
            hits(&t, 0.4, 5.0, 1.0, false),
            vec![("mid".into(), 1), ("end".into(), 1)]
        );
        // Already at the end: nothing more.
        assert_eq!(hits(&t, 1.0, 5.0, 1.0, false), vec![]);
    }

    #[test]
    fn zero_and_bad_steps_report_nothing() {
        let t = track();
        assert!(hits(&t, 0.0, 0.0, 1.0, true).is_empty());
        assert!(hits(&t, 0.0, f32::NAN, 1.0, true).is_empty());
        assert!(hits(&t, 0.0, 1.0, 0.0, true).is_empty());
    }
}
