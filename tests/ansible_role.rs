//! The Ansible role in contrib/ansible, run by `ansible-playbook --connection=local` (Debian's
//! ansible-core) against a loop device, never against this machine's disks: the first run
//! installs the file and the local fact and applies the file (the read-ahead changes), the
//! second changes nothing, a drift made behind the role's back is put right by the third, an
//! edit to the file applies it though `--check` finds nothing to read back (a `spindown_time`,
//! which no drive reports), and a file with an error is refused by `validate:` before it
//! replaces the one installed. The local fact prints this host's drives, state, drift and
//! advice as JSON, and contrib/ansible/fleet-report.yml turns the facts into one report. The
//! mode `validate:` runs opens no device (strace).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// Runs a playbook against localhost; whether it succeeded, the number after `changed=` in
/// its recap, and its output.
fn play(playbook: &Path, extra: &[String]) -> (bool, u32, String) {
    let roles = concat!(env!("CARGO_MANIFEST_DIR"), "/contrib/ansible/roles");
    let out = Command::new("ansible-playbook")
        .args(["-i", "localhost,", "--connection=local"])
        .args(extra.iter().flat_map(|e| ["-e", e.as_str()]))
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
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let changed = text
        .lines()
        .find(|l| l.starts_with("localhost") && l.contains("changed="))
        .and_then(|l| l.split("changed=").nth(1))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(u32::MAX);
    (out.status.success(), changed, text)
}

/// A loop device for a test that needs ansible-playbook (or strace), root and losetup (None:
/// the test says which is missing).
fn loop_for(test: &str, tool: &str, package: &str) -> Option<common::Loop> {
    if Command::new(tool).arg("--version").output().is_err() {
        common::skip(
            test,
            &format!("{tool} is missing: apt-get install {package}"),
        );
        return None;
    }
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return None;
    }
    let lo = common::Loop::new(&test[..test.len().min(24)], 16);
    if lo.is_none() {
        common::skip(test, "losetup could not attach a loop device");
    }
    lo
}

/// The test's files: the playbook that runs the role with `conf` as hdparm.conf's text, the
/// installed file, the records, the local facts.
struct Site {
    dir: PathBuf,
    playbook: PathBuf,
    conf: PathBuf,
    records: PathBuf,
    facts: PathBuf,
    dev: String,
}

impl Site {
    fn new(tag: &str, dev: &str) -> Site {
        let dir =
            std::env::temp_dir().join(format!("hdparm-rs-ansible-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        Site {
            playbook: dir.join("play.yml"),
            conf: dir.join("hdparm.conf"),
            records: dir.join("records"),
            facts: dir.join("facts.d"),
            dev: dev.to_string(),
            dir,
        }
    }

    /// Writes the playbook for this hdparm.conf text (its lines, indented under the role's var).
    fn with_conf(&self, conf: &str) -> &Path {
        let indented: String = conf.lines().map(|l| format!("          {l}\n")).collect();
        std::fs::write(
            &self.playbook,
            format!(
                "- hosts: localhost\n  gather_facts: false\n  environment:\n    HDPARM_RS_RECORD_DIR: {records}\n  roles:\n    - role: hdparm\n      vars:\n        hdparm_binary: {bin}\n        hdparm_config_path: {conf}\n        hdparm_devices: [\"{dev}\"]\n        hdparm_fact_path: {facts}\n        hdparm_config: |\n{indented}",
                records = self.records.display(),
                bin = common::our_hdparm().display(),
                conf = self.conf.display(),
                dev = self.dev,
                facts = self.facts.display(),
            ),
        )
        .expect("playbook");
        &self.playbook
    }

    /// The record --apply wrote for the device: when it was written.
    fn record_time(&self) -> Option<std::time::SystemTime> {
        let name = self.dev.rsplit('/').next().unwrap_or_default();
        std::fs::metadata(self.records.join(format!("{name}.json")))
            .and_then(|m| m.modified())
            .ok()
    }

    /// What the installed local fact prints.
    fn fact(&self) -> serde_json::Value {
        let out = Command::new(self.facts.join("hdparm.fact"))
            .env("HDPARM_RS_RECORD_DIR", &self.records)
            .output()
            .expect("run the fact");
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
            panic!(
                "the fact is not JSON ({e}): {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            )
        })
    }
}

