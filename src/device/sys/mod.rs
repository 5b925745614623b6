//! Every `unsafe` line of the crate: raw ioctls, SG_IO, sync(2).
//! Each block carries a `// SAFETY:` note; kernel structs are `#[repr(C)]` with size asserts.
//!
//! Owns: the kernel ABI and one safe wrapper per ioctl, taking `AsFd` and returning
//! `io::Result`. [`ioc`], at the bottom, types a request with its argument and holds the
//! numbers whose arguments are plain C values; a request whose argument is a struct is
//! declared beside that struct (`HDIO_GETGEO` here, `SG_IO` in [`sg`], the file-mapping and
//! CD-ROM requests in [`fsmap`], NVMe's in [`nvme`]), so `ioc` names no file above it. Buffers the kernel writes into
//! are borrowed `&mut` for the call only; lengths the kernel trusts are checked here first.
//! Must not: decide policy (fallbacks, messages, which ioctl to try): that is `device`.

#![allow(unsafe_code)]

pub mod fs;
pub mod fsmap;
pub mod ioc;
pub mod lock;
pub mod mem;
pub mod nvme;
pub mod reraise;
pub mod secret;
pub mod sg;
pub mod signal;
pub mod tty;
pub mod uring;

use std::io;
use std::os::fd::{AsFd, AsRawFd};

use libc::{c_int, c_long, c_ulong, c_void};

use ioc::{Buffer, ByValue, In, InOut, Ioctl, NoArg, Out, WithBuffers};

#[cfg(any(
    target_arch = "mips",
    target_arch = "mips64",
    target_arch = "powerpc",
    target_arch = "powerpc64",
    target_arch = "sparc",
    target_arch = "sparc64"
))]
compile_error!("ioctl numbers in device::sys::ioc use the asm-generic encoding");

/// The one raw entry point: `ioctl(fd, request, arg)` with errno turned into `io::Error`.
/// Private: every request goes through one of the typed entry points below, chosen by the
/// argument type its [`ioc::Ioctl`] declaration names.
///
/// # Safety
/// `arg` must be what the kernel expects for `request`: a value, or a pointer to memory that
/// is valid, of the right size and alignment, and writable when the kernel writes it, for the
/// duration of the call.
unsafe fn ioctl_raw(fd: impl AsFd, request: u32, arg: *mut c_void) -> io::Result<c_int> {
    // SAFETY: the caller guarantees `arg` matches `request`; the fd is a live borrowed fd.
    let rc = unsafe { libc::ioctl(fd.as_fd().as_raw_fd(), request as _, arg) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(rc)
    }
}

/// A request whose argument is a plain value (passed in the pointer-sized slot, never
/// dereferenced by the kernel).
fn ioctl_value(fd: impl AsFd, request: Ioctl<ByValue>, value: c_ulong) -> io::Result<()> {
    // SAFETY: the request's type says the kernel reads `arg` as a number, not as an address,
    // so no memory is touched.
    unsafe { ioctl_raw(fd, request.request(), value as *mut c_void) }.map(|_| ())
}

/// A request that takes no argument; its answer is the return value.
fn ioctl_none(fd: impl AsFd, request: Ioctl<NoArg>) -> io::Result<c_int> {
    // SAFETY: the request's type says the kernel does not look at `arg`.
    unsafe { ioctl_raw(fd, request.request(), std::ptr::null_mut()) }
}

/// A request that writes one `T` through its pointer argument, starting from `init`.
fn ioctl_read<T: Copy>(fd: impl AsFd, request: Ioctl<Out<T>>, init: T) -> io::Result<T> {
    let mut value = init;
    // SAFETY: `value` is a live, aligned, writable `T` for the call; the request's type says
    // the kernel writes one `T` (integers or plain structs, for which any bytes are valid).
    unsafe { ioctl_raw(fd, request.request(), (&mut value as *mut T).cast()) }?;
    Ok(value)
}

/// A request that reads one `T` through its pointer argument.
fn ioctl_write<T: Copy>(fd: impl AsFd, request: Ioctl<In<T>>, value: T) -> io::Result<()> {
    let mut value = value;
    // SAFETY: `value` is a live, aligned `T` for the call; the request's type says the kernel
    // reads one `T` through the pointer.
    unsafe { ioctl_raw(fd, request.request(), (&mut value as *mut T).cast()) }.map(|_| ())
}

