//! The VM bench: boots a Debian kernel in QEMU with emulated IDE, AHCI, ATAPI, NVMe,
//! virtio-scsi and virtio-blk drives (`tests/vm/run.sh`), runs every scenario of
//! `tests/vm/scenarios/<profile>.tsv` with Debian's hdparm and with ours, and compares them.
//!
//! Per scenario and drive kind the two tools must agree on stdout, stderr (after the
//! normalisation of `common::normalise_stderr`: the program path, and our added ` (...)`
//! context) and the exit status. A difference fails the test unless DIFFERENCES.md has a row
//! `vm:<kinds>:<scenario>` (kinds: `*` or a comma list) naming every stream that differs.
//! It fails too when a row matched nothing it names: for each drive kind the row names (every
//! kind the scenario ran on, for `*`), each stream it names must have differed there in this
//! run, so an excuse cannot outlive its reason. Rows are judged only where their scenario ran
//! (a profile left out of `HDPARM_RS_VM_PROFILES` judges none of its rows).
//! Never excused: a step that ran into the guest's per-command time limit (a hang), a step
//! missing from the results, the VM not finishing, a drive kind missing, a reference hdparm
//! in the guest that is not 9.65.
//!
//! It boots VMs (about four minutes on two cores under TCG), so it runs only when asked:
//! `HDPARM_RS_VM=1`, `HDPARM_RS_REQUIRE_ALL=1` (CI), or `HDPARM_RS_VM_RESULTS=DIR` (compare
//! results already in DIR/<profile>/ without booting). Without QEMU, the kernel package or the
//! reference hdparm it says why and skips, or fails under `HDPARM_RS_REQUIRE_ALL=1`.
//! Other knobs: `HDPARM_RS_BIN` (our binary; default: `cargo build --release`),
//! `HDPARM_RS_VM_PROFILES` (default `main,faults,unplug,model`).
//!
//! Profile `model` (tools/drive-model, an ATA drive behind the kernel's SCSI target) adds a
//! fourth stream, `model`: the model control steps (`@...`), among them the `@end` step the
//! guest appends to each run (the ATA commands the model received and its end state).
//!
//! This file only reads results and runs the bench script; it never opens a host disk.

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The tool name the guest records for Debian's hdparm and for ours.
const REF_TOOL: &str = "hdparm";
const OUR_TOOL: &str = "hdparm-rs";
/// Where the guest puts each tool (tests/vm/guest/init): the program paths that the stderr
/// normalisation replaces by `hdparm`.
const REF_PATH: &str = "/sbin/hdparm";
const OUR_PATH: &str = "/opt/hdparm-rs/hdparm";
/// run.sh's exit status when a component (QEMU, kernel, hdparm, root for apt) is missing.
const EXIT_UNAVAILABLE: i32 = 77;
/// The drive kinds run.sh can give a guest: a DIFFERENCES.md key that names another kind is a
/// typo that would never match, and fails.
const KINDS: &[&str] = common::VM_KINDS;
/// The streams a DIFFERENCES.md row can name.
const STREAMS: &[&str] = &["stdout", "stderr", "exit", "model"];

/// One command's result as the guest framed it.
#[derive(Debug, Clone, Default)]
struct Step {
    cmd: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    exit: i32,
    /// wall-clock time the guest measured for the step
    seconds: f64,
}

/// A profile's results: the framed records, the markers and what the profile expected.
#[derive(Debug, Default)]
struct Results {
    /// (kind, scenario, tool) -> steps in order
    steps: BTreeMap<(String, String, String), Vec<Step>>,
    markers: Vec<String>,
    truncated: bool,
    /// records whose framing did not check out (bytes lost on the serial port)
    damaged: Vec<String>,
}

impl Results {
    /// A housekeeping record of the guest (`_boot <name> sh`), e.g. `cmdline`.
    fn boot(&self, name: &str) -> Option<&Step> {
        self.steps
            .get(&("_boot".to_string(), name.to_string(), "sh".to_string()))
            .and_then(|s| s.first())
    }

    /// The guest's per-command time limit (`bench.timeout=` on the kernel command line, which
    /// the guest records as `_boot cmdline`).
    fn command_timeout(&self) -> Option<f64> {
        let cmdline = String::from_utf8_lossy(&self.boot("cmdline")?.stdout).into_owned();
        cmdline
            .split_whitespace()
            .find_map(|w| w.strip_prefix("bench.timeout="))
            .and_then(|v| v.parse().ok())
    }
}

/// One line of a scenario list.
#[derive(Debug)]
struct Scenario {
    id: String,
    kinds: Vec<String>,
    timing: bool,
}

impl Scenario {
    fn runs_on(&self, kind: &str) -> bool {
        self.kinds.iter().any(|k| k == "*" || k == kind)
    }
}

/// Parses the framed results.log written by tests/vm/guest/init:
/// `@@M WORD text` lines and `@@R kind id tool step exit seconds n_cmd n_out n_err n_dmesg`
/// headers followed by that many bytes of command, stdout, stderr and kernel messages.
fn parse_results(log: &[u8]) -> Results {
    let mut r = Results::default();
    let mut pos = 0;
    while pos < log.len() {
        let end = log[pos..]
            .iter()
            .position(|&b| b == b'\n')
            .map_or(log.len(), |i| pos + i);
        let line = String::from_utf8_lossy(&log[pos..end]).into_owned();
        pos = end + 1;
        if let Some(m) = line.strip_prefix("@@M ") {
            r.markers.push(m.to_string());
            continue;
        }
        let Some(h) = line.strip_prefix("@@R ") else {
            continue; // a blank separator, or noise before the guest took the port over
        };
        let f: Vec<&str> = h.split(' ').collect();
        let lens: Option<Vec<usize>> = f
            .get(6..10)
            .map(|l| l.iter().map(|n| n.parse().unwrap_or(usize::MAX)).collect());
        let (Some(lens), Some(exit)) = (lens, f.get(4).and_then(|e| e.parse().ok())) else {
            r.truncated = true;
            break;
        };
        let total: usize = lens.iter().fold(0usize, |a, &l| a.saturating_add(l));
        if total > log.len() - pos.min(log.len()) {
            r.truncated = true;
            break;
        }
        let mut blob = |n: usize| {
            let b = log[pos..pos + n].to_vec();
            pos += n;
            b
        };
        let cmd = String::from_utf8_lossy(&blob(lens[0])).into_owned();
        let stdout = blob(lens[1]);
        let stderr = blob(lens[2]);
        let _dmesg = blob(lens[3]);
        let seconds = f[5].parse().unwrap_or(f64::NAN);
        let name = format!("{} {} {} step {}", f[0], f[1], f[2], f[3]);
        // each record ends with a newline, and a tool's steps arrive numbered 1, 2, 3 ...
        if log.get(pos) != Some(&b'\n') {
            r.damaged.push(format!("{name}: no end of record"));
        }
        let steps = r
            .steps
            .entry((f[0].to_string(), f[1].to_string(), f[2].to_string()))
            .or_default();
        if f[3] != (steps.len() + 1).to_string() {
            r.damaged
                .push(format!("{name}: after step {}", steps.len()));
        }
        steps.push(Step {
            cmd,
            stdout,
            stderr,
            exit,
            seconds,
        });
    }
    r
}

/// Parses a scenario list: `id TAB kinds TAB steps [TAB options]`, `#` comments. The one
/// option is `timing`; any other word is an error (stderr is always compared, so the old
/// `stderr` option would now be a no-op that a reader could take for a rule).
fn parse_scenarios(text: &str) -> Result<Vec<Scenario>, String> {
    let mut out = Vec::new();
    for l in text
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let f: Vec<&str> = l.split('\t').collect();
        let opts: Vec<&str> = f
            .get(3)
            .map_or(vec![], |o| o.split(',').filter(|o| !o.is_empty()).collect());
        // `writes` (issue 12 oracle, profile model): the guest's closing step is `@end
        // --writes-only`, the command log without pure reads; the host compares it as any.
        if let Some(bad) = opts.iter().find(|o| **o != "timing" && **o != "writes") {
            return Err(format!("scenario {}: unknown option {bad:?}", f[0]));
        }
        out.push(Scenario {
            id: f[0].to_string(),
            kinds: f
                .get(1)
                .map_or(vec![], |k| k.split(',').map(str::to_string).collect()),
            timing: opts.contains(&"timing"),
        });
    }
    Ok(out)
}

