//! Hostile models through the `throng` binary (issue 17): URIs that try to read files outside
//! the model's folder, sizes the buffers cannot hold, and truncated or corrupt files. Each
//! must fail (or, for an image, warn) with one message that names the file and the cause,
//! says each clause once, never panics, and never reads what it refuses.
//!
//! Inputs are made at run time in a temporary folder (removed afterwards) from the built-in
//! mannequin (`assets/mannequin.glb`), split into a `.gltf` and a `.bin` where URIs matter,
//! and from the third-party models in `../shared/assets` for the truncations.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// How long one command may run. A debug build bakes the mannequin in a few seconds; a
/// command that reads a FIFO (which has no writer) blocks forever, so a run that reaches this
/// limit means a refused file was opened.
const RUN_LIMIT: Duration = Duration::from_secs(120);

/// A fresh folder under the system temp dir, removed on drop.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("throng-hostile-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create temp dir");
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// One finished run of the binary.
struct Run {
    code: Option<i32>,
    out: String,
    err: String,
}

/// Runs `throng args` in `cwd`, failing the test if it outlives [`RUN_LIMIT`].
fn throng(args: &[&str], cwd: &Path) -> Run {
    let mut child = Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args)
        .current_dir(cwd)
        .env("XDG_CACHE_HOME", cwd.join("cache"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run throng");
    let start = Instant::now();
    while child.try_wait().expect("wait").is_none() {
        if start.elapsed() > RUN_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            panic!("throng {args:?} still ran after {RUN_LIMIT:?}: did it open a FIFO it refuses?");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().expect("output");
    Run {
        code: out.status.code(),
        out: String::from_utf8_lossy(&out.stdout).into_owned(),
        err: String::from_utf8_lossy(&out.stderr).into_owned(),
    }
}

/// The first clause that `text`, split on ": ", says twice (ignoring the `error` and `note`
/// labels and empty parts).
fn repeated_clause(text: &str) -> Option<String> {
    let mut seen = std::collections::HashSet::new();
    text.split(": ")
        .map(str::trim)
        .filter(|c| !c.is_empty() && !matches!(*c, "error" | "warning" | "note"))
        .find(|c| !seen.insert(*c))
        .map(str::to_string)
}

#[test]
fn a_repeated_clause_is_found() {
    // The probe's example of issue 17: the check must catch it.
    let bad = "character 'X': X.glb: not a valid glTF file: could not completely read the object: X.glb: not a valid glTF file: could not completely read the object";
    assert_eq!(repeated_clause(bad).as_deref(), Some("X.glb"));
    assert_eq!(
        repeated_clause("error: a.glb: truncated GLB: header says 9 bytes, file has 5"),
        None
    );
}

/// Asserts that `run` of `what` failed cleanly: a non-zero exit, no panic, stderr holding
/// each of `parts` and no clause twice.
fn assert_refused(what: &str, run: &Run, parts: &[&str]) {
    let err = run.err.trim();
    assert!(
        run.code.is_some_and(|c| c != 0),
        "{what}: expected a failure, got {:?}\nstdout: {}\nstderr: {err}",
        run.code,
        run.out
    );
    assert_clean(what, err);
    for p in parts {
        assert!(
            err.contains(p),
            "{what}: stderr should mention {p:?}:\n{err}"
        );
    }
}

/// No panic, no overflow, no clause twice in `err`.
fn assert_clean(what: &str, err: &str) {
    assert!(
        !err.contains("panicked") && !err.contains("overflow"),
        "{what}: panicked:\n{err}"
    );
    if let Some(c) = repeated_clause(err) {
        panic!("{what}: says {c:?} twice:\n{err}");
    }
}

/// The three commands that load a model, for `model` (a file name in the run's folder).
fn commands(model: &str) -> [Vec<String>; 3] {
    let s = |v: &[&str]| v.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    [
        s(&["inspect", model]),
        s(&["bake", model, "-o", "out.throng", "--quiet"]),
        s(&["pose", model, "--time", "0.25"]),
    ]
}

/// Runs every model-loading command on `model` in `dir`.
fn run_all(dir: &Path, model: &str, extra: &[&str]) -> Vec<(String, Run)> {
    commands(model)
        .into_iter()
        .map(|mut args| {
            args.extend(extra.iter().map(|a| a.to_string()));
            let refs: Vec<&str> = args.iter().map(String::as_str).collect();
            (args.join(" "), throng(&refs, dir))
        })
        .collect()
}

/// The mannequin's GLB split into its JSON and its binary chunk.
fn mannequin_parts() -> (Value, Vec<u8>) {
    let glb = std::fs::read(common::mannequin_path()).expect("assets/mannequin.glb");
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).expect("json chunk");
    let bin_at = 20 + json_len;
    let bin = glb[bin_at + 8..bin_at + 8 + u32_at(bin_at)].to_vec();
    (json, bin)
}

/// A GLB of `json` and `bin`, chunks padded to four bytes as the specification asks.
fn glb(json: &Value, bin: Option<&[u8]>) -> Vec<u8> {
    let mut text = serde_json::to_vec(json).unwrap();
    while !text.len().is_multiple_of(4) {
        text.push(b' ');
    }
    let mut out = b"glTF".to_vec();
    out.extend(2u32.to_le_bytes());
    out.extend(0u32.to_le_bytes());
    out.extend((text.len() as u32).to_le_bytes());
    out.extend(b"JSON");
    out.extend(&text);
    if let Some(bin) = bin {
        let mut bin = bin.to_vec();
        while !bin.len().is_multiple_of(4) {
            bin.push(0);
        }
        out.extend((bin.len() as u32).to_le_bytes());
        out.extend(b"BIN\0");
        out.extend(bin);
    }
    let len = out.len() as u32;
    out[8..12].copy_from_slice(&len.to_le_bytes());
    out
}

/// The mannequin as `model/NAME.gltf` in `root`, its buffer at `buffer_uri`; and a readable
/// PNG as its base-colour image at `image_uri`, when given. The files the URIs should name
/// are the caller's to write.
fn mannequin_gltf(root: &Path, name: &str, buffer_uri: &str, image_uri: Option<&str>) -> String {
    let (mut j, _) = mannequin_parts();
    j["buffers"][0]["uri"] = json!(buffer_uri);
    if let Some(uri) = image_uri {
        j["images"] = json!([{"name": "albedo", "uri": uri}]);
        j["textures"] = json!([{"source": 0}]);
        j["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"] = json!({"index": 0});
    }
    std::fs::create_dir_all(root.join("model")).unwrap();
    let file = format!("{name}.gltf");
    std::fs::write(
        root.join("model").join(&file),
        serde_json::to_vec_pretty(&j).unwrap(),
    )
    .unwrap();
    file
}

/// `root/outside/` with the mannequin's real buffer (`m.bin`) and a real PNG (`tex.png`): a
/// model that reads them loads, so a refusal is the confinement at work, not a broken file.
fn outside_files(root: &Path) -> PathBuf {
    let outside = root.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("m.bin"), mannequin_parts().1).unwrap();
    image::RgbaImage::from_pixel(2, 2, image::Rgba([200, 10, 10, 255]))
        .save(outside.join("tex.png"))
        .unwrap();
    outside.canonicalize().unwrap()
}

