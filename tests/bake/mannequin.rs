//! The built-in mannequin: the committed GLB is exactly what the generator writes, and the
//! character meets its brief (joints, vertices, looping clips, planted feet, upper-body wave).

use crate::common;

use glam::{Mat4, Vec3};
use throng::anim::{Transform, local_to_model, sample};
use throng::import::mannequin::{CLIP_NAMES, RUN_SPEED, WALK_SPEED, generate_glb};
use throng::import::{ImportOptions, Model, load, load_bytes};

fn mannequin() -> Model {
    load_bytes(&generate_glb(), "mannequin.glb", &ImportOptions::default()).unwrap()
}

#[test]
fn committed_file_is_byte_identical_to_the_generator() {
    let path = common::mannequin_path();
    let committed = std::fs::read(&path).expect("assets/mannequin.glb is committed");
    let generated = generate_glb();
    if committed != generated {
        let first = committed
            .iter()
            .zip(&generated)
            .position(|(a, b)| a != b)
            .unwrap_or(committed.len().min(generated.len()));
        panic!(
            "{} differs from the generator's output ({} vs {} bytes, first difference at byte {first}); run `cargo run -- gen-mannequin` and commit the result",
            path.display(),
            committed.len(),
            generated.len()
        );
    }
    // And it imports like the in-memory one.
    assert_eq!(
        load(&path, &ImportOptions::default())
            .unwrap()
            .skeleton
            .len(),
        mannequin().skeleton.len()
    );
}

#[test]
fn meets_the_brief() {
    let m = mannequin();
    assert!(m.skeleton.len() >= 18, "{} joints", m.skeleton.len());
    for name in [
        "hips",
        "spine",
        "chest",
        "neck",
        "head",
        "upper_arm_l",
        "forearm_r",
        "hand_l",
        "thigh_r",
        "shin_l",
        "foot_r",
    ] {
        assert!(m.skeleton.find(name).is_some(), "missing joint {name}");
    }
    let vertices: usize = m.meshes.iter().map(|x| x.mesh.vertex_count()).sum();
    assert!(vertices >= 2000, "{vertices} vertices");
    // Blended weights near joints: many vertices have more than one influence.
    let blended = m.meshes[0]
        .mesh
        .weights
        .iter()
        .filter(|w| w[1] > 0.0)
        .count();
    assert!(
        blended > vertices / 10,
        "only {blended} vertices have blended weights"
    );
    let names: Vec<&str> = m.clips.iter().map(|c| c.name()).collect();
    assert_eq!(names, CLIP_NAMES);
    assert!(m.warnings.is_empty(), "{:?}", m.warnings);
}

fn pose(m: &Model, clip: usize, t: f32) -> Vec<Mat4> {
    let mut local = vec![Transform::IDENTITY; m.skeleton.len()];
    let mut world = vec![Mat4::IDENTITY; m.skeleton.len()];
    sample(&m.clips[clip], &m.skeleton, t, &mut local);
    local_to_model(&m.skeleton, &local, &mut world);
    world
}

fn joint_pos(world: &[Mat4], j: usize) -> Vec3 {
    world[j].w_axis.truncate()
}

#[test]
fn clips_loop_seamlessly() {
    let m = mannequin();
    for (c, clip) in m.clips.iter().enumerate() {
        let (a, b) = (pose(&m, c, 0.0), pose(&m, c, clip.duration()));
        for j in 0..m.skeleton.len() {
            // The last key repeats the first; only f32 rounding separates them.
            assert!(
                a[j].abs_diff_eq(b[j], 1e-5),
                "clip {} joint {j} jumps at the loop",
                clip.name()
            );
        }
    }
}

#[test]
fn wave_moves_only_the_upper_body() {
    let m = mannequin();
    let wave = m.find_clip("wave").unwrap();
    let lower = [
        "hips", "thigh_l", "shin_l", "foot_l", "thigh_r", "shin_r", "foot_r",
    ]
    .map(|n| m.skeleton.find(n).unwrap());
    for ch in m.clips[wave].channels() {
        assert!(
            !lower.contains(&ch.joint()),
            "wave drives {}",
            m.skeleton.names()[ch.joint()]
        );
    }
    // The right hand goes above the head.
    let w = pose(&m, wave, 0.5);
    let (hand, head) = (
        m.skeleton.find("hand_r").unwrap(),
        m.skeleton.find("head").unwrap(),
    );
    assert!(
        joint_pos(&w, hand).y > joint_pos(&w, head).y,
        "hand at {}",
        joint_pos(&w, hand)
    );
}

