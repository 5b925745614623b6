//! DOWNLOAD MICROCODE (`--fwdownload*`, reference §4.10) as hdparm 9.65's fwdownload.c does
//! it: the checks of the firmware file, the choice of transfer mode and segment size from
//! IDENTIFY (words 83/86 bit 0: supported; 119/120 bit 4: segmented mode 3; 234/235: the
//! minimum and maximum segment in 512-byte blocks), the segments, the taskfile of each, and
//! what the drive's returned COUNT means between segments.
//!
//! Must not: read the file or touch a device (the step does both, through `device` and
//! `DeviceAccess`).

use super::command::{op, Protocol, TaskFile};

/// The firmware download variants, one per `--fwdownload*` spelling: the default chooses mode
/// 3 or 7 from IDENTIFY, the others name the mode and the segment size ([`Plan::new`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FwMode {
    Default,
    Mode3,
    Mode3Max,
    Mode7,
    ModeE,
    ModeEMax,
}

/// The largest file hdparm accepts: 0xFFFF blocks of 512 bytes.
pub const MAX_BYTES: u64 = 0xFFFF * 512;
/// hdparm's timeout for each segment, seconds.
pub const TIMEOUT_SECS: u32 = 120;

/// DOWNLOAD MICROCODE subcommands (ACS-4 §7.7, the FEATURE register).
pub mod mode {
    /// Download with offsets, saved for immediate and future use (segmented).
    pub const OFFSETS: u8 = 0x03;
    /// Download and save for immediate and future use (the whole file at once).
    pub const WHOLE: u8 = 0x07;
    /// Download with offsets and save for future use (activated later, segmented).
    pub const OFFSETS_DEFERRED: u8 = 0x0E;
}

/// What is wrong with the firmware file, in hdparm's words (`path` is the file as typed).
pub fn file_problem(path: &str, is_regular: bool, len: u64) -> Option<String> {
    if !is_regular {
        return Some(format!("{path}: not a regular file"));
    }
    if len > MAX_BYTES {
        return Some(format!(
            "{path}: file size too large, max={MAX_BYTES} bytes"
        ));
    }
    if len == 0 || len % 512 != 0 {
        return Some(format!("{path}: file size ({len}) not a multiple of 512"));
    }
    None
}

/// Whether the drive supports DOWNLOAD MICROCODE (words 83 and 86, bit 0).
pub fn supported(words: &[u16; 256]) -> bool {
    words[83] & 1 != 0 && words[86] & 1 != 0
}

/// The transfer hdparm plans for a file of `len` bytes (a multiple of 512, at most
/// [`MAX_BYTES`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Plan {
    /// The FEATURE register: 3, 7 or 0x0E.
    pub xfer_mode: u8,
    /// The drive's minimum and maximum segment in blocks (1 and 0xFFFF when not segmented).
    pub min: u32,
    pub max: u32,
    /// Bytes per segment (the whole file for mode 7).
    pub segment_bytes: u64,
}

impl Plan {
    /// hdparm's choice for `mode` on a drive with these IDENTIFY words.
    pub fn new(requested: FwMode, words: &[u16; 256], len: u64) -> Plan {
        // hdparm's internal codes: 0 default, 3, 0x30 (mode 3 max), 7, 0x0E, 0xE0 (mode E max).
        let segmented_supported = words[119] & 0x10 != 0 && words[120] & 0x10 != 0;
        let requested = match requested {
            FwMode::Default if segmented_supported => FwMode::Mode3,
            FwMode::Default => FwMode::Mode7,
            other => other,
        };
        let (mut min, mut max) = (1u32, 0xFFFFu32);
        // hdparm 9.65 reads the drive's segment words for its codes 3, 0x30 and 0x0E only:
        // mode E max (0xE0) keeps 1 and 0xFFFF, so its segment is 0xFFFF blocks, the whole
        // file in one DOWNLOAD MICROCODE 0x0E (a drive whose maximum is smaller aborts it,
        // and nothing is saved). The wire is hdparm's, so is this.
        if !matches!(requested, FwMode::Mode7 | FwMode::ModeEMax) {
            min = u32::from(words[234]);
            if min == 0 || min == 0xFFFF {
                min = 1;
            }
            max = u32::from(words[235]);
            if max == 0 || max == 0xFFFF {
                max = min;
            }
        }
        let (xfer_mode, blocks) = match requested {
            FwMode::Mode3 | FwMode::Default => (mode::OFFSETS, u64::from(min)),
            FwMode::Mode3Max => (mode::OFFSETS, u64::from(max)),
            FwMode::ModeE => (mode::OFFSETS_DEFERRED, u64::from(min)),
            FwMode::ModeEMax => (mode::OFFSETS_DEFERRED, u64::from(max)),
            FwMode::Mode7 => (mode::WHOLE, len / 512),
        };
        Plan {
            xfer_mode,
            min,
            max,
            segment_bytes: blocks * 512,
        }
    }

