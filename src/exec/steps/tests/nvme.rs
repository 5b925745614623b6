//! The NVMe steps over the scripted NVMe controller (`exec/doubles/fake_nvme.rs`): the exact commands sent
//! (queue, opcode, namespace, CDW10-15, data out), what is printed, and the exit class.

use super::{assert_contains, assert_ends_with, assert_starts_with, HEADER};
use crate::exec::doubles::fake::{run_on, Call, FakeDevice, Outcome};
use crate::exec::doubles::fake_nvme::FakeNvme;
use crate::nvme::command::{NvmeCommand, Queue};

/// The NVMe commands sent, as (queue, opcode, nsid, cdw10, cdw11, cdw12), in order.
fn sent(o: &Outcome) -> Vec<(Queue, u8, u32, u32, u32, u32)> {
    nvme_calls(o)
        .iter()
        .map(|(c, _)| (c.queue, c.opcode, c.nsid, c.cdw10, c.cdw11, c.cdw12))
        .collect()
}

fn nvme_calls(o: &Outcome) -> Vec<(NvmeCommand, Vec<u8>)> {
    o.calls
        .iter()
        .filter_map(|c| match c {
            Call::Nvme(cmd, data) => Some((*cmd, data.clone())),
            _ => None,
        })
        .collect()
}

/// The commands other than Identify (which several steps read for what they decide).
fn actions(o: &Outcome) -> Vec<(Queue, u8, u32, u32, u32, u32)> {
    sent(o).into_iter().filter(|c| c.1 != 0x06).collect()
}

const A: Queue = Queue::Admin;
const IO: Queue = Queue::Io;

fn with(f: impl FnOnce(&mut FakeNvme)) -> FakeDevice {
    let mut d = FakeDevice::nvme();
    f(d.nvme.as_mut().unwrap());
    d
}

/// A controller with APST, sanitize (all three), crypto format, FWUG 2 (8 KiB), and power
/// states 0 (operational) and 1, 2 (non-operational).
fn capable() -> FakeDevice {
    with(|n| {
        let c = &mut n.id_ctrl;
        c[256] |= 0x04; // firmware download
        c[260] = 0x04; // two slots, slot 1 writable
        c[263] = 2;
        c[265] = 1; // APSTA
        c[319] = 2;
        c[328] = 0x07;
        c[524] = 0x04; // FNA crypto erase
        c[2048 + 32 + 3] = 0x02;
        c[2048 + 64 + 3] = 0x02;
        n.features.insert(0x0C, 0);
        let mut s = vec![0u8; 512];
        s[0..2].copy_from_slice(&0x4000u16.to_le_bytes());
        s[2] = 0x02;
        n.logs.insert(0x81, s);
    })
}

#[test]
fn write_cache_get_and_set() {
    let o = run_on(FakeDevice::nvme(), "-W /dev/x");
    assert_eq!(o.stdout, format!("{HEADER} write-caching =  1 (on)\n"));
    assert_eq!(actions(&o), vec![(A, 0x0A, 0, 6, 0, 0)]);
    assert_eq!(o.exit, 0);

    let o = run_on(FakeDevice::nvme(), "-W0 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting drive write-caching to 0 (off)\n write-caching =  0 (off)\n")
    );
    // Flush, Set Features 06h = 0, then the get.
    assert_eq!(
        actions(&o),
        vec![
            (IO, 0x00, 1, 0, 0, 0),
            (A, 0x09, 0, 6, 0, 0),
            (A, 0x0A, 0, 6, 0, 0)
        ]
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);

    let o = run_on(FakeDevice::nvme(), "-W1 /dev/x");
    assert_eq!(
        actions(&o),
        vec![(A, 0x09, 0, 6, 1, 0), (A, 0x0A, 0, 6, 0, 0)]
    );
}

#[test]
fn write_cache_absent_and_failing() {
    let o = run_on(with(|n| n.id_ctrl[525] = 0), "-W /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} write-caching = not supported\n")
    );
    assert_eq!(o.exit, 0);
    let o = run_on(
        with(|n| n.failing.push((Queue::Admin, 0x09, 0x4002))),
        "-W1 /dev/x",
    );
    assert_eq!(
        o.stderr,
        "/dev/x: Set Features (volatile write cache) failed: NVMe status 0x4002: Invalid Field in Command\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn flush_is_the_flush_command() {
    let o = run_on(FakeDevice::nvme(), "-F /dev/x");
    assert_eq!(o.stdout, HEADER);
    assert_eq!(actions(&o), vec![(IO, 0x00, 1, 0, 0, 0)]);
    assert_eq!(o.exit, 0);
}

