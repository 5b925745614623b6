//! Tests of `sanitize.rs`: the SANITIZE DEVICE taskfiles, hdparm's status and failure texts,
//! the feature check, and our `--wait`.

use super::*;
use crate::ata::command::{AtaRegisters, Protocol, TaskFile};
use crate::exec::doubles::fake::run_on_terminal;
use crate::exec::steps::sanitize::wait_line;

/// A SATA disk with the SANITIZE feature set (word 59 bit 12).
fn sanitizer() -> FakeDevice {
    let mut w = sata_words();
    w[59] |= 0x1000;
    FakeDevice::libata_disk(w)
}

fn sanitize_tf(feature: u16, count: u16, lba: u64) -> TaskFile {
    TaskFile {
        command: 0xB4,
        feature,
        count,
        lba,
        device: 0x40,
        lba48: true,
        protocol: Protocol::NonData,
        timeout_secs: 10,
    }
}

/// A sanitize at 6%, then 50%, then done: the drive idle without error.
fn sanitizing_then_idle() -> FakeDevice {
    sanitizer().on_ata_registers(
        0xB4,
        None,
        vec![
            status_regs(0x4000, 0x1000),
            status_regs(0x4000, 0x8000),
            status_regs(0x8000, 0),
        ],
    )
}

/// hdparm's status lines for a drive idle after a sanitize that completed without error.
const IDLE_STATUS: &str = "Sanitize status:\n    State:    SD0 Sanitize Idle\n    Last Sanitize Operation Completed Without Error\n";

fn status_regs(count: u16, lba: u64) -> AtaRegisters {
    AtaRegisters {
        status: 0x50,
        count,
        lba,
        lba48: true,
        ..Default::default()
    }
}

#[test]
fn status_as_hdparm_prints_it() {
    let fake = sanitizer().on_ata_registers(0xB4, None, vec![status_regs(0x8000 | 0x1000, 0)]);
    let o = run_on(fake, "--sanitize-status /dev/x");
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0, 0, 0)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER}Issuing SANITIZE_STATUS command\n{IDLE_STATUS}    Antifreeze bit set\n")
    );
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    // In progress: the progress line; -q does not hide any of it.
    let fake = sanitizer().on_ata_registers(0xB4, None, vec![status_regs(0x4000, 0x8000)]);
    let o = run_on(fake, "--sanitize-status /dev/x");
    assert!(o.stdout.ends_with(
        "    State:    SD2 Sanitize operation In Process\n    Progress: 0x8000 (50%)\n"
    ));
}

#[test]
fn the_erases_need_the_guard_and_start_in_the_background() {
    let o = run_on(sanitizer(), "--sanitize-crypto-scramble /dev/x");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 1);
    assert!(o
        .stderr
        .starts_with("Use of --sanitize is VERY DANGEROUS.\n"));

    let started = "Issuing SANITIZE_BLOCK_ERASE command\nOperation started in background\nYou may use `--sanitize-status` to check progress\n";
    let o = run_on(
        sanitizer(),
        "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
    );
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0x12, 0, 0x426B_4572)]);
    assert_eq!(o.stdout, format!("{HEADER}{started}"));
    assert_eq!(o.exit, 0);

    let o = run_on(
        sanitizer(),
        "--yes-i-know-what-i-am-doing --sanitize-crypto-scramble /dev/x",
    );
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0x11, 0, 0x4372_7970)]);

    let o = run_on(
        sanitizer(),
        "--sanitize-overwrite-passes 3 --yes-i-know-what-i-am-doing --sanitize-overwrite hex:0badf00d /dev/x",
    );
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0x14, 3, 0x4F57_0BAD_F00D)]);
    assert!(o
        .stdout
        .starts_with(&format!("{HEADER}Issuing SANITIZE_OVERWRITE command\n")));
}

#[test]
fn the_locks_print_only_the_issuing_line() {
    let o = run_on(sanitizer(), "--sanitize-freeze-lock /dev/x");
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0x20, 0, 0x4672_4C6B)]);
    assert_eq!(
        o.stdout,
        format!("{HEADER}Issuing SANITIZE_FREEZE_LOCK command\n")
    );
    let o = run_on(sanitizer(), "--sanitize-antifreeze-lock /dev/x");
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0x40, 0, 0x416E_7469)]);
    assert_eq!(o.exit, 0);
}

#[test]
fn without_the_feature_set_nothing_is_sent() {
    let o = run_on(sata(), "--sanitize-status /dev/x");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.stdout, HEADER);
    assert_eq!(
        o.stderr,
        "SANITIZE feature set is not supported (/dev/x: IDENTIFY word 59 bit 12 is clear)\n"
    );
    assert_eq!(o.exit, 25);
    let o = run_on(FakeDevice::loop_device(), "--sanitize-status /dev/x");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 25);
}

