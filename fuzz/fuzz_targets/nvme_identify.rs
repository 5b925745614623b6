//! Fuzz target: any bytes as NVMe Identify Controller (the first 4096) and Identify Namespace
//! (the next 4096) data, and the rest as a log page (SMART / Health, Sanitize Status, Firmware
//! Slot Information), through the decoders of `src/nvme/` and `-I`'s NVMe text and JSON.
//! Must never panic; the text must start with hdparm's blank line.

#![no_main]

use hdparm::nvme::identify::{IdCtrl, IdNs};
use hdparm::nvme::log::{FirmwareSlots, SanitizeStatus, SmartLog};
use hdparm::report::nvme::{capacity, render, Apst, NvmeIdentifyReport, Thresholds, Transport, WriteCache};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ctrl = IdCtrl::decode(data);
    let ns_bytes = data.get(4096..).unwrap_or(&[]);
    let ns = (!ns_bytes.is_empty()).then(|| IdNs::decode(ns_bytes));
    let log = data.get(8192..).unwrap_or(&[]);
    let _ = SmartLog::decode(log).celsius();
    let _ = SmartLog::decode(log).warnings();
    let _ = SanitizeStatus::decode(log).state_text();
    let slots = FirmwareSlots::decode(log, ctrl.firmware_slots().0);
    let r = NvmeIdentifyReport {
        nsid: ns.as_ref().map(|_| 1),
        controller_name: Some("nvme0".into()),
        capacity: ns.as_ref().map(capacity),
        lba_format_in_use: ns.as_ref().map(IdNs::lbaf_in_use),
        namespace: ns,
        transport: Transport {
            pcie_link_speed: Some("8.0 GT/s".into()),
            pcie_link_width: None,
            nvme_version: ctrl.version_text(),
        },
        write_cache: WriteCache {
            present: ctrl.has_volatile_write_cache(),
            enabled: data.first().map(|b| b & 1 == 1),
        },
        power_state_current: data.get(1).copied(),
        apst: Apst {
            supported: ctrl.has_apst(),
            enabled: None,
        },
        temperature_thresholds_kelvin: Thresholds {
            warning: ctrl.wctemp,
            critical: ctrl.cctemp,
        },
        firmware: Some(slots),
        controller: ctrl,
    };
    let mut out = Vec::new();
    if render(&r, &mut out).is_ok() {
        assert!(out.starts_with(b"\n"));
    }
    let _ = serde_json::to_value(&r);
});
