//! READ CAPACITY(16)'s answer (SBC-4 §5.20.2, table 76): the capacity and block sizes of
//! `-I` and `-g`, and the provisioning bits of `--trim-sector-ranges`.
//!
//! Must not: touch a device. Total: missing bytes read as zero, and fewer than 12 bytes
//! (no block length) decode to `None`.

use super::{be16, be32, be64, byte};

/// The fields of READ CAPACITY(16) the twins use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Capacity {
    /// RETURNED LOGICAL BLOCK ADDRESS: the last LBA (the block count is one more).
    pub last_lba: u64,
    /// LOGICAL BLOCK LENGTH IN BYTES.
    pub block_length: u32,
    /// P_TYPE and PROT_EN: protection information.
    pub protection_type: u8,
    pub protection_enabled: bool,
    /// LOGICAL BLOCKS PER PHYSICAL BLOCK EXPONENT: 2^n logical blocks per physical block.
    pub physical_exponent: u8,
    /// LBPME: logical block provisioning (UNMAP) enabled.
    pub lbpme: bool,
    /// LBPRZ: unmapped blocks read as zeros.
    pub lbprz: bool,
    pub lowest_aligned_lba: u16,
}

/// The answer; `None` when the block length is not in it.
pub fn decode(answer: &[u8]) -> Option<Capacity> {
    (answer.len() >= 12).then(|| Capacity {
        last_lba: be64(answer, 0),
        block_length: be32(answer, 8),
        protection_type: (byte(answer, 12) >> 1) & 0x07,
        protection_enabled: byte(answer, 12) & 1 != 0,
        physical_exponent: byte(answer, 13) & 0x0F,
        lbpme: byte(answer, 14) & 0x80 != 0,
        lbprz: byte(answer, 14) & 0x40 != 0,
        lowest_aligned_lba: be16(answer, 14) & 0x3FFF,
    })
}

impl Capacity {
    /// Logical blocks on the medium (saturating: a last LBA of 2^64-1 says "more than that").
    pub fn blocks(&self) -> u64 {
        self.last_lba.saturating_add(1)
    }

    /// Bytes on the medium.
    pub fn bytes(&self) -> u128 {
        u128::from(self.blocks()) * u128::from(self.block_length)
    }

    /// The physical block size in bytes (the exponent capped where the product would
    /// overflow, which no disk comes near).
    pub fn physical_block_length(&self) -> u64 {
        u64::from(self.block_length) << self.physical_exponent.min(31)
    }

    /// The capacity in hdparm's 512-byte sectors, as `-g` and `-I` count.
    pub fn sectors_512(&self) -> u128 {
        self.bytes() / 512
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// READ CAPACITY(16) of a disk of `blocks` blocks of `len` bytes, 2^`exp` per physical
    /// block, with LBPME/LBPRZ as given.
    pub(crate) fn answer(blocks: u64, len: u32, exp: u8, lbpme: bool, lbprz: bool) -> Vec<u8> {
        let mut a = vec![0u8; 32];
        a[..8].copy_from_slice(&(blocks - 1).to_be_bytes());
        a[8..12].copy_from_slice(&len.to_be_bytes());
        a[13] = exp;
        a[14] = (u8::from(lbpme) << 7) | (u8::from(lbprz) << 6);
        a
    }

    #[test]
    fn scsi_debug_and_qemu() {
        // scsi_debug dev_size_mb=64 physblk_exp=3 lbpu=1 lbprz=1
        let c = decode(&answer(131072, 512, 3, true, true)).unwrap();
        assert_eq!(c.last_lba, 131071);
        assert_eq!(c.blocks(), 131072);
        assert_eq!(c.bytes(), 64 << 20);
        assert_eq!(c.physical_block_length(), 4096);
        assert!(c.lbpme && c.lbprz);
        assert_eq!(c.lowest_aligned_lba, 0);
        // the VM's virtio-scsi disk: 1 GiB, 512/4096, LBPME, LBPRZ=0
        let q = decode(&answer(2 << 20, 512, 3, true, false)).unwrap();
        assert_eq!(q.sectors_512(), 2 << 20);
        assert!(!q.lbprz);
        let mut odd = answer(8, 4096, 0, false, false);
        odd[14] = 0x3F;
        odd[15] = 0xFF;
        assert_eq!(decode(&odd).unwrap().lowest_aligned_lba, 0x3FFF);
        assert_eq!(decode(&odd[..11]), None);
        let max = decode(&[0xFF; 12]).unwrap();
        assert_eq!(max.blocks(), u64::MAX);
        assert_eq!(max.physical_block_length(), 0xFFFF_FFFF);
    }
}