#[test]
fn a_failure_gives_the_drives_reason() {
    let fake = sanitizer()
        .on_ata(0xB4, None, Err(aborted(0xB4)))
        .on_ata_registers(0xB4, None, vec![status_regs(0, 3)]);
    let o = run_on(
        fake,
        "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}Issuing SANITIZE_BLOCK_ERASE command\n")
    );
    assert_eq!(
        o.stderr,
        "SANITIZE failed: ATA command 0xb4 failed: status 0x51 (error), error 0x04 (aborted)\nSANITIZE device error reason: Device in FROZEN state\n\
         /dev/x: the drive refused the sanitize, so it did not start and nothing was erased: --sanitize-status /dev/x shows the drive's sanitize state\n"
    );
    assert_eq!(o.exit, 5);
    let fake = sanitizer()
        .on_ata(0xB4, None, Err(aborted(0xB4)))
        .on_ata_registers(0xB4, None, vec![status_regs(0, 1)]);
    let o = run_on(fake, "--sanitize-status /dev/x");
    assert!(o.stderr.ends_with(
        "SANITIZE device error reason: Last Sanitize Command completed unsuccessfully\nDrive in SD3 Sanitize Operation Failed state\n"
    ));
    // No registers came back: not reported.
    let fake = sanitizer().on_ata(0xB4, None, Err(aborted(0xB4)));
    let o = run_on(fake, "--sanitize-status /dev/x");
    assert!(o
        .stderr
        .ends_with("SANITIZE device error reason: Reason not reported\n"));
}

#[test]
fn wait_polls_until_the_operation_ends() {
    let fake = sanitizing_then_idle();
    let o = run_on(fake, "--sanitize-status --wait /dev/x");
    assert_eq!(o.taskfiles(), vec![sanitize_tf(0, 0, 0); 3]);
    assert_eq!(
        o.stdout,
        format!("{HEADER}Issuing SANITIZE_STATUS command\n{IDLE_STATUS}")
    );
    // Not a terminal: no progress lines.
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    // Already idle: one command.
    let fake = sanitizer().on_ata_registers(0xB4, None, vec![status_regs(0, 0)]);
    let o = run_on(fake, "--wait --sanitize-status /dev/x");
    assert_eq!(o.taskfiles().len(), 1);
}

#[test]
fn wait_line_shows_percent_and_time_left() {
    let s = crate::ata::sanitize::Status::from_registers(&status_regs(0x4000, 0x8000));
    assert_eq!(wait_line(&s, None), " sanitize: 50% done");
    assert_eq!(
        wait_line(&s, Some(3725.4)),
        " sanitize: 50% done, about 1:02:05 left"
    );
}

#[test]
fn json_status() {
    let fake = sanitizer().on_ata_registers(0xB4, None, vec![status_regs(0x4000, 0x8000)]);
    let o = run_on(fake, "--json --sanitize-status /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    let s = &doc["devices"][0]["sanitize"];
    assert_eq!(s["command"], "sanitize_status");
    assert_eq!(s["state"], "SD2");
    assert_eq!(s["percent"], 50);
    assert_eq!(s["progress"], 0x8000);
    assert_eq!(doc["devices"][0]["actions"][0]["action"], "sanitize_status");
}

#[test]
fn verbose_adds_hdparms_taskfile_lines_on_stdout() {
    let fake = sanitizer().on_ata_registers(0xB4, None, vec![status_regs(0, 0)]);
    let o = run_on(fake, "--verbose --sanitize-status /dev/x");
    assert_starts_with(&o.stdout, &format!(
        "{HEADER}APT: No idVendor found -> not USB bridge device\nIssuing SANITIZE_STATUS command\noflags.bits.lob_all=0xb6, flags={{ feat lbal lbam lbah command }}\noflags.bits.hob_all=0x34, flags={{ lbal lbam lbah }}\nSanitize status:\n"
    ));
}

#[test]
fn wait_draws_its_progress_on_a_terminal_and_clears_it() {
    let fake = sanitizing_then_idle();
    let o = run_on_terminal(fake, "--sanitize-status --wait /dev/x");
    assert!(
        o.stderr
            .starts_with("\r\x1b[K sanitize: 6% done\r\x1b[K sanitize: 50% done"),
        "{:?}",
        o.stderr
    );
    assert!(o.stderr.ends_with("\r\x1b[K"), "{:?}", o.stderr);
    assert_ends_with(&o.stdout, IDLE_STATUS);
}
