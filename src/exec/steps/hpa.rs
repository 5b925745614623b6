//! The max-address and DCO steps (reference §3 steps 30, 31, 33, 37; §4.5, §5.5):
//! `--dco-identify`, `--dco-restore`, `--dco-setmax N`, and the set of `-N [p]COUNT`, with the
//! DCO read that the `-N` get (in `reports`) shares.
//!
//! The guards (`--dco-restore`, and `-N`/`--dco-setmax` when the drive would shrink) are
//! checked for the whole invocation before anything is sent (`exec/guards.rs`). Must not:
//! send a DEVICE CONFIGURATION SET whose checksum was not verified first.

use super::Ctx;
use crate::ata::command::{op, Protocol, TaskFile};
use crate::ata::dco::{self, feature};
use crate::ata::hpa::{NativeMaxKind, SetMax};
use crate::cli::defs as d;
use crate::error::Error;
use crate::report::hexdump::sector_dump;

/// DEVICE CONFIGURATION IDENTIFY: hdparm's `drive_cmd` with one sector in. Reported under
/// hdparm's label unless `quietly` (the `-N` get's look at the DCO real maximum).
pub(super) fn dco_identify_words(ctx: &mut Ctx, quietly: bool) -> Option<[u16; 256]> {
    let tf = TaskFile::drive_cmd([op::DCO, 0, feature::IDENTIFY, 1]);
    let mut data = [0u8; 512];
    match ctx.dev.ata(&tf, &mut data) {
        Ok(_) => Some(dco::from_le_bytes(&data)),
        Err(f) => {
            if !quietly {
                ctx.ata_failed(" HDIO_DRIVE_CMD(dco_identify) failed", &f);
            }
            None
        }
    }
}

/// Step 30: `--dco-identify`: the checksum verdict, then the decode of §5.5.
pub fn dco_identify(ctx: &mut Ctx) {
    if !ctx.flags.dco_identify {
        return;
    }
    if let Some(words) = dco_identify_words(ctx, false) {
        ctx.out.text(&crate::report::dco::text(&words));
        ctx.out.put(&crate::report::dco::report(&words));
    }
}

/// Step 31: `--dco-restore`: DCO RESTORE (0xB1 feature 0xC0).
pub fn dco_restore(ctx: &mut Ctx) {
    if !ctx.flags.dco_restore {
        return;
    }
    ctx.out.action("dco_restore", &d::DCO_RESTORE);
    if ctx.stopped_before("DEVICE CONFIGURATION RESTORE") {
        return;
    }
    if !ctx.flags.quiet {
        ctx.out.text(" issuing DCO restore command\n");
    }
    ctx.drive_cmd(
        [op::DCO, 0, feature::RESTORE, 0],
        " HDIO_DRIVE_CMD(dco_restore) failed",
    );
}

/// A failure hdparm reports on stdout before it exits (`DCO Checksum FAILED!`): the line on
/// stdout, the verdict and the JSON message, and no later step.
fn stdout_failure(ctx: &mut Ctx, line: &str, why: &str) {
    ctx.out.text(&format!("{line}\n"));
    ctx.out
        .error_with_text(&Error::failed(format!("{}: {why}", ctx.name)), "");
    ctx.stop_device();
}

