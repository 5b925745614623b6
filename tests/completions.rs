//! The shell completions (`--generate complete-SHELL`) through the binary and the real shells:
//! bash completes a partial option, every option and mode flag, files after `--Iraw` and
//! `--config`, `--generate`'s words, and only block devices where a device goes; fish does the
//! same through `complete -C`; zsh and fish accept their scripts (`zsh -n`, `fish
//! --no-execute`), and the descriptions reach both with their apostrophes.

mod common;

use std::path::PathBuf;
use std::process::Command;

fn generated(shell: &str) -> String {
    let out = Command::new(common::our_hdparm())
        .args(["--generate", &format!("complete-{shell}")])
        .output()
        .expect("run");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("utf-8")
}

/// A scratch folder holding the shell's script as `name`: (folder, script).
fn script_in(tag: &str, shell: &str, name: &str) -> (PathBuf, PathBuf) {
    let dir = std::env::temp_dir().join(format!("{tag}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join(name);
    std::fs::write(&script, generated(shell)).expect("write");
    (dir, script)
}

fn shell_present(test: &str, shell: &str) -> bool {
    if Command::new(shell).arg("--version").output().is_ok() {
        return true;
    }
    common::skip(
        test,
        &format!("{shell} is missing: apt-get install {shell}"),
    );
    false
}

#[test]
fn bash_completes_options_and_files() {
    let test = "bash_completes_options_and_files";
    if !shell_present(test, "bash") {
        return;
    }
    let (dir, script) = script_in("hdparm-rs-complete", "bash", "hdparm.bash");
    let complete = |words: &str, cword: usize| {
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                ". {}; COMP_WORDS=({words}); COMP_CWORD={cword}; _hdparm; printf '%s\\n' \"${{COMPREPLY[@]}}\"",
                script.display()
            ))
            .current_dir(&dir)
            .output()
            .expect("bash");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    assert_eq!(complete("hdparm --Ir", 1), "--Iraw\n");
    let security = hdparm::cli::defs::OPTIONS
        .iter()
        .filter(|d| d.long.is_some_and(|n| n.starts_with("securi")))
        .count();
    assert_eq!(complete("hdparm --securi", 1).lines().count(), security);
    std::fs::write(dir.join("identify.bin"), b"").expect("file");
    assert_eq!(complete("hdparm --Iraw ident", 2), "identify.bin\n");
    assert_eq!(
        complete("hdparm --apply --config ident", 3),
        "identify.bin\n"
    );
    assert_eq!(
        complete("hdparm --surface --plot ident", 3),
        "identify.bin\n"
    );
    // every option and every mode's flag completes from its whole spelling
    for word in MODE_FLAGS
        .iter()
        .chain(&["--generate", "--surface-quick", "--Iraw"])
    {
        let offered = complete(&format!("hdparm {word}"), 1);
        assert!(
            offered.lines().any(|l| l == *word),
            "{word} does not complete: {offered:?}"
        );
    }
    assert_eq!(
        complete("hdparm --generate ''", 2),
        "complete-bash\ncomplete-zsh\ncomplete-fish\n"
    );
    // nothing is guessed after a number
    assert_eq!(complete("hdparm --surface --zones ''", 3).trim(), "");
    // a device: the kernel's block devices only
    let offered = complete("hdparm -I /dev/", 2);
    check_block_devices("bash", &offered);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The flags of our modes the completions once lacked (issue 19).
const MODE_FLAGS: [&str; 8] = [
    "--config",
    "--zones",
    "--plot",
    "--csv",
    "--trials",
    "--keep",
    "--wake",
    "--no-wake",
];

/// `offered` (one name a line) is every block device the kernel lists, as /dev names, and
/// nothing else (no /dev/null, no tty).
fn check_block_devices(shell: &str, offered: &str) {
    let mut want: Vec<String> = std::fs::read_dir("/sys/class/block")
        .map(|d| {
            d.flatten()
                .map(|e| format!("/dev/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default();
    want.sort();
    let mut got: Vec<String> = offered.lines().map(str::to_string).collect();
    got.sort();
    assert_eq!(got, want, "{shell} offers these as devices");
    assert!(!got
        .iter()
        .any(|d| d == "/dev/null" || d.starts_with("/dev/tty")));
}

/// An option's summary with an apostrophe, as the definitions spell it.
fn summary_with_apostrophe() -> (String, &'static str) {
    let def = hdparm::cli::defs::OPTIONS
        .iter()
        .find(|d| d.short == Some(b'C'))
        .expect("-C");
    assert!(def.summary.contains('\''), "{}", def.summary);
    ("-C".to_string(), def.summary)
}

#[test]
fn fish_completes_options_values_and_block_devices() {
    let test = "fish_completes_options_values_and_block_devices";
    if !shell_present(test, "fish") {
        return;
    }
    let (dir, script) = script_in("hdparm-rs-fish-c", "fish", "hdparm.fish");
    let complete = |line: &str| {
        let out = Command::new("fish")
            .arg("--no-config")
            .arg("-c")
            .arg(format!("source {}; complete -C '{line}'", script.display()))
            .current_dir(&dir)
            .output()
            .expect("fish");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    // candidate TAB description
    let longs = complete("hdparm --");
    for word in MODE_FLAGS.iter().chain(&["--generate", "--Iraw"]) {
        assert!(
            longs.lines().any(|l| l.split('\t').next() == Some(*word)),
            "fish lacks {word}: {longs}"
        );
    }
    let (spelling, summary) = summary_with_apostrophe();
    let shorts = complete("hdparm -");
    assert!(
        shorts
            .lines()
            .any(|l| l == format!("{spelling}\t{summary}")),
        "fish's description of {spelling} is not {summary:?}: {shorts}"
    );
    let first_fields = |text: String| -> Vec<String> {
        let mut v: Vec<String> = text
            .lines()
            .map(|l| l.split('\t').next().unwrap_or_default().to_string())
            .collect();
        v.sort();
        v
    };
    assert_eq!(
        first_fields(complete("hdparm --generate ")),
        ["complete-bash", "complete-fish", "complete-zsh"]
    );
    check_block_devices(
        "fish",
        &first_fields(complete("hdparm -I /dev/")).join("\n"),
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zsh_gets_every_spec_with_its_description_whole() {
    let test = "zsh_gets_every_spec_with_its_description_whole";
    if !shell_present(test, "zsh") {
        return;
    }
    let (dir, script) = script_in("hdparm-rs-zsh-c", "zsh", "_hdparm");
    // The script, run with the completion system's functions replaced by ones that print
    // what they are given: the specs _arguments receives after zsh's quoting, and the
    // devices the device function offers.
    let out = Command::new("zsh")
        .arg("-f")
        .arg("-c")
        .arg(format!(
            "_arguments() {{ print -rl -- \"$@\"; _hdparm_devices }}; \
             _wanted() {{ shift 3; \"$@\" }}; compadd() {{ [[ $1 == -a ]] && print -rl -- ${{(P)2}} | sed 's/^/device: /' }}; \
             . {}",
            script.display()
        ))
        .output()
        .expect("zsh");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    let (spelling, summary) = summary_with_apostrophe();
    let spec = text
        .lines()
        .find(|l| l.starts_with(&format!("{spelling}[")))
        .unwrap_or_else(|| panic!("no spec for {spelling}: {text}"));
    // _arguments reads a backslash as escaping the next character
    let unescaped = spec
        .replace("\\[", "[")
        .replace("\\]", "]")
        .replace("\\:", ":");
    assert_eq!(unescaped, format!("{spelling}[{summary}]"), "{spec}");
    for word in MODE_FLAGS {
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{word}["))),
            "zsh lacks {word}: {text}"
        );
    }
    assert!(
        text.lines().any(|l| l.starts_with("--generate[")
            && l.ends_with(":value:(complete-bash complete-zsh complete-fish)")),
        "{text}"
    );
    assert!(text
        .lines()
        .any(|l| l.starts_with("--config[") && l.ends_with(":file:_files")));
    let devices: String = text
        .lines()
        .filter_map(|l| l.strip_prefix("device: "))
        .map(|l| format!("{l}\n"))
        .collect();
    check_block_devices("zsh", &devices);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zsh_and_fish_accept_their_scripts() {
    let test = "zsh_and_fish_accept_their_scripts";
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        if !shell_present(test, shell) {
            continue;
        }
        let (dir, script) = script_in(&format!("hdparm-rs-{shell}"), shell, "hdparm");
        let out = Command::new(shell)
            .arg(check)
            .arg(&script)
            .output()
            .expect("run");
        assert!(
            out.status.success(),
            "{shell} rejects its script: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
