//! The `hdparm` binary: hands argv to the library and turns its verdict into the exit status.
//! Nothing else lives here.

// A failure is reported and the next device still runs: nothing may abort the process outside
// tests (style.md habit 4).
#![deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
#![cfg_attr(test, allow(clippy::unwrap_used, clippy::expect_used, clippy::panic))]

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let status = hdparm::run(&args, &mut stdout.lock(), &mut stderr.lock());
    std::process::ExitCode::from(status)
}
