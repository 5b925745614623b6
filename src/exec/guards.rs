//! The guard flags (reference §7), checked for the whole invocation before anything is sent to
//! any device: a refused invocation changes nothing anywhere. The list of guarded operations is
//! exactly hdparm 9.65's, so boot scripts that work with hdparm keep working.

use crate::cli::defs::{self as d, OptionDef};
use crate::cli::{DeviceRun, SanitizeCommand, SecurityCommand};

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

/// The first guard refusal of one device's plan, if any.
pub fn check(run: &DeviceRun, facts: &DeviceFacts) -> Option<Refusal> {
    let f = &run.flags;
    let know = f.yes_i_know;
    let destroy = f.please_destroy;
    if f.set_sector_size.is_some() && !destroy {
        return Some(please_destroy(
            "--set-sector-size",
            "This will likely destroy all data on the drive.",
        ));
    }
    if f.trim_ranges_stdin && !destroy {
        return Some(please_destroy(
            "--trim-sector-ranges-stdin",
            "This might destroy the drive and/or all data on it.",
        ));
    }
    if f.wdidle3.set && !destroy {
        return Some(please_destroy(
            "-J",
            "This implementation is not as thorough as the official WDIDLE3.EXE. Use at your own risk!",
        ));
    }
    if f.multcount.set && facts.multcount_via_ata && !know {
        return Some(yes_i_know(
            "-m",
            "Only the old IDE drivers work correctly with -m with kernels up to at least 2.6.29.\nlibata drives may fail and get hung if you set this flag.",
        ));
    }
    if f.powerup_in_standby.set && f.powerup_in_standby.value != 0 && !know {
        return Some(yes_i_know(
            "-s1",
            "This requires BIOS and kernel support to recognize/boot the drive.",
        ));
    }
    if let Some(s) = f.sanitize {
        let destructive = matches!(
            s,
            SanitizeCommand::BlockErase
                | SanitizeCommand::CryptoScramble
                | SanitizeCommand::Overwrite { .. }
        );
        if destructive && !know {
            return Some(yes_i_know(
                "--sanitize",
                "This sanitize command destroys all user data.",
            ));
        }
    }
    // NVMe (issue 10): the ATA erase needs a password set beforehand, which makes it hard to
    // run by accident; NVMe's Format NVM needs nothing, so it asks for this flag instead.
    if facts.nvme
        && matches!(
            f.security,
            Some((SecurityCommand::Erase | SecurityCommand::EraseEnhanced, _))
        )
        && !know
    {
        return Some(yes_i_know(
            "--security-erase",
            "On NVMe this is FORMAT NVM with secure erase: it destroys all data in the namespace at once, and no drive password protects it.",
        ));
    }
    if f.dco_restore && !know {
        return Some(yes_i_know(
            "--dco-restore",
            "You are trying to deliberately reset your drive configuration back to the factory defaults.\nThis may change the apparent capacity and feature set of the drive, making all data on it inaccessible.\nYou could lose *everything*.",
        ));
    }
    // Step 33 and 37: only when the drive would shrink.
    let shrinks = |sectors: u64| facts.visible_sectors.is_some_and(|v| sectors < v);
    if f.dco_setmax.is_some_and(shrinks) && !know {
        return Some(yes_i_know("--dco-setmax", SHRINK));
    }
    if f.max_sectors.set && shrinks(f.max_sectors.value) && !know {
        return Some(yes_i_know("-Nnnnnn", SHRINK));
    }
    if f.make_bad_sector.is_some() && !know {
        return Some(yes_i_know(
            "--make-bad-sector",
            "You are trying to deliberately corrupt a low-level sector on the media.\nThis is a BAD idea, and can easily result in total data loss.",
        ));
    }
    if f.trim_ranges.is_some() && !destroy {
        return Some(please_destroy(
            "--trim-sector-ranges",
            "This might destroy the drive and/or all data on it.",
        ));
    }
    if f.write_sector.is_some() && !know {
        return Some(yes_i_know(
            "--write-sector",
            "You are trying to deliberately overwrite a low-level sector on the media.\nThis is a BAD idea, and can easily result in total data loss.",
        ));
    }
    if f.fwdownload.is_some() {
        if !know {
            return Some(yes_i_know(
                "--fwdownload",
                "This flag has not been tested with many drives to date.\nYou are trying to deliberately overwrite the drive firmware with the contents of the specified file.\nIf this fails, your drive could be toast.",
            ));
        }
        if !destroy {
            return Some(please_destroy(
                "--fwdownload",
                "This might destroy the drive and well as all of the data on it.",
            ));
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
/// order the in-use refusal looks at them. `-N` counts only when it shrinks what IDENTIFY
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
