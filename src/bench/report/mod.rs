//! Writing out what `throng bench` measured: the table printed to stdout (with a comparison
//! block that turns the cases into the ratios the project's claims rest on), `results.csv`,
//! `results.json` and two PNG plots (frame time by instance count; LOD presets' speed against
//! picture quality).
//!
//! Cases are compared in pairs that differ in one setting: a LOD preset with preset `off`
//! under the same shadows, shadows with shadows `off` under the same preset.
//!
//! - `table`: the text table and its comparison block ([`table`]);
//! - `files`: CSV and JSON ([`write_csv`], [`write_json`]);
//! - `chart`: what both plots are drawn with (axes, markers, colours, legends);
//! - `plot`: the two plots ([`plot_frame_time`], [`plot_lod_quality`]).
//!
//! This module holds what they share: looking up cases in a report, numbers as text, and
//! [`write_all`]. Every file goes through [`crate::atomic`]'s writer (temporary file beside the
//! target, flushed to disk, renamed over it), so a failed write never leaves half a file.

use std::path::{Path, PathBuf};

use super::error::BenchError;
use super::results::{CaseResult, Report};

mod chart;
mod files;
#[cfg(test)]
mod fixtures;
mod hybrid;
mod plot;
mod table;

pub use files::{write_csv, write_json};
pub use plot::{plot_frame_time, plot_lod_quality};
pub use table::table;

/// Width and height of both plots, pixels.
pub const PLOT_SIZE: (u32, u32) = (1000, 600);
/// The CSV file [`write_all`] writes.
pub const CSV_FILE: &str = "results.csv";
/// The JSON file [`write_all`] writes.
pub const JSON_FILE: &str = "results.json";
/// The frame-time plot [`write_all`] writes.
pub const FRAME_TIME_FILE: &str = "frame_time.png";
/// The LOD quality plot [`write_all`] writes.
pub const LOD_QUALITY_FILE: &str = "lod_quality.png";

/// The LOD preset every other preset is compared with, and the shadows every other kind is
/// compared with.
const OFF: &str = "off";

// ---------------------------------------------------------------------------------------------
// Looking up cases

/// The cases that ran (not skipped).
fn ran(report: &Report) -> impl Iterator<Item = &CaseResult> {
    report.results.iter().filter(|r| r.skipped.is_none())
}

/// The items in order of first appearance, each once.
fn distinct<T: PartialEq>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(&item) {
            out.push(item);
        }
    }
    out
}

/// Backends that ran, in run order.
fn backends(report: &Report) -> Vec<&str> {
    distinct(ran(report).map(|r| r.case.backend.as_str()))
}

/// Skinning paths: the settings' order, then any others in run order.
fn skinnings(report: &Report) -> Vec<&str> {
    distinct(
        (report.settings.skinning.iter())
            .chain(report.results.iter().map(|r| &r.case.skinning))
            .map(String::as_str),
    )
}

/// LOD presets: the settings' order, then any others in run order.
fn presets(report: &Report) -> Vec<&str> {
    distinct(
        (report.settings.lods.iter())
            .chain(report.results.iter().map(|r| &r.case.lod))
            .map(String::as_str),
    )
}

/// Shadows: the settings' order, then any others in run order.
fn shadow_kinds(report: &Report) -> Vec<&str> {
    distinct(
        (report.settings.shadows.iter())
            .chain(report.results.iter().map(|r| &r.case.shadows))
            .map(String::as_str),
    )
}

/// Instance counts that ran, ascending.
fn counts(report: &Report) -> Vec<usize> {
    let mut counts = distinct(ran(report).map(|r| r.case.instances));
    counts.sort_unstable();
    counts
}

/// The case that ran with these settings.
fn find<'a>(
    report: &'a Report,
    backend: &str,
    skinning: &str,
    lod: &str,
    shadows: &str,
    instances: usize,
) -> Option<&'a CaseResult> {
    ran(report).find(|r| {
        r.case.backend == backend
            && r.case.skinning == skinning
            && r.case.lod == lod
            && r.case.shadows == shadows
            && r.case.instances == instances
    })
}

