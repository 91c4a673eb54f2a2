//! A deterministic test scene: agents placed, turned, tinted and posed from a seed, a fixed
//! camera that frames them, and the per-instance pose (frames and weights) both skinning paths
//! read. Pure CPU: `throng render`, the parity tests and the benchmarks share it. Its agents are
//! [`Placement`]s, fixed in place, not the crowd's simulated [`super::Agent`]s; both yield a
//! [`Playback`], so their poses come from one rule.

use glam::{Mat4, Vec3};

use super::frame::record::{FramePose, Playback};
use super::plaza::rng::Rng;
use crate::format::ThrongFile;

/// One character of the scene, where it stands and what it plays.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Character index in the bake.
    pub character: u32,
    /// Position on the ground, metres.
    pub position: Vec3,
    /// Turn about +y, radians.
    pub heading: f32,
    /// Uniform scale.
    pub scale: f32,
    /// Colour multiplier, linear RGBA in [0, 1].
    pub tint: [f32; 4],
    /// Animation A (an index into the file's animations) and the time in it, seconds.
    pub anim_a: u32,
    /// Seconds into A.
    pub time_a: f32,
    /// Animation B, cross-faded in by `fade`.
    pub anim_b: u32,
    /// Seconds into B.
    pub time_b: f32,
    /// Weight of B, in [0, 1].
    pub fade: f32,
}

impl Placement {
    /// What it plays: its animations, their times and the fade.
    #[inline]
    pub fn playback(&self) -> Playback {
        Playback {
            anim_a: self.anim_a,
            time_a: self.time_a,
            anim_b: self.anim_b,
            time_b: self.time_b,
            fade: self.fade,
        }
    }
}

/// The frames `placement` shows in `file` (see [`Playback::frame_pose`]).
pub fn frame_pose(file: &ThrongFile, placement: &Placement) -> FramePose {
    placement.playback().frame_pose(file)
}

/// Uniform in 0..n (0 for n = 0) by remainder: the draw this scene has always made, so that a
/// seed keeps giving the same scene (and the reference images stay valid).
fn below(rng: &mut Rng, n: u32) -> u32 {
    (rng.next_u64() % u64::from(n.max(1))) as u32
}

/// Distance between neighbouring agents, metres.
pub const SPACING: f32 = 1.6;

/// `count` agents of the bake's characters (in turn) on a jittered square grid centred on the
/// origin, with headings, tints, animations, times and (for about a third) cross-fades from
/// `seed`, `time` seconds into the scene.
pub fn agents(file: &ThrongFile, count: usize, seed: u64, time: f32) -> Vec<Placement> {
    // The crowd's generator, seeded as this scene always was.
    let mut rng = Rng::from_state(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15));
    let side = (count as f32).sqrt().ceil().max(1.0) as usize;
    let chars = file.characters();
    (0..count)
        .map(|i| {
            let ci = i % chars.len().max(1);
            let c = &chars[ci];
            let (gx, gz) = ((i % side) as f32, (i / side) as f32);
            let offset = (side as f32 - 1.0) * 0.5;
            let jitter = |r: &mut Rng| (r.unit() - 0.5) * SPACING * 0.4;
            let position = Vec3::new(
                (gx - offset) * SPACING + jitter(&mut rng),
                0.0,
                (gz - offset) * SPACING + jitter(&mut rng),
            );
            let heading = rng.unit() * std::f32::consts::TAU;
            let hue = rng.unit();
            let tint = [
                0.55 + 0.45 * hue,
                0.55 + 0.45 * (1.0 - hue),
                0.6 + 0.4 * rng.unit(),
                1.0,
            ];
            let pick = |r: &mut Rng| c.first_anim + below(r, c.anim_count);
            let anim_a = pick(&mut rng);
            let anim_b = pick(&mut rng);
            let duration = |a: u32| file.anims()[a as usize].duration.max(1e-3);
            let time_a = time + rng.unit() * duration(anim_a);
            let time_b = time + rng.unit() * duration(anim_b);
            let fade = if below(&mut rng, 3) == 0 {
                rng.unit()
            } else {
                0.0
            };
            Placement {
                character: ci as u32,
                position,
                heading,
                scale: 1.0,
                tint,
                anim_a,
                time_a,
                anim_b,
                time_b,
                fade,
            }
        })
        .collect()
}

/// Half the side of the square that [`agents`] places `count` agents in, with a metre to
/// spare, metres.
pub fn half_size(count: usize) -> f32 {
    let side = (count as f32).sqrt().ceil().max(1.0);
    side * SPACING * 0.5 + 1.0
}

/// A camera looking at `count` agents on their grid from the front and above, for an image of
/// `aspect` = width / height; its view-projection matrix (right-handed, depth 0..1).
pub fn camera(count: usize, aspect: f32) -> Mat4 {
    let half = half_size(count);
    let target = Vec3::new(0.0, 0.8, 0.0);
    let eye = target + Vec3::new(0.0, 0.75, 1.25).normalize() * (half * 1.9 + 2.5);
    let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
    // wgpu's clip space: depth 0..1, y up (glam's "directx" convention).
    let proj = glam::camera::rh::proj::directx::perspective(
        40f32.to_radians(),
        aspect,
        0.1,
        half * 8.0 + 20.0,
    );
    proj * view
}