/// A request that reads and writes one plain `T` through its pointer argument.
fn ioctl_update<T: Copy>(fd: impl AsFd, request: Ioctl<InOut<T>>, value: &mut T) -> io::Result<()> {
    // SAFETY: `value` is a live, aligned, writable `T` borrowed for the call; the request's
    // type says the kernel reads and writes one plain `T`.
    unsafe { ioctl_raw(fd, request.request(), (value as *mut T).cast()) }.map(|_| ())
}

/// A request whose `T` holds pointers to buffers the kernel reads or writes.
///
/// # Safety
/// Every pointer in `value` must refer to memory valid for what the kernel does with it
/// (its length as `value` gives it, writable where the kernel writes), for the call.
unsafe fn ioctl_with_buffers<T>(
    fd: impl AsFd,
    request: Ioctl<WithBuffers<T>>,
    value: &mut T,
) -> io::Result<c_int> {
    // SAFETY: `value` is a live `T` borrowed for the call, of the type the request takes;
    // the caller vouches for the buffers it points to.
    unsafe { ioctl_raw(fd, request.request(), (value as *mut T).cast()) }
}

/// A request whose argument is a byte buffer laid out as the request wants.
///
/// # Safety
/// `buf` must be laid out as the request expects, aligned for it, and as long as what the
/// kernel reads and writes through it.
unsafe fn ioctl_buffer(
    fd: impl AsFd,
    request: Ioctl<Buffer>,
    buf: *mut c_void,
) -> io::Result<c_int> {
    // SAFETY: the caller vouches for the buffer's layout and length.
    unsafe { ioctl_raw(fd, request.request(), buf) }
}

/// `BLKGETSIZE64`: device size in bytes.
pub fn blk_getsize64(fd: impl AsFd) -> io::Result<u64> {
    ioctl_read(fd, ioc::BLKGETSIZE64, 0u64)
}

/// `BLKGETSIZE`: device size in 512-byte sectors (an `unsigned long`).
// c_ulong is u32 on 32-bit targets, where the conversion is not a no-op.
#[allow(clippy::useless_conversion)]
pub fn blk_getsize(fd: impl AsFd) -> io::Result<u64> {
    ioctl_read(fd, ioc::BLKGETSIZE, 0 as c_ulong).map(u64::from)
}

/// `BLKSSZGET`: logical sector size in bytes.
pub fn blk_sszget(fd: impl AsFd) -> io::Result<u32> {
    ioctl_read(fd, ioc::BLKSSZGET, 0 as c_int).map(|v| v as u32)
}

/// `BLKPBSZGET`: physical sector size in bytes.
pub fn blk_pbszget(fd: impl AsFd) -> io::Result<u32> {
    ioctl_read(fd, ioc::BLKPBSZGET, 0u32)
}

/// `BLKRAGET`: readahead in 512-byte sectors.
pub fn blk_raget(fd: impl AsFd) -> io::Result<u64> {
    ioctl_read(fd, ioc::BLKRAGET, 0 as c_long).map(|v| v as u64)
}

/// `BLKRASET`: the value is passed directly, not through a pointer.
pub fn blk_raset(fd: impl AsFd, sectors: u64) -> io::Result<()> {
    ioctl_value(fd, ioc::BLKRASET, sectors as c_ulong)
}

/// `BLKROGET`: 1 when the device is read-only.
pub fn blk_roget(fd: impl AsFd) -> io::Result<i32> {
    ioctl_read(fd, ioc::BLKROGET, 0 as c_int)
}

/// `BLKROSET`: takes a pointer to an int (unlike BLKRASET).
pub fn blk_roset(fd: impl AsFd, readonly: i32) -> io::Result<()> {
    ioctl_write(fd, ioc::BLKROSET, readonly as c_int)
}

/// `BLKFLSBUF`: flush and invalidate the buffer cache of the device.
pub fn blk_flsbuf(fd: impl AsFd) -> io::Result<()> {
    ioctl_value(fd, ioc::BLKFLSBUF, 0)
}