    /// Whether the transfer goes in segments (a `.` on stdout after each).
    pub fn segmented(&self) -> bool {
        self.xfer_mode != mode::WHOLE
    }

    /// hdparm's stderr banner (without the newline).
    pub fn banner(&self) -> String {
        format!(
            "fwdownload: xfer_mode={} min={} max={} size={}",
            self.xfer_mode, self.min, self.max, self.segment_bytes
        )
    }

    /// The segments, as (byte offset, byte count): full segments, then what is left.
    pub fn segments(&self, len: u64) -> Vec<(u64, u64)> {
        let mut out = Vec::new();
        let mut offset = 0;
        let mut size = self.segment_bytes.max(512);
        while offset < len {
            if offset + size >= len {
                size = len - offset;
            }
            out.push((offset, size));
            offset += size;
        }
        out
    }

    /// The DOWNLOAD MICROCODE command for one segment: COUNT = blocks (7:0), LBA (7:0) =
    /// blocks (15:8), LBA (23:8) = offset in blocks; PIO out, 120 s, device register 0xE0.
    pub fn segment_command(&self, offset: u64, bytes: u64) -> TaskFile {
        let blocks = bytes / 512;
        let lba = (offset / 512) << 8 | ((blocks >> 8) & 0xFF);
        let mut tf = TaskFile::sector_command(
            op::DOWNLOAD_MICROCODE,
            lba,
            (blocks & 0xFF) as u16,
            Protocol::PioOut,
            false,
        );
        tf.feature = u16::from(self.xfer_mode);
        tf.timeout_secs = TIMEOUT_SECS;
        tf
    }
}

/// What the drive's returned COUNT says after a segment (segmented modes only).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SegmentStatus {
    /// 1: the drive wants more data.
    WantsMore,
    /// 2: the drive considers the download complete.
    Done,
    /// Anything else: no indication.
    NoIndication,
}

impl SegmentStatus {
    pub fn from_count(count: u8) -> SegmentStatus {
        match count {
            1 => SegmentStatus::WantsMore,
            2 => SegmentStatus::Done,
            _ => SegmentStatus::NoIndication,
        }
    }
}

/// What happens after a segment, given what the drive said and whether data is left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Send the next segment (or finish: ` Done.` when none is left).
    Continue,
    /// Stop with an error: hdparm's stderr lines (EIO).
    Fail(Vec<String>),
}

