//! `--dry-run` (ours) for any command line: the device's steps run as usual against a
//! [`DeviceAccess`] that sends nothing. Every ATA command, every NVMe command and every kernel
//! call that would change a setting is written into the plan instead and answered as a drive
//! that did it (zero registers, zeroed data); the reads that only ask the kernel (read-ahead,
//! the read-only flag, geometry, sizes, the HDIO gets, the sysfs queue depth, the kernel's
//! cached copy of IDENTIFY) go through, since they are what the real run would decide with.
//! A call the device cannot take (an ATA command to a device without ATA, an old IDE driver
//! set where the driver answers no HDIO get) fails as it would on the real run. What the steps
//! print from the invented answers is thrown away; the plan is what is printed
//! ([`crate::report::dry_run`]), with the failures and refusals of the real run that the dry run
//! can know: those that come from the device itself and from the kernel's IDENTIFY, not from an
//! answer only sending could give.
//!
//! Owns: the recording device and the run of one device's steps in dry-run mode, and the exit
//! class a plan gives. Must not: send an ATA or NVMe command, change anything in the kernel, or
//! write a file.

use crate::ata::command::{op, Protocol, TaskFile};
use crate::cli::DeviceRun;
use crate::error::{Error, ErrorClass};
use crate::exec::access::{
    AtaAnswer, AtaFailure, AtaOutput, AtaVia, BlockCall, DeviceAccess, Geometry, HdioSetting,
    NvmeFailure, ScsiCommand, ScsiDisk, ScsiFailure, QUEUE_DEPTH,
};
use crate::exec::guards::{self, DeviceFacts};
use crate::exec::output::Output;
use crate::exec::steps::{self, Ctx};
use crate::nvme::command::{DataDirection, NvmeCommand};
use crate::report::dry_run::{DataOut, Plan, Planned};
use std::cell::RefCell;
use std::io;

/// The guard flags, as the plan names them.
const YES_I_KNOW: &str = "--yes-i-know-what-i-am-doing";
const PLEASE_DESTROY: &str = "--please-destroy-my-drive";

/// The plan of one opened device: its steps run against a [`Recorder`] over `dev` with the
/// guards passed (the plan names the flags a real run needs), the timings listed rather than
/// run, no password read (the plan shows none) and `--Iraw`'s file planned, not written.
pub fn plan_device(
    run: &DeviceRun,
    facts: &DeviceFacts,
    name: String,
    dev: &mut dyn DeviceAccess,
) -> Plan {
    let mut flags = run.flags.clone();
    flags.yes_i_know = true;
    flags.please_destroy = true;
    flags.time_cache = false;
    flags.time_device = false;
    flags.bench = None;
    flags.security_prompt = false;
    // --Iraw FILE sends what --Istdout sends (IDENTIFY), then writes the file.
    let raw = flags.identify_raw.take();
    if raw.is_some() {
        flags.identify_stdout = true;
    }
    let mut recorder = Recorder::new(dev);
    let errors = {
        let (mut dropped_out, mut dropped_err) = (Vec::new(), Vec::new());
        let mut scratch = Output::new(false, Vec::new(), &mut dropped_out, &mut dropped_err);
        let mut ctx = Ctx::new(
            name,
            flags,
            &mut recorder,
            &mut scratch,
            crate::exec::stop::Stop::never(),
        );
        steps::run(&mut ctx);
        scratch.errors().to_vec()
    };
    let identify_from_kernel = recorder.identify_from_kernel;
    let recorder_words = recorder.kernel_words;
    let ata_capable = recorder.ata_capable();
    let not_ata = (recorder.not_ata_commands > 0)
        .then(|| (recorder.not_ata_commands, recorder.description()));
    let mut steps = recorder.into_plan();
    if let Some(path) = raw.filter(|_| not_ata.is_none()) {
        steps.push(Planned::File(format!(
            "the IDENTIFY data to {} (created, or overwritten in place)",
            path.display()
        )));
    }
    steps.extend(timed_reads(&run.flags));
    let given = [
        (run.flags.yes_i_know, YES_I_KNOW),
        (run.flags.please_destroy, PLEASE_DESTROY),
    ];
    // The guards of `-N` and `--dco-setmax` depend on the size IDENTIFY gives: the kernel's
    // copy gives it without sending anything.
    let facts = DeviceFacts {
        visible_sectors: recorder_words
            .map(|w| crate::ata::identify::Identify::from_words(w).capacity_sectors())
            .or(facts.visible_sectors),
        in_use: facts.in_use.clone(),
        ..*facts
    };
    Plan {
        guards_needed: guards::needed_flags(run, &facts, ata_capable),
        guards_given: given.iter().filter(|g| g.0).map(|g| g.1).collect(),
        refused_because: guards::destructive_option(&run.flags, facts.visible_sectors)
            .and(facts.in_use.clone()),
        // A failure of the scratch run is the real run's when it comes from what the dry run
        // reads for real (the device's kind, the kernel's answers, its IDENTIFY, the files
        // named): every class but `failed`, which only a command sent could give (and which the
        // recorder's own "IDENTIFY not read" is).
        would_fail: errors
            .into_iter()
            .filter(|(class, _)| *class != ErrorClass::Failed)
            .collect(),
        identify_from_kernel,
        not_ata,
        steps,
    }
}

