//! The steps, run through the real parser and the binary's per-device function over the
//! scripted fake: the commands sent, the lines printed, which failures stop what, and the exit
//! class. Expected texts are hdparm 9.65's (reference §4.1, §4.2, §5.1).

use super::STEPS;
use crate::ata::command::op;
use crate::exec::access::{AtaOutput, HdioSetting};
use crate::exec::fake::{aborted, refused, run_on, run_on_all, Call, FakeDevice};

const HEADER: &str = "\n/dev/x:\n";

/// IDENTIFY of a libata SATA disk (a WD10EFRX, reference §5.2): 48-bit, FLUSH CACHE EXT,
/// write cache and look-ahead on, APM level 254, AAM 254 (recommended 128), write-read-verify
/// supported and enabled, multiple-sector count 16 of 16, UDMA 0-6 with 6 selected.
fn sata_words() -> [u16; 256] {
    let mut w = [0u16; 256];
    w[0] = 0x0C5A;
    w[47] = 0x8010;
    w[49] = 0x2F00;
    w[53] = 0x0007;
    w[59] = 0x0110;
    w[60] = 0xFFFF;
    w[61] = 0x0FFF;
    w[63] = 0x0007;
    w[64] = 0x0003;
    w[80] = 0x07F0;
    w[82] = 0x746B;
    w[83] = 0x7F69;
    w[84] = 0x6163;
    w[85] = 0x7469;
    w[86] = 0xBC49;
    w[88] = 0x407F;
    w[91] = 0x40FE;
    w[94] = 0x80FE;
    w[100] = 0x6DB0;
    w[101] = 0x7470;
    w[119] = 0x4002;
    w[120] = 0x4002;
    w
}

fn sata() -> FakeDevice {
    FakeDevice::libata_disk(sata_words())
}

/// A disk that supports none of the optional features the gets look at (28-bit only).
fn bare() -> FakeDevice {
    let mut w = [0u16; 256];
    w[49] = 0x0200;
    w[60] = 0x1000;
    w[83] = 0x4000;
    FakeDevice::libata_disk(w)
}

fn set_features(feature: u16, count: u16) -> (u8, u16, u16) {
    (op::SETFEATURES, feature, count)
}

// ---- the order ------------------------------------------------------------------------

#[test]
fn steps_follow_hdparm_numbering() {
    let numbers: Vec<u8> = STEPS.iter().map(|(n, _)| *n).collect();
    assert!(
        numbers.windows(2).all(|p| p[0] < p[1]),
        "steps out of §3 order: {numbers:?}"
    );
}

#[test]
fn commands_go_out_in_hdparm_order_whatever_the_command_line_order() {
    let o = run_on(sata(), "-S12 -W1 -R1 -M128 -B200 -A1 -P4 -D1 -K1 /dev/x");
    assert_eq!(
        o.ata(),
        vec![
            set_features(0x66, 0),
            set_features(0x04, 0),
            set_features(0xAB, 4),
            set_features(0xAA, 0),
            set_features(0x05, 200),
            set_features(0x42, 128),
            set_features(0x0B, 1),
            (op::SETIDLE, 0, 12),
        ]
    );
    // -W1 goes through the kernel's HDIO_SET_WCACHE, between -R and -S.
    let actions = o.actions();
    let wcache = actions.iter().position(|c| *c == Call::HdioSetWcache(true));
    assert!(wcache.is_some_and(|i| i > 6), "{actions:?}");
    assert_eq!(o.exit, 0);
}

#[test]
fn kernel_sets_come_before_drive_sets_and_gets_after_all_sets() {
    let o = run_on(sata(), "-B254 -a64 -r0 /dev/x");
    assert_eq!(
        o.actions(),
        vec![
            Call::SetReadahead(64),
            Call::SetReadonly(false),
            Call::Ata(crate::ata::command::TaskFile::drive_cmd([
                op::SETFEATURES,
                254,
                0x05,
                0
            ])),
            Call::Readonly,
            Call::Readahead,
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting fs readahead to 64\n setting readonly to 0 (off)\n \
setting Advanced Power Management level to 0xfe (254)\n readonly      =  0 (off)\n \
readahead     = 256 (on)\n APM_level\t= 254\n"
        )
    );
}

// ---- failures: what stops and what does not --------------------------------------------

#[test]
fn an_aborted_set_is_reported_and_the_next_steps_still_run() {
    let fake = sata().on_ata(op::SETFEATURES, Some(0x05), Err(aborted(op::SETFEATURES)));
    let o = run_on(fake, "-B128 -M128 /dev/x");
    assert_eq!(
        o.ata(),
        vec![set_features(0x05, 128), set_features(0x42, 128)]
    );
    assert!(
        o.stderr
            .starts_with(" HDIO_DRIVE_CMD failed: ATA command 0xef failed"),
        "{}",
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1);
    assert!(o
        .stdout
        .contains(" acoustic      = 254 (128=quiet ... 254=fast)\n"));
    assert_eq!(o.exit, 5);
}

