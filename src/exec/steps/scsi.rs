//! hdparm's jobs on a disk that is SCSI all the way down (issue 22): the SCSI twin of each step
//! that has one, run in place of the ATA step of its row in `steps::STEPS` on a SCSI disk that
//! is not libata's (see `steps::run`). Each twin first checks that its option was asked for,
//! then whether the target takes ATA after all ([`Ctx::on_scsi`]: a SAT translator answers
//! IDENTIFY and keeps the ATA path, and the twin hands over to the ATA step); only where ATA
//! PASS-THROUGH is rejected does it speak SCSI. What each option means there:
//!
//! - `-I`, `-i`, `--Istdout`, `--Iraw`: INQUIRY, VPD 80h, 83h, B0h, B1h, B2h and READ
//!   CAPACITY(16), in hdparm's layout (`report::scsi`); `--Istdout` and `--Iraw` the standard
//!   INQUIRY data.
//! - `-W`, `-A`: the caching mode page's WCE and DRA (inverted), read with MODE SENSE(10) and
//!   set with MODE SELECT(10) where the changeable mask allows it; after a set the sd driver is
//!   told to read the page again (`device/rescan`), so that its flushes follow the new state.
//! - `-S`: the power condition page's STANDBY_Z timer; `-y` START STOP UNIT FORCE_STANDBY_0,
//!   `-Y` a stop; `-C` REQUEST SENSE's power condition; `-F` SYNCHRONIZE CACHE(10).
//! - `-H`: the temperature log page (0Dh), and informational exceptions (2Fh) for "in range".
//! - `--trim-sector-ranges(-stdin)`: UNMAP within the block limits (VPD B0h).
//! - `--read-sector`, `--write-sector`: READ(16)/WRITE(16) of one logical block.
//! - `--sanitize-*`: SANITIZE with IMMED; `--sanitize-status` REQUEST SENSE's progress.
//! - `--security-erase`: refused in one sentence (no SCSI command means the same).
//! - `--fwdownload*`: WRITE BUFFER modes 05h, 07h, 0Eh then 0Fh.
//!
//! Must not: reach the device other than through `DeviceAccess::scsi` (every SCSI command
//! passes there, where `--dry-run` sees it), decode bytes itself (that is `crate::scsi`), or
//! turn one erase into another.

use super::{on_off, set_msg, set_of, set_only_of, Ctx, Step};
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::{FwMode, SanitizeCommand, SecurityCommand};
use crate::error::{Error, ErrorClass};
use crate::exec::access::{ScsiCommand, ScsiFailure};
use crate::report::scsi::{self as report, Answers, ScsiIdentifyReport};
use crate::report::sections;
use crate::report::settings::{PowerState, SettingsItem};
use crate::scsi::sense::{self, PowerReading};
use crate::scsi::{cdb, firmware, log, mode, sanitize, unmap};

/// What the sd driver is told after a MODE SELECT, so that it reads the disk's pages again
/// (its write-cache state decides its flushes).
const RESCAN: &str = "device/rescan";

impl Ctx<'_, '_, '_> {
    /// Whether this device's jobs go to the SCSI twins: learnt once per device, from the
    /// IDENTIFY the ATA path sends first anyway (cached).
    pub(super) fn on_scsi(&mut self) -> bool {
        if let Some(known) = self.scsi_only {
            return known;
        }
        let known = self.dev.scsi_only();
        self.scsi_only = Some(known);
        known
    }

    /// Sends one SCSI command for `option`; a UNIT ATTENTION (the disk reporting a MODE
    /// SELECT, a reset, new microcode, instead of doing the command) gets it sent once more,
    /// as sg3_utils' users take it with `sg_turs`. A failure is reported in one sentence, and
    /// the answer is None.
    fn scsi_cmd(&mut self, cmd: &ScsiCommand, option: &str) -> Option<Vec<u8>> {
        let result = self.scsi_retrying(cmd);
        self.scsi_answer(result, cmd, option)
    }

    /// Sends one SCSI command, once more after a UNIT ATTENTION.
    fn scsi_retrying(&mut self, cmd: &ScsiCommand) -> Result<Vec<u8>, ScsiFailure> {
        let result = self.dev.scsi(cmd);
        if matches!(&result, Err(f) if f.sense.is_some_and(|s| s.is_unit_attention())) {
            return self.dev.scsi(cmd);
        }
        result
    }

    /// The data of an answer, or its failure reported in one sentence and None.
    fn scsi_answer(
        &mut self,
        result: Result<Vec<u8>, ScsiFailure>,
        cmd: &ScsiCommand,
        option: &str,
    ) -> Option<Vec<u8>> {
        match result {
            Ok(data) => Some(data),
            Err(f) => {
                let message = if f.unsupported() {
                    let sense = f.sense.map(|s| s.describe()).unwrap_or_default();
                    format!(
                        "{}: {option}: the disk does not take {} ({sense})",
                        self.name, cmd.name
                    )
                } else {
                    format!("{}: {option}: {}", self.name, f.reason)
                };
                self.out.error(&Error::new(f.class, message));
                None
            }
        }
    }
}

