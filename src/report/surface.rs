//! The reports of `--surface`: the text summary with a chart of the read rate across the
//! device, the CSV of every zone, and an SVG plot of the read rate and the access time across
//! the capacity (as GNOME Disks' benchmark and HD Tune draw them), slow zones and errors marked.
//!
//! JSON is [`Scan`] as serialized: `size_bytes`, `quick`, `planned_zones`, `median_mb_per_s`,
//! `ended` (`complete`, `device_went_away`, `stopped`) and `ended_at_lba`, and per zone
//! `index`, `first_lba`, `last_lba`, `bytes_read`, `read_mb_per_s`, `access_ms`,
//! `error_blocks`, `error_ranges` (`first_lba`, `last_lba`; at most 16),
//! `error_ranges_not_listed`, `slow`.
//!
//! What this file must not do: read anything; it renders a finished scan.

use super::axis::Axis;
use crate::timing::surface::{Ending, Scan, Zone};
use std::fmt::Write;

/// Rows of the text chart (zones are grouped into them).
const CHART_ROWS: usize = 20;
/// Width of the chart's bars, in characters.
const CHART_WIDTH: usize = 50;

/// The text report.
pub fn text(device: &str, scan: &Scan) -> String {
    let mut out = format!("\n{device}:\n");
    let rates: Vec<f64> = scan.zones.iter().filter_map(|z| z.read_mb_per_s).collect();
    let max = rates.iter().copied().fold(0.0f64, f64::max);
    let min = rates.iter().copied().fold(f64::INFINITY, f64::min);
    let access: Vec<f64> = scan.zones.iter().filter_map(|z| z.access_ms).collect();
    let _ = writeln!(
        out,
        " Surface scan of {:.1} GB in {} zones{}:",
        scan.size_bytes as f64 / 1e9,
        scan.planned_zones,
        if scan.quick {
            " (quick: 8 MiB of each)"
        } else {
            ""
        }
    );
    if let Some(median) = scan.median_mb_per_s {
        let _ = writeln!(
            out,
            "  read rate   min {min:.1}  median {median:.1}  max {max:.1} MB/s"
        );
    }
    if !access.is_empty() {
        let mean = access.iter().sum::<f64>() / access.len() as f64;
        let _ = writeln!(out, "  access time mean {mean:.2} ms");
    }
    // The chart: each row the slowest zone of its group, so a slow spot is not averaged away.
    let per_row = scan.zones.len().div_ceil(CHART_ROWS).max(1);
    for group in scan.zones.chunks(per_row) {
        let rate = group
            .iter()
            .filter_map(|z| z.read_mb_per_s)
            .fold(f64::INFINITY, f64::min);
        let rate = if rate.is_finite() { rate } else { 0.0 };
        let width = if max > 0.0 {
            ((rate / max) * CHART_WIDTH as f64).round() as usize
        } else {
            0
        };
        let mark = if group.iter().any(|z| z.has_errors()) {
            " ERRORS"
        } else if group.iter().any(|z| z.slow) {
            " slow"
        } else {
            ""
        };
        let percent = group[0].index * 100 / scan.planned_zones.max(1);
        let _ = writeln!(
            out,
            "  {percent:>3}% |{:<CHART_WIDTH$}| {rate:>7.1} MB/s{mark}",
            "#".repeat(width)
        );
    }
    for z in scan.zones.iter().filter(|z| z.slow) {
        let _ = writeln!(
            out,
            "  slow zone: sectors {}-{} at {:.1} MB/s (under half the median)",
            z.first_lba,
            z.last_lba,
            z.read_mb_per_s.unwrap_or(0.0)
        );
    }
    for z in scan.zones.iter().filter(|z| z.has_errors()) {
        let ranges: Vec<String> = z
            .error_ranges
            .iter()
            .map(|r| format!("{}-{}", r.first_lba, r.last_lba))
            .collect();
        let more = match z.error_ranges_not_listed {
            0 => String::new(),
            n => format!(", and {n} more ranges"),
        };
        let _ = writeln!(
            out,
            "  read errors in sectors {}-{}: {} blocks of 1 MiB failed, in sectors {}{more}",
            z.first_lba,
            z.last_lba,
            z.error_blocks,
            ranges.join(", ")
        );
    }
    match (scan.ended, scan.ended_at_lba) {
        (Ending::DeviceWentAway, Some(lba)) => {
            let _ = writeln!(
                out,
                "  device went away at sector {lba}: the scan stopped there (the zones above were read)"
            );
        }
        (Ending::Stopped, Some(lba)) => {
            let _ = writeln!(
                out,
                "  stopped by a signal at sector {lba} (the zones above were read)"
            );
        }
        _ => {}
    }
    out
}

