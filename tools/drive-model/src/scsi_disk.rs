//! A SCSI-only disk: a SAS drive that is SCSI all the way down (`drive-model new
//! --scsi-only`). ATA PASS-THROUGH(12/16) is refused as a SAS disk refuses it (ILLEGAL
//! REQUEST, INVALID COMMAND OPERATION CODE), and the commands hdparm's jobs have a SCSI form
//! for are answered as SPC-5 and SBC-4 say: INQUIRY and VPD 00h/80h/83h/B0h/B1h/B2h, READ
//! CAPACITY(10/16), MODE SENSE/SELECT(6/10) of pages 08h, 0Ah and 1Ah with saved values,
//! REQUEST SENSE with the power condition and the sanitize progress, START STOP UNIT with
//! power conditions, SYNCHRONIZE CACHE, LOG SENSE 00h/0Dh/2Fh, READ/WRITE(6/10/16), UNMAP,
//! GET LBA STATUS, SANITIZE, WRITE BUFFER 05h/07h/0Eh/0Fh and READ BUFFER descriptor.
//!
//! Choices where the standards leave room (tests/vm/README.md, "the drive model's SCSI
//! disk"):
//! - Saved mode pages are supported: the pages' PS bit is 1, MODE SELECT with SP=1 saves,
//!   MODE SENSE of saved values answers, a power cycle (`ctl reboot`) loads them.
//! - No UNIT ATTENTION after MODE SELECT or WRITE BUFFER: SPC-5 raises MODE PARAMETERS
//!   CHANGED and MICROCODE HAS BEEN CHANGED for the other I_T nexuses only, and the model has
//!   one. A power cycle raises POWER ON, RESET (29/00) for the next command.
//! - START STOP UNIT's STANDBY (3h) and FORCE_STANDBY_0 (Bh) both report "standby condition
//!   activated by command" (5E/04), IDLE (2h) and FORCE_IDLE_0 (Ah) 5E/03 (idle_b and idle_c,
//!   standby_y: 5E/06, 5E/08, 5E/0A); the power condition timers are kept but never fire.
//! - A sanitize lasts `sanitize_ms` of wall-clock time (3 s; `ctl set sanitize_secs=N`), so a
//!   test can poll its progress; without IMMED the command answers when it is done.
//!
//! Pure: a CDB, its data out and the time in, the answer out (`scsi_wire::Outcome`). What the disk
//! remembers (`state::ScsiDisk`: its mode values, power condition, sanitize and downloads)
//! lives in `state` with the rest of the model's state; this file is how the disk answers.
//! Shares no code with hdparm-rs's `src/scsi/`.

use crate::scsi_wire::{
    be16, be32, be64, check, fixed_sense, good, Outcome, CHECK_CONDITION, GOOD,
};
use crate::state::{self, ModeValues, Power, ScsiDisk, State, SECTOR};

/// READ BUFFER descriptor: offsets in multiples of 2^9 bytes, a 1 MiB buffer.
pub const OFFSET_BOUNDARY: u8 = 9;
pub const BUFFER_CAPACITY: u32 = 1 << 20;
/// VPD B0h's limits.
pub const MAX_UNMAP_LBA_COUNT: u32 = 16_384;
pub const MAX_UNMAP_DESCRIPTORS: u32 = 32;
pub const MAX_TRANSFER_BLOCKS: u32 = 2048;

/// The wall clock in ms, the model's clock for a sanitize.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

const ILLEGAL: u8 = 0x05;
const NOT_READY: u8 = 0x02;

fn invalid_cdb() -> Outcome {
    check(ILLEGAL, 0x24, 0x00)
}
fn invalid_param() -> Outcome {
    check(ILLEGAL, 0x26, 0x00)
}
fn param_length_error() -> Outcome {
    check(ILLEGAL, 0x1A, 0x00)
}

/// Fixed sense with the progress indicator (sense key specific, SKSV set).
fn progress_sense(key: u8, asc: u8, ascq: u8, progress: u16) -> Vec<u8> {
    let mut s = fixed_sense(key, asc, ascq);
    s[15] = 0x80;
    s[16..18].copy_from_slice(&progress.to_be_bytes());
    s
}

/// The same sense in descriptor format (REQUEST SENSE with DESC=1), with a sense key specific
/// descriptor (02h) when the fixed one carries SKSV.
fn to_descriptor(fixed: &[u8]) -> Vec<u8> {
    let mut d = vec![0x72, fixed[2] & 0x0F, fixed[12], fixed[13], 0, 0, 0, 0];
    if fixed[15] & 0x80 != 0 {
        d.extend([0x02, 0x06, 0, 0, fixed[15], fixed[16], fixed[17], 0]);
    }
    d[7] = (d.len() - 8) as u8;
    d
}

fn pad(s: &str, n: usize) -> Vec<u8> {
    let mut v: Vec<u8> = s.bytes().take(n).collect();
    v.resize(n, b' ');
    v
}

/// Commands that touch the medium: they wake an idle or standby disk, and a stopped one
/// refuses them (SBC-4 §4.20).
fn medium_access(op: u8) -> bool {
    matches!(
        op,
        0x08 | 0x0A
            | 0x28
            | 0x2A
            | 0x88
            | 0x8A
            | 0x2F
            | 0x8F
            | 0x35
            | 0x91
            | 0x42
            | 0x48
            | 0x04
            | 0x9E
    )
}

