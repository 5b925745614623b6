//! `--security-prompt-for-password`: the password read from the terminal with hdparm's prompt
//! and checks (glibc's `getpass`, then `password is too long (32 chars max)`). hdparm reads it
//! while parsing, once; we read it before the first device is opened (`devices.rs`), and the
//! security step of every device uses it.
//!
//! Must not: touch the terminal itself; `device::sys::tty` does.

use crate::error::Error;
use std::sync::Mutex;

/// The password read, for the next devices of the run.
static READ: Mutex<Option<[u8; 32]>> = Mutex::new(None);

/// hdparm's prompt.
pub const PROMPT: &str = "Please enter the drive password: ";

/// The password as the security commands send it: the line read, NUL-padded to 32 bytes.
pub fn read_password() -> Result<[u8; 32], Error> {
    let mut read = READ.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(bytes) = *read {
        return Ok(bytes);
    }
    let line = crate::device::sys::tty::read_password(PROMPT).map_err(|e| {
        Error::usage(format!(
            "failed to read a password, errno={}",
            e.raw_os_error().unwrap_or(libc::EIO)
        ))
    })?;
    let bytes = password_of(&line)?;
    *read = Some(bytes);
    Ok(bytes)
}

/// hdparm's checks on a password read from the terminal: at most 32 bytes; C's `strcpy`
/// stops at a NUL.
pub fn password_of(line: &[u8]) -> Result<[u8; 32], Error> {
    let len = line.iter().position(|&b| b == 0).unwrap_or(line.len());
    if len > 32 {
        return Err(Error::usage("password is too long (32 chars max)"));
    }
    let mut bytes = [0u8; 32];
    bytes[..len].copy_from_slice(&line[..len]);
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checks_as_hdparm() {
        assert_eq!(&password_of(b"abc").unwrap()[..4], b"abc\0");
        assert_eq!(
            password_of(b"NULL").unwrap()[..4],
            *b"NULL",
            "no NULL word here"
        );
        assert!(password_of(&[b'x'; 32]).is_ok());
        let e = password_of(&[b'x'; 33]).unwrap_err();
        assert_eq!(e.message, "password is too long (32 chars max)");
        assert_eq!(e.class.exit_status(), 22);
        assert_eq!(&password_of(b"ab\0cd").unwrap()[..3], b"ab\0");
    }
}