/// Step 33: `--dco-setmax N`: the drive's DCO IDENTIFY data, checksum verified, with the
/// maximum LBA set to N - 1 and the checksum recomputed, sent back with DEVICE CONFIGURATION
/// SET (0xB1 feature 0xC3, PIO out, 15 s).
pub fn dco_setmax(ctx: &mut Ctx) {
    let Some(sectors) = ctx.flags.dco_setmax else {
        return;
    };
    // hdparm skips it silently without IDENTIFY; we say why nothing was done.
    if ctx.identify().is_none() {
        ctx.identify_unavailable(&d::DCO_SETMAX);
        return;
    }
    ctx.out.action("dco_setmax", &d::DCO_SETMAX);
    if !ctx.flags.quiet {
        ctx.out
            .text(&format!("issuing DCO set command (sectors = {sectors})\n"));
    }
    let Some(words) = dco_identify_words(ctx, false) else {
        stdout_failure(
            ctx,
            "DCO data is NULL!",
            "--dco-setmax: DCO IDENTIFY gave no data",
        );
        return;
    };
    if !dco::checksum_ok(&words) {
        stdout_failure(
            ctx,
            "DCO Checksum FAILED!",
            "--dco-setmax: the DCO IDENTIFY data's checksum is wrong; nothing was set",
        );
        return;
    }
    let new = dco::with_max_sectors(&words, sectors);
    if ctx.flags.verbose {
        ctx.out.text("Original DCO:\n");
        ctx.out.text(&sector_dump(&dco::to_le_bytes(&words)));
        ctx.out.text("New DCO:\n");
        ctx.out.text(&sector_dump(&dco::to_le_bytes(&new)));
    }
    // hdparm sets only the command and feature registers: count and LBA stay 0.
    if ctx.stopped_before("DEVICE CONFIGURATION SET") {
        return;
    }
    let mut tf = TaskFile::new(op::DCO, 0, 0);
    tf.feature = u16::from(feature::SET);
    tf.protocol = Protocol::PioOut;
    tf.timeout_secs = 15;
    let mut data = dco::to_le_bytes(&new);
    if let Err(f) = ctx.dev.ata(&tf, &mut data) {
        ctx.ata_failed("DEVICE CONFIGURATION SET", &f);
        ctx.stop_device();
        return;
    }
    ctx.dev.forget_identify();
}

/// Step 37: `-N [p]COUNT`: SET ACCESSIBLE MAX ADDRESS EXT, or the native-max read followed
/// by SET MAX ADDRESS (EXT); the get (step 66) then prints the result.
pub fn set_max_sectors(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if !f.max_sectors.set {
        return;
    }
    let (count, permanent) = (f.max_sectors.value, f.max_sectors_permanent);
    if !f.quiet && f.max_sectors.get {
        let kind = if permanent { "permanent" } else { "temporary" };
        ctx.out.text(&format!(
            " setting max visible sectors to {count} ({kind})\n"
        ));
    }
    // hdparm skips it silently without IDENTIFY; we say why nothing was done (once: the get,
    // when asked for, says it).
    let Some(id) = ctx.identify() else {
        if !ctx.flags.max_sectors.get {
            ctx.identify_unavailable(&d::MAX_SECTORS);
        }
        return;
    };
    ctx.out.action("set_max_sectors", &d::MAX_SECTORS);
    let amax = id.supports_accessible_max_address();
    let lba48 = id.supports_48bit();
    let set = SetMax::new(amax, lba48, count - 1, permanent);
    let mut none = [0u8; 0];
    // READ NATIVE MAX changes nothing; SET MAX, which must follow it at once, is the command
    // the stop is honoured before (after the read, nothing is lost by not sending it).
    if ctx.stopped_before("SET MAX ADDRESS") {
        return;
    }
    if set.needs_native_read_first {
        // ATA-8: SET MAX ADDRESS must immediately follow READ NATIVE MAX ADDRESS.
        let read = NativeMaxKind::of(false, lba48);
        match ctx.dev.ata(&read.taskfile(), &mut none) {
            Ok(out) => {
                if let Some(line) = read.verbose_line(out.lba).filter(|_| ctx.flags.verbose) {
                    ctx.out.text(&line);
                }
            }
            Err(f) => {
                ctx.ata_failed(read.failure_label(), &f);
                ctx.dev.forget_identify();
                return;
            }
        }
    }
    if ctx.stopped_before("SET MAX ADDRESS") {
        return;
    }
    if let Err(f) = ctx.dev.ata(&set.taskfile, &mut none) {
        ctx.ata_failed(set.failure_label, &f);
    }
    ctx.dev.forget_identify();
}