#[test]
fn check_power_wakes_nothing() {
    let o = run_on(FakeDevice::nvme(), "-C /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} drive state is:  active/idle\n NVMe power state:  0 (operational); APST: not supported\n")
    );
    assert_eq!(sent(&o), vec![(A, 0x0A, 0, 2, 0, 0), (A, 0x06, 0, 1, 0, 0)]);
    let o = run_on(
        {
            let mut d = capable();
            d.nvme.as_mut().unwrap().features.insert(0x02, 2);
            d
        },
        "-C /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER} drive state is:  standby\n NVMe power state:  2 (non-operational); APST: off\n")
    );
    assert_eq!(
        actions(&o),
        vec![(A, 0x0A, 0, 2, 0, 0), (A, 0x0A, 0, 0x0C, 0, 0)]
    );
}

#[test]
fn temperature_from_the_smart_log() {
    let o = run_on(FakeDevice::nvme(), "-H /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} drive temperature (celsius) is:  50\n drive temperature in range:  yes\n \
             warning temperature threshold (celsius):  70\n critical temperature threshold (celsius):  100\n"
        )
    );
    assert_eq!(
        actions(&o),
        vec![(A, 0x02, 0xFFFF_FFFF, (127 << 16) | 2, 0, 0)]
    );
    let o = run_on(
        with(|n| n.logs.get_mut(&2).unwrap()[1..3].copy_from_slice(&350u16.to_le_bytes())),
        "-H /dev/x",
    );
    assert!(o
        .stdout
        .contains(" drive temperature (celsius) is:  77\n drive temperature in range:  no\n"));
}

#[test]
fn identify_text_and_json() {
    let o = run_on(FakeDevice::nvme(), "-I /dev/x");
    assert_starts_with(
        &o.stdout,
        &format!(
            "{HEADER}\nNVMe device, namespace 1 of controller nvme0\n\
             \tModel Number:       QEMU NVMe Ctrl\n\
             \tSerial Number:      HRSNVME0001\n\
             \tFirmware Revision:  7.2.0\n\
             \tTransport:          PCIe 2.5 GT/s x1; NVMe 1.4\n"
        ),
    );
    assert!(o
        .stdout
        .contains("\tLBA    user addressable sectors:     2097152\n"));
    assert!(o
        .stdout
        .contains("\t   *\t 0: 512 bytes, metadata 0 bytes, best performance\n"));
    assert!(o
        .stdout
        .contains("\t    \t 1: 4096 bytes, metadata 0 bytes, best performance\n"));
    assert!(o
        .stdout
        .contains("\tVolatile write cache: present, enabled\n"));
    assert!(o.stdout.contains("\t   *\tps  0: max 25.0000 W"));
    assert_eq!(o.exit, 0, "{}", o.stderr);
    assert_eq!(
        sent(&o)[..2],
        [(A, 0x06, 0, 1, 0, 0), (A, 0x06, 1, 0, 0, 0)],
        "Identify Controller, then Namespace 1"
    );

    let o = run_on(FakeDevice::nvme(), "--json -I /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let nvme = &doc["devices"][0]["identify"]["nvme"];
    assert_eq!(nvme["controller"]["sn"], "HRSNVME0001");
    assert_eq!(nvme["controller"]["oncs"], 0x15d);
    assert_eq!(nvme["namespace"]["nsze"], 2_097_152);
    assert_eq!(nvme["capacity"]["mebibytes"], 1024);
    assert_eq!(nvme["power_state_current"], 0);
    assert_eq!(nvme["transport"]["nvme_version"], "1.4");
}

#[test]
fn identify_on_the_controller_node() {
    let o = run_on(with(|n| n.nsid = None), "-I /dev/x");
    assert_starts_with(
        &o.stdout,
        &format!("{HEADER}\nNVMe device, controller nvme0\n"),
    );
    assert!(o
        .stdout
        .contains("\tno namespace (the controller's node): use /dev/nvmeXnY for the capacity\n"));
    assert_eq!(sent(&o)[0], (A, 0x06, 0, 1, 0, 0));
    assert!(
        !sent(&o).iter().any(|c| c.1 == 0x06 && c.3 == 0),
        "no Identify Namespace"
    );
    assert_eq!(o.exit, 0);
    // The flush still names namespace 1 there.
    let o = run_on(with(|n| n.nsid = None), "-F /dev/x");
    assert_eq!(actions(&o), vec![(IO, 0x00, 1, 0, 0, 0)]);
}

#[test]
fn identify_failure_is_reported() {
    let o = run_on(
        with(|n| n.failing.push((Queue::Admin, 0x06, 0x0002))),
        "-I /dev/x",
    );
    assert_eq!(o.stdout, HEADER);
    assert_eq!(
        o.stderr,
        "/dev/x: Identify Controller failed: NVMe status 0x0002: Invalid Field in Command\n"
    );
    assert_eq!(o.exit, 5);
}

#[test]
fn identify_stdout_dumps_the_4096_bytes() {
    let o = run_on(FakeDevice::nvme(), "--Istdout /dev/x");
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 2 + 256);
    assert_eq!(
        lines[2],
        "0000: 36 1b f4 1a 48 52 53 4e 56 4d 45 30 30 30 31 20"
    );
}

