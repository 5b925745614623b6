//! Tests of `security.rs`: the password commands' taskfiles and data sectors, hdparm's
//! messages, and our estimate, frozen-drive and set-password texts.

use super::*;
use crate::ata::command::{Protocol, TaskFile};
use crate::ata::security::EraseEstimate;
use crate::exec::steps::security::{
    estimate_line, interrupt_line, progress_line, watched, UNFREEZE_HINT,
};
use crate::exec::stop::Stop;
use std::time::Duration;

/// A SATA disk with the Security feature set, supported and not frozen, and the erase times
/// `normal`/`enhanced` in words 89/90.
fn secure(normal: u16, enhanced: u16) -> FakeDevice {
    let mut w = sata_words();
    w[89] = normal;
    w[90] = enhanced;
    w[92] = 0xFFFE;
    w[128] = 0x0021;
    FakeDevice::libata_disk(w)
}

fn password_tf(command: u8, timeout_secs: u32) -> TaskFile {
    TaskFile {
        command,
        feature: 0,
        count: 1,
        lba: 0,
        device: 0x40,
        lba48: false,
        protocol: Protocol::PioOut,
        timeout_secs,
    }
}

fn sector(first: u8, second: u8, password: &[u8]) -> Vec<u8> {
    let mut d = vec![0u8; 512];
    d[0] = first;
    d[1] = second;
    d[2..2 + password.len()].copy_from_slice(password);
    d
}

#[test]
fn unlock_sends_the_password_sector() {
    let o = run_on(secure(0, 0), "--security-unlock abc /dev/x");
    assert_eq!(o.taskfiles(), vec![password_tf(0xF2, 15)]);
    assert_eq!(o.data_out, vec![sector(0, 0, b"abc")]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} Issuing SECURITY_UNLOCK command, password=\"abc\", user=user\n")
    );
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
}

#[test]
fn disable_unlocks_first_with_the_same_data() {
    let o = run_on(
        secure(0, 0),
        "--user-master m --security-disable NULL /dev/x",
    );
    assert_eq!(
        o.taskfiles(),
        vec![password_tf(0xF2, 15), password_tf(0xF6, 15)]
    );
    assert_eq!(o.data_out, vec![sector(1, 0, b""), sector(1, 0, b"")]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} Issuing SECURITY_DISABLE command, password=\"\", user=master\n")
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn a_failed_unlock_stops_the_disable() {
    let fake = secure(0, 0).on_ata(op::SECURITY_UNLOCK, None, Err(aborted(0xF2)));
    let o = run_on(fake, "--security-disable pw /dev/x");
    assert_eq!(o.ata(), vec![(0xF2, 0, 1)]);
    assert_eq!(
        o.stderr,
        "SECURITY_UNLOCK: ATA command 0xf2 failed: status 0x51 (error), error 0x04 (aborted)\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn a_frozen_drive_is_explained() {
    let mut w = sata_words();
    w[128] = 0x0009;
    let fake = FakeDevice::libata_disk(w).on_ata(op::SECURITY_SET_PASS, None, Err(aborted(0xF1)));
    let o = run_on(fake, "--security-set-pass pw /dev/x");
    assert_eq!(o.ata(), vec![(0xF1, 0, 1)]);
    assert_eq!(
        o.stderr,
        format!(
            "SECURITY_SET_PASS: ATA command 0xf1 failed: status 0x51 (error), error 0x04 (aborted) (the drive's security is frozen: {UNFREEZE_HINT})\n"
        )
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn set_pass_user_high_says_once_that_the_drive_will_lock() {
    let o = run_on(secure(0, 0), "--security-set-pass secret /dev/x");
    assert_eq!(o.taskfiles(), vec![password_tf(0xF1, 15)]);
    assert_eq!(o.data_out, vec![sector(0, 0, b"secret")]);
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} Issuing SECURITY_SET_PASS command, password=\"secret\", user=user, mode=high\n"
        )
    );
    assert_eq!(o.stderr.lines().count(), 1, "{}", o.stderr);
    assert!(o.stderr.starts_with(
        "/dev/x: the drive now has a user password: after a power cycle or reset it is locked"
    ));
    assert_eq!(o.exit, 0);
}