/// Answers one CDB at time `now` (ms).
pub fn handle(s: &mut State, cdb: &[u8], data_out: &[u8], data_in_len: usize, now: u64) -> Outcome {
    let Some(&op) = cdb.first() else {
        return check(ILLEGAL, 0x20, 0x00);
    };
    if s.scsi.is_none() {
        s.scsi = Some(ScsiDisk::new());
    }
    // a CDB shorter than its group says: INVALID FIELD IN CDB rather than a panic
    let need = match op >> 5 {
        0 => 6,
        1 | 2 => 10,
        5 => 12,
        _ => 16,
    };
    if cdb.len() < need {
        return invalid_cdb();
    }
    finish_sanitize(s, now);
    let d = disk(s);
    // a pending unit attention ends the next command but INQUIRY, REPORT LUNS and REQUEST
    // SENSE (which reports it)
    if let Some((k, a, q)) = d.unit_attention {
        if !matches!(op, 0x12 | 0xA0 | 0x03) {
            d.unit_attention = None;
            let mut o = check(k, a, q);
            o.dirty = true;
            return o;
        }
    }
    // while a sanitize runs: NOT READY, SANITIZE IN PROGRESS with its progress (SBC-4
    // §4.11.2), but for INQUIRY, REPORT LUNS and REQUEST SENSE
    if let Some((_, start, end)) = d.sanitize {
        if !matches!(op, 0x12 | 0xA0 | 0x03) {
            let o = Outcome {
                status: CHECK_CONDITION,
                sense: progress_sense(NOT_READY, 0x04, 0x1B, progress(start, end, now)),
                ..Default::default()
            };
            return o;
        }
    }
    if medium_access(op) || op == 0x00 {
        if d.power == Power::Stopped {
            return check(NOT_READY, 0x04, 0x02);
        }
        if d.sanitize_failed && op != 0x48 && op != 0x00 {
            return check(0x03, 0x31, 0x03);
        }
        if op != 0x00 && d.power != Power::Active {
            d.power = Power::Active;
        }
    }
    let mut o = match op {
        0x00 => good(vec![]),
        0x03 => request_sense(s, cdb, now),
        0x12 => inquiry(s, cdb),
        0x1A => mode_sense(s, cdb, false),
        0x5A => mode_sense(s, cdb, true),
        0x15 => mode_select(s, cdb, data_out, false),
        0x55 => mode_select(s, cdb, data_out, true),
        0x1B => start_stop(s, cdb),
        0x25 => read_capacity_10(s),
        0x9E if cdb[1] & 0x1F == 0x10 => read_capacity_16(s, cdb),
        0x9E if cdb[1] & 0x1F == 0x12 => get_lba_status(s, cdb),
        0x08 | 0x0A | 0x28 | 0x2A | 0x88 | 0x8A => read_write(s, cdb, data_out),
        0x2F | 0x8F | 0x35 | 0x91 | 0x1E => good(vec![]),
        0x42 => unmap(s, cdb, data_out),
        0x4D => log_sense(s, cdb),
        0x48 => sanitize(s, cdb, data_out, now),
        0x3B => write_buffer(s, cdb, data_out),
        0x3C => read_buffer(cdb),
        // ATA PASS-THROUGH(16), (12), and everything else: a SAS disk has no such command
        _ => check(ILLEGAL, 0x20, 0x00),
    };
    o.dirty = o.dirty || !matches!(op, 0x12 | 0x25 | 0x9E | 0x4D | 0x3C);
    o.data_in.truncate(data_in_len);
    o
}

fn disk(s: &mut State) -> &mut ScsiDisk {
    s.scsi.get_or_insert_with(ScsiDisk::new)
}

fn progress(start: u64, end: u64, now: u64) -> u16 {
    if end <= start {
        return 0;
    }
    let done = now.saturating_sub(start).min(end - start);
    ((done * 65536) / (end - start)).min(65535) as u16
}

/// Ends a sanitize whose time is up: the blocks read as its pattern (overwrite) or zeros.
fn finish_sanitize(s: &mut State, now: u64) {
    let Some(d) = s.scsi.as_mut() else { return };
    let Some((what, _, end)) = d.sanitize else {
        return;
    };
    if now < end {
        return;
    }
    d.sanitize = None;
    let pattern = std::mem::take(&mut d.sanitize_pattern);
    if what == 0x01 && pattern.iter().any(|&b| b != 0) {
        s.wipe_with(&pattern);
    } else {
        s.wipe(0);
    }
    s.sanitize.last_completed_ok = true;
}

fn request_sense(s: &mut State, cdb: &[u8], now: u64) -> Outcome {
    let desc = cdb[1] & 0x01 != 0;
    let alloc = usize::from(cdb[4]);
    let d = disk(s);
    let fixed = if let Some(ua) = d.unit_attention.take() {
        fixed_sense(ua.0, ua.1, ua.2)
    } else if let Some((_, start, end)) = d.sanitize {
        progress_sense(NOT_READY, 0x04, 0x1B, progress(start, end, now))
    } else if d.sanitize_failed {
        fixed_sense(0x03, 0x31, 0x03)
    } else {
        // SPC-5 §6.39, table 286: the power condition, as NO SENSE with ASC 5Eh
        let ascq = match d.power {
            Power::Active => None,
            Power::IdleA => Some(0x03),
            Power::IdleB => Some(0x06),
            Power::IdleC => Some(0x08),
            Power::StandbyZ => Some(0x04),
            Power::StandbyY => Some(0x0A),
            Power::Stopped => {
                return good(truncated(
                    fixed_or_desc(&fixed_sense(NOT_READY, 0x04, 0x02), desc),
                    alloc,
                ))
            }
        };
        match ascq {
            Some(q) => fixed_sense(0, 0x5E, q),
            None => fixed_sense(0, 0, 0),
        }
    };
    good(truncated(fixed_or_desc(&fixed, desc), alloc))
}

fn fixed_or_desc(fixed: &[u8], desc: bool) -> Vec<u8> {
    if desc {
        to_descriptor(fixed)
    } else {
        fixed.to_vec()
    }
}

fn truncated(mut v: Vec<u8>, n: usize) -> Vec<u8> {
    v.truncate(n);
    v
}

fn inquiry(s: &mut State, cdb: &[u8]) -> Outcome {
    let alloc = usize::from(be16(&cdb[3..5]) as u16);
    let evpd = cdb[1] & 0x01 != 0;
    if cdb[1] & 0x02 != 0 {
        return invalid_cdb();
    }
    let rev = s.firmware.revision.clone();
    let max = s.current_max_lba();
    let d = disk(s);
    let page = |code: u8, body: Vec<u8>| {
        let mut p = vec![0x00, code];
        p.extend((body.len() as u16).to_be_bytes());
        p.extend(body);
        p
    };
    let data = if !evpd {
        if cdb[2] != 0 {
            return invalid_cdb();
        }
        let mut v = vec![0u8; 36];
        v[2] = 0x07; // SPC-5
        v[3] = 0x12; // HISUP, response data format 2
        v[4] = 31;
        v[7] = 0x02; // CMDQUE
        v[8..16].copy_from_slice(&pad(&d.vendor, 8));
        v[16..32].copy_from_slice(&pad(&d.product, 16));
        let r = rev.get(rev.len().saturating_sub(4)..).unwrap_or("");
        v[32..36].copy_from_slice(&pad(r, 4));
        v
    } else {
        match cdb[2] {
            0x00 => page(0x00, vec![0x00, 0x80, 0x83, 0xB0, 0xB1, 0xB2]),
            0x80 => page(0x80, d.serial.clone().into_bytes()),
            0x83 => {
                // one designator: the logical unit's NAA 5 WWN (binary, association LU)
                let mut b = vec![0x01, 0x03, 0x00, 0x08];
                b.extend(d.wwn.to_be_bytes());
                page(0x83, b)
            }
            0xB0 => {
                let mut b = vec![0u8; 60];
                b[2..4].copy_from_slice(&1u16.to_be_bytes()); // optimal granularity
                b[4..8].copy_from_slice(&MAX_TRANSFER_BLOCKS.to_be_bytes());
                b[8..12].copy_from_slice(&256u32.to_be_bytes()); // optimal transfer
                b[16..20].copy_from_slice(&MAX_UNMAP_LBA_COUNT.to_be_bytes());
                b[20..24].copy_from_slice(&MAX_UNMAP_DESCRIPTORS.to_be_bytes());
                b[24..28].copy_from_slice(&1u32.to_be_bytes()); // optimal unmap granularity
                page(0xB0, b)
            }
            0xB1 => {
                let mut b = vec![0u8; 60];
                b[0..2].copy_from_slice(&d.rotation_rpm.to_be_bytes());
                b[3] = 0x03; // 2.5 inch
                page(0xB1, b)
            }
            // LBPU, LBPRZ=001b; thin provisioned
            0xB2 => page(0xB2, vec![0x00, 0x80 | 0x04, 0x02, 0x00]),
            _ => return invalid_cdb(),
        }
    };
    let _ = max;
    good(truncated(data, alloc))
}

