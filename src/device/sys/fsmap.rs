//! The file-mapping and allocation calls of `--fibmap` and `--fallocate`: `FIGETBSZ`, `FIBMAP`,
//! `FS_IOC_FIEMAP` (linux/fs.h, linux/fiemap.h) and `fallocate(2)`; and the CD-ROM calls of
//! `-E`: `CDROM_SELECT_SPEED` and `CDROM_SEND_PACKET` (linux/cdrom.h).
//!
//! Owns: the structs, their size assertions and the request numbers of these calls. Must not:
//! decide anything (which call to try first, what to print): that is the caller's.

use std::io;
use std::os::fd::{AsFd, AsRawFd};

use libc::{c_int, c_void};

use super::ioc::{self, Buffer, ByValue, InOut, Ioctl, Out, WithBuffers};
use super::{ioctl_buffer, ioctl_read, ioctl_update, ioctl_value, ioctl_with_buffers};

/// `struct fiemap_extent` (linux/fiemap.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct FiemapExtent {
    /// Byte offset of the extent in the file.
    pub logical: u64,
    /// Byte offset of the extent on the device.
    pub physical: u64,
    /// Length in bytes.
    pub length: u64,
    pub reserved64: [u64; 2],
    /// FIEMAP_EXTENT_* flags.
    pub flags: u32,
    pub reserved: [u32; 3],
}
const _: () = assert!(std::mem::size_of::<FiemapExtent>() == 56);

/// `struct fiemap` without its flexible extent array (linux/fiemap.h).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct FiemapHeader {
    start: u64,
    length: u64,
    flags: u32,
    mapped_extents: u32,
    extent_count: u32,
    reserved: u32,
}
const _: () = assert!(std::mem::size_of::<FiemapHeader>() == 32);

/// `FIBMAP`, `_IO(0x00, 1)` (linux/fs.h): one `int` in and out through the pointer.
const FIBMAP: Ioctl<InOut<c_int>> = Ioctl::new(ioc::io(0x00, 1));
/// `FIGETBSZ`, `_IO(0x00, 2)`: writes one `int`.
const FIGETBSZ: Ioctl<Out<c_int>> = Ioctl::new(ioc::io(0x00, 2));
/// `FS_IOC_FIEMAP`, `_IOWR('f', 11, struct fiemap)`, the struct counted without its extents;
/// the argument is the header followed by room for the extents ([`fiemap`] lays it out).
const FS_IOC_FIEMAP: Ioctl<Buffer> = Ioctl::new(ioc::iowr(
    b'f' as u32,
    11,
    std::mem::size_of::<FiemapHeader>() as u32,
));

/// How many extents hdparm asks for per FIEMAP call.
pub const FIEMAP_BATCH: usize = 8000;

/// One `FS_IOC_FIEMAP` call from byte `start` to the end of the file, for up to
/// [`FIEMAP_BATCH`] extents, with no flags (as hdparm asks).
pub fn fiemap(fd: impl AsFd, start: u64) -> io::Result<Vec<FiemapExtent>> {
    const HEADER_WORDS: usize = std::mem::size_of::<FiemapHeader>() / 8;
    const EXTENT_WORDS: usize = std::mem::size_of::<FiemapExtent>() / 8;
    // u64 words keep the header and the extents 8-byte aligned, as the kernel's structs are.
    let mut buf = vec![0u64; HEADER_WORDS + FIEMAP_BATCH * EXTENT_WORDS];
    let header = FiemapHeader {
        start,
        length: u64::MAX,
        flags: 0,
        mapped_extents: 0,
        extent_count: FIEMAP_BATCH as u32,
        reserved: 0,
    };
    // SAFETY: `buf` is at least 32 bytes and 8-byte aligned; FiemapHeader is plain data with
    // the same size and alignment as the kernel's struct fiemap header.
    unsafe { std::ptr::write(buf.as_mut_ptr().cast::<FiemapHeader>(), header) };
    // SAFETY: FS_IOC_FIEMAP reads the header and writes at most `extent_count` (FIEMAP_BATCH)
    // extents after it; `buf` holds exactly that many and is borrowed mutably for the call.
    unsafe { ioctl_buffer(&fd, FS_IOC_FIEMAP, buf.as_mut_ptr().cast::<c_void>()) }?;
    // SAFETY: the header is initialised (written above, updated by the kernel).
    let done = unsafe { std::ptr::read(buf.as_ptr().cast::<FiemapHeader>()) };
    let n = (done.mapped_extents as usize).min(FIEMAP_BATCH);
    let mut out = Vec::with_capacity(n);
    for i in 0..n {
        let at = HEADER_WORDS + i * EXTENT_WORDS;
        // SAFETY: extent `i` < FIEMAP_BATCH lies inside `buf` (sized for FIEMAP_BATCH), is
        // 8-byte aligned, and every bit pattern is a valid FiemapExtent (integers only).
        out.push(unsafe { std::ptr::read(buf.as_ptr().add(at).cast::<FiemapExtent>()) });
    }
    Ok(out)
}

