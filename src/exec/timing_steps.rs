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
            result.map(|report| serde_json::to_value(report).unwrap_or_default()),
        );
    }
}

fn file_result(ctx: &mut Ctx, result: Result<serde_json::Value, Error>) {
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
            ctx.out.error(&Error {
                class,
                message: e.message,
                errno: e.errno,
            });
        }
    }
}
