//! The sector-level steps that change the media (reference §3 steps 2, 3, 38, 39, 40, 43;
//! §4.9): `--set-sector-size`, `--trim-sector-ranges-stdin`, `--make-bad-sector`,
//! `--trim-sector-ranges`, `--write-sector`/`--repair-sector`, `--drq-hsm-error`.
//!
//! Each does what hdparm 9.65 does, command for command: the raw-device check of §6.5 first
//! (a refusal sends nothing and ends the device, as hdparm exits), the buffer-cache flush
//! before a write, and the exit after the exclusive ones (the parser has made sure they are
//! alone on their command line). Their guards are checked before anything is sent
//! (`exec/guards.rs`). Must not: send a sector command to a node whose LBAs are not the
//! drive's.

use super::Ctx;
use crate::ata::command::{op, Protocol, TaskFile, LBA28_LIMIT};
use crate::ata::identify::Identify;
use crate::ata::{sector_config, trim};
use crate::cli::defs as d;
use crate::error::{strerror, Error, ErrorClass};
use crate::exec::access::AtaFailure;
use crate::exec::lost::Operation as Left;
use std::io;

/// §6.5, and the end of the device when it refuses (hdparm exits 22).
fn whole_device(ctx: &mut Ctx, lba: u64) -> bool {
    if super::raw_device::check_whole_device(ctx, lba) {
        true
    } else {
        ctx.stop_device();
        false
    }
}

/// hdparm's buffer-cache flush before a write: a BLKFLSBUF failure is printed and the
/// operation goes on.
fn flush(ctx: &mut Ctx) {
    if let Err(e) = ctx.dev.flush_buffer_cache() {
        ctx.out.note(&format!("BLKFLSBUF failed: {}", strerror(&e)));
    }
}

/// hdparm's `succeeded` / `perror("FAILED")` after a sector command.
fn report(ctx: &mut Ctx, result: Result<(), AtaFailure>) -> bool {
    match result {
        Ok(()) => {
            ctx.out.text("succeeded\n");
            true
        }
        Err(f) => {
            super::raw_device::sector_failed(ctx, f.class(), &f.reason);
            false
        }
    }
}

/// Sends `tf` with `data`, for [`report`].
fn send(ctx: &mut Ctx, tf: &TaskFile, data: &mut [u8]) -> Result<(), AtaFailure> {
    ctx.dev.ata(tf, data).map(|_| ())
}

/// Step 2: `--set-sector-size N` (exclusive): the descriptor of size N in the Sector
/// Configuration log, then SET SECTOR CONFIGURATION EXT.
pub fn set_sector_size(ctx: &mut Ctx) {
    let Some(size) = ctx.flags.set_sector_size else {
        return;
    };
    ctx.stop_device();
    ctx.out.action("set_sector_size", &d::SET_SECTOR_SIZE);
    if !whole_device(ctx, 0) {
        return;
    }
    let Some(id) = ctx.identify() else {
        ctx.identify_unavailable(&d::SET_SECTOR_SIZE);
        return;
    };
    let log = match sector_config_log(ctx, &id) {
        Ok(log) => log,
        Err(class) => {
            let message = format!(
                "READ_LOG_EXT(SECTOR_CONFIGURATION) failed: {}",
                strerror(&io::Error::from_raw_os_error(libc::ENOENT))
            );
            ctx.out.error(&Error::new(class, message));
            return;
        }
    };
    let Some((index, checkword)) = sector_config::find(&log, size, id.logical_sector_bytes())
    else {
        // hdparm exits 255 here; the drive cannot do it: not applicable (DIFFERENCES.md).
        ctx.out.error(&Error::not_applicable(format!(
            "ERROR: unsupported sector size: {size}"
        )));
        return;
    };
    if ctx.stopped_before("SET SECTOR CONFIGURATION EXT") {
        return;
    }
    ctx.out
        .text(&format!("changing sector size configuration to {size}: "));
    let tf = sector_config::command(index, checkword);
    let result = send(ctx, &tf, &mut []);
    report(ctx, result);
}

