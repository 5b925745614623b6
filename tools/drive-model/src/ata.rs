//! The ATA command model: one taskfile (and its data out) in, the result registers (and data
//! in) out, the state changed as ACS-3 says. Written from the standard, not from hdparm.
//!
//! The model's clock: a sanitize operation ends after a fixed number of SANITIZE STATUS
//! queries (`SANITIZE_STEPS`), not after wall-clock time, so that both tools' runs of a
//! scenario see the same progress.

use crate::identify;
use crate::state::{self, State, SECTOR};
use serde::Serialize;

pub const ST_OK: u8 = 0x50; // DRDY | DSC
pub const ST_ERR: u8 = 0x51;
pub const ER_ABRT: u8 = 0x04;
pub const ER_IDNF: u8 = 0x10;
pub const ER_UNC: u8 = 0x40;
pub const SANITIZE_STEPS: u32 = 3;

/// The input registers, 48-bit view (28-bit commands take LBA 24-27 from the device register).
#[derive(Debug, Clone, Default)]
pub struct Taskfile {
    pub command: u8,
    pub feature: u16,
    pub count: u16,
    pub lba: u64,
    pub device: u8,
    /// The CDB's EXTEND bit.
    pub extend: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    None,
    In,
    Out,
}

#[derive(Debug, Clone)]
pub struct Request {
    pub tf: Taskfile,
    /// SAT PROTOCOL field (3 non-data, 4 PIO in, 5 PIO out, 6 DMA, ...).
    pub protocol: u8,
    pub dir: Dir,
    pub data_out: Vec<u8>,
    /// Bytes the host offers for data in.
    pub data_in_len: usize,
    pub ck_cond: bool,
    pub cdb_len: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Response {
    pub status: u8,
    pub error: u8,
    pub count: u16,
    pub lba: u64,
    pub device: u8,
    pub data_in: Vec<u8>,
}

impl Response {
    fn ok(dev: u8) -> Self {
        Response {
            status: ST_OK,
            device: dev,
            ..Default::default()
        }
    }
    fn abort(dev: u8) -> Self {
        Response {
            status: ST_ERR,
            error: ER_ABRT,
            device: dev,
            ..Default::default()
        }
    }
    pub fn is_error(&self) -> bool {
        self.status & 0x01 != 0
    }
}

/// One line of the command log (JSON). The tool's time-out is not on the wire (the SG_IO
/// header carries it to the kernel, the CDB does not), so it is not logged.
#[derive(Debug, Clone, Serialize)]
pub struct LogEntry {
    pub cdb: String,
    pub command: String,
    pub feature: String,
    pub count: String,
    pub lba: String,
    pub device: String,
    pub protocol: &'static str,
    pub direction: &'static str,
    pub extend: bool,
    pub ck_cond: bool,
    pub data_out_len: usize,
    pub data_out_digest: Option<String>,
    /// The host's transfer buffer (SG_IO's dxfer_len), whatever the direction.
    pub xfer_len: usize,
    pub status: String,
    pub error: String,
    pub out_count: String,
    pub out_lba: String,
    /// The injected fault that hit the command (`abort`, `delay`, `timeout`, `reset`,
    /// `unplug`), and `unplugged` for a command that reached a drive already pulled out;
    /// absent otherwise, so the logs of scenarios without faults are unchanged.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fault: Option<&'static str>,
}

pub fn protocol_name(p: u8) -> &'static str {
    match p {
        0 => "hard-reset",
        1 => "srst",
        3 => "non-data",
        4 => "pio-in",
        5 => "pio-out",
        6 => "dma",
        8 => "device-diagnostic",
        9 => "device-reset",
        10 => "udma-in",
        11 => "udma-out",
        12 => "fpdma",
        15 => "return-response",
        _ => "other",
    }
}

pub fn log_entry(req: &Request, resp: &Response, fault: Option<&'static str>) -> LogEntry {
    LogEntry {
        cdb: format!("ata{}", req.cdb_len),
        command: format!("0x{:02x}", req.tf.command),
        feature: format!("0x{:04x}", req.tf.feature),
        count: format!("0x{:04x}", req.tf.count),
        lba: format!("0x{:012x}", req.tf.lba),
        device: format!("0x{:02x}", req.tf.device),
        protocol: protocol_name(req.protocol),
        direction: match req.dir {
            Dir::None => "none",
            Dir::In => "in",
            Dir::Out => "out",
        },
        extend: req.tf.extend,
        ck_cond: req.ck_cond,
        data_out_len: req.data_out.len(),
        data_out_digest: (!req.data_out.is_empty()).then(|| state::digest(&req.data_out)),
        xfer_len: req.data_in_len,
        status: format!("0x{:02x}", resp.status),
        error: format!("0x{:02x}", resp.error),
        out_count: format!("0x{:04x}", resp.count),
        out_lba: format!("0x{:012x}", resp.lba),
        fault,
    }
}

fn is_ext(cmd: u8) -> bool {
    matches!(
        cmd,
        0x06 | 0x24
            | 0x25
            | 0x27
            | 0x29
            | 0x2F
            | 0x34
            | 0x35
            | 0x37
            | 0x39
            | 0x3F
            | 0x42
            | 0x45
            | 0x47
            | 0x57
            | 0x78
            | 0xB2
            | 0xB4
            | 0xEA
            | 0x60
            | 0x61
    )
}

/// The command's LBA: 48-bit for EXT commands, else 28 bits with 24-27 from the device register.
fn lba_of(tf: &Taskfile) -> u64 {
    if is_ext(tf.command) {
        tf.lba & 0xFFFF_FFFF_FFFF
    } else {
        (tf.lba & 0xFF_FFFF) | (u64::from(tf.device & 0x0F) << 24)
    }
}

