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
use crate::timing::surface::{Ending, Scan};
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
/// capacity; slow zones shaded, zones with errors marked red.
pub fn svg(device: &str, scan: &Scan) -> String {
    let p = Plot::new(scan);
    let (w, h) = (p.w, p.h);
    let mut s = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"{w}\" height=\"{h}\" fill=\"white\"/>\n"
    );
    let _ = writeln!(
        s,
        "<text x=\"{}\" y=\"22\" text-anchor=\"middle\" font-size=\"15\">{} of {} ({:.1} GB){}</text>",
        w / 2.0,
        if scan.quick { "Quick surface scan" } else { "Surface scan" },
        escape(device),
        scan.size_bytes as f64 / 1e9,
        if scan.quick { ", 8 MiB of each zone" } else { "" }
    );
    svg_bands(&mut s, &p, scan);
    svg_axes(&mut s, &p);
    svg_legend(&mut s, &p, scan);
    svg_axis_titles(&mut s, &p);
    svg_series(&mut s, &p, scan);
    s.push_str("</svg>\n");
    s
}

/// The plot's geometry and its two value axes.
struct Plot {
    w: f64,
    h: f64,
    left: f64,
    top: f64,
    plot_w: f64,
    plot_h: f64,
    /// Zones planned (at least 1): the x axis.
    n: f64,
    rate_axis: Axis,
    access_axis: Axis,
}

impl Plot {
    fn new(scan: &Scan) -> Plot {
        let (w, h) = (800.0, 400.0);
        let (left, right, top, bottom) = (70.0, 70.0, 52.0, 50.0);
        // Both value axes start at 0 and end on a round tick above the largest value.
        let axis_over = |value: fn(&crate::timing::surface::Zone) -> Option<f64>, least: f64| {
            let max = scan.zones.iter().filter_map(value).fold(0.0f64, f64::max);
            Axis::covering(0.0, max.max(least), 5)
        };
        Plot {
            w,
            h,
            left,
            top,
            plot_w: w - left - right,
            plot_h: h - top - bottom,
            n: scan.planned_zones.max(1) as f64,
            rate_axis: axis_over(|z| z.read_mb_per_s, 1.0),
            access_axis: axis_over(|z| z.access_ms, 0.01),
        }
    }

    fn x(&self, i: f64) -> f64 {
        self.left + self.plot_w * i / self.n
    }

    fn y_rate(&self, r: f64) -> f64 {
        self.top + self.plot_h * (1.0 - r / self.rate_axis.hi)
    }

    fn y_access(&self, a: f64) -> f64 {
        self.top + self.plot_h * (1.0 - a / self.access_axis.hi)
    }
}

/// The bands behind slow zones and zones with read errors.
fn svg_bands(s: &mut String, p: &Plot, scan: &Scan) {
    let (top, plot_w, plot_h, n) = (p.top, p.plot_w, p.plot_h, p.n);
    for z in &scan.zones {
        let i = z.index as f64;
        if z.slow || z.has_errors() {
            let color = if !z.has_errors() {
                "#f5d76e"
            } else {
                "#e74c3c"
            };
            let _ = writeln!(
                s,
                "<rect class=\"{}\" x=\"{:.1}\" y=\"{top}\" width=\"{:.1}\" height=\"{plot_h}\" fill=\"{color}\" opacity=\"0.5\"/>",
                if z.has_errors() { "error" } else { "slow" },
                p.x(i),
                plot_w / n
            );
        }
    }
}

/// The axes, their ticks and labels.
fn svg_axes(s: &mut String, p: &Plot) {
    let (left, top, plot_w, plot_h) = (p.left, p.top, p.plot_w, p.plot_h);
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
    for t in p.rate_axis.ticks() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            left - 6.0,
            p.y_rate(t) + 4.0,
            p.rate_axis.label(t)
        );
    }
    for t in p.access_axis.ticks() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\">{}</text>",
            left + plot_w + 6.0,
            p.y_access(t) + 4.0,
            p.access_axis.label(t)
        );
    }
    let percent = Axis::covering(0.0, 100.0, 10);
    for t in percent.ticks() {
        let _ = writeln!(
            s,
            "<text x=\"{:.1}\" y=\"{:.1}\" text-anchor=\"middle\">{}%</text>",
            left + plot_w * t / 100.0,
            top + plot_h + 18.0,
            percent.label(t)
        );
    }
}