#[test]
fn kernel_identity_from_sysfs() {
    let o = run_on(FakeDevice::nvme(), "-i /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER}\n Model=QEMU NVMe Ctrl, FwRev=7.2.0, SerialNo=HRSNVME0001\n Config={{ NVMe }}\n LBAsects=1953525168, SectSize=512\n\n")
    );
    assert!(sent(&o).is_empty(), "-i sends nothing");
}

#[test]
fn trim_from_stdin_is_the_same_deallocate_in_batches_of_256() {
    let mut fake = FakeDevice::nvme();
    let pairs: String = (0..300).map(|i| format!("{}:1 ", i * 10)).collect();
    fake.stdin = pairs.into_bytes();
    let o = run_on(
        fake,
        "--please-destroy-my-drive --trim-sector-ranges-stdin /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}trimming 256 sectors from 256 ranges\nsucceeded\ntrimming 44 sectors from 44 ranges\nsucceeded\n")
    );
    let calls = nvme_calls(&o);
    assert_eq!(calls.len(), 2);
    // Dataset Management, deallocate, NR 0-based: 256 then 44 ranges.
    assert_eq!(
        (calls[0].0.opcode, calls[0].0.cdw10, calls[0].0.cdw11),
        (0x09, 255, 4)
    );
    assert_eq!((calls[1].0.opcode, calls[1].0.cdw10), (0x09, 43));
    assert_eq!(o.exit, 0);
    // A bad pair stops before anything is sent, with hdparm's words.
    let mut fake = FakeDevice::nvme();
    fake.stdin = b"8:16 x".to_vec();
    let o = run_on(
        fake,
        "--please-destroy-my-drive --trim-sector-ranges-stdin /dev/x",
    );
    assert_eq!(
        o.stderr,
        "stdin: error at lba:count pair #2: Invalid argument\n"
    );
    assert!(nvme_calls(&o).is_empty());
}

#[test]
fn trim_is_dataset_management_deallocate() {
    let o = run_on(
        FakeDevice::nvme(),
        "--please-destroy-my-drive --trim-sector-ranges 8:16 100:1 /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}trimming 17 sectors from 2 ranges\nsucceeded\n")
    );
    let calls = nvme_calls(&o);
    assert_eq!(calls.len(), 1);
    let (c, data) = &calls[0];
    assert_eq!(
        (c.queue, c.opcode, c.nsid, c.cdw10, c.cdw11),
        (IO, 0x09, 1, 1, 4)
    );
    let mut want = vec![0u8; 32];
    want[4] = 16;
    want[8] = 8;
    want[20] = 1;
    want[24] = 100;
    assert_eq!(data, &want);
    assert_eq!(o.exit, 0);
}

#[test]
fn sectors_are_one_logical_block() {
    let o = run_on(FakeDevice::nvme(), "--read-sector 5 /dev/x");
    assert!(o
        .stdout
        .starts_with(&format!("{HEADER}reading sector 5: succeeded\n0000 0000")));
    assert_eq!(sent(&o), vec![(IO, 0x02, 1, 5, 0, 0)]);
    let o = run_on(
        FakeDevice::nvme(),
        "--yes-i-know-what-i-am-doing --write-sector 0x100000000 /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}re-writing sector 4294967296: succeeded\n")
    );
    let calls = nvme_calls(&o);
    assert_eq!(calls.len(), 1);
    assert_eq!(
        (
            calls[0].0.opcode,
            calls[0].0.cdw10,
            calls[0].0.cdw11,
            calls[0].0.cdw12
        ),
        (0x01, 0, 1, 0)
    );
    assert_eq!(calls[0].1, vec![0u8; 512]);
}

