//! `--experiment`: compares groups of settings (arms) by timed trials on one device, and puts
//! the settings back afterwards.
//!
//! The run, in order:
//! 1. the guards: an arm needs the guard flags its options need (`exec::guards`), and `-X`,
//!    `-d0` and `-u1` need `--yes-i-know-what-i-am-doing` here even though hdparm asks for
//!    none: hdparm's manual calls them dangerous, and an experiment applies them many times
//!    over without anyone watching;
//! 2. the original value of every option any arm sets, read by its get; when one cannot be
//!    read, the run is refused before anything is changed (it could not be put back);
//! 3. one warm-up trial (arm 1), discarded: the first read after a settings change or a long
//!    idle pays for cold caches and a sleeping CPU that later trials do not;
//! 4. the trials in ABBA order (below); before each one the arm's settings are applied and
//!    read back (a setting that does not read back stops the run), and the trial flushes the
//!    caches and measures as `-t` (or `--direct`, `--bench`) does;
//! 5. the statistics (`crate::stats`): a summary per arm, each arm against the first as a
//!    ratio of means with its bootstrap interval, and a winner only when the best arm's
//!    interval against every other arm lies above 1;
//! 6. the restore: the originals are set again and read back, after a normal end, an error
//!    or a stop by SIGINT, SIGTERM, SIGHUP or SIGQUIT (the handler only sets a flag; the loop
//!    checks it between trials; the process then dies of the signal, after its report).
//!    `--keep` instead leaves the winner applied, when there is one.
//!
//! # The order: ABBA blocks
//!
//! Trial `b` of every arm forms block `b`; even blocks run the arms forwards (A B C), odd
//! blocks backwards (C B A). A slow drift of the machine (a page cache filling, a CPU warming,
//! another job starting) then adds the same to every arm over each pair of blocks, to first
//! order, which a rotating Latin order does only over a whole cycle of k blocks. With two arms
//! it is the classic ABBA design. Each arm is still applied before each of its trials, even
//! when it ran just before (the B B at a block boundary), so that every trial is alike.
//!
//! What this module must not do: print anything but through the report renderers, or call
//! the kernel itself: settings and trials go through [`Settings`] and [`Trials`] (the real
//! ones in `real.rs` run this program's own options), so the loop is tested with fakes.

pub mod plan;
mod real;

use crate::ata::values::xfer_mode_by_name;
use crate::cli::defs::{self, Apply};
use crate::cli::{Arm, ExperimentRequest, Measurement};
use crate::error::ErrorClass;
use crate::report::envelope::{DeviceJson, Envelope, Message};
use crate::report::experiment::{
    self as report, ArmReport, Comparison, ExperimentReport, Restored, Setting, Trial, Warmup,
};
use crate::stats;
use std::ffi::OsString;
use std::io::Write;

/// Reads and sets the options an experiment touches.
pub trait Settings {
    /// The current value of `option` (`-a`), as the word that sets it back (`256`, `udma5`).
    fn read(&mut self, option: &str) -> Result<String, String>;
    /// Sets the options to their values, in order.
    fn apply(&mut self, settings: &[Setting]) -> Result<(), String>;
}

/// Runs one measured trial: flushes the caches as `-t` does, reads, returns MiB/s.
pub trait Trials {
    fn run(&mut self) -> Result<f64, String>;
}

/// The order of the measured trials: arm indices, `trials` of each, in ABBA blocks.
pub fn balanced_order(arms: usize, trials: u32) -> Vec<usize> {
    (0..trials as usize)
        .flat_map(|block| {
            let forwards = block % 2 == 0;
            (0..arms).map(move |i| if forwards { i } else { arms - 1 - i })
        })
        .collect()
}

/// The settings an arm gives values to, in the order given (a later value of an option
/// replaces an earlier one, as hdparm's parser does).
pub fn arm_settings(arm: &Arm) -> Vec<Setting> {
    let mut flags = arm.flags.clone();
    let mut out = Vec::new();
    for option in &arm.options {
        let Some(def) = option.as_bytes().get(1).and_then(|&l| defs::by_letter(l)) else {
            continue;
        };
        let value = match def.apply {
            Apply::GetSet(field) => {
                let gs = field(&mut flags);
                gs.set.then(|| gs.value.to_string())
            }
            Apply::Custom(_) if def.short == Some(b'X') && flags.xfer_mode.set => Some(
                crate::ata::values::xfer_mode_name(flags.xfer_mode.value)
                    .unwrap_or_else(|| flags.xfer_mode.value.to_string()),
            ),
            _ => None,
        };
        if let Some(value) = value {
            out.push(Setting {
                option: option.clone(),
                value,
            });
        }
    }
    out
}

