//! Writing out what `throng bench` measured: the table printed to stdout (with a comparison
//! block that turns the cases into the ratios the project's claims rest on), `results.csv`,
//! `results.json` and two PNG plots (frame time by instance count; LOD presets' speed against
//! picture quality).
//!
//! Files are written atomically: into a temporary file beside the target, flushed to disk, then
//! renamed over it, so a failed write never leaves half a file. Plots are drawn with plotters
//! into an RGB buffer, with egui's bundled Ubuntu Light font (no system fonts needed), and
//! encoded with `image`.

use std::fmt::Write as _;
use std::io::Write as _;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::error::BenchError;
use super::results::{CaseResult, Quality, Report, Stat};

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

/// The LOD preset every other preset is compared with.
const OFF: &str = "off";
/// How many times less CPU time per frame baked GPU skinning should take than evaluating every
/// agent's pose live: the project's headline claim.
const CPU_TARGET: f64 = 10.0;
/// Frame times spanning more than this factor are plotted on a logarithmic axis.
const LOG_SPAN: f64 = 20.0;
/// CIE76 ΔE of a just-noticeable difference, drawn as a reference line.
const JUST_NOTICEABLE: f64 = 2.3;

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
    instances: usize,
) -> Option<&'a CaseResult> {
    ran(report).find(|r| {
        r.case.backend == backend
            && r.case.skinning == skinning
            && r.case.lod == lod
            && r.case.instances == instances
    })
}

