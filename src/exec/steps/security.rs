//! Step 28: the password commands of the ATA Security feature set (`--security-set-pass`,
//! `-unlock`, `-disable`, `-erase`, `-erase-enhanced`; reference §4.7), sent as hdparm 9.65
//! sends them: the same data sector, taskfiles, timeouts, message and perror labels, and a
//! failure ends the device's processing at once (hdparm exits).
//!
//! Ours, on top (DIFFERENCES.md, "security and sanitize"): the erase's time estimate on stderr
//! before it starts; elapsed time against it while it runs when stderr is a terminal; a frozen
//! drive explained (and, for the erase, not sent a command it must abort); what SIGINT and
//! SIGTERM mean during the erase; after SET PASSWORD, one sentence that a locked drive needs
//! this password.
//!
//! Must not: reach the device other than through [`super::DeviceAccess::ata`]; the erase's
//! one blocking command runs on this thread while a watcher thread only prints.

use super::Ctx;
use crate::ata::identify::Identify;
use crate::ata::secret::Secret;
use crate::ata::security::{
    data_sector, erase_estimate, erase_prepare_taskfile, erase_timeout_secs, frozen,
    next_master_revision, oflags, password_taskfile, taskfile_flags_dump, EraseEstimate, Operation,
    Options, PASSWORD_TIMEOUT_SECS,
};
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::{SecurityCommand, SecurityLevel, SecurityUser};
use crate::error::{Error, ErrorClass};
use crate::exec::access::{AtaFailure, AtaOutput};
use crate::exec::lost::Operation as Left;
use crate::exec::stop::Stop;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How to unfreeze a drive, for the frozen-drive sentence.
pub const UNFREEZE_HINT: &str = "the BIOS or the kernel froze it at power-on; suspend and resume the machine (systemctl suspend), or unplug and replug the drive while it runs (hot-plug), then try again";

/// Step 28.
pub fn security(ctx: &mut Ctx) {
    let Some((command, password)) = ctx.flags.security.clone() else {
        return;
    };
    let source = crate::exec::prompt::Source::of(&ctx.flags);
    let password = if source == crate::exec::prompt::Source::Argv {
        password.bytes
    } else {
        match crate::exec::prompt::read_password(&ctx.flags) {
            Ok(bytes) => bytes,
            Err(e) => {
                ctx.out.error(&e);
                return;
            }
        }
    };
    let operation = match command {
        SecurityCommand::SetPass => Operation::SetPassword,
        SecurityCommand::Unlock => Operation::Unlock,
        SecurityCommand::Disable => Operation::Disable,
        SecurityCommand::Erase => Operation::Erase { enhanced: false },
        SecurityCommand::EraseEnhanced => Operation::Erase { enhanced: true },
    };
    let options = Options {
        master: ctx.flags.security_user == SecurityUser::Master,
        maximum: ctx.flags.security_level == SecurityLevel::Maximum,
    };
    let option = option_name(command);
    let mut revision = None;
    if operation == Operation::SetPassword && options.master {
        // hdparm reads IDENTIFY for the master password revision and exits (EIO) without it.
        match ctx.identify() {
            Some(id) => revision = Some(next_master_revision(id.word(92))),
            None => {
                ctx.identify_unavailable(option);
                return;
            }
        }
    }
    let data = data_sector(operation, password.as_bytes(), options, revision);
    ctx.out.action(action_name(command), option);
    if !ctx.flags.quiet {
        issuing_line(ctx, operation, &password, &source, options);
    }
    drop(password);
    let set_password = operation == Operation::SetPassword;
    let mut section = crate::report::sections::Security {
        operation: action_name(command),
        user: if options.master { "master" } else { "user" },
        level: set_password.then_some(if options.maximum { "max" } else { "high" }),
        master_password_revision: revision.filter(|_| set_password),
        timeout_secs: None,
        estimate_minutes: None,
        done: false,
    };
    let done = match operation {
        Operation::Erase { enhanced } => erase(ctx, enhanced, data, &mut section),
        Operation::Disable => {
            // hdparm unlocks first, with the same data, then disables.
            send(ctx, op_unlock(), &data, "SECURITY_UNLOCK")
                && send(ctx, operation.opcode(), &data, "SECURITY_DISABLE")
        }
        _ if operation == Operation::SetPassword && ctx.stopped_before("SECURITY SET PASSWORD") => {
            false
        }
        _ => send(ctx, operation.opcode(), &data, operation.name()),
    };
    section.done = done;
    ctx.out.put(&section);
    if done && operation == Operation::SetPassword && !options.master {
        ctx.out.note(&format!(
            "{}: the drive now has a user password: after a power cycle or reset it is locked, and reading, writing or erasing it needs this password (--security-unlock PASSWD, --security-disable PASSWD)",
            ctx.name
        ));
    }
}

