//! What the per-device steps need from a device, as a trait: a few primitives (the ATA
//! taskfile in and registers out, with SAT or HDIO chosen underneath; NVMe admin and I/O
//! passthrough; SCSI commands; the block-layer calls; sysfs; IDENTIFY with its cache) that each
//! implementation answers, and every other call written once on top of them as a provided
//! method. Three implementations: the real device over [`crate::device`] ([`real`]), the
//! dry-run recorder ([`dry_run`]), and the scripted fake drive of the tests
//! (`exec::doubles::fake`), so
//! every step's commands, output and exit class can be checked without hardware.
//!
//! Must not: grow a required method for what a primitive can carry (a new ATA command is a
//! taskfile, a new block ioctl a [`BlockCall`]); an implementation overrides a provided method
//! only where it must, and says why.

pub mod dry_run;
pub mod real;

use crate::ata::command::{op, AtaRegisters, Protocol, TaskFile};
pub use crate::ata::sat::Lost;
use crate::error::ErrorClass;
use crate::nvme::command::NvmeCommand;
pub use crate::scsi::Command as ScsiCommand;
use std::io;

/// A failed ATA command, as the steps report it.
#[derive(Debug, Clone)]
pub struct AtaFailure {
    /// What went wrong, in words (one sentence, no device name).
    pub reason: String,
    /// The class of failure: the device cannot take ATA commands at all (NotApplicable), or
    /// the command was sent and failed (Failed).
    pub not_ata: bool,
    /// The kernel (libata) refused to pass the command on (sense data, no ATA registers).
    pub refused_by_kernel: bool,
    /// The drive did not answer in time, was reset, or is gone: nothing more is sent to it in
    /// this run (the device refuses further commands itself), and the steps say what state
    /// the operation left it in.
    pub lost: Option<Lost>,
}

impl AtaFailure {
    /// The class of this failure: the device cannot take ATA commands, it is gone
    /// (cannot_open), or the command failed.
    pub fn class(&self) -> ErrorClass {
        if self.not_ata {
            ErrorClass::NotApplicable
        } else {
            self.lost.map_or(ErrorClass::Failed, Lost::class)
        }
    }
}

/// Result registers of a successful ATA command (hdparm's args[0..3] after the call).
#[derive(Debug, Clone, Copy, Default)]
pub struct AtaOutput {
    pub error: u8,
    pub count: u8,
    /// LBA registers (47:0 for 48-bit commands, 23:0 otherwise).
    pub lba: u64,
    /// DEVICE register (LBA 27:24 in its low nibble for 28-bit commands).
    // No step reads it now (hdparm takes READ NATIVE MAX's LBA 27:24 from the HOB bytes);
    // the device layer fills it for the steps that will.
    #[allow(dead_code)]
    pub device: u8,
}

/// The legacy HDIO get/set ioctls by what they read or change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HdioSetting {
    Multcount,
    Io32bit,
    Unmask,
    Dma,
    KeepSettings,
    Nowerr,
    Busstate,
}

/// Geometry as the steps need it (reference §4.6).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Geometry {
    pub cylinders: u32,
    pub heads: u32,
    pub sectors_per_track: u32,
    pub total_sectors: u64,
    pub start_sector: Option<u64>,
}

/// The SCSI device's attribute `-Q` reads and writes, under the block device's sysfs directory.
pub const QUEUE_DEPTH: &str = "device/queue_depth";
/// The block queue's largest request, in KiB.
pub const MAX_SECTORS_KB: &str = "queue/max_sectors_kb";

/// What an ATA command answered ([`DeviceAccess::ata_taskfile`]): every result register, or
/// the failure with the registers when the transport returned them.
pub type AtaAnswer = Result<AtaRegisters, (AtaFailure, Option<AtaRegisters>)>;

/// Which pass-through an ATA command may take.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtaVia {
    /// SAT through SG_IO, or the legacy HDIO ioctls where the device layer picks them (hdparm's
    /// `do_drive_cmd` conventions).
    Any,
    /// SG_IO only, never the legacy HDIO ioctls (hdparm's `sg16()`, which the WD idle3
    /// sequence uses).
    SgOnly,
}

