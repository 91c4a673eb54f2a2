//! The plaza: the crowd of the demo, `throng render`'s crowd and `throng bench`, built on the
//! public agent API like any program's. Its agents wander a square plaza sized for their
//! number, choose what to do (stand, walk, run, wave) and for how long, steer back from its
//! edges and away from each other, and walk at the ground speed of what they play. It spawns
//! and despawns agents through [`Crowd`]'s calls and moves them from inside the crowd's update
//! as a [`Driver`], so an agent updated every n-th frame walks every n-th frame.
//!
//! How its agents move, in the files of this folder:
//! - `wander`: what each agent is doing and how it chooses;
//! - `sim`: an agent's step, and avoidance over the neighbour `grid`;
//! - `turn`: the arithmetic of a heading in a step;
//! - `terrain`: the ground agents stand on (flat, or the relief plaza), a height field;
//! - `rng`: the small deterministic generator the plaza (and the test scene) draw from.

mod grid;
pub(crate) mod rng;
mod sim;
pub mod terrain;
mod turn;
pub mod wander;

use std::sync::Arc;

use self::grid::Grid;
use self::sim::{GRID_CELL, Pushes, StepContext, avoidance, grid_point, steers, step};
use self::terrain::Terrain;
use self::wander::Wander;
use super::agent::AgentId;
use super::error::CrowdError;
use super::frame::lod::LodPolicy;
use super::population::{AgentMut, Crowd, Driver, DueView};
use super::settings::{CrowdSettings, MAX_AGENTS, UpdateStats, View};
use crate::format::ThrongFile;

/// How a plaza is made.
#[derive(Clone, Debug, PartialEq)]
pub struct PlazaSettings {
    /// Number of agents, up to [`MAX_AGENTS`]. Default 1,000.
    pub count: usize,
    /// Seed of everything random. Default 1.
    pub seed: u64,
    /// Plaza area per agent, square metres (> 0): the plaza's side is `sqrt(count × area)`.
    /// Default 6.
    pub area_per_agent: f32,
    /// Length of a cross-fade between animations, seconds (>= 0). Default 0.3.
    pub fade_seconds: f32,
    /// The ground agents stand on: their roots follow its height. Default flat.
    pub terrain: Terrain,
    /// The crowd's own settings (animation families, culling margin, parallel passes).
    pub crowd: CrowdSettings,
}

impl Default for PlazaSettings {
    fn default() -> Self {
        Self {
            count: 1_000,
            seed: 1,
            area_per_agent: 6.0,
            fade_seconds: 0.3,
            terrain: Terrain::Flat,
            crowd: CrowdSettings::default(),
        }
    }
}

/// The plaza's [`Driver`]: the neighbour grid and pushes of a frame, and what every step
/// reads.
struct Walker {
    half: f32,
    fade_seconds: f32,
    terrain: Terrain,
    grid: Grid,
    /// Per slot: its avoidance push (written for the agents due that steer).
    away: Pushes,
    /// One bit per slot due this frame whose step reads its push ([`steers`]).
    steer_bits: Vec<u64>,
}

impl Driver<Wander> for Walker {
    fn prepare(&mut self, due: &DueView<'_, Wander>) {
        let (agents, data, now) = (due.agents, due.data, due.now);
        let steer_bits = &mut self.steer_bits;
        steer_bits.clear();
        steer_bits.resize(agents.len().div_ceil(64), 0);
        let mut mark = || {
            for run in due.runs {
                for s in run.clone() {
                    let i = s as usize;
                    let dt = super::population::step_seconds(&agents[i], now);
                    // No branch: whether an agent steers is a coin toss for the predictor.
                    steer_bits[i / 64] |= u64::from(steers(&data[i], dt)) << (s % 64);
                }
            }
        };
        let (grid, half) = (&mut self.grid, self.half);
        let serial = agents.len() < grid.parallel_min();
        let mut sort = || grid.rebuild(half, GRID_CELL, agents, grid_point);
        if serial {
            mark();
            sort();
        } else {
            // The steer bits are a serial pass over the agents due; so is the middle of the
            // grid's sort (its count and scatter): side by side, each has a core.
            rayon::join(mark, sort);
        }
        // Only the steps that read their push need one: agents standing still do not.
        let steer_bits = &self.steer_bits;
        avoidance(
            &self.grid,
            |s| steer_bits[s as usize / 64] & (1 << (s % 64)) != 0,
            &mut self.away,
        );
    }

