//! The man page, doc/hdparm.8, generated (`hdparm --generate man`): the text around the
//! options is constant (`man/before-options.8`, `man/after-options.8`), and every option entry
//! comes from its definition's [`ManEntry`](super::defs::ManEntry), so an option is documented
//! where it is defined. `tests/manpage.rs` fails when the checked-in page differs from this.
//!
//! The OPTIONS section lists hdparm's options as hdparm's own page does: the letters in usage
//! order, then the long options alphabetically (case ignored). OPTIONS OF HDPARM-RS lists ours
//! in `--help`'s order. The obsolete letters, which have no entry, are left out.
//!
//! What this file must not do: touch the system; it returns text.

use super::defs::{OptionDef, Origin, OPTIONS};

/// The page up to and including `.SH OPTIONS`; `@VERSION@` in its title line is ours.
const BEFORE_OPTIONS: &str = include_str!("man/before-options.8");
/// The sections after the options, from `.SH NVME` on.
const AFTER_OPTIONS: &str = include_str!("man/after-options.8");
/// The head of our options' section.
const OURS_HEADING: &str = ".SH OPTIONS OF HDPARM\\-RS\nThese options are not in hdparm 9.65.\n";

/// The options of one origin that have an entry, in the page's order.
fn documented(origin: Origin) -> Vec<&'static OptionDef> {
    let mut defs: Vec<&'static OptionDef> = OPTIONS
        .iter()
        .copied()
        .filter(|d| d.origin == origin && d.man.is_some())
        .collect();
    if origin == Origin::Hdparm {
        // Letters first, in usage order (the sort is stable), then long names alphabetically.
        defs.sort_by_key(|d| match (d.short, d.long) {
            (Some(_), _) => (0, String::new()),
            (None, long) => (1, long.unwrap_or_default().to_ascii_lowercase()),
        });
    }
    defs
}

/// A spelling in roff: each `-` is a minus (`\-`), not a hyphen.
fn roff_spelling(def: &OptionDef) -> String {
    def.spelling().replace('-', "\\-")
}

/// One entry: `.TP`, the spelling in bold with its argument in italics, and the text.
fn write_entry(page: &mut String, def: &OptionDef) {
    let Some(entry) = def.man else {
        return;
    };
    page.push_str(".TP\n.B ");
    page.push_str(&roff_spelling(def));
    if !entry.argument.is_empty() {
        page.push_str(&format!(" \\fI{}\\fR", entry.argument));
    }
    page.push('\n');
    page.push_str(entry.text);
    page.push('\n');
}

/// The whole of doc/hdparm.8.
pub fn page() -> String {
    let mut page = BEFORE_OPTIONS.replacen("@VERSION@", env!("CARGO_PKG_VERSION"), 1);
    for def in documented(Origin::Hdparm) {
        write_entry(&mut page, def);
    }
    page.push_str(OURS_HEADING);
    for def in documented(Origin::Ours) {
        write_entry(&mut page, def);
    }
    page.push_str(AFTER_OPTIONS);
    page
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::defs::Role;

    #[test]
    fn every_option_but_the_obsolete_has_an_entry() {
        for def in OPTIONS {
            assert_eq!(
                def.man.is_none(),
                def.role == Role::Obsolete,
                "{}",
                def.spelling()
            );
        }
    }

    #[test]
    fn an_entry_is_a_tagged_paragraph_with_the_spelling_in_bold() {
        let page = page();
        assert!(page.contains(".TP\n.B \\-a \\fI[N]\\fR\nGet or set the filesystem read\\-ahead"));
        assert!(page.contains(".TP\n.B \\-\\-Istdin\nDecode IDENTIFY data"));
        assert!(page.ends_with(".BR fio (1)\n"));
    }
}
