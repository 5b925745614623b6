//! The benchmark mode (ours, not hdparm's): repeated trials of `O_DIRECT` reads at a chosen
//! queue depth and block size, summarised the way hyperfine summarises run times.
//!
//! Options (parsed by `cli` into [`BenchOptions`] with the helpers below):
//!
//! | option | meaning | default |
//! |---|---|---|
//! | `--bench` | run the benchmark on each device | off |
//! | `--bench-trials N` | number of trials (1..=1000) | 5 |
//! | `--bench-depth N` | reads kept in flight (1..=1024) | 32 |
//! | `--bench-bs BYTES` | block size; suffix `K`/`KiB`, `M`/`MiB`, `G`/`GiB` (powers of 1024); a multiple of 512, at most 1 GiB, and depth × size at most 4 GiB | 2M |
//! | `--bench-random` | random block-aligned offsets instead of sequential | sequential |
//! | `--bench-seconds S` | length of each trial, decimal seconds (0.1..=3600) | 3 |
//!
//! Reads start at `--offset` when given and cover the rest of the device (whole blocks only);
//! sequential reads wrap around to the start and continue across trials, so later trials read
//! fresh data. Each trial keeps `depth` reads in flight until its time is up, then waits for the
//! reads still in flight and counts them; its time runs from the first submission to the last
//! completion.
//!
//! # Text output
//!
//! MB means 2^20 bytes and GB 2^30 bytes, as in hdparm's own lines. One header line, one line
//! per trial, then two summary lines (mean ± sample standard deviation, and the range):
//!
//! ```text
//!  Benchmark O_DIRECT reads: io_uring, queue depth 32, 2 MB blocks, sequential, 5 trials of 3.00 s
//!   Trial 1:  4251 MB in  3.00 seconds = 1417.00 MB/sec
//!   Trial 2:  4262 MB in  3.00 seconds = 1420.67 MB/sec
//!   ...
//!   Throughput (mean ± σ):  1418.20 MB/sec ±   1.90 MB/sec    [CPU: 0.052 s per GB]
//!   Range (min … max):      1416.00 MB/sec … 1420.67 MB/sec    5 trials
//!   Per read (1.00 MB):       708.6 IOPS, latency p50 44.93 ms, p99 52.10 ms, p99.9 60.20 ms
//! ```
//!
//! The per-read line gives the reads per second (the mean of the trials') and the latency
//! percentiles of every read of the run, from its submission to its completion as the engine
//! saw it (fio's total latency, `lat_percentiles=1`), in µs below 10 ms and in ms above. The
//! CPU per read follows it in brackets when it can be measured.
//!
//! When the trials' standard deviation exceeds 10% of their mean, a last line warns that the
//! figures are distorted (`  Warning: the trials vary by N% of their mean; ...`).
//!
//! The CPU figure is the process's user + system time during the trials per GB read; it is left
//! out when the engine cannot measure it. While trials run, a progress line is redrawn on stderr
//! (only when the caller says stderr is a terminal) and erased at the end.
//!
//! # JSON
//!
//! [`BenchReport`] serialises with units in the key names: `block_size_bytes`,
//! `trial_seconds`, per trial `bytes`, `seconds`, `mib_per_second`, `cpu_seconds`, and the
//! summary `mean_mib_per_second`, `stddev_mib_per_second`, `min_mib_per_second`,
//! `max_mib_per_second`, `median_mib_per_second`, `cpu_seconds_per_gib`, `mean_iops`,
//! `cpu_seconds_per_read`, and `latency` (`reads`, `p50_seconds`, `p90_seconds`,
//! `p99_seconds`, `p99_9_seconds`, `max_seconds`); per trial also `reads` and `iops`.
//!
//! What it must not do: open or read a device. The reads are done by a [`BenchEngine`] that
//! `exec::measure::engines` builds over the device's reads; tests give a fake one.

use std::io::Write;
use std::time::Duration;

use serde::Serialize;

use super::latency::LatencyHistogram;
use super::printf::c_fixed;
use super::stats::summarize;
use crate::error::Error;

pub const DEFAULT_TRIALS: u32 = 5;
pub const DEFAULT_DEPTH: u32 = 32;
pub const DEFAULT_BLOCK_SIZE: u64 = 2 << 20;
pub const DEFAULT_TRIAL_DURATION: Duration = Duration::from_secs(3);
pub const MAX_TRIALS: u32 = 1000;
pub const MAX_DEPTH: u32 = 1024;
pub const MAX_BLOCK_SIZE: u64 = 1 << 30;
/// Cap on depth × block size: the buffers are locked in memory.
pub const MAX_BUFFER_BYTES: u64 = 4 << 30;

