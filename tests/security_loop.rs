//! The security and sanitize options through both binaries on a loop device (needs root,
//! losetup and the reference hdparm 9.65): a loop device takes no ATA command, so each run
//! ends in a failure, but what is printed before it (the parse-time `security_password:` line,
//! the header, the ` Issuing ...` line), the guard texts and the failure labels are hdparm's.
//! stdout must be identical (but for the guard refusals, which we give before any header:
//! their stderr must be identical instead); our stderr must keep hdparm's label
//! (`SECURITY_UNLOCK:`...), and both must fail.
//!
//! The drive-side behaviour (taskfiles, data sectors, timeouts) is tested over the fake in
//! `src/exec/steps/tests/`; the drive model of the VM bench will compare both binaries' wire.

mod common;

use std::io::Write;
use std::process::{Command, Output, Stdio};

/// Runs `program` with `args` and `dev` last, in a new session (no controlling terminal, so
/// a password prompt reads `stdin`).
fn run(program: &std::path::Path, args: &[&str], dev: &str, stdin: &[u8]) -> Output {
    let mut child = Command::new("setsid")
        .arg(program)
        .args(args)
        .arg(dev)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run setsid");
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(stdin);
    }
    child.wait_with_output().expect("wait")
}

#[test]
fn security_and_sanitize_on_a_loop_device_print_what_hdparm_prints() {
    if !common::is_root() {
        return common::skip("security_loop", "needs root for losetup");
    }
    let Some(reference) = common::reference_hdparm() else {
        return common::skip("security_loop", "no reference hdparm 9.65");
    };
    let Some(lo) = common::Loop::new("security", 8) else {
        return common::skip("security_loop", "losetup failed");
    };
    let hex = format!("hex:41{}", "0".repeat(62));
    // (arguments, stdin, hdparm's label on stderr for the failure, or "" for none)
    let cases: Vec<(Vec<&str>, &[u8], &str)> = vec![
        (vec!["--security-unlock", "abc"], b"", "SECURITY_UNLOCK:"),
        (
            vec!["--security-set-pass", "NULL"],
            b"",
            "SECURITY_SET_PASS:",
        ),
        (
            vec!["--security-mode", "m", "--security-set-pass", "pw"],
            b"",
            "SECURITY_SET_PASS:",
        ),
        (vec!["--security-disable", &hex], b"", "SECURITY_UNLOCK:"),
        (vec!["--security-erase", "pw"], b"", "ERASE_PREPARE:"),
        (
            vec!["--user-master", "m", "--security-erase-enhanced", "pw"],
            b"",
            "ERASE_PREPARE:",
        ),
        (
            vec!["--user-master", "m", "--security-set-pass", "pw"],
            b"",
            "",
        ),
        (
            vec!["--security-prompt-for-password", "--security-unlock"],
            b"secret\n",
            "SECURITY_UNLOCK:",
        ),
        (vec!["--sanitize-status"], b"", ""),
        (vec!["--sanitize-freeze-lock"], b"", ""),
        (
            vec!["--sanitize-block-erase"],
            b"",
            "Use of --sanitize is VERY DANGEROUS.",
        ),
        (
            vec!["--sanitize-overwrite", "hex:12345678"],
            b"",
            "Use of --sanitize is VERY DANGEROUS.",
        ),
        (
            vec!["--yes-i-know-what-i-am-doing", "--sanitize-crypto-scramble"],
            b"",
            "",
        ),
    ];
    let ours = common::our_hdparm();
    let mut failures = Vec::new();
    for (args, stdin, label) in &cases {
        let theirs_out = run(&reference, args, &lo.dev, stdin);
        let ours_out = run(&ours, args, &lo.dev, stdin);
        let name = args.join(" ");
        // A guard refusal: hdparm prints the header first, we refuse before any device
        // (DIFFERENCES.md, exit:guard-first); the refusal itself is the same text.
        let guard = label.starts_with("Use of");
        if guard && theirs_out.stderr != ours_out.stderr {
            failures.push(format!("{name}: the guard texts differ"));
        }
        if !guard && theirs_out.stdout != ours_out.stdout {
            failures.push(format!(
                "{name}: stdout differs:\n hdparm: {:?}\n ours:   {:?}",
                String::from_utf8_lossy(&theirs_out.stdout),
                String::from_utf8_lossy(&ours_out.stdout)
            ));
        }
        if theirs_out.status.success() || ours_out.status.success() {
            failures.push(format!("{name}: both must fail on a loop device"));
        }
        let theirs_err = String::from_utf8_lossy(&theirs_out.stderr);
        let ours_err = String::from_utf8_lossy(&ours_out.stderr);
        let both_carry = theirs_err.contains(label) && ours_err.contains(label);
        if !label.is_empty() && !both_carry {
            failures.push(format!(
                "{name}: both stderr should carry {label:?}:\n hdparm: {theirs_err:?}\n ours:   {ours_err:?}"
            ));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
