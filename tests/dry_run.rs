//! `--dry-run` through the binary on a loop device: the plan names what would be done, and
//! nothing is done. The proof is [`no_option_acts_under_dry_run`]: every option of the registry
//! (`hdparm::cli::defs::OPTIONS`, each with a valid value), and every mode, runs under
//! `--dry-run` inside strace, and any state-changing system call fails the test: a write to
//! anything but stdout and stderr, an open for writing or creating, a read of the device's
//! data, an ioctl not on the read-only list below (SG_IO and the NVMe passthrough included: a
//! dry run answers IDENTIFY from the kernel's copy, so any SG_IO at all is a command sent),
//! fallocate, truncate, sync, and creating, renaming or removing a file. The device's
//! read-ahead, read-only flag and contents, and the scratch directory, are compared before and
//! after as well.

mod common;

use common::{is_root, our_hdparm, skip, Loop};
use hdparm::cli::defs::{Role, Value, OPTIONS};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

#[test]
fn a_dry_run_changes_nothing_and_says_what_it_would_do() {
    const TEST: &str = "dry_run";
    if !is_root() {
        return skip(TEST, "needs root (loop devices)");
    }
    let Some(disk) = Loop::new("dry-run", 8) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    let (readahead, readonly) = (disk.readahead(), disk.readonly());
    let out = Command::new(our_hdparm())
        .args(["--dry-run", "-a", "1024", "-r1", "-W0", "-y"])
        .arg(&disk.dev)
        .output()
        .expect("run our hdparm");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The real run would fail -W0 and -y (no ATA interface): so does the plan, with its class.
    assert_eq!(out.status.code(), Some(25), "{stdout}{stderr}");
    assert!(
        stdout.contains(" dry run: nothing was sent to the drive\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" would call BLKRASET 1024 (read-ahead, sectors)\n"),
        "{stdout}"
    );
    assert!(
        stdout.contains(" would call BLKROSET 1 (read-only flag)\n"),
        "{stdout}"
    );
    // A loop device has no ATA: the plan says the ATA commands would fail, and why.
    assert!(stdout.contains("ATA commands would fail: "), "{stdout}");
    assert!(
        stdout.contains(" a real run would fail: HDIO_DRIVE_CMD(standby) failed: "),
        "{stdout}"
    );
    assert!(
        stderr.contains(": --dry-run: a real run would fail: "),
        "{stderr}"
    );
    assert_eq!(disk.readahead(), readahead, "read-ahead changed");
    assert_eq!(disk.readonly(), readonly, "read-only flag changed");
}

// ---- the system-call check -------------------------------------------------------------

/// The ioctls a dry run may make: each only reads (the kernel's answers the plan is made
/// with). Anything else, decoded or not, is a violation.
const READ_ONLY_IOCTLS: &[&str] = &[
    // the terminal: is stderr one (progress lines)
    "TCGETS",
    "TIOCGWINSZ",
    // block layer gets
    "BLKRAGET",
    "BLKROGET",
    "BLKGETSIZE",
    "BLKGETSIZE64",
    "BLKSSZGET",
    "BLKPBSZGET",
    "BLKBSZGET",
    "BLKIOMIN",
    "BLKIOOPT",
    "BLKALIGNOFF",
    "BLKROTATIONAL",
    "BLKDISCARDZEROES",
    "HDIO_GETGEO",
    // HDIO_GETGEO_BIG (linux/hdreg.h 0x0330), which strace does not name
    "_IOC(_IOC_NONE, 0x3, 0x30, 0)",
    // the old IDE driver's gets, and the kernel's copy of IDENTIFY
    "HDIO_GET_IDENTITY",
    "HDIO_GET_32BIT",
    "HDIO_GET_MULTCOUNT",
    "HDIO_GET_UNMASKINTR",
    "HDIO_GET_DMA",
    "HDIO_GET_KEEPSETTINGS",
    "HDIO_GET_NOWERR",
    "HDIO_GET_BUSSTATE",
    "HDIO_GET_QDMA",
    "HDIO_GET_WCACHE",
    "HDIO_GET_ACOUSTIC",
    "HDIO_GET_ADDRESS",
    // what a loop device is backed by; an NVMe node's namespace
    "LOOP_GET_STATUS",
    "LOOP_GET_STATUS64",
    "NVME_IOCTL_ID",
    // file maps (read-only)
    "FIGETBSZ",
    "FIBMAP",
    "FS_IOC_FIEMAP",
    "FS_IOC_GETFLAGS",
];

/// System calls that change state whatever their arguments.
const FORBIDDEN_CALLS: &[&str] = &[
    "sendfile",
    "sendfile64",
    "copy_file_range",
    "splice",
    "tee",
    "vmsplice",
    "fallocate",
    "ftruncate",
    "truncate",
    "unlink",
    "unlinkat",
    "rename",
    "renameat",
    "renameat2",
    "link",
    "linkat",
    "symlink",
    "symlinkat",
    "mkdir",
    "mkdirat",
    "rmdir",
    "mknod",
    "mknodat",
    "chmod",
    "fchmod",
    "fchmodat",
    "fchmodat2",
    "chown",
    "fchown",
    "fchownat",
    "lchown",
    "utime",
    "utimes",
    "utimensat",
    "futimesat",
    "setxattr",
    "lsetxattr",
    "fsetxattr",
    "removexattr",
    "lremovexattr",
    "fremovexattr",
    "sync",
    "syncfs",
    "fsync",
    "fdatasync",
    "sync_file_range",
    "mount",
    "umount2",
    "swapon",
    "swapoff",
    "io_uring_setup",
    "io_uring_enter",
    "dup2",
    "dup3",
    "creat",
];

/// The open flags that write or create.
const WRITE_OPEN_FLAGS: &[&str] = &["O_WRONLY", "O_RDWR", "O_CREAT", "O_TRUNC", "O_TMPFILE"];

/// One strace line (`PID name(args) = result`, from `strace -f -qq -yy`): its system call and
/// arguments, or None for a line that is not a call (a resumed half, a signal, an exit).
fn call_of(line: &str) -> Option<(&str, &str)> {
    let rest = line.split_once(' ').map_or(line, |(_, r)| r).trim_start();
    if rest.starts_with('<') || rest.starts_with("---") || rest.starts_with("+++") {
        return None;
    }
    let open = rest.find('(')?;
    let name = &rest[..open];
    if name.is_empty() || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
        return None;
    }
    Some((name, &rest[open + 1..]))
}

