//! The `-I` report of a SCSI disk (issue 22), typed once and rendered twice: as text in
//! hdparm's `-I` layout wherever a line has an ATA counterpart (a `SCSI device` header, then
//! `Model Number:` and its neighbours aligned as for ATA, the `Configuration:` capacity
//! lines, rotation rate, form factor, the UNMAP lines where ATA has TRIM's, the WWN block),
//! and as JSON.
//!
//! JSON (the device's `identify` section, `{"scsi": {...}}`): `device_type` (the peripheral
//! device type number) and `device_type_name`; `removable`; `vendor`, `product`, `revision`,
//! `serial` (strings, trailing blanks trimmed; `serial` null without VPD 80h); `version`
//! (INQUIRY's VERSION) and `standard` (its name or null); `capacity` (`logical_blocks`,
//! `logical_block_bytes`, `physical_block_bytes`, `lowest_aligned_lba`, `bytes`, `mebibytes`,
//! `megabytes`, `lbpme`, `lbprz`; null without READ CAPACITY(16)); `rotation_rate_rpm` (null
//! unless B1h gives a rate; 1 is a solid-state device), `solid_state`, `form_factor` (text or
//! null); `block_limits` (`max_transfer_blocks`, `optimal_transfer_blocks`,
//! `max_unmap_lba_count`, `max_unmap_descriptor_count`, `optimal_unmap_granularity_blocks`;
//! null without B0h); `provisioning` (`lbpu`, `lbpws`, `lbpws10`, `lbprz`, `type`; null
//! without B2h); `wwn` (`naa`, `ieee_oui`, `hex`; null without an NAA designator).
//!
//! Must not: fetch anything (the executor sends the INQUIRYs and READ CAPACITY and hands the
//! answers to [`ScsiIdentifyReport::from_answers`]), or print to stdout itself.

use std::io::{self, Write};

use schemars::JsonSchema;
use serde::Serialize;

use crate::report::identify::IdText;
use crate::scsi::{capacity, inquiry};

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Capacity {
    pub logical_blocks: u64,
    pub logical_block_bytes: u32,
    pub physical_block_bytes: u64,
    pub lowest_aligned_lba: u16,
    pub bytes: u128,
    pub mebibytes: u128,
    pub megabytes: u128,
    pub lbpme: bool,
    pub lbprz: bool,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct BlockLimits {
    pub max_transfer_blocks: u32,
    pub optimal_transfer_blocks: u32,
    pub max_unmap_lba_count: u32,
    pub max_unmap_descriptor_count: u32,
    pub optimal_unmap_granularity_blocks: u32,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Provisioning {
    pub lbpu: bool,
    pub lbpws: bool,
    pub lbpws10: bool,
    pub lbprz: u8,
    #[serde(rename = "type")]
    pub provisioning_type: &'static str,
}

#[derive(Debug, Clone, Serialize, JsonSchema, PartialEq, Eq)]
pub struct Wwn {
    pub naa: u8,
    pub ieee_oui: Option<u32>,
    pub hex: String,
    /// The first 64 bits, as ATA's `-I` prints its WWN.
    #[serde(skip)]
    pub first_64: u64,
}

/// Everything `-I` shows of a SCSI disk (the `scsi` object of a device's `identify`):
/// INQUIRY, its VPD pages 80h, 83h, B0h, B1h, B2h and READ CAPACITY(16), each null where the
/// disk refused it.
#[derive(Debug, Clone, Serialize, JsonSchema)]
pub struct ScsiIdentifyReport {
    pub device_type: u8,
    pub device_type_name: &'static str,
    pub removable: bool,
    pub vendor: IdText,
    pub product: IdText,
    pub revision: IdText,
    pub serial: Option<IdText>,
    pub version: u8,
    pub standard: Option<&'static str>,
    pub capacity: Option<Capacity>,
    pub rotation_rate_rpm: Option<u16>,
    pub solid_state: bool,
    pub form_factor: Option<&'static str>,
    pub block_limits: Option<BlockLimits>,
    pub provisioning: Option<Provisioning>,
    pub wwn: Option<Wwn>,
}

/// The device's `identify` section on a SCSI disk that does not take ATA (issue 22's twins):
/// the report under `scsi`.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ScsiIdentify {
    #[schemars(schema_with = "super::schema::scsi_identify_ref")]
    pub scsi: ScsiIdentifyReport,
}

/// The answers the executor collected; each `None` where the disk refused the command.
#[derive(Debug, Clone, Copy, Default)]
pub struct Answers<'a> {
    pub inquiry: &'a [u8],
    pub serial: Option<&'a [u8]>,
    pub device_identification: Option<&'a [u8]>,
    pub block_limits: Option<&'a [u8]>,
    pub characteristics: Option<&'a [u8]>,
    pub provisioning: Option<&'a [u8]>,
    pub read_capacity_16: Option<&'a [u8]>,
}

