//! TRIM (DATA SET MANAGEMENT 0x06, feature 1) as hdparm 9.65 sends it for
//! `--trim-sector-ranges` and `--trim-sector-ranges-stdin` (reference §4.9): the range payload,
//! the batch size, the command, and the `lba:count` reader of the stdin form.
//!
//! Must not: send anything, or read stdin or sysfs itself: the step hands the input in, piece
//! by piece, and the attribute's value.

use super::command::{op, Protocol, TaskFile};
use super::identify::Identify;

/// Bytes of one range entry: COUNT (63:48) and LBA (47:0), little-endian.
pub const RANGE_BYTES: usize = 8;

/// The payload of one DSM TRIM command: one entry per range, zero-padded to whole 512-byte
/// blocks.
pub fn payload(ranges: &[(u64, u64)]) -> Vec<u8> {
    let blocks = (ranges.len() * RANGE_BYTES).div_ceil(512);
    let mut data = vec![0u8; blocks * 512];
    for (chunk, (lba, count)) in data.chunks_exact_mut(RANGE_BYTES).zip(ranges) {
        let entry = (count << 48) | lba;
        chunk.copy_from_slice(&entry.to_le_bytes());
    }
    data
}

/// The DSM TRIM command for a payload of `blocks` 512-byte blocks: DMA out, 48-bit, device
/// 0x40, 300 s (hdparm's `sg16` call, which has no legacy fallback).
pub fn command(blocks: u16) -> TaskFile {
    let mut tf = TaskFile::new(op::DSM, 0, blocks);
    tf.feature = 0x0001;
    tf.protocol = Protocol::DmaOut;
    tf.timeout_secs = 300;
    tf
}

/// How many 512-byte payload blocks a drive takes in one TRIM: IDENTIFY word 105 when it is
/// set (and not 0xFFFF); else hdparm's quirks by model: 8 for "OCZ VERTEX-LE", 64 for
/// "OCZ-VERTEX", 1 for every other drive.
pub fn device_limit(id: &Identify) -> u32 {
    let w = id.word(105);
    if w != 0 && w != 0xFFFF {
        return u32::from(w);
    }
    // hdparm compares the model with only its trailing spaces removed.
    let model = id.string_bytes(27, 20);
    let end = model
        .iter()
        .rposition(|&b| b != b' ' && b != 0)
        .map_or(0, |i| i + 1);
    match &model[..end] {
        b"OCZ VERTEX-LE" => 8,
        b"OCZ-VERTEX" => 64,
        _ => 1,
    }
}

/// The payload blocks of one stdin batch: twice `queue/max_sectors_kb` (128 when it is
/// unknown or 0), at most the drive's limit.
pub fn batch_blocks(max_sectors_kb: Option<u32>, device_limit: u32) -> u32 {
    let blocks = match max_sectors_kb {
        Some(kb) if kb != 0 => kb.saturating_mul(2),
        _ => 128,
    };
    blocks.min(device_limit)
}

/// Why a `lba:count` pair of the stdin form was refused; hdparm prints the errno's text.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PairError {
    /// Not `%llu:%llu` (EINVAL).
    Malformed,
    /// COUNT above 65535 or LBA at or past the capacity (ERANGE).
    OutOfRange,
}

impl PairError {
    /// The errno hdparm exits with.
    pub fn errno(self) -> i32 {
        match self {
            PairError::Malformed => libc::EINVAL,
            PairError::OutOfRange => libc::ERANGE,
        }
    }
}

/// Where a [`PairReader`] gets more input: appends the next part of it to the buffer and
/// returns how many bytes it added (0 at the end).
pub type Refill<'s> = dyn FnMut(&mut Vec<u8>) -> std::io::Result<usize> + 's;

/// Reads `lba:count` pairs as hdparm's `scanf("%llu:%llu")` does: white space before each
/// number is skipped, the colon must follow the LBA at once, numbers are decimal with an
/// optional sign (a negative one wraps, as strtoull's does).
///
/// It streams, as hdparm's `scanf` does: it holds only the part of the input the last refill
/// gave (the step reads standard input in pieces), so a list of any length takes bounded
/// memory. A read error ends the input; [`PairReader::take_error`] says which.
#[derive(Default)]
pub struct PairReader {
    buf: Vec<u8>,
    pos: usize,
    end: bool,
    error: Option<std::io::Error>,
}