/// hdparm's `get_log_page_data(0x2F, 0)`: only when IDENTIFY word 84 is non-zero (hdparm
/// tests it with a logical AND), and the log directory lists the log. The failures along the
/// way are printed as hdparm prints them; the class says why there is no log.
fn sector_config_log(ctx: &mut Ctx, id: &Identify) -> Result<[u8; 512], ErrorClass> {
    if id.word(84) == 0 {
        return Err(ErrorClass::NotApplicable);
    }
    let directory = match ctx.dev.read_log(0, 0) {
        Ok(d) => d,
        Err(f) => {
            ctx.out
                .note(&format!("READ_LOG_EXT(0,0) failed: {}", f.reason));
            return Err(f.class());
        }
    };
    let at = usize::from(sector_config::LOG) * 2;
    let pages = u16::from_le_bytes([directory[at], directory[at + 1]]);
    if pages == 0 {
        return Err(ErrorClass::NotApplicable);
    }
    ctx.dev.read_log(sector_config::LOG, 0).map_err(|f| {
        ctx.out.note(&format!(
            "READ_LOG_EXT(0x{:02x}, 0) failed: {}",
            sector_config::LOG,
            f.reason
        ));
        f.class()
    })
}

/// What the TRIM commands of one step have sent so far, for the stop report.
#[derive(Default)]
struct Trimmed {
    commands: u64,
    sectors: u64,
    /// The ranges of the commands sent, in the order given.
    ranges: u64,
}

/// One TRIM command for `ranges` (hdparm's `trim_sectors`): the raw-device check, the line,
/// the flush, then DSM TRIM with the payload. Whether it succeeded. A stop is honoured before
/// the command (the current command of a TRIM is the batch being sent); `sent` counts what
/// went out before it, so that a stop or a failure says which ranges are trimmed and which are
/// not.
fn trim_batch(ctx: &mut Ctx, ranges: &[(u64, u64)], sent: &mut Trimmed) -> bool {
    if ctx.stop_requested() {
        if sent.commands == 0 {
            ctx.stopped_before("DATA SET MANAGEMENT (TRIM)");
        } else {
            ctx.interrupted(format!(
                "{} TRIM command(s) were sent ({} sectors trimmed); the ranges after them were not trimmed",
                sent.commands, sent.sectors
            ));
        }
        return false;
    }
    if !whole_device(ctx, 0) {
        return false;
    }
    let sectors: u64 = ranges.iter().map(|(_, n)| n).sum();
    ctx.out.text(&format!(
        "trimming {sectors} sectors from {} ranges\n",
        ranges.len()
    ));
    flush(ctx);
    let mut data = trim::payload(ranges);
    let tf = trim::command((data.len() / 512) as u16);
    let result = send(ctx, &tf, &mut data);
    let failure = result.as_ref().err().cloned();
    let (command, before) = (sent.commands + 1, sent.ranges);
    sent.commands += 1;
    sent.sectors += sectors;
    sent.ranges += ranges.len() as u64;
    let done = report(ctx, result);
    if let Some(f) = failure {
        let op = Left::Trim {
            command,
            first: before + 1,
            last: before + ranges.len() as u64,
        };
        ctx.left_in(op, &f);
    }
    done
}

