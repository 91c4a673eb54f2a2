//! [`Crowd`]: agents on a square plaza, their LOD levels and culling, the schedule of who is
//! updated when, and their instance records in slot order, ready for one upload of the changed
//! ranges and one draw per character and LOD level. This file holds the crowd's state and what
//! changes it at once (making, resizing, a new policy, tints) and what it lends out; the
//! per-frame step is in `update`.
//!
//! Agents, their records and what culling reads of them (28 bytes each) are all kept in slot
//! order and move together, so a due run is one contiguous slice of each and the passes over
//! everyone read little memory. Nothing is allocated once the crowd has run a few frames at
//! its size (rayon itself allocates a block per 63 jobs handed to its pool: about one per 15
//! frames at 100,000 agents).

mod live;

pub use live::LIVE_BLEND_SECONDS;
mod update;

use std::ops::Range;

use rayon::prelude::*;

use super::agent::Agent;
use super::assign::{Assigner, Hot};
use super::error::CrowdError;
use super::grid::Grid;
use super::lod::LodPolicy;
use super::palette::Palette;
use super::record::InstanceRecord;
use super::schedule::{DrawRange, Schedule};
use super::settings::{CrowdSettings, MAX_AGENTS, View};
use super::sim::Pushes;
use crate::format::ThrongFile;

/// Tints of LOD levels 0, 1, 2... when [`Crowd::set_lod_colours`] is on: green, yellow, red,
/// blue, then magenta, cyan, orange, light grey (repeating). The live tier is
/// [`LIVE_COLOUR`].
pub const LOD_COLOURS: [[u8; 4]; 8] = [
    [60, 200, 80, 255],
    [235, 210, 50, 255],
    [225, 60, 50, 255],
    [60, 110, 235, 255],
    [200, 70, 200, 255],
    [60, 210, 210, 255],
    [240, 140, 40, 255],
    [190, 190, 190, 255],
];

/// The tint of agents in the live tier when [`Crowd::set_lod_colours`] is on: violet, a hue
/// no LOD level of a usual bake (up to four) has, saturated so that it shows on textured
/// models too (a tint multiplies the base colour: white left them as they were).
pub const LIVE_COLOUR: [u8; 4] = [150, 60, 255, 255];

/// Where the file a crowd was made from is told apart from another: counts of characters,
/// animations and texels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct FileKey {
    characters: usize,
    anims: usize,
    texels: u64,
}

impl FileKey {
    fn of(file: &ThrongFile) -> Self {
        Self {
            characters: file.characters().len(),
            anims: file.anims().len(),
            texels: file.info().texel_count,
        }
    }
}

/// A crowd of agents (see the module docs).
pub struct Crowd {
    settings: CrowdSettings,
    policy: LodPolicy,
    palette: Palette,
    key: FileKey,
    /// Per character: LOD meshes in the bake.
    file_levels: Vec<u32>,
    half: f32,
    /// Agents in slot order, as their records: a due run is a contiguous slice of both.
    agents: Vec<Agent>,
    /// Scratch of the live tier's choice: `(distance² / scale², slot)` of the candidates.
    live_candidates: Vec<(f32, u32)>,
    /// Scratch of the live tier's choice: one bit per slot wanted in it.
    live_bits: Vec<u64>,
    /// Per slot: what culling and LOD levels read of its agent.
    hot: Vec<Hot>,
    /// Per slot, scratch: the group its agent belongs in this frame.
    want: Vec<u32>,
    /// Scratch: `(agent, group)` of the agents to move this frame.
    moves: Vec<(u32, u32)>,
    /// Instance records in slot order.
    records: Vec<InstanceRecord>,
    schedule: Schedule,
    grid: Grid,
    /// Per slot: its avoidance push (written for the agents due that steer).
    away: Pushes,
    /// One bit per slot due this frame.
    due_bits: Vec<u64>,
    /// One bit per slot due this frame whose step reads its push ([`crate::crowd::sim::steers`]).
    steer_bits: Vec<u64>,
    frame: u64,
    time: f64,
    lod_colours: bool,
    frozen: bool,
    /// The last view LOD levels were assigned for (kept while frozen).
    assign_view: Option<View>,
    due_runs: Vec<Range<u32>>,
}

