//! One device's plan, executed in hdparm 9.65's fixed order (reference §3): sets first, then
//! gets and reports, then timings and power commands.
//!
//! Owns: the order ([`STEPS`], one row per step: its §3 number, its option definitions, the
//! ATA step and its NVMe and SCSI twins), the per-device context [`Ctx`], and the few helpers every step uses to send a command or report a failure. The
//! steps themselves live in one small file per family: `settings` (kernel and HDIO sets),
//! `features` (drive settings sent as ATA commands), `security` and `sanitize` (the ATA
//! Security password commands and SANITIZE DEVICE), `reports` (gets and the identification
//! reports), `power` (power-state commands and the end-of-device actions), `vendor` (the WD
//! idle3 timer, the CD/DVD speed, head unload), `firmware` (DOWNLOAD MICROCODE), `identify`
//! (`-i`, `-I` and `--Istdin`), `raw_device` (`--read-sector` and the raw-device check the
//! sector steps share), `timings` (`-T`, `-t`, `--bench`), `nvme` (the NVMe twins), and
//! `scsi` (the SCSI twins).
//!
//! Every step prints what hdparm prints on stdout; a failure prints one line on stderr and is
//! recorded in the verdict, and processing goes on with the next step (hdparm does the same
//! within a device). Must not: reach the device other than through [`DeviceAccess`], so that
//! every step can be tested with the scripted fake.

mod features;
mod firmware;
mod hpa;
mod identify;
mod nvme;
mod power;
mod raw_device;
mod reports;
mod sanitize;
mod scsi;
mod sectors;
mod security;
mod settings;
#[cfg(test)]
mod tests;
mod timings;
mod vendor;

use crate::ata::command::TaskFile;
use crate::ata::identify::Identify;
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::{Action, Flags, GetSet, SetOnly};
use crate::error::{strerror, Error, ErrorClass};
use crate::exec::access::{AtaFailure, AtaOutput, DeviceAccess};
use crate::exec::output::Output;
use crate::report::settings::{Outcome, SettingsItem};
use crate::report::stop::State;
use std::io;

use crate::exec::stop::Stop;

pub use identify::identify_stdin;

/// The per-device context of the steps.
pub struct Ctx<'d, 'o, 'w> {
    pub name: String,
    pub flags: Flags,
    pub dev: &'d mut dyn DeviceAccess,
    pub out: &'o mut Output<'w>,
    /// The multiple-sector count found by the multcount get (step 46), which `-i` puts into
    /// word 59 as hdparm does.
    pub multcount: Option<i64>,
    /// The options whose set went through without an error (`-B`, `-m`...), so that the get
    /// after it can say when the value read back is not the one set.
    sets_done: Vec<&'static OptionDef>,
    /// Set by a step after which hdparm exits (its exclusive operations, a refused raw-device
    /// check, a DCO checksum failure): no later step runs for this device.
    stopped: bool,
    /// A step said what state a lost drive was left in (`exec/lost.rs`), so the step loop's
    /// general sentence is not needed.
    lost_said: bool,
    /// Whether a signal asked the run to stop (see `exec/stop.rs`).
    pub stop: Stop,
    /// What a step said about this device when a stop cut its operation, or came during its
    /// last command: the state and the sentence of the stop report.
    turn: Option<(State, String)>,
    /// The step before which the steps loop saw a stop, when no step had said more.
    stop_seen_before: Option<u8>,
    /// Whether the SCSI twins speak for this device (see `scsi::on_scsi`), once known.
    scsi_only: Option<bool>,
}

impl<'d, 'o, 'w> Ctx<'d, 'o, 'w> {
    /// The context of one opened device, before its first step.
    pub fn new(
        name: String,
        flags: Flags,
        dev: &'d mut dyn DeviceAccess,
        out: &'o mut Output<'w>,
        stop: Stop,
    ) -> Self {
        Ctx {
            name,
            flags,
            dev,
            out,
            multcount: None,
            sets_done: Vec::new(),
            stopped: false,
            lost_said: false,
            stop,
            turn: None,
            stop_seen_before: None,
            scsi_only: None,
        }
    }
}

/// A step: does its part when its option was asked for, nothing otherwise.
pub(super) type Step = fn(&mut Ctx);

/// One step of hdparm's per-device order: its §3 number, the option definitions it carries out
/// (none for the steps of the order itself: the APT probe's report is `--verbose`'s, and the
/// IDENTIFY refresh belongs to no option), the ATA step, its NVMe twin, which runs in its
/// place on a device that takes NVMe commands, and its SCSI twin.
pub(super) struct Row {
    pub number: u8,
    pub options: &'static [&'static OptionDef],
    pub ata: Step,
    pub nvme: Option<Step>,
    /// The SCSI twin (issue 22), which runs in its place on a SCSI disk that is not libata's;
    /// it hands back to the ATA step when the target takes ATA after all.
    pub scsi: Option<Step>,
}

