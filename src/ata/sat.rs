//! What an ATA command sent through SAT (ATA PASS-THROUGH over SG_IO, SAT-4 §12) or through
//! the legacy HDIO ioctls came back as: the result and error types of the ATA transport, and
//! the pure decisions that turn SCSI status and sense data into them.
//!
//! Owns: [`Via`], [`AtaResult`], [`AtaError`] and its sentences; [`SatOutcome`], the reading
//! of one completed SG_IO call ([`outcome_from_sense`]) and the verdict on it ([`finish`]);
//! hdparm's own diagnostics of the sense buffer ([`diagnostics`], [`SgDiagnostics`]); the
//! hex lines of hdparm's `--verbose` dumps. Building the CDB from a [`TaskFile`] is
//! [`TaskFile::cdb`]; decoding the sense formats is [`super::sense`].
//!
//! Must not: touch a device or print. `device::ata` sends the command and hands the status and
//! sense bytes it got back to this file.
//!
//! Differences from hdparm on purpose: a target that answers ATA PASS-THROUGH with
//! fixed-format sense is read correctly (hdparm reads garbage and often reports success), and a
//! target that rejects pass-through is reported as [`AtaError::NotAta`] instead of yielding
//! all-zero data.

use std::fmt;
use std::io;

#[cfg(doc)]
use super::command::TaskFile;
use super::command::{op, AtaRegisters, Cdb};
use super::sense::{self, key, FixedLayout, Sense};
use crate::error::{strerror, ErrorClass};

/// Size of the sense buffer hdparm gives SG_IO (and dumps).
pub const SENSE_LEN: usize = 32;

/// SCSI status CHECK CONDITION (SAM-5 table 43).
pub const SAM_STAT_CHECK_CONDITION: u8 = 0x02;
/// `driver_status` DRIVER_SENSE: sense data was written (scsi/sg.h, the low nibble).
pub const DRIVER_SENSE: u16 = 0x08;

/// The status words of a completed SG_IO call, as the kernel reported them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScsiStatus {
    /// SCSI status byte (0 GOOD, 2 CHECK CONDITION, ...).
    pub status: u8,
    pub host_status: u16,
    pub driver_status: u16,
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

impl SenseReading {
    /// libata's layout, registers not demanded (a data command).
    pub fn default_libata() -> SenseReading {
        SenseReading {
            layout: FixedLayout::Libata,
            wants_registers: false,
        }
    }
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
    /// The kernel gave up on the command: it timed out, a reset ended it, or the device is
    /// gone (a host status of [`Lost::of_host_status`]). No legacy ioctl is tried after it.
    Lost {
        command: u8,
        lost: Lost,
        /// The host status, as the kernel gave it.
        host_status: u16,
    },
}

/// How a command ended when its drive cannot be trusted with another one in this run: it did
/// not answer in time, it was reset in the middle, or it is gone. The drive's state is then
/// not known (an erase may still run, a setting may have been dropped), so nothing more is
/// sent to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Lost {
    TimedOut,
    Reset,
    Gone,
}

impl Lost {
    /// The host status (`host_byte`, include/scsi/scsi_status.h) of a command the kernel gave
    /// up on: DID_TIME_OUT and DID_ABORT (the time-out's abort) a time-out, DID_RESET a reset,
    /// DID_NO_CONNECT, DID_BAD_TARGET, DID_TRANSPORT_DISRUPTED and DID_TRANSPORT_FAILFAST a
    /// device gone. Other host statuses (busy, a soft error) keep hdparm's legacy fallback.
    pub fn of_host_status(host_status: u16) -> Option<Lost> {
        match host_status {
            0x03 | 0x05 => Some(Lost::TimedOut),
            0x08 => Some(Lost::Reset),
            0x01 | 0x04 | 0x0E | 0x0F => Some(Lost::Gone),
            _ => None,
        }
    }

