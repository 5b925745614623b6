//! The real [`Settings`] and [`Trials`] of `--experiment`: each runs this program's own
//! options through [`crate::exec::run_words`] with in-memory streams (`-a DEV` to read, `-a 8 DEV` to
//! set, `--json -t DEV` to measure), so that an arm does exactly what the same words do on the
//! command line, guards, messages and all. `--bench` is called directly, one bench trial per
//! experiment trial, because its own trial count is not an arm's business.
//!
//! Must not: decide the order, judge results, or print; the loop in `mod.rs` does that.

use super::{Settings, Trials};
use crate::cli::{ExperimentRequest, Flags, Measurement};
use crate::exec::run_words;
use crate::report::experiment::Setting;
use std::path::PathBuf;

/// Why a run failed, in one line.
fn failure(status: u8, stderr: &str) -> String {
    let line = stderr
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("no message");
    format!("exit {status}: {line}")
}

/// The mode IDENTIFY marks as selected in `-I`'s text: the `*`-marked word of the `DMA:`
/// line, else of the `PIO:` line (`*udma5`, `*pio4`).
pub fn selected_xfer_mode(identify_text: &str) -> Option<String> {
    let marked = |prefix: &str| {
        identify_text
            .lines()
            .map(str::trim_start)
            .filter(|l| l.starts_with(prefix))
            .flat_map(str::split_whitespace)
            .find_map(|w| w.strip_prefix('*'))
            .map(str::to_string)
    };
    marked("DMA:").or_else(|| marked("PIO:"))
}

pub struct RealSettings {
    device: String,
    guards: Vec<String>,
}

impl RealSettings {
    pub fn new(request: &ExperimentRequest) -> RealSettings {
        let mut guards = Vec::new();
        if request.yes_i_know {
            guards.push("--yes-i-know-what-i-am-doing".to_string());
        }
        if request.please_destroy {
            guards.push("--please-destroy-my-drive".to_string());
        }
        RealSettings {
            device: request.device.to_string_lossy().into_owned(),
            guards,
        }
    }
}

impl Settings for RealSettings {
    fn read(&mut self, option: &str) -> Result<String, String> {
        if option == "-X" {
            // hdparm has no get for -X; the drive's IDENTIFY says which mode is selected.
            let run = run_words(&["-I".into(), self.device.clone()]);
            if run.exit_status != 0 {
                return Err(format!("-I: {}", failure(run.exit_status, &run.stderr)));
            }
            return selected_xfer_mode(&run.stdout)
                .ok_or_else(|| "IDENTIFY marks no transfer mode as selected".to_string());
        }
        let run = run_words(&[option.to_string(), self.device.clone()]);
        if run.exit_status != 0 {
            return Err(failure(run.exit_status, &run.stderr));
        }
        run.number()
            .map(|v| v.to_string())
            .ok_or_else(|| format!("its get printed no value: {}", run.stdout.trim()))
    }

    fn apply(&mut self, settings: &[Setting]) -> Result<(), String> {
        let mut words = self.guards.clone();
        for s in settings {
            words.push(s.option.clone());
            words.push(s.value.clone());
        }
        words.push(self.device.clone());
        let run = run_words(&words);
        if run.exit_status != 0 {
            let shown: Vec<String> = settings.iter().map(Setting::text).collect();
            return Err(format!(
                "{}: {}",
                shown.join(" "),
                failure(run.exit_status, &run.stderr)
            ));
        }
        Ok(())
    }
}

pub struct RealTrials {
    device: String,
    measurement: Measurement,
}

impl RealTrials {
    pub fn new(request: &ExperimentRequest) -> RealTrials {
        RealTrials {
            device: request.device.to_string_lossy().into_owned(),
            measurement: request.measurement.clone(),
        }
    }

    /// One `--bench` trial at the asked depth and block size.
    fn bench(&self, options: &crate::timing::bench::BenchOptions) -> Result<f64, String> {
        use std::os::fd::AsFd;
        let path = PathBuf::from(&self.device);
        let file = crate::device::fd_target::open_direct(&path).map_err(|e| e.to_string())?;
        // The same flush -t does first, so that no trial reads what another left cached.
        let _ = crate::device::flush::flush_buffer_cache(file.as_fd());
        let flags = Flags {
            json: true,
            ..Default::default()
        };
        let ctx = crate::exec::measure::TimingContext {
            path: &path,
            fd: file.as_fd(),
            size_sectors: None,
            flags: &flags,
        };
        let mut one = options.clone();
        one.trials = 1;
        let mut sink = std::io::sink();
        let mut errors = Vec::new();
        let report = crate::exec::measure::bench_with(&ctx, &one, &mut sink, &mut errors, false)
            .map_err(|e| e.to_string())?;
        Ok(report.mean_mib_per_second)
    }
}

impl Trials for RealTrials {
    fn run(&mut self) -> Result<f64, String> {
        let mut words = vec!["--json".to_string(), "-t".to_string()];
        match &self.measurement {
            Measurement::Buffered => {}
            Measurement::Direct => words.push("--direct".into()),
            Measurement::Bench(options) => return self.bench(options),
        }
        words.push(self.device.clone());
        let run = run_words(&words);
        if run.exit_status != 0 {
            return Err(failure(run.exit_status, &run.stderr));
        }
        let doc: serde_json::Value =
            serde_json::from_str(&run.stdout).map_err(|e| e.to_string())?;
        doc["devices"][0]["timing"][0]["mib_per_second"]
            .as_f64()
            .ok_or_else(|| "-t reported no rate".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_selected_mode_is_the_starred_one() {
        let text = "\tDMA: mdma0 mdma1 mdma2 udma0 udma1 udma2 udma3 udma4 *udma5 udma6 \n\t     Cycle time: min=120ns recommended=120ns\n\tPIO: pio0 pio1 pio2 pio3 pio4 \n";
        assert_eq!(selected_xfer_mode(text).as_deref(), Some("udma5"));
        assert_eq!(
            selected_xfer_mode("\tPIO: pio0 pio1 *pio2\n").as_deref(),
            Some("pio2")
        );
        assert_eq!(selected_xfer_mode("\tDMA: udma0 udma1\n"), None);
    }
}
