//! The analysis of `bench/compare.sh`'s runs: per case, each tool's own summary (the unpaired
//! figures: mean ± σ, its 95% interval, median, min … max, CPU per unit of work, outlier
//! rounds flagged), then the paired figures: the ratio ours / theirs of each round, their
//! geometric mean with 95% intervals (t on the log ratios, and a bootstrap over rounds), the
//! unpaired ratio of means with its bootstrap interval beside it, and the verdict of the t
//! interval against the case's target (`cases.rs`). Where the interval straddles the target,
//! the verdict gives its half-width: the smallest difference the run could resolve.
//!
//! The runs file has one line per run: `case tool round value cpu_seconds work` (value in the
//! case's unit; work in bytes, reads or runs, what the CPU time is charged per).
//!
//! Must not: measure anything (compare.sh does), or print (main does).

use crate::cases::{case, target_text, Case};
use hdparm::stats::{judge, paired_ratio, ratio_of_means, summarize, Judgement, PairedRatio};

/// One recorded run.
#[derive(Clone, Debug, PartialEq)]
pub struct Run {
    pub case: String,
    pub tool: String,
    pub round: u32,
    pub value: f64,
    pub cpu_seconds: f64,
    pub work: f64,
}

pub const FORMAT: &str = "case tool round value cpu_seconds work";

pub fn parse(text: &str) -> Result<Vec<Run>, String> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty() && !l.starts_with('#'))
        .map(|(i, line)| {
            let f: Vec<&str> = line.split_whitespace().collect();
            let bad = || format!("line {}: expected `{FORMAT}`: {line}", i + 1);
            if f.len() != 6 {
                return Err(bad());
            }
            let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite());
            Ok(Run {
                case: f[0].to_string(),
                tool: f[1].to_string(),
                round: f[2].parse().map_err(|_| bad())?,
                value: number(f[3]).ok_or_else(bad)?,
                cpu_seconds: number(f[4]).ok_or_else(bad)?,
                work: number(f[5]).ok_or_else(bad)?,
            })
        })
        .collect()
}

/// The verdict's words.
pub fn verdict_text(j: Judgement) -> String {
    match j {
        Judgement::Meets => "meets".to_string(),
        Judgement::Misses => "MISSES".to_string(),
        Judgement::Straddles { half_width } => format!(
            "straddles the target: ± {half_width:.3} is the smallest difference this run resolves"
        ),
    }
}

/// CPU seconds per unit of work of a set of runs (all of their CPU over all of their work).
fn cpu_per_work(runs: &[&Run]) -> Option<f64> {
    let work: f64 = runs.iter().map(|r| r.work).sum();
    (work > 0.0).then(|| runs.iter().map(|r| r.cpu_seconds).sum::<f64>() / work)
}

/// The rounds whose value lies outside Tukey's fences (1.5 × IQR beyond the quartiles).
fn outliers(runs: &[&Run]) -> Vec<(u32, f64)> {
    if runs.len() < 4 {
        return Vec::new();
    }
    let mut values: Vec<f64> = runs.iter().map(|r| r.value).collect();
    values.sort_by(f64::total_cmp);
    let quantile = |q: f64| {
        let pos = (values.len() - 1) as f64 * q;
        let (lo, hi) = (pos.floor() as usize, pos.ceil() as usize);
        values[lo] + (values[hi] - values[lo]) * (pos - lo as f64)
    };
    let (q1, q3) = (quantile(0.25), quantile(0.75));
    let iqr = q3 - q1;
    runs.iter()
        .filter(|r| r.value < q1 - 1.5 * iqr || r.value > q3 + 1.5 * iqr)
        .map(|r| (r.round, r.value))
        .collect()
}

/// The rounds where both tools ran, as (round, ours, theirs).
fn pairs<'a>(ours: &[&'a Run], theirs: &[&'a Run]) -> Vec<(u32, &'a Run, &'a Run)> {
    ours.iter()
        .filter_map(|o| {
            theirs
                .iter()
                .find(|t| t.round == o.round)
                .map(|t| (o.round, *o, *t))
        })
        .collect()
}

fn interval(p: &PairedRatio) -> String {
    format!(
        "{:.3} [{:.3}, {:.3}] (t), [{:.3}, {:.3}] (bootstrap)",
        p.geometric_mean, p.t_low, p.t_high, p.bootstrap_low, p.bootstrap_high
    )
}