#[test]
fn set_pass_master_max_sends_the_next_revision_code() {
    let mut w = sata_words();
    w[92] = 0x0005;
    let o = run_on(
        FakeDevice::libata_disk(w),
        "--security-mode m --user-master m --security-set-pass pw /dev/x",
    );
    let mut expected = sector(1, 1, b"pw");
    expected[34] = 6;
    assert_eq!(o.data_out, vec![expected]);
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} Issuing SECURITY_SET_PASS command, password=\"pw\", user=master, mode=max\n"
        )
    );
    // No lock warning for a master password.
    assert_eq!(o.stderr, "");
    // 0xFFFE counts as 0.
    let mut w = sata_words();
    w[92] = 0xFFFE;
    let o = run_on(
        FakeDevice::libata_disk(w),
        "--user-master m --security-set-pass pw /dev/x",
    );
    assert_eq!(o.data_out[0][34..36], [1, 0]);
}

#[test]
fn set_pass_master_without_identify_sends_nothing() {
    let o = run_on(
        FakeDevice::loop_device(),
        "--user-master m --security-set-pass pw /dev/x",
    );
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.stdout, HEADER);
    assert_eq!(
        o.stderr,
        "/dev/x: --security-set-pass reads the drive's IDENTIFY data: /dev/x is a loop device; it has no ATA interface\n"
    );
    assert_eq!(o.exit, 25);
}

#[test]
fn erase_prepares_then_erases_with_hdparms_timeout() {
    // Word 89: 100 (200 min); the 1 TB estimate is 31795 + 1800 s, larger than 260 min.
    let o = run_on(secure(100, 0x8000 | 3000), "--security-erase pw /dev/x");
    let prepare = TaskFile::drive_cmd([0xF3, 0, 0, 0]);
    assert_eq!(prepare.timeout_secs, 0, "hdparm's default");
    assert_eq!(
        o.taskfiles(),
        vec![prepare, password_tf(0xF4, 31795 + 1800)]
    );
    assert_eq!(o.data_out, vec![sector(0, 0, b"pw")]);
    assert_eq!(
        o.stdout,
        format!("{HEADER} Issuing SECURITY_ERASE command, password=\"pw\", user=user\n")
    );
    assert_eq!(
        o.stderr,
        "/dev/x: the drive estimates about 200 min for this erase; it is given up to 560 min\n"
    );
    assert_eq!(o.exit, 0);

    // Enhanced: word 90, 6000 + 60 minutes; byte 0 bit 1.
    let o = run_on(
        secure(100, 0x8000 | 3000),
        "--security-erase-enhanced pw /dev/x",
    );
    assert_eq!(o.taskfiles()[1], password_tf(0xF4, 6060 * 60));
    assert_eq!(o.data_out, vec![sector(2, 0, b"pw")]);
    assert_contains(&o.stderr, "about 6000 min");
}

#[test]
fn erase_failures_are_labelled_as_hdparm_labels_them() {
    let fake = secure(0, 0).on_ata(op::SECURITY_ERASE_PREPARE, None, Err(aborted(0xF3)));
    let o = run_on(fake, "--security-erase pw /dev/x");
    assert_eq!(o.ata(), vec![(0xF3, 0, 0)]);
    assert_ends_with(&o.stderr, "ERASE_PREPARE: ATA command 0xf3 failed: status 0x51 (error), error 0x04 (aborted)\n\
         /dev/x: the erase did not start (the drive refused SECURITY ERASE PREPARE): nothing was erased, and the drive keeps its password, so it is locked after its next power cycle or reset: --security-unlock PWD /dev/x then --security-disable PWD /dev/x\n");
    assert_eq!(o.exit, 5);
    let fake = secure(0, 0).on_ata(op::SECURITY_ERASE_UNIT, None, Err(aborted(0xF4)));
    let o = run_on(fake, "--security-erase pw /dev/x");
    assert_eq!(o.ata(), vec![(0xF3, 0, 0), (0xF4, 0, 1)]);
    assert_ends_with(&o.stderr, "SECURITY_ERASE: ATA command 0xf4 failed: status 0x51 (error), error 0x04 (aborted)\n\
         /dev/x: the drive refused the security erase: its data may be partly erased, and it keeps its password, so it is locked after its next power cycle or reset: run --security-erase PWD /dev/x again, or --security-unlock PWD /dev/x then --security-disable PWD /dev/x\n");
    assert_eq!(o.exit, 5);
}

