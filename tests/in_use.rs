//! The refusal of a drive in use (ours; DIFFERENCES.md "in use"), through the binary, on a loop
//! device: with an ext4 file system mounted on it, and used as swap, every destructive option
//! (with the guard flags it needs) is refused with one sentence naming the mount point or the
//! swap, exit status 16 (busy), and the disk's bytes are unchanged. Unmounted, the same command lines
//! are not refused for being in use.

mod common;

use common::{is_root, our_hdparm, skip, Loop};
use std::process::Command;

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const DESTROY: &str = "--please-destroy-my-drive";

/// Each destructive operation, as a user would type it (device last, added by the test).
fn destructive_command_lines() -> Vec<Vec<&'static str>> {
    vec![
        vec!["--security-set-pass", "secret"],
        vec!["--security-erase", "secret"],
        vec!["--security-erase-enhanced", "secret"],
        vec![KNOW, "--sanitize-block-erase"],
        vec![KNOW, "--sanitize-crypto-scramble"],
        vec![KNOW, "--sanitize-overwrite", "hex:11223344"],
        vec![DESTROY, "--trim-sector-ranges", "8:8"],
        vec![DESTROY, "--trim-sector-ranges-stdin"],
        vec![KNOW, "--write-sector", "8"],
        vec![KNOW, "--repair-sector", "8"],
        vec![KNOW, "--make-bad-sector", "8"],
        vec![DESTROY, "--set-sector-size", "4096"],
        vec![KNOW, DESTROY, "--fwdownload", "/dev/null"],
        vec![KNOW, "-N", "1000"],
        vec![KNOW, "--dco-restore"],
        vec![KNOW, "--dco-setmax", "1000"],
    ]
}

fn run(args: &[&str], dev: &str) -> (i32, String) {
    let out = Command::new(our_hdparm())
        .args(args)
        .arg(dev)
        .stdin(std::process::Stdio::null())
        .output()
        .expect("run our hdparm");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn ok(cmd: &mut Command) -> bool {
    cmd.status().is_ok_and(|s| s.success())
}

fn digest(path: &str) -> Vec<u8> {
    std::fs::read(path).expect("read the loop device")
}

#[test]
fn a_destructive_option_refuses_a_drive_with_a_mounted_file_system_or_swap() {
    const TEST: &str = "in_use";
    if !is_root() {
        return skip(TEST, "needs root (loop devices, mount)");
    }
    let Some(disk) = Loop::new("in-use", 32) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    if !ok(Command::new("mkfs.ext4").args(["-q", "-F", &disk.dev])) {
        return skip(TEST, "mkfs.ext4 failed (e2fsprogs)");
    }
    let mount_point = std::env::temp_dir().join(format!("hdparm-rs-in-use-{}", std::process::id()));
    std::fs::create_dir_all(&mount_point).expect("mount point");
    let mount_point_text = mount_point.to_string_lossy().into_owned();
    assert!(
        // Read-only: a mounted ext4 writes to its disk by itself (lazy inode-table init,
        // the journal), which would hide whether we wrote anything; mounted is mounted.
        ok(Command::new("mount").args(["-o", "ro", &disk.dev, &mount_point_text])),
        "mount {} on {mount_point_text}",
        disk.dev
    );
    let before = digest(&disk.dev);
    let mut refused = Vec::new();
    for args in destructive_command_lines() {
        let (status, stderr) = run(&args, &disk.dev);
        let expected = format!("{} is mounted on {mount_point_text}", disk.dev);
        if status != 16 || !stderr.contains("refusing") || !stderr.contains(&expected) {
            refused.push(format!("{args:?}: exit {status}, stderr {stderr:?}"));
        }
        assert_eq!(
            stderr.lines().count(),
            1,
            "{args:?}: one sentence: {stderr}"
        );
    }
    let after = digest(&disk.dev);
    let _ = Command::new("umount").arg(&mount_point).status();
    let _ = std::fs::remove_dir(&mount_point);
    assert!(
        refused.is_empty(),
        "not refused as mounted:\n{}",
        refused.join("\n")
    );
    assert!(before == after, "the mounted disk's bytes changed");

    // The same drive as swap.
    assert!(ok(Command::new("mkswap").args(["-q", &disk.dev])), "mkswap");
    assert!(ok(Command::new("swapon").arg(&disk.dev)), "swapon");
    let (status, stderr) = run(&[KNOW, "--write-sector", "8"], &disk.dev);
    let _ = Command::new("swapoff").arg(&disk.dev).status();
    assert_eq!(status, 16, "{stderr}");
    assert!(
        stderr.contains(&format!("{} is in use as swap", disk.dev)),
        "{stderr}"
    );

    // Unused: not refused for being in use (whatever the command itself then does).
    for args in destructive_command_lines() {
        let (_, stderr) = run(&args, &disk.dev);
        assert!(!stderr.contains("refusing"), "{args:?} unused: {stderr}");
    }
}

#[test]
fn a_drive_in_use_without_the_guard_flag_gets_hdparms_guard_text_first() {
    const TEST: &str = "in_use_guard_first";
    if !is_root() {
        return skip(TEST, "needs root (loop devices, swap)");
    }
    let Some(disk) = Loop::new("in-use-guard", 16) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    assert!(ok(Command::new("mkswap").args(["-q", &disk.dev])), "mkswap");
    assert!(ok(Command::new("swapon").arg(&disk.dev)), "swapon");
    let (status, stderr) = run(&["--write-sector", "8"], &disk.dev);
    let _ = Command::new("swapoff").arg(&disk.dev).status();
    assert_eq!(status, 1);
    assert!(
        stderr.starts_with("Use of --write-sector is VERY DANGEROUS."),
        "{stderr}"
    );
    assert!(!stderr.contains("refusing"), "{stderr}");
}