/// A mode page's name as SBC-4 gives it, for a sentence.
fn mode_page_name(page: u8) -> &'static str {
    match page {
        mode::CACHING => "caching",
        mode::POWER_CONDITION => "power condition: no standby timer to set",
        _ => "mode page",
    }
}

impl Ctx<'_, '_, '_> {
    /// A job the disk cannot do, in one sentence (not applicable).
    fn scsi_refuse(&mut self, option: &str, why: &str) {
        let message = format!("{}: {option}: {why}", self.name);
        self.out.error(&Error::not_applicable(message));
    }

    /// The MODE SENSE(10) pair of a page: current values (None after reporting the failure)
    /// and the changeable mask (None when the disk refuses that query: sdparm then sends the
    /// select unchecked, and so do we).
    fn mode_pair(&mut self, page: u8, option: &str) -> Option<(Vec<u8>, Option<Vec<u8>>)> {
        let [current_query, changeable] = mode::sense_pair(page);
        // INVALID FIELD IN CDB to a MODE SENSE of one page: the disk has no such page (QEMU's
        // scsi-hd and scsi_debug have no power condition page), which a user reads better
        // than the refused command
        let current = match self.scsi_retrying(&current_query) {
            Err(f) if f.sense.is_some_and(|s| s.key == 5 && s.asc == 0x24) => {
                let why = format!(
                    "the disk has no mode page {page:02X}h ({})",
                    mode_page_name(page)
                );
                self.scsi_refuse(option, &why);
                return None;
            }
            result => self.scsi_answer(result, &current_query, option)?,
        };
        let changeable = self.dev.scsi(&changeable).ok();
        Some((current, changeable))
    }

    /// Sends a MODE SELECT a set built (or says why it was not built), then has the sd driver
    /// read the pages again. True when the select went through.
    fn mode_select(
        &mut self,
        built: Result<ScsiCommand, mode::Refusal>,
        option: &'static OptionDef,
    ) -> bool {
        let select = match built {
            Ok(c) => c,
            Err(why) => {
                self.scsi_refuse(&option.spelling(), &why.0);
                return false;
            }
        };
        if self.scsi_cmd(&select, &option.spelling()).is_none() {
            return false;
        }
        self.set_done(option);
        // A disk without the attribute (a /dev/sg node) keeps the driver's old view; nothing
        // the user asked for failed.
        let _ = self.dev.set_sysfs_u64(RESCAN, 1);
        true
    }

    /// The caching page's current values, for a get.
    fn caching_page(&mut self, option: &str) -> Option<mode::Caching> {
        let [current, _] = mode::sense_pair(mode::CACHING);
        let answer = self.scsi_cmd(&current, option)?;
        let page = mode::caching(&answer);
        if page.is_none() {
            self.scsi_refuse(option, "the disk has no caching mode page (08h)");
        }
        page
    }

    /// The standard INQUIRY, the VPD pages the disk lists, and READ CAPACITY(16): the answers
    /// of `-I` and `-i` (None after reporting why the INQUIRY failed).
    fn scsi_identify(&mut self, option: &str) -> Option<(ScsiIdentifyReport, Vec<u8>)> {
        let inquiry = self.scsi_cmd(&cdb::inquiry(), option)?;
        let listed = self
            .dev
            .scsi(&cdb::inquiry_vpd(0x00))
            .ok()
            .map(|a| crate::scsi::inquiry::supported_pages(&a))
            .unwrap_or_default();
        let mut vpd = |code: u8| -> Option<Vec<u8>> {
            if !listed.contains(&code) {
                return None;
            }
            self.dev.scsi(&cdb::inquiry_vpd(code)).ok()
        };
        let serial = vpd(0x80);
        let identification = vpd(0x83);
        let limits = vpd(0xB0);
        let characteristics = vpd(0xB1);
        let provisioning = vpd(0xB2);
        // A UNIT ATTENTION left by an earlier command (a WRITE BUFFER's "microcode changed")
        // is reported once, to whichever command comes next: ask again, as sd does.
        let capacity = self.scsi_retrying(&cdb::read_capacity_16()).ok();
        let answers = Answers {
            inquiry: &inquiry,
            serial: serial.as_deref(),
            device_identification: identification.as_deref(),
            block_limits: limits.as_deref(),
            characteristics: characteristics.as_deref(),
            provisioning: provisioning.as_deref(),
            read_capacity_16: capacity.as_deref(),
        };
        match ScsiIdentifyReport::from_answers(&answers) {
            Some(r) => Some((r, inquiry)),
            None => {
                let message = format!("{}: {option}: the disk's INQUIRY data is empty", self.name);
                self.out.error(&Error::new(ErrorClass::Failed, message));
                None
            }
        }
    }

    /// The logical block length from READ CAPACITY(16) (512 when the disk does not say).
    fn scsi_block_bytes(&mut self) -> usize {
        self.scsi_retrying(&cdb::read_capacity_16())
            .ok()
            .and_then(|a| crate::scsi::capacity::decode(&a))
            .map(|c| c.block_length as usize)
            .filter(|b| (512..=65536).contains(b))
            .unwrap_or(512)
    }
}

