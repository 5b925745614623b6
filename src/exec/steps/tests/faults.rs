//! Faults in the middle of the destructive operations (issue 18 §6): a command that the drive
//! refuses, that times out, that a reset ends, or whose drive went away. After it nothing more
//! is sent to the drive (hdparm sends the rest of the command line; DIFFERENCES.md "faults"),
//! the exit class is the fault's, and one sentence says what state the drive is left in. The
//! VM's drive model injects the same faults (tests/vm/scenarios/model.tsv, `mid-*`).

use super::*;
use crate::ata::sat::Lost;
use crate::exec::doubles::fake::lost;

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const DESTROY: &str = "--please-destroy-my-drive";

/// A disk with the Security, SANITIZE and DOWNLOAD MICROCODE (segmented, 1 to 8 blocks) feature
/// sets and TRIM, not frozen.
fn drive() -> FakeDevice {
    let mut w = sata_words();
    w[59] |= 0x1000;
    w[89] = 100;
    w[92] = 0xFFFE;
    w[105] = 1;
    w[119] |= 0x10;
    w[120] |= 0x10;
    w[128] = 0x0021;
    w[169] = 1;
    w[234] = 1;
    w[235] = 8;
    FakeDevice::libata_disk(w)
}

/// A firmware file of 4 blocks, in the temp directory.
fn firmware() -> String {
    let path = std::env::temp_dir().join(format!("hdparm-rs-faults-{}.bin", std::process::id()));
    std::fs::write(&path, vec![0x5Au8; 2048]).unwrap();
    path.display().to_string()
}

/// The command lines, the command the fault hits, and a piece of each fault's sentence
/// (refused, timed out, reset, gone).
fn operations() -> Vec<(String, u8, [&'static str; 4])> {
    vec![
        (
            "--security-erase pw /dev/x".into(),
            op::SECURITY_ERASE_UNIT,
            [
                "the drive refused the security erase: its data may be partly erased",
                "did not answer the security erase in time: it may still be erasing",
                "was reset during the security erase: the erase stopped with its data partly erased, and the drive is locked with its password",
                "went away during the security erase",
            ],
        ),
        (
            format!("{KNOW} --sanitize-block-erase /dev/x"),
            0xB4,
            [
                "the drive refused the sanitize, so it did not start",
                "did not answer in time at the sanitize command: the sanitize may have started and may still be running",
                "was reset at the sanitize command",
                "went away with the sanitize command",
            ],
        ),
        (
            format!("--fwdownload {} {KNOW} {DESTROY} /dev/x", firmware()),
            op::DOWNLOAD_MICROCODE,
            [
                "refused segment 1 of 4 (at byte 0 of 2048) of the firmware download: it holds a partial firmware image",
                "did not answer in time during segment 1 of 4",
                "was reset during segment 1 of 4",
                "went away during segment 1 of 4",
            ],
        ),
        (
            format!("{DESTROY} --trim-sector-ranges 10:8 100:16 /dev/x"),
            op::DSM,
            [
                "refused TRIM command 1 (ranges 1 to 2 of the list): those ranges and the ones after them are not",
                "did not answer in time during TRIM command 1 (ranges 1 to 2 of the list): those ranges may be partly trimmed",
                "was reset during TRIM command 1",
                "went away during TRIM command 1",
            ],
        ),
    ]
}

#[test]
fn after_a_fault_nothing_more_is_sent_and_one_sentence_says_the_state() {
    let faults = [
        (None, 5),
        (Some(Lost::TimedOut), 5),
        (Some(Lost::Reset), 5),
        (Some(Lost::Gone), 2),
    ];
    for (line, command, words) in operations() {
        for ((how, exit), words) in faults.iter().zip(words) {
            let failure = match how {
                None => aborted(command),
                Some(l) => lost(*l),
            };
            let o = run_on(drive().on_ata(command, None, Err(failure)), &line);
            let sent = o.ata();
            let at = sent.iter().position(|c| c.0 == command);
            assert_eq!(
                at.map(|i| i + 1),
                Some(sent.len()),
                "{line} ({how:?}): commands after the fault: {sent:02x?}"
            );
            let last = o.stderr.lines().last().unwrap_or_default();
            assert!(
                last.starts_with("/dev/x: ") && last.contains(words),
                "{line} ({how:?}): {:?}",
                o.stderr
            );
            assert_eq!(o.exit, *exit, "{line} ({how:?}): {}", o.stderr);
        }
    }
}

#[test]
fn a_lost_drive_gets_none_of_the_options_after_it_and_an_abort_does_not_stop_them() {
    let line = "-B254 -W1 /dev/x";
    let apm = set_features(0x05, 0xFE);
    // -W goes through the kernel's HDIO_SET_WCACHE, which sends SET FEATURES to the drive
    let wcache = Call::Block(BlockCall::HdioSetWcache(true));
    let o = run_on(
        sata().on_ata(op::SETFEATURES, Some(0x05), Err(lost(Lost::TimedOut))),
        line,
    );
    assert_eq!(o.ata(), vec![apm], "{}", o.stderr);
    assert!(!o.calls.contains(&wcache));
    assert_ends_with(&o.stderr, "/dev/x: the drive did not answer in time (SET FEATURES (0xef, feature 0x05)): nothing more was sent to it, and the options after it were not done\n");
    assert_eq!(o.exit, 5);
    // the drive refusing one setting is an answer: hdparm goes on with the next, and so do we
    let o = run_on(
        sata().on_ata(op::SETFEATURES, Some(0x05), Err(aborted(0xEF))),
        line,
    );
    assert!(o.calls.contains(&wcache), "{:?}", o.calls);
    assert!(!o.stderr.contains("nothing more was sent"), "{}", o.stderr);
    // CHECK POWER MODE's second opcode is not tried on a drive that timed out
    let o = run_on(
        sata().on_ata(0xE5, None, Err(lost(Lost::TimedOut))),
        "-C /dev/x",
    );
    assert_eq!(o.ata(), vec![(0xE5, 0, 0)]);
    assert_eq!(o.exit, 5);
}