/// `BLKRRPART`: re-read the partition table.
pub fn blk_rrpart(fd: impl AsFd) -> io::Result<()> {
    ioctl_value(fd, ioc::BLKRRPART, 0)
}

/// `struct hd_geometry` (linux/hdreg.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct HdGeometry {
    pub heads: u8,
    pub sectors: u8,
    pub cylinders: u16,
    pub start: c_ulong,
}

/// hdparm's `struct local_hd_big_geometry` for `HDIO_GETGEO_BIG` (2.4-era kernels).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct HdBigGeometry {
    pub heads: u8,
    pub sectors: u8,
    pub cylinders: u32,
    pub start: c_ulong,
}

#[cfg(target_pointer_width = "64")]
const _: () = {
    assert!(std::mem::size_of::<HdGeometry>() == 16);
    assert!(std::mem::size_of::<HdBigGeometry>() == 16);
};
#[cfg(target_pointer_width = "32")]
const _: () = {
    assert!(std::mem::size_of::<HdGeometry>() == 8);
    assert!(std::mem::size_of::<HdBigGeometry>() == 12);
};

/// `HDIO_GETGEO` (linux/hdreg.h, a plain number): writes one `struct hd_geometry`.
const HDIO_GETGEO: Ioctl<Out<HdGeometry>> = Ioctl::new(0x0301);
/// `HDIO_GETGEO_BIG`: not in current kernel headers; hdparm defines it itself for pre-sysfs
/// kernels.
const HDIO_GETGEO_BIG: Ioctl<Out<HdBigGeometry>> = Ioctl::new(0x0330);

/// `HDIO_GETGEO`.
pub fn hdio_getgeo(fd: impl AsFd) -> io::Result<HdGeometry> {
    ioctl_read(fd, HDIO_GETGEO, HdGeometry::default())
}

/// `HDIO_GETGEO_BIG` (gone from modern kernels, which answer EINVAL or ENOTTY).
pub fn hdio_getgeo_big(fd: impl AsFd) -> io::Result<HdBigGeometry> {
    // The old kernels that implement it write one struct hd_big_geometry, which HdBigGeometry
    // mirrors; others write nothing.
    ioctl_read(fd, HDIO_GETGEO_BIG, HdBigGeometry::default())
}

/// `HDIO_GET_IDENTITY`: the 512-byte IDENTIFY data the kernel saved at probe time.
pub fn hdio_get_identity(fd: impl AsFd) -> io::Result<[u8; 512]> {
    // The kernel copies at most 512 bytes (ATA_ID_WORDS * 2, or sizeof(struct hd_driveid)
    // == 512 on the old IDE driver): the request's type.
    ioctl_read(fd, ioc::HDIO_GET_IDENTITY, [0u8; 512])
}

/// The legacy `HDIO_GET_*` settings, each read as a `long`. Each has an `HDIO_SET_*` twin too
/// ([`HdioSet::Setting`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HdioGet {
    Io32Bit,
    MultCount,
    UnmaskIntr,
    Dma,
    KeepSettings,
    NoWErr,
    BusState,
}

impl HdioGet {
    fn get_request(self) -> Ioctl<Out<c_long>> {
        match self {
            HdioGet::Io32Bit => ioc::HDIO_GET_32BIT,
            HdioGet::MultCount => ioc::HDIO_GET_MULTCOUNT,
            HdioGet::UnmaskIntr => ioc::HDIO_GET_UNMASKINTR,
            HdioGet::Dma => ioc::HDIO_GET_DMA,
            HdioGet::KeepSettings => ioc::HDIO_GET_KEEPSETTINGS,
            HdioGet::NoWErr => ioc::HDIO_GET_NOWERR,
            HdioGet::BusState => ioc::HDIO_GET_BUSSTATE,
        }
    }