/// The ATA step when the target takes ATA after all; true when it ran (the twin is done).
fn ata_instead(ctx: &mut Ctx, ata: Step) -> bool {
    if ctx.on_scsi() {
        return false;
    }
    ata(ctx);
    true
}

/// Step 59: `-I`, `--Istdout`, `--Iraw`.
pub(super) fn identify(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if !(f.identify || f.identify_stdout || f.identify_raw.is_some()) {
        return;
    }
    if ata_instead(ctx, super::reports::identify) {
        return;
    }
    let Some((r, inquiry)) = ctx.scsi_identify(&d::IDENTIFY.spelling()) else {
        return;
    };
    if ctx.flags.identify_stdout {
        ctx.out.text(&super::nvme::identify_dump(&inquiry));
        ctx.out.put(&sections::IdentifyBytesHex::of(&inquiry));
        return;
    }
    if let Some(path) = ctx.flags.identify_raw.clone() {
        super::identify::write_identify_raw(ctx, &path, &inquiry, "the SCSI INQUIRY data");
        return;
    }
    if !ctx.out.json {
        let mut text = Vec::new();
        let _ = report::render(&r, &mut text);
        ctx.out.bytes(&text);
    }
    ctx.out.put(&report::ScsiIdentify { scsi: r });
}

/// Step 58: `-i`: the model, revision and serial the disk gives in INQUIRY and VPD 80h, in
/// `-i`'s first line, and the capacity READ CAPACITY(16) gives.
pub(super) fn kernel_identity(ctx: &mut Ctx) {
    if !ctx.flags.identity {
        return;
    }
    if ata_instead(ctx, super::reports::kernel_identity) {
        return;
    }
    let Some((r, _)) = ctx.scsi_identify(&d::IDENTITY.spelling()) else {
        return;
    };
    let mut text = Vec::new();
    let _ = report::render_brief(&r, &mut text);
    let mut text = String::from_utf8_lossy(&text).into_owned();
    text.push_str(" Config={ SCSI }\n");
    if let Some(c) = &r.capacity {
        text.push_str(&format!(
            " LBAsects={}, SectSize={}\n",
            c.logical_blocks, c.logical_block_bytes
        ));
    }
    text.push('\n');
    ctx.out.text(&text);
    ctx.out.put(&sections::ScsiKernelIdentity {
        logical_blocks: r.capacity.as_ref().map(|c| c.logical_blocks),
        logical_block_bytes: r.capacity.as_ref().map(|c| c.logical_block_bytes),
        vendor: r.vendor,
        product: r.product,
        revision: r.revision,
        serial: r.serial,
    });
}