/// A `vm:` row of DIFFERENCES.md: `vm:<kinds>:<id>`, kinds `*` (every kind the scenario runs
/// on) or a comma list of [`KINDS`]; an id ending in `*` matches every scenario id that starts
/// so.
#[derive(Debug, Clone)]
struct VmRow {
    key: String,
    /// `None` for `*`
    kinds: Option<BTreeSet<String>>,
    id: String,
    streams: BTreeSet<String>,
    /// the row's reason is the guest's kernel, not either tool: see [`OnlyWhere`]
    only_where: Option<OnlyWhere>,
}

/// A row whose reason says "only where hdparm's `-r0` prints `readonly      =  1 (on)`"
/// applies only to the scenario runs where a step of hdparm's with that option (the step's
/// command without its ` DEV`) printed that text: the kernel decides that one and the
/// kernel that linux-image-amd64 names changes under us (Linux 6.1.0-48's sr let `-r0` clear
/// a CD-ROM's read-only flag, 6.1.0-57's does not). Where it did not print it, the row
/// neither excuses a difference nor is judged stale; where it did, both as any row.
#[derive(Debug, Clone, PartialEq, Eq)]
struct OnlyWhere {
    option: String,
    prints: String,
}

/// How a reason opens its condition ([`OnlyWhere`]).
const ONLY_WHERE: &str = "only where hdparm's `";

impl OnlyWhere {
    /// The condition a reason states, `Ok(None)` where it states none, `Err` where it opens
    /// one in another form (a typo must not turn the row into an unconditional one).
    fn parse(why: &str) -> Result<Option<Self>, ()> {
        let Some(at) = why.find(ONLY_WHERE) else {
            return Ok(None);
        };
        let rest = &why[at + ONLY_WHERE.len()..];
        let (option, rest) = rest.split_once('`').ok_or(())?;
        let rest = rest.strip_prefix(" prints `").ok_or(())?;
        let (prints, _) = rest.split_once('`').ok_or(())?;
        if option.is_empty() || prints.is_empty() {
            return Err(());
        }
        Ok(Some(Self {
            option: option.to_string(),
            prints: prints.to_string(),
        }))
    }

    fn holds_in(&self, theirs: &[Step]) -> bool {
        theirs.iter().any(|t| {
            t.cmd.strip_suffix(" DEV") == Some(self.option.as_str())
                && String::from_utf8_lossy(&t.stdout).contains(&self.prints)
        })
    }
}

impl VmRow {
    fn matches_kind(&self, kind: &str) -> bool {
        self.kinds.as_ref().map_or(true, |k| k.contains(kind))
    }

    /// Whether the row applies to a run in which hdparm's steps were `theirs` ([`OnlyWhere`]).
    fn holds_in(&self, theirs: &[Step]) -> bool {
        self.only_where
            .as_ref()
            .map_or(true, |c| c.holds_in(theirs))
    }

    fn matches_id(&self, id: &str) -> bool {
        match self.id.strip_suffix('*') {
            Some(prefix) => id.starts_with(prefix),
            None => id == self.id,
        }
    }

    /// A list of kinds beats `*` and a shorter list a longer one; then an exact id beats a
    /// prefix, and a longer prefix a shorter one.
    fn specificity(&self) -> usize {
        let kinds = self.kinds.as_ref().map_or(0, |k| 100 - k.len());
        kinds * 10_000 + usize::from(!self.id.ends_with('*')) * 1_000 + self.id.len()
    }
}

/// The `vm:` rows of DIFFERENCES.md, or the rows whose key or streams are malformed.
fn parse_differences(text: &str) -> Result<Vec<VmRow>, Vec<String>> {
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for row in common::parse_rows(text) {
        let Some(rest) = row.key.strip_prefix("vm:") else {
            continue;
        };
        let Some((kinds, id)) = rest.split_once(':') else {
            bad.push(format!("{}: no `:<scenario>` after the kinds", row.key));
            continue;
        };
        let kinds = if kinds == "*" {
            None
        } else {
            let list: BTreeSet<String> = kinds.split(',').map(str::to_string).collect();
            for k in list.iter().filter(|k| !KINDS.contains(&k.as_str())) {
                bad.push(format!("{}: unknown drive kind {k:?}", row.key));
            }
            Some(list)
        };
        for s in row
            .streams
            .iter()
            .filter(|s| !STREAMS.contains(&s.as_str()))
        {
            bad.push(format!("{}: unknown stream {s:?}", row.key));
        }
        if row.streams.is_empty() || id.is_empty() {
            bad.push(format!("{}: names no stream or no scenario", row.key));
        }
        let only_where = OnlyWhere::parse(&row.why).unwrap_or_else(|()| {
            bad.push(format!(
                "{}: a reason with {ONLY_WHERE:?} must go on \"...` prints `TEXT`\"",
                row.key
            ));
            None
        });
        let id = id.to_string();
        rows.push(VmRow {
            key: row.key,
            kinds,
            id,
            streams: row.streams,
            only_where,
        });
    }
    if bad.is_empty() {
        Ok(rows)
    } else {
        Err(bad)
    }
}

/// Timing lines ("Timing cached reads: 1234 MB in 2.00 seconds = 617.00 MB/sec") never
/// repeat: each number, with the blanks that pad it to a width, becomes " #", so the
/// comparison checks only the shape of the output.
fn mask_timing(out: &[u8]) -> Vec<u8> {
    let text = String::from_utf8_lossy(out);
    let mut masked = String::new();
    for line in text.split_inclusive('\n') {
        if !line.contains("Timing") {
            masked.push_str(line);
            continue;
        }
        let chars: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let mut j = i;
            while j < chars.len() && chars[j] == ' ' {
                j += 1;
            }
            if j < chars.len() && chars[j].is_ascii_digit() {
                while j < chars.len() && (chars[j].is_ascii_digit() || chars[j] == '.') {
                    j += 1;
                }
                masked.push_str(if i == j || chars[i] != ' ' { "#" } else { " #" });
                i = j;
            } else {
                masked.extend(&chars[i..j.max(i + 1)]);
                i = j.max(i + 1);
            }
        }
    }
    masked.into_bytes()
}

/// A short line diff (longest common subsequence): `-` lines are hdparm's, `+` ours.
fn line_diff(ours_label: &str, a: &[u8], b: &[u8], max_lines: usize) -> String {
    let a: Vec<String> = String::from_utf8_lossy(a)
        .lines()
        .map(str::to_string)
        .collect();
    let b: Vec<String> = String::from_utf8_lossy(b)
        .lines()
        .map(str::to_string)
        .collect();
    let (n, m) = (a.len(), b.len());
    let mut lcs = vec![vec![0u32; m + 1]; n + 1];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            lcs[i][j] = if a[i] == b[j] {
                lcs[i + 1][j + 1] + 1
            } else {
                lcs[i + 1][j].max(lcs[i][j + 1])
            };
        }
    }
    let (mut i, mut j, mut out, mut shown) = (0, 0, String::new(), 0);
    while (i < n || j < m) && shown < max_lines {
        if i < n && j < m && a[i] == b[j] {
            i += 1;
            j += 1;
        } else if j < m && (i == n || lcs[i][j + 1] >= lcs[i + 1][j]) {
            let _ = writeln!(out, "          +{}", b[j]);
            j += 1;
            shown += 1;
        } else {
            let _ = writeln!(out, "          -{}", a[i]);
            i += 1;
            shown += 1;
        }
    }
    if i < n || j < m {
        let _ = writeln!(out, "          ... (more; see the {ours_label} files)");
    }
    out
}

/// How one scenario on one drive kind came out.
struct Outcome {
    kind: String,
    id: String,
    /// streams that differ: "stdout", "stderr", "exit" (empty = identical)
    differs: BTreeSet<String>,
    /// what no DIFFERENCES.md row can excuse: a hang, a step missing from the results
    problems: Vec<String>,
    detail: String,
}

