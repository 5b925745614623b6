//! `-q` under `--json`: quiet hides text, it does not drop data.
//!
//! In hdparm's grammar `-q` makes the next option quiet, and a quiet get/set option records no
//! get at all (`-q -a` asks for nothing, `-q -a128` sets without the "setting" line or the
//! read-back). In text that is hdparm's contract and stays so. In JSON the values the command
//! line names are data: `--json -q -a DEV` reports the read-ahead, and a quiet set is still
//! recorded with its outcome.
//!
//! The parser (`cli`) keeps no trace of an option made quiet, so this file parses the command
//! line a second time without its `-q` letters and takes from that parse only the "asked for
//! aloud" bits (`get`, `noisy`). Every value, path and password still comes from the parse of
//! the command line as typed, so a `q` stripped from a value by mistake changes nothing that is
//! sent; when the second parse does not give the same devices, the first is used unchanged.
//!
//! Must not: change anything in text mode (it is called only with `--json`).

use crate::cli::defs::{Apply, OPTIONS};
use crate::cli::{self, DeviceRun, Flags, Invocation};
use std::ffi::OsString;

/// The runs to carry out under `--json`: `runs` with every option the command line names
/// marked as asked for aloud.
pub fn loud_for_json(args: &[OsString], mut runs: Vec<DeviceRun>) -> Vec<DeviceRun> {
    let loud = match cli::parse(&without_quiet(args)).result {
        Ok(Invocation::Devices(loud)) => loud,
        _ => Vec::new(),
    };
    let same_devices =
        loud.len() == runs.len() && loud.iter().zip(&runs).all(|(l, r)| l.path == r.path);
    for run in &mut runs {
        // The header and the few messages `-q` anywhere silences are text.
        run.flags.quiet = false;
    }
    if same_devices {
        for (run, mut loud) in runs.iter_mut().zip(loud) {
            merge_loud(&mut run.flags, &mut loud.flags);
        }
    }
    runs
}

/// argv with the `q` letters of its short-option clusters removed (up to `--`, after which
/// every word is a device). A `-` inside a cluster starts a long name, which is kept whole.
fn without_quiet(args: &[OsString]) -> Vec<OsString> {
    let mut out = Vec::with_capacity(args.len());
    let mut devices_only = false;
    for (i, arg) in args.iter().enumerate() {
        let word = arg.to_string_lossy();
        if i == 0 || devices_only || !word.starts_with('-') || word.starts_with("--") {
            devices_only |= i > 0 && word == "--";
            out.push(arg.clone());
            continue;
        }
        let cluster_end = word[1..].find('-').map_or(word.len(), |at| at + 1);
        let mut stripped: String = word[..cluster_end].chars().filter(|&c| c != 'q').collect();
        stripped.push_str(&word[cluster_end..]);
        if stripped != "-" {
            out.push(OsString::from(stripped));
        }
    }
    out
}

/// Copies the "asked for aloud" bits of `loud` into `flags`, through the option definitions.
fn merge_loud(flags: &mut Flags, loud: &mut Flags) {
    for def in OPTIONS {
        match def.apply {
            Apply::GetSet(field) => {
                let get = field(loud).get;
                field(flags).get |= get;
            }
            Apply::SetOnly(field) => {
                let noisy = field(loud).noisy;
                field(flags).noisy |= noisy;
            }
            Apply::PlainSet(field) => {
                let noisy = field(loud).noisy;
                field(flags).noisy |= noisy;
            }
            _ => {}
        }
    }
    // The options whose definitions read their own values (`-N`, `-p`, `-X`).
    flags.max_sectors.get |= loud.max_sectors.get;
    flags.pio_mode.noisy |= loud.pio_mode.noisy;
    flags.xfer_mode.noisy |= loud.xfer_mode.noisy;
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(words: &[&str]) -> Vec<OsString> {
        words.iter().map(OsString::from).collect()
    }

    fn runs(words: &[&str]) -> Vec<DeviceRun> {
        match cli::parse(&args(words)).result {
            Ok(Invocation::Devices(runs)) => runs,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn quiet_letters_go_values_and_long_names_stay() {
        let got = without_quiet(&args(&[
            "hdparm", "-q", "-qa128", "-aq", "--Iraw", "-x-quiet", "--", "-q",
        ]));
        assert_eq!(
            got,
            args(&["hdparm", "-a128", "-a", "--Iraw", "-x-quiet", "--", "-q"])
        );
    }

    #[test]
    fn a_quiet_get_is_asked_for_in_json() {
        let words = ["hdparm", "--json", "-q", "-a", "-q", "-W1", "/dev/x"];
        let quiet = runs(&words);
        assert!(!quiet[0].flags.readahead.get);
        let loud = loud_for_json(&args(&words), quiet);
        assert!(loud[0].flags.readahead.get);
        assert!(loud[0].flags.write_cache.get && loud[0].flags.write_cache.set);
        assert_eq!(loud[0].flags.write_cache.value, 1);
        assert!(!loud[0].flags.quiet);
        // `-q` before the device does not turn on the default report.
        assert!(!loud[0].flags.defaults);
    }

    #[test]
    fn quiet_actions_are_noisy_in_json() {
        let words = ["hdparm", "--json", "-qy", "-q", "-S5", "/dev/x", "/dev/y"];
        let loud = loud_for_json(&args(&words), runs(&words));
        assert_eq!(loud.len(), 2);
        for run in &loud {
            assert!(run.flags.standby_now.noisy && run.flags.standby.noisy);
            assert_eq!(run.flags.standby.value, 5);
        }
    }
}
