//! Issue 18, "a stop stops": a signal during a destructive operation over several devices,
//! through the binary's device loop over scripted fakes that let the signal in while a given
//! command is being sent. What must hold: the command in flight ends, nothing more is sent to
//! that device or any later one, the report says which devices were done, which was
//! interrupted and in what state, and which were never started, and the run's status is the
//! signal's (128+N; the binary then dies of it).
//!
//! Before the fix, each erase reinstalled the handler (clearing the stop) and the device loop
//! never looked: the second drive was erased and the run exited 0.

use super::*;
use crate::exec::doubles::fake::{signal_before_the_run, Outcome};
use std::cell::RefCell;
use std::rc::Rc;

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const DESTROY: &str = "--please-destroy-my-drive";

/// A SATA disk with the Security feature set enabled (a password set), not frozen.
fn secured() -> FakeDevice {
    let mut w = sata_words();
    w[89] = 2;
    w[92] = 0xFFFE;
    w[128] = 0x0023;
    FakeDevice::libata_disk(w)
}

/// The ATA commands each device of a run got, by device.
fn commands(logs: &[Rc<RefCell<Vec<Call>>>]) -> Vec<Vec<u8>> {
    logs.iter()
        .map(|log| {
            log.borrow()
                .iter()
                .filter_map(|c| match c {
                    Call::Ata(tf) => Some(tf.command),
                    _ => None,
                })
                .collect()
        })
        .collect()
}

/// Runs `line` over `fakes` (device names /dev/x, /dev/y, /dev/z appended); the outcome and
/// the ATA commands each device got.
pub(super) fn run(fakes: Vec<FakeDevice>, line: &str) -> (Outcome, Vec<Vec<u8>>) {
    let logs: Vec<_> = fakes.iter().map(FakeDevice::log).collect();
    let names = ["/dev/x", "/dev/y", "/dev/z"][..fakes.len()].join(" ");
    let o = run_on_all(fakes, &format!("{line} {names}"));
    let sent = commands(&logs);
    (o, sent)
}

fn document(o: &Outcome) -> serde_json::Value {
    serde_json::from_str(&o.stdout).unwrap_or_else(|e| panic!("{e}: {}", o.stdout))
}

#[test]
fn sigterm_during_the_first_erase_sends_nothing_to_the_second_drive() {
    let first = secured().signal_during(op::SECURITY_ERASE_UNIT, 1, libc::SIGTERM);
    let (o, sent) = run(vec![first, secured()], "--security-erase pw");
    assert_eq!(
        sent[0]
            .iter()
            .filter(|&&c| c != op::IDENTIFY)
            .copied()
            .collect::<Vec<_>>(),
        vec![op::SECURITY_ERASE_PREPARE, op::SECURITY_ERASE_UNIT]
    );
    assert!(sent[1].is_empty(), "the second drive got {:02x?}", sent[1]);
    assert_eq!(o.exit, 128 + libc::SIGTERM as u8);
    assert_ends_with(&o.stderr, "stopped by SIGTERM: nothing more was sent to any device\n /dev/x: done: the stop came during SECURITY ERASE UNIT, which cannot be stopped; the drive finished it: erased, and its user password is cleared\n /dev/y: not started\n");
}

