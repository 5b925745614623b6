//! The guard flags (reference §7), checked for the whole invocation before anything is sent to
//! any device: a refused invocation changes nothing anywhere. The list of guarded operations is
//! exactly hdparm 9.65's, so boot scripts that work with hdparm keep working.

use crate::cli::defs::{self as d, Guard, OptionDef};
use crate::cli::{DeviceRun, Flags, SanitizeCommand, SecurityCommand};

/// A refusal: the text hdparm prints (several lines, no final newline).
pub struct Refusal {
    pub text: String,
}

fn yes_i_know(option: &str, explanation: &str) -> Refusal {
    Refusal {
        text: format!(
            "Use of {option} is VERY DANGEROUS.\n{explanation}\nPlease supply the --yes-i-know-what-i-am-doing flag if you really want this.\nProgram aborted."
        ),
    }
}

fn please_destroy(option: &str, explanation: &str) -> Refusal {
    Refusal {
        text: format!(
            "Use of {option} is EXTREMELY DANGEROUS.\n{explanation}\nPlease also supply the --please-destroy-my-drive flag if you really want this.\nProgram aborted."
        ),
    }
}

/// What a device is, as far as the guards need to know before anything is sent.
pub struct DeviceFacts {
    /// `-m N` goes through SET MULTIPLE MODE (libata, SAT) rather than the old IDE driver's ioctl.
    pub multcount_via_ata: bool,
    /// What uses the drive (a mount, swap, a holder), looked up only when the run asks for a
    /// destructive operation; see [`destructive_option`].
    pub in_use: Option<String>,
    /// The capacity IDENTIFY gives, when the plan has an option whose guard depends on it
    /// (`-N`, `--dco-setmax` shrinking the drive); None when the device gives no IDENTIFY,
    /// where hdparm skips those options, guard and all.
    pub visible_sectors: Option<u64>,
    /// NVMe (issue 10): the node takes NVMe commands, so the NVMe steps run for it.
    pub nvme: bool,
}

/// hdparm's warning for a max-address set that would hide sectors.
const SHRINK: &str = "You have requested reducing the apparent size of the drive.\nThis is a BAD idea, and can easily destroy all of the drive's contents.";

/// One guarded operation: the definitions it is keyed by (the guard flags come from the
/// first one's `guard`), when the guard applies, and what the refusal says.
struct Guarded {
    options: &'static [&'static OptionDef],
    /// The flags needed where the definition does not say (the NVMe erase: its ATA erase needs
    /// a drive password instead, so the definition has no guard).
    needs: Option<Guard>,
    /// How hdparm's refusal names the operation, where that is not the option's spelling
    /// (`-s1`, `-Nnnnnn`, `--sanitize`).
    named: Option<&'static str>,
    /// Whether the plan asks for the operation where the guard applies.
    asked: fn(&Flags, &DeviceFacts) -> bool,
    /// The refusal's explanation, one for each flag needed, `--yes-i-know-what-i-am-doing`'s
    /// first.
    why: &'static [&'static str],
}

impl Guarded {
    fn guard(&self) -> Guard {
        self.needs.unwrap_or(self.options[0].guard)
    }
}

/// Whether a max-address set to `sectors` would hide some of what IDENTIFY shows.
fn shrinks(facts: &DeviceFacts, sectors: u64) -> bool {
    facts.visible_sectors.is_some_and(|v| sectors < v)
}

