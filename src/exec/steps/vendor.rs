//! The small vendor and drive-specific steps (reference §3 steps 1, 4, 23, 56 and 74): the
//! `--verbose` report of the USB bridge probe, the WD
//! Green idle3 timer (`-J` set and get, §4.11), the CD/DVD speed (`-E`), and IDLE IMMEDIATE
//! with head unload (`--idle-unload`).
//!
//! Each does what hdparm 9.65 does, command for command: the idle3 sequence through SG_IO only
//! with 12 s timeouts; `-E` tries SET STREAMING, then CDROM_SELECT_SPEED, and fails only when
//! both fail; `--idle-unload` checks for the raw device first (§6.5).
//!
//! Must not: send the idle3 sequence other than through `ata_sg_only` (hdparm never falls back
//! to the legacy ioctls for it).

use super::{set_msg, Ctx};
use crate::ata::command::{op, Protocol, TaskFile};
use crate::ata::wdidle3::{self, Access};
use crate::cli::defs as d;

/// The idle3 sequence: switch the vendor commands on, send the key, read or write the timer,
/// switch them off again (also after a failure, once they were on). Each failing command is
/// reported under hdparm's label (its C function's name). Returns the raw value read.
fn wdidle3_sequence(ctx: &mut Ctx, access: Access, raw: u8) -> Option<u8> {
    let mut none = [0u8; 0];
    let on = wdidle3::vsc_switch(true);
    if let Err(f) = ctx.dev.ata_sg_only(&on, &mut none) {
        ctx.ata_failed("wdidle3_vsc_enable_disable", &f);
        return None;
    }
    let (key, mut block) = wdidle3::send_key(access);
    let mut value = None;
    match ctx.dev.ata_sg_only(&key, &mut block) {
        Err(f) => ctx.ata_failed("wdidle3_vsc_send_key", &f),
        Ok(_) => match access {
            Access::Read => {
                let mut data = [0u8; 512];
                match ctx.dev.ata_sg_only(&wdidle3::read_timer(), &mut data) {
                    Ok(_) => value = Some(data[0]),
                    Err(f) => ctx.ata_failed("wdidle3_data_in", &f),
                }
            }
            Access::Write => {
                let (tf, mut data) = wdidle3::write_timer(raw);
                match ctx.dev.ata_sg_only(&tf, &mut data) {
                    Ok(_) => value = Some(raw),
                    Err(f) => ctx.ata_failed("wdidle3_vsc_data_out", &f),
                }
            }
        },
    }
    let off = wdidle3::vsc_switch(false);
    if let Err(f) = ctx.dev.ata_sg_only(&off, &mut none) {
        ctx.ata_failed("wdidle3_vsc_enable_disable", &f);
        return None;
    }
    value
}

/// Step 1 (its `--verbose` part): hdparm's `APT:` lines about the USB bridge probe, on
/// stdout after the header (the probe itself ran when the device was opened).
pub fn apt_report(ctx: &mut Ctx) {
    if !ctx.flags.verbose {
        return;
    }
    for line in ctx.dev.apt_lines() {
        ctx.out.text(&format!("{line}\n"));
    }
}

/// Step 4: `-J N`, the idle3 timer set (guarded by --please-destroy-my-drive, checked before
/// anything was sent).
pub fn set_wdidle3(ctx: &mut Ctx) {
    let gs = ctx.flags.wdidle3;
    if !gs.set {
        return;
    }
    let raw = wdidle3::secs_to_raw(gs.value);
    if gs.get {
        let words = wdidle3::describe(raw, ctx.flags.verbose);
        ctx.out.item(set_msg(
            &d::WDIDLE3,
            gs.value,
            format!(" setting wdidle3 to {words}"),
        ));
    }
    if wdidle3_sequence(ctx, Access::Write, raw).is_some() {
        ctx.set_done(&d::WDIDLE3);
    }
}

/// Step 56: `-J`, the idle3 timer get.
pub fn get_wdidle3(ctx: &mut Ctx) {
    if !ctx.flags.wdidle3.get {
        return;
    }
    if let Some(raw) = wdidle3_sequence(ctx, Access::Read, 0) {
        let words = wdidle3::describe(raw, ctx.flags.verbose);
        ctx.out.text(&format!(" wdidle3      = {words}\n"));
        ctx.out.put(&crate::report::sections::Wdidle3 {
            raw,
            text: wdidle3::describe(raw, false),
        });
    }
}

/// Step 23: `-E N`, the CD/DVD speed: SET STREAMING (newer DVD drives), then the kernel's
/// CDROM_SELECT_SPEED (SET CD SPEED); a failure only when both fail, reported with the second's
/// error, as hdparm.
pub fn set_cdrom_speed(ctx: &mut Ctx) {
    let s = ctx.flags.cdrom_speed;
    if !s.set {
        return;
    }
    if s.noisy {
        ctx.out.item(set_msg(
            &d::CDROM_SPEED,
            s.value,
            format!("setting cd/dvd speed to {}", s.value),
        ));
    }
    let streaming = ctx.dev.cdrom_set_streaming(s.value);
    let select = ctx.dev.cdrom_select_speed(s.value);
    if let (Err(_), Err(e)) = (streaming, select) {
        ctx.ioctl_failed(" SET_STREAMING/CDROM_SELECT_SPEED both failed", &e);
    }
}

/// IDLE IMMEDIATE's UNLOAD FEATURE: feature 0x44, LBA "UNL" (ACS-4 §7.16.2).
const UNLOAD_FEATURE: u16 = 0x44;
const UNLOAD_LBA: u64 = 0x55_4E4C;

/// The taskfile of `--idle-unload`, as hdparm's `init_hdio_taskfile` builds it (device 0xE0,
/// no data, hdparm's default timeout).
pub fn idle_unload_command() -> TaskFile {
    let mut tf =
        TaskFile::sector_command(op::IDLEIMMEDIATE, UNLOAD_LBA, 0, Protocol::NonData, false);
    tf.feature = UNLOAD_FEATURE;
    tf
}

/// Step 74: `--idle-unload`.
pub fn idle_unload(ctx: &mut Ctx) {
    let line = " issuing idle_immediate_unload command\n";
    if !ctx.announce(ctx.flags.idle_unload, "idle_unload", &d::IDLE_UNLOAD, line) {
        return;
    }
    if !super::raw_device::check_whole_device(ctx, 0) {
        // hdparm exits here: no -Y or -w after it.
        ctx.stop_device();
        return;
    }
    let mut none = [0u8; 0];
    if let Err(f) = ctx.dev.ata(&idle_unload_command(), &mut none) {
        ctx.ata_failed("TASKFILE(idle_immediate_unload) failed", &f);
    }
}
