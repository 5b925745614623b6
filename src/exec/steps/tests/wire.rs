//! What the drive receives, in order, as hdparm 9.65 sends it (issue 14: "the wire is the
//! contract"): in particular where IDENTIFY goes out. The fake answers every `identify()` and
//! does not cache; the device caches IDENTIFY per process until a step drops it, as hdparm's
//! static `id` does, so [`wire`] folds the fake's calls the same way: an IDENTIFY counts only
//! when nothing is cached.

use super::hpa::samsung;
use super::*;
use crate::ata::command::{Protocol, TaskFile};

const KNOW: &str = "--yes-i-know-what-i-am-doing";
const DESTROY: &str = "--please-destroy-my-drive";

/// One command as the drive sees it: its opcode (IDENTIFY as 0xEC), and READ LOG EXT as
/// 0x2F with its log address.
#[derive(Debug, PartialEq, Eq)]
enum Wire {
    Identify,
    Cmd(u8),
    Log(u8),
}
use Wire::{Cmd, Identify, Log};

/// The commands the drive gets, with IDENTIFY cached as the device caches it.
fn wire(o: &crate::exec::doubles::fake::Outcome) -> Vec<Wire> {
    let mut cached = false;
    let mut seen = Vec::new();
    for call in &o.calls {
        match call {
            Call::Identify if !cached => {
                cached = true;
                seen.push(Identify);
            }
            Call::ForgetIdentify => cached = false,
            Call::Ata(tf) | Call::AtaSgOnly(tf) => seen.push(Cmd(tf.command)),
            Call::ReadLog { log, .. } => seen.push(Log(*log)),
            _ => {}
        }
    }
    seen
}

#[test]
fn read_sector_reads_identify_for_the_sector_size_first() {
    // hdparm: get_current_sector_size() (IDENTIFY), then READ SECTOR(S).
    let o = run_on(samsung(), "--read-sector 0 /dev/x");
    assert_eq!(wire(&o), vec![Identify, Cmd(op::READ_PIO)]);
    assert_eq!(o.exit, 0);
    // The sector is as long as IDENTIFY says (words 106, 117-118), not the kernel's size.
    let mut w = super::hpa::real("samsung");
    w[106] = 0x5000;
    w[117] = 2048;
    let mut fake = FakeDevice::libata_disk(w);
    fake.logical_sector_size = Ok(512);
    let o = run_on(fake, "--read-sector 0 /dev/x");
    assert!(o.calls.contains(&Call::AtaDataLen(4096)), "{:?}", o.calls);
    // Without IDENTIFY: 512 bytes, and the read still goes out.
    let mut fake = samsung();
    fake.identify = Err(aborted(op::IDENTIFY));
    let o = run_on(fake, "--read-sector 0 /dev/x");
    assert!(o.calls.contains(&Call::AtaDataLen(512)), "{:?}", o.calls);
}

#[test]
fn trim_reads_identify_in_the_raw_device_check_as_hdparm_does() {
    // hdparm's abort_if_not_full_device() looks up the geometry, which reads IDENTIFY.
    let o = run_on(
        samsung(),
        &format!("--trim-sector-ranges 100:8 1000:1 {DESTROY} /dev/x"),
    );
    assert_eq!(wire(&o), vec![Identify, Cmd(op::DSM)]);
    let mut dsm = TaskFile::sector_command(op::DSM, 0, 1, Protocol::DmaOut, true);
    dsm.feature = 1;
    dsm.device = 0x40;
    dsm.timeout_secs = 300;
    assert_eq!(o.taskfiles(), vec![dsm]);
}

#[test]
fn one_identify_per_process_for_the_sector_operations() {
    // --write-sector: the sector size, then the check: one IDENTIFY.
    let o = run_on(samsung(), &format!("{KNOW} --write-sector 5 /dev/x"));
    assert_eq!(wire(&o), vec![Identify, Cmd(op::WRITE_PIO)]);
    // --make-bad-sector: the check's and the WRITE UNCORRECTABLE test's IDENTIFY is one.
    let o = run_on(samsung(), &format!("{KNOW} --make-bad-sector 5 /dev/x"));
    assert_eq!(wire(&o), vec![Identify, Cmd(op::WRITE_UNC_EXT)]);
    // --set-sector-size: IDENTIFY, the log directory, the Sector Configuration log.
    let o = run_on(
        super::sectors::with_sector_log(samsung()),
        &format!("{DESTROY} --set-sector-size 4096 /dev/x"),
    );
    assert_eq!(
        wire(&o),
        vec![Identify, Log(0), Log(0x2F), Cmd(0xB2)],
        "{:?}",
        o.calls
    );
}

#[test]
fn geometry_reads_identify_as_hdparm_does() {
    // hdparm's get_dev_geometry() sizes sectors from IDENTIFY.
    let o = run_on(samsung(), "-g /dev/x");
    assert_eq!(wire(&o), vec![Identify]);
}

#[test]
fn password_commands_without_master_read_no_identify_before_they_go_out() {
    // hdparm reads IDENTIFY only for a master password's revision (and for the erase's
    // timeout); the unlock and the user SET PASSWORD go out alone.
    let o = run_on(samsung(), "--security-unlock abc /dev/x");
    assert_eq!(wire(&o), vec![Cmd(0xF2)]);
    let o = run_on(samsung(), "--security-disable abc /dev/x");
    assert_eq!(wire(&o), vec![Cmd(0xF2), Cmd(0xF6)]);
    let o = run_on(samsung(), "--security-set-pass abc /dev/x");
    assert_eq!(wire(&o), vec![Cmd(0xF1)]);
    let o = run_on(samsung(), "--user-master m --security-set-pass abc /dev/x");
    assert_eq!(wire(&o), vec![Identify, Cmd(0xF1)]);
}

#[test]
fn fwdownload_on_a_partition_reads_identify_before_its_refusal() {
    // hdparm's abort_if_not_full_device() reads IDENTIFY, then refuses the partition.
    let mut fake = samsung();
    fake.partition_refusal =
        Some("Device /dev/x1 has non-zero LBA starting offset of 2048.".into());
    let o = run_on(
        fake,
        &format!("--fwdownload /tmp/none.bin {KNOW} {DESTROY} /dev/x"),
    );
    assert_eq!(wire(&o), vec![Identify]);
    assert_eq!(
        o.stderr,
        "--fwdownload requires the raw device, not a partition.\nAborting.\n"
    );
}
