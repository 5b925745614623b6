//! The scripted [`DeviceAccess`] fake that `access.rs` promises, for tests only: the library's
//! own, and those of tests/ and fuzz/ with the `doubles` feature.
//!
//! Owns: a device whose every answer is scripted (ATA commands by opcode and feature, IDENTIFY,
//! the HDIO gets and sets, the block ioctls, geometry, the kernel's identity), whose successful
//! sets change what the gets read back as a drive's would (unless [`FakeDevice::ignoring_sets`]
//! scripts one that accepts and changes nothing), and which records
//! every call the steps make, in order, so a test can check the commands sent (opcode, feature,
//! count, LBA, timeout) and what was asked of the kernel. [`FakeDevice::model_disk`] and
//! [`FakeDevice::model_scsi_disk`] put the VM bench's drive model under it (`fake_drive`, which
//! this file calls down to): it answers what no rule scripts. [`run_on`] runs a command line
//! through the real parser and the same per-device function the binary calls, over fakes.
//!
//! Must not: touch a real device. The only file it opens is `/dev/null`, for the descriptor the
//! timings would read from.

// A test double (built for tests, and for tests/ and fuzz/ under `doubles`): a script that
// cannot run says so loudly, as a test does.
#![allow(clippy::expect_used, clippy::panic, clippy::unwrap_used)]

// What a test scripts the fake with, nameable from tests/ (the `doubles` feature).
pub use crate::exec::access::{
    AtaAnswer, AtaFailure, AtaOutput, AtaVia, BlockCall, DeviceAccess, Geometry, HdioSetting, Lost,
    NvmeFailure, MAX_SECTORS_KB, QUEUE_DEPTH,
};

use crate::ata::command::{AtaRegisters, TaskFile};
use crate::cli::{DeviceRun, Invocation};
use crate::device::lock::{Denied, Mode, Wait};
use crate::exec::devices::{run_devices_with, Held, Opened, Opener};
use crate::exec::guards::DeviceFacts;
use crate::exec::output::Output;
use crate::exec::output::SharedStderr;
use crate::exec::stop::Stop;
use std::cell::RefCell;
use std::ffi::OsString;
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::rc::Rc;

/// One call the steps made, with its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Call {
    Ata(TaskFile),
    /// The size of the data buffer the ATA command just before was given.
    AtaDataLen(usize),
    Identify,
    ReadLog {
        log: u8,
        page: u8,
    },
    ForgetIdentify,
    /// A block-layer, old IDE driver or cdrom driver ioctl, as the steps asked for it.
    Block(BlockCall),
    Geometry,
    PartitionRefusal(u64),
    HdioIdentity,
    QueueDepth,
    SetQueueDepth(u32),
    // --- firmware and vendor commands ---
    /// What a data-out ATA command sent (recorded after its `Ata`/`AtaSgOnly`).
    AtaDataOut(Vec<u8>),
    /// An ATA command sent through SG_IO only (no legacy fallback).
    AtaSgOnly(TaskFile),
    /// An NVMe command, with the data it sent (empty for commands that read or send none).
    Nvme(crate::nvme::command::NvmeCommand, Vec<u8>),
    /// A SCSI command (issue 22): its CDB and its parameter data.
    Scsi(Vec<u8>, Vec<u8>),
}

/// A kernel-side setting a set left behind, read back instead of the scripted value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Stuck {
    Readonly,
    Hdio(HdioSetting),
    QueueDepth,
    WriteCache,
}

/// The drive's side of the settings: what a drive that takes SET FEATURES (ACS-4 §7.43) or SET
/// MULTIPLE MODE (§7.44) shows in IDENTIFY afterwards (words 59, 85, 86, 91, 94, 120). The one
/// place the fake models a setting: the kernel's HDIO_SET_WCACHE lands in the same word
/// through [`drive::write_cache`]. Written from the standard under the fake's own names, not
/// with `ata/`'s codecs: a model that used the tool's decoders would agree with its bugs
/// (style.md).
mod drive {
    use crate::ata::command::TaskFile;

    /// ACS-4 §7.43 and §7.44: the opcodes.
    const SET_FEATURES: u8 = 0xEF;
    const SET_MULTIPLE_MODE: u8 = 0xC6;
    /// ACS-4 table 168: the SET FEATURES subcommands (FEATURE 7:0) that change IDENTIFY.
    const ENABLE_VOLATILE_WRITE_CACHE: u16 = 0x02;
    const DISABLE_VOLATILE_WRITE_CACHE: u16 = 0x82;
    const ENABLE_APM: u16 = 0x05;
    const DISABLE_APM: u16 = 0x85;
    const ENABLE_WRITE_READ_VERIFY: u16 = 0x0B;
    const DISABLE_WRITE_READ_VERIFY: u16 = 0x8B;
    const ENABLE_AAM: u16 = 0x42;
    const ENABLE_READ_LOOK_AHEAD: u16 = 0xAA;
    const DISABLE_READ_LOOK_AHEAD: u16 = 0x55;

    fn set_bit(w: &mut u16, bit: u16, on: bool) {
        if on {
            *w |= 1 << bit
        } else {
            *w &= !(1 << bit)
        }
    }

    /// Word 85 bit 5: the volatile write cache is enabled.
    pub fn write_cache(words: &mut [u16; 256], on: bool) {
        set_bit(&mut words[85], 5, on);
    }