/// hdparm's per-device order (reference §3), one row a step.
// One line a row, to be read as a table.
#[rustfmt::skip]
pub(super) const STEPS: &[Row] = &[
    Row { number: 1, options: &[], ata: vendor::apt_report, nvme: None, scsi: None },
    Row { number: 2, options: &[&d::SET_SECTOR_SIZE], ata: sectors::set_sector_size, nvme: None, scsi: None },
    Row { number: 3, options: &[&d::TRIM_SECTOR_RANGES_STDIN], ata: sectors::trim_ranges_stdin, nvme: Some(nvme::trim_stdin), scsi: Some(scsi::trim_stdin) },
    Row { number: 4, options: &[&d::WDIDLE3], ata: vendor::set_wdidle3, nvme: None, scsi: None },
    Row { number: 5, options: &[&d::READAHEAD], ata: settings::set_readahead, nvme: None, scsi: None },
    Row { number: 6, options: &[&d::PIO_MODE], ata: settings::set_pio_mode, nvme: None, scsi: None },
    Row { number: 7, options: &[&d::IO32BIT], ata: settings::set_io32bit, nvme: None, scsi: None },
    Row { number: 8, options: &[&d::MULTCOUNT], ata: settings::set_multcount, nvme: None, scsi: None },
    Row { number: 9, options: &[&d::READONLY], ata: settings::set_readonly, nvme: None, scsi: None },
    Row { number: 10, options: &[&d::UNMASK_IRQ], ata: settings::set_unmask_irq, nvme: None, scsi: None },
    Row { number: 11, options: &[&d::DMA], ata: settings::set_dma, nvme: None, scsi: None },
    Row { number: 12, options: &[&d::QUEUE_DEPTH], ata: settings::set_queue_depth, nvme: None, scsi: None },
    Row { number: 13, options: &[&d::NOWERR], ata: settings::set_nowerr, nvme: None, scsi: None },
    Row { number: 14, options: &[&d::KEEP_SETTINGS], ata: settings::set_keep_settings, nvme: None, scsi: None },
    Row { number: 15, options: &[&d::DOORLOCK], ata: features::set_doorlock, nvme: None, scsi: None },
    Row { number: 16, options: &[&d::KEEP_FEATURES], ata: features::set_keep_features, nvme: None, scsi: None },
    Row { number: 17, options: &[&d::DEFECT_MGMT], ata: features::set_defect_mgmt, nvme: None, scsi: None },
    Row { number: 18, options: &[&d::PREFETCH], ata: features::set_prefetch, nvme: None, scsi: None },
    Row { number: 19, options: &[&d::XFER_MODE], ata: features::set_xfer_mode, nvme: None, scsi: None },
    Row { number: 20, options: &[&d::LOOKAHEAD], ata: features::set_lookahead, nvme: None, scsi: Some(scsi::set_lookahead) },
    Row { number: 21, options: &[&d::POWERUP_IN_STANDBY], ata: features::set_powerup_in_standby, nvme: None, scsi: None },
    Row { number: 22, options: &[&d::APM], ata: features::set_apm, nvme: Some(nvme::set_apst_from_apm), scsi: None },
    Row { number: 23, options: &[&d::CDROM_SPEED], ata: vendor::set_cdrom_speed, nvme: None, scsi: None },
    Row { number: 24, options: &[&d::ACOUSTIC], ata: features::set_acoustic, nvme: None, scsi: None },
    Row { number: 25, options: &[&d::WRITE_READ_VERIFY], ata: features::set_write_read_verify, nvme: None, scsi: None },
    Row { number: 26, options: &[&d::WRITE_CACHE], ata: features::set_write_cache, nvme: Some(nvme::set_write_cache), scsi: Some(scsi::set_write_cache) },
    Row { number: 27, options: &[&d::STANDBY], ata: features::set_standby, nvme: Some(nvme::set_apst_from_standby), scsi: Some(scsi::set_standby) },
    Row { number: 28, options: &[&d::SECURITY_UNLOCK, &d::SECURITY_SET_PASS, &d::SECURITY_DISABLE, &d::SECURITY_ERASE, &d::SECURITY_ERASE_ENHANCED], ata: security::security, nvme: Some(nvme::security), scsi: Some(scsi::security) },
    Row { number: 29, options: &[&d::SANITIZE_STATUS, &d::SANITIZE_FREEZE_LOCK, &d::SANITIZE_ANTIFREEZE_LOCK, &d::SANITIZE_BLOCK_ERASE, &d::SANITIZE_CRYPTO_SCRAMBLE, &d::SANITIZE_OVERWRITE], ata: sanitize::sanitize, nvme: Some(nvme::sanitize), scsi: Some(scsi::sanitize) },
    Row { number: 30, options: &[&d::DCO_IDENTIFY], ata: hpa::dco_identify, nvme: None, scsi: None },
    Row { number: 31, options: &[&d::DCO_RESTORE], ata: hpa::dco_restore, nvme: None, scsi: None },
    Row { number: 32, options: &[&d::DCO_FREEZE], ata: features::dco_freeze, nvme: None, scsi: None },
    Row { number: 33, options: &[&d::DCO_SETMAX], ata: hpa::dco_setmax, nvme: None, scsi: None },
    Row { number: 34, options: &[&d::SECURITY_FREEZE], ata: features::security_freeze, nvme: None, scsi: None },
    Row { number: 35, options: &[&d::SEAGATE_POWERSAVE], ata: features::seagate_powersave, nvme: None, scsi: None },
    Row { number: 36, options: &[&d::BUSSTATE], ata: settings::set_busstate, nvme: None, scsi: None },
    Row { number: 37, options: &[&d::MAX_SECTORS], ata: hpa::set_max_sectors, nvme: None, scsi: None },
    Row { number: 38, options: &[&d::MAKE_BAD_SECTOR], ata: sectors::make_bad_sector, nvme: None, scsi: None },
    Row { number: 39, options: &[&d::TRIM_SECTOR_RANGES], ata: sectors::trim_ranges, nvme: Some(nvme::trim), scsi: Some(scsi::trim) },
    Row { number: 40, options: &[&d::WRITE_SECTOR, &d::REPAIR_SECTOR], ata: sectors::write_sector, nvme: Some(nvme::write_sector), scsi: Some(scsi::write_sector) },
    Row { number: 41, options: &[&d::FWDOWNLOAD, &d::FWDOWNLOAD_MODE3, &d::FWDOWNLOAD_MODE3_MAX, &d::FWDOWNLOAD_MODE7, &d::FWDOWNLOAD_MODEE, &d::FWDOWNLOAD_MODEE_MAX], ata: firmware::fwdownload, nvme: Some(nvme::fwdownload), scsi: Some(scsi::fwdownload) },
    Row { number: 42, options: &[&d::READ_SECTOR], ata: read_sector, nvme: Some(nvme::read_sector), scsi: Some(scsi::read_sector) },
    Row { number: 43, options: &[&d::DRQ_HSM_ERROR], ata: sectors::drq_hsm_error, nvme: None, scsi: None },
    Row { number: 44, options: &[], ata: forget_identify, nvme: None, scsi: None },
    Row { number: 45, options: &[&d::HITACHI_TEMP], ata: reports::hitachi_temperature, nvme: Some(nvme::temperature), scsi: Some(scsi::temperature) },
    Row { number: 46, options: &[&d::MULTCOUNT], ata: reports::get_multcount, nvme: None, scsi: None },
    Row { number: 47, options: &[&d::IO32BIT], ata: reports::get_io32bit, nvme: None, scsi: None },
    Row { number: 48, options: &[&d::UNMASK_IRQ], ata: reports::get_unmask_irq, nvme: None, scsi: None },
    Row { number: 49, options: &[&d::DMA], ata: reports::get_dma, nvme: None, scsi: None },
    Row { number: 50, options: &[&d::QUEUE_DEPTH], ata: reports::get_queue_depth, nvme: None, scsi: None },
    Row { number: 51, options: &[&d::KEEP_SETTINGS], ata: reports::get_keep_settings, nvme: None, scsi: None },
    Row { number: 52, options: &[&d::NOWERR], ata: reports::get_nowerr, nvme: None, scsi: None },
    Row { number: 53, options: &[&d::READONLY], ata: reports::get_readonly, nvme: None, scsi: None },
    Row { number: 54, options: &[&d::READAHEAD], ata: reports::get_readahead, nvme: None, scsi: None },
    Row { number: 55, options: &[&d::GEOMETRY], ata: reports::get_geometry, nvme: None, scsi: None },
    Row { number: 56, options: &[&d::WDIDLE3], ata: vendor::get_wdidle3, nvme: None, scsi: None },
    Row { number: 57, options: &[&d::CHECK_POWER], ata: power::check_power, nvme: Some(nvme::check_power), scsi: Some(scsi::check_power) },
    Row { number: 58, options: &[&d::IDENTITY], ata: reports::kernel_identity, nvme: Some(nvme::kernel_identity), scsi: Some(scsi::kernel_identity) },
    Row { number: 59, options: &[&d::IDENTIFY, &d::ISTDOUT, &d::IRAW], ata: reports::identify, nvme: Some(nvme::identify), scsi: Some(scsi::identify) },
    Row { number: 60, options: &[&d::LOOKAHEAD], ata: reports::get_lookahead, nvme: None, scsi: Some(scsi::get_lookahead) },
    Row { number: 61, options: &[&d::WRITE_CACHE], ata: reports::get_write_cache, nvme: Some(nvme::get_write_cache), scsi: Some(scsi::get_write_cache) },
    Row { number: 62, options: &[&d::APM], ata: reports::get_apm, nvme: Some(nvme::get_apst), scsi: None },
    Row { number: 63, options: &[&d::ACOUSTIC], ata: reports::get_acoustic, nvme: None, scsi: None },
    Row { number: 64, options: &[&d::WRITE_READ_VERIFY], ata: reports::get_write_read_verify, nvme: None, scsi: None },
    Row { number: 65, options: &[&d::BUSSTATE], ata: reports::get_busstate, nvme: None, scsi: None },
    Row { number: 66, options: &[&d::MAX_SECTORS], ata: reports::get_max_sectors, nvme: None, scsi: None },
    Row { number: 67, options: &[&d::TIME_CACHE, &d::TIME_DEVICE, &d::BENCH, &d::FLUSH_DRIVE_CACHE, &d::OFFSET, &d::BENCH_TRIALS, &d::BENCH_DEPTH, &d::BENCH_BS, &d::BENCH_SECONDS, &d::BENCH_RANDOM], ata: timings, nvme: None, scsi: None },
    Row { number: 70, options: &[&d::FLUSH_BUFFERS], ata: power::flush_buffer_cache, nvme: None, scsi: None },
    Row { number: 71, options: &[&d::REREAD_PARTITIONS], ata: power::reread_partitions, nvme: None, scsi: None },
    Row { number: 72, options: &[&d::IDLE_IMMEDIATE], ata: power::idle_immediate, nvme: None, scsi: None },
    Row { number: 73, options: &[&d::STANDBY_NOW], ata: power::standby_now, nvme: None, scsi: Some(scsi::standby_now) },
    Row { number: 74, options: &[&d::IDLE_UNLOAD], ata: vendor::idle_unload, nvme: None, scsi: None },
    Row { number: 75, options: &[&d::SLEEP_NOW], ata: power::sleep_now, nvme: None, scsi: Some(scsi::sleep_now) },
    Row { number: 76, options: &[&d::RESET], ata: power::reset, nvme: None, scsi: None },
];