/// The first argument: a file descriptor as `-yy` shows it (`3</dev/loop0<block 7:0>>`).
fn first_arg(args: &str) -> &str {
    // The decoration may hold commas (paths): the fd ends at the `>` that closes it.
    if let Some(open) = args.find('<') {
        if args[..open].chars().all(|c| c.is_ascii_digit()) {
            let mut depth = 0;
            for (i, c) in args.char_indices() {
                match c {
                    '<' => depth += 1,
                    '>' => {
                        depth -= 1;
                        if depth == 0 {
                            return &args[..=i];
                        }
                    }
                    _ => {}
                }
            }
        }
    }
    args.split([',', ')']).next().unwrap_or("").trim()
}

/// Why a system call changes state, or None when it only reads.
fn violation(name: &str, args: &str) -> Option<String> {
    let fd = first_arg(args);
    let fd_number = fd.split('<').next().unwrap_or("");
    match name {
        _ if FORBIDDEN_CALLS.contains(&name) => Some(format!("{name} changes state")),
        "write" | "pwrite64" | "writev" | "pwritev" | "pwritev2" => {
            (!matches!(fd_number, "1" | "2")).then(|| format!("{name} to {fd}"))
        }
        "read" | "pread64" | "readv" | "preadv" | "preadv2" => fd
            .contains("<block ")
            .then(|| format!("{name} of the device's data ({fd})")),
        "open" | "openat" | "openat2" => WRITE_OPEN_FLAGS
            .iter()
            .find(|flag| args.contains(*flag))
            .map(|flag| format!("{name} with {flag}: {}", args.trim_end())),
        "ioctl" => {
            let rest = args[fd.len()..].trim_start_matches(',').trim_start();
            let request = if rest.starts_with("_IOC(") {
                rest.find(')').map_or(rest, |end| &rest[..=end])
            } else {
                rest.split([',', ')']).next().unwrap_or("").trim()
            };
            (!READ_ONLY_IOCTLS.contains(&request))
                .then(|| format!("ioctl {request} on {fd}: not a read-only ioctl"))
        }
        _ => None,
    }
}

