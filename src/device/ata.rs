//! The ATA transport: one [`TaskFile`] to the drive and its result registers back.
//!
//! Owns: SG_IO with ATA PASS-THROUGH(16) or (12) (hdparm's choice, plus a retry with (12) when
//! a SCSI disk or USB bridge refuses (16) as an unknown opcode; never on CD/DVD drives), reading the result out of either sense format,
//! hdparm's fallback to the legacy `HDIO_DRIVE_CMD` / `HDIO_DRIVE_TASKFILE` ioctls (on EINVAL,
//! ENODEV, or a bad SCSI/host/driver status, which hdparm turns into EBADE), hdparm's
//! `--verbose` dumps, and the hdparm-shaped helpers built on it (`drive_cmd`, `identify`,
//! `read_log_ext`). Must not: print anything except into the caller's trace writer.
//!
//! Differences from hdparm on purpose: a target that answers ATA PASS-THROUGH with fixed-format
//! sense is read correctly (hdparm reads garbage and often reports success), and a target that
//! rejects pass-through is reported as [`AtaError::NotAta`] instead of yielding all-zero data.

use std::fmt;
use std::io::{self, Write};

use super::sys::sg::{self, Direction, SgIoStatus, DRIVER_SENSE, SAM_STAT_CHECK_CONDITION};
use super::sys::{self, IdeTaskRequest};
use super::Device;
use crate::ata::command::{
    op, AtaRegisters, Cdb, Protocol, TaskFile, DEV_LBA, SMART_LBA_SIGNATURE,
};
use crate::ata::sense::{self, key, Sense};
use crate::error::{strerror, ErrorClass};

/// Size of the sense buffer hdparm gives SG_IO (and dumps).
pub const SENSE_LEN: usize = 32;

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
            let mut line = format!("{prefix}: ");
            for b in bytes {
                line.push_str(&format!(" {b:02x}"));
            }
            self.trace(format_args!("{line}\n"));
        }
    }
}

/// How a command reached the drive.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Via {
    /// SG_IO, ATA PASS-THROUGH(16).
    Ata16,
    /// SG_IO, ATA PASS-THROUGH(12).
    Ata12,
    /// The legacy `HDIO_DRIVE_CMD` ioctl.
    DriveCmd,
    /// The legacy `HDIO_DRIVE_TASKFILE` ioctl.
    Taskfile,
}

impl Via {
    /// The ioctl or CDB name, as messages print it.
    pub fn name(self) -> &'static str {
        match self {
            Via::Ata16 => "ATA PASS-THROUGH(16)",
            Via::Ata12 => "ATA PASS-THROUGH(12)",
            Via::DriveCmd => "HDIO_DRIVE_CMD",
            Via::Taskfile => "HDIO_DRIVE_TASKFILE",
        }
    }
}

/// What SG_IO said, kept to reproduce hdparm's messages.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SgDiagnostics {
    pub scsi_status: u8,
    pub host_status: u16,
    pub driver_status: u16,
    /// The sense buffer as hdparm sees it (32 bytes, zero-filled beyond what was written).
    pub raw_sense: [u8; SENSE_LEN],
    /// The line hdparm 9.65 prints on stderr for sense data it cannot read
    /// (`SG_IO: bad/missing sense data, sb[]:  70 00 ...`), under hdparm's conditions (never
    /// for IDENTIFY DEVICE unless verbose). When a trace writer is given it has already been
    /// written there, in hdparm's place among the dumps; print it only when not tracing.
    pub hdparm_complaint: Option<String>,
    /// hdparm would print `SG_IO: questionable sense data, results may be incorrect` (once
    /// per run): sense bytes present without DRIVER_SENSE.
    pub hdparm_questionable: bool,
}

impl SgDiagnostics {
    /// The registers hdparm reads from this sense buffer, right or wrong.
    pub fn hdparm_registers(&self) -> AtaRegisters {
        sense::hdparm_registers(&self.raw_sense)
    }
}

