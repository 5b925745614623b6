//! What the process does while it holds a drive password: no core dumps
//! (`prctl(PR_SET_DUMPABLE, 0)`, which also keeps other users' debuggers out), the page of the
//! held copy locked in memory so it is never written to swap (`mlock`, where RLIMIT_MEMLOCK
//! allows), and reading standard input without std's buffer (which would keep a copy).
//!
//! Owns: those calls. Must not: decide when a password is held, or hold one; `exec::prompt`
//! does.

use std::io;

/// Makes the process not dumpable for the rest of its life: no core file, and `/proc/PID`
/// owned by root, as for a setuid program.
pub fn forbid_core_dumps() -> io::Result<()> {
    // SAFETY: PR_SET_DUMPABLE takes an integer argument; no memory is passed.
    let rc = unsafe { libc::prctl(libc::PR_SET_DUMPABLE, 0 as libc::c_ulong, 0, 0, 0) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Whether the process may dump core (`PR_GET_DUMPABLE`).
pub fn dumpable() -> io::Result<bool> {
    // SAFETY: PR_GET_DUMPABLE takes no argument and returns the flag.
    let rc = unsafe { libc::prctl(libc::PR_GET_DUMPABLE, 0, 0, 0, 0) };
    if rc < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(rc != 0)
}

/// The pages of a buffer locked in memory while alive (`mlock`), unlocked on drop. It keeps
/// the address only: the owner must keep the buffer where it is (a box) and alive until this
/// is dropped.
pub struct Locked {
    addr: usize,
    len: usize,
}

impl Locked {
    /// Locks the pages of `bytes`; an error (RLIMIT_MEMLOCK, EPERM) leaves nothing locked.
    pub fn lock(bytes: &[u8]) -> io::Result<Locked> {
        // SAFETY: the range is a live buffer borrowed for the call; mlock only pins its pages.
        let rc = unsafe { libc::mlock(bytes.as_ptr().cast(), bytes.len()) };
        if rc != 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(Locked {
            addr: bytes.as_ptr() as usize,
            len: bytes.len(),
        })
    }
}

impl Drop for Locked {
    fn drop(&mut self) {
        // SAFETY: munlock of the range locked in `lock`; it touches no memory, and fails
        // harmlessly if the pages are gone.
        unsafe { libc::munlock(self.addr as *const libc::c_void, self.len) };
    }
}

/// One `read(0, buf)`: standard input without std's buffer.
pub fn read_stdin(buf: &mut [u8]) -> io::Result<usize> {
    loop {
        // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes for the call.
        let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
        if n >= 0 {
            return Ok(n as usize);
        }
        let e = io::Error::last_os_error();
        if e.kind() != io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_process_is_not_dumpable_once_told() {
        // The test binary is not dumpable from here on, which harms no other test.
        forbid_core_dumps().unwrap();
        assert!(!dumpable().unwrap());
    }

    #[test]
    fn a_page_can_be_locked_and_unlocked() {
        let buf = Box::new([7u8; 32]);
        // RLIMIT_MEMLOCK may forbid it (a small limit, no capability): then nothing is locked.
        if let Ok(locked) = Locked::lock(&buf[..]) {
            drop(locked);
        }
        assert_eq!(buf[0], 7);
    }
}
