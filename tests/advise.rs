//! `--advise` through the binary on a loop device (root): a rotating device with a small
//! read-ahead gets the advice and the exact command, the advice changes nothing, and once the
//! command is run there is nothing left to advise.

mod common;

use std::process::Command;

fn advise(args: &[&str]) -> (Option<i32>, String) {
    let out = Command::new(common::our_hdparm())
        .args(args)
        .output()
        .expect("run");
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

#[test]
fn small_read_ahead_is_advised_and_fixed_by_its_command() {
    let test = "small_read_ahead_is_advised_and_fixed_by_its_command";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("advise", 16) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let name = lo.dev.trim_start_matches("/dev/");
    // Loop devices report rotational as the kernel guesses; make it a disk that spins.
    let rotational = format!("/sys/block/{name}/queue/rotational");
    let _ = std::fs::write(&rotational, "1");
    common::blockdev(&["--setra", "16", &lo.dev]);
    let (status, text) = advise(&["--advise", &lo.dev]);
    assert_eq!(status, Some(0), "{text}");
    let fix = format!("    fix:  hdparm -a 256 {}\n", lo.dev);
    assert!(
        text.contains(" small_read_ahead: read-ahead is 16 sectors (8 KiB) on a rotating disk\n"),
        "{text}"
    );
    assert!(text.contains(&fix), "{text}");
    assert_eq!(lo.readahead(), "16", "--advise changed the setting");
    let (_, json) = advise(&["--json", "--advise", &lo.dev]);
    let doc: serde_json::Value = serde_json::from_str(&json).expect("JSON");
    assert_eq!(doc["devices"][0]["advice"][0]["rule"], "small_read_ahead");
    // Run the advised command; nothing is left to advise.
    let command: Vec<&str> = fix
        .trim()
        .trim_start_matches("fix:")
        .split_whitespace()
        .skip(1)
        .collect();
    let done = Command::new(common::our_hdparm())
        .args(&command)
        .output()
        .expect("fix");
    assert!(done.status.success());
    let (_, text) = advise(&["--advise", &lo.dev]);
    assert_eq!(text, format!("\n{}:\n nothing to advise\n", lo.dev));
}