/// Compares hdparm's and our steps of one scenario on one drive. `timeout` is the guest's
/// per-command limit: a step that ran that long was killed, and a hang is never intended.
fn compare(sc: &Scenario, kind: &str, theirs: &[Step], ours: &[Step], timeout: f64) -> Outcome {
    let mut differs = BTreeSet::new();
    let mut problems = Vec::new();
    let mut detail = String::new();
    if theirs.len() != ours.len() {
        problems.push(format!(
            "steps recorded: hdparm {}, ours {} (a step is missing: the VM died or lost a record)",
            theirs.len(),
            ours.len()
        ));
    }
    for (tool, steps) in [(REF_TOOL, theirs), (OUR_TOOL, ours)] {
        for (n, st) in steps.iter().enumerate() {
            if st.seconds >= timeout {
                problems.push(format!(
                    "{tool} step {} `{}` hung: killed after {:.2} s (the guest's limit is {timeout} s)",
                    n + 1,
                    st.cmd,
                    st.seconds
                ));
            }
        }
    }
    for (n, (t, o)) in theirs.iter().zip(ours).enumerate() {
        if t.cmd.starts_with('!') {
            continue; // setup/cleanup shell step, not a tool run
        }
        // drive model: a control step (`@end`: the command log and end state), stream "model"
        if t.cmd.starts_with('@') {
            if (&t.stdout, &t.stderr, t.exit) != (&o.stdout, &o.stderr, o.exit) {
                differs.insert("model".to_string());
                let _ = write!(
                    detail,
                    "      step {} `{}` (model):\n{}",
                    n + 1,
                    t.cmd,
                    line_diff("model", &t.stdout, &o.stdout, 16)
                );
            }
            continue;
        }
        let (ts, os) = if sc.timing {
            (mask_timing(&t.stdout), mask_timing(&o.stdout))
        } else {
            (t.stdout.clone(), o.stdout.clone())
        };
        let mut step_detail = String::new();
        if ts != os {
            differs.insert("stdout".to_string());
            let _ = write!(
                step_detail,
                "        stdout:\n{}",
                line_diff("stdout", &ts, &os, 12)
            );
        }
        let (te, oe) = common::normalise_stderr(&t.stderr, REF_PATH, &o.stderr, OUR_PATH);
        if te != oe {
            differs.insert("stderr".to_string());
            let _ = write!(
                step_detail,
                "        stderr (normalised):\n{}",
                line_diff("stderr", &te, &oe, 8)
            );
        }
        if t.exit != o.exit {
            differs.insert("exit".to_string());
            let _ = writeln!(
                step_detail,
                "        exit: hdparm {}, ours {}",
                t.exit, o.exit
            );
        }
        if !step_detail.is_empty() {
            let _ = write!(detail, "      step {} `{}`:\n{}", n + 1, t.cmd, step_detail);
        }
    }
    Outcome {
        kind: kind.to_string(),
        id: sc.id.clone(),
        differs,
        problems,
        detail,
    }
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

const TEST: &str = "vm_bench_matches_hdparm";

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Our binary: HDPARM_RS_BIN, else a release build made now.
fn our_binary() -> Result<PathBuf, String> {
    if let Ok(bin) = std::env::var("HDPARM_RS_BIN") {
        return Ok(PathBuf::from(bin));
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--release", "--bin", "hdparm"])
        .current_dir(repo())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!("cargo build --release failed: {status}"));
    }
    let target =
        std::env::var("CARGO_TARGET_DIR").map_or_else(|_| repo().join("target"), PathBuf::from);
    Ok(target.join("release").join("hdparm"))
}

/// drive model: `cargo build --release -p drive-model` (the guest runs it; the initramfs carries
/// the host's glibc, as it does for both hdparms).
fn drive_model_binary() -> Result<PathBuf, String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .args(["build", "--release", "-p", "drive-model"])
        .current_dir(repo())
        .status()
        .map_err(|e| format!("cannot run cargo: {e}"))?;
    if !status.success() {
        return Err(format!(
            "cargo build --release -p drive-model failed: {status}"
        ));
    }
    let target =
        std::env::var("CARGO_TARGET_DIR").map_or_else(|_| repo().join("target"), PathBuf::from);
    Ok(target.join("release").join("drive-model"))
}

/// Boots one VM per profile, all at once (the fault profile is short and runs beside main).
fn run_profiles(root: &Path, profiles: &[String], bin: &Path) -> Result<(), String> {
    // Fetch and unpack the kernel once, before the VMs start (setup.sh also takes a lock, so
    // the run.sh of each profile then finds it cached).
    let setup = Command::new(repo().join("tests/vm/setup.sh"))
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|e| format!("cannot start tests/vm/setup.sh: {e}"))?;
    if setup.code() == Some(EXIT_UNAVAILABLE) {
        return Err(
            "UNAVAILABLE:tests/vm/setup.sh: a component is missing (see its messages above)".into(),
        );
    }
    let mut children: Vec<(String, Child)> = Vec::new();
    // drive model: profile model needs tools/drive-model built for the guest
    let model_bin = if profiles.iter().any(|p| p == "model") {
        Some(drive_model_binary()?)
    } else {
        None
    };
    for p in profiles {
        let mut cmd = Command::new(repo().join("tests/vm/run.sh"));
        if let (Some(m), "model") = (&model_bin, p.as_str()) {
            cmd.arg("--model-bin").arg(m);
        }
        let child = cmd
            .arg("--profile")
            .arg(p)
            .arg("--bin")
            .arg(bin)
            .arg("--out")
            .arg(root.join(p))
            .spawn()
            .map_err(|e| format!("cannot start tests/vm/run.sh: {e}"))?;
        children.push((p.clone(), child));
    }
    let mut unavailable_why = None;
    let mut failed = Vec::new();
    for (p, mut child) in children {
        let status = child
            .wait()
            .map_err(|e| format!("waiting for run.sh: {e}"))?;
        match status.code() {
            Some(0) => {}
            Some(EXIT_UNAVAILABLE) => {
                unavailable_why = Some(format!(
                "tests/vm/run.sh --profile {p}: a component is missing (see its messages above)"
            ))
            }
            _ => failed.push(format!("{p} ({status})")),
        }
    }
    if let Some(why) = unavailable_why {
        return Err(format!("UNAVAILABLE:{why}"));
    }
    if !failed.is_empty() {
        // the comparison below still runs: it says which drives and scenarios are missing
        eprintln!("vm_bench: run.sh failed for {}", failed.join(", "));
    }
    Ok(())
}

/// The DIFFERENCES.md row that excuses a difference: the most specific row
/// ([`VmRow::specificity`]) whose kinds and id match, that applies where hdparm's steps were
/// `theirs` ([`OnlyWhere`]) and that names every stream that differs.
fn covering_row<'r>(rows: &'r [VmRow], o: &Outcome, theirs: &[Step]) -> Option<&'r VmRow> {
    rows.iter()
        .filter(|r| r.matches_kind(&o.kind) && r.matches_id(&o.id) && r.holds_in(theirs))
        .filter(|r| o.differs.is_subset(&r.streams))
        .max_by_key(|r| r.specificity())
}

/// What the comparison saw across profiles, for judging the rows afterwards.
#[derive(Default)]
struct Seen {
    /// a profile ran Debian's hdparm as ours (the bench's self-check): no row applies there
    self_check: bool,
    /// (kind, scenario id) of every comparison made
    ran: BTreeSet<(String, String)>,
    /// (row key, kind, scenario id) where a row's [`OnlyWhere`] did not hold: not judged there
    unmet: BTreeSet<(String, String, String)>,
    /// the guests' kernel releases (the HELLO marker's `kernel=`), named in a failure: the
    /// kernel `linux-image-amd64` names changes between runs, and with it some answers
    kernels: BTreeSet<String>,
    /// row key -> kind -> the streams that differed in the outcomes the row covered there
    covered: BTreeMap<String, BTreeMap<String, BTreeSet<String>>>,
}

/// Rows that excuse more than this run showed: for each kind the row names (for `*`: each kind
/// a matching scenario ran on), every stream it names must have differed in an outcome it
/// covered on that kind. A kind is judged only where a matching scenario ran in this run, and
/// not where a profile that did not run (`not_run`: its scenario list) has one too.
fn stale_rows(rows: &[VmRow], seen: &Seen, not_run: &[Scenario]) -> Vec<String> {
    let mut stale = Vec::new();
    for row in rows {
        let ran_kinds: BTreeSet<&String> = seen
            .ran
            .iter()
            .filter(|(k, id)| row.matches_kind(k) && row.matches_id(id))
            .filter(|(k, id)| {
                !seen
                    .unmet
                    .contains(&(row.key.clone(), k.to_string(), id.to_string()))
            })
            .map(|(k, _)| k)
            .collect();
        let empty = BTreeMap::new();
        let covered = seen.covered.get(&row.key).unwrap_or(&empty);
        for kind in ran_kinds {
            if not_run
                .iter()
                .any(|s| s.runs_on(kind) && row.matches_id(&s.id))
            {
                continue; // part of its evidence is in a profile that did not run
            }
            let Some(streams) = covered.get(kind) else {
                stale.push(format!(
                    "DIFFERENCES.md row `{}`: nothing it excuses differed on {kind}",
                    row.key
                ));
                continue;
            };
            let missing: Vec<&str> = row
                .streams
                .difference(streams)
                .map(String::as_str)
                .collect();
            if !missing.is_empty() {
                stale.push(format!(
                    "DIFFERENCES.md row `{}`: on {kind} {} did not differ (the row names it)",
                    row.key,
                    missing.join(", ")
                ));
            }
        }
    }
    stale
}

