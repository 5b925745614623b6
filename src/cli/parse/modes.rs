//! The readers of our modes' command lines (`--apply`, `--check`, `--experiment`,
//! `--surface`, `--advise`, `--prometheus`) and of the `--bench-*` values: each mode reads the
//! rest of the command line with its own small grammar, into its request.
//!
//! What this file must not do: touch the system, or run a mode; it returns the request.

use super::{checked_arm, message, no_dry_run, Outcome, Parser, Step};
use crate::cli::flags::*;
use std::ffi::OsString;
use std::path::PathBuf;

impl Parser<'_> {
    /// `--apply` / `--check` (ours): `[--config FILE] [--dry-run] [DEVICE...]`, the rest of the
    /// command line.
    pub(super) fn apply_request(&mut self, check: bool) -> Step<Outcome> {
        let mut request = ApplyRequest {
            check,
            dry_run: self.flags.dry_run,
            config: self
                .flags
                .apply_config
                .clone()
                .unwrap_or_else(|| PathBuf::from(DEFAULT_CONFIG)),
            json: self.flags.json,
            devices: Vec::new(),
        };
        while self.next < self.args.len() {
            let word = self.args[self.next].clone();
            self.next += 1;
            let lower = word.to_string_lossy().to_ascii_lowercase();
            match lower.as_str() {
                "--config" => {
                    let Some(file) = self.args.get(self.next).cloned() else {
                        return Err(message("--config: missing file name"));
                    };
                    self.next += 1;
                    request.config = PathBuf::from(file);
                }
                "--dry-run" => request.dry_run = true,
                "--json" => request.json = true,
                _ if lower.starts_with('-') => {
                    return Err(message(format!(
                        "{}: unknown flag after --{} (--config FILE, --dry-run and devices)",
                        word.to_string_lossy(),
                        if check { "check" } else { "apply" }
                    )))
                }
                _ => request.devices.push(word),
            }
        }
        if check && request.dry_run {
            return Err(no_dry_run(
                "--check",
                "it reads every setting back from the drive, with the commands a dry run never sends",
                "; `--apply --dry-run` shows what --apply would run",
            ));
        }
        self.word.clear();
        self.pos = 0;
        Ok(Outcome::Done(Invocation::Apply(request)))
    }

    /// `--experiment` (ours): the rest of the command line is its arms, its own options and,
    /// last, the device. Each arm is checked now, so nothing runs for a bad one.
    pub(super) fn experiment_request(&mut self) -> Step<Outcome> {
        let mut positional: Vec<String> = Vec::new();
        let mut request = ExperimentRequest {
            arms: Vec::new(),
            device: OsString::new(),
            measurement: Measurement::Buffered,
            trials: DEFAULT_TRIALS,
            keep: false,
            plot: None,
            json: self.flags.json,
            yes_i_know: self.flags.yes_i_know,
            please_destroy: self.flags.please_destroy,
            dry_run: self.flags.dry_run,
        };
        while self.next < self.args.len() {
            let word = self.args[self.next].to_string_lossy().into_owned();
            self.next += 1;
            let mut value = |what: &str| -> Step<String> {
                let Some(v) = self.args.get(self.next) else {
                    return Err(message(format!("--experiment: {word} needs {what}")));
                };
                self.next += 1;
                Ok(v.to_string_lossy().into_owned())
            };
            match word.to_ascii_lowercase().as_str() {
                "--trials" => {
                    let text = value("a number of trials")?;
                    request.trials = match text.parse::<u32>() {
                        Ok(n) if (2..=1000).contains(&n) => n,
                        _ => {
                            return Err(message(format!(
                                "--trials: expected 2 to 1000 trials per arm, got '{text}'"
                            )))
                        }
                    };
                }
                "--direct" => request.measurement = Measurement::Direct,
                "--bench" => {
                    let options = self.flags.bench.clone().unwrap_or_default();
                    request.measurement = Measurement::Bench(options);
                }
                "--keep" => request.keep = true,
                "--plot" => request.plot = Some(PathBuf::from(value("a file name")?)),
                "--json" => request.json = true,
                "--dry-run" => request.dry_run = true,
                _ => positional.push(word),
            }
        }
        let Some(device) = positional.pop() else {
            return Err(message(
                "--experiment: needs at least two arms and a device",
            ));
        };
        if positional.len() < 2 {
            return Err(message(
                "--experiment: needs at least two arms and a device",
            ));
        }
        request.device = OsString::from(device);
        for text in positional {
            request.arms.push(checked_arm(text)?);
        }
        self.word.clear();
        self.pos = 0;
        Ok(Outcome::Done(Invocation::Experiment(request)))
    }

    /// `--surface` (ours): `[--zones N] [--surface-quick] [--plot FILE] [--csv FILE] [--json]
    /// DEVICE`, the rest of the command line.
    pub(super) fn surface_request(&mut self, quick: bool) -> Step<Outcome> {
        let mut request = SurfaceRequest {
            device: OsString::new(),
            zones: DEFAULT_ZONES,
            quick,
            plot: None,
            csv: None,
            json: self.flags.json,
            dry_run: self.flags.dry_run,
        };
        let mut devices = Vec::new();
        while let Some(word) = self.args.get(self.next).cloned() {
            self.next += 1;
            let text = word.to_string_lossy().to_ascii_lowercase();
            match text.as_str() {
                "--zones" => {
                    let value = self.next_word_text().unwrap_or_default();
                    request.zones = match value.parse::<usize>() {
                        Ok(n) if (1..=10_000).contains(&n) => n,
                        _ => {
                            return Err(message(format!(
                                "--zones: expected 1 to 10000 zones, got '{value}'"
                            )))
                        }
                    };
                }
                "--surface-quick" => request.quick = true,
                "--json" => request.json = true,
                "--dry-run" => request.dry_run = true,
                "--plot" | "--csv" => {
                    let Some(file) = self.args.get(self.next).cloned() else {
                        return Err(message(format!("{text}: missing file name")));
                    };
                    self.next += 1;
                    if text == "--plot" {
                        request.plot = Some(PathBuf::from(file));
                    } else {
                        request.csv = Some(PathBuf::from(file));
                    }
                }
                _ if text.starts_with('-') => {
                    return Err(message(format!(
                        "{}: unknown flag after --surface (--zones N, --surface-quick, --plot FILE, --csv FILE, --json, --dry-run and one device)",
                        word.to_string_lossy()
                    )))
                }
                _ => devices.push(word),
            }
        }
        if devices.len() != 1 {
            return Err(message("--surface: needs one device"));
        }
        request.device = devices.remove(0);
        self.word.clear();
        self.pos = 0;
        Ok(Outcome::Done(Invocation::Surface(request)))
    }

    /// `--advise` (ours): `[--wake] [--json] [DEVICE...]`, the rest of the command line.
    pub(super) fn advise_request(&mut self) -> Step<Outcome> {
        const WHAT: &str =
            "it reads each drive (IDENTIFY, SMART) with commands a dry run never sends";
        if self.flags.dry_run {
            return Err(no_dry_run("--advise", WHAT, ""));
        }
        let mut request = AdviseRequest {
            wake: false,
            json: self.flags.json,
            devices: Vec::new(),
        };
        while let Some(word) = self.args.get(self.next).cloned() {
            self.next += 1;
            let text = word.to_string_lossy().to_ascii_lowercase();
            match text.as_str() {
                "--wake" => request.wake = true,
                "--json" => request.json = true,
                "--dry-run" => return Err(no_dry_run("--advise", WHAT, "")),
                _ if text.starts_with('-') => {
                    return Err(message(format!(
                        "{}: unknown flag after --advise (--wake, --json and devices)",
                        word.to_string_lossy()
                    )))
                }
                _ => request.devices.push(word),
            }
        }
        self.word.clear();
        self.pos = 0;
        Ok(Outcome::Done(Invocation::Advise(request)))
    }

    /// The next argv word as text, taken (None at the end of the command line).
    pub(super) fn next_word_text(&mut self) -> Option<String> {
        let word = self.args.get(self.next)?.to_string_lossy().into_owned();
        self.next += 1;
        Some(word)
    }

    /// `--prometheus` (ours): `[FILE] [--no-wake] [DEVICE...]`, the rest of the command line. A
    /// first word that does not start with `/dev/` is FILE.
    pub(super) fn prometheus_request(&mut self) -> Step<Outcome> {
        let refusal = || {
            no_dry_run(
                "--prometheus",
                "it asks each drive its state (CHECK POWER MODE, IDENTIFY, SMART) with commands a dry run never sends, and -t reads and flushes",
                "; without FILE the metrics go to standard output, and no file is written",
            )
        };
        if self.flags.dry_run {
            return Err(refusal());
        }
        let mut request = PrometheusRequest {
            file: None,
            no_wake: false,
            time_device: self.flags.time_device,
            devices: Vec::new(),
        };
        let mut first = true;
        while self.next < self.args.len() {
            let word = self.args[self.next].clone();
            self.next += 1;
            let text = word.to_string_lossy().into_owned();
            if text.eq_ignore_ascii_case("--no-wake") {
                request.no_wake = true;
            } else if text.eq_ignore_ascii_case("--dry-run") {
                return Err(refusal());
            } else if text == "-t" {
                request.time_device = true;
            } else if text.starts_with('-') {
                return Err(message(format!(
                    "{text}: unknown flag after --prometheus (FILE, --no-wake, -t and devices)"
                )));
            } else if first && !text.starts_with("/dev/") {
                request.file = Some(PathBuf::from(word));
            } else {
                request.devices.push(word);
            }
            first = false;
        }
        self.word.clear();
        self.pos = 0;
        Ok(Outcome::Done(Invocation::Prometheus(request)))
    }

    /// A `--bench-*` setting (ours): the next word is its value, and it implies `--bench`.
    pub(super) fn bench_setting(
        &mut self,
        typed: &str,
        store: fn(&mut crate::timing::bench::BenchOptions, &str) -> Result<(), String>,
    ) -> Step<Outcome> {
        let lower = typed.to_ascii_lowercase();
        let value = self
            .peek_word()
            .map(|w| String::from_utf8_lossy(&w).into_owned());
        let Some(value) = value.filter(|_| self.remaining() > 1) else {
            return Err(message(format!("--{lower}: missing value")));
        };
        self.take_next_word();
        self.pos = self.word.len();
        let options = self.flags.bench.get_or_insert_with(Default::default);
        store(options, &value).map_err(message)?;
        Ok(Outcome::Continue)
    }
}
