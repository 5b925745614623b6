//! The JSON format against its schema: every `--json` document our binary writes, over a broad
//! set of command lines, must be valid against `doc/hdparm-rs.schema.json` (draft 2020-12), as
//! judged by a real validator (Python's `jsonschema`, installed by scripts/test-all); broken
//! documents must be rejected by it; and the man page's JSON section must name what the schema
//! defines and point to it.
//!
//! The command lines: `--Istdin` over every IDENTIFY dump of tests/fixtures/identify and of the
//! shared corpus (`../shared/identify`, as tests/identify_golden.rs finds it); usage errors,
//! `-V`, `-h`; options on nodes that are not disks; and as root, on a loop device, the settings
//! gets and sets, `-i`, `-I`, the actions, the timings, and `--apply --dry-run`, `--apply` and
//! `--check` with a temporary hdparm.conf. The VM bench's JSON outputs are checked too when
//! `HDPARM_RS_VM_RESULTS` names its results (scripts/test-all does so after the bench).

mod common;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

fn schema_path() -> PathBuf {
    PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/doc/hdparm-rs.schema.json"
    ))
}

/// One document to check: the command line that wrote it, and its text.
struct Doc {
    origin: String,
    text: String,
}

/// The validator, run once over a directory of documents: one line per file, `OK name` or
/// `FAIL name: where: why`. It checks the schema itself first.
const VALIDATOR: &str = r#"
import json, os, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
jsonschema.Draft202012Validator.check_schema(schema)
validator = jsonschema.Draft202012Validator(schema)
for name in sorted(os.listdir(sys.argv[2])):
    try:
        with open(os.path.join(sys.argv[2], name)) as f:
            doc = json.load(f)
    except ValueError as e:
        print(f"FAIL {name}: not one JSON document: {e}")
        continue
    errors = list(validator.iter_errors(doc))
    if errors:
        e = jsonschema.exceptions.best_match(errors)
        where = "/".join(str(p) for p in e.absolute_path)
        print(f"FAIL {name}: at /{where}: {e.message[:300]}")
    else:
        print(f"OK {name}")
"#;

/// Whether the validator can run here; `Err` says what is missing.
fn validator_available() -> Result<(), String> {
    match Command::new("python3")
        .args([
            "-c",
            "import jsonschema; jsonschema.Draft202012Validator",
        ])
        .output()
    {
        Ok(o) if o.status.success() => Ok(()),
        Ok(o) => Err(format!(
            "Python's jsonschema (with draft 2020-12) is missing: {} (scripts/test-all installs python3-jsonschema)",
            String::from_utf8_lossy(&o.stderr).trim()
        )),
        Err(e) => Err(format!("python3 cannot run: {e}")),
    }
}

/// Validates every document; returns the failures, each naming the command line.
fn validate(tag: &str, docs: &[Doc]) -> Vec<String> {
    let dir = std::env::temp_dir().join(format!(
        "hdparm-rs-json-schema-{tag}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    for (i, doc) in docs.iter().enumerate() {
        std::fs::write(dir.join(format!("{i:05}.json")), &doc.text).expect("write document");
    }
    let out = Command::new("python3")
        .arg("-c")
        .arg(VALIDATOR)
        .arg(schema_path())
        .arg(&dir)
        .output()
        .expect("run python3");
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        out.status.success(),
        "the validator failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let report = String::from_utf8_lossy(&out.stdout).into_owned();
    let mut failures = Vec::new();
    let mut ok = 0;
    for line in report.lines() {
        let (verdict, rest) = line.split_once(' ').unwrap_or((line, ""));
        let name = rest.split(':').next().unwrap_or_default();
        let index: usize = name.trim_end_matches(".json").parse().unwrap_or(usize::MAX);
        let origin = docs.get(index).map_or("?", |d| d.origin.as_str());
        match verdict {
            "OK" => ok += 1,
            _ => failures.push(format!(
                "{origin}: {}",
                rest.split_once(": ").map_or(rest, |r| r.1)
            )),
        }
    }
    assert_eq!(
        ok + failures.len(),
        docs.len(),
        "the validator did not report on every document:\n{report}"
    );
    failures
}

/// Runs our binary; returns stdout as the document, and the exit status.
fn ours(args: &[&str], stdin: &[u8], records: &Path) -> (String, Option<i32>) {
    let mut child = Command::new(common::our_hdparm())
        .args(args)
        .env("HDPARM_RS_RECORD_DIR", records)
        .env_remove("ACTION")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run hdparm");
    if let Some(mut input) = child.stdin.take() {
        use std::io::Write;
        // A command that does not read stdin may close it first: that is not an error here.
        let _ = input.write_all(stdin);
    }
    let out = child.wait_with_output().expect("wait for hdparm");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        out.status.code(),
    )
}

