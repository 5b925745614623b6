//! The clock and the sleeper the timing loops are given, so tests can drive them with fakes.
//!
//! hdparm reads time with `getitimer(ITIMER_REAL)`: microsecond resolution, and an elapsed time
//! computed as a whole-second difference plus a microsecond difference divided by a million.
//! [`elapsed_seconds`] does that arithmetic on two [`Clock::now`] readings truncated to the
//! microsecond, so our figures are computed the way hdparm's are. The real clock is monotonic
//! (`Instant`), which an interval timer also is.
//!
//! What it must not do: touch a device. Reading the time and sleeping are the only effects.

use std::time::{Duration, Instant};

/// A monotonic clock: the time since some fixed origin.
pub trait Clock {
    fn now(&mut self) -> Duration;
}

/// Something that can wait; the fake one advances a fake clock instead.
pub trait Sleeper {
    fn sleep(&mut self, duration: Duration);
}

/// The real monotonic clock.
#[derive(Debug, Clone, Copy)]
pub struct MonotonicClock {
    origin: Instant,
}

impl MonotonicClock {
    pub fn new() -> Self {
        MonotonicClock {
            origin: Instant::now(),
        }
    }
}

impl Default for MonotonicClock {
    fn default() -> Self {
        Self::new()
    }
}

impl Clock for MonotonicClock {
    fn now(&mut self) -> Duration {
        self.origin.elapsed()
    }
}

/// The real sleeper.
#[derive(Debug, Clone, Copy, Default)]
pub struct ThreadSleeper;

impl Sleeper for ThreadSleeper {
    fn sleep(&mut self, duration: Duration) {
        std::thread::sleep(duration);
    }
}

/// Seconds from `start` to `end`, as hdparm computes them from two interval-timer readings:
/// the difference of the whole seconds plus the difference of the microseconds over 1e6.
pub fn elapsed_seconds(start: Duration, end: Duration) -> f64 {
    let secs = end.as_secs() as f64 - start.as_secs() as f64;
    let micros = f64::from(end.subsec_micros()) - f64::from(start.subsec_micros());
    secs + micros / 1_000_000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn elapsed_borrows_across_the_second_and_drops_nanoseconds() {
        let a = Duration::new(10, 900_000_999);
        let b = Duration::new(12, 100_000_000);
        assert!((elapsed_seconds(a, b) - 1.2).abs() < 1e-12);
        assert_eq!(elapsed_seconds(a, a), 0.0);
    }

    #[test]
    fn real_clock_does_not_go_backwards() {
        let mut c = MonotonicClock::new();
        let a = c.now();
        let b = c.now();
        assert!(b >= a);
    }
}
