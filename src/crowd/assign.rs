//! Culling and LOD levels for a view: which group (character, LOD level, or culled) each agent
//! belongs in. Reads only [`Hot`], the 28 bytes per slot kept beside the agents, so the pass
//! over everyone each frame reads little memory; runs in parallel past the crowd's
//! `parallel_min`.

use glam::Vec3;
use rayon::prelude::*;

use super::agent::Agent;
use super::cull::{Frustum, SphereTest};
use super::lod::{LodPolicy, MAX_LEVELS};
use super::palette::Palette;
use super::schedule::Schedule;
use super::settings::View;

/// What culling, LOD levels and the grid read of an agent, kept beside the agents in slot
/// order: 32 bytes instead of a whole agent for the passes over everyone each frame. A step
/// rewrites its agent's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Hot {
    /// Position on the ground, metres.
    pub(crate) x: f32,
    pub(crate) z: f32,
    /// Height of its bounding sphere's centre above the ground, metres.
    pub(crate) cy: f32,
    /// Radius of its bounding sphere, metres (margin included).
    pub(crate) radius: f32,
    /// Uniform scale.
    pub(crate) scale: f32,
    /// Character index.
    pub(crate) character: u32,
    /// LOD level by distance, as last assigned; [`LIVE_LEVEL`] in the live tier.
    pub(crate) level: u8,
    /// How far into the live tier it is, 0 to 1: rises from 0 as it joins, falls to 0 before
    /// it leaves (see `population::live`).
    pub(crate) blend: f32,
}

/// The [`Hot::level`] of an agent in the live tier (drawn with LOD 0's mesh).
pub(crate) const LIVE_LEVEL: u8 = u8::MAX;

impl Hot {
    /// What culling and LOD levels read of `agent`, bounds grown by `margin` metres, at
    /// LOD `level`.
    pub(crate) fn of(palette: &Palette, agent: &Agent, margin: f32, level: u8) -> Self {
        let (c, radius) = agent_sphere(palette, agent, margin);
        Self {
            x: agent.position.x,
            z: agent.position.z,
            cy: c.y - agent.position.y,
            radius,
            scale: agent.scale,
            character: agent.character,
            level,
            blend: 0.0,
        }
    }
}

/// Conservative world-space bounding sphere of `agent`: centre and radius, metres. The model
/// box of A (∪ B while fading) is turned about the vertical axis through the agent's origin by
/// any heading, so a sphere about that axis holding its farthest corner needs no sine or
/// cosine: centre at the box's mid-height, radius from the corners' largest horizontal reach
/// and half the height; all scaled, then `margin` added.
#[inline]
pub fn agent_sphere(palette: &Palette, agent: &Agent, margin: f32) -> (Vec3, f32) {
    let anims = palette.anims();
    let (mut lo, mut hi) = anims
        .get(agent.anim_a as usize)
        .map_or((Vec3::ZERO, Vec3::ZERO), |a| (a.min, a.max));
    if agent.fade > 0.0
        && let Some(b) = anims.get(agent.anim_b as usize)
    {
        lo = lo.min(b.min);
        hi = hi.max(b.max);
    }
    let reach2 = lo.x.abs().max(hi.x.abs()).powi(2) + lo.z.abs().max(hi.z.abs()).powi(2);
    let half_height = 0.5 * (hi.y - lo.y);
    let s = agent.scale;
    let centre = agent.position + Vec3::Y * (0.5 * (lo.y + hi.y) * s);
    let radius = (reach2 + half_height * half_height).sqrt() * s + margin;
    (centre, radius)
}

/// What [`Assigner::assign`] reads.
pub(crate) struct Assigner<'a> {
    pub(crate) policy: &'a LodPolicy,
    pub(crate) schedule: &'a Schedule,
    /// Fewer agents than this are assigned on the calling thread (at least 1).
    pub(crate) parallel_min: usize,
}

impl Assigner<'_> {
    /// Culling and LOD level of each of `hot` for `view` (`None`: all at LOD 0, visible), in
    /// parallel: each one's `level`, and in `want` the group it belongs in. Levels are
    /// [`LodPolicy::level_for`]'s, compared squared (no square root or division per agent):
    /// `d / s >= D` as `d² >= D² s²`.
    pub(crate) fn assign(&self, hot: &mut [Hot], want: &mut [u32], view: Option<&View>) {
        let frustum = view.map(|v| SphereTest::new(&Frustum::from_view_proj(v.view_proj)));
        let culled = self.schedule.culled_group();
        let mut squared = [0f32; MAX_LEVELS - 1];
        let n = self.policy.distances.len().min(MAX_LEVELS - 1);
        for (q, &d) in squared.iter_mut().zip(&self.policy.distances) {
            // level_for counts distances at or below d / s: one at or below 0 always counts,
            // a NaN never does.
            *q = if d <= 0.0 {
                -1.0
            } else if d.is_nan() {
                f32::INFINITY
            } else {
                d * d
            };
        }
        let squared = &squared[..n];
        let one = |(h, want): (&mut Hot, &mut u32)| {
            let groups = self.schedule.character_groups(h.character);
            let (level, visible) = match (view, &frustum) {
                (Some(view), Some(frustum)) => {
                    let d2 = (view.eye - Vec3::new(h.x, 0.0, h.z)).length_squared();
                    let s2 = h.scale * h.scale;
                    let level = squared.iter().filter(|&&q| d2 >= q * s2).count() as u32;
                    let visible = !self.policy.culling
                        || frustum.intersects(Vec3::new(h.x, h.cy, h.z), h.radius);
                    (level, visible)
                }
                _ => (0, true),
            };
            let level = level.min(groups.len().max(1) as u32 - 1);
            h.level = level as u8;
            *want = if visible && !groups.is_empty() {
                groups.start + level
            } else {
                culled
            };
        };
        if hot.len() < self.parallel_min {
            hot.iter_mut().zip(want).for_each(one);
        } else {
            hot.par_iter_mut()
                .zip(want.par_iter_mut())
                .with_min_len(self.parallel_min)
                .for_each(one);
        }
    }
}