/// What a plan says about the real run's exit status, as errors for the run's output (one
/// line each on stderr): a missing guard flag (guard), a drive in use (busy), and the worst
/// failure the plan foresees. None when the real run would succeed as far as can be known.
pub fn real_run_errors(name: &str, plan: &Plan) -> Vec<Error> {
    let mut errors = Vec::new();
    let missing = crate::report::dry_run::guards_missing(plan);
    if !missing.is_empty() {
        errors.push(Error::guard(format!(
            "{name}: --dry-run: a real run would be refused: it needs {}",
            missing.join(" ")
        )));
    }
    if let Some(why) = &plan.refused_because {
        errors.push(Error::busy(format!(
            "{name}: --dry-run: a real run would be refused: {why}"
        )));
    }
    if let Some(worst) = plan.would_fail.iter().map(|(class, _)| *class).max() {
        let first = plan
            .would_fail
            .iter()
            .find(|(class, _)| *class == worst)
            .map(|(_, text)| text.trim())
            .unwrap_or_default();
        let more = plan.would_fail.len() - 1;
        errors.push(Error::new(
            worst,
            format!(
                "{name}: --dry-run: a real run would fail: {first}{}",
                match more {
                    0 => String::new(),
                    1 => " (and 1 more failure, in the plan)".to_string(),
                    n => format!(" (and {n} more failures, in the plan)"),
                }
            ),
        ));
    }
    errors
}

/// A device that records instead of sending.
pub struct Recorder<'d> {
    inner: &'d mut dyn DeviceAccess,
    /// What the run would do, in order (a cell: the kernel calls of the trait take `&self`).
    planned: RefCell<Vec<Planned>>,
    /// Whether IDENTIFY was needed and came from the kernel's copy (Some(true)), was needed
    /// and the kernel had none (Some(false)), or was not needed (None).
    pub identify_from_kernel: Option<bool>,
    /// ATA commands the steps asked for that the device cannot take (no ATA interface): the
    /// real run would fail them, so they are counted, not planned.
    pub not_ata_commands: usize,
    /// Whether IDENTIFY was asked of a device without ATA (and counted in `not_ata_commands`).
    identify_failed: bool,
    /// The kernel's copy of IDENTIFY, when it was read.
    kernel_words: Option<[u16; 256]>,
}

impl<'d> Recorder<'d> {
    pub fn new(inner: &'d mut dyn DeviceAccess) -> Self {
        Recorder {
            inner,
            planned: RefCell::new(Vec::new()),
            identify_from_kernel: None,
            not_ata_commands: 0,
            identify_failed: false,
            kernel_words: None,
        }
    }

    /// The failure a device without ATA gives, as the real one would.
    fn not_ata(&self) -> AtaFailure {
        AtaFailure {
            reason: self.inner.description(),
            not_ata: true,
            refused_by_kernel: false,
            lost: None,
        }
    }

    /// What was recorded, in order.
    pub fn into_plan(self) -> Vec<Planned> {
        self.planned.into_inner()
    }

