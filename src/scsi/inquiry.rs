//! INQUIRY answers (SPC-5 §6.7.2) and the VPD pages of `-I`/`-i` (SPC-5 §7.7, SBC-4 §6.6):
//! unit serial number 80h, device identification 83h (the NAA designator as the WWN), block
//! limits B0h, block device characteristics B1h, logical block provisioning B2h.
//!
//! Owns: the layouts and the words of their coded fields. Drive strings stay bytes (they
//! reach stdout unchanged). Must not: touch a device. Every decoder is total: a short page
//! reads its missing bytes as zero, a page that is not the one asked for decodes to `None`.

use super::{be16, be32, be64, byte, slice};

/// The standard INQUIRY data, the fields `-I` and `-i` show.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Inquiry {
    /// PERIPHERAL QUALIFIER (bits 7:5 of byte 0); 0 means a device is connected.
    pub qualifier: u8,
    /// PERIPHERAL DEVICE TYPE: 0 a direct-access block device (a disk), 5 CD/DVD, ...
    pub device_type: u8,
    pub removable: bool,
    /// VERSION: the SPC standard claimed (3 SPC, 4 SPC-2, 5 SPC-3, 6 SPC-4, 7 SPC-5).
    pub version: u8,
    pub response_data_format: u8,
    /// T10 VENDOR IDENTIFICATION, 8 bytes as sent (space padded).
    pub vendor: Vec<u8>,
    /// PRODUCT IDENTIFICATION, 16 bytes.
    pub product: Vec<u8>,
    /// PRODUCT REVISION LEVEL, 4 bytes.
    pub revision: Vec<u8>,
}

/// The standard INQUIRY data; `None` for an empty answer.
pub fn standard(answer: &[u8]) -> Option<Inquiry> {
    let first = *answer.first()?;
    Some(Inquiry {
        qualifier: first >> 5,
        device_type: first & 0x1F,
        removable: byte(answer, 1) & 0x80 != 0,
        version: byte(answer, 2),
        response_data_format: byte(answer, 3) & 0x0F,
        vendor: slice(answer, 8, 16).to_vec(),
        product: slice(answer, 16, 32).to_vec(),
        revision: slice(answer, 32, 36).to_vec(),
    })
}

/// An ASCII field of INQUIRY or a VPD page without its padding. SPC pads with spaces, but
/// QEMU's scsi-hd ends a short revision with NUL ("1.0\0") and scsi_debug its product
/// ("SCSI_DEBUG\0"), so NULs are padding too: printed, they would put a NUL in the report.
pub fn trim_field(field: &[u8]) -> &[u8] {
    let pad = |b: &u8| b.is_ascii_whitespace() || *b == 0;
    let start = field.iter().position(|b| !pad(b)).unwrap_or(field.len());
    let end = field.iter().rposition(|b| !pad(b)).map_or(start, |i| i + 1);
    &field[start..end]
}

impl Inquiry {
    pub fn vendor_trimmed(&self) -> &[u8] {
        trim_field(&self.vendor)
    }
    pub fn product_trimmed(&self) -> &[u8] {
        trim_field(&self.product)
    }
    pub fn revision_trimmed(&self) -> &[u8] {
        trim_field(&self.revision)
    }

    /// The standard the VERSION field claims, in SPC's name.
    pub fn version_name(&self) -> Option<&'static str> {
        Some(match self.version {
            0x00 => return None,
            0x03 => "SPC",
            0x04 => "SPC-2",
            0x05 => "SPC-3",
            0x06 => "SPC-4",
            0x07 => "SPC-5",
            _ => return None,
        })
    }
}

/// Peripheral device types in words (SPC-5 table 149), as sg_inq names the common ones.
pub fn device_type_name(t: u8) -> &'static str {
    match t {
        0x00 => "disk",
        0x01 => "tape",
        0x04 => "write once optical disk",
        0x05 => "cd/dvd",
        0x07 => "optical memory device",
        0x08 => "medium changer",
        0x0C => "storage array controller",
        0x0D => "enclosure services device",
        0x0E => "simplified direct access device",
        0x11 => "object based storage",
        0x14 => "host managed zoned block",
        0x1E => "well known logical unit",
        0x1F => "unknown or no device type",
        _ => "reserved or other",
    }
}

/// A VPD page's payload (bytes from 4, clipped to its PAGE LENGTH), when the answer is page
/// `code`.
pub fn vpd_payload(answer: &[u8], code: u8) -> Option<&[u8]> {
    if answer.len() < 4 || answer[1] != code {
        return None;
    }
    Some(slice(answer, 4, 4 + usize::from(be16(answer, 2))))
}

