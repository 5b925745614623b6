//! The ATA transport: one [`TaskFile`] to the drive and its result registers back.
//!
//! Owns: the calls. SG_IO with ATA PASS-THROUGH(16) or (12) (hdparm's choice, plus a retry with
//! (12) when a SCSI disk or USB bridge refuses (16) as an unknown opcode; never on CD/DVD
//! drives), hdparm's fallback to the legacy `HDIO_DRIVE_CMD` / `HDIO_DRIVE_TASKFILE` ioctls
//! (on EINVAL, ENODEV, or a bad SCSI/host/driver status, which hdparm turns into EBADE),
//! hdparm's `--verbose` dumps in their place among the calls, and the hdparm-shaped helpers
//! built on it (`drive_cmd`, `identify`, `read_log_ext`). What the status and sense bytes mean
//! is decided in [`crate::ata::sat`], the legacy argument blocks are built in
//! [`crate::ata::hdio`]. Must not: print anything except into the caller's trace writer.

use std::fmt;
use std::io::Write;

use super::sys::sg::{self, Direction};
use super::sys::{self, IdeTaskRequest};
use super::Device;
use crate::ata::command::{op, AtaRegisters, Cdb, Protocol, TaskFile};
use crate::ata::hdio::{self, TaskfileRequest};
use crate::ata::jmicron;
use crate::ata::sat::{
    self, bad_status, diagnostics, finish, outcome_from_sense, via_of, with_legacy_error,
    SatOutcome, ScsiStatus, SenseReading, DRIVER_SENSE, SAM_STAT_CHECK_CONDITION, SENSE_LEN,
};
pub use crate::ata::sat::{AtaError, AtaResult, Via};
use crate::ata::sense::FixedLayout;
use crate::error::{strerror, ErrorClass};

/// Options of one ATA command.
#[derive(Default)]
pub struct AtaOptions<'a> {
    /// `--prefer-ata12`: use ATA PASS-THROUGH(12) where hdparm would.
    pub prefer_ata12: bool,
    /// Skip the legacy HDIO fallback (hdparm's `sg16()` callers: TRIM, the WD idle3 timer).
    pub no_legacy_fallback: bool,
    /// `--verbose`: hdparm's dumps (`outgoing cdb: ...`) are written here; hdparm writes them
    /// to stderr.
    pub trace: Option<&'a mut dyn Write>,
    /// The security password was read at run time (terminal, file): the `--verbose` dump of a
    /// password command's data, whose bytes 2-33 are the password, says its size only.
    pub hide_password_data: bool,
}

impl AtaOptions<'_> {
    fn verbose(&self) -> bool {
        self.trace.is_some()
    }

    fn trace(&mut self, args: fmt::Arguments<'_>) {
        if let Some(w) = self.trace.as_mut() {
            // A failing trace writer must not fail the command.
            let _ = w.write_fmt(args);
        }
    }

    fn dump(&mut self, prefix: &str, bytes: &[u8]) {
        if self.trace.is_some() {
            let line = sat::dump_line(prefix, bytes);
            self.trace(format_args!("{line}\n"));
        }
    }
}

/// Whether a command's data sector holds a security password (SET PASSWORD, UNLOCK, ERASE
/// UNIT, DISABLE PASSWORD).
fn carries_password(command: u8) -> bool {
    use crate::ata::command::op;
    matches!(
        command,
        op::SECURITY_SET_PASS
            | op::SECURITY_UNLOCK
            | op::SECURITY_ERASE_UNIT
            | op::SECURITY_DISABLE
    )
}

/// hdparm's `--verbose` dump of a command's data out; a password read at run time
/// (`hide_password`) is left out, its size said instead.
fn outgoing_data_line(command: u8, data: &[u8], hide_password: bool) -> String {
    if hide_password && carries_password(command) {
        format!(
            "outgoing_data: ({} bytes, not shown: they hold the password)",
            data.len()
        )
    } else {
        sat::dump_line("outgoing_data", data)
    }
}

