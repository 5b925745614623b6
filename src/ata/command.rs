//! ATA commands as plain data, and the SCSI ATA PASS-THROUGH CDBs that carry them (SAT-4 §12.2).
//!
//! Owns: the [`TaskFile`] type, hdparm 9.65's rules for which commands use the DMA protocol and
//! which force the 48-bit register layout, the device-register conventions, and the byte layout
//! of ATA PASS-THROUGH(16) (opcode 0x85) and (12) (opcode 0xA1), including hdparm's choice
//! between the two. Must not: open a device, call the kernel, or decode responses (that is
//! [`super::sense`]).

/// ATA command opcodes used by hdparm (ACS-4 §7), named as hdparm names them.
pub mod op {
    /// DATA SET MANAGEMENT (TRIM): DMA, 48-bit.
    pub const DSM: u8 = 0x06;
    pub const READ_PIO: u8 = 0x20;
    pub const READ_LONG: u8 = 0x22;
    pub const READ_LONG_ONCE: u8 = 0x23;
    pub const READ_PIO_EXT: u8 = 0x24;
    pub const READ_DMA_EXT: u8 = 0x25;
    pub const READ_NATIVE_MAX_EXT: u8 = 0x27;
    /// GET NATIVE MAX ADDRESS EXT (ACS-3 Accessible Max Address, feature 0x0000).
    pub const GET_NATIVE_MAX_EXT: u8 = 0x78;
    pub const READ_LOG_EXT: u8 = 0x2F;
    pub const WRITE_PIO: u8 = 0x30;
    pub const WRITE_LONG: u8 = 0x32;
    pub const WRITE_LONG_ONCE: u8 = 0x33;
    pub const WRITE_PIO_EXT: u8 = 0x34;
    pub const WRITE_DMA_EXT: u8 = 0x35;
    pub const SET_MAX_EXT: u8 = 0x37;
    pub const READ_VERIFY: u8 = 0x40;
    pub const READ_VERIFY_ONCE: u8 = 0x41;
    pub const READ_VERIFY_EXT: u8 = 0x42;
    /// WRITE UNCORRECTABLE EXT: 48-bit, no data, mode in the feature register.
    pub const WRITE_UNC_EXT: u8 = 0x45;
    /// READ FPDMA QUEUED (NCQ).
    pub const READ_FPDMA: u8 = 0x60;
    /// WRITE FPDMA QUEUED (NCQ).
    pub const WRITE_FPDMA: u8 = 0x61;
    /// Western Digital vendor-specific command used by the idle3 timer (`-J`).
    pub const VENDOR_WD_80: u8 = 0x80;
    pub const DOWNLOAD_MICROCODE: u8 = 0x92;
    pub const STANDBYNOW2: u8 = 0x94;
    pub const CHECKPOWERMODE2: u8 = 0x98;
    pub const SLEEPNOW2: u8 = 0x99;
    /// IDENTIFY PACKET DEVICE; also the opcode of ATA PASS-THROUGH(12), hence hdparm never
    /// sends it inside a 12-byte CDB.
    pub const PIDENTIFY: u8 = 0xA1;
    pub const SMART: u8 = 0xB0;
    /// DEVICE CONFIGURATION OVERLAY.
    pub const DCO: u8 = 0xB1;
    pub const SANITIZE: u8 = 0xB4;
    pub const SET_MULTIPLE: u8 = 0xC6;
    pub const READ_DMA: u8 = 0xC8;
    pub const WRITE_DMA: u8 = 0xCA;
    pub const DOORLOCK: u8 = 0xDE;
    pub const DOORUNLOCK: u8 = 0xDF;
    pub const STANDBYNOW1: u8 = 0xE0;
    pub const IDLEIMMEDIATE: u8 = 0xE1;
    pub const SETIDLE: u8 = 0xE3;
    pub const CHECKPOWERMODE1: u8 = 0xE5;
    pub const SLEEPNOW1: u8 = 0xE6;
    pub const FLUSHCACHE: u8 = 0xE7;
    pub const FLUSHCACHE_EXT: u8 = 0xEA;
    pub const IDENTIFY: u8 = 0xEC;
    pub const SETFEATURES: u8 = 0xEF;
    pub const SECURITY_SET_PASS: u8 = 0xF1;
    pub const SECURITY_UNLOCK: u8 = 0xF2;
    pub const SECURITY_ERASE_PREPARE: u8 = 0xF3;
    pub const SECURITY_ERASE_UNIT: u8 = 0xF4;
    pub const SECURITY_FREEZE_LOCK: u8 = 0xF5;
    pub const SECURITY_DISABLE: u8 = 0xF6;
    pub const READ_NATIVE_MAX: u8 = 0xF8;
    /// Hitachi vendor-specific command; feature 0x01 (SENSE CONDITION) reads the temperature.
    pub const HITACHI_VENDOR: u8 = 0xF0;
    /// Seagate vendor-specific command that disables the drive's automatic power saving.
    pub const SEAGATE_POWERSAVE_OFF: u8 = 0xFB;
    pub const SET_MAX: u8 = 0xF9;
}

