//! The per-device timing steps the executor calls, in hdparm's order (reference §3):
//! step 67 [`time_cache`] (`-T`), step 69 [`time_device`] (`-t`), and our [`bench`] after them.
//! Each puts the real clock, sleeper, buffer and reader around the pure loops of `timing`.
//!
//! # For the executor
//!
//! ```text
//! let ctx = TimingContext { path, fd, size_sectors, flags };
//! if flags.time_cache  { report(time_cache(&ctx, stdout, stderr)) }      // step 67
//! ...                                                                     // step 68 (-F)
//! if flags.time_device { report(time_device(&ctx, stdout, stderr)) }     // step 69
//! if flags.bench.is_some() { report(bench(&ctx, stdout, stderr, stderr_is_terminal)) }
//! if flags.flush_buffers || flags.time_device {                          // step 70
//!     report(device::flush::flush_buffer_cache(fd))
//! }
//! ```
//!
//! * `fd` is the descriptor the executor opened the device with: `O_RDONLY | O_NONBLOCK`, plus
//!   `O_DIRECT` when `flags.direct` (the reads go through that descriptor and inherit it).
//! * `size_sectors` is the device size in 512-byte sectors as the device layer finds it (sysfs
//!   `size`, `BLKGETSIZE64`, `BLKGETSIZE`), `None` when unknown (then `-t` reads at most 1024
//!   blocks, and the benchmark finds the size by seeking to the end).
//! * On `Err`, nothing about the error has been printed: print `error.message` and a newline
//!   on stderr, right away (hdparm prints it at that moment, after the already flushed
//!   ` Timing ...: ` prefix, which is left without a newline exactly as hdparm leaves it).
//!   Warnings that do not stop the timing (`BLKFLSBUF failed: ...`) are printed here.
//! * `-t` implies the step-70 buffer-cache flush, as in hdparm; `-T` alone does not (it flushes
//!   inside its own sequence).
//! * With `flags.json` nothing is printed on stdout; the returned figure or report is the data.
//!
//! What it must not do: open the device for `-T`/`-t` (the executor did), or decide the order.

pub(crate) mod engines;

use std::io::{self, Write};
use std::os::fd::BorrowedFd;
use std::path::Path;

use crate::cli::Flags;
use crate::device::fd_target::{self, FdTarget};
use crate::device::read_buffer::TimingBuffer;
use crate::error::{Error, ErrorClass};
use crate::timing::bench::{run_bench, BenchOptions, BenchReport, OffsetPlan};
use crate::timing::clock::{MonotonicClock, ThreadSleeper};
use crate::timing::reads::{self, Env, ReadFigure};

/// What a timing step needs to know about the device.
#[derive(Clone, Copy, Debug)]
pub struct TimingContext<'a> {
    /// The device as named on the command line.
    pub path: &'a Path,
    /// The executor's descriptor for it.
    pub fd: BorrowedFd<'a>,
    /// Size in 512-byte sectors, when known.
    pub size_sectors: Option<u64>,
    pub flags: &'a Flags,
}

fn text_out<'w>(
    flags: &Flags,
    stdout: &'w mut dyn Write,
    sink: &'w mut io::Sink,
) -> &'w mut dyn Write {
    if flags.json {
        sink
    } else {
        stdout
    }
}

fn reader_for<'a>(ctx: &TimingContext<'a>) -> Result<FdTarget<'a>, Error> {
    FdTarget::new(ctx.fd).map_err(|e| Error::os(ErrorClass::Failed, "dup() failed", &e))
}

