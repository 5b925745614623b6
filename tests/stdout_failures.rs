//! A report that cannot be written is not a success (issue 18, section 6), through the binary:
//! with standard output on `/dev/full` every mode exits 74 (output_failed) with one line on
//! stderr; with standard output a pipe whose reader has gone (`hdparm -I DEV | head`) ours
//! ends as hdparm does, killed by SIGPIPE, and says nothing.

mod common;

use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Command, ExitStatus, Stdio};

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/identify/ahci-hd.hex"
);

/// Runs `program args` with stdout on `/dev/full` (stdin from `stdin`, or empty).
fn into_full(program: &Path, args: &[&str], stdin: Option<&str>) -> (ExitStatus, String) {
    let full = std::fs::OpenOptions::new()
        .write(true)
        .open("/dev/full")
        .expect("/dev/full");
    let input = match stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).expect("stdin file")),
        None => Stdio::null(),
    };
    let out = Command::new(program)
        .args(args)
        .env_remove("ACTION")
        .env(
            "HDPARM_RS_RECORD_DIR",
            std::env::temp_dir().join("hdparm-rs-stdout-records"),
        )
        .stdin(input)
        .stdout(full)
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `program args` with stdout a pipe whose read end is already closed.
fn into_closed_pipe(program: &Path, args: &[&str], stdin: Option<&str>) -> (ExitStatus, String) {
    // The write end of a pipe whose only reader, `true`, has exited: nobody can read it.
    let mut reader = Command::new("true")
        .stdin(Stdio::piped())
        .spawn()
        .expect("true");
    let writer = reader.stdin.take().expect("the pipe");
    assert!(reader.wait().expect("true").success());
    let input = match stdin {
        Some(path) => Stdio::from(std::fs::File::open(path).expect("stdin file")),
        None => Stdio::null(),
    };
    let out = Command::new(program)
        .args(args)
        .stdin(input)
        .stdout(Stdio::from(writer))
        .stderr(Stdio::piped())
        .output()
        .expect("run");
    (
        out.status,
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn assert_output_failed(args: &[&str], stdin: Option<&str>) {
    let (status, stderr) = into_full(&common::our_hdparm(), args, stdin);
    assert_eq!(status.code(), Some(74), "{args:?}: {stderr}");
    let lines: Vec<&str> = stderr
        .lines()
        .filter(|l| l.contains("standard output"))
        .collect();
    assert_eq!(
        lines,
        ["hdparm: cannot write to standard output: No space left on device"],
        "{args:?}: {stderr}"
    );
}

#[test]
fn help_version_and_decoding_exit_74_on_a_full_stdout() {
    assert_output_failed(&["-V"], None);
    assert_output_failed(&["-h"], None);
    assert_output_failed(&["--help"], None);
    assert_output_failed(&["--json", "-V"], None);
    assert_output_failed(&["--Istdin"], Some(FIXTURE));
    assert_output_failed(&["--json", "--Istdin"], Some(FIXTURE));
}

#[test]
fn every_device_mode_exits_74_on_a_full_stdout() {
    let test = "every_device_mode_exits_74_on_a_full_stdout";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("stdout-full", 16) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let dev = lo.dev.as_str();
    for args in [
        &["-a", dev][..],
        &["--json", "-a", dev],
        &["--prometheus", dev],
        &["--surface", "--zones", "2", "--surface-quick", dev],
        &[
            "--json",
            "--surface",
            "--zones",
            "2",
            "--surface-quick",
            dev,
        ],
        &["--advise", dev],
        &["--apply", "--config", "/dev/null", dev],
        &["--experiment", "-a 8", "-a 16", "--trials", "2", dev],
    ] {
        assert_output_failed(args, None);
    }
    assert_eq!(
        lo.readahead(),
        "256",
        "the experiment set the read-ahead back"
    );
}

#[test]
fn a_closed_pipe_ends_us_as_it_ends_hdparm() {
    let test = "a_closed_pipe_ends_us_as_it_ends_hdparm";
    let Some(reference) = common::reference_hdparm() else {
        common::skip(test, "Debian's hdparm is not installed");
        return;
    };
    let mut cases: Vec<(Vec<String>, Option<&str>)> = vec![
        (vec!["-V".into()], None),
        (vec!["-h".into()], None),
        (vec!["--Istdin".into()], Some(FIXTURE)),
    ];
    let lo = if common::is_root() {
        common::Loop::new("stdout-pipe", 16)
    } else {
        None
    };
    if let Some(lo) = &lo {
        cases.push((vec!["-a".into(), lo.dev.clone()], None));
    } else {
        common::skip(test, "the loop-device case needs root and losetup");
    }
    for (args, stdin) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let (theirs, their_err) = into_closed_pipe(&reference, &args, *stdin);
        let (ours, our_err) = into_closed_pipe(&common::our_hdparm(), &args, *stdin);
        assert_eq!(
            theirs.signal(),
            Some(libc::SIGPIPE),
            "hdparm {args:?}: {their_err}"
        );
        assert_eq!(
            ours.signal(),
            Some(libc::SIGPIPE),
            "ours {args:?}: {our_err}"
        );
        assert_eq!(our_err, their_err, "{args:?}");
    }
    // --json, which hdparm has not: the same end.
    let (ours, our_err) = into_closed_pipe(&common::our_hdparm(), &["--json", "-V"], None);
    assert_eq!(ours.signal(), Some(libc::SIGPIPE), "{our_err}");
    assert_eq!(our_err, "");
}
