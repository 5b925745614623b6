//! `--surface` (ours): opens the device with O_DIRECT, runs the zone scan of
//! `timing::surface` over it with the real clock, shows progress and an estimate on stderr when
//! it is a terminal, and writes the text (or JSON), the CSV and the SVG.
//!
//! JSON: `doc/hdparm-rs.schema.json`, surface_document (`"report": "surface"`; `surface` is null
//! when the device could not be scanned at all).
//!
//! Exit status: 0 when every block read; 5 when some did not (the scan still covers the rest),
//! or when the device went away (shrank, or was removed) before the end: the scan stops there
//! and says so; 2 when the device cannot be opened; stopped (128+N, the process then dies of
//! signal N) when SIGINT, SIGTERM, SIGHUP or SIGQUIT ended the scan, after the zones read so far
//! were reported.
//!
//! `--dry-run`: the device is opened as the scan opens it (read-only, O_DIRECT) and its size
//! asked (a seek to its end), and the plan says how much would be read, in which zones, and
//! which files would be written; nothing is read. JSON: the same document, with `surface`
//! null and `dry_run` the plan (`report::dry_run`).

use crate::cli::SurfaceRequest;
use crate::device::fd_target::{open_direct, size_sectors_by_seek, FdTarget};
use crate::device::read_buffer::TimingBuffer;
use crate::device::sys::signal::StopHandler;
use crate::error::{strerror, Error, ErrorClass, Verdict};
use crate::report::dry_run::{Plan, Planned};
use crate::report::envelope::Message;
use crate::report::surface;
use crate::timing::clock::MonotonicClock;
use crate::timing::surface::{scan, Ending, Scan, ACCESS_BYTES, ACCESS_SAMPLES, BLOCK_BYTES};
use std::io::Write;
use std::os::fd::AsFd;
use std::path::Path;
use std::time::Instant;

/// The failures of a scan: the verdict, and the messages its JSON carries (stderr has the
/// same lines).
#[derive(Default)]
struct Failures {
    verdict: Verdict,
    messages: Vec<Message>,
}

impl Failures {
    /// Records a failure and prints its line.
    fn fail(&mut self, class: ErrorClass, text: String, stderr: &mut dyn Write) {
        self.verdict.record(class);
        let _ = writeln!(stderr, "{text}");
        self.messages.push(Message {
            severity: "error",
            class: Some(class.name()),
            text,
        });
    }
}

