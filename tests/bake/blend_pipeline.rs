//! The blend pipeline on the mannequin: Blend1D weights and boundaries, phase-synchronised
//! gaits, additive round trips, masked layers and events from blends. The state machine on
//! top of it (crossfades, exit times, transitions, root motion, IK) is in state_machine.rs.

use crate::common;

use common::{clip, mannequin, world};
use glam::Vec3;
use throng::anim::blend::difference;
use throng::anim::events::{Event, EventTrack};
use throng::anim::graph::{BlendTree, Node, Weight};
use throng::anim::{Transform, sample};
use throng::import::Model;

/// idle, walk, run on a speed axis at 0, 1.2 and 3.0 m/s (parameter 0).
fn locomotion(m: &Model) -> BlendTree {
    let nodes = vec![
        Node::Blend1D {
            param: 0,
            positions: vec![0.0, 1.2, 3.0],
            children: vec![1, 2, 3],
        },
        Node::Clip {
            clip: clip(m, "idle"),
            speed: 1.0,
            looping: true,
        },
        Node::Clip {
            clip: clip(m, "walk"),
            speed: 1.0,
            looping: true,
        },
        Node::Clip {
            clip: clip(m, "run"),
            speed: 1.0,
            looping: true,
        },
    ];
    BlendTree::new(nodes, 0, &m.skeleton, &m.clips, 2).unwrap()
}

fn eval(
    m: &Model,
    tree: &BlendTree,
    state: &mut throng::anim::graph::TreeState,
    params: &[f32],
) -> Vec<Transform> {
    let mut scratch = tree.new_scratch();
    let mut out = vec![Transform::IDENTITY; m.skeleton.len()];
    tree.evaluate(&m.clips, &m.skeleton, state, params, &mut scratch, &mut out);
    out
}

#[test]
fn blend1d_weights_sum_to_one_and_clamp_outside_the_axis() {
    let m = mannequin();
    let tree = locomotion(&m);
    let mut state = tree.new_state();
    for speed in [-5.0, 0.0, 0.3, 1.2, 2.0, 2.999, 3.0, 9.0] {
        eval(&m, &tree, &mut state, &[speed, 0.0]);
        let w = tree.node_weights(&state);
        let sum = w[1] + w[2] + w[3];
        // The two weights are t and 1 - t in f32: their sum is 1 within an ulp.
        assert!(
            (sum - 1.0).abs() < 1e-6,
            "speed {speed}: weights {:?}",
            &w[1..4]
        );
    }
    eval(&m, &tree, &mut state, &[-5.0, 0.0]);
    assert_eq!(tree.node_weights(&state)[1..4], [1.0, 0.0, 0.0]);
    eval(&m, &tree, &mut state, &[9.0, 0.0]);
    assert_eq!(tree.node_weights(&state)[1..4], [0.0, 0.0, 1.0]);
    eval(&m, &tree, &mut state, &[2.1, 0.0]);
    let w = tree.node_weights(&state);
    assert!((w[2] - 0.5).abs() < 1e-6 && (w[3] - 0.5).abs() < 1e-6);
}

#[test]
fn blend1d_at_a_child_position_equals_that_child_exactly() {
    let m = mannequin();
    let tree = locomotion(&m);
    let mut state = tree.new_state();
    let walk = &m.clips[clip(&m, "walk")];
    for step in 0..7 {
        tree.advance(&m.clips, &[], &mut state, &[1.2, 0.0], 0.137, |_| {});
        let blended = eval(&m, &tree, &mut state, &[1.2, 0.0]);
        let phase = tree.node_phases(&state)[2];
        let mut direct = vec![Transform::IDENTITY; m.skeleton.len()];
        sample(walk, &m.skeleton, phase * walk.duration(), &mut direct);
        assert_eq!(blended, direct, "step {step}");
    }
}

