//! The `-I` report of an NVMe namespace or controller, typed once and rendered twice: as text
//! in `-I`'s layout wherever a line has an ATA counterpart (the header, `Model Number:` ...
//! aligned as for ATA, the capacity lines), and as JSON.
//!
//! JSON (the device's `identify` section, `{"nvme": {...}}`):
//! - `controller`: every decoded Identify Controller field under the specification's (and
//!   nvme-cli's `id-ctrl -o json`) name: `vid`, `sn`, `mn`, `fr`, `ver`, `oacs`, `oncs`,
//!   `vwc`, `apsta`, `wctemp`/`cctemp` (kelvin), `tnvmcap` (bytes), `psds` (power states)...
//! - `namespace`: Identify Namespace likewise (`nsze`, `ncap`, `nuse`, `flbas`, `lbafs`...;
//!   nvme-cli's `id-ns -o json` names), or null on the controller's node with no namespace.
//! - `nsid`; `transport` (`pcie_link_speed`, `pcie_link_width` from sysfs, null where absent;
//!   `nvme_version` as text); `capacity` (`sectors`, `logical_block_bytes`, `bytes`,
//!   `mebibytes`, `megabytes`); `lba_format_in_use`; `write_cache` (`present`, `enabled`);
//!   `power_state_current`; `apst` (`supported`, `enabled`); `temperature_thresholds_kelvin`
//!   (`warning`, `critical`); `firmware` (the slots log, or null when unreadable).
//!
//! Must not: fetch anything (the step in `exec::steps::nvme` does), or print to stdout itself.

use crate::nvme::identify::{fna, oacs, oncs, sanicap, IdCtrl, IdNs};
use crate::nvme::log::FirmwareSlots;
use schemars::JsonSchema;
use serde::Serialize;
use std::io::{self, Write};

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Transport {
    pub pcie_link_speed: Option<String>,
    pub pcie_link_width: Option<String>,
    pub nvme_version: String,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Capacity {
    pub sectors: u64,
    pub logical_block_bytes: u64,
    pub bytes: u64,
    pub mebibytes: u64,
    pub megabytes: u64,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct WriteCache {
    pub present: bool,
    pub enabled: Option<bool>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Apst {
    pub supported: bool,
    pub enabled: Option<bool>,
}

#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Thresholds {
    pub warning: u16,
    pub critical: u16,
}

/// Everything `-I` shows of an NVMe device.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmeIdentifyReport {
    #[schemars(range(min = 1))]
    pub nsid: Option<u32>,
    /// The controller's kernel name (`nvme0`).
    pub controller_name: Option<String>,
    pub controller: IdCtrl,
    pub namespace: Option<IdNs>,
    pub transport: Transport,
    pub capacity: Option<Capacity>,
    pub lba_format_in_use: Option<u8>,
    pub write_cache: WriteCache,
    pub power_state_current: Option<u8>,
    pub apst: Apst,
    pub temperature_thresholds_kelvin: Thresholds,
    pub firmware: Option<FirmwareSlots>,
}

/// -I on NVMe: Identify Controller and Namespace under the specification's (nvme-cli's) names,
/// and what -I derives from them (keys: the module doc); the device's `identify` section.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmeIdentify {
    pub nvme: NvmeIdentifyReport,
}

/// The capacity as `-I` computes it for ATA: sectors × logical size, MBytes both ways.
pub fn capacity(ns: &IdNs) -> Capacity {
    let block = ns.block_bytes();
    let bytes = ns.nsze.wrapping_mul(block);
    Capacity {
        sectors: ns.nsze,
        logical_block_bytes: block,
        bytes,
        mebibytes: bytes / (1024 * 1024),
        megabytes: bytes / 1000 / 1000,
    }
}

fn temp(kelvin: u16) -> String {
    if kelvin == 0 {
        "not reported".to_string()
    } else {
        format!("{} Celsius ({kelvin} K)", i32::from(kelvin) - 273)
    }
}

/// Writes the `-I` text, starting with hdparm's blank line.
pub fn render(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    render_identity(r, out)?;
    render_configuration(r, out)?;
    render_capabilities(r, out)?;
    render_features(r, out)?;
    render_power_and_firmware(r, out)?;
    Ok(())
}

