//! Drives that stopped answering in this run, and the state a destructive operation leaves a
//! drive in when a command of it fails.
//!
//! A command that timed out, was ended by a reset, or found its drive gone ([`Lost`]) leaves a
//! drive whose state nobody knows (an erase may still run, a setting may have been dropped), so
//! nothing more is sent to it in this run: the device refuses further commands itself
//! (`access/real.rs`), the step loop stops (`steps::run`), `--apply` runs no further line and reads
//! nothing back, and the same drive opened again in the run (a line of `--apply`, another path
//! to it) is sent nothing either. hdparm 9.65 goes on (DIFFERENCES.md, "faults").
//!
//! Owns: the record of those drives (one per process, so that the runs inside a run, the lines
//! of `--apply`, share it) and the one sentence per operation and fault that says what state
//! the drive is left in: the table of tests/vm/README.md and of the man page. Must not: touch
//! a device or print.

use crate::ata::sat::Lost;
use std::ffi::{OsStr, OsString};
use std::sync::Mutex;

/// How the command failed, for the sentence: the drive answered with an error (it aborted or
/// refused the command), or the run lost it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Fault {
    Refused,
    Lost(Lost),
}

impl Fault {
    pub fn of(lost: Option<Lost>) -> Fault {
        lost.map_or(Fault::Refused, Fault::Lost)
    }
}

/// The destructive operation a failed command belonged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    /// SECURITY ERASE PREPARE: the erase had not started.
    ErasePrepare,
    /// SECURITY ERASE UNIT.
    Erase,
    /// SANITIZE with an erasing sub-command (block erase, crypto scramble, overwrite).
    Sanitize,
    /// SANITIZE STATUS while `--wait` waits for a sanitize to end.
    SanitizeWait,
    /// DOWNLOAD MICROCODE: `segment` (1-based) of `segments`, starting at byte `at` of `total`.
    Firmware {
        segment: u64,
        segments: u64,
        at: u64,
        total: u64,
    },
    /// DATA SET MANAGEMENT (TRIM): command `command` (1-based) with ranges `first` to `last`
    /// (1-based, in the order given).
    Trim { command: u64, first: u64, last: u64 },
}

/// A command for people, by name and registers: `SET FEATURES (0xef, feature 0x55)`.
pub fn command_words(command: u8, feature: u16) -> String {
    let name = crate::ata::names::command_name(command, feature);
    match feature {
        0 => format!("{name} (0x{command:02x})"),
        f => format!("{name} (0x{command:02x}, feature 0x{f:02x})"),
    }
}

/// What happened to the command, in words, for the sentences.
fn happened(lost: Lost) -> &'static str {
    match lost {
        Lost::TimedOut => "did not answer in time",
        Lost::Reset => "was reset",
        Lost::Gone => "went away",
    }
}

/// The unlock-and-disable advice of the security sentences (the password is never shown).
fn remove_password(dev: &str) -> String {
    format!("--security-unlock PWD {dev} then --security-disable PWD {dev}")
}

