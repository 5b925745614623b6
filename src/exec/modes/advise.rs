//! `--advise [--wake] [DEVICE...]` (ours): reads each drive (IDENTIFY, SMART's attributes, the
//! kernel's settings and sysfs) and prints what `crate::advise` finds off. It changes nothing,
//! and it wakes no drive in standby unless `--wake` says so: CHECK POWER MODE comes first, and
//! a sleeping drive gets only the advice that sysfs alone allows.
//!
//! Text, per drive:
//! ```text
//! /dev/sda:
//!  write_cache_off: the drive's write cache is off
//!     why:  every write waits for the media: several times slower
//!     risk: writes in the cache are lost on a power cut unless ...
//!     fix:  hdparm -W1 /dev/sda
//! ```
//! JSON: `{"json_format_version", "hdparm_rs": {"version", "argv", "exit_status"}, "devices":
//! [{"name", "asleep", "advice": [{"rule", "finding", "reason", "risk", "command"}]}],
//! "report": "advise", "messages": [{"severity", "class", "text"}]}` (`doc/hdparm-rs.schema.json`:
//! advise_document).

use crate::advise::{advise, Advice, DriveState};
use crate::ata::command::{op, TaskFile};
use crate::ata::identify::Identify;
use crate::ata::smart;
use crate::cli::{AdviseRequest, Flags};
use crate::device::system;
use crate::error::{strerror, ErrorClass, Verdict};
use crate::exec::access::real::RealDevice;
use crate::exec::access::DeviceAccess;
use crate::exec::output::Output;
use crate::report::envelope::Message;
use crate::report::settings::PowerState;
use serde::Serialize;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;

/// --advise (src/exec/modes/advise.rs): per drive, what is off, why, the risk and the command
/// that changes it (`$defs/advise_document`).
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AdviseDocument<'a> {
    #[schemars(schema_with = "crate::report::schema::format_version_ref")]
    json_format_version: [u32; 2],
    #[schemars(schema_with = "crate::report::schema::program_ref")]
    hdparm_rs: crate::report::envelope::Program,
    /// `advise`.
    #[schemars(extend("const" = "advise"))]
    report: &'static str,
    devices: &'a [DeviceAdvice],
    #[schemars(schema_with = "crate::report::schema::messages_ref")]
    messages: &'a [Message],
}

/// One drive's advice.
#[derive(Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
struct DeviceAdvice {
    name: String,
    /// In standby and left so: the drive-level rules were not run.
    asleep: bool,
    advice: Vec<Advice>,
}

/// What one drive says, through [`DeviceAccess`] (so a scripted fake can stand in): whether it
/// was asleep and left so, and the state the rules read.
pub fn gather(device: &str, dev: &mut dyn DeviceAccess, wake: bool) -> (bool, DriveState) {
    let path = Path::new(device);
    let mut state = DriveState {
        device: device.to_string(),
        rotational: match system::block_attribute(path, "queue/rotational").as_str() {
            "1" => Some(true),
            "0" => Some(false),
            _ => None,
        },
        readahead_sectors: dev.readahead().ok().and_then(|v| u64::try_from(v).ok()),
        queue_depth: dev.queue_depth().ok(),
        link_gbps: system::sata_link_speed_gbps(path),
        port_max_gbps: system::sata_port_limit_gbps(path),
        raid_arrays: system::raid_arrays(path),
        ..DriveState::default()
    };
    if !dev.ata_capable() {
        return (false, state);
    }
    let mut none = [0u8; 0];
    let power = dev
        .ata(
            &TaskFile::drive_cmd([op::CHECKPOWERMODE1, 0, 0, 0]),
            &mut none,
        )
        .ok()
        .map(|out| PowerState::from_count(out.count));
    if !wake
        && matches!(
            power,
            Some(PowerState::Standby | PowerState::NvcacheSpindown)
        )
    {
        return (true, state);
    }
    state.identify = dev.identify().ok().map(Identify::from_words);
    let mut sector = [0u8; 512];
    if dev.ata(&smart::read_data_command(), &mut sector).is_ok() {
        state.smart = Some(smart::attributes(&sector));
    }
    (false, state)
}

