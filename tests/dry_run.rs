//! `--dry-run` through the binary on a loop device: the plan names what would be done, and the
//! device is left as it was (read-ahead and read-only flag read back with blockdev).

mod common;

use common::{is_root, our_hdparm, skip, Loop};
use std::process::Command;

#[test]
fn a_dry_run_changes_nothing_and_says_what_it_would_do() {
    const TEST: &str = "dry_run";
    if !is_root() {
        return skip(TEST, "needs root (loop devices)");
    }
    let Some(disk) = Loop::new("dry-run", 8) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    let (readahead, readonly) = (disk.readahead(), disk.readonly());
    let out = Command::new(our_hdparm())
        .args(["--dry-run", "-a", "1024", "-r1", "-W0", "-y"])
        .arg(&disk.dev)
        .output()
        .expect("run our hdparm");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(
        stdout.contains(" dry run: nothing was sent to the drive\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" would call BLKRASET 1024 (read-ahead, sectors)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" would call BLKROSET 1 (read-only flag)\n"),
        "{stdout}"
    );
    // A loop device has no ATA: the plan says the ATA commands would fail, and why.
    assert!(stdout.contains("ATA commands would fail: "), "{stdout}");
    assert_eq!(disk.readahead(), readahead, "read-ahead changed");
    assert_eq!(disk.readonly(), readonly, "read-only flag changed");
}
