//! `--help` lists every option the definitions hold (`src/cli/defs.rs`), through the binary.
//! hdparm's part of it is hdparm 9.65's usage text byte for byte, which leaves out the security
//! options (`--security-help` lists them) and the two guard flags; every other option has its
//! line.

mod common;

use hdparm::cli::defs::{self, OptionDef, Role, OPTIONS};
use std::process::Command;

fn printed(args: &[&str]) -> String {
    let out = Command::new(common::our_hdparm())
        .args(args)
        .output()
        .expect("run");
    assert!(out.status.success(), "{args:?}: {out:?}");
    // -h and --help print on stdout, --security-help too.
    String::from_utf8(out.stdout).expect("utf-8")
}

/// Whether a help text has a line that starts with the option's spelling.
fn lists(text: &str, def: &OptionDef) -> bool {
    let spelled = def.spelling();
    text.lines()
        .any(|l| l.split_whitespace().next() == Some(spelled.as_str()))
}

#[test]
fn help_lists_every_option() {
    let help = printed(&["--help"]);
    let security = printed(&["--security-help"]);
    // hdparm's usage text names neither guard flag; the man page and the guard refusals do.
    let guard_flags = [&defs::YES_I_KNOW, &defs::PLEASE_DESTROY];
    let mut missing = Vec::new();
    for def in OPTIONS.iter().filter(|d| d.role != Role::Obsolete) {
        let unlisted_by_hdparm = guard_flags.iter().any(|g| g.spelling() == def.spelling());
        if !(lists(&help, def) || lists(&security, def) || unlisted_by_hdparm) {
            missing.push(def.spelling());
        }
    }
    assert!(
        missing.is_empty(),
        "not in --help or --security-help: {missing:?}"
    );
}

#[test]
fn the_obsolete_letters_are_listed_as_hdparm_lists_them() {
    let help = printed(&["-h"]);
    for def in OPTIONS.iter().filter(|d| d.role == Role::Obsolete) {
        let line = format!("{}   Obsolete", def.spelling());
        assert!(help.lines().any(|l| l.trim_start() == line), "{line}");
    }
}
