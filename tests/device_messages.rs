//! What the binary says about a device that cannot do what was asked, on nodes every machine
//! has (`/dev/zero`, `/dev/null`) and on a loop device of its own: stderr and exit status
//! through the product (issue 13 §2.4 and §2.7; the differential findings §1).
//!
//! The loop test needs root and `losetup`; without them it says why and passes, unless
//! `HDPARM_RS_REQUIRE_ALL=1`. Nothing here sends an ATA command anywhere.

mod common;

use std::fs;
use std::path::PathBuf;
use std::process::{Command, Output};

fn ours(args: &[&str]) -> Output {
    Command::new(common::our_hdparm())
        .args(args)
        .output()
        .expect("run our hdparm")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn timing_a_character_device_says_what_it_is() {
    // hdparm prints a "buffered disk reads" figure for /dev/zero and exits 0.
    let o = ours(&["-t", "/dev/zero"]);
    assert_eq!(
        stderr(&o),
        "/dev/zero: -t times reads from a disk: /dev/zero is a character device, not a disk\n"
    );
    assert_eq!(String::from_utf8_lossy(&o.stdout), "\n/dev/zero:\n");
    assert_eq!(o.status.code(), Some(25));
}

#[test]
fn queue_depth_of_a_node_sysfs_does_not_know_is_labelled_as_hdparm_labels_it() {
    // hdparm: "sysfs_find_dev(1:3): No such file or directory".
    let o = ours(&["-Q", "/dev/null"]);
    let err = stderr(&o);
    assert!(
        err.starts_with("sysfs_find_dev(1:3): No such file or directory ("),
        "{err}"
    );
    assert!(!err.contains("ATA"), "{err}");
    assert_eq!(o.status.code(), Some(25));
}

/// A loop device attached without `losetup -P`, detached (and its file deleted) on drop.
struct LoopDev {
    dev: String,
    backing: PathBuf,
}

impl LoopDev {
    fn new() -> Result<LoopDev, String> {
        let backing =
            std::env::temp_dir().join(format!("hdparm-rs-messages-{}.img", std::process::id()));
        fs::File::create(&backing)
            .and_then(|f| f.set_len(4 << 20))
            .map_err(|e| format!("{}: {e}", backing.display()))?;
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing)
            .output();
        match out {
            Ok(o) if o.status.success() => Ok(LoopDev {
                dev: String::from_utf8_lossy(&o.stdout).trim().to_string(),
                backing,
            }),
            Ok(o) => {
                let _ = fs::remove_file(&backing);
                Err(format!(
                    "losetup failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                ))
            }
            Err(e) => {
                let _ = fs::remove_file(&backing);
                Err(format!("losetup: {e}"))
            }
        }
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
        let _ = fs::remove_file(&self.backing);
    }
}

#[test]
fn reread_partitions_on_a_loop_device_without_partition_scanning_says_so() {
    const TEST: &str = "reread_partitions_on_a_loop_device_without_partition_scanning_says_so";
    if !common::is_root() {
        common::skip(TEST, "needs root to attach a loop device");
        return;
    }
    let lo = match LoopDev::new() {
        Ok(lo) => lo,
        Err(why) => {
            common::skip(TEST, &why);
            return;
        }
    };
    let o = ours(&["-z", &lo.dev]);
    let err = stderr(&o);
    assert!(
        err.starts_with(" BLKRRPART failed: Invalid argument ("),
        "{err}"
    );
    assert!(
        err.contains(
            "; partition scanning is off for it (losetup -P attaches a loop device with it on))"
        ),
        "{err}"
    );
    assert!(!err.contains("ATA"), "{err}");
    assert_eq!(o.status.code(), Some(25));
    // -Q on it: hdparm's label is the attribute's path, for the set and the get.
    let name = lo.dev.trim_start_matches("/dev/");
    let line = format!("/sys/block/{name}/device/queue_depth: No such file or directory (");
    let o = ours(&["-Q5", &lo.dev]);
    let err = stderr(&o);
    assert_eq!(err.lines().count(), 2, "{err}");
    assert!(err.lines().all(|l| l.starts_with(&line)), "{err}");
    assert!(
        err.contains("only SCSI devices have a queue depth setting"),
        "{err}"
    );
    assert_eq!(o.status.code(), Some(25));
}

#[test]
fn json_messages_drop_hdparm_s_leading_space() {
    // hdparm prints " setting standby to 5 ..." and " HDIO_DRIVE_CMD(setidle) failed: ...",
    // a space that is a column in its text and noise in a JSON string. stderr keeps it.
    let dir = std::env::temp_dir().join(format!("hdparm-rs-json-space-{}", std::process::id()));
    fs::create_dir_all(&dir).unwrap();
    let file = dir.join("plain-file");
    fs::write(&file, b"").unwrap();
    let o = ours(&["--json", "-S5", file.to_str().unwrap()]);
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).expect("one JSON document");
    let device = &doc["devices"][0];
    let set = &device["settings"][0]["message"];
    assert_eq!(set, "setting standby to 5 (25 seconds)", "{doc}");
    let text = device["messages"][0]["text"].as_str().unwrap_or_default();
    assert!(
        text.starts_with("HDIO_DRIVE_CMD(setidle) failed: "),
        "{doc}"
    );
    assert!(
        stderr(&o).starts_with(" HDIO_DRIVE_CMD(setidle) failed: "),
        "{}",
        stderr(&o)
    );
    let _ = fs::remove_dir_all(&dir);
}