/// The device line, its identity strings, transport and standards.
fn render_identity(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.controller;
    out.write_all(b"\nNVMe device, ")?;
    match (r.nsid, &r.controller_name) {
        (Some(n), Some(ctrl)) => writeln!(out, "namespace {n} of controller {ctrl}")?,
        (Some(n), None) => writeln!(out, "namespace {n}")?,
        (None, Some(ctrl)) => writeln!(out, "controller {ctrl}")?,
        (None, None) => writeln!(out, "controller")?,
    }
    for (label, text) in [
        ("Model Number:", &c.mn),
        ("Serial Number:", &c.sn),
        ("Firmware Revision:", &c.fr),
    ] {
        write!(out, "\t{label:<20}")?;
        out.write_all(text)?;
        out.write_all(b"\n")?;
    }
    let t = &r.transport;
    write!(out, "\t{:<20}", "Transport:")?;
    match (&t.pcie_link_speed, &t.pcie_link_width) {
        (Some(s), Some(w)) => write!(out, "PCIe {s} x{w}; ")?,
        (Some(s), None) => write!(out, "PCIe {s}; ")?,
        _ => {}
    }
    writeln!(out, "NVMe {}", t.nvme_version)?;
    writeln!(
        out,
        "\tPCI vendor/subsystem: 0x{:04x}/0x{:04x}; IEEE OUI: {:06x}",
        c.vid, c.ssvid, c.ieee
    )?;
    out.write_all(b"Standards:\n")?;
    writeln!(out, "\tUsed: NVM Express {}", t.nvme_version)?;
    Ok(())
}

/// `Configuration:`: the namespace's capacity and LBA formats, or why there are none.
fn render_configuration(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.controller;
    out.write_all(b"Configuration:\n")?;
    if let (Some(ns), Some(cap)) = (&r.namespace, &r.capacity) {
        writeln!(out, "\tLBA    user addressable sectors:{:>12}", cap.sectors)?;
        writeln!(
            out,
            "\t{:<31} {:>11} bytes",
            "Logical  Sector size:", cap.logical_block_bytes
        )?;
        writeln!(
            out,
            "\tdevice size with M = 1024*1024: {:>11} MBytes",
            cap.mebibytes
        )?;
        write!(
            out,
            "\tdevice size with M = 1000*1000: {:>11} MBytes ",
            cap.megabytes
        )?;
        if cap.bytes / 1000 > 1000 {
            writeln!(out, "({} GB)", cap.bytes / 1000 / 1_000_000)?;
        } else {
            out.write_all(b"\n")?;
        }
        writeln!(
            out,
            "\tNamespace capacity: {} sectors, in use: {} sectors",
            ns.ncap, ns.nuse
        )?;
        out.write_all(b"\tLBA formats (* in use):\n")?;
        let current = ns.lbaf_in_use();
        for (i, f) in ns.lbafs.iter().enumerate() {
            let star = if i == usize::from(current) { "*" } else { " " };
            writeln!(
                out,
                "\t   {star}\t{i:2}: {} bytes, metadata {} bytes, {} performance",
                f.block_bytes(),
                f.ms,
                f.performance_text()
            )?;
        }
        if ns.current_format().is_some_and(|f| f.ms > 0) {
            let how = if ns.metadata_extended() {
                "at the end of each block"
            } else {
                "in a separate buffer"
            };
            writeln!(out, "\tMetadata: transferred {how}")?;
        }
        let dealloc = match ns.dlfeat & 0x7 {
            1 => "zeros",
            2 => "ones (0xFF)",
            _ => "not reported",
        };
        writeln!(out, "\tDeallocated blocks read as: {dealloc}")?;
    } else {
        out.write_all(
            b"\tno namespace (the controller's node): use /dev/nvmeXnY for the capacity\n",
        )?;
    }
    if let Some(tn) = Some(c.tnvmcap).filter(|&v| v > 0) {
        writeln!(out, "\tTotal NVM capacity: {tn} bytes")?;
    }
    Ok(())
}