    fn send(&self, taskfile: &TaskFile, data: &[u8]) {
        let data_out = matches!(taskfile.protocol, Protocol::PioOut | Protocol::DmaOut).then(
            || match taskfile.command {
                // ACS-4 §7.45-7.50: their data word 1 on is the password.
                op::SECURITY_SET_PASS
                | op::SECURITY_UNLOCK
                | op::SECURITY_ERASE_UNIT
                | op::SECURITY_DISABLE => DataOut::holding_password(data),
                _ => DataOut::of(data),
            },
        );
        self.planned.borrow_mut().push(Planned::Ata {
            taskfile: taskfile.clone(),
            data_out,
        });
    }

    /// An old IDE driver ioctl (`what`: the setting it sets, when it has a get). libata
    /// answers only HDIO_SET_32BIT of the sets (the others fail with ENOTTY, and the steps then
    /// fall back to an ATA command, as on the real run), so on libata the others are answered
    /// so and not planned. Elsewhere a driver that answers the setting's get (for the sets
    /// without one, the DMA flag's) takes the set, and one that does not (a loop device, a
    /// virtio disk) refuses the set as it refuses the get: the get is a read, made for real.
    fn ide_call(&self, what: Option<HdioSetting>, text: String) -> io::Result<()> {
        if self.inner.is_libata() {
            if what != Some(HdioSetting::Io32bit) {
                return Err(io::Error::from_raw_os_error(libc::ENOTTY));
            }
        } else {
            self.inner.hdio_get(what.unwrap_or(HdioSetting::Dma))?;
        }
        self.call(text)
    }

    /// Records a kernel call; it "succeeds".
    fn call(&self, text: String) -> io::Result<()> {
        self.planned.borrow_mut().push(Planned::Kernel(text));
        Ok(())
    }
}

/// The answer every recorded command gets: done, nothing to report.
fn done() -> AtaOutput {
    AtaOutput::default()
}

