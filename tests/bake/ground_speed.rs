//! Ground speed measured from the feet (`anim::gait`, the baker's `gait` step) on bare models:
//! the built-in mannequin's walk and run against the speeds they are authored for, and the
//! shared third-party models baked exactly as `throng bake MODEL.glb` bakes them. Every measured
//! speed is then played the way a crowd plays it — the agent moving at that speed along its
//! heading, the pose read from the baked frames the crowd would show — and the planted feet
//! must stay put in the world.

use crate::common;

use std::path::Path;

use glam::{Mat4, Vec3, Vec4};
use throng::anim::gait;
use throng::bake::measure::JointBoxes;
use throng::bake::{AnimReport, BakeOptions, BakeReport, Size, bake, feet_of, standing_height};
use throng::crowd::frame::record::joint_rows;
use throng::crowd::{FramePose, Playback};
use throng::format::ThrongFile;
use throng::import::mannequin::{Variant, generate_variant};

/// `model` baked bare (the recipe `throng bake MODEL.glb` uses), written and opened.
fn bake_bare(model: &Path, tag: &str) -> (BakeReport, ThrongFile) {
    let dir = common::temp_dir(tag);
    let out = dir.join("bare.throng");
    let recipe = crate::common::bare_recipe(model, &out);
    let baked = bake(&recipe, &BakeOptions::default()).expect("bake");
    baked.builder.write(&out).expect("write");
    let file = ThrongFile::open(&out).expect("open");
    (baked.report, file)
}

/// The feet of `model` as the baker finds them (from its rest pose), each with the points the
/// baker tracks: the 8 corners of the bind-space box of the vertices its joint moves.
fn feet(model: &Path, height: f32) -> Vec<(usize, [Vec4; 8])> {
    let m = throng::import::load(model, &throng::import::ImportOptions::default()).expect("load");
    let boxes = JointBoxes::new(m.skeleton.len(), m.meshes.iter().map(|p| &p.mesh));
    let scale = Mat4::from_scale(Size::Default.factor(standing_height(&m)).0);
    let feet = feet_of(&m, &boxes, scale, height);
    feet.joints.into_iter().zip(feet.points).collect()
}

/// The model-space points of `feet` in `pose` of `file`, appended to `out`.
fn foot_points(
    file: &ThrongFile,
    pose: &FramePose,
    feet: &[(usize, [Vec4; 8])],
    out: &mut Vec<Vec3>,
) {
    let texels = file.texels();
    for (j, points) in feet {
        let r = joint_rows(&texels, pose, *j as u32);
        out.extend(
            points
                .iter()
                .map(|b| Vec3::new(r[0].dot(*b), r[1].dot(*b), r[2].dot(*b))),
        );
    }
}

fn anim<'a>(report: &'a BakeReport, name: &str) -> &'a AnimReport {
    report.characters[0]
        .anims
        .iter()
        .find(|a| a.name == name)
        .unwrap_or_else(|| panic!("no animation '{name}'"))
}

