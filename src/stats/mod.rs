//! The statistics behind every comparison hdparm-rs makes (`--experiment`, `--bench`, the
//! benchmark script): a summary of one set of trials with a 95% confidence interval for its
//! mean, and the ratio between two sets with a bootstrap interval and the verdict it allows.
//!
//! Why a bootstrap for the ratio, and not a paired test: the arms' trials are interleaved in a
//! balanced order, so neighbouring trials see the same machine, but their pairing is by
//! position only and a paired t-test would assume normal differences, which throughput on a
//! busy machine is not (it is often bimodal). The percentile bootstrap of the ratio of means
//! assumes nothing about the shape and gives the interval of the quantity we report. It is
//! resampled with a fixed seed, so the same trials always give the same interval.
//!
//! The benchmark script's comparisons are paired instead ([`paired_ratio`]): each round runs
//! the two tools back to back (in alternating order), so a round's two figures share the
//! machine's state, and the ratio of each round is the observation. Their geometric mean is
//! the figure reported, with two 95% intervals over the rounds: Student's t on the log ratios
//! (the ratios of a loaded machine are skewed; their logs much less) and a percentile
//! bootstrap of the geometric mean, which assumes no shape. [`judge`] holds an interval
//! against a target ([`Target`]), and where the interval straddles it, says how wide it is:
//! its half-width is the smallest difference the run could have resolved.
//!
//! What this module must not do: measure, or print. It takes numbers and returns numbers.

use serde::Serialize;

/// A set of trials (src/stats): median, mean, sample standard deviation, min, max and the 95%
/// interval of the mean.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for one trial.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// The 95% confidence interval of the mean (Student's t); the mean itself for one trial.
    /// [`summarize_rates`] clamps its low end at 0.
    pub ci95_low: f64,
    pub ci95_high: f64,
}

/// Summarises trials; None for none.
pub fn summarize(values: &[f64]) -> Option<Summary> {
    let count = values.len();
    if count == 0 {
        return None;
    }
    let mean = values.iter().sum::<f64>() / count as f64;
    let stddev = if count > 1 {
        let squares: f64 = values.iter().map(|v| (v - mean) * (v - mean)).sum();
        (squares / (count - 1) as f64).sqrt()
    } else {
        0.0
    };
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = count / 2;
    let median = if count % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    };
    let half = if count > 1 {
        t_975(count - 1) * stddev / (count as f64).sqrt()
    } else {
        0.0
    };
    Some(Summary {
        count,
        median,
        mean,
        stddev,
        min: sorted[0],
        max: sorted[count - 1],
        ci95_low: mean - half,
        ci95_high: mean + half,
    })
}

/// [`summarize`] for rates (MB/s), which are never negative: the interval's low end stops at
/// 0, where a wide interval around a small mean (a few noisy trials) would reach below it.
/// Not for values that may be negative, such as the log ratios of a paired comparison.
pub fn summarize_rates(values: &[f64]) -> Option<Summary> {
    summarize(values).map(|s| Summary {
        ci95_low: s.ci95_low.max(0.0),
        ..s
    })
}

/// The 0.975 quantile of Student's t with `df` degrees of freedom (two-sided 95%): exact
/// table values to df 30, then the Cornish-Fisher expansion around the normal quantile, which
/// is within 1e-4 of the exact value there.
pub fn t_975(df: usize) -> f64 {
    const TABLE: [f64; 30] = [
        12.706_204_736,
        4.302_652_730,
        3.182_446_305,
        2.776_445_105,
        2.570_581_836,
        2.446_911_851,
        2.364_624_252,
        2.306_004_135,
        2.262_157_163,
        2.228_138_852,
        2.200_985_160,
        2.178_812_830,
        2.160_368_656,
        2.144_786_688,
        2.131_449_546,
        2.119_905_299,
        2.109_815_578,
        2.100_922_040,
        2.093_024_054,
        2.085_963_447,
        2.079_613_845,
        2.073_873_068,
        2.068_657_610,
        2.063_898_562,
        2.059_538_553,
        2.055_529_439,
        2.051_830_516,
        2.048_407_142,
        2.045_229_642,
        2.042_272_456,
    ];
    if df == 0 {
        return f64::INFINITY;
    }
    if df <= TABLE.len() {
        return TABLE[df - 1];
    }
    let z: f64 = 1.959_963_985;
    let n = df as f64;
    let z3 = z.powi(3);
    let z5 = z.powi(5);
    let z7 = z.powi(7);
    z + (z3 + z) / (4.0 * n)
        + (5.0 * z5 + 16.0 * z3 + 3.0 * z) / (96.0 * n * n)
        + (3.0 * z7 + 19.0 * z5 + 17.0 * z3 - 15.0 * z) / (384.0 * n * n * n)
}

