//! The guard flags (reference §7), checked for the whole invocation before anything is sent to
//! any device: a refused invocation changes nothing anywhere. The list of guarded operations is
//! exactly hdparm 9.65's, so boot scripts that work with hdparm keep working.

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
    /// NVMe (issue 10): the node takes NVMe commands, so the NVMe steps run for it.
    pub nvme: bool,
}

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

/// The first option of a plan whose capability is not built yet. Such an invocation is refused
/// before anything is sent to any device, so an option is never half done or silently ignored.
pub fn unbuilt_option(f: &crate::cli::Flags) -> Option<&'static str> {
    unbuilt_options(f).into_iter().next()
}

/// NVMe (issue 10): [`unbuilt_option`] for a device that takes NVMe commands, where these
/// options are built (by the steps in `steps/nvme.rs`) even where their ATA versions are not.
pub fn unbuilt_option_nvme(f: &crate::cli::Flags) -> Option<&'static str> {
    const BUILT_FOR_NVME: &[&str] = &[
        "--trim-sector-ranges",
        "--security-*",
        "--sanitize-*",
        "--write-sector",
        "--fwdownload",
    ];
    unbuilt_options(f)
        .into_iter()
        .find(|name| !BUILT_FOR_NVME.contains(name))
}

fn unbuilt_options(f: &crate::cli::Flags) -> Vec<&'static str> {
    let unbuilt = [
        (f.set_sector_size.is_some(), "--set-sector-size"),
        (f.trim_ranges_stdin, "--trim-sector-ranges-stdin"),
        (f.trim_ranges.is_some(), "--trim-sector-ranges"),
        (f.wdidle3.set || f.wdidle3.get, "-J"),
        (f.cdrom_speed.set, "-E"),
        (f.security.is_some(), "--security-*"),
        (f.sanitize.is_some(), "--sanitize-*"),
        (f.dco_identify, "--dco-identify"),
        (f.dco_restore, "--dco-restore"),
        (f.dco_setmax.is_some(), "--dco-setmax"),
        (f.max_sectors.set, "-N (set)"),
        (f.make_bad_sector.is_some(), "--make-bad-sector"),
        (f.write_sector.is_some(), "--write-sector"),
        (f.fwdownload.is_some(), "--fwdownload"),
        (f.drq_hsm_error, "--drq-hsm-error"),
        (f.idle_unload.set, "--idle-unload"),
    ];
    unbuilt
        .iter()
        .filter(|(asked, _)| *asked)
        .map(|(_, name)| *name)
        .collect()
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
        use crate::cli::defs::{Built, Guard, Role, Value, OPTIONS};
        let facts = DeviceFacts {
            multcount_via_ata: true,
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
            if def.role != Role::Modifier {
                // What the definition says is built is what the executor does not refuse.
                let unbuilt = unbuilt_option(&run_of(&words).flags).is_some();
                assert_eq!(unbuilt, def.built != Built::Yes, "{spelled} is built?");
                if def.built == Built::GetOnly {
                    let bare = run_of(std::slice::from_ref(&spelled));
                    assert!(unbuilt_option(&bare.flags).is_none(), "{spelled} get");
                }
            }
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
