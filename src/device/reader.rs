//! The device side of the read timings: the prepared 2 MiB buffer, the file-descriptor reader
//! the `-T`/`-t` loops read through, hdparm's buffer-cache flush routine (also `-f`'s), and the
//! benchmark engines (io_uring, and threads doing `pread` where io_uring is unavailable).
//!
//! What it must not do: measure, format or decide. The loops, the statistics and the lines are
//! in `timing`; this file only does the reads and system calls they ask for. Its `unsafe`
//! lives in `sys::mem` and `sys::uring`.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::{FileExt, FileTypeExt, OpenOptionsExt};
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::sys;
use super::sys::mem::{self, MappedBuffer};
use super::sys::uring::{Completion, ReadRing};
use crate::error::{Error, ErrorClass};
use crate::timing::bench::{BenchEngine, BenchOptions, EngineChoice, OffsetPlan, TrialSample};
use crate::timing::latency::LatencyHistogram;
use crate::timing::reads::{TimingTarget, TIMING_BUF_BYTES};

/// hdparm's buffer-cache flush routine (reference §6.1), used by `-T`, `-t` and `-f`:
/// `sync`, `fsync`, `fdatasync`, `sync`, `BLKFLSBUF` (then the legacy "wait for the drive"
/// `HDIO_DRIVE_CMD` with no command, whose failure is ignored), `sync`.
///
/// On a node that is not a block device (a regular file, a directory, `/dev/sg*`) there is no
/// block buffer cache, so `BLKFLSBUF` is skipped instead of failing with "Inappropriate ioctl
/// for device" as hdparm does (a stderr-only difference, listed in DIFFERENCES.md).
/// An error carries hdparm's line: `BLKFLSBUF failed: <strerror>`.
pub fn flush_buffer_cache(fd: BorrowedFd<'_>) -> Result<(), Error> {
    sys::sync_all_filesystems();
    let is_block = match fd.try_clone_to_owned() {
        Ok(owned) => {
            let file = File::from(owned);
            // hdparm ignores both results: a directory or a pipe cannot be synced, and the
            // flush that matters is the ioctl below.
            let _ = file.sync_all();
            let _ = file.sync_data();
            file.metadata()
                .map(|m| m.file_type().is_block_device())
                .unwrap_or(false)
        }
        Err(_) => false,
    };
    sys::sync_all_filesystems();
    let result = if is_block {
        match sys::blk_flsbuf(fd) {
            Ok(()) => {
                // hdparm's "wait for the drive": a NULL argument (libata answers EINVAL).
                let _ = sys::hdio_drive_cmd(fd, None);
                Ok(())
            }
            Err(e) => Err(Error::os(ErrorClass::Failed, "BLKFLSBUF failed", &e)),
        }
    } else {
        Ok(())
    };
    sys::sync_all_filesystems();
    result
}

/// The 2 MiB timing buffer, prepared as hdparm prepares it: an anonymous mapping (page aligned,
/// so `O_DIRECT` reads can land in it), every page touched, locked, the whole process locked
/// (`mlockall`, failure ignored as in hdparm), and a `sync()` so pending writes do not compete
/// with the reads. The caller then sleeps the settle time (the timing loops do).
/// Dropping it unlocks the process (`munlockall`) and unmaps the buffer.
pub struct TimingBuffer {
    buf: MappedBuffer,
}

impl TimingBuffer {
    pub fn prepare() -> Result<TimingBuffer, Error> {
        TimingBuffer::prepared(MappedBuffer::map(TIMING_BUF_BYTES))
    }

    /// The same buffer on a huge page where the kernel has one (`--surface`): a 1 MiB
    /// `O_DIRECT` read into small pages is split at the queue's `max_segments` (two requests
    /// of 512 KiB on a loop device), into one folio it is one request. `-T` and `-t` keep
    /// hdparm's plain buffer, so that their reads are the ones hdparm makes.
    pub fn prepare_for_large_reads() -> Result<TimingBuffer, Error> {
        TimingBuffer::prepared(MappedBuffer::map_for_large_reads(TIMING_BUF_BYTES))
    }

    fn prepared(mapped: io::Result<MappedBuffer>) -> Result<TimingBuffer, Error> {
        let mut buf = mapped
            .map_err(|e| Error::os(ErrorClass::Failed, "could not allocate timing buf", &e))?;
        buf.lock()
            .map_err(|e| Error::os(ErrorClass::Failed, "mlock() failed on timing buf", &e))?;
        let _ = mem::mlockall_current_future();
        sys::sync_all_filesystems();
        Ok(TimingBuffer { buf })
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.buf.as_mut_slice()
    }
}

