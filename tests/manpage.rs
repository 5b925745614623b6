//! The man page (doc/hdparm.8) is checked against the option definitions (`src/cli/defs.rs`):
//! its OPTIONS section has one entry per option of hdparm 9.65 and its OPTIONS OF HDPARM-RS
//! section one per option of ours, no more; an entry shows an argument exactly when the option
//! takes a value, names the guard flags the option needs, and says whether it is built yet. The
//! exit statuses are documented.

use hdparm::cli::defs::{Guard, Origin, Role, Value, OPTIONS};
use std::collections::BTreeMap;

/// The option entries of one `.SH` section: the option spelled out, and the entry's text (the
/// `.B` line with its description).
fn entries(man: &str, section: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    let mut in_section = false;
    let mut current: Option<String> = None;
    for line in man.lines() {
        if let Some(title) = line.strip_prefix(".SH ") {
            in_section = title.replace("\\-", "-") == section;
            current = None;
            continue;
        }
        if !in_section {
            continue;
        }
        if let Some(rest) = line.strip_prefix(".B ") {
            let rest = rest.replace("\\-", "-");
            let option = rest.split_whitespace().next().unwrap_or("").to_string();
            if option.starts_with('-') {
                out.insert(option.clone(), rest.clone());
                current = Some(option);
                continue;
            }
        }
        if line == ".TP" {
            current = None;
        } else if let Some(option) = &current {
            if let Some(text) = out.get_mut(option) {
                text.push('\n');
                text.push_str(&line.replace("\\-", "-"));
            }
        }
    }
    out
}

fn man_page() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm.8"))
        .expect("doc/hdparm.8")
}

#[test]
fn man_page_lists_exactly_the_defined_options() {
    let man = man_page();
    for (section, origin) in [
        ("OPTIONS", Origin::Hdparm),
        ("OPTIONS OF HDPARM-RS", Origin::Ours),
    ] {
        let documented = entries(&man, section);
        let defined: Vec<String> = OPTIONS
            .iter()
            .filter(|d| d.origin == origin && d.role != Role::Obsolete)
            .map(|d| d.spelling())
            .collect();
        let missing: Vec<&String> = defined
            .iter()
            .filter(|o| !documented.contains_key(*o))
            .collect();
        let extra: Vec<&String> = documented.keys().filter(|o| !defined.contains(o)).collect();
        assert!(
            missing.is_empty() && extra.is_empty(),
            "{section}: not in the man page {missing:?}; in the man page but not defined {extra:?}"
        );
    }
}

#[test]
fn man_page_entries_show_values_and_guards_as_defined() {
    let man = man_page();
    let mut documented = entries(&man, "OPTIONS");
    documented.extend(entries(&man, "OPTIONS OF HDPARM-RS"));
    let mut wrong = Vec::new();
    for def in OPTIONS.iter().filter(|d| d.role != Role::Obsolete) {
        let spelled = def.spelling();
        let Some(text) = documented.get(&spelled) else {
            continue; // reported by the test above
        };
        let heading = text.lines().next().unwrap_or("");
        let shows_argument = heading.contains("\\fI");
        let takes_value = !matches!(def.value, Value::None);
        if shows_argument != takes_value {
            wrong.push(format!(
                "{spelled}: the heading `{heading}` and the definition disagree on the value"
            ));
        }
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