fn op_unlock() -> u8 {
    Operation::Unlock.opcode()
}

/// The option as the user wrote it.
fn option_name(command: SecurityCommand) -> &'static OptionDef {
    match command {
        SecurityCommand::SetPass => &d::SECURITY_SET_PASS,
        SecurityCommand::Unlock => &d::SECURITY_UNLOCK,
        SecurityCommand::Disable => &d::SECURITY_DISABLE,
        SecurityCommand::Erase => &d::SECURITY_ERASE,
        SecurityCommand::EraseEnhanced => &d::SECURITY_ERASE_ENHANCED,
    }
}

/// The JSON action name.
fn action_name(command: SecurityCommand) -> &'static str {
    match command {
        SecurityCommand::SetPass => "security_set_pass",
        SecurityCommand::Unlock => "security_unlock",
        SecurityCommand::Disable => "security_disable",
        SecurityCommand::Erase => "security_erase",
        SecurityCommand::EraseEnhanced => "security_erase_enhanced",
    }
}

/// hdparm's ` Issuing SECURITY_... command, password="...", user=...` line: the password as
/// C's `%s` prints it (its bytes up to the first NUL, whatever they are) when it was given on
/// the command line; where it came from, and not the password, when it was read at run time
/// (DIFFERENCES.md, cli:security-password-source).
fn issuing_line(
    ctx: &mut Ctx,
    operation: Operation,
    password: &Secret<32>,
    source: &crate::exec::prompt::Source,
    options: Options,
) {
    let mut line = format!(" Issuing {} command, ", operation.name()).into_bytes();
    match source.issuing_words() {
        Some(words) => line.extend_from_slice(words.as_bytes()),
        None => {
            let password = password.as_bytes();
            let shown_len = password.iter().position(|&b| b == 0).unwrap_or(32);
            line.extend_from_slice(b"password=\"");
            line.extend_from_slice(&password[..shown_len]);
            line.push(b'"');
        }
    }
    let user = if options.master { "master" } else { "user" };
    line.extend_from_slice(format!(", user={user}").as_bytes());
    if operation == Operation::SetPassword {
        let mode = if options.maximum { "max" } else { "high" };
        line.extend_from_slice(format!(", mode={mode}").as_bytes());
    }
    line.push(b'\n');
    ctx.out.bytes(&line);
}

/// Sends one password command (15 s); reports a failure under hdparm's label, with the
/// frozen-drive sentence when IDENTIFY says that is why.
fn send(ctx: &mut Ctx, opcode: u8, data: &Secret<512>, label: &str) -> bool {
    let tf = password_taskfile(opcode, PASSWORD_TIMEOUT_SECS);
    verbose_dump(ctx);
    // A copy for the command (the drive's answer may be written into it), zeroed after it.
    let mut data = data.clone();
    match ctx.dev.ata(&tf, data.as_mut_bytes()) {
        Ok(_) => true,
        Err(f) => {
            failed(ctx, label, &f);
            false
        }
    }
}

/// hdparm's `--verbose` lines on stdout before a password command (its taskfile path).
fn verbose_dump(ctx: &mut Ctx) {
    if ctx.flags.verbose {
        ctx.out.text(&taskfile_flags_dump(oflags::PASSWORD, 0));
    }
}

