//! The SCSI face of the model: a CDB and its data out in, data in + SCSI status + sense out.
//! ATA PASS-THROUGH (12: 0xA1, 16: 0x85) goes to the ATA model (`ata`); the SCSI commands
//! a kernel sends to a disk (INQUIRY, READ CAPACITY, MODE SENSE, READ/WRITE) are answered
//! here. Sense for pass-through follows SAT: descriptor format (ATA Status Return
//! descriptor 0x09) or fixed format (ATA registers in INFORMATION and COMMAND-SPECIFIC).

use crate::ata::{self, Dir, Request, Response, Taskfile};
use crate::identify;
use crate::scsi_wire::{be16, be32, be64, check, fixed_sense, good};
use crate::state::{FaultKind, State, SECTOR};

// What `handle` answers, named here for the callers of the model's SCSI face.
pub use crate::scsi_wire::{Outcome, CHECK_CONDITION, GOOD};

fn ascii(w: &[u16], from: usize, to: usize) -> String {
    let mut s = String::new();
    for &x in &w[from..to] {
        s.push(char::from((x >> 8) as u8));
        s.push(char::from((x & 0xFF) as u8));
    }
    s.trim().to_string()
}

fn pad(s: &str, n: usize) -> Vec<u8> {
    let mut v: Vec<u8> = s.bytes().take(n).collect();
    v.resize(n, b' ');
    v
}

fn inquiry(s: &State, cdb: &[u8]) -> Outcome {
    let w = identify::identify(s);
    let alloc = be16(&cdb[3..5]) as usize;
    let serial = ascii(&w, 10, 20);
    let evpd = cdb[1] & 1 != 0;
    let mut d = if !evpd {
        if cdb[2] != 0 {
            return check(0x05, 0x24, 0x00);
        }
        let mut d = vec![0u8; 36];
        d[2] = 0x05; // SPC-3
        d[3] = 0x02;
        d[4] = 31;
        let (vendor, product, rev) = if s.personality.inquiry == "usb" {
            (
                "JMicron".to_string(),
                "Generic".to_string(),
                "0508".to_string(),
            )
        } else {
            let model = ascii(&w, 27, 47);
            let fw = ascii(&w, 23, 27);
            let rev = fw
                .get(fw.len().saturating_sub(4)..)
                .unwrap_or("")
                .to_string();
            ("ATA".to_string(), model, rev)
        };
        d[8..16].copy_from_slice(&pad(&vendor, 8));
        d[16..32].copy_from_slice(&pad(&product, 16));
        d[32..36].copy_from_slice(&pad(&rev, 4));
        d
    } else {
        match cdb[2] {
            0x00 => vec![0, 0, 0, 3, 0x00, 0x80, 0x83],
            0x80 => {
                let mut d = vec![0, 0x80, 0, serial.len() as u8];
                d.extend(serial.bytes());
                d
            }
            0x83 => {
                // one T10 vendor ID designator: "ATA     " + model + serial, as libata does
                let id = format!("ATA     {} {}", ascii(&w, 27, 47), serial);
                let mut d = vec![0, 0x83, 0, 0, 0x02, 0x01, 0, id.len() as u8];
                d.extend(id.bytes());
                let n = d.len() - 4;
                d[2] = (n >> 8) as u8;
                d[3] = (n & 0xFF) as u8;
                d
            }
            _ => return check(0x05, 0x24, 0x00),
        }
    };
    d.truncate(alloc);
    good(d)
}

