//! The man page (doc/hdparm.8) is generated from the option definitions (`src/cli/defs.rs`,
//! `hdparm --generate man`): the checked-in page must be what the binary prints, each entry
//! shows an argument exactly when the option takes a value, names the guard flags the option
//! needs, and does not say it is unbuilt; groff reads it without a warning (Debian's man-db and
//! lintian read it with groff). The exit statuses are documented.

mod common;

use hdparm::cli::defs::{Guard, Role, Value, OPTIONS};
use std::io::Write;
use std::process::{Command, Stdio};

fn man_page() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm.8"))
        .expect("doc/hdparm.8")
}

#[test]
fn man_page_is_the_generated_one() {
    let out = Command::new(env!("CARGO_BIN_EXE_hdparm"))
        .args(["--generate", "man"])
        .output()
        .expect("run hdparm --generate man");
    assert!(out.status.success() && out.stderr.is_empty(), "{out:?}");
    let generated = String::from_utf8(out.stdout).expect("UTF-8");
    let checked_in = man_page();
    if generated != checked_in {
        let line = generated
            .lines()
            .zip(checked_in.lines())
            .position(|(a, b)| a != b)
            .map_or(
                generated.lines().count().min(checked_in.lines().count()),
                |i| i,
            );
        panic!(
            "doc/hdparm.8 is stale (first difference at line {}): an option's entry lives in its \
             definition (src/cli/defs.rs, .man_page), the rest of the page in src/cli/man/; \
             regenerate it with `cargo run -q -- --generate man > doc/hdparm.8`",
            line + 1
        );
    }
}

/// groff, with every warning on, has nothing to say about the page (an entry's roff lives in
/// Rust strings, where a stray escape is easy to miss). lintian, which the package tests run,
/// pulls groff in through man-db.
#[test]
fn groff_reads_the_page_without_a_warning() {
    let test = "groff_reads_the_page_without_a_warning";
    let child = Command::new("groff")
        .args(["-man", "-Tutf8", "-ww", "-z"])
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn();
    let Ok(mut child) = child else {
        common::skip(test, "groff is missing: apt-get install groff-base");
        return;
    };
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(man_page().as_bytes())
        .expect("write to groff");
    let out = child.wait_with_output().expect("groff");
    let warnings = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && warnings.is_empty(),
        "groff -man -ww on doc/hdparm.8: {warnings}"
    );
}

#[test]
fn man_page_entries_show_values_and_guards_as_defined() {
    let mut wrong = Vec::new();
    for def in OPTIONS.iter().filter(|d| d.role != Role::Obsolete) {
        let spelled = def.spelling();
        let Some(entry) = def.man else {
            wrong.push(format!("{spelled}: no man page entry"));
            continue;
        };
        let shows_argument = !entry.argument.is_empty();
        let takes_value = !matches!(def.value, Value::None);
        if shows_argument != takes_value {
            wrong.push(format!(
                "{spelled}: the entry's argument `{}` and the definition disagree on the value",
                entry.argument
            ));
        }
        let text = entry.text.replace("\\-", "-");
        // Every option is carried out: no entry may say otherwise.
        if text.contains("not built in hdparm-rs yet") || text.contains("Not built in hdparm") {
            wrong.push(format!("{spelled}: the entry says it is not built"));
        }
        let needs = match def.guard {
            Guard::None => &[][..],
            Guard::YesIKnow => &["--yes-i-know-what-i-am-doing"][..],
            Guard::PleaseDestroy => &["--please-destroy-my-drive"][..],
            Guard::Both => &["--yes-i-know-what-i-am-doing", "--please-destroy-my-drive"][..],
        };
        for guard in needs {
            if !text.contains(guard) {
                wrong.push(format!(
                    "{spelled}: the entry does not say it needs {guard}"
                ));
            }
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn man_page_and_readme_document_every_exit_class_of_the_table() {
    let man = man_page();
    let section = &man[man.find(".SH EXIT STATUS").expect("EXIT STATUS")..];
    let section = &section[..section[4..]
        .find(".SH ")
        .map_or(section.len(), |end| end + 4)];
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md"))
        .expect("README.md");
    let mut wrong = Vec::new();
    for (class, _) in hdparm::error::ErrorClass::table() {
        let status = match class {
            hdparm::error::ErrorClass::Stopped(_) => "128+N".to_string(),
            other => other.exit_status().to_string(),
        };
        // The man entry names the status and the class as JSON messages spell it.
        let entry = format!(".BR {status} \" (");
        let Some(at) = section.find(&entry) else {
            wrong.push(format!("man: no entry for exit status {status}"));
            continue;
        };
        let line = &section[at..section[at..].find('\n').map_or(section.len(), |e| at + e)];
        if !line.contains(class.name()) {
            wrong.push(format!(
                "man: exit status {status} does not name {}",
                class.name()
            ));
        }
        let row = format!("| {status} | ");
        match readme.lines().find(|l| l.starts_with(&row)) {
            Some(line) if line.contains(class.name()) => {}
            _ => wrong.push(format!("README: no row {status} naming {}", class.name())),
        }
    }
    if !section.contains(".B 0\n") {
        wrong.push("man: exit status 0 not documented".into());
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
