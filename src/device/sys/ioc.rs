//! The bottom of `sys`: an ioctl request typed with its argument ([`Ioctl`]), the `_IO`/`_IOR`
//! encoding written out so tests can check the numbers, and the requests of `linux/fs.h` and
//! `linux/hdreg.h` whose arguments are plain C values, named as in the kernel headers. A
//! request whose argument is a struct is declared beside its struct (`HDIO_GETGEO` in `sys`,
//! `SG_IO` in `sg`, the file-mapping and CD-ROM requests in `fsmap`, NVMe's in `nvme`): this
//! file names nothing above it.
//! The encoding is asm-generic's (x86, arm, arm64, riscv, s390); mips, powerpc and sparc use
//! other direction bits and are not supported. Each request is typed with its argument, so
//! that it can be issued only through the entry point of `sys` that passes that argument: a
//! request that writes an `int` cannot be handed a `u64`, nor one that takes its value in the
//! argument slot a pointer. Must not: call anything.

use libc::{c_int, c_long, c_ulong};
use std::marker::PhantomData;

/// An ioctl request number with the type of its argument, `A`: one of [`ByValue`], [`NoArg`],
/// [`Out`], [`In`], [`InOut`], [`WithBuffers`] or [`Buffer`]. Only `sys` declares requests (the constructor is
/// private to it): a declaration is the claim that the kernel treats the argument so, which
/// the test beside each declaration checks against the kernel header where the number is in one.
pub struct Ioctl<A> {
    request: u32,
    _arg: PhantomData<fn() -> A>,
}

impl<A> Clone for Ioctl<A> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<A> Copy for Ioctl<A> {}

impl<A> std::fmt::Debug for Ioctl<A> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Ioctl({:#x})", self.request)
    }
}

impl<A> Ioctl<A> {
    /// Declares `request` as taking an argument of kind `A`.
    pub(in crate::device::sys) const fn new(request: u32) -> Self {
        Ioctl {
            request,
            _arg: PhantomData,
        }
    }

    /// The request number.
    pub const fn request(self) -> u32 {
        self.request
    }
}

/// The argument is an integer passed in the argument slot; the kernel reads no memory.
pub enum ByValue {}
/// The request takes no argument (the kernel does not look at the slot); its answer is the
/// ioctl's return value.
pub enum NoArg {}
/// The kernel writes one `T` through the pointer (any bit pattern it writes is a valid `T`:
/// integers and plain structs only).
pub struct Out<T>(PhantomData<T>);
/// The kernel reads one `T` through the pointer.
pub struct In<T>(PhantomData<T>);
/// The kernel reads and writes one plain `T` through the pointer.
pub struct InOut<T>(PhantomData<T>);
/// The kernel reads and writes one `T` that holds pointers to buffers the kernel also reads
/// or writes (SG_IO's header, NVMe's command, the cdrom packet): the call stays `unsafe`, its
/// caller vouching for the buffers.
pub struct WithBuffers<T>(PhantomData<T>);
/// The argument is a byte buffer whose layout and size the request's wrapper checks (the
/// argument block of HDIO_DRIVE_CMD, the request of HDIO_DRIVE_TASKFILE, FIEMAP's extents).
pub enum Buffer {}

/// The `_IOC` encoding of asm-generic/ioctl.h: nr 8 bits, type 8 bits, size 14 bits, dir 2 bits.
pub const fn ioc(dir: u32, kind: u32, nr: u32, size: u32) -> u32 {
    (dir << 30) | (size << 16) | (kind << 8) | nr
}

const IOC_NONE: u32 = 0;
const IOC_WRITE: u32 = 1;
const IOC_READ: u32 = 2;

/// `_IO(type, nr)`.
pub const fn io(kind: u32, nr: u32) -> u32 {
    ioc(IOC_NONE, kind, nr, 0)
}

/// `_IOR(type, nr, size)`.
pub const fn ior(kind: u32, nr: u32, size: u32) -> u32 {
    ioc(IOC_READ, kind, nr, size)
}

/// `_IOWR(type, nr, size)`.
pub const fn iowr(kind: u32, nr: u32, size: u32) -> u32 {
    ioc(IOC_READ | IOC_WRITE, kind, nr, size)
}

