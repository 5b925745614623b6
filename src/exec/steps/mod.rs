//! One device's plan, executed in hdparm 9.65's fixed order (reference §3): sets first, then
//! gets and reports, then timings and power commands. Every step prints what hdparm prints on
//! stdout; failures print one line on stderr and are recorded in the verdict, and processing
//! goes on with the next step (hdparm does the same within a device).
//!
//! Steps reach the device only through [`DeviceAccess`], so they can be tested with a fake.

use super::access::{AtaFailure, DeviceAccess, HdioSetting};
use super::output::Output;
use crate::ata::command::{op, TaskFile};
use crate::cli::{Flags, GetSet};
use crate::error::{strerror, Error, ErrorClass};
use crate::report::settings::{standby_words, xfermode_words, Apm, PowerState, SettingsItem};
use std::io;

/// The per-device context of the steps.
pub struct Ctx<'d, 'o, 'w> {
    pub name: String,
    pub flags: Flags,
    pub dev: &'d mut dyn DeviceAccess,
    pub out: &'o mut Output<'w>,
}

/// hdparm's `(on)`/`(off)` suffix, for set messages (the same as the report's).
fn on_off(v: u32) -> &'static str {
    crate::report::settings::on_off(i64::from(v))
}

/// A set message line (printed when the option was not made quiet).
fn set_msg(option: &str, value: u32, message: String) -> SettingsItem {
    SettingsItem::Set {
        option: option.to_string(),
        value: i64::from(value),
        message,
    }
}

impl Ctx<'_, '_, '_> {
    fn ioctl_failed(&mut self, label: &str, err: &io::Error) {
        let class = match err.raw_os_error() {
            // The driver lacks the request, or the attribute does not exist for this device.
            Some(libc::ENOTTY)
            | Some(libc::EINVAL)
            | Some(libc::EOPNOTSUPP)
            | Some(libc::ENOENT) => ErrorClass::NotApplicable,
            _ => ErrorClass::Failed,
        };
        let mut message = format!("{label}: {}", strerror(err));
        if class == ErrorClass::NotApplicable {
            if label.starts_with(" HDIO_") && self.dev.is_libata() {
                // libata implements none of the old IDE driver's tuning ioctls but 32-bit I/O.
                message.push_str(&format!(
                    " ({}; libata has no such setting: the kernel manages DMA, interrupts and multiple-sector I/O itself)",
                    self.dev.description()
                ));
            } else {
                message.push_str(&format!(" ({})", self.dev.description()));
            }
        }
        self.out.error(&Error {
            class,
            message,
            errno: err.raw_os_error(),
        });
    }

    fn ata_failed(&mut self, label: &str, failure: &AtaFailure) {
        let class = if failure.not_ata {
            ErrorClass::NotApplicable
        } else {
            ErrorClass::Failed
        };
        let message = format!("{label}: {}", failure.reason);
        self.out.error(&Error {
            class,
            message,
            errno: None,
        });
    }

    /// Sends hdparm's 4-byte `drive_cmd`; reports a failure under `label`.
    fn drive_cmd(&mut self, args: [u8; 4], label: &str) -> Option<super::access::AtaOutput> {
        self.drive_cmd_timeout(args, 0, label)
    }

    fn drive_cmd_timeout(
        &mut self,
        args: [u8; 4],
        timeout: u32,
        label: &str,
    ) -> Option<super::access::AtaOutput> {
        let mut tf = TaskFile::drive_cmd(args);
        tf.timeout_secs = timeout;
        let mut no_data = [0u8; 0];
        match self.dev.ata(&tf, &mut no_data) {
            Ok(out) => Some(out),
            Err(f) => {
                self.ata_failed(label, &f);
                None
            }
        }
    }

    /// Sends a command, and an alternative opcode if the first fails (hdparm's pairs such as
    /// STANDBY IMMEDIATE 0xE0 / 0x94). Reports only when both fail.
    fn drive_cmd_either(
        &mut self,
        first: u8,
        second: u8,
        label: &str,
    ) -> Option<super::access::AtaOutput> {
        let mut none = [0u8; 0];
        match self
            .dev
            .ata(&TaskFile::drive_cmd([first, 0, 0, 0]), &mut none)
        {
            Ok(out) => Some(out),
            Err(f) if f.not_ata => {
                self.ata_failed(label, &f);
                None
            }
            Err(_) => match self
                .dev
                .ata(&TaskFile::drive_cmd([second, 0, 0, 0]), &mut none)
            {
                Ok(out) => Some(out),
                Err(f) => {
                    self.ata_failed(label, &f);
                    None
                }
            },
        }
    }

    fn identify(&mut self) -> Option<[u16; 256]> {
        self.dev.identify().ok()
    }

    /// A drive setting sent as one `drive_cmd`: its "setting ..." line when noisy, then the
    /// command, reported under hdparm's label if it fails.
    fn set_feature(
        &mut self,
        noisy: bool,
        option: &str,
        value: u32,
        message: String,
        args: [u8; 4],
        label: &str,
    ) {
        if noisy {
            self.out.item(set_msg(option, value, message));
        }
        self.drive_cmd(args, label);
    }

    /// An old IDE driver on/off setting: ` setting NAME to V (on|off)`, then the ioctl.
    fn hdio_set_on_off(
        &mut self,
        gs: GetSet<u32>,
        what: HdioSetting,
        option: &str,
        name: &str,
        label: &str,
    ) {
        let v = gs.value;
        let message = format!(" setting {name} to {v}{}", on_off(v));
        self.hdio_set(gs, what, option, message, label);
    }

    fn hdio_set(
        &mut self,
        gs: GetSet<u32>,
        what: HdioSetting,
        option: &str,
        message: String,
        label: &str,
    ) {
        if !gs.set {
            return;
        }
        if gs.get {
            self.out.item(set_msg(option, gs.value, message));
        }
        if let Err(e) = self.dev.hdio_set(what, u64::from(gs.value)) {
            self.ioctl_failed(label, &e);
        }
    }
}