    #[inline(always)]
    fn step(&self, slot: u32, agent: &mut AgentMut<'_>, data: &mut Wander, dt: f32) {
        let ctx = StepContext {
            palette: agent.palette(),
            half: self.half,
            fade_seconds: self.fade_seconds,
            terrain: self.terrain,
        };
        step(agent, data, self.away.get(slot), &ctx, dt);
    }
}

/// The plaza's crowd and its wandering (see the module docs).
pub struct Plaza {
    crowd: Crowd<Wander>,
    settings: PlazaSettings,
    walker: Walker,
    /// Plaza agent `i`'s handle.
    ids: Vec<AgentId>,
}

impl Plaza {
    /// `settings.count` agents of `file`'s characters (in turn) on a plaza sized for them,
    /// updated under `policy`. Until the first update, all agents are at LOD 0 and visible.
    ///
    /// # Errors
    /// As [`Crowd::new`]; [`CrowdError::TooMany`] past [`MAX_AGENTS`].
    pub fn new(
        file: Arc<ThrongFile>,
        settings: &PlazaSettings,
        policy: LodPolicy,
    ) -> Result<Self, CrowdError> {
        let crowd = Crowd::new(file, &settings.crowd, policy)?;
        let walker = Walker {
            half: 1.0,
            fade_seconds: settings.fade_seconds.max(0.0),
            terrain: settings.terrain,
            grid: Grid::with_parallel_min(settings.crowd.parallel_min),
            away: Pushes::default(),
            steer_bits: Vec::new(),
        };
        let mut plaza = Self {
            crowd,
            settings: settings.clone(),
            walker,
            ids: Vec::new(),
        };
        plaza.set_count(settings.count)?;
        Ok(plaza)
    }

    /// Half-size of the plaza for `count` agents, metres.
    fn half_for(&self, count: usize) -> f32 {
        let area = self.settings.area_per_agent;
        let area = if area.is_finite() && area > 0.0 {
            area
        } else {
            6.0
        };
        ((count.max(1) as f32 * area).sqrt() * 0.5).max(1.0)
    }

    /// Grows the plaza to `count` agents (new agent `i` depends only on the seed, `i` and the
    /// plaza size) or shrinks it by despawning the highest; the plaza is resized for the new
    /// count (agents left outside walk back in).
    ///
    /// # Errors
    /// [`CrowdError::TooMany`] past [`MAX_AGENTS`] (nothing changes).
    pub fn set_count(&mut self, count: usize) -> Result<(), CrowdError> {
        if count > MAX_AGENTS {
            return Err(CrowdError::TooMany {
                count,
                max: MAX_AGENTS,
            });
        }
        let half = self.half_for(count);
        self.walker.half = half;
        while self.ids.len() > count {
            if let Some(id) = self.ids.pop() {
                self.crowd.despawn(id)?;
            }
        }
        let old = self.ids.len();
        if count > old {
            let (palette, seed, terrain) = (
                self.crowd.palette(),
                self.settings.seed,
                self.settings.terrain,
            );
            let spawns: Vec<_> = (old as u32..count as u32)
                .map(|i| {
                    let (mut s, w) = Wander::spawn(palette, seed, i, half);
                    s.position.y = terrain.height(s.position.x, s.position.z);
                    (s, w)
                })
                .collect();
            let ids = self.crowd.spawn_many(&spawns)?;
            self.ids.extend(ids);
        }
        Ok(())
    }

    /// Moves the plaza on by `dt` seconds as seen from `view` ([`Crowd::update_with`] its
    /// wandering).
    pub fn update(&mut self, dt: f32, view: &View) -> UpdateStats {
        self.crowd.update_with(dt, view, &mut self.walker)
    }

    /// The crowd: its records, draws and settings for the renderer, its policy and tints.
    pub fn crowd(&self) -> &Crowd<Wander> {
        &self.crowd
    }

    /// The crowd, to change its policy, tints or agents.
    pub fn crowd_mut(&mut self) -> &mut Crowd<Wander> {
        &mut self.crowd
    }

    /// Plaza agent `i`'s handle.
    pub fn id(&self, i: usize) -> Option<AgentId> {
        self.ids.get(i).copied()
    }

    /// Agents on the plaza.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    /// Whether the plaza has no agents.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Half-size of the plaza, metres: it spans −h..h in x and z.
    pub fn half_size(&self) -> f32 {
        self.walker.half
    }

    /// The settings the plaza was made with (`count` as made; see [`Plaza::len`]).
    pub fn settings(&self) -> &PlazaSettings {
        &self.settings
    }
}

#[cfg(test)]
mod tests;