fn read_capacity_10(s: &State) -> Outcome {
    let m = s.current_max_lba().min(0xFFFF_FFFF) as u32;
    let mut d = m.to_be_bytes().to_vec();
    d.extend((SECTOR as u32).to_be_bytes());
    good(d)
}

fn read_capacity_16(s: &State, cdb: &[u8]) -> Outcome {
    let alloc = be32(&cdb[10..14]) as usize;
    let mut d = vec![0u8; 32];
    d[..8].copy_from_slice(&s.current_max_lba().to_be_bytes());
    d[8..12].copy_from_slice(&(SECTOR as u32).to_be_bytes());
    d[14] = 0x80 | 0x40; // LBPME, LBPRZ
    good(truncated(d, alloc))
}

/// Whether `lba` is deallocated (unmapped and not written since).
fn deallocated(s: &State, lba: u64) -> bool {
    !s.sectors.contains_key(&lba) && s.in_trimmed(lba)
}

/// GET LBA STATUS (SBC-4 §5.7): one descriptor, from the LBA asked to the end of the run of
/// blocks with its status (at most 2^20 blocks looked at).
fn get_lba_status(s: &State, cdb: &[u8]) -> Outcome {
    let lba = be64(&cdb[2..10]);
    let alloc = be32(&cdb[10..14]) as usize;
    let max = s.current_max_lba();
    if lba > max {
        return check(ILLEGAL, 0x21, 0x00);
    }
    let status = deallocated(s, lba);
    let mut n = 1u64;
    while lba + n <= max && n < (1 << 20) && deallocated(s, lba + n) == status {
        n += 1;
    }
    let mut d = vec![0u8; 8];
    d[0..4].copy_from_slice(&20u32.to_be_bytes());
    d.extend(lba.to_be_bytes());
    d.extend((n as u32).to_be_bytes());
    d.push(u8::from(status));
    d.extend([0, 0, 0]);
    good(truncated(d, alloc))
}

fn read_write(s: &mut State, cdb: &[u8], data_out: &[u8]) -> Outcome {
    let (write, lba, n) = match cdb[0] {
        0x28 => (false, be32(&cdb[2..6]), be16(&cdb[7..9])),
        0x88 => (false, be64(&cdb[2..10]), be32(&cdb[10..14])),
        0x2A => (true, be32(&cdb[2..6]), be16(&cdb[7..9])),
        0x8A => (true, be64(&cdb[2..10]), be32(&cdb[10..14])),
        op => (
            op == 0x0A,
            (u64::from(cdb[1] & 0x1F) << 16) | be16(&cdb[2..4]),
            if cdb[4] == 0 { 256 } else { u64::from(cdb[4]) },
        ),
    };
    if n == 0 {
        return good(vec![]);
    }
    if lba
        .checked_add(n - 1)
        .is_none_or(|e| e > s.current_max_lba())
    {
        return check(ILLEGAL, 0x21, 0x00);
    }
    if write {
        for (i, l) in (lba..lba + n).enumerate() {
            let c = data_out.get(i * SECTOR..(i + 1) * SECTOR).unwrap_or(&[]);
            s.write_sector(l, c);
        }
        good(vec![])
    } else {
        let mut d = Vec::with_capacity(n as usize * SECTOR);
        for l in lba..lba + n {
            d.extend(s.read_sector(l));
        }
        good(d)
    }
}

/// UNMAP (SBC-4 §5.32) within VPD B0h's limits; the blocks then read as zeros (LBPRZ).
fn unmap(s: &mut State, cdb: &[u8], data: &[u8]) -> Outcome {
    let len = usize::from(be16(&cdb[7..9]) as u16);
    if len == 0 {
        return good(vec![]);
    }
    if len < 8 || data.len() < len {
        return param_length_error();
    }
    let bd_len = usize::from(be16(&data[2..4]) as u16);
    let descs: Vec<(u64, u64)> = data[8..(8 + bd_len).min(len)]
        .chunks_exact(16)
        .map(|c| (be64(&c[0..8]), be32(&c[8..12])))
        .collect();
    let total: u64 = descs.iter().map(|&(_, n)| n).sum();
    if descs.len() > MAX_UNMAP_DESCRIPTORS as usize || total > u64::from(MAX_UNMAP_LBA_COUNT) {
        return invalid_param();
    }
    let max = s.current_max_lba();
    if descs
        .iter()
        .any(|&(a, n)| n > 0 && a.checked_add(n - 1).is_none_or(|e| e > max))
    {
        return check(ILLEGAL, 0x21, 0x00);
    }
    for (a, n) in descs {
        s.trim(a, n);
    }
    good(vec![])
}

// ---- mode pages ----------------------------------------------------------------------

const CACHING: u8 = 0x08;
const CONTROL: u8 = 0x0A;
const POWER_CONDITION: u8 = 0x1A;

/// Page `code` with `v`'s values (PS set: the page can be saved), or its changeable mask.
fn page_bytes(code: u8, v: &ModeValues, mask: bool) -> Vec<u8> {
    match code {
        CACHING => {
            let mut p = vec![0u8; 20];
            p[0] = 0x80 | CACHING;
            p[1] = 0x12;
            if mask || v.wce {
                p[2] |= 0x04;
            }
            if mask || v.dra {
                p[12] |= 0x20;
            }
            p
        }
        CONTROL => {
            let mut p = vec![0u8; 12];
            p[0] = 0x80 | CONTROL;
            p[1] = 0x0A;
            if !mask {
                p[8..10].copy_from_slice(&0xFFFFu16.to_be_bytes()); // busy timeout: unlimited
            }
            p
        }
        _ => {
            let mut p = vec![0u8; 40];
            p[0] = 0x80 | POWER_CONDITION;
            p[1] = 0x26;
            if mask {
                p[3] = 0x03;
                p[4..12].fill(0xFF);
            } else {
                p[3] = u8::from(v.idle_a) << 1 | u8::from(v.standby_z);
                p[4..8].copy_from_slice(&v.idle_a_timer.to_be_bytes());
                p[8..12].copy_from_slice(&v.standby_z_timer.to_be_bytes());
            }
            p
        }
    }
}