/// Every violation in a trace.
fn violations(trace: &str) -> Vec<String> {
    trace
        .lines()
        .filter_map(|line| {
            let (name, args) = call_of(line)?;
            violation(name, args).map(|why| format!("{why}\n      {}", line.trim()))
        })
        .collect()
}

#[test]
fn the_checker_catches_what_acts_and_passes_what_reads() {
    let acting = [
        "77 ioctl(3</dev/sda<block 8:0>>, SG_IO, {interface_id='S', ...}) = 0",
        "77 ioctl(3</dev/loop0<block 7:0>>, BLKRASET, 8) = 0",
        "77 ioctl(3</dev/loop0<block 7:0>>, BLKFLSBUF) = 0",
        "77 ioctl(3</dev/loop0<block 7:0>>, BLKDISCARD, [0, 4096]) = 0",
        "77 ioctl(3</dev/hda<block 3:0>>, HDIO_SET_DMA, 1) = 0",
        "77 ioctl(3</dev/hda<block 3:0>>, HDIO_DRIVE_CMD, 0x7ffc) = 0",
        "77 ioctl(3</dev/nvme0n1<block 259:0>>, NVME_IOCTL_ADMIN_CMD, {opcode=0x6}) = 0",
        "77 ioctl(3</dev/loop0<block 7:0>>, _IOC(_IOC_NONE, 0x12, 0x99, 0), 0) = 0",
        "77 openat(AT_FDCWD</tmp>, \"/tmp/x.prom\", O_WRONLY|O_CREAT|O_TRUNC|O_CLOEXEC, 0666) = 3</tmp/x.prom>",
        "77 openat(AT_FDCWD</tmp>, \"/dev/loop0\", O_RDWR|O_NONBLOCK|O_CLOEXEC) = 3</dev/loop0<block 7:0>>",
        "77 write(3</dev/loop0<block 7:0>>, \"\\0\\0\"..., 512) = 512",
        "77 pwrite64(4</tmp/f>, \"x\", 1, 0) = 1",
        "77 pread64(3</dev/loop0<block 7:0>>, \"\"..., 1048576, 0) = 1048576",
        "77 fallocate(3</tmp/f>, 0, 0, 16384) = 0",
        "77 renameat2(AT_FDCWD</tmp>, \".x.1\", AT_FDCWD</tmp>, \"x\", 0) = 0",
        "77 unlink(\"/tmp/x\") = 0",
        "77 sync() = 0",
    ];
    for line in acting {
        assert_eq!(violations(line).len(), 1, "not caught: {line}");
    }
    let reading = [
        "77 ioctl(3</dev/loop0<block 7:0>>, BLKRAGET, [256]) = 0",
        "77 ioctl(3</dev/loop0<block 7:0>>, HDIO_GET_IDENTITY, 0x7ff) = -1 EINVAL (Invalid argument)",
        "77 ioctl(3</dev/loop0<block 7:0>>, _IOC(_IOC_NONE, 0x3, 0x30, 0), 0x7ff) = -1 EINVAL (Invalid argument)",
        "77 ioctl(2<pipe:[1234]>, TCGETS, 0x7ffc) = -1 ENOTTY (Inappropriate ioctl for device)",
        "77 openat(AT_FDCWD</tmp>, \"/dev/loop0\", O_RDONLY|O_NONBLOCK|O_CLOEXEC) = 3</dev/loop0<block 7:0>>",
        "77 read(4</sys/devices/virtual/block/loop0/size>, \"131072\\n\", 4096) = 7",
        "77 write(1<pipe:[99]>, \"\\n/dev/loop0:\\n\"..., 14) = 14",
        "77 write(2<pipe:[98]>, \"x\", 1) = 1",
        "77 lseek(3</dev/loop0<block 7:0>>, 0, SEEK_END) = 67108864",
        "77 <... ioctl resumed>, 0x7ff) = 0",
        "77 +++ exited with 0 +++",
    ];
    for line in reading {
        assert_eq!(violations(line), Vec::<String>::new(), "{line}");
    }
}