    /// What a successful `tf` changes in `words` (nothing for the other commands).
    pub fn apply(words: &mut [u16; 256], tf: &TaskFile) {
        let count = tf.count & 0xff;
        match (tf.command, tf.feature) {
            // word 59: bit 8 "the multiple setting is valid", 7:0 the sectors per block
            (SET_MULTIPLE_MODE, _) => words[59] = 0x0100 | count,
            // word 85 bit 6: read look-ahead enabled
            (SET_FEATURES, ENABLE_READ_LOOK_AHEAD) => set_bit(&mut words[85], 6, true),
            (SET_FEATURES, DISABLE_READ_LOOK_AHEAD) => set_bit(&mut words[85], 6, false),
            (SET_FEATURES, ENABLE_VOLATILE_WRITE_CACHE) => write_cache(words, true),
            (SET_FEATURES, DISABLE_VOLATILE_WRITE_CACHE) => write_cache(words, false),
            // word 86 bit 3: APM enabled; word 91: bit 14 set, 7:0 the APM level
            (SET_FEATURES, ENABLE_APM) => {
                set_bit(&mut words[86], 3, true);
                words[91] = 0x4000 | count;
            }
            (SET_FEATURES, DISABLE_APM) => set_bit(&mut words[86], 3, false),
            // word 94 7:0: the current AAM value
            (SET_FEATURES, ENABLE_AAM) => words[94] = (words[94] & 0xff00) | count,
            // word 120 bit 1: the Write-Read-Verify feature set is enabled
            (SET_FEATURES, ENABLE_WRITE_READ_VERIFY) => set_bit(&mut words[120], 1, true),
            (SET_FEATURES, DISABLE_WRITE_READ_VERIFY) => set_bit(&mut words[120], 1, false),
            _ => {}
        }
    }
}

/// The registers of one ATA command as a test compares them: (command, feature, count).
pub type Regs = (u8, u16, u16);

/// A scripted answer to ATA commands with this opcode (and feature, when given).
struct AtaRule {
    command: u8,
    feature: Option<u16>,
    answer: Result<AtaOutput, AtaFailure>,
    /// What a PIO-in command reads (repeated to fill the caller's buffer).
    data: Vec<u8>,
}

