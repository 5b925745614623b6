//! NVMe (issue 10): hdparm-rs's NVMe jobs on QEMU's NVMe drive, checked against Debian's
//! nvme-cli in the same guest, and, for what QEMU 7.2's controller lacks (Sanitize, Firmware
//! Download/Commit, APST), against what nvme-cli sends to the controller model of
//! `tools/nvme-model` (an `LD_PRELOAD` ioctl interposer preloaded into both tools).
//!
//! It boots `tests/vm/run.sh --profile nvme` (scenarios in `tests/vm/scenarios/nvme.tsv`) and
//! reads the records of the hdparm-rs pass. Checked:
//! - every value of `-I --json`'s `nvme.controller` and `nvme.namespace` objects that
//!   `nvme id-ctrl -o json` / `nvme id-ns -o json` also report, key by key (power states and
//!   LBA formats element by element), plus the derived values (capacity, format in use,
//!   thresholds, write cache, APST support); the report says N of M equal;
//! - `-W0` then `nvme get-feature -f 6` reads 0, `-W1` reads 1;
//! - `-C`'s power state is `nvme get-feature -f 2`'s; `-H`'s temperature is `smart-log`'s;
//! - a trimmed range reads as zeros and its neighbour does not; `--write-sector` zeroes its
//!   block; `--security-erase` (Format NVM) leaves the range zero and sends what `nvme format
//!   -s 1` sends;
//! - `--sanitize-*` sends what `nvme sanitize -a 4|2|3` sends, `--fwdownload` what
//!   `nvme fw-download` + `nvme fw-commit` send (opcode, nsid, CDW10-15, data digest), and
//!   `-S`/`-B` leave APST as `nvme get-feature -f 0xc` then reads it.
//!
//! Runs with `HDPARM_RS_VM=1` or under `HDPARM_RS_REQUIRE_ALL=1` (CI), or on results already
//! there with `HDPARM_RS_VM_RESULTS=DIR` (reads `DIR/nvme/`).

mod common;

use serde_json::Value;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Command;

const TEST: &str = "vm_nvme_matches_nvme_cli";
const EXIT_UNAVAILABLE: i32 = 77;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn env_set(name: &str) -> bool {
    std::env::var(name).is_ok_and(|v| !v.is_empty() && v != "0")
}

fn cargo_release(args: &[&str]) {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_string());
    let status = Command::new(cargo)
        .arg("build")
        .arg("--release")
        .args(args)
        .current_dir(repo())
        .status()
        .unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    assert!(status.success(), "cargo build --release {args:?} failed");
}

/// Boots the nvme profile into `out`; Err(reason) when a component is missing.
fn boot(out: &Path) -> Result<(), String> {
    let target =
        std::env::var("CARGO_TARGET_DIR").map_or_else(|_| repo().join("target"), PathBuf::from);
    let bin = match std::env::var("HDPARM_RS_BIN") {
        Ok(b) => PathBuf::from(b),
        Err(_) => {
            cargo_release(&["--bin", "hdparm"]);
            target.join("release/hdparm")
        }
    };
    cargo_release(&["-p", "nvme-model"]);
    let status = Command::new(repo().join("tests/vm/run.sh"))
        .args(["--profile", "nvme", "--bin"])
        .arg(&bin)
        .arg("--out")
        .arg(out)
        .env(
            "HDPARM_RS_NVME_MODEL",
            target.join("release/libnvme_model.so"),
        )
        .status()
        .map_err(|e| format!("cannot start tests/vm/run.sh: {e}"))?;
    match status.code() {
        Some(0) => Ok(()),
        Some(EXIT_UNAVAILABLE) => {
            Err("tests/vm/run.sh --profile nvme: a component is missing".into())
        }
        _ => panic!("tests/vm/run.sh --profile nvme failed: {status}"),
    }
}

/// The records of the nvme profile's run: `dir/nvme/<scenario>/hdparm-rs.<step>.*`.
struct Records {
    dir: PathBuf,
}

