//! The crowd: agents on a square plaza, their LOD levels and culling, the schedule of who is
//! updated when, and their instance records in slot order, ready for one upload of the changed
//! ranges and one draw per character and LOD level.
//!
//! Each [`Crowd::update`]: culls and picks each agent's LOD level (in parallel) and moves the
//! agents whose group changed, then evens out the phases (skipped when frozen); sorts
//! everyone's position into the neighbour grid (a snapshot taken before anyone steps, so the
//! order of these two changes nothing: moves do not move agents) and finds, walking the grid,
//! how the agents due this frame steer away from their neighbours; steps those agents (in
//! parallel, each by the time since its own last update) and writes their records; advances
//! the frame counter.
//!
//! Agents, their records and what culling reads of them (28 bytes each) are all kept in slot
//! order and move together, so a due run is one contiguous slice of each and the passes over
//! everyone read little memory. Nothing is allocated once the crowd has run a few frames at
//! its size (rayon itself allocates a block per 63 jobs handed to its pool: about one per 15
//! frames at 100,000 agents).

use std::ops::Range;
use std::time::Instant;

use glam::{Mat4, Vec2, Vec3};
use rayon::prelude::*;

use super::agent::Agent;
use super::cull::Frustum;
use super::error::CrowdError;
use super::grid::Grid;
use super::lod::{LodPolicy, MAX_LEVELS};
use super::palette::{Palette, PaletteNames};
use super::record::{InstanceRecord, frame_pose_of};
use super::schedule::{DrawRange, Schedule};
use super::sim::{GRID_CELL, StepContext, avoidance, step};
use crate::format::ThrongFile;

/// Most agents a crowd holds.
pub const MAX_AGENTS: usize = 1_000_000;

/// Passes over fewer items than this run on the calling thread: handing work to rayon's pool
/// costs tens of microseconds of wake-ups, more than a small pass. Unit tests use a smaller
/// threshold so that their crowds of a few thousand run the parallel paths.
pub(crate) const PARALLEL_MIN: usize = if cfg!(test) { 256 } else { 4096 };

/// Tints of LOD levels 0, 1, 2... when [`Crowd::set_lod_colours`] is on: green, yellow, red,
/// blue, then magenta, cyan, orange, white (repeating).
pub const LOD_COLOURS: [[u8; 4]; 8] = [
    [60, 200, 80, 255],
    [235, 210, 50, 255],
    [225, 60, 50, 255],
    [60, 110, 235, 255],
    [200, 70, 200, 255],
    [60, 210, 210, 255],
    [240, 140, 40, 255],
    [240, 240, 240, 255],
];

/// How a crowd is made.
#[derive(Clone, Debug, PartialEq)]
pub struct CrowdSettings {
    /// Number of agents, up to [`MAX_AGENTS`]. Default 1,000.
    pub count: usize,
    /// Seed of everything random. Default 1.
    pub seed: u64,
    /// Plaza area per agent, square metres (> 0): the plaza's side is `sqrt(count × area)`.
    /// Default 6.
    pub area_per_agent: f32,
    /// Length of a cross-fade between animations, seconds (>= 0). Default 0.3.
    pub fade_seconds: f32,
    /// Metres added around the baked bounds for culling: room for props attached to a
    /// character that its bounds do not hold. Default 0.1.
    pub bounds_margin: f32,
    /// The animation families agents play.
    pub names: PaletteNames,
}

impl Default for CrowdSettings {
    fn default() -> Self {
        Self {
            count: 1_000,
            seed: 1,
            area_per_agent: 6.0,
            fade_seconds: 0.3,
            bounds_margin: 0.1,
            names: PaletteNames::default(),
        }
    }
}

/// The camera an update culls and picks LOD levels for.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct View {
    /// Projection × view, wgpu clip space (depth 0..1): see [`Frustum::from_view_proj`].
    pub view_proj: Mat4,
    /// Camera position, metres: LOD distances are measured from it.
    pub eye: Vec3,
}

/// What one [`Crowd::update`] did and how long it took.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct UpdateStats {
    /// Seconds spent on the neighbour grid and the steps of due agents, records included.
    pub simulate_seconds: f64,
    /// Seconds spent on culling, LOD levels and moving agents between buckets.
    pub lod_seconds: f64,
    /// Agents in the crowd.
    pub agents: usize,
    /// Agents drawn (not culled).
    pub visible: usize,
    /// Agents drawn at LOD 0, 1, 2 and 3 or coarser.
    pub per_level: [usize; 4],
    /// Agents stepped this frame.
    pub due: usize,
    /// Slots in [`Crowd::dirty`] after the update: the records to upload when the renderer
    /// clears the changes every frame.
    pub written: usize,
}

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