/// A device whose answers are scripted; see the module doc.
pub struct FakeDevice {
    pub kind: String,
    /// What the device is, with the ATA note ("; it has no ATA interface") where it has one.
    pub description: String,
    /// The same without the ATA note.
    pub plain_description: String,
    pub ata_capable: bool,
    pub libata: bool,
    pub directory: bool,
    /// IDENTIFY's answer: the words, or the failure.
    pub identify: Result<[u16; 256], AtaFailure>,
    pub identity: io::Result<[u8; 512]>,
    pub readahead: io::Result<i64>,
    pub readonly: io::Result<i64>,
    pub geometry: Result<Geometry, (&'static str, i32)>,
    /// The queue depth, or the errno reading it fails with (under [`Self::queue_depth_path`]).
    pub queue_depth: Result<u32, i32>,
    /// The sysfs path hdparm names when the queue depth cannot be read or written.
    pub queue_depth_path: String,
    /// Whether partition scanning is off (BLKRRPART's EINVAL on a loop device).
    pub partition_scan_off: bool,
    pub size_sectors: io::Result<u64>,
    pub logical_sector_size: io::Result<u32>,
    pub partition_refusal: Option<String>,
    /// What uses the drive, as the in-use check would find it (a mount, swap, a holder).
    pub in_use: Option<String>,
    /// HDIO get answers; a setting not listed answers ENOTTY (what libata says).
    pub hdio: Vec<(HdioSetting, i64)>,
    /// What `--verbose` says about the USB bridge probe (hdparm's `APT:` lines).
    pub apt_lines: Vec<String>,
    /// Calls that fail, with their errno (compared exactly, arguments included). ATA commands
    /// are scripted with [`FakeDevice::on_ata`] instead, since they fail with registers.
    failing: Vec<(Call, i32)>,
    ata_rules: Vec<AtaRule>,
    /// When set, every ATA command fails so (a target that rejects pass-through).
    reject_all_ata: Option<AtaFailure>,
    /// Whether a set that succeeds changes what the gets read back, as on a real drive (see
    /// [`FakeDevice::ignoring_sets`]).
    sets_stick: bool,
    /// The values the kernel-side sets left behind (the ATA sets change the IDENTIFY words).
    stuck: RefCell<Vec<(Stuck, i64)>>,
    log: Rc<RefCell<Vec<Call>>>,
    null: std::fs::File,
    /// Full result registers by opcode (and feature): each command takes the next of its
    /// list, the last one repeating (see [`FakeDevice::on_ata_registers`]).
    registers: Vec<(u8, Option<u16>, RefCell<Vec<AtaRegisters>>)>,
    // --- sectors (HPA, DCO, TRIM, sector operations) ---
    /// READ LOG EXT answers by (log, page); a page not listed is aborted.
    pub logs: Vec<((u8, u8), [u8; 512])>,
    /// `queue/max_sectors_kb`.
    pub max_sectors_kb: Option<u32>,
    /// What standard input holds, handed out 7 bytes at a time by `stdin_chunk` (so that the
    /// readers meet pairs cut between two pieces).
    pub stdin: Vec<u8>,
    /// Standard input from a stream instead (the bounded-memory test pipes a long list).
    pub stdin_stream: Option<Box<dyn std::io::Read>>,
    /// Whether the data out of each command is kept (a test sending millions of ranges turns
    /// it off, so that what the fake keeps does not hide what the steps keep).
    pub keep_data_out: bool,
    /// The data-out bytes of every ATA command that writes, in order.
    data_out: Rc<RefCell<Vec<Vec<u8>>>>,
    /// NVMe (issue 10): the controller behind an NVMe node.
    pub nvme: Option<crate::exec::doubles::fake_nvme::FakeNvme>,
    /// Issue 22: what the kernel knows of a SCSI disk that is not libata's; its SCSI commands
    /// go to the drive model when there is one (`model`), else fail as not implemented.
    pub scsi_disk: Option<crate::exec::access::ScsiDisk>,
    /// Set by a scripted failure that lost the drive (see [`lost`]); unlike the real device,
    /// the fake still answers later commands, so that a test sees every command a step sent.
    lost: Option<(Lost, String)>,
    /// Issue 18: what holds the disk's lock when its turn comes (`device::lock`).
    pub locked_by: Option<Denied>,
    /// The drive behind the device, when it is the VM bench's model (`fake_drive.rs`): it
    /// answers IDENTIFY and every ATA command no rule scripts.
    pub model: Option<Box<drive_model::state::State>>,
    /// Issue 18: a signal that comes while the ATA command with this opcode is being sent
    /// (its `nth` time, from 1), as a user's Ctrl-C or systemd's SIGTERM would; the run's
    /// [`Stop`] sees it from then on (see [`run_on_all`]).
    pub signal_during: Option<SignalDuring>,
}

/// A signal scripted to come during a command (see [`FakeDevice::signal_during`]).
#[derive(Clone, Copy, Debug)]
pub struct SignalDuring {
    pub command: u8,
    pub nth: usize,
    pub signal: i32,
}

thread_local! {
    /// The signal a fake's command let in, for this test thread's run ([`stop_of_fakes`]).
    static SIGNALLED: std::cell::Cell<Option<i32>> = const { std::cell::Cell::new(None) };
}

/// The [`Stop`] of a run over fakes: the signal one of them let in.
fn stop_of_fakes() -> Option<i32> {
    SIGNALLED.with(std::cell::Cell::get)
}

/// A signal comes before the run starts its first device (during the guard checks).
pub fn signal_before_the_run(signal: i32) {
    SIGNALLED.with(|s| s.set(Some(signal)));
}

/// A failure as the real device reports a command the drive aborted (ERR in status).
pub fn aborted(command: u8) -> AtaFailure {
    AtaFailure {
        reason: format!(
            "ATA command 0x{command:02x} failed: status 0x51 (error), error 0x04 (aborted)"
        ),
        not_ata: false,
        refused_by_kernel: false,
        lost: None,
    }
}

/// A failure as the real device reports a command it lost the drive at (see [`Lost`]).
pub fn lost(how: Lost) -> AtaFailure {
    AtaFailure {
        reason: format!("the command was lost: {how:?}"),
        not_ata: false,
        refused_by_kernel: false,
        lost: Some(how),
    }
}

/// A failure as the real device reports libata refusing to pass a command on.
pub fn refused() -> AtaFailure {
    AtaFailure {
        reason: "the kernel refused the command (ILLEGAL REQUEST: INVALID FIELD IN CDB)".into(),
        not_ata: false,
        refused_by_kernel: true,
        lost: None,
    }
}

fn errno(e: i32) -> io::Error {
    io::Error::from_raw_os_error(e)
}

impl FakeDevice {
    /// A SATA disk behind libata: ATA commands work and answer with zero registers, IDENTIFY
    /// gives `words`, the block ioctls work, the old IDE driver's HDIO ioctls answer ENOTTY
    /// except HDIO_GET_32BIT, as libata does.
    pub fn libata_disk(words: [u16; 256]) -> FakeDevice {
        FakeDevice {
            kind: "ata_disk".into(),
            description: "/dev/x is a SATA disk (libata)".into(),
            plain_description: "/dev/x is a SATA disk (libata)".into(),
            ata_capable: true,
            libata: true,
            directory: false,
            identify: Ok(words),
            identity: Err(errno(libc::ENOTTY)),
            readahead: Ok(256),
            readonly: Ok(0),
            geometry: Ok(Geometry {
                cylinders: 121601,
                heads: 255,
                sectors_per_track: 63,
                total_sectors: 1953525168,
                start_sector: Some(0),
            }),
            queue_depth: Ok(32),
            queue_depth_path: "/sys/block/x/device/queue_depth".into(),
            partition_scan_off: false,
            size_sectors: Ok(1953525168),
            logical_sector_size: Ok(512),
            partition_refusal: None,
            in_use: None,
            hdio: vec![(HdioSetting::Io32bit, 1)],
            apt_lines: vec!["APT: No idVendor found -> not USB bridge device".into()],
            failing: Vec::new(),
            ata_rules: Vec::new(),
            reject_all_ata: None,
            sets_stick: true,
            stuck: RefCell::new(Vec::new()),
            log: Rc::new(RefCell::new(Vec::new())),
            null: dev_null(),
            registers: Vec::new(),
            logs: Vec::new(),
            max_sectors_kb: Some(512),
            stdin: Vec::new(),
            stdin_stream: None,
            keep_data_out: true,
            data_out: Rc::new(RefCell::new(Vec::new())),
            nvme: None,
            scsi_disk: None,
            lost: None,
            signal_during: None,
            locked_by: None,
            model: None,
        }
    }

    /// A drive on the old IDE driver: every HDIO ioctl works (values given by `hdio`).
    pub fn ide_disk(words: [u16; 256]) -> FakeDevice {
        FakeDevice {
            kind: "ide".into(),
            description: "/dev/x is an IDE disk".into(),
            plain_description: "/dev/x is an IDE disk".into(),
            libata: false,
            hdio: vec![
                (HdioSetting::Multcount, 16),
                (HdioSetting::Io32bit, 0),
                (HdioSetting::Unmask, 1),
                (HdioSetting::Dma, 1),
                (HdioSetting::KeepSettings, 0),
                (HdioSetting::Nowerr, 0),
                (HdioSetting::Busstate, 1),
            ],
            ..FakeDevice::libata_disk(words)
        }
    }