/// Buffer URIs that reach `outside/m.bin` from `root/model/`, with the reason each is refused.
/// On unix, also two symbolic links made here: a file link and a folder link.
fn escaping_uris(root: &Path, outside: &Path) -> Vec<(String, &'static str)> {
    let abs = outside.join("m.bin").display().to_string();
    let mut uris = vec![
        (abs.clone(), "is an absolute path"),
        (format!("file://{abs}"), "is an absolute path"),
        ("../outside/m.bin".to_string(), "climbs out"),
        ("..%2Foutside%2Fm.bin".to_string(), "climbs out"),
        ("sub/../../outside/m.bin".to_string(), "climbs out"),
    ];
    // `sub/..` resolves only where `sub` exists.
    std::fs::create_dir_all(root.join("model/sub")).unwrap();
    #[cfg(unix)]
    {
        let model = root.join("model");
        std::os::unix::fs::symlink(outside.join("m.bin"), model.join("link.bin")).unwrap();
        std::os::unix::fs::symlink(outside, model.join("shared")).unwrap();
        uris.push(("link.bin".into(), "symbolic link"));
        uris.push(("shared/m.bin".into(), "symbolic link"));
    }
    uris
}

#[test]
fn buffer_uris_that_leave_the_folder_are_refused_and_the_flag_allows_them() {
    let t = TempDir::new("buffer-uris");
    let outside = outside_files(&t.0);
    let model_dir = t.0.join("model");
    for (i, (uri, why)) in escaping_uris(&t.0, &outside).into_iter().enumerate() {
        let file = mannequin_gltf(&t.0, &format!("escape{i}"), &uri, None);
        for (cmd, run) in run_all(&model_dir, &file, &[]) {
            assert_refused(
                &cmd,
                &run,
                &[&file, "buffer 0", &uri, why, "--allow-outside-uris"],
            );
        }
        // The same file loads when the folder rule is lifted: the buffer is real.
        for (cmd, run) in run_all(&model_dir, &file, &["--allow-outside-uris"]) {
            assert_eq!(run.code, Some(0), "{cmd}: {}", run.err);
        }
    }
    // A buffer inside the folder loads without the flag.
    std::fs::write(model_dir.join("m.bin"), mannequin_parts().1).unwrap();
    let file = mannequin_gltf(&t.0, "inside", "m.bin", None);
    let run = throng(&["inspect", &file], &model_dir);
    assert_eq!(run.code, Some(0), "{}", run.err);
}