/// The ratio of two sets' means (`b / a`) with its 95% percentile-bootstrap interval.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
pub struct Ratio {
    pub ratio: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Bootstrap resamples drawn.
    pub resamples: usize,
}

/// What a ratio lets one say.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case", tag = "verdict")]
pub enum Verdict {
    /// The interval lies above 1: the second set is larger, by at least `ci95_low`.
    SecondLarger,
    /// The interval lies below 1: the second set is smaller.
    SecondSmaller,
    /// The interval holds 1: no difference this run can detect; the noise is ± `noise_percent`.
    NoDifference { noise_percent: f64 },
}

/// The number of bootstrap resamples. The percentiles of a few lumpy (bimodal) trials move by
/// 3% between runs of 10 000 resamples; 100 000 keep them within about 1%, in a few
/// milliseconds for the trial counts an experiment has.
pub const RESAMPLES: usize = 100_000;

/// `mean(b) / mean(a)` with its bootstrap interval; None when a set is empty or `a`'s mean is
/// not positive.
pub fn ratio_of_means(a: &[f64], b: &[f64]) -> Option<Ratio> {
    let mean = |v: &[f64]| v.iter().sum::<f64>() / v.len() as f64;
    if a.is_empty() || b.is_empty() || mean(a) <= 0.0 {
        return None;
    }
    let ratio = mean(b) / mean(a);
    let mut rng = XorShift(0x2545_f491_4f6c_dd1d);
    let mut ratios: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let ma = resampled_mean(a, &mut rng);
            let mb = resampled_mean(b, &mut rng);
            (ma > 0.0).then(|| mb / ma)
        })
        .collect();
    ratios.sort_by(f64::total_cmp);
    let at = |q: f64| {
        let index = ((ratios.len() - 1) as f64 * q).round() as usize;
        ratios[index.min(ratios.len() - 1)]
    };
    Some(Ratio {
        ratio,
        ci95_low: at(0.025),
        ci95_high: at(0.975),
        resamples: ratios.len(),
    })
}

/// The verdict a ratio allows: a winner only when its interval excludes 1.
pub fn verdict(r: &Ratio) -> Verdict {
    if r.ci95_low > 1.0 {
        Verdict::SecondLarger
    } else if r.ci95_high < 1.0 {
        Verdict::SecondSmaller
    } else {
        Verdict::NoDifference {
            noise_percent: (r.ci95_high - r.ci95_low) / 2.0 * 100.0,
        }
    }
}

/// The paired comparison of two tools over rounds: the geometric mean of the rounds' ratios
/// (ours / theirs) with its 95% intervals.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct PairedRatio {
    pub rounds: usize,
    pub geometric_mean: f64,
    /// The sample standard deviation of the log ratios (0 for one round).
    pub log_stddev: f64,
    /// exp of Student's t interval on the mean of the log ratios; the mean itself for one
    /// round (nothing can be said of its spread).
    pub t_low: f64,
    pub t_high: f64,
    /// The percentile bootstrap (over rounds) of the geometric mean.
    pub bootstrap_low: f64,
    pub bootstrap_high: f64,
    pub resamples: usize,
}

