//! `--prometheus [FILE] [--no-wake] [DEVICE...]` (ours): every drive's state as node_exporter
//! textfile metrics, for fleets that graph and alert on their disks.
//!
//! Each drive is queried on a thread of its own with its own deadline ([`DRIVE_TIMEOUT`]), so
//! one drive that fails or hangs never keeps the others out of the file: a drive past its
//! deadline is written with `hdparm_query_success 0`. The first question is CHECK POWER MODE,
//! which wakes nothing; under `--no-wake` a drive in standby or sleep is asked nothing more
//! (IDENTIFY can spin some drives up), as smartctl's `-n standby` does.
//!
//! The series are labelled as node_exporter labels its disks (`device="sda"`, the kernel's
//! name), and a disk named twice, or by two names (a by-id link and `sda`), is asked once and
//! written once: the devices are told apart by device number. A second series with the same
//! labels would make node_exporter reject the whole file.
//!
//! FILE is written through a temporary file and a rename, so the collector never reads half of
//! it. A first word that does not start with `/dev/` is FILE; with none, the metrics go to stdout.
//!
//! A drive that another run holds exclusively (`device::lock`: an erase, a TRIM, an
//! `--experiment`) is asked nothing: `hdparm_query_skipped{device,reason="busy"} 1`, a line on
//! stderr, exit 3.
//!
//! Exit status: 0 when every drive answered, and when `--no-wake` left a sleeping drive alone:
//! on a NAS the disks sleep most of the time, and a timer unit that ran this must not fail each
//! time one does (`hdparm_query_skipped` says it); 3 when a busy disk skipped one (and nothing
//! worse happened). Otherwise the worst class of the failures (5 a drive that did not answer, 2
//! one that could not be opened, 25 a device that is not an ATA drive).

use crate::ata::command::{op, TaskFile};
use crate::ata::hpa::NativeMaxKind;
use crate::ata::identify::Identify;
use crate::ata::smart;
use crate::ata::values::Apm;
use crate::cli::{Flags, PrometheusRequest};
use crate::device::system;
use crate::error::{strerror, ErrorClass, Verdict};
use crate::exec::access::real::RealDevice;
use crate::exec::access::DeviceAccess;
use crate::exec::output::Output;
use crate::report::prometheus::{render, DriveMetrics};
use crate::report::settings::PowerState;
use std::ffi::OsString;
use std::io::Write;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// How long one drive may take to answer everything.
pub const DRIVE_TIMEOUT: Duration = Duration::from_secs(20);
/// What `-t` adds to that: hdparm's 3 s settle and 3 s of reads, with room for a slow start.
pub const TIMING_ALLOWANCE: Duration = Duration::from_secs(15);

/// Asks one drive, through [`DeviceAccess`] (so a scripted fake can stand in for it).
pub fn query(device: &str, dev: &mut dyn DeviceAccess, no_wake: bool) -> DriveMetrics {
    let mut m = DriveMetrics {
        device: device.to_string(),
        ..DriveMetrics::default()
    };
    if !dev.ata_capable() {
        return m;
    }
    let mut none = [0u8; 0];
    let power = [op::CHECKPOWERMODE1, op::CHECKPOWERMODE2]
        .into_iter()
        .find_map(|command| {
            dev.ata(&TaskFile::drive_cmd([command, 0, 0, 0]), &mut none)
                .ok()
        });
    let state = power.map(|out| PowerState::from_count(out.count));
    m.power_state = Some(state.map_or("unknown", PowerState::as_str).to_string());
    if no_wake
        && matches!(
            state,
            Some(PowerState::Standby | PowerState::NvcacheSpindown)
        )
    {
        m.skipped = Some("standby".into());
        m.success = true;
        return m;
    }
    let Ok(words) = dev.identify() else {
        return m;
    };
    let id = Identify::from_words(words);
    m.model = Some(id.model());
    m.serial = Some(id.serial());
    m.firmware = Some(id.firmware());
    m.wwn = id.wwn().map(|w| format!("0x{w:016x}"));
    m.apm_level = match id.apm() {
        Apm::NotSupported => None,
        Apm::Disabled => Some(0),
        Apm::Enabled { level, .. } => Some(level),
    };
    m.aam_level = id.acoustic_level();
    m.sector_bytes = Some(id.logical_sector_bytes());
    m.write_cache = id.write_cache().enabled();
    if id.native_max_readable() {
        let kind = NativeMaxKind::of(id.supports_accessible_max_address(), id.supports_48bit());
        if let Ok(out) = dev.ata(&kind.taskfile(), &mut none) {
            let native = kind.native_sectors(out.lba);
            let visible = id.capacity_sectors();
            m.native_max_sectors = Some(native);
            m.visible_sectors = Some(visible);
        }
    }
    if id.sct_status_readable() {
        let mut page = [0u8; 512];
        if dev
            .ata(&smart::read_log_command(smart::SCT_STATUS_LOG), &mut page)
            .is_ok()
        {
            m.temperature_celsius = smart::sct_temperature_celsius(&page);
        }
    }
    let security = id.security_status();
    if security.supported {
        m.security_enabled = Some(security.enabled);
        m.security_locked = Some(security.locked);
        m.security_frozen = Some(security.frozen);
    }
    m.success = true;
    m
}

