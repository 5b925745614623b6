//! Mode pages (SPC-5 §7.5, SBC-4 §6.5): the mode parameter header(10), the caching page 08h
//! (`-W`, `-A`), the power condition page 1Ah (`-S`), and the MODE SELECT(10) parameter list
//! built from a MODE SENSE(10) answer as sdparm builds it.
//!
//! Owns: finding a page in a MODE SENSE answer, its fields, the changeable mask, and the
//! decisions of `-W0/1`, `-A0/1` and `-S N`: the new page, or one sentence saying why not.
//! Must not: touch a device. Every function is total over arbitrary bytes.
//!
//! The executor's sequence for a set: MODE SENSE(10) current and changeable
//! ([`super::cdb::mode_sense_10`]), then the [`Command`] that [`set_write_cache`],
//! [`set_read_ahead`] or [`set_standby`] returns. The kernel's sd driver keeps its own copy
//! of WCE (`cache_type`, `queue/write_cache`) and is not told of a MODE SELECT sent through
//! SG_IO; [`sd_cache_type`] is the value that makes sd send it itself.

use super::cdb::{self, PageControl};
use super::{be16, be32, byte, Command};

/// Page codes.
pub const CACHING: u8 = 0x08;
pub const POWER_CONDITION: u8 = 0x1A;

/// The mode parameter header of MODE SENSE(10) (SPC-5 §7.5.6, table 453).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header10 {
    /// Bytes that follow the length field itself.
    pub mode_data_length: u16,
    pub medium_type: u8,
    /// For a direct-access device: WP (bit 7), DPOFUA (bit 4).
    pub device_specific: u8,
    pub long_lba: bool,
    pub block_descriptor_length: u16,
}

/// The header, when the answer holds its 8 bytes.
pub fn header10(answer: &[u8]) -> Option<Header10> {
    (answer.len() >= 8).then(|| Header10 {
        mode_data_length: be16(answer, 0),
        medium_type: answer[2],
        device_specific: answer[3],
        long_lba: answer[4] & 1 != 0,
        block_descriptor_length: be16(answer, 6),
    })
}

/// How much of `answer` is mode data: the mode data length + 2, or less when the disk
/// returned less (sdparm's `md_len - resid`).
fn data_len(answer: &[u8]) -> usize {
    (usize::from(be16(answer, 0)) + 2).min(answer.len())
}

/// Where page `page`/`subpage` sits in a MODE SENSE(10) answer: its range of bytes (from its
/// page code byte to its last byte, clipped to the answer), or `None` when it is not there.
pub fn find_page(answer: &[u8], page: u8, subpage: u8) -> Option<std::ops::Range<usize>> {
    let h = header10(answer)?;
    let end = data_len(answer);
    let mut at = 8 + usize::from(h.block_descriptor_length);
    while at + 2 <= end {
        let code = answer[at] & 0x3F;
        let spf = answer[at] & 0x40 != 0;
        let (sub, len) = if spf {
            (byte(answer, at + 1), 4 + usize::from(be16(answer, at + 2)))
        } else {
            (0, 2 + usize::from(answer[at + 1]))
        };
        if code == page && sub == subpage {
            return Some(at..(at + len).min(end));
        }
        at += len;
    }
    None
}

/// The caching mode page 08h (SBC-4 §6.5.5), the fields the twins use.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Caching {
    /// Parameters saveable (PS).
    pub ps: bool,
    /// Write cache enabled: `-W`.
    pub wce: bool,
    /// Read cache disabled.
    pub rcd: bool,
    /// Disable read-ahead: `-A` is its inverse.
    pub dra: bool,
}

/// WCE: byte 2 bit 2; RCD: byte 2 bit 0; DRA: byte 12 bit 5.
const WCE: (usize, u8) = (2, 0x04);
const RCD: (usize, u8) = (2, 0x01);
const DRA: (usize, u8) = (12, 0x20);

