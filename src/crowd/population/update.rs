//! The crowd's step each frame, [`Crowd::update`]: culls and picks each agent's LOD level (in
//! parallel) and moves the agents whose group changed, then evens out the phases (skipped when
//! frozen); sorts everyone's position into the neighbour grid (a snapshot taken before anyone
//! steps, so the order of these two changes nothing: moves do not move agents) and finds,
//! walking the grid, how the agents due this frame steer away from their neighbours; steps
//! those agents (in parallel, each by the time since its own last update) and writes their
//! records; advances the frame counter.

use std::time::Instant;

use glam::Vec2;
use rayon::prelude::*;

use super::{Crowd, record_of, tint_of};
use crate::crowd::agent::Agent;
use crate::crowd::assign::{Assigner, Hot};
use crate::crowd::error::CrowdError;
use crate::crowd::record::InstanceRecord;
use crate::crowd::settings::{STATS_LEVELS, UpdateStats, View};
use crate::crowd::sim::{GRID_CELL, StepContext, avoidance, steers, step};
use crate::format::ThrongFile;

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

impl Crowd {
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
        if !self.frozen {
            self.assign_levels(view, dt);
        }
        let lod_seconds = lod_start.elapsed().as_secs_f64();

        // (a) The neighbour grid and avoidance, then (c) the steps of the due agents.
        let sim_start = Instant::now();
        let due = self.step_due(file);
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
            // Levels past the last bucket are counted in it.
            stats.per_level[(d.level as usize).min(STATS_LEVELS - 1)] += d.slots.len();
            stats.visible += d.slots.len();
        }
        Ok(stats)
    }

    /// Culls and picks every agent's LOD level for `view` and moves the agents whose group
    /// changed, evening out the phases after.
    fn assign_levels(&mut self, view: &View, dt: f32) {
        if self.assign_view.is_none() {
            // The first view: everyone leaves LOD 0 for their own group at once. Placing
            // everyone anew is cheaper than moving nearly all of them one by one.
            self.assign_view = Some(*view);
            self.replace();
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

    /// Rebuilds the neighbour grid (a snapshot of everyone's position before anyone steps),
    /// finds the avoidance of the agents due this frame walking it, steps them in place and
    /// writes their records, marking them dirty. Returns how many were stepped.
    fn step_due(&mut self, file: &ThrongFile) -> usize {
        self.due_runs.clear();
        self.due_runs.extend(self.schedule.due(self.frame));
        let words = self.agents.len().div_ceil(64);
        for bits in [&mut self.due_bits, &mut self.steer_bits] {
            bits.clear();
            bits.resize(words, 0);
        }
        let (due_runs, agents, time) = (&self.due_runs[..], &self.agents[..], self.time);
        let (due_bits, steer_bits) = (&mut self.due_bits[..], &mut self.steer_bits[..]);
        let mut mark_due = || {
            for run in due_runs {
                for s in run.clone() {
                    let (word, shift) = (s as usize / 64, s % 64);
                    due_bits[word] |= 1 << shift;
                    // No branch: whether an agent steers is a coin toss for the predictor.
                    steer_bits[word] |= u64::from(steers(&agents[s as usize], time)) << shift;
                }
            }
        };
        let (grid, hot, half) = (&mut self.grid, &self.hot, self.half);
        let mut sort = || grid.rebuild(half, GRID_CELL, hot, |h| Vec2::new(h.x, h.z));
        if self.agents.len() < self.settings.parallel_min.max(1) {
            mark_due();
            sort();
        } else {
            // The due bits are a serial pass over the agents due; so is the middle of the
            // grid's sort (its count and scatter): side by side, each has a core.
            rayon::join(mark_due, sort);
        }
        // Only the steps that read their push need one: agents standing still do not.
        let steer_bits = &self.steer_bits;
        avoidance(
            &self.grid,
            |s| steer_bits[s as usize / 64] & (1 << (s % 64)) != 0,
            &mut self.away,
        );
        let due_bits = &self.due_bits;

        let ctx = StepContext {
            palette: &self.palette,
            half: self.half,
            fade_seconds: self.settings.fade_seconds.max(0.0),
            now: self.time,
            terrain: self.settings.terrain,
        };
        let (colours, margin) = (self.lod_colours, self.margin());
        let away = &self.away;
        let body = |(slot, ((agent, record), hot)): (
            usize,
            ((&mut Agent, &mut InstanceRecord), &mut Hot),
        )| {
            step(agent, away.get(slot as u32), &ctx);
            *hot = Hot {
                blend: hot.blend,
                ..Hot::of(ctx.palette, agent, margin, hot.level)
            };
            *record = record_of(file, agent, hot.level, colours);
        };
        let due: usize = self.due_runs.iter().map(|r| r.len()).sum();
        if due < self.settings.parallel_min.max(1) {
            for run in &self.due_runs {
                let r = run.start as usize..run.end as usize;
                let items = self.agents[r.clone()]
                    .iter_mut()
                    .zip(&mut self.records[r.clone()])
                    .zip(&mut self.hot[r.clone()]);
                r.zip(items).for_each(body);
            }
        } else {
            // One parallel pass over every slot, in chunks of whole words of the due bits:
            // one hand-over to the pool per frame instead of one per due run, and a word
            // with no due slot is passed over at once (most of them, at rates below 1).
            let chunks = self
                .agents
                .par_chunks_mut(STEP_CHUNK)
                .zip(self.records.par_chunks_mut(STEP_CHUNK))
                .zip(self.hot.par_chunks_mut(STEP_CHUNK))
                .enumerate();
            chunks.for_each(|(c, ((agents, records), hot))| {
                let base = c * STEP_CHUNK;
                let words = &due_bits[base / 64..(base + agents.len()).div_ceil(64)];
                for (w, &word) in words.iter().enumerate() {
                    let mut bits = word;
                    while bits != 0 {
                        let k = w * 64 + bits.trailing_zeros() as usize;
                        bits &= bits - 1;
                        body((base + k, ((&mut agents[k], &mut records[k]), &mut hot[k])));
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

#[cfg(test)]
mod tests {
    use glam::Vec3;

    use super::*;
    use crate::crowd::LOD_COLOURS;
    use crate::crowd::cull::Frustum;
    use crate::crowd::rng::Rng;
    use crate::crowd::settings::CrowdSettings;
    use crate::crowd::testing::{balanced, by_index, file, orbit, random_view, settings, whole};

    fn run(file: &ThrongFile, seed: u64, frames: u32) -> (Vec<InstanceRecord>, Vec<Agent>) {
        run_with(file, settings(3000, seed), frames)
    }

    fn run_with(
        file: &ThrongFile,
        settings: CrowdSettings,
        frames: u32,
    ) -> (Vec<InstanceRecord>, Vec<Agent>) {
        let mut c = Crowd::new(file, &settings, balanced()).unwrap();
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
        // Every pass on the calling thread, none split into jobs: the same crowd.
        let serial = CrowdSettings {
            parallel_min: usize::MAX,
            ..settings(3000, 5)
        };
        let serial = pool(4).install(|| run_with(&file, serial, 120));
        assert!(one.0 == serial.0, "records differ without parallel passes");
        assert!(one.1 == serial.1, "agents differ without parallel passes");
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

    /// No foot sliding, on the real mannequin: every agent stepped without a cross-fade
    /// covers exactly its gait's speed (times its scale) over the time since its last step.
    #[test]
    #[cfg(feature = "bake")]
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