/// Skinning paths `a` and `b` on one backend at one count, under the same LOD preset: `off`
/// when both ran it, else the first preset both ran.
fn pair<'a>(
    report: &'a Report,
    backend: &str,
    instances: usize,
    a: &str,
    b: &str,
) -> Option<(&'a CaseResult, &'a CaseResult)> {
    let both = |lod: &str| {
        Some((
            find(report, backend, a, lod, instances)?,
            find(report, backend, b, lod, instances)?,
        ))
    };
    both(OFF).or_else(|| presets(report).into_iter().find_map(both))
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
// The table

/// One column of the table.
struct Column {
    /// The label over a run of columns ("CPU ms"); empty for none.
    group: &'static str,
    /// The column's own label.
    name: &'static str,
    /// Right-aligned (numbers) or left-aligned (names).
    right: bool,
}

const fn col(group: &'static str, name: &'static str, right: bool) -> Column {
    Column { group, name, right }
}

const COLUMNS: [Column; 19] = [
    col("", "backend", false),
    col("", "skinning", false),
    col("", "lod", false),
    col("", "instances", true),
    col("", "drawn", true),
    col("CPU ms", "median", true),
    col("CPU ms", "p95", true),
    col("CPU ms", "p99", true),
    col("CPU split, median ms", "simulate", true),
    col("CPU split, median ms", "cull/lod", true),
    col("CPU split, median ms", "upload", true),
    col("CPU split, median ms", "cpu skin", true),
    col("CPU split, median ms", "live", true),
    col("GPU ms", "median", true),
    col("frame ms", "median", true),
    col("frame ms", "p95", true),
    col("frame ms", "p99", true),
    col("ΔE vs off", "mean", true),
    col("ΔE vs off", "p99", true),
];

/// Columns before "drawn": a skipped case fills these, then says why.
const CASE_COLUMNS: usize = 4;
/// Between columns.
const GAP: &str = "  ";

/// A row of the table.
enum Row {
    /// A case that ran: one cell per column.
    Ran(Vec<String>),
    /// A case that did not: its settings and why.
    Skipped(Vec<String>, String),
}

fn row(r: &CaseResult, wall_mark: bool) -> Row {
    let case = vec![
        r.case.backend.clone(),
        r.case.skinning.clone(),
        r.case.lod.clone(),
        r.case.instances.to_string(),
    ];
    if let Some(why) = &r.skipped {
        return Row::Skipped(case, why.clone());
    }
    let gpu = match (r.gpu_timing == "wall", wall_mark) {
        (true, _) => format!("{}*", ms(r.gpu_ms.median)),
        // A space where others have the `*`, so the digits stay aligned.
        (false, true) => format!("{} ", ms(r.gpu_ms.median)),
        (false, false) => ms(r.gpu_ms.median),
    };
    let (q_mean, q_p99) = match r.quality {
        Some(q) => (format!("{:.2}", q.mean), format!("{:.2}", q.p99)),
        None => ("-".to_string(), "-".to_string()),
    };
    let mut cells = case;
    cells.extend([
        format!("{:.0}", r.drawn),
        ms(r.cpu_ms.median),
        ms(r.cpu_ms.p95),
        ms(r.cpu_ms.p99),
        ms(r.simulate_ms.median),
        ms(r.lod_ms.median),
        ms(r.upload_ms.median),
        ms(r.cpu_skin_ms.median),
        ms(r.live_ms.median),
        gpu,
        ms(r.frame_ms.median),
        ms(r.frame_ms.p95),
        ms(r.frame_ms.p99),
        q_mean,
        q_p99,
    ]);
    Row::Ran(cells)
}

/// Appends `cells` padded to `widths`, without trailing spaces.
fn push_line(out: &mut String, cells: &[String], widths: &[usize]) {
    let mut line = String::new();
    for (i, (cell, (w, c))) in cells.iter().zip(widths.iter().zip(&COLUMNS)).enumerate() {
        if i > 0 {
            line.push_str(GAP);
        }
        let pad = " ".repeat(w.saturating_sub(width(cell)));
        if c.right {
            line.push_str(&pad);
            line.push_str(cell);
        } else {
            line.push_str(cell);
            line.push_str(&pad);
        }
    }
    out.push_str(line.trim_end());
    out.push('\n');
}

/// Runs of columns under the same group label: (label, first column, end column).
fn groups() -> Vec<(&'static str, usize, usize)> {
    let mut runs: Vec<(&'static str, usize, usize)> = Vec::new();
    for (i, c) in COLUMNS.iter().enumerate() {
        match runs.last_mut() {
            Some(run) if run.0 == c.group => run.2 = i + 1,
            _ => runs.push((c.group, i, i + 1)),
        }
    }
    runs
}

/// The header block: when, what ran, on what.
fn header(report: &Report, out: &mut String) {
    let m = &report.machine;
    let s = &report.settings;
    let _ = writeln!(out, "throng bench, {}", report.date);
    if !report.command.is_empty() {
        let _ = writeln!(out, "command:  {}", report.command);
    }
    let _ = writeln!(out, "machine:  {}, {} cores, {}", m.cpu, m.cores, m.os);
    let commit = m.git_commit.as_deref().unwrap_or("unknown");
    let _ = writeln!(out, "throng:   {}, commit {commit}", m.throng_version);
    for a in &m.adapters {
        let driver = [a.driver.as_str(), a.driver_info.as_str()]
            .into_iter()
            .filter(|d| !d.is_empty())
            .collect::<Vec<_>>()
            .join(" ");
        let _ = write!(out, "adapter:  {}: {}", a.backend, a.name);
        if !driver.is_empty() {
            let _ = write!(out, "; driver {driver}");
        }
        out.push('\n');
    }
    let _ = writeln!(
        out,
        "settings: bake {}; {} frames after {} warm-up; {}×{} px; seed {}; dt {:.4} s",
        s.bake, s.frames, s.warmup, s.size.0, s.size.1, s.seed, s.dt
    );
}

/// The comparison block: the ratios the cases exist for.
fn comparison(report: &Report, out: &mut String) {
    let _ = writeln!(out, "Comparison (medians over frames):");
    let mut any = false;
    for backend in backends(report) {
        for n in counts(report) {
            let mut lines = Vec::new();
            if let Some((gpu, live)) = pair(report, backend, n, "gpu", "live") {
                let cpu = ratio(live.cpu_ms.median, gpu.cpu_ms.median);
                let verdict = match cpu {
                    Some(r) if r >= CPU_TARGET => ": met",
                    Some(_) => ": not met",
                    None => "",
                };
                lines.push(format!(
                    "baked gpu vs live: CPU time per frame {} less (target {CPU_TARGET}×{verdict}), \
                     frame time {} faster [LOD {}]",
                    times(cpu),
                    times(ratio(live.frame_ms.median, gpu.frame_ms.median)),
                    gpu.case.lod
                ));
            }
            if let Some((gpu, stat)) = pair(report, backend, n, "gpu", "static") {
                lines.push(format!(
                    "animation cost: gpu / static frame time = {} [LOD {}]",
                    times(ratio(gpu.frame_ms.median, stat.frame_ms.median)),
                    gpu.case.lod
                ));
            }
            for skinning in skinnings(report) {
                let Some(off) = find(report, backend, skinning, OFF, n) else {
                    continue;
                };
                for lod in presets(report).into_iter().filter(|p| *p != OFF) {
                    let Some(r) = find(report, backend, skinning, lod, n) else {
                        continue;
                    };
                    let quality = match r.quality {
                        Some(Quality { mean, p99, changed }) => format!(
                            "ΔE mean {mean:.2}, p99 {p99:.2}, {:.1}% of pixels changed",
                            changed * 100.0
                        ),
                        None => "no picture comparison".to_string(),
                    };
                    lines.push(format!(
                        "{skinning} {lod} vs off: frame time {}, {quality}",
                        times(ratio(r.frame_ms.median, off.frame_ms.median))
                    ));
                }
            }
            if !lines.is_empty() {
                any = true;
                let _ = writeln!(out, "  {backend}, {n} instances:");
                for line in lines {
                    let _ = writeln!(out, "    {line}");
                }
            }
        }
    }
    if !any {
        let _ = writeln!(
            out,
            "  nothing to compare (needs gpu with live or static, or a LOD preset with off, \
             on the same backend and instance count)"
        );
    }
}

/// The table `throng bench` prints: a header block (date, machine, versions, adapters,
/// settings), one row per case (CPU time with its split by phase, GPU time, frame time, the
/// picture's ΔE against the `off` preset; `skipped: why` for cases that did not run), and a
/// comparison block with the ratios the run exists for: baked GPU skinning against live pose
/// evaluation (CPU time per frame, target 10× less; frame time), animated against static
/// frame time, and each LOD preset's frame time and picture against `off`.
///
/// Pairs are compared under one LOD preset: `off` where both cases ran it, else the first
/// preset both ran (named in the line). Times are medians, in milliseconds.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    header(report, &mut out);
    out.push('\n');

    let wall = report
        .results
        .iter()
        .any(|r| r.skipped.is_none() && r.gpu_timing == "wall");
    let rows: Vec<Row> = report.results.iter().map(|r| row(r, wall)).collect();
    let mut widths: Vec<usize> = COLUMNS.iter().map(|c| width(c.name)).collect();
    for r in &rows {
        let cells = match r {
            Row::Ran(cells) | Row::Skipped(cells, _) => cells,
        };
        for (w, cell) in widths.iter_mut().zip(cells) {
            *w = (*w).max(width(cell));
        }
    }
    // Widen the last column of a group whose label is wider than its columns.
    let runs = groups();
    for &(label, start, end) in &runs {
        let span: usize = widths[start..end].iter().sum::<usize>() + GAP.len() * (end - start - 1);
        if let Some(last) = widths.get_mut(end - 1) {
            *last += width(label).saturating_sub(span);
        }
    }

    let mut group_line = String::new();
    for &(label, start, end) in &runs {
        let span: usize = widths[start..end].iter().sum::<usize>() + GAP.len() * (end - start - 1);
        if start > 0 {
            group_line.push_str(GAP);
        }
        group_line.push_str(label);
        group_line.push_str(&" ".repeat(span.saturating_sub(width(label))));
    }
    out.push_str(group_line.trim_end());
    out.push('\n');
    let names: Vec<String> = COLUMNS.iter().map(|c| c.name.to_string()).collect();
    push_line(&mut out, &names, &widths);
    let rule = widths.iter().sum::<usize>() + GAP.len() * (widths.len() - 1);
    out.push_str(&"-".repeat(rule.saturating_sub(GAP.len())));
    out.push('\n');
    for r in &rows {
        match r {
            Row::Ran(cells) => push_line(&mut out, cells, &widths),
            Row::Skipped(cells, why) => {
                let mut line = String::new();
                push_line(&mut line, cells, &widths[..CASE_COLUMNS]);
                let _ = writeln!(out, "{}{GAP}skipped: {why}", line.trim_end_matches('\n'));
            }
        }
    }
    if wall {
        out.push_str(
            "* GPU time measured as wall time from submit until the device finished (no \
             timestamp queries on this adapter): it includes waiting, so it is an upper bound.\n",
        );
    }
    out.push('\n');
    comparison(report, &mut out);
    out
}

// ---------------------------------------------------------------------------------------------
// Files

/// The temporary file beside `path` that a write goes through.
fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|f| f.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".to_string());
    path.with_file_name(format!(".{name}.tmp-{}", std::process::id()))
}

fn io_error(path: &Path, what: &'static str) -> impl FnOnce(std::io::Error) -> BenchError {
    let path = path.to_path_buf();
    move |source| BenchError::Io { path, what, source }
}

/// Writes `path` atomically: `write` fills the temporary file beside it, which is then flushed
/// to disk and renamed over `path`. On any error the temporary file is removed and `path` is
/// untouched.
fn write_atomic(
    path: &Path,
    write: impl FnOnce(&Path) -> Result<(), BenchError>,
) -> Result<(), BenchError> {
    let tmp = temp_path(path);
    let result = write(&tmp).and_then(|()| {
        std::fs::File::open(&tmp)
            .and_then(|f| f.sync_all())
            .map_err(io_error(path, "flushing to disk"))?;
        std::fs::rename(&tmp, path).map_err(io_error(path, "renaming into place"))
    });
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}

