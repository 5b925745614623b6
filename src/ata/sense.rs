//! SCSI sense data returned by ATA PASS-THROUGH, decoded into values and words (SPC-5 §4.4,
//! SAT-4 §12.2.5 and §12.2.6).
//!
//! Owns: both sense formats (descriptor 0x72/0x73 with the ATA Status Return descriptor, fixed
//! 0x70/0x71 with the registers in the INFORMATION and COMMAND-SPECIFIC INFORMATION fields),
//! the names of sense keys, additional sense codes and ATA register bits, and the verdict "this
//! device does not do ATA pass-through". Also hdparm's own, stricter reading of the sense
//! buffer, so callers can reproduce its messages. Must not: touch a device.
//!
//! Linux quirk: libata before 6.11 (Debian 12's 6.1 included) wrote the fixed-format registers
//! 5 bytes too far (error, status, device, count at bytes 8-11, the LBA at 17-19) and left the
//! VALID bit clear; 6.11 moved them to where SAT puts them and sets VALID. Which layout a
//! fixed-format buffer is read in depends on who wrote it ([`FixedLayout`]): libata's own
//! layouts for a libata device, SAT's standard one for everything else (USB bridges, SAS
//! HBAs, a software target), since the same bytes mean different registers in the two.

use super::command::AtaRegisters;

/// Response codes (SPC-5 §4.4.1).
pub const FIXED_CURRENT: u8 = 0x70;
pub const FIXED_DEFERRED: u8 = 0x71;
pub const DESC_CURRENT: u8 = 0x72;
pub const DESC_DEFERRED: u8 = 0x73;

/// Descriptor type of the ATA Status Return sense data descriptor (SAT-4 §12.2.5).
pub const ATA_STATUS_RETURN: u8 = 0x09;

/// Sense keys (SPC-5 table 52).
pub mod key {
    pub const NO_SENSE: u8 = 0x0;
    pub const RECOVERED_ERROR: u8 = 0x1;
    pub const NOT_READY: u8 = 0x2;
    pub const MEDIUM_ERROR: u8 = 0x3;
    pub const HARDWARE_ERROR: u8 = 0x4;
    pub const ILLEGAL_REQUEST: u8 = 0x5;
    pub const UNIT_ATTENTION: u8 = 0x6;
    pub const DATA_PROTECT: u8 = 0x7;
    pub const BLANK_CHECK: u8 = 0x8;
    pub const VENDOR_SPECIFIC: u8 = 0x9;
    pub const COPY_ABORTED: u8 = 0xA;
    pub const ABORTED_COMMAND: u8 = 0xB;
    pub const VOLUME_OVERFLOW: u8 = 0xD;
    pub const MISCOMPARE: u8 = 0xE;
    pub const COMPLETED: u8 = 0xF;
}

/// The layout the sense data came in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SenseFormat {
    Fixed,
    Descriptor,
}

/// Decoded sense data.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Sense {
    pub format: SenseFormat,
    /// Response code without the VALID bit: 0x70-0x73.
    pub response_code: u8,
    pub key: u8,
    pub asc: u8,
    pub ascq: u8,
    /// The ATA result registers, when the sense data carries them.
    pub registers: Option<AtaRegisters>,
    /// For ILLEGAL REQUEST in fixed format: the CDB byte the target objected to, when it says.
    pub cdb_field: Option<u16>,
}

/// Who wrote a fixed-format sense buffer, which decides where its ATA registers are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FixedLayout {
    /// Linux libata: before 6.11 the registers shifted to bytes 8-11 and 16-19 without VALID;
    /// from 6.11 SAT's positions with VALID set.
    Libata,
    /// SAT-4 table 210, as every other translator writes it: INFORMATION (bytes 3-6) = ERROR,
    /// STATUS, DEVICE, COUNT(7:0); COMMAND-SPECIFIC INFORMATION (bytes 8-11) = flags, LBA(7:0),
    /// LBA(15:8), LBA(23:16); ASC/ASCQ 00/1D when the registers are there. The VALID bit is
    /// not relied on (many bridges leave it clear).
    #[default]
    Sat,
}

