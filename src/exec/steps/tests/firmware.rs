//! Tests of `firmware.rs`: `--fwdownload*` against hdparm 9.65's fwdownload.c: the segments'
//! taskfiles and data, the `.` per segment, the banner, the drive's COUNT between segments,
//! the file checks, the support check and the raw-device check.

use super::*;
use crate::ata::command::{Protocol, TaskFile};

const GUARDS: &str = "--yes-i-know-what-i-am-doing --please-destroy-my-drive";

/// A drive with DOWNLOAD MICROCODE, segmented mode 3 (words 119/120 bit 4), and segments of
/// `min` to `max` blocks (words 234/235).
fn fw_drive(min: u16, max: u16) -> FakeDevice {
    let mut w = sata_words();
    w[119] |= 0x10;
    w[120] |= 0x10;
    w[234] = min;
    w[235] = max;
    FakeDevice::libata_disk(w)
}

/// A firmware file of `len` bytes with a recognisable pattern, in the temp directory.
fn fw_file(tag: &str, len: usize) -> (std::path::PathBuf, Vec<u8>) {
    let path = std::env::temp_dir().join(format!("hdparm-rs-fw-{tag}-{}.bin", std::process::id()));
    let bytes: Vec<u8> = (0..len).map(|i| (i / 512 + i) as u8).collect();
    std::fs::write(&path, &bytes).unwrap();
    (path, bytes)
}

fn segment(feature: u16, blocks: u16, offset_blocks: u64) -> TaskFile {
    TaskFile {
        command: op::DOWNLOAD_MICROCODE,
        feature,
        count: blocks & 0xFF,
        lba: offset_blocks << 8 | u64::from(blocks >> 8),
        device: 0xE0,
        lba48: false,
        protocol: Protocol::PioOut,
        timeout_secs: 120,
    }
}

#[test]
fn mode3_sends_min_size_segments_with_a_dot_each() {
    let (path, bytes) = fw_file("mode3", 4096);
    let p = path.display();
    let o = run_on(fw_drive(2, 8), &format!("--fwdownload {p} {GUARDS} /dev/x"));
    assert_eq!(
        o.taskfiles(),
        vec![
            segment(3, 2, 0),
            segment(3, 2, 2),
            segment(3, 2, 4),
            segment(3, 2, 6)
        ]
    );
    let chunks: Vec<Vec<u8>> = bytes.chunks(1024).map(<[u8]>::to_vec).collect();
    assert_eq!(o.data_out, chunks);
    assert_eq!(o.stdout, format!("{HEADER}.... Done.\n"));
    assert_eq!(o.stderr, "fwdownload: xfer_mode=3 min=2 max=8 size=1024\n");
    assert_eq!(o.exit, 0);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn the_max_and_e_modes_and_mode7() {
    let (path, bytes) = fw_file("modes", 4096);
    let p = path.display();
    let o = run_on(
        fw_drive(2, 6),
        &format!("--fwdownload-mode3-max {p} {GUARDS} /dev/x"),
    );
    // 3072 bytes, then the 1024 left.
    assert_eq!(o.taskfiles(), vec![segment(3, 6, 0), segment(3, 2, 6)]);
    assert_eq!(o.stderr, "fwdownload: xfer_mode=3 min=2 max=6 size=3072\n");
    assert_eq!(o.stdout, format!("{HEADER}.. Done.\n"));
    let o = run_on(
        fw_drive(2, 6),
        &format!("--fwdownload-modee {p} {GUARDS} /dev/x"),
    );
    assert_eq!(o.taskfiles()[0], segment(0x0E, 2, 0));
    assert_eq!(o.stderr, "fwdownload: xfer_mode=14 min=2 max=6 size=1024\n");
    let o = run_on(
        fw_drive(2, 6),
        &format!("--fwdownload-modee-max {p} {GUARDS} /dev/x"),
    );
    // hdparm 9.65's mode E max ignores the drive's words: one 0xFFFF-block segment, so the
    // whole file goes in one DOWNLOAD MICROCODE 0x0E.
    assert_eq!(o.taskfiles(), vec![segment(0x0E, 8, 0)]);
    assert_eq!(o.data_out, vec![bytes.clone()]);
    assert_eq!(
        o.stderr,
        "fwdownload: xfer_mode=14 min=1 max=65535 size=33553920
"
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}. Done.
"
        )
    );
    // Mode 7: the whole file at once, no dot.
    let o = run_on(
        fw_drive(2, 6),
        &format!("--fwdownload-mode7 {p} {GUARDS} /dev/x"),
    );
    assert_eq!(o.taskfiles(), vec![segment(7, 8, 0)]);
    assert_eq!(o.data_out, vec![bytes.clone()]);
    assert_eq!(o.stdout, format!("{HEADER} Done.\n"));
    assert_eq!(
        o.stderr,
        "fwdownload: xfer_mode=7 min=1 max=65535 size=4096\n"
    );
    // The default without segmented support is mode 7; with it, mode 3.
    let o = run_on(sata(), &format!("--fwdownload {p} {GUARDS} /dev/x"));
    assert_eq!(o.taskfiles(), vec![segment(7, 8, 0)]);
    let o = run_on(fw_drive(0, 0), &format!("--fwdownload {p} {GUARDS} /dev/x"));
    // Words 234/235 of 0: segments of one block.
    assert_eq!(o.taskfiles().len(), 8);
    assert_eq!(o.stderr, "fwdownload: xfer_mode=3 min=1 max=1 size=512\n");
    // --verbose: no dots, the file's size on stdout.
    let o = run_on(
        fw_drive(2, 8),
        &format!("--verbose --fwdownload {p} {GUARDS} /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}APT: No idVendor found -> not USB bridge device\n{}: 4096 bytes\n Done.\n",
            path.display()
        )
    );
    let _ = std::fs::remove_file(&path);
}

