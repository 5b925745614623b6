//! The one error type of hdparm-rs and the one place where errors become exit statuses.
//!
//! hdparm 9.65 exits with a raw errno of whatever failed last (and 0 when a query failed
//! quietly). We exit with one of a few documented classes instead; the numbers were chosen to
//! coincide with the errno hdparm returns in the most common case of each class, so scripts that
//! test `$? -eq 22` for a usage error or `-eq 1` for a guard refusal keep working.
//!
//! | status | class | hdparm's errno in the same case |
//! |---|---|---|
//! | 0  | everything asked for succeeded | 0 |
//! | 1  | refused by a guard flag (nothing was sent anywhere); `--check` found drift | 1 (EPERM) |
//! | 2  | a device could not be opened | 2 (ENOENT), 13 (EACCES)... |
//! | 3  | `--no-wake` left a drive in standby alone (ours) | — |
//! | 5  | a command failed on the device, or a read failed | 5 (EIO) |
//! | 22 | usage error: bad option, bad value | 22 (EINVAL) |
//! | 25 | the device cannot do what was asked (not ATA, ioctl not supported) | 25 (ENOTTY) |
//!
//! When several devices fail differently, the exit status is the most severe class seen, in the
//! order usage > guard > command failed > cannot open > not applicable > skipped > drift.

use std::fmt;
use std::io;

/// The class of a failure; decides the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// `--check` found a device that differs from hdparm.conf (the least severe: it is an
    /// answer, not a failure).
    Drift,
    /// `--no-wake` left a sleeping drive alone, so what was asked of it is missing.
    Skipped,
    /// The device cannot do what was asked: not an ATA device, ioctl not supported.
    NotApplicable,
    /// The device node could not be opened.
    CannotOpen,
    /// A command was sent and failed, or a read/write failed.
    Failed,
    /// A guard flag was missing; nothing was sent.
    Guard,
    /// The command line is wrong.
    Usage,
}

impl ErrorClass {
    /// The process exit status for this class (see the module table).
    pub fn exit_status(self) -> u8 {
        match self {
            ErrorClass::Drift => 1,
            ErrorClass::Skipped => 3,
            ErrorClass::NotApplicable => 25,
            ErrorClass::CannotOpen => 2,
            ErrorClass::Failed => 5,
            ErrorClass::Guard => 1,
            ErrorClass::Usage => 22,
        }
    }

    /// The class of a failed system call, decided by its errno: the one errno-to-class mapping
    /// of the crate. The driver lacking the request (ENOTTY, ENOSYS, EOPNOTSUPP), refusing it
    /// for this kind of device (EINVAL) or having no such attribute (ENOENT, ENODEV) means the
    /// device cannot do what was asked; anything else means it tried and failed.
    pub fn of_errno(errno: Option<i32>) -> ErrorClass {
        match errno {
            Some(
                libc::ENOTTY
                | libc::EINVAL
                | libc::EOPNOTSUPP
                | libc::ENOSYS
                | libc::ENOENT
                | libc::ENODEV,
            ) => ErrorClass::NotApplicable,
            _ => ErrorClass::Failed,
        }
    }

    /// [`ErrorClass::of_errno`] of an I/O error.
    pub fn of_io(err: &io::Error) -> ErrorClass {
        ErrorClass::of_errno(err.raw_os_error())
    }

    /// The class behind an exit status of ours (0 is none), for a run inside a run (`--apply`).
    pub fn of_exit_status(status: u8) -> Option<ErrorClass> {
        [
            ErrorClass::Drift,
            ErrorClass::Skipped,
            ErrorClass::NotApplicable,
            ErrorClass::CannotOpen,
            ErrorClass::Failed,
            ErrorClass::Guard,
            ErrorClass::Usage,
        ]
        .into_iter()
        .rev()
        .find(|class| class.exit_status() == status)
    }

