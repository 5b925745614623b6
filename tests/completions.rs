//! The shell completions (`--generate complete-SHELL`) through the binary and the real shells:
//! bash completes a partial option and offers files after `--Iraw`; zsh and fish accept their
//! scripts (`zsh -n`, `fish --no-execute`).

mod common;

use std::process::Command;

fn generated(shell: &str) -> String {
    let out = Command::new(common::our_hdparm())
        .args(["--generate", &format!("complete-{shell}")])
        .output()
        .expect("run");
    assert!(out.status.success());
    String::from_utf8(out.stdout).expect("utf-8")
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
    let dir = std::env::temp_dir().join(format!("hdparm-rs-complete-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let script = dir.join("hdparm.bash");
    std::fs::write(&script, generated("bash")).expect("write");
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
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn zsh_and_fish_accept_their_scripts() {
    let test = "zsh_and_fish_accept_their_scripts";
    for (shell, check) in [("zsh", "-n"), ("fish", "--no-execute")] {
        if !shell_present(test, shell) {
            continue;
        }
        let dir = std::env::temp_dir().join(format!("hdparm-rs-{shell}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let script = dir.join("hdparm");
        std::fs::write(&script, generated(shell)).expect("write");
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

/// The options parsed inside another option (`--surface --zones N`), which the option table
/// does not list, and each option's values.
const SUB_OPTIONS: [&str; 8] = [
    "--config",
    "--zones",
    "--plot",
    "--csv",
    "--trials",
    "--keep",
    "--wake",
    "--no-wake",
];

/// What a shell prints for a script run after the completion script is sourced.
fn run_shell(shell: &str, script: &str, body: &str) -> String {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-run-{shell}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("hdparm");
    std::fs::write(&file, script).expect("write");
    let out = Command::new(shell)
        .arg("-c")
        .arg(body.replace("SCRIPT", &file.display().to_string()))
        .current_dir(&dir)
        .output()
        .expect("run the shell");
    let _ = std::fs::remove_dir_all(&dir);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The kernel's block devices, as /dev names.
fn block_devices() -> Vec<String> {
    std::fs::read_dir("/sys/class/block")
        .map(|d| {
            d.flatten()
                .map(|e| format!("/dev/{}", e.file_name().to_string_lossy()))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn bash_completes_sub_options_values_and_block_devices_only() {
    if !shell_present(
        "bash_completes_sub_options_values_and_block_devices_only",
        "bash",
    ) {
        return;
    }
    let script = generated("bash");
    let complete = |words: &str, cword: usize| {
        run_shell(
            "bash",
            &script,
            &format!(". SCRIPT; COMP_WORDS=({words}); COMP_CWORD={cword}; _hdparm; printf '%s\\n' \"${{COMPREPLY[@]}}\""),
        )
    };
    for option in SUB_OPTIONS {
        let got = complete(&format!("hdparm {option}"), 1);
        assert!(got.lines().any(|l| l == option), "{option}: {got}");
    }
    assert_eq!(
        complete("hdparm --generate complete-", 2),
        "complete-bash\ncomplete-zsh\ncomplete-fish\n",
        "after complete-, the shells"
    );
    assert_eq!(
        complete("hdparm --zones ''", 2),
        "\n",
        "a number: nothing offered"
    );
    // /dev/null is in /dev, not a block device.
    assert_eq!(complete("hdparm /dev/nul", 1).trim(), "");
    let devices = complete("hdparm /dev/", 1);
    let block = block_devices();
    assert_eq!(devices.lines().count(), block.len(), "{devices}");
    assert!(
        devices.lines().all(|d| block.iter().any(|b| b == d)),
        "{devices}"
    );
}

#[test]
fn fish_completes_sub_options_values_devices_and_keeps_apostrophes() {
    let test = "fish_completes_sub_options_values_devices_and_keeps_apostrophes";
    if !shell_present(test, "fish") {
        return;
    }
    let script = generated("fish");
    let complete = |line: &str| {
        run_shell(
            "fish",
            &script,
            &format!("source SCRIPT; complete -C'{line}'"),
        )
    };
    for option in SUB_OPTIONS {
        let got = complete(&format!("hdparm {option}"));
        assert!(
            got.lines().any(|l| l.starts_with(&format!("{option}\t"))),
            "{option}: {got}"
        );
    }
    let shells = complete("hdparm --generate ");
    assert_eq!(
        shells
            .lines()
            .map(|l| l.split('\t').next().unwrap_or(""))
            .collect::<Vec<_>>(),
        [
            "complete-bash",
            "complete-fish",
            "complete-zsh",
            "man",
            "schema"
        ],
        "{shells}"
    );
    let options = complete("hdparm -");
    assert!(
        options
            .lines()
            .any(|l| l == "-p\tSet the chipset's PIO mode (HDIO_SET_PIO_MODE)"),
        "{options}"
    );
    assert_eq!(complete("hdparm /dev/nul"), "");
    let block = block_devices();
    let devices = complete("hdparm /dev/");
    assert!(!devices.is_empty() || block.is_empty());
    assert!(
        devices.lines().all(|d| block.iter().any(|b| b == d)),
        "{devices}"
    );
}

#[test]
fn zsh_specs_keep_apostrophes_and_complete_block_devices_only() {
    if !shell_present(
        "zsh_specs_keep_apostrophes_and_complete_block_devices_only",
        "zsh",
    ) {
        return;
    }
    let script = generated("zsh");
    // _arguments and compadd stand in for zsh's completion system: they print what they get.
    let specs = run_shell(
        "zsh",
        &script,
        "_arguments() { printf '%s\\n' \"$@\" }; compadd() { shift; printf '%s\\n' \"$@\" }; source SCRIPT; echo SPLIT; _hdparm_devices",
    );
    let (specs, devices) = specs.split_once("SPLIT\n").expect("both parts");
    assert!(
        specs
            .lines()
            .any(|l| l == "-p[Set the chipset's PIO mode (HDIO_SET_PIO_MODE)]"),
        "{specs}"
    );
    for option in SUB_OPTIONS {
        assert!(
            specs.lines().any(|l| l.starts_with(&format!("{option}["))),
            "{option}: {specs}"
        );
    }
    assert!(
        specs.lines().any(|l| l.starts_with("--generate[")
            && l.ends_with(":value:(complete-bash complete-zsh complete-fish man schema)")),
        "{specs}"
    );
    assert!(
        specs.lines().any(|l| l == "*:device:_hdparm_devices"),
        "{specs}"
    );
    let block = block_devices();
    assert_eq!(devices.lines().count(), block.len(), "{devices}");
    assert!(
        devices.lines().all(|d| block.iter().any(|b| b == d)),
        "{devices}"
    );
}

/// What one shell's script spells an option as: bash's word list, zsh's `_arguments` spec,
/// fish's `-s`/`-l`.
fn offers(script: &str, shell: &str, short: Option<u8>, long: Option<&str>) -> bool {
    match (shell, short, long) {
        ("bash", Some(c), _) => script
            .split(['"', ' '])
            .any(|w| w == format!("-{}", c as char)),
        ("bash", None, Some(name)) => script.split(['"', ' ']).any(|w| w == format!("--{name}")),
        ("zsh", Some(c), _) => script.contains(&format!("\n  '-{}[", c as char)),
        ("zsh", None, Some(name)) => script.contains(&format!("\n  '--{name}[")),
        ("fish", Some(c), _) => script.contains(&format!("complete -c hdparm -s {} ", c as char)),
        ("fish", None, Some(name)) => script.contains(&format!("complete -c hdparm -l {name} ")),
        _ => false,
    }
}

/// Every option the definitions hold (but the obsolete letters, which hdparm rejects) is
/// completed by each shell's script, as the binary prints it.
#[test]
fn every_defined_option_is_completed_by_every_shell() {
    use hdparm::cli::defs::{Role, OPTIONS};
    let mut missing = Vec::new();
    for shell in ["bash", "zsh", "fish"] {
        let script = generated(shell);
        for def in OPTIONS.iter().filter(|d| d.role != Role::Obsolete) {
            if !offers(&script, shell, def.short, def.long) {
                missing.push(format!("{shell}: {}", def.spelling()));
            }
        }
    }
    assert!(missing.is_empty(), "not completed: {missing:?}");
}
