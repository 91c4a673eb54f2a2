//! Cross-checks against independent implementations, run through Node.js from
//! `tools/gltf-reference` (install once with `npm ci --prefix tools/gltf-reference`):
//! - the Khronos glTF Validator finds no errors in the committed mannequin;
//! - `throng pose --positions` matches three.js's GLTFLoader + AnimationMixer (world matrices,
//!   skinning matrices and skinned vertices within 1e-4 of the model's size) on the mannequin and
//!   on every shared model.
//!
//! Without Node or the installed packages these tests print why and skip, unless
//! `THRONG_REQUIRE_REFERENCE=1` (CI sets it), where they fail instead.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn reference_dir() -> Option<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/gltf-reference");
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    let installed =
        dir.join("node_modules/three").is_dir() && dir.join("node_modules/gltf-validator").is_dir();
    if node_ok && installed {
        return Some(dir);
    }
    let why = if node_ok {
        "tools/gltf-reference/node_modules is missing (npm ci --prefix tools/gltf-reference)"
    } else {
        "node is not installed"
    };
    if std::env::var("THRONG_REQUIRE_REFERENCE").is_ok_and(|v| v == "1") {
        panic!("{why}, and THRONG_REQUIRE_REFERENCE=1");
    }
    eprintln!("skipped: {why}");
    None
}

fn run(cmd: &mut Command, stdout_to: Option<&Path>) -> String {
    if let Some(path) = stdout_to {
        cmd.stdout(std::fs::File::create(path).unwrap());
    }
    let out = cmd.output().unwrap_or_else(|e| panic!("{cmd:?}: {e}"));
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{cmd:?} failed:\n{text}");
    text
}

#[test]
fn mannequin_passes_the_khronos_validator() {
    let Some(dir) = reference_dir() else { return };
    let report = run(
        Command::new("node")
            .arg(dir.join("validate.mjs"))
            .arg(common::mannequin_path()),
        None,
    );
    assert!(report.contains("0 errors"), "{report}");
}

fn matches_three_js(model: &Path, tag: &str, reference_args: &[&str]) {
    let Some(dir) = reference_dir() else { return };
    let tmp = common::temp_dir(tag);
    let (ours, theirs) = (tmp.join("throng.json"), tmp.join("three.json"));
    // Between keys, on keys and past the end of short clips (clamped), for every clip.
    let times: Vec<String> = ["0", "0.137", "0.5", "0.9031", "1.6", "2.71", "100"]
        .iter()
        .flat_map(|t| ["--time".to_string(), t.to_string()])
        .collect();
    run(
        Command::new(env!("CARGO_BIN_EXE_throng"))
            .arg("pose")
            .arg(model)
            .arg("--positions")
            .args(&times),
        Some(&ours),
    );
    run(
        Command::new("node")
            .arg(dir.join("pose.mjs"))
            .arg(model)
            .arg("--positions")
            .args(&times)
            .args(reference_args),
        Some(&theirs),
    );
    let report = run(
        Command::new("node")
            .arg(dir.join("compare.mjs"))
            .arg(&theirs)
            .arg(&ours)
            .args(["--tol-frac", "1e-4"]),
        None,
    );
    eprintln!("{report}");
    assert!(report.contains("RESULT: OK"), "{report}");
}

#[test]
fn mannequin_matches_three_js() {
    matches_three_js(&common::mannequin_path(), "ref-mannequin", &[]);
}

#[test]
fn fox_matches_three_js() {
    if let Some(p) = common::shared_asset("Fox.glb") {
        matches_three_js(&p, "ref-fox", &[]);
    }
}

#[test]
fn cesium_man_matches_three_js() {
    // throng merges CesiumMan's per-joint animations by default; three.js plays them together.
    if let Some(p) = common::shared_asset("CesiumMan.glb") {
        matches_three_js(&p, "ref-cesium", &["--merge-animations"]);
    }
}

#[test]
fn robot_expressive_matches_three_js() {
    if let Some(p) = common::shared_asset("RobotExpressive.glb") {
        matches_three_js(&p, "ref-robot", &[]);
    }
}

#[test]
fn random_characters_match_three_js() {
    // Seeded random skinned characters (matrix nodes, negative scales, armature ancestors,
    // several skins and bind poses, rigid parts, sparse data, STEP/LINEAR/CUBICSPLINE) posed by
    // both tools at every key time, between keys and past the end. 40 cases keep the suite
    // fast; `node tools/gltf-reference/fuzz-parity.mjs --count 1000 ...` runs more.
    let Some(dir) = reference_dir() else { return };
    let report = run(
        Command::new("node").arg(dir.join("fuzz-parity.mjs")).args([
            "--throng",
            env!("CARGO_BIN_EXE_throng"),
            "--count",
            "40",
            "--seed",
            "7000",
            "--quiet",
        ]),
        None,
    );
    assert!(report.contains("40 passed, 0 failed"), "{report}");
}
