//! Reading a password from the terminal without echo, as glibc's `getpass(3)` does for
//! hdparm's `--security-prompt-for-password`: the prompt on `/dev/tty` (stderr and stdin when
//! there is none), echo off while the line is read, the newline dropped.
//!
//! Owns: the two `tcsetattr` calls. Must not: judge the password (length rules are the
//! caller's).

use std::fs::OpenOptions;
use std::io::{self, Read, Write};
use std::os::fd::AsRawFd;

/// Echo (and signal keys, as glibc) switched off on a terminal while alive; restored on drop.
struct EchoOff {
    fd: i32,
    saved: libc::termios,
}

impl EchoOff {
    fn on(fd: i32) -> Option<EchoOff> {
        // SAFETY: a zeroed termios is a valid out-parameter for tcgetattr.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        // SAFETY: `saved` is a live termios borrowed for the call; a bad fd only fails.
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return None;
        }
        let mut quiet = saved;
        quiet.c_lflag &= !(libc::ECHO | libc::ISIG);
        // SAFETY: `quiet` is a valid termios copied from the terminal's own.
        if unsafe { libc::tcsetattr(fd, libc::TCSAFLUSH, &quiet) } != 0 {
            return None;
        }
        Some(EchoOff { fd, saved })
    }
}

impl Drop for EchoOff {
    fn drop(&mut self) {
        // SAFETY: `saved` is the terminal's settings read in `on`, for the same descriptor.
        unsafe { libc::tcsetattr(self.fd, libc::TCSAFLUSH, &self.saved) };
    }
}

/// Prints `prompt`, reads one line with echo off, and returns it without its newline.
pub fn read_password(prompt: &str) -> io::Result<Vec<u8>> {
    match OpenOptions::new().read(true).write(true).open("/dev/tty") {
        Ok(tty) => {
            let mut output = tty.try_clone()?;
            let fd = tty.as_raw_fd();
            read_line(prompt, fd, tty, &mut output)
        }
        // Not `io::stdin()`: the run holds its lock (for `--Istdin`), and a second lock would
        // wait forever.
        Err(_) => read_line(prompt, libc::STDIN_FILENO, RawStdin, &mut io::stderr()),
    }
}

/// Standard input read through its descriptor, one call per read.
struct RawStdin;

impl Read for RawStdin {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // SAFETY: `buf` is a live, writable buffer of `buf.len()` bytes for the call.
        let n = unsafe { libc::read(libc::STDIN_FILENO, buf.as_mut_ptr().cast(), buf.len()) };
        if n < 0 {
            Err(io::Error::last_os_error())
        } else {
            Ok(n as usize)
        }
    }
}

fn read_line(
    prompt: &str,
    fd: i32,
    input: impl Read,
    output: &mut dyn Write,
) -> io::Result<Vec<u8>> {
    output.write_all(prompt.as_bytes())?;
    output.flush()?;
    let echo = EchoOff::on(fd);
    let mut line = Vec::new();
    // One byte at a time: what follows the line stays unread, as for getpass.
    let read = read_until_newline(input, &mut line);
    let changed = echo.is_some();
    drop(echo);
    read?;
    if line.last() == Some(&b'\n') {
        line.pop();
        if changed {
            let _ = output.write_all(b"\n");
        }
    }
    Ok(line)
}

fn read_until_newline(mut input: impl Read, line: &mut Vec<u8>) -> io::Result<()> {
    let mut byte = [0u8; 1];
    loop {
        match input.read(&mut byte) {
            Ok(0) => return Ok(()),
            Ok(_) => {
                line.push(byte[0]);
                if byte[0] == b'\n' {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
}