/// The one sentence that says what state `op` left the drive `dev` in after `fault`.
pub fn sentence(dev: &str, op: Operation, fault: Fault) -> String {
    let nothing_more = "nothing more was sent to it";
    match (op, fault) {
        (Operation::ErasePrepare, fault) => {
            let what = match fault {
                Fault::Refused => "the drive refused SECURITY ERASE PREPARE".to_string(),
                Fault::Lost(l) => format!(
                    "the drive {} at SECURITY ERASE PREPARE; {nothing_more}",
                    happened(l)
                ),
            };
            format!(
                "{dev}: the erase did not start ({what}): nothing was erased, and the drive keeps its password, so it is locked after its next power cycle or reset: {}",
                remove_password(dev)
            )
        }
        (Operation::Erase, Fault::Refused) => format!(
            "{dev}: the drive refused the security erase: its data may be partly erased, and it keeps its password, so it is locked after its next power cycle or reset: run --security-erase PWD {dev} again, or {}",
            remove_password(dev)
        ),
        (Operation::Erase, Fault::Lost(Lost::TimedOut)) => format!(
            "{dev}: the drive did not answer the security erase in time: it may still be erasing, and keeps its password until the erase ends; {nothing_more}: when it answers again, -I {dev} shows its security state, and {} removes the password",
            remove_password(dev)
        ),
        (Operation::Erase, Fault::Lost(Lost::Reset)) => format!(
            "{dev}: the drive was reset during the security erase: the erase stopped with its data partly erased, and the drive is locked with its password; {nothing_more}: --security-unlock PWD {dev} then --security-erase PWD {dev} again (or --security-disable PWD {dev})"
        ),
        (Operation::Erase, Fault::Lost(Lost::Gone)) => format!(
            "{dev}: the drive went away during the security erase: its data may be partly erased, and it is locked with its password when it comes back: reconnect it, then --security-unlock PWD {dev} and --security-erase PWD {dev} again (or --security-disable PWD {dev})"
        ),
        (Operation::Sanitize, Fault::Refused) => format!(
            "{dev}: the drive refused the sanitize, so it did not start and nothing was erased: --sanitize-status {dev} shows the drive's sanitize state"
        ),
        (Operation::Sanitize, Fault::Lost(Lost::Gone)) => format!(
            "{dev}: the drive went away with the sanitize command: the sanitize may have started, and a started sanitize goes on when the drive is powered again (the drive takes no other command until it ends): reconnect it and check --sanitize-status {dev}"
        ),
        (Operation::Sanitize, Fault::Lost(l)) => format!(
            "{dev}: the drive {} at the sanitize command: the sanitize may have started and may still be running (it goes on across resets and power cycles); {nothing_more}: --sanitize-status {dev} says whether it runs",
            happened(l)
        ),
        (Operation::SanitizeWait, Fault::Refused) => format!(
            "{dev}: the drive refused a sanitize status request: the sanitize may still be running: --sanitize-status {dev}"
        ),
        (Operation::SanitizeWait, Fault::Lost(l)) => format!(
            "{dev}: the drive {} while the sanitize ran: the sanitize goes on regardless (across resets and power cycles); {nothing_more}: --sanitize-status {dev} says when it ends",
            happened(l)
        ),
        (
            Operation::Firmware {
                segment,
                segments,
                at,
                total,
            },
            fault,
        ) => {
            let which = format!("segment {segment} of {segments} (at byte {at} of {total})");
            match fault {
                Fault::Refused => format!(
                    "{dev}: the drive refused {which} of the firmware download: it holds a partial firmware image and still runs its old firmware; do not power-cycle it before a full download: run --fwdownload again"
                ),
                Fault::Lost(Lost::Gone) => format!(
                    "{dev}: the drive went away during {which} of the firmware download: it held a partial firmware image and should come back with its old firmware (-I {dev} shows the revision): run --fwdownload again before using it"
                ),
                Fault::Lost(l) => format!(
                    "{dev}: the drive {} during {which} of the firmware download: it holds a partial firmware image (or dropped it) and still runs its old firmware; {nothing_more}: do not power-cycle it before a full download: run --fwdownload again",
                    happened(l)
                ),
            }
        }
        (
            Operation::Trim {
                command,
                first,
                last,
            },
            fault,
        ) => {
            let which = format!("TRIM command {command} (ranges {first} to {last} of the list)");
            let before = if first > 1 {
                format!("ranges 1 to {} are trimmed, ", first - 1)
            } else {
                String::new()
            };
            match fault {
                Fault::Refused => format!(
                    "{dev}: the drive refused {which}: {before}those ranges and the ones after them are not; nothing else on the drive changed"
                ),
                Fault::Lost(l) => format!(
                    "{dev}: the drive {} during {which}: {before}those ranges may be partly trimmed (their data is now undefined) and the ones after them were not sent; {nothing_more}: a TRIM is safe to repeat once the drive answers",
                    happened(l)
                ),
            }
        }
    }
}

/// After a command in the middle of `--apply` (the command `command`, by name), the state the
/// drive is left in and what to do.
pub fn apply_sentence(dev: &str, lost: Lost, command: &str) -> String {
    match lost {
        Lost::TimedOut => format!(
            "{dev}: the drive did not answer while hdparm.conf was applied ({command}): the settings before it were applied, that one and the rest may not be; nothing more was sent to it, nor read back: run --apply {dev} again when it answers"
        ),
        Lost::Reset => format!(
            "{dev}: the drive was reset while hdparm.conf was applied ({command}): the reset may have undone the settings applied before it (those it does not keep over a reset), and the rest were not sent; nothing more was sent to it, nor read back: run --apply {dev} again"
        ),
        Lost::Gone => format!(
            "{dev}: the drive went away while hdparm.conf was applied ({command}): the rest of it was not applied; it is applied again when the drive comes back (the udev rule runs --apply), or run --apply {dev}"
        ),
    }
}

