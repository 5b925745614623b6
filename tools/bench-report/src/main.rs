//! bench-report: the analysis half of `bench/compare.sh`, and its start-up harness.
//!
//! * `bench-report RUNS-FILE`: reads the runs the script recorded and prints, per case, each
//!   tool's summary and the paired ratio ours / theirs with its 95% intervals and the verdict
//!   against the case's target (`report.rs`, `cases.rs`). It uses hdparm-rs's own statistics
//!   (`hdparm::stats`), the ones `--experiment` reports with, so the benchmark's claims and
//!   the tool's carry the same kind of uncertainty.
//! * `bench-report spawn CASE TOOL ROUND RUNS STDIN-FILE|- COMMAND...`: runs a command RUNS
//!   times and prints its runs-file line (`spawn.rs`).
//!
//! Must not: decide what is measured (compare.sh does).

mod cases;
mod report;
mod spawn;

use std::ffi::OsString;
use std::process::ExitCode;

const USAGE: &str = "usage: bench-report RUNS-FILE\n       bench-report spawn CASE TOOL ROUND RUNS STDIN-FILE|- COMMAND...";

fn spawn_line(args: &[OsString]) -> Result<String, String> {
    let text = |i: usize| -> Result<String, String> {
        args.get(i)
            .and_then(|a| a.to_str())
            .map(str::to_string)
            .ok_or_else(|| USAGE.to_string())
    };
    let (case, tool, round) = (text(0)?, text(1)?, text(2)?);
    let runs: u32 = text(3)?.parse().map_err(|_| USAGE.to_string())?;
    let stdin = text(4)?;
    let stdin = (stdin != "-").then_some(stdin.as_str());
    let b = spawn::batch(runs, stdin, args.get(5..).unwrap_or(&[]))?;
    Ok(format!(
        "{case} {tool} {round} {:.9} {:.9} 1",
        b.wall_seconds, b.cpu_seconds
    ))
}

fn main() -> ExitCode {
    let args: Vec<OsString> = std::env::args_os().skip(1).collect();
    let result = match args.first().and_then(|a| a.to_str()) {
        Some("spawn") => spawn_line(&args[1..]),
        Some(path) if args.len() == 1 => std::fs::read_to_string(path)
            .map_err(|e| format!("{path}: {e}"))
            .and_then(|text| report::parse(&text).map_err(|e| format!("{path}: {e}")))
            .map(|runs| report::report(&runs)),
        _ => Err(USAGE.to_string()),
    };
    match result {
        Ok(text) => {
            println!("{}", text.trim_end());
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("bench-report: {e}");
            ExitCode::from(2)
        }
    }
}
