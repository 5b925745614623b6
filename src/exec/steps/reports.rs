//! The get steps (reference §3 steps 45-66): the kernel's settings read back through HDIO and
//! block ioctls (`-m -c -u -d -Q -k -n -r -a -b`, and the default report), the geometry
//! (`-g`), the drive's settings read from IDENTIFY (`-A -W -B -M -R`), the native maximum
//! (`-N`), the Hitachi temperature (`-H`), and the identification reports (`-i`, `-I`).
//!
//! JSON: the lines are `settings` items (`report::settings`); `-N` is the device's
//! `max_sectors` section (`visible_sectors`, `native_sectors`, `accessible_max_address`), `-H`
//! its `drive_temperature` (`kind`: `celsius`, or `below`/`above` for hdparm's "under -20" and
//! "over 107"; `celsius`; `in_range`).
//!
//! A get prints its line only when the query worked. The default report skips what the driver
//! lacks, as hdparm does; an explicit get reports the failure. Must not: change anything on
//! the device (the one command sent besides reads is `-H`'s SENSE CONDITION and `-N`'s READ
//! NATIVE MAX ADDRESS, both queries).

use super::Ctx;
use crate::ata::command::op;
use crate::ata::features;
use crate::ata::hpa::{max_sectors_line, NativeMaxKind};
use crate::ata::values::{self, Apm};
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::GetSet;
use crate::exec::access::HdioSetting;
use crate::report::sections::{AtaTemperature, DriveTemperature, MaxSectors, TemperatureKind};
use crate::report::settings::SettingsItem;

/// Step 45: `-H`, Hitachi's SENSE CONDITION (the temperature in the count register).
pub fn hitachi_temperature(ctx: &mut Ctx) {
    if !ctx.flags.hitachi_temp.set {
        return;
    }
    if let Some(out) = ctx.drive_cmd(
        [op::HITACHI_VENDOR, 0, features::HITACHI_SENSE_CONDITION, 0],
        " HDIO_DRIVE_CMD(hitachisensecondition) failed",
    ) {
        let t = match out.count {
            0 => "under -20".to_string(),
            0xff => "over 107".to_string(),
            c => format!("{}", i32::from(c) / 2 - 20),
        };
        ctx.out
            .text(&temperature_lines(&t, Some(out.error & 0x10 == 0)));
        ctx.out.put(&temperature_json(out.count, out.error));
    }
}

/// `-H`'s two lines, hdparm's for the ATA drive and ours for the SCSI and NVMe twins:
/// the temperature, and whether it is in range (`unknown` when the device does not say).
pub(super) fn temperature_lines(celsius: &dyn std::fmt::Display, in_range: Option<bool>) -> String {
    let words = match in_range {
        Some(true) => "yes",
        Some(false) => "no",
        None => "unknown",
    };
    format!(" drive temperature (celsius) is:  {celsius}\n drive temperature in range:  {words}\n")
}

/// `-H`'s JSON: the count register's temperature (hdparm's "under -20" and "over 107" are
/// `below` and `above`), and whether the drive says it is in range (error bit 4 clear).
fn temperature_json(count: u8, error: u8) -> DriveTemperature {
    let (kind, celsius) = match count {
        0 => (TemperatureKind::Below, -20),
        0xff => (TemperatureKind::Above, 107),
        c => (TemperatureKind::Celsius, i32::from(c) / 2 - 20),
    };
    DriveTemperature::Ata(AtaTemperature {
        kind,
        celsius,
        in_range: error & 0x10 == 0,
    })
}

/// Step 46: the multiple-sector count: HDIO_GET_MULTCOUNT, else IDENTIFY word 59 (libata).
/// Also read for `-i`, which shows it in word 59; printed for `-m` and the default report.
pub fn get_multcount(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if !(f.defaults || f.multcount.get || f.identity) {
        return;
    }
    let explicit = f.multcount.get;
    let print = f.defaults || f.multcount.get;
    let count = match ctx.dev.hdio_get(HdioSetting::Multcount) {
        Ok(v) => Some(v),
        Err(e) => match ctx.identify() {
            Some(id) => Some(i64::from(id.multcount_fallback())),
            None => {
                if explicit {
                    ctx.ioctl_failed(" HDIO_GET_MULTCOUNT failed", &e);
                }
                None
            }
        },
    };
    if let (Some(v), true) = (count, print) {
        ctx.out.item(SettingsItem::Multcount { count: v });
        let set = ctx.flags.multcount.value;
        ctx.check_read_back(&d::MULTCOUNT, set, v == i64::from(set), &v.to_string());
    }
    ctx.multcount = count;
}