impl Device {
    /// Sends one ATA command. `data` is the data phase (read into or written from); it must be
    /// non-empty exactly when the protocol has data, and is zeroed before a read. See the
    /// module doc for the transport rules.
    pub fn ata_command(
        &self,
        tf: &TaskFile,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
    ) -> Result<AtaResult, AtaError> {
        let legacy_args = hdio::drive_cmd_args(tf, data.len());
        self.ata_command_with(tf, data, opts, legacy_args)
    }

    fn ata_command_with(
        &self,
        tf: &TaskFile,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
        legacy_args: Option<[u8; 4]>,
    ) -> Result<AtaResult, AtaError> {
        let command = tf.command;
        if tf.protocol.has_data() == data.is_empty() {
            let detail = if data.is_empty() {
                "a data command needs a buffer"
            } else {
                "a non-data command was given a buffer"
            };
            return Err(AtaError::Transport {
                command,
                detail: detail.into(),
                errno: libc::EINVAL,
            });
        }
        if let Some(port) = self.apt_port.get() {
            return self.send_jmicron(tf, data, opts, port, legacy_args);
        }
        if legacy_args.is_none() && tf.lba48 && opts.verbose() {
            // hdparm's taskfile path announces its 48-bit layout.
            opts.trace(format_args!("using LBA48 taskfile\n"));
        }
        let learned12 = self.pt12_learned.get();
        let cdb = tf.cdb(opts.prefer_ata12 || learned12);
        let mut outcome = self.send_sat(tf, &cdb, data, opts);
        let mut via = via_of(&cdb);
        // A target without ATA PASS-THROUGH(16) may still have (12) (some USB bridges).
        if let SatOutcome::Refused { sense, .. } = &outcome {
            let alt = tf.cdb(true);
            if sense.refuses_pass_through()
                && matches!(cdb, Cdb::Ata16(_))
                && matches!(alt, Cdb::Ata12(_))
                && self.may_retry_with_ata12()
            {
                if opts.verbose() {
                    opts.trace(format_args!(
                        "ATA PASS-THROUGH(16) refused, trying ATA PASS-THROUGH(12)\n"
                    ));
                }
                outcome = self.send_sat(tf, &alt, data, opts);
                via = Via::Ata12;
                if matches!(outcome, SatOutcome::Done { .. }) {
                    self.pt12_learned.set(true);
                }
            }
        }
        match outcome {
            SatOutcome::Done { .. } | SatOutcome::Refused { .. } => {
                let result = finish(outcome, command, via, self.kind.is_cdrom());
                if let Err(AtaError::Aborted { registers: r, .. }) = &result {
                    if opts.verbose() {
                        opts.trace(format_args!(
                            "I/O error, ata_op=0x{:02x} ata_status=0x{:02x} ata_error=0x{:02x}\n",
                            command, r.status, r.error
                        ));
                    }
                }
                result
            }
            SatOutcome::Failed(e) => Err(e),
            SatOutcome::TryLegacy(e) => self.legacy_fallback(tf, data, opts, legacy_args, e),
        }
    }

    /// hdparm's fallback when SG_IO cannot carry a command: `HDIO_DRIVE_CMD` for a command
    /// that fits its argument block (`legacy_args`), else `HDIO_DRIVE_TASKFILE`; `sg_error`
    /// itself when the caller forbids the fallback.
    fn legacy_fallback(
        &self,
        tf: &TaskFile,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
        legacy_args: Option<[u8; 4]>,
        sg_error: AtaError,
    ) -> Result<AtaResult, AtaError> {
        if opts.no_legacy_fallback {
            return Err(sg_error);
        }
        match legacy_args {
            Some(args) => self.legacy_drive_cmd(tf.command, args, data, opts, sg_error),
            None => self.legacy_taskfile(tf, data, opts, sg_error),
        }
    }

