//! Security passwords read at run time, and what the process does while it holds one.
//!
//! - `--security-prompt-for-password`: the terminal, with hdparm's prompt and checks (glibc's
//!   `getpass`, then `password is too long (32 chars max)`).
//! - `--security-password-file FILE` (ours, as cryptsetup's `--key-file`): a file, `-` for
//!   standard input, `/dev/fd/N` for a descriptor the caller left open; one trailing newline
//!   is dropped (`echo pw > f` means "pw"), and more than 32 bytes (ATA's password field) is
//!   refused.
//!
//! hdparm reads the prompt while parsing, once; we read either before the first device is
//! opened (`devices.rs` calls [`prepare`]), and the security step of every device takes it from
//! here. From [`prepare`] on, when any device's command line carries a password (whatever its
//! source), the process cannot dump core; the copy held here has its page locked in memory
//! where allowed, and is zeroed when [`forget`] is called after the last device (or when a
//! later read replaces it).
//!
//! Must not: touch the terminal or files itself (`device::sys::tty`, `device::files`), or say
//! where the password came from in any way but [`Source::issuing_words`].

use crate::ata::secret::Secret;
use crate::cli::{DeviceRun, Flags};
use crate::error::Error;
use std::path::PathBuf;
use std::sync::Mutex;

/// Where a device's password comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    /// The word after the security option (hdparm's way).
    Argv,
    /// `--security-prompt-for-password`.
    Prompt,
    /// `--security-password-file FILE`.
    File(PathBuf),
}

impl Source {
    /// Where this command line's password comes from. A dry run reads none (its plan shows
    /// none): the command line's, all zeros when it named another source.
    pub fn of(flags: &Flags) -> Source {
        if flags.dry_run {
            return Source::Argv;
        }
        match &flags.security_password_file {
            Some(path) => Source::File(path.clone()),
            None if flags.security_prompt => Source::Prompt,
            None => Source::Argv,
        }
    }

    /// What the ` Issuing ...` line says in place of `password="..."` when the password was
    /// not given on the command line (None: it was, and hdparm's line is printed).
    pub fn issuing_words(&self) -> Option<String> {
        match self {
            Source::Argv => None,
            Source::Prompt => Some("password from the terminal (not shown)".to_string()),
            Source::File(path) if path.as_os_str() == "-" => {
                Some("password from standard input (not shown)".to_string())
            }
            Source::File(path) => Some(format!("password from {} (not shown)", path.display())),
        }
    }
}

/// The password read, its source, and the lock on its page (dropped after the password is
/// zeroed: fields drop in order).
struct Held {
    source: Source,
    secret: Secret<32>,
    _locked: Option<crate::device::sys::secret::Locked>,
}

/// The password read, for the next devices of the run.
static READ: Mutex<Option<Held>> = Mutex::new(None);

/// hdparm's prompt.
pub const PROMPT: &str = "Please enter the drive password: ";

/// Before the first device: no core dumps when any command line carries a password, and the
/// run-time password read once. An error ends the run before anything is sent.
pub fn prepare(runs: &[DeviceRun]) -> Result<(), Error> {
    let with_password = runs.iter().filter(|r| r.flags.security.is_some());
    let mut first_runtime = None;
    for run in with_password {
        // Best effort: a kernel without prctl cannot dump the password either way we care.
        let _ = crate::device::sys::secret::forbid_core_dumps();
        if first_runtime.is_none() && Source::of(&run.flags) != Source::Argv {
            first_runtime = Some(&run.flags);
        }
    }
    if let Some(flags) = first_runtime {
        read_password(flags)?;
    }
    Ok(())
}

/// The password as the security commands send it (NUL-padded to 32 bytes), read from the
/// terminal or the file the first time it is asked for.
pub fn read_password(flags: &Flags) -> Result<Secret<32>, Error> {
    let source = Source::of(flags);
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(held) = read.as_ref().filter(|h| h.source == source) {
        return Ok(held.secret.clone());
    }
    let secret = match &source {
        Source::File(path) => from_file(path)?,
        _ => from_terminal()?,
    };
    let locked = crate::device::sys::secret::Locked::lock(&secret.as_bytes()[..]).ok();
    let copy = secret.clone();
    *read = Some(Held {
        source,
        secret,
        _locked: locked,
    });
    Ok(copy)
}

