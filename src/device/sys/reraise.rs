//! Ending the process as a signal would have ended it (the exit table's `stopped`, 128+N): a
//! run stopped by signal N, or one whose standard output was a closed pipe (SIGPIPE, which Rust
//! ignores so that writes fail with EPIPE instead), dies of N after it has cleaned up, so a
//! parent (a shell, systemd) sees it killed by N, as it sees hdparm.
//!
//! Owns: the three calls. Must not: decide when; `main.rs` calls it with the signal the run's
//! status names, after everything was written.

/// Puts the default action of `signal` back, unblocks it and raises it. Returns only if that
/// did not end the process (a signal whose default is to be ignored); the caller then exits
/// with 128+N.
pub fn die_of(signal: i32) {
    // SAFETY: SIG_DFL is a valid disposition for any catchable signal; a bad number fails
    // with EINVAL and changes nothing.
    unsafe { libc::signal(signal, libc::SIG_DFL) };
    // SAFETY: a zeroed sigset_t is a valid value to initialise with sigemptyset; `set` is a
    // live sigset_t borrowed for each call, and a null old-mask pointer is allowed.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, signal);
        libc::pthread_sigmask(libc::SIG_UNBLOCK, &set, std::ptr::null_mut());
    }
    // SAFETY: raising a signal with its default action; the process ends here or goes on.
    unsafe { libc::raise(signal) };
}