/// Decodes a sense buffer written by libata (see [`decode_as`]).
pub fn decode(sb: &[u8]) -> Option<Sense> {
    decode_as(sb, FixedLayout::Libata)
}

/// Decodes a sense buffer, reading a fixed-format one in `layout`; `None` when it holds no
/// sense data (response code not 0x70-0x73, as when the command completed without CHECK
/// CONDITION and the buffer is all zero).
pub fn decode_as(sb: &[u8], layout: FixedLayout) -> Option<Sense> {
    let first = *sb.first()?;
    let code = first & 0x7F;
    match code {
        DESC_CURRENT | DESC_DEFERRED => Some(decode_descriptor(sb, code)),
        FIXED_CURRENT | FIXED_DEFERRED => Some(decode_fixed(sb, code, first & 0x80 != 0, layout)),
        _ => None,
    }
}

fn byte(sb: &[u8], i: usize) -> u8 {
    sb.get(i).copied().unwrap_or(0)
}

fn decode_descriptor(sb: &[u8], code: u8) -> Sense {
    let additional = usize::from(byte(sb, 7));
    let end = (8 + additional).min(sb.len());
    let mut registers = None;
    let mut at = 8;
    // Walk the descriptor list: each is [type, additional length, ...].
    while at + 2 <= end {
        let kind = sb[at];
        let len = usize::from(sb[at + 1]);
        if kind == ATA_STATUS_RETURN && len >= 0x0C && at + 14 <= sb.len() {
            registers = Some(status_return_registers(&sb[at..at + 14]));
            break;
        }
        at += 2 + len;
    }
    Sense {
        format: SenseFormat::Descriptor,
        response_code: code,
        key: byte(sb, 1) & 0x0F,
        asc: byte(sb, 2),
        ascq: byte(sb, 3),
        registers,
        cdb_field: None,
    }
}

/// The registers of an ATA Status Return descriptor (SAT-4 table 209): `d` starts at the
/// descriptor type byte and is at least 14 bytes long.
fn status_return_registers(d: &[u8]) -> AtaRegisters {
    let extend = d[2] & 0x01 != 0;
    let mut count = u16::from(d[5]);
    let mut lba = u64::from(d[7]) | u64::from(d[9]) << 8 | u64::from(d[11]) << 16;
    if extend {
        count |= u16::from(d[4]) << 8;
        lba |= u64::from(d[6]) << 24 | u64::from(d[8]) << 32 | u64::from(d[10]) << 40;
    }
    AtaRegisters {
        status: d[13],
        error: d[3],
        count,
        lba,
        device: d[12],
        lba48: extend,
    }
}

fn decode_fixed(sb: &[u8], code: u8, valid: bool, layout: FixedLayout) -> Sense {
    let key = byte(sb, 2) & 0x0F;
    // VALID alone does not mean registers: an ATAPI drive that received the CDB as a packet
    // command answers with its own VALID fixed sense (`f0 00 05 ... 20 00`). A completed ATA
    // command always leaves a non-zero status, and CK_COND answers carry 00/1D.
    let pass_through_info = byte(sb, 12) == 0x00 && byte(sb, 13) == 0x1D;
    let ata_info = byte(sb, 4) != 0 || pass_through_info;
    let sat_positions = match layout {
        FixedLayout::Libata => valid && ata_info,
        // A translator that says "ATA pass through information available" put the registers
        // there, VALID or not; otherwise VALID with a non-zero status is needed.
        FixedLayout::Sat => pass_through_info || (valid && byte(sb, 4) != 0),
    };
    let registers = if sat_positions {
        // SAT-4 table 210: INFORMATION = error, status, device, count(7:0); COMMAND-SPECIFIC
        // INFORMATION = flags (EXTEND, COUNT UPPER NONZERO, LBA UPPER NONZERO), LBA(23:0).
        // The upper bytes are not in fixed sense at all.
        Some(fixed_registers(sb, 3, 8))
    } else if layout == FixedLayout::Libata && old_libata_layout(sb) {
        // Old libata wrote the same two fields at bytes 8-11 and 16-19.
        Some(fixed_registers(sb, 8, 16))
    } else {
        None
    };
    // Sense-key specific bytes 15-17: SKSV, C/D (the field is in the CDB), field pointer.
    let cdb_field = if key == key::ILLEGAL_REQUEST
        && registers.is_none()
        && byte(sb, 15) & 0xC0 == 0xC0
        && sb.len() >= 18
    {
        Some(u16::from(byte(sb, 16)) << 8 | u16::from(byte(sb, 17)))
    } else {
        None
    };
    Sense {
        format: SenseFormat::Fixed,
        response_code: code,
        key,
        asc: byte(sb, 12),
        ascq: byte(sb, 13),
        registers,
        cdb_field,
    }
}

