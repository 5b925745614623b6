//! Helpers shared by the integration tests: finding the reference hdparm (and checking that it
//! is 9.65), the rule that a test which cannot run says why and fails instead when
//! `HDPARM_RS_REQUIRE_ALL=1` (CI), the rows of DIFFERENCES.md, and the stderr normalisation
//! that the differential tests apply before comparing (written down in DIFFERENCES.md's header).
#![allow(dead_code)]

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// What `hdparm -V` prints for the one reference version: every difference in DIFFERENCES.md
/// was judged against it, so another version would make the comparisons meaningless.
pub const REFERENCE_VERSION: &[u8] = b"hdparm v9.65\n";

/// The drive kinds tests/vm/run.sh can give a guest (tests/vm/README.md, "Drives and
/// profiles"), which DIFFERENCES.md's `vm:` and `client:` rows name.
pub const VM_KINDS: &[&str] = &[
    "ide-hd",
    "ide-cd",
    "ahci-hd",
    "ahci-cd",
    "nvme",
    "virtio-scsi",
    "virtio-blk",
    // drive model: tools/drive-model behind TCMU + tcm_loop (profiles model, clients)
    "model",
];

/// True when every component must be present (CI): a missing one is a failure, not a skip.
/// Tests that are opt-in because they are slow (the VM bench) also run when it is set.
pub fn require_all() -> bool {
    std::env::var("HDPARM_RS_REQUIRE_ALL").is_ok_and(|v| v == "1")
}

/// The one way a test that cannot run says so: `test` names it, `reason` says which component
/// is missing. Returns normally (the caller returns or moves on) unless CI requires
/// everything (`HDPARM_RS_REQUIRE_ALL=1`), in which case it panics with the reason.
pub fn skip(test: &str, reason: &str) {
    if require_all() {
        panic!(
            "{test}: cannot run: {reason} (HDPARM_RS_REQUIRE_ALL=1 turns this skip into a failure)"
        );
    }
    eprintln!("SKIPPED {test}: {reason}");
}

/// Checks that `path` is hdparm 9.65 by what its `-V` prints.
pub fn check_reference_version(path: &Path) -> Result<(), String> {
    let out = std::process::Command::new(path)
        .arg("-V")
        .output()
        .map_err(|e| format!("cannot run {} -V: {e}", path.display()))?;
    if out.stdout == REFERENCE_VERSION {
        Ok(())
    } else {
        Err(format!(
            "{} -V prints {:?}, not {:?}: the differential tests compare against hdparm 9.65 only",
            path.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(REFERENCE_VERSION)
        ))
    }
}

/// The reference hdparm 9.65 (Debian's package), or `None` when it is not installed. A binary
/// that is installed but is another version fails the test: comparing against it would judge
/// our output by the wrong reference.
pub fn reference_hdparm() -> Option<PathBuf> {
    let path = ["/usr/sbin/hdparm", "/sbin/hdparm"]
        .iter()
        .map(PathBuf::from)
        .find(|p| p.exists())?;
    if let Err(e) = check_reference_version(&path) {
        panic!("{e}");
    }
    Some(path)
}

/// Our binary, as built by cargo for this test run.
pub fn our_hdparm() -> PathBuf {
    PathBuf::from(env!("CARGO_BIN_EXE_hdparm"))
}

/// An empty directory of the test's own, /tmp/hdparm-rs-TAG-PID (made afresh).
pub fn scratch(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch dir");
    dir
}

/// True when running as root.
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(1) == Some("0"))
        })
        .unwrap_or(false)
}

/// One row of DIFFERENCES.md: its key (first column, backquotes removed), the streams its
/// second column names (`stdout`, `stderr`, `exit`) and its reason (the third column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub key: String,
    pub streams: BTreeSet<String>,
    pub why: String,
}

/// The rows of a DIFFERENCES.md text (the header row `| key | ...` and the `|---|` line are not
/// rows).
pub fn parse_rows(text: &str) -> Vec<Row> {
    let mut rows = Vec::new();
    for line in text.lines().filter(|l| l.starts_with('|')) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "| key | differs in | why |" splits into ["", key, streams, why, ""]
        let (Some(key), Some(streams)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let key = key.trim_matches('`');
        if key == "key" || key.starts_with("---") {
            continue;
        }
        // the reason is everything after the second column (a `|` in it split it too)
        let why = cells
            .get(3..cells.len().saturating_sub(1))
            .map_or_else(String::new, |c| c.join("|"));
        rows.push(Row {
            key: key.to_string(),
            why,
            streams: streams
                .split(|c: char| c == ',' || c.is_whitespace())
                .filter(|s| !s.is_empty())
                .map(str::to_string)
                .collect(),
        });
    }
    rows
}