impl Drop for TimingBuffer {
    fn drop(&mut self) {
        mem::munlockall();
    }
}

/// The `-T`/`-t` reader over the executor's file descriptor. It reads and seeks through a
/// duplicate of the descriptor, which shares the file offset and the open flags (`O_DIRECT`
/// included) with the original, so the position `-T` leaves is the one `-t` starts from, as
/// in hdparm.
pub struct FdTarget<'fd> {
    fd: BorrowedFd<'fd>,
    file: File,
}

impl<'fd> FdTarget<'fd> {
    pub fn new(fd: BorrowedFd<'fd>) -> io::Result<FdTarget<'fd>> {
        let file = File::from(fd.try_clone_to_owned()?);
        Ok(FdTarget { fd, file })
    }
}

impl TimingTarget for FdTarget<'_> {
    fn seek(&mut self, offset: u64) -> io::Result<u64> {
        // lseek takes a signed offset: hdparm passes values of 2^63 and above as negative ones,
        // which the kernel refuses with EINVAL. std does the same conversion.
        self.file.seek(SeekFrom::Start(offset))
    }

    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One read(2), like hdparm: no retry on a short count, which is reported as such.
        self.file.read(buf)
    }

    fn flush_buffer_cache(&mut self) -> Result<(), Error> {
        flush_buffer_cache(self.fd)
    }

    fn size_bytes(&mut self) -> Option<u64> {
        // A block device's size as the kernel has it now (a loop device after `losetup -c`,
        // a disk after a resize); a regular file's length.
        crate::device::sys::blk_getsize64(self.fd)
            .ok()
            .or_else(|| self.file.metadata().ok().map(|m| m.len()))
    }
}

/// The size in 512-byte sectors of what `fd` refers to, found by seeking to its end (a block
/// device reports its size that way, a regular file its length) and back to where it was.
/// For callers that have no better source (the device layer's size query is preferred: it is
/// what hdparm uses).
pub fn size_sectors_by_seek(fd: BorrowedFd<'_>) -> io::Result<u64> {
    let mut file = File::from(fd.try_clone_to_owned()?);
    let here = file.stream_position()?;
    let end = file.seek(SeekFrom::End(0))?;
    file.seek(SeekFrom::Start(here))?;
    Ok(end / 512)
}

/// Opens `path` for the benchmark: read-only, `O_DIRECT` (no page cache), non-blocking open
/// as hdparm opens devices.
pub fn open_direct(path: &Path) -> Result<File, Error> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::os(ErrorClass::CannotOpen, &path.display().to_string(), &e))
}

fn read_error(offset: u64, e: &io::Error) -> Error {
    Error::os(
        ErrorClass::Failed,
        &format!("bench: read failed at offset {offset}"),
        e,
    )
}

fn eof_error(offset: u64) -> Error {
    Error::failed(format!(
        "bench: read at offset {offset} hit the end of the device"
    ))
}

/// Picks the engine `options.engine` asks for: io_uring (falling back to threads under `Auto`
/// when the kernel refuses io_uring).
pub fn bench_engine<'f>(
    file: &'f File,
    options: &BenchOptions,
) -> Result<Box<dyn BenchEngine + 'f>, Error> {
    let block = u32::try_from(options.block_size)
        .map_err(|_| Error::usage("--bench-bs: block size too large"))?;
    match options.engine {
        EngineChoice::Threads => Ok(Box::new(ThreadEngine::new(file, options.depth, block)?)),
        EngineChoice::IoUring => UringEngine::new(file, options.depth, block)
            .map(|e| Box::new(e) as Box<dyn BenchEngine + 'f>)
            .map_err(|e| Error::os(ErrorClass::NotApplicable, "bench: io_uring unavailable", &e)),
        EngineChoice::Auto => match UringEngine::new(file, options.depth, block) {
            Ok(e) => Ok(Box::new(e)),
            Err(_) => Ok(Box::new(ThreadEngine::new(file, options.depth, block)?)),
        },
    }
}

/// Reads through io_uring with `depth` reads in flight, into registered buffers.
pub struct UringEngine<'f> {
    ring: ReadRing<'f>,
    completions: Vec<Completion>,
}

