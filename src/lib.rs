//! hdparm-rs: get/set ATA/SATA drive parameters, a drop-in re-implementation of hdparm 9.65.
//!
//! The pipeline: [`cli::parse`] turns argv into an [`cli::Invocation`] with no system calls;
//! [`exec`] runs each device's plan in hdparm's fixed order, talking to the kernel only through
//! [`device`]; reports are rendered by [`report`] as hdparm's text or as JSON; the exit status
//! is decided in [`error`].
//!
//! Layering: `cli`, `ata`, `report` and `timing` are pure and never import `device`.
//! All `unsafe` lives in `device::sys`.

#![deny(unsafe_code)]

pub mod ata;
pub mod cli;
pub mod device;
pub mod error;
pub mod exec;
pub mod report;
pub mod timing;

use std::ffi::OsString;
use std::io::{Read, Write};

/// The program's name as hdparm prints it in usage and `-V` (the basename of argv[0]).
pub fn program_name(args: &[OsString]) -> String {
    args.first()
        .map(|a| {
            let s = a.to_string_lossy();
            match s.rfind('/') {
                Some(i) => s[i + 1..].to_string(),
                None => s.to_string(),
            }
        })
        .unwrap_or_else(|| "hdparm".to_string())
}

/// Runs one invocation of the tool with the process's standard input and returns the exit
/// status: [`run_with_stdin`] with `std::io::stdin()`.
pub fn run(args: &[OsString], stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    run_with_stdin(args, &mut std::io::stdin(), stdout, stderr)
}

/// Runs one invocation of the tool and returns the exit status. This is what the binary calls;
/// `stdin` is read only by the options that read standard input (`--Istdin`). Tests and fuzz
/// targets call it with in-memory streams.
pub fn run_with_stdin(
    args: &[OsString],
    stdin: &mut dyn Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    exec::run(args, stdin, stdout, stderr)
}
