//! `results.csv` and `results.json`: every case of a report, flattened to CSV rows or as the
//! serde form of [`Report`], written atomically.

use std::path::Path;

use super::write_bytes;
use crate::bench::error::BenchError;
use crate::bench::results::{CaseResult, Report, Stat};

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
    let case = ["backend", "skinning", "lod", "shadows", "instances"];
    let mut header: Vec<String> = (case.into_iter())
        .chain(["frames", "drawn", "stepped"])
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
            "shadows_quality_mean",
            "shadows_quality_p99",
            "shadows_quality_changed",
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
            r.case.shadows.clone(),
            r.case.instances.to_string(),
            r.frames.to_string(),
            r.drawn.to_string(),
            r.stepped.to_string(),
        ];
        for (_, s) in stats(r) {
            fields.extend([s.median, s.p95, s.p99].map(|v| v.to_string()));
        }
        fields.push(r.gpu_timing.clone());
        for quality in [r.quality, r.shadows_quality] {
            match quality {
                Some(q) => fields.extend([q.mean, q.p99, q.changed].map(|v| v.to_string())),
                None => fields.extend([String::new(), String::new(), String::new()]),
            }
        }
        fields.push(r.skipped.clone().unwrap_or_default());
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        out.push_str(&line.join(","));
        out.push('\n');
    }
    out
}

/// Writes `results.csv`-style CSV: a header row, then one row per case with every field
/// flattened: the case (backend, skinning, lod, shadows, instances), frames, drawn, stepped,
/// each [`Stat`] as `<name>_median`, `_p95`, `_p99` (milliseconds), `gpu_timing`,
/// `quality_mean`, `quality_p99`, `quality_changed` (against LOD preset `off`, same shadows),
/// `shadows_quality_mean`, `_p99`, `_changed` (against shadows `off`, same preset; each empty
/// when the case has no such comparison) and `skipped` (empty when the case ran). Fields holding commas, quotes or line breaks are quoted
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
    let mut json = serde_json::to_string_pretty(report).map_err(|error| BenchError::Json {
        path: path.to_path_buf(),
        error,
    })?;
    json.push('\n');
    write_bytes(path, json.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::super::fixtures::*;
    use super::*;

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
        // 5 case fields, frames, drawn, stepped, 8 stats × 3, gpu_timing, 2 × 3 quality,
        // skipped.
        assert_eq!(header.len(), 5 + 3 + 8 * 3 + 1 + 2 * 3 + 1);
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
}