#[test]
fn a_failing_device_does_not_stop_the_next() {
    let first = sata().on_ata(op::SETIDLE, None, Err(aborted(op::SETIDLE)));
    let o = run_on_all(vec![first, sata()], "-S1 /dev/x /dev/y");
    assert_eq!(o.ata(), vec![(op::SETIDLE, 0, 1), (op::SETIDLE, 0, 1)]);
    assert_eq!(
        o.stdout
            .matches(" setting standby to 1 (5 seconds)\n")
            .count(),
        2
    );
    assert!(o.stdout.contains("\n/dev/y:\n"));
    assert_eq!(o.exit, 5);
}

#[test]
fn a_device_that_does_not_open_is_reported_and_the_rest_run() {
    let o = run_on_all(vec![sata()], "-y /dev/x /dev/missing");
    assert_eq!(o.ata(), vec![(op::STANDBYNOW1, 0, 0)]);
    assert_eq!(o.stderr, "/dev/missing: No such file or directory\n");
    assert_eq!(o.exit, 2);
}

#[test]
fn errno_decides_the_class_of_an_ioctl_failure() {
    let enotty = run_on(
        sata().failing(Call::SetReadahead(8), libc::ENOTTY),
        "-a8 /dev/x",
    );
    assert_eq!(
        enotty.stderr,
        " BLKRASET failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata))\n"
    );
    assert_eq!(enotty.exit, 25);
    let einval = run_on(
        sata().failing(Call::SetReadahead(8), libc::EINVAL),
        "-a8 /dev/x",
    );
    assert_eq!(einval.exit, 25);
    let eio = run_on(
        sata().failing(Call::SetReadahead(8), libc::EIO),
        "-a8 /dev/x",
    );
    assert_eq!(eio.stderr, " BLKRASET failed: Input/output error\n");
    assert_eq!(eio.exit, 5);
    // The get after the failed set still runs.
    assert!(eio.stdout.ends_with(" readahead     = 256 (on)\n"));
}

#[test]
fn libata_lacking_an_ide_setting_says_so() {
    let o = run_on(sata(), "-u1 /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} setting unmaskirq to 1 (on)\n"));
    assert_eq!(
        o.stderr,
        " HDIO_SET_UNMASKINTR failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata); \
libata has no such setting: the kernel manages DMA, interrupts and multiple-sector I/O itself)\n \
HDIO_GET_UNMASKINTR failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata); \
libata has no such setting: the kernel manages DMA, interrupts and multiple-sector I/O itself)\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn ata_commands_on_a_device_without_ata_are_not_applicable() {
    let o = run_on(FakeDevice::loop_device(), "-S1 /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_DRIVE_CMD(setidle) failed: /dev/x is a loop device\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn a_guard_refusal_sends_nothing_anywhere() {
    let o = run_on_all(vec![sata(), sata()], "-B1 /dev/x -s1 /dev/y");
    assert!(o.calls.is_empty(), "{:?}", o.calls);
    assert!(o.stderr.starts_with("Use of -s1 is VERY DANGEROUS.\n"));
    assert_eq!(o.stdout, "");
    assert_eq!(o.exit, 1);
}

// ---- settings.rs: kernel and HDIO sets -------------------------------------------------

#[test]
fn readahead_set_and_its_quiet_form() {
    let o = run_on(sata(), "-a128 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting fs readahead to 128\n readahead     = 256 (on)\n")
    );
    let q = run_on(sata(), "-q -a128 /dev/x");
    assert_eq!(q.stdout, "");
    assert_eq!(q.actions(), vec![Call::SetReadahead(128)]);
}

#[test]
fn pio_mode_messages_follow_hdparm_numbering() {
    let cases = [
        ("-p255", " attempting to auto-tune PIO mode\n", 255),
        ("-p4", " attempting to set PIO mode to 4\n", 4),
        ("-p102", " attempting to set MDMA mode to 2\n", 102),
        ("-p205", " attempting to set UDMA mode to 5\n", 205),
        // hdparm's name table gives pio4 the -X number 12, which -p reads as PIO mode 12.
        ("-p pio4", " attempting to set PIO mode to 12\n", 12),
    ];
    for (arg, line, mode) in cases {
        let o = run_on(FakeDevice::ide_disk(sata_words()), &format!("{arg} /dev/x"));
        assert_eq!(o.stdout, format!("{HEADER}{line}"), "{arg}");
        assert_eq!(o.actions(), vec![Call::HdioSetPioMode(mode)], "{arg}");
    }
    let o = run_on(
        sata().failing(Call::HdioSetPioMode(4), libc::ENOTTY),
        "-q -p4 /dev/x",
    );
    assert_eq!(o.stdout, "");
    assert!(o
        .stderr
        .starts_with(" HDIO_SET_PIO_MODE failed: Inappropriate ioctl"));
}

