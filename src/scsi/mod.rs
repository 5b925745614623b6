//! Pure SCSI (SPC-5, SBC-4): the commands and answers of hdparm's jobs on a disk that is SCSI
//! all the way down (a SAS drive, a virtio-scsi disk, a USB bridge that rejects ATA
//! PASS-THROUGH), as issue 22's "SCSI twins" need them.
//!
//! Owns: the CDB builders ([`cdb`]), the decoders of what a disk answers (INQUIRY and its VPD
//! pages in [`inquiry`], READ CAPACITY(16) in [`capacity`], mode pages in [`mode`], sense data
//! in [`sense`], log pages in [`log`]), and the decisions the twins take from those answers
//! (the MODE SELECT of `-W`/`-A`/`-S`, the `-C` state word, the UNMAP split of
//! `--trim-sector-ranges` in [`unmap`], the WRITE BUFFER segments of `--fwdownload` in
//! [`firmware`], SANITIZE and the `--security-erase` refusal in [`sanitize`]).
//!
//! What each twin calls (the executor sends the commands, in this order, and hands the
//! answers back; "answer" is the data in, clipped to what the disk returned):
//!
//! | job | commands | decision / decoder |
//! |---|---|---|
//! | `-I`, `-i` | [`cdb::inquiry`], [`cdb::inquiry_vpd`] 80h, 83h, B0h, B1h, B2h, [`cdb::read_capacity_16`] | [`crate::report::scsi::ScsiIdentifyReport::from_answers`], then `render` / `render_brief` |
//! | `-W` | [`mode::sense_pair`]`(mode::CACHING)` (current only for a get) | [`mode::caching`]`.wce` |
//! | `-W0/1` | the same pair | [`mode::set_write_cache`] → the MODE SELECT(10), or a [`mode::Refusal`]; or write [`mode::sd_cache_type`] to sysfs |
//! | `-A`, `-A0/1` | the same pair | `!`[`mode::caching`]`.dra`; [`mode::set_read_ahead`] |
//! | `-S N` | [`mode::sense_pair`]`(mode::POWER_CONDITION)` | [`mode::set_standby`] |
//! | `-C` | [`cdb::request_sense`], once more on [`sense::PowerReading::AskAgain`] | [`sense::power_state_of`] → [`sense::PowerState::word`] |
//! | `-y` / `-Y` | [`cdb::start_stop_unit`] with [`cdb::StartStop::ForceStandby0`] / `Stop` | |
//! | `-F` | [`cdb::synchronize_cache_10`] | |
//! | `-H` | [`cdb::log_sense`] 0Dh, 2Fh | [`log::temperature`], [`log::informational_exceptions`], [`log::in_range`] |
//! | `--trim-sector-ranges` | [`cdb::inquiry_vpd`] B0h | [`unmap::Limits::from_block_limits`], [`unmap::commands`] |
//! | `--read-sector`, `--write-sector` | [`cdb::read_capacity_16`] (the block length) | [`cdb::read_16`], [`cdb::write_16`] |
//! | `--sanitize-*` | | [`sanitize::command`] |
//! | `--sanitize-status` | [`cdb::request_sense`] | [`sanitize::status`] |
//! | `--security-erase` | none | [`sanitize::SECURITY_ERASE_REFUSAL`] |
//! | `--fwdownload*` | [`cdb::read_buffer_descriptor`] (optional) | [`firmware::segment_bytes`], [`firmware::commands`] |
//!
//! Must not: touch a device or print. Every decoder is total over arbitrary bytes (a short or
//! garbled answer decodes to less, never to a panic: `fuzz/fuzz_targets/scsi_decode.rs`).
//! For a command that changes the disk, the CDB and the parameter data are the bytes sdparm
//! 1.12 and sg3_utils 1.46 send for the same job (tests/vm/README.md, profile `scsi`); the
//! tests beside each builder pin them.

pub mod capacity;
pub mod cdb;
pub mod firmware;
pub mod inquiry;
pub mod log;
pub mod mode;
pub mod sanitize;
pub mod sense;
pub mod unmap;

/// Which way a command's data moves (SG_IO's `dxfer_direction`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    None,
    /// Data out: [`Command::data_out`] goes to the disk.
    ToDevice,
    /// Data in: up to [`Command::alloc_len`] bytes come back.
    FromDevice,
}

/// One SCSI command as plain data: what SG_IO sends, and how long to wait for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Command {
    /// The command's name in SPC's words, for messages and `--dry-run`: `"MODE SELECT(10)"`.
    pub name: &'static str,
    pub cdb: Vec<u8>,
    pub direction: Direction,
    /// The parameter data (empty unless `direction` is `ToDevice`).
    pub data_out: Vec<u8>,
    /// The allocation length: the data-in buffer to give (0 unless `direction` is
    /// `FromDevice`).
    pub alloc_len: u32,
    pub timeout_secs: u32,
}

/// sg3_utils' default pass-through timeout (`DEF_PT_TIMEOUT`), seconds.
pub const DEFAULT_TIMEOUT_SECS: u32 = 60;

impl Command {
    /// A command with no data.
    pub fn none(name: &'static str, cdb: Vec<u8>) -> Command {
        Command {
            name,
            cdb,
            direction: Direction::None,
            data_out: Vec::new(),
            alloc_len: 0,
            timeout_secs: DEFAULT_TIMEOUT_SECS,
        }
    }