/// Which way to keep reads in flight.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EngineChoice {
    /// io_uring, or threads when io_uring is unavailable.
    #[default]
    Auto,
    /// io_uring only; fail if unavailable.
    IoUring,
    /// `depth` threads each doing `pread`.
    Threads,
}

/// What `--bench*` asked for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BenchOptions {
    pub trials: u32,
    pub depth: u32,
    pub block_size: u64,
    pub random: bool,
    pub trial_duration: Duration,
    /// Not on the command line; for tests and the comparison script's library callers.
    pub engine: EngineChoice,
}

impl Default for BenchOptions {
    fn default() -> Self {
        BenchOptions {
            trials: DEFAULT_TRIALS,
            depth: DEFAULT_DEPTH,
            block_size: DEFAULT_BLOCK_SIZE,
            random: false,
            trial_duration: DEFAULT_TRIAL_DURATION,
            engine: EngineChoice::Auto,
        }
    }
}

impl BenchOptions {
    /// Checks the combination (each value was range-checked when parsed; this checks the
    /// product). Returns the message for a usage error.
    pub fn validate(&self) -> Result<(), String> {
        if u64::from(self.depth).saturating_mul(self.block_size) > MAX_BUFFER_BYTES {
            return Err(format!(
                "--bench-depth × --bench-bs is {} bytes, more than the {} bytes allowed",
                u64::from(self.depth).saturating_mul(self.block_size),
                MAX_BUFFER_BYTES
            ));
        }
        Ok(())
    }
}

fn parse_u64_digits(s: &str) -> Option<u64> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `--bench-trials N`: 1..=1000.
pub fn parse_trials(s: &str) -> Result<u32, String> {
    match parse_u64_digits(s) {
        Some(n) if (1..=u64::from(MAX_TRIALS)).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "--bench-trials: expected a number of trials from 1 to {MAX_TRIALS}, got '{s}'"
        )),
    }
}

/// `--bench-depth N`: 1..=1024.
pub fn parse_depth(s: &str) -> Result<u32, String> {
    match parse_u64_digits(s) {
        Some(n) if (1..=u64::from(MAX_DEPTH)).contains(&n) => Ok(n as u32),
        _ => Err(format!(
            "--bench-depth: expected a queue depth from 1 to {MAX_DEPTH}, got '{s}'"
        )),
    }
}

/// `--bench-bs BYTES`: a byte count with an optional `K`, `KiB`, `M`, `MiB`, `G`, `GiB` suffix
/// (any case; all powers of 1024); a multiple of 512 from 512 to 1 GiB.
pub fn parse_block_size(s: &str) -> Result<u64, String> {
    let bad = || {
        format!("--bench-bs: expected a block size such as 4096, 64K or 2M (a multiple of 512, at most 1G), got '{s}'")
    };
    let digits_end = s
        .bytes()
        .position(|b| !b.is_ascii_digit())
        .unwrap_or(s.len());
    let number = parse_u64_digits(&s[..digits_end]).ok_or_else(bad)?;
    let shift = match s[digits_end..].to_ascii_lowercase().as_str() {
        "" | "b" => 0,
        "k" | "kib" => 10,
        "m" | "mib" => 20,
        "g" | "gib" => 30,
        _ => return Err(bad()),
    };
    let bytes = number.checked_mul(1 << shift).ok_or_else(bad)?;
    if bytes == 0 || bytes % 512 != 0 || bytes > MAX_BLOCK_SIZE {
        return Err(bad());
    }
    Ok(bytes)
}

/// `--bench-seconds S`: decimal seconds from 0.1 to 3600 (`3`, `0.5`, `2.25`).
pub fn parse_seconds(s: &str) -> Result<Duration, String> {
    let bad = || {
        format!("--bench-seconds: expected seconds from 0.1 to 3600 such as 3 or 0.5, got '{s}'")
    };
    let (whole, frac) = match s.split_once('.') {
        Some((w, f)) => (w, f),
        None => (s, ""),
    };
    if whole.is_empty() && frac.is_empty() {
        return Err(bad());
    }
    let whole = if whole.is_empty() {
        0
    } else {
        parse_u64_digits(whole).ok_or_else(bad)?
    };
    if !frac.bytes().all(|b| b.is_ascii_digit())
        || frac.len() > 9
        || (s.contains('.') && frac.is_empty())
    {
        return Err(bad());
    }
    let nanos: u32 = format!("{frac:0<9}").parse().map_err(|_| bad())?;
    if whole > 3600 {
        return Err(bad());
    }
    let d = Duration::new(whole, nanos);
    if d < Duration::from_millis(100) || d > Duration::from_secs(3600) {
        return Err(bad());
    }
    Ok(d)
}

