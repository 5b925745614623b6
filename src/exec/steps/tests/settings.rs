//! Tests of `settings.rs`: the kernel and HDIO sets (`-a -p -c -m -r -u -d -Q -n -k -b`).

use super::*;

#[test]
fn readahead_set_and_its_quiet_form() {
    let o = run_on(sata(), "-a128 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting fs readahead to 128\n readahead     = 256 (on)\n")
    );
    let q = run_on(sata(), "-q -a128 /dev/x");
    assert_eq!(q.stdout, "");
    assert_eq!(q.actions(), vec![Call::Block(BlockCall::SetReadahead(128))]);
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
        assert_eq!(
            o.actions(),
            vec![Call::Block(BlockCall::HdioSetPioMode(mode))],
            "{arg}"
        );
    }
    let o = run_on(
        sata().failing(Call::Block(BlockCall::HdioSetPioMode(4)), libc::ENOTTY),
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
            " unmaskirq     =  0 (off)\n",
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
            " nowerr        =  1 (on)\n",
        ),
        (
            "-k1",
            HdioSetting::KeepSettings,
            " setting keep_settings to 1 (on)\n",
            " keepsettings  =  1 (on)\n",
        ),
        (
            "-c3",
            HdioSetting::Io32bit,
            " setting 32-bit IO_support flag to 3\n",
            " IO_support    =  3 (32-bit w/sync)\n",
        ),
    ];
    // The ide fake keeps what was set, as the old IDE driver does: the get reads it back.
    for (arg, what, set_line, get_line) in cases {
        let o = run_on(FakeDevice::ide_disk(sata_words()), &format!("{arg} /dev/x"));
        let value = u64::from(arg.as_bytes()[2] - b'0');
        assert_eq!(
            o.actions(),
            vec![
                Call::Block(BlockCall::HdioSet(what, value)),
                Call::Block(BlockCall::HdioGet(what))
            ],
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
        format!("{HEADER} setting multcount to 8\n multcount     =  8 (on)\n")
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn multcount_on_libata_is_set_multiple_mode_behind_the_guard() {
    let refused = run_on(sata(), "-m8 /dev/x");
    assert!(refused.calls.is_empty());
    assert_eq!(refused.exit, 1);
    let o = run_on(sata(), "--yes-i-know-what-i-am-doing -m8 /dev/x");
    assert_eq!(o.ata(), vec![(op::SET_MULTIPLE, 0, 8)]);
    // The get reads word 59, which the drive changed.
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting multcount to 8\n multcount     =  8 (on)\n")
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
fn multcount_on_a_drive_that_lists_no_multiple_count() {
    // IDENTIFY word 47 is 0 on every ATAPI drive: there is no "power of two up to 0".
    let mut words = sata_words();
    words[47] = 0x8000;
    let o = run_on(
        FakeDevice::libata_disk(words),
        "--yes-i-know-what-i-am-doing -m16 /dev/x",
    );
    assert_eq!(o.ata(), vec![]);
    assert_eq!(
        o.stderr,
        "/dev/x: -m 16: the drive lists no multiple-sector count (IDENTIFY word 47 is 0); \
only -m0 is accepted; nothing was sent\n"
    );
    assert_eq!(o.exit, 22);
}

#[test]
fn multcount_failure_other_than_enotty_is_reported() {
    let ide = FakeDevice::ide_disk(sata_words()).failing(
        Call::Block(BlockCall::HdioSet(HdioSetting::Multcount, 4)),
        libc::EIO,
    );
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
            Call::Block(BlockCall::SetReadonly(true)),
            Call::SetQueueDepth(4),
            Call::QueueDepth,
            Call::Block(BlockCall::Readonly)
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting readonly to 1 (on)\n setting queue_depth to 4\n \
queue_depth   =  4\n readonly      =  1 (on)\n"
        )
    );
    let o = run_on(FakeDevice::loop_device(), "-Q4 /dev/x");
    // hdparm's label: the attribute's path, for the set and the get alike (perror).
    let missing = "/sys/block/loop0/device/queue_depth: No such file or directory \
(/dev/x is a loop device; only SCSI devices have a queue depth setting)\n";
    assert_eq!(o.stderr, format!("{missing}{missing}"));
    assert_eq!(o.exit, 25);
}

#[test]
fn busstate_message_is_silenced_by_any_quiet() {
    let o = run_on(FakeDevice::ide_disk(sata_words()), "-b2 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting bus state to 2 (tristate)\n busstate      =  2 (tristate)\n")
    );
    // -q before another option still makes the whole run quiet: the set message goes, the
    // get that -b asked for stays.
    let o = run_on(FakeDevice::ide_disk(sata_words()), "-b2 -q -a /dev/x");
    assert_eq!(o.stdout, " busstate      =  2 (tristate)\n");
    assert!(o
        .actions()
        .contains(&Call::Block(BlockCall::HdioSet(HdioSetting::Busstate, 2))));
}
