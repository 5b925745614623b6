//! Get/Set Features values for the features hdparm's jobs map to (NVMe Base 2.0 §5.27.1):
//! Power Management (02h, `-C`), Temperature Threshold (04h, `-H`), Volatile Write Cache (06h,
//! `-W`) and Autonomous Power State Transition (0Ch, `-C`, `-B`, `-S`).
//!
//! Must not: send anything.

use super::le_u64;

pub const FID_POWER_MANAGEMENT: u8 = 0x02;
pub const FID_TEMPERATURE_THRESHOLD: u8 = 0x04;
pub const FID_VOLATILE_WRITE_CACHE: u8 = 0x06;
pub const FID_APST: u8 = 0x0C;

/// The APST data structure: 32 entries of 8 bytes.
pub const APST_BYTES: usize = 256;

/// Power Management's value: the power state (4:0) and workload hint (7:5).
pub fn power_state(dw0: u32) -> u8 {
    (dw0 & 0x1F) as u8
}

/// Volatile Write Cache's value: WCE (bit 0).
pub fn write_cache_enabled(dw0: u32) -> bool {
    dw0 & 1 != 0
}

/// APST's value: APSTE (bit 0).
pub fn apst_enabled(dw0: u32) -> bool {
    dw0 & 1 != 0
}

/// One APST table entry: after `idle_ms` of idleness in this state, go to `target`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ApstEntry {
    pub target: u8,
    pub idle_ms: u32,
}

/// The APST table: one entry per power state, bits 7:3 ITPS, 31:8 ITPT (ms). An entry with
/// ITPT 0 makes no transition.
pub fn decode_apst(b: &[u8]) -> Vec<ApstEntry> {
    (0..32)
        .map(|i| {
            let v = le_u64(b, 8 * i);
            ApstEntry {
                target: ((v >> 3) & 0x1F) as u8,
                idle_ms: ((v >> 8) & 0xFF_FFFF) as u32,
            }
        })
        .collect()
}

pub fn encode_apst(entries: &[ApstEntry]) -> Vec<u8> {
    let mut out = vec![0u8; APST_BYTES];
    for (i, e) in entries.iter().take(32).enumerate() {
        let v = (u64::from(e.target & 0x1F) << 3) | (u64::from(e.idle_ms & 0xFF_FFFF) << 8);
        out[8 * i..8 * i + 8].copy_from_slice(&v.to_le_bytes());
    }
    out
}

/// Temperature Threshold's CDW11 for Get Features: TMPSEL 0 (composite), THSEL 0 (over) or
/// 1 (under).
pub fn temperature_threshold_select(under: bool) -> u32 {
    u32::from(under) << 20
}

/// The threshold read back (TMPTH, 15:0), kelvin.
pub fn temperature_threshold(dw0: u32) -> u16 {
    (dw0 & 0xFFFF) as u16
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feature_values() {
        assert_eq!(power_state(0xE3), 3);
        assert!(write_cache_enabled(1));
        assert!(!write_cache_enabled(2));
        assert!(apst_enabled(1));
        assert_eq!(temperature_threshold_select(true), 0x10_0000);
        assert_eq!(temperature_threshold(0x1_0157), 343);
    }

    #[test]
    fn apst_table_round_trips_at_its_bits() {
        let t = [
            ApstEntry {
                target: 3,
                idle_ms: 100,
            },
            ApstEntry {
                target: 4,
                idle_ms: 0xFF_FFFF,
            },
        ];
        let b = encode_apst(&t);
        assert_eq!(b.len(), 256);
        assert_eq!(&b[0..8], &[3 << 3, 100, 0, 0, 0, 0, 0, 0]);
        assert_eq!(&b[8..12], &[4 << 3, 0xFF, 0xFF, 0xFF]);
        let d = decode_apst(&b);
        assert_eq!(&d[..2], &t);
        assert_eq!(
            d[2],
            ApstEntry {
                target: 0,
                idle_ms: 0
            }
        );
    }
}