fn trimmed(b: &[u8]) -> IdText {
    IdText(inquiry::trim_field(b).to_vec())
}

impl ScsiIdentifyReport {
    /// The report from the answers; `None` when the standard INQUIRY is empty.
    pub fn from_answers(a: &Answers<'_>) -> Option<ScsiIdentifyReport> {
        let inq = inquiry::standard(a.inquiry)?;
        let cap = a.read_capacity_16.and_then(capacity::decode).map(|c| {
            let bytes = c.bytes();
            Capacity {
                logical_blocks: c.blocks(),
                logical_block_bytes: c.block_length,
                physical_block_bytes: c.physical_block_length(),
                lowest_aligned_lba: c.lowest_aligned_lba,
                bytes,
                mebibytes: bytes >> 20,
                megabytes: bytes / 1_000_000,
                lbpme: c.lbpme,
                lbprz: c.lbprz,
            }
        });
        let chars = a.characteristics.and_then(inquiry::characteristics);
        let rpm = chars.map(|c| c.rotation_rate);
        Some(ScsiIdentifyReport {
            device_type: inq.device_type,
            device_type_name: inquiry::device_type_name(inq.device_type),
            removable: inq.removable,
            vendor: trimmed(&inq.vendor),
            product: trimmed(&inq.product),
            revision: trimmed(&inq.revision),
            serial: a
                .serial
                .and_then(inquiry::serial_number)
                .map(|s| trimmed(&s)),
            version: inq.version,
            standard: inq.version_name(),
            capacity: cap,
            rotation_rate_rpm: rpm.filter(|&r| r >= 0x0401 && r != 0xFFFF),
            solid_state: rpm == Some(1),
            form_factor: chars.and_then(|c| c.form_factor_name()),
            block_limits: a
                .block_limits
                .and_then(inquiry::block_limits)
                .map(|b| BlockLimits {
                    max_transfer_blocks: b.max_transfer_length,
                    optimal_transfer_blocks: b.optimal_transfer_length,
                    max_unmap_lba_count: b.max_unmap_lba_count,
                    max_unmap_descriptor_count: b.max_unmap_descriptor_count,
                    optimal_unmap_granularity_blocks: b.optimal_unmap_granularity,
                }),
            provisioning: a
                .provisioning
                .and_then(inquiry::provisioning)
                .map(|p| Provisioning {
                    lbpu: p.lbpu,
                    lbpws: p.lbpws,
                    lbpws10: p.lbpws10,
                    lbprz: p.lbprz,
                    provisioning_type: p.provisioning_type_name(),
                }),
            wwn: a.device_identification.and_then(inquiry::wwn).map(|w| Wwn {
                naa: w.naa(),
                ieee_oui: w.ieee_oui(),
                hex: w.hex(),
                first_64: w.first_64(),
            }),
        })
    }
}

fn feature(out: &mut dyn Write, enabled: bool, name: &str) -> io::Result<()> {
    writeln!(out, "\t   {}\t{name}", if enabled { '*' } else { ' ' })
}