/// The pages listed by the supported VPD pages page (00h).
pub fn supported_pages(answer: &[u8]) -> Vec<u8> {
    vpd_payload(answer, 0x00)
        .map(<[u8]>::to_vec)
        .unwrap_or_default()
}

/// VPD 80h: the PRODUCT SERIAL NUMBER as sent (ASCII, often padded either side).
pub fn serial_number(answer: &[u8]) -> Option<Vec<u8>> {
    vpd_payload(answer, 0x80).map(<[u8]>::to_vec)
}

/// One designation descriptor of VPD 83h (SPC-5 §7.7.6.1).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Designator {
    pub protocol_identifier: u8,
    /// 1 binary, 2 ASCII, 3 UTF-8.
    pub code_set: u8,
    pub piv: bool,
    /// 0 the logical unit, 1 the target port, 2 the target device.
    pub association: u8,
    /// 1 T10 vendor ID, 2 EUI-64, 3 NAA, 4 relative target port, 8 SCSI name string, ...
    pub designator_type: u8,
    pub designator: Vec<u8>,
}

/// The designation descriptors of VPD 83h, as many as fit.
pub fn designators(answer: &[u8]) -> Vec<Designator> {
    let Some(p) = vpd_payload(answer, 0x83) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut at = 0;
    while at + 4 <= p.len() {
        let len = usize::from(p[at + 3]);
        out.push(Designator {
            protocol_identifier: p[at] >> 4,
            code_set: p[at] & 0x0F,
            piv: p[at + 1] & 0x80 != 0,
            association: (p[at + 1] >> 4) & 0x03,
            designator_type: p[at + 1] & 0x0F,
            designator: slice(p, at + 4, at + 4 + len).to_vec(),
        });
        at += 4 + len;
    }
    out
}

/// Designator type NAA (SPC-5 table 494).
pub const DESIGNATOR_NAA: u8 = 3;

/// The logical unit's World Wide Name: the NAA designator associated with the logical unit
/// (8 bytes for NAA 2, 3 and 5, 16 for NAA 6), as sg_vpd shows it (`0x5000c500a1b2c3e5`).
pub fn wwn(answer: &[u8]) -> Option<Wwn> {
    designators(answer)
        .into_iter()
        .find(|d| d.association == 0 && d.designator_type == DESIGNATOR_NAA && d.code_set == 1)
        .and_then(|d| {
            let naa = *d.designator.first()? >> 4;
            let want = if naa == 6 { 16 } else { 8 };
            (d.designator.len() >= want).then(|| Wwn {
                bytes: d.designator[..want].to_vec(),
            })
        })
}

/// An NAA name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Wwn {
    pub bytes: Vec<u8>,
}

impl Wwn {
    /// The NAA field (the first nibble): 5 IEEE Registered, 6 IEEE Registered Extended, ...
    pub fn naa(&self) -> u8 {
        byte(&self.bytes, 0) >> 4
    }

    /// For NAA 5 and 6: the IEEE company id (24 bits after the NAA nibble).
    pub fn ieee_oui(&self) -> Option<u32> {
        matches!(self.naa(), 5 | 6).then(|| (be32(&self.bytes, 0) >> 4) & 0xFF_FFFF)
    }

    /// The first 8 bytes as one number: hdparm's `Logical Unit WWN Device Identifier`.
    pub fn first_64(&self) -> u64 {
        be64(&self.bytes, 0)
    }

    /// Lower-case hex digits, no prefix.
    pub fn hex(&self) -> String {
        self.bytes.iter().map(|b| format!("{b:02x}")).collect()
    }
}

/// VPD B0h, block limits (SBC-4 §6.6.4): lengths in logical blocks.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct BlockLimits {
    pub write_same_non_zero: bool,
    pub max_compare_and_write_length: u8,
    pub optimal_transfer_length_granularity: u16,
    pub max_transfer_length: u32,
    pub optimal_transfer_length: u32,
    pub max_prefetch_length: u32,
    /// 0: UNMAP is not implemented; FFFFFFFFh: no limit.
    pub max_unmap_lba_count: u32,
    pub max_unmap_descriptor_count: u32,
    pub optimal_unmap_granularity: u32,
    /// The UNMAP GRANULARITY ALIGNMENT, when UGAVALID says it is valid.
    pub unmap_granularity_alignment: Option<u32>,
    pub max_write_same_length: u64,
}