impl DeviceAccess for Recorder<'_> {
    fn kind_name(&self) -> String {
        self.inner.kind_name()
    }
    fn description(&self) -> String {
        self.inner.description()
    }
    fn plain_description(&self) -> String {
        self.inner.plain_description()
    }
    fn ata_capable(&self) -> bool {
        self.inner.ata_capable()
    }
    fn is_directory(&self) -> bool {
        self.inner.is_directory()
    }
    fn fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.inner.fd()
    }
    fn is_libata(&self) -> bool {
        self.inner.is_libata()
    }
    /// Recorded, not sent (both routes alike: nothing is sent); a read gets zeroed data, and
    /// every command the registers of a drive that did it.
    fn ata_taskfile(&mut self, tf: &TaskFile, data: &mut [u8], _via: AtaVia) -> AtaAnswer {
        if !self.inner.ata_capable() {
            self.not_ata_commands += 1;
            return Err((self.not_ata(), None));
        }
        self.send(tf, data);
        if matches!(tf.protocol, Protocol::PioIn | Protocol::DmaIn) {
            data.fill(0);
        }
        Ok(done().registers(tf.lba48))
    }
    fn identify(&mut self) -> Result<[u16; 256], AtaFailure> {
        if !self.inner.ata_capable() {
            // Counted once: the real run caches the failure as it would the data.
            if !self.identify_failed {
                self.identify_failed = true;
                self.not_ata_commands += 1;
            }
            return Err(self.not_ata());
        }
        // The kernel keeps the IDENTIFY data libata read at probe time: reading it sends
        // nothing to the drive. Without it the command is planned, not sent.
        if let Ok(bytes) = self.inner.hdio_identity() {
            let words = crate::device::block::le_words(&bytes);
            if words.iter().any(|w| *w != 0) {
                self.identify_from_kernel = Some(true);
                self.kernel_words = Some(words);
                return Ok(words);
            }
        }
        let mut tf = TaskFile::new(op::IDENTIFY, 0, 1);
        tf.protocol = Protocol::PioIn;
        let planned_once = self.planned.borrow().iter().any(
            |p| matches!(p, Planned::Ata { taskfile, .. } if taskfile.command == op::IDENTIFY),
        );
        if !planned_once {
            self.send(&tf, &[]);
        }
        self.identify_from_kernel = Some(false);
        Err(AtaFailure {
            reason: "not read: --dry-run sends nothing, and the kernel holds no copy of IDENTIFY"
                .into(),
            not_ata: false,
            refused_by_kernel: false,
            lost: None,
        })
    }
    fn forget_identify(&mut self) {}

    /// The gets go through (they are what the real run decides with); the sets are planned.
    fn block(&self, call: BlockCall) -> io::Result<i64> {
        let planned = match call {
            BlockCall::Readahead
            | BlockCall::Readonly
            | BlockCall::SizeSectors
            | BlockCall::LogicalSectorSize
            | BlockCall::HdioGet(_) => return self.inner.block(call),
            BlockCall::SetReadahead(sectors) => {
                self.call(format!("BLKRASET {sectors} (read-ahead, sectors)"))
            }
            BlockCall::SetReadonly(on) => {
                self.call(format!("BLKROSET {} (read-only flag)", u8::from(on)))
            }
            BlockCall::FlushBufferCache => self.call("BLKFLSBUF (flush the buffer cache)".into()),
            BlockCall::RereadPartitions => {
                self.call("BLKRRPART (re-read the partition table)".into())
            }
            BlockCall::HdioSet(what, value) => self.ide_call(
                Some(what),
                format!("{} {value} (old IDE driver)", hdio_set_name(what)),
            ),
            BlockCall::HdioSetPioMode(mode) => {
                self.ide_call(None, format!("HDIO_SET_PIO_MODE {mode} (old IDE driver)"))
            }
            BlockCall::HdioSetWcache(on) => self.ide_call(
                None,
                format!("HDIO_SET_WCACHE {} (old IDE driver)", u8::from(on)),
            ),
            BlockCall::HdioReset => self.ide_call(None, "HDIO_DRIVE_RESET (old IDE driver)".into()),
            BlockCall::CdromSetStreaming(speed) => {
                self.call(format!("SET STREAMING {speed} KB/s (cdrom packet command)"))
            }
            BlockCall::CdromSelectSpeed(speed) => self.call(format!("CDROM_SELECT_SPEED {speed}")),
        };
        planned.map(|()| 0)
    }
    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)> {
        self.inner.geometry()
    }
    fn partition_refusal(&self, lba: u64) -> Option<String> {
        self.inner.partition_refusal(lba)
    }
    fn partition_scan_off(&self) -> bool {
        self.inner.partition_scan_off()
    }
    fn hdio_identity(&self) -> io::Result<[u8; 512]> {
        self.inner.hdio_identity()
    }
    fn sysfs_u64(&self, attr: &str) -> Result<u64, (String, io::Error)> {
        self.inner.sysfs_u64(attr)
    }
    /// Where the attribute cannot be read (not a SCSI device), it cannot be written either.
    fn set_sysfs_u64(&self, attr: &str, value: u64) -> Result<(), (String, io::Error)> {
        self.inner.sysfs_u64(attr)?;
        let what = match attr {
            QUEUE_DEPTH => "the SCSI device's queue_depth".to_string(),
            other => format!("sysfs {other}"),
        };
        self.call(format!("write {value} to {what}"))
            .map_err(|e| (String::new(), e))
    }

    /// Standard input is read as the real run would read it (the TRIM ranges decide the
    /// batches that are planned).
    fn stdin_bytes(&mut self) -> io::Result<Vec<u8>> {
        self.inner.stdin_bytes()
    }
    /// Nothing is sent, so there is nothing to wait for.
    fn pause(&self, _duration: std::time::Duration) {}

    fn apt_lines(&self) -> Vec<String> {
        self.inner.apt_lines()
    }

    fn lost(&self) -> Option<(crate::ata::sat::Lost, String)> {
        self.inner.lost()
    }

    // ---- NVMe: the commands are planned like ATA's; the kernel's views pass through ----
    fn nvme_capable(&self) -> bool {
        self.inner.nvme_capable()
    }
    fn nvme_nsid(&mut self) -> Option<u32> {
        self.inner.nvme_nsid()
    }
    fn nvme(&mut self, cmd: &NvmeCommand, data: &mut [u8]) -> Result<u32, NvmeFailure> {
        let data_out = (cmd.direction() == DataDirection::ToDevice).then(|| DataOut::of(data));
        self.planned.borrow_mut().push(Planned::Nvme {
            command: *cmd,
            data_out,
        });
        if cmd.direction() == DataDirection::FromDevice {
            data.fill(0);
        }
        Ok(0)
    }
    fn scsi_disk(&self) -> Option<ScsiDisk> {
        self.inner.scsi_disk()
    }
    /// Overridden: the real run learns it from IDENTIFY, which the dry run does not send. What
    /// the kernel knows stands in: a SCSI disk that is not behind a USB bridge (most of which
    /// translate ATA) and that the kernel does not know for a SAT translator (no ATA
    /// Information VPD page 89h, no vendor `ATA`) is planned with the SCSI twins.
    fn scsi_only(&mut self) -> bool {
        self.inner
            .scsi_disk()
            .is_some_and(|d| !d.usb && !d.translates_ata())
    }
    /// Planned, not sent; a read is answered with zeros (the steps' decoders then find
    /// nothing, and what they would have decided is the real run's), except MODE SENSE, whose
    /// answer a set needs to plan its MODE SELECT: an empty page of the asked code, every
    /// field changeable. The MODE SELECT planned carries that page with the field set; the
    /// real one carries the disk's current page with it set.
    fn scsi(&mut self, cmd: &ScsiCommand) -> Result<Vec<u8>, ScsiFailure> {
        self.planned.borrow_mut().push(Planned::Scsi(cmd.clone()));
        match cmd.direction {
            crate::scsi::Direction::FromDevice => Ok(invented_scsi_answer(cmd)),
            _ => Ok(Vec::new()),
        }
    }
    fn nvme_controller_attr(&self, attr: &str) -> io::Result<String> {
        self.inner.nvme_controller_attr(attr)
    }
    fn nvme_partition_of(&self) -> Option<String> {
        self.inner.nvme_partition_of()
    }
}

