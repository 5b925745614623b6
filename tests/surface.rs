//! `--surface` through the binary on a loop device (root): every zone is read, the CSV has a
//! line per zone, the JSON parses, and the SVG has its axes, both series and its labels, and
//! renders (rsvg-convert) to a picture.

mod common;

use std::ffi::CString;
use std::path::PathBuf;
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

/// A scan of `lo` started in the background: its process, and the descriptor it reads the
/// device through.
struct Running {
    child: std::process::Child,
    fd: String,
    /// The scan's signal dispositions once it reads (SigIgn, SigCgt of /proc/PID/status), for
    /// the message of a signal test that fails.
    dispositions: String,
}

/// The offset of descriptor `fd` of process `pid` (0 when it cannot be read).
fn position_of(pid: u32, fd: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/fdinfo/{fd}"))
        .ok()
        .and_then(|t| {
            t.lines()
                .find_map(|l| l.strip_prefix("pos:"))
                .and_then(|p| p.trim().parse().ok())
        })
        .unwrap_or(0)
}

/// Reads of one block device held to a rate for the processes that join it: a cgroup of the
/// blkio controller (cgroup v1) or of io.max (v2). Why: a scan of a 1 GiB loop device takes
/// under a second, and on a loaded machine the test's thread may not run again before the
/// scan has ended, so a signal meant for the middle of the scan could come after it.
struct ReadThrottle {
    dir: PathBuf,
    /// The group's `cgroup.procs`, for the child to join between fork and exec.
    procs: CString,
}

impl ReadThrottle {
    /// The group for `dev`'s reads at `bytes_per_second`; the reason where this
    /// kernel or container offers neither controller.
    fn new(tag: &str, dev: &str, bytes_per_second: u64) -> Result<ReadThrottle, String> {
        let name = dev.rsplit('/').next().unwrap_or(dev);
        let number = std::fs::read_to_string(format!("/sys/class/block/{name}/dev"))
            .map_err(|e| format!("no device number for {dev}: {e}"))?;
        let number = number.trim();
        let group = format!("hdparm-rs-{tag}-{}", std::process::id());
        let v1 = PathBuf::from("/sys/fs/cgroup/blkio");
        let v2 = PathBuf::from("/sys/fs/cgroup");
        let (dir, file, rule) = if v1.join("blkio.throttle.read_bps_device").exists() {
            let rule = format!("{number} {bytes_per_second}");
            (v1.join(group), "blkio.throttle.read_bps_device", rule)
        } else if std::fs::read_to_string(v2.join("cgroup.subtree_control"))
            .is_ok_and(|c| c.split_whitespace().any(|c| c == "io"))
        {
            (
                v2.join(group),
                "io.max",
                format!("{number} rbps={bytes_per_second}"),
            )
        } else {
            return Err(
                "no blkio (cgroup v1) or io (cgroup v2) controller to slow the reads".into(),
            );
        };
        std::fs::create_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        let throttle = ReadThrottle {
            procs: CString::new(dir.join("cgroup.procs").display().to_string())
                .expect("no NUL in a path"),
            dir,
        };
        std::fs::write(throttle.dir.join(file), rule)
            .map_err(|e| format!("{}: {e}", throttle.dir.join(file).display()))?;
        Ok(throttle)
    }

    /// Makes `command`'s process join the group before it runs.
    #[allow(unsafe_code)]
    fn join(&self, command: &mut Command) {
        use std::os::unix::process::CommandExt;
        let procs = self.procs.clone();
        // SAFETY: between fork and exec only async-signal-safe calls are made (open, write,
        // close) on a path allocated before the fork; "0" names the writing process.
        unsafe {
            command.pre_exec(move || {
                let fd = libc::open(procs.as_ptr(), libc::O_WRONLY);
                if fd < 0 || libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
                libc::close(fd);
                Ok(())
            });
        }
    }
}

impl Drop for ReadThrottle {
    fn drop(&mut self) {
        // Empty by now: its one process has been waited for.
        let _ = std::fs::remove_dir(&self.dir);
    }
}

impl Running {
    /// `--surface` of `lo`, its reads held to 256 MB/s (a 1 GiB scan then takes 4 s, long
    /// enough for the test to act in its middle whatever the load).
    fn start(lo: &common::Loop, zones: &str, throttle: &ReadThrottle) -> Running {
        let mut command = Command::new(common::our_hdparm());
        command
            .args(["--surface", "--zones", zones, &lo.dev])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        throttle.join(&mut command);
        // SIGINT ignored by inheritance (`nohup .ci/run &`) would let the scan run on.
        common::take_stop_signals(&mut command);
        let child = command.spawn().expect("run");
        let pid = child.id();
        // The descriptor the scan reads through: of those that name the device (the run also
        // holds the disk's shared lock on one of its own, which it never reads), the one that
        // has read the first block.
        let fd = loop {
            let reading = std::fs::read_dir(format!("/proc/{pid}/fd"))
                .into_iter()
                .flatten()
                .flatten()
                .filter(|e| {
                    std::fs::read_link(e.path()).is_ok_and(|l| l == std::path::Path::new(&lo.dev))
                })
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .find(|fd| position_of(pid, fd) > 0);
            if let Some(fd) = reading {
                break fd;
            }
            std::thread::yield_now();
        };
        let dispositions = std::fs::read_to_string(format!("/proc/{pid}/status"))
            .unwrap_or_default()
            .lines()
            .filter(|l| l.starts_with("SigIgn") || l.starts_with("SigCgt"))
            .collect::<Vec<_>>()
            .join(", ");
        Running {
            child,
            fd,
            dispositions,
        }
    }

