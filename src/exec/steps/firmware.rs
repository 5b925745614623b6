//! Step 41 (reference §3, §4.10): `--fwdownload*`, DOWNLOAD MICROCODE of a firmware file, as
//! hdparm 9.65's fwdownload.c sends it: the raw-device check with its own line, IDENTIFY, the
//! file's checks, the support check, the banner on stderr, then one command per segment with a
//! `.` after each (segmented modes), and ` Done.` at the end.
//!
//! The guard flags (--yes-i-know-what-i-am-doing and --please-destroy-my-drive) were checked
//! before anything was sent to any device. The plan (mode, segment size, registers) is
//! [`crate::ata::fwdownload`]'s; this file only sends and reports.
//!
//! Must not: send a segment before every check passed, or go on after a segment failed or
//! the drive said something that contradicts the file.

use super::Ctx;
use crate::ata::fwdownload::{self, after_segment, Next, Plan, SegmentStatus};
use crate::cli::defs as d;
use crate::cli::FwMode;
use crate::device::files;
use crate::error::{Error, ErrorClass};
use crate::exec::lost::Operation as Left;

/// hdparm's line for a partition (instead of the sector commands' advice).
const NOT_RAW: &str = "--fwdownload requires the raw device, not a partition.";

/// The raw-device check of `--fwdownload`: the sector commands' check, with hdparm's own
/// one-line message for a partition.
fn whole_device(ctx: &mut Ctx) -> bool {
    // hdparm's check reads IDENTIFY (its geometry lookup) before it looks at the start.
    super::raw_device::geometry_identify(ctx);
    match ctx.dev.partition_refusal(0) {
        Some(text) if text.starts_with("Device ") => {
            ctx.out
                .error(&Error::usage(format!("{NOT_RAW}\nAborting.")));
            false
        }
        Some(_) => super::raw_device::check_whole_device(ctx, 0),
        None => true,
    }
}

/// What a drive holds after a download stopped between two segments (the stop report).
pub fn partial_image(sent: u64, len: u64) -> String {
    format!(
        "the drive holds a partial firmware image ({sent} of {len} bytes sent); it keeps running its current firmware until it gets a whole image: run --fwdownload again with the whole file before resetting or power-cycling it"
    )
}

/// Step 41.
pub fn fwdownload(ctx: &mut Ctx) {
    let Some((mode, path)) = ctx.flags.fwdownload.clone() else {
        return;
    };
    ctx.out.action("fwdownload", &d::FWDOWNLOAD);
    if !whole_device(ctx) {
        ctx.stop_device();
        return;
    }
    let words = match ctx.dev.identify() {
        Ok(w) => w,
        Err(_) => {
            // hdparm skips the download silently without IDENTIFY; a firmware update that did
            // not happen must not look like one that did.
            ctx.identify_unavailable(&d::FWDOWNLOAD);
            return;
        }
    };
    // hdparm exits when the download failed.
    if !download(ctx, mode, &path, &words) {
        ctx.stop_device();
    }
}

/// The download itself; false when it failed (hdparm then exits).
fn download(ctx: &mut Ctx, mode: FwMode, path: &std::path::Path, words: &[u16; 256]) -> bool {
    let name = path.to_string_lossy().into_owned();
    let file = match files::read_firmware(path, fwdownload::MAX_BYTES) {
        Ok(f) => f,
        Err(e) => {
            ctx.out.error(&Error::os(ErrorClass::CannotOpen, &name, &e));
            return false;
        }
    };
    if let Some(problem) = fwdownload::file_problem(&name, file.is_regular, file.len) {
        ctx.out.error(&Error::usage(problem));
        return false;
    }
    if ctx.flags.verbose {
        ctx.out.text(&format!("{name}: {} bytes\n", file.len));
    }
    if !fwdownload::supported(words) {
        ctx.out.error(&Error::not_applicable(
            "DOWNLOAD_MICROCODE: not supported by device",
        ));
        return false;
    }
    let plan = Plan::new(mode, words, file.len);
    ctx.out.note(&plan.banner());
    let segmented = plan.segmented();
    let segments = plan.segments(file.len).len() as u64;
    let mut sent = 0u64;
    for (segment, (offset, bytes)) in (1..).zip(plan.segments(file.len)) {
        // The current command of a download is the segment being sent: a stop is honoured
        // before each one.
        if ctx.stop_requested() {
            if segmented {
                ctx.out.text("\n");
            }
            if sent == 0 {
                ctx.stopped_before("DOWNLOAD MICROCODE");
            } else {
                ctx.interrupted(partial_image(sent, file.len));
            }
            return false;
        }
        let tf = plan.segment_command(offset, bytes);
        let start = offset as usize;
        let mut data = file.bytes[start..start + bytes as usize].to_vec();
        let answer = ctx.dev.ata(&tf, &mut data);
        sent = offset + bytes;
        let out = match answer {
            Ok(out) => out,
            Err(f) => {
                if segmented {
                    ctx.out.text("\n");
                }
                ctx.ata_failed("FAILED", &f);
                let op = Left::Firmware {
                    segment,
                    segments,
                    at: offset,
                    total: file.len,
                };
                ctx.left_in(op, &f);
                return false;
            }
        };
        let status = if segmented {
            if !ctx.flags.verbose {
                ctx.out.text(".");
            }
            SegmentStatus::from_count(out.count)
        } else {
            SegmentStatus::NoIndication
        };
        if let Next::Fail(lines) = after_segment(status, sent, file.len) {
            if segmented {
                ctx.out.text("\n");
            }
            ctx.out.error(&Error::failed(lines.join("\n")));
            return false;
        }
    }
    ctx.out.put(&crate::report::sections::Fwdownload {
        file: name.to_string(),
        bytes: sent,
        xfer_mode: plan.xfer_mode,
        segment_bytes: plan.segment_bytes,
    });
    ctx.out.text(" Done.\n");
    true
}
