//! hdparm-rs: get/set ATA/SATA drive parameters, a drop-in re-implementation of hdparm 9.65.
//!
//! The pipeline: [`cli::parse`] turns argv into an [`cli::Invocation`] with no system calls;
//! [`exec`] runs each device's plan in hdparm's fixed order, talking to the kernel only through
//! [`device`]; reports are rendered by [`report`] as hdparm's text or as JSON; the exit status
//! is decided in [`error`].
//!
//! Layering: `cli`, `ata`, `nvme`, `config`, `digest`, `report` and `timing` are pure and never import `device`.
//! All `unsafe` lives in `device::sys`.

#![deny(unsafe_code)]
// A failure is reported and the next device still runs: nothing may abort the process outside
// tests (style.md habit 4).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

pub mod advise;
pub mod ata;
pub mod cli;
pub mod config;
pub mod device;
pub mod digest;
pub mod error;
pub mod exec;
pub mod nvme;
pub mod report;
pub mod scsi;
pub mod stats;
pub mod timing;

use std::ffi::OsString;
use std::io::{Read, Write};

/// The program's name as hdparm prints it in usage and `-V` (the basename of `argv[0]`).
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

/// The streams of one run, as the binary hands them over.
pub struct Streams<'a> {
    /// Read only by the options that read standard input (`--Istdin`).
    pub stdin: &'a mut dyn Read,
    pub stdout: &'a mut dyn Write,
    /// hdparm's messages, and the `--verbose` dumps.
    pub stderr: &'a mut dyn Write,
    /// Whether `stderr` is a terminal: long measurements (`--bench`) redraw a progress line
    /// there and stay quiet otherwise. The library never asks the process's own stderr.
    pub stderr_is_terminal: bool,
}

impl<'a> Streams<'a> {
    /// Streams whose stderr is not a terminal (in-memory buffers, files, pipes).
    pub fn new(
        stdin: &'a mut dyn Read,
        stdout: &'a mut dyn Write,
        stderr: &'a mut dyn Write,
    ) -> Streams<'a> {
        Streams {
            stdin,
            stdout,
            stderr,
            stderr_is_terminal: false,
        }
    }
}

/// Runs one invocation of the tool with the process's standard input and the given output
/// writers (never treated as a terminal), and returns the exit status.
pub fn run(args: &[OsString], stdout: &mut dyn Write, stderr: &mut dyn Write) -> u8 {
    run_streams(args, Streams::new(&mut std::io::stdin(), stdout, stderr))
}

/// Runs one invocation of the tool and returns the exit status. This is what the binary calls;
/// tests and fuzz targets call it with in-memory streams ([`Streams::new`]).
pub fn run_streams(args: &[OsString], streams: Streams<'_>) -> u8 {
    exec::run(args, streams)
}