/// In-place gaits: while a foot is on the ground it slides back at exactly the clip's speed,
/// so once the character moves forward at that speed the foot is planted in the world.
fn check_planted_feet(clip_name: &str, speed: f32, flat: f32) {
    let m = mannequin();
    let c = m.find_clip(clip_name).unwrap();
    let duration = m.clips[c].duration();
    let foot = m.skeleton.find("foot_l").unwrap();
    let samples = 120;
    let dt = duration / samples as f32;
    let positions: Vec<Vec3> = (0..=samples)
        .map(|i| joint_pos(&pose(&m, c, i as f32 * dt), foot))
        .collect();
    let ground = positions.iter().map(|p| p.y).fold(f32::INFINITY, f32::min);
    // On the ground: the ankle within 2 mm of its standing height (keys put it exactly there;
    // between keys it dips a few millimetres, checked below).
    let planted: Vec<bool> = positions.iter().map(|p| p.y < 0.092).collect();
    let mut stance_samples = 0;
    let mut worst_drift = 0.0f32;
    for i in 0..positions.len() {
        if !planted[i] {
            continue;
        }
        // Start of this stance run.
        let start = (0..=i)
            .rev()
            .take_while(|k| planted[*k])
            .last()
            .unwrap_or(i);
        // Where the foot would be if it slid back at exactly `speed`: in the world (character
        // moving forward at `speed`) that is a foot that does not move.
        let ideal = positions[start].z - speed * (i - start) as f32 * dt;
        worst_drift = worst_drift.max((positions[i].z - ideal).abs());
        stance_samples += 1;
    }
    // 5 mm over a whole stance: keys are 1/30 s apart and joint rotations interpolate between
    // them, which bends the ankle's straight path slightly; more would read as sliding.
    assert!(
        worst_drift < 0.005,
        "{clip_name}: planted foot drifts {worst_drift} m in the world"
    );
    // The foot is flat for `flat` of the cycle (less a sample at each end).
    assert!(
        stance_samples as f32 >= samples as f32 * flat - 2.0,
        "{clip_name}: only {stance_samples} stance samples"
    );
    // Feet go at most 5 mm through the floor (the sole sits 9 cm below the ankle): between
    // keys, linearly interpolated joint rotations shorten the leg's chord slightly.
    assert!(ground > 0.085, "{clip_name}: ankle dips to {ground}");
}

#[test]
fn walk_feet_plant_at_walk_speed() {
    // Flat on the ground from 20% to 55% of the 60% stance; heel strike and toe-off roll.
    check_planted_feet("walk", WALK_SPEED, 0.6 * 0.35);
}

#[test]
fn run_feet_plant_at_run_speed() {
    // Runners land flat: on the ground for the first 55% of the 30% stance.
    check_planted_feet("run", RUN_SPEED, 0.3 * 0.55);
}

#[test]
fn surface_faces_outwards() {
    let m = mannequin();
    let mesh = &m.meshes[0].mesh;
    // Counter-clockwise winding seen from outside (glTF's front faces) gives a positive signed
    // volume: the sum of the tetrahedra from the origin to each triangle.
    let volume: f32 = mesh
        .indices
        .chunks_exact(3)
        .map(|t| {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| mesh.positions[i as usize]);
            a.dot(b.cross(c)) / 6.0
        })
        .sum();
    // A 1.8 m human is about 0.07 m^3; overlapping closed parts add up to a bit more.
    assert!(volume > 0.03 && volume < 0.2, "signed volume {volume} m^3");
    // The top of the head points up.
    let top = (0..mesh.vertex_count())
        .max_by(|a, b| mesh.positions[*a].y.total_cmp(&mesh.positions[*b].y))
        .unwrap();
    assert!(
        mesh.normals[top].y > 0.9,
        "normal at the top of the head: {}",
        mesh.normals[top]
    );
}