/// Compares one profile's results; returns the report and the problems found.
fn check_profile(dir: &Path, rows: &[VmRow], seen: &mut Seen) -> (String, Vec<String>) {
    let mut report = String::new();
    let mut failures = Vec::new();
    let profile = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let read = |name: &str| {
        std::fs::read(dir.join(name)).map_err(|e| format!("{}: {e}", dir.join(name).display()))
    };
    let (log, kinds, scen) = match (
        read("results.log"),
        read("expected-kinds"),
        read("scenarios.tsv"),
    ) {
        (Ok(l), Ok(k), Ok(s)) => (l, k, s),
        (l, k, s) => {
            for e in [l.err(), k.err(), s.err()].into_iter().flatten() {
                failures.push(format!("{profile}: no results: {e}"));
            }
            return (report, failures);
        }
    };
    let results = parse_results(&log);
    let expected: Vec<String> = String::from_utf8_lossy(&kinds)
        .lines()
        .map(str::to_string)
        .collect();
    let scenarios = match parse_scenarios(&String::from_utf8_lossy(&scen)) {
        Ok(s) => s,
        Err(e) => {
            failures.push(format!("{profile}: {}/scenarios.tsv: {e}", dir.display()));
            return (report, failures);
        }
    };

    let kernel = results
        .markers
        .iter()
        .filter(|m| m.starts_with("HELLO"))
        .flat_map(|m| m.split_whitespace())
        .find_map(|w| w.strip_prefix("kernel="))
        .unwrap_or("unknown");
    seen.kernels.insert(kernel.to_string());
    let _ = writeln!(
        report,
        "== profile {profile} ({}; guest kernel {kernel})",
        dir.display()
    );
    if !results.markers.iter().any(|m| m.starts_with("HELLO")) {
        failures.push(format!(
            "{profile}: the VM did not boot (no HELLO from the guest; see {}/console.log)",
            dir.display()
        ));
    } else if !results.markers.iter().any(|m| m.starts_with("DONE")) || results.truncated {
        failures.push(format!(
            "{profile}: the guest did not finish (results end early; see {}/console.log)",
            dir.display()
        ));
    }
    // The guest's copy of the reference must be 9.65, whatever binary the host had then.
    match results.boot("hdparm-V") {
        Some(v) if v.stdout == common::REFERENCE_VERSION => {}
        Some(v) => failures.push(format!(
            "{profile}: the guest's reference hdparm -V printed {:?}, not {:?}",
            String::from_utf8_lossy(&v.stdout),
            String::from_utf8_lossy(common::REFERENCE_VERSION)
        )),
        None => failures.push(format!(
            "{profile}: no record of the reference hdparm's version (_boot hdparm-V)"
        )),
    }
    // The self-check (HDPARM_RS_BIN=/usr/sbin/hdparm): both tools are hdparm 9.65, so every
    // scenario must come out identical and no row of DIFFERENCES.md may excuse anything.
    let self_check = results
        .boot("hdparm-rs-V")
        .is_some_and(|v| v.stdout == common::REFERENCE_VERSION);
    let no_rows: &[VmRow] = &[];
    let rows = if self_check {
        seen.self_check = true;
        let _ = writeln!(
            report,
            "  self-check: ours is hdparm 9.65 too; no DIFFERENCES.md row applies"
        );
        no_rows
    } else {
        rows
    };
    let timeout = results.command_timeout().unwrap_or_else(|| {
        failures.push(format!(
            "{profile}: no bench.timeout= in the guest's recorded kernel command line: hangs \
             cannot be told apart"
        ));
        0.0
    });
    for d in &results.damaged {
        failures.push(format!("{profile}: record damaged in transport: {d}"));
    }
    for m in results.markers.iter().filter(|m| m.starts_with("MISSING")) {
        failures.push(format!("{profile}: drive {m}"));
    }
    let ours_dir = format!("{}/<kind>/<scenario>/", dir.display());
    for kind in &expected {
        let mut total = 0;
        let mut same = 0;
        let mut lines = String::new();
        for sc in scenarios.iter().filter(|s| s.runs_on(kind)) {
            total += 1;
            let key = |tool: &str| (kind.clone(), sc.id.clone(), tool.to_string());
            let (Some(theirs), Some(ours)) = (
                results.steps.get(&key(REF_TOOL)),
                results.steps.get(&key(OUR_TOOL)),
            ) else {
                failures.push(format!(
                    "{profile}: vm:{kind}:{}: no result recorded",
                    sc.id
                ));
                let _ = writeln!(lines, "    MISSING {}: no result recorded", sc.id);
                continue;
            };
            let o = compare(sc, kind, theirs, ours, timeout);
            seen.ran.insert((kind.clone(), sc.id.clone()));
            for row in rows
                .iter()
                .filter(|r| r.matches_kind(kind) && r.matches_id(&sc.id) && !r.holds_in(theirs))
            {
                seen.unmet
                    .insert((row.key.clone(), kind.clone(), sc.id.clone()));
            }
            // issue 12: what the model must show whatever DIFFERENCES.md excuses
            if !self_check {
                for p in model_checks(&sc.id, ours) {
                    failures.push(format!("{profile}: vm:{kind}:{}: {p}", sc.id));
                    let _ = writeln!(lines, "    {} PROBLEM (never excused): {p}", sc.id);
                }
            }
            for p in &o.problems {
                failures.push(format!("{profile}: vm:{kind}:{}: {p}", sc.id));
                let _ = writeln!(lines, "    {} PROBLEM (never excused): {p}", sc.id);
            }
            if o.differs.is_empty() {
                if o.problems.is_empty() {
                    same += 1;
                }
                continue;
            }
            let streams: Vec<&str> = o.differs.iter().map(String::as_str).collect();
            let verdict = match covering_row(rows, &o, theirs) {
                Some(row) => {
                    seen.covered
                        .entry(row.key.clone())
                        .or_default()
                        .entry(kind.clone())
                        .or_default()
                        .extend(o.differs.iter().cloned());
                    format!("intended ({})", row.key)
                }
                None => {
                    failures.push(format!("vm:{}:{} ({})", o.kind, o.id, streams.join(", ")));
                    "NOT COVERED".to_string()
                }
            };
            let _ = write!(
                lines,
                "    {} [{}] {verdict}\n{}",
                o.id,
                streams.join(", "),
                o.detail
            );
        }
        let _ = writeln!(report, "  {kind}: {same} of {total} identical");
        report.push_str(&lines);
    }
    let _ = writeln!(
        report,
        "  (full outputs: {ours_dir}{{hdparm,hdparm-rs}}.<step>.{{stdout,stderr,exit}})"
    );
    (report, failures)
}

// ---- issue 12: checks of ours in profile model that no comparison makes
/// The ATA commands (`"command":"0x.."`) of an `@end` record's log, in order.
fn logged_commands(end: &Step) -> Vec<String> {
    String::from_utf8_lossy(&end.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).ok()?;
            Some(v.get("command")?.as_str()?.to_string())
        })
        .collect()
}