/// Runs every requested step for one opened device.
pub fn run(ctx: &mut Ctx) {
    // NVMe (issue 10): where the device kind is decided. On a node that takes NVMe commands,
    // a row's NVMe twin runs in place of its ATA step.
    let nvme = ctx.dev.nvme_capable();
    // SCSI (issue 22): on a SCSI disk that is not libata's, a row's SCSI twin runs; it learns
    // (once, when a job first needs it) whether the target takes ATA after all.
    let scsi = !nvme && ctx.dev.scsi_disk().is_some();
    // The same drive, lost earlier in this run (another path to it, a line of --apply):
    // nothing is sent to it.
    if let Some((how, command)) = ctx.dev.lost() {
        let text = format!(
            "{}: {}",
            ctx.name,
            crate::exec::lost::not_sent(how, &command)
        );
        ctx.out.error(&Error::new(how.class(), text));
        return;
    }
    for row in STEPS {
        let step = match (row.nvme, row.scsi) {
            (Some(twin), _) if nvme => twin,
            (_, Some(twin)) if scsi => twin,
            _ => row.ata,
        };
        // A stop is honoured before each step; a step that sends several commands looks
        // again before each of them ([`Ctx::stopped_before`]).
        if ctx.stop.requested() {
            ctx.stop_seen_before = Some(row.number);
            return;
        }
        step(ctx);
        // An error belongs to the set or action of its own step (JSON's `outcome`).
        ctx.out.end_step();
        // An exclusive operation (hdparm exits after it) ends the device's steps.
        if ctx.stopped {
            return;
        }
        // So does a drive lost in this step (hdparm goes on): nothing more is sent to it.
        if let Some((how, command)) = ctx.dev.lost() {
            if !ctx.lost_said {
                ctx.out
                    .note(&crate::exec::lost::other_sentence(&ctx.name, how, &command));
            }
            return;
        }
    }
}