    /// The sense of a command the target did not carry out for the same reasons (SPC-5):
    /// LOGICAL UNIT COMMUNICATION FAILURE, TIME-OUT or PARITY ERROR (08/xx) and TIMEOUT ON
    /// LOGICAL UNIT (3E/02), what a translator answers when its drive does not; POWER ON,
    /// RESET, OR BUS DEVICE RESET OCCURRED (29/xx), a UNIT ATTENTION instead of the command;
    /// LOGICAL UNIT NOT SUPPORTED (25/00), a target without the drive.
    pub fn of_sense(s: &Sense) -> Option<Lost> {
        match (s.key, s.asc, s.ascq) {
            (_, 0x08, _) | (_, 0x3E, 0x02) => Some(Lost::TimedOut),
            (key::UNIT_ATTENTION, 0x29, _) => Some(Lost::Reset),
            (key::ILLEGAL_REQUEST, 0x25, 0x00) => Some(Lost::Gone),
            _ => None,
        }
    }

    /// The exit-status class: a device gone is one that cannot be opened any more; the others
    /// are failed commands.
    pub fn class(self) -> ErrorClass {
        match self {
            Lost::Gone => ErrorClass::CannotOpen,
            Lost::TimedOut | Lost::Reset => ErrorClass::Failed,
        }
    }
}

impl AtaError {
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
            AtaError::Lost { lost, .. } => match lost {
                Lost::TimedOut => libc::ETIMEDOUT,
                Lost::Reset => libc::EIO,
                Lost::Gone => libc::ENODEV,
            },
        }
    }

    /// Whether the command ended so that nothing more may be sent to the drive (see [`Lost`]).
    pub fn lost(&self) -> Option<Lost> {
        match self {
            AtaError::Lost { lost, .. } => Some(*lost),
            AtaError::Refused { sense, .. } => Lost::of_sense(sense),
            _ => None,
        }
    }

    /// [`AtaError::errno`] as an `io::Error`, for `perror`-style lines.
    pub fn io_error(&self) -> io::Error {
        io::Error::from_raw_os_error(self.errno())
    }

    /// The exit-status class: not applicable for a device without ATA, cannot_open for one
    /// that is gone, failed otherwise.
    pub fn class(&self) -> ErrorClass {
        match self {
            AtaError::Unsupported { .. } | AtaError::NotAta { .. } => ErrorClass::NotApplicable,
            _ => self.lost().map_or(ErrorClass::Failed, Lost::class),
        }
    }

    /// The registers, for a command the drive failed.
    pub fn registers(&self) -> Option<&AtaRegisters> {
        match self {
            AtaError::Aborted { registers, .. } => Some(registers),
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
            AtaError::Lost {
                command,
                lost,
                host_status,
            } => {
                let what = match lost {
                    Lost::TimedOut => "timed out: the drive did not answer in time",
                    Lost::Reset => "was ended by a reset",
                    Lost::Gone => "failed: the device is gone",
                };
                write!(
                    f,
                    "ATA command 0x{command:02x} {what} (SG_IO host status 0x{host_status:x})"
                )
            }
        }
    }
}

impl std::error::Error for AtaError {}

/// The outcome of one SG_IO attempt, before policy.
pub enum SatOutcome {
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

/// How to read the sense of one command: the fixed-format layout of its transport, and
/// whether the CDB asked for the result registers (CK_COND, every non-data command).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SenseReading {
    pub layout: FixedLayout,
    pub wants_registers: bool,
}

