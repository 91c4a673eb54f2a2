//! Cost of evaluating a blend-tree state per pose: a 3-child Blend1D (Idle, Walking, Running on
//! speed) with Wave layered over the torso subtree, on RobotExpressive, advanced at 60 Hz, then
//! local-to-model and skinning matrices; single thread. Throughput is in joints (ns per joint =
//! 1e9 / rate). RobotExpressive is read from ../shared/assets (skipped with a message if missing).
//!
//! Run: `cargo bench --bench blend`.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Mat4;
use throng::anim::graph::{BlendTree, Node, Weight};
use throng::anim::{Transform, local_to_model, skinning_matrices};
use throng::import::{ImportOptions, load};

fn blend_state(c: &mut Criterion) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/RobotExpressive.glb");
    let m = match load(&path, &ImportOptions::default()) {
        Ok(m) => m,
        Err(e) => {
            eprintln!("skipped: {e}");
            return;
        }
    };
    let clip = |name: &str| m.find_clip(name).expect("clip");
    let torso = m.skeleton.find("Torso").expect("Torso joint");
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
        Node::Clip {
            clip: clip("Wave"),
            speed: 1.0,
            looping: true,
        },
    ];
    let tree = BlendTree::new(nodes, 0, &m.skeleton, &m.clips, 2).expect("tree");
    let mut state = tree.new_state();
    let mut scratch = tree.new_scratch();
    let n = m.skeleton.len();
    let mut local = vec![Transform::IDENTITY; n];
    let (mut world, mut skin) = (vec![Mat4::IDENTITY; n], vec![Mat4::IDENTITY; n]);
    let mut group = c.benchmark_group("blend");
    group.throughput(Throughput::Elements(n as u64));
    for (label, speed, wave) in [
        ("walk-run blend + wave layer", 1.5f32, 0.7f32),
        ("single clip (speed at a child)", 1.0, 0.0),
    ] {
        let params = [speed, wave];
        group.bench_function(format!("RobotExpressive ({n} joints): {label}"), |b| {
            b.iter(|| {
                tree.advance(&m.clips, &[], &mut state, &params, 1.0 / 60.0, |_| {});
                tree.evaluate(
                    &m.clips,
                    &m.skeleton,
                    &mut state,
                    black_box(&params),
                    &mut scratch,
                    &mut local,
                );
                local_to_model(&m.skeleton, &local, &mut world);
                skinning_matrices(&m.skeleton, &world, &mut skin);
                black_box(&skin);
            })
        });
    }
    group.finish();
}

criterion_group!(benches, blend_state);
criterion_main!(benches);
