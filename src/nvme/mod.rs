//! Pure NVMe structures, where an hdparm job has an NVMe twin: admin and I/O commands as plain
//! data ([`command`]), the Identify Controller and Identify Namespace data ([`identify`]), the
//! log pages hdparm's jobs read ([`log`]: SMART / Health, Sanitize Status), and the Get/Set
//! Features values ([`features`]). Offsets and values are the NVM Express Base Specification
//! 2.0's (the 1.4 layout for everything used here).
//!
//! Must not: touch a device (that is `device::nvme`), or print (that is `report::nvme`).

pub mod command;
pub mod features;
pub mod identify;
pub mod log;

/// Little-endian field readers over a byte slice, answering 0 past the end (a short buffer is
/// a truncated structure, not a crash).
pub(crate) fn le_u16(b: &[u8], at: usize) -> u16 {
    let mut v = [0u8; 2];
    for (i, x) in v.iter_mut().enumerate() {
        *x = b.get(at + i).copied().unwrap_or(0);
    }
    u16::from_le_bytes(v)
}

pub(crate) fn le_u32(b: &[u8], at: usize) -> u32 {
    let mut v = [0u8; 4];
    for (i, x) in v.iter_mut().enumerate() {
        *x = b.get(at + i).copied().unwrap_or(0);
    }
    u32::from_le_bytes(v)
}

pub(crate) fn le_u64(b: &[u8], at: usize) -> u64 {
    let mut v = [0u8; 8];
    for (i, x) in v.iter_mut().enumerate() {
        *x = b.get(at + i).copied().unwrap_or(0);
    }
    u64::from_le_bytes(v)
}

/// A 128-bit little-endian counter (TNVMCAP, the SMART data units), as u128.
pub(crate) fn le_u128(b: &[u8], at: usize) -> u128 {
    u128::from(le_u64(b, at)) | (u128::from(le_u64(b, at + 8)) << 64)
}

/// An ASCII field padded with spaces (SN, MN, FR), without the padding; bytes, not a string
/// (drive strings reach stdout unchanged).
pub(crate) fn ascii_field(b: &[u8], at: usize, len: usize) -> Vec<u8> {
    let field: Vec<u8> = (at..at + len)
        .map(|i| b.get(i).copied().unwrap_or(0))
        .collect();
    let end = field
        .iter()
        .rposition(|&c| c != b' ' && c != 0)
        .map_or(0, |i| i + 1);
    field[..end].to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_are_little_endian_and_zero_past_the_end() {
        let b = [0x01, 0x02, 0x03, 0x04, 0x05];
        assert_eq!(le_u16(&b, 0), 0x0201);
        assert_eq!(le_u32(&b, 1), 0x0504_0302);
        assert_eq!(le_u32(&b, 3), 0x0000_0504);
        assert_eq!(le_u64(&b, 10), 0);
        let mut c = [0u8; 16];
        c[8] = 1;
        assert_eq!(le_u128(&c, 0), 1u128 << 64);
    }

    #[test]
    fn ascii_fields_lose_their_padding_only() {
        assert_eq!(ascii_field(b"  QEMU NVMe   ", 0, 14), b"  QEMU NVMe");
        assert_eq!(ascii_field(b"ab\0\0", 0, 4), b"ab");
        assert_eq!(ascii_field(b"ab", 0, 6), b"ab");
    }
}