fn bit(page: &[u8], (at, mask): (usize, u8)) -> bool {
    byte(page, at) & mask != 0
}

/// The caching page of a MODE SENSE(10) answer (current values, or the changeable mask: a
/// field is changeable where its bit is set).
pub fn caching(answer: &[u8]) -> Option<Caching> {
    let r = find_page(answer, CACHING, 0)?;
    let p = &answer[r];
    // Byte 12 (DRA) is inside the page on every disk (its length is 12h); a shorter page
    // simply reads DRA as 0.
    Some(Caching {
        ps: byte(p, 0) & 0x80 != 0,
        wce: bit(p, WCE),
        rcd: bit(p, RCD),
        dra: bit(p, DRA),
    })
}

/// The power condition mode page 1Ah (SPC-5 §7.5.13), the standby and idle timers; timers
/// count 100 ms.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PowerCondition {
    pub ps: bool,
    pub standby_y: bool,
    pub idle_c: bool,
    pub idle_b: bool,
    pub idle_a: bool,
    /// The standby timer `-S` sets is STANDBY_Z's.
    pub standby_z: bool,
    pub idle_a_timer: u32,
    pub standby_z_timer: u32,
    pub idle_b_timer: u32,
    pub idle_c_timer: u32,
    pub standby_y_timer: u32,
}

/// STANDBY_Z: byte 3 bit 0; its timer: bytes 8-11.
const STANDBY_Z: (usize, u8) = (3, 0x01);
const STANDBY_Z_TIMER: usize = 8;

/// The power condition page of a MODE SENSE(10) answer.
pub fn power_condition(answer: &[u8]) -> Option<PowerCondition> {
    let r = find_page(answer, POWER_CONDITION, 0)?;
    let p = &answer[r];
    Some(PowerCondition {
        ps: byte(p, 0) & 0x80 != 0,
        standby_y: byte(p, 2) & 0x01 != 0,
        idle_c: byte(p, 3) & 0x08 != 0,
        idle_b: byte(p, 3) & 0x04 != 0,
        idle_a: byte(p, 3) & 0x02 != 0,
        standby_z: bit(p, STANDBY_Z),
        idle_a_timer: be32(p, 4),
        standby_z_timer: be32(p, STANDBY_Z_TIMER),
        idle_b_timer: be32(p, 12),
        idle_c_timer: be32(p, 16),
        standby_y_timer: be32(p, 20),
    })
}

/// The MODE SELECT(10) parameter list for page `page`/`subpage` from a MODE SENSE(10)
/// answer of its current values, as sdparm builds it (sdparm.c `change_mode_page`): the mode
/// data as returned (header, block descriptors, the page), the mode data length zeroed (it
/// is reserved in MODE SELECT), the device-specific byte zeroed (reserved for a
/// direct-access device), the page's PS bit cleared (reserved too); then `edit` changes the
/// page's bytes (its slice starts at the page code byte). `None` when the page is not in the
/// answer.
pub fn select_parameter_list(
    answer: &[u8],
    page: u8,
    subpage: u8,
    edit: impl FnOnce(&mut [u8]),
) -> Option<Vec<u8>> {
    let r = find_page(answer, page, subpage)?;
    let mut list = answer[..data_len(answer)].to_vec();
    list[0] = 0;
    list[1] = 0;
    list[3] = 0;
    list[r.start] &= 0x7F;
    edit(&mut list[r]);
    Some(list)
}

