//! hdparm's jobs on an NVMe namespace or controller: the NVMe twin of each step that has one,
//! run in place of the ATA step of its row in `steps::STEPS` when the device takes NVMe
//! commands (see `steps::run`). What each option means on NVMe:
//!
//! - `-I` Identify Controller and Namespace (plus the write cache, power state and APST
//!   features, and the firmware slot log), `--Istdout` the 4096-byte controller data, `--Iraw`
//!   the same to a file; `-i` the kernel's sysfs view (model, serial, firmware_rev, size).
//! - `-C` Get Features Power Management (02h) and APST (0Ch): nothing is woken.
//! - `-W` Get/Set Features Volatile Write Cache (06h); `-F` the Flush command.
//! - `-H` the composite temperature of the SMART / Health log with its thresholds.
//! - `-B` and `-S` APST (doc/hdparm.8 says how); `--trim-sector-ranges` Dataset Management
//!   deallocate; `--read-sector`/`--write-sector` one logical block.
//! - `--security-erase[-enhanced]` Format NVM with Secure Erase Settings user data
//!   (cryptographic); `--sanitize-*` the Sanitize command and log; `--fwdownload` Firmware
//!   Image Download in FWUG-sized chunks, then Firmware Commit.
//!
//! Must not: reach the device other than through `DeviceAccess::nvme` (every NVMe command
//! passes there, where `--dry-run` can see it), or decode bytes itself (that is `crate::nvme`).

use super::{set_msg, Ctx};
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::{SanitizeCommand, SecurityCommand};
use crate::error::{Error, ErrorClass};
use crate::nvme::command::{
    self as cmd, fw_chunk_bytes, NvmeCommand, SanitizeAction, SecureErase, CNS_CONTROLLER,
    CNS_NAMESPACE, NSID_ALL,
};
use crate::nvme::features as feat;
use crate::nvme::identify::{sanicap, IdCtrl, IdNs, IDENTIFY_BYTES};
use crate::nvme::log::{FirmwareSlots, SanitizeStatus, SmartLog, LOG_BYTES, LOG_FIRMWARE_SLOT};
use crate::report::nvme::{self as report, NvmeIdentifyReport};
use crate::report::sections;
use crate::report::settings::{PowerState, SettingsItem};

impl Ctx<'_, '_, '_> {
    /// The namespace of the node; 1 on the controller's node (the namespace a single-namespace
    /// controller has, which is what nvme-cli's `-n 1` would name).
    fn nvme_nsid(&mut self) -> u32 {
        self.dev.nvme_nsid().unwrap_or(1)
    }

    /// Sends one NVMe command; a failure is reported as `label: reason`.
    fn nvme_cmd(&mut self, c: &NvmeCommand, data: &mut [u8], label: &str) -> Option<u32> {
        match self.dev.nvme(c, data) {
            Ok(dw0) => Some(dw0),
            Err(f) => {
                let message = format!("{}: {label}: {}", self.name, f.reason);
                self.out.error(&Error::new(f.class, message));
                None
            }
        }
    }

    /// Identify Controller, or None after reporting why.
    fn nvme_id_ctrl(&mut self, label: &str) -> Option<(IdCtrl, Vec<u8>)> {
        let mut page = vec![0u8; IDENTIFY_BYTES];
        self.nvme_cmd(&NvmeCommand::identify(CNS_CONTROLLER, 0), &mut page, label)?;
        Some((IdCtrl::decode(&page), page))
    }

    fn nvme_id_ns(&mut self, nsid: u32, label: &str) -> Option<IdNs> {
        let mut page = vec![0u8; IDENTIFY_BYTES];
        self.nvme_cmd(
            &NvmeCommand::identify(CNS_NAMESPACE, nsid),
            &mut page,
            label,
        )?;
        Some(IdNs::decode(&page))
    }

    /// A feature's current value, quietly (None when the controller does not answer it).
    fn nvme_feature(&mut self, fid: u8, data: &mut [u8]) -> Option<u32> {
        self.dev.nvme(&NvmeCommand::get_features(fid, 0), data).ok()
    }

    /// A job on the whole namespace: refused on a partition (its LBAs are not the
    /// namespace's, and a format or sanitize erases more than it), as hdparm's raw-device
    /// check refuses a sector command there.
    fn nvme_whole_namespace(&mut self, option: &str) -> bool {
        match self.dev.nvme_partition_of() {
            None => true,
            Some(disk) => {
                let message = format!(
                    "{}: {option} works on a whole NVMe namespace, and this is a partition of {disk}; use {disk}",
                    self.name
                );
                self.out.error(&Error::usage(message));
                false
            }
        }
    }

    fn nvme_refuse(&mut self, option: &str, why: &str) {
        let message = format!("{}: {option} on NVMe: {why}", self.name);
        self.out.error(&Error::not_applicable(message));
    }
}

