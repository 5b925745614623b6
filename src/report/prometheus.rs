//! `--prometheus` (ours): drive state in the node_exporter textfile-collector format.
//!
//! One family per fact, each with `# HELP` and `# TYPE`, no timestamps (the collector stamps the
//! file when it reads it), every series labelled with `device`: the kernel's name of the disk
//! (`sda`, `nvme0n1`), as node_exporter labels its `node_disk_*` series, so that the two join on
//! `device`. The caller passes one entry per disk (a disk named twice, or by a by-id link and by
//! `sda`, is one entry), so no series appears twice. A fact that could not be read is left out
//! rather than given a made-up value; `hdparm_query_success` says whether the drive answered at
//! all, and `hdparm_query_skipped` whether `--no-wake` left it alone (reason `standby`) or
//! another run held it exclusively (reason `busy`: an erase, a TRIM, an `--experiment`). Values
//! are in base units (bytes, bytes per second, degrees Celsius), as Prometheus's naming practice
//! asks.
//!
//! The families (all gauges):
//! - `hdparm_drive_info{device,model,serial,firmware,wwn}` 1;
//! - `hdparm_power_state{device,state}` 1 for the state CHECK POWER MODE reported (`active`,
//!   `idle`, `standby`, `unknown`...), 0 for the others;
//! - `hdparm_apm_level` (0 when APM is off), `hdparm_aam_level`, `hdparm_write_cache_enabled`;
//! - `hdparm_security_enabled`, `hdparm_security_locked`, `hdparm_security_frozen`;
//! - `hdparm_sata_link_speed_bytes_per_second` (the negotiated line rate, Gbit/s / 8, as
//!   node_exporter's `node_network_speed_bytes` counts it; 8b/10b coding leaves 80% of it for
//!   data);
//! - `hdparm_hpa_enabled` (1 when the drive shows fewer sectors than its native maximum: a
//!   Host Protected Area or a lowered Accessible Max Address), `hdparm_visible_bytes` and
//!   `hdparm_native_max_bytes` (IDENTIFY's sectors, and READ NATIVE MAX ADDRESS (EXT) or GET
//!   NATIVE MAX ADDRESS EXT as `-N` reads it, times the logical sector size);
//! - `hdparm_temperature_celsius` (the SCT status page's current temperature: SMART READ LOG
//!   of log E0h, read only from a drive that is not in standby);
//! - `hdparm_read_bytes_per_second` (with `-t`: hdparm's buffered-read timing, in bytes per
//!   second, MB = 2^20 as hdparm counts);
//! - `hdparm_query_success`, `hdparm_query_skipped{device,reason}`.
//!
//! Renamed in issue 19 (base units): `hdparm_sata_link_speed_gbps` (Gbit/s) is
//! `hdparm_sata_link_speed_bytes_per_second`, `hdparm_visible_sectors` and
//! `hdparm_native_max_sectors` are `hdparm_visible_bytes` and `hdparm_native_max_bytes`, and
//! `device` is `sda` where it was `/dev/sda`.
//!
//! What this file must not do: ask a drive anything; it renders what `exec/modes/prometheus.rs` found.

use std::fmt::Write;

/// What was found about one drive.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DriveMetrics {
    /// The kernel's name of the disk (`sda`), the `device` label.
    pub device: String,
    pub model: Option<String>,
    pub serial: Option<String>,
    pub firmware: Option<String>,
    pub wwn: Option<String>,
    /// As CHECK POWER MODE names it (`active/idle`, `standby`...).
    pub power_state: Option<String>,
    pub apm_level: Option<u8>,
    pub aam_level: Option<u8>,
    pub write_cache: Option<bool>,
    pub security_enabled: Option<bool>,
    pub security_locked: Option<bool>,
    pub security_frozen: Option<bool>,
    /// The negotiated SATA link speed, in Gbit/s as sysfs says it.
    pub link_speed_gbps: Option<f64>,
    /// What IDENTIFY shows, and the native maximum, in sectors (for the HPA state).
    pub visible_sectors: Option<u64>,
    pub native_max_sectors: Option<u64>,
    /// The logical sector size, in bytes (IDENTIFY).
    pub sector_bytes: Option<u32>,
    /// The SCT status page's current temperature.
    pub temperature_celsius: Option<i8>,
    /// `-t`'s read rate, in bytes per second.
    pub read_bytes_per_second: Option<f64>,
    /// The drive answered what was asked.
    pub success: bool,
    /// Why nothing more was asked (`standby` under `--no-wake`).
    pub skipped: Option<String>,
}

/// The power states a series is written for, one-hot.
const POWER_STATES: [&str; 4] = ["active", "idle", "standby", "unknown"];

