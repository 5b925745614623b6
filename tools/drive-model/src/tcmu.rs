//! The TCMU front-end: a user backstore of the kernel's SCSI target (target_core_user),
//! reached through a tcm_loop HBA, so that the model is a SCSI disk (/dev/sdX, /dev/sgN)
//! behind the real SG_IO path. It configures configfs, maps the uio device's ring and serves
//! it. The ring layout is linux/target_core_user.h's (mailbox version 2):
//!
//! mailbox: u16 version @0, u16 flags @2, u32 cmdr_off @4, u32 cmdr_size @8, u32 cmd_head @12,
//!          u32 cmd_tail @64 (its own cache line, written by us);
//! entry: u32 len_op @0 (op in the low 3 bits), u16 cmd_id @4, u8 kflags @6, u8 uflags @7;
//!          request: u32 iov_cnt @8, iov_bidi_cnt @12, iov_dif_cnt @16, u64 cdb_off @24,
//!          iovecs (u64 base offset, u64 len) from @48 (the entry is __packed, but the
//!          request struct inside it is not: cdb_off is 8-aligned within it);
//!          response (overlays the request): u8 scsi_status @8, u32 read_len @12,
//!          sense_buffer[96] @16.
//! After completing entries we write cmd_tail and write 4 bytes to the uio fd (the kick);
//! a 4-byte read of the fd waits for the kernel's next kick.

use std::fs;
use std::io::{Read, Write};
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

const OP_MASK: u32 = 0x7;
const OP_PAD: u32 = 0;
const OP_CMD: u32 = 1;
const UFLAG_UNKNOWN_OP: u8 = 0x1;
const UFLAG_READ_LEN: u8 = 0x2;
const MB_FLAG_CAP_READ_LEN: u16 = 1 << 1;
const SENSE_MAX: usize = 96;

const CORE: &str = "/sys/kernel/config/target/core";
const LOOP: &str = "/sys/kernel/config/target/loopback";

fn write_attr(path: &Path, value: &str) -> Result<(), String> {
    fs::write(path, value).map_err(|e| format!("write {value:?} to {}: {e}", path.display()))
}

/// Creates the user backstore `user_0/NAME` and returns its configfs directory.
pub fn create_backstore(name: &str, bytes: u64) -> Result<PathBuf, String> {
    let dir = Path::new(CORE).join("user_0").join(name);
    fs::create_dir_all(&dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
    // nl_reply_supported=-1: no netlink handler (tcmu-runner) answers, do not wait for one
    write_attr(
        &dir.join("control"),
        &format!("dev_config=drive-model/{name},dev_size={bytes},hw_block_size=512,nl_reply_supported=-1"),
    )?;
    write_attr(&dir.join("enable"), "1")?;
    Ok(dir)
}

fn tpg_dir() -> PathBuf {
    Path::new(LOOP).join("naa.5001405d0d0e0001").join("tpgt_1")
}

/// The LUN's link to the backstore: made, the kernel adds the disk; removed, it deletes it.
fn lun_link() -> PathBuf {
    tpg_dir().join("lun").join("lun_0").join("drive-model")
}

/// Makes the tcm_loop HBA with LUN 0 on the backstore: the kernel then scans a SCSI disk.
pub fn create_loopback(backstore: &Path) -> Result<(), String> {
    let tpg = tpg_dir();
    let lun = tpg.join("lun").join("lun_0");
    fs::create_dir_all(&lun).map_err(|e| format!("mkdir {}: {e}", lun.display()))?;
    // the I_T nexus first: linking the LUN makes tcm_loop add the SCSI device at once, and
    // without a nexus the kernel's INQUIRY fails ("TCM_Loop I_T Nexus does not exist")
    write_attr(&tpg.join("nexus"), "naa.5001405d0d0e0002")?;
    link_lun(backstore)
}

/// Links LUN 0 to the backstore (again, after an unplug): tcm_loop adds the SCSI device.
pub fn link_lun(backstore: &Path) -> Result<(), String> {
    let link = lun_link();
    if fs::symlink_metadata(&link).is_err() {
        symlink(backstore, &link).map_err(|e| format!("ln -s {}: {e}", link.display()))?;
    }
    Ok(())
}

/// The hot-unplug: removes LUN 0's link. tcm_loop then removes the SCSI device, which waits
/// for the commands in flight, so this blocks until the model has answered them.
pub fn unlink_lun() -> Result<(), String> {
    let link = lun_link();
    fs::remove_file(&link).map_err(|e| format!("rm {}: {e}", link.display()))
}

/// The SCSI devices (`/sys/bus/scsi/devices/H:C:T:L`) on tcm_loop's host.
pub fn scsi_devices() -> Vec<PathBuf> {
    let Ok(rd) = fs::read_dir("/sys/bus/scsi/devices") else {
        return Vec::new();
    };
    rd.flatten()
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            let host = name.split(':').next().unwrap_or("");
            name.matches(':').count() == 3
                && fs::read_to_string(format!("/sys/class/scsi_host/host{host}/proc_name"))
                    .is_ok_and(|p| p.trim() == "tcm_loopback")
        })
        .map(|e| e.path())
        .collect()
}

