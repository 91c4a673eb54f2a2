//! The state machine on the mannequin's clips: crossfade continuity, exit times, any-state
//! and interrupted transitions, synchronised gaits, root-motion extraction and ground IK.

use crate::common;

use common::{clip, mannequin, world};
use glam::{Mat4, Vec3};
use throng::anim::graph::{BlendTree, Node};
use throng::anim::state_machine::{
    Condition, ParamDef, ParamKind, State, StateMachine, Transition,
};
use throng::anim::{Transform, local_to_model, sample};
use throng::import::Model;

fn pose_jump(m: &Model, a: &[Transform], b: &[Transform]) -> f32 {
    let (wa, wb) = (world(m, a), world(m, b));
    wa.iter()
        .zip(&wb)
        .map(|(x, y)| (x.w_axis - y.w_axis).length())
        .fold(0.0, f32::max)
}

#[test]
fn crossfade_is_continuous_and_the_outgoing_state_keeps_playing() {
    let m = mannequin();
    let tree = |name: &str| {
        BlendTree::new(
            vec![Node::Clip {
                clip: clip(&m, name),
                speed: 1.0,
                looping: true,
            }],
            0,
            &m.skeleton,
            &m.clips,
            2,
        )
        .unwrap()
    };
    let states = vec![
        State {
            name: "walk".into(),
            tree: tree("walk"),
        },
        State {
            name: "run".into(),
            tree: tree("run"),
        },
        State {
            name: "idle".into(),
            tree: tree("idle"),
        },
    ];
    let params = vec![
        ParamDef {
            name: "speed".into(),
            kind: ParamKind::Float,
            default: 1.2,
        },
        ParamDef {
            name: "stop".into(),
            kind: ParamKind::Trigger,
            default: 0.0,
        },
    ];
    let transitions = vec![
        Transition {
            from: Some(0),
            to: 1,
            conditions: vec![Condition::Greater(0, 2.0)],
            exit_time: None,
            duration: 0.3,
            sync: false,
        },
        Transition {
            from: None,
            to: 2,
            conditions: vec![Condition::IsSet(1)],
            exit_time: None,
            duration: 0.4,
            sync: false,
        },
    ];
    let machine = StateMachine::new(params, states, transitions, 0).unwrap();
    let mut inst = machine.instantiate(&m.skeleton);
    let dt = 1.0 / 60.0;
    let mut prev = vec![Transform::IDENTITY; m.skeleton.len()];
    let mut pose = prev.clone();
    machine.evaluate(&m.clips, &m.skeleton, &mut inst, &mut prev);
    let mut worst_plain = 0.0f32;
    let mut worst_fading = 0.0f32;
    let mut fired = Vec::new();
    for frame in 0..180 {
        if frame == 30 {
            inst.set_param(0, 3.0);
        }
        if frame == 45 {
            // Interrupts the walk -> run crossfade halfway.
            inst.set_param(1, 1.0);
        }
        let fading_before = inst.fade_progress().is_some();
        if let Some(f) = machine.step(&m.clips, &[], &mut inst, dt, |_, _| {}) {
            fired.push((frame, f.to));
        }
        machine.evaluate(&m.clips, &m.skeleton, &mut inst, &mut pose);
        let jump = pose_jump(&m, &prev, &pose);
        // A frame belongs to a transition if a crossfade ran at its start or its end: that
        // includes the first frame of each fade and the frame where it completes.
        if fading_before || inst.fade_progress().is_some() {
            worst_fading = worst_fading.max(jump);
        } else {
            worst_plain = worst_plain.max(jump);
        }
        let total: f32 = inst.active().map(|(_, w)| w).sum();
        assert!(
            (total - 1.0).abs() < 1e-5,
            "frame {frame}: weights sum to {total}"
        );
        std::mem::swap(&mut prev, &mut pose);
    }
    assert_eq!(fired, vec![(30, 1), (45, 2)]);
    assert_eq!(inst.current(), 2);
    assert_eq!(inst.params()[1], 0.0, "the trigger is consumed");
    // Continuity: during and at the ends of transitions no joint jumps further in one frame
    // than the clips themselves move joints between two frames (running is the fastest),
    // with 20% headroom for the mix of two moving poses.
    assert!(worst_plain > 0.0);
    assert!(
        worst_fading <= worst_plain * 1.2,
        "crossfade jump {worst_fading} m vs plain motion {worst_plain} m"
    );
}