/// Step 3: `--trim-sector-ranges-stdin` (exclusive): `lba:count` pairs from stdin, trimmed in
/// batches of the drive's and the queue's size as they fill, stdin read as they are (bounded
/// memory); a bad pair ends the run (the batches already full were sent, as hdparm sends them
/// while it reads).
pub fn trim_ranges_stdin(ctx: &mut Ctx) {
    if !ctx.flags.trim_ranges_stdin {
        return;
    }
    ctx.stop_device();
    ctx.out
        .action("trim_sector_ranges", &d::TRIM_SECTOR_RANGES_STDIN);
    let Some(id) = ctx.identify() else {
        ctx.identify_unavailable(&d::TRIM_SECTOR_RANGES_STDIN);
        return;
    };
    let capacity = id.capacity_sectors();
    let blocks = trim::batch_blocks(ctx.dev.max_sectors_kb(), trim::device_limit(&id));
    let max_ranges = (blocks as usize * 512 / trim::RANGE_BYTES).max(1);
    // Read as it is trimmed, as hdparm's scanf loop reads it: a piece of stdin at a time and
    // one command's batch of ranges, whatever the length of the list.
    let mut reader = trim::PairReader::new();
    let mut batch = Vec::with_capacity(max_ranges);
    let mut total = 0usize;
    let mut sent = Trimmed::default();
    while let Some(pair) = reader.next_pair(capacity, &mut |buf| ctx.dev.stdin_chunk(buf)) {
        match pair {
            Ok(range) => {
                batch.push(range);
                if batch.len() == max_ranges {
                    if !trim_batch(ctx, &batch, &mut sent) {
                        return;
                    }
                    batch.clear();
                }
                total += 1;
            }
            Err(e) => {
                let message = format!(
                    "stdin: error at lba:count pair #{}: {}",
                    total + 1,
                    strerror(&io::Error::from_raw_os_error(e.errno()))
                );
                ctx.out.error(&Error::usage(message));
                return;
            }
        }
    }
    if let Some(e) = reader.take_error() {
        ctx.out.error(&Error::os(ErrorClass::Failed, "stdin", &e));
        return;
    }
    if !batch.is_empty() {
        trim_batch(ctx, &batch, &mut sent);
    }
}

/// Step 39: `--trim-sector-ranges LBA:COUNT...` (exclusive): one TRIM with every range.
pub fn trim_ranges(ctx: &mut Ctx) {
    let Some(ranges) = ctx.flags.trim_ranges.clone() else {
        return;
    };
    ctx.stop_device();
    ctx.out.action("trim_sector_ranges", &d::TRIM_SECTOR_RANGES);
    if whole_device(ctx, 0) {
        trim_batch(ctx, &ranges, &mut Trimmed::default());
    }
}

/// Whether the drive claims WRITE UNCORRECTABLE EXT as hdparm checks it: words 83, 86, 119
/// and 120 (valid, and the 48-bit and WRITE UNCORRECTABLE bits).
fn has_write_unc(id: &Identify) -> bool {
    id.word(83) & 0xC000 == 0x4000
        && id.word(86) & 0x8000 == 0x8000
        && id.word(119) & 0xC004 == 0x4004
        && id.word(120) & 0xC000 == 0x4000
}

/// Step 38: `--make-bad-sector [f]LBA`: WRITE UNCORRECTABLE EXT (pseudo, or flagged with `f`)
/// where the drive claims it, `f` is given or the LBA needs 48 bits; else WRITE LONG with 520
/// bytes of 0xA5.
pub fn make_bad_sector(ctx: &mut Ctx) {
    let Some((lba, flagged)) = ctx.flags.make_bad_sector else {
        return;
    };
    // hdparm skips it silently (exit 0) without IDENTIFY; we say why nothing was done.
    let Some(id) = ctx.identify() else {
        ctx.identify_unavailable(&d::MAKE_BAD_SECTOR);
        return;
    };
    ctx.out.action("make_bad_sector", &d::MAKE_BAD_SECTOR);
    if !whole_device(ctx, lba) {
        return;
    }
    let claimed = has_write_unc(&id);
    let (tf, mut data) = if claimed || flagged || lba >= LBA28_LIMIT {
        if !claimed {
            ctx.out.text(
                "Device does not claim to implement the required WRITE_UNC_EXT command\n\
This operation will probably fail (continuing regardless).\n",
            );
        }
        let mut tf = TaskFile::sector_command(op::WRITE_UNC_EXT, lba, 1, Protocol::NonData, true);
        tf.feature = if flagged { 0xAA } else { 0x55 };
        let how = if flagged { "flagged" } else { "pseudo" };
        ctx.out.text(&format!(
            "Corrupting sector {lba} (WRITE_UNC_EXT as {how}): "
        ));
        (tf, Vec::new())
    } else {
        let tf = TaskFile::sector_command(op::WRITE_LONG_ONCE, lba, 1, Protocol::PioOut, false);
        ctx.out
            .text(&format!("Corrupting sector {lba} (WRITE_LONG): "));
        (tf, vec![0xA5u8; 520])
    };
    let mut tf = tf;
    tf.timeout_secs = 60;
    if ctx.stopped_before(if tf.command == op::WRITE_UNC_EXT {
        "WRITE UNCORRECTABLE EXT"
    } else {
        "WRITE LONG"
    }) {
        return;
    }
    // The kernel must not keep the sector in its cache.
    flush(ctx);
    let result = send(ctx, &tf, &mut data);
    report(ctx, result);
}