/// hdparm's decision after a segment that ended at byte `sent` of `len`.
pub fn after_segment(status: SegmentStatus, sent: u64, len: u64) -> Next {
    match status {
        SegmentStatus::Done if sent < len => Next::Fail(vec![format!(
            "Error: drive completed transfer at {sent}/{len} bytes"
        )]),
        SegmentStatus::WantsMore if sent >= len => Next::Fail(vec![
            "Error: drive expects more data than provided,".to_string(),
            "but the transfer may have worked regardless.".to_string(),
        ]),
        _ => Next::Continue,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(segmented: bool, min: u16, max: u16) -> [u16; 256] {
        let mut w = [0u16; 256];
        w[83] = 0x4001;
        w[86] = 0x0001;
        if segmented {
            w[119] = 0x4010;
            w[120] = 0x4010;
        }
        w[234] = min;
        w[235] = max;
        w
    }

    #[test]
    fn file_checks_in_hdparms_order_and_words() {
        assert_eq!(file_problem("fw", true, 1024), None);
        assert_eq!(
            file_problem("fw", false, 1024).unwrap(),
            "fw: not a regular file"
        );
        assert_eq!(
            file_problem("fw", true, MAX_BYTES + 512).unwrap(),
            "fw: file size too large, max=33553920 bytes"
        );
        assert_eq!(
            file_problem("fw", true, 0).unwrap(),
            "fw: file size (0) not a multiple of 512"
        );
        assert_eq!(
            file_problem("fw", true, 1000).unwrap(),
            "fw: file size (1000) not a multiple of 512"
        );
        assert_eq!(file_problem("fw", true, MAX_BYTES), None);
    }

    #[test]
    fn support_needs_both_words() {
        assert!(supported(&words(false, 0, 0)));
        let mut w = words(false, 0, 0);
        w[86] = 0;
        assert!(!supported(&w));
    }

    #[test]
    fn default_mode_follows_words_119_120() {
        let p = Plan::new(FwMode::Default, &words(true, 2, 8), 4096);
        assert_eq!(
            (p.xfer_mode, p.min, p.max, p.segment_bytes),
            (3, 2, 8, 1024)
        );
        let p = Plan::new(FwMode::Default, &words(false, 2, 8), 4096);
        assert_eq!(
            (p.xfer_mode, p.min, p.max, p.segment_bytes),
            (7, 1, 0xFFFF, 4096)
        );
        assert_eq!(
            p.banner(),
            "fwdownload: xfer_mode=7 min=1 max=65535 size=4096"
        );
        assert!(!p.segmented());
    }

    #[test]
    fn min_and_max_words_with_their_defaults() {
        // 0 and 0xFFFF mean "not reported": min 1, max = min.
        let p = Plan::new(FwMode::Mode3Max, &words(true, 0, 0xFFFF), 4096);
        assert_eq!((p.min, p.max, p.segment_bytes), (1, 1, 512));
        let p = Plan::new(FwMode::Mode3Max, &words(true, 2, 4), 4096);
        assert_eq!((p.xfer_mode, p.segment_bytes), (3, 2048));
        let p = Plan::new(FwMode::ModeE, &words(true, 2, 4), 4096);
        assert_eq!((p.xfer_mode, p.segment_bytes), (0x0E, 1024));
        // Mode E max: hdparm 9.65 does not look at the drive's words (min 1, max 0xFFFF).
        let p = Plan::new(FwMode::ModeEMax, &words(true, 2, 4), 4096);
        assert_eq!((p.xfer_mode, p.segment_bytes), (0x0E, 0xFFFF * 512));
        assert_eq!(
            p.banner(),
            "fwdownload: xfer_mode=14 min=1 max=65535 size=33553920"
        );
        assert_eq!(p.segments(4096), vec![(0, 4096)]);
        // Mode 3 asked of a drive that does not say it has it: hdparm sends it anyway.
        let p = Plan::new(FwMode::Mode3, &words(false, 3, 3), 4096);
        assert_eq!((p.xfer_mode, p.segment_bytes), (3, 1536));
    }

    #[test]
    fn segments_end_with_the_rest() {
        let p = Plan::new(FwMode::Mode3, &words(true, 3, 3), 4096);
        assert_eq!(
            p.segments(4096),
            vec![(0, 1536), (1536, 1536), (3072, 1024)]
        );
        let p = Plan::new(FwMode::Mode7, &words(true, 3, 3), 4096);
        assert_eq!(p.segments(4096), vec![(0, 4096)]);
    }

    #[test]
    fn segment_registers() {
        let p = Plan::new(FwMode::Mode3, &words(true, 2, 2), 4096);
        let tf = p.segment_command(3072, 1024);
        assert_eq!(
            (tf.command, tf.feature, tf.count, tf.lba),
            (0x92, 3, 2, 6 << 8)
        );
        assert_eq!(tf.device_register(), 0xE0);
        assert_eq!(tf.protocol, Protocol::PioOut);
        assert_eq!(tf.timeout(), 120);
        assert!(!tf.lba48);
        // A whole 0xFFFF-block file: COUNT 0xFF, LBA (7:0) 0xFF.
        let p = Plan::new(FwMode::Mode7, &words(false, 0, 0), MAX_BYTES);
        let tf = p.segment_command(0, MAX_BYTES);
        assert_eq!((tf.count, tf.lba), (0xFF, 0xFF));
        // 0x100 blocks: COUNT 0, LBA (7:0) 1.
        let tf = p.segment_command(512, 0x100 * 512);
        assert_eq!((tf.count, tf.lba), (0, 1 << 8 | 1));
        assert_eq!(
            tf.cdb16(),
            [0x85, 0x0A, 0x06, 0, 0x07, 0, 0, 0, 0x01, 0, 0x01, 0, 0x00, 0xE0, 0x92, 0]
        );
    }

    #[test]
    fn what_the_drive_says_between_segments() {
        assert_eq!(SegmentStatus::from_count(1), SegmentStatus::WantsMore);
        assert_eq!(SegmentStatus::from_count(2), SegmentStatus::Done);
        assert_eq!(SegmentStatus::from_count(0), SegmentStatus::NoIndication);
        assert_eq!(
            after_segment(SegmentStatus::WantsMore, 512, 1024),
            Next::Continue
        );
        assert_eq!(
            after_segment(SegmentStatus::Done, 1024, 1024),
            Next::Continue
        );
        assert_eq!(
            after_segment(SegmentStatus::Done, 512, 1024),
            Next::Fail(vec![
                "Error: drive completed transfer at 512/1024 bytes".into()
            ])
        );
        assert_eq!(
            after_segment(SegmentStatus::WantsMore, 1024, 1024),
            Next::Fail(vec![
                "Error: drive expects more data than provided,".into(),
                "but the transfer may have worked regardless.".into()
            ])
        );
        assert_eq!(
            after_segment(SegmentStatus::NoIndication, 1024, 1024),
            Next::Continue
        );
    }
}