/// Device register: the LBA bit (ATA-8 and later: bit 6 selects LBA addressing).
pub const DEV_LBA: u8 = 0x40;
/// Device register as hdparm builds it for sector and max-address commands: the obsolete
/// bits 7 and 5 set, plus the LBA bit (0xA0 | 0x40).
pub const DEV_LBA_OBSOLETE: u8 = 0xE0;
/// Highest LBA plus one that a 28-bit command can reach, as hdparm computes it (2^28 - 1).
pub const LBA28_LIMIT: u64 = (1 << 28) - 1;
/// hdparm's default command timeout when a caller gives none.
pub const DEFAULT_TIMEOUT_SECS: u32 = 15;

/// SCSI opcode of ATA PASS-THROUGH(16) (SAT-4 §12.2.2).
pub const ATA_16: u8 = 0x85;
/// SCSI opcode of ATA PASS-THROUGH(12) (SAT-4 §12.2.3).
pub const ATA_12: u8 = 0xA1;

/// CDB byte 1: the EXTEND bit (48-bit registers), PT(16) only.
const CDB1_EXTEND: u8 = 0x01;
/// CDB byte 2: T_LENGTH = 2 (the length is in the COUNT field).
const CDB2_TLEN_COUNT: u8 = 0x02;
/// CDB byte 2: BYT_BLOK = 1 (the length is in blocks of 512 bytes).
const CDB2_BYT_BLOK: u8 = 0x04;
/// CDB byte 2: T_DIR = 1 (data flows from the device).
const CDB2_TDIR_FROM_DEV: u8 = 0x08;
/// CDB byte 2: CK_COND = 1 (return the result registers as sense data even on success).
const CDB2_CK_COND: u8 = 0x20;

/// The ATA protocol of a command, as the PROTOCOL field of the pass-through CDB encodes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// No data phase (SAT protocol 3).
    NonData,
    /// PIO data from the device (SAT protocol 4).
    PioIn,
    /// PIO data to the device (SAT protocol 5).
    PioOut,
    /// DMA, data from the device (SAT protocol 6).
    DmaIn,
    /// DMA, data to the device (SAT protocol 6).
    DmaOut,
}

impl Protocol {
    /// The SAT PROTOCOL field value.
    pub fn sat_code(self) -> u8 {
        match self {
            Protocol::NonData => 3,
            Protocol::PioIn => 4,
            Protocol::PioOut => 5,
            Protocol::DmaIn | Protocol::DmaOut => 6,
        }
    }

    /// Whether the command has a data phase.
    pub fn has_data(self) -> bool {
        self != Protocol::NonData
    }

    /// Whether data flows to the device.
    pub fn is_write(self) -> bool {
        matches!(self, Protocol::PioOut | Protocol::DmaOut)
    }

    /// The protocol hdparm uses for `command` with data in direction `write` (or none).
    pub fn for_command(command: u8, data: Option<bool>) -> Protocol {
        match (data, is_dma(command)) {
            (None, _) => Protocol::NonData,
            (Some(false), false) => Protocol::PioIn,
            (Some(true), false) => Protocol::PioOut,
            (Some(false), true) => Protocol::DmaIn,
            (Some(true), true) => Protocol::DmaOut,
        }
    }
}