    /// A short stable name, used in JSON messages.
    pub fn name(self) -> &'static str {
        match self {
            ErrorClass::Drift => "drift",
            ErrorClass::Skipped => "skipped",
            ErrorClass::NotApplicable => "not_applicable",
            ErrorClass::CannotOpen => "cannot_open",
            ErrorClass::Failed => "failed",
            ErrorClass::Guard => "guard",
            ErrorClass::Usage => "usage",
        }
    }
}

/// An error: its class and the one line a user reads.
#[derive(Debug)]
pub struct Error {
    pub class: ErrorClass,
    /// The complete line shown on stderr, without the trailing newline.
    pub message: String,
    /// The OS error behind it, when there is one.
    pub errno: Option<i32>,
}

impl Error {
    pub fn new(class: ErrorClass, message: impl Into<String>) -> Self {
        Error {
            class,
            message: message.into(),
            errno: None,
        }
    }
    pub fn usage(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::Usage, message)
    }
    pub fn not_applicable(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::NotApplicable, message)
    }
    pub fn failed(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::Failed, message)
    }
    pub fn guard(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::Guard, message)
    }
    /// An OS error with a label, printed as perror does: `label: strerror`.
    pub fn os(class: ErrorClass, label: &str, err: &io::Error) -> Self {
        Error {
            class,
            message: format!("{}: {}", label, strerror(err)),
            errno: err.raw_os_error(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Error {}

pub type Result<T> = std::result::Result<T, Error>;

/// The text C's `strerror` gives for an OS error, as hdparm's `perror` prints it
/// (Rust's Display adds " (os error N)", which hdparm does not print).
pub fn strerror(err: &io::Error) -> String {
    let text = err.to_string();
    match text.rfind(" (os error ") {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

/// The running verdict of one invocation: the worst class seen so far.
#[derive(Debug, Default, Clone, Copy)]
pub struct Verdict {
    worst: Option<ErrorClass>,
}

impl Verdict {
    pub fn record(&mut self, class: ErrorClass) {
        self.worst = Some(match self.worst {
            Some(w) if w >= class => w,
            _ => class,
        });
    }
    pub fn worst(&self) -> Option<ErrorClass> {
        self.worst
    }
    pub fn exit_status(&self) -> u8 {
        self.worst.map_or(0, ErrorClass::exit_status)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worst_class_wins() {
        let mut v = Verdict::default();
        assert_eq!(v.exit_status(), 0);
        v.record(ErrorClass::NotApplicable);
        assert_eq!(v.exit_status(), 25);
        v.record(ErrorClass::Failed);
        v.record(ErrorClass::CannotOpen);
        assert_eq!(v.exit_status(), 5);
        v.record(ErrorClass::Usage);
        assert_eq!(v.exit_status(), 22);
    }

    #[test]
    fn errno_decides_between_cannot_and_failed() {
        for errno in [
            libc::ENOTTY,
            libc::EINVAL,
            libc::EOPNOTSUPP,
            libc::ENOSYS,
            libc::ENOENT,
        ] {
            assert_eq!(
                ErrorClass::of_errno(Some(errno)),
                ErrorClass::NotApplicable,
                "{errno}"
            );
        }
        for errno in [libc::EIO, libc::EPERM, libc::EBUSY, libc::ETIMEDOUT] {
            assert_eq!(
                ErrorClass::of_errno(Some(errno)),
                ErrorClass::Failed,
                "{errno}"
            );
        }
        assert_eq!(ErrorClass::of_errno(None), ErrorClass::Failed);
    }

    #[test]
    fn exit_statuses_map_back_to_their_class() {
        assert_eq!(ErrorClass::of_exit_status(0), None);
        assert_eq!(
            ErrorClass::of_exit_status(25),
            Some(ErrorClass::NotApplicable)
        );
        assert_eq!(ErrorClass::of_exit_status(5), Some(ErrorClass::Failed));
        // 1 is both a guard refusal and --check's drift: the more severe.
        assert_eq!(ErrorClass::of_exit_status(1), Some(ErrorClass::Guard));
    }

    #[test]
    fn strerror_drops_rust_suffix() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
    }
}