/// `Capabilities:`: the optional admin and NVM commands.
fn render_capabilities(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.controller;
    out.write_all(b"Capabilities:\n")?;
    out.write_all(b"\tOptional admin commands:\n")?;
    let sup = |b: bool| if b { "   *" } else { "    " };
    let format_detail = {
        let mut d = vec!["secure erase: user data"];
        if c.fna & fna::CRYPTO_ERASE != 0 {
            d.push("cryptographic");
        }
        let scope = if c.fna & fna::SECURE_ERASE_ALL_NAMESPACES != 0 {
            "all namespaces at once"
        } else {
            "per namespace"
        };
        format!("{}; {scope}", d.join(", "))
    };
    writeln!(
        out,
        "\t{}\tFormat NVM ({format_detail})",
        sup(c.oacs & oacs::FORMAT != 0)
    )?;
    let mut sanitize: Vec<&str> = Vec::new();
    for (bit, name) in [
        (sanicap::CRYPTO_ERASE, "crypto erase"),
        (sanicap::BLOCK_ERASE, "block erase"),
        (sanicap::OVERWRITE, "overwrite"),
    ] {
        if c.sanicap & bit != 0 {
            sanitize.push(name);
        }
    }
    let sanitize_text = if sanitize.is_empty() {
        String::new()
    } else {
        format!(" ({})", sanitize.join(", "))
    };
    writeln!(
        out,
        "\t{}\tSanitize{sanitize_text}",
        sup(!sanitize.is_empty())
    )?;
    writeln!(
        out,
        "\t{}\tFirmware Image Download / Commit (granularity {} bytes)",
        sup(c.oacs & oacs::FW_DOWNLOAD != 0),
        crate::nvme::command::fw_chunk_bytes(c.fwug)
    )?;
    writeln!(
        out,
        "\t{}\tSecurity Send / Receive",
        sup(c.oacs & oacs::SECURITY != 0)
    )?;
    writeln!(
        out,
        "\t{}\tDevice Self-test",
        sup(c.oacs & oacs::SELF_TEST != 0)
    )?;
    writeln!(
        out,
        "\t{}\tNamespace Management",
        sup(c.oacs & oacs::NS_MGMT != 0)
    )?;
    out.write_all(b"\tOptional NVM commands:\n")?;
    for (bit, name) in [
        (oncs::DSM, "Dataset Management (deallocate: TRIM)"),
        (oncs::WRITE_ZEROES, "Write Zeroes"),
        (oncs::COMPARE, "Compare"),
        (oncs::WRITE_UNCORRECTABLE, "Write Uncorrectable"),
        (oncs::VERIFY, "Verify"),
        (oncs::TIMESTAMP, "Timestamp feature"),
        (oncs::SAVE_SELECT, "Save / Select in Set/Get Features"),
        (oncs::RESERVATIONS, "Reservations"),
    ] {
        writeln!(out, "\t{}\t{name}", sup(c.oncs & bit != 0))?;
    }
    Ok(())
}

/// `Features:`: write cache, APST, temperature thresholds.
fn render_features(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.controller;
    out.write_all(b"Features:\n")?;
    let wc = &r.write_cache;
    let wc_state = match (wc.present, wc.enabled) {
        (false, _) => "not present".to_string(),
        (true, Some(e)) => format!("present, {}", if e { "enabled" } else { "disabled" }),
        (true, None) => "present, state unknown".to_string(),
    };
    writeln!(out, "\tVolatile write cache: {wc_state}")?;
    let apst = match (r.apst.supported, r.apst.enabled) {
        (false, _) => "not supported".to_string(),
        (true, Some(e)) => format!("supported, {}", if e { "enabled" } else { "disabled" }),
        (true, None) => "supported, state unknown".to_string(),
    };
    writeln!(out, "\tAutonomous Power State Transitions: {apst}")?;
    writeln!(out, "\tTemperature warning threshold:  {}", temp(c.wctemp))?;
    writeln!(out, "\tTemperature critical threshold: {}", temp(c.cctemp))?;
    Ok(())
}

