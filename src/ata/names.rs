//! The names of ATA commands, as ACS-4 §7 names them, for the plans `--dry-run` prints and
//! for anything else that shows a command to a person.
//!
//! Owns: the opcode (and, where the feature register picks the operation, the feature) to name
//! table. Must not: build or decode commands.

use super::command::op;

/// The name of a command: its opcode, refined by the feature register where the opcode is a
/// family (SET FEATURES, SMART, DCO, SANITIZE, the security and max-address sub-commands).
pub fn command_name(command: u8, feature: u16) -> &'static str {
    let sub = (feature & 0xFF) as u8;
    match command {
        op::DSM => "DATA SET MANAGEMENT (TRIM)",
        op::READ_PIO => "READ SECTOR(S)",
        op::READ_PIO_EXT => "READ SECTOR(S) EXT",
        op::READ_DMA_EXT => "READ DMA EXT",
        op::READ_LONG | op::READ_LONG_ONCE => "READ LONG",
        op::READ_NATIVE_MAX_EXT => "READ NATIVE MAX ADDRESS EXT",
        op::GET_NATIVE_MAX_EXT => match sub {
            0x00 => "GET NATIVE MAX ADDRESS EXT",
            0x01 => "SET ACCESSIBLE MAX ADDRESS EXT",
            0x02 => "FREEZE ACCESSIBLE MAX ADDRESS EXT",
            _ => "ACCESSIBLE MAX ADDRESS CONFIGURATION",
        },
        op::READ_LOG_EXT => "READ LOG EXT",
        op::WRITE_PIO => "WRITE SECTOR(S)",
        op::WRITE_PIO_EXT => "WRITE SECTOR(S) EXT",
        op::WRITE_DMA_EXT => "WRITE DMA EXT",
        op::WRITE_LONG | op::WRITE_LONG_ONCE => "WRITE LONG",
        op::SET_MAX_EXT => "SET MAX ADDRESS EXT",
        op::READ_VERIFY | op::READ_VERIFY_ONCE => "READ VERIFY SECTOR(S)",
        op::READ_VERIFY_EXT => "READ VERIFY SECTOR(S) EXT",
        op::WRITE_UNC_EXT => "WRITE UNCORRECTABLE EXT",
        op::READ_FPDMA => "READ FPDMA QUEUED",
        op::WRITE_FPDMA => "WRITE FPDMA QUEUED",
        op::VENDOR_WD_80 => "VENDOR SPECIFIC 0x80 (WD)",
        op::DOWNLOAD_MICROCODE => "DOWNLOAD MICROCODE",
        op::STANDBYNOW1 | op::STANDBYNOW2 => "STANDBY IMMEDIATE",
        op::CHECKPOWERMODE1 | op::CHECKPOWERMODE2 => "CHECK POWER MODE",
        op::SLEEPNOW1 | op::SLEEPNOW2 => "SLEEP",
        op::PIDENTIFY => "IDENTIFY PACKET DEVICE",
        op::SMART => match sub {
            0xD0 => "SMART READ DATA",
            0xD1 => "SMART READ THRESHOLDS",
            0xD5 => "SMART READ LOG",
            0xD6 => "SMART WRITE LOG",
            0xD8 => "SMART ENABLE OPERATIONS",
            0xD9 => "SMART DISABLE OPERATIONS",
            0xDA => "SMART RETURN STATUS",
            _ => "SMART",
        },
        op::DCO => match sub {
            0xC0 => "DEVICE CONFIGURATION RESTORE",
            0xC1 => "DEVICE CONFIGURATION FREEZE LOCK",
            0xC2 => "DEVICE CONFIGURATION IDENTIFY",
            0xC3 => "DEVICE CONFIGURATION SET",
            _ => "DEVICE CONFIGURATION OVERLAY",
        },
        0xB2 => "SET SECTOR CONFIGURATION EXT",
        op::SANITIZE => match sub {
            0x00 => "SANITIZE STATUS EXT",
            0x11 => "CRYPTO SCRAMBLE EXT",
            0x12 => "BLOCK ERASE EXT",
            0x14 => "OVERWRITE EXT",
            0x20 => "SANITIZE FREEZE LOCK EXT",
            0x40 => "SANITIZE ANTIFREEZE LOCK EXT",
            _ => "SANITIZE DEVICE",
        },
        op::SET_MULTIPLE => "SET MULTIPLE MODE",
        op::READ_DMA => "READ DMA",
        op::WRITE_DMA => "WRITE DMA",
        op::DOORLOCK => "DOOR LOCK",
        op::DOORUNLOCK => "DOOR UNLOCK",
        op::IDLEIMMEDIATE => "IDLE IMMEDIATE",
        op::SETIDLE => "IDLE",
        op::FLUSHCACHE => "FLUSH CACHE",
        op::FLUSHCACHE_EXT => "FLUSH CACHE EXT",
        op::IDENTIFY => "IDENTIFY DEVICE",
        op::SETFEATURES => "SET FEATURES",
        op::SECURITY_SET_PASS => "SECURITY SET PASSWORD",
        op::SECURITY_UNLOCK => "SECURITY UNLOCK",
        op::SECURITY_ERASE_PREPARE => "SECURITY ERASE PREPARE",
        op::SECURITY_ERASE_UNIT => "SECURITY ERASE UNIT",
        op::SECURITY_FREEZE_LOCK => "SECURITY FREEZE LOCK",
        op::SECURITY_DISABLE => "SECURITY DISABLE PASSWORD",
        op::READ_NATIVE_MAX => "READ NATIVE MAX ADDRESS",
        op::SET_MAX => match sub {
            0x01 => "SET MAX SET PASSWORD",
            0x02 => "SET MAX LOCK",
            0x03 => "SET MAX UNLOCK",
            0x04 => "SET MAX FREEZE LOCK",
            _ => "SET MAX ADDRESS",
        },
        op::HITACHI_VENDOR => "VENDOR SPECIFIC 0xF0 (Hitachi)",
        op::SEAGATE_POWERSAVE_OFF => "VENDOR SPECIFIC 0xFB (Seagate)",
        _ => "ATA command",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn families_are_named_by_their_feature() {
        assert_eq!(command_name(0xB4, 0x0012), "BLOCK ERASE EXT");
        assert_eq!(command_name(0xB4, 0x0000), "SANITIZE STATUS EXT");
        assert_eq!(command_name(0xB1, 0x00C3), "DEVICE CONFIGURATION SET");
        assert_eq!(command_name(0x78, 0x0001), "SET ACCESSIBLE MAX ADDRESS EXT");
        assert_eq!(command_name(0xF9, 0x0000), "SET MAX ADDRESS");
        assert_eq!(command_name(0xF9, 0x0004), "SET MAX FREEZE LOCK");
    }

    #[test]
    fn the_two_opcodes_of_a_command_share_its_name() {
        assert_eq!(command_name(0xE5, 0), command_name(0x98, 0));
        assert_eq!(command_name(0xE0, 0), "STANDBY IMMEDIATE");
        assert_eq!(command_name(0x42, 0), "READ VERIFY SECTOR(S) EXT");
        assert_eq!(command_name(0x01, 0), "ATA command");
    }
}