    /// The USB vendor and product of the bridge in front of the device, when there is one.
    fn usb_ids(&self) -> Option<(u16, u16)> {
        use super::kind::{DeviceKind, ScsiHost};
        match &self.kind {
            DeviceKind::Scsi {
                host: ScsiHost::Usb {
                    vendor, product, ..
                },
                ..
            }
            | DeviceKind::ScsiGeneric {
                host: ScsiHost::Usb {
                    vendor, product, ..
                },
                ..
            } => Some((*vendor, *product)),
            _ => None,
        }
    }

    /// Whether this is a USB bridge hdparm drives through its vendor CDB (JMicron, ioSafe).
    pub fn is_apt_bridge(&self) -> bool {
        self.usb_ids()
            .is_some_and(|(vendor, product)| jmicron::is_bridge(vendor, product))
    }

    /// The lines hdparm's `apt_detect` prints on stdout under `--verbose`, after the device's
    /// header: whether a USB bridge was found, its id, and the JMicron port.
    pub fn apt_lines(&self) -> Vec<String> {
        let usb = self.usb_ids();
        let Some((vendor, product)) = usb else {
            return vec!["APT: No idVendor found -> not USB bridge device".to_string()];
        };
        // bcdDevice sits beside idVendor, in the usb_device above the interface.
        let mut version = None;
        if let Ok(dir) = self.sysfs_dir() {
            let mut dir = super::sysfs::canonical(&dir).unwrap_or(dir);
            while dir.pop() && dir.as_os_str().len() > "/sys/devices".len() {
                if super::sysfs::read_attr(&dir, "idVendor").is_ok() {
                    version = super::sysfs::read_attr(&dir, "bcdDevice")
                        .ok()
                        .and_then(|v| u16::from_str_radix(v.trim(), 16).ok());
                    break;
                }
            }
        }
        let Some(version) = version else {
            return Vec::new();
        };
        let mut lines = vec![format!(
            "APT: USB ID = 0x{vendor:04x}:0x{product:04x} (0x{version:03x})"
        )];
        if jmicron::is_bridge(vendor, product) {
            lines.push("APT: Found supported device jmicron".to_string());
            if let Some(port) = self.apt_port.get() {
                lines.push(format!("APT: JMicron Port: 0x{port:X}"));
            }
        } else {
            lines.push("APT: Unsupported device".to_string());
        }
        lines
    }

    /// hdparm's `apt_detect`, done once when the device is opened: on a JMicron/ioSafe
    /// bridge, reads the bridge's register 0x720F to find the drive's port, and from then on
    /// sends every ATA command through the vendor CDB. An error (the probe failed, or no
    /// drive is connected: ENODEV) means the device cannot be used, as in hdparm.
    pub fn apt_detect(&self, opts: &mut AtaOptions<'_>) -> std::io::Result<()> {
        if !self.is_apt_bridge() {
            return Ok(());
        }
        let cdb = jmicron::probe_cdb();
        opts.dump("outgoing cdb", &cdb);
        let mut register = [0u8; 1];
        let st = sg::sg_io(
            self,
            &cdb,
            Direction::FromDevice,
            &mut register,
            &mut [],
            jmicron::DEFAULT_TIMEOUT_SECS * 1000,
            0,
        )?;
        if st.host_status != 0 || st.driver_status != 0 {
            return Err(std::io::Error::from_raw_os_error(libc::EBADE));
        }
        let port = jmicron::port_from_register(register[0])
            .ok_or_else(|| std::io::Error::from_raw_os_error(libc::ENODEV))?;
        self.apt_port.set(Some(port));
        Ok(())
    }