#[test]
fn a_partition_is_refused_for_whole_namespace_jobs() {
    let d = with(|n| n.partition_of = Some("/dev/nvme0n1".into()));
    let o = run_on(
        d,
        "--please-destroy-my-drive --trim-sector-ranges 8:16 /dev/x",
    );
    assert_eq!(
        o.stderr,
        "/dev/x: --trim-sector-ranges works on a whole NVMe namespace, and this is a partition of /dev/nvme0n1; use /dev/nvme0n1\n"
    );
    assert!(sent(&o).is_empty());
    assert_eq!(o.exit, 22);
}

#[test]
fn security_erase_is_format_nvm() {
    let o = run_on(FakeDevice::nvme(), "--security-erase pw /dev/x");
    assert_starts_with(&o.stderr, "Use of --security-erase is VERY DANGEROUS.\n");
    assert!(sent(&o).is_empty());
    let o = run_on(
        FakeDevice::nvme(),
        "--yes-i-know-what-i-am-doing --security-erase pw /dev/x",
    );
    assert_ends_with(
        &o.stdout,
        " Issuing FORMAT NVM command (secure erase: user data), namespace 1, LBA format 0\n",
    );
    assert_eq!(actions(&o), vec![(A, 0x80, 1, 0x200, 0, 0)]);
    assert_eq!(nvme_calls(&o).last().unwrap().0.timeout_ms, 3_600_000);
    assert_eq!(o.exit, 0, "{}", o.stderr);
    let o = run_on(
        FakeDevice::nvme(),
        "--yes-i-know-what-i-am-doing --security-erase-enhanced pw /dev/x",
    );
    assert_eq!(o.stderr, "/dev/x: --security-erase-enhanced on NVMe: the controller has no cryptographic erase (FNA bit 2)\n");
    assert_eq!(o.exit, 25);
    let o = run_on(
        capable(),
        "--yes-i-know-what-i-am-doing --security-erase-enhanced pw /dev/x",
    );
    assert_eq!(actions(&o), vec![(A, 0x80, 1, 0x400, 0, 0)]);
}

#[test]
fn sanitize_status_wait_reads_the_log_until_the_sanitize_ends() {
    let mut fake = capable();
    let nvme = fake.nvme.as_mut().unwrap();
    let page = |progress: u16, status: u8| {
        let mut s = vec![0u8; 512];
        s[0..2].copy_from_slice(&progress.to_le_bytes());
        s[2] = status;
        s
    };
    nvme.later_logs = vec![(0x81, page(0x8000, 0x02)), (0x81, page(0xFFFF, 0x01))];
    let o = run_on(fake, "--sanitize-status --wait /dev/x");
    // Three reads of the log: 25%, 50%, then completed; the last status is printed.
    let reads = sent(&o).iter().filter(|c| c.1 == 0x02).count();
    assert_eq!(reads, 3, "{:?}", sent(&o));
    assert!(!o.stdout.contains("in progress"), "{}", o.stdout);
    assert_starts_with(
        &o.stdout,
        &format!("{HEADER}Sanitize status:\n    State:    "),
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);
}

#[test]
fn sanitize_actions_and_status() {
    let o = run_on(
        FakeDevice::nvme(),
        "--yes-i-know-what-i-am-doing --sanitize-crypto-scramble /dev/x",
    );
    assert!(o
        .stderr
        .contains("the controller does not support this sanitize action (SANICAP 0x00000000)"));
    assert_eq!(o.exit, 25);
    let o = run_on(
        capable(),
        "--yes-i-know-what-i-am-doing --sanitize-crypto-scramble /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}Issuing SANITIZE_CRYPTO_SCRAMBLE command\nOperation started in background\nYou may use `--sanitize-status` to check progress\n")
    );
    assert_eq!(actions(&o), vec![(A, 0x84, 0, 4, 0, 0)]);
    let o = run_on(
        capable(),
        "--yes-i-know-what-i-am-doing --sanitize-block-erase /dev/x",
    );
    assert_eq!(actions(&o), vec![(A, 0x84, 0, 2, 0, 0)]);
    let o = run_on(
        capable(),
        "--yes-i-know-what-i-am-doing --sanitize-overwrite-passes 3 --sanitize-overwrite hex:a5a5a5a5 /dev/x",
    );
    assert_eq!(actions(&o), vec![(A, 0x84, 0, 0x33, 0xa5a5_a5a5, 0)]);
    let o = run_on(capable(), "--sanitize-status /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER}Sanitize status:\n    State:    sanitize operation in progress\n    Progress: 0x4000 (25%)\n")
    );
    assert_eq!(actions(&o), vec![(A, 0x02, 0, (127 << 16) | 0x81, 0, 0)]);
    let o = run_on(capable(), "--sanitize-freeze-lock /dev/x");
    assert_eq!(o.stderr, "/dev/x: --sanitize-freeze-lock/--sanitize-antifreeze-lock on NVMe: NVMe's Sanitize has no freeze lock\n");
}