/// Step 47: `-c`.
pub fn get_io32bit(ctx: &mut Ctx) {
    let item = |v| SettingsItem::IoSupport { mode: v };
    let get = (ctx.flags.io32bit, true, HdioSetting::Io32bit);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_32BIT failed",
        item,
        (&d::IO32BIT, same),
    );
}

/// Step 48: `-u`.
pub fn get_unmask_irq(ctx: &mut Ctx) {
    let item = |v| SettingsItem::Unmaskirq { value: v };
    let get = (ctx.flags.unmask_irq, true, HdioSetting::Unmask);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_UNMASKINTR failed",
        item,
        (&d::UNMASK_IRQ, same_on_off),
    );
}

/// Step 49: `-d`.
pub fn get_dma(ctx: &mut Ctx) {
    let item = |v| SettingsItem::UsingDma { value: v };
    let get = (ctx.flags.dma, true, HdioSetting::Dma);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_DMA failed",
        item,
        (&d::DMA, same_on_off),
    );
}

/// Step 50: `-Q` (not part of the default report).
pub fn get_queue_depth(ctx: &mut Ctx) {
    if !ctx.flags.queue_depth.get {
        return;
    }
    match ctx.dev.queue_depth() {
        Ok(depth) => {
            ctx.out.item(SettingsItem::QueueDepth { depth });
            let set = ctx.flags.queue_depth.value;
            ctx.check_read_back(&d::QUEUE_DEPTH, set, depth == set, &depth.to_string());
        }
        Err((label, e)) => queue_depth_failed(ctx, &label, &e),
    }
}

/// A `-Q` failure, under the attribute's path as hdparm's `perror` names it.
pub(super) fn queue_depth_failed(ctx: &mut Ctx, label: &str, err: &std::io::Error) {
    // `device/queue_depth` is an attribute of SCSI devices (sd, sr: libata's drives too), so
    // it is missing (ENOENT) on NVMe, virtio-blk, loop devices and files.
    let mut why = ctx.dev.plain_description();
    if err.raw_os_error() == Some(libc::ENOENT) {
        why.push_str("; only SCSI devices have a queue depth setting");
    }
    ctx.ioctl_failed_because(label, err, &why);
}

/// Step 51: `-k`.
pub fn get_keep_settings(ctx: &mut Ctx) {
    let item = |v| SettingsItem::Keepsettings { value: v };
    let get = (ctx.flags.keep_settings, true, HdioSetting::KeepSettings);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_KEEPSETTINGS failed",
        item,
        (&d::KEEP_SETTINGS, same_on_off),
    );
}

/// Step 52: `-n` (not part of the default report, despite hdparm's `-acdgkmur` help text).
pub fn get_nowerr(ctx: &mut Ctx) {
    let item = |v| SettingsItem::Nowerr { value: v };
    let get = (ctx.flags.nowerr, false, HdioSetting::Nowerr);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_NOWERR failed",
        item,
        (&d::NOWERR, same_on_off),
    );
}

/// Step 53: `-r`, BLKROGET (its failure is shown in the default report too).
pub fn get_readonly(ctx: &mut Ctx) {
    if !(ctx.flags.defaults || ctx.flags.readonly.get) {
        return;
    }
    match ctx.dev.readonly() {
        Ok(v) => {
            ctx.out.item(SettingsItem::Readonly { value: v });
            let set = ctx.flags.readonly.value;
            let shown = on_off_words(Some(v != 0));
            ctx.check_read_back(&d::READONLY, set, same_on_off(set, v), &shown);
        }
        Err(e) => ctx.ioctl_failed(" BLKROGET failed", &e),
    }
}