fn count_of(tf: &Taskfile) -> u64 {
    if is_ext(tf.command) {
        if tf.count == 0 {
            65536
        } else {
            u64::from(tf.count)
        }
    } else if tf.count & 0xFF == 0 {
        256
    } else {
        u64::from(tf.count & 0xFF)
    }
}

/// A max-LBA answer in the output registers (28-bit commands: LBA 24-27 in the device register).
fn lba_answer(dev: u8, lba: u64, ext: bool) -> Response {
    let mut r = Response::ok(dev);
    if ext {
        r.lba = lba & 0xFFFF_FFFF_FFFF;
    } else {
        let l = lba.min(0x0FFF_FFFE);
        r.lba = l & 0xFF_FFFF;
        r.device = (dev & 0xF0) | ((l >> 24) & 0x0F) as u8;
    }
    r
}

fn password_of(data: &[u8]) -> Option<(bool, bool, bool, String, u16)> {
    if data.len() < 36 {
        return None;
    }
    let master = data[0] & 1 != 0;
    let enhanced = data[0] & 2 != 0;
    let max = data[1] & 1 != 0;
    let pw = state::hex(&data[2..34]);
    let rev = u16::from_le_bytes([data[34], data[35]]);
    Some((master, enhanced, max, pw, rev))
}

/// Whether a command needs the platters: a drive in standby spins up for it (ACS-3 4.18.3:
/// a command that requires media access). Reads, writes, verifies, TRIM, FLUSH, and SMART's
/// READ DATA / READ LOG / WRITE LOG / offline tests.
pub fn spins_up(tf: &Taskfile) -> bool {
    match tf.command {
        0x20..=0x25 | 0x29 | 0x30..=0x35 | 0x39 | 0x3D | 0x3F | 0x40..=0x42 | 0x45 | 0x06 => true,
        0xC4 | 0xC5 | 0xC8 | 0xCA => true,
        0xB0 => matches!(tf.feature & 0xFF, 0xD0 | 0xD4 | 0xD5 | 0xD6),
        _ => false,
    }
}

/// A command that reads and changes nothing in the drive: what `ctl end --writes-only`
/// leaves out of the command log (IDENTIFY (PACKET) DEVICE, CHECK POWER MODE, READ NATIVE
/// MAX (EXT), SMART READ DATA / READ THRESHOLDS / READ LOG / RETURN STATUS, READ LOG (DMA)
/// EXT, READ SECTOR(S)/MULTIPLE/DMA/VERIFY, DCO IDENTIFY, SANITIZE STATUS without the
/// clear bit). Everything else is compared in order: SET FEATURES, power, security, ...
pub fn is_pure_read(command: u8, feature: u16, lba: u64) -> bool {
    match command {
        0xEC | 0xA1 | 0xE5 | 0xF8 | 0x27 | 0x2F | 0x47 => true,
        0x20 | 0x21 | 0x24 | 0x25 | 0x29 | 0xC4 | 0xC8 | 0x40..=0x42 => true,
        0xB0 => matches!(feature & 0xFF, 0xD0 | 0xD1 | 0xD5 | 0xDA),
        0xB1 => feature & 0xFF == 0xC2,
        0xB4 => feature == 0x0000 && lba & 1 == 0,
        _ => false,
    }
}

