//! SANITIZE (SBC-4 §5.24) for `--sanitize-overwrite`, `--sanitize-block-erase` and
//! `--sanitize-crypto-scramble`, its progress for `--sanitize-status` (REQUEST SENSE's
//! progress indicator), and the refusal of `--security-erase` on a SCSI disk.
//!
//! Owns: the service actions, OVERWRITE's parameter list as sg_sanitize builds it, IMMED
//! (set: the erase runs in the background, as ATA's SANITIZE always does and hdparm expects),
//! and the status words. Must not: touch a device, and never turn an erase into another one:
//! `--security-erase` is refused in one sentence, not sent as SANITIZE or FORMAT UNIT.

use super::cdb::{self, sanitize_sa};
use super::sense::{self, key, Sense};
use super::Command;

/// What to sanitize with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// `--sanitize-overwrite PATTERN` with `--sanitize-overwrite-passes` (0 means 16, as
    /// ATA's count does).
    Overwrite { pattern: u32, passes: u8 },
    /// `--sanitize-block-erase`.
    BlockErase,
    /// `--sanitize-crypto-scramble`: SCSI's CRYPTOGRAPHIC ERASE.
    CryptoErase,
    /// EXIT FAILURE MODE, after a sanitize failed.
    ExitFailureMode,
}

/// SANITIZE's timeout with IMMED set (sg_sanitize's `SHORT_TIMEOUT`), seconds.
pub const TIMEOUT_SECS: u32 = 20;

/// OVERWRITE's parameter list (SBC-4 §5.24.3, table 91): INVERT=0, TEST=0, OVERWRITE COUNT,
/// INITIALIZATION PATTERN LENGTH 4, and the pattern. The 32-bit pattern goes most
/// significant byte first, as it reads (`0x12345678` is `12 34 56 78` on the medium),
/// which is also how a pattern file for sg_sanitize holds it. With pattern 0 and one pass
/// this is `sg_sanitize --overwrite --zero`'s list, `01 00 00 04 00 00 00 00`.
pub fn overwrite_parameter_list(pattern: u32, passes: u8) -> Vec<u8> {
    let count = match passes {
        0 => 16,
        n => n.min(0x1F),
    };
    let mut list = vec![count, 0x00, 0x00, 0x04];
    list.extend(pattern.to_be_bytes());
    list
}

/// The SANITIZE command for `action`, IMMED set (sg_sanitize `--early`).
pub fn command(action: Action) -> Command {
    let (sa, params) = match action {
        Action::Overwrite { pattern, passes } => (
            sanitize_sa::OVERWRITE,
            overwrite_parameter_list(pattern, passes),
        ),
        Action::BlockErase => (sanitize_sa::BLOCK_ERASE, Vec::new()),
        Action::CryptoErase => (sanitize_sa::CRYPTOGRAPHIC_ERASE, Vec::new()),
        Action::ExitFailureMode => (sanitize_sa::EXIT_FAILURE_MODE, Vec::new()),
    };
    let mut c = cdb::sanitize(sa, true, params);
    c.timeout_secs = TIMEOUT_SECS;
    c
}

/// `--security-erase` and `--security-erase-enhanced` on a SCSI disk: ATA security is
/// password-based and no SCSI command means the same.
pub const SECURITY_ERASE_REFUSAL: &str = "ATA security erase has no SCSI form (it is password-based): to erase a SCSI disk use --sanitize-block-erase, --sanitize-crypto-scramble or --sanitize-overwrite";

/// What REQUEST SENSE says about a sanitize.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Status {
    /// No sanitize running (NO SENSE, or any answer that is not one of the below).
    Idle,
    /// NOT READY, SANITIZE IN PROGRESS (04/1Bh), with the progress out of 65536 if given.
    InProgress { progress: Option<u16> },
    /// SANITIZE COMMAND FAILED (31/03h): the disk stays in failure mode until EXIT FAILURE
    /// MODE or a successful sanitize.
    Failed,
}

/// ASC/ASCQ of a sanitize in progress and of a failed one (SPC-5 Annex F).
const IN_PROGRESS: (u8, u8) = (0x04, 0x1B);
const FAILED: (u8, u8) = (0x31, 0x03);

/// `--sanitize-status` from REQUEST SENSE's data in.
pub fn status(answer: &[u8]) -> Status {
    match sense::decode(answer) {
        Some(s) => status_of(&s),
        None => Status::Idle,
    }
}

/// The status a sense says (also for the sense of a refused command).
pub fn status_of(s: &Sense) -> Status {
    match (s.key, (s.asc, s.ascq)) {
        (key::NOT_READY, IN_PROGRESS) => Status::InProgress {
            progress: s.progress,
        },
        (_, FAILED) => Status::Failed,
        _ => Status::Idle,
    }
}

impl Status {
    /// The percentage done, for a running sanitize that says it.
    pub fn percent(&self) -> Option<u32> {
        match self {
            Status::InProgress { progress: Some(p) } => Some(u32::from(*p) * 100 / 65536),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sense::tests::fixed;
    use super::super::{hex, Direction};
    use super::*;

    #[test]
    fn overwrite_zero_is_sg_sanitizes() {
        // sg_sanitize --quick --early --overwrite --zero
        let c = command(Action::Overwrite {
            pattern: 0,
            passes: 1,
        });
        assert_eq!(hex(&c.cdb), "48 81 00 00 00 00 00 00 08 00");
        assert_eq!(hex(&c.data_out), "01 00 00 04 00 00 00 00");
        assert_eq!(c.direction, Direction::ToDevice);
        let p = overwrite_parameter_list(0x1234_5678, 0);
        assert_eq!(hex(&p), "10 00 00 04 12 34 56 78");
    }

    #[test]
    fn erases_are_sg_sanitizes() {
        // sg_sanitize --quick --early --block / --crypto
        assert_eq!(
            hex(&command(Action::BlockErase).cdb),
            "48 82 00 00 00 00 00 00 00 00"
        );
        assert_eq!(
            hex(&command(Action::CryptoErase).cdb),
            "48 83 00 00 00 00 00 00 00 00"
        );
        assert_eq!(command(Action::CryptoErase).direction, Direction::None);
        assert_eq!(
            hex(&command(Action::ExitFailureMode).cdb),
            "48 9f 00 00 00 00 00 00 00 00"
        );
    }

    #[test]
    fn status_from_request_sense() {
        assert_eq!(status(&fixed(0, 0, 0)), Status::Idle);
        let mut s = fixed(key::NOT_READY, 0x04, 0x1B);
        s[15] = 0x80;
        s[16] = 0x80;
        let st = status(&s);
        assert_eq!(
            st,
            Status::InProgress {
                progress: Some(0x8000)
            }
        );
        assert_eq!(st.percent(), Some(50));
        assert_eq!(
            status(&fixed(key::MEDIUM_ERROR, 0x31, 0x03)),
            Status::Failed
        );
        assert_eq!(status(&[]), Status::Idle);
    }

    #[test]
    fn security_erase_points_to_sanitize() {
        assert!(SECURITY_ERASE_REFUSAL.contains("--sanitize-block-erase"));
        assert!(!SECURITY_ERASE_REFUSAL.contains('\n'));
    }
}