#[test]
fn what_the_drive_says_between_segments() {
    let (path, _) = fw_file("count", 2048);
    let p = path.display();
    let answer = |count| {
        fw_drive(2, 2).on_ata(
            op::DOWNLOAD_MICROCODE,
            None,
            Ok(AtaOutput {
                count,
                ..Default::default()
            }),
        )
    };
    // 1 ("send more") after every segment, the last included: hdparm's warning, EIO.
    let o = run_on(answer(1), &format!("--fwdownload {p} {GUARDS} /dev/x"));
    assert_eq!(o.taskfiles().len(), 2);
    assert_eq!(o.stdout, format!("{HEADER}..\n"));
    assert_eq!(
        o.stderr,
        "fwdownload: xfer_mode=3 min=2 max=2 size=1024\nError: drive expects more data than provided,\nbut the transfer may have worked regardless.\n"
    );
    assert_eq!(o.exit, 5);
    // 2 ("done") before the end: stop there.
    let o = run_on(answer(2), &format!("--fwdownload {p} {GUARDS} /dev/x"));
    assert_eq!(o.taskfiles().len(), 1);
    assert_eq!(o.stdout, format!("{HEADER}.\n"));
    assert!(o
        .stderr
        .ends_with("Error: drive completed transfer at 1024/2048 bytes\n"));
    assert_eq!(o.exit, 5);
    // A segment fails: a newline after the dots, then FAILED.
    let fake = fw_drive(2, 2).on_ata(op::DOWNLOAD_MICROCODE, None, Err(aborted(0x92)));
    let o = run_on(fake, &format!("--fwdownload {p} {GUARDS} /dev/x"));
    assert_eq!(o.taskfiles().len(), 1);
    assert_eq!(o.stdout, format!("{HEADER}\n"));
    assert_contains(&o.stderr, "\nFAILED: ATA command 0x92 failed");
    assert_eq!(o.exit, 5);
    let _ = std::fs::remove_file(&path);
}

#[test]
fn file_and_drive_checks_send_nothing() {
    let run = |fake: FakeDevice, file: &str| {
        let o = run_on(fake, &format!("--fwdownload {file} {GUARDS} /dev/x"));
        assert_eq!(o.taskfiles(), vec![], "{file}");
        o
    };
    let (odd, _) = fw_file("odd", 1000);
    let o = run(fw_drive(1, 1), &odd.to_string_lossy());
    assert_eq!(
        o.stderr,
        format!(
            "{}: file size (1000) not a multiple of 512\n",
            odd.display()
        )
    );
    assert_eq!(o.exit, 22);
    let (empty, _) = fw_file("empty", 0);
    let o = run(fw_drive(1, 1), &empty.to_string_lossy());
    assert!(o
        .stderr
        .ends_with(": file size (0) not a multiple of 512\n"));
    let o = run(fw_drive(1, 1), "/tmp");
    assert_eq!(o.stderr, "/tmp: not a regular file\n");
    let o = run(fw_drive(1, 1), "/nonexistent/fw.bin");
    assert_eq!(o.stderr, "/nonexistent/fw.bin: No such file or directory\n");
    assert_eq!(o.exit, 2);
    // No DOWNLOAD MICROCODE: word 86 bit 0 clear.
    let (good, _) = fw_file("unsupported", 1024);
    let mut w = sata_words();
    w[86] &= !1;
    let o = run(FakeDevice::libata_disk(w), &good.to_string_lossy());
    assert_eq!(o.stderr, "DOWNLOAD_MICROCODE: not supported by device\n");
    assert_eq!(o.exit, 25);
    // A partition: hdparm's own line, after the IDENTIFY its raw-device check reads (its
    // geometry lookup), and nothing else.
    let mut fake = fw_drive(1, 1);
    fake.partition_refusal =
        Some("Device /dev/x has non-zero LBA starting offset of 2048.\n...\nAborting.".into());
    let o = run(fake, &good.to_string_lossy());
    assert_eq!(
        o.stderr,
        "--fwdownload requires the raw device, not a partition.\nAborting.\n"
    );
    assert!(o.calls.contains(&Call::Identify));
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 22);
    for f in [odd, empty, good] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn fwdownload_needs_both_guard_flags() {
    let o = run_on(
        fw_drive(1, 1),
        "--fwdownload fw.bin --please-destroy-my-drive /dev/x",
    );
    assert!(o
        .stderr
        .starts_with("Use of --fwdownload is VERY DANGEROUS.\n"));
    assert_eq!((o.exit, o.taskfiles().len()), (1, 0));
    let o = run_on(
        fw_drive(1, 1),
        "--fwdownload fw.bin --yes-i-know-what-i-am-doing /dev/x",
    );
    assert_eq!(
        o.stderr,
        "Use of --fwdownload is EXTREMELY DANGEROUS.\nThis might destroy the drive and well as all of the data on it.\nPlease also supply the --please-destroy-my-drive flag if you really want this.\nProgram aborted.\n"
    );
    assert_eq!(o.exit, 1);
}
