//! The crowd: agents on a square plaza, their LOD levels and culling, the schedule of who is
//! updated when, and their instance records in slot order, ready for one upload of the changed
//! ranges and one draw per character and LOD level.
//!
//! Each [`Crowd::update`]: (a) sorts everyone's position into the neighbour grid; (b) culls and
//! picks each agent's LOD level (in parallel) and moves the agents whose group changed, then
//! evens out the phases (skipped when frozen); (c) steps the agents due this frame (in
//! parallel, each with the time since its own last update) and writes their records; (d)
//! advances the frame counter. Nothing is allocated once the crowd has run a frame at its size.

use std::ops::Range;
use std::time::Instant;

use glam::{Mat4, Vec2, Vec3};
use rayon::prelude::*;

use super::agent::Agent;
use super::cull::Frustum;
use super::error::CrowdError;
use super::grid::Grid;
use super::lod::LodPolicy;
use super::palette::{Palette, PaletteNames};
use super::record::{InstanceRecord, frame_pose_of};
use super::schedule::{DrawRange, Schedule};
use super::sim::{AVOID_RADIUS, StepContext, step};
use crate::format::ThrongFile;

/// Most agents a crowd holds.
pub const MAX_AGENTS: usize = 1_000_000;

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

/// A crowd of agents (see the module docs).
pub struct Crowd {
    settings: CrowdSettings,
    policy: LodPolicy,
    palette: Palette,
    key: FileKey,
    /// Per character: LOD meshes in the bake.
    file_levels: Vec<u32>,
    half: f32,
    agents: Vec<Agent>,
    /// Per agent: its LOD level by distance (clamped to its character's groups), culled or not.
    levels: Vec<u8>,
    /// Per agent, scratch: the group it belongs in this frame.
    want: Vec<u32>,
    /// Instance records in slot order.
    records: Vec<InstanceRecord>,
    schedule: Schedule,
    grid: Grid,
    frame: u64,
    time: f64,
    lod_colours: bool,
    frozen: bool,
    /// The last view LOD levels were assigned for (kept while frozen).
    assign_view: Option<View>,
    due_runs: Vec<Range<u32>>,
    next: Vec<Agent>,
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
            levels: Vec::new(),
            want: Vec::new(),
            records: Vec::new(),
            schedule: Schedule::new(),
            grid: Grid::new(),
            frame: 0,
            time: 0.0,
            lod_colours: false,
            frozen: false,
            assign_view: None,
            due_runs: Vec::new(),
            next: Vec::new(),
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
        let old = self.agents.len();
        if count < old {
            self.agents.truncate(count);
        } else {
            let (palette, seed, half, now) =
                (&self.palette, self.settings.seed, self.half, self.time);
            self.agents.par_extend(
                (old as u32..count as u32)
                    .into_par_iter()
                    .map(|i| Agent::spawn(palette, seed, i, half, now)),
            );
        }
        self.levels.resize(count, 0);
        self.want.resize(count, 0);
        self.rebuild(file);
        Ok(())
    }

    /// Places every agent anew under the current policy (levels from the last view, if any)
    /// and rewrites every record.
    fn rebuild(&mut self, file: &ThrongFile) {
        // Groups are laid out before levels can be turned into groups.
        self.schedule.rebuild(&self.file_levels, &self.policy, &[]);
        self.assign_groups();
        self.schedule
            .rebuild(&self.file_levels, &self.policy, &self.want);
        self.records.clear();
        self.records
            .resize(self.agents.len(), InstanceRecord::default());
        let (agents, levels, colours) = (&self.agents, &self.levels, self.lod_colours);
        self.records
            .par_iter_mut()
            .zip(self.schedule.slot_agent().par_iter())
            .for_each(|(r, &a)| {
                *r = record_of(file, &agents[a as usize], levels[a as usize], colours);
            });
    }

    /// Fills `want` (and `levels`) from the assignment view; without one, everyone at LOD 0.
    fn assign_groups(&mut self) {
        match self.assign_view {
            Some(view) => self.assign(&view),
            None => {
                self.levels.fill(0);
                let s = &self.schedule;
                for (w, a) in self.want.iter_mut().zip(&self.agents) {
                    *w = s.group_of(a.character, 0);
                }
            }
        }
    }

    /// Culling and LOD level of every agent for `view`, in parallel: `levels` and `want`.
    fn assign(&mut self, view: &View) {
        let frustum = Frustum::from_view_proj(view.view_proj);
        let (policy, palette, schedule) = (&self.policy, &self.palette, &self.schedule);
        let (margin, levels_of) = (self.settings.bounds_margin.max(0.0), &self.file_levels);
        let culled = schedule.culled_group();
        let eye = view.eye;
        self.want
            .par_iter_mut()
            .zip(self.levels.par_iter_mut())
            .zip(self.agents.par_iter())
            .with_min_len(1024)
            .for_each(|((want, level), agent)| {
                let file_levels = levels_of
                    .get(agent.character as usize)
                    .copied()
                    .unwrap_or(1);
                let l = policy.level_for(eye.distance(agent.position), agent.scale, file_levels);
                let g = schedule.group_of(agent.character, l);
                *level = schedule.group_key(g).map_or(0, |(_, l)| l) as u8;
                let visible = !policy.culling || {
                    let (c, r) = agent_sphere(palette, agent, margin);
                    frustum.intersects_sphere(c, r)
                };
                *want = if visible { g } else { culled };
            });
    }

    /// Replaces the LOD policy: every agent is placed anew (LOD levels from the last view) and
    /// every record is dirty.
    pub fn set_policy(&mut self, policy: LodPolicy) {
        self.policy = policy;
        // Records follow their agents to the new slots.
        let by_agent: Vec<InstanceRecord> = self
            .schedule
            .agent_slot()
            .iter()
            .map(|&s| self.records[s as usize])
            .collect();
        self.schedule.rebuild(&self.file_levels, &self.policy, &[]);
        self.assign_groups();
        self.schedule
            .rebuild(&self.file_levels, &self.policy, &self.want);
        for (slot, &a) in self.schedule.slot_agent().iter().enumerate() {
            self.records[slot] = by_agent[a as usize];
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
        for (r, &a) in self.records.iter_mut().zip(self.schedule.slot_agent()) {
            r.tint = if self.lod_colours {
                LOD_COLOURS[self.levels[a as usize] as usize % LOD_COLOURS.len()]
            } else {
                self.agents[a as usize].tint
            };
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
        let start = Instant::now();
        if dt.is_finite() && dt > 0.0 {
            self.time += f64::from(dt);
        }

        // (a) Neighbour grid: a snapshot read by every step.
        self.grid.rebuild(
            self.half,
            AVOID_RADIUS,
            self.agents
                .iter()
                .map(|a| Vec2::new(a.position.x, a.position.z)),
        );
        let grid_seconds = start.elapsed().as_secs_f64();

        // (b) Culling, LOD levels, bucket moves.
        let lod_start = Instant::now();
        if !self.frozen {
            self.assign(view);
            self.assign_view = Some(*view);
            let Self {
                schedule,
                records,
                want,
                levels,
                lod_colours,
                frame,
                ..
            } = self;
            for (a, &g) in want.iter().enumerate() {
                let a = a as u32;
                if schedule.group_of_agent(a) != g {
                    schedule.move_to_group(a, g, *frame, &mut |s, t| {
                        records.swap(s as usize, t as usize)
                    });
                    if *lod_colours {
                        let slot = schedule.agent_slot()[a as usize];
                        records[slot as usize].tint =
                            LOD_COLOURS[levels[a as usize] as usize % LOD_COLOURS.len()];
                        schedule.mark_dirty(slot..slot + 1);
                    }
                }
            }
            schedule.rebalance(&mut |s, t| records.swap(s as usize, t as usize));
        }
        let lod_seconds = lod_start.elapsed().as_secs_f64();

        // (c) Step the due agents and write their records.
        let sim_start = Instant::now();
        self.due_runs.clear();
        self.due_runs.extend(self.schedule.due(self.frame));
        let due: usize = self.due_runs.iter().map(|r| r.len()).sum();
        self.next.resize(due, Agent::default());
        let ctx = StepContext {
            palette: &self.palette,
            grid: &self.grid,
            half: self.half,
            fade_seconds: self.settings.fade_seconds.max(0.0),
            now: self.time,
        };
        let mut offset = 0;
        for run in &self.due_runs {
            let (s, e) = (run.start as usize, run.end as usize);
            let (agents, levels, colours) = (&self.agents, &self.levels, self.lod_colours);
            self.records[s..e]
                .par_iter_mut()
                .zip(self.next[offset..offset + (e - s)].par_iter_mut())
                .zip(self.schedule.slot_agent()[s..e].par_iter())
                .with_min_len(256)
                .for_each(|((record, next), &a)| {
                    *next = step(&agents[a as usize], a, &ctx);
                    *record = record_of(file, next, levels[a as usize], colours);
                });
            offset += e - s;
        }
        let mut k = 0;
        for run in &self.due_runs {
            for &a in &self.schedule.slot_agent()[run.start as usize..run.end as usize] {
                self.agents[a as usize] = self.next[k];
                k += 1;
            }
        }
        for run in &self.due_runs {
            self.schedule.mark_dirty(run.clone());
        }
        self.schedule.refresh();
        let simulate_seconds = grid_seconds + sim_start.elapsed().as_secs_f64();

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

    /// The agent in each slot.
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

    /// LOD level of agent `a` by its distance (the level it is drawn at when visible), or
    /// `None` past the agents.
    pub fn agent_level(&self, a: usize) -> Option<u32> {
        self.levels.get(a).map(|&l| u32::from(l))
    }

    /// Whether agent `a` is drawn (not culled).
    pub fn agent_visible(&self, a: usize) -> bool {
        a < self.agents.len()
            && self.schedule.group_of_agent(a as u32) != self.schedule.culled_group()
    }

    /// The agents, by index.
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
    let tint = if lod_colours {
        LOD_COLOURS[level as usize % LOD_COLOURS.len()]
    } else {
        agent.tint
    };
    InstanceRecord::new(agent.position, agent.heading, agent.scale, tint, &pose)
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
        (c.records().to_vec(), c.agents().to_vec())
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
        let moved = start
            .agents()
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
        let before = c.agents().to_vec();
        c.set_count(&file, 120).unwrap();
        assert_eq!(&c.agents()[..50], &before[..]);
        let half = c.plaza_half_size();
        for i in 50..120u32 {
            assert_eq!(
                c.agents()[i as usize],
                Agent::spawn(c.palette(), 3, i, half, c.time())
            );
        }
        assert_eq!(c.dirty(), whole(120), "everything is dirty after set_count");
        c.set_count(&file, 30).unwrap();
        assert_eq!(c.agents(), &before[..30]);
        assert_eq!(c.records().len(), 30);
        assert!(matches!(
            c.set_count(&file, MAX_AGENTS + 1),
            Err(CrowdError::TooMany { .. })
        ));
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
            let before: Vec<f64> = c.agents().iter().map(|a| a.last_update).collect();
            // Another camera: frozen levels ignore it.
            let stats = c.update(&file, 1.0 / 60.0, &orbit(half, f * 7)).unwrap();
            let mut count = vec![0usize; s.groups() as usize];
            for (a, agent) in c.agents().iter().enumerate() {
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
            let before = c.agents().to_vec();
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
                let agent = &c.agents()[a as usize];
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
        for (r, &a) in c.records().iter().zip(c.slot_agent()) {
            assert_eq!(r.tint, c.agents()[a as usize].tint);
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
            let before = c.agents().to_vec();
            c.update(&file, 1.0 / 60.0, &orbit(half, k)).unwrap();
            for (a, b) in before.iter().zip(c.agents()) {
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
