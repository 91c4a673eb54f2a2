//! Baking into `.throng` files and reading them back: f32 texels bit-identical to the CPU
//! pipeline for every clip of the mannequin, Fox, CesiumMan and RobotExpressive and for the
//! states of a character; f16 texels within the reported bound; a lossless round trip; bounds
//! that hold the mesh; events, root motion, LODs; deterministic, idempotent bakes.

use crate::common;

use std::path::{Path, PathBuf};

use glam::{Mat4, Vec3, Vec4};
use throng::anim::{Transform, local_to_model, sample, skinning_matrices};
use throng::bake::{
    BakeOptions, CharacterReport, FrameSchedule, PrecisionChoice, Recipe, Size, bake, from_rows,
    rows, skinned_error, standing_height,
};
use throng::character::{Character, Poser};
use throng::format::records::{anim_flags, anim_kind};
use throng::format::{Builder, TexelFormat, ThrongFile};
use throng::import::{ImportOptions, Model, load};

fn models() -> Vec<PathBuf> {
    let mut paths = vec![common::mannequin_path()];
    for name in ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb"] {
        paths.extend(common::shared_asset(name));
    }
    paths
}

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Bakes `recipe` with `precision` and reads the result back from bytes.
fn bake_and_read(
    mut recipe: Recipe,
    precision: PrecisionChoice,
) -> (Builder, ThrongFile, CharacterReport) {
    recipe.precision = precision;
    let baked = bake(
        &recipe,
        &BakeOptions {
            force: true,
            progress: None,
            ..Default::default()
        },
    )
    .unwrap();
    let bytes = baked.builder.to_bytes().unwrap();
    let file = ThrongFile::from_bytes(&bytes, "mem.throng").unwrap();
    let report = baked.report.characters[0].clone();
    (baked.builder, file, report)
}

/// Where a looping clip's seam is spread over its last frames (`bake::SPREAD_FRAMES` at its
/// rate, at most half the clip), those frames differ from the pipeline by design, by a share
/// of the seam rising to all of it: the time from which a frame may be so changed (a hundredth
/// of a frame early, so a frame on the window's edge counts), or `None` for a clip not spread.
fn spread_from(r: &throng::bake::AnimReport) -> Option<f32> {
    let spread = r.looping
        && r.loop_seam
            .is_some_and(|s| s > throng::bake::LOOP_TOLERANCE);
    let window = (throng::bake::SPREAD_FRAMES / r.fps).min(r.duration * 0.5);
    spread.then(|| r.duration - window - 0.01 / r.fps)
}

/// The matrices of frame `f` of animation `a`, decoded from the file's texels.
pub(crate) fn frame_matrices(file: &ThrongFile, a: usize, f: u32) -> Vec<Mat4> {
    let anim = &file.anims()[a];
    let joints = file.characters()[anim.character as usize].joint_count;
    let t = file.texels();
    (0..joints)
        .map(|j| {
            let i = |r| file.texel_index(a, f, j, r) as usize;
            from_rows(&[t.get(i(0)), t.get(i(1)), t.get(i(2))])
        })
        .collect()
}

/// The recipe `throng bake MODEL.glb` uses, without foot locking: the texels are then the
/// source's poses exactly (locking is checked against it in
/// `foot_locking_changes_only_the_legs_of_measured_cycles`).
fn exact(path: &Path) -> Recipe {
    let mut r = crate::common::bare_recipe(path, Path::new("unused.throng"));
    r.characters[0].foot_lock = false;
    r
}

/// The scale a bare bake of `m` applies: the default rule for its standing height (Fox, in
/// centimetres, is baked at 0.01; the others at 1).
fn default_scale(m: &Model) -> Mat4 {
    Mat4::from_scale(Size::Default.factor(standing_height(m)).0)
}

/// `m` turned by `k` quarter turns about +y, as the baker turns a character that walks along
/// another axis than +z (CesiumMan): per turn, model (x, z) becomes (z, −x), which moves rows
/// without arithmetic, so the result is bit-exact.
fn turned(m: Mat4, k: u8) -> Mat4 {
    let turn = |c: Vec4| (0..k).fold(c, |c, _| Vec4::new(c.z, c.y, -c.x, c.w));
    Mat4::from_cols(
        turn(m.x_axis),
        turn(m.y_axis),
        turn(m.z_axis),
        turn(m.w_axis),
    )
}

