//! [`DeviceAccess`] over the real device layer: the only bridge between the steps and
//! [`crate::device`]. It turns the device layer's errors into what the steps report, caches
//! IDENTIFY per device as hdparm does, and never sends an ATA command to a device that cannot
//! take one.

use crate::ata::command::TaskFile;
use crate::cli::Flags;
use crate::device::{
    self, AtaError, AtaOptions, Device, DeviceKind, HdioGet, HdioSet, OpenMode, StartLba,
};
use crate::exec::access::{
    AtaAnswer, AtaFailure, AtaVia, BlockCall, DeviceAccess, Geometry, HdioSetting, Lost,
    NvmeFailure, ScsiCommand, ScsiDisk, ScsiFailure,
};
use crate::exec::identify_cache::IdentifyCache;
use crate::exec::lost;
use crate::exec::output::SharedStderr;
use crate::nvme::command::NvmeCommand;
use std::ffi::OsString;
use std::io::{self, Write};
use std::os::fd::{AsFd, BorrowedFd};
use std::path::Path;

pub struct RealDevice<'w> {
    dev: Device,
    /// `--prefer-ata12`; cleared after a failed IDENTIFY DEVICE, as hdparm does.
    prefer_ata12: bool,
    /// `--verbose`: the device layer's dumps go to the run's stderr, as hdparm's do.
    trace: Option<SharedStderr<'w>>,
    /// The password was read at run time: the dumps leave it out.
    hide_password_data: bool,
    identify: IdentifyCache,
    /// The path it was opened by and its device number: the keys of the run's record of
    /// lost drives ([`lost`]).
    path: OsString,
    rdev: Option<u64>,
    /// The drive did not answer in time, was reset or is gone, at this command (by name),
    /// here or earlier in the run: nothing more is sent to it.
    lost: Option<(Lost, String)>,
}

