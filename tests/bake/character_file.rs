//! Character files: the shipped examples load, and malformed files fail with the exact message
//! (file, line, element).

use crate::common;

use std::path::Path;

use throng::character::Character;

/// Writes `body` after a `model = ...` line pointing at the committed mannequin and loads it.
fn load(tag: &str, body: &str) -> Result<Character, String> {
    let dir = common::temp_dir(tag);
    let model = common::mannequin_path();
    let text = format!("model = {:?}\n{body}", model.display().to_string());
    let path = dir.join("test.toml");
    std::fs::write(&path, text).unwrap();
    Character::load(&path).map_err(|e| e.to_string())
}

fn error(tag: &str, body: &str) -> String {
    match load(tag, body) {
        Ok(_) => panic!("{tag}: expected an error"),
        Err(e) => e,
    }
}

const STATES: &str = "\n[states.idle]\nclip = \"idle\"\n";

#[test]
fn shipped_examples_load() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let c = Character::load(&root.join("assets/mannequin.toml")).unwrap();
    let names: Vec<&str> = c.machine.states().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["greet", "halt", "move"]);
    assert_eq!(
        c.machine.states()[c.machine.instantiate(&c.model.skeleton).current()].name,
        "move"
    );
    assert_eq!(c.ik.len(), 2);
    assert_eq!(
        c.events[c.model.find_clip("walk").unwrap()].events().len(),
        2
    );
    if common::shared_asset("Fox.glb").is_some() {
        let fox = Character::load(&root.join("assets/fox.toml")).unwrap();
        assert_eq!(fox.machine.states().len(), 1);
    }
}

#[test]
fn missing_clip_names_the_state_and_lists_clips() {
    let msg = error("clip", "\n[states.jog]\nclip = \"Jogg\"\n");
    assert_eq!(
        msg,
        "test.toml:4: state 'jog' uses clip 'Jogg', which the model does not have; clips are: idle, walk, run, wave"
    );
}

#[test]
fn unknown_key_is_a_syntax_error_with_its_line() {
    let msg = error("key", "\n[states.idle]\nclip = \"idle\"\nspeeed = 2.0\n");
    assert!(
        msg.starts_with("test.toml:5: unknown key `speeed` in `states.idle`, expected one of"),
        "{msg}"
    );
}

#[test]
fn missing_parameter_and_wrong_kind() {
    let msg = error(
        "param",
        &format!(
            "{STATES}\n[states.run]\nblend1d = \"speed\"\nchildren = [{{ at = 0.0, clip = \"walk\" }}]\n"
        ),
    );
    assert_eq!(
        msg,
        "test.toml:7: state 'run' uses parameter 'speed', which is not declared; parameters are: (none)"
    );
    let msg = error(
        "kind",
        &format!(
            "initial = \"idle\"\n[parameters]\nwave = {{ type = \"bool\" }}\n{STATES}\n[states.run]\nblend1d = \"wave\"\nchildren = [{{ at = 0.0, clip = \"walk\" }}]\n"
        ),
    );
    assert_eq!(
        msg,
        "test.toml:10: state 'run' uses parameter 'wave' as float, but it is a bool"
    );
}

#[test]
fn tree_cycles_are_reported_with_the_path() {
    let msg = error(
        "cycle",
        "\n[trees.a]\ntree = \"b\"\n\n[trees.b]\ntree = \"a\"\n\n[states.s]\ntree = \"a\"\n",
    );
    assert_eq!(msg, "test.toml:7: tree 'a' contains itself: a -> b -> a");
}

#[test]
fn out_of_range_values() {
    let msg = error("speed", "\n[states.s]\nclip = \"walk\"\nspeed = -1.0\n");
    assert_eq!(
        msg,
        "test.toml:5: state 's': speed -1 must be a positive number"
    );
    let msg = error(
        "positions",
        "[parameters]\nspeed = { type = \"float\" }\n[states.s]\nblend1d = \"speed\"\nchildren = [{ at = 1.0, clip = \"walk\" }, { at = 0.5, clip = \"run\" }]\n",
    );
    assert_eq!(
        msg,
        "test.toml:6: state 's': blend1d positions must increase; 0.5 follows 1"
    );
    let msg = error("mask", "\n[masks.m]\nsubtree = \"spine\"\nweight = 1.5\n");
    assert_eq!(msg, "test.toml:5: mask 'm': weight 1.5 is outside [0, 1]");
    let msg = error(
        "event",
        "\n[clips.walk]\nevents = [{ name = \"late\", time = 5.0 }]\n",
    );
    assert_eq!(
        msg,
        "test.toml:4: clips.walk: event 'late' at 5 s is outside the clip (0 to 1 s)"
    );
}

#[test]
fn missing_joint_state_and_mask() {
    let msg = error("joint", "\n[masks.m]\nsubtree = \"spin\"\n");
    assert!(msg.starts_with("test.toml:4: mask 'm' names joint 'spin', which the skeleton does not have; joints are: hips, spine, "), "{msg}");
    let msg = error(
        "state",
        &format!("{STATES}\n[[transitions]]\nfrom = \"idle\"\nto = \"walking\"\nexit_time = 1.0\n"),
    );
    assert_eq!(
        msg,
        "test.toml:8: transition 1 (idle -> walking) names state 'walking', which is not defined; states are: idle"
    );
    let msg = error(
        "nomask",
        "\n[states.s]\nlayer = { clip = \"wave\" }\nbase = { clip = \"walk\" }\nmask = \"upper\"\n",
    );
    assert_eq!(
        msg,
        "test.toml:6: state 's' uses mask 'upper', which is not defined; masks are: (none)"
    );
}