/// The whole report.
pub fn report(runs: &[Run]) -> String {
    let mut unpaired = String::new();
    let mut paired = String::new();
    unpaired.push_str(&format!(
        "{:<31} {:<7} {:>3} {:>24} {:>22} {:>10} {:>21} {:>12}\n",
        "case", "tool", "n", "mean ± σ", "95% CI of the mean", "median", "min … max", "CPU"
    ));
    let mut keys: Vec<&str> = Vec::new();
    for r in runs {
        if !keys.contains(&r.case.as_str()) {
            keys.push(&r.case);
        }
    }
    for key in keys {
        let c = case(key);
        let name = if c.key == "?" { key } else { c.name };
        let of = |ours: bool| -> Vec<&Run> {
            runs.iter()
                .filter(|r| r.case == key && (r.tool == "ours") == ours)
                .collect()
        };
        let (ours, theirs) = (of(true), of(false));
        let theirs_name = theirs.first().map_or("theirs", |r| r.tool.as_str());
        for (tool, set) in [("ours", &ours), (theirs_name, &theirs)] {
            unpaired.push_str(&tool_line(&c, name, tool, set));
        }
        paired.push_str(&case_lines(&c, name, theirs_name, &ours, &theirs));
    }
    format!(
        "Each tool on its own (unpaired):\n{unpaired}\nPaired, round by round (ours / theirs; the verdict is the t interval's):\n{paired}"
    )
}

fn tool_line(c: &Case, name: &str, tool: &str, set: &[&Run]) -> String {
    let values: Vec<f64> = set.iter().map(|r| c.metric.shown(r.value)).collect();
    let Some(s) = summarize(&values) else {
        return String::new();
    };
    let cpu = match (c.metric.cpu_unit(), cpu_per_work(set)) {
        (Some((unit, scale)), Some(per)) => format!("{:.4} {unit}", per * scale),
        _ => String::new(),
    };
    let unit = c.metric.unit();
    let mut line = format!(
        "{name:<31} {tool:<7} {:>3} {:>12.2} ± {:<9.2}  [{:>9.2}, {:>9.2}] {:>10.2} {:>9.2} … {:<9.2} {unit:<6} {cpu}\n",
        s.count, s.mean, s.stddev, s.ci95_low, s.ci95_high, s.median, s.min, s.max
    );
    for (round, value) in outliers(set) {
        line.push_str(&format!(
            "{:<31} {tool:<7} outlier: round {round} at {:.2} {unit} (outside 1.5 × IQR)\n",
            "",
            c.metric.shown(value)
        ));
    }
    line
}

