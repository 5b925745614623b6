//! The set steps that go to the drive as ATA commands (reference §4.2): the SET FEATURES
//! settings (`-K`, `-D`, `-P`, `-X`, `-A`, `-s`, `-B`, `-M`, `-R`, `-W`), the standby timer
//! (`-S`), the door lock (`-L`), and the one-shot freezes (`--dco-freeze`, `--security-freeze`,
//! `-Z`). Each prints its "setting ..." line when noisy, then sends the command(s).
//!
//! The freezes and `-Z` are recorded in JSON's `actions`; the sets are `set` items whose
//! outcome an error in their step marks failed (`exec/output.rs`).
//!
//! Must not: read values back (that is `reports`), or send anything to a device that refused a
//! value check (`-X` on a drive that does not list the mode).

use super::{on_off, set_msg, set_of, set_only_of, Ctx};
use crate::ata::command::{op, TaskFile};
use crate::ata::features::{self, set_features};
use crate::ata::values::{self, standby_words, xfermode_words};
use crate::cli::defs as d;
use crate::cli::Action;
use crate::error::Error;

/// Step 15: `-L 0|1`, DOOR LOCK / DOOR UNLOCK.
pub fn set_doorlock(ctx: &mut Ctx) {
    let so = ctx.flags.doorlock;
    if !so.set {
        return;
    }
    let v = so.value;
    if so.noisy {
        let message = format!(" setting drive doorlock to {v}{}", on_off(v));
        ctx.out.item(set_msg(&d::DOORLOCK, v, message));
    }
    let command = if v != 0 { op::DOORLOCK } else { op::DOORUNLOCK };
    ctx.drive_cmd_timeout([command, 0, 0, 0], 15, " HDIO_DRIVE_CMD(doorlock) failed");
}

/// Step 16: `-K 0|1`, keep features over a reset (or revert to defaults).
pub fn set_keep_features(ctx: &mut Ctx) {
    ctx.set_feature(
        set_only_of(ctx.flags.keep_features),
        &d::KEEP_FEATURES,
        |v| format!(" setting drive keep features to {v}{}", on_off(v)),
        |v| set_features(features::KEEP_FEATURES.subcommand(v != 0), 0),
        " HDIO_DRIVE_CMD(keepsettings) failed",
    );
}

/// Step 17: `-D 0|1`, defect management.
pub fn set_defect_mgmt(ctx: &mut Ctx) {
    ctx.set_feature(
        set_only_of(ctx.flags.defect_mgmt),
        &d::DEFECT_MGMT,
        |v| format!(" setting drive defect management to {v}"),
        |v| set_features(features::DEFECT_MANAGEMENT.subcommand(v != 0), 0),
        " HDIO_DRIVE_CMD(defectmgmt) failed",
    );
}

/// Step 18: `-P N`, prefetch.
pub fn set_prefetch(ctx: &mut Ctx) {
    ctx.set_feature(
        set_only_of(ctx.flags.prefetch),
        &d::PREFETCH,
        |v| format!(" setting drive prefetch to {v}"),
        |v| set_features(features::PREFETCH, v as u8),
        " HDIO_DRIVE_CMD(setprefetch) failed",
    );
}

