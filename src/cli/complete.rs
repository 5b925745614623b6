//! Shell completions for bash, zsh and fish, generated from the option definitions, so that a
//! new option is completed as soon as it is defined (`hdparm --generate complete-bash`, and the
//! Debian package installs the three files).
//!
//! hdparm's options cluster (`-tT`) and take their values in the same word or the next; the
//! completions offer the spellings (the table's and the sub-options' of `defs::SUB_OPTIONS`,
//! such as `--zones`), a file after the options that take one, the values of `--generate`,
//! nothing after a number, and block devices everywhere else (the names in /sys/class/block,
//! read by the script when it runs, not all of /dev). Descriptions keep their apostrophes,
//! escaped for each shell's single quotes.
//!
//! What this file must not do: touch the system; it returns text.

use super::defs::{OptionDef, Role, SubValue, Value, OPTIONS, SUB_OPTIONS};

/// The shells completions exist for.
pub const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

fn offered() -> impl Iterator<Item = &'static OptionDef> {
    OPTIONS.iter().copied().filter(|d| d.role != Role::Obsolete)
}

/// What one completes after an option's spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Next {
    Nothing,
    File,
    /// A number: nothing to offer, but not a device either.
    Number,
    Words(Vec<String>),
}

/// Every spelling offered (the table's options and the sub-options), with its description
/// and what follows it.
fn entries() -> Vec<(String, &'static str, Next)> {
    let mut out: Vec<(String, &'static str, Next)> = offered()
        .map(|d| {
            let next = match d.value {
                Value::Filename | Value::KibThenFilename => Next::File,
                _ if d.long == Some("generate") => Next::Words(
                    SHELLS
                        .iter()
                        .map(|s| format!("complete-{s}"))
                        .chain(["man".to_string(), "schema".to_string()])
                        .collect(),
                ),
                _ => Next::Nothing,
            };
            (d.spelling(), d.summary, next)
        })
        .collect();
    out.extend(SUB_OPTIONS.iter().map(|o| {
        let next = match o.value {
            SubValue::None => Next::Nothing,
            SubValue::File => Next::File,
            SubValue::Number => Next::Number,
        };
        (o.spelling.to_string(), o.summary, next)
    }));
    out
}

/// The completion script for one shell, or None for a shell we have none for.
pub fn script(shell: &str) -> Option<String> {
    match shell {
        "bash" => Some(bash()),
        "zsh" => Some(zsh()),
        "fish" => Some(fish()),
        _ => None,
    }
}

fn bash() -> String {
    let entries = entries();
    let words: Vec<&str> = entries.iter().map(|e| e.0.as_str()).collect();
    let with = |kind: &Next| -> String {
        let spelled: Vec<&str> = entries
            .iter()
            .filter(|e| &e.2 == kind)
            .map(|e| e.0.as_str())
            .collect();
        if spelled.is_empty() {
            "--".into()
        } else {
            spelled.join("|")
        }
    };
    let mut word_cases = String::new();
    for (spelling, _, next) in &entries {
        if let Next::Words(values) = next {
            word_cases.push_str(&format!(
                "        {spelling})\n            COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )\n            return ;;\n",
                values.join(" ")
            ));
        }
    }
    format!(
        r#"# bash completion for hdparm (hdparm-rs), generated from its option definitions
_hdparm() {{
    local cur prev d
    local -a devs=()
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
        {files})
            COMPREPLY=( $(compgen -f -- "$cur") )
            return ;;
        {numbers})
            COMPREPLY=()
            return ;;
{word_cases}    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "{words}" -- "$cur") )
    else
        # Block devices only: the kernel's list, not everything in /dev.
        for d in /sys/class/block/*; do
            [[ -e "$d" ]] && devs+=("/dev/${{d##*/}}")
        done
        COMPREPLY=( $(compgen -W "${{devs[*]}}" -- "$cur") )
    fi
}}
complete -F _hdparm hdparm
"#,
        files = with(&Next::File),
        numbers = with(&Next::Number),
        words = words.join(" ")
    )
}

/// A description on one line, in `_arguments`' brackets: no bracket or colon of its own.
fn zsh_description(summary: &str) -> String {
    summary
        .replace('\\', "")
        .replace('[', "(")
        .replace(']', ")")
        .replace(':', " -")
}

