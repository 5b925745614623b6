//! io_uring submission for the benchmark mode: a ring that keeps up to `depth` reads of one block
//! size in flight against one file descriptor, each into its own slot of a page-aligned buffer
//! region. The buffers are registered with the kernel when it allows (fixed buffers: no page
//! pinning per read) and so is the file (no file lookup per read).
//!
//! Soundness rests on three rules kept here, so that the safe API cannot be misused:
//! a slot is given to the kernel only when it is not already in flight; the buffer region is
//! owned by the ring and outlives every read (on drop the ring waits for all reads, and if it
//! cannot, it leaks the region rather than free memory the kernel may still write); the file
//! descriptor is borrowed for the ring's lifetime.
//!
//! What it must not do: decide offsets, sizes or timing. `exec::measure::engines` drives it.

use std::io;
use std::os::fd::{AsRawFd, BorrowedFd};

use io_uring::{opcode, types, IoUring};

use super::mem::MappedBuffer;

/// One finished read: which slot, and the kernel's result (bytes read, or `-errno`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Completion {
    pub slot: u32,
    pub result: i32,
}

/// A ring of reads into `depth` buffer slots of `block_size` bytes.
pub struct ReadRing<'fd> {
    ring: IoUring,
    /// `None` only after a failed drain, when the region was leaked on purpose.
    buffers: Option<MappedBuffer>,
    fd: BorrowedFd<'fd>,
    block_size: u32,
    busy: Vec<bool>,
    in_flight: u32,
    fixed_buffers: bool,
    fixed_file: bool,
}