/// Writes `bytes` to `path` atomically.
fn write_bytes(path: &Path, bytes: &[u8]) -> Result<(), BenchError> {
    write_atomic(path, |tmp| {
        let mut f =
            std::fs::File::create(tmp).map_err(io_error(path, "creating a temporary file"))?;
        f.write_all(bytes).map_err(io_error(path, "writing"))
    })
}

/// One CSV field (RFC 4180): quoted, with quotes doubled, when it holds a comma, a quote or a
/// line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The statistics of a case, in CSV column order.
fn stats(r: &CaseResult) -> [(&'static str, &Stat); 8] {
    [
        ("simulate_ms", &r.simulate_ms),
        ("lod_ms", &r.lod_ms),
        ("upload_ms", &r.upload_ms),
        ("cpu_skin_ms", &r.cpu_skin_ms),
        ("live_ms", &r.live_ms),
        ("cpu_ms", &r.cpu_ms),
        ("gpu_ms", &r.gpu_ms),
        ("frame_ms", &r.frame_ms),
    ]
}

/// The CSV text of a report: a header row, then one row per case.
fn csv(report: &Report) -> String {
    let mut header: Vec<String> = ["backend", "skinning", "lod", "instances", "frames"]
        .into_iter()
        .chain(["drawn", "stepped"])
        .map(String::from)
        .collect();
    for (name, _) in stats(&CaseResult::default()) {
        header.extend(["median", "p95", "p99"].map(|s| format!("{name}_{s}")));
    }
    header.extend(
        [
            "gpu_timing",
            "quality_mean",
            "quality_p99",
            "quality_changed",
            "skipped",
        ]
        .map(String::from),
    );
    let mut out = header.join(",");
    out.push('\n');
    for r in &report.results {
        let mut fields = vec![
            r.case.backend.clone(),
            r.case.skinning.clone(),
            r.case.lod.clone(),
            r.case.instances.to_string(),
            r.frames.to_string(),
            r.drawn.to_string(),
            r.stepped.to_string(),
        ];
        for (_, s) in stats(r) {
            fields.extend([s.median, s.p95, s.p99].map(|v| v.to_string()));
        }
        fields.push(r.gpu_timing.clone());
        match r.quality {
            Some(q) => fields.extend([q.mean, q.p99, q.changed].map(|v| v.to_string())),
            None => fields.extend([String::new(), String::new(), String::new()]),
        }
        fields.push(r.skipped.clone().unwrap_or_default());
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Writes `results.csv`-style CSV: a header row, then one row per case with every field
/// flattened: the case (backend, skinning, lod, instances), frames, drawn, stepped, each
/// [`Stat`] as `<name>_median`, `_p95`, `_p99` (milliseconds), `gpu_timing`, `quality_mean`,
/// `quality_p99`, `quality_changed` (empty when the case has no picture comparison) and
/// `skipped` (empty when the case ran). Fields holding commas, quotes or line breaks are quoted
/// (RFC 4180); lines end in `\n`. Written atomically.
///
/// # Errors
/// [`BenchError::Io`] naming `path` and the step that failed.
pub fn write_csv(report: &Report, path: &Path) -> Result<(), BenchError> {
    write_bytes(path, csv(report).as_bytes())
}

/// Writes the whole report as pretty-printed JSON (the serde form of [`Report`]; it reads back
/// with `serde_json::from_str::<Report>`). Written atomically.
///
/// # Errors
/// [`BenchError::Json`] if the report cannot be serialised, [`BenchError::Io`] naming `path`
/// and the step that failed.
pub fn write_json(report: &Report, path: &Path) -> Result<(), BenchError> {
    let mut json = serde_json::to_string_pretty(report).map_err(|source| BenchError::Json {
        path: path.to_path_buf(),
        source,
    })?;
    json.push('\n');
    write_bytes(path, json.as_bytes())
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

// ---------------------------------------------------------------------------------------------
// Plots

type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The family the bundled font is registered as, and every plot's text uses.
const FONT: &str = "sans-serif";

/// Registers the bundled font with plotters, once per process.
fn fonts() -> Result<(), String> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font(FONT, FontStyle::Normal, epaint_default_fonts::UBUNTU_LIGHT).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err("the bundled font (Ubuntu Light) could not be loaded".to_string())
    }
}

/// Draws a [`PLOT_SIZE`] plot on white with `draw` and writes it to `path` as PNG, atomically.
fn write_plot(path: &Path, draw: impl FnOnce(&Area) -> DrawResult) -> Result<(), BenchError> {
    let plot_error = |what: String| BenchError::Plot {
        path: path.to_path_buf(),
        what,
    };
    fonts().map_err(plot_error)?;
    let (w, h) = PLOT_SIZE;
    let mut rgb = vec![0u8; w as usize * h as usize * 3];
    {
        let root = BitMapBackend::with_buffer(&mut rgb, (w, h)).into_drawing_area();
        (|| -> DrawResult {
            root.fill(&WHITE)?;
            draw(&root)?;
            root.present()?;
            Ok(())
        })()
        .map_err(|e| plot_error(e.to_string()))?;
    }
    let image = image::RgbImage::from_raw(w, h, rgb)
        .ok_or_else(|| plot_error("the drawing does not fill the image".to_string()))?;
    write_atomic(path, |tmp| {
        image
            .save_with_format(tmp, image::ImageFormat::Png)
            .map_err(|source| BenchError::Png {
                path: path.to_path_buf(),
                source,
            })
    })
}

/// Marker shapes, one per backend (frame time) or skinning path (LOD quality).
#[derive(Clone, Copy)]
enum Shape {
    Circle,
    Triangle,
    Square,
    Diamond,
}

const SHAPES: [Shape; 4] = [
    Shape::Circle,
    Shape::Triangle,
    Shape::Square,
    Shape::Diamond,
];

/// A marker of radius `r` pixels at `at`, filled or as an outline.
fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
    shape: Shape,
    at: C,
    r: i32,
    color: RGBColor,
    filled: bool,
) -> DynElement<'a, DB, C> {
    let style = if filled {
        color.filled()
    } else {
        color.stroke_width(2)
    };
    let outline = |points: Vec<(i32, i32)>| {
        if filled {
            (EmptyElement::at(at.clone()) + Polygon::new(points, style)).into_dyn()
        } else {
            let mut closed = points.clone();
            closed.extend(points.first().copied());
            (EmptyElement::at(at.clone()) + PathElement::new(closed, style)).into_dyn()
        }
    };
    match shape {
        Shape::Circle => (EmptyElement::at(at.clone()) + Circle::new((0, 0), r, style)).into_dyn(),
        Shape::Triangle => {
            let (dx, dy) = (r * 7 / 6, r * 2 / 3);
            outline(vec![(0, -r - 2), (dx, dy + 1), (-dx, dy + 1)])
        }
        Shape::Square => {
            let s = r * 5 / 6;
            outline(vec![(-s, -s), (s, -s), (s, s), (-s, s)])
        }
        Shape::Diamond => {
            let s = r + 1;
            outline(vec![(0, -s), (s, 0), (0, s), (-s, 0)])
        }
    }
}