/// Step 57: `-C`: REQUEST SENSE's power condition, asked once more when the first answer is
/// an earlier command's sense or a UNIT ATTENTION.
pub(super) fn check_power(ctx: &mut Ctx) {
    if !ctx.flags.check_power.set {
        return;
    }
    if ata_instead(ctx, super::power::check_power) {
        return;
    }
    let option = d::CHECK_POWER.spelling();
    let first = ctx.scsi_cmd(&cdb::request_sense(), &option);
    let second = match sense::power_state(first.as_deref()) {
        PowerReading::AskAgain => ctx.scsi_cmd(&cdb::request_sense(), &option),
        PowerReading::State(_) => None,
    };
    let state = match sense::power_state_of(first.as_deref(), second.as_deref()) {
        sense::PowerState::ActiveIdle => PowerState::ActiveIdle,
        sense::PowerState::Idle => PowerState::Idle,
        sense::PowerState::Standby => PowerState::Standby,
        sense::PowerState::Unknown => PowerState::Unknown,
    };
    ctx.out.item(SettingsItem::DriveState { state });
}

/// Step 61: `-W` get: WCE of the caching page.
pub(super) fn get_write_cache(ctx: &mut Ctx) {
    if !ctx.flags.write_cache.get {
        return;
    }
    if ata_instead(ctx, super::reports::get_write_cache) {
        return;
    }
    let Some(page) = ctx.caching_page(&d::WRITE_CACHE.spelling()) else {
        return;
    };
    let enabled = Some(page.wce);
    ctx.out.item(SettingsItem::WriteCaching { enabled });
    let set = ctx.flags.write_cache.value;
    let shown = if page.wce { "1 (on)" } else { "0 (off)" };
    ctx.check_read_back(&d::WRITE_CACHE, set, page.wce == (set != 0), shown);
}

/// Step 26: `-W 0|1`: WCE through MODE SELECT(10); before turning it off, SYNCHRONIZE CACHE,
/// as hdparm flushes an ATA drive's cache first.
pub(super) fn set_write_cache(ctx: &mut Ctx) {
    let gs = ctx.flags.write_cache;
    if !gs.set {
        return;
    }
    if ata_instead(ctx, super::features::set_write_cache) {
        return;
    }
    let v = gs.value;
    super::features::announce_write_cache(ctx, v, gs.get);
    let option = d::WRITE_CACHE.spelling();
    let Some((current, changeable)) = ctx.mode_pair(mode::CACHING, &option) else {
        return;
    };
    if v == 0 {
        ctx.scsi_cmd(&cdb::synchronize_cache_10(), &option);
    }
    let built = mode::set_write_cache(&current, changeable.as_deref(), v != 0);
    ctx.mode_select(built, &d::WRITE_CACHE);
}

/// Step 60: `-A` get: read-ahead is on where DRA is clear.
pub(super) fn get_lookahead(ctx: &mut Ctx) {
    if !ctx.flags.lookahead.get {
        return;
    }
    if ata_instead(ctx, super::reports::get_lookahead) {
        return;
    }
    let Some(page) = ctx.caching_page(&d::LOOKAHEAD.spelling()) else {
        return;
    };
    let on = !page.dra;
    ctx.out.item(SettingsItem::LookAhead { enabled: Some(on) });
    let set = ctx.flags.lookahead.value;
    let shown = if on { "1 (on)" } else { "0 (off)" };
    ctx.check_read_back(&d::LOOKAHEAD, set, on == (set != 0), shown);
}

/// Step 20: `-A 0|1`: DRA through MODE SELECT(10).
pub(super) fn set_lookahead(ctx: &mut Ctx) {
    let Some((v, noisy)) = set_of(ctx.flags.lookahead) else {
        return;
    };
    if ata_instead(ctx, super::features::set_lookahead) {
        return;
    }
    if noisy {
        ctx.out.item(set_msg(
            &d::LOOKAHEAD,
            v,
            format!(" setting drive read-lookahead to {v}{}", on_off(v)),
        ));
    }
    let Some((current, changeable)) = ctx.mode_pair(mode::CACHING, &d::LOOKAHEAD.spelling()) else {
        return;
    };
    let built = mode::set_read_ahead(&current, changeable.as_deref(), v != 0);
    ctx.mode_select(built, &d::LOOKAHEAD);
}

