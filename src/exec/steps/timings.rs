//! Steps 67-69 of hdparm's order: `-T`, `-F`, `-t`, then our `--bench`. The measuring is in
//! [`crate::exec::measure`] and [`crate::timing`]; this file only calls it in order and files the
//! results (text as it is printed, JSON as data, errors on stderr and in the verdict).

use super::{flush_drive_cache, Ctx};
use crate::cli::defs::{self as d, OptionDef};
use crate::error::{Error, ErrorClass};
use crate::exec::measure::{bench, time_cache, time_device, TimingContext};

/// Whether reads can be timed on this device at all.
fn timable(ctx: &mut Ctx, def: &OptionDef) -> bool {
    let option = def.spelling();
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

/// Whether a disk's reads can be timed: `-t` measures a disk, and a character device that is
/// no disk (`/dev/zero`) would give a figure that means nothing (hdparm prints one and exits
/// 0; DIFFERENCES.md `exit:timing-char-device`). SCSI generic and NVMe character nodes have
/// kind names of their own and are not refused here. `-T` times the page cache, not the
/// device, and `--bench` reopens the node with O_DIRECT, which says for itself why it cannot.
fn disk_timable(ctx: &mut Ctx, def: &OptionDef) -> bool {
    let option = def.spelling();
    if !timable(ctx, def) {
        return false;
    }
    if ctx.dev.kind_name() == "char_device" {
        let message = format!(
            "{}: {option} times reads from a disk: {}",
            ctx.name,
            ctx.dev.plain_description()
        );
        ctx.out.error(&Error::not_applicable(message));
        return false;
    }
    true
}

pub fn run(ctx: &mut Ctx) {
    let f = ctx.flags.clone();
    if f.time_cache && timable(ctx, &d::TIME_CACHE) {
        measure(ctx, &d::TIME_CACHE, |t, out, err| {
            time_cache(t, out, err).map(to_json)
        });
    }
    if f.flush_drive_cache {
        ctx.out.action("flush_drive_cache", &d::FLUSH_DRIVE_CACHE);
        flush_drive_cache(ctx);
        // A failure of the timings after it is not the flush's.
        ctx.out.end_step();
    }
    if f.time_device && disk_timable(ctx, &d::TIME_DEVICE) {
        measure(ctx, &d::TIME_DEVICE, |t, out, err| {
            time_device(t, out, err).map(to_json)
        });
    }
    if f.bench.is_some() && timable(ctx, &d::BENCH) {
        // Progress only on a terminal: the stderr writer's, which the caller knows, not the
        // process's own.
        let progress = ctx.out.stderr_is_terminal();
        measure(ctx, &d::BENCH, |t, out, err| {
            bench(t, out, err, progress).map(to_json)
        });
    }
}

fn to_json<T: serde::Serialize>(value: T) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or_default()
}

/// Runs one timing on the device's descriptor with both output streams, and files its result.
fn measure(
    ctx: &mut Ctx,
    option: &OptionDef,
    timing: impl FnOnce(
        &TimingContext<'_>,
        &mut dyn std::io::Write,
        &mut dyn std::io::Write,
    ) -> Result<serde_json::Value, Error>,
) {
    let flags = ctx.flags.clone();
    let path = std::path::PathBuf::from(&ctx.name);
    let size_sectors = ctx.dev.size_sectors().ok();
    let result = {
        let tctx = TimingContext {
            path: &path,
            fd: ctx.dev.fd(),
            size_sectors,
            flags: &flags,
        };
        let (stdout, stderr) = ctx.out.streams();
        timing(&tctx, stdout, stderr)
    };
    file_result(ctx, &option.spelling(), result);
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