/// Whether a value read back is the value set: `-X` may read back as a name or a number.
fn same_value(option: &str, a: &str, b: &str) -> bool {
    if option == "-X" {
        let number = |s: &str| xfer_mode_by_name(s).or_else(|| s.parse().ok());
        return number(a).is_some() && number(a) == number(b);
    }
    a == b
}

/// Why an arm needs a guard flag it was not given, if it does.
fn guard_refusal(request: &ExperimentRequest, arm: &Arm) -> Option<String> {
    let run = crate::cli::DeviceRun {
        path: request.device.clone(),
        flags: {
            let mut f = arm.flags.clone();
            f.yes_i_know = request.yes_i_know;
            f.please_destroy = request.please_destroy;
            f
        },
    };
    let facts = crate::exec::guards::DeviceFacts {
        multcount_via_ata: crate::exec::access::real::RealDevice::multcount_needs_ata(&run.path),
        in_use: None,
        // An experiment's arms cannot set -N (not restorable).
        visible_sectors: None,
        nvme: crate::exec::access::real::RealDevice::takes_nvme(&run.path),
    };
    if let Some(refusal) = crate::exec::guards::check(&run, &facts) {
        return Some(refusal.text);
    }
    match risky_setting(arm) {
        Some(s) if !request.yes_i_know => Some(format!(
            "--experiment: arm '{}' sets {}, which hdparm's manual calls dangerous, over and over.\nPlease supply the --yes-i-know-what-i-am-doing flag before --experiment if you really want this.\nProgram aborted.",
            arm.text,
            s.text()
        )),
        _ => None,
    }
}

/// The setting of an arm that needs `--yes-i-know-what-i-am-doing` here though hdparm asks for
/// none (`-X`, `-d0`, `-u1`: see the module doc), if any.
fn risky_setting(arm: &Arm) -> Option<Setting> {
    arm_settings(arm).into_iter().find(|s| {
        s.option == "-X"
            || (s.option == "-d" && s.value == "0")
            || (s.option == "-u" && s.value == "1")
    })
}

/// How a run ended, for the exit status.
#[derive(Debug, PartialEq, Eq)]
pub enum Ending {
    Done,
    /// Stopped early or the restore failed: the report says why.
    Failed,
}

/// Reads the originals; refuses (nothing changed) when one cannot be read.
pub fn read_originals(
    arms: &[Vec<Setting>],
    settings: &mut dyn Settings,
) -> Result<Vec<Setting>, String> {
    let mut originals: Vec<Setting> = Vec::new();
    for s in arms.iter().flatten() {
        if originals.iter().any(|o| o.option == s.option) {
            continue;
        }
        let value = settings.read(&s.option).map_err(|e| {
            format!(
                "--experiment: cannot read {} before changing it ({e}), so it could not be restored: nothing was changed",
                s.option
            )
        })?;
        if let Some((min, max)) = settable_range(&s.option) {
            if value.parse::<i64>().map_or(true, |v| v < min || v > max) {
                return Err(format!(
                    "--experiment: {} is {value} now, outside what {} can set ({min}..{max}), so it could not be restored: nothing was changed",
                    s.option, s.option
                ));
            }
        }
        originals.push(Setting {
            option: s.option.clone(),
            value,
        });
    }
    Ok(originals)
}

/// The values an option's set accepts, for options with a decimal value. The kernel can hold
/// values the option cannot set (a loop device's read-ahead is often 5120 sectors, `-a` takes
/// 0..2048), and such an original could not be put back.
fn settable_range(option: &str) -> Option<(i64, i64)> {
    let def = option.as_bytes().get(1).and_then(|&l| defs::by_letter(l))?;
    match def.value {
        defs::Value::Decimal { min, max, .. } => Some((i64::from(min), i64::from(max))),
        _ => None,
    }
}

/// Applies settings and checks that each reads back as set.
fn apply_checked(wanted: &[Setting], settings: &mut dyn Settings) -> Result<(), String> {
    settings.apply(wanted)?;
    for s in wanted {
        let found = settings.read(&s.option)?;
        if !same_value(&s.option, &found, &s.value) {
            return Err(format!(
                "{} was set to {} but reads back {found}",
                s.option, s.value
            ));
        }
    }
    Ok(())
}

