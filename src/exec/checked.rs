//! Standard output, watched: every mode writes its report through this writer, which keeps the
//! first failure, so that a report that could not be written is never an exit 0
//! (`--json -a DEV >/dev/full`).
//!
//! Two kinds of failure, as the exit table says (`error.rs`): a closed pipe (EPIPE: the reader
//! went away, `hdparm -I DEV | head`) is a quiet end, and the run ends as one killed by
//! SIGPIPE, as hdparm is; any other error (ENOSPC, EIO, EBADF) is `output_failed` (74) with one
//! line on stderr. After a failure nothing more is written: a later write could put the end
//! of a report after a hole.
//!
//! Must not: decide the exit status (`exec::run` does, through `Verdict`), or print.

use std::io::{self, Write};

/// How standard output failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Failure {
    /// The reader closed the pipe.
    ClosedPipe,
    /// Any other error, by its errno (None: an error without one).
    Error(Option<i32>),
}

/// A writer that passes everything to `inner` and keeps the first failure.
pub struct Checked<'a> {
    inner: &'a mut dyn Write,
    failure: Option<Failure>,
}

impl<'a> Checked<'a> {
    pub fn new(inner: &'a mut dyn Write) -> Checked<'a> {
        Checked {
            inner,
            failure: None,
        }
    }

    /// The first failure seen, if any.
    pub fn failure(&self) -> Option<Failure> {
        self.failure
    }

    fn seen(&mut self, e: io::Error) -> io::Error {
        if e.kind() != io::ErrorKind::Interrupted && self.failure.is_none() {
            self.failure = Some(match e.raw_os_error() {
                Some(libc::EPIPE) => Failure::ClosedPipe,
                errno => Failure::Error(errno),
            });
        }
        e
    }

    /// The error every write after a failure gets.
    fn again(failure: Failure) -> io::Error {
        match failure {
            Failure::ClosedPipe => io::Error::from_raw_os_error(libc::EPIPE),
            Failure::Error(Some(errno)) => io::Error::from_raw_os_error(errno),
            Failure::Error(None) => io::Error::other("standard output failed earlier"),
        }
    }
}

impl Write for Checked<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        if let Some(failure) = self.failure {
            return Err(Self::again(failure));
        }
        self.inner.write(buf).map_err(|e| self.seen(e))
    }

    fn flush(&mut self) -> io::Result<()> {
        if let Some(failure) = self.failure {
            return Err(Self::again(failure));
        }
        self.inner.flush().map_err(|e| self.seen(e))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Takes `room` bytes, then fails with `errno`.
    struct Full {
        room: usize,
        errno: i32,
        taken: Vec<u8>,
    }

    impl Write for Full {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            if self.room == 0 {
                return Err(io::Error::from_raw_os_error(self.errno));
            }
            let n = buf.len().min(self.room);
            self.room -= n;
            self.taken.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn the_first_failure_is_kept_and_nothing_is_written_after_it() {
        let mut full = Full {
            room: 4,
            errno: libc::ENOSPC,
            taken: Vec::new(),
        };
        let mut out = Checked::new(&mut full);
        assert!(out.write_all(b"abcdef").is_err());
        assert_eq!(out.failure(), Some(Failure::Error(Some(libc::ENOSPC))));
        assert!(out.write_all(b"more").is_err());
        assert!(out.flush().is_err());
        let _ = out;
        assert_eq!(full.taken, b"abcd");
    }

    #[test]
    fn a_closed_pipe_is_told_apart() {
        let mut full = Full {
            room: 0,
            errno: libc::EPIPE,
            taken: Vec::new(),
        };
        let mut out = Checked::new(&mut full);
        let _ = out.write_all(b"x");
        assert_eq!(out.failure(), Some(Failure::ClosedPipe));
    }

    #[test]
    fn no_failure_no_word() {
        let mut sink = Vec::new();
        let mut out = Checked::new(&mut sink);
        out.write_all(b"report\n").unwrap();
        out.flush().unwrap();
        assert_eq!(out.failure(), None);
    }
}
