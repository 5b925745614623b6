//! Tests of `power.rs`: `-C`, `-y`, `-Y`, `--idle-immediate`, `-z`, `-f`, `-w`, `-F`.

use super::*;

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
    // Aborted with registers, as a drive answers: hdparm's argument block carries the ERROR
    // register (ABRT) into the retry's COUNT and the returned COUNT into its FEATURE.
    let fake = sata()
        .on_ata(op::CHECKPOWERMODE1, None, Err(aborted(0xE5)))
        .on_ata_registers(
            op::CHECKPOWERMODE1,
            None,
            vec![crate::ata::command::AtaRegisters {
                status: 0x51,
                error: 0x04,
                count: 0x07,
                ..Default::default()
            }],
        );
    assert_eq!(state(fake).ata(), vec![(0xE5, 0, 0), (0x98, 0x07, 0x04)]);
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
        "/dev/x: -C needs an ATA drive: /dev/x is a loop device; it has no ATA interface\n"
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
            Call::Block(BlockCall::FlushBufferCache),
            Call::Block(BlockCall::RereadPartitions),
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
            Call::Block(BlockCall::HdioReset),
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
        .failing(Call::Block(BlockCall::FlushBufferCache), libc::EIO)
        .failing(Call::Block(BlockCall::RereadPartitions), libc::EBUSY)
        .failing(Call::Block(BlockCall::HdioReset), libc::ENOTTY);
    let o = run_on(fake, "-q -f -q -z -q -w /dev/x");
    assert_eq!(
        o.stderr,
        "BLKFLSBUF failed: Input/output error\n BLKRRPART failed: Device or resource busy \
(a partition of /dev/x is mounted or open: unmount or close it, then -z again)\n \
HDIO_DRIVE_RESET failed: Inappropriate ioctl for device (/dev/x is a SATA disk (libata))\n"
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
