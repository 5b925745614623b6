//! Fuzz target: arbitrary text through `--Istdin` (the hex reader, then the `-I` decode).
//! Must never panic; either a report is printed or the "read only N/256" message is.

#![no_main]

use hdparm::report::identify::run_istdin;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut out = Vec::new();
    let mut err = Vec::new();
    let status = run_istdin(data, &mut out, &mut err);
    assert!(status == 0 || status == 22);
    assert!(out.is_empty() != err.is_empty());
});