/// The best arm, when its interval against every other arm lies above 1.
fn winner(arms: &[ArmReport]) -> Option<usize> {
    let best = arms
        .iter()
        .enumerate()
        .filter_map(|(i, a)| a.summary.map(|m| (i, m.mean)))
        .max_by(|a, b| a.1.total_cmp(&b.1))?
        .0;
    let beats_all = arms.iter().enumerate().all(|(i, other)| {
        i == best
            || stats::ratio_of_means(
                &other.trials_mib_per_second,
                &arms[best].trials_mib_per_second,
            )
            .is_some_and(|r| stats::verdict(&r) == stats::Verdict::SecondLarger)
    });
    beats_all.then_some(best)
}

/// What the loop reports as it goes: the writer (stderr), and whether it is a terminal.
pub type Progress<'a> = Option<(&'a mut dyn Write, bool)>;

/// The whole run over injected settings, trials and stop flag. `Err` is a refusal before
/// anything was changed.
pub fn run_with(
    request: &ExperimentRequest,
    settings: &mut dyn Settings,
    trials: &mut dyn Trials,
    stop: &dyn Fn() -> bool,
    mut progress: Progress<'_>,
) -> Result<(ExperimentReport, Ending), String> {
    let arm_sets: Vec<Vec<Setting>> = request.arms.iter().map(arm_settings).collect();
    let originals = read_originals(&arm_sets, settings)?;
    let order = balanced_order(request.arms.len(), request.trials);
    let mut r = new_report(request, &arm_sets, &originals);
    // The warm-up, then the measured trials: `None` marks the warm-up.
    let first = order.first().copied().unwrap_or(0);
    let schedule = std::iter::once((None, first))
        .chain(order.iter().copied().enumerate().map(|(i, a)| (Some(i), a)));
    let total = order.len() + 1;
    let started = std::time::Instant::now();
    for (step, (index, arm)) in schedule.enumerate() {
        if stop() {
            r.stopped = Some(format!(
                "interrupted by a signal after {step} of {total} trials"
            ));
            break;
        }
        if let Some((p, terminal)) = progress.as_mut() {
            progress_line(
                &mut **p,
                *terminal,
                &r,
                step,
                total,
                index,
                order.len(),
                arm,
                started,
            );
        }
        if let Err(e) = apply_checked(&arm_sets[arm], settings) {
            r.stopped = Some(format!("arm '{}': {e}", r.arms[arm].label));
            break;
        }
        match trials.run() {
            Ok(v) => match index {
                None => {
                    r.warmup = Some(Warmup {
                        arm,
                        mib_per_second: v,
                    })
                }
                Some(i) => {
                    r.trials.push(Trial {
                        index: i,
                        arm,
                        mib_per_second: v,
                    });
                    r.arms[arm].trials_mib_per_second.push(v);
                }
            },
            Err(e) => {
                r.stopped = Some(format!(
                    "trial {} (arm '{}'): {e}",
                    step + 1,
                    r.arms[arm].label
                ));
                break;
            }
        }
    }
    if let Some((p, true)) = progress {
        let _ = write!(p, "\r\x1b[K");
        let _ = p.flush();
    }
    summarize(&mut r, stop);
    let mut ending = if r.stopped.is_some() {
        Ending::Failed
    } else {
        Ending::Done
    };
    keep_or_restore(
        request,
        &arm_sets,
        &originals,
        settings,
        &mut r,
        &mut ending,
    );
    Ok((r, ending))
}

/// The report before any trial: the request's arms with their settings, and the originals.
fn new_report(
    request: &ExperimentRequest,
    arm_sets: &[Vec<Setting>],
    originals: &[Setting],
) -> ExperimentReport {
    ExperimentReport {
        device: request.device.to_string_lossy().into_owned(),
        measurement: match request.measurement {
            Measurement::Buffered => "buffered",
            Measurement::Direct => "direct",
            Measurement::Bench(_) => "bench",
        },
        unit: "mib_per_second",
        order: "ABBA",
        trials_per_arm: request.trials,
        warmup: None,
        originals: originals.to_vec(),
        arms: request
            .arms
            .iter()
            .zip(arm_sets)
            .map(|(a, s)| ArmReport {
                label: a.text.clone(),
                settings: s.clone(),
                trials_mib_per_second: Vec::new(),
                summary: None,
            })
            .collect(),
        trials: Vec::new(),
        comparisons: Vec::new(),
        winner: None,
        stopped: None,
        kept: None,
        restored: Vec::new(),
        restore_failed: None,
        stanza: None,
    }
}

