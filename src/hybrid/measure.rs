//! What the hybrid path is judged by, measured on the live agents of each frame:
//! - the **foot-ground error** of every planted foot ([`foot_errors`]), live (after the IK)
//!   and baked (the same agent's bake pose, as the GPU path draws it);
//! - the **handoff jump** of every agent joining or leaving the tier: the largest distance
//!   between a joint of the pose it shows and of the pose the tier it came from would show at
//!   the same instant (its own motion is the same in both, so this is the jump beyond it), as
//!   a percentage of its height; for a newcomer, in its first frame above blend 0 (at 0 it
//!   shows the bake's pose bit for bit), for a leaver, against its last such frame.

use glam::Mat4;

use super::animate::{Animate, Standing};
use super::pose::{LivePlacement, bake_pose, foot_errors, largest_gap};
use super::rig::LiveRig;
use crate::crowd::Terrain;
use crate::crowd::{AgentData, Crowd};
use crate::format::ThrongFile;

/// What poses a frame's agents: the file, how live poses are made, the rigs, the look-at.
pub(super) type Posing<'a> = (
    &'a ThrongFile,
    &'a Animate,
    &'a [LiveRig],
    Option<glam::Vec3>,
);

/// Foot-ground errors and handoff jumps gathered frame by frame.
#[derive(Clone, Debug, Default)]
pub struct Measures {
    /// Planted feet of live agents after IK: metres above (+) or below (−) where they belong.
    pub live_errors: Vec<f32>,
    /// The same feet in the bake's pose (no IK): metres.
    pub baked_errors: Vec<f32>,
    /// Handoff jumps, % of the agent's height.
    pub jumps: Vec<f32>,
    /// Handoffs from baked to live.
    pub joins: usize,
    /// Handoffs from live to baked.
    pub leaves: usize,
    /// The live agents of the last frame: agent index and blend, by index.
    last: Vec<(u32, f32)>,
    now: Vec<(u32, f32)>,
    skin_baked: Vec<Mat4>,
    skin_live: Vec<Mat4>,
}

impl Measures {
    /// Forgets what was measured (errors, jumps, counts), keeping which agents are live, so
    /// that the agents live now are not taken for newcomers next frame.
    pub fn clear(&mut self) {
        self.live_errors.clear();
        self.baked_errors.clear();
        self.jumps.clear();
        self.joins = 0;
        self.leaves = 0;
    }

    /// Measures a frame whose live agents are in `slots` of `crowd` (updated, records not yet
    /// pointed at live matrices).
    pub(super) fn frame<S: AgentData>(
        &mut self,
        posing: Posing<'_>,
        crowd: &Crowd<S>,
        terrain: Terrain,
        slots: impl Iterator<Item = u32>,
    ) {
        self.now.clear();
        for slot in slots {
            let Some(agent) = crowd.agents().get(slot as usize) else {
                continue;
            };
            let blend = crowd.live_blend(slot);
            // At blend 0 it shows the bake's pose, bit for bit: not live yet (a newcomer's
            // handoff is its first frame above 0, the first that differs from the bake).
            if blend <= 0.0 {
                continue;
            }
            self.now.push((agent.index, blend));
            let joined = self
                .last
                .binary_search_by_key(&agent.index, |e| e.0)
                .is_err();
            let gap = self.pose(posing, crowd, terrain, (agent.index, blend), true);
            if joined && let Some(gap) = gap {
                self.jumps.push(gap);
                self.joins += 1;
            }
        }
        self.now.sort_unstable_by_key(|e| e.0);
        // Those that left: the bake's pose now against the live pose they would show.
        let left: Vec<(u32, f32)> = self
            .last
            .iter()
            .filter(|e| self.now.binary_search_by_key(&e.0, |n| n.0).is_err())
            .copied()
            .collect();
        for (index, blend) in left {
            if let Some(gap) = self.pose(posing, crowd, terrain, (index, blend), false) {
                self.jumps.push(gap);
                self.leaves += 1;
            }
        }
        std::mem::swap(&mut self.last, &mut self.now);
    }

    /// Poses agent `index` of `crowd` baked and live (IK by `blend`), with `errors` adds its
    /// planted feet's errors in both, and returns the largest joint gap between them, % of its
    /// height; `None` for an agent out of view (it left unseen) or unknown.
    fn pose<S: AgentData>(
        &mut self,
        (file, animate, rigs, look): Posing<'_>,
        crowd: &Crowd<S>,
        terrain: Terrain,
        (index, blend): (u32, f32),
        errors: bool,
    ) -> Option<f32> {
        let slot = *crowd.schedule().agent_slot().get(index as usize)?;
        let schedule = crowd.schedule();
        if schedule.group_of_agent(index) >= schedule.culled_group() {
            return None;
        }
        let agent = crowd.agents().get(slot as usize)?;
        let record = crowd.records().get(slot as usize)?;
        let rig = rigs.get(agent.character as usize)?;
        let at = LivePlacement::of(record);
        self.skin_baked.resize(rig.joints, Mat4::IDENTITY);
        self.skin_live.resize(rig.joints, Mat4::IDENTITY);
        let stand = Standing {
            at,
            terrain,
            blend,
            look,
        };
        let live = &mut self.skin_live;
        let contacts = animate.shown(file, rig, agent, &stand, |skin, contacts| {
            live.copy_from_slice(skin);
            *contacts
        });
        bake_pose(
            rig,
            &file.texels(),
            &agent.playback().frame_pose(file),
            &mut self.skin_baked,
        );
        if errors {
            let (live, baked) = (&mut self.live_errors, &mut self.baked_errors);
            foot_errors(rig, &at, terrain, &contacts, &self.skin_live, &mut |e| {
                live.push(e)
            });
            foot_errors(rig, &at, terrain, &contacts, &self.skin_baked, &mut |e| {
                baked.push(e)
            });
        }
        let height = rig.height * at.scale;
        Some(100.0 * largest_gap(rig, &at, &self.skin_live, &self.skin_baked) / height.max(1e-6))
    }
}

/// The `q`-quantile (0 to 1) of `values` by magnitude (nearest rank); 0 for none.
pub fn quantile_abs(values: &[f32], q: f32) -> f32 {
    let mut v: Vec<f32> = values.iter().map(|x| x.abs()).collect();
    if v.is_empty() {
        return 0.0;
    }
    v.sort_unstable_by(f32::total_cmp);
    let k = ((q.clamp(0.0, 1.0) * v.len() as f32).ceil() as usize).clamp(1, v.len()) - 1;
    v[k]
}
