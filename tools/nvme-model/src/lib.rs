//! An NVMe controller model behind an `LD_PRELOAD` ioctl interposer, for the commands QEMU
//! 7.2's controller does not implement (Sanitize, Firmware Image Download / Commit, APST).
//!
//! Preloaded into any program (hdparm-rs, nvme-cli), it takes over `ioctl()` on the nodes
//! named by `NVME_MODEL_NODES` (comma-separated paths, compared with `/proc/self/fd/N`): admin
//! passthrough commands (`NVME_IOCTL_ADMIN_CMD`, `NVME_IOCTL_ADMIN64_CMD`) are logged and,
//! for the ones the model implements, answered by it; everything else goes to the real
//! ioctl. Each admin command is one line appended to `NVME_MODEL_LOG`:
//!
//! `admin op=0x84 nsid=0x00000000 cdw10=0x00000004 ... cdw15=0x00000000 len=0 data=<fnv1a64> by=model`
//!
//! `data` is the FNV-1a 64 digest of the bytes the host sent (host-to-controller commands),
//! so two programs can be shown to send the same firmware image. The model keeps its APST
//! state and sanitize status in `NVME_MODEL_STATE` (a small file) across processes.
//!
//! The model writes its answers byte by byte from the NVMe Base Specification 2.0; it shares
//! nothing with hdparm-rs's decoders, so it cannot agree with their bugs.
//!
//! The interposer is defined with a fixed third argument: on x86-64 (and arm64) a variadic
//! `ioctl(fd, req, ...)` call passes its third argument in the same register as a
//! non-variadic one, and Rust cannot define C variadics on stable.

#![allow(clippy::missing_safety_doc)]

use libc::{c_int, c_ulong, c_void};
use std::fs::OpenOptions;
use std::io::Write;

const ADMIN_CMD: c_ulong = 0xC048_4E41;
const ADMIN64_CMD: c_ulong = 0xC050_4E47;
/// Where `timeout_ms` ends and the result fields begin.
const TIMEOUT_END: usize = 68;

/// `struct nvme_passthru_cmd` up to `timeout_ms`; the result follows (u32, or u64 after a
/// reserved u32 in the 64-bit variant).
#[repr(C)]
struct Passthru {
    opcode: u8,
    flags: u8,
    rsvd1: u16,
    nsid: u32,
    cdw2: u32,
    cdw3: u32,
    metadata: u64,
    addr: u64,
    metadata_len: u32,
    data_len: u32,
    cdw: [u32; 6],
    timeout_ms: u32,
}

type IoctlFn = unsafe extern "C" fn(c_int, c_ulong, *mut c_void) -> c_int;

fn real_ioctl() -> Option<IoctlFn> {
    // SAFETY: dlsym with RTLD_NEXT and a NUL-terminated name; the symbol found is libc's
    // ioctl, whose ABI for a pointer argument is IoctlFn's.
    unsafe {
        let p = libc::dlsym(libc::RTLD_NEXT, c"ioctl".as_ptr());
        if p.is_null() {
            None
        } else {
            Some(std::mem::transmute::<*mut c_void, IoctlFn>(p))
        }
    }
}

fn claimed(fd: c_int) -> bool {
    let Ok(devs) = std::env::var("NVME_MODEL_NODES") else {
        return false;
    };
    let Ok(target) = std::fs::read_link(format!("/proc/self/fd/{fd}")) else {
        return false;
    };
    devs.split(',').any(|d| std::path::Path::new(d) == target)
}