// linux/fs.h: block device ioctls, type 0x12.
pub const BLKROSET: Ioctl<In<c_int>> = Ioctl::new(io(0x12, 93));
pub const BLKROGET: Ioctl<Out<c_int>> = Ioctl::new(io(0x12, 94));
pub const BLKRRPART: Ioctl<ByValue> = Ioctl::new(io(0x12, 95));
pub const BLKGETSIZE: Ioctl<Out<c_ulong>> = Ioctl::new(io(0x12, 96));
pub const BLKFLSBUF: Ioctl<ByValue> = Ioctl::new(io(0x12, 97));
pub const BLKRASET: Ioctl<ByValue> = Ioctl::new(io(0x12, 98));
pub const BLKRAGET: Ioctl<Out<c_long>> = Ioctl::new(io(0x12, 99));
pub const BLKSSZGET: Ioctl<Out<c_int>> = Ioctl::new(io(0x12, 104));
/// `_IOR(0x12, 114, size_t)`: the size argument is `sizeof(size_t)`, 8 on 64-bit.
pub const BLKGETSIZE64: Ioctl<Out<u64>> =
    Ioctl::new(ior(0x12, 114, std::mem::size_of::<usize>() as u32));
pub const BLKPBSZGET: Ioctl<Out<u32>> = Ioctl::new(io(0x12, 123));

// linux/hdreg.h: plain numbers, not _IO-encoded.
pub const HDIO_GET_UNMASKINTR: Ioctl<Out<c_long>> = Ioctl::new(0x0302);
pub const HDIO_GET_MULTCOUNT: Ioctl<Out<c_long>> = Ioctl::new(0x0304);
pub const HDIO_GET_KEEPSETTINGS: Ioctl<Out<c_long>> = Ioctl::new(0x0308);
pub const HDIO_GET_32BIT: Ioctl<Out<c_long>> = Ioctl::new(0x0309);
pub const HDIO_GET_NOWERR: Ioctl<Out<c_long>> = Ioctl::new(0x030a);
pub const HDIO_GET_DMA: Ioctl<Out<c_long>> = Ioctl::new(0x030b);
pub const HDIO_GET_IDENTITY: Ioctl<Out<[u8; 512]>> = Ioctl::new(0x030d);
pub const HDIO_GET_BUSSTATE: Ioctl<Out<c_long>> = Ioctl::new(0x031a);
pub const HDIO_DRIVE_RESET: Ioctl<ByValue> = Ioctl::new(0x031c);
pub const HDIO_DRIVE_TASKFILE: Ioctl<Buffer> = Ioctl::new(0x031d);
pub const HDIO_DRIVE_TASK: Ioctl<InOut<[u8; 7]>> = Ioctl::new(0x031e);
pub const HDIO_DRIVE_CMD: Ioctl<Buffer> = Ioctl::new(0x031f);
pub const HDIO_SET_MULTCOUNT: Ioctl<ByValue> = Ioctl::new(0x0321);
pub const HDIO_SET_UNMASKINTR: Ioctl<ByValue> = Ioctl::new(0x0322);
pub const HDIO_SET_KEEPSETTINGS: Ioctl<ByValue> = Ioctl::new(0x0323);
pub const HDIO_SET_32BIT: Ioctl<ByValue> = Ioctl::new(0x0324);
pub const HDIO_SET_NOWERR: Ioctl<ByValue> = Ioctl::new(0x0325);
pub const HDIO_SET_DMA: Ioctl<ByValue> = Ioctl::new(0x0326);
pub const HDIO_SET_PIO_MODE: Ioctl<ByValue> = Ioctl::new(0x0327);
pub const HDIO_SET_WCACHE: Ioctl<ByValue> = Ioctl::new(0x032b);
pub const HDIO_SET_BUSSTATE: Ioctl<ByValue> = Ioctl::new(0x032d);

#[cfg(test)]
mod tests {
    use super::headers::header_or_skip;
    use super::*;

    #[test]
    fn block_ioctl_numbers_match_kernel() {
        // The values the C macros produce, as printed by a C program on x86-64 and as strace
        // decodes them.
        assert_eq!(BLKROSET.request(), 0x125d);
        assert_eq!(BLKROGET.request(), 0x125e);
        assert_eq!(BLKRRPART.request(), 0x125f);
        assert_eq!(BLKGETSIZE.request(), 0x1260);
        assert_eq!(BLKFLSBUF.request(), 0x1261);
        assert_eq!(BLKRASET.request(), 0x1262);
        assert_eq!(BLKRAGET.request(), 0x1263);
        assert_eq!(BLKSSZGET.request(), 0x1268);
        assert_eq!(BLKPBSZGET.request(), 0x127b);
        #[cfg(target_pointer_width = "64")]
        assert_eq!(BLKGETSIZE64.request(), 0x8008_1272);
        #[cfg(target_pointer_width = "32")]
        assert_eq!(BLKGETSIZE64.request(), 0x8004_1272);
    }