/// The paired comparison of per-round ratios; None when there is none or one is not a
/// positive finite number (a ratio of 0 has no logarithm: a round that read nothing is a
/// failed round, not a slow one).
pub fn paired_ratio(ratios: &[f64]) -> Option<PairedRatio> {
    if ratios.is_empty() || ratios.iter().any(|r| !(r.is_finite() && *r > 0.0)) {
        return None;
    }
    let logs: Vec<f64> = ratios.iter().map(|r| r.ln()).collect();
    let summary = summarize(&logs)?;
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut means: Vec<f64> = (0..RESAMPLES)
        .map(|_| resampled_mean(&logs, &mut rng))
        .collect();
    means.sort_by(f64::total_cmp);
    let at = |q: f64| means[((means.len() - 1) as f64 * q).round() as usize].exp();
    Some(PairedRatio {
        rounds: ratios.len(),
        geometric_mean: summary.mean.exp(),
        log_stddev: summary.stddev,
        t_low: summary.ci95_low.exp(),
        t_high: summary.ci95_high.exp(),
        bootstrap_low: at(0.025),
        bootstrap_high: at(0.975),
        resamples: means.len(),
    })
}

/// What a case must show, as a condition on the 95% interval of its ratio (ours / theirs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum Target {
    /// "within low–high": the whole interval inside the band.
    Within { low: f64, high: f64 },
    /// "at least X" (a rate): the interval's lower end at or above X.
    AtLeast { min: f64 },
    /// "no slower than" (a time, X = 1 for "no slower than theirs"): the interval's upper end
    /// at or below X.
    AtMost { max: f64 },
}

/// What an interval says of a target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "snake_case", tag = "judgement")]
pub enum Judgement {
    Meets,
    /// The whole interval is on the wrong side.
    Misses,
    /// The interval straddles the target; `half_width` (on the ratio's scale) is the
    /// smallest difference this run could have resolved.
    Straddles {
        half_width: f64,
    },
}

/// Holds the interval `[low, high]` against `target`.
pub fn judge(low: f64, high: f64, target: Target) -> Judgement {
    let (meets, misses) = match target {
        Target::Within { low: a, high: b } => (low >= a && high <= b, high < a || low > b),
        Target::AtLeast { min } => (low >= min, high < min),
        Target::AtMost { max } => (high <= max, low > max),
    };
    if meets {
        Judgement::Meets
    } else if misses {
        Judgement::Misses
    } else {
        Judgement::Straddles {
            half_width: (high - low) / 2.0,
        }
    }
}

fn resampled_mean(values: &[f64], rng: &mut XorShift) -> f64 {
    let n = values.len();
    let sum: f64 = (0..n)
        .map(|_| values[(rng.next() % n as u64) as usize])
        .sum();
    sum / n as f64
}