/// The registers of fixed sense whose INFORMATION field (error, status, device, count 7:0)
/// starts at `info` and whose COMMAND-SPECIFIC INFORMATION field (flags, LBA 7:0, 15:8, 23:16)
/// starts at `specific`.
fn fixed_registers(sb: &[u8], info: usize, specific: usize) -> AtaRegisters {
    AtaRegisters {
        error: byte(sb, info),
        status: byte(sb, info + 1),
        device: byte(sb, info + 2),
        count: u16::from(byte(sb, info + 3)),
        lba: lba24(
            byte(sb, specific + 1),
            byte(sb, specific + 2),
            byte(sb, specific + 3),
        ),
        lba48: byte(sb, specific) & 0x80 != 0,
    }
}

fn lba24(low: u8, mid: u8, high: u8) -> u64 {
    u64::from(low) | u64::from(mid) << 8 | u64::from(high) << 16
}

/// Whether a fixed-format buffer without the VALID bit looks like old libata's misplaced
/// registers: INFORMATION empty, a non-zero ATA status at byte 9, and byte 15 zeroed (libata
/// cleared it). A target's own ILLEGAL REQUEST carries its field pointer there with SKSV set
/// (0x80), and a plain SCSI error leaves byte 9 zero, so neither is mistaken for registers.
fn old_libata_layout(sb: &[u8]) -> bool {
    sb.len() >= 20 && sb[3..7].iter().all(|&b| b == 0) && sb[9] != 0 && sb[15] == 0
}

impl Sense {
    /// The sense key in words, as SPC names it: `"ILLEGAL REQUEST"`.
    pub fn key_name(&self) -> &'static str {
        key_name(self.key)
    }

    /// The additional sense code in words (lower case, SPC's wording), or its numbers.
    pub fn asc_text(&self) -> String {
        match asc_name(self.asc, self.ascq) {
            Some(s) => s.to_string(),
            None => format!(
                "additional sense code 0x{:02x}/0x{:02x}",
                self.asc, self.ascq
            ),
        }
    }

    /// One line for users: `ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00)`.
    pub fn describe(&self) -> String {
        let mut s = format!(
            "{}: {} (ASC/ASCQ {:02x}/{:02x})",
            self.key_name(),
            self.asc_text(),
            self.asc,
            self.ascq
        );
        if let Some(field) = self.cdb_field {
            s.push_str(&format!(", CDB byte {field}"));
        }
        s
    }

    /// The target does not implement ATA PASS-THROUGH at all: SAT-4 §12.2.1 requires a SATL
    /// that lacks the command to answer ILLEGAL REQUEST, INVALID COMMAND OPERATION CODE. This is
    /// what a plain SCSI disk (virtio-scsi, a real SAS disk) and most USB storage say.
    pub fn refuses_pass_through(&self) -> bool {
        self.registers.is_none()
            && self.key == key::ILLEGAL_REQUEST
            && self.asc == 0x20
            && self.ascq == 0x00
    }

    /// The translation layer understood ATA PASS-THROUGH but refused this particular CDB:
    /// ILLEGAL REQUEST, INVALID FIELD IN CDB (SAT-4 §12.2.2: unsupported PROTOCOL or other
    /// field). libata uses it for commands it will not pass on, such as SET FEATURES transfer
    /// mode; some USB bridges use it for every pass-through command.
    pub fn rejects_cdb_field(&self) -> bool {
        self.registers.is_none()
            && self.key == key::ILLEGAL_REQUEST
            && self.asc == 0x24
            && self.ascq == 0x00
    }
}

