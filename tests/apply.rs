//! `--apply`, `--check` and `--dry-run` end to end on loop devices (root): hdparm.conf's
//! block-level settings (`read_ahead_sect`, `read_only`) are applied to the devices it names,
//! read back with `blockdev` (not with our own get), recorded, and checked for drift; a setting
//! a device rejects is reported and recorded while the other devices still get theirs.

mod common;

use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
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

/// One loop device and a scratch directory (None: the test says why it cannot run).
fn one_loop(test: &str) -> Option<(Loop, PathBuf)> {
    let mut devices = loops(test, 1)?;
    Some((devices.remove(0), scratch(test)))
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
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
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
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
    let conf = write_conf(
        &dir,
        format!("{} {{\n read_ahead_sect = 64\n dma = maybe\n}}\n", lo.dev),
    );
    let done = ours(
        &["--apply", "--config", &conf, &lo.dev],
        &dir.join("records"),
    );
    // A configuration error (22), not a device failure (5).
    assert_eq!(done.status, Some(22));
    assert_eq!(
        done.stderr,
        format!("{conf}:3: Unknown Value for -d: maybe\n{conf}: 1 error: nothing applied\n")
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
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
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

#[test]
fn every_error_of_the_file_is_listed_with_its_line_in_every_mode() {
    let dir = scratch("every_error_of_the_file");
    let conf = write_conf(
        &dir,
        "# fine\ndma = maybe\nwrite_cache = on  # -W1\n\nspeed = 3\n/dev/sda {\n apm=128\n}\n"
            .to_string(),
    );
    let records = dir.join("records");
    for (mode, nothing) in [
        (&["--apply"][..], "nothing applied"),
        (&["--apply", "--dry-run"][..], "nothing planned"),
        (&["--check"][..], "nothing checked"),
    ] {
        let mut args = mode.to_vec();
        args.extend(["--config", &conf]);
        let done = ours(&args, &records);
        assert_eq!(done.status, Some(22), "{mode:?}: {}", done.stderr);
        let lines: Vec<&str> = done.stderr.lines().collect();
        assert_eq!(
            lines,
            vec![
                format!("{conf}:2: Unknown Value for -d: maybe"),
                format!("{conf}:3: warning: \"#\" starts no comment after a value: Debian's scripts read the rest of the line as the value, and this line gives hdparm \"#1\", which hdparm opens as a device; put the comment on a line of its own"),
                format!("{conf}:5: Unknown option speed"),
                format!("{conf}:7: unknown option apm=128"),
                format!("{conf}: 3 errors: {nothing}"),
            ],
            "{mode:?}"
        );
        assert_eq!(done.stdout, "", "{mode:?}");
    }
    // JSON: each one a message of class config.
    let done = ours(&["--json", "--check", "--config", &conf], &records);
    let doc: serde_json::Value = serde_json::from_str(&done.stdout).expect("JSON");
    let classes: Vec<&str> = doc["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .map(|m| m["class"].as_str().unwrap_or("warning"))
        .collect();
    assert_eq!(
        classes,
        vec!["config", "warning", "config", "config", "config"]
    );
    assert!(!records.exists(), "nothing was recorded");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_byte_that_is_not_utf8_in_the_file_stops_nothing() {
    let test = "a_byte_that_is_not_utf8";
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
    let conf = dir.join("hdparm.conf");
    let mut text = b"# f\xfcr die Platte\n".to_vec();
    text.extend(format!("{} {{\n read_ahead_sect = 64\n}}\n", lo.dev).bytes());
    std::fs::write(&conf, &text).expect("conf");
    let conf = conf.display().to_string();
    let done = ours(
        &["--apply", "--config", &conf, &lo.dev],
        &dir.join("records"),
    );
    assert_eq!(done.status, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(done.stderr, "", "a comment is no reason for a warning");
    assert_eq!(lo.readahead(), "64");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_named_device_that_is_not_there_is_an_error_and_gets_no_record() {
    let dir = scratch("a_named_device_that_is_not_there");
    let conf = write_conf(&dir, "quiet\n".to_string());
    let records = dir.join("records");
    let missing = "/dev/hdparm-rs-no-such-disk";
    for (mode, nothing) in [
        (&["--apply"][..], "nothing applied"),
        (&["--apply", "--dry-run"][..], "nothing planned"),
        (&["--check"][..], "nothing checked"),
    ] {
        let mut args = mode.to_vec();
        args.extend(["--config", &conf, missing]);
        let done = ours(&args, &records);
        assert_eq!(done.status, Some(2), "{mode:?}: {}", done.stdout);
        assert_eq!(
            done.stderr,
            format!("{missing}: No such file or directory; {nothing}\n"),
            "{mode:?}"
        );
        assert_eq!(done.stdout, "", "{mode:?}: not 'nothing to apply'");
    }
    let done = ours(&["--json", "--apply", "--config", &conf, missing], &records);
    let doc: serde_json::Value = serde_json::from_str(&done.stdout).expect("JSON");
    assert_eq!(doc["devices"].as_array().map(Vec::len), Some(0));
    assert_eq!(doc["messages"][0]["class"], "cannot_open");
    assert!(
        !records.exists(),
        "no record for a device that is not there"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_without_root_says_what_it_could_not_read() {
    let test = "check_without_root_says_what_it_could_not_read";
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
    let conf = write_conf(&dir, format!("{} {{\n read_ahead_sect = 64\n}}\n", lo.dev));
    let records = dir.join("records");
    let applied = ours(&["--apply", "--config", &conf, &lo.dev], &records);
    assert_eq!(applied.status, Some(0), "{}", applied.stderr);
    // The loop device's node is root's (0660): nobody cannot open it.
    let out = Command::new("runuser")
        .args(["-u", "nobody", "--"])
        .arg(common::our_hdparm())
        .args(["--check", "--config", &conf, &lo.dev])
        .env("HDPARM_RS_RECORD_DIR", &records)
        .output()
        .expect("runuser");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(6), "{stderr}");
    assert_eq!(
        stderr,
        format!(
            "{0}: cannot check -a64: it could not be read ({0}: Permission denied)\n",
            lo.dev
        )
    );
    // JSON says it as data too.
    let out = Command::new("runuser")
        .args(["-u", "nobody", "--"])
        .arg(common::our_hdparm())
        .args(["--json", "--check", "--config", &conf, &lo.dev])
        .env("HDPARM_RS_RECORD_DIR", &records)
        .output()
        .expect("runuser");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(doc["hdparm_rs"]["exit_status"], 6);
    assert_eq!(doc["devices"][0]["unverified"][0]["option"], "-a");
    assert_eq!(doc["messages"][0]["class"], "unverified");
    // As root the same check is in sync.
    let check = ours(&["--check", "--config", &conf, &lo.dev], &records);
    assert_eq!((check.status, check.stdout.as_str()), (Some(0), ""));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_setting_apply_reported_as_failed_is_reported_by_check() {
    let test = "a_setting_apply_reported_as_failed";
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
    // A loop device has no write cache: -W0 fails, and -W cannot be read either.
    let conf = write_conf(
        &dir,
        format!(
            "{} {{\n write_cache = off\n read_ahead_sect = 32\n}}\n",
            lo.dev
        ),
    );
    let records = dir.join("records");
    let applied = ours(&["--apply", "--config", &conf, &lo.dev], &records);
    assert_eq!(applied.status, Some(25), "{}", applied.stdout);
    let check = ours(&["--check", "--config", &conf, &lo.dev], &records);
    assert_eq!(check.status, Some(4), "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.starts_with(&format!(
            "{0}: -W: it could not be read ({0}: -W reads the drive's IDENTIFY data: ",
            lo.dev
        )),
        "{}",
        check.stdout
    );
    assert!(
        check
            .stdout
            .contains("; it failed at the last --apply (hdparm -q -W0 -a32 exited 25: "),
        "{}",
        check.stdout
    );
    assert_eq!(
        check.stdout.lines().count(),
        1,
        "-a32 took: {}",
        check.stdout
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A node `/dev/sdX` for a loop device, so that Debian's rules treat it as a SATA disk
/// (95hdparm-apm walks /dev/sd? only, and only it sends -S); removed on drop.
struct SdAlias {
    path: String,
}

impl SdAlias {
    fn new(lo: &Loop) -> Option<SdAlias> {
        use std::os::unix::fs::MetadataExt;
        let rdev = std::fs::metadata(&lo.dev).ok()?.rdev();
        let letter = ('m'..='z').find(|c| {
            !Path::new(&format!("/dev/sd{c}")).exists()
                && !Path::new(&format!("/sys/block/sd{c}")).exists()
        })?;
        let path = format!("/dev/sd{letter}");
        let made = Command::new("mknod")
            .args([
                &path,
                "b",
                &libc::major(rdev).to_string(),
                &libc::minor(rdev).to_string(),
            ])
            .status()
            .ok()?;
        let alias = SdAlias { path };
        (made.success()
            && std::fs::metadata(&alias.path).is_ok_and(|m| m.file_type().is_block_device()))
        .then_some(alias)
    }
}

impl Drop for SdAlias {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[test]
fn a_setting_that_cannot_be_read_back_is_checked_against_the_last_apply() {
    let test = "a_setting_that_cannot_be_read_back";
    let Some(devices) = loops(test, 1) else {
        return;
    };
    let lo = &devices[0];
    let Some(alias) = SdAlias::new(lo) else {
        common::skip(
            test,
            "mknod could not make a /dev/sdX node for the loop device",
        );
        return;
    };
    let dev = alias.path.clone();
    let dir = scratch(test);
    let records = dir.join("records");
    let with_spindown = |minutes: u32, comment: &str| {
        write_conf(
            &dir,
            format!(
                "# {comment}\n{dev} {{\n force_spindown_time = {minutes}\n read_ahead_sect = 64\n}}\n"
            ),
        )
    };
    let conf = with_spindown(24, "spin down after 2 minutes");

    // The apply sends -S24 alone, as 95hdparm-apm does; a loop device rejects it, and the
    // record says so: --check reports it, though -S has no get.
    let applied = ours(&["--apply", "--config", &conf, &dev], &records);
    assert!(
        applied
            .stdout
            .contains(&format!("{dev}: hdparm -S24 {dev}: failed (exit 25)")),
        "{}",
        applied.stdout
    );
    let check = ours(&["--check", "--config", &conf, &dev], &records);
    assert_eq!(check.status, Some(4), "{}{}", check.stdout, check.stderr);
    assert!(
        check.stdout.starts_with(&format!(
            "{dev}: -S: it cannot be read back; it failed at the last --apply (hdparm -S24 exited 25: "
        )),
        "{}",
        check.stdout
    );

    // The record an --apply writes where the drive took -S24: the same, with exit 0.
    let name = Path::new(&lo.dev)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    let record_file = records.join(format!("{name}.json"));
    let mut record: serde_json::Value = serde_json::from_slice(
        &std::fs::read(&record_file).expect("the record is the kernel name's"),
    )
    .expect("JSON");
    assert_eq!(record["runs"][0]["args"][0], "-S24");
    record["runs"][0]["exit_status"] = 0.into();
    record["runs"][0]["stderr"] = "".into();
    std::fs::write(&record_file, serde_json::to_vec(&record).unwrap()).expect("record");
    let check = ours(&["--check", "--config", &conf, &dev], &records);
    assert_eq!(
        (check.status, check.stdout.as_str(), check.stderr.as_str()),
        (Some(0), "", ""),
        "sent, taken, and hdparm.conf unchanged"
    );

    // A comment edited: the device's settings are the same, so no drift.
    let conf = with_spindown(24, "spin down after two minutes");
    let check = ours(&["--check", "--config", &conf, &dev], &records);
    assert_eq!((check.status, check.stdout.as_str()), (Some(0), ""));

    // The spindown edited: drift, though the drive cannot be asked.
    let conf = with_spindown(36, "spin down after three minutes");
    let check = ours(&["--check", "--config", &conf, &dev], &records);
    assert_eq!(check.status, Some(4), "{}{}", check.stdout, check.stderr);
    assert_eq!(
        check.stdout,
        format!("{dev}: -S: it cannot be read back; the last --apply sent -S24, hdparm.conf asks for -S36\n")
    );

    // No record at all: the check cannot say (6), and says why.
    std::fs::remove_file(&record_file).expect("remove the record");
    let check = ours(&["--check", "--config", &conf, &dev], &records);
    assert_eq!(check.status, Some(6), "{}{}", check.stdout, check.stderr);
    assert_eq!(
        check.stderr,
        format!(
            "{dev}: cannot check -S36: it cannot be read back, and no --apply has recorded sending it ({})\n",
            record_file.display()
        )
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_debians_rules_drop_is_said_in_every_mode() {
    let test = "what_debians_rules_drop_is_said";
    let Some((lo, dir)) = one_loop(test) else {
        return;
    };
    let absent = "/dev/disk/by-id/ata-HDPARM_RS_NO_SUCH_DISK";
    let conf = write_conf(
        &dir,
        format!(
            "quiet\n{} {{\n apm = 128\n spindown_time = 24\n read_ahead_sect = 64\n}}\n{absent} {{\n write_cache = on\n}}\ncommand_line {{\n hdparm -a64 {}\n}}\n",
            lo.dev, lo.dev
        ),
    );
    let records = dir.join("records");
    let walks = "Debian's 95hdparm-apm sends -B and -S only to /dev/sd? and /dev/hd?";
    for mode in [
        &["--apply"][..],
        &["--apply", "--dry-run"][..],
        &["--check"][..],
    ] {
        let mut args = mode.to_vec();
        args.extend(["--config", &conf]);
        let done = ours(&args, &records);
        let said = |line: String| {
            assert!(
                done.stdout.lines().any(|l| l == line),
                "{mode:?}: no line {line:?} in\n{}{}",
                done.stdout,
                done.stderr
            )
        };
        said(format!(
            "{conf}:7: dropped the block for {absent}: no such device here"
        ));
        said(format!("{conf}:10: dropped the command_line block: Debian's scripts have ignored such blocks since hdparm 9.39-1; put its options in a block named by the device"));
        said(format!("{}: dropped -B128 (apm): {walks}", lo.dev));
        said(format!("{}: dropped -S24 (spindown_time): {walks}", lo.dev));
    }
    let done = ours(
        &["--json", "--apply", "--dry-run", "--config", &conf],
        &records,
    );
    let doc: serde_json::Value = serde_json::from_str(&done.stdout).expect("JSON");
    assert_eq!(doc["dropped"][0]["line"], 7);
    assert_eq!(doc["dropped"][1]["block"], "command_line");
    let device = doc["devices"]
        .as_array()
        .and_then(|d| d.iter().find(|d| d["name"] == lo.dev.as_str()))
        .expect("the loop device");
    assert_eq!(device["dropped"][1]["key"], "spindown_time");
    assert_eq!(device["dropped"][1]["option"], "-S24");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn config_before_apply_is_accepted() {
    let dir = scratch("config_before_apply");
    let conf = write_conf(&dir, "/dev/hdparm-rs-absent {\n dma = on\n}\n".to_string());
    let records = dir.join("records");
    for args in [
        &["--config", &conf, "--apply", "--dry-run"][..],
        &["--config", &conf, "--dry-run", "--apply"][..],
        &["--config", &conf, "--check"][..],
    ] {
        let done = ours(args, &records);
        assert_eq!(done.status, Some(0), "{args:?}: {}", done.stderr);
        assert!(
            done.stdout.lines().any(|l| l
                == format!(
                    "{conf}:1: dropped the block for /dev/hdparm-rs-absent: no such device here"
                )),
            "{args:?}: the file named is the file read: {}",
            done.stdout
        );
    }
    let done = ours(&["--config", &conf, "-a", "/dev/null"], &records);
    assert_eq!(done.status, Some(22));
    assert!(done.stderr.contains("--config"), "{}", done.stderr);
    let _ = std::fs::remove_dir_all(&dir);
}