/// `-F`, and `-W0` before the cache goes off: the Flush command on NVMe (issue 10), SYNCHRONIZE
/// CACHE on a SCSI disk whose target rejects ATA PASS-THROUGH (issue 22), else FLUSH CACHE. The
/// protocol is chosen here, as [`run`] chooses a row's twin, so the ATA step (`power`) and
/// its twins (`nvme`, `scsi`, which may hand back to it) each stay on their own floor.
pub fn flush_drive_cache(ctx: &mut Ctx) {
    if ctx.dev.nvme_capable() {
        nvme::flush(ctx);
    } else if ctx.dev.scsi_disk().is_some() && ctx.on_scsi() {
        scsi::flush(ctx);
    } else {
        power::flush_cache(ctx);
    }
}

/// The steps of the operations that change the drive's data, configuration or firmware
/// asked for by `flags` (the in-use refusal's list, `-N` included), by their §3 number: what
/// the stop report says was done or not sent when a stop came between two steps.
fn destructive_steps(f: &Flags) -> Vec<(u8, String)> {
    // A size not known counts as shrinking: every `-N` is listed.
    let mut steps: Vec<(u8, String)> = crate::exec::guards::destructive_operations(f, None)
        .into_iter()
        .filter_map(|def| Some((number_of(def)?, def.spelling())))
        .collect();
    steps.sort_by_key(|(number, _)| *number);
    steps
}