/// Step 27: `-S N`: the power condition page's standby timer.
pub(super) fn set_standby(ctx: &mut Ctx) {
    let Some((v, noisy)) = set_only_of(ctx.flags.standby) else {
        return;
    };
    if ata_instead(ctx, super::features::set_standby) {
        return;
    }
    if noisy {
        ctx.out.item(set_msg(
            &d::STANDBY,
            v,
            format!(
                " setting standby to {v} ({})",
                crate::ata::values::standby_words(v)
            ),
        ));
    }
    let Some((current, changeable)) = ctx.mode_pair(mode::POWER_CONDITION, &d::STANDBY.spelling())
    else {
        return;
    };
    let built = mode::set_standby(&current, changeable.as_deref(), v);
    ctx.mode_select(built, &d::STANDBY);
}

/// Step 73: `-y`: START STOP UNIT, power condition FORCE_STANDBY_0 (the standby timer stays
/// in force).
pub(super) fn standby_now(ctx: &mut Ctx) {
    if !ctx.flags.standby_now.set {
        return;
    }
    if ata_instead(ctx, super::power::standby_now) {
        return;
    }
    let line = " issuing standby command\n";
    if ctx.announce(ctx.flags.standby_now, "standby", &d::STANDBY_NOW, line) {
        let c = cdb::start_stop_unit(cdb::StartStop::ForceStandby0);
        ctx.scsi_cmd(&c, &d::STANDBY_NOW.spelling());
    }
}

/// Step 75: `-Y`: START STOP UNIT with START=0: the disk stops until a START (the sd driver
/// sends one before the next medium access).
pub(super) fn sleep_now(ctx: &mut Ctx) {
    if !ctx.flags.sleep_now.set {
        return;
    }
    if ata_instead(ctx, super::power::sleep_now) {
        return;
    }
    let line = " issuing sleep command\n";
    if ctx.announce(ctx.flags.sleep_now, "sleep", &d::SLEEP_NOW, line) {
        let c = cdb::start_stop_unit(cdb::StartStop::Stop);
        ctx.scsi_cmd(&c, &d::SLEEP_NOW.spelling());
    }
}

/// `-F` on a SCSI disk (chosen by `steps::flush_drive_cache`): SYNCHRONIZE CACHE(10).
pub fn flush(ctx: &mut Ctx) {
    ctx.scsi_cmd(
        &cdb::synchronize_cache_10(),
        &d::FLUSH_DRIVE_CACHE.spelling(),
    );
}

/// Step 45: `-H`: the temperature log page; in range unless informational exceptions report
/// a warning or the temperature is at or above the reference.
pub(super) fn temperature(ctx: &mut Ctx) {
    if !ctx.flags.hitachi_temp.set {
        return;
    }
    if ata_instead(ctx, super::reports::hitachi_temperature) {
        return;
    }
    let option = d::HITACHI_TEMP.spelling();
    let Some(answer) = ctx.scsi_cmd(&cdb::log_sense(0x0D, 0), &option) else {
        return;
    };
    let Some(t) = log::temperature(&answer).filter(|t| t.current.is_some()) else {
        ctx.scsi_refuse(
            &option,
            "the disk's temperature log page gives no temperature",
        );
        return;
    };
    let ie = ctx
        .dev
        .scsi(&cdb::log_sense(0x2F, 0))
        .ok()
        .and_then(|a| log::informational_exceptions(&a));
    let celsius = t.current.unwrap_or_default();
    let in_range = log::in_range(&t, ie.as_ref());
    let mut text = super::reports::temperature_lines(&celsius, in_range);
    if let Some(r) = t.reference {
        text.push_str(&format!(" reference temperature (celsius):  {r}\n"));
    }
    ctx.out.text(&text);
    ctx.out.put(&sections::DriveTemperature::Scsi(
        sections::ScsiTemperature {
            kind: sections::TemperatureKind::Celsius,
            celsius,
            in_range,
            reference_celsius: t.reference,
        },
    ));
}

/// Step 39: `--trim-sector-ranges`: UNMAP within the disk's block limits.
pub(super) fn trim(ctx: &mut Ctx) {
    let Some(ranges) = ctx.flags.trim_ranges.clone() else {
        return;
    };
    if ata_instead(ctx, super::sectors::trim_ranges) {
        return;
    }
    ctx.stop_device();
    ctx.out.action("trim_sector_ranges", &d::TRIM_SECTOR_RANGES);
    if !super::raw_device::check_whole_device(ctx, 0) {
        return;
    }
    let Some(limits) = unmap_limits(ctx, &d::TRIM_SECTOR_RANGES.spelling()) else {
        return;
    };
    unmap_ranges(ctx, &ranges, limits, &mut 0);
}

