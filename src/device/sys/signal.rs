//! The stop flag for long runs that must clean up (`--experiment` restores the settings it
//! changed): SIGINT and SIGTERM set an atomic flag instead of ending the process, and the run
//! checks the flag between its steps.
//!
//! Owns: the two `sigaction` calls and the handler. Must not: decide what a stop means; the
//! caller reads [`StopHandler::requested`] and acts.

use std::io;
use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the handler; read and cleared by [`StopHandler`]. A static because a signal handler
/// has no other way to reach the program's state.
static STOP: AtomicBool = AtomicBool::new(false);

extern "C" fn on_signal(_signal: libc::c_int) {
    // Only an atomic store: the one kind of work that is async-signal-safe.
    STOP.store(true, Ordering::SeqCst);
}

const SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// While alive, SIGINT and SIGTERM set the stop flag; dropping it puts the previous handlers
/// back, so a Ctrl-C after the run ends the process as usual.
pub struct StopHandler {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl StopHandler {
    /// Installs the handler for SIGINT and SIGTERM, clearing any earlier stop.
    pub fn install() -> io::Result<StopHandler> {
        STOP.store(false, Ordering::SeqCst);
        let mut handler = StopHandler {
            previous: Vec::new(),
        };
        for signal in SIGNALS {
            // SAFETY: a zeroed sigaction is a valid value of the plain C struct (no handler,
            // empty mask, no flags) before its fields are filled in.
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t;
            // SA_RESTART: a read in flight when the signal comes is resumed, not failed with
            // EINTR; the trial ends normally and the flag is seen right after it.
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
            handler.previous.push((signal, old));
        }
        Ok(handler)
    }

    /// Whether SIGINT or SIGTERM came since [`StopHandler::install`].
    pub fn requested(&self) -> bool {
        STOP.load(Ordering::SeqCst)
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

// ---- security and sanitize ------------------------------------------------------------------

/// While alive, SIGINT and SIGTERM are blocked in the calling thread, so that the kernel hands
/// them to another thread of the process: a thread waiting in an uninterruptible ioctl (a
/// SECURITY ERASE UNIT can take hours) would otherwise hold them, unhandled, until the ioctl
/// ends. Threads started while it is alive inherit the mask; start the watcher first.
pub struct StopSignalsBlocked {
    previous: libc::sigset_t,
}

impl StopSignalsBlocked {
    /// Blocks SIGINT and SIGTERM in this thread.
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
    fn a_signal_sets_the_flag_and_the_old_handler_comes_back() {
        let handler = StopHandler::install().unwrap();
        assert!(!handler.requested());
        // SAFETY: raising a signal whose handler is ours, which only sets the flag.
        unsafe { libc::raise(libc::SIGTERM) };
        assert!(handler.requested());
        drop(handler);
        // SAFETY: reading the current action into a zeroed struct; no handler is changed.
        let mut now: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a null new action only reads the current one into `now`.
        unsafe { libc::sigaction(libc::SIGTERM, std::ptr::null(), &mut now) };
        assert_ne!(
            now.sa_sigaction,
            on_signal as extern "C" fn(libc::c_int) as libc::sighandler_t
        );
    }
}
