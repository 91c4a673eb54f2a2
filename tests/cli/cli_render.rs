//! `throng render` end to end: a PNG of the crowd per backend and skinning path, the report
//! lines, and clear errors for bad arguments. Backends missing here skip with a reason unless
//! `THRONG_REQUIRE_BACKENDS` names them.

use crate::common;

use common::throng;

fn required(backend: &str) -> bool {
    common::backend_required(backend)
}

#[test]
fn render_writes_the_crowd_on_each_backend_and_path() {
    let dir = common::temp_dir("cli-render");
    let file = common::bake_default(&dir);
    let f = file.display().to_string();
    for (backend, skinning) in [("vulkan", "gpu"), ("gl", "gpu"), ("vulkan", "cpu")] {
        let png = dir.join(format!("{backend}-{skinning}.png"));
        let (code, out, err) = throng(&[
            "render",
            "--bake",
            &f,
            "--instances",
            "16",
            "--size",
            "200x120",
            "--backend",
            backend,
            "--skinning",
            skinning,
            "--out",
            &png.display().to_string(),
        ]);
        if code != 0 && err.contains("no ") && err.contains("adapter") && !required(backend) {
            eprintln!("skipped on {backend}: {err}");
            continue;
        }
        assert_eq!(code, 0, "{backend}/{skinning}: {err}");
        for part in [
            "adapter: ",
            &format!("skinning: {skinning}"),
            "texels: ",
            "drew 16 instances",
            "wrote ",
        ] {
            assert!(
                out.contains(part),
                "{backend}/{skinning}: missing {part:?} in:\n{out}"
            );
        }
        let image = image::open(&png).unwrap().to_rgba8();
        assert_eq!(image.dimensions(), (200, 120));
        let colours: std::collections::HashSet<[u8; 4]> = image.pixels().map(|p| p.0).collect();
        assert!(
            colours.len() > 100,
            "{backend}/{skinning}: {} colours",
            colours.len()
        );
    }
}

#[test]
fn bad_render_arguments_are_named() {
    let dir = common::temp_dir("cli-render-bad");
    let d = |n: &str| dir.join(n).display().to_string();
    let (code, _, err) = throng(&["render", "--out", &d("x.jpg"), "--bake", &d("m.throng")]);
    assert!(code != 0 && err.contains("--out must end in .png"), "{err}");
    let (code, _, err) = throng(&[
        "render",
        "--out",
        &d("x.png"),
        "--size",
        "12",
        "--bake",
        &d("m.throng"),
    ]);
    assert!(code != 0 && err.contains("WIDTHxHEIGHT"), "{err}");
    let (code, _, err) = throng(&[
        "render",
        "--out",
        &d("x.png"),
        "--bake",
        &d("missing.throng"),
    ]);
    assert!(code != 0 && err.contains("missing.throng"), "{err}");
    let file = common::bake_default(&dir);
    let (code, _, err) = throng(&[
        "render",
        "--out",
        &d("x.png"),
        "--bake",
        &file.display().to_string(),
        "--lod",
        "7",
    ]);
    assert!(
        code != 0 && err.contains("--lod 7: the bake has LOD levels 0 to 4"),
        "{err}"
    );
    let (code, _, err) = throng(&["render", "--out", &d("x.png"), "--shadows", "bogus"]);
    assert!(
        code != 0 && err.contains("unknown shadows 'bogus': use off, blob or map"),
        "{err}"
    );
    assert!(!dir.join("x.png").exists());
}

#[test]
fn render_says_which_shadows_and_every_help_names_the_flag() {
    for command in ["render", "demo", "bench"] {
        let (code, out, err) = throng(&[command, "--help"]);
        assert_eq!(code, 0, "{command}: {err}");
        assert!(out.contains("--shadows"), "{command} --help:\n{out}");
    }
    let dir = common::temp_dir("cli-render-shadows");
    let file = common::bake_default(&dir);
    let png = dir.join("off.png");
    let (code, out, err) = throng(&[
        "render",
        "--bake",
        &file.display().to_string(),
        "--instances",
        "4",
        "--size",
        "64x36",
        "--shadows",
        "off",
        "--out",
        &png.display().to_string(),
    ]);
    if code != 0
        && err.contains("no ")
        && err.contains("adapter")
        && !required("vulkan")
        && !required("gl")
    {
        eprintln!("skipped: {err}");
        return;
    }
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("shadows: off (asked for)\n"), "{out}");
}