/// The §3 number of the step that carries out `def`: the first row that names it.
fn number_of(def: &OptionDef) -> Option<u8> {
    STEPS
        .iter()
        .find(|row| row.options.contains(&def))
        .map(|row| row.number)
}

/// The `lba:count` pairs of `--trim-sector-ranges-stdin`, read as the ATA version reads them
/// (hdparm's `scanf`), a piece of stdin at a time, handed to `send` in batches of `batch_len`
/// (the last one shorter): bounded memory for a list of any length. A bad pair ends the read
/// with hdparm's usage line; the batches already full were sent, as hdparm sends them while it
/// reads. Stops when `send` returns false. The NVMe and SCSI twins' reader (the ATA step's
/// batches also follow the queue's size, in `sectors`).
fn stdin_range_batches(
    ctx: &mut Ctx,
    blocks: u64,
    batch_len: usize,
    mut send: impl FnMut(&mut Ctx, &[(u64, u64)]) -> bool,
) {
    let mut reader = crate::ata::trim::PairReader::new();
    let mut batch = Vec::with_capacity(batch_len);
    let mut read = 0usize;
    while let Some(pair) = reader.next_pair(blocks, &mut |buf| ctx.dev.stdin_chunk(buf)) {
        match pair {
            Ok(range) => batch.push(range),
            Err(e) => {
                let errno = io::Error::from_raw_os_error(e.errno());
                ctx.out.error(&Error::new(
                    ErrorClass::Usage,
                    format!(
                        "stdin: error at lba:count pair #{}: {}",
                        read + 1,
                        strerror(&errno)
                    ),
                ));
                return;
            }
        }
        read += 1;
        if batch.len() == batch_len {
            if !send(ctx, &batch) {
                return;
            }
            batch.clear();
        }
    }
    if let Some(e) = reader.take_error() {
        ctx.out.error(&Error::os(ErrorClass::Failed, "stdin", &e));
        return;
    }
    if !batch.is_empty() {
        send(ctx, &batch);
    }
}

/// Step 42: `--read-sector`.
fn read_sector(ctx: &mut Ctx) {
    if let Some(lba) = ctx.flags.read_sector {
        raw_device::read_sector(ctx, lba);
    }
}

/// Step 44: the sets may have changed what IDENTIFY says; the gets read it afresh.
fn forget_identify(ctx: &mut Ctx) {
    ctx.dev.forget_identify();
}

/// Steps 67-69 (`-T`, `-F`, `-t`, and our `--bench`), in `timings`.
fn timings(ctx: &mut Ctx) {
    let f = &ctx.flags;
    if f.time_cache || f.time_device || f.bench.is_some() || f.flush_drive_cache {
        timings::run(ctx);
    }
}

