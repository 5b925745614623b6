//! The refusal of a drive in use, before anything is sent (ours; DIFFERENCES.md "in use").

use super::{assert_contains, assert_starts_with, sata};
use crate::exec::doubles::fake::{run_on, FakeDevice};

fn in_use(mut fake: FakeDevice) -> FakeDevice {
    fake.in_use = Some("/dev/x1 is mounted on /home".into());
    fake.size_sectors = Ok(1_000_000);
    fake
}

#[test]
fn a_destructive_option_on_a_drive_in_use_is_refused_and_nothing_is_sent() {
    let o = run_on(
        in_use(sata()),
        "--yes-i-know-what-i-am-doing --write-sector 8 /dev/x",
    );
    assert_eq!(o.exit, 16, "busy");
    assert_eq!(o.stdout, "");
    assert_eq!(
        o.stderr,
        "/dev/x: refusing --write-sector: /dev/x1 is mounted on /home. It would destroy data in use; stop using the drive first (unmount, swapoff, or stop the array or volume).\n"
    );
    assert!(o.calls.is_empty(), "{:?}", o.calls);
}

#[test]
fn a_missing_guard_flag_is_reported_before_the_use() {
    let o = run_on(in_use(sata()), "--write-sector 8 /dev/x");
    assert_eq!(o.exit, 1);
    assert_starts_with(&o.stderr, "Use of --write-sector is VERY DANGEROUS.");
}

#[test]
fn only_an_n_that_shrinks_the_drive_counts_as_destructive() {
    let grow = run_on(
        in_use(sata()),
        "--yes-i-know-what-i-am-doing -N 3000000000 /dev/x",
    );
    assert!(!grow.stderr.contains("refusing"), "{}", grow.stderr);
    let shrink = run_on(
        in_use(sata()),
        "--yes-i-know-what-i-am-doing -N 1000 /dev/x",
    );
    assert!(
        shrink.stderr.contains("refusing -N: /dev/x1 is mounted"),
        "{}",
        shrink.stderr
    );
}

#[test]
fn settings_and_reports_do_not_look_at_the_use() {
    let o = run_on(in_use(sata()), "-W1 -C /dev/x");
    assert_eq!(o.exit, 0, "{}", o.stderr);
    assert!(!o.stderr.contains("refusing"));
}

// ---- issue 18: each device taken when its turn comes (`device::lock`) ----

fn locked_by_another_run(mut fake: FakeDevice) -> FakeDevice {
    fake.locked_by = Some(crate::device::lock::Denied::Locked {
        holder: "hdparm, pid 812, exclusive".into(),
        exclusive: true,
    });
    fake
}

#[test]
fn a_drive_another_run_holds_is_refused_at_its_turn_and_the_next_still_runs() {
    let (o, sent) = super::stop::run(
        vec![sata(), locked_by_another_run(sata()), sata()],
        "--yes-i-know-what-i-am-doing --make-bad-sector 8",
    );
    assert_eq!(o.exit, 16, "{}", o.stderr);
    assert_contains(&o.stderr, "/dev/y: refusing --make-bad-sector: the disk is locked by hdparm, pid 812, exclusive: another run is erasing, writing or testing it");
    assert!(!sent[0].is_empty() && !sent[2].is_empty(), "{sent:02x?}");
    assert!(sent[1].is_empty(), "{sent:02x?}");
}

#[test]
fn a_drive_mounted_after_the_start_is_refused_when_its_turn_comes() {
    let mut second = sata();
    second.locked_by = Some(crate::device::lock::Denied::InUse(
        "/dev/y1 is mounted on /mnt".into(),
    ));
    let (o, sent) = super::stop::run(
        vec![sata(), second],
        "--yes-i-know-what-i-am-doing --make-bad-sector 8",
    );
    assert_eq!(o.exit, 16);
    assert_contains(
        &o.stderr,
        "/dev/y: refusing --make-bad-sector: /dev/y1 is mounted on /mnt.",
    );
    assert!(sent[1].is_empty(), "{sent:02x?}");
}

#[test]
fn a_reader_skips_a_drive_another_run_holds_and_says_so() {
    let o = run_on(locked_by_another_run(sata()), "-I /dev/x");
    assert_eq!(o.exit, 3, "skipped");
    assert!(o.calls.is_empty(), "{:?}", o.calls);
    assert_starts_with(
        &o.stderr,
        "/dev/x: skipped: the disk is locked by hdparm, pid 812, exclusive",
    );
}
