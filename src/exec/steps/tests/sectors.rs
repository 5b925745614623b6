//! Tests of `sectors.rs`: `--write-sector`/`--repair-sector`, `--make-bad-sector`, the TRIM
//! options, `--set-sector-size`, `--drq-hsm-error` (reference §4.9, §6.5, §7): the taskfiles
//! and data sent, the flush before a write, the raw-device check, the guards, the texts.

use super::hpa::{real, samsung};
use super::*;
use crate::ata::command::{Protocol, TaskFile, DEV_LBA, DEV_LBA_OBSOLETE, LBA28_LIMIT};

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const DESTROY: &str = "--please-destroy-my-drive";
const PARTITION: &str = "Device /dev/x1 has non-zero LBA starting offset of 2048.\n\
Please use an absolute LBA with the /dev/ entry for the raw device, rather than a partition or raid name.\n\
/dev/x1 is probably a partition of /dev/x (?)\n\
The absolute LBA of sector 5 from /dev/x1 should be 2053\nAborting.";

fn tf(command: u8, lba: u64, lba48: bool, protocol: Protocol, t: u32) -> TaskFile {
    TaskFile {
        command,
        feature: 0,
        count: 1,
        lba,
        device: DEV_LBA_OBSOLETE,
        lba48,
        protocol,
        timeout_secs: t,
    }
}

/// The calls from the buffer-cache flush on, without the IDENTIFY reads.
fn flush_then_ata(o: &crate::exec::doubles::fake::Outcome) -> Vec<Call> {
    let a = o.actions();
    let at = a
        .iter()
        .position(|c| *c == Call::Block(BlockCall::FlushBufferCache))
        .unwrap_or(a.len());
    a[at..].to_vec()
}

#[test]
fn write_sector_writes_one_zero_sector_after_the_flush() {
    let o = run_on(samsung(), "--write-sector 5 /dev/x");
    assert!(o
        .stderr
        .starts_with("Use of --write-sector is VERY DANGEROUS.\nYou are trying to deliberately overwrite a low-level sector on the media.\n"));
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 1);
    for option in ["--write-sector", "--repair-sector"] {
        let o = run_on(samsung(), &format!("{KNOW} {option} 5 /dev/x"));
        assert_eq!(
            o.stdout,
            format!("{HEADER}re-writing sector 5: succeeded\n")
        );
        let write = tf(0x30, 5, false, Protocol::PioOut, 60);
        assert_eq!(
            flush_then_ata(&o),
            vec![Call::Block(BlockCall::FlushBufferCache), Call::Ata(write)]
        );
        assert!(o.actions().contains(&Call::PartitionRefusal(5)));
        assert_eq!(o.data_out, vec![vec![0u8; 512]]);
        assert_eq!(o.exit, 0);
    }
    // Past 28 bits: WRITE SECTORS EXT; a 4096-byte logical sector is written whole.
    let mut w = real("samsung");
    w[106] = 0x5000;
    w[117] = 2048;
    let o = run_on(
        FakeDevice::libata_disk(w),
        &format!("{KNOW} --write-sector {LBA28_LIMIT} /dev/x"),
    );
    assert_eq!(
        o.taskfiles(),
        vec![tf(0x34, LBA28_LIMIT, true, Protocol::PioOut, 60)]
    );
    assert_eq!(o.data_out, vec![vec![0u8; 4096]]);
}

#[test]
fn write_sector_failure_and_partition_refusal() {
    let fake = samsung().on_ata(0x30, None, Err(aborted(0x30)));
    let o = run_on(fake, &format!("{KNOW} --write-sector 5 /dev/x"));
    assert_eq!(o.stdout, format!("{HEADER}re-writing sector 5: "));
    assert_eq!(
        o.stderr,
        "FAILED: ATA command 0x30 failed: status 0x51 (error), error 0x04 (aborted)\n"
    );
    assert_eq!(o.exit, 5);
    let mut fake = samsung();
    fake.partition_refusal = Some(PARTITION.into());
    let o = run_on(fake, &format!("{KNOW} --write-sector 5 /dev/x"));
    assert_eq!(o.stderr, format!("{PARTITION}\n"));
    assert_eq!(o.stdout, HEADER);
    assert!(o.taskfiles().is_empty());
    assert!(!o.calls.contains(&Call::Block(BlockCall::FlushBufferCache)));
    assert_eq!(o.exit, 22);
}