#[test]
fn ide_on_off_settings_print_and_set_then_read_back() {
    let cases = [
        (
            "-u0",
            HdioSetting::Unmask,
            " setting unmaskirq to 0 (off)\n",
            " unmaskirq     =  1 (on)\n",
        ),
        (
            "-d1",
            HdioSetting::Dma,
            " setting using_dma to 1 (on)\n",
            " using_dma     =  1 (on)\n",
        ),
        (
            "-n1",
            HdioSetting::Nowerr,
            " setting nowerr to 1 (on)\n",
            " nowerr        =  0 (off)\n",
        ),
        (
            "-k1",
            HdioSetting::KeepSettings,
            " setting keep_settings to 1 (on)\n",
            " keepsettings  =  0 (off)\n",
        ),
        (
            "-c3",
            HdioSetting::Io32bit,
            " setting 32-bit IO_support flag to 3\n",
            " IO_support    =  0 (default) \n",
        ),
    ];
    for (arg, what, set_line, get_line) in cases {
        let o = run_on(FakeDevice::ide_disk(sata_words()), &format!("{arg} /dev/x"));
        let value = u64::from(arg.as_bytes()[2] - b'0');
        assert_eq!(
            o.actions(),
            vec![Call::HdioSet(what, value), Call::HdioGet(what)],
            "{arg}"
        );
        assert_eq!(o.stdout, format!("{HEADER}{set_line}{get_line}"), "{arg}");
        assert_eq!(o.exit, 0, "{arg}");
    }
}

#[test]
fn multcount_on_the_ide_driver_is_an_ioctl() {
    let o = run_on(FakeDevice::ide_disk(sata_words()), "-m8 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting multcount to 8\n multcount     = 16 (on)\n")
    );
}

#[test]
fn multcount_on_libata_is_set_multiple_mode_behind_the_guard() {
    let refused = run_on(sata(), "-m8 /dev/x");
    assert!(refused.calls.is_empty());
    assert_eq!(refused.exit, 1);
    let o = run_on(sata(), "--yes-i-know-what-i-am-doing -m8 /dev/x");
    assert_eq!(o.ata(), vec![(op::SET_MULTIPLE, 0, 8)]);
    // The get reads word 59 (the value before the set: IDENTIFY is not re-read by a fake).
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting multcount to 8\n multcount     = 16 (on)\n")
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn multcount_beyond_the_drive_maximum_is_refused_before_sending() {
    let o = run_on(sata(), "--yes-i-know-what-i-am-doing -m32 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(
        o.stderr,
        "/dev/x: -m 32: the drive allows a multiple-sector count of 0 or a power of two up to 16; nothing was sent\n"
    );
    assert_eq!(o.exit, 22);
    let o = run_on(sata(), "--yes-i-know-what-i-am-doing -m6 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(o.exit, 22);
}

#[test]
fn multcount_failure_other_than_enotty_is_reported() {
    let ide = FakeDevice::ide_disk(sata_words())
        .failing(Call::HdioSet(HdioSetting::Multcount, 4), libc::EIO);
    let o = run_on(ide, "-q -m4 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(o.stderr, " HDIO_SET_MULTCOUNT failed: Input/output error\n");
    assert_eq!(o.exit, 5);
}

#[test]
fn readonly_and_queue_depth_sets() {
    let o = run_on(sata(), "-r1 -Q4 /dev/x");
    assert_eq!(
        o.actions(),
        vec![
            Call::SetReadonly(true),
            Call::SetQueueDepth(4),
            Call::QueueDepth,
            Call::Readonly
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting readonly to 1 (on)\n setting queue_depth to 4\n \
queue_depth   = 32\n readonly      =  0 (off)\n"
        )
    );
    let o = run_on(FakeDevice::loop_device(), "-Q4 /dev/x");
    assert!(o
        .stderr
        .contains(" queue_depth: No such file or directory (/dev/x is a loop device)\n"));
    assert_eq!(o.exit, 25);
}

#[test]
fn busstate_message_is_silenced_by_any_quiet() {
    let o = run_on(FakeDevice::ide_disk(sata_words()), "-b2 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting bus state to 2 (tristate)\n busstate      =  1 (on)\n")
    );
    // -q before another option still makes the whole run quiet: the set message goes, the
    // get that -b asked for stays.
    let o = run_on(FakeDevice::ide_disk(sata_words()), "-b2 -q -a /dev/x");
    assert_eq!(o.stdout, " busstate      =  1 (on)\n");
    assert!(o
        .actions()
        .contains(&Call::HdioSet(HdioSetting::Busstate, 2)));
}

// ---- features.rs: drive settings as ATA commands ---------------------------------------

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
        assert_eq!(o.exit, 0, "{arg}");
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
        .starts_with("/dev/x: -X 71: the drive does not list udma7"));
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
        matches!(actions[1], Call::HdioSetWcache(false)),
        "{actions:?}"
    );
    assert!(o.taskfiles().iter().all(|tf| tf.timeout_secs == 60));
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting drive write-caching to 0 (off)\n write-caching =  1 (on)\n")
    );
}

