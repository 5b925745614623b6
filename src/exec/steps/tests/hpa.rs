//! Tests of `hpa.rs` and the `-N` get: the max-address set (AMAX, SET MAX ADDRESS (EXT) with
//! its native-max read), its guard, the DCO sub-commands and the `--dco-setmax` block, as
//! hdparm 9.65 sends them (reference §4.5, §5.5), over real drives' IDENTIFY words.

use super::*;
use crate::ata::command::{Protocol, TaskFile, DEV_LBA, DEV_LBA_OBSOLETE};
use crate::ata::dco;

/// A real drive's words (tests/fixtures/identify/real, SOURCES.md there): "samsung" (SSD 860
/// EVO 500GB), "maxtor" (96147H8: 28-bit, no WRITE UNCORRECTABLE EXT), anything else the
/// ST3160023AS (48-bit, 312500000 sectors, no WRITE UNCORRECTABLE EXT).
pub(super) fn real(name: &str) -> [u16; 256] {
    let text = match name {
        "samsung" => &include_bytes!(
            "../../../../tests/fixtures/identify/real/samsung-ssd-860-evo-500gb.hex"
        )[..],
        "maxtor" => {
            &include_bytes!("../../../../tests/fixtures/identify/real/maxtor-96147h8-bac51kj0.hex")
                [..]
        }
        _ => &include_bytes!("../../../../tests/fixtures/identify/real/st3160023as-2.hex")[..],
    };
    crate::ata::identify_hex::parse_identify_hex(text).unwrap_or([0; 256])
}

/// The Samsung SSD 860 EVO 500GB: 48-bit, 976773168 sectors, WRITE UNCORRECTABLE, word 105 = 8.
pub(super) fn samsung() -> FakeDevice {
    FakeDevice::libata_disk(real("samsung"))
}

/// The same drive claiming ACS-3 and Accessible Max Address.
fn amax() -> FakeDevice {
    let mut w = real("samsung");
    w[80] |= 0x0400;
    w[119] |= 0x0100;
    FakeDevice::libata_disk(w)
}

fn native(lba: u64) -> Result<AtaOutput, crate::exec::access::AtaFailure> {
    Ok(AtaOutput {
        lba,
        ..Default::default()
    })
}

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const SAMSUNG_SECTORS: u64 = 976773168;

fn nd(
    command: u8,
    feature: u16,
    count: u16,
    lba: u64,
    device: u8,
    lba48: bool,
    t: u32,
) -> TaskFile {
    TaskFile {
        command,
        feature,
        count,
        lba,
        device,
        lba48,
        protocol: Protocol::NonData,
        timeout_secs: t,
    }
}

#[test]
fn shrinking_needs_the_guard_and_nothing_is_sent_without_it() {
    let o = run_on(samsung(), "-N 1000000 /dev/x");
    assert_eq!(
        o.stderr,
        "Use of -Nnnnnn is VERY DANGEROUS.\nYou have requested reducing the apparent size of the drive.\n\
This is a BAD idea, and can easily destroy all of the drive's contents.\n\
Please supply the --yes-i-know-what-i-am-doing flag if you really want this.\nProgram aborted.\n"
    );
    assert_eq!(o.stdout, "");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 1);
    // Growing (or keeping) the size needs no guard.
    let fake = samsung().on_ata(op::READ_NATIVE_MAX_EXT, None, native(SAMSUNG_SECTORS - 1));
    let o = run_on(fake, &format!("-N {SAMSUNG_SECTORS} /dev/x"));
    assert_eq!(o.exit, 0, "{}", o.stderr);
}