/// Step 59: `-I`, `--Istdout`, `--Iraw FILE`.
pub(super) fn identify(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if !(f.identify || f.identify_stdout || f.identify_raw.is_some()) {
        return;
    }
    let Some((c, page)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return;
    };
    if ctx.flags.identify_stdout {
        ctx.out.text(&identify_dump(&page));
        ctx.out.put(&sections::IdentifyBytesHex::of(&page));
        return;
    }
    if let Some(path) = ctx.flags.identify_raw.clone() {
        super::identify::write_identify_raw(ctx, &path, &page, "NVMe Identify Controller data");
        return;
    }
    let nsid = ctx.dev.nvme_nsid();
    let namespace = match nsid {
        Some(n) => ctx.nvme_id_ns(n, "Identify Namespace failed"),
        None => None,
    };
    let mut none = [0u8; 0];
    let wce = if c.has_volatile_write_cache() {
        ctx.nvme_feature(feat::FID_VOLATILE_WRITE_CACHE, &mut none)
            .map(feat::write_cache_enabled)
    } else {
        None
    };
    let ps = ctx
        .nvme_feature(feat::FID_POWER_MANAGEMENT, &mut none)
        .map(feat::power_state);
    let apste = if c.has_apst() {
        let mut table = vec![0u8; feat::APST_BYTES];
        ctx.nvme_feature(feat::FID_APST, &mut table)
            .map(feat::apst_enabled)
    } else {
        None
    };
    let mut log = vec![0u8; LOG_BYTES];
    let firmware = ctx
        .dev
        .nvme(
            &NvmeCommand::get_log_page(LOG_FIRMWARE_SLOT, NSID_ALL, LOG_BYTES as u32),
            &mut log,
        )
        .ok()
        .map(|_| FirmwareSlots::decode(&log, c.firmware_slots().0));
    let attr = |ctx: &mut Ctx, a: &str| ctx.dev.nvme_controller_attr(a).ok();
    let speed =
        attr(ctx, "device/current_link_speed").map(|s| s.trim_end_matches(" PCIe").to_string());
    let width = attr(ctx, "device/current_link_width");
    let controller_name = attr(ctx, "kname");
    let r = NvmeIdentifyReport {
        nsid,
        controller_name,
        capacity: namespace.as_ref().map(report::capacity),
        lba_format_in_use: namespace.as_ref().map(IdNs::lbaf_in_use),
        namespace,
        transport: report::Transport {
            pcie_link_speed: speed,
            pcie_link_width: width,
            nvme_version: c.version_text(),
        },
        write_cache: report::WriteCache {
            present: c.has_volatile_write_cache(),
            enabled: wce,
        },
        power_state_current: ps,
        apst: report::Apst {
            supported: c.has_apst(),
            enabled: apste,
        },
        temperature_thresholds_kelvin: report::Thresholds {
            warning: c.wctemp,
            critical: c.cctemp,
        },
        firmware,
        controller: c,
    };
    if !ctx.out.json {
        let mut text = Vec::new();
        let _ = report::render(&r, &mut text);
        ctx.out.bytes(&text);
    }
    ctx.out.put(&report::NvmeIdentify { nvme: r });
}

/// `--Istdout` for NVMe: the 4096 bytes, 16 per line in hex (the byte offset first), as
/// `nvme id-ctrl -b | xxd` would show them.
pub(super) fn identify_dump(page: &[u8]) -> String {
    let mut s = String::new();
    for (i, line) in page.chunks(16).enumerate() {
        s.push_str(&format!("{:04x}:", i * 16));
        for b in line {
            s.push_str(&format!(" {b:02x}"));
        }
        s.push('\n');
    }
    s
}

/// Step 58: `-i`, the kernel's view from sysfs (the controller's model, serial and firmware
/// revision, the namespace's size), in `-i`'s first lines.
pub(super) fn kernel_identity(ctx: &mut Ctx) {
    if !ctx.flags.identity {
        return;
    }
    let attr = |ctx: &mut Ctx, a: &str| ctx.dev.nvme_controller_attr(a).unwrap_or_default();
    let (model, fw, serial) = (
        attr(ctx, "model"),
        attr(ctx, "firmware_rev"),
        attr(ctx, "serial"),
    );
    let sectors = ctx.dev.size_sectors().ok();
    let block = ctx.dev.logical_sector_size().ok();
    let mut text = format!("\n Model={model}, FwRev={fw}, SerialNo={serial}\n Config={{ NVMe }}\n");
    if let (Some(n), Some(b)) = (sectors, block) {
        let blocks = n * 512 / u64::from(b.max(512));
        text.push_str(&format!(" LBAsects={blocks}, SectSize={b}\n"));
    }
    text.push('\n');
    ctx.out.text(&text);
    ctx.out.put(&sections::NvmeKernelIdentity {
        model,
        firmware_rev: fw,
        serial,
        size_512_byte_sectors: sectors,
        logical_block_bytes: block,
    });
}