/// What the recorder answers a SCSI read with (see `Recorder::scsi`).
fn invented_scsi_answer(cmd: &ScsiCommand) -> Vec<u8> {
    // MODE SENSE(10): opcode 5Ah, page code in byte 2's low 6 bits, page control in its top 2.
    if cmd.cdb.first() == Some(&0x5A) {
        let page = cmd.cdb.get(2).copied().unwrap_or(0);
        let changeable = page >> 6 == 1;
        // caching 08h is 20 bytes, power condition 1Ah 40 (SBC-4, SPC-5)
        let page_len: usize = if page & 0x3F == 0x1A { 40 } else { 20 };
        let fill = if changeable { 0xFF } else { 0x00 };
        let mut answer = vec![0u8; 8];
        let mode_data_len = (6 + page_len) as u16;
        answer[..2].copy_from_slice(&mode_data_len.to_be_bytes());
        answer.push(page & 0x3F);
        answer.push((page_len - 2) as u8);
        answer.extend(std::iter::repeat(fill).take(page_len - 2));
        return answer;
    }
    vec![0u8; cmd.alloc_len as usize]
}

/// The old IDE driver's set ioctl of a setting, by its kernel name.
fn hdio_set_name(what: HdioSetting) -> &'static str {
    match what {
        HdioSetting::Multcount => "HDIO_SET_MULTCOUNT",
        HdioSetting::Io32bit => "HDIO_SET_32BIT",
        HdioSetting::Unmask => "HDIO_SET_UNMASKINTR",
        HdioSetting::Dma => "HDIO_SET_DMA",
        HdioSetting::KeepSettings => "HDIO_SET_KEEPSETTINGS",
        HdioSetting::Nowerr => "HDIO_SET_NOWERR",
        HdioSetting::Busstate => "HDIO_SET_BUSSTATE",
    }
}

/// The reads a command line would time, as `Planned::Reads`.
pub fn timed_reads(f: &crate::cli::Flags) -> Vec<Planned> {
    let mut reads = Vec::new();
    if f.time_cache {
        reads.push(Planned::Reads("cached reads (-T)".into()));
    }
    if f.time_device {
        let offset = f
            .offset_gib
            .map(|gib| format!(", from {gib} GiB on"))
            .unwrap_or_default();
        reads.push(Planned::Reads(if f.direct {
            format!("O_DIRECT disk reads (-t --direct{offset})")
        } else {
            format!("buffered disk reads (-t{offset})")
        }));
    }
    if let Some(b) = &f.bench {
        reads.push(Planned::Reads(format!(
            "O_DIRECT reads at a queue depth (--bench: {} trial{} of {:.1} s, {} reads of {} bytes in flight, {})",
            b.trials,
            if b.trials == 1 { "" } else { "s" },
            b.trial_duration.as_secs_f64(),
            b.depth,
            b.block_size,
            if b.random { "at random offsets" } else { "sequential" }
        )));
    }
    reads
}
