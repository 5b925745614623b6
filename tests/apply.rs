//! `--apply`, `--check` and `--dry-run` end to end on loop devices (root): hdparm.conf's
//! block-level settings (`read_ahead_sect`, `read_only`) are applied to the devices it names,
//! read back with `blockdev` (not with our own get), recorded, and checked for drift; a setting
//! a device rejects is reported and recorded while the other devices still get theirs.

mod common;

use std::path::Path;
use std::process::Command;

use common::{blockdev, scratch, Loop};

struct Done {
    stdout: String,
    stderr: String,
    status: Option<i32>,
}

fn ours(args: &[&str], records: &Path) -> Done {
    let out = Command::new(common::our_hdparm())
        .args(args)
        .env("HDPARM_RS_RECORD_DIR", records)
        .env_remove("ACTION")
        .output()
        .expect("run hdparm");
    Done {
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        status: out.status.code(),
    }
}

fn loops(test: &str, count: usize) -> Option<Vec<Loop>> {
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return None;
    }
    let devices: Vec<Loop> = (0..count)
        .filter_map(|n| Loop::new(&format!("apply-{test}-{n}"), 16))
        .collect();
    if devices.len() < count {
        common::skip(test, "losetup could not attach loop devices");
        return None;
    }
    Some(devices)
}

/// The record `--apply` wrote for a device.
fn record_of(records: &Path, dev: &str) -> serde_json::Value {
    let name = Path::new(dev)
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let bytes = std::fs::read(records.join(format!("{name}.json"))).expect("record");
    serde_json::from_slice(&bytes).expect("the record is JSON")
}

/// Writes `dir/hdparm.conf`; its path as the command line takes it.
fn write_conf(dir: &Path, text: String) -> String {
    let conf = dir.join("hdparm.conf");
    std::fs::write(&conf, text).expect("conf");
    conf.display().to_string()
}

