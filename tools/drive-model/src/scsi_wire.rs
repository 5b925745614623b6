//! The SCSI wire both of the model's SCSI faces speak (`scsi`, the SATA disk behind a SATL, and
//! `scsi_disk`, the SAS disk): a command's answer ([`Outcome`]: status, data in, sense) with
//! the builders of the common ones, and the readers of a CDB's big-endian fields.
//! Below both, so that neither needs the other's file for them.
//!
//! Must not: answer a command (that is `scsi` and `scsi_disk`).

use crate::ata::{Request, Response};
use crate::state::FaultKind;

/// SCSI status GOOD (SAM-5).
pub const GOOD: u8 = 0x00;
/// SCSI status CHECK CONDITION: the sense data says why.
pub const CHECK_CONDITION: u8 = 0x02;

/// One command's answer, and what the daemon logs and does about it.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    pub status: u8,
    pub data_in: Vec<u8>,
    pub sense: Vec<u8>,
    /// The pass-through command, for the command log.
    pub ata: Option<(Request, Response)>,
    /// Seconds to wait before answering (fault injection: a time-out for the tool).
    pub delay_s: u64,
    /// The state changed (save it).
    pub dirty: bool,
    /// The injected fault that hit this command, if any (logged; `Unplug` removes the LUN).
    pub fault: Option<FaultKind>,
}

/// Fixed-format sense data (SPC-5), 18 bytes, current error.
pub(crate) fn fixed_sense(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
    let mut s = vec![0u8; 18];
    s[0] = 0x70;
    s[2] = key;
    s[7] = 10;
    s[12] = asc;
    s[13] = ascq;
    s
}

/// CHECK CONDITION with fixed-format sense.
pub(crate) fn check(key: u8, asc: u8, ascq: u8) -> Outcome {
    Outcome {
        status: CHECK_CONDITION,
        sense: fixed_sense(key, asc, ascq),
        ..Default::default()
    }
}

/// GOOD with `data` as the data in.
pub(crate) fn good(data: Vec<u8>) -> Outcome {
    Outcome {
        status: GOOD,
        data_in: data,
        ..Default::default()
    }
}

/// A CDB's big-endian fields: 2, 4 and 8 bytes from the start of `b`.
pub(crate) fn be16(b: &[u8]) -> u64 {
    u64::from(u16::from_be_bytes([b[0], b[1]]))
}
pub(crate) fn be32(b: &[u8]) -> u64 {
    u64::from(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
}
pub(crate) fn be64(b: &[u8]) -> u64 {
    u64::from_be_bytes([b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]])
}
