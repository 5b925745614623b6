//! The stop flag for runs that must finish a command and clean up before a signal ends them
//! (a destructive operation over several devices, `--experiment`'s restore, `--surface`'s
//! report): SIGINT, SIGTERM, SIGHUP and SIGQUIT set an atomic instead of ending the process,
//! the run checks it between its commands, and `main` raises the signal again at the end.
//!
//! The flag is never cleared: once a signal asked the process to stop, a later handler (the
//! erase installs one while its command runs) must not make the run forget it. The first
//! signal is the one kept, and the one the process dies of.
//!
//! Owns: the `sigaction` calls, the handler and the signal mask of the erase's thread. Must
//! not: decide what a stop means; callers read [`received`] (or [`StopHandler::signal`]) and
//! act.

use std::io;
use std::sync::atomic::{AtomicI32, Ordering};

/// The first signal that came while a [`StopHandler`] was alive; 0 for none. A static
/// because a signal handler has no other way to reach the program's state.
static STOP: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    // Only an atomic compare-and-swap: async-signal-safe. The first signal wins.
    let _ = STOP.compare_exchange(0, signal, Ordering::SeqCst, Ordering::SeqCst);
}

/// The signals that stop a run: the terminal's (SIGINT, SIGQUIT), the service manager's
/// (SIGTERM) and a closed session's (SIGHUP).
pub const SIGNALS: [libc::c_int; 4] = [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT];

/// The signal that asked the process to stop, if one came while a handler was installed. A
/// plain function, so that a `fn` pointer can carry it to the executor.
pub fn received() -> Option<i32> {
    match STOP.load(Ordering::SeqCst) {
        0 => None,
        signal => Some(signal),
    }
}

/// While alive, the four signals set the stop flag; dropping it puts the previous handlers
/// back, so a Ctrl-C after the run ends the process as usual. A signal the process was started
/// with ignored (`nohup` ignores SIGHUP) stays ignored.
pub struct StopHandler {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl StopHandler {
    /// Installs the handler. A stop that came earlier is kept.
    pub fn install() -> io::Result<StopHandler> {
        let mut handler = StopHandler {
            previous: Vec::new(),
        };
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid value of the plain C struct (no handler,
            // empty mask, no flags) before its fields are filled in.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SA_RESTART: a read in flight when the signal comes is resumed, not failed with
            // EINTR; the command ends normally and the flag is seen right after it.
            action.sa_flags = libc::SA_RESTART;
            // SAFETY: sa_mask is a valid sigset_t owned by `action`, borrowed for the call.
            unsafe { libc::sigemptyset(&mut action.sa_mask) };
            // SAFETY: a zeroed sigaction is a valid out-parameter for the previous action.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: both pointers are to live sigaction values for the duration of the call,
            // and the handler only stores to an atomic (async-signal-safe).
            let rc = unsafe { libc::sigaction(signal, &action, &mut old) };
            if rc != 0 {
                return Err(io::Error::last_os_error());
            }
            if old.sa_sigaction == libc::SIG_IGN {
                // SAFETY: `old` is the action sigaction just returned; putting it back is
                // always valid, and a null pointer for the previous action is allowed.
                unsafe { libc::sigaction(signal, &old, std::ptr::null_mut()) };
                continue;
            }
            handler.previous.push((signal, old));
        }
        Ok(handler)
    }

    /// Whether a stop signal came (since the process started).
    pub fn requested(&self) -> bool {
        received().is_some()
    }

    /// The signal that came first, if any: the one to report, and to die of.
    pub fn signal(&self) -> Option<i32> {
        received()
    }
}

impl Drop for StopHandler {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: `old` is the action sigaction returned for this signal; a null pointer
            // for the previous action is allowed.
            unsafe { libc::sigaction(*signal, old, std::ptr::null_mut()) };
        }
    }
}

/// The name of a signal, for messages ("SIGTERM"); `signal N` for one without a name here.
pub fn name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        libc::SIGHUP => "SIGHUP".into(),
        libc::SIGQUIT => "SIGQUIT".into(),
        libc::SIGPIPE => "SIGPIPE".into(),
        n => format!("signal {n}"),
    }
}

/// Clears the flag: only the unit tests of this module, which raise a signal in the test
/// process, may forget it again.
#[cfg(test)]
fn forget() {
    STOP.store(0, Ordering::SeqCst);
}

// ---- security and sanitize ------------------------------------------------------------------

/// While alive, the stop signals are blocked in the calling thread, so that the kernel hands
/// them to another thread of the process: a thread waiting in an uninterruptible ioctl (a
/// SECURITY ERASE UNIT can take hours) would otherwise hold them, unhandled, until the ioctl
/// ends. Threads started while it is alive inherit the mask; start the watcher first.
pub struct StopSignalsBlocked {
    previous: libc::sigset_t,
}

impl StopSignalsBlocked {
    /// Blocks the stop signals in this thread.
    pub fn here() -> io::Result<StopSignalsBlocked> {
        // SAFETY: a zeroed sigset_t is a valid value to initialise with sigemptyset.
        let mut set: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: `set` is a live sigset_t borrowed for each call.
        unsafe {
            libc::sigemptyset(&mut set);
            for signal in SIGNALS {
                libc::sigaddset(&mut set, signal);
            }
        }
        // SAFETY: a zeroed sigset_t is a valid out-parameter for the previous mask.
        let mut previous: libc::sigset_t = unsafe { std::mem::zeroed() };
        // SAFETY: both pointers are to live sigset_t values for the duration of the call.
        let rc = unsafe { libc::pthread_sigmask(libc::SIG_BLOCK, &set, &mut previous) };
        if rc != 0 {
            return Err(io::Error::from_raw_os_error(rc));
        }
        Ok(StopSignalsBlocked { previous })
    }
}

impl Drop for StopSignalsBlocked {
    fn drop(&mut self) {
        // SAFETY: `previous` is the mask pthread_sigmask returned; a null old-mask pointer is
        // allowed. A signal that came meanwhile is delivered now, to the installed handler.
        unsafe { libc::pthread_sigmask(libc::SIG_SETMASK, &self.previous, std::ptr::null_mut()) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_signal_sets_the_flag_a_later_handler_keeps_it_and_the_old_handler_comes_back() {
        let handler = StopHandler::install().unwrap();
        assert_eq!(handler.signal(), None);
        // SAFETY: raising a signal whose handler is ours, which only sets the flag.
        unsafe { libc::raise(libc::SIGTERM) };
        // SAFETY: as above (or ignored, where the test runs under nohup); the first signal is
        // the one kept.
        unsafe { libc::raise(libc::SIGHUP) };
        assert_eq!(handler.signal(), Some(libc::SIGTERM));
        // A handler installed later (the erase's) does not clear the stop: the bug of issue
        // 18, where the second device was erased after a SIGTERM.
        let nested = StopHandler::install().unwrap();
        assert!(nested.requested());
        assert_eq!(received(), Some(libc::SIGTERM));
        drop(nested);
        drop(handler);
        forget();
        // SAFETY: reading the current action into a zeroed struct; no handler is changed.
        let mut now: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a null new action only reads the current one into `now`.
        unsafe { libc::sigaction(libc::SIGQUIT, std::ptr::null(), &mut now) };
        assert_ne!(
            now.sa_sigaction,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t
        );
    }

    #[test]
    fn signals_have_their_names() {
        assert_eq!(name(libc::SIGQUIT), "SIGQUIT");
        assert_eq!(name(64), "signal 64");
    }
}