/// Step 19: `-X MODE`: SET FEATURES transfer mode, after checking the drive lists the mode.
pub fn set_xfer_mode(ctx: &mut Ctx) {
    let so = ctx.flags.xfer_mode;
    if !so.set {
        return;
    }
    let mode = so.value;
    if so.noisy {
        ctx.out.item(set_msg(
            &d::XFER_MODE,
            mode,
            format!(" setting xfermode to {mode} ({})", xfermode_words(mode)),
        ));
    }
    if ctx.dev.ata_capable() {
        if let Some(id) = ctx.identify() {
            if let Some(reason) = values::xfer_mode_unsupported(id.words(), mode) {
                // Named as it is typed (`-X udma7`); the number is hdparm's code for it.
                let typed = values::xfer_mode_name(mode).unwrap_or_else(|| mode.to_string());
                let message = format!("{}: -X {typed}: {reason}; nothing was sent", ctx.name);
                ctx.out.error(&Error::usage(message));
                return;
            }
        }
    }
    let mut none = [0u8; 0];
    if let Err(failure) = ctx.dev.ata(
        &TaskFile::drive_cmd(set_features(features::SET_TRANSFER_MODE, mode as u8)),
        &mut none,
    ) {
        let mut failure = failure;
        if failure.refused_by_kernel && ctx.dev.is_libata() {
            // libata answers ILLEGAL REQUEST / INVALID FIELD IN CDB (hdparm prints "bad/missing
            // sense data" and exits 0): the kernel owns the transfer mode.
            failure.reason = format!(
                "{}: libata does not pass SET FEATURES (set transfer mode) through; the kernel chooses the mode (the libata.force= boot option sets it)",
                failure.reason
            );
        }
        ctx.ata_failed(" HDIO_DRIVE_CMD(setxfermode) failed", &failure);
    }
}

/// Step 20: `-A 0|1`, read look-ahead.
pub fn set_lookahead(ctx: &mut Ctx) {
    ctx.set_feature(
        set_of(ctx.flags.lookahead),
        &d::LOOKAHEAD,
        |v| format!(" setting drive read-lookahead to {v}{}", on_off(v)),
        |v| set_features(features::LOOK_AHEAD.subcommand(v != 0), 0),
        " HDIO_DRIVE_CMD(setreadahead) failed",
    );
}

/// Step 21: `-s 0|1`, power-up in standby; disabling first spins the drive up (hdparm prints
/// ` spin-up:` whatever the result, with no newline).
pub fn set_powerup_in_standby(ctx: &mut Ctx) {
    let so = ctx.flags.powerup_in_standby;
    if !so.set {
        return;
    }
    let v = so.value;
    if v == 0 {
        ctx.out.text(" spin-up:");
        let mut none = [0u8; 0];
        let _ = ctx.dev.ata(
            &TaskFile::drive_cmd(set_features(features::PUIS_SPIN_UP, 0)),
            &mut none,
        );
    }
    if so.noisy {
        ctx.out.item(set_msg(
            &d::POWERUP_IN_STANDBY,
            v,
            format!(" setting power-up in standby to {v}{}", on_off(v)),
        ));
    }
    ctx.drive_cmd(
        set_features(features::POWER_UP_IN_STANDBY.subcommand(v != 0), 0),
        " HDIO_DRIVE_CMD(powerup_in_standby) failed",
    );
}

/// Step 22: `-B N`, Advanced Power Management level (255 disables it).
pub fn set_apm(ctx: &mut Ctx) {
    let gs = ctx.flags.apm;
    if !gs.set {
        return;
    }
    let v = gs.value;
    if gs.get {
        let message = format!(
            " setting Advanced Power Management level to {}",
            values::apm_set_words(v)
        );
        ctx.out.item(set_msg(&d::APM, v, message));
    }
    let (subcommand, count) = values::apm_set(v);
    if ctx
        .drive_cmd(set_features(subcommand, count), " HDIO_DRIVE_CMD failed")
        .is_some()
    {
        ctx.set_done(&d::APM);
    }
}

/// Step 24: `-M N`, Automatic Acoustic Management (0 disables it).
pub fn set_acoustic(ctx: &mut Ctx) {
    ctx.set_feature(
        set_of(ctx.flags.acoustic),
        &d::ACOUSTIC,
        |v| format!(" setting acoustic management to {v}"),
        |v| {
            let (subcommand, count) = values::aam_set(v);
            set_features(subcommand, count)
        },
        " HDIO_DRIVE_CMD:ACOUSTIC failed",
    );
}

/// Step 25: `-R N`, write-read-verify (0 disables it).
pub fn set_write_read_verify(ctx: &mut Ctx) {
    ctx.set_feature(
        set_of(ctx.flags.write_read_verify),
        &d::WRITE_READ_VERIFY,
        |v| format!(" setting write-read-verify to {v}"),
        |v| {
            let (subcommand, count) = values::write_read_verify_set(v);
            set_features(subcommand, count)
        },
        " HDIO_DRIVE_CMD:WRV failed",
    );
}