/// Zeroes the password held (after the last device).
pub fn forget() {
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    *read = None;
}

fn from_terminal() -> Result<Secret<32>, Error> {
    let mut line = crate::device::sys::tty::read_password(PROMPT).map_err(|e| {
        Error::usage(format!(
            "failed to read a password, errno={}",
            e.raw_os_error().unwrap_or(libc::EIO)
        ))
    })?;
    let password = password_of(&line);
    line.fill(0);
    password
}

/// The longest file that can hold a password: 32 bytes and a newline; one byte more is read
/// to tell a longer one.
const FILE_READ: usize = 34;

fn from_file(path: &std::path::Path) -> Result<Secret<32>, Error> {
    let mut buf = Secret::<FILE_READ>::zeroed();
    let shown = if path.as_os_str() == "-" {
        "standard input".to_string()
    } else {
        path.display().to_string()
    };
    let n = crate::device::files::read_password_file(path, buf.as_mut_bytes()).map_err(|e| {
        Error::usage(format!(
            "--security-password-file: {shown}: {}",
            crate::error::strerror(&e)
        ))
    })?;
    file_password(&buf.as_bytes()[..n]).ok_or_else(|| {
        Error::usage(format!(
            "--security-password-file: {shown}: the password is longer than 32 bytes (the size of ATA's password field)"
        ))
    })
}

/// A password file's bytes as the password: one trailing newline dropped, at most 32 bytes
/// (None when longer). Its bytes are taken as they are (a NUL included), as `hex:` takes them.
pub fn file_password(bytes: &[u8]) -> Option<Secret<32>> {
    let bytes = bytes.strip_suffix(b"\n").unwrap_or(bytes);
    (bytes.len() <= 32).then(|| Secret::from_slice(bytes))
}

/// hdparm's checks on a password read from the terminal: at most 32 bytes; C's `strcpy`
/// stops at a NUL.
pub fn password_of(line: &[u8]) -> Result<Secret<32>, Error> {
    let len = line.iter().position(|&b| b == 0).unwrap_or(line.len());
    if len > 32 {
        return Err(Error::usage("password is too long (32 chars max)"));
    }
    Ok(Secret::from_slice(&line[..len]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_as_hdparm() {
        assert_eq!(&password_of(b"abc").unwrap().as_bytes()[..4], b"abc\0");
        assert_eq!(
            password_of(b"NULL").unwrap().as_bytes()[..4],
            *b"NULL",
            "no NULL word here"
        );
        assert!(password_of(&[b'x'; 32]).is_ok());
        let e = password_of(&[b'x'; 33]).unwrap_err();
        assert_eq!(e.message, "password is too long (32 chars max)");
        assert_eq!(e.class.exit_status(), 22);
        assert_eq!(&password_of(b"ab\0cd").unwrap().as_bytes()[..3], b"ab\0");
    }

    #[test]
    fn a_file_loses_one_newline_and_may_hold_32_bytes() {
        assert_eq!(&file_password(b"pw\n").unwrap().as_bytes()[..3], b"pw\0");
        assert_eq!(&file_password(b"pw").unwrap().as_bytes()[..3], b"pw\0");
        assert_eq!(
            &file_password(b"pw\n\n").unwrap().as_bytes()[..4],
            b"pw\n\0"
        );
        assert_eq!(file_password(b"").unwrap(), Secret::zeroed());
        let mut full = [b'y'; 33];
        full[32] = b'\n';
        assert_eq!(file_password(&full).unwrap().as_bytes(), &[b'y'; 32]);
        assert!(file_password(&[b'y'; 33]).is_none());
    }

    #[test]
    fn the_issuing_line_names_the_source_not_the_password() {
        assert_eq!(Source::Argv.issuing_words(), None);
        assert_eq!(
            Source::File("-".into()).issuing_words().unwrap(),
            "password from standard input (not shown)"
        );
        assert_eq!(
            Source::File("/root/pw".into()).issuing_words().unwrap(),
            "password from /root/pw (not shown)"
        );
    }
}
