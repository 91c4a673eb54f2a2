//! Baked texels against the CPU pipeline: for every clip of the mannequin, Fox, CesiumMan and
//! RobotExpressive, the f32 texels of every frame are bit-identical to the skinning matrices
//! computed at that frame's time; f16 errors stay within the f16 bound.

mod common;

use glam::Mat4;
use throng::anim::{Transform, local_to_model, sample, skinning_matrices};
use throng::bake::{FrameSchedule, bake_clip, skinned_error, through_f16, to_texels};
use throng::import::{ImportOptions, Model, load};

fn models() -> Vec<Model> {
    let mut paths = vec![common::mannequin_path()];
    for name in ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb"] {
        paths.extend(common::shared_asset(name));
    }
    paths
        .iter()
        .map(|p| load(p, &ImportOptions::default()).unwrap())
        .collect()
}

#[test]
fn f32_texels_are_bit_identical_to_the_cpu_pipeline() {
    let mut frames = 0;
    for m in models() {
        let n = m.skeleton.len();
        let (mut local, mut world, mut skin) = (
            vec![Transform::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
        );
        for clip in &m.clips {
            let schedule = FrameSchedule::new(clip.name(), clip.duration(), 30.0, true).unwrap();
            let baked = to_texels(&bake_clip(clip, &m.skeleton, &schedule));
            assert_eq!(baked.len(), schedule.count as usize * n * 3);
            for i in 0..schedule.count {
                sample(clip, &m.skeleton, schedule.time(i), &mut local);
                local_to_model(&m.skeleton, &local, &mut world);
                skinning_matrices(&m.skeleton, &world, &mut skin);
                let expected = to_texels(&skin);
                let got = &baked[i as usize * n * 3..(i as usize + 1) * n * 3];
                // Bit for bit: compare the bit patterns, so that -0.0 and 0.0 differ too.
                let same = expected
                    .iter()
                    .zip(got)
                    .all(|(a, b)| a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits()));
                assert!(same, "{}: clip '{}' frame {i} differs", m.name, clip.name());
                frames += 1;
            }
        }
    }
    assert!(frames > 100, "only {frames} frames checked");
}

#[test]
fn f16_error_is_within_the_half_precision_bound() {
    for m in models() {
        let n = m.skeleton.len();
        for clip in &m.clips {
            let schedule = FrameSchedule::new(clip.name(), clip.duration(), 15.0, true).unwrap();
            let baked = bake_clip(clip, &m.skeleton, &schedule);
            for frame in baked.chunks_exact(n) {
                let packed = through_f16(frame);
                for mesh in &m.meshes {
                    // The posed mesh's extent (bind space can be scaled away from model space,
                    // as RobotExpressive's is by its armature).
                    let (mut p, mut nr) = (Vec::new(), Vec::new());
                    mesh.mesh.skin(frame, &mut p, &mut nr);
                    let far = p
                        .iter()
                        .map(|v| v.abs().max_element())
                        .fold(0.0f32, f32::max);
                    let err = skinned_error(&mesh.mesh, frame, &packed);
                    // f16 keeps 11 significant bits: each matrix element is off by at most 2^-11
                    // of itself, so a vertex moves by at most about that fraction of its
                    // distance from the origin per element it uses (4 per coordinate, 3
                    // coordinates): 12 * 2^-11 of the farthest vertex coordinate is a safe bound.
                    assert!(
                        err <= far * 12.0 / 2048.0,
                        "{}: clip '{}' error {err} (extent {far})",
                        m.name,
                        clip.name()
                    );
                }
            }
        }
    }
}