/// Collects the documents of `cases` (each a command line and its stdin), checking that each
/// document's exit_status is the process's.
fn collect(cases: &[(Vec<String>, Vec<u8>)], records: &Path, docs: &mut Vec<Doc>) {
    for (args, stdin) in cases {
        let words: Vec<&str> = args.iter().map(String::as_str).collect();
        let (text, status) = ours(&words, stdin, records);
        let origin = format!("hdparm {}", args.join(" "));
        if let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) {
            assert_eq!(
                v["hdparm_rs"]["exit_status"].as_i64(),
                status.map(i64::from),
                "{origin}: the document's exit_status is not the process's"
            );
        }
        docs.push(Doc { origin, text });
    }
}

fn case(words: &[&str]) -> (Vec<String>, Vec<u8>) {
    (words.iter().map(|w| w.to_string()).collect(), Vec::new())
}

/// `$HDPARM_RS_IDENTIFY_CORPUS`, else the shared corpus beside the checkout or the worktree.
fn shared_corpus() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("HDPARM_RS_IDENTIFY_CORPUS") {
        return Some(PathBuf::from(dir));
    }
    [
        concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/identify"),
        concat!(env!("CARGO_MANIFEST_DIR"), "/../../shared/identify"),
    ]
    .iter()
    .map(PathBuf::from)
    .find(|p| p.is_dir())
}

fn hex_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "hex"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Every option's example from its definition (`cli::defs`), with `--json` and `device`; the
/// timings are left to the cases that run them once (each waits seconds before it reads).
fn option_examples(device: &str) -> Vec<(Vec<String>, Vec<u8>)> {
    let slow = ["-T", "-t", "--bench", "--bench-random"];
    hdparm::cli::defs::OPTIONS
        .iter()
        .filter(|def| !def.example.is_empty())
        .filter(|def| !def.example.iter().any(|w| slow.contains(w)))
        .map(|def| {
            let mut words = vec!["--json".to_string()];
            words.extend(def.example.iter().map(|w| w.to_string()));
            words.push(device.to_string());
            (words, Vec::new())
        })
        .collect()
}

/// The command lines that need no root and no disk.
fn unprivileged_cases(scratch: &Path) -> Vec<(Vec<String>, Vec<u8>)> {
    let mut cases = Vec::new();
    let mut dumps = hex_files(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/identify"
    )));
    match shared_corpus() {
        Some(dir) => dumps.extend(hex_files(&dir)),
        None => common::skip(
            "json_schema (shared corpus)",
            "the shared IDENTIFY corpus (../shared/identify) is not there",
        ),
    }
    assert!(!dumps.is_empty(), "no IDENTIFY fixtures found");
    for dump in &dumps {
        let input = std::fs::read(dump).expect("read fixture");
        cases.push((vec!["--json".into(), "--Istdin".into()], input));
    }
    cases.push((
        vec!["--json".into(), "--Istdin".into()],
        b"0040 3fff\n".to_vec(),
    ));
    let missing = "/dev/hdparm-rs-no-such-device";
    let dir = scratch.display().to_string();
    let file = scratch.join("plain-file").display().to_string();
    let _ = std::fs::write(&file, vec![0u8; 4096]);
    for words in [
        &["--json"][..],
        &["--json", "-S", "300", "/dev/null"],
        &["--json", "--jsno", "/dev/null"],
        &["--JSON", "-a", "-x", "/dev/null"],
        &["--json", "-V"],
        &["-V", "--json"],
        &["--json", "-h"],
        &["--json", "--help"],
        &["--json", "--security-mode", "x", "/dev/null"],
        &["--json", "-I", missing],
        &["--json", "-C", missing, "/dev/null"],
        &["--json", "-I", "/dev/null"],
        &["--json", "-i", "/dev/null"],
        &["--json", "-y", "-Y", "-z", "-F", "/dev/null"],
        &["--json", "-q", "-W", "-B", "-A", "/dev/null"],
        &["--json", "-W1", "-S5", "/dev/null"],
        &["--json", "-N", "-H", "/dev/null"],
        &["--json", "--read-sector", "0", "/dev/null"],
        &["--json", "--security-unlock", "pw", "/dev/null"],
        &[
            "--json",
            "--security-mode",
            "m",
            "--security-set-pass",
            "NULL",
            "/dev/null",
        ],
        &["--json", "--security-erase-enhanced", "pw", "/dev/null"],
        &["--json", "--sanitize-status", "--wait", "/dev/null"],
        &["--json", "-t", &dir],
        &["--json", "-g", "-a", &file],
        &["--json", "--fibmap", &file],
        &["--json", "--apply", "--dry-run", "--config", missing],
    ] {
        cases.push(case(words));
    }
    cases.extend(option_examples("/dev/null"));
    cases
}

