//! Fuzz target: the pure planning and decoding of the firmware component: DOWNLOAD MICROCODE
//! plans from arbitrary IDENTIFY words and file sizes (every segment's registers, the drive's
//! answers between segments), the WD idle3 codecs, and `--fibmap`'s extents and rows. Must
//! never panic; the segments must cover the file exactly, in order.

#![no_main]

use hdparm::ata::{fwdownload, wdidle3};
use hdparm::cli::FwMode;
use hdparm::report::filemap::{FibmapRuns, FileExtent};
use libfuzzer_sys::fuzz_target;

fn u64_at(data: &[u8], at: usize) -> u64 {
    let mut b = [0u8; 8];
    for (i, x) in b.iter_mut().enumerate() {
        *x = data.get(at + i).copied().unwrap_or(0);
    }
    u64::from_le_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    let mut words = [0u16; 256];
    for (i, w) in words.iter_mut().enumerate() {
        let lo = data.get(2 * i).copied().unwrap_or(0);
        let hi = data.get(2 * i + 1).copied().unwrap_or(0);
        *w = u16::from_le_bytes([lo, hi]);
    }
    let mode = match data.get(512).copied().unwrap_or(0) % 6 {
        0 => FwMode::Default,
        1 => FwMode::Mode3,
        2 => FwMode::Mode3Max,
        3 => FwMode::Mode7,
        4 => FwMode::ModeE,
        _ => FwMode::ModeEMax,
    };
    // The plan's contract: a non-zero multiple of 512, at most MAX_BYTES (file_problem first).
    let len = u64_at(data, 513);
    let _ = fwdownload::file_problem("f", len & 1 == 0, len);
    let len = (len % (fwdownload::MAX_BYTES / 512) + 1) * 512;
    let plan = fwdownload::Plan::new(mode, &words, len);
    let _ = plan.banner();
    let mut next = 0;
    for (offset, bytes) in plan.segments(len) {
        assert_eq!(offset, next);
        assert!(bytes > 0 && bytes % 512 == 0);
        next = offset + bytes;
        let tf = plan.segment_command(offset, bytes);
        let _ = tf.cdb16();
        let status = fwdownload::SegmentStatus::from_count(data.get(521).copied().unwrap_or(0));
        let _ = fwdownload::after_segment(status, next, len);
    }
    assert_eq!(next, len);
    let raw = data.get(522).copied().unwrap_or(0);
    assert!(!wdidle3::describe(raw, raw & 1 == 0).is_empty());
    let _ = wdidle3::secs_to_raw(u32::from(raw) * 2);
    let blksize = (u64_at(data, 523) as u32).max(1);
    let e = FileExtent::from_fiemap(
        u64_at(data, 527),
        u64_at(data, 535),
        u64_at(data, 543),
        u64_at(data, 551) as u32,
        blksize,
    );
    let _ = e.row(blksize / 512, u64_at(data, 555));
    let mut runs = FibmapRuns::default();
    for chunk in data.get(563..).unwrap_or(&[]).chunks(4) {
        let mut b = [0u8; 4];
        b[..chunk.len()].copy_from_slice(chunk);
        if let Some(x) = runs.push(u32::from_le_bytes(b), blksize) {
            let _ = x.row(8, 0);
        }
    }
    let _ = runs.finish();
});
