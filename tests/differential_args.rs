//! Differential test of the command-line grammar: a few hundred argument vectors, valid and
//! invalid, fed to our binary and to the real hdparm 9.65 wherever the result is observable
//! without a drive (usage errors, range errors, `-h`, help texts, `--Istdin` input). stdout,
//! stderr (after `common::normalise_stderr`) and the exit status must be identical, except for
//! cases listed in DIFFERENCES.md under `args:<name>`, whose "differs in" column names every
//! stream that differs: a row that excuses the exit status does not excuse stdout. An `args:`
//! row that excused nothing in a stream it names fails the test too.
//!
//! Every vector here fails (or finishes) before hdparm would open a device, so no device is
//! touched by either binary.

mod common;

use hdparm::cli::defs::{Origin, Role, Value, OPTIONS};
use std::collections::{BTreeMap, BTreeSet};
use std::io::Write;
use std::process::{Command, Stdio};

struct Case {
    /// Key for DIFFERENCES.md (`args:<name>`).
    name: String,
    args: Vec<String>,
    stdin: Option<String>,
}

fn case(args: &[&str]) -> Case {
    Case {
        name: args.join(" "),
        args: args.iter().map(|s| s.to_string()).collect(),
        stdin: None,
    }
}

/// The short letters of hdparm 9.65, from the option definitions (`-U` and `-x`, listed as
/// obsolete and rejected, are among the unknown letters below).
fn letters() -> Vec<char> {
    OPTIONS
        .iter()
        .filter(|d| d.origin == Origin::Hdparm && d.role != Role::Obsolete)
        .filter_map(|d| d.short.map(char::from))
        .filter(|c| *c != 'h' && *c != 'V')
        .collect()
}

/// The long names of hdparm 9.65, from the option definitions.
fn long_names() -> Vec<&'static str> {
    OPTIONS
        .iter()
        .filter(|d| d.origin == Origin::Hdparm)
        .filter_map(|d| d.long)
        .collect()
}

/// The set-only numeric short options (their value is required), from the definitions.
fn numeric_set_only() -> Vec<char> {
    OPTIONS
        .iter()
        .filter(|d| d.role == Role::SetOnly && matches!(d.value, Value::Decimal { .. }))
        .filter_map(|d| d.short.map(char::from))
        .collect()
}

/// The numeric short options with their ranges (reference §1.3), from the definitions.
fn numeric() -> Vec<(char, i64, i64)> {
    OPTIONS
        .iter()
        .filter_map(|d| match (d.short, d.value) {
            (Some(c), Value::Decimal { min, max, .. }) => {
                Some((char::from(c), i64::from(min), i64::from(max)))
            }
            _ => None,
        })
        .collect()
}

