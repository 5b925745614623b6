//! Tests of `features.rs`: the drive settings sent as ATA commands (`-K -D -P -X -A -s -B -M
//! -R -W -S -L`, the freezes, `-Z`).

use super::*;

#[test]
fn each_set_features_option_sends_its_subcommand_and_prints_its_message() {
    let cases: [(&str, (u8, u16, u16), &str); 18] = [
        (
            "-K1",
            set_features(0x66, 0),
            " setting drive keep features to 1 (on)\n",
        ),
        (
            "-K0",
            set_features(0xCC, 0),
            " setting drive keep features to 0 (off)\n",
        ),
        (
            "-D1",
            set_features(0x04, 0),
            " setting drive defect management to 1\n",
        ),
        (
            "-D0",
            set_features(0x84, 0),
            " setting drive defect management to 0\n",
        ),
        (
            "-P200",
            set_features(0xAB, 200),
            " setting drive prefetch to 200\n",
        ),
        (
            "-A1",
            set_features(0xAA, 0),
            " setting drive read-lookahead to 1 (on)\n",
        ),
        (
            "-A0",
            set_features(0x55, 0),
            " setting drive read-lookahead to 0 (off)\n",
        ),
        (
            "-B1",
            set_features(0x05, 1),
            " setting Advanced Power Management level to 0x01 (1)\n",
        ),
        (
            "-B255",
            set_features(0x85, 0),
            " setting Advanced Power Management level to disabled\n",
        ),
        (
            "-M254",
            set_features(0x42, 254),
            " setting acoustic management to 254\n",
        ),
        (
            "-M0",
            set_features(0xC2, 0),
            " setting acoustic management to 0\n",
        ),
        (
            "-R3",
            set_features(0x0B, 3),
            " setting write-read-verify to 3\n",
        ),
        (
            "-R0",
            set_features(0x8B, 0),
            " setting write-read-verify to 0\n",
        ),
        ("-S0", (op::SETIDLE, 0, 0), " setting standby to 0 (off)\n"),
        (
            "-S245",
            (op::SETIDLE, 0, 245),
            " setting standby to 245 (2 hours + 30 minutes)\n",
        ),
        (
            "-S252",
            (op::SETIDLE, 0, 252),
            " setting standby to 252 (21 minutes)\n",
        ),
        (
            "-L1",
            (op::DOORLOCK, 0, 0),
            " setting drive doorlock to 1 (on)\n",
        ),
        (
            "-L0",
            (op::DOORUNLOCK, 0, 0),
            " setting drive doorlock to 0 (off)\n",
        ),
    ];
    for (arg, regs, message) in cases {
        // A drive supporting nothing, so the gets -A -B -M -R also schedule are one line each.
        let o = run_on(bare(), &format!("{arg} /dev/x"));
        assert_eq!(o.ata(), vec![regs], "{arg}");
        assert!(
            o.stdout.starts_with(&format!("{HEADER}{message}")),
            "{arg}: {}",
            o.stdout
        );
        // The drive takes the command but lists none of these features, so a set whose get
        // follows (-A -B -M -R) reads back "not supported": that set did not take (exit 5).
        let read_back = ["-A", "-B", "-M", "-R"].iter().any(|o| arg.starts_with(o));
        assert_eq!(o.exit, if read_back { 5 } else { 0 }, "{arg}");
        let quiet = run_on(bare(), &format!("-q {arg} /dev/x"));
        assert_eq!(quiet.ata(), vec![regs], "-q {arg}");
        assert_eq!(quiet.stdout, "", "-q {arg}");
    }
}

#[test]
fn each_drive_setting_has_its_own_failure_label() {
    let cases = [
        ("-K1", " HDIO_DRIVE_CMD(keepsettings) failed: "),
        ("-D1", " HDIO_DRIVE_CMD(defectmgmt) failed: "),
        ("-P1", " HDIO_DRIVE_CMD(setprefetch) failed: "),
        ("-A1", " HDIO_DRIVE_CMD(setreadahead) failed: "),
        ("-B1", " HDIO_DRIVE_CMD failed: "),
        ("-M1", " HDIO_DRIVE_CMD:ACOUSTIC failed: "),
        ("-R1", " HDIO_DRIVE_CMD:WRV failed: "),
        ("-S1", " HDIO_DRIVE_CMD(setidle) failed: "),
        ("-L1", " HDIO_DRIVE_CMD(doorlock) failed: "),
        ("--dco-freeze", " HDIO_DRIVE_CMD(dco_freeze) failed: "),
        (
            "--security-freeze",
            " HDIO_DRIVE_CMD(security_freeze) failed: ",
        ),
        ("-Z", " HDIO_DRIVE_CMD(seagatepwrsave) failed: "),
        (
            "--idle-immediate",
            " HDIO_DRIVE_CMD(idle_immediate) failed: ",
        ),
        ("-H", " HDIO_DRIVE_CMD(hitachisensecondition) failed: "),
    ];
    for (arg, label) in cases {
        let fake = bare()
            .on_ata(op::SETFEATURES, None, Err(aborted(op::SETFEATURES)))
            .on_ata(op::SETIDLE, None, Err(aborted(op::SETIDLE)))
            .on_ata(op::DOORLOCK, None, Err(aborted(op::DOORLOCK)))
            .on_ata(op::DCO, None, Err(aborted(op::DCO)))
            .on_ata(op::SECURITY_FREEZE_LOCK, None, Err(aborted(0xF5)))
            .on_ata(0xFB, None, Err(aborted(0xFB)))
            .on_ata(op::IDLEIMMEDIATE, None, Err(aborted(0xE1)))
            .on_ata(0xF0, None, Err(aborted(0xF0)));
        let o = run_on(fake, &format!("-q {arg} /dev/x"));
        assert!(o.stderr.starts_with(label), "{arg}: {}", o.stderr);
        assert_eq!(o.exit, 5, "{arg}");
    }
}