/// hdparm's ` setting drive write-caching to N (on|off)` line of a `-W` set (when noisy), for
/// ATA and NVMe alike.
pub(super) fn announce_write_cache(ctx: &mut Ctx, v: u32, noisy: bool) {
    if noisy {
        ctx.out.item(set_msg(
            &d::WRITE_CACHE,
            v,
            format!(" setting drive write-caching to {v}{}", on_off(v)),
        ));
    }
}

/// Step 26: `-W 0|1`: HDIO_SET_WCACHE, else SET FEATURES 0x02/0x82; a flush before and after
/// disabling.
pub fn set_write_cache(ctx: &mut Ctx) {
    let gs = ctx.flags.write_cache;
    if !gs.set {
        return;
    }
    let v = gs.value;
    announce_write_cache(ctx, v, gs.get);
    let args = set_features(features::WRITE_CACHE.subcommand(v != 0), 0);
    if !ctx.dev.ata_capable() {
        ctx.drive_cmd(args, " HDIO_DRIVE_CMD(setcache) failed");
        return;
    }
    if v == 0 {
        super::flush_drive_cache(ctx);
    }
    let done = ctx.dev.hdio_set_wcache(v != 0).is_ok()
        || ctx
            .drive_cmd(args, " HDIO_DRIVE_CMD(setcache) failed")
            .is_some();
    if done {
        ctx.set_done(&d::WRITE_CACHE);
    }
    if v == 0 {
        super::flush_drive_cache(ctx);
    }
}

/// Step 27: `-S N`, IDLE with the standby timer.
pub fn set_standby(ctx: &mut Ctx) {
    ctx.set_feature(
        set_only_of(ctx.flags.standby),
        &d::STANDBY,
        |v| format!(" setting standby to {v} ({})", standby_words(v)),
        |v| [op::SETIDLE, v as u8, 0, 0],
        " HDIO_DRIVE_CMD(setidle) failed",
    );
}

/// A long option's action: it is a plain flag, and only `-q` anywhere silences its line.
fn long_action(set: bool, quiet: bool) -> Action {
    Action { set, noisy: !quiet }
}

/// Step 32: `--dco-freeze`, DEVICE CONFIGURATION FREEZE LOCK.
pub fn dco_freeze(ctx: &mut Ctx) {
    let asked = long_action(ctx.flags.dco_freeze, ctx.flags.quiet);
    let line = " issuing DCO freeze command\n";
    if !ctx.announce(asked, "dco_freeze", &d::DCO_FREEZE, line) {
        return;
    }
    ctx.drive_cmd(
        [op::DCO, 0, features::DCO_FREEZE_LOCK, 0],
        " HDIO_DRIVE_CMD(dco_freeze) failed",
    );
}

/// Step 34: `--security-freeze`, SECURITY FREEZE LOCK.
pub fn security_freeze(ctx: &mut Ctx) {
    let asked = long_action(ctx.flags.security_freeze, ctx.flags.quiet);
    let line = " issuing security freeze command\n";
    if !ctx.announce(asked, "security_freeze", &d::SECURITY_FREEZE, line) {
        return;
    }
    ctx.drive_cmd(
        [op::SECURITY_FREEZE_LOCK, 0, 0, 0],
        " HDIO_DRIVE_CMD(security_freeze) failed",
    );
}

/// Step 35: `-Z`, Seagate's vendor command that disables its auto powersaving.
pub fn seagate_powersave(ctx: &mut Ctx) {
    let a = ctx.flags.seagate_powersave;
    let asked = Action {
        noisy: a.noisy && !ctx.flags.quiet,
        ..a
    };
    let line = " disabling Seagate auto powersaving mode\n";
    if !ctx.announce(asked, "seagate_powersave_off", &d::SEAGATE_POWERSAVE, line) {
        return;
    }
    ctx.drive_cmd(
        [op::SEAGATE_POWERSAVE_OFF, 0, 0, 0],
        " HDIO_DRIVE_CMD(seagatepwrsave) failed",
    );
}
