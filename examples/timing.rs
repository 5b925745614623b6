//! A stand-in for `hdparm -T/-t/--bench` until the executor calls the timing steps: opens the
//! device as hdparm does, prints hdparm's header, and runs the steps of `hdparm::exec::timing`
//! in hdparm's order (-T, -t, the flush -t implies, then the benchmark).
//!
//! ```text
//! cargo run --release --example timing -- [-T] [-t] [--direct] [--offset N] [--json]
//!     [--bench] [--bench-trials N] [--bench-depth N] [--bench-bs B] [--bench-random]
//!     [--bench-seconds S] [--bench-engine auto|io_uring|threads] DEVICE
//! ```
//!
//! `bench/compare.sh` uses it; the exit status follows `hdparm::error`.

use std::ffi::OsString;
use std::fs::OpenOptions;
use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::PathBuf;
use std::process::ExitCode;

use hdparm::cli::Flags;
use hdparm::device::reader;
use hdparm::error::{Error, Verdict};
use hdparm::exec::timing::{self, TimingContext};
use hdparm::timing::bench::{self, BenchOptions, EngineChoice};

fn parse(args: Vec<OsString>) -> Result<(Flags, PathBuf), String> {
    let mut flags = Flags::default();
    let mut device = None;
    let mut it = args.into_iter().skip(1);
    let mut bench_opts: Option<BenchOptions> = None;
    let value = |it: &mut dyn Iterator<Item = OsString>, name: &str| -> Result<String, String> {
        it.next()
            .and_then(|v| v.into_string().ok())
            .ok_or_else(|| format!("{name}: missing value"))
    };
    while let Some(arg) = it.next() {
        let s = arg.to_string_lossy().to_string();
        match s.as_str() {
            "-T" => flags.time_cache = true,
            "-t" => flags.time_device = true,
            "-tT" | "-Tt" => {
                flags.time_cache = true;
                flags.time_device = true;
            }
            "--direct" => flags.direct = true,
            "--json" => flags.json = true,
            "--offset" => {
                let v = value(&mut it, "--offset")?;
                flags.offset_gib = Some(v.parse().map_err(|_| format!("--offset: bad value {v}"))?);
            }
            _ if s.starts_with("--bench") && s != "--bench-engine" => {
                let name = &s[2..];
                let takes_value = bench::LONG_OPTIONS.iter().any(|(n, v)| *n == name && *v);
                let v = if takes_value {
                    Some(value(&mut it, &s)?)
                } else {
                    None
                };
                bench::apply_option(&mut bench_opts, name, v.as_deref())?;
            }
            "--bench-engine" => {
                bench_opts.get_or_insert_with(BenchOptions::default).engine =
                    match value(&mut it, &s)?.as_str() {
                        "auto" => EngineChoice::Auto,
                        "io_uring" => EngineChoice::IoUring,
                        "threads" => EngineChoice::Threads,
                        other => return Err(format!("--bench-engine: unknown engine {other}")),
                    }
            }
            _ if s.starts_with('-') => return Err(format!("unknown option {s}")),
            _ => device = Some(PathBuf::from(arg)),
        }
    }
    if let Some(o) = &bench_opts {
        o.validate()?;
    }
    flags.bench = bench_opts;
    let device = device.ok_or("no device given")?;
    Ok((flags, device))
}

fn report(verdict: &mut Verdict, stderr: &mut dyn Write, result: Result<(), Error>) {
    if let Err(e) = result {
        let _ = writeln!(stderr, "{}", e.message);
        verdict.record(e.class);
    }
}

fn main() -> ExitCode {
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let terminal = stderr.is_terminal();
    let mut out = stdout.lock();
    let mut err = stderr.lock();
    let (flags, path) = match parse(std::env::args_os().collect()) {
        Ok(p) => p,
        Err(msg) => {
            let _ = writeln!(err, "{msg}");
            return ExitCode::from(22);
        }
    };
    let mut custom = libc::O_NONBLOCK;
    if flags.direct {
        custom |= libc::O_DIRECT;
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(custom)
        .open(&path)
    {
        Ok(f) => f,
        Err(e) => {
            let _ = writeln!(err, "{}: {}", path.display(), hdparm::error::strerror(&e));
            return ExitCode::from(2);
        }
    };
    let _ = write!(out, "\n{}:\n", path.display());
    let _ = out.flush();
    let size_sectors = reader::size_sectors_by_seek(file.as_fd()).ok();
    let ctx = TimingContext {
        path: &path,
        fd: file.as_fd(),
        size_sectors,
        flags: &flags,
    };
    let mut verdict = Verdict::default();
    if flags.time_cache {
        let r = timing::time_cache(&ctx, &mut out, &mut err).map(|_| ());
        report(&mut verdict, &mut err, r);
    }
    if flags.time_device {
        let r = timing::time_device(&ctx, &mut out, &mut err).map(|_| ());
        report(&mut verdict, &mut err, r);
        report(
            &mut verdict,
            &mut err,
            reader::flush_buffer_cache(file.as_fd()),
        );
    }
    if flags.bench.is_some() {
        match timing::bench(&ctx, &mut out, &mut err, terminal) {
            Ok(r) => {
                if flags.json {
                    let _ = writeln!(
                        out,
                        "{}",
                        serde_json::to_string_pretty(&r).unwrap_or_default()
                    );
                }
            }
            Err(e) => report(&mut verdict, &mut err, Err(e)),
        }
    }
    let _ = out.flush();
    ExitCode::from(verdict.exit_status())
}
