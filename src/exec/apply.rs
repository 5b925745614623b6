//! `--apply` and `--check` (ours): Debian's hdparm.conf carried out for each device the way
//! Debian's udev hook and pm-utils script would, read back, and recorded.
//!
//! The plan for a device comes from [`crate::config::debian::udev_add_plan`]: the same hdparm
//! command lines Debian's hooks run. Each line is run through this program's own [`super::run`],
//! so `--apply` sends exactly the commands those lines send. Then every setting the plan gave a
//! value is read back with its get (`-W`, `-B`...), and the record of what was asked, run, and
//! read back goes to `/run/hdparm/<name>.json`.
//!
//! `--check` runs no set: it reads back the same settings and lists those that differ from the
//! plan (exit 1). `--dry-run` prints the plan and sends nothing.
//!
//! Text output, one line per command line or drift, prefixed with the device:
//! ```text
//! /dev/sda: hdparm -B254 /dev/sda: ok
//! /dev/sda: -W is 1, hdparm.conf asks for 0
//! ```
//! JSON (`--json`), with the envelope's first keys and its messages (`doc/hdparm-rs.schema.json`,
//! `apply_document`):
//!
//! | key | what |
//! |---|---|
//! | `json_format_version`, `hdparm_rs` | as every document (`report::envelope`) |
//! | `config` | the hdparm.conf read |
//! | `mode` | `apply`, `check` or `dry_run` |
//! | `devices[].name`, `.event`, `.time_unix_seconds`, `.config` | the device, udev's ACTION (or `manual`), when |
//! | `devices[].facts.{on_battery,try_apm}` | what Debian's scripts would learn |
//! | `devices[].plan` | the command lines (without the program name) Debian's hooks would run |
//! | `devices[].runs[].{args,exit_status,stdout,stderr}` | each line as run |
//! | `devices[].readback[]`, `devices[].drift[]` | `{option, wanted, found}` (`found` null: the get printed no value; after `--apply` that is drift too) |
//! | `devices[].record_path` | the record written under /run/hdparm |
//! | `messages` | `{severity, class, text}`, as every document's; also on stderr |

use super::get_value::value_of_get;
use crate::cli::defs::{self, Role, Value};
use crate::cli::ApplyRequest;
use crate::config::debian::{self, Facts};
use crate::config::select::{self, Identity};
use crate::device::system;
use crate::error::{strerror, ErrorClass, Verdict};
use crate::report::envelope::{Message, JSON_FORMAT_VERSION};
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// One hdparm command line that was run, and what it gave.
#[derive(Serialize, Clone, Debug)]
struct RunResult {
    args: Vec<String>,
    exit_status: u8,
    stdout: String,
    stderr: String,
}

/// One setting compared with what the plan asks for.
#[derive(Serialize, Clone, Debug, PartialEq, Eq)]
struct Readback {
    option: String,
    wanted: i64,
    /// None when the get printed no value (the drive does not report it).
    found: Option<i64>,
}

#[derive(Serialize, Debug)]
struct DeviceReport {
    name: String,
    event: String,
    time_unix_seconds: u64,
    config: String,
    facts: FactsReport,
    plan: Vec<Vec<String>>,
    runs: Vec<RunResult>,
    readback: Vec<Readback>,
    drift: Vec<Readback>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record_path: Option<String>,
}

#[derive(Serialize, Debug)]
struct FactsReport {
    on_battery: bool,
    try_apm: bool,
}

/// The failures of a run: the verdict, and the messages JSON carries (text prints them).
struct Problems {
    json: bool,
    verdict: Verdict,
    messages: Vec<serde_json::Value>,
}

impl Problems {
    fn fail(&mut self, class: ErrorClass, text: String, stderr: &mut dyn Write) {
        self.verdict.record(class);
        self.say(Some(class), text, stderr);
    }

    /// A line on stderr, and in JSON a message (an error when it has a class).
    fn say(&mut self, class: Option<ErrorClass>, text: String, stderr: &mut dyn Write) {
        let _ = writeln!(stderr, "{text}");
        if self.json {
            let message = Message {
                severity: if class.is_some() { "error" } else { "warning" },
                class: class.map(ErrorClass::name),
                text,
            };
            self.messages
                .push(serde_json::to_value(message).unwrap_or_default());
        }
    }
}

