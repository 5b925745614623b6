//! What `--experiment` found, as one typed report, and its three renderings: the text on
//! stdout (per-arm lines, the verdicts, a chart of the trials, what was restored), the JSON
//! document, and the SVG strip plot of `--plot`.
//!
//! # JSON
//!
//! In the usual envelope (see `report::envelope`), the one device carries `"experiment"`:
//!
//! ```json
//! { "measurement": "buffered", "unit": "mib_per_second", "order": "abba",
//!   "trials_per_arm": 3,
//!   "warmup": { "arm": 0, "mib_per_second": 712.5 },
//!   "originals": [ { "option": "-a", "value": "256" } ],
//!   "arms": [ { "label": "-a 8", "settings": [ { "option": "-a", "value": "8" } ],
//!               "trials_mib_per_second": [ 700.1, 690.3, 720.8 ],
//!               "summary": { "count": 3, "median": ..., "mean": ..., "stddev": ...,
//!                            "min": ..., "max": ..., "ci95_low": ..., "ci95_high": ... } } ],
//!   "trials": [ { "index": 0, "arm": 0, "mib_per_second": 700.1 }, ... ],   // run order
//!   "comparisons": [ { "arm": 1, "baseline": 0, "ratio": 1.02, "ci95_low": 0.97,
//!                      "ci95_high": 1.08, "resamples": 100000,
//!                      "verdict": { "verdict": "no_difference", "noise_percent": 5.5 } } ],
//!   "winner": 1,                     // an arm index, or null
//!   "stopped": null,                 // or why the run ended early
//!   "kept": null,                    // the arm left applied by --keep, or null
//!   "restored": [ { "option": "-a", "value": "256", "reads_back": "256" } ],
//!   "restore_failed": null,          // or why setting the originals again failed
//!   "stanza": null }                 // the hdparm.conf block --keep printed, or null
//! ```
//!
//! `verdict` is `second_larger` (the arm is faster than the baseline), `second_smaller`, or
//! `no_difference` with its `noise_percent`. `reads_back` is null when the get could not be
//! read after the restore.
//!
//! What this file must not do: measure, touch a device, or decide anything; the executor
//! (`exec::modes::experiment`) fills the report.

use super::axis::Axis;
use crate::config::keys::{self, Form};
use crate::stats::{Ratio, Summary, Verdict};
use schemars::JsonSchema;
use serde::Serialize;
use std::fmt::Write as _;

/// One option and the value that sets it (`-a` and `256`, `-X` and `udma5`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Setting {
    pub option: String,
    pub value: String,
}

impl Setting {
    /// As a user types it: `-a 256`.
    pub fn text(&self) -> String {
        format!("{} {}", self.option, self.value)
    }
}

/// One arm: what it sets and what its trials measured.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ArmReport {
    /// As given on the command line (`-a 8`).
    pub label: String,
    pub settings: Vec<Setting>,
    pub trials_mib_per_second: Vec<f64>,
    /// None until the arm has a trial.
    pub summary: Option<Summary>,
}

/// One trial in run order.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Trial {
    pub index: usize,
    pub arm: usize,
    pub mib_per_second: f64,
}

/// The discarded warm-up trial.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Warmup {
    pub arm: usize,
    pub mib_per_second: f64,
}

/// One arm against the baseline: `mean(arm) / mean(baseline)`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Comparison {
    pub arm: usize,
    pub baseline: usize,
    #[serde(flatten)]
    pub ratio: Ratio,
    pub verdict: Verdict,
}

/// A setting put back, and what its get reads afterwards.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Restored {
    pub option: String,
    pub value: String,
    pub reads_back: Option<String>,
}

/// --experiment (src/report/experiment.rs): every raw trial, the summaries, the ratios with
/// their bootstrap intervals, the verdicts and what was restored.
#[derive(Clone, Debug, PartialEq, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ExperimentReport {
    #[serde(skip)]
    pub device: String,
    /// `buffered`, `direct` or `bench`.
    #[schemars(extend("enum" = ["buffered", "direct", "bench"]))]
    pub measurement: &'static str,
    #[schemars(extend("const" = "mib_per_second"))]
    pub unit: &'static str,
    /// The order scheme (see `exec::modes::experiment`).
    pub order: &'static str,
    #[schemars(range(min = 1))]
    pub trials_per_arm: u32,
    pub warmup: Option<Warmup>,
    pub originals: Vec<Setting>,
    pub arms: Vec<ArmReport>,
    pub trials: Vec<Trial>,
    pub comparisons: Vec<Comparison>,
    pub winner: Option<usize>,
    pub stopped: Option<String>,
    pub kept: Option<usize>,
    pub restored: Vec<Restored>,
    /// Why setting the originals again failed, if it did.
    pub restore_failed: Option<String>,
    pub stanza: Option<String>,
}

