//! `--set-sector-size N` (reference §4.9): finding the Sector Configuration log (0x2F)
//! descriptor of a logical sector size, and SET SECTOR CONFIGURATION EXT (0xB2).
//!
//! Must not: read the log or send anything; the step does.

use super::command::{Protocol, TaskFile};

/// The Sector Configuration log's address.
pub const LOG: u8 = 0x2F;
/// SET SECTOR CONFIGURATION EXT.
pub const SET_SECTOR_CONFIGURATION: u8 = 0xB2;

/// hdparm reads the first eight 16-byte descriptors.
const DESCRIPTORS: usize = 8;

/// One valid descriptor: its index, its command checkword, and its logical sector size as
/// the log states it (in words by ACS-4; some drives state bytes).
fn descriptors(log: &[u8; 512]) -> impl Iterator<Item = (usize, u16, u32)> + '_ {
    (0..DESCRIPTORS).filter_map(move |i| {
        let d = &log[i * 16..i * 16 + 16];
        (d[0] & 0x80 != 0).then(|| {
            let checkword = u16::from_le_bytes([d[2], d[3]]);
            let lss = u32::from_le_bytes([d[4], d[5], d[6], d[7]]);
            (i, checkword, lss)
        })
    })
}

/// The descriptor index and checkword of logical sector size `wanted` bytes, as hdparm's
/// `get_set_sector_index` finds them. Sizes are in words, unless the current size
/// (`current_bytes`, from IDENTIFY) appears in the log as bytes and not as words before it:
/// then the drive is taken to state bytes (hdparm's two passes).
pub fn find(log: &[u8; 512], wanted: u64, current_bytes: u32) -> Option<(u16, u16)> {
    let mut found_bytes = false;
    let mut found_words = false;
    for (_, _, lss) in descriptors(log) {
        if lss == current_bytes {
            found_bytes = true;
        } else if lss.wrapping_mul(2) == current_bytes {
            found_words = true;
            break;
        }
    }
    let in_bytes = !found_words && found_bytes;
    descriptors(log).find_map(|(i, checkword, lss)| {
        let bytes = if in_bytes { lss } else { lss.wrapping_mul(2) };
        (u64::from(bytes) == wanted).then_some((i as u16, checkword))
    })
}

/// SET SECTOR CONFIGURATION EXT as hdparm 9.65 sends it: count = the descriptor's index, no
/// data, 48-bit, device 0xE0, 60 s, and in FEATURE only the checkword's high byte: hdparm
/// fills FEATURE(7:0) but marks only FEATURE(15:8) as an output register, so 7:0 goes out as
/// 0. ACS-4 wants the whole checkword there; a drive whose checkword has a non-zero low byte
/// aborts the command (it is refused, nothing changes), as it does hdparm's. Kept on purpose:
/// the wire is hdparm's (DIFFERENCES.md, `vm:model:set-sector-size`).
pub fn command(index: u16, checkword: u16) -> TaskFile {
    let mut tf =
        TaskFile::sector_command(SET_SECTOR_CONFIGURATION, 0, index, Protocol::NonData, true);
    tf.feature = checkword & 0xFF00;
    tf.timeout_secs = 60;
    tf
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(entries: &[(u16, u32)]) -> [u8; 512] {
        let mut l = [0u8; 512];
        for (i, (check, lss)) in entries.iter().enumerate() {
            let d = &mut l[i * 16..];
            d[0] = 0x80;
            d[2..4].copy_from_slice(&check.to_le_bytes());
            d[4..8].copy_from_slice(&lss.to_le_bytes());
        }
        l
    }

    #[test]
    fn sizes_in_words() {
        let l = log(&[(0x1111, 256), (0x2222, 2048), (0x3333, 260)]);
        assert_eq!(find(&l, 4096, 512), Some((1, 0x2222)));
        assert_eq!(find(&l, 520, 512), Some((2, 0x3333)));
        assert_eq!(find(&l, 512, 512), Some((0, 0x1111)));
        assert_eq!(find(&l, 1024, 512), None);
    }

    #[test]
    fn drive_that_states_bytes() {
        let l = log(&[(0x1111, 512), (0x2222, 4096)]);
        assert_eq!(find(&l, 4096, 512), Some((1, 0x2222)));
        assert_eq!(find(&l, 8192, 512), None);
    }

    #[test]
    fn invalid_descriptors_are_skipped() {
        let mut l = log(&[(0x1111, 256), (0x2222, 2048)]);
        l[16] = 0;
        assert_eq!(find(&l, 4096, 512), None);
    }

    #[test]
    fn cdb() {
        let tf = command(1, 0xABCD);
        let cdb: Vec<String> = tf.cdb16().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            cdb.join(" "),
            // FEATURE(15:8) = 0xab, FEATURE(7:0) = 0, as hdparm 9.65 sends it.
            "85 07 20 ab 00 00 01 00 00 00 00 00 00 e0 b2 00"
        );
    }
}
