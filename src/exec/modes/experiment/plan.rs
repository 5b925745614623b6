//! `--dry-run --experiment`: the plan of an experiment, with nothing set, read or timed.
//!
//! The real run ([`super::real`]) is made of this program's own command lines: `-a DEV` (each
//! option's get, `-I DEV` for `-X`) to read an original, `[guards] -a 8 DEV` to apply an arm,
//! `-t DEV` (or `--direct`, or one `--bench` trial) to measure, and the originals set again at
//! the end. The plan runs each of those command lines through the device dry run
//! ([`crate::exec::access::dry_run::plan_device`]) on the experiment's device, so that it lists what
//! each would send, and says how many times: once per original before the first trial; each
//! arm before each of its trials (the warm-up is arm 1's), with its gets to read it back; the
//! restore at the end. The guards are the experiment's (`exec::modes::experiment::guard_refusal`):
//! a missing one is named, not refused.
//!
//! Text: a header line, then the sections, each command line's plan indented under it. JSON:
//! the envelope with one device whose `experiment_plan` holds `sent` (false),
//! `guards_needed`, `guards_missing`, `measurement`, `trials_per_arm`, `warmup_trials` (1),
//! `trials_total`, `originals` (`[{option, dry_run}]`), `arms` (`[{label, applied_times,
//! dry_run}]`), `restore` (`originals`, or `winner_or_originals` with `--keep`) and `plot` (the
//! file, or null), each `dry_run` the device plan of `report::dry_run`.
//!
//! Exit status: that of the real run as far as the plan shows it: guard (1) for a missing
//! guard flag; failed (5), the class the real run gives any failure, when a command line's
//! plan shows it would fail (an arm that sends ATA commands to a device without ATA), naming
//! the first, where the real run would stop; else 0.
//!
//! Must not: set, read or time anything; print other than through `report::dry_run`.

use super::{arm_settings, risky_setting};
use crate::cli::{ExperimentRequest, Invocation, Measurement};
use crate::error::{Error, ErrorClass, Verdict};
use crate::exec::devices::{Opener, RealOpener};
use crate::exec::output::Output;
use crate::report::dry_run::{self, Plan};
use crate::report::envelope::{DeviceJson, Envelope, Message};
use serde_json::Value;
use std::ffi::OsString;
use std::io::Write;

const YES_I_KNOW: &str = "--yes-i-know-what-i-am-doing";
const PLEASE_DESTROY: &str = "--please-destroy-my-drive";

/// One command line of the experiment, planned.
struct Line {
    /// What the command line is for, for people (`-a`, `'-a 8'`).
    label: String,
    plan: Plan,
}

/// The plan of `hdparm --dry-run WORDS... DEVICE` on the experiment's device: the device
/// opened read-only, its steps run against the recorder. An open failure is the plan's
/// failure, as the real run's would be.
fn plan_words(words: &[String], device: &OsString) -> Plan {
    let argv: Vec<OsString> = ["hdparm", "--dry-run"]
        .into_iter()
        .map(OsString::from)
        .chain(words.iter().map(OsString::from))
        .chain(std::iter::once(device.clone()))
        .collect();
    let run = match crate::cli::parse(&argv).result {
        Ok(Invocation::Devices(mut runs)) if runs.len() == 1 => runs.remove(0),
        // The arms were parsed as such already; a get line always parses.
        _ => {
            return Plan {
                would_fail: vec![(
                    ErrorClass::Usage,
                    format!("'{}' is not a device command line", words.join(" ")),
                )],
                ..Plan::default()
            }
        }
    };
    let mut opener = RealOpener::default();
    let facts = opener.facts(&run);
    let (mut trace_out, mut trace_err) = (Vec::new(), Vec::new());
    let scratch = Output::new(false, Vec::new(), &mut trace_out, &mut trace_err);
    let name = device.to_string_lossy().into_owned();
    let plan = match opener.open(&run, scratch.trace_writer()) {
        Ok(mut opened) => {
            crate::exec::access::dry_run::plan_device(&run, &facts, name, opened.dev.as_mut())
        }
        Err(e) => Plan {
            would_fail: vec![(
                ErrorClass::CannotOpen,
                format!("{name}: {}", crate::error::strerror(&e)),
            )],
            ..Plan::default()
        },
    };
    plan
}

