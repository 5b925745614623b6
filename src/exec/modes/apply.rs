//! `--apply` and `--check` (ours): Debian's hdparm.conf carried out for each device the way
//! Debian's udev hook and pm-utils script would, read back, and recorded.
//!
//! First the file: every line Debian's reader would give up on is listed as `FILE:LINE: ...`
//! and nothing is done (exit 22); lines it reads otherwise than they look get a warning
//! (`config::debian::diagnose`). A device named on the command line that is not there is an
//! error of its own (exit 2) and gets no record.
//!
//! The plan for a device comes from [`crate::config::debian::udev_add_plan`]: the same hdparm
//! command lines Debian's hooks run. Each line is run through this program's own [`super::run`],
//! so `--apply` sends exactly the commands those lines send. Then every setting the plan gave a
//! value is read back with its get (`-W`, `-B`...), and the record of what was asked, run, and
//! read back, with a digest of the device's planned settings, goes to
//! `/run/hdparm/<kernel name>.json`.
//!
//! What Debian's rules leave out is said, in every mode, on stdout: the APM and spindown
//! settings its hooks never send to this disk (and the rule), the blocks for devices that are
//! not present, and `command_line` blocks.
//!
//! `--check` runs no set: it reads back the same settings and lists those that differ from the
//! plan (exit 4). A setting the drive cannot report (`-S` has no get; some drives take `-B` and
//! report no level) is compared with the record of the last `--apply` (`config::verify`), and
//! so is one that failed there. What could not be read at all (no root, no record) is named on
//! stderr, and the check exits 6 (unverified): it cannot say the device is in line.
//! `--dry-run` prints the plan and sends nothing.
//!
//! Text output, one line per command line or finding, prefixed with the device:
//! ```text
//! /dev/sda: hdparm -B254 /dev/sda: ok
//! /dev/sda: -W is 1, hdparm.conf asks for 0
//! /dev/sda: -S cannot be read back; the last --apply sent -S24, hdparm.conf asks for -S36
//! /dev/sdaa: dropped -S12 (spindown_time): Debian's 95hdparm-apm ...
//! /etc/hdparm.conf:20: dropped the block for /dev/sdz: no such device here
//! ```
//! JSON (`--json`), with the envelope's first keys and its messages (`doc/hdparm-rs.schema.json`,
//! `apply_document`):
//!
//! | key | what |
//! |---|---|
//! | `json_format_version`, `hdparm_rs` | as every document (`report::envelope`) |
//! | `config` | the hdparm.conf read |
//! | `mode` | `apply`, `check` or `dry_run` |
//! | `dropped[]` | `{line, block, reason}`: blocks of the file that apply to nothing |
//! | `devices[].name`, `.event`, `.time_unix_seconds`, `.config` | the device, udev's ACTION (or `manual`), when |
//! | `devices[].facts.{on_battery,try_apm}` | what Debian's scripts would learn |
//! | `devices[].plan` | the command lines (without the program name) Debian's hooks would run |
//! | `devices[].settings_digest` | `config::verify::settings_digest` of the plan |
//! | `devices[].dropped[]` | `{option, key, reason}`: settings Debian's rules never send here |
//! | `devices[].runs[].{args,exit_status,stdout,stderr}` | each line as run |
//! | `devices[].readback[]`, `devices[].drift[]` | `{option, wanted, found}` (`found` null: the drive gave no value; after `--apply` that is drift too), and where the record decided, `recorded` (the value the last `--apply` sent) and `reason` |
//! | `devices[].unverified[]` | `{option, wanted, reason}`: what `--check` could not compare |
//! | `devices[].last_apply` | `--check`: `{path, time_unix_seconds, settings_digest, same_settings}` of the record compared with |
//! | `devices[].record_path` | the record written under /run/hdparm |
//! | `messages` | `{severity, class, text}`, as every document's; also on stderr |