/// Plays animation `name` of `file` as a crowd agent does, moving at `speed` along heading
/// `heading`, and returns the RMS world slip of the planted feet (units per second).
///
/// The agent advances time and position by `dt` each step (as `crowd::sim` does without a
/// fade); the pose is `Playback::frame_pose` read through `cpu_skin::joint_rows` (the frames and
/// interpolation both skinning paths show); a joint's model-space position is its matrix rows
/// applied to its bind-space origin; the instance is placed as `crowd.wgsl` places it (turned
/// by the heading about +y). Planted samples are found with `gait::planted` on the model-space
/// positions of one cycle, sampled at 4 steps per baked frame.
fn crowd_slip(
    file: &ThrongFile,
    name: &str,
    feet: &[(usize, [Vec4; 8])],
    speed: f32,
    heading: f32,
) -> f32 {
    let a = file.find_anim(0, name).expect("anim");
    let rec = file.anims()[a];
    let height = file.characters()[0].height;
    let steps = rec.frame_count as usize * 4;
    let dt = rec.duration / steps as f32;
    let (s, c) = heading.sin_cos();
    let forward = Vec3::new(s, 0.0, c);
    let place = |p: Vec3| Vec3::new(c * p.x + s * p.z, p.y, -s * p.x + c * p.z);
    // Three cycles; the middle one is measured, so every central difference has neighbours.
    let (mut t, mut position) = (0.0f32, Vec3::ZERO);
    let (mut model, mut world) = (Vec::new(), Vec::new());
    for _ in 0..3 * steps {
        let pose = Playback {
            anim_a: a as u32,
            time_a: t,
            anim_b: a as u32,
            time_b: t,
            fade: 0.0,
        }
        .frame_pose(file);
        let from = model.len();
        foot_points(file, &pose, feet, &mut model);
        world.extend(model[from..].iter().map(|p| position + place(*p)));
        position += forward * (speed * dt);
        t = (t + dt).rem_euclid(rec.duration);
    }
    let (n, per) = (feet.len(), 8);
    let stride = n * per;
    let cycle = &model[steps * stride..2 * steps * stride];
    let mut mask = vec![false; steps * n];
    gait::planted(cycle, n, per, dt, height, &mut mask);
    let (mut sum, mut count) = (0.0f64, 0usize);
    for (k, _) in mask.iter().enumerate().filter(|(_, p)| **p) {
        let (i, f) = (steps + k / n, k % n);
        // The foot's contact point: its lowest, as the measure takes it.
        let q = (0..per)
            .min_by(|&x, &y| {
                model[i * stride + f * per + x]
                    .y
                    .total_cmp(&model[i * stride + f * per + y].y)
            })
            .unwrap_or(0);
        let at = |i: usize| world[i * stride + f * per + q];
        let v = (at(i + 1) - at(i - 1)) / (2.0 * dt);
        sum += f64::from(Vec3::new(v.x, 0.0, v.z).length_squared());
        count += 1;
    }
    assert!(
        count > 0,
        "{name}: no planted samples in the crowd's playback"
    );
    (sum / count as f64).sqrt() as f32
}

/// Prints per-foot figures of animation `name` (for a failure's message).
fn diagnose(file: &ThrongFile, name: &str, feet: &[(usize, [Vec4; 8])]) {
    let a = file.find_anim(0, name).expect("anim");
    let rec = file.anims()[a];
    let height = file.characters()[0].height;
    let frames = rec.frame_count as usize;
    let mut model = Vec::new();
    for f in 0..frames {
        let t = rec.duration * f as f32 / frames as f32;
        let pose = Playback {
            anim_a: a as u32,
            time_a: t,
            anim_b: a as u32,
            time_b: t,
            fade: 0.0,
        }
        .frame_pose(file);
        foot_points(file, &pose, feet, &mut model);
    }
    let n = feet.len();
    let mut mask = vec![false; frames * n];
    let m = gait::planted(
        &model,
        n,
        8,
        rec.duration / frames as f32,
        height,
        &mut mask,
    );
    println!("  {name}: steady slide {m} (height {height})");
    for f in 0..n {
        let low: Vec<f32> = (0..frames)
            .map(|i| {
                (0..8)
                    .map(|q| model[(i * n + f) * 8 + q].y)
                    .fold(f32::INFINITY, f32::min)
            })
            .collect();
        let lo = low.iter().cloned().fold(f32::INFINITY, f32::min);
        let down: Vec<usize> = (0..frames).filter(|i| mask[i * n + f]).collect();
        let vz: Vec<(f32, f32)> = (0..frames)
            .map(|i| {
                let q = (0..8)
                    .min_by(|&x, &y| {
                        model[(i * n + f) * 8 + x]
                            .y
                            .total_cmp(&model[(i * n + f) * 8 + y].y)
                    })
                    .unwrap_or(0);
                let a = model[(((i + 1) % frames) * n + f) * 8 + q];
                let b = model[(((i + frames - 1) % frames) * n + f) * 8 + q];
                (
                    ((a.z - b.z) * frames as f32 / rec.duration / 2.0 / height * 100.0).round()
                        / 100.0,
                    ((a.y - b.y) * frames as f32 / rec.duration / 2.0 / height * 100.0).round()
                        / 100.0,
                )
            })
            .collect();
        println!("    contact velocity (z, y), heights/s: {vz:?}");
        println!(
            "    foot {f}: planted at {down:?}; contact heights (% of height) {:?}",
            low.iter()
                .map(|y| ((y - lo) / height * 1000.0).round() / 10.0)
                .collect::<Vec<_>>()
        );
    }
}