/// The progress line before trial `step` of `total` (`index`: None for the warm-up). A
/// terminal gets one line redrawn before each trial; a log (a pipe, a file, the journal) gets a
/// plain line at the start and at each tenth of the run, so that it shows the run is alive
/// without a line per trial.
#[allow(clippy::too_many_arguments)]
fn progress_line(
    p: &mut dyn Write,
    terminal: bool,
    r: &ExperimentReport,
    step: usize,
    total: usize,
    index: Option<usize>,
    measured: usize,
    arm: usize,
    started: std::time::Instant,
) {
    // A terminal gets one line redrawn before each trial; a log (a pipe, a file, the
    // journal) gets a plain line at the start and at each tenth of the run, so that it
    // shows the run is alive without a line per trial.
    let tenth = |step: usize| step * 10 / total;
    if terminal || step == 0 || tenth(step) != tenth(step - 1) {
        let what = match index {
            None => "warm-up".to_string(),
            Some(i) => format!("trial {}/{}", i + 1, measured),
        };
        // The estimate: the mean time of the trials so far, for each one left.
        let estimate = if step > 0 {
            let left = started.elapsed() / step as u32 * (total - step) as u32;
            format!(", about {} s left", left.as_secs() + 1)
        } else {
            String::new()
        };
        let line = format!(
            "{}: {what}, arm {} '{}'{estimate}",
            r.device,
            arm + 1,
            r.arms[arm].label
        );
        let _ = if terminal {
            write!(p, "\r\x1b[K{line}")
        } else {
            writeln!(p, "{line}")
        };
        let _ = p.flush();
    }
}

/// Each arm's summary, the comparisons with arm 0, and the winner of a run not cut short.
fn summarize(r: &mut ExperimentReport, stop: &dyn Fn() -> bool) {
    for arm in &mut r.arms {
        arm.summary = stats::summarize_rates(&arm.trials_mib_per_second);
    }
    for i in 1..r.arms.len() {
        if let Some(ratio) = stats::ratio_of_means(
            &r.arms[0].trials_mib_per_second,
            &r.arms[i].trials_mib_per_second,
        ) {
            r.comparisons.push(Comparison {
                arm: i,
                baseline: 0,
                ratio,
                verdict: stats::verdict(&ratio),
            });
        }
    }
    // A run cut short decides nothing: its arms have unequal, drifting shares of the machine.
    if r.stopped.is_none() {
        r.winner = winner(&r.arms);
    }
    // A signal during the last trial is seen here, and the run then restores as for any stop.
    if r.stopped.is_none() && stop() {
        r.stopped = Some("interrupted by a signal after the last trial".into());
        r.winner = None;
    }
}

/// With `--keep`, sets the winner again and writes its hdparm.conf stanza; else (or when that
/// fails) restores the originals.
fn keep_or_restore(
    request: &ExperimentRequest,
    arm_sets: &[Vec<Setting>],
    originals: &[Setting],
    settings: &mut dyn Settings,
    r: &mut ExperimentReport,
    ending: &mut Ending,
) {
    let keep = request.keep.then_some(r.winner).flatten();
    match keep {
        Some(w) => match apply_checked(&arm_sets[w], settings) {
            Ok(()) => {
                r.kept = Some(w);
                // A by-id name outlives the sdX letter, which can change at the next boot.
                let name = crate::device::system::by_id_name(std::path::Path::new(&request.device))
                    .unwrap_or_else(|| r.device.clone());
                r.stanza = Some(report::conf_stanza(&name, &arm_sets[w]));
            }
            Err(e) => {
                r.stopped = Some(format!(
                    "--keep: the winner '{}' did not apply: {e}",
                    r.arms[w].label
                ));
                *ending = Ending::Failed;
                restore(originals, settings, r, ending);
            }
        },
        None => restore(originals, settings, r, ending),
    }
}