/// What culling, LOD levels and the grid read of an agent, kept beside the agents in slot
/// order: 28 bytes instead of a whole agent for the passes over everyone each frame. A step
/// rewrites its agent's.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Hot {
    /// Position on the ground, metres.
    x: f32,
    z: f32,
    /// Height of its bounding sphere's centre above the ground, metres.
    cy: f32,
    /// Radius of its bounding sphere, metres (margin included).
    radius: f32,
    /// Uniform scale.
    scale: f32,
    /// Character index.
    character: u32,
    /// LOD level by distance, as last assigned.
    level: u8,
}

impl Hot {
    fn of(palette: &Palette, agent: &Agent, margin: f32, level: u8) -> Self {
        let (c, radius) = agent_sphere(palette, agent, margin);
        Self {
            x: agent.position.x,
            z: agent.position.z,
            cy: c.y - agent.position.y,
            radius,
            scale: agent.scale,
            character: agent.character,
            level,
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
    /// Per grid point: its avoidance push (zero unless due).
    away: Vec<Vec2>,
    /// One bit per slot due this frame.
    due_bits: Vec<u64>,
    frame: u64,
    time: f64,
    lod_colours: bool,
    frozen: bool,
    /// The last view LOD levels were assigned for (kept while frozen).
    assign_view: Option<View>,
    due_runs: Vec<Range<u32>>,
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
struct Assigner<'a> {
    policy: &'a LodPolicy,
    schedule: &'a Schedule,
}

impl Assigner<'_> {
    /// Culling and LOD level of each of `hot` for `view` (`None`: all at LOD 0, visible), in
    /// parallel: each one's `level`, and in `want` the group it belongs in. Levels are
    /// [`LodPolicy::level_for`]'s, compared squared (no square root or division per agent):
    /// `d / s >= D` as `d² >= D² s²`.
    fn assign(&self, hot: &mut [Hot], want: &mut [u32], view: Option<&View>) {
        let frustum = view.map(|v| Frustum::from_view_proj(v.view_proj));
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
                        || frustum.intersects_sphere(Vec3::new(h.x, h.cy, h.z), h.radius);
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
        if hot.len() < PARALLEL_MIN {
            hot.iter_mut().zip(want).for_each(one);
        } else {
            hot.par_iter_mut()
                .zip(want.par_iter_mut())
                .with_min_len(PARALLEL_MIN)
                .for_each(one);
        }
    }
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
            records: Vec::new(),
            schedule: Schedule::new(),
            grid: Grid::new(),
            away: Vec::new(),
            due_bits: Vec::new(),
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
            agents.par_extend(
                (old as u32..count as u32)
                    .into_par_iter()
                    .map(|i| Agent::spawn(palette, seed, i, half, now)),
            );
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

    /// Advances the crowd by `dt` seconds (negative counts as 0) as seen from `view` (see the
    /// module docs). Only agents due this frame are stepped, each by the time since its own
    /// last update.
    ///
    /// # Errors
    /// [`CrowdError::OtherFile`] when `file` is not the bake the crowd was made from.
    pub fn update(
        &mut self,
        file: &ThrongFile,
        dt: f32,
        view: &View,
    ) -> Result<UpdateStats, CrowdError> {
        self.check_file(file)?;
        if dt.is_finite() && dt > 0.0 {
            self.time += f64::from(dt);
        }

        // (b) Culling, LOD levels, bucket moves. (Before the grid: ids in the grid are slots.)
        let lod_start = Instant::now();
        if !self.frozen && self.assign_view.is_none() {
            // The first view: everyone leaves LOD 0 for their own group at once. Placing
            // everyone anew is cheaper than moving nearly all of them one by one.
            self.assign_view = Some(*view);
            self.replace();
        } else if !self.frozen {
            let assigner = Assigner {
                policy: &self.policy,
                schedule: &self.schedule,
            };
            assigner.assign(&mut self.hot, &mut self.want, Some(view));
            self.assign_view = Some(*view);
            // Who moves, found group by group before anyone does.
            self.moves.clear();
            for g in 0..self.schedule.groups() {
                let slots = self.schedule.group_slots(g);
                let (s, e) = (slots.start as usize, slots.end as usize);
                for (want, agent) in self.want[s..e].iter().zip(&self.agents[s..e]) {
                    if *want != g {
                        self.moves.push((agent.index, *want));
                    }
                }
            }
            let Self {
                schedule,
                records,
                agents,
                hot,
                moves,
                lod_colours,
                frame,
                ..
            } = self;
            let mut swap = |s: u32, t: u32| {
                records.swap(s as usize, t as usize);
                agents.swap(s as usize, t as usize);
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
        let lod_seconds = lod_start.elapsed().as_secs_f64();

        // (a) The neighbour grid, a snapshot of everyone's position before anyone steps, and
        // the avoidance of the agents due, found walking the grid.
        let sim_start = Instant::now();
        self.due_runs.clear();
        self.due_runs.extend(self.schedule.due(self.frame));
        self.due_bits.clear();
        self.due_bits.resize(self.agents.len().div_ceil(64), 0);
        for run in &self.due_runs {
            for s in run.clone() {
                self.due_bits[s as usize / 64] |= 1 << (s % 64);
            }
        }
        self.grid
            .rebuild(self.half, GRID_CELL, &self.hot, |h| Vec2::new(h.x, h.z));
        let due_bits = &self.due_bits;
        avoidance(
            &self.grid,
            |s| due_bits[s as usize / 64] & (1 << (s % 64)) != 0,
            &mut self.away,
        );

        // (c) Step the due agents in place and write their records.
        let ctx = StepContext {
            palette: &self.palette,
            half: self.half,
            fade_seconds: self.settings.fade_seconds.max(0.0),
            now: self.time,
        };
        let (colours, margin) = (self.lod_colours, self.margin());
        let away = &self.away;
        let body = |(((agent, record), hot), at): (
            ((&mut Agent, &mut InstanceRecord), &mut Hot),
            &u32,
        )| {
            step(agent, away[*at as usize], &ctx);
            *hot = Hot::of(ctx.palette, agent, margin, hot.level);
            *record = record_of(file, agent, hot.level, colours);
        };
        let due: usize = self.due_runs.iter().map(|r| r.len()).sum();
        let place = self.grid.place();
        if due < PARALLEL_MIN {
            for run in &self.due_runs {
                let r = run.start as usize..run.end as usize;
                self.agents[r.clone()]
                    .iter_mut()
                    .zip(&mut self.records[r.clone()])
                    .zip(&mut self.hot[r.clone()])
                    .zip(&place[r])
                    .for_each(body);
            }
        } else {
            // One parallel pass over every slot, stepping the due ones: one hand-over to the
            // pool per frame instead of one per due run.
            self.agents
                .par_iter_mut()
                .zip(self.records.par_iter_mut())
                .zip(self.hot.par_iter_mut())
                .zip(place.par_iter())
                .enumerate()
                .with_min_len(1024)
                .filter(|(s, _)| due_bits[s / 64] & (1 << (s % 64)) != 0)
                .for_each(|(_, item)| body(item));
        }
        for run in &self.due_runs {
            self.schedule.mark_dirty(run.clone());
        }
        self.schedule.refresh();
        let simulate_seconds = sim_start.elapsed().as_secs_f64();

        // (d) Next frame.
        self.frame += 1;

        let mut stats = UpdateStats {
            simulate_seconds,
            lod_seconds,
            agents: self.agents.len(),
            due,
            written: self.schedule.dirty().iter().map(|r| r.len()).sum(),
            ..UpdateStats::default()
        };
        for d in self.schedule.draws() {
            stats.per_level[(d.level as usize).min(3)] += d.slots.len();
            stats.visible += d.slots.len();
        }
        Ok(stats)
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
    if lod_colours {
        LOD_COLOURS[level as usize % LOD_COLOURS.len()]
    } else {
        agent.tint
    }
}

/// The record of `agent` at LOD `level`.
#[inline]
fn record_of(file: &ThrongFile, agent: &Agent, level: u8, lod_colours: bool) -> InstanceRecord {
    let pose = frame_pose_of(
        file,
        agent.anim_a,
        agent.time_a,
        agent.anim_b,
        agent.time_b,
        agent.fade,
    );
    InstanceRecord::new(
        agent.position,
        agent.heading,
        agent.scale,
        tint_of(agent, level, lod_colours),
        &pose,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::crowd::rng::Rng;
    use crate::crowd::testing::{standard_anims, synthetic_file, whole};

    fn file() -> ThrongFile {
        synthetic_file(&[standard_anims(), standard_anims()], 3)
    }

    fn balanced() -> LodPolicy {
        super::super::lod::LodPresets::builtin()
            .get("balanced")
            .unwrap()
            .clone()
    }

    /// A camera `k` frames into an orbit around a plaza of half-size `half`, above it and
    /// looking across it.
    fn orbit(half: f32, k: u32) -> View {
        let angle = k as f32 * 0.02;
        let eye = Vec3::new(angle.cos() * half * 0.6, 12.0, angle.sin() * half * 0.6);
        let target = Vec3::new(0.0, 0.0, 0.0);
        let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
        let proj = glam::camera::rh::proj::directx::perspective(1.0, 16.0 / 9.0, 0.1, 500.0);
        View {
            view_proj: proj * view,
            eye,
        }
    }

    fn random_view(rng: &mut Rng, half: f32) -> View {
        let eye = Vec3::new(
            rng.range(-half, half),
            rng.range(1.0, 30.0),
            rng.range(-half, half),
        );
        let target = Vec3::new(rng.range(-half, half), 0.0, rng.range(-half, half));
        let view = glam::camera::rh::view::look_at_mat4(eye, target + Vec3::X * 0.01, Vec3::Y);
        let proj = glam::camera::rh::proj::directx::perspective(
            rng.range(0.3, 1.6),
            rng.range(0.5, 2.0),
            rng.range(0.05, 2.0),
            rng.range(10.0, 120.0),
        );
        View {
            view_proj: proj * view,
            eye,
        }
    }

    /// The agents in index order.
    fn by_index(c: &Crowd) -> Vec<Agent> {
        (0..c.agents().len())
            .map(|a| *c.agent(a).unwrap())
            .collect()
    }

    fn settings(count: usize, seed: u64) -> CrowdSettings {
        CrowdSettings {
            count,
            seed,
            ..CrowdSettings::default()
        }
    }

    fn run(file: &ThrongFile, seed: u64, frames: u32) -> (Vec<InstanceRecord>, Vec<Agent>) {
        let mut c = Crowd::new(file, &settings(3000, seed), balanced()).unwrap();
        let half = c.plaza_half_size();
        for k in 0..frames {
            c.update(file, 1.0 / 60.0, &orbit(half, k)).unwrap();
            c.clear_dirty();
        }
        (c.records().to_vec(), by_index(&c))
    }

    #[test]
    fn the_same_seed_gives_the_same_crowd_on_any_number_of_threads() {
        let file = file();
        let pool = |n| {
            rayon::ThreadPoolBuilder::new()
                .num_threads(n)
                .build()
                .unwrap()
        };
        let one = pool(1).install(|| run(&file, 5, 120));
        let four = pool(4).install(|| run(&file, 5, 120));
        assert!(one.0 == four.0, "records differ between 1 and 4 threads");
        assert!(one.1 == four.1, "agents differ between 1 and 4 threads");
        let other = run(&file, 6, 120);
        assert!(one.0 != other.0, "another seed gives the same records");
        // And the crowd did something: agents moved and changed behaviour.
        let start = Crowd::new(&file, &settings(3000, 5), balanced()).unwrap();
        let moved = by_index(&start)
            .iter()
            .zip(&one.1)
            .filter(|(a, b)| a.position != b.position)
            .count();
        assert!(moved > 1000, "only {moved} of 3000 agents moved in 2 s");
    }

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

    /// With levels frozen, the population of every group is static: an agent at rate k is
    /// stepped exactly once in every k consecutive frames, and each group steps the same
    /// number of agents every frame, give or take one.
    #[test]
    fn frozen_levels_step_every_agent_once_per_window_and_evenly() {
        let file = file();
        let mut c = Crowd::new(&file, &settings(2000, 9), balanced()).unwrap();
        let half = c.plaza_half_size();
        // A low camera in the middle: every level and culling get agents.
        let view = View {
            eye: Vec3::new(0.0, 3.0, 0.0),
            ..orbit(half, 0)
        };
        let view = View {
            view_proj: glam::camera::rh::proj::directx::perspective(1.2, 1.5, 0.1, 300.0)
                * glam::camera::rh::view::look_at_mat4(
                    view.eye,
                    Vec3::new(30.0, 0.0, 5.0),
                    Vec3::Y,
                ),
            ..view
        };
        for _ in 0..3 {
            c.update(&file, 1.0 / 60.0, &view).unwrap();
        }
        c.set_frozen(true);
        let s = c.schedule().clone();
        let n = c.agents().len();
        let frames = 48u32;
        let mut stepped: Vec<Vec<u32>> = vec![Vec::new(); n];
        let mut per_group = vec![Vec::new(); s.groups() as usize];
        for f in 0..frames {
            let before: Vec<f64> = by_index(&c).iter().map(|a| a.last_update).collect();
            // Another camera: frozen levels ignore it.
            let stats = c.update(&file, 1.0 / 60.0, &orbit(half, f * 7)).unwrap();
            let mut count = vec![0usize; s.groups() as usize];
            for (a, agent) in by_index(&c).iter().enumerate() {
                if agent.last_update != before[a] {
                    stepped[a].push(f);
                    count[s.group_of_agent(a as u32) as usize] += 1;
                }
            }
            assert_eq!(count.iter().sum::<usize>(), stats.due);
            for (g, k) in count.into_iter().enumerate() {
                per_group[g].push(k);
            }
        }
        assert_eq!(
            c.schedule().slot_agent(),
            s.slot_agent(),
            "frozen: nobody moved"
        );
        let mut rates_seen = std::collections::BTreeSet::new();
        for (a, frames_stepped) in stepped.iter().enumerate() {
            let k = s.group_rate(s.group_of_agent(a as u32));
            rates_seen.insert(k);
            for w in 0..=frames - k {
                let inside = frames_stepped
                    .iter()
                    .filter(|&&f| f >= w && f < w + k)
                    .count();
                assert_eq!(
                    inside,
                    1,
                    "agent {a} at rate {k}: {inside} steps in frames {w}..{}",
                    w + k
                );
            }
        }
        assert_eq!(
            rates_seen.into_iter().collect::<Vec<_>>(),
            [1, 2, 4, 8],
            "the view puts agents at every rate"
        );
        for (g, counts) in per_group.iter().enumerate() {
            let (min, max) = (counts.iter().min().unwrap(), counts.iter().max().unwrap());
            assert!(max - min <= 1, "group {g}: {min}..{max} due per frame");
        }
    }

    /// Culling never drops an agent whose baked bounds reach into the view: sample each
    /// agent's world-space box (the bounds of A, and B while fading, placed like the vertex
    /// shader places vertices); if any sample is inside all six planes it must be drawn.
    #[test]
    fn culling_keeps_every_agent_whose_bounds_touch_the_view() {
        let file = file();
        let mut rng = Rng::new(21);
        let mut c = Crowd::new(&file, &settings(1500, 2), balanced()).unwrap();
        let half = c.plaza_half_size();
        let (mut kept, mut culled) = (0, 0);
        for _ in 0..40 {
            let view = random_view(&mut rng, half);
            let before = by_index(&c);
            c.update(&file, rng.range(0.0, 0.2), &view).unwrap();
            let f = Frustum::from_view_proj(view.view_proj);
            for (i, a) in before.iter().enumerate() {
                let (mut lo, mut hi) = c.palette().bounds(a.anim_a).unwrap();
                if a.fade > 0.0 {
                    let (l, h) = c.palette().bounds(a.anim_b).unwrap();
                    lo = lo.min(l);
                    hi = hi.max(h);
                }
                let (s, co) = a.heading.sin_cos();
                let place = |m: Vec3| {
                    let q = m * a.scale;
                    Vec3::new(co * q.x + s * q.z, q.y, -s * q.x + co * q.z) + a.position
                };
                // Corners, face centres, interior: a 5x5x5 lattice over the box.
                let touches = (0..125).any(|k| {
                    let t = Vec3::new((k % 5) as f32, (k / 5 % 5) as f32, (k / 25) as f32) / 4.0;
                    f.contains_point(place(lo + (hi - lo) * t))
                });
                if touches {
                    assert!(
                        c.agent_visible(i),
                        "agent {i} touches the view but is culled"
                    );
                    kept += 1;
                } else {
                    culled += usize::from(!c.agent_visible(i));
                }
            }
        }
        assert!(
            kept > 2000 && culled > 10000,
            "kept {kept}, culled {culled}: the cameras test little"
        );
    }

    /// Every slot whose record changed in an update is in dirty(); draws cover the visible
    /// agents; records sit in their agent's slot.
    #[test]
    fn dirty_ranges_hold_every_changed_record() {
        let file = file();
        let mut rng = Rng::new(8);
        let mut c = Crowd::new(&file, &settings(2500, 4), balanced()).unwrap();
        let half = c.plaza_half_size();
        let mut total_written = 0;
        for k in 0..60 {
            let view = if k % 10 == 9 {
                random_view(&mut rng, half)
            } else {
                orbit(half, k)
            };
            if k == 30 {
                c.set_lod_colours(true);
            }
            c.clear_dirty();
            let before = c.records().to_vec();
            let stats = c.update(&file, 1.0 / 60.0, &view).unwrap();
            let dirty = c.dirty();
            for (slot, (old, new)) in before.iter().zip(c.records()).enumerate() {
                if old != new {
                    assert!(
                        dirty.iter().any(|r| r.contains(&(slot as u32))),
                        "frame {k}: slot {slot} changed but is not dirty"
                    );
                }
            }
            total_written += stats.written;
            let visible: usize = c.draws().iter().map(|d| d.slots.len()).sum();
            assert_eq!(visible, stats.visible);
            assert_eq!(
                visible,
                (0..c.agents().len())
                    .filter(|&a| c.agent_visible(a))
                    .count()
            );
            for (slot, &a) in c.slot_agent().iter().enumerate() {
                let agent = &c.agents()[slot];
                assert_eq!(agent.index, a, "agents are in slot order");
                let r = &c.records()[slot];
                assert_eq!(
                    r.place,
                    [agent.position.x, 0.0, agent.position.z, agent.heading]
                );
                // Culled agents take their level's colour when they come into view (their
                // level may change unseen); drawn ones show it.
                if c.agent_visible(a as usize) {
                    let level = c.agent_level(a as usize).unwrap();
                    let tint = if k >= 30 {
                        LOD_COLOURS[level as usize]
                    } else {
                        agent.tint
                    };
                    assert_eq!(r.tint, tint, "frame {k}, slot {slot}");
                }
            }
        }
        assert!(
            total_written < 60 * 2500,
            "dirty ranges cover everything every frame"
        );
        c.set_lod_colours(false);
        for (r, a) in c.records().iter().zip(c.agents()) {
            assert_eq!(r.tint, a.tint);
        }
        assert_eq!(c.dirty(), whole(2500));
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
        let aggressive = super::super::lod::LodPresets::builtin()
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

    /// No foot sliding, on the real mannequin: every agent stepped without a cross-fade
    /// covers exactly its gait's speed (times its scale) over the time since its last step.
    #[test]
    fn mannequin_agents_move_at_their_gait_speed() {
        let file = crate::crowd::testing::mannequin_bake();
        let mut c = Crowd::new(&file, &settings(2000, 17), balanced()).unwrap();
        let half = c.plaza_half_size();
        // Standing, walking, running steps checked.
        let mut checked = [0usize; 3];
        for k in 0..240 {
            let before = by_index(&c);
            c.update(&file, 1.0 / 60.0, &orbit(half, k)).unwrap();
            for (a, b) in before.iter().zip(&by_index(&c)) {
                if b.last_update == a.last_update || a.fade_rate > 0.0 || b.fade_rate > 0.0 {
                    continue;
                }
                if b.anim_a != a.anim_a {
                    continue;
                }
                let dt = (b.last_update - a.last_update) as f32;
                let v = (b.position - a.position).length() / dt;
                let gait = a.speed_a * a.scale;
                // f32 positions below 64 m (half an ulp: 3.8e-6 m) rounded at both ends of a
                // step over dt >= 1/60 s: under 7e-4 m/s.
                assert!(
                    (v - gait).abs() < 1e-3,
                    "agent moved at {v} m/s playing a {gait} m/s gait"
                );
                checked[usize::from(gait > 0.0) + usize::from(gait > 2.0)] += 1;
            }
        }
        assert!(
            checked.iter().all(|&n| n > 1000),
            "checked {checked:?} standing, walking, running steps"
        );
    }
}