/// Largest planted-foot slip in the crowd's playback, as a fraction of the speed: 5%, the
/// issue's criterion (unit-free, so the Fox in centimetres is held to the same). The
/// hand-keyed cycles of the shared models slide their planted feet at half to one and a half
/// times the mean within a stance (Fox Walk 7.2% of the speed, CesiumMan 18% before locking):
/// they meet it because the baker locks their feet to the speed (`bake::lock`), which these
/// tests therefore check end to end.
const MAX_SLIP: f32 = 0.05;

/// Checks that every animation of `model` named in `moving` has a ground speed an agent can
/// play with its planted feet slipping by less than [`MAX_SLIP`] of it (its feet locked to
/// that speed when `locked`), every one named in
/// `still` has none, and every one in `declined` has none for the reason given (a fragment of
/// the report's `no_ground_speed`).
fn check_bare(
    model: &Path,
    tag: &str,
    locked: bool,
    moving: &[&str],
    still: &[&str],
    declined: &[(&str, &str)],
) -> BakeReport {
    let (report, file) = bake_bare(model, tag);
    let height = file.characters()[0].height;
    let feet = feet(model, height);
    println!(
        "{}: feet {:?}",
        model.display(),
        feet.iter().map(|f| f.0).collect::<Vec<_>>()
    );
    for a in &report.characters[0].anims {
        println!(
            "  {:<10} looping {} speed {:?} slide {:?} lock {:?} seam {:?} drift {:?} why not {:?}",
            a.name,
            a.looping,
            a.measured_speed,
            a.foot_slide,
            a.foot_lock,
            a.loop_seam,
            a.root_drift,
            a.no_ground_speed
        );
    }
    for name in moving {
        let a = anim(&report, name);
        if a.measured_speed.is_none() || std::env::var_os("THRONG_GAIT_DIAGNOSE").is_some() {
            diagnose(&file, name, &feet);
        }
        let speed = a
            .measured_speed
            .unwrap_or_else(|| panic!("{name} has no ground speed: {:?}", a.no_ground_speed));
        assert_eq!(
            a.foot_lock.is_some(),
            locked,
            "{name}: feet locked {:?}",
            a.foot_lock
        );
        for heading in [0.0, 2.2] {
            let slip = crowd_slip(&file, name, &feet, speed, heading);
            println!("  {name} at {speed:.3}/s heading {heading}: slip {slip:.4}/s");
            assert!(
                slip < MAX_SLIP * speed,
                "{name}: planted feet slip {slip:.4}/s at {speed:.3}/s (heading {heading})"
            );
        }
    }
    for name in still {
        let a = anim(&report, name);
        assert!(
            a.measured_speed.is_none(),
            "{name} should have no ground speed, has {:?}",
            a.measured_speed
        );
    }
    for (name, why) in declined {
        let a = anim(&report, name);
        let reason = a.no_ground_speed.as_deref().unwrap_or("");
        assert!(
            a.measured_speed.is_none() && reason.contains(why),
            "{name}: expected no ground speed because '{why}', got {:?} ({reason})",
            a.measured_speed
        );
    }
    report
}