/// Step 3: `--trim-sector-ranges-stdin` (exclusive): the pairs read as the ATA version reads
/// them, unmapped a command's worth at a time (bounded memory).
pub(super) fn trim_stdin(ctx: &mut Ctx) {
    if !ctx.flags.trim_ranges_stdin {
        return;
    }
    if ata_instead(ctx, super::sectors::trim_ranges_stdin) {
        return;
    }
    ctx.stop_device();
    ctx.out.action("trim", &d::TRIM_SECTOR_RANGES_STDIN);
    if !super::raw_device::check_whole_device(ctx, 0) {
        return;
    }
    let Some(limits) = unmap_limits(ctx, &d::TRIM_SECTOR_RANGES_STDIN.spelling()) else {
        return;
    };
    let blocks =
        ctx.dev.size_sectors().unwrap_or(u64::MAX) * 512 / ctx.scsi_block_bytes().max(512) as u64;
    let batch_len = limits.max_descriptors.clamp(1, 4096) as usize;
    let mut sent = 0u64;
    super::stdin_range_batches(ctx, blocks, batch_len, |ctx, batch| {
        unmap_ranges(ctx, batch, limits, &mut sent)
    });
}

/// The UNMAP limits of VPD B0h, or None after saying why the disk cannot unmap.
fn unmap_limits(ctx: &mut Ctx, option: &str) -> Option<unmap::Limits> {
    let limits = ctx
        .dev
        .scsi(&cdb::inquiry_vpd(0xB0))
        .ok()
        .and_then(|a| crate::scsi::inquiry::block_limits(&a))
        .and_then(|b| unmap::Limits::from_block_limits(&b));
    if limits.is_none() {
        ctx.scsi_refuse(option, unmap::NOT_SUPPORTED);
    }
    limits
}

/// Unmaps `ranges` (LBA, count) with hdparm's `trimming N sectors from M ranges` and
/// `succeeded`; `sent` counts the UNMAP commands already sent, for the stop report. False when
/// a command failed or a stop came.
fn unmap_ranges(
    ctx: &mut Ctx,
    ranges: &[(u64, u64)],
    limits: unmap::Limits,
    sent: &mut u64,
) -> bool {
    let total: u64 = ranges.iter().map(|r| r.1).sum();
    ctx.out.text(&format!(
        "trimming {total} sectors from {} ranges\n",
        ranges.len()
    ));
    let _ = ctx.dev.flush_buffer_cache();
    let option = d::TRIM_SECTOR_RANGES.spelling();
    for c in unmap::commands(ranges, limits) {
        if ctx.stop_requested() {
            if *sent == 0 {
                ctx.stopped_before("UNMAP");
            } else {
                ctx.interrupted(format!(
                    "{sent} UNMAP command(s) were sent; the ranges after them were not unmapped"
                ));
            }
            return false;
        }
        if ctx.scsi_cmd(&c, &option).is_none() {
            return false;
        }
        *sent += 1;
    }
    ctx.out.text("succeeded\n");
    true
}

/// Step 42: `--read-sector LBA`: READ(16) of one logical block, dumped as hdparm dumps a
/// sector.
pub(super) fn read_sector(ctx: &mut Ctx) {
    let Some(lba) = ctx.flags.read_sector else {
        return;
    };
    if ata_instead(ctx, super::read_sector) {
        return;
    }
    if !super::raw_device::check_whole_device(ctx, lba) {
        return;
    }
    let bytes = ctx.scsi_block_bytes();
    ctx.out.text(&format!("reading sector {lba}: "));
    match ctx.dev.scsi(&cdb::read_16(lba, bytes as u32)) {
        Ok(data) => super::raw_device::sector_read(ctx, lba, &data),
        Err(f) => super::raw_device::sector_failed(ctx, f.class, &f.reason),
    }
}

