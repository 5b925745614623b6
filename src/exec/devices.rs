//! Per-device processing: the guard check for the whole invocation first, then for each device
//! in order: open, header, the steps. An error on one device is reported and the next device
//! still runs (hdparm stops at the first failing device; DIFFERENCES.md lists this).
//!
//! Devices are opened through [`Opener`], so that tests run exactly this function over the
//! scripted fake (`doubles/fake.rs`); the binary's opener is [`RealOpener`].
//!
//! Must not: send anything before every device's guards and every option's availability have
//! been checked; a refusal changes nothing anywhere.

use crate::cli::DeviceRun;
use crate::device::lock::{Denied, Mode, Wait, LOCK_WAIT};
use crate::error::{Error, ErrorClass};
use crate::exec::access::real::RealDevice;
use crate::exec::access::DeviceAccess;
use crate::exec::guards::{self, DeviceFacts};
use crate::exec::output::{Output, SharedStderr};
use crate::exec::steps::{self, Ctx};
use crate::exec::stop::Stop;
use crate::report::stop::{DeviceTurn, State, StopReport};
use std::io;

/// Where the devices of a run come from.
pub trait Opener {
    /// What the guards need to know about a device before anything is sent anywhere.
    fn facts(&mut self, run: &DeviceRun) -> DeviceFacts;
    /// Opens a device for its steps; `trace` is where its `--verbose` dumps go.
    fn open<'w>(&mut self, run: &DeviceRun, trace: SharedStderr<'w>) -> io::Result<Opened<'w>>;
    /// Takes the disk for the device's turn, before it is opened (`device::lock`): `Exclusive`
    /// for a destructive operation, after looking again at who uses it (the look at the start
    /// may be hours old by its turn); `Shared` otherwise. Held until the value is dropped.
    fn claim(&mut self, run: &DeviceRun, mode: Mode, wait: Wait<'_>) -> Result<Held, Denied>;
}

/// What a device's claim holds until its turn ends.
pub type Held = Box<dyn std::any::Any>;

/// An opened device, with what the JSON document says it is.
pub struct Opened<'w> {
    pub dev: Box<dyn DeviceAccess + 'w>,
    /// Short stable name of the device kind (`ata_disk`, `loop`...).
    pub kind: String,
    /// One sentence saying what the device is.
    pub description: String,
}

/// The real devices, through [`crate::device`].
#[derive(Default)]
pub struct RealOpener {
    /// The IDENTIFY words the guards read, one entry per run in order (facts are gathered
    /// for every run before the first is opened): the first IDENTIFY of that run's steps.
    guard_identify: std::collections::VecDeque<Option<[u16; 256]>>,
}

impl Opener for RealOpener {
    fn claim(&mut self, run: &DeviceRun, mode: Mode, wait: Wait<'_>) -> Result<Held, Denied> {
        let path = std::path::Path::new(&run.path);
        if mode == Mode::Exclusive {
            if let Some(user) = crate::device::usage::in_use(path) {
                return Err(Denied::InUse(user));
            }
        }
        crate::device::lock::lock(path, mode, wait).map(|held| Box::new(held) as Held)
    }

    fn facts(&mut self, run: &DeviceRun) -> DeviceFacts {
        let f = &run.flags;
        // Only the options whose guard depends on the drive's size ask it anything.
        // A dry run sends nothing, IDENTIFY included: its plan counts the size as unknown.
        let needs_size = (f.max_sectors.set || f.dco_setmax.is_some()) && !f.dry_run;
        let words = needs_size
            .then(|| RealDevice::guard_identify(&run.path, f))
            .flatten();
        self.guard_identify.push_back(words);
        let visible_sectors =
            words.map(|w| crate::ata::identify::Identify::from_words(w).capacity_sectors());
        // Only a run that may destroy data looks at who uses the drive (mountinfo, holders,
        // an exclusive open); `-N` counts as one until the size says it does not shrink.
        let may_destroy = guards::destructive_option(f, Some(u64::MAX)).is_some();
        let in_use = may_destroy
            .then(|| crate::device::usage::in_use(std::path::Path::new(&run.path)))
            .flatten();
        DeviceFacts {
            multcount_via_ata: RealDevice::multcount_needs_ata(&run.path),
            in_use,
            visible_sectors,
            nvme: RealDevice::takes_nvme(&run.path),
        }
    }

    fn open<'w>(&mut self, run: &DeviceRun, trace: SharedStderr<'w>) -> io::Result<Opened<'w>> {
        let seed = self.guard_identify.pop_front().flatten();
        let mut dev = RealDevice::open(&run.path, &run.flags, trace)?;
        if let Some(words) = seed {
            dev.seed_identify(words);
        }
        Ok(Opened {
            kind: dev.kind_name_string(),
            description: dev.description_string(),
            dev: Box::new(dev),
        })
    }
}