#[test]
fn set_max_ext_follows_a_native_max_read_then_the_get_prints() {
    let fake = samsung().on_ata(op::READ_NATIVE_MAX_EXT, None, native(SAMSUNG_SECTORS - 1));
    let o = run_on(fake, &format!("{KNOW} -N p1000000 /dev/x"));
    assert_eq!(
        o.taskfiles(),
        vec![
            nd(op::READ_NATIVE_MAX_EXT, 0, 0, 0, DEV_LBA, true, 15),
            nd(0x37, 0, 1, 999_999, DEV_LBA, true, 0),
            nd(op::READ_NATIVE_MAX_EXT, 0, 0, 0, DEV_LBA, true, 15),
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting max visible sectors to 1000000 (permanent)\n max sectors   = \
{SAMSUNG_SECTORS}/{SAMSUNG_SECTORS}, HPA is disabled\n"
        )
    );
    assert_eq!(o.stderr, "");
    assert_eq!(o.exit, 0);
    // The IDENTIFY data is read afresh after the set.
    let forget = o.calls.iter().position(|c| *c == Call::ForgetIdentify);
    let set = o
        .calls
        .iter()
        .position(|c| matches!(c, Call::Ata(tf) if tf.command == 0x37));
    assert!(forget > set, "{:?}", o.calls);
}

#[test]
fn accessible_max_address_sets_with_0x78_feature_1() {
    let fake = amax().on_ata(op::GET_NATIVE_MAX_EXT, Some(0), native(SAMSUNG_SECTORS - 1));
    let o = run_on(fake, &format!("{KNOW} -N 1000000 /dev/x"));
    assert_eq!(
        o.taskfiles(),
        vec![
            nd(0x78, 1, 0, 999_999, DEV_LBA_OBSOLETE, true, 15),
            nd(0x78, 0, 0, 0, DEV_LBA, true, 15),
        ]
    );
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} setting max visible sectors to 1000000 (temporary)\n max sectors   = \
{SAMSUNG_SECTORS}/{SAMSUNG_SECTORS}, ACCESSIBLE MAX ADDRESS disabled\n"
        )
    );
}

#[test]
fn a_28bit_drive_gets_set_max_address_with_lba_27_24_in_the_device_register() {
    let fake = FakeDevice::libata_disk(real("maxtor")).on_ata(
        op::READ_NATIVE_MAX,
        None,
        native(120_060_863),
    );
    let o = run_on(fake, &format!("{KNOW} -N 100000000 /dev/x"));
    let tfs = o.taskfiles();
    assert_eq!(tfs[0], nd(0xF8, 0, 0, 0, DEV_LBA, true, 15));
    assert_eq!(
        tfs[1],
        nd(0xF9, 0, 0, 99_999_999, DEV_LBA_OBSOLETE, false, 0)
    );
    let cdb: Vec<String> = tfs[1].cdb16().iter().map(|b| format!("{b:02x}")).collect();
    assert_eq!(
        cdb.join(" "),
        "85 06 20 00 00 00 00 00 ff 00 e0 00 f5 e5 f9 00"
    );
    assert_eq!(o.exit, 0, "{}", o.stderr);
}

#[test]
fn quiet_set_prints_no_message_and_no_get() {
    let fake = samsung().on_ata(op::READ_NATIVE_MAX_EXT, None, native(SAMSUNG_SECTORS - 1));
    let o = run_on(fake, &format!("{KNOW} -q -N 1000000 /dev/x"));
    assert_eq!(o.stdout, "");
    assert_eq!(o.taskfiles().len(), 2);
}

#[test]
fn failures_of_the_native_read_and_of_the_set() {
    let fake = samsung().on_ata(op::READ_NATIVE_MAX_EXT, None, Err(aborted(0x27)));
    let o = run_on(fake, &format!("{KNOW} -q -N 1000000 /dev/x"));
    assert_eq!(
        o.ata(),
        vec![(op::READ_NATIVE_MAX_EXT, 0, 0)],
        "no SET without the read"
    );
    assert_eq!(
        o.stderr,
        " READ_NATIVE_MAX_ADDRESS_EXT failed: ATA command 0x27 failed: status 0x51 (error), error 0x04 (aborted)\n"
    );
    assert_eq!(o.exit, 5);
    let fake = samsung()
        .on_ata(op::READ_NATIVE_MAX_EXT, None, native(SAMSUNG_SECTORS - 1))
        .on_ata(0x37, None, Err(aborted(0x37)));
    let o = run_on(fake, &format!("{KNOW} -N 1000000 /dev/x"));
    assert_starts_with(
        &o.stderr,
        " SET_MAX_ADDRESS(_EXT) failed: ATA command 0x37 failed",
    );
    // The get still runs.
    assert_ends_with(&o.stdout, "HPA is disabled\n");
    assert_eq!(o.exit, 5);
}

