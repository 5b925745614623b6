//! The Debian package (`scripts/build-deb`, issue 19 section 1): its contents, the package on
//! a real Debian 12 system, and lintian's verdict.
//!
//! `the_package_installs_runs_and_purges_cleanly` looks at the file and installs it into an
//! empty dpkg root: it holds what it must (the binary as /sbin/hdparm, the path Debian's
//! hdparm ships; both man pages, the three completions, the udev rule, the unit, the sleep
//! hook, the docs and examples, Debian's own /etc/hdparm.conf as the conffile), replaces
//! Debian's hdparm, names a maintainer who can be written to and has a version that grows with
//! each commit; `hdparm -V`, `--help` and `--apply --dry-run` run from the root; purged, it
//! leaves no file but dpkg's database behind. That root is no Debian system: dpkg installs with
//! `--force-depends` (no libc6 package in it; the binary runs on the host's) and runs the
//! maintainer scripts outside the root with `DPKG_ROOT` set, which our scripts and
//! deb-systemd-helper honour.
//!
//! `the_package_installs_upgrades_and_removes_cleanly_in_debian_12` builds the package twice
//! (the version `scripts/build-deb` computes, and one just below it as the previous build) and
//! runs tests/package/run.sh: in a Debian 12 root from Debian's registry (mmdebstrap, cached as
//! a tarball), a fresh install and purge; Debian's hdparm with an edited /etc/hdparm.conf, ours
//! over it, the boot unit disabled and an upgrade, removal, Debian's hdparm back, and purge.
//! After each step the script checks dpkg --audit, /sbin/hdparm and who owns it, that every
//! hook names a program that exists, the conffile's bytes and the unit's state, and after each
//! purge that the root holds the paths it held before.
//!
//! `lintian_finds_no_error_or_warning` runs lintian on the package: no error, no warning.
//!
//! All need root (dpkg with the package's owners, chroot) and say so, as they do for a missing
//! tool; under HDPARM_RS_REQUIRE_ALL=1 that is a failure.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// The md5sum dpkg records for /etc/hdparm.conf of Debian 12's hdparm 9.65+ds-1
/// (`dpkg -s hdparm`), which packaging/debian/hdparm.conf must keep.
const DEBIAN_CONF_MD5: &str = "fe09abd1838cf3e012353933c5aa0dda";