#[test]
fn doorlock_waits_fifteen_seconds() {
    let o = run_on(bare(), "-L1 /dev/x");
    assert_eq!(o.taskfiles()[0].timeout_secs, 15);
}

#[test]
fn xfer_mode_is_sent_when_the_drive_lists_it() {
    let o = run_on(sata(), "-X udma5 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x03, 69)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting xfermode to 69 (UltraDMA mode5)\n")
    );
    let o = run_on(sata(), "-X 34 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x03, 34)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting xfermode to 34 (multiword DMA mode2)\n")
    );
}

#[test]
fn xfer_mode_the_drive_does_not_list_is_refused_before_sending() {
    let o = run_on(sata(), "-X udma7 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting xfermode to 71 (UltraDMA mode7)\n")
    );
    assert!(o
        .stderr
        .starts_with("/dev/x: -X udma7: the drive does not list udma7"));
    assert_eq!(o.exit, 22);
}

#[test]
fn xfer_mode_refused_by_libata_explains_who_owns_the_mode() {
    let o = run_on(
        sata().on_ata(op::SETFEATURES, Some(3), Err(refused())),
        "-q -X udma6 /dev/x",
    );
    assert_eq!(o.ata(), vec![set_features(0x03, 70)]);
    assert!(o
        .stderr
        .starts_with(" HDIO_DRIVE_CMD(setxfermode) failed: the kernel refused"));
    assert!(o.stderr.contains("libata does not pass SET FEATURES"));
    assert_eq!(o.exit, 5);
}

#[test]
fn powerup_in_standby_off_spins_up_first() {
    let o = run_on(sata(), "-s0 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x07, 0), set_features(0x86, 0)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} spin-up: setting power-up in standby to 0 (off)\n")
    );
    // The spin-up's own failure is ignored, as hdparm does.
    let fake = sata().on_ata(op::SETFEATURES, Some(0x07), Err(aborted(op::SETFEATURES)));
    let o = run_on(fake, "-q -s0 /dev/x");
    assert_eq!(o.stdout, " spin-up:");
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
}

#[test]
fn powerup_in_standby_on_needs_the_guard() {
    let o = run_on(sata(), "--yes-i-know-what-i-am-doing -s1 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x06, 0)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting power-up in standby to 1 (on)\n")
    );
    let fake = sata().on_ata(op::SETFEATURES, Some(0x06), Err(aborted(op::SETFEATURES)));
    let o = run_on(fake, "--yes-i-know-what-i-am-doing -s1 /dev/x");
    assert!(o
        .stderr
        .starts_with(" HDIO_DRIVE_CMD(powerup_in_standby) failed: "));
}

#[test]
fn write_cache_off_flushes_before_and_after() {
    let o = run_on(sata(), "-W0 /dev/x");
    let flush = (op::FLUSHCACHE_EXT, 0, 0);
    assert_eq!(o.ata(), vec![flush, flush]);
    let actions = o.actions();
    assert!(
        matches!(actions[1], Call::Block(BlockCall::HdioSetWcache(false))),
        "{actions:?}"
    );
    assert!(o.taskfiles().iter().all(|tf| tf.timeout_secs == 60));
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting drive write-caching to 0 (off)\n write-caching =  0 (off)\n")
    );
}

#[test]
fn write_cache_falls_back_to_set_features_when_the_ioctl_fails() {
    let fake = sata().failing(Call::Block(BlockCall::HdioSetWcache(false)), libc::EINVAL);
    let o = run_on(fake, "-q -W0 /dev/x");
    let flush = (op::FLUSHCACHE_EXT, 0, 0);
    assert_eq!(o.ata(), vec![flush, set_features(0x82, 0), flush]);
    assert_eq!(o.stderr, "");
    let fake = sata().failing(Call::Block(BlockCall::HdioSetWcache(true)), libc::EINVAL);
    let o = run_on(fake, "-q -W1 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x02, 0)]);
}

#[test]
fn write_cache_on_a_28_bit_drive_flushes_with_flush_cache() {
    let o = run_on(bare(), "-q -W0 /dev/x");
    assert_eq!(
        o.ata(),
        vec![(op::FLUSHCACHE, 0, 0), (op::FLUSHCACHE, 0, 0)]
    );
}

#[test]
fn write_cache_on_a_device_without_ata() {
    let o = run_on(FakeDevice::loop_device(), "-q -W1 /dev/x");
    assert_eq!(o.ata(), vec![set_features(0x02, 0)]);
    assert_eq!(
        o.stderr,
        " HDIO_DRIVE_CMD(setcache) failed: /dev/x is a loop device; it has no ATA interface\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn freezes_and_seagate_powersave_are_silenced_by_quiet() {
    let o = run_on(sata(), "--dco-freeze --security-freeze -Z /dev/x");
    assert_eq!(
        o.ata(),
        vec![
            (op::DCO, 0xC1, 0),
            (op::SECURITY_FREEZE_LOCK, 0, 0),
            (0xFB, 0, 0)
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} issuing DCO freeze command\n issuing security freeze command\n \
disabling Seagate auto powersaving mode\n"
        )
    );
    let o = run_on(sata(), "-q --dco-freeze --security-freeze -Z /dev/x");
    assert_eq!(o.ata().len(), 3);
    assert_eq!(o.stdout, "");
}