/// Runs `--apply` or `--check`; returns the exit status.
pub fn run_apply(
    request: &ApplyRequest,
    program_args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let mut problems = Problems {
        json: request.json,
        verdict: Verdict::default(),
        messages: Vec::new(),
    };
    let config_path = request.config.display().to_string();
    let conf = match system::read_config(&request.config) {
        Ok(text) => text,
        Err(e) => {
            problems.fail(
                ErrorClass::CannotOpen,
                format!("{config_path}: {}", strerror(&e)),
                stderr,
            );
            return finish(request, program_args, &[], problems, stdout);
        }
    };
    // Debian's hooks do nothing under `nohdparm`, and the udev hook nothing on an add event
    // while an md array resyncs; neither do we.
    let event = std::env::var("ACTION").unwrap_or_else(|_| "manual".into());
    if !request.check && system::kernel_cmdline_has("nohdparm") {
        problems.say(
            None,
            "nohdparm is on the kernel command line: nothing applied".to_string(),
            stderr,
        );
        return finish(request, program_args, &[], problems, stdout);
    }
    if !request.check && event == "add" && system::raid_is_busy() {
        problems.say(
            None,
            "an md array is resyncing (/proc/mdstat): nothing applied on this add event"
                .to_string(),
            stderr,
        );
        return finish(request, program_args, &[], problems, stdout);
    }
    let devices = chosen_devices(request, &conf);
    let mut reports = Vec::new();
    for device in &devices {
        let facts = device_facts(device);
        let plan = match debian::udev_add_plan(&conf, device, &facts, &system::resolve_symlink) {
            Ok(plan) => plan,
            Err(e) => {
                // Debian's reader gives up on the whole file; so do we, for every device.
                problems.fail(
                    ErrorClass::Failed,
                    format!("{config_path}: {e}: nothing applied"),
                    stderr,
                );
                break;
            }
        };
        let mut report = DeviceReport {
            name: device.clone(),
            event: event.clone(),
            time_unix_seconds: std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_secs())
                .unwrap_or(0),
            config: config_path.clone(),
            facts: FactsReport {
                on_battery: facts.on_battery,
                try_apm: facts.try_apm,
            },
            plan: plan.clone(),
            runs: Vec::new(),
            readback: Vec::new(),
            drift: Vec::new(),
            record_path: None,
        };
        if plan.is_empty() {
            say(request, stdout, format!("{device}: nothing to apply"));
        }
        if request.dry_run && !request.check {
            for line in &plan {
                say(
                    request,
                    stdout,
                    format!("{device}: would run: hdparm {}", line.join(" ")),
                );
            }
            reports.push(report);
            continue;
        }
        // Shared, as udevd holds it while it runs our rule (an exclusive lock could never be
        // had there): an --apply or --check never overlaps another run's destructive operation
        // or --experiment on the disk, and never waits behind one either. The lines run
        // below get the disk through this lock.
        let _held = match super::devices::reader_lock(device) {
            Ok(held) => held,
            Err(e) => {
                problems.fail(e.class, e.message, stderr);
                reports.push(report);
                continue;
            }
        };
        if !request.check {
            for line in &plan {
                let result = run_line(line);
                let outcome = match result.exit_status {
                    0 => "ok".to_string(),
                    status => format!(
                        "failed (exit {status}){}",
                        first_line(&result.stderr)
                            .map(|l| format!(": {l}"))
                            .unwrap_or_default()
                    ),
                };
                if let Some(class) = ErrorClass::of_exit_status(result.exit_status) {
                    problems.verdict.record(class);
                }
                say(
                    request,
                    stdout,
                    format!("{device}: hdparm {}: {outcome}", line.join(" ")),
                );
                report.runs.push(result);
            }
        }
        report.readback = read_back(device, &plan);
        // A get that reads no value after every line went through means the setting did not
        // take either: a CD-ROM accepts -W0 and then has no write cache to report, and under the
        // plan's -q nothing else says so (VM hotplug profile, tests/vm_tune.rs). Where a line
        // failed, its failure already says it; --check, which sets nothing, lists values only.
        let all_ran = !request.check && report.runs.iter().all(|r| r.exit_status == 0);
        report.drift = report
            .readback
            .iter()
            .filter(|r| r.found != Some(r.wanted) && (r.found.is_some() || all_ran))
            .cloned()
            .collect();
        for drift in &report.drift {
            let found = drift
                .found
                .map_or("no value".to_string(), |v| v.to_string());
            let text = if request.check {
                format!(
                    "{device}: {} is {found}, hdparm.conf asks for {}",
                    drift.option, drift.wanted
                )
            } else {
                format!(
                    "{device}: {} did not take: it reads back {found}, hdparm.conf asks for {}",
                    drift.option, drift.wanted
                )
            };
            if request.check {
                say(request, stdout, text);
            } else {
                problems.fail(ErrorClass::Failed, text, stderr);
            }
        }
        if !request.check {
            match serde_json::to_vec_pretty(&report) {
                Ok(bytes) => {
                    let name = Path::new(device)
                        .file_name()
                        .map(|n| n.to_string_lossy().into_owned())
                        .unwrap_or_else(|| "device".into());
                    match system::write_record(&system::record_dir(), &name, &bytes) {
                        Ok(path) => report.record_path = Some(path.display().to_string()),
                        Err(e) => problems.fail(
                            ErrorClass::OutputFailed,
                            format!(
                                "{device}: the record was not written to {}: {}",
                                system::record_dir().display(),
                                strerror(&e)
                            ),
                            stderr,
                        ),
                    }
                }
                Err(e) => problems.fail(ErrorClass::Failed, format!("{device}: {e}"), stderr),
            }
        }
        reports.push(report);
    }
    // --check's own answer: 1 when something differs (for Ansible's changed_when and
    // monitoring), unless something worse happened.
    if request.check && reports.iter().any(|r| !r.drift.is_empty()) {
        problems.verdict.record(ErrorClass::Drift);
    }
    finish(request, program_args, &reports, problems, stdout)
}

