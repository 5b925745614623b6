//! The one error type of hdparm-rs and the one place where errors become exit statuses.
//!
//! hdparm 9.65 exits with a raw errno of whatever failed last (and 0 when a query failed
//! quietly). We exit with one of a few documented classes instead. Where hdparm has the case,
//! the number is the errno hdparm returns in its most common instance, so scripts that test
//! `$? -eq 22` for a usage error or `-eq 1` for a guard refusal keep working; the classes hdparm
//! does not have get numbers of their own, one meaning per number (22 excepted: usage and
//! configuration are both "what you asked for is wrong", and hdparm gives both EINVAL).
//!
//! | status | class | meaning | hdparm's errno in the same case |
//! |---|---|---|---|
//! | 0   | —               | everything asked for succeeded | 0 |
//! | 1   | `guard`         | refused: a guard flag was missing; nothing was sent | 1 (EPERM) |
//! | 2   | `cannot_open`   | a device could not be opened (missing, no permission), or went away during the run | 2 (ENOENT), 13 (EACCES)... |
//! | 3   | `skipped`       | a drive was left alone on purpose: asleep under `--no-wake` (not for `--prometheus`, whose metrics say it and exit 0: a sleeping disk is normal there), or busy with another instance's operation (a reader skips it) | — |
//! | 4   | `drift`         | `--check` found a device that differs from hdparm.conf | — |
//! | 5   | `failed`        | a command failed on the device, or a read or write of it failed | 5 (EIO) |
//! | 6   | `unverified`    | `--check` could not read something it had to compare | — |
//! | 16  | `busy`          | refused: the device is in use (mounted, swap, held, locked by another run); nothing was sent | — |
//! | 22  | `usage`         | usage error: bad option, bad value | 22 (EINVAL) |
//! | 22  | `config`        | hdparm.conf (or `--config FILE`) is wrong | 22 (Debian's hook) |
//! | 25  | `not_applicable`| the device cannot do what was asked (not ATA, ioctl not supported) | 25 (ENOTTY) |
//! | 74  | `output_failed` | the report could not be written: stdout or an output file (EX_IOERR of sysexits.h) | 0 (hdparm ignores it) |
//! | 128+N | `stopped`     | stopped by signal N (SIGINT, SIGTERM, SIGHUP, SIGQUIT): the process re-raises it, so a parent sees it killed by N; 128+N only where that fails | killed by N |
//!
//! When several devices fail differently, the exit status is the most severe class seen, in the
//! order stopped > usage > config > guard > busy > failed > output_failed > cannot_open >
//! unverified > not_applicable > skipped > drift. Guard and busy refusals, and usage and
//! configuration errors, are decided before anything is sent; stopped ends the run.
//!
//! Drift used to share 1 with the guard refusal. They are different answers (a guard refusal
//! means "you forgot a flag", drift means "the drives differ"), and `--apply` maps a command
//! line's status back to its class, which a shared number made ambiguous, so drift has 4.

use std::fmt;
use std::io;

/// The class of a failure; decides the exit status. Declared from the least severe to the most
/// severe: the derived order is the severity order of the module table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum ErrorClass {
    /// `--check` found a device that differs from hdparm.conf (the least severe: it is an
    /// answer, not a failure).
    Drift,
    /// A drive was left alone on purpose (`--no-wake` and a sleeping drive, or a reader that
    /// found another run's exclusive lock), so what was asked of it is missing.
    Skipped,
    /// The device cannot do what was asked: not an ATA device, ioctl not supported.
    NotApplicable,
    /// `--check` could not read a setting or a device it had to compare.
    Unverified,
    /// The device node could not be opened, or the device went away during the run.
    CannotOpen,
    /// The report could not be written (stdout, or a file we were asked to write).
    OutputFailed,
    /// A command was sent and failed, or a read/write failed.
    Failed,
    /// The device is in use (mounted, swap, held by md/dm/LVM, locked by another run); nothing
    /// was sent.
    Busy,
    /// A guard flag was missing; nothing was sent.
    Guard,
    /// The configuration file is wrong.
    Config,
    /// The command line is wrong.
    Usage,
    /// A signal stopped the run (its number). The most severe: nothing after it ran.
    Stopped(i32),
}

impl ErrorClass {
    /// Every class but [`ErrorClass::Stopped`], whose number depends on its signal.
    const FIXED: [ErrorClass; 11] = [
        ErrorClass::Drift,
        ErrorClass::Skipped,
        ErrorClass::NotApplicable,
        ErrorClass::Unverified,
        ErrorClass::CannotOpen,
        ErrorClass::OutputFailed,
        ErrorClass::Failed,
        ErrorClass::Busy,
        ErrorClass::Guard,
        ErrorClass::Config,
        ErrorClass::Usage,
    ];

