//! Fuzz target: arbitrary argument vectors through the command-line grammar.
//! The input is split on NUL bytes into argv words. Parsing must never panic, and every device
//! of a parsed invocation must be one of the words given (`hdparm --` alone has none).

#![no_main]

use hdparm::cli::{parse, Invocation};
use libfuzzer_sys::fuzz_target;
use std::ffi::OsString;
use std::os::unix::ffi::OsStringExt;

fuzz_target!(|data: &[u8]| {
    let mut args = vec![OsString::from("hdparm")];
    args.extend(data.split(|&b| b == 0).map(|w| OsString::from_vec(w.to_vec())));
    let parsed = parse(&args);
    if let Ok(Invocation::Devices(runs)) = parsed.result {
        for run in &runs {
            assert!(args[1..].contains(&run.path));
        }
    }
});