#[test]
fn image_uris_that_leave_the_folder_are_a_warning_and_are_not_read() {
    let t = TempDir::new("image-uris");
    let outside = outside_files(&t.0);
    let model_dir = t.0.join("model");
    std::fs::create_dir_all(&model_dir).unwrap();
    std::fs::write(model_dir.join("m.bin"), mannequin_parts().1).unwrap();
    let abs = outside.join("tex.png").display().to_string();
    for (i, (uri, why)) in [
        (abs.as_str(), "is an absolute path"),
        ("../outside/tex.png", "climbs out"),
        ("%2E%2E/outside/tex.png", "climbs out"),
    ]
    .into_iter()
    .enumerate()
    {
        let file = mannequin_gltf(&t.0, &format!("img{i}"), "m.bin", Some(uri));
        let run = throng(&["inspect", &file], &model_dir);
        assert_eq!(run.code, Some(0), "an image is a warning: {}", run.err);
        let warning = run
            .out
            .lines()
            .find(|l| l.contains("image 0"))
            .unwrap_or_else(|| panic!("no warning about the image:\n{}", run.out));
        for part in ["image 0 ('albedo')", uri, why, "untextured"] {
            assert!(warning.contains(part), "{part:?} in {warning}");
        }
        assert_clean("inspect", warning);
        assert!(!run.out.contains("(textured)"), "{}", run.out);
        let run = throng(&["inspect", &file, "--allow-outside-uris"], &model_dir);
        assert_eq!(run.code, Some(0), "{}", run.err);
        assert!(
            run.out.contains("(textured)"),
            "the flag reads it:\n{}",
            run.out
        );
    }
}

/// A FIFO without a writer blocks whoever opens it, so a command that finishes has not opened
/// it: the refusal comes before any read, for buffers and images, with and without the flag
/// (which still refuses what is not a regular file).
#[cfg(unix)]
#[test]
fn a_refused_file_is_never_opened() {
    let t = TempDir::new("fifo");
    let outside = t.0.join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let status = Command::new("mkfifo")
        .arg(outside.join("secret"))
        .status()
        .expect("mkfifo (coreutils) is needed for this test");
    assert!(status.success(), "mkfifo failed");
    let secret_text = "TOP-SECRET-CONTENT-7f3a";
    std::fs::write(outside.join("secret.txt"), secret_text).unwrap();
    let model_dir = t.0.join("model");
    std::fs::create_dir_all(&model_dir).unwrap();
    std::fs::write(model_dir.join("m.bin"), mannequin_parts().1).unwrap();
    std::os::unix::fs::symlink(outside.join("secret"), model_dir.join("link")).unwrap();
    let abs = outside.join("secret").display().to_string();
    let fifo_uris = [
        abs.as_str(),
        "../outside/secret",
        "..%2Foutside%2Fsecret",
        "link",
    ];
    for (i, uri) in fifo_uris.iter().enumerate() {
        let buffer = mannequin_gltf(&t.0, &format!("buf{i}"), uri, None);
        for (cmd, run) in run_all(&model_dir, &buffer, &[]) {
            assert_refused(&cmd, &run, &[&buffer, uri, "--allow-outside-uris"]);
        }
        for (cmd, run) in run_all(&model_dir, &buffer, &["--allow-outside-uris"]) {
            assert_refused(&cmd, &run, &[&buffer, "not a regular file"]);
        }
        let image = mannequin_gltf(&t.0, &format!("img{i}"), "m.bin", Some(uri));
        for extra in [&[][..], &["--allow-outside-uris"][..]] {
            for (cmd, run) in run_all(&model_dir, &image, extra) {
                assert_eq!(run.code, Some(0), "{cmd}: {}", run.err);
                assert_clean(&cmd, &run.err);
            }
        }
    }
    // A secret text file: refused, and its content appears nowhere.
    for uri in ["../outside/secret.txt", "..%2Foutside/secret.txt"] {
        let file = mannequin_gltf(&t.0, "text", uri, Some(uri));
        for (cmd, run) in run_all(&model_dir, &file, &[]) {
            assert_refused(&cmd, &run, &[&file, "climbs out"]);
            assert!(
                !run.out.contains(secret_text) && !run.err.contains(secret_text),
                "{cmd} showed the secret"
            );
        }
    }
}