/// Whether hdparm sends `command` with the DMA protocol (sgio.c's list; everything else that
/// moves data is PIO).
pub fn is_dma(command: u8) -> bool {
    matches!(
        command,
        op::DSM
            | op::READ_DMA_EXT
            | op::WRITE_DMA_EXT
            | op::READ_FPDMA
            | op::WRITE_FPDMA
            | op::READ_DMA
            | op::WRITE_DMA
    )
}

/// Whether hdparm uses the 48-bit register layout for `command` at `lba` with `count` sectors:
/// always for the EXT commands, never for the security-erase, SMART and WD vendor commands,
/// otherwise when the address range does not fit 28 bits or the count does not fit 8 bits.
pub fn needs_lba48(command: u8, lba: u64, count: u32) -> bool {
    match command {
        op::DSM
        | op::READ_PIO_EXT
        | op::READ_DMA_EXT
        | op::WRITE_PIO_EXT
        | op::WRITE_DMA_EXT
        | op::READ_VERIFY_EXT
        | op::WRITE_UNC_EXT
        | op::READ_NATIVE_MAX_EXT
        | op::SET_MAX_EXT
        | op::FLUSHCACHE_EXT => return true,
        op::SECURITY_ERASE_PREPARE | op::SECURITY_ERASE_UNIT | op::VENDOR_WD_80 | op::SMART => {
            return false
        }
        _ => {}
    }
    if lba >= LBA28_LIMIT {
        return true;
    }
    if count > 0 {
        if count > 0xFF {
            return true;
        }
        // The last sector of the range, lba + count - 1, must stay below the limit.
        if lba + u64::from(count) > LBA28_LIMIT {
            return true;
        }
    }
    false
}

/// One ATA command: the registers written to the drive, how data moves, and how long to wait.
///
/// 16-bit `feature` and `count` and the 48-bit `lba` hold both the current and the "previous"
/// (HOB) register bytes; the HOB bytes are sent only when `lba48` is set. In 28-bit mode, LBA
/// bits 24-27 travel in the low nibble of the device register, which the CDB builders add.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TaskFile {
    pub command: u8,
    /// Low byte: FEATURE (7:0); high byte: FEATURE (15:8), the HOB feature.
    pub feature: u16,
    /// Low byte: COUNT (7:0); high byte: COUNT (15:8).
    pub count: u16,
    /// LBA (47:0).
    pub lba: u64,
    /// DEVICE register (without the LBA 27:24 nibble, which is taken from `lba`).
    pub device: u8,
    /// Send the 48-bit register layout (EXTEND bit).
    pub lba48: bool,
    pub protocol: Protocol,
    /// Timeout in seconds; 0 means hdparm's default of 15 s.
    pub timeout_secs: u32,
}

impl TaskFile {
    /// A command as hdparm's `tf_init` builds it: device register 0x40, the 48-bit layout when
    /// [`needs_lba48`] says so, no data.
    pub fn new(command: u8, lba: u64, count: u16) -> TaskFile {
        TaskFile {
            command,
            feature: 0,
            count,
            lba,
            device: DEV_LBA,
            lba48: needs_lba48(command, lba, u32::from(count)),
            protocol: Protocol::NonData,
            timeout_secs: 0,
        }
    }

    /// A sector or max-address command as hdparm's `init_hdio_taskfile` builds it: device
    /// register 0xE0, the 48-bit layout when needed or when `force_lba48`.
    pub fn sector_command(
        command: u8,
        lba: u64,
        count: u16,
        protocol: Protocol,
        force_lba48: bool,
    ) -> TaskFile {
        TaskFile {
            command,
            feature: 0,
            count,
            lba,
            device: DEV_LBA_OBSOLETE,
            lba48: force_lba48 || needs_lba48(command, lba, u32::from(count)),
            protocol,
            timeout_secs: 0,
        }
    }

    /// The command hdparm's `do_drive_cmd` sends for the classic 4-byte argument block
    /// `[command, sector-number/count, feature, data-sectors]` (reference §2.1): count is
    /// `args[1]`, or `args[3]` when that is 0 and data is read; for SMART the count is
    /// `args[3]`, LBA low is `args[1]` and LBA mid/high hold the SMART signature 0x4F/0xC2.
    /// Data, when `args[3]` is non-zero, is read from the drive.
    pub fn drive_cmd(args: [u8; 4]) -> TaskFile {
        let [command, sector, feature, data_sectors] = args;
        let count = if sector == 0 { data_sectors } else { sector };
        let mut tf = TaskFile::new(command, 0, u16::from(count));
        tf.feature = u16::from(feature);
        if command == op::SMART {
            tf.count = u16::from(data_sectors);
            tf.lba = SMART_LBA_SIGNATURE | u64::from(sector);
        }
        let data = if data_sectors != 0 { Some(false) } else { None };
        tf.protocol = Protocol::for_command(command, data);
        tf
    }