/// One block-layer (or old IDE driver, or cdrom driver) ioctl, by what it reads or changes:
/// the argument of [`DeviceAccess::block`]. A get answers its value, a set answers 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BlockCall {
    /// BLKRAGET: read-ahead, in sectors.
    Readahead,
    /// BLKRASET.
    SetReadahead(u64),
    /// BLKROGET.
    Readonly,
    /// BLKROSET.
    SetReadonly(bool),
    /// The size in 512-byte sectors (BLKGETSIZE64 / 512).
    SizeSectors,
    /// BLKSSZGET.
    LogicalSectorSize,
    /// hdparm's buffer-cache flush (BLKFLSBUF and its syncs).
    FlushBufferCache,
    /// BLKRRPART.
    RereadPartitions,
    /// An old IDE driver get (`HDIO_GET_*`).
    HdioGet(HdioSetting),
    /// An old IDE driver set (`HDIO_SET_*`).
    HdioSet(HdioSetting, u64),
    /// HDIO_SET_PIO_MODE.
    HdioSetPioMode(u64),
    /// HDIO_SET_WCACHE.
    HdioSetWcache(bool),
    /// HDIO_DRIVE_RESET.
    HdioReset,
    /// `-E`: SET STREAMING for a speed through the cdrom driver's packet interface.
    CdromSetStreaming(u32),
    /// `-E`: the cdrom driver's `CDROM_SELECT_SPEED`.
    CdromSelectSpeed(u32),
}

impl From<AtaRegisters> for AtaOutput {
    /// hdparm's args[0..3] out of the full registers: COUNT 7:0 only.
    fn from(r: AtaRegisters) -> AtaOutput {
        AtaOutput {
            error: r.error,
            count: (r.count & 0xff) as u8,
            lba: r.lba,
            device: r.device,
        }
    }
}

impl AtaOutput {
    /// The full registers of a command that succeeded with these outputs (status DRDY|DSC,
    /// 0x50, as a drive that completed it).
    pub fn registers(self, lba48: bool) -> AtaRegisters {
        AtaRegisters {
            status: 0x50,
            error: self.error,
            count: u16::from(self.count),
            lba: self.lba,
            device: self.device,
            lba48,
        }
    }
}

/// Everything the steps ask of a device: a few primitives each implementation answers (the
/// ATA taskfile in and registers out, IDENTIFY with its cache, the block-layer calls, the
/// sysfs attributes, the NVMe passthrough), and the rest written once on top of them, so that
/// a new ATA command or block ioctl needs no new method in the real device, the dry-run
/// recorder and the fake.
pub trait DeviceAccess {
    /// Short stable name of the device kind (`ata_disk`, `atapi`, `nvme`, `loop`...).
    fn kind_name(&self) -> String;
    /// One sentence saying what the device is and, where it cannot take ATA commands, why
    /// (used when an ATA request does not apply).
    fn description(&self) -> String;
    /// What the device is, without the ATA note: for failures that are not ATA requests (a
    /// block ioctl, a sysfs attribute).
    fn plain_description(&self) -> String;
    /// Whether ATA commands can be sent (an ATA disk or ATAPI device, directly or via SAT).
    fn ata_capable(&self) -> bool;
    /// Whether the path is a directory (nothing to read).
    fn is_directory(&self) -> bool;
    /// The descriptor the device was opened with (timings read through it).
    fn fd(&self) -> std::os::fd::BorrowedFd<'_>;
    /// Whether the libata driver runs it (its old IDE driver settings do not exist).
    fn is_libata(&self) -> bool;

    // ---- primitive: the ATA taskfile -------------------------------------------------------

    /// One ATA command (non-data, PIO in or out, DMA) with its data buffer, through `via`:
    /// every result register (COUNT 15:8 too), also when the drive failed the command (then
    /// with the failure, when the transport returned registers). Every ATA command goes
    /// through here, so a wrapper (`--dry-run`) sees them all.
    fn ata_taskfile(&mut self, tf: &TaskFile, data: &mut [u8], via: AtaVia) -> AtaAnswer;
    /// IDENTIFY (DEVICE, then PACKET DEVICE), cached per device. A primitive, not written on
    /// [`DeviceAccess::ata_taskfile`]: the real device caches it as hdparm does and retries as
    /// PACKET DEVICE, the dry run reads the kernel's copy instead of sending it, the fake
    /// answers scripted words.
    fn identify(&mut self) -> Result<[u16; 256], AtaFailure>;
    /// Forgets the cached IDENTIFY data (after a setting changed it).
    fn forget_identify(&mut self);

    // ---- primitive: the block layer ------------------------------------------------------