    /// A loop device: no ATA, no HDIO, no geometry (ENOTTY), no queue depth (ENOENT), block
    /// ioctls work.
    pub fn loop_device() -> FakeDevice {
        FakeDevice {
            kind: "loop".into(),
            queue_depth_path: "/sys/block/loop0/device/queue_depth".into(),
            ..FakeDevice::without_ata("/dev/x is a loop device")
        }
    }

    /// An NVMe namespace: as a loop device for everything the steps ask.
    pub fn nvme() -> FakeDevice {
        FakeDevice {
            kind: "nvme".into(),
            queue_depth_path: "/sys/block/nvme0n1/device/queue_depth".into(),
            nvme: Some(crate::exec::doubles::fake_nvme::FakeNvme::qemu()),
            ..FakeDevice::without_ata("/dev/x is an NVMe namespace")
        }
    }

    /// A device no ATA transport can reach, `plain` saying what it is: the real device's
    /// refusal of every ATA request is its description with the note "it has no ATA interface".
    fn without_ata(plain: &str) -> FakeDevice {
        let description = format!("{plain}; it has no ATA interface");
        let not_ata = AtaFailure {
            reason: description.clone(),
            not_ata: true,
            refused_by_kernel: false,
            lost: None,
        };
        FakeDevice {
            description,
            plain_description: plain.into(),
            ata_capable: false,
            libata: false,
            identify: Err(not_ata),
            geometry: Err((" HDIO_GETGEO failed", libc::ENOTTY)),
            queue_depth: Err(libc::ENOENT),
            hdio: Vec::new(),
            ..FakeDevice::libata_disk([0; 256])
        }
    }

    /// A SCSI disk whose target rejects ATA PASS-THROUGH (virtio-scsi): ATA commands are worth
    /// trying, and every one, IDENTIFY included, is refused as the real device refuses it.
    pub fn scsi_without_ata() -> FakeDevice {
        let reason = "not an ATA device: ATA PASS-THROUGH was rejected (ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00))";
        let rejected = AtaFailure {
            reason: reason.into(),
            not_ata: true,
            refused_by_kernel: false,
            lost: None,
        };
        let mut fake = FakeDevice {
            kind: "scsi_disk".into(),
            description: "/dev/x is a SCSI disk (virtio_scsi); ATA commands reach it only if the SCSI target translates them".into(),
            plain_description: "/dev/x is a SCSI disk (virtio_scsi)".into(),
            libata: false,
            identify: Err(rejected.clone()),
            hdio: Vec::new(),
            queue_depth: Ok(128),
            scsi_disk: Some(crate::exec::access::ScsiDisk {
                usb: false,
                ata_information_page: false,
                ata_vendor: false,
            }),
            ..FakeDevice::libata_disk([0; 256])
        };
        fake.reject_all_ata = Some(rejected);
        fake
    }

    /// A SATA disk behind libata whose drive is the VM bench's model (`fake_drive`):
    /// rules scripted with [`FakeDevice::on_ata`] still come first.
    pub fn model_disk() -> FakeDevice {
        let mut state = crate::exec::doubles::fake_drive::wd10ezex();
        let words = crate::exec::doubles::fake_drive::identify(&mut state).unwrap_or([0; 256]);
        let mut fake = FakeDevice::libata_disk(words);
        fake.model = Some(state);
        fake
    }

    /// A SCSI disk whose target rejects ATA PASS-THROUGH (a SAS or virtio-scsi disk), its SCSI
    /// commands answered by the model's SCSI face (issue 22).
    pub fn model_scsi_disk() -> FakeDevice {
        let mut fake = FakeDevice::scsi_without_ata();
        let mut model = crate::exec::doubles::fake_drive::wd10ezex();
        // the model's SAS disk (tools/drive-model/src/scsi_disk.rs): its own mode pages,
        // log pages, power conditions, SANITIZE and WRITE BUFFER, as `--scsi-only` serves them
        model.scsi = Some(drive_model::state::ScsiDisk::new());
        fake.model = Some(model);
        fake
    }

    /// ATA commands with this opcode (and feature, if given) answer `answer`. The first
    /// matching rule wins; commands with no rule succeed with zero registers.
    pub fn on_ata(
        mut self,
        command: u8,
        feature: Option<u16>,
        answer: Result<AtaOutput, AtaFailure>,
    ) -> Self {
        self.ata_rules.push(AtaRule {
            command,
            feature,
            answer,
            data: Vec::new(),
        });
        self
    }

    /// ATA commands with this opcode succeed and read `data` (repeated to fill the buffer).
    pub fn on_ata_read(mut self, command: u8, data: &[u8]) -> Self {
        self.ata_rules.push(AtaRule {
            command,
            feature: None,
            answer: Ok(AtaOutput::default()),
            data: data.to_vec(),
        });
        self
    }

    /// ATA commands with this opcode (and feature, if given) return these registers, in turn
    /// (the last repeating), whether the rules of [`FakeDevice::on_ata`] make them succeed or
    /// fail: what [`DeviceAccess::ata_registers`] gives.
    pub fn on_ata_registers(
        mut self,
        command: u8,
        feature: Option<u16>,
        registers: Vec<AtaRegisters>,
    ) -> Self {
        self.registers
            .push((command, feature, RefCell::new(registers)));
        self
    }

    /// A drive (and kernel) that accepts every set and changes nothing: the gets read back the
    /// scripted values (QEMU's drives accept SET FEATURES APM and still list no APM).
    pub fn ignoring_sets(mut self) -> Self {
        self.sets_stick = false;
        self
    }

