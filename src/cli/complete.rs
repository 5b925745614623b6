//! Shell completions for bash, zsh and fish, generated from the option definitions and the
//! modes' flags ([`super::mode_flags`]), so that a new option is completed as soon as it is
//! defined (`hdparm --generate complete-bash`, and the Debian package installs the three files).
//!
//! hdparm's options cluster (`-tT`) and take their values in the same word or the next; the
//! completions offer the spellings, a file after the options that take one, the fixed words of
//! a value where there are some (`--generate complete-zsh`), nothing after a number, and block
//! devices everywhere else, which is what one types most. The block devices are the kernel's
//! list (`/sys/class/block`), not every node in /dev; a name under `/dev/disk/` (by-id, by-path)
//! completes as a path.
//!
//! What this file must not do: touch the system; it returns text.

use super::defs::{OptionDef, Role, Value, OPTIONS};
use super::mode_flags::{self, FlagValue};

/// The shells completions exist for.
pub const SHELLS: [&str; 3] = ["bash", "zsh", "fish"];

/// What a completion offers after a spelling.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Then {
    /// The next word is whatever the user types next: an option or a device.
    Nothing,
    File,
    /// One of these words.
    Words(Vec<String>),
    /// A value nothing can guess (a number, a password); `what` names it.
    Value(&'static str),
}

/// One spelling a completion offers: an option, or a flag of a mode.
struct Entry {
    short: Option<u8>,
    long: Option<&'static str>,
    summary: &'static str,
    then: Then,
}

impl Entry {
    fn spelling(&self) -> String {
        match (self.short, self.long) {
            (Some(c), _) => format!("-{}", c as char),
            (None, Some(name)) => format!("--{name}"),
            (None, None) => String::new(),
        }
    }
}

/// What follows an option in the next word. Short options take theirs attached or in the next
/// word only when it is a number, so only long ones say more than `Nothing`.
fn then(def: &OptionDef) -> Then {
    let words = mode_flags::value_words(def);
    if !words.is_empty() {
        return Then::Words(words);
    }
    match def.value {
        Value::Filename | Value::KibThenFilename => Then::File,
        _ if def.long.is_none() => Then::Nothing,
        Value::Password => Then::Value("password"),
        Value::Pattern => Then::Value("hex:pattern"),
        Value::Number { .. } => Then::Value("number"),
        Value::Word { .. } => Then::Value("value"),
        Value::TrimRanges => Then::Value("LBA:COUNT"),
        _ => Then::Nothing,
    }
}

