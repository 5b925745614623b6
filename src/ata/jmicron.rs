//! The JMicron (and ioSafe) USB bridges' own ATA pass-through (reference §2.6), which hdparm
//! 9.65 uses instead of SAT for the bridges it knows (apt.c, after smartmontools): a 12-byte
//! vendor CDB 0xDF carrying the 28-bit registers and the bridge's port (0xA0 or 0xB0, found by
//! reading the bridge's register 0x720F with the bridge command 0xFD).
//!
//! The bridge returns no registers: a command that went through is a success with the
//! registers unknown, as in hdparm. It cannot carry 48-bit commands (hdparm answers EBADE,
//! which sends it to the legacy ioctl). Default timeout 5 s, not SAT's 15.
//!
//! Must not: touch a device.

use super::command::TaskFile;

/// The bridges hdparm drives this way: (USB vendor, product).
pub const BRIDGES: &[(u16, u16)] = &[
    (0x152D, 0x2329), // JMicron JM20329 (USB->SATA)
    (0x152D, 0x2336), // JMicron JM20336 (USB+SATA->SATA, USB->2xSATA)
    (0x152D, 0x2338), // JMicron JM20337/8 (USB->SATA+PATA, USB+SATA->PATA)
    (0x152D, 0x2339), // JMicron JM20339 (USB->SATA)
    (0x0C0B, 0xB157), // ioSafe Solo
];

/// The vendor CDB's opcode.
pub const OPCODE: u8 = 0xDF;
/// The bridge command that reads one of its own registers.
const READ_REGISTER: u8 = 0xFD;
/// The bridge register that says which port has a drive.
pub const PORT_REGISTER: u16 = 0x720F;
/// hdparm's timeout for this path when the caller gives none, seconds.
pub const DEFAULT_TIMEOUT_SECS: u32 = 5;

/// Whether hdparm uses the vendor path for this USB id.
pub fn is_bridge(vendor: u16, product: u16) -> bool {
    BRIDGES.contains(&(vendor, product))
}

/// Why a command cannot go this way.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NeedsLba48;

/// The vendor CDB for a command: direction (0x10 from the device, 0x00 to it; non-data
/// commands count as reads, as in hdparm), the data length in bytes (big-endian), the 28-bit
/// registers, the port in place of the device register, the command.
pub fn cdb(tf: &TaskFile, data_len: usize, port: u8) -> Result<[u8; 12], NeedsLba48> {
    if tf.lba48 {
        return Err(NeedsLba48);
    }
    let len = data_len as u16;
    let mut cdb = [0u8; 12];
    cdb[0] = OPCODE;
    cdb[1] = if tf.protocol.is_write() { 0x00 } else { 0x10 };
    cdb[3] = (len >> 8) as u8;
    cdb[4] = len as u8;
    cdb[5] = tf.feature as u8;
    cdb[6] = tf.count as u8;
    cdb[7] = tf.lba as u8;
    cdb[8] = (tf.lba >> 8) as u8;
    cdb[9] = (tf.lba >> 16) as u8;
    cdb[10] = port;
    cdb[11] = tf.command;
    Ok(cdb)
}

/// The probe: read one byte of bridge register `PORT_REGISTER`, port 0.
pub fn probe_cdb() -> [u8; 12] {
    let mut tf = TaskFile::new(
        READ_REGISTER,
        u64::from(PORT_REGISTER & 0xFF),
        PORT_REGISTER >> 8,
    );
    tf.device = 0;
    // hdparm's probe is a read of 1 byte.
    tf.protocol = super::command::Protocol::PioIn;
    let mut cdb = [0u8; 12];
    if let Ok(c) = self::cdb(&tf, 1, 0) {
        cdb = c;
    }
    cdb
}

/// The port the probe's register byte names: bit 2 the master (0xA0), bit 6 the slave
/// (0xB0); none when no drive is connected.
pub fn port_from_register(value: u8) -> Option<u8> {
    if value & 0x04 != 0 {
        Some(0xA0)
    } else if value & 0x40 != 0 {
        Some(0xB0)
    } else {
        None
    }
}

/// The timeout the path uses, seconds.
pub fn timeout_secs(tf: &TaskFile) -> u32 {
    if tf.timeout_secs == 0 {
        DEFAULT_TIMEOUT_SECS
    } else {
        tf.timeout_secs
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::command::{op, Protocol};

    #[test]
    fn the_known_bridges() {
        assert!(is_bridge(0x152D, 0x2338));
        assert!(is_bridge(0x0C0B, 0xB157));
        // A JMicron id hdparm does not list (JMS578) goes through SAT.
        assert!(!is_bridge(0x152D, 0x0578));
    }

    #[test]
    fn probe_reads_register_0x720f() {
        assert_eq!(
            probe_cdb(),
            [0xDF, 0x10, 0, 0, 1, 0, 0x72, 0x0F, 0, 0, 0, 0xFD]
        );
        assert_eq!(port_from_register(0x04), Some(0xA0));
        assert_eq!(port_from_register(0x44), Some(0xA0));
        assert_eq!(port_from_register(0x40), Some(0xB0));
        assert_eq!(port_from_register(0x00), None);
    }

    #[test]
    fn commands_in_the_vendor_cdb() {
        // IDENTIFY: 512 bytes in, port 0xA0 instead of the device register.
        let tf = TaskFile::drive_cmd([op::IDENTIFY, 0, 0, 1]);
        assert_eq!(
            cdb(&tf, 512, 0xA0).unwrap(),
            [0xDF, 0x10, 0, 0x02, 0x00, 0, 1, 0, 0, 0, 0xA0, 0xEC]
        );
        // SMART write with data out; CHECK POWER MODE without data.
        let mut tf = TaskFile::new(op::SMART, 0xC2_4FBE, 1);
        tf.feature = 0xD6;
        tf.protocol = Protocol::PioOut;
        assert_eq!(
            cdb(&tf, 512, 0xB0).unwrap(),
            [0xDF, 0x00, 0, 0x02, 0x00, 0xD6, 1, 0xBE, 0x4F, 0xC2, 0xB0, 0xB0]
        );
        let tf = TaskFile::drive_cmd([op::CHECKPOWERMODE1, 0, 0, 0]);
        assert_eq!(
            cdb(&tf, 0, 0xA0).unwrap(),
            [0xDF, 0x10, 0, 0, 0, 0, 0, 0, 0, 0, 0xA0, 0xE5]
        );
        assert_eq!(timeout_secs(&tf), 5);
        // 48-bit commands cannot be expressed.
        let tf = TaskFile::new(op::READ_NATIVE_MAX_EXT, 0, 0);
        assert_eq!(cdb(&tf, 0, 0xA0), Err(NeedsLba48));
    }
}