use crate::cli::defs::{self, Role, Value};
use crate::cli::ApplyRequest;
use crate::config::debian::{self, DropRule, Facts, Severity};
use crate::config::select::{self, Identity};
use crate::config::verify::{self, Judgement, LastApply, Planned};
use crate::device::system;
use crate::error::{strerror, ErrorClass, Verdict};
use crate::report::envelope::{render_sorted, Message, Program, JSON_FORMAT_VERSION};
use schemars::JsonSchema;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

/// One hdparm command line that was run, and what it gave.
#[derive(Serialize, Clone, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct RunResult {
    args: Vec<String>,
    exit_status: u8,
    stdout: String,
    stderr: String,
}

impl RunResult {
    fn of(args: &[String], run: crate::exec::WordsRun) -> RunResult {
        RunResult {
            args: args.to_vec(),
            exit_status: run.exit_status,
            stdout: run.stdout,
            stderr: run.stderr,
        }
    }
}

/// One setting compared with what the plan asks for.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Readback {
    option: String,
    wanted: i64,
    /// null: the drive gave no value (the get printed none, or the option has no get).
    found: Option<i64>,
    /// Where the record of the last --apply decided: the value it sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "i64")]
    recorded: Option<i64>,
    /// Where the record of the last --apply decided: why the setting drifts.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    reason: Option<String>,
}

/// A setting `--check` could not compare.
#[derive(Serialize, Clone, Debug, PartialEq, Eq, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct Unverified {
    option: String,
    wanted: i64,
    reason: String,
}

/// A setting of the file that Debian's rules never send to this device.
#[derive(Serialize, Clone, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct DroppedSetting {
    /// The option word, -B128 or -S24.
    option: String,
    /// The hdparm.conf key.
    #[schemars(extend("enum" = ["apm", "apm_battery", "spindown_time", "force_spindown_time"]))]
    key: &'static str,
    reason: String,
}

/// A block of the file that applies to nothing.
#[derive(Serialize, Clone, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct DroppedBlock {
    /// The block's line in the file, from 1.
    #[schemars(range(min = 1))]
    line: usize,
    /// The block's key, as written.
    block: String,
    reason: String,
}

/// --check: the record of the last --apply it compared with.
#[derive(Serialize, Clone, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct LastApplyReport {
    path: String,
    time_unix_seconds: u64,
    /// null in a record written before the digest existed.
    settings_digest: Option<String>,
    /// The record's digest is this plan's (false also for a record without one).
    same_settings: bool,
}

/// One device: what the file plans for it, what was run, and what was read back.
#[derive(Serialize, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct DeviceReport {
    name: String,
    /// udev's ACTION, or manual.
    event: String,
    time_unix_seconds: u64,
    config: String,
    facts: FactsReport,
    /// The hdparm command lines (without the program name) Debian's hooks would run.
    plan: Vec<Vec<String>>,
    /// FNV-1a 64 of the plan's command lines without the device name (fnv1a64: and 16 hex
    /// digits).
    #[schemars(regex(pattern = r"^fnv1a64:[0-9a-f]{16}$"))]
    settings_digest: String,
    /// Settings of the file that Debian's rules never send to this device.
    dropped: Vec<DroppedSetting>,
    runs: Vec<RunResult>,
    readback: Vec<Readback>,
    drift: Vec<Readback>,
    /// --check: the settings it could not compare, and why.
    unverified: Vec<Unverified>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "LastApplyReport")]
    last_apply: Option<LastApplyReport>,
    /// The record written under /run/hdparm.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    record_path: Option<String>,
}

