//! What the GPU reads per instance: the [`InstanceRecord`] (place, scale, frames, weights,
//! tint) and the [`FramePose`] inside it, the frames and weights both skinning paths read,
//! found from a [`Playback`] (animations, times, fade) in a bake. Crowd agents and the test
//! scene's placements both yield a `Playback`, so the pose is found from it in one place.

use bytemuck::{Pod, Zeroable};
use glam::{Vec3, Vec4};

use crate::format::{TEXELS_PER_MATRIX, Texels, ThrongFile};

/// Which frames an instance shows: frame bases as matrix indices (the texel index of joint 0,
/// row 0, divided by 3) and weights, as skinning.wgsl's `Pose`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FramePose {
    /// A's first frame base.
    pub a0: u32,
    /// A's second frame base.
    pub a1: u32,
    /// Weight of A's second frame, in [0, 1).
    pub aw: f32,
    /// B's first frame base.
    pub b0: u32,
    /// B's second frame base.
    pub b1: u32,
    /// Weight of B's second frame, in [0, 1).
    pub bw: f32,
    /// Weight of B, in [0, 1].
    pub fade: f32,
}

impl FramePose {
    /// The pose a record shows.
    pub fn from_record(r: &InstanceRecord) -> Self {
        Self {
            a0: r.frames[0],
            a1: r.frames[1],
            aw: r.weights[1],
            b0: r.frames[2],
            b1: r.frames[3],
            bw: r.weights[2],
            fade: r.weights[3],
        }
    }
}

/// What an instance plays: animation A at `time_a`, cross-faded into B at `time_b` by `fade`.
/// Crowd agents ([`crate::crowd::Agent::playback`]) and the test scene's placements
/// ([`crate::crowd::scene::Placement::playback`]) yield one; [`Playback::frame_pose`] is the one way
/// either is turned into the frames it shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Playback {
    /// Animation A (an index into the file's animations).
    pub anim_a: u32,
    /// Seconds into A.
    pub time_a: f32,
    /// Animation B (not looked up while `fade` is 0).
    pub anim_b: u32,
    /// Seconds into B.
    pub time_b: f32,
    /// Weight of B, in [0, 1].
    pub fade: f32,
}

impl Playback {
    /// The frames this shows in `file`: A's at `time_a` cross-faded with B's at `time_b` by
    /// `fade` (B is not looked up when it is 0). Animation indices are trusted: the file is
    /// validated (every animation starts at a whole matrix) and callers take them from it.
    // Always inlined: see `ThrongFile::matrices_at`.
    #[inline(always)]
    pub fn frame_pose(&self, file: &ThrongFile) -> FramePose {
        let Self {
            anim_a,
            time_a,
            anim_b,
            time_b,
            fade,
        } = *self;
        let side = |anim: u32, t: f32| file.matrices_at(anim as usize, t);
        let (a0, a1, aw) = side(anim_a, time_a);
        let (b0, b1, bw) = if fade > 0.0 {
            side(anim_b, time_b)
        } else {
            (a0, a1, 0.0)
        };
        FramePose {
            a0,
            a1,
            aw,
            b0,
            b1,
            bw,
            fade,
        }
    }
}

/// One instance as the vertex shader reads it (52 bytes): see `Instance` in crowd.wgsl.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct InstanceRecord {
    /// Position (xyz, metres) and heading (radians about +y).
    pub place: [f32; 4],
    /// Scale, weight of A's second frame, weight of B's second frame, weight of B.
    pub weights: [f32; 4],
    /// Frame bases as matrix indices: A first, A second, B first, B second.
    pub frames: [u32; 4],
    /// Tint, RGBA8 unorm.
    pub tint: [u8; 4],
}

impl InstanceRecord {
    /// The record of an instance at `position` (metres) turned by `heading` (radians about
    /// +y), scaled uniformly by `scale`, tinted by `tint` and showing `pose`.
    pub fn new(position: Vec3, heading: f32, scale: f32, tint: [u8; 4], pose: &FramePose) -> Self {
        Self {
            place: [position.x, position.y, position.z, heading],
            weights: [scale, pose.aw, pose.bw, pose.fade],
            frames: [pose.a0, pose.a1, pose.b0, pose.b1],
            tint,
        }
    }
}

/// A linear RGBA colour in [0, 1] as RGBA8 unorm.
pub fn rgba8(c: [f32; 4]) -> [u8; 4] {
    c.map(|v| (v.clamp(0.0, 1.0) * 255.0).round() as u8)
}

/// Three rows of a 3x4 matrix, as the texels hold them.
pub type Rows = [Vec4; 3];

/// The rows of matrix `base + joint` (texels `3 (base + joint)` to `+ 2`). f16 texels are
/// converted 12 values at a time (F16C where the CPU has it), as the GPU's sampler would.
#[inline]
fn rows_at(t: &Texels, base: u32, joint: u32) -> Rows {
    let i = (base as usize + joint as usize) * TEXELS_PER_MATRIX as usize;
    match t {
        Texels::F32(v) => [
            Vec4::from_array(v[i]),
            Vec4::from_array(v[i + 1]),
            Vec4::from_array(v[i + 2]),
        ],
        Texels::F16(v) => {
            use half::slice::{HalfBitsSliceExt as _, HalfFloatSliceExt as _};
            let bits: [u16; 12] = bytemuck::cast([v[i], v[i + 1], v[i + 2]]);
            let mut out = [0.0f32; 12];
            bits.reinterpret_cast::<half::f16>()
                .convert_to_f32_slice(&mut out);
            [
                Vec4::from_slice(&out[0..4]),
                Vec4::from_slice(&out[4..8]),
                Vec4::from_slice(&out[8..12]),
            ]
        }
    }
}

