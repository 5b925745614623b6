//! The parser's readers for the options whose definitions name one ([`Reader`]): what an
//! option reads beyond a flag or a decimal into a field, and where the value goes. The
//! definitions (`cli::defs`) are data and only name the reader; its code is here, with the
//! parser it drives.
//!
//! What this file must not do: touch the system (`--fibmap`, `--fallocate`, `--Istdin` come
//! back as invocations for the caller to run).

use super::{message, no_dry_run, usage, IdentifyOutput, Outcome, Parser, Step};
use crate::cli::complete::SHELLS;
use crate::cli::defs::{OptionDef, Reader};
use crate::cli::flags::*;

impl Parser<'_> {
    /// Reads one option with the reader its definition names. `typed` is the long name as the
    /// user typed it (some error messages show it).
    pub(super) fn read_with(
        &mut self,
        reader: Reader,
        def: &OptionDef,
        typed: &str,
    ) -> Step<Outcome> {
        match reader {
            Reader::Help { extended } => Ok(Outcome::Done(Invocation::Help { extended })),
            Reader::Version => Ok(Outcome::Done(Invocation::Version)),
            Reader::SecurityHelp => Ok(Outcome::Done(Invocation::SecurityHelp)),
            Reader::IdentifyDecode => {
                self.set_identify_output(IdentifyOutput::Decode);
                self.end_quiet();
                Ok(Outcome::Continue)
            }
            Reader::IdentifyHex => {
                self.set_identify_output(IdentifyOutput::Hex);
                Ok(Outcome::Continue)
            }
            Reader::IdentifyRaw => {
                let path = self.filename(typed)?;
                self.set_identify_output(IdentifyOutput::Raw(path));
                Ok(Outcome::Continue)
            }
            Reader::Quiet => {
                self.flags.quiet = true;
                self.noisy = false;
                Ok(Outcome::Continue)
            }
            Reader::MaxSectors => self.max_sectors(def, typed),
            Reader::TransferMode(field) => self.set_transfer_mode(def, field),
            Reader::Number(field) => {
                *field(&mut self.flags) = self.number(def, typed)?.0;
                Ok(Outcome::Continue)
            }
            Reader::MakeBadSector => {
                let (v, flagged) = self.number(def, typed)?;
                self.flags.make_bad_sector = v.map(|lba| (lba, flagged));
                Ok(Outcome::Continue)
            }
            Reader::Fallocate => self.fallocate(typed),
            Reader::Fibmap => self.fibmap(typed),
            Reader::Istdin => self.istdin(),
            Reader::Fwdownload(mode) => self.set_fwdownload(mode, typed),
            Reader::Sanitize(command) => self.set_sanitize(command),
            Reader::SanitizeOverwrite => {
                let pattern = self.overwrite_pattern()?;
                self.set_sanitize(SanitizeCommand::Overwrite { pattern })
            }
            Reader::SanitizeOverwritePasses => self.sanitize_passes(def, typed),
            Reader::SanitizeStatus => {
                // Our `--wait` may follow it (no other flag may: it is standalone).
                if self.take_word_if(b"--wait") {
                    self.flags.sanitize_wait = true;
                }
                self.set_sanitize(SanitizeCommand::Status)
            }
            Reader::TrimRanges => {
                let ranges = self.trim_ranges(typed)?;
                self.flags.trim_ranges = if ranges.is_empty() {
                    None
                } else {
                    Some(ranges)
                };
                Ok(Outcome::Continue)
            }
            Reader::SecurityLetter => self.security_letter(def),
            Reader::Security(command) => self.set_security(command),
            Reader::PasswordFile => {
                let path = self.filename(typed)?;
                self.flags.security_password_file = Some(path);
                Ok(Outcome::Continue)
            }
            Reader::Bench => {
                self.flags.bench.get_or_insert_with(Default::default);
                Ok(Outcome::Continue)
            }
            Reader::BenchRandom => {
                self.flags.bench.get_or_insert_with(Default::default).random = true;
                Ok(Outcome::Continue)
            }
            Reader::BenchSetting(store) => self.bench_setting(typed, store),
            Reader::Apply { check } => self.apply_request(check),
            Reader::Config => {
                let path = self.filename(typed)?;
                self.flags.apply_config = Some(path);
                Ok(Outcome::Continue)
            }
            Reader::Experiment => self.experiment_request(),
            Reader::Prometheus => self.prometheus_request(),
            Reader::Generate => self.generate(),
            Reader::Advise => self.advise_request(),
            Reader::Surface { quick } => self.surface_request(quick),
        }
    }

    /// `-N [p]COUNT`: get, and set when a count is given; `p` makes it permanent.
    fn max_sectors(&mut self, def: &OptionDef, typed: &str) -> Step<Outcome> {
        let noisy = self.take_noisy();
        let (value, permanent) = self.number(def, typed)?;
        let f = &mut self.flags;
        f.max_sectors.get = noisy;
        f.max_sectors_permanent = permanent;
        f.max_sectors.set = value.is_some();
        if let Some(v) = value {
            f.max_sectors.value = v;
        }
        Ok(Outcome::Continue)
    }

    /// `--fallocate KiB FILE`: alone on its command line (clue 4).
    fn fallocate(&mut self, typed: &str) -> Step<Outcome> {
        let (kib, _) = self.u64_parm(false, None, 0, 1 << 53, typed, "bad/missing block-count")?;
        let path = self.filename(typed)?;
        if self.num_flags != 0 || self.remaining() > 0 {
            return Err(usage(4));
        }
        Ok(Outcome::Done(Invocation::Fallocate {
            kib: kib.unwrap_or(0),
            path,
            dry_run: self.flags.dry_run,
        }))
    }

    /// `--fibmap FILE`: alone on its command line (clue 5), and no dry run.
    fn fibmap(&mut self, typed: &str) -> Step<Outcome> {
        let path = self.filename(typed)?;
        if self.num_flags != 0 || self.remaining() > 0 {
            return Err(usage(5));
        }
        if self.flags.dry_run {
            return Err(no_dry_run(
                "--fibmap",
                "it reads where the file lies (FIEMAP, or FIBMAP block by block)",
                "",
            ));
        }
        Ok(Outcome::Done(Invocation::Fibmap { path }))
    }

    /// `--Istdin`: the last word (clue 2), and no dry run.
    fn istdin(&mut self) -> Step<Outcome> {
        if self.remaining() > 0 {
            return Err(usage(2));
        }
        if self.flags.dry_run {
            return Err(no_dry_run(
                "--Istdin",
                "it only decodes what standard input holds",
                "",
            ));
        }
        Ok(Outcome::Done(Invocation::IdentifyStdin {
            json: self.flags.json,
        }))
    }

    /// `--sanitize-overwrite-passes COUNT`: any failure gets the one message, as hdparm's own
    /// check prints it.
    fn sanitize_passes(&mut self, def: &OptionDef, typed: &str) -> Step<Outcome> {
        let passes = self.number(def, typed).ok().and_then(|(v, _)| v);
        let Some(passes) = passes else {
            return Err(message(format!(
                "  {typed}: Number of passes must be in range 0..7"
            )));
        };
        self.flags.sanitize_passes = passes as u32;
        Ok(Outcome::Continue)
    }

    /// `--generate complete-SHELL|man|schema` (ours).
    fn generate(&mut self) -> Step<Outcome> {
        let word = self.next_word_text();
        match word.as_deref() {
            Some("man") => return Ok(Outcome::Done(Invocation::ManPage)),
            Some("schema") => return Ok(Outcome::Done(Invocation::Schema)),
            _ => {}
        }
        let shell = word.as_deref().and_then(|w| w.strip_prefix("complete-"));
        match shell.filter(|s| SHELLS.contains(s)) {
            Some(shell) => Ok(Outcome::Done(Invocation::Completions {
                shell: shell.to_string(),
            })),
            None => Err(message(format!(
                "--generate: expected complete-bash, complete-zsh, complete-fish, man or schema, got '{}'",
                word.unwrap_or_default()
            ))),
        }
    }
}
