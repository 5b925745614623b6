//! Tests of `vendor.rs`: the WD idle3 timer (`-J`), the CD/DVD speed (`-E`) and
//! `--idle-unload`, against hdparm 9.65's wdidle3.c and hdparm.c: the taskfiles (registers,
//! protocol, device register, timeout, data out), the lines printed, the exit class.

use super::*;
use crate::ata::command::{Protocol, TaskFile};

/// The idle3 sequence's taskfiles, as hdparm sends them (12 s each, device 0xA0).
fn idle3(feature: u16, lba: u64, count: u16, protocol: Protocol, command: u8) -> TaskFile {
    TaskFile {
        command,
        feature,
        count,
        lba,
        device: 0xA0,
        lba48: false,
        protocol,
        timeout_secs: 12,
    }
}

fn vsc(on: bool) -> TaskFile {
    idle3(
        if on { 0x45 } else { 0x44 },
        0x57_4400,
        0,
        Protocol::NonData,
        op::VENDOR_WD_80,
    )
}

fn key() -> TaskFile {
    idle3(0xD6, 0xC2_4FBE, 1, Protocol::PioOut, op::SMART)
}

fn key_block(access: u8) -> Vec<u8> {
    let mut b = vec![0u8; 512];
    b[0] = 0x2A;
    b[2] = access;
    b[4] = 0x02;
    b[6] = 0x0D;
    b[8] = 0x16;
    b[10] = 0x01;
    b
}

/// Every idle3 command went through SG_IO only (no legacy fallback).
fn sg_only(o: &crate::exec::doubles::fake::Outcome) -> Vec<TaskFile> {
    assert!(
        !o.calls.iter().any(|c| matches!(c, Call::Ata(_))),
        "an idle3 command was sent with the legacy fallback: {:?}",
        o.calls
    );
    o.taskfiles()
}

#[test]
fn idle3_get_reads_the_timer_between_the_vendor_switches() {
    let fake = sata().on_ata_read(op::SMART, &[0x81]);
    let o = run_on(fake, "-J /dev/x");
    assert_eq!(
        sg_only(&o),
        vec![
            vsc(true),
            key(),
            idle3(0xD5, 0xC2_4FBF, 1, Protocol::PioIn, op::SMART),
            vsc(false)
        ]
    );
    assert_eq!(o.data_out, vec![key_block(1)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} wdidle3      = 30 secs (or 12.9 secs for older drives)\n")
    );
    assert_eq!((o.stderr.as_str(), o.exit), ("", 0));
    let o = run_on(
        sata().on_ata_read(op::SMART, &[0x50]),
        "--verbose -J /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}APT: No idVendor found -> not USB bridge device\n wdidle3      = [raw=0x50] 8.0 secs\n"
        )
    );
}

#[test]
fn idle3_set_writes_the_raw_value_then_reads_it_back() {
    let fake = sata().on_ata_read(op::SMART, &[0x82]);
    let o = run_on(fake, "-J60 --please-destroy-my-drive /dev/x");
    let write = idle3(0xD6, 0xC2_4FBF, 1, Protocol::PioOut, op::SMART);
    let read = idle3(0xD5, 0xC2_4FBF, 1, Protocol::PioIn, op::SMART);
    assert_eq!(
        sg_only(&o),
        vec![
            vsc(true),
            key(),
            write,
            vsc(false),
            vsc(true),
            key(),
            read,
            vsc(false)
        ]
    );
    let mut timer = vec![0u8; 512];
    timer[0] = 0x82;
    assert_eq!(o.data_out, vec![key_block(2), timer, key_block(1)]);
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting wdidle3 to 60 secs (or 13.0 secs for older drives)\n wdidle3      = 60 secs (or 13.0 secs for older drives)\n"
        )
    );
    assert_eq!(o.exit, 0);
    // Quiet: no header, no message, no read-back.
    let o = run_on(sata(), "-q -J0 --please-destroy-my-drive /dev/x");
    assert_eq!(sg_only(&o).len(), 4);
    assert_eq!(o.data_out[1][0], 0);
    assert_eq!(o.stdout, "");
}

#[test]
fn idle3_set_needs_the_destroy_flag_and_sends_nothing_without_it() {
    let o = run_on(sata(), "-J30 /dev/x");
    assert_eq!(o.taskfiles(), vec![]);
    assert_eq!(
        o.stderr,
        "Use of -J is EXTREMELY DANGEROUS.\nThis implementation is not as thorough as the official WDIDLE3.EXE. Use at your own risk!\nPlease also supply the --please-destroy-my-drive flag if you really want this.\nProgram aborted.\n"
    );
    assert_eq!(o.exit, 1);
}