#[test]
fn write_cache_falls_back_to_set_features_when_the_ioctl_fails() {
    let fake = sata().failing(Call::HdioSetWcache(false), libc::EINVAL);
    let o = run_on(fake, "-q -W0 /dev/x");
    let flush = (op::FLUSHCACHE_EXT, 0, 0);
    assert_eq!(o.ata(), vec![flush, set_features(0x82, 0), flush]);
    assert_eq!(o.stderr, "");
    let fake = sata().failing(Call::HdioSetWcache(true), libc::EINVAL);
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
        " HDIO_DRIVE_CMD(setcache) failed: /dev/x is a loop device\n"
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

// ---- reports.rs: gets ------------------------------------------------------------------

#[test]
fn default_report_of_a_libata_disk_is_hdparms_sample() {
    let o = run_on(sata(), "/dev/x");
    assert_eq!(
        o.stdout,
        "\n/dev/x:\n multcount     = 16 (on)\n IO_support    =  1 (32-bit)\n readonly      =  0 (off)\n \
readahead     = 256 (on)\n geometry      = 121601/255/63, sectors = 1953525168, start = 0\n"
    );
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    assert_eq!(o.ata(), vec![]);
}

#[test]
fn default_report_of_an_ide_disk_has_all_eight_lines() {
    let o = run_on(FakeDevice::ide_disk(sata_words()), "/dev/x");
    let keys: Vec<&str> = o
        .stdout
        .lines()
        .skip(2)
        .filter_map(|l| l.split('=').next())
        .map(str::trim)
        .collect();
    assert_eq!(
        keys,
        [
            "multcount",
            "IO_support",
            "unmaskirq",
            "using_dma",
            "keepsettings",
            "readonly",
            "readahead",
            "geometry"
        ]
    );
}

#[test]
fn default_report_of_a_loop_device_fails_on_geometry_only() {
    let o = run_on(FakeDevice::loop_device(), "/dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} readonly      =  0 (off)\n readahead     = 256 (on)\n")
    );
    assert_eq!(
        o.stderr,
        " HDIO_GETGEO failed: Inappropriate ioctl for device (/dev/x is a loop device)\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn explicit_hdio_gets_report_what_the_default_report_skips() {
    let o = run_on(FakeDevice::loop_device(), "-c -u -d -k -n -b /dev/x");
    let labels: Vec<&str> = o
        .stderr
        .lines()
        .filter_map(|l| l.split(':').next())
        .collect();
    assert_eq!(
        labels,
        [
            " HDIO_GET_32BIT failed",
            " HDIO_GET_UNMASKINTR failed",
            " HDIO_GET_DMA failed",
            " HDIO_GET_KEEPSETTINGS failed",
            " HDIO_GET_NOWERR failed",
            " HDIO_GET_BUSSTATE failed"
        ]
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn multcount_get_falls_back_to_identify_and_fails_only_without_it() {
    let o = run_on(sata(), "-m /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} multcount     = 16 (on)\n"));
    let o = run_on(FakeDevice::loop_device(), "-m /dev/x");
    assert_eq!(o.stdout, HEADER);
    assert!(o
        .stderr
        .starts_with(" HDIO_GET_MULTCOUNT failed: Inappropriate ioctl for device"));
    assert_eq!(o.exit, 25);
    // Word 59 without its valid bit reads as 0.
    let mut w = sata_words();
    w[59] = 0x0010;
    let o = run_on(FakeDevice::libata_disk(w), "-m /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} multcount     =  0 (off)\n"));
}

#[test]
fn identify_gets_print_the_drive_state() {
    let o = run_on(sata(), "-A -W -B -M -R /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} look-ahead    =  1 (on)\n write-caching =  1 (on)\n APM_level\t= 254\n \
acoustic      = 254 (128=quiet ... 254=fast)\n write-read-verify =  2\n"
        )
    );
    assert_eq!(o.ata(), vec![]);
    let o = run_on(bare(), "-A -W -B -M -R /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} look-ahead    = not supported\n write-caching = not supported\n \
APM_level\t= not supported\n acoustic      = not supported\n write-read-verify = not supported\n"
        )
    );
}

#[test]
fn identify_gets_show_disabled_features_as_off() {
    let mut w = sata_words();
    w[85] &= !0x0060; // write cache and look-ahead off
    w[86] &= !0x0008; // APM off
    w[120] &= !0x0002; // write-read-verify off
    let o = run_on(FakeDevice::libata_disk(w), "-A -W -B -R /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} look-ahead    =  0 (off)\n write-caching =  0 (off)\n APM_level\t= off\n \
write-read-verify =  0\n"
        )
    );
}

#[test]
fn apm_needs_word_83_valid() {
    let mut w = sata_words();
    w[83] = 0x0008; // bit 3 set, but bits 15:14 do not say the word is valid
    let o = run_on(FakeDevice::libata_disk(w), "-B /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} APM_level\t= not supported\n"));
}

