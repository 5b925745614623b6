//! Timing's reader traits over the device's reads: the `-T`/`-t` target ([`FdTarget`] as a
//! [`TimingTarget`]) and the two `--bench` engines (io_uring, and threads doing `pread` where
//! io_uring is unavailable). Here, between the two, so that `timing` stays pure and `device`
//! imports nothing of `timing`: the loops and the statistics are timing's, the ring, the
//! mapped buffers and the descriptor are device's.
//!
//! What it must not do: format or decide what to measure; it reads what the loops ask.

use std::fs::File;
use std::io;
use std::os::fd::AsFd;
use std::os::unix::fs::FileExt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use crate::device::fd_target::FdTarget;
use crate::device::sys::mem::{self, MappedBuffer};
use crate::device::sys::uring::{Completion, ReadRing};
use crate::error::{Error, ErrorClass};
use crate::timing::bench::{BenchEngine, BenchOptions, EngineChoice, OffsetPlan, TrialSample};
use crate::timing::latency::LatencyHistogram;
use crate::timing::reads::TimingTarget;

impl TimingTarget for FdTarget<'_> {
    fn seek(&mut self, offset: u64) -> io::Result<u64> {
        FdTarget::seek(self, offset)
    }

    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        FdTarget::read_block(self, buf)
    }

    fn flush_buffer_cache(&mut self) -> Result<(), Error> {
        FdTarget::flush_buffer_cache(self)
    }

    fn size_bytes(&mut self) -> Option<u64> {
        FdTarget::size_bytes(self)
    }
}

/// The process's CPU time since `start` (None when either reading failed).
fn cpu_since(start: Option<Duration>) -> Option<Duration> {
    Some(mem::process_cpu_time().ok()?.saturating_sub(start?))
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
        let cpu = cpu_since(cpu_start);
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
        let cpu = cpu_since(cpu_start);
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
    use crate::device::fd_target::open_direct;
    use crate::device::fd_target::tests::{scratch_file, skip};

    /// The scratch file opened with O_DIRECT; None, having said so, where the temp dir's file
    /// system refuses O_DIRECT (tmpfs before 6.6): nothing to test then.
    fn open_direct_or_skip(path: &std::path::Path) -> Option<std::fs::File> {
        match open_direct(path) {
            Ok(f) => Some(f),
            Err(e) if e.errno == Some(libc::EINVAL) => {
                skip("O_DIRECT refused by the temp dir");
                None
            }
            Err(e) => panic!("{}", e.message),
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
        let Some(file) = open_direct_or_skip(&path) else {
            return;
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
        let Some(file) = open_direct_or_skip(&path) else {
            return;
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
