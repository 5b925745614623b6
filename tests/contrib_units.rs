//! The systemd units in contrib/systemd: `systemd-analyze verify` (Debian's systemd) takes each
//! without a word, and the metrics service's command line, run with our binary on a loop device
//! into a textfile directory of its own, writes a file that `promtool check metrics` accepts,
//! where node_exporter's collector would read it.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const UNITS: [&str; 3] = [
    "hdparm-rs-apply.service",
    "hdparm-rs-metrics.service",
    "hdparm-rs-metrics.timer",
];

/// node_exporter's textfile directory on Debian (prometheus-node-exporter's default).
const TEXTFILE_DIR: &str = "/var/lib/prometheus/node-exporter";

fn unit(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("contrib/systemd")
        .join(name)
}

/// The unit's `KEY=` values, in order.
fn values(text: &str, key: &str) -> Vec<String> {
    let prefix = format!("{key}=");
    text.lines()
        .filter_map(|l| l.strip_prefix(&prefix).map(str::to_string))
        .collect()
}

#[test]
fn systemd_analyze_verify_takes_the_units() {
    let test = "systemd_analyze_verify_takes_the_units";
    if Command::new("systemd-analyze")
        .arg("--version")
        .output()
        .is_err()
    {
        common::skip(test, "systemd-analyze is missing: apt-get install systemd");
        return;
    }
    let paths: Vec<PathBuf> = UNITS.iter().map(|u| unit(u)).collect();
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .args(&paths)
        .output()
        .expect("systemd-analyze");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // verify checks the keys, the values and that ExecStart's program exists (/sbin/hdparm:
    // Debian's hdparm, or ours installed by the package); a warning is a failure here too.
    assert!(out.status.success() && stderr.is_empty(), "{stderr}");
    // The check is real: a misspelt key and a missing program are reported.
    let dir = std::env::temp_dir().join(format!("hdparm-rs-units-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("hdparm-rs-bad.service");
    let text = std::fs::read_to_string(unit("hdparm-rs-metrics.service")).expect("unit");
    std::fs::write(
        &bad,
        text.replace("Type=oneshot", "Tipe=oneshot")
            .replace("/sbin/hdparm", "/sbin/hdparm-rs-none"),
    )
    .expect("bad unit");
    let out = Command::new("systemd-analyze")
        .arg("verify")
        .arg(&bad)
        .output()
        .expect("systemd-analyze");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(stderr.contains("Tipe"), "{stderr}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_timer_runs_the_service_that_writes_into_the_textfile_directory() {
    let timer = std::fs::read_to_string(unit("hdparm-rs-metrics.timer")).expect("timer");
    // A timer starts the service of its own name unless it says otherwise.
    assert!(values(&timer, "Unit").is_empty(), "{timer}");
    assert_eq!(values(&timer, "WantedBy"), vec!["timers.target"]);
    assert_eq!(values(&timer, "OnUnitActiveSec"), vec!["15min"]);
    let service = std::fs::read_to_string(unit("hdparm-rs-metrics.service")).expect("service");
    let exec = values(&service, "ExecStart");
    assert_eq!(exec.len(), 1, "{service}");
    let words: Vec<&str> = exec[0].split_whitespace().collect();
    assert_eq!(words[..2], ["/sbin/hdparm", "--prometheus"]);
    assert_eq!(words[2], format!("{TEXTFILE_DIR}/hdparm.prom"));
    assert!(words.contains(&"--no-wake"), "{exec:?}");
    assert_eq!(values(&service, "ReadWritePaths"), vec![TEXTFILE_DIR]);
    assert_eq!(
        values(&service, "ConditionPathIsDirectory"),
        vec![TEXTFILE_DIR]
    );
}

#[test]
fn the_metrics_services_command_writes_a_file_promtool_accepts() {
    let test = "the_metrics_services_command_writes_a_file_promtool_accepts";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    if !common::have_promtool(test) {
        return;
    }
    let Some(lo) = common::Loop::new("metrics-unit", 16) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let service = std::fs::read_to_string(unit("hdparm-rs-metrics.service")).expect("service");
    let exec = values(&service, "ExecStart").remove(0);
    let dir = std::env::temp_dir().join(format!("hdparm-rs-textfile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    // The service's words, with our binary, this test's directory and, so that no disk of
    // this machine is asked, the loop device.
    let exec = exec.replace(TEXTFILE_DIR, &dir.display().to_string());
    let mut words = exec.split_whitespace().skip(1);
    let out = Command::new(common::our_hdparm())
        .args(words.by_ref())
        .arg(&lo.dev)
        .output()
        .expect("run");
    // A loop device has no ATA: 25, with its query_success 0 in the file.
    assert_eq!(
        out.status.code(),
        Some(25),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(dir.join("hdparm.prom")).expect("the textfile");
    let name = lo.dev.rsplit('/').next().unwrap_or_default();
    assert!(
        text.contains(&format!("hdparm_query_success{{device=\"{name}\"}} 0\n")),
        "{text}"
    );
    if let Err(e) = common::promtool_accepts(&text) {
        panic!("promtool rejects the file: {e}\n{text}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
