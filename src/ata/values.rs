//! The value codecs of hdparm's options, written once: what a value means in words and which
//! SET FEATURES subcommand and count carry it. `-S` (standby timer), `-B` (APM level, and
//! the [`Apm`] state every report decodes from IDENTIFY), `-M` (acoustic level), `-R`
//! (write-read-verify mode), `-X` (transfer mode names and texts), and the checks that need
//! the drive's IDENTIFY data before anything is sent (the transfer modes a drive lists).
//!
//! Must not: print, or touch a device. Pure.

use super::features;
use std::fmt::Write as _;

// ---- -B: Advanced Power Management ------------------------------------------------------

/// Advanced Power Management as IDENTIFY reports it: the one decode `-B`, `-I` and `-i` share
/// (each report renders it in hdparm's words for that report).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apm {
    NotSupported,
    /// Supported and switched off (word 86 bit 3 clear).
    Disabled,
    /// Switched on at `level` (word 91 bits 7:0). `level_valid`: word 91 bits 15:8 are 0x40,
    /// as ATA/ATAPI-7 defines; only `-i` looks at it (it prints "unknown setting" otherwise).
    Enabled {
        level: u8,
        level_valid: bool,
    },
}

impl Apm {
    /// From the words: `supported` as the caller's report tests it (the tests differ, see
    /// [`super::identify::Identify::apm`]), word 86 (enabled, bit 3) and word 91 (level).
    pub fn decode(supported: bool, word86: u16, word91: u16) -> Apm {
        if !supported {
            Apm::NotSupported
        } else if word86 & 0x0008 == 0 {
            Apm::Disabled
        } else {
            Apm::Enabled {
                level: word91 as u8,
                level_valid: word91 & 0xFF00 == 0x4000,
            }
        }
    }

    pub fn is_supported(self) -> bool {
        self != Apm::NotSupported
    }
}

/// The level at which `-B` disables APM instead of setting a level.
pub const APM_DISABLE_LEVEL: u32 = 255;

/// `-B N` on the wire: (SET FEATURES subcommand, count). 255 disables APM; any other value is
/// the level (hdparm sends 0 as it is).
pub fn apm_set(level: u32) -> (u8, u8) {
    if level == APM_DISABLE_LEVEL {
        (features::APM.disable, 0)
    } else {
        (features::APM.enable, level as u8)
    }
}

/// `-B N` in the set message's words: `0x%02x (%d)`, or `disabled`.
pub fn apm_set_words(level: u32) -> String {
    if level == APM_DISABLE_LEVEL {
        "disabled".to_string()
    } else {
        format!("0x{level:02x} ({level})")
    }
}

// ---- -M: Automatic Acoustic Management, -R: write-read-verify ---------------------------

/// `-M N` on the wire: 0 disables AAM, any other value is the level.
pub fn aam_set(level: u32) -> (u8, u8) {
    (features::AAM.subcommand(level != 0), level as u8)
}

/// `-R N` on the wire: 0 disables write-read-verify, 1-3 enable that mode.
pub fn write_read_verify_set(mode: u32) -> (u8, u8) {
    (
        features::WRITE_READ_VERIFY.subcommand(mode != 0),
        mode as u8,
    )
}

// ---- -S: the standby timer --------------------------------------------------------------

/// `-S` values in words (reference §4.2): `off`, `1 minute + 5 seconds`, `2 hours + 30 minutes`...
pub fn standby_words(code: u32) -> String {
    match code {
        0 => "off".to_string(),
        252 => "21 minutes".to_string(),
        253 => "vendor-specific".to_string(),
        254 => "?reserved".to_string(),
        255 => "21 minutes + 15 seconds".to_string(),
        1..=240 => {
            let secs = code * 5;
            join_units(secs / 60, "minute", secs % 60, "second")
        }
        241..=251 => {
            let mins = (code - 240) * 30;
            join_units(mins / 60, "hour", mins % 60, "minute")
        }
        _ => "illegal value".to_string(),
    }
}