#[test]
fn make_bad_sector_uses_write_uncorrectable_where_the_drive_claims_it() {
    let o = run_on(samsung(), "--make-bad-sector 100 /dev/x");
    assert!(o.stderr.starts_with("Use of --make-bad-sector is VERY DANGEROUS.\nYou are trying to deliberately corrupt a low-level sector on the media.\n"));
    assert_eq!(o.exit, 1);
    for (arg, feature, how) in [("100", 0x55, "pseudo"), ("f100", 0xAA, "flagged")] {
        let o = run_on(samsung(), &format!("{KNOW} --make-bad-sector {arg} /dev/x"));
        assert_eq!(
            o.stdout,
            format!("{HEADER}Corrupting sector 100 (WRITE_UNC_EXT as {how}): succeeded\n")
        );
        let mut unc = tf(0x45, 100, true, Protocol::NonData, 60);
        unc.feature = feature;
        assert_eq!(
            flush_then_ata(&o),
            vec![Call::Block(BlockCall::FlushBufferCache), Call::Ata(unc)]
        );
        assert_eq!(o.exit, 0);
    }
}

#[test]
fn make_bad_sector_falls_back_to_write_long_as_hdparm_does() {
    let maxtor = || FakeDevice::libata_disk(real("maxtor"));
    let o = run_on(maxtor(), &format!("{KNOW} --make-bad-sector 100 /dev/x"));
    assert_eq!(
        o.stdout,
        format!("{HEADER}Corrupting sector 100 (WRITE_LONG): succeeded\n")
    );
    assert_eq!(
        o.taskfiles(),
        vec![tf(0x33, 100, false, Protocol::PioOut, 60)]
    );
    assert_eq!(o.data_out, vec![vec![0xA5u8; 520]]);
    // Flagged (or past 28 bits) on a drive that does not claim WRITE UNCORRECTABLE EXT: the
    // warning, then the command regardless.
    let o = run_on(maxtor(), &format!("{KNOW} --make-bad-sector f100 /dev/x"));
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}Device does not claim to implement the required WRITE_UNC_EXT command\n\
This operation will probably fail (continuing regardless).\n\
Corrupting sector 100 (WRITE_UNC_EXT as flagged): succeeded\n"
        )
    );
    // Past 28 bits on a drive without WRITE UNCORRECTABLE EXT (the ST3160023AS): WRITE LONG
    // cannot address it, so the warning and WRITE UNCORRECTABLE EXT regardless.
    let o = run_on(
        FakeDevice::libata_disk(real("st3160023as")),
        &format!("{KNOW} --make-bad-sector 300000000 /dev/x"),
    );
    assert!(o.stdout.ends_with(
        "This operation will probably fail (continuing regardless).\n\
Corrupting sector 300000000 (WRITE_UNC_EXT as pseudo): succeeded\n"
    ));
    let mut unc = tf(0x45, 300_000_000, true, Protocol::NonData, 60);
    unc.feature = 0x55;
    assert_eq!(o.taskfiles(), vec![unc]);
    // Without IDENTIFY hdparm skips it silently; we say why nothing was done.
    let o = run_on(
        FakeDevice::loop_device(),
        &format!("{KNOW} --make-bad-sector 100 /dev/x"),
    );
    assert!(o.taskfiles().is_empty());
    assert_eq!(
        o.stderr,
        "/dev/x: --make-bad-sector reads the drive's IDENTIFY data: /dev/x is a loop device; it has no ATA interface\n"
    );
    assert_eq!((o.stdout.as_str(), o.exit), (HEADER, 25));
}