/// --apply, --check, --dry-run (src/exec/modes/apply.rs): what hdparm.conf plans for each
/// device, what was run and what was read back (`$defs/apply_document`).
#[derive(Serialize, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ApplyDocument<'a> {
    #[schemars(schema_with = "crate::report::schema::format_version_ref")]
    json_format_version: [u32; 2],
    #[schemars(schema_with = "crate::report::schema::program_ref")]
    hdparm_rs: Program,
    /// The hdparm.conf read.
    config: String,
    /// `apply`, `check` or `dry_run`.
    #[schemars(extend("enum" = ["apply", "check", "dry_run"]))]
    mode: &'static str,
    /// Blocks of the file that apply to nothing: command_line blocks, and with no DEVICE
    /// named, blocks for devices not present.
    dropped: &'a [DroppedBlock],
    devices: &'a [DeviceReport],
    #[schemars(schema_with = "crate::report::schema::messages_ref")]
    messages: Vec<Message>,
}

/// What Debian's scripts would learn.
#[derive(Serialize, Debug, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct FactsReport {
    on_battery: bool,
    try_apm: bool,
}

/// One run's request, its streams and its failures so far: the verdict, and the messages JSON
/// carries (text prints them).
struct Session<'a> {
    request: &'a ApplyRequest,
    stdout: &'a mut dyn Write,
    stderr: &'a mut dyn Write,
    verdict: Verdict,
    messages: Vec<Message>,
}

impl Session<'_> {
    fn fail(&mut self, class: ErrorClass, text: String) {
        self.verdict.record(class);
        self.note(Some(class), text);
    }

    /// A line on stderr, and in JSON a message (an error when it has a class).
    fn note(&mut self, class: Option<ErrorClass>, text: String) {
        let _ = writeln!(self.stderr, "{text}");
        if self.request.json {
            let message = Message {
                severity: if class.is_some() { "error" } else { "warning" },
                class: class.map(ErrorClass::name),
                text,
            };
            self.messages.push(message);
        }
    }

    /// One line of text output (JSON collects the reports instead).
    fn say(&mut self, line: String) {
        if !self.request.json {
            let _ = writeln!(self.stdout, "{line}");
        }
    }
}

/// What the run does, for the words of its messages.
fn doing(request: &ApplyRequest) -> &'static str {
    if request.check {
        "nothing checked"
    } else if request.dry_run {
        "nothing planned"
    } else {
        "nothing applied"
    }
}

/// Runs `--apply` or `--check`; returns the exit status.
pub fn run_apply(
    request: &ApplyRequest,
    program_args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let mut s = Session {
        request,
        stdout,
        stderr,
        verdict: Verdict::default(),
        messages: Vec::new(),
    };
    let config_path = request.config.display().to_string();
    let conf = match system::read_config(&request.config) {
        Ok(bytes) => crate::config::text_of(&bytes),
        Err(e) => {
            s.fail(
                ErrorClass::CannotOpen,
                format!("{config_path}: {}", strerror(&e)),
            );
            return finish(s, program_args, &[], &[]);
        }
    };
    if !file_is_sound(&mut s, &conf, &config_path) {
        return finish(s, program_args, &[], &[]);
    }
    // Debian's hooks do nothing under `nohdparm`, and the udev hook nothing on an add event
    // while an md array resyncs; neither do we.
    let event = std::env::var("ACTION").unwrap_or_else(|_| "manual".into());
    if !request.check && system::kernel_cmdline_has("nohdparm") {
        s.note(
            None,
            "nohdparm is on the kernel command line: nothing applied".to_string(),
        );
        return finish(s, program_args, &[], &[]);
    }
    if !request.check && event == "add" && system::raid_is_busy() {
        s.note(
            None,
            "an md array is resyncing (/proc/mdstat): nothing applied on this add event"
                .to_string(),
        );
        return finish(s, program_args, &[], &[]);
    }
    let dropped_blocks = dropped_blocks(request, &conf);
    for block in &dropped_blocks {
        s.say(format!("{config_path}:{}: {}", block.line, block.reason));
    }
    let devices = chosen_devices(&mut s, &conf);
    let mut reports = Vec::new();
    for device in &devices {
        let known = device_facts(device);
        let facts = &known.facts;
        let resolve = &system::resolve_symlink;
        // The file was read in full above: these cannot fail now.
        let plan = debian::udev_add_plan(&conf, device, facts, resolve).unwrap_or_default();
        let drops = debian::udev_add_drops(&conf, device, facts, resolve).unwrap_or_default();
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
            settings_digest: verify::settings_digest(&plan),
            plan: plan.clone(),
            dropped: drops
                .into_iter()
                .map(|d| DroppedSetting {
                    reason: drop_reason(d.rule, &d.option, &known),
                    option: d.option,
                    key: d.key,
                })
                .collect(),
            runs: Vec::new(),
            readback: Vec::new(),
            drift: Vec::new(),
            unverified: Vec::new(),
            last_apply: None,
            record_path: None,
        };
        for drop in &report.dropped {
            s.say(format!(
                "{device}: dropped {} ({}): {}",
                drop.option, drop.key, drop.reason
            ));
        }
        if plan.is_empty() {
            let nothing = if request.check {
                "nothing to check"
            } else {
                "nothing to apply"
            };
            s.say(format!("{device}: {nothing}"));
        }
        if request.dry_run && !request.check {
            for line in &plan {
                s.say(format!("{device}: would run: hdparm {}", line.join(" ")));
            }
            reports.push(report);
            continue;
        }
        // Shared, as udevd holds it while it runs our rule (an exclusive lock could never be
        // had there): an --apply or --check never overlaps another run's destructive operation
        // or --experiment on the disk, and never waits behind one either. The lines run
        // below get the disk through this lock.
        let _held = match crate::exec::devices::reader_lock(device) {
            Ok(held) => held,
            Err(e) => {
                s.fail(e.class, e.message);
                reports.push(report);
                continue;
            }
        };
        if request.check {
            check_device(&mut s, device, &mut report);
        } else {
            apply_device(&mut s, device, &mut report);
        }
        reports.push(report);
    }
    finish(s, program_args, &dropped_blocks, &reports)
}