    /// One command through the JMicron vendor CDB. The bridge returns no registers: success
    /// has none. A 48-bit command, a failed ioctl (EINVAL, ENODEV) or a bad host or driver
    /// status goes to the legacy ioctl as hdparm's EBADE does (unless the caller forbids it).
    fn send_jmicron(
        &self,
        tf: &TaskFile,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
        port: u8,
        legacy_args: Option<[u8; 4]>,
    ) -> Result<AtaResult, AtaError> {
        let command = tf.command;
        let legacy = |e: AtaError, opts: &mut AtaOptions<'_>, data: &mut [u8]| {
            self.legacy_fallback(tf, data, opts, legacy_args, e)
        };
        let Ok(cdb) = jmicron::cdb(tf, data.len(), port) else {
            if opts.verbose() {
                opts.trace(format_args!(
                    "APT: JMicron doesn't support 48-bit ATA commands\n"
                ));
            }
            let e = AtaError::Transport {
                command,
                detail: "the JMicron bridge cannot carry 48-bit commands".into(),
                errno: libc::EBADE,
            };
            return legacy(e, opts, data);
        };
        let direction = match (tf.protocol.has_data(), tf.protocol.is_write()) {
            (false, _) => Direction::None,
            (true, true) => Direction::ToDevice,
            (true, false) => Direction::FromDevice,
        };
        if direction == Direction::FromDevice {
            data.fill(0);
        }
        opts.dump("outgoing cdb", &cdb);
        let timeout_ms = jmicron::timeout_secs(tf).saturating_mul(1000);
        let st = match sg::sg_io(self, &cdb, direction, data, &mut [], timeout_ms, 0) {
            Ok(st) => st,
            Err(e) => {
                if opts.verbose() {
                    opts.trace(format_args!("ioctl(fd,SG_IO): {}\n", strerror(&e)));
                }
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                let err = AtaError::Transport {
                    command,
                    detail: format!("SG_IO failed: {}", strerror(&e)),
                    errno,
                };
                return if matches!(errno, libc::EINVAL | libc::ENODEV) {
                    legacy(err, opts, data)
                } else {
                    Err(err)
                };
            }
        };
        if opts.verbose() {
            opts.trace(format_args!(
                "SG_IO: ATA_12 status=0x{:x}, host_status=0x{:x}, driver_status=0x{:x}\n",
                st.status, st.host_status, st.driver_status
            ));
        }
        if st.host_status != 0 || st.driver_status != 0 {
            let scsi = ScsiStatus {
                status: st.status,
                host_status: st.host_status,
                driver_status: st.driver_status,
            };
            let (what, value) = if st.host_status != 0 {
                ("host status", st.host_status)
            } else {
                ("driver status", st.driver_status)
            };
            let e = bad_status(command, &scsi, what, value.into());
            // not after a time-out, reset or device gone: the legacy ioctl would resend it
            return if e.lost().is_some() {
                Err(e)
            } else {
                legacy(e, opts, data)
            };
        }
        Ok(AtaResult {
            registers: None,
            via: Via::Ata12,
            sense: None,
            diag: None,
        })
    }

    /// Whether a refused PT(16) may be retried as PT(12): only for SCSI targets that are not
    /// CD/DVD drives and not libata. Opcode 0xA1 is BLANK in MMC, and libata hands a CDB it
    /// does not translate to an ATAPI drive as a packet command, so a CD must never see it
    /// unasked; libata disks always take PT(16), so a refusal there is final.
    fn may_retry_with_ata12(&self) -> bool {
        use super::kind::{DeviceKind, ScsiHost};
        match &self.kind {
            DeviceKind::Scsi { host, scsi_type } | DeviceKind::ScsiGeneric { host, scsi_type } => {
                *scsi_type != 5 && !matches!(host, ScsiHost::Libata { .. })
            }
            _ => false,
        }
    }

    fn send_sat(
        &self,
        tf: &TaskFile,
        cdb: &Cdb,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
    ) -> SatOutcome {
        let command = tf.command;
        let write = tf.protocol.is_write();
        let direction = match (tf.protocol.has_data(), write) {
            (false, _) => Direction::None,
            (true, true) => Direction::ToDevice,
            (true, false) => Direction::FromDevice,
        };
        if direction == Direction::FromDevice {
            data.fill(0);
        }
        let n = cdb.len();
        if opts.verbose() {
            // hdparm always dumps a 16-byte array, padded with zeros for (12).
            let mut shown = [0u8; 16];
            shown[..n].copy_from_slice(cdb.as_bytes());
            opts.dump("outgoing cdb", &shown);
            if write {
                let line = outgoing_data_line(tf.command, data, opts.hide_password_data);
                opts.trace(format_args!("{line}\n"));
            }
        }
        let mut sb = [0u8; SENSE_LEN];
        let timeout_ms = tf.timeout().saturating_mul(1000);
        let st = match sg::sg_io(
            self,
            cdb.as_bytes(),
            direction,
            data,
            &mut sb,
            timeout_ms,
            0,
        ) {
            Ok(st) => st,
            Err(e) => {
                if opts.verbose() {
                    opts.trace(format_args!("ioctl(fd,SG_IO): {}\n", strerror(&e)));
                }
                let errno = e.raw_os_error().unwrap_or(libc::EIO);
                // EINVAL and ENODEV send hdparm to the legacy ioctl: a transport decision, not
                // a class. Otherwise the errno's class says whether this node has no ATA
                // transport at all or tried and failed.
                if matches!(errno, libc::EINVAL | libc::ENODEV) {
                    return SatOutcome::TryLegacy(AtaError::Unsupported {
                        command,
                        sg_io: e,
                        legacy: None,
                    });
                }
                return match ErrorClass::of_errno(Some(errno)) {
                    ErrorClass::NotApplicable => SatOutcome::Failed(AtaError::Unsupported {
                        command,
                        sg_io: e,
                        legacy: None,
                    }),
                    _ => SatOutcome::Failed(AtaError::Transport {
                        command,
                        detail: format!("SG_IO failed: {}", strerror(&e)),
                        errno,
                    }),
                };
            }
        };
        if opts.verbose() {
            opts.trace(format_args!(
                "SG_IO: ATA_{} status=0x{:x}, host_status=0x{:x}, driver_status=0x{:x}\n",
                n, st.status, st.host_status, st.driver_status
            ));
        }
        let scsi = ScsiStatus {
            status: st.status,
            host_status: st.host_status,
            driver_status: st.driver_status,
        };
        let bad = |what: &str, value: u32| bad_status(command, &scsi, what, value);
        if st.status != 0 && st.status != SAM_STAT_CHECK_CONDITION {
            if opts.verbose() {
                opts.trace(format_args!("SG_IO: bad status: 0x{:x}\n", st.status));
            }
            return SatOutcome::TryLegacy(bad("status", st.status.into()));
        }
        if st.host_status != 0 {
            if opts.verbose() {
                opts.trace(format_args!(
                    "SG_IO: bad host status: 0x{:x}\n",
                    st.host_status
                ));
            }
            // hdparm tries the legacy ioctl here; not after a time-out, reset or device gone
            // (sat::bad_status), where it would send the command to the drive again.
            let e = bad("host status", st.host_status.into());
            return if e.lost().is_some() {
                SatOutcome::Failed(e)
            } else {
                SatOutcome::TryLegacy(e)
            };
        }
        if opts.verbose() {
            opts.dump("SG_IO: sb[]", &sb);
            if direction == Direction::FromDevice {
                opts.dump("incoming_data", data);
            }
        }
        if st.driver_status != 0 && st.driver_status != DRIVER_SENSE {
            if opts.verbose() {
                opts.trace(format_args!(
                    "SG_IO: bad driver status: 0x{:x}\n",
                    st.driver_status
                ));
            }
            return SatOutcome::TryLegacy(bad("driver status", st.driver_status.into()));
        }
        let diag = diagnostics(&scsi, sb, command, opts.verbose());
        if let Some(line) = &diag.hdparm_complaint {
            // hdparm prints it here, between the data dump and the descriptor dump.
            opts.trace(format_args!("{line}\n"));
        }
        if opts.verbose() {
            // hdparm shows the descriptor header too: its length byte plus two.
            let len = (usize::from(sb[9]) + 2).min(SENSE_LEN - 8 - 2);
            opts.dump("SG_IO: desc[]", &sb[8..8 + len]);
            let line = sat::registers_line(n, &diag.hdparm_registers());
            opts.trace(format_args!("{line}\n"));
        }
        let reading = SenseReading {
            layout: self.fixed_sense_layout(),
            wants_registers: !tf.protocol.has_data(),
        };
        outcome_from_sense(st.status, &sb, command, diag, reading)
    }

    /// Where this device's translator puts the registers in fixed-format sense: libata's own
    /// layouts for a device behind a libata host, SAT's standard layout for everything else
    /// (USB bridges, SAS HBAs, a software target). Decided by the host in sysfs alone: a
    /// translator that copies libata's INQUIRY (vendor `ATA`, as the VM's drive model and some
    /// bridges do) still writes SAT's layout.
    pub fn fixed_sense_layout(&self) -> FixedLayout {
        use super::kind::{DeviceKind, ScsiHost};
        let libata_host = matches!(
            &self.kind,
            DeviceKind::Scsi {
                host: ScsiHost::Libata { .. },
                ..
            } | DeviceKind::ScsiGeneric {
                host: ScsiHost::Libata { .. },
                ..
            }
        );
        if libata_host {
            FixedLayout::Libata
        } else {
            FixedLayout::Sat
        }
    }

    /// hdparm's `HDIO_DRIVE_CMD` fallback: the kernel returns status, error and count in
    /// `args[0..3]`, and EIO when the drive failed the command.
    fn legacy_drive_cmd(
        &self,
        command: u8,
        args: [u8; 4],
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
        sg_error: AtaError,
    ) -> Result<AtaResult, AtaError> {
        if opts.verbose() {
            opts.trace(format_args!("Trying legacy HDIO_DRIVE_CMD\n"));
        }
        let mut buf = vec![0u8; 4 + data.len()];
        buf[..4].copy_from_slice(&args);
        let rc = sys::hdio_drive_cmd(self, Some(&mut buf));
        let registers = hdio::drive_cmd_registers(&buf);
        match rc {
            Ok(()) => {
                data.copy_from_slice(&buf[4..]);
                legacy_done(registers, Via::DriveCmd)
            }
            Err(e) if e.raw_os_error() == Some(libc::EIO) => {
                legacy_aborted(command, registers, Via::DriveCmd)
            }
            Err(e) => Err(with_legacy_error(sg_error, Via::DriveCmd, e)),
        }
    }

    /// hdparm's `HDIO_DRIVE_TASKFILE` fallback (only the old IDE driver implements it).
    fn legacy_taskfile(
        &self,
        tf: &TaskFile,
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
        sg_error: AtaError,
    ) -> Result<AtaResult, AtaError> {
        if opts.verbose() {
            opts.trace(format_args!("trying legacy HDIO_DRIVE_TASKFILE\n"));
        }
        let mut req = IdeTaskRequest::from(&TaskfileRequest::new(tf, data.len()));
        let rc = if tf.protocol.is_write() {
            sys::hdio_drive_taskfile(self, &mut req, data, &mut [])
        } else {
            sys::hdio_drive_taskfile(self, &mut req, &[], data)
        };
        let registers = TaskfileRequest::from(&req).registers(tf.lba48);
        match rc {
            Ok(()) if registers.failed() => legacy_aborted(tf.command, registers, Via::Taskfile),
            Ok(()) => legacy_done(registers, Via::Taskfile),
            Err(e) if e.raw_os_error() == Some(libc::EIO) => {
                legacy_aborted(tf.command, registers, Via::Taskfile)
            }
            Err(e) => Err(with_legacy_error(sg_error, Via::Taskfile, e)),
        }
    }

    /// hdparm's `do_drive_cmd` for the classic argument block `[command, sector, feature,
    /// data-sectors]`, with `data` holding `args[3] * 512` bytes to read (reference §2.1).
    /// On success, and when the drive fails the command, `args[0..3]` become status, error and
    /// sector count, as hdparm leaves them.
    pub fn drive_cmd(
        &self,
        args: &mut [u8; 4],
        data: &mut [u8],
        opts: &mut AtaOptions<'_>,
    ) -> Result<AtaResult, AtaError> {
        let tf = TaskFile::drive_cmd(*args);
        let want = usize::from(args[3]) * 512;
        if data.len() < want {
            return Err(AtaError::Transport {
                command: args[0],
                detail: format!("buffer of {} bytes for {} sectors", data.len(), args[3]),
                errno: libc::EINVAL,
            });
        }
        let result = self.ata_command_with(&tf, &mut data[..want], opts, Some(*args));
        let regs = match &result {
            Ok(r) => Some(r.registers.unwrap_or_default()),
            Err(e) => e.registers().copied(),
        };
        if let Some(r) = regs {
            args[0] = r.status;
            args[1] = r.error;
            args[2] = r.count as u8;
        }
        result
    }

    /// IDENTIFY DEVICE, then IDENTIFY PACKET DEVICE when that fails (reference §2.4), as 256
    /// words converted from little-endian. As hdparm does, a failed IDENTIFY DEVICE clears
    /// `opts.prefer_ata12` (keep using the same options to keep that for the rest of the run).
    /// The error is IDENTIFY DEVICE's, except that a target refusing both as invalid CDB fields
    /// is reported as [`AtaError::NotAta`].
    pub fn identify(&self, opts: &mut AtaOptions<'_>) -> Result<[u16; 256], AtaError> {
        let mut buf = [0u8; 512];
        let first = match self.drive_cmd(&mut [op::IDENTIFY, 0, 0, 1], &mut buf, opts) {
            Ok(_) => return Ok(super::block::le_words(&buf)),
            Err(e) => e,
        };
        opts.prefer_ata12 = false;
        if opts.verbose() {
            opts.trace(format_args!(
                " HDIO_DRIVE_CMD(identify) failed: {}\n",
                strerror(&first.io_error())
            ));
        }
        match self.drive_cmd(&mut [op::PIDENTIFY, 0, 0, 1], &mut buf, opts) {
            Ok(_) => Ok(super::block::le_words(&buf)),
            Err(AtaError::Refused {
                command,
                sense,
                diag,
            }) if sense.rejects_cdb_field()
                && matches!(&first, AtaError::Refused { sense: s, .. } if s.rejects_cdb_field()) =>
            {
                Err(AtaError::NotAta {
                    command,
                    sense,
                    diag,
                })
            }
            Err(_) => Err(first),
        }
    }

    /// READ LOG EXT of one 512-byte page (reference §2.5): 48-bit, PIO in, LBA = log |
    /// page << 8, sent as hdparm's taskfile commands are (device register 0xE0).
    pub fn read_log_ext(
        &self,
        log: u8,
        page: u16,
        opts: &mut AtaOptions<'_>,
    ) -> Result<[u8; 512], AtaError> {
        let lba = u64::from(log) | u64::from(page) << 8;
        let tf = TaskFile::sector_command(op::READ_LOG_EXT, lba, 1, Protocol::PioIn, true);
        let mut buf = [0u8; 512];
        self.ata_command(&tf, &mut buf, opts)?;
        Ok(buf)
    }
}