impl Crowd {
    /// `settings.count` agents of `file`'s characters (in turn) on a plaza sized for them,
    /// updated under `policy`. Every record is written and dirty; until the first update, all
    /// agents are at LOD 0 and visible.
    ///
    /// # Errors
    /// As [`Palette::new`]; [`CrowdError::TooMany`] past [`MAX_AGENTS`].
    pub fn new(
        file: &ThrongFile,
        settings: &CrowdSettings,
        policy: LodPolicy,
    ) -> Result<Self, CrowdError> {
        let palette = Palette::new(file, &settings.names)?;
        let file_levels = palette.characters().iter().map(|c| c.levels).collect();
        let mut crowd = Self {
            settings: settings.clone(),
            policy,
            palette,
            key: FileKey::of(file),
            file_levels,
            half: 1.0,
            agents: Vec::new(),
            hot: Vec::new(),
            want: Vec::new(),
            moves: Vec::new(),
            live_candidates: Vec::new(),
            live_bits: Vec::new(),
            records: Vec::new(),
            schedule: Schedule::new(),
            grid: Grid::with_parallel_min(settings.parallel_min),
            away: Pushes::default(),
            due_bits: Vec::new(),
            steer_bits: Vec::new(),
            frame: 0,
            time: 0.0,
            lod_colours: false,
            frozen: false,
            assign_view: None,
            due_runs: Vec::new(),
        };
        crowd.set_count(file, settings.count)?;
        Ok(crowd)
    }

    fn check_file(&self, file: &ThrongFile) -> Result<(), CrowdError> {
        let key = FileKey::of(file);
        if key != self.key {
            return Err(CrowdError::OtherFile {
                file: file.name().to_string(),
                what: format!(
                    "{} characters, {} animations, {} texels; the crowd's bake has {}, {} and {}",
                    key.characters,
                    key.anims,
                    key.texels,
                    self.key.characters,
                    self.key.anims,
                    self.key.texels
                ),
            });
        }
        Ok(())
    }

    /// Half-size of the plaza for `count` agents, metres.
    fn half_for(&self, count: usize) -> f32 {
        let area = if self.settings.area_per_agent.is_finite() && self.settings.area_per_agent > 0.0
        {
            self.settings.area_per_agent
        } else {
            6.0
        };
        ((count.max(1) as f32 * area).sqrt() * 0.5).max(1.0)
    }

    fn margin(&self) -> f32 {
        if self.settings.bounds_margin.is_finite() {
            self.settings.bounds_margin.max(0.0)
        } else {
            0.0
        }
    }

    /// The agents taken out, in index order.
    fn take_by_index(&mut self) -> Vec<Agent> {
        let mut agents = std::mem::take(&mut self.agents);
        agents.sort_unstable_by_key(|a| a.index);
        agents
    }

    /// Places `by_index` (agents in index order) anew under the current policy, LOD levels
    /// from the last view if any, and puts them in slot order. Allocates.
    fn place(&mut self, by_index: Vec<Agent>) {
        let margin = self.margin();
        let palette = &self.palette;
        let mut hot: Vec<Hot> = by_index
            .par_iter()
            .map(|a| Hot::of(palette, a, margin, 0))
            .collect();
        self.want.resize(by_index.len(), 0);
        // Groups are laid out before levels can be turned into groups.
        self.schedule.rebuild(&self.file_levels, &self.policy, &[]);
        let assigner = Assigner {
            policy: &self.policy,
            schedule: &self.schedule,
            parallel_min: self.settings.parallel_min.max(1),
        };
        assigner.assign(&mut hot, &mut self.want, self.assign_view.as_ref());
        self.schedule
            .rebuild(&self.file_levels, &self.policy, &self.want);
        let order = self.schedule.slot_agent();
        self.agents = order.iter().map(|&a| by_index[a as usize]).collect();
        self.hot = order.iter().map(|&a| hot[a as usize]).collect();
    }

