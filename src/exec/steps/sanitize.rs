//! Step 29: the SANITIZE DEVICE commands (`--sanitize-status`, `-block-erase`,
//! `-crypto-scramble`, `-overwrite`, `-freeze-lock`, `-antifreeze-lock`; reference §4.8), as
//! hdparm 9.65's `do_sanitize_cmd` sends and reports them; a failure ends the device's
//! processing (hdparm exits). The guard of the destructive three is checked before anything
//! is sent (`exec/guards.rs`).
//!
//! Ours: `--sanitize-status --wait` polls SANITIZE STATUS until the operation ends, with the
//! percentage done and an estimate of the time left on stderr (a terminal only), and the final
//! status on stdout as hdparm prints one.
//!
//! Must not: reach the device other than through [`super::DeviceAccess`]'s `ata` path.

use super::Ctx;
use crate::ata::command::AtaRegisters;
use crate::ata::sanitize::{remaining_secs, Reason, State, Status, Sub};
use crate::ata::security::{oflags, taskfile_flags_dump};
use crate::cli::defs::{self as d, OptionDef};
use crate::cli::SanitizeCommand;
use crate::error::{Error, ErrorClass};
use crate::exec::lost::Operation as Left;
use crate::report::sections::{AtaSanitizeStatus, Sanitize};
use std::time::{Duration, Instant};

/// How often `--wait` asks for the status.
const POLL: Duration = if cfg!(test) {
    Duration::ZERO
} else {
    Duration::from_secs(1)
};

/// Step 29.
pub fn sanitize(ctx: &mut Ctx) {
    let Some(command) = ctx.flags.sanitize else {
        return;
    };
    let sub = match command {
        SanitizeCommand::Status => Sub::Status,
        SanitizeCommand::FreezeLock => Sub::FreezeLock,
        SanitizeCommand::AntifreezeLock => Sub::AntifreezeLock,
        SanitizeCommand::BlockErase => Sub::BlockErase,
        SanitizeCommand::CryptoScramble => Sub::CryptoScramble,
        SanitizeCommand::Overwrite { pattern } => Sub::Overwrite {
            pattern,
            passes: ctx.flags.sanitize_passes as u8,
        },
    };
    let option = option_name(command);
    let action = action_name(command);
    let Some(id) = ctx.identify() else {
        // hdparm exits (EIO) without a word.
        ctx.identify_unavailable(option);
        return;
    };
    if !id.sanitize_supported() {
        let message = format!(
            "SANITIZE feature set is not supported ({}: IDENTIFY word 59 bit 12 is clear)",
            ctx.name
        );
        ctx.out
            .error(&Error::new(ErrorClass::NotApplicable, message));
        return;
    }
    ctx.out.action(action, option);
    if matches!(
        sub,
        Sub::BlockErase | Sub::Overwrite { .. } | Sub::CryptoScramble
    ) && ctx.stopped_before(&format!("SANITIZE ({})", sub.name()))
    {
        return;
    }
    ctx.out.text(&format!("Issuing {} command\n", sub.name()));
    let Some(registers) = send(ctx, sub, action) else {
        return;
    };
    match sub {
        Sub::Status => {
            let status = if ctx.flags.sanitize_wait {
                match wait(ctx, Status::from_registers(&registers)) {
                    Some(s) => s,
                    None => return,
                }
            } else {
                Status::from_registers(&registers)
            };
            ctx.out.text("Sanitize status:\n");
            ctx.out.text(&status.text());
            ctx.out.put(&status_json(action, &status));
        }
        Sub::BlockErase | Sub::Overwrite { .. } | Sub::CryptoScramble => {
            started_in_background(ctx, action, "drive");
        }
        Sub::FreezeLock | Sub::AntifreezeLock => {
            ctx.out.put(&Sanitize::Done {
                command: action,
                done: true,
            });
        }
    }
}

/// The option the user wrote, ATA or SCSI.
pub(super) fn option_name(command: SanitizeCommand) -> &'static OptionDef {
    match command {
        SanitizeCommand::Status => &d::SANITIZE_STATUS,
        SanitizeCommand::CryptoScramble => &d::SANITIZE_CRYPTO_SCRAMBLE,
        SanitizeCommand::BlockErase => &d::SANITIZE_BLOCK_ERASE,
        SanitizeCommand::Overwrite { .. } => &d::SANITIZE_OVERWRITE,
        SanitizeCommand::FreezeLock => &d::SANITIZE_FREEZE_LOCK,
        SanitizeCommand::AntifreezeLock => &d::SANITIZE_ANTIFREEZE_LOCK,
    }
}

/// The JSON action name, ATA or SCSI.
pub(super) fn action_name(command: SanitizeCommand) -> &'static str {
    match command {
        SanitizeCommand::Status => "sanitize_status",
        SanitizeCommand::CryptoScramble => "sanitize_crypto_scramble",
        SanitizeCommand::BlockErase => "sanitize_block_erase",
        SanitizeCommand::Overwrite { .. } => "sanitize_overwrite",
        SanitizeCommand::FreezeLock => "sanitize_freeze_lock",
        SanitizeCommand::AntifreezeLock => "sanitize_antifreeze_lock",
    }
}