#[test]
fn every_json_document_matches_the_schema() {
    if let Err(why) = validator_available() {
        return common::skip("every_json_document_matches_the_schema", &why);
    }
    let scratch = std::env::temp_dir().join(format!("hdparm-rs-json-cases-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let mut docs = library_documents();
    collect(&unprivileged_cases(&scratch), &scratch, &mut docs);
    if common::is_root() {
        match LoopDev::new(&scratch) {
            Some(lo) => collect(&loop_cases(&lo, &scratch), &scratch, &mut docs),
            None => common::skip(
                "every_json_document_matches_the_schema (loop device)",
                "losetup could not attach a loop device",
            ),
        }
    } else {
        common::skip(
            "every_json_document_matches_the_schema (loop device)",
            "needs root for losetup",
        );
    }
    let failures = validate("suite", &docs);
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("{} JSON documents checked against the schema", docs.len());
    assert!(
        failures.is_empty(),
        "{} of {} documents do not match doc/hdparm-rs.schema.json:\n  {}",
        failures.len(),
        docs.len(),
        failures.join("\n  ")
    );
}

/// Documents for what no device here can produce: `-i` (the kernel's identity of an ATA disk)
/// decoded from every IDENTIFY fixture, and one device with every settings line, made by the
/// library functions the binary uses and put in an envelope as `exec` does.
fn library_documents() -> Vec<Doc> {
    use hdparm::ata::values::Apm;
    use hdparm::report::envelope::{DeviceJson, Envelope};
    use hdparm::report::settings::{Outcome, PowerState, SettingsItem};
    let envelope = |origin: String, device: DeviceJson| {
        let mut env = Envelope::new(vec!["hdparm".into(), "--json".into(), "-i".into()]);
        env.devices.push(device);
        Doc {
            origin,
            text: env.render(),
        }
    };
    let mut docs = Vec::new();
    let mut dumps = hex_files(Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/identify"
    )));
    dumps.extend(shared_corpus().map(|d| hex_files(&d)).unwrap_or_default());
    for dump in dumps {
        let input = std::fs::read(&dump).expect("read fixture");
        let Ok(words) = hdparm::ata::identify_hex::parse_identify_hex(&input) else {
            continue;
        };
        let raw = hdparm::ata::identify::Identify::from_words(words).to_le_bytes();
        for multcount in [None, Some(0), Some(16)] {
            let report = hdparm::report::kernel_identity::kernel_identity_report(&raw, multcount);
            docs.push(envelope(
                format!("-i of {} (multcount {multcount:?})", dump.display()),
                DeviceJson {
                    name: "/dev/sdx".into(),
                    kernel_identity: Some(hdparm::report::identify_json::kernel_identity_value(
                        &report,
                    )),
                    ..Default::default()
                },
            ));
        }
    }
    let set = |option: &str, outcome| SettingsItem::Set {
        option: option.into(),
        value: 1,
        message: format!(" setting {option}"),
        outcome,
    };
    let settings = vec![
        SettingsItem::Multcount { count: 16 },
        SettingsItem::IoSupport { mode: 1 },
        SettingsItem::Unmaskirq { value: 0 },
        SettingsItem::UsingDma { value: 8 },
        SettingsItem::QueueDepth { depth: 32 },
        SettingsItem::Keepsettings { value: 0 },
        SettingsItem::Nowerr { value: 0 },
        SettingsItem::Readonly { value: 1 },
        SettingsItem::Readahead { sectors: 256 },
        SettingsItem::Geometry {
            cylinders: 1,
            heads: 2,
            sectors_per_track: 3,
            total_sectors: 4,
            start_sector: None,
        },
        SettingsItem::Geometry {
            cylinders: 1,
            heads: 2,
            sectors_per_track: 3,
            total_sectors: 4,
            start_sector: Some(0),
        },
        SettingsItem::DriveState {
            state: PowerState::NvcacheSpindown,
        },
        SettingsItem::LookAhead { enabled: None },
        SettingsItem::WriteCaching {
            enabled: Some(true),
        },
        SettingsItem::ApmLevel {
            apm: Apm::NotSupported,
        },
        SettingsItem::ApmLevel { apm: Apm::Disabled },
        SettingsItem::ApmLevel {
            apm: Apm::Enabled {
                level: 254,
                level_valid: true,
            },
        },
        SettingsItem::Acoustic { level: Some(128) },
        SettingsItem::Acoustic { level: None },
        SettingsItem::WriteReadVerify { value: Some(2) },
        SettingsItem::Busstate { value: 1 },
        set("-W", Outcome::Done),
        set("-B", Outcome::Failed),
    ];
    docs.push(envelope(
        "every settings line".into(),
        DeviceJson {
            name: "/dev/sdx".into(),
            settings,
            ..Default::default()
        },
    ));
    docs
}