    fn stick(&self, what: Stuck, value: i64) {
        if self.sets_stick {
            let mut stuck = self.stuck.borrow_mut();
            stuck.retain(|(w, _)| *w != what);
            stuck.push((what, value));
        }
    }

    fn stuck(&self, what: Stuck) -> Option<i64> {
        self.stuck
            .borrow()
            .iter()
            .find(|(w, _)| *w == what)
            .map(|(_, v)| *v)
    }

    /// `call` fails with `errno`.
    pub fn failing(mut self, call: Call, errno: i32) -> Self {
        self.failing.push((call, errno));
        self
    }

    /// The shared log of calls, to read after the fake was handed over.
    pub fn log(&self) -> Rc<RefCell<Vec<Call>>> {
        Rc::clone(&self.log)
    }

    fn record(&self, call: Call) -> io::Result<()> {
        let failure = self
            .failing
            .iter()
            .find(|(c, _)| *c == call)
            .map(|(_, e)| *e);
        self.log.borrow_mut().push(call);
        match failure {
            Some(e) => Err(errno(e)),
            None => Ok(()),
        }
    }
}

/// `/dev/null`, whose descriptor stands in for the device's.
fn dev_null() -> std::fs::File {
    std::fs::File::open("/dev/null").expect("/dev/null opens")
}

fn copy<T: Copy>(r: &io::Result<T>) -> io::Result<T> {
    match r {
        Ok(v) => Ok(*v),
        Err(e) => Err(errno(e.raw_os_error().unwrap_or(libc::EIO))),
    }
}

impl FakeDevice {
    /// Sets the signal of [`FakeDevice::signal_during`] when its command is sent.
    fn let_signal_in(&mut self, command: u8) {
        if let Some(during) = self.signal_during.as_mut() {
            if during.command == command {
                during.nth = during.nth.saturating_sub(1);
                if during.nth == 0 {
                    let signal = during.signal;
                    SIGNALLED.with(|s| s.set(Some(signal)));
                    self.signal_during = None;
                }
            }
        }
    }

    /// A signal comes during the `nth` ATA command `command` sent to this device.
    pub fn signal_during(mut self, command: u8, nth: usize, signal: i32) -> Self {
        self.signal_during = Some(SignalDuring {
            command,
            nth,
            signal,
        });
        self
    }

    /// READ LOG EXT, logged as [`Call::ReadLog`] and answered from [`FakeDevice::logs`]: a
    /// page not listed is aborted (on any device: the logs are scripted whole).
    fn answer_read_log(
        &mut self,
        tf: &TaskFile,
        data: &mut [u8],
    ) -> Result<AtaRegisters, AtaFailure> {
        let (log, page) = ((tf.lba & 0xff) as u8, ((tf.lba >> 8) & 0xff) as u8);
        let _ = self.record(Call::ReadLog { log, page });
        let page = self
            .logs
            .iter()
            .find(|(at, _)| *at == (log, page))
            .map(|(_, data)| *data)
            .ok_or_else(|| aborted(crate::ata::command::op::READ_LOG_EXT))?;
        let n = data.len().min(page.len());
        data[..n].copy_from_slice(&page[..n]);
        Ok(AtaOutput::default().registers(tf.lba48))
    }

    /// The scripted answer to an ATA command already recorded: the data length (and what a
    /// data-out command sent), then the rule's answer.
    fn answer_ata(&mut self, tf: &TaskFile, data: &mut [u8]) -> AtaAnswer {
        self.log.borrow_mut().push(Call::AtaDataLen(data.len()));
        if tf.protocol.is_write() && self.keep_data_out {
            self.log.borrow_mut().push(Call::AtaDataOut(data.to_vec()));
            self.data_out.borrow_mut().push(data.to_vec());
        }
        if !self.ata_capable {
            return Err((
                AtaFailure {
                    reason: self.description.clone(),
                    not_ata: true,
                    refused_by_kernel: false,
                    lost: None,
                },
                None,
            ));
        }
        if let Some(rejected) = &self.reject_all_ata {
            return Err((rejected.clone(), None));
        }
        let rule = self
            .ata_rules
            .iter()
            .find(|r| r.command == tf.command && r.feature.map_or(true, |f| f == tf.feature));
        let answer = match (rule, self.model.as_mut()) {
            (Some(r), _) => {
                for (byte, value) in data.iter_mut().zip(r.data.iter().cycle()) {
                    *byte = *value;
                }
                r.answer.clone()
            }
            // The model keeps its own state: the scripted words below are not its.
            (None, Some(model)) => {
                return crate::exec::doubles::fake_drive::execute(model, tf, data)
            }
            (None, None) => Ok(AtaOutput::default()),
        };
        if let (Ok(_), Ok(words), true) = (&answer, &mut self.identify, self.sets_stick) {
            drive::apply(words, tf);
        }
        if let Err(AtaFailure { lost: Some(l), .. }) = &answer {
            let name = crate::exec::lost::command_words(tf.command, tf.feature);
            self.lost.get_or_insert((*l, name));
        }
        answer
            .map(|out| out.registers(tf.lba48))
            .map_err(|f| (f, None))
    }
}

impl DeviceAccess for FakeDevice {
    fn kind_name(&self) -> String {
        self.kind.clone()
    }
    fn description(&self) -> String {
        self.description.clone()
    }
    fn plain_description(&self) -> String {
        self.plain_description.clone()
    }
    fn ata_capable(&self) -> bool {
        self.ata_capable
    }
    fn is_directory(&self) -> bool {
        self.directory
    }
    fn fd(&self) -> BorrowedFd<'_> {
        self.null.as_fd()
    }
    fn is_libata(&self) -> bool {
        self.libata
    }