/// The rows of the repository's DIFFERENCES.md.
pub fn difference_rows() -> Vec<Row> {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/DIFFERENCES.md");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    parse_rows(&text)
}

/// The stderr normalisation of the differential tests (DIFFERENCES.md's header says the same):
///
/// 1. the program path: each tool's path as it was started (`/sbin/hdparm`,
///    `/opt/hdparm-rs/hdparm`, `target/debug/hdparm`) becomes `hdparm`, wherever it appears;
/// 2. our added context: a line of ours that is one of hdparm's lines followed by ` (` ... `)`
///    counts as that line of hdparm's (`lseek() failed: Invalid argument (/dev/loop0:
///    --offset 1000 GB is past the end of the device)` against `lseek() failed: Invalid
///    argument`).
///
/// Nothing else is forgiven: a reworded message, a line hdparm prints and we do not (or the
/// reverse), lines in another order, all still differ, and need a DIFFERENCES.md row naming
/// `stderr`.
/// Returns the two texts after normalisation; equal texts mean stderr does not differ.
pub fn normalise_stderr(
    theirs: &[u8],
    their_prog: &str,
    ours: &[u8],
    our_prog: &str,
) -> (Vec<u8>, Vec<u8>) {
    let theirs = replace_all(theirs, their_prog.as_bytes(), b"hdparm");
    let ours = replace_all(ours, our_prog.as_bytes(), b"hdparm");
    let their_lines: Vec<&[u8]> = theirs.split_inclusive(|&b| b == b'\n').collect();
    let mut out = Vec::with_capacity(ours.len());
    for line in ours.split_inclusive(|&b| b == b'\n') {
        match their_lines.iter().find(|t| is_theirs_with_context(t, line)) {
            Some(t) => out.extend_from_slice(t),
            None => out.extend_from_slice(line),
        }
    }
    (theirs, out)
}

/// `ours` is `theirs` with ` (...)` added before the line end.
fn is_theirs_with_context(theirs: &[u8], ours: &[u8]) -> bool {
    let (t, t_nl) = split_newline(theirs);
    let (o, o_nl) = split_newline(ours);
    t_nl == o_nl
        && !t.is_empty()
        && o.len() > t.len() + 3
        && o.starts_with(t)
        && o[t.len()..].starts_with(b" (")
        && o.ends_with(b")")
}

fn split_newline(line: &[u8]) -> (&[u8], bool) {
    match line.strip_suffix(b"\n") {
        Some(l) => (l, true),
        None => (line, false),
    }
}

fn replace_all(text: &[u8], from: &[u8], to: &[u8]) -> Vec<u8> {
    if from.is_empty() || from == to {
        return text.to_vec();
    }
    let mut out = Vec::with_capacity(text.len());
    let mut i = 0;
    while i < text.len() {
        if text[i..].starts_with(from) {
            out.extend_from_slice(to);
            i += from.len();
        } else {
            out.push(text[i]);
            i += 1;
        }
    }
    out
}

/// Whether Debian's promtool is there (a skip that says so when it is not).
pub fn have_promtool(test: &str) -> bool {
    let there = std::process::Command::new("promtool")
        .arg("--version")
        .output()
        .is_ok();
    if !there {
        skip(test, "promtool is missing: apt-get install prometheus");
    }
    there
}

/// `promtool check metrics` on a textfile: Ok, or what promtool said.
pub fn promtool_accepts(text: &str) -> Result<(), String> {
    let mut child = std::process::Command::new("promtool")
        .args(["check", "metrics"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .map_err(|e| format!("promtool: {e}"))?;
    use std::io::Write;
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(text.as_bytes())
        .map_err(|e| e.to_string())?;
    let out = child.wait_with_output().map_err(|e| e.to_string())?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ))
    }
}

/// Tests of the helpers themselves, compiled into every test binary that includes this module
/// (cheap, and each binary then checks the rules it relies on).
/// A loop device over a sparse file in the temp directory, writable and at read-ahead 256 when
/// attached; its read-only flag is cleared, and it is detached and its file deleted, on drop.
pub struct Loop {
    pub dev: String,
    pub file: PathBuf,
}

