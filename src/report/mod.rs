//! Pure renderers: hdparm's text, byte for byte, and JSON, from the same typed reports.
//! Nothing here touches a device.

pub mod axis;
pub mod dco;
pub mod dry_run;
pub mod envelope;
pub mod experiment;
pub mod filemap;
pub mod hexdump;
pub mod identify;
pub mod json;
pub mod kernel_identity;
pub mod nvme;
pub mod prometheus;
pub mod settings;
pub mod surface;

/// A count and its noun, singular for one: `1 trial`, `3 trials`.
pub fn counted(n: impl Into<u64>, noun: &str) -> String {
    let n = n.into();
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}