#[test]
fn erase_of_a_frozen_drive_sends_nothing_and_says_how_to_unfreeze() {
    let mut w = sata_words();
    w[128] = 0x0029;
    let o = run_on(FakeDevice::libata_disk(w), "--security-erase pw /dev/x");
    assert!(o.taskfiles().is_empty());
    assert_eq!(
        o.stderr,
        format!("/dev/x: the drive's security is frozen (IDENTIFY word 128 bit 3), so it would abort SECURITY ERASE PREPARE; nothing was sent: {UNFREEZE_HINT}\n")
    );
    assert!(UNFREEZE_HINT.contains("suspend") && UNFREEZE_HINT.contains("hot-plug"));
    assert_eq!(o.exit, 5);
}

#[test]
fn hex_passwords_are_sent_as_bytes_and_shown_up_to_the_first_nul() {
    let hex = format!("hex:4142{}", "0".repeat(60));
    let o = run_on(secure(0, 0), &format!("--security-unlock {hex} /dev/x"));
    assert_eq!(o.data_out, vec![sector(0, 0, b"AB")]);
    assert!(o.stdout.ends_with(" password=\"AB\", user=user\n"));
    let hex = format!("hex:00{}", "41".repeat(31));
    let o = run_on(secure(0, 0), &format!("--security-unlock {hex} /dev/x"));
    let mut expected = sector(0, 0, b"");
    expected[3..34].fill(0x41);
    assert_eq!(o.data_out, vec![expected]);
    assert!(o.stdout.ends_with(" password=\"\", user=user\n"));
}

#[test]
fn json_has_the_operation_and_the_report_no_password() {
    let o = run_on(secure(100, 0), "--json --security-erase pw /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    let device = &doc["devices"][0];
    assert_eq!(device["actions"][0]["action"], "security_erase");
    assert_eq!(device["actions"][0]["outcome"], "done");
    assert_eq!(device["security"]["operation"], "security_erase");
    assert_eq!(device["security"]["timeout_secs"], 31795 + 1800);
    assert_eq!(device["security"]["estimate_minutes"], 200);
    assert_eq!(device["security"]["done"], true);
    // The password is on the command line (argv) already; the report does not repeat it.
    assert!(!device["security"].to_string().contains("pw"));
    assert_eq!(o.exit, 0);
}

#[test]
fn our_texts() {
    assert_eq!(
        estimate_line("/dev/x", Some(EraseEstimate::MoreThan(508)), 598 * 60),
        "/dev/x: the drive estimates more than 508 min for this erase; it is given up to 598 min"
    );
    assert_eq!(
        estimate_line("/dev/x", Some(EraseEstimate::NotGiven), 1801),
        "/dev/x: the drive gives no estimate for this erase; it is given up to 31 min (1 s per 30 MiB, plus 30 min)"
    );
    assert!(estimate_line("/dev/x", None, 43200).contains("no IDENTIFY data"));
    assert_eq!(
        progress_line(Duration::from_secs(3725), Some(EraseEstimate::Minutes(120))),
        " security erase: 1:02:05 elapsed, the drive estimated about 120 min"
    );
    assert_eq!(
        progress_line(Duration::from_secs(59), Some(EraseEstimate::NotGiven)),
        " security erase: 0:00:59 elapsed"
    );
    let line = interrupt_line("/dev/x");
    assert!(line.contains("keeps erasing") && line.contains("stays locked with this password"));
}

/// A writer the watcher thread can own, read back by the test.
#[derive(Clone, Default)]
struct Shared(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);

impl std::io::Write for Shared {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if let Ok(mut v) = self.0.lock() {
            v.extend_from_slice(buf);
        }
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[test]
fn the_erase_progress_is_drawn_on_a_terminal_while_the_command_waits() {
    let err = Shared::default();
    let result = watched(
        true,
        "/dev/x",
        Some(EraseEstimate::Minutes(120)),
        Stop::never(),
        err.clone(),
        || {
            std::thread::sleep(Duration::from_millis(1300));
            Ok(AtaOutput::default())
        },
    );
    assert!(result.is_ok());
    let text =
        String::from_utf8(err.0.lock().map(|v| v.clone()).unwrap_or_default()).unwrap_or_default();
    let draw = "\r\x1b[K security erase: 0:00:0";
    assert!(text.matches(draw).count() >= 2, "{text:?}");
    assert!(
        text.contains("elapsed, the drive estimated about 120 min"),
        "{text:?}"
    );
    assert!(
        text.ends_with("\r\x1b[K"),
        "the line is cleared at the end: {text:?}"
    );

    // Not a terminal: nothing at all.
    let err = Shared::default();
    let result = watched(false, "/dev/x", None, Stop::never(), err.clone(), || {
        std::thread::sleep(Duration::from_millis(250));
        Err(aborted(0xF4))
    });
    assert!(result.is_err());
    assert!(err.0.lock().map(|v| v.is_empty()).unwrap_or(false));
}

#[test]
fn verbose_adds_hdparms_taskfile_lines_before_each_password_command() {
    let o = run_on(secure(0, 0), "--verbose --security-disable pw /dev/x");
    let dump = "oflags.bits.lob_all=0x8a, flags={ feat nsect command }\noflags.bits.hob_all=0x00, flags={ }\n";
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}APT: No idVendor found -> not USB bridge device\n Issuing SECURITY_DISABLE command, password=\"pw\", user=user\n{dump}{dump}"
        )
    );
}