/// What a command line under `--dry-run` must end with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Expect {
    /// A plan (or a text, such as `-h`): any exit but 22.
    Plan,
    /// Refused as a usage error (22): the mode has no dry run.
    Refused,
}

/// One command line: the words after the program name, the options it stands for, and what
/// it must end with.
struct Case {
    words: Vec<String>,
    expect: Expect,
}

/// The words that give an option a valid value (the value itself, and for a modifier an action
/// it modifies).
fn with_value(def: &hdparm::cli::defs::OptionDef, scratch: &Path) -> Vec<String> {
    let spelled = def.spelling();
    let s = |x: &str| x.to_string();
    let path = |name: &str| scratch.join(name).display().to_string();
    let mut words = vec![spelled.clone()];
    match def.value {
        Value::None => {}
        Value::Decimal { max, .. } => words[0].push_str(&max.to_string()),
        Value::Number { min, .. } => words.push(min.max(1).to_string()),
        Value::TransferMode => words.push(s("udma5")),
        Value::Filename if spelled.starts_with("--fwdownload") => words.push(path("fw.bin")),
        Value::Filename if spelled == "--config" => words.push(path("hdparm.conf")),
        Value::Filename => words.push(path("identify.bin")),
        Value::KibThenFilename => {
            words.push(s("64"));
            words.push(path("fallocated"));
        }
        Value::Password => words.push(s("secret")),
        Value::Pattern => words.push(s("hex:0000abcd")),
        Value::TrimRanges => words.push(s("0:8")),
        Value::Letter { choices } => words.push(choices[..1].to_string()),
        Value::Word { example } => words.push(s(example)),
        Value::ApplyArguments => {
            words.push(s("--config"));
            words.push(path("hdparm.conf"));
        }
        Value::ExperimentArguments => {
            for w in ["-a8", "-a256", "--trials", "2", "--plot"] {
                words.push(s(w));
            }
            words.push(path("experiment.svg"));
        }
        Value::PrometheusArguments => {
            words.push(path("metrics.prom"));
            words.push(s("-t"));
        }
        Value::AdviseArguments => words.push(s("--wake")),
        Value::SurfaceArguments => {
            for w in ["--zones", "4", "--csv"] {
                words.push(s(w));
            }
            words.push(path("surface.csv"));
            words.push(s("--plot"));
            words.push(path("surface.svg"));
        }
    }
    // A modifier needs something to modify.
    let action: &[&str] = match def.long {
        Some("security-prompt-for-password") => &["--security-unlock"],
        Some("security-mode") | Some("user-master") => &["--security-set-pass", "secret"],
        Some("sanitize-overwrite-passes") => &["--sanitize-overwrite", "hex:00000000"],
        Some("wait") => &["--sanitize-status"],
        Some("config") => &["--apply"],
        Some("yes-i-know-what-i-am-doing") => &["-N", "1000"],
        Some("please-destroy-my-drive") => &["--trim-sector-ranges", "0:8"],
        Some("direct") | Some("offset") => &["-t"],
        _ if def.role == Role::Modifier => &["-I", "-a"],
        _ => &[],
    };
    words.extend(action.iter().map(|w| w.to_string()));
    words
}

