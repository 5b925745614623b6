//! Memory calls for the read timings: the page-aligned, locked buffers the reads land in
//! (`mmap`, `mlock`, `mlockall`), and the CPU time of the process (the benchmark) and of its
//! waited-for children (the comparison's start-up harness). The flush
//! ioctls the timings use (`BLKFLSBUF`, `HDIO_DRIVE_CMD` with no argument) and `sync` are the
//! ones in [`super`], like every other ioctl.
//!
//! What it must not do: decide anything, or call ioctl. Callers in `device::read_buffer` and
//! `exec::measure::engines` own the sequences and the messages; this file only wraps the kernel
//! calls and keeps every `unsafe` next to its reason.

use std::io;
use std::ptr::NonNull;
use std::time::Duration;

/// The page size hdparm touches its buffer with: one write per 4 KiB makes every page present.
const TOUCH_STRIDE: usize = 4096;

/// An anonymous, private, page-aligned mapping whose pages are all present (touched), and
/// optionally locked in memory. Page alignment makes it usable for `O_DIRECT` reads.
///
/// The mapping is owned: it is unmapped on drop, so no pointer to it outlives it.
pub struct MappedBuffer {
    ptr: NonNull<u8>,
    len: usize,
    /// The length of the mapping itself (`len` rounded up to whole huge pages when the
    /// buffer was mapped for huge pages), which is what `munmap` must be given.
    mapped: usize,
}

/// The size of a transparent huge page on x86-64 and arm64 with 4 KiB pages. A mapping aligned
/// to it and advised `MADV_HUGEPAGE` is backed by 2 MiB folios where the kernel has them.
pub const HUGE_PAGE: usize = 2 << 20;

// SAFETY: the mapping is plain memory owned by this value; moving the owner to another thread is
// as safe as moving a `Box<[u8]>`.
unsafe impl Send for MappedBuffer {}
// SAFETY: a shared `&MappedBuffer` only hands out `&[u8]`; mutation needs `&mut`.
unsafe impl Sync for MappedBuffer {}