/// Tableau 10: distinct on white, and readable by most colour-blind viewers.
const PALETTE: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];

/// The colour of a skinning path: fixed for the four known paths, so plots of different runs
/// read alike; others take the rest of the palette in order.
fn skinning_colour(skinning: &str, index: usize) -> RGBColor {
    match skinning {
        "gpu" => PALETTE[0],
        "cpu" => PALETTE[2],
        "live" => PALETTE[3],
        "static" => PALETTE[7],
        _ => [4, 5, 6, 8, 9, 1].map(|i| PALETTE[i])[index % 6],
    }
}

/// `c` mixed towards white by `t` (0: `c`, 1: white).
fn lighter(c: RGBColor, t: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * t).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// One line of a legend.
enum Key {
    /// A heading over the entries below it.
    Heading(String),
    /// An entry: its swatch (a line, plain or dashed, and/or a marker) and label.
    Entry {
        label: String,
        color: RGBColor,
        line: Option<bool>,
        marker: Option<(Shape, bool, i32)>,
    },
    /// A line of explanation without a swatch.
    Note(String),
}

/// The width the legend needs for `keys`, pixels.
fn legend_width(keys: &[Key]) -> u32 {
    if keys.is_empty() {
        return 0;
    }
    let chars = keys
        .iter()
        .map(|k| match k {
            Key::Heading(s) | Key::Note(s) => width(s),
            Key::Entry { label, .. } => width(label) + 7,
        })
        .max()
        .unwrap_or(0);
    // About 8 px a character at 15 px, plus margins.
    (chars as u32 * 8 + 30).clamp(170, 360)
}

/// Draws a legend down `area` from `top` pixels.
fn legend(area: &Area, top: i32, keys: &[Key]) -> DrawResult {
    let (_, h) = area.dim_in_pixel();
    let rows = keys.len().max(1) as i32;
    let step = ((h as i32 - top - 10) / rows).clamp(12, 24);
    let font_px = (step - 7).clamp(10, 15);
    let text = (FONT, font_px)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let heading = (FONT, font_px + 1)
        .into_font()
        .color(&BLACK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let note = (FONT, font_px - 1)
        .into_font()
        .color(&RGBColor(80, 80, 80))
        .pos(Pos::new(HPos::Left, VPos::Center));
    let x0 = 10;
    for (i, key) in keys.iter().enumerate() {
        let y = top + step * i as i32 + step / 2;
        match key {
            Key::Heading(s) => area.draw(&Text::new(s.as_str(), (x0, y), heading.clone()))?,
            Key::Note(s) => area.draw(&Text::new(s.as_str(), (x0, y), note.clone()))?,
            Key::Entry {
                label,
                color,
                line,
                marker: m,
            } => {
                let style = color.stroke_width(2);
                match line {
                    Some(false) => {
                        area.draw(&PathElement::new(vec![(x0 + 4, y), (x0 + 40, y)], style))?
                    }
                    Some(true) => {
                        for x in [x0 + 4, x0 + 17, x0 + 30] {
                            area.draw(&PathElement::new(vec![(x, y), (x + 8, y)], style))?;
                        }
                    }
                    None => {}
                }
                if let Some((shape, filled, r)) = *m {
                    area.draw(&marker(shape, (x0 + 22, y), r, *color, filled))?;
                }
                area.draw(&Text::new(label.as_str(), (x0 + 50, y), text.clone()))?;
            }
        }
    }
    Ok(())
}

/// One plot axis. A logarithmic axis is drawn as log10 of the values on a linear axis, so
/// linear and logarithmic plots are one chart type, and its ticks can sit where we choose
/// (at the measured instance counts, at 1-2-5 steps). It is its own plotters coordinate.
#[derive(Clone)]
struct Axis {
    log: bool,
    /// Drawn range (log10 of values on a log axis).
    range: Range<f64>,
    /// Ticks, drawn values.
    ticks: Vec<f64>,
}

impl Axis {
    /// A linear axis over `lo..hi` (widened when empty), with about six round ticks.
    fn linear(lo: f64, hi: f64) -> Self {
        let (lo, hi) = if hi > lo {
            (lo, hi)
        } else {
            (lo - 1.0, lo + 1.0)
        };
        let raw = (hi - lo) / 6.0;
        let mag = 10f64.powf(raw.log10().floor());
        let step = mag
            * match raw / mag {
                n if n < 1.5 => 1.0,
                n if n < 3.0 => 2.0,
                n if n < 7.0 => 5.0,
                _ => 10.0,
            };
        let first = (lo / step).ceil() as i64;
        let last = (hi / step).floor() as i64;
        let ticks = (first..=last).map(|k| k as f64 * step).collect();
        Self {
            log: false,
            range: lo..hi,
            ticks,
        }
    }

    /// A logarithmic axis over the positive values `lo..hi`, padded by `pad` of its span in
    /// decades (at least 0.1 decade), with ticks at `ticks` (values) or, when `None`, at
    /// 1-2-5 steps.
    fn log(lo: f64, hi: f64, pad: f64, ticks: Option<Vec<f64>>) -> Self {
        let (l, h) = (lo.log10(), hi.log10());
        let pad = ((h - l) * pad).max(0.1);
        let range = (l - pad)..(h + pad);
        let ticks = match ticks {
            Some(t) => t.into_iter().map(f64::log10).collect(),
            None => {
                let decades = range.start.floor() as i32..=range.end.ceil() as i32;
                let steps = |mantissas: &[f64]| -> Vec<f64> {
                    decades
                        .clone()
                        .flat_map(|d| mantissas.iter().map(move |m| (m * 10f64.powi(d)).log10()))
                        .filter(|t| range.contains(t))
                        .collect()
                };
                let ticks = steps(&[1.0, 2.0, 5.0]);
                if ticks.len() > 12 {
                    // Many decades: one tick each, so labels do not overlap.
                    steps(&[1.0])
                } else if ticks.len() >= 3 {
                    ticks
                } else {
                    steps(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
                }
            }
        };
        Self {
            log: true,
            range,
            ticks,
        }
    }

    /// Where value `v` is drawn.
    fn at(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// The value drawn at `d`.
    fn value(&self, d: f64) -> f64 {
        if self.log { 10f64.powf(d) } else { d }
    }
}

impl Ranged for Axis {
    // Labels come from the charts' formatters; this only makes plotters' mesh accept the axis.
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.range.end - self.range.start;
        let t = if span > 0.0 {
            (v - self.range.start) / span
        } else {
            0.5
        };
        limit.0 + (f64::from(limit.1 - limit.0) * t).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines and labels at the ticks only: no light lines between them.
        if hint.weight().allow_light_points() {
            Vec::new()
        } else {
            self.ticks.clone()
        }
    }

    fn range(&self) -> Range<f64> {
        self.range.clone()
    }
}

type Chart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Axis labels and descriptions of a chart.
struct Labels<'a> {
    x_desc: &'a str,
    y_desc: &'a str,
    x_tick: &'a dyn Fn(f64) -> String,
    y_tick: &'a dyn Fn(f64) -> String,
}

/// A chart with its mesh, axes and labels on `area`.
fn chart<'a, 'b>(
    area: &'a Area<'b>,
    x: &Axis,
    y: &Axis,
    labels: &Labels,
) -> Result<Chart<'a, 'b>, Box<dyn std::error::Error>> {
    let mut chart = ChartBuilder::on(area)
        .margin_top(10)
        .margin_right(20)
        .margin_left(10)
        .x_label_area_size(55)
        .y_label_area_size(75)
        .build_cartesian_2d(x.clone(), y.clone())?;
    let x_fmt = |d: &f64| (labels.x_tick)(x.value(*d));
    let y_fmt = |d: &f64| (labels.y_tick)(y.value(*d));
    chart
        .configure_mesh()
        .x_desc(labels.x_desc)
        .y_desc(labels.y_desc)
        .x_label_formatter(&x_fmt)
        .y_label_formatter(&y_fmt)
        .label_style((FONT, 15))
        .axis_desc_style((FONT, 17))
        .bold_line_style(BLACK.mix(0.12))
        .axis_style(BLACK.mix(0.8))
        .draw()?;
    Ok(chart)
}

/// Splits `root` into a title strip, the chart area and a legend column `legend_w` wide.
fn layout<'a>(
    root: &Area<'a>,
    title: &str,
    legend_w: u32,
) -> Result<(Area<'a>, Area<'a>), Box<dyn std::error::Error>> {
    let body = root.titled(title, (FONT, 24).into_font().color(&BLACK))?;
    let (w, _) = body.dim_in_pixel();
    Ok(body.split_horizontally(w.saturating_sub(legend_w)))
}

