//! The Debian package on a real Debian 12 system (issue 19, section 1), and lintian's verdict.
//!
//! `the_package_installs_upgrades_and_removes_cleanly_in_debian_12` builds the package twice
//! (the version `scripts/build-deb` computes, and one just below it as the previous build) and
//! runs tests/package/run.sh: in a Debian 12 root from Debian's registry (mmdebstrap, cached as
//! a tarball), a fresh install and purge; Debian's hdparm with an edited /etc/hdparm.conf, ours
//! over it, the boot unit disabled and an upgrade, removal, Debian's hdparm back, and purge.
//! After each step the script checks dpkg --audit, /sbin/hdparm and who owns it, that every
//! hook names a program that exists, the conffile's bytes and the unit's state.
//!
//! `lintian_finds_no_error_or_warning` runs lintian on the package: no error, no warning.
//!
//! Both need root (dpkg with the package's owners, chroot) and say so, as they do for a missing
//! mmdebstrap or lintian; under HDPARM_RS_REQUIRE_ALL=1 that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Builds the package from the test's binary into `out`, with `version` if given.
fn build(out: &Path, version: Option<&str>) -> PathBuf {
    let mut cmd = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/build-deb"));
    cmd.args(["--bin", &common::our_hdparm().display().to_string()])
        .args(["--out", &out.display().to_string()]);
    if let Some(v) = version {
        cmd.args(["--version", v]);
    }
    let done = cmd.output().expect("run build-deb");
    assert!(
        done.status.success(),
        "build-deb failed: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&done.stdout).trim())
}

fn version_of(deb: &Path) -> String {
    let out = Command::new("dpkg-deb")
        .arg("-f")
        .arg(deb)
        .arg("Version")
        .output()
        .expect("dpkg-deb -f");
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Whether the test can run here; if not, it has said why (or failed, under REQUIRE_ALL).
fn can_run(test: &str, tools: &[&str]) -> bool {
    if !common::is_root() {
        common::skip(test, "needs root (dpkg with the package's owners, chroot)");
        return false;
    }
    for tool in tools {
        if !have(tool) {
            common::skip(
                test,
                &format!("{tool} is missing (scripts/test-all installs it)"),
            );
            return false;
        }
    }
    true
}

fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

#[test]
fn the_package_installs_upgrades_and_removes_cleanly_in_debian_12() {
    let test = "the_package_installs_upgrades_and_removes_cleanly_in_debian_12";
    if !can_run(
        test,
        &["mmdebstrap", "chroot", "dpkg-deb", "dpkg-shlibdeps"],
    ) {
        return;
    }
    let dir = scratch("package-root");
    let current = build(&dir.join("current"), None);
    // The build before this one: the same version with "~prev" in it sorts just below.
    let version = version_of(&current);
    let (upstream, revision) = version.rsplit_once('-').expect("a Debian revision");
    let previous = build(
        &dir.join("previous"),
        Some(&format!("{upstream}~prev-{revision}")),
    );
    let done = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/package/run.sh"))
        .arg("--previous")
        .arg(&previous)
        .arg("--current")
        .arg(&current)
        .output()
        .expect("run tests/package/run.sh");
    let log = format!(
        "{}{}",
        String::from_utf8_lossy(&done.stdout),
        String::from_utf8_lossy(&done.stderr)
    );
    eprintln!("{log}");
    if done.status.code() == Some(77) {
        common::skip(
            test,
            "tests/package/run.sh cannot build the Debian 12 root (mmdebstrap from Debian's registry)",
        );
        return;
    }
    assert!(done.status.success(), "tests/package/run.sh failed:\n{log}");
    assert!(log.contains("== all steps passed"), "{log}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn lintian_finds_no_error_or_warning() {
    let test = "lintian_finds_no_error_or_warning";
    if !can_run(test, &["lintian", "dpkg-deb", "dpkg-shlibdeps"]) {
        return;
    }
    let dir = scratch("lintian");
    let deb = build(&dir, None);
    // -I -E --pedantic: every tag lintian has, so that the report shows them all; only E: and
    // W: fail. The informational ones we mean are overridden with their reasons
    // (packaging/debian/lintian-overrides).
    let out = Command::new("lintian")
        .args(["-I", "-E", "--pedantic", "--show-overrides"])
        .arg(&deb)
        .output()
        .expect("run lintian");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    eprintln!("{text}");
    let bad: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("E: ") || l.starts_with("W: "))
        .collect();
    assert!(bad.is_empty(), "lintian:\n{}", bad.join("\n"));
    // lintian exits 2 when it could not check the package at all.
    assert_ne!(out.status.code(), Some(2), "lintian failed: {text}");
    let _ = std::fs::remove_dir_all(&dir);
}