/// A command a legacy ioctl carried and the drive completed: its registers, and neither sense
/// data nor SG_IO diagnostics (the ioctl has none).
fn legacy_done(registers: AtaRegisters, via: Via) -> Result<AtaResult, AtaError> {
    Ok(AtaResult {
        registers: Some(registers),
        via,
        sense: None,
        diag: None,
    })
}

/// A command a legacy ioctl carried and the drive failed (ERR set, or the kernel's EIO).
fn legacy_aborted(command: u8, registers: AtaRegisters, via: Via) -> Result<AtaResult, AtaError> {
    Err(AtaError::Aborted {
        command,
        registers,
        via,
        sense: None,
        diag: None,
    })
}

/// The kernel's `ide_task_request_t` for a request built in [`crate::ata::hdio`]: the same
/// fields, the sizes in the kernel's `unsigned long`.
impl From<&TaskfileRequest> for IdeTaskRequest {
    fn from(req: &TaskfileRequest) -> IdeTaskRequest {
        IdeTaskRequest {
            io_ports: req.io_ports,
            hob_ports: req.hob_ports,
            out_flags: req.out_flags,
            in_flags: req.in_flags,
            data_phase: req.data_phase,
            req_cmd: req.req_cmd,
            out_size: req.out_size as libc::c_ulong,
            in_size: req.in_size as libc::c_ulong,
        }
    }
}