/// Where the `index`-th read of a run goes: block-aligned offsets inside `[start, start + span)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OffsetPlan {
    pub start: u64,
    pub blocks: u64,
    pub block_size: u64,
    pub random: bool,
    pub seed: u64,
}

impl OffsetPlan {
    /// A plan over the whole blocks of `span_bytes` from `start`; `None` when not even one
    /// block fits.
    pub fn new(
        start: u64,
        span_bytes: u64,
        block_size: u64,
        random: bool,
        seed: u64,
    ) -> Option<OffsetPlan> {
        if block_size == 0 {
            return None;
        }
        let blocks = span_bytes / block_size;
        (blocks > 0).then_some(OffsetPlan {
            start,
            blocks,
            block_size,
            random,
            seed,
        })
    }

    /// The offset of read number `index`. Sequential plans wrap around; random ones draw a
    /// block from a fixed pseudo-random sequence (so two runs with one seed read the same
    /// blocks), independent of which thread asks.
    pub fn offset(&self, index: u64) -> u64 {
        let block = if self.random {
            splitmix64(self.seed ^ index) % self.blocks
        } else {
            index % self.blocks
        };
        self.start + block * self.block_size
    }

    pub fn span_bytes(&self) -> u64 {
        self.blocks * self.block_size
    }
}

/// SplitMix64: a fast, well-mixed 64-bit hash (Steele, Lea, Flood 2014).
fn splitmix64(x: u64) -> u64 {
    let mut z = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// What one trial measured.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TrialSample {
    pub bytes: u64,
    /// Reads completed (the next trial continues the plan from here).
    pub reads: u64,
    pub elapsed: Duration,
    /// Process CPU time (user + system) during the trial, when measurable.
    pub cpu: Option<Duration>,
}

/// One trial, as [`BenchEngine::run_trial`] is asked to run it.
pub struct Trial<'a> {
    /// Where the reads go: `plan.offset(first_index + i)` for i = 0, 1, ...
    pub plan: &'a OffsetPlan,
    pub first_index: u64,
    /// How long reads are submitted; the reads still in flight then are waited for.
    pub duration: Duration,
    /// Where each read's latency (submission to completion) is recorded.
    pub latency: &'a mut LatencyHistogram,
    /// Called with the bytes and time so far, from the calling thread, as often as the engine
    /// likes.
    pub progress: &'a mut dyn FnMut(u64, Duration),
}

/// Something that keeps reads in flight for a while: io_uring, threads, or a test fake.
pub trait BenchEngine {
    /// A short name for the text and JSON (`io_uring`, `threads`...).
    fn name(&self) -> String;
    /// Runs one trial: reads until its `duration` has passed, then lets the reads in flight
    /// finish.
    fn run_trial(&mut self, trial: Trial<'_>) -> Result<TrialSample, Error>;
}

/// One trial in the report.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct TrialReport {
    pub bytes: u64,
    pub reads: u64,
    pub seconds: f64,
    pub mib_per_second: f64,
    pub iops: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64")]
    pub cpu_seconds: Option<f64>,
}

/// --bench: the benchmark's result, for text and JSON.
#[derive(Clone, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct BenchReport {
    pub engine: String,
    pub direct: bool,
    /// `sequential` or `random`.
    #[schemars(extend("enum" = ["sequential", "random"]))]
    pub pattern: &'static str,
    pub queue_depth: u32,
    pub block_size_bytes: u64,
    pub offset_bytes: u64,
    pub span_bytes: u64,
    /// The requested length of each trial.
    pub trial_seconds: f64,
    pub trials: Vec<TrialReport>,
    pub mean_mib_per_second: f64,
    pub stddev_mib_per_second: f64,
    pub min_mib_per_second: f64,
    pub max_mib_per_second: f64,
    pub median_mib_per_second: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64")]
    pub cpu_seconds_per_gib: Option<f64>,
    /// The mean of the trials' reads per second.
    pub mean_iops: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "f64")]
    pub cpu_seconds_per_read: Option<f64>,
    /// Percentiles of every read's latency; absent when the engine timed none.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LatencySummary")]
    pub latency: Option<LatencySummary>,
}

/// The latency percentiles of a run's reads.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct LatencySummary {
    pub reads: u64,
    pub p50_seconds: f64,
    pub p90_seconds: f64,
    pub p99_seconds: f64,
    pub p99_9_seconds: f64,
    pub max_seconds: f64,
}