fn mode_sense(s: &State, cdb: &[u8], ten: bool) -> Outcome {
    let page = cdb[2] & 0x3F;
    let alloc = if ten {
        be16(&cdb[7..9])
    } else {
        u64::from(cdb[4])
    } as usize;
    let mut pages = Vec::new();
    if page == 0x08 || page == 0x3F {
        let mut p = vec![0u8; 20];
        p[0] = 0x08;
        p[1] = 0x12;
        if s.write_cache {
            p[2] |= 0x04;
        }
        if !s.look_ahead {
            p[12] |= 0x20;
        }
        pages.extend(p);
    }
    if page == 0x0A || page == 0x3F {
        let mut p = vec![0u8; 12];
        p[0] = 0x0A;
        p[1] = 0x0A;
        pages.extend(p);
    }
    if pages.is_empty() && page != 0x3F {
        return check(0x05, 0x24, 0x00);
    }
    let mut d = if ten {
        let n = pages.len() + 6;
        vec![(n >> 8) as u8, (n & 0xFF) as u8, 0, 0, 0, 0, 0, 0]
    } else {
        vec![(pages.len() + 3) as u8, 0, 0, 0]
    };
    d.extend(pages);
    d.truncate(alloc);
    good(d)
}

pub(crate) fn read_capacity(s: &State, sixteen: bool, cdb: &[u8]) -> Outcome {
    let max = s.current_max_lba();
    let bs = SECTOR as u32;
    if sixteen {
        let alloc = be32(&cdb[10..14]) as usize;
        let mut d = vec![0u8; 32];
        d[..8].copy_from_slice(&max.to_be_bytes());
        d[8..12].copy_from_slice(&bs.to_be_bytes());
        d.truncate(alloc);
        good(d)
    } else {
        let m = max.min(0xFFFF_FFFF) as u32;
        let mut d = m.to_be_bytes().to_vec();
        d.extend(bs.to_be_bytes());
        good(d)
    }
}

fn rw(s: &mut State, cdb: &[u8], data_out: &[u8]) -> Outcome {
    let (write, lba, n) = match cdb[0] {
        0x28 => (false, be32(&cdb[2..6]), be16(&cdb[7..9])),
        0x88 => (false, be64(&cdb[2..10]), be32(&cdb[10..14])),
        0x2A => (true, be32(&cdb[2..6]), be16(&cdb[7..9])),
        0x8A => (true, be64(&cdb[2..10]), be32(&cdb[10..14])),
        0x08 => (
            false,
            (u64::from(cdb[1] & 0x1F) << 16) | be16(&cdb[2..4]),
            if cdb[4] == 0 { 256 } else { u64::from(cdb[4]) },
        ),
        _ => (
            true,
            (u64::from(cdb[1] & 0x1F) << 16) | be16(&cdb[2..4]),
            if cdb[4] == 0 { 256 } else { u64::from(cdb[4]) },
        ),
    };
    if n == 0 {
        return good(vec![]);
    }
    if lba + n - 1 > s.current_max_lba() {
        return check(0x05, 0x21, 0x00);
    }
    if s.security.locked || s.sanitize.operation.is_some() {
        return check(0x0B, 0x00, 0x00);
    }
    // media access spins up a drive in standby (as ata::spins_up)
    if s.power == 0x00 {
        s.power = 0xFF;
    }
    if write {
        for (i, l) in (lba..lba + n).enumerate() {
            let c = data_out.get(i * SECTOR..(i + 1) * SECTOR).unwrap_or(&[]);
            s.write_sector(l, c);
        }
        let mut o = good(vec![]);
        o.dirty = true;
        o
    } else {
        let mut d = Vec::with_capacity(n as usize * SECTOR);
        for l in lba..lba + n {
            if s.uncorrectable.contains(&l) {
                let mut o = check(0x03, 0x11, 0x04);
                o.sense[0] = 0xF0;
                o.sense[3..7].copy_from_slice(&(l as u32).to_be_bytes());
                return o;
            }
            d.extend(s.read_sector(l));
        }
        good(d)
    }
}

