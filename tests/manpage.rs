//! The man page (doc/hdparm.8) is kept in step with `--help`: every option the help lists has an
//! entry in the man page, and the man page documents the exit statuses.

mod common;

use std::process::Command;

#[test]
fn man_page_covers_every_option_of_help() {
    let help = Command::new(common::our_hdparm())
        .arg("--help")
        .output()
        .expect("run --help");
    let help = String::from_utf8_lossy(&help.stdout).into_owned();
    let man = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm.8"))
        .expect("doc/hdparm.8");
    // Option entries in the man page: ".B -a" / ".B --offset", with roff's escaped dashes.
    let entries: Vec<String> = man
        .lines()
        .filter_map(|l| l.strip_prefix(".B "))
        .map(|l| {
            l.split_whitespace()
                .next()
                .unwrap_or("")
                .replace("\\-", "-")
        })
        .collect();
    let mut missing = Vec::new();
    for line in help.lines() {
        let t = line.trim_start();
        if !t.starts_with('-') {
            continue;
        }
        let option = t.split_whitespace().next().unwrap_or("");
        // hdparm lists -U and -x as "Obsolete" and rejects them.
        if option == "-U" || option == "-x" {
            continue;
        }
        if !entries.iter().any(|e| e == option) {
            missing.push(option.to_string());
        }
    }
    assert!(
        missing.is_empty(),
        "options in --help without a man page entry: {missing:?}"
    );
    for status in ["0", "1", "2", "5", "22", "25"] {
        assert!(
            man.contains(&format!(".B {status}\n")),
            "exit status {status} not documented"
        );
    }
}
