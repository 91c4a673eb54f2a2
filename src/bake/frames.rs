//! Which frames an animation is baked at: evenly spaced over its duration, without a seam
//! frame when it loops.

use super::error::BakeError;

/// Most frames one clip may be baked to (a minute at 240 frames per second): a texture must
/// stay loadable, and more frames are a sign of a wrong rate or a broken duration.
pub const MAX_FRAMES: u32 = 14_400;

/// The frames a clip is baked at.
///
/// A looping clip is baked without a seam frame: `count` frames evenly spaced over its
/// duration, frame `count` being frame 0 again, which the runtime reaches by wrapping. A clamped
/// clip includes its end: `count` frames from 0 to the duration inclusive. The effective rate is
/// therefore the requested one rounded so that frames fit the clip exactly.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameSchedule {
    /// Clip duration, seconds.
    pub duration: f32,
    /// Number of frames (at least 1).
    pub count: u32,
    /// Whether the clip loops.
    pub looping: bool,
}

impl FrameSchedule {
    /// The schedule for a clip of `duration` seconds at about `fps` frames per second.
    ///
    /// # Errors
    /// [`BakeError::BadSchedule`] for a rate that is not positive and finite, or one that gives
    /// more than [`MAX_FRAMES`] frames.
    pub fn new(clip: &str, duration: f32, fps: f32, looping: bool) -> Result<Self, BakeError> {
        let bad = |what: String| BakeError::BadSchedule {
            clip: clip.to_string(),
            what,
        };
        if !(fps.is_finite() && fps > 0.0) {
            return Err(bad(format!("frame rate {fps} must be a positive number")));
        }
        if !(duration.is_finite() && duration >= 0.0) {
            return Err(bad(format!("duration {duration} s cannot be baked")));
        }
        let intervals = (f64::from(duration) * f64::from(fps)).round().max(1.0);
        let count = if looping { intervals } else { intervals + 1.0 };
        if count > f64::from(MAX_FRAMES) {
            return Err(bad(format!(
                "{duration} s at {fps} frames per second is {count} frames; at most {MAX_FRAMES} are baked per clip"
            )));
        }
        let count = if duration == 0.0 { 1 } else { count as u32 };
        Ok(Self {
            duration,
            count,
            looping,
        })
    }

    /// Clip time of frame `i` in seconds (`i < count`).
    pub fn time(&self, i: u32) -> f32 {
        let intervals = if self.looping {
            self.count
        } else {
            self.count.saturating_sub(1)
        };
        if intervals == 0 {
            return 0.0;
        }
        // In f64 so that the last frame of a clamped clip is exactly the duration.
        (f64::from(self.duration) * f64::from(i) / f64::from(intervals)) as f32
    }

    /// Seconds between frames (0 for a single frame).
    pub fn step(&self) -> f32 {
        let intervals = if self.looping {
            self.count
        } else {
            self.count.saturating_sub(1)
        };
        if intervals == 0 {
            0.0
        } else {
            self.duration / intervals as f32
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looping_clips_have_no_seam_frame_and_clamped_ones_keep_their_end() {
        let l = FrameSchedule::new("walk", 1.0, 30.0, true).unwrap();
        assert_eq!(l.count, 30);
        assert_eq!(l.time(29), 29.0 / 30.0);
        let c = FrameSchedule::new("die", 1.0, 30.0, false).unwrap();
        assert_eq!(c.count, 31);
        assert_eq!(c.time(30), 1.0);
        // 0.7083 s at 30 fps: 21 intervals, so frames are 0.7083 / 21 apart.
        let f = FrameSchedule::new("fox", 0.708_333_3, 30.0, true).unwrap();
        assert_eq!(f.count, 21);
        assert!((f.step() - 0.708_333_3 / 21.0).abs() < 1e-7);
        assert_eq!(
            FrameSchedule::new("pose", 0.0, 30.0, false).unwrap().count,
            1
        );
    }

    #[test]
    fn bad_rates_are_refused() {
        let e = FrameSchedule::new("walk", 1.0, 0.0, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip 'walk': frame rate 0 must be a positive number"
        );
        let e = FrameSchedule::new("long", 3600.0, 60.0, true).unwrap_err();
        assert_eq!(
            e.to_string(),
            "clip 'long': 3600 s at 60 frames per second is 216000 frames; at most 14400 are baked per clip"
        );
    }
}