/// Step 40: `--write-sector LBA`: WRITE(16) of one zero-filled logical block, after the
/// buffer cache is flushed (as hdparm does).
pub(super) fn write_sector(ctx: &mut Ctx) {
    let Some(lba) = ctx.flags.write_sector else {
        return;
    };
    if ata_instead(ctx, super::sectors::write_sector) {
        return;
    }
    ctx.out.action("write_sector", &d::WRITE_SECTOR);
    if !super::raw_device::check_whole_device(ctx, lba) {
        return;
    }
    let bytes = ctx.scsi_block_bytes();
    if ctx.stopped_before("WRITE(16)") {
        return;
    }
    ctx.out.text(&format!("re-writing sector {lba}: "));
    let _ = ctx.dev.flush_buffer_cache();
    match ctx.dev.scsi(&cdb::write_16(lba, vec![0u8; bytes])) {
        Ok(_) => ctx.out.text("succeeded\n"),
        Err(f) => super::raw_device::sector_failed(ctx, f.class, &f.reason),
    }
}

/// Step 28: `--security-*`: ATA security is password-based, and no SCSI command means the
/// same: refused in one sentence, never turned into SANITIZE or FORMAT UNIT.
pub(super) fn security(ctx: &mut Ctx) {
    let Some((command, _)) = ctx.flags.security.clone() else {
        return;
    };
    if ata_instead(ctx, super::security::security) {
        return;
    }
    match command {
        SecurityCommand::Erase => ctx.scsi_refuse(
            &d::SECURITY_ERASE.spelling(),
            sanitize::SECURITY_ERASE_REFUSAL,
        ),
        SecurityCommand::EraseEnhanced => ctx.scsi_refuse(
            &d::SECURITY_ERASE_ENHANCED.spelling(),
            sanitize::SECURITY_ERASE_REFUSAL,
        ),
        _ => ctx.scsi_refuse(
            "--security-*",
            "a SCSI disk has no ATA security feature set (no password to set, unlock or disable)",
        ),
    }
}

/// Step 29: `--sanitize-*`: SANITIZE with IMMED (the erase runs in the background, as ATA's
/// does), and `--sanitize-status` from REQUEST SENSE's progress indicator.
pub(super) fn sanitize(ctx: &mut Ctx) {
    let Some(s) = ctx.flags.sanitize else {
        return;
    };
    if ata_instead(ctx, super::sanitize::sanitize) {
        return;
    }
    let def = super::sanitize::option_name(s);
    let (action, name) = match s {
        SanitizeCommand::Status => return sanitize_status(ctx),
        SanitizeCommand::FreezeLock | SanitizeCommand::AntifreezeLock => {
            return ctx.scsi_refuse(&def.spelling(), "SCSI's SANITIZE has no freeze lock")
        }
        SanitizeCommand::BlockErase => (sanitize::Action::BlockErase, "BLOCK_ERASE"),
        SanitizeCommand::CryptoScramble => (sanitize::Action::CryptoErase, "CRYPTO_ERASE"),
        SanitizeCommand::Overwrite { pattern } => (
            sanitize::Action::Overwrite {
                pattern,
                passes: ctx.flags.sanitize_passes.min(31) as u8,
            },
            "OVERWRITE",
        ),
    };
    let json_name = super::sanitize::action_name(s);
    ctx.out.action(json_name, def);
    if ctx.stopped_before(&format!("SANITIZE ({name})")) {
        return;
    }
    ctx.out.text(&format!("Issuing SANITIZE {name} command\n"));
    if ctx
        .scsi_cmd(&sanitize::command(action), &def.spelling())
        .is_none()
    {
        return;
    }
    super::sanitize::started_in_background(ctx, json_name, "disk");
}

