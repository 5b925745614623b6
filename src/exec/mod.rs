//! Executes an invocation: parse errors and help texts, the file helpers, and per device
//! hdparm's fixed order of steps (reference §3), with every device processed even when an
//! earlier one failed (hdparm stops at the first; see DIFFERENCES.md).
//!
//! This is the only place that decides what is printed where for a whole run; the steps
//! themselves live in the submodules, and the exit status comes from [`crate::error::Verdict`].

use crate::cli::{self, parse::ParseError, Invocation};
use crate::error::{ErrorClass, Verdict};
use std::ffi::OsString;
use std::io::Write;

/// Runs a whole command line; returns the exit status. `stdin` is read by `--Istdin` only.
pub fn run(args: &[OsString], streams: crate::Streams<'_>) -> u8 {
    let crate::Streams {
        stdin,
        stdout,
        stderr,
        stderr_is_terminal,
    } = streams;
    let program = crate::program_name(args);
    let parsed = cli::parse(args);
    for line in &parsed.stdout_lines {
        let _ = writeln!(stdout, "{line}");
    }
    for line in &parsed.stderr_lines {
        let _ = writeln!(stderr, "{line}");
    }
    let invocation = match parsed.result {
        Ok(invocation) => invocation,
        Err(error) => {
            let _ = stdout.flush();
            report_parse_error(&error, &program, stderr);
            return ErrorClass::Usage.exit_status();
        }
    };
    let mut verdict = Verdict::default();
    match invocation {
        Invocation::Help { extended } => {
            let _ = cli::usage::write_usage(stdout, &program, None, extended);
        }
        Invocation::Version => {
            let _ = writeln!(stdout, "{program} v{}", env!("CARGO_PKG_VERSION"));
        }
        Invocation::SecurityHelp => {
            let _ = cli::usage::write_security_help(stdout);
        }
        Invocation::IdentifyStdin { json } => {
            let mut out = Output::new(json, argv_strings(args), stdout, stderr);
            match crate::device::files::read_all(stdin) {
                Ok(input) => identify::identify_stdin(&input, &mut out),
                Err(e) => out.error(&crate::error::Error::os(ErrorClass::Failed, "stdin", &e)),
            }
            return out.finish();
        }
        Invocation::Fibmap { path } => {
            let _ = writeln!(
                stderr,
                "{}: --fibmap is not implemented in hdparm-rs yet",
                path.display()
            );
            verdict.record(ErrorClass::NotApplicable);
        }
        Invocation::Fallocate { path, .. } => {
            let _ = writeln!(
                stderr,
                "{}: --fallocate is not implemented in hdparm-rs yet",
                path.display()
            );
            verdict.record(ErrorClass::NotApplicable);
        }
        Invocation::Experiment(request) => {
            return experiment::run_experiment(&request, args, stdout, stderr, stderr_is_terminal);
        }
        Invocation::Apply(request) => {
            return apply::run_apply(&request, args, stdout, stderr);
        }
        Invocation::Devices(runs) => {
            let json = runs.iter().any(|r| r.flags.json);
            let mut out = Output::new(json, argv_strings(args), stdout, stderr);
            out.set_stderr_is_terminal(stderr_is_terminal);
            devices::run_devices(&runs, &mut out);
            return out.finish();
        }
    }
    let _ = stdout.flush();
    verdict.exit_status()
}

/// Prints a parse error the way hdparm does.
fn report_parse_error(error: &ParseError, program: &str, stderr: &mut dyn Write) {
    match error {
        ParseError::Usage { clue } => {
            let _ = cli::usage::write_usage(stderr, program, Some(*clue), false);
        }
        ParseError::Message(text) => {
            let _ = writeln!(stderr, "{text}");
        }
        ParseError::MessageThenUsage { message, clue } => {
            let _ = writeln!(stderr, "{message}");
            let _ = cli::usage::write_usage(stderr, program, Some(*clue), false);
        }
        ParseError::SecurityHelp => {
            let _ = cli::usage::write_security_help(stderr);
        }
    }
}

/// argv as strings, for the JSON envelope.
fn argv_strings(args: &[OsString]) -> Vec<String> {
    args.iter()
        .map(|a| a.to_string_lossy().into_owned())
        .collect()
}

mod access;
mod apply;
mod devices;
mod experiment;
#[cfg(test)]
mod fake;
mod get_value;
mod guards;
mod identify;
mod output;
mod real;
mod sectors;
mod steps;
pub mod timing;
mod timing_steps;

use output::Output;