/// Every option (the obsolete ones left out), then the modes' flags that are not options
/// themselves, each once.
fn entries() -> Vec<Entry> {
    let options = OPTIONS.iter().copied().filter(|d| d.role != Role::Obsolete);
    let mut out: Vec<Entry> = options
        .clone()
        .map(|d| Entry {
            short: d.short,
            long: d.long,
            summary: d.summary,
            then: then(d),
        })
        .collect();
    for flag in options.flat_map(mode_flags::after) {
        if out.iter().any(|e| e.spelling() == flag.spelling()) {
            continue;
        }
        out.push(Entry {
            short: None,
            long: Some(flag.long),
            summary: flag.summary,
            then: match flag.value {
                FlagValue::None => Then::Nothing,
                FlagValue::File => Then::File,
                FlagValue::Number { what } => Then::Value(what),
            },
        });
    }
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

/// The spellings of the entries `pick` selects, joined by `|` for a bash `case` pattern.
fn case_pattern(entries: &[Entry], pick: impl Fn(&Then) -> bool) -> String {
    let words: Vec<String> = entries
        .iter()
        .filter(|e| e.long.is_some() && pick(&e.then))
        .map(|e| format!("--{}", e.long.unwrap_or_default()))
        .collect();
    // a pattern no word matches, where there is none
    if words.is_empty() {
        "--".into()
    } else {
        words.join("|")
    }
}

fn bash() -> String {
    let entries = entries();
    let words: Vec<String> = entries.iter().map(Entry::spelling).collect();
    let mut fixed = String::new();
    for e in &entries {
        if let (Some(long), Then::Words(choices)) = (e.long, &e.then) {
            fixed.push_str(&format!(
                "        --{long})\n            COMPREPLY=( $(compgen -W \"{}\" -- \"$cur\") )\n            return ;;\n",
                choices.join(" ")
            ));
        }
    }
    format!(
        r#"# bash completion for hdparm (hdparm-rs), generated from its option definitions
# the kernel's block devices, as /dev names
_hdparm_devices() {{
    local b
    for b in /sys/class/block/*; do
        [ -e "$b" ] && printf '/dev/%s\n' "${{b##*/}}"
    done
}}
_hdparm() {{
    local cur prev
    cur="${{COMP_WORDS[COMP_CWORD]}}"
    prev="${{COMP_WORDS[COMP_CWORD-1]}}"
    case "$prev" in
        {files})
            COMPREPLY=( $(compgen -f -- "$cur") )
            return ;;
{fixed}        {values})
            COMPREPLY=()
            return ;;
    esac
    if [[ "$cur" == -* ]]; then
        COMPREPLY=( $(compgen -W "{words}" -- "$cur") )
    elif [[ "$cur" == /dev/disk/* ]]; then
        COMPREPLY=( $(compgen -f -- "$cur") )
    else
        COMPREPLY=( $(compgen -W "$(_hdparm_devices)" -- "$cur") )
    fi
}}
complete -F _hdparm hdparm
"#,
        files = case_pattern(&entries, |t| *t == Then::File),
        values = case_pattern(&entries, |t| matches!(t, Then::Value(_))),
        words = words.join(" ")
    )
}

/// Text inside a zsh single-quoted word, for `_arguments`: the quote closed, escaped and
/// reopened, and the brackets and colons `_arguments` reads escaped with a backslash.
fn zsh_quoted(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            '\'' => out.push_str("'\\''"),
            '\\' | '[' | ']' | ':' => {
                out.push('\\');
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    out
}

fn zsh() -> String {
    let mut lines = String::from(
        "#compdef hdparm\n# zsh completion for hdparm (hdparm-rs), generated from its option definitions\n\
         # the kernel's block devices, as /dev names\n\
         _hdparm_devices() {\n  local -a devs\n  devs=( /sys/class/block/*(N:t) )\n  devs=( /dev/${^devs} )\n  _wanted devices expl 'block device' compadd -a devs\n}\n\
         _arguments -s \\\n",
    );
    for e in entries() {
        let action = match &e.then {
            Then::Nothing => String::new(),
            Then::File => ":file:_files".into(),
            Then::Words(words) => format!(":value:({})", words.join(" ")),
            Then::Value(what) => format!(":{}: ", zsh_quoted(what)),
        };
        lines.push_str(&format!(
            "  '{}[{}]{action}' \\\n",
            e.spelling(),
            zsh_quoted(e.summary)
        ));
    }
    lines.push_str("  '*:device:_hdparm_devices'\n");
    lines
}

/// Text as a fish single-quoted word: only the quote and the backslash are escaped there.
fn fish_quoted(text: &str) -> String {
    format!("'{}'", text.replace('\\', "\\\\").replace('\'', "\\'"))
}

fn fish() -> String {
    let mut lines = String::from(
        "# fish completion for hdparm (hdparm-rs), generated from its option definitions\n\
         # the kernel's block devices, as /dev names, instead of files\n\
         function __hdparm_devices\n    for b in /sys/class/block/*\n        echo /dev/(basename $b)\n    end\nend\n\
         complete -c hdparm -f -a '(__hdparm_devices)'\n",
    );
    for e in entries() {
        let name = match (e.short, e.long) {
            (Some(c), _) => format!("-s {}", c as char),
            (None, Some(long)) => format!("-l {long}"),
            (None, None) => continue,
        };
        let then = match &e.then {
            Then::Nothing => String::new(),
            Then::File => " -r -F".into(),
            Then::Words(words) => format!(" -x -a {}", fish_quoted(&words.join(" "))),
            Then::Value(_) => " -x".into(),
        };
        lines.push_str(&format!(
            "complete -c hdparm {name}{then} -d {}\n",
            fish_quoted(e.summary)
        ));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_shell_offers_every_option_and_mode_flag() {
        let all = entries();
        for want in [
            "--zones",
            "--config",
            "--no-wake",
            "--wake",
            "--keep",
            "--csv",
        ] {
            assert!(all.iter().any(|e| e.spelling() == want), "{want}");
        }
        for shell in SHELLS {
            let text = script(shell).unwrap();
            for e in &all {
                let spelled = match (shell, e.short, e.long) {
                    ("fish", Some(c), _) => format!("-s {}", c as char),
                    ("fish", None, Some(long)) => format!("-l {long}"),
                    _ => e.spelling(),
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
        assert!(zsh().contains("'--plot["), "{}", zsh());
    }

    #[test]
    fn descriptions_keep_their_quotes() {
        assert_eq!(zsh_quoted("drive's [x]: y"), "drive'\\''s \\[x\\]\\: y");
        assert_eq!(fish_quoted("drive's \\"), "'drive\\'s \\\\'");
    }
}
