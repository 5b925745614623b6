//! Summary statistics of repeated measurements, as pure functions (hyperfine's choices: the
//! mean with the *sample* standard deviation, min and max, and the median).
//!
//! What it must not do: measure. It takes numbers and returns numbers.

use serde::Serialize;

/// Mean, sample standard deviation (n − 1; 0 for a single value), min, max and median.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Summary {
    pub count: usize,
    pub mean: f64,
    pub stddev: f64,
    pub min: f64,
    pub max: f64,
    pub median: f64,
}

pub fn mean(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    Some(values.iter().sum::<f64>() / values.len() as f64)
}

/// The sample standard deviation (divides by n − 1). `None` for no values, 0 for one.
pub fn sample_stddev(values: &[f64]) -> Option<f64> {
    let m = mean(values)?;
    if values.len() < 2 {
        return Some(0.0);
    }
    let squares: f64 = values.iter().map(|v| (v - m) * (v - m)).sum();
    Some((squares / (values.len() - 1) as f64).sqrt())
}

/// The median: the middle value, or the mean of the two middle values.
pub fn median(values: &[f64]) -> Option<f64> {
    if values.is_empty() {
        return None;
    }
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    Some(if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    })
}

pub fn summarize(values: &[f64]) -> Option<Summary> {
    let min = values.iter().copied().min_by(f64::total_cmp)?;
    let max = values.iter().copied().max_by(f64::total_cmp)?;
    Some(Summary {
        count: values.len(),
        mean: mean(values)?,
        stddev: sample_stddev(values)?,
        min,
        max,
        median: median(values)?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_input_has_no_summary() {
        assert_eq!(summarize(&[]), None);
        assert_eq!(median(&[]), None);
    }

    #[test]
    fn single_value_has_zero_spread() {
        let s = summarize(&[5.0]).unwrap();
        assert_eq!(
            (s.mean, s.stddev, s.min, s.max, s.median),
            (5.0, 0.0, 5.0, 5.0, 5.0)
        );
    }

    #[test]
    fn sample_stddev_divides_by_n_minus_one() {
        // 2, 4, 4, 4, 5, 5, 7, 9: mean 5, sum of squares 32, sample variance 32/7.
        let v = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0];
        let s = summarize(&v).unwrap();
        assert_eq!(s.mean, 5.0);
        assert!((s.stddev - (32.0f64 / 7.0).sqrt()).abs() < 1e-12);
        assert_eq!((s.min, s.max, s.median, s.count), (2.0, 9.0, 4.5, 8));
    }

    #[test]
    fn median_of_odd_count_ignores_order() {
        assert_eq!(median(&[9.0, 1.0, 5.0]), Some(5.0));
    }
}
