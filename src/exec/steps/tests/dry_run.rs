//! `--dry-run` (ours): the plan names each command the options would send, and nothing is sent.

use super::{sata, sata_words};
use crate::exec::fake::{run_on, Call, FakeDevice};

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
                | Call::SetReadahead(_)
                | Call::SetReadonly(_)
                | Call::FlushBufferCache
                | Call::RereadPartitions
                | Call::HdioSet(..)
                | Call::HdioSetPioMode(_)
                | Call::HdioSetWcache(_)
                | Call::HdioReset
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
    assert!(
        o.stdout
            .contains(" a real run needs --yes-i-know-what-i-am-doing\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains(" would send SET FEATURES: command 0xef, feature 0x0006,"),
        "{}",
        o.stdout
    );
    assert!(!o.stderr.contains("VERY DANGEROUS"), "{}", o.stderr);
    assert!(sent_nothing(&o.calls), "{:?}", o.calls);
}

#[test]
fn without_the_kernels_copy_identify_is_planned_not_sent() {
    let o = run_on(sata(), "--dry-run -I /dev/x");
    assert!(
        o.stdout
            .contains(" would send IDENTIFY DEVICE: command 0xec"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains(" (no IDENTIFY was read"), "{}", o.stdout);
    assert!(sent_nothing(&o.calls), "{:?}", o.calls);
}

#[test]
fn timings_are_listed_not_run() {
    let o = run_on(sata_with_kernel_copy(), "--dry-run -tT /dev/x");
    assert!(
        o.stdout.ends_with(
            " a real run needs no guard flag\n would time cached reads (-T)\n would time buffered disk reads (-t)\n"
        ),
        "{}",
        o.stdout
    );
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
    assert!(
        o.stdout.contains(
            " would send NVMe SET FEATURES: admin queue, opcode 0x09, nsid 0x0, cdw10 0x00000006, cdw11 0x00000000,"
        ),
        "{}",
        o.stdout
    );
    assert!(
        !o.calls.iter().any(|c| matches!(c, Call::Nvme(..))),
        "{:?}",
        o.calls
    );
}