/// A one-clip state per name, for state-machine tests.
fn machine(m: &Model, transitions: Vec<Transition>, params: Vec<ParamDef>) -> StateMachine {
    let states = ["idle", "walk", "run"]
        .iter()
        .map(|name| State {
            name: name.to_string(),
            tree: BlendTree::new(
                vec![Node::Clip {
                    clip: clip(m, name),
                    speed: 1.0,
                    looping: true,
                }],
                0,
                &m.skeleton,
                &m.clips,
                params.len(),
            )
            .unwrap(),
        })
        .collect();
    StateMachine::new(params, states, transitions, 0).unwrap()
}

#[test]
fn exit_time_waits_for_the_source_state() {
    let m = mannequin();
    // idle (4 s cycle) -> walk only after half a cycle of idle, i.e. 2 s.
    let sm = machine(
        &m,
        vec![Transition {
            from: Some(0),
            to: 1,
            conditions: vec![],
            exit_time: Some(0.5),
            duration: 0.0,
            sync: false,
        }],
        vec![],
    );
    let mut inst = sm.instantiate(&m.skeleton);
    let mut fired_at = None;
    for frame in 0..300 {
        if sm.step(&m.clips, &[], &mut inst, 0.01, |_, _| {}).is_some() {
            fired_at = Some(frame);
            break;
        }
    }
    // Frame 199 completes 2.00 s (f32 sums of 0.01 land within one frame of it).
    let f = fired_at.expect("the transition fires");
    assert!((198..=200).contains(&f), "fired at frame {f}");
    // A cut: only the target plays.
    assert_eq!(inst.active().collect::<Vec<_>>(), vec![(1, 1.0)]);
}

#[test]
fn any_state_transitions_do_not_restart_their_target() {
    let m = mannequin();
    let params = vec![ParamDef {
        name: "go".into(),
        kind: ParamKind::Bool,
        default: 1.0,
    }];
    let sm = machine(
        &m,
        vec![Transition {
            from: None,
            to: 2,
            conditions: vec![Condition::IsSet(0)],
            exit_time: None,
            duration: 0.2,
            sync: false,
        }],
        params,
    );
    let mut inst = sm.instantiate(&m.skeleton);
    let mut fired = 0;
    for _ in 0..100 {
        fired += usize::from(
            sm.step(&m.clips, &[], &mut inst, 1.0 / 60.0, |_, _| {})
                .is_some(),
        );
    }
    assert_eq!(
        fired, 1,
        "an any-state transition must not fire again from its own target"
    );
    assert_eq!(inst.current(), 2);
}

#[test]
fn interrupted_crossfades_keep_every_state_playing_and_weights_summing_to_one() {
    let m = mannequin();
    let params = vec![ParamDef {
        name: "to".into(),
        kind: ParamKind::Float,
        default: 0.0,
    }];
    let sm = machine(
        &m,
        vec![
            Transition {
                from: Some(0),
                to: 1,
                conditions: vec![Condition::Greater(0, 0.5)],
                exit_time: None,
                duration: 1.0,
                sync: false,
            },
            Transition {
                from: Some(1),
                to: 2,
                conditions: vec![Condition::Greater(0, 1.5)],
                exit_time: None,
                duration: 1.0,
                sync: false,
            },
        ],
        params,
    );
    let mut inst = sm.instantiate(&m.skeleton);
    inst.set_param(0, 1.0);
    for _ in 0..30 {
        sm.step(&m.clips, &[], &mut inst, 0.01, |_, _| {});
    }
    inst.set_param(0, 2.0);
    sm.step(&m.clips, &[], &mut inst, 0.01, |_, _| {});
    for _ in 0..20 {
        sm.step(&m.clips, &[], &mut inst, 0.01, |_, _| {});
    }
    let active: Vec<(usize, f32)> = inst.active().collect();
    // idle and walk (mid-fade when interrupted) fade out together, run fades in.
    assert_eq!(
        active.iter().map(|a| a.0).collect::<Vec<_>>(),
        vec![0, 1, 2]
    );
    let total: f32 = active.iter().map(|a| a.1).sum();
    assert!((total - 1.0).abs() < 1e-5);
    // The first transition fires at the end of step 1, so the interrupting step leaves walk at
    // 30 fade steps of 0.01 s of 1 s (weight 0.3) and idle at 0.7; 20 steps later run has 0.2
    // and the others keep their 3:7 ratio. 1e-5: f32 sums of 0.01.
    assert!((active[2].1 - 0.2).abs() < 1e-5, "{active:?}");
    assert!(
        (active[1].1 / active[0].1 - 0.3 / 0.7).abs() < 1e-5,
        "{active:?}"
    );
}

