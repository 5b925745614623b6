//! The log pages hdparm's jobs read: SMART / Health Information (02h, 512 bytes; `-H`) and
//! Sanitize Status (81h, 512 bytes; `--sanitize-status`), NVMe Base 2.0 Figures 207 and 291.
//!
//! Must not: print, or panic on a short page (it reads as zeros).

use super::{le_u128, le_u16, le_u32};
use serde::Serialize;

/// Both log pages are 512 bytes.
pub const LOG_BYTES: usize = 512;

/// 0 °C in kelvin, as NVMe reports temperatures.
pub const KELVIN_OFFSET: i32 = 273;

/// The SMART / Health Information fields `-H` reports (nvme-cli's `smart-log` names).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SmartLog {
    pub critical_warning: u8,
    /// Composite temperature, kelvin.
    pub temperature: u16,
    pub avail_spare: u8,
    pub spare_thresh: u8,
    pub percent_used: u8,
    pub data_units_read: u128,
    pub data_units_written: u128,
    pub host_read_commands: u128,
    pub host_write_commands: u128,
    pub controller_busy_time: u128,
    pub power_cycles: u128,
    pub power_on_hours: u128,
    pub unsafe_shutdowns: u128,
    pub media_errors: u128,
    pub num_err_log_entries: u128,
    pub warning_temp_time: u32,
    pub critical_comp_time: u32,
}

impl SmartLog {
    pub fn decode(b: &[u8]) -> SmartLog {
        let at = |i: usize| b.get(i).copied().unwrap_or(0);
        SmartLog {
            critical_warning: at(0),
            temperature: le_u16(b, 1),
            avail_spare: at(3),
            spare_thresh: at(4),
            percent_used: at(5),
            data_units_read: le_u128(b, 32),
            data_units_written: le_u128(b, 48),
            host_read_commands: le_u128(b, 64),
            host_write_commands: le_u128(b, 80),
            controller_busy_time: le_u128(b, 96),
            power_cycles: le_u128(b, 112),
            power_on_hours: le_u128(b, 128),
            unsafe_shutdowns: le_u128(b, 144),
            media_errors: le_u128(b, 160),
            num_err_log_entries: le_u128(b, 176),
            warning_temp_time: le_u32(b, 192),
            critical_comp_time: le_u32(b, 196),
        }
    }

    /// The composite temperature in °C (None when the controller reports 0 K: not
    /// implemented).
    pub fn celsius(&self) -> Option<i32> {
        (self.temperature != 0).then(|| i32::from(self.temperature) - KELVIN_OFFSET)
    }

    /// The critical warning bits in words, in the order of their bits.
    pub fn warnings(&self) -> Vec<&'static str> {
        const NAMES: [&str; 6] = [
            "available spare below threshold",
            "temperature outside a threshold",
            "NVM subsystem reliability degraded",
            "media in read-only mode",
            "volatile memory backup device failed",
            "persistent memory region read-only or unreliable",
        ];
        NAMES
            .iter()
            .enumerate()
            .filter(|(i, _)| self.critical_warning & (1 << i) != 0)
            .map(|(_, n)| *n)
            .collect()
    }
}

/// The Sanitize Status log's fields (nvme-cli's `sanitize-log` names).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SanitizeStatus {
    /// Progress: the fraction done is `sprog / 65536`.
    pub sprog: u16,
    pub sstat: u16,
    pub scdw10: u32,
    /// Estimated times, seconds (FFFFFFFFh: no estimate).
    pub eto: u32,
    pub etbe: u32,
    pub etce: u32,
}

/// What the last (or current) sanitize operation did (SSTAT bits 2:0).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SanitizeState {
    NeverSanitized,
    Completed,
    InProgress,
    Failed,
    CompletedNoDeallocate,
    Reserved,
}

impl SanitizeStatus {
    pub fn decode(b: &[u8]) -> SanitizeStatus {
        SanitizeStatus {
            sprog: le_u16(b, 0),
            sstat: le_u16(b, 2),
            scdw10: le_u32(b, 4),
            eto: le_u32(b, 8),
            etbe: le_u32(b, 12),
            etce: le_u32(b, 16),
        }
    }

    pub fn state(&self) -> SanitizeState {
        match self.sstat & 0x7 {
            0 => SanitizeState::NeverSanitized,
            1 => SanitizeState::Completed,
            2 => SanitizeState::InProgress,
            3 => SanitizeState::Failed,
            4 => SanitizeState::CompletedNoDeallocate,
            _ => SanitizeState::Reserved,
        }
    }

    /// Progress in percent, as hdparm prints the ATA sanitize progress.
    pub fn percent(&self) -> f64 {
        f64::from(self.sprog) * 100.0 / 65536.0
    }