fn cases() -> Vec<Case> {
    // No arguments, a lone dash, help texts.
    let mut v = vec![
        case(&[]),
        case(&["-"]),
        case(&["-h"]),
        case(&["-hx"]),
        case(&["-qh"]),
        case(&["--security-help"]),
        case(&["--SECURITY-HELP"]),
        case(&["-a", "--security-help"]),
    ];
    // Every letter alone (a flag word with nothing after it: clue 11, or a range error).
    for l in letters() {
        v.push(case(&[&format!("-{l}")]));
    }
    // Letters hdparm does not know, alone and before a device.
    for l in "eGjlOoUx".chars() {
        v.push(case(&[&format!("-{l}"), "/dev/null"]));
        v.push(case(&[&format!("-a{l}"), "/dev/null"]));
    }
    // Numeric options: out of range above and below, attached and separate, junk after.
    for (l, _min, max) in numeric() {
        let over = (max + 1).to_string();
        v.push(case(&[&format!("-{l}{over}"), "/dev/null"]));
        v.push(case(&[&format!("-{l}"), &over, "/dev/null"]));
        v.push(case(&[&format!("-q{l}{over}"), "/dev/null"]));
        v.push(case(&[&format!("-{l}0x"), "/dev/null"]));
        v.push(case(&[&format!("-{l}1Z-"), "/dev/null"]));
        v.push(case(&[&format!("-{l}99999999999"), "/dev/null"]));
        v.push(case(&[&format!("-{l}"), "1", "-x", "/dev/null"]));
    }
    // Set-only options need digits.
    let set_only = numeric_set_only();
    for l in set_only {
        v.push(case(&[&format!("-{l}"), "/dev/null"]));
        v.push(case(&[&format!("-{l}"), "x", "/dev/null"]));
    }
    // Long options: alone (clue 11 or a value error), mixed case, unknown names.
    for name in long_names() {
        v.push(case(&[&format!("--{name}")]));
        v.push(case(&[&format!("--{}", name.to_uppercase())]));
        v.push(case(&["-a", &format!("--{name}")]));
    }
    for name in ["foo", "json-x", "x-", "helpme", "Verbose-"] {
        v.push(case(&[&format!("--{name}"), "/dev/null"]));
        v.push(case(&["-a", &format!("--{name}"), "/dev/null"]));
    }
    // 64-bit values: bad, negative, too big, octal and hex with junk after.
    for opt in [
        "--read-sector",
        "--write-sector",
        "--repair-sector",
        "--make-bad-sector",
        "--offset",
        "--dco-setmax",
    ] {
        for val in [
            "-1",
            "x",
            "281474976710656",
            "99999999999999999999",
            "18446744073709551616",
            "0x10x",
            "010x",
            "1.5",
        ] {
            if !(opt == "--offset" && val == "281474976710656") {
                v.push(case(&[opt, val, "/dev/null"]));
            }
        }
    }
    for val in ["-1", "0", "281474976710656", "0x", "px", "5x", "p-1"] {
        v.push(case(&["-N", val, "/dev/null"]));
        v.push(case(&[&format!("-N{val}"), "/dev/null"]));
    }
    for val in ["511", "4225", "x", "0x1081"] {
        v.push(case(&["--set-sector-size", val, "/dev/null"]));
    }
    for val in ["8", "-1", "x"] {
        v.push(case(&["--sanitize-overwrite-passes", val, "/dev/null"]));
    }
    // Trim ranges.
    for r in [
        "1", "1:", "1:0", "1:65536", "x:1", "1:2 3", "1:2 3:x", "1:2:3",
    ] {
        let mut a = vec!["--trim-sector-ranges"];
        a.extend(r.split(' '));
        a.push("/dev/null");
        v.push(case(&a));
    }
    // Security passwords and sanitize patterns.
    for pw in [
        "hex:12",
        "hex:zz00000000000000000000000000000000000000000000000000000000000000",
        "012345678901234567890123456789012",
    ] {
        v.push(case(&["--security-unlock", pw, "/dev/null"]));
    }
    v.push(case(&["--security-unlock"]));
    v.push(case(&["--security-unlock", "pw"]));
    v.push(case(&["--security-erase", "pw"]));
    for pat in ["hex:1234", "1234abcd", "hex:1234567g"] {
        v.push(case(&["--sanitize-overwrite", pat, "/dev/null"]));
    }
    v.push(case(&["--sanitize-overwrite"]));
    for who in ["x", "q"] {
        v.push(case(&["--security-mode", who, "/dev/null"]));
        v.push(case(&["--user-master", who, "/dev/null"]));
    }
    // Standalone options must come first, and nothing may follow them.
    for name in [
        "sanitize-status",
        "dco-restore",
        "security-unlock pw",
        "sanitize-freeze-lock",
    ] {
        let mut a = vec!["-q".to_string()];
        a.extend(format!("--{name}").split(' ').map(String::from));
        a.push("/dev/null".into());
        let refs: Vec<&str> = a.iter().map(|s| s.as_str()).collect();
        v.push(case(&refs));
        let mut b: Vec<String> = format!("--{name}").split(' ').map(String::from).collect();
        b.push("-a".into());
        b.push("/dev/null".into());
        let refs: Vec<&str> = b.iter().map(|s| s.as_str()).collect();
        v.push(case(&refs));
    }
    v.push(case(&["--dco-setmax"]));
    v.push(case(&["--Istdin", "/dev/null"]));
    v.push(case(&["-a", "--Istdin"]));
    v.push(case(&["--Iraw"]));
    v.push(case(&["--fibmap"]));
    v.push(case(&["--fibmap", "/x", "/y"]));
    v.push(case(&["-a", "--fibmap", "/x"]));
    v.push(case(&["--fallocate"]));
    v.push(case(&["--fallocate", "x", "/tmp/f"]));
    v.push(case(&["--fallocate", "5"]));
    v.push(case(&["--fallocate", "5", "/tmp/f", "/tmp/g"]));
    // -X with names: an invalid one warns; before the error below nothing runs.
    for m in ["udma5", "foo", "pio9", "mdma2", "sdma7", "69", "4294967296"] {
        v.push(case(&["-X", m, "-x", "/dev/null"]));
        v.push(case(&["-p", m, "-x", "/dev/null"]));
    }
    // Clusters that end in junk.
    for w in [
        "-Tt1",
        "-cdgkmurx",
        "-m16d1x",
        "-rm16gqx",
        "-tTq9",
        "-q-",
        "-a-x",
    ] {
        v.push(case(&[w, "/dev/null"]));
    }
    // --Istdin with input that is too short or not hex (no decode is reached).
    for input in ["", "zzzz\n", "0040 3fff\n", "garbage line\n0040\n"] {
        v.push(Case {
            name: format!("--Istdin <<< {input:?}"),
            args: vec!["--Istdin".into()],
            stdin: Some(input.to_string()),
        });
    }
    v
}