/// The guard flags the experiment needs for its arms, and those it is given.
fn guards(request: &ExperimentRequest) -> (Vec<&'static str>, Vec<&'static str>) {
    let refused = |know: bool, destroy: bool| {
        let mut r = request.clone();
        r.yes_i_know = know;
        r.please_destroy = destroy;
        r.arms
            .iter()
            .any(|arm| super::guard_refusal(&r, arm).is_some())
    };
    let needed = if !refused(false, false) {
        vec![]
    } else if !refused(true, false) {
        vec![YES_I_KNOW]
    } else if !refused(false, true) {
        vec![PLEASE_DESTROY]
    } else {
        vec![YES_I_KNOW, PLEASE_DESTROY]
    };
    let given = [
        (request.yes_i_know, YES_I_KNOW),
        (request.please_destroy, PLEASE_DESTROY),
    ]
    .iter()
    .filter(|g| g.0)
    .map(|g| g.1)
    .collect();
    (needed, given)
}

/// The words that read an option's value now (`-a`; `-I` for `-X`, which has no get).
fn get_words(option: &str) -> Vec<String> {
    vec![if option == "-X" { "-I" } else { option }.to_string()]
}

/// The measurement of one trial, as the plan names it.
fn measurement_text(m: &Measurement) -> String {
    match m {
        Measurement::Buffered => {
            "buffered disk reads (-t: BLKFLSBUF, then 3 s of 2 MiB reads)".to_string()
        }
        Measurement::Direct => {
            "O_DIRECT disk reads (-t --direct: BLKFLSBUF, then 3 s of 2 MiB reads)".to_string()
        }
        Measurement::Bench(o) => format!(
            "one --bench trial (BLKFLSBUF, then O_DIRECT reads of {} bytes at queue depth {} for {:.1} s)",
            o.block_size,
            o.depth,
            o.trial_duration.as_secs_f64()
        ),
    }
}

/// Runs `--dry-run --experiment`; returns the exit status.
pub fn run_plan(
    request: &ExperimentRequest,
    program_args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let device = request.device.to_string_lossy().into_owned();
    let arm_sets: Vec<_> = request.arms.iter().map(arm_settings).collect();
    let mut options: Vec<String> = Vec::new();
    for s in arm_sets.iter().flatten() {
        if !options.contains(&s.option) {
            options.push(s.option.clone());
        }
    }
    let originals: Vec<Line> = options
        .iter()
        .map(|o| Line {
            label: o.clone(),
            plan: plan_words(&get_words(o), &request.device),
        })
        .collect();
    let mut guard_words = Vec::new();
    if request.yes_i_know {
        guard_words.push(YES_I_KNOW.to_string());
    }
    if request.please_destroy {
        guard_words.push(PLEASE_DESTROY.to_string());
    }
    let arms: Vec<Line> = request
        .arms
        .iter()
        .zip(&arm_sets)
        .map(|(arm, sets)| {
            let mut words = guard_words.clone();
            for s in sets {
                words.push(s.option.clone());
                words.push(s.value.clone());
            }
            Line {
                label: arm.text.clone(),
                plan: plan_words(&words, &request.device),
            }
        })
        .collect();
    let (needed, given) = guards(request);
    let missing: Vec<&str> = needed
        .iter()
        .filter(|g| !given.contains(g))
        .copied()
        .collect();
    let trials = request.trials as usize;
    let total = trials * request.arms.len() + 1;

    // The errors that give the real run's exit status.
    let mut verdict = Verdict::default();
    let mut errors: Vec<Error> = Vec::new();
    if !missing.is_empty() {
        let risky = request
            .arms
            .iter()
            .find_map(|a| {
                risky_setting(a).map(|s| format!(" (arm '{}' sets {})", a.text, s.text()))
            })
            .unwrap_or_default();
        errors.push(Error::guard(format!(
            "{device}: --dry-run: a real run of --experiment would be refused: it needs {}{risky}",
            missing.join(" ")
        )));
    }
    // The real run stops at the first command line that fails (reading an original refuses the
    // run; an arm that does not apply stops it), and says so with class failed.
    let first_failure = originals.iter().chain(&arms).find_map(|line| {
        let (_, text) = line.plan.would_fail.iter().max_by_key(|(c, _)| *c)?;
        Some((line, text.trim().to_string()))
    });
    if let Some((line, text)) = first_failure {
        errors.push(Error::failed(format!(
            "{device}: --dry-run: a real run of --experiment would stop at '{}': {text}",
            line.label
        )));
    }
    for e in &errors {
        verdict.record(e.class);
        let _ = writeln!(stderr, "{}", e.message);
    }
    let status = verdict.exit_status();

    if request.json {
        let plan = PlanLines {
            needed: &needed,
            missing: &missing,
            originals: &originals,
            arms: &arms,
            total,
        };
        write_plan_json(
            request,
            program_args,
            device,
            &plan,
            &errors,
            status,
            stdout,
        );
    } else {
        let _ =
            stdout.write_all(text(request, &device, &needed, &given, &originals, &arms).as_bytes());
    }
    let _ = stdout.flush();
    status
}

