//! `throng bake`, `throng inspect FILE.throng` and `throng export-texture` end to end: the
//! summary, idempotent re-bakes, JSON, images, and clear errors that leave existing files alone.

use crate::common;

use std::path::{Path, PathBuf};

use serde_json::Value;

use common::throng;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// A copy of the walker test character and its recipe in a fresh folder (so the recipe's
/// relative output lands there), returning the recipe path.
fn walker(tag: &str) -> PathBuf {
    let dir = common::temp_dir(tag);
    let fixtures = root().join("tests/fixtures");
    let character = std::fs::read_to_string(fixtures.join("walker.toml"))
        .unwrap()
        .replace(
            "../../assets/mannequin.glb",
            &common::mannequin_path().display().to_string(),
        );
    std::fs::write(dir.join("walker.toml"), character).unwrap();
    let recipe = dir.join("walker-bake.toml");
    std::fs::copy(fixtures.join("walker-bake.toml"), &recipe).unwrap();
    recipe
}

#[test]
fn bake_prints_a_summary_then_finds_the_file_up_to_date() {
    let recipe = walker("cli-bake");
    let out_file = recipe.with_file_name("walker.throng");
    let r = recipe.display().to_string();
    let (code, out, err) = throng(&["bake", &r]);
    assert_eq!(code, 0, "{err}");
    for part in [
        "baked ",
        "walker.throng",
        "1 characters",
        "precision: f32 (asked for)",
        "character 'walker': 19 joints",
        "state greet speed=1.2",
        "interpolation error",
        "root motion",
        "skeleton LOD: LOD 1 skins ",
        "  impostors: 9×9 views, 16 px cells, ",
    ] {
        assert!(out.contains(part), "missing {part:?} in:\n{out}");
    }
    let before = std::fs::read(&out_file).unwrap();
    let (code, out, _) = throng(&["bake", &r]);
    assert_eq!(code, 0);
    assert!(out.contains("is up to date"), "{out}");
    // A changed input bakes again; the output is the same file, rewritten.
    let text = std::fs::read_to_string(&recipe)
        .unwrap()
        .replace("fps = 20", "fps = 10");
    std::fs::write(&recipe, text).unwrap();
    let (code, out, _) = throng(&["bake", &r, "--quiet"]);
    assert_eq!((code, out.as_str()), (0, ""));
    let after = std::fs::read(&out_file).unwrap();
    assert_ne!(before, after);
    // --rebuild bakes although nothing changed, and gives the same bytes (bakes are
    // deterministic).
    let (code, out, _) = throng(&["bake", &r, "--rebuild"]);
    assert!(code == 0 && out.starts_with("baked "), "{out}");
    assert_eq!(std::fs::read(&out_file).unwrap(), after);
}