/// Runs `--advise`; returns the exit status.
pub fn run_advise(
    request: &AdviseRequest,
    program_args: &[OsString],
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let devices = system::named_or_present(&request.devices);
    let mut verdict = Verdict::default();
    let mut messages = Vec::new();
    let mut reports = Vec::new();
    for device in &devices {
        let mut quiet_out = Vec::new();
        let mut trace = Vec::new();
        let output = Output::new(false, Vec::new(), &mut quiet_out, &mut trace);
        let mut dev = match RealDevice::open(
            &OsString::from(device),
            &Flags::default(),
            output.trace_writer(),
        ) {
            Ok(dev) => dev,
            Err(e) => {
                verdict.record(ErrorClass::CannotOpen);
                let text = format!("{device}: {}", strerror(&e));
                if request.json {
                    messages.push(Message {
                        severity: "error",
                        class: Some(ErrorClass::CannotOpen.name()),
                        text,
                    });
                } else {
                    let _ = writeln!(stderr, "{text}");
                }
                continue;
            }
        };
        let (asleep, state) = gather(device, &mut dev, request.wake);
        reports.push(DeviceAdvice {
            name: device.clone(),
            asleep,
            advice: advise(&state),
        });
    }
    let status = verdict.exit_status();
    if request.json {
        let document = AdviseDocument {
            json_format_version: crate::report::envelope::JSON_FORMAT_VERSION,
            hdparm_rs: crate::report::envelope::program(
                crate::cli::parse::redacted_argv(program_args),
                status,
            ),
            report: "advise",
            devices: &reports,
            messages: &messages,
        };
        let _ = writeln!(
            stdout,
            "{}",
            crate::report::envelope::render_sorted(&document)
        );
    } else {
        for report in &reports {
            let _ = write!(stdout, "{}", render(report));
        }
    }
    let _ = stdout.flush();
    status
}

/// The text of one drive's advice.
fn render(report: &DeviceAdvice) -> String {
    let mut text = format!("\n{}:\n", report.name);
    if report.asleep {
        text.push_str(
            " the drive is in standby: only sysfs was read (--wake reads the drive too)\n",
        );
    }
    if report.advice.is_empty() {
        text.push_str(" nothing to advise\n");
    }
    for a in &report.advice {
        text.push_str(&format!(
            " {}: {}\n    why:  {}\n    risk: {}\n",
            a.rule, a.finding, a.reason, a.risk
        ));
        if let Some(command) = &a.command {
            text.push_str(&format!("    fix:  {command}\n"));
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::access::AtaOutput;
    use crate::exec::doubles::fake::{Call, FakeDevice};

    #[test]
    fn a_sleeping_drive_is_not_read_unless_asked() {
        let asleep = || {
            FakeDevice::libata_disk([0u16; 256]).on_ata(
                op::CHECKPOWERMODE1,
                None,
                Ok(AtaOutput::default()),
            )
        };
        let mut dev = asleep();
        let log = dev.log();
        let (was_asleep, state) = gather("/dev/sdq", &mut dev, false);
        assert!(was_asleep && state.identify.is_none() && state.smart.is_none());
        assert!(!log.borrow().iter().any(|c| matches!(c, Call::Identify)));
        let mut dev = asleep();
        let (was_asleep, state) = gather("/dev/sdq", &mut dev, true);
        assert!(!was_asleep && state.identify.is_some());
    }

    #[test]
    fn the_text_names_the_rule_why_risk_and_fix() {
        let report = DeviceAdvice {
            name: "/dev/sda".into(),
            asleep: false,
            advice: vec![Advice {
                rule: "write_cache_off",
                finding: "the drive's write cache is off".into(),
                reason: "slow",
                risk: "power cuts",
                command: Some("hdparm -W1 /dev/sda".into()),
            }],
        };
        assert_eq!(
            render(&report),
            "\n/dev/sda:\n write_cache_off: the drive's write cache is off\n    why:  slow\n    risk: power cuts\n    fix:  hdparm -W1 /dev/sda\n"
        );
    }
}