/// Runs one of hdparm's timing loops with the real clock, sleeper, locked buffer and a reader on
/// `ctx.fd`; the text goes to `stdout` unless JSON was asked for.
fn with_timing_env<T>(
    ctx: &TimingContext<'_>,
    stdout: &mut dyn Write,
    timing: impl FnOnce(&mut Env<'_>, &mut [u8], &mut dyn Write) -> Result<T, Error>,
) -> Result<T, Error> {
    let mut target = reader_for(ctx)?;
    let mut buffer = TimingBuffer::prepare(crate::timing::reads::TIMING_BUF_BYTES)?;
    let mut clock = MonotonicClock::new();
    let mut sleeper = ThreadSleeper;
    let mut env = Env {
        clock: &mut clock,
        sleeper: &mut sleeper,
        target: &mut target,
    };
    let mut sink = io::sink();
    let out = text_out(ctx.flags, stdout, &mut sink);
    timing(&mut env, buffer.as_mut_slice(), out)
}

/// `-T`: hdparm's cached-read timing on `ctx.fd` (about 7 s: 3 s settle, 1 s, 2 s, 1 s).
pub fn time_cache(
    ctx: &TimingContext<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> Result<ReadFigure, Error> {
    with_timing_env(ctx, stdout, |env, buf, out| {
        reads::time_cache(env, buf, ctx.flags.direct, out, stderr)
    })
}

/// `-t`: hdparm's device-read timing on `ctx.fd`, from `--offset` when given (about 6 s).
pub fn time_device(
    ctx: &TimingContext<'_>,
    stdout: &mut dyn Write,
    _stderr: &mut dyn Write,
) -> Result<ReadFigure, Error> {
    with_timing_env(ctx, stdout, |env, buf, out| {
        reads::time_device(
            env,
            buf,
            ctx.flags.direct,
            ctx.flags.offset_gib,
            ctx.size_sectors,
            out,
        )
    })
}

/// `--bench`: repeated trials of `O_DIRECT` reads at depth (see `timing::bench` for the
/// options and the output). Opens `ctx.path` itself with `O_DIRECT`. `progress` says whether
/// to draw the progress line on `stderr` (pass `stderr.is_terminal()`).
pub fn bench(
    ctx: &TimingContext<'_>,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    progress: bool,
) -> Result<BenchReport, Error> {
    let options = ctx.flags.bench.clone().unwrap_or_default();
    bench_with(ctx, &options, stdout, stderr, progress)
}

/// [`bench`] with explicit options (tests and the example use it to pick the engine).
pub fn bench_with(
    ctx: &TimingContext<'_>,
    options: &BenchOptions,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    progress: bool,
) -> Result<BenchReport, Error> {
    options.validate().map_err(Error::usage)?;
    let file = fd_target::open_direct(ctx.path)?;
    let size_bytes = match ctx.size_sectors {
        Some(s) => s.saturating_mul(512),
        None => {
            use std::os::fd::AsFd;
            fd_target::size_sectors_by_seek(file.as_fd())
                .map_err(|e| {
                    Error::os(ErrorClass::Failed, "bench: cannot find the device size", &e)
                })?
                .saturating_mul(512)
        }
    };
    let start = ctx.flags.offset_gib.map(reads::offset_bytes).unwrap_or(0);
    let span = size_bytes.saturating_sub(start);
    let seed = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0x5eed);
    let plan = OffsetPlan::new(start, span, options.block_size, options.random, seed).ok_or_else(
        || {
            // Say what would fit: the largest multiple of 512 bytes the span holds (at least
            // one sector), as a --bench-bs value.
            let fits = (span / 512 * 512).max(512);
            Error::failed(format!(
                "bench: {} has {} bytes from offset {}, less than one {}-byte block; try --bench-bs {}",
                ctx.path.display(),
                span,
                start,
                options.block_size,
                if fits % 1024 == 0 { format!("{}K", fits / 1024) } else { fits.to_string() }
            ))
        },
    )?;
    let mut engine = crate::exec::measure::engines::bench_engine(&file, options)?;
    let out: Option<&mut dyn Write> = if ctx.flags.json { None } else { Some(stdout) };
    let progress_sink: Option<&mut dyn Write> = if progress { Some(stderr) } else { None };
    run_bench(engine.as_mut(), options, &plan, out, progress_sink)
}
