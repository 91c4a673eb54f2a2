//! `throng demo MODEL`: one command from a model to a crowd. The model is baked once into the
//! cache ($XDG_CACHE_HOME/throng/, here a temp folder), reused while its inputs are unchanged,
//! and baked again when one changes; `throng bake MODEL` makes the same bake. Backends missing
//! here skip with a reason unless `THRONG_REQUIRE_BACKENDS` names them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs `throng demo MODEL` headless with `cache` as XDG_CACHE_HOME, writing `png`; returns
/// the exit code, stdout and stderr.
fn demo(model: &Path, cache: &Path, png: &Path) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .env("XDG_CACHE_HOME", cache)
        .arg("demo")
        .arg(model)
        .args([
            "--headless",
            "--frames",
            "2",
            "--count",
            "50",
            "--size",
            "160x90",
        ])
        .arg("--screenshot")
        .arg(png)
        .output()
        .expect("run the demo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Whether a failed run failed for want of a backend that this machine may lack.
fn no_backend(code: i32, err: &str) -> bool {
    code != 0
        && err.contains("adapter")
        && !common::backend_required("vulkan")
        && !common::backend_required("gl")
}

/// The one `.throng` file in `dir` (panics unless there is exactly one).
fn only_bake(dir: &Path) -> PathBuf {
    let files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "throng"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

#[test]
fn demo_of_a_model_bakes_a_cache_once_and_reuses_it() {
    let dir = common::temp_dir("demo-model");
    let model = dir.join("mannequin.glb");
    let m = model.display().to_string();
    let (code, _, err) = common::throng(&["gen-mannequin", "-o", &m]);
    assert_eq!(code, 0, "{err}");
    let cache = dir.join("cache");
    let png = dir.join("crowd.png");

    let (code, out, err) = demo(&model, &cache, &png);
    if no_backend(code, &err) {
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{out}\n{err}");
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("cache: ") && first.contains("(baking "),
        "the first line says where the cache is and that it bakes: {out}"
    );
    let cached = only_bake(&cache.join("throng"));
    let name = cached.file_name().unwrap().to_string_lossy().into_owned();
    assert!(
        name.starts_with("mannequin-"),
        "named after the model: {name}"
    );
    assert!(first.contains(&name), "{first}");
    assert!(out.contains("50 agents"), "{out}");
    assert_eq!(
        image::open(&png).unwrap().to_rgba8().dimensions(),
        (160, 90)
    );
    let baked = std::fs::read(&cached).unwrap();

    // Unchanged inputs: reused, not rewritten.
    let (code, out, err) = demo(&model, &cache, &png);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(
        out.starts_with("cache: ") && out.contains("(reused"),
        "{out}"
    );
    assert_eq!(only_bake(&cache.join("throng")), cached);
    assert_eq!(std::fs::read(&cached).unwrap(), baked);

    // `throng bake MODEL` bakes the same bare recipe: the demo's cache is up to date with it,
    // so a bake to the cache file's path has nothing to do.
    let (code, out, err) = common::throng(&["bake", &m, "-o", &cached.display().to_string()]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("is up to date"), "{out}");

    // A changed model bakes again, into the same file.
    let (code, _, err) = common::throng(&["gen-mannequin", "-o", &m]);
    assert_eq!(code, 0, "{err}");
    let mut bytes = std::fs::read(&model).unwrap();
    // Appending bytes after the GLB's declared length changes the file's hash, not the model.
    bytes.extend_from_slice(&[0; 4]);
    std::fs::write(&model, bytes).unwrap();
    let (code, out, err) = demo(&model, &cache, &png);
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(out.contains("(baking "), "{out}");
    assert_eq!(only_bake(&cache.join("throng")), cached);

    // A folder in the cache file's place is said to be the cache's (the user gave no output
    // name), before any bake.
    std::fs::remove_file(&cached).unwrap();
    std::fs::create_dir(&cached).unwrap();
    let (code, out, err) = demo(&model, &cache, &png);
    assert_eq!(code, 1, "{out}\n{err}");
    assert_eq!(
        err.trim_end(),
        format!(
            "error: the cache entry {} is a folder; remove it",
            cached.display()
        )
    );
}

#[test]
fn two_models_of_one_name_in_two_folders_get_two_caches() {
    let dir = common::temp_dir("demo-model-two");
    let cache = dir.join("cache");
    let mut files = Vec::new();
    for sub in ["a", "b"] {
        let model = dir.join(sub).join("m.glb");
        std::fs::create_dir_all(model.parent().unwrap()).unwrap();
        let (code, _, err) = common::throng(&["gen-mannequin", "-o", &model.display().to_string()]);
        assert_eq!(code, 0, "{err}");
        let png = dir.join(format!("{sub}.png"));
        let (code, out, err) = demo(&model, &cache, &png);
        if no_backend(code, &err) {
            eprintln!("skipped: {err}");
            return;
        }
        assert_eq!(code, 0, "{out}\n{err}");
        files.push(out.lines().next().unwrap_or_default().to_string());
    }
    assert_ne!(files[0], files[1]);
    let count = std::fs::read_dir(cache.join("throng")).unwrap().count();
    assert_eq!(count, 2, "two cache files: {files:?}");
}

#[test]
fn demo_refuses_a_model_and_a_bake_together_and_names_a_missing_model() {
    let (code, _, err) = common::throng(&["demo", "m.glb", "--bake", "x.throng"]);
    assert_eq!(code, 2, "clap refuses the pair: {err}");
    assert!(err.contains("--bake"), "{err}");
    let (code, _, err) = common::throng(&["demo", "/nonexistent/throng-test/m.glb"]);
    assert_eq!(code, 1, "{err}");
    assert!(
        err.contains("m.glb") && err.contains("No such file"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
}