    /// The descriptor's offset: the end of the last read.
    fn position(&self) -> u64 {
        position_of(self.child.id(), &self.fd)
    }

    fn signal(&self, name: &str) {
        common::send_signal(&self.child, name);
    }
}

#[test]
fn a_device_that_shrinks_under_the_scan_ends_it_where_it_went_away() {
    let test = "a_device_that_shrinks_under_the_scan_ends_it_where_it_went_away";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("surface-shrink", 1024) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let throttle = match ReadThrottle::new("shrink", &lo.dev, 256 << 20) {
        Ok(t) => t,
        Err(why) => {
            common::skip(test, &why);
            return;
        }
    };
    let running = Running::start(&lo, "8", &throttle);
    // Held still while the device shrinks behind it: a little past where it reads now, as
    // `truncate` and `losetup -c` do it to a loop device (a disk resized or pulled out alike).
    running.signal("STOP");
    let mib = 1u64 << 20;
    let left = (running.position() / mib + 8) * mib;
    assert!(
        left < 1024 * mib,
        "the scan was nearly done before it was stopped"
    );
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lo.file)
        .and_then(|f| f.set_len(left))
        .expect("truncate");
    let resized = Command::new("losetup")
        .args(["-c", &lo.dev])
        .status()
        .is_ok_and(|s| s.success());
    assert!(resized, "losetup -c");
    running.signal("CONT");
    let out = running.child.wait_with_output().expect("wait");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(5), "{text}{err}");
    let at = text
        .lines()
        .find_map(|l| l.strip_prefix("  device went away at sector "))
        .and_then(|rest| rest.split(':').next())
        .and_then(|n| n.parse::<u64>().ok())
        .unwrap_or_else(|| panic!("no 'device went away at sector N':\n{text}"));
    // Where the first block past the new end was asked for (the zone being read, or the
    // next one when the shrink came during its access-time reads).
    assert!(
        at * 512 >= left && at * 512 < 1024 * mib,
        "at {at}, left {left}:\n{text}"
    );
    assert!(
        !text.contains("read errors"),
        "a shrink is not read errors:\n{text}"
    );
    assert!(
        err.contains(&format!(
            "{}: device went away at sector {at}; the scan stopped there",
            lo.dev
        )),
        "{err}"
    );
    assert!(text.len() < 4096, "{} bytes of report", text.len());
}

/// SIGINT (a user's Ctrl-C) and SIGTERM (systemd stopping a unit): the zones read are
/// reported and the process dies of the signal that came (issue 18: it died of SIGINT for a
/// SIGTERM, so systemd saw the wrong cause).
#[test]
fn a_stop_signal_during_the_scan_reports_the_zones_read_and_ends_the_process_with_it() {
    let test = "a_stop_signal_during_the_scan_reports_the_zones_read_and_ends_the_process_with_it";
    if !common::is_root() {
        common::skip(test, "needs root for losetup");
        return;
    }
    let Some(lo) = common::Loop::new("surface-sigint", 1024) else {
        common::skip(test, "losetup could not attach a loop device");
        return;
    };
    let throttle = match ReadThrottle::new("signal", &lo.dev, 256 << 20) {
        Ok(t) => t,
        Err(why) => {
            common::skip(test, &why);
            return;
        }
    };
    for (name, number) in [("INT", libc::SIGINT), ("TERM", libc::SIGTERM)] {
        let running = Running::start(&lo, "64", &throttle);
        running.signal(name);
        let dispositions = running.dispositions.clone();
        let out = running.child.wait_with_output().expect("wait");
        let text = String::from_utf8_lossy(&out.stdout);
        let err = String::from_utf8_lossy(&out.stderr);
        use std::os::unix::process::ExitStatusExt;
        assert_eq!(
            out.status.signal(),
            Some(number),
            "SIG{name} ({dispositions} when it was sent): {text}{err}"
        );
        assert!(
            text.contains(" Surface scan of 1.1 GB in 64 zones:"),
            "{text}"
        );
        assert!(
            text.lines()
                .any(|l| l.starts_with("  stopped by a signal at sector ")),
            "{text}"
        );
        assert!(
            err.contains(&format!("--surface stopped by SIG{name} at sector ")),
            "{err}"
        );
    }
}