    /// Grows the crowd to `count` agents (new agent `i` depends only on the seed, `i` and the
    /// plaza size) or shrinks it by dropping the highest indices; the plaza is resized for the
    /// new count (agents left outside walk back in). Every record is rewritten and dirty.
    ///
    /// # Errors
    /// [`CrowdError::TooMany`] past [`MAX_AGENTS`]; [`CrowdError::OtherFile`] when `file` is
    /// not the bake the crowd was made from.
    pub fn set_count(&mut self, file: &ThrongFile, count: usize) -> Result<(), CrowdError> {
        self.check_file(file)?;
        if count > MAX_AGENTS {
            return Err(CrowdError::TooMany {
                count,
                max: MAX_AGENTS,
            });
        }
        self.half = self.half_for(count);
        let mut agents = self.take_by_index();
        let old = agents.len();
        if count < old {
            agents.truncate(count);
        } else {
            let (palette, seed, half, now) =
                (&self.palette, self.settings.seed, self.half, self.time);
            let terrain = self.settings.terrain;
            agents.par_extend((old as u32..count as u32).into_par_iter().map(|i| {
                let mut a = Agent::spawn(palette, seed, i, half, now);
                a.position.y = terrain.height(a.position.x, a.position.z);
                a
            }));
        }
        self.place(agents);
        self.records.clear();
        self.records
            .resize(self.agents.len(), InstanceRecord::default());
        let colours = self.lod_colours;
        self.records
            .par_iter_mut()
            .zip(self.agents.par_iter().zip(self.hot.par_iter()))
            .for_each(|(r, (agent, hot))| *r = record_of(file, agent, hot.level, colours));
        Ok(())
    }

    /// Replaces the LOD policy: every agent is placed anew (LOD levels from the last view) and
    /// every record is dirty.
    pub fn set_policy(&mut self, policy: LodPolicy) {
        self.policy = policy;
        self.replace();
    }

    /// Places every agent anew (LOD levels from the last view), records following their
    /// agents to their new slots; every record is dirty. Allocates.
    fn replace(&mut self) {
        // Records follow their agents to the new slots.
        let mut by_index = vec![InstanceRecord::default(); self.records.len()];
        for (r, a) in self.records.iter().zip(&self.agents) {
            by_index[a.index as usize] = *r;
        }
        let agents = self.take_by_index();
        self.place(agents);
        for (r, a) in self.records.iter_mut().zip(&self.agents) {
            *r = by_index[a.index as usize];
        }
        self.apply_tints();
    }

    /// The policy in use.
    pub fn policy(&self) -> &LodPolicy {
        &self.policy
    }

    /// Shows each agent's LOD level as its tint ([`LOD_COLOURS`]) instead of its own colour,
    /// or back. Every record is dirty.
    pub fn set_lod_colours(&mut self, on: bool) {
        self.lod_colours = on;
        self.apply_tints();
    }

    /// Whether LOD levels are shown as tints.
    pub fn lod_colours(&self) -> bool {
        self.lod_colours
    }

    fn apply_tints(&mut self) {
        for (r, (a, h)) in self
            .records
            .iter_mut()
            .zip(self.agents.iter().zip(&self.hot))
        {
            r.tint = tint_of(a, h.level, self.lod_colours);
        }
        self.schedule.mark_all_dirty();
        self.schedule.refresh();
    }

    /// Stops (or resumes) reassigning LOD levels and culling, so a user can fly out and look
    /// at what the camera where they froze it sees. Agents keep being simulated.
    pub fn set_frozen(&mut self, frozen: bool) {
        self.frozen = frozen;
    }

    /// Whether LOD levels and culling are frozen.
    pub fn frozen(&self) -> bool {
        self.frozen
    }

    /// Instance records, in slot order.
    pub fn records(&self) -> &[InstanceRecord] {
        &self.records
    }

    /// Slot ranges whose records changed since the last [`Crowd::clear_dirty`] (ascending,
    /// close runs merged; see [`super::schedule::DIRTY_GAP`]). Everything after
    /// [`Crowd::new`], [`Crowd::set_count`], [`Crowd::set_policy`] and
    /// [`Crowd::set_lod_colours`].
    pub fn dirty(&self) -> &[Range<u32>] {
        self.schedule.dirty()
    }

