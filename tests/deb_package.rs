//! The Debian package (`scripts/build-deb`): it holds what it must (the binary as
//! /usr/sbin/hdparm, the man page, the three completions, the udev rule, the unit and the
//! sleep hook, /etc/hdparm.conf as a conffile) and replaces Debian's hdparm; installed by dpkg
//! into an empty root, `hdparm -V`, `--help` and `--apply --dry-run` run from there; removed and
//! purged, it leaves nothing but dpkg's own database behind.
//!
//! The root is an empty dpkg database, not a debootstrapped system (which needs a mirror and
//! minutes): dpkg installs with `--force-depends` (no libc6 package in it; the binary runs on
//! the host's) and runs the maintainer scripts outside the root with `DPKG_ROOT` set, which
//! our scripts honour by leaving the running system alone.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

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
    let (ok, contents) = run("dpkg-deb", &["-c", &deb_text]);
    assert!(ok, "{contents}");
    for path in [
        "./usr/sbin/hdparm",
        "./usr/share/man/man8/hdparm.8.gz",
        "./usr/share/bash-completion/completions/hdparm",
        "./usr/share/zsh/vendor-completions/_hdparm",
        "./usr/share/fish/vendor_completions.d/hdparm.fish",
        "./usr/lib/udev/rules.d/85-hdparm-rs.rules",
        "./usr/lib/systemd/system/hdparm-rs-apply.service",
        "./usr/lib/systemd/system-sleep/hdparm-rs",
        "./etc/hdparm.conf",
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
    assert!(status.contains("Conffiles:\n /etc/hdparm.conf"), "{status}");

    let installed = root.join("usr/sbin/hdparm").display().to_string();
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

/// Every path below `dir` that is not dpkg's database (or a directory on the way to it).
fn collect(dir: &Path, keep: &Path, left: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.starts_with(keep) {
            continue;
        }
        if keep.starts_with(&path) {
            collect(&path, keep, left);
        } else {
            left.push(path);
        }
    }
}
