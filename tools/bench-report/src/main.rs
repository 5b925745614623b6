//! bench-report: the analysis half of `bench/compare.sh`. It reads the runs the script
//! recorded (one line each: `case tool MiB/s bytes cpu_seconds round`), and prints per case
//! each tool's summary (mean ± σ, its 95% interval, median, min … max, CPU seconds per GiB),
//! the ratio ours / theirs with its 95% bootstrap interval, and the verdict of that interval
//! against the project's target for the case. It uses hdparm-rs's own statistics
//! (`hdparm::stats`), the ones `--experiment` reports with, so the benchmark's claims and the
//! tool's carry the same kind of uncertainty.
//!
//! Runs far from the rest of their tool's runs (outside Tukey's fences, 1.5 × IQR beyond the
//! quartiles) are flagged with their round, as hyperfine flags outliers: they are kept in the
//! statistics, and the flag says where to look.
//!
//! Must not: measure anything (compare.sh does).

use hdparm::stats::{ratio_of_means, summarize, Ratio, Summary};
use std::process::ExitCode;

/// One recorded run.
#[derive(Clone, Debug, PartialEq)]
struct Run {
    case: String,
    tool: String,
    mib_per_second: f64,
    bytes: u64,
    cpu_seconds: f64,
    round: u32,
}

fn parse(text: &str) -> Result<Vec<Run>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, line)| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let bad = || {
                format!(
                    "line {}: expected `case tool MiB/s bytes cpu round`: {line}",
                    i + 1
                )
            };
            if f.len() != 6 {
                return Err(bad());
            }
            Ok(Run {
                case: f[0].to_string(),
                tool: f[1].to_string(),
                mib_per_second: f[2].parse().map_err(|_| bad())?,
                bytes: f[3].parse().map_err(|_| bad())?,
                cpu_seconds: f[4].parse().map_err(|_| bad())?,
                round: f[5].parse().map_err(|_| bad())?,
            })
        })
        .collect()
}

/// What a case must show, judged by the interval of its ratio.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Target {
    /// The ratio within a band (`-T`, `-t`, `--direct`: 0.95–1.05 of hdparm).
    Within(f64, f64),
    /// The ratio at least this (`--bench` at QD32: 0.97 of fio).
    AtLeast(f64),
}

fn target(case: &str) -> Target {
    match case {
        "depth" => Target::AtLeast(0.97),
        _ => Target::Within(0.95, 1.05),
    }
}

fn case_name(case: &str) -> &str {
    match case {
        "T" => "-T (cached)",
        "t" => "-t (buffered)",
        "dt" => "--direct -t",
        "depth" => "--bench QD32 vs fio",
        other => other,
    }
}

/// The verdict of an interval against a target: met, missed, or not decidable by this run.
fn judge(r: &Ratio, t: Target) -> &'static str {
    match t {
        Target::Within(low, high) if r.ci95_low >= low && r.ci95_high <= high => "meets the target",
        Target::Within(low, high) if r.ci95_high < low || r.ci95_low > high => "misses the target",
        Target::AtLeast(min) if r.ci95_low >= min => "meets the target",
        Target::AtLeast(min) if r.ci95_high < min => "misses the target",
        _ => "undecided: the interval straddles the target; run more rounds",
    }
}

fn target_text(t: Target) -> String {
    match t {
        Target::Within(low, high) => format!("{low:.2}–{high:.2}"),
        Target::AtLeast(min) => format!("≥ {min:.2}"),
    }
}

/// The rounds whose value lies outside Tukey's fences of the set.
fn outliers(runs: &[&Run]) -> Vec<(u32, f64)> {
    if runs.len() < 4 {
        return Vec::new();
    }
    let mut values: Vec<f64> = runs.iter().map(|r| r.mib_per_second).collect();
    values.sort_by(f64::total_cmp);
    let quantile = |q: f64| {
        let pos = (values.len() - 1) as f64 * q;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
    };
    let (q1, q3) = (quantile(0.25), quantile(0.75));
    let iqr = q3 - q1;
    runs.iter()
        .filter(|r| r.mib_per_second < q1 - 1.5 * iqr || r.mib_per_second > q3 + 1.5 * iqr)
        .map(|r| (r.round, r.mib_per_second))
        .collect()
}

fn summary_line(name: &str, tool: &str, s: &Summary, cpu_per_gib: f64) -> String {
    format!(
        "{name:<20} {tool:<7} {:>3} {:>9.1} ± {:<7.1} [{:>8.1}, {:>8.1}] {:>9.1} {:>8.1} … {:<8.1} {:>9.4}",
        s.count, s.mean, s.stddev, s.ci95_low, s.ci95_high, s.median, s.min, s.max, cpu_per_gib
    )
}