impl LatencySummary {
    pub fn of(h: &LatencyHistogram) -> Option<LatencySummary> {
        Some(LatencySummary {
            reads: h.count(),
            p50_seconds: h.percentile_seconds(50.0)?,
            p90_seconds: h.percentile_seconds(90.0)?,
            p99_seconds: h.percentile_seconds(99.0)?,
            p99_9_seconds: h.percentile_seconds(99.9)?,
            max_seconds: h.percentile_seconds(100.0)?,
        })
    }
}
const MIB: f64 = 1048576.0;
const GIB: f64 = 1073741824.0;

fn mib_per_second(bytes: u64, elapsed: Duration) -> f64 {
    per_second(bytes as f64 / MIB, elapsed)
}

fn per_second(amount: f64, elapsed: Duration) -> f64 {
    let secs = elapsed.as_secs_f64();
    if secs > 0.0 {
        amount / secs
    } else {
        0.0
    }
}

fn trial_report(s: &TrialSample) -> TrialReport {
    TrialReport {
        bytes: s.bytes,
        reads: s.reads,
        seconds: s.elapsed.as_secs_f64(),
        mib_per_second: mib_per_second(s.bytes, s.elapsed),
        iops: per_second(s.reads as f64, s.elapsed),
        cpu_seconds: s.cpu.map(|c| c.as_secs_f64()),
    }
}

/// Builds the report from the samples: per-trial rates and their summary.
pub fn summarize_trials(
    engine: String,
    options: &BenchOptions,
    plan: &OffsetPlan,
    samples: &[TrialSample],
    latency: &LatencyHistogram,
) -> Option<BenchReport> {
    let trials: Vec<TrialReport> = samples.iter().map(trial_report).collect();
    let rates: Vec<f64> = trials.iter().map(|t| t.mib_per_second).collect();
    let summary = summarize(&rates)?;
    let total_bytes: u64 = samples.iter().map(|s| s.bytes).sum();
    let cpu: Option<f64> = samples.iter().map(|s| s.cpu.map(|c| c.as_secs_f64())).sum();
    let cpu_seconds_per_gib = match cpu {
        Some(c) if total_bytes > 0 => Some(c / (total_bytes as f64 / GIB)),
        _ => None,
    };
    let total_reads: u64 = samples.iter().map(|s| s.reads).sum();
    let cpu_seconds_per_read = match cpu {
        Some(c) if total_reads > 0 => Some(c / total_reads as f64),
        _ => None,
    };
    let mean_iops = trials.iter().map(|t| t.iops).sum::<f64>() / trials.len() as f64;
    Some(BenchReport {
        engine,
        direct: true,
        pattern: if plan.random { "random" } else { "sequential" },
        queue_depth: options.depth,
        block_size_bytes: options.block_size,
        offset_bytes: plan.start,
        span_bytes: plan.span_bytes(),
        trial_seconds: options.trial_duration.as_secs_f64(),
        trials,
        mean_mib_per_second: summary.mean,
        stddev_mib_per_second: summary.stddev,
        min_mib_per_second: summary.min,
        max_mib_per_second: summary.max,
        median_mib_per_second: summary.median,
        cpu_seconds_per_gib,
        mean_iops,
        cpu_seconds_per_read,
        latency: LatencySummary::of(latency),
    })
}

/// A block size in the text's units: `2 MB`, `64 kB`, `1536 bytes`.
pub fn block_size_text(bytes: u64) -> String {
    if bytes % (1 << 20) == 0 {
        format!("{} MB", bytes >> 20)
    } else if bytes % 1024 == 0 {
        format!("{} kB", bytes >> 10)
    } else {
        format!("{bytes} bytes")
    }
}

/// The header line.
pub fn header_line(engine: &str, options: &BenchOptions) -> String {
    format!(
        " Benchmark O_DIRECT reads: {engine}, queue depth {}, {} blocks, {}, {} trial{} of {} s",
        options.depth,
        block_size_text(options.block_size),
        if options.random {
            "random"
        } else {
            "sequential"
        },
        options.trials,
        if options.trials == 1 { "" } else { "s" },
        c_fixed(options.trial_duration.as_secs_f64(), 0, 2),
    )
}

/// One trial's line.
pub fn trial_line(number: usize, trial: &TrialReport) -> String {
    format!(
        "  Trial {number}: {:5} MB in {} seconds = {} MB/sec",
        trial.bytes >> 20,
        c_fixed(trial.seconds, 5, 2),
        c_fixed(trial.mib_per_second, 7, 2)
    )
}