/// A command that completed without an error status.
#[derive(Clone, Debug)]
pub struct AtaResult {
    /// The result registers, when the transport returned them: always for non-data commands
    /// (CK_COND asks for them); for data commands only when the target volunteers them.
    pub registers: Option<AtaRegisters>,
    pub via: Via,
    pub sense: Option<Sense>,
    /// None when a legacy ioctl carried the command.
    pub diag: Option<SgDiagnostics>,
}

/// Why an ATA command did not succeed.
#[derive(Debug)]
pub enum AtaError {
    /// No ATA transport here: SG_IO is not implemented for the node (NVMe, virtio-blk, loop
    /// answer ENOTTY or EINVAL), and the legacy ioctl, when tried, is not either.
    Unsupported {
        command: u8,
        sg_io: io::Error,
        legacy: Option<(Via, io::Error)>,
    },
    /// The SCSI target rejected ATA PASS-THROUGH itself (ILLEGAL REQUEST, invalid opcode, for
    /// both CDB sizes): not an ATA device, or a bridge without SAT.
    NotAta {
        command: u8,
        sense: Sense,
        diag: Option<SgDiagnostics>,
    },
    /// The drive executed the command and reported failure (ERR or DRQ in status).
    Aborted {
        command: u8,
        registers: AtaRegisters,
        via: Via,
        sense: Option<Sense>,
        diag: Option<SgDiagnostics>,
    },
    /// The command was refused with sense data but no ATA registers: libata's INVALID FIELD
    /// IN CDB for commands it will not pass on, NOT READY, or an ATAPI drive's INVALID
    /// COMMAND OPERATION CODE for an ATA command it does not implement.
    Refused {
        command: u8,
        sense: Sense,
        diag: Option<SgDiagnostics>,
    },
    /// The transport failed: the ioctl failed (EIO, EPERM...), or SCSI, host or driver
    /// status was bad and the legacy ioctl did not help.
    Transport {
        command: u8,
        detail: String,
        errno: i32,
    },
}

impl AtaError {
    /// The ATA opcode that failed.
    pub fn command(&self) -> u8 {
        match self {
            AtaError::Unsupported { command, .. }
            | AtaError::NotAta { command, .. }
            | AtaError::Aborted { command, .. }
            | AtaError::Refused { command, .. }
            | AtaError::Transport { command, .. } => *command,
        }
    }

    /// The errno to print with hdparm-style `perror` labels: the ioctl's own error when there
    /// is one, EIO for a drive or SCSI error (as hdparm), EOPNOTSUPP for a non-ATA device.
    pub fn errno(&self) -> i32 {
        match self {
            AtaError::Unsupported { sg_io, legacy, .. } => legacy
                .as_ref()
                .and_then(|(_, e)| e.raw_os_error())
                .or(sg_io.raw_os_error())
                .unwrap_or(libc::EIO),
            AtaError::NotAta { .. } => libc::EOPNOTSUPP,
            AtaError::Aborted { .. } | AtaError::Refused { .. } => libc::EIO,
            AtaError::Transport { errno, .. } => *errno,
        }
    }

    /// [`AtaError::errno`] as an `io::Error`, for `perror`-style lines.
    pub fn io_error(&self) -> io::Error {
        io::Error::from_raw_os_error(self.errno())
    }

    /// The exit-status class: not applicable for a device without ATA, failed otherwise.
    pub fn class(&self) -> ErrorClass {
        match self {
            AtaError::Unsupported { .. } | AtaError::NotAta { .. } => ErrorClass::NotApplicable,
            _ => ErrorClass::Failed,
        }
    }

    /// The registers, for a command the drive failed.
    pub fn registers(&self) -> Option<&AtaRegisters> {
        match self {
            AtaError::Aborted { registers, .. } => Some(registers),
            _ => None,
        }
    }

    /// SG_IO details, when SG_IO carried the command.
    pub fn diag(&self) -> Option<&SgDiagnostics> {
        match self {
            AtaError::NotAta { diag, .. }
            | AtaError::Aborted { diag, .. }
            | AtaError::Refused { diag, .. } => diag.as_ref(),
            _ => None,
        }
    }
}

