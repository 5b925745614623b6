//! hdparm's two read timings, `-T` (cached reads) and `-t` (device reads), as loops over an
//! injected clock, sleeper and target, and the lines they print (reference §6).
//!
//! The sequences, as hdparm 9.65 runs them:
//!
//! * both start after the caller has prepared the 2 MiB buffer (anonymous `mmap`, every page
//!   touched, `mlock`, `mlockall`, `sync`); the loops here begin with the 3 s settle sleep.
//! * `-T`: seek to 0 and read one block (priming the cache); print ` Timing cached reads:   `
//!   (or ` Timing O_DIRECT cached reads:   `) and flush stdout; flush the buffer cache and
//!   sleep 1 s; then { seek 0, read 2 MiB } until 2.0 s have passed; then time as many
//!   { seek 0, read the clock } as there were reads and subtract that overhead; print the
//!   result; flush the buffer cache and sleep 1 s.
//! * `-t`: the read limit is the device size in 2 MiB blocks (1024 when unknown); print
//!   ` Timing buffered disk reads` (or `O_DIRECT`), ` (offset N GB)` with `--offset`, and `: `;
//!   seek to the offset if one was given; read 2 MiB blocks until 3.0 s have passed or the
//!   limit is reached; print the result.
//!
//! Result line: `%3u MB in %5.2f seconds = %6.2f MB/sec`, or `kB/sec` with the rate × 1024 when
//! the rate is below 1 MB/s (`-T` tests `MB >= seconds`, `-t` tests `MB / seconds > 1.0`:
//! hdparm's two spellings of the same rule, kept apart because they differ at exactly 1 MB/s).
//! MB is 2^20 bytes.
//!
//! Errors stop the timing with hdparm's message and no figure: `lseek() failed: <err>`,
//! `read() failed: <err>`, `read() hit EOF - device too small`, `read(2097152) returned N
//! bytes`. The message is returned, not printed: the caller prints it (hdparm prints it at the
//! same moment, after the already flushed prefix). A failed buffer-cache flush is not fatal:
//! its message (`BLKFLSBUF failed: <err>`) goes to stderr and the timing goes on, as in hdparm.
//!
//! What it must not do: open, map or lock anything, or read the real time. All of that comes
//! in through [`Clock`], [`Sleeper`] and [`TimingTarget`].

use std::cmp::Ordering;
use std::io::{self, Write};
use std::time::Duration;

use serde::Serialize;

use super::clock::{elapsed_seconds, Clock, Sleeper};
use super::printf::c_fixed;
use crate::error::{Error, ErrorClass};

/// hdparm's timing block: 2 MiB.
pub const TIMING_BUF_BYTES: usize = 2 * 1024 * 1024;
/// The same in MB (2^20 bytes), the unit of the printed count.
pub const TIMING_BUF_MB: u32 = 2;
/// The sleep after `sync` that lets outstanding I/O settle before any timing.
pub const SETTLE: Duration = Duration::from_secs(3);
/// The sleep after each buffer-cache flush of `-T`.
pub const AFTER_FLUSH: Duration = Duration::from_secs(1);
/// How long `-T` reads for.
pub const CACHE_SECONDS: f64 = 2.0;
/// How long `-t` reads for (at most).
pub const DEVICE_SECONDS: f64 = 3.0;
/// `-t`'s read limit when the device size is unknown.
pub const DEFAULT_MAX_ITERATIONS: u32 = 1024;

/// The thing being timed: a file descriptor in real life, a script in tests.
pub trait TimingTarget {
    /// `lseek(fd, offset, SEEK_SET)`; returns the new position.
    fn seek(&mut self, offset: u64) -> io::Result<u64>;
    /// One `read(fd, buf, buf.len())`; returns the byte count (0 at end of file).
    fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize>;
    /// hdparm's buffer-cache flush routine (reference §6.1). An error carries the line to print.
    fn flush_buffer_cache(&mut self) -> Result<(), Error>;
    /// The size of what is read, as it is now (a device can shrink or go away under a long
    /// scan); None when it cannot be told.
    fn size_bytes(&mut self) -> Option<u64> {
        None
    }
}

