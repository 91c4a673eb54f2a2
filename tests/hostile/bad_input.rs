//! Bad input gives a clear error naming the file and the element, never a panic: hand-made
//! broken files for each kind of fault, then truncations and random corruptions of every real
//! model (a panic fails the test; `Ok` results must also be usable without panicking).

use crate::common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use glam::Mat4;
use serde_json::{Value, json};
use throng::anim::{Transform, Wrap, local_to_model, sample, skinning_matrices};
use throng::import::{ImportOptions, Model, load, load_bytes};

fn linear_model() -> Value {
    common::one_channel_model(
        "translation",
        "LINEAR",
        &[0.0, 0.5, 1.0],
        &[0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 2.0, 1.0, 0.0],
    )
}

fn error_of(tag: &str, json: &Value) -> String {
    let path = common::write_gltf(tag, "broken.gltf", json);
    match load(&path, &ImportOptions::default()) {
        Ok(_) => panic!("{tag}: expected an error"),
        Err(e) => e.to_string(),
    }
}

fn assert_mentions(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "message {msg:?} should mention {p:?}");
    }
}

/// Rewrites the data URI buffer of a test model through `edit`.
fn edit_buffer(json: &mut Value, edit: impl FnOnce(&mut Vec<u8>)) {
    use base64::Engine;
    let engine = base64::engine::general_purpose::STANDARD;
    let uri = json["buffers"][0]["uri"].as_str().unwrap().to_string();
    let (head, payload) = uri.split_once(";base64,").unwrap();
    let mut bytes = engine.decode(payload).unwrap();
    edit(&mut bytes);
    json["buffers"][0]["uri"] = json!(format!("{head};base64,{}", engine.encode(&bytes)));
}

/// Byte offset of accessor `index`'s data (tests use tightly packed views, offset 0).
fn accessor_offset(json: &Value, index: usize) -> usize {
    let view = json["accessors"][index]["bufferView"].as_u64().unwrap() as usize;
    json["bufferViews"][view]["byteOffset"].as_u64().unwrap() as usize
}

#[test]
fn non_increasing_key_times() {
    let mut j = linear_model();
    let input = j["animations"][0]["samplers"][0]["input"].as_u64().unwrap() as usize;
    let at = accessor_offset(&j, input) + 8; // third key time
    edit_buffer(&mut j, |b| {
        b[at..at + 4].copy_from_slice(&0.25f32.to_le_bytes())
    });
    let msg = error_of("times", &j);
    assert_mentions(
        &msg,
        &[
            "broken.gltf",
            "animation 0 (test), sampler 0",
            "not increasing at key 2",
        ],
    );
}

#[test]
fn nan_in_keys() {
    let mut j = linear_model();
    let output = j["animations"][0]["samplers"][0]["output"]
        .as_u64()
        .unwrap() as usize;
    let at = accessor_offset(&j, output) + 4;
    edit_buffer(&mut j, |b| {
        b[at..at + 4].copy_from_slice(&f32::NAN.to_le_bytes())
    });
    assert_mentions(
        &error_of("nan", &j),
        &["broken.gltf", "sampler 0", "output value 0 is not finite"],
    );
}

#[test]
fn infinite_node_transform() {
    let mut j = linear_model();
    // 1e39 does not fit in an f32: it parses as infinity.
    j["nodes"][2]["translation"] = json!([0.0, 1e39, 0.0]);
    assert_mentions(
        &error_of("inf", &j),
        &["broken.gltf", "node 2 ('child')", "NaN or infinity"],
    );
}

#[test]
fn joint_index_out_of_range() {
    let mut j = linear_model();
    let joints = j["meshes"][0]["primitives"][0]["attributes"]["JOINTS_0"]
        .as_u64()
        .unwrap() as usize;
    let at = accessor_offset(&j, joints) + 4; // vertex 1, first influence
    edit_buffer(&mut j, |b| b[at] = 7);
    assert_mentions(
        &error_of("joint", &j),
        &["broken.gltf", "vertex 1 uses joint 7", "skin has 2 joints"],
    );
}