/// The textfile for all drives.
pub fn render(drives: &[DriveMetrics]) -> String {
    let mut out = String::new();
    let mut family = |name: &str, help: &str, series: Vec<(String, String)>| {
        if series.is_empty() {
            return;
        }
        let _ = writeln!(out, "# HELP {name} {help}");
        let _ = writeln!(out, "# TYPE {name} gauge");
        for (labels, value) in series {
            let _ = writeln!(out, "{name}{{{labels}}} {value}");
        }
    };
    let dev = |d: &DriveMetrics| format!("device=\"{}\"", escape(&d.device));
    family(
        "hdparm_drive_info",
        "Drive identity from IDENTIFY DEVICE (value 1).",
        drives
            .iter()
            .filter(|d| d.model.is_some())
            .map(|d| {
                let label = |v: &Option<String>| escape(v.as_deref().unwrap_or(""));
                (
                    format!(
                        "{},model=\"{}\",serial=\"{}\",firmware=\"{}\",wwn=\"{}\"",
                        dev(d),
                        label(&d.model),
                        label(&d.serial),
                        label(&d.firmware),
                        label(&d.wwn)
                    ),
                    "1".to_string(),
                )
            })
            .collect(),
    );
    family(
        "hdparm_power_state",
        "Power state from CHECK POWER MODE, which wakes nothing (1 for the state reported).",
        drives
            .iter()
            .filter_map(|d| d.power_state.as_deref().map(|s| (d, normalized_state(s))))
            .flat_map(|(d, state)| {
                POWER_STATES.iter().map(move |s| {
                    (
                        format!("{},state=\"{s}\"", dev(d)),
                        u8::from(*s == state).to_string(),
                    )
                })
            })
            .collect(),
    );
    let numbers = |get: fn(&DriveMetrics) -> Option<f64>| -> Vec<(String, String)> {
        drives
            .iter()
            .filter_map(|d| get(d).map(|v| (dev(d), number(v))))
            .collect()
    };
    family(
        "hdparm_apm_level",
        "Advanced Power Management level (0: APM off).",
        numbers(|d| d.apm_level.map(f64::from)),
    );
    family(
        "hdparm_aam_level",
        "Automatic Acoustic Management level.",
        numbers(|d| d.aam_level.map(f64::from)),
    );
    family(
        "hdparm_write_cache_enabled",
        "Whether the drive's volatile write cache is on.",
        numbers(|d| d.write_cache.map(|b| f64::from(u8::from(b)))),
    );
    family(
        "hdparm_security_enabled",
        "Whether ATA security (a password) is enabled.",
        numbers(|d| d.security_enabled.map(|b| f64::from(u8::from(b)))),
    );
    family(
        "hdparm_security_locked",
        "Whether the drive is locked by its security password.",
        numbers(|d| d.security_locked.map(|b| f64::from(u8::from(b)))),
    );
    family(
        "hdparm_security_frozen",
        "Whether the security commands are frozen until the next power cycle.",
        numbers(|d| d.security_frozen.map(|b| f64::from(u8::from(b)))),
    );
    family(
        "hdparm_sata_link_speed_bytes_per_second",
        "Negotiated SATA link speed (line rate, Gbit/s / 8), in bytes per second.",
        numbers(|d| d.link_speed_gbps.map(|gbps| (gbps * 1e9 / 8.0).round())),
    );
    family(
        "hdparm_hpa_enabled",
        "Whether the drive hides sectors beyond what it shows (HPA, or a lowered Accessible Max Address).",
        numbers(|d| {
            let (visible, native) = (d.visible_sectors?, d.native_max_sectors?);
            Some(f64::from(u8::from(visible < native)))
        }),
    );
    family(
        "hdparm_visible_bytes",
        "Capacity the drive shows (IDENTIFY), in bytes.",
        numbers(|d| bytes(d.visible_sectors, d)),
    );
    family(
        "hdparm_native_max_bytes",
        "The drive's native maximum capacity (READ NATIVE MAX ADDRESS), in bytes.",
        numbers(|d| bytes(d.native_max_sectors, d)),
    );
    family(
        "hdparm_temperature_celsius",
        "Current drive temperature from the SCT status page (SMART READ LOG E0h), in degrees Celsius.",
        numbers(|d| d.temperature_celsius.map(f64::from)),
    );
    family(
        "hdparm_read_bytes_per_second",
        "Buffered sequential read rate as hdparm -t times it, in bytes per second.",
        numbers(|d| d.read_bytes_per_second),
    );
    family(
        "hdparm_query_success",
        "Whether the drive answered the queries (1) or not (0).",
        drives
            .iter()
            .map(|d| (dev(d), u8::from(d.success).to_string()))
            .collect(),
    );
    family(
        "hdparm_query_skipped",
        "Queries left out: so as not to wake the drive (--no-wake, reason standby), or because another run held the disk exclusively (reason busy).",
        drives
            .iter()
            .filter_map(|d| {
                d.skipped.as_deref().map(|r| {
                    (
                        format!("{},reason=\"{}\"", dev(d), escape(r)),
                        "1".to_string(),
                    )
                })
            })
            .collect(),
    );
    out
}

