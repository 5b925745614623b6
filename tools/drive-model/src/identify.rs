//! IDENTIFY DEVICE and DCO IDENTIFY as the model answers them: a real drive's words, with
//! the words the state decides (capacity, security, sanitize, TRIM, microcode, sector size)
//! rewritten from the state. Written from ACS-3, independently of the tool's decoders.

use crate::state::State;

fn set(w: &mut [u16], word: usize, bit: u16, on: bool) {
    if on {
        w[word] |= 1 << bit;
    } else {
        w[word] &= !(1 << bit);
    }
}

/// The 256 IDENTIFY words for the current state, checksum included.
pub fn identify(s: &State) -> Vec<u16> {
    let mut w = s.base_identify.clone();
    w.resize(256, 0);
    let f = &s.features;
    let sectors = s.current_max_lba() + 1;
    // capacity: 60-61 (28-bit, saturated) and 100-103 (48-bit)
    let c28 = sectors.min(0x0FFF_FFFF);
    w[60] = (c28 & 0xFFFF) as u16;
    w[61] = (c28 >> 16) as u16;
    for i in 0..4 {
        w[100 + i] = ((sectors >> (16 * i)) & 0xFFFF) as u16;
    }
    set(&mut w, 49, 9, true); // LBA
    set(&mut w, 83, 10, true); // 48-bit supported
    set(&mut w, 86, 10, true); // 48-bit enabled
    set(&mut w, 83, 14, true);
    set(&mut w, 83, 15, false);
    // security
    set(&mut w, 82, 1, f.security);
    set(&mut w, 85, 1, f.security && s.security.enabled);
    let sec = &s.security;
    w[128] = if f.security {
        let mut v = 1u16 | (1 << 5); // supported, enhanced erase supported
        if sec.enabled {
            v |= 1 << 1;
        }
        if sec.locked {
            v |= 1 << 2;
        }
        if sec.frozen {
            v |= 1 << 3;
        }
        if sec.attempts_left == 0 {
            v |= 1 << 4;
        }
        if sec.level_max {
            v |= 1 << 8;
        }
        v
    } else {
        0
    };
    if !f.security {
        w[89] = 0;
        w[90] = 0;
        w[92] = 0;
    } else {
        w[92] = sec.master_revision;
    }
    // HPA and DCO
    set(&mut w, 82, 10, f.hpa);
    set(&mut w, 85, 10, f.hpa);
    set(&mut w, 83, 8, f.hpa); // SET MAX security extension
    set(&mut w, 86, 8, f.hpa);
    set(&mut w, 83, 11, f.dco);
    set(&mut w, 86, 11, f.dco);
    set(&mut w, 80, 10, true); // ACS-3
    set(&mut w, 119, 8, f.amax);
    // write cache, look-ahead, APM, AAM, SMART
    set(&mut w, 82, 5, true);
    set(&mut w, 85, 5, s.write_cache);
    set(&mut w, 82, 6, true);
    set(&mut w, 85, 6, s.look_ahead);
    set(&mut w, 82, 0, true);
    set(&mut w, 85, 0, s.smart_enabled);
    set(&mut w, 83, 3, true);
    set(&mut w, 86, 3, s.apm.is_some());
    w[91] = s.apm.map_or(0, u16::from);
    // multiple count
    w[59] = (w[59] & 0xFE00) | 0x0100 | u16::from(s.multiple);
    // sanitize (word 59 bits 11-15)
    for b in 11..16 {
        set(&mut w, 59, b, f.sanitize);
    }
    set(&mut w, 59, 10, f.sanitize);
    // TRIM: 169 bit 0; deterministic zeroes after TRIM: 69 bits 14 and 5; 105 max blocks
    set(&mut w, 169, 0, f.trim);
    set(&mut w, 69, 14, f.trim);
    set(&mut w, 69, 5, f.trim);
    w[105] = if f.trim { 8 } else { 0 };
    // DOWNLOAD MICROCODE, segmented (119/120 bit 4); min/max 234/235 stay the drive's
    set(&mut w, 83, 0, f.download_microcode);
    set(&mut w, 86, 0, f.download_microcode);
    set(&mut w, 119, 4, f.download_microcode);
    set(&mut w, 120, 4, f.download_microcode);
    if !f.download_microcode {
        w[234] = 0;
        w[235] = 0;
    }
    // WRITE UNCORRECTABLE EXT (119/120 bit 2), GPL (84/87 bit 5)
    set(&mut w, 119, 2, f.write_uncorrectable);
    set(&mut w, 120, 2, f.write_uncorrectable);
    set(&mut w, 84, 5, true);
    set(&mut w, 87, 5, true);
    set(&mut w, 84, 14, true);
    set(&mut w, 87, 14, true);
    // logical sector size: descriptor 1 of log 0x2F is 4096 bytes
    if s.sector_config == 1 {
        w[106] = 0x4000 | (1 << 12);
        let words: u32 = 2048;
        w[117] = (words & 0xFFFF) as u16;
        w[118] = (words >> 16) as u16;
    }
    // firmware revision (words 23-26, 8 ASCII characters)
    let rev: Vec<u8> = format!("{:<8}", s.firmware.revision)
        .bytes()
        .take(8)
        .collect();
    for i in 0..4 {
        w[23 + i] = (u16::from(rev[2 * i]) << 8) | u16::from(rev[2 * i + 1]);
    }
    checksum(&mut w);
    w
}

