//! The timing steps on real loop devices (root only): `-t` and `-T` print well-formed lines and
//! succeed, a device smaller than one 2 MiB block, an `--offset` past the end, a regular file
//! and a directory each give one clear error line and no figure, and the benchmark runs on both
//! engines. Nothing here asserts on speed.
//!
//! The loop-device tests need root and `losetup`; they skip with the reason otherwise, and fail
//! instead when `HDPARM_RS_REQUIRE_ALL=1` (`common::skip`); so does the io_uring half of the
//! benchmark test where the kernel refuses io_uring. Each test makes its own backing file in a
//! fresh directory under the system temp dir and its own loop device, and detaches it at the
//! end.

mod common;

use std::fs::{File, OpenOptions};
use std::os::fd::AsFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use hdparm::cli::Flags;
use hdparm::error::ErrorClass;
use hdparm::exec::measure::{self, TimingContext};
use hdparm::timing::bench::{BenchOptions, EngineChoice};

/// Returns why the loop-device tests cannot run here, if they cannot.
fn missing_component() -> Option<String> {
    // The effective uid is the third field of the Uid: line.
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let uid_line = status.lines().find(|l| l.starts_with("Uid:")).unwrap_or("");
    if uid_line.split_whitespace().nth(2) != Some("0") {
        return Some("not running as root (loop devices need root)".into());
    }
    match Command::new("losetup").arg("--version").output() {
        Ok(o) if o.status.success() => {}
        _ => return Some("losetup is not installed".into()),
    }
    if !Path::new("/dev/loop-control").exists() {
        return Some("/dev/loop-control is missing (no loop driver)".into());
    }
    None
}