/// hdparm's guarded operations, in the order it checks them (reference §7).
const GUARDED: &[Guarded] = &[
    Guarded {
        options: &[&d::SET_SECTOR_SIZE],
        needs: None,
        named: None,
        asked: |f, _| f.set_sector_size.is_some(),
        why: &["This will likely destroy all data on the drive."],
    },
    Guarded {
        options: &[&d::TRIM_SECTOR_RANGES_STDIN],
        needs: None,
        named: None,
        asked: |f, _| f.trim_ranges_stdin,
        why: &["This might destroy the drive and/or all data on it."],
    },
    Guarded {
        options: &[&d::WDIDLE3],
        needs: None,
        named: None,
        asked: |f, _| f.wdidle3.set,
        why: &["This implementation is not as thorough as the official WDIDLE3.EXE. Use at your own risk!"],
    },
    Guarded {
        options: &[&d::MULTCOUNT],
        needs: None,
        named: None,
        asked: |f, facts| f.multcount.set && facts.multcount_via_ata,
        why: &["Only the old IDE drivers work correctly with -m with kernels up to at least 2.6.29.\nlibata drives may fail and get hung if you set this flag."],
    },
    Guarded {
        options: &[&d::POWERUP_IN_STANDBY],
        needs: None,
        named: Some("-s1"),
        asked: |f, _| f.powerup_in_standby.set && f.powerup_in_standby.value != 0,
        why: &["This requires BIOS and kernel support to recognize/boot the drive."],
    },
    Guarded {
        options: &[
            &d::SANITIZE_BLOCK_ERASE,
            &d::SANITIZE_CRYPTO_SCRAMBLE,
            &d::SANITIZE_OVERWRITE,
        ],
        needs: None,
        named: Some("--sanitize"),
        asked: |f, _| {
            matches!(
                f.sanitize,
                Some(
                    SanitizeCommand::BlockErase
                        | SanitizeCommand::CryptoScramble
                        | SanitizeCommand::Overwrite { .. }
                )
            )
        },
        why: &["This sanitize command destroys all user data."],
    },
    // NVMe (issue 10): the ATA erase needs a password set beforehand, which makes it hard to
    // run by accident; NVMe's Format NVM needs nothing, so it asks for this flag instead.
    Guarded {
        options: &[&d::SECURITY_ERASE, &d::SECURITY_ERASE_ENHANCED],
        needs: Some(Guard::YesIKnow),
        named: None,
        asked: |f, facts| {
            facts.nvme
                && matches!(
                    f.security,
                    Some((SecurityCommand::Erase | SecurityCommand::EraseEnhanced, _))
                )
        },
        why: &["On NVMe this is FORMAT NVM with secure erase: it destroys all data in the namespace at once, and no drive password protects it."],
    },
    Guarded {
        options: &[&d::DCO_RESTORE],
        needs: None,
        named: None,
        asked: |f, _| f.dco_restore,
        why: &["You are trying to deliberately reset your drive configuration back to the factory defaults.\nThis may change the apparent capacity and feature set of the drive, making all data on it inaccessible.\nYou could lose *everything*."],
    },
    // Step 33 and 37: only when the drive would shrink.
    Guarded {
        options: &[&d::DCO_SETMAX],
        needs: None,
        named: None,
        asked: |f, facts| f.dco_setmax.is_some_and(|n| shrinks(facts, n)),
        why: &[SHRINK],
    },
    Guarded {
        options: &[&d::MAX_SECTORS],
        needs: None,
        named: Some("-Nnnnnn"),
        asked: |f, facts| f.max_sectors.set && shrinks(facts, f.max_sectors.value),
        why: &[SHRINK],
    },
    Guarded {
        options: &[&d::MAKE_BAD_SECTOR],
        needs: None,
        named: None,
        asked: |f, _| f.make_bad_sector.is_some(),
        why: &["You are trying to deliberately corrupt a low-level sector on the media.\nThis is a BAD idea, and can easily result in total data loss."],
    },
    Guarded {
        options: &[&d::TRIM_SECTOR_RANGES],
        needs: None,
        named: None,
        asked: |f, _| f.trim_ranges.is_some(),
        why: &["This might destroy the drive and/or all data on it."],
    },
    Guarded {
        options: &[&d::WRITE_SECTOR, &d::REPAIR_SECTOR],
        needs: None,
        named: None,
        asked: |f, _| f.write_sector.is_some(),
        why: &["You are trying to deliberately overwrite a low-level sector on the media.\nThis is a BAD idea, and can easily result in total data loss."],
    },
    Guarded {
        options: &[
            &d::FWDOWNLOAD,
            &d::FWDOWNLOAD_MODE3,
            &d::FWDOWNLOAD_MODE3_MAX,
            &d::FWDOWNLOAD_MODE7,
            &d::FWDOWNLOAD_MODEE,
            &d::FWDOWNLOAD_MODEE_MAX,
        ],
        needs: None,
        named: None,
        asked: |f, _| f.fwdownload.is_some(),
        why: &[
            "This flag has not been tested with many drives to date.\nYou are trying to deliberately overwrite the drive firmware with the contents of the specified file.\nIf this fails, your drive could be toast.",
            "This might destroy the drive and well as all of the data on it.",
        ],
    },
];

