//! The plaza's tests: its crowd grown and shrunk, the same on any number of threads, every
//! agent stepped once per window of its rate, culling, dirty ranges and gait speeds, all
//! through the runtime's agent API as the plaza drives it.

use std::sync::Arc;

use glam::Vec3;

use super::*;
use crate::crowd::frame::cull::Frustum;
use crate::crowd::frame::record::InstanceRecord;
use crate::crowd::plaza::rng::Rng;
use crate::crowd::testing::{balanced, by_index, file, orbit, random_view, settings, whole};
use crate::crowd::{Agent, LOD_COLOURS, LodPresets};

fn run(
    file: &Arc<ThrongFile>,
    seed: u64,
    frames: u32,
) -> (Vec<InstanceRecord>, Vec<(Agent, Wander)>) {
    run_with(file, settings(3000, seed), frames)
}

fn run_with(
    file: &Arc<ThrongFile>,
    settings: PlazaSettings,
    frames: u32,
) -> (Vec<InstanceRecord>, Vec<(Agent, Wander)>) {
    let mut p = Plaza::new(file.clone(), &settings, balanced()).unwrap();
    let half = p.half_size();
    for k in 0..frames {
        p.update(1.0 / 60.0, &orbit(half, k));
        p.crowd_mut().clear_dirty();
    }
    (p.crowd().records().to_vec(), by_index(&p))
}

/// Whether plaza agent `i` is drawn.
fn visible(p: &Plaza, i: usize) -> bool {
    p.crowd().is_visible(p.id(i).unwrap()).unwrap()
}

#[test]
fn growing_keeps_the_agents_there_and_new_ones_depend_on_seed_and_index() {
    let file = file();
    let mut p = Plaza::new(file.clone(), &settings(50, 3), balanced()).unwrap();
    p.update(0.1, &orbit(p.half_size(), 0));
    let before = by_index(&p);
    p.set_count(120).unwrap();
    let after = by_index(&p);
    assert_eq!(&after[..50], &before[..]);
    let half = p.half_size();
    for i in 50..120u32 {
        let (s, w) = Wander::spawn(p.crowd().palette(), 3, i, half);
        let (a, aw) = after[i as usize];
        assert_eq!(
            (a.position(), a.heading(), a.anim(), a.time()),
            (s.position, s.heading, s.anim, s.play_time())
        );
        assert_eq!(aw, w);
    }
    assert_eq!(
        p.crowd().dirty(),
        whole(120),
        "everything is dirty after growing"
    );
    p.set_count(30).unwrap();
    assert_eq!(by_index(&p), &before[..30]);
    assert_eq!(p.crowd().alive(), 30);
    assert!(matches!(
        p.set_count(MAX_AGENTS + 1),
        Err(CrowdError::TooMany { .. })
    ));
    p.set_count(0).unwrap();
    let stats = p.update(0.1, &orbit(half, 0));
    assert_eq!((stats.agents, stats.visible), (0, 0));
    assert!(p.crowd().draws().is_empty());
    // Grown again: the freed slots are reused, no new ones made.
    let slots = p.crowd().records().len();
    p.set_count(120).unwrap();
    assert_eq!(p.crowd().records().len(), slots);
}

#[test]
fn on_relief_every_agent_stands_on_the_ground_as_it_walks() {
    use crate::crowd::plaza::terrain::TERRACE_HEIGHT;
    let file = file();
    // 2,000 agents on a plaza 110 m across: many on the terrace, its steps and the ramp.
    let mut p = Plaza::new(
        file,
        &PlazaSettings {
            terrain: Terrain::Relief,
            ..settings(2_000, 5)
        },
        balanced(),
    )
    .unwrap();
    let half = p.half_size();
    let on_ground = |p: &Plaza| {
        for a in p.crowd().agents() {
            let h = Terrain::Relief.height(a.position().x, a.position().z);
            assert_eq!(a.position().y, h, "agent {} at {}", a.index(), a.position());
        }
        for (r, a) in p.crowd().records().iter().zip(p.crowd().agents()) {
            assert_eq!(r.place[1], a.position().y);
        }
    };
    on_ground(&p);
    for k in 0..30 {
        p.update(1.0 / 30.0, &orbit(half, k));
        on_ground(&p);
    }
    let high = p
        .crowd()
        .agents()
        .iter()
        .filter(|a| a.position().y > 0.5 * TERRACE_HEIGHT)
        .count();
    assert!(high > 3, "only {high} agents up on the terrace");
}

