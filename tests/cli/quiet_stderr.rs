//! A successful run says nothing alarming on stderr: headless `render`, `demo --headless` and a
//! two-frame `bench` on each backend, with `XDG_RUNTIME_DIR` and `WAYLAND_DISPLAY` removed
//! from the environment (as in containers, CI and ssh sessions), exit 0 and print no line
//! starting with `error:`. Mesa's Vulkan device-select layer used to print "error:
//! XDG_RUNTIME_DIR is invalid or not set in the environment." twice there (docs/RENDERING.md).
//! Backends missing here skip with a reason unless `THRONG_REQUIRE_BACKENDS` names them.

use crate::common;

use std::path::Path;
use std::process::Command;

/// Runs the throng binary from the repository root (where the default bake and assets are)
/// without a display or the Wayland session variables: exit code, stdout, stderr.
fn quiet_run(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_throng"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("DISPLAY")
        .args(args)
        .output()
        .expect("run throng");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Asserts that `what` succeeded and that no stderr line starts with `error:`.
fn assert_quiet(what: &str, (code, out, err): &(i32, String, String)) {
    assert_eq!(*code, 0, "{what} failed:\n{out}\nstderr:\n{err}");
    let errors: Vec<&str> = err
        .lines()
        .filter(|l| l.trim_start().starts_with("error:"))
        .collect();
    assert!(
        errors.is_empty(),
        "{what} succeeded but printed {errors:?}; its whole stderr:\n{err}"
    );
}

fn s(p: &Path) -> String {
    p.display().to_string()
}

#[test]
fn headless_runs_print_no_error_lines() {
    let dir = common::temp_dir("quiet-stderr");
    let bake = s(&common::bake_default(&dir));
    for backend in ["vulkan", "gl"] {
        let png = s(&dir.join(format!("render-{backend}.png")));
        let render = quiet_run(&[
            "render",
            "--bake",
            &bake,
            "--backend",
            backend,
            "--instances",
            "8",
            "--size",
            "64x64",
            "--out",
            &png,
        ]);
        let (code, _, err) = &render;
        if *code != 0 && err.contains("no ") && err.contains("adapter") {
            assert!(
                !common::backend_required(backend),
                "{backend} is missing and THRONG_REQUIRE_BACKENDS names it: {err}"
            );
            eprintln!("skipped on {backend}: {err}");
            continue;
        }
        assert_quiet(&format!("render on {backend}"), &render);

        let shot = s(&dir.join(format!("demo-{backend}.png")));
        let demo = quiet_run(&[
            "demo",
            "--headless",
            "--bake",
            &bake,
            "--backend",
            backend,
            "--count",
            "20",
            "--frames",
            "2",
            "--size",
            "64x64",
            "--screenshot",
            &shot,
        ]);
        assert_quiet(&format!("demo --headless on {backend}"), &demo);

        let out = s(&dir.join(format!("bench-{backend}")));
        let bench = quiet_run(&[
            "bench",
            "--bake",
            &bake,
            "--backend",
            backend,
            "--instances",
            "8",
            "--lod",
            "off",
            "--skinning",
            "gpu",
            "--frames",
            "2",
            "--warmup",
            "0",
            "--size",
            "64x64",
            "--out",
            &out,
            "-q",
        ]);
        assert_quiet(&format!("bench on {backend}"), &bench);
        // The case ran rather than being skipped (a skipped backend would also exit 0).
        let csv = std::fs::read_to_string(Path::new(&out).join("results.csv")).unwrap();
        assert!(csv.lines().count() == 2, "bench on {backend}:\n{csv}");
    }
}

/// The window under Xvfb: the same probe ran there too.
#[test]
fn windowed_demo_prints_no_error_lines() {
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        assert!(
            !common::backend_required("vulkan") && !common::backend_required("gl"),
            "xvfb-run is missing (apt-get install xvfb) and THRONG_REQUIRE_BACKENDS asks for the windowed test"
        );
        eprintln!("skipped: xvfb-run is missing (apt-get install xvfb)");
        return;
    }
    let dir = common::temp_dir("quiet-stderr-window");
    let bake = s(&common::bake_default(&dir));
    for backend in ["vulkan", "gl"] {
        let out = Command::new("xvfb-run")
            .current_dir(env!("CARGO_MANIFEST_DIR"))
            .env_remove("XDG_RUNTIME_DIR")
            .env_remove("WAYLAND_DISPLAY")
            .args(["-a", "-s", "-screen 0 640x480x24"])
            .arg(env!("CARGO_BIN_EXE_throng"))
            .args([
                "demo",
                "--bake",
                &bake,
                "--backend",
                backend,
                "--screenshot",
            ])
            .arg(dir.join(format!("window-{backend}.png")))
            .args([
                "--count",
                "20",
                "--frames",
                "3",
                "--size",
                "160x90",
                "--no-vsync",
            ])
            .output()
            .expect("run xvfb-run");
        let run = (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).into_owned(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        );
        if run.0 != 0 && run.2.contains("adapter") && !common::backend_required(backend) {
            eprintln!("skipped on {backend}: {}", run.2);
            continue;
        }
        assert!(run.1.contains("3 frames"), "{backend}: {}", run.1);
        assert_quiet(&format!("windowed demo on {backend}"), &run);
    }
}
