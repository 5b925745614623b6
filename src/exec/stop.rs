//! How a run learns that a signal asked it to stop (issue 18).
//!
//! A run with a destructive operation installs the stop handler (`device::sys::signal`) for
//! its whole length and hands a [`Stop`] to the device loop and to every step: the loop looks
//! at it before each device, the steps loop before each step, and a step that sends several
//! commands before each of them. What finishing the command in flight requires is finished;
//! nothing else is sent, and the report says where each device was left
//! ([`crate::report::stop`]). The binary then dies of the signal (`main.rs`).
//!
//! A run without a destructive operation installs nothing and checks nothing: it dies of the
//! signal at once, as hdparm does. So do the runs `--experiment` and `--apply` make inside
//! themselves, which must still restore a setting after a stop.
//!
//! Must not: install handlers itself, or look at anything but the function it was given (the
//! tests give one of their own).

/// Where a run asks whether it must stop: the signal that asked, if any.
#[derive(Clone, Copy)]
pub struct Stop(fn() -> Option<i32>);

impl Stop {
    /// A run that is never stopped (it dies of a signal instead).
    pub fn never() -> Stop {
        Stop(|| None)
    }

    /// The process's stop flag, set while a `StopHandler` is installed.
    pub fn on_signals() -> Stop {
        Stop(crate::device::sys::signal::received)
    }

    /// A stop decided by the test (the fake's runs, `doubles`).
    #[cfg(any(test, feature = "doubles"))]
    pub fn from_fn(signal: fn() -> Option<i32>) -> Stop {
        Stop(signal)
    }

    /// The signal that asked the run to stop, if one did.
    pub fn signal(self) -> Option<i32> {
        (self.0)()
    }

    /// Whether a signal asked the run to stop.
    pub fn requested(self) -> bool {
        self.signal().is_some()
    }
}
