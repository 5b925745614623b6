//! The steps, run through the real parser and the binary's per-device function over the
//! scripted fake: the commands sent, the lines printed, which failures stop what, and the exit
//! class. Expected texts are hdparm 9.65's (reference §4.1, §4.2, §5.1).
//!
//! This file holds the drives the tests use and what concerns all steps (the order, failures,
//! the errno classes, JSON); each step family's own tests are in the file of the same name.

mod dry_run;
mod explanations;
mod faults;
mod features;
mod firmware;
mod hpa;
mod in_use;
mod nvme;
mod power;
mod read_back;
mod reports;
mod sanitize;
mod scsi;
mod sectors;
mod security;
mod settings;
mod stop;
mod vendor;
mod wire;

use super::STEPS;
use crate::ata::command::op;
use crate::cli::defs::OptionDef;
use crate::exec::access::{AtaOutput, BlockCall, HdioSetting};
use crate::exec::doubles::fake::{aborted, refused, run_on, run_on_all, Call, FakeDevice};

const HEADER: &str = "\n/dev/x:\n";

/// `text` (a run's stdout or stderr) ends with `tail`; a failure shows the whole text.
#[track_caller]
fn assert_ends_with(text: &str, tail: &str) {
    assert!(text.ends_with(tail), "{text}");
}

/// `text` starts with `head`; a failure shows the whole text.
#[track_caller]
fn assert_starts_with(text: &str, head: &str) {
    assert!(text.starts_with(head), "{text}");
}

/// `text` contains `part`; a failure shows the whole text.
#[track_caller]
fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{text}");
}

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
    let numbers: Vec<u8> = STEPS.iter().map(|row| row.number).collect();
    assert!(
        numbers.windows(2).all(|p| p[0] < p[1]),
        "steps out of §3 order: {numbers:?}"
    );
}

/// Each option that does something to a device names the row of its step: a new option
/// without one would parse and then do nothing.
#[test]
fn every_device_option_has_a_step() {
    use crate::cli::defs::{Role, OPTIONS};
    let stepped = |def: &OptionDef| {
        STEPS
            .iter()
            .any(|row| row.options.iter().any(|o| o.spelling() == def.spelling()))
    };
    // `-q` and `-v` count as actions in hdparm's grammar, but do nothing themselves: `-q`
    // silences the options after it, `-v` stands for a list of gets (the parser expands it).
    let device_option = |def: &OptionDef| {
        matches!(
            def.role,
            Role::GetSet | Role::SetOnly | Role::PlainSet | Role::Action
        ) && ![b'q', b'v'].map(Some).contains(&def.short)
    };
    let missing: Vec<String> = OPTIONS
        .iter()
        .filter(|def| device_option(def) && !stepped(def))
        .map(|def| def.spelling())
        .collect();
    assert!(
        missing.is_empty(),
        "options without a step row: {missing:?}"
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
    let wcache = actions
        .iter()
        .position(|c| *c == Call::Block(BlockCall::HdioSetWcache(true)));
    assert!(wcache.is_some_and(|i| i > 6), "{actions:?}");
    assert_eq!(o.exit, 0);
}

#[test]
fn kernel_sets_come_before_drive_sets_and_gets_after_all_sets() {
    let o = run_on(sata(), "-B254 -a64 -r0 /dev/x");
    assert_eq!(
        o.actions(),
        vec![
            Call::Block(BlockCall::SetReadahead(64)),
            Call::Block(BlockCall::SetReadonly(false)),
            Call::Ata(crate::ata::command::TaskFile::drive_cmd([
                op::SETFEATURES,
                254,
                0x05,
                0
            ])),
            Call::Block(BlockCall::Readonly),
            Call::Block(BlockCall::Readahead),
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
    assert_starts_with(&o.stderr, " HDIO_DRIVE_CMD failed: ATA command 0xef failed");
    assert_eq!(o.stderr.lines().count(), 1);
    assert!(o
        .stdout
        .contains(" acoustic      = 128 (128=quiet ... 254=fast)\n"));
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
fn with_several_devices_each_error_line_names_its_device() {
    let failing = || {
        sata()
            .on_ata(op::CHECKPOWERMODE1, None, Err(aborted(op::CHECKPOWERMODE1)))
            .on_ata(op::CHECKPOWERMODE2, None, Err(aborted(op::CHECKPOWERMODE2)))
    };
    let o = run_on_all(vec![failing(), failing()], "-C /dev/x /dev/y");
    let lines: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{}", o.stderr);
    assert!(lines[0].starts_with(" drive state unknown: ") && lines[0].ends_with(" (/dev/x)"));
    assert!(lines[1].ends_with(" (/dev/y)"), "{}", o.stderr);
    // One device: hdparm's line as it is.
    let o = run_on(failing(), "-C /dev/x");
    assert!(!o.stderr.contains("(/dev/x)"), "{}", o.stderr);
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
        sata().failing(Call::Block(BlockCall::SetReadahead(8)), libc::ENOTTY),
        "-a8 /dev/x",
    );
    assert_eq!(
        enotty.stderr,
        " BLKRASET failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata))\n"
    );
    assert_eq!(enotty.exit, 25);
    let einval = run_on(
        sata().failing(Call::Block(BlockCall::SetReadahead(8)), libc::EINVAL),
        "-a8 /dev/x",
    );
    assert_eq!(einval.exit, 25);
    let eio = run_on(
        sata().failing(Call::Block(BlockCall::SetReadahead(8)), libc::EIO),
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
        " HDIO_DRIVE_CMD(setidle) failed: /dev/x is a loop device; it has no ATA interface\n"
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
            sata().failing(Call::Block(BlockCall::RereadPartitions), errno),
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
    // The logical sector size is IDENTIFY's (words 106, 117-118), as hdparm's.
    let mut w = sata_words();
    w[106] = 0x5000;
    w[117] = 2048;
    let fake = FakeDevice::libata_disk(w);
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
    // A sector command is an ATA request: the ATA note says why it cannot be done.
    assert_eq!(
        o.stderr,
        " HDIO_GETGEO failed: Inappropriate ioctl for device (/dev/x is a loop device; it has no ATA interface)\n"
    );
    assert_eq!(o.exit, 25);
    let fake = sata().on_ata(op::READ_PIO, None, Err(aborted(op::READ_PIO)));
    let o = run_on(fake, "--read-sector 1 /dev/x");
    assert_eq!(o.stdout, format!("{HEADER}reading sector 1: "));
    assert!(o.stderr.starts_with("FAILED: ATA command 0x20 failed"));
    assert!(!o.stderr.contains("beyond"), "sector 1 is on the drive");
    assert_eq!(o.exit, 5);
    // Past the end: the drive aborts, and the line says why.
    let mut fake = sata().on_ata(op::READ_PIO, None, Err(aborted(op::READ_PIO)));
    fake.size_sectors = Ok(1000);
    let o = run_on(fake, "--read-sector 1000 /dev/x");
    assert!(
        o.stderr
            .trim_end()
            .ends_with(" (sector 1000 is beyond the last sector, 999)"),
        "{}",
        o.stderr
    );
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