/// A sector count in bytes, where the sector size is known.
fn bytes(sectors: Option<u64>, d: &DriveMetrics) -> Option<f64> {
    Some(sectors? as f64 * f64::from(d.sector_bytes?))
}

/// The one-hot state of a CHECK POWER MODE word (`active/idle` counts as active).
fn normalized_state(state: &str) -> &'static str {
    match state {
        "active/idle" | "active" => "active",
        s if s.starts_with("idle") => "idle",
        "standby" | "NVcache_spindown" => "standby",
        _ => "unknown",
    }
}

/// A sample value as the text format writes it.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{}", v as i64)
    } else {
        format!("{v}")
    }
}

/// A label value with `\`, `"` and newlines escaped, as the text format asks.
fn escape(s: &str) -> String {
    s.replace('\\', "\\\\")
        .replace('"', "\\\"")
        .replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_drive_that_answered_has_every_family() {
        let d = DriveMetrics {
            device: "sda".into(),
            model: Some("WDC WD20EARX \"green\"".into()),
            serial: Some("WD-1".into()),
            firmware: Some("51.0AB51".into()),
            wwn: Some("0x50014ee2b1234567".into()),
            power_state: Some("active/idle".into()),
            apm_level: Some(254),
            aam_level: None,
            write_cache: Some(true),
            security_enabled: Some(false),
            security_locked: Some(false),
            security_frozen: Some(true),
            link_speed_gbps: Some(6.0),
            temperature_celsius: Some(38),
            visible_sectors: Some(1000),
            native_max_sectors: Some(2000),
            sector_bytes: Some(512),
            read_bytes_per_second: Some(1.5e8),
            success: true,
            skipped: None,
        };
        let text = render(&[d]);
        assert!(text.contains("hdparm_temperature_celsius{device=\"sda\"} 38\n"));
        assert!(text.contains("hdparm_hpa_enabled{device=\"sda\"} 1\n"));
        assert!(text.contains("hdparm_native_max_bytes{device=\"sda\"} 1024000\n"));
        assert!(text.contains("hdparm_read_bytes_per_second{device=\"sda\"} 150000000\n"));
        assert!(text.contains("# TYPE hdparm_drive_info gauge\n"));
        assert!(text.contains(
            "hdparm_drive_info{device=\"sda\",model=\"WDC WD20EARX \\\"green\\\"\",serial=\"WD-1\",firmware=\"51.0AB51\",wwn=\"0x50014ee2b1234567\"} 1\n"
        ));
        assert!(text.contains("hdparm_power_state{device=\"sda\",state=\"active\"} 1\n"));
        assert!(text.contains("hdparm_power_state{device=\"sda\",state=\"standby\"} 0\n"));
        assert!(text.contains("hdparm_apm_level{device=\"sda\"} 254\n"));
        assert!(
            !text.contains("hdparm_aam_level"),
            "an unknown level is left out"
        );
        assert!(text.contains("hdparm_security_frozen{device=\"sda\"} 1\n"));
        assert!(
            text.contains("hdparm_sata_link_speed_bytes_per_second{device=\"sda\"} 750000000\n")
        );
        assert!(text.contains("hdparm_query_success{device=\"sda\"} 1\n"));
        assert!(!text.contains("skipped{"));
        assert!(text.contains("hdparm_visible_bytes{device=\"sda\"} 512000\n"));
        assert!(
            !text.contains("_gbps") && !text.contains("_sectors"),
            "base units only: {text}"
        );
        for line in text.lines().filter(|l| !l.starts_with('#')) {
            let after_labels = line.rsplit_once('}').map_or("", |(_, v)| v);
            assert_eq!(
                after_labels.split_whitespace().count(),
                1,
                "no timestamps: {line}"
            );
        }
    }

    #[test]
    fn a_sleeping_drive_left_alone_says_so() {
        let d = DriveMetrics {
            device: "sdb".into(),
            power_state: Some("standby".into()),
            success: true,
            skipped: Some("standby".into()),
            ..DriveMetrics::default()
        };
        let text = render(&[d]);
        assert!(text.contains("hdparm_power_state{device=\"sdb\",state=\"standby\"} 1\n"));
        assert!(text.contains("hdparm_query_skipped{device=\"sdb\",reason=\"standby\"} 1\n"));
        assert!(!text.contains("hdparm_drive_info"));
    }
}