/// A `.gltf` whose buffer file is missing: every command names the model, the buffer (index
/// and name) and the file, `bake` as `inspect` and `pose` do (bake finds it while hashing its
/// inputs, before loading the model).
#[test]
fn a_missing_buffer_is_named_with_its_model() {
    let t = TempDir::new("missing-buffer");
    let model_dir = t.0.join("model");
    let file = mannequin_gltf(&t.0, "gone", "gone.bin", None);
    for (cmd, run) in run_all(&model_dir, &file, &[]) {
        assert_refused(&cmd, &run, &[&file, "buffer 0", "gone.bin", "No such file"]);
    }
    assert!(!model_dir.join("out.throng").exists());
}

#[test]
fn impossible_sizes_are_refused_before_anything_is_read() {
    let t = TempDir::new("sizes");
    let (json, bin) = mannequin_parts();
    let huge = 1u64 << 40;
    let cases: Vec<(&str, Value, Vec<&str>)> = vec![
        // Every bufferView 2^40 bytes long, as the probe did to Xbot.
        (
            "views.glb",
            {
                let mut j = json.clone();
                for v in j["bufferViews"].as_array_mut().unwrap() {
                    v["byteLength"] = json!(huge);
                }
                j
            },
            vec![
                "bufferView 0",
                "byteLength 1099511627776",
                "exceeds buffer 0's",
            ],
        ),
        (
            "offset.glb",
            {
                let mut j = json.clone();
                j["bufferViews"][2]["byteOffset"] = json!(u64::MAX / 2);
                j
            },
            vec![
                "bufferView 2",
                "byteOffset 9223372036854775807",
                "exceeds buffer 0's",
            ],
        ),
        (
            "count.glb",
            {
                let mut j = json.clone();
                j["accessors"][1]["count"] = json!(huge);
                j
            },
            vec!["accessor 1", "1099511627776 elements", "bufferView"],
        ),
        (
            "buffer.glb",
            {
                let mut j = json.clone();
                j["buffers"][0]["byteLength"] = json!(huge);
                j
            },
            vec!["buffer 0", "1099511627776"],
        ),
    ];
    for (name, j, parts) in cases {
        std::fs::write(t.0.join(name), glb(&j, Some(&bin))).unwrap();
        let mut expected = vec![name];
        expected.extend(parts);
        for (cmd, run) in run_all(&t.0, name, &[]) {
            assert_refused(&cmd, &run, &expected);
        }
    }
    // A .gltf whose external buffer declares more than its file holds: refused from the
    // file's length, before it is read.
    let mut j = json.clone();
    j["buffers"][0]["uri"] = json!("m.bin");
    j["buffers"][0]["byteLength"] = json!(huge);
    std::fs::write(t.0.join("m.bin"), &bin).unwrap();
    std::fs::write(t.0.join("big.gltf"), serde_json::to_vec(&j).unwrap()).unwrap();
    for (cmd, run) in run_all(&t.0, "big.gltf", &[]) {
        assert_refused(
            &cmd,
            &run,
            &["big.gltf", "buffer 0", "1099511627776", "m.bin"],
        );
    }
}

/// Cuts `bytes` at every sixteenth and checks each command says the file is truncated.
fn check_truncations(t: &TempDir, stem: &str, bytes: &[u8]) {
    for k in 0..16 {
        let n = bytes.len() * k / 16;
        let name = format!("{stem}_cut{k}.glb");
        std::fs::write(t.0.join(&name), &bytes[..n]).unwrap();
        let cause = if n == 0 {
            "the file is empty"
        } else if n < 4 {
            "not a glTF file"
        } else {
            "truncated GLB"
        };
        let size = n.to_string();
        for (cmd, run) in run_all(&t.0, &name, &[]) {
            assert_refused(&cmd, &run, &[&name, cause, &size]);
        }
    }
}