/// Opens the device and scans it; an error says why nothing could be scanned.
fn scan_device(
    request: &SurfaceRequest,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> Result<Scan, Error> {
    // A reader: a disk another run holds exclusively (an erase) is skipped, not read.
    let _held = crate::exec::devices::reader_lock(&request.device.to_string_lossy())?;
    let file = open_direct(Path::new(&request.device))?;
    let os = |e: std::io::Error| Error::os(ErrorClass::Failed, "", &e);
    let size_bytes = match size_sectors_by_seek(file.as_fd()).map_err(os)? {
        0 => return Err(Error::not_applicable("nothing to scan (size 0)")),
        sectors => sectors * 512,
    };
    let mut buffer = TimingBuffer::prepare_for_large_reads(crate::timing::reads::TIMING_BUF_BYTES)?;
    let mut target = FdTarget::new(file.as_fd()).map_err(os)?;
    let mut clock = MonotonicClock::new();
    let started = Instant::now();
    let mut progress = |done: usize, total: usize| {
        if !stderr_is_terminal {
            return;
        }
        let elapsed = started.elapsed().as_secs_f64();
        let left = elapsed / done as f64 * (total - done) as f64;
        let _ = write!(
            stderr,
            "\r surface: zone {done}/{total}, {left:.0} s left   {}",
            if done == total { "\n" } else { "" }
        );
        let _ = stderr.flush();
    };
    let buf = &mut buffer.as_mut_slice()[..BLOCK_BYTES];
    // A stop signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT) ends the scan between two blocks, and
    // the zones read so far are reported (the handler is dropped, and the previous one back,
    // when the scan returns; the flag keeps which signal it was).
    let handler = StopHandler::install().ok();
    let stop = || handler.as_ref().is_some_and(StopHandler::requested);
    Ok(scan(
        &mut target,
        &mut clock,
        buf,
        size_bytes,
        request.zones,
        request.quick,
        &mut progress,
        &stop,
    ))
}

/// `--dry-run --surface`: the plan of the scan. Opens the device as the scan does and asks its
/// size; reads nothing.
fn plan(request: &SurfaceRequest) -> Plan {
    let mut plan = Plan::default();
    let size = open_direct(Path::new(&request.device)).and_then(|file| {
        size_sectors_by_seek(file.as_fd()).map_err(|e| Error::os(ErrorClass::Failed, "", &e))
    });
    match size {
        Ok(0) => plan.would_fail.push((
            ErrorClass::NotApplicable,
            "nothing to scan (size 0)".to_string(),
        )),
        Ok(sectors) => {
            let size_bytes = sectors * 512;
            let zones = request.zones.max(1) as u64;
            let zone_bytes = (size_bytes / zones) / 512 * 512;
            let per_zone = if request.quick {
                format!(
                    "the first {} MiB of each",
                    crate::timing::surface::QUICK_BYTES >> 20
                )
            } else {
                "all of each".to_string()
            };
            plan.steps.push(Planned::Reads(format!(
                "reads of {size_bytes} bytes in {zones} zones of {zone_bytes} bytes ({per_zone}, the last zone taking the rest), sequential in {} KiB blocks with O_DIRECT, then {ACCESS_SAMPLES} reads of {} KiB at random offsets in each zone",
                BLOCK_BYTES >> 10,
                ACCESS_BYTES >> 10
            )));
        }
        Err(e) => plan
            .would_fail
            .push((e.class, e.message.trim_start_matches(": ").to_string())),
    }
    let named = [
        ("the CSV", request.csv.as_ref()),
        ("the plot", request.plot.as_ref()),
    ];
    for (what, path) in named {
        match path {
            Some(p) if p.as_os_str() == "-" => plan
                .steps
                .push(Planned::File(format!("{what} to standard output"))),
            Some(p) => plan.steps.push(Planned::File(format!(
                "{what} to {} (a new temporary file in its directory, then renamed over it)",
                p.display()
            ))),
            None => {}
        }
    }
    plan
}

/// Writes the JSON document: `surface` (the scan, or null) and, for a dry run, its plan.
fn write_document(
    stdout: &mut dyn Write,
    program_args: &[std::ffi::OsString],
    status: u8,
    device: &str,
    surface: serde_json::Value,
    dry_run: Option<serde_json::Value>,
    failures: &Failures,
) {
    let document = SurfaceDocument {
        json_format_version: crate::report::envelope::JSON_FORMAT_VERSION,
        hdparm_rs: crate::report::envelope::program(
            crate::cli::parse::redacted_argv(program_args),
            status,
        ),
        report: "surface",
        device,
        surface,
        dry_run,
        messages: &failures.messages,
    };
    let _ = writeln!(
        stdout,
        "{}",
        crate::report::envelope::render_sorted(&document)
    );
}

/// --surface (src/report/surface.rs): the scan, zone by zone (`$defs/surface_document`).
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SurfaceDocument<'a> {
    #[schemars(schema_with = "crate::report::schema::format_version_ref")]
    json_format_version: [u32; 2],
    #[schemars(schema_with = "crate::report::schema::program_ref")]
    hdparm_rs: crate::report::envelope::Program,
    /// `surface`.
    #[schemars(extend("const" = "surface"))]
    report: &'static str,
    device: &'a str,
    /// The scan ([`Scan`] serialized); null when the device could not be scanned at all.
    #[schemars(with = "Option<Scan>")]
    surface: serde_json::Value,
    /// `--dry-run --surface`: the plan (`surface` is then null); nothing was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "crate::report::schema::dry_run_ref")]
    dry_run: Option<serde_json::Value>,
    #[schemars(schema_with = "crate::report::schema::messages_ref")]
    messages: &'a [Message],
}

