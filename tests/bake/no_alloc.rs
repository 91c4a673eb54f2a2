//! Evaluating a blend-tree state allocates nothing: a state with a 3-child Blend1D, a masked
//! layer and an additive clip on RobotExpressive, with event markers, advanced and evaluated many times under a counting global
//! allocator. Also the state machine's step and evaluate once warm.

use crate::common;

use std::alloc::{GlobalAlloc, Layout, System};

use glam::Mat4;
use throng::anim::events::{Event, EventTrack};
use throng::anim::graph::{BlendTree, Node, Weight};
use throng::anim::state_machine::{
    Condition, ParamDef, ParamKind, State, StateMachine, Transition,
};
use throng::anim::{Transform, local_to_model, skinning_matrices};
use throng::import::{ImportOptions, load};

/// Counts allocations made by this thread while its count is on. The count is the thread's
/// own: the tests of this file run side by side, and a shared counter saw one test's
/// allocations in the other's count (a CI run failed on the check below that a `Vec`
/// allocates, counted while the state machine's test was counting).
struct Counting;

thread_local! {
    /// `Some(n)`: counting, `n` so far; `None`: not counting.
    static ALLOCATIONS: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// Adds one to this thread's count, if it is counting.
fn counted() {
    // `try_with`: a thread being torn down has no locals left, and frees (not counted) there.
    let _ = ALLOCATIONS.try_with(|c| c.set(c.get().map(|n| n + 1)));
}

unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        counted();
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        counted();
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// `f`'s result and how many allocations this thread made in it.
fn count<R>(f: impl FnOnce() -> R) -> (R, usize) {
    ALLOCATIONS.with(|c| c.set(Some(0)));
    let r = f();
    let n = ALLOCATIONS.with(|c| c.take()).unwrap_or(0);
    (r, n)
}

#[test]
fn blend_state_evaluation_allocates_nothing() {
    let Some(path) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let m = load(&path, &ImportOptions::default()).unwrap();
    let clip = |name: &str| m.find_clip(name).unwrap();
    let torso = m.skeleton.find("Torso").unwrap();
    // layer(blend1d(Idle, Walking, Running), additive(Wave + Yes against the rest pose))
    let nodes = vec![
        Node::Layer {
            base: 1,
            over: 5,
            mask: m.skeleton.subtree_mask(torso, 1.0),
            weight: Weight::Param(1),
        },
        Node::Blend1D {
            param: 0,
            positions: vec![0.0, 1.0, 2.0],
            children: vec![2, 3, 4],
        },
        Node::Clip {
            clip: clip("Idle"),
            speed: 1.0,
            looping: true,
        },
        Node::Clip {
            clip: clip("Walking"),
            speed: 1.0,
            looping: true,
        },
        Node::Clip {
            clip: clip("Running"),
            speed: 1.0,
            looping: true,
        },
        Node::Additive {
            base: 6,
            clip: clip("Yes"),
            speed: 1.0,
            looping: true,
            reference: m.skeleton.rest().to_vec(),
            weight: Weight::Const(0.5),
        },
        Node::Clip {
            clip: clip("Wave"),
            speed: 1.0,
            looping: true,
        },
    ];
    let tree = BlendTree::new(nodes, 0, &m.skeleton, &m.clips, 2).unwrap();
    // Markers on every clip, so event reporting runs too.
    let events: Vec<EventTrack> = m
        .clips
        .iter()
        .map(|c| {
            EventTrack::new(vec![
                Event {
                    name: "start".into(),
                    time: 0.0,
                },
                Event {
                    name: "middle".into(),
                    time: c.duration() * 0.5,
                },
            ])
        })
        .collect();
    let mut hits = 0usize;
    let mut state = tree.new_state();
    let mut scratch = tree.new_scratch();
    let n = m.skeleton.len();
    let mut local = vec![Transform::IDENTITY; n];
    let (mut world, mut skin) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
    let (_, allocations) = count(|| {
        for i in 0..600 {
            let params = [(i as f32 * 0.01) % 2.5, 0.7];
            tree.advance(&m.clips, &events, &mut state, &params, 1.0 / 60.0, |_| {
                hits += 1
            });
            tree.evaluate(
                &m.clips,
                &m.skeleton,
                &mut state,
                &params,
                &mut scratch,
                &mut local,
            );
            local_to_model(&m.skeleton, &local, &mut world);
            skinning_matrices(&m.skeleton, &world, &mut skin);
        }
    });
    assert_eq!(allocations, 0, "blend state evaluation allocated");
    assert!(hits > 10, "events were reported ({hits})");
    // The counter itself works: a Vec allocates.
    let (_, one) = count(|| vec![0u8; 16]);
    assert!(one >= 1);
}

#[test]
fn state_machine_allocates_nothing_once_warm() {
    let Some(path) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let m = load(&path, &ImportOptions::default()).unwrap();
    let single = |name: &str| {
        BlendTree::new(
            vec![Node::Clip {
                clip: m.find_clip(name).unwrap(),
                speed: 1.0,
                looping: true,
            }],
            0,
            &m.skeleton,
            &m.clips,
            1,
        )
        .unwrap()
    };
    let states = vec![
        State {
            name: "walk".into(),
            tree: single("Walking"),
        },
        State {
            name: "run".into(),
            tree: single("Running"),
        },
    ];
    let params = vec![ParamDef {
        name: "speed".into(),
        kind: ParamKind::Float,
        default: 0.0,
    }];
    let transitions = vec![
        Transition {
            from: Some(0),
            to: 1,
            conditions: vec![Condition::Greater(0, 1.0)],
            exit_time: None,
            duration: 0.2,
            sync: false,
        },
        Transition {
            from: Some(1),
            to: 0,
            conditions: vec![Condition::Less(0, 1.0)],
            exit_time: None,
            duration: 0.2,
            sync: false,
        },
    ];
    let machine = StateMachine::new(params, states, transitions, 0).unwrap();
    let mut inst = machine.instantiate(&m.skeleton);
    let mut pose = vec![Transform::IDENTITY; m.skeleton.len()];
    let mut run = |inst: &mut throng::anim::state_machine::MachineInstance, frames: usize| {
        for i in 0..frames {
            // Switch every 5 frames: transitions interrupt transitions.
            inst.set_param(0, if (i / 5) % 2 == 0 { 2.0 } else { 0.0 });
            machine.step(&m.clips, &[], inst, 1.0 / 60.0, |_, _| {});
            machine.evaluate(&m.clips, &m.skeleton, inst, &mut pose);
        }
    };
    // Warm-up fills the pools of recycled tree states.
    run(&mut inst, 120);
    let (_, allocations) = count(|| run(&mut inst, 600));
    assert_eq!(allocations, 0, "state machine allocated once warm");
}