    /// The state in words.
    pub fn state_text(&self) -> &'static str {
        match self.state() {
            SanitizeState::NeverSanitized => "never sanitized",
            SanitizeState::Completed => "last sanitize operation completed successfully",
            SanitizeState::InProgress => "sanitize operation in progress",
            SanitizeState::Failed => "last sanitize operation failed",
            SanitizeState::CompletedNoDeallocate => {
                "last sanitize operation completed, without deallocation"
            }
            SanitizeState::Reserved => "reserved state",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smart_fields_at_their_offsets() {
        let mut b = [0u8; LOG_BYTES];
        b[0] = 0b10010;
        b[1..3].copy_from_slice(&323u16.to_le_bytes());
        b[3] = 100;
        b[4] = 10;
        b[5] = 3;
        b[32] = 7;
        b[48 + 8] = 1;
        b[112] = 5;
        b[128..130].copy_from_slice(&1000u16.to_le_bytes());
        b[192..196].copy_from_slice(&9u32.to_le_bytes());
        b[196..200].copy_from_slice(&2u32.to_le_bytes());
        let s = SmartLog::decode(&b);
        assert_eq!(s.temperature, 323);
        assert_eq!(s.celsius(), Some(50));
        assert_eq!(
            (s.avail_spare, s.spare_thresh, s.percent_used),
            (100, 10, 3)
        );
        assert_eq!(s.data_units_read, 7);
        assert_eq!(s.data_units_written, 1u128 << 64);
        assert_eq!((s.power_cycles, s.power_on_hours), (5, 1000));
        assert_eq!((s.warning_temp_time, s.critical_comp_time), (9, 2));
        assert_eq!(
            s.warnings(),
            vec![
                "temperature outside a threshold",
                "volatile memory backup device failed"
            ]
        );
        assert_eq!(SmartLog::decode(&[]).celsius(), None);
    }

    #[test]
    fn sanitize_status_fields() {
        let mut b = [0u8; LOG_BYTES];
        b[0..2].copy_from_slice(&0x8000u16.to_le_bytes());
        b[2..4].copy_from_slice(&0x0102u16.to_le_bytes());
        b[4..8].copy_from_slice(&4u32.to_le_bytes());
        b[8..12].copy_from_slice(&u32::MAX.to_le_bytes());
        b[16..20].copy_from_slice(&30u32.to_le_bytes());
        let s = SanitizeStatus::decode(&b);
        assert_eq!(s.state(), SanitizeState::InProgress);
        assert!((s.percent() - 50.0).abs() < 1e-9);
        assert_eq!((s.scdw10, s.eto, s.etce), (4, u32::MAX, 30));
        assert_eq!(
            SanitizeStatus::decode(&[]).state(),
            SanitizeState::NeverSanitized
        );
    }
}

/// The Firmware Slot Information log (03h): the active slot, the slot activated at the next
/// reset, and each slot's revision (empty: no image).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FirmwareSlots {
    pub active_slot: u8,
    /// 0: not set.
    pub next_reset_slot: u8,
    #[serde(serialize_with = "revisions")]
    #[schemars(with = "Vec<String>")]
    pub revisions: Vec<Vec<u8>>,
}

fn revisions<S: serde::Serializer>(r: &[Vec<u8>], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeSeq;
    let mut seq = s.serialize_seq(Some(r.len()))?;
    for rev in r {
        seq.serialize_element(&String::from_utf8_lossy(rev))?;
    }
    seq.end()
}

pub const LOG_FIRMWARE_SLOT: u8 = 0x03;

impl FirmwareSlots {
    /// `slots` is FRMW's slot count (1..=7).
    pub fn decode(b: &[u8], slots: u8) -> FirmwareSlots {
        let afi = b.first().copied().unwrap_or(0);
        FirmwareSlots {
            active_slot: afi & 0x7,
            next_reset_slot: (afi >> 4) & 0x7,
            revisions: (0..usize::from(slots.clamp(1, 7)))
                .map(|i| super::ascii_field(b, 8 + 8 * i, 8))
                .collect(),
        }
    }
}

#[cfg(test)]
mod slot_tests {
    use super::*;

    #[test]
    fn firmware_slots() {
        let mut b = [0u8; LOG_BYTES];
        b[0] = 0x21;
        b[8..16].copy_from_slice(b"1.0     ");
        b[16..24].copy_from_slice(b"2.0\0\0\0\0\0");
        let s = FirmwareSlots::decode(&b, 3);
        assert_eq!((s.active_slot, s.next_reset_slot), (1, 2));
        assert_eq!(
            s.revisions,
            vec![b"1.0".to_vec(), b"2.0".to_vec(), Vec::new()]
        );
    }
}
