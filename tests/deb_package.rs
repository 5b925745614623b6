//! The Debian package (`scripts/build-deb`), as a file and in an empty dpkg root: it holds what
//! it must (the binary as /sbin/hdparm, the path Debian's hdparm ships; both man pages, the
//! three completions, the udev rule, the unit, the sleep hook, the docs and examples, Debian's
//! own /etc/hdparm.conf as the conffile), replaces Debian's hdparm, names a maintainer who can
//! be written to and has a version that grows with each commit; installed by dpkg into an empty
//! root, `hdparm -V`, `--help` and `--apply --dry-run` run from there; removed and purged, it
//! leaves nothing but dpkg's own database behind.
//!
//! The root is an empty dpkg database, not a Debian system: dpkg installs with
//! `--force-depends` (no libc6 package in it; the binary runs on the host's) and runs the
//! maintainer scripts outside the root with `DPKG_ROOT` set, which our scripts and
//! deb-systemd-helper honour. tests/package.rs runs the package in a real Debian 12 root.

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

fn build(out: &Path) -> PathBuf {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/build-deb");
    let done = Command::new(script)
        .args(["--bin", &common::our_hdparm().display().to_string()])
        .args(["--out", &out.display().to_string()])
        .output()
        .expect("run build-deb");
    assert!(
        done.status.success(),
        "build-deb failed: {}",
        String::from_utf8_lossy(&done.stderr)
    );
    PathBuf::from(String::from_utf8_lossy(&done.stdout).trim())
}

#[test]
fn the_package_installs_runs_and_purges_cleanly() {
    let test = "the_package_installs_runs_and_purges_cleanly";
    if !run("dpkg-deb", &["--version"]).0 {
        common::skip(test, "dpkg-deb is missing (Debian's dpkg)");
        return;
    }
    if !common::is_root() {
        common::skip(test, "needs root for dpkg --root with the package's owners");
        return;
    }
    let dir = std::env::temp_dir().join(format!("hdparm-rs-deb-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let deb = build(&dir.join("out"));
    let deb_text = deb.display().to_string();

    let (ok, info) = run("dpkg-deb", &["-f", &deb_text]);
    assert!(ok, "{info}");
    for field in [
        "Package: hdparm-rs",
        "Provides: hdparm",
        "Conflicts: hdparm",
        "Replaces: hdparm",
    ] {
        assert!(info.contains(field), "control lacks {field}:\n{info}");
    }
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
    assert!(
        field("Depends").contains("libc6 (>="),
        "Depends comes from dpkg-shlibdeps: {info}"
    );
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
    let (ok, contents) = run("dpkg-deb", &["-c", &deb_text]);
    assert!(ok, "{contents}");
    for path in [
        "./sbin/hdparm",
        "./usr/share/man/man8/hdparm.8.gz",
        "./usr/share/man/man5/hdparm.conf.5.gz",
        "./usr/share/bash-completion/completions/hdparm",
        "./usr/share/zsh/vendor-completions/_hdparm",
        "./usr/share/fish/vendor_completions.d/hdparm.fish",
        "./lib/udev/rules.d/85-hdparm-rs.rules",
        "./lib/systemd/system/hdparm-rs-apply.service",
        "./lib/systemd/system-sleep/hdparm-rs",
        "./etc/hdparm.conf",
        "./usr/share/doc/hdparm-rs/copyright",
        "./usr/share/doc/hdparm-rs/changelog.Debian.gz",
        "./usr/share/doc/hdparm-rs/DIFFERENCES.md.gz",
        "./usr/share/doc/hdparm-rs/hdparm-rs.schema.json",
        "./usr/share/doc/hdparm-rs/examples/hdparm.conf",
        "./usr/share/lintian/overrides/hdparm-rs",
    ] {
        assert!(
            contents.contains(path),
            "the package lacks {path}:\n{contents}"
        );
    }

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
    assert!(ok, "{plan}");
    assert_eq!(plan, "/dev/hdparm-rs-no-such-disk: nothing to apply\n");

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