    /// The records of `slots` to rewrite (the hybrid path points its live agents' at the
    /// matrices it evaluated), with the agents in them; `slots` are marked dirty. Empty where
    /// `slots` reaches past the crowd.
    pub fn records_mut(&mut self, slots: Range<u32>) -> (&[Agent], &mut [InstanceRecord]) {
        let r = slots.start as usize..slots.end as usize;
        if r.end > self.records.len() || r.start > r.end {
            return (&[], &mut []);
        }
        self.schedule.mark_dirty(slots);
        self.schedule.refresh();
        (&self.agents[r.clone()], &mut self.records[r])
    }

    /// How far into the live tier the agent in `slot` is, 0 to 1: 0 outside it and on the
    /// frame it joins, rising to 1 over
    /// [`LIVE_BLEND_SECONDS`], falling to 0 before it leaves.
    /// The hybrid path scales its IK by it, so that handoffs show the bake's pose.
    pub fn live_blend(&self, slot: u32) -> f32 {
        self.hot.get(slot as usize).map_or(0.0, |h| {
            if h.level == super::assign::LIVE_LEVEL {
                h.blend
            } else {
                0.0
            }
        })
    }

    /// Forgets the changes: call after uploading [`Crowd::dirty`].
    pub fn clear_dirty(&mut self) {
        self.schedule.clear_dirty();
    }

    /// Draw calls: per character and LOD level with visible agents, its slots (in slot order).
    pub fn draws(&self) -> &[DrawRange] {
        self.schedule.draws()
    }

    /// The agent (index) in each slot.
    pub fn slot_agent(&self) -> &[u32] {
        self.schedule.slot_agent()
    }

    /// The schedule (slots, buckets, groups).
    pub fn schedule(&self) -> &Schedule {
        &self.schedule
    }

    /// Half-size of the plaza, metres: it spans −h..h in x and z.
    pub fn plaza_half_size(&self) -> f32 {
        self.half
    }

    /// LOD level of agent `a` (an index) by its distance: the level it is drawn at when
    /// visible, as of the last update that assigned levels. `None` past the agents.
    pub fn agent_level(&self, a: usize) -> Option<u32> {
        let slot = *self.schedule.agent_slot().get(a)?;
        self.hot.get(slot as usize).map(|h| u32::from(h.level))
    }

    /// Whether agent `a` (an index) is drawn (not culled).
    pub fn agent_visible(&self, a: usize) -> bool {
        a < self.agents.len()
            && self.schedule.group_of_agent(a as u32) != self.schedule.culled_group()
    }

    /// Agent `a` (an index), or `None` past the agents.
    pub fn agent(&self, a: usize) -> Option<&Agent> {
        let slot = *self.schedule.agent_slot().get(a)?;
        self.agents.get(slot as usize)
    }

    /// The agents in slot order, as [`Crowd::records`]: `agents()[s].index ==
    /// slot_agent()[s]`.
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// What each character plays.
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// The settings the crowd was made with (`count` as made; see [`Crowd::agents`]).
    pub fn settings(&self) -> &CrowdSettings {
        &self.settings
    }

    /// Frames updated so far.
    pub fn frame(&self) -> u64 {
        self.frame
    }

    /// Crowd time, seconds: the sum of the updates' `dt`.
    pub fn time(&self) -> f64 {
        self.time
    }
}

/// The tint an agent's record shows: its own colour, or its LOD level's.
#[inline]
fn tint_of(agent: &Agent, level: u8, lod_colours: bool) -> [u8; 4] {
    if lod_colours && level == super::assign::LIVE_LEVEL {
        LIVE_COLOUR
    } else if lod_colours {
        LOD_COLOURS[level as usize % LOD_COLOURS.len()]
    } else {
        agent.tint
    }
}