/// `--dry-run --surface`: prints the plan; returns the exit status the real run would have
/// as far as the plan shows it (the device cannot be opened, or has no size).
fn run_plan(
    request: &SurfaceRequest,
    program_args: &[std::ffi::OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let mut failures = Failures::default();
    let device = request.device.to_string_lossy().into_owned();
    let plan = plan(request);
    for (class, text) in &plan.would_fail {
        let line = if text.starts_with(device.as_str()) {
            text.clone()
        } else {
            format!("{device}: {text}")
        };
        failures.fail(
            *class,
            format!("{device}: --dry-run: a real run would fail: {line}"),
            stderr,
        );
    }
    let status = failures.verdict.exit_status();
    if request.json {
        let plan = Some(crate::report::dry_run::json(&plan));
        let null = serde_json::Value::Null;
        write_document(stdout, program_args, status, &device, null, plan, &failures);
    } else {
        let text = crate::report::dry_run::mode_text("nothing was read or written", &plan);
        let _ = write!(stdout, "{device}:\n{text}");
    }
    let _ = stdout.flush();
    status
}

/// Runs `--surface`; returns the exit status.
pub fn run_surface(
    request: &SurfaceRequest,
    program_args: &[std::ffi::OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    let mut failures = Failures::default();
    let device = request.device.to_string_lossy().into_owned();
    if request.dry_run {
        return run_plan(request, program_args, stdout, stderr);
    }
    let result = match scan_device(request, stderr, stderr_is_terminal) {
        Ok(result) => Some(result),
        Err(e) => {
            // Error::os with an empty label starts its line with ": "; the open error names
            // the device already.
            let why = e.message.trim_start_matches(": ");
            let line = if why.starts_with(device.as_str()) {
                why.to_string()
            } else {
                format!("{device}: {why}")
            };
            failures.fail(e.class, line, stderr);
            None
        }
    };
    // `--plot -`: the SVG is standard output, and the text report goes to stderr.
    let plot_to_stdout = request.plot.as_deref() == Some(Path::new("-"));
    if let Some(result) = &result {
        if result.zones.iter().any(|z| z.has_errors()) {
            failures.verdict.record(ErrorClass::Failed);
        }
        match (result.ended, result.ended_at_lba) {
            (Ending::DeviceWentAway, Some(lba)) => failures.fail(
                ErrorClass::Failed,
                format!("{device}: device went away at sector {lba}; the scan stopped there"),
                stderr,
            ),
            // The signal that came (the flag keeps it after the handler is gone), so that the
            // process dies of SIGTERM when SIGTERM stopped it.
            (Ending::Stopped, Some(lba)) => {
                let signal = crate::device::sys::signal::received().unwrap_or(libc::SIGINT);
                failures.fail(
                    ErrorClass::Stopped(signal),
                    format!(
                        "{device}: --surface stopped by {} at sector {lba}",
                        crate::device::sys::signal::name(signal)
                    ),
                    stderr,
                )
            }
            _ => {}
        }
        let files = [
            (request.csv.as_ref(), surface::csv(result)),
            (
                request.plot.as_ref().filter(|_| !plot_to_stdout),
                surface::svg(&device, result),
            ),
        ];
        for (path, text) in files {
            let Some(path) = path else { continue };
            if let Err(e) = crate::device::files::write_output(path, text.as_bytes()) {
                let line = format!("{}: {}", path.display(), strerror(&e));
                failures.fail(ErrorClass::OutputFailed, line, stderr);
            }
        }
    }
    let status = failures.verdict.exit_status();
    if request.json {
        let result = serde_json::to_value(&result).unwrap_or_default();
        write_document(
            stdout,
            program_args,
            status,
            &device,
            result,
            None,
            &failures,
        );
    } else if let Some(result) = &result {
        if plot_to_stdout {
            let _ = write!(stderr, "{}", surface::text(&device, result));
            let _ = write!(stdout, "{}", surface::svg(&device, result));
        } else {
            let _ = write!(stdout, "{}", surface::text(&device, result));
        }
    }
    let _ = stdout.flush();
    status
}
