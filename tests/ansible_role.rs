//! The Ansible role in contrib/ansible, run by `ansible-playbook --connection=local` (Debian's
//! ansible-core) against a loop device: the first run installs the file and applies it (the
//! read-ahead changes), the second run changes nothing, and a drift made behind the role's back
//! is put right by the third.

mod common;

use std::process::Command;

/// Runs the play; the number after `changed=` in its recap.
fn play(playbook: &std::path::Path, roles: &str) -> (bool, u32, String) {
    let out = Command::new("ansible-playbook")
        .args(["-i", "localhost,", "--connection=local"])
        .arg(playbook)
        .env("ANSIBLE_ROLES_PATH", roles)
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "0")
        .env(
            "ANSIBLE_LOCAL_TEMP",
            std::env::temp_dir().join("hdparm-rs-ansible-tmp"),
        )
        .output()
        .expect("run ansible-playbook");
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let changed = text
        .lines()
        .find(|l| l.starts_with("localhost") && l.contains("changed="))
        .and_then(|l| l.split("changed=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX);
    (out.status.success(), changed, text)
}

#[test]
fn the_role_applies_once_and_then_changes_nothing() {
    let test = "the_role_applies_once_and_then_changes_nothing";
    if Command::new("ansible-playbook")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip(
            test,
            "ansible-playbook is missing: apt-get install ansible-core",
        );
        return;
    }
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("ansible", 16) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let dir = std::env::temp_dir().join(format!("hdparm-rs-ansible-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let conf = dir.join("hdparm.conf");
    let playbook = dir.join("play.yml");
    std::fs::write(
        &playbook,
        format!(
            "- hosts: localhost\n  gather_facts: false\n  roles:\n    - role: hdparm\n      vars:\n        hdparm_binary: {bin}\n        hdparm_config_path: {conf}\n        hdparm_devices: [\"{dev}\"]\n        hdparm_config: |\n          quiet\n          {dev} {{\n              read_ahead_sect = 72\n          }}\n",
            bin = common::our_hdparm().display(),
            conf = conf.display(),
            dev = lo.dev
        ),
    )
    .expect("playbook");
    let roles = concat!(env!("CARGO_MANIFEST_DIR"), "/contrib/ansible/roles");

    let (ok, changed, log) = play(&playbook, roles);
    assert!(ok, "{log}");
    assert_eq!(changed, 2, "the file and the apply:\n{log}");
    assert_eq!(lo.readahead(), "72");

    let (ok, changed, log) = play(&playbook, roles);
    assert!(ok, "{log}");
    assert_eq!(changed, 0, "a second run changes nothing:\n{log}");

    common::blockdev(&["--setra", "256", &lo.dev]);
    let (ok, changed, log) = play(&playbook, roles);
    assert!(ok, "{log}");
    assert_eq!(changed, 1, "the drift is applied away:\n{log}");
    assert_eq!(lo.readahead(), "72");
    let _ = std::fs::remove_dir_all(&dir);
}
