//! The hybrid path's live tier on the mannequin bake, on the CPU (no device needed): live
//! evaluation poses what the bake holds (the mannequin crowd's states, a bare Fox), foot IK
//! puts the feet on the steps, handoffs show no jump, the tier keeps to `live_max`, and a bake
//! whose sources are gone is posed from its texels, saying why.

use crate::common;

use common::gpu::mannequin_bake;
use std::sync::Arc;

use glam::{Mat4, Vec3};
use throng::bake::{BakeOptions, Recipe, Replay, bake};
use throng::crowd::Terrain;
use throng::crowd::{LodPresets, Playback, Plaza, PlazaSettings, View};
use throng::format::ThrongFile;
use throng::hybrid::pose::{LivePlacement, bake_pose, foot_errors, foot_ik, largest_gap};
use throng::hybrid::{LiveRig, LiveTier, quantile_abs};
use throng::import::ExternalFiles;

fn open() -> Arc<ThrongFile> {
    Arc::new(ThrongFile::open(mannequin_bake()).unwrap())
}

/// The idle mannequin at `x`, z 0, facing +z on the relief: its pose in the bake, and the
/// ground under its two feet's contact points.
fn idle_at(file: &ThrongFile, rig: &LiveRig, x: f32) -> (LivePlacement, Vec<Mat4>, Vec<f32>) {
    let terrain = Terrain::Relief;
    let anim = file
        .find_anim(0, "idle")
        .expect("the mannequin bake has idle") as u32;
    let pose = Playback {
        anim_a: anim,
        ..Playback::default()
    }
    .frame_pose(file);
    let mut skin = vec![Mat4::IDENTITY; rig.joints];
    bake_pose(rig, &file.texels(), &pose, &mut skin);
    let at = LivePlacement {
        position: Vec3::new(x, terrain.height(x, 0.0), 0.0),
        heading: 0.0,
        scale: 1.0,
    };
    let mut probe = skin.clone();
    let contacts = foot_ik(rig, &at, terrain, 0.0, &mut probe);
    let grounds = (0..contacts.count)
        .map(|i| {
            let w = at.world(contacts.contact[i]);
            terrain.height(w.x, w.z)
        })
        .collect();
    (at, skin, grounds)
}

#[test]
fn ik_puts_both_feet_on_the_steps_where_the_bake_leaves_one_in_the_air() {
    let file = open();
    let rig = LiveRig::new(&file, 0).unwrap();
    assert_eq!(rig.feet.len(), 2, "the mannequin has two feet with legs");
    assert!(rig.head.is_some(), "the mannequin has a head to turn");
    // Up the terrace's −x steps: the first place where the feet stand a whole step apart.
    let x = (0..300)
        .map(|i| 2.0 + i as f32 * 0.01)
        .find(|&x| {
            let (_, _, g) = idle_at(&file, &rig, x);
            (g[0] - g[1]).abs() > 0.1
        })
        .expect("somewhere on the steps the feet stand on different treads");
    let (at, baked, grounds) = idle_at(&file, &rig, x);
    let terrain = Terrain::Relief;
    let mut live = baked.clone();
    let contacts = foot_ik(&rig, &at, terrain, 1.0, &mut live);
    let mut errors = (Vec::new(), Vec::new());
    foot_errors(&rig, &at, terrain, &contacts, &live, &mut |e| {
        errors.0.push(e)
    });
    foot_errors(&rig, &at, terrain, &contacts, &baked, &mut |e| {
        errors.1.push(e)
    });
    println!(
        "x {x}: grounds {grounds:?}, live {:?}, baked {:?}",
        errors.0, errors.1
    );
    assert_eq!(errors.0.len(), 2, "both idle feet are planted");
    // 2 mm: the leg solve stops 0.1% of the leg's length short of full reach and bends by
    // acos near the ends; what is left is f32 rounding over a few matrix products.
    for e in &errors.0 {
        assert!(e.abs() < 0.002, "a live foot is {e} m off its tread");
    }
    // The bake's pose stands on the ground under the agent's origin: one foot a step off.
    let worst = errors.1.iter().fold(0f32, |m, e| m.max(e.abs()));
    assert!(
        worst > 0.1,
        "the baked feet were already on the steps ({worst} m)"
    );
}