/// A sense key in words.
pub fn key_name(k: u8) -> &'static str {
    match k {
        key::NO_SENSE => "NO SENSE",
        key::RECOVERED_ERROR => "RECOVERED ERROR",
        key::NOT_READY => "NOT READY",
        key::MEDIUM_ERROR => "MEDIUM ERROR",
        key::HARDWARE_ERROR => "HARDWARE ERROR",
        key::ILLEGAL_REQUEST => "ILLEGAL REQUEST",
        key::UNIT_ATTENTION => "UNIT ATTENTION",
        key::DATA_PROTECT => "DATA PROTECT",
        key::BLANK_CHECK => "BLANK CHECK",
        key::VENDOR_SPECIFIC => "VENDOR SPECIFIC",
        key::COPY_ABORTED => "COPY ABORTED",
        key::ABORTED_COMMAND => "ABORTED COMMAND",
        key::VOLUME_OVERFLOW => "VOLUME OVERFLOW",
        key::MISCOMPARE => "MISCOMPARE",
        key::COMPLETED => "COMPLETED",
        _ => "RESERVED",
    }
}

/// The common additional sense codes in words (SPC-5 Annex F), those a disk, a translator or
/// libata is likely to return.
pub fn asc_name(asc: u8, ascq: u8) -> Option<&'static str> {
    let s = match (asc, ascq) {
        (0x00, 0x00) => "no additional sense information",
        (0x00, 0x1D) => "ATA pass through information available",
        (0x04, 0x00) => "logical unit not ready, cause not reportable",
        (0x04, 0x01) => "logical unit is in process of becoming ready",
        (0x04, 0x02) => "logical unit not ready, initializing command required",
        (0x04, 0x03) => "logical unit not ready, manual intervention required",
        (0x04, 0x04) => "logical unit not ready, format in progress",
        (0x04, 0x09) => "logical unit not ready, self-test in progress",
        (0x04, 0x1B) => "logical unit not ready, sanitize in progress",
        (0x04, _) => "logical unit not ready",
        (0x08, 0x00) => "logical unit communication failure",
        (0x08, 0x01) => "logical unit communication time-out",
        (0x08, 0x02) => "logical unit communication parity error",
        (0x0B, 0x01) => "warning - specified temperature exceeded",
        (0x0C, 0x00) => "write error",
        (0x0C, 0x02) => "write error - auto reallocation failed",
        (0x10, 0x00) => "id CRC or ECC error",
        (0x11, 0x00) => "unrecovered read error",
        (0x11, 0x04) => "unrecovered read error - auto reallocate failed",
        (0x14, 0x01) => "record not found",
        (0x1D, 0x00) => "miscompare during verify operation",
        (0x20, 0x00) => "invalid command operation code",
        (0x21, 0x00) => "logical block address out of range",
        (0x24, 0x00) => "invalid field in CDB",
        (0x25, 0x00) => "logical unit not supported",
        (0x26, 0x00) => "invalid field in parameter list",
        (0x27, 0x00) => "write protected",
        (0x28, 0x00) => "not ready to ready change, medium may have changed",
        (0x29, 0x00) => "power on, reset, or bus device reset occurred",
        (0x29, 0x01) => "power on occurred",
        (0x29, 0x02) => "SCSI bus reset occurred",
        (0x29, 0x03) => "bus device reset function occurred",
        (0x29, 0x04) => "device internal reset",
        (0x2A, 0x01) => "mode parameters changed",
        (0x2C, 0x00) => "command sequence error",
        (0x3A, 0x00) => "medium not present",
        (0x3A, 0x01) => "medium not present - tray closed",
        (0x3A, 0x02) => "medium not present - tray open",
        (0x3E, 0x02) => "timeout on logical unit",
        (0x44, 0x00) => "internal target failure",
        (0x47, 0x00) => "SCSI parity error",
        (0x47, 0x03) => "information unit iuCRC error detected",
        (0x4B, 0x00) => "data phase error",
        (0x4E, 0x00) => "overlapped commands attempted",
        (0x5D, 0x00) => "failure prediction threshold exceeded",
        (0x74, 0x71) => "logical unit access not authorized",
        _ => return None,
    };
    Some(s)
}

