//! Sector-level operations: `--read-sector` (reference §4.9), with the raw-device check of §6.5.
//!
//! Must not: send a sector command to a partition or any node whose LBAs are not the drive's
//! (the raw-device check comes first, and a refusal sends nothing).

use super::Ctx;
use crate::ata::command::{op, Protocol, TaskFile, LBA28_LIMIT};
use crate::error::{Error, ErrorClass};

/// Refuses a sector operation on a partition (its LBAs would not be the drive's).
///
/// hdparm's check looks up the geometry, which sizes sectors from IDENTIFY (its
/// `get_current_sector_size`) on any node but a character device: the drive gets that
/// IDENTIFY (once per process, as hdparm caches it) before the check, so it is read here too.
pub(crate) fn check_whole_device(ctx: &mut Ctx, lba: u64) -> bool {
    geometry_identify(ctx);
    match ctx.dev.partition_refusal(lba) {
        None => true,
        // The start could not be found (no geometry: a file, a directory, a loop device):
        // the device cannot do this, as hdparm's ENOTTY exit says, and the line says which
        // device it was. A partition's refusal ("Aborting.") stays a usage error.
        Some(text)
            if text.starts_with(" HDIO_GETGEO failed")
                || text.starts_with(" BLKGETSIZE failed") =>
        {
            // The geometry ioctl failed, but what was asked is a sector command, which is an ATA
            // request: the ATA note (a loop device's "no ATA interface") is the real reason;
            // a CD-ROM takes ATA commands, and it is the sr driver that has no geometry.
            let why = if ctx.dev.kind_name() == "cdrom" {
                format!(
                    "{}; the CD-ROM driver has no geometry",
                    ctx.dev.plain_description()
                )
            } else {
                ctx.dev.description()
            };
            let message = format!("{text} ({why})");
            ctx.out.error(&Error::not_applicable(message));
            false
        }
        Some(text) => {
            ctx.out.error(&Error::usage(text));
            false
        }
    }
}

/// The IDENTIFY of hdparm's raw-device check (its geometry lookup's sector size), which it
/// skips for a character device.
pub(crate) fn geometry_identify(ctx: &mut Ctx) {
    if !matches!(ctx.dev.kind_name().as_str(), "scsi_generic" | "char_device") {
        let _ = ctx.dev.identify();
    }
}

/// A sector read that succeeded, ATA or NVMe: hdparm's hex dump, and the bytes in JSON.
pub(super) fn sector_read(ctx: &mut Ctx, lba: u64, data: &[u8]) {
    ctx.out.text("succeeded\n");
    ctx.out.text(&crate::report::hexdump::sector_dump(data));
    ctx.out.put(&crate::report::sections::ReadSector {
        lba,
        bytes: data.len(),
        data_hex: crate::report::sections::hex(data),
    });
}

/// hdparm's `perror("FAILED")` after a sector command, whichever protocol carried it.
pub(super) fn sector_failed(ctx: &mut Ctx, class: ErrorClass, reason: &str) {
    ctx.out
        .error(&Error::new(class, format!("FAILED: {reason}")));
}

/// `--read-sector LBA`: READ SECTOR(S) (EXT) of one logical sector, dumped in hex.
pub fn read_sector(ctx: &mut Ctx, lba: u64) {
    // hdparm sizes the sector from IDENTIFY first (512 bytes without it), then checks.
    let sector_bytes = sector_bytes(ctx);
    if !check_whole_device(ctx, lba) {
        return;
    }
    let command = if lba >= LBA28_LIMIT {
        op::READ_PIO_EXT
    } else {
        op::READ_PIO
    };
    let mut tf = TaskFile::sector_command(command, lba, 1, Protocol::PioIn, false);
    tf.timeout_secs = 60;
    let mut data = vec![0u8; sector_bytes];
    ctx.out.text(&format!("reading sector {lba}: "));
    match ctx.dev.ata(&tf, &mut data) {
        Ok(_) => sector_read(ctx, lba, &data),
        Err(f) => {
            // A drive aborts a read past its end (IDNF); say that this is why.
            let last = ctx
                .dev
                .size_sectors()
                .ok()
                .map(|sectors| sectors * 512 / sector_bytes as u64)
                .filter(|&count| count > 0 && lba >= count)
                .map(|count| format!(" (sector {lba} is beyond the last sector, {})", count - 1))
                .unwrap_or_default();
            sector_failed(ctx, f.class(), &format!("{}{last}", f.reason));
        }
    }
}

/// The logical sector size hdparm reads and writes a sector with (`get_current_sector_size`):
/// from IDENTIFY words 106 and 117-118, 512 bytes when the drive gives no IDENTIFY. A size
/// IDENTIFY cannot mean (below 512 bytes, above 64 KiB) counts as 512.
pub(crate) fn sector_bytes(ctx: &mut Ctx) -> usize {
    ctx.dev
        .identify()
        .ok()
        .map(|w| crate::ata::identify::Identify::from_words(w).logical_sector_bytes())
        .filter(|b| (512..=65536).contains(b))
        .unwrap_or(512) as usize
}