impl<'w> RealDevice<'w> {
    /// Opens a device the way hdparm does for these flags; with `--verbose` the device layer's
    /// dumps are written to `stderr`.
    pub fn open(
        path: &OsString,
        flags: &Flags,
        stderr: SharedStderr<'w>,
    ) -> io::Result<RealDevice<'w>> {
        let mode = OpenMode {
            direct: flags.direct,
            // A dry run writes nothing, and an open for writing is not nothing: its close makes
            // udev probe the disk again (the inotify watch of its rules).
            write: flags.trim_ranges.is_some() && !flags.dry_run,
        };
        let dev = Device::open(Path::new(path), mode)?;
        let rdev = block_rdev(&dev);
        let mut real = RealDevice {
            dev,
            prefer_ata12: flags.prefer_ata12,
            trace: flags.verbose.then_some(stderr),
            hide_password_data: flags.security_prompt || flags.security_password_file.is_some(),
            identify: IdentifyCache::default(),
            path: path.clone(),
            rdev,
            // the same drive, lost earlier in this run (a line of --apply, another path to it)
            lost: lost::find(path, rdev),
        };
        // hdparm's APT probe (reference §2.6): a JMicron/ioSafe bridge gets its port found
        // now, and a failed probe is an open failure, as in hdparm. A dry run sends nothing,
        // the probe included, and neither is anything sent to a drive lost earlier.
        if !flags.dry_run && real.lost.is_none() {
            real.with_options(|dev, opts| dev.apt_detect(opts))?;
        }
        Ok(real)
    }

    /// Whether `-m N` would go through SET MULTIPLE MODE, which hdparm guards: it does so when
    /// `HDIO_SET_MULTCOUNT` answers ENOTTY, which is libata's answer (plain SCSI disks such as
    /// virtio-scsi answer EINVAL, and the old IDE driver takes the ioctl). Reads only the
    /// node's kind; sends nothing.
    pub fn multcount_needs_ata(path: &OsString) -> bool {
        match Device::open(Path::new(path), OpenMode::default()) {
            Ok(dev) => matches!(
                dev.kind(),
                DeviceKind::Scsi {
                    host: device::ScsiHost::Libata { .. },
                    ..
                } | DeviceKind::ScsiGeneric {
                    host: device::ScsiHost::Libata { .. },
                    ..
                }
            ),
            // A device that cannot be opened gets its open error when its turn comes, not a
            // danger warning about an operation that could never run.
            Err(_) => false,
        }
    }

    /// The IDENTIFY words, for the guards of `-N` and `--dco-setmax`, which apply only when
    /// the drive would shrink (the visible capacity, hdparm's `get_lba_capacity`); None when
    /// the device gives no IDENTIFY (hdparm then skips those options). Sends IDENTIFY only.
    pub fn guard_identify(path: &OsString, flags: &Flags) -> Option<[u16; 256]> {
        let dev = Device::open(Path::new(path), OpenMode::default()).ok()?;
        // nothing is sent to a drive lost earlier in the run (exec/lost.rs)
        if !dev.kind().ata_capable() || lost::find(path, block_rdev(&dev)).is_some() {
            return None;
        }
        let mut opts = AtaOptions {
            prefer_ata12: flags.prefer_ata12,
            ..Default::default()
        };
        dev.identify(&mut opts).ok()
    }

    /// The guards' IDENTIFY words, which stand for the first IDENTIFY of the steps as long as
    /// nothing else is sent before it (see `identify_cache`).
    pub fn seed_identify(&mut self, words: [u16; 256]) {
        self.identify.seed(words);
    }

    /// NVMe (issue 10): whether the node takes NVMe commands. Reads only the node's kind.
    pub fn takes_nvme(path: &OsString) -> bool {
        Device::open(Path::new(path), OpenMode::default())
            .is_ok_and(|dev| matches!(dev.kind(), DeviceKind::Nvme))
    }

    pub fn kind_name_string(&self) -> String {
        self.kind_name()
    }

    pub fn description_string(&self) -> String {
        self.description()
    }

    /// Runs `f` with the ATA options of this device (and the verbose trace on stderr).
    fn with_options<T>(&mut self, f: impl FnOnce(&Device, &mut AtaOptions<'_>) -> T) -> T {
        let mut opts = AtaOptions {
            prefer_ata12: self.prefer_ata12,
            trace: self.trace.as_mut().map(|w| w as &mut dyn Write),
            hide_password_data: self.hide_password_data,
            ..Default::default()
        };
        let result = f(&self.dev, &mut opts);
        self.prefer_ata12 = opts.prefer_ata12;
        result
    }

    /// A failed command (`command`, by name) as the steps see it. When the command timed
    /// out, was ended by a reset, or the device is gone now (whatever the error said: after a
    /// hot-unplug the kernel's answers vary), the drive is lost: recorded for the run, and
    /// nothing more is sent to it.
    fn failure(&mut self, e: AtaError, command: &str) -> AtaFailure {
        let gone = self.dev.gone();
        let lost = if gone { Some(Lost::Gone) } else { e.lost() };
        let mut reason = e.to_string();
        if gone && e.lost() != Some(Lost::Gone) {
            reason = format!("{command} failed: the device is gone ({reason})");
        }
        if let Some(l) = lost {
            lost::mark(&self.path, self.rdev, l, command);
            self.lost = Some((l, command.to_string()));
        }
        AtaFailure {
            not_ata: lost.is_none() && e.class() == crate::error::ErrorClass::NotApplicable,
            refused_by_kernel: matches!(e, AtaError::Refused { .. }),
            reason,
            lost,
        }
    }

    /// A failed SCSI command as the steps see it; a disk the kernel gave up on (time-out,
    /// reset, gone) is lost, as for ATA.
    fn scsi_failure(&mut self, name: &str, e: device::scsi::ScsiError) -> ScsiFailure {
        use crate::error::ErrorClass;
        use device::scsi::ScsiError;
        let (sense_bytes, lost, detail) = match &e {
            ScsiError::Ioctl(err) => (
                Vec::new(),
                None,
                format!("SG_IO failed: {}", crate::error::strerror(err)),
            ),
            ScsiError::Check { sense } => (sense.clone(), None, String::new()),
            ScsiError::Status {
                status,
                host_status,
                driver_status,
                sense,
            } => (
                sense.clone(),
                Lost::of_host_status(*host_status),
                format!(
                    "status 0x{status:02x}, host status 0x{host_status:02x}, driver status 0x{driver_status:02x}"
                ),
            ),
        };
        let sense = crate::scsi::sense::decode(&sense_bytes);
        let gone = self.dev.gone();
        let lost = if gone { Some(Lost::Gone) } else { lost };
        if let Some(l) = lost {
            lost::mark(&self.path, self.rdev, l, name);
            self.lost = Some((l, name.to_string()));
        }
        let words = match (&sense, detail.is_empty()) {
            (Some(s), _) => s.describe(),
            (None, false) => detail,
            (None, true) => "the disk gave no sense data".to_string(),
        };
        let class = match (&e, lost, &sense) {
            (_, Some(l), _) => l.class(),
            (ScsiError::Ioctl(err), _, _) => ErrorClass::of_io(err),
            (_, None, Some(s)) if s.key == crate::scsi::sense::key::ILLEGAL_REQUEST => {
                ErrorClass::NotApplicable
            }
            _ => ErrorClass::Failed,
        };
        ScsiFailure {
            reason: format!("{name} failed: {words}"),
            sense,
            class,
        }
    }

    /// The refusal of a command to a drive lost earlier, if it was.
    fn refused_lost(&self) -> Option<AtaFailure> {
        self.lost.as_ref().map(|(l, command)| AtaFailure {
            reason: lost::not_sent(*l, command),
            not_ata: false,
            refused_by_kernel: false,
            lost: Some(*l),
        })
    }

    fn not_ata(&self) -> AtaFailure {
        AtaFailure {
            reason: self.dev.describe(),
            not_ata: true,
            refused_by_kernel: false,
            lost: None,
        }
    }
}