/// Step 57: `-C`: the power state (Get Features 02h) and APST, in `-C`'s words: an
/// operational power state is `active/idle`, a non-operational one `standby`.
pub(super) fn check_power(ctx: &mut Ctx) {
    if !ctx.flags.check_power.set {
        return;
    }
    let mut none = [0u8; 0];
    let ps = ctx
        .nvme_cmd(
            &NvmeCommand::get_features(feat::FID_POWER_MANAGEMENT, 0),
            &mut none,
            "Get Features (power management) failed",
        )
        .map(feat::power_state);
    let Some(ps) = ps else {
        ctx.out.item(SettingsItem::DriveState {
            state: PowerState::Unknown,
        });
        return;
    };
    // Identify tells which states are non-operational; without it, PS0 is operational (it
    // always is) and others unknown.
    let mut page = vec![0u8; IDENTIFY_BYTES];
    let id = ctx
        .dev
        .nvme(&NvmeCommand::identify(CNS_CONTROLLER, 0), &mut page)
        .ok()
        .map(|_| IdCtrl::decode(&page));
    let non_op = id
        .as_ref()
        .and_then(|c| c.psds.get(usize::from(ps)))
        .map(|p| p.non_operational_state != 0);
    let apst = match id.as_ref().filter(|c| c.has_apst()) {
        Some(_) => {
            let mut table = vec![0u8; feat::APST_BYTES];
            ctx.nvme_feature(feat::FID_APST, &mut table)
                .map(feat::apst_enabled)
        }
        None => None,
    };
    let state = match non_op {
        Some(true) => PowerState::Standby,
        Some(false) => PowerState::ActiveIdle,
        None if ps == 0 => PowerState::ActiveIdle,
        None => PowerState::Unknown,
    };
    ctx.out.item(SettingsItem::DriveState { state });
    let apst_words = match (id.as_ref().map(IdCtrl::has_apst), apst) {
        (Some(false), _) => "not supported",
        (_, Some(true)) => "on",
        (_, Some(false)) => "off",
        _ => "unknown",
    };
    let op = match non_op {
        Some(true) => "non-operational",
        Some(false) => "operational",
        None => "unknown",
    };
    ctx.out.text(&format!(
        " NVMe power state:  {ps} ({op}); APST: {apst_words}\n"
    ));
    ctx.out.put(&sections::NvmePower {
        power_state: ps,
        non_operational: non_op,
        apst_enabled: apst,
    });
}

/// Step 61: `-W` get: Volatile Write Cache (06h).
pub(super) fn get_write_cache(ctx: &mut Ctx) {
    if !ctx.flags.write_cache.get {
        return;
    }
    let mut none = [0u8; 0];
    let present = ctx
        .nvme_id_ctrl("Identify Controller failed")
        .map(|(c, _)| c.has_volatile_write_cache());
    let enabled = match present {
        Some(true) => ctx
            .nvme_cmd(
                &NvmeCommand::get_features(feat::FID_VOLATILE_WRITE_CACHE, 0),
                &mut none,
                "Get Features (volatile write cache) failed",
            )
            .map(feat::write_cache_enabled),
        _ => None,
    };
    if present.is_none() {
        return;
    }
    ctx.out.item(SettingsItem::WriteCaching { enabled });
    let set = ctx.flags.write_cache.value;
    let shown = match enabled {
        Some(true) => "1 (on)",
        Some(false) => "0 (off)",
        None => "not supported",
    };
    ctx.check_read_back(&d::WRITE_CACHE, set, enabled == Some(set != 0), shown);
}

/// Step 26: `-W N`: Set Features Volatile Write Cache; before disabling it, a Flush, as
/// hdparm flushes an ATA drive's cache before turning it off.
pub(super) fn set_write_cache(ctx: &mut Ctx) {
    let gs = ctx.flags.write_cache;
    if !gs.set {
        return;
    }
    let v = gs.value;
    super::features::announce_write_cache(ctx, v, gs.get);
    let nsid = ctx.nvme_nsid();
    if v == 0 {
        ctx.nvme_cmd(&NvmeCommand::flush(nsid), &mut [], "Flush failed");
    }
    let c = NvmeCommand::set_features(feat::FID_VOLATILE_WRITE_CACHE, 0, u32::from(v != 0));
    if ctx
        .nvme_cmd(&c, &mut [], "Set Features (volatile write cache) failed")
        .is_some()
    {
        ctx.set_done(&d::WRITE_CACHE);
    }
}

/// `-F` on NVMe (chosen by `steps::flush_drive_cache`): the Flush command.
pub fn flush(ctx: &mut Ctx) {
    let nsid = ctx.nvme_nsid();
    ctx.nvme_cmd(&NvmeCommand::flush(nsid), &mut [], "Flush failed");
}

