//! The runtime alone, as a game embedding throng builds it (`--no-default-features`: no baker,
//! demo, CLI or bench): the committed bake opens, a crowd of it updates and writes its instance
//! records. CI runs it so: `cargo test --no-default-features --test runtime_only`. It uses only
//! `format` and `crowd` (no device); a missing fixture fails it.

use std::path::Path;

use throng::crowd::{Crowd, CrowdSettings, LodPolicy, View};
use throng::format::ThrongFile;
use throng::glam::{self as glam, Vec3};

#[test]
fn a_crowd_of_the_committed_bake_moves() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-1.1.throng");
    let file = ThrongFile::open(&path).unwrap_or_else(|e| panic!("{e} (the committed fixture)"));
    let count = 64;
    let settings = CrowdSettings {
        count,
        ..Default::default()
    };
    let mut crowd = Crowd::new(&file, &settings, LodPolicy::default()).expect("a crowd of it");
    assert_eq!(crowd.records().len(), count);
    let before = crowd.records().to_vec();

    // A camera 30 m back and 15 m up, looking at the middle of the plaza; wgpu's clip space
    // (depth 0..1: glam's "directx" convention).
    let eye = Vec3::new(0.0, 15.0, 30.0);
    let proj = glam::camera::rh::proj::directx::perspective(1.0, 16.0 / 9.0, 0.1, 500.0);
    let view_proj = proj * glam::camera::rh::view::look_at_mat4(eye, Vec3::ZERO, Vec3::Y);
    let view = View { view_proj, eye };
    for _ in 0..30 {
        crowd.update(&file, 1.0 / 30.0, &view).expect("update");
    }

    let records = crowd.records();
    assert_eq!(records.len(), count);
    assert!(
        records
            .iter()
            .all(|r| r.place.iter().all(|v| v.is_finite())),
        "every record has a finite place"
    );
    // One second of a bake whose every animation covers 2 or 4 m/s: records were rewritten.
    let moved = records
        .iter()
        .zip(&before)
        .filter(|(now, then)| now.place != then.place || now.frames != then.frames)
        .count();
    assert!(moved > 0, "no record changed in 30 updates");
}