/// The record of `agent` at LOD `level`.
// Always inlined: the step pass calls it for every agent stepped, and called it costs a
// register spill and reload around each call.
#[inline(always)]
fn record_of(file: &ThrongFile, agent: &Agent, level: u8, lod_colours: bool) -> InstanceRecord {
    InstanceRecord::new(
        agent.position,
        agent.heading,
        agent.scale,
        tint_of(agent, level, lod_colours),
        &agent.playback().frame_pose(file),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::testing::{
        balanced, by_index, file, orbit, settings, standard_anims, synthetic_file, whole,
    };

    #[test]
    fn growing_keeps_the_agents_there_and_new_ones_depend_on_seed_and_index() {
        let file = file();
        let mut c = Crowd::new(&file, &settings(50, 3), balanced()).unwrap();
        c.update(&file, 0.1, &orbit(c.plaza_half_size(), 0))
            .unwrap();
        let before = by_index(&c);
        c.set_count(&file, 120).unwrap();
        let after = by_index(&c);
        assert_eq!(&after[..50], &before[..]);
        let half = c.plaza_half_size();
        for i in 50..120u32 {
            assert_eq!(
                after[i as usize],
                Agent::spawn(c.palette(), 3, i, half, c.time())
            );
        }
        assert_eq!(c.dirty(), whole(120), "everything is dirty after set_count");
        c.set_count(&file, 30).unwrap();
        assert_eq!(by_index(&c), &before[..30]);
        assert_eq!(c.records().len(), 30);
        assert!(matches!(
            c.set_count(&file, MAX_AGENTS + 1),
            Err(CrowdError::TooMany { .. })
        ));
        c.set_count(&file, 0).unwrap();
        let stats = c.update(&file, 0.1, &orbit(half, 0)).unwrap();
        assert_eq!((stats.agents, stats.due, stats.visible), (0, 0, 0));
        assert!(c.records().is_empty() && c.draws().is_empty() && c.dirty().is_empty());
        let other = synthetic_file(&[standard_anims()], 3);
        let e = c.update(&other, 0.1, &orbit(half, 0)).unwrap_err();
        assert!(
            e.to_string().starts_with("synthetic.throng: not the bake"),
            "{e}"
        );
    }

    #[test]
    fn on_relief_every_agent_stands_on_the_ground_as_it_walks() {
        use crate::crowd::terrain::{TERRACE_HEIGHT, Terrain};
        let file = file();
        // 2,000 agents on a plaza 110 m across: many on the terrace, its steps and the ramp.
        let mut c = Crowd::new(
            &file,
            &CrowdSettings {
                terrain: Terrain::Relief,
                ..settings(2_000, 5)
            },
            balanced(),
        )
        .unwrap();
        let half = c.plaza_half_size();
        let on_ground = |c: &Crowd| {
            for a in c.agents() {
                let h = Terrain::Relief.height(a.position.x, a.position.z);
                assert_eq!(a.position.y, h, "agent {} at {}", a.index, a.position);
            }
            for (r, a) in c.records().iter().zip(c.agents()) {
                assert_eq!(r.place[1], a.position.y);
            }
        };
        on_ground(&c);
        for k in 0..30 {
            c.update(&file, 1.0 / 30.0, &orbit(half, k)).unwrap();
            on_ground(&c);
        }
        let high = c
            .agents()
            .iter()
            .filter(|a| a.position.y > 0.5 * TERRACE_HEIGHT)
            .count();
        assert!(high > 3, "only {high} agents up on the terrace");
    }

    #[test]
    fn a_new_policy_keeps_the_records_with_their_agents() {
        let file = file();
        let mut c = Crowd::new(&file, &settings(800, 12), balanced()).unwrap();
        let half = c.plaza_half_size();
        for k in 0..10 {
            c.update(&file, 1.0 / 60.0, &orbit(half, k)).unwrap();
        }
        let by_agent = |c: &Crowd| {
            let mut v = vec![InstanceRecord::default(); c.agents().len()];
            for (slot, &a) in c.slot_agent().iter().enumerate() {
                v[a as usize] = c.records()[slot];
            }
            v
        };
        let before = by_agent(&c);
        let aggressive = crate::crowd::LodPresets::builtin()
            .get("aggressive")
            .unwrap()
            .clone();
        c.clear_dirty();
        c.set_policy(aggressive.clone());
        assert_eq!(by_agent(&c), before);
        assert_eq!(c.dirty(), whole(800));
        assert_eq!(c.policy(), &aggressive);
        let stats = c.update(&file, 1.0 / 60.0, &orbit(half, 10)).unwrap();
        assert_eq!(stats.agents, 800);
        assert_eq!(stats.per_level.iter().sum::<usize>(), stats.visible);
    }
}
