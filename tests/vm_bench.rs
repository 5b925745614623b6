//! The VM bench: boots a Debian kernel in QEMU with emulated IDE, AHCI, ATAPI, NVMe,
//! virtio-scsi and virtio-blk drives (`tests/vm/run.sh`), runs every scenario of
//! `tests/vm/scenarios/<profile>.tsv` with Debian's hdparm and with ours, and compares them.
//!
//! Per scenario and drive kind the two tools must agree on stdout and exit status (and on
//! stderr where the scenario says `stderr`); a difference fails the test unless DIFFERENCES.md
//! has a row `vm:<kind>:<scenario>` or `vm:*:<scenario>` naming every stream that differs
//! (a scenario ending in `*` matches every scenario id that starts so).
//! The test also fails when the VM did not finish or a drive kind is missing from the results.
//!
//! It boots VMs (about four minutes on two cores under TCG), so it runs only when asked:
//! `HDPARM_RS_VM=1`, `HDPARM_RS_REQUIRE_ALL=1` (CI), or `HDPARM_RS_VM_RESULTS=DIR` (compare
//! results already in DIR/<profile>/ without booting). Without QEMU, the kernel package or the
//! reference hdparm it says why and skips, or fails under `HDPARM_RS_REQUIRE_ALL=1`.
//! Other knobs: `HDPARM_RS_BIN` (our binary; default: `cargo build --release`),
//! `HDPARM_RS_VM_PROFILES` (default `main,faults,unplug`).
//!
//! This file only reads results and runs the bench script; it never opens a host disk.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};

/// The tool name the guest records for Debian's hdparm and for ours.
const REF_TOOL: &str = "hdparm";
const OUR_TOOL: &str = "hdparm-rs";
/// run.sh's exit status when a component (QEMU, kernel, hdparm, root for apt) is missing.
const EXIT_UNAVAILABLE: i32 = 77;

/// One command's result as the guest framed it.
#[derive(Debug, Clone, Default)]
struct Step {
    cmd: String,
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    exit: i32,
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

/// One line of a scenario list.
#[derive(Debug)]
struct Scenario {
    id: String,
    kinds: Vec<String>,
    exact_stderr: bool,
    timing: bool,
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
        });
    }
    r
}

/// Parses a scenario list: `id TAB kinds TAB steps [TAB options]`, `#` comments.
fn parse_scenarios(text: &str) -> Vec<Scenario> {
    text.lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            let opts: Vec<&str> = f.get(3).map_or(vec![], |o| o.split(',').collect());
            Scenario {
                id: f[0].to_string(),
                kinds: f
                    .get(1)
                    .map_or(vec![], |k| k.split(',').map(str::to_string).collect()),
                exact_stderr: opts.contains(&"stderr"),
                timing: opts.contains(&"timing"),
            }
        })
        .collect()
}

/// The `vm:` rows of DIFFERENCES.md: key -> the streams the row says differ.
fn parse_differences(text: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut rows = BTreeMap::new();
    for line in text.lines() {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        // "| key | differs in | why |" splits into ["", key, streams, why, ""]
        let (Some(key), Some(streams)) = (cells.get(1), cells.get(2)) else {
            continue;
        };
        let key = key.trim_matches('`');
        if !key.starts_with("vm:") {
            continue;
        }
        let streams = streams
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        rows.insert(key.to_string(), streams);
    }
    rows
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
    detail: String,
}

