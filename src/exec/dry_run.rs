//! `--dry-run` (ours) for any command line: the device's steps run as usual against a
//! [`DeviceAccess`] that sends nothing. Every ATA command and every kernel call that would
//! change a setting is written into the plan instead and answered as a drive that did it
//! (zero registers, zeroed data); the reads that only ask the kernel (read-ahead, geometry,
//! sizes, the HDIO gets, the kernel's cached copy of IDENTIFY) go through, since they are what
//! the real run would decide with. What the steps print from those invented answers is thrown
//! away; the plan is what is printed ([`crate::report::dry_run`]).
//!
//! Owns: the recording device and the run of one device's steps in dry-run mode. Must not:
//! send an ATA command, or change anything in the kernel.

use super::access::{AtaFailure, AtaOutput, DeviceAccess, Geometry, HdioSetting, NvmeFailure};
use crate::ata::command::{op, Protocol, TaskFile};
use crate::nvme::command::{DataDirection, NvmeCommand};
use crate::report::dry_run::{DataOut, Planned};
use std::cell::RefCell;
use std::io;

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
}

impl<'d> Recorder<'d> {
    pub fn new(inner: &'d mut dyn DeviceAccess) -> Self {
        Recorder {
            inner,
            planned: RefCell::new(Vec::new()),
            identify_from_kernel: None,
            not_ata_commands: 0,
        }
    }

    /// The failure a device without ATA gives, as the real one would.
    fn not_ata(&self) -> AtaFailure {
        AtaFailure {
            reason: self.inner.description(),
            not_ata: true,
            refused_by_kernel: false,
        }
    }

    /// What was recorded, in order.
    pub fn into_plan(self) -> Vec<Planned> {
        self.planned.into_inner()
    }

    fn send(&self, taskfile: &TaskFile, data: &[u8]) {
        let data_out = matches!(taskfile.protocol, Protocol::PioOut | Protocol::DmaOut)
            .then(|| DataOut::of(data));
        self.planned.borrow_mut().push(Planned::Ata {
            taskfile: taskfile.clone(),
            data_out,
        });
    }