/// A note centred on a chart's plotting area.
fn centred_note(chart: &Chart, x: &Axis, y: &Axis, note: &str) -> DrawResult {
    let style = (FONT, 20)
        .into_font()
        .color(&RGBColor(90, 90, 90))
        .pos(Pos::new(HPos::Center, VPos::Center));
    let at = (
        (x.range.start + x.range.end) / 2.0,
        (y.range.start + y.range.end) / 2.0,
    );
    chart.plotting_area().draw(&Text::new(note, at, style))?;
    Ok(())
}

/// One line of the frame-time plot.
struct Series<'a> {
    backend: &'a str,
    skinning: &'a str,
    lod: &'a str,
    /// (instances, median frame ms), by instances.
    points: Vec<(f64, f64)>,
}

/// Plots median frame time against instance count, one line with markers per (backend,
/// skinning, LOD preset): colour by skinning path (lighter for later presets), a solid or
/// dashed line and marker shape by backend. The instance axis is logarithmic, with a tick at
/// each measured count; the time axis is logarithmic when the times span more than 20×.
/// [`PLOT_SIZE`] pixels, written atomically; cases that were skipped or measured no time are
/// left out (an empty plot says so).
///
/// # Errors
/// [`BenchError::Plot`], [`BenchError::Png`] or [`BenchError::Io`], naming `path`.
pub fn plot_frame_time(report: &Report, path: &Path) -> Result<(), BenchError> {
    let mut series: Vec<Series> = Vec::new();
    for r in ran(report) {
        if !(r.frame_ms.median > 0.0 && r.frame_ms.median.is_finite() && r.case.instances > 0) {
            continue;
        }
        let point = (r.case.instances as f64, r.frame_ms.median);
        let c = &r.case;
        match series
            .iter_mut()
            .find(|s| s.backend == c.backend && s.skinning == c.skinning && s.lod == c.lod)
        {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                backend: &c.backend,
                skinning: &c.skinning,
                lod: &c.lod,
                points: vec![point],
            }),
        }
    }
    for s in &mut series {
        s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
    }
    let all = || series.iter().flat_map(|s| s.points.iter().copied());
    let backends = distinct(series.iter().map(|s| s.backend));
    let skinnings = skinnings(report);
    let presets = presets(report);
    let style = |s: &Series| {
        let b = backends.iter().position(|b| *b == s.backend).unwrap_or(0);
        let k = skinnings.iter().position(|k| *k == s.skinning).unwrap_or(0);
        let p = presets.iter().position(|p| *p == s.lod).unwrap_or(0);
        let shade = 0.55 * p as f64 / presets.len().max(2).saturating_sub(1) as f64;
        let color = lighter(skinning_colour(s.skinning, k), shade);
        (color, b % 2 == 1, SHAPES[b % SHAPES.len()])
    };

    let (x, y) = if series.is_empty() {
        (
            Axis::log(100.0, 100_000.0, 0.05, None),
            Axis::linear(0.0, 10.0),
        )
    } else {
        let xs = distinct(all().map(|p| p.0.to_bits()));
        let xs: Vec<f64> = xs.into_iter().map(f64::from_bits).collect();
        let (xlo, xhi) = xs
            .iter()
            .fold((f64::MAX, f64::MIN), |(l, h), v| (l.min(*v), h.max(*v)));
        let (ylo, yhi) = all().fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p.1), h.max(p.1)));
        let y = if yhi / ylo > LOG_SPAN {
            Axis::log(ylo, yhi, 0.06, None)
        } else {
            Axis::linear(0.0, yhi * 1.08)
        };
        (Axis::log(xlo, xhi, 0.06, Some(xs)), y)
    };

    let mut keys = Vec::new();
    for backend in &backends {
        keys.push(Key::Heading(backend.to_string()));
        for s in series.iter().filter(|s| s.backend == *backend) {
            let (color, dashed, shape) = style(s);
            keys.push(Key::Entry {
                label: format!("{} · {}", s.skinning, s.lod),
                color,
                line: Some(dashed),
                marker: Some((shape, true, 4)),
            });
        }
    }
    let y_desc = if y.log {
        "frame time, median (ms, log scale)"
    } else {
        "frame time, median (ms)"
    };

    write_plot(path, |root| {
        let (plot, side) = layout(root, "Frame time by instance count", legend_width(&keys))?;
        let labels = Labels {
            x_desc: "instances (log scale)",
            y_desc,
            x_tick: &count,
            y_tick: &tick,
        };
        let mut chart = chart(&plot, &x, &y, &labels)?;
        if series.is_empty() {
            centred_note(&chart, &x, &y, "no frame times measured")?;
        }
        for s in &series {
            let (color, dashed, shape) = style(s);
            let points: Vec<(f64, f64)> = s.points.iter().map(|p| (x.at(p.0), y.at(p.1))).collect();
            let line = color.stroke_width(2);
            if dashed {
                chart.draw_series(DashedLineSeries::new(points.clone(), 9, 5, line))?;
            } else {
                chart.draw_series(LineSeries::new(points.clone(), line))?;
            }
            // One by one: `draw_series` would need the markers' type to be 'static, which a
            // backend borrowing its buffer is not.
            for p in points {
                chart
                    .plotting_area()
                    .draw(&marker(shape, p, 4, color, true))?;
            }
        }
        legend(&side, 10, &keys)
    })
}

