//! Cross-checks `throng inspect FILE.throng --json` against an independent reader of the
//! format, `tools/throng-reader` (JavaScript, no dependencies), written from docs/FORMAT.md
//! alone: if the two agree on real bakes, the specification is enough to read a `.throng` file.
//! - the mannequin bake, the walker bake (states, several speeds, two LOD levels, f32), a bare
//!   bake of the mannequin variant facing −z (turned half round: format 1.2's facing turn 2)
//!   and the committed format-1.0 to 1.4 fixtures read the same through both (1.4's with an
//!   impostor atlas: each character's `impostor` and each animation's impostor frames);
//! - a copy with one flipped byte, a copy with a forward parent index and a 1.1 copy whose
//!   state claims glTF sources, checksums recomputed, are refused by both.
//!
//! Without Node these tests print why and skip, unless `THRONG_REQUIRE_REFERENCE=1` (CI sets
//! it), where they fail instead.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// Relative tolerance on numbers. Both sides print the same f32 and f64 values from the file,
/// but with different float printers: throng (serde_json) prints an f32 as the shortest decimal
/// that reads back as that f32, while JavaScript only has f64 and the reader re-derives that
/// decimal itself; integers may also print as `4.0` on one side and `4` on the other. 1e-6 is a
/// few f32 ulps: it absorbs printing differences and nothing that changes what the file says.
const REL_TOL: f64 = 1e-6;

fn repo() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

/// The reader's CLI, or `None` (with the reason printed) when Node is missing.
fn reader() -> Option<PathBuf> {
    let node_ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if node_ok {
        return Some(repo().join("tools/throng-reader/inspect.mjs"));
    }
    let why = "node is not installed";
    if std::env::var("THRONG_REQUIRE_REFERENCE").is_ok_and(|v| v == "1") {
        panic!("{why}, and THRONG_REQUIRE_REFERENCE=1");
    }
    eprintln!("skipped: {why}");
    None
}

fn output(cmd: &mut Command) -> Output {
    cmd.current_dir(repo())
        .output()
        .unwrap_or_else(|e| panic!("{cmd:?}: {e}"))
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

fn bake(recipe: &str, to: &Path) {
    let out = output(
        Command::new(env!("CARGO_BIN_EXE_throng"))
            .arg("bake")
            .arg(recipe)
            .arg("-o")
            .arg(to)
            .args(["-q", "--rebuild"]),
    );
    assert!(
        out.status.success(),
        "baking {recipe} failed:\n{}",
        text(&out)
    );
}

/// Runs both readers on `file`: `Ok(json)` or `Err(message)` for each.
fn inspect_both(reader: &Path, file: &Path) -> (Result<Value, String>, Result<Value, String>) {
    let parse = |out: Output| {
        if out.status.success() {
            Ok(serde_json::from_slice(&out.stdout).expect("inspect prints JSON"))
        } else {
            Err(text(&out))
        }
    };
    let throng = output(
        Command::new(env!("CARGO_BIN_EXE_throng"))
            .arg("inspect")
            .arg(file)
            .arg("--json"),
    );
    let node = output(Command::new("node").arg(reader).arg(file));
    (parse(throng), parse(node))
}

/// Differences between two JSON values (numbers within REL_TOL), with their paths.
fn differences(a: &Value, b: &Value, path: &str, out: &mut Vec<String>) {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            let (x, y) = (x.as_f64().unwrap(), y.as_f64().unwrap());
            if (x - y).abs() > REL_TOL * x.abs().max(y.abs()) {
                out.push(format!("{path}: {x} vs {y}"));
            }
        }
        (Value::Array(x), Value::Array(y)) if x.len() == y.len() => {
            for (i, (u, v)) in x.iter().zip(y).enumerate() {
                differences(u, v, &format!("{path}[{i}]"), out);
            }
        }
        (Value::Object(x), Value::Object(y)) => {
            for (key, u) in x {
                match y.get(key) {
                    Some(v) => differences(u, v, &format!("{path}.{key}"), out),
                    None => out.push(format!("{path}.{key}: {u} vs missing")),
                }
            }
            for (key, v) in y.iter().filter(|(k, _)| !x.contains_key(*k)) {
                out.push(format!("{path}.{key}: missing vs {v}"));
            }
        }
        _ if a == b => {}
        _ => out.push(format!("{path}: {a} vs {b}")),
    }
}

/// Both readers accept `file` and print the same JSON.
fn reads_the_same(reader: &Path, file: &Path) {
    let (throng, node) = inspect_both(reader, file);
    let throng = throng.unwrap_or_else(|e| panic!("throng refused {}:\n{e}", file.display()));
    let node = node.unwrap_or_else(|e| panic!("the reader refused {}:\n{e}", file.display()));
    let mut diffs = Vec::new();
    differences(&throng, &node, "", &mut diffs);
    assert!(
        diffs.is_empty(),
        "{}: throng and the independent reader disagree (throng vs reader):\n{}",
        file.display(),
        diffs.join("\n")
    );
    // The comparison saw the whole file: every character, animation and mesh.
    let characters = throng["characters"].as_array().expect("characters");
    assert!(!characters.is_empty());
    assert!(
        characters
            .iter()
            .all(|c| !c["anims"].as_array().unwrap().is_empty())
    );
}