/// Step 45: `-H`: the composite temperature from the SMART / Health log, in hdparm's two
/// lines (in range: below the warning threshold, and no temperature warning), then the
/// thresholds.
pub(super) fn temperature(ctx: &mut Ctx) {
    if !ctx.flags.hitachi_temp.set {
        return;
    }
    let mut log = vec![0u8; LOG_BYTES];
    let c = NvmeCommand::get_log_page(cmd::LOG_SMART_HEALTH, NSID_ALL, LOG_BYTES as u32);
    if ctx
        .nvme_cmd(&c, &mut log, "Get Log Page (SMART / Health) failed")
        .is_none()
    {
        return;
    }
    let smart = SmartLog::decode(&log);
    let ids = ctx
        .nvme_id_ctrl("Identify Controller failed")
        .map(|(c, _)| c);
    let (warn, crit) = ids.map_or((0, 0), |c| (c.wctemp, c.cctemp));
    let Some(celsius) = smart.celsius() else {
        ctx.out.error(&Error::new(
            ErrorClass::Failed,
            format!(
                "{}: -H: the controller reports no composite temperature",
                ctx.name
            ),
        ));
        return;
    };
    let in_range = (warn == 0 || smart.temperature < warn) && smart.critical_warning & 0x2 == 0;
    let mut text = super::reports::temperature_lines(&celsius, Some(in_range));
    for (name, k) in [("warning", warn), ("critical", crit)] {
        if k != 0 {
            text.push_str(&format!(
                " {name} temperature threshold (celsius):  {}\n",
                i32::from(k) - 273
            ));
        }
    }
    ctx.out.text(&text);
    ctx.out.put(&sections::DriveTemperature::Nvme(
        sections::NvmeTemperature {
            kind: sections::TemperatureKind::Celsius,
            celsius,
            in_range,
            kelvin: smart.temperature,
            warning_kelvin: warn,
            critical_kelvin: crit,
            critical_warning: smart.critical_warning,
        },
    ));
}

/// The deepest non-operational power state, for APST's table (None: there is none, and APST
/// has nowhere to go).
fn deepest_idle_state(c: &IdCtrl) -> Option<u8> {
    c.psds
        .iter()
        .enumerate()
        .rev()
        .find(|(_, p)| p.non_operational_state != 0)
        .map(|(i, _)| i as u8)
}

/// Sets APST: `idle_ms` None disables it; Some builds a table that moves every operational
/// state to the deepest non-operational one after that much idleness (what `-S` asks of a
/// disk: after N idle seconds, stop).
fn set_apst(ctx: &mut Ctx, option: &OptionDef, idle_ms: Option<u32>) -> bool {
    let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return false;
    };
    if !c.has_apst() {
        ctx.nvme_refuse(
            &option.spelling(),
            "the controller has no Autonomous Power State Transitions (APSTA 0), which is what this option maps to",
        );
        return false;
    }
    let mut table = vec![0u8; feat::APST_BYTES];
    let value = match idle_ms {
        None => {
            // Keep the table the controller has; only APSTE changes.
            let _ = ctx.nvme_feature(feat::FID_APST, &mut table);
            0
        }
        Some(ms) => {
            let Some(target) = deepest_idle_state(&c) else {
                ctx.nvme_refuse(
                    &option.spelling(),
                    "the controller lists no non-operational power state to go to",
                );
                return false;
            };
            let entries: Vec<feat::ApstEntry> = c
                .psds
                .iter()
                .enumerate()
                .map(|(i, p)| {
                    if p.non_operational_state == 0 && (i as u8) < target {
                        feat::ApstEntry {
                            target,
                            idle_ms: ms.min(0xFF_FFFF),
                        }
                    } else {
                        feat::ApstEntry {
                            target: 0,
                            idle_ms: 0,
                        }
                    }
                })
                .collect();
            table = feat::encode_apst(&entries);
            1
        }
    };
    ctx.nvme_cmd(
        &NvmeCommand::set_features(feat::FID_APST, 0, value),
        &mut table,
        "Set Features (APST) failed",
    )
    .is_some()
}

/// `-S` codes in milliseconds (reference §4.2): 1..240 × 5 s, 241..251 × 30 min, 252 21 min,
/// 255 21 min 15 s; 253 (vendor) and 254 (reserved) have no length.
fn standby_ms(code: u32) -> Option<u32> {
    match code {
        1..=240 => Some(code * 5_000),
        241..=251 => Some((code - 240) * 30 * 60_000),
        252 => Some(21 * 60_000),
        255 => Some((21 * 60 + 15) * 1000),
        _ => None,
    }
}