/// Reads the whole file as Debian's reader would and says what is wrong with it, each line
/// with its number; false when there is an error (then nothing is done, exit 22).
fn file_is_sound(s: &mut Session, conf: &str, config_path: &str) -> bool {
    let findings = debian::diagnose(conf);
    let mut errors = 0;
    for finding in findings {
        let at = format!("{config_path}:{}", finding.line);
        match finding.severity {
            Severity::Error => {
                errors += 1;
                s.fail(ErrorClass::Config, format!("{at}: {}", finding.message));
            }
            Severity::Warning => {
                s.note(None, format!("{at}: warning: {}", finding.message));
            }
        }
    }
    if errors > 0 {
        let plural = if errors == 1 { "" } else { "s" };
        s.fail(
            ErrorClass::Config,
            format!(
                "{config_path}: {errors} error{plural}: {}",
                doing(s.request)
            ),
        );
    }
    errors == 0
}

/// `--apply` on one device: run the plan, read back, record.
fn apply_device(s: &mut Session, device: &str, report: &mut DeviceReport) {
    let mut lost = None;
    for line in &report.plan {
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
            s.verdict.record(class);
        }
        s.say(format!("{device}: hdparm {}: {outcome}", line.join(" ")));
        report.runs.push(result);
        // The drive did not answer, was reset or went away in that line: no further line and
        // no read-back is sent to it (exec/lost.rs).
        lost = crate::exec::lost::find(device.as_ref(), None);
        if let Some((how, command)) = &lost {
            let text = crate::exec::lost::apply_sentence(device, *how, command);
            s.fail(how.class(), text);
            break;
        }
    }
    if lost.is_none() {
        report.readback = readable_settings(&report.plan)
            .into_iter()
            .map(|setting| read_setting(device, &setting).0)
            .collect();
    }
    // A get that reads no value after every line went through means the setting did not
    // take either: a CD-ROM accepts -W0 and then has no write cache to report, and under the
    // plan's -q nothing else says so (VM hotplug profile, tests/vm_tune.rs). Where a line
    // failed, its failure already says it.
    let all_ran = report.runs.iter().all(|r| r.exit_status == 0);
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
        s.fail(
            ErrorClass::Failed,
            format!(
                "{device}: {} did not take: it reads back {found}, hdparm.conf asks for {}",
                drift.option, drift.wanted
            ),
        );
    }
    let dir = system::record_dir();
    match serde_json::to_vec_pretty(&report) {
        Ok(bytes) => match system::write_record(&dir, &record_name(device), &bytes) {
            Ok(path) => report.record_path = Some(path.display().to_string()),
            Err(e) => s.fail(
                ErrorClass::OutputFailed,
                format!(
                    "{device}: the record was not written to {}: {}",
                    dir.display(),
                    strerror(&e)
                ),
            ),
        },
        Err(e) => s.fail(ErrorClass::Failed, format!("{device}: {e}")),
    }
}