/// hdparm's lines after an erasing sanitize started (ATA, SCSI and NVMe alike).
pub(super) const STARTED_IN_BACKGROUND: &str =
    "Operation started in background\nYou may use `--sanitize-status` to check progress\n";

/// After an erasing sanitize started, ATA or SCSI (`device` says which it is): hdparm's two
/// lines and the JSON; at a stop, why the erase goes on all the same.
pub(super) fn started_in_background(ctx: &mut Ctx, action: &'static str, device: &str) {
    if ctx.stop_requested() {
        ctx.finished_at_stop(format!(
            "the {device} started the sanitize, which a signal cannot stop: it goes on in the background; --sanitize-status shows its progress"
        ));
    }
    ctx.out.text(STARTED_IN_BACKGROUND);
    ctx.out.put(&Sanitize::Started {
        command: action,
        started: true,
    });
}

/// The status as JSON (`action` is the option's JSON name).
fn status_json(action: &'static str, s: &Status) -> Sanitize {
    let in_progress = s.state == State::InProgress;
    Sanitize::AtaStatus(AtaSanitizeStatus {
        command: action,
        state: s.state.key(),
        state_text: s.state.text(),
        completed_without_error: s.completed_without_error,
        antifreeze: s.antifreeze,
        progress: in_progress.then_some(s.progress),
        percent: in_progress.then(|| s.percent()),
    })
}

/// Sends the command; on failure prints hdparm's `SANITIZE failed: ...` and the reason lines
/// (from LBA 7:0 of the registers the drive returned; none returned: not reported).
fn send(ctx: &mut Ctx, sub: Sub, action: &'static str) -> Option<AtaRegisters> {
    let mut none = [0u8; 0];
    if ctx.flags.verbose {
        // hdparm's taskfile path prints which registers it writes, on stdout.
        let lba = oflags::LBA_LOW | oflags::LBA_MID | oflags::LBA_HIGH;
        let mut lob = oflags::COMMAND | oflags::FEATURE | lba;
        if matches!(sub, Sub::Overwrite { .. }) {
            lob |= oflags::COUNT;
        }
        ctx.out.text(&taskfile_flags_dump(lob, lba));
    }
    match ctx.dev.ata_registers(&sub.taskfile(), &mut none) {
        Ok(r) => Some(r),
        Err((f, registers)) => {
            ctx.out.error(&Error::new(
                f.class(),
                format!("SANITIZE failed: {}", f.reason),
            ));
            let reason = registers
                .as_ref()
                .map_or(Reason::NotReported, Reason::from_registers);
            for line in reason.lines() {
                ctx.out.note(&line);
            }
            // What state the drive is in: after an erasing sub-command, and after a status
            // request of --wait that lost the drive (a refused status says it with its reason).
            let waiting = sub == Sub::Status && ctx.flags.sanitize_wait && f.lost.is_some();
            if matches!(
                sub,
                Sub::BlockErase | Sub::CryptoScramble | Sub::Overwrite { .. }
            ) {
                ctx.left_in(Left::Sanitize, &f);
            } else if waiting {
                ctx.left_in(Left::SanitizeWait, &f);
            }
            ctx.out.put(&Sanitize::Failed {
                command: action,
                failure_reason: reason.text().to_string(),
            });
            None
        }
    }
}

/// `--wait`: asks for the status until the drive is no longer in SD2; on a terminal, draws
/// the percentage and the time left on stderr. None when a status request failed.
fn wait(ctx: &mut Ctx, first: Status) -> Option<Status> {
    let terminal = ctx.out.stderr_is_terminal();
    let start = Instant::now();
    let mut seen: Option<(f64, f64)> = None;
    let mut status = first;
    while status.state == State::InProgress {
        // A stop ends the wait (the status queries change nothing); the drive goes on.
        if ctx.stop_requested() {
            ctx.finished_at_stop(format!(
                "the drive goes on sanitizing in the background ({}% done); --sanitize-status shows its progress",
                status.percent()
            ));
            return None;
        }
        let now = start.elapsed().as_secs_f64();
        let fraction = status.fraction().unwrap_or(0.0);
        let first_seen = *seen.get_or_insert((now, fraction));
        if terminal {
            let line = wait_line(&status, remaining_secs(first_seen, (now, fraction)));
            let (_, err) = ctx.out.streams();
            let _ = write!(err, "\r\x1b[K{line}");
            let _ = err.flush();
        }
        std::thread::sleep(POLL);
        let registers = send(ctx, Sub::Status, action_name(SanitizeCommand::Status))?;
        status = Status::from_registers(&registers);
    }
    if terminal && seen.is_some() {
        let (_, err) = ctx.out.streams();
        let _ = write!(err, "\r\x1b[K");
    }
    Some(status)
}

/// The progress line of `--wait` (ours).
pub fn wait_line(status: &Status, left_secs: Option<f64>) -> String {
    let left = match left_secs {
        Some(s) => {
            let s = s.round() as u64;
            format!(", about {}:{:02}:{:02} left", s / 3600, s / 60 % 60, s % 60)
        }
        None => String::new(),
    };
    format!(" sanitize: {}% done{left}", status.percent())
}