/// `FIBMAP`: the file system block that holds file block `index` (0 for a hole). Needs
/// CAP_SYS_RAWIO. The argument is a C `int` in and out, as hdparm passes it.
pub fn fibmap(fd: impl AsFd, index: u32) -> io::Result<u32> {
    let mut block: libc::c_int = index as libc::c_int;
    // FIBMAP reads and writes one int through the pointer (the request's type).
    ioctl_update(fd, FIBMAP, &mut block)?;
    Ok(block as u32)
}

/// `FIGETBSZ`: the file system's block size, an int written through the pointer.
pub fn figetbsz(fd: impl AsFd) -> io::Result<u32> {
    let size = ioctl_read(fd, FIGETBSZ, 0 as libc::c_int)?;
    Ok(size as u32)
}

/// `fallocate(2)` with mode 0 (allocate, extend the size) from byte 0.
pub fn fallocate(fd: impl AsFd, len: u64) -> io::Result<()> {
    let len = libc::off_t::try_from(len).map_err(|_| io::Error::from_raw_os_error(libc::EFBIG))?;
    // SAFETY: fallocate only reads its integer arguments; the fd is live for the borrow.
    let rc = unsafe { libc::fallocate(fd.as_fd().as_raw_fd(), 0, 0, len) };
    if rc < 0 {
        Err(io::Error::last_os_error())
    } else {
        Ok(())
    }
}

/// `CDROM_SELECT_SPEED` (linux/cdrom.h, a plain number): the speed travels by value.
const CDROM_SELECT_SPEED: Ioctl<ByValue> = Ioctl::new(0x5322);

/// `CDROM_SELECT_SPEED`: the kernel sends SET CD SPEED; the speed travels by value.
pub fn cdrom_select_speed(fd: impl AsFd, speed: u32) -> io::Result<()> {
    ioctl_value(fd, CDROM_SELECT_SPEED, libc::c_ulong::from(speed))
}

/// `struct request_sense` (linux/cdrom.h): 64 bytes the kernel may write sense data into.
#[repr(C)]
struct RequestSense([u8; 64]);
const _: () = assert!(std::mem::size_of::<RequestSense>() == 64);

/// `struct cdrom_generic_command` (linux/cdrom.h).
#[repr(C)]
pub struct CdromGenericCommand {
    cmd: [u8; 12],
    buffer: *mut u8,
    buflen: libc::c_uint,
    stat: libc::c_int,
    sense: *mut RequestSense,
    data_direction: u8,
    quiet: libc::c_int,
    timeout: libc::c_int,
    reserved: *mut c_void,
}
#[cfg(target_pointer_width = "64")]
const _: () = assert!(std::mem::size_of::<CdromGenericCommand>() == 64);

/// `CDROM_SEND_PACKET` (linux/cdrom.h, a plain number): the kernel reads and writes one
/// `cdrom_generic_command`, and the data and sense buffers it points to.
const CDROM_SEND_PACKET: Ioctl<WithBuffers<CdromGenericCommand>> = Ioctl::new(0x5393);

/// CGC_DATA_WRITE (linux/cdrom.h).
const CGC_DATA_WRITE: u8 = 1;

