//! The NVMe passthrough ioctls of `linux/nvme_ioctl.h`: `NVME_IOCTL_ADMIN_CMD`,
//! `NVME_IOCTL_IO_CMD` (both take `struct nvme_passthru_cmd`) and `NVME_IOCTL_ID` (the
//! namespace ID of a namespace node). Both work on a namespace's block node (`/dev/nvme0n1`);
//! the admin one also on the controller's character node (`/dev/nvme0`).
//!
//! Owns: the struct, its size assertion, the request numbers, and the one check the kernel
//! trusts us on: `addr`/`data_len` always describe the borrowed buffer. Must not: decide which
//! command to send or what a status means (that is `device::nvme` and `nvme`).

use super::ioc::{Ioctl, NoArg, WithBuffers};
use super::{ioctl_none, ioctl_with_buffers};
use std::io;
use std::os::fd::AsFd;

/// `struct nvme_passthru_cmd` (and `nvme_admin_cmd`, the same struct), 72 bytes.
#[repr(C)]
#[derive(Debug, Clone, Copy, Default)]
pub struct NvmePassthruCmd {
    pub opcode: u8,
    pub flags: u8,
    pub rsvd1: u16,
    pub nsid: u32,
    pub cdw2: u32,
    pub cdw3: u32,
    pub metadata: u64,
    pub addr: u64,
    pub metadata_len: u32,
    pub data_len: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
    /// Completion dword 0, written by the kernel.
    pub result: u32,
}

const _: () = assert!(std::mem::size_of::<NvmePassthruCmd>() == 72);
const _: () = assert!(std::mem::align_of::<NvmePassthruCmd>() == 8);

const IOC_WRITE: u32 = 1;
const IOC_READ: u32 = 2;

/// `_IO('N', 0x40)`.
pub const NVME_IOCTL_ID: Ioctl<NoArg> = Ioctl::new(super::ioc::io(b'N' as u32, 0x40));
/// `_IOWR('N', 0x41, struct nvme_admin_cmd)`.
pub const NVME_IOCTL_ADMIN_CMD: Ioctl<WithBuffers<NvmePassthruCmd>> = Ioctl::new(super::ioc::ioc(
    IOC_READ | IOC_WRITE,
    b'N' as u32,
    0x41,
    std::mem::size_of::<NvmePassthruCmd>() as u32,
));
/// `_IOWR('N', 0x43, struct nvme_passthru_cmd)`.
pub const NVME_IOCTL_IO_CMD: Ioctl<WithBuffers<NvmePassthruCmd>> = Ioctl::new(super::ioc::ioc(
    IOC_READ | IOC_WRITE,
    b'N' as u32,
    0x43,
    std::mem::size_of::<NvmePassthruCmd>() as u32,
));

/// What one passthrough command came back with: the NVMe status (0 success; otherwise the
/// completion's status field, SC in 7:0, SCT in 10:8, DNR in 14) and completion dword 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NvmeCompletion {
    pub status: u32,
    pub result: u32,
}

