//! Running this program's own words in-process (`-B DEV`, `-a 8 DEV`...), for the modes that
//! drive a device through the same steps a command line would (`--apply`'s lines and
//! read-backs, `--experiment`'s reads and sets): the exit status and both streams as text, and
//! the settings items the steps produced as values, so that a caller that needs a number reads
//! it from the typed item ([`SettingsItem::number`]) and never parses our printed text.
//!
//! Must not: differ from the command line. A per-device run goes through the same
//! [`devices::run_devices`] as `run`'s text mode; anything else is `run` itself (and then has no
//! items).

use crate::cli::{self, Invocation};
use crate::exec::{devices, prompt, Output};
use crate::report::settings::SettingsItem;
use std::ffi::OsString;
use std::io::Write;

/// What one in-process run gave.
#[derive(Clone, Debug, Default)]
pub struct WordsRun {
    pub exit_status: u8,
    pub stdout: String,
    pub stderr: String,
    /// The settings items of the run's devices, in order (empty when the words were not a
    /// per-device text run).
    pub items: Vec<SettingsItem>,
}

impl WordsRun {
    /// The number the run's first get read (`-B DEV`: the APM level), if it read one.
    pub fn number(&self) -> Option<i64> {
        self.items
            .iter()
            .find(|item| !matches!(item, SettingsItem::Set { .. }))
            .and_then(SettingsItem::number)
    }
}

/// Runs `hdparm WORDS...` with no standard input and in-memory streams.
pub fn run_words(words: &[String]) -> WordsRun {
    let argv: Vec<OsString> = std::iter::once("hdparm".to_string())
        .chain(words.iter().cloned())
        .map(OsString::from)
        .collect();
    let mut stdout = Vec::new();
    let mut stderr = Vec::new();
    let mut items = Vec::new();
    let parsed = cli::parse(&argv);
    let exit_status = match parsed.result {
        Ok(Invocation::Devices(runs))
            if !crate::exec::wants_json(&argv) && !runs.iter().any(|r| r.flags.json) =>
        {
            // As `run`'s text mode does for a per-device invocation.
            for line in &parsed.stdout_lines {
                let _ = writeln!(stdout, "{line}");
            }
            for line in &parsed.stderr_lines {
                let _ = writeln!(stderr, "{line}");
            }
            let mut out = Output::new(
                false,
                crate::exec::argv_strings(&argv),
                &mut stdout,
                &mut stderr,
            );
            out.keep_items();
            devices::run_devices(&runs, &mut out);
            prompt::forget();
            let (status, kept) = out.finish_keeping();
            items = kept;
            status
        }
        _ => {
            let mut no_input = std::io::empty();
            crate::exec::run(
                &argv,
                crate::Streams::new(&mut no_input, &mut stdout, &mut stderr),
            )
        }
    };
    WordsRun {
        exit_status,
        stdout: String::from_utf8_lossy(&stdout).into_owned(),
        stderr: String::from_utf8_lossy(&stderr).into_owned(),
        items,
    }
}
