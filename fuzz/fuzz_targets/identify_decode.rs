//! Fuzz target: any 512 bytes of IDENTIFY data (plus, from the bytes after them, what a live
//! device could add) through the `-I` decode, its text and JSON, and the `-i` layout.
//! Must never panic; the text must start with hdparm's blank line.

#![no_main]

use hdparm::ata::identify::{sata_settings_devslp, sector_config_sizes, Identify};
use hdparm::report::identify::{identify_report, render_report, IdentifyContext};
use hdparm::report::identify_json::{identify_value, kernel_identity_value};
use hdparm::report::kernel_identity::{kernel_identity_report, render_kernel_identity};
use libfuzzer_sys::fuzz_target;

fn page(data: &[u8]) -> Option<[u8; 512]> {
    let mut p = [0u8; 512];
    let n = data.len().min(512);
    p[..n].copy_from_slice(&data[..n]);
    (!data.is_empty()).then_some(p)
}

fuzz_target!(|data: &[u8]| {
    let mut bytes = [0u8; 512];
    let n = data.len().min(512);
    bytes[..n].copy_from_slice(&data[..n]);
    let rest = data.get(512..).unwrap_or(&[]);
    let (log2f, log30) = rest.split_at(rest.len() / 2);
    let ctx = IdentifyContext {
        live: !rest.is_empty(),
        sector_config_sizes: page(log2f).map(|p| sector_config_sizes(&p)),
        devslp: page(log30).and_then(|p| sata_settings_devslp(&p)),
    };
    let report = identify_report(&Identify::from_le_bytes(&bytes), &ctx);
    let mut out = Vec::new();
    if render_report(&report, &mut out).is_ok() {
        assert!(out.starts_with(b"\n"));
    }
    let _ = identify_value(&report);
    let k = kernel_identity_report(&bytes, data.first().map(|&b| u16::from(b)));
    let mut out = Vec::new();
    let _ = render_kernel_identity(&k, &mut out);
    let _ = kernel_identity_value(&k);
});