#[test]
fn idle3_failures_name_hdparms_step_and_switch_the_vendor_commands_off() {
    // The switch itself fails: nothing else is sent.
    let fake = sata().on_ata(op::VENDOR_WD_80, Some(0x45), Err(aborted(0x80)));
    let o = run_on(fake, "-J /dev/x");
    assert_eq!(sg_only(&o), vec![vsc(true)]);
    assert_starts_with(
        &o.stderr,
        "wdidle3_vsc_enable_disable: ATA command 0x80 failed",
    );
    assert_eq!((o.stdout.as_str(), o.exit), (HEADER, 5));
    // The key fails: the vendor commands are switched off again.
    let fake = sata().on_ata(op::SMART, Some(0xD6), Err(aborted(0xB0)));
    let o = run_on(fake, "-J /dev/x");
    assert_eq!(sg_only(&o), vec![vsc(true), key(), vsc(false)]);
    assert_starts_with(&o.stderr, "wdidle3_vsc_send_key: ");
    assert_eq!(o.exit, 5);
    // A device without ATA: the first command says why.
    let o = run_on(FakeDevice::loop_device(), "-J /dev/x");
    assert_eq!(
        o.stderr,
        "wdidle3_vsc_enable_disable: /dev/x is a loop device; it has no ATA interface\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn cdrom_speed_tries_set_streaming_then_select_speed() {
    let o = run_on(sata(), "-E 4 /dev/x");
    assert_eq!(
        o.actions(),
        vec![
            Call::Block(BlockCall::CdromSetStreaming(4)),
            Call::Block(BlockCall::CdromSelectSpeed(4))
        ]
    );
    assert_eq!(o.stdout, format!("{HEADER}setting cd/dvd speed to 4\n"));
    assert_eq!(o.exit, 0);
    // One of the two is enough.
    let fake = sata().failing(Call::Block(BlockCall::CdromSetStreaming(8)), libc::EIO);
    let o = run_on(fake, "-E8 /dev/x");
    assert_eq!((o.stderr.as_str(), o.exit), ("", 0));
    // Both fail: the second's error.
    let fake = sata()
        .failing(Call::Block(BlockCall::CdromSetStreaming(8)), libc::EIO)
        .failing(Call::Block(BlockCall::CdromSelectSpeed(8)), libc::EINVAL);
    let o = run_on(fake, "-E8 /dev/x");
    assert_starts_with(
        &o.stderr,
        " SET_STREAMING/CDROM_SELECT_SPEED both failed: Invalid argument",
    );
    assert_eq!(o.exit, 25);
    // -E comes after -B and before -M (steps 22, 23, 24).
    let o = run_on(sata(), "-M128 -E2 -B200 /dev/x");
    let order: Vec<Call> = o
        .actions()
        .into_iter()
        .filter(|c| {
            matches!(
                c,
                Call::Ata(_) | Call::Block(BlockCall::CdromSetStreaming(_))
            )
        })
        .collect();
    assert!(
        matches!(order[1], Call::Block(BlockCall::CdromSetStreaming(2))),
        "{order:?}"
    );
}

#[test]
fn idle_unload_sends_idle_immediate_with_the_unload_feature() {
    let o = run_on(sata(), "--idle-unload /dev/x");
    assert_eq!(
        o.taskfiles(),
        vec![TaskFile {
            command: op::IDLEIMMEDIATE,
            feature: 0x44,
            count: 0,
            lba: 0x55_4E4C,
            device: 0xE0,
            lba48: false,
            protocol: Protocol::NonData,
            timeout_secs: 0,
        }]
    );
    assert_eq!(
        o.taskfiles()[0].cdb16(),
        [0x85, 0x06, 0x20, 0, 0x44, 0, 0, 0, 0x4C, 0, 0x4E, 0, 0x55, 0xE0, 0xE1, 0]
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER} issuing idle_immediate_unload command\n")
    );
    assert_eq!(o.exit, 0);
    let fake = sata().on_ata(op::IDLEIMMEDIATE, None, Err(aborted(0xE1)));
    let o = run_on(fake, "--idle-unload /dev/x");
    assert!(o
        .stderr
        .starts_with("TASKFILE(idle_immediate_unload) failed: ATA command 0xe1 failed"));
    assert_eq!(o.exit, 5);
}

#[test]
fn idle_unload_refuses_a_partition_and_sends_nothing() {
    let mut fake = sata();
    fake.partition_refusal = Some(
        "Device /dev/x has non-zero LBA starting offset of 2048.\nPlease use an absolute LBA with the /dev/ entry for the raw device, rather than a partition or raid name.\n/dev/x is probably a partition of the full disk (?)\nThe absolute LBA of sector 0 from /dev/x should be 2048\nAborting."
            .into(),
    );
    // hdparm exits at the refusal: the -Y after it (step 75) is not sent either.
    let o = run_on(fake, "--idle-unload -Y /dev/x");
    assert_eq!(o.taskfiles(), vec![]);
    assert!(o.calls.contains(&Call::PartitionRefusal(0)));
    assert_ends_with(&o.stderr, "should be 2048\nAborting.\n");
    assert_eq!(o.exit, 22);
}