/// A crowd of `count` on the relief, with the balanced preset's live tier capped at `max`.
fn plaza(file: &Arc<ThrongFile>, count: usize, max: u32) -> Plaza {
    let mut policy = LodPresets::builtin().get("balanced").unwrap().clone();
    policy.live_max = max;
    policy.live_distance = 30.0;
    let settings = PlazaSettings {
        count,
        seed: 3,
        terrain: Terrain::Relief,
        ..PlazaSettings::default()
    };
    Plaza::new(file.clone(), &settings, policy).unwrap()
}

/// Frame `k` of a camera sweeping over the terrace and back, so agents join and leave.
fn sweep(k: usize) -> View {
    let t = k as f32 / 60.0;
    let eye = Vec3::new(8.0 + 25.0 * (t * 0.8).sin(), 5.0, 16.0);
    let target = eye + Vec3::new(0.0, -4.0, -14.0);
    let view = glam::camera::rh::view::look_at_mat4(eye, target, Vec3::Y);
    let proj = glam::camera::rh::proj::directx::perspective(1.0, 16.0 / 9.0, 0.1, 300.0);
    View {
        view_proj: proj * view,
        eye,
    }
}

#[test]
fn handoffs_round_trip_without_a_jump_and_the_tier_keeps_to_live_max() {
    let file = open();
    let max = 40;
    let mut plaza = plaza(&file, 3000, max);
    let mut tier = LiveTier::new(&file).unwrap();
    assert!(tier.is_evaluated(), "{:?}", tier.why_baked());
    tier.set_measuring(true);
    let mut most = 0;
    for k in 0..480 {
        let view = sweep(k);
        plaza.update(1.0 / 60.0, &view);
        let crowd = plaza.crowd_mut();
        // Heads turn toward the camera too: the handoff blend fades the turn in and out.
        tier.set_look_at(Some(view.eye));
        let live: usize = crowd
            .draws()
            .iter()
            .filter(|d| d.live)
            .map(|d| d.slots.len())
            .sum();
        assert!(
            live <= max as usize,
            "frame {k}: {live} live agents, live_max {max}"
        );
        most = most.max(live);
        let stats = tier.evaluate(&file, crowd, Terrain::Relief);
        assert_eq!(stats.agents, live);
        crowd.clear_dirty();
    }
    let m = tier.measures().unwrap();
    let p99 = quantile_abs(&m.jumps, 0.99);
    let max_jump = quantile_abs(&m.jumps, 1.0);
    let (live_p99, baked_p99) = (
        quantile_abs(&m.live_errors, 0.99),
        quantile_abs(&m.baked_errors, 0.99),
    );
    println!(
        "most live {most}; {} joins, {} leaves; jump p99 {p99:.4}% max {max_jump:.4}%; \
         foot p99 live {live_p99:.4} m baked {baked_p99:.4} m over {} feet",
        m.joins,
        m.leaves,
        m.live_errors.len()
    );
    assert_eq!(most, max as usize, "the tier fills up to live_max");
    assert!(
        m.joins > 20 && m.leaves > 20,
        "agents join and leave the tier"
    );
    // The limit: a handoff moves no joint by more than 1% of the height beyond the
    // agent's own motion.
    assert!(max_jump < 1.0, "a handoff jumped {max_jump}% of the height");
    // Live feet on the ground within the 2 cm; the bake's are not, on this ground.
    assert!(live_p99 < 0.02, "live feet p99 {live_p99} m off the ground");
    assert!(
        baked_p99 > 0.02,
        "the baked feet were already on the ground ({baked_p99} m)"
    );
}

