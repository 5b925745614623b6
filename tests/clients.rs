//! The programs that run hdparm decide the same with ours, or better (issue 19). Debian's
//! tlp, tuned, laptop-mode-tools, hdparm's own wiper.sh, FusionInventory and OCS Inventory
//! read hdparm's output and act on it. Their own code (unpacked from Debian's packages by
//! `tests/clients/fetch.sh`, never installed: their services would retune this machine) runs
//! here against recordings of what Debian's hdparm and ours answered, in the VM, to the
//! command lines those programs run (`tests/fixtures/clients/`, written by
//! `tests/clients/record.sh` from `tests/vm/run.sh --profile clients`; tests/clients/README.md).
//! `tests/clients/stub/hdparm` replays a recording on PATH and logs every call.
//!
//! What a program decides is compared in three facets: `runs` (the hdparm command lines it
//! ran, in order: the settings it sends after reading), `shows` (what it prints or logs) and
//! `saves` (what it keeps: tuned's rollback values, the inventory's fields). Where they differ
//! on a drive kind in a drive state, a DIFFERENCES.md row `client:<program>:<kinds>:<state>`
//! must name every facet that differs, and every row must have seen each facet it names
//! differ (on each kind it lists): the rows are checked both ways, as the VM bench's are.
//! Not excused by any row: a command line the reference's replay ran that the recording lacks
//! (the scenario list misses it), a harness that fails, and our `-V` failing the version
//! checks of wiper.sh and the inventory agents.
//!
//! Recordings made with Debian's hdparm as ours (its `-V` in ours' files) are the harness's
//! self-check: every program must then decide the same, and no row applies.
//!
//! `HDPARM_RS_CLIENTS_RECORDINGS=DIR` replays other recordings (record.sh's `--out`, say from a
//! fresh VM run); `HDPARM_RS_CLIENTS_PKG=DIR` names the unpacked packages (default
//! `target/clients`).

mod common;

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command;

const FACETS: &[&str] = &["runs", "shows", "saves"];
const KINDS: &[&str] = common::VM_KINDS;

/// One program: the harness in tests/clients/ that runs its code, and how.
struct Client {
    name: &'static str,
    harness: &'static str,
    interpreter: &'static str,
    /// the device is an existing file outside /dev (laptop-mode-tools' by-id case) rather than
    /// `/dev/hrs-<kind>`, a name no device of this machine has
    device_is_file: bool,
}

const CLIENTS: &[Client] = &[
    Client {
        name: "tlp",
        harness: "tlp.sh",
        interpreter: "sh",
        device_is_file: false,
    },
    Client {
        name: "tuned",
        harness: "tuned.py",
        interpreter: "python3",
        device_is_file: false,
    },
    Client {
        name: "laptop-mode-tools",
        harness: "laptop-mode-tools.sh",
        interpreter: "sh",
        device_is_file: true,
    },
    Client {
        name: "wiper",
        harness: "wiper.sh",
        interpreter: "bash",
        device_is_file: false,
    },
    Client {
        name: "inventory",
        harness: "inventory.pl",
        interpreter: "perl",
        device_is_file: false,
    },
];

/// What one program decided on one recording.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Decision {
    facets: BTreeMap<&'static str, Vec<String>>,
    unrecorded: Vec<String>,
}