/// The legend of the bands drawn, in a row between the title and the plot.
fn svg_legend(s: &mut String, p: &Plot, scan: &Scan) {
    let (left, top) = (p.left, p.top);
    // The legend of the bands drawn, in a row between the title and the plot.
    let kinds = [
        (
            "slow",
            "#f5d76e",
            "slow zone (under half the median rate)",
            scan.zones.iter().any(|z| z.slow && !z.has_errors()),
        ),
        (
            "error",
            "#e74c3c",
            "zone with read errors",
            scan.zones.iter().any(|z| z.has_errors()),
        ),
    ];
    let (mut lx, ly) = (left, top - 20.0);
    for (class, color, words, _) in kinds.iter().filter(|k| k.3) {
        let _ = writeln!(
            s,
            "<g class=\"legend-{class}\"><rect x=\"{lx:.1}\" y=\"{ly:.1}\" width=\"14\" height=\"10\" fill=\"{color}\" opacity=\"0.5\"/><text x=\"{:.1}\" y=\"{:.1}\" font-size=\"11\">{words}</text></g>",
            lx + 20.0,
            ly + 9.0
        );
        lx += 280.0;
    }
}

/// The titles of the three axes.
fn svg_axis_titles(s: &mut String, p: &Plot) {
    let (w, h, left, top, plot_w, plot_h) = (p.w, p.h, p.left, p.top, p.plot_w, p.plot_h);
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
}

/// The read-rate line and the access-time dots.
fn svg_series(s: &mut String, p: &Plot, scan: &Scan) {
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
                    p.x(z.index as f64 + 0.5),
                    p.y_rate(r)
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
                p.x(z.index as f64 + 0.5),
                p.y_access(a)
            );
        }
    }
}

fn escape(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::axis::svg_texts;
    use crate::timing::surface::{ErrorRange, Zone};

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

    #[test]
    fn svg_ticks_are_round_evenly_labelled_and_the_bands_have_a_legend() {
        let t = svg_texts(&svg("/dev/sdz", &scan()));
        // Rates up to 200 MB/s: 0 to 200 by 50; access times up to 0.8 ms: 0.0 to 0.8 by 0.2.
        for want in ["0", "50", "100", "150", "200"] {
            assert!(t.iter().any(|x| x == want), "{want} in {t:?}");
        }
        for want in ["0.0", "0.2", "0.4", "0.6", "0.8"] {
            assert!(t.iter().any(|x| x == want), "{want} in {t:?}");
        }
        let percents: Vec<&String> = t.iter().filter(|x| x.ends_with('%')).collect();
        assert_eq!(percents.len(), 11, "{t:?}");
        assert!(percents.iter().any(|x| *x == "50%"), "{t:?}");
        // Before: 0, 55, 110, 165, 220 and 0.2, 0.4, 0.6, 0.9 (the max times 1.1, in quarters).
        assert!(!t.iter().any(|x| x == "55" || x == "0.9"), "{t:?}");
        assert!(
            t.contains(&"slow zone (under half the median rate)".to_string()),
            "{t:?}"
        );
        assert!(t.contains(&"zone with read errors".to_string()), "{t:?}");
        assert_eq!(t[0], "Surface scan of /dev/sdz (0.0 GB)");
        let mut quick = scan();
        quick.quick = true;
        let t = svg_texts(&svg("/dev/sdz", &quick));
        assert_eq!(
            t[0],
            "Quick surface scan of /dev/sdz (0.0 GB), 8 MiB of each zone"
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