/// A loop device over a file in `dir`, detached on drop.
struct LoopDev {
    dev: String,
}

impl LoopDev {
    fn new(dir: &Path) -> Option<LoopDev> {
        let file = dir.join("loop.img");
        std::fs::File::create(&file).ok()?.set_len(16 << 20).ok()?;
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&file)
            .output()
            .ok()?;
        if !out.status.success() {
            return None;
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Some(LoopDev { dev })
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("blockdev")
            .args(["--setrw", &self.dev])
            .status();
        let _ = Command::new("losetup").args(["-d", &self.dev]).status();
    }
}

/// The command lines run on the loop device (root).
fn loop_cases(lo: &LoopDev, scratch: &Path) -> Vec<(Vec<String>, Vec<u8>)> {
    let dev = lo.dev.as_str();
    let conf = scratch.join("hdparm.conf");
    // Every part of the --apply and --check documents: a setting that takes, one the loop
    // device rejects and cannot report (-W: drift from the record), one Debian's rules drop
    // (-S), a block for an absent device and a command_line block (the document's dropped).
    let _ = std::fs::write(
        &conf,
        format!(
            "{dev} {{\n read_ahead_sect = 64\n write_cache = off\n spindown_time = 24\n}}\n/dev/hdparm-rs-absent {{\n dma = on\n}}\ncommand_line {{\n}}\n"
        ),
    );
    let conf = conf.display().to_string();
    let raw = scratch.join("identify.raw").display().to_string();
    let mut cases = Vec::new();
    for words in [
        &["--json", dev][..],
        &["--json", "-v", dev],
        &[
            "--json", "-a", "-r", "-g", "-c", "-d", "-k", "-m", "-u", "-Q", dev,
        ],
        &["--json", "-a128", "-r1", dev],
        &["--json", "-r0", "-a256", dev, dev],
        &["--json", "-q", "-a", "-q", "-a64", dev],
        &["--json", "-i", dev],
        &["--json", "-I", dev],
        &["--json", "--Istdout", dev],
        &["--json", "--Iraw", &raw, dev],
        &[
            "--json", "-C", "-W", "-A", "-B", "-M", "-R", "-N", "-H", dev,
        ],
        &["--json", "-W0", "-B254", "-M128", "-S5", "-X", "udma5", dev],
        &[
            "--json",
            "-y",
            "-Y",
            "-z",
            "-f",
            "-F",
            "-w",
            "--idle-immediate",
            dev,
        ],
        &["--json", "--dco-freeze", "--security-freeze", "-Z", dev],
        &["--json", "--read-sector", "0", dev],
        &["--json", "-t", dev],
        &["--json", "-t", "--direct", "--offset", "1000", dev],
        &[
            "--json",
            "--bench",
            "--bench-trials",
            "1",
            "--bench-seconds",
            "1",
            dev,
        ],
        &["--json", "--apply", "--dry-run", "--config", &conf, dev],
        &[
            "--json",
            "--dry-run",
            "-a",
            "512",
            "-W0",
            "-B",
            "200",
            "-tT",
            dev,
        ],
        &["--json", "--dry-run", "--surface", "--zones", "3", dev],
        &[
            "--json",
            "--dry-run",
            "--surface",
            "/dev/hdparm-rs-no-such-disk",
        ],
        &[
            "--json",
            "--dry-run",
            "--experiment",
            "-a 8 -W0",
            "-a 256",
            "--keep",
            dev,
        ],
        &["--json", "--dry-run", "--fallocate", "4", &conf],
        &["--json", "--dry-run", "--advise", dev],
        &[
            "--json",
            "--dry-run",
            "--please-destroy-my-drive",
            "--trim-sector-ranges",
            "0:8",
            dev,
        ],
        &["--json", "--dry-run", "--security-set-pass", "pw", dev],
        &["--json", "--check", "--config", &conf, dev],
        &["--json", "--apply", "--config", &conf, dev],
        &["--json", "--check", "--config", &conf, dev],
        &["--json", "--apply", "--dry-run", "--config", &conf],
        &["--json", "--advise", dev],
        &["--json", "--surface-quick", "--zones", "2", dev],
        &["--json", "--surface", "/dev/hdparm-rs-no-such-disk"],
        &[
            "--json",
            "--experiment",
            "-a 8",
            "-a 256",
            "--trials",
            "2",
            dev,
        ],
    ] {
        cases.push(case(words));
    }
    cases.extend(option_examples(dev));
    cases
}