/// Everything a timing loop is given.
pub struct Env<'a> {
    pub clock: &'a mut dyn Clock,
    pub sleeper: &'a mut dyn Sleeper,
    pub target: &'a mut dyn TimingTarget,
}

/// Which of the two timings a figure comes from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum TimingKind {
    /// `-T`
    Cached,
    /// `-t`
    Device,
}

/// -T or -t: the outcome of one timing, as printed and as data.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReadFigure {
    pub kind: TimingKind,
    /// `--direct` was in force.
    pub direct: bool,
    /// `--offset` in bytes, for `-t`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub offset_bytes: Option<u64>,
    /// Bytes counted (hdparm's MB × 2^20).
    pub bytes: u64,
    /// Seconds as hdparm computes them (for `-T`, after the overhead correction).
    pub seconds: f64,
    /// MB (2^20 bytes) per second; may be infinite or NaN when `seconds` is 0 or negative
    /// (null in JSON).
    #[serde(serialize_with = "finite_or_null")]
    #[schemars(with = "Option<f64>")]
    pub mib_per_second: f64,
    /// The result text hdparm prints after the prefix, without the newline.
    #[serde(skip)]
    pub line: String,
}

fn finite_or_null<S: serde::Serializer>(v: &f64, s: S) -> Result<S::Ok, S::Error> {
    if v.is_finite() {
        s.serialize_f64(*v)
    } else {
        s.serialize_none()
    }
}

/// The result text: `%3u MB in %5.2f seconds = %6.2f MB/sec` or the `kB/sec` form.
pub fn result_line(total_mb: u32, seconds: f64, kilobytes: bool) -> String {
    let rate = f64::from(total_mb) / seconds;
    if kilobytes {
        format!(
            "{total_mb:3} MB in {} seconds = {} kB/sec",
            c_fixed(seconds, 5, 2),
            c_fixed(rate * 1024.0, 6, 2)
        )
    } else {
        format!(
            "{total_mb:3} MB in {} seconds = {} MB/sec",
            c_fixed(seconds, 5, 2),
            c_fixed(rate, 6, 2)
        )
    }
}

/// `-T`'s choice of unit: MB/sec when `MB >= seconds` (so NaN seconds give kB/sec).
pub fn cache_uses_kilobytes(total_mb: u32, seconds: f64) -> bool {
    // Written with partial_cmp so that NaN (incomparable) falls to kB/sec, as C's `>=` does.
    !matches!(
        f64::from(total_mb).partial_cmp(&seconds),
        Some(Ordering::Greater | Ordering::Equal)
    )
}

/// `-t`'s choice of unit: MB/sec when `MB / seconds > 1.0`.
pub fn device_uses_kilobytes(total_mb: u32, seconds: f64) -> bool {
    !matches!(
        (f64::from(total_mb) / seconds).partial_cmp(&1.0),
        Some(Ordering::Greater)
    )
}

/// The prefix `-T` prints before measuring.
pub fn cache_prefix(direct: bool) -> &'static str {
    if direct {
        " Timing O_DIRECT cached reads:   "
    } else {
        " Timing cached reads:   "
    }
}

/// The prefix `-t` prints before measuring.
pub fn device_prefix(direct: bool, offset_gib: Option<u64>) -> String {
    let mut s = String::from(if direct {
        " Timing O_DIRECT disk reads"
    } else {
        " Timing buffered disk reads"
    });
    if let Some(n) = offset_gib {
        // hdparm keeps the offset in bytes (N × 2^30, wrapping like its 64-bit arithmetic)
        // and prints it divided back.
        s.push_str(&format!(" (offset {} GB)", offset_bytes(n) >> 30));
    }
    s.push_str(": ");
    s
}

/// `--offset N` in bytes, as hdparm's unsigned 64-bit multiply computes it.
pub fn offset_bytes(offset_gib: u64) -> u64 {
    offset_gib.wrapping_mul(1 << 30)
}

/// `-t`'s read limit from the device size in 512-byte sectors (hdparm: sectors / 2048 / 2,
/// kept in an unsigned int).
pub fn max_iterations(size_sectors: Option<u64>) -> u32 {
    match size_sectors {
        Some(sectors) => (sectors / (2 * 1024) / u64::from(TIMING_BUF_MB)) as u32,
        None => DEFAULT_MAX_ITERATIONS,
    }
}

