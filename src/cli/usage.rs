//! hdparm's help texts: the usage (`-h` and usage errors) and the security help.
//!
//! These are program output that scripts and users compare against hdparm 9.65, so they are
//! kept byte for byte, but for `-h`'s header, which names the program that runs, and its one
//! closing line (DIFFERENCES.md: cli:help-header); `--help` (which hdparm 9.65 rejects as an unknown flag) adds our own
//! options after hdparm's list. The option lines come from the definitions (`defs.rs`): their
//! `usage` lines for `-h`, their `security_help` lines for `--security-help`, whose layout is here.

use super::defs::{self, OptionDef, Origin, OPTIONS};
use std::io::{self, Write};

/// What `--help` adds after our options' lines.
const EXTENSION_TRAILER: &[&str] = &[
    "",
    "The hdparm 2.0 form is accepted too: 'hdparm DEVICE [MULTCOUNT [UNMASK]]' sets the",
    "multiple-sector count and the unmask-irq flag, and 'hdparm DEVICE' shows the settings.",
];

/// The usage lines of the options of one origin, in definition order.
fn usage_lines(origin: Origin) -> impl Iterator<Item = &'static OptionDef> {
    OPTIONS
        .iter()
        .copied()
        .filter(move |d| d.origin == origin && d.usage.is_some())
}

/// The header of `-h` and `--help`: it names the program that runs, as `-V` does. A usage
/// error keeps hdparm's own header, byte for byte (scripts compare that stderr).
fn help_header(program: &str) -> String {
    format!(
        "{program} - get/set hard disk parameters - hdparm-rs v{}, compatible with hdparm v{HDPARM_VERSION} by Mark Lord.",
        env!("CARGO_PKG_VERSION")
    )
}

/// The hdparm release whose grammar, output and wire commands we reproduce.
pub const HDPARM_VERSION: &str = "9.65";

/// What `-V` prints (DIFFERENCES.md: cli:version): hdparm's own form, `hdparm v9.65`, read as
/// 9.65 by the scripts that check it, with a `.0` and our name and version after it. The `.0`
/// is for OCS Inventory's agent, whose check `^hdparm v(\d+)\.(\d+)(\.|$)` wants a dot or
/// the end of the output after the minor number; hdparm's wiper.sh (awk on the second word,
/// `gsub("[^0-9.]","")`, then times 100) reads 965, GLPI's and FusionInventory's
/// `^hdparm v(\d+)\.(\d+)` read 9 and 65.
pub fn version_line(program: &str) -> String {
    format!(
        "{program} v{HDPARM_VERSION}.0 (hdparm-rs {})",
        env!("CARGO_PKG_VERSION")
    )
}

/// The line `-h` ends with, pointing to our own options.
pub const HELP_CLOSING_LINE: &str = "hdparm-rs has options of its own too: see --help.";

/// Writes the usage text. `clue` is printed for usage errors (stderr), which keep hdparm's
/// header; `-h` and `--help` (no clue) name hdparm-rs.
pub fn write_usage(
    out: &mut dyn Write,
    program: &str,
    clue: Option<u8>,
    extended: bool,
) -> io::Result<()> {
    let header = match clue {
        Some(_) => {
            format!("{program} - get/set hard disk parameters - version v{HDPARM_VERSION}, by Mark Lord.")
        }
        None => help_header(program),
    };
    write!(out, "\n{header}\n\n")?;
    if let Some(clue) = clue {
        writeln!(out, "clue={clue}")?;
    }
    write!(out, "Usage:  {program}  [options] [device ...]\n\n")?;
    writeln!(out, "Options:")?;
    // hdparm's option lines byte for byte, in -h and --help alike.
    for def in usage_lines(Origin::Hdparm) {
        writeln!(out, "{}", def.usage.unwrap_or_default())?;
    }
    if extended {
        writeln!(out, "\nOptions of hdparm-rs (not in hdparm 9.65):")?;
        for def in usage_lines(Origin::Ours) {
            writeln!(out, "{}", def.usage.unwrap_or_default())?;
        }
        for line in EXTENSION_TRAILER {
            writeln!(out, "{line}")?;
        }
    } else if clue.is_none() {
        writeln!(out, "\n{HELP_CLOSING_LINE}")?;
    }
    writeln!(out)
}

/// One piece of `--security-help`: a line of its own, or an option's lines from its definition.
enum SecurityPart {
    Line(&'static str),
    Option(&'static OptionDef),
}

use SecurityPart::{Line, Option as Opt};

/// The layout of `--security-help` (stdout, exit 0) and of a bad security letter (stderr, 22):
/// hdparm's header and groups, each option's lines from its definition.
const SECURITY_HELP: &[SecurityPart] = &[
    Line(""),
    Line("ATA Security Commands:"),
    Line(" Most of these are VERY DANGEROUS and can destroy all of your data!"),
    Line(" Due to bugs in older Linux kernels, use of these commands may even"),
    Line(" trigger kernel segfaults or worse.  EXPERIMENT AT YOUR OWN RISK!"),
    Line(""),
    Opt(&defs::SECURITY_FREEZE),
    Line(""),
    Opt(&defs::SECURITY_SET_PASS),
    Opt(&defs::SECURITY_PROMPT),
    Line(""),
    Opt(&defs::SECURITY_UNLOCK),
    Opt(&defs::SECURITY_DISABLE),
    Opt(&defs::SECURITY_ERASE),
    Opt(&defs::SECURITY_ERASE_ENHANCED),
    Line(""),
    Line(" The above four commands may optionally be preceded by these options:"),
    Opt(&defs::SECURITY_MODE),
    Opt(&defs::USER_MASTER),
];

/// Writes the security help.
pub fn write_security_help(out: &mut dyn Write) -> io::Result<()> {
    for part in SECURITY_HELP {
        match part {
            Line(line) => writeln!(out, "{line}")?,
            Opt(def) => writeln!(out, "{}", def.security_help.unwrap_or_default())?,
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every option with security help lines is in the layout once, and only those.
    #[test]
    fn the_security_help_shows_every_option_that_has_lines_once() {
        for def in OPTIONS {
            let shown = SECURITY_HELP
                .iter()
                .filter(|p| matches!(p, Opt(d) if d.spelling() == def.spelling()))
                .count();
            assert_eq!(
                shown,
                usize::from(def.security_help.is_some()),
                "{}",
                def.spelling()
            );
        }
    }

    /// hdparm 9.65's text, byte for byte (tests/differential_args.rs compares it with the
    /// real hdparm where one is installed).
    #[test]
    fn the_security_help_is_hdparms() {
        let mut out = Vec::new();
        write_security_help(&mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(text.starts_with("\nATA Security Commands:\n"));
        assert!(text.contains(
            " --security-set-pass PASSWD  Lock drive, using password PASSWD:\n                                  Use 'NULL' to set empty password.\n"
        ));
        assert!(text.ends_with(
            " --user-master    WHICH      Use WHICH to choose password type:\n                                  u   user-password (default).\n                                  m   master-password\n"
        ));
        assert_eq!(text.lines().count(), 25);
    }
}
