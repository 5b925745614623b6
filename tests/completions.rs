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
