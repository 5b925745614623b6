//! The set steps that go to the kernel, not the drive (reference §4.1): block-layer settings
//! (`-a`, `-r`), the old IDE driver's HDIO settings (`-p`, `-c`, `-m`, `-u`, `-d`, `-n`, `-k`,
//! `-b`) and the SCSI queue depth (`-Q`). Each prints its "setting ..." line when noisy, then
//! makes one call. `-m` falls back to SET MULTIPLE MODE on libata, as hdparm does.
//!
//! Must not: read values back (that is `reports`) or print anything but the set message and
//! the failure line.

use super::{on_off, set_msg, set_of, Ctx};
use crate::ata::command::op;
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::GetSet;
use crate::error::Error;
use crate::exec::access::HdioSetting;

/// Step 5: `-a N`, BLKRASET.
pub fn set_readahead(ctx: &mut Ctx) {
    let message = |v| format!(" setting fs readahead to {v}");
    let Some(v) = ctx.announce_set(set_of(ctx.flags.readahead), &d::READAHEAD, message) else {
        return;
    };
    if let Err(e) = ctx.dev.set_readahead(u64::from(v)) {
        ctx.ioctl_failed(" BLKRASET failed", &e);
    }
}

/// Step 6: `-p MODE`, HDIO_SET_PIO_MODE (hdparm's numbering: <100 PIO, <200 MDMA, else UDMA).
pub fn set_pio_mode(ctx: &mut Ctx) {
    let so = ctx.flags.pio_mode;
    if !so.set {
        return;
    }
    let mode = so.value as i32;
    if so.noisy {
        let message = if mode == 255 {
            " attempting to auto-tune PIO mode".to_string()
        } else if mode < 100 {
            format!(" attempting to set PIO mode to {mode}")
        } else if mode < 200 {
            format!(" attempting to set MDMA mode to {}", mode - 100)
        } else {
            format!(" attempting to set UDMA mode to {}", mode - 200)
        };
        ctx.out.item(set_msg(&d::PIO_MODE, so.value, message));
    }
    if let Err(e) = ctx.dev.hdio_set_pio_mode(u64::from(so.value)) {
        ctx.ioctl_failed(" HDIO_SET_PIO_MODE failed", &e);
    }
}

/// Step 7: `-c N`, HDIO_SET_32BIT.
pub fn set_io32bit(ctx: &mut Ctx) {
    let gs = ctx.flags.io32bit;
    let message = format!(" setting 32-bit IO_support flag to {}", gs.value);
    hdio_set(
        ctx,
        gs,
        HdioSetting::Io32bit,
        &d::IO32BIT,
        message,
        " HDIO_SET_32BIT failed",
    );
}

/// Step 8: `-m N`: HDIO_SET_MULTCOUNT; on libata (ENOTTY) SET MULTIPLE MODE behind the guard
/// that was checked for the whole invocation before anything ran.
pub fn set_multcount(ctx: &mut Ctx) {
    let message = |v| format!(" setting multcount to {v}");
    let Some(v) = ctx.announce_set(set_of(ctx.flags.multcount), &d::MULTCOUNT, message) else {
        return;
    };
    match ctx.dev.hdio_set(HdioSetting::Multcount, u64::from(v)) {
        Ok(()) => ctx.set_done(&d::MULTCOUNT),
        Err(e) if e.raw_os_error() == Some(libc::ENOTTY) && ctx.dev.ata_capable() => {
            if let Some(id) = ctx.identify() {
                let max = u32::from(id.max_multiple_sectors());
                if v > max || (v != 0 && !v.is_power_of_two()) {
                    let allowed = if max == 0 {
                        // No READ/WRITE MULTIPLE at all (every ATAPI device).
                        "the drive lists no multiple-sector count (IDENTIFY word 47 is 0); only -m0 is accepted".to_string()
                    } else {
                        format!("the drive allows a multiple-sector count of 0 or a power of two up to {max}")
                    };
                    let message = format!("{}: -m {v}: {allowed}; nothing was sent", ctx.name);
                    ctx.out.error(&Error::usage(message));
                    return;
                }
            }
            if ctx
                .drive_cmd(
                    [op::SET_MULTIPLE, v as u8, 0, 0],
                    " HDIO_DRIVE_CMD(set_multi_count) failed",
                )
                .is_some()
            {
                ctx.set_done(&d::MULTCOUNT);
            }
        }
        Err(e) => ctx.ioctl_failed(" HDIO_SET_MULTCOUNT failed", &e),
    }
}