/// hdparm's own test of a sense buffer: descriptor format 0x72 whose first descriptor is an ATA
/// Status Return (type 0x09, length at least 0x0C) and an additional length of at least 14.
/// When this is false after a CHECK CONDITION, hdparm prints `SG_IO: bad/missing sense data`.
pub fn hdparm_accepts(sb: &[u8]) -> bool {
    byte(sb, 0) == DESC_CURRENT
        && byte(sb, 7) >= 14
        && byte(sb, 8) == ATA_STATUS_RETURN
        && byte(sb, 9) >= 0x0C
}

/// The registers hdparm reads, right or wrong: it always takes them from the first descriptor
/// position (bytes 8-21), whatever the format. Used to reproduce its results exactly (an
/// all-zero buffer gives status 0, which it counts as success).
pub fn hdparm_registers(sb: &[u8]) -> AtaRegisters {
    let mut d = [0u8; 14];
    for (i, b) in d.iter_mut().enumerate() {
        *b = byte(sb, 8 + i);
    }
    status_return_registers(&d)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bytes(s: &str) -> Vec<u8> {
        s.split_whitespace()
            .map(|h| u8::from_str_radix(h, 16).unwrap())
            .collect()
    }

    /// CHECK POWER MODE with CK_COND on libata: RECOVERED ERROR, 00/1D, descriptor 09 0c with
    /// count 0xff (active/idle) and status 0x50.
    const CK_COND_DESC: &str =
        "72 01 00 1d 00 00 00 0e 09 0c 00 00 00 ff 00 00 00 00 00 00 a0 50 00 00 00 00 00 00 00 00 00 00";

    #[test]
    fn descriptor_with_ata_return() {
        let s = decode(&bytes(CK_COND_DESC)).unwrap();
        assert_eq!(s.format, SenseFormat::Descriptor);
        assert_eq!(s.key, key::RECOVERED_ERROR);
        // ATA PASS-THROUGH INFORMATION AVAILABLE: the normal answer to CK_COND.
        assert_eq!((s.asc, s.ascq), (0x00, 0x1D));
        let r = s.registers.unwrap();
        assert_eq!(
            (r.status, r.error, r.count, r.device, r.lba48),
            (0x50, 0, 0xff, 0xa0, false)
        );
        assert!(!r.failed());
        assert!(!s.refuses_pass_through());
        assert!(hdparm_accepts(&bytes(CK_COND_DESC)));
        assert_eq!(hdparm_registers(&bytes(CK_COND_DESC)), r);
        assert_eq!(
            s.describe(),
            "RECOVERED ERROR: ATA pass through information available (ASC/ASCQ 00/1d)"
        );
    }

    #[test]
    fn descriptor_extend_carries_high_bytes() {
        // READ NATIVE MAX EXT: max LBA 0x0001_dcba_9876 returned with EXTEND.
        let sb = bytes("72 01 00 1d 00 00 00 0e 09 0c 01 00 00 00 dc 76 01 98 00 ba e0 50");
        let r = decode(&sb).unwrap().registers.unwrap();
        assert!(r.lba48);
        assert_eq!(r.lba, 0x0001_DCBA_9876);
    }

    #[test]
    fn descriptor_found_after_another_descriptor() {
        // An information descriptor (type 0, length 10) first, then the ATA return.
        let sb = bytes(
            "72 0b 00 00 00 00 00 1a 00 0a 80 00 00 00 00 00 00 00 00 00 \
             09 0c 00 04 00 00 00 00 00 00 00 00 40 51",
        );
        let s = decode(&sb).unwrap();
        let r = s.registers.unwrap();
        assert_eq!((r.status, r.error), (0x51, 0x04));
        assert_eq!(s.key_name(), "ABORTED COMMAND");
        // hdparm only looks at the first descriptor.
        assert!(!hdparm_accepts(&sb));
    }

    #[test]
    fn fixed_aborted_command_old_libata() {
        // Linux 6.1, a drive aborting READ LOG EXT: fixed format, ABORTED COMMAND, the
        // registers misplaced at bytes 8-11 (error ABRT, status DRDY|ERR, device 0x40).
        let sb = bytes(
            "70 00 0b 00 00 00 00 0a 04 51 40 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00 00",
        );
        let s = decode(&sb).unwrap();
        assert_eq!(s.format, SenseFormat::Fixed);
        assert_eq!(s.key_name(), "ABORTED COMMAND");
        let r = s.registers.unwrap();
        assert_eq!(
            (r.error, r.status, r.device, r.count),
            (0x04, 0x51, 0x40, 0)
        );
        assert!(r.failed());
        assert_eq!(r.error_words(), "ABRT");
        assert!(!s.refuses_pass_through());
        // hdparm cannot read it: it prints "bad/missing sense data".
        assert!(!hdparm_accepts(&sb));
    }

    #[test]
    fn fixed_with_valid_bit_sat_layout() {
        // Linux 6.11 and later, SAT-4 table 210: a 48-bit read with an unrecovered error at
        // LBA 0x123456 (low 24 bits), EXTEND and LBA UPPER NONZERO flags.
        let sb = bytes("f0 00 03 40 51 e0 01 0a a0 56 34 12 11 04 00 00 00 00");
        let s = decode(&sb).unwrap();
        assert_eq!(s.key_name(), "MEDIUM ERROR");
        assert_eq!(
            s.asc_text(),
            "unrecovered read error - auto reallocate failed"
        );
        let r = s.registers.unwrap();
        assert_eq!(
            (r.error, r.status, r.device, r.count),
            (0x40, 0x51, 0xe0, 1)
        );
        assert_eq!(r.lba, 0x123456);
        assert!(r.lba48);
        assert_eq!(r.error_words(), "UNC");
    }

    #[test]
    fn invalid_opcode_means_no_pass_through() {
        // QEMU scsi-hd behind virtio-scsi answering ATA PASS-THROUGH(16).
        let sb = bytes("70 00 05 00 00 00 00 0a 00 00 00 00 20 00 00 00 00 00 00 00 00 00 00 00");
        let s = decode(&sb).unwrap();
        assert!(s.refuses_pass_through());
        assert!(s.registers.is_none());
        assert_eq!(
            s.describe(),
            "ILLEGAL REQUEST: invalid command operation code (ASC/ASCQ 20/00)"
        );
    }

    #[test]
    fn invalid_field_is_a_refused_command_not_a_missing_transport() {
        // libata refusing SET FEATURES transfer mode, field pointer at CDB byte 4.
        let sb = bytes("70 00 05 00 00 00 00 0a 00 00 00 00 24 00 00 c0 00 04");
        let s = decode(&sb).unwrap();
        assert!(!s.refuses_pass_through());
        assert!(s.rejects_cdb_field());
        assert_eq!(s.cdb_field, Some(4));
        assert_eq!(
            s.describe(),
            "ILLEGAL REQUEST: invalid field in CDB (ASC/ASCQ 24/00), CDB byte 4"
        );
    }

    /// Real answers of Linux 6.1 libata to QEMU 7.2 drives (the VM bench), hdparm's 32 bytes.
    mod linux_6_1 {
        use super::*;

        #[test]
        fn check_power_mode_on_ahci_disk() {
            let sb = bytes(
                "72 01 00 1d 00 00 00 0e 09 0c 00 00 00 ff 00 00 00 00 00 00 40 50 \
                 00 00 00 00 00 00 00 00 00 00",
            );
            let s = decode(&sb).unwrap();
            let r = s.registers.unwrap();
            assert_eq!((r.status, r.count, r.device), (0x50, 0xff, 0x40));
            assert!(hdparm_accepts(&sb));
        }

        #[test]
        fn read_log_ext_aborted_on_disk() {
            // Old libata layout: error 04 at byte 8, status 41, device e0, count 01; the
            // EXTEND flag at byte 16.
            let sb = bytes(
                "70 00 0b 00 00 00 00 0a 04 41 e0 01 00 00 00 00 80 00 00 00 00 00 \
                 00 00 00 00 00 00 00 00 00 00",
            );
            let s = decode(&sb).unwrap();
            assert_eq!(s.key, key::ABORTED_COMMAND);
            let r = s.registers.unwrap();
            assert_eq!(
                (r.error, r.status, r.device, r.count),
                (0x04, 0x41, 0xe0, 1)
            );
            assert!(r.lba48);
            assert!(r.failed());
            assert!(!hdparm_accepts(&sb));
            // hdparm reads zeros from the wrong place and calls it success.
            assert!(!hdparm_registers(&sb).failed());
        }

        #[test]
        fn set_features_xfer_mode_refused_by_libata() {
            let sb = bytes(
                "70 00 05 00 00 00 00 12 00 00 00 00 24 00 00 c0 00 04 00 00 00 00 \
                 00 00 00 00 00 00 00 00 00 00",
            );
            let s = decode(&sb).unwrap();
            assert!(s.registers.is_none());
            assert!(s.rejects_cdb_field());
            assert_eq!(s.cdb_field, Some(4));
        }

        #[test]
        fn virtio_scsi_rejects_pass_through() {
            let sb = bytes(
                "70 00 05 00 00 00 00 0a 00 00 00 00 20 00 00 00 00 00 00 00 00 00 \
                 00 00 00 00 00 00 00 00 00 00",
            );
            assert!(decode(&sb).unwrap().refuses_pass_through());
        }

        #[test]
        fn atapi_drive_answers_a_data_command_itself() {
            // IDENTIFY DEVICE to an ATAPI CD: the drive's own sense, VALID set, no registers.
            let sb = bytes(
                "f0 00 05 00 00 00 00 0a 00 00 00 00 20 00 00 00 00 00 00 00 00 00 \
                 00 00 00 00 00 00 00 00 00 00",
            );
            let s = decode(&sb).unwrap();
            assert!(s.registers.is_none());
            assert!(s.refuses_pass_through());
        }
    }

    /// The same CHECK POWER MODE answer (count 0xff, status 0x50, device 0x40) in the two
    /// fixed layouts, read by who wrote it.
    mod fixed_by_transport {
        use super::*;

        /// SAT-4 table 210, VALID clear, as a USB bridge or a software target writes it.
        const SAT_CK_COND: &str =
            "70 00 01 00 50 40 ff 0a 00 00 00 00 00 1d 00 00 00 00 00 00 00 00 00 00";
        /// Linux 6.1 libata: the same registers five bytes too far.
        const LIBATA_6_1_CK_COND: &str =
            "70 00 01 00 00 00 00 0a 00 50 40 ff 00 1d 00 00 00 00 00 00 00 00 00 00";

        #[test]
        fn sat_layout_read_by_a_sat_reader() {
            let s = decode_as(&bytes(SAT_CK_COND), FixedLayout::Sat).unwrap();
            let r = s.registers.unwrap();
            assert_eq!(
                (r.error, r.status, r.device, r.count, r.lba, r.lba48),
                (0, 0x50, 0x40, 0xff, 0, false)
            );
        }

        #[test]
        fn sat_layout_is_not_libata_6_1() {
            // Read as libata's: bytes 3-6 are not empty, so it is not the shifted layout, and
            // without VALID not the 6.11 one: no registers (not a wrong count of 0).
            let s = decode_as(&bytes(SAT_CK_COND), FixedLayout::Libata).unwrap();
            assert_eq!(s.registers, None);
        }

        #[test]
        fn libata_6_1_layout_read_by_a_libata_reader() {
            let r = decode_as(&bytes(LIBATA_6_1_CK_COND), FixedLayout::Libata)
                .unwrap()
                .registers
                .unwrap();
            assert_eq!((r.status, r.device, r.count), (0x50, 0x40, 0xff));
            // decode() is libata's reading.
            assert_eq!(
                decode(&bytes(LIBATA_6_1_CK_COND)).unwrap().registers,
                Some(r)
            );
        }

        #[test]
        fn libata_6_1_layout_read_as_sat_gives_its_bytes_3_to_6() {
            // The SAT reader trusts 00/1D: status 0 at byte 4, count 0 at byte 6. This is why
            // the layout must follow the transport and not be guessed from the bytes.
            let r = decode_as(&bytes(LIBATA_6_1_CK_COND), FixedLayout::Sat)
                .unwrap()
                .registers
                .unwrap();
            assert_eq!((r.status, r.count), (0, 0));
        }

        #[test]
        fn sat_lba_and_flags() {
            // ABORTED COMMAND with VALID, error ABRT, status 0x51, device 0xe0, count 1, LBA
            // 0x563412 with EXTEND and LBA UPPER NONZERO (0x80 | 0x20).
            let sb = bytes("f0 00 0b 04 51 e0 01 0a a0 12 34 56 00 00 00 00 00 00");
            let r = decode_as(&sb, FixedLayout::Sat).unwrap().registers.unwrap();
            assert_eq!(
                (r.error, r.status, r.device, r.count),
                (0x04, 0x51, 0xe0, 1)
            );
            assert_eq!(r.lba, 0x56_3412);
            assert!(r.lba48);
            assert!(r.failed());
        }

        #[test]
        fn sat_reader_still_sees_a_plain_scsi_refusal() {
            let sb = bytes("70 00 05 00 00 00 00 0a 00 00 00 00 20 00 00 00 00 00");
            let s = decode_as(&sb, FixedLayout::Sat).unwrap();
            assert!(s.refuses_pass_through());
            let sb = bytes("70 00 05 00 00 00 00 0a 00 00 00 00 24 00 00 c0 00 04");
            let s = decode_as(&sb, FixedLayout::Sat).unwrap();
            assert!(s.rejects_cdb_field());
            assert_eq!(s.cdb_field, Some(4));
            // An ATAPI drive's own VALID sense is no register set either.
            let sb = bytes("f0 00 05 00 00 00 00 0a 00 00 00 00 20 00 00 00 00 00");
            assert_eq!(decode_as(&sb, FixedLayout::Sat).unwrap().registers, None);
        }

        #[test]
        fn descriptor_format_is_the_same_for_both() {
            let sb = bytes(CK_COND_DESC);
            assert_eq!(
                decode_as(&sb, FixedLayout::Sat),
                decode_as(&sb, FixedLayout::Libata)
            );
        }
    }

    #[test]
    fn no_sense_when_buffer_is_zero() {
        assert_eq!(decode(&[0u8; 32]), None);
        assert_eq!(decode(&[]), None);
        // hdparm reads status 0 from it: success.
        assert!(!hdparm_registers(&[0u8; 32]).failed());
    }

    #[test]
    fn medium_not_present_and_not_ready() {
        let s = decode(&bytes(
            "70 00 02 00 00 00 00 0a 00 00 00 00 3a 00 00 00 00 00",
        ))
        .unwrap();
        assert_eq!(
            s.describe(),
            "NOT READY: medium not present (ASC/ASCQ 3a/00)"
        );
        assert!(s.registers.is_none());
        let s = decode(&bytes(
            "70 00 02 00 00 00 00 0a 00 00 00 00 04 22 00 00 00 00",
        ))
        .unwrap();
        assert_eq!(s.asc_text(), "logical unit not ready");
        let s = decode(&bytes(
            "70 00 06 00 00 00 00 0a 00 00 00 00 99 01 00 00 00 00",
        ))
        .unwrap();
        assert_eq!(s.asc_text(), "additional sense code 0x99/0x01");
        assert_eq!(s.key_name(), "UNIT ATTENTION");
    }

    #[test]
    fn key_names() {
        let names: Vec<&str> = (0..=7).map(key_name).collect();
        assert_eq!(
            names,
            [
                "NO SENSE",
                "RECOVERED ERROR",
                "NOT READY",
                "MEDIUM ERROR",
                "HARDWARE ERROR",
                "ILLEGAL REQUEST",
                "UNIT ATTENTION",
                "DATA PROTECT"
            ]
        );
        assert_eq!(key_name(0xB), "ABORTED COMMAND");
    }
}