/// `--check` on one device: read back what can be read, compare the rest with the record of
/// the last `--apply`, and say what could not be compared.
fn check_device(s: &mut Session, device: &str, report: &mut DeviceReport) {
    let dir = system::record_dir();
    let record_path = dir.join(format!("{}.json", record_name(device)));
    let last = match system::read_record(&dir, &record_name(device)) {
        Ok(Some(bytes)) => match serde_json::from_slice::<LastApply>(&bytes) {
            Ok(last) => Some(last),
            Err(e) => {
                s.fail(
                    ErrorClass::Unverified,
                    format!("{}: not a record of --apply: {e}", record_path.display()),
                );
                None
            }
        },
        Ok(None) => None,
        Err(e) => {
            s.fail(
                ErrorClass::Unverified,
                format!("{}: {}", record_path.display(), strerror(&e)),
            );
            None
        }
    };
    let readable: Vec<String> = readable_settings(&report.plan)
        .into_iter()
        .map(|s| s.option)
        .collect();
    for setting in verify::planned_settings(&report.plan) {
        let unread = |reason: String| Unverified {
            option: setting.option.clone(),
            wanted: setting.value,
            reason,
        };
        // A get that failed (no permission, say) leaves the record to say only that the
        // setting is not in effect: that it was once sent does not mean it still holds.
        let (readback, why_unread, read_failed) = if readable.contains(&setting.option) {
            let (readback, failure) = read_setting(device, &setting);
            if readback.found.is_some() {
                report.readback.push(readback.clone());
                if readback.found != Some(readback.wanted) {
                    report.drift.push(readback);
                }
                continue;
            }
            match failure {
                Some(text) => (readback, format!("it could not be read ({text})"), true),
                None => (
                    readback,
                    "the drive reports no value for it".to_string(),
                    false,
                ),
            }
        } else {
            let readback = Readback {
                option: setting.option.clone(),
                wanted: setting.value,
                found: None,
                recorded: None,
                reason: None,
            };
            (readback, "it cannot be read back".to_string(), false)
        };
        match verify::against_record(&setting, last.as_ref()) {
            Judgement::InSync if read_failed => {
                report.readback.push(readback);
                report.unverified.push(unread(why_unread));
            }
            Judgement::InSync => report.readback.push(Readback {
                recorded: Some(setting.value),
                ..readback
            }),
            Judgement::Drift { recorded, reason } => {
                let drift = Readback {
                    recorded,
                    reason: Some(format!("{why_unread}; {reason}")),
                    ..readback
                };
                report.readback.push(drift.clone());
                report.drift.push(drift);
            }
            Judgement::Unverified { .. } if read_failed => {
                report.readback.push(readback);
                report.unverified.push(unread(why_unread));
            }
            Judgement::Unverified { reason } => {
                report.readback.push(readback);
                report.unverified.push(unread(format!(
                    "{why_unread}, and {reason} ({})",
                    record_path.display()
                )));
            }
        }
    }
    report.last_apply = last.as_ref().map(|last| LastApplyReport {
        path: record_path.display().to_string(),
        time_unix_seconds: last.time_unix_seconds,
        settings_digest: last.settings_digest.clone(),
        same_settings: last.settings_digest.as_deref() == Some(&report.settings_digest),
    });
    for drift in &report.drift {
        let text = match (&drift.reason, drift.found) {
            (Some(reason), _) => format!("{device}: {}: {reason}", drift.option),
            (None, found) => format!(
                "{device}: {} is {}, hdparm.conf asks for {}",
                drift.option,
                found.map_or("no value".to_string(), |v| v.to_string()),
                drift.wanted
            ),
        };
        s.say(text);
    }
    // A change to what the device is sent that no setting shows (a setting taken out, an
    // action added): the last --apply ran another plan.
    let plan_changed = report
        .last_apply
        .as_ref()
        .is_some_and(|l| l.settings_digest.is_some() && !l.same_settings);
    if plan_changed && report.drift.is_empty() && !report.plan.is_empty() {
        s.say(format!(
            "{device}: the settings hdparm.conf gives it changed since the last --apply ({})",
            record_path.display()
        ));
    }
    if !report.drift.is_empty() || (plan_changed && !report.plan.is_empty()) {
        s.verdict.record(ErrorClass::Drift);
    }
    for unverified in &report.unverified {
        s.fail(
            ErrorClass::Unverified,
            format!(
                "{device}: cannot check {}{}: {}",
                unverified.option, unverified.wanted, unverified.reason
            ),
        );
    }
}