/// Compares hdparm's and our steps of one scenario on one drive.
fn compare(sc: &Scenario, kind: &str, theirs: &[Step], ours: &[Step]) -> Outcome {
    let mut differs = BTreeSet::new();
    let mut detail = String::new();
    if theirs.len() != ours.len() {
        differs.insert("exit".to_string());
        let _ = writeln!(
            detail,
            "        steps recorded: hdparm {}, ours {} (a step hung or the VM died)",
            theirs.len(),
            ours.len()
        );
    }
    for (n, (t, o)) in theirs.iter().zip(ours).enumerate() {
        if t.cmd.starts_with('!') {
            continue; // setup/cleanup shell step, not a tool run
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
        if sc.exact_stderr && t.stderr != o.stderr {
            differs.insert("stderr".to_string());
            let _ = write!(
                step_detail,
                "        stderr:\n{}",
                line_diff("stderr", &t.stderr, &o.stderr, 8)
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
        detail,
    }
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// Skips (prints why) or, under HDPARM_RS_REQUIRE_ALL=1, fails.
fn unavailable(why: &str) {
    if env_set("HDPARM_RS_REQUIRE_ALL") {
        panic!("VM bench unavailable and HDPARM_RS_REQUIRE_ALL=1: {why}");
    }
    eprintln!("vm_bench: SKIPPED: {why}");
}

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
    for p in profiles {
        let child = Command::new(repo().join("tests/vm/run.sh"))
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

/// The DIFFERENCES.md row that excuses a difference: key `vm:<kind>:<id>` or `vm:*:<id>`,
/// where an id ending in `*` matches every scenario id that starts so (the file's rule for
/// all keys); the row must name every stream that differs. The most specific key wins.
fn covering_row(rows: &BTreeMap<String, BTreeSet<String>>, o: &Outcome) -> Option<String> {
    let mut best: Option<(usize, &String)> = None;
    for (key, streams) in rows {
        let Some((kind, id)) = key.strip_prefix("vm:").and_then(|k| k.split_once(':')) else {
            continue;
        };
        let id_match = match id.strip_suffix('*') {
            Some(prefix) => o.id.starts_with(prefix),
            None => o.id == id,
        };
        if !(kind == "*" || kind == o.kind) || !id_match || !o.differs.is_subset(streams) {
            continue;
        }
        // a named kind beats `*`, an exact id beats a prefix, a longer prefix a shorter one
        let score =
            usize::from(kind != "*") * 10_000 + usize::from(!id.ends_with('*')) * 1_000 + id.len();
        match best {
            Some((b, _)) if b >= score => {}
            _ => best = Some((score, key)),
        }
    }
    best.map(|(_, k)| k.clone())
}

/// Compares one profile's results; returns the report and the uncovered differences.
fn check_profile(
    dir: &Path,
    rows: &BTreeMap<String, BTreeSet<String>>,
    used: &mut BTreeSet<String>,
) -> (String, Vec<String>) {
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
    let scenarios = parse_scenarios(&String::from_utf8_lossy(&scen));

    let _ = writeln!(report, "== profile {profile} ({})", dir.display());
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
        for sc in scenarios
            .iter()
            .filter(|s| s.kinds.iter().any(|k| k == "*" || k == kind))
        {
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
            let o = compare(sc, kind, theirs, ours);
            if o.differs.is_empty() {
                same += 1;
                continue;
            }
            let streams: Vec<&str> = o.differs.iter().map(String::as_str).collect();
            let cover = covering_row(rows, &o);
            let verdict = match &cover {
                Some(k) => {
                    used.insert(k.clone());
                    format!("intended ({k})")
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

#[test]
fn vm_bench_matches_hdparm() {
    let reuse = std::env::var("HDPARM_RS_VM_RESULTS")
        .ok()
        .filter(|v| !v.is_empty());
    if reuse.is_none() && !env_set("HDPARM_RS_VM") && !env_set("HDPARM_RS_REQUIRE_ALL") {
        eprintln!(
            "vm_bench: SKIPPED: boots QEMU for about four minutes; set HDPARM_RS_VM=1 to run it \
             (or HDPARM_RS_VM_RESULTS=DIR to compare results already there)"
        );
        return;
    }
    let profiles: Vec<String> = std::env::var("HDPARM_RS_VM_PROFILES")
        .unwrap_or_else(|_| "main,faults,unplug".to_string())
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
                    return unavailable(&e["UNAVAILABLE:".len()..])
                }
                Err(e) => panic!("{e}"),
            }
            root
        }
    };

    let diff_text = std::fs::read_to_string(repo().join("DIFFERENCES.md")).unwrap_or_default();
    let rows = parse_differences(&diff_text);
    let mut used = BTreeSet::new();
    let mut report = String::new();
    let mut failures = Vec::new();
    for p in &profiles {
        let (r, f) = check_profile(&root.join(p), &rows, &mut used);
        report.push_str(&r);
        failures.extend(f);
    }
    let stale: Vec<&String> = rows.keys().filter(|k| !used.contains(*k)).collect();
    if !stale.is_empty() {
        let _ = writeln!(
            report,
            "DIFFERENCES.md vm rows that matched no difference in this run: {}",
            stale
                .iter()
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
    let _ = std::fs::write(root.join("report.txt"), &report);
    eprintln!("{report}");
    assert!(
        failures.is_empty(),
        "{} difference(s) or problem(s) not covered by DIFFERENCES.md (report: {}):\n  {}",
        failures.len(),
        root.join("report.txt").display(),
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
        let s = parse_scenarios("# c\n\nI\t*\t-I DEV\nz\tide-hd,nvme\t-z DEV\tstderr,timing\n");
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].kinds, vec!["*"]);
        assert!(!s[0].exact_stderr);
        assert_eq!(s[1].kinds, vec!["ide-hd", "nvme"]);
        assert!(s[1].exact_stderr && s[1].timing);
    }

    #[test]
    fn difference_rows_need_every_differing_stream() {
        let rows = parse_differences(
            "| key | differs in | why |\n|---|---|---|\n| `vm:*:I` | stdout, exit | x |\n| exit:errno | exit | y |\n",
        );
        assert_eq!(rows.len(), 1);
        let streams = &rows["vm:*:I"];
        assert!(
            streams.contains("stdout") && streams.contains("exit") && !streams.contains("stderr")
        );
    }

    #[test]
    fn rows_cover_by_kind_wildcard_and_id_prefix() {
        let rows = parse_differences(
            "| `vm:*:read-sector*` | stdout, exit | a |\n| `vm:nvme:read-sector-0` | exit | b |\n| `vm:ide-cd:I` | stdout | c |\n",
        );
        let outcome = |kind: &str, id: &str, streams: &[&str]| Outcome {
            kind: kind.into(),
            id: id.into(),
            differs: streams.iter().map(|s| s.to_string()).collect(),
            detail: String::new(),
        };
        let row = |o: Outcome| covering_row(&rows, &o);
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
        assert_eq!(row(outcome("ahci-cd", "I", &["stdout"])), None);
        assert_eq!(row(outcome("ide-cd", "I", &["stdout", "exit"])), None);
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
    fn identical_steps_compare_equal_and_exit_differences_show() {
        let sc = Scenario {
            id: "C".into(),
            kinds: vec!["*".into()],
            exact_stderr: false,
            timing: false,
        };
        let t = Step {
            cmd: "-C DEV".into(),
            stdout: b"x\n".to_vec(),
            stderr: b"noise\n".to_vec(),
            exit: 0,
        };
        let mut o = t.clone();
        o.stderr = b"other\n".to_vec();
        let same = compare(
            &sc,
            "nvme",
            std::slice::from_ref(&t),
            std::slice::from_ref(&o),
        );
        assert!(same.differs.is_empty());
        o.exit = 25;
        let out = compare(&sc, "nvme", &[t], &[o]);
        assert_eq!(out.differs.iter().collect::<Vec<_>>(), vec!["exit"]);
    }
}
