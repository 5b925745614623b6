//! The `hdparm` binary: hands argv to the library and turns its verdict into the exit status.
//! Nothing else lives here.

// A failure is reported and the next device still runs: nothing may abort the process outside
// tests (style.md habit 4).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

fn main() -> std::process::ExitCode {
    use std::io::IsTerminal;
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    // Not locked for the whole run: `--trim-sector-ranges-stdin` reads it from the device
    // steps (each read takes the lock for itself).
    let mut stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let stderr_is_terminal = stderr.is_terminal();
    let status = hdparm::run_streams(
        &args,
        hdparm::Streams {
            stdin: &mut stdin,
            stdout: &mut stdout.lock(),
            stderr: &mut stderr.lock(),
            stderr_is_terminal,
        },
    );
    // Stopped by a signal (or a closed stdout, SIGPIPE): end as the signal would end us.
    if let Some(hdparm::error::ErrorClass::Stopped(signal)) =
        hdparm::error::ErrorClass::of_exit_status(status)
    {
        hdparm::device::sys::reraise::die_of(signal);
    }
    std::process::ExitCode::from(status)
}
