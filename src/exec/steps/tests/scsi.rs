//! The SCSI twins (issue 22) over the fake: a SCSI disk whose target rejects ATA PASS-THROUGH
//! answers hdparm's jobs in SCSI's words (the drive model's SCSI face answers the commands),
//! a SCSI disk that translates ATA keeps the ATA path, and `--security-erase` is refused
//! without a command sent.

use super::assert_contains;
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
    assert_contains(&o.stdout, "SCSI device, ");
    assert_contains(&o.stdout, "Model Number:       MODEL SAS DISK");
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
    assert_contains(&o.stdout, " write-caching =  1 (on)");
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
        ata_vendor: true,
    });
    let o = run_on(fake, "-B254 -W /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert!(o.ata().contains(&(0xEF, 0x05, 254)), "{:?}", o.ata());
    assert_contains(&o.stdout, " write-caching = ");
    assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
}

/// A translator the kernel knows for one (vendor `ATA`, as the drive model behind TCMU
/// answers, with no VPD page 89h) is asked nothing to learn it: `-C` and `-y` send hdparm's
/// commands alone, with no IDENTIFY before them (the CI's model profile caught that one).
#[test]
fn a_translator_the_kernel_knows_gets_no_identify_first() {
    for (vendor, page) in [(true, false), (false, true)] {
        let mut fake = FakeDevice::model_disk();
        fake.libata = false;
        fake.scsi_disk = Some(crate::exec::access::ScsiDisk {
            usb: false,
            ata_information_page: page,
            ata_vendor: vendor,
        });
        let o = run_on(fake, "-C -y /dev/x");
        assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
        assert!(!o.calls.contains(&Call::Identify), "{:?}", o.calls);
        assert_eq!(o.ata(), [(0xE5, 0, 0), (0xE0, 0, 0)], "{:?}", o.calls);
        assert!(scsi_opcodes(&o.calls).is_empty(), "{:?}", o.calls);
    }
}

/// Where the kernel cannot tell (a USB bridge with no page 89h and its own vendor name),
/// IDENTIFY decides, once: a bridge that answers it keeps the ATA path.
#[test]
fn a_bridge_the_kernel_cannot_place_is_asked_identify_once() {
    let mut fake = FakeDevice::model_disk();
    fake.libata = false;
    fake.scsi_disk = Some(crate::exec::access::ScsiDisk {
        usb: true,
        ata_information_page: false,
        ata_vendor: false,
    });
    let o = run_on(fake, "-C -y /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    let identifies = o.calls.iter().filter(|c| **c == Call::Identify).count();
    assert_eq!(identifies, 1, "{:?}", o.calls);
    assert_eq!(o.ata(), [(0xE5, 0, 0), (0xE0, 0, 0)], "{:?}", o.calls);
}

#[test]
fn a_job_without_a_scsi_form_still_says_the_target_rejects_ata() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-B /dev/x");
    assert_eq!(o.exit, 25, "{}\n{}", o.stdout, o.stderr);
    assert_contains(
        &o.stderr,
        "not an ATA device: ATA PASS-THROUGH was rejected",
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

/// The CDBs of the SCSI commands sent.
fn scsi_cdbs(calls: &[Call]) -> Vec<Vec<u8>> {
    calls
        .iter()
        .filter_map(|c| match c {
            Call::Scsi(cdb, _) => Some(cdb.clone()),
            _ => None,
        })
        .collect()
}

// The success paths the VM's disks cannot show (QEMU's scsi-hd and scsi_debug have no
// changeable DRA, no power condition page, no power conditions, no SANITIZE): the model's SCSI
// face has them all.

#[test]
fn look_ahead_off_sets_dra_and_reads_it_back() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-A0 /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert_contains(&o.stdout, " look-ahead    =  0 (off)");
    assert!(scsi_opcodes(&o.calls).contains(&0x55), "{:?}", o.calls);
}

#[test]
fn standby_timer_goes_into_the_power_condition_page() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-S 12 /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stderr, "");
    let ops = scsi_opcodes(&o.calls);
    assert!(ops.contains(&0x5A) && ops.contains(&0x55), "{ops:02x?}");
}

#[test]
fn standby_now_is_force_standby_0_which_the_disk_takes() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-y /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert_eq!(o.stderr, "");
    assert!(
        scsi_cdbs(&o.calls).contains(&vec![0x1B, 0, 0, 0, 0xB0, 0]),
        "{:?}",
        o.calls
    );
}

#[test]
fn temperature_comes_from_the_temperature_log_page() {
    let o = run_on(FakeDevice::model_scsi_disk(), "-H /dev/x");
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    assert_contains(&o.stdout, " drive temperature (celsius) is:  ");
    assert!(scsi_opcodes(&o.calls).contains(&0x4D), "{:?}", o.calls);
}

#[test]
fn sanitize_block_erase_is_sanitize_with_immed() {
    let o = run_on(
        FakeDevice::model_scsi_disk(),
        "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
    );
    assert_eq!(o.exit, 0, "{}\n{}", o.stdout, o.stderr);
    let sanitize: Vec<Vec<u8>> = scsi_cdbs(&o.calls)
        .into_iter()
        .filter(|c| c[0] == 0x48)
        .collect();
    assert_eq!(sanitize.len(), 1, "{:?}", o.calls);
    assert_eq!(
        sanitize[0][1], 0x82,
        "IMMED | BLOCK ERASE: {:02x?}",
        sanitize[0]
    );
}