impl PairReader {
    pub fn new() -> Self {
        PairReader::default()
    }

    /// The read error that ended the input, if one did.
    pub fn take_error(&mut self) -> Option<std::io::Error> {
        self.error.take()
    }

    /// The next byte, refilling the buffer once it is all consumed.
    fn peek(&mut self, more: &mut Refill<'_>) -> Option<u8> {
        if self.pos == self.buf.len() {
            if self.end {
                return None;
            }
            self.buf.clear();
            self.pos = 0;
            loop {
                match more(&mut self.buf) {
                    Ok(0) => {
                        self.end = true;
                        return None;
                    }
                    Ok(_) if self.buf.is_empty() => {}
                    Ok(_) => break,
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.error = Some(e);
                        self.end = true;
                        return None;
                    }
                }
            }
        }
        self.buf.get(self.pos).copied()
    }

    fn skip_space(&mut self, more: &mut Refill<'_>) {
        while self.peek(more).is_some_and(|c| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    /// `%llu`: None on a matching failure (nothing consumed but white space and a sign).
    fn number(&mut self, more: &mut Refill<'_>) -> Option<u64> {
        self.skip_space(more);
        let mut negative = false;
        if let Some(c @ (b'+' | b'-')) = self.peek(more) {
            negative = c == b'-';
            self.pos += 1;
        }
        let mut digits = 0usize;
        let mut value: u64 = 0;
        let mut overflow = false;
        while let Some(c) = self.peek(more).filter(u8::is_ascii_digit) {
            match value
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(c - b'0')))
            {
                Some(v) => value = v,
                None => overflow = true,
            }
            self.pos += 1;
            digits += 1;
        }
        if digits == 0 {
            return None;
        }
        if overflow {
            value = u64::MAX;
        }
        Some(if negative {
            value.wrapping_neg()
        } else {
            value
        })
    }

    /// The next pair, checked against `capacity`; None at the end of the input (or at a read
    /// error: see [`PairReader::take_error`]).
    pub fn next_pair(
        &mut self,
        capacity: u64,
        more: &mut Refill<'_>,
    ) -> Option<Result<(u64, u64), PairError>> {
        self.skip_space(more);
        self.peek(more)?;
        let Some(lba) = self.number(more) else {
            return Some(Err(PairError::Malformed));
        };
        if self.peek(more) != Some(b':') {
            return Some(Err(PairError::Malformed));
        }
        self.pos += 1;
        let Some(count) = self.number(more) else {
            return Some(Err(PairError::Malformed));
        };
        if count > 0xFFFF || lba >= capacity {
            return Some(Err(PairError::OutOfRange));
        }
        Some(Ok((lba, count)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_layout() {
        let p = payload(&[(0x0102_0304_0506, 8), (100, 0xFFFF)]);
        assert_eq!(p.len(), 512);
        assert_eq!(&p[..8], &[0x06, 0x05, 0x04, 0x03, 0x02, 0x01, 0x08, 0x00]);
        assert_eq!(&p[8..16], &[100, 0, 0, 0, 0, 0, 0xFF, 0xFF]);
        assert!(p[16..].iter().all(|&b| b == 0));
        assert_eq!(payload(&vec![(1, 1); 65]).len(), 1024);
        assert_eq!(payload(&vec![(1, 1); 64]).len(), 512);
    }

    #[test]
    fn trim_cdb() {
        let tf = command(2);
        let cdb: Vec<String> = tf.cdb16().iter().map(|b| format!("{b:02x}")).collect();
        assert_eq!(
            cdb.join(" "),
            "85 0d 06 00 01 00 02 00 00 00 00 00 00 40 06 00"
        );
        assert_eq!(tf.timeout_secs, 300);
    }

    fn model(name: &str, w105: u16) -> Identify {
        let mut w = [0u16; 256];
        let mut bytes = name.as_bytes().to_vec();
        bytes.resize(40, b' ');
        for (i, pair) in bytes.chunks(2).enumerate() {
            w[27 + i] = (u16::from(pair[0]) << 8) | u16::from(pair[1]);
        }
        w[105] = w105;
        Identify::from_words(w)
    }

    #[test]
    fn limits() {
        assert_eq!(device_limit(&model("Samsung SSD", 8)), 8);
        assert_eq!(device_limit(&model("Samsung SSD", 0xFFFF)), 1);
        assert_eq!(device_limit(&model("OCZ VERTEX-LE", 0)), 8);
        assert_eq!(device_limit(&model("OCZ-VERTEX", 0)), 64);
        assert_eq!(device_limit(&model("INTEL SSDSA2M080", 0)), 1);
        assert_eq!(batch_blocks(Some(512), 8), 8);
        assert_eq!(batch_blocks(Some(32), 100), 64);
        assert_eq!(batch_blocks(None, 1000), 128);
        assert_eq!(batch_blocks(Some(0), 1000), 128);
    }

    /// A source that gives `text` `n` bytes at a time, as standard input comes in pieces.
    fn pieces(text: &[u8], n: usize) -> impl FnMut(&mut Vec<u8>) -> std::io::Result<usize> + '_ {
        let mut at = 0;
        move |buf: &mut Vec<u8>| {
            let part = &text[at..(at + n).min(text.len())];
            at += part.len();
            buf.extend_from_slice(part);
            Ok(part.len())
        }
    }

    /// Every pair of `text` read `n` bytes at a time, up to the first error.
    fn all(text: &[u8], n: usize, capacity: u64) -> Vec<Result<(u64, u64), PairError>> {
        let mut source = pieces(text, n);
        let mut r = PairReader::new();
        let mut out = Vec::new();
        while let Some(pair) = r.next_pair(capacity, &mut source) {
            let stop = pair.is_err();
            out.push(pair);
            if stop {
                break;
            }
        }
        out
    }

    #[test]
    fn pairs_as_scanf_reads_them() {
        // Whatever the pieces the input comes in, one byte at a time included.
        for n in [1, 2, 3, 5, 64] {
            assert_eq!(
                all(b" 10:5\n20: 6\t30:7 ", n, 100),
                [Ok((10, 5)), Ok((20, 6)), Ok((30, 7))],
                "{n}"
            );
            assert_eq!(all(b"10 :5", n, 100), [Err(PairError::Malformed)]);
            assert_eq!(all(b"x", n, 100), [Err(PairError::Malformed)]);
            assert_eq!(all(b"10:", n, 100), [Err(PairError::Malformed)]);
            assert_eq!(all(b"10:65536", n, 100), [Err(PairError::OutOfRange)]);
            assert_eq!(all(b"100:1", n, 100), [Err(PairError::OutOfRange)]);
            assert_eq!(all(b"+5:+2", n, 100), [Ok((5, 2))]);
            assert_eq!(all(b"-1:2", n, u64::MAX), [Err(PairError::OutOfRange)]);
        }
        assert_eq!(PairError::OutOfRange.errno(), libc::ERANGE);
    }

    #[test]
    fn a_read_error_ends_the_input_and_is_kept() {
        let mut first = true;
        let mut source = |buf: &mut Vec<u8>| {
            if std::mem::take(&mut first) {
                buf.extend_from_slice(b"1:1 2:");
                Ok(6)
            } else {
                Err(std::io::Error::from_raw_os_error(libc::EIO))
            }
        };
        let mut r = PairReader::new();
        assert_eq!(r.next_pair(100, &mut source), Some(Ok((1, 1))));
        assert_eq!(
            r.next_pair(100, &mut source),
            Some(Err(PairError::Malformed))
        );
        assert_eq!(
            r.take_error().and_then(|e| e.raw_os_error()),
            Some(libc::EIO)
        );
    }

    #[test]
    fn the_reader_holds_one_piece_at_a_time() {
        let text: Vec<u8> = (0..10_000u64)
            .flat_map(|i| format!("{i}:1\n").into_bytes())
            .collect();
        let mut source = pieces(&text, 4096);
        let mut r = PairReader::new();
        let mut n = 0;
        while let Some(Ok(_)) = r.next_pair(u64::MAX, &mut source) {
            n += 1;
            assert!(r.buf.capacity() <= 8192, "{}", r.buf.capacity());
        }
        assert_eq!(n, 10_000);
    }
}