#[test]
fn truncated_models_say_truncated() {
    let t = TempDir::new("truncated");
    let mannequin = std::fs::read(common::mannequin_path()).unwrap();
    check_truncations(&t, "mannequin", &mannequin);
    for model in ["Fox.glb", "CesiumMan.glb", "RobotExpressive.glb"] {
        if let Some(path) = common::shared_asset(model) {
            let stem = model.trim_end_matches(".glb");
            check_truncations(&t, stem, &std::fs::read(path).unwrap());
        }
    }
    // Cut, with the header's length fixed up to match: the chunk that no longer fits says so.
    for k in [1, 5, 9, 15] {
        let n = mannequin.len() * k / 16;
        let mut cut = mannequin[..n].to_vec();
        cut[8..12].copy_from_slice(&(n as u32).to_le_bytes());
        let name = format!("sealed{k}.glb");
        std::fs::write(t.0.join(&name), cut).unwrap();
        for (cmd, run) in run_all(&t.0, &name, &[]) {
            assert_refused(&cmd, &run, &[&name, "truncated GLB: chunk"]);
        }
    }
}

#[test]
fn corrupt_models_are_one_clear_message() {
    let t = TempDir::new("corrupt");
    let (json, bin) = mannequin_parts();
    let good = glb(&json, Some(&bin));
    let with = |edit: &dyn Fn(&mut Vec<u8>)| {
        let mut b = good.clone();
        edit(&mut b);
        b
    };
    let mut cases: Vec<(String, Vec<u8>, Vec<&str>)> = vec![
        (
            "magic.glb".into(),
            with(&|b| b[0..4].copy_from_slice(b"gLTF")),
            vec!["not a glTF file"],
        ),
        (
            "version.glb".into(),
            with(&|b| b[4..8].copy_from_slice(&7u32.to_le_bytes())),
            vec!["GLB version 7"],
        ),
        (
            "short_header.glb".into(),
            with(&|b| b[8..12].copy_from_slice(&5u32.to_le_bytes())),
            vec!["header says", "5 bytes"],
        ),
        (
            "json_len.glb".into(),
            with(&|b| b[12..16].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes())),
            vec!["truncated GLB", "chunk 0", "4294967280"],
        ),
        (
            "bad_json.glb".into(),
            with(&|b| b[20..24].copy_from_slice(b"{{{{")),
            vec!["not a valid glTF file", "line 1"],
        ),
        (
            "no_bin.glb".into(),
            glb(&json, None),
            vec!["buffer 0", "binary chunk"],
        ),
        (
            "not_a_model.glb".into(),
            b"these are my notes\n".to_vec(),
            vec!["not a glTF file"],
        ),
    ];
    let mut b64 = json.clone();
    b64["buffers"][0]["uri"] = json!("data:application/octet-stream;base64,@@not base64@@");
    cases.push((
        "bad_base64.gltf".into(),
        serde_json::to_vec(&b64).unwrap(),
        vec!["buffer 0", "invalid base64"],
    ));
    for (name, bytes, parts) in &cases {
        std::fs::write(t.0.join(name), bytes).unwrap();
        let mut expected = vec![name.as_str()];
        expected.extend(parts);
        for (cmd, run) in run_all(&t.0, name, &[]) {
            assert_refused(&cmd, &run, &expected);
        }
    }
    // Flipped bytes in the JSON chunk: whatever they break, never a panic or a repeated
    // clause, and a failure names the file. (A flip inside a name may still load.)
    let json_len = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize;
    let mut failures = 0;
    for k in 0..16 {
        let at = 20 + json_len * k / 16;
        let name = format!("flip{k}.glb");
        std::fs::write(t.0.join(&name), with(&|b| b[at] ^= 0xFF)).unwrap();
        for (cmd, run) in run_all(&t.0, &name, &[]) {
            assert_clean(&cmd, &run.err);
            if run.code != Some(0) {
                failures += 1;
                assert!(run.err.contains(&name), "{cmd}: {}", run.err);
            }
        }
    }
    assert!(failures > 0, "some flipped byte breaks the JSON");
}
