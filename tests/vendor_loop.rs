//! The firmware component's device options through the binary, against the reference hdparm,
//! on a loop device (root and losetup needed): `-J` get and set, `-E`, `--idle-unload`,
//! `--fwdownload`, the guards, and `--verbose`'s APT line. A loop device takes no ATA
//! commands, so this shows the paths up to the first refusal: the same stdout byte for byte,
//! hdparm's failure labels in the same order on stderr (ours add the reason in words,
//! DIFFERENCES.md stderr:explanations), and a failure exit where hdparm fails (the number is
//! the class, exit:errno). What the drive itself answers is shown by the step tests over the
//! scripted fake and, later, by the drive model behind TCMU.

mod common;

use std::process::{Command, Output};

fn run(prog: &std::path::Path, args: &[&str]) -> Output {
    Command::new(prog).args(args).output().unwrap()
}

/// The label of each stderr line: what comes before the first `: ` (the whole line if none).
fn labels(stderr: &[u8]) -> Vec<String> {
    String::from_utf8_lossy(stderr)
        .lines()
        .map(|l| l.split(": ").next().unwrap_or(l).to_string())
        .collect()
}

#[test]
fn vendor_and_firmware_options_on_a_loop_device_match_hdparm() {
    const TEST: &str = "vendor_and_firmware_options_on_a_loop_device_match_hdparm";
    if !common::is_root() {
        common::skip(TEST, "needs root (loop devices)");
        return;
    }
    let Some(reference) = common::reference_hdparm() else {
        common::skip(TEST, "no reference hdparm 9.65");
        return;
    };
    let Some(lp) = common::Loop::new("vendor", 8) else {
        common::skip(TEST, "losetup failed");
        return;
    };
    let fw = std::env::temp_dir().join(format!("hdparm-rs-vendor-fw-{}.bin", std::process::id()));
    std::fs::write(&fw, vec![0x5Au8; 2048]).unwrap();
    let fw = fw.to_string_lossy().into_owned();
    let dev = lp.dev.as_str();
    let cases: Vec<Vec<&str>> = vec![
        vec!["-J", dev],
        vec!["-J30", "--please-destroy-my-drive", dev],
        vec!["-q", "-J0", "--please-destroy-my-drive", dev],
        vec!["-E", "4", dev],
        vec!["-E0", dev],
        vec!["--idle-unload", dev],
        vec![
            "--fwdownload",
            &fw,
            "--yes-i-know-what-i-am-doing",
            "--please-destroy-my-drive",
            dev,
        ],
        vec![
            "--fwdownload-mode3-max",
            &fw,
            "--yes-i-know-what-i-am-doing",
            "--please-destroy-my-drive",
            dev,
        ],
        // The APT line on stdout. (`--verbose -J` differs: hdparm sends SG_IO to the loop
        // device and dumps the CDB; we send nothing to a node without ATA.)
        vec!["--verbose", "-a", dev],
    ];
    for args in &cases {
        let theirs = run(&reference, args);
        let ours = run(&common::our_hdparm(), args);
        assert_eq!(
            String::from_utf8_lossy(&ours.stdout),
            String::from_utf8_lossy(&theirs.stdout),
            "stdout of {args:?}"
        );
        assert_eq!(
            labels(&ours.stderr),
            labels(&theirs.stderr),
            "stderr of {args:?}:\nours:\n{}\nhdparm:\n{}",
            String::from_utf8_lossy(&ours.stderr),
            String::from_utf8_lossy(&theirs.stderr)
        );
        assert_eq!(
            ours.status.success(),
            theirs.status.success(),
            "exit of {args:?}: ours {:?}, hdparm {:?}",
            ours.status.code(),
            theirs.status.code()
        );
    }
    // A missing guard flag: hdparm's refusal byte for byte; the header hdparm prints before
    // it is not ours (DIFFERENCES.md exit:guard-first).
    let args = ["-J30", dev];
    let theirs = run(&reference, &args);
    let ours = run(&common::our_hdparm(), &args);
    assert_eq!(ours.stderr, theirs.stderr, "{args:?}");
    assert_eq!(ours.status.code(), Some(1));
    assert_eq!(ours.stdout, b"");
    assert_eq!(theirs.stdout, format!("\n{dev}:\n").into_bytes());
    // --fwdownload checks the raw device before its guards in hdparm (here: the geometry,
    // which a loop device lacks); ours refuses on the guard first (exit:guard-before-raw-check).
    let args = ["--fwdownload", &fw, "--yes-i-know-what-i-am-doing", dev];
    let theirs = run(&reference, &args);
    let ours = run(&common::our_hdparm(), &args);
    assert!(String::from_utf8_lossy(&ours.stderr)
        .starts_with("Use of --fwdownload is EXTREMELY DANGEROUS.\n"));
    assert_eq!(
        theirs.stderr,
        b" HDIO_GETGEO failed: Inappropriate ioctl for device\n"
    );
    let _ = std::fs::remove_file(&fw);
}