/// Why a set is not sent: one sentence for the user.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refusal(pub String);

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Checks that every bit `edit` changed is changeable in the mask answer (MODE SENSE with
/// PC=01b), then builds the MODE SELECT. With no mask (the disk refused the changeable
/// query) the select is sent as sdparm sends it, unchecked.
fn set_page(
    current: &[u8],
    changeable: Option<&[u8]>,
    page: u8,
    field: &str,
    edit: impl FnOnce(&mut [u8]),
) -> Result<Command, Refusal> {
    let missing = || {
        Refusal(format!(
            "{field} cannot be set: the drive has no {} mode page ({page:02X}h)",
            page_name(page)
        ))
    };
    let list = select_parameter_list(current, page, 0, edit).ok_or_else(missing)?;
    if let Some(mask) = changeable {
        let cur = find_page(current, page, 0).ok_or_else(missing)?;
        let new = &list[cur.clone()];
        let old = &current[cur];
        let mask = find_page(mask, page, 0).map(|r| &mask[r]).unwrap_or(&[]);
        // bytes 0 and 1 (page code, PS, length) are not fields
        let locked = (2..new.len()).any(|i| (old[i] ^ new[i]) & !byte(mask, i) != 0);
        if locked {
            return Err(Refusal(format!(
                "{field} cannot be set: the drive's {} mode page ({page:02X}h) marks it not changeable",
                page_name(page)
            )));
        }
    }
    Ok(cdb::mode_select_10(list))
}

fn page_name(page: u8) -> &'static str {
    match page {
        CACHING => "caching",
        POWER_CONDITION => "power condition",
        _ => "",
    }
}

fn set_bit(page: &mut [u8], (at, mask): (usize, u8), on: bool) {
    if let Some(b) = page.get_mut(at) {
        if on {
            *b |= mask;
        } else {
            *b &= !mask;
        }
    }
}

/// `-W0`/`-W1`: the MODE SELECT(10) that sets WCE to `on`, from the caching page's current
/// and changeable answers, or the sentence why not.
pub fn set_write_cache(
    current: &[u8],
    changeable: Option<&[u8]>,
    on: bool,
) -> Result<Command, Refusal> {
    set_page(current, changeable, CACHING, "write-caching (WCE)", |p| {
        set_bit(p, WCE, on)
    })
}

/// `-A0`/`-A1`: read-ahead on is DRA=0, off is DRA=1.
pub fn set_read_ahead(
    current: &[u8],
    changeable: Option<&[u8]>,
    on: bool,
) -> Result<Command, Refusal> {
    set_page(current, changeable, CACHING, "look-ahead (DRA)", |p| {
        set_bit(p, DRA, !on)
    })
}

/// `-S N` in 100 ms units (the power condition timers' unit): hdparm's codes 1..240 are N×5
/// s, 241..251 (N-240)×30 min, 252 21 min, 255 21 min 15 s; 0 is off (`None` inside `Some`
/// would be ambiguous, so 0 gives `Some(0)`), 253 (vendor-specific) and 254 (reserved) have
/// no length and give `None`.
pub fn standby_timer_100ms(code: u32) -> Option<u32> {
    match code {
        0 => Some(0),
        1..=240 => Some(code * 50),
        241..=251 => Some((code - 240) * 30 * 600),
        252 => Some(21 * 600),
        255 => Some((21 * 60 + 15) * 10),
        _ => None,
    }
}

/// `-S N`: STANDBY_Z on with its timer (off for 0, the timer kept), from the power
/// condition page's current and changeable answers.
pub fn set_standby(
    current: &[u8],
    changeable: Option<&[u8]>,
    code: u32,
) -> Result<Command, Refusal> {
    let Some(timer) = standby_timer_100ms(code) else {
        return Err(Refusal(format!(
            "standby timer {code} has no length a SCSI disk's power condition page can hold"
        )));
    };
    set_page(
        current,
        changeable,
        POWER_CONDITION,
        "the standby timer",
        |p| {
            set_bit(p, STANDBY_Z, timer != 0);
            if timer != 0 {
                if let Some(t) = p.get_mut(STANDBY_Z_TIMER..STANDBY_Z_TIMER + 4) {
                    t.copy_from_slice(&timer.to_be_bytes());
                }
            }
        },
    )
}

/// The MODE SENSE(10) pair a set reads first: current values, then the changeable mask.
pub fn sense_pair(page: u8) -> [Command; 2] {
    [
        cdb::mode_sense_10(page, 0, PageControl::Current),
        cdb::mode_sense_10(page, 0, PageControl::Changeable),
    ]
}

