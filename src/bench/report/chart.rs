//! What both plots are drawn with: axes (linear, or logarithmic drawn as log10 on a linear
//! axis), marker shapes, the palette, legends and the chart frame. Text uses egui's bundled
//! Ubuntu Light font, registered with plotters once, so no system fonts are needed.

use std::ops::Range;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint};
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::{FontStyle, register_font};

use super::width;

pub(super) type Area<'a> = DrawingArea<BitMapBackend<'a>, Shift>;
pub(super) type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// The family the bundled font is registered as, and every plot's text uses.
pub(super) const FONT: &str = "sans-serif";

/// Registers the bundled font with plotters, once per process.
pub(super) fn fonts() -> Result<(), String> {
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

/// Marker shapes, one per backend (frame time) or skinning path (LOD quality).
#[derive(Clone, Copy)]
pub(super) enum Shape {
    Circle,
    Triangle,
    Square,
    Diamond,
}

pub(super) const SHAPES: [Shape; 4] = [
    Shape::Circle,
    Shape::Triangle,
    Shape::Square,
    Shape::Diamond,
];

/// A marker of radius `r` pixels at `at`, filled or as an outline.
pub(super) fn marker<'a, DB: DrawingBackend + 'a, C: Clone + 'a>(
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
pub(super) const PALETTE: [RGBColor; 10] = [
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
pub(super) fn skinning_colour(skinning: &str, index: usize) -> RGBColor {
    match skinning {
        "gpu" => PALETTE[0],
        "cpu" => PALETTE[2],
        "live" => PALETTE[3],
        "static" => PALETTE[7],
        _ => [4, 5, 6, 8, 9, 1].map(|i| PALETTE[i])[index % 6],
    }
}

/// `c` mixed towards white by `t` (0: `c`, 1: white).
pub(super) fn lighter(c: RGBColor, t: f64) -> RGBColor {
    let mix = |v: u8| (f64::from(v) + (255.0 - f64::from(v)) * t).round() as u8;
    RGBColor(mix(c.0), mix(c.1), mix(c.2))
}

/// One line of a legend.
pub(super) enum Key {
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
pub(super) fn legend_width(keys: &[Key]) -> u32 {
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
pub(super) fn legend(area: &Area, top: i32, keys: &[Key]) -> DrawResult {
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
pub(super) struct Axis {
    pub(super) log: bool,
    /// Drawn range (log10 of values on a log axis).
    pub(super) range: Range<f64>,
    /// Ticks, drawn values.
    pub(super) ticks: Vec<f64>,
}

impl Axis {
    /// A linear axis over `lo..hi` (widened when empty), with about six round ticks.
    pub(super) fn linear(lo: f64, hi: f64) -> Self {
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
    pub(super) fn log(lo: f64, hi: f64, pad: f64, ticks: Option<Vec<f64>>) -> Self {
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
    pub(super) fn at(&self, v: f64) -> f64 {
        if self.log { v.log10() } else { v }
    }

    /// The value drawn at `d`.
    pub(super) fn value(&self, d: f64) -> f64 {
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

pub(super) type Chart<'a, 'b> = ChartContext<'a, BitMapBackend<'b>, Cartesian2d<Axis, Axis>>;

/// Axis labels and descriptions of a chart.
pub(super) struct Labels<'a> {
    pub(super) x_desc: &'a str,
    pub(super) y_desc: &'a str,
    pub(super) x_tick: &'a dyn Fn(f64) -> String,
    pub(super) y_tick: &'a dyn Fn(f64) -> String,
}

/// A chart with its mesh, axes and labels on `area`.
pub(super) fn chart<'a, 'b>(
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
pub(super) fn layout<'a>(
    root: &Area<'a>,
    title: &str,
    legend_w: u32,
) -> Result<(Area<'a>, Area<'a>), Box<dyn std::error::Error>> {
    let body = root.titled(title, (FONT, 24).into_font().color(&BLACK))?;
    let (w, _) = body.dim_in_pixel();
    Ok(body.split_horizontally(w.saturating_sub(legend_w)))
}

/// A note centred on a chart's plotting area.
pub(super) fn centred_note(chart: &Chart, x: &Axis, y: &Axis, note: &str) -> DrawResult {
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

#[cfg(test)]
mod tests {
    use super::*;

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