/// "N big[s] + M small[s]", either part omitted when zero (hdparm pluralises with `s` only
/// when the count is not 1).
fn join_units(big: u32, big_name: &str, small: u32, small_name: &str) -> String {
    let plural = |n: u32| if n == 1 { "" } else { "s" };
    let mut s = String::new();
    if big > 0 {
        let _ = write!(s, "{big} {big_name}{}", plural(big));
    }
    if big > 0 && small > 0 {
        s.push_str(" + ");
    }
    if small > 0 {
        let _ = write!(s, "{small} {small_name}{}", plural(small));
    }
    s
}

// ---- -X: transfer modes -----------------------------------------------------------------

/// `-X` values in words (reference §4.2).
pub fn xfermode_words(mode: u32) -> String {
    match mode {
        0 => "default PIO mode".to_string(),
        1 => "default PIO mode, disable IORDY".to_string(),
        8..=15 => format!("PIO flow control mode{}", mode - 8),
        16..=23 => format!("singleword DMA mode{}", mode - 16),
        32..=39 => format!("multiword DMA mode{}", mode - 32),
        64..=71 => format!("UltraDMA mode{}", mode - 64),
        _ => "unknown, probably not valid".to_string(),
    }
}

/// The `-X` number of a mode name (`pio0`..`pio7`, `sdma0`.., `mdma0`.., `udma0`..`udma7`).
pub fn xfer_mode_by_name(name: &str) -> Option<u32> {
    let families: [(&str, u32); 4] = [("pio", 8), ("sdma", 16), ("mdma", 32), ("udma", 64)];
    families.iter().find_map(|&(prefix, base)| {
        let digit = name.strip_prefix(prefix)?;
        match digit.as_bytes() {
            [d @ b'0'..=b'7'] => Some(base + u32::from(d - b'0')),
            _ => None,
        }
    })
}

/// The transfer modes IDENTIFY lists, by hdparm's `-X` numbering.
pub fn listed_xfer_modes(id: &[u16; 256]) -> Vec<u32> {
    let mut modes = vec![0, 1, 8, 9, 10];
    if id[53] & 0x2 != 0 {
        for bit in 0..2 {
            if id[64] & (1 << bit) != 0 {
                modes.push(11 + bit);
            }
        }
    }
    if id[49] & 0x100 != 0 {
        for bit in 0..3 {
            if id[62] & (1 << bit) != 0 {
                modes.push(16 + bit);
            }
        }
        for bit in 0..3 {
            if id[63] & (1 << bit) != 0 {
                modes.push(32 + bit);
            }
        }
        if id[53] & 0x4 != 0 {
            for bit in 0..8 {
                if id[88] & (1 << bit) != 0 {
                    modes.push(64 + bit);
                }
            }
        }
    }
    modes
}

/// hdparm's short name of a `-X` mode number (`udma5`, `mdma2`, `pio4`), if it has one.
pub fn xfer_mode_name(mode: u32) -> Option<String> {
    match mode {
        8..=15 => Some(format!("pio{}", mode - 8)),
        16..=23 => Some(format!("sdma{}", mode - 16)),
        32..=39 => Some(format!("mdma{}", mode - 32)),
        64..=71 => Some(format!("udma{}", mode - 64)),
        _ => None,
    }
}