impl Drop for Site {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

fn conf_text(dev: &str, readahead: u32, spindown: u32) -> String {
    format!(
        "quiet\n# the scratch disk\n{dev} {{\n    read_ahead_sect = {readahead}\n    spindown_time = {spindown}\n}}\n"
    )
}

#[test]
fn the_role_applies_on_change_and_drift_and_then_changes_nothing() {
    let Some(lo) = loop_for(
        "the_role_applies_on_change_and_drift_and_then_changes_nothing",
        "ansible-playbook",
        "ansible-core",
    ) else {
        return;
    };
    let site = Site::new("role", &lo.dev);

    let (ok, changed, log) = play(site.with_conf(&conf_text(&lo.dev, 72, 120)), &[]);
    assert!(ok, "{log}");
    assert_eq!(
        changed, 4,
        "the file, the facts directory, the fact and the apply:\n{log}"
    );
    assert_eq!(lo.readahead(), "72");
    let fact = site.facts.join("hdparm.fact");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&fact)
        .expect("the fact")
        .permissions()
        .mode();
    assert_eq!(mode & 0o111, 0o111, "the fact is executable: {mode:o}");

    let (ok, changed, log) = play(&site.playbook, &[]);
    assert!(ok, "{log}");
    assert_eq!(changed, 0, "a second run changes nothing:\n{log}");

    common::blockdev(&["--setra", "256", &lo.dev]);
    let (ok, changed, log) = play(&site.playbook, &[]);
    assert!(ok, "{log}");
    assert_eq!(changed, 1, "the drift is applied away:\n{log}");
    assert_eq!(lo.readahead(), "72");

    // spindown_time edited: nothing reads it back, so --check alone would never run --apply;
    // the changed file does.
    let before = site.record_time();
    let (ok, changed, log) = play(site.with_conf(&conf_text(&lo.dev, 72, 240)), &[]);
    assert!(ok, "{log}");
    assert_eq!(changed, 2, "the file, and the apply it calls for:\n{log}");
    assert!(
        site.record_time() > before,
        "--apply ran and recorded:\n{log}"
    );
    let (ok, changed, log) = play(&site.playbook, &[]);
    assert!(ok && changed == 0, "{log}");

    // A file with an error never replaces the installed one, and nothing is applied.
    let installed = std::fs::read_to_string(&site.conf).expect("installed");
    let before = site.record_time();
    let broken = format!("{}dma = maybe\n", conf_text(&lo.dev, 64, 240));
    let (ok, _, log) = play(site.with_conf(&broken), &[]);
    assert!(!ok, "{log}");
    assert!(log.contains("Unknown Value for -d: maybe"), "{log}");
    assert_eq!(
        std::fs::read_to_string(&site.conf).expect("installed"),
        installed
    );
    assert_eq!(site.record_time(), before);
    assert_eq!(lo.readahead(), "72");
}