/// A latency for the per-read line: µs below 10 ms, ms above.
fn latency_text(seconds: f64) -> String {
    if seconds < 0.01 {
        format!("{} µs", c_fixed(seconds * 1e6, 0, 1))
    } else {
        format!("{} ms", c_fixed(seconds * 1e3, 0, 2))
    }
}

/// The per-read line: IOPS, the latency percentiles and the CPU per read.
pub fn per_read_line(report: &BenchReport) -> String {
    let mut line = format!(
        "  Per read ({}): {} IOPS",
        block_size_text(report.block_size_bytes),
        c_fixed(report.mean_iops, 9, 1)
    );
    if let Some(l) = &report.latency {
        line.push_str(&format!(
            ", latency p50 {}, p99 {}, p99.9 {}",
            latency_text(l.p50_seconds),
            latency_text(l.p99_seconds),
            latency_text(l.p99_9_seconds)
        ));
    }
    if let Some(c) = report.cpu_seconds_per_read {
        line.push_str(&format!(
            "    [CPU: {} µs per read]",
            c_fixed(c * 1e6, 0, 2)
        ));
    }
    line
}

/// The two summary lines.
pub fn summary_lines(report: &BenchReport) -> [String; 2] {
    let cpu = match report.cpu_seconds_per_gib {
        Some(c) => format!("    [CPU: {} s per GB]", c_fixed(c, 0, 3)),
        None => String::new(),
    };
    [
        format!(
            "  Throughput (mean ± σ):  {} MB/sec ± {} MB/sec{cpu}",
            c_fixed(report.mean_mib_per_second, 7, 2),
            c_fixed(report.stddev_mib_per_second, 6, 2)
        ),
        format!(
            "  Range (min … max):      {} MB/sec … {} MB/sec    {} trial{}",
            c_fixed(report.min_mib_per_second, 7, 2),
            c_fixed(report.max_mib_per_second, 7, 2),
            report.trials.len(),
            if report.trials.len() == 1 { "" } else { "s" }
        ),
    ]
}

/// Above this relative standard deviation the summary warns that the trials disagree.
pub const NOISY_RELATIVE_STDDEV: f64 = 0.10;

/// A warning line when the trials vary by more than 10% of their mean (hyperfine warns about
/// outliers the same way): the figure then says more about the system than about the device.
pub fn variability_warning(report: &BenchReport) -> Option<String> {
    if report.trials.len() < 2 || report.mean_mib_per_second <= 0.0 {
        return None;
    }
    let relative = report.stddev_mib_per_second / report.mean_mib_per_second;
    (relative > NOISY_RELATIVE_STDDEV).then(|| {
        format!(
            "  Warning: the trials vary by {}% of their mean; other activity on the system or the device may be distorting them.",
            c_fixed(relative * 100.0, 0, 0)
        )
    })
}

/// The progress line for stderr (starts with a carriage return, no newline).
pub fn progress_line(
    trial: u32,
    trials: u32,
    bytes: u64,
    elapsed: Duration,
    duration: Duration,
) -> String {
    format!(
        "\r  Trial {trial}/{trials}: {} s of {} s, {} MB/sec ",
        c_fixed(elapsed.as_secs_f64(), 0, 1),
        c_fixed(duration.as_secs_f64(), 0, 1),
        c_fixed(mib_per_second(bytes, elapsed), 0, 1)
    )
}

/// Erases the progress line.
pub const PROGRESS_ERASE: &str = "\r\x1b[2K";

/// How often the progress line is redrawn at most.
const PROGRESS_EVERY: Duration = Duration::from_millis(250);

