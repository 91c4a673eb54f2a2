//! [`Crowd`]: the agents a program drives, their LOD levels and culling, the schedule of who is
//! updated when, and their instance records in slot order, ready for one upload of the
//! changed ranges and one draw per character and LOD level. This file holds the crowd's state
//! and what changes it at once (making it, a new policy, tints); `agents` holds the calls that
//! spawn, despawn and drive agents; `readback` what a program reads back of them (events,
//! root motion, ground speed); `update` the per-frame step.
//!
//! Agents, their records, the data a program keeps with them and what culling reads of them
//! (32 bytes each) are all kept in slot order and move together, so a due run is one
//! contiguous slice of each and the passes over everyone read little memory. Nothing is
//! allocated once the crowd has run a few frames at its size (rayon itself allocates a block
//! per 63 jobs handed to its pool: about one per 15 frames at 100,000 agents).

mod agents;
mod live;
mod readback;
mod update;

pub use live::LIVE_BLEND_SECONDS;
pub use readback::RootMotion;
pub use update::{AgentMut, Driver, DueView, MAX_STEP, step_seconds};

use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64};

use glam::Vec4;

use rayon::prelude::*;

use super::agent::Agent;
use super::error::CrowdError;
use super::frame::assign::{Assigner, Hot};
use super::frame::lod::LodPolicy;
use super::frame::record::InstanceRecord;
use super::frame::schedule::{DrawRange, Schedule};
use super::palette::Palette;
use super::settings::{CrowdSettings, View};
use crate::format::ThrongFile;

/// Tints of LOD levels 0, 1, 2... when [`Crowd::set_lod_colours`] is on: green, yellow, red,
/// blue, cyan (the default bake's five levels), then orange, light grey, brown (repeating).
/// The live tier is [`LIVE_COLOUR`], a hue none of them has. Their alpha is 0: they paint over the agent's colour rather than multiply
/// it (see [`Spawn::tint`](crate::crowd::Spawn::tint)), so each hue shows on any texture.
pub const LOD_COLOURS: [[u8; 4]; 8] = [
    [60, 200, 80, 0],
    [235, 210, 50, 0],
    [225, 60, 50, 0],
    [60, 110, 235, 0],
    [60, 210, 210, 0],
    [240, 140, 40, 0],
    [190, 190, 190, 0],
    [140, 90, 50, 0],
];

/// The tint of agents in the impostor tier when [`Crowd::set_lod_colours`] is on: white,
/// painted over the agent's colour (alpha 0), so the tier reads as the lightest band.
pub const IMPOSTOR_COLOUR: [u8; 4] = [255, 255, 255, 0];

/// The tint of agents in the live tier when [`Crowd::set_lod_colours`] is on: violet, a hue
/// no LOD level has, painted over the agent's colour (alpha 0,
/// as [`LOD_COLOURS`]).
pub const LIVE_COLOUR: [u8; 4] = [150, 60, 255, 0];

/// What a program may keep with each agent: moved with it from slot to slot, so that a
/// behaviour stepping the due agents reads its own data in the same order (the plaza keeps
/// its wandering state this way). `()` for none.
pub trait AgentData: Copy + Send + Sync {}
impl<T: Copy + Send + Sync> AgentData for T {}

/// A crowd of agents (see the module docs); `S` is what the program keeps with each agent
/// ([`AgentData`]), `()` by default.
pub struct Crowd<S = ()> {
    file: Arc<ThrongFile>,
    settings: CrowdSettings,
    policy: LodPolicy,
    palette: Palette,
    /// Per character: LOD meshes in the bake.
    file_levels: Vec<u32>,
    /// Agents in slot order, as their records: a due run is a contiguous slice of both.
    agents: Vec<Agent>,
    /// What the program keeps with each agent, in slot order.
    data: Vec<S>,
    /// Per agent index: its generation (see [`super::AgentId`]).
    generations: Vec<u32>,
    /// Free agent indices, the last freed last.
    free: Vec<u32>,
    /// Per agent index: the place and heading (w) a program gave it, applied at its next due
    /// update where its bit in `placed_bits` is set.
    placed: Vec<Vec4>,
    /// One bit per agent index: a place waits in `placed`. Atomic so that the parallel step
    /// pass clears the bits of the agents it applies.
    placed_bits: Vec<AtomicU64>,
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
    /// One bit per slot due this frame.
    due_bits: Vec<u64>,
    frame: u64,
    time: f64,
    lod_colours: bool,
    frozen: bool,
    /// The last view LOD levels were assigned for (kept while frozen).
    assign_view: Option<View>,
    due_runs: Vec<Range<u32>>,
    /// Set by a renderer once it has written [`Crowd::dirty`]: the changes are forgotten
    /// before the next ones are made ([`Crowd::settle`]).
    prepared: AtomicBool,
}

impl<S: AgentData> Crowd<S> {
    /// An empty crowd of `file`'s characters, updated under `policy`: spawn agents into it
    /// with [`Crowd::spawn`].
    ///
    /// # Errors
    /// As [`Palette::new`] (a bake without characters, or a character without animations).
    pub fn new(
        file: Arc<ThrongFile>,
        settings: &CrowdSettings,
        policy: LodPolicy,
    ) -> Result<Self, CrowdError> {
        let palette = Palette::new(&file, &settings.names)?;
        let file_levels = palette.characters().iter().map(|c| c.levels).collect();
        let impostors: Vec<bool> = palette.characters().iter().map(|c| c.impostors).collect();
        let mut crowd = Self {
            file,
            settings: settings.clone(),
            policy,
            palette,
            file_levels,
            agents: Vec::new(),
            data: Vec::new(),
            generations: Vec::new(),
            free: Vec::new(),
            placed: Vec::new(),
            placed_bits: Vec::new(),
            hot: Vec::new(),
            want: Vec::new(),
            moves: Vec::new(),
            live_candidates: Vec::new(),
            live_bits: Vec::new(),
            records: Vec::new(),
            schedule: Schedule::new(),
            due_bits: Vec::new(),
            frame: 0,
            time: 0.0,
            lod_colours: false,
            frozen: false,
            assign_view: None,
            due_runs: Vec::new(),
            prepared: AtomicBool::new(false),
        };
        crowd.schedule.set_impostors(&impostors);
        crowd.place_all();
        Ok(crowd)
    }

