//! The live tier's membership, chosen each frame after culling and LOD levels: at most
//! [`LodPolicy::live_max`](crate::crowd::LodPolicy::live_max) visible agents, the nearest
//! within `live_distance`, sit in their character's live group, where the hybrid path
//! evaluates them on the CPU.
//!
//! Handoffs are made seamless here, on the crowd's side: an agent's [`Hot::blend`] rises from
//! 0 to 1 over [`LIVE_BLEND_SECONDS`] after it joins, and an agent no longer wanted stays in
//! the tier while its blend falls back to 0, then leaves. The evaluator cross-fades its pose from
//! the bake's by the blend, so at 0 (its first frame in the tier, its last) it shows what the
//! bake shows. Agents on their way out count towards `live_max`, so the tier never holds more; an
//! agent leaving the view leaves at once (nothing of it is seen to jump).

use glam::Vec3;

use super::{AgentData, Crowd};
use crate::crowd::frame::assign::LIVE_LEVEL;
use crate::crowd::settings::View;

/// Seconds over which an agent's IK fades in after it joins the live tier, and out before it
/// leaves: long enough that a foot moves at most a few millimetres a frame at 60 fps (a
/// 15 cm step over 18 frames), short enough to be on the ground within a stride.
pub const LIVE_BLEND_SECONDS: f32 = 0.3;

/// An agent already live keeps its place against newcomers up to this much farther (as a
/// distance factor), so that two agents at nearly the same distance do not trade places
/// every frame.
const HOLD: f32 = 1.1;

impl<S: AgentData> Crowd<S> {
    /// Chooses the live tier for `view` after culling and LOD levels were assigned (`want`
    /// holds each slot's group): agents staying, joining and leaving, their blends moved on by
    /// `dt` seconds. Agents in the tier get their character's live group in `want` and
    /// [`LIVE_LEVEL`]; the rest keep what the assignment gave them.
    pub(super) fn select_live(&mut self, view: &View, dt: f32) {
        let culled = self.schedule.culled_group();
        let step = if dt.is_finite() && dt > 0.0 {
            dt / LIVE_BLEND_SECONDS
        } else {
            0.0
        };
        let reach2 = self.policy.live_distance * self.policy.live_distance;
        let max = self.policy.live_max as usize;
        let eye = view.eye;
        // Distances over the LOD scale (the agent's scale times its character's size, see
        // `Hot::scale`), as `live_distance` is written for a character of the reference height.
        let distance2 = |x: f32, z: f32, scale: f32| {
            let s = if scale > 0.0 { scale } else { 1.0 };
            (eye - Vec3::new(x, 0.0, z)).length_squared() / (s * s)
        };

        // The wanted: the nearest `max` visible agents in reach, the live ones nearer by HOLD.
        self.live_candidates.clear();
        let is_live = |s: usize| {
            let a = self.agents[s].index;
            self.schedule.is_live_group(self.schedule.group_of_agent(a))
        };
        for (s, (h, &want)) in self.hot.iter().zip(&self.want).enumerate() {
            if want >= culled {
                continue;
            }
            let mut d2 = distance2(h.x, h.z, h.scale);
            if is_live(s) {
                d2 /= HOLD * HOLD;
            }
            if d2 < reach2 {
                self.live_candidates.push((d2, s as u32));
            }
        }
        if self.live_candidates.len() > max {
            self.live_candidates
                .select_nth_unstable_by(max, |a, b| a.0.total_cmp(&b.0));
            self.live_candidates.truncate(max);
        }
        self.live_bits.clear();
        self.live_bits.resize(self.hot.len().div_ceil(64), 0);
        for &(_, s) in &self.live_candidates {
            self.live_bits[s as usize / 64] |= 1 << (s % 64);
        }
        let wanted = |bits: &[u64], s: usize| bits[s / 64] & (1 << (s % 64)) != 0;

        // Those in the tier stay (blend up) or fade out; they leave at 0 or out of view, with
        // the level the assignment gave them.
        let mut count = 0;
        for c in 0..self.palette.characters().len() as u32 {
            let Some(g) = self.schedule.live_group(c) else {
                continue;
            };
            for s in self.schedule.group_slots(g) {
                let s = s as usize;
                let (h, want) = (&mut self.hot[s], &mut self.want[s]);
                let keep = wanted(&self.live_bits, s);
                h.blend = if keep {
                    (h.blend + step).min(1.0)
                } else {
                    h.blend - step
                };
                if *want < culled && (keep || h.blend > 0.0) {
                    count += 1;
                    *want = g;
                    h.level = LIVE_LEVEL;
                } else {
                    h.blend = 0.0;
                }
                // Seen: not a newcomer below.
                self.live_bits[s / 64] &= !(1 << (s % 64));
            }
        }
        // Newcomers, nearest first, while there is room; their blend starts at 0 (the bake's
        // pose).
        if count < max {
            self.live_candidates
                .sort_unstable_by(|a, b| a.0.total_cmp(&b.0));
        }
        for &(_, s) in &self.live_candidates {
            if count >= max {
                break;
            }
            let s = s as usize;
            if !wanted(&self.live_bits, s) {
                continue;
            }
            let (h, want) = (&mut self.hot[s], &mut self.want[s]);
            if let Some(g) = self.schedule.live_group(h.character) {
                count += 1;
                *want = g;
                h.level = LIVE_LEVEL;
                h.blend = 0.0;
            }
        }
    }
}