#[test]
fn root_motion_extraction_puts_a_moving_clip_in_place() {
    use throng::anim::root_motion::extract;
    use throng::anim::{Interpolation, Property, RawChannel, RawClip};
    let m = mannequin();
    let hips = m.skeleton.find("hips").unwrap();
    // A clip that walks the hips 2 m along +Z while turning 90 degrees over 2 s.
    let rest = m.skeleton.rest()[hips];
    let times = vec![0.0, 1.0, 2.0];
    let translations = times
        .iter()
        .map(|t| (rest.translation + Vec3::new(0.0, 0.0, t * 1.0)).extend(0.0))
        .collect();
    let rotations = times
        .iter()
        .map(|t| glam::Vec4::from(glam::Quat::from_rotation_y(t * std::f32::consts::FRAC_PI_4)))
        .collect();
    let raw = RawClip {
        name: "travel".into(),
        channels: vec![
            RawChannel {
                joint: hips,
                property: Property::Translation,
                interpolation: Interpolation::Linear,
                times: times.clone(),
                values: translations,
            },
            RawChannel {
                joint: hips,
                property: Property::Rotation,
                interpolation: Interpolation::Linear,
                times,
                values: rotations,
            },
        ],
    };
    let clip = raw.validate(&m.skeleton).unwrap();
    let (in_place, track) = extract(&clip, &m.skeleton, hips).unwrap();
    let mut pose = vec![Transform::IDENTITY; m.skeleton.len()];
    for t in [0.0, 0.5, 1.3, 2.0] {
        sample(&in_place, &m.skeleton, t, &mut pose);
        // In place: the hips keep the first frame's horizontal position and heading.
        assert!(
            pose[hips].translation.abs_diff_eq(rest.translation, 1e-5),
            "t={t}: {}",
            pose[hips].translation
        );
        assert!(pose[hips].rotation.abs_diff_eq(glam::Quat::IDENTITY, 1e-5));
    }
    let (p, yaw) = track.cycle();
    assert!(
        p.abs_diff_eq(glam::Vec2::new(0.0, 2.0), 1e-5)
            && (yaw - std::f32::consts::FRAC_PI_2).abs() < 1e-5
    );
    assert!((track.speed() - 1.0).abs() < 1e-5);
    // A step over 1.5 loops: the second part is turned by the first loop's 90 degrees.
    let (moved, turned) = track.delta(0.0, 3.0, true);
    assert!(
        (turned - 3.0 * std::f32::consts::FRAC_PI_4).abs() < 1e-4,
        "{turned}"
    );
    // The first loop moves (0, 2); the half loop after it moves (0, 1) in the clip's frame,
    // turned by the 90 degrees of the first loop: (1, 0). 1e-4: f32 sums of resampled keys.
    assert!(
        moved.abs_diff_eq(glam::Vec2::new(1.0, 2.0), 1e-4),
        "{moved}"
    );
}

