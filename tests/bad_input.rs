//! Bad input never fails silently and never panics: a table of several hundred invocations of
//! our binary with unknown and malformed options, out-of-range values for every numeric option,
//! missing values, devices that do not exist, directories, character devices, regular files and
//! loop devices, and ATA-only options on devices that are not ATA drives.
//!
//! Each case checks what a user would: the exit status is not 0 (and is the documented class
//! where it is certain: 22 usage, 2 cannot open, 25 not applicable, 1 guard, 5 failed; see
//! README "Exit status"), stderr has a line that names the option or the device and says why
//! (a distinctive substring per case), nothing panicked (no "panicked", no status 101), and the
//! run ends within [`TIMEOUT`].
//!
//! The guard tests also check that a refusal changes nothing: the first sector of a loop device
//! keeps the pattern written to it, and a refusal for the second device of a command line leaves
//! the first device untouched too.
//!
//! Only /dev/null, /dev/zero, directories, files in the temp directory and loop devices this test
//! attaches itself are used; never a disk of the machine. Loop devices need root and losetup:
//! without them those tests say why and pass, and with `HDPARM_RS_REQUIRE_ALL=1` they fail.

mod common;

use hdparm::cli::defs::{Guard, Role, Value, OPTIONS};
use std::ffi::OsString;
use std::fs;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long one invocation may take. The slowest cases are `-t`/`-T`, which sleep about 3 s
/// before reading, as hdparm does.
const TIMEOUT: Duration = Duration::from_secs(10);

/// The exit status a case must end with.
#[derive(Clone, Copy, Debug)]
enum Want {
    /// Exactly this status.
    Status(i32),
    /// Any failure status (not 0, not a panic, not killed by a signal).
    Failure,
}

const USAGE: Want = Want::Status(22);
const GUARD: Want = Want::Status(1);
const CANNOT_OPEN: Want = Want::Status(2);
const FAILED: Want = Want::Status(5);
const NOT_APPLICABLE: Want = Want::Status(25);

struct Case {
    args: Vec<OsString>,
    want: Want,
    /// Substrings that must all appear in stderr.
    needles: Vec<String>,
}

fn case<A: AsRef<str>, N: AsRef<str>>(args: &[A], want: Want, needles: &[N]) -> Case {
    Case {
        args: args.iter().map(|a| OsString::from(a.as_ref())).collect(),
        want,
        needles: needles.iter().map(|n| n.as_ref().to_string()).collect(),
    }
}

fn describe(args: &[OsString]) -> String {
    let words: Vec<String> = args
        .iter()
        .map(|a| format!("{:?}", a.to_string_lossy()))
        .collect();
    format!("hdparm {}", words.join(" "))
}

struct Finished {
    status: Option<i32>,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
}

/// Runs our binary with `args`, no stdin; kills it and reports a failure after [`TIMEOUT`].
fn run(args: &[OsString]) -> Result<Finished, String> {
    let mut child = Command::new(common::our_hdparm())
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start our hdparm: {e}"))?;
    // Read both pipes on their own threads so a chatty child never blocks on a full pipe.
    let mut out_pipe = child.stdout.take().ok_or("no stdout pipe")?;
    let mut err_pipe = child.stderr.take().ok_or("no stderr pipe")?;
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = out_pipe.read_to_end(&mut buf);
        buf
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = err_pipe.read_to_end(&mut buf);
        buf
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() > TIMEOUT => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(format!("still running after {TIMEOUT:?}; killed"));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(5)),
            Err(e) => return Err(format!("waiting for it failed: {e}")),
        }
    };
    Ok(Finished {
        status: status.code(),
        stdout: out_reader.join().unwrap_or_default(),
        stderr: err_reader.join().unwrap_or_default(),
    })
}

/// Runs one case; `Err` says what a user would have found wrong.
fn check(c: &Case) -> Result<Finished, String> {
    let done = run(&c.args)?;
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    let mut problems = Vec::new();
    match done.status {
        None => problems.push("killed by a signal".to_string()),
        Some(0) => problems.push("exit status 0 although the request cannot succeed".into()),
        Some(101) => problems.push("exit status 101 (a Rust panic)".into()),
        Some(code) => {
            if let Want::Status(want) = c.want {
                if code != want {
                    problems.push(format!("exit status {code}, expected {want}"));
                }
            }
        }
    }
    if stderr.contains("panicked") {
        problems.push("stderr shows a panic".into());
    }
    if stderr.trim().is_empty() {
        problems.push("nothing on stderr: a silent failure".into());
    }
    for needle in &c.needles {
        if !stderr.contains(needle.as_str()) {
            problems.push(format!("stderr lacks {needle:?}"));
        }
    }
    if problems.is_empty() {
        Ok(done)
    } else {
        let shown: String = stderr.chars().take(600).collect();
        Err(format!(
            "{}: {}\n    stderr: {:?}",
            describe(&c.args),
            problems.join("; "),
            shown
        ))
    }
}