/// Text inside a shell's single quotes: each `'` closes the quote, is escaped, and reopens it.
fn zsh_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', r"'\''"))
}

fn zsh() -> String {
    let mut lines = String::from(
        "#compdef hdparm\n# zsh completion for hdparm (hdparm-rs), generated from its option definitions\n\
         # Block devices only: the kernel's list, not everything in /dev.\n\
         _hdparm_devices() {\n  local -a devs\n  devs=(/sys/class/block/*(N:t))\n  compadd -- /dev/${^devs}\n}\n\
         _arguments -s \\\n",
    );
    for (spelling, summary, next) in entries() {
        let action = match next {
            Next::Nothing => String::new(),
            Next::File => ":file:_files".into(),
            Next::Number => ":number: ".into(),
            Next::Words(values) => format!(":value:({})", values.join(" ")),
        };
        lines.push_str(&format!(
            "  {} \\\n",
            zsh_quoted(&format!("{spelling}[{}]{action}", zsh_description(summary)))
        ));
    }
    lines.push_str("  '*:device:_hdparm_devices'\n");
    lines
}

/// Text in fish's single quotes: `\` and `'` escaped with a backslash.
fn fish_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', r"\\").replace('\'', r"\'"))
}

fn fish() -> String {
    let mut lines = String::from(
        "# fish completion for hdparm (hdparm-rs), generated from its option definitions\n\
         # Block devices only (the kernel's list, not everything in /dev), where no option wants a file.\n\
         complete -c hdparm -f -a '(string replace -r \"^.*/\" /dev/ /sys/class/block/*)'\n",
    );
    let by_spelling = |spelling: &str| {
        offered()
            .find(|d| d.spelling() == spelling)
            .and_then(|d| match (d.short, d.long) {
                (Some(c), _) => Some(format!("-s {}", c as char)),
                _ => None,
            })
    };
    for (spelling, summary, next) in entries() {
        let name = match by_spelling(&spelling) {
            Some(short) => short,
            None => match spelling.strip_prefix("--") {
                Some(long) => format!("-l {long}"),
                None => continue,
            },
        };
        let value = match next {
            Next::Nothing => String::new(),
            Next::File => " -r -F".into(),
            Next::Number => " -x".into(),
            Next::Words(values) => format!(" -x -a {}", fish_quoted(&values.join(" "))),
        };
        lines.push_str(&format!(
            "complete -c hdparm {name}{value} -d {}\n",
            fish_quoted(&zsh_description(summary))
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_offers_every_option() {
        for shell in SHELLS {
            let text = script(shell).unwrap();
            for def in offered() {
                let spelled = match (shell, def.short, def.long) {
                    ("fish", Some(c), _) => format!("-s {}", c as char),
                    ("fish", None, Some(long)) => format!("-l {long}"),
                    _ => def.spelling(),
                };
                assert!(text.contains(&spelled), "{shell}: {spelled}");
            }
        }
        assert!(script("tcsh").is_none());
    }

    /// Every `"--word" =>` the parser matches inside an option's own arguments is either in the
    /// option table or a sub-option, so the completions cannot miss one.
    #[test]
    fn every_word_the_parser_takes_is_completed() {
        let parser = [
            include_str!("parse.rs"),
            include_str!("parse/readers.rs"),
            include_str!("parse/modes.rs"),
        ]
        .concat();
        let spelled: Vec<String> = entries().into_iter().map(|e| e.0).collect();
        for piece in parser.split('"').skip(1).step_by(2) {
            if piece.len() > 2
                && piece.starts_with("--")
                && !piece.contains(' ')
                && piece != "--foo"
            {
                let arm = format!("\"{piece}\" =>");
                let arm_or = format!("\"{piece}\" |");
                if parser.contains(arm.as_str()) || parser.contains(arm_or.as_str()) {
                    assert!(
                        spelled.iter().any(|s| s == piece),
                        "{piece} is not completed"
                    );
                }
            }
        }
    }

    #[test]
    fn options_with_a_file_complete_files() {
        assert!(bash().contains("|--Iraw"), "{}", bash());
        assert!(zsh().contains("'--Iraw[Write the raw IDENTIFY data to a file]:file:_files'"));
        assert!(fish().contains("complete -c hdparm -l Iraw -r -F"));
    }
}