    fn ata_taskfile(&mut self, tf: &TaskFile, data: &mut [u8], via: AtaVia) -> AtaAnswer {
        // The scripted logs; a model drive keeps its own (and sees READ LOG EXT as a command).
        if via == AtaVia::Any
            && tf.command == crate::ata::command::op::READ_LOG_EXT
            && self.model.is_none()
        {
            return self.answer_read_log(tf, data).map_err(|f| (f, None));
        }
        // Recorded even on a device that cannot take ATA: the step asked (the real device then
        // sends nothing and answers as below).
        let _ = self.record(match via {
            AtaVia::Any => Call::Ata(tf.clone()),
            AtaVia::SgOnly => Call::AtaSgOnly(tf.clone()),
        });
        if via == AtaVia::Any {
            self.let_signal_in(tf.command);
        }
        self.answer_ata(tf, data)
    }
    fn identify(&mut self) -> Result<[u16; 256], AtaFailure> {
        let _ = self.record(Call::Identify);
        // A target that rejects pass-through rejects IDENTIFY too, whatever drive is behind
        // it (the model's SCSI face then answers the SCSI commands).
        if let Some(rejected) = &self.reject_all_ata {
            return Err(rejected.clone());
        }
        if let Some(model) = self.model.as_mut() {
            return crate::exec::doubles::fake_drive::identify(model);
        }
        let mut answer = self.identify.clone();
        if let (Ok(words), Some(on)) = (&mut answer, self.stuck(Stuck::WriteCache)) {
            // HDIO_SET_WCACHE went through the kernel: the drive's word 85 shows it.
            drive::write_cache(words, on != 0);
        }
        answer
    }
    fn forget_identify(&mut self) {
        let _ = self.record(Call::ForgetIdentify);
    }