impl Loop {
    /// Attaches one (root and losetup needed); None when it cannot.
    pub fn new(tag: &str, size_mib: u64) -> Option<Loop> {
        let file =
            std::env::temp_dir().join(format!("hdparm-rs-loop-{tag}-{}.img", std::process::id()));
        std::fs::File::create(&file)
            .ok()?
            .set_len(size_mib << 20)
            .ok()?;
        let out = std::process::Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&file)
            .output()
            .ok()?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&file);
            return None;
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        blockdev(&["--setrw", &dev]);
        blockdev(&["--setra", "256", &dev]);
        Some(Loop { dev, file })
    }

    /// Its read-ahead in sectors, as blockdev reads it.
    pub fn readahead(&self) -> String {
        blockdev(&["--getra", &self.dev])
    }

    /// Its read-only flag, as blockdev reads it.
    pub fn readonly(&self) -> String {
        blockdev(&["--getro", &self.dev])
    }
}

impl Drop for Loop {
    fn drop(&mut self) {
        // A read-only flag outlives the loop device's attachment: clear it first.
        blockdev(&["--setrw", &self.dev]);
        blockdev(&["--setra", "256", &self.dev]);
        let _ = std::process::Command::new("losetup")
            .args(["-d", &self.dev])
            .status();
        let _ = std::fs::remove_file(&self.file);
    }
}

/// Makes `command`'s process take the stop signals (SIGINT, SIGTERM, SIGHUP, SIGQUIT) with
/// their default actions, whatever this test process inherited (a shell runs background jobs
/// with SIGINT and SIGQUIT ignored, nohup ignores SIGHUP, and a program keeps what it was
/// started with ignored), and dump no core (SIGQUIT's default action would).
#[allow(unsafe_code)]
pub fn take_stop_signals(command: &mut std::process::Command) -> &mut std::process::Command {
    use std::os::unix::process::CommandExt;
    // SAFETY: between fork and exec only async-signal-safe calls are made (signal,
    // setrlimit), on values owned by the closure; nothing is allocated.
    unsafe {
        command.pre_exec(|| {
            for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP, libc::SIGQUIT] {
                libc::signal(signal, libc::SIG_DFL);
            }
            let none = libc::rlimit {
                rlim_cur: 0,
                rlim_max: 0,
            };
            libc::setrlimit(libc::RLIMIT_CORE, &none);
            Ok(())
        })
    }
}

/// Sends signal `name` (`TERM`, `INT`...) to `child` with kill(1); asserts that it was sent.
pub fn send_signal(child: &std::process::Child, name: &str) {
    let sent = std::process::Command::new("kill")
        .args([&format!("-{name}"), &child.id().to_string()])
        .status()
        .is_ok_and(|s| s.success());
    assert!(sent, "kill -{name}");
}

/// Runs blockdev; its stdout, trimmed.
pub fn blockdev(args: &[&str]) -> String {
    std::process::Command::new("blockdev")
        .args(args)
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default()
}

#[cfg(test)]
mod helper_tests {
    use super::*;

    #[test]
    fn rows_carry_their_streams() {
        let rows = parse_rows(
            "text | not a row\n| key | differs in | why |\n|---|---|---|\n\
             | `vm:nvme,virtio-blk:I` | stdout, exit | x |\n| args:V | stdout | y |\n",
        );
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0].key, "vm:nvme,virtio-blk:I");
        assert_eq!(
            rows[0]
                .streams
                .iter()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            vec!["exit", "stdout"]
        );
        assert_eq!(rows[1].key, "args:V");
        assert_eq!((rows[0].why.as_str(), rows[1].why.as_str()), ("x", "y"));
    }

    #[test]
    fn added_context_and_program_path_are_normalised_nothing_else() {
        let n = |t: &str, o: &str| {
            let (t, o) = normalise_stderr(t.as_bytes(), "/sbin/hdparm", o.as_bytes(), "/x/hdparm");
            t == o
        };
        assert!(n(
            "lseek() failed: Invalid argument\n",
            "lseek() failed: Invalid argument (/dev/loop0: --offset 1000 GB is past the end)\n"
        ));
        assert!(n("/sbin/hdparm: bad\n", "/x/hdparm: bad\n"));
        // the context must follow the whole of hdparm's line, and the order still counts
        assert!(!n(
            "lseek() failed: Invalid\n",
            "lseek() failed: Invalid argument\n"
        ));
        assert!(n("a\nb\n", "a (x)\nb (y)\n"));
        assert!(!n("a\nb\n", "b (x)\na\n"));
        assert!(!n(
            "x failed: Input/output error\n",
            "x failed: command aborted\n"
        ));
        // a line only one tool prints still differs
        assert!(!n("", "note (x)\n"));
        assert!(!n("a\n", "a (x)\nextra\n"));
        // an empty parenthesis adds no context
        assert!(!n("a\n", "a ()\n"));
    }
}