/// Sets the originals again and reads each back into the report.
fn restore(
    originals: &[Setting],
    settings: &mut dyn Settings,
    r: &mut ExperimentReport,
    ending: &mut Ending,
) {
    if let Err(e) = settings.apply(originals) {
        // One failed set must not stop the others: try each alone.
        // Whether each came back is judged by the read-back below.
        for s in originals {
            let _ = settings.apply(std::slice::from_ref(s));
        }
        // Even when the retries bring everything back, a failed restore command is worth a
        // failing exit status: something about the device did not behave.
        *ending = Ending::Failed;
        r.restore_failed = Some(e);
    }
    for s in originals {
        let back = settings.read(&s.option).ok();
        if !back
            .as_deref()
            .is_some_and(|b| same_value(&s.option, b, &s.value))
        {
            *ending = Ending::Failed;
        }
        r.restored.push(Restored {
            option: s.option.clone(),
            value: s.value.clone(),
            reads_back: back,
        });
    }
}

/// Runs `--experiment` on its device; returns the exit status.
pub fn run_experiment(
    request: &ExperimentRequest,
    program_args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
    stderr_is_terminal: bool,
) -> u8 {
    // A dry run sets, reads and times nothing: it plans.
    if request.dry_run {
        return plan::run_plan(request, program_args, stdout, stderr);
    }
    let device = request.device.to_string_lossy().into_owned();
    let fail = |class: ErrorClass, text: String, stdout: &mut dyn Write, stderr: &mut dyn Write| {
        let _ = writeln!(stderr, "{text}");
        if request.json {
            let mut env = Envelope::new(argv_strings(program_args));
            env.hdparm_rs.exit_status = class.exit_status();
            env.devices.push(DeviceJson {
                name: device.clone(),
                messages: vec![Message {
                    severity: "error",
                    class: Some(class.name()),
                    text,
                }],
                ..Default::default()
            });
            let _ = stdout.write_all(env.render().as_bytes());
        }
        let _ = stdout.flush();
        class.exit_status()
    };
    for arm in &request.arms {
        if let Some(text) = guard_refusal(request, arm) {
            return fail(ErrorClass::Guard, text, stdout, stderr);
        }
    }
    let stop_handler = match crate::device::sys::signal::StopHandler::install() {
        Ok(h) => h,
        Err(e) => {
            return fail(
                ErrorClass::Failed,
                format!("--experiment: cannot install the signal handler that restores the settings after a stop: {e}"),
                stdout,
                stderr,
            )
        }
    };
    // The disk is the experiment's for the whole run (issue 18): a second --experiment, an
    // --apply (udev's or resume's) or a destructive operation would change what the trials
    // measure, or take a trial value for the original and leave it behind. The command lines
    // the experiment runs inside itself get the disk through this lock.
    let held = crate::device::lock::lock(
        std::path::Path::new(&request.device),
        crate::device::lock::Mode::ExclusiveLock,
        crate::device::lock::Wait {
            limit: crate::device::lock::LOCK_WAIT,
            stop: &|| stop_handler.requested(),
            waiting: &mut |holder: &str| {
                let _ = writeln!(
                    stderr,
                    "{}",
                    crate::exec::devices::waiting_line(&device, holder)
                );
            },
        },
    );
    let _held = match held {
        Ok(held) => held,
        Err(denied) => {
            let class = stop_handler
                .signal()
                .map_or(ErrorClass::Busy, ErrorClass::Stopped);
            let text = crate::exec::devices::denied_error(&device, Some("--experiment"), denied)
                .map_or_else(
                    || format!("{device}: --experiment: stopped while waiting for the disk's lock; nothing was changed"),
                    |e| e.message,
                );
            return fail(class, text, stdout, stderr);
        }
    };
    let mut settings = real::RealSettings::new(request);
    let mut trials = real::RealTrials::new(request);
    let stop = || stop_handler.requested();
    let progress: Progress<'_> = Some((&mut *stderr, stderr_is_terminal));
    let (report, ending) = match run_with(request, &mut settings, &mut trials, &stop, progress) {
        Ok(done) => done,
        Err(text) => return fail(ErrorClass::Failed, text, stdout, stderr),
    };
    // A stop signal ends the process once the settings are back (main raises it again): the
    // class says which signal, so that a parent sees the process killed by it.
    let signal = stop_handler.signal().filter(|_| report.stopped.is_some());
    drop(stop_handler);
    let mut class = (ending == Ending::Failed).then_some(ErrorClass::Failed);
    if let Some(signal) = signal {
        class = Some(ErrorClass::Stopped(signal));
    }
    let mut messages = Vec::new();
    // `--plot -`: the SVG is standard output, and the text report goes to stderr.
    let plot_to_stdout = request.plot.as_deref() == Some(std::path::Path::new("-"));
    if let Some(path) = request.plot.as_ref().filter(|_| !plot_to_stdout) {
        if let Err(e) =
            crate::device::files::write_output(path, report::render_svg(&report).as_bytes())
        {
            let text = format!(
                "--plot: cannot write {}: {}",
                path.display(),
                crate::error::strerror(&e)
            );
            let _ = writeln!(stderr, "{text}");
            class = Some(class.map_or(ErrorClass::OutputFailed, |c| {
                c.max(ErrorClass::OutputFailed)
            }));
            messages.push(Message {
                severity: "error",
                class: Some(ErrorClass::OutputFailed.name()),
                text,
            });
        }
    }
    closing_messages(request, &report, signal, &device, stderr, &mut messages);
    let status = class.map_or(0, ErrorClass::exit_status);
    write_report(
        request,
        program_args,
        &report,
        device,
        messages,
        status,
        plot_to_stdout,
        stdout,
        stderr,
    );
    let _ = stdout.flush();
    status
}