#[test]
fn inspect_and_export_texture_read_a_bake() {
    let recipe = walker("cli-inspect");
    let file = recipe.with_file_name("w.throng");
    let f = file.display().to_string();
    let (code, _, err) = throng(&["bake", &recipe.display().to_string(), "-o", &f, "-q"]);
    assert_eq!(code, 0, "{err}");
    let (code, out, _) = throng(&["inspect", &f]);
    assert_eq!(code, 0);
    for part in [
        "throng format 1.4",
        "height 1.794 m, facing not turned",
        // The default impostor settings: 9 × 9 views of 16 px, the walker's 12 animations at
        // 8 to 16 frames each, from LOD 1 (the coarsest within half a supersample).
        "  impostors: 9×9 views, 16 px cells, 152 frames from LOD 1, 25,214,976 bytes",
        "speed m/s",
        "rgba32f texels",
        "TEXL",
        "character 'walker'",
        "foot_l@0.000",
        "LOD 1 (ratio 0.3)",
        "error 0 m, skins 19 of 19 joints",
    ] {
        assert!(out.contains(part), "missing {part:?} in:\n{out}");
    }
    let (code, out, _) = throng(&["inspect", &f, "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["version"], "1.4");
    // The walker walks along +z: no facing turn.
    assert_eq!(v["characters"][0]["facing_turns"], 0);
    // Impostors (format 1.4): the character's atlas, and idle's 16 frames (4 s at 8 a
    // second, at most 16) first.
    let imp = &v["characters"][0]["impostor"];
    assert_eq!(
        (&imp["views"], &imp["cell"], &imp["frame_count"]),
        (&9.into(), &16.into(), &152.into()),
        "{imp}"
    );
    assert_eq!(
        v["characters"][0]["anims"][0]["impostor"],
        serde_json::json!({"first_frame": 0, "frame_count": 16})
    );
    // The committed 1.4 fixture has a small atlas: its line says its size.
    let fixture = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/format-1.4.throng"
    );
    let (code, out, _) = throng(&["inspect", fixture]);
    assert_eq!(code, 0);
    let line = "  impostors: 3×3 views, 2 px cells, 7 frames from LOD 0, 2,016 bytes";
    assert!(out.contains(line), "missing {line:?} in:\n{out}");
    // Skeleton LOD (format 1.3): LOD 0 keeps all 19 joints, a far level skins with fewer; the
    // counts are those of the maps.
    let counts = v["characters"][0]["lod_joint_counts"].as_array().unwrap();
    let maps = v["characters"][0]["lod_joints"].as_array().unwrap();
    assert_eq!(counts.len(), maps.len());
    assert_eq!(counts[0], 19);
    assert!(
        counts.iter().skip(1).any(|k| k.as_u64() < Some(19)),
        "{counts:?}"
    );
    for (k, m) in counts.iter().zip(maps) {
        let m = m.as_array().unwrap();
        let kept = m
            .iter()
            .enumerate()
            .filter(|(j, t)| t.as_u64() == Some(*j as u64));
        assert_eq!(k.as_u64(), Some(kept.count() as u64));
    }
    let joints = v["characters"][0]["joints"].as_array().unwrap();
    assert_eq!(joints.len(), 19);
    assert!(
        joints.iter().all(|j| j["node"].is_u64()),
        "every joint has its glTF node"
    );
    let anims = v["characters"][0]["anims"].as_array().unwrap();
    assert!(
        anims
            .iter()
            .any(|a| a["name"] == "greet" && a["param"] == "speed")
    );
    // Format 1.1 per animation: a looping state at `speed` has a ground speed (its root
    // motion's when it has one, else the parameter's) and names its state and parameters; a
    // clip names its glTF animation; the mannequin's walk and run, bare clips without root
    // motion, have the speed measured from their feet and its slide.
    for a in anims {
        if a["kind"] == "clip" {
            assert!(
                a["source"]["gltf_animations"]
                    .as_array()
                    .is_some_and(|g| g.len() == 1),
                "{a}"
            );
            if (a["name"] == "walk" || a["name"] == "run") && a.get("cycle_motion").is_none() {
                assert!(
                    a["ground_speed"].is_number() && a["foot_slide"].is_number(),
                    "{a}"
                );
            }
        }
        if a.get("cycle_motion").is_some() {
            assert!(
                a["foot_slide"].is_null(),
                "root motion is not measured: {a}"
            );
        }
        if a["kind"] == "state" && a["param"] == "speed" && a["looping"] == true {
            assert!(a["ground_speed"].is_number(), "{a}");
            if a.get("cycle_motion").is_none() {
                assert_eq!(a["ground_speed"], a["param_value"], "{a}");
            }
            assert!(a["source"]["state"].is_u64(), "{a}");
            assert!(
                a["source"]["params"]
                    .as_array()
                    .is_some_and(|p| !p.is_empty()),
                "{a}"
            );
        }
    }
    assert_eq!(
        v["metadata"]["tool"],
        format!("throng {}", env!("CARGO_PKG_VERSION"))
    );

    let texels = v["texel_count"].as_u64().unwrap();
    for ext in ["png", "exr"] {
        let img = recipe.with_file_name(format!("t.{ext}"));
        let (code, out, err) = throng(&["export-texture", &f, &img.display().to_string()]);
        assert_eq!(code, 0, "{err}");
        assert!(out.contains(&format!("texels of {texels}")), "{out}");
        let decoded = image::open(&img).unwrap();
        // Default width: 3 texels per joint, one frame per row.
        assert_eq!(decoded.width(), 57);
        assert_eq!(u64::from(decoded.height()), texels.div_ceil(57));
        if ext == "exr" {
            // Floats survive: texel 0 is row 0 of frame 0's first joint, a rotation row.
            let px = decoded.to_rgba32f();
            let r = px.get_pixel(0, 0).0;
            let len = (r[0] * r[0] + r[1] * r[1] + r[2] * r[2]).sqrt();
            assert!((len - 1.0).abs() < 1e-4, "{r:?}");
        }
    }
    let (code, _, err) = throng(&["export-texture", &f, "t.jpg"]);
    assert!(
        code != 0 && err.contains("give an output ending in .exr"),
        "{err}"
    );
}

/// The LOD errors a text names: `(error X)` in the summary's character line, `error X` at
/// the end of inspect's LOD lines.
fn lod_errors(text: &str) -> Vec<String> {
    let summary = text
        .lines()
        .filter(|l| l.starts_with("character '"))
        .flat_map(|l| l.split("(error ").skip(1))
        .map(|e| e.split(')').next().unwrap_or("").to_string());
    let inspect = text
        .lines()
        .filter(|l| l.trim_start().starts_with("LOD "))
        .filter_map(|l| l.rsplit_once(", error ").map(|(_, e)| e.to_string()))
        // The joints it skins with follow the error.
        .map(|e| e.split(',').next().unwrap_or("").to_string());
    summary.chain(inspect).collect()
}

/// Lengths print in metres, in the same words in `throng bake`'s summary and in `inspect`;
/// each looping clip without a ground speed says why, once, in the summary, in inspect's text
/// and in its JSON (`no_ground_speed`, kept in the file's metadata).
#[test]
fn summary_and_inspect_say_metres_and_why_a_loop_has_no_ground_speed() {
    let recipe = walker("cli-metres");
    let file = recipe.with_file_name("w.throng");
    let f = file.display().to_string();
    let (code, summary, err) = throng(&["bake", &recipe.display().to_string(), "-o", &f]);
    assert_eq!(code, 0, "{err}");
    let (code, text, _) = throng(&["inspect", &f]);
    assert_eq!(code, 0);
    let (baked, inspected) = (lod_errors(&summary), lod_errors(&text));
    // walker-bake.toml asks for two LOD levels.
    assert_eq!(baked.len(), 2, "{summary}");
    assert_eq!(baked, inspected, "summary:\n{summary}\ninspect:\n{text}");
    assert_eq!(baked[0], "0 m");
    assert!(
        baked[1].ends_with(" mm") || baked[1].ends_with(" cm"),
        "{baked:?}"
    );
    assert!(
        summary.contains("height 1.") && summary.contains(" m; LOD"),
        "{summary}"
    );

    let (code, json, _) = throng(&["inspect", &f, "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    let anims = v["characters"][0]["anims"].as_array().unwrap();
    let why: Vec<(&str, &str)> = anims
        .iter()
        .filter_map(|a| Some((a["name"].as_str()?, a["no_ground_speed"].as_str()?)))
        .collect();
    // The walker's idle clip loops in place: its feet never lift.
    assert!(
        why.iter()
            .any(|(n, w)| *n == "idle" && w.contains("never lifts")),
        "{why:?}"
    );
    for a in anims {
        let has = a["no_ground_speed"].is_string();
        assert_eq!(
            has,
            a["looping"] == true && a["ground_speed"].is_null(),
            "a reason exactly for each loop without a ground speed: {a}"
        );
    }
    // Each reason once per animation that has it (two clips may have the same).
    for (name, w) in &why {
        let line = format!("no ground speed: {w}\n");
        let times = why.iter().filter(|(_, x)| x == w).count();
        for (what, out) in [("summary", &summary), ("inspect", &text)] {
            assert_eq!(
                out.matches(&line).count(),
                times,
                "{name} in the {what}:\n{out}"
            );
        }
    }
    assert_eq!(
        summary.matches("no ground speed: ").count(),
        why.len(),
        "{summary}"
    );
    let listed = v["metadata"]["no_ground_speed"]
        .as_array()
        .map_or(0, Vec::len);
    assert_eq!(listed, why.len(), "{}", v["metadata"]);
}

#[test]
fn bad_input_is_named_and_leaves_existing_files_alone() {
    let dir = common::temp_dir("cli-bad-bake");
    let d = |n: &str| dir.join(n).display().to_string();
    // A recipe with a mistake: the error names the file and line; nothing is written.
    std::fs::write(
        dir.join("r.toml"),
        "output = \"x.throng\"\nfps = \"fast\"\n[[characters]]\nmodel = \"a.glb\"\n",
    )
    .unwrap();
    let (code, _, err) = throng(&["bake", &d("r.toml")]);
    assert!(
        code != 0 && err.contains("r.toml") && err.contains("'fast' is not a frame rate"),
        "{err}"
    );
    assert!(!dir.join("x.throng").exists());
    // A model that is missing.
    let (code, _, err) = throng(&["bake", &d("missing.glb"), "-o", &d("m.throng")]);
    assert!(code != 0 && err.contains("missing.glb"), "{err}");
    // Not a recipe or a model.
    let (code, _, err) = throng(&["bake", &d("notes.txt")]);
    assert!(
        code != 0 && err.contains("give a recipe (.toml) or a glTF model"),
        "{err}"
    );
    // An over-budget f16 bake is refused, and the file it would replace is untouched.
    let keep = dir.join("keep.throng");
    std::fs::write(&keep, b"precious").unwrap();
    std::fs::write(
        dir.join("f16.toml"),
        format!(
            "output = \"keep.throng\"\nprecision = \"f16\"\nmax_precision_error = 0.00001\n[[characters]]\nmodel = {:?}\n",
            common::mannequin_path().display().to_string()
        ),
    )
    .unwrap();
    let (code, _, err) = throng(&["bake", &d("f16.toml"), "-q"]);
    assert!(
        code != 0 && err.contains("f16 texels would move vertices"),
        "{err}"
    );
    assert_eq!(std::fs::read(&keep).unwrap(), b"precious");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    // A damaged .throng file: inspect says what is wrong, by name.
    let bytes = std::fs::read(root().join("tests/fixtures/format-1.0.throng")).unwrap();
    let mut bad = bytes.clone();
    bad[3000] ^= 4;
    std::fs::write(dir.join("bad.throng"), &bad).unwrap();
    let (code, _, err) = throng(&["inspect", &d("bad.throng")]);
    assert!(
        code != 0 && err.contains("bad.throng: content checksum"),
        "{err}"
    );
    std::fs::write(dir.join("cut.throng"), &bytes[..2000]).unwrap();
    let (code, _, err) = throng(&["export-texture", &d("cut.throng"), &d("o.png")]);
    assert!(code != 0 && err.contains("truncated"), "{err}");
    assert!(!dir.join("o.png").exists());
}

#[test]
fn bake_help_explains_inputs_and_options() {
    let (code, out, _) = throng(&["bake", "--help"]);
    assert_eq!(code, 0);
    for part in [
        "RECIPE",
        "--force",
        "--rebuild",
        "docs/BAKING.md",
        "bake/mannequin.toml",
    ] {
        assert!(out.contains(part), "missing {part:?} in:\n{out}");
    }
}

#[test]
fn a_bare_bake_names_the_clips_over_the_interpolation_budget() {
    // The Fox baked bare at the default 30 fps: its Walk and Run stray 4.2% and 2.5% of its
    // height between frames, past the 0.5% budget an "auto" rate keeps; its Survey, 0.4%,
    // does not. Each clip over the budget says so once, under its row; a recipe asking for
    // "auto" keeps the budget and says nothing.
    let Some(fox) = common::shared_asset("Fox.glb") else {
        return;
    };
    let dir = common::temp_dir("over-budget");
    let out = dir.join("fox.throng");
    let (code, text, err) = throng(&[
        "bake",
        &fox.display().to_string(),
        "-o",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{err}");
    let over: Vec<&str> = text
        .lines()
        .filter(|l| l.contains("over the interpolation budget"))
        .collect();
    assert_eq!(over.len(), 2, "{text}");
    let rows: Vec<&str> = text.lines().collect();
    for clip in ["Walk", "Run"] {
        let at = rows
            .iter()
            .position(|l| l.starts_with("  clip") && l.split_whitespace().nth(1) == Some(clip))
            .unwrap_or_else(|| panic!("no row of {clip}\n{text}"));
        let said = rows[at + 1..]
            .iter()
            .take_while(|l| l.starts_with("        "))
            .filter(|l| l.contains("over the interpolation budget"))
            .count();
        assert_eq!(said, 1, "{clip}\n{text}");
    }
    assert!(
        over[0].contains("at 30 fps, the budget is 0.5%"),
        "{}",
        over[0]
    );
    assert!(over[0].contains("fps = \"auto\""), "{}", over[0]);
    let recipe = dir.join("auto.toml");
    std::fs::write(
        &recipe,
        format!(
            "output = \"auto.throng\"\nfps = \"auto\"\n[[characters]]\nmodel = {:?}\n",
            fox.display().to_string()
        ),
    )
    .unwrap();
    let (code, text, err) = throng(&["bake", &recipe.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(!text.contains("over the interpolation budget"), "{text}");
}

/// A bare bake of the mannequin variant facing −z is turned half round: the summary notes it,
/// and `inspect` shows the turn the file records (format 1.2), in text and in JSON.
#[test]
fn summary_and_inspect_say_the_facing_turn() {
    let dir = common::temp_dir("cli-facing");
    let (model, file) = (dir.join("back.glb"), dir.join("back.throng"));
    let (m, f) = (model.display().to_string(), file.display().to_string());
    let (code, _, err) = throng(&["gen-mannequin", "--variant", "mixamo-back", "-o", &m]);
    assert_eq!(code, 0, "{err}");
    let (code, summary, err) = throng(&["bake", &m, "-o", &f]);
    assert_eq!(code, 0, "{err}");
    assert!(summary.contains("turned 180° about +y"), "{summary}");
    let (code, text, _) = throng(&["inspect", &f]);
    assert_eq!(code, 0);
    assert!(
        text.contains("facing turned 180° about +y (2 quarter turns)"),
        "{text}"
    );
    let (code, json, _) = throng(&["inspect", &f, "--json"]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["characters"][0]["facing_turns"], 2);
}