fn write_out(out: &mut dyn Write, text: &str) -> Result<(), Error> {
    out.write_all(text.as_bytes())
        .and_then(|()| out.flush())
        .map_err(|e| Error::os(ErrorClass::Failed, "write to stdout failed", &e))
}

fn seek_error(e: &io::Error) -> Error {
    // Past the end of a block device lseek says EINVAL: the offset asked for does not fit
    // this device, which is a bad value (hdparm exits 22 there too). That EINVAL is about our
    // argument, not about the device, so it is not the errno's usual class.
    let class = if e.raw_os_error() == Some(libc::EINVAL) {
        ErrorClass::Usage
    } else {
        ErrorClass::of_io(e)
    };
    Error::os(class, "lseek() failed", e)
}

/// One timed read of a full block, with hdparm's three ways to fail. After a full read every
/// 512th byte is touched (hdparm does it to be sure the data is really there).
fn read_big_block(target: &mut dyn TimingTarget, buf: &mut [u8]) -> Result<(), Error> {
    match target.read_block(buf) {
        Ok(n) if n == buf.len() => {
            let mut at = 0;
            while at < buf.len() {
                buf[at] &= 1;
                at += 512;
            }
            Ok(())
        }
        Ok(0) => Err(Error::failed("read() hit EOF - device too small")),
        Ok(n) => Err(Error::failed(format!(
            "read({}) returned {} bytes",
            buf.len(),
            n
        ))),
        Err(e) => Err(Error::os(ErrorClass::Failed, "read() failed", &e)),
    }
}

fn seek_to_zero(target: &mut dyn TimingTarget) -> Result<(), Error> {
    match target.seek(0) {
        Ok(0) => Ok(()),
        // lseek to 0 cannot land elsewhere; hdparm treats any non-zero return as failure.
        Ok(_) => Err(Error::failed("lseek() failed: Invalid argument")),
        Err(e) => Err(seek_error(&e)),
    }
}

fn flush_and_report(target: &mut dyn TimingTarget, err: &mut dyn Write) {
    if let Err(e) = target.flush_buffer_cache() {
        let _ = writeln!(err, "{}", e.message);
    }
}

