//! The crowd demo end to end: a window under Xvfb for a bounded number of frames with a
//! screenshot that shows the crowd, the headless fallback with its one-line reason, the
//! LOD-off and `balanced` pictures of one scene side by side, the no-argument start, and clear
//! errors. Backends (and Xvfb) missing here skip with a reason unless
//! `THRONG_REQUIRE_BACKENDS` names them.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use throng::render::pictures::image_diff;

fn required(backend: &str) -> bool {
    common::backend_required(backend)
}

/// The default bake, made once per test process.
fn shared_bake() -> &'static Path {
    static PATH: OnceLock<PathBuf> = OnceLock::new();
    PATH.get_or_init(|| common::bake_default(&common::temp_dir("demo-bake")))
}

fn run(cmd: &mut Command) -> (i32, String, String) {
    let out = cmd.output().expect("run the demo");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// sRGB encoding of a linear value, as the target's format does it.
fn srgb(linear: f32) -> f32 {
    let v = if linear <= 0.003_130_8 {
        linear * 12.92
    } else {
        1.055 * linear.powf(1.0 / 2.4) - 0.055
    };
    v * 255.0
}

/// The share of pixels in `region` (x0, y0, x1, y1) that are neither sky nor ground: the
/// crowd, on the flat plaza (`--ground flat`: the relief's stone would count as crowd). Sky
/// and ground colours follow shaders/ground.wgsl and the renderer's clear colour; the
/// ground's two checker colours and every blend between them (multisampled edges) count as
/// ground, with 8 levels of slack for rounding and dithering; so do blends of either into the
/// sky (fog at the horizon).
fn crowd_share(image: &image::RgbaImage, region: (u32, u32, u32, u32)) -> f64 {
    // The ground faces up: the sky's ambient and the sun's share of it (the default light).
    let l = throng::render::Light::default();
    let light = l.sky_ambient + l.sun * l.direction.normalize().y;
    let sky = [0.56f32, 0.68, 0.80].map(srgb);
    let lit = |c: [f32; 3]| [0, 1, 2].map(|i| srgb(c[i] * light[i]));
    let dark = lit([0.42, 0.44, 0.40]);
    let bright = lit([0.50, 0.52, 0.47]);
    let slack = 8.0;
    let (x0, y0, x1, y1) = region;
    let (mut crowd, mut all) = (0usize, 0usize);
    for y in y0..y1 {
        for x in x0..x1 {
            let p = image.get_pixel(x, y).0.map(f32::from);
            let near = |c: [f32; 3]| (0..3).all(|i| (p[i] - c[i]).abs() <= slack);
            let between = (0..3).all(|i| {
                p[i] >= dark[i].min(bright[i]) - slack && p[i] <= dark[i].max(bright[i]) + slack
            });
            // Sky blending into ground at the horizon lies between the two as well.
            let horizon = (0..3).all(|i| {
                p[i] >= dark[i].min(sky[i]) - slack && p[i] <= bright[i].max(sky[i]) + slack
            }) && (p[2] - p[0]) >= (bright[2] - bright[0]) - slack;
            if !(near(sky) || between || horizon) {
                crowd += 1;
            }
            all += 1;
        }
    }
    crowd as f64 / all.max(1) as f64
}

#[test]
fn windowed_demo_runs_under_xvfb_and_its_screenshot_shows_the_crowd() {
    let has_xvfb = Command::new("xvfb-run").arg("--help").output().is_ok();
    if !has_xvfb {
        assert!(
            !required("vulkan") && !required("gl"),
            "xvfb-run is missing (apt-get install xvfb) and THRONG_REQUIRE_BACKENDS asks for the windowed test"
        );
        eprintln!("skipped: xvfb-run is missing (apt-get install xvfb)");
        return;
    }
    let dir = common::temp_dir("demo-window");
    let file = shared_bake();
    for backend in ["vulkan", "gl"] {
        let png = dir.join(format!("window-{backend}.png"));
        let (code, out, err) = run(Command::new("xvfb-run")
            .args(["-a", "-s", "-screen 0 1024x768x24"])
            .arg(env!("CARGO_BIN_EXE_throng"))
            .args(["demo", "--bake"])
            .arg(file)
            .args(["--count", "300", "--frames", "120", "--size", "640x360"])
            // Flat: crowd_share knows the plaza's colours, not the terrace's stone.
            .args(["--ground", "flat"])
            .args(["--no-vsync", "--backend", backend, "--screenshot"])
            .arg(&png));
        if code != 0 && err.contains("adapter") && !required(backend) {
            eprintln!("skipped on {backend}: {err}");
            continue;
        }
        assert_eq!(code, 0, "{backend}: {out}\n{err}");
        assert!(out.contains("120 frames"), "{backend}: {out}");
        let image = image::open(&png).unwrap().to_rgba8();
        assert_eq!(image.dimensions(), (640, 360));
        let colours: std::collections::HashSet<[u8; 4]> = image.pixels().map(|p| p.0).collect();
        assert!(
            colours.len() > 100,
            "{backend}: only {} colours",
            colours.len()
        );
        // The panel sits at the top left; the right third shows only the scene. The crowd
        // covers several percent of it; 1% is far above what stray edge pixels could make.
        let share = crowd_share(&image, (430, 0, 640, 360));
        println!("{backend}: the crowd covers {share:.4} of the right third");
        // Under a half: the ground and the sky are told apart from the crowd (a light model
        // the test no longer matches would count them all).
        assert!(
            share > 0.01 && share < 0.5,
            "{backend}: the crowd covers {share:.4} of the picture"
        );
    }
}

#[test]
fn without_a_display_the_demo_says_why_and_writes_a_picture() {
    let dir = common::temp_dir("demo-headless");
    let file = shared_bake();
    let png = dir.join("crowd.png");
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_throng"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(&dir)
        .args(["demo", "--bake"])
        .arg(file)
        .args(["--count", "200", "--frames", "4", "--size", "320x180"])
        // Flat: crowd_share knows the plaza's colours, not the terrace's stone.
        .args(["--ground", "flat"]));
    if code != 0 && err.contains("adapter") && !required("vulkan") && !required("gl") {
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{out}\n{err}");
    let first = out.lines().next().unwrap_or_default();
    assert!(
        first.starts_with("No window: neither DISPLAY nor WAYLAND_DISPLAY is set;")
            && first.contains("crowd.png"),
        "{out}"
    );
    for part in [
        "adapter: ",
        "skinning: ",
        // No --shadows: the device's default, said as such.
        "shadows: ",
        "(the default on a ",
        "200 agents",
        "CPU: simulation",
        "wrote ",
    ] {
        assert!(out.contains(part), "missing {part:?} in:\n{out}");
    }
    // How long it will take, from its first frame, on stderr as progress is.
    let said: Vec<&str> = err.lines().filter(|l| l.contains("should take")).collect();
    assert!(
        said.len() == 1
            && said[0].starts_with("the first frame took ")
            && said[0].contains(": 4 frames should take about "),
        "{err}"
    );
    let image = image::open(&png).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (320, 180));
    let share = crowd_share(&image, (0, 0, 320, 180));
    assert!(share > 0.01 && share < 0.5, "the crowd covers {share:.4}");
}

