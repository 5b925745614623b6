//! Per-device processing: the guard check for the whole invocation first, then for each device
//! in order: open, header, the steps. An error on one device is reported and the next device
//! still runs (hdparm stops at the first failing device; DIFFERENCES.md lists this).

use super::guards::{self, DeviceFacts};
use super::output::Output;
use super::real::RealDevice;
use super::steps::{self, Ctx};
use crate::cli::DeviceRun;
use crate::error::{Error, ErrorClass};

/// Runs every device of the invocation.
pub fn run_devices(runs: &[DeviceRun], out: &mut Output) {
    // Guards first, for all devices, before anything is sent anywhere. A device that cannot be
    // opened here is reported below, when its turn comes.
    for run in runs {
        let facts = DeviceFacts {
            multcount_via_ata: RealDevice::multcount_needs_ata(&run.path),
        };
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
        let mut dev = match RealDevice::open(&run.path, &run.flags) {
            Ok(dev) => dev,
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
                out.error(&error);
                out.end_device();
                continue;
            }
        };
        out.begin_device(&name, run.flags.quiet);
        out.device_kind(&dev.kind_name_string(), &dev.description_string());
        let mut ctx = Ctx {
            name,
            flags: run.flags.clone(),
            dev: &mut dev,
            out,
            multcount: None,
        };
        steps::run(&mut ctx);
        out.end_device();
    }
}