#[test]
fn a_new_policy_keeps_the_records_with_their_agents() {
    let file = file();
    let mut p = Plaza::new(file, &settings(800, 12), balanced()).unwrap();
    let half = p.half_size();
    for k in 0..10 {
        p.update(1.0 / 60.0, &orbit(half, k));
    }
    let by_agent = |c: &Crowd<Wander>| {
        let mut v = vec![InstanceRecord::default(); c.agents().len()];
        for (slot, &a) in c.slot_agent().iter().enumerate() {
            v[a as usize] = c.records()[slot];
        }
        v
    };
    let before = by_agent(p.crowd());
    let aggressive = LodPresets::builtin().get("aggressive").unwrap().clone();
    p.crowd_mut().clear_dirty();
    p.crowd_mut().set_policy(aggressive.clone());
    assert_eq!(by_agent(p.crowd()), before);
    assert_eq!(p.crowd().dirty(), whole(800));
    assert_eq!(p.crowd().policy(), &aggressive);
    let stats = p.update(1.0 / 60.0, &orbit(half, 10));
    assert_eq!(stats.agents, 800);
    assert_eq!(stats.per_level.iter().sum::<usize>(), stats.visible);
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
    let mut serial = settings(3000, 5);
    serial.crowd.parallel_min = usize::MAX;
    let serial = pool(4).install(|| run_with(&file, serial, 120));
    assert!(one.0 == serial.0, "records differ without parallel passes");
    assert!(one.1 == serial.1, "agents differ without parallel passes");
    let other = run(&file, 6, 120);
    assert!(one.0 != other.0, "another seed gives the same records");
    // And the crowd did something: agents moved and changed behaviour.
    let start = Plaza::new(file.clone(), &settings(3000, 5), balanced()).unwrap();
    let moved = by_index(&start)
        .iter()
        .zip(&one.1)
        .filter(|(a, b)| a.0.position() != b.0.position())
        .count();
    assert!(moved > 1000, "only {moved} of 3000 agents moved in 2 s");
}

