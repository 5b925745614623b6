//! The power-state steps and the end-of-device actions (reference §3 steps 57 and 70-76):
//! CHECK POWER MODE (`-C`), the buffer-cache flush (`-f`, implied by `-t`/`-T`), re-reading
//! the partition table (`-z`), IDLE IMMEDIATE, STANDBY IMMEDIATE and SLEEP (`--idle-immediate`,
//! `-y`, `-Y`), the drive reset (`-w`), and FLUSH CACHE as `-F` and `-W0` send it.
//!
//! Each action is recorded in JSON's `actions` ([`super::Output::action`]) before it is sent,
//! quiet or not; an error in its step marks it failed.
//!
//! Must not: wait or retry beyond hdparm's own alternative opcodes (0xE0/0x94, 0xE6/0x99,
//! 0xE5/0x98).

use super::Ctx;
use crate::ata::command::op;
use crate::cli::defs as d;
use crate::error::{strerror, Error, ErrorClass};
use crate::report::settings::{PowerState, SettingsItem};

/// FLUSH CACHE (EXT when the drive has it), as `-F` and `-W0` send it to an ATA drive. The
/// NVMe and SCSI forms are chosen above, in [`super::flush_drive_cache`].
pub(super) fn flush_cache(ctx: &mut Ctx) {
    let ext = ctx
        .identify()
        .is_some_and(|id| id.flush_cache_ext_supported());
    let command = if ext {
        op::FLUSHCACHE_EXT
    } else {
        op::FLUSHCACHE
    };
    ctx.drive_cmd_timeout([command, 0, 0, 0], 60, " HDIO_DRIVE_CMD(flushcache) failed");
}

/// Step 57: `-C`: CHECK POWER MODE (0xE5, else 0x98). hdparm prints `unknown` when both fail;
/// so do we on stdout, but the failure is reported and the exit status is not 0.
pub fn check_power(ctx: &mut Ctx) {
    if !ctx.flags.check_power.set {
        return;
    }
    let state = if ctx.dev.ata_capable() {
        ctx.drive_cmd_either(
            op::CHECKPOWERMODE1,
            op::CHECKPOWERMODE2,
            " drive state unknown",
        )
        .map_or(PowerState::Unknown, |out| PowerState::from_count(out.count))
    } else {
        let message = format!(
            "{}: -C needs an ATA drive: {}",
            ctx.name,
            ctx.dev.description()
        );
        ctx.out.error(&Error::not_applicable(message));
        PowerState::Unknown
    };
    ctx.out.item(SettingsItem::DriveState { state });
}

/// Step 70: BLKFLSBUF, for `-f` and before the timings' reads.
pub fn flush_buffer_cache(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if !(f.flush_buffers || f.time_cache || f.time_device) {
        return;
    }
    if f.flush_buffers {
        ctx.out.action("flush_buffer_cache", &d::FLUSH_BUFFERS);
    }
    if let Err(e) = ctx.dev.flush_buffer_cache() {
        ctx.ioctl_failed("BLKFLSBUF failed", &e);
    }
}

/// Step 71: `-z`, BLKRRPART.
pub fn reread_partitions(ctx: &mut Ctx) {
    let asked = ctx.flags.reread_partitions;
    let line = " re-reading partition table\n";
    if !ctx.announce(asked, "reread_partitions", &d::REREAD_PARTITIONS, line) {
        return;
    }
    match ctx.dev.reread_partitions() {
        // The kernel keeps a table that is in use: say what to do about it.
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => ctx.out.error(&Error {
            class: ErrorClass::Failed,
            message: format!(
                " BLKRRPART failed: {} (a partition of {} is mounted or open: unmount or close it, then -z again)",
                strerror(&e),
                ctx.name
            ),
            errno: e.raw_os_error(),
        }),
        Err(e) => ctx.ioctl_failed(" BLKRRPART failed", &e),
        Ok(()) => {}
    }
}

/// Step 72: `--idle-immediate`.
pub fn idle_immediate(ctx: &mut Ctx) {
    let asked = ctx.flags.idle_immediate;
    let line = " issuing idle_immediate command\n";
    if !ctx.announce(asked, "idle_immediate", &d::IDLE_IMMEDIATE, line) {
        return;
    }
    ctx.drive_cmd(
        [op::IDLEIMMEDIATE, 0, 0, 0],
        " HDIO_DRIVE_CMD(idle_immediate) failed",
    );
}

/// Step 73: `-y`, STANDBY IMMEDIATE (0xE0, else the old 0x94).
pub fn standby_now(ctx: &mut Ctx) {
    let line = " issuing standby command\n";
    if ctx.announce(ctx.flags.standby_now, "standby", &d::STANDBY_NOW, line) {
        let label = " HDIO_DRIVE_CMD(standby) failed";
        ctx.drive_cmd_either(op::STANDBYNOW1, op::STANDBYNOW2, label);
    }
}

/// Step 75: `-Y`, SLEEP (0xE6, else the old 0x99).
pub fn sleep_now(ctx: &mut Ctx) {
    let line = " issuing sleep command\n";
    if ctx.announce(ctx.flags.sleep_now, "sleep", &d::SLEEP_NOW, line) {
        let label = " HDIO_DRIVE_CMD(sleep) failed";
        ctx.drive_cmd_either(op::SLEEPNOW1, op::SLEEPNOW2, label);
    }
}

/// Step 76: `-w`, HDIO_DRIVE_RESET.
pub fn reset(ctx: &mut Ctx) {
    if !ctx.announce(ctx.flags.reset, "reset", &d::RESET, " resetting drive\n") {
        return;
    }
    if let Err(e) = ctx.dev.hdio_reset() {
        ctx.ioctl_failed(" HDIO_DRIVE_RESET failed", &e);
    }
}