/// The name hdparm's get line gives an option's value (` APM_level\t= 254`), for the read-back
/// check's message.
const GET_NAMES: &[(&OptionDef, &str)] = &[
    (&d::READONLY, "readonly"),
    (&d::MULTCOUNT, "multcount"),
    (&d::IO32BIT, "IO_support"),
    (&d::UNMASK_IRQ, "unmaskirq"),
    (&d::DMA, "using_dma"),
    (&d::KEEP_SETTINGS, "keepsettings"),
    (&d::NOWERR, "nowerr"),
    (&d::BUSSTATE, "busstate"),
    (&d::QUEUE_DEPTH, "queue_depth"),
    (&d::LOOKAHEAD, "look-ahead"),
    (&d::WRITE_CACHE, "write-caching"),
    (&d::APM, "APM_level"),
    (&d::ACOUSTIC, "acoustic"),
    (&d::WRITE_READ_VERIFY, "write-read-verify"),
];

/// [`GET_NAMES`]' name of `option`.
fn setting_name(option: &OptionDef) -> &'static str {
    GET_NAMES
        .iter()
        .find(|(def, _)| *def == option)
        .map_or("the setting", |(_, name)| name)
}

/// hdparm's `(on)`/`(off)` suffix, for set messages (the same as the report's).
fn on_off(v: u32) -> &'static str {
    crate::report::settings::on_off(i64::from(v))
}

/// A get/set option's set, when asked: its value, and whether its message is printed.
fn set_of(gs: GetSet<u32>) -> Option<(u32, bool)> {
    gs.set.then_some((gs.value, gs.get))
}

/// A set-only option's set, when asked: its value, and whether its message is printed.
fn set_only_of(so: SetOnly<u32>) -> Option<(u32, bool)> {
    so.set.then_some((so.value, so.noisy))
}

/// A set message line (printed when the option was not made quiet).
fn set_msg(option: &OptionDef, value: u32, message: String) -> SettingsItem {
    SettingsItem::Set {
        option: option.spelling(),
        value: i64::from(value),
        message,
        // Output marks it failed when an error follows within the step.
        outcome: Outcome::Done,
    }
}

/// The old IDE driver's tuning ioctls, which libata does not implement (it answers ENOTTY):
/// the kernel sets up DMA, interrupt unmasking and multiple-sector I/O itself. HDIO_GET/SET_32BIT
/// is not among them (libata has it), nor HDIO_GETGEO or HDIO_DRIVE_RESET, whose failures have
/// other reasons.
const OLD_IDE_TUNING: &[&str] = &[
    "HDIO_GET_MULTCOUNT",
    "HDIO_SET_MULTCOUNT",
    "HDIO_GET_UNMASKINTR",
    "HDIO_SET_UNMASKINTR",
    "HDIO_GET_DMA",
    "HDIO_SET_DMA",
    "HDIO_GET_KEEPSETTINGS",
    "HDIO_SET_KEEPSETTINGS",
    "HDIO_GET_NOWERR",
    "HDIO_SET_NOWERR",
    "HDIO_GET_BUSSTATE",
    "HDIO_SET_BUSSTATE",
    "HDIO_SET_PIO_MODE",
];