    /// An old IDE driver ioctl: libata answers only HDIO_SET_32BIT of the sets (the others
    /// fail with ENOTTY, and the steps then fall back to an ATA command, as on the real run),
    /// so on libata the others are answered so and not planned.
    fn ide_call(&self, io32bit: bool, text: String) -> io::Result<()> {
        if self.inner.is_libata() && !io32bit {
            return Err(io::Error::from_raw_os_error(libc::ENOTTY));
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
    fn ata(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure> {
        if !self.inner.ata_capable() {
            self.not_ata_commands += 1;
            return Err(self.not_ata());
        }
        self.send(tf, data);
        if matches!(tf.protocol, Protocol::PioIn | Protocol::DmaIn) {
            data.fill(0);
        }
        Ok(done())
    }
    fn identify(&mut self) -> Result<[u16; 256], AtaFailure> {
        if !self.inner.ata_capable() {
            return Err(self.not_ata());
        }
        // The kernel keeps the IDENTIFY data libata read at probe time: reading it sends
        // nothing to the drive. Without it the command is planned, not sent.
        if let Ok(bytes) = self.inner.hdio_identity() {
            let mut words = [0u16; 256];
            for (word, pair) in words.iter_mut().zip(bytes.chunks_exact(2)) {
                *word = u16::from_le_bytes([pair[0], pair[1]]);
            }
            if words.iter().any(|w| *w != 0) {
                self.identify_from_kernel = Some(true);
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
        })
    }
    fn read_log(&mut self, log: u8, page: u8) -> Result<[u8; 512], AtaFailure> {
        if !self.inner.ata_capable() {
            self.not_ata_commands += 1;
            return Err(self.not_ata());
        }
        let mut tf = TaskFile::new(op::READ_LOG_EXT, u64::from(log) | (u64::from(page) << 8), 1);
        tf.protocol = Protocol::PioIn;
        tf.lba48 = true;
        self.send(&tf, &[]);
        Ok([0; 512])
    }
    fn forget_identify(&mut self) {}

    fn readahead(&self) -> io::Result<i64> {
        self.inner.readahead()
    }
    fn set_readahead(&self, sectors: u64) -> io::Result<()> {
        self.call(format!("BLKRASET {sectors} (read-ahead, sectors)"))
    }
    fn readonly(&self) -> io::Result<i64> {
        self.inner.readonly()
    }
    fn set_readonly(&self, on: bool) -> io::Result<()> {
        self.call(format!("BLKROSET {} (read-only flag)", u8::from(on)))
    }
    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)> {
        self.inner.geometry()
    }
    fn partition_refusal(&self, lba: u64) -> Option<String> {
        self.inner.partition_refusal(lba)
    }
    fn size_sectors(&self) -> io::Result<u64> {
        self.inner.size_sectors()
    }
    fn logical_sector_size(&self) -> io::Result<u32> {
        self.inner.logical_sector_size()
    }
    fn flush_buffer_cache(&self) -> io::Result<()> {
        self.call("BLKFLSBUF (flush the buffer cache)".into())
    }
    fn reread_partitions(&self) -> io::Result<()> {
        self.call("BLKRRPART (re-read the partition table)".into())
    }
    fn partition_scan_off(&self) -> bool {
        self.inner.partition_scan_off()
    }
    fn hdio_get(&self, what: HdioSetting) -> io::Result<i64> {
        self.inner.hdio_get(what)
    }
    fn hdio_set(&self, what: HdioSetting, value: u64) -> io::Result<()> {
        self.ide_call(
            what == HdioSetting::Io32bit,
            format!("{} {value} (old IDE driver)", hdio_set_name(what)),
        )
    }
    fn hdio_set_pio_mode(&self, mode: u64) -> io::Result<()> {
        self.ide_call(false, format!("HDIO_SET_PIO_MODE {mode} (old IDE driver)"))
    }
    fn hdio_set_wcache(&self, on: bool) -> io::Result<()> {
        self.ide_call(
            false,
            format!("HDIO_SET_WCACHE {} (old IDE driver)", u8::from(on)),
        )
    }
    fn hdio_reset(&self) -> io::Result<()> {
        self.ide_call(false, "HDIO_DRIVE_RESET (old IDE driver)".into())
    }
    fn hdio_identity(&self) -> io::Result<[u8; 512]> {
        self.inner.hdio_identity()
    }
    fn queue_depth(&self) -> Result<u32, (String, io::Error)> {
        self.inner.queue_depth()
    }
    fn set_queue_depth(&self, depth: u32) -> Result<(), (String, io::Error)> {
        self.call(format!("write {depth} to the SCSI device's queue_depth"))
            .map_err(|e| (String::new(), e))
    }

    // --- sectors (HPA, DCO, TRIM, sector operations) ---
    fn max_sectors_kb(&self) -> Option<u32> {
        self.inner.max_sectors_kb()
    }
    /// Standard input is read as the real run would read it (the TRIM ranges decide the
    /// batches that are planned).
    fn stdin_bytes(&mut self) -> io::Result<Vec<u8>> {
        self.inner.stdin_bytes()
    }
    /// Nothing is sent, so there is nothing to wait for.
    fn pause(&self, _duration: std::time::Duration) {}

    // --- firmware and vendor commands ---
    fn ata_sg_only(&mut self, tf: &TaskFile, data: &mut [u8]) -> Result<AtaOutput, AtaFailure> {
        self.ata(tf, data)
    }
    fn cdrom_set_streaming(&self, speed: u32) -> io::Result<()> {
        self.call(format!("SET STREAMING {speed} KB/s (cdrom packet command)"))
    }
    fn cdrom_select_speed(&self, speed: u32) -> io::Result<()> {
        self.call(format!("CDROM_SELECT_SPEED {speed}"))
    }

    fn apt_lines(&self) -> Vec<String> {
        self.inner.apt_lines()
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
    fn nvme_controller_attr(&self, attr: &str) -> io::Result<String> {
        self.inner.nvme_controller_attr(attr)
    }
    fn nvme_partition_of(&self) -> Option<String> {
        self.inner.nvme_partition_of()
    }
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
        reads.push(Planned::Reads(if f.direct {
            "O_DIRECT disk reads (-t --direct)".into()
        } else {
            "buffered disk reads (-t)".into()
        }));
    }
    if f.bench.is_some() {
        reads.push(Planned::Reads(
            "O_DIRECT reads at a queue depth (--bench)".into(),
        ));
    }
    reads
}
