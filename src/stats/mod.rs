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
//! What this module must not do: measure, or print. It takes numbers and returns numbers.

use serde::Serialize;

/// One set of trials.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub count: usize,
    pub median: f64,
    pub mean: f64,
    /// Sample standard deviation (n − 1); 0 for one trial.
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    /// The 95% confidence interval of the mean (Student's t); the mean itself for one trial.
    /// The low end is clamped at 0: the values are rates, never negative, and a wide interval
    /// around a small mean (a few noisy trials) would otherwise reach below zero.
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
        ci95_low: (mean - half).max(0.0),
        ci95_high: mean + half,
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
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Ratio {
    pub ratio: f64,
    pub ci95_low: f64,
    pub ci95_high: f64,
    /// Bootstrap resamples drawn.
    pub resamples: usize,
}

/// What a ratio lets one say.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
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
        // Two far-apart trials: mean 228.25, half-width ~3300; the low end stops at 0.
        let wide = summarize(&[100.5, 356.0]).unwrap();
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

    #[test]
    fn the_bootstrap_is_repeatable() {
        let a = [1.0, 2.0, 3.0, 4.0];
        let b = [2.0, 3.0, 4.0, 5.0];
        assert_eq!(ratio_of_means(&a, &b), ratio_of_means(&a, &b));
        assert!(ratio_of_means(&[], &b).is_none());
        assert!(ratio_of_means(&[0.0], &b).is_none());
    }
}
