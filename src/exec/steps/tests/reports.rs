//! Tests of `reports.rs`: the gets, the default report, `-H`, `-N`, `-i`, `-I`, `--Istdout`.

use super::*;

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
        "/dev/x: -B reads the drive's IDENTIFY data: /dev/x is a loop device; it has no ATA interface\n"
    );
    assert_eq!(o.exit, 25);
    let mut fake = sata();
    fake.identify = Err(aborted(op::IDENTIFY));
    let o = run_on(fake, "-W /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: -W reads the drive's IDENTIFY data: ATA command 0xec failed: status 0x51 (error), error 0x04 (aborted)\n"
    );
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
    // 28-bit drive: READ NATIVE MAX ADDRESS, sent as hdparm sends it with the 48-bit layout
    // (it asks for the HOB bytes back), LBA 27:24 from the HOB LBA-low nibble, not from the
    // device register; HPA on.
    let fake = bare().on_ata(
        op::READ_NATIVE_MAX,
        None,
        Ok(AtaOutput {
            lba: 0x01ff_ffff,
            device: 0x4f,
            ..Default::default()
        }),
    );
    let o = run_on(fake, "-N /dev/x");
    assert_eq!(o.ata(), vec![(op::READ_NATIVE_MAX, 0, 0)]);
    let tf = &o.taskfiles()[0];
    assert_eq!((tf.lba48, tf.device, tf.timeout_secs), (true, 0x40, 15));
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
    assert_contains(&o.stdout, "MaxMultSect=16, MultSect=8\n");
    // -i alone reads the count but does not print the multcount line.
    assert!(!o.stdout.contains(" multcount "));
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
    assert_starts_with(&o.stderr, "READ_LOG_EXT(0,0) failed: ");
    assert_eq!(o.exit, 0);
}

#[test]
fn identify_failures() {
    let o = run_on(FakeDevice::loop_device(), "-I /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: no ATA IDENTIFY data: /dev/x is a loop device; it has no ATA interface\n"
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