/// The power states and the firmware slots.
fn render_power_and_firmware(r: &NvmeIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    let c = &r.controller;
    out.write_all(b"Power states (* current):\n")?;
    for (i, ps) in c.psds.iter().enumerate() {
        let star = if r.power_state_current == Some(i as u8) {
            "*"
        } else {
            " "
        };
        let op = if ps.non_operational_state != 0 {
            "non-operational"
        } else {
            "operational"
        };
        writeln!(
            out,
            "\t   {star}\tps {i:2}: max {:.4} W, {op}, entry latency {} us, exit latency {} us",
            ps.max_power_watts(),
            ps.entry_lat,
            ps.exit_lat
        )?;
    }
    let (slots, slot1_ro) = c.firmware_slots();
    writeln!(
        out,
        "Firmware slots: {slots}{}{}",
        if slot1_ro { ", slot 1 read-only" } else { "" },
        if c.fw_activate_without_reset() {
            ", activation without reset"
        } else {
            ""
        }
    )?;
    if let Some(fw) = &r.firmware {
        for (i, rev) in fw.revisions.iter().enumerate() {
            let slot = i as u8 + 1;
            let star = if fw.active_slot == slot { "*" } else { " " };
            write!(out, "\t   {star}\tslot {slot}: ")?;
            if rev.is_empty() {
                out.write_all(b"(empty)")?;
            } else {
                out.write_all(rev)?;
            }
            if fw.next_reset_slot == slot {
                out.write_all(b" (active after the next reset)")?;
            }
            out.write_all(b"\n")?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::nvme::identify::tests::{qemu_ctrl, qemu_ns};

    fn report() -> NvmeIdentifyReport {
        let ns = IdNs::decode(&qemu_ns());
        NvmeIdentifyReport {
            nsid: Some(1),
            controller_name: Some("nvme0".into()),
            controller: IdCtrl::decode(&qemu_ctrl()),
            capacity: Some(capacity(&ns)),
            lba_format_in_use: Some(ns.lbaf_in_use()),
            namespace: Some(ns),
            transport: Transport {
                pcie_link_speed: Some("2.5 GT/s PCIe".into()),
                pcie_link_width: Some("1".into()),
                nvme_version: "1.4".into(),
            },
            write_cache: WriteCache {
                present: true,
                enabled: Some(true),
            },
            power_state_current: Some(0),
            apst: Apst {
                supported: false,
                enabled: None,
            },
            temperature_thresholds_kelvin: Thresholds {
                warning: 343,
                critical: 373,
            },
            firmware: None,
        }
    }

    #[test]
    fn header_and_identity_lines_align_as_for_ata() {
        let mut out = Vec::new();
        render(&report(), &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(
            text.starts_with(
                "\nNVMe device, namespace 1 of controller nvme0\n\
             \tModel Number:       QEMU NVMe Ctrl\n\
             \tSerial Number:      HRSNVME0001\n\
             \tFirmware Revision:  7.2.0\n\
             \tTransport:          PCIe 2.5 GT/s PCIe x1; NVMe 1.4\n"
            ),
            "{text}"
        );
        assert!(
            text.contains("\tLBA    user addressable sectors:     2097152\n"),
            "{text}"
        );
        assert!(
            text.contains("\tLogical  Sector size:                   512 bytes\n"),
            "{text}"
        );
        assert!(
            text.contains("\tdevice size with M = 1024*1024:        1024 MBytes\n"),
            "{text}"
        );
        assert!(
            text.contains("\tdevice size with M = 1000*1000:        1073 MBytes (1 GB)\n"),
            "{text}"
        );
        assert!(
            text.contains("\t   *\t 0: 512 bytes, metadata 0 bytes, best performance\n"),
            "{text}"
        );
        assert!(
            text.contains("\t    \t 3: 512 bytes, metadata 64 bytes, best performance\n"),
            "{text}"
        );
        assert!(
            text.contains("\t   *\tFormat NVM (secure erase: user data; per namespace)\n"),
            "{text}"
        );
        assert!(text.contains("\t    \tSanitize\n"), "{text}");
        assert!(
            text.contains("\t   *\tDataset Management (deallocate: TRIM)\n"),
            "{text}"
        );
        assert!(
            text.contains("\tVolatile write cache: present, enabled\n"),
            "{text}"
        );
        assert!(
            text.contains("\tAutonomous Power State Transitions: not supported\n"),
            "{text}"
        );
        assert!(
            text.contains("\tTemperature warning threshold:  70 Celsius (343 K)\n"),
            "{text}"
        );
        assert!(text.contains("\t   *\tps  0: max 25.0000 W, operational, entry latency 16 us, exit latency 4 us\n"), "{text}");
        assert!(
            text.contains("Firmware slots: 1, slot 1 read-only\n"),
            "{text}"
        );
    }

    #[test]
    fn json_keys_are_nvme_cli_names() {
        let v = serde_json::to_value(report()).unwrap();
        assert_eq!(v["controller"]["sn"], "HRSNVME0001");
        assert_eq!(v["controller"]["mn"], "QEMU NVMe Ctrl");
        assert_eq!(v["controller"]["ver"], 0x10400);
        assert_eq!(v["controller"]["psds"][0]["max_power"], 2500);
        assert_eq!(v["namespace"]["nsze"], 2_097_152);
        assert_eq!(v["namespace"]["lbafs"][4]["ds"], 12);
        assert_eq!(v["capacity"]["mebibytes"], 1024);
        assert_eq!(v["write_cache"]["enabled"], true);
    }
}
