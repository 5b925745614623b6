//! Latency of single reads, kept as a log-linear histogram so that its memory stays the same
//! however many reads a run makes (a few million at depth 1 on a fast device): 32 buckets per
//! power of two of nanoseconds, so a bucket spans at most 1/32 of its lower bound. Each bucket
//! also keeps the sum of its samples, and a percentile is read as the mean of its bucket's
//! samples: exact when they are all alike, and within 1/32 of the exact sample always. fio
//! keeps its latencies the same way (64 buckets per power of two, read at their middle).
//!
//! Percentiles are nearest-rank (the smallest sample with at least p% of the samples at or
//! below it, numpy's `inverted_cdf`), as fio reports them.
//!
//! What it must not do: measure. Engines record the durations they time; this only counts.

use std::time::Duration;

/// log2 of the buckets per power of two.
const SUB_BITS: u32 = 5;
const SUB: u64 = 1 << SUB_BITS;
/// Buckets for every u64 nanosecond value: `SUB` exact ones below `SUB`, then `SUB` per
/// power of two up to 2^63.
const BUCKETS: usize = ((64 - SUB_BITS as usize) + 1) * SUB as usize;

/// Counts of read latencies.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LatencyHistogram {
    counts: Vec<u64>,
    sums_ns: Vec<u64>,
    total: u64,
    min_ns: u64,
    max_ns: u64,
}

impl Default for LatencyHistogram {
    fn default() -> Self {
        LatencyHistogram::new()
    }
}

fn bucket_of(ns: u64) -> usize {
    if ns < SUB {
        return ns as usize;
    }
    let exponent = 63 - ns.leading_zeros();
    let shift = exponent - SUB_BITS;
    let mantissa = (ns >> shift) & (SUB - 1);
    ((shift + 1) as u64 * SUB + mantissa) as usize
}

/// The range of values a bucket holds, in nanoseconds (both ends included).
#[cfg(test)]
fn bucket_range(index: usize) -> (u64, u64) {
    let index = index as u64;
    if index < SUB {
        return (index, index);
    }
    let shift = index / SUB - 1;
    let low = (SUB + index % SUB) << shift;
    (low, low + ((1u64 << shift) - 1))
}

impl LatencyHistogram {
    pub fn new() -> LatencyHistogram {
        LatencyHistogram {
            counts: vec![0; BUCKETS],
            sums_ns: vec![0; BUCKETS],
            total: 0,
            min_ns: u64::MAX,
            max_ns: 0,
        }
    }

    pub fn record(&mut self, latency: Duration) {
        let ns = u64::try_from(latency.as_nanos()).unwrap_or(u64::MAX);
        let b = bucket_of(ns);
        self.counts[b] += 1;
        self.sums_ns[b] = self.sums_ns[b].saturating_add(ns);
        self.total += 1;
        self.min_ns = self.min_ns.min(ns);
        self.max_ns = self.max_ns.max(ns);
    }

    /// Adds another histogram's counts (a thread's own, at the end of a trial).
    pub fn merge(&mut self, other: &LatencyHistogram) {
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        for (a, b) in self.sums_ns.iter_mut().zip(&other.sums_ns) {
            *a = a.saturating_add(*b);
        }
        self.total += other.total;
        self.min_ns = self.min_ns.min(other.min_ns);
        self.max_ns = self.max_ns.max(other.max_ns);
    }

    pub fn count(&self) -> u64 {
        self.total
    }

    /// The `p`th percentile (0 < p ≤ 100) in seconds: the mean of the samples in the bucket
    /// that holds the nearest-rank sample; None for an empty histogram. The exact extremes
    /// are kept, so p100 is the largest latency itself.
    pub fn percentile_seconds(&self, p: f64) -> Option<f64> {
        if self.total == 0 {
            return None;
        }
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (index, count) in self.counts.iter().enumerate() {
            seen += count;
            if seen >= rank {
                if rank == self.total {
                    return Some(self.max_ns as f64 / 1e9);
                }
                return Some(self.sums_ns[index] as f64 / *count as f64 / 1e9);
            }
        }
        Some(self.max_ns as f64 / 1e9)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_value_falls_in_a_bucket_that_holds_it() {
        for ns in [
            0u64,
            1,
            31,
            32,
            33,
            63,
            64,
            1000,
            123_456,
            1 << 40,
            u64::MAX,
        ] {
            let b = bucket_of(ns);
            assert!(b < BUCKETS, "{ns}");
            let (low, high) = bucket_range(b);
            assert!(
                low <= ns && ns <= high,
                "{ns}: bucket {b} holds {low}..={high}"
            );
            // A bucket is at most 1/32 of its values wide.
            assert!((high - low) as f64 <= low as f64 / 32.0, "{ns}");
        }
        // Neighbouring values land in the same or the next bucket, never backwards.
        let mut last = 0;
        for ns in 0..100_000u64 {
            let b = bucket_of(ns);
            assert!(b == last || b == last + 1, "{ns}");
            last = b;
        }
    }

    /// Reference: `numpy.percentile(x, [50, 90, 99, 99.9, 99.95], method='inverted_cdf')`
    /// for x = 20_000 + (i * 7919) % 180_000 ns, i in 0..10 000, and 10 samples of 5 ms:
    /// [110028, 182073, 198371, 199927, 5000000] ns. The histogram's answers are within 1/32
    /// of those.
    #[test]
    fn percentiles_match_numpy_within_a_bucket() {
        let mut h = LatencyHistogram::new();
        for i in 0..10_000u64 {
            h.record(Duration::from_nanos(20_000 + (i * 7919) % 180_000));
        }
        for _ in 0..10 {
            h.record(Duration::from_millis(5));
        }
        assert_eq!(h.count(), 10_010);
        for (p, want_ns) in [
            (50.0, 110_028.0),
            (90.0, 182_073.0),
            (99.0, 198_371.0),
            (99.9, 199_927.0),
            (99.95, 5_000_000.0),
        ] {
            let got = h.percentile_seconds(p).unwrap() * 1e9;
            assert!(
                (got - want_ns).abs() <= want_ns / 32.0,
                "p{p}: {got} vs {want_ns}"
            );
        }
        assert_eq!(h.percentile_seconds(100.0), Some(0.005));
    }

    #[test]
    fn merged_histograms_count_both_and_empty_has_no_percentile() {
        let mut a = LatencyHistogram::new();
        assert_eq!(a.percentile_seconds(50.0), None);
        a.record(Duration::from_micros(10));
        let mut b = LatencyHistogram::new();
        b.record(Duration::from_micros(30));
        b.record(Duration::from_micros(30));
        a.merge(&b);
        assert_eq!(a.count(), 3);
        // Samples alike in a bucket are read back exactly.
        assert_eq!(a.percentile_seconds(50.0), Some(30e-6));
        assert_eq!(a.percentile_seconds(1.0), Some(10e-6));
    }
}
