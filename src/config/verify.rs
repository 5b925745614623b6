//! What `--check` knows about a setting the drive cannot tell it: the record of the last
//! `--apply` (`/run/hdparm/NAME.json`, written by `exec/modes/apply.rs`).
//!
//! `-S` has no get at all, and some drives take `-B` but report no level afterwards. For such a
//! setting the drive is not asked; the record is: which command lines the last `--apply` ran
//! for the device, with their exit status, and a digest of the settings it planned for it
//! ([`settings_digest`]). A setting is in line with hdparm.conf when the last `--apply` sent that
//! very word (`-S24`) and the command line succeeded; it drifts when that line failed, when the
//! setting read back wrong right after it, or when hdparm.conf now asks for another value than
//! was sent. With no record the setting cannot be checked at all.
//!
//! The digest covers the device's command lines without the device name, so that editing a
//! comment, another device's block or the device's own name changes nothing, and any change to
//! what the device is sent changes it.
//!
//! What this file must not do: read the record or ask the drive; the caller passes both in.

use serde::Deserialize;

/// One setting a plan gives a value to: `-S24` is option `-S`, value 24.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Planned {
    /// `-S`.
    pub option: String,
    /// `-S24`, as it appears in the plan.
    pub word: String,
    pub value: i64,
}

/// The settings of a plan (`-X` and digits), the last of each option, in the order of the
/// plan. Words that are not a letter and a number (`-q`, `--security-freeze`, `-y`) set
/// nothing that a value could be compared with.
pub fn planned_settings(plan: &[Vec<String>]) -> Vec<Planned> {
    let mut settings: Vec<Planned> = Vec::new();
    for word in plan.iter().flat_map(|line| settings_words(line)) {
        let Some((option, value)) = split_setting(word) else {
            continue;
        };
        settings.retain(|s| s.option != option);
        settings.push(Planned {
            option,
            word: word.to_string(),
            value,
        });
    }
    settings
}

/// `-S24` as (`-S`, 24).
fn split_setting(word: &str) -> Option<(String, i64)> {
    let bytes = word.as_bytes();
    if bytes.len() < 3 || bytes[0] != b'-' || !bytes[1].is_ascii_alphabetic() {
        return None;
    }
    if !bytes[2..].iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some((word[..2].to_string(), word[2..].parse().ok()?))
}

/// A command line's words but its last, the device.
fn settings_words(line: &[String]) -> &[String] {
    &line[..line.len().saturating_sub(1)]
}

/// The digest of the settings a plan sends (its command lines without the device name):
/// `fnv1a64:` and 16 hex digits.
pub fn settings_digest(plan: &[Vec<String>]) -> String {
    let text: Vec<String> = plan.iter().map(|l| settings_words(l).join(" ")).collect();
    format!(
        "fnv1a64:{:016x}",
        crate::digest::fnv1a64(text.join("\n").as_bytes())
    )
}

/// What the record of the last `--apply` holds that `--check` compares with (the record has
/// more; serde ignores the rest).
#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct LastApply {
    /// Records written before the digest existed have none: then every setting is compared
    /// word by word.
    #[serde(default)]
    pub settings_digest: Option<String>,
    #[serde(default)]
    pub time_unix_seconds: u64,
    #[serde(default)]
    pub runs: Vec<RecordedRun>,
    /// The settings that did not read back as asked right after the runs.
    #[serde(default)]
    pub drift: Vec<RecordedOption>,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct RecordedRun {
    pub args: Vec<String>,
    pub exit_status: u8,
    #[serde(default)]
    pub stderr: String,
}

#[derive(Clone, Debug, Default, Deserialize, PartialEq, Eq)]
pub struct RecordedOption {
    pub option: String,
}

/// How a setting compares with the record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The last `--apply` sent this word and its command line succeeded.
    InSync,
    /// It is not in effect, or not as hdparm.conf now asks: `recorded` is the value the last
    /// `--apply` sent, when it sent one.
    Drift {
        recorded: Option<i64>,
        reason: String,
    },
    /// Nothing says whether it is in effect.
    Unverified { reason: String },
}

