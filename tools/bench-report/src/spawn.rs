//! The start-up harness of `bench/compare.sh`: runs one command line `runs` times in a row,
//! spawned directly (no shell, whose own start-up would dilute the figure), with stdin from a
//! file (or /dev/null) and stdout and stderr thrown away, and prints one runs-file line: the
//! mean wall time of a run and the CPU (user + system) the children took, per run. The exit
//! status is not judged: `-C` on a loop device fails for both tools, and that is the work
//! timed.
//!
//! Why not hyperfine: Debian's 1.15 has no way to give a command its stdin (`--input` came in
//! 1.16), and `--Istdin` needs one.
//!
//! Must not: analyse (report.rs does).

use hdparm::device::sys::mem::children_cpu_time;
use std::ffi::OsString;
use std::fs::File;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// What one batch measured: mean wall seconds and mean CPU seconds per run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Batch {
    pub wall_seconds: f64,
    pub cpu_seconds: f64,
}

/// Runs `argv` `runs` times; `stdin` is a file to open for each run, or None for /dev/null.
pub fn batch(runs: u32, stdin: Option<&str>, argv: &[OsString]) -> Result<Batch, String> {
    let (program, args) = argv.split_first().ok_or("no command to run")?;
    if runs == 0 {
        return Err("runs must be at least 1".into());
    }
    let cpu_before = children_cpu_time().map_err(|e| format!("getrusage: {e}"))?;
    let mut wall = Duration::ZERO;
    for _ in 0..runs {
        let input = match stdin {
            Some(path) => Stdio::from(File::open(path).map_err(|e| format!("{path}: {e}"))?),
            None => Stdio::null(),
        };
        let start = Instant::now();
        let mut child = Command::new(program)
            .args(args)
            .stdin(input)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|e| format!("{}: {e}", program.to_string_lossy()))?;
        child.wait().map_err(|e| format!("wait: {e}"))?;
        wall += start.elapsed();
    }
    let cpu = children_cpu_time()
        .map_err(|e| format!("getrusage: {e}"))?
        .saturating_sub(cpu_before);
    Ok(Batch {
        wall_seconds: wall.as_secs_f64() / f64::from(runs),
        cpu_seconds: cpu.as_secs_f64() / f64::from(runs),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_runs_the_command_with_its_stdin() {
        // `sh -c 'read x; [ "$x" = hello ]'` exits 0 only when stdin carries the line; the
        // harness does not judge the status, so check it through a file the command writes.
        let dir = std::env::temp_dir().join(format!("bench-report-spawn-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("in");
        let seen = dir.join("seen");
        std::fs::write(&input, "hello\n").unwrap();
        let script = format!("read x; echo \"$x\" >> {}", seen.display());
        let argv: Vec<OsString> = ["sh", "-c", &script].iter().map(OsString::from).collect();
        let b = batch(3, input.to_str(), &argv).unwrap();
        assert!(b.wall_seconds > 0.0 && b.cpu_seconds >= 0.0, "{b:?}");
        assert_eq!(
            std::fs::read_to_string(&seen).unwrap(),
            "hello\nhello\nhello\n"
        );
        assert!(batch(1, None, &[]).is_err());
        assert!(batch(1, None, &[OsString::from("/nonexistent/program")]).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