    /// One block-layer, old IDE driver or cdrom driver ioctl (see [`BlockCall`]).
    fn block(&self, call: BlockCall) -> io::Result<i64>;
    /// Geometry, or the failing step's hdparm label (` BLKGETSIZE failed`, ` HDIO_GETGEO failed`)
    /// with its error.
    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)>;
    /// hdparm's raw-device check (§6.5): the refusal text when `lba` would not be the drive's
    /// own (a partition, a RAID array), None when sector commands may proceed.
    fn partition_refusal(&self, lba: u64) -> Option<String>;
    /// The old IDE driver's (and libata's) copy of IDENTIFY, `HDIO_GET_IDENTITY`.
    fn hdio_identity(&self) -> io::Result<[u8; 512]>;

    // ---- primitive: sysfs ----------------------------------------------------------------

    /// Whether the kernel was told not to scan the disk for partitions (a loop device without
    /// `losetup -P`), which is why BLKRRPART is refused.
    fn partition_scan_off(&self) -> bool;
    /// A numeric attribute under the block device's sysfs directory (`device/queue_depth`):
    /// its first word, or hdparm's label for the failure (the attribute's path) with the error
    /// (EINVAL when it is not a number).
    fn sysfs_u64(&self, attr: &str) -> Result<u64, (String, io::Error)>;
    /// Writes such an attribute (the kernel parses the text).
    fn set_sysfs_u64(&self, attr: &str, value: u64) -> Result<(), (String, io::Error)>;

    // ---- primitive: the process's own input and time -------------------------------------

    /// Everything on standard input (the `lba:count` pairs of `--trim-sector-ranges-stdin`).
    fn stdin_bytes(&mut self) -> io::Result<Vec<u8>>;
    /// The next part of standard input, appended to `buf`; the byte count, 0 at its end. The
    /// TRIM steps read the pairs this way, so that a list of any length takes bounded memory.
    /// The default (for a wrapper that does not forward it) hands over all the rest at once.
    fn stdin_chunk(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        let rest = self.stdin_bytes()?;
        buf.extend_from_slice(&rest);
        Ok(rest.len())
    }
    /// Waits, as hdparm sleeps before `--drq-hsm-error`'s command.
    fn pause(&self, duration: std::time::Duration);
    /// hdparm's `--verbose` lines about the USB bridge probe (`APT: ...`).
    fn apt_lines(&self) -> Vec<String>;
    /// Whether the drive was lost in this run (it did not answer in time, was reset, or is
    /// gone), and at which command, by name: the steps then send it nothing more (the real
    /// device refuses to), and say what state the operation left it in.
    fn lost(&self) -> Option<(Lost, String)>;

    // ---- primitive: NVMe (issue 10), for the steps in steps/nvme.rs. No default bodies: a
    // wrapper (`--dry-run`) must forward these, or NVMe devices would silently look like
    // devices that take no NVMe commands. ----
    /// Whether NVMe commands can be sent (an NVMe namespace or controller node, or a
    /// partition of a namespace, where whole-namespace jobs are refused by the steps).
    fn nvme_capable(&self) -> bool;
    /// The namespace the node is (`NVME_IOCTL_ID`); None on the controller's node, where the
    /// steps use namespace 1.
    fn nvme_nsid(&mut self) -> Option<u32>;
    /// One NVMe admin or I/O command (by `cmd.queue`) with its data buffer; answers completion
    /// dword 0. Every NVMe command goes through here, so a wrapper (`--dry-run`) sees them all.
    fn nvme(&mut self, cmd: &NvmeCommand, data: &mut [u8]) -> Result<u32, NvmeFailure>;
    /// An attribute of the NVMe controller in sysfs (`model`, `serial`, `firmware_rev`,
    /// `device/current_link_speed`), trimmed; `kname` is the controller's kernel name.
    fn nvme_controller_attr(&self, attr: &str) -> io::Result<String>;
    /// The whole namespace's node when this node is one of its partitions (`/dev/nvme0n1`
    /// for `/dev/nvme0n1p1`), for the jobs that work on a whole namespace.
    fn nvme_partition_of(&self) -> Option<String>;

    // ---- primitive: SCSI (issue 22), for the steps in steps/scsi.rs. No default bodies, for
    // the reason NVMe's have none. ----
    /// The node is a SCSI disk whose host is not libata (a SAS or virtio-scsi disk, a USB
    /// disk): ATA commands reach it only if the target translates them, and where it does not
    /// the SCSI twins answer instead. None for every other node, libata's disks included.
    fn scsi_disk(&self) -> Option<ScsiDisk>;
    /// One SCSI command, as built by `crate::scsi` (its data out inside it): its data in,
    /// clipped to what the disk returned. Every SCSI command of the twins goes through here,
    /// so a wrapper (`--dry-run`) sees them all.
    fn scsi(&mut self, cmd: &ScsiCommand) -> Result<Vec<u8>, ScsiFailure>;

    // ---- provided: written once on the primitives ----------------------------------------

    /// A non-data or PIO-in ATA command with hdparm's `drive_cmd` conventions.
    fn ata(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure> {
        self.ata_taskfile(tf, data, AtaVia::Any)
            .map(AtaOutput::from)
            .map_err(|(f, _)| f)
    }
    /// [`DeviceAccess::ata`] with every result register (COUNT 15:8 too), also when the drive
    /// failed the command: SANITIZE STATUS reads its state from COUNT 15:8 and a failed
    /// SANITIZE gives its reason in LBA 7:0.
    fn ata_registers(&mut self, tf: &TaskFile, data: &mut [u8]) -> AtaAnswer {
        self.ata_taskfile(tf, data, AtaVia::Any)
    }
    /// An ATA command through SG_IO only, never the legacy HDIO ioctls (hdparm's `sg16()`,
    /// which the WD idle3 sequence uses).
    fn ata_sg_only(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure> {
        self.ata_taskfile(tf, data, AtaVia::SgOnly)
            .map(AtaOutput::from)
            .map_err(|(f, _)| f)
    }
    /// READ LOG EXT of one page (512 bytes) of a general purpose log (reference §2.5): 48-bit,
    /// PIO in, LBA = log | page << 8, sent as hdparm's taskfile commands are (device 0xE0).
    fn read_log(&mut self, log: u8, page: u8) -> Result<[u8; 512], AtaFailure> {
        let lba = u64::from(log) | u64::from(page) << 8;
        let tf = TaskFile::sector_command(op::READ_LOG_EXT, lba, 1, Protocol::PioIn, true);
        let mut buf = [0u8; 512];
        self.ata(&tf, &mut buf)?;
        Ok(buf)
    }

    /// Whether the SCSI twins run in place of the ATA steps: a SCSI disk (see
    /// [`DeviceAccess::scsi_disk`]) whose target rejected ATA PASS-THROUGH for IDENTIFY. A
    /// translator (SAT) that answers IDENTIFY keeps the ATA path. Where the kernel already
    /// knows the target translates ATA ([`ScsiDisk::translates_ata`]) nothing is sent: an
    /// IDENTIFY there would be a command hdparm does not send (before `-C` or `-y`, say). The
    /// dry run, which sends no IDENTIFY, decides from what the kernel knows instead, and says
    /// why it overrides this.
    fn scsi_only(&mut self) -> bool {
        match self.scsi_disk() {
            None => return false,
            Some(disk) if disk.translates_ata() => return false,
            Some(_) => {}
        }
        match self.identify() {
            Err(f) if f.not_ata => true,
            // A SCSI disk in the middle of a sanitize refuses nearly every command, the
            // pass-through too, with sense instead of ATA registers; an ATA drive behind a
            // translator answers IDENTIFY during a sanitize (ACS lists it among the commands a
            // sanitizing drive processes). So a refused IDENTIFY and REQUEST SENSE's SANITIZE
            // IN PROGRESS (04/1Bh) mean a SCSI disk, and `--sanitize-status` must be its twin
            // (the drive model's SAS disk showed it).
            Err(f) if f.refused_by_kernel && f.lost.is_none() => self
                .scsi(&crate::scsi::cdb::request_sense())
                .ok()
                .and_then(|data| crate::scsi::sense::decode(&data))
                .is_some_and(|s| s.key == 2 && s.asc == 0x04 && s.ascq == 0x1B),
            _ => false,
        }
    }

    /// The SCSI queue depth, or hdparm's label for the failure (the attribute's sysfs path)
    /// with the error.
    fn queue_depth(&self) -> Result<u32, (String, io::Error)> {
        self.sysfs_u64(QUEUE_DEPTH).map(|v| v as u32)
    }
    fn set_queue_depth(&self, depth: u32) -> Result<(), (String, io::Error)> {
        self.set_sysfs_u64(QUEUE_DEPTH, u64::from(depth))
    }
    /// The block queue's `queue/max_sectors_kb`, which sizes a TRIM batch; None when unknown.
    fn max_sectors_kb(&self) -> Option<u32> {
        let kb = self.sysfs_u64(MAX_SECTORS_KB).ok()?;
        u32::try_from(kb).ok()
    }

    fn readahead(&self) -> io::Result<i64> {
        self.block(BlockCall::Readahead)
    }
    fn set_readahead(&self, sectors: u64) -> io::Result<()> {
        self.block(BlockCall::SetReadahead(sectors)).map(drop)
    }
    fn readonly(&self) -> io::Result<i64> {
        self.block(BlockCall::Readonly)
    }
    fn set_readonly(&self, on: bool) -> io::Result<()> {
        self.block(BlockCall::SetReadonly(on)).map(drop)
    }
    fn size_sectors(&self) -> io::Result<u64> {
        self.block(BlockCall::SizeSectors).map(|v| v as u64)
    }
    fn logical_sector_size(&self) -> io::Result<u32> {
        self.block(BlockCall::LogicalSectorSize).map(|v| v as u32)
    }
    fn flush_buffer_cache(&self) -> io::Result<()> {
        self.block(BlockCall::FlushBufferCache).map(drop)
    }
    fn reread_partitions(&self) -> io::Result<()> {
        self.block(BlockCall::RereadPartitions).map(drop)
    }
    fn hdio_get(&self, what: HdioSetting) -> io::Result<i64> {
        self.block(BlockCall::HdioGet(what))
    }
    fn hdio_set(&self, what: HdioSetting, value: u64) -> io::Result<()> {
        self.block(BlockCall::HdioSet(what, value)).map(drop)
    }
    fn hdio_set_pio_mode(&self, mode: u64) -> io::Result<()> {
        self.block(BlockCall::HdioSetPioMode(mode)).map(drop)
    }
    fn hdio_set_wcache(&self, on: bool) -> io::Result<()> {
        self.block(BlockCall::HdioSetWcache(on)).map(drop)
    }
    fn hdio_reset(&self) -> io::Result<()> {
        self.block(BlockCall::HdioReset).map(drop)
    }
    /// `-E`: SET STREAMING for `speed` through the cdrom driver's packet interface.
    fn cdrom_set_streaming(&self, speed: u32) -> io::Result<()> {
        self.block(BlockCall::CdromSetStreaming(speed)).map(drop)
    }
    /// `-E`: the cdrom driver's `CDROM_SELECT_SPEED`.
    fn cdrom_select_speed(&self, speed: u32) -> io::Result<()> {
        self.block(BlockCall::CdromSelectSpeed(speed)).map(drop)
    }
}

/// What [`DeviceAccess::scsi_disk`] knows of a SCSI disk that is not libata's, from the
/// kernel (nothing is sent to learn it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ScsiDisk {
    /// Behind a USB bridge (usb-storage, uas), most of which translate ATA.
    pub usb: bool,
    /// The kernel read the ATA Information VPD page (89h) from it (`device/vpd_pg89`): a SAT
    /// translator with an ATA drive behind it.
    pub ata_information_page: bool,
    /// Its INQUIRY vendor is `ATA` (`device/vendor`), which SAT asks of a translator (the
    /// drive model behind TCMU, and translators that list no VPD page 89h).
    pub ata_vendor: bool,
}