/// Sends one command; `data` (may be empty) is the command's data buffer, read or written by
/// the controller as the opcode says. An error is the ioctl's errno (the command may not have
/// reached the controller).
fn passthru(
    fd: impl AsFd,
    request: Ioctl<WithBuffers<NvmePassthruCmd>>,
    cmd: &NvmePassthruCmd,
    data: &mut [u8],
) -> io::Result<NvmeCompletion> {
    let mut c = *cmd;
    c.data_len =
        u32::try_from(data.len()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    c.addr = if data.is_empty() {
        0
    } else {
        data.as_mut_ptr() as u64
    };
    c.metadata = 0;
    c.metadata_len = 0;
    c.result = 0;
    // SAFETY: `c` is a live, aligned `nvme_passthru_cmd` for the call, which is what both
    // requests take; `addr`/`data_len` describe `data`, borrowed mutably for the call, so the
    // kernel's DMA into or out of it stays within it; no metadata buffer is passed.
    let rc = unsafe { ioctl_with_buffers(fd, request, &mut c) }?;
    Ok(NvmeCompletion {
        status: rc as u32,
        result: c.result,
    })
}

/// `NVME_IOCTL_ADMIN_CMD`.
pub fn admin_cmd(
    fd: impl AsFd,
    cmd: &NvmePassthruCmd,
    data: &mut [u8],
) -> io::Result<NvmeCompletion> {
    passthru(fd, NVME_IOCTL_ADMIN_CMD, cmd, data)
}

/// `NVME_IOCTL_IO_CMD` (a namespace node only).
pub fn io_cmd(fd: impl AsFd, cmd: &NvmePassthruCmd, data: &mut [u8]) -> io::Result<NvmeCompletion> {
    passthru(fd, NVME_IOCTL_IO_CMD, cmd, data)
}

/// `NVME_IOCTL_ID`: the namespace ID of a namespace node (the ioctl's return value).
pub fn namespace_id(fd: impl AsFd) -> io::Result<u32> {
    let rc = ioctl_none(fd, NVME_IOCTL_ID)?;
    Ok(rc as u32)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_numbers_as_strace_decodes_them() {
        assert_eq!(NVME_IOCTL_ID.request(), 0x4e40);
        assert_eq!(NVME_IOCTL_ADMIN_CMD.request(), 0xc048_4e41);
        assert_eq!(NVME_IOCTL_IO_CMD.request(), 0xc048_4e43);
    }

    /// The header's `#define NVME_IOCTL_...  _IOWR('N', 0x41, struct ...)` lines: the
    /// direction, type, number and struct agree with ours (the struct's size is asserted
    /// above against the header's layout). A missing header is a skip, a failure in CI.
    #[test]
    fn request_numbers_are_the_kernel_header_values() {
        let path = "/usr/include/linux/nvme_ioctl.h";
        let Ok(text) = std::fs::read_to_string(path) else {
            if std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1") {
                panic!("{path} is not readable (Debian: linux-libc-dev)");
            }
            eprintln!("SKIPPED request_numbers_are_the_kernel_header_values: {path} missing");
            return;
        };
        let find = |name: &str| {
            text.lines()
                .find_map(|l| {
                    let rest = l.strip_prefix("#define")?.trim_start();
                    let rest = rest.strip_prefix(name)?;
                    rest.starts_with(char::is_whitespace)
                        .then(|| rest.split_whitespace().collect::<Vec<_>>().join(" "))
                })
                .unwrap_or_else(|| panic!("{name} not in {path}"))
        };
        assert_eq!(find("NVME_IOCTL_ID"), "_IO('N', 0x40)");
        assert_eq!(
            find("NVME_IOCTL_ADMIN_CMD"),
            "_IOWR('N', 0x41, struct nvme_admin_cmd)"
        );
        assert_eq!(
            find("NVME_IOCTL_IO_CMD"),
            "_IOWR('N', 0x43, struct nvme_passthru_cmd)"
        );
        assert!(text.contains("#define nvme_admin_cmd nvme_passthru_cmd"));
        // The struct's fields, in order, as the header declares them.
        let start = text.find("struct nvme_passthru_cmd {").unwrap();
        let body = &text[start..start + text[start..].find("};").unwrap()];
        let fields: Vec<String> = body
            .lines()
            .skip(1)
            .filter_map(|l| {
                let l = l.trim().trim_end_matches(';');
                let mut w = l.split_whitespace();
                let (ty, name) = (w.next()?, w.next()?);
                Some(format!("{ty} {name}"))
            })
            .collect();
        let expected = [
            "__u8 opcode",
            "__u8 flags",
            "__u16 rsvd1",
            "__u32 nsid",
            "__u32 cdw2",
            "__u32 cdw3",
            "__u64 metadata",
            "__u64 addr",
            "__u32 metadata_len",
            "__u32 data_len",
            "__u32 cdw10",
            "__u32 cdw11",
            "__u32 cdw12",
            "__u32 cdw13",
            "__u32 cdw14",
            "__u32 cdw15",
            "__u32 timeout_ms",
            "__u32 result",
        ];
        assert_eq!(fields, expected);
    }

    #[test]
    fn a_regular_file_is_no_controller() {
        let f = std::fs::File::open("/proc/self/status").unwrap();
        let mut buf = [0u8; 4096];
        let cmd = NvmePassthruCmd {
            opcode: 0x06,
            cdw10: 1,
            ..Default::default()
        };
        assert!(admin_cmd(&f, &cmd, &mut buf).is_err());
        assert!(namespace_id(&f).is_err());
    }
}