#[test]
fn identify_gets_without_identify() {
    let o = run_on(FakeDevice::loop_device(), "-B /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: -B reads the drive's IDENTIFY data: /dev/x is a loop device\n"
    );
    assert_eq!(o.exit, 25);
    let mut fake = sata();
    fake.identify = Err(aborted(op::IDENTIFY));
    let o = run_on(fake, "-W /dev/x");
    assert_eq!(o.stderr, "/dev/x: -W: the drive did not answer IDENTIFY\n");
    assert_eq!(o.exit, 5);
}

#[test]
fn hitachi_temperature() {
    let reading = |count: u8, error: u8| {
        let fake = sata().on_ata(
            0xF0,
            Some(1),
            Ok(AtaOutput {
                count,
                error,
                ..Default::default()
            }),
        );
        run_on(fake, "-H /dev/x").stdout
    };
    assert_eq!(
        reading(90, 0),
        format!(
            "{HEADER} drive temperature (celsius) is:  25\n drive temperature in range:  yes\n"
        )
    );
    assert!(reading(0, 0x10).contains("is:  under -20\n drive temperature in range:  no\n"));
    assert!(reading(0xFF, 0).contains("is:  over 107\n"));
}

#[test]
fn max_sectors_reads_the_native_maximum_with_the_drives_command() {
    // 48-bit drive: READ NATIVE MAX ADDRESS EXT; visible = native.
    let fake = sata().on_ata(
        op::READ_NATIVE_MAX_EXT,
        None,
        Ok(AtaOutput {
            lba: 1953525167,
            ..Default::default()
        }),
    );
    let o = run_on(fake, "-N /dev/x");
    let tf = &o.taskfiles()[0];
    assert_eq!(
        (tf.command, tf.lba48, tf.timeout_secs),
        (op::READ_NATIVE_MAX_EXT, true, 15)
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER} max sectors   = 1953525168/1953525168, HPA is disabled\n")
    );
    // 28-bit drive: READ NATIVE MAX ADDRESS, LBA 27:24 from the device register; HPA on.
    let fake = bare().on_ata(
        op::READ_NATIVE_MAX,
        None,
        Ok(AtaOutput {
            lba: 0x00ff_ffff,
            device: 0x41,
            ..Default::default()
        }),
    );
    let o = run_on(fake, "-N /dev/x");
    assert_eq!(o.ata(), vec![(op::READ_NATIVE_MAX, 0, 0)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} max sectors   = 4096/33554432, HPA is enabled\n")
    );
}

#[test]
fn max_sectors_with_accessible_max_address_and_failures() {
    let mut w = sata_words();
    w[80] |= 0x0400; // ACS-3
    w[119] |= 0x0100; // Accessible Max Address
    let fake = FakeDevice::libata_disk(w).on_ata(
        op::GET_NATIVE_MAX_EXT,
        None,
        Ok(AtaOutput {
            lba: 2_000_000_000,
            ..Default::default()
        }),
    );
    let o = run_on(fake, "-N /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} max sectors   = 1953525168/2000000001, ACCESSIBLE MAX ADDRESS enabled\n\
Power cycle your device after every ACCESSIBLE MAX ADDRESS\n"
        )
    );
    let fake = sata().on_ata(op::READ_NATIVE_MAX_EXT, None, Err(aborted(0x27)));
    let o = run_on(fake, "-N /dev/x");
    assert!(o
        .stderr
        .starts_with(" READ_NATIVE_MAX_ADDRESS_EXT failed: "));
    assert_eq!(o.stdout, HEADER);
    assert_eq!(o.exit, 5);
}

#[test]
fn kernel_identity_failures_by_errno() {
    let o = run_on(sata(), "-i /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_GET_IDENTITY failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata))\n"
    );
    assert_eq!(o.exit, 25);
    let mut fake = sata();
    fake.identity = Err(std::io::Error::from_raw_os_error(libc::EIO));
    let o = run_on(fake, "-i /dev/x");
    assert_eq!(o.stderr, " HDIO_GET_IDENTITY failed: Input/output error\n");
    assert_eq!(o.exit, 5);
}

#[test]
fn kernel_identity_shows_the_multcount_found_before() {
    let mut raw = [0u8; 512];
    for (i, w) in sata_words().iter().enumerate() {
        raw[2 * i..2 * i + 2].copy_from_slice(&w.to_le_bytes());
    }
    let mut fake = FakeDevice::ide_disk(sata_words());
    fake.identity = Ok(raw);
    fake.hdio[0] = (HdioSetting::Multcount, 8);
    let o = run_on(fake, "-i /dev/x");
    assert!(
        o.stdout.contains("MaxMultSect=16, MultSect=8\n"),
        "{}",
        o.stdout
    );
    // -i alone reads the count but does not print the multcount line.
    assert!(!o.stdout.contains(" multcount "));
}

