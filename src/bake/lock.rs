//! The baker's foot-locking step: a looping cycle whose ground speed was measured from its
//! feet is baked again with its planted feet pinned to the ground of an agent moving at that
//! speed ([`crate::anim::foot_lock`]), so that a crowd playing it shows no foot skate.
//!
//! The corrections are found on the frames already sampled (`gait::lock`: turned as the
//! character faces, see `facing`), turned back into the model's own axes, and applied to every pose the second
//! sampling evaluates (frames and mid-frames alike), after the recipe's scale and any root
//! drift removal; the texels, bounds and errors of the bake are those of the locked poses.

use glam::{Mat4, Vec2, Vec3};

use crate::anim::foot_lock::Leg;

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
    /// A lock of `legs.len()` feet from `offsets` (`frames × feet`, model axes), frames
    /// `step` seconds apart; `None` when nothing needs correcting.
    pub fn new(legs: Vec<Option<Leg>>, offsets: Vec<Vec2>, step: f32) -> Option<Self> {
        let frames = offsets.len().checked_div(legs.len()).unwrap_or(0);
        let largest = offsets.iter().map(|o| o.length()).fold(0.0, f32::max);
        (frames > 0 && step > 0.0 && largest > 0.0).then_some(Self {
            legs,
            offsets,
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
