//! What a failure says about the device: hdparm's label first, then, only where the request
//! cannot be done, what the device is and why, for that request (issue 13 §2.4, the
//! differential findings §1, §2 and §4).

use super::*;

/// A CD/DVD drive behind libata: IDENTIFY PACKET works, the sr driver has no geometry.
fn cdrom() -> FakeDevice {
    let mut fake = bare();
    fake.kind = "cdrom".into();
    fake.description = "/dev/x is an ATAPI CD/DVD drive (libata)".into();
    fake.plain_description = fake.description.clone();
    fake.geometry = Err((" HDIO_GETGEO failed", libc::ENOTTY));
    fake
}

#[test]
fn queue_depth_failures_name_the_sysfs_attribute_as_hdparm_does() {
    // hdparm: "/sys/block/nvme0n1/device/queue_depth: No such file or directory".
    let o = run_on(FakeDevice::nvme(), "-Q /dev/x");
    assert_eq!(
        o.stderr,
        "/sys/block/nvme0n1/device/queue_depth: No such file or directory \
(/dev/x is an NVMe namespace; only SCSI devices have a queue depth setting)\n"
    );
    assert_eq!(o.exit, 25);
    // A failure that is not a missing attribute says only what the device is.
    let o = run_on(
        sata().failing(Call::SetQueueDepth(4), libc::EINVAL),
        "-Q4 /dev/x",
    );
    assert_starts_with(
        &o.stderr,
        "/sys/block/x/device/queue_depth: Invalid argument (/dev/x is a SATA disk (libata))\n",
    );
}

#[test]
fn the_libata_sentence_goes_only_with_the_old_ide_tuning_ioctls() {
    let libata = "libata has no such setting";
    for option in [
        "-u", "-d", "-k", "-n", "-b", "-u1", "-d1", "-k1", "-n1", "-b1",
    ] {
        let o = run_on(sata(), &format!("{option} /dev/x"));
        assert!(o.stderr.contains(libata), "{option}: {}", o.stderr);
    }
    let o = run_on(sata(), "-p4 /dev/x");
    assert_eq!(o.stderr, "");
    let o = run_on(
        sata().failing(Call::Block(BlockCall::HdioSetPioMode(4)), libc::ENOTTY),
        "-p4 /dev/x",
    );
    assert_contains(&o.stderr, libata);
    // libata has HDIO_SET_32BIT (ahci refuses a value with EINVAL), reset and geometry are no
    // tuning settings: no libata sentence.
    let o = run_on(
        sata().failing(
            Call::Block(BlockCall::HdioSet(HdioSetting::Io32bit, 0)),
            libc::EINVAL,
        ),
        "-c0 /dev/x",
    );
    assert_eq!(
        o.stderr,
        " HDIO_SET_32BIT failed: Invalid argument (/dev/x is a SATA disk (libata))\n"
    );
    let o = run_on(
        sata().failing(Call::Block(BlockCall::HdioReset), libc::ENOTTY),
        "-w /dev/x",
    );
    assert!(!o.stderr.contains(libata), "{}", o.stderr);
}

#[test]
fn geometry_on_a_cdrom_says_the_cdrom_driver_has_none() {
    let o = run_on(cdrom(), "-g /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_GETGEO failed: Inappropriate ioctl for device \
(/dev/x is an ATAPI CD/DVD drive (libata); the CD-ROM driver has no geometry)\n"
    );
    assert_eq!(o.exit, 25);
    // The default report on it: the same line, no libata sentence.
    let o = run_on(cdrom(), "/dev/x");
    assert_contains(&o.stderr, "the CD-ROM driver has no geometry");
    assert!(
        !o.stderr.contains("libata has no such setting"),
        "{}",
        o.stderr
    );
    // --read-sector stops at the same ioctl (hdparm's raw-device check) and says the same.
    let mut fake = cdrom();
    fake.partition_refusal = Some(" HDIO_GETGEO failed: Inappropriate ioctl for device".into());
    let o = run_on(fake, "--read-sector 0 /dev/x");
    assert_ends_with(&o.stderr, "; the CD-ROM driver has no geometry)\n");
    // A loop device has no geometry for reasons that are not ATA ones.
    let o = run_on(FakeDevice::loop_device(), "-g /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_GETGEO failed: Inappropriate ioctl for device (/dev/x is a loop device)\n"
    );
}

#[test]
fn reread_partitions_on_a_loop_device_without_partition_scanning_says_so() {
    let mut fake =
        FakeDevice::loop_device().failing(Call::Block(BlockCall::RereadPartitions), libc::EINVAL);
    fake.partition_scan_off = true;
    let o = run_on(fake, "-z /dev/x");
    assert_eq!(
        o.stderr,
        " BLKRRPART failed: Invalid argument (/dev/x is a loop device; partition scanning is off \
for it (losetup -P attaches a loop device with it on))\n"
    );
    assert_eq!(o.exit, 25);
    // With scanning on, the same refusal says only what the device is: never "no ATA".
    let fake =
        FakeDevice::loop_device().failing(Call::Block(BlockCall::RereadPartitions), libc::EINVAL);
    let o = run_on(fake, "-z /dev/x");
    assert_eq!(
        o.stderr,
        " BLKRRPART failed: Invalid argument (/dev/x is a loop device)\n"
    );
}

#[test]
fn a_block_ioctl_failure_carries_no_ata_note() {
    let fake = FakeDevice::nvme().failing(Call::Block(BlockCall::SetReadahead(8)), libc::ENOTTY);
    let o = run_on(fake, "-a8 /dev/x");
    assert_starts_with(
        &o.stderr,
        " BLKRASET failed: Inappropriate ioctl for device (/dev/x is an NVMe namespace)\n",
    );
    // An old IDE ioctl is an ATA matter: there the note is the reason.
    let o = run_on(FakeDevice::nvme(), "-c /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_GET_32BIT failed: Inappropriate ioctl for device \
(/dev/x is an NVMe namespace; it has no ATA interface)\n"
    );
}

#[test]
fn a_scsi_target_without_ata_gets_one_sentence_and_one_class_for_every_ata_option() {
    // The options without a SCSI twin (issue 22: -W, -A, -I, -S, -C... have one, in
    // tests/scsi.rs).
    let rejected = "not an ATA device: ATA PASS-THROUGH was rejected";
    for option in ["-B", "-M", "-N", "-R", "-B254", "-M128", "-a8 -B"] {
        let o = run_on(FakeDevice::scsi_without_ata(), &format!("{option} /dev/x"));
        assert!(!o.stderr.is_empty(), "{option}");
        for line in o.stderr.lines() {
            assert!(line.contains(rejected), "{option}: {line}");
        }
        assert!(!o.stderr.contains("did not answer IDENTIFY"), "{option}");
        assert_eq!(o.exit, 25, "{option}: {}", o.stderr);
        let json = run_on(
            FakeDevice::scsi_without_ata(),
            &format!("--json {option} /dev/x"),
        );
        let doc: serde_json::Value = serde_json::from_str(&json.stdout).unwrap_or_default();
        let messages = doc["devices"][0]["messages"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        assert!(!messages.is_empty(), "{option}: {}", json.stdout);
        for m in messages {
            assert_eq!(m["class"], "not_applicable", "{option}: {m}");
        }
    }
    let o = run_on(FakeDevice::scsi_without_ata(), "-B /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: -B reads the drive's IDENTIFY data: not an ATA device: ATA PASS-THROUGH was \
rejected (ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00))\n"
    );
}
