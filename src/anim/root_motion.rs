//! Root motion: the root joint's horizontal travel and turning, extracted from a clip into a
//! motion track, leaving the clip in place. An agent then moves by the track's deltas, so feet
//! that were planted in the source stay planted in the world.

use glam::{Mat4, Quat, Vec2, Vec3, Vec4};

use super::clip::{Clip, Interpolation, Property, RawChannel, RawClip};
use super::error::AnimError;
use super::pose::local_to_model;
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

/// Longest clip whose root motion is extracted, seconds: the track holds [`MOTION_RATE`] keys
/// per second, and a clip longer than an hour is not a character clip.
pub const MAX_MOTION_DURATION: f32 = 3600.0;

/// Splits the horizontal translation and yaw of joint `root` out of `clip`. Both are measured
/// in model space (through the joint's parents and root base, so an armature rotated from Z-up
/// to Y-up is handled): the ground plane is model x-z and yaw turns about model +Y. Returns the
/// in-place clip, where the joint keeps its first frame's model-space horizontal position and
/// heading, and the motion track. The joint's channels are resampled at [`MOTION_RATE`] keys per
/// second (LINEAR).
///
/// # Errors
/// [`AnimError::BadChannel`] for a clip longer than [`MAX_MOTION_DURATION`], or if the rebuilt
/// clip fails validation (it cannot for a validated input).
pub fn extract(
    clip: &Clip,
    skeleton: &Skeleton,
    root: usize,
) -> Result<(Clip, MotionTrack), AnimError> {
    let duration = clip.duration();
    if duration > MAX_MOTION_DURATION {
        return Err(AnimError::BadChannel {
            clip: clip.name().to_string(),
            channel: 0,
            target: "root motion".into(),
            what: format!(
                "the clip lasts {duration} s; root motion is extracted for clips up to {MAX_MOTION_DURATION} s"
            ),
        });
    }
    let frames = ((duration * MOTION_RATE).ceil() as usize).max(1);
    let mut times: Vec<f32> = (0..=frames)
        .map(|i| duration * i as f32 / frames as f32)
        .collect();
    times.dedup();
    let n = skeleton.len();
    let mut pose = vec![Transform::IDENTITY; n];
    let mut model = vec![Mat4::IDENTITY; n];
    // The joint's model-space transform at time t, and the matrix of what it hangs from.
    let root_at = |t: f32, pose: &mut [Transform], model: &mut [Mat4]| {
        sample(clip, skeleton, t, pose);
        local_to_model(skeleton, pose, model);
        let parent = match skeleton.parent(root) {
            Some(p) => model[p],
            None => skeleton.root_bases()[root],
        };
        (parent, model[root])
    };
    let (_, start) = root_at(0.0, &mut pose, &mut model);
    let (_, start_rot, start_pos) = start.to_scale_rotation_translation();
    let start_yaw = yaw_of(start_rot);
    let mut position = Vec::with_capacity(times.len());
    let mut yaw = Vec::with_capacity(times.len());
    let mut translations = Vec::with_capacity(times.len());
    let mut rotations = Vec::with_capacity(times.len());
    for &t in &times {
        let (parent, world) = root_at(t, &mut pose, &mut model);
        let (_, rot, pos) = world.to_scale_rotation_translation();
        let y = yaw_of(rot);
        position.push(Vec2::new(pos.x - start_pos.x, pos.z - start_pos.z));
        yaw.push(y - start_yaw);
        // Undo the travel and the turn in model space, about the joint's own position, then
        // express the result in the parent's space again.
        let fix = Mat4::from_translation(Vec3::new(start_pos.x, pos.y, start_pos.z))
            * Mat4::from_quat(Quat::from_rotation_y(start_yaw - y))
            * Mat4::from_translation(-pos);
        let new_local = Transform::from_mat4(&(parent.inverse() * fix * world));
        // Scale channels are left as they are: only translation and rotation carry motion.
        translations.push(new_local.translation.extend(0.0));
        rotations.push(Vec4::from(new_local.rotation));
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::{Interpolation, Property, RawChannel, RawClip};
    use crate::anim::skeleton::RawSkeleton;

    #[test]
    fn extraction_happens_in_model_space_under_a_z_up_armature() {
        // A root joint under a Z-up armature (rotated -90 degrees about X, scaled 100, like
        // RobotExpressive's): its local +Y is model -Z (forward travel), its local +Z is model
        // +Y (up).
        let base = Mat4::from_scale_rotation_translation(
            Vec3::splat(100.0),
            Quat::from_rotation_x(-std::f32::consts::FRAC_PI_2),
            Vec3::ZERO,
        );
        let skeleton = RawSkeleton {
            names: vec!["root".into()],
            parents: vec![None],
            rest: vec![Transform::IDENTITY],
            inverse_bind: vec![base.inverse()],
            root_bases: vec![base],
        }
        .validate()
        .unwrap();
        // Travel 0.01 local units along +Y per second (1 m/s in model space) while bobbing
        // along local Z (vertical in model space).
        let times = vec![0.0, 0.5, 1.0];
        let values = vec![
            Vec4::new(0.0, 0.0, 0.0, 0.0),
            Vec4::new(0.0, 0.005, 0.001, 0.0),
            Vec4::new(0.0, 0.01, 0.0, 0.0),
        ];
        let clip = RawClip {
            name: "walk".into(),
            channels: vec![RawChannel {
                joint: 0,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                times,
                values,
            }],
        }
        .validate(&skeleton)
        .unwrap();
        let (in_place, track) = extract(&clip, &skeleton, 0).unwrap();
        let (travel, turn) = track.cycle();
        // 1e-5 m: f32 products through a scale of 100.
        assert!(travel.abs_diff_eq(Vec2::new(0.0, -1.0), 1e-5), "{travel}");
        assert!(turn.abs() < 1e-6);
        // In place: no horizontal travel left, the bob kept.
        let mut pose = vec![Transform::IDENTITY];
        let mut model = vec![Mat4::IDENTITY];
        for (t, bob) in [(0.5, 0.1), (1.0, 0.0)] {
            sample(&in_place, &skeleton, t, &mut pose);
            local_to_model(&skeleton, &pose, &mut model);
            let p = model[0].w_axis.truncate();
            assert!(p.abs_diff_eq(Vec3::new(0.0, bob, 0.0), 1e-5), "t={t}: {p}");
        }
        assert!((track.speed() - 1.0).abs() < 1e-5);
    }

    #[test]
    fn refuses_absurdly_long_clips() {
        let skeleton = RawSkeleton {
            names: vec!["root".into()],
            parents: vec![None],
            rest: vec![Transform::IDENTITY],
            inverse_bind: vec![Mat4::IDENTITY],
            root_bases: vec![Mat4::IDENTITY],
        }
        .validate()
        .unwrap();
        let clip = RawClip {
            name: "long".into(),
            channels: vec![RawChannel {
                joint: 0,
                property: Property::Translation,
                interpolation: Interpolation::Step,
                times: vec![0.0, 1.0e7],
                values: vec![Vec4::ZERO, Vec4::ONE],
            }],
        }
        .validate(&skeleton)
        .unwrap();
        let err = extract(&clip, &skeleton, 0).unwrap_err().to_string();
        assert!(
            err.contains("root motion is extracted for clips up to 3600 s"),
            "{err}"
        );
    }
}