impl Records {
    fn get(&self, scenario: &str, step: u32, what: &str) -> String {
        let p = self
            .dir
            .join("nvme")
            .join(scenario)
            .join(format!("hdparm-rs.{step}.{what}"));
        std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
    }
    fn stdout(&self, scenario: &str, step: u32) -> String {
        self.get(scenario, step, "stdout")
    }
    fn json(&self, scenario: &str, step: u32) -> Value {
        let text = self.stdout(scenario, step);
        serde_json::from_str(&text)
            .unwrap_or_else(|e| panic!("{scenario} step {step}: not JSON ({e}): {text}"))
    }
    fn number(&self, scenario: &str, step: u32) -> u64 {
        let text = self.stdout(scenario, step);
        text.trim()
            .parse()
            .unwrap_or_else(|_| panic!("{scenario} step {step}: not a number: {text:?}"))
    }
}

/// nvme-cli's `get-feature` value (`Current value:0x00000001` or `Current value:00000000`).
fn feature_value(text: &str) -> Option<u32> {
    let rest = &text[text.find("Current value:")? + "Current value:".len()..];
    let word = rest.split_whitespace().next()?;
    u32::from_str_radix(word.trim_start_matches("0x"), 16).ok()
}

/// A JSON scalar as text to compare: strings without their padding, numbers (nvme-cli prints
/// 128-bit ones as strings) as decimal.
fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.trim_end().to_string()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

#[derive(Default)]
struct Tally {
    compared: usize,
    equal: usize,
    lines: Vec<String>,
    failures: Vec<String>,
    not_in_nvme_cli: Vec<String>,
}

impl Tally {
    fn check(&mut self, name: &str, ours: &str, theirs: &str) {
        self.compared += 1;
        if ours == theirs {
            self.equal += 1;
            self.lines.push(format!("  = {name}: {ours}"));
        } else {
            self.lines
                .push(format!("  ! {name}: ours {ours}, nvme-cli {theirs}"));
            self.failures
                .push(format!("{name}: ours {ours}, nvme-cli {theirs}"));
        }
    }

    /// Every key of `ours` that `theirs` also has, recursively (arrays element by element).
    fn compare(&mut self, path: &str, ours: &Value, theirs: &Value) {
        match (ours, theirs) {
            (Value::Object(o), Value::Object(t)) => {
                for (k, v) in o {
                    let p = format!("{path}.{k}");
                    match t.get(k) {
                        Some(tv) => self.compare(&p, v, tv),
                        None => self.not_in_nvme_cli.push(p),
                    }
                }
            }
            (Value::Array(o), Value::Array(t)) => {
                if o.len() != t.len() {
                    self.check(
                        &format!("{path}.len"),
                        &o.len().to_string(),
                        &t.len().to_string(),
                    );
                }
                for (i, (a, b)) in o.iter().zip(t).enumerate() {
                    self.compare(&format!("{path}[{i}]"), a, b);
                }
            }
            (a, b) => match (scalar(a), scalar(b)) {
                (Some(x), Some(y)) => self.check(path, &x, &y),
                _ => self.check(path, &a.to_string(), &b.to_string()),
            },
        }
    }
}

/// The model's log lines of some opcodes, without who answered (the model or the device).
fn admin_lines(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with("admin op="))
        .map(|l| l.rsplit_once(" by=").map_or(l, |(a, _)| a).to_string())
        .collect()
}