#[test]
fn weights_summing_to_zero() {
    let mut j = linear_model();
    let weights = j["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]
        .as_u64()
        .unwrap() as usize;
    let at = accessor_offset(&j, weights) + 16 * 2; // vertex 2
    edit_buffer(&mut j, |b| {
        b[at..at + 4].copy_from_slice(&0.0f32.to_le_bytes())
    });
    assert_mentions(
        &error_of("weights", &j),
        &[
            "broken.gltf",
            "primitive 0",
            "vertex 2: weights sum to zero",
        ],
    );
}

#[test]
fn accessor_counts_that_disagree() {
    let mut j = linear_model();
    let weights = j["meshes"][0]["primitives"][0]["attributes"]["WEIGHTS_0"]
        .as_u64()
        .unwrap() as usize;
    j["accessors"][weights]["count"] = json!(2);
    assert_mentions(
        &error_of("count", &j),
        &[
            "broken.gltf",
            "(WEIGHTS_0) has 2 elements, mesh has 3 vertices",
        ],
    );
}

#[test]
fn accessor_past_the_end_of_its_view() {
    let mut j = linear_model();
    let pos = j["meshes"][0]["primitives"][0]["attributes"]["POSITION"]
        .as_u64()
        .unwrap() as usize;
    j["accessors"][pos]["count"] = json!(30);
    assert_mentions(
        &error_of("overrun", &j),
        &["broken.gltf", "(POSITION)", "only 36 bytes long"],
    );
}

#[test]
fn missing_external_buffer() {
    let mut j = linear_model();
    j["buffers"][0]["uri"] = json!("missing.bin");
    assert_mentions(
        &error_of("buffer", &j),
        &["broken.gltf", "buffer 0", "missing.bin"],
    );
}

#[test]
fn external_buffer_file_is_read() {
    use base64::Engine;
    let mut j = linear_model();
    let uri = j["buffers"][0]["uri"].as_str().unwrap().to_string();
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(uri.split_once(";base64,").unwrap().1)
        .unwrap();
    j["buffers"][0]["uri"] = json!("data%20file.bin");
    let path = common::write_gltf("external", "model.gltf", &j);
    std::fs::write(path.with_file_name("data file.bin"), bytes).unwrap();
    let m = load(&path, &ImportOptions::default()).unwrap();
    assert_eq!(m.clips[0].name(), "test");
}

#[test]
fn not_gltf_at_all() {
    let msg = load_bytes(b"hello", "junk.glb", &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_mentions(&msg, &["junk.glb", "not a glTF file", "GLB", "JSON"]);
    let missing = load(
        std::path::Path::new("/nonexistent/x.glb"),
        &ImportOptions::default(),
    )
    .unwrap_err()
    .to_string();
    assert_mentions(&missing, &["x.glb", "cannot read model"]);
}

#[test]
fn a_truncated_glb_says_so() {
    let glb = throng::import::mannequin::generate_glb();
    let msg = load_bytes(&glb[..1000], "cut.glb", &ImportOptions::default())
        .unwrap_err()
        .to_string();
    assert_mentions(
        &msg,
        &["cut.glb", "truncated GLB", &glb.len().to_string(), "1000"],
    );
}

/// How often `needle` occurs in `hay`.
fn count(hay: &str, needle: &str) -> usize {
    hay.matches(needle).count()
}

#[test]
fn the_cli_says_each_cause_once() {
    // A missing model: the system's reason is printed once, not once per error in the chain
    // (the message that embeds it, then the io::Error itself).
    for cmd in ["inspect", "bake", "pose"] {
        let (code, _, err) = common::throng(&[cmd, "/nonexistent/throng-test/x.glb"]);
        assert_eq!(code, 1, "{cmd}: {err}");
        assert_eq!(count(&err, "No such file or directory"), 1, "{cmd}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd}: one line: {err}");
    }
    // A missing buffer of a .gltf.
    let mut j = linear_model();
    j["buffers"][0]["uri"] = json!("missing.bin");
    let path = common::write_gltf("cli-buffer", "broken.gltf", &j);
    let p = path.display().to_string();
    for cmd in ["inspect", "bake"] {
        let (code, _, err) = common::throng(&[cmd, &p]);
        assert_eq!(code, 1, "{cmd}: {err}");
        assert_eq!(count(&err, "No such file or directory"), 1, "{cmd}: {err}");
        assert_eq!(count(&err, "missing.bin"), 1, "{cmd}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd}: one line: {err}");
    }
}

#[test]
fn a_corrupt_model_is_one_clear_message_in_every_command() {
    let dir = common::temp_dir("cli-corrupt");
    let glb = throng::import::mannequin::generate_glb();
    let cut = dir.join("cut.glb");
    std::fs::write(&cut, &glb[..glb.len() / 2]).unwrap();
    let text = dir.join("notes.glb");
    std::fs::write(&text, "these are my notes, not a model\n").unwrap();
    let cache = dir.join("cache");
    for (file, what) in [(&cut, "truncated GLB"), (&text, "not a glTF file")] {
        let f = file.display().to_string();
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for cmd in ["inspect", "bake", "demo"] {
            let out = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
                .args([cmd, f.as_str()])
                .args(if cmd == "demo" {
                    &["--headless"][..]
                } else {
                    &[]
                })
                .env("XDG_CACHE_HOME", &cache)
                .current_dir(&dir)
                .output()
                .unwrap();
            let err = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{cmd} {name}: {err}");
            let line = err
                .lines()
                .find(|l| l.starts_with("error: "))
                .unwrap_or_else(|| panic!("{cmd} {name}: no error line in {err}"));
            assert_eq!(count(line, &name), 1, "{cmd}: the file once: {line}");
            assert_eq!(count(line, what), 1, "{cmd}: what is wrong, once: {line}");
        }
    }
}

/// Exercises an imported model the way the runtime would: sample every clip, FK, skin.
fn exercise(model: &Model) {
    let n = model.skeleton.len();
    let mut local = vec![Transform::IDENTITY; n];
    let mut world = vec![Mat4::IDENTITY; n];
    let mut skin = vec![Mat4::IDENTITY; n];
    let (mut p, mut nr) = (Vec::new(), Vec::new());
    for clip in &model.clips {
        for t in [0.0, 0.37, clip.duration()] {
            sample(
                clip,
                &model.skeleton,
                clip.local_time(t, Wrap::Loop),
                &mut local,
            );
            local_to_model(&model.skeleton, &local, &mut world);
            skinning_matrices(&model.skeleton, &world, &mut skin);
            for m in &model.meshes {
                m.mesh.skin(&skin, &mut p, &mut nr);
            }
        }
    }
}

fn no_panic(name: &str, what: &str, bytes: &[u8]) -> bool {
    let result = catch_unwind(AssertUnwindSafe(|| {
        if let Ok(model) = load_bytes(bytes, name, &ImportOptions::default()) {
            exercise(&model);
            true
        } else {
            false
        }
    }));
    match result {
        Ok(imported) => imported,
        Err(e) => {
            let detail = e
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()));
            panic!(
                "{name}: import panicked on {what}: {}",
                detail.unwrap_or_default()
            )
        }
    }
}