struct Outcome {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: Option<i32>,
}

fn run(program: &std::path::Path, c: &Case) -> Outcome {
    let mut cmd = Command::new(program);
    // Both programs print their basename in the usage text.
    cmd.args(&c.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(child) => child,
        Err(e) => panic!("cannot run {}: {e}", program.display()),
    };
    if let Some(mut stdin) = child.stdin.take() {
        let _ = stdin.write_all(c.stdin.as_deref().unwrap_or("").as_bytes());
    }
    let out = child.wait_with_output().expect("wait");
    Outcome {
        stdout: out.stdout,
        stderr: out.stderr,
        status: out.status.code(),
    }
}

/// A DIFFERENCES.md key matches a case exactly, or by prefix when it ends in `*`.
fn key_matches(key: &str, case: &str) -> bool {
    match key.strip_suffix('*') {
        Some(prefix) => case.starts_with(prefix),
        None => key == case,
    }
}

/// The streams in which two runs differ: `stdout`, `stderr` (after the normalisation of
/// `common::normalise_stderr`) and `exit`.
fn differing_streams(
    reference: &std::path::Path,
    want: &Outcome,
    ours: &std::path::Path,
    got: &Outcome,
) -> BTreeSet<String> {
    let mut differs = BTreeSet::new();
    if want.stdout != got.stdout {
        differs.insert("stdout".to_string());
    }
    let (te, oe) = common::normalise_stderr(
        &want.stderr,
        &reference.to_string_lossy(),
        &got.stderr,
        &ours.to_string_lossy(),
    );
    if te != oe {
        differs.insert("stderr".to_string());
    }
    if want.status != got.status {
        differs.insert("exit".to_string());
    }
    differs
}

/// The `args:` row that excuses a difference: the most specific matching key (an exact name
/// beats a prefix, a longer prefix a shorter one) that names every stream that differs.
fn covering_row<'r>(
    rows: &'r [common::Row],
    name: &str,
    differs: &BTreeSet<String>,
) -> Option<&'r common::Row> {
    rows.iter()
        .filter(|r| key_matches(&r.key, name) && differs.is_subset(&r.streams))
        .max_by_key(|r| (!r.key.ends_with('*'), r.key.len()))
}