/// What each measurement is called in the text.
fn measurement_words(measurement: &str) -> &'static str {
    match measurement {
        "direct" => "-t --direct's O_DIRECT read",
        "bench" => "--bench's O_DIRECT read at depth",
        _ => "-t's buffered read",
    }
}

/// A rate as the text prints it.
fn rate(v: f64) -> String {
    format!("{v:.1}")
}

/// The arm's label in quotes, padded to `width` characters (quotes included).
fn padded_label(label: &str, width: usize) -> String {
    format!("{:<width$}", format!("'{label}'"))
}

/// The width of the longest arm label in quotes: the column [`padded_label`] pads to.
fn label_width(r: &ExperimentReport) -> usize {
    r.arms
        .iter()
        .map(|a| a.label.chars().count() + 2)
        .max()
        .unwrap_or(0)
}

/// The text report, every line ending in a newline.
pub fn render_text(r: &ExperimentReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n{}:", r.device);
    let _ = writeln!(
        s,
        " experiment: {} arms, {} trials each after 1 warm-up, by {} in MB/s, in {} order",
        r.arms.len(),
        r.trials_per_arm,
        measurement_words(r.measurement),
        r.order
    );
    let originals: Vec<String> = r.originals.iter().map(Setting::text).collect();
    let _ = writeln!(s, " before: {}", originals.join(", "));
    let width = label_width(r);
    for (i, arm) in r.arms.iter().enumerate() {
        let label = padded_label(&arm.label, width);
        match &arm.summary {
            Some(m) => {
                let _ = writeln!(
                    s,
                    " arm {} {label}  median {}  mean {} ± {}  min {} … max {}  95% CI {} … {}  ({} trial{})",
                    i + 1,
                    rate(m.median),
                    rate(m.mean),
                    rate(m.stddev),
                    rate(m.min),
                    rate(m.max),
                    rate(m.ci95_low),
                    rate(m.ci95_high),
                    m.count,
                    if m.count == 1 { "" } else { "s" }
                );
            }
            None => {
                let _ = writeln!(s, " arm {} {label}  no trials", i + 1);
            }
        }
    }
    for c in &r.comparisons {
        let (Some(arm), Some(base)) = (r.arms.get(c.arm), r.arms.get(c.baseline)) else {
            continue;
        };
        let judged = match c.verdict {
            Verdict::SecondLarger => format!(
                "'{}' is faster, by {:.1}% at least",
                arm.label,
                (c.ratio.ci95_low - 1.0) * 100.0
            ),
            Verdict::SecondSmaller => format!(
                "'{}' is slower, by {:.1}% at least",
                arm.label,
                (1.0 - c.ratio.ci95_high) * 100.0
            ),
            Verdict::NoDifference { noise_percent } => {
                format!("no difference this run can detect; the noise is ±{noise_percent:.1}%")
            }
        };
        let _ = writeln!(
            s,
            " '{}' / '{}' = {:.3} (95% CI {:.3} … {:.3}): {judged}",
            arm.label, base.label, c.ratio.ratio, c.ratio.ci95_low, c.ratio.ci95_high
        );
    }
    match r.winner.and_then(|w| r.arms.get(w)) {
        Some(w) => {
            let _ = writeln!(s, " winner: '{}', faster than every other arm", w.label);
        }
        None if r.stopped.is_none() => {
            let _ = writeln!(s, " winner: none (no arm is faster than all the others)");
            // The interval of a mean narrows with the square root of the trials.
            let _ = writeln!(
                s,
                " hint: four times the trials (--trials {}) halve the intervals",
                r.trials_per_arm.saturating_mul(4).min(1000)
            );
        }
        None => {}
    }
    s.push_str(&render_chart(r, 50));
    if let Some(why) = &r.stopped {
        let _ = writeln!(s, " stopped early: {why}");
    }
    if let Some(kept) = r.kept.and_then(|k| r.arms.get(k)) {
        let _ = writeln!(s, " kept: '{}' stays applied (--keep)", kept.label);
        if let Some(stanza) = &r.stanza {
            let _ = writeln!(s, " to make it last, in /etc/hdparm.conf:");
            // Unindented, so that it can be pasted into the file as it is.
            s.push_str(stanza);
        }
    }
    if !r.restored.is_empty() {
        let items: Vec<String> = r
            .restored
            .iter()
            .map(|x| {
                let back = x.reads_back.as_deref().unwrap_or("unknown");
                format!("{} {} (reads back {back})", x.option, x.value)
            })
            .collect();
        let _ = writeln!(s, " restored: {}", items.join(", "));
    }
    if let Some(why) = &r.restore_failed {
        let _ = writeln!(s, " the restore failed: {why}");
    }
    s
}