impl fmt::Display for AtaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtaError::Unsupported { sg_io, legacy, .. } => {
                write!(
                    f,
                    "ATA commands are not supported on this device (SG_IO: {}",
                    strerror(sg_io)
                )?;
                if let Some((via, e)) = legacy {
                    write!(f, "; {}: {}", via.name(), strerror(e))?;
                }
                write!(f, ")")
            }
            AtaError::NotAta { sense, .. } => write!(
                f,
                "not an ATA device: ATA PASS-THROUGH was rejected ({})",
                sense.describe()
            ),
            AtaError::Aborted {
                command,
                registers: r,
                ..
            } => {
                write!(
                    f,
                    "ATA command 0x{command:02x} failed: status 0x{:02x}",
                    r.status
                )?;
                let words = r.status_words();
                if !words.is_empty() {
                    write!(f, " ({words})")?;
                }
                write!(f, ", error 0x{:02x}", r.error)?;
                let words = r.error_words();
                if !words.is_empty() {
                    write!(f, " ({words})")?;
                }
                write!(f, ": {}", r.error_meaning())
            }
            AtaError::Refused { command, sense, .. } => write!(
                f,
                "ATA command 0x{command:02x} was refused: {}",
                sense.describe()
            ),
            AtaError::Transport {
                command, detail, ..
            } => {
                write!(f, "ATA command 0x{command:02x} could not be sent: {detail}")
            }
        }
    }
}

impl std::error::Error for AtaError {}

