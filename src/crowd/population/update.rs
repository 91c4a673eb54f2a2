//! The crowd's step each frame, [`Crowd::update`] (or [`Crowd::update_with`] a [`Driver`]):
//! culls and picks each agent's LOD level (in parallel) and moves the agents whose group
//! changed, then evens out the phases (skipped when frozen); lets the driver see who is due
//! and prepare (the plaza sorts everyone into its neighbour grid there); steps the agents due
//! this frame (in parallel, each by the time since its own last update): the driver's step
//! first, then the runtime's (animations advanced, culling's view and the record written);
//! advances the frame counter.

use std::ops::Range;
use std::sync::atomic::Ordering;
use std::time::Instant;

use rayon::prelude::*;

use super::{AgentData, Crowd, record_of, tint_of};
use crate::crowd::agent::Agent;
use crate::crowd::frame::assign::{Assigner, Hot};
use crate::crowd::frame::record::InstanceRecord;
use crate::crowd::palette::Palette;
use crate::crowd::settings::{STATS_LEVELS, UpdateStats, View};

/// Slots per job of the parallel step pass (a multiple of 64: whole words of the due bits).
/// The pass visits every slot but steps only the due ones, which sit together in their
/// groups' due runs, so jobs a quarter of
/// [`crate::crowd::PARALLEL_MIN`] long let the pool even out the work, while each still holds
/// 128 steps where agents are updated every 8th frame, enough to outweigh its hand-over.
const STEP_CHUNK: usize = 1024;
const _: () = assert!(
    STEP_CHUNK.is_multiple_of(64),
    "a step job is whole words of due bits"
);

/// Longest step, seconds: after a hitch (a paused window, a breakpoint) agents continue from
/// where they were instead of jumping.
pub const MAX_STEP: f32 = 1.0;

/// Who is due this update, shown to a [`Driver`] before any of them steps: every agent (in
/// slot order, despawned ones among them), the data kept with each, the due slots.
pub struct DueView<'a, S> {
    /// Every agent, in slot order.
    pub agents: &'a [Agent],
    /// What the program keeps with each, in slot order.
    pub data: &'a [S],
    /// The due slots: one run per group.
    pub runs: &'a [Range<u32>],
    /// One bit per slot, set where it is due (bit `s % 64` of word `s / 64`).
    pub bits: &'a [u64],
    /// Crowd time of this update, seconds.
    pub now: f64,
    /// What each character plays.
    pub palette: &'a Palette,
}

impl<S> DueView<'_, S> {
    /// Whether the agent in `slot` is due.
    #[inline]
    pub fn is_due(&self, slot: u32) -> bool {
        self.bits
            .get(slot as usize / 64)
            .is_some_and(|w| w & (1 << (slot % 64)) != 0)
    }
}

/// A behaviour that moves agents as they are due, from inside the crowd's update (so that
/// agents updated every n-th frame are moved every n-th frame, by the time since their last
/// step). A game that places its agents itself needs none: it calls the crowd's setters and
/// [`Crowd::update`]. The plaza's wandering ([`crate::crowd::plaza`]) is one.
pub trait Driver<S>: Sync {
    /// Before any due agent steps: see everyone and who is due (to sort them into a
    /// neighbour grid, say).
    fn prepare(&mut self, due: &DueView<'_, S>);

    /// One due agent's step by `dt` seconds (its time since its last step, at most
    /// [`MAX_STEP`]), run in parallel with the others: change its place and what it plays
    /// through `agent`, and the data kept with it. The runtime then advances its animations
    /// by `dt` and writes its record.
    fn step(&self, slot: u32, agent: &mut AgentMut<'_>, data: &mut S, dt: f32);
}

/// No driver: agents keep what the program set.
impl<S> Driver<S> for () {
    fn prepare(&mut self, _: &DueView<'_, S>) {}

    #[inline(always)]
    fn step(&self, _: u32, _: &mut AgentMut<'_>, _: &mut S, _: f32) {}
}

/// A due agent as a [`Driver`] changes it. Values are not checked here (the driver is
/// code, not input): a position that is not finite is put back at the origin after the step.
pub struct AgentMut<'a> {
    agent: &'a mut Agent,
    palette: &'a Palette,
}

impl std::ops::Deref for AgentMut<'_> {
    type Target = Agent;

    #[inline]
    fn deref(&self) -> &Agent {
        self.agent
    }
}

impl<'a> AgentMut<'a> {
    /// `agent` to change, the animations' facts from `palette`.
    #[cfg(test)]
    pub(crate) fn new(agent: &'a mut Agent, palette: &'a Palette) -> Self {
        Self { agent, palette }
    }

    /// What each character plays.
    #[inline]
    pub fn palette(&self) -> &'a Palette {
        self.palette
    }

    /// Moves it to `position` (metres).
    #[inline]
    pub fn set_position(&mut self, position: glam::Vec3) {
        self.agent.position = position;
    }

    /// Turns it to `heading` (radians about +y).
    #[inline]
    pub fn set_heading(&mut self, heading: f32) {
        self.agent.heading = heading;
    }

    /// Plays `anim` (an animation of its character) at once, as `play` says.
    #[inline]
    pub fn play(&mut self, anim: u32, play: &crate::crowd::Play) {
        self.agent.play(anim, play, self.palette.anims());
    }

    /// Cross-fades to `anim` (an animation of its character) over `seconds`, as
    /// [`Crowd::cross_fade`].
    #[inline]
    pub fn cross_fade(&mut self, anim: u32, seconds: f32, play: &crate::crowd::Play) {
        self.agent
            .cross_fade(anim, seconds, play, self.palette.anims());
    }
}

/// Seconds a step at crowd time `now` advances `a` by.
#[inline]
pub fn step_seconds(a: &Agent, now: f64) -> f32 {
    ((now - a.last_update) as f32).clamp(0.0, MAX_STEP)
}

impl<S: AgentData> Crowd<S> {
    /// Advances the crowd by `dt` seconds (negative counts as 0) as seen from `view`: culling
    /// and LOD levels for the view, then the agents due this frame advance their animations
    /// (each by the time since its own last update, at most [`MAX_STEP`]) and have their
    /// records written (see the module docs).
    pub fn update(&mut self, dt: f32, view: &View) -> UpdateStats {
        self.update_with(dt, view, &mut ())
    }

