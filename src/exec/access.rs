//! What the per-device steps need from a device, as a trait: the real implementation wraps
//! [`crate::device`] (see `real.rs`), and tests use the scripted fake in `fake.rs`, so every
//! step's commands, output and exit class can be checked without hardware.
//!
//! Must not: grow methods that only one implementation can answer; a step that needs the
//! device must say so here, so that the fake can script it.

use crate::ata::command::{AtaRegisters, TaskFile};
pub use crate::ata::sat::Lost;
use crate::error::ErrorClass;
use crate::nvme::command::NvmeCommand;
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

/// Everything the steps ask of a device.
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

    /// A non-data or PIO-in ATA command with hdparm's `drive_cmd` conventions.
    fn ata(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure>;
    /// IDENTIFY (DEVICE, then PACKET DEVICE), cached per device.
    fn identify(&mut self) -> Result<[u16; 256], AtaFailure>;
    /// READ LOG EXT of one page (512 bytes) of a general purpose log.
    fn read_log(&mut self, log: u8, page: u8) -> Result<[u8; 512], AtaFailure>;
    /// Forgets the cached IDENTIFY data (after a setting changed it).
    fn forget_identify(&mut self);

    fn readahead(&self) -> io::Result<i64>;
    fn set_readahead(&self, sectors: u64) -> io::Result<()>;
    fn readonly(&self) -> io::Result<i64>;
    fn set_readonly(&self, on: bool) -> io::Result<()>;
    /// Geometry, or the failing step's hdparm label (` BLKGETSIZE failed`, ` HDIO_GETGEO failed`)
    /// with its error.
    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)>;
    /// hdparm's raw-device check (§6.5): the refusal text when `lba` would not be the drive's
    /// own (a partition, a RAID array), None when sector commands may proceed.
    fn partition_refusal(&self, lba: u64) -> Option<String>;
    fn size_sectors(&self) -> io::Result<u64>;
    fn logical_sector_size(&self) -> io::Result<u32>;
    fn flush_buffer_cache(&self) -> io::Result<()>;
    fn reread_partitions(&self) -> io::Result<()>;
    /// Whether the kernel was told not to scan the disk for partitions (a loop device without
    /// `losetup -P`), which is why BLKRRPART is refused.
    fn partition_scan_off(&self) -> bool;
    fn hdio_get(&self, what: HdioSetting) -> io::Result<i64>;
    fn hdio_set(&self, what: HdioSetting, value: u64) -> io::Result<()>;
    fn hdio_set_pio_mode(&self, mode: u64) -> io::Result<()>;
    fn hdio_set_wcache(&self, on: bool) -> io::Result<()>;
    fn hdio_reset(&self) -> io::Result<()>;
    fn hdio_identity(&self) -> io::Result<[u8; 512]>;
    /// The SCSI queue depth, or hdparm's label for the failure (the attribute's sysfs path)
    /// with the error.
    fn queue_depth(&self) -> Result<u32, (String, io::Error)>;
    fn set_queue_depth(&self, depth: u32) -> Result<(), (String, io::Error)>;

    // ---- security and sanitize ------------------------------------------------------------

    /// [`DeviceAccess::ata`] with every result register (COUNT 15:8 too), also when the drive
    /// failed the command: SANITIZE STATUS reads its state from COUNT 15:8 and a failed
    /// SANITIZE gives its reason in LBA 7:0. The default goes through [`DeviceAccess::ata`]
    /// (so a wrapper that only implements `ata` sees the command) and knows only what it
    /// returns; the real device and the fake give every register.
    fn ata_registers(
        &mut self,
        tf: &TaskFile,
        data: &mut [u8],
    ) -> Result<AtaRegisters, (AtaFailure, Option<AtaRegisters>)> {
        match self.ata(tf, data) {
            Ok(out) => Ok(AtaRegisters {
                status: 0x50,
                error: out.error,
                count: u16::from(out.count),
                lba: out.lba,
                device: out.device,
                lba48: tf.lba48,
            }),
            Err(f) => Err((f, None)),
        }
    }
    // --- sectors (HPA, DCO, TRIM, sector operations) ---
    /// The block queue's `queue/max_sectors_kb`, which sizes a TRIM batch; None when unknown.
    fn max_sectors_kb(&self) -> Option<u32>;
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
    // --- firmware and vendor commands (the `firmware` helper) ---
    /// An ATA command through SG_IO only, never the legacy HDIO ioctls (hdparm's `sg16()`,
    /// which the WD idle3 sequence uses).
    fn ata_sg_only(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure>;
    /// `-E`: SET STREAMING for `speed` through the cdrom driver's packet interface.
    fn cdrom_set_streaming(&self, speed: u32) -> io::Result<()>;
    /// `-E`: the cdrom driver's `CDROM_SELECT_SPEED`.
    fn cdrom_select_speed(&self, speed: u32) -> io::Result<()>;
    /// hdparm's `--verbose` lines about the USB bridge probe (`APT: ...`).
    fn apt_lines(&self) -> Vec<String>;
    /// Whether the drive was lost in this run (it did not answer in time, was reset, or is
    /// gone), and at which command, by name: the steps then send it nothing more (the real
    /// device refuses to), and say what state the operation left it in.
    fn lost(&self) -> Option<(Lost, String)>;
    // ---- NVMe (issue 10): the NVMe passthrough, for the steps in steps/nvme.rs. No default
    // bodies: a wrapper (`--dry-run`) must forward these, or NVMe devices would silently look
    // like devices that take no NVMe commands. ----
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