/// Word 255: signature 0xA5, then the byte that makes the 512 bytes sum to zero.
pub fn checksum(w: &mut [u16]) {
    w[255] = (w[255] & 0xFF00) | 0x00A5;
    let mut sum: u8 = 0;
    for &x in &w[..255] {
        sum = sum
            .wrapping_add((x & 0xFF) as u8)
            .wrapping_add((x >> 8) as u8);
    }
    sum = sum.wrapping_add(0xA5);
    w[255] = (u16::from(sum.wrapping_neg()) << 8) | 0xA5;
}

/// DEVICE CONFIGURATION IDENTIFY (0xB1/0xC2): the settable features and the max LBA.
pub fn dco_identify(s: &State) -> Vec<u16> {
    let mut w = vec![0u16; 256];
    w[0] = 0x0002; // revision
    w[1] = 0x0007; // multiword DMA 0-2
    w[2] = 0x007F; // UDMA 0-6
    for i in 0..3 {
        w[3 + i] = ((s.dco_max_lba >> (16 * i)) & 0xFFFF) as u16;
    }
    // word 7: SMART error log (2), self-test (1), SMART (0), security (3), HPA (7), 48-bit (8)
    w[7] = 0x0007 | (1 << 3) | (1 << 7) | (1 << 8);
    w[8] = 0x0000;
    w[9] = 0x0001; // (ACS-3 word 9: unused here)
    w[21] = 0x0000;
    checksum(&mut w);
    w
}

pub fn to_bytes(w: &[u16]) -> Vec<u8> {
    w.iter().flat_map(|x| x.to_le_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;

    fn sum_ok(w: &[u16]) -> bool {
        let b = to_bytes(w);
        b.iter().fold(0u8, |a, &x| a.wrapping_add(x)) == 0 && b[510] == 0xA5
    }

    #[test]
    fn identify_follows_state() {
        let mut s = State::new(vec![0; 256], "t", 2_097_152);
        let w = identify(&s);
        assert!(sum_ok(&w));
        assert_eq!((w[100], w[101]), (0, 0x20));
        assert_eq!(w[128] & 0x1F, 0x01);
        s.security.enabled = true;
        s.security.locked = true;
        s.max_lba_volatile = Some(999);
        let w = identify(&s);
        assert_eq!(w[128] & 0x07, 0x07);
        assert_eq!((w[60], w[61], w[100]), (1000, 0, 1000));
        assert!(w[85] & 2 != 0);
        s.features = crate::state::Features::none();
        let w = identify(&s);
        assert_eq!(w[128], 0);
        assert_eq!(w[59] & 0x1000, 0);
        assert!(sum_ok(&w));
    }

    #[test]
    fn dco_identify_has_max_lba_and_checksum() {
        let s = State::new(vec![0; 256], "t", 2_097_152);
        let w = dco_identify(&s);
        assert_eq!((w[3], w[4]), (0xFFFF, 0x1F));
        assert!(sum_ok(&w));
    }
}