/// Runs every device of the invocation on the real devices.
///
/// A run with a destructive operation is stopped by SIGINT, SIGTERM, SIGHUP or SIGQUIT
/// between two commands instead of being killed (`exec/stop.rs`): the handler is installed
/// for the whole run, so no later handler can make it forget a stop.
pub fn run_devices(runs: &[DeviceRun], out: &mut Output) {
    let destructive = runs
        .iter()
        .any(|r| !r.flags.dry_run && guards::destructive_option(&r.flags, None).is_some());
    let handler = destructive
        .then(crate::device::sys::signal::StopHandler::install)
        .and_then(Result::ok);
    let stop = if handler.is_some() {
        Stop::on_signals()
    } else {
        Stop::never()
    };
    run_devices_with(runs, out, &mut RealOpener::default(), stop);
    drop(handler);
}

/// Runs every device of the invocation, opening each through `opener`; `stop` is looked at
/// before each device (and by the steps before each step and command).
pub fn run_devices_with(runs: &[DeviceRun], out: &mut Output, opener: &mut dyn Opener, stop: Stop) {
    if runs.len() > 1 {
        out.name_devices_in_errors();
    }
    // `--security-prompt-for-password`: hdparm reads the password while parsing, before any
    // device; so do we, once (the security step uses it), and the password file too. From
    // here on a process holding a password cannot dump core. A dry run reads no password: its
    // plan shows none.
    if let Err(e) = crate::exec::prompt::prepare(runs) {
        out.error(&e);
        return;
    }
    // Guards first, for all devices, before anything is sent anywhere. A device that cannot be
    // opened here is reported below, when its turn comes. Under --dry-run nothing is refused:
    // each device's plan says what a real run would need or be refused for.
    let mut all_facts = Vec::with_capacity(runs.len());
    for run in runs {
        let facts = opener.facts(run);
        if !run.flags.dry_run {
            if let Some(refusal) = refusal(run, &facts) {
                out.error(&refusal);
                return;
            }
        }
        all_facts.push(facts);
    }
    let mut turns = Vec::with_capacity(runs.len());
    for (index, run) in runs.iter().enumerate() {
        let name = run.path.to_string_lossy().into_owned();
        if stop.requested() {
            turns.push(DeviceTurn {
                name,
                state: State::NotStarted,
                detail: None,
            });
            continue;
        }
        let errors_before = out.errors().len();
        // A dry run sends nothing and takes no lock: its plan is the same either way.
        let held = if run.flags.dry_run {
            None
        } else {
            match claim(opener, run, &name, stop, out) {
                Ok(held) => Some(held),
                Err(turn) => {
                    turns.push(turn);
                    continue;
                }
            }
        };
        let mut opened = match opener.open(run, out.trace_writer()) {
            Ok(opened) => opened,
            Err(e) => {
                out.begin_device(&name, true);
                // An empty name would print ": No such file or directory", naming nothing.
                let label = if name.is_empty() { "''" } else { name.as_str() };
                let mut error = Error::os(ErrorClass::CannotOpen, label, &e);
                // open(2) says only "Invalid argument" when the node refuses O_DIRECT.
                if run.flags.direct && e.raw_os_error() == Some(libc::EINVAL) {
                    error
                        .message
                        .push_str(" (--direct asks for O_DIRECT, which it does not support)");
                }
                // The SCSI generic nodes are root's (and the disk group's) on most systems.
                if name.starts_with("/dev/sg") && e.raw_os_error() == Some(libc::EACCES) {
                    error.message.push_str(
                        " (the SCSI generic nodes are for root and the disk group; run as root)",
                    );
                }
                out.error(&error);
                out.end_device();
                turns.push(DeviceTurn {
                    name,
                    state: State::Failed,
                    detail: None,
                });
                continue;
            }
        };
        out.begin_device(&name, run.flags.quiet);
        out.device_kind(&opened.kind, &opened.description);
        let mut at_stop = None;
        if run.flags.dry_run {
            dry_run(
                run,
                &all_facts[index],
                name.clone(),
                opened.dev.as_mut(),
                out,
            );
        } else {
            let mut ctx = Ctx::new(
                name.clone(),
                run.flags.clone(),
                opened.dev.as_mut(),
                out,
                stop,
            );
            steps::run(&mut ctx);
            at_stop = ctx.turn_at_stop();
        }
        // The device is closed (udev's change event of a write is then raised) before its lock
        // is released, so that udev probes it after our turn, not during it.
        drop(opened);
        drop(held);
        out.end_device();
        let failed = out.errors().len() > errors_before;
        let (state, detail) = match at_stop {
            Some((State::Done, detail)) if failed => (State::Failed, detail),
            Some(turn) => turn,
            None if failed => (State::Failed, None),
            None => (State::Done, None),
        };
        turns.push(DeviceTurn {
            name,
            state,
            detail,
        });
    }
    if let Some(signal) = stop.signal() {
        out.stop_report(&StopReport {
            signal,
            signal_name: crate::device::sys::signal::name(signal),
            devices: turns,
        });
    }
}