/// A few documents that must be valid, each with deliberate breakages that must not be.
#[test]
fn the_validator_rejects_broken_documents() {
    if let Err(why) = validator_available() {
        return common::skip("the_validator_rejects_broken_documents", &why);
    }
    let scratch =
        std::env::temp_dir().join(format!("hdparm-rs-json-broken-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).expect("scratch dir");
    let fixture = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/identify/ahci-hd.hex"
    ))
    .expect("fixture");
    let value = |args: &[&str], stdin: &[u8]| -> serde_json::Value {
        let (text, _) = ours(args, stdin, &scratch);
        serde_json::from_str(&text).unwrap_or_else(|e| panic!("{args:?}: {e}: {text}"))
    };
    let identify = value(&["--json", "--Istdin"], &fixture);
    let version = value(&["--json", "-V"], b"");
    let apply = value(
        &[
            "--json",
            "--apply",
            "--config",
            "/dev/hdparm-rs-no-such-conf",
        ],
        b"",
    );
    type Breakage = (&'static str, fn(&mut serde_json::Value));
    let breakages: &[(&serde_json::Value, &[Breakage])] = &[
        (
            &version,
            &[
                ("exit status as a string", |v| {
                    v["hdparm_rs"]["exit_status"] = "0".into()
                }),
                ("an exit status no class has", |v| {
                    v["hdparm_rs"]["exit_status"] = 7.into()
                }),
                ("format version 1", |v| {
                    v["json_format_version"] = serde_json::json!([1, 0])
                }),
                ("an unknown top-level key", |v| v["extra"] = true.into()),
                ("no messages", |v| {
                    v.as_object_mut().map(|o| o.remove("messages"));
                }),
                (
                    "a message with an unknown class",
                    |v| {
                        v["messages"] =
                            serde_json::json!([{"severity": "error", "class": "oops", "text": "x"}])
                    },
                ),
                ("a set without its outcome", |v| {
                    v["devices"] = serde_json::json!([{"name": "/dev/x", "messages": [],
                        "settings": [{"setting": "set", "option": "-W", "value": 1, "message": " setting"}]}])
                }),
                ("an unknown setting", |v| {
                    v["devices"] = serde_json::json!([{"name": "/dev/x", "messages": [],
                        "settings": [{"setting": "speed", "value": 1}]}])
                }),
                ("-i's old starred mode names", |v| {
                    v["devices"] = serde_json::json!([{"name": "/dev/x", "messages": [],
                        "kernel_identity": {"dma_modes": ["mdma0", "*mdma2"]}}])
                }),
                ("an action without its outcome", |v| {
                    v["devices"] = serde_json::json!([{"name": "/dev/x", "messages": [],
                        "actions": [{"action": "standby", "option": "-y"}]}])
                }),
            ],
        ),
        (
            &identify,
            &[
                ("a DMA mode as text", |v| {
                    v["devices"][0]["identify"]["capabilities"]["dma"]["modes"]["modes"][0] =
                        "*udma5".into()
                }),
                ("a size as a string", |v| {
                    v["devices"][0]["identify"]["configuration"]["addressing"]
                        ["device_size_bytes"] = "1 TB".into()
                }),
                ("an unknown device kind", |v| {
                    v["devices"][0]["identify"]["device"]["kind"] = "floppy".into()
                }),
                ("a misspelt key", |v| {
                    v["devices"][0]["identify"]["modle"] = "x".into()
                }),
            ],
        ),
        (
            &apply,
            &[
                (
                    "apply's old message shape",
                    |v| {
                        v["messages"] =
                            serde_json::json!([{"class": "cannot_open", "message": "x"}])
                    },
                ),
                ("an unknown mode", |v| v["mode"] = "force".into()),
            ],
        ),
    ];
    let mut docs = Vec::new();
    let mut expected_bad = Vec::new();
    for (good, breaks) in breakages {
        docs.push(Doc {
            origin: format!("unbroken {}", good["hdparm_rs"]["argv"]),
            text: good.to_string(),
        });
        for (what, breakage) in breaks.iter() {
            let mut broken = (*good).clone();
            breakage(&mut broken);
            expected_bad.push(what.to_string());
            docs.push(Doc {
                origin: what.to_string(),
                text: broken.to_string(),
            });
        }
    }
    docs.push(Doc {
        origin: "two documents".into(),
        text: format!("{version}\n{version}\n"),
    });
    expected_bad.push("two documents".into());
    let failures = validate("broken", &docs);
    let _ = std::fs::remove_dir_all(&scratch);
    let rejected: Vec<&str> = failures
        .iter()
        .map(|f| f.split(':').next().unwrap_or_default())
        .collect();
    let unbroken: Vec<&&str> = rejected
        .iter()
        .filter(|r| r.starts_with("unbroken"))
        .collect();
    assert!(
        unbroken.is_empty(),
        "valid documents rejected:\n{failures:#?}"
    );
    let accepted: Vec<&String> = expected_bad
        .iter()
        .filter(|b| !rejected.contains(&b.as_str()))
        .collect();
    assert!(
        accepted.is_empty(),
        "the validator accepted broken documents: {accepted:?}"
    );
}

/// The man page's JSON section names every key the schema defines for the document, the
/// device and the --apply document, and points to the schema file.
#[test]
fn the_man_page_json_section_follows_the_schema() {
    let schema: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(schema_path()).expect("read the schema"))
            .expect("the schema is JSON");
    let man = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm.8"))
        .expect("read doc/hdparm.8");
    let start = man.find(".SH JSON OUTPUT").expect("a JSON OUTPUT section");
    let section = &man[start + 1..];
    let section = &section[..section.find("\n.SH ").unwrap_or(section.len())];
    let section = section
        .replace("\\-", "-")
        .replace("\\fB", "")
        .replace("\\fR", "");
    assert!(
        section.contains("doc/hdparm-rs.schema.json"),
        "the JSON section does not point to doc/hdparm-rs.schema.json"
    );
    let mut missing = Vec::new();
    for def in ["report_document", "device", "apply_document", "action"] {
        let props = schema["$defs"][def]["properties"]
            .as_object()
            .unwrap_or_else(|| panic!("$defs/{def} has no properties"));
        for key in props.keys() {
            if !section.contains(key.as_str()) {
                missing.push(format!("{def}.{key}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "keys the schema defines that the man page's JSON section does not name: {missing:?}"
    );
    let version = &schema["$defs"]["format_version"]["prefixItems"][0]["const"];
    assert!(
        section.contains(&format!("[{version}, ")),
        "the man page does not give the format's major version {version}"
    );
}

/// The VM bench's JSON outputs (`*/<drive>/<scenario>/hdparm-rs.N.stdout` whose `.cmd` has
/// `--json`), when `HDPARM_RS_VM_RESULTS` names the results; scripts/test-all sets it after
/// the bench has run, so that the outputs checked are the ones this build wrote.
#[test]
fn vm_bench_json_outputs_match_the_schema() {
    let Some(root) = std::env::var_os("HDPARM_RS_VM_RESULTS").filter(|v| !v.is_empty()) else {
        eprintln!(
            "vm_bench_json_outputs_match_the_schema: HDPARM_RS_VM_RESULTS is not set; \
             scripts/test-all runs this after the VM bench"
        );
        return;
    };
    if let Err(why) = validator_available() {
        return common::skip("vm_bench_json_outputs_match_the_schema", &why);
    }
    let mut docs = Vec::new();
    let mut stack = vec![PathBuf::from(&root)];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for path in entries.filter_map(|e| e.ok().map(|e| e.path())) {
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            let Some(name) = name.filter(|n| n.starts_with("hdparm-rs.") && n.ends_with(".cmd"))
            else {
                continue;
            };
            let cmd = std::fs::read_to_string(&path).unwrap_or_default();
            if !cmd
                .split_whitespace()
                .any(|w| w.eq_ignore_ascii_case("--json"))
            {
                continue;
            }
            let stdout = path.with_file_name(name.replace(".cmd", ".stdout"));
            docs.push(Doc {
                origin: format!("{} ({})", stdout.display(), cmd.trim()),
                text: std::fs::read_to_string(&stdout).unwrap_or_default(),
            });
        }
    }
    if docs.is_empty() {
        return common::skip(
            "vm_bench_json_outputs_match_the_schema",
            "the VM results hold no --json output",
        );
    }
    let failures = validate("vm", &docs);
    eprintln!(
        "{} VM bench JSON documents checked against the schema",
        docs.len()
    );
    assert!(
        failures.is_empty(),
        "VM bench documents that do not match the schema:\n  {}",
        failures.join("\n  ")
    );
}

/// The schema's exit statuses and error classes are the table of src/error.rs, no more, no less.
#[test]
fn the_schemas_exit_statuses_and_classes_are_the_exit_table() {
    let schema: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/doc/hdparm-rs.schema.json"
        ))
        .expect("schema"),
    )
    .expect("schema JSON");
    let table = hdparm::error::ErrorClass::table();
    let mut statuses: Vec<u64> = table
        .iter()
        .filter(|(c, _)| !matches!(c, hdparm::error::ErrorClass::Stopped(_)))
        .map(|(c, _)| u64::from(c.exit_status()))
        .chain([0])
        .collect();
    statuses.sort();
    statuses.dedup();
    let exit = &schema["$defs"]["program"]["properties"]["exit_status"];
    let enumerated: Vec<u64> = exit["anyOf"][0]["enum"]
        .as_array()
        .expect("exit_status enum")
        .iter()
        .filter_map(|v| v.as_u64())
        .collect();
    assert_eq!(enumerated, statuses);
    assert_eq!(exit["anyOf"][1]["minimum"], 129);
    let mut names: Vec<&str> = table.iter().map(|(c, _)| c.name()).collect();
    let mut in_schema: Vec<&str> = schema["$defs"]["error_class"]["enum"]
        .as_array()
        .expect("error_class enum")
        .iter()
        .filter_map(|v| v.as_str())
        .collect();
    names.sort();
    in_schema.sort();
    assert_eq!(in_schema, names);
}
