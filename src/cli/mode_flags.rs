//! The flags that follow one of our modes (`--apply --config FILE`, `--surface --zones N`,
//! `--advise --wake` ...), and the fixed words some values take (`--generate complete-zsh`),
//! as data for the completions and the man page test.
//!
//! A mode reads the rest of the command line with its own small loop in [`super::parse`]; those
//! loops are the grammar. This table lists what they accept, so that a completion offers every
//! flag a user may type there, with its value kind; a test below reads the parser's source and
//! fails when a loop accepts a flag the table lacks.
//!
//! What this file must not do: parse, or touch the system.

use super::defs::{OptionDef, Value};

/// What a mode's flag takes after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FlagValue {
    None,
    /// A file name (`--plot`, `--config`).
    File,
    /// A number (`--zones`, `--trials`); `what` names it in a completion's message.
    Number {
        what: &'static str,
    },
}

/// One flag of a mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModeFlag {
    /// The name after `--`.
    pub long: &'static str,
    pub value: FlagValue,
    pub summary: &'static str,
}

impl ModeFlag {
    pub fn spelling(&self) -> String {
        format!("--{}", self.long)
    }
}

const fn flag(long: &'static str, value: FlagValue, summary: &'static str) -> ModeFlag {
    ModeFlag {
        long,
        value,
        summary,
    }
}

const JSON: ModeFlag = flag("json", FlagValue::None, "Print the report as JSON");
const DRY_RUN: ModeFlag = flag(
    "dry-run",
    FlagValue::None,
    "Print the plan and change nothing",
);
const PLOT: ModeFlag = flag(
    "plot",
    FlagValue::File,
    "Write an SVG plot to FILE (- for stdout)",
);

const APPLY: &[ModeFlag] = &[
    flag(
        "config",
        FlagValue::File,
        "Read FILE instead of /etc/hdparm.conf",
    ),
    DRY_RUN,
    JSON,
];
/// `--check` reads every setting back, which a dry run never does: it refuses `--dry-run`.
const CHECK: &[ModeFlag] = &[APPLY[0], JSON];
const EXPERIMENT: &[ModeFlag] = &[
    flag(
        "trials",
        FlagValue::Number {
            what: "trials per arm (2-1000)",
        },
        "Trials per arm",
    ),
    flag(
        "direct",
        FlagValue::None,
        "Time O_DIRECT reads instead of -t's buffered ones",
    ),
    flag(
        "bench",
        FlagValue::None,
        "Time each trial as one --bench trial (queue depth)",
    ),
    flag(
        "keep",
        FlagValue::None,
        "Leave the winning arm applied, and print its hdparm.conf block",
    ),
    PLOT,
    JSON,
    DRY_RUN,
];
const SURFACE: &[ModeFlag] = &[
    flag(
        "zones",
        FlagValue::Number {
            what: "zones (1-10000)",
        },
        "Split the device into N zones",
    ),
    flag(
        "surface-quick",
        FlagValue::None,
        "Read 8 MiB of each zone, not all of it",
    ),
    PLOT,
    flag("csv", FlagValue::File, "Write every zone as CSV to FILE"),
    JSON,
    DRY_RUN,
];
const ADVISE: &[ModeFlag] = &[
    flag(
        "wake",
        FlagValue::None,
        "Ask a sleeping drive too (it spins up)",
    ),
    JSON,
];
const PROMETHEUS: &[ModeFlag] = &[flag(
    "no-wake",
    FlagValue::None,
    "Ask a sleeping drive nothing beyond its power mode",
)];

/// The flags that may follow `def` on the command line (none for most options).
pub fn after(def: &OptionDef) -> &'static [ModeFlag] {
    match def.value {
        Value::ApplyArguments if def.long == Some("check") => CHECK,
        Value::ApplyArguments => APPLY,
        Value::ExperimentArguments => EXPERIMENT,
        Value::SurfaceArguments => SURFACE,
        Value::AdviseArguments => ADVISE,
        Value::PrometheusArguments => PROMETHEUS,
        _ => &[],
    }
}

/// The words an option's value is one of, where the set is fixed (`--generate`'s shells,
/// `--security-mode h|m`); empty where any value of its kind goes.
pub fn value_words(def: &OptionDef) -> Vec<String> {
    if def.long == Some("generate") {
        return super::complete::SHELLS
            .iter()
            .map(|s| format!("complete-{s}"))
            .collect();
    }
    match def.value {
        Value::Letter { choices } => choices.chars().map(String::from).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::defs::OPTIONS;

    /// Every `"--name"` the modes' loops in parse.rs match on is in a table here, and every
    /// flag in a table is one the parser accepts after its mode.
    #[test]
    fn the_tables_list_what_the_parser_accepts() {
        let source = include_str!("parse.rs");
        let mut matched = Vec::new();
        for (i, _) in source.match_indices("\"--") {
            let rest = &source[i + 1..];
            let Some(end) = rest.find('"') else { continue };
            let word = &rest[..end];
            let after_quote = rest[end + 1..].trim_start();
            // a match arm (`"--zones" =>`, `"--plot" | "--csv"`) or a comparison
            // (`eq_ignore_ascii_case("--no-wake")`)
            let compared = source[..i].ends_with("eq_ignore_ascii_case(");
            if after_quote.starts_with("=>") || after_quote.starts_with('|') || compared {
                matched.push(word.to_string());
            }
        }
        assert!(matched.contains(&"--zones".to_string()), "{matched:?}");
        let tabled: Vec<String> = OPTIONS
            .iter()
            .flat_map(|d| after(d).iter().map(ModeFlag::spelling))
            .collect();
        for word in &matched {
            if word == "--" {
                continue;
            }
            assert!(
                tabled.contains(word),
                "parse.rs accepts {word}, no table has it"
            );
        }
        for def in OPTIONS {
            for f in after(def) {
                let mut words = vec![def.spelling(), f.spelling()];
                match f.value {
                    FlagValue::None => {}
                    FlagValue::File => words.push("/tmp/x".into()),
                    FlagValue::Number { .. } => words.push("4".into()),
                }
                // the arms an experiment needs, and a device
                if def.value == Value::ExperimentArguments {
                    words.extend(["-a 8".into(), "-a 256".into()]);
                }
                words.push("/dev/sdz".into());
                let args: Vec<std::ffi::OsString> = std::iter::once("hdparm".into())
                    .chain(words.iter().map(Into::into))
                    .collect();
                // --check, --advise and --prometheus refuse --dry-run on purpose; their
                // tables do not offer it
                let parsed = crate::cli::parse(&args).result;
                assert!(parsed.is_ok(), "{words:?}: {:?}", parsed.err());
            }
        }
    }

    #[test]
    fn fixed_values_are_listed() {
        let generate = OPTIONS.iter().find(|d| d.long == Some("generate")).unwrap();
        assert_eq!(
            value_words(generate),
            ["complete-bash", "complete-zsh", "complete-fish"]
        );
        let mode = OPTIONS
            .iter()
            .find(|d| d.long == Some("security-mode"))
            .unwrap();
        assert_eq!(value_words(mode), ["h", "m"]);
    }
}