/// Runs a table and fails with every case that went wrong.
fn check_all(what: &str, cases: &[Case]) {
    let failures: Vec<String> = cases.iter().filter_map(|c| check(c).err()).collect();
    eprintln!("{what}: {} cases, {} failed", cases.len(), failures.len());
    assert!(
        failures.is_empty(),
        "{what}: {} of {} cases failed:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

// ---------------------------------------------------------------------------------------------
// The tables.

/// The numeric short options, from their definitions: letter, name in the message, range
/// (reference §1.3), and whether the value is required (set-only options).
fn numeric_options() -> Vec<(char, &'static str, u32, u32, bool)> {
    OPTIONS
        .iter()
        .filter_map(|d| match (d.short, d.value) {
            (Some(c), Value::Decimal { name, min, max }) => Some((
                c as char,
                name,
                min as u32,
                max as u32,
                d.role == Role::SetOnly,
            )),
            _ => None,
        })
        .collect()
}

/// Out-of-range, overflowing and missing values for every numeric short option.
fn short_range_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (l, name, min, max, required) in numeric_options() {
        let msg = format!("-{l}: bad/missing {name} value ({min}..{max})");
        let over = (max + 1).to_string();
        v.push(case(
            &[format!("-{l}{over}"), "/dev/null".into()],
            USAGE,
            &[&msg],
        ));
        v.push(case(
            &[format!("-{l}"), over.clone(), "/dev/null".into()],
            USAGE,
            &[&msg],
        ));
        v.push(case(
            &[format!("-q{l}{over}"), "/dev/null".into()],
            USAGE,
            &[&msg],
        ));
        v.push(case(
            &[format!("-{l}99999999999"), "/dev/null".into()],
            USAGE,
            &[&msg],
        ));
        // 2^32 + 1 would wrap to 1 in a 32-bit accumulator: it must still be out of range.
        v.push(case(
            &[format!("-{l}4294967297"), "/dev/null".into()],
            USAGE,
            &[&msg],
        ));
        if required {
            v.push(case(&[format!("-{l}"), "/dev/null".into()], USAGE, &[&msg]));
            v.push(case(
                &[format!("-{l}"), "x".into(), "/dev/null".into()],
                USAGE,
                &[&msg],
            ));
        }
    }
    v
}

/// Bad values for the 64-bit options (reference §1.5).
fn long_range_cases() -> Vec<Case> {
    const LBA: &str = "bad/missing sector value";
    let mut v = Vec::new();
    let too_big = ["281474976710656", "0x1000000000000", "99999999999999999999"];
    for opt in [
        "read-sector",
        "write-sector",
        "repair-sector",
        "make-bad-sector",
    ] {
        let msg = format!("{opt}: {LBA}");
        for val in ["-1", "x"].iter().chain(too_big.iter()) {
            v.push(case(
                &[&format!("--{opt}"), *val, "/dev/null"],
                USAGE,
                &[&msg],
            ));
        }
        v.push(case(&[&format!("--{opt}"), "/dev/null"], USAGE, &[&msg]));
    }
    v.push(case(
        &["--make-bad-sector", "f281474976710656", "/dev/null"],
        USAGE,
        &["make-bad-sector: bad/missing sector value"],
    ));
    for val in ["0", "p0", "-N0"].iter().chain(too_big.iter()) {
        let args: Vec<&str> = if val.starts_with('-') {
            vec![val, "/dev/null"]
        } else {
            vec!["-N", val, "/dev/null"]
        };
        v.push(case(&args, USAGE, &["-N: bad/missing sector value"]));
    }
    for val in ["0", "-1", "x", "281474976710656"] {
        v.push(case(
            &["--dco-setmax", val, "/dev/null"],
            USAGE,
            &["--dco-setmax: bad/missing sector value"],
        ));
    }
    for val in ["-1", "x", "99999999999999999999", "18446744073709551616"] {
        v.push(case(
            &["--offset", val, "-t", "/dev/null"],
            USAGE,
            &["offset: GB offset for -t flag"],
        ));
    }
    for val in ["0", "511", "4225", "0x1081", "x", "-1"] {
        v.push(case(
            &["--set-sector-size", val, "/dev/null"],
            USAGE,
            &["--set-sector-size: sector size out of range"],
        ));
    }
    for val in ["8", "-1", "x", "99999999999999999999"] {
        v.push(case(
            &["--sanitize-overwrite-passes", val, "/dev/null"],
            USAGE,
            &["sanitize-overwrite-passes: Number of passes must be in range 0..7"],
        ));
    }
    for val in ["x", "-1", "9007199254740993"] {
        v.push(case(
            &["--fallocate", val, "/tmp/hdparm-rs-never-created"],
            USAGE,
            &["fallocate: bad/missing block-count"],
        ));
    }
    for (ranges, msg) in [
        (
            "281474976710656:1",
            "trim-sector-ranges[0]: bad/missing sector value",
        ),
        ("-1:1", "trim-sector-ranges[0]: bad/missing sector value"),
        ("x:1", "trim-sector-ranges[0]: bad/missing sector value"),
        ("1", "trim-sector-ranges[0]: bad/missing sector count"),
        ("1:", "trim-sector-ranges[0]: bad/missing sector count"),
        ("1:0", "trim-sector-ranges[0]: bad/missing sector count"),
        ("1:65536", "trim-sector-ranges[0]: bad/missing sector count"),
        ("1:2 3:x", "trim-sector-ranges[1]: bad/missing sector count"),
    ] {
        let mut args = vec!["--trim-sector-ranges"];
        args.extend(ranges.split(' '));
        args.push("/dev/null");
        v.push(case(&args, USAGE, &[msg]));
    }
    // Our benchmark's options.
    for (opt, val) in [
        ("--bench-trials", "0"),
        ("--bench-trials", "1001"),
        ("--bench-trials", "x"),
        ("--bench-depth", "0"),
        ("--bench-depth", "1025"),
        ("--bench-bs", "0"),
        ("--bench-bs", "100"),
        ("--bench-bs", "3G"),
        ("--bench-seconds", "0"),
        ("--bench-seconds", "3601"),
        ("--bench-seconds", "-1"),
        ("--bench-seconds", "x"),
    ] {
        let msg = format!("{opt}: expected");
        v.push(case(
            &[opt, val, "/dev/null"],
            USAGE,
            &[&msg, &format!("got '{val}'")],
        ));
    }
    v
}

/// Transfer modes `-X` and `-p` do not know.
fn xfer_mode_cases() -> Vec<Case> {
    let mut v = Vec::new();
    for opt in ["-X", "-p"] {
        for mode in ["udma8", "pio9", "foo", "mdma", "udma55"] {
            let msg = format!("{opt}: bad transfer mode '{mode}'");
            v.push(case(&[opt, mode, "/dev/null"], USAGE, &[&msg]));
            v.push(case(
                &[&format!("{opt}{mode}"), "/dev/null"],
                USAGE,
                &[&msg],
            ));
        }
    }
    v
}

/// Unknown options, misplaced options and missing values.
fn grammar_cases() -> Vec<Case> {
    let mut v = vec![
        case::<&str, &str>(&[], USAGE, &["clue=6", "Usage:"]),
        case(&["-"], USAGE, &["clue=8"]),
        case(&["-a"], USAGE, &["clue=11"]),
        case(&["-q"], USAGE, &["clue=11"]),
        case(&["/dev/null", "-a"], USAGE, &["clue=11"]),
        case(&["-a", "--bogus", "/dev/null"], USAGE, &["clue=1"]),
        case(&["--Istdin", "/dev/null"], USAGE, &["clue=2"]),
        case(
            &["-a", "--sanitize-status", "/dev/null"],
            USAGE,
            &["clue=1"],
        ),
        case(
            &["--sanitize-status", "-a", "/dev/null"],
            USAGE,
            &["Excess flags given.", "clue=7"],
        ),
        case(&["--fibmap", "/x", "/y"], USAGE, &["clue=5"]),
        case(&["-a", "--fallocate", "5", "/x"], USAGE, &["clue=4"]),
        case(
            &["--write-sector", "0", "/dev/null", "/dev/null"],
            USAGE,
            &["clue=14"],
        ),
        case(
            &["--set-sector-size", "4096", "-a", "/dev/null"],
            USAGE,
            &["clue=16"],
        ),
        case(
            &["--trim-sector-ranges", "1:1", "-a", "/dev/null"],
            USAGE,
            &["clue=13"],
        ),
        case(
            &["--fwdownload", "/x", "-a", "/dev/null"],
            USAGE,
            &["clue=15"],
        ),
        case(&["--offset", "1.5", "-t", "/dev/null"], USAGE, &["clue=10"]),
        case(&["-S", "0x10", "/dev/null"], USAGE, &["clue=10"]),
    ];
    for l in "eGjlOoUx!,".chars() {
        v.push(case(
            &[format!("-{l}"), "/dev/null".into()],
            USAGE,
            &["clue=10"],
        ));
        v.push(case(
            &[format!("-a{l}"), "/dev/null".into()],
            USAGE,
            &["clue=10"],
        ));
    }
    for name in [
        "bogus",
        "format-track",
        "erase-sectors",
        "verbose-x",
        "Istdin-x",
    ] {
        let msg = format!("{name}: unknown flag");
        v.push(case(&[&format!("--{name}"), "/dev/null"], USAGE, &[&msg]));
    }
    // Missing values: the option's own message names it.
    for (args, msg) in [
        (
            &["--read-sector"][..],
            "read-sector: bad/missing sector value",
        ),
        (&["--offset"], "offset: GB offset for -t flag"),
        (&["--Iraw"], "Iraw: bad/missing filename parameter"),
        (&["--fibmap"], "fibmap: bad/missing filename parameter"),
        (&["--fallocate"], "fallocate: bad/missing block-count"),
        (
            &["--fallocate", "10"],
            "fallocate: bad/missing filename parameter",
        ),
        (
            &["--fwdownload"],
            "fwdownload: bad/missing filename parameter",
        ),
        (&["--bench-trials"], "--bench-trials: missing value"),
        (
            &["--bench-depth", "/dev/null"],
            "--bench-depth: missing value",
        ),
        (&["-S"], "-S: bad/missing standby-interval value"),
        (&["--dco-setmax"], "--dco-setmax: bad/missing sector value"),
        (&["--security-unlock"], "missing PASSWD"),
        (&["--security-erase", "pw"], "missing PASSWD"),
        (&["--sanitize-overwrite"], "missing PATTERN"),
    ] {
        v.push(case(args, USAGE, &[msg]));
    }
    // Passwords and patterns.
    for (args, msg) in [
        (
            &[
                "--security-unlock",
                "012345678901234567890123456789012",
                "/dev/null",
            ][..],
            "PASSWD too long",
        ),
        (
            &["--security-set-pass", "hex:12", "/dev/null"],
            "invalid PASSWD length",
        ),
        (
            &["--sanitize-overwrite", "hex:123", "/dev/null"],
            "invalid PATTERN length",
        ),
        (
            &["--sanitize-overwrite", "1234abcd", "/dev/null"],
            "invalid PATTERN format",
        ),
        (
            &["--sanitize-overwrite", "hex:1234567z", "/dev/null"],
            "bad char: 'z'",
        ),
        (
            &["--security-mode", "x", "/dev/null"],
            "ATA Security Commands:",
        ),
        (
            &["--user-master", "q", "/dev/null"],
            "ATA Security Commands:",
        ),
    ] {
        v.push(case(args, USAGE, &[msg]));
    }
    v
}

/// A regular file in the temp directory, removed on drop.
struct TempFile(PathBuf);

impl TempFile {
    fn new(tag: &str, bytes: u64) -> TempFile {
        let path = std::env::temp_dir().join(format!(
            "hdparm-rs-bad-input-{tag}-{}.img",
            std::process::id()
        ));
        let f = fs::File::create(&path).expect("create a temp file");
        f.set_len(bytes).expect("size the temp file");
        TempFile(path)
    }

    fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// Devices that do not exist or cannot be opened at all.
fn missing_device_cases(file: &str) -> Vec<Case> {
    let mut v = Vec::new();
    let not_dir = format!("{file}/x");
    let missing: [(&str, &str); 5] = [
        ("/dev/hdparm-rs-no-such-device", "No such file or directory"),
        ("/nonexistent/hdparm-rs/sda", "No such file or directory"),
        ("hdparm-rs-relative-missing", "No such file or directory"),
        ("", "No such file or directory"),
        (&not_dir, "Not a directory"),
    ];
    let option_sets: [&[&str]; 9] = [
        &[],
        &["-I"],
        &["-C"],
        &["-S5"],
        &["-y"],
        &["-t"],
        &["--read-sector", "0"],
        &["-X", "udma5"],
        &["-r1"],
    ];
    for (dev, why) in missing {
        // An empty name is shown quoted, so the line still says which device it was.
        let shown = if dev.is_empty() {
            "''".to_string()
        } else {
            dev.to_string()
        };
        for opts in option_sets {
            let mut args: Vec<&str> = opts.to_vec();
            args.push(dev);
            v.push(case(&args, CANNOT_OPEN, &[format!("{shown}: {why}")]));
        }
    }
    // `--` makes the next word a device even when it starts with a dash.
    v.push(case(
        &["--", "-a"],
        CANNOT_OPEN,
        &["-a: No such file or directory"],
    ));
    // Every device is processed; the worst class wins (cannot open beats not applicable).
    v.push(case(
        &["-C", "/dev/null", "/dev/hdparm-rs-no-such-device"],
        CANNOT_OPEN,
        &[
            "/dev/null: -C needs an ATA drive",
            "/dev/hdparm-rs-no-such-device: No such file or directory",
        ],
    ));
    v
}

/// ATA-only options, each with a substring of the line that reports it. `guarded` options are
/// refused by the guard before anything is opened.
fn ata_only_options() -> Vec<(Vec<&'static str>, &'static str)> {
    vec![
        (vec!["-I"], "no ATA IDENTIFY data"),
        (vec!["--Istdout"], "no ATA IDENTIFY data"),
        (vec!["-C"], "-C needs an ATA drive"),
        (vec!["-S5"], "HDIO_DRIVE_CMD(setidle) failed"),
        (vec!["-B"], "-B reads the drive's IDENTIFY data"),
        (vec!["-B254"], "HDIO_DRIVE_CMD failed"),
        (vec!["-W"], "-W reads the drive's IDENTIFY data"),
        (vec!["-W0"], "HDIO_DRIVE_CMD(setcache) failed"),
        (vec!["-M"], "-M reads the drive's IDENTIFY data"),
        (vec!["-A"], "-A reads the drive's IDENTIFY data"),
        (vec!["-R"], "-R reads the drive's IDENTIFY data"),
        (vec!["-y"], "HDIO_DRIVE_CMD(standby) failed"),
        (vec!["-Y"], "HDIO_DRIVE_CMD(sleep) failed"),
        (vec!["-F"], "HDIO_DRIVE_CMD(flushcache) failed"),
        (vec!["-H"], "HDIO_DRIVE_CMD(hitachisensecondition) failed"),
        (vec!["-Z"], "HDIO_DRIVE_CMD(seagatepwrsave) failed"),
        (vec!["-L1"], "HDIO_DRIVE_CMD(doorlock) failed"),
        (vec!["-P1"], "HDIO_DRIVE_CMD(setprefetch) failed"),
        (vec!["-D1"], "HDIO_DRIVE_CMD(defectmgmt) failed"),
        (vec!["-K1"], "HDIO_DRIVE_CMD(keepsettings) failed"),
        (vec!["-s0"], "HDIO_DRIVE_CMD(powerup_in_standby) failed"),
        (vec!["-X", "udma5"], "HDIO_DRIVE_CMD(setxfermode) failed"),
        (
            vec!["--idle-immediate"],
            "HDIO_DRIVE_CMD(idle_immediate) failed",
        ),
        (
            vec!["--security-freeze"],
            "HDIO_DRIVE_CMD(security_freeze) failed",
        ),
        (vec!["--dco-freeze"], "HDIO_DRIVE_CMD(dco_freeze) failed"),
        (vec!["-i"], "HDIO_GET_IDENTITY failed"),
        (
            vec!["--yes-i-know-what-i-am-doing", "-m16"],
            "HDIO_SET_MULTCOUNT failed",
        ),
    ]
}

/// ATA-only options on one non-ATA device; `why` is how the tool describes the device.
fn ata_only_cases(dev: &str, why: &str) -> Vec<Case> {
    let mut v = Vec::new();
    for (opts, what) in ata_only_options() {
        let mut args = opts.clone();
        args.push(dev);
        v.push(case(&args, NOT_APPLICABLE, &[what, why]));
    }
    // --read-sector first finds where the device starts (hdparm's raw-device check), which
    // needs geometry: only a character device gets as far as the ATA command.
    let read_sector = if why.contains("character device") {
        "FAILED:"
    } else {
        "HDIO_GETGEO failed"
    };
    v.push(case(
        &["--read-sector", "0", dev],
        NOT_APPLICABLE,
        &[read_sector, why],
    ));
    // -m is guarded only where it would go through SET MULTIPLE MODE (libata); elsewhere the
    // driver's refusal of HDIO_SET_MULTCOUNT is reported.
    v.push(case(
        &["-m16", dev],
        NOT_APPLICABLE,
        &["HDIO_SET_MULTCOUNT failed", why],
    ));
    v
}

/// Block-layer requests on things that are not block devices.
fn non_block_cases(dev: &str, why: &str) -> Vec<Case> {
    let mut v = Vec::new();
    for opts in [
        &[][..],
        &["-g"],
        &["-a"],
        &["-a64"],
        &["-r"],
        &["-r1"],
        &["-z"],
        &["-d1"],
        &["-c1"],
        &["-u1"],
        &["-k1"],
        &["-n1"],
        &["-b1"],
        &["-p4"],
        &["-w"],
    ] {
        let mut args = opts.to_vec();
        args.push(dev);
        v.push(case(&args, NOT_APPLICABLE, &[why]));
    }
    v
}

fn char_device_why(dev: &str) -> String {
    format!("{dev} is a character device, not a disk")
}

fn directory_why(dev: &str) -> String {
    format!("{dev} is a directory, not a device")
}

fn file_why(dev: &str) -> String {
    format!("{dev} is a regular file, not a device")
}

// ---------------------------------------------------------------------------------------------
// The tests that need no privilege.

#[test]
fn grammar_errors_are_usage_errors_that_name_the_option() {
    let mut cases = grammar_cases();
    cases.extend(short_range_cases());
    cases.extend(long_range_cases());
    cases.extend(xfer_mode_cases());
    check_all("grammar", &cases);
}

#[test]
fn devices_that_cannot_be_opened() {
    let file = TempFile::new("open", 1 << 20);
    check_all("cannot open", &missing_device_cases(&file.path()));
}

#[test]
fn ata_only_options_on_character_devices_directories_and_files() {
    let file = TempFile::new("ata", 1 << 20);
    let mut cases = Vec::new();
    for dev in ["/dev/null", "/dev/zero"] {
        cases.extend(ata_only_cases(dev, &char_device_why(dev)));
    }
    for dev in ["/tmp", "/"] {
        cases.extend(ata_only_cases(dev, &directory_why(dev)));
    }
    cases.extend(ata_only_cases(&file.path(), &file_why(&file.path())));
    check_all("ATA-only options", &cases);
}

#[test]
fn block_requests_on_character_devices_directories_and_files() {
    let file = TempFile::new("block", 1 << 20);
    let mut cases = Vec::new();
    for dev in ["/dev/null", "/dev/zero"] {
        cases.extend(non_block_cases(dev, &char_device_why(dev)));
    }
    for dev in ["/tmp", "/"] {
        cases.extend(non_block_cases(dev, &directory_why(dev)));
    }
    cases.extend(non_block_cases(&file.path(), &file_why(&file.path())));
    check_all("block requests", &cases);
}

#[test]
fn timing_what_cannot_be_timed() {
    let small = TempFile::new("small", 1 << 20);
    let empty = TempFile::new("empty", 0);
    let cases = vec![
        case(
            &["-t", "/tmp"],
            NOT_APPLICABLE,
            &["/tmp: -t times reads of a device or file"],
        ),
        case(
            &["-T", "/"],
            NOT_APPLICABLE,
            &["/: -T times reads of a device or file"],
        ),
        case(
            &["--bench", "/tmp"],
            NOT_APPLICABLE,
            &["/tmp: --bench times reads"],
        ),
        // A file smaller than one 2 MiB read, and an empty one: hdparm's read message, and a
        // line that says which device and option it was.
        case(
            &["-t", &small.path()],
            FAILED,
            &[
                "read(2097152) returned 1048576 bytes",
                &format!("{}: -t", small.path()),
            ],
        ),
        case(
            &["-T", &empty.path()],
            FAILED,
            &[
                "read() hit EOF - device too small",
                &format!("{}: -T", empty.path()),
            ],
        ),
        // A character device is no disk: -t says so instead of timing it.
        case(
            &["-t", "/dev/null"],
            NOT_APPLICABLE,
            &["/dev/null: -t times reads from a disk: /dev/null is a character device"],
        ),
        // O_DIRECT is refused by /dev/null: the line says that is why it could not be opened.
        case(
            &["--bench", "/dev/null"],
            Want::Failure,
            &["/dev/null", "O_DIRECT"],
        ),
        case(
            &["--direct", "-t", "/dev/null"],
            Want::Failure,
            &["/dev/null", "O_DIRECT"],
        ),
    ];
    check_all("timing", &cases);
}

/// `-q` hides the header and the informational lines, and `--json` puts the report on stdout
/// as data; neither may hide an error from stderr or turn it into success.
#[test]
fn quiet_and_json_keep_errors_on_stderr() {
    let mut cases = Vec::new();
    for modifier in ["-q", "--json"] {
        for c in ata_only_cases("/dev/null", &char_device_why("/dev/null")) {
            // `-q -W` (a get made quiet) asks for nothing at all, as in hdparm.
            let get_only = c.args.len() == 2
                && ["-B", "-W", "-M", "-A", "-R"]
                    .iter()
                    .any(|o| c.args[0] == *o);
            if modifier == "-q" && get_only {
                continue;
            }
            let mut args = vec![OsString::from(modifier)];
            args.extend(c.args);
            cases.push(Case { args, ..c });
        }
        cases.push(case(
            &[modifier, "-C", "/dev/hdparm-rs-no-such-device"],
            CANNOT_OPEN,
            &["/dev/hdparm-rs-no-such-device: No such file or directory"],
        ));
        cases.push(case(
            &[modifier, "-S300", "/dev/null"],
            USAGE,
            &["-S: bad/missing standby-interval value (0..255)"],
        ));
    }
    check_all("quiet and JSON", &cases);
}

/// The acceptance floor of the issue: at least 200 invocations without needing root.
#[test]
fn the_tables_hold_at_least_200_cases() {
    let n = grammar_cases().len()
        + short_range_cases().len()
        + long_range_cases().len()
        + xfer_mode_cases().len()
        + missing_device_cases("/tmp/f").len()
        + 5 * ata_only_cases("/dev/null", "").len()
        + 5 * non_block_cases("/dev/null", "").len()
        + 2 * (ata_only_cases("/dev/null", "").len() + 2)
        - 5;
    eprintln!("{n} table cases (plus the loop-device ones under root)");
    assert!(n >= 200, "only {n} cases");
}

// ---------------------------------------------------------------------------------------------
// Loop devices (root).

/// A loop device over a file in the temp directory, detached and deleted on drop.
struct LoopDev {
    dev: String,
    backing: TempFile,
    /// Read-ahead in sectors when attached, put back on drop.
    readahead: String,
}

impl LoopDev {
    fn new(tag: &str, bytes: u64) -> Result<LoopDev, String> {
        let backing = TempFile::new(&format!("loop-{tag}"), bytes);
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing.0)
            .output()
            .map_err(|e| format!("cannot run losetup: {e}"))?;
        if !out.status.success() {
            return Err(format!(
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        // A BLKROSET by an earlier user of this loop number survives its detach: start
        // writable, whatever the last test left.
        let _ = Command::new("blockdev").args(["--setrw", &dev]).status();
        let readahead = Command::new("blockdev")
            .args(["--getra", &dev])
            .output()
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
            .unwrap_or_default();
        Ok(LoopDev {
            dev,
            backing,
            readahead,
        })
    }

    /// The first 512 bytes, read through the loop device itself.
    fn first_sector(&self) -> Vec<u8> {
        let mut f = fs::File::open(&self.dev).expect("open the loop device");
        let mut buf = vec![0u8; 512];
        f.read_exact(&mut buf).expect("read sector 0");
        buf
    }

    /// Writes a recognisable pattern into sector 0 and returns it.
    fn write_pattern(&self) -> Vec<u8> {
        let pattern: Vec<u8> = (0..512u32).map(|i| (i * 7 + 3) as u8).collect();
        let mut f = fs::OpenOptions::new()
            .write(true)
            .open(&self.dev)
            .expect("open the loop device for writing");
        f.seek(SeekFrom::Start(0)).expect("seek");
        f.write_all(&pattern).expect("write the pattern");
        f.sync_all().expect("sync");
        pattern
    }

    /// The read-only flag and read-ahead, as the kernel shows them in sysfs.
    fn settings(&self) -> (String, String) {
        let name = Path::new(&self.dev)
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let read = |attr: &str| {
            fs::read_to_string(format!("/sys/block/{name}/{attr}"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|e| format!("unreadable: {e}"))
        };
        (read("ro"), read("queue/read_ahead_kb"))
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        // The read-only flag set with BLKROSET outlives the detach and would make the next
        // user of this loop number read-only: put it and the read-ahead back first.
        let _ = Command::new("blockdev")
            .args(["--setrw", &self.dev])
            .status();
        if !self.readahead.is_empty() {
            let _ = Command::new("blockdev")
                .args(["--setra", &self.readahead, &self.dev])
                .status();
        }
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = &self.backing;
    }
}

/// A loop device, or `None` after saying why (a failure under `HDPARM_RS_REQUIRE_ALL=1`).
fn loop_dev(test: &str, tag: &str) -> Option<LoopDev> {
    let why = if !common::is_root() {
        "not running as root (loop devices need it)".to_string()
    } else {
        match LoopDev::new(tag, 8 << 20) {
            Ok(lo) => return Some(lo),
            Err(e) => format!("cannot attach a loop device: {e}"),
        }
    };
    common::skip(test, &why);
    None
}

fn loop_why(lo: &LoopDev) -> String {
    format!("{} is a loop device", lo.dev)
}

#[test]
fn ata_only_options_on_a_loop_device() {
    let Some(lo) = loop_dev("ata_only_options_on_a_loop_device", "ata") else {
        return;
    };
    let why = loop_why(&lo);
    let mut cases = ata_only_cases(&lo.dev, &why);
    for c in &mut cases {
        if matches!(c.want, Want::Status(25)) {
            c.needles.push("no ATA interface".into());
        }
    }
    // A loop device is a block device: -t past its end is a bad value.
    cases.push(case(
        &["--offset", "1000", "-t", &lo.dev],
        USAGE,
        &[
            "lseek() failed: Invalid argument",
            &format!("{}: --offset 1000", lo.dev),
        ],
    ));
    check_all("ATA-only options on a loop device", &cases);
}

/// Every guarded operation, refused without its guard flags, leaves sector 0 as it was and
/// prints nothing on stdout (no device header: the refusal comes before anything runs).
#[test]
fn refused_guards_change_nothing() {
    let Some(lo) = loop_dev("refused_guards_change_nothing", "guard") else {
        return;
    };
    let pattern = lo.write_pattern();
    let before = lo.settings();
    let dev = lo.dev.as_str();
    let yes = "--yes-i-know-what-i-am-doing";
    let fw = TempFile::new("fw", 4096);
    let fw = fw.path();
    let cases = vec![
        case(
            &["--write-sector", "0", dev],
            GUARD,
            &[
                "Use of --write-sector is VERY DANGEROUS.",
                "Please supply the --yes-i-know-what-i-am-doing flag",
            ],
        ),
        case(
            &["--repair-sector", "0", dev],
            GUARD,
            &["Use of --write-sector is VERY DANGEROUS."],
        ),
        case(
            &["--make-bad-sector", "0", dev],
            GUARD,
            &["Use of --make-bad-sector is VERY DANGEROUS."],
        ),
        case(
            &["--make-bad-sector", "f0", dev],
            GUARD,
            &["Use of --make-bad-sector is VERY DANGEROUS."],
        ),
        case(
            &["--trim-sector-ranges", "0:8", dev],
            GUARD,
            &[
                "Use of --trim-sector-ranges is EXTREMELY DANGEROUS.",
                "--please-destroy-my-drive",
            ],
        ),
        case(
            &[yes, "--trim-sector-ranges", "0:8", dev],
            GUARD,
            &["Use of --trim-sector-ranges is EXTREMELY DANGEROUS."],
        ),
        case(
            &["--set-sector-size", "4096", dev],
            GUARD,
            &["Use of --set-sector-size is EXTREMELY DANGEROUS."],
        ),
        case(
            &["--sanitize-block-erase", dev],
            GUARD,
            &["Use of --sanitize is VERY DANGEROUS."],
        ),
        case(
            &["--sanitize-crypto-scramble", dev],
            GUARD,
            &["Use of --sanitize is VERY DANGEROUS."],
        ),
        case(
            &["--sanitize-overwrite", "hex:00000000", dev],
            GUARD,
            &["Use of --sanitize is VERY DANGEROUS."],
        ),
        case(
            &["--fwdownload", &fw, dev],
            GUARD,
            &["Use of --fwdownload is VERY DANGEROUS."],
        ),
        case(
            &[yes, "--fwdownload", &fw, dev],
            GUARD,
            &["Use of --fwdownload is EXTREMELY DANGEROUS."],
        ),
        case(
            &["--dco-restore", dev],
            GUARD,
            &["Use of --dco-restore is VERY DANGEROUS."],
        ),
        case(&["-s1", dev], GUARD, &["Use of -s1 is VERY DANGEROUS."]),
        case(&["-J5", dev], GUARD, &["Use of -J is EXTREMELY DANGEROUS."]),
        case(
            &["-r1", "--make-bad-sector", "5", dev],
            GUARD,
            &["Use of --make-bad-sector is VERY DANGEROUS."],
        ),
    ];
    let mut cases = cases;
    cases.extend(guard_cases_from_definitions(dev, &fw));
    let mut failures = Vec::new();
    for c in &cases {
        match check(c) {
            Err(e) => failures.push(e),
            Ok(done) if !done.stdout.is_empty() => failures.push(format!(
                "{}: printed on stdout although it was refused: {:?}",
                describe(&c.args),
                String::from_utf8_lossy(&done.stdout)
            )),
            Ok(_) => {}
        }
        if lo.first_sector() != pattern {
            failures.push(format!("{}: sector 0 changed", describe(&c.args)));
            lo.write_pattern();
        }
        if lo.settings() != before {
            failures.push(format!(
                "{}: settings changed from {:?} to {:?}",
                describe(&c.args),
                before,
                lo.settings()
            ));
        }
    }
    eprintln!("guards: {} cases, {} problems", cases.len(), failures.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// One refusal per guarded option of the definitions: without any guard flag, and for options
/// that need both, with only the first. The option gets a valid value of its kind.
fn guard_cases_from_definitions(dev: &str, fw: &str) -> Vec<Case> {
    let yes = "--yes-i-know-what-i-am-doing";
    let mut v = Vec::new();
    for def in OPTIONS.iter().filter(|d| d.guard != Guard::None) {
        // -m is guarded only where SET MULTIPLE MODE would be sent (libata), not on a loop
        // device; the ATA-only cases cover it.
        if def.short == Some(b'm') {
            continue;
        }
        // -N and --dco-setmax are guarded only when IDENTIFY shows that the drive would shrink,
        // which a loop device cannot show; the step tests (src/exec/steps/tests/hpa.rs) cover
        // them.
        if def.short == Some(b'N') || def.long == Some("dco-setmax") {
            continue;
        }
        let mut args = vec![def.spelling()];
        match def.value {
            Value::None => {}
            Value::Decimal { max, .. } => args[0].push_str(&max.to_string()),
            Value::Number { min, .. } => args.push(min.to_string()),
            Value::Filename => args.push(fw.to_string()),
            Value::Pattern => args.push("hex:00000000".into()),
            Value::TrimRanges => args.push("0:8".into()),
            other => panic!("{}: no sample value for {other:?}", def.spelling()),
        }
        args.push(dev.to_string());
        let (first, flag) = match def.guard {
            Guard::PleaseDestroy => ("EXTREMELY DANGEROUS.", "--please-destroy-my-drive"),
            _ => ("VERY DANGEROUS.", yes),
        };
        v.push(case(&args, GUARD, &[first, flag]));
        if def.guard == Guard::Both {
            let mut with_yes = vec![yes.to_string()];
            with_yes.extend(args.iter().cloned());
            v.push(case(
                &with_yes,
                GUARD,
                &["EXTREMELY DANGEROUS.", "--please-destroy-my-drive"],
            ));
        }
    }
    v
}

/// A refusal for the second device of a command line means the first device got nothing
/// either: the guards are checked for the whole invocation before anything runs.
#[test]
fn refused_guard_on_the_second_device_spares_the_first() {
    let test = "refused_guard_on_the_second_device_spares_the_first";
    let Some(first) = loop_dev(test, "first") else {
        return;
    };
    let Some(second) = loop_dev(test, "second") else {
        return;
    };
    let pattern_first = first.write_pattern();
    let pattern_second = second.write_pattern();
    let before = (first.settings(), second.settings());
    // Flags accumulate from left to right, so only the second device carries the guarded
    // request; the first would get -r1 and a read-ahead change.
    let cases = vec![
        case(
            &[
                "-r1",
                "-a64",
                &first.dev,
                "--make-bad-sector",
                "0",
                &second.dev,
            ],
            GUARD,
            &["Use of --make-bad-sector is VERY DANGEROUS."],
        ),
        case(
            &["-r1", "-a64", &first.dev, "-s1", &second.dev],
            GUARD,
            &["Use of -s1 is VERY DANGEROUS."],
        ),
        case(
            &["-r1", &first.dev, "-J5", &second.dev],
            GUARD,
            &["Use of -J is EXTREMELY DANGEROUS."],
        ),
        case(
            &["-a64", &first.dev, "--make-bad-sector", "5", &second.dev],
            GUARD,
            &["Use of --make-bad-sector is VERY DANGEROUS."],
        ),
    ];
    let mut failures = Vec::new();
    for c in &cases {
        match check(c) {
            Err(e) => failures.push(e),
            Ok(done) if !done.stdout.is_empty() => failures.push(format!(
                "{}: the first device was processed: {:?}",
                describe(&c.args),
                String::from_utf8_lossy(&done.stdout)
            )),
            Ok(_) => {}
        }
        let now = (first.settings(), second.settings());
        if now != before {
            failures.push(format!(
                "{}: settings changed from {:?} to {:?}",
                describe(&c.args),
                before,
                now
            ));
            // Put them back so the next case starts clean.
            let _ = Command::new("blockdev")
                .args(["--setrw", &first.dev])
                .status();
        }
        if first.first_sector() != pattern_first || second.first_sector() != pattern_second {
            failures.push(format!("{}: a sector 0 changed", describe(&c.args)));
        }
    }
    // The control: the first device's part alone does change what the check looks at, so
    // an unchanged reading above means nothing was done, not that nothing could be seen.
    match run(&[
        OsString::from("-r1"),
        OsString::from("-a64"),
        OsString::from(&first.dev),
    ]) {
        Ok(done) if done.status == Some(0) => {
            if first.settings() == before.0 {
                failures.push(format!(
                    "-r1 -a64 {} left {:?} as it was",
                    first.dev, before.0
                ));
            }
        }
        Ok(done) => failures.push(format!(
            "-r1 -a64 {} failed: {:?} {}",
            first.dev,
            done.status,
            String::from_utf8_lossy(&done.stderr)
        )),
        Err(e) => failures.push(e),
    }
    eprintln!(
        "two-device guards: {} cases, {} problems",
        cases.len(),
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