/// Writes the `-I` text for a SCSI disk, starting with hdparm's blank line.
pub fn render(r: &ScsiIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    write!(out, "\nSCSI device, {}, with ", r.device_type_name)?;
    if !r.removable {
        out.write_all(b"non-")?;
    }
    out.write_all(b"removable media\n")?;
    for (label, text) in [
        ("Vendor:", Some(&r.vendor)),
        ("Model Number:", Some(&r.product)),
        ("Serial Number:", r.serial.as_ref()),
        ("Firmware Revision:", Some(&r.revision)),
    ] {
        if let Some(t) = text {
            write!(out, "\t{label:<20}")?;
            out.write_all(&t.0)?;
            out.write_all(b"\n")?;
        }
    }
    if let Some(s) = r.standard {
        writeln!(out, "Standards:\n\tUsed: {s} ")?;
    }
    out.write_all(b"Configuration:\n")?;
    if let Some(c) = &r.capacity {
        writeln!(
            out,
            "\tLBA    user addressable sectors:{:>12}",
            c.logical_blocks
        )?;
        writeln!(
            out,
            "\t{:<31} {:>11} bytes",
            "Logical  Sector size:", c.logical_block_bytes
        )?;
        writeln!(
            out,
            "\t{:<31} {:>11} bytes",
            "Physical Sector size:", c.physical_block_bytes
        )?;
        if c.lowest_aligned_lba != 0 {
            writeln!(
                out,
                "\t{:<31} {:>11} bytes",
                "Logical Sector-0 offset:",
                u64::from(c.lowest_aligned_lba) * u64::from(c.logical_block_bytes)
            )?;
        }
        writeln!(
            out,
            "\tdevice size with M = 1024*1024: {:>11} MBytes",
            c.mebibytes
        )?;
        write!(
            out,
            "\tdevice size with M = 1000*1000: {:>11} MBytes ",
            c.megabytes
        )?;
        // hdparm adds the GB figure once the size passes a megabyte, as for ATA
        if c.bytes / 1000 > 1000 {
            writeln!(out, "({} GB)", c.bytes / 1000 / 1_000_000)?;
        } else {
            out.write_all(b"\n")?;
        }
    }
    if let Some(b) = &r.block_limits {
        if b.max_transfer_blocks != 0 {
            writeln!(
                out,
                "\tMaximum transfer length: {} blocks",
                b.max_transfer_blocks
            )?;
        }
        if b.optimal_transfer_blocks != 0 {
            writeln!(
                out,
                "\tOptimal transfer length: {} blocks",
                b.optimal_transfer_blocks
            )?;
        }
    }
    if let Some(ff) = r.form_factor {
        writeln!(out, "\tForm Factor: {ff}")?;
    }
    if r.solid_state {
        out.write_all(b"\tNominal Media Rotation Rate: Solid State Device\n")?;
    } else if let Some(rpm) = r.rotation_rate_rpm {
        writeln!(out, "\tNominal Media Rotation Rate: {rpm}")?;
    }
    let lbpme = r.capacity.as_ref().is_some_and(|c| c.lbpme);
    let lbpu = r.provisioning.as_ref().is_some_and(|p| p.lbpu);
    if lbpme || lbpu || r.provisioning.is_some() {
        out.write_all(b"Commands/features:\n\tEnabled\tSupported:\n")?;
        let mut unmap = String::from("UNMAP (logical block provisioning)");
        if let Some(b) = r
            .block_limits
            .as_ref()
            .filter(|b| b.max_unmap_lba_count != 0)
        {
            if b.max_unmap_lba_count == u32::MAX {
                unmap.push_str(" (no limit)");
            } else {
                let n = b.max_unmap_lba_count;
                unmap.push_str(&format!(
                    " (limit {n} block{})",
                    if n > 1 { "s" } else { "" }
                ));
            }
        }
        feature(out, lbpme && lbpu, &unmap)?;
        if let Some(p) = &r.provisioning {
            if p.lbpws {
                feature(out, lbpme, "WRITE SAME(16) with UNMAP")?;
            }
            if p.lbpws10 {
                feature(out, lbpme, "WRITE SAME(10) with UNMAP")?;
            }
            writeln!(out, "\t\tProvisioning: {}", p.provisioning_type)?;
        }
        if r.capacity.as_ref().is_some_and(|c| c.lbprz) {
            out.write_all(b"\t   *\tDeterministic read ZEROs after UNMAP\n")?;
        }
    }
    if let Some(w) = &r.wwn {
        writeln!(out, "Logical Unit WWN Device Identifier: {}", w.hex)?;
        writeln!(out, "\tNAA\t\t: {:x}", w.naa)?;
        if let Some(oui) = w.ieee_oui {
            writeln!(out, "\tIEEE OUI\t: {oui:06x}")?;
            // NAA 5: 4 bits NAA, 24 bits OUI, 36 bits of vendor-specific id
            let unique = w.first_64 & 0xF_FFFF_FFFF;
            writeln!(
                out,
                "\tUnique ID\t: {:x}{:08x}",
                unique >> 32,
                unique & 0xFFFF_FFFF
            )?;
        }
    }
    Ok(())
}