fn mode_sense(s: &mut State, cdb: &[u8], ten: bool) -> Outcome {
    let pc = cdb[2] >> 6;
    let page = cdb[2] & 0x3F;
    let subpage = cdb[3];
    let alloc = if ten {
        usize::from(be16(&cdb[7..9]) as u16)
    } else {
        usize::from(cdb[4])
    };
    if subpage != 0 && subpage != 0xFF {
        return invalid_cdb();
    }
    let d = disk(s);
    let values = match pc {
        2 => ModeValues::defaults(),
        3 => d.saved,
        _ => d.current,
    };
    let codes: Vec<u8> = match page {
        0x3F => vec![CACHING, CONTROL, POWER_CONDITION],
        CACHING | CONTROL | POWER_CONDITION => vec![page],
        _ => return invalid_cdb(),
    };
    let mut pages = Vec::new();
    for c in codes {
        pages.extend(page_bytes(c, &values, pc == 1));
    }
    // no block descriptors; DPOFUA in the device-specific parameter
    let mut v = if ten {
        let n = (pages.len() + 6) as u16;
        let [hi, lo] = n.to_be_bytes();
        vec![hi, lo, 0, 0x10, 0, 0, 0, 0]
    } else {
        vec![(pages.len() + 3) as u8, 0, 0x10, 0]
    };
    v.extend(pages);
    good(truncated(v, alloc))
}

fn mode_select(s: &mut State, cdb: &[u8], data: &[u8], ten: bool) -> Outcome {
    let save = cdb[1] & 0x01 != 0;
    let len = if ten {
        usize::from(be16(&cdb[7..9]) as u16)
    } else {
        usize::from(cdb[4])
    };
    let hdr = if ten { 8 } else { 4 };
    if len == 0 {
        return good(vec![]);
    }
    if len < hdr || data.len() < len {
        return param_length_error();
    }
    let data = &data[..len];
    let bd = if ten {
        usize::from(be16(&data[6..8]) as u16)
    } else {
        usize::from(data[3])
    };
    let mut at = hdr + bd;
    if at > len {
        return param_length_error();
    }
    let d = disk(s);
    let mut v = d.current;
    while at < len {
        if at + 2 > len {
            return param_length_error();
        }
        let code = data[at] & 0x3F;
        if data[at] & 0x40 != 0 || !matches!(code, CACHING | CONTROL | POWER_CONDITION) {
            return invalid_param();
        }
        let cur = page_bytes(code, &d.current, false);
        let mask = page_bytes(code, &d.current, true);
        let n = 2 + usize::from(data[at + 1]);
        if n != cur.len() || at + n > len {
            return invalid_param();
        }
        let p = &data[at..at + n];
        // every bit the changeable mask does not name must stay as it is (PS is reserved)
        let fixed_ok = (1..n).all(|i| (p[i] ^ cur[i]) & !mask[i] == 0);
        if !fixed_ok {
            return invalid_param();
        }
        match code {
            CACHING => {
                v.wce = p[2] & 0x04 != 0;
                v.dra = p[12] & 0x20 != 0;
            }
            POWER_CONDITION => {
                v.idle_a = p[3] & 0x02 != 0;
                v.standby_z = p[3] & 0x01 != 0;
                v.idle_a_timer = be32(&p[4..8]) as u32;
                v.standby_z_timer = be32(&p[8..12]) as u32;
            }
            _ => {}
        }
        at += n;
    }
    d.current = v;
    if save {
        d.saved = v;
    }
    s.write_cache = v.wce;
    s.look_ahead = !v.dra;
    good(vec![])
}

// ---- power ---------------------------------------------------------------------------

/// START STOP UNIT (SBC-4 §5.27).
fn start_stop(s: &mut State, cdb: &[u8]) -> Outcome {
    let modifier = cdb[3] & 0x0F;
    let pc = cdb[4] >> 4;
    let start = cdb[4] & 0x01 != 0;
    let d = disk(s);
    let idle = |m: u8| match m {
        0 => Some(Power::IdleA),
        1 => Some(Power::IdleB),
        2 => Some(Power::IdleC),
        _ => None,
    };
    let standby = |m: u8| match m {
        0 => Some(Power::StandbyZ),
        1 => Some(Power::StandbyY),
        _ => None,
    };
    let (to, by_command) = match pc {
        0x0 => (
            Some(if start { Power::Active } else { Power::Stopped }),
            d.power_by_command,
        ),
        0x1 => (Some(Power::Active), true),
        0x2 => (idle(modifier), true),
        0x3 => (standby(modifier), true),
        // LU_CONTROL: the device server's timers are in force again; the condition stays
        0x7 => (Some(d.power), false),
        0xA => (idle(modifier), d.power_by_command),
        0xB => (standby(modifier), d.power_by_command),
        _ => (None, false),
    };
    let Some(to) = to else {
        return invalid_cdb();
    };
    // a stopped disk leaves the stopped condition only for START or a power condition
    d.power = to;
    d.power_by_command = by_command;
    good(vec![])
}

// ---- log pages -----------------------------------------------------------------------

fn log_sense(s: &mut State, cdb: &[u8]) -> Outcome {
    if cdb[1] & 0x01 != 0 {
        return invalid_cdb(); // SP: saving log parameters is not supported
    }
    let page = cdb[2] & 0x3F;
    let subpage = cdb[3];
    let pointer = be16(&cdb[5..7]) as u16;
    let alloc = usize::from(be16(&cdb[7..9]) as u16);
    let d = disk(s);
    let param = |code: u16, value: &[u8]| {
        let mut p = code.to_be_bytes().to_vec();
        p.push(0x03); // binary format list
        p.push(value.len() as u8);
        p.extend(value);
        (code, p)
    };
    let (first, params): (Vec<u8>, Vec<(u16, Vec<u8>)>) = match (page, subpage) {
        (0x00, 0x00) => {
            return good(truncated(
                vec![0x00, 0x00, 0x00, 0x03, 0x00, 0x0D, 0x2F],
                alloc,
            ));
        }
        (0x00, 0xFF) => {
            let list = [0x00, 0x00, 0x00, 0xFF, 0x0D, 0x00, 0x2F, 0x00];
            let mut v = vec![0x40, 0xFF, 0x00, list.len() as u8];
            v.extend(list);
            return good(truncated(v, alloc));
        }
        (0x0D, 0x00) => (
            vec![0x0D, 0x00],
            vec![
                param(0x0000, &[0, d.temperature_c]),
                param(0x0001, &[0, d.reference_c]),
            ],
        ),
        (0x2F, 0x00) => {
            // IE ASC 0Bh/01h (warning, specified temperature exceeded) at the reference
            let (asc, ascq) = if d.temperature_c >= d.reference_c {
                (0x0B, 0x01)
            } else {
                (0, 0)
            };
            (
                vec![0x2F, 0x00],
                vec![param(0x0000, &[asc, ascq, d.temperature_c])],
            )
        }
        _ => return invalid_cdb(),
    };
    let mut body = Vec::new();
    let mut any = false;
    for (code, p) in params {
        if code >= pointer {
            body.extend(p);
            any = true;
        }
    }
    if !any {
        return invalid_cdb();
    }
    let mut v = first;
    v.extend((body.len() as u16).to_be_bytes());
    v.extend(body);
    good(truncated(v, alloc))
}