impl<'fd> ReadRing<'fd> {
    /// Sets up the ring, maps and locks `depth * block_size` bytes, and registers them and the
    /// file when the kernel allows. Fails when io_uring itself is unavailable (ENOSYS, EPERM
    /// when disabled by `kernel.io_uring_disabled`), so the caller can fall back.
    pub fn new(fd: BorrowedFd<'fd>, depth: u32, block_size: u32) -> io::Result<ReadRing<'fd>> {
        if depth == 0 || block_size == 0 {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        let total = (depth as usize)
            .checked_mul(block_size as usize)
            .ok_or_else(|| io::Error::from_raw_os_error(libc::ENOMEM))?;
        // Completions are processed only when we ask for them (defer_taskrun), by the one thread
        // that submits (single_issuer): fewer interrupts of the submitting task, less CPU.
        // Older kernels refuse those flags; a plain ring does the same job.
        let ring = IoUring::builder()
            .setup_single_issuer()
            .setup_defer_taskrun()
            .build(depth)
            .or_else(|_| IoUring::new(depth))?;
        // Huge-page backed where the kernel allows: see `map_for_large_reads` for why a
        // registered buffer of small pages halves the requests a large read becomes.
        let mut buffers = MappedBuffer::map_for_large_reads(total)?;
        // Locking is a nicety (registration pins the pages anyway); ignore a refusal.
        let _ = buffers.lock();
        let base = buffers.as_mut_ptr();
        let iovecs: Vec<libc::iovec> = (0..depth as usize)
            .map(|slot| libc::iovec {
                iov_base: base.wrapping_add(slot * block_size as usize).cast(),
                iov_len: block_size as usize,
            })
            .collect();
        // SAFETY: every iovec lies inside `buffers`, which this ring owns and keeps alive (and
        // mapped) until the ring is closed; registration pins the pages for the kernel.
        let fixed_buffers = unsafe { ring.submitter().register_buffers(&iovecs) }.is_ok();
        let fixed_file = ring.submitter().register_files(&[fd.as_raw_fd()]).is_ok();
        Ok(ReadRing {
            ring,
            buffers: Some(buffers),
            fd,
            block_size,
            busy: vec![false; depth as usize],
            in_flight: 0,
            fixed_buffers,
            fixed_file,
        })
    }

    /// Whether the buffers and the file are registered with the kernel.
    pub fn registered(&self) -> (bool, bool) {
        (self.fixed_buffers, self.fixed_file)
    }

    pub fn depth(&self) -> u32 {
        self.busy.len() as u32
    }

    pub fn in_flight(&self) -> u32 {
        self.in_flight
    }

    /// Queues a read of one block at `offset` into `slot`. The read is handed to the kernel at
    /// the next [`submit_and_wait`](Self::submit_and_wait).
    pub fn queue_read(&mut self, slot: u32, offset: u64) -> io::Result<()> {
        let index = slot as usize;
        if index >= self.busy.len() {
            return Err(io::Error::from_raw_os_error(libc::EINVAL));
        }
        if self.busy[index] {
            return Err(io::Error::from_raw_os_error(libc::EBUSY));
        }
        let buffers = self
            .buffers
            .as_mut()
            .ok_or_else(|| io::Error::from_raw_os_error(libc::EBADF))?;
        let ptr = buffers
            .as_mut_ptr()
            .wrapping_add(index * self.block_size as usize);
        let entry = match (self.fixed_buffers, self.fixed_file) {
            (true, true) => {
                opcode::ReadFixed::new(types::Fixed(0), ptr, self.block_size, slot as u16)
                    .offset(offset)
                    .build()
            }
            (true, false) => opcode::ReadFixed::new(
                types::Fd(self.fd.as_raw_fd()),
                ptr,
                self.block_size,
                slot as u16,
            )
            .offset(offset)
            .build(),
            (false, true) => opcode::Read::new(types::Fixed(0), ptr, self.block_size)
                .offset(offset)
                .build(),
            (false, false) => {
                opcode::Read::new(types::Fd(self.fd.as_raw_fd()), ptr, self.block_size)
                    .offset(offset)
                    .build()
            }
        }
        .user_data(u64::from(slot));
        // SAFETY: the entry points at slot `index` of the region owned by `self`, which is not
        // in flight (checked above) and is marked busy before the kernel can see the entry; the
        // region stays mapped until every busy slot has completed (see Drop). The fd is
        // borrowed for `'fd`, which outlives `self`.
        let pushed = unsafe { self.ring.submission().push(&entry) };
        if pushed.is_err() {
            // The submission queue is full of queued entries: hand them over and retry once.
            self.ring.submit()?;
            // SAFETY: as above.
            unsafe { self.ring.submission().push(&entry) }
                .map_err(|_| io::Error::from_raw_os_error(libc::EAGAIN))?;
        }
        self.busy[index] = true;
        self.in_flight += 1;
        Ok(())
    }

    /// Submits every queued read and waits until at least `want` have completed.
    pub fn submit_and_wait(&mut self, want: usize) -> io::Result<usize> {
        self.ring.submit_and_wait(want)
    }

    /// Moves every available completion into `out` and frees their slots.
    pub fn reap(&mut self, out: &mut Vec<Completion>) {
        for cqe in self.ring.completion() {
            let slot = cqe.user_data() as u32;
            if let Some(busy) = self.busy.get_mut(slot as usize) {
                if *busy {
                    *busy = false;
                    self.in_flight -= 1;
                }
            }
            out.push(Completion {
                slot,
                result: cqe.result(),
            });
        }
    }

    /// The data of a slot whose read has completed.
    pub fn slot(&self, slot: u32) -> Option<&[u8]> {
        let index = slot as usize;
        if index >= self.busy.len() || self.busy[index] {
            return None;
        }
        let start = index * self.block_size as usize;
        self.buffers
            .as_ref()
            .map(|b| &b.as_slice()[start..start + self.block_size as usize])
    }
}

impl Drop for ReadRing<'_> {
    fn drop(&mut self) {
        // Wait for every read still in flight: the kernel writes into our buffers until then.
        let mut sink = Vec::new();
        while self.in_flight > 0 {
            match self.ring.submit_and_wait(1) {
                Ok(_) => {}
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => {}
                Err(_) => {
                    // Cannot wait: leak the region instead of freeing memory the kernel may
                    // still write into.
                    if let Some(b) = self.buffers.take() {
                        std::mem::forget(b);
                    }
                    return;
                }
            }
            sink.clear();
            self.reap(&mut sink);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs::File;
    use std::io::{Read, Write};
    use std::os::fd::AsFd;
    use std::os::unix::net::UnixStream;
    use std::time::{Duration, Instant};

    /// A ring for a test, or `None` after saying why io_uring cannot be had here. The rule of
    /// tests/common's `skip`, which unit tests cannot reach: under `HDPARM_RS_REQUIRE_ALL=1`
    /// (CI) a missing io_uring is a failure, not a pass.
    fn ring_or_skip<'fd>(test: &str, fd: BorrowedFd<'fd>, depth: u32) -> Option<ReadRing<'fd>> {
        match ReadRing::new(fd, depth, 4096) {
            Ok(r) => Some(r),
            Err(e) => {
                let why = format!("io_uring unavailable here: {e}");
                if std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1") {
                    panic!("{test}: cannot run: {why} (HDPARM_RS_REQUIRE_ALL=1 turns this skip into a failure)");
                }
                eprintln!("SKIPPED {test}: {why}");
                None
            }
        }
    }

