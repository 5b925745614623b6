//! The Western Digital "idle3" timer of WD Green drives (`-J`, reference §4.11): hdparm 9.65's
//! vendor command sequence as plain taskfiles, the seconds-to-raw conversion and the words
//! hdparm prints for a raw value.
//!
//! The sequence (wdidle3.c): enable the vendor-specific commands (0x80, feature 'E', LBA
//! "WD\0"), send a key through SMART feature 0xD6 (LBA 0xC24FBE) with a 512-byte block saying
//! read or write, then read (SMART 0xD5) or write (SMART 0xD6) the timer at LBA 0xC24FBF, and
//! disable the vendor commands again (feature 'D'). Every command has a 12 s timeout, device
//! register 0xA0, and goes through SG_IO only (hdparm's `sg16`, no legacy fallback).
//!
//! Must not: touch a device (the steps send these through `DeviceAccess`).

use super::command::{op, Protocol, TaskFile};

/// hdparm's timeout for each command of the sequence, seconds.
pub const TIMEOUT_SECS: u32 = 12;
/// The device register every command of the sequence carries (obsolete bits 7 and 5 only).
const DEVICE: u8 = 0xA0;
/// LBA of the vendor-command switch: 'W' 'D' 0 (LBA 23:16, 15:8, 7:0).
const VSC_LBA: u64 = (b'W' as u64) << 16 | (b'D' as u64) << 8;
/// SMART feature that writes a vendor "register" (the key, or the timer).
const SMART_VENDOR_WRITE: u16 = 0xD6;
/// SMART feature that reads a vendor "register" (the timer).
const SMART_VENDOR_READ: u16 = 0xD5;
/// LBA of the key block.
const KEY_LBA: u64 = 0xC2_4FBE;
/// LBA of the timer value.
const TIMER_LBA: u64 = 0xC2_4FBF;
/// Raw values from here on count in 30 s units (0x81 = 30 s ... 0x8A = 300 s).
const THRESHOLD: u8 = 128;

/// Which way the timer is accessed (the key block says so in its byte 2).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Access {
    Read = 1,
    Write = 2,
}

fn command(command: u8, lba: u64, count: u16, feature: u16, protocol: Protocol) -> TaskFile {
    let mut tf = TaskFile::new(command, lba, count);
    tf.feature = feature;
    tf.device = DEVICE;
    tf.protocol = protocol;
    tf.timeout_secs = TIMEOUT_SECS;
    tf
}

/// The vendor-command switch: on (feature 'E') before the access, off ('D') after it.
pub fn vsc_switch(on: bool) -> TaskFile {
    let feature = if on { b'E' } else { b'D' };
    command(
        op::VENDOR_WD_80,
        VSC_LBA,
        0,
        u16::from(feature),
        Protocol::NonData,
    )
}

/// The key command and its 512-byte block (PIO out).
pub fn send_key(access: Access) -> (TaskFile, [u8; 512]) {
    let mut block = [0u8; 512];
    block[0] = 0x2A;
    block[2] = access as u8;
    block[4] = 0x02;
    block[6] = 0x0D;
    block[8] = 0x16;
    block[10] = 0x01;
    let tf = command(op::SMART, KEY_LBA, 1, SMART_VENDOR_WRITE, Protocol::PioOut);
    (tf, block)
}

/// Reading the timer: one 512-byte block in, the raw value in its byte 0.
pub fn read_timer() -> TaskFile {
    command(op::SMART, TIMER_LBA, 1, SMART_VENDOR_READ, Protocol::PioIn)
}

/// Writing the timer: one 512-byte block out with the raw value in byte 0.
pub fn write_timer(raw: u8) -> (TaskFile, [u8; 512]) {
    let mut block = [0u8; 512];
    block[0] = raw;
    let tf = command(
        op::SMART,
        TIMER_LBA,
        1,
        SMART_VENDOR_WRITE,
        Protocol::PioOut,
    );
    (tf, block)
}

/// hdparm's conversion of `-J` seconds (0..=300) to the raw timer value: 0 disables, 1-7 give
/// the 8.0 s minimum, 8-12 count in tenths, longer ones round up to 30 s units (at most 300 s).
pub fn secs_to_raw(secs: u32) -> u8 {
    match secs {
        0 => 0,
        1..=7 => 80,
        8..=12 => (secs * 10) as u8,
        _ => {
            // hdparm adds 29 and then caps at 300, so 271..300 all give 300 s.
            let rounded = (secs.saturating_add(29)).min(300);
            (rounded / 30) as u8 + THRESHOLD
        }
    }
}