    fn block(&self, call: BlockCall) -> io::Result<i64> {
        self.record(Call::Block(call))?;
        match call {
            BlockCall::Readahead => copy(&self.readahead),
            BlockCall::Readonly => match self.stuck(Stuck::Readonly) {
                Some(v) if self.readonly.is_ok() => Ok(v),
                _ => copy(&self.readonly),
            },
            BlockCall::SetReadonly(on) => {
                self.stick(Stuck::Readonly, i64::from(on));
                Ok(0)
            }
            BlockCall::SizeSectors => copy(&self.size_sectors).map(|v| v as i64),
            BlockCall::LogicalSectorSize => copy(&self.logical_sector_size).map(i64::from),
            BlockCall::HdioGet(what) => self
                .hdio
                .iter()
                .find(|(w, _)| *w == what)
                .map(|(_, v)| self.stuck(Stuck::Hdio(what)).unwrap_or(*v))
                .ok_or_else(|| errno(libc::ENOTTY)),
            BlockCall::HdioSet(what, value) => {
                if self.hdio.iter().any(|(w, _)| *w == what) {
                    self.stick(Stuck::Hdio(what), value as i64);
                    Ok(0)
                } else {
                    Err(errno(libc::ENOTTY))
                }
            }
            BlockCall::HdioSetWcache(on) => {
                self.stick(Stuck::WriteCache, i64::from(on));
                Ok(0)
            }
            BlockCall::SetReadahead(_)
            | BlockCall::FlushBufferCache
            | BlockCall::RereadPartitions
            | BlockCall::HdioSetPioMode(_)
            | BlockCall::HdioReset
            | BlockCall::CdromSetStreaming(_)
            | BlockCall::CdromSelectSpeed(_) => Ok(0),
        }
    }
    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)> {
        let _ = self.record(Call::Geometry);
        self.geometry.map_err(|(label, e)| (label, errno(e)))
    }
    fn partition_refusal(&self, lba: u64) -> Option<String> {
        let _ = self.record(Call::PartitionRefusal(lba));
        self.partition_refusal.clone()
    }
    fn partition_scan_off(&self) -> bool {
        self.partition_scan_off
    }
    fn hdio_identity(&self) -> io::Result<[u8; 512]> {
        self.record(Call::HdioIdentity)?;
        copy(&self.identity)
    }
    /// The queue depth (logged as [`Call::QueueDepth`]) and `queue/max_sectors_kb`, as
    /// scripted; other attributes are missing.
    fn sysfs_u64(&self, attr: &str) -> Result<u64, (String, io::Error)> {
        match attr {
            QUEUE_DEPTH => {
                let label = || self.queue_depth_path.clone();
                self.record(Call::QueueDepth).map_err(|e| (label(), e))?;
                let depth = self.queue_depth.map_err(|e| (label(), errno(e)))?;
                let depth = self.stuck(Stuck::QueueDepth).map_or(depth, |d| d as u32);
                Ok(u64::from(depth))
            }
            MAX_SECTORS_KB => self
                .max_sectors_kb
                .map(u64::from)
                .ok_or_else(|| (attr.to_string(), errno(libc::ENOENT))),
            _ => Err((attr.to_string(), errno(libc::ENOENT))),
        }
    }
    fn set_sysfs_u64(&self, attr: &str, value: u64) -> Result<(), (String, io::Error)> {
        let label = || self.queue_depth_path.clone();
        let depth = match (attr, u32::try_from(value)) {
            (QUEUE_DEPTH, Ok(depth)) => depth,
            _ => return Err((attr.to_string(), errno(libc::EACCES))),
        };
        self.record(Call::SetQueueDepth(depth))
            .map_err(|e| (label(), e))?;
        // A missing attribute cannot be written either.
        self.queue_depth.map_err(|e| (label(), errno(e)))?;
        self.stick(Stuck::QueueDepth, i64::from(depth));
        Ok(())
    }

    /// Overridden: the scripted register lists ([`FakeDevice::on_ata_registers`]) are taken
    /// one per call only by the steps that read every register (a SANITIZE STATUS poll), so
    /// that the commands sent between two polls do not move a test's list on.
    fn ata_registers(&mut self, tf: &TaskFile, data: &mut [u8]) -> AtaAnswer {
        let answer = self.ata_taskfile(tf, data, AtaVia::Any);
        let scripted = self
            .registers
            .iter()
            .find(|(c, f, _)| *c == tf.command && f.map_or(true, |f| f == tf.feature))
            .and_then(|(_, _, list)| {
                let mut list = list.borrow_mut();
                if list.len() > 1 {
                    Some(list.remove(0))
                } else {
                    list.first().copied()
                }
            });
        match answer {
            Ok(registers) => Ok(scripted.unwrap_or(registers)),
            Err((f, _)) => Err((f, scripted)),
        }
    }
    // --- sectors (HPA, DCO, TRIM, sector operations) ---
    fn stdin_bytes(&mut self) -> io::Result<Vec<u8>> {
        let mut all = std::mem::take(&mut self.stdin);
        if let Some(stream) = self.stdin_stream.as_mut() {
            stream.read_to_end(&mut all)?;
        }
        Ok(all)
    }
    fn stdin_chunk(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        if let Some(stream) = self.stdin_stream.as_mut() {
            let mut piece = [0u8; 64 << 10];
            let n = stream.read(&mut piece)?;
            buf.extend_from_slice(&piece[..n]);
            return Ok(n);
        }
        let n = self.stdin.len().min(7);
        buf.extend(self.stdin.drain(..n));
        Ok(n)
    }
    fn pause(&self, _duration: std::time::Duration) {}
    // --- firmware and vendor commands ---
    // ---- NVMe (issue 10) ----
    fn nvme_capable(&self) -> bool {
        self.nvme.is_some()
    }

    fn nvme_nsid(&mut self) -> Option<u32> {
        self.nvme.as_ref().and_then(|n| n.nsid)
    }

    fn nvme(
        &mut self,
        cmd: &crate::nvme::command::NvmeCommand,
        data: &mut [u8],
    ) -> Result<u32, crate::exec::access::NvmeFailure> {
        use crate::nvme::command::DataDirection;
        let sent = if cmd.direction() == DataDirection::ToDevice {
            data.to_vec()
        } else {
            Vec::new()
        };
        self.log.borrow_mut().push(Call::Nvme(*cmd, sent));
        match self.nvme.as_mut() {
            Some(n) => n.answer(cmd, data),
            None => Err(crate::exec::access::NvmeFailure {
                reason: format!("{}; it takes no NVMe commands", self.plain_description),
                status: None,
                class: crate::error::ErrorClass::NotApplicable,
            }),
        }
    }

    fn nvme_controller_attr(&self, attr: &str) -> io::Result<String> {
        self.nvme
            .as_ref()
            .and_then(|n| n.sysfs.iter().find(|(a, _)| a == attr))
            .map(|(_, v)| v.clone())
            .ok_or_else(|| errno(libc::ENOENT))
    }

    fn nvme_partition_of(&self) -> Option<String> {
        self.nvme.as_ref().and_then(|n| n.partition_of.clone())
    }

    // ---- SCSI (issue 22) ----
    fn scsi_disk(&self) -> Option<crate::exec::access::ScsiDisk> {
        self.scsi_disk
    }

    fn scsi(
        &mut self,
        cmd: &crate::exec::access::ScsiCommand,
    ) -> Result<Vec<u8>, crate::exec::access::ScsiFailure> {
        self.log
            .borrow_mut()
            .push(Call::Scsi(cmd.cdb.clone(), cmd.data_out.clone()));
        match self.model.as_mut() {
            Some(model) => crate::exec::doubles::fake_drive::execute_scsi(model, cmd),
            None => Err(crate::exec::access::ScsiFailure {
                reason: format!("{} failed: the fake disk has no SCSI target", cmd.name),
                sense: None,
                class: crate::error::ErrorClass::NotApplicable,
            }),
        }
    }

    fn apt_lines(&self) -> Vec<String> {
        self.apt_lines.clone()
    }

    fn lost(&self) -> Option<(Lost, String)> {
        self.lost.clone()
    }
}

/// What one run over fakes produced.
pub struct Outcome {
    pub stdout: String,
    pub stderr: String,
    pub exit: u8,
    /// Every call, in order, over all devices.
    pub calls: Vec<Call>,
    /// The data-out bytes of every ATA command that wrote, in order, over all devices.
    pub data_out: Vec<Vec<u8>>,
}

impl Outcome {
    /// The ATA commands sent, as (command, feature, count).
    pub fn ata(&self) -> Vec<Regs> {
        self.taskfiles()
            .iter()
            .map(|tf| (tf.command, tf.feature, tf.count))
            .collect()
    }

    /// The ATA commands sent, whole.
    pub fn taskfiles(&self) -> Vec<TaskFile> {
        self.calls
            .iter()
            .filter_map(|c| match c {
                Call::Ata(tf) | Call::AtaSgOnly(tf) => Some(tf.clone()),
                _ => None,
            })
            .collect()
    }

    /// The calls other than IDENTIFY reads and cache drops (which depend on how often a step
    /// looks at IDENTIFY, not on what it does).
    pub fn actions(&self) -> Vec<Call> {
        self.calls
            .iter()
            .filter(|c| {
                !matches!(
                    c,
                    Call::Identify
                        | Call::ForgetIdentify
                        | Call::AtaDataLen(_)
                        | Call::AtaDataOut(_)
                )
            })
            .cloned()
            .collect()
    }
}

