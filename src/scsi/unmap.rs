//! UNMAP (SBC-4 §5.32) for `--trim-sector-ranges(-stdin)`: the ranges cut to the block
//! limits' MAXIMUM UNMAP LBA COUNT and MAXIMUM UNMAP BLOCK DESCRIPTOR COUNT (VPD B0h), and
//! the parameter list of each command, as sg_unmap lays it out.
//!
//! Must not: touch a device. The ranges are the ones hdparm's parser gives (LBA, count).

use super::cdb;
use super::inquiry::BlockLimits;
use super::Command;

/// Bytes of the parameter list header and of one block descriptor (SBC-4 tables 99, 100).
const HEADER: usize = 8;
const DESCRIPTOR: usize = 16;
/// The most descriptors one parameter list can carry (its length is 16 bits).
pub const MAX_DESCRIPTORS_IN_A_LIST: u32 = ((u16::MAX as usize - HEADER) / DESCRIPTOR) as u32;

/// The limits one UNMAP command must keep.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// LBAs per command (the sum over its descriptors).
    pub max_lba_count: u32,
    /// Descriptors per command.
    pub max_descriptors: u32,
}

/// The sentence when the disk does not do UNMAP.
pub const NOT_SUPPORTED: &str =
    "the drive does not support UNMAP (its block limits allow no unmap LBAs or descriptors)";

impl Limits {
    /// From the block limits page: `None` when either maximum is 0, which SBC-4 §6.6.4 says
    /// means the device does not implement UNMAP. FFFFFFFFh means no limit.
    pub fn from_block_limits(bl: &BlockLimits) -> Option<Limits> {
        (bl.max_unmap_lba_count != 0 && bl.max_unmap_descriptor_count != 0).then(|| Limits {
            max_lba_count: bl.max_unmap_lba_count,
            max_descriptors: bl.max_unmap_descriptor_count.min(MAX_DESCRIPTORS_IN_A_LIST),
        })
    }
}

/// The parameter list for `descriptors` (LBA, blocks), as sg_unmap builds it: UNMAP DATA
/// LENGTH (n - 2), BLOCK DESCRIPTOR DATA LENGTH, 4 reserved bytes, then 16 bytes each.
pub fn parameter_list(descriptors: &[(u64, u32)]) -> Vec<u8> {
    let n = HEADER + DESCRIPTOR * descriptors.len();
    let mut list = Vec::with_capacity(n);
    list.extend(((n - 2) as u16).to_be_bytes());
    list.extend(((n - HEADER) as u16).to_be_bytes());
    list.extend([0; 4]);
    for &(lba, blocks) in descriptors {
        list.extend(lba.to_be_bytes());
        list.extend(blocks.to_be_bytes());
        list.extend([0; 4]);
    }
    list
}

/// The UNMAP commands for `ranges` (LBA, count), in order: each range cut into pieces of at
/// most `max_lba_count` blocks, packed into commands of at most `max_descriptors`
/// descriptors whose blocks add up to at most `max_lba_count`. Empty ranges are left out.
pub fn commands(ranges: &[(u64, u64)], limits: Limits) -> Vec<Command> {
    let max_lbas = u64::from(limits.max_lba_count.max(1));
    let max_desc = limits.max_descriptors.clamp(1, MAX_DESCRIPTORS_IN_A_LIST) as usize;
    let mut out = Vec::new();
    let mut batch: Vec<(u64, u32)> = Vec::new();
    let mut in_batch = 0u64;
    for &(lba, count) in ranges {
        let (mut lba, mut left) = (lba, count);
        while left > 0 {
            if batch.len() == max_desc || in_batch == max_lbas {
                out.push(cdb::unmap(parameter_list(&batch)));
                batch.clear();
                in_batch = 0;
            }
            let n = left.min(max_lbas - in_batch);
            // n <= max_lbas <= u32::MAX
            batch.push((lba, n as u32));
            in_batch += n;
            lba = lba.saturating_add(n);
            left -= n;
        }
    }
    if !batch.is_empty() {
        out.push(cdb::unmap(parameter_list(&batch)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::hex;
    use super::*;

    const WIDE: Limits = Limits {
        max_lba_count: u32::MAX,
        max_descriptors: 255,
    };

    #[test]
    fn one_range_is_sg_unmaps_list() {
        // sg_unmap --lba=4096 --num=32 on the VM's disks (tests/vm_scsi.rs)
        let c = commands(&[(4096, 32)], WIDE);
        assert_eq!(c.len(), 1);
        assert_eq!(hex(&c[0].cdb), "42 00 00 00 00 00 00 00 18 00");
        assert_eq!(
            hex(&c[0].data_out),
            "00 16 00 10 00 00 00 00 00 00 00 00 00 00 10 00 00 00 00 20 00 00 00 00"
        );
    }

    #[test]
    fn ranges_are_cut_to_the_limits() {
        let l = Limits {
            max_lba_count: 100,
            max_descriptors: 2,
        };
        let c = commands(&[(0, 250), (1000, 0), (2000, 30)], l);
        let lists: Vec<Vec<(u64, u32)>> = c
            .iter()
            .map(|c| {
                c.data_out[8..]
                    .chunks(16)
                    .map(|d| {
                        (
                            u64::from_be_bytes(d[..8].try_into().unwrap()),
                            u32::from_be_bytes(d[8..12].try_into().unwrap()),
                        )
                    })
                    .collect()
            })
            .collect();
        assert_eq!(
            lists,
            vec![
                vec![(0, 100)],
                vec![(100, 100)],
                vec![(200, 50), (2000, 30)],
            ]
        );
        let two = commands(&[(0, 1), (5, 1), (9, 1)], l);
        assert_eq!(two.len(), 2);
        assert_eq!(two[0].data_out.len(), 8 + 32);
        assert!(commands(&[], WIDE).is_empty());
    }

    #[test]
    fn limits_from_block_limits() {
        let mut bl = BlockLimits::default();
        assert_eq!(Limits::from_block_limits(&bl), None);
        bl.max_unmap_lba_count = u32::MAX;
        bl.max_unmap_descriptor_count = u32::MAX;
        assert_eq!(
            Limits::from_block_limits(&bl),
            Some(Limits {
                max_lba_count: u32::MAX,
                max_descriptors: MAX_DESCRIPTORS_IN_A_LIST
            })
        );
        assert_eq!(MAX_DESCRIPTORS_IN_A_LIST, 4095);
    }
}
