//! The one MMC command hdparm sends itself: SET STREAMING (MMC-6 §6.39), with which `-E` asks
//! a DVD drive for a read and write speed (hdparm's dvdspeed.c), before the kernel's
//! CDROM_SELECT_SPEED (which sends SET CD SPEED).
//!
//! Must not: touch a device.

/// SET STREAMING's operation code.
pub const SET_STREAMING: u8 = 0xB6;
/// Length of the Performance descriptor hdparm sends.
pub const PERFORMANCE_LEN: usize = 28;

/// The 12-byte CDB and the Performance descriptor for `speed` (in hdparm's units: ×177 kB/s,
/// the 1× CD rate; 0 restores the drive's default speed, the RDD bit).
pub fn set_streaming(speed: u32) -> ([u8; 12], [u8; PERFORMANCE_LEN]) {
    let mut cdb = [0u8; 12];
    cdb[0] = SET_STREAMING;
    // Parameter list length (bytes 9-10).
    cdb[10] = PERFORMANCE_LEN as u8;
    let mut d = [0u8; PERFORMANCE_LEN];
    if speed == 0 {
        // RDD: restore the drive's default.
        d[0] = 4;
    }
    // End LBA: all of the medium.
    d[8..12].copy_from_slice(&[0xFF; 4]);
    // hdparm computes the size in an unsigned long; 177 × 255 fits easily.
    let kbytes = 177u32.wrapping_mul(speed).to_be_bytes();
    // Read size, read time 1000 ms, write size, write time 1000 ms.
    d[12..16].copy_from_slice(&kbytes);
    d[18..20].copy_from_slice(&1000u16.to_be_bytes());
    d[20..24].copy_from_slice(&kbytes);
    d[26..28].copy_from_slice(&1000u16.to_be_bytes());
    (cdb, d)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_streaming_as_dvdspeed_c() {
        let (cdb, d) = set_streaming(4);
        assert_eq!(cdb, [0xB6, 0, 0, 0, 0, 0, 0, 0, 0, 0, 28, 0]);
        // 4 × 177 = 708 = 0x2c4.
        assert_eq!(
            d,
            [
                0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0x02, 0xC4, 0, 0, 0x03, 0xE8,
                0, 0, 0x02, 0xC4, 0, 0, 0x03, 0xE8
            ]
        );
        let (_, d) = set_streaming(0);
        assert_eq!(d[0], 4);
        assert_eq!(&d[12..16], &[0, 0, 0, 0]);
    }
}