#[test]
fn grammar_matches_reference_hdparm() {
    let Some(reference) = common::reference_hdparm() else {
        common::skip(
            "grammar_matches_reference_hdparm",
            "the reference hdparm 9.65 is not installed (apt-get install hdparm)",
        );
        return;
    };
    let ours = common::our_hdparm();
    let rows: Vec<common::Row> = common::difference_rows()
        .into_iter()
        .filter(|r| r.key.starts_with("args:"))
        .collect();
    let all = cases();
    assert!(all.len() >= 200, "only {} cases", all.len());
    let mut identical = 0;
    let mut unexpected = Vec::new();
    // row key -> the streams it was seen to excuse
    let mut used: BTreeMap<&str, BTreeSet<String>> = BTreeMap::new();
    for c in &all {
        let want = run(&reference, c);
        let got = run(&ours, c);
        let differs = differing_streams(&reference, &want, &ours, &got);
        if differs.is_empty() {
            identical += 1;
            continue;
        }
        let name = format!("args:{}", c.name);
        match covering_row(&rows, &name, &differs) {
            Some(row) => used.entry(&row.key).or_default().extend(differs),
            None => unexpected.push(format!(
                "[{}] differs in {}, and no row names all of them\n  exit: hdparm {:?} ours {:?}\n  stdout: hdparm {:?}\n          ours   {:?}\n  stderr: hdparm {:?}\n          ours   {:?}",
                c.name,
                differs.iter().cloned().collect::<Vec<_>>().join(", "),
                want.status,
                got.status,
                String::from_utf8_lossy(&want.stdout).chars().take(200).collect::<String>(),
                String::from_utf8_lossy(&got.stdout).chars().take(200).collect::<String>(),
                String::from_utf8_lossy(&want.stderr).chars().take(300).collect::<String>(),
                String::from_utf8_lossy(&got.stderr).chars().take(300).collect::<String>(),
            )),
        }
    }
    // A row must have excused every stream it names, or it hides what it does not need to.
    // A row that matches no case at all is stale too: it would excuse whatever a new case under
    // that name did (behaviour with no case here belongs in a `cli:` row).
    let stale: Vec<String> = rows
        .iter()
        .filter_map(|r| {
            let seen = used.get(r.key.as_str()).cloned().unwrap_or_default();
            let missing: Vec<&str> = r.streams.difference(&seen).map(String::as_str).collect();
            (!missing.is_empty()).then(|| {
                format!(
                    "DIFFERENCES.md row `{}` names {} but no case differed there",
                    r.key,
                    missing.join(", ")
                )
            })
        })
        .collect();
    eprintln!(
        "grammar: {identical} of {} identical to hdparm 9.65",
        all.len()
    );
    assert!(
        unexpected.is_empty() && stale.is_empty(),
        "{} unlisted differences, {} stale rows:\n{}\n{}",
        unexpected.len(),
        stale.len(),
        unexpected.join("\n"),
        stale.join("\n")
    );
}

#[test]
fn our_extensions_behave() {
    let ours = common::our_hdparm();
    // -V reads as hdparm 9.65 to the scripts that check it, and names our own version after.
    let v = run(&ours, &case(&["-V"]));
    assert_eq!(v.status, Some(0));
    assert_eq!(
        String::from_utf8_lossy(&v.stdout),
        format!("hdparm v9.65.0 (hdparm-rs {})\n", env!("CARGO_PKG_VERSION"))
    );
    // --help is hdparm's usage plus our options, on stdout, exit 0.
    let h = run(&ours, &case(&["--help"]));
    assert_eq!(h.status, Some(0));
    let text = String::from_utf8_lossy(&h.stdout);
    assert!(text.contains(" -a   Get/set fs readahead"));
    assert!(text.contains("--json"));
    assert!(text.contains("hdparm 2.0 form"));
}