fn case_lines(c: &Case, name: &str, theirs_name: &str, ours: &[&Run], theirs: &[&Run]) -> String {
    let rounds = pairs(ours, theirs);
    let ratios: Vec<f64> = rounds.iter().map(|(_, o, t)| o.value / t.value).collect();
    let Some(p) = paired_ratio(&ratios) else {
        return format!("{name:<31} no complete round (both tools' runs, a positive figure)\n");
    };
    let mut out = format!(
        "{name:<31} ours / {theirs_name}: {} over {} rounds; target {}: {}\n",
        interval(&p),
        p.rounds,
        target_text(c.target),
        verdict_text(judge(p.t_low, p.t_high, c.target)),
    );
    let each: Vec<String> = ratios.iter().map(|r| format!("{r:.3}")).collect();
    out.push_str(&format!("{:<31}   rounds: {}\n", "", each.join(" ")));
    let values = |set: &[&Run]| set.iter().map(|r| r.value).collect::<Vec<f64>>();
    if let Some(u) = ratio_of_means(&values(theirs), &values(ours)) {
        out.push_str(&format!(
            "{:<31}   unpaired ratio of means: {:.3} [{:.3}, {:.3}] (bootstrap)\n",
            "", u.ratio, u.ci95_low, u.ci95_high
        ));
    }
    let cpu_ratios: Vec<f64> = rounds
        .iter()
        .filter_map(|(_, o, t)| Some(cpu_per_work(&[o])? / cpu_per_work(&[t])?))
        .collect();
    if let (Some((unit, _)), Some(cp)) = (c.metric.cpu_unit(), paired_ratio(&cpu_ratios)) {
        let verdict = c.cpu_target.map_or(String::new(), |t| {
            format!(
                "; target {}: {}",
                target_text(t),
                verdict_text(judge(cp.t_low, cp.t_high, t))
            )
        });
        out.push_str(&format!(
            "{:<31}   {unit} ours / {theirs_name}: {}{verdict}\n",
            "",
            interval(&cp)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs of `case`, ours and theirs in each round, with CPU seconds `cpu` for each of ours
    /// and 1.0 for theirs, over 1 GiB (or one unit) of work.
    fn runs(case: &str, ours: &[f64], theirs: &[f64], cpu: f64) -> String {
        let mut text = String::new();
        for (i, (o, t)) in ours.iter().zip(theirs).enumerate() {
            text.push_str(&format!("{case} ours {} {o} {cpu} 1073741824\n", i + 1));
            text.push_str(&format!("{case} hdparm {} {t} 1.0 1073741824\n", i + 1));
        }
        text
    }

    fn report_of(text: &str) -> String {
        report(&parse(text).unwrap())
    }

    #[test]
    fn a_ratio_inside_the_band_meets_its_target() {
        let r = report_of(&runs(
            "t",
            &[100.0, 101.0, 99.0, 100.0],
            &[100.0, 100.0, 101.0, 99.0],
            0.5,
        ));
        assert!(
            r.contains("-t (buffered) vs hdparm         ours / hdparm: 1.000 ["),
            "{r}"
        );
        assert!(
            r.contains("over 4 rounds; target within 0.95–1.05: meets"),
            "{r}"
        );
        assert!(r.contains("rounds: 1.000 1.010 0.980 1.010"), "{r}");
        assert!(
            r.contains("CPU s/GiB ours / hdparm: 0.500 [0.500, 0.500]"),
            "{r}"
        );
        assert!(r.contains("unpaired ratio of means: 1.000"), "{r}");
    }

    /// The paired interval of these rounds, from scipy 1.17: the log ratios of
    /// [0.5, 1.5, 0.6, 1.4] have `exp(t.interval(0.95, 3, mean, sem))` = [0.36122, 2.19738]:
    /// straddling the band, with a half-width of 0.918.
    #[test]
    fn a_wide_interval_gives_its_half_width_and_a_clear_miss_is_a_miss() {
        let r = report_of(&runs(
            "t",
            &[50.0, 150.0, 60.0, 140.0],
            &[100.0, 100.0, 100.0, 100.0],
            1.0,
        ));
        assert!(r.contains("[0.361, 2.197] (t)"), "{r}");
        assert!(
            r.contains(
                "straddles the target: ± 0.918 is the smallest difference this run resolves"
            ),
            "{r}"
        );
        let r = report_of(&runs(
            "seq",
            &[80.0, 81.0, 79.0, 80.0],
            &[100.0, 101.0, 99.0, 100.0],
            1.0,
        ));
        assert!(r.contains("target at least 0.97: MISSES"), "{r}");
    }

    #[test]
    fn start_up_cases_are_times_judged_no_slower_and_their_cpu_too() {
        let mut text = String::new();
        for round in 1..=4 {
            text.push_str(&format!("V ours {round} 0.0010 0.0008 1\n"));
            text.push_str(&format!("V hdparm {round} 0.0012 0.0011 1\n"));
        }
        let r = report_of(&text);
        assert!(r.contains("start-up -V vs hdparm"), "{r}");
        assert!(
            r.contains("ours / hdparm: 0.833 [0.833, 0.833] (t), [0.833, 0.833] (bootstrap) over 4 rounds; target no slower than: meets"),
            "{r}"
        );
        assert!(r.contains("CPU ms/run ours / hdparm: 0.727"), "{r}");
        assert!(
            r.contains("1.20 … 1.20") && r.contains(" ms "),
            "wall time shown in ms: {r}"
        );
    }

    #[test]
    fn a_run_far_from_the_others_is_flagged_and_a_lone_tool_has_no_ratio() {
        let r = report_of(&runs(
            "T",
            &[100.0, 101.0, 99.0, 100.0, 30.0],
            &[100.0, 100.0, 101.0, 99.0, 100.0],
            1.0,
        ));
        assert!(r.contains("outlier: round 5 at 30.00 MiB/s"), "{r}");
        let r = report_of("seq ours 1 100 1 1\n");
        assert!(r.contains("no complete round"), "{r}");
    }

    #[test]
    fn a_malformed_line_names_its_number_and_comments_are_skipped() {
        assert_eq!(
            parse("# runs\nt ours 1 2 3 4\nt ours x 2 3 4\n").unwrap_err(),
            "line 3: expected `case tool round value cpu_seconds work`: t ours x 2 3 4"
        );
        assert!(parse("t ours 1 inf 3 4\n").is_err());
    }
}