/// What `--dry-run --experiment` planned, for its JSON document.
struct PlanLines<'a> {
    needed: &'a [&'static str],
    missing: &'a [&'static str],
    originals: &'a [Line],
    arms: &'a [Line],
    total: usize,
}

/// Writes `--dry-run --experiment --json`'s document: the envelope with the device's messages
/// and its `experiment_plan` object.
fn write_plan_json(
    request: &ExperimentRequest,
    program_args: &[OsString],
    device: String,
    plan: &PlanLines,
    errors: &[Error],
    status: u8,
    stdout: &mut dyn Write,
) {
    let PlanLines {
        needed,
        missing,
        originals,
        arms,
        total,
    } = *plan;
    let trials = request.trials as usize;
    let document = PlanReport {
        sent: false,
        guards_needed: needed,
        guards_missing: missing,
        measurement: match request.measurement {
            Measurement::Buffered => "buffered",
            Measurement::Direct => "direct",
            Measurement::Bench(_) => "bench",
        },
        trials_per_arm: request.trials,
        warmup_trials: 1,
        trials_total: total,
        originals: originals
            .iter()
            .map(|l| PlanOriginal {
                option: &l.label,
                dry_run: dry_run::json(&l.plan),
            })
            .collect(),
        arms: arms
            .iter()
            .enumerate()
            .map(|(i, l)| PlanArm {
                label: &l.label,
                applied_times: trials + usize::from(i == 0),
                dry_run: dry_run::json(&l.plan),
            })
            .collect(),
        restore: if request.keep {
            "winner_or_originals"
        } else {
            "originals"
        },
        plot: request.plot.as_ref().map(|p| p.display().to_string()),
    };
    let document = serde_json::to_value(document).unwrap_or_default();
    let mut env = Envelope::new(
        program_args
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect(),
    );
    env.hdparm_rs.exit_status = status;
    env.devices.push(DeviceJson {
        name: device,
        messages: errors
            .iter()
            .map(|e| Message {
                severity: "error",
                class: Some(e.class.name()),
                text: e.message.clone(),
            })
            .collect(),
        ..Default::default()
    });
    let mut doc = serde_json::to_value(&env).unwrap_or_default();
    if let Some(dev) = doc["devices"][0].as_object_mut() {
        dev.insert(
            <PlanReport as crate::report::sections::Section>::KEY.into(),
            document,
        );
    }
    let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
    text.push('\n');
    let _ = stdout.write_all(text.as_bytes());
}