/// The name of a device's record: its kernel name (`sda`), so that `--apply` through a by-id
/// link and `--check /dev/sda` meet in one file.
fn record_name(device: &str) -> String {
    system::kernel_name(Path::new(device))
        .or_else(|| {
            Path::new(device)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
        })
        .unwrap_or_else(|| "device".into())
}

/// The blocks of the file that apply to nothing: `command_line` blocks always, and, when the
/// run covers the whole file (no DEVICE named), blocks for devices that are not present.
fn dropped_blocks(request: &ApplyRequest, conf: &str) -> Vec<DroppedBlock> {
    debian::blocks(conf)
        .into_iter()
        .filter_map(|block| {
            let reason = if block.key == debian::COMMAND_LINE {
                "dropped the command_line block: Debian's scripts have ignored such blocks since hdparm 9.39-1; put its options in a block named by the device".to_string()
            } else if request.devices.is_empty()
                && !select::is_selector(&block.key)
                && !system::is_block_device(&device_of_block(&block.key))
            {
                format!("dropped the block for {}: no such device here", block.key)
            } else {
                return None;
            };
            Some(DroppedBlock {
                line: block.line,
                block: block.key,
                reason,
            })
        })
        .collect()
}

/// The node a block's key names, its links resolved.
fn device_of_block(key: &str) -> PathBuf {
    PathBuf::from(system::resolve_symlink(key).unwrap_or_else(|| key.to_string()))
}

/// Why Debian's rules never send this APM or spindown setting to the device.
fn drop_reason(rule: DropRule, option: &str, known: &DeviceFacts) -> String {
    match rule {
        DropRule::NotWalked => {
            "Debian's 95hdparm-apm sends -B and -S only to /dev/sd? and /dev/hd?".to_string()
        }
        DropRule::NoApm => {
            let why = if known.bridged {
                "the drive is on USB or FireWire (udev's ID_PATH)"
            } else {
                "udev reports no APM for the drive (ID_ATA_FEATURE_SET_APM)"
            };
            let forced = if option.starts_with("-S") {
                "; force_spindown_time is sent regardless"
            } else {
                ""
            };
            format!("{why}, and Debian's hdparm_try_apm then sends no -B or -S{forced}")
        }
    }
}

