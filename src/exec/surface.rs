//! `--surface` (ours): opens the device with O_DIRECT, runs the zone scan of
//! `timing::surface` over it with the real clock, shows progress and an estimate on stderr when
//! it is a terminal, and writes the text (or JSON), the CSV and the SVG.
//!
//! JSON: `doc/hdparm-rs.schema.json`, surface_document (`"report": "surface"`).
//!
//! Exit status: 0 when every block read; 5 when some did not (the scan still covers the rest);
//! 2 when the device cannot be opened.

use crate::cli::SurfaceRequest;
use crate::device::reader::{open_direct, size_sectors_by_seek, FdTarget, TimingBuffer};
use crate::device::system;
use crate::error::{strerror, ErrorClass, Verdict};
use crate::report::envelope::Message;
use crate::report::surface;
use crate::timing::clock::MonotonicClock;
use crate::timing::surface::{scan, BLOCK_BYTES};
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

/// Records a failure and prints its line.
fn fail(failures: &mut Failures, class: ErrorClass, text: String, stderr: &mut dyn Write) {
    failures.verdict.record(class);
    let _ = writeln!(stderr, "{text}");
    failures.messages.push(Message {
        severity: "error",
        class: Some(class.name()),
        text,
    });
}

/// Runs `--surface`; returns the exit status.
pub fn run_surface(
    request: &SurfaceRequest,
    program_args: &[std::ffi::OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    let mut verdict = Failures::default();
    let device = request.device.to_string_lossy().into_owned();
    let file = match open_direct(Path::new(&request.device)) {
        Ok(file) => file,
        Err(e) => {
            fail(
                &mut verdict,
                e.class,
                format!("{device}: {}", e.message),
                stderr,
            );
            return verdict.verdict.exit_status();
        }
    };
    let size_bytes = match size_sectors_by_seek(file.as_fd()) {
        Ok(sectors) if sectors > 0 => sectors * 512,
        Ok(_) => {
            fail(
                &mut verdict,
                ErrorClass::NotApplicable,
                format!("{device}: nothing to scan (size 0)"),
                stderr,
            );
            return verdict.verdict.exit_status();
        }
        Err(e) => {
            fail(
                &mut verdict,
                ErrorClass::Failed,
                format!("{device}: {}", strerror(&e)),
                stderr,
            );
            return verdict.verdict.exit_status();
        }
    };
    let mut buffer = match TimingBuffer::prepare() {
        Ok(buffer) => buffer,
        Err(e) => {
            fail(
                &mut verdict,
                e.class,
                format!("{device}: {}", e.message),
                stderr,
            );
            return verdict.verdict.exit_status();
        }
    };
    let mut target = match FdTarget::new(file.as_fd()) {
        Ok(target) => target,
        Err(e) => {
            fail(
                &mut verdict,
                ErrorClass::Failed,
                format!("{device}: {}", strerror(&e)),
                stderr,
            );
            return verdict.verdict.exit_status();
        }
    };
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
    let result = scan(
        &mut target,
        &mut clock,
        buf,
        size_bytes,
        request.zones,
        request.quick,
        &mut progress,
    );
    if result.zones.iter().any(|z| !z.error_lbas.is_empty()) {
        verdict.verdict.record(ErrorClass::Failed);
    }
    if let Some(path) = &request.csv {
        if let Err(e) = system::write_atomically(path, surface::csv(&result).as_bytes()) {
            fail(
                &mut verdict,
                ErrorClass::Failed,
                format!("{}: {}", path.display(), strerror(&e)),
                stderr,
            );
        }
    }
    // `--plot -`: the SVG is standard output, and the text report goes to stderr.
    let plot_to_stdout = request.plot.as_deref() == Some(Path::new("-"));
    if let Some(path) = request.plot.as_ref().filter(|_| !plot_to_stdout) {
        if let Err(e) = system::write_atomically(path, surface::svg(&device, &result).as_bytes()) {
            fail(
                &mut verdict,
                ErrorClass::Failed,
                format!("{}: {}", path.display(), strerror(&e)),
                stderr,
            );
        }
    }
    if request.json {
        let document = serde_json::json!({
            "json_format_version": crate::report::envelope::JSON_FORMAT_VERSION,
            "hdparm_rs": crate::report::envelope::program_json(program_args, verdict.verdict.exit_status()),
            "report": "surface",
            "device": device,
            "surface": result,
            "messages": verdict.messages,
        });
        let _ = writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&document).unwrap_or_default()
        );
    } else if plot_to_stdout {
        let _ = write!(stderr, "{}", surface::text(&device, &result));
        let _ = write!(stdout, "{}", surface::svg(&device, &result));
    } else {
        let _ = write!(stdout, "{}", surface::text(&device, &result));
    }
    let _ = stdout.flush();
    verdict.verdict.exit_status()
}