/// With levels frozen, the population of every group is static: an agent at rate k is
/// stepped exactly once in every k consecutive frames, and each group steps the same
/// number of agents every frame, give or take one.
#[test]
fn frozen_levels_step_every_agent_once_per_window_and_evenly() {
    let file = file();
    let mut p = Plaza::new(file, &settings(2000, 9), balanced()).unwrap();
    let half = p.half_size();
    // A low camera in the middle: every level and culling get agents.
    let eye = Vec3::new(0.0, 3.0, 0.0);
    let view = View {
        view_proj: glam::camera::rh::proj::directx::perspective(1.2, 1.5, 0.1, 300.0)
            * glam::camera::rh::view::look_at_mat4(eye, Vec3::new(30.0, 0.0, 5.0), Vec3::Y),
        eye,
    };
    for _ in 0..3 {
        p.update(1.0 / 60.0, &view);
    }
    p.crowd_mut().set_frozen(true);
    let s = p.crowd().schedule().clone();
    let n = p.len();
    let frames = 48u32;
    let mut stepped: Vec<Vec<u32>> = vec![Vec::new(); n];
    let mut per_group = vec![Vec::new(); s.groups() as usize];
    for f in 0..frames {
        let before: Vec<f64> = by_index(&p).iter().map(|a| a.0.last_update()).collect();
        // Another camera: frozen levels ignore it.
        let stats = p.update(1.0 / 60.0, &orbit(half, f * 7));
        let mut count = vec![0usize; s.groups() as usize];
        for (a, agent) in by_index(&p).iter().enumerate() {
            if agent.0.last_update() != before[a] {
                stepped[a].push(f);
                count[s.group_of_agent(agent.0.index()) as usize] += 1;
            }
        }
        assert_eq!(count.iter().sum::<usize>(), stats.due);
        for (g, k) in count.into_iter().enumerate() {
            per_group[g].push(k);
        }
    }
    assert_eq!(
        p.crowd().schedule().slot_agent(),
        s.slot_agent(),
        "frozen: nobody moved"
    );
    let mut rates_seen = std::collections::BTreeSet::new();
    for (a, frames_stepped) in stepped.iter().enumerate() {
        let index = p.id(a).unwrap().index();
        let k = s.group_rate(s.group_of_agent(index));
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
    let mut p = Plaza::new(file, &settings(1500, 2), balanced()).unwrap();
    let half = p.half_size();
    let (mut kept, mut culled) = (0, 0);
    for _ in 0..40 {
        let view = random_view(&mut rng, half);
        let before = by_index(&p);
        p.update(rng.range(0.0, 0.2), &view);
        let f = Frustum::from_view_proj(view.view_proj);
        let palette = p.crowd().palette();
        for (i, (a, _)) in before.iter().enumerate() {
            let (mut lo, mut hi) = palette.bounds(a.anim()).unwrap();
            if let Some((b, _, _)) = a.fading_to() {
                let (l, h) = palette.bounds(b).unwrap();
                lo = lo.min(l);
                hi = hi.max(h);
            }
            let (s, co) = a.heading().sin_cos();
            let place = |m: Vec3| {
                let q = m * a.scale();
                Vec3::new(co * q.x + s * q.z, q.y, -s * q.x + co * q.z) + a.position()
            };
            // Corners, face centres, interior: a 5x5x5 lattice over the box.
            let touches = (0..125).any(|k| {
                let t = Vec3::new((k % 5) as f32, (k / 5 % 5) as f32, (k / 25) as f32) / 4.0;
                f.contains_point(place(lo + (hi - lo) * t))
            });
            if touches {
                assert!(visible(&p, i), "agent {i} touches the view but is culled");
                kept += 1;
            } else {
                culled += usize::from(!visible(&p, i));
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
    let mut p = Plaza::new(file, &settings(2500, 4), balanced()).unwrap();
    let half = p.half_size();
    let mut total_written = 0;
    for k in 0..60 {
        let view = if k % 10 == 9 {
            random_view(&mut rng, half)
        } else {
            orbit(half, k)
        };
        if k == 30 {
            p.crowd_mut().set_lod_colours(true);
        }
        p.crowd_mut().clear_dirty();
        let before = p.crowd().records().to_vec();
        let stats = p.update(1.0 / 60.0, &view);
        let c = p.crowd();
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
        let shown: usize = c.draws().iter().map(|d| d.slots.len()).sum();
        assert_eq!(shown, stats.visible);
        assert_eq!(shown, (0..p.len()).filter(|&i| visible(&p, i)).count());
        for (slot, &a) in c.slot_agent().iter().enumerate() {
            let agent = &c.agents()[slot];
            assert_eq!(agent.index(), a, "agents are in slot order");
            let r = &c.records()[slot];
            assert_eq!(
                r.place,
                [agent.position().x, 0.0, agent.position().z, agent.heading()]
            );
        }
        // Culled agents take their level's colour when they come into view (their level
        // may change unseen); drawn ones show it.
        for i in 0..p.len() {
            let id = p.id(i).unwrap();
            if c.is_visible(id).unwrap() {
                let slot = c.schedule().agent_slot()[id.index() as usize] as usize;
                let level = c.level(id).unwrap();
                let tint = if k >= 30 {
                    LOD_COLOURS[level as usize]
                } else {
                    c.agents()[slot].tint()
                };
                assert_eq!(c.records()[slot].tint, tint, "frame {k}, agent {i}");
            }
        }
    }
    assert!(
        total_written < 60 * 2500,
        "dirty ranges cover everything every frame"
    );
    p.crowd_mut().set_lod_colours(false);
    for (r, a) in p.crowd().records().iter().zip(p.crowd().agents()) {
        assert_eq!(r.tint, a.tint());
    }
    assert_eq!(p.crowd().dirty(), whole(2500));
}

/// No foot sliding, on the real mannequin: every agent stepped without a cross-fade
/// covers exactly its gait's speed (times its scale) over the time since its last step.
#[cfg(feature = "bake")]
#[test]
fn mannequin_agents_move_at_their_gait_speed() {
    let file = Arc::new(crate::crowd::testing::mannequin_bake());
    let mut p = Plaza::new(file, &settings(2000, 17), balanced()).unwrap();
    let half = p.half_size();
    // Standing, walking, running steps checked.
    let mut checked = [0usize; 3];
    for k in 0..240 {
        let before = by_index(&p);
        p.update(1.0 / 60.0, &orbit(half, k));
        for ((a, aw), (b, _)) in before.iter().zip(&by_index(&p)) {
            if b.last_update() == a.last_update()
                || a.fading_to().is_some()
                || b.fading_to().is_some()
            {
                continue;
            }
            if b.anim() != a.anim() {
                continue;
            }
            let dt = (b.last_update() - a.last_update()) as f32;
            let v = (b.position() - a.position()).length() / dt;
            let gait = aw.speed_a * a.scale();
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