/// The CSV: a header and one line per zone.
pub fn csv(scan: &Scan) -> String {
    let mut out =
        String::from("zone,first_lba,last_lba,bytes_read,read_mb_per_s,access_ms,errors,slow\n");
    for z in &scan.zones {
        let _ = writeln!(
            out,
            "{},{},{},{},{},{},{},{}",
            z.index,
            z.first_lba,
            z.last_lba,
            z.bytes_read,
            z.read_mb_per_s.map_or(String::new(), |r| format!("{r:.3}")),
            z.access_ms.map_or(String::new(), |a| format!("{a:.3}")),
            z.error_blocks,
            z.slow
        );
    }
    out
}

/// The SVG plot: read rate (line, left axis) and access time (dots, right axis) across the
/// capacity; slow zones shaded, zones with errors marked red, a legend for what is drawn, and
/// a quick scan said to be one under the title. The axes tick at round values (1-2-5), each
/// labelled with the same decimals.
pub fn svg(device: &str, scan: &Scan) -> String {
    let (w, h) = (800.0, 420.0);
    let (left, right, top, bottom) = (70.0, 70.0, 70.0, 50.0);
    let plot_w = w - left - right;
    let plot_h = h - top - bottom;
    // an axis from 0 to a little above the largest value of a series (at least `least`)
    let series_axis = |value: fn(&Zone) -> Option<f64>, least: f64| {
        let max = scan.zones.iter().filter_map(value).fold(0.0f64, f64::max);
        Axis::from_zero(max.max(least) * 1.05)
    };
    let rates = series_axis(|z| z.read_mb_per_s, 1.0);
    let access = series_axis(|z| z.access_ms, 0.01);
    let position = Axis::from_zero(100.0);
    let n = scan.planned_zones.max(1) as f64;
    let x = |i: f64| left + plot_w * i / n;
    let y_rate = |r: f64| top + plot_h * (1.0 - rates.fraction(r));
    let y_access = |a: f64| top + plot_h * (1.0 - access.fraction(a));
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\" class=\"title\">{} of {} ({:.1} GB)</text>",
        w / 2.0,
        if scan.quick {
            "Quick surface scan"
        } else {
            "Surface scan"
        },
        escape(device),
        scan.size_bytes as f64 / 1e9
    );
    if scan.quick {
        let _ = writeln!(
            s,
            "<text x=\"{}\" y=\"38\" text-anchor=\"middle\" fill=\"#555\" class=\"subtitle\">quick: 8 MiB read at the start of each of {} zones, not the whole device</text>",
            w / 2.0,
            scan.planned_zones
        );
    }
    const SLOW: &str = "#f5d76e";
    const ERROR: &str = "#e74c3c";
    for z in &scan.zones {
        let i = z.index as f64;
        if z.slow || z.has_errors() {
            let color = if !z.has_errors() { SLOW } else { ERROR };
            let _ = writeln!(
                s,
                "<rect class=\"{}\" x=\"{:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{plot_h}\" fill=\"{color}\" opacity=\"0.5\"/>",
                if z.has_errors() { "error" } else { "slow" },
                x(i),
                plot_w / n
            );
        }
    }
    // The legend, one row under the title: the two series, and the bands that are drawn.
    let mut items: Vec<(&str, String)> = vec![
        (
            "line",
            "<line x1=\"0\" y1=\"0\" x2=\"16\" y2=\"0\" stroke=\"#1f77b4\" stroke-width=\"2\"/>"
                .into(),
        ),
        (
            "dot",
            "<circle cx=\"8\" cy=\"0\" r=\"2.5\" fill=\"#2ca02c\"/>".into(),
        ),
    ];
    let band = |color: &str| {
        format!(
            "<rect x=\"0\" y=\"-6\" width=\"16\" height=\"12\" fill=\"{color}\" opacity=\"0.5\"/>"
        )
    };
    if scan.zones.iter().any(|z| z.slow && !z.has_errors()) {
        items.push(("slow", band(SLOW)));
    }
    if scan.zones.iter().any(|z| z.has_errors()) {
        items.push(("error", band(ERROR)));
    }
    let mut lx = left;
    for (what, mark) in items {
        let label = match what {
            "line" => "read rate",
            "dot" => "access time",
            "slow" => "slow zone (under half the median rate)",
            _ => "zone with read errors",
        };
        let _ = writeln!(
            s,
            "<g class=\"legend\" transform=\"translate({lx:.1} 56)\">{mark}<text x=\"22\" y=\"4\">{label}</text></g>"
        );
        lx += 40.0 + 6.5 * label.len() as f64;
    }
    // Axes, ticks and labels.
    let _ = writeln!(
        s,
        "<g stroke=\"black\"><line x1=\"{left}\" y1=\"{top}\" x2=\"{left}\" y2=\"{}\"/><line x1=\"{left}\" y1=\"{}\" x2=\"{}\" y2=\"{}\"/><line x1=\"{}\" y1=\"{top}\" x2=\"{}\" y2=\"{}\"/></g>",
        top + plot_h,
        top + plot_h,
        left + plot_w,
        top + plot_h,
        left + plot_w,
        left + plot_w,
        top + plot_h
    );
    // the vertical axes' ticks: a 4-pixel stroke outward and the label beyond it
    let side = |axis: &Axis, pos: &dyn Fn(f64) -> f64, at: f64, out: f64, class: &str| {
        let anchor = if out < 0.0 { "end" } else { "start" };
        axis.ticks()
            .into_iter()
            .map(|t| {
                format!(
                    "<line x1=\"{at:.1}\" y1=\"{y:.1}\" x2=\"{:.1}\" y2=\"{y:.1}\" stroke=\"black\"/><text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"{anchor}\" class=\"{class}\">{}</text>\n",
                    at + 4.0 * out,
                    at + 6.0 * out,
                    pos(t) + 4.0,
                    axis.label(t),
                    y = pos(t)
                )
            })
            .collect::<String>()
    };
    s.push_str(&side(&rates, &y_rate, left, -1.0, "rate-tick"));
    s.push_str(&side(&access, &y_access, left + plot_w, 1.0, "access-tick"));
    for t in position.ticks() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\" class=\"position-tick\">{}%</text>",
            left + plot_w * position.fraction(t),
            top + plot_h + 18.0,
            position.label(t)
        );
    }
    let _ = writeln!(
        s,
        "<text x=\"{:.1}\" y=\"{}\" text-anchor=\"middle\">position on the device (% of capacity)</text>",
        left + plot_w / 2.0,
        h - 10.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate(18 {:.1}) rotate(-90)\" text-anchor=\"middle\" fill=\"#1f77b4\">read rate (MB/s)</text>",
        top + plot_h / 2.0
    );
    let _ = writeln!(
        s,
        "<text transform=\"translate({:.1} {:.1}) rotate(90)\" text-anchor=\"middle\" fill=\"#2ca02c\">access time (ms)</text>",
        w - 14.0,
        top + plot_h / 2.0
    );
    // One series, broken where a zone could not be read whole (a read error, or nothing
    // read): the line must not run across a region as if it had been read there.
    let mut path = String::new();
    let mut pen_down = false;
    for z in &scan.zones {
        match z.read_mb_per_s.filter(|_| !z.has_errors()) {
            Some(r) => {
                let command = if pen_down { 'L' } else { 'M' };
                let _ = write!(
                    path,
                    "{command}{:.1},{:.1} ",
                    x(z.index as f64 + 0.5),
                    y_rate(r)
                );
                pen_down = true;
            }
            None => pen_down = false,
        }
    }
    let _ = writeln!(
        s,
        "<path class=\"read-rate\" fill=\"none\" stroke=\"#1f77b4\" stroke-width=\"2\" d=\"{}\"/>",
        path.trim_end()
    );
    for z in &scan.zones {
        if let Some(a) = z.access_ms {
            let _ = writeln!(
                s,
                "<circle class=\"access-time\" cx=\"{:.1}\" cy=\"{:.1}\" r=\"2.5\" fill=\"#2ca02c\"/>",
                x(z.index as f64 + 0.5),
                y_access(a)
            );
        }
    }
    s.push_str("</svg>\n");
    s
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::timing::surface::ErrorRange;

    fn scan() -> Scan {
        let zone = |index: usize, rate: f64, slow: bool, errors: Vec<ErrorRange>| Zone {
            index,
            first_lba: index as u64 * 1000,
            last_lba: index as u64 * 1000 + 999,
            bytes_read: 512_000,
            read_mb_per_s: Some(rate),
            access_ms: Some(0.5 + index as f64 / 10.0),
            error_blocks: errors.len() as u64,
            error_ranges: errors,
            error_ranges_not_listed: 0,
            slow,
        };
        let range = |first_lba, last_lba| ErrorRange {
            first_lba,
            last_lba,
        };
        Scan {
            size_bytes: 2_048_000,
            quick: false,
            planned_zones: 4,
            zones: vec![
                zone(0, 200.0, false, vec![]),
                zone(1, 60.0, true, vec![]),
                zone(2, 190.0, false, vec![range(2048, 2999)]),
                zone(3, 180.0, false, vec![]),
            ],
            median_mb_per_s: Some(185.0),
            ended: Ending::Complete,
            ended_at_lba: None,
        }
    }

    #[test]
    fn text_flags_slow_zones_and_errors() {
        let t = text("/dev/sdz", &scan());
        assert!(
            t.contains("  read rate   min 60.0  median 185.0  max 200.0 MB/s\n"),
            "{t}"
        );
        assert!(t.contains("  slow zone: sectors 1000-1999 at 60.0 MB/s (under half the median)\n"));
        assert!(t.contains(
            "  read errors in sectors 2000-2999: 1 blocks of 1 MiB failed, in sectors 2048-2999\n"
        ));
        assert!(t.contains("ERRORS"));
        assert!(!t.contains("went away") && !t.contains("stopped"));
    }

    #[test]
    fn an_early_end_is_said_after_the_zones_read() {
        let mut s = scan();
        s.zones.truncate(2);
        s.ended = Ending::DeviceWentAway;
        s.ended_at_lba = Some(2048);
        let t = text("/dev/sdz", &s);
        assert!(
            t.ends_with(
                "  device went away at sector 2048: the scan stopped there (the zones above were read)\n"
            ),
            "{t}"
        );
        assert!(t.contains(" Surface scan of 0.0 GB in 4 zones:"), "{t}");
        s.ended = Ending::Stopped;
        let t = text("/dev/sdz", &s);
        assert!(t.ends_with("  stopped by a signal at sector 2048 (the zones above were read)\n"));
        let mut s = scan();
        s.zones[2].error_ranges_not_listed = 3;
        let t = text("/dev/sdz", &s);
        assert!(
            t.contains("in sectors 2048-2999, and 3 more ranges\n"),
            "{t}"
        );
    }

    #[test]
    fn csv_has_a_line_per_zone() {
        let c = csv(&scan());
        assert_eq!(c.lines().count(), 5);
        assert!(c.lines().nth(2).unwrap().ends_with(",0,true"));
    }

    #[test]
    fn svg_has_axes_series_labels_and_marks() {
        let s = svg("/dev/sdz", &scan());
        assert!(s.starts_with("<svg "));
        assert!(s.contains("class=\"read-rate\""));
        assert_eq!(s.matches("class=\"access-time\"").count(), 4);
        assert!(s.contains("read rate (MB/s)") && s.contains("access time (ms)"));
        assert!(s.contains("position on the device (% of capacity)"));
        assert_eq!(s.matches("class=\"slow\"").count(), 1);
        assert_eq!(s.matches("class=\"error\"").count(), 1);
        assert!(s.trim_end().ends_with("</svg>"));
    }

    /// The numbers of one axis, as the SVG's texts show them.
    fn ticks(svg: &str, class: &str) -> Vec<String> {
        crate::report::axis::svg_texts(svg)
            .into_iter()
            .filter(|(a, _)| a.contains(&format!("class=\"{class}\"")))
            .map(|(_, t)| t)
            .collect()
    }

    /// Ticks at round values, each axis with one number of decimals; a legend for the bands
    /// drawn; a quick scan says it is one.
    #[test]
    fn svg_ticks_are_round_the_bands_have_a_legend_and_quick_says_so() {
        let mut sc = scan();
        let svg_full = svg("/dev/sdz", &sc);
        assert_eq!(
            ticks(&svg_full, "rate-tick"),
            ["0", "50", "100", "150", "200", "250"]
        );
        // access times 0.5 … 0.8 ms
        assert_eq!(
            ticks(&svg_full, "access-tick"),
            ["0.0", "0.2", "0.4", "0.6", "0.8", "1.0"]
        );
        assert_eq!(
            ticks(&svg_full, "position-tick"),
            ["0%", "20%", "40%", "60%", "80%", "100%"]
        );
        let texts: Vec<String> = crate::report::axis::svg_texts(&svg_full)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        for want in [
            "read rate",
            "access time",
            "slow zone (under half the median rate)",
            "zone with read errors",
        ] {
            assert!(
                texts.iter().any(|t| t == want),
                "no legend {want:?}: {texts:?}"
            );
        }
        assert!(texts.contains(&"Surface scan of /dev/sdz (0.0 GB)".to_string()));
        assert!(!svg_full.contains("class=\"subtitle\""));
        // no slow zone, no slow legend; a quick scan is named so
        sc.zones[1].slow = false;
        sc.quick = true;
        let quick = svg("/dev/sdz", &sc);
        let texts: Vec<String> = crate::report::axis::svg_texts(&quick)
            .into_iter()
            .map(|(_, t)| t)
            .collect();
        assert!(
            !texts.iter().any(|t| t.starts_with("slow zone")),
            "{texts:?}"
        );
        assert!(texts.contains(&"Quick surface scan of /dev/sdz (0.0 GB)".to_string()));
        assert!(
            texts.contains(
                &"quick: 8 MiB read at the start of each of 4 zones, not the whole device"
                    .to_string()
            ),
            "{texts:?}"
        );
    }

    #[test]
    fn the_rate_line_breaks_at_a_zone_with_read_errors() {
        let s = svg("/dev/sdz", &scan());
        let d = s
            .split("class=\"read-rate\"")
            .nth(1)
            .and_then(|rest| rest.split(" d=\"").nth(1))
            .and_then(|rest| rest.split('"').next())
            .unwrap_or_default();
        // Zones 0 and 1 joined, zone 2 (read errors) left out, zone 3 a new stroke.
        assert_eq!(d.matches('M').count(), 2, "{d}");
        assert_eq!(d.matches('L').count(), 1, "{d}");
    }
}