/// The devices named, or every configured device present: the blocks' devices and the disks
/// Debian's udev rule covers. A named device that is not there is an error (2), and one that
/// is no block device too (25); neither is planned or recorded.
fn chosen_devices(s: &mut Session, conf: &str) -> Vec<String> {
    let request = s.request;
    if !request.devices.is_empty() {
        let mut devices = Vec::new();
        for named in &request.devices {
            let name = named.to_string_lossy().into_owned();
            match system::stat_block_device(Path::new(named)) {
                Ok(true) => devices.push(name),
                Ok(false) => s.fail(
                    ErrorClass::NotApplicable,
                    format!("{name}: not a block device; {}", doing(request)),
                ),
                Err(e) => s.fail(
                    ErrorClass::CannotOpen,
                    format!("{name}: {}; {}", strerror(&e), doing(request)),
                ),
            }
        }
        return devices;
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

/// What Debian's scripts learn about one disk, and why `hdparm_try_apm` said no.
struct DeviceFacts {
    facts: Facts,
    /// On USB or FireWire (udev's ID_PATH).
    bridged: bool,
}

/// What Debian's scripts would learn about the machine and this disk.
fn device_facts(device: &str) -> DeviceFacts {
    let path = Path::new(device);
    let id_path = system::udev_property(path, "ID_PATH").unwrap_or_default();
    // hdparm_try_apm: never over USB or FireWire, and only where udev saw APM in IDENTIFY.
    let bridged = id_path.starts_with("pci-")
        && (id_path.contains("-usb-") || id_path.contains("-ieee1394-"));
    let apm = system::udev_property(path, "ID_ATA_FEATURE_SET_APM").as_deref() == Some("1");
    DeviceFacts {
        facts: Facts {
            on_battery: system::on_battery(),
            try_apm: apm && !bridged,
            identity: identity(path, &id_path),
        },
        bridged,
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
    RunResult::of(line, crate::exec::run_words(line))
}

/// The settings of the plan that have a get printing a number (`-W0`, `-B254`...), which are
/// read back from the drive. Set-only options (`-S`, `-X`...) have none.
fn readable_settings(plan: &[Vec<String>]) -> Vec<Planned> {
    verify::planned_settings(plan)
        .into_iter()
        .filter(|setting| {
            let letter = setting.option.as_bytes()[1];
            defs::by_letter(letter).is_some_and(|def| {
                def.role == Role::GetSet && matches!(def.value, Value::Decimal { .. })
            })
        })
        .collect()
}

/// Reads one setting back with its get; with the first line of the get's error when it
/// failed (no permission, no such ioctl).
fn read_setting(device: &str, setting: &Planned) -> (Readback, Option<String>) {
    let result = crate::exec::run_words(&[setting.option.clone(), device.to_string()]);
    let failure = (result.exit_status != 0).then(|| {
        first_line(&result.stderr)
            .map(|l| l.trim().to_string())
            .unwrap_or_else(|| format!("exit {}", result.exit_status))
    });
    let readback = Readback {
        option: setting.option.clone(),
        wanted: setting.value,
        found: result.number(),
        recorded: None,
        reason: None,
    };
    (readback, failure)
}

fn first_line(text: &str) -> Option<&str> {
    text.lines().find(|l| !l.trim().is_empty())
}

/// The JSON document, when asked for; the exit status.
fn finish(
    s: Session,
    program_args: &[OsString],
    dropped: &[DroppedBlock],
    reports: &[DeviceReport],
) -> u8 {
    let (request, stdout) = (s.request, s.stdout);
    let status = s.verdict.exit_status();
    let messages = s.messages;
    if request.json {
        let document = ApplyDocument {
            json_format_version: JSON_FORMAT_VERSION,
            hdparm_rs: crate::report::envelope::program(
                crate::cli::parse::redacted_argv(program_args),
                status,
            ),
            config: request.config.display().to_string(),
            mode: if request.check {
                "check"
            } else if request.dry_run {
                "dry_run"
            } else {
                "apply"
            },
            dropped,
            devices: reports,
            messages,
        };
        let _ = writeln!(stdout, "{}", render_sorted(&document));
    }
    let _ = stdout.flush();
    status
}