/// Step 54: `-a`, BLKRAGET (its failure is shown in the default report too).
pub fn get_readahead(ctx: &mut Ctx) {
    if !(ctx.flags.defaults || ctx.flags.readahead.get) {
        return;
    }
    match ctx.dev.readahead() {
        Ok(v) => ctx.out.item(SettingsItem::Readahead { sectors: v }),
        Err(e) => ctx.ioctl_failed(" BLKRAGET failed", &e),
    }
}

/// Step 55: `-g` (and the default report's last line).
pub fn get_geometry(ctx: &mut Ctx) {
    if !(ctx.flags.defaults || ctx.flags.geometry) {
        return;
    }
    // hdparm's geometry lookup sizes sectors from IDENTIFY (`get_current_sector_size`), so
    // the drive gets that IDENTIFY (or none, when an earlier step read it).
    let _ = ctx.dev.identify();
    match ctx.dev.geometry() {
        Ok(g) => ctx.out.item(SettingsItem::Geometry {
            cylinders: g.cylinders,
            heads: g.heads,
            sectors_per_track: g.sectors_per_track,
            total_sectors: g.total_sectors,
            start_sector: g.start_sector,
        }),
        Err((label, e)) => ctx.ioctl_failed(label, &e),
    }
}

/// Step 58: `-i`, with the multiple-sector count of step 46.
pub fn kernel_identity(ctx: &mut Ctx) {
    if ctx.flags.identity {
        let multcount = ctx.multcount;
        super::identify::kernel_identity(ctx, multcount);
    }
}

/// Step 59: `-I`, `--Istdout`, `--Iraw`.
pub fn identify(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if f.identify || f.identify_stdout || f.identify_raw.is_some() {
        super::identify::identify(ctx);
    }
}

/// Step 60: `-A`, from IDENTIFY.
pub fn get_lookahead(ctx: &mut Ctx) {
    ctx.identify_get(ctx.flags.lookahead, &d::LOOKAHEAD, |id, set| {
        let enabled = id.look_ahead().enabled();
        let took = enabled == Some(set != 0);
        let shown = on_off_words(enabled);
        (SettingsItem::LookAhead { enabled }, took, shown)
    });
}

/// Step 61: `-W`, from IDENTIFY.
pub fn get_write_cache(ctx: &mut Ctx) {
    ctx.identify_get(ctx.flags.write_cache, &d::WRITE_CACHE, |id, set| {
        let enabled = id.write_cache().enabled();
        let took = enabled == Some(set != 0);
        let shown = on_off_words(enabled);
        (SettingsItem::WriteCaching { enabled }, took, shown)
    });
}

/// Step 62: `-B`, from IDENTIFY.
pub fn get_apm(ctx: &mut Ctx) {
    ctx.identify_get(ctx.flags.apm, &d::APM, |id, set| {
        let apm = id.apm();
        let (took, shown) = match apm {
            Apm::NotSupported => (false, "not supported".to_string()),
            Apm::Disabled => (set == values::APM_DISABLE_LEVEL, "off".to_string()),
            Apm::Enabled { level, .. } => (u32::from(level) == set, level.to_string()),
        };
        (SettingsItem::ApmLevel { apm }, took, shown)
    });
}

/// Step 63: `-M`, from IDENTIFY.
pub fn get_acoustic(ctx: &mut Ctx) {
    ctx.identify_get(ctx.flags.acoustic, &d::ACOUSTIC, |id, set| {
        let level = id.acoustic_level();
        // -M0 turns AAM off; what word 94 then holds is not specified, so only support counts.
        let took = level.is_some_and(|l| set == 0 || u32::from(l) == set);
        let shown = level.map_or("not supported".to_string(), |l| l.to_string());
        (SettingsItem::Acoustic { level }, took, shown)
    });
}

