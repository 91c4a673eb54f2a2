//! The table's live-tier block: per `hybrid` case, the live tier's size and CPU time, the CPU
//! side of its frame against the `gpu` path's (same backend, preset, shadows and count), the
//! foot-ground error of its live agents' planted feet against the same feet in the bake's
//! pose, and the jumps at handoffs.

use std::fmt::Write as _;

use super::{find, ms, ratio, times};
use crate::bench::results::Report;

/// Appends the block, when the report has `hybrid` cases that ran.
pub(super) fn live_tier(report: &Report, out: &mut String) {
    let cases: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.skipped.is_none())
        .filter_map(|r| Some((r, r.hybrid.as_ref()?)))
        .collect();
    if cases.is_empty() {
        return;
    }
    let ground = match report.settings.ground.as_str() {
        "" => "flat",
        g => g,
    };
    let _ = writeln!(
        out,
        "Live tier (hybrid path, {ground} ground): foot-ground error p99 of planted feet, live \
         (after IK) and baked (the same feet in the bake's pose); handoff jump = largest joint \
         move beyond the agent's own motion, % of its height."
    );
    let header = [
        "backend",
        "lod",
        "shadows",
        "instances",
        "live",
        "live ms",
        "cpu ms",
        "vs gpu",
        "feet",
        "foot live",
        "foot baked",
        "handoffs",
        "jump p99",
        "jump max",
    ];
    // Said once: how live agents were posed (the same file for every case).
    match cases.iter().find_map(|(_, h)| h.posed_from_bake.as_deref()) {
        None => out.push_str(
            "Live agents' animations evaluated live, as the baker evaluates them (states' blend trees, clips), then foot IK.\n",
        ),
        Some(why) => {
            let _ = writeln!(
                out,
                "Live agents posed from the bake's matrices, then foot IK (not evaluated live: {why})."
            );
        }
    }
    let mut rows: Vec<Vec<String>> = vec![header.iter().map(|s| s.to_string()).collect()];
    for (r, h) in cases {
        let c = &r.case;
        let gpu = find(report, &c.backend, "gpu", &c.lod, &c.shadows, c.instances);
        rows.push(vec![
            c.backend.clone(),
            c.lod.clone(),
            c.shadows.clone(),
            c.instances.to_string(),
            format!("{:.0}", h.live),
            ms(r.live_ms.median),
            ms(r.cpu_ms.median),
            times(gpu.and_then(|g| ratio(r.cpu_ms.median, g.cpu_ms.median))),
            h.feet.to_string(),
            format!("{:.1} mm", h.foot_live_p99_mm),
            format!("{:.1} mm", h.foot_baked_p99_mm),
            h.handoffs.to_string(),
            format!("{:.3}%", h.jump_p99),
            format!("{:.3}%", h.jump_max),
        ]);
    }
    let widths: Vec<usize> = (0..header.len())
        .map(|i| rows.iter().map(|r| r[i].chars().count()).max().unwrap_or(0))
        .collect();
    for row in rows {
        let line: Vec<String> = row
            .iter()
            .zip(&widths)
            .enumerate()
            .map(|(i, (cell, w))| {
                if i < 3 {
                    format!("{cell:<w$}")
                } else {
                    format!("{cell:>w$}")
                }
            })
            .collect();
        let _ = writeln!(out, "{}", line.join("  ").trim_end());
    }
    out.push('\n');
}
