//! `--dry-run` (ours): the plan names each command the options would send, and nothing is sent.

use super::{assert_contains, assert_ends_with, sata, sata_words};
use crate::exec::access::BlockCall;
use crate::exec::doubles::fake::{run_on, Call, FakeDevice};

/// A libata disk whose kernel holds a copy of IDENTIFY (HDIO_GET_IDENTITY answers).
fn sata_with_kernel_copy() -> FakeDevice {
    let mut fake = sata();
    let mut bytes = [0u8; 512];
    for (pair, word) in bytes.chunks_exact_mut(2).zip(sata_words()) {
        pair.copy_from_slice(&word.to_le_bytes());
    }
    fake.identity = Ok(bytes);
    fake
}

fn sent_nothing(calls: &[Call]) -> bool {
    !calls.iter().any(|c| {
        matches!(
            c,
            Call::Ata(_)
                | Call::Identify
                | Call::ReadLog { .. }
                | Call::Block(
                    BlockCall::SetReadahead(_)
                        | BlockCall::SetReadonly(_)
                        | BlockCall::FlushBufferCache
                        | BlockCall::RereadPartitions
                        | BlockCall::HdioSet(..)
                        | BlockCall::HdioSetPioMode(_)
                        | BlockCall::HdioSetWcache(_)
                        | BlockCall::HdioReset
                )
                | Call::SetQueueDepth(_)
        )
    })
}

#[test]
fn settings_are_planned_in_hdparms_order_and_not_sent() {
    let o = run_on(
        sata_with_kernel_copy(),
        "--dry-run -S 12 -a 512 -W0 -B 200 /dev/x",
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);
    assert_eq!(o.stderr, "");
    assert_eq!(
        o.stdout,
        "\n/dev/x:\n dry run: nothing was sent to the drive\n a real run needs no guard flag\n \
would call BLKRASET 512 (read-ahead, sectors)\n \
would send SET FEATURES: command 0xef, feature 0x0005, count 0x00c8, lba 0x000000000000, device 0x40, 28-bit, non-data, timeout 15 s\n \
would send FLUSH CACHE EXT: command 0xea, feature 0x0000, count 0x0000, lba 0x000000000000, device 0x40, 48-bit, non-data, timeout 60 s\n \
would send SET FEATURES: command 0xef, feature 0x0082, count 0x0000, lba 0x000000000000, device 0x40, 28-bit, non-data, timeout 15 s\n \
would send FLUSH CACHE EXT: command 0xea, feature 0x0000, count 0x0000, lba 0x000000000000, device 0x40, 48-bit, non-data, timeout 60 s\n \
would send IDLE: command 0xe3, feature 0x0000, count 0x000c, lba 0x000000000000, device 0x40, 28-bit, non-data, timeout 15 s\n"
    );
    assert!(sent_nothing(&o.calls), "{:?}", o.calls);
}

#[test]
fn a_guarded_option_is_planned_without_its_flag_and_the_plan_names_the_flag() {
    let o = run_on(sata_with_kernel_copy(), "--dry-run -s1 /dev/x");
    assert_contains(
        &o.stdout,
        " a real run needs --yes-i-know-what-i-am-doing\n",
    );
    assert_contains(
        &o.stdout,
        " would send SET FEATURES: command 0xef, feature 0x0006,",
    );
    assert!(!o.stderr.contains("VERY DANGEROUS"), "{}", o.stderr);
    assert!(sent_nothing(&o.calls), "{:?}", o.calls);
}

#[test]
fn without_the_kernels_copy_identify_is_planned_not_sent() {
    let o = run_on(sata(), "--dry-run -I /dev/x");
    assert_contains(&o.stdout, " would send IDENTIFY DEVICE: command 0xec");
    assert_contains(&o.stdout, " (no IDENTIFY was read");
    assert!(sent_nothing(&o.calls), "{:?}", o.calls);
}

#[test]
fn timings_are_listed_not_run() {
    let o = run_on(sata_with_kernel_copy(), "--dry-run -tT /dev/x");
    assert_ends_with(&o.stdout, " a real run needs no guard flag\n would time cached reads (-T)\n would time buffered disk reads (-t)\n");
}