/// The device number of a block device node, the other key of the run's lost drives.
fn block_rdev(dev: &Device) -> Option<u64> {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    dev.file()
        .metadata()
        .ok()
        .filter(|m| m.file_type().is_block_device())
        .map(|m| m.rdev())
}

/// The steps' names for the old IDE driver's settings, as the device layer spells them.
impl From<HdioSetting> for HdioGet {
    fn from(what: HdioSetting) -> HdioGet {
        match what {
            HdioSetting::Multcount => HdioGet::MultCount,
            HdioSetting::Io32bit => HdioGet::Io32Bit,
            HdioSetting::Unmask => HdioGet::UnmaskIntr,
            HdioSetting::Dma => HdioGet::Dma,
            HdioSetting::KeepSettings => HdioGet::KeepSettings,
            HdioSetting::Nowerr => HdioGet::NoWErr,
            HdioSetting::Busstate => HdioGet::BusState,
        }
    }
}

impl DeviceAccess for RealDevice<'_> {
    fn kind_name(&self) -> String {
        match self.dev.kind() {
            DeviceKind::Scsi { scsi_type: 5, .. }
            | DeviceKind::ScsiGeneric { scsi_type: 5, .. } => "cdrom",
            DeviceKind::Scsi {
                host: device::ScsiHost::Libata { .. },
                ..
            } => "ata_disk",
            DeviceKind::Scsi {
                host: device::ScsiHost::Usb { .. },
                ..
            } => "usb_disk",
            DeviceKind::Scsi { .. } => "scsi_disk",
            DeviceKind::ScsiGeneric { .. } => "scsi_generic",
            DeviceKind::LegacyIde => "ide",
            DeviceKind::Nvme => "nvme",
            DeviceKind::VirtioBlk => "virtio_blk",
            DeviceKind::Loop { .. } => "loop",
            DeviceKind::Md => "md",
            DeviceKind::OtherBlock { .. } => "block",
            DeviceKind::CharDevice => "char_device",
            DeviceKind::RegularFile => "regular_file",
            DeviceKind::Directory => "directory",
            DeviceKind::Other => "other",
        }
        .to_string()
    }

    fn description(&self) -> String {
        self.dev.describe()
    }

    fn plain_description(&self) -> String {
        self.dev.describe_plain()
    }

    fn ata_capable(&self) -> bool {
        self.dev.kind().ata_capable()
    }

    fn is_directory(&self) -> bool {
        matches!(self.dev.kind(), DeviceKind::Directory)
    }

    fn fd(&self) -> BorrowedFd<'_> {
        self.dev.file().as_fd()
    }

    fn is_libata(&self) -> bool {
        matches!(
            self.dev.kind(),
            DeviceKind::Scsi {
                host: device::ScsiHost::Libata { .. },
                ..
            } | DeviceKind::ScsiGeneric {
                host: device::ScsiHost::Libata { .. },
                ..
            }
        )
    }

    fn ata_taskfile(&mut self, tf: &TaskFile, data: &mut [u8], via: AtaVia) -> AtaAnswer {
        if !self.ata_capable() {
            return Err((self.not_ata(), None));
        }
        if let Some(f) = self.refused_lost() {
            return Err((f, None));
        }
        self.identify.sent();
        let result = self.with_options(|dev, opts| {
            opts.no_legacy_fallback = via == AtaVia::SgOnly;
            dev.ata_command(tf, data, opts)
        });
        match result {
            Ok(result) => Ok(result.registers.unwrap_or_default()),
            Err(e) => {
                let registers = e.registers().copied();
                let name = lost::command_words(tf.command, tf.feature);
                Err((self.failure(e, &name), registers))
            }
        }
    }

    fn identify(&mut self) -> Result<[u16; 256], AtaFailure> {
        let mut cache = std::mem::take(&mut self.identify);
        let result = cache.get(|| {
            if self.ata_capable() {
                if let Some(f) = self.refused_lost() {
                    return Err(f);
                }
                self.with_options(|dev, opts| dev.identify(opts))
                    .map_err(|e| self.failure(e, "IDENTIFY DEVICE (0xec)"))
            } else {
                Err(self.not_ata())
            }
        });
        self.identify = cache;
        result
    }

    fn forget_identify(&mut self) {
        self.identify.forget();
    }

    fn block(&self, call: BlockCall) -> io::Result<i64> {
        let dev = &self.dev;
        match call {
            BlockCall::Readahead => dev.readahead().map(|v| v as i64),
            BlockCall::SetReadahead(sectors) => dev.set_readahead(sectors).map(|()| 0),
            BlockCall::Readonly => dev.readonly().map(i64::from),
            BlockCall::SetReadonly(on) => dev.set_readonly(i32::from(on)).map(|()| 0),
            BlockCall::SizeSectors => dev.size_sectors().map(|v| v as i64),
            BlockCall::LogicalSectorSize => dev.logical_sector_size().map(i64::from),
            BlockCall::FlushBufferCache => dev.flush_buffers().map(|()| 0),
            BlockCall::RereadPartitions => dev.reread_partitions().map(|()| 0),
            BlockCall::HdioGet(what) => dev.hdio_get(what.into()),
            // The sets below reach the drive (the old IDE driver sends them on): the guards'
            // IDENTIFY may be stale after them.
            BlockCall::HdioSet(what, value) => {
                self.identify.sent();
                dev.hdio_set(HdioSet::Setting(what.into()), value)
                    .map(|()| 0)
            }
            BlockCall::HdioSetPioMode(mode) => {
                self.identify.sent();
                dev.hdio_set(HdioSet::PioMode, mode).map(|()| 0)
            }
            BlockCall::HdioSetWcache(on) => {
                self.identify.sent();
                dev.hdio_set(HdioSet::WCache, u64::from(on)).map(|()| 0)
            }
            BlockCall::HdioReset => {
                self.identify.sent();
                dev.drive_reset().map(|()| 0)
            }
            BlockCall::CdromSetStreaming(speed) => {
                self.identify.sent();
                dev.cdrom_set_streaming(speed).map(|()| 0)
            }
            BlockCall::CdromSelectSpeed(speed) => {
                self.identify.sent();
                dev.cdrom_select_speed(speed).map(|()| 0)
            }
        }
    }

    fn geometry(&self) -> Result<Geometry, (&'static str, io::Error)> {
        match self.dev.geometry() {
            Ok(g) => Ok(Geometry {
                cylinders: g.cylinders,
                heads: g.heads,
                sectors_per_track: g.sectors_per_track,
                total_sectors: g.total_sectors,
                start_sector: match g.start {
                    StartLba::Known(s) => Some(s),
                    StartLba::Unknown => None,
                },
            }),
            Err(e) => {
                let label = e.label();
                let err =
                    io::Error::from_raw_os_error(e.io_error().raw_os_error().unwrap_or(libc::EIO));
                Err((label, err))
            }
        }
    }

    fn partition_refusal(&self, lba: u64) -> Option<String> {
        match self.dev.raw_device_check() {
            Ok(check) => {
                let lines = check.refusal_lines(
                    &self.dev.path().to_string_lossy(),
                    lba,
                    self.dev.partition_of(),
                );
                (!lines.is_empty()).then(|| lines.join("\n"))
            }
            // hdparm stops here too when the start cannot be found (CD/DVD drives have no
            // geometry): the sector address would be a guess.
            Err(e) => Some(format!(
                "{}: {}",
                e.label(),
                crate::error::strerror(e.io_error())
            )),
        }
    }

    fn partition_scan_off(&self) -> bool {
        self.dev.partition_scan_off()
    }

    fn hdio_identity(&self) -> io::Result<[u8; 512]> {
        self.dev.hdio_identity_bytes()
    }

    fn sysfs_u64(&self, attr: &str) -> Result<u64, (String, io::Error)> {
        self.dev
            .sysfs_u64(attr)
            .map_err(|e| (self.dev.sysfs_attr_label(attr), e))
    }

    fn set_sysfs_u64(&self, attr: &str, value: u64) -> Result<(), (String, io::Error)> {
        self.dev
            .sysfs_write(attr, &value.to_string())
            .map_err(|e| (self.dev.sysfs_attr_label(attr), e))
    }

    fn stdin_bytes(&mut self) -> io::Result<Vec<u8>> {
        use std::io::Read;
        let mut bytes = Vec::new();
        io::stdin().lock().read_to_end(&mut bytes)?;
        Ok(bytes)
    }

    fn stdin_chunk(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        use std::io::Read;
        // 64 KiB: a pipe's worth, so a writer feeding ranges never waits long for us.
        let mut piece = [0u8; 64 << 10];
        let n = io::stdin().lock().read(&mut piece)?;
        buf.extend_from_slice(&piece[..n]);
        Ok(n)
    }

    fn pause(&self, duration: std::time::Duration) {
        std::thread::sleep(duration);
    }

    // ---- NVMe (issue 10) ----
    fn scsi_disk(&self) -> Option<ScsiDisk> {
        let (host, scsi_type) = match self.dev.kind() {
            DeviceKind::Scsi { host, scsi_type } | DeviceKind::ScsiGeneric { host, scsi_type } => {
                (host, *scsi_type)
            }
            _ => return None,
        };
        // Disks only (type 0, and RBC's 0Eh): a CD/DVD drive takes MMC, not these twins.
        if !matches!(scsi_type, 0x00 | 0x0E) {
            return None;
        }
        let usb = match host {
            device::ScsiHost::Libata { .. } => return None,
            device::ScsiHost::Usb { .. } => true,
            device::ScsiHost::Other { .. } => false,
        };
        Some(ScsiDisk {
            usb,
            ata_information_page: self.dev.sysfs_read("device/vpd_pg89").is_ok(),
            ata_vendor: self
                .dev
                .sysfs_read("device/vendor")
                .is_ok_and(|v| v.trim() == "ATA"),
        })
    }

    fn scsi(&mut self, cmd: &ScsiCommand) -> Result<Vec<u8>, ScsiFailure> {
        if let Some(f) = self.refused_lost() {
            return Err(ScsiFailure {
                reason: f.reason,
                sense: None,
                class: f.lost.map_or(crate::error::ErrorClass::Failed, Lost::class),
            });
        }
        if let Some(w) = self.trace.as_mut() {
            let _ = writeln!(w, "SCSI: {}", cmd.describe());
        }
        let result = self.dev.scsi_command(cmd);
        if let (Some(w), Err(e)) = (self.trace.as_mut(), &result) {
            let _ = writeln!(w, "SCSI: {} failed: {e:?}", cmd.name);
        }
        result.map_err(|e| self.scsi_failure(cmd.name, e))
    }

    fn nvme_capable(&self) -> bool {
        matches!(self.dev.kind(), DeviceKind::Nvme)
    }

    fn nvme_nsid(&mut self) -> Option<u32> {
        device::nvme::namespace_id(&self.dev)
    }

    fn nvme(&mut self, cmd: &NvmeCommand, data: &mut [u8]) -> Result<u32, NvmeFailure> {
        if !self.nvme_capable() {
            return Err(NvmeFailure {
                reason: format!("{}; it takes no NVMe commands", self.dev.describe_plain()),
                status: None,
                class: crate::error::ErrorClass::NotApplicable,
            });
        }
        if let Some(trace) = self.trace.as_mut() {
            let _ = writeln!(
                trace,
                "nvme {:?} opcode 0x{:02x} nsid 0x{:x} cdw10-15 {:08x?} data {} bytes",
                cmd.queue,
                cmd.opcode,
                cmd.nsid,
                cmd.cdws(),
                data.len()
            );
        }
        match device::nvme::submit(&self.dev, cmd, data) {
            Ok(c) if c.status == 0 => Ok(c.result),
            Ok(c) => Err(NvmeFailure {
                reason: crate::nvme::command::status_text(c.status),
                status: Some(c.status),
                class: crate::error::ErrorClass::Failed,
            }),
            Err(e) => Err(NvmeFailure {
                reason: crate::error::strerror(&e),
                status: None,
                class: crate::error::ErrorClass::of_io(&e),
            }),
        }
    }

    fn nvme_controller_attr(&self, attr: &str) -> io::Result<String> {
        if attr == "kname" {
            // Not a file: the controller's kernel name, from the node's.
            let node = self.dev.path().file_name().unwrap_or_default();
            return device::nvme::controller_name(&node.to_string_lossy())
                .ok_or_else(|| io::Error::from_raw_os_error(libc::ENODEV));
        }
        device::nvme::controller_attr(self.dev.path(), attr)
    }

    fn nvme_partition_of(&self) -> Option<String> {
        self.dev.partition_of().map(|d| format!("/dev/{d}"))
    }

    fn apt_lines(&self) -> Vec<String> {
        self.dev.apt_lines()
    }

    fn lost(&self) -> Option<(Lost, String)> {
        self.lost.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::output::Output;

    /// `--verbose` dumps go to the stderr the run was given, between the run's own lines, and
    /// nothing reaches the process's stderr. /dev/null takes no SG_IO (ENOTTY), so the command
    /// goes nowhere; the dumps of the attempt are still written.
    #[test]
    fn verbose_trace_goes_to_the_runs_stderr() {
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        {
            let mut out = Output::new(false, Vec::new(), &mut stdout, &mut stderr);
            out.note("before");
            let flags = Flags {
                verbose: true,
                ..Default::default()
            };
            let path = OsString::from("/dev/null");
            let mut dev = RealDevice::open(&path, &flags, out.trace_writer()).expect("open");
            let result = dev.with_options(|d, opts| d.identify(opts));
            assert!(result.is_err());
            out.note("after");
            out.finish();
        }
        let text = String::from_utf8(stderr).expect("utf-8");
        assert!(
            text.starts_with(
                "before\noutgoing cdb:  85 08 0e 00 00 00 01 00 00 00 00 00 00 40 ec 00\n\
                 ioctl(fd,SG_IO): Inappropriate ioctl for device\n"
            ),
            "{text}"
        );
        assert!(text.ends_with("\nafter\n"), "{text}");
        assert!(stdout.is_empty());
    }

    #[test]
    fn no_trace_without_verbose() {
        let mut stdout = Vec::new();
        let mut stderr = Vec::new();
        {
            let out = Output::new(false, Vec::new(), &mut stdout, &mut stderr);
            let path = OsString::from("/dev/null");
            let mut dev =
                RealDevice::open(&path, &Flags::default(), out.trace_writer()).expect("open");
            assert!(dev.with_options(|d, opts| d.identify(opts)).is_err());
        }
        assert!(stderr.is_empty(), "{}", String::from_utf8_lossy(&stderr));
    }
}