/// WGSL's `mix`: `a × (1 − t) + b × t`.
#[inline]
fn mix(a: Vec4, b: Vec4, t: f32) -> Vec4 {
    a * (1.0 - t) + b * t
}

#[inline]
fn mix_rows(a: Rows, b: Rows, t: f32) -> Rows {
    [mix(a[0], b[0], t), mix(a[1], b[1], t), mix(a[2], b[2], t)]
}

/// Joint `joint`'s matrix rows (the top three rows of its skinning matrix) for `pose`, as
/// `joint_rows` in skinning.wgsl: the CPU skinning path and the hybrid path's live tier read
/// the bake's poses through it.
#[inline]
pub fn joint_rows(t: &Texels, pose: &FramePose, joint: u32) -> Rows {
    let mut a = rows_at(t, pose.a0, joint);
    if pose.aw > 0.0 {
        a = mix_rows(a, rows_at(t, pose.a1, joint), pose.aw);
    }
    if pose.fade > 0.0 {
        let mut b = rows_at(t, pose.b0, joint);
        if pose.bw > 0.0 {
            b = mix_rows(b, rows_at(t, pose.b1, joint), pose.bw);
        }
        a = mix_rows(a, b, pose.fade);
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::testing::{SynthAnim, synthetic_file};
    use crate::format::records::anim_flags;

    /// `frames_at` skips `fmodf` within the first lap and truncates where it floored: the
    /// sampling rule of docs/FORMAT.md as written (`rem_euclid`, `floor`) gives the same
    /// frames and the same weight bits at every time, inside a lap or not, negative, huge,
    /// on frame boundaries and on the end; and `matrices_at` the same frames' matrices as
    /// `frame_base`.
    #[test]
    fn frames_at_is_the_sampling_rule_to_the_bit() {
        let file = synthetic_file(
            &[vec![
                SynthAnim::clip("loop", true),
                SynthAnim::clip("hold", false),
            ]],
            1,
        );
        let rule = |anim: usize, time: f32| {
            let a = &file.anims()[anim];
            let (n, d) = (a.frame_count, a.duration);
            if a.flags & anim_flags::LOOPING != 0 {
                let x = (time / d).rem_euclid(1.0) * n as f32;
                let f0 = (x.floor() as u32).min(n - 1);
                (f0, (f0 + 1) % n, (x - f0 as f32).clamp(0.0, 1.0))
            } else {
                let x = (time / d).clamp(0.0, 1.0) * (n - 1) as f32;
                let f0 = (x.floor() as u32).min(n - 2);
                (f0, f0 + 1, (x - f0 as f32).clamp(0.0, 1.0))
            }
        };
        let mut looped = 0;
        for (anim, a) in file.anims().iter().enumerate() {
            looped += usize::from(a.flags & anim_flags::LOOPING != 0);
            let (n, d) = (a.frame_count as f32, a.duration);
            let mut times = vec![0.0, -0.0, d, -d, 2.0 * d, 1e9, -1e9, f32::MIN_POSITIVE];
            // Frame boundaries and a hair either side of them, over three laps each way.
            for j in -3 * a.frame_count as i32..=3 * a.frame_count as i32 {
                let t = j as f32 * d / n;
                times.extend([t, t.next_up(), t.next_down()]);
            }
            // And between them.
            times.extend((0..4000).map(|k| (k as f32 - 1000.0) * d / 1000.0 + 1e-4));
            let matrix = |f| (file.frame_base(anim, f) / u64::from(TEXELS_PER_MATRIX)) as u32;
            for t in times {
                let (f0, f1, w) = file.frames_at(anim, t);
                let (r0, r1, rw) = rule(anim, t);
                assert_eq!((f0, f1, w.to_bits()), (r0, r1, rw.to_bits()), "at {t} s");
                let (m0, m1, mw) = file.matrices_at(anim, t);
                assert_eq!(
                    (m0, m1, mw.to_bits()),
                    (matrix(r0), matrix(r1), rw.to_bits())
                );
            }
        }
        assert_eq!(looped, 1, "one looping clip and one held");
    }

    #[test]
    fn a_record_gives_back_its_pose() {
        let pose = FramePose {
            a0: 3,
            a1: 4,
            aw: 0.25,
            b0: 9,
            b1: 10,
            bw: 0.5,
            fade: 0.75,
        };
        let r = InstanceRecord::new(Vec3::new(1.0, 0.0, 2.0), 0.5, 1.1, [1, 2, 3, 4], &pose);
        assert_eq!(FramePose::from_record(&r), pose);
        assert_eq!(std::mem::size_of::<InstanceRecord>(), 52);
    }
}
