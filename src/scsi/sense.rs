//! Sense data as a SCSI disk returns it (SPC-5 §4.4), from a CHECK CONDITION or as REQUEST
//! SENSE's data in: the key, ASC/ASCQ, the progress indicator, and what they mean to `-C`
//! (the power condition, ASC 5Eh) and to `--sanitize-status`.
//!
//! Owns: both formats (fixed 70h/71h, descriptor 72h/73h with the sense key specific
//! descriptor 02h), and the `-C` decision. The names of keys and codes are `ata::sense`'s
//! ([`crate::ata::sense::key_name`], [`crate::ata::sense::asc_name`]); this module reads no
//! ATA registers. Must not: touch a device.

use crate::ata::sense as words;

use super::{be16, byte};

/// Decoded sense data.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Sense {
    pub descriptor: bool,
    pub deferred: bool,
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// The progress indicator (sense key specific, SKSV set, for NO SENSE and NOT READY):
    /// done so far, out of 65536.
    pub progress: Option<u16>,
}

/// Sense keys the twins look at (SPC-5 table 52).
pub use crate::ata::sense::key;

/// The sense data in `sb`; `None` when it holds none (response code not 70h-73h, as an
/// all-zero buffer after GOOD).
pub fn decode(sb: &[u8]) -> Option<Sense> {
    let code = *sb.first()? & 0x7F;
    let (descriptor, deferred) = match code {
        0x70 => (false, false),
        0x71 => (false, true),
        0x72 => (true, false),
        0x73 => (true, true),
        _ => return None,
    };
    let (key, asc, ascq, sks) = if descriptor {
        (
            byte(sb, 1) & 0x0F,
            byte(sb, 2),
            byte(sb, 3),
            descriptor_sks(sb),
        )
    } else {
        // the sense key specific bytes 15-17 count only if the additional length reaches them
        let reach = 8 + usize::from(byte(sb, 7));
        let sks = (reach >= 18 && sb.len() >= 18).then(|| [sb[15], sb[16], sb[17]]);
        (byte(sb, 2) & 0x0F, byte(sb, 12), byte(sb, 13), sks)
    };
    let progress = sks
        .filter(|s| s[0] & 0x80 != 0 && matches!(key, key::NO_SENSE | key::NOT_READY))
        .map(|s| be16(&s, 1));
    Some(Sense {
        descriptor,
        deferred,
        key,
        asc,
        ascq,
        progress,
    })
}

/// The sense key specific descriptor (type 02h, SPC-5 §4.4.2.3): its 3 bytes.
fn descriptor_sks(sb: &[u8]) -> Option<[u8; 3]> {
    let end = (8 + usize::from(byte(sb, 7))).min(sb.len());
    let mut at = 8;
    while at + 2 <= end {
        let len = usize::from(sb[at + 1]);
        if sb[at] == 0x02 && len >= 6 && at + 7 <= end {
            return Some([sb[at + 4], sb[at + 5], sb[at + 6]]);
        }
        at += 2 + len;
    }
    None
}

impl Sense {
    /// One line for users: `ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ
    /// 20/00)`, worded as for the ATA path's sense.
    pub fn describe(&self) -> String {
        let asc = match words::asc_name(self.asc, self.ascq).or(power_asc_name(self.asc, self.ascq))
        {
            Some(s) => s.to_string(),
            None => format!(
                "additional sense code 0x{:02x}/0x{:02x}",
                self.asc, self.ascq
            ),
        };
        format!(
            "{}: {asc} (ASC/ASCQ {:02x}/{:02x})",
            words::key_name(self.key),
            self.asc,
            self.ascq
        )
    }

    /// The progress as a fraction of 1.
    pub fn progress_fraction(&self) -> Option<f64> {
        self.progress.map(|p| f64::from(p) / 65536.0)
    }

    /// A UNIT ATTENTION: the disk reports an event (a MODE SELECT, a reset, new microcode)
    /// and the command was not done; sending it again normally works.
    pub fn is_unit_attention(&self) -> bool {
        self.key == key::UNIT_ATTENTION
    }
}

/// ASC 5Eh (SPC-5 Annex F), the power conditions REQUEST SENSE reports.
fn power_asc_name(asc: u8, ascq: u8) -> Option<&'static str> {
    if asc != 0x5E {
        return None;
    }
    Some(match ascq {
        0x00 => "low power condition on",
        0x01 => "idle condition activated by timer",
        0x02 => "standby condition activated by timer",
        0x03 => "idle condition activated by command",
        0x04 => "standby condition activated by command",
        0x05 => "idle_b condition activated by timer",
        0x06 => "idle_b condition activated by command",
        0x07 => "idle_c condition activated by timer",
        0x08 => "idle_c condition activated by command",
        0x09 => "standby_y condition activated by timer",
        0x0A => "standby_y condition activated by command",
        0x41 => "power state change to active",
        0x42 => "power state change to idle",
        0x43 => "power state change to standby",
        0x45 => "power state change to sleep",
        0x47 => "power state change to device control",
        _ => return None,
    })
}

/// hdparm's `-C` states, in its words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerState {
    ActiveIdle,
    Idle,
    Standby,
    Unknown,
}

impl PowerState {
    /// What follows ` drive state is:  `.
    pub fn word(self) -> &'static str {
        match self {
            PowerState::ActiveIdle => "active/idle",
            PowerState::Idle => "idle",
            PowerState::Standby => "standby",
            PowerState::Unknown => "unknown",
        }
    }
}

/// What one REQUEST SENSE says about the power condition.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PowerReading {
    State(PowerState),
    /// The answer is the sense of an earlier command, not a condition (QEMU's scsi-hd keeps
    /// the last CHECK CONDITION's sense and returns it once: after a refused ATA
    /// PASS-THROUGH the first REQUEST SENSE says ILLEGAL REQUEST 20/00), or a UNIT
    /// ATTENTION: ask once more, and take [`PowerState::Unknown`] if the second says so too.
    AskAgain,
}

