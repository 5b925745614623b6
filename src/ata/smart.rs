//! SMART READ DATA (ACS-3 §7.44.1, command B0h feature D0h): the vendor attribute table, read
//! for `--advise` (load cycles, start/stop count, reallocated and pending sectors, power-on
//! hours); and SMART READ LOG (feature D5h) of the SCT Command/Status log (E0h, ACS-3 §8.3),
//! whose status page carries the drive's current temperature, for `--prometheus`. Pure: it
//! builds the commands and decodes the 512 bytes the drive returns.

use super::command::{Protocol, TaskFile};

/// SMART's command code and the READ DATA feature, with the key in the LBA registers that
/// SMART commands carry (LBA mid 4Fh, LBA high C2h).
pub const SMART: u8 = 0xB0;
pub const READ_DATA: u16 = 0xD0;
const SMART_KEY_LBA: u64 = 0xC2_4F00;

/// The attributes `--advise` reads.
pub const POWER_ON_HOURS: u8 = 9;
pub const START_STOP_COUNT: u8 = 4;
pub const REALLOCATED_SECTORS: u8 = 5;
pub const LOAD_CYCLE_COUNT: u8 = 193;
pub const PENDING_SECTORS: u8 = 197;

/// The PIO-in command that reads the attribute table (one 512-byte sector).
pub fn read_data_command() -> TaskFile {
    let mut tf = TaskFile::new(SMART, SMART_KEY_LBA, 1);
    tf.feature = READ_DATA;
    tf.protocol = Protocol::PioIn;
    tf
}

/// SMART READ LOG's feature code.
pub const READ_LOG: u16 = 0xD5;
/// The SCT Command/Status log address; reading it returns the SCT status page.
pub const SCT_STATUS_LOG: u8 = 0xE0;

/// The PIO-in command that reads one sector of a SMART log (the log address in LBA 7:0).
pub fn read_log_command(log: u8) -> TaskFile {
    let mut tf = TaskFile::new(SMART, SMART_KEY_LBA | u64::from(log), 1);
    tf.feature = READ_LOG;
    tf.protocol = Protocol::PioIn;
    tf
}

/// The current temperature in °C from an SCT status page (ACS-3 Table 196: format version in
/// bytes 0–1, 2 or 3 where the temperature fields are defined; the current temperature a
/// signed byte at 200, 0x80 when the drive has no valid reading).
pub fn sct_temperature_celsius(page: &[u8; 512]) -> Option<i8> {
    let version = u16::from_le_bytes([page[0], page[1]]);
    if !(2..=3).contains(&version) || page[200] == 0x80 {
        return None;
    }
    Some(i8::from_le_bytes([page[200]]))
}

/// One attribute of the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Attribute {
    pub id: u8,
    /// The normalized value (1..253, higher is better).
    pub value: u8,
    /// The raw value's low 48 bits (its meaning is the vendor's; counts for these ids).
    pub raw: u64,
}

/// The attributes of a SMART READ DATA sector: 30 entries of 12 bytes from byte 2, id 0 unused.
pub fn attributes(sector: &[u8; 512]) -> Vec<Attribute> {
    (0..30)
        .map(|i| &sector[2 + i * 12..2 + (i + 1) * 12])
        .filter(|e| e[0] != 0)
        .map(|e| Attribute {
            id: e[0],
            value: e[3],
            raw: e[5..11]
                .iter()
                .rev()
                .fold(0u64, |acc, &b| acc << 8 | u64::from(b)),
        })
        .collect()
}

/// The raw value of one attribute, if the drive has it.
pub fn raw_of(attributes: &[Attribute], id: u8) -> Option<u64> {
    attributes.iter().find(|a| a.id == id).map(|a| a.raw)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sct_temperature_is_a_signed_byte_of_a_known_format() {
        let mut page = [0u8; 512];
        page[0] = 2;
        page[200] = 0xFB; // -5 °C
        assert_eq!(sct_temperature_celsius(&page), Some(-5));
        page[200] = 0x80; // no valid reading
        assert_eq!(sct_temperature_celsius(&page), None);
        page[200] = 30;
        page[0] = 1; // a format without the temperature fields
        assert_eq!(sct_temperature_celsius(&page), None);
        assert_eq!(read_log_command(SCT_STATUS_LOG).lba, 0xC2_4FE0);
        assert_eq!(read_log_command(SCT_STATUS_LOG).feature, 0xD5);
    }

    #[test]
    fn the_table_decodes_ids_values_and_raw_counts() {
        let mut sector = [0u8; 512];
        sector[0] = 0x10; // revision
                          // Entry 0: load cycle count 0x0102_0304 = 16909060, value 200.
        sector[2..14]
            .copy_from_slice(&[193, 0x32, 0x00, 200, 200, 0x04, 0x03, 0x02, 0x01, 0, 0, 0]);
        // Entry 1: power-on hours 12345.
        let hours = 12345u16.to_le_bytes();
        sector[14..26].copy_from_slice(&[9, 0x32, 0x00, 90, 90, hours[0], hours[1], 0, 0, 0, 0, 0]);
        let attrs = attributes(&sector);
        assert_eq!(attrs.len(), 2);
        assert_eq!(raw_of(&attrs, LOAD_CYCLE_COUNT), Some(16_909_060));
        assert_eq!(raw_of(&attrs, POWER_ON_HOURS), Some(12345));
        assert_eq!(raw_of(&attrs, PENDING_SECTORS), None);
        assert_eq!(attrs[0].value, 200);
    }

    #[test]
    fn the_command_carries_smarts_key() {
        let tf = read_data_command();
        assert_eq!((tf.command, tf.feature, tf.count), (0xB0, 0xD0, 1));
        assert_eq!(tf.lba, 0xC2_4F00);
        assert!(!tf.lba48);
        assert_eq!(tf.protocol, Protocol::PioIn);
    }
}
