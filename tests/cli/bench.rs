//! A bounded smoke run of `throng bench`: every skinning path and two LOD presets at two small
//! counts on both backends, a few frames each; the table, CSV, JSON, plots and pictures it
//! writes, and the live baseline drawing what the baked path draws. A tinier run on the
//! shadows axis: each kind a case, compared with shadows `off`. Backends missing here skip (as
//! skipped cases in the report) unless `THRONG_REQUIRE_BACKENDS` names them.

use crate::common;

use throng::internal::Report;
use throng::render::pictures::image_diff;

/// The report a bench wrote into `out` (its results.json).
fn report_in(out: &std::path::Path) -> Report {
    serde_json::from_str(&std::fs::read_to_string(out.join("results.json")).unwrap()).unwrap()
}

#[test]
fn a_small_bench_writes_its_report_and_the_live_baseline_draws_the_bake() {
    let dir = common::temp_dir("bench-smoke");
    let file = common::bake_default(&dir);
    let out = dir.join("out");
    let (code, stdout, err) = common::throng(&[
        "bench",
        "--bake",
        &file.display().to_string(),
        "--instances",
        "60,120",
        "--frames",
        "2",
        "--warmup",
        "1",
        "--size",
        "160x90",
        "--lod",
        "off,balanced",
        "--backend",
        "vulkan,gl",
        "--out",
        &out.display().to_string(),
        "-q",
    ]);
    assert_eq!(code, 0, "{stdout}\n{err}");
    for part in ["baked gpu vs live", "animation cost", "wrote "] {
        assert!(stdout.contains(part), "missing {part:?} in:\n{stdout}");
    }
    let report = report_in(&out);
    // 2 backends × 2 counts × 4 paths × 2 presets.
    assert_eq!(report.results.len(), 32);
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert_eq!(csv.lines().count(), 33, "{csv}");
    for png in ["frame_time.png", "lod_quality.png"] {
        let image = image::open(out.join(png)).unwrap();
        assert!(image.width() >= 400, "{png}");
    }
    for r in &report.results {
        if let Some(why) = &r.skipped {
            assert!(
                !common::backend_required(&r.case.backend),
                "{:?} skipped: {why}",
                r.case
            );
            continue;
        }
        assert_eq!(r.frames, 2, "{:?}", r.case);
        assert!(r.frame_ms.median > 0.0 && r.drawn > 0.0, "{r:?}");
        assert!(
            r.cpu_ms.median >= r.simulate_ms.median,
            "the CPU total includes the simulation: {r:?}"
        );
        match r.case.skinning.as_str() {
            "live" => assert!(r.live_ms.median > 0.0, "{r:?}"),
            "cpu" => assert!(r.cpu_skin_ms.median > 0.0, "{r:?}"),
            _ => assert_eq!(r.live_ms.median + r.cpu_skin_ms.median, 0.0, "{r:?}"),
        }
        assert_eq!(r.quality.is_some(), r.case.lod != "off", "{:?}", r.case);
        // The default runs without shadows only, as runs before shadows did.
        assert_eq!(r.case.shadows, "off");
        assert!(r.shadows_quality.is_none(), "{:?}", r.case);
        // The live baseline evaluates the same animations exactly at each agent's time; the
        // bake interpolates between frames 1/30 s apart (within 0.5% of the height by the
        // recipe's budget), so edges may move by a pixel: at most 1% of pixels differ.
        if r.case.skinning == "live" {
            let name = |path: &str| {
                out.join("pictures").join(format!(
                    "{}-{path}-{}-off-{}.png",
                    r.case.backend, r.case.lod, r.case.instances
                ))
            };
            let live = image::open(name("live")).unwrap().to_rgba8();
            let baked = image::open(name("gpu")).unwrap().to_rgba8();
            let (d, _) = image_diff::compare(&live, &baked);
            assert!(d.changed < 0.01, "{:?}: {d:?}", r.case);
        }
    }
}