#[test]
fn json_carries_the_plan_per_device() {
    let o = run_on(sata_with_kernel_copy(), "--json --dry-run -W1 /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).expect("one JSON document");
    let plan = &doc["devices"][0]["dry_run"];
    assert_eq!(plan["sent"], false);
    assert_eq!(plan["identify_source"], "kernel");
    assert_eq!(plan["commands"][0]["command"], 0xEF);
    assert_eq!(plan["commands"][0]["feature"], 0x02);
    assert!(sent_nothing(&o.calls));
}

#[test]
fn nvme_commands_are_planned_with_every_dword_and_not_sent() {
    let o = run_on(FakeDevice::nvme(), "--dry-run -W0 /dev/x");
    assert_contains(&o.stdout, " would send NVMe SET FEATURES: admin queue, opcode 0x09, nsid 0x0, cdw10 0x00000006, cdw11 0x00000000,");
    assert!(
        !o.calls.iter().any(|c| matches!(c, Call::Nvme(..))),
        "{:?}",
        o.calls
    );
}

/// A drive whose kernel copy of IDENTIFY says it has the sanitize feature set with BLOCK
/// ERASE (word 59 bits 12 and 15) and TRIM (word 169 bit 0).
fn sanitizing_drive() -> FakeDevice {
    let mut words = sata_words();
    words[59] |= (1 << 12) | (1 << 15);
    words[169] = 0x0001;
    let mut fake = FakeDevice::libata_disk(words);
    let mut bytes = [0u8; 512];
    for (pair, word) in bytes.chunks_exact_mut(2).zip(words) {
        pair.copy_from_slice(&word.to_le_bytes());
    }
    fake.identity = Ok(bytes);
    fake
}

/// The ATA commands of a plan's JSON, as (command, feature, count, lba).
fn planned(stdout: &str) -> Vec<(u8, u16, u16, u64)> {
    let doc: serde_json::Value = serde_json::from_str(stdout).expect("one JSON document");
    doc["devices"][0]["dry_run"]["commands"]
        .as_array()
        .expect("commands")
        .iter()
        .filter(|c| c["kind"] == "ata")
        .map(|c| {
            let n = |k: &str| c[k].as_u64().unwrap_or(u64::MAX);
            (
                n("command") as u8,
                n("feature") as u16,
                n("count") as u16,
                n("lba"),
            )
        })
        .collect()
}

/// The plans of the operations that printed "nothing would be sent" list the commands the
/// real run sends on the same drive, register for register.
#[test]
fn the_plan_of_a_destructive_operation_is_what_the_real_run_sends() {
    for line in [
        "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
        "--yes-i-know-what-i-am-doing -N 1000 /dev/x",
        "--please-destroy-my-drive --trim-sector-ranges 1:8 100:16 /dev/x",
        "--security-set-pass secret /dev/x",
    ] {
        let real = run_on(sanitizing_drive(), &format!("--json {line}"));
        let sent: Vec<(u8, u16, u16, u64)> = real
            .taskfiles()
            .iter()
            .map(|tf| (tf.command, tf.feature, tf.count, tf.lba))
            .collect();
        let dry = run_on(sanitizing_drive(), &format!("--json --dry-run {line}"));
        assert!(sent_nothing(&dry.calls), "{line}: {:?}", dry.calls);
        assert!(!sent.is_empty(), "{line}: the real run sends nothing");
        assert_eq!(planned(&dry.stdout), sent, "{line}\n{}", dry.stdout);
        assert_eq!(dry.exit, 0, "{line}: {}", dry.stderr);
        let text = run_on(sanitizing_drive(), &format!("--dry-run {line}"));
        assert!(
            !text.stdout.contains("nothing would be sent"),
            "{line}\n{}",
            text.stdout
        );
    }
}

/// The plan names the command and its "BkEr" signature in the LBA (ACS-4 §7.43.4).
#[test]
fn sanitize_block_erase_is_planned_as_the_drive_would_be_sent_it() {
    let o = run_on(
        sanitizing_drive(),
        "--dry-run --yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
    );
    assert_eq!(
        o.stdout,
        "\n/dev/x:\n dry run: nothing was sent to the drive\n \
a real run needs --yes-i-know-what-i-am-doing, which is given\n \
would send BLOCK ERASE EXT: command 0xb4, feature 0x0012, count 0x0000, lba 0x0000426b4572, device 0x40, 48-bit, non-data, timeout 10 s\n"
    );
    assert_eq!((o.exit, o.stderr.as_str()), (0, ""));
}

#[test]
fn the_guard_line_never_asks_for_a_flag_already_given() {
    let know = "--yes-i-know-what-i-am-doing";
    let destroy = "--please-destroy-my-drive";
    for (line, needs, exit) in [
        (
            format!("--dry-run {know} -N 1000 /dev/x"),
            format!(" a real run needs {know}, which is given\n"),
            0,
        ),
        (
            "--dry-run -N 1000 /dev/x".to_string(),
            format!(" a real run needs {know}\n"),
            1,
        ),
        (
            format!("--dry-run {destroy} --trim-sector-ranges 1:8 /dev/x"),
            format!(" a real run needs {destroy}, which is given\n"),
            0,
        ),
        (
            format!("--dry-run {know} --fwdownload /nonexistent /dev/x"),
            format!(" a real run needs {destroy} too ({know} is given)\n"),
            1,
        ),
    ] {
        let o = run_on(sanitizing_drive(), &line);
        assert!(o.stdout.contains(&needs), "{line}\n{}", o.stdout);
        // A missing flag is what the real run would be refused for: the guard class.
        if exit == 1 {
            assert_eq!(o.exit, 1, "{line}");
            assert_contains(
                &o.stderr,
                "--dry-run: a real run would be refused: it needs ",
            );
        } else {
            assert_eq!(o.exit, 0, "{line}: {}", o.stderr);
        }
    }
}

/// The security commands' data starts with the password: the plan says how many bytes there
/// are and that they hold it, in text and JSON, and no byte or digest of it.
#[test]
fn the_password_is_in_no_plan() {
    for command in [
        "--security-set-pass",
        "--security-unlock",
        "--security-disable",
        "--security-erase",
        "--security-erase-enhanced",
    ] {
        for output in ["", "--json "] {
            let line = format!("{output}--dry-run {command} Sesame0pen /dev/x");
            let o = run_on(sanitizing_drive(), &line);
            assert!(sent_nothing(&o.calls), "{line}");
            let stdout = o.stdout.replace("security_password", "");
            // hdparm's own `security_password: "..."` echo is the parser's, not the plan's.
            let plan = match stdout.find("dry_run") {
                Some(at) if !output.is_empty() => stdout[at..].to_string(),
                _ => stdout.clone(),
            };
            assert!(
                plan.contains("512 bytes, holds the password (not shown)")
                    || plan.contains("\"data_out_holds_password\": true"),
                "{line}\n{plan}"
            );
            for needle in ["Sesame0pen", "53 65 73", "536573", "fnv1a64 "] {
                assert!(!plan.contains(needle), "{line}: {needle} in\n{plan}");
            }
        }
    }
}

#[test]
fn a_device_without_ata_gives_the_real_runs_class_and_says_why() {
    for (line, why) in [
        ("--dry-run -y /dev/x", "HDIO_DRIVE_CMD(standby) failed"),
        ("--dry-run -I /dev/x", "no ATA IDENTIFY data"),
        (
            "--dry-run --yes-i-know-what-i-am-doing -N 1000 /dev/x",
            "-N reads the drive's IDENTIFY data",
        ),
        (
            "--dry-run --yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
            "--sanitize-block-erase reads the drive's IDENTIFY data",
        ),
        (
            "--dry-run --please-destroy-my-drive --trim-sector-ranges 1:8 /dev/x",
            "it has no ATA interface",
        ),
        ("--dry-run -c1 /dev/x", "HDIO_SET_32BIT failed"),
        ("--dry-run -Q 4 /dev/x", "queue_depth"),
    ] {
        let real = run_on(FakeDevice::loop_device(), &line.replace("--dry-run ", ""));
        let o = run_on(FakeDevice::loop_device(), line);
        assert_eq!(real.exit, 25, "{line}: {}", real.stderr);
        assert_eq!(o.exit, real.exit, "{line}: {}{}", o.stdout, o.stderr);
        assert!(
            o.stdout.contains(" a real run would fail: ") && o.stdout.contains(why),
            "{line}\n{}",
            o.stdout
        );
        assert!(!o.stdout.contains("would call HDIO_SET"), "{}", o.stdout);
        assert!(!o.stdout.contains("would call write"), "{}", o.stdout);
        assert!(sent_nothing(&o.calls), "{line}: {:?}", o.calls);
    }
    // -N on a device without IDENTIFY needs no guard: the real run skips it, guard and all.
    let o = run_on(FakeDevice::loop_device(), "--dry-run -N 1000 /dev/x");
    assert_contains(&o.stdout, " a real run needs no guard flag\n");
    assert_eq!(o.exit, 25);
}

#[test]
fn iraw_is_planned_and_no_file_is_written() {
    let path = std::env::temp_dir().join(format!("hdparm-rs-iraw-dry-{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let line = format!("--dry-run --Iraw {} /dev/x", path.display());
    let o = run_on(sata_with_kernel_copy(), &line);
    assert!(!path.exists(), "{line} wrote {}", path.display());
    assert_ends_with(
        &o.stdout,
        &format!(
            " would write the IDENTIFY data to {} (created, or overwritten in place)\n",
            path.display()
        ),
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);
}

#[test]
fn a_plan_the_drive_cannot_take_exits_as_the_real_run() {
    // sata_words has no sanitize feature set: the real run is refused with 25, and so is the plan.
    let line = "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x";
    let real = run_on(sata_with_kernel_copy(), line);
    let o = run_on(sata_with_kernel_copy(), &format!("--dry-run {line}"));
    assert_eq!((real.exit, o.exit), (25, 25), "{}", o.stdout);
    assert_contains(
        &o.stdout,
        " a real run would fail: SANITIZE feature set is not supported",
    );
}