/// Step 22: `-B N` as APST: 255 (power management off) disables APST; 1..254 enables it
/// with the controller's own table (APM's levels have no NVMe counterpart finer than that).
pub(super) fn set_apst_from_apm(ctx: &mut Ctx) {
    let gs = ctx.flags.apm;
    if !gs.set {
        return;
    }
    let v = gs.value;
    if gs.get {
        let words = if v == 255 { "off" } else { "on" };
        ctx.out.item(set_msg(
            &d::APM,
            v,
            format!(" setting Autonomous Power State Transitions (for -B {v}) {words}"),
        ));
    }
    let ok = if v == 255 {
        set_apst(ctx, &d::APM, None)
    } else {
        // Enable with the table in place: read it, then set APSTE with it.
        let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
            return;
        };
        if !c.has_apst() {
            ctx.nvme_refuse(
                &d::APM.spelling(),
                "the controller has no Autonomous Power State Transitions (APSTA 0), which is what -B maps to",
            );
            return;
        }
        let mut table = vec![0u8; feat::APST_BYTES];
        let _ = ctx.nvme_feature(feat::FID_APST, &mut table);
        ctx.nvme_cmd(
            &NvmeCommand::set_features(feat::FID_APST, 0, 1),
            &mut table,
            "Set Features (APST) failed",
        )
        .is_some()
    };
    if ok {
        ctx.set_done(&d::APM);
    }
}

/// Step 27: `-S N` as APST: 0 disables it; other codes go to the deepest non-operational
/// power state after the timer's length of idleness; 253 and 254 have no length: refused.
pub(super) fn set_apst_from_standby(ctx: &mut Ctx) {
    let so = ctx.flags.standby;
    if !so.set {
        return;
    }
    let v = so.value;
    let ms = standby_ms(v);
    if v != 0 && ms.is_none() {
        ctx.nvme_refuse(
            &d::STANDBY.spelling(),
            &format!("{v} names no length of time, which APST needs"),
        );
        return;
    }
    if so.noisy {
        ctx.out.item(set_msg(
            &d::STANDBY,
            v,
            format!(
                " setting standby to {v} ({}) as APST",
                crate::ata::values::standby_words(v)
            ),
        ));
    }
    set_apst(ctx, &d::STANDBY, if v == 0 { None } else { ms });
}

/// Step 62: `-B` get: APST's state.
pub(super) fn get_apst(ctx: &mut Ctx) {
    if !ctx.flags.apm.get {
        return;
    }
    let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return;
    };
    let enabled = if c.has_apst() {
        let mut table = vec![0u8; feat::APST_BYTES];
        ctx.nvme_cmd(
            &NvmeCommand::get_features(feat::FID_APST, 0),
            &mut table,
            "Get Features (APST) failed",
        )
        .map(feat::apst_enabled)
    } else {
        None
    };
    let words = match (c.has_apst(), enabled) {
        (false, _) => "not supported",
        (true, Some(true)) => "on",
        (true, Some(false)) => "off",
        (true, None) => return,
    };
    ctx.out.text(&format!(" APM_level\t= APST {words}\n"));
    ctx.out.put(&sections::Apst {
        supported: c.has_apst(),
        enabled,
    });
    if c.has_apst() {
        let set = ctx.flags.apm.value;
        ctx.check_read_back(
            &d::APM,
            set,
            enabled == Some(set != 255),
            &format!("APST {words}"),
        );
    }
}

/// Step 39: `--trim-sector-ranges LBA:COUNT...`: Dataset Management with Deallocate, 256
/// ranges per command; LBAs and counts are the namespace's logical blocks.
pub(super) fn trim(ctx: &mut Ctx) {
    let Some(ranges) = ctx.flags.trim_ranges.clone() else {
        return;
    };
    if !ctx.nvme_whole_namespace(&d::TRIM_SECTOR_RANGES.spelling()) {
        return;
    }
    ctx.out.action("trim", &d::TRIM_SECTOR_RANGES);
    deallocate(ctx, &ranges);
}

/// Step 3: `--trim-sector-ranges-stdin`: the `lba:count` pairs on standard input, read as the
/// ATA version reads them (hdparm's `scanf`), deallocated 256 ranges per command, each batch
/// reported as hdparm reports one. Exclusive, as in hdparm: nothing else runs after it.
pub(super) fn trim_stdin(ctx: &mut Ctx) {
    if !ctx.flags.trim_ranges_stdin {
        return;
    }
    ctx.stop_device();
    if !ctx.nvme_whole_namespace(&d::TRIM_SECTOR_RANGES_STDIN.spelling()) {
        return;
    }
    ctx.out.action("trim", &d::TRIM_SECTOR_RANGES_STDIN);
    let blocks = ctx.dev.size_sectors().unwrap_or(u64::MAX) * 512 / block_bytes(ctx) as u64;
    // Read as it is deallocated: a piece of stdin and one command's ranges at a time.
    super::stdin_range_batches(ctx, blocks, cmd::DSM_MAX_RANGES, |ctx, batch| {
        deallocate(ctx, batch)
    });
}