    fn set_request(self) -> Ioctl<ByValue> {
        match self {
            HdioGet::Io32Bit => ioc::HDIO_SET_32BIT,
            HdioGet::MultCount => ioc::HDIO_SET_MULTCOUNT,
            HdioGet::UnmaskIntr => ioc::HDIO_SET_UNMASKINTR,
            HdioGet::Dma => ioc::HDIO_SET_DMA,
            HdioGet::KeepSettings => ioc::HDIO_SET_KEEPSETTINGS,
            HdioGet::NoWErr => ioc::HDIO_SET_NOWERR,
            HdioGet::BusState => ioc::HDIO_SET_BUSSTATE,
        }
    }
}

/// The legacy `HDIO_SET_*` settings, each passed by value: those [`HdioGet`] reads, and two
/// that have no get.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HdioSet {
    Setting(HdioGet),
    PioMode,
    WCache,
}

impl HdioSet {
    fn request(self) -> Ioctl<ByValue> {
        match self {
            HdioSet::Setting(what) => what.set_request(),
            HdioSet::PioMode => ioc::HDIO_SET_PIO_MODE,
            HdioSet::WCache => ioc::HDIO_SET_WCACHE,
        }
    }
}

/// One `HDIO_GET_*` ioctl.
pub fn hdio_get(fd: impl AsFd, what: HdioGet) -> io::Result<c_long> {
    // Every HDIO_GET_* setting ioctl writes one (unsigned) long via put_user.
    ioctl_read(fd, what.get_request(), 0 as c_long)
}

/// One `HDIO_SET_*` ioctl; the value travels in the argument slot.
pub fn hdio_set(fd: impl AsFd, what: HdioSet, value: c_ulong) -> io::Result<()> {
    ioctl_value(fd, what.request(), value)
}

/// `HDIO_DRIVE_RESET` (hdparm passes no argument).
pub fn hdio_drive_reset(fd: impl AsFd) -> io::Result<()> {
    ioctl_value(fd, ioc::HDIO_DRIVE_RESET, 0)
}

/// `HDIO_DRIVE_CMD` with hdparm's argument block: `[command, sector, feature, nsector]`
/// followed by `nsector * 512` bytes the kernel fills. `None` sends a NULL argument (hdparm's
/// "wait for the drive" after BLKFLSBUF).
pub fn hdio_drive_cmd(fd: impl AsFd, args: Option<&mut [u8]>) -> io::Result<()> {
    match args {
        // SAFETY: a NULL argument block: the kernel dereferences nothing (the old IDE driver
        // waits for the drive, libata answers EINVAL).
        None => unsafe { ioctl_buffer(fd, ioc::HDIO_DRIVE_CMD, std::ptr::null_mut()) }.map(|_| ()),
        Some(buf) => {
            let need = 4 + 512 * usize::from(*buf.get(3).unwrap_or(&0));
            if buf.len() < need {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            // SAFETY: the kernel reads 4 bytes and writes back 4 + args[3] * 512 bytes; the
            // buffer was checked to hold that many and is borrowed mutably for the call.
            unsafe { ioctl_buffer(fd, ioc::HDIO_DRIVE_CMD, buf.as_mut_ptr().cast()) }.map(|_| ())
        }
    }
}

/// `HDIO_DRIVE_TASK`: seven taskfile bytes in and out, no data.
pub fn hdio_drive_task(fd: impl AsFd, args: &mut [u8; 7]) -> io::Result<()> {
    // The kernel reads and writes exactly 7 bytes (IDE_TASK_REQUEST's io_ports).
    ioctl_update(fd, ioc::HDIO_DRIVE_TASK, args)
}

/// `ide_task_request_t` (linux/hdreg.h), the header of an `HDIO_DRIVE_TASKFILE` request.
/// `io_ports`/`hob_ports` are indexed data, feature, nsect, lbal, lbam, lbah, device, command.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct IdeTaskRequest {
    pub io_ports: [u8; 8],
    pub hob_ports: [u8; 8],
    /// Which registers to write; bits in kernel order: data, feature, lbal, nsect, lbam,
    /// lbah, device, command, then the same eight for the HOB registers.
    pub out_flags: u16,
    /// Which registers to read back, same bit order.
    pub in_flags: u16,
    pub data_phase: c_int,
    pub req_cmd: c_int,
    pub out_size: c_ulong,
    pub in_size: c_ulong,
}