impl<'f> UringEngine<'f> {
    pub fn new(file: &'f File, depth: u32, block: u32) -> io::Result<UringEngine<'f>> {
        let ring = ReadRing::new(file.as_fd(), depth, block)?;
        Ok(UringEngine {
            ring,
            completions: Vec::with_capacity(depth as usize),
        })
    }

    fn wait(&mut self) -> Result<(), Error> {
        loop {
            match self.ring.submit_and_wait(1) {
                Ok(_) => return Ok(()),
                Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
                Err(e) => {
                    return Err(Error::os(
                        ErrorClass::Failed,
                        "bench: io_uring_enter failed",
                        &e,
                    ))
                }
            }
        }
    }
}

impl BenchEngine for UringEngine<'_> {
    fn name(&self) -> String {
        "io_uring".to_string()
    }

    fn run_trial(
        &mut self,
        plan: &OffsetPlan,
        first_index: u64,
        duration: Duration,
        latency: &mut LatencyHistogram,
        progress: &mut dyn FnMut(u64, Duration),
    ) -> Result<TrialSample, Error> {
        let cpu_start = mem::process_cpu_time().ok();
        let start = Instant::now();
        let deadline = start + duration;
        let mut index = first_index;
        // Which offset each slot is reading, for the error message, and since when.
        let mut slot_offset = vec![0u64; self.ring.depth() as usize];
        let mut slot_since = vec![start; self.ring.depth() as usize];
        for slot in 0..self.ring.depth() {
            let offset = plan.offset(index);
            index = index.wrapping_add(1);
            slot_offset[slot as usize] = offset;
            slot_since[slot as usize] = Instant::now();
            self.ring
                .queue_read(slot, offset)
                .map_err(|e| read_error(offset, &e))?;
        }
        let mut bytes = 0u64;
        let mut reads = 0u64;
        let mut stopping = false;
        let mut failure: Option<Error> = None;
        while self.ring.in_flight() > 0 {
            self.wait()?;
            self.completions.clear();
            self.ring.reap(&mut self.completions);
            let now = Instant::now();
            if now >= deadline {
                stopping = true;
            }
            for i in 0..self.completions.len() {
                let Completion { slot, result } = self.completions[i];
                let at = slot_offset[slot as usize];
                if result < 0 {
                    failure.get_or_insert_with(|| {
                        read_error(at, &io::Error::from_raw_os_error(-result))
                    });
                    stopping = true;
                    continue;
                }
                if result == 0 {
                    failure.get_or_insert_with(|| eof_error(at));
                    stopping = true;
                    continue;
                }
                bytes += result as u64;
                reads += 1;
                latency.record(now.saturating_duration_since(slot_since[slot as usize]));
                if !stopping {
                    let offset = plan.offset(index);
                    index = index.wrapping_add(1);
                    slot_offset[slot as usize] = offset;
                    slot_since[slot as usize] = Instant::now();
                    self.ring
                        .queue_read(slot, offset)
                        .map_err(|e| read_error(offset, &e))?;
                }
            }
            progress(bytes, now - start);
        }
        if let Some(e) = failure {
            return Err(e);
        }
        let elapsed = start.elapsed();
        let cpu = match (cpu_start, mem::process_cpu_time().ok()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        Ok(TrialSample {
            bytes,
            reads,
            elapsed,
            cpu,
        })
    }
}

/// Where io_uring is unavailable: `depth` threads, each doing one `pread` at a time into its
/// own aligned buffer, taking the next offset from a shared counter.
pub struct ThreadEngine<'f> {
    file: &'f File,
    depth: u32,
    block: u32,
    buffers: MappedBuffer,
}

impl<'f> ThreadEngine<'f> {
    pub fn new(file: &'f File, depth: u32, block: u32) -> Result<ThreadEngine<'f>, Error> {
        let total = depth as usize * block as usize;
        let buffers = MappedBuffer::map(total)
            .map_err(|e| Error::os(ErrorClass::Failed, "bench: could not allocate buffers", &e))?;
        Ok(ThreadEngine {
            file,
            depth,
            block,
            buffers,
        })
    }
}

impl BenchEngine for ThreadEngine<'_> {
    fn name(&self) -> String {
        if self.depth == 1 {
            "pread".to_string()
        } else {
            "threads".to_string()
        }
    }

