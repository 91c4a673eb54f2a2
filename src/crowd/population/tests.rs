//! The agent API as a program drives it, checked on the records the renderer draws: spawned
//! agents stand where they were put, play what they were told at the phase they were told,
//! cross-fade over the time asked, go when despawned (their slot reused), are written at
//! their LOD level's rate, report events and root motion, and refuse bad calls without
//! changing anything.

use std::sync::Arc;

use glam::Vec3;

use crate::crowd::testing::{SynthAnim, balanced, file, synthetic_file};
use crate::crowd::{
    AgentId, Crowd, CrowdError, CrowdSettings, End, InstanceRecord, Play, Spawn, View,
};
use crate::format::ThrongFile;

/// A camera at `eye` looking along −z with a wide view: agents in front of it are drawn.
fn looking_from(eye: Vec3) -> View {
    let view =
        glam::camera::rh::view::look_at_mat4(eye, eye + Vec3::new(0.0, -0.5, -10.0), Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(1.4, 1.0, 0.1, 1000.0);
    View {
        view_proj: proj * view,
        eye,
    }
}

fn crowd_of(file: &Arc<ThrongFile>) -> Crowd {
    Crowd::new(file.clone(), &CrowdSettings::default(), balanced()).unwrap()
}

/// The record of agent `id`.
fn record(c: &Crowd, id: AgentId) -> InstanceRecord {
    c.records()[c.schedule().agent_slot()[id.index() as usize] as usize]
}

/// Whether agent `id`'s slot is in a draw range.
fn drawn(c: &Crowd, id: AgentId) -> bool {
    let slot = c.schedule().agent_slot()[id.index() as usize];
    c.draws().iter().any(|d| d.slots.contains(&slot))
}

#[test]
fn a_spawned_agent_is_drawn_where_it_was_put() {
    let file = file();
    let mut c = crowd_of(&file);
    let walk = c.anim_named(1, "move").unwrap();
    let at = Vec3::new(3.0, 0.25, -7.0);
    let id = c
        .spawn(
            &Spawn::new(1, walk, at).with_heading(1.25).with_scale(1.1),
            (),
        )
        .unwrap();
    // Drawn at once, before any update, at its place and heading.
    let r = record(&c, id);
    assert_eq!(r.place, [3.0, 0.25, -7.0, 1.25]);
    assert_eq!(r.weights[0], 1.1);
    assert!(
        drawn(&c, id),
        "a new agent is drawn before the first update"
    );
    assert!(
        c.dirty()
            .iter()
            .any(|d| d.contains(&c.schedule().agent_slot()[id.index() as usize]))
    );
    // And after updates that see it, at the place the program sets.
    c.update(1.0 / 60.0, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    c.set_transform(id, Vec3::new(-2.0, 0.0, -4.0), -0.5)
        .unwrap();
    c.update(1.0 / 60.0, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    assert_eq!(record(&c, id).place, [-2.0, 0.0, -4.0, -0.5]);
    assert!(c.is_visible(id).unwrap() && drawn(&c, id));
    assert_eq!(c.level(id).unwrap(), 0, "9 m away: LOD 0");
}

#[test]
fn an_agent_told_to_play_at_a_phase_shows_that_frame() {
    let file = file();
    let mut c = crowd_of(&file);
    let (run, idle) = (
        c.anim_named(0, "move").unwrap() + 2,
        c.anim_named(0, "halt").unwrap(),
    );
    let id = c.spawn(&Spawn::new(0, idle, Vec3::ZERO), ()).unwrap();
    let duration = file.anims()[run as usize].duration;
    c.play(id, run, &Play::at_phase(0.375)).unwrap();
    c.update(0.0, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    let (f0, f1, w) = file.matrices_at(run as usize, 0.375 * duration);
    let r = record(&c, id);
    assert_eq!((r.frames[0], r.frames[1], r.weights[1]), (f0, f1, w));
    assert_eq!(r.weights[3], 0.0, "no fade");
    // At rate 2 it moves on twice as fast: 0.1 s later it shows 0.2 s on.
    c.play(id, run, &Play::at_time(0.0).with_rate(2.0)).unwrap();
    c.update(0.1, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    assert!((c.agent(id).unwrap().time() - 0.2).abs() < 1e-6);
    // Held at its end, a looping clip stays on its last frame.
    c.play(id, run, &Play::at_time(0.0).with_end(End::Hold))
        .unwrap();
    for _ in 0..10 {
        c.update(0.25, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    }
    assert_eq!(c.agent(id).unwrap().time(), duration);
}

#[test]
fn a_cross_fade_follows_its_duration() {
    let file = file();
    let mut c = crowd_of(&file);
    let (idle, walk) = (
        c.anim_named(0, "halt").unwrap(),
        c.anim_named(0, "move").unwrap() + 1,
    );
    let id = c.spawn(&Spawn::new(0, idle, Vec3::ZERO), ()).unwrap();
    let view = looking_from(Vec3::new(0.0, 2.0, 5.0));
    c.update(0.0, &view);
    c.cross_fade(id, walk, 0.5, &Play::default()).unwrap();
    // A near agent is updated every frame: its record's fade weight rises by dt / 0.5 s.
    for k in 1..=4 {
        c.update(0.1, &view);
        let r = record(&c, id);
        // Sums of 0.1 · 2 in f32: a few ulps.
        assert!(
            (r.weights[3] - 0.2 * k as f32).abs() < 1e-6,
            "step {k}: {}",
            r.weights[3]
        );
        let (b0, _, _) = file.matrices_at(walk as usize, 0.1 * k as f32);
        assert_eq!(
            r.frames[2], b0,
            "B is the walk, running since the fade began"
        );
    }
    c.update(0.1, &view);
    let r = record(&c, id);
    assert_eq!(r.weights[3], 0.0, "the fade is over after 0.5 s");
    assert_eq!(c.agent(id).unwrap().anim(), walk);
    assert!(c.agent(id).unwrap().fading_to().is_none());
}

#[test]
fn a_despawned_agent_is_drawn_nowhere_and_its_slot_is_reused() {
    let file = file();
    let mut c = crowd_of(&file);
    let idle = c.anim_named(0, "halt").unwrap();
    let ids: Vec<_> = (0..10)
        .map(|i| {
            c.spawn(&Spawn::new(0, idle, Vec3::new(i as f32, 0.0, 0.0)), ())
                .unwrap()
        })
        .collect();
    let view = looking_from(Vec3::new(5.0, 2.0, 8.0));
    c.update(1.0 / 60.0, &view);
    assert!(drawn(&c, ids[4]));
    c.despawn(ids[4]).unwrap();
    assert!(!drawn(&c, ids[4]), "gone at once");
    assert_eq!(c.alive(), 9);
    for _ in 0..10 {
        c.update(1.0 / 60.0, &view);
        assert!(!drawn(&c, ids[4]));
        assert_eq!(c.draws().iter().map(|d| d.slots.len()).sum::<usize>(), 9);
    }
    assert!(matches!(
        c.despawn(ids[4]),
        Err(CrowdError::StaleAgent { .. })
    ));
    let e = c.set_transform(ids[4], Vec3::ZERO, 0.0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "agent 4 (generation 0) was despawned: its handle is stale"
    );
    let again = c
        .spawn(&Spawn::new(0, idle, Vec3::new(4.0, 0.0, 1.0)), ())
        .unwrap();
    assert_eq!(
        (again.index(), again.generation()),
        (4, 1),
        "its index is reused"
    );
    assert_eq!(c.records().len(), 10, "no slot added");
    c.update(1.0 / 60.0, &view);
    assert!(drawn(&c, again));
    assert_eq!(record(&c, again).place[..3], [4.0, 0.0, 1.0]);
}

#[test]
fn a_far_agent_is_written_at_its_lod_rate_and_a_near_one_every_frame() {
    let file = file();
    let mut c = crowd_of(&file);
    let walk = c.anim_named(0, "move").unwrap() + 1;
    let policy = c.policy().clone();
    let eye = Vec3::new(0.0, 2.0, 5.0);
    // Near: 5 m. Far: past the preset's last distance, straight ahead.
    let far_z = -(policy.distances.last().unwrap() + 20.0);
    let near = c.spawn(&Spawn::new(0, walk, Vec3::ZERO), ()).unwrap();
    let far = c
        .spawn(&Spawn::new(0, walk, Vec3::new(0.0, 0.0, far_z)), ())
        .unwrap();
    let view = looking_from(eye);
    c.update(1.0 / 60.0, &view);
    let far_level = c.level(far).unwrap();
    let rate = policy.rate_of(far_level);
    assert!(far_level > 0 && rate > 1, "level {far_level}, rate {rate}");
    let (mut near_writes, mut far_writes) = (0, 0);
    let frames = 8 * rate;
    for k in 0..frames {
        // The program moves both every frame.
        let z = k as f32 * 0.01;
        c.set_transform(near, Vec3::new(0.0, 0.0, -z), 0.0).unwrap();
        c.set_transform(far, Vec3::new(0.0, 0.0, far_z - z), 0.0)
            .unwrap();
        c.clear_dirty();
        let (n0, f0) = (record(&c, near), record(&c, far));
        c.update(1.0 / 60.0, &view);
        near_writes += usize::from(record(&c, near) != n0);
        far_writes += usize::from(record(&c, far) != f0);
        assert!(c.was_due(near).unwrap());
        if c.was_due(far).unwrap() {
            assert_eq!(record(&c, far).place[2], far_z - z, "written when due");
        } else {
            assert_eq!(record(&c, far), f0, "not due: its record stands");
        }
    }
    assert_eq!(near_writes, frames as usize);
    assert_eq!(far_writes, 8, "once in every {rate} frames");
}

#[test]
fn bad_calls_are_refused_and_change_nothing() {
    let file = file();
    let mut c = crowd_of(&file);
    let idle = c.anim_named(0, "halt").unwrap();
    let other = c.anim_named(1, "halt").unwrap();
    let id = c.spawn(&Spawn::new(0, idle, Vec3::ONE), ()).unwrap();
    c.update(0.1, &looking_from(Vec3::new(0.0, 2.0, 5.0)));
    let (agents, records) = (c.agents().to_vec(), c.records().to_vec());
    let messages = [
        c.set_transform(id, Vec3::new(f32::NAN, 0.0, 0.0), 0.0)
            .unwrap_err(),
        c.set_transform(id, Vec3::ZERO, f32::INFINITY).unwrap_err(),
        c.set_transforms(&[(id, Vec3::ZERO, 0.0), (id, Vec3::NAN, 0.0)])
            .unwrap_err(),
        c.set_scale(id, 0.0).unwrap_err(),
        c.play(id, other, &Play::default()).unwrap_err(),
        c.play(id, 999, &Play::default()).unwrap_err(),
        c.play(id, idle, &Play::at_time(f32::NAN)).unwrap_err(),
        c.cross_fade(id, idle, -1.0, &Play::default()).unwrap_err(),
        c.anim_named(0, "dance").unwrap_err(),
        c.anim_named(7, "halt").unwrap_err(),
        c.spawn(&Spawn::new(0, idle, Vec3::splat(f32::NAN)), ())
            .unwrap_err(),
        c.spawn(&Spawn::new(3, idle, Vec3::ZERO), ()).unwrap_err(),
    ]
    .map(|e| e.to_string());
    assert_eq!(c.agents(), &agents[..], "nothing changed");
    assert_eq!(c.records(), &records[..], "nothing changed");
    assert_eq!(c.alive(), 1);
    let expected = [
        "agent 0 (generation 0): position [NaN, 0, 0] is not allowed (nothing was changed)",
        "agent 0 (generation 0): heading inf is not allowed (nothing was changed)",
        "agent 0 (generation 0): position [NaN, NaN, NaN] is not allowed (nothing was changed)",
        "agent 0 (generation 0): scale 0 is not allowed: a scale is finite and above 0 (nothing was changed)",
        "synthetic.throng: character 'c0' has no animation index 13 (it has: move, move, move, greet, greet, greet, halt)",
        "synthetic.throng: character 'c0' has no animation index 999 (it has: move, move, move, greet, greet, greet, halt)",
        "play start NaN is not allowed (nothing was changed)",
        "agent 0 (generation 0): cross-fade seconds (finite and >= 0) -1 is not allowed (nothing was changed)",
        "synthetic.throng: character 'c0' has no animation dance (it has: move, move, move, greet, greet, greet, halt)",
        "synthetic.throng: no character 7: the bake has 2 (indices from 0)",
        "position [NaN, NaN, NaN] is not allowed (nothing was changed)",
        "synthetic.throng: no character 3: the bake has 2 (indices from 0)",
    ];
    for (got, want) in messages.iter().zip(expected) {
        assert_eq!(got, want);
    }
}

#[cfg(feature = "bake")]
#[test]
fn events_and_root_motion_of_the_last_step() {
    // The mannequin's walk: foot_l at 0 s, foot_r at 0.5 s of its 1 s cycle.
    let file = Arc::new(crate::crowd::testing::mannequin_bake());
    let mut c = crowd_of(&file);
    let walk = c.anim_named(0, "walk").unwrap();
    let duration = file.anims()[walk as usize].duration;
    let id = c
        .spawn(
            &Spawn::new(0, walk, Vec3::ZERO).with_play(Play::at_time(duration - 0.1)),
            (),
        )
        .unwrap();
    let view = looking_from(Vec3::new(0.0, 2.0, 5.0));
    let mut seen = Vec::new();
    let events = |c: &Crowd| {
        let mut v = Vec::new();
        c.events(id, |name, n| v.push((name.to_string(), n)))
            .unwrap();
        v
    };
    // Over the loop: foot_l, once.
    c.update(0.2, &view);
    seen.push(events(&c));
    // Nothing up to 0.35 s; foot_r at 0.5 s.
    c.update(0.25, &view);
    seen.push(events(&c));
    c.update(0.2, &view);
    seen.push(events(&c));
    assert_eq!(
        seen,
        [
            vec![("foot_l".to_string(), 1)],
            vec![],
            vec![("foot_r".to_string(), 1)]
        ]
    );
}

#[test]
fn root_motion_of_the_last_step_is_turned_and_scaled() {
    let view = looking_from(Vec3::new(0.0, 2.0, 5.0));
    // Root motion: 2 m along the model's +z per 1 s cycle, turned by the heading and scaled.
    let file = Arc::new(synthetic_file(
        &[vec![SynthAnim {
            root_motion: Some([0.0, 2.0]),
            ..SynthAnim::clip("stride", true)
        }]],
        1,
    ));
    let mut c = crowd_of(&file);
    let id = c
        .spawn(
            &Spawn::new(0, 0, Vec3::ZERO)
                .with_heading(std::f32::consts::FRAC_PI_2)
                .with_scale(1.5)
                .with_play(Play::at_time(0.9)),
            (),
        )
        .unwrap();
    c.update(0.25, &view);
    let m = c.root_motion(id).unwrap();
    // 0.25 s of 2 m/s across the loop, along +x (heading π/2), times 1.5; f32 sums: 1e-5.
    assert!(
        (m.translation - Vec3::new(0.75, 0.0, 0.0)).length() < 1e-5,
        "{m:?}"
    );
    assert_eq!(m.turn, 0.0);
    assert_eq!(c.ground_speed(0), Some(2.0));
}

/// A renderer that has written the changes tells the crowd, which forgets them before its
/// next change: a program that never calls `clear_dirty` uploads only what changed.
#[test]
fn changes_a_renderer_wrote_are_forgotten_before_the_next() {
    use std::sync::atomic::Ordering;
    let file = file();
    let mut c = crowd_of(&file);
    let idle = c.anim_named(0, "halt").unwrap();
    let ids: Vec<_> = (0..200)
        .map(|i| {
            c.spawn(
                &Spawn::new(0, idle, Vec3::new(i as f32 * 0.5, 0.0, 0.0)),
                (),
            )
            .unwrap()
        })
        .collect();
    let view = looking_from(Vec3::new(50.0, 2.0, 30.0));
    c.update(1.0 / 60.0, &view);
    let written = |c: &Crowd| c.dirty().iter().map(|r| r.len()).sum::<usize>();
    assert_eq!(written(&c), 200, "everything is new");
    // Not prepared: the changes pile up.
    c.update(1.0 / 60.0, &view);
    assert_eq!(written(&c), 200);
    // Prepared (as CrowdRenderer::prepare does through CrowdFrame::of): the next update
    // starts afresh, and so does a spawn.
    for _ in 0..3 {
        c.prepared_flag().store(true, Ordering::Relaxed);
        let stats = c.update(1.0 / 60.0, &view);
        assert!(written(&c) < 200, "{} of 200 written", written(&c));
        assert_eq!(written(&c), stats.written);
    }
    c.prepared_flag().store(true, Ordering::Relaxed);
    let new = c
        .spawn(&Spawn::new(0, idle, Vec3::new(-3.0, 0.0, 0.0)), ())
        .unwrap();
    let slot = c.schedule().agent_slot()[new.index() as usize];
    assert!(
        c.dirty().iter().any(|r| r.contains(&slot)),
        "the new agent is dirty"
    );
    // Only the slots the spawn's moves touched (one swap per bucket it passed, runs closer
    // than DIRTY_GAP merged): not the 200 of before.
    assert!(written(&c) < 100, "only the spawn's slots: {}", written(&c));
    c.despawn(ids[0]).unwrap();
}