/// The lines that end a run (stopped early, not all restored, no winner to keep), on stderr
/// and as the document's messages.
fn closing_messages(
    request: &ExperimentRequest,
    report: &ExperimentReport,
    signal: Option<i32>,
    device: &str,
    stderr: &mut dyn Write,
    messages: &mut Vec<Message>,
) {
    if let Some(why) = &report.stopped {
        let text = match signal {
            Some(signal) => format!(
                "{device}: --experiment stopped early by {}: {why}{}",
                crate::device::sys::signal::name(signal),
                if report.restore_failed.is_none() {
                    "; the original settings were restored"
                } else {
                    ""
                }
            ),
            None => format!("{device}: --experiment stopped early: {why}"),
        };
        let _ = writeln!(stderr, "{text}");
        messages.push(Message {
            severity: "error",
            class: Some(signal.map_or("failed", |s| ErrorClass::Stopped(s).name())),
            text,
        });
    }
    if let Some(why) = &report.restore_failed {
        let text =
            format!("{device}: --experiment: the original settings did not all come back: {why}");
        let _ = writeln!(stderr, "{text}");
        messages.push(Message {
            severity: "error",
            class: Some("failed"),
            text,
        });
    }
    if request.keep && report.kept.is_none() && report.stopped.is_none() {
        let text = format!("{device}: --keep: no arm won, so the original settings were restored");
        let _ = writeln!(stderr, "{text}");
        messages.push(Message {
            severity: "warning",
            class: None,
            text,
        });
    }
}

/// The report: the JSON document, or the text (with the SVG on stdout for `--plot -`).
#[allow(clippy::too_many_arguments)]
fn write_report(
    request: &ExperimentRequest,
    program_args: &[OsString],
    report: &ExperimentReport,
    device: String,
    messages: Vec<Message>,
    status: u8,
    plot_to_stdout: bool,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) {
    if request.json {
        let mut env = Envelope::new(argv_strings(program_args));
        env.hdparm_rs.exit_status = status;
        env.devices.push(DeviceJson {
            name: device,
            messages,
            ..Default::default()
        });
        // The report sits in the device object under its own key, as `identify` does; the
        // envelope's `other` map would nest it one level deeper.
        let mut doc = serde_json::to_value(&env).unwrap_or_default();
        if let Some(dev) = doc["devices"][0].as_object_mut() {
            dev.insert(
                <ExperimentReport as crate::report::sections::Section>::KEY.into(),
                serde_json::to_value(report).unwrap_or_default(),
            );
        }
        let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
        text.push('\n');
        let _ = stdout.write_all(text.as_bytes());
    } else if plot_to_stdout {
        let _ = stderr.write_all(report::render_text(report).as_bytes());
        let _ = stdout.write_all(report::render_svg(report).as_bytes());
    } else {
        let _ = stdout.write_all(report::render_text(report).as_bytes());
    }
}

fn argv_strings(args: &[OsString]) -> Vec<String> {
    crate::cli::parse::redacted_argv(args)
}

#[cfg(test)]
mod tests;