/// One point of the LOD quality plot.
struct QualityPoint<'a> {
    skinning: &'a str,
    lod: &'a str,
    backend: &'a str,
    instances: usize,
    /// Frame time relative to `off`.
    speed: f64,
    /// Mean ΔE against `off`.
    delta_e: f64,
}

/// Plots, for each LOD preset other than `off`, a point per (backend, skinning path, instance
/// count) at (its median frame time relative to `off`'s, its mean ΔE against `off`'s picture),
/// so a preset's speed and its cost in picture quality read side by side: colour by preset,
/// marker shape by skinning path, filled for the first backend and outlined for others, size
/// by instance count. Dashed lines mark "as fast as off" (1×) and a just-noticeable difference
/// (ΔE 2.3). With no such pairs the axes are drawn with a note "no LOD presets to compare".
/// [`PLOT_SIZE`] pixels, written atomically.
///
/// # Errors
/// [`BenchError::Plot`], [`BenchError::Png`] or [`BenchError::Io`], naming `path`.
pub fn plot_lod_quality(report: &Report, path: &Path) -> Result<(), BenchError> {
    let mut points = Vec::new();
    for r in ran(report).filter(|r| r.case.lod != OFF) {
        let c = &r.case;
        let Some(q) = r.quality else { continue };
        let Some(off) = find(report, &c.backend, &c.skinning, OFF, c.instances) else {
            continue;
        };
        let Some(speed) = ratio(r.frame_ms.median, off.frame_ms.median) else {
            continue;
        };
        if q.mean.is_finite() {
            points.push(QualityPoint {
                skinning: &c.skinning,
                lod: &c.lod,
                backend: &c.backend,
                instances: c.instances,
                speed,
                delta_e: q.mean,
            });
        }
    }
    let lods = distinct(
        presets(report)
            .into_iter()
            .filter(|p| points.iter().any(|q| q.lod == *p)),
    );
    let all_skinnings = skinnings(report);
    let skins = distinct(
        all_skinnings
            .iter()
            .copied()
            .filter(|k| points.iter().any(|q| q.skinning == *k)),
    );
    let backends = distinct(points.iter().map(|p| p.backend));
    let ns = distinct(points.iter().map(|p| p.instances));
    let (nlo, nhi) = ns
        .iter()
        .fold((usize::MAX, 0), |(l, h), n| (l.min(*n), h.max(*n)));
    // Marker radius 4 to 9 px by instance count, on a log scale.
    let radius = |n: usize| {
        let t = if nhi > nlo {
            ((n as f64).ln() - (nlo as f64).ln()) / ((nhi as f64).ln() - (nlo as f64).ln())
        } else {
            0.5
        };
        4 + (t * 5.0).round() as i32
    };
    let style = |p: &QualityPoint| {
        let l = lods.iter().position(|l| *l == p.lod).unwrap_or(0);
        let k = skins.iter().position(|k| *k == p.skinning).unwrap_or(0);
        let b = backends.iter().position(|b| *b == p.backend).unwrap_or(0);
        (
            PALETTE[(l + 1) % PALETTE.len()],
            SHAPES[k % SHAPES.len()],
            b == 0,
        )
    };

    let (x, y) = if points.is_empty() {
        (Axis::linear(0.0, 1.5), Axis::linear(0.0, 5.0))
    } else {
        let (xlo, xhi) = points.iter().fold((1.0f64, 1.0f64), |(l, h), p| {
            (l.min(p.speed), h.max(p.speed))
        });
        let pad = ((xhi - xlo) * 0.08).max(0.05);
        let yhi = points.iter().fold(JUST_NOTICEABLE, |h, p| h.max(p.delta_e));
        (
            Axis::linear((xlo - pad).max(0.0), xhi + pad),
            Axis::linear(0.0, yhi * 1.12),
        )
    };

    let mut keys = Vec::new();
    if !points.is_empty() {
        keys.push(Key::Heading("LOD preset".to_string()));
        for lod in &lods {
            let color = PALETTE[(lods.iter().position(|l| l == lod).unwrap_or(0) + 1) % 10];
            keys.push(Key::Entry {
                label: lod.to_string(),
                color,
                line: None,
                marker: Some((Shape::Circle, true, 5)),
            });
        }
        keys.push(Key::Heading("skinning".to_string()));
        for (k, skinning) in skins.iter().enumerate() {
            keys.push(Key::Entry {
                label: skinning.to_string(),
                color: RGBColor(60, 60, 60),
                line: None,
                marker: Some((SHAPES[k % SHAPES.len()], true, 5)),
            });
        }
        keys.push(Key::Heading("backend".to_string()));
        for (b, backend) in backends.iter().enumerate() {
            keys.push(Key::Entry {
                label: backend.to_string(),
                color: RGBColor(60, 60, 60),
                line: None,
                marker: Some((Shape::Circle, b == 0, 5)),
            });
        }
        keys.push(Key::Note(format!(
            "larger: more instances ({}–{})",
            count(nlo as f64),
            count(nhi as f64)
        )));
    }

    write_plot(path, |root| {
        let (plot, side) = layout(
            root,
            "LOD presets: speed against picture quality",
            legend_width(&keys),
        )?;
        let x_tick = |v: f64| format!("{}×", tick(v));
        let labels = Labels {
            x_desc: "frame time vs off (×)",
            y_desc: "mean ΔE vs off",
            x_tick: &x_tick,
            y_tick: &tick,
        };
        let mut chart = chart(&plot, &x, &y, &labels)?;
        if points.is_empty() {
            return centred_note(&chart, &x, &y, "no LOD presets to compare");
        }
        let reference = RGBColor(120, 120, 120).stroke_width(1);
        chart.draw_series(DashedLineSeries::new(
            [(1.0, y.range.start), (1.0, y.range.end)],
            6,
            4,
            reference,
        ))?;
        chart.draw_series(DashedLineSeries::new(
            [
                (x.range.start, JUST_NOTICEABLE),
                (x.range.end, JUST_NOTICEABLE),
            ],
            6,
            4,
            reference,
        ))?;
        // Labels beside the reference lines, placed in pixels (on `root`, whose coordinates
        // are the image's) so they sit just off the lines: the JND label at the left end above
        // its line, "as fast as off" at the top, left of its line.
        let note = (FONT, 13)
            .into_font()
            .color(&RGBColor(100, 100, 100))
            .pos(Pos::new(HPos::Left, VPos::Bottom));
        let (px, py) = chart.backend_coord(&(x.range.start, JUST_NOTICEABLE));
        root.draw(&Text::new(
            "ΔE 2.3: just noticeable",
            (px + 6, py - 3),
            note.clone(),
        ))?;
        let (px, py) = chart.backend_coord(&(1.0, y.range.end));
        root.draw(&Text::new(
            "as fast as off",
            (px - 6, py + 4),
            note.pos(Pos::new(HPos::Right, VPos::Top)),
        ))?;
        // Larger markers first, so small ones stay visible on top.
        let mut order: Vec<&QualityPoint> = points.iter().collect();
        order.sort_by_key(|p| std::cmp::Reverse(p.instances));
        for p in order {
            let (color, shape, filled) = style(p);
            let at = (p.speed, p.delta_e);
            chart
                .plotting_area()
                .draw(&marker(shape, at, radius(p.instances), color, filled))?;
        }
        legend(&side, 10, &keys)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::results::{Adapter, Case, Machine, Settings};

    fn stat(median: f64) -> Stat {
        Stat {
            median,
            p95: median * 1.25,
            p99: median * 1.5,
        }
    }

    /// A case that ran: CPU time `cpu` split over the phases its path has, frame time `frame`.
    fn case(
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
            skipped: None,
        }
    }

    fn with_quality(mut r: CaseResult, mean: f64, p99: f64, changed: f64) -> CaseResult {
        r.quality = Some(Quality { mean, p99, changed });
        r
    }

    const SKIP_REASON: &str = "no GL adapter, \"llvmpipe\" missing";

    /// Two backends; gpu, live, static and cpu paths; presets off and balanced; two counts; one
    /// skipped case (whose reason needs CSV quoting); gl at 10k has no `off` runs, so its
    /// comparison falls back to `balanced`.
    fn sample() -> Report {
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
                backends: vec!["vulkan".to_string(), "gl".to_string()],
                frames: 120,
                warmup: 30,
                size: (1280, 720),
                seed: 7,
                dt: 1.0 / 60.0,
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
        }
    }

    /// A fresh empty directory, unique per test and process (left behind for inspection).
    fn temp_dir(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("throng-bench-report-{}-{tag}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn get<'a>(
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
                    && c.case.instances == n
            })
            .unwrap()
    }

    /// The ratio as the table writes it; all expected ratios here are below 100.
    fn expect_times(r: f64) -> String {
        assert!(r < 100.0);
        if r >= 10.0 {
            format!("{r:.1}×")
        } else {
            format!("{r:.2}×")
        }
    }

    /// The comparison lines under `  <heading>` up to the next heading.
    fn block<'a>(table: &'a str, heading: &str) -> Vec<&'a str> {
        let comparison = table.split("Comparison").nth(1).unwrap();
        let mut lines = comparison.lines().skip_while(|l| l.trim() != heading);
        assert!(lines.next().is_some(), "no block {heading:?} in\n{table}");
        lines.take_while(|l| l.starts_with("    ")).collect()
    }

    #[test]
    fn table_compares_gpu_with_live_and_static_and_presets_with_off() {
        let report = sample();
        let t = table(&report);
        println!("{t}");
        for (backend, n) in [("vulkan", 1000), ("vulkan", 10_000), ("gl", 1000)] {
            let lines = block(&t, &format!("{backend}, {n} instances:"));
            let gpu = get(&report, backend, "gpu", "off", n);
            let live = get(&report, backend, "live", "off", n);
            let stat = get(&report, backend, "static", "off", n);
            let cpu = live.cpu_ms.median / gpu.cpu_ms.median;
            let verdict = if cpu >= 10.0 { "met" } else { "not met" };
            let want = format!(
                "baked gpu vs live: CPU time per frame {} less (target 10×: {verdict}), \
                 frame time {} faster [LOD off]",
                expect_times(cpu),
                expect_times(live.frame_ms.median / gpu.frame_ms.median)
            );
            assert!(
                lines.iter().any(|l| l.trim() == want),
                "{want:?} not in {lines:#?}"
            );
            let want = format!(
                "animation cost: gpu / static frame time = {} [LOD off]",
                expect_times(gpu.frame_ms.median / stat.frame_ms.median)
            );
            assert!(
                lines.iter().any(|l| l.trim() == want),
                "{want:?} not in {lines:#?}"
            );
            let balanced = get(&report, backend, "gpu", "balanced", n);
            let q = balanced.quality.unwrap();
            let want = format!(
                "gpu balanced vs off: frame time {}, ΔE mean {:.2}, p99 {:.2}",
                expect_times(balanced.frame_ms.median / gpu.frame_ms.median),
                q.mean,
                q.p99
            );
            assert!(
                lines.iter().any(|l| l.trim().starts_with(&want)),
                "{want:?} not in {lines:#?}"
            );
        }
        // The vulkan run is 12.5× (target met), the gl one 8× (not met).
        assert!(t.contains("CPU time per frame 12.5× less (target 10×: met)"));
        assert!(t.contains("CPU time per frame 8.00× less (target 10×: not met)"));
        // gl at 10k ran only `balanced`: gpu and live are compared under it.
        let lines = block(&t, "gl, 10000 instances:");
        let (gpu, live) = (
            get(&report, "gl", "gpu", "balanced", 10_000),
            get(&report, "gl", "live", "balanced", 10_000),
        );
        let want = format!(
            "baked gpu vs live: CPU time per frame {} less",
            expect_times(live.cpu_ms.median / gpu.cpu_ms.median)
        );
        assert!(lines[0].trim().starts_with(&want) && lines[0].ends_with("[LOD balanced]"));
        assert_eq!(
            lines.len(),
            1,
            "no static or off case at gl 10k: {lines:#?}"
        );

        // Header block.
        for s in [
            "2025-06-01T12:00:00Z",
            "Test CPU @ 3.0GHz, 2 cores, Linux 6.1",
            "0.1.0, commit 1f757ac",
        ] {
            assert!(t.contains(s), "{s:?} missing");
        }
        assert!(t.contains(
            "adapter:  vulkan: llvmpipe (LLVM 15.0.7, 256 bits); driver llvmpipe Mesa 23.2.1\n"
        ));
        // The skipped case says why; wall-clock GPU times are marked and explained.
        let skipped = t.lines().find(|l| l.contains("skipped:")).unwrap();
        assert!(
            skipped.starts_with("gl ") && skipped.contains("cpu") && skipped.ends_with(SKIP_REASON)
        );
        assert!(t.lines().any(|l| l.starts_with("gl ") && l.contains('*')));
        assert!(t.contains("\n* GPU time measured as wall time"));
        // Columns are aligned: the names line and every row that ran end in the same column
        // (the last column, ΔE p99, is right-aligned).
        let rows: Vec<&str> = t
            .lines()
            .skip_while(|l| !l.starts_with("backend"))
            .take_while(|l| !l.is_empty() && !l.starts_with('*'))
            .filter(|l| !l.starts_with('-') && !l.contains("skipped:"))
            .collect();
        assert_eq!(rows.len(), report.results.len()); // names + ran cases
        let w = width(rows[0]);
        assert!(rows.iter().all(|r| width(r) == w), "{rows:#?}");
        let drawn = rows[0].find("drawn").unwrap() + "drawn".len();
        assert!(rows.iter().skip(1).all(
            |r| r.is_char_boundary(drawn) && r[..drawn].ends_with(|c: char| c.is_ascii_digit())
        ));
    }

    #[test]
    fn table_without_pairs_says_so() {
        let mut report = sample();
        report
            .results
            .retain(|r| r.case.skinning == "cpu" && r.case.lod == "off");
        let t = table(&report);
        assert!(t.contains("nothing to compare"), "{t}");
        assert!(!t.contains('*'), "no case measured wall time: {t}");
    }

    /// Records of RFC 4180 CSV text.
    fn parse_csv(text: &str) -> Vec<Vec<String>> {
        let (mut records, mut record, mut field) = (Vec::new(), Vec::new(), String::new());
        let mut chars = text.chars().peekable();
        let mut quoted = false;
        while let Some(c) = chars.next() {
            match (quoted, c) {
                (true, '"') if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                (true, '"') => quoted = false,
                (true, c) => field.push(c),
                (false, '"') if field.is_empty() => quoted = true,
                (false, ',') => record.push(std::mem::take(&mut field)),
                (false, '\n') => {
                    record.push(std::mem::take(&mut field));
                    records.push(std::mem::take(&mut record));
                }
                (false, c) => field.push(c),
            }
        }
        assert!(
            !quoted && field.is_empty() && record.is_empty(),
            "unterminated last record"
        );
        records
    }

    #[test]
    fn csv_has_a_header_and_one_row_per_case() {
        let report = sample();
        let path = temp_dir("csv").join("results.csv");
        write_csv(&report, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert_eq!(text.lines().count(), report.results.len() + 1);
        let records = parse_csv(&text);
        assert_eq!(records.len(), report.results.len() + 1);
        let header = &records[0];
        assert!(records.iter().all(|r| r.len() == header.len()));
        // 4 case fields, frames, drawn, stepped, 8 stats × 3, gpu_timing, 3 quality, skipped.
        assert_eq!(header.len(), 4 + 3 + 8 * 3 + 1 + 3 + 1);
        let column = |name: &str| header.iter().position(|h| h == name).unwrap();
        // The skipped reason holds a comma and quotes: quoted on disk, the same when read back.
        assert!(text.contains("\"no GL adapter, \"\"llvmpipe\"\" missing\""));
        let skipped: Vec<&Vec<String>> = records[1..]
            .iter()
            .filter(|r| !r[column("skipped")].is_empty())
            .collect();
        assert_eq!(skipped.len(), 1);
        assert_eq!(skipped[0][column("skipped")], SKIP_REASON);
        // Numbers read back exactly; quality is empty where there is none.
        for (record, result) in records[1..].iter().zip(&report.results) {
            assert_eq!(record[column("backend")], result.case.backend);
            assert_eq!(
                record[column("instances")].parse::<usize>().unwrap(),
                result.case.instances
            );
            assert_eq!(
                record[column("frame_ms_p99")].parse::<f64>().unwrap(),
                result.frame_ms.p99
            );
            assert_eq!(
                record[column("cpu_ms_median")].parse::<f64>().unwrap(),
                result.cpu_ms.median
            );
            assert_eq!(record[column("gpu_timing")], result.gpu_timing);
            match result.quality {
                Some(q) => assert_eq!(
                    record[column("quality_mean")].parse::<f64>().unwrap(),
                    q.mean
                ),
                None => assert!(
                    record[column("quality_mean")].is_empty()
                        && record[column("quality_changed")].is_empty()
                ),
            }
        }
    }

    #[test]
    fn json_reads_back_equal() {
        let report = sample();
        let path = temp_dir("json").join("results.json");
        write_json(&report, &path).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        let back = serde_json::from_str::<Report>(&text).unwrap();
        // serde_json's default float parsing may be off in the last bit (its exact
        // `float_roundtrip` mode would change how glTF files parse), so numbers are compared
        // within 1e-12 relative, everything else exactly.
        fn same(a: &serde_json::Value, b: &serde_json::Value) -> bool {
            use serde_json::Value as V;
            match (a, b) {
                (V::Number(x), V::Number(y)) => {
                    let (x, y) = (
                        x.as_f64().unwrap_or(f64::NAN),
                        y.as_f64().unwrap_or(f64::NAN),
                    );
                    x == y || (x - y).abs() <= 1e-12 * x.abs().max(y.abs())
                }
                (V::Array(x), V::Array(y)) => {
                    x.len() == y.len() && x.iter().zip(y).all(|(x, y)| same(x, y))
                }
                (V::Object(x), V::Object(y)) => {
                    x.len() == y.len()
                        && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
                }
                _ => a == b,
            }
        }
        let (a, b) = (
            serde_json::to_value(&report).unwrap(),
            serde_json::to_value(&back).unwrap(),
        );
        assert!(same(&a, &b), "{text}");
    }

    /// Distinct colours of a PNG, after checking its size.
    fn colours(path: &Path) -> usize {
        let image = image::open(path).unwrap().to_rgb8();
        assert_eq!(image.dimensions(), PLOT_SIZE, "{}", path.display());
        let mut seen: Vec<[u8; 3]> = image.pixels().map(|p| p.0).collect();
        seen.sort_unstable();
        seen.dedup();
        seen.len()
    }

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

    #[test]
    fn plots_of_a_report_without_cases_are_drawn_too() {
        let mut report = sample();
        report.results.retain(|r| r.skipped.is_some());
        let dir = temp_dir("empty");
        for (file, plot) in [
            (
                FRAME_TIME_FILE,
                plot_frame_time as fn(&Report, &Path) -> Result<(), BenchError>,
            ),
            (LOD_QUALITY_FILE, plot_lod_quality),
        ] {
            let path = dir.join(file);
            plot(&report, &path).unwrap();
            // Axes, labels and the note.
            assert!(colours(&path) > 10, "{}", path.display());
        }
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

    #[test]
    fn axes_tick_round_values_inside_their_range() {
        let a = Axis::linear(0.0, 33.0);
        assert_eq!(a.ticks, [0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0]);
        let a = Axis::log(3.0, 120.0, 0.06, None);
        let values: Vec<f64> = a
            .ticks
            .iter()
            .map(|t| (a.value(*t) * 1e6).round() / 1e6)
            .collect();
        assert_eq!(values, [5.0, 10.0, 20.0, 50.0, 100.0]);
        let a = Axis::log(1000.0, 10_000.0, 0.06, Some(vec![1000.0, 10_000.0]));
        assert!(a.range.start < 3.0 && a.range.end > 4.0 && a.ticks == [3.0, 4.0]);
    }
}