    fn run_trial(
        &mut self,
        plan: &OffsetPlan,
        first_index: u64,
        duration: Duration,
        latency: &mut LatencyHistogram,
        progress: &mut dyn FnMut(u64, Duration),
    ) -> Result<TrialSample, Error> {
        let cpu_start = mem::process_cpu_time().ok();
        let start = Instant::now();
        let deadline = start + duration;
        let next = AtomicU64::new(first_index);
        // Each thread counts its own latencies and adds them in at its end.
        let latencies = Mutex::new(latency);
        let bytes = AtomicU64::new(0);
        let reads = AtomicU64::new(0);
        let running = AtomicU64::new(u64::from(self.depth));
        // When the last thread finished, in nanoseconds from `start`: the main thread only
        // polls, so its own clock would overshoot.
        let finished_ns = AtomicU64::new(0);
        let stop = AtomicBool::new(false);
        let failure: Mutex<Option<Error>> = Mutex::new(None);
        let file = self.file;
        std::thread::scope(|scope| {
            for chunk in self.buffers.as_mut_slice().chunks_mut(self.block as usize) {
                let (next, bytes, reads, running, stop, failure, finished_ns, latencies) = (
                    &next,
                    &bytes,
                    &reads,
                    &running,
                    &stop,
                    &failure,
                    &finished_ns,
                    &latencies,
                );
                scope.spawn(move || {
                    let mut own = LatencyHistogram::new();
                    while !stop.load(Ordering::Relaxed) && Instant::now() < deadline {
                        let offset = plan.offset(next.fetch_add(1, Ordering::Relaxed));
                        let since = Instant::now();
                        let outcome = match file.read_at(chunk, offset) {
                            Ok(0) => Err(eof_error(offset)),
                            Ok(n) => Ok(n),
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(0),
                            Err(e) => Err(read_error(offset, &e)),
                        };
                        match outcome {
                            Ok(n) => {
                                if n > 0 {
                                    own.record(since.elapsed());
                                    bytes.fetch_add(n as u64, Ordering::Relaxed);
                                    reads.fetch_add(1, Ordering::Relaxed);
                                }
                            }
                            Err(e) => {
                                if let Ok(mut slot) = failure.lock() {
                                    slot.get_or_insert(e);
                                }
                                stop.store(true, Ordering::Relaxed);
                            }
                        }
                    }
                    if let Ok(mut all) = latencies.lock() {
                        all.merge(&own);
                    }
                    let done = u64::try_from(start.elapsed().as_nanos()).unwrap_or(u64::MAX);
                    finished_ns.fetch_max(done, Ordering::Relaxed);
                    running.fetch_sub(1, Ordering::Release);
                });
            }
            while running.load(Ordering::Acquire) > 0 {
                std::thread::sleep(Duration::from_millis(50));
                progress(bytes.load(Ordering::Relaxed), start.elapsed());
            }
        });
        if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
            return Err(e);
        }
        let elapsed = Duration::from_nanos(finished_ns.into_inner());
        let cpu = match (cpu_start, mem::process_cpu_time().ok()) {
            (Some(a), Some(b)) => Some(b.saturating_sub(a)),
            _ => None,
        };
        Ok(TrialSample {
            bytes: bytes.into_inner(),
            reads: reads.into_inner(),
            elapsed,
            cpu,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A scratch file of `blocks` × 64 KiB, each block filled with its own number.
    /// A test that cannot run here says so, and fails instead under HDPARM_RS_REQUIRE_ALL=1
    /// (CI), where a skip must not count as a pass.
    fn skip(why: &str) {
        assert!(
            std::env::var("HDPARM_RS_REQUIRE_ALL").as_deref() != Ok("1"),
            "cannot run: {why}"
        );
        eprintln!("SKIPPED: {why}");
    }

    fn scratch_file(name: &str, blocks: u8) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("hdparm-rs-reader-{}-{name}", std::process::id()));
        let mut f = File::create(&path).expect("create scratch file");
        for b in 0..blocks {
            f.write_all(&vec![b; 64 << 10]).expect("fill scratch file");
        }
        f.sync_all().expect("sync scratch file");
        path
    }