#[test]
fn firmware_download_in_fwug_chunks_then_commit() {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-nvme-fw-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let image = dir.join("fw.bin");
    let bytes: Vec<u8> = (0..20480u32).map(|i| (i % 251) as u8).collect();
    std::fs::write(&image, &bytes).unwrap();
    let line = format!(
        "--yes-i-know-what-i-am-doing --please-destroy-my-drive --fwdownload {} /dev/x",
        image.display()
    );
    let o = run_on(capable(), &line);
    assert_eq!(
        actions(&o),
        vec![
            (A, 0x11, 0, 2047, 0, 0),
            (A, 0x11, 0, 2047, 2048, 0),
            (A, 0x11, 0, 1023, 4096, 0),
            (A, 0x10, 0, 0x08, 0, 0),
        ]
    );
    let calls = nvme_calls(&o);
    let sent_bytes: Vec<u8> = calls
        .iter()
        .filter(|(c, _)| c.opcode == 0x11)
        .flat_map(|(_, d)| d.clone())
        .collect();
    assert_eq!(sent_bytes, bytes);
    assert!(o
        .stdout
        .ends_with(" Done. The new firmware is activated at the next controller reset.\n"));
    assert_eq!(
        o.stderr,
        "fwdownload: NVMe Firmware Image Download, chunk=8192 size=20480\n"
    );
    assert_eq!(o.exit, 0);
    // No firmware download support: refused before anything is downloaded.
    let o = run_on(FakeDevice::nvme(), &line);
    assert!(actions(&o).is_empty());
    assert_eq!(o.exit, 25);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn apst_for_b_and_s() {
    let o = run_on(FakeDevice::nvme(), "-S 12 /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: -S on NVMe: the controller has no Autonomous Power State Transitions (APSTA 0), which is what this option maps to\n"
    );
    assert_eq!(o.exit, 25);
    let o = run_on(capable(), "-S 12 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting standby to 12 (1 minute) as APST\n")
    );
    let calls = nvme_calls(&o);
    let (c, table) = calls.iter().find(|(c, _)| c.opcode == 0x09).unwrap();
    assert_eq!((c.cdw10, c.cdw11), (0x0C, 1));
    // PS0 goes to PS2 (the deepest non-operational state) after 60 000 ms; PS1 and PS2 stay.
    let ps0 = u64::from_le_bytes(table[0..8].try_into().unwrap());
    assert_eq!(ps0, (2 << 3) | (60_000 << 8));
    assert!(table[8..].iter().all(|&b| b == 0));
    let o = run_on(capable(), "-B 255 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting Autonomous Power State Transitions (for -B 255) off\n APM_level\t= APST off\n")
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);
    let o = run_on(capable(), "-B 128 /dev/x");
    assert_ends_with(&o.stdout, " APM_level\t= APST on\n");
    assert_eq!(o.exit, 0);
    let o = run_on(capable(), "-S 253 /dev/x");
    assert_eq!(
        o.stderr,
        "/dev/x: -S on NVMe: 253 names no length of time, which APST needs\n"
    );
}

#[test]
fn other_ata_only_options_still_say_why() {
    // -y has no NVMe twin: the ATA step reports what the device is.
    let o = run_on(FakeDevice::nvme(), "-y /dev/x");
    assert_contains(&o.stderr, "NVMe namespace");
    assert!(sent(&o).is_empty());
    // An ATA-only job on NVMe (DCO) is the ATA step, which says what the device is.
    let o = run_on(FakeDevice::nvme(), "--dco-identify /dev/x");
    assert_contains(&o.stderr, "NVMe namespace");
    assert!(sent(&o).is_empty());
}