/// `-T`: time reads of the first 2 MiB, which after the first read come from the cache (or,
/// with `--direct`, from the device every time). `buf` is the prepared 2 MiB buffer.
pub fn time_cache(
    env: &mut Env<'_>,
    buf: &mut [u8],
    direct: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> Result<ReadFigure, Error> {
    env.sleeper.sleep(SETTLE);
    seek_to_zero(env.target)?;
    read_big_block(env.target, buf)?;
    write_out(out, cache_prefix(direct))?;

    flush_and_report(env.target, err);
    env.sleeper.sleep(AFTER_FLUSH);

    let mut iterations: u32 = 0;
    let start = env.clock.now();
    let mut elapsed;
    loop {
        iterations = iterations.wrapping_add(1);
        seek_to_zero(env.target)?;
        read_big_block(env.target, buf)?;
        elapsed = elapsed_seconds(start, env.clock.now());
        if elapsed >= CACHE_SECONDS {
            break;
        }
    }
    let total_mb = iterations.wrapping_mul(TIMING_BUF_MB);

    // The overhead of what the loop did besides reading: as many seeks and clock readings.
    let start = env.clock.now();
    let mut overhead;
    loop {
        seek_to_zero(env.target)?;
        overhead = elapsed_seconds(start, env.clock.now());
        // As many rounds as there were reads (at least one: the loop above ran once).
        if iterations <= 1 {
            break;
        }
        iterations -= 1;
    }
    let seconds = elapsed - overhead;

    let kilobytes = cache_uses_kilobytes(total_mb, seconds);
    let line = result_line(total_mb, seconds, kilobytes);
    write_out(out, &format!("{line}\n"))?;

    flush_and_report(env.target, err);
    env.sleeper.sleep(AFTER_FLUSH);

    Ok(ReadFigure {
        kind: TimingKind::Cached,
        direct,
        offset_bytes: None,
        bytes: u64::from(total_mb) << 20,
        seconds,
        mib_per_second: f64::from(total_mb) / seconds,
        line,
    })
}

/// `-t`: time sequential 2 MiB reads from the start (or `--offset`) of the device.
/// `size_sectors` is the device size in 512-byte sectors, when known.
pub fn time_device(
    env: &mut Env<'_>,
    buf: &mut [u8],
    direct: bool,
    offset_gib: Option<u64>,
    size_sectors: Option<u64>,
    out: &mut dyn Write,
) -> Result<ReadFigure, Error> {
    let max = max_iterations(size_sectors);
    env.sleeper.sleep(SETTLE);
    write_out(out, &device_prefix(direct, offset_gib))?;

    if let Some(n) = offset_gib {
        env.target
            .seek(offset_bytes(n))
            .map_err(|e| seek_error(&e))?;
    }

    let mut iterations: u32 = 0;
    let start = env.clock.now();
    let mut elapsed;
    loop {
        iterations = iterations.wrapping_add(1);
        read_big_block(env.target, buf)?;
        elapsed = elapsed_seconds(start, env.clock.now());
        if !(elapsed < DEVICE_SECONDS && iterations < max) {
            break;
        }
    }
    let total_mb = iterations.wrapping_mul(TIMING_BUF_MB);
    let kilobytes = device_uses_kilobytes(total_mb, elapsed);
    let line = result_line(total_mb, elapsed, kilobytes);
    write_out(out, &format!("{line}\n"))?;

    Ok(ReadFigure {
        kind: TimingKind::Device,
        direct,
        offset_bytes: offset_gib.map(offset_bytes),
        bytes: u64::from(total_mb) << 20,
        seconds: elapsed,
        mib_per_second: f64::from(total_mb) / elapsed,
        line,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::Cell;
    use std::rc::Rc;

    /// A fake clock shared by the clock, the sleeper and the target: reads and seeks cost
    /// scripted amounts of time.
    #[derive(Clone, Default)]
    struct FakeTime(Rc<Cell<Duration>>);

    impl FakeTime {
        fn advance(&self, d: Duration) {
            self.0.set(self.0.get() + d);
        }
        fn get(&self) -> Duration {
            self.0.get()
        }
    }

    impl Clock for FakeTime {
        fn now(&mut self) -> Duration {
            self.get()
        }
    }

    impl Sleeper for FakeTime {
        fn sleep(&mut self, d: Duration) {
            self.advance(d);
        }
    }

    #[derive(Debug, Clone, PartialEq, Eq)]
    enum Op {
        Seek(u64),
        Read,
        Flush,
    }

    /// What the n-th read returns (by default a full block).
    #[derive(Clone, Copy)]
    enum ReadResult {
        Full,
        Short(usize),
        Eof,
        Fail(i32),
    }

    struct FakeTarget {
        time: FakeTime,
        read_cost: Duration,
        seek_cost: Duration,
        position: u64,
        size: u64,
        script: Vec<(usize, ReadResult)>,
        seek_fail: Option<i32>,
        flush_fail: bool,
        log: Vec<Op>,
        reads: usize,
    }

    impl FakeTarget {
        fn new(time: &FakeTime, read_cost: Duration) -> Self {
            FakeTarget {
                time: time.clone(),
                read_cost,
                seek_cost: Duration::ZERO,
                position: 0,
                size: u64::MAX,
                script: Vec::new(),
                seek_fail: None,
                flush_fail: false,
                log: Vec::new(),
                reads: 0,
            }
        }
    }

    impl TimingTarget for FakeTarget {
        fn seek(&mut self, offset: u64) -> io::Result<u64> {
            self.log.push(Op::Seek(offset));
            self.time.advance(self.seek_cost);
            if let Some(errno) = self.seek_fail {
                return Err(io::Error::from_raw_os_error(errno));
            }
            if offset > self.size {
                return Err(io::Error::from_raw_os_error(libc::EINVAL));
            }
            self.position = offset;
            Ok(offset)
        }
        fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.log.push(Op::Read);
            self.time.advance(self.read_cost);
            let n = self.reads;
            self.reads += 1;
            let scripted = self.script.iter().find(|(i, _)| *i == n).map(|(_, r)| *r);
            let result = match scripted.unwrap_or(ReadResult::Full) {
                ReadResult::Full => {
                    let left = self.size.saturating_sub(self.position);
                    (buf.len() as u64).min(left) as usize
                }
                ReadResult::Short(k) => k,
                ReadResult::Eof => 0,
                ReadResult::Fail(errno) => return Err(io::Error::from_raw_os_error(errno)),
            };
            self.position += result as u64;
            Ok(result)
        }
        fn flush_buffer_cache(&mut self) -> Result<(), Error> {
            self.log.push(Op::Flush);
            if self.flush_fail {
                return Err(Error::failed(
                    "BLKFLSBUF failed: Inappropriate ioctl for device",
                ));
            }
            Ok(())
        }
    }

    fn run_cache(
        target: &mut FakeTarget,
        direct: bool,
    ) -> (Result<ReadFigure, Error>, String, String) {
        let mut clock = target.time.clone();
        let mut sleeper = target.time.clone();
        let mut buf = vec![0u8; TIMING_BUF_BYTES];
        let mut out = Vec::new();
        let mut err = Vec::new();
        let r = {
            let mut env = Env {
                clock: &mut clock,
                sleeper: &mut sleeper,
                target,
            };
            time_cache(&mut env, &mut buf, direct, &mut out, &mut err)
        };
        (
            r,
            String::from_utf8(out).unwrap(),
            String::from_utf8(err).unwrap(),
        )
    }

    fn run_device(
        target: &mut FakeTarget,
        direct: bool,
        offset: Option<u64>,
        size: Option<u64>,
    ) -> (Result<ReadFigure, Error>, String) {
        let mut clock = target.time.clone();
        let mut sleeper = target.time.clone();
        let mut buf = vec![0u8; TIMING_BUF_BYTES];
        let mut out = Vec::new();
        let r = {
            let mut env = Env {
                clock: &mut clock,
                sleeper: &mut sleeper,
                target,
            };
            time_device(&mut env, &mut buf, direct, offset, size, &mut out)
        };
        (r, String::from_utf8(out).unwrap())
    }

    #[test]
    fn result_line_matches_hdparm_samples() {
        // Figures from the reference's verified samples, recomputed from count and time.
        assert_eq!(
            result_line(754, 3.017_206, false),
            "754 MB in  3.02 seconds = 249.90 MB/sec"
        );
        assert_eq!(
            result_line(2, 0.5, true),
            "  2 MB in  0.50 seconds = 4096.00 kB/sec"
        );
        assert_eq!(
            result_line(41082, 1.988_044, false),
            "41082 MB in  1.99 seconds = 20664.53 MB/sec"
        );
    }

    #[test]
    fn unit_rules_differ_exactly_at_one_megabyte_per_second() {
        // -T: MB >= seconds is MB/sec; -t: MB / seconds > 1 is MB/sec.
        assert!(!cache_uses_kilobytes(2, 2.0));
        assert!(device_uses_kilobytes(2, 2.0));
        assert!(cache_uses_kilobytes(2, 2.5));
        assert!(!device_uses_kilobytes(4, 2.0));
        assert!(cache_uses_kilobytes(2, f64::NAN));
    }

    #[test]
    fn prefixes_follow_direct_and_offset() {
        assert_eq!(cache_prefix(false), " Timing cached reads:   ");
        assert_eq!(cache_prefix(true), " Timing O_DIRECT cached reads:   ");
        assert_eq!(device_prefix(false, None), " Timing buffered disk reads: ");
        assert_eq!(
            device_prefix(true, Some(3)),
            " Timing O_DIRECT disk reads (offset 3 GB): "
        );
        // 2^34 GiB wraps to 0 bytes in hdparm's 64-bit multiply.
        assert_eq!(
            device_prefix(false, Some(1 << 34)),
            " Timing buffered disk reads (offset 0 GB): "
        );
    }

    #[test]
    fn max_iterations_is_the_size_in_2_mib_blocks() {
        assert_eq!(max_iterations(None), 1024);
        assert_eq!(max_iterations(Some(2048)), 0); // 1 MiB
        assert_eq!(max_iterations(Some(131_072)), 32); // 64 MiB
    }

    #[test]
    fn cache_timing_prints_prefix_and_corrected_figure() {
        let time = FakeTime::default();
        // 1 ms per read, 100 µs per seek: the loop stops at the first reading >= 2.0 s.
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.seek_cost = Duration::from_micros(100);
        let (r, out, err) = run_cache(&mut t, false);
        let fig = r.expect("timing");
        // Each iteration costs 1.1 ms; 1819 iterations reach 2.0009 s. Overhead: 1819 × 0.1 ms.
        assert_eq!(fig.bytes, 3638 << 20);
        assert!((fig.seconds - (2.0009 - 0.1819)).abs() < 1e-9);
        assert_eq!(
            out,
            " Timing cached reads:   3638 MB in  1.82 seconds = 2000.00 MB/sec\n"
        );
        assert_eq!(err, "");
        // Prime read, flush, timed loop, overhead loop, flush.
        assert_eq!(t.log[0], Op::Seek(0));
        assert_eq!(t.log[1], Op::Read);
        assert_eq!(t.log[2], Op::Flush);
        assert_eq!(t.log.last(), Some(&Op::Flush));
        assert_eq!(t.log.iter().filter(|o| **o == Op::Read).count(), 1 + 1819);
        assert_eq!(
            t.log.iter().filter(|o| **o == Op::Seek(0)).count(),
            1 + 1819 + 1819
        );
        // 3 s settle + 1 s + timed part + 1 s.
        assert!(time.get() >= Duration::from_secs(5) + Duration::from_millis(2000));
    }

    #[test]
    fn cache_timing_in_kilobytes_when_slow() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(2500));
        let (r, out, _) = run_cache(&mut t, true);
        r.expect("timing");
        assert_eq!(
            out,
            " Timing O_DIRECT cached reads:     2 MB in  2.50 seconds = 819.20 kB/sec\n"
        );
    }

    #[test]
    fn cache_timing_prime_read_failure_prints_nothing_on_stdout() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.size = 1 << 20;
        let (r, out, _) = run_cache(&mut t, false);
        let e = r.expect_err("short device");
        assert_eq!(e.message, "read(2097152) returned 1048576 bytes");
        assert_eq!(e.class, ErrorClass::Failed);
        assert_eq!(out, "");
    }

    #[test]
    fn cache_timing_read_error_mid_run_leaves_only_the_prefix() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.script = vec![(5, ReadResult::Fail(libc::EIO))];
        let (r, out, _) = run_cache(&mut t, false);
        let e = r.expect_err("read error");
        assert_eq!(e.message, "read() failed: Input/output error");
        assert_eq!(out, " Timing cached reads:   ");
    }

    #[test]
    fn cache_timing_reports_a_failed_flush_and_goes_on() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.flush_fail = true;
        let (r, out, err) = run_cache(&mut t, false);
        r.expect("timing");
        assert!(out.ends_with(" MB/sec\n"));
        assert_eq!(
            err,
            "BLKFLSBUF failed: Inappropriate ioctl for device\n".repeat(2)
        );
    }

    #[test]
    fn cache_timing_seek_failure() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.seek_fail = Some(libc::ESPIPE);
        let (r, out, _) = run_cache(&mut t, false);
        let e = r.expect_err("seek");
        assert_eq!(e.message, "lseek() failed: Illegal seek");
        assert_eq!(out, "");
    }

    #[test]
    fn device_timing_runs_three_seconds() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(10));
        let (r, out) = run_device(&mut t, false, None, Some(1 << 30));
        let fig = r.expect("timing");
        // 10 ms per read: the 300th read ends at exactly 3.00 s.
        assert_eq!(
            out,
            " Timing buffered disk reads: 600 MB in  3.00 seconds = 200.00 MB/sec\n"
        );
        assert_eq!(fig.bytes, 600 << 20);
        assert!(!t.log.contains(&Op::Flush));
        assert!(!t.log.iter().any(|o| matches!(o, Op::Seek(_))));
    }

    #[test]
    fn device_timing_stops_at_the_size_limit() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.size = 64 << 20;
        let (r, out) = run_device(&mut t, true, None, Some((64 << 20) / 512));
        r.expect("timing");
        assert_eq!(
            out,
            " Timing O_DIRECT disk reads:  64 MB in  0.03 seconds = 2000.00 MB/sec\n"
        );
    }

    #[test]
    fn device_timing_in_kilobytes_when_slow() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(2100));
        let (r, out) = run_device(&mut t, false, None, None);
        r.expect("timing");
        // Two reads: 4 MB in 4.2 s is below 1 MB/s.
        assert_eq!(
            out,
            " Timing buffered disk reads:   4 MB in  4.20 seconds = 975.24 kB/sec\n"
        );
    }

    #[test]
    fn device_timing_too_small_device() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.size = 1 << 20;
        let (r, out) = run_device(&mut t, false, None, Some(2048));
        let e = r.expect_err("too small");
        assert_eq!(e.message, "read(2097152) returned 1048576 bytes");
        assert_eq!(out, " Timing buffered disk reads: ");
    }

    #[test]
    fn device_timing_hits_eof_past_the_end() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.size = 4 << 20;
        // The size limit is wrong on purpose (a device that shrank): the third read is at EOF.
        let (r, out) = run_device(&mut t, false, None, Some(1 << 20));
        let e = r.expect_err("eof");
        assert_eq!(e.message, "read() hit EOF - device too small");
        assert_eq!(out, " Timing buffered disk reads: ");
    }

    #[test]
    fn device_timing_read_error_mid_run() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.script = vec![(3, ReadResult::Fail(libc::EIO))];
        let (r, out) = run_device(&mut t, false, None, None);
        assert_eq!(
            r.expect_err("eio").message,
            "read() failed: Input/output error"
        );
        assert_eq!(out, " Timing buffered disk reads: ");
        assert_eq!(t.reads, 4);
    }

    #[test]
    fn device_timing_short_read_mid_run() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(1));
        t.script = vec![(2, ReadResult::Short(4096)), (9, ReadResult::Eof)];
        let (r, _) = run_device(&mut t, false, None, None);
        assert_eq!(
            r.expect_err("short").message,
            "read(2097152) returned 4096 bytes"
        );
    }

    #[test]
    fn device_timing_seeks_to_the_offset_and_reports_a_bad_one() {
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::from_millis(10));
        let (r, out) = run_device(&mut t, false, Some(2), None);
        r.expect("timing");
        assert!(out.starts_with(" Timing buffered disk reads (offset 2 GB): "));
        assert_eq!(t.log[0], Op::Seek(2 << 30));

        let mut t = FakeTarget::new(&time, Duration::from_millis(10));
        t.size = 1 << 30;
        let (r, out) = run_device(&mut t, false, Some(5), None);
        let e = r.expect_err("past the end");
        assert_eq!(e.message, "lseek() failed: Invalid argument");
        assert_eq!(e.class, ErrorClass::Usage);
        assert_eq!(out, " Timing buffered disk reads (offset 5 GB): ");
    }

    #[test]
    fn figure_serializes_with_units_and_null_for_infinite_rates() {
        let fig = ReadFigure {
            kind: TimingKind::Device,
            direct: false,
            offset_bytes: None,
            bytes: 2 << 20,
            seconds: 0.0,
            mib_per_second: f64::INFINITY,
            line: String::new(),
        };
        let v = serde_json::to_value(&fig).unwrap();
        assert_eq!(v["kind"], "device");
        assert_eq!(v["bytes"], 2 << 20);
        assert!(v["mib_per_second"].is_null());
        assert!(v.get("offset_bytes").is_none());
    }

    #[test]
    fn zero_elapsed_prints_like_printf() {
        // A clock that does not move (coarse clock, tiny device): hdparm prints inf.
        let time = FakeTime::default();
        let mut t = FakeTarget::new(&time, Duration::ZERO);
        let (r, out) = run_device(&mut t, false, None, Some(4096));
        r.expect("timing");
        assert_eq!(
            out,
            " Timing buffered disk reads:   2 MB in  0.00 seconds =    inf MB/sec\n"
        );
    }
}