/// What a completed SG_IO call (GOOD or CHECK CONDITION, host and driver status fine) means:
/// registers when the sense carries them, success without them for GOOD or informational
/// sense of a command that did not ask for them, a refusal otherwise. Informational sense
/// without readable registers for a command that asked for them is hdparm's "bad/missing sense
/// data": the answer is unknown, and is not made up from zeros.
pub fn outcome_from_sense(
    scsi_status: u8,
    sb: &[u8; SENSE_LEN],
    command: u8,
    diag: SgDiagnostics,
    reading: SenseReading,
) -> SatOutcome {
    match sense::decode_as(sb, reading.layout) {
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
            None if reading.wants_registers
                && (s.key == key::NO_SENSE || s.key == key::RECOVERED_ERROR) =>
            {
                SatOutcome::Failed(AtaError::Transport {
                    command,
                    detail: dump_line("SG_IO: bad/missing sense data, sb[]", sb),
                    errno: libc::EIO,
                })
            }
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
pub fn finish(
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

/// How a CDB of this size reached the drive.
pub fn via_of(cdb: &Cdb) -> Via {
    match cdb {
        Cdb::Ata16(_) => Via::Ata16,
        Cdb::Ata12(_) => Via::Ata12,
    }
}

/// Adds the legacy ioctl's failure to the SG_IO error it was meant to work around.
pub fn with_legacy_error(sg_error: AtaError, via: Via, e: io::Error) -> AtaError {
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
pub fn diagnostics(
    st: &ScsiStatus,
    sb: [u8; SENSE_LEN],
    command: u8,
    verbose: bool,
) -> SgDiagnostics {
    let mut complaint = None;
    let mut questionable = false;
    if st.driver_status != DRIVER_SENSE {
        questionable = sb[..10].iter().any(|&b| b != 0);
    } else if !sense::hdparm_accepts(&sb) && (command != op::IDENTIFY || verbose) {
        complaint = Some(dump_line("SG_IO: bad/missing sense data, sb[]", &sb));
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

/// The error for a bad SCSI, host or driver status (hdparm turns these into EBADE and then
/// tries the legacy ioctl): `what` names the field, `value` is its value. A host status that
/// says the kernel gave up on the command is [`AtaError::Lost`]: a legacy ioctl would send the
/// command to the drive again (libata carries HDIO_DRIVE_CMD), which is not done after it.
pub fn bad_status(command: u8, st: &ScsiStatus, what: &str, value: u32) -> AtaError {
    if let Some(lost) = Lost::of_host_status(st.host_status) {
        return AtaError::Lost {
            command,
            lost,
            host_status: st.host_status,
        };
    }
    AtaError::Transport {
        command,
        detail: format!(
            "SG_IO: bad {what} 0x{value:x} (SCSI status 0x{:x}, host status 0x{:x}, driver status 0x{:x})",
            st.status, st.host_status, st.driver_status
        ),
        errno: libc::EBADE,
    }
}

/// One line of hdparm's `--verbose` hex dumps, without the newline: `prefix: ` then ` %02x`
/// per byte (so two spaces before the first byte).
pub fn dump_line(prefix: &str, bytes: &[u8]) -> String {
    let mut line = format!("{prefix}: ");
    for b in bytes {
        line.push_str(&format!(" {b:02x}"));
    }
    line
}

/// The register line hdparm's `--verbose` prints after the descriptor dump, without the
/// newline (`cdb_len` is 12 or 16).
pub fn registers_line(cdb_len: usize, r: &AtaRegisters) -> String {
    format!(
        "      ATA_{} stat={:02x} err={:02x} nsect={:02x} lbal={:02x} lbam={:02x} lbah={:02x} dev={:02x}",
        cdb_len,
        r.status,
        r.error,
        r.count as u8,
        r.lba as u8,
        (r.lba >> 8) as u8,
        (r.lba >> 16) as u8,
        r.device
    )
}

#[cfg(test)]
mod tests {
    use super::*;

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
        verdict_as(
            SenseReading::default_libata(),
            status,
            sense,
            command,
            is_cdrom,
        )
    }

    fn verdict_as(
        reading: SenseReading,
        status: u8,
        sense: &str,
        command: u8,
        is_cdrom: bool,
    ) -> Result<AtaResult, AtaError> {
        let st = ScsiStatus {
            status,
            driver_status: if status == 2 { DRIVER_SENSE } else { 0 },
            ..Default::default()
        };
        let b = sb(sense);
        let diag = diagnostics(&st, b, command, false);
        finish(
            outcome_from_sense(status, &b, command, diag, reading),
            command,
            Via::Ata16,
            is_cdrom,
        )
    }

    /// CHECK POWER MODE answered in SAT's standard fixed format (count 0xff: active/idle), as a
    /// USB bridge or a software target writes it.
    const SAT_FIXED_CK_COND: &str =
        "70 00 01 00 50 40 ff 0a 00 00 00 00 00 1d 00 00 00 00 00 00 00 00 00 00";

    #[test]
    fn sat_fixed_sense_is_read_on_a_sat_transport() {
        let reading = SenseReading {
            layout: FixedLayout::Sat,
            wants_registers: true,
        };
        let r = verdict_as(reading, 2, SAT_FIXED_CK_COND, op::CHECKPOWERMODE1, false).unwrap();
        let regs = r.registers.unwrap();
        assert_eq!((regs.count, regs.status), (0xff, 0x50));
    }

    #[test]
    fn unreadable_registers_are_bad_sense_not_a_zero_answer() {
        // The same bytes read as libata's layout carry no registers: hdparm's "bad/missing
        // sense data", an error, rather than count 0 ("standby").
        let reading = SenseReading {
            layout: FixedLayout::Libata,
            wants_registers: true,
        };
        let e = verdict_as(reading, 2, SAT_FIXED_CK_COND, op::CHECKPOWERMODE1, false).unwrap_err();
        assert_eq!(e.errno(), libc::EIO);
        assert!(
            e.to_string()
                .contains("SG_IO: bad/missing sense data, sb[]:  70 00 01 00 50 40 ff 0a"),
            "{e}"
        );
        // A data command that did not ask for registers still succeeds.
        let reading = SenseReading {
            wants_registers: false,
            ..reading
        };
        assert!(verdict_as(reading, 2, SAT_FIXED_CK_COND, op::IDENTIFY, false).is_ok());
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
        let AtaError::Aborted {
            diag: Some(diag), ..
        } = &e
        else {
            panic!("{e:?}")
        };
        assert!(diag.hdparm_complaint.is_some());
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
    fn a_command_the_kernel_gave_up_on_loses_the_drive_and_gets_no_legacy_retry() {
        for (host, lost, class, errno) in [
            (0x03, Lost::TimedOut, ErrorClass::Failed, libc::ETIMEDOUT),
            (0x08, Lost::Reset, ErrorClass::Failed, libc::EIO),
            (0x01, Lost::Gone, ErrorClass::CannotOpen, libc::ENODEV),
        ] {
            let st = ScsiStatus {
                host_status: host,
                ..Default::default()
            };
            let e = bad_status(0xF4, &st, "host status", host.into());
            assert_eq!(e.lost(), Some(lost), "{e}");
            assert_eq!((e.class(), e.errno()), (class, errno), "{e}");
        }
        // a busy bus is no reason to stop: hdparm's fallback as before
        let st = ScsiStatus {
            host_status: 0x02,
            ..Default::default()
        };
        let e = bad_status(0xF4, &st, "host status", 2);
        assert!(matches!(e, AtaError::Transport { .. }) && e.lost().is_none());
        assert_eq!(
            AtaError::Lost {
                command: 0xb4,
                lost: Lost::TimedOut,
                host_status: 3
            }
            .to_string(),
            "ATA command 0xb4 timed out: the drive did not answer in time (SG_IO host status 0x3)"
        );
    }

    #[test]
    fn a_target_that_reports_a_time_out_a_reset_or_no_drive_loses_it() {
        for (sense, lost) in [
            ("72 0b 08 01", Some(Lost::TimedOut)),
            (
                "70 00 0b 00 00 00 00 0a 00 00 00 00 08 01",
                Some(Lost::TimedOut),
            ),
            ("72 06 29 00", Some(Lost::Reset)),
            ("72 05 25 00", Some(Lost::Gone)),
            ("72 05 24 00", None),
            ("72 02 04 00", None),
        ] {
            let e = verdict(2, sense, 0xF4, false).unwrap_err();
            assert_eq!(e.lost(), lost, "{sense}: {e}");
        }
        let e = verdict(2, "72 05 25 00", 0xF4, false).unwrap_err();
        assert_eq!(e.class(), ErrorClass::CannotOpen);
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
        let st = ScsiStatus {
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
        let st = ScsiStatus::default();
        assert!(diagnostics(&st, sb, op::IDENTIFY, false).hdparm_questionable);
        assert!(!diagnostics(&st, [0; SENSE_LEN], op::IDENTIFY, false).hdparm_questionable);
    }
}