/// The trials per arm on one common scale, one line per arm: `o` marks one trial, a digit
/// several in the same column.
pub fn render_chart(r: &ExperimentReport, columns: usize) -> String {
    let all: Vec<f64> = r
        .arms
        .iter()
        .flat_map(|a| a.trials_mib_per_second.iter().copied())
        .collect();
    let (Some(lo), Some(hi)) = (
        all.iter().copied().reduce(f64::min),
        all.iter().copied().reduce(f64::max),
    ) else {
        return String::new();
    };
    let columns = columns.max(2);
    let span = if hi > lo { hi - lo } else { 1.0 };
    let width = label_width(r);
    let mut s = String::new();
    let _ = writeln!(s, " trials (MB/s):");
    for arm in &r.arms {
        let mut counts = vec![0u32; columns];
        for v in &arm.trials_mib_per_second {
            let at = (((v - lo) / span) * (columns - 1) as f64).round() as usize;
            counts[at.min(columns - 1)] += 1;
        }
        let marks: String = counts
            .iter()
            .map(|&n| match n {
                0 => ' ',
                1 => 'o',
                2..=9 => char::from_digit(n, 10).unwrap_or('*'),
                _ => '*',
            })
            .collect();
        let _ = writeln!(s, "   {} |{marks}|", padded_label(&arm.label, width));
    }
    let left = rate(lo);
    let right = rate(hi);
    let gap = (columns + 2)
        .saturating_sub(left.len() + right.len())
        .max(1);
    let _ = writeln!(
        s,
        "   {:width$} {left}{}{right}",
        "",
        " ".repeat(gap.saturating_sub(1)),
    );
    s
}

/// hdparm.conf's key for an option (Debian's `hdparm.conf`), or why there is none.
fn conf_line(setting: &Setting) -> Result<String, String> {
    let on_off = |v: &str| match v {
        "0" => Ok("off".to_string()),
        "1" => Ok("on".to_string()),
        other => Err(format!(
            "{} {other}: hdparm.conf's key takes only on or off",
            setting.option
        )),
    };
    let option = crate::cli::defs::by_spelling(&setting.option);
    let no_key = || {
        format!(
            "{} {}: hdparm.conf has no key for it; run it from a boot script",
            setting.option, setting.value
        )
    };
    if option == Some(&crate::cli::defs::QUEUE_DEPTH) {
        return Err(format!(
            "{} {}: hdparm.conf has no key for the queue depth; run it from a boot script",
            setting.option, setting.value
        ));
    }
    let conf = option.and_then(keys::of_option).ok_or_else(no_key)?;
    let key = conf.key;
    let value = match conf.form {
        Form::OnOff => on_off(&setting.value),
        // Debian's script glues the value to -X; the number is what every hdparm reads.
        Form::Number if conf.option == &crate::cli::defs::XFER_MODE => {
            Ok(crate::ata::values::xfer_mode_by_name(&setting.value)
                .map(|n| n.to_string())
                .unwrap_or_else(|| setting.value.clone()))
        }
        Form::Number => Ok(setting.value.clone()),
        Form::Bare | Form::Alone => return Err(no_key()),
    };
    value.map(|v| format!("{key} = {v}"))
}

/// The `/etc/hdparm.conf` block that applies `settings` to `device` at boot; what has no key
/// becomes a comment saying so.
pub fn conf_stanza(device: &str, settings: &[Setting]) -> String {
    let mut s = format!("{device} {{\n");
    for setting in settings {
        match conf_line(setting) {
            Ok(line) => {
                let _ = writeln!(s, "\t{line}");
            }
            Err(why) => {
                let _ = writeln!(s, "\t# {why}");
            }
        }
    }
    s.push_str("}\n");
    s
}