/// The share of pixels of `image` in `region` (x0, y0, x1, y1) that the motion view draws
/// as moving: brighter than its dark grey for still pixels (0.02 linear, 39 sRGB) by more than
/// 24 levels in some channel (an eighth of full speed or more).
fn moving_share(image: &image::RgbaImage, region: (u32, u32, u32, u32)) -> f64 {
    let still = srgb(0.02);
    let (x0, y0, x1, y1) = region;
    let (mut moving, mut all) = (0usize, 0usize);
    for y in y0..y1 {
        for x in x0..x1 {
            let p = image.get_pixel(x, y).0;
            if p[..3].iter().any(|&c| f32::from(c) > still + 24.0) {
                moving += 1;
            }
            all += 1;
        }
    }
    moving as f64 / all.max(1) as f64
}

/// `--view motion`: the demo draws its motion vectors (headless, and in a window under Xvfb
/// where there is one): the still ground dark, walking agents coloured.
#[test]
fn the_motion_view_shows_the_walkers_on_still_ground() {
    let dir = common::temp_dir("demo-motion");
    let file = shared_bake();
    let png = dir.join("motion.png");
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(["demo", "--headless", "--view", "motion", "--bake"])
        .arg(file)
        .args([
            "--count",
            "300",
            "--frames",
            "10",
            "--size",
            "320x180",
            "--screenshot",
        ])
        .arg(&png));
    if code != 0 && err.contains("adapter") && !required("vulkan") && !required("gl") {
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(
        code, 0,
        "{out}
{err}"
    );
    let check = |image: &image::RgbaImage, what: &str| {
        let (w, h) = image.dimensions();
        let share = moving_share(image, (0, 0, w, h));
        println!("{what}: {share:.4} of the picture moves");
        // Walkers cover a few percent of the picture; the still ground, the sky and the
        // standing agents (most of it) do not move: well under a half.
        assert!(share > 0.01 && share < 0.5, "{what}: {share:.4} moves");
        // Much of it is drawn exactly as still (the ground between the agents, the sky).
        let still = image
            .pixels()
            .filter(|p| {
                p.0[..3]
                    .iter()
                    .all(|&c| (f32::from(c) - srgb(0.02)).abs() <= 2.0)
            })
            .count() as f64
            / f64::from(w * h);
        println!("{what}: {still:.4} of the picture is still");
        assert!(still > 0.3, "{what}: only {still:.4} is still");
    };
    check(&image::open(&png).unwrap().to_rgba8(), "headless");
    if Command::new("xvfb-run").arg("--help").output().is_err() {
        eprintln!("the windowed motion view skipped: xvfb-run is missing");
        return;
    }
    let png = dir.join("motion-window.png");
    let (code, out, err) = run(Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1024x768x24"])
        .arg(env!("CARGO_BIN_EXE_throng"))
        .args(["demo", "--view", "motion", "--bake"])
        .arg(file)
        .args(["--count", "300", "--frames", "10", "--size", "640x360"])
        .args(["--no-vsync", "--screenshot"])
        .arg(&png));
    assert_eq!(
        code, 0,
        "{out}
{err}"
    );
    let image = image::open(&png).unwrap().to_rgba8();
    // The right third: the panel covers the top left.
    let right = image::imageops::crop_imm(&image, 430, 0, 210, 360).to_image();
    check(&right, "window");
}