/// VPD B0h.
pub fn block_limits(answer: &[u8]) -> Option<BlockLimits> {
    let p = vpd_payload(answer, 0xB0)?;
    // offsets in the payload are the page's byte numbers minus 4
    let uga = be32(p, 28);
    Some(BlockLimits {
        write_same_non_zero: byte(p, 0) & 1 != 0,
        max_compare_and_write_length: byte(p, 1),
        optimal_transfer_length_granularity: be16(p, 2),
        max_transfer_length: be32(p, 4),
        optimal_transfer_length: be32(p, 8),
        max_prefetch_length: be32(p, 12),
        max_unmap_lba_count: be32(p, 16),
        max_unmap_descriptor_count: be32(p, 20),
        optimal_unmap_granularity: be32(p, 24),
        unmap_granularity_alignment: (uga & 0x8000_0000 != 0).then_some(uga & 0x7FFF_FFFF),
        max_write_same_length: be64(p, 32),
    })
}

/// VPD B1h, block device characteristics (SBC-4 §6.6.2).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Characteristics {
    /// MEDIUM ROTATION RATE: 0 not reported, 1 non-rotating (solid state), else rpm.
    pub rotation_rate: u16,
    pub product_type: u8,
    /// NOMINAL FORM FACTOR (bits 3:0 of byte 7).
    pub form_factor: u8,
    /// ZONED (bits 5:4 of byte 8).
    pub zoned: u8,
}

/// VPD B1h.
pub fn characteristics(answer: &[u8]) -> Option<Characteristics> {
    let p = vpd_payload(answer, 0xB1)?;
    Some(Characteristics {
        rotation_rate: be16(p, 0),
        product_type: byte(p, 2),
        form_factor: byte(p, 3) & 0x0F,
        zoned: (byte(p, 4) >> 4) & 0x03,
    })
}

impl Characteristics {
    /// The form factor in hdparm's words for ATA's word 168 (which has the same codes).
    pub fn form_factor_name(&self) -> Option<&'static str> {
        Some(match self.form_factor {
            1 => "5.25 inch",
            2 => "3.5 inch",
            3 => "2.5 inch",
            4 => "1.8 inch",
            5 => "less than 1.8 inch",
            _ => return None,
        })
    }
}

/// VPD B2h, logical block provisioning (SBC-4 §6.6.6).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Provisioning {
    pub threshold_exponent: u8,
    /// UNMAP supported.
    pub lbpu: bool,
    /// WRITE SAME(16) with UNMAP supported.
    pub lbpws: bool,
    /// WRITE SAME(10) with UNMAP supported.
    pub lbpws10: bool,
    /// LBPRZ (3 bits in SBC-4; bit 0 set: unmapped blocks read as zeros).
    pub lbprz: u8,
    pub anc_sup: bool,
    pub dp: bool,
    /// 0 not reported (fully provisioned), 1 resource provisioned, 2 thin provisioned.
    pub provisioning_type: u8,
}

/// VPD B2h.
pub fn provisioning(answer: &[u8]) -> Option<Provisioning> {
    let p = vpd_payload(answer, 0xB2)?;
    let flags = byte(p, 1);
    Some(Provisioning {
        threshold_exponent: byte(p, 0),
        lbpu: flags & 0x80 != 0,
        lbpws: flags & 0x40 != 0,
        lbpws10: flags & 0x20 != 0,
        lbprz: (flags >> 2) & 0x07,
        anc_sup: flags & 0x02 != 0,
        dp: flags & 0x01 != 0,
        provisioning_type: byte(p, 2) & 0x07,
    })
}