    /// The timeout actually used, in seconds.
    pub fn timeout(&self) -> u32 {
        if self.timeout_secs == 0 {
            DEFAULT_TIMEOUT_SECS
        } else {
            self.timeout_secs
        }
    }

    /// The device register as sent: in 28-bit mode with LBA bits 27:24 in its low nibble.
    pub fn device_register(&self) -> u8 {
        if self.lba48 {
            self.device
        } else {
            self.device | ((self.lba >> 24) & 0x0F) as u8
        }
    }

    /// hdparm's choice of CDB: PT(12) only when `prefer_ata12` is set, the command does not need
    /// the 48-bit layout, and it is not IDENTIFY PACKET DEVICE (whose opcode 0xA1 equals
    /// PT(12)'s own and confuses some translators).
    pub fn cdb(&self, prefer_ata12: bool) -> Cdb {
        if prefer_ata12 && !self.lba48 && self.command != op::PIDENTIFY {
            Cdb::Ata12(self.cdb12())
        } else {
            Cdb::Ata16(self.cdb16())
        }
    }

    /// Bytes 1 and 2 shared by both CDB sizes: protocol, and for data commands the transfer
    /// length description; non-data commands ask for the result registers (CK_COND).
    fn cdb_flags(&self) -> (u8, u8) {
        let byte1 = self.protocol.sat_code() << 1;
        let byte2 = if self.protocol.has_data() {
            let dir = if self.protocol.is_write() {
                0
            } else {
                CDB2_TDIR_FROM_DEV
            };
            CDB2_TLEN_COUNT | CDB2_BYT_BLOK | dir
        } else {
            CDB2_CK_COND
        };
        (byte1, byte2)
    }

    /// ATA PASS-THROUGH(16): registers at bytes 3-14 (SAT-4 table 192).
    pub fn cdb16(&self) -> [u8; 16] {
        let (mut b1, b2) = self.cdb_flags();
        let lba = self.lba;
        let mut cdb = [0u8; 16];
        cdb[0] = ATA_16;
        cdb[2] = b2;
        cdb[4] = self.feature as u8;
        cdb[6] = self.count as u8;
        cdb[8] = lba as u8;
        cdb[10] = (lba >> 8) as u8;
        cdb[12] = (lba >> 16) as u8;
        cdb[13] = self.device_register();
        cdb[14] = self.command;
        if self.lba48 {
            b1 |= CDB1_EXTEND;
            cdb[3] = (self.feature >> 8) as u8;
            cdb[5] = (self.count >> 8) as u8;
            cdb[7] = (lba >> 24) as u8;
            cdb[9] = (lba >> 32) as u8;
            cdb[11] = (lba >> 40) as u8;
        }
        cdb[1] = b1;
        cdb
    }

    /// ATA PASS-THROUGH(12): 28-bit registers at bytes 3-9 (SAT-4 table 190). The HOB bytes
    /// cannot be expressed; callers use [`TaskFile::cdb`], which never picks PT(12) for 48-bit.
    pub fn cdb12(&self) -> [u8; 12] {
        let (b1, b2) = self.cdb_flags();
        let mut cdb = [0u8; 12];
        cdb[0] = ATA_12;
        cdb[1] = b1;
        cdb[2] = b2;
        cdb[3] = self.feature as u8;
        cdb[4] = self.count as u8;
        cdb[5] = self.lba as u8;
        cdb[6] = (self.lba >> 8) as u8;
        cdb[7] = (self.lba >> 16) as u8;
        cdb[8] = self.device_register();
        cdb[9] = self.command;
        cdb
    }
}

/// LBA mid/high of every SMART command (ACS-4 §7.44: 0x4F in LBA 15:8, 0xC2 in LBA 23:16).
pub const SMART_LBA_SIGNATURE: u64 = 0xC2_4F00;

