//! `--surface` through the binary on a loop device (root): every zone is read, the CSV has a
//! line per zone, the JSON parses, and the SVG has its axes, both series and its labels, and
//! renders (rsvg-convert) to a picture.

mod common;

use std::process::Command;

#[test]
fn a_quick_scan_writes_text_csv_json_and_a_plot() {
    let test = "a_quick_scan_writes_text_csv_json_and_a_plot";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("surface", 64) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let dir = std::env::temp_dir().join(format!("hdparm-rs-surface-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let (svg, csv) = (dir.join("scan.svg"), dir.join("scan.csv"));
    let out = Command::new(common::our_hdparm())
        .args(["--surface", "--zones", "8", "--surface-quick", "--plot"])
        .arg(&svg)
        .arg("--csv")
        .arg(&csv)
        .arg(&lo.dev)
        .output()
        .expect("run");
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        out.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        text.contains(" Surface scan of 0.1 GB in 8 zones (quick: 8 MiB of each):"),
        "{text}"
    );
    assert!(text.contains("  read rate   min "), "{text}");
    // A bar per zone (zones a page cache makes uneven may be flagged slow: that is fine here).
    assert_eq!(
        text.lines().filter(|l| l.contains("% |")).count(),
        8,
        "a bar per zone:\n{text}"
    );
    let csv = std::fs::read_to_string(&csv).expect("csv");
    assert_eq!(csv.lines().count(), 9);
    let plot = std::fs::read_to_string(&svg).expect("svg");
    for part in [
        "read rate (MB/s)",
        "access time (ms)",
        "class=\"read-rate\"",
        "position on the device",
    ] {
        assert!(plot.contains(part), "the plot lacks {part}");
    }
    assert_eq!(plot.matches("class=\"access-time\"").count(), 8);
    let out = Command::new(common::our_hdparm())
        .args(["--json", "--surface-quick", "--zones", "4", &lo.dev])
        .output()
        .expect("run");
    let doc: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let zones = doc["surface"]["zones"].as_array().expect("zones");
    assert_eq!(zones.len(), 4);
    assert!(zones.iter().all(|z| z["bytes_read"] == 8 << 20));
    // `--plot -`: the SVG on stdout, the text on stderr.
    let out = Command::new(common::our_hdparm())
        .args(["--surface-quick", "--zones", "2", "--plot", "-", &lo.dev])
        .output()
        .expect("run");
    assert!(String::from_utf8_lossy(&out.stdout).starts_with("<svg "));
    assert!(String::from_utf8_lossy(&out.stderr).contains(" Surface scan of "));
    if Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok()
    {
        let png = dir.join("scan.png");
        let done = Command::new("rsvg-convert")
            .arg(&svg)
            .arg("-o")
            .arg(&png)
            .status()
            .expect("rsvg");
        assert!(done.success(), "the SVG does not render");
        assert!(std::fs::metadata(&png).is_ok_and(|m| m.len() > 1000));
    } else {
        common::skip(
            test,
            "rsvg-convert is missing: apt-get install librsvg2-bin",
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