    /// [`Crowd::update`], with `driver` stepping each due agent before the runtime does.
    pub fn update_with(
        &mut self,
        dt: f32,
        view: &View,
        driver: &mut impl Driver<S>,
    ) -> UpdateStats {
        self.settle();
        if dt.is_finite() && dt > 0.0 {
            self.time += f64::from(dt);
        }

        // Culling, LOD levels, bucket moves.
        let lod_start = Instant::now();
        if !self.frozen {
            self.assign_levels(view, dt);
        }
        let lod_seconds = lod_start.elapsed().as_secs_f64();

        // The driver's preparation, then the steps of the due agents.
        let sim_start = Instant::now();
        let due = self.step_due(driver);
        let simulate_seconds = sim_start.elapsed().as_secs_f64();

        self.frame += 1;

        let mut stats = UpdateStats {
            simulate_seconds,
            lod_seconds,
            agents: self.alive(),
            due,
            written: self.schedule.dirty().iter().map(|r| r.len()).sum(),
            ..UpdateStats::default()
        };
        for d in self.schedule.draws() {
            if d.impostor {
                stats.impostors += d.slots.len();
            } else {
                // Levels past the last bucket are counted in it.
                stats.per_level[(d.level as usize).min(STATS_LEVELS - 1)] += d.slots.len();
            }
            stats.visible += d.slots.len();
        }
        stats
    }

    /// Culls and picks every agent's LOD level for `view` and moves the agents whose group
    /// changed, evening out the phases after.
    fn assign_levels(&mut self, view: &View, dt: f32) {
        if self.assign_view.is_none() {
            // The first view: everyone leaves LOD 0 for their own group at once. Placing
            // everyone anew is cheaper than moving nearly all of them one by one.
            self.assign_view = Some(*view);
            self.place_all();
            return;
        }
        let assigner = Assigner {
            policy: &self.policy,
            schedule: &self.schedule,
            parallel_min: self.settings.parallel_min.max(1),
        };
        assigner.assign(&mut self.hot, &mut self.want, Some(view));
        if self.policy.live_max > 0 {
            self.select_live(view, dt);
        }
        self.assign_view = Some(*view);
        // Who moves, found group by group before anyone does.
        self.moves.clear();
        for g in 0..self.schedule.groups() {
            let slots = self.schedule.group_slots(g);
            let (s, e) = (slots.start as usize, slots.end as usize);
            // Sixteen at a time: most agents stay in their group, and a block of them is
            // passed over with one vector compare instead of a branch each.
            for (wants, agents) in self.want[s..e].chunks(16).zip(self.agents[s..e].chunks(16)) {
                if wants.iter().fold(0, |any, &w| any | (w ^ g)) == 0 {
                    continue;
                }
                for (want, agent) in wants.iter().zip(agents) {
                    if *want != g {
                        self.moves.push((agent.index, *want));
                    }
                }
            }
        }
        let Self {
            schedule,
            records,
            agents,
            data,
            hot,
            moves,
            lod_colours,
            frame,
            ..
        } = self;
        let mut swap = |s: u32, t: u32| {
            records.swap(s as usize, t as usize);
            agents.swap(s as usize, t as usize);
            data.swap(s as usize, t as usize);
            hot.swap(s as usize, t as usize);
        };
        for &(a, g) in moves.iter() {
            schedule.move_to_group(a, g, *frame, &mut swap);
        }
        schedule.rebalance(&mut swap);
        if *lod_colours {
            // Agents that came into view or changed level show their level's colour.
            for &(a, _) in moves.iter() {
                let s = schedule.agent_slot()[a as usize];
                let i = s as usize;
                records[i].tint = tint_of(&agents[i], hot[i].level, true);
                schedule.mark_dirty(s..s + 1);
            }
        }
    }