/// Text as SVG character data.
fn xml(text: &str) -> String {
    text.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// The strip plot of `--plot`: one row per arm, each trial a dot, the median a tick and the
/// 95% interval of the mean a bar; an x axis in MB/s with round ticks and a grid.
pub fn render_svg(r: &ExperimentReport) -> String {
    let left = 40.0 + 7.0 * r.arms.iter().map(|a| a.label.len()).max().unwrap_or(4) as f64;
    let plot_width = 560.0;
    let width = left + plot_width + 40.0;
    let row = 60.0;
    let top = 50.0;
    let height = top + row * r.arms.len() as f64 + 60.0;
    let values: Vec<f64> = r
        .arms
        .iter()
        .flat_map(|a| a.trials_mib_per_second.iter().copied())
        .collect();
    let lo = values.iter().copied().reduce(f64::min).unwrap_or(0.0);
    let hi = values.iter().copied().reduce(f64::max).unwrap_or(1.0);
    let pad = ((hi - lo) * 0.1).max(hi.abs() * 0.01).max(1e-9);
    // The axis spans the trials (the bands may run past it: see the marks below).
    let axis = Axis::covering(lo - pad, hi + pad, 5);
    let (axis_lo, axis_hi) = (axis.lo, axis.hi);
    let x = |v: f64| left + (v - axis_lo) / (axis_hi - axis_lo) * plot_width;
    let axis_y = top + row * r.arms.len() as f64;
    let mut s = String::new();
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0}" height="{height:.0}" viewBox="0 0 {width:.0} {height:.0}" font-family="sans-serif" font-size="12">"#
    );
    let _ = writeln!(
        s,
        r#"<rect x="0" y="0" width="{width:.0}" height="{height:.0}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="24" font-size="14" text-anchor="middle">{}: {} trials per arm, {}</text>"#,
        width / 2.0,
        xml(&r.device),
        r.trials_per_arm,
        xml(measurement_words(r.measurement))
    );
    // Grid and ticks.
    for tick in axis.ticks() {
        let tx = x(tick);
        let _ = writeln!(
            s,
            r##"<line x1="{tx:.1}" y1="{top:.1}" x2="{tx:.1}" y2="{axis_y:.1}" stroke="#e0e0e0"/>"##
        );
        let _ = writeln!(
            s,
            r#"<line x1="{tx:.1}" y1="{axis_y:.1}" x2="{tx:.1}" y2="{:.1}" stroke="black"/>"#,
            axis_y + 5.0
        );
        let _ = writeln!(
            s,
            r#"<text x="{tx:.1}" y="{:.1}" text-anchor="middle">{}</text>"#,
            axis_y + 18.0,
            axis.label(tick)
        );
    }
    let _ = writeln!(
        s,
        r#"<line x1="{left:.1}" y1="{axis_y:.1}" x2="{:.1}" y2="{axis_y:.1}" stroke="black"/>"#,
        left + plot_width
    );
    let _ = writeln!(
        s,
        r#"<line x1="{left:.1}" y1="{top:.1}" x2="{left:.1}" y2="{axis_y:.1}" stroke="black"/>"#
    );
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" text-anchor="middle">read rate (MB/s)</text>"#,
        left + plot_width / 2.0,
        axis_y + 40.0
    );
    const COLOURS: [&str; 6] = [
        "#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b",
    ];
    for (i, arm) in r.arms.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let cy = top + row * i as f64 + row / 2.0;
        let _ = writeln!(
            s,
            r#"<text x="{:.1}" y="{:.1}" text-anchor="end" class="arm-label">{}</text>"#,
            left - 8.0,
            cy + 4.0,
            xml(&arm.label)
        );
        if let Some(m) = &arm.summary {
            let _ = writeln!(
                s,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="12" fill="{colour}" fill-opacity="0.15" class="ci95"/>"#,
                x(m.ci95_low.max(axis_lo)),
                cy - 6.0,
                (x(m.ci95_high.min(axis_hi)) - x(m.ci95_low.max(axis_lo))).max(1.0)
            );
            // A band cut at an edge says so, with where it ends: an arrow and its value.
            if m.ci95_low < axis_lo {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="{colour}" class="ci95-clipped">← {}</text>"#,
                    left + 2.0,
                    cy - 9.0,
                    rate(m.ci95_low)
                );
            }
            if m.ci95_high > axis_hi {
                let _ = writeln!(
                    s,
                    r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="{colour}" text-anchor="end" class="ci95-clipped">{} →</text>"#,
                    left + plot_width - 2.0,
                    cy - 9.0,
                    rate(m.ci95_high)
                );
            }
            let _ = writeln!(
                s,
                r#"<line x1="{mx:.1}" y1="{:.1}" x2="{mx:.1}" y2="{:.1}" stroke="{colour}" stroke-width="2" class="median"/>"#,
                cy - 14.0,
                cy + 14.0,
                mx = x(m.median)
            );
        }
        for (j, v) in arm.trials_mib_per_second.iter().enumerate() {
            // A small vertical spread keeps equal values apart.
            let jitter = ((j % 5) as f64 - 2.0) * 2.5;
            let _ = writeln!(
                s,
                r#"<circle cx="{:.1}" cy="{:.1}" r="4" fill="{colour}" fill-opacity="0.8" class="trial"><title>{} MB/s</title></circle>"#,
                x(*v),
                cy + jitter,
                rate(*v)
            );
        }
    }
    let _ = writeln!(
        s,
        r#"<text x="{:.1}" y="{:.1}" font-size="10" fill="gray">dots: trials; tick: median; band: 95% CI of the mean (an arrow: it runs past the axis, to the value shown)</text>"#,
        left,
        height - 6.0
    );
    s.push_str("</svg>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::axis::svg_texts;
    use crate::stats::{ratio_of_means, summarize_rates, verdict};

    fn arm(label: &str, value: &str, trials: &[f64]) -> ArmReport {
        ArmReport {
            label: label.into(),
            settings: vec![Setting {
                option: "-a".into(),
                value: value.into(),
            }],
            trials_mib_per_second: trials.to_vec(),
            summary: summarize_rates(trials),
        }
    }

    fn report(a: &[f64], b: &[f64]) -> ExperimentReport {
        let ratio = ratio_of_means(a, b).unwrap();
        ExperimentReport {
            device: "/dev/loop7".into(),
            measurement: "buffered",
            unit: "mib_per_second",
            order: "ABBA",
            trials_per_arm: 3,
            warmup: Some(Warmup {
                arm: 0,
                mib_per_second: 500.0,
            }),
            originals: vec![Setting {
                option: "-a".into(),
                value: "256".into(),
            }],
            arms: vec![arm("-a 8", "8", a), arm("-a 2048", "2048", b)],
            trials: Vec::new(),
            comparisons: vec![Comparison {
                arm: 1,
                baseline: 0,
                ratio,
                verdict: verdict(&ratio),
            }],
            winner: None,
            stopped: None,
            kept: None,
            restored: vec![Restored {
                option: "-a".into(),
                value: "256".into(),
                reads_back: Some("256".into()),
            }],
            restore_failed: None,
            stanza: None,
        }
    }

    #[test]
    fn the_text_has_the_arms_the_verdict_the_chart_and_the_restore() {
        let r = report(&[100.0, 110.0, 90.0], &[105.0, 95.0, 100.0]);
        let text = render_text(&r);
        let want = "
/dev/loop7:
 experiment: 2 arms, 3 trials each after 1 warm-up, by -t's buffered read in MB/s, in ABBA order
 before: -a 256
 arm 1 '-a 8'     median 100.0  mean 100.0 ± 10.0  min 90.0 … max 110.0  95% CI 75.2 … 124.8  (3 trials)
 arm 2 '-a 2048'  median 100.0  mean 100.0 ± 5.0  min 95.0 … max 105.0  95% CI 87.6 … 112.4  (3 trials)
";
        assert!(text.starts_with(want), "{text}");
        assert!(
            text.contains(" '-a 2048' / '-a 8' = 1.000 (95% CI "),
            "{text}"
        );
        assert!(
            text.contains("): no difference this run can detect; the noise is ±"),
            "{text}"
        );
        assert!(text.contains(" winner: none"), "{text}");
        assert!(
            text.contains(" hint: four times the trials (--trials 12) halve the intervals\n"),
            "{text}"
        );
        assert!(text.contains(
            " trials (MB/s):\n   '-a 8'    |o                        o                       o|\n   '-a 2048' |            o            o           o            |\n             90.0                                          110.0\n"
        ), "{text}");
        assert!(
            text.ends_with(" restored: -a 256 (reads back 256)\n"),
            "{text}"
        );
    }

    #[test]
    fn one_trial_is_one_trial_and_no_interval_goes_below_zero() {
        let r = report(&[100.0], &[20.0, 900.0]);
        let text = render_text(&r);
        assert!(
            text.contains(" 95% CI 100.0 … 100.0  (1 trial)\n"),
            "{text}"
        );
        // Two trials far apart: Student's interval would start near -3000 MB/s.
        assert!(text.contains(" 95% CI 0.0 … "), "{text}");
        assert!(!text.contains("CI -"), "{text}");
    }

    #[test]
    fn a_winner_is_named_with_its_least_gain() {
        let mut r = report(&[100.0, 101.0, 99.0], &[150.0, 151.0, 149.0]);
        r.winner = Some(1);
        r.kept = Some(1);
        r.restored.clear();
        r.stanza = Some(conf_stanza("/dev/loop7", &r.arms[1].settings));
        let text = render_text(&r);
        assert!(text.contains(": '-a 2048' is faster, by "), "{text}");
        assert!(text.contains(" winner: '-a 2048', faster than every other arm\n"));
        assert!(text.contains(
            " kept: '-a 2048' stays applied (--keep)\n to make it last, in /etc/hdparm.conf:\n/dev/loop7 {\n\tread_ahead_sect = 2048\n}\n"
        ), "{text}");
        assert!(!text.contains("restored"));
    }

    /// The stanza is read back by our own hdparm.conf reader (Debian's rules) into the options
    /// the arm set.
    #[test]
    fn the_stanza_reads_back_as_the_arm() {
        let settings: Vec<Setting> = [("-a", "2048"), ("-W", "0"), ("-B", "254"), ("-X", "udma5")]
            .iter()
            .map(|(o, v)| Setting {
                option: o.to_string(),
                value: v.to_string(),
            })
            .collect();
        let stanza = conf_stanza("/dev/sdz", &settings);
        let facts = crate::config::debian::Facts {
            on_battery: false,
            try_apm: false,
            identity: Default::default(),
        };
        let options =
            crate::config::debian::hdparm_options(&stanza, "/dev/sdz", &facts, &|_| None).unwrap();
        assert_eq!(options, "-a2048 -W0 -B254 -X69", "{stanza}");
        let q = conf_stanza(
            "/dev/sdz",
            &[Setting {
                option: "-Q".into(),
                value: "32".into(),
            }],
        );
        assert!(q.contains("# -Q 32: hdparm.conf has no key for the queue depth"));
    }

    #[test]
    fn the_svg_has_axes_units_labels_and_every_trial() {
        let r = report(&[100.0, 110.0, 90.0], &[105.0, 95.0, 100.0]);
        let svg = render_svg(&r);
        assert!(svg.starts_with("<svg xmlns=\"http://www.w3.org/2000/svg\""));
        assert!(svg.trim_end().ends_with("</svg>"));
        assert!(svg.contains(">read rate (MB/s)</text>"));
        assert!(svg.contains(">-a 8</text>") && svg.contains(">-a 2048</text>"));
        assert_eq!(svg.matches("class=\"trial\"").count(), 6);
        assert_eq!(svg.matches("class=\"median\"").count(), 2);
        // Round ticks: 85 … 115 in steps of 5.
        assert!(
            svg.contains(">85</text>") && svg.contains(">115</text>"),
            "{svg}"
        );
    }

    #[test]
    fn the_plot_s_ticks_are_even_and_a_clipped_band_is_marked() {
        // Trials 9.9 to 10.3 MB/s: the axis 9.6 to 10.6 by 0.2, every label with one decimal
        // (before: "9.6", "9.8", "10", "10.2"...).
        let r = report(&[10.0, 10.3, 9.9], &[10.1, 10.05, 10.2]);
        let t = svg_texts(&render_svg(&r));
        for want in ["9.6", "9.8", "10.0", "10.2", "10.4", "10.6"] {
            assert!(t.iter().any(|x| x == want), "{want} in {t:?}");
        }
        assert!(!t.iter().any(|x| x == "10"), "{t:?}");
        // Arm 1's interval (9.55 … 10.58) runs past the axis's low end; arm 2's does not.
        assert!(t.iter().any(|x| x.starts_with("← 9.")), "{t:?}");
        let marks = t.iter().filter(|x| x.contains('←') || x.contains('→'));
        assert_eq!(marks.count(), 1, "{t:?}");
    }
}