/// Decodes an ATA PASS-THROUGH CDB (12 or 16 bytes).
pub fn decode_passthrough(cdb: &[u8], data_out: &[u8], data_in_len: usize) -> Option<Request> {
    let sixteen = cdb[0] == 0x85;
    if (sixteen && cdb.len() < 16) || (!sixteen && cdb.len() < 12) {
        return None;
    }
    let protocol = (cdb[1] >> 1) & 0x0F;
    let t_dir_in = cdb[2] & 0x08 != 0;
    let t_length = cdb[2] & 0x03;
    let ck_cond = cdb[2] & 0x20 != 0;
    let tf = if sixteen {
        let extend = cdb[1] & 1 != 0;
        let h = |b: u8| if extend { b } else { 0 };
        Taskfile {
            feature: u16::from(cdb[4]) | (u16::from(h(cdb[3])) << 8),
            count: u16::from(cdb[6]) | (u16::from(h(cdb[5])) << 8),
            lba: u64::from(cdb[8])
                | (u64::from(cdb[10]) << 8)
                | (u64::from(cdb[12]) << 16)
                | (u64::from(h(cdb[7])) << 24)
                | (u64::from(h(cdb[9])) << 32)
                | (u64::from(h(cdb[11])) << 40),
            device: cdb[13],
            command: cdb[14],
            extend,
        }
    } else {
        Taskfile {
            feature: u16::from(cdb[3]),
            count: u16::from(cdb[4]),
            lba: u64::from(cdb[5]) | (u64::from(cdb[6]) << 8) | (u64::from(cdb[7]) << 16),
            device: cdb[8],
            command: cdb[9],
            extend: false,
        }
    };
    let dir = if t_length == 0 {
        Dir::None
    } else if t_dir_in {
        Dir::In
    } else {
        Dir::Out
    };
    Some(Request {
        tf,
        protocol,
        dir,
        data_out: if dir == Dir::Out {
            data_out.to_vec()
        } else {
            Vec::new()
        },
        data_in_len,
        ck_cond,
        cdb_len: if sixteen { 16 } else { 12 },
    })
}

/// The sense for a pass-through answer, in the personality's format.
pub fn passthrough_sense(fixed: bool, extend: bool, r: &Response) -> Vec<u8> {
    let (key, asc, ascq) = if r.is_error() {
        if r.error & ata::ER_UNC != 0 {
            (0x03, 0x11, 0x04)
        } else if r.error & ata::ER_IDNF != 0 {
            (0x05, 0x21, 0x00)
        } else {
            (0x0B, 0x00, 0x00)
        }
    } else {
        (0x01, 0x00, 0x1D)
    };
    let c = r.count;
    let l = r.lba;
    if fixed {
        let mut s = fixed_sense(key, asc, ascq);
        // SAT: INFORMATION = ERROR, STATUS, DEVICE, COUNT(7:0)
        s[3] = r.error;
        s[4] = r.status;
        s[5] = r.device;
        s[6] = (c & 0xFF) as u8;
        // COMMAND-SPECIFIC: EXTEND, COUNT UPPER NONZERO, LBA UPPER NONZERO; LBA(7:0..23:16)
        let mut flags = 0u8;
        if extend {
            flags |= 0x80;
        }
        if c >> 8 != 0 {
            flags |= 0x40;
        }
        if l >> 24 != 0 {
            flags |= 0x20;
        }
        s[8] = flags;
        s[9] = (l & 0xFF) as u8;
        s[10] = ((l >> 8) & 0xFF) as u8;
        s[11] = ((l >> 16) & 0xFF) as u8;
        s[12] = asc;
        s[13] = ascq;
        s
    } else {
        let mut s = vec![0u8; 8 + 14];
        s[0] = 0x72;
        s[1] = key;
        s[2] = asc;
        s[3] = ascq;
        s[7] = 14;
        let d = &mut s[8..];
        d[0] = 0x09;
        d[1] = 0x0C;
        d[2] = u8::from(extend);
        d[3] = r.error;
        d[4] = (c >> 8) as u8;
        d[5] = (c & 0xFF) as u8;
        d[6] = ((l >> 24) & 0xFF) as u8;
        d[7] = (l & 0xFF) as u8;
        d[8] = ((l >> 32) & 0xFF) as u8;
        d[9] = ((l >> 8) & 0xFF) as u8;
        d[10] = ((l >> 40) & 0xFF) as u8;
        d[11] = ((l >> 16) & 0xFF) as u8;
        d[12] = r.device;
        d[13] = r.status;
        s
    }
}