/// Deallocates `ranges` (LBA, count), 256 to a Dataset Management command, with hdparm's
/// `trimming N sectors from M ranges` and `succeeded`; false when a command failed.
fn deallocate(ctx: &mut Ctx, ranges: &[(u64, u64)]) -> bool {
    let total: u64 = ranges.iter().map(|r| r.1).sum();
    ctx.out.text(&format!(
        "trimming {total} sectors from {} ranges\n",
        ranges.len()
    ));
    let nsid = ctx.nvme_nsid();
    let _ = ctx.dev.flush_buffer_cache();
    for batch in ranges.chunks(cmd::DSM_MAX_RANGES) {
        // The current command of a TRIM is the batch being sent.
        if ctx.stopped_before("Dataset Management (deallocate)") {
            return false;
        }
        let list: Vec<(u64, u32)> = batch.iter().map(|&(l, n)| (l, n as u32)).collect();
        let mut data = cmd::dsm_ranges(&list);
        let c = NvmeCommand::dsm_deallocate(nsid, list.len());
        if ctx
            .nvme_cmd(&c, &mut data, "Dataset Management (deallocate) FAILED")
            .is_none()
        {
            return false;
        }
    }
    ctx.out.text("succeeded\n");
    true
}

/// The logical block size of the node's namespace.
fn block_bytes(ctx: &mut Ctx) -> usize {
    ctx.dev.logical_sector_size().unwrap_or(512).max(512) as usize
}

/// Step 42: `--read-sector LBA`: one logical block, dumped as hdparm dumps a sector.
pub(super) fn read_sector(ctx: &mut Ctx) {
    let Some(lba) = ctx.flags.read_sector else {
        return;
    };
    if !ctx.nvme_whole_namespace(&d::READ_SECTOR.spelling()) {
        return;
    }
    let nsid = ctx.nvme_nsid();
    let mut data = vec![0u8; block_bytes(ctx)];
    ctx.out.text(&format!("reading sector {lba}: "));
    match ctx
        .dev
        .nvme(&NvmeCommand::read_write(false, nsid, lba, 1), &mut data)
    {
        Ok(_) => super::raw_device::sector_read(ctx, lba, &data),
        Err(f) => super::raw_device::sector_failed(ctx, f.class, &f.reason),
    }
}

/// Step 40: `--write-sector LBA`: one zero-filled logical block, after the buffer cache is
/// flushed (as hdparm does).
pub(super) fn write_sector(ctx: &mut Ctx) {
    let Some(lba) = ctx.flags.write_sector else {
        return;
    };
    if !ctx.nvme_whole_namespace(&d::WRITE_SECTOR.spelling()) {
        return;
    }
    ctx.out.action("write_sector", &d::WRITE_SECTOR);
    if ctx.stopped_before("Write") {
        return;
    }
    let _ = ctx.dev.flush_buffer_cache();
    let nsid = ctx.nvme_nsid();
    let mut data = vec![0u8; block_bytes(ctx)];
    ctx.out.text(&format!("re-writing sector {lba}: "));
    match ctx
        .dev
        .nvme(&NvmeCommand::read_write(true, nsid, lba, 1), &mut data)
    {
        Ok(_) => ctx.out.text("succeeded\n"),
        Err(f) => super::raw_device::sector_failed(ctx, f.class, &f.reason),
    }
}

/// Step 28: `--security-erase PWD` is Format NVM with Secure Erase Settings "user data",
/// `--security-erase-enhanced PWD` with "cryptographic"; the LBA format stays the one in use.
/// NVMe's format takes no password (the ATA one is not sent anywhere). The other security
/// commands belong to the ATA security feature set, which NVMe does not have.
pub(super) fn security(ctx: &mut Ctx) {
    let Some((command, _)) = ctx.flags.security.clone() else {
        return;
    };
    let (ses, words, def) = match command {
        SecurityCommand::Erase => (SecureErase::UserData, "user data", &d::SECURITY_ERASE),
        SecurityCommand::EraseEnhanced => (
            SecureErase::Cryptographic,
            "cryptographic",
            &d::SECURITY_ERASE_ENHANCED,
        ),
        _ => {
            ctx.nvme_refuse(
                "--security-unlock/set-pass/disable",
                "NVMe has no ATA security feature set (its drive locking is TCG Opal, through Security Send/Receive, which hdparm-rs does not speak)",
            );
            return;
        }
    };
    let option = &def.spelling();
    if !ctx.nvme_whole_namespace(option) {
        return;
    }
    let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return;
    };
    if c.oacs & crate::nvme::identify::oacs::FORMAT == 0 {
        ctx.nvme_refuse(
            option,
            "the controller does not support Format NVM (OACS bit 1)",
        );
        return;
    }
    if ses == SecureErase::Cryptographic && c.fna & crate::nvme::identify::fna::CRYPTO_ERASE == 0 {
        ctx.nvme_refuse(
            option,
            "the controller has no cryptographic erase (FNA bit 2)",
        );
        return;
    }
    let nsid = ctx.nvme_nsid();
    let Some(ns) = ctx.nvme_id_ns(nsid, "Identify Namespace failed") else {
        return;
    };
    ctx.out.action("security_erase", def);
    if ctx.stopped_before("FORMAT NVM") {
        return;
    }
    ctx.out.text(&format!(
        " Issuing FORMAT NVM command (secure erase: {words}), namespace {nsid}, LBA format {}\n",
        ns.lbaf_in_use()
    ));
    let f = NvmeCommand::format_nvm(nsid, ns.lbaf_in_use(), ses);
    ctx.nvme_cmd(&f, &mut [], "FORMAT NVM failed");
}