/// Step 64: `-R`, from IDENTIFY.
pub fn get_write_read_verify(ctx: &mut Ctx) {
    ctx.identify_get(
        ctx.flags.write_read_verify,
        &d::WRITE_READ_VERIFY,
        |id, set| {
            let value = id.write_read_verify_shown();
            // hdparm shows only whether it is on (word 120 bit 1), not the mode.
            let took = value.is_some_and(|v| (v != 0) == (set != 0));
            let shown = value.map_or("not supported".to_string(), |v| v.to_string());
            (SettingsItem::WriteReadVerify { value }, took, shown)
        },
    );
}

/// Step 65: `-b`.
pub fn get_busstate(ctx: &mut Ctx) {
    let item = |v| SettingsItem::Busstate { value: v };
    let get = (ctx.flags.busstate, false, HdioSetting::Busstate);
    hdio_get_line(
        ctx,
        get,
        " HDIO_GET_BUSSTATE failed",
        item,
        (&d::BUSSTATE, same),
    );
}

/// Step 66: `-N`: visible sectors (IDENTIFY) against the native maximum (READ NATIVE MAX
/// ADDRESS, or GET NATIVE MAX ADDRESS EXT on drives with Accessible Max Address), reference §4.5.
pub fn get_max_sectors(ctx: &mut Ctx) {
    if !ctx.flags.max_sectors.get {
        return;
    }
    let Some(id) = ctx.identify() else {
        ctx.identify_unavailable(&d::MAX_SECTORS);
        return;
    };
    let amax = id.supports_accessible_max_address();
    let kind = NativeMaxKind::of(amax, id.supports_48bit());
    let mut none = [0u8; 0];
    let out = match ctx.dev.ata(&kind.taskfile(), &mut none) {
        Ok(out) => out,
        Err(f) => {
            ctx.ata_failed(kind.failure_label(), &f);
            return;
        }
    };
    if ctx.flags.verbose {
        if let Some(line) = kind.verbose_line(out.lba) {
            ctx.out.text(&line);
        }
    }
    let native = kind.native_sectors(out.lba);
    let visible = id.capacity_sectors();
    // More visible than native: what DCO says the real maximum is, asked quietly.
    let dco_real_max = if visible > native {
        super::hpa::dco_identify_words(ctx, true).map(|w| crate::ata::dco::real_max_sectors(&w))
    } else {
        None
    };
    ctx.out
        .text(&max_sectors_line(visible, native, amax, dco_real_max));
    ctx.out.put(&MaxSectors {
        visible_sectors: visible,
        native_sectors: native,
        accessible_max_address: amax,
    });
}

/// A get through a legacy HDIO ioctl, when its option asked for it (or, `in_defaults`, the
/// default report did): a line when it works; an error only when the option was asked for
/// explicitly (the default report skips what the driver lacks, as hdparm does). The value read
/// back is checked against a set of the same option (`took` deciding whether the value read is
/// what was set).
fn hdio_get_line(
    ctx: &mut Ctx,
    (gs, in_defaults, what): (GetSet<u32>, bool, HdioSetting),
    label: &str,
    item: impl Fn(i64) -> SettingsItem,
    (option, took): (&OptionDef, fn(u32, i64) -> bool),
) {
    let explicit = gs.get;
    if !(explicit || in_defaults && ctx.flags.defaults) {
        return;
    }
    match ctx.dev.hdio_get(what) {
        Ok(v) => {
            ctx.out.item(item(v));
            ctx.check_read_back(option, gs.value, took(gs.value, v), &v.to_string());
        }
        Err(e) if explicit => ctx.ioctl_failed(label, &e),
        Err(_) => {}
    }
}

/// The value read back is the one set.
fn same(set: u32, read: i64) -> bool {
    read == i64::from(set)
}

/// An on/off setting reads back on or off as set (`-d1` may read back as 8, DMA-assisted PIO).
fn same_on_off(set: u32, read: i64) -> bool {
    (set != 0) == (read != 0)
}

/// An on/off value in the get line's words: `1 (on)`.
fn on_off_words(enabled: Option<bool>) -> String {
    match enabled {
        Some(true) => "1 (on)".to_string(),
        Some(false) => "0 (off)".to_string(),
        None => "not supported".to_string(),
    }
}