/// Runs `--prometheus`; returns the exit status.
pub fn run_prometheus(
    request: &PrometheusRequest,
    stdout: &mut dyn Write,
    stderr: &mut dyn Write,
) -> u8 {
    let named = system::named_or_present(&request.devices)
        .into_iter()
        .map(|path| {
            let number = system::block_device_number(Path::new(&path));
            let label = system::kernel_name(Path::new(&path)).unwrap_or_else(|| base_name(&path));
            Disk {
                path,
                number,
                label,
            }
        })
        .collect();
    let disks = distinct(named);
    let devices: Vec<String> = disks.iter().map(|d| d.path.clone()).collect();
    let (sender, receiver) = mpsc::channel();
    for (index, disk) in disks.iter().enumerate() {
        let sender = sender.clone();
        let device = disk.path.clone();
        let label = disk.label.clone();
        let no_wake = request.no_wake;
        let time_device = request.time_device;
        // Detached on purpose: a drive that hangs must not hold the others up, and the
        // process ends without it.
        std::thread::spawn(move || {
            let answer = query_device(&device, &label, no_wake, time_device);
            let _ = sender.send((index, answer));
        });
    }
    drop(sender);
    let deadline = Instant::now()
        + DRIVE_TIMEOUT
        + if request.time_device {
            TIMING_ALLOWANCE
        } else {
            Duration::ZERO
        };
    let mut answers: Vec<Option<(DriveMetrics, Option<Problem>)>> = vec![None; devices.len()];
    while answers.iter().any(Option::is_none) {
        let left = deadline.saturating_duration_since(Instant::now());
        match receiver.recv_timeout(left) {
            Ok((index, answer)) => answers[index] = Some(answer),
            Err(_) => break,
        }
    }
    let mut verdict = Verdict::default();
    let mut drives = Vec::new();
    for ((device, disk), answer) in devices.iter().zip(&disks).zip(answers) {
        let (mut metrics, problem) = answer.unwrap_or_else(|| {
            (
                DriveMetrics {
                    device: disk.label.clone(),
                    ..DriveMetrics::default()
                },
                Some((
                    ErrorClass::Failed,
                    format!(
                        "{device}: no answer within {} s; written as query_success 0",
                        DRIVE_TIMEOUT.as_secs()
                    ),
                )),
            )
        });
        metrics.link_speed_gbps = system::sata_link_speed_gbps(Path::new(device));
        // A drive --no-wake left asleep is no failure here (see the module doc): the
        // skipped-query series says it, and the status stays 0.
        if let Some((class, text)) = problem {
            verdict.record(class);
            let _ = writeln!(stderr, "{text}");
        }
        drives.push(metrics);
    }
    let text = render(&drives);
    match &request.file {
        Some(path) => {
            if let Err(e) = crate::device::files::write_output(path, text.as_bytes()) {
                let _ = writeln!(stderr, "{}: {}", path.display(), strerror(&e));
                verdict.record(ErrorClass::OutputFailed);
            }
        }
        None => {
            let _ = stdout.write_all(text.as_bytes());
        }
    }
    let _ = stdout.flush();
    verdict.exit_status()
}

/// What went wrong with one drive: its class, and the line printed.
type Problem = (ErrorClass, String);

/// A device to ask: the name it was given, its device number (None: not a block device, or
/// not there), and its `device` label.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Disk {
    path: String,
    number: Option<u64>,
    label: String,
}

/// The disks named, each once: the first name of each device number, and of each label where
/// there is no number (a name that is not there is written as a failed query, once).
fn distinct(named: Vec<Disk>) -> Vec<Disk> {
    let mut kept: Vec<Disk> = Vec::new();
    for disk in named {
        let seen = kept.iter().any(|k| match (k.number, disk.number) {
            (Some(a), Some(b)) => a == b,
            _ => k.label == disk.label,
        });
        if !seen {
            kept.push(disk);
        }
    }
    kept
}