/// The largest joint gap (metres) between `replay`'s pose and the bake's texels over every
/// frame of every animation of `file`, and the largest f16 error the bake reports (metres).
fn replay_against_bake(file: &ThrongFile, replay: &Replay) -> (f32, f32) {
    let at = LivePlacement {
        position: Vec3::ZERO,
        heading: 0.0,
        scale: 1.0,
    };
    let rigs: Vec<LiveRig> = (0..file.characters().len())
        .map(|c| LiveRig::new(file, c).unwrap())
        .collect();
    let mut posers: Vec<_> = (0..replay.characters()).map(|c| replay.poser(c)).collect();
    let (mut worst, mut f16) = (0f32, 0f32);
    for (i, a) in file.anims().iter().enumerate() {
        let rig = &rigs[a.character as usize];
        let (mut live, mut baked) = (
            vec![Mat4::IDENTITY; rig.joints],
            vec![Mat4::IDENTITY; rig.joints],
        );
        f16 = f16.max(a.precision_error);
        for f in 0..a.frame_count {
            // The time of frame f, as the crowd plays it.
            let t = f as f32 / a.fps.max(1e-6);
            let pose = Playback {
                anim_a: i as u32,
                time_a: t,
                anim_b: i as u32,
                time_b: t,
                ..Playback::default()
            }
            .frame_pose(file);
            bake_pose(rig, &file.texels(), &pose, &mut baked);
            replay.pose(i, t, &mut posers[a.character as usize], &mut live);
            worst = worst.max(largest_gap(rig, &at, &live, &baked));
        }
    }
    (worst, f16)
}

/// A bare model's bake with the defaults, written into `dir` and opened.
fn bake_model(model: &std::path::Path, dir: &std::path::Path) -> ThrongFile {
    let stem = model.file_stem().unwrap().to_string_lossy().into_owned();
    let recipe = Recipe::for_model(model, &dir.join(format!("{stem}.throng")));
    bake(&recipe, &BakeOptions::default())
        .unwrap()
        .builder
        .write(&recipe.output)
        .unwrap();
    ThrongFile::open(&recipe.output).unwrap()
}

/// `file`'s replay holds every frame the bake holds: the gap is the texels' own rounding.
fn assert_replays(file: &ThrongFile, what: &str) {
    let replay = Replay::of_file(file, ExternalFiles::default()).unwrap();
    let (gap, f16) = replay_against_bake(file, &replay);
    println!("{what}: replay vs bake, largest joint gap {gap:.3e} m (f16 error {f16:.3e} m)");
    // f16 rounds a translation of up to 2 m by up to 0.5 mm and a rotation entry by up to
    // 2.4e-4, moved through a joint's reach (up to 2 m): up to about 1.5 mm in all; a frame
    // time read back through its fps adds interpolation of at most a few µs of motion.
    assert!(gap < 0.0015, "{what}: the replay is {gap} m off the bake");
}

#[test]
fn replay_poses_every_baked_frame_of_the_mannequin_crowd_as_the_bake_holds_it() {
    let file = open();
    assert_replays(&file, "mannequin crowd (states, blend trees, IK)");
    let tier = LiveTier::new(&file).unwrap();
    assert!(tier.is_evaluated(), "{:?}", tier.why_baked());
}

#[test]
fn replay_poses_a_bare_fox_as_its_bake_holds_it_scaled_and_foot_locked() {
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let file = bake_model(&fox, &common::temp_dir("replay-fox"));
    assert_replays(
        &file,
        "bare Fox (centimetres scaled, Walk and Run feet locked)",
    );
}

#[test]
fn a_bake_whose_model_is_gone_is_posed_from_its_texels_and_says_why() {
    let dir = common::temp_dir("replay-gone");
    let model = dir.join("m.glb");
    std::fs::copy(common::mannequin_path(), &model).unwrap();
    let file = bake_model(&model, &dir);
    assert!(LiveTier::new(&file).unwrap().is_evaluated());
    std::fs::write(&model, b"not a model any more").unwrap();
    let e = Replay::of_file(&file, ExternalFiles::default())
        .err()
        .expect("a changed model is refused")
        .to_string();
    assert!(
        e.contains("m.throng") && e.contains("changed, moved or are missing"),
        "{e}"
    );
    let tier = LiveTier::new(&file).unwrap();
    assert!(!tier.is_evaluated());
    assert_eq!(tier.why_baked(), Some(e.as_str()));
}