/// Step 29: `--sanitize-*`: Sanitize (block erase, crypto erase, overwrite) and the Sanitize
/// Status log.
pub(super) fn sanitize(ctx: &mut Ctx) {
    let Some(s) = ctx.flags.sanitize else {
        return;
    };
    if !ctx.nvme_whole_namespace("--sanitize") {
        return;
    }
    let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return;
    };
    let (action, name, bit) = match s {
        SanitizeCommand::Status => return sanitize_status(ctx, &c),
        SanitizeCommand::FreezeLock | SanitizeCommand::AntifreezeLock => {
            return ctx.nvme_refuse(
                "--sanitize-freeze-lock/--sanitize-antifreeze-lock",
                "NVMe's Sanitize has no freeze lock",
            );
        }
        SanitizeCommand::BlockErase => (
            SanitizeAction::BlockErase,
            "BLOCK_ERASE",
            sanicap::BLOCK_ERASE,
        ),
        SanitizeCommand::CryptoScramble => (
            SanitizeAction::CryptoErase,
            "CRYPTO_SCRAMBLE",
            sanicap::CRYPTO_ERASE,
        ),
        SanitizeCommand::Overwrite { pattern } => {
            // hdparm's passes: 0 means 16; NVMe counts 1..=15 (0 there means 16 too).
            let passes = ctx.flags.sanitize_passes;
            (
                SanitizeAction::Overwrite {
                    passes: if passes == 0 { 16 } else { passes as u8 },
                    pattern,
                },
                "OVERWRITE",
                sanicap::OVERWRITE,
            )
        }
    };
    if c.sanicap & bit == 0 {
        ctx.nvme_refuse(
            "--sanitize",
            &format!(
                "the controller does not support this sanitize action (SANICAP 0x{:08x})",
                c.sanicap
            ),
        );
        return;
    }
    // One action for the three kinds, named after the refusal's `--sanitize`.
    ctx.out
        .action_spelled("sanitize", "--sanitize".into(), None);
    if ctx.stopped_before("Sanitize") {
        return;
    }
    ctx.out.text(&format!("Issuing SANITIZE_{name} command\n"));
    let mut command = NvmeCommand::sanitize(action);
    if let SanitizeAction::Overwrite { passes: 16, .. } = action {
        command.cdw10 &= !0xF0; // OWPASS 0: 16 passes
    }
    let sent = match ctx.dev.nvme(&command, &mut []) {
        Ok(_) => true,
        Err(f) => {
            // SC 1Dh: one is already running; the status says how far it got.
            let hint = if f.status.map(|s| s & 0x7FF) == Some(0x1D) {
                " (`--sanitize-status` shows its progress)"
            } else {
                ""
            };
            let message = format!("{}: SANITIZE failed: {}{hint}", ctx.name, f.reason);
            ctx.out.error(&Error::new(f.class, message));
            false
        }
    };
    if sent {
        ctx.out.text(super::sanitize::STARTED_IN_BACKGROUND);
    }
}

fn sanitize_status(ctx: &mut Ctx, c: &IdCtrl) {
    if c.sanicap & 0x7 == 0 {
        ctx.nvme_refuse(
            "--sanitize-status",
            "the controller does not support Sanitize (SANICAP 0)",
        );
        return;
    }
    let mut log = vec![0u8; LOG_BYTES];
    let g = NvmeCommand::get_log_page(cmd::LOG_SANITIZE_STATUS, 0, LOG_BYTES as u32);
    if ctx
        .nvme_cmd(&g, &mut log, "Get Log Page (sanitize status) failed")
        .is_none()
    {
        return;
    }
    let mut st = SanitizeStatus::decode(&log);
    if ctx.flags.sanitize_wait {
        st = match wait_for_sanitize(ctx, st, &g) {
            Some(st) => st,
            None => return,
        };
    }
    let mut text = format!("Sanitize status:\n    State:    {}\n", st.state_text());
    if st.state() == crate::nvme::log::SanitizeState::InProgress {
        text.push_str(&format!(
            "    Progress: 0x{:x} ({}%)\n",
            st.sprog,
            st.percent() as u32
        ));
    }
    ctx.out.text(&text);
    ctx.out.put(&sections::NvmeSanitizeStatus {
        state: st.state(),
        progress_percent: st.percent(),
        log: st,
    });
}