/// The words hdparm prints for a raw value (`8.0 secs`, `30 secs (or 12.9 secs for older
/// drives)`, `disabled`), with the `[raw=0x..] ` prefix under `--verbose`.
pub fn describe(raw: u8, verbose: bool) -> String {
    let mut s = if verbose {
        format!("[raw=0x{raw:02x}] ")
    } else {
        String::new()
    };
    let tenths = format!("{}.{}", raw / 10, raw % 10);
    if raw == 0 {
        s.push_str("disabled");
    } else if raw < 0x50 || raw == THRESHOLD {
        s.push_str(&format!("{raw} ??"));
    } else if raw < THRESHOLD {
        s.push_str(&format!("{tenths} secs"));
    } else {
        if raw > THRESHOLD + 10 {
            s.push_str(&format!("{raw} ??"));
        } else {
            s.push_str(&format!("{} secs", u32::from(raw - THRESHOLD) * 30));
        }
        s.push_str(&format!(" (or {tenths} secs for older drives)"));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn seconds_to_raw_as_hdparm() {
        let cases = [
            (0, 0),
            (1, 80),
            (7, 80),
            (8, 80),
            (12, 120),
            (13, 129),
            (30, 129),
            (31, 130),
            (60, 130),
            (61, 131),
            (270, 137),
            (271, 138),
            (300, 138),
        ];
        for (secs, raw) in cases {
            assert_eq!(secs_to_raw(secs), raw, "{secs} s");
        }
    }

    #[test]
    fn raw_words_as_hdparm() {
        assert_eq!(describe(0, false), "disabled");
        assert_eq!(describe(0x20, false), "32 ??");
        assert_eq!(describe(80, false), "8.0 secs");
        assert_eq!(describe(127, false), "12.7 secs");
        assert_eq!(describe(128, false), "128 ??");
        assert_eq!(
            describe(129, false),
            "30 secs (or 12.9 secs for older drives)"
        );
        assert_eq!(
            describe(138, false),
            "300 secs (or 13.8 secs for older drives)"
        );
        assert_eq!(
            describe(0xFF, false),
            "255 ?? (or 25.5 secs for older drives)"
        );
        assert_eq!(describe(80, true), "[raw=0x50] 8.0 secs");
    }

    #[test]
    fn the_sequence_registers() {
        let on = vsc_switch(true);
        assert_eq!(
            (
                on.command,
                on.feature,
                on.count,
                on.lba,
                on.device_register()
            ),
            (0x80, 0x45, 0, 0x57_4400, 0xA0)
        );
        assert_eq!(on.protocol, Protocol::NonData);
        assert!(!on.lba48);
        assert_eq!(on.timeout(), 12);
        assert_eq!(vsc_switch(false).feature, 0x44);
        let (key, block) = send_key(Access::Write);
        assert_eq!(
            (key.command, key.feature, key.count, key.lba),
            (0xB0, 0xD6, 1, 0xC2_4FBE)
        );
        assert_eq!(key.protocol, Protocol::PioOut);
        assert_eq!(&block[..12], &[0x2A, 0, 2, 0, 2, 0, 0x0D, 0, 0x16, 0, 1, 0]);
        assert!(block[12..].iter().all(|&b| b == 0));
        assert_eq!(send_key(Access::Read).1[2], 1);
        let read = read_timer();
        assert_eq!((read.feature, read.lba, read.count), (0xD5, 0xC2_4FBF, 1));
        assert_eq!(read.protocol, Protocol::PioIn);
        let (write, block) = write_timer(0x81);
        assert_eq!((write.feature, write.lba), (0xD6, 0xC2_4FBF));
        assert_eq!(block[0], 0x81);
        // The 16-byte CDB hdparm sends for the switch: non-data, CK_COND, 28-bit.
        assert_eq!(
            on.cdb16(),
            [0x85, 0x06, 0x20, 0, 0x45, 0, 0, 0, 0x00, 0, 0x44, 0, 0x57, 0xA0, 0x80, 0]
        );
    }
}
