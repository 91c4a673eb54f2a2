//! Root motion: the root joint's horizontal travel and turning, extracted from a clip into a
//! motion track, leaving the clip in place. An agent then moves by the track's deltas, so feet
//! that were planted in the source stay planted in the world.

use glam::{Quat, Vec2, Vec3, Vec4};

use super::clip::{Clip, Interpolation, Property, RawChannel, RawClip};
use super::error::AnimError;
use super::sample::sample;
use super::skeleton::Skeleton;
use super::transform::Transform;

/// Keys per second at which the root channels and the track are resampled.
pub const MOTION_RATE: f32 = 60.0;

/// Horizontal position (x, z) and yaw (radians about +Y) of the root over a clip, relative to
/// its first frame, sampled at the clip's root key times (at least [`MOTION_RATE`] per second).
#[derive(Clone, Debug, PartialEq)]
pub struct MotionTrack {
    times: Vec<f32>,
    position: Vec<Vec2>,
    yaw: Vec<f32>,
    duration: f32,
}

/// The rotation about +Y contained in `q` (swing-twist decomposition), as an angle in radians.
pub fn yaw_of(q: Quat) -> f32 {
    // Twist about Y: the quaternion (0, y, 0, w) normalised; its angle is 2 atan2(y, w).
    2.0 * q.y.atan2(q.w)
}

/// Splits the root's horizontal translation and yaw out of `clip` (they are what moves the
/// character through the world). Returns the in-place clip, where the root keeps its first
/// frame's horizontal position and heading, and the motion track.
///
/// # Errors
/// [`AnimError`] if the rebuilt clip fails validation (it cannot for a validated input).
pub fn extract(
    clip: &Clip,
    skeleton: &Skeleton,
    root: usize,
) -> Result<(Clip, MotionTrack), AnimError> {
    let duration = clip.duration();
    let frames = ((duration * MOTION_RATE).ceil() as usize).max(1);
    let mut times: Vec<f32> = (0..=frames)
        .map(|i| duration * i as f32 / frames as f32)
        .collect();
    times.dedup();
    let mut pose = vec![Transform::IDENTITY; skeleton.len()];
    sample(clip, skeleton, 0.0, &mut pose);
    let start = pose[root];
    let start_yaw = yaw_of(start.rotation);
    let mut position = Vec::with_capacity(times.len());
    let mut yaw = Vec::with_capacity(times.len());
    let mut translations = Vec::with_capacity(times.len());
    let mut rotations = Vec::with_capacity(times.len());
    for &t in &times {
        sample(clip, skeleton, t, &mut pose);
        let r = pose[root];
        let y = yaw_of(r.rotation);
        // Remove the change of heading since the first frame, about the parent's +Y.
        let unturn = Quat::from_rotation_y(start_yaw - y);
        position.push(Vec2::new(
            r.translation.x - start.translation.x,
            r.translation.z - start.translation.z,
        ));
        yaw.push(y - start_yaw);
        translations.push(Vec4::new(
            start.translation.x,
            r.translation.y,
            start.translation.z,
            0.0,
        ));
        rotations.push(Vec4::from((unturn * r.rotation).normalize()));
    }
    // Unwrap the yaw so turning clips accumulate past +-pi.
    for i in 1..yaw.len() {
        let d = yaw[i] - yaw[i - 1];
        yaw[i] -= (d / std::f32::consts::TAU).round() * std::f32::consts::TAU;
    }
    let mut channels: Vec<RawChannel> = clip
        .channels()
        .iter()
        .filter(|c| {
            !(c.joint() == root
                && matches!(c.property(), Property::Translation | Property::Rotation))
        })
        .map(|c| RawChannel {
            joint: c.joint(),
            property: c.property(),
            interpolation: c.interpolation(),
            times: c.times().to_vec(),
            values: c.values().to_vec(),
        })
        .collect();
    for (property, values) in [
        (Property::Translation, translations),
        (Property::Rotation, rotations),
    ] {
        channels.push(RawChannel {
            joint: root,
            property,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values,
        });
    }
    let in_place = RawClip {
        name: clip.name().to_string(),
        channels,
    }
    .validate(skeleton)?;
    Ok((
        in_place,
        MotionTrack {
            times,
            position,
            yaw,
            duration,
        },
    ))
}

impl MotionTrack {
    /// Position (x, z, metres) and yaw (radians) at clip time `t`, clamped to the clip.
    pub fn at(&self, t: f32) -> (Vec2, f32) {
        let n = self.times.len();
        let t = t.clamp(0.0, self.duration);
        let k = self
            .times
            .partition_point(|x| *x <= t)
            .clamp(1, n.max(2) - 1);
        if n < 2 {
            return (self.position[0], self.yaw[0]);
        }
        let (t0, t1) = (self.times[k - 1], self.times[k]);
        let u = if t1 > t0 { (t - t0) / (t1 - t0) } else { 0.0 };
        (
            self.position[k - 1].lerp(self.position[k], u),
            self.yaw[k - 1] + (self.yaw[k] - self.yaw[k - 1]) * u,
        )
    }

    /// Travel over one whole clip: position and yaw at its end.
    pub fn cycle(&self) -> (Vec2, f32) {
        self.at(self.duration)
    }

    /// Average horizontal speed over the clip, metres per second (0 for a zero-length clip).
    pub fn speed(&self) -> f32 {
        if self.duration > 0.0 {
            self.cycle().0.length() / self.duration
        } else {
            0.0
        }
    }

    /// Motion of a playback step from clip time `from` forward by `elapsed` seconds: the
    /// horizontal displacement (x, z, metres) in the character's heading frame at `from` (the
    /// clip's own axes when the heading is the first frame's), and the change of yaw (radians).
    /// Looping clips add whole cycles, each turned by the yaw accumulated before it.
    pub fn delta(&self, from: f32, elapsed: f32, looping: bool) -> (Vec2, f32) {
        if elapsed.is_nan() || elapsed <= 0.0 || self.duration <= 0.0 {
            return (Vec2::ZERO, 0.0);
        }
        let mut moved = Vec2::ZERO;
        let mut turned = 0.0f32;
        let mut t = from.clamp(0.0, self.duration);
        let mut left = elapsed;
        // A step over more than 10,000 loops is not a playback step; stop there.
        for _ in 0..10_000 {
            let end = (t + left).min(self.duration);
            let (p0, y0) = self.at(t);
            let (p1, y1) = self.at(end);
            // Displacement in the heading frame at `from`: undo the yaw at t, apply what has
            // been turned so far.
            let local = rotate(p1 - p0, -y0 + turned);
            moved += local;
            turned += y1 - y0;
            left -= end - t;
            if !looping || left <= 0.0 {
                break;
            }
            t = 0.0;
        }
        (moved, turned)
    }
}

/// Rotates a horizontal (x, z) vector about +Y by `angle` radians.
fn rotate(v: Vec2, angle: f32) -> Vec2 {
    let r = Quat::from_rotation_y(angle) * Vec3::new(v.x, 0.0, v.y);
    Vec2::new(r.x, r.z)
}
