//! Round axes for the SVG plots (`--surface`, `--experiment --plot`): ticks 1, 2 or 5 times a
//! power of ten apart, each labelled with the same number of decimals, the fewest the step
//! needs (0, 20, 40 … or 0.0, 0.5, 1.0 …, never 0, 0.5, 1).
//!
//! What this file must not do: draw; it returns numbers and labels.

/// A linear axis from `lo` to `hi`, both multiples of `step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub step: f64,
    /// Decimals of every label.
    pub decimals: usize,
}

/// A round step for an axis over `span`, near `span / 5`: 1, 2 or 5 times a power of ten.
pub fn nice_step(span: f64) -> f64 {
    let raw = (span / 5.0).max(f64::MIN_POSITIVE);
    let power = 10f64.powf(raw.log10().floor());
    let m = raw / power;
    let nice = if m <= 1.0 {
        1.0
    } else if m <= 2.0 {
        2.0
    } else if m <= 5.0 {
        5.0
    } else {
        10.0
    };
    nice * power
}

impl Axis {
    /// The round axis that covers `lo..=hi` (at least a small span around a single value).
    pub fn covering(lo: f64, hi: f64) -> Axis {
        let span = (hi - lo).max(hi.abs().max(lo.abs()) * 1e-3).max(1e-9);
        let step = nice_step(span);
        let decimals = (-(step.log10() + 1e-9).floor()).max(0.0) as usize;
        let lo = (lo / step + 1e-9).floor() * step;
        let mut hi = (hi / step - 1e-9).ceil() * step;
        if hi <= lo {
            hi = lo + step;
        }
        Axis {
            lo,
            hi,
            step,
            decimals,
        }
    }

    /// From 0 to at least `max`.
    pub fn from_zero(max: f64) -> Axis {
        Axis::covering(0.0, max)
    }

    /// The tick values, `lo` to `hi`.
    pub fn ticks(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as usize;
        (0..=n).map(|i| self.lo + self.step * i as f64).collect()
    }

    /// A tick's label.
    pub fn label(&self, v: f64) -> String {
        // -0.0 prints as "-0"
        let v = if v.abs() < self.step * 1e-6 { 0.0 } else { v };
        format!("{v:.*}", self.decimals)
    }

    /// Where `v` lies, 0 at `lo` and 1 at `hi`.
    pub fn fraction(&self, v: f64) -> f64 {
        (v - self.lo) / (self.hi - self.lo)
    }
}

/// The `<text>` elements of an SVG we wrote, as (attributes, text) pairs, entities decoded:
/// what the plots' tests read, as a viewer would show them.
#[cfg(test)]
pub fn svg_texts(svg: &str) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut rest = svg;
    while let Some(start) = rest.find("<text") {
        rest = &rest[start + 5..];
        let Some(close) = rest.find('>') else { break };
        let attrs = rest[..close].to_string();
        rest = &rest[close + 1..];
        let Some(end) = rest.find("</text>") else {
            break;
        };
        let text = rest[..end]
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&amp;", "&");
        out.push((attrs, text));
        rest = &rest[end..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn steps_are_round() {
        assert_eq!(nice_step(30.0), 10.0);
        assert_eq!(nice_step(20.0), 5.0);
        assert_eq!(nice_step(1000.0), 200.0);
        assert_eq!(nice_step(4.0), 1.0);
    }

    /// Every tick a multiple of a 1-2-5 step, every label with the step's decimals.
    #[test]
    fn ticks_are_round_and_labels_even() {
        for (lo, hi) in [
            (0.0, 1707.1 * 1.05),
            (0.0, 0.73),
            (83.9, 110.0),
            (0.0, 3.3),
            (1416.0, 1420.67),
            (5.0, 5.0),
        ] {
            let a = Axis::covering(lo, hi);
            assert!(a.lo <= lo && a.hi >= hi, "{a:?} covers {lo}..{hi}");
            let m = a.step / 10f64.powf(a.step.log10().floor());
            assert!(
                [1.0, 2.0, 5.0].iter().any(|x| (m - x).abs() < 1e-6),
                "{a:?}"
            );
            let labels: Vec<String> = a.ticks().iter().map(|&t| a.label(t)).collect();
            assert!(labels.len() >= 2 && labels.len() <= 12, "{labels:?}");
            let decimals = |l: &str| l.split('.').nth(1).map_or(0, str::len);
            assert!(
                labels.iter().all(|l| decimals(l) == decimals(&labels[0])),
                "{labels:?}"
            );
        }
        let a = Axis::from_zero(0.73);
        let labels: Vec<String> = a.ticks().iter().map(|&t| a.label(t)).collect();
        assert_eq!(labels, ["0.0", "0.2", "0.4", "0.6", "0.8"]);
        let a = Axis::from_zero(1792.0);
        assert_eq!(a.label(a.ticks()[1]), "500");
    }
}