/// `-C` from REQUEST SENSE's data in (`None` when the command itself failed: "unknown").
/// NO SENSE is active/idle, unless ASC 5Eh names an idle or standby condition; NOT READY,
/// INITIALIZING COMMAND REQUIRED (04/02, a stopped disk, which `-Y` leaves) is standby.
pub fn power_state(answer: Option<&[u8]>) -> PowerReading {
    let Some(s) = answer.and_then(decode) else {
        return PowerReading::State(PowerState::Unknown);
    };
    let state = match (s.key, s.asc, s.ascq) {
        (key::NO_SENSE, 0x5E, 0x01 | 0x03 | 0x05..=0x08 | 0x42) => PowerState::Idle,
        (key::NO_SENSE, 0x5E, 0x02 | 0x04 | 0x09 | 0x0A | 0x43) => PowerState::Standby,
        (key::NO_SENSE, 0x5E, 0x41) => PowerState::ActiveIdle,
        (key::NO_SENSE, 0x5E, _) => PowerState::Unknown,
        (key::NO_SENSE, _, _) => PowerState::ActiveIdle,
        (key::NOT_READY, 0x04, 0x02) => PowerState::Standby,
        (key::NOT_READY, _, _) => PowerState::Unknown,
        _ => return PowerReading::AskAgain,
    };
    PowerReading::State(state)
}

/// `-C` from up to two REQUEST SENSE answers (the second only when the first said
/// [`PowerReading::AskAgain`]).
pub fn power_state_of(first: Option<&[u8]>, second: Option<&[u8]>) -> PowerState {
    match power_state(first) {
        PowerReading::State(s) => s,
        PowerReading::AskAgain => match power_state(second) {
            PowerReading::State(s) => s,
            PowerReading::AskAgain => PowerState::Unknown,
        },
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Fixed-format sense, 18 bytes.
    pub(crate) fn fixed(key: u8, asc: u8, ascq: u8) -> Vec<u8> {
        let mut s = vec![0u8; 18];
        s[0] = 0x70;
        s[2] = key;
        s[7] = 10;
        s[12] = asc;
        s[13] = ascq;
        s
    }

    #[test]
    fn fixed_and_descriptor() {
        let s = decode(&fixed(5, 0x20, 0)).unwrap();
        assert_eq!((s.key, s.asc, s.ascq, s.descriptor), (5, 0x20, 0, false));
        assert_eq!(
            s.describe(),
            "ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00)"
        );
        // descriptor format, NOT READY sanitize in progress 04/1B, 25% done
        let d = [
            0x72, 0x02, 0x04, 0x1B, 0, 0, 0, 8, 0x02, 0x06, 0, 0, 0x80, 0x40, 0x00, 0,
        ];
        let s = decode(&d).unwrap();
        assert_eq!((s.key, s.asc, s.ascq, s.descriptor), (2, 0x04, 0x1B, true));
        assert_eq!(s.progress, Some(0x4000));
        assert_eq!(s.progress_fraction(), Some(0.25));
        assert_eq!(decode(&[0; 18]), None);
        assert_eq!(decode(&[]), None);
        assert_eq!(decode(&[0x70]).unwrap().key, 0);
    }

    #[test]
    fn fixed_progress_needs_sksv() {
        let mut s = fixed(key::NOT_READY, 0x04, 0x04);
        s[16] = 0x80;
        assert_eq!(decode(&s).unwrap().progress, None);
        s[15] = 0x80;
        assert_eq!(decode(&s).unwrap().progress, Some(0x8000));
        // ILLEGAL REQUEST's sense key specific bytes are a field pointer, not progress
        let mut f = fixed(key::ILLEGAL_REQUEST, 0x24, 0);
        f[15] = 0xC0;
        f[17] = 4;
        assert_eq!(decode(&f).unwrap().progress, None);
    }

    #[test]
    fn power_conditions() {
        let st = |k, a, q| power_state_of(Some(&fixed(k, a, q)), None);
        assert_eq!(st(0, 0, 0), PowerState::ActiveIdle);
        assert_eq!(st(0, 0x5E, 0x02), PowerState::Standby);
        assert_eq!(st(0, 0x5E, 0x04), PowerState::Standby);
        assert_eq!(st(0, 0x5E, 0x01), PowerState::Idle);
        assert_eq!(st(0, 0x5E, 0x07), PowerState::Idle);
        assert_eq!(st(0, 0x5E, 0x00), PowerState::Unknown);
        // scsi_debug after sg_start --stop
        assert_eq!(st(2, 0x04, 0x02), PowerState::Standby);
        assert_eq!(power_state(None), PowerReading::State(PowerState::Unknown));
        assert_eq!(PowerState::ActiveIdle.word(), "active/idle");
        assert_eq!(
            decode(&fixed(0, 0x5E, 0x04)).unwrap().describe(),
            "NO SENSE: standby condition activated by command (ASC/ASCQ 5e/04)"
        );
    }

    #[test]
    fn stale_sense_is_asked_again() {
        // QEMU: the refused pass-through's sense comes back first, then NO SENSE
        let stale = fixed(5, 0x20, 0);
        assert_eq!(power_state(Some(&stale)), PowerReading::AskAgain);
        assert_eq!(
            power_state_of(Some(&stale), Some(&fixed(0, 0, 0))),
            PowerState::ActiveIdle
        );
        assert_eq!(
            power_state_of(Some(&stale), Some(&stale)),
            PowerState::Unknown
        );
        assert_eq!(power_state_of(Some(&stale), None), PowerState::Unknown);
    }
}