/// After any other command: what happened, and that the device's other options were not done.
pub fn other_sentence(dev: &str, lost: Lost, command: &str) -> String {
    format!(
        "{dev}: the drive {} ({command}): nothing more was sent to it, and the options after it were not done",
        happened(lost)
    )
}

/// Why a command was not sent: the drive was lost earlier in the run.
pub fn not_sent(lost: Lost, command: &str) -> String {
    format!(
        "not sent: the drive {} earlier in this run ({command}), and nothing more is sent to it",
        happened(lost)
    )
}

/// A drive lost in this run: the path it was opened by, its device number, how, and at which
/// command (by name).
#[derive(Clone, Debug)]
struct Entry {
    path: OsString,
    rdev: Option<u64>,
    lost: Lost,
    command: String,
}

static LOST: Mutex<Vec<Entry>> = Mutex::new(Vec::new());

/// Records that the drive opened by `path` (device number `rdev`) was lost at `command`.
pub fn mark(path: &OsStr, rdev: Option<u64>, lost: Lost, command: &str) {
    if let Ok(mut v) = LOST.lock() {
        v.push(Entry {
            path: path.to_os_string(),
            rdev,
            lost,
            command: command.to_string(),
        });
    }
}

/// How and where the drive opened by `path` (or with device number `rdev`) was lost in this
/// run, if it was.
pub fn find(path: &OsStr, rdev: Option<u64>) -> Option<(Lost, String)> {
    let v = LOST.lock().ok()?;
    v.iter()
        .find(|e| e.path == path || (rdev.is_some() && e.rdev == rdev))
        .map(|e| (e.lost, e.command.clone()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_operation_and_fault_has_a_sentence_naming_the_drive_and_no_password() {
        let ops = [
            Operation::ErasePrepare,
            Operation::Erase,
            Operation::Sanitize,
            Operation::SanitizeWait,
            Operation::Firmware {
                segment: 2,
                segments: 4,
                at: 512,
                total: 2048,
            },
            Operation::Trim {
                command: 2,
                first: 513,
                last: 1024,
            },
        ];
        let faults = [
            Fault::Refused,
            Fault::Lost(Lost::TimedOut),
            Fault::Lost(Lost::Reset),
            Fault::Lost(Lost::Gone),
        ];
        let mut seen = std::collections::HashSet::new();
        for op in ops {
            for fault in faults {
                let s = sentence("/dev/sdz", op, fault);
                assert!(s.starts_with("/dev/sdz: "), "{s}");
                assert!(!s.contains('\n'), "{s}");
                assert!(seen.insert(s.clone()), "twice: {s}");
                if fault != Fault::Refused && fault != Fault::Lost(Lost::Gone) {
                    assert!(s.contains("nothing more was sent"), "{s}");
                }
            }
        }
        assert!(sentence("/dev/sdz", ops[1], faults[2]).contains("locked with its password"));
        assert!(sentence("/dev/sdz", ops[2], faults[1]).contains("--sanitize-status /dev/sdz"));
        assert!(sentence("/dev/sdz", ops[4], faults[3]).contains("segment 2 of 4"));
        assert!(sentence("/dev/sdz", ops[5], faults[0]).contains("ranges 1 to 512 are trimmed"));
        for lost in [Lost::TimedOut, Lost::Reset, Lost::Gone] {
            assert!(apply_sentence("/dev/sdz", lost, "SET FEATURES").contains("--apply /dev/sdz"));
        }
    }

    #[test]
    fn a_lost_drive_is_found_by_its_path_or_its_number() {
        mark(OsStr::new("/dev/lost-test"), Some(0xdead), Lost::Reset, "X");
        assert_eq!(
            find(OsStr::new("/dev/lost-test"), None),
            Some((Lost::Reset, "X".to_string()))
        );
        assert!(find(OsStr::new("/dev/disk/by-id/other"), Some(0xdead)).is_some());
        assert!(find(OsStr::new("/dev/never-lost"), Some(0xbeef)).is_none());
        assert!(find(OsStr::new("/dev/never-lost"), None).is_none());
    }
}