/// `--sanitize-status --wait` (ours) on NVMe: reads the Sanitize Status log every second
/// while a sanitize is in progress, with the percentage done and an estimate of the time left
/// on stderr when it is a terminal (as for ATA); the last status, or None when a read failed.
fn wait_for_sanitize(
    ctx: &mut Ctx,
    first: SanitizeStatus,
    get_log: &NvmeCommand,
) -> Option<SanitizeStatus> {
    let terminal = ctx.out.stderr_is_terminal();
    let start = std::time::Instant::now();
    let mut seen: Option<(f64, f64)> = None;
    let mut st = first;
    while st.state() == crate::nvme::log::SanitizeState::InProgress {
        if ctx.stop_requested() {
            ctx.finished_at_stop(format!(
                "the drive goes on sanitizing in the background ({}% done); --sanitize-status shows its progress",
                st.percent() as u32
            ));
            return None;
        }
        let now = (start.elapsed().as_secs_f64(), st.percent() / 100.0);
        let first_seen = *seen.get_or_insert(now);
        if terminal {
            let left = crate::ata::sanitize::remaining_secs(first_seen, now)
                .map(|s| {
                    let s = s.round() as u64;
                    format!(", about {}:{:02}:{:02} left", s / 3600, s / 60 % 60, s % 60)
                })
                .unwrap_or_default();
            let (_, err) = ctx.out.streams();
            let _ = write!(
                err,
                "\r\x1b[K sanitize: {}% done{left}",
                st.percent() as u32
            );
            let _ = err.flush();
        }
        ctx.dev.pause(std::time::Duration::from_secs(1));
        let mut log = vec![0u8; LOG_BYTES];
        ctx.nvme_cmd(get_log, &mut log, "Get Log Page (sanitize status) failed")?;
        st = SanitizeStatus::decode(&log);
    }
    if terminal && seen.is_some() {
        let (_, err) = ctx.out.streams();
        let _ = write!(err, "\r\x1b[K");
    }
    Some(st)
}

/// Step 41: `--fwdownload FILE`: Firmware Image Download in chunks of FWUG (4 KiB when the
/// controller gives none), then Firmware Commit (slot chosen by the controller, activate at
/// the next reset). The `-mode*` variants are ATA's DOWNLOAD MICROCODE modes and mean nothing
/// here; they download the same way.
pub(super) fn fwdownload(ctx: &mut Ctx) {
    let Some((_, path)) = ctx.flags.fwdownload.clone() else {
        return;
    };
    if let Some(disk) = ctx.dev.nvme_partition_of() {
        let _ = disk;
        ctx.out.error(&Error::usage(
            "--fwdownload requires the raw device, not a partition.",
        ));
        return;
    }
    let shown = path.display().to_string();
    // Read as the ATA download reads it (device/files.rs); a file that is not regular reads
    // as empty, and is refused below.
    let image = match crate::device::files::read_firmware(&path, u64::MAX) {
        Ok(file) => file.bytes,
        Err(e) => {
            ctx.out.error(&Error::os(ErrorClass::Failed, &shown, &e));
            return;
        }
    };
    if image.is_empty() || image.len() % 4 != 0 {
        let message = format!(
            "{shown}: file size ({}) not a multiple of 4 bytes (NVMe firmware images are whole dwords)",
            image.len()
        );
        ctx.out.error(&Error::usage(message));
        return;
    }
    let Some((c, _)) = ctx.nvme_id_ctrl("Identify Controller failed") else {
        return;
    };
    if c.oacs & crate::nvme::identify::oacs::FW_DOWNLOAD == 0 {
        ctx.nvme_refuse(
            "--fwdownload",
            "the controller does not support Firmware Download/Commit (OACS bit 2)",
        );
        return;
    }
    let chunk = fw_chunk_bytes(c.fwug) as usize;
    ctx.out.action("fwdownload", &d::FWDOWNLOAD);
    ctx.out.note(&format!(
        "fwdownload: NVMe Firmware Image Download, chunk={chunk} size={}",
        image.len()
    ));
    for (i, piece) in image.chunks(chunk).enumerate() {
        let offset = (i * chunk) as u32;
        // The current command of a download is the chunk being sent.
        if ctx.stop_requested() {
            if offset == 0 {
                ctx.stopped_before("Firmware Image Download");
            } else {
                ctx.interrupted(format!(
                    "{}; no Firmware Commit was sent",
                    super::firmware::partial_image(u64::from(offset), image.len() as u64)
                ));
            }
            return;
        }
        let mut data = piece.to_vec();
        let d = NvmeCommand::fw_download(offset, data.len() as u32);
        let label = format!("Firmware Image Download at byte {offset} FAILED");
        if ctx.nvme_cmd(&d, &mut data, &label).is_none() {
            return;
        }
    }
    if ctx.stopped_before("Firmware Commit") {
        return;
    }
    let commit = NvmeCommand::fw_commit(0, cmd::FW_COMMIT_REPLACE_ACTIVATE_AT_RESET);
    if ctx
        .nvme_cmd(&commit, &mut [], "Firmware Commit FAILED")
        .is_some()
    {
        ctx.out
            .text(" Done. The new firmware is activated at the next controller reset.\n");
    }
}