/// The first guard refusal of one device's plan, if any.
pub fn check(run: &DeviceRun, facts: &DeviceFacts) -> Option<Refusal> {
    let f = &run.flags;
    for guarded in GUARDED.iter().filter(|g| (g.asked)(f, facts)) {
        let spelling = guarded.options[0].spelling();
        let name = guarded.named.unwrap_or(&spelling);
        let (know, destroy) = match guarded.guard() {
            Guard::None => (false, false),
            Guard::YesIKnow => (true, false),
            Guard::PleaseDestroy => (false, true),
            Guard::Both => (true, true),
        };
        let mut why = guarded.why.iter();
        let know_why = if know { why.next() } else { None };
        let destroy_why = if destroy { why.next() } else { None };
        if let Some(explanation) = know_why.filter(|_| !f.yes_i_know) {
            return Some(yes_i_know(name, explanation));
        }
        if let Some(explanation) = destroy_why.filter(|_| !f.please_destroy) {
            return Some(please_destroy(name, explanation));
        }
    }
    None
}

// ---- in use: the refusal of a drive this system is using (ours; DIFFERENCES.md "in use") ----

/// The destructive operation asked for, by the name the refusal gives it, or None. `-N` is
/// destructive only when it shrinks what IDENTIFY shows (`visible_sectors`), or that is not known.
pub fn destructive_option(f: &crate::cli::Flags, visible_sectors: Option<u64>) -> Option<String> {
    destructive_operations(f, visible_sectors)
        .first()
        .map(|def| def.spelling())
}

/// The operations asked for that change the drive's data, configuration or firmware, in the
/// order the in-use refusal looks at them. Not [`GUARDED`]'s list: hdparm guards `-m` and
/// `-s1`, which destroy nothing, and not `--security-set-pass`, which locks the data away. `-N` counts only when it shrinks what IDENTIFY
/// shows (`visible_sectors`), or that is not known.
pub fn destructive_operations(
    f: &crate::cli::Flags,
    visible_sectors: Option<u64>,
) -> Vec<&'static OptionDef> {
    let security = match f.security.as_ref().map(|(command, _)| *command) {
        Some(SecurityCommand::SetPass) => Some(&d::SECURITY_SET_PASS),
        Some(SecurityCommand::Erase) => Some(&d::SECURITY_ERASE),
        Some(SecurityCommand::EraseEnhanced) => Some(&d::SECURITY_ERASE_ENHANCED),
        _ => None,
    };
    let sanitize = match f.sanitize {
        Some(SanitizeCommand::BlockErase) => Some(&d::SANITIZE_BLOCK_ERASE),
        Some(SanitizeCommand::CryptoScramble) => Some(&d::SANITIZE_CRYPTO_SCRAMBLE),
        Some(SanitizeCommand::Overwrite { .. }) => Some(&d::SANITIZE_OVERWRITE),
        _ => None,
    };
    // A size not known (no IDENTIFY) counts as shrinking: refusing a drive in use costs nothing.
    let shrinks =
        f.max_sectors.set && !visible_sectors.is_some_and(|visible| f.max_sectors.value >= visible);
    let asked: [(bool, &'static OptionDef); 9] = [
        (f.trim_ranges.is_some(), &d::TRIM_SECTOR_RANGES),
        (f.trim_ranges_stdin, &d::TRIM_SECTOR_RANGES_STDIN),
        (f.write_sector.is_some(), &d::WRITE_SECTOR),
        (f.make_bad_sector.is_some(), &d::MAKE_BAD_SECTOR),
        (f.set_sector_size.is_some(), &d::SET_SECTOR_SIZE),
        (f.fwdownload.is_some(), &d::FWDOWNLOAD),
        (shrinks, &d::MAX_SECTORS),
        (f.dco_restore, &d::DCO_RESTORE),
        (f.dco_setmax.is_some(), &d::DCO_SETMAX),
    ];
    security
        .into_iter()
        .chain(sanitize)
        .chain(
            asked
                .into_iter()
                .filter(|(yes, _)| *yes)
                .map(|(_, def)| def),
        )
        .collect()
}