impl Provisioning {
    pub fn provisioning_type_name(&self) -> &'static str {
        match self.provisioning_type {
            0 => "not known or fully provisioned",
            1 => "resource provisioned",
            2 => "thin provisioned",
            _ => "reserved",
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Standard INQUIRY as the VM's virtio-scsi disk (QEMU 7.2 scsi-hd with
    /// `vendor=HDPARMRS,product=VSCSI DISK`) answers: disk, SPC-3, format 2.
    pub(crate) fn qemu_inquiry() -> Vec<u8> {
        let mut a = vec![0x00, 0x00, 0x05, 0x12, 0x1F, 0x00, 0x00, 0x12];
        a.extend(b"HDPARMRS");
        a.extend(b"VSCSI DISK      ");
        a.extend(b"7.2 ");
        a
    }

    pub(crate) fn page(code: u8, payload: &[u8]) -> Vec<u8> {
        let mut a = vec![0x00, code];
        a.extend((payload.len() as u16).to_be_bytes());
        a.extend(payload);
        a
    }

    /// VPD 83h with a T10 vendor ID designator, then the NAA 5 one QEMU sends for
    /// `wwn=0x5000c500a1b2c3e5`.
    pub(crate) fn qemu_83() -> Vec<u8> {
        let mut p = vec![0x02, 0x01, 0x00, 0x08];
        p.extend(b"HDPARMRS");
        p.extend([
            0x01, 0x03, 0x00, 0x08, 0x50, 0x00, 0xC5, 0x00, 0xA1, 0xB2, 0xC3, 0xE5,
        ]);
        page(0x83, &p)
    }

    pub(crate) fn b1(rpm: u16, form: u8) -> Vec<u8> {
        let mut p = vec![0u8; 0x3C];
        p[..2].copy_from_slice(&rpm.to_be_bytes());
        p[3] = form;
        page(0xB1, &p)
    }

    pub(crate) fn b0(max_unmap: u32, descs: u32) -> Vec<u8> {
        let mut p = vec![0u8; 0x3C];
        p[4..8].copy_from_slice(&0xFFFFu32.to_be_bytes()); // max transfer length
        p[16..20].copy_from_slice(&max_unmap.to_be_bytes());
        p[20..24].copy_from_slice(&descs.to_be_bytes());
        p[24..28].copy_from_slice(&8u32.to_be_bytes()); // optimal unmap granularity (4096 B)
        p[28..32].copy_from_slice(&0x8000_0000u32.to_be_bytes());
        p[32..40].copy_from_slice(&0xFFFF_u64.to_be_bytes());
        page(0xB0, &p)
    }

    #[test]
    fn standard_inquiry() {
        let i = standard(&qemu_inquiry()).unwrap();
        assert_eq!((i.qualifier, i.device_type, i.version), (0, 0, 5));
        assert_eq!(i.vendor_trimmed(), b"HDPARMRS");
        assert_eq!(i.product_trimmed(), b"VSCSI DISK");
        assert_eq!(i.revision_trimmed(), b"7.2");
        assert_eq!(trim_field(b"1.0\0"), b"1.0");
        assert_eq!(trim_field(b"SCSI_DEBUG\0     "), b"SCSI_DEBUG");
        assert_eq!(trim_field(b"\0\0  "), b"");
        assert_eq!(i.version_name(), Some("SPC-3"));
        assert_eq!(device_type_name(i.device_type), "disk");
        let short = standard(&qemu_inquiry()[..12]).unwrap();
        assert_eq!(short.vendor, b"HDPA");
        assert!(short.product.is_empty());
        assert_eq!(standard(&[]), None);
    }

    #[test]
    fn serial_and_wwn() {
        assert_eq!(
            serial_number(&page(0x80, b"vscsi-0001")).unwrap(),
            b"vscsi-0001"
        );
        assert_eq!(serial_number(&page(0x83, b"x")), None);
        let w = wwn(&qemu_83()).unwrap();
        assert_eq!(w.hex(), "5000c500a1b2c3e5");
        assert_eq!(w.naa(), 5);
        assert_eq!(w.ieee_oui(), Some(0x000C50));
        assert_eq!(w.first_64(), 0x5000_c500_a1b2_c3e5);
        assert_eq!(designators(&qemu_83()).len(), 2);
        // a descriptor that runs past the page is cut, not read beyond
        let mut cut = qemu_83();
        cut.truncate(cut.len() - 3);
        cut[3] -= 3;
        assert_eq!(wwn(&cut), None);
    }

    #[test]
    fn block_pages() {
        let bl = block_limits(&b0(0x2000, 255)).unwrap();
        assert_eq!(bl.max_transfer_length, 0xFFFF);
        assert_eq!(bl.max_unmap_lba_count, 0x2000);
        assert_eq!(bl.max_unmap_descriptor_count, 255);
        assert_eq!(bl.optimal_unmap_granularity, 8);
        assert_eq!(bl.unmap_granularity_alignment, Some(0));
        assert_eq!(bl.max_write_same_length, 0xFFFF);
        let c = characteristics(&b1(7200, 0x02)).unwrap();
        assert_eq!(c.rotation_rate, 7200);
        assert_eq!(c.form_factor_name(), Some("3.5 inch"));
        // scsi_debug's B2h: LBPU, LBPWS, LBPWS10, LBPRZ=1, thin provisioned
        let p = provisioning(&page(0xB2, &[0x00, 0xE4, 0x02, 0x00])).unwrap();
        assert!(p.lbpu && p.lbpws && p.lbpws10 && !p.anc_sup);
        assert_eq!(p.lbprz, 1);
        assert_eq!(p.provisioning_type_name(), "thin provisioned");
        assert_eq!(
            supported_pages(&page(0, &[0, 0x80, 0x83, 0xB0])),
            vec![0, 0x80, 0x83, 0xB0]
        );
    }
}
