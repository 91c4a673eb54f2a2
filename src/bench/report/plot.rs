//! The two plots of `throng bench`: median frame time by instance count, and each LOD
//! preset's speed against its cost in picture quality. Drawn with plotters into an RGB buffer,
//! encoded as PNG in memory and written atomically.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::chart::{
    Area, Axis, Chart, DrawResult, FONT, Key, Labels, PALETTE, SHAPES, Shape, centred_note, chart,
    fonts, layout, legend, legend_width, lighter, marker, skinning_colour,
};
use super::{
    OFF, PLOT_SIZE, count, distinct, find, presets, ran, ratio, shadow_kinds, skinnings, tick,
};
use crate::bench::error::BenchError;
use crate::bench::results::Report;

/// Frame times spanning more than this factor are plotted on a logarithmic axis.
const LOG_SPAN: f64 = 20.0;
/// CIE76 ΔE of a just-noticeable difference, drawn as a reference line.
const JUST_NOTICEABLE: f64 = 2.3;

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
    // Encoded in memory (a plot is a few tens of kilobytes), so the encoder's own error stays
    // apart from the file system's.
    let mut png = Vec::new();
    image
        .write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
        .map_err(|error| BenchError::Png {
            path: path.to_path_buf(),
            error,
        })?;
    super::write_bytes(path, &png)
}

/// One line of the frame-time plot.
struct Series<'a> {
    backend: &'a str,
    skinning: &'a str,
    lod: &'a str,
    shadows: &'a str,
    /// (instances, median frame ms), by instances.
    points: Vec<(f64, f64)>,
}

/// Plots median frame time against instance count, one line with markers per (backend,
/// skinning, LOD preset, shadows): colour by skinning path (lighter for later presets and
/// shadows; shadows other than `off` are named in the legend), a solid or
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
        match series.iter_mut().find(|s| {
            s.backend == c.backend
                && s.skinning == c.skinning
                && s.lod == c.lod
                && s.shadows == c.shadows
        }) {
            Some(s) => s.points.push(point),
            None => series.push(Series {
                backend: &c.backend,
                skinning: &c.skinning,
                lod: &c.lod,
                shadows: &c.shadows,
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
    let shadows = shadow_kinds(report);
    let style = |s: &Series| {
        let b = backends.iter().position(|b| *b == s.backend).unwrap_or(0);
        let k = skinnings.iter().position(|k| *k == s.skinning).unwrap_or(0);
        let p = presets.iter().position(|p| *p == s.lod).unwrap_or(0);
        let h = shadows.iter().position(|h| *h == s.shadows).unwrap_or(0);
        let shades = presets.len() * shadows.len().max(1);
        let shade = 0.55 * (h * presets.len() + p) as f64 / shades.max(2).saturating_sub(1) as f64;
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
                label: if s.shadows == OFF {
                    format!("{} · {}", s.skinning, s.lod)
                } else {
                    format!("{} · {} · shadows {}", s.skinning, s.lod, s.shadows)
                },
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

/// The points of the LOD quality plot: each case of a preset other than `off` that has a
/// picture comparison and an `off` case (same shadows) to be timed against.
fn quality_points(report: &Report) -> Vec<QualityPoint<'_>> {
    let mut points = Vec::new();
    for r in ran(report).filter(|r| r.case.lod != OFF) {
        let c = &r.case;
        let Some(q) = r.quality else { continue };
        let Some(off) = find(
            report,
            &c.backend,
            &c.skinning,
            OFF,
            &c.shadows,
            c.instances,
        ) else {
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
    points
}

/// The legend of the LOD quality plot: presets by colour, skinning paths by shape, backends
/// filled or outlined, and what marker size means (instances from `nlo` to `nhi`).
fn quality_keys(
    lods: &[&str],
    skins: &[&str],
    backends: &[&str],
    (nlo, nhi): (usize, usize),
) -> Vec<Key> {
    let mut keys = vec![Key::Heading("LOD preset".to_string())];
    for lod in lods {
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

    keys
}

/// The LOD quality plot's reference lines, dashed: "as fast as off" (1×) and a
/// just-noticeable difference (ΔE 2.3), each with its label.
fn reference_lines(root: &Area, chart: &mut Chart, x: &Axis, y: &Axis) -> DrawResult {
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
    Ok(())
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
    let points = quality_points(report);
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

    let keys = if points.is_empty() {
        Vec::new()
    } else {
        quality_keys(&lods, &skins, &backends, (nlo, nhi))
    };

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
        reference_lines(root, &mut chart, &x, &y)?;
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
    use super::super::fixtures::*;
    use super::super::{FRAME_TIME_FILE, LOD_QUALITY_FILE};
    use super::*;

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
}