/// The guard flags a real run of `run` needs (for `--dry-run`'s plan): those hdparm checks
/// before anything is sent, and `--yes-i-know-what-i-am-doing` for a `-N` or `--dco-setmax`
/// below what the drive shows, which hdparm checks once it knows the size (and, the size not
/// being known, for any).
///
/// `unknown_size_shrinks`: whether a size not known may shrink the drive. It may not on a
/// device without ATA, where the real run has no IDENTIFY and skips `-N` and `--dco-setmax`,
/// guard and all.
pub fn needed_flags(
    run: &DeviceRun,
    facts: &DeviceFacts,
    unknown_size_shrinks: bool,
) -> Vec<&'static str> {
    const KNOW: &str = "--yes-i-know-what-i-am-doing";
    const DESTROY: &str = "--please-destroy-my-drive";
    let passes = |know: bool, destroy: bool| {
        let mut with = run.clone();
        with.flags.yes_i_know = know;
        with.flags.please_destroy = destroy;
        check(&with, facts).is_none()
    };
    let f = &run.flags;
    // Unknown (a dry run reads no IDENTIFY): the flag is named, as the shrink may need it.
    let shrinks = match facts.visible_sectors {
        Some(visible) => {
            (f.max_sectors.set && f.max_sectors.value < visible)
                || f.dco_setmax.is_some_and(|n| n < visible)
        }
        None => unknown_size_shrinks && (f.max_sectors.set || f.dco_setmax.is_some()),
    };
    if passes(false, false) {
        if shrinks {
            vec![KNOW]
        } else {
            vec![]
        }
    } else if passes(true, false) {
        vec![KNOW]
    } else if passes(false, true) && !shrinks {
        vec![DESTROY]
    } else {
        vec![KNOW, DESTROY]
    }
}

