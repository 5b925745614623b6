//! flock(2), for the whole-disk lock of the block-device locking convention
//! (`device::lock`).
//!
//! Owns: the call and its errno. Must not: decide which disk, which mode, or how long to try;
//! `device::lock` does.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

/// Shared or exclusive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flock {
    Shared,
    Exclusive,
}

/// `flock(fd, LOCK_SH|LOCK_NB)` or `LOCK_EX|LOCK_NB`: never waits. `Ok(false)` when another
/// open file holds a conflicting lock (EWOULDBLOCK); the lock is released when the open
/// file is closed.
pub fn try_flock(fd: BorrowedFd<'_>, mode: Flock) -> io::Result<bool> {
    let operation = match mode {
        Flock::Shared => libc::LOCK_SH,
        Flock::Exclusive => libc::LOCK_EX,
    } | libc::LOCK_NB;
    loop {
        // SAFETY: flock takes a descriptor and an integer; the descriptor is borrowed, so it
        // stays open for the call, and no memory is passed.
        let rc = unsafe { libc::flock(fd.as_raw_fd(), operation) };
        if rc == 0 {
            return Ok(true);
        }
        let e = io::Error::last_os_error();
        match e.raw_os_error() {
            Some(libc::EWOULDBLOCK) => return Ok(false),
            // A signal handler of ours (the stop flag) ran: try again; the caller looks at
            // the flag between tries.
            Some(libc::EINTR) => continue,
            _ => return Err(e),
        }
    }
}