/// Why `-X mode` must not be sent to this drive, or None when the drive lists the mode.
pub fn xfer_mode_unsupported(id: &[u16; 256], mode: u32) -> Option<String> {
    let listed = listed_xfer_modes(id);
    if listed.contains(&mode) {
        return None;
    }
    let names: Vec<String> = listed.iter().filter_map(|&m| xfer_mode_name(m)).collect();
    Some(match xfer_mode_name(mode) {
        Some(name) => format!("the drive does not list {name} (it lists {})", names.join(" ")),
        None => format!("{mode} is not a transfer mode (use pio0-4, sdma0-2, mdma0-2, udma0-7, or 0/1 for default PIO)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive_with_udma5() -> [u16; 256] {
        let mut id = [0u16; 256];
        id[49] = 0x0f00; // DMA and LBA supported
        id[53] = 0x0007; // words 64-70 and 88 valid
        id[63] = 0x0407; // mdma0-2, mdma2 selected
        id[64] = 0x0003; // pio3, pio4
        id[88] = 0x203f; // udma0-5, udma5 selected
        id
    }

    #[test]
    fn apm_decodes_support_enable_and_level() {
        assert_eq!(Apm::decode(false, 0x0008, 0x40FE), Apm::NotSupported);
        assert_eq!(Apm::decode(true, 0x0000, 0x40FE), Apm::Disabled);
        assert_eq!(
            Apm::decode(true, 0x0008, 0x40FE),
            Apm::Enabled {
                level: 254,
                level_valid: true
            }
        );
        assert_eq!(
            Apm::decode(true, 0x0008, 0x0080),
            Apm::Enabled {
                level: 128,
                level_valid: false
            }
        );
    }

    #[test]
    fn set_codecs_pick_disable_at_their_special_value() {
        assert_eq!(apm_set(254), (0x05, 254));
        assert_eq!(apm_set(0), (0x05, 0));
        assert_eq!(apm_set(255), (0x85, 0));
        assert_eq!(apm_set_words(1), "0x01 (1)");
        assert_eq!(apm_set_words(255), "disabled");
        assert_eq!(aam_set(128), (0x42, 128));
        assert_eq!(aam_set(0), (0xC2, 0));
        assert_eq!(write_read_verify_set(3), (0x0B, 3));
        assert_eq!(write_read_verify_set(0), (0x8B, 0));
    }

    #[test]
    fn standby_words_match_reference_examples() {
        assert_eq!(standby_words(12), "1 minute");
        assert_eq!(standby_words(13), "1 minute + 5 seconds");
        assert_eq!(standby_words(5), "25 seconds");
        assert_eq!(standby_words(120), "10 minutes");
        assert_eq!(standby_words(240), "20 minutes");
        assert_eq!(standby_words(241), "30 minutes");
        assert_eq!(standby_words(242), "1 hour");
        assert_eq!(standby_words(245), "2 hours + 30 minutes");
        assert_eq!(standby_words(251), "5 hours + 30 minutes");
        assert_eq!(standby_words(0), "off");
        assert_eq!(standby_words(253), "vendor-specific");
        assert_eq!(standby_words(254), "?reserved");
        assert_eq!(standby_words(255), "21 minutes + 15 seconds");
    }

    #[test]
    fn xfermode_words_cover_families() {
        assert_eq!(xfermode_words(0), "default PIO mode");
        assert_eq!(xfermode_words(1), "default PIO mode, disable IORDY");
        assert_eq!(xfermode_words(69), "UltraDMA mode5");
        assert_eq!(xfermode_words(34), "multiword DMA mode2");
        assert_eq!(xfermode_words(17), "singleword DMA mode1");
        assert_eq!(xfermode_words(12), "PIO flow control mode4");
        assert_eq!(xfermode_words(2), "unknown, probably not valid");
        assert_eq!(xfermode_words(1215752191), "unknown, probably not valid");
    }

    #[test]
    fn xfer_mode_names_and_numbers_invert() {
        for mode in 0..=80 {
            if let Some(name) = xfer_mode_name(mode) {
                assert_eq!(xfer_mode_by_name(&name), Some(mode), "{name}");
            }
        }
        assert_eq!(xfer_mode_by_name("udma8"), None);
        assert_eq!(xfer_mode_by_name("udma"), None);
        assert_eq!(xfer_mode_by_name("udma55"), None);
        assert_eq!(xfer_mode_by_name("69"), None);
    }

    #[test]
    fn listed_modes_pass_and_others_are_refused() {
        let id = drive_with_udma5();
        assert_eq!(xfer_mode_unsupported(&id, 69), None);
        assert_eq!(xfer_mode_unsupported(&id, 34), None);
        assert_eq!(xfer_mode_unsupported(&id, 12), None);
        let why = xfer_mode_unsupported(&id, 70).unwrap_or_default();
        assert!(why.contains("udma6") && why.contains("udma5"), "{why}");
        let why = xfer_mode_unsupported(&id, 99).unwrap_or_default();
        assert!(why.contains("not a transfer mode"), "{why}");
    }
}