    /// The bake the crowd plays.
    pub fn file(&self) -> &ThrongFile {
        &self.file
    }

    /// The bake the crowd plays, shared.
    pub fn file_arc(&self) -> &Arc<ThrongFile> {
        &self.file
    }

    fn margin(&self) -> f32 {
        if self.settings.bounds_margin.is_finite() {
            self.settings.bounds_margin.max(0.0)
        } else {
            0.0
        }
    }

    /// Places every agent anew under the current policy (LOD levels from the last view, if
    /// any), records and data following their agents to their new slots; every record is
    /// dirty. Allocates.
    fn place_all(&mut self) {
        self.settle();
        let n = self.agents.len();
        let mut order: Vec<u32> = (0..n as u32).collect();
        order.sort_unstable_by_key(|&s| self.agents[s as usize].index);
        let (agents, data, records, hots) = (
            by_index(&order, &self.agents),
            by_index(&order, &self.data),
            by_index(&order, &self.records),
            by_index(&order, &self.hot),
        );
        let margin = self.margin();
        let palette = &self.palette;
        let mut hot: Vec<Hot> = agents
            .par_iter()
            .zip(hots.par_iter())
            .map(|(a, h)| Hot {
                blend: h.blend,
                ..Hot::of(palette, a, margin, 0)
            })
            .collect();
        self.want.resize(n, 0);
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
        let slots = self.schedule.slot_agent();
        self.agents = slots.iter().map(|&a| agents[a as usize]).collect();
        self.data = slots.iter().map(|&a| data[a as usize]).collect();
        self.records = slots.iter().map(|&a| records[a as usize]).collect();
        self.hot = slots.iter().map(|&a| hot[a as usize]).collect();
        self.apply_tints();
    }

    /// Replaces the LOD policy: every agent is placed anew (LOD levels from the last view) and
    /// every record is dirty.
    pub fn set_policy(&mut self, policy: LodPolicy) {
        self.policy = policy;
        self.place_all();
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
        self.settle();
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
    /// at what the camera where they froze it sees. Agents keep being updated.
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
    /// close runs merged; see [`super::frame::schedule::DIRTY_GAP`]). Everything after
    /// [`Crowd::new`], [`Crowd::set_policy`] and [`Crowd::set_lod_colours`].
    pub fn dirty(&self) -> &[Range<u32>] {
        self.schedule.dirty()
    }

    /// The records of `slots` to rewrite (the hybrid path points its live agents' at the
    /// matrices it evaluated), with the agents in them; `slots` are marked dirty. Empty where
    /// `slots` reaches past the crowd.
    pub fn records_mut(&mut self, slots: Range<u32>) -> (&[Agent], &mut [InstanceRecord]) {
        self.settle();
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
            if h.level == super::frame::assign::LIVE_LEVEL {
                h.blend
            } else {
                0.0
            }
        })
    }

    /// Forgets the changes now. A program need not call it: once a renderer has written
    /// [`Crowd::dirty`] (`CrowdRenderer::prepare` of a `CrowdFrame::of` this crowd), the
    /// crowd forgets them itself before its next change. A program that uploads the records
    /// itself calls this after each upload.
    pub fn clear_dirty(&mut self) {
        *self.prepared.get_mut() = false;
        self.schedule.clear_dirty();
    }

    /// The flag a renderer sets once it has written [`Crowd::dirty`].
    pub fn prepared_flag(&self) -> &AtomicBool {
        &self.prepared
    }

    /// Forgets the changes a renderer has written, before new ones are marked: every call
    /// that marks records dirty starts with it.
    fn settle(&mut self) {
        if std::mem::take(self.prepared.get_mut()) {
            self.schedule.clear_dirty();
        }
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

    /// The agents in slot order, as [`Crowd::records`] (despawned ones among them until
    /// their index is reused: see [`Agent::hidden`] and [`Crowd::is_alive`]).
    pub fn agents(&self) -> &[Agent] {
        &self.agents
    }

    /// What the program keeps with each agent, in slot order.
    pub fn data(&self) -> &[S] {
        &self.data
    }

    /// What each character plays: animations' durations, ground speeds and bounds, gaits by
    /// speed.
    pub fn palette(&self) -> &Palette {
        &self.palette
    }

    /// The settings the crowd was made with.
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

/// `v` in the order of `order` (indices into it).
fn by_index<T: Copy>(order: &[u32], v: &[T]) -> Vec<T> {
    order.iter().map(|&s| v[s as usize]).collect()
}

/// The tint an agent's record shows: its own colour, or its LOD level's.
#[inline]
fn tint_of(agent: &Agent, level: u8, lod_colours: bool) -> [u8; 4] {
    if lod_colours && level == super::frame::assign::LIVE_LEVEL {
        LIVE_COLOUR
    } else if lod_colours && level == super::frame::assign::IMPOSTOR_LEVEL {
        IMPOSTOR_COLOUR
    } else if lod_colours {
        LOD_COLOURS[level as usize % LOD_COLOURS.len()]
    } else {
        agent.tint
    }
}

/// The record of `agent` at LOD `level`: the one way a record is made.
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
mod tests;