/// Runs every requested step for one opened device.
pub fn run(ctx: &mut Ctx) {
    let f = ctx.flags.clone();

    // --- exclusive operations and sets (§3 steps 2..27) ---
    if f.readahead.set {
        if f.readahead.get {
            ctx.out.item(set_msg(
                "-a",
                f.readahead.value,
                format!(" setting fs readahead to {}", f.readahead.value),
            ));
        }
        if let Err(e) = ctx.dev.set_readahead(u64::from(f.readahead.value)) {
            ctx.ioctl_failed(" BLKRASET failed", &e);
        }
    }
    if f.pio_mode.set {
        let mode = f.pio_mode.value as i32;
        if f.pio_mode.noisy {
            let message = if mode == 255 {
                " attempting to auto-tune PIO mode".to_string()
            } else if mode < 100 {
                format!(" attempting to set PIO mode to {mode}")
            } else if mode < 200 {
                format!(" attempting to set MDMA mode to {}", mode - 100)
            } else {
                format!(" attempting to set UDMA mode to {}", mode - 200)
            };
            ctx.out.item(set_msg("-p", f.pio_mode.value, message));
        }
        if let Err(e) = ctx.dev.hdio_set_pio_mode(u64::from(f.pio_mode.value)) {
            ctx.ioctl_failed(" HDIO_SET_PIO_MODE failed", &e);
        }
    }
    ctx.hdio_set(
        f.io32bit,
        HdioSetting::Io32bit,
        "-c",
        format!(" setting 32-bit IO_support flag to {}", f.io32bit.value),
        " HDIO_SET_32BIT failed",
    );
    if f.multcount.set {
        set_multcount(ctx, f.multcount);
    }
    if f.readonly.set {
        if f.readonly.get {
            let v = f.readonly.value;
            ctx.out.item(set_msg(
                "-r",
                v,
                format!(" setting readonly to {v}{}", on_off(v)),
            ));
        }
        if let Err(e) = ctx.dev.set_readonly(f.readonly.value != 0) {
            ctx.ioctl_failed(" BLKROSET failed", &e);
        }
    }
    ctx.hdio_set_on_off(
        f.unmask_irq,
        HdioSetting::Unmask,
        "-u",
        "unmaskirq",
        " HDIO_SET_UNMASKINTR failed",
    );
    ctx.hdio_set_on_off(
        f.dma,
        HdioSetting::Dma,
        "-d",
        "using_dma",
        " HDIO_SET_DMA failed",
    );
    if f.queue_depth.set {
        if f.queue_depth.get {
            ctx.out.item(set_msg(
                "-Q",
                f.queue_depth.value,
                format!(" setting queue_depth to {}", f.queue_depth.value),
            ));
        }
        if let Err(e) = ctx.dev.set_queue_depth(f.queue_depth.value) {
            ctx.ioctl_failed(" setting queue_depth failed", &e);
        }
    }
    ctx.hdio_set_on_off(
        f.nowerr,
        HdioSetting::Nowerr,
        "-n",
        "nowerr",
        " HDIO_SET_NOWERR failed",
    );
    ctx.hdio_set_on_off(
        f.keep_settings,
        HdioSetting::KeepSettings,
        "-k",
        "keep_settings",
        " HDIO_SET_KEEPSETTINGS failed",
    );
    if f.doorlock.set {
        let v = f.doorlock.value;
        if f.doorlock.noisy {
            ctx.out.item(set_msg(
                "-L",
                v,
                format!(" setting drive doorlock to {v}{}", on_off(v)),
            ));
        }
        let command = if v != 0 { op::DOORLOCK } else { op::DOORUNLOCK };
        ctx.drive_cmd_timeout([command, 0, 0, 0], 15, " HDIO_DRIVE_CMD(doorlock) failed");
    }
    if f.keep_features.set {
        let v = f.keep_features.value;
        ctx.set_feature(
            f.keep_features.noisy,
            "-K",
            v,
            format!(" setting drive keep features to {v}{}", on_off(v)),
            [op::SETFEATURES, 0, if v != 0 { 0x66 } else { 0xcc }, 0],
            " HDIO_DRIVE_CMD(keepsettings) failed",
        );
    }
    if f.defect_mgmt.set {
        let v = f.defect_mgmt.value;
        ctx.set_feature(
            f.defect_mgmt.noisy,
            "-D",
            v,
            format!(" setting drive defect management to {v}"),
            [op::SETFEATURES, 0, if v != 0 { 0x04 } else { 0x84 }, 0],
            " HDIO_DRIVE_CMD(defectmgmt) failed",
        );
    }
    if f.prefetch.set {
        let v = f.prefetch.value;
        ctx.set_feature(
            f.prefetch.noisy,
            "-P",
            v,
            format!(" setting drive prefetch to {v}"),
            [op::SETFEATURES, v as u8, 0xab, 0],
            " HDIO_DRIVE_CMD(setprefetch) failed",
        );
    }
    if f.xfer_mode.set {
        set_xfer_mode(ctx, f.xfer_mode.value, f.xfer_mode.noisy);
    }
    if f.lookahead.set {
        let v = f.lookahead.value;
        ctx.set_feature(
            f.lookahead.get,
            "-A",
            v,
            format!(" setting drive read-lookahead to {v}{}", on_off(v)),
            [op::SETFEATURES, 0, if v != 0 { 0xaa } else { 0x55 }, 0],
            " HDIO_DRIVE_CMD(setreadahead) failed",
        );
    }
    if f.powerup_in_standby.set {
        let v = f.powerup_in_standby.value;
        if v == 0 {
            ctx.out.text(" spin-up:");
            let mut none = [0u8; 0];
            let _ = ctx.dev.ata(
                &TaskFile::drive_cmd([op::SETFEATURES, 0, 0x07, 0]),
                &mut none,
            );
        }
        if f.powerup_in_standby.noisy {
            ctx.out.item(set_msg(
                "-s",
                v,
                format!(" setting power-up in standby to {v}{}", on_off(v)),
            ));
        }
        ctx.drive_cmd(
            [op::SETFEATURES, 0, if v != 0 { 0x06 } else { 0x86 }, 0],
            " HDIO_DRIVE_CMD(powerup_in_standby) failed",
        );
    }
    if f.apm.set {
        let v = f.apm.value;
        let (message, args) = if v == 255 {
            (
                " setting Advanced Power Management level to disabled".to_string(),
                [op::SETFEATURES, 0, 0x85, 0],
            )
        } else {
            (
                format!(" setting Advanced Power Management level to 0x{v:02x} ({v})"),
                [op::SETFEATURES, v as u8, 0x05, 0],
            )
        };
        if f.apm.get {
            ctx.out.item(set_msg("-B", v, message));
        }
        ctx.drive_cmd(args, " HDIO_DRIVE_CMD failed");
    }
    if f.acoustic.set {
        let v = f.acoustic.value;
        ctx.set_feature(
            f.acoustic.get,
            "-M",
            v,
            format!(" setting acoustic management to {v}"),
            [
                op::SETFEATURES,
                v as u8,
                if v != 0 { 0x42 } else { 0xc2 },
                0,
            ],
            " HDIO_DRIVE_CMD:ACOUSTIC failed",
        );
    }
    if f.write_read_verify.set {
        let v = f.write_read_verify.value;
        ctx.set_feature(
            f.write_read_verify.get,
            "-R",
            v,
            format!(" setting write-read-verify to {v}"),
            [
                op::SETFEATURES,
                v as u8,
                if v != 0 { 0x0b } else { 0x8b },
                0,
            ],
            " HDIO_DRIVE_CMD:WRV failed",
        );
    }
    if f.write_cache.set {
        set_write_cache(ctx, f.write_cache);
    }
    if f.standby.set {
        let v = f.standby.value;
        ctx.set_feature(
            f.standby.noisy,
            "-S",
            v,
            format!(" setting standby to {v} ({})", standby_words(v)),
            [op::SETIDLE, v as u8, 0, 0],
            " HDIO_DRIVE_CMD(setidle) failed",
        );
    }
    if f.dco_freeze {
        if !f.quiet {
            ctx.out.text(" issuing DCO freeze command\n");
        }
        ctx.drive_cmd([op::DCO, 0, 0xc1, 0], " HDIO_DRIVE_CMD(dco_freeze) failed");
    }
    if f.security_freeze {
        if !f.quiet {
            ctx.out.text(" issuing security freeze command\n");
        }
        ctx.drive_cmd(
            [op::SECURITY_FREEZE_LOCK, 0, 0, 0],
            " HDIO_DRIVE_CMD(security_freeze) failed",
        );
    }
    if f.seagate_powersave.set {
        if !f.quiet && f.seagate_powersave.noisy {
            ctx.out.text(" disabling Seagate auto powersaving mode\n");
        }
        ctx.drive_cmd([0xfb, 0, 0, 0], " HDIO_DRIVE_CMD(seagatepwrsave) failed");
    }
    if f.busstate.set {
        let v = f.busstate.value;
        if !f.quiet && f.busstate.get {
            let name = crate::report::settings::busstate_name(i64::from(v));
            ctx.out.item(set_msg(
                "-b",
                v,
                format!(" setting bus state to {v} ({name})"),
            ));
        }
        if let Err(e) = ctx.dev.hdio_set(HdioSetting::Busstate, u64::from(v)) {
            ctx.ioctl_failed(" HDIO_SET_BUSSTATE failed", &e);
        }
    }
    if let Some(lba) = f.read_sector {
        super::sectors::read_sector(ctx, lba);
    }
    ctx.dev.forget_identify();
    if f.hitachi_temp.set {
        if let Some(out) = ctx.drive_cmd(
            [0xf0, 0, 0x01, 0],
            " HDIO_DRIVE_CMD(hitachisensecondition) failed",
        ) {
            let t = match out.count {
                0 => "under -20".to_string(),
                0xff => "over 107".to_string(),
                c => format!("{}", i32::from(c) / 2 - 20),
            };
            let in_range = if out.error & 0x10 == 0 { "yes" } else { "no" };
            ctx.out.text(&format!(
                " drive temperature (celsius) is:  {t}\n drive temperature in range:  {in_range}\n"
            ));
        }
    }

    // --- gets and reports (§3 steps 46..66) ---
    let mut multcount: Option<i64> = None;
    if f.defaults || f.multcount.get || f.identity {
        multcount = get_multcount(ctx, f.multcount.get, f.defaults || f.multcount.get);
    }
    if f.defaults || f.io32bit.get {
        hdio_get_line(
            ctx,
            HdioSetting::Io32bit,
            f.io32bit.get,
            " HDIO_GET_32BIT failed",
            |v| SettingsItem::IoSupport { mode: v },
        );
    }
    if f.defaults || f.unmask_irq.get {
        hdio_get_line(
            ctx,
            HdioSetting::Unmask,
            f.unmask_irq.get,
            " HDIO_GET_UNMASKINTR failed",
            |v| SettingsItem::Unmaskirq { value: v },
        );
    }
    if f.defaults || f.dma.get {
        hdio_get_line(
            ctx,
            HdioSetting::Dma,
            f.dma.get,
            " HDIO_GET_DMA failed",
            |v| SettingsItem::UsingDma { value: v },
        );
    }
    if f.queue_depth.get {
        match ctx.dev.queue_depth() {
            Ok(depth) => ctx.out.item(SettingsItem::QueueDepth { depth }),
            Err(e) => ctx.ioctl_failed(" queue_depth", &e),
        }
    }
    if f.defaults || f.keep_settings.get {
        hdio_get_line(
            ctx,
            HdioSetting::KeepSettings,
            f.keep_settings.get,
            " HDIO_GET_KEEPSETTINGS failed",
            |v| SettingsItem::Keepsettings { value: v },
        );
    }
    if f.nowerr.get {
        hdio_get_line(
            ctx,
            HdioSetting::Nowerr,
            true,
            " HDIO_GET_NOWERR failed",
            |v| SettingsItem::Nowerr { value: v },
        );
    }
    if f.defaults || f.readonly.get {
        match ctx.dev.readonly() {
            Ok(v) => ctx.out.item(SettingsItem::Readonly { value: v }),
            Err(e) => ctx.ioctl_failed(" BLKROGET failed", &e),
        }
    }
    if f.defaults || f.readahead.get {
        match ctx.dev.readahead() {
            Ok(v) => ctx.out.item(SettingsItem::Readahead { sectors: v }),
            Err(e) => ctx.ioctl_failed(" BLKRAGET failed", &e),
        }
    }
    if f.defaults || f.geometry {
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
    if f.check_power.set {
        check_power(ctx);
    }
    if f.identity {
        super::identify::kernel_identity(ctx, multcount);
    }
    if f.identify || f.identify_stdout || f.identify_raw.is_some() {
        super::identify::identify(ctx);
    }
    if f.lookahead.get {
        if let Some(id) = ctx.identify() {
            let enabled = (id[82] & 0x40 != 0).then_some(id[85] & 0x40 != 0);
            ctx.out.item(SettingsItem::LookAhead { enabled });
        } else {
            identify_unavailable(ctx, "-A");
        }
    }
    if f.write_cache.get {
        if let Some(id) = ctx.identify() {
            let enabled = (id[82] & 0x20 != 0).then_some(id[85] & 0x20 != 0);
            ctx.out.item(SettingsItem::WriteCaching { enabled });
        } else {
            identify_unavailable(ctx, "-W");
        }
    }
    if f.apm.get {
        if let Some(id) = ctx.identify() {
            let apm = if id[83] & 0xc008 == 0x4008 {
                if id[86] & 0x0008 != 0 {
                    Apm::Level((id[91] & 0xff) as u8)
                } else {
                    Apm::Off
                }
            } else {
                Apm::NotSupported
            };
            ctx.out.item(SettingsItem::ApmLevel { apm });
        } else {
            identify_unavailable(ctx, "-B");
        }
    }
    if f.acoustic.get {
        if let Some(id) = ctx.identify() {
            let level = (id[83] & 0x200 != 0).then_some((id[94] & 0xff) as u8);
            ctx.out.item(SettingsItem::Acoustic { level });
        } else {
            identify_unavailable(ctx, "-M");
        }
    }
    if f.write_read_verify.get {
        if let Some(id) = ctx.identify() {
            // hdparm prints word 120 & 2 (0 or 2), not the mode: kept on purpose.
            let value = (id[119] & 0x2 != 0).then_some(id[120] & 0x2);
            ctx.out.item(SettingsItem::WriteReadVerify { value });
        } else {
            identify_unavailable(ctx, "-R");
        }
    }
    if f.busstate.get {
        hdio_get_line(
            ctx,
            HdioSetting::Busstate,
            true,
            " HDIO_GET_BUSSTATE failed",
            |v| SettingsItem::Busstate { value: v },
        );
    }
    if f.max_sectors.get {
        max_sectors(ctx);
    }

    // --- timings and actions (§3 steps 67..76) ---
    if f.time_cache || f.time_device || f.bench.is_some() || f.flush_drive_cache {
        super::timing_steps::run(ctx);
    }
    if f.flush_buffers || f.time_cache || f.time_device {
        if let Err(e) = ctx.dev.flush_buffer_cache() {
            ctx.ioctl_failed("BLKFLSBUF failed", &e);
        }
    }
    if f.reread_partitions.set {
        if f.reread_partitions.noisy {
            ctx.out.text(" re-reading partition table\n");
        }
        if let Err(e) = ctx.dev.reread_partitions() {
            ctx.ioctl_failed(" BLKRRPART failed", &e);
        }
    }
    if f.idle_immediate.set {
        if f.idle_immediate.noisy {
            ctx.out.text(" issuing idle_immediate command\n");
        }
        ctx.drive_cmd(
            [op::IDLEIMMEDIATE, 0, 0, 0],
            " HDIO_DRIVE_CMD(idle_immediate) failed",
        );
    }
    if f.standby_now.set {
        if f.standby_now.noisy {
            ctx.out.text(" issuing standby command\n");
        }
        ctx.drive_cmd_either(
            op::STANDBYNOW1,
            op::STANDBYNOW2,
            " HDIO_DRIVE_CMD(standby) failed",
        );
    }
    if f.sleep_now.set {
        if f.sleep_now.noisy {
            ctx.out.text(" issuing sleep command\n");
        }
        ctx.drive_cmd_either(
            op::SLEEPNOW1,
            op::SLEEPNOW2,
            " HDIO_DRIVE_CMD(sleep) failed",
        );
    }
    if f.reset.set {
        if f.reset.noisy {
            ctx.out.text(" resetting drive\n");
        }
        if let Err(e) = ctx.dev.hdio_reset() {
            ctx.ioctl_failed(" HDIO_DRIVE_RESET failed", &e);
        }
    }
}

/// A get through a legacy HDIO ioctl: a line when it works; an error only when the option was
/// asked for explicitly (the default report skips what the driver lacks, as hdparm does).
fn hdio_get_line(
    ctx: &mut Ctx,
    what: HdioSetting,
    explicit: bool,
    label: &str,
    item: impl Fn(i64) -> SettingsItem,
) {
    match ctx.dev.hdio_get(what) {
        Ok(v) => ctx.out.item(item(v)),
        Err(e) if explicit => ctx.ioctl_failed(label, &e),
        Err(_) => {}
    }
}

/// A get that reads IDENTIFY, on a device that gave none.
fn identify_unavailable(ctx: &mut Ctx, option: &str) {
    let message = if ctx.dev.ata_capable() {
        format!("{}: {option}: the drive did not answer IDENTIFY", ctx.name)
    } else {
        format!(
            "{}: {option} reads the drive's IDENTIFY data: {}",
            ctx.name,
            ctx.dev.description()
        )
    };
    let class = if ctx.dev.ata_capable() {
        ErrorClass::Failed
    } else {
        ErrorClass::NotApplicable
    };
    ctx.out.error(&Error::new(class, message));
}

/// `-m`: HDIO_GET_MULTCOUNT, else IDENTIFY word 59 (libata). Returns the count if known.
fn get_multcount(ctx: &mut Ctx, explicit: bool, print: bool) -> Option<i64> {
    let count = match ctx.dev.hdio_get(HdioSetting::Multcount) {
        Ok(v) => Some(v),
        Err(e) => match ctx.identify() {
            Some(id) => Some(if id[59] & 0xff00 == 0x100 {
                i64::from(id[59] & 0xff)
            } else {
                0
            }),
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
    }
    count
}

/// `-m N`: HDIO_SET_MULTCOUNT; on libata (ENOTTY) SET MULTIPLE MODE behind the guard that was
/// checked for the whole invocation before anything ran.
fn set_multcount(ctx: &mut Ctx, gs: GetSet<u32>) {
    let v = gs.value;
    if gs.get {
        ctx.out
            .item(set_msg("-m", v, format!(" setting multcount to {v}")));
    }
    match ctx.dev.hdio_set(HdioSetting::Multcount, u64::from(v)) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(libc::ENOTTY) && ctx.dev.ata_capable() => {
            if let Some(id) = ctx.identify() {
                let max = u32::from(id[47] & 0xff);
                if v > max || (v != 0 && !v.is_power_of_two()) {
                    let message = format!(
                        "{}: -m {v}: the drive allows a multiple-sector count of 0 or a power of two up to {max}; nothing was sent",
                        ctx.name
                    );
                    ctx.out.error(&Error::usage(message));
                    return;
                }
            }
            ctx.drive_cmd(
                [op::SET_MULTIPLE, v as u8, 0, 0],
                " HDIO_DRIVE_CMD(set_multi_count) failed",
            );
        }
        Err(e) => ctx.ioctl_failed(" HDIO_SET_MULTCOUNT failed", &e),
    }
}

/// `-X MODE`: SET FEATURES transfer mode, after checking the drive lists the mode.
fn set_xfer_mode(ctx: &mut Ctx, mode: u32, noisy: bool) {
    if noisy {
        ctx.out.item(set_msg(
            "-X",
            mode,
            format!(" setting xfermode to {mode} ({})", xfermode_words(mode)),
        ));
    }
    if ctx.dev.ata_capable() {
        if let Some(id) = ctx.identify() {
            if let Some(reason) = crate::ata::values::xfer_mode_unsupported(&id, mode) {
                let message = format!("{}: -X {mode}: {reason}; nothing was sent", ctx.name);
                ctx.out.error(&Error::usage(message));
                return;
            }
        }
    }
    let mut none = [0u8; 0];
    if let Err(failure) = ctx.dev.ata(
        &TaskFile::drive_cmd([op::SETFEATURES, mode as u8, 3, 0]),
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

/// `-W 0|1`: HDIO_SET_WCACHE, else SET FEATURES 0x02/0x82; a flush before and after disabling.
fn set_write_cache(ctx: &mut Ctx, gs: GetSet<u32>) {
    let v = gs.value;
    if gs.get {
        ctx.out.item(set_msg(
            "-W",
            v,
            format!(" setting drive write-caching to {v}{}", on_off(v)),
        ));
    }
    if !ctx.dev.ata_capable() {
        ctx.drive_cmd(
            [op::SETFEATURES, 0, if v != 0 { 0x02 } else { 0x82 }, 0],
            " HDIO_DRIVE_CMD(setcache) failed",
        );
        return;
    }
    if v == 0 {
        flush_drive_cache(ctx);
    }
    if ctx.dev.hdio_set_wcache(v != 0).is_err() {
        ctx.drive_cmd(
            [op::SETFEATURES, 0, if v != 0 { 0x02 } else { 0x82 }, 0],
            " HDIO_DRIVE_CMD(setcache) failed",
        );
    }
    if v == 0 {
        flush_drive_cache(ctx);
    }
}

/// FLUSH CACHE (EXT when the drive has it), as `-F` and `-W0` send it.
pub fn flush_drive_cache(ctx: &mut Ctx) {
    let ext = ctx.identify().is_some_and(|id| id[83] & 0xe000 == 0x6000);
    let command = if ext {
        op::FLUSHCACHE_EXT
    } else {
        op::FLUSHCACHE
    };
    ctx.drive_cmd_timeout([command, 0, 0, 0], 60, " HDIO_DRIVE_CMD(flushcache) failed");
}

/// `-C`: CHECK POWER MODE (0xE5, else 0x98). hdparm prints `unknown` when both fail; so do we
/// on stdout, but the failure is reported and the exit status is not 0.
fn check_power(ctx: &mut Ctx) {
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

/// `-N`: visible sectors (IDENTIFY) against the native maximum (READ NATIVE MAX ADDRESS, or
/// GET NATIVE MAX ADDRESS EXT on drives with Accessible Max Address), reference §4.5.
fn max_sectors(ctx: &mut Ctx) {
    let Some(words) = ctx.identify() else {
        identify_unavailable(ctx, "-N");
        return;
    };
    let id = crate::ata::identify::Identify::from_words(words);
    let amax = id.supports_accessible_max_address();
    let (mut tf, label) = if amax {
        let mut tf = TaskFile::new(op::GET_NATIVE_MAX_EXT, 0, 0);
        tf.lba48 = true;
        (tf, " GET_NATIVE_MAX_ADDRESS_EXT failed")
    } else if id.supports_48bit() {
        (
            TaskFile::new(op::READ_NATIVE_MAX_EXT, 0, 0),
            " READ_NATIVE_MAX_ADDRESS_EXT failed",
        )
    } else {
        (
            TaskFile::new(op::READ_NATIVE_MAX, 0, 0),
            " READ_NATIVE_MAX_ADDRESS failed",
        )
    };
    tf.timeout_secs = 15;
    let mut none = [0u8; 0];
    let out = match ctx.dev.ata(&tf, &mut none) {
        Ok(out) => out,
        Err(f) => {
            ctx.ata_failed(label, &f);
            return;
        }
    };
    let max_lba = if tf.lba48 {
        out.lba
    } else {
        (out.lba & 0x00ff_ffff) | (u64::from(out.device & 0x0f) << 24)
    };
    let native = max_lba + 1;
    let visible = id.capacity_sectors();
    let mut line = format!(" max sectors   = {visible}/{native}");
    match visible.cmp(&native) {
        std::cmp::Ordering::Less if amax => {
            line.push_str(", ACCESSIBLE MAX ADDRESS enabled\nPower cycle your device after every ACCESSIBLE MAX ADDRESS")
        }
        std::cmp::Ordering::Less => line.push_str(", HPA is enabled"),
        std::cmp::Ordering::Equal if amax => line.push_str(", ACCESSIBLE MAX ADDRESS disabled"),
        std::cmp::Ordering::Equal => line.push_str(", HPA is disabled"),
        std::cmp::Ordering::Greater => {
            line.push_str(", HPA setting seems invalid");
            if native & 0xffff_ff00_0000 == 0 {
                line.push_str(" (buggy kernel device driver?)");
            }
        }
    }
    line.push('\n');
    ctx.out.text(&line);
    ctx.out.section(
        "max_sectors",
        serde_json::json!({ "visible_sectors": visible, "native_sectors": native, "accessible_max_address": amax }),
    );
}