#[test]
fn without_identify_nothing_is_set_and_the_reason_is_given_once() {
    // No guard either: hdparm asks for it only when IDENTIFY shows the drive would shrink.
    let o = run_on(FakeDevice::loop_device(), "-q -N 1000 /dev/x");
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.stdout, "");
    let why = "/dev/x: -N reads the drive's IDENTIFY data: /dev/x is a loop device; it has no ATA interface\n";
    assert_eq!((o.stderr.as_str(), o.exit), (why, 25));
    let o = run_on(FakeDevice::loop_device(), "-N 1000 /dev/x");
    assert_eq!(
        o.stdout,
        format!("{HEADER} setting max visible sectors to 1000 (temporary)\n")
    );
    assert_eq!((o.stderr.as_str(), o.exit), (why, 25));
    let o = run_on(FakeDevice::loop_device(), "--dco-setmax 1000 /dev/x");
    assert!(o
        .stderr
        .contains("--dco-setmax reads the drive's IDENTIFY data"));
}

/// DCO IDENTIFY bytes of the sample block.
fn dco_bytes(words: &[u16; 256]) -> Vec<u8> {
    dco::to_le_bytes(words).to_vec()
}

#[test]
fn get_with_more_visible_than_native_shows_the_dco_real_maximum() {
    let fake = samsung()
        .on_ata(op::READ_NATIVE_MAX_EXT, None, native(999))
        .on_ata_read(op::DCO, &dco_bytes(&dco::tests::sample()));
    let o = run_on(fake, "-N /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} max sectors   = {SAMSUNG_SECTORS}/1000(976773168?), HPA setting seems invalid \
(buggy kernel device driver?)\n"
        )
    );
    let dco_tf = &o.taskfiles()[1];
    assert_eq!(
        (
            dco_tf.command,
            dco_tf.feature,
            dco_tf.count,
            dco_tf.protocol
        ),
        (op::DCO, 0xC2, 1, Protocol::PioIn)
    );
    // A drive without DCO: the part is left out, and its failure is not reported.
    let fake = samsung()
        .on_ata(op::READ_NATIVE_MAX_EXT, None, native(999))
        .on_ata(op::DCO, None, Err(aborted(op::DCO)));
    let o = run_on(fake, "-N /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER} max sectors   = {SAMSUNG_SECTORS}/1000, HPA setting seems invalid (buggy kernel device driver?)\n"
        )
    );
    assert_eq!((o.stderr.as_str(), o.exit), ("", 0));
}

#[test]
fn dco_identify_prints_the_checksum_verdict_and_the_decode() {
    let fake = samsung().on_ata_read(op::DCO, &dco_bytes(&dco::tests::sample()));
    let o = run_on(fake, "--dco-identify /dev/x");
    assert_eq!(
        o.stdout,
        format!(
            "{HEADER}{}",
            crate::report::dco::text(&dco::tests::sample())
        )
    );
    assert!(o
        .stdout
        .contains("DCO Checksum verified.\nDCO Revision: 0x0002\n"));
    assert_eq!(
        o.taskfiles(),
        vec![TaskFile::drive_cmd([op::DCO, 0, 0xC2, 1])]
    );
    assert!(o.calls.contains(&Call::AtaDataLen(512)));
    let fake = samsung().on_ata(op::DCO, None, Err(aborted(op::DCO)));
    let o = run_on(fake, "--dco-identify /dev/x");
    assert_eq!(
        o.stderr,
        " HDIO_DRIVE_CMD(dco_identify) failed: ATA command 0xb1 failed: status 0x51 (error), error 0x04 (aborted)\n"
    );
    assert_eq!(o.exit, 5);
    // JSON has the decode.
    let fake = samsung().on_ata_read(op::DCO, &dco_bytes(&dco::tests::sample()));
    let o = run_on(fake, "--json --dco-identify /dev/x");
    let doc: serde_json::Value = serde_json::from_str(&o.stdout).unwrap_or_default();
    assert_eq!(
        doc["devices"][0]["dco_identify"]["real_max_sectors"],
        976773168u64
    );
}