fn fnv1a(data: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in data {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// The model's persistent state: APST value and table, the last sanitize's CDW10.
struct State {
    apst: u32,
    apst_table: Vec<u8>,
    sanitize_cdw10: Option<u32>,
    fw_bytes: u64,
}

fn state_path() -> String {
    std::env::var("NVME_MODEL_STATE").unwrap_or_else(|_| "/tmp/nvme-model.state".into())
}

fn load() -> State {
    let mut s = State {
        apst: 0,
        apst_table: vec![0; 256],
        sanitize_cdw10: None,
        fw_bytes: 0,
    };
    if let Ok(text) = std::fs::read_to_string(state_path()) {
        for line in text.lines() {
            let mut w = line.split_whitespace();
            match (w.next(), w.next()) {
                (Some("apst"), Some(v)) => s.apst = v.parse().unwrap_or(0),
                (Some("apst_table"), Some(v)) => {
                    s.apst_table = (0..v.len() / 2)
                        .map(|i| u8::from_str_radix(&v[2 * i..2 * i + 2], 16).unwrap_or(0))
                        .collect();
                    s.apst_table.resize(256, 0);
                }
                (Some("sanitize"), Some(v)) => s.sanitize_cdw10 = v.parse().ok(),
                (Some("fw_bytes"), Some(v)) => s.fw_bytes = v.parse().unwrap_or(0),
                _ => {}
            }
        }
    }
    s
}

fn save(s: &State) {
    let table: String = s.apst_table.iter().map(|b| format!("{b:02x}")).collect();
    let mut text = format!(
        "apst {}\napst_table {table}\nfw_bytes {}\n",
        s.apst, s.fw_bytes
    );
    if let Some(c) = s.sanitize_cdw10 {
        text.push_str(&format!("sanitize {c}\n"));
    }
    let _ = std::fs::write(state_path(), text);
}

fn put16(b: &mut [u8], at: usize, v: u16) {
    b[at..at + 2].copy_from_slice(&v.to_le_bytes());
}

fn put32(b: &mut [u8], at: usize, v: u32) {
    b[at..at + 4].copy_from_slice(&v.to_le_bytes());
}

fn ascii(b: &mut [u8], at: usize, len: usize, s: &str) {
    let field = &mut b[at..at + len];
    field.fill(b' ');
    field[..s.len().min(len)].copy_from_slice(&s.as_bytes()[..s.len().min(len)]);
}

/// Identify Controller of the model (NVMe Base 2.0 Figure 275).
fn id_ctrl() -> Vec<u8> {
    let mut b = vec![0u8; 4096];
    put16(&mut b, 0, 0x1b36);
    put16(&mut b, 2, 0x1af4);
    ascii(&mut b, 4, 20, "MODEL0001");
    ascii(&mut b, 24, 40, "hdparm-rs NVMe model");
    ascii(&mut b, 64, 8, "M1.0");
    b[77] = 7; // MDTS
    put32(&mut b, 80, 0x0001_0400); // 1.4
    put16(&mut b, 256, 0x0006); // OACS: Format NVM, Firmware Download/Commit
    b[260] = 0x04; // FRMW: 2 slots, slot 1 writable
    b[261] = 0x02; // LPA
    b[263] = 2; // NPSS: three states
    b[265] = 1; // APSTA
    put16(&mut b, 266, 343);
    put16(&mut b, 268, 373);
    b[319] = 1; // FWUG: 4 KiB
    put32(&mut b, 328, 0x0000_0007); // SANICAP: crypto, block, overwrite
    b[512] = 0x66;
    b[513] = 0x44;
    put32(&mut b, 516, 1); // NN
    put16(&mut b, 520, 0x0004); // ONCS: DSM
    b[525] = 1; // VWC
                // Power states: PS0 9 W, PS1 4.6 W (operational), PS2 5 mW non-operational.
    for (i, (mp, nops, enlat, exlat)) in [
        (900u16, 0u8, 0u32, 0u32),
        (460, 0, 0, 0),
        (50, 1, 2000, 2000),
    ]
    .iter()
    .enumerate()
    {
        let p = 2048 + 32 * i;
        put16(&mut b, p, *mp);
        b[p + 3] = (nops << 1) | u8::from(i == 2); // PS2 in 0.0001 W units
        put32(&mut b, p + 4, *enlat);
        put32(&mut b, p + 8, *exlat);
    }
    b
}

/// What the model does with one admin command: Some((status, result)) when it answers,
/// None to pass it to the real controller.
fn answer(s: &mut State, cmd: &Passthru, data: &mut [u8]) -> Option<(i32, u32)> {
    let cdw10 = cmd.cdw[0];
    match cmd.opcode {
        0x06 if cdw10 & 0xFF == 1 => {
            let page = id_ctrl();
            let n = data.len().min(4096);
            data[..n].copy_from_slice(&page[..n]);
            Some((0, 0))
        }
        0x84 => {
            s.sanitize_cdw10 = Some(cdw10);
            Some((0, 0))
        }
        0x02 if cdw10 & 0xFF == 0x81 => {
            data.fill(0);
            if let Some(c) = s.sanitize_cdw10 {
                if data.len() >= 8 {
                    put16(data, 0, 0xFFFF);
                    put16(data, 2, 0x0101); // completed, one pass
                    put32(data, 4, c);
                }
            }
            Some((0, 0))
        }
        0x11 => {
            s.fw_bytes += data.len() as u64;
            Some((0, 0))
        }
        0x10 => Some((0, 0)),
        0x0A if cdw10 & 0xFF == 0x0C => {
            let n = data.len().min(256);
            data[..n].copy_from_slice(&s.apst_table[..n]);
            Some((0, s.apst))
        }
        0x09 if cdw10 & 0xFF == 0x0C => {
            s.apst = cmd.cdw[1] & 1;
            if data.len() >= 256 {
                s.apst_table = data[..256].to_vec();
            }
            Some((0, 0))
        }
        _ => None,
    }
}

fn log(cmd: &Passthru, sent: &[u8], by: &str) {
    let Ok(path) = std::env::var("NVME_MODEL_LOG") else {
        return;
    };
    let c = &cmd.cdw;
    let line = format!(
        "admin op=0x{:02x} nsid=0x{:08x} cdw10=0x{:08x} cdw11=0x{:08x} cdw12=0x{:08x} cdw13=0x{:08x} cdw14=0x{:08x} cdw15=0x{:08x} len={} data={:016x} by={by}\n",
        cmd.opcode, cmd.nsid, c[0], c[1], c[2], c[3], c[4], c[5], sent.len(), fnv1a(sent)
    );
    if let Ok(mut f) = OpenOptions::new().create(true).append(true).open(path) {
        let _ = f.write_all(line.as_bytes());
    }
}

/// The interposed `ioctl`.
#[no_mangle]
pub unsafe extern "C" fn ioctl(fd: c_int, request: c_ulong, arg: *mut c_void) -> c_int {
    let Some(real) = real_ioctl() else {
        *libc::__errno_location() = libc::ENOSYS;
        return -1;
    };
    if !(request == ADMIN_CMD || request == ADMIN64_CMD) || arg.is_null() || !claimed(fd) {
        // SAFETY: the caller's arguments, unchanged, to libc's ioctl.
        return unsafe { real(fd, request, arg) };
    }
    // SAFETY: for these two requests `arg` points to an nvme_passthru_cmd(64), whose first
    // 68 bytes are Passthru's layout; the caller owns it for the call.
    let cmd = unsafe { &*(arg as *const Passthru) };
    let data: &mut [u8] = if cmd.addr == 0 || cmd.data_len == 0 {
        &mut []
    } else {
        // SAFETY: addr/data_len describe the caller's data buffer, as the kernel would use it.
        unsafe { std::slice::from_raw_parts_mut(cmd.addr as *mut u8, cmd.data_len as usize) }
    };
    let host_to_ctrl = cmd.opcode & 3 == 1;
    let sent = if host_to_ctrl {
        data.to_vec()
    } else {
        Vec::new()
    };
    let mut s = load();
    match answer(&mut s, cmd, data) {
        Some((status, result)) => {
            save(&s);
            log(cmd, &sent, "model");
            // SAFETY: the result field follows timeout_ms (u32 result; or a reserved u32 and
            // a u64 result in the 64-bit struct), inside the caller's struct.
            unsafe {
                let base = (arg as *mut u8).add(TIMEOUT_END);
                if request == ADMIN64_CMD {
                    *(base.add(4) as *mut u64) = u64::from(result);
                } else {
                    *(base as *mut u32) = result;
                }
            }
            status
        }
        None => {
            log(cmd, &sent, "device");
            // SAFETY: as above, passed on unchanged.
            unsafe { real(fd, request, arg) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn layout_and_digest() {
        assert_eq!(std::mem::offset_of!(Passthru, timeout_ms) + 4, TIMEOUT_END);
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        let c = id_ctrl();
        assert_eq!(&c[24..44], b"hdparm-rs NVMe model");
        assert_eq!(c[328], 7);
    }
}