/// The LOD-off and `balanced` pictures of one scene, a few frames in: they differ where
/// distant agents use simplified meshes and show poses up to three frames old (rate 4), and
/// where their paths have drifted apart by those stale steps.
#[test]
fn balanced_lod_looks_like_no_lod() {
    let dir = common::temp_dir("demo-lod");
    let file = shared_bake();
    let mut pictures = Vec::new();
    for lod in ["off", "balanced"] {
        let png = dir.join(format!("{lod}.png"));
        let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["demo", "--headless", "--bake"])
            .arg(file)
            .args(["--count", "2000", "--frames", "8", "--size", "480x270"])
            .args(["--lod", lod, "--backend", "vulkan", "--screenshot"])
            .arg(&png));
        if code != 0 && err.contains("adapter") && !required("vulkan") {
            eprintln!("skipped: {err}");
            return;
        }
        assert_eq!(code, 0, "{lod}: {out}\n{err}");
        pictures.push(image::open(&png).unwrap().to_rgba8());
    }
    let (d, picture) = image_diff::compare(&pictures[0], &pictures[1]);
    picture.save(dir.join("off-vs-balanced.png")).unwrap();
    eprintln!(
        "off vs balanced: {d:?} (difference picture in {})",
        dir.display()
    );
    // Thresholds. Distant agents are a few pixels tall; their simplified meshes and poses up
    // to three frames old shift their outlines by a pixel or so: the difference picture shows
    // outlines only, a mean of about 1% of full scale (measured 1.03%) and 0.15% of pixels
    // showing something else (a channel off by more than a quarter of the range). A mean of
    // 2% and 1% of pixels changed leave room for drivers, while a broken LOD (a wrong mesh,
    // wrong frames, agents culled or missing) changes whole agents, several percent of the
    // picture at 2,000 agents.
    assert!(d.mean < 0.02, "mean difference {}", d.mean);
    assert!(d.changed < 0.01, "{} of pixels changed", d.changed);
}