fn fuzz_model(name: &str, bytes: &[u8]) {
    // THRONG_FUZZ_SEED picks other corruptions for a longer local search.
    let seed = std::env::var("THRONG_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0x9E37_79B9_7F4A_7C15u64);
    let mut rng = common::Rng(seed ^ bytes.len() as u64 | 1);
    // Truncations: every offset in the headers, then 150 spread over the file.
    let mut cuts: Vec<usize> = (0..64.min(bytes.len())).collect();
    cuts.extend((0..150).map(|i| i * bytes.len() / 150));
    let mut ok = 0;
    for &cut in &cuts {
        ok += usize::from(no_panic(
            name,
            &format!("truncation at byte {cut}"),
            &bytes[..cut],
        ));
    }
    assert_eq!(ok, 0, "{name}: a truncated file must not import");
    // The JSON chunk is where counts, offsets and indices live: corrupt it more often.
    let json_len = u32::from_le_bytes([bytes[12], bytes[13], bytes[14], bytes[15]]) as usize;
    // THRONG_FUZZ_ROUNDS raises the count for a longer local search; CI runs the default.
    let rounds = std::env::var("THRONG_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(250);
    for round in 0..rounds {
        let mut b = bytes.to_vec();
        for _ in 0..1 + rng.below(6) {
            let at = if round % 2 == 0 {
                20 + rng.below(json_len)
            } else {
                rng.below(b.len())
            };
            b[at] = if round % 4 == 0 {
                b"0123456789"[rng.below(10)]
            } else {
                rng.next() as u8
            };
        }
        no_panic(name, &format!("corruption round {round}"), &b);
    }
}

#[test]
fn truncated_and_corrupted_models_never_panic() {
    let mut models = vec![(
        "mannequin.glb".to_string(),
        std::fs::read(common::mannequin_path()).expect("committed mannequin"),
    )];
    for name in ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb"] {
        if let Some(path) = common::shared_asset(name) {
            models.push((name.to_string(), std::fs::read(path).unwrap()));
        }
    }
    // The panic hook would print a backtrace for every caught panic; the test reports the
    // first one itself.
    let hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(|_| {}));
    let result = catch_unwind(|| {
        for (name, bytes) in &models {
            assert!(
                no_panic(name, "the intact file", bytes),
                "{name} must import intact"
            );
            fuzz_model(name, bytes);
        }
    });
    std::panic::set_hook(hook);
    if let Err(e) = result {
        let msg = e
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        panic!("{msg}");
    }
}
