//! Helpers shared by the integration tests: finding the reference hdparm, and the rule that a
//! test which cannot run says why, and fails instead when `HDPARM_RS_REQUIRE_ALL=1` (CI).
#![allow(dead_code)]

use std::path::PathBuf;

/// True when every component must be present (CI): a missing one is a failure, not a skip.
pub fn require_all() -> bool {
    std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1")
}

/// Reports that a test cannot run. Returns normally (the caller returns) unless CI requires
/// everything, in which case it panics with the reason.
pub fn skip(test: &str, reason: &str) {
    if require_all() {
        panic!(
            "{test}: cannot run: {reason} (HDPARM_RS_REQUIRE_ALL=1 turns this skip into a failure)"
        );
    }
    eprintln!("SKIPPED {test}: {reason}");
}

/// The reference hdparm 9.65 (Debian's package), if installed.
pub fn reference_hdparm() -> Option<PathBuf> {
    ["/usr/sbin/hdparm", "/sbin/hdparm"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())
}

/// Our binary, as built by cargo for this test run.
pub fn our_hdparm() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hdparm"))
}

/// True when running as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// The keys of DIFFERENCES.md rows (first column), for differential tests.
pub fn listed_differences() -> Vec<String> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/DIFFERENCES.md");
    let text = std::fs::read_to_string(path).unwrap_or_default();
    text.lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| key"))
        .filter_map(|l| l.split('|').nth(1).map(|k| k.trim().to_string()))
        .collect()
}