/// Scenario `no-wake`: `-y`, then ours' `--prometheus --no-wake` (hdparm's pass: `-C`) must
/// send nothing but CHECK POWER MODE to the drive in standby, leave it in standby, say why it
/// skipped the drive and exit 0 (a sleeping drive is normal for the metrics' timer, issue 19).
/// Scenario `wake`: the same without `--no-wake` asks more
/// (IDENTIFY at least). Problems found; none for other scenarios.
fn model_checks(id: &str, ours: &[Step]) -> Vec<String> {
    let mut problems = Vec::new();
    if id.starts_with("mid-") {
        return fault_checks(id, ours);
    }
    if id == "security-erase-sigterm" {
        return sigterm_checks(ours);
    }
    if id != "no-wake" && id != "wake" {
        return problems;
    }
    let (Some(query), Some(end)) = (ours.get(1), ours.last()) else {
        return vec!["ours: steps missing".to_string()];
    };
    let log = logged_commands(end);
    let after: Vec<&str> = match log.iter().position(|c| c == "0xe0") {
        Some(i) => log[i + 1..].iter().map(String::as_str).collect(),
        None => {
            return vec![format!(
                "no STANDBY IMMEDIATE (0xe0) in the model's log: {log:?}"
            )]
        }
    };
    let text = String::from_utf8_lossy(&query.stdout);
    let standby_at_end = String::from_utf8_lossy(&end.stdout).contains("\"power\": \"0x00\"");
    if id == "no-wake" {
        if after.iter().any(|c| *c != "0xe5") || after.is_empty() {
            problems.push(format!(
                "--no-wake sent more than CHECK POWER MODE after the standby: {after:?}"
            ));
        }
        if !standby_at_end {
            problems.push("the drive did not stay in standby".to_string());
        }
        if !text.contains("hdparm_query_skipped{device=") || !text.contains("reason=\"standby\"} 1")
        {
            problems.push(format!(
                "no hdparm_query_skipped{{...,reason=\"standby\"}} 1 in:\n{text}"
            ));
        }
        if query.exit != 0 {
            problems.push(format!(
                "--prometheus --no-wake exited {} for a sleeping drive, not 0",
                query.exit
            ));
        }
    } else if !after.contains(&"0xec") {
        problems.push(format!(
            "--prometheus without --no-wake sent no IDENTIFY after the standby: {after:?}"
        ));
    }
    problems
}
// ---- end issue 12

// ---- issue 18: a fault in the middle of a destructive operation (scenarios `mid-OP-FAULT`)
/// Per scenario: ours' exit status, and a piece of the one sentence that says what state the
/// drive is left in (src/exec/lost.rs), which stderr and the JSON document's messages carry.
const MID: &[(&str, i32, &str)] = &[
    ("mid-erase-abort", 5, "the drive refused the security erase: its data may be partly erased"),
    ("mid-erase-timeout", 5, "the drive did not answer the security erase in time: it may still be erasing"),
    ("mid-erase-reset", 5, "the drive was reset during the security erase: the erase stopped with its data partly erased, and the drive is locked with its password"),
    ("mid-erase-unplug", 2, "the drive went away during the security erase"),
    ("mid-sanitize-abort", 5, "the drive refused the sanitize, so it did not start"),
    ("mid-sanitize-timeout", 5, "the drive did not answer in time at the sanitize command: the sanitize may have started and may still be running"),
    ("mid-sanitize-reset", 5, "the drive was reset at the sanitize command: the sanitize may have started"),
    ("mid-sanitize-unplug", 2, "the drive went away with the sanitize command"),
    ("mid-fwdownload-abort", 5, "the drive refused segment 2 of 4 (at byte 512 of 2048) of the firmware download: it holds a partial firmware image"),
    ("mid-fwdownload-timeout", 5, "the drive did not answer in time during segment 2 of 4 (at byte 512 of 2048)"),
    ("mid-fwdownload-reset", 5, "the drive was reset during segment 2 of 4 (at byte 512 of 2048)"),
    ("mid-fwdownload-unplug", 2, "the drive went away during segment 2 of 4 (at byte 512 of 2048)"),
    ("mid-trim-abort", 5, "the drive refused TRIM command 2 (ranges 513 to 1024 of the list): ranges 1 to 512 are trimmed"),
    ("mid-trim-timeout", 5, "the drive did not answer in time during TRIM command 2 (ranges 513 to 1024 of the list)"),
    ("mid-trim-reset", 5, "the drive was reset during TRIM command 2 (ranges 513 to 1024 of the list)"),
    ("mid-trim-unplug", 2, "the drive went away during TRIM command 2 (ranges 513 to 1024 of the list)"),
    // the abort of one setting is the drive's answer to it: hdparm's order goes on with the
    // next, and the read-back says which setting did not take
    ("mid-apply-abort", 5, "-A did not take: it reads back 1, hdparm.conf asks for 0"),
    ("mid-apply-timeout", 5, "the drive did not answer while hdparm.conf was applied"),
    ("mid-apply-reset", 5, "the drive was reset while hdparm.conf was applied"),
    ("mid-apply-unplug", 2, "the drive went away while hdparm.conf was applied"),
];

/// Whether a JSON document has a message (`messages[].text`, at any depth) containing `words`.
fn json_message_has(v: &serde_json::Value, words: &str) -> bool {
    match v {
        serde_json::Value::Object(m) => m.iter().any(|(k, v)| {
            let here = k == "messages"
                && v.as_array().is_some_and(|a| {
                    a.iter().any(|e| {
                        e.get("text")
                            .and_then(|t| t.as_str())
                            .is_some_and(|t| t.contains(words))
                    })
                });
            here || json_message_has(v, words)
        }),
        serde_json::Value::Array(a) => a.iter().any(|v| json_message_has(v, words)),
        _ => false,
    }
}

/// Scenario `mid-OP-FAULT`: ours' faulted step (the one before `@end`) exits with the fault's
/// class and says the drive's state on stderr and in its JSON messages; the model received no
/// command after the faulted one (none at all reached it once pulled out), but after the
/// abort of one --apply setting. Problems found.
fn fault_checks(id: &str, ours: &[Step]) -> Vec<String> {
    let mut problems = Vec::new();
    let Some(&(_, exit, words)) = MID.iter().find(|(m, _, _)| *m == id) else {
        return vec![format!("no expectation for {id} in tests/vm_bench.rs MID")];
    };
    let (Some(step), Some(end)) = (ours.len().checked_sub(2).map(|i| &ours[i]), ours.last()) else {
        return vec!["ours: steps missing".to_string()];
    };
    if step.exit != exit {
        problems.push(format!(
            "`{}` exited {}, not {exit}; stderr:\n{}",
            step.cmd,
            step.exit,
            String::from_utf8_lossy(&step.stderr)
        ));
    }
    let stderr = String::from_utf8_lossy(&step.stderr);
    if !stderr.contains(words) {
        problems.push(format!("stderr does not say {words:?}:\n{stderr}"));
    }
    match serde_json::from_slice::<serde_json::Value>(&step.stdout) {
        Ok(doc) if json_message_has(&doc, words) => {}
        Ok(_) => problems.push(format!("no JSON message says {words:?}")),
        Err(e) => problems.push(format!("stdout is not one JSON document: {e}")),
    }
    let entries: Vec<serde_json::Value> = String::from_utf8_lossy(&end.stdout)
        .lines()
        .filter(|l| l.starts_with('{'))
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let faulted: Vec<usize> = (0..entries.len())
        .filter(|&i| entries[i].get("fault").is_some())
        .collect();
    match faulted.as_slice() {
        [i] if id == "mid-apply-abort" || *i + 1 == entries.len() => {}
        [i] => problems.push(format!(
            "commands after the faulted one: {:?}",
            entries[i + 1..]
                .iter()
                .map(|e| e.get("command").cloned().unwrap_or_default())
                .collect::<Vec<_>>()
        )),
        _ => problems.push(format!(
            "{} commands were hit by the fault (or reached a pulled-out drive), not 1",
            faulted.len()
        )),
    }
    problems
}
// ---- end issue 18
/// Issue 18, scenario `security-erase-sigterm`: `--security-erase abc DEV /tmp/model2` (the
/// same drive by a second name), SIGTERM once the model logged ERASE UNIT. Ours must finish
/// that command and send nothing more, to either name (the model's log ends with the one
/// ERASE UNIT), die of SIGTERM (the shell's 143), keep the erase's "cannot be stopped" line in
/// its stderr file, and report the second name as not started. Problems found.
fn sigterm_checks(ours: &[Step]) -> Vec<String> {
    let mut problems = Vec::new();
    let (Some(erase), Some(end)) = (ours.get(3), ours.last()) else {
        return vec!["ours: steps missing".to_string()];
    };
    let log = logged_commands(end);
    let count = |c: &str| log.iter().filter(|l| *l == c).count();
    if count("0xf3") != 1 || count("0xf4") != 1 || log.last().map(String::as_str) != Some("0xf4") {
        problems.push(format!(
            "after the SIGTERM during ERASE UNIT the drive got more: {log:?}"
        ));
    }
    if erase.exit != 128 + 15 {
        problems.push(format!(
            "the erase exited {}, not killed by SIGTERM (143)",
            erase.exit
        ));
    }
    let err = String::from_utf8_lossy(&erase.stderr);
    for want in [
        "the erase cannot be stopped",
        "stopped by SIGTERM: nothing more was sent to any device",
        " /tmp/model2: not started",
    ] {
        if !err.contains(want) {
            problems.push(format!("no '{want}' in the erase's stderr:\n{err}"));
        }
    }
    problems
}

