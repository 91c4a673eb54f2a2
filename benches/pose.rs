//! Cost of evaluating one pose: sample a clip (with a playback cursor, as a playing instance
//! does) + local-to-model + skinning matrices, single thread. Throughput is in joints, so
//! criterion's "elem/s" converts to nanoseconds per joint (1e9 / rate).
//!
//! Run: `cargo bench --bench pose`. RobotExpressive is read from ../shared/assets and skipped
//! with a message when that folder is missing.

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Mat4;
use throng::anim::{
    ClipCursor, Transform, Wrap, local_to_model, sample, sample_with_cursor, skinning_matrices,
};
use throng::import::{ImportOptions, Model, load, load_bytes};

fn bench_model(c: &mut Criterion, label: &str, model: &Model, clip_name: &str) {
    let skeleton = &model.skeleton;
    let clip_index = model.find_clip(clip_name).expect("clip");
    let clip = &model.clips[clip_index];
    let n = skeleton.len();
    let mut cursor = ClipCursor::new(clip);
    let mut local = vec![Transform::IDENTITY; n];
    let mut world = vec![Mat4::IDENTITY; n];
    let mut skin = vec![Mat4::IDENTITY; n];
    let mut time = 0.0f32;
    let mut group = c.benchmark_group("pose");
    group.throughput(Throughput::Elements(n as u64));
    group.bench_function(format!("{label} ({n} joints, clip {clip_name})"), |b| {
        b.iter(|| {
            // 60 Hz playback: the cursor finds keys in O(1).
            time += 1.0 / 60.0;
            let t = clip.local_time(time, Wrap::Loop);
            sample_with_cursor(clip, skeleton, black_box(t), &mut cursor, &mut local);
            local_to_model(skeleton, &local, &mut world);
            skinning_matrices(skeleton, &world, &mut skin);
            black_box(&skin);
        })
    });
    // The same poses by random access (a binary search per channel), to show what the cursor
    // saves; only the sampling differs.
    let mut time = 0.0f32;
    group.bench_function(
        format!("{label} ({n} joints, clip {clip_name}, binary search)"),
        |b| {
            b.iter(|| {
                time += 1.0 / 60.0;
                let t = clip.local_time(time, Wrap::Loop);
                sample(clip, skeleton, black_box(t), &mut local);
                local_to_model(skeleton, &local, &mut world);
                skinning_matrices(skeleton, &world, &mut skin);
                black_box(&skin);
            })
        },
    );
    group.finish();
}

fn poses(c: &mut Criterion) {
    let mannequin = load_bytes(
        &throng::import::mannequin::generate_glb(),
        "mannequin.glb",
        &ImportOptions::default(),
    )
    .expect("mannequin");
    bench_model(c, "mannequin", &mannequin, "walk");
    let robot = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/assets/RobotExpressive.glb");
    match load(&robot, &ImportOptions::default()) {
        Ok(model) => bench_model(c, "RobotExpressive", &model, "Walking"),
        Err(e) => eprintln!("skipped RobotExpressive: {e}"),
    }
}

criterion_group!(benches, poses);
criterion_main!(benches);