/// Every option of the registry, and the modes and combinations a user would run.
fn cases(dev: &str, scratch: &Path) -> Vec<Case> {
    let mut cases = Vec::new();
    let refused = [
        "--check",
        "--advise",
        "--prometheus",
        "--fibmap",
        "--Istdin",
    ];
    for def in OPTIONS {
        let mut words = vec!["--dry-run".to_string()];
        words.extend(with_value(def, scratch));
        let spelled = def.spelling();
        // Modes that name their own device, or none.
        let takes_device = !matches!(
            def.long,
            Some("fallocate" | "fibmap" | "Istdin" | "generate" | "help" | "security-help")
        ) && !matches!(def.short, Some(b'h' | b'V'));
        // --fibmap on a file of the host's file system would open the host's disk: it is
        // given a name that does not exist, so that even a --fibmap that ran opens nothing.
        if def.long == Some("fibmap") {
            words.pop();
            words.push(scratch.join("no-such-file").display().to_string());
        }
        if takes_device {
            words.push(dev.to_string());
        }
        let expect = if refused.contains(&spelled.as_str()) || def.role == Role::Obsolete {
            Expect::Refused
        } else {
            Expect::Plan
        };
        cases.push(Case { words, expect });
    }
    let line = |words: &[&str], expect| Case {
        words: words
            .iter()
            .map(|w| {
                w.replace("DEV", dev)
                    .replace("SCRATCH", &scratch.display().to_string())
            })
            .collect(),
        expect,
    };
    cases.extend([
        // everything a device can be asked at once, gets and sets
        line(
            &[
                "--dry-run",
                "-a1024",
                "-A0",
                "-B200",
                "-c1",
                "-d1",
                "-D1",
                "-E4",
                "-f",
                "-F",
                "-g",
                "-H",
                "-i",
                "-I",
                "-k1",
                "-K1",
                "-L1",
                "-m8",
                "-M128",
                "-n1",
                "-P16",
                "-Q4",
                "-r1",
                "-R1",
                "-s1",
                "-S12",
                "-u1",
                "-W0",
                "-y",
                "-Y",
                "-z",
                "-Z",
                "--idle-immediate",
                "--idle-unload",
                "--dco-freeze",
                "--dco-identify",
                "--security-freeze",
                "--read-sector",
                "1",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(&["--dry-run", "-tT", "DEV"], Expect::Plan),
        line(
            &["--dry-run", "-t", "--direct", "--offset", "0", "DEV"],
            Expect::Plan,
        ),
        line(
            &["--dry-run", "--bench", "--bench-depth", "4", "DEV"],
            Expect::Plan,
        ),
        line(
            &["--dry-run", "--json", "-tT", "--bench", "-W0", "DEV"],
            Expect::Plan,
        ),
        line(
            &["--dry-run", "--trim-sector-ranges-stdin", "DEV"],
            Expect::Plan,
        ),
        line(
            &[
                "--dry-run",
                "--please-destroy-my-drive",
                "--trim-sector-ranges",
                "0:8",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--dry-run",
                "--yes-i-know-what-i-am-doing",
                "--sanitize-block-erase",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--dry-run",
                "--yes-i-know-what-i-am-doing",
                "--write-sector",
                "5",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--dry-run",
                "--please-destroy-my-drive",
                "--set-sector-size",
                "4096",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &["--dry-run", "--security-erase-enhanced", "secret", "DEV"],
            Expect::Plan,
        ),
        line(
            &["--dry-run", "--Iraw", "SCRATCH/raw.bin", "DEV", "DEV"],
            Expect::Plan,
        ),
        // the modes, --dry-run before and after their word
        line(
            &[
                "--dry-run",
                "--apply",
                "--config",
                "SCRATCH/hdparm.conf",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--apply",
                "--config",
                "SCRATCH/hdparm.conf",
                "--dry-run",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--check",
                "--config",
                "SCRATCH/hdparm.conf",
                "--dry-run",
                "DEV",
            ],
            Expect::Refused,
        ),
        line(
            &[
                "--dry-run",
                "--yes-i-know-what-i-am-doing",
                "--experiment",
                "-a8 -W0",
                "-a256 -W1",
                "-X udma5",
                "--keep",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--experiment",
                "-a8",
                "-a256",
                "--bench",
                "--dry-run",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(
            &[
                "--json",
                "--experiment",
                "-a8",
                "-a256",
                "--direct",
                "--dry-run",
                "DEV",
            ],
            Expect::Plan,
        ),
        line(&["--surface-quick", "--dry-run", "DEV"], Expect::Plan),
        line(&["--json", "--dry-run", "--surface", "DEV"], Expect::Plan),
        line(
            &["--dry-run", "--fallocate", "1", "SCRATCH/existing"],
            Expect::Plan,
        ),
        line(&["--dry-run", "--prometheus", "DEV"], Expect::Refused),
        line(
            &["--prometheus", "SCRATCH/m.prom", "--dry-run", "DEV"],
            Expect::Refused,
        ),
        line(&["--advise", "--dry-run", "DEV"], Expect::Refused),
        // flags apply to the devices after them: a --dry-run after a device would leave that
        // device to a real run
        line(&["-a8", "-W0", "DEV", "--dry-run", "DEV"], Expect::Refused),
    ]);
    cases
}

/// The names in a directory, and each regular file's bytes.
fn snapshot(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut entries: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(Result::ok)
                .map(|e| {
                    let bytes = std::fs::read(e.path()).unwrap_or_default();
                    (e.file_name().to_string_lossy().into_owned(), bytes)
                })
                .collect()
        })
        .unwrap_or_default();
    entries.sort();
    entries
}

#[test]
fn no_option_acts_under_dry_run() {
    const TEST: &str = "no_option_acts_under_dry_run";
    if !is_root() {
        return skip(TEST, "needs root (loop devices)");
    }
    if Command::new("strace").arg("-V").output().is_err() {
        return skip(
            TEST,
            "strace is not installed (scripts/test-all installs it)",
        );
    }
    let Some(disk) = Loop::new("dry-run-strace", 16) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    let scratch: PathBuf =
        std::env::temp_dir().join(format!("hdparm-rs-dry-run-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&scratch);
    std::fs::create_dir_all(&scratch).expect("scratch directory");
    // What the options read: a firmware image, an hdparm.conf for the device, a file that
    // exists; and data on the device, to see that it stays.
    std::fs::write(scratch.join("fw.bin"), vec![0x5a; 1024]).expect("fw.bin");
    std::fs::write(scratch.join("existing"), b"keep me\n").expect("existing");
    std::fs::write(
        scratch.join("hdparm.conf"),
        format!(
            "{} {{\n\tread_ahead_sect = 64\n\twrite_cache = off\n\tapm = 254\n}}\n",
            disk.dev
        ),
    )
    .expect("hdparm.conf");
    let pattern: Vec<u8> = (0..1 << 20).map(|i: u32| (i % 251) as u8).collect();
    std::fs::write(&disk.file, &pattern).expect("write the backing file");
    let before = (disk.readahead(), disk.readonly(), snapshot(&scratch));
    let trace_dir =
        std::env::temp_dir().join(format!("hdparm-rs-dry-run-traces-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&trace_dir);
    std::fs::create_dir_all(&trace_dir).expect("trace directory");
    let cases = cases(&disk.dev, &scratch);
    // Every option of the registry is on some command line.
    for def in OPTIONS {
        let spelled = def.spelling();
        assert!(
            cases.iter().any(|c| c.words.contains(&spelled)
                || c.words
                    .iter()
                    .any(|w| w.starts_with(&spelled) && spelled.len() == 2)),
            "{spelled} is on no command line"
        );
    }
    let mut failures = Vec::new();
    for (i, case) in cases.iter().enumerate() {
        let trace = trace_dir.join(format!("{i}.trace"));
        let mut child = Command::new("strace")
            .args(["-f", "-qq", "-yy", "-o"])
            .arg(&trace)
            .arg(our_hdparm())
            .args(&case.words)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("run strace");
        if let Some(mut stdin) = child.stdin.take() {
            use std::io::Write;
            let _ = stdin.write_all(b"0:8\n16:8\n");
        }
        let out = child.wait_with_output().expect("strace ends");
        let shown = case.words.join(" ");
        let text = std::fs::read_to_string(&trace).unwrap_or_default();
        if text.is_empty() {
            failures.push(format!("{shown}: strace wrote no trace"));
            continue;
        }
        for v in violations(&text) {
            failures.push(format!("{shown}:\n    {v}"));
        }
        let status = out.status.code();
        let stderr = String::from_utf8_lossy(&out.stderr);
        match case.expect {
            Expect::Refused if status != Some(22) => failures.push(format!(
                "{shown}: exit {status:?}, not 22 (this mode has no dry run): {stderr}"
            )),
            Expect::Plan if status == Some(22) => failures.push(format!(
                "{shown}: exit 22, a usage error, where a plan was expected: {stderr}"
            )),
            _ => {}
        }
        if disk.readahead() != before.0 || disk.readonly() != before.1 {
            failures.push(format!("{shown}: changed the read-ahead or read-only flag"));
            common::blockdev(&["--setra", &before.0, &disk.dev]);
            common::blockdev(&["--setrw", &disk.dev]);
        }
    }
    let after = snapshot(&scratch);
    if after != before.2 {
        let names = |s: &[(String, Vec<u8>)]| s.iter().map(|(n, _)| n.clone()).collect::<Vec<_>>();
        failures.push(format!(
            "the scratch directory changed: {:?} became {:?}",
            names(&before.2),
            names(&after)
        ));
    }
    let data = std::fs::read(&disk.file).expect("read the backing file");
    if data.len() < pattern.len() || data[..pattern.len()] != pattern[..] {
        failures.push("the device's data changed".to_string());
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!(
        "{} command lines under --dry-run, {} options of the registry; traces in {}",
        cases.len(),
        OPTIONS.len(),
        trace_dir.display()
    );
    assert!(
        failures.is_empty(),
        "{} problems under --dry-run:\n  {}",
        failures.len(),
        failures.join("\n  ")
    );
    let _ = std::fs::remove_dir_all(&trace_dir);
}

/// Runs our binary; stdout, stderr, exit status.
fn ours(words: &[&str]) -> (String, String, Option<i32>) {
    let out = Command::new(our_hdparm())
        .args(words)
        .stdin(Stdio::null())
        .output()
        .expect("run our hdparm");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code(),
    )
}

/// The modes print what they would do, as a user reads it, and those that only read refuse.
#[test]
fn the_modes_print_their_plans_or_refuse() {
    const TEST: &str = "the_modes_print_their_plans_or_refuse";
    if !is_root() {
        return skip(TEST, "needs root (loop devices)");
    }
    let Some(disk) = Loop::new("dry-run-modes", 16) else {
        return skip(TEST, "cannot attach a loop device (losetup)");
    };
    let dev = disk.dev.as_str();
    let readahead = disk.readahead();

    let (stdout, stderr, status) = ours(&[
        "--dry-run",
        "--experiment",
        "-a8",
        "-a 256",
        "--trials",
        "3",
        dev,
    ]);
    assert_eq!(status, Some(0), "{stdout}{stderr}");
    for line in [
        format!("{dev}: dry run of --experiment: nothing was set, read or timed\n"),
        " 2 arms, 3 trials each in ABBA blocks after 1 warm-up trial of arm 1: 7 trials".into(),
        " arm 1 '-a8', applied before each of its 4 trials (the warm-up included), then read back:\n  would call BLKRASET 8 (read-ahead, sectors)\n".into(),
        " arm 2 '-a 256', applied before each of its 3 trials, then read back:\n  would call BLKRASET 256 (read-ahead, sectors)\n".into(),
        " at the end: -a set back to the values read first, and read back\n".into(),
    ] {
        assert!(stdout.contains(&line), "{line:?} not in\n{stdout}");
    }
    assert_eq!(disk.readahead(), readahead, "read-ahead changed");
    // An arm the device cannot take: the real run would stop there (failed, 5).
    let (stdout, stderr, status) = ours(&["--experiment", "-W0", "-W1", "--dry-run", dev]);
    assert_eq!(status, Some(5), "{stdout}{stderr}");
    assert!(
        stderr.contains(": --dry-run: a real run of --experiment would stop at '-W': "),
        "{stderr}"
    );

    let (stdout, stderr, status) = ours(&["--dry-run", "--surface", "--zones", "4", dev]);
    assert_eq!(status, Some(0), "{stderr}");
    assert_eq!(
        stdout,
        format!("{dev}:\n dry run: nothing was read or written\n would time reads of 16777216 bytes in 4 zones of 4194304 bytes (all of each, the last zone taking the rest), sequential in 1024 KiB blocks with O_DIRECT, then 4 reads of 4 KiB at random offsets in each zone\n")
    );

    let scratch = std::env::temp_dir().join(format!("hdparm-rs-dry-modes-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&scratch);
    let new = scratch.join("new").display().to_string();
    let (stdout, _, status) = ours(&["--dry-run", "--fallocate", "16", &new]);
    assert_eq!(status, Some(0));
    assert_eq!(stdout, format!(" dry run: nothing was created or written\n would write {new}: a new file (mode 0600) with 16 KiB (16384 bytes) allocated and none written (fallocate), then synced\n"));
    assert!(!Path::new(&new).exists(), "{new} was created");
    // On a file that exists the real run fails (class failed), and so does its plan.
    std::fs::write(&new, b"x").expect("a file");
    let (stdout, stderr, status) = ours(&["--dry-run", "--fallocate", "16", &new]);
    assert_eq!(status, Some(5), "{stdout}{stderr}");
    assert!(stdout.contains(" a real run would fail: "), "{stdout}");
    assert!(stdout.contains("File exists"), "{stdout}");
    let _ = std::fs::remove_dir_all(&scratch);

    for words in [
        &["--dry-run", "--advise", dev][..],
        &["--advise", "--dry-run", dev],
        &["--dry-run", "--prometheus", dev],
        &["-t", "--prometheus", "--dry-run", dev],
        &["--dry-run", "--check", dev],
        &["--check", "--dry-run", dev],
        &["--dry-run", "--fibmap", "/nonexistent/file"],
        &["--dry-run", "--Istdin"],
    ] {
        let (stdout, stderr, status) = ours(words);
        assert_eq!(status, Some(22), "{words:?}: {stdout}{stderr}");
        assert!(
            stderr.contains("has no dry run: it changes nothing, but ")
                && stderr.contains("run it without --dry-run"),
            "{words:?}: {stderr}"
        );
        assert_eq!(stdout, "", "{words:?}");
    }
}

/// The --bench plan counts its trials in words a user reads: "1 trial", not "1 trials"
/// (issue 19). A plain file is enough: a dry run reads no data.
#[test]
fn the_bench_plan_says_one_trial() {
    let file = std::env::temp_dir().join(format!("hdparm-rs-dry-bench-{}", std::process::id()));
    std::fs::write(&file, vec![0u8; 1 << 20]).expect("scratch file");
    let path = file.to_string_lossy().into_owned();
    for (trials, want) in [
        ("1", "--bench: 1 trial of 3.0 s"),
        ("2", "--bench: 2 trials of"),
    ] {
        let (stdout, stderr, status) =
            ours(&["--dry-run", "--bench", "--bench-trials", trials, &path]);
        assert_eq!(status, Some(0), "{stdout}{stderr}");
        assert!(stdout.contains(want), "{want:?} not in\n{stdout}");
    }
    let _ = std::fs::remove_file(&file);
}
