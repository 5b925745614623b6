//! Issue 18 through the binary on loop devices (needs root, losetup, util-linux's flock and
//! mount, e2fsprogs): a stop that stops, and exclusive use held for the whole operation.
//!
//! - A destructive run over three disks, stopped by each of SIGINT, SIGTERM, SIGHUP and
//!   SIGQUIT while it waits for the second disk's lock (held shared by `flock -s`, as udevd
//!   holds it while it probes a disk): the process dies of the signal, the report says the first
//!   disk was done, the second interrupted with nothing sent and the third not started, and no
//!   disk's bytes changed. A loop device takes no ATA command, so nothing would change them
//!   anyway; the lock is what makes the stop come mid-run at a known place.
//! - While the run waits for a disk's lock, it holds the disk open with O_EXCL: a mount of it
//!   fails (EBUSY), where before it went through between the in-use check and the TRIM.
//! - A lock that stays held, shared, for the whole bounded wait: refused, exit 16 (busy).
//! - While `--experiment` runs on a disk, a second `--experiment` and a destructive operation
//!   are refused (16), and readers (`-a`, `--prometheus`) skip it (3, `reason="busy"`); the
//!   experiment still restores its setting.
//!
//! Before the fix nothing here waited or held anything: the lines these tests wait for never
//! came, the mount went through, and the second experiment took the first one's trial value
//! for the original.

mod common;

use std::io::{BufRead, BufReader, Read};
use std::os::unix::process::ExitStatusExt;
use std::process::{Child, Command, Stdio};

const KNOW: &str = "--yes-i-know-what-i-am-doing";

/// Skips (or fails under HDPARM_RS_REQUIRE_ALL) without root, losetup or flock(1).
fn ready(test: &str) -> bool {
    if !common::is_root() {
        common::skip(test, "needs root (loop devices)");
        return false;
    }
    if !Command::new("flock")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
    {
        common::skip(test, "util-linux's flock is not installed");
        return false;
    }
    true
}

/// A loop device with a pattern in its first 64 KiB.
fn disk(tag: &str) -> Option<common::Loop> {
    let lo = common::Loop::new(tag, 16)?;
    let pattern: Vec<u8> = (0..65536u32).map(|i| (i * 13 + 7) as u8).collect();
    use std::io::Write;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&lo.file)
        .and_then(|mut f| f.write_all(&pattern))
        .ok()?;
    Some(lo)
}

/// The disk's bytes as the kernel shows them.
fn bytes(lo: &common::Loop) -> Vec<u8> {
    std::fs::read(&lo.dev).expect("read the loop device")
}

/// `flock -s DEV sleep 600` in a process group of its own: a shared lock on the disk, as
/// udevd takes while it probes it. The lock goes with the group (the sleep inherits the
/// locked descriptor), which is killed on drop.
struct SharedHolder(Child);

impl SharedHolder {
    /// Returned once /proc/locks shows the lock.
    fn on(dev: &str) -> SharedHolder {
        use std::os::unix::process::CommandExt;
        let child = Command::new("flock")
            .args(["-s", dev, "sleep", "600"])
            .process_group(0)
            .spawn()
            .expect("flock");
        let pid = format!(" {} ", child.id());
        while !std::fs::read_to_string("/proc/locks").is_ok_and(|t| t.contains(&pid)) {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        SharedHolder(child)
    }

    fn pid(&self) -> u32 {
        self.0.id()
    }

    /// Releases the lock: the whole group ends.
    fn release(mut self) {
        self.end();
    }

    fn end(&mut self) {
        if self.0.try_wait().is_ok_and(|ended| ended.is_some()) {
            return;
        }
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.0.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.0.wait();
    }
}

impl Drop for SharedHolder {
    fn drop(&mut self) {
        self.end();
    }
}

/// Our binary running, its stderr read line by line by a thread of its own.
struct Running {
    child: Child,
    lines: std::sync::mpsc::Receiver<String>,
    /// What was read of stderr so far.
    stderr: String,
}

impl Running {
    /// Our binary with `args`, taking the stop signals with their default action.
    fn start(args: &[&str]) -> Running {
        let mut child = common::take_stop_signals(&mut Command::new(common::our_hdparm()))
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn our hdparm");
        let stderr = child.stderr.take().expect("stderr");
        let (send, lines) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Running {
            child,
            lines,
            stderr: String::new(),
        }
    }

    /// Reads stderr until a line containing `what`; false when stderr ended first.
    fn wait_for(&mut self, what: &str) -> bool {
        while let Ok(line) = self.lines.recv() {
            self.stderr.push_str(&line);
            self.stderr.push('\n');
            if line.contains(what) {
                return true;
            }
        }
        false
    }