/// `--sanitize-status [--wait]`: REQUEST SENSE; with `--wait` every second while a sanitize
/// runs, with the percentage on a terminal.
fn sanitize_status(ctx: &mut Ctx) {
    let option = d::SANITIZE_STATUS.spelling();
    ctx.out.action("sanitize_status", &d::SANITIZE_STATUS);
    let Some(answer) = ctx.scsi_cmd(&cdb::request_sense(), &option) else {
        return;
    };
    let mut status = sanitize::status(&answer);
    let terminal = ctx.out.stderr_is_terminal();
    while ctx.flags.sanitize_wait && matches!(status, sanitize::Status::InProgress { .. }) {
        if ctx.stop_requested() {
            ctx.finished_at_stop(
                "the disk goes on sanitizing in the background; --sanitize-status shows its progress"
                    .into(),
            );
            return;
        }
        if terminal {
            let done = status
                .percent()
                .map_or(String::new(), |p| format!(": {p}% done"));
            let (_, err) = ctx.out.streams();
            let _ = write!(err, "\r\x1b[K sanitize{done}");
            let _ = err.flush();
        }
        ctx.dev.pause(std::time::Duration::from_secs(1));
        let Some(answer) = ctx.scsi_cmd(&cdb::request_sense(), &option) else {
            return;
        };
        status = sanitize::status(&answer);
    }
    if terminal && ctx.flags.sanitize_wait {
        let (_, err) = ctx.out.streams();
        let _ = write!(err, "\r\x1b[K");
    }
    let (key, words) = match status {
        sanitize::Status::Idle => ("idle", "No sanitize in progress".to_string()),
        sanitize::Status::InProgress { .. } => (
            "in_progress",
            match status.percent() {
                Some(p) => format!("Sanitize in progress: {p}% done"),
                None => "Sanitize in progress".to_string(),
            },
        ),
        sanitize::Status::Failed => (
            "failed",
            "The last sanitize failed: the disk is in failure mode until a sanitize completes"
                .to_string(),
        ),
    };
    ctx.out
        .text(&format!("Sanitize status:\n    State:    {words}\n"));
    ctx.out.put(&sections::Sanitize::ScsiStatus(
        sections::ScsiSanitizeStatus {
            command: "sanitize_status",
            state: key,
            percent: status.percent(),
        },
    ));
}

/// Step 41: `--fwdownload*`: WRITE BUFFER. hdparm's default and mode 3 are segmented (07h),
/// mode 7 the whole image (05h), mode E deferred segments (0Eh) then activation (0Fh); the
/// `-max` variants ask for the largest segment the disk's buffer takes.
pub(super) fn fwdownload(ctx: &mut Ctx) {
    let Some((fw_mode, path)) = ctx.flags.fwdownload.clone() else {
        return;
    };
    if ata_instead(ctx, super::firmware::fwdownload) {
        return;
    }
    ctx.stop_device();
    ctx.out.action("fwdownload", &d::FWDOWNLOAD);
    if !super::raw_device::check_whole_device(ctx, 0) {
        return;
    }
    let name = path.display().to_string();
    let file = match crate::device::files::read_firmware(&path, crate::ata::fwdownload::MAX_BYTES) {
        Ok(f) => f,
        Err(e) => {
            ctx.out.error(&Error::os(ErrorClass::CannotOpen, &name, &e));
            return;
        }
    };
    if let Some(problem) = crate::ata::fwdownload::file_problem(&name, file.is_regular, file.len) {
        ctx.out.error(&Error::usage(problem));
        return;
    }
    let (mode, largest) = match fw_mode {
        FwMode::Default | FwMode::Mode3 => (firmware::Mode::Segmented, false),
        FwMode::Mode3Max => (firmware::Mode::Segmented, true),
        FwMode::Mode7 => (firmware::Mode::Whole, false),
        FwMode::ModeE => (firmware::Mode::Deferred, false),
        FwMode::ModeEMax => (firmware::Mode::Deferred, true),
    };
    let descriptor = ctx
        .dev
        .scsi(&cdb::read_buffer_descriptor())
        .ok()
        .and_then(|a| firmware::buffer_descriptor(&a));
    let wanted = largest.then_some(firmware::MAX_24);
    let segment = firmware::segment_bytes(wanted, descriptor);
    let commands = match firmware::commands(mode, &file.bytes, segment) {
        Ok(c) => c,
        Err(why) => {
            ctx.scsi_refuse(&d::FWDOWNLOAD.spelling(), &why);
            return;
        }
    };
    ctx.out.note(&format!(
        "fwdownload: SCSI WRITE BUFFER, {} command(s), segment={segment} size={}",
        commands.len(),
        file.len
    ));
    let total = commands.len();
    for (i, c) in commands.iter().enumerate() {
        if ctx.stop_requested() {
            if i == 0 {
                ctx.stopped_before("WRITE BUFFER");
            } else {
                ctx.interrupted(format!(
                    "{i} of {total} WRITE BUFFER commands were sent; the disk keeps its old firmware unless the last one went"
                ));
            }
            return;
        }
        if ctx.scsi_cmd(c, &d::FWDOWNLOAD.spelling()).is_none() {
            return;
        }
    }
    ctx.out.text(" Done.\n");
}