/// Writes `-i`'s first line for a SCSI disk, from the same report: ` Model=` (vendor and
/// product, as the kernel's sd driver names a SCSI disk), `FwRev=`, `SerialNo=`, after
/// hdparm's blank line. The rest of `-i` is the kernel's copy of ATA IDENTIFY, which a SCSI
/// disk does not have.
pub fn render_brief(r: &ScsiIdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"\n Model=")?;
    out.write_all(&r.vendor.0)?;
    if !r.vendor.0.is_empty() {
        out.write_all(b" ")?;
    }
    out.write_all(&r.product.0)?;
    out.write_all(b", FwRev=")?;
    out.write_all(&r.revision.0)?;
    out.write_all(b", SerialNo=")?;
    if let Some(s) = &r.serial {
        out.write_all(&s.0)?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scsi::capacity::tests::answer as read_capacity;
    use crate::scsi::inquiry::tests::{b0, b1, page, qemu_83, qemu_inquiry};

    fn text(r: &ScsiIdentifyReport) -> String {
        let mut out = Vec::new();
        render(r, &mut out).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn the_vms_virtio_scsi_disk() {
        let serial = page(0x80, b"  hdparm-rs-vscsi");
        let di = qemu_83();
        let bl = b0(0x3FFF_FFFF, 255);
        let bdc = b1(7200, 0);
        let lbp = page(0xB2, &[0x00, 0xE0, 0x00, 0x00]);
        let rc = read_capacity(2 << 20, 512, 3, true, false);
        let r = ScsiIdentifyReport::from_answers(&Answers {
            inquiry: &qemu_inquiry(),
            serial: Some(&serial),
            device_identification: Some(&di),
            block_limits: Some(&bl),
            characteristics: Some(&bdc),
            provisioning: Some(&lbp),
            read_capacity_16: Some(&rc),
        })
        .unwrap();
        assert_eq!(
            text(&r),
            "\nSCSI device, disk, with non-removable media\n\
             \tVendor:             HDPARMRS\n\
             \tModel Number:       VSCSI DISK\n\
             \tSerial Number:      hdparm-rs-vscsi\n\
             \tFirmware Revision:  7.2\n\
             Standards:\n\tUsed: SPC-3 \n\
             Configuration:\n\
             \tLBA    user addressable sectors:     2097152\n\
             \tLogical  Sector size:                   512 bytes\n\
             \tPhysical Sector size:                  4096 bytes\n\
             \tdevice size with M = 1024*1024:        1024 MBytes\n\
             \tdevice size with M = 1000*1000:        1073 MBytes (1 GB)\n\
             \tMaximum transfer length: 65535 blocks\n\
             \tNominal Media Rotation Rate: 7200\n\
             Commands/features:\n\tEnabled\tSupported:\n\
             \t   *\tUNMAP (logical block provisioning) (limit 1073741823 blocks)\n\
             \t   *\tWRITE SAME(16) with UNMAP\n\
             \t   *\tWRITE SAME(10) with UNMAP\n\
             \t\tProvisioning: not known or fully provisioned\n\
             Logical Unit WWN Device Identifier: 5000c500a1b2c3e5\n\
             \tNAA\t\t: 5\n\
             \tIEEE OUI\t: 000c50\n\
             \tUnique ID\t: 0a1b2c3e5\n"
        );
        let mut brief = Vec::new();
        render_brief(&r, &mut brief).unwrap();
        assert_eq!(
            String::from_utf8(brief).unwrap(),
            "\n Model=HDPARMRS VSCSI DISK, FwRev=7.2, SerialNo=hdparm-rs-vscsi\n"
        );
        let j = serde_json::to_value(&r).unwrap();
        assert_eq!(j["vendor"], "HDPARMRS");
        assert_eq!(j["capacity"]["physical_block_bytes"], 4096);
        assert_eq!(j["wwn"]["hex"], "5000c500a1b2c3e5");
        assert_eq!(j["rotation_rate_rpm"], 7200);
        assert_eq!(j["provisioning"]["type"], "not known or fully provisioned");
    }

    #[test]
    fn inquiry_alone() {
        let r = ScsiIdentifyReport::from_answers(&Answers {
            inquiry: &qemu_inquiry(),
            ..Answers::default()
        })
        .unwrap();
        let t = text(&r);
        assert!(t.ends_with("Configuration:\n"), "{t}");
        assert!(!t.contains("Serial"));
        assert!(ScsiIdentifyReport::from_answers(&Answers::default()).is_none());
    }
}
