//! Sampling clips into local poses: key search (binary search, or O(1) with a cursor for
//! monotonic playback; once for each run of channels keyed at the same times) and the three
//! glTF interpolations, with LINEAR rotations slerped four at a time, two batches side by side.

use glam::{BVec4A, Quat, Vec4};

use super::clip::{Channel, Clip, Interpolation, Property};
use super::skeleton::Skeleton;
use super::transform::{Transform, slerp_shortest};
#[cfg(target_arch = "x86_64")]
use super::wide::avx;
use super::wide::slerp_shortest4;

/// What happens to times outside `[0, duration]`: they wrap round (a loop) or hold at the
/// ends.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Wrap {
    /// Time wraps modulo the duration (a time equal to the duration is the start again).
    #[default]
    Loop,
    /// Time is clamped to `[0, duration]`; the ends hold.
    Clamp,
}

impl Clip {
    /// Maps a playback time in seconds to clip time in `[0, duration]`. Non-finite times map to
    /// 0; a clip of zero duration always gives 0.
    pub fn local_time(&self, time: f32, wrap: Wrap) -> f32 {
        let d = self.duration();
        if !time.is_finite() || d <= 0.0 {
            return 0.0;
        }
        match wrap {
            Wrap::Clamp => time.clamp(0.0, d),
            Wrap::Loop => {
                let t = time.rem_euclid(d);
                // rem_euclid can round up to exactly d for tiny negative inputs.
                if t >= d { 0.0 } else { t }
            }
        }
    }
}

/// Per-instance playback state for one clip: the last key index of each of its timelines
/// (channels keyed at the same times share one; see [`Clip::timeline_count`]), so that
/// monotonic playback finds its keys in O(1) instead of a binary search. Shared clip data stays
/// immutable; each playing instance owns one cursor.
#[derive(Clone, Debug, Default)]
pub struct ClipCursor {
    keys: Vec<u32>,
}

impl ClipCursor {
    /// A cursor for `clip`, positioned at its start.
    pub fn new(clip: &Clip) -> Self {
        Self {
            keys: vec![0; clip.timeline_count()],
        }
    }
}

/// Where a time falls among a channel's keys.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Segment {
    /// At or outside the ends, or exactly on key `k`: the key's value holds.
    Hold(usize),
    /// Between key `k` and `k + 1`, at fraction `u` in `[0, 1)`.
    Between(usize, f32),
}

/// Finds the segment for `t`. `hint` is the key found last time: checked first, then its
/// successor, then a binary search, so forward playback costs O(1).
#[inline(always)]
fn locate(times: &[f32], t: f32, hint: &mut u32) -> Segment {
    let n = times.len();
    // Validated channels have at least one key.
    let (first, last) = (times[0], times[n - 1]);
    if t <= first {
        *hint = 0;
        return Segment::Hold(0);
    }
    if t >= last {
        *hint = (n - 1) as u32;
        return Segment::Hold(n - 1);
    }
    let h = *hint as usize;
    // Here n >= 2 and first < t < last, so a k with times[k] <= t < times[k + 1] exists.
    let k = if h + 1 < n && times[h] <= t && t < times[h + 1] {
        h
    } else if h + 2 < n && times[h + 1] <= t && t < times[h + 2] {
        h + 1
    } else {
        times.partition_point(|&x| x <= t) - 1
    };
    *hint = k as u32;
    let (t0, t1) = (times[k], times[k + 1]);
    Segment::Between(k, (t - t0) / (t1 - t0))
}

