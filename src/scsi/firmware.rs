//! WRITE BUFFER for `--fwdownload` (SPC-5 §6.49): hdparm's ATA modes in SCSI's words. ATA
//! mode 7 (the whole file) is mode 05h; ATA mode 3 (segments with offsets, saved, active
//! now) is 07h; ATA mode 0Eh (segments, active later) is 0Eh, then 0Fh to activate, as
//! `sg_write_buffer --bpw=N,act` does it.
//!
//! Owns: the segments (offsets and lengths in the CDB, 24 bits each), the checks that the
//! image fits them, and READ BUFFER's descriptor (offset boundary). Must not: read the file
//! or touch a device; the file checks of hdparm (`ata::fwdownload::file_problem`) still
//! apply before a plan is made.

use super::cdb::{self, wb_mode};
use super::{be, byte, Command};

/// How the image goes to the disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// 05h: the whole image in one WRITE BUFFER (hdparm's mode 7).
    Whole,
    /// 07h: segments with offsets, saved and active now (hdparm's mode 3 and its default).
    Segmented,
    /// 0Eh segments, saved and deferred, then 0Fh activates them (hdparm's mode E).
    Deferred,
}

/// The largest value of WRITE BUFFER's 24-bit offset and length fields.
pub const MAX_24: usize = 0xFF_FFFF;

/// The segment size when neither the user nor the disk says one: 1 KiB, what the VM bench's
/// oracle used (`sg_write_buffer --bpw=1024`), a multiple of every offset boundary up to 2^10.
pub const DEFAULT_SEGMENT_BYTES: usize = 1024;

/// READ BUFFER descriptor (SPC-5 §6.20.5): offsets must be multiples of 2^`offset_boundary`
/// (FFh: only offset 0), and the buffer holds `capacity` bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDescriptor {
    pub offset_boundary: u8,
    pub capacity: u32,
}

/// The descriptor; `None` when fewer than 4 bytes came back.
pub fn buffer_descriptor(answer: &[u8]) -> Option<BufferDescriptor> {
    (answer.len() >= 4).then(|| BufferDescriptor {
        offset_boundary: byte(answer, 0),
        capacity: be(answer, 1, 3) as u32,
    })
}

/// The segment size for `mode`: `wanted` (or [`DEFAULT_SEGMENT_BYTES`]) rounded up to the
/// disk's offset boundary and cut to its buffer capacity, when the disk says them.
pub fn segment_bytes(wanted: Option<usize>, descriptor: Option<BufferDescriptor>) -> usize {
    let mut n = wanted.unwrap_or(DEFAULT_SEGMENT_BYTES).clamp(1, MAX_24);
    if let Some(d) = descriptor {
        if d.offset_boundary < 24 {
            let unit = 1usize << d.offset_boundary;
            n = n.div_ceil(unit) * unit;
        }
        if d.capacity > 0 {
            n = n.min(d.capacity as usize);
        }
    }
    n.clamp(1, MAX_24)
}

/// The WRITE BUFFER commands for `image` in `mode`, segments of `segment` bytes (ignored for
/// [`Mode::Whole`]), or the sentence why the image does not fit.
pub fn commands(mode: Mode, image: &[u8], segment: usize) -> Result<Vec<Command>, String> {
    if image.is_empty() {
        return Err("the firmware image is empty".to_string());
    }
    let too_big = || {
        format!(
            "the firmware image ({} bytes) is larger than WRITE BUFFER can address ({MAX_24} bytes)",
            image.len()
        )
    };
    if mode == Mode::Whole && image.len() > MAX_24 {
        return Err(too_big());
    }
    let code = match mode {
        Mode::Whole => {
            return Ok(vec![cdb::write_buffer(
                wb_mode::DOWNLOAD_SAVE,
                0,
                0,
                image.to_vec(),
            )])
        }
        Mode::Segmented => wb_mode::DOWNLOAD_OFFSETS_SAVE,
        Mode::Deferred => wb_mode::DOWNLOAD_OFFSETS_DEFER,
    };
    let segment = segment.clamp(1, MAX_24);
    let mut out = Vec::with_capacity(image.len().div_ceil(segment) + 1);
    for (i, chunk) in image.chunks(segment).enumerate() {
        let offset = i * segment;
        if offset > MAX_24 {
            return Err(too_big());
        }
        out.push(cdb::write_buffer(code, 0, offset as u32, chunk.to_vec()));
    }
    if mode == Mode::Deferred {
        out.push(cdb::write_buffer(
            wb_mode::ACTIVATE_DEFERRED,
            0,
            0,
            Vec::new(),
        ));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::super::hex;
    use super::*;

    fn cdbs(c: &[Command]) -> Vec<String> {
        c.iter().map(|c| hex(&c.cdb)).collect()
    }

    #[test]
    fn mode_7_segments_are_sg_write_buffers() {
        // sg_write_buffer --mode=7 --bpw=1024 --in=fw.bin (4 KiB of 'F')
        let img = vec![b'F'; 4096];
        let c = commands(Mode::Segmented, &img, 1024).unwrap();
        assert_eq!(
            cdbs(&c),
            [
                "3b 07 00 00 00 00 00 04 00 00",
                "3b 07 00 00 04 00 00 04 00 00",
                "3b 07 00 00 08 00 00 04 00 00",
                "3b 07 00 00 0c 00 00 04 00 00",
            ]
        );
        assert!(c.iter().all(|c| c.data_out == vec![b'F'; 1024]));
    }

    #[test]
    fn mode_e_then_activate() {
        let img = vec![b'F'; 2500];
        let c = commands(Mode::Deferred, &img, 1024).unwrap();
        assert_eq!(
            cdbs(&c),
            [
                "3b 0e 00 00 00 00 00 04 00 00",
                "3b 0e 00 00 04 00 00 04 00 00",
                "3b 0e 00 00 08 00 00 01 c4 00",
                "3b 0f 00 00 00 00 00 00 00 00",
            ]
        );
        assert!(c[3].data_out.is_empty());
    }

    #[test]
    fn mode_5_is_one_command() {
        let c = commands(Mode::Whole, &[1; 4096], 1024).unwrap();
        assert_eq!(cdbs(&c), ["3b 05 00 00 00 00 00 10 00 00"]);
        assert!(commands(Mode::Whole, &vec![0; MAX_24 + 1], 512).is_err());
        assert!(commands(Mode::Segmented, &[], 512).is_err());
    }

    #[test]
    fn segment_size_follows_the_descriptor() {
        assert_eq!(segment_bytes(None, None), 1024);
        let d = BufferDescriptor {
            offset_boundary: 12,
            capacity: 0x10000,
        };
        assert_eq!(segment_bytes(Some(1000), Some(d)), 4096);
        assert_eq!(segment_bytes(Some(1 << 20), Some(d)), 0x10000);
        assert_eq!(
            buffer_descriptor(&[0x09, 0x01, 0x00, 0x00]),
            Some(BufferDescriptor {
                offset_boundary: 9,
                capacity: 0x10000
            })
        );
        assert_eq!(buffer_descriptor(&[1, 2]), None);
    }
}
