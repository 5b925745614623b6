//! The axes of the SVG plots (`--surface`, `--experiment --plot`): ticks on round values in
//! 1-2-5 steps, and labels with the same number of decimals along an axis, so that a reader
//! compares "97.5" with "100.0", never "97.5" with "100".
//!
//! What this file must not do: draw. It returns numbers and label texts (and reads the texts
//! back out of a drawing, for tests).

/// An axis from `lo` to `hi` (both ticks), a tick every `step`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Axis {
    pub lo: f64,
    pub hi: f64,
    pub step: f64,
    /// The decimals every label of this axis gets: those of the step.
    pub decimals: usize,
}

/// The 1-2-5 step that cuts `span` into about `count` parts.
pub fn nice_step(span: f64, count: usize) -> f64 {
    let raw = (span / count.max(1) as f64).max(f64::MIN_POSITIVE);
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
    /// The round axis that holds `lo..=hi`, with about `count` steps.
    pub fn covering(lo: f64, hi: f64, count: usize) -> Axis {
        let step = nice_step(hi - lo, count);
        let axis_lo = (lo / step + 1e-9).floor() * step;
        let axis_hi = ((hi / step - 1e-9).ceil() * step).max(axis_lo + step);
        let decimals = (-step.log10().floor()).max(0.0) as usize;
        Axis {
            lo: axis_lo,
            hi: axis_hi,
            step,
            decimals,
        }
    }

    /// The tick values, `lo` to `hi`.
    pub fn ticks(&self) -> Vec<f64> {
        let n = ((self.hi - self.lo) / self.step).round() as usize;
        (0..=n).map(|i| self.lo + self.step * i as f64).collect()
    }

    /// A tick's label, with the axis's decimals.
    pub fn label(&self, v: f64) -> String {
        // -0.0 prints as "-0"; a tick at zero is "0".
        let v = if v.abs() < self.step / 1e6 { 0.0 } else { v };
        format!("{v:.*}", self.decimals)
    }
}

/// The contents of an SVG's text elements, in order: what a reader of the picture reads, for
/// the tests of the plots (ours and the VM bench's).
pub fn svg_texts(svg: &str) -> Vec<String> {
    svg.split("<text")
        .skip(1)
        .filter_map(|t| {
            let body = &t[t.find('>')? + 1..];
            Some(body[..body.find('<')?].to_string())
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_fall_on_1_2_5_steps_and_labels_share_their_decimals() {
        let a = Axis::covering(0.0, 3701.0 * 1.05, 5);
        assert_eq!((a.lo, a.hi, a.step), (0.0, 4000.0, 1000.0));
        let labels: Vec<String> = a.ticks().iter().map(|&v| a.label(v)).collect();
        assert_eq!(labels, ["0", "1000", "2000", "3000", "4000"]);
        let b = Axis::covering(0.0, 0.37, 4);
        assert_eq!(b.step, 0.1);
        let labels: Vec<String> = b.ticks().iter().map(|&v| b.label(v)).collect();
        assert_eq!(labels, ["0.0", "0.1", "0.2", "0.3", "0.4"]);
        let c = Axis::covering(97.3, 102.2, 5);
        let labels: Vec<String> = c.ticks().iter().map(|&v| c.label(v)).collect();
        assert_eq!(labels, ["97", "98", "99", "100", "101", "102", "103"]);
        let d = Axis::covering(0.0, 100.0, 10);
        assert_eq!(d.ticks().len(), 11);
        for axis in [a, b, c, d] {
            for t in axis.ticks() {
                let m = t / axis.step;
                assert!(
                    (m - m.round()).abs() < 1e-6,
                    "{t} is not a multiple of {}",
                    axis.step
                );
            }
        }
    }
}