    #[test]
    fn fd_target_reads_seeks_and_shares_the_offset() {
        let path = scratch_file("target", 4);
        let file = File::open(&path).unwrap();
        let mut t = FdTarget::new(file.as_fd()).unwrap();
        let mut buf = vec![0u8; 64 << 10];
        assert_eq!(t.read_block(&mut buf).unwrap(), 64 << 10);
        assert!(buf.iter().all(|&b| b == 0));
        assert_eq!(t.seek(3 * (64 << 10)).unwrap(), 3 * (64 << 10));
        assert_eq!(t.read_block(&mut buf).unwrap(), 64 << 10);
        assert!(buf.iter().all(|&b| b == 3));
        assert_eq!(t.read_block(&mut buf).unwrap(), 0, "end of file");
        // The duplicate shares the offset with the executor's descriptor.
        assert_eq!((&file).stream_position().unwrap(), 4 * (64 << 10));
        assert_eq!(
            size_sectors_by_seek(file.as_fd()).unwrap(),
            4 * (64 << 10) / 512
        );
        assert_eq!(
            (&file).stream_position().unwrap(),
            4 * (64 << 10),
            "size query restores the offset"
        );
        // No block buffer cache on a regular file: the flush is quiet and succeeds.
        t.flush_buffer_cache().expect("flush of a regular file");
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn timing_buffer_is_two_mib_and_writable() {
        // mlock may be refused to an unprivileged user with a small RLIMIT_MEMLOCK; then the
        // error must carry hdparm's message.
        match TimingBuffer::prepare()
            .and_then(|a| Ok((a, TimingBuffer::prepare_for_large_reads()?)))
        {
            Ok((mut a, mut b)) => {
                for buf in [&mut a, &mut b] {
                    let s = buf.as_mut_slice();
                    assert_eq!(s.len(), TIMING_BUF_BYTES);
                    s[TIMING_BUF_BYTES - 1] = 1;
                }
                // --surface's lies on a huge page boundary, so that one folio can back it.
                assert_eq!(b.as_mut_slice().as_ptr() as usize % mem::HUGE_PAGE, 0);
            }
            Err(e) => assert!(
                e.message.starts_with("mlock() failed on timing buf: "),
                "{}",
                e.message
            ),
        }
    }

    fn run_engine(engine: &mut dyn BenchEngine, plan: &OffsetPlan) -> TrialSample {
        let mut calls = 0;
        let mut latency = LatencyHistogram::new();
        let sample = engine
            .run_trial(
                plan,
                0,
                Duration::from_millis(500),
                &mut latency,
                &mut |_, _| calls += 1,
            )
            .expect("trial");
        assert!(calls > 0, "progress was reported");
        assert_eq!(latency.count(), sample.reads, "every read was timed");
        assert!(latency.percentile_seconds(50.0).unwrap() > 0.0);
        sample
    }

    #[test]
    fn both_engines_read_whole_blocks_of_a_file() {
        let path = scratch_file("engines", 16);
        let file = match open_direct(&path) {
            Ok(f) => f,
            // Some file systems (tmpfs before 6.6) refuse O_DIRECT; nothing to test then.
            Err(e) if e.errno == Some(libc::EINVAL) => {
                return skip("O_DIRECT refused by the temp dir")
            }
            Err(e) => panic!("{}", e.message),
        };
        let plan = OffsetPlan::new(0, 16 * (64 << 10), 64 << 10, false, 0).unwrap();
        let mut threads = ThreadEngine::new(&file, 3, 64 << 10).unwrap();
        let s = run_engine(&mut threads, &plan);
        assert!(s.reads > 0 && s.bytes == s.reads * (64 << 10), "{s:?}");
        match UringEngine::new(&file, 4, 64 << 10) {
            Ok(mut uring) => {
                let s = run_engine(&mut uring, &plan);
                assert!(s.reads > 0 && s.bytes == s.reads * (64 << 10), "{s:?}");
                // A second trial on the same ring works (nothing left in flight).
                let s = run_engine(&mut uring, &plan);
                assert!(s.reads > 0);
            }
            Err(e) => skip(&format!("io_uring unavailable here: {e}")),
        }
        let _ = std::fs::remove_file(&path);
    }

    #[test]
    fn a_read_past_the_end_is_reported_with_its_offset() {
        let path = scratch_file("eof", 2);
        let file = match open_direct(&path) {
            Ok(f) => f,
            Err(e) if e.errno == Some(libc::EINVAL) => {
                return skip("O_DIRECT refused by the temp dir")
            }
            Err(e) => panic!("{}", e.message),
        };
        // A plan that believes the file is 4 blocks long.
        let plan = OffsetPlan::new(0, 4 * (64 << 10), 64 << 10, false, 0).unwrap();
        let mut threads = ThreadEngine::new(&file, 1, 64 << 10).unwrap();
        let e = threads
            .run_trial(
                &plan,
                0,
                Duration::from_secs(5),
                &mut LatencyHistogram::new(),
                &mut |_, _| {},
            )
            .unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "bench: read at offset {} hit the end of the device",
                2 * (64 << 10)
            )
        );
        if let Ok(mut uring) = UringEngine::new(&file, 4, 64 << 10) {
            let e = uring
                .run_trial(
                    &plan,
                    0,
                    Duration::from_secs(5),
                    &mut LatencyHistogram::new(),
                    &mut |_, _| {},
                )
                .unwrap_err();
            assert!(
                e.message.contains("hit the end of the device"),
                "{}",
                e.message
            );
        }
        let _ = std::fs::remove_file(&path);
    }
}
