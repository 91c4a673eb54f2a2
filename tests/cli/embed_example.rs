//! `examples/embed.rs`, the embedding example, run as CI runs it: under Xvfb for three frames
//! on each backend, with a screenshot that must show both the program's own boxes and the
//! crowd throng drew into the program's pass.
//!
//! `cargo test` builds the examples before it runs tests; this test runs the built example
//! (beside the test binary, in `target/*/examples/`). A lone `cargo test --test
//! cli embed_example::` does not build examples: build them first (`cargo build --examples`).

use crate::common;

use std::path::PathBuf;
use std::process::Command;

/// The example's binary, built by `cargo test` beside this test's own binary.
fn example() -> PathBuf {
    let exe = std::env::current_exe().expect("the test's own path");
    // target/<profile>/deps/cli-HASH -> target/<profile>/examples/embed
    let profile = exe
        .parent()
        .and_then(|d| d.parent())
        .expect("target/<profile>");
    profile
        .join("examples")
        .join(format!("embed{}", std::env::consts::EXE_SUFFIX))
}

/// Which of the program's four boxes a pixel belongs to, if any: a saturated colour (its
/// smallest channel under 30% of its largest, which is at least 90). The boxes' linear
/// colours have their smallest channel under 4% of the largest (under 27% once sRGB-encoded,
/// whatever the shading); the crowd's tinted characters are pastel and the floor and clear
/// colour are near grey and dull purple, far from that.
fn box_of(p: [u8; 4]) -> Option<usize> {
    let [r, g, b, _] = p.map(f32::from);
    let (max, min) = (r.max(g).max(b), r.min(g).min(b));
    if max < 90.0 || min > 0.3 * max {
        return None;
    }
    Some(if b == max {
        2 // blue
    } else if g == max {
        1 // green
    } else if g > 0.6 * r {
        3 // gold
    } else {
        0 // red
    })
}

/// Whether a pixel is the program's background: its clear colour (linear 0.10, 0.08, 0.16,
/// sRGB-encoded) or its grey floor (a near-neutral colour at any shading), with 8 levels of
/// slack for rounding.
fn background(p: [u8; 4]) -> bool {
    let [r, g, b, _] = p.map(i32::from);
    let clear = [89, 79, 112];
    let near_clear =
        (r - clear[0]).abs() <= 8 && (g - clear[1]).abs() <= 8 && (b - clear[2]).abs() <= 8;
    let grey = r.max(g).max(b) - r.min(g).min(b) <= 8;
    near_clear || grey
}

#[test]
fn the_embedding_example_draws_its_own_boxes_and_the_crowd_in_one_pass() {
    let has_xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    let required = common::backend_required("vulkan") || common::backend_required("gl");
    if !has_xvfb {
        assert!(
            !required,
            "xvfb-run is missing (apt-get install xvfb) and THRONG_REQUIRE_BACKENDS asks for the example's test"
        );
        eprintln!("skipped: xvfb-run is missing (apt-get install xvfb)");
        return;
    }
    let exe = example();
    assert!(
        exe.exists(),
        "{} is missing: `cargo test` builds it; after a lone `cargo test --test cli embed_example::`, run `cargo build --examples` first",
        exe.display()
    );
    let dir = common::temp_dir("embed-example");
    let bake = common::bake_default(&dir);
    for backend in ["vulkan", "gl"] {
        let png = dir.join(format!("embed-{backend}.png"));
        let out = Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1280x720x24"])
            .arg(&exe)
            .args(["--backend", backend, "--frames", "3", "--bake"])
            .arg(&bake)
            .arg("--screenshot")
            .arg(&png)
            .output()
            .expect("run the example");
        let err = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && err.contains("adapter") && !common::backend_required(backend) {
            eprintln!("skipped on {backend}: {err}");
            continue;
        }
        assert!(out.status.success(), "{backend}: {err}");
        let image = image::open(&png).unwrap().to_rgba8();
        let mut boxes = [0usize; 4];
        let mut crowd = 0usize;
        for p in image.pixels() {
            match box_of(p.0) {
                Some(k) => boxes[k] += 1,
                None if !background(p.0) => crowd += 1,
                None => {}
            }
        }
        let share = crowd as f64 / (image.width() * image.height()) as f64;
        println!(
            "{backend}: box pixels (red, green, blue, gold) {boxes:?}, crowd {share:.4} of the picture"
        );
        // Each box covers thousands of pixels at the example's 960x540 and camera; 300 is far
        // above stray pixels of another colour.
        assert!(
            boxes.iter().all(|&n| n > 300),
            "{backend}: box pixels {boxes:?}"
        );
        // 400 agents cover several percent of the picture; 1% is far above what edges of the
        // boxes and floor could make.
        assert!(
            share > 0.01,
            "{backend}: the crowd covers {share:.4} of the picture"
        );
    }
}
