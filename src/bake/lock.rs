//! The baker's foot-locking step: a looping cycle whose ground speed was measured from its
//! feet is baked again with its planted feet pinned to the ground of an agent moving at that
//! speed ([`crate::anim::foot_lock`]), so that a crowd playing it shows no foot skate.
//!
//! The corrections are found on the frames already sampled (turned as the character faces,
//! see `facing`), turned back into the model's own axes, and applied to every pose the second
//! sampling evaluates (frames and mid-frames alike), after the recipe's scale and any root
//! drift removal; the texels, bounds and errors of the bake are those of the locked poses.

use glam::{Mat4, Vec2, Vec3};

use super::facing;
use super::gait::{FORWARD, Feet, POINTS, foot_points};
use super::load::Loaded;
use super::sample::Sampled;
use crate::anim::foot_lock::{Leg, offsets};

/// The corrections that lock the feet of one sampled animation.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FootLock {
    /// Per foot, its leg (a foot without one is left as animated).
    legs: Vec<Option<Leg>>,
    /// Horizontal correction per frame per foot (`frames × feet`, x and z of the model in its
    /// own axes, model units).
    offsets: Vec<Vec2>,
    /// Frames of the cycle and seconds between them.
    frames: usize,
    step: f32,
    /// The largest correction, model units.
    pub largest: f32,
}

impl FootLock {
    /// The lock of `sampled` (an animation of `l`, with feet `feet`, whose frames were turned
    /// by `turns` quarter turns) for an agent moving at `speed` (model units per second) along
    /// +z; `None` when no foot has a leg or nothing needs correcting.
    pub fn plan(l: &Loaded, feet: &Feet, sampled: &Sampled, speed: f32, turns: u8) -> Option<Self> {
        if feet.legs.iter().all(Option::is_none) || !sampled.schedule.looping {
            return None;
        }
        let positions = foot_points(l, feet, sampled)?;
        let (frames, count) = (sampled.schedule.count as usize, feet.joints.len());
        let mut out = vec![Vec2::ZERO; frames * count];
        let velocity = Vec2::new(FORWARD.x, FORWARD.z) * speed;
        let step = sampled.schedule.step();
        offsets(
            &positions, count, POINTS, step, l.height, velocity, &mut out,
        );
        for (k, o) in out.iter_mut().enumerate() {
            *o = if feet.legs[k % count].is_some() {
                facing::turn(*o, (4 - turns % 4) % 4)
            } else {
                Vec2::ZERO
            };
        }
        let largest = out.iter().map(|o| o.length()).fold(0.0, f32::max);
        (largest > 0.0).then(|| Self {
            legs: feet.legs.clone(),
            offsets: out,
            frames,
            step,
            largest,
        })
    }

    /// Locks the feet of the pose `skin` (model-space skinning matrices, scaled) at `t`
    /// seconds into the cycle: the corrections of the frames around `t`, interpolated
    /// linearly (as a crowd interpolates frames).
    pub fn apply(&self, t: f32, skin: &mut [Mat4]) {
        let count = self.legs.len();
        let at = (t / self.step).max(0.0);
        let i = at.floor();
        let w = at - i;
        let a = (i as usize) % self.frames;
        let b = (a + 1) % self.frames;
        for (f, leg) in self.legs.iter().enumerate() {
            if let Some(leg) = leg {
                let d = self.offsets[a * count + f].lerp(self.offsets[b * count + f], w);
                leg.apply(Vec3::new(d.x, 0.0, d.y), skin);
            }
        }
    }
}