#[test]
fn mannequin_walk_and_run_measure_their_authored_speeds() {
    let report = check_bare(
        &common::mannequin_path(),
        "gait-mannequin",
        true,
        &["walk", "run"],
        &["idle", "wave"],
        &[],
    );
    // The mannequin walks along +z: it is not turned.
    let warnings = &report.characters[0].warnings;
    assert!(
        !warnings.iter().any(|w| w.contains("turned")),
        "{warnings:?}"
    );
    // Authored speeds (import::mannequin WALK_SPEED and RUN_SPEED, the speeds bake/mannequin.toml
    // bakes its states at).
    authored_speeds(&report, 1.2, 3.0);
}

/// Asserts that the walk and run of `report` measure `walk` and `run` (m/s) within 5%, the
/// issue's tolerance.
fn authored_speeds(report: &BakeReport, walk: f32, run: f32) {
    for (name, authored) in [("walk", walk), ("run", run)] {
        let v = anim(report, name).measured_speed.expect("speed");
        assert!(
            (v - authored).abs() <= 0.05 * authored,
            "{name}: measured {v:.3} m/s, authored {authored} m/s"
        );
    }
}

/// Mixamo-style in-place walks (`import::mannequin` variants): the Mixamo rig, whose toes end
/// in joints that move no vertex (the feet are the toe bases, not a point above the sole), its
/// walk lifting the ankle 3 cm (a foot clearing the floor by little: it must still lift), and
/// the plain mannequin stepping 3 cm high. Each walk and run measures its authored speed.
#[test]
fn mixamo_style_in_place_walks_measure_their_authored_speeds() {
    let low = Variant {
        walk_step_height: 0.03,
        ..Variant::default()
    };
    let variants = [
        ("mixamo", Variant::mixamo()),
        (
            "mixamo-low-walk",
            Variant::named("mixamo-low-walk").unwrap(),
        ),
        ("step-0.03", low),
    ];
    for (tag, v) in variants {
        let dir = common::temp_dir(&format!("gait-variant-{tag}"));
        let path = dir.join(format!("{tag}.glb"));
        std::fs::write(&path, generate_variant(&v).expect("variant")).expect("write");
        let report = check_bare(&path, tag, true, &["walk", "run"], &["idle", "wave"], &[]);
        authored_speeds(&report, v.walk_speed, v.run_speed);
    }
}

#[test]
fn fox_walks_and_surveys_in_place() {
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let report = check_bare(&fox, "gait-fox", true, &["Walk", "Run"], &["Survey"], &[]);
    faster(&report, "Walk", "Run");
}

/// Asserts that `run` of `report` has a higher ground speed than `walk`: a run measured on a
/// swing passing low (or a wrong cluster) would not.
fn faster(report: &BakeReport, walk: &str, run: &str) {
    let (w, r) = (
        anim(report, walk).measured_speed,
        anim(report, run).measured_speed,
    );
    assert!(
        matches!((w, r), (Some(w), Some(r)) if r > w),
        "{run} ({r:?}) should be faster than {walk} ({w:?})"
    );
}

#[test]
fn cesium_man_is_turned_to_walk_along_z() {
    let Some(man) = common::shared_asset("CesiumMan.glb") else {
        return;
    };
    // CesiumMan walks along the model's x: the baker turns him about +y so that he walks
    // along +z, the axis a crowd moves agents along, and says so; then his walk has a ground
    // speed and an agent playing it keeps his planted feet: they slide at 0.42 to 0.82
    // heights/s within one stance (a demo clip, not a planted walk), locked to the mean.
    let report = check_bare(&man, "gait-cesium", true, &["merged"], &[], &[]);
    let warnings = &report.characters[0].warnings;
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("turned") && w.contains("walks along +z")),
        "{warnings:?}"
    );
}

#[test]
fn robot_walks_and_its_gestures_stay_in_place() {
    let Some(robot) = common::shared_asset("RobotExpressive.glb") else {
        return;
    };
    let report = check_bare(
        &robot,
        "gait-robot",
        true,
        &["Walking", "Running"],
        &[
            "Idle", "Wave", "Yes", "No", "ThumbsUp", "Dance", "Punch", "Jump", "WalkJump",
        ],
        &[],
    );
    faster(&report, "Walking", "Running");
}