    /// Lets `driver` see who is due, then steps the due agents in place (the driver's step,
    /// then their animations, culling's view and their records), marking them dirty.
    /// Returns how many were stepped.
    fn step_due(&mut self, driver: &mut impl Driver<S>) -> usize {
        self.due_runs.clear();
        self.due_runs.extend(self.schedule.due(self.frame));
        let words = self.agents.len().div_ceil(64);
        self.due_bits.clear();
        self.due_bits.resize(words, 0);
        for run in &self.due_runs {
            for s in run.clone() {
                self.due_bits[s as usize / 64] |= 1 << (s % 64);
            }
        }
        driver.prepare(&DueView {
            agents: &self.agents,
            data: &self.data,
            runs: &self.due_runs,
            bits: &self.due_bits,
            now: self.time,
            palette: &self.palette,
        });
        let driver = &*driver;
        let (palette, now, file) = (&self.palette, self.time, &*self.file);
        let (colours, margin) = (self.lod_colours, self.margin());
        let (placed, placed_bits) = (&self.placed[..], &self.placed_bits[..]);
        let body = |slot: usize,
                    agent: &mut Agent,
                    data: &mut S,
                    record: &mut InstanceRecord,
                    hot: &mut Hot| {
            if agent.despawned() {
                return;
            }
            // A place the program gave since its last step.
            let i = agent.index as usize;
            let bit = 1u64 << (i % 64);
            if placed_bits[i / 64].load(Ordering::Relaxed) & bit != 0 {
                placed_bits[i / 64].fetch_and(!bit, Ordering::Relaxed);
                let p = placed[i];
                agent.position = p.truncate();
                agent.heading = p.w;
            }
            let dt = step_seconds(agent, now);
            driver.step(slot as u32, &mut AgentMut { agent, palette }, data, dt);
            agent.advance(palette.anims(), dt);
            agent.last_update = now;
            if !agent.position.is_finite() {
                agent.position = glam::Vec3::ZERO;
            }
            *hot = Hot {
                blend: hot.blend,
                ..Hot::of(palette, agent, margin, hot.level)
            };
            *record = record_of(file, agent, hot.level, colours);
        };
        let due: usize = self.due_runs.iter().map(|r| r.len()).sum();
        if due < self.settings.parallel_min.max(1) {
            for run in &self.due_runs {
                for s in run.start as usize..run.end as usize {
                    body(
                        s,
                        &mut self.agents[s],
                        &mut self.data[s],
                        &mut self.records[s],
                        &mut self.hot[s],
                    );
                }
            }
        } else {
            // One parallel pass over every slot, in chunks of whole words of the due bits:
            // one hand-over to the pool per frame instead of one per due run, and a word
            // with no due slot is passed over at once (most of them, at rates below 1).
            let due_bits = &self.due_bits;
            let chunks = self
                .agents
                .par_chunks_mut(STEP_CHUNK)
                .zip(self.data.par_chunks_mut(STEP_CHUNK))
                .zip(self.records.par_chunks_mut(STEP_CHUNK))
                .zip(self.hot.par_chunks_mut(STEP_CHUNK))
                .enumerate();
            chunks.for_each(|(c, (((agents, data), records), hot))| {
                let base = c * STEP_CHUNK;
                let words = &due_bits[base / 64..(base + agents.len()).div_ceil(64)];
                for (w, &word) in words.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let k = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        body(
                            base + k,
                            &mut agents[k],
                            &mut data[k],
                            &mut records[k],
                            &mut hot[k],
                        );
                    }
                }
            });
        }
        for run in &self.due_runs {
            self.schedule.mark_dirty(run.clone());
        }
        self.schedule.refresh();
        due
    }
}