fn run(program: &str, args: &[&str]) -> (bool, String) {
    match Command::new(program).args(args).output() {
        Ok(out) => (
            out.status.success(),
            format!(
                "{}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            ),
        ),
        Err(e) => (false, format!("{program}: {e}")),
    }
}

fn have(program: &str) -> bool {
    Command::new("sh")
        .args(["-c", &format!("command -v {program}")])
        .output()
        .is_ok_and(|o| o.status.success())
}

/// The binary the package is built from: the shipped build when scripts/test-all hands it
/// over (`HDPARM_RS_SHIPPED_BIN`, from scripts/build-release: a static PIE on glibc), else the
/// test's own.
fn packaged_binary() -> PathBuf {
    std::env::var_os("HDPARM_RS_SHIPPED_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(common::our_hdparm)
}

/// Whether `binary` is linked statically (no shared library in its dynamic section).
fn is_static(binary: &Path) -> bool {
    let dynamic = Command::new("readelf")
        .arg("-d")
        .arg(binary)
        .output()
        .expect("run readelf");
    !String::from_utf8_lossy(&dynamic.stdout).contains("(NEEDED)")
}

/// Builds the package from [`packaged_binary`] into `out`, with `version` if given.
fn build(out: &Path, version: Option<&str>) -> PathBuf {
    let mut cmd = Command::new(concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/build-deb"));
    cmd.args(["--bin", &packaged_binary().display().to_string()])
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
    let (ok, out) = run("dpkg-deb", &["-f", &deb.display().to_string(), "Version"]);
    assert!(ok, "{out}");
    out.trim().to_string()
}

/// What `dpkg-deb OPTION DEB` prints (the control file, the contents), asserted to hold every
/// one of `items`.
fn dpkg_deb_holding(option: &str, deb: &str, items: &[&str]) -> String {
    let (ok, text) = run("dpkg-deb", &[option, deb]);
    assert!(ok, "{text}");
    let missing: Vec<&&str> = items.iter().filter(|i| !text.contains(**i)).collect();
    assert!(
        missing.is_empty(),
        "dpkg-deb {option} lacks {missing:?}:\n{text}"
    );
    text
}

/// What scripts/build-deb runs.
const BUILD_TOOLS: [&str; 4] = ["dpkg-deb", "dpkg-shlibdeps", "readelf", "strip"];

/// Whether the test can run here; if not, it has said why (or failed, under REQUIRE_ALL).
fn can_run(test: &str, tools: &[&str]) -> bool {
    if !common::is_root() {
        common::skip(test, "needs root (dpkg with the package's owners, chroot)");
        return false;
    }
    for tool in BUILD_TOOLS.iter().chain(tools) {
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

#[test]
fn the_package_installs_runs_and_purges_cleanly() {
    let test = "the_package_installs_runs_and_purges_cleanly";
    if !can_run(test, &[]) {
        return;
    }
    let dir = common::scratch("deb");
    let deb = build(&dir.join("out"), None);
    let deb_text = deb.display().to_string();

    let info = dpkg_deb_holding(
        "-f",
        &deb_text,
        &[
            "Package: hdparm-rs",
            "Provides: hdparm",
            "Conflicts: hdparm",
            "Replaces: hdparm",
        ],
    );
    let field = |name: &str| {
        info.lines()
            .find_map(|l| l.strip_prefix(&format!("{name}: ")))
            .unwrap_or("")
            .to_string()
    };
    let maintainer = field("Maintainer");
    assert!(
        maintainer.contains('@') && !maintainer.contains("@localhost"),
        "the maintainer cannot be written to: {maintainer}"
    );
    if is_static(&packaged_binary()) {
        // Nothing to depend on; the glibc inside is named for the archive's rebuilds.
        assert_eq!(
            field("Depends"),
            "",
            "a static binary depends on nothing: {info}"
        );
        assert!(
            field("Built-Using").starts_with("glibc (= "),
            "a static binary names the glibc it holds: {info}"
        );
    } else {
        assert!(
            field("Depends").contains("libc6 (>="),
            "Depends comes from dpkg-shlibdeps: {info}"
        );
    }
    // UPSTREAM+gitDATE.TIME.HASH-1 in git (each commit's package upgrades the one before),
    // UPSTREAM-1 outside.
    let version = field("Version");
    let upstream = version
        .strip_suffix("-1")
        .unwrap_or_else(|| panic!("{version}"));
    let stamp = upstream.split_once("+git").map(|(_, s)| s);
    if let Some(stamp) = stamp {
        let parts: Vec<&str> = stamp.split('.').collect();
        assert!(
            parts.len() == 3
                && parts[0].len() == 8
                && parts[1].len() == 6
                && parts[..2]
                    .iter()
                    .all(|p| p.bytes().all(|b| b.is_ascii_digit())),
            "version {version} is not UPSTREAM+gitYYYYMMDD.HHMMSS.HASH-1"
        );
    }
    dpkg_deb_holding(
        "-c",
        &deb_text,
        &[
            "./sbin/hdparm",
            "./usr/share/man/man8/hdparm.8.gz",
            "./usr/share/man/man5/hdparm.conf.5.gz",
            "./usr/share/bash-completion/completions/hdparm",
            "./usr/share/zsh/vendor-completions/_hdparm",
            "./usr/share/fish/vendor_completions.d/hdparm.fish",
            "./lib/udev/rules.d/85-hdparm-rs.rules",
            "./lib/systemd/system/hdparm-rs-apply.service",
            "./lib/systemd/system/hdparm-rs-metrics.service",
            "./lib/systemd/system/hdparm-rs-metrics.timer",
            "./lib/systemd/system-sleep/hdparm-rs",
            "./etc/hdparm.conf",
            "./usr/share/doc/hdparm-rs/copyright",
            "./usr/share/doc/hdparm-rs/changelog.Debian.gz",
            "./usr/share/doc/hdparm-rs/DIFFERENCES.md.gz",
            "./usr/share/doc/hdparm-rs/hdparm-rs.schema.json",
            "./usr/share/doc/hdparm-rs/examples/hdparm.conf",
            "./usr/share/lintian/overrides/hdparm-rs",
        ],
    );

    // An empty dpkg root.
    let root = dir.join("root");
    for sub in [
        "var/lib/dpkg/info",
        "var/lib/dpkg/updates",
        "var/lib/dpkg/triggers",
    ] {
        std::fs::create_dir_all(root.join(sub)).expect("root");
    }
    std::fs::write(root.join("var/lib/dpkg/status"), "").expect("status");
    let root_text = root.display().to_string();
    let dpkg = |args: &[&str]| {
        let mut all = vec![
            "--root",
            &root_text,
            "--force-depends",
            "--force-script-chrootless",
            "--force-not-root",
        ];
        all.extend_from_slice(args);
        run("dpkg", &all)
    };
    let (ok, log) = dpkg(&["-i", &deb_text]);
    assert!(ok, "dpkg -i failed:\n{log}");
    let (_, listed) = dpkg(&["-L", "hdparm-rs"]);
    assert!(listed.contains("/etc/hdparm.conf"), "{listed}");
    let (_, status) = dpkg(&["-s", "hdparm-rs"]);
    // Debian 12's hdparm 9.65+ds-1 ships this /etc/hdparm.conf: the same bytes let dpkg hand
    // an edited file from one package to the other without a question.
    assert!(
        status.contains(&format!(
            "Conffiles:\n /etc/hdparm.conf {DEBIAN_CONF_MD5}\n"
        )),
        "{status}"
    );
    let listed_unit = root.join("lib/systemd/system/hdparm-rs-apply.service");
    assert!(listed_unit.exists(), "{listed}");
    // Enabled on the first installation (deb-systemd-helper, into DPKG_ROOT).
    let wants = root.join("etc/systemd/system/multi-user.target.wants/hdparm-rs-apply.service");
    assert!(wants.is_symlink(), "the boot unit is not enabled:\n{log}");

    let installed = root.join("sbin/hdparm").display().to_string();
    let (ok, version) = run(&installed, &["-V"]);
    assert!(ok && version.starts_with("hdparm v"), "{version}");
    let (ok, help) = run(&installed, &["--help"]);
    assert!(ok && help.contains("--apply"), "{help}");
    let conf = root.join("etc/hdparm.conf").display().to_string();
    let (ok, plan) = run(
        &installed,
        &[
            "--apply",
            "--config",
            &conf,
            "--dry-run",
            "/dev/hdparm-rs-no-such-disk",
        ],
    );
    // The installed file is read (a bad one would exit 22); the device named is not there,
    // which is an error of its own (exit 2), not "nothing to apply".
    assert!(!ok, "{plan}");
    assert_eq!(
        plan,
        "/dev/hdparm-rs-no-such-disk: No such file or directory; nothing planned\n"
    );

    let (ok, log) = dpkg(&["--purge", "hdparm-rs"]);
    assert!(ok, "dpkg --purge failed:\n{log}");
    let mut left = Vec::new();
    collect(&root, &root.join("var/lib/dpkg"), &mut left);
    assert!(left.is_empty(), "left behind after purge: {left:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every file or link below `dir` that is not in dpkg's database `keep`. Directories are
/// walked, not listed: deb-systemd-helper leaves the ones it made (a Debian system has them:
/// /etc/systemd/system/multi-user.target.wants, /var/lib/systemd/deb-systemd-helper-enabled).
fn collect(dir: &Path, keep: &Path, left: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.starts_with(keep) {
            continue;
        }
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            collect(&path, keep, left);
        } else {
            left.push(path);
        }
    }
}

#[test]
fn the_package_installs_upgrades_and_removes_cleanly_in_debian_12() {
    let test = "the_package_installs_upgrades_and_removes_cleanly_in_debian_12";
    if !can_run(test, &["mmdebstrap", "chroot"]) {
        return;
    }
    let dir = common::scratch("package-root");
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
    if !can_run(test, &["lintian"]) {
        return;
    }
    let dir = common::scratch("lintian");
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