    #[test]
    fn a_busy_slot_is_refused_and_reads_land_in_their_slot() {
        let path = std::env::temp_dir().join(format!("hdparm-rs-uring-{}", std::process::id()));
        File::create(&path)
            .unwrap()
            .write_all(&[7u8; 8192])
            .unwrap();
        let file = File::open(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let Some(mut ring) = ring_or_skip("a_busy_slot_is_refused", file.as_fd(), 2) else {
            return;
        };
        assert_eq!(ring.depth(), 2);
        ring.queue_read(0, 4096).unwrap();
        assert_eq!(
            ring.queue_read(0, 0).unwrap_err().raw_os_error(),
            Some(libc::EBUSY)
        );
        assert_eq!(
            ring.queue_read(2, 0).unwrap_err().raw_os_error(),
            Some(libc::EINVAL)
        );
        assert!(ring.slot(0).is_none(), "no access to a slot in flight");
        let mut done = Vec::new();
        while ring.in_flight() > 0 {
            ring.submit_and_wait(1).unwrap();
            ring.reap(&mut done);
        }
        assert_eq!(
            done,
            vec![Completion {
                slot: 0,
                result: 4096
            }]
        );
        assert!(ring.slot(0).unwrap().iter().all(|&b| b == 7));
    }

    /// Drop must not free the buffer region while the kernel can still write into it: with a
    /// read in flight on a socket that has no data yet, dropping the ring blocks until the
    /// read completes. A Drop that did not wait would return at once, and closing the ring
    /// would cancel the read, leaving the byte unread in the socket.
    #[test]
    fn drop_waits_for_a_read_in_flight() {
        let (reader, mut writer) = UnixStream::pair().unwrap();
        let Some(mut ring) = ring_or_skip("drop_waits_for_a_read_in_flight", reader.as_fd(), 1)
        else {
            return;
        };
        ring.queue_read(0, 0).unwrap();
        // Hand the read to the kernel now; with no data it stays in flight.
        ring.submit_and_wait(0).unwrap();
        assert_eq!(ring.in_flight(), 1);
        let delay = Duration::from_millis(300);
        let feeder = std::thread::spawn(move || {
            std::thread::sleep(delay);
            writer.write_all(&[9]).unwrap();
            writer
        });
        let start = Instant::now();
        drop(ring);
        let waited = start.elapsed();
        let _writer = feeder.join().unwrap();
        assert!(
            waited >= delay / 2,
            "drop returned after {waited:?}, before the read in flight could complete"
        );
        // The read took the byte: nothing is left for a plain read.
        reader.set_nonblocking(true).unwrap();
        let mut buf = [0u8; 1];
        let left = (&reader).read(&mut buf);
        assert_eq!(
            left.map_err(|e| e.kind()),
            Err(io::ErrorKind::WouldBlock),
            "the read in flight was cancelled instead of completed"
        );
    }
}