/// The CPU path keeps each agent's skinned vertices and re-skins only the agents whose record
/// changed (due, or moved between levels); after frames of walking, fading and LOD changes
/// under `balanced`, its picture must still be the GPU path's.
#[test]
fn cpu_skinning_of_changed_agents_only_draws_what_gpu_skinning_draws() {
    let dir = common::temp_dir("demo-cpu");
    let file = shared_bake();
    let mut pictures = Vec::new();
    for skinning in ["gpu", "cpu"] {
        let png = dir.join(format!("{skinning}.png"));
        let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_throng"))
            .args(["demo", "--headless", "--bake"])
            .arg(file)
            .args(["--count", "400", "--frames", "16", "--size", "480x270"])
            .args([
                "--skinning",
                skinning,
                "--backend",
                "vulkan",
                "--screenshot",
            ])
            .arg(&png));
        if code != 0 && err.contains("adapter") && !required("vulkan") {
            eprintln!("skipped: {err}");
            return;
        }
        assert_eq!(code, 0, "{skinning}: {out}\n{err}");
        assert!(out.contains(&format!("skinning: {skinning}")), "{out}");
        pictures.push(image::open(&png).unwrap().to_rgba8());
    }
    let (d, _) = image_diff::compare(&pictures[0], &pictures[1]);
    eprintln!("gpu vs cpu: {d:?}");
    // As tests/render/render_gpu.rs's image parity: both paths compute the same matrices in f32, so
    // a mean of at most 1/255 and at most 0.2% of pixels showing something else; a stale
    // cached agent would show as a whole misplaced figure, far more.
    assert!(d.mean <= 1.0 / 255.0, "mean difference {}", d.mean);
    assert!(d.changed <= 0.002, "{} of pixels changed", d.changed);
}

#[test]
fn bad_demo_arguments_are_named() {
    let file = shared_bake();
    let f = file.display().to_string();
    for (args, expect) in [
        (vec!["--lod", "fast"], "no LOD preset 'fast' (there are: "),
        (vec!["--count", "0"], "--count 0: between 1 and"),
        (
            vec!["--screenshot", "x.jpg"],
            "x.jpg: --screenshot must end in .png",
        ),
        (
            vec!["--lod-config", "/nonexistent/lod.toml"],
            "/nonexistent/lod.toml",
        ),
    ] {
        let mut all = vec!["demo", "--headless", "--bake", &f];
        all.extend(args.iter().copied());
        let (code, _, err) = common::throng(&all);
        assert_eq!(code, 1, "{args:?}: {err}");
        assert!(
            err.contains(expect),
            "{args:?}: missing {expect:?} in {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
}

/// `throng` with no command is the demo with the built-in mannequin: from a copy of the
/// repository's recipe and character (the bake is missing, so it is baked first), without a
/// display, it writes crowd.png.
#[test]
fn no_arguments_bakes_the_default_recipe_and_starts_the_demo() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = common::temp_dir("demo-default");
    for f in [
        "bake/mannequin.toml",
        "assets/mannequin.toml",
        "assets/mannequin.glb",
    ] {
        let to = dir.join(f);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(root.join(f), &to).unwrap();
    }
    let (code, out, err) = run(Command::new(env!("CARGO_BIN_EXE_throng"))
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .current_dir(&dir));
    if code != 0 && err.contains("adapter") && !required("vulkan") && !required("gl") {
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{out}\n{err}");
    assert!(err.contains("baking "), "{err}");
    assert!(dir.join("bake/mannequin.throng").exists());
    assert!(out.contains("2000 agents"), "{out}");
    let image = image::open(dir.join("crowd.png")).unwrap().to_rgba8();
    assert_eq!(image.dimensions(), (1280, 720));
}
