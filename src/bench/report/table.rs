//! The table `throng bench` prints: one row per case (CPU time split into its phases, GPU
//! and frame time), then a comparison block that turns the cases into the ratios the
//! project's claims rest on (baked GPU skinning against live evaluation and static meshes, each
//! LOD preset against `off`, each kind of shadows against none).

use std::fmt::Write as _;

use super::{
    OFF, backends, counts, find, ms, pair, presets, ratio, shadow_kinds, skinnings, times, width,
};
use crate::bench::results::{CaseResult, Quality, Report};

/// How many times less CPU time per frame baked GPU skinning should take than evaluating every
/// agent's pose live: the project's headline claim.
const CPU_TARGET: f64 = 10.0;

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

const COLUMNS: [Column; 23] = [
    col("", "backend", false),
    col("", "skinning", false),
    col("", "lod", false),
    col("", "shadows", false),
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
    col("ΔE vs LOD off", "mean", true),
    col("ΔE vs LOD off", "p99", true),
    col("vs no shadows", "frame", true),
    col("vs no shadows", "ΔE mean", true),
    col("vs no shadows", "ΔE p99", true),
];

/// Columns before "drawn": a skipped case fills these, then says why.
const CASE_COLUMNS: usize = 5;
/// Between columns.
const GAP: &str = "  ";

/// A row of the table.
enum Row {
    /// A case that ran: one cell per column.
    Ran(Vec<String>),
    /// A case that did not: its settings and why.
    Skipped(Vec<String>, String),
}

/// A picture comparison's mean and p99 cells (`-` for none).
fn quality_cells(q: Option<Quality>) -> [String; 2] {
    match q {
        Some(q) => [format!("{:.2}", q.mean), format!("{:.2}", q.p99)],
        None => ["-".to_string(), "-".to_string()],
    }
}

fn row(report: &Report, r: &CaseResult, wall_mark: bool) -> Row {
    let c = &r.case;
    let case = vec![
        c.backend.clone(),
        c.skinning.clone(),
        c.lod.clone(),
        c.shadows.clone(),
        c.instances.to_string(),
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
    let [q_mean, q_p99] = quality_cells(r.quality);
    // The frame time against the same case without shadows.
    let no_shadows = (c.shadows != OFF)
        .then(|| find(report, &c.backend, &c.skinning, &c.lod, OFF, c.instances))
        .flatten();
    let cost = match no_shadows {
        Some(off) => times(ratio(r.frame_ms.median, off.frame_ms.median)),
        None => "-".to_string(),
    };
    let [s_mean, s_p99] = quality_cells(r.shadows_quality);
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
        cost,
        s_mean,
        s_p99,
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
        "settings: bake {}; {} frames after {} warm-up; {}×{} px; seed {}; dt {:.4} s; \
         shadows {}",
        s.bake,
        s.frames,
        s.warmup,
        s.size.0,
        s.size.1,
        s.seed,
        s.dt,
        s.shadows.join(",")
    );
}

/// The settings a pair was compared under: `LOD <preset>`, and the shadows unless `off`.
fn under(r: &CaseResult) -> String {
    if r.case.shadows == OFF {
        format!("LOD {}", r.case.lod)
    } else {
        format!("LOD {}, shadows {}", r.case.lod, r.case.shadows)
    }
}

/// A picture comparison in words.
fn quality_words(q: Option<Quality>) -> String {
    match q {
        Some(Quality { mean, p99, changed }) => format!(
            "ΔE mean {mean:.2}, p99 {p99:.2}, {:.1}% of pixels changed",
            changed * 100.0
        ),
        None => "no picture comparison".to_string(),
    }
}

/// Each LOD preset against preset `off` under the same shadows (named unless `off`).
fn lod_lines(report: &Report, backend: &str, skinning: &str, n: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for shadows in shadow_kinds(report) {
        let Some(off) = find(report, backend, skinning, OFF, shadows, n) else {
            continue;
        };
        let with = if shadows == OFF {
            String::new()
        } else {
            format!(" [shadows {shadows}]")
        };
        for lod in presets(report).into_iter().filter(|p| *p != OFF) {
            let Some(r) = find(report, backend, skinning, lod, shadows, n) else {
                continue;
            };
            lines.push(format!(
                "{skinning} {lod} vs off: frame time {}, {}{with}",
                times(ratio(r.frame_ms.median, off.frame_ms.median)),
                quality_words(r.quality)
            ));
        }
    }
    lines
}

