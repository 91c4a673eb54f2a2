//! The `throng` binary end to end: commands, JSON shapes, exit codes and error messages.

use crate::common;

use serde_json::Value;

use common::throng;

fn mannequin() -> String {
    common::mannequin_path().display().to_string()
}

#[test]
fn inspect_text_and_json() {
    let (code, out, _) = throng(&["inspect", &mannequin()]);
    assert_eq!(code, 0);
    assert!(
        out.contains("clips (4):") && out.contains("skinned"),
        "{out}"
    );
    let (code, out, _) = throng(&["inspect", &mannequin(), "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["joints"].as_array().unwrap().len(), 19);
    assert_eq!(v["clips"][1]["name"], "walk");
    assert_eq!(v["clips"][1]["interpolations"][0], "LINEAR");
    assert_eq!(v["meshes"][0]["binding"], "skinned");
}

#[test]
fn pose_json_follows_the_documented_schema() {
    let (code, out, err) = throng(&[
        "pose",
        &mannequin(),
        "--clip",
        "walk",
        "--time",
        "0.25",
        "--time",
        "9",
        "--positions",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let joints = v["joints"].as_array().unwrap();
    assert_eq!(joints[0]["name"], "hips");
    assert_eq!(joints[0]["node"], 1);
    assert!(joints[0]["parent"].is_null());
    assert_eq!(joints[1]["parent"], 0);
    assert_eq!(v["clips"].as_array().unwrap().len(), 4);
    let samples = v["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 2);
    assert_eq!(samples[0]["clip"], "walk");
    assert_eq!(samples[0]["time"], 0.25);
    assert_eq!(samples[0]["world"].as_array().unwrap().len(), 19);
    assert_eq!(samples[0]["world"][0].as_array().unwrap().len(), 16);
    assert_eq!(samples[0]["skin"].as_array().unwrap().len(), 19);
    let prim = &samples[0]["primitives"][0];
    assert_eq!(
        (
            prim["node"].as_u64(),
            prim["mesh"].as_u64(),
            prim["primitive"].as_u64()
        ),
        (Some(0), Some(0), Some(0))
    );
    assert!(prim["positions"].as_array().unwrap().len() >= 2000);
    // t = 9 s is clamped to the end (1 s), which equals the start pose of the loop.
    let end = &samples[1]["world"];
    let (_, out0, _) = throng(&["pose", &mannequin(), "--clip", "1", "--time", "1"]);
    let v0: Value = serde_json::from_str(&out0).unwrap();
    assert_eq!(end, &v0["samples"][0]["world"]);
}

#[test]
fn pose_defaults_to_start_and_middle_of_every_clip() {
    let (code, out, _) = throng(&["pose", &mannequin()]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    let samples = v["samples"].as_array().unwrap();
    assert_eq!(samples.len(), 8);
    assert_eq!(samples[2]["clip"], "walk");
    assert_eq!(samples[3]["time"], 0.5);
    assert!(samples[0].get("primitives").is_none());
}

#[test]
fn errors_name_the_problem_and_exit_non_zero() {
    let (code, _, err) = throng(&["pose", &mannequin(), "--clip", "jog"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no clip 'jog'") && err.contains("clips are: idle, walk, run, wave"),
        "{err}"
    );
    let (code, _, err) = throng(&["inspect", "/nonexistent/model.glb"]);
    assert_eq!(code, 1);
    assert!(
        err.contains("model.glb") && err.contains("cannot read"),
        "{err}"
    );
    let (code, _, err) = throng(&["pose", &mannequin(), "--time", "soon"]);
    assert_eq!(code, 2, "clap reports usage errors with status 2");
    assert!(err.contains("--time"), "{err}");
}

#[test]
fn gen_mannequin_writes_the_committed_bytes() {
    let dir = common::temp_dir("gen");
    let out = dir.join("sub/m.glb");
    let (code, stdout, err) = throng(&["gen-mannequin", "--out", out.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert!(stdout.contains("wrote"));
    assert_eq!(
        std::fs::read(&out).unwrap(),
        std::fs::read(common::mannequin_path()).unwrap()
    );
    // Nothing but the file is left beside it (no temporary of the atomic writer).
    let left: Vec<_> = std::fs::read_dir(out.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, [std::ffi::OsString::from("m.glb")]);
}

fn asset(name: &str) -> String {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("assets")
        .join(name)
        .display()
        .to_string()
}

#[test]
fn pose_evaluates_a_character_state() {
    let (code, out, err) = throng(&[
        "pose",
        "--character",
        &asset("mannequin.toml"),
        "--state",
        "greet",
        "--param",
        "speed=2.0",
        "--time",
        "0.5",
        "--positions",
    ]);
    assert_eq!(code, 0, "{err}");
    let v: Value = serde_json::from_str(&out).unwrap();
    let s = &v["samples"][0];
    assert_eq!(s["state"], "greet");
    assert!(s["clip"].is_null());
    assert_eq!(s["world"].as_array().unwrap().len(), 19);
    assert!(s["primitives"][0]["positions"].as_array().unwrap().len() >= 2000);
    // The waving hand is above the head; the same state without waving keeps it low.
    let hand_y = |v: &Value| v["samples"][0]["world"][12][13].as_f64().unwrap();
    let (_, plain, _) = throng(&[
        "pose",
        "--character",
        &asset("mannequin.toml"),
        "--state",
        "move",
        "--param",
        "speed=2.0",
        "--time",
        "0.5",
    ]);
    let plain: Value = serde_json::from_str(&plain).unwrap();
    assert!(
        hand_y(&v) > 1.4 && hand_y(&plain) < 1.2,
        "{} vs {}",
        hand_y(&v),
        hand_y(&plain)
    );
    let (code, _, err) = throng(&[
        "pose",
        "--character",
        &asset("mannequin.toml"),
        "--param",
        "sped=1",
    ]);
    assert_eq!(code, 1);
    assert!(
        err.contains("no parameter 'sped'; parameters are: speed, stop, wave"),
        "{err}"
    );
}

#[test]
fn play_prints_states_transitions_and_events_per_step() {
    let (code, out, err) = throng(&[
        "play",
        &asset("mannequin.toml"),
        "--script",
        &asset("mannequin-play.toml"),
    ]);
    assert_eq!(code, 0, "{err}");
    let lines: Vec<Value> = out
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(lines.len(), 300);
    let fired: Vec<(u64, String)> = lines
        .iter()
        .filter(|l| l.get("fired").is_some())
        .map(|l| {
            (
                l["step"].as_u64().unwrap(),
                l["fired"]["to"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(
        fired,
        vec![
            (120, "greet".into()),
            (180, "move".into()),
            (200, "halt".into()),
            (261, "move".into())
        ]
    );
    for l in &lines {
        let total: f64 = l["active"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a["weight"].as_f64().unwrap())
            .sum();
        assert!((total - 1.0).abs() < 1e-5, "{l}");
    }
    let feet = lines
        .iter()
        .flat_map(|l| l["events"].as_array().unwrap().iter())
        .filter(|e| e["event"].as_str().unwrap().starts_with("foot"))
        .count();
    assert!(feet > 8, "{feet} footsteps");
    // A script naming an unknown parameter fails before printing anything, with its line.
    let dir = common::temp_dir("play");
    let script = dir.join("bad.toml");
    std::fs::write(&script, "steps = 10\n[[set]]\nstep = 1\nsped = 2.0\n").unwrap();
    let (code, out, err) = throng(&[
        "play",
        &asset("mannequin.toml"),
        "--script",
        script.to_str().unwrap(),
    ]);
    assert_eq!(code, 1);
    assert!(out.is_empty());
    assert!(
        err.contains("bad.toml:4:") && err.contains("has no parameter 'sped'"),
        "{err}"
    );
}