/// A recording pair: one drive kind in one state, both tools.
struct Recording {
    kind: String,
    state: String,
    files: [PathBuf; 2],
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn recordings(dir: &Path) -> Vec<Recording> {
    let mut out = Vec::new();
    let Ok(kinds) = std::fs::read_dir(dir) else {
        return out;
    };
    let mut kinds: Vec<_> = kinds.flatten().map(|e| e.path()).collect();
    kinds.sort();
    for kdir in kinds.iter().filter(|p| p.is_dir()) {
        let kind = kdir.file_name().unwrap().to_string_lossy().to_string();
        let mut names: Vec<String> = std::fs::read_dir(kdir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().to_string())
            .collect();
        names.sort();
        for name in &names {
            let Some(state) = name.strip_suffix(".hdparm.txt") else {
                continue;
            };
            let ours = kdir.join(format!("{state}.hdparm-rs.txt"));
            assert!(ours.exists(), "{}: no {}", kdir.display(), ours.display());
            out.push(Recording {
                kind: kind.clone(),
                state: state.to_string(),
                files: [kdir.join(name), ours],
            });
        }
    }
    out
}

/// Runs `client` on one tool's recording and returns its decision, or why the harness failed.
fn decide(
    client: &Client,
    rec: &Recording,
    file: &Path,
    pkg: &Path,
    scratch: &Path,
) -> Result<Decision, String> {
    let tag = format!(
        "{}-{}-{}-{}",
        client.name,
        rec.kind,
        rec.state,
        file.file_name().unwrap().to_string_lossy()
    );
    let log = scratch.join(format!("{tag}.log"));
    let dev = if client.device_is_file {
        let d = scratch.join("disk/by-id").join(format!("hrs-{}", rec.kind));
        std::fs::create_dir_all(d.parent().unwrap()).unwrap();
        std::fs::write(&d, b"").unwrap();
        d.to_string_lossy().to_string()
    } else {
        format!("/dev/hrs-{}", rec.kind)
    };
    let stubs = repo().join("tests/clients/stub");
    let path = format!(
        "{}:{}",
        stubs.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new(client.interpreter)
        .arg(repo().join("tests/clients").join(client.harness))
        .env("PATH", path)
        .env("CLIENTS_PKG", pkg)
        .env("CLIENTS_KIND", &rec.kind)
        .env("CLIENTS_STATE", &rec.state)
        .env("CLIENTS_DEV", &dev)
        .env("CLIENTS_RECORDING", file)
        .env("CLIENTS_LOG", &log)
        .env("LC_ALL", "C")
        .output()
        .map_err(|e| format!("{tag}: cannot run {}: {e}", client.interpreter))?;
    if !out.status.success() {
        return Err(format!(
            "{tag}: the harness failed ({}):\n{}{}",
            out.status,
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let mut d = Decision::default();
    let calls = std::fs::read_to_string(&log).unwrap_or_default();
    let _ = std::fs::remove_file(&log);
    for call in calls.lines() {
        if let Some(c) = call.strip_prefix("UNRECORDED ") {
            d.unrecorded.push(c.to_string());
        }
        d.facets.entry("runs").or_default().push(call.to_string());
    }
    let stdout = String::from_utf8_lossy(&out.stdout).replace(&dev, "DEV");
    for line in stdout.lines() {
        let (facet, text) = match line.strip_prefix("saves ") {
            Some(t) => ("saves", t),
            None => ("shows", line.strip_prefix("shows ").unwrap_or(line)),
        };
        d.facets.entry(facet).or_default().push(text.to_string());
    }
    Ok(d)
}

/// A `client:<program>:<kinds>:<state>` row of DIFFERENCES.md.
#[derive(Debug, Clone)]
struct ClientRow {
    key: String,
    program: String,
    kinds: Option<BTreeSet<String>>,
    state: String,
    facets: BTreeSet<String>,
}

impl ClientRow {
    fn matches(&self, program: &str, kind: &str, state: &str) -> bool {
        self.program == program
            && self.kinds.as_ref().map_or(true, |k| k.contains(kind))
            && match self.state.strip_suffix('*') {
                Some(prefix) => state.starts_with(prefix),
                None => self.state == state,
            }
    }
    /// A kind list beats `*`, a shorter list a longer one, a state a prefix (`bridge*`), a
    /// longer prefix a shorter one (`*` is the empty prefix).
    fn specificity(&self) -> usize {
        let kinds = self.kinds.as_ref().map_or(0, |k| 100 - k.len());
        let state = if self.state.ends_with('*') {
            self.state.len()
        } else {
            99
        };
        kinds * 100 + state
    }
}

fn client_rows(text: &str) -> Result<Vec<ClientRow>, Vec<String>> {
    let mut rows = Vec::new();
    let mut bad = Vec::new();
    for row in common::parse_rows(text) {
        let Some(rest) = row.key.strip_prefix("client:") else {
            continue;
        };
        let parts: Vec<&str> = rest.split(':').collect();
        let [program, kinds, state] = parts[..] else {
            bad.push(format!("{}: not client:<program>:<kinds>:<state>", row.key));
            continue;
        };
        if !CLIENTS.iter().any(|c| c.name == program) {
            bad.push(format!("{}: unknown program {program:?}", row.key));
        }
        let kinds = (kinds != "*").then(|| {
            let list: BTreeSet<String> = kinds.split(',').map(str::to_string).collect();
            for k in list.iter().filter(|k| !KINDS.contains(&k.as_str())) {
                bad.push(format!("{}: unknown drive kind {k:?}", row.key));
            }
            list
        });
        for f in row.streams.iter().filter(|f| !FACETS.contains(&f.as_str())) {
            bad.push(format!(
                "{}: unknown facet {f:?} (runs, shows, saves)",
                row.key
            ));
        }
        if row.streams.is_empty() {
            bad.push(format!("{}: names no facet", row.key));
        }
        rows.push(ClientRow {
            key: row.key.clone(),
            program: program.to_string(),
            kinds,
            state: state.to_string(),
            facets: row.streams,
        });
    }
    if bad.is_empty() {
        Ok(rows)
    } else {
        Err(bad)
    }
}

/// One program's decisions on one recording pair, where they differ.
struct Outcome {
    program: &'static str,
    kind: String,
    state: String,
    differ: BTreeSet<String>,
    diff: String,
}

/// The lines of a facet that only one tool's decision has (each once, in order), or the two
/// lists when they hold the same lines in another order.
fn facet_diff(facet: &str, a: &[String], b: &[String]) -> String {
    let only = |x: &[String], y: &[String]| -> Vec<String> {
        let mut seen = BTreeSet::new();
        x.iter()
            .filter(|l| !y.contains(l) && seen.insert(l.to_string()))
            .cloned()
            .collect()
    };
    let (oa, ob) = (only(a, b), only(b, a));
    let mut s = format!("    {facet}:\n");
    if oa.is_empty() && ob.is_empty() {
        s += &format!(
            "      hdparm:    {}\n      hdparm-rs: {}\n",
            a.join(" | "),
            b.join(" | ")
        );
    }
    for l in oa {
        s += &format!("      hdparm only:    {l}\n");
    }
    for l in ob {
        s += &format!("      hdparm-rs only: {l}\n");
    }
    s
}

/// Compares, applies the rows, and returns the report and the failures.
fn judge(outcomes: &[Outcome], rows: &[ClientRow]) -> (String, Vec<String>) {
    let mut report = String::new();
    let mut failures = Vec::new();
    // per row: the facets it covered, per kind
    let mut used: BTreeMap<&str, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for o in outcomes {
        let row = rows
            .iter()
            .filter(|r| r.matches(o.program, &o.kind, &o.state))
            .max_by_key(|r| r.specificity());
        let names: Vec<&str> = o.differ.iter().map(String::as_str).collect();
        match row {
            Some(r) if o.differ.is_subset(&r.facets) => {
                report += &format!(
                    "  {} on {} ({}): {} differ: {}\n",
                    o.program,
                    o.kind,
                    o.state,
                    names.join(", "),
                    r.key
                );
                used.entry(&r.key)
                    .or_default()
                    .entry(o.kind.clone())
                    .or_default()
                    .extend(o.differ.iter().cloned());
            }
            _ => failures.push(format!(
                "{} on {} ({}): {} differ{}, and no DIFFERENCES.md row `client:{}:<kinds>:<state>` \
                 names them:\n{}",
                o.program,
                o.kind,
                o.state,
                names.join(", "),
                row.map(|r| format!(" (the row {} names only {:?})", r.key, r.facets))
                    .unwrap_or_default(),
                o.program,
                o.diff
            )),
        }
    }
    for r in rows {
        let seen = used.get(r.key.as_str());
        let kinds: Vec<String> = match &r.kinds {
            Some(k) => k.iter().cloned().collect(),
            None => vec![String::new()],
        };
        for kind in kinds {
            let covered: BTreeSet<String> = match (seen, kind.is_empty()) {
                (Some(s), true) => s.values().flatten().cloned().collect(),
                (Some(s), false) => s.get(&kind).cloned().unwrap_or_default(),
                (None, _) => BTreeSet::new(),
            };
            let missing: Vec<&String> = r.facets.difference(&covered).collect();
            if !missing.is_empty() {
                failures.push(format!(
                    "stale row {}: {missing:?} did not differ{} in this run",
                    r.key,
                    if kind.is_empty() {
                        String::new()
                    } else {
                        format!(" on {kind}")
                    }
                ));
            }
        }
    }
    (report, failures)
}

/// The tools the harnesses need, and the Perl modules the inventory agents load.
fn missing_components(pkg: &Path) -> Option<String> {
    for c in CLIENTS {
        if Command::new(c.interpreter)
            .arg("-c")
            .arg("exit 0")
            .output()
            .is_err()
        {
            return Some(format!("no {} on PATH", c.interpreter));
        }
    }
    if Command::new("gawk").arg("BEGIN{}").output().is_err() {
        return Some("no gawk (wiper.sh's awk; Debian: gawk)".into());
    }
    let perl = Command::new("perl")
        .args([
            "-e",
            "use File::Which; use UNIVERSAL::require; use Net::IP; use XML::Simple;",
        ])
        .output();
    if !perl.is_ok_and(|o| o.status.success()) {
        return Some(
            "the inventory agents' Perl modules (libfile-which-perl libuniversal-require-perl \
             libnet-ip-perl libxml-simple-perl)"
                .into(),
        );
    }
    for p in [
        "tlp",
        "tuned",
        "laptop-mode-tools",
        "hdparm",
        "fusioninventory-agent",
        "ocsinventory-agent",
    ] {
        if !pkg.join(p).join(".unpacked").exists() {
            return Some(format!(
                "{} has no unpacked {p} (tests/clients/fetch.sh)",
                pkg.display()
            ));
        }
    }
    None
}

#[test]
fn programs_that_run_hdparm_decide_the_same_or_the_rows_say_why() {
    const TEST: &str = "programs_that_run_hdparm_decide_the_same_or_the_rows_say_why";
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("target"));
    let pkg = std::env::var_os("HDPARM_RS_CLIENTS_PKG")
        .map(PathBuf::from)
        .unwrap_or_else(|| target.join("clients"));
    if let Some(why) = missing_components(&pkg) {
        return common::skip(TEST, &why);
    }
    let dir = std::env::var_os("HDPARM_RS_CLIENTS_RECORDINGS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo().join("tests/fixtures/clients"));
    let recs = recordings(&dir);
    assert!(!recs.is_empty(), "no recordings in {}", dir.display());
    let text = std::fs::read_to_string(repo().join("DIFFERENCES.md")).unwrap();
    let rows = client_rows(&text).unwrap_or_else(|bad| panic!("{}", bad.join("\n")));
    let scratch = std::env::temp_dir().join(format!("hdparm-rs-clients-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();

    // every program on every recording, both tools; two at a time (the machine has two cores)
    let jobs: Vec<(&Client, &Recording)> = CLIENTS
        .iter()
        .flat_map(|c| recs.iter().map(move |r| (c, r)))
        .collect();
    let results: Vec<Result<[Decision; 2], String>> = std::thread::scope(|s| {
        let half = jobs.len().div_ceil(2);
        let handles: Vec<_> = jobs
            .chunks(half)
            .map(|chunk| {
                let (pkg, scratch) = (&pkg, &scratch);
                s.spawn(move || {
                    chunk
                        .iter()
                        .map(|(c, r)| {
                            Ok([
                                decide(c, r, &r.files[0], pkg, scratch)?,
                                decide(c, r, &r.files[1], pkg, scratch)?,
                            ])
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap())
            .collect()
    });
    let _ = std::fs::remove_dir_all(&scratch);

    let mut failures = Vec::new();
    let mut outcomes = Vec::new();
    let mut same = 0;
    for ((client, rec), result) in jobs.iter().zip(results) {
        let [reference, ours] = match result {
            Ok(d) => d,
            Err(e) => {
                failures.push(e);
                continue;
            }
        };
        if !reference.unrecorded.is_empty() {
            failures.push(format!(
                "{} on {} ({}): the reference's replay ran command lines the recording lacks \
                 (add them to tests/vm/scenarios/clients.tsv and record again): {:?}",
                client.name, rec.kind, rec.state, reference.unrecorded
            ));
        }
        // our -V must pass the version checks (no row excuses that)
        let shows = ours.facets.get("shows").cloned().unwrap_or_default();
        for must in match client.name {
            "wiper" => &["version: exit 0"][..],
            "inventory" => &[
                "fusioninventory: hdparm usable: yes",
                "ocsinventory: hdparm usable: yes",
            ][..],
            _ => &[][..],
        } {
            if !shows.iter().any(|l| l == must) {
                failures.push(format!(
                    "{} on {} ({}): with our -V, no line {must:?}:\n{}",
                    client.name,
                    rec.kind,
                    rec.state,
                    shows.join("\n")
                ));
            }
        }
        let mut differ = BTreeSet::new();
        let mut diff = String::new();
        for f in FACETS {
            let (a, b) = (
                reference.facets.get(f).cloned().unwrap_or_default(),
                ours.facets.get(f).cloned().unwrap_or_default(),
            );
            if a != b {
                differ.insert(f.to_string());
                diff += &facet_diff(f, &a, &b);
            }
        }
        if differ.is_empty() {
            same += 1;
        } else {
            outcomes.push(Outcome {
                program: client.name,
                kind: rec.kind.clone(),
                state: rec.state.clone(),
                differ,
                diff,
            });
        }
    }
    // The self-check (recordings with Debian's hdparm as ours: `tests/vm/run.sh --bin
    // /usr/sbin/hdparm`): every program must decide the same, and no row applies.
    let self_check = recs.iter().all(|r| {
        std::fs::read_to_string(&r.files[1])
            .is_ok_and(|t| t.contains("=== -V\nexit 0\nstdout\n|hdparm v9.65\n"))
    });
    let rows = if self_check {
        println!("clients: self-check (ours is hdparm 9.65 too): no DIFFERENCES.md row applies");
        Vec::new()
    } else {
        rows
    };
    let (report, mut judged) = judge(&outcomes, &rows);
    failures.append(&mut judged);
    println!(
        "clients: {} programs x {} recordings ({}): {same} decide the same, {} differ:\n{report}",
        CLIENTS.len(),
        recs.len(),
        dir.display(),
        outcomes.len()
    );
    for o in &outcomes {
        println!("  {} on {} ({}):\n{}", o.program, o.kind, o.state, o.diff);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[cfg(test)]
mod rows {
    use super::*;

    fn outcome(program: &'static str, kind: &str, state: &str, differ: &[&str]) -> Outcome {
        Outcome {
            program,
            kind: kind.into(),
            state: state.into(),
            differ: differ.iter().map(|s| s.to_string()).collect(),
            diff: String::new(),
        }
    }

    #[test]
    fn a_difference_needs_a_row_naming_its_facets_and_a_row_must_have_seen_them() {
        let text = "| key | differs in | why |\n|---|---|---|\n\
            | client:tuned:nvme:* | runs, shows | x |\n\
            | client:tuned:nvme:standby | runs | x |\n\
            | client:tlp:*:active | saves | x |\n";
        let rows = client_rows(text).unwrap();
        // covered by the kind row; the state row is more specific for standby
        let (_, f) = judge(
            &[
                outcome("tuned", "nvme", "active", &["runs", "shows"]),
                outcome("tuned", "nvme", "standby", &["runs"]),
            ],
            &rows[..2],
        );
        assert!(f.is_empty(), "{f:?}");
        // standby's row names runs only: shows is not excused
        let (_, f) = judge(
            &[outcome("tuned", "nvme", "standby", &["runs", "shows"])],
            &rows[..2],
        );
        assert!(f.iter().any(|f| f.contains("names only")), "{f:?}");
        // a row that saw nothing is stale
        let (_, f) = judge(&[], &rows[2..]);
        assert!(
            f.iter()
                .any(|f| f.starts_with("stale row client:tlp:*:active")),
            "{f:?}"
        );
        // no row at all
        let (_, f) = judge(&[outcome("wiper", "ide-hd", "active", &["shows"])], &rows);
        assert!(
            f.iter().any(|f| f.contains("no DIFFERENCES.md row")),
            "{f:?}"
        );
        assert!(client_rows("| client:nope:*:* | runs | x |\n").is_err());
        assert!(client_rows("| client:tlp:floppy:* | runs | x |\n").is_err());
        assert!(client_rows("| client:tlp:*:* | stdout | x |\n").is_err());
    }
}