/// Intervals (in samples) during which the left ankle is on the ground over one blended cycle.
fn contacts(
    m: &Model,
    tree: &BlendTree,
    speed: f32,
    samples: usize,
    synced: bool,
) -> Vec<(usize, usize)> {
    let foot = m.skeleton.find("foot_l").unwrap();
    let mut state = tree.new_state();
    let params = [speed, 0.0];
    let (walk, run) = (&m.clips[clip(m, "walk")], &m.clips[clip(m, "run")]);
    // One cycle of the blend: its length mixes the children's.
    let t = ((speed - 1.2) / 1.8).clamp(0.0, 1.0);
    let cycle = walk.duration() * (1.0 - t) + run.duration() * t;
    let dt = cycle / samples as f32;
    let mut down = Vec::new();
    for i in 0..samples {
        let y = if synced {
            let pose = eval(m, tree, &mut state, &params);
            tree.advance(&m.clips, &[], &mut state, &params, dt, |_| {});
            world(m, &pose)[foot].w_axis.y
        } else {
            // The naive alternative: each clip on its own clock, mixed by the same weights.
            let time = i as f32 * dt;
            let (mut a, mut b) = (
                vec![Transform::IDENTITY; m.skeleton.len()],
                vec![Transform::IDENTITY; m.skeleton.len()],
            );
            sample(
                walk,
                &m.skeleton,
                walk.local_time(time, throng::anim::Wrap::Loop),
                &mut a,
            );
            sample(
                run,
                &m.skeleton,
                run.local_time(time, throng::anim::Wrap::Loop),
                &mut b,
            );
            let mut mixed = a.clone();
            throng::anim::blend::mix_poses(&a, &b, t, &mut mixed);
            world(m, &mixed)[foot].w_axis.y
        };
        // On the ground: ankle within 12 mm of its standing height (0.09 m); landing on the heel
        // with the toes up raises the walk's ankle by up to 1 cm.
        down.push(y < 0.102);
    }
    let mut runs = Vec::new();
    let mut start = None;
    for (i, d) in down.iter().chain([&false]).enumerate() {
        match (start, *d) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                runs.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    // The cycle wraps: a contact running into the end is the same as one starting at 0.
    if runs.len() > 1 && runs[0].0 == 0 && runs[runs.len() - 1].1 == samples {
        let last = runs.pop().unwrap_or_default();
        runs[0].0 = last.0;
    }
    runs
}

#[test]
fn phase_sync_keeps_walk_run_foot_contacts_aligned() {
    let m = mannequin();
    let tree = locomotion(&m);
    for speed in [1.5, 2.1, 2.7] {
        let synced = contacts(&m, &tree, speed, 120, true);
        // One contact per foot per cycle, starting at phase 0 like both clips (no double-step).
        assert_eq!(synced.len(), 1, "speed {speed}: contacts {synced:?}");
        let start = synced[0].0;
        assert!(
            start <= 2 || start >= 118,
            "speed {speed}: contact starts away from phase 0: {synced:?}"
        );
    }
    // Without phase sync the same blend steps twice or at the wrong time somewhere.
    let naive: Vec<_> = [1.5, 2.1, 2.7]
        .iter()
        .map(|s| contacts(&m, &tree, *s, 120, false))
        .collect();
    assert!(
        naive
            .iter()
            .any(|c| c.len() != 1 || (c[0].0 > 2 && c[0].0 < 118)),
        "{naive:?}"
    );
}

#[test]
fn additive_round_trip_and_zero_weight() {
    let m = mannequin();
    let (wave, idle) = (clip(&m, "wave"), clip(&m, "idle"));
    // Reference R: the idle pose at 1 s. Base: R itself. Additive: wave against R.
    let mut reference = vec![Transform::IDENTITY; m.skeleton.len()];
    sample(&m.clips[idle], &m.skeleton, 1.0, &mut reference);
    let build = |weight: f32| {
        let nodes = vec![
            Node::Additive {
                base: 1,
                clip: wave,
                speed: 1.0,
                looping: true,
                reference: reference.clone(),
                weight: Weight::Const(weight),
            },
            Node::Clip {
                clip: idle,
                speed: 1.0,
                looping: true,
            },
        ];
        BlendTree::new(nodes, 0, &m.skeleton, &m.clips, 0).unwrap()
    };
    // Put the base at exactly R: idle's phase 1 s / 4 s.
    let tree = build(1.0);
    let mut state = tree.new_state();
    tree.advance(&m.clips, &[], &mut state, &[], 1.0, |_| {});
    let out = eval(&m, &tree, &mut state, &[]);
    let mut c = vec![Transform::IDENTITY; m.skeleton.len()];
    let wave_clip = &m.clips[wave];
    sample(wave_clip, &m.skeleton, 1.0 % wave_clip.duration(), &mut c);
    for (j, (o, e)) in out.iter().zip(&c).enumerate() {
        // 1e-5: a quaternion product and renormalisation in f32.
        assert!(o.translation.abs_diff_eq(e.translation, 1e-5), "joint {j}");
        assert!(o.rotation.dot(e.rotation).abs() > 1.0 - 1e-5, "joint {j}");
        assert!(o.scale.abs_diff_eq(e.scale, 1e-5), "joint {j}");
    }
    let tree0 = build(0.0);
    let mut s0 = tree0.new_state();
    tree0.advance(&m.clips, &[], &mut s0, &[], 1.0, |_| {});
    let out0 = eval(&m, &tree0, &mut s0, &[]);
    assert_eq!(
        out0, reference,
        "weight 0 must leave the base bit-identical"
    );
    // The difference of a pose from itself adds nothing.
    let d = difference(&reference[3], &reference[3]);
    assert!(d.translation.abs_diff_eq(Vec3::ZERO, 1e-7));
}

#[test]
fn masked_layer_leaves_other_joints_bit_identical() {
    let m = mannequin();
    let spine = m.skeleton.find("spine").unwrap();
    let mask = m.skeleton.subtree_mask(spine, 1.0);
    let nodes = vec![
        Node::Layer {
            base: 1,
            over: 2,
            mask: mask.clone(),
            weight: Weight::Param(0),
        },
        Node::Clip {
            clip: clip(&m, "walk"),
            speed: 1.0,
            looping: true,
        },
        Node::Clip {
            clip: clip(&m, "wave"),
            speed: 1.0,
            looping: true,
        },
    ];
    let tree = BlendTree::new(nodes, 0, &m.skeleton, &m.clips, 1).unwrap();
    let mut state = tree.new_state();
    tree.advance(&m.clips, &[], &mut state, &[0.8], 0.4, |_| {});
    let out = eval(&m, &tree, &mut state, &[0.8]);
    let walk = &m.clips[clip(&m, "walk")];
    let mut base = vec![Transform::IDENTITY; m.skeleton.len()];
    sample(
        walk,
        &m.skeleton,
        tree.node_phases(&state)[1] * walk.duration(),
        &mut base,
    );
    let mut changed = 0;
    for j in 0..m.skeleton.len() {
        if mask[j] == 0.0 {
            assert_eq!(
                out[j],
                base[j],
                "joint {} outside the mask changed",
                m.skeleton.names()[j]
            );
        } else if out[j] != base[j] {
            changed += 1;
        }
    }
    assert!(changed > 5, "the layer should move the upper body");
}

/// The largest joint displacement between two poses, metres.
#[test]
fn events_from_blended_children_carry_their_weights() {
    let m = mannequin();
    let tree = locomotion(&m);
    let mut events = vec![EventTrack::default(); m.clips.len()];
    events[clip(&m, "walk")] = EventTrack::new(vec![
        Event {
            name: "foot_l".into(),
            time: 0.0,
        },
        Event {
            name: "foot_r".into(),
            time: 0.5,
        },
    ]);
    events[clip(&m, "run")] = EventTrack::new(vec![
        Event {
            name: "foot_l".into(),
            time: 0.0,
        },
        Event {
            name: "foot_r".into(),
            time: 1.0 / 3.0,
        },
    ]);
    let mut state = tree.new_state();
    let mut hits = Vec::new();
    // Speed 2.1: walk and run at weight 0.5 each; one blended cycle lasts (1 + 2/3) / 2 s.
    let cycle = (1.0 + 2.0 / 3.0) / 2.0;
    for _ in 0..100 {
        tree.advance(
            &m.clips,
            &events,
            &mut state,
            &[2.1, 0.0],
            cycle / 50.0,
            |h| hits.push(h),
        );
    }
    // Two cycles: each clip's two markers fire twice, each at weight 0.5.
    assert_eq!(hits.len(), 8, "{hits:?}");
    assert!(
        hits.iter()
            .all(|h| (h.weight - 0.5).abs() < 1e-6 && h.count == 1)
    );
}