/// Skinning paths `a` and `b` on one backend at one count, under the same LOD preset and
/// shadows: preset `off` without shadows when both ran it, else the first (shadows, preset)
/// both ran.
fn pair<'a>(
    report: &'a Report,
    backend: &str,
    instances: usize,
    a: &str,
    b: &str,
) -> Option<(&'a CaseResult, &'a CaseResult)> {
    let both = |(shadows, lod): (&str, &str)| {
        Some((
            find(report, backend, a, lod, shadows, instances)?,
            find(report, backend, b, lod, shadows, instances)?,
        ))
    };
    let lods = presets(report);
    both((OFF, OFF)).or_else(|| {
        shadow_kinds(report)
            .into_iter()
            .flat_map(|s| lods.iter().map(move |l| (s, *l)))
            .find_map(both)
    })
}

/// `num / den` when that is a finite number and `den` is positive.
fn ratio(num: f64, den: f64) -> Option<f64> {
    let r = num / den;
    (den > 0.0 && r.is_finite()).then_some(r)
}

// ---------------------------------------------------------------------------------------------
// Numbers as text

/// Milliseconds with three significant digits or so (at least one decimal below 100 ms).
fn ms(v: f64) -> String {
    let a = v.abs();
    if !v.is_finite() || a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else if a >= 1.0 {
        format!("{v:.2}")
    } else {
        format!("{v:.3}")
    }
}

/// A ratio with a `×`: two decimals below 10, one below 100, none above.
fn times(r: Option<f64>) -> String {
    match r {
        None => "n/a".to_string(),
        Some(r) if r >= 100.0 => format!("{r:.0}×"),
        Some(r) if r >= 10.0 => format!("{r:.1}×"),
        Some(r) => format!("{r:.2}×"),
    }
}

/// An instance count with a k or M suffix (1000 → `1k`, 2500 → `2.5k`).
fn count(n: f64) -> String {
    let (v, suffix) = if n >= 1e6 {
        (n / 1e6, "M")
    } else if n >= 1e3 {
        (n / 1e3, "k")
    } else {
        (n, "")
    };
    format!("{}{suffix}", tick(v))
}