/// `CDROM_SEND_PACKET` of a 12-byte MMC command that writes `data` to the drive, with the
/// kernel's default timeout.
pub fn cdrom_send_packet_out(fd: impl AsFd, cmd: [u8; 12], data: &mut [u8]) -> io::Result<()> {
    let mut sense = RequestSense([0; 64]);
    let buflen = libc::c_uint::try_from(data.len())
        .map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))?;
    let mut cgc = CdromGenericCommand {
        cmd,
        buffer: data.as_mut_ptr(),
        buflen,
        stat: 0,
        sense: &mut sense,
        data_direction: CGC_DATA_WRITE,
        quiet: 0,
        timeout: 0,
        reserved: std::ptr::null_mut(),
    };
    // SAFETY: the kernel reads `buflen` bytes from `buffer` (the borrowed `data`, that long),
    // may write up to 64 bytes of sense into `sense` (a live 64-byte struct), and reads and
    // writes the command struct itself, which lives for the call.
    unsafe { ioctl_with_buffers(fd, CDROM_SEND_PACKET, &mut cgc) }.map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;

    #[test]
    fn file_and_cdrom_numbers_match_kernel() {
        // The C macros' values on x86-64 (as strace decodes them).
        assert_eq!(FIBMAP.request(), 1);
        assert_eq!(FIGETBSZ.request(), 2);
        assert_eq!(FS_IOC_FIEMAP.request(), 0xC020_660B);
    }

    #[test]
    fn cdrom_numbers_are_the_kernel_header_values() {
        const TEST: &str = "cdrom_numbers_are_the_kernel_header_values";
        let Some(cdrom) = ioc::headers::header_or_skip(TEST, "/usr/include/linux/cdrom.h") else {
            return;
        };
        assert_eq!(
            cdrom.get("CDROM_SELECT_SPEED"),
            Some(&CDROM_SELECT_SPEED.request())
        );
        assert_eq!(
            cdrom.get("CDROM_SEND_PACKET"),
            Some(&CDROM_SEND_PACKET.request())
        );
        // FIBMAP, FIGETBSZ and FS_IOC_FIEMAP are macros there: the macro text is checked, and
        // its value against the encoding above.
        let Ok(fs) = std::fs::read_to_string("/usr/include/linux/fs.h") else {
            return;
        };
        let macro_of = |name: &str| {
            fs.lines()
                .find(|l| l.split_whitespace().take(2).eq(["#define", name]))
                .map(|l| l.split_whitespace().nth(2).unwrap_or_default().to_string())
        };
        assert_eq!(macro_of("FIBMAP").as_deref(), Some("_IO(0x00,1)"));
        assert_eq!(macro_of("FIGETBSZ").as_deref(), Some("_IO(0x00,2)"));
        assert_eq!(macro_of("FS_IOC_FIEMAP").as_deref(), Some("_IOWR('f',"));
        assert_eq!(FS_IOC_FIEMAP.request(), ioc::iowr(b'f' as u32, 11, 32));
    }

    #[test]
    fn file_calls_on_a_proc_file_fail_cleanly() {
        let f = File::open("/proc/self/status").unwrap();
        assert!(cdrom_select_speed(&f, 4).is_err());
        let mut d = [0u8; 28];
        assert!(cdrom_send_packet_out(&f, [0; 12], &mut d).is_err());
    }

    #[test]
    fn fiemap_and_block_size_of_a_written_file() {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-fiemap-{}", std::process::id()));
        std::fs::write(&dir, vec![7u8; 8192]).unwrap();
        let f = File::open(&dir).unwrap();
        let bsz = figetbsz(&f);
        // tmpfs and most file systems answer; FIEMAP may be unsupported (tmpfs: EOPNOTSUPP).
        if let Ok(extents) = fiemap(&f, 0) {
            let total: u64 = extents.iter().map(|e| e.length).sum();
            assert!(total == 0 || total >= 8192, "{extents:?}");
        }
        if let Ok(b) = bsz {
            assert!(b >= 512 && b.is_power_of_two(), "{b}");
        }
        std::fs::remove_file(&dir).unwrap();
    }
}
