//! DEVICE CONFIGURATION OVERLAY (ATA-8 ACS §7.9, opcode 0xB1): the sub-commands hdparm sends,
//! the DCO IDENTIFY data's checksum as hdparm computes it, and the block `--dco-setmax` sends
//! back with a new maximum LBA.
//!
//! Must not: send anything; the steps do (`exec/steps/hpa.rs`).

/// DCO feature codes (the FEATURE register of 0xB1).
pub mod feature {
    pub const RESTORE: u8 = 0xC0;
    pub const FREEZE_LOCK: u8 = 0xC1;
    pub const IDENTIFY: u8 = 0xC2;
    pub const SET: u8 = 0xC3;
}

/// Words 0-153 are the checksummed area of DCO IDENTIFY.
const CHECKSUM_WORDS: usize = 154;

/// hdparm's DCO checksum: the two's complement of the byte sum of words 0-153, of word 208's
/// bytes when word 208 is non-zero (some Intel drives count that word, wrongly; hdparm copes),
/// and of word 255's low byte (the signature). A valid block has it in word 255's high byte.
pub fn checksum(words: &[u16; 256]) -> u8 {
    let add = |sum: u8, w: u16| sum.wrapping_add(w as u8).wrapping_add((w >> 8) as u8);
    let mut sum = words[..CHECKSUM_WORDS].iter().fold(0u8, |s, &w| add(s, w));
    if words[208] != 0 {
        sum = add(sum, words[208]);
    }
    sum = sum.wrapping_add(words[255] as u8);
    0u8.wrapping_sub(sum)
}

/// Whether word 255's high byte holds [`checksum`].
pub fn checksum_ok(words: &[u16; 256]) -> bool {
    checksum(words) == (words[255] >> 8) as u8
}

/// The real maximum number of sectors: words 3-5 (the maximum LBA) plus one, as hdparm reads
/// it (it ignores word 6).
pub fn real_max_sectors(words: &[u16; 256]) -> u64 {
    ((u64::from(words[5]) << 32) | (u64::from(words[4]) << 16) | u64::from(words[3])) + 1
}

/// The block `--dco-setmax N` sends with DEVICE CONFIGURATION SET: the drive's own DCO
/// IDENTIFY data with the maximum LBA (words 3-6, a 64-bit little-endian field, which hdparm
/// writes whole) set to `sectors - 1`, and the checksum recomputed.
pub fn with_max_sectors(words: &[u16; 256], sectors: u64) -> [u16; 256] {
    let mut out = *words;
    let max_lba = sectors.wrapping_sub(1);
    for (i, w) in out[3..7].iter_mut().enumerate() {
        *w = (max_lba >> (16 * i)) as u16;
    }
    let sum = checksum(&out);
    out[255] = (out[255] & 0x00FF) | (u16::from(sum) << 8);
    out
}

/// Words as the drive takes them: little-endian bytes.
pub fn to_le_bytes(words: &[u16; 256]) -> [u8; 512] {
    let mut bytes = [0u8; 512];
    for (chunk, w) in bytes.chunks_exact_mut(2).zip(words.iter()) {
        chunk.copy_from_slice(&w.to_le_bytes());
    }
    bytes
}

/// Words from the bytes the drive gave (little-endian).
pub fn from_le_bytes(bytes: &[u8]) -> [u16; 256] {
    let mut words = [0u16; 256];
    for (w, chunk) in words.iter_mut().zip(bytes.chunks_exact(2)) {
        *w = u16::from_le_bytes([chunk[0], chunk[1]]);
    }
    words
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// A DCO IDENTIFY block as a drive gives it: revision 2, MWDMA 0-2, UDMA 0-6, max LBA
    /// 976773167, the usual feature bits, signature 0xA5 and a valid checksum.
    pub(crate) fn sample() -> [u16; 256] {
        let mut w = [0u16; 256];
        w[0] = 0x0002;
        w[1] = 0x0007;
        w[2] = 0x007F;
        w[3] = 0x602F;
        w[4] = 0x3A38;
        w[7] = 0x01DF;
        w[8] = 0x0017;
        w[21] = 0x2000;
        w[255] = 0x00A5;
        let sum = checksum(&w);
        w[255] |= u16::from(sum) << 8;
        w
    }

    #[test]
    fn checksum_of_a_sample() {
        let w = sample();
        assert!(checksum_ok(&w));
        let mut bad = w;
        bad[7] ^= 1;
        assert!(!checksum_ok(&bad));
        // Word 208 counts only when non-zero.
        let mut intel = w;
        intel[208] = 0x0101;
        assert!(!checksum_ok(&intel));
        let sum = checksum(&intel);
        intel[255] = (intel[255] & 0xFF) | (u16::from(sum) << 8);
        assert!(checksum_ok(&intel));
    }

    #[test]
    fn real_max() {
        assert_eq!(real_max_sectors(&sample()), 976773168);
    }

    #[test]
    fn set_max_rewrites_words_3_to_6_and_the_checksum() {
        let mut w = sample();
        w[6] = 0x1234;
        let out = with_max_sectors(&w, 1_000_000);
        assert_eq!(&out[3..7], &[0x423F, 0x000F, 0, 0]);
        assert!(checksum_ok(&out));
        assert_eq!(out[255] & 0xFF, 0xA5);
        assert_eq!(&out[7..255], &w[7..255]);
        let bytes = to_le_bytes(&out);
        assert_eq!(&bytes[6..10], &[0x3F, 0x42, 0x0F, 0x00]);
        assert_eq!(from_le_bytes(&bytes), out);
    }
}
