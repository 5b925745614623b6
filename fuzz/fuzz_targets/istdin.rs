//! Fuzz target: arbitrary text through `--Istdin` (the hex reader, then the `-I` decode), fed
//! to `hdparm::run_streams`, the function the binary calls.
//! Must never panic; either a report is printed (exit 0, or 22 for an unknown device type) or
//! the "read only N/256" message is (exit 22).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let args = ["hdparm", "--Istdin"].map(std::ffi::OsString::from);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let status = hdparm::run_streams(
        &args,
        hdparm::Streams::new(&mut &data[..], &mut out, &mut err),
    );
    assert!(status == 0 || status == 22);
    assert!(out.is_empty() != err.is_empty());
});