/// Takes the disk for one device's turn (see [`Opener::claim`]); when it cannot be had, the
/// error is reported under the device and the turn for the stop report is returned.
fn claim(
    opener: &mut dyn Opener,
    run: &DeviceRun,
    name: &str,
    stop: Stop,
    out: &mut Output,
) -> Result<Held, DeviceTurn> {
    let destructive = guards::destructive_option(&run.flags, None);
    let (mode, limit) = match destructive {
        Some(_) => (Mode::Exclusive, LOCK_WAIT),
        None => (Mode::Shared, std::time::Duration::ZERO),
    };
    // A wait of a second or more is said once, while it goes on, on stderr.
    let denied = match opener.claim(
        run,
        mode,
        Wait {
            limit,
            stop: &|| stop.requested(),
            waiting: &mut |holder: &str| out.note(&waiting_line(name, holder)),
        },
    ) {
        Ok(held) => return Ok(held),
        Err(denied) => denied,
    };
    let Some(error) = denied_error(name, destructive.as_deref(), denied) else {
        return Err(DeviceTurn {
            name: name.to_string(),
            state: State::Interrupted,
            detail: Some("nothing was sent to it: it was waiting for the disk's lock".into()),
        });
    };
    out.begin_device(name, true);
    out.error(&error);
    out.end_device();
    Err(DeviceTurn {
        name: name.to_string(),
        state: State::Failed,
        detail: None,
    })
}

/// The error for a disk that could not be had: `operation` (a destructive option,
/// `--experiment`) is refused (busy), anything else skips the disk (skipped). None for a stop
/// that came while waiting, which is the stop's to report.
pub(crate) fn denied_error(name: &str, operation: Option<&str>, denied: Denied) -> Option<Error> {
    Some(match (denied, operation) {
        (Denied::Stopped, _) => return None,
        (Denied::InUse(user), Some(option)) => {
            Error::busy(guards::in_use_refusal(name, option, &user).text)
        }
        (Denied::InUse(user), None) => Error::new(
            ErrorClass::Skipped,
            format!("{name}: skipped: {user}; nothing was sent"),
        ),
        (Denied::Locked { holder, exclusive }, Some(option)) => Error::busy(format!(
            "{name}: refusing {option}: {}; nothing was sent",
            locked_why(&holder, exclusive)
        )),
        (Denied::Locked { holder, exclusive }, None) => Error::new(
            ErrorClass::Skipped,
            format!(
                "{name}: skipped: {}; nothing was sent",
                locked_why(&holder, exclusive)
            ),
        ),
    })
}

/// The shared lock of a mode that reads or sets a drive without destroying anything
/// (`--prometheus`, `--check`, `--apply`, `--surface`): one try, and when another run holds the
/// disk exclusively, the error that skips it (a reader never waits behind an erase).
pub(crate) fn reader_lock(device: &str) -> Result<crate::device::lock::DiskLock, Error> {
    let wait = Wait {
        limit: std::time::Duration::ZERO,
        stop: &|| false,
        waiting: &mut |_: &str| {},
    };
    crate::device::lock::lock(std::path::Path::new(device), Mode::Shared, wait).map_err(|denied| {
        denied_error(device, None, denied)
            .unwrap_or_else(|| Error::new(ErrorClass::Skipped, format!("{device}: skipped")))
    })
}

/// Why a locked disk is refused or skipped, in words.
fn locked_why(holder: &str, exclusive: bool) -> String {
    if exclusive {
        format!("the disk is locked by {holder}: another run is erasing, writing or testing it (hdparm-rs locks a disk for its destructive operations and --experiment), or a partitioning tool has it; wait for it to end")
    } else {
        format!(
            "the disk is locked by {holder} and was still locked after {} s (udev probing it, or a program it runs)",
            LOCK_WAIT.as_secs()
        )
    }
}

/// The line said when a claim has to wait.
pub(crate) fn waiting_line(name: &str, holder: &str) -> String {
    format!(
        "{name}: waiting for the disk's lock, held by {holder} (up to {} s)",
        LOCK_WAIT.as_secs()
    )
}

/// hdparm's guard refusal (class guard), then ours for a drive in use (a destructive operation
/// refuses a drive that this system is using: class busy), or None.
fn refusal(run: &DeviceRun, facts: &DeviceFacts) -> Option<Error> {
    if let Some(refusal) = guards::check(run, facts) {
        return Some(Error::guard(refusal.text));
    }
    let destructive = guards::destructive_option(&run.flags, facts.visible_sectors)?;
    let user = facts.in_use.as_deref()?;
    Some(Error::busy(
        guards::in_use_refusal(&run.path.to_string_lossy(), &destructive, user).text,
    ))
}

/// `--dry-run` on one opened device: its plan ([`crate::exec::access::dry_run::plan_device`]) printed in
/// place of its steps' output, and the real run's refusals and failures that the plan foresees
/// reported as errors, so that the exit status is the one the real run would have.
fn dry_run(
    run: &DeviceRun,
    facts: &DeviceFacts,
    name: String,
    dev: &mut dyn DeviceAccess,
    out: &mut Output,
) {
    let plan = crate::exec::access::dry_run::plan_device(run, facts, name.clone(), dev);
    out.text(&crate::report::dry_run::text(&plan));
    out.put(&crate::report::dry_run::PlanJson::of(&plan));
    for error in crate::exec::access::dry_run::real_run_errors(&name, &plan) {
        out.error(&error);
    }
}