// ---- power.rs ---------------------------------------------------------------------------

#[test]
fn check_power_mode_states() {
    let state = |fake: FakeDevice| run_on(fake, "-C /dev/x");
    let answer = |count| {
        sata().on_ata(
            op::CHECKPOWERMODE1,
            None,
            Ok(AtaOutput {
                count,
                ..Default::default()
            }),
        )
    };
    assert_eq!(
        state(answer(0xFF)).stdout,
        format!("{HEADER} drive state is:  active/idle\n")
    );
    assert_eq!(
        state(answer(0x00)).stdout,
        format!("{HEADER} drive state is:  standby\n")
    );
    assert_eq!(
        state(answer(0x80)).stdout,
        format!("{HEADER} drive state is:  idle\n")
    );
    // The first opcode aborted: the old one is tried.
    let fake = sata()
        .on_ata(op::CHECKPOWERMODE1, None, Err(aborted(0xE5)))
        .on_ata(
            op::CHECKPOWERMODE2,
            None,
            Ok(AtaOutput {
                count: 0x41,
                ..Default::default()
            }),
        );
    let o = state(fake);
    assert_eq!(o.ata(), vec![(0xE5, 0, 0), (0x98, 0, 0)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} drive state is:  NVcache_spinup\n")
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn check_power_mode_failing_prints_unknown_and_fails() {
    let fake = sata()
        .on_ata(op::CHECKPOWERMODE1, None, Err(aborted(0xE5)))
        .on_ata(op::CHECKPOWERMODE2, None, Err(aborted(0x98)));
    let o = run_on(fake, "-C /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} drive state is:  unknown\n"));
    assert!(o
        .stderr
        .starts_with(" drive state unknown: ATA command 0x98 failed"));
    assert_eq!(o.exit, 5);
    let o = run_on(FakeDevice::loop_device(), "-C /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(o.stdout, format!("{HEADER} drive state is:  unknown\n"));
    assert_eq!(
        o.stderr,
        "/dev/x: -C needs an ATA drive: /dev/x is a loop device\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn standby_and_sleep_try_the_old_opcode_after_an_abort() {
    let o = run_on(sata(), "-y /dev/x");
    assert_eq!(o.ata(), vec![(op::STANDBYNOW1, 0, 0)]);
    assert_eq!(o.stdout, format!("{HEADER} issuing standby command\n"));
    let fake = sata().on_ata(op::SLEEPNOW1, None, Err(aborted(0xE6)));
    let o = run_on(fake, "-Y /dev/x");
    assert_eq!(o.ata(), vec![(op::SLEEPNOW1, 0, 0), (op::SLEEPNOW2, 0, 0)]);
    assert_eq!(o.stdout, format!("{HEADER} issuing sleep command\n"));
    assert_eq!(o.stderr, "");
    let fake = sata()
        .on_ata(op::SLEEPNOW1, None, Err(aborted(0xE6)))
        .on_ata(op::SLEEPNOW2, None, Err(aborted(0x99)));
    let o = run_on(fake, "-q -Y /dev/x");
    assert!(o
        .stderr
        .starts_with(" HDIO_DRIVE_CMD(sleep) failed: ATA command 0x99"));
    assert_eq!(o.exit, 5);
    // A device without ATA is not asked twice.
    let o = run_on(FakeDevice::loop_device(), "-q -y /dev/x");
    assert_eq!(o.ata(), vec![(op::STANDBYNOW1, 0, 0)]);
    assert_eq!(o.exit, 25);
}

#[test]
fn end_of_device_actions_in_order() {
    let o = run_on(sata(), "-w -Y -y --idle-immediate -z -f /dev/x");
    assert_eq!(
        o.actions(),
        vec![
            Call::FlushBufferCache,
            Call::RereadPartitions,
            Call::Ata(crate::ata::command::TaskFile::drive_cmd([
                op::IDLEIMMEDIATE,
                0,
                0,
                0
            ])),
            Call::Ata(crate::ata::command::TaskFile::drive_cmd([
                op::STANDBYNOW1,
                0,
                0,
                0
            ])),
            Call::Ata(crate::ata::command::TaskFile::drive_cmd([
                op::SLEEPNOW1,
                0,
                0,
                0
            ])),
            Call::HdioReset,
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} re-reading partition table\n issuing idle_immediate command\n \
issuing standby command\n issuing sleep command\n resetting drive\n"
        )
    );
    let q = run_on(sata(), "-q -w -q -Y -q -y -q --idle-immediate -q -z /dev/x");
    assert_eq!(q.stdout, "");
    assert_eq!(q.ata().len(), 3);
}

#[test]
fn end_of_device_action_failures() {
    let fake = sata()
        .failing(Call::FlushBufferCache, libc::EIO)
        .failing(Call::RereadPartitions, libc::EBUSY)
        .failing(Call::HdioReset, libc::ENOTTY);
    let o = run_on(fake, "-q -f -q -z -q -w /dev/x");
    assert_eq!(
        o.stderr,
        "BLKFLSBUF failed: Input/output error\n BLKRRPART failed: Device or resource busy\n \
HDIO_DRIVE_RESET failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata); \
libata has no such setting: the kernel manages DMA, interrupts and multiple-sector I/O itself)\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn flush_drive_cache_uses_the_ext_command_when_the_drive_has_it() {
    let o = run_on(sata(), "-F /dev/x");
    let tf = &o.taskfiles()[0];
    assert_eq!((tf.command, tf.timeout_secs), (op::FLUSHCACHE_EXT, 60));
    let o = run_on(bare(), "-F /dev/x");
    assert_eq!(o.ata(), vec![(op::FLUSHCACHE, 0, 0)]);
    let fake = bare().on_ata(op::FLUSHCACHE, None, Err(aborted(0xE7)));
    let o = run_on(fake, "-F /dev/x");
    assert!(o.stderr.starts_with(" HDIO_DRIVE_CMD(flushcache) failed: "));
    assert_eq!(o.exit, 5);
}

// ---- one errno-to-class mapping (crate::error::ErrorClass::of_errno) -----------------------

#[test]
fn every_ioctl_step_classes_errno_the_same_way() {
    // ENOSYS and ENODEV say the driver has no such request, like ENOTTY: not applicable.
    for (errno, exit) in [
        (libc::ENOTTY, 25),
        (libc::EINVAL, 25),
        (libc::EOPNOTSUPP, 25),
        (libc::ENOSYS, 25),
        (libc::ENODEV, 25),
        (libc::ENOENT, 25),
        (libc::EIO, 5),
        (libc::EBUSY, 5),
        (libc::EACCES, 5),
    ] {
        let o = run_on(
            sata().failing(Call::RereadPartitions, errno),
            "-q -z /dev/x",
        );
        assert_eq!(o.exit, exit, "BLKRRPART errno {errno}");
        let mut fake = sata();
        fake.identity = Err(std::io::Error::from_raw_os_error(errno));
        let o = run_on(fake, "-i /dev/x");
        assert_eq!(o.exit, exit, "HDIO_GET_IDENTITY errno {errno}");
        // Only "not applicable" says what the device is.
        assert_eq!(
            o.stderr.contains("(/dev/x is a SATA disk (libata))"),
            exit == 25,
            "{errno}: {}",
            o.stderr
        );
    }
}

// ---- -I, --Istdout ------------------------------------------------------------------------

#[test]
fn identify_outputs() {
    let o = run_on(sata(), "--Istdout /dev/x");
    let lines: Vec<&str> = o.stdout.lines().skip(2).collect();
    assert_eq!(lines.len(), 32);
    assert_eq!(lines[0], "0c5a 0000 0000 0000 0000 0000 0000 0000");
    assert_eq!(lines[11], "407f 0000 0000 40fe 0000 0000 80fe 0000");
    assert_eq!(lines[31], "0000 0000 0000 0000 0000 0000 0000 0000");
    assert_eq!(lines[10], "07f0 0000 746b 7f69 6163 7469 bc49 0000");
    let o = run_on(sata(), "-I /dev/x");
    assert!(o
        .stdout
        .starts_with("\n/dev/x:\n\nATA device, with non-removable media\n"));
    assert!(o
        .stdout
        .contains("\tAdvanced power management level: 254\n"));
    // No log is read when word 106 and word 78 ask for none.
    assert!(!o.calls.iter().any(|c| matches!(c, Call::ReadLog { .. })));
    assert_eq!(o.exit, 0);
    // Word 106 valid: the Sector Configuration log is wanted, so the log directory is read;
    // the fake has none, and -I goes on without it (hdparm's note on stderr, exit 0).
    let mut w = sata_words();
    w[106] = 0x4000;
    let o = run_on(FakeDevice::libata_disk(w), "-I /dev/x");
    let logs: Vec<&Call> = o
        .calls
        .iter()
        .filter(|c| matches!(c, Call::ReadLog { .. }))
        .collect();
    assert_eq!(logs, [&Call::ReadLog { log: 0, page: 0 }]);
    assert!(
        o.stderr.starts_with("READ_LOG_EXT(0,0) failed: "),
        "{}",
        o.stderr
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn identify_failures() {
    let o = run_on(FakeDevice::loop_device(), "-I /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: no ATA IDENTIFY data: /dev/x is a loop device\n"
    );
    assert_eq!(o.exit, 25);
    let mut fake = sata();
    fake.identify = Err(aborted(op::IDENTIFY));
    let o = run_on(fake, "-I /dev/x");
    assert!(o
        .stderr
        .starts_with("/dev/x: IDENTIFY failed: ATA command 0xec failed"));
    assert_eq!(o.stdout, HEADER);
    assert_eq!(o.exit, 5);
}

// ---- --read-sector (step 42) ------------------------------------------------------------

#[test]
fn read_sector_dumps_what_the_drive_read() {
    let fake = sata().on_ata_read(op::READ_PIO, &[0x12, 0x34, 0x56, 0x78]);
    let o = run_on(fake, "--read-sector 100 /dev/x");
    let tf = &o.taskfiles()[0];
    assert_eq!(
        (tf.command, tf.lba, tf.count, tf.lba48, tf.timeout_secs),
        (op::READ_PIO, 100, 1, false, 60)
    );
    assert!(o.calls.contains(&Call::AtaDataLen(512)));
    let mut expected = format!("{HEADER}reading sector 100: succeeded\n");
    for _ in 0..32 {
        expected.push_str("1234 5678 1234 5678 1234 5678 1234 5678\n");
    }
    assert_eq!(o.stdout, expected);
    assert_eq!(o.exit, 0);
}

#[test]
fn read_sector_beyond_lba28_uses_the_ext_command_and_the_logical_sector_size() {
    let mut fake = sata();
    fake.logical_sector_size = Ok(4096);
    let o = run_on(fake, "--read-sector 268435455 /dev/x");
    let tf = &o.taskfiles()[0];
    assert_eq!((tf.command, tf.lba48), (op::READ_PIO_EXT, true));
    assert!(o.calls.contains(&Call::AtaDataLen(4096)));
    // Header (2 lines), "reading sector ...: succeeded", 4096 bytes at 16 a line.
    assert_eq!(o.stdout.lines().count(), 2 + 1 + 256);
}

#[test]
fn read_sector_refusals_and_failures() {
    let mut fake = sata();
    fake.partition_refusal = Some("/dev/x is a partition. Aborting.".into());
    let o = run_on(fake, "--read-sector 1 /dev/x");
    assert_eq!(o.ata(), vec![]);
    assert_eq!(o.stderr, "/dev/x is a partition. Aborting.\n");
    assert_eq!(o.exit, 22);
    let mut fake = FakeDevice::loop_device();
    fake.partition_refusal = Some(" HDIO_GETGEO failed: Inappropriate ioctl for device".into());
    let o = run_on(fake, "--read-sector 1 /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_GETGEO failed: Inappropriate ioctl for device (/dev/x is a loop device)\n"
    );
    assert_eq!(o.exit, 25);
    let fake = sata().on_ata(op::READ_PIO, None, Err(aborted(op::READ_PIO)));
    let o = run_on(fake, "--read-sector 1 /dev/x");
    assert_eq!(o.stdout, format!("{HEADER}reading sector 1: "));
    assert!(o.stderr.starts_with("FAILED: ATA command 0x20 failed"));
    assert_eq!(o.exit, 5);
}

// ---- across steps --------------------------------------------------------------------------

#[test]
fn identify_is_read_afresh_after_the_sets() {
    let o = run_on(sata(), "-B128 -B /dev/x");
    let forget = o.calls.iter().position(|c| *c == Call::ForgetIdentify);
    let set = o.calls.iter().position(|c| matches!(c, Call::Ata(_)));
    let last_identify = o.calls.iter().rposition(|c| *c == Call::Identify);
    assert!(
        set < forget && forget < last_identify,
        "set, then forget, then the get's IDENTIFY: {:?}",
        o.calls
    );
}

#[test]
fn quiet_gets_do_nothing_at_all() {
    let o = run_on(sata(), "-q -A -q -W -q -B -q -M -q -R -q -c -q -r /dev/x");
    assert_eq!(o.stdout, "");
    assert_eq!(o.actions(), vec![]);
    assert_eq!(o.exit, 0);
}

#[test]
fn flags_accumulate_over_devices() {
    let o = run_on_all(vec![sata(), sata()], "-B254 /dev/x -M128 /dev/y");
    assert_eq!(
        o.ata(),
        vec![
            set_features(0x05, 254),
            set_features(0x05, 254),
            set_features(0x42, 128)
        ]
    );
}

#[test]
fn json_collects_the_lines_as_data_and_errors_as_messages() {
    let fake = sata().on_ata(op::SETFEATURES, Some(0x42), Err(aborted(op::SETFEATURES)));
    let o = run_on(fake, "--json -B254 -M128 /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    let device = &doc["devices"][0];
    assert_eq!(device["name"], "/dev/x");
    assert_eq!(device["kind"], "ata_disk");
    let settings: Vec<&str> = device["settings"]
        .as_array()
        .map(|a| a.iter().filter_map(|s| s["setting"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(settings, ["set", "set", "apm_level", "acoustic"]);
    assert_eq!(device["settings"][2]["apm"]["level"], 254);
    assert_eq!(device["messages"][0]["class"], "failed");
    assert_eq!(doc["hdparm_rs"]["exit_status"], 5);
    // The error line still goes to stderr; stdout holds only the document.
    assert!(o.stderr.starts_with(" HDIO_DRIVE_CMD:ACOUSTIC failed: "));
    assert_eq!(o.exit, 5);
}