#[test]
fn mannequin_bake_reads_the_same() {
    let Some(reader) = reader() else { return };
    let tmp = common::temp_dir("independent-mannequin");
    let file = tmp.join("m.throng");
    bake("bake/mannequin.toml", &file);
    reads_the_same(&reader, &file);
}

#[test]
fn walker_bake_reads_the_same() {
    let Some(reader) = reader() else { return };
    let tmp = common::temp_dir("independent-walker");
    let file = tmp.join("w.throng");
    bake("tests/fixtures/walker-bake.toml", &file);
    reads_the_same(&reader, &file);
}

#[test]
fn a_turned_bare_bake_reads_the_same_with_its_facing_turn() {
    let Some(reader) = reader() else { return };
    let tmp = common::temp_dir("independent-back");
    let (model, file) = (tmp.join("back.glb"), tmp.join("back.throng"));
    let out = output(Command::new(env!("CARGO_BIN_EXE_throng")).args([
        "gen-mannequin".as_ref(),
        "--variant".as_ref(),
        "mixamo-back".as_ref(),
        "-o".as_ref(),
        model.as_os_str(),
    ]));
    assert!(out.status.success(), "{}", text(&out));
    bake(&model.display().to_string(), &file);
    reads_the_same(&reader, &file);
    let (throng, node) = inspect_both(&reader, &file);
    for (who, json) in [("throng", throng), ("the reader", node)] {
        let json = json.unwrap();
        assert_eq!(json["version"], "1.4", "{who}");
        assert_eq!(json["characters"][0]["facing_turns"], 2, "{who}");
    }
}

#[test]
fn committed_fixtures_read_the_same() {
    let Some(reader) = reader() else { return };
    reads_the_same(&reader, &repo().join("tests/fixtures/format-1.0.throng"));
    reads_the_same(&reader, &repo().join("tests/fixtures/format-1.1.throng"));
    reads_the_same(&reader, &repo().join("tests/fixtures/format-1.2.throng"));
    reads_the_same(&reader, &repo().join("tests/fixtures/format-1.3.throng"));
    // The one file with an impostor atlas: every IMPO and IMPA field compared.
    let atlas = repo().join("tests/fixtures/format-1.4.throng");
    reads_the_same(&reader, &atlas);
    let (throng, _) = inspect_both(&reader, &atlas);
    let impostor = &throng.unwrap()["characters"][0]["impostor"];
    assert_eq!(
        (&impostor["views"], &impostor["frame_count"]),
        (&3.into(), &7.into())
    );
}

/// The file offset of section `kind`, from the section table.
fn section_offset(b: &[u8], kind: &[u8; 4]) -> usize {
    let u32_at = |o: usize| u32::from_le_bytes(b[o..o + 4].try_into().unwrap()) as usize;
    let u64_at = |o: usize| u64::from_le_bytes(b[o..o + 8].try_into().unwrap()) as usize;
    let (count, table) = (u32_at(28), u64_at(32));
    (0..count)
        .map(|i| table + 32 * i)
        .find(|&e| &b[e..e + 4] == kind)
        .map(|e| u64_at(e + 8))
        .expect("section present")
}

#[test]
fn corrupted_copies_are_refused_by_both() {
    let Some(reader) = reader() else { return };
    let tmp = common::temp_dir("independent-corrupt");
    let original = std::fs::read(repo().join("tests/fixtures/format-1.0.throng")).unwrap();

    // A 1.1 file whose first state claims glTF sources (baked rule 37), with valid checksums.
    let mut state_gltf = std::fs::read(repo().join("tests/fixtures/format-1.1.throng")).unwrap();
    let count = section_offset(&state_gltf, b"AEXT") + 32 + 20;
    state_gltf[count..count + 4].copy_from_slice(&1u32.to_le_bytes());
    common::reseal(&mut state_gltf);

    // One flipped byte in the middle of the content: the content CRC (container rule 4).
    let mut flipped = original.clone();
    let middle = flipped.len() / 2;
    flipped[middle] ^= 0x40;
    // The first joint's parent set to joint 1, after it, with valid checksums (baked rule 12).
    let mut forward = original.clone();
    let parent = section_offset(&forward, b"JOIN") + 8;
    forward[parent..parent + 4].copy_from_slice(&1i32.to_le_bytes());
    common::reseal(&mut forward);

    for (name, bytes, rule) in [
        ("flipped.throng", flipped, "container rule 4"),
        ("forward-parent.throng", forward, "baked rule 12"),
        ("state-gltf.throng", state_gltf, "baked rule 37"),
    ] {
        let file = tmp.join(name);
        std::fs::write(&file, bytes).unwrap();
        let (throng, node) = inspect_both(&reader, &file);
        assert!(throng.is_err(), "throng accepted {name}");
        let message = node.expect_err(&format!("the reader accepted {name}"));
        assert!(
            message.contains(rule),
            "{name}: expected {rule}, got {message}"
        );
    }
}