#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<IdeTaskRequest>() == 48);
#[cfg(target_pointer_width = "32")]
const _: () = assert!(std::mem::size_of::<IdeTaskRequest>() == 36);

/// `HDIO_DRIVE_TASKFILE`: the header, then `out_size` bytes sent, then `in_size` bytes
/// received, in one buffer as the kernel expects. `out` must be `out_size` long and `input`
/// `in_size` long.
pub fn hdio_drive_taskfile(
    fd: impl AsFd,
    req: &mut IdeTaskRequest,
    out: &[u8],
    input: &mut [u8],
) -> io::Result<()> {
    if out.len() != req.out_size as usize || input.len() != req.in_size as usize {
        return Err(io::Error::from_raw_os_error(libc::EINVAL));
    }
    let head = std::mem::size_of::<IdeTaskRequest>();
    // A u64-aligned buffer, so the header can be written and read in place.
    let words = (head + out.len() + input.len()).div_ceil(8);
    let mut buf = vec![0u64; words];
    let base = buf.as_mut_ptr().cast::<u8>();
    // SAFETY: `buf` holds `words * 8 >= head + out + in` bytes, is 8-byte aligned (enough for
    // IdeTaskRequest), and nothing else refers to it. The kernel reads the header and `out`,
    // and writes the header and at most `in_size` bytes after `out`, all inside `buf`.
    unsafe {
        std::ptr::write(base.cast::<IdeTaskRequest>(), *req);
        std::ptr::copy_nonoverlapping(out.as_ptr(), base.add(head), out.len());
        let rc = ioctl_buffer(&fd, ioc::HDIO_DRIVE_TASKFILE, base.cast());
        *req = std::ptr::read(base.cast::<IdeTaskRequest>());
        std::ptr::copy_nonoverlapping(base.add(head + out.len()), input.as_mut_ptr(), input.len());
        rc.map(|_| ())
    }
}

/// `sync(2)`: flush every filesystem.
pub fn sync_all_filesystems() {
    // SAFETY: sync takes no arguments and cannot fail.
    unsafe { libc::sync() }
}

/// `fdatasync(2)` on any fd (std only offers it on `File`).
pub fn fdatasync(fd: impl AsFd) -> io::Result<()> {
    // SAFETY: fdatasync only reads the fd number, which is live for the borrow.
    let rc = unsafe { libc::fdatasync(fd.as_fd().as_raw_fd()) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `fsync(2)` on any fd.
pub fn fsync(fd: impl AsFd) -> io::Result<()> {
    // SAFETY: fsync only reads the fd number, which is live for the borrow.
    let rc = unsafe { libc::fsync(fd.as_fd().as_raw_fd()) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    #[test]
    fn ioctls_on_a_regular_file_fail_cleanly() {
        // A regular file has none of these ioctls: the wrappers return the kernel's error
        // instead of garbage, and never write outside their buffers.
        let f = File::open("/proc/self/status").unwrap();
        assert!(blk_getsize64(&f).is_err());
        assert!(hdio_getgeo(&f).is_err());
        assert!(hdio_get(&f, HdioGet::Io32Bit).is_err());
        let mut args = [0xEC, 0, 0, 1];
        // Too short for one sector of data: refused before the kernel sees it.
        let e = hdio_drive_cmd(&f, Some(&mut args)).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    }

    #[test]
    fn geometry_numbers_are_the_kernel_header_values() {
        const TEST: &str = "geometry_numbers_are_the_kernel_header_values";
        let Some(hdreg) = ioc::headers::header_or_skip(TEST, "/usr/include/linux/hdreg.h") else {
            return;
        };
        assert_eq!(hdreg.get("HDIO_GETGEO"), Some(&HDIO_GETGEO.request()));
        // hdparm's own definition, for kernels that predate sysfs: the header has none.
        assert_eq!(hdreg.get("HDIO_GETGEO_BIG"), None);
    }

    #[test]
    fn taskfile_sizes_are_checked() {
        let f = File::open("/proc/self/status").unwrap();
        let mut req = IdeTaskRequest {
            in_size: 512,
            ..Default::default()
        };
        let mut input = [0u8; 100];
        let e = hdio_drive_taskfile(&f, &mut req, &[], &mut input).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
    }
}