/// Sense without ATA registers for a fault the target reports itself, in the personality's
/// format (descriptor sense with no descriptor, or fixed).
fn target_sense(fixed: bool, key: u8, asc: u8, ascq: u8) -> Vec<u8> {
    if fixed {
        fixed_sense(key, asc, ascq)
    } else {
        vec![0x72, key, asc, ascq, 0, 0, 0, 0]
    }
}

fn passthrough(s: &mut State, cdb: &[u8], data_out: &[u8], data_in_len: usize) -> Outcome {
    let Some(req) = decode_passthrough(cdb, data_out, data_in_len) else {
        return check(0x05, 0x24, 0x00);
    };
    let (command, feature) = (req.tf.command, req.tf.feature);
    let fault = s
        .faults
        .iter_mut()
        .map(|f| (f.hits(command, feature), f.clone()))
        .filter(|(hit, _)| *hit)
        .map(|(_, f)| f)
        .next();
    let fixed = s.personality.sense == "fixed";
    let kind = fault.as_ref().map(|f| f.kind);
    // The faults the target reports itself: no ATA registers, the command not carried out.
    let own = match kind {
        // SPC: ABORTED COMMAND, LOGICAL UNIT COMMUNICATION TIME-OUT (08/01)
        Some(FaultKind::Timeout) => Some(target_sense(fixed, 0x0B, 0x08, 0x01)),
        // SPC: UNIT ATTENTION, POWER ON, RESET, OR BUS DEVICE RESET OCCURRED (29/00)
        Some(FaultKind::Reset) => {
            s.power_cycle();
            Some(target_sense(fixed, 0x06, 0x29, 0x00))
        }
        // SPC: ILLEGAL REQUEST, LOGICAL UNIT NOT SUPPORTED (25/00): the LUN is gone
        Some(FaultKind::Unplug) => Some(target_sense(fixed, 0x05, 0x25, 0x00)),
        _ => None,
    };
    if let Some(sense) = own {
        return Outcome {
            status: CHECK_CONDITION,
            sense,
            delay_s: fault.map_or(0, |f| f.secs),
            dirty: true,
            fault: kind,
            ata: Some((req, Response::default())),
            ..Default::default()
        };
    }
    let mut resp = match kind {
        Some(FaultKind::Abort) => Response {
            status: ata::ST_ERR,
            error: ata::ER_ABRT,
            device: req.tf.device,
            ..Default::default()
        },
        _ => ata::execute(s, &req),
    };
    resp.data_in.truncate(data_in_len);
    let with_sense = resp.is_error() || req.ck_cond || s.personality.always_sense;
    let mut o = Outcome {
        status: if with_sense { CHECK_CONDITION } else { GOOD },
        data_in: resp.data_in.clone(),
        sense: if with_sense {
            passthrough_sense(fixed, req.tf.extend, &resp)
        } else {
            Vec::new()
        },
        delay_s: fault.map_or(0, |f| f.secs),
        dirty: true,
        fault: kind,
        ata: None,
    };
    o.ata = Some((req, resp));
    o
}