#[test]
fn the_local_fact_and_the_fleet_report_say_what_the_drives_are() {
    let Some(lo) = loop_for(
        "the_local_fact_and_the_fleet_report_say_what_the_drives_are",
        "ansible-playbook",
        "ansible-core",
    ) else {
        return;
    };
    let site = Site::new("fact", &lo.dev);
    let (ok, _, log) = play(site.with_conf(&conf_text(&lo.dev, 80, 120)), &[]);
    assert!(ok, "{log}");

    let fact = site.fact();
    assert_eq!(fact["state"], "in_sync", "{fact}");
    assert_eq!(fact["check_exit_status"], 0);
    let drives = fact["drives"].as_array().expect("drives");
    assert_eq!(drives.len(), 1, "{fact}");
    assert_eq!(drives[0]["name"], lo.dev.as_str());
    assert_eq!(drives[0]["configured"], true);
    assert_eq!(
        drives[0]["power_state"], "unknown",
        "a loop device has no ATA: {fact}"
    );
    assert!(drives[0]["advice"].is_array() && drives[0]["drift"] == serde_json::json!([]));
    // Debian's rules never send -S to a loop device: the fact says so too.
    assert_eq!(drives[0]["dropped"][0]["key"], "spindown_time", "{fact}");

    common::blockdev(&["--setra", "256", &lo.dev]);
    let fact = site.fact();
    assert_eq!(fact["state"], "drift", "{fact}");
    assert_eq!(fact["drives"][0]["drift"][0]["option"], "-a");

    // The fleet report, from the facts gathered as a fleet gathers them.
    let report = site.dir.join("fleet.json");
    let fleet = Path::new(env!("CARGO_MANIFEST_DIR")).join("contrib/ansible/fleet-report.yml");
    let (ok, changed, log) = play(
        &fleet,
        &[
            format!("hdparm_fact_path={}", site.facts.display()),
            format!("hdparm_fleet_report={}", report.display()),
        ],
    );
    assert!(ok, "{log}");
    assert_eq!(changed, 1, "the report only:\n{log}");
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&report).expect("the report")).expect("JSON");
    assert_eq!(doc["summary"]["hosts"], 1, "{doc}");
    assert_eq!(
        doc["summary"]["states"]["drift"],
        serde_json::json!(["localhost"])
    );
    assert_eq!(
        doc["summary"]["drives_differ"],
        serde_json::json!([format!("localhost:{}", lo.dev)])
    );
    assert_eq!(
        doc["hosts"]["localhost"]["drives"][0]["drift"][0]["wanted"],
        80
    );
    assert!(
        log.contains("\"drives_differ\""),
        "the summary is shown:\n{log}"
    );
}

#[test]
fn the_validate_mode_opens_no_device() {
    let Some(lo) = loop_for("the_validate_mode_opens_no_device", "strace", "strace") else {
        return;
    };
    let site = Site::new("validate", &lo.dev);
    std::fs::write(&site.conf, conf_text(&lo.dev, 64, 120)).expect("conf");
    // The role's validate: command, as copy runs it on the new file.
    let tasks = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/ansible/roles/hdparm/tasks/main.yml"
    ))
    .expect("tasks");
    let validate = tasks
        .lines()
        .find_map(|l| l.trim().strip_prefix("validate: "))
        .expect("a validate: line")
        .trim_matches('"')
        .replace("{{ hdparm_binary }}", "")
        .replace("%s", &site.conf.display().to_string());
    let trace = site.dir.join("trace");
    let out = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .arg(&trace)
        .arg(common::our_hdparm())
        .args(validate.split_whitespace())
        .output()
        .expect("strace");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(&format!("{0}: would run: hdparm -q -a64 {0}", lo.dev)),
        "it read the file and planned: {stdout}"
    );
    let trace = std::fs::read_to_string(&trace).expect("trace");
    let opened: Vec<&str> = trace
        .lines()
        .filter(|l| l.contains("\"/dev/") && !l.contains("\"/dev/null\""))
        .collect();
    assert!(opened.is_empty(), "opened under /dev: {opened:?}");
    // And the check sees what a run that opens the device does open.
    let trace_apply = site.dir.join("trace-apply");
    let _ = Command::new("strace")
        .args(["-f", "-qq", "-e", "trace=open,openat,openat2", "-o"])
        .arg(&trace_apply)
        .arg(common::our_hdparm())
        .args(["--check", "--config"])
        .arg(&site.conf)
        .arg(&lo.dev)
        .env("HDPARM_RS_RECORD_DIR", &site.records)
        .output()
        .expect("strace");
    let trace_apply = std::fs::read_to_string(&trace_apply).expect("trace");
    assert!(
        trace_apply.contains(&format!("\"{}\"", lo.dev)),
        "{trace_apply}"
    );
}
