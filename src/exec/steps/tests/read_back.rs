//! A set whose get follows, when the value read back is not the one set (issue 13 §2.5): hdparm
//! prints the contradicting line and exits 0; we print the same line, say on stderr that the
//! setting did not take, and exit 5.

use super::*;

#[test]
fn apm_look_ahead_and_acoustic_that_the_drive_does_not_list() {
    // QEMU's disks accept SET FEATURES for APM, look-ahead and AAM, and list none of them.
    for (args, line, message) in [
        (
            "-B254",
            " APM_level\t= not supported\n",
            "/dev/x: -B 254 was accepted, but APM_level reads back as not supported: the setting did not take\n",
        ),
        (
            "-A1",
            " look-ahead    = not supported\n",
            "/dev/x: -A 1 was accepted, but look-ahead reads back as not supported: the setting did not take\n",
        ),
        (
            "-M128",
            " acoustic      = not supported\n",
            "/dev/x: -M 128 was accepted, but acoustic reads back as not supported: the setting did not take\n",
        ),
    ] {
        let o = run_on(bare(), &format!("{args} /dev/x"));
        assert!(o.stdout.ends_with(line), "{args}: {}", o.stdout);
        assert_eq!(o.stderr, message, "{args}");
        assert_eq!(o.exit, 5, "{args}");
    }
}

#[test]
fn multcount_and_readonly_that_read_back_otherwise() {
    let o = run_on(
        sata().ignoring_sets(),
        "--yes-i-know-what-i-am-doing -m8 /dev/x",
    );
    assert_ends_with(&o.stdout, " multcount     = 16 (on)\n");
    assert_eq!(
        o.stderr,
        "/dev/x: -m 8 was accepted, but multcount reads back as 16: the setting did not take\n"
    );
    assert_eq!(o.exit, 5);
    // A CD-ROM stays read-only.
    let mut cd = bare().ignoring_sets();
    cd.readonly = Ok(1);
    let o = run_on(cd, "-r0 /dev/x");
    assert_ends_with(&o.stdout, " readonly      =  1 (on)\n");
    assert_eq!(
        o.stderr,
        "/dev/x: -r 0 was accepted, but readonly reads back as 1 (on): the setting did not take\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn a_set_that_took_or_failed_or_was_not_asked_for_adds_nothing() {
    // Took: the sticky fake reads back what was set.
    let o = run_on(sata(), "-B128 -A0 -M128 -W0 -r1 -Q4 /dev/x");
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    // Failed: the failure is the one line.
    let fake = bare().on_ata(op::SETFEATURES, Some(0x05), Err(aborted(op::SETFEATURES)));
    let o = run_on(fake, "-B254 /dev/x");
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert!(o.stderr.starts_with(" HDIO_DRIVE_CMD failed: "));
    // A get alone compares with nothing.
    let o = run_on(bare(), "-B -A -M /dev/x");
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    // -B255 disables APM: "off" is what it should read back.
    let o = run_on(sata(), "-B255 /dev/x");
    assert_ends_with(&o.stdout, " APM_level\t= off\n");
    assert_eq!(o.exit, 0);
}

#[test]
fn json_records_it_as_a_failure() {
    let o = run_on(bare(), "--json -B254 /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    let messages = &doc["devices"][0]["messages"];
    assert_eq!(messages[0]["class"], "failed", "{}", o.stdout);
    assert_eq!(doc["hdparm_rs"]["exit_status"], 5);
}