// ---- sanitize ------------------------------------------------------------------------

/// SANITIZE (SBC-4 §5.24): OVERWRITE (01h, its parameter list), BLOCK ERASE (02h), CRYPTO
/// ERASE (03h), EXIT FAILURE MODE (1Fh); IMMED answers at once, else when done.
fn sanitize(s: &mut State, cdb: &[u8], data: &[u8], now: u64) -> Outcome {
    let immed = cdb[1] & 0x80 != 0;
    let action = cdb[1] & 0x1F;
    let len = usize::from(be16(&cdb[7..9]) as u16);
    let mut pattern = Vec::new();
    match action {
        0x01 => {
            if len < 5 || data.len() < len {
                return param_length_error();
            }
            let p = &data[..len];
            let count = p[0] & 0x1F;
            let invert = p[0] & 0x80 != 0;
            let plen = usize::from(be16(&p[2..4]) as u16);
            if len != 4 + plen {
                return invalid_cdb();
            }
            if count == 0 || plen == 0 || plen > SECTOR || p[0] & 0x60 != 0 {
                return invalid_param();
            }
            pattern = p[4..].to_vec();
            // INVERT: the pattern is inverted between passes, so an even count ends inverted
            if invert && count.is_multiple_of(2) {
                pattern.iter_mut().for_each(|b| *b = !*b);
            }
        }
        0x02 | 0x03 => {
            if len != 0 {
                return invalid_cdb();
            }
        }
        0x1F => {
            if len != 0 {
                return invalid_cdb();
            }
            disk(s).sanitize_failed = false;
            return good(vec![]);
        }
        _ => return invalid_cdb(),
    }
    let d = disk(s);
    d.sanitize_failed = false;
    d.sanitize = Some((action, now, now + d.sanitize_ms));
    d.sanitize_pattern = pattern;
    let ms = d.sanitize_ms;
    if immed {
        return good(vec![]);
    }
    // without IMMED the command ends with the sanitize: the answer waits its time
    finish_sanitize(s, now + ms);
    let mut o = good(vec![]);
    o.delay_s = ms.div_ceil(1000);
    o
}

// ---- firmware ------------------------------------------------------------------------

/// WRITE BUFFER (SPC-5 §6.49) modes 05h, 07h, 0Eh, 0Fh of buffer 0.
fn write_buffer(s: &mut State, cdb: &[u8], data: &[u8]) -> Outcome {
    let mode = cdb[1] & 0x1F;
    let id = cdb[2];
    let offset = (u32::from(cdb[3]) << 16) | (u32::from(cdb[4]) << 8) | u32::from(cdb[5]);
    let len = ((u32::from(cdb[6]) << 16) | (u32::from(cdb[7]) << 8) | u32::from(cdb[8])) as usize;
    if id != 0 {
        return invalid_cdb();
    }
    if data.len() < len {
        return param_length_error();
    }
    let chunk = &data[..len];
    let fits = |off: u32| {
        off.is_multiple_of(1 << OFFSET_BOUNDARY) && off as usize + len <= BUFFER_CAPACITY as usize
    };
    match mode {
        0x05 => {
            if offset != 0 || len == 0 || !fits(0) {
                return invalid_cdb();
            }
            activate(s, chunk.to_vec());
        }
        0x07 => {
            if len == 0 || !fits(offset) {
                return invalid_cdb();
            }
            // segments write the image in place; each is saved and active at once
            let img = &mut s.firmware.image;
            if offset == 0 {
                img.clear();
            }
            if img.len() != offset as usize {
                return invalid_cdb();
            }
            img.extend_from_slice(chunk);
            s.firmware.received_blocks = (img.len() / SECTOR) as u32;
            let image = img.clone();
            activate(s, image);
        }
        0x0E => {
            if len == 0 || !fits(offset) {
                return invalid_cdb();
            }
            let d = disk(s);
            if offset == 0 {
                d.deferred.clear();
            }
            if d.deferred.len() != offset as usize {
                return invalid_cdb();
            }
            d.deferred.extend_from_slice(chunk);
            s.firmware.received_blocks = (disk(s).deferred.len() / SECTOR) as u32;
        }
        0x0F => {
            if len != 0 || offset != 0 {
                return invalid_cdb();
            }
            let image = std::mem::take(&mut disk(s).deferred);
            if !image.is_empty() {
                activate(s, image);
            }
        }
        _ => return invalid_cdb(),
    }
    good(vec![])
}

/// The image becomes the running microcode: its digest recorded, and the revision taken
/// from a `DMIMAGE1` header (as the ATA model's: magic, LE32 block count, 8-byte revision).
fn activate(s: &mut State, image: Vec<u8>) {
    if image.len() >= 20 && &image[..8] == b"DMIMAGE1" {
        let rev = String::from_utf8_lossy(&image[12..20]).trim().to_string();
        if !rev.is_empty() {
            s.firmware.revision = rev;
        }
    }
    s.firmware.digest = Some(state::digest(&image));
    s.firmware.downloads_completed += 1;
    s.firmware.image = image;
    disk(s).activations += 1;
}

/// READ BUFFER (SPC-5 §6.20) descriptor mode 03h: the offset boundary and the capacity.
fn read_buffer(cdb: &[u8]) -> Outcome {
    let mode = cdb[1] & 0x1F;
    if mode != 0x03 || cdb[2] != 0 {
        return invalid_cdb();
    }
    let alloc = ((usize::from(cdb[6])) << 16) | (usize::from(cdb[7]) << 8) | usize::from(cdb[8]);
    let c = BUFFER_CAPACITY.to_be_bytes();
    good(truncated(vec![OFFSET_BOUNDARY, c[1], c[2], c[3]], alloc))
}