/// A small deterministic generator: the same trials give the same interval on every run.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: f64, b: f64, tolerance: f64) -> bool {
        (a - b).abs() <= tolerance
    }

    /// Reference values from scipy 1.x: `scipy.stats.t.ppf(0.975, df)`.
    #[test]
    fn t_quantiles_match_scipy() {
        for (df, want) in [
            (1, 12.706204736174698),
            (4, 2.7764451051977934),
            (9, 2.262157162798205),
            (30, 2.0422724563012373),
            (31, 2.0395134463964077),
            (40, 2.0210753903062737),
            (60, 2.000297821058262),
            (120, 1.979930405052777),
            (1000, 1.9623390808264078),
        ] {
            assert!(
                close(t_975(df), want, 1e-4),
                "df {df}: {} vs {want}",
                t_975(df)
            );
        }
    }

    /// Reference: `scipy.stats.t.interval(0.95, n-1, loc=mean, scale=sem)` for these trials.
    #[test]
    fn the_mean_interval_matches_scipy() {
        let trials = [452.0, 910.0, 880.0, 470.0, 905.0, 899.0, 461.0, 887.0];
        let s = summarize(&trials).unwrap();
        assert!(close(s.mean, 733.0, 1e-9));
        assert!(close(s.median, 883.5, 1e-9));
        assert!(close(s.stddev, 225.48614148102317, 1e-6));
        assert!(close(s.ci95_low, 544.4888681843075, 1e-3), "{}", s.ci95_low);
        assert!(
            close(s.ci95_high, 921.5111318156925, 1e-3),
            "{}",
            s.ci95_high
        );
        let one = summarize(&[5.0]).unwrap();
        assert_eq!((one.stddev, one.ci95_low, one.ci95_high), (0.0, 5.0, 5.0));
        // Two far-apart trials: mean 228.25, half-width ~3300; a rate's low end stops at 0,
        // while the plain summary keeps the negative end that log ratios need.
        assert!(summarize(&[100.5, 356.0]).unwrap().ci95_low < -1000.0);
        let wide = summarize_rates(&[100.5, 356.0]).unwrap();
        assert_eq!(wide.ci95_low, 0.0);
        assert!(wide.ci95_high > 1000.0, "{wide:?}");
        assert!(summarize(&[]).is_none());
    }

    #[test]
    fn a_clear_difference_has_a_winner_and_noise_has_none() {
        let slow = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0];
        let fast = [120.0, 118.0, 122.0, 121.0, 119.0, 120.0];
        let r = ratio_of_means(&slow, &fast).unwrap();
        assert!(close(r.ratio, 1.2, 1e-9));
        assert!(r.ci95_low > 1.15 && r.ci95_high < 1.25, "{r:?}");
        assert_eq!(verdict(&r), Verdict::SecondLarger);
        let r = ratio_of_means(&fast, &slow).unwrap();
        assert_eq!(verdict(&r), Verdict::SecondSmaller);
        // Bimodal noise, the same in both: no winner, and the noise is reported.
        let a = [450.0, 900.0, 460.0, 880.0, 455.0, 910.0];
        let b = [905.0, 452.0, 890.0, 470.0, 899.0, 461.0];
        let r = ratio_of_means(&a, &b).unwrap();
        match verdict(&r) {
            Verdict::NoDifference { noise_percent } => {
                assert!(noise_percent > 10.0, "{noise_percent}")
            }
            other => panic!("{other:?} for {r:?}"),
        }
    }

    /// Reference: `scipy.stats.bootstrap((a, b), mean(b)/mean(a), method='percentile',
    /// paired=False, n_resamples=200000)`, and for the bimodal set numpy's percentiles of a
    /// million resamples (scipy's own 10 000-resample bounds spread over 1.43..1.48 there).
    /// Different generators: the bounds agree to about one percent of the ratio.
    #[test]
    fn the_bootstrap_interval_matches_scipy() {
        let slow = [100.0, 102.0, 98.0, 101.0, 99.0, 100.0];
        let fast = [120.0, 118.0, 122.0, 121.0, 119.0, 120.0];
        let r = ratio_of_means(&slow, &fast).unwrap();
        assert!(close(r.ci95_low, 1.1840796019900497, 0.006), "{r:?}");
        assert!(close(r.ci95_high, 1.2162162162162162, 0.006), "{r:?}");
        let a = [450.0, 900.0, 460.0, 880.0, 455.0, 910.0];
        let b = [905.0, 452.0, 890.0, 470.0, 899.0, 461.0];
        let r = ratio_of_means(&a, &b).unwrap();
        assert!(close(r.ci95_low, 0.70278087, 0.012), "{r:?}");
        assert!(close(r.ci95_high, 1.43942766, 0.015), "{r:?}");
    }

    /// Reference values from scipy 1.16 for the log ratios `l = log(r)`:
    /// `exp(scipy.stats.t.interval(0.95, n-1, loc=l.mean(), scale=scipy.stats.sem(l)))`,
    /// `scipy.stats.gmean(r)`, and `scipy.stats.bootstrap((r,), scipy.stats.gmean,
    /// method='percentile', n_resamples=200000)` (a different generator: its bounds and ours
    /// agree to a few thousandths).
    #[test]
    fn the_paired_ratio_matches_scipy() {
        const GMEAN: f64 = 0.9972750112791822;
        const LOG_SD: f64 = 0.05807404133532973;
        const T_LOW: f64 = 0.9500127990242694;
        const T_HIGH: f64 = 1.0468884726009733;
        const BOOT_LOW: f64 = 0.9607665278324207;
        const BOOT_HIGH: f64 = 1.0355404281084013;
        const SKEW_GMEAN: f64 = 0.9501431976496325;
        const SKEW_T_LOW: f64 = 0.8462171830718387;
        const SKEW_T_HIGH: f64 = 1.0668326218131507;
        const SKEW_BOOT_LOW: f64 = 0.8553258355901356;
        const SKEW_BOOT_HIGH: f64 = 1.0049676595947288;
        let r = [0.91, 1.02, 0.97, 1.10, 0.95, 1.01, 0.99, 1.04];
        let p = paired_ratio(&r).unwrap();
        assert_eq!(p.rounds, 8);
        assert!(close(p.geometric_mean, GMEAN, 1e-9), "{p:?}");
        assert!(close(p.log_stddev, LOG_SD, 1e-9), "{p:?}");
        assert!(close(p.t_low, T_LOW, 2e-4), "{p:?}");
        assert!(close(p.t_high, T_HIGH, 2e-4), "{p:?}");
        assert!(close(p.bootstrap_low, BOOT_LOW, 0.004), "{p:?}");
        assert!(close(p.bootstrap_high, BOOT_HIGH, 0.004), "{p:?}");
        // A skewed set (one slow round of ten, as a loaded machine gives).
        let skewed = [1.0, 1.01, 0.99, 1.0, 1.02, 0.98, 1.0, 1.01, 0.99, 0.6];
        let p = paired_ratio(&skewed).unwrap();
        assert!(close(p.geometric_mean, SKEW_GMEAN, 1e-9), "{p:?}");
        assert!(close(p.t_low, SKEW_T_LOW, 2e-4), "{p:?}");
        assert!(close(p.t_high, SKEW_T_HIGH, 2e-4), "{p:?}");
        assert!(close(p.bootstrap_low, SKEW_BOOT_LOW, 0.006), "{p:?}");
        assert!(close(p.bootstrap_high, SKEW_BOOT_HIGH, 0.004), "{p:?}");
    }

    #[test]
    fn a_paired_ratio_needs_positive_ratios_and_one_round_has_no_spread() {
        assert!(paired_ratio(&[]).is_none());
        assert!(paired_ratio(&[1.0, 0.0]).is_none());
        assert!(paired_ratio(&[1.0, f64::NAN]).is_none());
        let one = paired_ratio(&[1.25]).unwrap();
        assert!(close(one.geometric_mean, 1.25, 1e-12));
        assert!(close(one.t_low, 1.25, 1e-12) && close(one.t_high, 1.25, 1e-12));
        assert_eq!(paired_ratio(&[0.9, 1.1]), paired_ratio(&[0.9, 1.1]));
    }

    #[test]
    fn judgements_follow_each_targets_direction() {
        let band = Target::Within {
            low: 0.95,
            high: 1.05,
        };
        assert_eq!(judge(0.97, 1.03, band), Judgement::Meets);
        assert_eq!(judge(0.95, 1.05, band), Judgement::Meets, "inclusive");
        assert_eq!(judge(1.06, 1.10, band), Judgement::Misses);
        assert_eq!(judge(0.80, 0.94, band), Judgement::Misses);
        assert!(matches!(
            judge(0.90, 1.00, band),
            Judgement::Straddles { half_width } if close(half_width, 0.05, 1e-12)
        ));
        let at_least = Target::AtLeast { min: 0.97 };
        assert_eq!(judge(0.97, 1.20, at_least), Judgement::Meets);
        assert_eq!(judge(0.80, 0.96, at_least), Judgement::Misses);
        assert!(matches!(
            judge(0.90, 1.00, at_least),
            Judgement::Straddles { half_width } if close(half_width, 0.05, 1e-12)
        ));
        let no_slower = Target::AtMost { max: 1.0 };
        assert_eq!(judge(0.5, 1.0, no_slower), Judgement::Meets);
        assert_eq!(judge(1.01, 1.3, no_slower), Judgement::Misses);
        assert!(matches!(
            judge(0.9, 1.2, no_slower),
            Judgement::Straddles { half_width } if close(half_width, 0.15, 1e-12)
        ));
    }

    #[test]
    fn the_bootstrap_is_repeatable() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 3.0, 4.0, 5.0];
        assert_eq!(ratio_of_means(&a, &b), ratio_of_means(&a, &b));
        assert!(ratio_of_means(&[], &b).is_none());
        assert!(ratio_of_means(&[0.0], &b).is_none());
    }
}
