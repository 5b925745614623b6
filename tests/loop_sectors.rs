//! The sector options end to end on a loop device (root), with our binary and the real hdparm
//! 9.65 side by side: what a user sees where the raw-device check cannot find the device's
//! start (a loop device has no geometry), the guards, and that nothing reaches the sectors.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

use common::Loop;

fn run(program: &std::path::Path, args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("wait")
}

/// The first 4 KiB of the device, as the file behind it holds them.
fn head(lo: &Loop) -> Vec<u8> {
    let mut data = std::fs::read(&lo.file).unwrap_or_default();
    data.truncate(4096);
    data
}

#[test]
fn sector_options_on_a_loop_device_match_hdparm() {
    let test = "sector_options_on_a_loop_device_match_hdparm";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(reference) = common::reference_hdparm() else {
        common::skip(test, "the reference hdparm is not installed");
        return;
    };
    let Some(lo) = Loop::new("sectors", 16) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let pattern: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lo.file)
        .and_then(|mut f| f.write_all(&pattern))
        .expect("pattern");
    let ours = common::our_hdparm();
    let dev = lo.dev.as_str();
    let know = "--yes-i-know-what-i-am-doing";
    let destroy = "--please-destroy-my-drive";
    // What each case must show: Same (stdout and exit status as hdparm's), Refused (both
    // refuse with hdparm's guard text; hdparm prints the header first: exit:guard-first),
    // OursRefuses (hdparm skips it silently without IDENTIFY, we keep its guard), Explained
    // (hdparm is silent without IDENTIFY, we say why and fail: stderr:sectors-no-identify).
    #[derive(PartialEq)]
    enum Want {
        Same,
        Refused,
        OursRefuses,
        Explained,
    }
    let cases: &[(&[&str], &str, Want)] = &[
        // The raw-device check fails on HDIO_GETGEO: both exit 25 (ENOTTY).
        (&[know, "--write-sector", "1", dev], "", Want::Same),
        (&[know, "--repair-sector", "1", dev], "", Want::Same),
        (
            &[destroy, "--trim-sector-ranges", "0:8", dev],
            "",
            Want::Same,
        ),
        (&[destroy, "--set-sector-size", "4096", dev], "", Want::Same),
        (&["--write-sector", "1", dev], "", Want::Refused),
        (&["--trim-sector-ranges", "0:8", dev], "", Want::Refused),
        (&["--trim-sector-ranges-stdin", dev], "0:8\n", Want::Refused),
        (&["--set-sector-size", "4096", dev], "", Want::Refused),
        (&["--dco-restore", dev], "", Want::Refused),
        (&["--make-bad-sector", "1", dev], "", Want::OursRefuses),
        (
            &[destroy, "--trim-sector-ranges-stdin", dev],
            "0:8\n",
            Want::Explained,
        ),
        (&[know, "--make-bad-sector", "1", dev], "", Want::Explained),
        (&["--drq-hsm-error", dev], "", Want::Explained),
        (&["-N", "8", dev], "", Want::Explained),
    ];
    for (args, stdin, want_kind) in cases {
        let want = run(&reference, args, stdin.as_bytes());
        let got = run(&ours, args, stdin.as_bytes());
        let got_err = String::from_utf8_lossy(&got.stderr).into_owned();
        match want_kind {
            Want::Same => {
                assert_eq!(got.stdout, want.stdout, "stdout of {args:?}");
                assert_eq!(got.status.code(), want.status.code(), "exit of {args:?}");
            }
            Want::Refused | Want::OursRefuses => {
                assert_eq!(
                    got.stdout, b"",
                    "{args:?}: a refusal prints nothing on stdout"
                );
                assert!(
                    got_err.ends_with("Program aborted.\n"),
                    "{args:?}: {got_err}"
                );
                assert_eq!(got.status.code(), Some(1), "{args:?}");
                if *want_kind == Want::Refused {
                    assert_eq!(got.stderr, want.stderr, "{args:?}: hdparm's guard text");
                    assert_eq!(want.status.code(), Some(1), "{args:?}");
                } else {
                    assert_eq!(want.status.code(), Some(0), "{args:?}: hdparm skips it");
                }
            }
            Want::Explained => {
                assert_eq!(got.stdout, want.stdout, "stdout of {args:?}");
                assert!(
                    got_err.contains("reads the drive's IDENTIFY data")
                        && got_err.contains("loop device"),
                    "{args:?}: {got_err}"
                );
                assert_eq!(got.status.code(), Some(25), "{args:?}");
            }
        }
        assert_eq!(head(&lo), pattern, "{args:?} changed the device");
    }
    // The raw-device check's line is hdparm's, with our reason added.
    let got = run(&ours, &[know, "--write-sector", "1", dev], b"");
    let want = run(&reference, &[know, "--write-sector", "1", dev], b"");
    let (want_err, got_err) = common::normalise_stderr(
        &want.stderr,
        &reference.to_string_lossy(),
        &got.stderr,
        &ours.to_string_lossy(),
    );
    assert_eq!(
        String::from_utf8_lossy(&got_err),
        String::from_utf8_lossy(&want_err)
    );
    assert!(String::from_utf8_lossy(&want_err).contains(" HDIO_GETGEO failed"));
}
