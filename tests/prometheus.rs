//! `--prometheus` through the binary: the textfile is written atomically where asked, holds a
//! `query_success` series for every device named (a device without ATA is 0, with its reason
//! on stderr and exit 25, and does not keep the others out), labelled as node_exporter labels
//! its disks (`device="loop0"`), one series per disk however often and by whatever names it is
//! named, and `promtool check metrics` (Debian's prometheus package) accepts it.

mod common;

use std::process::Command;

#[test]
fn metrics_for_devices_that_answer_and_that_do_not() {
    let Some(lo) = loop_and_promtool("metrics_for_devices_that_answer_and_that_do_not") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("hdparm-rs-prom-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("hdparm.prom");
    let missing = "/dev/hdparm-rs-no-such-disk";
    let out = Command::new(common::our_hdparm())
        .arg("--prometheus")
        .arg(&file)
        .args(["--no-wake", &lo.dev, missing])
        .output()
        .expect("run");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The worst class: the missing disk could not be opened (2), the loop device has no ATA (25).
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(out.stdout.is_empty(), "the metrics went to the file");
    assert!(
        stderr.contains(&format!("{}: not an ATA drive", lo.dev)),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("{missing}: No such file or directory")),
        "{stderr}"
    );
    let text = std::fs::read_to_string(&file).expect("the file was written");
    let name = kernel_name(&lo.dev);
    assert!(
        text.contains(&format!("hdparm_query_success{{device=\"{name}\"}} 0\n")),
        "{text}"
    );
    assert!(
        text.contains("hdparm_query_success{device=\"hdparm-rs-no-such-disk\"} 0\n"),
        "{text}"
    );
    assert!(text.contains("# TYPE hdparm_query_success gauge\n"));
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name())
        .filter(|n| n != "hdparm.prom")
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
    if let Err(e) = common::promtool_accepts(&text) {
        panic!("promtool rejects the file: {e}\n{text}");
    }
    // To stdout when no file is named.
    let out = Command::new(common::our_hdparm())
        .args(["--prometheus", &lo.dev])
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(25));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.starts_with("# HELP hdparm_query_success "), "{text}");
    // With -t, the read rate of any block device, a loop device too, in bytes per second.
    let out = Command::new(common::our_hdparm())
        .args(["-t", "--prometheus", &lo.dev])
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    let series = format!("hdparm_read_bytes_per_second{{device=\"{name}\"}} ");
    let rate: f64 = text
        .lines()
        .find_map(|l| l.strip_prefix(&series))
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| panic!("no read rate: {text}"));
    assert!(rate > 0.0, "{text}");
    if let Err(e) = common::promtool_accepts(&text) {
        panic!("promtool rejects the file: {e}\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A loop device, where root, losetup and promtool are there (None: the test says why not).
fn loop_and_promtool(test: &str) -> Option<common::Loop> {
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return None;
    }
    if !common::have_promtool(test) {
        return None;
    }
    let lo = common::Loop::new(&test[..test.len().min(24)], 16);
    if lo.is_none() {
        common::skip(test, "losetup could not attach a loop device");
    }
    lo
}

/// `/dev/loop3` is `loop3` to the kernel and to node_exporter.
fn kernel_name(dev: &str) -> String {
    dev.rsplit('/').next().unwrap_or(dev).to_string()
}

#[test]
fn one_disk_named_twice_or_by_two_names_is_one_series() {
    let Some(lo) = loop_and_promtool("one_disk_named_twice_or_by_two_names_is_one_series") else {
        return;
    };
    let dir = std::env::temp_dir().join(format!("hdparm-rs-prom-twice-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    // A link as udev makes them under /dev/disk/by-id.
    let link = dir.join("ata-HDPARM_RS_LOOP");
    std::os::unix::fs::symlink(&lo.dev, &link).expect("link");
    let file = dir.join("hdparm.prom");
    let out = Command::new(common::our_hdparm())
        .arg("--prometheus")
        .arg(&file)
        .args([&lo.dev, &lo.dev])
        .arg(&link)
        .output()
        .expect("run");
    assert_eq!(
        out.status.code(),
        Some(25),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(&file).expect("the file was written");
    let series = format!(
        "hdparm_query_success{{device=\"{}\"}} ",
        kernel_name(&lo.dev)
    );
    assert_eq!(
        text.lines().filter(|l| l.starts_with(&series)).count(),
        1,
        "{text}"
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(stderr.lines().count(), 1, "asked once: {stderr}");
    if let Err(e) = common::promtool_accepts(&text) {
        panic!("promtool rejects the file: {e}\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn promtool_is_a_real_check() {
    // The validator must reject what the format forbids, or the test above proves nothing.
    if !common::have_promtool("promtool_is_a_real_check") {
        return;
    }
    assert!(common::promtool_accepts("# HELP x A gauge.\n# TYPE x gauge\nx{a=\"1\"} 1\n").is_ok());
    // A broken label, and a family without its help text (promtool's lint).
    assert!(common::promtool_accepts("# HELP x A gauge.\n# TYPE x gauge\nx{a=\"1} 1\n").is_err());
    assert!(common::promtool_accepts("# TYPE x gauge\nx{a=\"1\"} 1\n").is_err());
}