/// An axis tick: three significant digits, no trailing zeros.
fn tick(v: f64) -> String {
    if v == 0.0 || !v.is_finite() {
        return format!("{v}");
    }
    let decimals = (2.0 - v.abs().log10().floor()).clamp(0.0, 6.0) as usize;
    let s = format!("{v:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

/// Characters, as a terminal shows them (`ΔE` and `×` are one column each).
fn width(s: &str) -> usize {
    s.chars().count()
}

// ---------------------------------------------------------------------------------------------
// Files

/// Maps an I/O error to [`BenchError::Io`] naming `path` and the step `what`.
fn io_error(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> BenchError {
    let path = path.to_path_buf();
    move |error| BenchError::Io { path, what, error }
}

/// Writes `bytes` to `path` atomically.
fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), BenchError> {
    crate::atomic::write_bytes(path, bytes).map_err(|e| BenchError::Io {
        path: e.path,
        what: e.what,
        error: e.error,
    })
}

/// Writes every file of a report into `dir` (created if needed): [`CSV_FILE`], [`JSON_FILE`],
/// [`FRAME_TIME_FILE`] and [`LOD_QUALITY_FILE`], and returns their paths in that order.
///
/// # Errors
/// The first failure, naming its file or `dir`; files written before it stay.
pub fn write_all(report: &Report, dir: &Path) -> Result<Vec<PathBuf>, BenchError> {
    std::fs::create_dir_all(dir).map_err(io_error(dir, "creating the folder"))?;
    let paths = [CSV_FILE, JSON_FILE, FRAME_TIME_FILE, LOD_QUALITY_FILE].map(|f| dir.join(f));
    let [csv, json, frame_time, lod_quality] = &paths;
    write_csv(report, csv)?;
    write_json(report, json)?;
    plot_frame_time(report, frame_time)?;
    plot_lod_quality(report, lod_quality)?;
    Ok(paths.to_vec())
}

#[cfg(test)]
mod tests {
    use super::fixtures::*;
    use super::*;

    #[test]
    fn write_all_writes_four_files_and_two_real_plots() {
        let report = sample();
        let dir = temp_dir("all").join("out");
        let paths = write_all(&report, &dir).unwrap();
        let names: Vec<_> = paths
            .iter()
            .map(|p| p.file_name().unwrap().to_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [CSV_FILE, JSON_FILE, FRAME_TIME_FILE, LOD_QUALITY_FILE]
        );
        assert!(
            paths
                .iter()
                .all(|p| p.parent() == Some(dir.as_path()) && p.is_file())
        );
        for png in &paths[2..] {
            let n = colours(png);
            eprintln!("{}: {n} colours", png.display());
            // Lines, markers and anti-aliased text give hundreds; a blank or failed drawing 1.
            assert!(n > 10, "{}: {n} colours", png.display());
        }
        // Only the four files: no temporary file left behind.
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 4);
    }

    /// Names of the entries of `dir`.
    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_failed_write_names_the_file_and_leaves_no_temporary_file() {
        let report = sample();
        let dir = temp_dir("fail");
        // A path whose directory is a file.
        let blocker = dir.join("blocker");
        std::fs::write(&blocker, "not a folder").unwrap();
        let path = blocker.join(CSV_FILE);
        let e = write_csv(&report, &path).unwrap_err().to_string();
        assert!(e.starts_with(&path.display().to_string()), "{e}");
        let e = write_all(&report, &blocker.join("out"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(&blocker.join("out").display().to_string())
                && e.contains("creating the folder"),
            "{e}"
        );
        assert_eq!(entries(&dir), ["blocker"]);

        // A target that is a folder: the temporary file is written, the rename fails, and the
        // temporary file is removed.
        let taken = dir.join("taken");
        std::fs::create_dir_all(taken.join(JSON_FILE)).unwrap();
        std::fs::create_dir_all(taken.join(FRAME_TIME_FILE)).unwrap();
        std::fs::write(taken.join(JSON_FILE).join("x"), "").unwrap();
        std::fs::write(taken.join(FRAME_TIME_FILE).join("x"), "").unwrap();
        let path = taken.join(JSON_FILE);
        let e = write_json(&report, &path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: renaming into place", path.display())),
            "{e}"
        );
        let path = taken.join(FRAME_TIME_FILE);
        let e = plot_frame_time(&report, &path).unwrap_err().to_string();
        assert!(
            e.starts_with(&format!("{}: renaming into place", path.display())),
            "{e}"
        );
        assert_eq!(entries(&taken), [FRAME_TIME_FILE, JSON_FILE]);
    }

    #[test]
    fn numbers_are_written_with_sensible_precision() {
        assert_eq!(
            [ms(0.01234), ms(1.234), ms(12.34), ms(123.4)],
            ["0.012", "1.23", "12.3", "123"]
        );
        assert_eq!(
            [
                times(Some(0.625)),
                times(Some(12.5)),
                times(Some(250.0)),
                times(None)
            ],
            ["0.62×", "12.5×", "250×", "n/a"]
        );
        assert_eq!(
            [count(500.0), count(2500.0), count(100_000.0), count(2e6)],
            ["500", "2.5k", "100k", "2M"]
        );
        assert_eq!(
            [tick(0.05), tick(2.5), tick(250.0), tick(0.0)],
            ["0.05", "2.5", "250", "0"]
        );
        assert_eq!(ratio(1.0, 0.0), None);
    }
}