/// A built pass-through CDB of either size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Cdb {
    Ata16([u8; 16]),
    Ata12([u8; 12]),
}

impl Cdb {
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            Cdb::Ata16(b) => b,
            Cdb::Ata12(b) => b,
        }
    }

    /// 16 or 12, as hdparm's verbose dumps print it (`ATA_16`, `ATA_12`).
    pub fn len(&self) -> usize {
        self.as_bytes().len()
    }

    /// Never true; present because clippy pairs `len` with it.
    pub fn is_empty(&self) -> bool {
        false
    }
}

/// The result registers an ATA command leaves behind, as read back from sense data.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct AtaRegisters {
    pub status: u8,
    pub error: u8,
    /// COUNT (15:8 only when `lba48`).
    pub count: u16,
    /// LBA (47:24 only when `lba48`).
    pub lba: u64,
    pub device: u8,
    /// The EXTEND bit of the returned registers: the HOB bytes are valid.
    pub lba48: bool,
}

/// ATA status register bits (ACS-4 §6.2).
pub mod status {
    /// ERROR: the command failed; see the error register.
    pub const ERR: u8 = 0x01;
    /// Obsolete INDEX / sense-data-available bit in newer standards.
    pub const SENSE: u8 = 0x02;
    /// Obsolete CORRECTED DATA.
    pub const CORR: u8 = 0x04;
    /// DATA REQUEST: the device still expects to move data (a protocol error when it ends a
    /// command).
    pub const DRQ: u8 = 0x08;
    /// DEFERRED WRITE ERROR / seek complete.
    pub const DSC: u8 = 0x10;
    /// DEVICE FAULT.
    pub const DF: u8 = 0x20;
    /// DEVICE READY.
    pub const DRDY: u8 = 0x40;
    /// BUSY.
    pub const BSY: u8 = 0x80;
}

/// ATA error register bits (ACS-4 §6.3).
pub mod error {
    /// Obsolete: address mark not found / command completion time out.
    pub const AMNF: u8 = 0x01;
    /// Obsolete: track 0 not found / END OF MEDIA.
    pub const TK0NF: u8 = 0x02;
    /// ABORT: the command was aborted (unsupported, or a parameter was invalid).
    pub const ABRT: u8 = 0x04;
    /// Media change request (obsolete).
    pub const MCR: u8 = 0x08;
    /// ID NOT FOUND: the address is outside the accessible range.
    pub const IDNF: u8 = 0x10;
    /// Media changed (obsolete).
    pub const MC: u8 = 0x20;
    /// UNCORRECTABLE data error.
    pub const UNC: u8 = 0x40;
    /// INTERFACE CRC error.
    pub const ICRC: u8 = 0x80;
}

impl AtaRegisters {
    /// hdparm's test for failure: ERR or DRQ set in the status register.
    pub fn failed(&self) -> bool {
        self.status & (status::ERR | status::DRQ) != 0
    }

    /// The status register bits that are set, as words: `"DRDY ERR"`.
    pub fn status_words(&self) -> String {
        bit_words(
            self.status,
            &[
                (status::BSY, "BSY"),
                (status::DRDY, "DRDY"),
                (status::DF, "DF"),
                (status::DSC, "DSC"),
                (status::DRQ, "DRQ"),
                (status::CORR, "CORR"),
                (status::SENSE, "SENSE"),
                (status::ERR, "ERR"),
            ],
        )
    }

    /// The error register bits that are set, as words: `"ABRT"`, `"UNC IDNF"`.
    pub fn error_words(&self) -> String {
        bit_words(
            self.error,
            &[
                (error::ICRC, "ICRC"),
                (error::UNC, "UNC"),
                (error::MC, "MC"),
                (error::IDNF, "IDNF"),
                (error::MCR, "MCR"),
                (error::ABRT, "ABRT"),
                (error::TK0NF, "TK0NF"),
                (error::AMNF, "AMNF"),
            ],
        )
    }

    /// One phrase for a failed command: what the error bits most likely mean.
    pub fn error_meaning(&self) -> &'static str {
        let e = self.error;
        if self.status & status::DF != 0 {
            "device fault"
        } else if e & error::UNC != 0 {
            "uncorrectable read error"
        } else if e & error::IDNF != 0 {
            "sector address not found"
        } else if e & error::ICRC != 0 {
            "interface CRC error"
        } else if e & error::ABRT != 0 {
            "command aborted by the drive (not supported or invalid parameter)"
        } else if self.status & status::DRQ != 0 {
            "drive still requests data"
        } else {
            "command failed"
        }
    }
}