impl Ctx<'_, '_, '_> {
    /// A failed system call under hdparm's label; when the device cannot do it (the class is
    /// "not applicable"), what the device is and why, for this request.
    fn ioctl_failed(&mut self, label: &str, err: &io::Error) {
        let why = self.why_not(label);
        self.ioctl_failed_because(label, err, &why);
    }

    /// [`Self::ioctl_failed`] with the explanation given by the caller.
    fn ioctl_failed_because(&mut self, label: &str, err: &io::Error, why: &str) {
        let class = ErrorClass::of_io(err);
        let mut message = format!("{label}: {}", strerror(err));
        if class == ErrorClass::NotApplicable {
            message.push_str(&format!(" ({why})"));
        }
        self.out.error(&Error {
            class,
            message,
            errno: err.raw_os_error(),
        });
    }

    /// What the device is and, where it is known, why it cannot do the request named by hdparm's
    /// `label` (` HDIO_GETGEO failed` names HDIO_GETGEO). Only a true reason for this request is
    /// given: "it has no ATA interface" explains a missing IDE ioctl, not a refused BLKRRPART.
    fn why_not(&self, label: &str) -> String {
        let request = label.split_whitespace().next().unwrap_or_default();
        let plain = self.dev.plain_description();
        match request {
            r if OLD_IDE_TUNING.contains(&r) && self.dev.is_libata() => format!(
                "{plain}; libata has no such setting: the kernel manages DMA, interrupts and multiple-sector I/O itself"
            ),
            // The sr driver implements no getgeo; libata's disks (sd) do.
            "HDIO_GETGEO" if self.dev.kind_name() == "cdrom" => {
                format!("{plain}; the CD-ROM driver has no geometry")
            }
            // Block drivers other than the old IDE one have no geometry to give either, for
            // reasons that have nothing to do with ATA.
            "HDIO_GETGEO" => plain,
            // The other HDIO ioctls belong to ATA drivers: the ATA note is the reason.
            r if r.starts_with("HDIO_") => self.dev.description(),
            "BLKRRPART" if self.dev.partition_scan_off() => {
                let hint = if self.dev.kind_name() == "loop" {
                    " (losetup -P attaches a loop device with it on)"
                } else {
                    ""
                };
                format!("{plain}; partition scanning is off for it{hint}")
            }
            _ => plain,
        }
    }

    /// After a failed command of a destructive operation: the one sentence that says what
    /// state `op` left the drive in (`exec/lost.rs`), on stderr and in JSON's messages.
    fn left_in(&mut self, op: crate::exec::lost::Operation, failure: &AtaFailure) {
        let fault = crate::exec::lost::Fault::of(failure.lost);
        let text = crate::exec::lost::sentence(&self.name, op, fault);
        self.out.note(&text);
        self.lost_said = true;
    }

    fn ata_failed(&mut self, label: &str, failure: &AtaFailure) {
        let message = format!("{label}: {}", failure.reason);
        self.out.error(&Error {
            class: failure.class(),
            message,
            errno: None,
        });
    }

    /// Sends hdparm's 4-byte `drive_cmd`; reports a failure under `label`.
    fn drive_cmd(&mut self, args: [u8; 4], label: &str) -> Option<AtaOutput> {
        self.drive_cmd_timeout(args, 0, label)
    }

    fn drive_cmd_timeout(&mut self, args: [u8; 4], timeout: u32, label: &str) -> Option<AtaOutput> {
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
    fn drive_cmd_either(&mut self, first: u8, second: u8, label: &str) -> Option<AtaOutput> {
        let mut none = [0u8; 0];
        let retry_args = match self
            .dev
            .ata_registers(&TaskFile::drive_cmd([first, 0, 0, 0]), &mut none)
        {
            Ok(r) => return Some(AtaOutput::from(r)),
            // Nor after a lost drive: nothing more is sent to it.
            Err((f, _)) if f.not_ata || f.lost.is_some() => {
                self.ata_failed(label, &f);
                return None;
            }
            // hdparm reuses its argument block: the failed command left ERROR in args[1]
            // and COUNT in args[2], so the second opcode goes out with them as its COUNT and
            // FEATURE (an aborted 0xE5 makes it 0x98 with count 0x04). The wire is the same.
            Err((_, Some(r))) => {
                let args = AtaOutput::from(r);
                [second, args.error, args.count, 0]
            }
            Err((_, None)) => [second, 0, 0, 0],
        };
        match self.dev.ata(&TaskFile::drive_cmd(retry_args), &mut none) {
            Ok(out) => Some(out),
            Err(f) => {
                self.ata_failed(label, &f);
                None
            }
        }
    }

    /// The drive's IDENTIFY data, if it gave any (the device caches it).
    fn identify(&mut self) -> Option<Identify> {
        self.dev.identify().ok().map(Identify::from_words)
    }

    /// A drive setting sent as one `drive_cmd`, when `asked` (the value, and whether its
    /// message is printed): its "setting ..." line when noisy, then the command, reported
    /// under hdparm's label if it fails.
    fn set_feature(
        &mut self,
        asked: Option<(u32, bool)>,
        option: &'static OptionDef,
        message: impl FnOnce(u32) -> String,
        args: impl FnOnce(u32) -> [u8; 4],
        label: &str,
    ) {
        let Some(value) = self.announce_set(asked, option, message) else {
            return;
        };
        if self.drive_cmd(args(value), label).is_some() {
            self.set_done(option);
        }
    }

    /// The start of a set, when `asked` (the value, and whether its message is printed): its
    /// "setting ..." line when noisy. The value to set, or None when the set was not asked for.
    fn announce_set(
        &mut self,
        asked: Option<(u32, bool)>,
        option: &OptionDef,
        message: impl FnOnce(u32) -> String,
    ) -> Option<u32> {
        let (value, noisy) = asked?;
        if noisy {
            self.out.item(set_msg(option, value, message(value)));
        }
        Some(value)
    }

    /// An action that says what it issues: when `asked` is set, records the action under
    /// `def` and, when noisy, prints `line`; then the caller sends the command. False when the
    /// action was not asked for.
    fn announce(
        &mut self,
        asked: Action,
        action: &'static str,
        def: &OptionDef,
        line: &str,
    ) -> bool {
        if !asked.set {
            return false;
        }
        self.out.action(action, def);
        if asked.noisy {
            self.out.text(line);
        }
        true
    }

    /// A get from IDENTIFY of a get/set option: when asked, `read` gives the item to print,
    /// whether the value read back is the one set, and that value in the get line's words;
    /// without IDENTIFY, why not.
    fn identify_get(
        &mut self,
        gs: GetSet<u32>,
        def: &OptionDef,
        read: impl FnOnce(&Identify, u32) -> (SettingsItem, bool, String),
    ) {
        if !gs.get {
            return;
        }
        match self.identify() {
            Some(id) => {
                let (item, took, shown) = read(&id, gs.value);
                self.out.item(item);
                self.check_read_back(def, gs.value, took, &shown);
            }
            None => self.identify_unavailable(def),
        }
    }

    /// No later step runs for this device (hdparm exits here).
    fn stop_device(&mut self) {
        self.stopped = true;
    }

    /// Whether a signal asked the run to stop.
    fn stop_requested(&self) -> bool {
        self.stop.requested()
    }

    /// A stop cut this device's operation: `state` says what was sent and in what state the
    /// drive is left. No later step runs.
    fn interrupted(&mut self, state: String) {
        self.turn = Some((State::Interrupted, state));
        self.stopped = true;
    }

    /// The stop came during the operation's last command, which ran to its end: `what` says
    /// what that left. No later step runs.
    fn finished_at_stop(&mut self, what: String) {
        self.turn = Some((State::Done, what));
        self.stopped = true;
    }

    /// Before a command that changes the drive: when a stop was asked, says that `command` was
    /// not sent (nothing before it changed the drive) and returns true; the step then returns.
    fn stopped_before(&mut self, command: &str) -> bool {
        if !self.stop_requested() {
            return false;
        }
        self.interrupted(format!("{command} was not sent: the drive is as it was"));
        true
    }

    /// How this device's turn ended, for the stop report: what a step said, or, when the
    /// steps loop saw the stop between two steps, whether the operations asked for came
    /// before that point (done) or not (not sent). None when no stop came during the turn.
    pub fn turn_at_stop(&self) -> Option<(State, Option<String>)> {
        if let Some((state, detail)) = &self.turn {
            return Some((*state, Some(detail.clone())));
        }
        let before = self.stop_seen_before?;
        let operations = destructive_steps(&self.flags);
        let (done, not_sent): (Vec<_>, Vec<_>) =
            operations.iter().partition(|(step, _)| *step < before);
        let names = |list: &[&(u8, String)]| {
            list.iter()
                .map(|(_, name)| name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        Some(match (done.is_empty(), not_sent.is_empty()) {
            (_, true) => (State::Done, None),
            (true, false) => (
                State::Interrupted,
                Some(format!(
                    "stopped before {}: nothing that changes the drive was sent",
                    names(&not_sent)
                )),
            ),
            (false, false) => (
                State::Interrupted,
                Some(format!(
                    "{} was done; {} was not sent",
                    names(&done),
                    names(&not_sent)
                )),
            ),
        })
    }

    /// Records that the set of `option` went through without an error.
    fn set_done(&mut self, option: &'static OptionDef) {
        self.sets_done.push(option);
    }

    /// After a get has printed what it read: when the same option's set went through but the
    /// value read back is not the one set (`took` false), says so, and the run fails (exit 5).
    /// hdparm prints the contradicting line and exits 0. `value` is the value set, `shown` the
    /// value read back in the get line's words ("not supported", "16").
    fn check_read_back(&mut self, option: &OptionDef, value: u32, took: bool, shown: &str) {
        if took || !self.sets_done.contains(&option) {
            return;
        }
        let name = setting_name(option);
        let message = format!(
            "{}: {} {value} was accepted, but {name} reads back as {shown}: the setting did not take",
            self.name,
            option.spelling()
        );
        self.out.error(&Error::new(ErrorClass::Failed, message));
    }

    /// A get that reads IDENTIFY, on a device that gave none: the IDENTIFY failure's own reason
    /// and class, so that every option that needs the drive says the same about a device (on a
    /// SCSI target that rejects ATA PASS-THROUGH: "not an ATA device", not applicable, as `-I`
    /// and the sets say it).
    fn identify_unavailable(&mut self, option: &OptionDef) {
        let (class, reason) = match self.dev.identify() {
            Err(f) => (f.class(), f.reason),
            // The data came after all (not cached before): nothing to explain but the fact.
            Ok(_) => (ErrorClass::Failed, "IDENTIFY gave no data".to_string()),
        };
        let message = format!(
            "{}: {} reads the drive's IDENTIFY data: {reason}",
            self.name,
            option.spelling()
        );
        self.out.error(&Error::new(class, message));
    }
}