/// The request as the kernel left it, for [`crate::ata::hdio`] to read the result registers
/// out of its ports.
impl From<&IdeTaskRequest> for TaskfileRequest {
    fn from(req: &IdeTaskRequest) -> TaskfileRequest {
        TaskfileRequest {
            io_ports: req.io_ports,
            hob_ports: req.hob_ports,
            out_flags: req.out_flags,
            in_flags: req.in_flags,
            data_phase: req.data_phase,
            req_cmd: req.req_cmd,
            out_size: req.out_size as usize,
            in_size: req.in_size as usize,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::OpenMode;
    use crate::error::ErrorClass;

    #[test]
    fn a_password_read_at_run_time_is_not_dumped() {
        let mut sector = [0u8; 512];
        sector[2..11].copy_from_slice(b"s3cr3t-Pw");
        let hidden = outgoing_data_line(op::SECURITY_UNLOCK, &sector, true);
        assert_eq!(
            hidden,
            "outgoing_data: (512 bytes, not shown: they hold the password)"
        );
        // Given on argv, hdparm's dump as hdparm prints it; other commands' data always.
        let shown = outgoing_data_line(op::SECURITY_UNLOCK, &sector, false);
        assert!(
            shown.starts_with("outgoing_data:  00 00 73 33 63 72"),
            "{shown}"
        );
        let trim = outgoing_data_line(op::DSM, &sector, true);
        assert!(trim.starts_with("outgoing_data:  00 00 73"), "{trim}");
    }

    #[test]
    fn buffer_must_match_protocol() {
        let d = Device::open("/dev/null", OpenMode::default()).unwrap();
        let tf = TaskFile::drive_cmd([op::IDENTIFY, 0, 0, 1]);
        let e = d
            .ata_command(&tf, &mut [], &mut AtaOptions::default())
            .unwrap_err();
        assert!(
            matches!(
                e,
                AtaError::Transport {
                    errno: libc::EINVAL,
                    ..
                }
            ),
            "{e}"
        );
    }

    #[test]
    fn a_device_that_is_no_usb_bridge_says_so_under_verbose() {
        let d = Device::open("/dev/null", OpenMode::default()).unwrap();
        assert!(!d.is_apt_bridge());
        assert_eq!(
            d.apt_lines(),
            vec!["APT: No idVendor found -> not USB bridge device".to_string()]
        );
        // No probe, no port: commands keep going through SAT.
        d.apt_detect(&mut AtaOptions::default()).unwrap();
        assert_eq!(d.apt_port.get(), None);
        assert_eq!(d.fixed_sense_layout(), FixedLayout::Sat);
    }

    #[test]
    fn null_device_has_no_ata() {
        let d = Device::open("/dev/null", OpenMode::default()).unwrap();
        let mut trace = Vec::new();
        {
            let mut opts = AtaOptions {
                trace: Some(&mut trace),
                ..Default::default()
            };
            let e = d.identify(&mut opts).unwrap_err();
            assert_eq!(e.class(), ErrorClass::NotApplicable, "{e}");
        }
        let text = String::from_utf8(trace).unwrap();
        assert!(
            text.starts_with("outgoing cdb:  85 08 0e 00 00 00 01 00 00 00 00 00 00 40 ec 00\n"),
            "{text}"
        );
    }
}