#[test]
fn dco_restore_needs_its_guard() {
    let o = run_on(samsung(), "--dco-restore /dev/x");
    assert!(o.stderr.starts_with("Use of --dco-restore is VERY DANGEROUS.\nYou are trying to deliberately reset your drive configuration back to the factory defaults.\n"));
    assert!(o.taskfiles().is_empty());
    assert_eq!(o.exit, 1);
    let o = run_on(samsung(), &format!("{KNOW} --dco-restore /dev/x"));
    assert_eq!(o.stdout, format!("{HEADER} issuing DCO restore command\n"));
    assert_eq!(
        o.taskfiles(),
        vec![TaskFile::drive_cmd([op::DCO, 0, 0xC0, 0])]
    );
    let fake = samsung().on_ata(op::DCO, None, Err(aborted(op::DCO)));
    let o = run_on(fake, &format!("{KNOW} --dco-restore /dev/x"));
    assert!(o
        .stderr
        .starts_with(" HDIO_DRIVE_CMD(dco_restore) failed: ATA command 0xb1"));
    assert_eq!(o.exit, 5);
}

#[test]
fn dco_setmax_sends_the_drives_block_with_the_new_maximum_and_checksum() {
    let sample = dco::tests::sample();
    let o = run_on(
        samsung().on_ata_read(op::DCO, &dco_bytes(&sample)),
        "--dco-setmax 1000000 /dev/x",
    );
    assert!(o.stderr.starts_with("Use of --dco-setmax is VERY DANGEROUS.\nYou have requested reducing the apparent size of the drive.\n"));
    assert_eq!(o.exit, 1);
    let o = run_on(
        samsung().on_ata_read(op::DCO, &dco_bytes(&sample)),
        &format!("{KNOW} --dco-setmax 1000000 /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}issuing DCO set command (sectors = 1000000)\n")
    );
    let mut set = TaskFile::new(op::DCO, 0, 0);
    set.feature = 0xC3;
    set.protocol = Protocol::PioOut;
    set.timeout_secs = 15;
    assert_eq!(
        o.taskfiles(),
        vec![TaskFile::drive_cmd([op::DCO, 0, 0xC2, 1]), set]
    );
    let sent = dco::from_le_bytes(&o.data_out[0]);
    assert_eq!(sent, dco::with_max_sectors(&sample, 1_000_000));
    assert!(dco::checksum_ok(&sent));
    assert_eq!(dco::real_max_sectors(&sent), 1_000_000);
    assert_eq!((o.stderr.as_str(), o.exit), ("", 0));
}

#[test]
fn dco_setmax_refuses_a_bad_checksum_and_missing_data() {
    let mut bad = dco::tests::sample();
    bad[7] ^= 1;
    let o = run_on(
        samsung().on_ata_read(op::DCO, &dco_bytes(&bad)),
        &format!("{KNOW} --dco-setmax 2000000000 /dev/x"),
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}issuing DCO set command (sectors = 2000000000)\nDCO Checksum FAILED!\n")
    );
    assert_eq!(o.taskfiles().len(), 1, "no DEVICE CONFIGURATION SET");
    assert_eq!(o.exit, 5);
    let o = run_on(
        samsung().on_ata(op::DCO, None, Err(aborted(op::DCO))),
        "--dco-setmax 2000000000 /dev/x",
    );
    assert_eq!(
        o.stdout,
        format!("{HEADER}issuing DCO set command (sectors = 2000000000)\nDCO data is NULL!\n")
    );
    assert!(o
        .stderr
        .starts_with(" HDIO_DRIVE_CMD(dco_identify) failed: "));
    assert_eq!(o.exit, 5);
}