    /// A command that reads up to `alloc_len` bytes.
    pub fn data_in(name: &'static str, cdb: Vec<u8>, alloc_len: u32) -> Command {
        Command {
            direction: Direction::FromDevice,
            alloc_len,
            ..Command::none(name, cdb)
        }
    }

    /// A command that sends `data`.
    pub fn data_out(name: &'static str, cdb: Vec<u8>, data: Vec<u8>) -> Command {
        Command {
            direction: Direction::ToDevice,
            data_out: data,
            ..Command::none(name, cdb)
        }
    }

    /// One line for `--dry-run` and `--verbose`: `MODE SELECT(10) 55 10 00 .. 24 00, 36 bytes
    /// out`.
    pub fn describe(&self) -> String {
        let data = match self.direction {
            Direction::None => String::new(),
            Direction::ToDevice => format!(", {} bytes out", self.data_out.len()),
            Direction::FromDevice => format!(", up to {} bytes in", self.alloc_len),
        };
        format!("{} {}{data}", self.name, hex(&self.cdb))
    }
}

/// Bytes as `55 10 00`, the way sg3_utils and the kernel's log print a CDB.
pub fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 3);
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(&format!("{b:02x}"));
    }
    s
}

// ---- total readers: a byte past the end reads as 0 --------------------------------------

pub(crate) fn byte(b: &[u8], at: usize) -> u8 {
    b.get(at).copied().unwrap_or(0)
}

pub(crate) fn be(b: &[u8], at: usize, len: usize) -> u64 {
    (0..len).fold(0u64, |v, i| {
        (v << 8) | u64::from(byte(b, at.saturating_add(i)))
    })
}

pub(crate) fn be16(b: &[u8], at: usize) -> u16 {
    be(b, at, 2) as u16
}

pub(crate) fn be32(b: &[u8], at: usize) -> u32 {
    be(b, at, 4) as u32
}

pub(crate) fn be64(b: &[u8], at: usize) -> u64 {
    be(b, at, 8)
}

/// `b[from..to]`, clipped to what is there.
pub(crate) fn slice(b: &[u8], from: usize, to: usize) -> &[u8] {
    let to = to.min(b.len());
    b.get(from.min(to)..to).unwrap_or(&[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readers_are_total() {
        let b = [0x12, 0x34, 0x56];
        assert_eq!(be16(&b, 0), 0x1234);
        assert_eq!(be16(&b, 2), 0x5600);
        assert_eq!(be32(&b, 1), 0x3456_0000);
        assert_eq!(be64(&b, usize::MAX), 0);
        assert_eq!(slice(&b, 2, 10), &[0x56]);
        assert_eq!(slice(&b, 5, 1), &[] as &[u8]);
    }

    /// The decoders over pseudo-random bytes (the fuzz target `scsi_decode` does more, with
    /// a nightly compiler): none panics, whatever the lengths say.
    #[test]
    fn decoders_are_total() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for round in 0..3000 {
            let len = (next() % 300) as usize;
            let mut b: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            let codes = [0x00u8, 0x80, 0x83, 0xB0, 0xB1, 0xB2, 0x08, 0x1A, 0x0D, 0x2F];
            let code = codes[round % codes.len()];
            if len > 1 {
                b[1] = code;
                if round % 2 == 0 {
                    b[0] = code;
                }
            }
            // every fourth: a mode parameter header(10) that leads to a page
            if round % 4 == 3 && len > 10 {
                let n = (len - 2) as u16;
                b[..2].copy_from_slice(&n.to_be_bytes());
                b[6] = 0;
                b[7] = 0;
                b[8] = code;
            }
            let _ = inquiry::standard(&b);
            let _ = inquiry::supported_pages(&b);
            let _ = inquiry::serial_number(&b);
            let _ = inquiry::wwn(&b).map(|w| (w.hex(), w.ieee_oui()));
            let _ = inquiry::block_limits(&b);
            let _ = inquiry::characteristics(&b);
            let _ = inquiry::provisioning(&b);
            let _ = capacity::decode(&b).map(|c| (c.bytes(), c.physical_block_length()));
            let _ = mode::caching(&b);
            let _ = mode::power_condition(&b);
            let _ = log::temperature(&b);
            let _ = log::informational_exceptions(&b);
            let _ = sense::decode(&b).map(|s| s.describe());
            let (cur, mask) = b.split_at(len / 2);
            let _ = sense::power_state_of(Some(cur), Some(mask));
            let sets = [
                mode::set_write_cache(cur, Some(mask), round % 3 == 0),
                mode::set_read_ahead(cur, Some(mask), round % 3 == 1),
                mode::set_standby(cur, Some(mask), (round % 256) as u32),
            ];
            for c in sets.into_iter().flatten() {
                assert!(c.data_out.len() <= cur.len());
            }
        }
    }

    #[test]
    fn describe_says_the_cdb_and_the_data() {
        let c = Command::data_out(
            "UNMAP",
            vec![0x42, 0, 0, 0, 0, 0, 0, 0, 0x18, 0],
            vec![0; 24],
        );
        assert_eq!(
            c.describe(),
            "UNMAP 42 00 00 00 00 00 00 00 18 00, 24 bytes out"
        );
    }
}