/// One line of the command log for a SCSI-only disk (JSON): the CDB and data out as
/// `guest/sgio` prints them (hex bytes with spaces), so a test can match the two.
pub fn log_line(cdb: &[u8], data_out: &[u8], xfer_len: usize, o: &Outcome) -> serde_json::Value {
    let hex = |b: &[u8]| {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    };
    let mut v = serde_json::json!({
        "scsi": hex(cdb),
        "data_out_len": data_out.len(),
        "xfer_len": xfer_len,
        "status": format!("0x{:02x}", o.status),
    });
    if !data_out.is_empty() {
        v["data_out_digest"] = state::digest(data_out).into();
        // the parameter data in full (mode pages, UNMAP lists, firmware segments); a big
        // WRITE only by its digest
        if data_out.len() <= 4096 && !matches!(cdb[0], 0x0A | 0x2A | 0x8A) {
            v["data_out"] = hex(data_out).into();
        }
    }
    if o.status == CHECK_CONDITION && o.sense.len() >= 14 {
        v["sense"] = format!(
            "{:x}/{:02x}/{:02x}",
            o.sense[2] & 0x0F,
            o.sense[12],
            o.sense[13]
        )
        .into();
    }
    let _ = GOOD;
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disk_state() -> State {
        let mut s = State::new(vec![0; 256], "t", 1 << 21);
        s.scsi = Some(ScsiDisk::new());
        s
    }

    fn run(s: &mut State, cdb: &[u8], out: &[u8], len: usize) -> Outcome {
        handle(s, cdb, out, len, 1_000_000)
    }

    fn sense_of(o: &Outcome) -> (u8, u8, u8) {
        (o.sense[2] & 0x0F, o.sense[12], o.sense[13])
    }

    fn requested(s: &mut State, now: u64) -> Vec<u8> {
        handle(s, &[0x03, 0, 0, 0, 252, 0], &[], 252, now).data_in
    }

    #[test]
    fn ata_pass_through_is_an_invalid_opcode() {
        let mut s = disk_state();
        let ata16 = [
            0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xec, 0,
        ];
        let o = run(&mut s, &ata16, &[], 512);
        assert_eq!((o.status, sense_of(&o)), (CHECK_CONDITION, (5, 0x20, 0)));
        let ata12 = [0xA1, 0x08, 0x0e, 0, 1, 0, 0, 0, 0x40, 0xec, 0, 0];
        assert_eq!(sense_of(&run(&mut s, &ata12, &[], 512)), (5, 0x20, 0));
        assert!(o.ata.is_none());
    }

    #[test]
    fn inquiry_and_vpd_pages() {
        let mut s = disk_state();
        let std = run(&mut s, &[0x12, 0, 0, 0, 96, 0], &[], 96).data_in;
        assert_eq!((std.len(), std[0], std[2]), (36, 0, 0x07));
        assert_eq!(&std[8..16], b"HDPARMRS");
        assert_eq!(&std[16..32], b"MODEL SAS DISK  ");
        let vpd = |s: &mut State, p: u8| run(s, &[0x12, 1, p, 0, 252, 0], &[], 252).data_in;
        assert_eq!(
            vpd(&mut s, 0),
            [0, 0, 0, 6, 0, 0x80, 0x83, 0xB0, 0xB1, 0xB2]
        );
        assert_eq!(&vpd(&mut s, 0x80)[4..], b"HRS-MODEL-0001");
        let di = vpd(&mut s, 0x83);
        assert_eq!(&di[4..8], &[0x01, 0x03, 0, 8]);
        assert_eq!(di[8] >> 4, 5, "NAA 5");
        let bl = vpd(&mut s, 0xB0);
        assert_eq!((bl[1], bl.len()), (0xB0, 64));
        assert_eq!(be32(&bl[20..24]), u64::from(MAX_UNMAP_LBA_COUNT));
        assert_eq!(be32(&bl[24..28]), u64::from(MAX_UNMAP_DESCRIPTORS));
        let bdc = vpd(&mut s, 0xB1);
        assert_eq!((be16(&bdc[4..6]), bdc[7] & 0x0F), (10_000, 3));
        let lbp = vpd(&mut s, 0xB2);
        assert_eq!((lbp[5] & 0x80, (lbp[5] >> 2) & 7), (0x80, 1));
        assert_eq!(
            sense_of(&run(&mut s, &[0x12, 1, 0x89, 0, 252, 0], &[], 252)),
            (5, 0x24, 0)
        );
        let mut rc16 = [0u8; 16];
        rc16[0] = 0x9E;
        rc16[1] = 0x10;
        rc16[13] = 32;
        let cap = run(&mut s, &rc16, &[], 32).data_in;
        assert_eq!(be64(&cap[0..8]), (1 << 21) - 1);
        assert_eq!(be32(&cap[8..12]), 512);
        assert_eq!(cap[14] & 0xC0, 0xC0, "LBPME and LBPRZ");
    }

    fn mode_sense10(s: &mut State, pc_page: u8) -> Vec<u8> {
        run(s, &[0x5A, 0, pc_page, 0, 0, 0, 0, 0x01, 0, 0], &[], 256).data_in
    }

    #[test]
    fn caching_page_wce_and_dra_change_and_save() {
        let mut s = disk_state();
        let cur = mode_sense10(&mut s, 0x08);
        assert_eq!(be16(&cur[0..2]), 26);
        let page = &cur[8..];
        assert_eq!(
            (page[0], page[1], page[2] & 0x04, page[12] & 0x20),
            (0x88, 0x12, 0x04, 0)
        );
        let mask = mode_sense10(&mut s, 0x48);
        assert_eq!(
            (mask[8 + 2], mask[8 + 12]),
            (0x04, 0x20),
            "WCE and DRA changeable"
        );
        // sdparm --set=DRA=1: the page as read, PS cleared, DRA set
        let mut sel = cur.clone();
        sel[0] = 0;
        sel[1] = 0;
        sel[8] &= 0x3F;
        sel[8 + 12] |= 0x20;
        sel[8 + 2] &= !0x04;
        let cdb = [0x55, 0x10, 0, 0, 0, 0, 0, 0, sel.len() as u8, 0];
        assert_eq!(run(&mut s, &cdb, &sel, sel.len()).status, GOOD);
        let now = mode_sense10(&mut s, 0x08);
        assert_eq!((now[8 + 2] & 0x04, now[8 + 12] & 0x20), (0, 0x20));
        assert!(!s.write_cache && !s.look_ahead);
        assert_eq!(mode_sense10(&mut s, 0xC8)[8 + 12] & 0x20, 0, "not saved");
        // saved with SP=1, then a power cycle keeps it
        let cdb = [0x55, 0x11, 0, 0, 0, 0, 0, 0, sel.len() as u8, 0];
        assert_eq!(run(&mut s, &cdb, &sel, sel.len()).status, GOOD);
        assert_eq!(mode_sense10(&mut s, 0xC8)[8 + 12] & 0x20, 0x20);
        // a bit the mask does not name: refused
        let mut bad = sel.clone();
        bad[8 + 2] |= 0x01; // RCD
        let cdb = [0x55, 0x10, 0, 0, 0, 0, 0, 0, bad.len() as u8, 0];
        assert_eq!(sense_of(&run(&mut s, &cdb, &bad, bad.len())), (5, 0x26, 0));
        // MODE SENSE(6) and MODE SELECT(6) of the same page
        let six = run(&mut s, &[0x1A, 0, 0x08, 0, 255, 0], &[], 255).data_in;
        assert_eq!((six[0], six[3], six[4]), (23, 0, 0x88));
        let mut sel6 = six.clone();
        sel6[0] = 0;
        sel6[4] &= 0x3F;
        sel6[4 + 2] |= 0x04;
        let cdb = [0x15, 0x10, 0, 0, sel6.len() as u8, 0];
        assert_eq!(run(&mut s, &cdb, &sel6, sel6.len()).status, GOOD);
        assert!(s.write_cache);
    }

    #[test]
    fn power_condition_page_standby_timer() {
        let mut s = disk_state();
        let cur = mode_sense10(&mut s, 0x1A);
        let p = &cur[8..];
        assert_eq!((p[0], p[1], p.len()), (0x9A, 0x26, 40));
        assert_eq!(be32(&p[8..12]), 9000);
        let mask = mode_sense10(&mut s, 0x5A);
        assert_eq!(
            &mask[8 + 3..8 + 12],
            &[0x03, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF]
        );
        let mut sel = cur.clone();
        sel[..2].fill(0);
        sel[8] &= 0x3F;
        sel[8 + 3] |= 0x01;
        sel[8 + 8..8 + 12].copy_from_slice(&600u32.to_be_bytes());
        let cdb = [0x55, 0x10, 0, 0, 0, 0, 0, 0, sel.len() as u8, 0];
        assert_eq!(run(&mut s, &cdb, &sel, sel.len()).status, GOOD);
        let d = s.scsi.as_ref().unwrap();
        assert!(d.current.standby_z && d.current.standby_z_timer == 600);
        let all = mode_sense10(&mut s, 0x3F);
        assert_eq!(be16(&all[0..2]) as usize, all.len() - 2);
        assert_eq!((all[8], all[28], all[40]), (0x88, 0x8A, 0x9A));
    }

    #[test]
    fn request_sense_follows_start_stop_power_conditions() {
        let mut s = disk_state();
        let ss = |s: &mut State, b4: u8, b3: u8| run(s, &[0x1B, 0, 0, b3, b4, 0], &[], 0).status;
        let rs = |s: &mut State| {
            let d = requested(s, 1_000_000);
            (d[2] & 0x0F, d[12], d[13])
        };
        assert_eq!(rs(&mut s), (0, 0, 0));
        for (b4, b3, want) in [
            (0x30, 0, (0, 0x5E, 0x04)),
            (0xB0, 0, (0, 0x5E, 0x04)),
            (0x20, 0, (0, 0x5E, 0x03)),
            (0xA0, 0, (0, 0x5E, 0x03)),
            (0x20, 1, (0, 0x5E, 0x06)),
            (0x20, 2, (0, 0x5E, 0x08)),
            (0x30, 1, (0, 0x5E, 0x0A)),
            (0x70, 0, (0, 0x5E, 0x0A)),
            (0x10, 0, (0, 0, 0)),
            (0x00, 0, (2, 0x04, 0x02)),
            (0x01, 0, (0, 0, 0)),
        ] {
            assert_eq!(ss(&mut s, b4, b3), GOOD, "{b4:02x}");
            assert_eq!(rs(&mut s), want, "after {b4:02x}/{b3}");
        }
        assert_eq!(ss(&mut s, 0x40, 0), CHECK_CONDITION);
        assert_eq!(ss(&mut s, 0x30, 2), CHECK_CONDITION);
        // media access wakes a disk in standby; TEST UNIT READY does not
        ss(&mut s, 0xB0, 0);
        assert_eq!(run(&mut s, &[0, 0, 0, 0, 0, 0], &[], 0).status, GOOD);
        assert_eq!(rs(&mut s), (0, 0x5E, 0x04));
        run(&mut s, &[0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0], &[], 512);
        assert_eq!(rs(&mut s), (0, 0, 0));
        // a stopped disk refuses medium access until a START
        ss(&mut s, 0x00, 0);
        let r = run(&mut s, &[0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0], &[], 512);
        assert_eq!(sense_of(&r), (2, 0x04, 0x02));
        assert_eq!(
            sense_of(&run(&mut s, &[0, 0, 0, 0, 0, 0], &[], 0)),
            (2, 4, 2)
        );
        ss(&mut s, 0x01, 0);
        assert_eq!(
            run(&mut s, &[0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0], &[], 512).status,
            GOOD
        );
        // descriptor format on DESC=1
        ss(&mut s, 0x30, 0);
        let d = run(&mut s, &[0x03, 1, 0, 0, 252, 0], &[], 252).data_in;
        assert_eq!(&d[..4], &[0x72, 0, 0x5E, 0x04]);
    }

    #[test]
    fn synchronize_cache_and_unmap_within_limits() {
        let mut s = disk_state();
        assert_eq!(
            run(&mut s, &[0x35, 0, 0, 0, 0, 0, 0, 0, 0, 0], &[], 0).status,
            GOOD
        );
        let mut sync16 = [0u8; 16];
        sync16[0] = 0x91;
        assert_eq!(run(&mut s, &sync16, &[], 0).status, GOOD);
        for l in 4096..4160 {
            s.write_sector(l, &[b'U'; 512]);
        }
        let list = |lba: u64, n: u32| {
            let mut p = vec![0, 22, 0, 16, 0, 0, 0, 0];
            p.extend(lba.to_be_bytes());
            p.extend(n.to_be_bytes());
            p.extend([0; 4]);
            p
        };
        let cdb = [0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0];
        assert_eq!(run(&mut s, &cdb, &list(4096, 32), 24).status, GOOD);
        assert_eq!(s.read_sector(4100), vec![0; 512]);
        assert_eq!(s.read_sector(4128), vec![b'U'; 512]);
        let big = list(0, MAX_UNMAP_LBA_COUNT + 1);
        assert_eq!(sense_of(&run(&mut s, &cdb, &big, 24)), (5, 0x26, 0));
        let past = list((1 << 21) - 1, 2);
        assert_eq!(sense_of(&run(&mut s, &cdb, &past, 24)), (5, 0x21, 0));
        // GET LBA STATUS: 32 deallocated from 4096
        let mut g = [0u8; 16];
        g[0] = 0x9E;
        g[1] = 0x12;
        g[2..10].copy_from_slice(&4096u64.to_be_bytes());
        g[13] = 24;
        let d = run(&mut s, &g, &[], 24).data_in;
        assert_eq!((be64(&d[8..16]), be32(&d[16..20]), d[20]), (4096, 32, 1));
    }

    #[test]
    fn log_pages_temperature_and_informational_exceptions() {
        let mut s = disk_state();
        let ls = |s: &mut State, page: u8| {
            run(
                s,
                &[0x4D, 0, 0x40 | page, 0, 0, 0, 0, 0x10, 0, 0],
                &[],
                4096,
            )
        };
        assert_eq!(ls(&mut s, 0).data_in, [0, 0, 0, 3, 0, 0x0D, 0x2F]);
        let t = ls(&mut s, 0x0D).data_in;
        assert_eq!(t, [0x0D, 0, 0, 12, 0, 0, 3, 2, 0, 35, 0, 1, 3, 2, 0, 60]);
        let ie = ls(&mut s, 0x2F).data_in;
        assert_eq!(ie, [0x2F, 0, 0, 7, 0, 0, 3, 3, 0, 0, 35]);
        s.scsi.as_mut().unwrap().temperature_c = 61;
        assert_eq!(&ls(&mut s, 0x2F).data_in[8..11], &[0x0B, 0x01, 61]);
        assert_eq!(sense_of(&ls(&mut s, 0x10)), (5, 0x24, 0));
        // parameter pointer 1: the reference temperature only
        let p = run(&mut s, &[0x4D, 0, 0x4D, 0, 0, 0, 1, 0x10, 0, 0], &[], 4096).data_in;
        assert_eq!(p, [0x0D, 0, 0, 6, 0, 1, 3, 2, 0, 60]);
    }

    #[test]
    fn sanitize_runs_for_its_time_with_progress_then_the_blocks_are_erased() {
        let mut s = disk_state();
        s.write_sector(10, &[7; 512]);
        let t0 = 5_000_000;
        // OVERWRITE, IMMED, pattern 12 34 56 78, one pass
        let list = [0x01, 0, 0, 4, 0x12, 0x34, 0x56, 0x78];
        let o = handle(&mut s, &[0x48, 0x81, 0, 0, 0, 0, 0, 0, 8, 0], &list, 8, t0);
        assert_eq!(o.status, GOOD);
        let r = handle(
            &mut s,
            &[0x28, 0, 0, 0, 0, 10, 0, 0, 1, 0],
            &[],
            512,
            t0 + 1500,
        );
        assert_eq!(sense_of(&r), (2, 0x04, 0x1B));
        assert_eq!((r.sense[15], be16(&r.sense[16..18])), (0x80, 32768));
        let rs = requested(&mut s, t0 + 750);
        assert_eq!((rs[2], rs[12], rs[13], rs[15]), (2, 0x04, 0x1B, 0x80));
        assert_eq!(be16(&rs[16..18]), 16384);
        let inq = handle(&mut s, &[0x12, 0, 0, 0, 36, 0], &[], 36, t0 + 1000);
        assert_eq!(inq.status, GOOD, "INQUIRY goes on");
        let rs = requested(&mut s, t0 + state::SANITIZE_MS);
        assert_eq!(&rs[12..14], &[0, 0]);
        assert_eq!(&s.read_sector(10)[..4], &[0x12, 0x34, 0x56, 0x78]);
        // BLOCK ERASE and CRYPTO ERASE: zeros; a parameter list there is refused
        s.write_sector(10, &[7; 512]);
        let bad = handle(&mut s, &[0x48, 0x82, 0, 0, 0, 0, 0, 0, 8, 0], &list, 8, t0);
        assert_eq!(sense_of(&bad), (5, 0x24, 0));
        handle(&mut s, &[0x48, 0x83, 0, 0, 0, 0, 0, 0, 0, 0], &[], 0, t0);
        let t = t0 + state::SANITIZE_MS;
        assert_eq!(
            handle(&mut s, &[0x28, 0, 0, 0, 0, 10, 0, 0, 1, 0], &[], 512, t).data_in,
            vec![0; 512]
        );
        // a failed sanitize: medium error until EXIT FAILURE MODE
        s.scsi.as_mut().unwrap().sanitize_failed = true;
        let r = handle(&mut s, &[0x28, 0, 0, 0, 0, 10, 0, 0, 1, 0], &[], 512, t);
        assert_eq!(sense_of(&r), (3, 0x31, 0x03));
        handle(&mut s, &[0x48, 0x1F, 0, 0, 0, 0, 0, 0, 0, 0], &[], 0, t);
        assert_eq!(
            handle(&mut s, &[0x28, 0, 0, 0, 0, 10, 0, 0, 1, 0], &[], 512, t).status,
            GOOD
        );
        // without IMMED: done when it answers, after its time
        let o = handle(&mut s, &[0x48, 0x02, 0, 0, 0, 0, 0, 0, 0, 0], &[], 0, t);
        assert_eq!((o.status, o.delay_s), (GOOD, 3));
        assert!(s.scsi.as_ref().unwrap().sanitize.is_none());
    }

    #[test]
    fn write_buffer_modes_and_read_buffer_descriptor() {
        let mut s = disk_state();
        let wb = |mode: u8, off: u32, len: u32| {
            let o = off.to_be_bytes();
            let l = len.to_be_bytes();
            [0x3B, mode, 0, o[1], o[2], o[3], l[1], l[2], l[3], 0]
        };
        let img = vec![b'F'; 4096];
        assert_eq!(run(&mut s, &wb(5, 0, 4096), &img, 4096).status, GOOD);
        assert_eq!(s.firmware.downloads_completed, 1);
        for i in 0..4 {
            let seg = &img[i * 1024..(i + 1) * 1024];
            assert_eq!(
                run(&mut s, &wb(7, i as u32 * 1024, 1024), seg, 1024).status,
                GOOD
            );
        }
        assert_eq!(s.firmware.image.len(), 4096);
        assert_eq!(
            run(&mut s, &wb(7, 100, 1024), &img, 1024).status,
            CHECK_CONDITION,
            "unaligned"
        );
        for i in 0..4 {
            run(&mut s, &wb(0x0E, i * 1024, 1024), &img[..1024], 1024);
        }
        let before = s.firmware.downloads_completed;
        assert_eq!(run(&mut s, &wb(0x0F, 0, 0), &[], 0).status, GOOD);
        assert_eq!(s.firmware.downloads_completed, before + 1);
        assert!(
            s.scsi.as_ref().unwrap().unit_attention.is_none(),
            "no UA on one nexus"
        );
        assert_eq!(
            sense_of(&run(&mut s, &wb(2, 0, 16), &img, 16)),
            (5, 0x24, 0)
        );
        let d = run(&mut s, &[0x3C, 0x03, 0, 0, 0, 0, 0, 0, 4, 0], &[], 4).data_in;
        assert_eq!(d, [OFFSET_BOUNDARY, 0x10, 0, 0]);
        // a DMIMAGE1 header names the revision
        let mut named = b"DMIMAGE1".to_vec();
        named.extend(1u32.to_le_bytes());
        named.extend(b"SAS2    ");
        named.resize(512, 0);
        run(&mut s, &wb(5, 0, 512), &named, 512);
        let inq = run(&mut s, &[0x12, 0, 0, 0, 36, 0], &[], 36).data_in;
        assert_eq!(&inq[32..36], b"SAS2");
    }

    #[test]
    fn a_power_cycle_loads_saved_pages_and_raises_power_on() {
        let mut s = disk_state();
        let d = s.scsi.as_mut().unwrap();
        d.current.wce = false;
        d.power_cycle();
        let o = run(&mut s, &[0, 0, 0, 0, 0, 0], &[], 0);
        assert_eq!(sense_of(&o), (6, 0x29, 0));
        assert_eq!(run(&mut s, &[0, 0, 0, 0, 0, 0], &[], 0).status, GOOD);
        assert!(s.scsi.as_ref().unwrap().current.wce);
    }

    #[test]
    fn log_lines_carry_the_cdb_data_out_and_sense() {
        let o = check(5, 0x20, 0);
        let v = log_line(&[0x85, 8], &[], 512, &o);
        assert_eq!(v["scsi"], "85 08");
        assert_eq!(v["sense"], "5/20/00");
        let v = log_line(&[0x55, 0x10], &[1, 2], 2, &good(vec![]));
        assert_eq!(
            (v["data_out"].as_str(), v.get("sense")),
            (Some("01 02"), None)
        );
    }
}