fn schedule(file: &ThrongFile, a: usize) -> FrameSchedule {
    let r = &file.anims()[a];
    FrameSchedule {
        duration: r.duration,
        count: r.frame_count,
        looping: r.flags & anim_flags::LOOPING != 0,
    }
}

fn same_bits(a: &[Mat4], b: &[Mat4]) -> bool {
    a.iter().zip(b).all(|(x, y)| {
        rows(x)
            .iter()
            .flatten()
            .zip(rows(y).iter().flatten())
            .all(|(p, q)| p.to_bits() == q.to_bits())
    }) && a.len() == b.len()
}

#[test]
fn f32_texels_of_every_clip_are_bit_identical_to_the_cpu_pipeline() {
    let mut frames = 0;
    for path in models() {
        let m: Model = load(&path, &ImportOptions::default()).unwrap();
        let scale = default_scale(&m);
        let (_, file, report) = bake_and_read(exact(&path), PrecisionChoice::F32);
        let turns = report.quarter_turns;
        // The file records the turn its texels carry (format 1.2).
        assert_eq!(file.facing_turns(0), turns, "{}", m.name);
        assert_eq!(file.format(), TexelFormat::Rgba32F);
        assert_eq!(file.anims().len(), m.clips.len(), "{}", m.name);
        let n = m.skeleton.len();
        let (mut local, mut world, mut skin) = (
            vec![Transform::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
            vec![Mat4::IDENTITY; n],
        );
        for (a, clip) in m.clips.iter().enumerate() {
            assert_eq!(file.str(file.anims()[a].name), clip.name());
            let s = schedule(&file, a);
            for f in 0..s.count {
                // The pipeline, spelled out: sampling, forward kinematics, skinning matrices.
                sample(clip, &m.skeleton, s.time(f), &mut local);
                local_to_model(&m.skeleton, &local, &mut world);
                skinning_matrices(&m.skeleton, &world, &mut skin);
                for k in &mut skin {
                    *k = turned(scale * *k, turns);
                }
                let stored = frame_matrices(&file, a, f);
                let r = &report.anims[a];
                if spread_from(r).is_some_and(|t| s.time(f) >= t) {
                    // Spread frames move at most the seam (a fraction of the height) more.
                    let seam = r.loop_seam.unwrap_or(0.0) * report.height;
                    for mesh in &m.meshes {
                        let e = skinned_error(&mesh.mesh, &skin, &stored);
                        assert!(
                            e <= seam * 1.001 + 1e-6,
                            "{}: '{}' frame {f}: {e} m past the pipeline, more than the seam {seam} m",
                            m.name,
                            clip.name()
                        );
                    }
                } else {
                    assert!(
                        same_bits(&stored, &skin),
                        "{}: clip '{}' frame {f} differs",
                        m.name,
                        clip.name()
                    );
                }
                frames += 1;
            }
        }
    }
    assert!(frames > 100, "only {frames} frames checked");
}

#[test]
fn foot_locking_changes_only_the_legs_of_measured_cycles() {
    let mut locked_anims = 0;
    for path in models() {
        let m = load(&path, &ImportOptions::default()).unwrap();
        let recipe = crate::common::bare_recipe(&path, Path::new("unused.throng"));
        let (_, file, _) = bake_and_read(recipe, PrecisionChoice::F32);
        let (_, plain, _) = bake_and_read(exact(&path), PrecisionChoice::F32);
        assert_eq!(file.anims().len(), plain.anims().len());
        // The joints a leg solve may move: below each locked foot's hip, and the foot's own
        // subtree (a foot hung from the root moves apart from its leg).
        let boxes = throng::bake::measure::JointBoxes::new(
            m.skeleton.len(),
            m.meshes.iter().map(|p| &p.mesh),
        );
        let scale = default_scale(&m);
        let height = file.characters()[0].height;
        let feet = throng::bake::feet_of(&m, &boxes, scale, height);
        let legs: Vec<_> = feet.legs.iter().flatten().collect();
        let in_leg = |j: usize| {
            legs.iter().any(|l| {
                [l.hip, l.ankle]
                    .iter()
                    .any(|&r| r == j || m.skeleton.is_ancestor(r, j))
            })
        };
        for a in 0..file.anims().len() {
            let s = schedule(&file, a);
            let mut legs_moved = false;
            for f in 0..s.count {
                let (got, was) = (frame_matrices(&file, a, f), frame_matrices(&plain, a, f));
                for (j, (x, y)) in got.iter().zip(&was).enumerate() {
                    let same = same_bits(&[*x], &[*y]);
                    if !file.feet_locked(a) || !in_leg(j) {
                        assert!(
                            same,
                            "{}: '{}' frame {f} joint {j} changed, but it is no leg of a locked foot",
                            m.name,
                            file.str(file.anims()[a].name)
                        );
                    } else {
                        legs_moved |= !same;
                    }
                }
                if file.feet_locked(a) {
                    // Each knee bends in the plane the animation bends it in: locking moves an
                    // ankle by up to an eighth of the height, which turns the leg's plane by up
                    // to 19.1° (the Fox's Run, its front paws locked by up to 9.7 cm, 12% of its
                    // 0.79 m; RobotExpressive's Running 9.3°); a knee the solve flipped would be
                    // 180° off. 25° between the bend axes (thigh × shin) of the locked and the
                    // unlocked pose.
                    let bind = m.skeleton.inverse_bind();
                    let at = |ms: &[Mat4], j: usize| (ms[j] * bind[j].inverse().w_axis).truncate();
                    for leg in &legs {
                        let bend = |ms: &[Mat4]| {
                            let (h, k, a) = (at(ms, leg.hip), at(ms, leg.knee), at(ms, leg.ankle));
                            (k - h).cross(a - k).normalize_or_zero()
                        };
                        let angle = bend(&got).angle_between(bend(&was)).to_degrees();
                        assert!(
                            angle < 25.0,
                            "{}: '{}' frame {f}: the knee of joint {} bends {angle:.1}° off the animation's plane",
                            m.name,
                            file.str(file.anims()[a].name),
                            leg.knee
                        );
                    }
                }
            }
            if file.feet_locked(a) {
                assert!(legs_moved, "{}: locked, but no leg moved", m.name);
                assert!(file.ground_speed(a).is_some());
                locked_anims += 1;
            }
        }
    }
    // mannequin walk and run, Fox Walk and Run, CesiumMan's walk, RobotExpressive's Walking
    // and Running (when the shared models are there).
    assert!(locked_anims >= 2, "only {locked_anims} locked");
}

#[test]
fn f32_texels_of_states_are_the_poses_throng_pose_prints() {
    let recipe = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    let character = Character::load(&fixture("walker.toml")).unwrap();
    let (_, file, _) = bake_and_read(recipe, PrecisionChoice::F32);
    let mut poser = Poser::new(&character.model);
    let machine = &character.machine;
    let mut states = 0;
    for (a, r) in file.anims().iter().enumerate() {
        if r.kind != anim_kind::STATE {
            continue;
        }
        let state = machine.state(file.str(r.name)).unwrap();
        let mut params: Vec<f32> = machine.params().iter().map(|p| p.default).collect();
        let p = machine
            .param(file.str(r.param))
            .expect("states here blend on speed");
        params[p] = r.param_value;
        let s = schedule(&file, a);
        for f in 0..s.count {
            let skin = poser.state(&character, state, &params, s.time(f));
            assert!(
                same_bits(&frame_matrices(&file, a, f), skin),
                "state '{}' at {} frame {f} differs",
                file.str(r.name),
                r.param_value
            );
        }
        states += 1;
    }
    // move and greet, each at four speeds.
    assert_eq!(states, 8);
}

#[test]
fn f16_texels_stay_within_the_reported_bound() {
    for path in models() {
        let m = load(&path, &ImportOptions::default()).unwrap();
        let scale = default_scale(&m);
        let (_, file, report) = bake_and_read(exact(&path), PrecisionChoice::F16);
        let turns = report.quarter_turns;
        assert_eq!(file.format(), TexelFormat::Rgba16F);
        let mut poser = Poser::new(&m);
        for (a, r) in file.anims().iter().enumerate() {
            assert!(r.precision_error > 0.0, "{}: f16 is not exact", m.name);
            let s = schedule(&file, a);
            for f in 0..s.count {
                let exact: Vec<Mat4> = poser
                    .clip(&m, Some(a), s.time(f), throng::anim::Wrap::Clamp)
                    .iter()
                    .map(|k| turned(scale * *k, turns))
                    .collect();
                let stored = frame_matrices(&file, a, f);
                // A frame where the seam is spread may also move by up to the seam.
                let spread = spread_from(&report.anims[a])
                    .filter(|t| s.time(f) >= *t)
                    .map_or(0.0, |_| {
                        report.anims[a].loop_seam.unwrap_or(0.0) * report.height
                    });
                for mesh in &m.meshes {
                    let e = skinned_error(&mesh.mesh, &exact, &stored);
                    assert!(
                        e <= r.precision_error + spread * 1.001,
                        "{}: '{}' frame {f}: a vertex moved {e}, more than the reported {}",
                        m.name,
                        file.str(r.name),
                        r.precision_error
                    );
                }
            }
        }
    }
}

#[test]
fn writing_and_reading_is_lossless() {
    let recipe = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    for precision in [PrecisionChoice::F32, PrecisionChoice::F16] {
        let (b, file, _) = bake_and_read(recipe.clone(), precision);
        assert_eq!(file.characters(), &b.characters[..]);
        assert_eq!(file.joints(), &b.joints[..]);
        assert_eq!(file.anims(), &b.anims[..]);
        assert_eq!(file.events(), &b.events[..]);
        assert_eq!(file.motion(), &b.motion[..]);
        assert_eq!(file.bounds(), &b.bounds[..]);
        assert_eq!(file.meshes(), &b.meshes[..]);
        assert_eq!(file.vertices(), &b.vertices[..]);
        assert_eq!(file.indices(), &b.indices[..]);
        assert_eq!(file.images(), &b.images[..]);
        assert_eq!(file.metadata(), &b.metadata);
        assert_eq!(file.info().texel_count, b.texel_count());
        // Through the disk too: the mapped file holds the same bytes.
        let dir = common::temp_dir("lossless");
        let path = dir.join("w.throng");
        b.write(&path).unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b.to_bytes().unwrap());
        let mapped = ThrongFile::open(&path).unwrap();
        assert_eq!(mapped.texels().bytes(), file.texels().bytes());
        assert_eq!(mapped.anims(), file.anims());
    }
}