/// The devices named, or every configured device present: the blocks' devices and the disks
/// Debian's udev rule covers.
fn chosen_devices(request: &ApplyRequest, conf: &str) -> Vec<String> {
    if !request.devices.is_empty() {
        return request
            .devices
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect();
    }
    let names = debian::block_names(conf);
    // Selectors can name any disk: then every disk present is a candidate.
    let mut devices = if names.iter().any(|n| select::is_selector(n)) {
        system::present_disks()
    } else {
        system::present_udev_disks()
    };
    for name in names.into_iter().filter(|n| !select::is_selector(n)) {
        let resolved = system::resolve_symlink(&name).unwrap_or(name);
        if system::is_block_device(Path::new(&resolved)) && !devices.contains(&resolved) {
            devices.push(resolved);
        }
    }
    devices
}

/// What Debian's scripts would learn about the machine and this disk.
fn device_facts(device: &str) -> Facts {
    let path = Path::new(device);
    let id_path = system::udev_property(path, "ID_PATH").unwrap_or_default();
    // hdparm_try_apm: never over USB or FireWire, and only where udev saw APM in IDENTIFY.
    let bridged = id_path.starts_with("pci-")
        && (id_path.contains("-usb-") || id_path.contains("-ieee1394-"));
    let apm = system::udev_property(path, "ID_ATA_FEATURE_SET_APM").as_deref() == Some("1");
    Facts {
        on_battery: system::on_battery(),
        try_apm: apm && !bridged,
        identity: identity(path, &id_path),
    }
}

