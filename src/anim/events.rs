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

    /// Reports the markers crossed when playback moves forward from clip time `from` (seconds,
    /// in `[0, duration]`) by `elapsed` seconds (>= 0). The interval is half-open,
    /// `[from, from + elapsed)`, so consecutive steps never report a marker twice and a marker at
    /// time 0 fires on the first step. Looping clips wrap: a step spanning several loops reports
    /// each marker once per loop it crosses, via `count`. Clamped clips stop at `duration`,
    /// where a marker exactly at the end fires once when playback reaches it.
    ///
    /// `report(index, count)` is called in the order of each marker's first crossing; `index`
    /// points into [`EventTrack::events`].
    pub fn crossed(
        &self,
        from: f32,
        elapsed: f32,
        duration: f32,
        looping: bool,
        mut report: impl FnMut(usize, u32),
    ) {
        // NaN fails every comparison, so `is_nan` is checked explicitly.
        if self.events.is_empty()
            || elapsed.is_nan()
            || elapsed <= 0.0
            || !elapsed.is_finite()
            || duration.is_nan()
            || duration <= 0.0
        {
            return;
        }
        let end = from + elapsed;
        if !looping {
            if from >= duration {
                return;
            }
            for (i, e) in self.events.iter().enumerate() {
                let at_end = e.time >= duration && end >= duration;
                if e.time >= from && (e.time < end || at_end) {
                    report(i, 1);
                }
            }
            return;
        }
        // Crossings of marker e: loops k >= 0 with from <= k*duration + e.time < end.
        // Report in order of first crossing without allocating: markers crossed in the first
        // partial loop (time >= from) come before those only crossed after the wrap.
        for pass in 0..2 {
            for (i, e) in self.events.iter().enumerate() {
                let k0 = if e.time >= from { 0.0 } else { 1.0 };
                if (pass == 0) != (k0 == 0.0) {
                    continue;
                }
                let first_at = k0 * duration + e.time;
                if first_at >= end {
                    continue;
                }
                // Further crossings every `duration` seconds until `end`.
                let extra = ((end - first_at) / duration).ceil() - 1.0;
                let count = 1 + extra.max(0.0).min(u32::MAX as f32 - 1.0) as u32;
                report(i, count);
            }
        }
    }
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
