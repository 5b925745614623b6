//! The SCSI twins (issue 22) over the fake: a SCSI disk whose target rejects ATA PASS-THROUGH
//! answers hdparm's jobs in SCSI's words (the drive model's SCSI face answers the commands),
//! a SCSI disk that translates ATA keeps the ATA path, and `--security-erase` is refused
//! without a command sent.

use crate::exec::doubles::fake::{run_on, Call, FakeDevice};

/// The SCSI commands sent, by opcode.
fn scsi_opcodes(calls: &[Call]) -> Vec<u8> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Scsi(cdb, _) => cdb.first().copied(),
            _ => None,
        })
        .collect()
}

#[test]
fn identify_on_a_disk_without_ata_prints_what_inquiry_and_read_capacity_say() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-I /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("SCSI device, "), "{}", o.stdout);
    assert!(
        o.stdout.contains("Model Number:       WDC WD10EZEX-08W"),
        "{}",
        o.stdout
    );
    let ops = scsi_opcodes(&o.calls);
    // INQUIRY (standard and VPD) and READ CAPACITY(16), after the IDENTIFY the target refused
    assert!(ops.contains(&0x12) && ops.contains(&0x9E), "{ops:02x?}");
    assert!(o.calls.contains(&Call::Identify), "{:?}", o.calls);
    assert_eq!(o.stderr, "", "{}", o.stderr);
}

#[test]
fn write_caching_is_read_from_the_caching_mode_page() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-W /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stdout.contains(" write-caching =  1 (on)"),
        "{}",
        o.stdout
    );
    assert_eq!(scsi_opcodes(&o.calls), vec![0x5A], "{:?}", o.calls);
}

#[test]
fn security_erase_is_refused_in_one_sentence_and_nothing_is_sent() {
    let o = run_on(
        FakeDevice::model_scsi_disk(),
        "--yes-i-know-what-i-am-doing --please-destroy-my-drive --user-master u --security-erase NULL /dev/x",
    );
    assert_eq!(o.exit, 25, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr.contains("ATA security erase has no SCSI form")
            && o.stderr.contains("--sanitize-block-erase"),
        "{}",
        o.stderr
    );
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
    assert!(o.ata().is_empty(), "{:?}", o.ata());
}

#[test]
fn a_scsi_disk_whose_target_translates_ata_keeps_the_ata_path() {
    // a SAS HBA with a SATA drive behind it: IDENTIFY answers, so -W is read from IDENTIFY
    // and -B254 is SET FEATURES
    let mut fake = FakeDevice::model_disk();
    fake.libata = false;
    fake.scsi_disk = Some(crate::exec::access::ScsiDisk {
        usb: false,
        ata_information_page: true,
    });
    let o = run_on(fake, "-B254 -W /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(o.ata().contains(&(0xEF, 0x05, 254)), "{:?}", o.ata());
    assert!(o.stdout.contains(" write-caching = "), "{}", o.stdout);
    assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
}

#[test]
fn a_job_without_a_scsi_form_still_says_the_target_rejects_ata() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-B /dev/x");
    assert_eq!(o.exit, 25, "{}\n{}", o.stdout, o.stderr);
    assert!(
        o.stderr
            .contains("not an ATA device: ATA PASS-THROUGH was rejected"),
        "{}",
        o.stderr
    );
    assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
}

#[test]
fn the_dry_run_plans_the_mode_select_of_a_write_cache_set() {
    let o = run_on(FakeDevice::model_scsi_disk(), "--dry-run -W0 /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
    for line in [
        "would send SCSI MODE SENSE(10): CDB 5a 00 08",
        "would send SCSI MODE SENSE(10): CDB 5a 00 48",
        "would send SCSI SYNCHRONIZE CACHE(10): CDB 35",
        "would send SCSI MODE SELECT(10): CDB 55 10",
    ] {
        assert!(o.stdout.contains(line), "{line}\n{}", o.stdout);
    }
}