/// Evaluates one channel where its time fell among its keys (`locate`).
#[inline(always)]
fn eval(channel: &Channel, seg: Segment) -> Vec4 {
    let times = channel.times();
    let values = channel.values();
    match channel.interpolation() {
        Interpolation::Step => match seg {
            Segment::Hold(k) | Segment::Between(k, _) => values[k],
        },
        Interpolation::Linear => match seg {
            Segment::Hold(k) => values[k],
            Segment::Between(k, u) => {
                let (a, b) = (values[k], values[k + 1]);
                if channel.property() == Property::Rotation {
                    Vec4::from(slerp_shortest(Quat::from_vec4(a), Quat::from_vec4(b), u))
                } else {
                    a.lerp(b, u)
                }
            }
        },
        Interpolation::CubicSpline => match seg {
            // Layout per key: in-tangent, value, out-tangent.
            Segment::Hold(k) => values[3 * k + 1],
            Segment::Between(k, u) => {
                let dt = times[k + 1] - times[k];
                let (u2, u3) = (u * u, u * u * u);
                let p0 = values[3 * k + 1];
                let m0 = values[3 * k + 2] * dt;
                let p1 = values[3 * k + 4];
                let m1 = values[3 * k + 3] * dt;
                let p = p0 * (2.0 * u3 - 3.0 * u2 + 1.0)
                    + m0 * (u3 - 2.0 * u2 + u)
                    + p1 * (-2.0 * u3 + 3.0 * u2)
                    + m1 * (u3 - u2);
                // The Hermite curve leaves the unit sphere; the specification normalises.
                if channel.property() == Property::Rotation {
                    p.normalize()
                } else {
                    p
                }
            }
        },
    }
}

#[inline(always)]
fn apply(channel: &Channel, value: Vec4, out: &mut [Transform]) {
    let target = &mut out[channel.joint()];
    match channel.property() {
        Property::Translation => target.translation = value.truncate(),
        Property::Scale => target.scale = value.truncate(),
        // As written: keys and slerps keep the file's lengths (see `RawClip::validate`); the
        // CUBICSPLINE branch of `eval` normalises what it computes.
        Property::Rotation => target.rotation = Quat::from_vec4(value),
    }
}

/// Samples `clip` at clip time `time` (seconds; see [`Clip::local_time`]) into `out`, one local
/// transform per joint of `skeleton`. Joints without a channel get their rest pose; times before
/// the first key or after the last hold the end values. Random access: a binary search per
/// run of channels keyed at the same times (usually one for the whole clip).
///
/// # Panics
/// If `out.len() != skeleton.len()` or if `clip` was validated against another skeleton
/// with more joints.
pub fn sample(clip: &Clip, skeleton: &Skeleton, time: f32, out: &mut [Transform]) {
    sample_into(clip, skeleton, time, None, out);
}