/// Answers one CDB.
pub fn handle(s: &mut State, cdb: &[u8], data_out: &[u8], data_in_len: usize) -> Outcome {
    let Some(&op) = cdb.first() else {
        return check(0x05, 0x20, 0x00);
    };
    if s.scsi.is_some() {
        return crate::scsi_disk::handle(s, cdb, data_out, data_in_len, crate::scsi_disk::now_ms());
    }
    let mut o = match op {
        0x00 => good(vec![]),
        0x03 => good(fixed_sense(0, 0, 0)),
        0x12 => inquiry(s, cdb),
        0x1A => mode_sense(s, cdb, false),
        0x5A => mode_sense(s, cdb, true),
        0x25 => read_capacity(s, false, cdb),
        0x9E if cdb[1] & 0x1F == 0x10 => read_capacity(s, true, cdb),
        0x08 | 0x0A | 0x28 | 0x2A | 0x88 | 0x8A => rw(s, cdb, data_out),
        0x2F | 0x8F | 0x35 | 0x91 | 0x1B | 0x1E => good(vec![]),
        0x85 | 0xA1 => passthrough(s, cdb, data_out, data_in_len),
        _ => check(0x05, 0x20, 0x00),
    };
    if o.data_in.len() > data_in_len {
        o.data_in.truncate(data_in_len);
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st() -> State {
        State::new(vec![0; 256], "t", 2_097_152)
    }

    #[test]
    fn identify_through_ata16_is_good_with_data() {
        let mut s = st();
        let cdb = [
            0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xec, 0,
        ];
        let o = handle(&mut s, &cdb, &[], 512);
        assert_eq!(o.status, GOOD);
        assert_eq!(o.data_in.len(), 512);
        assert!(o.sense.is_empty());
    }

    #[test]
    fn check_power_mode_descriptor_and_fixed() {
        let mut s = st();
        let cdb = [
            0x85, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xe5, 0,
        ];
        let o = handle(&mut s, &cdb, &[], 0);
        assert_eq!(o.status, CHECK_CONDITION);
        assert_eq!(&o.sense[..4], &[0x72, 0x01, 0x00, 0x1D]);
        assert_eq!((o.sense[8], o.sense[13], o.sense[21]), (0x09, 0xFF, 0x50));
        s.personality.sense = "fixed".into();
        let o = handle(&mut s, &cdb, &[], 0);
        assert_eq!(o.sense[0], 0x70);
        assert_eq!(&o.sense[3..7], &[0x00, 0x50, 0x40, 0xFF]);
        assert_eq!((o.sense[12], o.sense[13]), (0x00, 0x1D));
    }

    #[test]
    fn read_native_max_ext_registers() {
        let mut s = st();
        let cdb = [
            0x85, 0x07, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0x27, 0,
        ];
        let o = handle(&mut s, &cdb, &[], 0);
        let d = &o.sense[8..];
        let lba = u64::from(d[7])
            | (u64::from(d[9]) << 8)
            | (u64::from(d[11]) << 16)
            | (u64::from(d[6]) << 24);
        assert_eq!(lba, 2_097_151);
    }

    #[test]
    fn aborted_command_has_abort_in_descriptor() {
        let mut s = st();
        s.features = crate::state::Features::none();
        let cdb = [
            0x85, 0x06, 0x20, 0, 0x12, 0, 0, 0, 0x72, 0, 0x45, 0, 0x6B, 0x40, 0xb4, 0,
        ];
        let o = handle(&mut s, &cdb, &[], 0);
        assert_eq!(o.sense[1], 0x0B);
        assert_eq!((o.sense[8 + 3], o.sense[8 + 13]), (0x04, 0x51));
    }

    #[test]
    fn inquiry_like_libata() {
        let mut s = st();
        let o = handle(&mut s, &[0x12, 0, 0, 0, 36, 0], &[], 36);
        assert_eq!(&o.data_in[8..16], b"ATA     ");
    }

    #[test]
    fn scsi_read_write_round_trip() {
        let mut s = st();
        let w = [0x2A, 0, 0, 0, 0, 9, 0, 0, 1, 0];
        handle(&mut s, &w, &[0xAB; 512], 0);
        let r = [0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0];
        assert_eq!(handle(&mut s, &r, &[], 512).data_in, vec![0xAB; 512]);
    }
}