#[test]
fn trim_ranges_sends_one_dsm_with_every_range() {
    let o = run_on(samsung(), "--trim-sector-ranges 10:8 /dev/x");
    assert_eq!(
        o.stderr,
        "Use of --trim-sector-ranges is EXTREMELY DANGEROUS.\nThis might destroy the drive and/or all data on it.\n\
Please also supply the --please-destroy-my-drive flag if you really want this.\nProgram aborted.\n"
    );
    assert_eq!(o.exit, 1);
    let o = run_on(
        samsung(),
        &format!("{DESTROY} --trim-sector-ranges 10:8 100:0x10 /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}trimming 24 sectors from 2 ranges\nsucceeded\n")
    );
    let mut dsm = TaskFile::new(op::DSM, 0, 1);
    dsm.feature = 1;
    dsm.protocol = Protocol::DmaOut;
    dsm.timeout_secs = 300;
    assert_eq!(dsm.device, DEV_LBA);
    assert_eq!(
        flush_then_ata(&o),
        vec![Call::Block(BlockCall::FlushBufferCache), Call::Ata(dsm),]
    );
    let mut payload = vec![0u8; 512];
    payload[..8].copy_from_slice(&((8u64 << 48) | 10).to_le_bytes());
    payload[8..16].copy_from_slice(&((16u64 << 48) | 100).to_le_bytes());
    assert_eq!(o.data_out, vec![payload]);
    // hdparm checks the raw device before and inside its trim.
    assert_eq!(
        o.actions()
            .iter()
            .filter(|c| **c == Call::PartitionRefusal(0))
            .count(),
        2
    );
    let fake = samsung().on_ata(op::DSM, None, Err(aborted(op::DSM)));
    let o = run_on(fake, &format!("{DESTROY} --trim-sector-ranges 10:8 /dev/x"));
    assert_starts_with(&o.stderr, "FAILED: ATA command 0x06 failed");
    assert_eq!(o.exit, 5);
}

/// `lba:count` pairs, one a line.
fn pairs(n: u64) -> String {
    (0..n).map(|i| format!("{}:1\n", i * 2)).collect()
}

#[test]
fn trim_stdin_batches_by_word_105_and_max_sectors_kb() {
    // The Maxtor has no word 105: one 512-byte block (64 ranges) a command.
    let mut fake = FakeDevice::libata_disk(real("maxtor"));
    fake.stdin = pairs(65).into_bytes();
    let o = run_on(
        fake,
        &format!("{DESTROY} --trim-sector-ranges-stdin /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}trimming 64 sectors from 64 ranges\nsucceeded\ntrimming 1 sectors from 1 ranges\nsucceeded\n"
        )
    );
    assert_eq!(o.data_out.len(), 2);
    assert_eq!(o.data_out[0].len(), 512);
    assert_eq!(&o.data_out[1][..8], &((1u64 << 48) | 128).to_le_bytes());
    assert_eq!(o.exit, 0);
    // The Samsung's word 105 says 8 blocks; max_sectors_kb 2 makes it 4 (256 ranges).
    let mut fake = samsung();
    fake.stdin = pairs(300).into_bytes();
    fake.max_sectors_kb = Some(2);
    let o = run_on(
        fake,
        &format!("{DESTROY} --trim-sector-ranges-stdin /dev/x"),
    );
    let counts: Vec<u16> = o.taskfiles().iter().map(|t| t.count).collect();
    assert_eq!(counts, vec![4, 1]);
    assert!(o.stdout.contains("trimming 256 sectors from 256 ranges\n"));
    assert!(o.stdout.contains("trimming 44 sectors from 44 ranges\n"));
}

#[test]
fn trim_stdin_stops_at_a_bad_pair() {
    let run = |input: &str| {
        let mut fake = samsung();
        fake.stdin = input.as_bytes().to_vec();
        run_on(
            fake,
            &format!("{DESTROY} --trim-sector-ranges-stdin /dev/x"),
        )
    };
    let o = run("1:1 x");
    assert_eq!(
        o.stderr,
        "stdin: error at lba:count pair #2: Invalid argument\n"
    );
    assert!(o.taskfiles().is_empty(), "the pending batch is not sent");
    assert_eq!(o.exit, 22);
    let o = run("1:70000");
    assert_eq!(
        o.stderr,
        "stdin: error at lba:count pair #1: Numerical result out of range\n"
    );
    let o = run("976773168:1");
    assert!(o.stderr.ends_with("Numerical result out of range\n"));
    let o = run("");
    assert_eq!(
        (o.stdout.as_str(), o.stderr.as_str(), o.exit),
        (HEADER, "", 0)
    );
}