/// The outcome of one SG_IO attempt, before policy.
enum SatOutcome {
    /// Completed: registers (if any) and diagnostics; the ERR/DRQ check is the caller's.
    Done {
        registers: Option<AtaRegisters>,
        sense: Option<Sense>,
        diag: SgDiagnostics,
    },
    /// CHECK CONDITION without registers.
    Refused {
        sense: Sense,
        diag: SgDiagnostics,
    },
    /// hdparm's fallback cases: the ioctl failed with EINVAL/ENODEV, or bad SCSI/host/driver
    /// status (EBADE). Carries the error to report if the legacy ioctl does not help.
    TryLegacy(AtaError),
    Failed(AtaError),
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
        let legacy_args = drive_cmd_args(tf, data.len());
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
            SatOutcome::TryLegacy(e) => {
                if opts.no_legacy_fallback {
                    return Err(e);
                }
                match legacy_args {
                    Some(args) => self.legacy_drive_cmd(command, args, data, opts, e),
                    None => self.legacy_taskfile(tf, data, opts, e),
                }
            }
        }
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
                opts.dump("outgoing_data", data);
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
                return match errno {
                    libc::EINVAL | libc::ENODEV => SatOutcome::TryLegacy(AtaError::Unsupported {
                        command,
                        sg_io: e,
                        legacy: None,
                    }),
                    libc::ENOTTY | libc::EOPNOTSUPP | libc::ENOSYS => {
                        SatOutcome::Failed(AtaError::Unsupported {
                            command,
                            sg_io: e,
                            legacy: None,
                        })
                    }
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
        let bad = |what: &str, value: u32| {
            AtaError::Transport {
            command,
            detail: format!(
                "SG_IO: bad {what} 0x{value:x} (SCSI status 0x{:x}, host status 0x{:x}, driver status 0x{:x})",
                st.status, st.host_status, st.driver_status
            ),
            errno: libc::EBADE,
        }
        };
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
            return SatOutcome::TryLegacy(bad("host status", st.host_status.into()));
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
        let diag = diagnostics(&st, sb, command, opts.verbose());
        if let Some(line) = &diag.hdparm_complaint {
            // hdparm prints it here, between the data dump and the descriptor dump.
            opts.trace(format_args!("{line}\n"));
        }
        if opts.verbose() {
            // hdparm shows the descriptor header too: its length byte plus two.
            let len = (usize::from(sb[9]) + 2).min(SENSE_LEN - 8 - 2);
            opts.dump("SG_IO: desc[]", &sb[8..8 + len]);
            let r = diag.hdparm_registers();
            opts.trace(format_args!(
                "      ATA_{} stat={:02x} err={:02x} nsect={:02x} lbal={:02x} lbam={:02x} lbah={:02x} dev={:02x}\n",
                n,
                r.status,
                r.error,
                r.count as u8,
                r.lba as u8,
                (r.lba >> 8) as u8,
                (r.lba >> 16) as u8,
                r.device
            ));
        }
        outcome_from_sense(st.status, &sb, command, diag)
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
        let registers = AtaRegisters {
            status: buf[0],
            error: buf[1],
            count: buf[2].into(),
            ..Default::default()
        };
        match rc {
            Ok(()) => {
                data.copy_from_slice(&buf[4..]);
                Ok(AtaResult {
                    registers: Some(registers),
                    via: Via::DriveCmd,
                    sense: None,
                    diag: None,
                })
            }
            Err(e) if e.raw_os_error() == Some(libc::EIO) => Err(AtaError::Aborted {
                command,
                registers,
                via: Via::DriveCmd,
                sense: None,
                diag: None,
            }),
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
        let mut req = ide_task_request(tf, data.len());
        let rc = if tf.protocol.is_write() {
            sys::hdio_drive_taskfile(self, &mut req, data, &mut [])
        } else {
            sys::hdio_drive_taskfile(self, &mut req, &[], data)
        };
        let p = req.io_ports;
        let h = req.hob_ports;
        let mut registers = AtaRegisters {
            status: p[7],
            error: p[1],
            count: p[2].into(),
            lba: u64::from(p[3]) | u64::from(p[4]) << 8 | u64::from(p[5]) << 16,
            device: p[6],
            lba48: tf.lba48,
        };
        if tf.lba48 {
            registers.count |= u16::from(h[2]) << 8;
            registers.lba |= u64::from(h[3]) << 24 | u64::from(h[4]) << 32 | u64::from(h[5]) << 40;
        }
        match rc {
            Ok(()) if registers.failed() => Err(AtaError::Aborted {
                command: tf.command,
                registers,
                via: Via::Taskfile,
                sense: None,
                diag: None,
            }),
            Ok(()) => Ok(AtaResult {
                registers: Some(registers),
                via: Via::Taskfile,
                sense: None,
                diag: None,
            }),
            Err(e) if e.raw_os_error() == Some(libc::EIO) => Err(AtaError::Aborted {
                command: tf.command,
                registers,
                via: Via::Taskfile,
                sense: None,
                diag: None,
            }),
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

/// What a completed SG_IO call (GOOD or CHECK CONDITION, host and driver status fine) means:
/// registers when the sense carries them, success without them for GOOD or informational
/// sense, a refusal otherwise.
fn outcome_from_sense(
    scsi_status: u8,
    sb: &[u8; SENSE_LEN],
    command: u8,
    diag: SgDiagnostics,
) -> SatOutcome {
    match sense::decode(sb) {
        None if scsi_status == SAM_STAT_CHECK_CONDITION => {
            SatOutcome::Failed(AtaError::Transport {
                command,
                detail: "CHECK CONDITION without sense data".into(),
                errno: libc::EIO,
            })
        }
        None => SatOutcome::Done {
            registers: None,
            sense: None,
            diag,
        },
        Some(s) => match s.registers {
            Some(r) => SatOutcome::Done {
                registers: Some(r),
                sense: Some(s),
                diag,
            },
            // Informational sense without registers: the command itself went through.
            None if s.key == key::NO_SENSE || s.key == key::RECOVERED_ERROR => SatOutcome::Done {
                registers: None,
                sense: Some(s),
                diag,
            },
            None => SatOutcome::Refused { sense: s, diag },
        },
    }
}

/// The verdict on a completed command: ERR or DRQ in the returned status means the drive
/// failed it; a refusal is "not ATA" only when the target refused pass-through itself (an
/// ATAPI drive reports an ATA command it lacks, such as IDENTIFY DEVICE or READ LOG EXT, as an
/// invalid opcode too, through libata's REQUEST SENSE: that is a refused command).
fn finish(
    outcome: SatOutcome,
    command: u8,
    via: Via,
    is_cdrom: bool,
) -> Result<AtaResult, AtaError> {
    match outcome {
        SatOutcome::Done {
            registers: Some(r),
            sense,
            diag,
        } if r.failed() => Err(AtaError::Aborted {
            command,
            registers: r,
            via,
            sense,
            diag: Some(diag),
        }),
        SatOutcome::Done {
            registers,
            sense,
            diag,
        } => Ok(AtaResult {
            registers,
            via,
            sense,
            diag: Some(diag),
        }),
        SatOutcome::Refused { sense, diag } if sense.refuses_pass_through() && !is_cdrom => {
            Err(AtaError::NotAta {
                command,
                sense,
                diag: Some(diag),
            })
        }
        SatOutcome::Refused { sense, diag } => Err(AtaError::Refused {
            command,
            sense,
            diag: Some(diag),
        }),
        SatOutcome::Failed(e) | SatOutcome::TryLegacy(e) => Err(e),
    }
}

fn via_of(cdb: &Cdb) -> Via {
    match cdb {
        Cdb::Ata16(_) => Via::Ata16,
        Cdb::Ata12(_) => Via::Ata12,
    }
}

/// Adds the legacy ioctl's failure to the SG_IO error it was meant to work around.
fn with_legacy_error(sg_error: AtaError, via: Via, e: io::Error) -> AtaError {
    match sg_error {
        AtaError::Unsupported { command, sg_io, .. } => AtaError::Unsupported {
            command,
            sg_io,
            legacy: Some((via, e)),
        },
        other => other,
    }
}

/// hdparm's diagnostics for a completed SG_IO call.
fn diagnostics(st: &SgIoStatus, sb: [u8; SENSE_LEN], command: u8, verbose: bool) -> SgDiagnostics {
    let mut complaint = None;
    let mut questionable = false;
    if st.driver_status != DRIVER_SENSE {
        questionable = sb[..10].iter().any(|&b| b != 0);
    } else if !sense::hdparm_accepts(&sb) && (command != op::IDENTIFY || verbose) {
        let mut line = String::from("SG_IO: bad/missing sense data, sb[]: ");
        for b in sb {
            line.push_str(&format!(" {b:02x}"));
        }
        complaint = Some(line);
    }
    SgDiagnostics {
        scsi_status: st.status,
        host_status: st.host_status,
        driver_status: st.driver_status,
        raw_sense: sb,
        hdparm_complaint: complaint,
        hdparm_questionable: questionable,
    }
}

/// The `HDIO_DRIVE_CMD` argument block equivalent to `tf`, when it can express it: a 28-bit
/// command with no address (SMART's signature aside), device 0x40, no data or PIO in whole
/// sectors.
fn drive_cmd_args(tf: &TaskFile, data_len: usize) -> Option<[u8; 4]> {
    let sectors = u8::try_from(data_len / 512).ok()?;
    if data_len % 512 != 0
        || tf.device != DEV_LBA
        || tf.feature > 0xFF
        || tf.count > 0xFF
        || !matches!(tf.protocol, Protocol::NonData | Protocol::PioIn)
    {
        return None;
    }
    if tf.command == op::SMART {
        if tf.lba & !0xFF != SMART_LBA_SIGNATURE {
            return None;
        }
        return Some([tf.command, tf.lba as u8, tf.feature as u8, sectors]);
    }
    if tf.lba != 0 {
        return None;
    }
    Some([tf.command, tf.count as u8, tf.feature as u8, sectors])
}

/// The two lines hdparm 9.65 prints on **stdout** under `--verbose` before each taskfile
/// command (sector reads and writes, READ LOG EXT, max-address commands), describing which
/// registers it sends: `oflags.bits.lob_all=0xfc, flags={ nsect lbal lbam lbah dev command }`
/// and the same for `hob_all` (48-bit only registers). Each line ends with a newline.
pub fn hdparm_taskfile_flag_lines(tf: &TaskFile) -> String {
    // hdparm's bit order: data, feat, nsect, lbal, lbam, lbah, dev, command.
    let names = [
        "data", "feat", "nsect", "lbal", "lbam", "lbah", "dev", "command",
    ];
    let line = |which: &str, bits: u8| {
        let mut s = format!("oflags.bits.{which}_all=0x{bits:02x}, flags={{");
        for (i, n) in names.iter().enumerate() {
            if bits & (1 << i) != 0 {
                s.push(' ');
                s.push_str(n);
            }
        }
        s.push_str(" }\n");
        s
    };
    let mut lob = 0xFC; // nsect lbal lbam lbah dev command: always set by init_hdio_taskfile
    if tf.feature & 0xFF != 0 {
        lob |= 0x02;
    }
    let mut hob = 0;
    if tf.lba48 {
        hob = 0x3C;
        if tf.feature >> 8 != 0 {
            hob |= 0x02;
        }
    }
    line("lob", lob) + &line("hob", hob)
}

/// Register-valid bits of `ide_reg_valid_t`, in the kernel's order.
const TF_FEATURE: u16 = 1 << 1;
const TF_LBAL: u16 = 1 << 2;
const TF_NSECT: u16 = 1 << 3;
const TF_LBAM: u16 = 1 << 4;
const TF_LBAH: u16 = 1 << 5;
const TF_DEVICE: u16 = 1 << 6;
const TF_COMMAND: u16 = 1 << 7;
const TF_LOB_ALL: u16 =
    TF_FEATURE | TF_LBAL | TF_NSECT | TF_LBAM | TF_LBAH | TF_DEVICE | TF_COMMAND;
const TF_HOB_SHIFT: u16 = 8;

/// `TASKFILE_*` data phases and `IDE_DRIVE_TASK_*` request kinds (linux/hdreg.h).
const DPHASE_NONE: i32 = 0;
const DPHASE_PIO_IN: i32 = 1;
const DPHASE_PIO_OUT: i32 = 4;
const DPHASE_DMA_IN: i32 = 0x20;
const DPHASE_DMA_OUT: i32 = 0x40;
const REQ_NODATA: i32 = 0;
const REQ_IN: i32 = 2;
const REQ_OUT: i32 = 3;
const REQ_RAW_OUT: i32 = 4;

/// The legacy taskfile request for `tf`, as hdparm's `init_hdio_taskfile` fills it.
fn ide_task_request(tf: &TaskFile, data_len: usize) -> IdeTaskRequest {
    let mut req = IdeTaskRequest::default();
    let lba = tf.lba;
    req.io_ports = [
        0,
        tf.feature as u8,
        tf.count as u8,
        lba as u8,
        (lba >> 8) as u8,
        (lba >> 16) as u8,
        tf.device_register(),
        tf.command,
    ];
    req.out_flags = TF_LOB_ALL;
    req.in_flags = TF_LOB_ALL;
    if tf.lba48 {
        req.hob_ports = [
            0,
            (tf.feature >> 8) as u8,
            (tf.count >> 8) as u8,
            (lba >> 24) as u8,
            (lba >> 32) as u8,
            (lba >> 40) as u8,
            0,
            0,
        ];
        let hob = (TF_FEATURE | TF_LBAL | TF_NSECT | TF_LBAM | TF_LBAH) << TF_HOB_SHIFT;
        req.out_flags |= hob;
        req.in_flags |= hob;
    }
    let (phase, kind) = match tf.protocol {
        Protocol::NonData => (DPHASE_NONE, REQ_NODATA),
        Protocol::PioIn => (DPHASE_PIO_IN, REQ_IN),
        Protocol::PioOut => (DPHASE_PIO_OUT, REQ_RAW_OUT),
        Protocol::DmaIn => (DPHASE_DMA_IN, REQ_IN),
        Protocol::DmaOut => (DPHASE_DMA_OUT, REQ_OUT),
    };
    req.data_phase = phase;
    req.req_cmd = kind;
    if tf.protocol.is_write() {
        req.out_size = data_len as libc::c_ulong;
    } else if tf.protocol.has_data() {
        req.in_size = data_len as libc::c_ulong;
    }
    req
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::OpenMode;

    #[test]
    fn drive_cmd_args_round_trip() {
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xEC, 0, 0, 1]), 512),
            Some([0xEC, 1, 0, 1])
        );
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xE3, 5, 0, 0]), 0),
            Some([0xE3, 5, 0, 0])
        );
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xB0, 0x06, 0xD0, 1]), 512),
            Some([0xB0, 0x06, 0xD0, 1])
        );
        // Sector commands are taskfile commands.
        let tf = TaskFile::sector_command(op::READ_PIO, 10, 1, Protocol::PioIn, false);
        assert_eq!(drive_cmd_args(&tf, 512), None);
    }

    #[test]
    fn taskfile_request_layout() {
        let tf = TaskFile::sector_command(
            op::READ_PIO_EXT,
            0x0102_0304_0506,
            1,
            Protocol::PioIn,
            false,
        );
        let req = ide_task_request(&tf, 512);
        assert_eq!(req.io_ports, [0, 0, 1, 0x06, 0x05, 0x04, 0xE0, 0x24]);
        assert_eq!(req.hob_ports, [0, 0, 0, 0x03, 0x02, 0x01, 0, 0]);
        assert_eq!(req.in_size, 512);
        assert_eq!(req.out_size, 0);
        assert_eq!((req.data_phase, req.req_cmd), (DPHASE_PIO_IN, REQ_IN));
        assert_eq!(req.out_flags & 0x00FE, 0x00FE);
    }

    #[test]
    fn taskfile_flag_lines_as_hdparm_prints_them() {
        // Seen in hdparm 9.65 --verbose -I output (READ LOG EXT).
        let tf = TaskFile::sector_command(op::READ_LOG_EXT, 0, 1, Protocol::PioIn, true);
        assert_eq!(
            hdparm_taskfile_flag_lines(&tf),
            "oflags.bits.lob_all=0xfc, flags={ nsect lbal lbam lbah dev command }\n\
             oflags.bits.hob_all=0x3c, flags={ nsect lbal lbam lbah }\n"
        );
        let tf = TaskFile::sector_command(op::READ_PIO, 5, 1, Protocol::PioIn, false);
        assert!(hdparm_taskfile_flag_lines(&tf).ends_with("oflags.bits.hob_all=0x00, flags={ }\n"));
    }

    fn sb(hex: &str) -> [u8; SENSE_LEN] {
        let mut b = [0u8; SENSE_LEN];
        for (i, h) in hex.split_whitespace().enumerate() {
            b[i] = u8::from_str_radix(h, 16).unwrap();
        }
        b
    }

    /// A completed SG_IO call as Linux 6.1 reported it in the VM bench, through the same
    /// decisions `ata_command` makes.
    fn verdict(
        status: u8,
        sense: &str,
        command: u8,
        is_cdrom: bool,
    ) -> Result<AtaResult, AtaError> {
        let st = SgIoStatus {
            status,
            driver_status: if status == 2 { DRIVER_SENSE } else { 0 },
            ..Default::default()
        };
        let b = sb(sense);
        let diag = diagnostics(&st, b, command, false);
        finish(
            outcome_from_sense(status, &b, command, diag),
            command,
            Via::Ata16,
            is_cdrom,
        )
    }

    #[test]
    fn check_power_mode_answer_is_success_with_count() {
        let r = verdict(
            2,
            "72 01 00 1d 00 00 00 0e 09 0c 00 00 00 ff 00 00 00 00 00 00 40 50",
            0xE5,
            false,
        )
        .unwrap();
        let regs = r.registers.unwrap();
        assert_eq!((regs.status, regs.count), (0x50, 0xff));
        assert!(r.diag.unwrap().hdparm_complaint.is_none());
    }

    #[test]
    fn identify_with_no_sense_is_success_without_registers() {
        let r = verdict(0, "", op::IDENTIFY, false).unwrap();
        assert!(r.registers.is_none());
    }

    #[test]
    fn aborted_read_log_is_a_drive_error() {
        let e = verdict(
            2,
            "70 00 0b 00 00 00 00 0a 04 41 e0 01 00 00 00 00 80",
            0x2F,
            false,
        )
        .unwrap_err();
        let r = e.registers().unwrap();
        assert_eq!((r.status, r.error), (0x41, 0x04));
        assert_eq!(e.class(), ErrorClass::Failed);
        // hdparm would print its complaint for this one.
        assert!(e.diag().unwrap().hdparm_complaint.is_some());
    }

    #[test]
    fn virtio_scsi_is_not_ata() {
        let e = verdict(
            2,
            "70 00 05 00 00 00 00 0a 00 00 00 00 20 00",
            op::IDENTIFY,
            false,
        )
        .unwrap_err();
        assert!(matches!(e, AtaError::NotAta { .. }), "{e:?}");
        assert_eq!(e.class(), ErrorClass::NotApplicable);
    }

    #[test]
    fn atapi_invalid_opcode_is_a_refusal() {
        let e = verdict(
            2,
            "f0 00 05 00 00 00 00 0a 00 00 00 00 20 00",
            op::IDENTIFY,
            true,
        )
        .unwrap_err();
        assert!(matches!(e, AtaError::Refused { .. }), "{e:?}");
        assert_eq!(
            e.to_string(),
            "ATA command 0xec was refused: ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00)"
        );
    }

    #[test]
    fn libata_refusing_xfer_mode() {
        let e = verdict(
            2,
            "70 00 05 00 00 00 00 12 00 00 00 00 24 00 00 c0 00 04",
            0xEF,
            false,
        )
        .unwrap_err();
        assert!(matches!(e, AtaError::Refused { .. }), "{e:?}");
        assert_eq!(e.errno(), libc::EIO);
    }

    #[test]
    fn check_condition_without_sense_is_a_transport_error() {
        let e = verdict(2, "", 0xE5, false).unwrap_err();
        assert!(matches!(e, AtaError::Transport { .. }), "{e:?}");
    }

    #[test]
    fn error_sentences() {
        let e = AtaError::Unsupported {
            command: 0xEC,
            sg_io: io::Error::from_raw_os_error(libc::ENOTTY),
            legacy: None,
        };
        assert_eq!(
            e.to_string(),
            "ATA commands are not supported on this device (SG_IO: Inappropriate ioctl for device)"
        );
        assert_eq!(e.class(), ErrorClass::NotApplicable);
        assert_eq!(e.errno(), libc::ENOTTY);
        let e = AtaError::Aborted {
            command: 0x2F,
            registers: AtaRegisters {
                status: 0x51,
                error: 0x04,
                ..Default::default()
            },
            via: Via::Ata16,
            sense: None,
            diag: None,
        };
        assert_eq!(
            e.to_string(),
            "ATA command 0x2f failed: status 0x51 (DRDY DSC ERR), error 0x04 (ABRT): command aborted by the drive (not supported or invalid parameter)"
        );
        assert_eq!(e.errno(), libc::EIO);
        assert_eq!(e.class(), ErrorClass::Failed);
        let sb = [
            0x70, 0, 5, 0, 0, 0, 0, 0x0a, 0, 0, 0, 0, 0x20, 0, 0, 0, 0, 0,
        ];
        let e = AtaError::NotAta {
            command: 0xEC,
            sense: sense::decode(&sb).unwrap(),
            diag: None,
        };
        assert_eq!(
            e.to_string(),
            "not an ATA device: ATA PASS-THROUGH was rejected (ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00))"
        );
    }

    #[test]
    fn hdparm_complaint_rules() {
        let st = SgIoStatus {
            status: 2,
            driver_status: DRIVER_SENSE,
            ..Default::default()
        };
        let mut sb = [0u8; SENSE_LEN];
        sb[0] = 0x70;
        sb[2] = 0x0b;
        let d = diagnostics(&st, sb, op::CHECKPOWERMODE1, false);
        let line = d.hdparm_complaint.unwrap();
        assert!(line.starts_with("SG_IO: bad/missing sense data, sb[]:  70 00 0b 00"));
        assert_eq!(line.matches(' ').count(), 5 + 32);
        // Never for IDENTIFY unless verbose.
        assert!(diagnostics(&st, sb, op::IDENTIFY, false)
            .hdparm_complaint
            .is_none());
        assert!(diagnostics(&st, sb, op::IDENTIFY, true)
            .hdparm_complaint
            .is_some());
        // Sense without DRIVER_SENSE: questionable.
        let st = SgIoStatus::default();
        assert!(diagnostics(&st, sb, op::IDENTIFY, false).hdparm_questionable);
        assert!(!diagnostics(&st, [0; SENSE_LEN], op::IDENTIFY, false).hdparm_questionable);
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
