//! The `hdparm` binary: hands argv to the library and turns its verdict into the exit status.
//! Nothing else lives here.

fn main() -> std::process::ExitCode {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    let stderr = std::io::stderr();
    let status = hdparm::run_with_stdin(
        &args,
        &mut stdin.lock(),
        &mut stdout.lock(),
        &mut stderr.lock(),
    );
    std::process::ExitCode::from(status)
}