#[test]
fn the_shadows_axis_runs_each_kind_and_compares_it_with_none() {
    let dir = common::temp_dir("bench-shadows");
    let file = common::bake_default(&dir);
    let out = dir.join("out");
    // `blob` first on the command line: `off` still runs first, as the reference.
    let (code, stdout, err) = common::throng(&[
        "bench",
        "--bake",
        &file.display().to_string(),
        "--instances",
        "40",
        "--frames",
        "1",
        "--warmup",
        "0",
        "--size",
        "96x54",
        "--lod",
        "off",
        "--skinning",
        "gpu",
        "--shadows",
        "blob,off",
        "--backend",
        "vulkan,gl",
        "--out",
        &out.display().to_string(),
        "-q",
    ]);
    assert_eq!(code, 0, "{stdout}\n{err}");
    let report = report_in(&out);
    assert_eq!(report.settings.shadows, ["blob", "off"]);
    let kinds: Vec<(&str, &str)> = report
        .results
        .iter()
        .map(|r| (r.case.backend.as_str(), r.case.shadows.as_str()))
        .collect();
    assert_eq!(
        kinds,
        [
            ("vulkan", "off"),
            ("vulkan", "blob"),
            ("gl", "off"),
            ("gl", "blob")
        ]
    );
    let mut ran = 0;
    for r in &report.results {
        if let Some(why) = &r.skipped {
            assert!(
                !common::backend_required(&r.case.backend),
                "{:?} skipped: {why}",
                r.case
            );
            continue;
        }
        ran += 1;
        // ΔE against shadows `off` for blob only; no LOD comparison with only LOD `off`.
        assert_eq!(
            r.shadows_quality.is_some(),
            r.case.shadows == "blob",
            "{:?}",
            r.case
        );
        assert!(r.quality.is_none(), "{:?}", r.case);
        if let Some(q) = r.shadows_quality {
            assert!(q.mean.is_finite() && q.mean >= 0.0, "{q:?}");
        }
        let picture = out.join("pictures").join(format!(
            "{}-gpu-off-{}-40.png",
            r.case.backend, r.case.shadows
        ));
        assert!(picture.is_file(), "{} missing", picture.display());
        // The table row: its shadows, and the cost against none for blob.
        let row = stdout
            .lines()
            .find(|l| {
                let cells: Vec<&str> = l.split_whitespace().collect();
                cells.len() > 4 && cells[0] == r.case.backend && cells[3] == r.case.shadows
            })
            .unwrap_or_else(|| panic!("no row of {:?} in\n{stdout}", r.case));
        assert_eq!(row.contains('×'), r.case.shadows == "blob", "{row}");
        if r.case.shadows == "blob" {
            let line = "gpu shadows blob vs none: frame time ";
            assert!(stdout.contains(line), "missing {line:?} in\n{stdout}");
        }
    }
    if ran > 0 {
        let header = stdout.lines().find(|l| l.starts_with("backend")).unwrap();
        assert!(header.contains(" shadows "), "{header}");
        assert!(stdout.contains("vs no shadows"), "{stdout}");
    }
    let csv = std::fs::read_to_string(out.join("results.csv")).unwrap();
    let mut lines = csv.lines();
    let header: Vec<&str> = lines.next().unwrap().split(',').collect();
    let column = |name: &str| header.iter().position(|h| *h == name).unwrap();
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 4, "{csv}");
    let shadows: Vec<&str> = rows.iter().map(|r| r[column("shadows")]).collect();
    assert_eq!(shadows, ["off", "blob", "off", "blob"]);
    for (row, result) in rows.iter().zip(&report.results) {
        assert_eq!(
            row[column("shadows_quality_mean")].is_empty(),
            result.shadows_quality.is_none(),
            "{row:?}"
        );
    }
}