/// Hands out the fakes, one per device in command-line order.
struct FakeOpener {
    fakes: Vec<FakeDevice>,
    /// The device the next guard check is about.
    facts_next: usize,
}

impl Opener for FakeOpener {
    fn facts(&mut self, _run: &DeviceRun) -> DeviceFacts {
        let fake = self.fakes.get(self.facts_next);
        self.facts_next += 1;
        DeviceFacts {
            multcount_via_ata: fake.is_some_and(|f| f.libata),
            in_use: fake.and_then(|f| f.in_use.clone()),
            visible_sectors: fake.and_then(|f| {
                let words = f.identify.as_ref().ok()?;
                Some(crate::ata::identify::Identify::from_words(*words).capacity_sectors())
            }),
            nvme: fake.is_some_and(|f| f.nvme.is_some()),
        }
    }

    fn claim(&mut self, _run: &DeviceRun, _mode: Mode, _wait: Wait<'_>) -> Result<Held, Denied> {
        match self.fakes.first().and_then(|f| f.locked_by.clone()) {
            Some(denied) => {
                // The device's turn ends here: the next one is the next fake.
                self.fakes.remove(0);
                Err(denied)
            }
            None => Ok(Box::new(())),
        }
    }

    fn open<'w>(&mut self, _run: &DeviceRun, _trace: SharedStderr<'w>) -> io::Result<Opened<'w>> {
        if self.fakes.is_empty() {
            return Err(errno(libc::ENOENT));
        }
        let dev = self.fakes.remove(0);
        Ok(Opened {
            kind: dev.kind.clone(),
            description: dev.description.clone(),
            dev: Box::new(dev),
        })
    }
}

/// Runs `command_line` (words after the program name, split at spaces) through the real parser
/// and the per-device processing of the binary, each device being the next of `fakes`; a
/// device with no fake left fails to open with ENOENT.
pub fn run_on_all(fakes: Vec<FakeDevice>, command_line: &str) -> Outcome {
    run_on_all_with(fakes, command_line, false)
}

/// [`run_on`] with a stderr that counts as a terminal (progress lines are drawn).
pub fn run_on_terminal(fake: FakeDevice, command_line: &str) -> Outcome {
    run_on_all_with(vec![fake], command_line, true)
}

fn run_on_all_with(fakes: Vec<FakeDevice>, command_line: &str, terminal: bool) -> Outcome {
    // A signal set by signal_before_the_run is this run's; one a fake lets in comes later.
    let stop = Stop::from_fn(stop_of_fakes);
    let logs: Vec<_> = fakes.iter().map(FakeDevice::log).collect();
    let data_outs: Vec<_> = fakes.iter().map(|f| Rc::clone(&f.data_out)).collect();
    let argv: Vec<OsString> = std::iter::once("hdparm")
        .chain(command_line.split_whitespace())
        .map(OsString::from)
        .collect();
    let parsed = crate::cli::parse(&argv);
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let runs = match parsed.result {
        Ok(Invocation::Devices(runs)) => runs,
        other => panic!("{command_line:?} is not a device invocation: {other:?}"),
    };
    // JSON or text, as `exec::run` decides it, with what `-q` hid asked for again in JSON.
    let json = runs.iter().any(|r| r.flags.json);
    let runs = if json {
        crate::exec::quiet::loud_for_json(&argv, runs)
    } else {
        runs
    };
    // As the binary shows it (exec::run): the passwords redacted.
    let argv = crate::cli::parse::redacted_argv(&argv);
    let exit = {
        let mut out = Output::new(json, argv, &mut stdout, &mut stderr);
        out.set_stderr_is_terminal(terminal);
        let mut opener = FakeOpener {
            fakes,
            facts_next: 0,
        };
        run_devices_with(&runs, &mut out, &mut opener, stop);
        out.finish()
    };
    SIGNALLED.with(|s| s.set(None));
    Outcome {
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        exit,
        calls: logs.iter().flat_map(|l| l.borrow().clone()).collect(),
        data_out: data_outs.iter().flat_map(|l| l.borrow().clone()).collect(),
    }
}

/// [`run_on_all`] with one device.
pub fn run_on(fake: FakeDevice, command_line: &str) -> Outcome {
    run_on_all(vec![fake], command_line)
}

#[cfg(test)]
mod tests {
    // The model behind the fake (`fake_drive`), seen through a run as a step test sees it.
    use super::*;

    #[test]
    fn the_model_remembers_a_setting_and_identify_shows_it() {
        let o = run_on(FakeDevice::model_disk(), "-A0 -A /dev/x");
        assert!(o.ata().contains(&(0xEF, 0x55, 0)), "{:?}", o.ata());
        assert!(
            o.stdout.contains(" look-ahead    =  0 (off)"),
            "{}",
            o.stdout
        );
        let o = run_on(FakeDevice::model_disk(), "-A /dev/x");
        assert!(
            o.stdout.contains(" look-ahead    =  1 (on)"),
            "{}",
            o.stdout
        );
    }

    #[test]
    fn the_model_aborts_what_it_does_not_take() {
        // APM level 0 is reserved (ACS-4 §7.43.8): the model aborts it, and the run fails.
        let o = run_on(FakeDevice::model_disk(), "-B0 /dev/x");
        assert_ne!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    }

    #[test]
    fn the_model_reads_its_max_address() {
        // -N reads READ NATIVE MAX ADDRESS EXT from the model: 1 GiB of 512-byte sectors.
        let o = run_on(FakeDevice::model_disk(), "-N /dev/x");
        assert!(
            o.stdout
                .contains(" max sectors   = 2097152/2097152, HPA is disabled"),
            "{}",
            o.stdout
        );
    }
}