    /// The process exit status for this class (see the module table).
    pub fn exit_status(self) -> u8 {
        match self {
            ErrorClass::Drift => 4,
            ErrorClass::Skipped => 3,
            ErrorClass::NotApplicable => 25,
            ErrorClass::Unverified => 6,
            ErrorClass::CannotOpen => 2,
            ErrorClass::OutputFailed => 74,
            ErrorClass::Failed => 5,
            ErrorClass::Busy => 16,
            ErrorClass::Guard => 1,
            ErrorClass::Config => 22,
            ErrorClass::Usage => 22,
            // The shell's convention for a process killed by a signal, for when re-raising it
            // did not end the process.
            ErrorClass::Stopped(signal) => 128u8.saturating_add(signal.clamp(0, 127) as u8),
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
    /// 22 is read as usage, the more severe of the two classes that share it.
    pub fn of_exit_status(status: u8) -> Option<ErrorClass> {
        if status > 128 {
            return Some(ErrorClass::Stopped(i32::from(status - 128)));
        }
        ErrorClass::FIXED
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
            ErrorClass::Unverified => "unverified",
            ErrorClass::CannotOpen => "cannot_open",
            ErrorClass::OutputFailed => "output_failed",
            ErrorClass::Failed => "failed",
            ErrorClass::Busy => "busy",
            ErrorClass::Guard => "guard",
            ErrorClass::Config => "config",
            ErrorClass::Usage => "usage",
            ErrorClass::Stopped(_) => "stopped",
        }
    }

    /// Every class with its status and meaning, in the module table's order: what the man
    /// page's EXIT STATUS section and `--help` are checked against.
    pub fn table() -> Vec<(ErrorClass, &'static str)> {
        let mut rows: Vec<(ErrorClass, &'static str)> = ErrorClass::FIXED
            .into_iter()
            .map(|class| (class, class.meaning()))
            .collect();
        rows.sort_by_key(|(class, _)| class.exit_status());
        rows.push((ErrorClass::Stopped(0), ErrorClass::Stopped(0).meaning()));
        rows
    }

    /// One sentence for people: what the class means.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorClass::Drift => "--check found a device that differs from hdparm.conf",
            ErrorClass::Skipped => {
                "a drive was left alone on purpose: asleep under --no-wake (but --prometheus, which exits 0), or busy with another run"
            }
            ErrorClass::NotApplicable => "the device cannot do what was asked",
            ErrorClass::Unverified => "--check could not read something it had to compare",
            ErrorClass::CannotOpen => "a device could not be opened",
            ErrorClass::OutputFailed => "the report could not be written",
            ErrorClass::Failed => "a command failed on the device, or a read or write failed",
            ErrorClass::Busy => "refused: the device is in use; nothing was sent",
            ErrorClass::Guard => "refused: a guard flag was missing; nothing was sent",
            ErrorClass::Config => "the configuration file is wrong",
            ErrorClass::Usage => "usage error: an unknown option, a bad or missing value",
            ErrorClass::Stopped(_) => "stopped by a signal, which ends the process",
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
    pub fn busy(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::Busy, message)
    }
    pub fn config(message: impl Into<String>) -> Self {
        Error::new(ErrorClass::Config, message)
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
        assert_eq!(ErrorClass::of_exit_status(1), Some(ErrorClass::Guard));
        assert_eq!(ErrorClass::of_exit_status(4), Some(ErrorClass::Drift));
        // 22 is both usage and configuration: the more severe.
        assert_eq!(ErrorClass::of_exit_status(22), Some(ErrorClass::Usage));
        assert_eq!(
            ErrorClass::of_exit_status(143),
            Some(ErrorClass::Stopped(libc::SIGTERM))
        );
    }

    #[test]
    fn each_number_means_one_class_but_22() {
        let mut seen = std::collections::HashMap::new();
        for (class, _) in ErrorClass::table() {
            if let Some(other) = seen.insert(class.exit_status(), class) {
                assert_eq!(class.exit_status(), 22, "{class:?} and {other:?}");
            }
            if !matches!(class, ErrorClass::Stopped(_)) {
                assert_eq!(
                    ErrorClass::of_exit_status(class.exit_status()).map(|c| c.exit_status()),
                    Some(class.exit_status())
                );
            }
        }
    }

    #[test]
    fn a_signal_is_the_most_severe_and_a_drift_the_least() {
        let mut v = Verdict::default();
        v.record(ErrorClass::Drift);
        assert_eq!(v.exit_status(), 4);
        v.record(ErrorClass::Busy);
        v.record(ErrorClass::Failed);
        assert_eq!(v.exit_status(), 16);
        v.record(ErrorClass::Stopped(libc::SIGINT));
        v.record(ErrorClass::Usage);
        assert_eq!(v.exit_status(), 130);
    }

    #[test]
    fn strerror_drops_rust_suffix() {
        let e = io::Error::from_raw_os_error(libc::ENOENT);
        assert_eq!(strerror(&e), "No such file or directory");
    }
}