fn report(runs: &[Run]) -> String {
    let mut out = String::new();
    out.push_str(&format!(
        "{:<20} {:<7} {:>3} {:>21} {:>20} {:>9} {:>19} {:>9}\n",
        "case",
        "tool",
        "n",
        "mean ± σ (MiB/s)",
        "95% CI of the mean",
        "median",
        "min … max",
        "CPU s/GiB"
    ));
    let mut verdicts = Vec::new();
    let mut cases: Vec<&str> = Vec::new();
    for r in runs {
        if !cases.contains(&r.case.as_str()) {
            cases.push(&r.case);
        }
    }
    for case in cases {
        let of = |ours: bool| -> Vec<&Run> {
            runs.iter()
                .filter(|r| r.case == case && (r.tool == "ours") == ours)
                .collect()
        };
        let (ours, theirs) = (of(true), of(false));
        let theirs_name = theirs.first().map_or("theirs", |r| r.tool.as_str());
        let rates = |v: &[&Run]| v.iter().map(|r| r.mib_per_second).collect::<Vec<f64>>();
        let cpu = |v: &[&Run]| {
            let gib = v.iter().map(|r| r.bytes as f64).sum::<f64>() / f64::from(1u32 << 30);
            v.iter().map(|r| r.cpu_seconds).sum::<f64>() / gib
        };
        for (tool, set) in [("ours", &ours), (theirs_name, &theirs)] {
            if let Some(s) = summarize(&rates(set)) {
                out.push_str(&summary_line(case_name(case), tool, &s, cpu(set)));
                out.push('\n');
            }
            for (round, value) in outliers(set) {
                out.push_str(&format!(
                    "{:<20} {tool:<7} outlier: round {round} at {value:.1} MiB/s (outside 1.5 × IQR)\n",
                    ""
                ));
            }
        }
        if let Some(r) = ratio_of_means(&rates(&theirs), &rates(&ours)) {
            let t = target(case);
            verdicts.push(format!(
                "{:<20} ours / {theirs_name}: {:.3} [{:.3}, {:.3}] (95% bootstrap, {} resamples); target {}: {}; CPU per GiB ours / {theirs_name}: {:.2}",
                case_name(case),
                r.ratio,
                r.ci95_low,
                r.ci95_high,
                r.resamples,
                target_text(t),
                judge(&r, t),
                cpu(&ours) / cpu(&theirs),
            ));
        }
    }
    out.push('\n');
    out.push_str(&verdicts.join("\n"));
    out.push('\n');
    out
}

fn main() -> ExitCode {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: bench-report RESULTS-FILE (the runs bench/compare.sh recorded)");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("bench-report: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match parse(&text) {
        Ok(runs) => {
            print!("{}", report(&runs));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-report: {path}: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn runs(case: &str, ours: &[f64], theirs: &[f64]) -> String {
        let mut text = String::new();
        for (i, (o, t)) in ours.iter().zip(theirs).enumerate() {
            text.push_str(&format!("{case} ours {o} {} 0.5 {}\n", 1u64 << 30, i + 1));
            text.push_str(&format!("{case} hdparm {t} {} 1.0 {}\n", 1u64 << 30, i + 1));
        }
        text
    }

    #[test]
    fn a_ratio_inside_the_band_meets_the_target() {
        let text = runs(
            "t",
            &[100.0, 101.0, 99.0, 100.0],
            &[100.0, 100.0, 101.0, 99.0],
        );
        let report = report(&parse(&text).unwrap());
        assert!(
            report.contains("-t (buffered)        ours / hdparm: 1.000 ["),
            "{report}"
        );
        assert!(
            report.contains("target 0.95–1.05: meets the target"),
            "{report}"
        );
        assert!(
            report.contains("CPU per GiB ours / hdparm: 0.50"),
            "{report}"
        );
    }

    #[test]
    fn a_wide_interval_is_undecided_and_a_clear_miss_is_a_miss() {
        let noisy = runs(
            "t",
            &[50.0, 150.0, 60.0, 140.0],
            &[100.0, 100.0, 100.0, 100.0],
        );
        assert!(report(&parse(&noisy).unwrap()).contains("undecided"));
        let slow = runs(
            "depth",
            &[80.0, 81.0, 79.0, 80.0],
            &[100.0, 101.0, 99.0, 100.0],
        );
        let report = report(&parse(&slow).unwrap());
        assert!(
            report.contains("target ≥ 0.97: misses the target"),
            "{report}"
        );
    }

    #[test]
    fn a_run_far_from_the_others_is_flagged_with_its_round() {
        let text = runs(
            "T",
            &[100.0, 101.0, 99.0, 100.0, 30.0],
            &[100.0, 100.0, 101.0, 99.0, 100.0],
        );
        let report = report(&parse(&text).unwrap());
        assert!(
            report.contains("outlier: round 5 at 30.0 MiB/s"),
            "{report}"
        );
    }

    #[test]
    fn a_malformed_line_names_its_number() {
        assert_eq!(
            parse("t ours 1 2 3 4\nt ours x 2 3 4\n").unwrap_err(),
            "line 2: expected `case tool MiB/s bytes cpu round`: t ours x 2 3 4"
        );
    }
}