/// Runs the trials and builds the report. Prints the header and each trial line to `out` as it
/// goes (when `out` is given; `None` for JSON), the summary at the end, and a progress line to
/// `progress` when given (stderr on a terminal).
pub fn run_bench(
    engine: &mut dyn BenchEngine,
    options: &BenchOptions,
    plan: &OffsetPlan,
    mut out: Option<&mut dyn Write>,
    mut progress: Option<&mut dyn Write>,
) -> Result<BenchReport, Error> {
    let write_err = |e: std::io::Error| {
        Error::os(
            crate::error::ErrorClass::Failed,
            "write to stdout failed",
            &e,
        )
    };
    let name = engine.name();
    if let Some(o) = out.as_deref_mut() {
        writeln!(o, "{}", header_line(&name, options))
            .and_then(|()| o.flush())
            .map_err(write_err)?;
    }
    let mut samples = Vec::with_capacity(options.trials as usize);
    let mut latency = LatencyHistogram::new();
    let mut next_index = 0u64;
    for trial in 1..=options.trials {
        let mut last_drawn: Option<Duration> = None;
        let mut draw = |bytes: u64, elapsed: Duration| {
            if let Some(p) = progress.as_deref_mut() {
                let due = match last_drawn {
                    None => true,
                    Some(t) => elapsed >= t + PROGRESS_EVERY,
                };
                if due {
                    last_drawn = Some(elapsed);
                    let _ = p.write_all(
                        progress_line(
                            trial,
                            options.trials,
                            bytes,
                            elapsed,
                            options.trial_duration,
                        )
                        .as_bytes(),
                    );
                    let _ = p.flush();
                }
            }
        };
        let result = engine.run_trial(Trial {
            plan,
            first_index: next_index,
            duration: options.trial_duration,
            latency: &mut latency,
            progress: &mut draw,
        });
        if let Some(p) = progress.as_deref_mut() {
            let _ = p.write_all(PROGRESS_ERASE.as_bytes());
            let _ = p.flush();
        }
        let sample = result?;
        next_index = next_index.wrapping_add(sample.reads);
        samples.push(sample);
        if let Some(o) = out.as_deref_mut() {
            writeln!(o, "{}", trial_line(trial as usize, &trial_report(&sample)))
                .and_then(|()| o.flush())
                .map_err(write_err)?;
        }
    }
    let report = summarize_trials(name, options, plan, &samples, &latency)
        .ok_or_else(|| Error::failed("bench: no trial completed"))?;
    if let Some(o) = out {
        for line in summary_lines(&report)
            .into_iter()
            .chain(std::iter::once(per_read_line(&report)))
            .chain(variability_warning(&report))
        {
            writeln!(o, "{line}").map_err(write_err)?;
        }
        o.flush().map_err(write_err)?;
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_the_documented_ones() {
        let o = BenchOptions::default();
        assert_eq!(
            (o.trials, o.depth, o.block_size, o.random),
            (5, 32, 2 << 20, false)
        );
        assert_eq!(o.trial_duration, Duration::from_secs(3));
        assert!(o.validate().is_ok());
    }

    #[test]
    fn block_sizes_accept_binary_suffixes() {
        assert_eq!(parse_block_size("4096"), Ok(4096));
        assert_eq!(parse_block_size("64K"), Ok(64 << 10));
        assert_eq!(parse_block_size("64kib"), Ok(64 << 10));
        assert_eq!(parse_block_size("2M"), Ok(2 << 20));
        assert_eq!(parse_block_size("2MiB"), Ok(2 << 20));
        assert_eq!(parse_block_size("1G"), Ok(1 << 30));
        for bad in [
            "",
            "M",
            "1000",
            "0",
            "2X",
            "-4K",
            "2G",
            "1.5M",
            "99999999999999999999K",
        ] {
            assert!(parse_block_size(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn counts_and_seconds_are_range_checked() {
        assert_eq!(parse_trials("1"), Ok(1));
        assert!(parse_trials("0").is_err());
        assert!(parse_trials("1001").is_err());
        assert!(parse_trials("+3").is_err());
        assert_eq!(parse_depth("1024"), Ok(1024));
        assert!(parse_depth("1025").is_err());
        assert_eq!(parse_seconds("3"), Ok(Duration::from_secs(3)));
        assert_eq!(parse_seconds("0.5"), Ok(Duration::from_millis(500)));
        assert_eq!(parse_seconds(".25"), Ok(Duration::from_millis(250)));
        for bad in [
            "",
            ".",
            "3.",
            "0.05",
            "3601",
            "1e3",
            "-1",
            "1.2.3",
            "0.0000000001",
        ] {
            assert!(parse_seconds(bad).is_err(), "{bad} accepted");
        }
    }

    #[test]
    fn buffer_cap_is_checked() {
        let o = BenchOptions {
            depth: 1024,
            block_size: 1 << 30,
            ..BenchOptions::default()
        };
        assert!(o.validate().is_err());
    }

    #[test]
    fn sequential_plan_wraps_inside_the_span() {
        let p = OffsetPlan::new(1 << 30, (10 << 20) + 5, 2 << 20, false, 0).unwrap();
        assert_eq!(p.blocks, 5);
        let offs: Vec<u64> = (0..7).map(|i| p.offset(i)).collect();
        let mib = 1 << 20;
        assert_eq!(
            offs,
            vec![
                1 << 30,
                (1 << 30) + 2 * mib,
                (1 << 30) + 4 * mib,
                (1 << 30) + 6 * mib,
                (1 << 30) + 8 * mib,
                1 << 30,
                (1 << 30) + 2 * mib
            ]
        );
        assert_eq!(OffsetPlan::new(0, 1 << 20, 2 << 20, false, 0), None);
    }

    #[test]
    fn random_plan_is_aligned_in_range_repeatable_and_spread() {
        let p = OffsetPlan::new(4096, 1000 * 4096, 4096, true, 42).unwrap();
        let mut seen = std::collections::HashSet::new();
        for i in 0..5000 {
            let o = p.offset(i);
            assert_eq!(o % 4096, 0);
            assert!((4096..4096 + 1000 * 4096).contains(&o));
            assert_eq!(o, p.offset(i));
            seen.insert(o);
        }
        // 5000 draws from 1000 blocks touch nearly all of them (expected about 993).
        assert!(seen.len() > 950, "only {} blocks", seen.len());
        let q = OffsetPlan { seed: 43, ..p };
        assert!((0..100).any(|i| p.offset(i) != q.offset(i)));
    }

    /// A fake engine: each trial reads at a scripted rate for exactly the asked duration.
    struct FakeEngine {
        rates_mib: Vec<f64>,
        trial: usize,
        first_indexes: Vec<u64>,
        fail_on: Option<usize>,
    }

    impl BenchEngine for FakeEngine {
        fn name(&self) -> String {
            "fake".into()
        }
        fn run_trial(&mut self, trial: Trial<'_>) -> Result<TrialSample, Error> {
            self.first_indexes.push(trial.first_index);
            let n = self.trial;
            self.trial += 1;
            if self.fail_on == Some(n) {
                return Err(Error::failed(
                    "bench: read failed at offset 0: Input/output error",
                ));
            }
            let bytes = (self.rates_mib[n] * trial.duration.as_secs_f64() * MIB) as u64;
            let reads = bytes / trial.plan.block_size;
            // Every read of the trial at its share of the trial's time, one in a hundred
            // ten times as long.
            let each = trial.duration / reads.max(1) as u32;
            for i in 0..reads {
                trial
                    .latency
                    .record(if i % 100 == 99 { each * 10 } else { each });
            }
            (trial.progress)(bytes / 2, trial.duration / 2);
            (trial.progress)(bytes, trial.duration);
            Ok(TrialSample {
                bytes,
                reads,
                elapsed: trial.duration,
                cpu: Some(Duration::from_millis(50)),
            })
        }
    }

    fn fake(rates: &[f64]) -> FakeEngine {
        FakeEngine {
            rates_mib: rates.to_vec(),
            trial: 0,
            first_indexes: Vec::new(),
            fail_on: None,
        }
    }

    /// Three trials of the default options, reading the first GiB in order.
    fn three_trials() -> (BenchOptions, OffsetPlan) {
        let options = BenchOptions {
            trials: 3,
            ..BenchOptions::default()
        };
        let plan = OffsetPlan::new(0, 1 << 30, options.block_size, false, 0).unwrap();
        (options, plan)
    }

    #[test]
    fn report_text_and_statistics() {
        let (options, plan) = three_trials();
        let mut engine = fake(&[100.0, 200.0, 300.0]);
        let mut out = Vec::new();
        let mut progress = Vec::new();
        let report = run_bench(
            &mut engine,
            &options,
            &plan,
            Some(&mut out),
            Some(&mut progress),
        )
        .unwrap();
        let text = String::from_utf8(out).unwrap();
        let expected = [
            " Benchmark O_DIRECT reads: fake, queue depth 32, 2 MB blocks, sequential, 3 trials of 3.00 s",
            "  Trial 1:   300 MB in  3.00 seconds =  100.00 MB/sec",
            "  Trial 2:   600 MB in  3.00 seconds =  200.00 MB/sec",
            "  Trial 3:   900 MB in  3.00 seconds =  300.00 MB/sec",
            // 0.15 s of CPU for 1800 MB = 1.7578125 GB.
            "  Throughput (mean ± σ):   200.00 MB/sec ± 100.00 MB/sec    [CPU: 0.085 s per GB]",
            "  Range (min … max):       100.00 MB/sec …  300.00 MB/sec    3 trials",
            // 900 reads in 9 s; the latencies 1/150, 1/300, 1/450 of 3 s (20, 10, 6.67 ms),
            // and each trial's hundredth read ten times that: 446 of 6.67 ms, 297 of 10 ms,
            // 148 of 20 ms, then 9 slow ones of which the slowest 2 are 200 ms.
            "  Per read (2 MB):     100.0 IOPS, latency p50 10.00 ms, p99 20.00 ms, p99.9 200.00 ms    [CPU: 166.67 µs per read]",
            "  Warning: the trials vary by 50% of their mean; other activity on the system or the device may be distorting them.",
            "",
        ]
        .join("\n");
        assert_eq!(text, expected);
        assert_eq!(report.median_mib_per_second, 200.0);
        // Trials continue the plan where the previous one stopped.
        assert_eq!(engine.first_indexes, vec![0, 150, 450]);
        let p = String::from_utf8(progress).unwrap();
        assert!(p.contains("\r  Trial 2/3: 1.5 s of 3.0 s, 200.0 MB/sec "));
        assert!(p.ends_with(PROGRESS_ERASE));
        assert!(!p.contains('\n'));
    }

    #[test]
    fn spread_out_trials_get_a_warning_and_steady_ones_do_not() {
        let (options, plan) = three_trials();
        let report = run_bench(
            &mut fake(&[100.0, 200.0, 300.0]),
            &options,
            &plan,
            None,
            None,
        )
        .unwrap();
        assert_eq!(
            variability_warning(&report).as_deref(),
            Some("  Warning: the trials vary by 50% of their mean; other activity on the system or the device may be distorting them.")
        );
        let report = run_bench(
            &mut fake(&[100.0, 101.0, 99.0]),
            &options,
            &plan,
            None,
            None,
        )
        .unwrap();
        assert_eq!(variability_warning(&report), None);
    }

    #[test]
    fn depth_times_block_size_is_capped() {
        let big = BenchOptions {
            block_size: parse_block_size("1G").unwrap(),
            depth: parse_depth("1024").unwrap(),
            ..BenchOptions::default()
        };
        assert!(big.validate().is_err(), "1 TiB of buffers");
        assert!(BenchOptions::default().validate().is_ok());
    }

    #[test]
    fn json_keys_carry_units() {
        let options = BenchOptions {
            trials: 2,
            random: true,
            ..BenchOptions::default()
        };
        let plan = OffsetPlan::new(0, 1 << 30, options.block_size, true, 1).unwrap();
        let mut engine = fake(&[64.0, 64.0]);
        let report = run_bench(&mut engine, &options, &plan, None, None).unwrap();
        let v = serde_json::to_value(&report).unwrap();
        assert_eq!(v["pattern"], "random");
        assert_eq!(v["block_size_bytes"], 2 << 20);
        assert_eq!(v["trial_seconds"], 3.0);
        assert_eq!(v["trials"][1]["bytes"], 192u64 << 20);
        assert_eq!(v["trials"][1]["mib_per_second"], 64.0);
        assert_eq!(v["stddev_mib_per_second"], 0.0);
        assert!(v["cpu_seconds_per_gib"].as_f64().unwrap() > 0.0);
        // 64 MiB/s of 2 MiB blocks: 32 reads a second, 96 a trial.
        assert_eq!(v["trials"][1]["reads"], 96);
        assert_eq!(v["trials"][1]["iops"], 32.0);
        assert_eq!(v["mean_iops"], 32.0);
        assert_eq!(v["latency"]["reads"], 192);
        assert!(v["latency"]["p50_seconds"].as_f64().unwrap() > 0.0);
        assert!(
            v["latency"]["p99_9_seconds"].as_f64().unwrap()
                >= v["latency"]["p99_seconds"].as_f64().unwrap()
        );
        assert!(v["cpu_seconds_per_read"].as_f64().unwrap() > 0.0);
    }

    #[test]
    fn a_failing_trial_stops_the_run_with_its_error() {
        let (options, plan) = three_trials();
        let mut engine = fake(&[1.0, 1.0, 1.0]);
        engine.fail_on = Some(1);
        let mut out = Vec::new();
        let e = run_bench(&mut engine, &options, &plan, Some(&mut out), None).unwrap_err();
        assert!(e.message.contains("Input/output error"));
        let text = String::from_utf8(out).unwrap();
        assert!(text.contains("Trial 1:"));
        assert!(!text.contains("Throughput"));
    }

    #[test]
    fn single_trial_and_odd_block_sizes_read_well() {
        let o = BenchOptions {
            trials: 1,
            block_size: 4096,
            random: true,
            ..BenchOptions::default()
        };
        assert_eq!(
            header_line("threads", &o),
            " Benchmark O_DIRECT reads: threads, queue depth 32, 4 kB blocks, random, 1 trial of 3.00 s"
        );
        assert_eq!(block_size_text(1536), "1536 bytes");
    }
}