fn bit_words(value: u8, names: &[(u8, &str)]) -> String {
    let words: Vec<&str> = names
        .iter()
        .filter(|(bit, _)| value & bit != 0)
        .map(|(_, n)| *n)
        .collect();
    words.join(" ")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Bytes as `85 08 0e`, the way the CDB tests here and in the other `ata` modules spell
    /// what hdparm sent under strace.
    pub(crate) fn hex(b: &[u8]) -> String {
        b.iter()
            .map(|x| format!("{x:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn identify_cdb_is_the_one_hdparm_sends() {
        // Verified against hdparm 9.65 under strace: `-I` on any device.
        let tf = TaskFile::drive_cmd([op::IDENTIFY, 0, 0, 1]);
        assert_eq!(
            hex(tf.cdb(false).as_bytes()),
            "85 08 0e 00 00 00 01 00 00 00 00 00 00 40 ec 00"
        );
        assert_eq!(tf.protocol, Protocol::PioIn);
    }

    #[test]
    fn identify_packet_cdb() {
        let tf = TaskFile::drive_cmd([op::PIDENTIFY, 0, 0, 1]);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 08 0e 00 00 00 01 00 00 00 00 00 00 40 a1 00"
        );
    }

    #[test]
    fn non_data_command_asks_for_registers() {
        // hdparm -S5: SET IDLE (standby timer), count 5; seen under strace.
        let tf = TaskFile::drive_cmd([op::SETIDLE, 5, 0, 0]);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 06 20 00 00 00 05 00 00 00 00 00 00 40 e3 00"
        );
    }

    #[test]
    fn smart_puts_signature_in_lba() {
        // SMART READ DATA: feature 0xD0, one sector in.
        let tf = TaskFile::drive_cmd([op::SMART, 0, 0xD0, 1]);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 08 0e 00 d0 00 01 00 00 00 4f 00 c2 40 b0 00"
        );
        assert!(!tf.lba48);
    }

    #[test]
    fn flush_cache_ext_forces_lba48() {
        let tf = TaskFile::drive_cmd([op::FLUSHCACHE_EXT, 0, 0, 0]);
        assert!(tf.lba48);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 07 20 00 00 00 00 00 00 00 00 00 00 40 ea 00"
        );
    }

    #[test]
    fn read_sector_lba28_puts_high_nibble_in_device() {
        let tf = TaskFile::sector_command(op::READ_PIO, 0x0123_4567, 1, Protocol::PioIn, false);
        assert!(!tf.lba48);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 08 0e 00 00 00 01 00 67 00 45 00 23 e1 20 00"
        );
    }

    #[test]
    fn read_sector_lba48_uses_hob_bytes() {
        let lba = 0x0000_89AB_CDEF_0123u64;
        let tf = TaskFile::sector_command(op::READ_PIO_EXT, lba, 1, Protocol::PioIn, false);
        assert!(tf.lba48);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 09 0e 00 00 00 01 cd 23 ab 01 89 ef e0 24 00"
        );
    }

    #[test]
    fn write_direction_clears_tdir() {
        let tf = TaskFile::sector_command(op::WRITE_PIO, 7, 1, Protocol::PioOut, false);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 0a 06 00 00 00 01 00 07 00 00 00 00 e0 30 00"
        );
    }

    #[test]
    fn dsm_is_dma_and_lba48() {
        let mut tf = TaskFile::new(op::DSM, 0, 1);
        tf.feature = 1;
        tf.protocol = Protocol::for_command(op::DSM, Some(true));
        assert_eq!(tf.protocol, Protocol::DmaOut);
        assert_eq!(
            hex(&tf.cdb16()),
            "85 0d 06 00 01 00 01 00 00 00 00 00 00 40 06 00"
        );
    }

    #[test]
    fn hob_feature_and_count_only_in_lba48() {
        let mut tf = TaskFile::new(op::READ_LOG_EXT, 0x0830, 1);
        tf.feature = 0xAB12;
        tf.count = 0x0201;
        tf.lba48 = true;
        assert_eq!(
            hex(&tf.cdb16()),
            "85 07 20 ab 12 02 01 00 30 00 08 00 00 40 2f 00"
        );
        tf.lba48 = false;
        assert_eq!(
            hex(&tf.cdb16()),
            "85 06 20 00 12 00 01 00 30 00 08 00 00 40 2f 00"
        );
    }

    #[test]
    fn lba48_rules() {
        assert!(needs_lba48(op::READ_PIO, LBA28_LIMIT, 1));
        assert!(!needs_lba48(op::READ_PIO, LBA28_LIMIT - 1, 1));
        assert!(needs_lba48(op::READ_PIO, LBA28_LIMIT - 1, 2));
        assert!(needs_lba48(op::READ_PIO, 0, 256));
        assert!(!needs_lba48(op::READ_PIO, 0, 255));
        assert!(!needs_lba48(op::SECURITY_ERASE_UNIT, 1 << 40, 300));
        assert!(!needs_lba48(op::SMART, 1 << 40, 0));
        assert!(!needs_lba48(op::VENDOR_WD_80, 1 << 40, 0));
        for c in [0x06, 0x24, 0x25, 0x34, 0x35, 0x42, 0x45, 0x27, 0x37, 0xEA] {
            assert!(needs_lba48(c, 0, 0), "{c:#x}");
        }
    }

    #[test]
    fn dma_list() {
        for c in [0x06, 0x25, 0x35, 0xC8, 0xCA, 0x60, 0x61] {
            assert!(is_dma(c), "{c:#x}");
        }
        for c in [0x20, 0x24, 0xEC, 0xA1, 0xB0, 0xEF] {
            assert!(!is_dma(c), "{c:#x}");
        }
    }

    #[test]
    fn ata12_choice() {
        let tf = TaskFile::drive_cmd([op::IDENTIFY, 0, 0, 1]);
        let cdb = tf.cdb(true);
        assert_eq!(hex(cdb.as_bytes()), "a1 08 0e 00 01 00 00 00 40 ec 00 00");
        assert_eq!(cdb.len(), 12);
        // Never for IDENTIFY PACKET DEVICE, never for 48-bit commands.
        let tf = TaskFile::drive_cmd([op::PIDENTIFY, 0, 0, 1]);
        assert_eq!(tf.cdb(true).len(), 16);
        let tf = TaskFile::drive_cmd([op::FLUSHCACHE_EXT, 0, 0, 0]);
        assert_eq!(tf.cdb(true).len(), 16);
        // And not unless asked.
        let tf = TaskFile::drive_cmd([op::CHECKPOWERMODE1, 0, 0, 0]);
        assert_eq!(tf.cdb(false).len(), 16);
        assert_eq!(
            hex(tf.cdb(true).as_bytes()),
            "a1 06 20 00 00 00 00 00 40 e5 00 00"
        );
    }

    #[test]
    fn ata12_carries_lba28_high_nibble() {
        let tf = TaskFile::sector_command(op::READ_PIO, 0x0FED_CBA9, 1, Protocol::PioIn, false);
        assert_eq!(hex(&tf.cdb12()), "a1 08 0e 00 01 a9 cb ed ef 20 00 00");
    }

    #[test]
    fn timeout_default() {
        let mut tf = TaskFile::new(op::IDENTIFY, 0, 1);
        assert_eq!(tf.timeout(), 15);
        tf.timeout_secs = 60;
        assert_eq!(tf.timeout(), 60);
    }

    #[test]
    fn register_words() {
        let r = AtaRegisters {
            status: 0x51,
            error: 0x04,
            ..Default::default()
        };
        assert!(r.failed());
        assert_eq!(r.status_words(), "DRDY DSC ERR");
        assert_eq!(r.error_words(), "ABRT");
        assert!(r.error_meaning().starts_with("command aborted"));
        let r = AtaRegisters {
            status: 0x50,
            error: 0,
            ..Default::default()
        };
        assert!(!r.failed());
        let r = AtaRegisters {
            status: 0x58,
            ..Default::default()
        };
        assert!(r.failed());
        let r = AtaRegisters {
            status: 0x51,
            error: 0x40,
            ..Default::default()
        };
        assert_eq!(r.error_meaning(), "uncorrectable read error");
    }
}