/// What the drive is, for the selectors: sysfs and udev, as `lsblk` shows them.
fn identity(path: &Path, id_path: &str) -> Identity {
    let first = |candidates: &[String]| {
        candidates
            .iter()
            .find(|s| !s.is_empty())
            .cloned()
            .unwrap_or_default()
    };
    let model = first(&[
        system::udev_property(path, "ID_MODEL_FROM_DATABASE").unwrap_or_default(),
        system::block_attribute(path, "device/model"),
    ]);
    let serial = first(&[
        system::udev_property(path, "ID_SERIAL_SHORT").unwrap_or_default(),
        system::block_attribute(path, "device/serial"),
    ]);
    let wwn = first(&[
        system::udev_property(path, "ID_WWN").unwrap_or_default(),
        system::block_attribute(path, "device/wwid"),
        system::block_attribute(path, "wwid"),
    ]);
    let nvme = path
        .file_name()
        .is_some_and(|n| n.to_string_lossy().starts_with("nvme"));
    let usb = system::udev_property(path, "ID_BUS").as_deref() == Some("usb")
        || id_path.contains("-usb-");
    let mut classes = Vec::new();
    match system::block_attribute(path, "queue/rotational").as_str() {
        "1" => classes.push("rotational"),
        "0" if !nvme => classes.push("ssd"),
        _ => {}
    }
    if nvme {
        classes.push("nvme");
    }
    if usb {
        classes.push("usb");
    }
    Identity {
        model,
        serial,
        wwn,
        classes,
    }
}

/// Runs one hdparm command line through this program.
fn run_line(line: &[String]) -> RunResult {
    let argv: Vec<OsString> = std::iter::once("hdparm".to_string())
        .chain(line.iter().cloned())
        .map(OsString::from)
        .collect();
    let mut out = Vec::new();
    let mut err = Vec::new();
    // Nothing a plan runs reads standard input.
    let mut no_input = std::io::empty();
    let exit_status = super::run(
        &argv,
        crate::Streams::new(&mut no_input, &mut out, &mut err),
    );
    RunResult {
        args: line.to_vec(),
        exit_status,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// The settings the plan gives a value to (`-W0`, `-B254`...), with the value each get reads
/// now. Set-only options (`-S`, `-X`...) have no get and are not read back.
fn read_back(device: &str, plan: &[Vec<String>]) -> Vec<Readback> {
    let mut wanted: Vec<(u8, i64)> = Vec::new();
    for word in plan.iter().flatten() {
        let bytes = word.as_bytes();
        if bytes.len() < 3 || bytes[0] != b'-' {
            continue;
        }
        let Some(def) = defs::by_letter(bytes[1]) else {
            continue;
        };
        if def.role != Role::GetSet || !matches!(def.value, Value::Decimal { .. }) {
            continue;
        }
        let Ok(value) = word[2..].parse::<i64>() else {
            continue;
        };
        wanted.retain(|(letter, _)| *letter != bytes[1]);
        wanted.push((bytes[1], value));
    }
    wanted
        .into_iter()
        .map(|(letter, value)| {
            let option = format!("-{}", letter as char);
            let result = run_line(&[option.clone(), device.to_string()]);
            Readback {
                option,
                wanted: value,
                found: value_of_get(&result.stdout),
            }
        })
        .collect()
}

fn first_line(text: &str) -> Option<&str> {
    text.lines().find(|l| !l.trim().is_empty())
}

/// One line of text output (JSON collects the reports instead).
fn say(request: &ApplyRequest, stdout: &mut dyn Write, line: String) {
    if !request.json {
        let _ = writeln!(stdout, "{line}");
    }
}

/// The JSON document, when asked for; the exit status.
fn finish(
    request: &ApplyRequest,
    program_args: &[OsString],
    reports: &[DeviceReport],
    problems: Problems,
    stdout: &mut dyn Write,
) -> u8 {
    let status = problems.verdict.exit_status();
    let messages = problems.messages;
    if request.json {
        let document = serde_json::json!({
            "json_format_version": JSON_FORMAT_VERSION,
            "hdparm_rs": crate::report::envelope::program_json(
                crate::cli::parse::redacted_argv(program_args),
                status,
            ),
            "config": request.config.display().to_string(),
            "mode": if request.check { "check" } else if request.dry_run { "dry_run" } else { "apply" },
            "devices": reports,
            "messages": messages,
        });
        let _ = writeln!(
            stdout,
            "{}",
            serde_json::to_string_pretty(&document).unwrap_or_default()
        );
    }
    let _ = stdout.flush();
    status
}
