//! The CPU skinning path (the renderer's fallback and the GPU parity reference) against the
//! animation pipeline itself: at baked frame times, skinning from the file's f32 texels gives
//! the vertices `throng pose --positions` computes.

use std::path::Path;

use glam::Vec3;
use throng::bake::{BakeOptions, PrecisionChoice, Recipe, bake};
use throng::character::{Character, Poser};
use throng::crowd::scene::{Placement, frame_pose};
use throng::format::ThrongFile;
use throng::format::records::anim_kind;
use throng::render::draw::cpu_skin::skin_vertex;

#[test]
fn cpu_skinning_matches_the_pipeline_at_baked_frames() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut recipe = Recipe::load(&root.join("bake/mannequin.toml")).unwrap();
    recipe.precision = PrecisionChoice::F32;
    // The pipeline's own poses are the reference: no foot locking, which moves the walk's and
    // run's legs off them by design (tests/bake/bake_file.rs checks what it changes).
    recipe
        .characters
        .iter_mut()
        .for_each(|c| c.foot_lock = false);
    let bytes = bake(&recipe, &BakeOptions::default())
        .unwrap()
        .builder
        .to_bytes()
        .unwrap();
    let file = ThrongFile::from_bytes(&bytes, "mannequin.throng").unwrap();
    let character = Character::load(&root.join("assets/mannequin.toml")).unwrap();
    let model = &character.model;
    let mut poser = Poser::new(model);
    let (vertices, _) = file.mesh_data(0);
    let height = file.characters()[0].height;
    let (mut checked, mut worst) = (0, 0.0f32);
    let (mut positions, mut normals) = (Vec::new(), Vec::new());
    for (a, r) in file.anims().iter().enumerate() {
        let step = if r.fps > 0.0 { 1.0 / r.fps } else { 0.0 };
        for f in [0, r.frame_count / 3, r.frame_count - 1] {
            let t = f as f32 * step;
            // What throng pose computes for this clip or state at t.
            let skin = if r.kind == anim_kind::STATE {
                let state = character.machine.state(file.str(r.name)).unwrap();
                let mut params: Vec<f32> = character
                    .machine
                    .params()
                    .iter()
                    .map(|p| p.default)
                    .collect();
                if let Some(p) = character.machine.param(file.str(r.param)) {
                    params[p] = r.param_value;
                }
                poser.state(&character, state, &params, t).to_vec()
            } else {
                let clip = model.find_clip(file.str(r.name)).unwrap();
                poser
                    .clip(model, Some(clip), t, throng::anim::Wrap::Clamp)
                    .to_vec()
            };
            model.meshes[0]
                .mesh
                .skin(&skin, &mut positions, &mut normals);
            let agent = Placement {
                character: 0,
                position: Vec3::ZERO,
                heading: 0.0,
                scale: 1.0,
                tint: [1.0; 4],
                anim_a: a as u32,
                time_a: t,
                anim_b: a as u32,
                time_b: t,
                fade: 0.0,
            };
            let pose = frame_pose(&file, &agent);
            assert_eq!(
                u64::from(pose.a0) * 3,
                file.frame_base(a, f),
                "frame {f} of {a} at {t} s"
            );
            for (v, expected) in vertices.iter().zip(&positions) {
                let (p, _) = skin_vertex(&file.texels(), &pose, v);
                worst = worst.max(p.distance(*expected));
            }
            checked += 1;
        }
    }
    println!(
        "{checked} frames, largest difference {worst:.3e} ({:.2e} of the height)",
        worst / height
    );
    // Same texels, same weights; the interpolation weight at a frame time is 0 up to the
    // rounding of t × fps, and the blend sums in another order: a few ulps of 2 m.
    assert!(worst <= 1e-5 * height, "{worst}");
    assert!(checked >= 30);
}
