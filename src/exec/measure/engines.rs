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
use crate::timing::bench::{
    BenchEngine, BenchOptions, EngineChoice, OffsetPlan, Trial, TrialSample,
};
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

/// When a trial began, by the process's CPU time (user + system) and by the wall clock, and
/// when it stops submitting reads.
struct TrialClock {
    cpu: Option<Duration>,
    start: Instant,
    deadline: Instant,
}

impl TrialClock {
    fn start(duration: Duration) -> TrialClock {
        let cpu = mem::process_cpu_time().ok();
        let start = Instant::now();
        TrialClock {
            cpu,
            start,
            deadline: start + duration,
        }
    }

    /// The trial's sample, with the CPU time spent since the start (None when either reading
    /// of it failed).
    fn sample(&self, bytes: u64, reads: u64, elapsed: Duration) -> TrialSample {
        let cpu = mem::process_cpu_time()
            .ok()
            .zip(self.cpu)
            .map(|(now, start)| now.saturating_sub(start));
        TrialSample {
            bytes,
            reads,
            elapsed,
            cpu,
        }
    }
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

/// The io_uring engine's reads in flight: which offset each slot is reading (for the error
/// message) and since when, and the plan's next read.
struct InFlight<'p> {
    plan: &'p OffsetPlan,
    next: u64,
    offset: Vec<u64>,
    since: Vec<Instant>,
}

impl InFlight<'_> {
    /// Queues the plan's next read into `slot`.
    fn queue(&mut self, ring: &mut ReadRing<'_>, slot: u32) -> Result<(), Error> {
        let offset = self.plan.offset(self.next);
        self.next = self.next.wrapping_add(1);
        self.offset[slot as usize] = offset;
        self.since[slot as usize] = Instant::now();
        ring.queue_read(slot, offset)
            .map_err(|e| read_error(offset, &e))
    }
}

impl BenchEngine for UringEngine<'_> {
    fn name(&self) -> String {
        "io_uring".to_string()
    }

    fn run_trial(&mut self, trial: Trial<'_>) -> Result<TrialSample, Error> {
        let clock = TrialClock::start(trial.duration);
        let (start, deadline) = (clock.start, clock.deadline);
        let mut flight = InFlight {
            plan: trial.plan,
            next: trial.first_index,
            offset: vec![0u64; self.ring.depth() as usize],
            since: vec![start; self.ring.depth() as usize],
        };
        for slot in 0..self.ring.depth() {
            flight.queue(&mut self.ring, slot)?;
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
                let at = flight.offset[slot as usize];
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
                trial
                    .latency
                    .record(now.saturating_duration_since(flight.since[slot as usize]));
                if !stopping {
                    flight.queue(&mut self.ring, slot)?;
                }
            }
            (trial.progress)(bytes, now - start);
        }
        if let Some(e) = failure {
            return Err(e);
        }
        Ok(clock.sample(bytes, reads, start.elapsed()))
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

    fn run_trial(&mut self, trial: Trial<'_>) -> Result<TrialSample, Error> {
        let clock = TrialClock::start(trial.duration);
        let (start, deadline) = (clock.start, clock.deadline);
        let plan = trial.plan;
        let next = AtomicU64::new(trial.first_index);
        // Each thread counts its own latencies and adds them in at its end.
        let latencies = Mutex::new(trial.latency);
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
                (trial.progress)(bytes.load(Ordering::Relaxed), start.elapsed());
            }
        });
        if let Some(e) = failure.lock().ok().and_then(|mut f| f.take()) {
            return Err(e);
        }
        let elapsed = Duration::from_nanos(finished_ns.into_inner());
        Ok(clock.sample(bytes.into_inner(), reads.into_inner(), elapsed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::fd_target::open_direct;
    use crate::device::fd_target::tests::{scratch_file, skip};

    /// The 64 KiB blocks of [`scratch_file`].
    const BLOCK: u32 = 64 << 10;

    /// A scratch file of `blocks` blocks opened with O_DIRECT, and a plan that reads
    /// `plan_blocks` of them in order; None, having said so, where the temp dir's file system
    /// refuses O_DIRECT (tmpfs before 6.6): nothing to test then.
    fn direct_scratch(
        name: &str,
        blocks: u8,
        plan_blocks: u64,
    ) -> Option<(std::path::PathBuf, std::fs::File, OffsetPlan)> {
        let path = scratch_file(name, blocks);
        let plan =
            OffsetPlan::new(0, plan_blocks * u64::from(BLOCK), BLOCK.into(), false, 0).unwrap();
        match open_direct(&path) {
            Ok(f) => Some((path, f, plan)),
            Err(e) if e.errno == Some(libc::EINVAL) => {
                skip("O_DIRECT refused by the temp dir");
                None
            }
            Err(e) => panic!("{}", e.message),
        }
    }

    /// One trial from the plan's first read, with the latencies it recorded and how often it
    /// reported progress.
    fn trial(
        engine: &mut dyn BenchEngine,
        plan: &OffsetPlan,
        duration: Duration,
    ) -> (Result<TrialSample, Error>, LatencyHistogram, u32) {
        let mut calls = 0;
        let mut latency = LatencyHistogram::new();
        let result = engine.run_trial(Trial {
            plan,
            first_index: 0,
            duration,
            latency: &mut latency,
            progress: &mut |_, _| calls += 1,
        });
        (result, latency, calls)
    }

    fn run_engine(engine: &mut dyn BenchEngine, plan: &OffsetPlan) -> TrialSample {
        let (result, latency, calls) = trial(engine, plan, Duration::from_millis(500));
        let sample = result.expect("trial");
        assert!(calls > 0, "progress was reported");
        assert_eq!(latency.count(), sample.reads, "every read was timed");
        assert!(latency.percentile_seconds(50.0).unwrap() > 0.0);
        sample
    }

    #[test]
    fn both_engines_read_whole_blocks_of_a_file() {
        let Some((path, file, plan)) = direct_scratch("engines", 16, 16) else {
            return;
        };
        let mut threads = ThreadEngine::new(&file, 3, BLOCK).unwrap();
        let s = run_engine(&mut threads, &plan);
        assert!(
            s.reads > 0 && s.bytes == s.reads * u64::from(BLOCK),
            "{s:?}"
        );
        match UringEngine::new(&file, 4, BLOCK) {
            Ok(mut uring) => {
                let s = run_engine(&mut uring, &plan);
                assert!(
                    s.reads > 0 && s.bytes == s.reads * u64::from(BLOCK),
                    "{s:?}"
                );
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
        // A plan that believes the file is 4 blocks long.
        let Some((path, file, plan)) = direct_scratch("eof", 2, 4) else {
            return;
        };
        let mut threads = ThreadEngine::new(&file, 1, BLOCK).unwrap();
        let e = trial(&mut threads, &plan, Duration::from_secs(5))
            .0
            .unwrap_err();
        assert_eq!(
            e.message,
            format!(
                "bench: read at offset {} hit the end of the device",
                2 * u64::from(BLOCK)
            )
        );
        if let Ok(mut uring) = UringEngine::new(&file, 4, BLOCK) {
            let e = trial(&mut uring, &plan, Duration::from_secs(5))
                .0
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