/// The scenarios of the profiles in the repository's tests/vm/scenarios/ that this run did not
/// compare: rows whose evidence lies there are not judged stale.
fn scenarios_not_run(compared: &[String]) -> Vec<Scenario> {
    let mut out = Vec::new();
    let dir = repo().join("tests/vm/scenarios");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        return out;
    };
    for e in entries.flatten() {
        let path = e.path();
        let (Some(stem), Some("tsv")) = (
            path.file_stem().and_then(|s| s.to_str()),
            path.extension().and_then(|s| s.to_str()),
        ) else {
            continue;
        };
        // The scsi profile's scenarios are the oracle's (sg3_utils, sdparm), in a format of
        // their own (option "once"); tests/vm_scsi.rs judges them, and no row rests on them.
        if stem == "scsi" || compared.iter().any(|p| p == stem) {
            continue;
        }
        let text = std::fs::read_to_string(&path).unwrap_or_default();
        match parse_scenarios(&text) {
            Ok(s) => out.extend(s),
            Err(e) => panic!("{}: {e}", path.display()),
        }
    }
    out
}

#[test]
fn vm_bench_matches_hdparm() {
    let reuse = std::env::var("HDPARM_RS_VM_RESULTS")
        .ok()
        .filter(|v| !v.is_empty());
    if reuse.is_none() && !env_set("HDPARM_RS_VM") && !common::require_all() {
        common::skip(
            TEST,
            "boots QEMU for about four minutes; set HDPARM_RS_VM=1 to run it \
             (or HDPARM_RS_VM_RESULTS=DIR to compare results already there)",
        );
        return;
    }
    let profiles: Vec<String> = std::env::var("HDPARM_RS_VM_PROFILES")
        .unwrap_or_else(|_| "main,faults,unplug,model".to_string())
        .split(',')
        .filter(|p| !p.is_empty())
        .map(str::to_string)
        .collect();
    let root = match &reuse {
        Some(dir) => PathBuf::from(dir),
        None => {
            if Command::new("qemu-system-x86_64")
                .arg("--version")
                .output()
                .is_err()
            {
                // setup.sh installs it when it can; say so rather than skip silently
                eprintln!("vm_bench: qemu-system-x86_64 not found; tests/vm/setup.sh will try to install it");
            }
            let bin = match our_binary() {
                Ok(b) => b,
                Err(e) => panic!("{e}"),
            };
            let root = repo().join("tests/vm/out");
            match run_profiles(&root, &profiles, &bin) {
                Ok(()) => {}
                Err(e) if e.starts_with("UNAVAILABLE:") => {
                    return common::skip(TEST, &e["UNAVAILABLE:".len()..])
                }
                Err(e) => panic!("{e}"),
            }
            root
        }
    };

    let diff_text = std::fs::read_to_string(repo().join("DIFFERENCES.md"))
        .unwrap_or_else(|e| panic!("DIFFERENCES.md: {e}"));
    let rows = match parse_differences(&diff_text) {
        Ok(r) => r,
        Err(bad) => panic!("malformed DIFFERENCES.md vm rows:\n  {}", bad.join("\n  ")),
    };
    let mut seen = Seen::default();
    let mut report = String::new();
    let mut failures = Vec::new();
    for p in &profiles {
        let (r, f) = check_profile(&root.join(p), &rows, &mut seen);
        report.push_str(&r);
        failures.extend(f);
    }
    let stale = if seen.self_check {
        Vec::new() // rows were not used, so they cannot be judged
    } else {
        stale_rows(&rows, &seen, &scenarios_not_run(&profiles))
    };
    if !stale.is_empty() {
        let _ = writeln!(report, "== rows that excuse more than this run showed");
        for s in &stale {
            let _ = writeln!(report, "  {s}");
        }
    }
    failures.extend(stale);
    let _ = std::fs::write(root.join("report.txt"), &report);
    eprintln!("{report}");
    assert!(
        failures.is_empty(),
        "{} difference(s) or problem(s) not covered by DIFFERENCES.md, or rows that excuse \
         nothing (report: {}; guest kernel {}):\n  {}",
        failures.len(),
        root.join("report.txt").display(),
        seen.kernels.iter().cloned().collect::<Vec<_>>().join(", "),
        failures.join("\n  ")
    );
}

#[cfg(test)]
mod unit {
    use super::*;

    #[test]
    fn parses_framed_records_and_markers() {
        let mut log = b"garbage\n@@M HELLO uptime=1\n".to_vec();
        log.extend_from_slice(b"@@R ahci-hd I hdparm 1 0 0.10 6 4 2 0\n-I DEVout\ner\n");
        log.extend_from_slice(b"@@R ahci-hd I hdparm 2 25 0.10 2 0 0 4\n-CMSG!\n@@M DONE x\n");
        let r = parse_results(&log);
        assert_eq!(r.markers, vec!["HELLO uptime=1", "DONE x"]);
        let steps = &r.steps[&("ahci-hd".into(), "I".into(), "hdparm".into())];
        assert_eq!(steps.len(), 2);
        assert_eq!(steps[0].cmd, "-I DEV");
        assert_eq!(steps[0].stdout, b"out\n");
        assert_eq!(steps[0].stderr, b"er");
        assert_eq!(steps[1].exit, 25);
        assert!(!r.truncated);
        assert!(r.damaged.is_empty());
    }

    #[test]
    fn a_lost_header_is_reported() {
        let mut log = b"@@R nvme C hdparm 1 0 0.1 2 1 0 0\n-Cx\n".to_vec();
        log.extend_from_slice(b"@@R nvme C hdparm 3 0 0.1 2 1 0 0\n-Cy\n");
        let r = parse_results(&log);
        assert_eq!(r.damaged, vec!["nvme C hdparm step 3: after step 1"]);
    }

    #[test]
    fn a_record_cut_short_is_truncated() {
        let r = parse_results(b"@@R nvme I hdparm 1 0 0.1 2 100 0 0\n-I abc");
        assert!(r.truncated);
        assert!(r.steps.is_empty());
    }