/// The `experiment_plan` object of `--dry-run --experiment --json`; its schema is the
/// device's `experiment_plan` (`report::sections`).
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PlanReport<'a> {
    /// Always false: nothing was sent.
    #[schemars(extend("const" = false))]
    sent: bool,
    #[schemars(schema_with = "guards_ref::<true>")]
    guards_needed: &'a [&'static str],
    #[schemars(schema_with = "guards_ref::<false>")]
    guards_missing: &'a [&'static str],
    #[schemars(extend("enum" = ["buffered", "direct", "bench"]))]
    measurement: &'static str,
    #[schemars(range(min = 1))]
    trials_per_arm: u32,
    warmup_trials: u32,
    #[schemars(range(min = 1))]
    trials_total: usize,
    originals: Vec<PlanOriginal<'a>>,
    arms: Vec<PlanArm<'a>>,
    /// `originals`, or with `--keep` `winner_or_originals`.
    #[schemars(extend("enum" = ["originals", "winner_or_originals"]))]
    restore: &'static str,
    plot: Option<String>,
}

/// `guards_needed` (`NEEDED`) or `guards_missing`: those of the document's `dry_run`.
fn guards_ref<const NEEDED: bool>(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    if NEEDED {
        schemars::json_schema!({"$ref": "#/$defs/dry_run/properties/guards_needed"})
    } else {
        schemars::json_schema!({"$ref": "#/$defs/dry_run/properties/guards_missing"})
    }
}

/// An original setting read before the first arm: its option and the plan of its get.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
struct PlanOriginal<'a> {
    option: &'a str,
    #[schemars(schema_with = "crate::report::schema::dry_run_ref")]
    dry_run: Value,
}

/// An arm: its label, how many times it is set, and the plan of its command line.
#[derive(serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
struct PlanArm<'a> {
    label: &'a str,
    #[schemars(range(min = 1))]
    applied_times: usize,
    #[schemars(schema_with = "crate::report::schema::dry_run_ref")]
    dry_run: Value,
}

/// The plan as text.
fn text(
    request: &ExperimentRequest,
    device: &str,
    needed: &[&'static str],
    given: &[&'static str],
    originals: &[Line],
    arms: &[Line],
) -> String {
    let trials = request.trials as usize;
    let mut s = format!("{device}: dry run of --experiment: nothing was set, read or timed\n");
    s.push_str(&dry_run::guards_text(&Plan {
        guards_needed: needed.to_vec(),
        guards_given: given.to_vec(),
        ..Plan::default()
    }));
    s.push_str(&format!(
        " {} arms, {trials} trials each in ABBA blocks after 1 warm-up trial of arm 1: {} trials, each timed as {}\n",
        request.arms.len(),
        trials * request.arms.len() + 1,
        measurement_text(&request.measurement)
    ));
    let indented = |s: &mut String, plan: &Plan, depth: usize| {
        for line in dry_run::step_lines(plan) {
            s.push_str(&format!("{:depth$}{line}\n", ""));
        }
    };
    s.push_str(" first, each setting the arms change is read, to be set back at the end:\n");
    for line in originals {
        s.push_str(&format!("  {}:\n", line.label));
        indented(&mut s, &line.plan, 3);
    }
    for (i, line) in arms.iter().enumerate() {
        let times = trials + usize::from(i == 0);
        s.push_str(&format!(
            " arm {} '{}', applied before each of its {times} trials{}, then read back:\n",
            i + 1,
            line.label,
            if i == 0 {
                " (the warm-up included)"
            } else {
                ""
            }
        ));
        indented(&mut s, &line.plan, 2);
    }
    let options: Vec<&str> = originals.iter().map(|l| l.label.as_str()).collect();
    s.push_str(&format!(
        " at the end: {} set back to the values read first, and read back\n",
        options.join(" ")
    ));
    if request.keep {
        s.push_str(" (--keep: the winning arm is left applied instead, when one wins)\n");
    }
    match &request.plot {
        Some(p) if p.as_os_str() == "-" => {
            s.push_str(" would write the plot to standard output\n");
        }
        Some(p) => s.push_str(&format!(" would write the plot to {}\n", p.display())),
        None => {}
    }
    s
}