/// How `setting` compares with the last `--apply`'s record (None: there is none).
pub fn against_record(setting: &Planned, last: Option<&LastApply>) -> Judgement {
    let Some(last) = last else {
        return Judgement::Unverified {
            reason: "no --apply has recorded sending it".to_string(),
        };
    };
    let run = last
        .runs
        .iter()
        .rev()
        .find(|run| settings_words(&run.args).contains(&setting.word));
    if let Some(run) = run {
        if run.exit_status != 0 {
            let why = run
                .stderr
                .lines()
                .find(|l| !l.trim().is_empty())
                .map(|l| format!(": {}", l.trim()))
                .unwrap_or_default();
            return Judgement::Drift {
                recorded: Some(setting.value),
                reason: format!(
                    "it failed at the last --apply (hdparm {} exited {}{why})",
                    settings_words(&run.args).join(" "),
                    run.exit_status
                ),
            };
        }
        if last.drift.iter().any(|d| d.option == setting.option) {
            return Judgement::Drift {
                recorded: Some(setting.value),
                reason: "it did not read back as asked after the last --apply".to_string(),
            };
        }
        return Judgement::InSync;
    }
    let sent = last
        .runs
        .iter()
        .rev()
        .filter(|run| run.exit_status == 0)
        .flat_map(|run| settings_words(&run.args).iter().rev())
        .find_map(|word| split_setting(word).filter(|(option, _)| *option == setting.option));
    match sent {
        Some((_, value)) => Judgement::Drift {
            recorded: Some(value),
            reason: format!(
                "the last --apply sent {}{value}, hdparm.conf asks for {}",
                setting.option, setting.word
            ),
        },
        None => Judgement::Drift {
            recorded: None,
            reason: "the last --apply did not send it (hdparm.conf asks for it since)".to_string(),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(words: &str) -> Vec<String> {
        words.split(' ').map(str::to_string).collect()
    }

    fn record(runs: &[(&str, u8)]) -> LastApply {
        LastApply {
            settings_digest: None,
            time_unix_seconds: 1,
            runs: runs
                .iter()
                .map(|(args, status)| RecordedRun {
                    args: line(args),
                    exit_status: *status,
                    stderr: if *status == 0 {
                        String::new()
                    } else {
                        " HDIO_DRIVE_CMD failed: Input/output error\n".into()
                    },
                })
                .collect(),
            drift: Vec::new(),
        }
    }

    fn spindown(value: i64) -> Planned {
        Planned {
            option: "-S".into(),
            word: format!("-S{value}"),
            value,
        }
    }

    #[test]
    fn the_settings_of_a_plan_are_its_letter_and_number_words() {
        let plan = vec![
            line("-B254 /dev/sda"),
            line("-S24 /dev/sda"),
            line("-q -W0 -a64 -y --security-freeze -S36 /dev/sda"),
        ];
        let got: Vec<String> = planned_settings(&plan)
            .into_iter()
            .map(|s| s.word)
            .collect();
        assert_eq!(got, vec!["-B254", "-W0", "-a64", "-S36"]);
    }

    #[test]
    fn the_digest_is_of_the_settings_not_of_the_device_name() {
        let a = settings_digest(&[line("-S24 /dev/sda")]);
        assert_eq!(a, settings_digest(&[line("-S24 /dev/disk/by-id/ata-X")]));
        assert_ne!(a, settings_digest(&[line("-S36 /dev/sda")]));
        assert_ne!(a, settings_digest(&[line("-S24 -q /dev/sda")]));
        assert!(a.starts_with("fnv1a64:") && a.len() == 8 + 16, "{a}");
    }

    #[test]
    fn a_setting_sent_and_taken_is_in_sync() {
        let last = record(&[("-B254 /dev/sda", 0), ("-S24 /dev/sda", 0)]);
        assert_eq!(
            against_record(&spindown(24), Some(&last)),
            Judgement::InSync
        );
    }

    #[test]
    fn an_edited_setting_drifts_with_the_value_sent() {
        let last = record(&[("-S24 /dev/sda", 0)]);
        let Judgement::Drift { recorded, reason } = against_record(&spindown(36), Some(&last))
        else {
            panic!("not drift");
        };
        assert_eq!(recorded, Some(24));
        assert_eq!(
            reason,
            "the last --apply sent -S24, hdparm.conf asks for -S36"
        );
    }

    #[test]
    fn a_failed_setting_drifts_and_says_how_it_failed() {
        let last = record(&[("-S24 /dev/sda", 5)]);
        let Judgement::Drift { reason, .. } = against_record(&spindown(24), Some(&last)) else {
            panic!("not drift");
        };
        assert_eq!(
            reason,
            "it failed at the last --apply (hdparm -S24 exited 5: HDIO_DRIVE_CMD failed: Input/output error)"
        );
        // A later run that succeeded is what counts.
        let last = record(&[("-S24 /dev/sda", 5), ("-S24 /dev/sda", 0)]);
        assert_eq!(
            against_record(&spindown(24), Some(&last)),
            Judgement::InSync
        );
    }

    #[test]
    fn a_setting_that_did_not_read_back_drifts() {
        let mut last = record(&[("-q -B128 /dev/sda", 0)]);
        last.drift.push(RecordedOption {
            option: "-B".into(),
        });
        let apm = Planned {
            option: "-B".into(),
            word: "-B128".into(),
            value: 128,
        };
        assert!(matches!(
            against_record(&apm, Some(&last)),
            Judgement::Drift { .. }
        ));
    }

    #[test]
    fn without_a_record_nothing_is_known_and_a_new_setting_drifts() {
        assert!(matches!(
            against_record(&spindown(24), None),
            Judgement::Unverified { .. }
        ));
        let last = record(&[("-q -a64 /dev/sda", 0)]);
        assert_eq!(
            against_record(&spindown(24), Some(&last)),
            Judgement::Drift {
                recorded: None,
                reason: "the last --apply did not send it (hdparm.conf asks for it since)".into()
            }
        );
    }

    #[test]
    fn the_record_is_read_from_what_apply_writes() {
        let text = r#"{"name": "/dev/sda", "settings_digest": "fnv1a64:0000000000000001",
            "time_unix_seconds": 7, "runs": [{"args": ["-S24", "/dev/sda"], "exit_status": 0,
            "stdout": "", "stderr": ""}], "drift": [{"option": "-W", "wanted": 0, "found": 1}],
            "plan": [["-S24", "/dev/sda"]]}"#;
        let last: LastApply = serde_json::from_str(text).unwrap();
        assert_eq!(
            last.settings_digest.as_deref(),
            Some("fnv1a64:0000000000000001")
        );
        assert_eq!(last.runs[0].args, line("-S24 /dev/sda"));
        assert_eq!(last.drift[0].option, "-W");
    }
}