    #[test]
    // libc's Ioctl type is u64 on glibc x86-64 but i32 on musl.
    #[allow(clippy::unnecessary_cast)]
    fn libc_agrees_where_it_defines_them() {
        assert_eq!(u64::from(BLKSSZGET.request()), libc::BLKSSZGET as u64);
        assert_eq!(u64::from(BLKPBSZGET.request()), libc::BLKPBSZGET as u64);
    }

    #[test]
    fn hdio_numbers_are_the_kernel_header_values() {
        const TEST: &str = "hdio_numbers_are_the_kernel_header_values";
        let Some(hdreg) = header_or_skip(TEST, "/usr/include/linux/hdreg.h") else {
            return;
        };
        let ours = [
            ("HDIO_GET_UNMASKINTR", HDIO_GET_UNMASKINTR.request()),
            ("HDIO_GET_MULTCOUNT", HDIO_GET_MULTCOUNT.request()),
            ("HDIO_GET_KEEPSETTINGS", HDIO_GET_KEEPSETTINGS.request()),
            ("HDIO_GET_32BIT", HDIO_GET_32BIT.request()),
            ("HDIO_GET_NOWERR", HDIO_GET_NOWERR.request()),
            ("HDIO_GET_DMA", HDIO_GET_DMA.request()),
            ("HDIO_GET_IDENTITY", HDIO_GET_IDENTITY.request()),
            ("HDIO_GET_BUSSTATE", HDIO_GET_BUSSTATE.request()),
            ("HDIO_DRIVE_RESET", HDIO_DRIVE_RESET.request()),
            ("HDIO_DRIVE_TASKFILE", HDIO_DRIVE_TASKFILE.request()),
            ("HDIO_DRIVE_TASK", HDIO_DRIVE_TASK.request()),
            ("HDIO_DRIVE_CMD", HDIO_DRIVE_CMD.request()),
            ("HDIO_SET_MULTCOUNT", HDIO_SET_MULTCOUNT.request()),
            ("HDIO_SET_UNMASKINTR", HDIO_SET_UNMASKINTR.request()),
            ("HDIO_SET_KEEPSETTINGS", HDIO_SET_KEEPSETTINGS.request()),
            ("HDIO_SET_32BIT", HDIO_SET_32BIT.request()),
            ("HDIO_SET_NOWERR", HDIO_SET_NOWERR.request()),
            ("HDIO_SET_DMA", HDIO_SET_DMA.request()),
            ("HDIO_SET_PIO_MODE", HDIO_SET_PIO_MODE.request()),
            ("HDIO_SET_WCACHE", HDIO_SET_WCACHE.request()),
            ("HDIO_SET_BUSSTATE", HDIO_SET_BUSSTATE.request()),
        ];
        for (name, value) in ours {
            assert_eq!(
                hdreg.get(name),
                Some(&value),
                "{name}: ours is {value:#06x}, linux/hdreg.h says otherwise"
            );
        }
    }
}

/// Reading the kernel's headers, for the tests of every file here that declares requests:
/// each checks its numbers against the header that defines them.
#[cfg(test)]
pub(in crate::device::sys) mod headers {
    /// The `#define NAME 0x...` (or decimal) values of a C header, or `None` when the header
    /// cannot be read.
    fn header_defines(path: &str) -> Option<std::collections::HashMap<String, u32>> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut defs = std::collections::HashMap::new();
        for line in text.lines() {
            let mut words = line.split_whitespace();
            let (Some("#define"), Some(name), Some(value)) =
                (words.next(), words.next(), words.next())
            else {
                continue;
            };
            let parsed = match value.strip_prefix("0x") {
                Some(hex) => u32::from_str_radix(hex, 16).ok(),
                None => value.parse().ok(),
            };
            if let Some(v) = parsed {
                defs.insert(name.to_string(), v);
            }
        }
        Some(defs)
    }

    /// The header that defines the numbers, or `None` after saying why it is not there; under
    /// `HDPARM_RS_REQUIRE_ALL=1` (CI) a missing header fails, as tests/common's `skip` rule
    /// says (unit tests cannot reach that module).
    pub(in crate::device::sys) fn header_or_skip(
        test: &str,
        path: &str,
    ) -> Option<std::collections::HashMap<String, u32>> {
        let defs = header_defines(path);
        if defs.is_none() {
            let why = format!("{path} is not readable (Debian: linux-libc-dev)");
            if std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1") {
                panic!("{test}: cannot run: {why} (HDPARM_RS_REQUIRE_ALL=1 turns this skip into a failure)");
            }
            eprintln!("SKIPPED {test}: {why}");
        }
        defs
    }
}