/// True (after saying why, through the one skip rule) when the loop-device test cannot run.
fn skip_or_fail(test: &str) -> bool {
    match missing_component() {
        None => false,
        Some(reason) => {
            common::skip(test, &reason);
            true
        }
    }
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

/// A scratch directory removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Scratch {
        let n = COUNTER.fetch_add(1, Ordering::SeqCst);
        let dir = std::env::temp_dir().join(format!("hdparm-rs-timing-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A loop device over a file of `bytes` bytes, detached on drop.
struct LoopDev {
    dev: PathBuf,
    _scratch: Scratch,
}

impl LoopDev {
    fn new(bytes: u64, direct_io: bool) -> LoopDev {
        let scratch = Scratch::new();
        let backing = scratch.0.join("backing.img");
        let f = File::create(&backing).expect("backing file");
        f.set_len(bytes).expect("size backing file");
        drop(f);
        let mut cmd = Command::new("losetup");
        cmd.arg("-f").arg("--show");
        if direct_io {
            cmd.arg("--direct-io=on");
        }
        let out = cmd.arg(&backing).output().expect("run losetup");
        assert!(
            out.status.success(),
            "losetup failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let name = String::from_utf8_lossy(&out.stdout).trim().to_string();
        assert!(name.starts_with("/dev/loop"), "unexpected device {name:?}");
        LoopDev {
            dev: PathBuf::from(name),
            _scratch: scratch,
        }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
    }
}

/// Opens as hdparm does: read-only, non-blocking, `O_DIRECT` with `--direct`.
fn open_like_hdparm(path: &Path, direct: bool) -> File {
    let mut flags = libc::O_NONBLOCK;
    if direct {
        flags |= libc::O_DIRECT;
    }
    OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(path)
        .expect("open device")
}

fn size_sectors(path: &Path) -> Option<u64> {
    let name = path.file_name()?.to_str()?;
    std::fs::read_to_string(format!("/sys/class/block/{name}/size"))
        .ok()?
        .trim()
        .parse()
        .ok()
}

/// Checks `%3u MB in %5.2f seconds = %6.2f MB/sec` (or kB/sec) and that the numbers agree with
/// each other; returns the MB count.
fn check_result_line(line: &str) -> u32 {
    let rest = line.strip_suffix('\n').expect("line ends with a newline");
    assert!(!rest.contains('\n'), "one line: {line:?}");
    let (mb, rest) = rest.split_once(" MB in ").expect("' MB in '");
    assert!(mb.len() >= 3, "MB count is %3u: {mb:?}");
    let mb: u32 = mb.trim_start().parse().expect("MB count");
    let (secs, rest) = rest.split_once(" seconds = ").expect("' seconds = '");
    assert!(secs.len() >= 5, "seconds are %5.2f: {secs:?}");
    let secs_v: f64 = secs.trim_start().parse().expect("seconds");
    assert_eq!(
        secs.trim_start().split('.').nth(1).map(str::len),
        Some(2),
        "two decimals: {secs:?}"
    );
    let (rate, unit) = rest.split_at(rest.len() - " MB/sec".len());
    assert!(unit == " MB/sec" || unit == " kB/sec", "unit: {unit:?}");
    assert!(rate.len() >= 6, "rate is %6.2f: {rate:?}");
    assert_eq!(
        rate.trim_start().split('.').nth(1).map(str::len),
        Some(2),
        "two decimals: {rate:?}"
    );
    let rate_v: f64 = rate.trim_start().parse().expect("rate");
    let per_mb = if unit == " kB/sec" {
        rate_v / 1024.0
    } else {
        rate_v
    };
    // The printed seconds are rounded to 0.01: the rate must agree with MB / seconds within that.
    if secs_v >= 0.1 {
        let lo = f64::from(mb) / (secs_v + 0.005);
        let hi = f64::from(mb) / (secs_v - 0.005);
        assert!(
            per_mb >= lo - 0.01 && per_mb <= hi + 0.01,
            "rate {per_mb} not MB/seconds for {line:?}"
        );
    }
    mb
}

/// Runs `-t` on `dev`, opened as hdparm opens it, with `flags`: the result, stdout and stderr.
fn time_device_on(
    dev: &Path,
    flags: &Flags,
) -> (
    Result<hdparm::timing::reads::ReadFigure, hdparm::error::Error>,
    Vec<u8>,
    Vec<u8>,
) {
    let file = open_like_hdparm(dev, flags.direct);
    let ctx = TimingContext {
        path: dev,
        fd: file.as_fd(),
        size_sectors: size_sectors(dev),
        flags,
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    let result = measure::time_device(&ctx, &mut out, &mut err);
    (result, out, err)
}

#[test]
fn device_timing_prints_a_well_formed_line() {
    if skip_or_fail("device_timing_prints_a_well_formed_line") {
        return;
    }
    let lo = LoopDev::new(64 << 20, false);
    let flags = Flags {
        time_device: true,
        ..Flags::default()
    };
    let (result, out, err) = time_device_on(&lo.dev, &flags);
    let fig = result.expect("-t succeeds on a loop device");
    let out = String::from_utf8(out).unwrap();
    let line = out
        .strip_prefix(" Timing buffered disk reads: ")
        .expect("prefix");
    let mb = check_result_line(line);
    // 64 MiB device: at most 32 reads of 2 MiB.
    assert!(
        mb <= 64 && mb % 2 == 0 && mb > 0,
        "{mb} MB from a 64 MB device"
    );
    assert_eq!(fig.bytes, u64::from(mb) << 20);
    assert!(err.is_empty(), "stderr: {}", String::from_utf8_lossy(&err));
}

#[test]
fn direct_timings_print_well_formed_lines() {
    if skip_or_fail("direct_timings_print_well_formed_lines") {
        return;
    }
    let lo = LoopDev::new(32 << 20, true);
    let file = open_like_hdparm(&lo.dev, true);
    let flags = Flags {
        time_device: true,
        time_cache: true,
        direct: true,
        ..Flags::default()
    };
    let ctx = TimingContext {
        path: &lo.dev,
        fd: file.as_fd(),
        size_sectors: size_sectors(&lo.dev),
        flags: &flags,
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    measure::time_cache(&ctx, &mut out, &mut err).expect("-T --direct succeeds");
    measure::time_device(&ctx, &mut out, &mut err).expect("-t --direct succeeds");
    let out = String::from_utf8(out).unwrap();
    let mut lines = out.split_inclusive('\n');
    let cached = lines
        .next()
        .unwrap()
        .strip_prefix(" Timing O_DIRECT cached reads:   ")
        .expect("-T prefix");
    check_result_line(cached);
    let disk = lines
        .next()
        .unwrap()
        .strip_prefix(" Timing O_DIRECT disk reads: ")
        .expect("-t prefix");
    assert!(check_result_line(disk) <= 32);
    assert_eq!(lines.next(), None);
    assert!(err.is_empty(), "stderr: {}", String::from_utf8_lossy(&err));
}

#[test]
fn too_small_device_is_one_clear_error() {
    if skip_or_fail("too_small_device_is_one_clear_error") {
        return;
    }
    let lo = LoopDev::new(1 << 20, false);
    let flags = Flags {
        time_device: true,
        ..Flags::default()
    };
    let (result, out, err) = time_device_on(&lo.dev, &flags);
    let e = result.expect_err("1 MiB is less than one block");
    assert_eq!(e.message, "read(2097152) returned 1048576 bytes");
    assert_eq!(e.class, ErrorClass::Failed);
    // The prefix was flushed before reading; no figure follows it.
    assert_eq!(
        String::from_utf8(out).unwrap(),
        " Timing buffered disk reads: "
    );
    assert!(err.is_empty());
}

#[test]
fn offset_past_the_end_is_one_clear_error() {
    if skip_or_fail("offset_past_the_end_is_one_clear_error") {
        return;
    }
    let lo = LoopDev::new(8 << 20, false);
    let flags = Flags {
        time_device: true,
        offset_gib: Some(1),
        ..Flags::default()
    };
    let (result, out, err) = time_device_on(&lo.dev, &flags);
    let e = result.expect_err("offset beyond 8 MiB");
    assert_eq!(e.message, "lseek() failed: Invalid argument");
    assert_ne!(e.class.exit_status(), 0);
    assert_eq!(
        String::from_utf8(out).unwrap(),
        " Timing buffered disk reads (offset 1 GB): "
    );
    assert!(err.is_empty());
}

#[test]
fn regular_file_and_directory_give_one_line_each() {
    // No loop device needed: runs everywhere.
    let scratch = Scratch::new();
    let regular = scratch.0.join("regular");
    std::fs::write(&regular, b"hi\n").unwrap();
    let flags = Flags {
        time_device: true,
        ..Flags::default()
    };

    let file = open_like_hdparm(&regular, false);
    let size = hdparm::device::fd_target::size_sectors_by_seek(file.as_fd()).ok();
    let ctx = TimingContext {
        path: &regular,
        fd: file.as_fd(),
        size_sectors: size,
        flags: &flags,
    };
    let mut out = Vec::new();
    let mut err = Vec::new();
    let e = measure::time_device(&ctx, &mut out, &mut err).expect_err("3-byte file");
    assert_eq!(e.message, "read(2097152) returned 3 bytes");
    assert!(err.is_empty());
    // The flush -t implies is quiet on a regular file (no "BLKFLSBUF failed" line).
    hdparm::device::flush::flush_buffer_cache(file.as_fd()).expect("flush of a regular file");

    let dir = open_like_hdparm(&scratch.0, false);
    let ctx = TimingContext {
        path: &scratch.0,
        fd: dir.as_fd(),
        size_sectors: None,
        flags: &flags,
    };
    let mut out = Vec::new();
    let e = measure::time_device(&ctx, &mut out, &mut err).expect_err("a directory");
    assert_eq!(e.message, "read() failed: Is a directory");
    assert!(err.is_empty());
    hdparm::device::flush::flush_buffer_cache(dir.as_fd()).expect("flush of a directory");
}

#[test]
fn bench_runs_on_both_engines() {
    if skip_or_fail("bench_runs_on_both_engines") {
        return;
    }
    let lo = LoopDev::new(64 << 20, true);
    let file = open_like_hdparm(&lo.dev, false);
    let flags = Flags::default();
    let ctx = TimingContext {
        path: &lo.dev,
        fd: file.as_fd(),
        size_sectors: size_sectors(&lo.dev),
        flags: &flags,
    };
    for (engine, random) in [
        (EngineChoice::IoUring, false),
        (EngineChoice::Threads, true),
    ] {
        let options = BenchOptions {
            trials: 2,
            depth: 4,
            block_size: 64 << 10,
            random,
            trial_duration: Duration::from_millis(200),
            engine,
        };
        let mut out = Vec::new();
        let mut err = Vec::new();
        let report = match measure::bench_with(&ctx, &options, &mut out, &mut err, false) {
            Ok(r) => r,
            Err(e) if engine == EngineChoice::IoUring && e.class == ErrorClass::NotApplicable => {
                // The threads engine below still runs; the io_uring half is what is skipped.
                common::skip(
                    "bench_runs_on_both_engines (io_uring engine)",
                    &format!("io_uring unavailable here: {}", e.message),
                );
                continue;
            }
            Err(e) => panic!("bench failed: {}", e.message),
        };
        assert_eq!(report.trials.len(), 2);
        for t in &report.trials {
            assert!(
                t.bytes > 0 && t.bytes % (64 << 10) == 0,
                "whole blocks read: {}",
                t.bytes
            );
            assert!(t.seconds > 0.0);
        }
        let text = String::from_utf8(out).unwrap();
        // A warning line follows when the trials disagree (other load on the machine): it is
        // not part of the fixed shape.
        let lines: Vec<&str> = text
            .lines()
            .filter(|l| !l.trim_start().starts_with("Warning:"))
            .collect();
        assert_eq!(lines.len(), 6, "{text}");
        assert!(lines[0].starts_with(" Benchmark O_DIRECT reads: "));
        assert!(lines[0].contains(if random { "random" } else { "sequential" }));
        assert!(lines[1].starts_with("  Trial 1: ") && lines[2].starts_with("  Trial 2: "));
        assert!(lines[3].starts_with("  Throughput (mean ± σ): "));
        assert!(lines[4].starts_with("  Range (min … max): "));
        // The reads per second and the latency percentiles of every read of the run.
        assert!(lines[5].starts_with("  Per read (64 kB): "), "{text}");
        assert!(lines[5].contains(" IOPS, latency p50 "), "{text}");
        assert!(
            lines[5].contains(", p99 ") && lines[5].contains(", p99.9 "),
            "{text}"
        );
        let latency = report.latency.expect("latencies timed");
        assert_eq!(
            latency.reads,
            report.trials.iter().map(|t| t.reads).sum::<u64>()
        );
        assert!(latency.p50_seconds > 0.0 && latency.p50_seconds <= latency.p99_seconds);
        assert!(err.is_empty(), "no progress line when not asked");
    }
}

#[test]
fn bench_on_a_device_smaller_than_a_block_suggests_a_block_size_that_fits() {
    if skip_or_fail("bench_on_a_device_smaller_than_a_block_suggests_a_block_size_that_fits") {
        return;
    }
    let lo = LoopDev::new(1 << 20, false);
    let run = |extra: &[&str]| {
        Command::new(common::our_hdparm())
            .args(["--bench", "--bench-trials", "1", "--bench-seconds", "0.2"])
            .args(extra)
            .arg(&lo.dev)
            .output()
            .expect("run")
    };
    let out = run(&[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5));
    assert!(
        err.contains("less than one 2097152-byte block; try --bench-bs 1024K"),
        "{err}"
    );
    // The suggestion works.
    let out = run(&["--bench-bs", "1024K"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}