/// Runs [`sample_into_in`], compiled for AVX where the CPU has it (the same bits; see
/// `wide::avx`).
#[inline]
fn sample_into(
    clip: &Clip,
    skeleton: &Skeleton,
    time: f32,
    hints: Option<&mut [u32]>,
    out: &mut [Transform],
) {
    #[cfg(target_arch = "x86_64")]
    if avx() {
        // SAFETY: the CPU has AVX, checked just above.
        return unsafe { sample_into_avx(clip, skeleton, time, hints, out) };
    }
    sample_into_in(clip, skeleton, time, hints, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx")]
fn sample_into_avx(
    clip: &Clip,
    skeleton: &Skeleton,
    time: f32,
    hints: Option<&mut [u32]>,
    out: &mut [Transform],
) {
    sample_into_in(clip, skeleton, time, hints, out);
}

/// Like [`sample`], but uses and updates `cursor` so that monotonic playback finds keys in O(1).
/// The result is identical to [`sample`] for any time, in any order.
///
/// # Panics
/// As [`sample`], and if `cursor` was made for a clip with another number of timelines.
pub fn sample_with_cursor(
    clip: &Clip,
    skeleton: &Skeleton,
    time: f32,
    cursor: &mut ClipCursor,
    out: &mut [Transform],
) {
    assert_eq!(
        cursor.keys.len(),
        clip.timeline_count(),
        "cursor made for another clip"
    );
    sample_into(clip, skeleton, time, Some(&mut cursor.keys), out);
}

/// Both samplers: the channels in order, each as [`eval`] and [`apply`] would give it, with
/// two shortcuts that keep the bits:
/// - a timeline's segment is found once for a run of channels on it (`locate` depends only on
///   the times and `time`; the hint only makes it faster);
/// - LINEAR rotations between two keys (most of a clip's work) wait in a [`Pending`] batch of
///   up to eight and run as two four-wide slerps side by side.
///
/// `hints` is the cursor (one hint per timeline), or `None` for a binary search per run.
#[inline(always)]
fn sample_into_in(
    clip: &Clip,
    skeleton: &Skeleton,
    time: f32,
    mut hints: Option<&mut [u32]>,
    out: &mut [Transform],
) {
    out.copy_from_slice(skeleton.rest());
    let mut pending = Pending::default();
    // The last timeline located, and where `time` fell among its keys.
    let mut found: Option<(u32, Segment)> = None;
    for channel in clip.channels() {
        let segment = match found {
            Some((timeline, segment)) if timeline == channel.timeline => segment,
            _ => {
                let mut fresh = 0;
                let hint = match hints.as_deref_mut() {
                    Some(keys) => &mut keys[channel.timeline as usize],
                    None => &mut fresh,
                };
                let segment = locate(channel.times(), time, hint);
                found = Some((channel.timeline, segment));
                segment
            }
        };
        if channel.property() == Property::Rotation {
            let joint = channel.joint();
            if let (Interpolation::Linear, Segment::Between(k, u)) =
                (channel.interpolation(), segment)
            {
                let values = channel.values();
                let (a, b) = (values[k], values[k + 1]);
                pending.push(Quat::from_vec4(a), Quat::from_vec4(b), u, joint, out);
                continue;
            }
            // A rotation written now must not be overwritten by an earlier channel's slerp
            // still waiting for the same joint (a file may drive a joint twice: the last wins).
            pending.settle(joint, out);
        }
        apply(channel, eval(channel, segment), out);
    }
    pending.flush(out);
}

/// Up to eight LINEAR rotation slerps waiting to run as two four-wide slerps
/// ([`slerp_shortest4`]). Two batches a flush, because each slerp is a chain of dependent
/// multiply-adds (its series) that the CPU cannot shorten: two independent chains side by side
/// take little longer than one, where a batch run on its own leaves the CPU waiting.
struct Pending {
    a: [Quat; 8],
    b: [Quat; 8],
    /// The fractions, a group of four to a `Vec4`: each is set by a lane blend, so the flush
    /// reads them back whole from a 16-byte store (four 4-byte stores read as one load cannot
    /// be forwarded, and the slerp would wait for them to reach the cache).
    u: [Vec4; 2],
    joints: [usize; 8],
    len: usize,
}

impl Default for Pending {
    fn default() -> Self {
        // Unused lanes compute on identities: finite, and their results are dropped.
        Self {
            a: [Quat::IDENTITY; 8],
            b: [Quat::IDENTITY; 8],
            u: [Vec4::ZERO; 2],
            joints: [0; 8],
            len: 0,
        }
    }
}

/// Lane `i` of a group of four, as a mask for [`Vec4::select`].
const LANE: [BVec4A; 4] = [
    BVec4A::new(true, false, false, false),
    BVec4A::new(false, true, false, false),
    BVec4A::new(false, false, true, false),
    BVec4A::new(false, false, false, true),
];

impl Pending {
    /// Queues `joint`'s rotation `slerp_shortest(a, b, u)`; runs the batch when it is full.
    #[inline(always)]
    fn push(&mut self, a: Quat, b: Quat, u: f32, joint: usize, out: &mut [Transform]) {
        let i = self.len;
        (self.a[i], self.b[i], self.joints[i]) = (a, b, joint);
        let group = &mut self.u[i / 4];
        *group = Vec4::select(LANE[i % 4], Vec4::splat(u), *group);
        self.len += 1;
        if self.len == 8 {
            self.flush(out);
        }
    }

    /// Runs the batch first if a slerp for `joint` is waiting in it.
    #[inline(always)]
    fn settle(&mut self, joint: usize, out: &mut [Transform]) {
        if self.joints[..self.len].contains(&joint) {
            self.flush(out);
        }
    }

    /// Runs the waiting slerps and writes their rotations, in the order they came.
    #[inline(always)]
    fn flush(&mut self, out: &mut [Transform]) {
        if self.len == 0 {
            return;
        }
        let group = |q: &[Quat; 8], g: usize| -> [Quat; 4] {
            q[4 * g..4 * g + 4].try_into().expect("groups of four")
        };
        let first = slerp_shortest4(&group(&self.a, 0), &group(&self.b, 0), self.u[0]);
        let second = if self.len > 4 {
            slerp_shortest4(&group(&self.a, 1), &group(&self.b, 1), self.u[1])
        } else {
            first
        };
        for (q, &joint) in first.iter().chain(&second).zip(&self.joints).take(self.len) {
            out[joint].rotation = *q;
        }
        self.len = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::anim::clip::RawChannel;
    use crate::anim::clip::RawClip;
    use crate::anim::skeleton::tests::sample_skeleton;

    fn clip_with(channel: RawChannel) -> Clip {
        RawClip {
            name: "test".into(),
            channels: vec![channel],
        }
        .validate(&sample_skeleton())
        .unwrap()
    }

    fn translation(interpolation: Interpolation, times: &[f32], values: &[f32]) -> Clip {
        clip_with(RawChannel {
            joint: 1,
            property: Property::Translation,
            interpolation,
            times: times.to_vec(),
            values: values
                .iter()
                .map(|&x| Vec4::new(x, 0.0, 0.0, 0.0))
                .collect(),
        })
    }

    fn x_at(clip: &Clip, t: f32) -> f32 {
        let s = sample_skeleton();
        let mut pose = vec![Transform::IDENTITY; s.len()];
        sample(clip, &s, t, &mut pose);
        pose[1].translation.x
    }

    #[test]
    fn step_holds_the_earlier_key() {
        let c = translation(Interpolation::Step, &[0.0, 1.0, 2.0], &[10.0, 20.0, 30.0]);
        assert_eq!(x_at(&c, 0.0), 10.0);
        assert_eq!(x_at(&c, 0.999), 10.0);
        assert_eq!(x_at(&c, 1.0), 20.0);
        assert_eq!(x_at(&c, 1.5), 20.0);
        assert_eq!(x_at(&c, 2.0), 30.0);
        assert_eq!(x_at(&c, 7.0), 30.0);
    }

    #[test]
    fn linear_by_hand() {
        // Keys (0.5, 2) and (2.5, 6): at t = 1.0, u = 0.25, value 2 + 0.25 * 4 = 3.
        let c = translation(Interpolation::Linear, &[0.5, 2.5], &[2.0, 6.0]);
        assert_eq!(x_at(&c, 1.0), 3.0);
        assert_eq!(x_at(&c, 2.0), 5.0);
        // Before the first key and after the last, the ends hold.
        assert_eq!(x_at(&c, 0.0), 2.0);
        assert_eq!(x_at(&c, 3.0), 6.0);
        assert_eq!(c.duration(), 2.5);
    }

    #[test]
    fn cubic_spline_by_hand() {
        // Two keys at t=1 and t=3 (dt = 2). Per key: in-tangent, value, out-tangent.
        // p0 = 1, out-tangent b0 = 0.5; p1 = 4, in-tangent a1 = -1.
        // At t = 2: u = 0.5, u^2 = 0.25, u^3 = 0.125:
        //   h00 = 2u^3 - 3u^2 + 1 = 0.5,  h10 = u^3 - 2u^2 + u = 0.125,
        //   h01 = -2u^3 + 3u^2 = 0.5,     h11 = u^3 - u^2 = -0.125.
        //   p = 0.5*1 + 0.125*(2*0.5) + 0.5*4 + (-0.125)*(2*-1) = 0.5 + 0.125 + 2 + 0.25 = 2.875
        let c = translation(
            Interpolation::CubicSpline,
            &[1.0, 3.0],
            &[9.0, 1.0, 0.5, -1.0, 4.0, 9.0],
        );
        assert!((x_at(&c, 2.0) - 2.875).abs() < 1e-6);
        // At t = 1.5: u = 0.25: h00 = 0.84375, h10 = 0.140625, h01 = 0.15625, h11 = -0.046875.
        //   p = 0.84375 + 0.140625*1 + 0.15625*4 + (-0.046875)*(-2) = 1.703125
        assert!((x_at(&c, 1.5) - 1.703125).abs() < 1e-6);
        // Keys hold the value (not a tangent) at and beyond the ends.
        assert_eq!(x_at(&c, 1.0), 1.0);
        assert_eq!(x_at(&c, 0.0), 1.0);
        assert_eq!(x_at(&c, 5.0), 4.0);
    }

    #[test]
    fn cubic_rotation_is_normalised() {
        let q0 = Quat::IDENTITY;
        let q1 = Quat::from_rotation_z(1.0);
        let c = clip_with(RawChannel {
            joint: 2,
            property: Property::Rotation,
            interpolation: Interpolation::CubicSpline,
            times: vec![0.0, 1.0],
            values: vec![
                Vec4::ZERO,
                q0.into(),
                Vec4::ZERO,
                Vec4::ZERO,
                q1.into(),
                Vec4::ZERO,
            ],
        });
        let s = sample_skeleton();
        let mut pose = vec![Transform::IDENTITY; s.len()];
        sample(&c, &s, 0.5, &mut pose);
        assert!((pose[2].rotation.length() - 1.0).abs() < 1e-6);
        // With zero tangents the curve is symmetric: the normalised midpoint of q0 and q1 is the
        // 0.5 rad rotation (the sum q0 + q1 points along their bisector).
        assert!(
            pose[2]
                .rotation
                .abs_diff_eq(Quat::from_rotation_z(0.5), 1e-6)
        );
    }

    #[test]
    fn linear_rotation_slerps_the_short_way() {
        let c = clip_with(RawChannel {
            joint: 0,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: vec![0.0, 1.0],
            values: vec![Quat::IDENTITY.into(), (-Quat::from_rotation_x(1.0)).into()],
        });
        let s = sample_skeleton();
        let mut pose = vec![Transform::IDENTITY; s.len()];
        sample(&c, &s, 0.25, &mut pose);
        let expected = Quat::from_rotation_x(0.25);
        assert!(pose[0].rotation.dot(expected).abs() > 1.0 - 1e-6);
    }

    #[test]
    fn untouched_joints_keep_rest_pose() {
        let c = translation(Interpolation::Linear, &[0.0, 1.0], &[0.0, 1.0]);
        let s = sample_skeleton();
        let mut pose = vec![Transform::IDENTITY; s.len()];
        sample(&c, &s, 0.5, &mut pose);
        assert_eq!(pose[3], s.rest()[3]);
        assert_eq!(pose[2], s.rest()[2]);
    }

    #[test]
    fn loop_and_clamp_time() {
        let c = translation(Interpolation::Linear, &[0.0, 2.0], &[0.0, 1.0]);
        assert_eq!(c.local_time(2.5, Wrap::Loop), 0.5);
        assert_eq!(c.local_time(2.0, Wrap::Loop), 0.0);
        assert_eq!(c.local_time(-0.5, Wrap::Loop), 1.5);
        assert_eq!(c.local_time(2.5, Wrap::Clamp), 2.0);
        assert_eq!(c.local_time(-1.0, Wrap::Clamp), 0.0);
        assert_eq!(c.local_time(f32::NAN, Wrap::Loop), 0.0);
    }

    #[test]
    fn cursor_matches_binary_search_in_any_order() {
        let times: Vec<f32> = (0..50)
            .map(|i| i as f32 * 0.1 + (i % 3) as f32 * 0.01)
            .collect();
        let values: Vec<f32> = (0..50).map(|i| ((i * 7) % 11) as f32).collect();
        let c = translation(Interpolation::Linear, &times, &values);
        let s = sample_skeleton();
        let mut cursor = ClipCursor::new(&c);
        let (mut a, mut b) = (vec![Transform::IDENTITY; 4], vec![Transform::IDENTITY; 4]);
        // Forward steps, a jump back, and far beyond the end.
        let probe = (0..200)
            .map(|i| i as f32 * 0.027)
            .chain([1.0, 0.0, 4.9, 100.0, 2.2, 2.21, 2.3]);
        for t in probe {
            sample(&c, &s, t, &mut a);
            sample_with_cursor(&c, &s, t, &mut cursor, &mut b);
            assert_eq!(a, b, "t = {t}");
        }
    }

    /// The samplers as they were before batching: every channel on its own, in order, with
    /// the scalar slerp. The reference the batched samplers must equal bit for bit.
    fn one_by_one(clip: &Clip, skeleton: &Skeleton, t: f32, out: &mut [Transform]) {
        out.copy_from_slice(skeleton.rest());
        for channel in clip.channels() {
            let segment = locate(channel.times(), t, &mut 0);
            apply(channel, eval(channel, segment), out);
        }
    }

    fn pose_bits(pose: &[Transform]) -> Vec<u32> {
        pose.iter()
            .flat_map(|t| {
                let (r, p, s) = (t.rotation, t.translation, t.scale);
                r.to_array()
                    .into_iter()
                    .chain(p.to_array())
                    .chain(s.to_array())
            })
            .map(f32::to_bits)
            .collect()
    }

    /// Batched slerps and shared timelines give the one-by-one bits: two timelines interleaved,
    /// a joint's rotation driven twice (by LINEAR then STEP, by STEP then LINEAR, and twice by
    /// LINEAR within one batch: the last channel wins each time), CUBICSPLINE among them, keys
    /// far apart in alternating hemispheres, and times before, on, between and after the keys,
    /// forwards and backwards; by both samplers and by the plain copy of the AVX one.
    #[test]
    fn batched_sampling_is_channel_by_channel_sampling() {
        let a: Vec<f32> = (0..9).map(|i| i as f32 * 0.25).collect();
        let b: Vec<f32> = (0..5).map(|i| 0.1 + i as f32 * 0.4).collect();
        let turn = |axis: glam::Vec3, k: usize| {
            Vec4::from(Quat::from_axis_angle(
                axis.normalize(),
                0.3 * k as f32 - 0.5,
            ))
        };
        let channel = |joint, property, interpolation, times: &Vec<f32>, axis| {
            let per_key = if interpolation == Interpolation::CubicSpline {
                3
            } else {
                1
            };
            let values = (0..times.len() * per_key)
                .map(|i| match property {
                    Property::Rotation => turn(axis, i),
                    _ => Vec4::new(i as f32 * 0.1, 1.0, -(i as f32), 0.0),
                })
                .collect();
            RawChannel {
                joint,
                property,
                interpolation,
                times: times.clone(),
                values,
            }
        };
        // Keys far apart (about 150 degrees, the trigonometric weights) and in alternating
        // hemispheres, through the batch as well.
        let far = |joint, times: &Vec<f32>| RawChannel {
            joint,
            property: Property::Rotation,
            interpolation: Interpolation::Linear,
            times: times.clone(),
            values: (0..times.len())
                .map(|i| {
                    let q = Quat::from_axis_angle(glam::Vec3::Z, 2.6 * i as f32);
                    Vec4::from(if i % 2 == 1 { -q } else { q })
                })
                .collect(),
        };
        use Interpolation::{CubicSpline, Linear, Step};
        use Property::{Rotation, Scale, Translation};
        let (x, y, z) = (
            glam::Vec3::X,
            glam::Vec3::Y,
            glam::Vec3::new(1.0, 2.0, -1.0),
        );
        let clip = RawClip {
            name: "mixed".into(),
            channels: vec![
                channel(0, Rotation, Linear, &a, x),
                channel(1, Translation, Linear, &a, x),
                channel(1, Rotation, Linear, &b, y),
                channel(2, Rotation, Step, &a, z),
                channel(2, Rotation, Linear, &b, x),
                channel(0, Rotation, CubicSpline, &a, y),
                channel(3, Rotation, Linear, &a, z),
                channel(3, Scale, Linear, &b, y),
                channel(1, Rotation, Linear, &a, z),
                channel(3, Rotation, Linear, &b, x),
                channel(0, Rotation, Linear, &b, z),
                far(2, &a),
                far(3, &a),
            ],
        }
        .validate(&sample_skeleton())
        .unwrap();
        assert_eq!(clip.timeline_count(), 2);
        let s = sample_skeleton();
        let mut cursor = ClipCursor::new(&clip);
        let mut reference = vec![Transform::IDENTITY; s.len()];
        let (mut random, mut played, mut plain) =
            (reference.clone(), reference.clone(), reference.clone());
        let times = (0..300)
            .map(|i| i as f32 * 0.0093 - 0.2)
            .chain(a.iter().chain(&b).copied())
            .chain((0..50).map(|i| 2.5 - i as f32 * 0.047));
        for t in times {
            one_by_one(&clip, &s, t, &mut reference);
            sample(&clip, &s, t, &mut random);
            sample_with_cursor(&clip, &s, t, &mut cursor, &mut played);
            assert_eq!(pose_bits(&random), pose_bits(&reference), "sample at {t}");
            assert_eq!(pose_bits(&played), pose_bits(&reference), "cursor at {t}");
            // The plain copy, which a CPU with AVX never runs through `sample`.
            sample_into_in(&clip, &s, t, None, &mut plain);
            assert_eq!(
                pose_bits(&plain),
                pose_bits(&reference),
                "plain copy at {t}"
            );
        }
    }

    /// A batch fills past four and past eight: thirteen joints each driven by a LINEAR
    /// rotation on one of two timelines, some keyed far apart, with joint 6 driven again after the first batch of eight
    /// (the later channel wins) and joint 3 again within it (the batch runs first); the bits are
    /// the one-by-one sampler's, by both samplers and the plain copy.
    #[test]
    fn full_batches_of_eight_are_channel_by_channel_sampling() {
        let joints: usize = 13;
        let skeleton = crate::anim::skeleton::RawSkeleton {
            names: (0..joints).map(|j| format!("j{j}")).collect(),
            parents: (0..joints).map(|j| j.checked_sub(1)).collect(),
            rest: vec![Transform::IDENTITY; joints],
            inverse_bind: vec![glam::Mat4::IDENTITY; joints],
            root_bases: vec![glam::Mat4::IDENTITY; joints],
        }
        .validate()
        .unwrap();
        // Two timelines, alternating, so that the lanes of a batch have different fractions.
        let timelines: [Vec<f32>; 2] = [
            (0..7).map(|i| i as f32 * 0.3).collect(),
            (0..5).map(|i| 0.05 + i as f32 * 0.37).collect(),
        ];
        let rotation = |joint: usize, step: f32| -> RawChannel {
            let times = &timelines[joint % 2];
            RawChannel {
                joint,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: (0..times.len())
                    .map(|k| {
                        let axis = glam::Vec3::new(1.0, joint as f32, -2.0).normalize();
                        Vec4::from(Quat::from_axis_angle(
                            axis,
                            step * k as f32 + 0.1 * joint as f32,
                        ))
                    })
                    .collect(),
            }
        };
        let mut channels: Vec<RawChannel> = (0..joints)
            .map(|j| rotation(j, if j % 5 == 2 { 2.4 } else { 0.35 }))
            .collect();
        channels.insert(5, rotation(3, -0.5));
        channels.push(rotation(6, 0.9));
        let clip = RawClip {
            name: "thirteen".into(),
            channels,
        }
        .validate(&skeleton)
        .unwrap();
        let mut cursor = ClipCursor::new(&clip);
        let mut reference = vec![Transform::IDENTITY; joints];
        let (mut random, mut played, mut plain) =
            (reference.clone(), reference.clone(), reference.clone());
        for i in 0..250 {
            let t = i as f32 * 0.0091 - 0.1;
            one_by_one(&clip, &skeleton, t, &mut reference);
            sample(&clip, &skeleton, t, &mut random);
            sample_with_cursor(&clip, &skeleton, t, &mut cursor, &mut played);
            sample_into_in(&clip, &skeleton, t, None, &mut plain);
            assert_eq!(pose_bits(&random), pose_bits(&reference), "sample at {t}");
            assert_eq!(pose_bits(&played), pose_bits(&reference), "cursor at {t}");
            assert_eq!(pose_bits(&plain), pose_bits(&reference), "plain at {t}");
        }
    }

    #[test]
    fn locate_uses_hint_and_successor() {
        let times = [0.0, 1.0, 2.0, 3.0];
        let mut hint = 1;
        assert_eq!(locate(&times, 1.5, &mut hint), Segment::Between(1, 0.5));
        assert_eq!(locate(&times, 2.5, &mut hint), Segment::Between(2, 0.5));
        assert_eq!(hint, 2);
        assert_eq!(locate(&times, 0.5, &mut hint), Segment::Between(0, 0.5));
        assert_eq!(locate(&times, 3.0, &mut hint), Segment::Hold(3));
    }
}