/// A password file in the temp directory, removed on drop.
struct PasswordFile(std::path::PathBuf);

impl PasswordFile {
    fn new(tag: &str, bytes: &[u8]) -> PasswordFile {
        let path =
            std::env::temp_dir().join(format!("hdparm-rs-pwfile-{tag}-{}", std::process::id()));
        std::fs::write(&path, bytes).unwrap();
        PasswordFile(path)
    }
    fn path(&self) -> String {
        self.0.display().to_string()
    }
}

impl Drop for PasswordFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

#[test]
fn a_password_file_is_sent_and_never_shown() {
    let file = PasswordFile::new("unlock", b"s3cr3t-Pw\n");
    let o = run_on_all(
        vec![secure(0, 0), secure(0, 0)],
        &format!(
            "--security-password-file {} --security-unlock /dev/x /dev/y",
            file.path()
        ),
    );
    // Both devices get the file's password, its newline dropped.
    assert_eq!(
        o.data_out,
        vec![sector(0, 0, b"s3cr3t-Pw"), sector(0, 0, b"s3cr3t-Pw")]
    );
    let issuing = format!(
        " Issuing SECURITY_UNLOCK command, password from {} (not shown), user=user\n",
        file.path()
    );
    assert_eq!(o.stdout.matches(&issuing).count(), 2, "{}", o.stdout);
    assert!(!o.stdout.contains("s3cr3t") && !o.stderr.contains("s3cr3t"));
    assert_eq!(o.exit, 0);
    // The JSON document neither.
    let o = run_on(
        secure(0, 0),
        &format!(
            "--json --security-password-file {} --security-unlock /dev/x",
            file.path()
        ),
    );
    assert_eq!(o.data_out, vec![sector(0, 0, b"s3cr3t-Pw")]);
    assert!(!o.stdout.contains("s3cr3t") && !o.stderr.contains("s3cr3t"));
    assert_eq!(o.exit, 0);
}

#[test]
fn a_password_file_of_33_bytes_is_refused_before_anything_is_sent() {
    let file = PasswordFile::new("long", &[b'x'; 33]);
    let o = run_on(
        secure(0, 0),
        &format!(
            "--security-password-file {} --security-set-pass /dev/x",
            file.path()
        ),
    );
    assert_eq!(o.taskfiles(), vec![]);
    assert_eq!(o.stdout, "");
    assert_eq!(
        o.stderr,
        format!(
            "--security-password-file: {}: the password is longer than 32 bytes (the size of ATA's password field)\n",
            file.path()
        )
    );
    assert_eq!(o.exit, 22);
    // 32 bytes and a newline is the longest that fits.
    let mut fits = vec![b'y'; 32];
    fits.push(b'\n');
    let file = PasswordFile::new("fits", &fits);
    let o = run_on(
        secure(0, 0),
        &format!(
            "--security-password-file {} --security-set-pass /dev/x",
            file.path()
        ),
    );
    assert_eq!(o.data_out, vec![sector(0, 0, &[b'y'; 32])]);
    assert_eq!(o.exit, 0);
}

#[test]
fn a_password_given_on_the_command_line_is_redacted_from_the_json_document() {
    let o = run_on(secure(0, 0), "--json --security-unlock s3cr3t-Pw /dev/x");
    assert_eq!(o.data_out, vec![sector(0, 0, b"s3cr3t-Pw")]);
    assert!(!o.stdout.contains("s3cr3t"), "{}", o.stdout);
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(doc["hdparm_rs"]["argv"][3], "(password)");
}
