//! Shell completions for bash, zsh and fish, generated from the option definitions, so that a
//! new option is completed as soon as it is defined (`hdparm --generate complete-bash`, and the
//! Debian package installs the three files).
//!
//! hdparm's options cluster (`-tT`) and take their values in the same word or the next; the
//! completions offer the spellings, a file after the options that take one, and block devices
//! everywhere else, which is what one types most.
//!
//! What this file must not do: touch the system; it returns text.

use super::defs::{OptionDef, Role, Value, OPTIONS};

/// The shells completions exist for.
pub const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

fn offered() -> impl Iterator<Item = &'static OptionDef> {
    OPTIONS.iter().copied().filter(|d| d.role != Role::Obsolete)
}

fn takes_file(def: &OptionDef) -> bool {
    matches!(def.value, Value::Filename | Value::KibThenFilename)
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
    let words: Vec<String> = offered().map(|d| d.spelling()).collect();
    let file_options: Vec<String> = offered()
        .filter(|d| takes_file(d))
        .map(|d| d.spelling())
        .collect();
    format!(
        r#"# bash completion for hdparm (hdparm-rs), generated from its option definitions
_hdparm() {{
    local cur prev
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
        {files})
            COMPREPLY=( $(compgen -f -- "$cur") )
            return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "{words}" -- "$cur") )
    else
        COMPREPLY=( $(compgen -f -- "${{cur:-/dev/}}") )
    fi
}}
complete -F _hdparm hdparm
"#,
        files = if file_options.is_empty() {
            "--".to_string()
        } else {
            file_options.join("|")
        },
        words = words.join(" ")
    )
}

/// A description as zsh and fish show it: one line, no characters that end their quoting.
fn quoted(summary: &str) -> String {
    summary
        .replace(['\\', '\''], "")
        .replace('[', "(")
        .replace(']', ")")
        .replace(':', " -")
}

fn zsh() -> String {
    let mut lines = String::from(
        "#compdef hdparm\n# zsh completion for hdparm (hdparm-rs), generated from its option definitions\n_arguments -s \\\n",
    );
    for def in offered() {
        let action = if takes_file(def) { ":file:_files" } else { "" };
        lines.push_str(&format!(
            "  '{}[{}]{action}' \\\n",
            def.spelling(),
            quoted(def.summary)
        ));
    }
    lines.push_str("  '*:device:_files -W /dev'\n");
    lines
}

fn fish() -> String {
    let mut lines = String::from(
        "# fish completion for hdparm (hdparm-rs), generated from its option definitions\n",
    );
    for def in offered() {
        let name = match (def.short, def.long) {
            (Some(c), _) => format!("-s {}", c as char),
            (None, Some(long)) => format!("-l {long}"),
            (None, None) => continue,
        };
        let files = if takes_file(def) { " -r -F" } else { "" };
        lines.push_str(&format!(
            "complete -c hdparm {name}{files} -d '{}'\n",
            quoted(def.summary)
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

    #[test]
    fn options_with_a_file_complete_files() {
        assert!(bash().contains("|--Iraw"), "{}", bash());
        assert!(zsh().contains("'--Iraw[Write the raw IDENTIFY data to a file]:file:_files'"));
        assert!(fish().contains("complete -c hdparm -l Iraw -r -F"));
    }
}
