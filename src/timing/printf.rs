//! C `printf` conversions the timing lines use (`%5.2f`, `%6.2f`), reproduced exactly.
//!
//! Finite values: glibc prints the exact decimal value of the binary double rounded to the
//! precision, ties to even; Rust's `{:.N}` does the same (checked below against values where a
//! naive "round half up" would differ). The difference is in the special values: glibc prints
//! `inf`, `-inf`, `nan` and `-nan` (a NaN with its sign bit set, which is what `0.0 / 0.0`
//! produces on x86), Rust prints `inf`, `-inf` and `NaN`. Width pads on the left with spaces
//! in both.
//!
//! What it must not do: know about timings. It formats numbers.

/// `%<width>.<precision>f` as glibc prints it.
pub fn c_fixed(value: f64, width: usize, precision: usize) -> String {
    let body = if value.is_nan() {
        if value.is_sign_negative() {
            "-nan".to_string()
        } else {
            "nan".to_string()
        }
    } else if value.is_infinite() {
        if value < 0.0 {
            "-inf".to_string()
        } else {
            "inf".to_string()
        }
    } else {
        format!("{value:.precision$}")
    };
    format!("{body:>width$}")
}

#[cfg(test)]
mod tests {
    use super::*;

    // Expected strings are glibc's output for the same doubles (printf "%.2f" / "%6.2f").
    #[test]
    fn ties_round_to_even_on_the_exact_binary_value() {
        assert_eq!(c_fixed(0.125, 0, 2), "0.12"); // exactly representable tie: to even
        assert_eq!(c_fixed(0.375, 0, 2), "0.38");
        assert_eq!(c_fixed(2.5, 0, 0), "2");
        assert_eq!(c_fixed(1.005, 0, 2), "1.00"); // 1.00499999999999989...
        assert_eq!(c_fixed(0.005, 0, 2), "0.01"); // 0.00500000000000000010...
        assert_eq!(c_fixed(2.675, 0, 2), "2.67");
    }

    #[test]
    fn width_pads_on_the_left() {
        assert_eq!(c_fixed(1.99, 5, 2), " 1.99");
        assert_eq!(c_fixed(20664.53, 6, 2), "20664.53");
        assert_eq!(c_fixed(3.0, 6, 2), "  3.00");
        assert_eq!(c_fixed(-0.0, 6, 2), " -0.00");
        assert_eq!(c_fixed(123456.0, 5, 2), "123456.00");
    }

    #[test]
    fn special_values_are_spelled_as_glibc_does() {
        assert_eq!(c_fixed(f64::INFINITY, 6, 2), "   inf");
        assert_eq!(c_fixed(f64::NEG_INFINITY, 6, 2), "  -inf");
        assert_eq!(c_fixed(f64::NAN, 5, 2), "  nan");
        assert_eq!(c_fixed(-f64::NAN, 6, 2), "  -nan");
    }
}