#[test]
fn the_report_is_in_the_json_document_too() {
    let first = secured().signal_during(op::SECURITY_ERASE_UNIT, 1, libc::SIGHUP);
    let (o, sent) = run(
        vec![first, secured(), secured()],
        "--json --security-erase pw",
    );
    assert!(sent[1].is_empty() && sent[2].is_empty());
    let doc = document(&o);
    assert_eq!(doc["hdparm_rs"]["exit_status"], 128 + libc::SIGHUP);
    let stop = &doc["stop"];
    assert_eq!(stop["signal"], "SIGHUP");
    assert_eq!(stop["signal_number"], libc::SIGHUP);
    let states: Vec<&str> = stop["devices"]
        .as_array()
        .map(|d| d.iter().filter_map(|d| d["state"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(states, ["done", "not_started", "not_started"]);
    assert_eq!(doc["messages"][0]["class"], "stopped");
    // The document, an interrupted device's detail included, is one the schema allows.
    let first = secured().signal_during(op::SECURITY_ERASE_PREPARE, 1, libc::SIGTERM);
    let (interrupted, _) = run(vec![first, secured()], "--json --security-erase pw");
    let docs = [
        ("done".to_string(), doc),
        ("interrupted".to_string(), document(&interrupted)),
    ];
    match crate::exec::tests::schema_failures(&docs) {
        Some(failures) => assert!(failures.is_empty(), "{failures:?}"),
        None => assert!(
            std::env::var("HDPARM_RS_REQUIRE_ALL").as_deref() != Ok("1"),
            "Python's jsonschema is not installed"
        ),
    }
}

#[test]
fn a_stop_during_erase_prepare_sends_no_erase_unit() {
    let first = secured().signal_during(op::SECURITY_ERASE_PREPARE, 1, libc::SIGINT);
    let (o, sent) = run(vec![first, secured()], "--security-erase pw");
    assert!(
        !sent[0].contains(&op::SECURITY_ERASE_UNIT),
        "{:02x?}",
        sent[0]
    );
    assert!(sent[1].is_empty());
    assert_eq!(o.exit, 130);
    assert_contains(&o.stderr, " /dev/x: interrupted: SECURITY ERASE PREPARE was sent, SECURITY ERASE UNIT was not: nothing was erased");
}

#[test]
fn an_erase_that_fails_after_the_stop_says_the_drive_is_locked_and_how_to_unlock_it() {
    let first = secured()
        .on_ata(
            op::SECURITY_ERASE_UNIT,
            None,
            Err(aborted(op::SECURITY_ERASE_UNIT)),
        )
        .signal_during(op::SECURITY_ERASE_UNIT, 1, libc::SIGQUIT);
    let (o, sent) = run(vec![first, secured()], "--security-erase pw");
    assert!(sent[1].is_empty());
    assert_eq!(o.exit, 128 + libc::SIGQUIT as u8);
    assert_contains(
        &o.stderr,
        " /dev/x: interrupted: the stop came during SECURITY ERASE UNIT, which ended in an error",
    );
    assert_contains(&o.stderr, "locked with the password until an erase completes; unlock it with --security-unlock PASSWORD /dev/x, or erase it again");
    // The password itself is in no report line.
    assert!(!o.stderr.contains("pw\n") && !o.stderr.contains("\"pw\""));
}

#[test]
fn a_stop_between_trim_batches_sends_no_further_batch() {
    // The Maxtor takes 64 ranges a command: three commands for 130 pairs.
    let mut fake = FakeDevice::libata_disk(super::hpa::real("maxtor")).signal_during(
        op::DSM,
        1,
        libc::SIGTERM,
    );
    fake.stdin = (0..130)
        .map(|i| format!("{}:1\n", i * 2))
        .collect::<String>()
        .into_bytes();
    let (o, sent) = run(vec![fake], &format!("{DESTROY} --trim-sector-ranges-stdin"));
    assert_eq!(sent[0].iter().filter(|&&c| c == op::DSM).count(), 1);
    assert_contains(&o.stderr, " /dev/x: interrupted: 1 TRIM command(s) were sent (64 sectors trimmed); the ranges after them were not trimmed");
    assert_eq!(o.exit, 143);
}

#[test]
fn a_stop_between_firmware_segments_says_the_drive_holds_a_partial_image() {
    let mut w = sata_words();
    w[119] |= 0x10;
    w[120] |= 0x10;
    w[234] = 1;
    w[235] = 8;
    let path = std::env::temp_dir().join(format!("hdparm-rs-stop-fw-{}.bin", std::process::id()));
    std::fs::write(&path, vec![0x5Au8; 2048]).unwrap();
    let fake = FakeDevice::libata_disk(w).signal_during(op::DOWNLOAD_MICROCODE, 2, libc::SIGTERM);
    // --fwdownload takes one device (hdparm's parser, clue 15).
    let (o, sent) = run(
        vec![fake],
        &format!("{KNOW} {DESTROY} --fwdownload {}", path.display()),
    );
    let _ = std::fs::remove_file(&path);
    // Two of the four 512-byte segments: the one in flight when the signal came ended.
    assert_eq!(
        sent[0]
            .iter()
            .filter(|&&c| c == op::DOWNLOAD_MICROCODE)
            .count(),
        2
    );
    assert_contains(
        &o.stderr,
        " /dev/x: interrupted: the drive holds a partial firmware image (1024 of 2048 bytes sent)",
    );
    assert_eq!(o.exit, 143);
}

#[test]
fn a_stop_during_the_native_max_read_sends_no_set_max() {
    let fake = super::hpa::samsung().signal_during(op::READ_NATIVE_MAX_EXT, 1, libc::SIGTERM);
    let (o, sent) = run(vec![fake], &format!("{KNOW} -N p1000000"));
    assert!(!sent[0].contains(&op::SET_MAX_EXT), "{:02x?}", sent[0]);
    assert_contains(
        &o.stderr,
        " /dev/x: interrupted: SET MAX ADDRESS was not sent: the drive is as it was",
    );
}

#[test]
fn sector_writes_over_three_drives_stop_after_the_one_in_flight() {
    // --write-sector and the TRIM options take one device (hdparm's parser); --make-bad-sector
    // takes several. The drive claims no WRITE UNCORRECTABLE EXT: WRITE LONG.
    let second =
        FakeDevice::libata_disk(sata_words()).signal_during(op::WRITE_LONG_ONCE, 1, libc::SIGINT);
    let (o, sent) = run(
        vec![
            FakeDevice::libata_disk(sata_words()),
            second,
            FakeDevice::libata_disk(sata_words()),
        ],
        &format!("{KNOW} --make-bad-sector 8"),
    );
    let long = op::WRITE_LONG_ONCE;
    assert!(
        sent[0].contains(&long) && sent[1].contains(&long),
        "{sent:02x?}"
    );
    assert!(sent[2].is_empty(), "{:02x?}", sent[2]);
    assert_ends_with(&o.stderr, "stopped by SIGINT: nothing more was sent to any device\n /dev/x: done\n /dev/y: done\n /dev/z: not started\n");
    assert_eq!(o.exit, 130);
}

#[test]
fn a_stop_before_the_first_device_sends_nothing_anywhere() {
    signal_before_the_run(libc::SIGTERM);
    let (o, sent) = run(vec![secured(), secured()], "--security-erase pw");
    assert!(sent.iter().all(Vec::is_empty), "{sent:02x?}");
    assert_ends_with(&o.stderr, " /dev/x: not started\n /dev/y: not started\n");
    assert_eq!(o.exit, 143);
}

#[test]
fn a_run_that_no_signal_stopped_reports_nothing() {
    let (o, _) = run(vec![secured(), secured()], "--security-erase pw");
    assert!(!o.stderr.contains("stopped by"), "{}", o.stderr);
    assert_eq!(o.exit, 0, "{}", o.stderr);
}
