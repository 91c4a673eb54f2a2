//! Test data shared by the report's tests: a sample report of two backends, four skinning
//! paths, two presets and two counts, and helpers to read what was written.

use std::path::{Path, PathBuf};

use super::PLOT_SIZE;
use crate::bench::results::{Adapter, Case, CaseResult, Machine, Quality, Report, Settings, Stat};

pub(super) fn stat(median: f64) -> Stat {
    Stat {
        median,
        p95: median * 1.25,
        p99: median * 1.5,
    }
}

/// A case that ran: CPU time `cpu` split over the phases its path has, frame time `frame`.
pub(super) fn case(
    backend: &str,
    skinning: &str,
    lod: &str,
    n: usize,
    cpu: f64,
    frame: f64,
) -> CaseResult {
    let share = |path: &str, f: f64| stat(if skinning == path { cpu * f } else { 0.0 });
    CaseResult {
        case: Case {
            backend: backend.to_string(),
            skinning: skinning.to_string(),
            lod: lod.to_string(),
            shadows: "off".to_string(),
            instances: n,
        },
        frames: 120,
        drawn: n as f64 * 0.8,
        stepped: n as f64 * 0.5,
        simulate_ms: stat(cpu * 0.3),
        lod_ms: stat(cpu * 0.1),
        upload_ms: stat(cpu * 0.2),
        cpu_skin_ms: share("cpu", 0.4),
        live_ms: share("live", 0.4),
        cpu_ms: stat(cpu),
        gpu_ms: stat(frame * 0.7),
        gpu_timing: if backend == "gl" {
            "wall"
        } else {
            "timestamps"
        }
        .to_string(),
        frame_ms: stat(frame),
        quality: None,
        shadows_quality: None,
        skipped: None,
        hybrid: None,
    }
}

pub(super) fn with_quality(mut r: CaseResult, mean: f64, p99: f64, changed: f64) -> CaseResult {
    r.quality = Some(Quality { mean, p99, changed });
    r
}

pub(super) const SKIP_REASON: &str = "no GL adapter, \"llvmpipe\" missing";

/// Two backends; gpu, live, static and cpu paths; presets off and balanced; two counts; one
/// skipped case (whose reason needs CSV quoting); gl at 10k has no `off` runs, so its
/// comparison falls back to `balanced`.
pub(super) fn sample() -> Report {
    let mut results = Vec::new();
    for (n, k) in [(1000, 1.0), (10_000, 10.0)] {
        let v = |skinning, lod, cpu, frame| case("vulkan", skinning, lod, n, cpu, frame);
        results.extend([
            v("gpu", "off", 0.8 * k, 4.0 * k.powf(0.88)),
            with_quality(
                v("gpu", "balanced", 0.6 * k, 3.0 * k.powf(0.85)),
                0.4 * k.sqrt(),
                3.1,
                0.01,
            ),
            v("live", "off", 10.0 * k, 14.0 * k.powf(0.93)),
            v("static", "off", 0.5 * k, 3.2 * k.powf(0.89)),
            v("cpu", "off", 6.0 * k, 9.0 * k.powf(0.92)),
            with_quality(
                v("cpu", "balanced", 4.0 * k, 6.5 * k.powf(0.9)),
                0.5 * k.sqrt(),
                3.6,
                0.015,
            ),
        ]);
    }
    let g = |skinning, lod, n, cpu, frame| case("gl", skinning, lod, n, cpu, frame);
    results.extend([
        g("gpu", "off", 1000, 1.0, 5.0),
        g("live", "off", 1000, 8.0, 20.0),
        g("static", "off", 1000, 0.7, 4.0),
        with_quality(g("gpu", "balanced", 1000, 0.8, 4.2), 0.9, 6.0, 0.03),
        CaseResult {
            skipped: Some(SKIP_REASON.to_string()),
            ..case("gl", "cpu", "off", 10_000, 0.0, 0.0)
        },
        g("gpu", "balanced", 10_000, 7.0, 36.0),
        g("live", "balanced", 10_000, 50.0, 110.0),
    ]);
    Report {
        date: "2025-06-01T12:00:00Z".to_string(),
        command: "throng bench --instances 1000,10000".to_string(),
        settings: Settings {
            bake: "bake/mannequin.toml".to_string(),
            instances: vec![1000, 10_000],
            lods: vec!["off".to_string(), "balanced".to_string()],
            skinning: ["gpu", "live", "static", "cpu"].map(String::from).to_vec(),
            shadows: vec!["off".to_string()],
            backends: vec!["vulkan".to_string(), "gl".to_string()],
            frames: 120,
            warmup: 30,
            size: (1280, 720),
            seed: 7,
            dt: 1.0 / 60.0,
            ground: "flat".into(),
        },
        machine: Machine {
            cpu: "Test CPU @ 3.0GHz".to_string(),
            cores: 2,
            os: "Linux 6.1".to_string(),
            throng_version: "0.1.0".to_string(),
            git_commit: Some("1f757ac".to_string()),
            adapters: vec![Adapter {
                backend: "vulkan".to_string(),
                name: "llvmpipe (LLVM 15.0.7, 256 bits)".to_string(),
                driver: "llvmpipe".to_string(),
                driver_info: "Mesa 23.2.1".to_string(),
            }],
        },
        results,
        levels: Vec::new(),
    }
}

/// A fresh empty directory, unique per test and process (left behind for inspection).
pub(super) fn temp_dir(tag: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("throng-bench-report-{}-{tag}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(super) fn get<'a>(
    r: &'a Report,
    backend: &str,
    skinning: &str,
    lod: &str,
    n: usize,
) -> &'a CaseResult {
    r.results
        .iter()
        .find(|c| {
            c.case.backend == backend
                && c.case.skinning == skinning
                && c.case.lod == lod
                && c.case.shadows == "off"
                && c.case.instances == n
        })
        .unwrap()
}

/// Distinct colours of a PNG, after checking its size.
pub(super) fn colours(path: &Path) -> usize {
    let image = image::open(path).unwrap().to_rgb8();
    assert_eq!(image.dimensions(), PLOT_SIZE, "{}", path.display());
    let mut seen: Vec<[u8; 3]> = image.pixels().map(|p| p.0).collect();
    seen.sort_unstable();
    seen.dedup();
    seen.len()
}