#[test]
fn malformed_nodes_and_conditions() {
    let msg = error("two", "\n[states.s]\nclip = \"walk\"\ntree = \"x\"\n");
    assert_eq!(
        msg,
        "test.toml:3: state 's': a node needs exactly one of clip, tree, blend1d, layer, additive"
    );
    let msg = error(
        "cond",
        &format!(
            "[parameters]\nspeed = {{ type = \"float\" }}\n{STATES}\n[[transitions]]\nfrom = \"*\"\nto = \"idle\"\nwhen = [\"speed >> 2\"]\n"
        ),
    );
    assert_eq!(
        msg,
        "test.toml:11: transition 1 (* -> idle): condition 'speed >> 2': '> 2' is not a number"
    );
    let msg = error(
        "never",
        &format!("{STATES}\n[[transitions]]\nfrom = \"idle\"\nto = \"idle\"\n"),
    );
    assert_eq!(
        msg,
        "test.toml:6: transition 1 (idle -> idle) has neither 'when' conditions nor an 'exit_time', so it would fire at once"
    );
    let msg = error("nostates", "");
    assert_eq!(
        msg,
        "test.toml:1: no states: define at least one [states.NAME]"
    );
}

#[test]
fn bad_model_and_ik() {
    let dir = common::temp_dir("badmodel");
    let path = dir.join("c.toml");
    std::fs::write(&path, "model = \"nope.glb\"\n[states.s]\nclip = \"walk\"\n").unwrap();
    let msg = Character::load(&path).unwrap_err().to_string();
    assert!(
        msg.starts_with("c.toml:1: model: nope.glb: cannot read model"),
        "{msg}"
    );
    let msg = error(
        "ik",
        &format!(
            "{STATES}\n[[ik]]\nname = \"leg\"\ntype = \"two_bone\"\njoints = [\"thigh_l\", \"foot_l\"]\ntarget = \"ground\"\n"
        ),
    );
    assert_eq!(
        msg,
        "test.toml:9: ik 'leg': two_bone needs exactly 3 joints (root, middle, end)"
    );
    let msg = error(
        "ikchain",
        &format!(
            "{STATES}\n[[ik]]\nname = \"arm\"\ntype = \"fabrik\"\njoints = [\"upper_arm_l\", \"hand_l\"]\ntarget = [0.0, 1.0, 0.0]\n"
        ),
    );
    assert_eq!(
        msg,
        "test.toml:9: ik 'arm': 'upper_arm_l' is not the parent of 'hand_l'"
    );
}

#[test]
fn ik_chains_from_the_file_reach_their_targets() {
    use glam::{Mat4, Vec3};
    use throng::anim::local_to_model;
    let c = load(
        "ikfile",
        r#"
[states.idle]
clip = "idle"

[[ik]]
name = "reach"
type = "fabrik"
joints = ["upper_arm_r", "forearm_r", "hand_r"]
target = [-0.45, 1.25, 0.25]

[[ik]]
name = "reach_left"
type = "ccd"
joints = ["upper_arm_l", "forearm_l", "hand_l"]
target = [0.45, 1.25, 0.25]
iterations = 64

[[ik]]
name = "look"
type = "aim"
joints = ["head"]
target = [1.0, 1.6, 2.0]
"#,
    )
    .unwrap();
    let m = &c.model;
    let n = m.skeleton.len();
    let mut local = m.skeleton.rest().to_vec();
    let mut model = vec![Mat4::IDENTITY; n];
    local_to_model(&m.skeleton, &local, &mut model);
    let mut scratch = vec![Vec3::ZERO; c.ik_scratch_len()];
    c.apply_ik(&[], &mut local, &mut model, &mut scratch);
    // `model` stays consistent with `local`.
    let mut check = vec![Mat4::IDENTITY; n];
    local_to_model(&m.skeleton, &local, &mut check);
    for (a, b) in model.iter().zip(&check) {
        assert!(a.abs_diff_eq(*b, 1e-5));
    }
    let at = |name: &str| model[m.skeleton.find(name).unwrap()].w_axis.truncate();
    // 1e-3 m: both chains reach well within it (the solvers' default tolerance is 1e-4 m).
    assert!(
        at("hand_r").distance(Vec3::new(-0.45, 1.25, 0.25)) < 1e-3,
        "{}",
        at("hand_r")
    );
    assert!(
        at("hand_l").distance(Vec3::new(0.45, 1.25, 0.25)) < 1e-3,
        "{}",
        at("hand_l")
    );
    // The head's +Z axis points at the target: 1e-3 rad, since glam's angle_between itself is
    // imprecise near 0 (the solver is tested to 1e-4 rad with an exact measure).
    let head = model[m.skeleton.find("head").unwrap()];
    let forward = head.transform_vector3(Vec3::Z).normalize();
    let wanted = (Vec3::new(1.0, 1.6, 2.0) - head.w_axis.truncate()).normalize();
    assert!(
        forward.angle_between(wanted) < 1e-3,
        "{}",
        forward.angle_between(wanted)
    );
}