/// A failed password command: hdparm's label, our reason, and when the drive is frozen, that
/// it is and how to unfreeze it.
fn failed(ctx: &mut Ctx, label: &str, f: &AtaFailure) {
    let mut message = format!("{label}: {}", f.reason);
    if !f.not_ata {
        let is_frozen = ctx.dev.identify().ok().map(Identify::from_words);
        if is_frozen.as_ref().is_some_and(frozen) {
            message.push_str(&format!(
                " (the drive's security is frozen: {UNFREEZE_HINT})"
            ));
        }
    }
    ctx.out.error(&Error::new(f.class(), message));
}

/// The drive's estimate in words, for the line before the erase and the progress line.
pub fn estimate_words(estimate: EraseEstimate) -> Option<String> {
    match estimate {
        EraseEstimate::NotGiven => None,
        EraseEstimate::Minutes(m) => Some(format!("about {m} min")),
        EraseEstimate::MoreThan(m) => Some(format!("more than {m} min")),
    }
}

/// The line on stderr before the erase starts (ours).
pub fn estimate_line(name: &str, estimate: Option<EraseEstimate>, timeout_secs: u32) -> String {
    let limit = timeout_secs.div_ceil(60);
    match estimate.and_then(estimate_words) {
        Some(words) => format!(
            "{name}: the drive estimates {words} for this erase; it is given up to {limit} min"
        ),
        None if estimate.is_some() => format!(
            "{name}: the drive gives no estimate for this erase; it is given up to {limit} min (1 s per 30 MiB, plus 30 min)"
        ),
        None => format!(
            "{name}: no IDENTIFY data, so no estimate for this erase; it is given up to {limit} min"
        ),
    }
}

/// The progress line drawn on a terminal while the erase runs (ours).
pub fn progress_line(elapsed: Duration, estimate: Option<EraseEstimate>) -> String {
    let secs = elapsed.as_secs();
    let clock = format!("{}:{:02}:{:02}", secs / 3600, secs / 60 % 60, secs % 60);
    match estimate.and_then(estimate_words) {
        Some(words) => format!(" security erase: {clock} elapsed, the drive estimated {words}"),
        None => format!(" security erase: {clock} elapsed"),
    }
}

/// What a stop signal during the erase means (ours).
pub fn interrupt_line(name: &str) -> String {
    format!(
        "{name}: the erase cannot be stopped: the drive keeps erasing, and stays locked with this password until the erase ends (a power cycle does not end it); waiting for it to finish"
    )
}