    fn signal(&self, name: &str) {
        common::send_signal(&self.child, name);
    }

    /// Waits for the end: the status, stdout, and all of stderr.
    fn finish(mut self) -> (std::process::ExitStatus, String, String) {
        let mut stdout = String::new();
        if let Some(mut out) = self.child.stdout.take() {
            let _ = out.read_to_string(&mut stdout);
        }
        let status = self.child.wait().expect("wait");
        while let Ok(line) = self.lines.recv() {
            self.stderr.push_str(&line);
            self.stderr.push('\n');
        }
        (status, stdout, self.stderr)
    }
}

#[test]
fn a_stop_signal_mid_run_sends_nothing_more_reports_each_disk_and_ends_the_process() {
    let test = "a_stop_signal_mid_run_sends_nothing_more_reports_each_disk_and_ends_the_process";
    if !ready(test) {
        return;
    }
    let (Some(a), Some(b), Some(c)) = (disk("stop-a"), disk("stop-b"), disk("stop-c")) else {
        return common::skip(test, "losetup could not attach three loop devices");
    };
    let before = [bytes(&a), bytes(&b), bytes(&c)];
    for (name, number) in [
        ("TERM", libc::SIGTERM),
        ("INT", libc::SIGINT),
        ("HUP", libc::SIGHUP),
        ("QUIT", libc::SIGQUIT),
    ] {
        let holder = SharedHolder::on(&b.dev);
        let json = name == "HUP";
        let mut args = vec![KNOW, "--make-bad-sector", "8", &a.dev, &b.dev, &c.dev];
        if json {
            args.insert(0, "--json");
        }
        let mut run = Running::start(&args);
        let waiting = format!(
            "{}: waiting for the disk's lock, held by flock, pid ",
            b.dev
        );
        let seen = run.wait_for(&waiting);
        if seen {
            run.signal(name);
        }
        // Released once the run has ended: it must end on the signal, not on the lock.
        let (status, stdout, stderr) = run.finish();
        holder.release();
        assert!(
            seen,
            "SIG{name}: the run never waited for {}'s lock:\n{stderr}",
            b.dev
        );
        assert_eq!(
            status.signal(),
            Some(number),
            "SIG{name}: {status:?}\n{stderr}"
        );
        let report = format!(
            "stopped by SIG{name}: nothing more was sent to any device\n {}: done, with errors (above)\n {}: interrupted: nothing was sent to it: it was waiting for the disk's lock\n {}: not started\n",
            a.dev, b.dev, c.dev
        );
        if json {
            let doc: serde_json::Value = serde_json::from_str(&stdout).expect("one document");
            assert_eq!(doc["stop"]["signal"], format!("SIG{name}"));
            let states: Vec<&str> = doc["stop"]["devices"]
                .as_array()
                .map(|d| d.iter().filter_map(|d| d["state"].as_str()).collect())
                .unwrap_or_default();
            assert_eq!(states, ["failed", "interrupted", "not_started"]);
            assert_eq!(doc["hdparm_rs"]["exit_status"], 128 + number);
        } else {
            assert!(stderr.ends_with(&report), "SIG{name}: {stderr}");
        }
        assert_eq!([bytes(&a), bytes(&b), bytes(&c)], before, "SIG{name}");
    }
}

#[test]
fn a_mount_while_the_trim_waits_for_its_turn_fails_with_ebusy() {
    let test = "a_mount_while_the_trim_waits_for_its_turn_fails_with_ebusy";
    if !ready(test) {
        return;
    }
    let Some(lo) = common::Loop::new("mount-busy", 32) else {
        return common::skip(test, "losetup could not attach a loop device");
    };
    if !Command::new("mkfs.ext4")
        .args(["-q", "-F", &lo.dev])
        .status()
        .is_ok_and(|s| s.success())
    {
        return common::skip(test, "mkfs.ext4 failed (e2fsprogs)");
    }
    let point = std::env::temp_dir().join(format!("hdparm-rs-locks-{}", std::process::id()));
    std::fs::create_dir_all(&point).expect("mount point");
    let mount = || {
        Command::new("mount")
            .args(["-o", "ro"])
            .arg(&lo.dev)
            .arg(&point)
            .output()
            .expect("mount")
    };
    let holder = SharedHolder::on(&lo.dev);
    let mut run = Running::start(&[
        "--please-destroy-my-drive",
        "--trim-sector-ranges",
        "8:8",
        &lo.dev,
    ]);
    let seen = run.wait_for(&format!("{}: waiting for the disk's lock", lo.dev));
    // The in-use check is behind the run; the TRIM is ahead of it. A mount now must fail.
    let mounted = seen.then(mount);
    holder.release();
    let (status, _, stderr) = run.finish();
    let after = mount();
    let _ = Command::new("umount").arg(&point).status();
    let _ = std::fs::remove_dir(&point);
    assert!(seen, "the run never waited for the lock:\n{stderr}");
    let mounted = mounted.expect("tried");
    assert!(
        !mounted.status.success(),
        "the disk was mounted while the run held it for its TRIM"
    );
    let why = String::from_utf8_lossy(&mounted.stderr);
    assert!(why.contains("busy"), "not EBUSY: {why}");
    // The run went on once the lock was free (a loop device takes no ATA command).
    assert_eq!(status.code(), Some(25), "{stderr}");
    // And the disk could be mounted again afterwards: the failure was the run's hold.
    assert!(
        after.status.success(),
        "{}",
        String::from_utf8_lossy(&after.stderr)
    );
}

#[test]
fn a_lock_held_for_the_whole_wait_is_refused_as_busy() {
    let test = "a_lock_held_for_the_whole_wait_is_refused_as_busy";
    if !ready(test) {
        return;
    }
    let Some(lo) = disk("busy-wait") else {
        return common::skip(test, "losetup could not attach a loop device");
    };
    let holder = SharedHolder::on(&lo.dev);
    let (status, _, stderr) = Running::start(&[KNOW, "--make-bad-sector", "8", &lo.dev]).finish();
    let pid = holder.pid();
    holder.release();
    assert_eq!(status.code(), Some(16), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{}: refusing --make-bad-sector: the disk is locked by flock, pid {}, shared and was still locked after 10 s",
            lo.dev, pid
        )),
        "{stderr}"
    );
}