#[test]
fn a_quick_bench_measures_a_few_small_frames_and_estimates_the_whole_run() {
    let dir = common::temp_dir("bench-quick");
    let file = common::bake_default(&dir);
    let out = dir.join("out");
    let (code, stdout, err) = common::throng(&[
        "bench",
        "--quick",
        "--bake",
        &file.display().to_string(),
        "--lod",
        "off",
        "--out",
        &out.display().to_string(),
    ]);
    assert_eq!(code, 0, "{stdout}\n{err}");
    // Said twice: from the first frame, then after the first case, before the other seven.
    let said: Vec<&str> = err
        .lines()
        .filter(|l| l.contains("should take about"))
        .collect();
    assert_eq!(said.len(), 2, "{err}");
    assert!(
        said[0].starts_with("the first frame took ")
            && said[0].contains("the whole run (8 cases of 7 frames)"),
        "{err}"
    );
    assert!(said[1].contains("after 1 of 8 cases"), "{err}");
    let report = report_in(&out);
    // 2 backends × 4 paths, one count.
    assert_eq!(report.results.len(), 8);
    for r in report.results.iter().filter(|r| r.skipped.is_none()) {
        assert_eq!((r.case.instances, r.frames), (1000, 5), "{:?}", r.case);
    }
    // It stands for the flags it sets: given with one of them, it is refused, naming both.
    let (code, _, err) = common::throng(&["bench", "--quick", "--frames", "3"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--quick") && err.contains("--frames"), "{err}");
}

#[test]
fn a_bench_of_hours_says_so_after_its_first_frame_and_needs_long() {
    let dir = common::temp_dir("bench-long");
    let file = common::bake_default(&dir);
    // A folder the run would make: a stopped run leaves nothing, not even it.
    let out = dir.join("made/out");
    let args = |long: bool| {
        let mut a = vec![
            "bench".to_string(),
            "--bake".into(),
            file.display().to_string(),
            "--instances".into(),
            "10".into(),
            "--frames".into(),
            "100000000".into(),
            "--warmup".into(),
            "0".into(),
            "--size".into(),
            "64x36".into(),
            "--skinning".into(),
            "cpu".into(),
            "--lod".into(),
            "off".into(),
            "--backend".into(),
            "gl,vulkan".into(),
            "--out".into(),
            out.display().to_string(),
        ];
        if long {
            a.push("--long".into());
        }
        a
    };
    // 10^8 frames take days; the run stops after its first (about a second here). 120 s
    // allows for a loaded machine and a cold shader cache, and is far below the hours the
    // run asks for.
    let started = std::time::Instant::now();
    let a = args(false);
    let (code, stdout, err) = common::throng(&a.iter().map(String::as_str).collect::<Vec<_>>());
    let took = started.elapsed();
    if code == 0 && !common::backend_required("gl") && !common::backend_required("vulkan") {
        eprintln!("skipped: neither backend opened here, so no frame was timed\n{stdout}");
        return;
    }
    assert_eq!(code, 1, "{stdout}\n{err}");
    for part in [
        "error: the first frame took ",
        "so the whole run (2 cases of 100000000 frames) would take about ",
        "more than the hour a run may take without --long: give --long to run it anyway, or \
         --quick for a first look",
    ] {
        assert!(err.contains(part), "{part:?} not in {err}");
    }
    assert!(took.as_secs() < 120, "stopped after {took:?}");
    assert!(
        !dir.join("made").exists(),
        "the stopped run left its folder"
    );
    // With --long it goes on past its first frame, saying how long it will take.
    let err_file = dir.join("long.err");
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_throng"))
        .args(args(true))
        .stdout(std::process::Stdio::null())
        .stderr(std::fs::File::create(&err_file).unwrap())
        .spawn()
        .unwrap();
    let said = loop {
        let err = std::fs::read_to_string(&err_file).unwrap_or_default();
        if err.contains("should take about") || started.elapsed().as_secs() > 240 {
            break err;
        }
        if let Some(status) = child.try_wait().unwrap() {
            panic!("--long ended ({status}) before saying its length:\n{err}");
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(
        said.contains("the whole run (2 cases of 100000000 frames) should take about "),
        "{said}"
    );
    assert!(!said.contains("error"), "{said}");
}

#[test]
fn bad_bench_arguments_are_named() {
    for (args, expect) in [
        (
            vec!["--skinning", "magic"],
            "--skinning magic: give some of gpu, cpu, live, static",
        ),
        (vec!["--lod", "fast"], "--lod fast: no such preset"),
        (
            vec!["--shadows", "off,soft"],
            "--shadows soft: unknown shadows 'soft': use off, blob or map",
        ),
        (
            vec!["--backend", "metal"],
            "--backend metal: give vulkan, gl",
        ),
        (vec!["--frames", "0"], "--frames 0"),
        (
            vec!["--instances", "0"],
            "--instances: give positive counts",
        ),
        (
            vec!["--bake", "/nonexistent/x.throng"],
            "/nonexistent/x.throng",
        ),
    ] {
        let mut all = vec!["bench", "-q"];
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

/// Each preset's LOD levels drawn alone where it starts them, against LOD 0 there: the default
/// bake's levels 1 and 2 at `balanced`'s 20 m and 45 m, and at a preset starting them 4× nearer
/// (5 m, 11.25 m), where the agent covers about 16× the pixels. The levels differ from LOD 0
/// (ΔE above 0) but stay the same figure (mean ΔE under 5, p99 under 20: a level drawing
/// nothing or another pose would show a mean of tens over the pixels it leaves bare).
#[test]
fn the_bench_measures_each_lod_level_where_its_preset_starts_it() {
    let dir = common::temp_dir("bench-levels");
    let file = common::bake_default(&dir);
    let config = dir.join("lod.toml");
    let preset = |name: &str, d: [f32; 2]| {
        format!(
            "[{name}]\ndistances = [{:?}, {:?}]\nrates = [1]\noffscreen_rate = 1\nculling = true\n",
            d[0], d[1]
        )
    };
    let presets = format!(
        "[off]\ndistances = []\nrates = [1]\noffscreen_rate = 1\nculling = true\n{}{}",
        preset("balanced", [20.0, 45.0]),
        preset("near", [5.0, 11.25])
    );
    std::fs::write(&config, presets).unwrap();
    let out = dir.join("out");
    let (code, stdout, err) = common::throng(&[
        "bench",
        "--bake",
        &file.display().to_string(),
        "--config",
        &config.display().to_string(),
        "--instances",
        "20",
        "--frames",
        "1",
        "--warmup",
        "0",
        "--size",
        "480x270",
        "--lod",
        "off,balanced,near",
        "--skinning",
        "gpu",
        "--backend",
        "vulkan",
        "--out",
        &out.display().to_string(),
        "-q",
    ]);
    assert_eq!(code, 0, "{stdout}\n{err}");
    let report = report_in(&out);
    if report.levels.is_empty() && !common::backend_required("vulkan") {
        println!(
            "skipped: no Vulkan adapter ({:?})",
            report.results[0].skipped
        );
        return;
    }
    assert!(
        stdout.contains("LOD levels where each preset starts them"),
        "{stdout}"
    );
    let got: Vec<_> = report
        .levels
        .iter()
        .map(|l| {
            (
                l.lod.as_str(),
                l.level,
                l.distance,
                l.triangles,
                l.full_triangles,
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            ("balanced", 1, 20.0, 2660, 5320),
            ("balanced", 2, 45.0, 1064, 5320),
            ("near", 1, 5.0, 2660, 5320),
            ("near", 2, 11.25, 1064, 5320),
        ],
        "{stdout}"
    );
    for (far, near) in report.levels[..2].iter().zip(&report.levels[2..]) {
        println!("{far:?}\n{near:?}");
        // 4× nearer covers about 16× the pixels; 8× leaves room for edges and rounding.
        assert!(near.pixels > 8 * far.pixels, "{far:?} {near:?}");
        for l in [far, near] {
            assert!(
                l.quality.mean > 0.0 && l.quality.mean < 5.0 && l.quality.p99 < 20.0,
                "{l:?}"
            );
            // Both block drawings were timed (which is faster is the machine's to say: no
            // timing is asserted).
            assert!(l.level_ms > 0.0 && l.full_ms > 0.0, "{l:?}");
        }
    }
}