#[test]
fn apply_sets_records_and_check_sees_drift() {
    let test = "apply_sets_records_and_check_sees_drift";
    let Some(devices) = loops(test, 1) else {
        return;
    };
    let lo = &devices[0];
    let dir = scratch(test);
    let conf = write_conf(
        &dir,
        format!(
            "# a comment\nquiet\n{} {{\n\tread_ahead_sect = 64\n\tread_only = on\n}}\n",
            lo.dev
        ),
    );
    let records = dir.join("records");

    // --dry-run: the plan, and nothing changes.
    let dry = ours(
        &["--apply", "--config", &conf, "--dry-run", &lo.dev],
        &records,
    );
    assert_eq!(dry.status, Some(0), "{}", dry.stderr);
    assert_eq!(
        dry.stdout,
        format!("{0}: would run: hdparm -q -a64 -r1 {0}\n", lo.dev)
    );
    assert_eq!(
        (lo.readahead().as_str(), lo.readonly().as_str()),
        ("256", "0")
    );

    // --check before: both settings drift, exit 4, nothing changes.
    let check = ours(&["--check", "--config", &conf, &lo.dev], &records);
    assert_eq!(check.status, Some(4), "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.contains("-a is 256, hdparm.conf asks for 64"),
        "{}",
        check.stdout
    );
    assert!(
        check.stdout.contains("-r is 0, hdparm.conf asks for 1"),
        "{}",
        check.stdout
    );
    assert_eq!(lo.readahead(), "256");

    // --apply with no device: the configured device present gets its settings.
    let applied = ours(&["--apply", "--config", &conf], &records);
    assert_eq!(
        applied.status,
        Some(0),
        "{}{}",
        applied.stdout,
        applied.stderr
    );
    assert!(applied
        .stdout
        .contains(&format!("{0}: hdparm -q -a64 -r1 {0}: ok", lo.dev)));
    assert_eq!(
        (lo.readahead().as_str(), lo.readonly().as_str()),
        ("64", "1")
    );

    // The record says what was asked, run and read back.
    let record = record_of(&records, &lo.dev);
    assert_eq!(record["name"], lo.dev.as_str());
    assert_eq!(record["event"], "manual");
    assert_eq!(record["plan"][0][1], "-a64");
    assert_eq!(record["runs"][0]["exit_status"], 0);
    assert_eq!(record["readback"][0]["found"], 64);
    assert_eq!(record["drift"].as_array().map(Vec::len), Some(0));

    // --check after: no drift, exit 0; then a change behind its back is drift again.
    let check = ours(&["--check", "--config", &conf, &lo.dev], &records);
    assert_eq!((check.status, check.stdout.as_str()), (Some(0), ""));
    blockdev(&["--setra", "128", &lo.dev]);
    let check = ours(&["--json", "--check", "--config", &conf, &lo.dev], &records);
    assert_eq!(check.status, Some(4));
    let doc: serde_json::Value = serde_json::from_str(&check.stdout).expect("JSON");
    assert_eq!(doc["mode"], "check");
    assert_eq!(doc["devices"][0]["drift"][0]["option"], "-a");
    assert_eq!(doc["devices"][0]["drift"][0]["found"], 128);
    assert_eq!(doc["hdparm_rs"]["exit_status"], 4);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_rejected_setting_is_recorded_and_the_other_devices_still_apply() {
    let test = "a_rejected_setting_is_recorded";
    let Some(devices) = loops(test, 2) else {
        return;
    };
    let (first, second) = (&devices[0], &devices[1]);
    let dir = scratch(test);
    // A loop device has no write cache to switch: -W fails there.
    let conf = write_conf(
        &dir,
        format!(
            "{} {{\n write_cache = off\n read_ahead_sect = 32\n}}\n{} {{\n read_ahead_sect = 16\n}}\n",
            first.dev, second.dev
        ),
    );
    let records = dir.join("records");
    let applied = ours(
        &["--apply", "--config", &conf, &first.dev, &second.dev],
        &records,
    );
    // The worst class of the runs: a loop device cannot do -W (25).
    assert_eq!(
        applied.status,
        Some(25),
        "{}{}",
        applied.stdout,
        applied.stderr
    );
    assert!(
        applied.stdout.contains(&format!(
            "{0}: hdparm -q -W0 -a32 {0}: failed (exit 25): ",
            first.dev
        )),
        "{}",
        applied.stdout
    );
    assert!(applied
        .stdout
        .contains(&format!("{0}: hdparm -q -a16 {0}: ok", second.dev)));
    // hdparm goes on after a failed set within a device, and so the read-ahead took.
    assert_eq!(first.readahead(), "32");
    assert_eq!(second.readahead(), "16");
    let record = record_of(&records, &first.dev);
    assert_ne!(record["runs"][0]["exit_status"], 0);
    assert!(record["runs"][0]["stderr"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_bad_file_applies_nothing_and_says_why() {
    let test = "a_bad_file_applies_nothing";
    let Some(devices) = loops(test, 1) else {
        return;
    };
    let lo = &devices[0];
    let dir = scratch(test);
    let conf = write_conf(
        &dir,
        format!("{} {{\n read_ahead_sect = 64\n dma = maybe\n}}\n", lo.dev),
    );
    let done = ours(
        &["--apply", "--config", &conf, &lo.dev],
        &dir.join("records"),
    );
    assert_eq!(done.status, Some(5));
    assert_eq!(
        done.stderr,
        format!("{conf}: Unknown Value for -d: maybe: nothing applied\n")
    );
    assert_eq!(lo.readahead(), "256");
    let missing = ours(&["--apply", "--config", "/nonexistent/hdparm.conf"], &dir);
    assert_eq!(missing.status, Some(2));
    assert_eq!(
        missing.stderr,
        "/nonexistent/hdparm.conf: No such file or directory\n"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_resume_hook_reapplies_as_systemd_calls_it() {
    let test = "the_resume_hook_reapplies";
    let Some(devices) = loops(test, 1) else {
        return;
    };
    let lo = &devices[0];
    let dir = scratch(test);
    let conf = write_conf(&dir, format!("{} {{\n read_ahead_sect = 48\n}}\n", lo.dev));
    let records = dir.join("records");
    let hook = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/contrib/systemd/hdparm-rs.sleep"
    );
    let run_hook = |phase: &str| {
        Command::new("sh")
            .args([hook, phase, "suspend"])
            .env("HDPARM", common::our_hdparm())
            .env("HDPARM_CONF", &conf)
            .env("HDPARM_RS_RECORD_DIR", &records)
            .status()
            .expect("run the hook")
    };
    // Before suspend: nothing.
    assert!(run_hook("pre").success());
    assert_eq!(lo.readahead(), "256");
    // After resume: the settings are back, recorded as a resume.
    assert!(run_hook("post").success());
    assert_eq!(lo.readahead(), "48");
    let record = record_of(&records, &lo.dev);
    assert_eq!(record["event"], "resume");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_class_block_applies_to_the_drives_of_that_class() {
    let test = "a_class_block_applies";
    let Some(devices) = loops(test, 1) else {
        return;
    };
    let lo = &devices[0];
    let name = Path::new(&lo.dev)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let rotational =
        std::fs::read_to_string(format!("/sys/block/{name}/queue/rotational")).unwrap_or_default();
    let (mine, other) = if rotational.trim() == "1" {
        ("rotational", "ssd")
    } else {
        ("ssd", "rotational")
    };
    let dir = scratch(test);
    let conf = write_conf(&dir, format!(
            "class:{other} {{\n read_ahead_sect = 24\n}}\nclass:{mine} {{\n read_ahead_sect = 40\n}}\n"
        ));
    let done = ours(
        &["--apply", "--config", &conf, &lo.dev],
        &dir.join("records"),
    );
    assert_eq!(done.status, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(lo.readahead(), "40");
    let _ = std::fs::remove_dir_all(&dir);
}