/// The refusal of a destructive operation on a drive in use: one sentence, naming the user.
pub fn in_use_refusal(device: &str, option: &str, user: &str) -> Refusal {
    Refusal {
        text: format!(
            "{device}: refusing {option}: {user}. It would destroy data in use; stop using the drive first (unmount, swapoff, or stop the array or volume)."
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::{Flags, GetSet, SetOnly};

    fn run(flags: Flags) -> DeviceRun {
        DeviceRun {
            path: "/dev/x".into(),
            flags,
        }
    }

    #[test]
    fn guarded_operations_need_their_flag() {
        let facts = DeviceFacts {
            multcount_via_ata: true,
            in_use: None,
            visible_sectors: Some(1 << 40),
            nvme: false,
        };
        let mut f = Flags {
            write_sector: Some(5),
            ..Flags::default()
        };
        let refusal = check(&run(f.clone()), &facts)
            .map(|r| r.text)
            .unwrap_or_default();
        assert!(refusal.starts_with("Use of --write-sector is VERY DANGEROUS.\n"));
        assert!(refusal.ends_with("Program aborted."));
        f.yes_i_know = true;
        assert!(check(&run(f), &facts).is_none());

        let f = Flags {
            multcount: GetSet {
                set: true,
                ..GetSet::default()
            },
            ..Flags::default()
        };
        assert!(check(&run(f.clone()), &facts).is_some());
        assert!(
            check(
                &run(f),
                &DeviceFacts {
                    multcount_via_ata: false,
                    in_use: None,
                    visible_sectors: None,
                    nvme: false,
                }
            )
            .is_none(),
            "old IDE driver: no guard"
        );

        let mut f = Flags {
            powerup_in_standby: SetOnly {
                set: true,
                ..SetOnly::default()
            },
            ..Flags::default()
        };
        assert!(
            check(&run(f.clone()), &facts).is_none(),
            "-s0 is not guarded"
        );
        f.powerup_in_standby.value = 1;
        assert!(check(&run(f), &facts).is_some());
    }

    /// Each option whose definition names a guard has its row in [`GUARDED`], which asks for
    /// the same flags.
    #[test]
    fn every_guarded_option_has_its_row() {
        use crate::cli::defs::OPTIONS;
        for def in OPTIONS.iter().filter(|d| d.guard != Guard::None) {
            let row = GUARDED.iter().find(|g| g.options.contains(def));
            assert!(row.is_some(), "{} has no guard row", def.spelling());
            assert!(
                row.is_some_and(|g| g.guard() == def.guard),
                "{}",
                def.spelling()
            );
        }
        for g in GUARDED {
            let flags = match g.guard() {
                Guard::Both => 2,
                Guard::None => 0,
                _ => 1,
            };
            assert_eq!(g.why.len(), flags, "{}", g.options[0].spelling());
        }
    }

    /// Every option's definition says which guard flags it needs; the checks above must agree
    /// for a sample invocation of each (at values the guard applies to).
    #[test]
    fn guards_agree_with_the_option_definitions() {
        use crate::cli::defs::{Guard, Role, Value, OPTIONS};
        let facts = DeviceFacts {
            multcount_via_ata: true,
            in_use: None,
            visible_sectors: Some(1 << 40),
            nvme: false,
        };
        let run_of = |words: &[String]| {
            let argv: Vec<std::ffi::OsString> = std::iter::once("hdparm".to_string())
                .chain(words.iter().cloned())
                .chain(std::iter::once("/dev/x".to_string()))
                .map(Into::into)
                .collect();
            match crate::cli::parse(&argv).result {
                Ok(crate::cli::Invocation::Devices(mut runs)) => runs.remove(0),
                other => panic!("{words:?}: {other:?}"),
            }
        };
        let refused = |words: &[String]| check(&run_of(words), &facts).is_some();
        for def in OPTIONS {
            let mut words = vec![def.spelling()];
            match def.value {
                Value::None => {}
                Value::Decimal { max, .. } => words[0].push_str(&max.to_string()),
                Value::Number { min, .. } => words.push(min.to_string()),
                Value::Filename => words.push("fw.bin".into()),
                Value::Pattern => words.push("hex:00000000".into()),
                Value::TrimRanges => words.push("0:8".into()),
                Value::TransferMode => words.push("udma5".into()),
                Value::Password => words.push("pw".into()),
                // Help, file helpers, modifiers that take a word: no device run to guard.
                Value::KibThenFilename
                | Value::Letter { .. }
                | Value::Word { .. }
                | Value::ApplyArguments
                | Value::ExperimentArguments
                | Value::PrometheusArguments
                | Value::AdviseArguments
                | Value::SurfaceArguments => continue,
            }
            if def.role == Role::Immediate
                || def.role == Role::Obsolete
                || def.long == Some("Istdin")
                || def.long == Some("security-help")
                // modifies --apply and --check, no device run
                || def.long == Some("config")
            {
                continue;
            }
            let with = |flags: &[&str]| {
                let mut w: Vec<String> = flags.iter().map(|f| f.to_string()).collect();
                w.extend(words.iter().cloned());
                w
            };
            let know = "--yes-i-know-what-i-am-doing";
            let destroy = "--please-destroy-my-drive";
            let spelled = def.spelling();
            assert_eq!(refused(&words), def.guard != Guard::None, "{spelled}");
            assert!(!refused(&with(&[know, destroy])), "{spelled} with both");
            match def.guard {
                Guard::YesIKnow => assert!(!refused(&with(&[know])), "{spelled}"),
                Guard::PleaseDestroy => assert!(!refused(&with(&[destroy])), "{spelled}"),
                Guard::Both => {
                    assert!(refused(&with(&[know])), "{spelled}");
                    assert!(refused(&with(&[destroy])), "{spelled}");
                }
                Guard::None => {}
            }
        }
    }
}