/// The last part of a path that names no block device (`/dev/sdz` that is not there: `sdz`).
fn base_name(path: &str) -> String {
    Path::new(path)
        .file_name()
        .map_or_else(|| path.to_string(), |n| n.to_string_lossy().into_owned())
}

/// `-t`'s buffered-read rate on an open drive, in bytes per second, after the buffer-cache
/// flush (so that what an earlier run left in the page cache is not timed).
fn time_reads(device: &str, dev: &RealDevice) -> Result<f64, crate::error::Error> {
    let flags = Flags {
        json: true,
        ..Flags::default()
    };
    crate::device::flush::flush_buffer_cache(dev.fd())?;
    let ctx = crate::exec::measure::TimingContext {
        path: Path::new(device),
        fd: dev.fd(),
        size_sectors: dev.size_sectors().ok(),
        flags: &flags,
    };
    let figure =
        crate::exec::measure::time_device(&ctx, &mut std::io::sink(), &mut std::io::sink())?;
    Ok(figure.mib_per_second * f64::from(1u32 << 20))
}

/// Opens and asks one drive, and times its reads when asked; what it found, and what failed.
fn query_device(
    device: &str,
    label: &str,
    no_wake: bool,
    time_device: bool,
) -> (DriveMetrics, Option<Problem>) {
    let mut quiet_out = Vec::new();
    let mut trace = Vec::new();
    let output = Output::new(false, Vec::new(), &mut quiet_out, &mut trace);
    let path = OsString::from(device);
    let mut dev = match RealDevice::open(&path, &Flags::default(), output.trace_writer()) {
        Ok(dev) => dev,
        Err(e) => {
            let metrics = DriveMetrics {
                device: label.to_string(),
                ..DriveMetrics::default()
            };
            let text = format!("{device}: {}", strerror(&e));
            return (metrics, Some((ErrorClass::CannotOpen, text)));
        }
    };
    // A drive another run holds exclusively (an erase, a TRIM, an experiment) is not asked
    // anything: its answer could wait hours behind the erase.
    let _held = match crate::exec::devices::reader_lock(device) {
        Ok(held) => held,
        Err(e) => {
            let metrics = DriveMetrics {
                device: label.to_string(),
                skipped: Some("busy".into()),
                success: true,
                ..DriveMetrics::default()
            };
            return (metrics, Some((e.class, e.message)));
        }
    };
    let mut metrics = query(label, &mut dev, no_wake);
    // `-t` times any block device (an NVMe or virtio disk too), but never one that --no-wake
    // left alone: reading it would spin it up.
    let timing = if time_device && metrics.skipped.is_none() {
        match time_reads(device, &dev) {
            Ok(bytes_per_second) => {
                metrics.read_bytes_per_second = Some(bytes_per_second);
                None
            }
            Err(e) => Some((e.class, format!("{device}: -t: {}", e.message))),
        }
    } else {
        None
    };
    let problem = if let Some(problem) = timing {
        Some(problem)
    } else if !dev.ata_capable() {
        Some((
            ErrorClass::NotApplicable,
            format!(
                "{device}: not an ATA drive, so no drive-state metrics: {}",
                dev.description()
            ),
        ))
    } else if !metrics.success {
        Some((
            ErrorClass::Failed,
            format!("{device}: the drive did not answer IDENTIFY"),
        ))
    } else {
        None
    };
    (metrics, problem)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::access::AtaOutput;
    use crate::exec::doubles::fake::FakeDevice;

    fn identify_words() -> [u16; 256] {
        let mut w = [0u16; 256];
        // "MODEL" in the model field (words 27..46), byte-swapped pairs.
        for (i, pair) in b"MODEL               ".chunks(2).enumerate() {
            w[27 + i] = u16::from(pair[0]) << 8 | u16::from(pair[1]);
        }
        w[82] = 1 << 5; // write cache supported
        w[85] = 1 << 5; // and enabled
        w[83] = 1 << 3 | 1 << 14; // APM supported (word 83 valid)
        w[86] = 1 << 3; // and enabled
        w[91] = 0x4000 | 254;
        w[128] = 0b1_1001; // security supported, frozen, not enabled
        w
    }

    fn answering(count: u8) -> FakeDevice {
        FakeDevice::libata_disk(identify_words()).on_ata(
            op::CHECKPOWERMODE1,
            None,
            Ok(AtaOutput {
                count,
                ..AtaOutput::default()
            }),
        )
    }

    #[test]
    fn an_active_drive_gives_its_identity_and_settings() {
        let mut dev = answering(0xff);
        let m = query("/dev/sda", &mut dev, true);
        assert!(m.success);
        assert_eq!(m.power_state.as_deref(), Some("active/idle"));
        assert_eq!(m.model.as_deref(), Some("MODEL"));
        assert_eq!(m.apm_level, Some(254));
        assert_eq!(m.write_cache, Some(true));
        assert_eq!(
            (m.security_enabled, m.security_frozen),
            (Some(false), Some(true))
        );
        assert_eq!(m.skipped, None);
    }

    #[test]
    fn no_wake_asks_a_sleeping_drive_nothing_but_its_power_state() {
        let mut dev = answering(0x00);
        let log = dev.log();
        let m = query("/dev/sdb", &mut dev, true);
        assert_eq!(m.power_state.as_deref(), Some("standby"));
        assert_eq!(m.skipped.as_deref(), Some("standby"));
        assert!(m.model.is_none());
        let calls = log.borrow();
        assert!(
            !calls
                .iter()
                .any(|c| matches!(c, crate::exec::doubles::fake::Call::Identify)),
            "IDENTIFY was sent to a drive in standby: {calls:?}"
        );
        // Without --no-wake the same drive is asked.
        let mut dev = answering(0x00);
        assert!(query("/dev/sdb", &mut dev, false).model.is_some());
    }

    #[test]
    fn the_temperature_comes_from_the_sct_status_page_where_the_drive_has_one() {
        let mut words = identify_words();
        words[85] |= 1; // SMART enabled
        words[206] = 0x003D; // SCT Command Transport and its tables
        let mut page = [0u8; 512];
        page[0] = 3; // format version 3
        page[200] = 41;
        let mut dev = FakeDevice::libata_disk(words).on_ata_read(op::SMART, &page);
        let log = dev.log();
        let m = query("/dev/sda", &mut dev, false);
        assert_eq!(m.temperature_celsius, Some(41));
        let sent: Vec<_> = log
            .borrow()
            .iter()
            .filter_map(|c| match c {
                crate::exec::doubles::fake::Call::Ata(tf) if tf.command == op::SMART => {
                    Some((tf.feature, tf.lba))
                }
                _ => None,
            })
            .collect();
        assert_eq!(sent, vec![(0xD5, 0xC2_4FE0)], "SMART READ LOG of log E0h");
        // Without SCT in IDENTIFY nothing is asked and no temperature is made up.
        let mut dev = answering(0xff);
        assert_eq!(query("/dev/sda", &mut dev, false).temperature_celsius, None);
    }

    #[test]
    fn a_host_protected_area_shows_as_fewer_visible_than_native_sectors() {
        let mut words = identify_words();
        words[82] |= 1 << 10; // HPA feature set
        words[83] |= 1 << 10; // 48-bit
        words[86] |= 1 << 10;
        words[49] = 1 << 9; // LBA
        words[100] = 1000; // visible: 1000 sectors
        let mut dev = FakeDevice::libata_disk(words).on_ata(
            op::READ_NATIVE_MAX_EXT,
            None,
            Ok(AtaOutput {
                lba: 1999,
                ..AtaOutput::default()
            }),
        );
        let m = query("/dev/sda", &mut dev, false);
        assert_eq!(
            (m.visible_sectors, m.native_max_sectors),
            (Some(1000), Some(2000))
        );
        // A drive without HPA is not asked.
        let mut dev = answering(0xff);
        assert_eq!(query("/dev/sda", &mut dev, false).native_max_sectors, None);
    }

    #[test]
    fn a_disk_named_twice_or_by_two_names_is_asked_once() {
        let disk = |path: &str, number, label: &str| Disk {
            path: path.into(),
            number,
            label: label.into(),
        };
        let named = vec![
            disk("/dev/sda", Some(0x800), "sda"),
            disk("/dev/sda", Some(0x800), "sda"),
            disk("/dev/disk/by-id/ata-X", Some(0x800), "sda"),
            disk("/dev/sdb", Some(0x810), "sdb"),
            disk("/dev/sdz", None, "sdz"),
            disk("/dev/sdz", None, "sdz"),
        ];
        let kept: Vec<String> = distinct(named).into_iter().map(|d| d.path).collect();
        assert_eq!(kept, vec!["/dev/sda", "/dev/sdb", "/dev/sdz"]);
        assert_eq!(base_name("/dev/hdparm-rs-none"), "hdparm-rs-none");
    }

    #[test]
    fn a_device_without_ata_answers_nothing() {
        let mut dev = FakeDevice::loop_device();
        let m = query("/dev/loop0", &mut dev, false);
        assert!(!m.success);
        assert!(m.power_state.is_none());
    }
}