    #[test]
    fn scenario_options_and_kinds() {
        let s = parse_scenarios("# c\n\nI\t*\t-I DEV\nz\tide-hd,nvme\t-z DEV\ttiming\n").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].kinds, vec!["*"]);
        assert!(!s[0].timing);
        assert_eq!(s[1].kinds, vec!["ide-hd", "nvme"]);
        assert!(s[1].timing && s[1].runs_on("nvme") && !s[1].runs_on("ide-cd"));
        // stderr is always compared: the old option is refused, not silently ignored
        assert!(parse_scenarios("m16\t*\t-m16 DEV\tstderr\n").is_err());
    }

    fn rows(text: &str) -> Vec<VmRow> {
        parse_differences(text).unwrap()
    }

    fn outcome(kind: &str, id: &str, streams: &[&str]) -> Outcome {
        Outcome {
            kind: kind.into(),
            id: id.into(),
            differs: streams.iter().map(|s| s.to_string()).collect(),
            problems: vec![],
            detail: String::new(),
        }
    }

    #[test]
    fn difference_rows_need_every_differing_stream() {
        let r = rows(
            "| key | differs in | why |\n|---|---|---|\n| `vm:*:I` | stdout, exit | x |\n| exit:errno | exit | y |\n",
        );
        assert_eq!(r.len(), 1);
        assert!(r[0].kinds.is_none());
        assert_eq!(
            covering_row(&r, &outcome("nvme", "I", &["stdout", "exit"]), &[]).map(|r| &r.key[..]),
            Some("vm:*:I")
        );
        assert!(covering_row(&r, &outcome("nvme", "I", &["stderr"]), &[]).is_none());
    }

    #[test]
    fn malformed_rows_are_refused() {
        // a kind that does not exist would never match: a typo must not pass silently
        assert!(parse_differences("| vm:ide:I | stdout | x |\n").is_err());
        assert!(parse_differences("| vm:nvme:I | stdot | x |\n").is_err());
        assert!(parse_differences("| vm:nvme:I |  | x |\n").is_err());
        assert!(parse_differences("| vm:nvme | exit | x |\n").is_err());
    }

    #[test]
    fn rows_cover_by_kind_list_wildcard_and_id_prefix() {
        let r = rows(
            "| `vm:*:read-sector*` | stdout, exit | a |\n| `vm:nvme:read-sector-0` | exit | b |\n\
             | `vm:ide-cd,ahci-cd:I` | stdout | c |\n| `vm:ide-cd:I` | stdout, stderr | d |\n",
        );
        let row = |o: Outcome| covering_row(&r, &o, &[]).map(|r| r.key.clone());
        assert_eq!(
            row(outcome("ide-hd", "read-sector-2048", &["stdout"])).as_deref(),
            Some("vm:*:read-sector*")
        );
        assert_eq!(
            row(outcome("nvme", "read-sector-0", &["exit"])).as_deref(),
            Some("vm:nvme:read-sector-0")
        );
        // the specific row does not name stdout, the wildcard row does
        assert_eq!(
            row(outcome("nvme", "read-sector-0", &["stdout", "exit"])).as_deref(),
            Some("vm:*:read-sector*")
        );
        // a kind list matches each kind it names, and a single kind beats a list
        assert_eq!(
            row(outcome("ahci-cd", "I", &["stdout"])).as_deref(),
            Some("vm:ide-cd,ahci-cd:I")
        );
        assert_eq!(
            row(outcome("ide-cd", "I", &["stdout"])).as_deref(),
            Some("vm:ide-cd:I")
        );
        assert_eq!(row(outcome("ahci-hd", "I", &["stdout"])), None);
        assert_eq!(row(outcome("ide-cd", "I", &["stdout", "exit"])), None);
    }

    #[test]
    fn rows_that_excuse_more_than_happened_are_stale() {
        let r = rows(
            "| vm:nvme,virtio-blk:I | stdout, exit | a |\n| vm:*:C | exit | b |\n\
             | vm:ide-hd:gone | exit | c |\n",
        );
        let mut seen = Seen::default();
        for (k, id) in [
            ("nvme", "I"),
            ("virtio-blk", "I"),
            ("ahci-hd", "C"),
            ("nvme", "C"),
        ] {
            seen.ran.insert((k.into(), id.into()));
        }
        let cover = |seen: &mut Seen, key: &str, kind: &str, streams: &[&str]| {
            seen.covered
                .entry(key.into())
                .or_default()
                .entry(kind.into())
                .or_default()
                .extend(streams.iter().map(|s| s.to_string()));
        };
        cover(
            &mut seen,
            "vm:nvme,virtio-blk:I",
            "nvme",
            &["stdout", "exit"],
        );
        cover(&mut seen, "vm:nvme,virtio-blk:I", "virtio-blk", &["exit"]);
        cover(&mut seen, "vm:*:C", "nvme", &["exit"]);
        let stale = stale_rows(&r, &seen, &[]);
        // virtio-blk's stdout was the same: the row must not excuse it there; `*` means every
        // kind C ran on, and on ahci-hd nothing differed; vm:ide-hd:gone never ran: not judged
        assert_eq!(
            stale,
            vec![
                "DIFFERENCES.md row `vm:nvme,virtio-blk:I`: on virtio-blk stdout did not differ (the row names it)",
                "DIFFERENCES.md row `vm:*:C`: nothing it excuses differed on ahci-hd",
            ]
        );
        // a profile that did not run has C on ahci-hd too: that kind is not judged
        let not_run = parse_scenarios("C\tahci-hd\t-C DEV\n").unwrap();
        assert_eq!(stale_rows(&r, &seen, &not_run).len(), 1);
    }

    #[test]
    fn a_row_whose_reason_is_the_kernel_applies_only_where_hdparm_showed_it() {
        let r = rows(
            "| vm:ide-cd:r1 | stderr, exit | sr keeps it: only where hdparm's `-r0` prints \
             `readonly      =  1 (on)` |\n",
        );
        let step = |cmd: &str, out: &str| Step {
            cmd: cmd.into(),
            stdout: out.as_bytes().to_vec(),
            ..Step::default()
        };
        // `-r1` printing the text is not `-r0` printing it
        let cleared = [
            step("-r1 DEV", " readonly      =  1 (on)\n"),
            step("-r0 DEV", " readonly      =  0 (off)\n"),
        ];
        let kept = [step("-r0 DEV", " readonly      =  1 (on)\n")];
        let o = outcome("ide-cd", "r1", &["stderr", "exit"]);
        assert!(covering_row(&r, &o, &cleared).is_none());
        assert_eq!(
            covering_row(&r, &o, &kept).map(|r| r.key.as_str()),
            Some("vm:ide-cd:r1")
        );
        // where it did not hold the row is not judged; where it held, it is
        let mut seen = Seen::default();
        seen.ran.insert(("ide-cd".into(), "r1".into()));
        seen.unmet
            .insert(("vm:ide-cd:r1".into(), "ide-cd".into(), "r1".into()));
        assert!(stale_rows(&r, &seen, &[]).is_empty());
        seen.unmet.clear();
        assert_eq!(stale_rows(&r, &seen, &[]).len(), 1);
        // a condition in another form is refused, not read as no condition
        assert!(parse_differences(
            "| vm:ide-cd:r1 | exit | only where hdparm's `-r0` shows `x` |\n"
        )
        .is_err());
        assert!(parse_differences(
            "| vm:ide-cd:r1 | exit | only where hdparm's `-r0` prints `` |\n"
        )
        .is_err());
    }

    #[test]
    fn hangs_and_missing_steps_are_problems_not_differences() {
        let sc = Scenario {
            id: "C".into(),
            kinds: vec!["*".into()],
            timing: false,
        };
        let t = Step {
            cmd: "-C DEV".into(),
            seconds: 0.1,
            ..Step::default()
        };
        let mut hung = t.clone();
        hung.seconds = 60.02;
        hung.exit = 143;
        let o = compare(
            &sc,
            "nvme",
            std::slice::from_ref(&t),
            std::slice::from_ref(&hung),
            60.0,
        );
        assert_eq!(o.problems.len(), 1, "{:?}", o.problems);
        assert!(o.problems[0].contains("hung"));
        let o = compare(
            &sc,
            "nvme",
            &[t.clone(), t.clone()],
            std::slice::from_ref(&t),
            60.0,
        );
        assert_eq!(o.problems.len(), 1);
        assert!(o.differs.is_empty());
    }

    #[test]
    fn no_wake_check_sees_a_wake_up_and_a_missing_skip() {
        let step = |stdout: &str, exit: i32| Step {
            stdout: stdout.as_bytes().to_vec(),
            exit,
            ..Step::default()
        };
        let e0 = r#"{"command":"0xe0"}"#;
        let e5 = r#"{"command":"0xe5"}"#;
        let ec = r#"{"command":"0xec"}"#;
        let skipped = "hdparm_query_skipped{device=\"sda\",reason=\"standby\"} 1\n";
        let end = |cmds: &[&str], power: &str| {
            step(
                &format!(
                    "# log\n{}\n# end state\n{{\n  \"power\": \"{power}\"\n}}\n",
                    cmds.join("\n")
                ),
                0,
            )
        };
        let good = [step("", 0), step(skipped, 0), end(&[e0, e5], "0x00")];
        assert!(model_checks("no-wake", &good).is_empty());
        let woke = [step("", 0), step(skipped, 0), end(&[e0, e5, ec], "0xff")];
        assert_eq!(model_checks("no-wake", &woke).len(), 2);
        let unsaid = [step("", 0), step("", 0), end(&[e0, e5], "0x00")];
        assert_eq!(model_checks("no-wake", &unsaid).len(), 1);
        let failed = [step("", 0), step(skipped, 3), end(&[e0, e5], "0x00")];
        assert_eq!(
            model_checks("no-wake", &failed).len(),
            1,
            "exit 3 fails a timer unit"
        );
        assert!(model_checks("wake", &woke).is_empty());
        assert_eq!(model_checks("wake", &good).len(), 1);
        assert!(model_checks("I", &[]).is_empty());
        // issue 18: nothing after the ERASE UNIT the signal came during
        let cmd = |c: &str| format!(r#"{{"command":"{c}"}}"#);
        let erase = |stderr: &str, exit: i32| Step {
            stderr: stderr.as_bytes().to_vec(),
            exit,
            ..Step::default()
        };
        let said = "/dev/sda: the erase cannot be stopped: ...\nstopped by SIGTERM: nothing more was sent to any device\n /dev/sda: done: ...\n /tmp/model2: not started\n";
        let log = |cmds: &[&str]| {
            let lines: Vec<String> = cmds.iter().map(|c| cmd(c)).collect();
            step(&format!("# log\n{}\n", lines.join("\n")), 0)
        };
        let run = |log_end: Step, stderr: &str, exit: i32| {
            [
                step("", 0),
                step("", 0),
                step("", 0),
                erase(stderr, exit),
                step("", 0),
                log_end,
            ]
        };
        let stopped = run(log(&["0xf1", "0xf3", "0xf4"]), said, 143);
        assert!(model_checks("security-erase-sigterm", &stopped).is_empty());
        let went_on = run(log(&["0xf1", "0xf3", "0xf4", "0xf3", "0xf4"]), said, 0);
        assert_eq!(model_checks("security-erase-sigterm", &went_on).len(), 2);
        let lost_line = run(log(&["0xf1", "0xf3", "0xf4"]), "", 143);
        assert_eq!(model_checks("security-erase-sigterm", &lost_line).len(), 3);
    }

    #[test]
    fn fault_checks_see_a_command_after_the_fault_a_wrong_exit_and_an_unsaid_state() {
        let said = "the drive did not answer in time during TRIM command 2 (ranges 513 to 1024 of the list)";
        let step = |stdout: &str, stderr: &str, exit: i32| Step {
            stdout: stdout.as_bytes().to_vec(),
            stderr: stderr.as_bytes().to_vec(),
            exit,
            ..Step::default()
        };
        let doc = format!(r#"{{"devices":[{{"messages":[{{"text":"/dev/sda: {said}; ..."}}]}}]}}"#);
        let err = format!("FAILED: ...\n/dev/sda: {said}; ...\n");
        let ok = r#"{"command":"0x06"}"#;
        let hit = r#"{"command":"0x06","fault":"timeout"}"#;
        let end =
            |cmds: &[&str]| step(&format!("# log\n{}\n# end state\n", cmds.join("\n")), "", 0);
        let id = "mid-trim-timeout";
        let good = [step(&doc, &err, 5), end(&[ok, hit])];
        assert_eq!(fault_checks(id, &good), Vec::<String>::new());
        let went_on = [step(&doc, &err, 5), end(&[ok, hit, ok])];
        assert_eq!(fault_checks(id, &went_on).len(), 1);
        let exit_0 = [step(&doc, &err, 0), end(&[ok, hit])];
        assert_eq!(fault_checks(id, &exit_0).len(), 1);
        let unsaid = [step("{}", "FAILED: ...\n", 5), end(&[ok, hit])];
        assert_eq!(fault_checks(id, &unsaid).len(), 2);
        assert_eq!(model_checks("mid-nothing-like-it", &good).len(), 1);
    }

    #[test]
    fn timing_numbers_are_masked_elsewhere_untouched() {
        let a = mask_timing(
            b"/dev/sda:\n Timing cached reads:   1234 MB in  2.00 seconds = 617.00 MB/sec\n",
        );
        let b = mask_timing(
            b"/dev/sda:\n Timing cached reads:   99 MB in  2.01 seconds = 49.25 MB/sec\n",
        );
        assert_eq!(a, b);
        // the padding before a number changes with its width
        let c = mask_timing(b" Timing buffered disk reads: 6 MB in  3.2 seconds =   1.87 MB/sec\n");
        let d =
            mask_timing(b" Timing buffered disk reads: 612 MB in  3.00 seconds = 203.99 MB/sec\n");
        assert_eq!(c, d);
        assert_eq!(
            String::from_utf8_lossy(&d),
            " Timing buffered disk reads: # MB in # seconds = # MB/sec\n"
        );
        assert_ne!(mask_timing(b"sector 12\n"), mask_timing(b"sector 13\n"));
        // the words around the numbers still count
        assert_ne!(
            a,
            mask_timing(b"/dev/sda:\n Timing cached reads:   1 MB in 2 s\n")
        );
    }

    #[test]
    fn stderr_is_compared_after_normalisation() {
        let sc = Scenario {
            id: "C".into(),
            kinds: vec!["*".into()],
            timing: false,
        };
        let t = Step {
            cmd: "-C DEV".into(),
            stdout: b"x\n".to_vec(),
            stderr: b"/sbin/hdparm: lseek() failed: Invalid argument\n".to_vec(),
            ..Step::default()
        };
        let mut o = t.clone();
        o.stderr =
            b"/opt/hdparm-rs/hdparm: lseek() failed: Invalid argument (past the end)\n".to_vec();
        let same = compare(
            &sc,
            "nvme",
            std::slice::from_ref(&t),
            std::slice::from_ref(&o),
            60.0,
        );
        assert!(same.differs.is_empty(), "{}", same.detail);
        o.stderr = b"other\n".to_vec();
        o.exit = 25;
        let out = compare(&sc, "nvme", &[t], &[o], 60.0);
        assert_eq!(
            out.differs.iter().collect::<Vec<_>>(),
            vec!["exit", "stderr"]
        );
    }

    /// One framed record as tests/vm/guest/init writes it; `head` is
    /// `kind id tool step exit seconds`.
    fn record(head: &str, cmd: &str, out: &str, err: &str) -> String {
        format!(
            "@@R {head} {} {} {} 0\n{cmd}{out}{err}\n",
            cmd.len(),
            out.len(),
            err.len()
        )
    }

    /// A profile directory with the guest's housekeeping records and one scenario, `C` on
    /// nvme, where the tools differ in the exit status (0 and 25); ours takes `our_secs`.
    fn profile_dir(name: &str, ref_v: &str, our_v: &str, our_secs: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hdparm-rs-vm-unit-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut log = String::from("@@M HELLO uptime=1\n");
        log += &record(
            "_boot cmdline sh 1 0 0.00",
            "cat /proc/cmdline",
            "rdinit=/init bench.timeout=60",
            "",
        );
        log += &record("_boot hdparm-V sh 1 0 0.00", "/sbin/hdparm -V", ref_v, "");
        log += &record(
            "_boot hdparm-rs-V sh 1 0 0.00",
            "/opt/hdparm-rs/hdparm -V",
            our_v,
            "",
        );
        log += &record("nvme C hdparm 1 0 0.10", "-C DEV", "x\n", "");
        log += &record(
            &format!("nvme C hdparm-rs 1 25 {our_secs}"),
            "-C DEV",
            "x\n",
            "",
        );
        log += "@@M DONE uptime=2\n";
        std::fs::write(dir.join("results.log"), log).unwrap();
        std::fs::write(dir.join("expected-kinds"), "nvme\n").unwrap();
        std::fs::write(dir.join("scenarios.tsv"), "C\t*\t-C DEV\n").unwrap();
        dir
    }

    #[test]
    fn a_profile_is_judged_by_rows_version_self_check_and_hangs() {
        let v965 = "hdparm v9.65\n";
        let r = rows("| vm:nvme:C | exit | x |\n");
        let check = |dir: &Path, rows: &[VmRow]| {
            let mut seen = Seen::default();
            let (report, failures) = check_profile(dir, rows, &mut seen);
            let _ = std::fs::remove_dir_all(dir);
            (report, failures, seen)
        };
        let (report, failures, seen) = check(
            &profile_dir("ok", v965, "hdparm v9.65.0 (hdparm-rs 0.1.0)\n", "0.10"),
            &r,
        );
        assert!(failures.is_empty(), "{failures:?}");
        assert!(report.contains("nvme: 0 of 1 identical"), "{report}");
        assert_eq!(seen.covered["vm:nvme:C"]["nvme"].len(), 1);
        // no row: the difference fails
        let (_, failures, _) = check(
            &profile_dir("norow", v965, "hdparm v9.65.0 (hdparm-rs 0.1.0)\n", "0.10"),
            &[],
        );
        assert_eq!(failures, vec!["vm:nvme:C (exit)"]);
        // another reference version fails, whatever the rows say
        let (_, failures, _) = check(
            &profile_dir(
                "ver",
                "hdparm v9.64\n",
                "hdparm v9.65.0 (hdparm-rs 0.1.0)\n",
                "0.10",
            ),
            &r,
        );
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(
            failures[0].contains("not \"hdparm v9.65\\n\""),
            "{failures:?}"
        );
        // a hang is a failure even where a row covers the exit status
        let (_, failures, _) = check(
            &profile_dir("hang", v965, "hdparm v9.65.0 (hdparm-rs 0.1.0)\n", "60.01"),
            &r,
        );
        assert_eq!(failures.len(), 1, "{failures:?}");
        assert!(failures[0].contains("hung"), "{failures:?}");
        // the self-check (ours is hdparm 9.65 too): no row applies
        let (report, failures, seen) = check(&profile_dir("self", v965, v965, "0.10"), &r);
        assert!(seen.self_check && report.contains("self-check"), "{report}");
        assert_eq!(failures, vec!["vm:nvme:C (exit)"]);
    }
}