#[test]
fn ground_ik_keeps_feet_above_the_floor_in_the_character() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml");
    let c = throng::character::Character::load(&path).unwrap();
    let m = &c.model;
    let tree = &c.machine.states()[c.machine.state("move").unwrap()].tree;
    let mut state = tree.new_state();
    let mut scratch = tree.new_scratch();
    let mut ik_scratch = vec![Vec3::ZERO; c.ik_scratch_len()];
    let (foot_l, foot_r) = (
        m.skeleton.find("foot_l").unwrap(),
        m.skeleton.find("foot_r").unwrap(),
    );
    let mut local = vec![Transform::IDENTITY; m.skeleton.len()];
    let mut model = vec![Mat4::IDENTITY; m.skeleton.len()];
    let mut lowest_before = f32::INFINITY;
    let mut lowest_after = f32::INFINITY;
    for _ in 0..240 {
        // Between walk and run the blend dips the ankles a few millimetres below 9 cm.
        let params = [2.2, 0.0, 0.0];
        tree.advance(&m.clips, &[], &mut state, &params, 1.0 / 120.0, |_| {});
        tree.evaluate(
            &m.clips,
            &m.skeleton,
            &mut state,
            &params,
            &mut scratch,
            &mut local,
        );
        local_to_model(&m.skeleton, &local, &mut model);
        lowest_before = lowest_before
            .min(model[foot_l].w_axis.y)
            .min(model[foot_r].w_axis.y);
        c.apply_ik(&params, &mut local, &mut model, &mut ik_scratch);
        lowest_after = lowest_after
            .min(model[foot_l].w_axis.y)
            .min(model[foot_r].w_axis.y);
    }
    assert!(
        lowest_before < 0.0895,
        "the blend should dip below the floor here ({lowest_before})"
    );
    // 1e-4 m: the two-bone solver's reach accuracy.
    assert!(
        lowest_after >= 0.09 - 1e-4,
        "ankles still reach {lowest_after}"
    );
}

#[test]
fn exit_time_waits_for_the_next_crossing_of_its_phase() {
    let m = mannequin();
    let params = vec![ParamDef {
        name: "go".into(),
        kind: ParamKind::Bool,
        default: 0.0,
    }];
    // idle loops every 4 s; exit time 0.5 means half-way through a cycle: at 2 s, 6 s, 10 s...
    let sm = machine(
        &m,
        vec![Transition {
            from: Some(0),
            to: 1,
            conditions: vec![Condition::IsSet(0)],
            exit_time: Some(0.5),
            duration: 0.0,
            sync: false,
        }],
        params,
    );
    let mut inst = sm.instantiate(&m.skeleton);
    let mut fired_at = None;
    for frame in 0..1000 {
        if frame == 300 {
            // At 3 s: past the first crossing, so the transition waits for the one at 6 s.
            inst.set_param(0, 1.0);
        }
        if sm.step(&m.clips, &[], &mut inst, 0.01, |_, _| {}).is_some() {
            fired_at = Some(frame);
            break;
        }
    }
    let f = fired_at.expect("fires at the next crossing");
    // Frame 599 completes 6.00 s; f32 sums of 0.01 land within a frame of it.
    assert!((598..=600).contains(&f), "fired at frame {f}");
}

#[test]
fn synced_transitions_keep_both_gaits_in_step() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets/mannequin.toml");
    let c = throng::character::Character::load(&path).unwrap();
    let sm = &c.machine;
    let mut inst = sm.instantiate(&c.model.skeleton);
    let (speed, wave) = (sm.param("speed").unwrap(), sm.param("wave").unwrap());
    inst.set_param(speed, 1.2);
    let mut by_state: std::collections::HashMap<usize, Vec<(usize, String)>> = Default::default();
    for frame in 0..200 {
        if frame == 50 {
            inst.set_param(wave, 1.0);
        }
        sm.step(
            &c.model.clips,
            &c.events,
            &mut inst,
            1.0 / 60.0,
            |state, hit| {
                by_state
                    .entry(state)
                    .or_default()
                    .push((frame, c.events[hit.clip].events()[hit.event].name.clone()));
            },
        );
    }
    let (moving, greeting) = (sm.state("move").unwrap(), sm.state("greet").unwrap());
    // During the 0.3 s crossfade (frames 51 to 68, spanning the left foot's contact at frame
    // 60) both states play the same walk in step:
    // every footstep the fading-in state reports, the fading-out state reports on the same frame.
    let fade: Vec<_> = by_state[&greeting]
        .iter()
        .filter(|(f, n)| *f <= 69 && n.starts_with("foot"))
        .cloned()
        .collect();
    assert!(!fade.is_empty(), "no footstep during the crossfade");
    for step in &fade {
        assert!(
            by_state[&moving].contains(step),
            "{step:?} is not in step with the outgoing walk"
        );
    }
}