impl MappedBuffer {
    /// Maps `len` bytes of anonymous memory and writes a zero to every 4 KiB page so that the
    /// pages exist before any timing starts (hdparm does the same).
    pub fn map(len: usize) -> io::Result<MappedBuffer> {
        if len == 0 {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let raw = anonymous(len)?;
        let mut buf = MappedBuffer {
            ptr: raw,
            len,
            mapped: len,
        };
        buf.touch();
        Ok(buf)
    }

    /// Like [`map`](Self::map), for buffers that `O_DIRECT` reads of large blocks land in:
    /// aligned to [`HUGE_PAGE`], rounded up to whole huge pages and advised `MADV_HUGEPAGE`
    /// (honoured when transparent huge pages are `always` or `madvise`; ignored otherwise).
    ///
    /// Why: a read's bio carries one segment per physically contiguous run, and the block
    /// layer splits a bio at the queue's `max_segments`. A registered (fixed) io_uring buffer
    /// of 4 KiB pages is one bio_vec per page, so a loop device's 128 segments end a request
    /// at 512 KiB; a buffer of 2 MiB folios is registered as one bio_vec per folio, and the
    /// request then ends at the queue's `max_sectors_kb` instead (1280 KiB there), as a plain
    /// read's does. Huge pages that cannot be had (fragmented memory, THP off) leave a
    /// buffer of small pages, which works as before.
    pub fn map_for_large_reads(len: usize) -> io::Result<MappedBuffer> {
        if len == 0 {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let mapped = len
            .checked_next_multiple_of(HUGE_PAGE)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        let over = mapped
            .checked_add(HUGE_PAGE)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        let raw = anonymous(over)?;
        let start = raw.as_ptr() as usize;
        let aligned = start.next_multiple_of(HUGE_PAGE);
        let head = aligned - start;
        let tail = over - head - mapped;
        // SAFETY: both ranges are parts of the mapping made just above that nothing refers
        // to; unmapping them leaves exactly [aligned, aligned + mapped) mapped.
        unsafe {
            if head > 0 {
                libc::munmap(raw.as_ptr().cast(), head);
            }
            if tail > 0 {
                libc::munmap(raw.as_ptr().add(head + mapped).cast(), tail);
            }
        }
        let ptr = NonNull::new(raw.as_ptr().wrapping_add(head))
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        // SAFETY: advice on our own mapping; it changes how pages are allocated, not their
        // contents. A refusal (THP compiled out) is harmless.
        unsafe {
            libc::madvise(ptr.as_ptr().cast(), mapped, libc::MADV_HUGEPAGE);
        }
        let mut buf = MappedBuffer { ptr, len, mapped };
        buf.touch();
        Ok(buf)
    }

    /// Writes a zero to every 4 KiB page, so that every page exists before any timing starts.
    fn touch(&mut self) {
        let slice = self.as_mut_slice();
        let mut at = 0;
        while at < slice.len() {
            slice[at] = 0;
            at += TOUCH_STRIDE;
        }
    }

    /// Locks the whole mapping in memory (`mlock`).
    pub fn lock(&mut self) -> io::Result<()> {
        // SAFETY: the range is exactly our own live mapping.
        let rc = unsafe { libc::mlock(self.ptr.as_ptr().cast(), self.len) };
        if rc == -1 {
            return Err(io::Error::last_os_error());
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The base address, for registering the mapping with io_uring.
    pub fn as_mut_ptr(&mut self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: the mapping is `len` bytes of readable and writable memory owned by `self`,
        // and the returned borrow is tied to `&mut self`, so it is the only live reference.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: as above, shared borrow tied to `&self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for MappedBuffer {
    fn drop(&mut self) {
        // SAFETY: unmapping our own mapping; no reference into it can outlive `self`. A failure
        // here cannot be acted on and leaves only a leak.
        unsafe {
            libc::munmap(self.ptr.as_ptr().cast(), self.mapped);
        }
    }
}

/// A fresh anonymous private read-write mapping of `len` bytes.
fn anonymous(len: usize) -> io::Result<NonNull<u8>> {
    // SAFETY: a fresh anonymous private mapping at an address of the kernel's choosing; no
    // existing memory is affected. The result is checked against MAP_FAILED below.
    let raw = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_ANONYMOUS | libc::MAP_PRIVATE,
            -1,
            0,
        )
    };
    if raw == libc::MAP_FAILED {
        return Err(io::Error::last_os_error());
    }
    NonNull::new(raw.cast::<u8>()).ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))
}

/// `mlockall(MCL_CURRENT | MCL_FUTURE)`: keep the whole process resident while timing, so a
/// page fault cannot land inside a measured read. hdparm ignores a failure (low-memory machines).
pub fn mlockall_current_future() -> io::Result<()> {
    // SAFETY: changes only the residency policy of our own address space.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `munlockall()`: undo [`mlockall_current_future`] and every `mlock`.
pub fn munlockall() {
    // SAFETY: changes only the residency policy of our own address space; cannot fail in a way
    // that matters to us.
    unsafe {
        libc::munlockall();
    }
}

/// User plus system CPU time of the whole process so far (`getrusage(RUSAGE_SELF)`), threads
/// included.
pub fn process_cpu_time() -> io::Result<Duration> {
    cpu_time(libc::RUSAGE_SELF)
}

/// User plus system CPU time of the children waited for so far (`RUSAGE_CHILDREN`): what the
/// benchmark's start-up harness charges to the programs it spawns.
pub fn children_cpu_time() -> io::Result<Duration> {
    cpu_time(libc::RUSAGE_CHILDREN)
}

fn cpu_time(who: libc::c_int) -> io::Result<Duration> {
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    // SAFETY: `usage` is a properly sized, writable rusage the kernel fills in.
    let rc = unsafe { libc::getrusage(who, usage.as_mut_ptr()) };
    if rc == -1 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: getrusage succeeded, so the struct is initialised (it was zeroed before, too).
    let usage = unsafe { usage.assume_init() };
    let tv = |t: libc::timeval| {
        Duration::new(
            t.tv_sec.max(0) as u64,
            (t.tv_usec.max(0) as u32).min(999_999) * 1000,
        )
    };
    Ok(tv(usage.ru_utime) + tv(usage.ru_stime))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mapping_is_page_aligned_zeroed_and_writable() {
        let mut buf = MappedBuffer::map(2 << 20).expect("mmap");
        assert_eq!(buf.as_mut_ptr() as usize % 4096, 0);
        assert_eq!(buf.len(), 2 << 20);
        assert!(buf.as_slice().iter().all(|&b| b == 0));
        buf.as_mut_slice()[12345] = 7;
        assert_eq!(buf.as_slice()[12345], 7);
    }

    #[test]
    fn empty_mapping_is_refused() {
        assert!(MappedBuffer::map(0).is_err());
        assert!(MappedBuffer::map_for_large_reads(0).is_err());
    }

    #[test]
    fn a_mapping_for_large_reads_is_huge_page_aligned_and_usable_to_its_end() {
        for len in [4096, (2 << 20) + 4096, 64 << 20] {
            let mut buf = MappedBuffer::map_for_large_reads(len).expect("mmap");
            assert_eq!(buf.as_mut_ptr() as usize % HUGE_PAGE, 0, "{len}");
            assert_eq!(buf.len(), len);
            assert!(buf.as_slice().iter().all(|&b| b == 0));
            buf.as_mut_slice()[len - 1] = 7;
            assert_eq!(buf.as_slice()[len - 1], 7);
        }
    }

    #[test]
    fn cpu_time_moves_forward() {
        let before = process_cpu_time().expect("getrusage");
        let mut x = 0u64;
        for i in 0..20_000_000u64 {
            x = x.wrapping_mul(31).wrapping_add(i);
        }
        std::hint::black_box(x);
        let after = process_cpu_time().expect("getrusage");
        assert!(after > before);
    }

    #[test]
    fn children_cpu_time_grows_by_a_waited_child() {
        let before = children_cpu_time().expect("getrusage");
        let status = std::process::Command::new("sh")
            .args(["-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"])
            .status()
            .expect("sh");
        assert!(status.success());
        assert!(children_cpu_time().expect("getrusage") > before);
    }
}
