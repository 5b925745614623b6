//! Executes an invocation: parse errors and help texts, the file helpers, and per device
//! hdparm's fixed order of steps (reference §3), with every device processed even when an
//! earlier one failed (hdparm stops at the first; see DIFFERENCES.md).
//!
//! This is the only place that decides what is printed where for a whole run; the steps
//! themselves live in the submodules, and the exit status comes from [`crate::error::Verdict`].

use crate::cli::{self, parse::ParseError, Invocation};
use crate::error::{Error, ErrorClass, Verdict};
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
    // With --json, stdout is one JSON document whatever happens, as `smartctl -j` does: a
    // usage error, -h and -V are documents too. A command line that failed to parse has no
    // flags to ask, so the word itself is looked for (long options are case-insensitive).
    let json = wants_json(args);
    if json {
        return run_json(
            args,
            parsed,
            &program,
            stdin,
            stdout,
            stderr,
            stderr_is_terminal,
        );
    }
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
            identify_stdin(stdin, &mut out);
            return out.finish();
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
        other => {
            if let Some(text) = unbuilt_invocation(&other) {
                let _ = writeln!(stderr, "{text}");
                verdict.record(ErrorClass::NotApplicable);
            }
        }
    }
    let _ = stdout.flush();
    verdict.exit_status()
}

/// Whether the command line asks for JSON: a word equal to `--json`, in any case.
fn wants_json(args: &[OsString]) -> bool {
    args.iter()
        .skip(1)
        .any(|a| a.to_string_lossy().eq_ignore_ascii_case("--json"))
}

/// [`run`] with `--json`: everything goes into one document on stdout, text only to stderr.
fn run_json(
    args: &[OsString],
    parsed: cli::parse::Parsed,
    program: &str,
    stdin: &mut dyn std::io::Read,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    if let Ok(Invocation::Apply(request)) = &parsed.result {
        // --apply and --check write their own document (see apply.rs).
        return apply::run_apply(request, args, stdout, stderr);
    }
    let mut out = Output::new(true, argv_strings(args), stdout, stderr);
    out.set_stderr_is_terminal(stderr_is_terminal);
    // The `security_password:` echo is hdparm's stdout; stdout is the document now.
    for line in parsed.stdout_lines.iter().chain(&parsed.stderr_lines) {
        out.note(line);
    }
    let invocation = match parsed.result {
        Ok(invocation) => invocation,
        Err(error) => {
            // hdparm's text (the usage with its clue...) still goes to stderr; the message
            // says in one line what was wrong.
            let mut text = Vec::new();
            report_parse_error(&error, program, &mut text);
            let text = String::from_utf8_lossy(&text).into_owned();
            out.error_with_text(&Error::usage(parse_error_line(&error, program)), &text);
            return out.finish();
        }
    };
    match invocation {
        Invocation::Help { extended } => {
            let mut text = Vec::new();
            let _ = cli::usage::write_usage(&mut text, program, None, extended);
            out.help(&String::from_utf8_lossy(&text));
        }
        Invocation::SecurityHelp => {
            let mut text = Vec::new();
            let _ = cli::usage::write_security_help(&mut text);
            out.help(&String::from_utf8_lossy(&text));
        }
        // The version is the document's `hdparm_rs.version`.
        Invocation::Version => {}
        Invocation::IdentifyStdin { .. } => identify_stdin(stdin, &mut out),
        Invocation::Devices(runs) => {
            let runs = quiet::loud_for_json(args, runs);
            devices::run_devices(&runs, &mut out);
        }
        other => {
            if let Some(text) = unbuilt_invocation(&other) {
                out.error(&Error::not_applicable(text));
            }
        }
    }
    out.finish()
}

/// `--Istdin`: reads standard input and decodes it.
fn identify_stdin(stdin: &mut dyn std::io::Read, out: &mut Output) {
    match crate::device::files::read_all(stdin) {
        Ok(input) => identify::identify_stdin(&input, out),
        Err(e) => out.error(&Error::os(ErrorClass::Failed, "stdin", &e)),
    }
}

/// The line for an invocation that is parsed but not carried out yet, or `None`.
fn unbuilt_invocation(invocation: &Invocation) -> Option<String> {
    match invocation {
        Invocation::Fibmap { path } => Some(format!(
            "{}: --fibmap is not implemented in hdparm-rs yet",
            path.display()
        )),
        Invocation::Fallocate { path, .. } => Some(format!(
            "{}: --fallocate is not implemented in hdparm-rs yet",
            path.display()
        )),
        // The arms are parsed and checked; running them is not built yet.
        Invocation::Experiment(request) => Some(format!(
            "{}: --experiment is not implemented in hdparm-rs yet; nothing was sent to any device",
            request.device.to_string_lossy()
        )),
        _ => None,
    }
}

/// One line saying what a parse error was, for JSON's `messages` (the text hdparm prints,
/// the usage with its clue, is several lines and goes to stderr).
fn parse_error_line(error: &ParseError, program: &str) -> String {
    match error {
        ParseError::Usage { clue } => {
            format!(
                "bad command line (hdparm's usage clue={clue}); `{program} -h` lists the options"
            )
        }
        ParseError::Message(text) => text.trim().to_string(),
        ParseError::MessageThenUsage { message, clue } => {
            format!("{} (hdparm's usage clue={clue})", message.trim())
        }
        ParseError::SecurityHelp => {
            "bad --security-mode or --user-master letter (the security help is on stderr)"
                .to_string()
        }
    }
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
#[cfg(test)]
mod fake;
mod guards;
mod identify;
mod output;
mod quiet;
mod real;
mod sectors;
mod steps;
pub mod timing;
mod timing_steps;

use output::Output;