/// Each kind of shadows against none under the same LOD preset (named).
fn shadows_lines(report: &Report, backend: &str, skinning: &str, n: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for lod in presets(report) {
        let Some(off) = find(report, backend, skinning, lod, OFF, n) else {
            continue;
        };
        for shadows in shadow_kinds(report).into_iter().filter(|s| *s != OFF) {
            let Some(r) = find(report, backend, skinning, lod, shadows, n) else {
                continue;
            };
            lines.push(format!(
                "{skinning} shadows {shadows} vs none: frame time {}, {} [LOD {lod}]",
                times(ratio(r.frame_ms.median, off.frame_ms.median)),
                quality_words(r.shadows_quality)
            ));
        }
    }
    lines
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
                     frame time {} faster [{}]",
                    times(cpu),
                    times(ratio(live.frame_ms.median, gpu.frame_ms.median)),
                    under(gpu)
                ));
            }
            if let Some((gpu, stat)) = pair(report, backend, n, "gpu", "static") {
                lines.push(format!(
                    "animation cost: gpu / static frame time = {} [{}]",
                    times(ratio(gpu.frame_ms.median, stat.frame_ms.median)),
                    under(gpu)
                ));
            }
            for skinning in skinnings(report) {
                lines.extend(lod_lines(report, backend, skinning, n));
                lines.extend(shadows_lines(report, backend, skinning, n));
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
            "  nothing to compare (needs gpu with live or static, a LOD preset with off, or \
             shadows with off, on the same backend and instance count)"
        );
    }
}

/// The table `throng bench` prints: a header block (date, machine, versions, adapters,
/// settings), one row per case (CPU time with its split by phase, GPU time, frame time, the
/// picture's ΔE against the `off` preset under the same shadows, and with shadows, the frame
/// time as a ratio of the shadowless case's and the picture's ΔE against it under the same
/// preset; `skipped: why` for cases that did not run), and a comparison block with the ratios
/// the run exists for: baked GPU skinning against live pose evaluation (CPU time per frame,
/// target 10× less; frame time), animated against static frame time, each LOD preset's frame
/// time and picture against `off`, and each kind of shadows' against none.
///
/// Skinning paths are compared under one LOD preset and shadows: preset `off` without shadows
/// where both cases ran it, else the first both ran (the preset named in the line). Times are
/// medians, in milliseconds.
pub fn table(report: &Report) -> String {
    let mut out = String::new();
    header(report, &mut out);
    out.push('\n');

    let wall = report
        .results
        .iter()
        .any(|r| r.skipped.is_none() && r.gpu_timing == "wall");
    let rows: Vec<Row> = report
        .results
        .iter()
        .map(|r| row(report, r, wall))
        .collect();
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
    super::hybrid::live_tier(report, &mut out);
    out.push_str(&crate::bench::levels::table(&report.levels));
    out
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

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
    fn shadows_are_compared_with_none_and_presets_with_off_under_the_same_shadows() {
        let mut report = sample();
        report.settings.shadows = vec!["off".to_string(), "blob".to_string()];
        let blob = |r: CaseResult| CaseResult {
            case: crate::bench::results::Case {
                shadows: "blob".to_string(),
                ..r.case.clone()
            },
            shadows_quality: Some(Quality {
                mean: 1.5,
                p99: 9.0,
                changed: 0.02,
            }),
            ..r
        };
        // Blob: 5 ms at LOD off (1.25× the 4 ms without), 3.6 ms balanced (1.2× its 3 ms).
        report.results.extend([
            blob(case("vulkan", "gpu", "off", 1000, 0.8, 5.0)),
            blob(with_quality(
                case("vulkan", "gpu", "balanced", 1000, 0.6, 3.6),
                0.7,
                4.0,
                0.01,
            )),
        ]);
        let t = table(&report);
        println!("{t}");
        assert!(t.contains("shadows off,blob\n"), "{t}");
        let lines = block(&t, "vulkan, 1000 instances:");
        for want in [
            "gpu shadows blob vs none: frame time 1.25×, ΔE mean 1.50, p99 9.00, 2.0% of \
             pixels changed [LOD off]",
            "gpu shadows blob vs none: frame time 1.20×, ΔE mean 1.50, p99 9.00, 2.0% of \
             pixels changed [LOD balanced]",
            // Balanced with blobs against off with blobs: 3.6 / 5.0.
            "gpu balanced vs off: frame time 0.72×, ΔE mean 0.70, p99 4.00, 1.0% of pixels \
             changed [shadows blob]",
        ] {
            assert!(
                lines.iter().any(|l| l.trim() == want),
                "{want:?} not in {lines:#?}"
            );
        }
        // The gpu/live pair stays without shadows.
        assert!(lines[0].ends_with("[LOD off]"), "{}", lines[0]);
        // Rows: the shadows column, and the cost against none only with shadows.
        let row = |shadows: &str, lod: &str| {
            t.lines()
                .find(|l| {
                    let c: Vec<&str> = l.split_whitespace().collect();
                    c.len() > 5 && c[..5] == ["vulkan", "gpu", lod, shadows, "1000"]
                })
                .unwrap_or_else(|| panic!("no row {shadows} {lod} in\n{t}"))
        };
        fn last3(r: &str) -> Vec<&str> {
            r.split_whitespace().rev().take(3).collect()
        }
        assert_eq!(last3(row("blob", "off")), ["9.00", "1.50", "1.25×"]);
        assert_eq!(last3(row("blob", "balanced")), ["9.00", "1.50", "1.20×"]);
        assert_eq!(last3(row("off", "off")), ["-", "-", "-"]);
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
}
