//! The SG_IO ioctl (scsi/sg.h, interface version 3): one SCSI command with its data and sense
//! buffers. Must not: interpret the result (that is `ata::sat`, called from `device::ata`).

use std::io;
use std::os::fd::AsFd;

use libc::{c_int, c_uchar, c_uint, c_ushort, c_void};

use super::ioc::{Ioctl, WithBuffers};
use super::ioctl_with_buffers;

/// `SG_DXFER_*` (scsi/sg.h).
const SG_DXFER_NONE: c_int = -1;
const SG_DXFER_TO_DEV: c_int = -2;
const SG_DXFER_FROM_DEV: c_int = -3;

/// `struct sg_io_hdr`.
#[repr(C)]
pub struct SgIoHdr {
    interface_id: c_int,
    dxfer_direction: c_int,
    cmd_len: c_uchar,
    mx_sb_len: c_uchar,
    iovec_count: c_ushort,
    dxfer_len: c_uint,
    dxferp: *mut c_void,
    cmdp: *const c_uchar,
    sbp: *mut c_uchar,
    timeout: c_uint,
    flags: c_uint,
    pack_id: c_int,
    usr_ptr: *mut c_void,
    status: c_uchar,
    masked_status: c_uchar,
    msg_status: c_uchar,
    sb_len_wr: c_uchar,
    host_status: c_ushort,
    driver_status: c_ushort,
    resid: c_int,
    duration: c_uint,
    info: c_uint,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<SgIoHdr>() == 88);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<SgIoHdr>() == 64);

/// `SG_IO` (scsi/sg.h, a plain number): the kernel reads and writes one `sg_io_hdr`, and the
/// buffers it points to.
const SG_IO: Ioctl<WithBuffers<SgIoHdr>> = Ioctl::new(0x2285);

/// Which way data moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    None,
    ToDevice,
    FromDevice,
}

/// What the kernel reports about a completed SG_IO call (the ioctl itself succeeded).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SgIoStatus {
    /// SCSI status byte (0 GOOD, 2 CHECK CONDITION, ...).
    pub status: u8,
    pub masked_status: u8,
    pub host_status: u16,
    pub driver_status: u16,
    /// Bytes of sense data actually written.
    pub sb_len_wr: u8,
    /// Bytes of data not transferred.
    pub resid: i32,
    pub duration_ms: u32,
    pub info: u32,
}

/// One SCSI command through SG_IO. `data` is read (ToDevice) or written (FromDevice) by the
/// kernel, and ignored for `Direction::None`; `sense` receives up to 255 bytes of sense data.
pub fn sg_io(
    fd: impl AsFd,
    cdb: &[u8],
    direction: Direction,
    data: &mut [u8],
    sense: &mut [u8],
    timeout_ms: u32,
    pack_id: i32,
) -> io::Result<SgIoStatus> {
    let cmd_len = u8::try_from(cdb.len()).map_err(|_| einval())?;
    let mx_sb_len = u8::try_from(sense.len()).unwrap_or(u8::MAX);
    let (dir, dxferp, dxfer_len) = match direction {
        Direction::None => (SG_DXFER_NONE, std::ptr::null_mut(), 0),
        Direction::ToDevice | Direction::FromDevice => {
            let len = u32::try_from(data.len()).map_err(|_| einval())?;
            let dir = if direction == Direction::ToDevice {
                SG_DXFER_TO_DEV
            } else {
                SG_DXFER_FROM_DEV
            };
            (dir, data.as_mut_ptr().cast::<c_void>(), len)
        }
    };
    let mut hdr = SgIoHdr {
        interface_id: c_int::from(b'S'),
        dxfer_direction: dir,
        cmd_len,
        mx_sb_len,
        iovec_count: 0,
        dxfer_len,
        dxferp,
        cmdp: cdb.as_ptr(),
        sbp: sense.as_mut_ptr(),
        timeout: timeout_ms,
        flags: 0,
        pack_id,
        usr_ptr: std::ptr::null_mut(),
        status: 0,
        masked_status: 0,
        msg_status: 0,
        sb_len_wr: 0,
        host_status: 0,
        driver_status: 0,
        resid: 0,
        duration: 0,
        info: 0,
    };
    // SAFETY: `hdr` is a valid sg_io_hdr for the call. Its pointers refer to `cdb` (cmd_len
    // bytes, read only), `sense` (mx_sb_len <= sense.len() bytes, writable) and `data`
    // (dxfer_len == data.len() bytes, writable; null with length 0 when no data), all borrowed
    // for the duration of this synchronous ioctl.
    unsafe { ioctl_with_buffers(fd, SG_IO, &mut hdr) }?;
    Ok(SgIoStatus {
        status: hdr.status,
        masked_status: hdr.masked_status,
        host_status: hdr.host_status,
        driver_status: hdr.driver_status,
        sb_len_wr: hdr.sb_len_wr,
        resid: hdr.resid,
        duration_ms: hdr.duration,
        info: hdr.info,
    })
}

fn einval() -> io::Error {
    io::Error::from_raw_os_error(libc::EINVAL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sg_io_is_the_kernel_header_value() {
        const TEST: &str = "sg_io_is_the_kernel_header_value";
        let Some(sg) = super::super::ioc::headers::header_or_skip(TEST, "/usr/include/scsi/sg.h")
        else {
            return;
        };
        assert_eq!(
            sg.get("SG_IO"),
            Some(&SG_IO.request()),
            "scsi/sg.h says otherwise"
        );
    }

    #[test]
    fn sg_io_on_a_non_scsi_file_is_refused() {
        // /dev/null is a character device with no SG_IO: the ioctl fails with ENOTTY (or
        // EINVAL), never reports success.
        let f = std::fs::File::open("/dev/null").unwrap();
        let mut data = [0u8; 512];
        let mut sense = [0u8; 32];
        let cdb = [
            0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xec, 0,
        ];
        let e = sg_io(
            &f,
            &cdb,
            Direction::FromDevice,
            &mut data,
            &mut sense,
            15000,
            0,
        )
        .unwrap_err();
        assert!(
            matches!(e.raw_os_error(), Some(libc::ENOTTY) | Some(libc::EINVAL)),
            "{e}"
        );
    }
}