/// A Sector Configuration log with 512- and 4096-byte descriptors (sizes in words), and a log
/// directory that lists it.
pub(super) fn with_sector_log(mut fake: FakeDevice) -> FakeDevice {
    let mut dir = [0u8; 512];
    dir[0x2F * 2] = 1;
    let mut log = [0u8; 512];
    for (i, (check, words)) in [(0x1111u16, 256u32), (0x2222, 2048)].iter().enumerate() {
        log[i * 16] = 0x80;
        log[i * 16 + 2..i * 16 + 4].copy_from_slice(&check.to_le_bytes());
        log[i * 16 + 4..i * 16 + 8].copy_from_slice(&words.to_le_bytes());
    }
    fake.logs = vec![((0, 0), dir), ((0x2F, 0), log)];
    fake
}

#[test]
fn set_sector_size_picks_the_descriptor_from_the_log() {
    let o = run_on(samsung(), "--set-sector-size 4096 /dev/x");
    assert!(o.stderr.starts_with("Use of --set-sector-size is EXTREMELY DANGEROUS.\nThis will likely destroy all data on the drive.\n"));
    assert_eq!(o.exit, 1);
    let o = run_on(
        with_sector_log(samsung()),
        &format!("{DESTROY} --set-sector-size 4096 /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}changing sector size configuration to 4096: succeeded\n")
    );
    // hdparm 9.65's FEATURE: the checkword's high byte, 0 in FEATURE(7:0).
    let mut set = TaskFile::sector_command(0xB2, 0, 1, Protocol::NonData, true);
    set.feature = 0x2200;
    set.timeout_secs = 60;
    assert_eq!(o.taskfiles(), vec![set]);
    assert!(o.calls.contains(&Call::ReadLog { log: 0x2F, page: 0 }));
    assert_eq!(o.exit, 0);
}

#[test]
fn set_sector_size_errors() {
    let o = run_on(
        with_sector_log(samsung()),
        &format!("{DESTROY} --set-sector-size 1024 /dev/x"),
    );
    assert_eq!(o.stderr, "ERROR: unsupported sector size: 1024\n");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 25);
    // No log in the directory.
    let mut fake = with_sector_log(samsung());
    fake.logs[0].1 = [0u8; 512];
    let o = run_on(fake, &format!("{DESTROY} --set-sector-size 4096 /dev/x"));
    assert_eq!(
        o.stderr,
        "READ_LOG_EXT(SECTOR_CONFIGURATION) failed: No such file or directory\n"
    );
    assert_eq!(o.exit, 25);
    // The directory cannot be read.
    let o = run_on(
        samsung(),
        &format!("{DESTROY} --set-sector-size 4096 /dev/x"),
    );
    assert_eq!(
        o.stderr,
        "READ_LOG_EXT(0,0) failed: ATA command 0x2f failed: status 0x51 (error), error 0x04 (aborted)\n\
READ_LOG_EXT(SECTOR_CONFIGURATION) failed: No such file or directory\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn drq_hsm_error_sends_identify_without_its_data_phase() {
    let fake = samsung().on_ata(op::IDENTIFY, None, Err(aborted(op::IDENTIFY)));
    let o = run_on(fake, "--drq-hsm-error /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} triggering \"stuck DRQ\" host state machine error\n")
    );
    assert_eq!(
        o.stderr,
        "drq_hsm_error: ATA command 0xec failed: status 0x51 (error), error 0x04 (aborted)\n\
ata status=0x51 ata error=0x04\n"
    );
    let mut identify = TaskFile::drive_cmd([op::IDENTIFY, 0, 0, 0]);
    identify.timeout_secs = 60;
    assert_eq!(identify.protocol, Protocol::NonData);
    assert_eq!(
        flush_then_ata(&o),
        vec![
            Call::Block(BlockCall::FlushBufferCache),
            Call::Ata(identify),
        ]
    );
    assert_eq!(o.exit, 5);
}