/// ERASE PREPARE then ERASE UNIT with hdparm's timeout, and our estimate, progress and
/// frozen check around them.
fn erase(
    ctx: &mut Ctx,
    enhanced: bool,
    mut data: Secret<512>,
    section: &mut crate::report::sections::Security,
) -> bool {
    let id = ctx.identify();
    let timeout = erase_timeout_secs(id.as_ref(), enhanced);
    let estimate = id.as_ref().map(|id| erase_estimate(id, enhanced));
    section.timeout_secs = Some(timeout);
    if let Some(EraseEstimate::Minutes(m) | EraseEstimate::MoreThan(m)) = estimate {
        section.estimate_minutes = Some(m);
    }
    if id.as_ref().is_some_and(frozen) {
        // A frozen drive aborts ERASE PREPARE; nothing is sent.
        let message = format!(
            "{}: the drive's security is frozen (IDENTIFY word 128 bit 3), so it would abort SECURITY ERASE PREPARE; nothing was sent: {UNFREEZE_HINT}",
            ctx.name
        );
        ctx.out.error(&Error::new(ErrorClass::Failed, message));
        return false;
    }
    if ctx.dev.ata_capable() {
        ctx.out.note(&estimate_line(&ctx.name, estimate, timeout));
    }
    // The stop is honoured before each of the two commands; ERASE UNIT, once sent, runs to
    // its end (the drive goes on whatever the host does).
    if ctx.stopped_before("SECURITY ERASE PREPARE") {
        return false;
    }
    let mut none = [0u8; 0];
    if let Err(f) = ctx.dev.ata(&erase_prepare_taskfile(), &mut none) {
        failed(ctx, "ERASE_PREPARE", &f);
        ctx.left_in(Left::ErasePrepare, &f);
        return false;
    }
    if ctx.stop_requested() {
        ctx.interrupted(
            "SECURITY ERASE PREPARE was sent, SECURITY ERASE UNIT was not: nothing was erased, and the drive keeps its password (the next command it gets ends the prepared state)".into(),
        );
        return false;
    }
    let mut tf = password_taskfile(crate::ata::command::op::SECURITY_ERASE_UNIT, timeout);
    tf.timeout_secs = timeout;
    verbose_dump(ctx);
    let terminal = ctx.out.stderr_is_terminal();
    let name = ctx.name.clone();
    // The watcher thread cannot write through std::io::stderr(): main() holds its lock for
    // the whole run, so the first progress line would block the watcher, and joining it
    // would hang the erase for good (seen on a terminal in the VM). A writer of its own on
    // the same open file as fd 2 (so that its lines and the run's share one offset in a
    // redirected stderr file) has no lock to wait for.
    let err = crate::device::system::own_stderr();
    let result = watched(terminal, &name, estimate, ctx.stop, err, || {
        ctx.dev.ata(&tf, data.as_mut_bytes())
    });
    let done = match &result {
        Ok(_) => true,
        Err(f) => {
            failed(ctx, "SECURITY_ERASE", f);
            ctx.left_in(Left::Erase, f);
            false
        }
    };
    if ctx.stop_requested() {
        match result {
            Ok(_) => ctx.finished_at_stop(
                "the stop came during SECURITY ERASE UNIT, which cannot be stopped; the drive finished it: erased, and its user password is cleared".into(),
            ),
            Err(f) => {
                let unlock = if ctx.flags.security_user == SecurityUser::Master {
                    "--user-master m --security-unlock"
                } else {
                    "--security-unlock"
                };
                ctx.interrupted(format!(
                    "the stop came during SECURITY ERASE UNIT, which ended in an error ({}): the drive may still be erasing, and it stays locked with the password until an erase completes; unlock it with {unlock} PASSWORD {name}, or erase it again",
                    f.reason
                ));
            }
        }
    }
    done
}

/// Runs the blocking `command` on this thread while a watcher thread draws the progress line
/// on `err` (when it is a terminal) and says, when `stop` sees a signal, that the erase cannot
/// be stopped. The stop signals are blocked in this thread during the command so that the
/// kernel delivers them to the process-wide handler (installed by the device loop for the
/// whole run) at once, not after the ioctl returns. `err` is the process's stderr: the
/// watcher thread cannot share the run's writer, which is not `Send`.
pub fn watched(
    terminal: bool,
    name: &str,
    estimate: Option<EraseEstimate>,
    stop: Stop,
    mut err: impl Write + Send,
    command: impl FnOnce() -> Result<AtaOutput, AtaFailure>,
) -> Result<AtaOutput, AtaFailure> {
    let done = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        let watcher = s.spawn(|| {
            let mut said = false;
            let mut drawn: Option<Instant> = None;
            while !done.load(Ordering::SeqCst) {
                std::thread::sleep(Duration::from_millis(100));
                if !said && stop.requested() {
                    said = true;
                    let clear = if terminal { "\r\x1b[K" } else { "" };
                    let _ = writeln!(err, "{clear}{}", interrupt_line(name));
                }
                if terminal && drawn.map_or(true, |t| t.elapsed() >= Duration::from_secs(1)) {
                    drawn = Some(Instant::now());
                    let _ = write!(err, "\r\x1b[K{}", progress_line(start.elapsed(), estimate));
                    let _ = err.flush();
                }
            }
            if terminal && drawn.is_some() {
                let _ = write!(err, "\r\x1b[K");
                let _ = err.flush();
            }
        });
        let blocked = crate::device::sys::signal::StopSignalsBlocked::here().ok();
        let result = command();
        drop(blocked);
        done.store(true, Ordering::SeqCst);
        let _ = watcher.join();
        result
    })
}