/// Step 9: `-r 0|1`, BLKROSET.
pub fn set_readonly(ctx: &mut Ctx) {
    let message = |v| format!(" setting readonly to {v}{}", on_off(v));
    let Some(v) = ctx.announce_set(set_of(ctx.flags.readonly), &d::READONLY, message) else {
        return;
    };
    match ctx.dev.set_readonly(v != 0) {
        Ok(()) => ctx.set_done(&d::READONLY),
        Err(e) => ctx.ioctl_failed(" BLKROSET failed", &e),
    }
}

/// Step 10: `-u 0|1`, HDIO_SET_UNMASKINTR.
pub fn set_unmask_irq(ctx: &mut Ctx) {
    let gs = ctx.flags.unmask_irq;
    hdio_set_on_off(
        ctx,
        gs,
        HdioSetting::Unmask,
        &d::UNMASK_IRQ,
        "unmaskirq",
        " HDIO_SET_UNMASKINTR failed",
    );
}

/// Step 11: `-d 0|1`, HDIO_SET_DMA.
pub fn set_dma(ctx: &mut Ctx) {
    let gs = ctx.flags.dma;
    hdio_set_on_off(
        ctx,
        gs,
        HdioSetting::Dma,
        &d::DMA,
        "using_dma",
        " HDIO_SET_DMA failed",
    );
}

/// Step 12: `-Q N`, the SCSI device's `queue_depth` attribute.
pub fn set_queue_depth(ctx: &mut Ctx) {
    let message = |v| format!(" setting queue_depth to {v}");
    let asked = set_of(ctx.flags.queue_depth);
    let Some(v) = ctx.announce_set(asked, &d::QUEUE_DEPTH, message) else {
        return;
    };
    match ctx.dev.set_queue_depth(v) {
        Ok(()) => ctx.set_done(&d::QUEUE_DEPTH),
        // hdparm's label is the attribute's path here too (reference §4.1).
        Err((label, e)) => super::reports::queue_depth_failed(ctx, &label, &e),
    }
}

/// Step 13: `-n 0|1`, HDIO_SET_NOWERR.
pub fn set_nowerr(ctx: &mut Ctx) {
    let gs = ctx.flags.nowerr;
    hdio_set_on_off(
        ctx,
        gs,
        HdioSetting::Nowerr,
        &d::NOWERR,
        "nowerr",
        " HDIO_SET_NOWERR failed",
    );
}

/// Step 14: `-k 0|1`, HDIO_SET_KEEPSETTINGS.
pub fn set_keep_settings(ctx: &mut Ctx) {
    let gs = ctx.flags.keep_settings;
    hdio_set_on_off(
        ctx,
        gs,
        HdioSetting::KeepSettings,
        &d::KEEP_SETTINGS,
        "keep_settings",
        " HDIO_SET_KEEPSETTINGS failed",
    );
}

/// Step 36: `-b N`, HDIO_SET_BUSSTATE; its message is one of those `-q` anywhere silences.
pub fn set_busstate(ctx: &mut Ctx) {
    let gs = ctx.flags.busstate;
    let asked = set_of(gs).map(|(v, noisy)| (v, noisy && !ctx.flags.quiet));
    let message = |v: u32| {
        let name = crate::report::settings::busstate_name(i64::from(v));
        format!(" setting bus state to {v} ({name})")
    };
    let Some(v) = ctx.announce_set(asked, &d::BUSSTATE, message) else {
        return;
    };
    match ctx.dev.hdio_set(HdioSetting::Busstate, u64::from(v)) {
        Ok(()) => ctx.set_done(&d::BUSSTATE),
        Err(e) => ctx.ioctl_failed(" HDIO_SET_BUSSTATE failed", &e),
    }
}

/// An old IDE driver on/off setting: ` setting NAME to V (on|off)`, then the ioctl.
fn hdio_set_on_off(
    ctx: &mut Ctx,
    gs: GetSet<u32>,
    what: HdioSetting,
    option: &'static OptionDef,
    name: &str,
    label: &str,
) {
    let v = gs.value;
    let message = format!(" setting {name} to {v}{}", on_off(v));
    hdio_set(ctx, gs, what, option, message, label);
}

/// An old IDE driver setting: its message when noisy, then the ioctl.
fn hdio_set(
    ctx: &mut Ctx,
    gs: GetSet<u32>,
    what: HdioSetting,
    option: &'static OptionDef,
    message: String,
    label: &str,
) {
    let Some(v) = ctx.announce_set(set_of(gs), option, |_| message) else {
        return;
    };
    match ctx.dev.hdio_set(what, u64::from(v)) {
        Ok(()) => ctx.set_done(option),
        Err(e) => ctx.ioctl_failed(label, &e),
    }
}