/// Waits (up to `limit`) until the kernel deleting the SCSI device `dir` has reached its
/// disk: del_gendisk sets the capacity to 0 just before it stops new I/O and waits for the
/// commands in flight. Answering only then gives every later command of the tool the same
/// fate (refused by the kernel, never sent), whatever the timing.
pub fn wait_disk_deleting(dir: &Path, limit: std::time::Duration) {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        let size = fs::read_dir(dir.join("block"))
            .ok()
            .and_then(|mut rd| rd.next())
            .and_then(Result::ok)
            .and_then(|e| fs::read_to_string(e.path().join("size")).ok());
        match size {
            Some(s) if s.trim() != "0" => {}
            _ => return,
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

/// A latch the ring thread waits on (an answer held until the model lets it go).
#[derive(Debug, Default)]
pub struct Latch {
    open: Mutex<bool>,
    changed: std::sync::Condvar,
}

impl Latch {
    pub fn open(&self) {
        if let Ok(mut o) = self.open.lock() {
            *o = true;
        }
        self.changed.notify_all();
    }

    /// Waits until the latch is opened, or `limit` passed.
    pub fn wait(&self, limit: std::time::Duration) {
        let Ok(guard) = self.open.lock() else {
            return;
        };
        let _ = self.changed.wait_timeout_while(guard, limit, |open| !*open);
    }
}

/// Waits (up to `limit`) until a disk of tcm_loop's has its block device; its name.
pub fn wait_disk(limit: std::time::Duration) -> Option<String> {
    let start = std::time::Instant::now();
    while start.elapsed() < limit {
        for dev in scsi_devices() {
            if let Some(e) = fs::read_dir(dev.join("block"))
                .ok()
                .and_then(|mut rd| rd.next())
                .and_then(Result::ok)
            {
                return Some(e.file_name().to_string_lossy().into_owned());
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    None
}

/// Finds /dev/uioN whose name is the backstore's ("tcm-user/<hba>/<name>/<config>").
pub fn find_uio(name: &str) -> Result<(PathBuf, usize), String> {
    let want = format!("/{name}/drive-model/{name}");
    for _ in 0..200 {
        if let Ok(rd) = fs::read_dir("/sys/class/uio") {
            for e in rd.flatten() {
                let n = fs::read_to_string(e.path().join("name")).unwrap_or_default();
                if n.trim_end().ends_with(&want) {
                    let size = fs::read_to_string(e.path().join("maps/map0/size"))
                        .map_err(|err| format!("{}: {err}", e.path().display()))?;
                    let size = usize::from_str_radix(size.trim().trim_start_matches("0x"), 16)
                        .map_err(|err| format!("map0 size {size:?}: {err}"))?;
                    let dev = Path::new("/dev").join(e.file_name());
                    return Ok((dev, size));
                }
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    Err(format!("no /sys/class/uio/*/name ending in {want}"))
}

/// The mapped ring: base pointer and length; reads and writes go through the bounds-checked
/// helpers below.
struct Ring {
    base: *mut u8,
    len: usize,
}

impl Ring {
    fn map(file: &fs::File, len: usize) -> Result<Self, String> {
        use std::os::unix::io::AsRawFd;
        // SAFETY: mapping map 0 of an open uio fd, the length the kernel published in sysfs;
        // the result is checked against MAP_FAILED before use.
        let p = unsafe {
            libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_SHARED,
                file.as_raw_fd(),
                0,
            )
        };
        if p == libc::MAP_FAILED {
            return Err(format!("mmap: {}", std::io::Error::last_os_error()));
        }
        Ok(Ring {
            base: p.cast(),
            len,
        })
    }
    fn check(&self, off: usize, n: usize) -> Result<(), String> {
        if off.checked_add(n).is_none_or(|e| e > self.len) {
            return Err(format!("ring access {off}+{n} beyond {}", self.len));
        }
        Ok(())
    }
    fn read(&self, off: usize, n: usize) -> Result<Vec<u8>, String> {
        self.check(off, n)?;
        let mut v = vec![0u8; n];
        // SAFETY: [off, off+n) lies inside the mapping (checked); the kernel may write the
        // area concurrently only in parts it owns, which we do not read here.
        unsafe { std::ptr::copy_nonoverlapping(self.base.add(off), v.as_mut_ptr(), n) };
        Ok(v)
    }
    fn write(&self, off: usize, b: &[u8]) -> Result<(), String> {
        self.check(off, b.len())?;
        // SAFETY: inside the mapping (checked); the area is the entry or data buffer the
        // kernel handed to us until we move cmd_tail past it.
        unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), self.base.add(off), b.len()) };
        Ok(())
    }
    fn u32_at(&self, off: usize) -> Result<u32, String> {
        self.check(off, 4)?;
        // SAFETY: inside the mapping, 4-byte aligned for the mailbox fields read this way;
        // volatile because the kernel updates cmd_head behind our back.
        Ok(unsafe { std::ptr::read_volatile(self.base.add(off).cast::<u32>()) })
    }
    fn set_u32(&self, off: usize, v: u32) -> Result<(), String> {
        self.check(off, 4)?;
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        // SAFETY: inside the mapping, aligned (cmd_tail at 64); volatile so the kernel sees it.
        unsafe { std::ptr::write_volatile(self.base.add(off).cast::<u32>(), v) };
        std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
        Ok(())
    }
}

fn le32(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]])
}
fn le64(b: &[u8], o: usize) -> u64 {
    let mut a = [0u8; 8];
    a.copy_from_slice(&b[o..o + 8]);
    u64::from_le_bytes(a)
}

/// The answer to one command, and when to give it.
#[derive(Debug, Default)]
pub struct Reply {
    pub status: u8,
    pub data_in: Vec<u8>,
    pub sense: Vec<u8>,
    /// Seconds to wait before answering (a slow drive, or one that does not answer).
    pub delay_s: u64,
    /// Answer only once the kernel deleting this SCSI device (its sysfs directory) reached
    /// its disk: the command in flight when the drive was pulled out.
    pub after_gone: Option<PathBuf>,
    /// Answer only once this latch opens (at most 30 s): the kernel's last command to a
    /// pulled-out drive, held so that the removal stays where it is until the next `ctl load`.
    pub hold: Option<Arc<Latch>>,
}

/// What the front-end asks of the model for each command.
pub trait Handler: Send {
    /// cdb, data out, bytes of data in offered → the reply.
    fn command(&mut self, cdb: &[u8], data_out: &[u8], data_in_len: usize) -> Reply;
}

/// Serves the ring until an error.
pub fn serve<H: Handler>(uio: &Path, map_len: usize, handler: Arc<Mutex<H>>) -> Result<(), String> {
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(uio)
        .map_err(|e| format!("{}: {e}", uio.display()))?;
    let ring = Ring::map(&file, map_len)?;
    let mb = ring.read(0, 16)?;
    let version = u16::from_le_bytes([mb[0], mb[1]]);
    let flags = u16::from_le_bytes([mb[2], mb[3]]);
    let cmdr_off = le32(&mb, 4) as usize;
    let cmdr_size = le32(&mb, 8) as usize;
    eprintln!(
        "drive-model: {} mailbox v{version} flags {flags:#x} ring {cmdr_off:#x}+{cmdr_size:#x} map {map_len:#x}",
        uio.display()
    );
    let read_len_cap = flags & MB_FLAG_CAP_READ_LEN != 0;
    let mut tail = ring.u32_at(64)? as usize;
    loop {
        let mut ev = [0u8; 4];
        file.read_exact(&mut ev)
            .map_err(|e| format!("read {}: {e}", uio.display()))?;
        loop {
            let head = ring.u32_at(12)? as usize;
            if tail == head {
                break;
            }
            let ent = cmdr_off + tail;
            let hdr = ring.read(ent, 48)?;
            let len_op = le32(&hdr, 0);
            let op = len_op & OP_MASK;
            let len = (len_op & !OP_MASK) as usize;
            if len == 0 {
                return Err("ring entry of length 0".into());
            }
            if op == OP_CMD {
                serve_one(&ring, ent, &hdr, read_len_cap, &handler)?;
            } else if op != OP_PAD {
                // TMR and unknown entries: nothing to answer
                let mut h = hdr[7];
                h |= UFLAG_UNKNOWN_OP;
                ring.write(ent + 7, &[h])?;
            }
            tail = (tail + len) % cmdr_size;
            ring.set_u32(64, tail as u32)?;
        }
        file.write_all(&[0u8; 4])
            .map_err(|e| format!("kick {}: {e}", uio.display()))?;
    }
}

fn serve_one<H: Handler>(
    ring: &Ring,
    ent: usize,
    hdr: &[u8],
    read_len_cap: bool,
    handler: &Arc<Mutex<H>>,
) -> Result<(), String> {
    let iov_cnt = le32(hdr, 8) as usize;
    let cdb_off = le64(hdr, 24) as usize;
    let iovs = ring.read(ent + 48, 16 * iov_cnt)?;
    let iov: Vec<(usize, usize)> = (0..iov_cnt)
        .map(|i| {
            (
                le64(&iovs, 16 * i) as usize,
                le64(&iovs, 16 * i + 8) as usize,
            )
        })
        .collect();
    // the CDB's length follows from its group code
    let first = ring.read(cdb_off, 1)?[0];
    let cdb_len = match first >> 5 {
        0 => 6,
        1 | 2 => 10,
        4 => 16,
        5 => 12,
        _ => 16,
    };
    let cdb = ring.read(cdb_off, cdb_len)?;
    let total: usize = iov.iter().map(|&(_, l)| l).sum();
    let mut data_out = Vec::with_capacity(total);
    for &(b, l) in &iov {
        data_out.extend(ring.read(b, l)?);
    }
    // the lock is not held while the answer waits: control commands go on meanwhile
    let reply = {
        let mut h = handler
            .lock()
            .map_err(|_| "model lock poisoned".to_string())?;
        h.command(&cdb, &data_out, total)
    };
    if reply.delay_s > 0 {
        std::thread::sleep(std::time::Duration::from_secs(reply.delay_s));
    }
    if let Some(dev) = &reply.after_gone {
        wait_disk_deleting(dev, std::time::Duration::from_secs(5));
    }
    if let Some(latch) = &reply.hold {
        latch.wait(std::time::Duration::from_secs(30));
    }
    let Reply {
        status,
        data_in,
        sense,
        ..
    } = reply;
    // data in: scattered over the same iovecs
    let mut done = 0;
    for &(b, l) in &iov {
        if done >= data_in.len() {
            break;
        }
        let n = l.min(data_in.len() - done);
        ring.write(b, &data_in[done..done + n])?;
        done += n;
    }
    let mut rsp = vec![0u8; 8 + SENSE_MAX];
    rsp[0] = status;
    let mut uflags = hdr[7];
    if read_len_cap && status != 0 {
        uflags |= UFLAG_READ_LEN;
        rsp[4..8].copy_from_slice(&(done as u32).to_le_bytes());
    }
    let n = sense.len().min(SENSE_MAX);
    rsp[8..8 + n].copy_from_slice(&sense[..n]);
    ring.write(ent + 7, &[uflags])?;
    ring.write(ent + 8, &rsp)
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Echo;
    impl Handler for Echo {
        fn command(&mut self, cdb: &[u8], data_out: &[u8], len: usize) -> Reply {
            // answers CHECK CONDITION with the CDB as sense, and the data out reversed
            let mut d = data_out.to_vec();
            d.reverse();
            d.truncate(len);
            Reply {
                status: 2,
                data_in: d,
                sense: cdb.to_vec(),
                ..Default::default()
            }
        }
    }

    /// One command entry laid out as the kernel lays it out (target_core_user.h), served by
    /// `serve_one`: the offsets of cdb_off, the iovecs and the response must be the kernel's.
    #[test]
    fn an_entry_in_the_kernels_layout_is_read_and_answered() {
        let mut mem = vec![0u8; 8192];
        let ent = 128;
        mem[ent..ent + 4].copy_from_slice(&(64u32 | OP_CMD).to_le_bytes());
        mem[ent + 8..ent + 12].copy_from_slice(&2u32.to_le_bytes()); // iov_cnt
        mem[ent + 24..ent + 32].copy_from_slice(&1024u64.to_le_bytes()); // cdb_off
        for (i, (base, len)) in [(4096u64, 3u64), (5000, 2)].iter().enumerate() {
            let o = ent + 48 + 16 * i;
            mem[o..o + 8].copy_from_slice(&base.to_le_bytes());
            mem[o + 8..o + 16].copy_from_slice(&len.to_le_bytes());
        }
        let cdb = [0x85u8, 8, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xec, 0];
        mem[1024..1040].copy_from_slice(&cdb);
        mem[4096..4099].copy_from_slice(&[1, 2, 3]);
        mem[5000..5002].copy_from_slice(&[4, 5]);
        let ring = Ring {
            base: mem.as_mut_ptr(),
            len: mem.len(),
        };
        let hdr = ring.read(ent, 48).unwrap();
        serve_one(&ring, ent, &hdr, true, &Arc::new(Mutex::new(Echo))).unwrap();
        assert_eq!(mem[ent + 8], 2, "scsi_status");
        assert_eq!(mem[ent + 7] & UFLAG_READ_LEN, UFLAG_READ_LEN);
        assert_eq!(le32(&mem, ent + 12), 5, "read_len");
        assert_eq!(&mem[ent + 16..ent + 32], &cdb, "sense_buffer");
        assert_eq!(&mem[4096..4099], &[5, 4, 3]);
        assert_eq!(&mem[5000..5002], &[2, 1]);
    }
}