/// The peak resident set of this process (`VmHWM`), in KiB.
fn peak_rss_kib() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        })
        .unwrap_or(0)
}

/// The child of `trim_stdin_takes_bounded_memory`, run in a process of its own: the step over
/// the fake with this process's real standard input, then one line with the exit status,
/// the TRIM commands sent, the ranges they held and the peak resident set.
#[test]
#[ignore = "run by trim_stdin_takes_bounded_memory in a process of its own"]
fn trim_stdin_memory_child() {
    // The Samsung with word 105 at 65534 blocks: max_sectors_kb (512) makes a command 1024
    // blocks, 65536 ranges, so that the fake's own record of each command stays small.
    let mut words = real("samsung");
    words[105] = 0xFFFE;
    let mut fake = FakeDevice::libata_disk(words);
    fake.stdin_stream = Some(Box::new(std::io::stdin()));
    fake.keep_data_out = false;
    let o = run_on(
        fake,
        &format!("{DESTROY} --trim-sector-ranges-stdin /dev/x"),
    );
    let ranges: u64 = o
        .stdout
        .lines()
        .filter_map(|l| l.strip_prefix("trimming "))
        .filter_map(|l| {
            l.split(" from ")
                .nth(1)?
                .split(' ')
                .next()?
                .parse::<u64>()
                .ok()
        })
        .sum();
    println!(
        "CHILD exit={} commands={} ranges={ranges} peak_kib={}",
        o.exit,
        o.taskfiles().len(),
        peak_rss_kib()
    );
}

/// Runs the child with `count` ranges piped to its standard input; its line's numbers.
fn trim_child(count: u64) -> (u8, usize, u64, u64) {
    use std::io::Write;
    let mut child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "exec::steps::tests::sectors::trim_stdin_memory_child",
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut input = child.stdin.take().unwrap();
    let writer = std::thread::spawn(move || {
        let mut line = Vec::with_capacity(1 << 16);
        for i in 0..count {
            let _ = writeln!(line, "{}:1", (i * 2) % 1_000_000);
            if line.len() >= 1 << 16 {
                input.write_all(&line).unwrap();
                line.clear();
            }
        }
        input.write_all(&line).unwrap();
    });
    let out = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .find_map(|l| l.split_once("CHILD ").map(|(_, rest)| rest))
        .unwrap_or_else(|| panic!("no CHILD line:\n{text}"));
    let field = |name: &str| -> u64 {
        line.split_whitespace()
            .find_map(|w| w.strip_prefix(&format!("{name}=")))
            .and_then(|v| v.parse().ok())
            .unwrap_or_else(|| panic!("no {name} in {line}"))
    };
    (
        field("exit") as u8,
        field("commands") as usize,
        field("ranges"),
        field("peak_kib"),
    )
}

#[test]
fn trim_stdin_takes_bounded_memory() {
    // Two million ranges (about 15 MB of text), against none: the peak resident set may grow
    // by what one command's batch and one piece of stdin take, not by the list. Reading all
    // of stdin before the first TRIM grew it by the whole text, and then some.
    let (exit, commands, ranges, empty_peak) = trim_child(0);
    assert_eq!((exit, commands, ranges), (0, 0, 0));
    let count = 2_000_000;
    let (exit, commands, ranges, peak) = trim_child(count);
    assert_eq!(exit, 0);
    assert_eq!(commands as u64, count.div_ceil(65536));
    assert_eq!(ranges, count);
    let grew = peak.saturating_sub(empty_peak);
    assert!(
        grew < 4096,
        "the peak resident set grew by {grew} KiB ({empty_peak} KiB without ranges, {peak} KiB with {count})"
    );
}