/// Step 40: `--write-sector LBA` / `--repair-sector LBA` (exclusive): WRITE SECTOR(S) (EXT)
/// of one logical sector of zeros, after the buffer-cache flush.
pub fn write_sector(ctx: &mut Ctx) {
    let Some(lba) = ctx.flags.write_sector else {
        return;
    };
    ctx.out.action("write_sector", &d::WRITE_SECTOR);
    // hdparm sizes the sector from IDENTIFY (512 bytes without it).
    let bytes = super::raw_device::sector_bytes(ctx);
    if !whole_device(ctx, lba) {
        return;
    }
    let command = if lba >= LBA28_LIMIT {
        op::WRITE_PIO_EXT
    } else {
        op::WRITE_PIO
    };
    let mut tf = TaskFile::sector_command(command, lba, 1, Protocol::PioOut, false);
    tf.timeout_secs = 60;
    if ctx.stopped_before("WRITE SECTOR(S)") {
        return;
    }
    ctx.out.text(&format!("re-writing sector {lba}: "));
    flush(ctx);
    let mut zeros = vec![0u8; bytes];
    let result = send(ctx, &tf, &mut zeros);
    report(ctx, result);
}

/// The status and error registers in a failure's reason ("status 0x51 ..., error 0x04"), as
/// the device layer words an aborted command.
fn registers_in(reason: &str) -> Option<(u8, u8)> {
    let hex_after = |key: &str| {
        let at = reason.find(key)? + key.len();
        u8::from_str_radix(reason.get(at..at + 2)?, 16).ok()
    };
    Some((hex_after("status 0x")?, hex_after(", error 0x")?))
}

/// Step 43: `--drq-hsm-error`: the IDENTIFY opcode sent as a non-data command (the drive then
/// wants to send data the host does not take), after the buffer-cache flush and one second.
/// hdparm prints its errno line and the registers whatever happened.
pub fn drq_hsm_error(ctx: &mut Ctx) {
    if !ctx.flags.drq_hsm_error {
        return;
    }
    // hdparm skips it silently without IDENTIFY; we say why nothing was done.
    let Some(id) = ctx.identify() else {
        ctx.identify_unavailable(&d::DRQ_HSM_ERROR);
        return;
    };
    ctx.out.action("drq_hsm_error", &d::DRQ_HSM_ERROR);
    // The opcode that gave IDENTIFY: PACKET DEVICE for an ATAPI device.
    let command = if id.word(0) & 0xC000 == 0x8000 {
        op::PIDENTIFY
    } else {
        op::IDENTIFY
    };
    ctx.out
        .text(" triggering \"stuck DRQ\" host state machine error\n");
    flush(ctx);
    ctx.dev.pause(std::time::Duration::from_secs(1));
    let mut tf = TaskFile::drive_cmd([command, 0, 0, 0]);
    tf.timeout_secs = 60;
    match ctx.dev.ata(&tf, &mut []) {
        Ok(out) => {
            ctx.out.note("drq_hsm_error: Success");
            // A command that ends well ends with DRDY and DSC (the status register is not
            // among what the device layer hands back on success).
            ctx.out
                .note(&format!("ata status=0x50 ata error=0x{:02x}", out.error));
        }
        Err(f) => {
            // Without registers (the ioctl failed), hdparm prints its argument block as it
            // was: the opcode and 0.
            let (status, error) = registers_in(&f.reason).unwrap_or((command, 0));
            ctx.out.error(&Error::new(
                f.class(),
                format!("drq_hsm_error: {}", f.reason),
            ));
            ctx.out.note(&format!(
                "ata status=0x{status:02x} ata error=0x{error:02x}"
            ));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registers_from_a_reason() {
        assert_eq!(
            registers_in("ATA command 0xec failed: status 0x51 (DRDY DSC ERR), error 0x04 (ABRT)"),
            Some((0x51, 0x04))
        );
        assert_eq!(registers_in("the ioctl failed"), None);
    }
}
