//! The runtime alone, as a game embedding throng builds it (`--no-default-features`: no baker,
//! demo, CLI or bench): the committed bake opens, the program spawns agents and moves them
//! every frame, and the crowd writes their instance records where the program put them. CI
//! runs it so: `cargo test --no-default-features --test runtime_only`. It uses only `format`
//! and `crowd` (no device); a missing fixture fails it.

use std::path::Path;
use std::sync::Arc;

use throng::glam::{self as glam, Vec3};
use throng::prelude::*;

#[test]
fn agents_of_the_committed_bake_go_where_the_program_puts_them() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/format-1.1.throng");
    let file = ThrongFile::open(&path).unwrap_or_else(|e| panic!("{e} (the committed fixture)"));
    let file = Arc::new(file);
    let policy = LodPresets::builtin()
        .get("balanced")
        .cloned()
        .expect("balanced");
    let mut crowd: Crowd =
        Crowd::new(file.clone(), &CrowdSettings::default(), policy).expect("a crowd of it");
    let anim = file.characters()[0].first_anim;
    let spawns: Vec<_> = (0..64)
        .map(|i| {
            let at = Vec3::new((i % 8) as f32 * 2.0 - 8.0, 0.0, -((i / 8) as f32) * 2.0);
            (Spawn::new(0, anim, at), ())
        })
        .collect();
    let ids = crowd.spawn_many(&spawns).expect("spawn");
    assert_eq!(crowd.records().len(), 64);

    // A camera 30 m back and 15 m up, looking at the agents; wgpu's clip space (depth 0..1:
    // glam's "directx" convention).
    let eye = Vec3::new(0.0, 15.0, 30.0);
    let proj = glam::camera::rh::proj::directx::perspective(1.0, 16.0 / 9.0, 0.1, 500.0);
    let view_proj = proj * glam::camera::rh::view::look_at_mat4(eye, Vec3::ZERO, Vec3::Y);
    let view = View { view_proj, eye };
    let frames = |crowd: &Crowd| -> Vec<[u32; 4]> {
        ids.iter()
            .map(|id| {
                crowd.records()[crowd.schedule().agent_slot()[id.index() as usize] as usize].frames
            })
            .collect()
    };
    let frames_before = frames(&crowd);
    for k in 1..=20 {
        // Every agent one step along +x, facing it.
        let moves: Vec<_> = ids
            .iter()
            .zip(&spawns)
            .map(|(&id, (s, _))| {
                (
                    id,
                    s.position + Vec3::X * (0.05 * k as f32),
                    std::f32::consts::FRAC_PI_2,
                )
            })
            .collect();
        crowd.set_transforms(&moves).expect("places");
        let stats = crowd.update(1.0 / 30.0, &view);
        assert_eq!(stats.agents, 64);
    }
    for (&id, (s, _)) in ids.iter().zip(&spawns) {
        assert!(crowd.is_visible(id).unwrap(), "{id} is in view");
        let slot = crowd.schedule().agent_slot()[id.index() as usize] as usize;
        let r = crowd.records()[slot];
        // Near agents are written every frame: the last place the program gave.
        if crowd.level(id).unwrap() == 0 {
            let want = s.position + Vec3::X * (0.05 * 20.0);
            assert_eq!(
                r.place,
                [want.x, want.y, want.z, std::f32::consts::FRAC_PI_2],
                "{id}"
            );
        }
    }
    // Two thirds of the 1 s clip: the frames shown moved on.
    let moved = frames(&crowd)
        .iter()
        .zip(&frames_before)
        .filter(|(now, then)| now != then)
        .count();
    assert!(moved > 32, "only {moved} of 64 records show other frames");
}