/// The value to write to `/sys/class/scsi_disk/H:C:T:L/cache_type` for WCE and RCD: the sd
/// driver then sends MODE SENSE and MODE SELECT itself and keeps its flush decisions right
/// (drivers/scsi/sd.c `sd_cache_types`).
pub fn sd_cache_type(wce: bool, rcd: bool) -> &'static str {
    match (wce, rcd) {
        (false, false) => "write through",
        (false, true) => "none",
        (true, false) => "write back",
        (true, true) => "write back, no read (daft)",
    }
}

/// WCE and RCD from what `cache_type` reads (sd prints the same words, with a newline).
pub fn parse_sd_cache_type(text: &str) -> Option<(bool, bool)> {
    match text.trim() {
        "write through" => Some((false, false)),
        "none" => Some((false, true)),
        "write back" => Some((true, false)),
        "write back, no read (daft)" => Some((true, true)),
        _ => None,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::super::{hex, Direction};
    use super::*;

    /// MODE SENSE(10) of the caching page as QEMU 7.2's scsi-hd answers (1 GiB, 512-byte
    /// blocks): header, one block descriptor, page 08h with PS=0, WCE=1; the changeable mask
    /// has WCE alone.
    pub(crate) fn qemu_caching(wce: bool) -> Vec<u8> {
        let mut a = vec![0x00, 0x22, 0x00, 0x10, 0x00, 0x00, 0x00, 0x08];
        a.extend([0x00, 0x20, 0x00, 0x00, 0x00, 0x00, 0x02, 0x00]);
        let mut page = vec![0u8; 20];
        page[0] = 0x08;
        page[1] = 0x12;
        page[2] = if wce { 0x04 } else { 0 };
        a.extend(page);
        a
    }

    pub(crate) fn qemu_caching_mask() -> Vec<u8> {
        let mut a = qemu_caching(true);
        a[3] = 0;
        a
    }

    #[test]
    fn header_and_caching_page() {
        let a = qemu_caching(true);
        let h = header10(&a).unwrap();
        assert_eq!(h.mode_data_length, 0x22);
        assert_eq!(h.block_descriptor_length, 8);
        assert_eq!(find_page(&a, CACHING, 0), Some(16..36));
        let c = caching(&a).unwrap();
        assert!(c.wce && !c.dra && !c.rcd && !c.ps);
        assert_eq!(caching(&a[..10]), None);
        assert_eq!(power_condition(&a), None);
    }

    #[test]
    fn w0_is_sdparms_mode_select() {
        // What sdparm --set=WCE=0 sent the VM's virtio-scsi disk (tests/vm_scsi.rs):
        // 55 10 00 00 00 00 00 00 24 00 with this parameter list.
        let c = set_write_cache(&qemu_caching(true), Some(&qemu_caching_mask()), false).unwrap();
        assert_eq!(hex(&c.cdb), "55 10 00 00 00 00 00 00 24 00");
        assert_eq!(c.direction, Direction::ToDevice);
        assert_eq!(
            hex(&c.data_out),
            "00 00 00 00 00 00 00 08 00 20 00 00 00 00 02 00 \
             08 12 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00"
        );
        let on = set_write_cache(&qemu_caching(false), None, true).unwrap();
        assert_eq!(on.data_out[18], 0x04);
    }

    #[test]
    fn ps_bit_and_header_bytes_are_cleared() {
        let mut a = qemu_caching(true);
        a[16] |= 0x80; // PS
        a[2] = 0x05; // medium type kept, as sdparm keeps it
        let l = select_parameter_list(&a, CACHING, 0, |_| {}).unwrap();
        assert_eq!(&l[..4], &[0, 0, 0x05, 0]);
        assert_eq!(l[16], 0x08);
    }

    #[test]
    fn dra_is_refused_where_the_mask_locks_it() {
        // QEMU and scsi_debug mark DRA not changeable
        let e = set_read_ahead(&qemu_caching(true), Some(&qemu_caching_mask()), false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "look-ahead (DRA) cannot be set: the drive's caching mode page (08h) marks it not changeable"
        );
        // -A1 where DRA is already 0 changes nothing, so nothing is locked
        let c = set_read_ahead(&qemu_caching(true), Some(&qemu_caching_mask()), true).unwrap();
        assert_eq!(c.data_out[16 + 12], 0);
        // with DRA changeable, -A0 sets DRA
        let mut mask = qemu_caching_mask();
        mask[16 + 12] = 0x20;
        let c = set_read_ahead(&qemu_caching(true), Some(&mask), false).unwrap();
        assert_eq!(c.data_out[16 + 12], 0x20);
    }

    #[test]
    fn wce_locked_is_one_sentence() {
        let mut mask = qemu_caching_mask();
        mask[18] = 0;
        let e = set_write_cache(&qemu_caching(true), Some(&mask), false).unwrap_err();
        assert!(e.0.starts_with("write-caching (WCE) cannot be set"), "{e}");
        let e = set_write_cache(&[0; 8], None, false).unwrap_err();
        assert_eq!(
            e.0,
            "write-caching (WCE) cannot be set: the drive has no caching mode page (08h)"
        );
    }

    fn power_page(standby_z: bool, timer: u32) -> Vec<u8> {
        let mut a = vec![0x00, 0x2E, 0, 0, 0, 0, 0, 0];
        let mut p = vec![0u8; 40];
        p[0] = 0x9A; // PS set, as a disk that can save
        p[1] = 0x26;
        p[3] = u8::from(standby_z);
        p[8..12].copy_from_slice(&timer.to_be_bytes());
        a.extend(p);
        a
    }

    #[test]
    fn standby_timer_page() {
        let a = power_page(true, 600);
        let p = power_condition(&a).unwrap();
        assert!(p.ps && p.standby_z && !p.idle_a);
        assert_eq!(p.standby_z_timer, 600);
        let mask = power_page(true, u32::MAX);
        let c = set_standby(&a, Some(&mask), 12).unwrap();
        // -S 12 is one minute: 600 × 100 ms
        assert_eq!(
            &c.data_out[8..20],
            &[0x1A, 0x26, 0, 0x01, 0, 0, 0, 0, 0, 0, 0x02, 0x58]
        );
        let off = set_standby(&a, Some(&mask), 0).unwrap();
        assert_eq!(off.data_out[8 + 3], 0);
        let e = set_standby(&power_page(true, 300), Some(&power_page(false, 0)), 12).unwrap_err();
        assert!(e.0.contains("marks it not changeable"), "{e}");
        assert!(set_standby(&a, None, 253).is_err());
        assert_eq!(standby_timer_100ms(242), Some(36_000));
        assert_eq!(standby_timer_100ms(255), Some(12_750));
    }

    #[test]
    fn subpage_format_pages_are_walked() {
        // a subpage page (SPF) before the caching page
        let mut a = vec![0x00, 0x00, 0, 0, 0, 0, 0, 0];
        a.extend([0x5A, 0x01, 0x00, 0x02, 0xAA, 0xBB]);
        a.extend([0x08, 0x12]);
        a.extend([0x04; 18]);
        let len = (a.len() - 2) as u16;
        a[..2].copy_from_slice(&len.to_be_bytes());
        assert_eq!(find_page(&a, 0x1A, 1), Some(8..14));
        assert!(caching(&a).unwrap().wce);
    }

    #[test]
    fn sd_cache_types_round_trip() {
        for wce in [false, true] {
            for rcd in [false, true] {
                assert_eq!(
                    parse_sd_cache_type(sd_cache_type(wce, rcd)),
                    Some((wce, rcd))
                );
            }
        }
        assert_eq!(parse_sd_cache_type("write back\n"), Some((true, false)));
    }
}