#[test]
fn a_second_instance_is_refused_and_readers_skip_while_an_experiment_runs() {
    let test = "a_second_instance_is_refused_and_readers_skip_while_an_experiment_runs";
    if !ready(test) {
        return;
    }
    let Some(lo) = common::Loop::new("experiment-lock", 64) else {
        return common::skip(test, "losetup could not attach a loop device");
    };
    let first = Running::start(&["--experiment", "-a 8", "-a 2048", "--trials", "3", &lo.dev]);
    // Its trials have begun once an arm's read-ahead shows.
    while lo.readahead() == "256" {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let holder = format!(
        "the disk is locked by hdparm, pid {}, exclusive",
        first.child.id()
    );
    let second = Running::start(&["--experiment", "-a 16", "-a 32", "--trials", "3", &lo.dev]);
    let (second_status, _, second_err) = second.finish();
    let destructive = Running::start(&[KNOW, "--make-bad-sector", "8", &lo.dev]);
    let (destructive_status, _, destructive_err) = destructive.finish();
    let reader = Running::start(&["-a", &lo.dev]);
    let (reader_status, reader_out, reader_err) = reader.finish();
    let metrics = Running::start(&["--prometheus", &lo.dev]);
    let (metrics_status, metrics_out, _) = metrics.finish();
    // Done with it: the first run restores and ends.
    first.signal("TERM");
    let (first_status, first_out, first_err) = first.finish();
    assert_eq!(second_status.code(), Some(16), "{second_err}");
    assert!(
        second_err.contains(&format!("{}: refusing --experiment: {holder}", lo.dev)),
        "{second_err}"
    );
    assert_eq!(destructive_status.code(), Some(16), "{destructive_err}");
    assert!(destructive_err.contains(&holder), "{destructive_err}");
    assert_eq!(reader_status.code(), Some(3), "{reader_out}{reader_err}");
    assert!(
        reader_err.contains(&format!("{}: skipped: {holder}", lo.dev)),
        "{reader_err}"
    );
    assert_eq!(metrics_status.code(), Some(3));
    assert!(
        metrics_out.contains(&format!(
            "hdparm_query_skipped{{device=\"{}\",reason=\"busy\"}} 1",
            // labelled as node_exporter labels disks: the kernel's name
            lo.dev.trim_start_matches("/dev/")
        )),
        "{metrics_out}"
    );
    // The first experiment's own reads and sets went through its lock, and it restored.
    assert_eq!(first_status.signal(), Some(libc::SIGTERM), "{first_err}");
    assert!(
        first_out.contains(" restored: -a 256 (reads back 256)"),
        "{first_out}"
    );
    assert_eq!(lo.readahead(), "256");
}
