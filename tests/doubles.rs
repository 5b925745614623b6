//! The test doubles from outside the crate (`cargo test --features doubles --test doubles`):
//! the scripted drive of `hdparm::exec::doubles::fake`, run through the real parser and the per-device
//! function the binary calls, as the library's own step tests run it.

use hdparm::exec::doubles::fake::{aborted, run_on, FakeDevice};

/// IDENTIFY words of a drive with read look-ahead, enabled.
fn words() -> [u16; 256] {
    let mut w = [0u16; 256];
    w[0] = 0x0040;
    w[49] = 1 << 9;
    w[82] = 1 << 6;
    w[83] = 0x4000;
    w[84] = 0x4000;
    w[85] = 1 << 6;
    w[87] = 0x4000;
    w
}

#[test]
fn the_fake_drive_takes_set_features_and_shows_it() {
    let o = run_on(FakeDevice::libata_disk(words()), "-A0 -A /dev/x");
    // DISABLE READ LOOK-AHEAD went out, and the get after it reads the drive's new state.
    assert!(o.ata().contains(&(0xEF, 0x55, 0)), "{:?}", o.ata());
    assert!(
        o.stdout
            .contains(" setting drive read-lookahead to 0 (off)\n"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("look-ahead    =  0 (off)"),
        "{}",
        o.stdout
    );
    assert_eq!(o.exit, 0);
}

#[test]
fn a_scripted_failure_reaches_the_exit_status() {
    let fake = FakeDevice::libata_disk(words()).on_ata(0xEF, Some(0x55), Err(aborted(0xEF)));
    let o = run_on(fake, "-A0 /dev/x");
    assert_ne!(o.exit, 0, "{}", o.stderr);
}