#[test]
fn bakes_are_deterministic_and_name_their_inputs() {
    let recipe = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    let (a, _, _) = bake_and_read(recipe.clone(), PrecisionChoice::Auto);
    let (b, _, _) = bake_and_read(recipe, PrecisionChoice::Auto);
    assert_eq!(a.to_bytes().unwrap(), b.to_bytes().unwrap());
    let inputs: Vec<&str> = a.metadata.inputs.iter().map(|i| i.path.as_str()).collect();
    assert_eq!(inputs.len(), 2, "{inputs:?}");
    assert!(inputs[0].ends_with("walker.toml") && inputs[1].ends_with("mannequin.glb"));
    assert!(a.metadata.inputs.iter().all(|i| i.sha256.len() == 64));
    assert_eq!(a.metadata.input_key.len(), 64);
}

#[test]
fn baked_bounds_hold_the_skinned_mesh_at_every_frame() {
    for path in models() {
        let m = load(&path, &ImportOptions::default()).unwrap();
        let (_, file, _) = bake_and_read(
            crate::common::bare_recipe(&path, Path::new("unused.throng")),
            PrecisionChoice::F32,
        );
        let (mut p, mut n) = (Vec::new(), Vec::new());
        for (a, r) in file.anims().iter().enumerate() {
            for f in 0..r.frame_count {
                let b = &file.bounds()[(r.first_bounds + f) as usize];
                let (lo, hi) = (Vec3::from(b.min), Vec3::from(b.max));
                let skin = frame_matrices(&file, a, f);
                for mesh in &m.meshes {
                    mesh.mesh.skin(&skin, &mut p, &mut n);
                    // Tolerance: f32 rounding of the box transform, relative to the extent.
                    let eps = (hi - lo).max_element() * 1e-5;
                    for v in &p {
                        assert!(
                            v.cmpge(lo - eps).all() && v.cmple(hi + eps).all(),
                            "{}: '{}' frame {f}: vertex {v} outside {lo}..{hi}",
                            m.name,
                            file.str(r.name)
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn events_root_motion_and_lods_are_stored() {
    let recipe = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    let character = Character::load(&fixture("walker.toml")).unwrap();
    let (_, file, _) = bake_and_read(recipe, PrecisionChoice::Auto);
    let find = |name: &str, speed: Option<f32>| {
        file.anims()
            .iter()
            .position(|r| file.str(r.name) == name && speed.is_none_or(|s| r.param_value == s))
            .unwrap()
    };
    // The walk clip: its two markers, and a root motion track equal to the character's.
    let walk = &file.anims()[find("walk", None)];
    let events: Vec<(&str, f32)> = file.events()[walk.first_event as usize..]
        [..walk.event_count as usize]
        .iter()
        .map(|e| (file.str(e.name), e.time))
        .collect();
    assert_eq!(events, [("foot_l", 0.0), ("foot_r", 0.5)]);
    assert!(walk.flags & anim_flags::ROOT_MOTION != 0);
    let track = character.motion[character.model.find_clip("walk").unwrap()]
        .as_ref()
        .unwrap();
    let (travel, _) = track.cycle();
    assert_eq!(walk.cycle_motion[0], travel.x);
    assert_eq!(walk.cycle_motion[1], travel.y);
    // Walking inside the move state at its authored speed moves the same way per cycle
    // (tolerance: the state's motion is summed frame by frame, 20 steps of f32 sums).
    let moving = &file.anims()[find("move", Some(1.2))];
    assert!(moving.flags & anim_flags::ROOT_MOTION != 0);
    assert!((moving.cycle_motion[0] - travel.x).abs() < 1e-5);
    assert!((moving.cycle_motion[1] - travel.y).abs() < 1e-5);
    // Standing still plays idle only, which has no track.
    assert_eq!(
        file.anims()[find("move", Some(0.0))].flags & anim_flags::ROOT_MOTION,
        0
    );
    // The greet state at walking speed: feet from the walk each second, the wave's marker
    // at 0.25 s of its 2 s cycle; the state repeats after 2 s (two walk cycles, one wave).
    let greet = &file.anims()[find("greet", Some(1.2))];
    assert_eq!(greet.duration, 2.0);
    let names: Vec<(&str, f32)> = file.events()[greet.first_event as usize..]
        [..greet.event_count as usize]
        .iter()
        .map(|e| (file.str(e.name), e.time))
        .collect();
    let expected = [
        ("foot_l", 0.0),
        ("wave_peak", 0.25),
        ("foot_r", 0.5),
        ("foot_l", 1.0),
        ("foot_r", 1.5),
    ];
    assert_eq!(names.len(), expected.len(), "{names:?}");
    for ((n, t), (en, et)) in names.iter().zip(expected) {
        // Bisection of the crossing time stops within 2^-32 of the period; f32 sums of phases
        // put the crossing within a few ulps of the marker.
        assert!(*n == en && (t - et).abs() < 1e-4, "{names:?}");
    }
    // LODs: two levels, the second with about 30% of the triangles and a measured error.
    let ch = &file.characters()[0];
    assert_eq!(ch.lod_count, 2);
    let (lod0, lod1) = (&file.meshes()[0], &file.meshes()[1]);
    assert_eq!((lod0.lod, lod1.lod), (0, 1));
    let ratio = lod1.index_count as f32 / lod0.index_count as f32;
    assert!(
        (0.25..=0.35).contains(&ratio),
        "LOD 1 keeps {ratio} of the triangles"
    );
    assert!(lod1.error > 0.0 && lod0.error == 0.0);
    let (v, i) = file.mesh_data(1);
    assert!(i.iter().all(|&k| (k as usize) < v.len()));
}

#[test]
fn f16_over_budget_is_refused_unless_forced() {
    let mut recipe = Recipe::load(&fixture("walker-bake.toml")).unwrap();
    recipe.precision = PrecisionChoice::F16;
    // The mannequin measures about 0.07% of its height; a budget of 0.01% cannot hold.
    recipe.precision_budget = 0.0001;
    let e = bake(&recipe, &BakeOptions::default())
        .err()
        .unwrap()
        .to_string();
    // Said at the recipe's `precision` key (the fixture's line 4).
    assert!(
        e.contains("walker-bake.toml:4: precision: f16 texels would move vertices by up to")
            && e.contains("--force"),
        "{e}"
    );
    recipe.precision = PrecisionChoice::Auto;
    let b = bake(&recipe, &BakeOptions::default()).unwrap();
    assert_eq!(b.report.format, TexelFormat::Rgba32F);
    assert!(
        b.report.format_reason.contains("auto"),
        "{}",
        b.report.format_reason
    );
}

#[test]
fn root_motion_is_stored_per_frame_and_per_cycle() {
    // A two-joint model whose child travels 2 m along +x in 1 s; the character extracts it.
    let json = common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 1.0, 0.0, 2.0, 1.0, 0.0],
    );
    let model = common::write_gltf("root-motion", "slide.gltf", &json);
    let dir = model.parent().unwrap();
    std::fs::write(
        dir.join("slide.toml"),
        "model = \"slide.gltf\"\nroot_joint = \"child\"\n[clips.test]\nroot_motion = true\n[states.go]\nclip = \"test\"\n",
    )
    .unwrap();
    let recipe_path = dir.join("recipe.toml");
    std::fs::write(
        &recipe_path,
        "output = \"slide.throng\"\nfps = 10\nlods = [1.0]\n[[characters]]\ncharacter = \"slide.toml\"\n",
    )
    .unwrap();
    let (_, file, _) = bake_and_read(Recipe::load(&recipe_path).unwrap(), PrecisionChoice::F32);
    assert_eq!(file.anims().len(), 2, "the clip and the state");
    for r in file.anims() {
        assert!(r.flags & anim_flags::ROOT_MOTION != 0);
        // Extracted, the clip is in place, so it loops: 10 frames, no seam frame.
        assert_eq!(r.frame_count, 10);
        // Tolerance: the track is resampled at 60 keys/s and summed in f32.
        assert!(
            (r.cycle_motion[0] - 2.0).abs() < 1e-4 && r.cycle_motion[1].abs() < 1e-5,
            "{:?}",
            r.cycle_motion
        );
        for f in 0..r.frame_count {
            let m = &file.motion()[(r.first_motion + f) as usize];
            let t = f as f32 / 10.0;
            assert!(
                (m.x - 2.0 * t).abs() < 1e-4 && m.z.abs() < 1e-5 && m.yaw.abs() < 1e-5,
                "'{}' frame {f}: {m:?}",
                file.str(r.name)
            );
        }
    }
}

#[test]
fn an_overflow_names_the_joint_that_causes_it() {
    // A rotation key of length 1e20 (glTF wants unit quaternions; keys are used as written, as
    // players do): its matrix holds |q|^2 = 1e40, past f32's 3.4e38. No scale or height is
    // given, so the message must not blame them but the joint, its key and its value.
    let j = common::one_channel_model(
        "rotation",
        "LINEAR",
        &[0.0, 1.0],
        &[0.0, 0.0, 0.0, 1.0, 1e20, 0.0, 0.0, 0.0],
    );
    let path = common::write_gltf("overflow-rotation", "spin.gltf", &j);
    let options = BakeOptions {
        force: true,
        progress: None,
        ..Default::default()
    };
    let recipe = crate::common::bare_recipe(&path, Path::new("spin.throng"));
    let e = bake(&recipe, &options).err().expect("refused").to_string();
    for part in [
        "'spin'",
        "animation 'test'",
        "joint 'child'",
        "rotation",
        "1e20",
    ] {
        assert!(e.contains(part), "'{part}' missing: {e}");
    }
    assert!(!e.contains("scale") && !e.contains("height"), "{e}");
    // With a scale given, the joint is still the cause named; the scale is mentioned as well.
    let mut scaled = crate::common::bare_recipe(&path, Path::new("spin.throng"));
    scaled.characters[0].size = Size::Scale(Vec3::splat(2.0));
    let e = bake(&scaled, &options).err().expect("refused").to_string();
    assert!(e.contains("joint 'child'") && e.contains("scale"), "{e}");
}
