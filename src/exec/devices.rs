//! Per-device processing: the guard check for the whole invocation first, then for each device
//! in order: open, header, the steps. An error on one device is reported and the next device
//! still runs (hdparm stops at the first failing device; DIFFERENCES.md lists this).
//!
//! Devices are opened through [`Opener`], so that tests run exactly this function over the
//! scripted fake (`fake.rs`); the binary's opener is [`RealOpener`].
//!
//! Must not: send anything before every device's guards and every option's availability have
//! been checked; a refusal changes nothing anywhere.

use super::access::DeviceAccess;
use super::guards::{self, DeviceFacts};
use super::output::{Output, SharedStderr};
use super::real::RealDevice;
use super::steps::{self, Ctx};
use crate::cli::DeviceRun;
use crate::error::{Error, ErrorClass};
use std::io;

/// Where the devices of a run come from.
pub trait Opener {
    /// What the guards need to know about a device before anything is sent anywhere.
    fn facts(&mut self, run: &DeviceRun) -> DeviceFacts;
    /// Opens a device for its steps; `trace` is where its `--verbose` dumps go.
    fn open<'w>(&mut self, run: &DeviceRun, trace: SharedStderr<'w>) -> io::Result<Opened<'w>>;
}

/// An opened device, with what the JSON document says it is.
pub struct Opened<'w> {
    pub dev: Box<dyn DeviceAccess + 'w>,
    /// Short stable name of the device kind (`ata_disk`, `loop`...).
    pub kind: String,
    /// One sentence saying what the device is.
    pub description: String,
}

/// The real devices, through [`crate::device`].
pub struct RealOpener;

impl Opener for RealOpener {
    fn facts(&mut self, run: &DeviceRun) -> DeviceFacts {
        DeviceFacts {
            multcount_via_ata: RealDevice::multcount_needs_ata(&run.path),
        }
    }

    fn open<'w>(&mut self, run: &DeviceRun, trace: SharedStderr<'w>) -> io::Result<Opened<'w>> {
        let dev = RealDevice::open(&run.path, &run.flags, trace)?;
        Ok(Opened {
            kind: dev.kind_name_string(),
            description: dev.description_string(),
            dev: Box::new(dev),
        })
    }
}

/// Runs every device of the invocation on the real devices.
pub fn run_devices(runs: &[DeviceRun], out: &mut Output) {
    run_devices_with(runs, out, &mut RealOpener);
}

/// Runs every device of the invocation, opening each through `opener`.
pub fn run_devices_with(runs: &[DeviceRun], out: &mut Output, opener: &mut dyn Opener) {
    if runs.len() > 1 {
        out.name_devices_in_errors();
    }
    // `--security-prompt-for-password`: hdparm reads the password while parsing, before any
    // device; so do we, once (the security step uses it).
    let prompt = |r: &DeviceRun| r.flags.security_prompt && r.flags.security.is_some();
    if runs.iter().any(prompt) {
        if let Err(e) = super::prompt::read_password() {
            out.error(&e);
            return;
        }
    }
    // Guards first, for all devices, before anything is sent anywhere. A device that cannot be
    // opened here is reported below, when its turn comes.
    for run in runs {
        let facts = opener.facts(run);
        if let Some(refusal) = guards::check(run, &facts) {
            out.error(&Error::guard(refusal.text));
            return;
        }
    }
    // Then options that are recognised but not built yet: refused before anything is sent.
    for run in runs {
        if let Some(option) = guards::unbuilt_option(&run.flags) {
            let message = format!(
                "{}: {option} is not implemented in hdparm-rs yet; nothing was sent to any device",
                run.path.to_string_lossy()
            );
            out.error(&Error::not_applicable(message));
            return;
        }
    }
    for run in runs {
        let name = run.path.to_string_lossy().into_owned();
        let mut opened = match opener.open(run, out.trace_writer()) {
            Ok(opened) => opened,
            Err(e) => {
                out.begin_device(&name, true);
                // An empty name would print ": No such file or directory", naming nothing.
                let label = if name.is_empty() { "''" } else { name.as_str() };
                let mut error = Error::os(ErrorClass::CannotOpen, label, &e);
                // open(2) says only "Invalid argument" when the node refuses O_DIRECT.
                if run.flags.direct && e.raw_os_error() == Some(libc::EINVAL) {
                    error
                        .message
                        .push_str(" (--direct asks for O_DIRECT, which it does not support)");
                }
                // The SCSI generic nodes are root's (and the disk group's) on most systems.
                if name.starts_with("/dev/sg") && e.raw_os_error() == Some(libc::EACCES) {
                    error.message.push_str(
                        " (the SCSI generic nodes are for root and the disk group; run as root)",
                    );
                }
                out.error(&error);
                out.end_device();
                continue;
            }
        };
        out.begin_device(&name, run.flags.quiet);
        out.device_kind(&opened.kind, &opened.description);
        let mut ctx = Ctx::new(name, run.flags.clone(), opened.dev.as_mut(), out);
        steps::run(&mut ctx);
        out.end_device();
    }
}