/// Runs one command against the state. Faults are applied by the caller.
pub fn execute(s: &mut State, req: &Request) -> Response {
    s.ticks += 1;
    let tf = &req.tf;
    let dev = tf.device;
    let prev_prepared = std::mem::replace(&mut s.security.erase_prepared, false);
    let prev_read_native = std::mem::replace(&mut s.last_was_read_native, false);
    // A sleeping drive answers nothing but a reset; the model treats every command as the
    // wake-up a host reset would give (libata resets on the next command).
    if s.power == 0x01 {
        s.power = 0xFF;
    }
    // A drive in standby spins up for media access (sectors, SMART data and logs, which
    // live on the platters); IDENTIFY and CHECK POWER MODE it answers from standby.
    if s.power == 0x00 && spins_up(tf) {
        s.power = 0xFF;
    }
    let locked = s.security.locked;
    let sanitizing = s.sanitize.operation.is_some();
    match tf.command {
        // IDENTIFY DEVICE
        0xEC => {
            let mut r = Response::ok(dev);
            r.data_in = identify::to_bytes(&identify::identify(s));
            r
        }
        // IDENTIFY PACKET DEVICE: not a packet device
        0xA1 => Response::abort(dev),
        // CHECK POWER MODE
        0xE5 => {
            let mut r = Response::ok(dev);
            r.count = u16::from(s.power);
            r
        }
        0xE0 | 0xE2 | 0x94 | 0x96 => {
            s.power = 0x00;
            Response::ok(dev)
        }
        0xE1 | 0xE3 | 0x95 | 0x97 => {
            s.power = 0xFF;
            Response::ok(dev)
        }
        0xE6 | 0x99 => {
            s.power = 0x01;
            Response::ok(dev)
        }
        0xE7 | 0xEA => Response::ok(dev),
        0x00 => Response::abort(dev),     // NOP
        0x10..=0x1F => Response::ok(dev), // RECALIBRATE
        0x90 => {
            let mut r = Response::ok(dev);
            r.error = 0x01;
            r.count = 1;
            r.lba = 1;
            r
        }
        0xC6 => {
            let n = (tf.count & 0xFF) as u8;
            if n <= 16 && (n == 0 || n.is_power_of_two()) {
                s.multiple = n;
                Response::ok(dev)
            } else {
                Response::abort(dev)
            }
        }
        0xEF => set_features(s, tf),
        0xB0 => smart(s, req),
        0x80 => wd_vsc(s, tf),
        0xF8 | 0x27 => {
            if !s.features.hpa {
                return Response::abort(dev);
            }
            s.last_was_read_native = true;
            lba_answer(dev, s.dco_max_lba, tf.command == 0x27)
        }
        0xF9 | 0x37 => set_max(s, tf, prev_read_native),
        0x78 => amax(s, tf),
        0xB1 => dco(s, req),
        0xF1..=0xF6 => security(s, req, prev_prepared),
        0xB4 => sanitize(s, tf),
        0x2F | 0x47 => read_log(s, req),
        0xB2 => set_sector_config(s, tf),
        0x92 => download_microcode(s, req),
        // media access (everything below) is refused while locked or while a sanitize runs
        _ if locked || sanitizing => Response::abort(dev),
        // READ SECTOR(S) (EXT), READ MULTIPLE (EXT), READ DMA (EXT)
        0x20 | 0x21 | 0x24 | 0x29 | 0xC4 | 0xC8 | 0x25 => read_sectors(s, tf),
        0x30 | 0x31 | 0x34 | 0x39 | 0xC5 | 0xCA | 0x35 => write_sectors(s, req),
        0x40..=0x42 => {
            let lba = lba_of(tf);
            let n = count_of(tf);
            if lba + n - 1 > s.current_max_lba() {
                return idnf(dev, lba);
            }
            if let Some(&bad) = s.uncorrectable.range(lba..lba + n).next() {
                return unc(dev, bad);
            }
            Response::ok(dev)
        }
        0x06 => dsm(s, req),
        0x45 => write_uncorrectable(s, tf),
        0x32 | 0x33 => {
            // WRITE LONG: the data and its ECC bytes as given; the model records the sector
            // as one whose ECC no longer matches, so reads fail
            let lba = lba_of(tf);
            if lba > s.current_max_lba() {
                return idnf(dev, lba);
            }
            s.uncorrectable.insert(lba);
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

fn idnf(dev: u8, lba: u64) -> Response {
    Response {
        status: ST_ERR,
        error: ER_IDNF,
        lba,
        device: dev,
        ..Default::default()
    }
}

fn unc(dev: u8, lba: u64) -> Response {
    Response {
        status: ST_ERR,
        error: ER_UNC,
        lba,
        device: dev,
        ..Default::default()
    }
}

fn read_sectors(s: &mut State, tf: &Taskfile) -> Response {
    let lba = lba_of(tf);
    let n = count_of(tf);
    if lba + n - 1 > s.current_max_lba() {
        return idnf(tf.device, lba);
    }
    let mut r = Response::ok(tf.device);
    for l in lba..lba + n {
        if s.uncorrectable.contains(&l) {
            let mut e = unc(tf.device, l);
            e.data_in = r.data_in;
            return e;
        }
        r.data_in.extend(s.read_sector(l));
    }
    r
}

fn write_sectors(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let lba = lba_of(tf);
    let n = count_of(tf);
    if lba + n - 1 > s.current_max_lba() {
        return idnf(tf.device, lba);
    }
    for (i, l) in (lba..lba + n).enumerate() {
        let chunk = req
            .data_out
            .get(i * SECTOR..(i + 1) * SECTOR)
            .unwrap_or(&[]);
        s.write_sector(l, chunk);
    }
    Response::ok(tf.device)
}

fn dsm(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    if !s.features.trim || tf.feature & 1 == 0 {
        return Response::abort(tf.device);
    }
    let blocks = if tf.count == 0 {
        65536
    } else {
        tf.count as usize
    };
    let data = &req.data_out[..req.data_out.len().min(blocks * SECTOR)];
    for e in data.chunks(8) {
        if e.len() < 8 {
            break;
        }
        let v = u64::from_le_bytes([e[0], e[1], e[2], e[3], e[4], e[5], e[6], e[7]]);
        let start = v & 0xFFFF_FFFF_FFFF;
        let n = v >> 48;
        if n == 0 {
            continue;
        }
        if start + n - 1 > s.current_max_lba() {
            return Response::abort(tf.device);
        }
        s.trim(start, n);
    }
    Response::ok(tf.device)
}

fn write_uncorrectable(s: &mut State, tf: &Taskfile) -> Response {
    if !s.features.write_uncorrectable || !matches!(tf.feature & 0xFF, 0x55 | 0x5A | 0xA5 | 0xAA) {
        return Response::abort(tf.device);
    }
    let lba = lba_of(tf);
    let n = count_of(tf);
    if lba + n - 1 > s.current_max_lba() {
        return idnf(tf.device, lba);
    }
    for l in lba..lba + n {
        s.uncorrectable.insert(l);
    }
    Response::ok(tf.device)
}

fn set_features(s: &mut State, tf: &Taskfile) -> Response {
    let dev = tf.device;
    let cnt = (tf.count & 0xFF) as u8;
    match tf.feature & 0xFF {
        0x02 => s.write_cache = true,
        0x82 => s.write_cache = false,
        0xAA => s.look_ahead = true,
        0x55 => s.look_ahead = false,
        0x03 => {}
        0x05 => {
            if cnt == 0 {
                return Response::abort(dev);
            }
            s.apm = Some(cnt);
        }
        0x85 => s.apm = None,
        0x42 => s.aam = Some(cnt),
        0xC2 => s.aam = None,
        0x10 | 0x90 => {}
        0x66 | 0xCC => {}
        _ => return Response::abort(dev),
    }
    Response::ok(dev)
}

fn smart(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    let key = (tf.lba >> 8) & 0xFFFF;
    let feat = (tf.feature & 0xFF) as u8;
    // The WD vendor-specific sequence rides on SMART with its own LBA (0xC24FBE/BF)
    if s.wd.vsc_enabled && (tf.lba & 0xFF_FFFF) >> 8 == 0xC24F && (tf.lba & 0xFF) >= 0xBE {
        return wd_smart(s, req);
    }
    if key != 0xC24F {
        return Response::abort(dev);
    }
    match feat {
        0xD8 => {
            s.smart_enabled = true;
            Response::ok(dev)
        }
        0xD9 => {
            s.smart_enabled = false;
            Response::ok(dev)
        }
        _ if !s.smart_enabled => Response::abort(dev),
        0xDA => {
            let mut r = Response::ok(dev);
            r.lba = 0xC24F00 | (tf.lba & 0xFF);
            r
        }
        0xD0 | 0xD1 => {
            let mut r = Response::ok(dev);
            let mut d = vec![0u8; SECTOR];
            d[0] = 0x10;
            if feat == 0xD0 {
                // attribute 9 (power-on hours) and 194 (temperature), enough for a table
                d[2..14].copy_from_slice(&[9, 0x32, 0, 100, 100, 0x2A, 0, 0, 0, 0, 0, 0]);
                d[14..26].copy_from_slice(&[194, 0x22, 0, 110, 100, 35, 0, 0, 0, 0, 0, 0]);
                d[362] = 0x82;
                d[368] = 0x7B;
            } else {
                d[2] = 9;
                d[3] = 0;
                d[14] = 194;
                d[15] = 0;
            }
            let sum = d[..511].iter().fold(0u8, |a, &x| a.wrapping_add(x));
            d[511] = sum.wrapping_neg();
            r.data_in = d;
            r
        }
        0xD5 => {
            let mut r = Response::ok(dev);
            r.data_in = vec![0u8; SECTOR * count_of(tf).min(16) as usize];
            r
        }
        0xD2 | 0xD4 | 0xDB => Response::ok(dev),
        _ => Response::abort(dev),
    }
}

fn wd_vsc(s: &mut State, tf: &Taskfile) -> Response {
    let dev = tf.device;
    if !s.features.wd_vendor || tf.lba & 0xFF_FFFF != 0x574400 {
        return Response::abort(dev);
    }
    match tf.feature & 0xFF {
        0x45 => {
            s.wd.vsc_enabled = true;
            s.wd.key_action = None;
            Response::ok(dev)
        }
        0x44 => {
            s.wd.vsc_enabled = false;
            s.wd.key_action = None;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

fn wd_smart(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    let feat = tf.feature & 0xFF;
    match (tf.lba & 0xFF, feat) {
        // the key sector: [0]=0x2A, [2]=action, [4]=2, [6]=0x0D, [8]=0x16, [10]=1
        (0xBE, 0xD6) => {
            let d = &req.data_out;
            if d.len() < 12 || d[0] != 0x2A || d[4] != 0x02 || d[6] != 0x0D || d[8] != 0x16 {
                return Response::abort(dev);
            }
            if !matches!(d[2], 1 | 2) {
                return Response::abort(dev);
            }
            s.wd.key_action = Some(d[2]);
            Response::ok(dev)
        }
        (0xBF, 0xD5) if s.wd.key_action == Some(1) => {
            let mut r = Response::ok(dev);
            let mut d = vec![0u8; SECTOR];
            d[0] = s.wd.idle3;
            r.data_in = d;
            s.wd.key_action = None;
            r
        }
        (0xBF, 0xD6) if s.wd.key_action == Some(2) => {
            let Some(&v) = req.data_out.first() else {
                return Response::abort(dev);
            };
            s.wd.idle3 = v;
            s.wd.key_action = None;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

fn set_max(s: &mut State, tf: &Taskfile, prev_read_native: bool) -> Response {
    let dev = tf.device;
    if !s.features.hpa || s.security.locked {
        return Response::abort(dev);
    }
    let ext = tf.command == 0x37;
    if !ext && tf.feature & 0xFF != 0 {
        // SET MAX security extension: 1 SET PASSWORD, 2 LOCK, 3 UNLOCK, 4 FREEZE LOCK
        return match tf.feature & 0xFF {
            2 | 4 => {
                s.set_max_frozen = true;
                Response::ok(dev)
            }
            1 | 3 => Response::ok(dev),
            _ => Response::abort(dev),
        };
    }
    // ACS: SET MAX ADDRESS must come right after READ NATIVE MAX ADDRESS
    if !prev_read_native || s.set_max_frozen {
        return Response::abort(dev);
    }
    let lba = lba_of(tf);
    if lba > s.dco_max_lba {
        return idnf(dev, lba);
    }
    let non_volatile = tf.count & 1 != 0;
    if non_volatile {
        if s.set_max_nonvolatile_done {
            return Response::abort(dev);
        }
        s.set_max_nonvolatile_done = true;
        s.max_lba = lba;
        s.max_lba_volatile = None;
    } else {
        s.max_lba_volatile = Some(lba);
    }
    lba_answer(dev, lba, ext)
}

fn amax(s: &mut State, tf: &Taskfile) -> Response {
    let dev = tf.device;
    if !s.features.amax {
        return Response::abort(dev);
    }
    match tf.feature {
        0x0000 => lba_answer(dev, s.dco_max_lba, true),
        0x0001 => {
            if s.set_max_frozen || s.security.locked {
                return Response::abort(dev);
            }
            let lba = tf.lba & 0xFFFF_FFFF_FFFF;
            if lba > s.dco_max_lba {
                return idnf(dev, lba);
            }
            // SET ACCESSIBLE MAX ADDRESS EXT is non-volatile
            s.max_lba = lba;
            s.max_lba_volatile = None;
            Response::ok(dev)
        }
        0x0002 => {
            s.set_max_frozen = true;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

fn dco(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    if !s.features.dco {
        return Response::abort(dev);
    }
    let hpa_set = s.current_max_lba() != s.dco_max_lba;
    match tf.feature & 0xFF {
        0xC2 => {
            let mut r = Response::ok(dev);
            r.data_in = identify::to_bytes(&identify::dco_identify(s));
            r
        }
        0xC1 => {
            s.dco_frozen = true;
            Response::ok(dev)
        }
        0xC0 => {
            if s.dco_frozen || hpa_set || s.security.locked {
                return Response::abort(dev);
            }
            s.dco_max_lba = s.factory_sectors - 1;
            s.max_lba = s.dco_max_lba;
            s.max_lba_volatile = None;
            Response::ok(dev)
        }
        0xC3 => {
            if s.dco_frozen || hpa_set || s.security.locked || req.data_out.len() < SECTOR {
                return Response::abort(dev);
            }
            let d = &req.data_out;
            let sum = d[..SECTOR].iter().fold(0u8, |a, &x| a.wrapping_add(x));
            if d[510] != 0xA5 || sum != 0 {
                return Response::abort(dev);
            }
            let w = |i: usize| u64::from(u16::from_le_bytes([d[2 * i], d[2 * i + 1]]));
            let lba = w(3) | (w(4) << 16) | (w(5) << 32);
            if lba > s.factory_sectors - 1 || lba == 0 {
                return Response::abort(dev);
            }
            s.dco_max_lba = lba;
            s.max_lba = lba;
            s.max_lba_volatile = None;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

fn security(s: &mut State, req: &Request, prev_prepared: bool) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    if !s.features.security {
        return Response::abort(dev);
    }
    let sec = &mut s.security;
    match tf.command {
        // FREEZE LOCK: not from the locked state
        0xF5 => {
            if sec.locked {
                return Response::abort(dev);
            }
            sec.frozen = true;
            Response::ok(dev)
        }
        // ERASE PREPARE
        0xF3 => {
            if sec.frozen {
                return Response::abort(dev);
            }
            sec.erase_prepared = true;
            Response::ok(dev)
        }
        _ if sec.frozen => Response::abort(dev),
        // SET PASSWORD
        0xF1 => {
            let Some((master, _, max, pw, rev)) = password_of(&req.data_out) else {
                return Response::abort(dev);
            };
            if sec.locked {
                return Response::abort(dev);
            }
            if master {
                sec.master_password = pw;
                if rev != 0xFFFF {
                    sec.master_revision = rev;
                }
            } else {
                sec.user_password = Some(pw);
                sec.enabled = true;
                sec.level_max = max;
            }
            Response::ok(dev)
        }
        // UNLOCK
        0xF2 => {
            let Some((master, _, _, pw, _)) = password_of(&req.data_out) else {
                return Response::abort(dev);
            };
            if sec.attempts_left == 0 {
                return Response::abort(dev);
            }
            let ok = if master {
                !sec.level_max && pw == sec.master_password
            } else {
                sec.user_password.as_deref() == Some(pw.as_str())
            };
            if !ok {
                if sec.locked || sec.enabled {
                    sec.attempts_left -= 1;
                }
                return Response::abort(dev);
            }
            sec.locked = false;
            Response::ok(dev)
        }
        // ERASE UNIT: right after ERASE PREPARE
        0xF4 => {
            let Some((master, _enhanced, _, pw, _)) = password_of(&req.data_out) else {
                return Response::abort(dev);
            };
            if !prev_prepared || sec.attempts_left == 0 {
                return Response::abort(dev);
            }
            let ok = if master {
                pw == sec.master_password
            } else {
                sec.enabled && sec.user_password.as_deref() == Some(pw.as_str())
            };
            if !ok {
                if sec.enabled {
                    sec.attempts_left -= 1;
                }
                return Response::abort(dev);
            }
            sec.enabled = false;
            sec.locked = false;
            sec.user_password = None;
            sec.level_max = false;
            s.wipe(0);
            Response::ok(dev)
        }
        // DISABLE PASSWORD: unlocked, correct password
        0xF6 => {
            let Some((master, _, _, pw, _)) = password_of(&req.data_out) else {
                return Response::abort(dev);
            };
            if sec.locked || !sec.enabled {
                return Response::abort(dev);
            }
            let ok = if master {
                !sec.level_max && pw == sec.master_password
            } else {
                sec.user_password.as_deref() == Some(pw.as_str())
            };
            if !ok {
                sec.attempts_left = sec.attempts_left.saturating_sub(1);
                return Response::abort(dev);
            }
            sec.enabled = false;
            sec.user_password = None;
            sec.level_max = false;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

/// Sanitize status and its failure reasons in the output LBA(7:0): 1 failed, 2 unsupported,
/// 3 frozen, 4 antifreeze.
fn sanitize(s: &mut State, tf: &Taskfile) -> Response {
    let dev = tf.device;
    let fail = |reason: u64| Response {
        status: ST_ERR,
        error: ER_ABRT,
        lba: reason,
        device: dev,
        ..Default::default()
    };
    if !s.features.sanitize {
        return fail(2);
    }
    let key = tf.lba & 0xFFFF_FFFF;
    let sz = &mut s.sanitize;
    match tf.feature {
        0x0000 => {
            if let Some(op) = sz.operation.clone() {
                sz.steps_left = sz.steps_left.saturating_sub(1);
                if sz.steps_left == 0 {
                    sz.operation = None;
                    sz.last_completed_ok = true;
                    let pattern = if op == "overwrite" {
                        sz.overwrite_pattern
                    } else {
                        0
                    };
                    s.wipe(pattern);
                }
            }
            let sz = &s.sanitize;
            if sz.failed && tf.lba & 1 == 0 {
                return fail(1);
            }
            if tf.lba & 1 != 0 {
                s.sanitize.failed = false;
            }
            let sz = &s.sanitize;
            let mut c: u16 = 0;
            if sz.last_completed_ok {
                c |= 1 << 15;
            }
            let mut r = Response::ok(dev);
            if sz.operation.is_some() {
                c |= 1 << 14;
                let done = sz.steps_total - sz.steps_left;
                r.lba = u64::from(done) * 0xFFFF / u64::from(sz.steps_total.max(1));
            } else {
                r.lba = 0xFFFF;
            }
            if sz.frozen {
                c |= 1 << 13;
            }
            if sz.antifreeze {
                c |= 1 << 12;
            }
            r.count = c;
            r
        }
        0x0011 | 0x0012 | 0x0014 => {
            let (want, name) = match tf.feature {
                0x0011 => (0x4372_7970, "crypto-scramble"),
                0x0012 => (0x426B_4572, "block-erase"),
                _ => (0x0000_4F57, "overwrite"),
            };
            let got = if tf.feature == 0x0014 {
                (tf.lba >> 32) & 0xFFFF
            } else {
                key
            };
            if got != want {
                return fail(0);
            }
            if sz.frozen {
                return fail(3);
            }
            if sz.operation.is_some() || s.security.locked {
                return fail(0);
            }
            sz.operation = Some(name.to_string());
            sz.overwrite_pattern = (tf.lba & 0xFFFF_FFFF) as u32;
            let steps = if sz.steps_setting > 0 {
                sz.steps_setting
            } else {
                SANITIZE_STEPS
            };
            sz.steps_total = steps;
            sz.steps_left = steps;
            sz.last_completed_ok = false;
            // a new operation leaves SD3
            sz.failed = false;
            Response::ok(dev)
        }
        0x0020 => {
            if key != 0x4672_4C6B {
                return fail(0);
            }
            if sz.antifreeze {
                return fail(4);
            }
            sz.frozen = true;
            Response::ok(dev)
        }
        0x0040 => {
            if key != 0x416E_7469 {
                return fail(0);
            }
            sz.antifreeze = true;
            Response::ok(dev)
        }
        _ => fail(2),
    }
}

/// The Sector Configuration log (0x2F): descriptor 0 is 512-byte sectors, 1 is 4096 (sizes
/// in words); the checkwords are the state's.
pub const SECTOR_CONFIG_WORDS: [u32; 2] = [256, 2048];

fn read_log(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    let log = (tf.lba & 0xFF) as u8;
    let page = ((tf.lba >> 8) & 0xFFFF) as usize;
    let n = count_of(tf) as usize;
    let mut d = vec![0u8; n * SECTOR];
    match log {
        0x00 => {
            // the directory: word N = pages of log N
            d[0] = 1; // GPL version
            if s.features.sector_config {
                d[0x2F * 2] = 1;
            }
        }
        0x2F if s.features.sector_config && page == 0 => {
            let checks = &s.sector_config_checks;
            for (i, (check, words)) in checks.iter().zip(SECTOR_CONFIG_WORDS).enumerate() {
                let o = i * 16;
                d[o] = 0x80;
                d[o + 2..o + 4].copy_from_slice(&check.to_le_bytes());
                d[o + 4..o + 8].copy_from_slice(&words.to_le_bytes());
            }
        }
        _ => return Response::abort(dev),
    }
    let mut r = Response::ok(dev);
    r.data_in = d;
    r
}

fn set_sector_config(s: &mut State, tf: &Taskfile) -> Response {
    let dev = tf.device;
    if !s.features.sector_config || s.security.locked {
        return Response::abort(dev);
    }
    let idx = (tf.count & 0x7) as usize;
    // ACS: FEATURE(15:0) is the descriptor's command checkword
    match s.sector_config_checks.get(idx) {
        Some(&check) if idx < SECTOR_CONFIG_WORDS.len() && check == tf.feature => {
            s.sector_config = idx as u8;
            Response::ok(dev)
        }
        _ => Response::abort(dev),
    }
}

/// DOWNLOAD MICROCODE. The image's first block may begin with `DMIMAGE1`, a LE32 block count
/// and an 8-character revision; otherwise the image is complete at the first segment shorter
/// than the drive's maximum, or when a mode 7 transfer ends.
fn download_microcode(s: &mut State, req: &Request) -> Response {
    let tf = &req.tf;
    let dev = tf.device;
    if !s.features.download_microcode {
        return Response::abort(dev);
    }
    let blocks = u32::from(tf.count & 0xFF) | (((tf.lba & 0xFF) as u32) << 8);
    let offset = ((tf.lba >> 8) & 0xFFFF) as u32;
    let w = identify::identify(s);
    let (min, max) = (u32::from(w[234]), u32::from(w[235]));
    let fw = &mut s.firmware;
    let finish = |fw: &mut state::Firmware| {
        if fw.image.len() >= 24 && &fw.image[..8] == b"DMIMAGE1" {
            fw.revision = String::from_utf8_lossy(&fw.image[12..20])
                .trim_end()
                .to_string();
        }
        fw.digest = Some(state::digest(&fw.image));
        fw.downloads_completed += 1;
        fw.received_blocks = 0;
        fw.expected_blocks = None;
        fw.image.clear();
    };
    match tf.feature & 0xFF {
        0x03 | 0x0E => {
            if blocks == 0 || req.data_out.len() < blocks as usize * SECTOR {
                return Response::abort(dev);
            }
            if offset != fw.received_blocks {
                fw.received_blocks = 0;
                fw.image.clear();
                return Response::abort(dev);
            }
            if max != 0 && max != 0xFFFF && blocks > max {
                return Response::abort(dev);
            }
            let _ = min; // a short last segment is allowed
            if offset == 0 {
                let d = &req.data_out;
                fw.expected_blocks = (d.len() >= 12 && &d[..8] == b"DMIMAGE1")
                    .then(|| u32::from_le_bytes([d[8], d[9], d[10], d[11]]));
            }
            fw.image
                .extend_from_slice(&req.data_out[..blocks as usize * SECTOR]);
            fw.received_blocks += blocks;
            let done = match fw.expected_blocks {
                Some(e) => fw.received_blocks >= e,
                None => false,
            };
            let mut r = Response::ok(dev);
            if done {
                finish(fw);
                r.count = if tf.feature & 0xFF == 0x0E { 3 } else { 2 };
            } else {
                r.count = 1;
            }
            r
        }
        0x07 => {
            if blocks == 0 || req.data_out.len() < blocks as usize * SECTOR {
                return Response::abort(dev);
            }
            fw.image = req.data_out[..blocks as usize * SECTOR].to_vec();
            finish(fw);
            let mut r = Response::ok(dev);
            r.count = 2;
            r
        }
        0x0F => Response::ok(dev),
        _ => Response::abort(dev),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::State;

    fn st() -> State {
        State::new(vec![0; 256], "t", 2_097_152)
    }
    fn nd(cmd: u8, feat: u16, count: u16, lba: u64) -> Request {
        Request {
            tf: Taskfile {
                command: cmd,
                feature: feat,
                count,
                lba,
                device: 0x40,
                extend: false,
            },
            protocol: 3,
            dir: Dir::None,
            data_out: vec![],
            data_in_len: 0,
            ck_cond: true,
            cdb_len: 16,
        }
    }
    fn pw(cmd: u8, master: bool, max: bool, pw: &str) -> Request {
        let mut d = vec![0u8; 512];
        d[0] = u8::from(master);
        d[1] = u8::from(max);
        d[2..2 + pw.len()].copy_from_slice(pw.as_bytes());
        let mut r = nd(cmd, 0, 1, 0);
        r.protocol = 5;
        r.dir = Dir::Out;
        r.data_out = d;
        r
    }

    #[test]
    fn security_lock_counter_unlock_disable() {
        let mut s = st();
        assert!(!execute(&mut s, &pw(0xF1, false, false, "abc")).is_error());
        assert!(s.security.enabled && !s.security.locked);
        s.power_cycle();
        assert!(s.security.locked);
        assert!(
            execute(&mut s, &nd(0x20, 0, 1, 0)).is_error(),
            "locked: no reads"
        );
        assert!(execute(&mut s, &pw(0xF2, false, false, "bad")).is_error());
        assert_eq!(s.security.attempts_left, 4);
        assert!(!execute(&mut s, &pw(0xF2, false, false, "abc")).is_error());
        assert!(!s.security.locked);
        assert!(!execute(&mut s, &pw(0xF6, false, false, "abc")).is_error());
        assert!(!s.security.enabled);
    }

    #[test]
    fn attempts_expire_after_five() {
        let mut s = st();
        execute(&mut s, &pw(0xF1, false, false, "abc"));
        s.power_cycle();
        for _ in 0..5 {
            assert!(execute(&mut s, &pw(0xF2, false, false, "x")).is_error());
        }
        assert!(execute(&mut s, &pw(0xF2, false, false, "abc")).is_error());
        assert_eq!(identify::identify(&s)[128] & 0x10, 0x10);
        s.power_cycle();
        assert!(!execute(&mut s, &pw(0xF2, false, false, "abc")).is_error());
    }

    #[test]
    fn erase_needs_prepare_and_zeroes() {
        let mut s = st();
        execute(&mut s, &pw(0xF1, false, false, "abc"));
        assert!(execute(&mut s, &pw(0xF4, false, false, "abc")).is_error());
        execute(&mut s, &nd(0xF3, 0, 0, 0));
        assert!(!execute(&mut s, &pw(0xF4, false, false, "abc")).is_error());
        assert!(!s.security.enabled);
        let r = execute(&mut s, &nd(0x20, 0, 1, 7));
        assert_eq!(r.data_in, vec![0; 512]);
    }

    #[test]
    fn frozen_refuses_password_commands() {
        let mut s = st();
        execute(&mut s, &nd(0xF5, 0, 0, 0));
        assert!(execute(&mut s, &pw(0xF1, false, false, "abc")).is_error());
        s.power_cycle();
        assert!(!execute(&mut s, &pw(0xF1, false, false, "abc")).is_error());
    }

    #[test]
    fn set_max_volatile_needs_read_native_and_is_lost_at_power_cycle() {
        let mut s = st();
        assert!(execute(&mut s, &nd(0x37, 0, 0, 999)).is_error());
        let r = execute(&mut s, &nd(0x27, 0, 0, 0));
        assert_eq!(r.lba, 2_097_151);
        assert!(!execute(&mut s, &nd(0x37, 0, 0, 999)).is_error());
        assert_eq!(s.current_max_lba(), 999);
        s.power_cycle();
        assert_eq!(s.current_max_lba(), 2_097_151);
        execute(&mut s, &nd(0x27, 0, 0, 0));
        execute(&mut s, &nd(0x37, 0, 1, 999));
        s.power_cycle();
        assert_eq!(s.current_max_lba(), 999);
    }

    #[test]
    fn sanitize_progresses_per_status_query() {
        let mut s = st();
        assert!(!execute(&mut s, &nd(0xB4, 0x12, 0, 0x426B_4572)).is_error());
        let r = execute(&mut s, &nd(0xB4, 0, 0, 0));
        assert_eq!(r.count & 0x4000, 0x4000);
        let r = execute(&mut s, &nd(0xB4, 0, 0, 0));
        assert_eq!(r.count & 0x4000, 0x4000);
        let r = execute(&mut s, &nd(0xB4, 0, 0, 0));
        assert_eq!(r.count, 0x8000);
        assert_eq!(s.read_sector(3), vec![0; 512]);
        execute(&mut s, &nd(0xB4, 0x20, 0, 0x4672_4C6B));
        let r = execute(&mut s, &nd(0xB4, 0x12, 0, 0x426B_4572));
        assert_eq!((r.is_error(), r.lba), (true, 3));
    }

    #[test]
    fn trim_zeroes_ranges() {
        let mut s = st();
        let mut r = nd(0x06, 1, 1, 0);
        let mut d = vec![0u8; 512];
        d[..8].copy_from_slice(&((4u64 << 48) | 100).to_le_bytes());
        r.data_out = d;
        assert!(!execute(&mut s, &r).is_error());
        assert_eq!(execute(&mut s, &nd(0x24, 0, 1, 103)).data_in, vec![0; 512]);
        assert_ne!(execute(&mut s, &nd(0x24, 0, 1, 104)).data_in, vec![0; 512]);
    }

    #[test]
    fn uncorrectable_marks_fail_reads_until_written() {
        let mut s = st();
        execute(&mut s, &nd(0x45, 0x55, 1, 50));
        let r = execute(&mut s, &nd(0x24, 0, 1, 50));
        assert_eq!((r.error, r.lba), (ER_UNC, 50));
        let mut w = nd(0x34, 0, 1, 50);
        w.data_out = vec![0; 512];
        execute(&mut s, &w);
        assert!(!execute(&mut s, &nd(0x24, 0, 1, 50)).is_error());
    }

    #[test]
    fn download_microcode_segments() {
        let mut s = st();
        s.base_identify[234] = 1;
        s.base_identify[235] = 4;
        let mut img = vec![0u8; 3 * 512];
        img[..8].copy_from_slice(b"DMIMAGE1");
        img[8..12].copy_from_slice(&3u32.to_le_bytes());
        img[12..20].copy_from_slice(b"NEWFW001");
        for i in 0..3u64 {
            let mut r = nd(0x92, 3, 1, i << 8);
            r.data_out = img[i as usize * 512..(i as usize + 1) * 512].to_vec();
            let a = execute(&mut s, &r);
            assert_eq!(a.count, if i == 2 { 2 } else { 1 });
        }
        assert_eq!(s.firmware.revision, "NEWFW001");
    }

    #[test]
    fn wd_idle3_sequence() {
        let mut s = st();
        let key = |action: u8| {
            let mut r = nd(0xB0, 0xD6, 1, 0xC24FBE);
            let mut d = vec![0u8; 512];
            d[0] = 0x2A;
            d[2] = action;
            d[4] = 2;
            d[6] = 0x0D;
            d[8] = 0x16;
            d[10] = 1;
            r.data_out = d;
            r
        };
        assert!(execute(&mut s, &key(1)).is_error(), "needs VSC enabled");
        execute(&mut s, &nd(0x80, 0x45, 0, 0x574400));
        assert!(!execute(&mut s, &key(2)).is_error());
        let mut w = nd(0xB0, 0xD6, 1, 0xC24FBF);
        w.data_out = vec![0x8A; 512];
        assert!(!execute(&mut s, &w).is_error());
        execute(&mut s, &key(1));
        assert_eq!(
            execute(&mut s, &nd(0xB0, 0xD5, 1, 0xC24FBF)).data_in[0],
            0x8A
        );
        execute(&mut s, &nd(0x80, 0x44, 0, 0x574400));
        assert!(!s.wd.vsc_enabled);
    }

    #[test]
    fn dco_set_and_restore() {
        let mut s = st();
        let mut r = nd(0xB1, 0xC2, 1, 0);
        let d = execute(&mut s, &r).data_in;
        let mut w: Vec<u16> = d
            .chunks(2)
            .map(|c| u16::from_le_bytes([c[0], c[1]]))
            .collect();
        w[3] = 9999;
        w[4] = 0;
        identify::checksum(&mut w);
        r.tf.feature = 0xC3;
        r.data_out = identify::to_bytes(&w);
        assert!(!execute(&mut s, &r).is_error());
        assert_eq!(s.dco_max_lba, 9999);
        assert!(!execute(&mut s, &nd(0xB1, 0xC0, 0, 0)).is_error());
        assert_eq!(s.dco_max_lba, 2_097_151);
    }
}
