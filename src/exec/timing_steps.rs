//! Steps 67-69 of hdparm's order: `-T`, `-F`, `-t`, then our `--bench`. The measuring is in
//! [`super::timing`] and [`crate::timing`]; this file only calls it in order and files the
//! results (text as it is printed, JSON as data, errors on stderr and in the verdict).

use super::steps::{flush_drive_cache, Ctx};
use super::timing::{bench, time_cache, time_device, TimingContext};
use crate::error::{Error, ErrorClass};
use std::io::IsTerminal;

/// Whether reads can be timed on this device at all.
fn timable(ctx: &mut Ctx, option: &str) -> bool {
    if ctx.dev.is_directory() {
        let message = format!(
            "{}: {option} times reads of a device or file; this is a directory",
            ctx.name
        );
        ctx.out.error(&Error::not_applicable(message));
        return false;
    }
    true
}

pub fn run(ctx: &mut Ctx) {
    let f = ctx.flags.clone();
    let size_sectors = ctx.dev.size_sectors().ok();
    let path = std::path::PathBuf::from(&ctx.name);
    if f.time_cache && timable(ctx, "-T") {
        let result = {
            let tctx = TimingContext {
                path: &path,
                fd: ctx.dev.fd(),
                size_sectors,
                flags: &f,
            };
            let (stdout, stderr) = ctx.out.streams();
            time_cache(&tctx, stdout, stderr)
        };
        file_result(
            ctx,
            "-T",
            result.map(|fig| serde_json::to_value(fig).unwrap_or_default()),
        );
    }
    if f.flush_drive_cache {
        flush_drive_cache(ctx);
    }
    if f.time_device && timable(ctx, "-t") {
        let result = {
            let tctx = TimingContext {
                path: &path,
                fd: ctx.dev.fd(),
                size_sectors,
                flags: &f,
            };
            let (stdout, stderr) = ctx.out.streams();
            time_device(&tctx, stdout, stderr)
        };
        file_result(
            ctx,
            "-t",
            result.map(|fig| serde_json::to_value(fig).unwrap_or_default()),
        );
    }
    if f.bench.is_some() && timable(ctx, "--bench") {
        let progress = std::io::stderr().is_terminal();
        let result = {
            let tctx = TimingContext {
                path: &path,
                fd: ctx.dev.fd(),
                size_sectors,
                flags: &f,
            };
            let (stdout, stderr) = ctx.out.streams();
            bench(&tctx, stdout, stderr, progress)
        };
        file_result(
            ctx,
            "--bench",
            result.map(|report| serde_json::to_value(report).unwrap_or_default()),
        );
    }
}

/// hdparm's timing messages (`read() hit EOF - device too small`, `lseek() failed: ...`)
/// name neither the device nor the option; this says which, and why where it is known.
fn context(ctx: &Ctx, option: &str, e: &Error) -> String {
    let name = &ctx.name;
    if e.message.starts_with(name.as_str()) {
        // --bench opens the device again with O_DIRECT, which some nodes refuse with EINVAL.
        if e.errno == Some(libc::EINVAL) && e.class == ErrorClass::CannotOpen {
            return format!(
                "{} ({option} reads with O_DIRECT, which {name} does not support)",
                e.message
            );
        }
        return e.message.clone();
    }
    let why = match (e.errno, ctx.flags.offset_gib) {
        (Some(libc::EINVAL), Some(gib)) if e.message.starts_with("lseek()") => {
            format!("--offset {gib} GB is past the end of the device")
        }
        _ => option.to_string(),
    };
    format!("{} ({name}: {why})", e.message)
}

fn file_result(ctx: &mut Ctx, option: &str, result: Result<serde_json::Value, Error>) {
    match result {
        Ok(value) => ctx.out.section("timing", value),
        Err(e) => {
            // A timing that failed halfway leaves hdparm's prefix without a newline; the error
            // line follows it on stderr and no figure is printed.
            let class = if e.class == ErrorClass::Usage {
                ErrorClass::Usage
            } else {
                e.class
            };
            let message = context(ctx, option, &e);
            ctx.out.error(&Error {
                class,
                message,
                errno: e.errno,
            });
        }
    }
}