impl ScsiDisk {
    /// Whether the kernel already knows the target translates ATA, so that nothing has to
    /// be sent to learn it.
    pub fn translates_ata(&self) -> bool {
        self.ata_information_page || self.ata_vendor
    }
}

/// A failed SCSI command, as the steps report it (issue 22).
#[derive(Debug, Clone)]
pub struct ScsiFailure {
    /// What went wrong, in words: `LOG SENSE failed: ILLEGAL REQUEST: invalid command
    /// operation code (ASC/ASCQ 20/00)`.
    pub reason: String,
    /// The sense data the disk gave, decoded, when it gave one.
    pub sense: Option<crate::scsi::sense::Sense>,
    /// Not applicable where the disk does not implement the command or field (ILLEGAL
    /// REQUEST), cannot_open when the disk is gone, failed otherwise.
    pub class: ErrorClass,
}

impl ScsiFailure {
    /// Whether the disk said it does not implement the command (or a field of it).
    pub fn unsupported(&self) -> bool {
        self.sense
            .is_some_and(|s| s.key == crate::scsi::sense::key::ILLEGAL_REQUEST)
    }
}

/// A failed NVMe command, as the steps report it (NVMe, issue 10).
#[derive(Debug, Clone)]
pub struct NvmeFailure {
    /// What went wrong, in words (the NVMe status by name, or the ioctl's errno).
    pub reason: String,
    /// The NVMe status the controller completed the command with; None when the ioctl
    /// itself failed.
    pub status: Option<u32>,
    pub class: ErrorClass,
}