#[test]
fn vm_nvme_matches_nvme_cli() {
    let reuse = std::env::var("HDPARM_RS_VM_RESULTS")
        .ok()
        .filter(|v| !v.is_empty());
    if reuse.is_none() && !env_set("HDPARM_RS_VM") && !common::require_all() {
        common::skip(
            TEST,
            "boots QEMU for about a minute; set HDPARM_RS_VM=1 to run it",
        );
        return;
    }
    let root = match reuse {
        Some(dir) => PathBuf::from(dir),
        None => {
            let root = repo().join("tests/vm/out");
            if let Err(why) = boot(&root.join("nvme")) {
                return common::skip(TEST, &why);
            }
            root
        }
    };
    // DIR/nvme (the profile's results), whose nvme/ holds the drive kind's scenarios.
    let r = Records {
        dir: root.join("nvme"),
    };
    let mut t = Tally::default();

    // -I --json against id-ctrl and id-ns, field by field.
    let id_ctrl = r.json("identify", 1);
    let id_ns = r.json("identify", 2);
    let ours = r.json("identify", 3);
    let nvme = &ours["devices"][0]["identify"]["nvme"];
    assert!(nvme.is_object(), "no identify.nvme in ours: {ours}");
    t.lines
        .push("identify controller (-I --json .nvme.controller vs nvme id-ctrl -o json):".into());
    t.compare("controller", &nvme["controller"], &id_ctrl);
    t.lines
        .push("identify namespace (.nvme.namespace vs nvme id-ns -o json):".into());
    t.compare("namespace", &nvme["namespace"], &id_ns);
    t.lines.push("derived values:".into());
    let n = |v: &Value| v.as_u64().unwrap_or(u64::MAX).to_string();
    let flbas = id_ns["flbas"].as_u64().unwrap_or(0);
    let ds = id_ns["lbafs"][(flbas & 0xF) as usize]["ds"]
        .as_u64()
        .unwrap_or(0);
    t.check(
        "capacity.sectors = nsze",
        &n(&nvme["capacity"]["sectors"]),
        &n(&id_ns["nsze"]),
    );
    t.check(
        "capacity.logical_block_bytes = 2^lbafs[flbas].ds",
        &n(&nvme["capacity"]["logical_block_bytes"]),
        &(1u64 << ds).to_string(),
    );
    t.check(
        "lba_format_in_use = flbas & 0xf",
        &n(&nvme["lba_format_in_use"]),
        &(flbas & 0xF).to_string(),
    );
    t.check(
        "temperature_thresholds_kelvin.warning = wctemp",
        &n(&nvme["temperature_thresholds_kelvin"]["warning"]),
        &n(&id_ctrl["wctemp"]),
    );
    t.check(
        "temperature_thresholds_kelvin.critical = cctemp",
        &n(&nvme["temperature_thresholds_kelvin"]["critical"]),
        &n(&id_ctrl["cctemp"]),
    );
    t.check(
        "write_cache.present = vwc & 1",
        &nvme["write_cache"]["present"].to_string(),
        &(id_ctrl["vwc"].as_u64().unwrap_or(0) & 1 == 1).to_string(),
    );
    t.check(
        "apst.supported = apsta & 1",
        &nvme["apst"]["supported"].to_string(),
        &(id_ctrl["apsta"].as_u64().unwrap_or(0) & 1 == 1).to_string(),
    );
    // nvme-cli prints a power state's byte 3 raw as `flags`: MXPS (bit 0) and NOPS (bit 1).
    let empty = Vec::new();
    let theirs_ps = id_ctrl["psds"].as_array().unwrap_or(&empty);
    for (i, ps) in nvme["controller"]["psds"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .enumerate()
    {
        let flags = ps["max_power_scale"].as_u64().unwrap_or(9)
            | (ps["non-operational_state"].as_u64().unwrap_or(9) << 1);
        let theirs = theirs_ps.get(i).map_or(Value::Null, |p| p["flags"].clone());
        t.check(
            &format!("controller.psds[{i}]: max_power_scale | non-operational_state << 1 = flags"),
            &flags.to_string(),
            &scalar(&theirs).unwrap_or_default(),
        );
    }
    let text = r.stdout("identify", 4);
    let sn = id_ctrl["sn"].as_str().unwrap_or("").trim_end().to_string();
    t.check(
        "-I text: Serial Number line",
        text.lines()
            .find(|l| l.starts_with("\tSerial Number:"))
            .unwrap_or(""),
        &format!("\tSerial Number:      {sn}"),
    );

    // --Istdout against `nvme id-ctrl -b`, byte by byte; -I on the controller's node; -i.
    let hex_bytes = |text: &str, skip_offset: bool| -> Vec<u8> {
        text.lines()
            .flat_map(|l| {
                let l = if skip_offset {
                    l.split_once(':').map_or("", |(_, b)| b)
                } else {
                    l
                };
                l.split_whitespace()
                    .filter_map(|w| u8::from_str_radix(w, 16).ok())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let ours_raw = hex_bytes(&r.stdout("identify", 5), true);
    let theirs_raw = hex_bytes(&r.stdout("identify", 6), false);
    t.check("--Istdout: 4096 bytes", &ours_raw.len().to_string(), "4096");
    t.check(
        "--Istdout = nvme id-ctrl -b, bytes equal",
        &(ours_raw == theirs_raw).to_string(),
        "true",
    );
    let ctrl_text = r.stdout("identify", 7);
    t.check(
        "-I /dev/nvme0: header",
        ctrl_text.lines().nth(3).unwrap_or(""),
        "NVMe device, controller nvme0",
    );
    let mn = id_ctrl["mn"].as_str().unwrap_or("").trim_end().to_string();
    let fr = id_ctrl["fr"].as_str().unwrap_or("").trim_end().to_string();
    t.check(
        "-i: Model, FwRev, SerialNo from sysfs",
        r.stdout("identify", 8).lines().nth(3).unwrap_or(""),
        &format!(" Model={mn}, FwRev={fr}, SerialNo={sn}"),
    );

    // -W0 / -W1 against get-feature 6.
    t.lines
        .push("write cache (-W0, -W1 vs nvme get-feature -f 6):".into());
    let v0 = feature_value(&r.stdout("write-cache", 2));
    let v1 = feature_value(&r.stdout("write-cache", 4));
    t.check("after -W0, get-feature 6", &format!("{v0:?}"), "Some(0)");
    t.check("after -W1, get-feature 6", &format!("{v1:?}"), "Some(1)");
    let w = r.json("write-cache", 5);
    t.check(
        "-W reads what get-feature 6 read",
        &w["devices"][0]["settings"][0]["enabled"].to_string(),
        &v1.map(|v| v & 1 == 1).unwrap_or(false).to_string(),
    );

    // -C against get-feature 2.
    t.lines.push("power (-C vs nvme get-feature -f 2):".into());
    let c = r.json("power", 1);
    let ps = feature_value(&r.stdout("power", 2)).map(|v| v & 0x1F);
    t.check(
        "-C power state = get-feature 2 & 0x1f",
        &c["devices"][0]["nvme_power"]["power_state"].to_string(),
        &ps.map_or("none".into(), |v| v.to_string()),
    );

    // -H against smart-log.
    t.lines
        .push("temperature (-H vs nvme smart-log -o json):".into());
    let h = r.json("smart", 1);
    let smart = r.json("smart", 2);
    let k = smart["temperature"].as_i64().unwrap_or(-1);
    let temp = &h["devices"][0]["drive_temperature"];
    t.check(
        "-H kelvin = smart-log temperature",
        &temp["kelvin"].to_string(),
        &k.to_string(),
    );
    t.check(
        "-H celsius = temperature - 273",
        &temp["celsius"].to_string(),
        &(k - 273).to_string(),
    );
    t.check(
        "-H critical_warning = smart-log critical_warning",
        &temp["critical_warning"].to_string(),
        &smart["critical_warning"].to_string(),
    );
    t.check(
        "nvme flush: success",
        r.stdout("flush", 2).trim(),
        "NVMe Flush: success",
    );

    // Trim, write-sector, format: what the blocks read back as (non-zero byte counts).
    t.lines
        .push("data (non-zero bytes read back through the block device):".into());
    let nonzero_before = r.number("trim", 2);
    t.check(
        "before trim, the range holds data",
        &(nonzero_before > 0).to_string(),
        "true",
    );
    t.check(
        "trimmed 4096:32 reads as zeros",
        &r.number("trim", 4).to_string(),
        "0",
    );
    t.check(
        "4128:32, not trimmed, still holds data",
        &(r.number("trim", 5) > 0).to_string(),
        "true",
    );
    t.check(
        "before --write-sector, 5000 holds data",
        &(r.number("sectors", 2) > 0).to_string(),
        "true",
    );
    t.check(
        "after --write-sector, 5000 reads as zeros",
        &r.number("sectors", 4).to_string(),
        "0",
    );
    t.check(
        "before --security-erase, 8192:64 holds data",
        &(r.number("format", 2) > 0).to_string(),
        "true",
    );
    t.check(
        "after --security-erase (Format NVM), 8192:64 reads as zeros",
        &r.number("format", 4).to_string(),
        "0",
    );

    // What reached the controller: ours and nvme-cli, the same admin commands.
    t.lines
        .push("admin commands logged by tools/nvme-model (ours vs nvme-cli):".into());
    let pairs: [(&str, &str, u32, u32); 3] = [
        ("--security-erase vs nvme format -s 1", "format", 3, 5),
        (
            "--sanitize-crypto-scramble vs nvme sanitize -a 4",
            "sanitize",
            2,
            1,
        ),
        (
            "--fwdownload vs nvme fw-download + fw-commit",
            "fwdownload",
            3,
            2,
        ),
    ];
    for (name, scenario, ours_step, theirs_step) in pairs {
        let ours = admin_lines(&r.stdout(scenario, ours_step));
        let theirs = admin_lines(&r.stdout(scenario, theirs_step));
        assert!(
            !theirs.is_empty(),
            "{name}: nvme-cli sent nothing the model logged"
        );
        t.check(
            &format!("{name}: command count"),
            &ours.len().to_string(),
            &theirs.len().to_string(),
        );
        for (i, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            t.check(&format!("{name}: command {i}"), a, b);
        }
    }
    let ours = admin_lines(&r.stdout("sanitize", 6));
    let theirs = admin_lines(&r.stdout("sanitize", 5));
    t.check(
        "--sanitize-block-erase, --sanitize-overwrite vs nvme sanitize -a 2, -a 3 -n 3 -p",
        &ours.join(" | "),
        &theirs.join(" | "),
    );
    let status = r.json("sanitize", 3);
    let log = r.json("sanitize", 4);
    let log = log
        .as_object()
        .and_then(|o| o.values().next())
        .cloned()
        .unwrap_or_default();
    t.check(
        "--sanitize-status sprog = sanitize-log sprog",
        &status["devices"][0]["sanitize_status"]["log"]["sprog"].to_string(),
        &log["sprog"].to_string(),
    );
    t.check(
        "--sanitize-status scdw10 = sanitize-log cdw10_info",
        &status["devices"][0]["sanitize_status"]["log"]["scdw10"].to_string(),
        &log["cdw10_info"].to_string(),
    );

    // APST through -S and -B, read back by nvme-cli.
    t.lines
        .push("APST (-S, -B vs nvme get-feature -f 0xc, on the model):".into());
    let a1 = feature_value(&r.stdout("apst", 2));
    let a2 = feature_value(&r.stdout("apst", 5));
    let a3 = feature_value(&r.stdout("apst", 7));
    t.check("after -S 12, APSTE", &format!("{a1:?}"), "Some(1)");
    let c = r.json("apst", 3);
    t.check(
        "-C says APST on, as get-feature 0xc",
        &c["devices"][0]["nvme_power"]["apst_enabled"].to_string(),
        "true",
    );
    t.check("after -B 255, APSTE", &format!("{a2:?}"), "Some(0)");
    t.check("after -B 128, APSTE", &format!("{a3:?}"), "Some(1)");
    // -S 12 is 60 s to the deepest non-operational state (PS2): ITPT 60000 ms, ITPS 2.
    t.check(
        "-S 12's table entry for PS0 (get-feature 0xc's first bytes)",
        r.stdout("apst", 2)
            .lines()
            .nth(2)
            .unwrap_or("")
            .get(6..29)
            .unwrap_or(""),
        "10 60 ea 00 00 00 00 00",
    );

    let mut report = String::new();
    let _ = writeln!(
        report,
        "== NVMe: hdparm-rs against nvme-cli ({})",
        root.join("nvme").display()
    );
    for l in &t.lines {
        let _ = writeln!(report, "{l}");
    }
    let _ = writeln!(
        report,
        "fields of ours that nvme-cli 2.3 does not print (not compared): {}",
        t.not_in_nvme_cli.join(", ")
    );
    let _ = writeln!(report, "nvme: {} of {} equal", t.equal, t.compared);
    eprint!("{report}");
    let _ = std::fs::write(root.join("nvme/report.txt"), &report);
    assert!(t.compared >= 100, "only {} values compared", t.compared);
    assert!(
        t.failures.is_empty(),
        "differences:\n  {}",
        t.failures.join("\n  ")
    );
}

#[test]
fn the_comparison_sees_a_difference_and_a_missing_key() {
    let mut t = Tally::default();
    let ours = serde_json::json!({"sn": "A1", "vid": 1, "x": 2, "lbafs": [{"ds": 9}, {"ds": 12}]});
    let theirs = serde_json::json!({"sn": "A1   ", "vid": "2", "lbafs": [{"ds": 9}]});
    t.compare("c", &ours, &theirs);
    assert_eq!((t.compared, t.equal), (4, 2), "{:?}", t.lines);
    assert_eq!(t.failures.len(), 2);
    assert_eq!(t.not_in_nvme_cli, vec!["c.x".to_string()]);
    assert_eq!(
        feature_value("get-feature:0x06 (Volatile Write Cache), Current value:00000000"),
        Some(0)
    );
    assert_eq!(feature_value("x, Current value:0x0000000c\n"), Some(12));
}
