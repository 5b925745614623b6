//! The max-address commands of `-N` (reference §4.5): READ NATIVE MAX ADDRESS (EXT), GET
//! NATIVE MAX ADDRESS EXT and SET ACCESSIBLE MAX ADDRESS EXT (ACS-3 Accessible Max Address,
//! opcode 0x78), SET MAX ADDRESS (EXT), built register for register as hdparm 9.65 builds them,
//! and the ` max sectors   = V/N...` line.
//!
//! Must not: send anything or read IDENTIFY itself; callers pass what IDENTIFY says.

use super::command::{op, Protocol, TaskFile, DEV_LBA, LBA28_LIMIT};

/// How a drive's native maximum is read, decided by IDENTIFY.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NativeMaxKind {
    /// GET NATIVE MAX ADDRESS EXT (0x78, feature 0): ACS-3 with Accessible Max Address.
    Amax,
    /// READ NATIVE MAX ADDRESS EXT (0x27).
    Ext,
    /// READ NATIVE MAX ADDRESS (0xF8), 28-bit.
    Lba28,
}

impl NativeMaxKind {
    /// The command for a drive with (`amax`) Accessible Max Address and (`lba48`) hdparm's
    /// "48-bit supported".
    pub fn of(amax: bool, lba48: bool) -> NativeMaxKind {
        if amax {
            NativeMaxKind::Amax
        } else if lba48 {
            NativeMaxKind::Ext
        } else {
            NativeMaxKind::Lba28
        }
    }

    /// The taskfile hdparm sends. All three go with the 48-bit layout: hdparm asks for the HOB
    /// LBA bytes back even of the 28-bit command, and asking is what makes its taskfile path
    /// set the EXTEND bit. The device register is 0x40; the timeout is 15 s (hdparm passes 0,
    /// its default, for GET NATIVE MAX, and 15 for the others: the same wait).
    pub fn taskfile(self) -> TaskFile {
        let command = match self {
            NativeMaxKind::Amax => op::GET_NATIVE_MAX_EXT,
            NativeMaxKind::Ext => op::READ_NATIVE_MAX_EXT,
            NativeMaxKind::Lba28 => op::READ_NATIVE_MAX,
        };
        let mut tf = TaskFile::new(command, 0, 0);
        tf.lba48 = true;
        tf.timeout_secs = 15;
        tf
    }

    /// hdparm's label when the command fails.
    pub fn failure_label(self) -> &'static str {
        match self {
            NativeMaxKind::Amax => " GET_NATIVE_MAX_ADDRESS_EXT failed",
            NativeMaxKind::Ext => " READ_NATIVE_MAX_ADDRESS_EXT failed",
            NativeMaxKind::Lba28 => " READ_NATIVE_MAX_ADDRESS failed",
        }
    }

    /// hdparm's `--verbose` line (on stdout) with the returned LBA bytes, HOB first; the
    /// 28-bit command has none.
    pub fn verbose_line(self, returned_lba: u64) -> Option<String> {
        let name = match self {
            NativeMaxKind::Amax => "GET_NATIVE_MAX_ADDRESS_EXT",
            NativeMaxKind::Ext => "READ_NATIVE_MAX_ADDRESS_EXT",
            NativeMaxKind::Lba28 => return None,
        };
        let b = |i: u32| (returned_lba >> (8 * i)) as u8;
        Some(format!(
            "{name} response: hob={{{:02x} {:02x} {:02x}}} lob={{{:02x} {:02x} {:02x}}}\n",
            b(5),
            b(4),
            b(3),
            b(2),
            b(1),
            b(0)
        ))
    }

    /// The native sector count (max LBA + 1) from the returned LBA registers (47:0, the HOB
    /// bytes included when the drive returned them). For the 28-bit command hdparm takes
    /// LBA 27:24 from the low nibble of the HOB LBA-low byte, not from the device register
    /// ("DEVICE (3:0) / LBA (27:24) remap does NOT apply in ATA Status Return").
    pub fn native_sectors(self, returned_lba: u64) -> u64 {
        let max = match self {
            NativeMaxKind::Amax | NativeMaxKind::Ext => returned_lba & 0xFFFF_FFFF_FFFF,
            NativeMaxKind::Lba28 => returned_lba & 0x0FFF_FFFF,
        };
        max + 1
    }
}

/// The SET command of `-N COUNT`, as hdparm's `do_set_max_sectors` builds it for max LBA
/// `max_lba` (COUNT - 1); `permanent` sets bit 0 of COUNT (the value survives a power cycle).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SetMax {
    pub taskfile: TaskFile,
    /// hdparm's label when it fails.
    pub failure_label: &'static str,
    /// Whether hdparm reads the native maximum immediately before (the ATA-8 rule for SET MAX
    /// ADDRESS; Accessible Max Address has no such rule).
    pub needs_native_read_first: bool,
}

impl SetMax {
    /// SET ACCESSIBLE MAX ADDRESS EXT (0x78 feature 1) where the drive has Accessible Max
    /// Address; else SET MAX ADDRESS EXT (0x37, device 0x40) when the LBA needs 48 bits or
    /// the drive has them; else SET MAX ADDRESS (0xF9, device 0xE0 with LBA 27:24).
    pub fn new(amax: bool, lba48: bool, max_lba: u64, permanent: bool) -> SetMax {
        let count = u16::from(permanent);
        if amax {
            let mut tf = TaskFile::sector_command(
                op::GET_NATIVE_MAX_EXT,
                max_lba,
                count,
                Protocol::NonData,
                true,
            );
            tf.feature = 0x0001;
            tf.timeout_secs = 15;
            return SetMax {
                taskfile: tf,
                failure_label: " SET_ACCESSIBLE_MAX_ADDRESS_EXT failed",
                needs_native_read_first: false,
            };
        }
        let tf = if max_lba >= LBA28_LIMIT || lba48 {
            let mut tf =
                TaskFile::sector_command(op::SET_MAX_EXT, max_lba, count, Protocol::NonData, true);
            tf.device = DEV_LBA;
            tf
        } else {
            TaskFile::sector_command(op::SET_MAX, max_lba, count, Protocol::NonData, false)
        };
        SetMax {
            taskfile: tf,
            failure_label: " SET_MAX_ADDRESS(_EXT) failed",
            needs_native_read_first: true,
        }
    }
}

/// hdparm's `-N` line for `visible` (IDENTIFY) against `native` sectors, with the newline(s);
/// `dco_real_max` is the DCO real maximum shown as `(%llu?)` when visible exceeds native.
pub fn max_sectors_line(
    visible: u64,
    native: u64,
    amax: bool,
    dco_real_max: Option<u64>,
) -> String {
    let mut line = format!(" max sectors   = {visible}/{native}");
    match visible.cmp(&native) {
        std::cmp::Ordering::Less if amax => line.push_str(
            ", ACCESSIBLE MAX ADDRESS enabled\nPower cycle your device after every ACCESSIBLE MAX ADDRESS",
        ),
        std::cmp::Ordering::Less => line.push_str(", HPA is enabled"),
        std::cmp::Ordering::Equal if amax => line.push_str(", ACCESSIBLE MAX ADDRESS disabled"),
        std::cmp::Ordering::Equal => line.push_str(", HPA is disabled"),
        std::cmp::Ordering::Greater => {
            if let Some(real) = dco_real_max {
                line.push_str(&format!("({real}?)"));
            }
            line.push_str(", HPA setting seems invalid");
            if native & 0xFFFF_FF00_0000 == 0 {
                line.push_str(" (buggy kernel device driver?)");
            }
        }
    }
    line.push('\n');
    line
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::command::tests::hex;

    #[test]
    fn native_max_commands_use_the_48bit_layout() {
        assert_eq!(
            hex(&NativeMaxKind::Amax.taskfile().cdb16()),
            "85 07 20 00 00 00 00 00 00 00 00 00 00 40 78 00"
        );
        assert_eq!(
            hex(&NativeMaxKind::Ext.taskfile().cdb16()),
            "85 07 20 00 00 00 00 00 00 00 00 00 00 40 27 00"
        );
        // hdparm asks for HOB LBA low back, which turns on EXTEND for 0xF8 too.
        assert_eq!(
            hex(&NativeMaxKind::Lba28.taskfile().cdb16()),
            "85 07 20 00 00 00 00 00 00 00 00 00 00 40 f8 00"
        );
        assert_eq!(NativeMaxKind::of(true, true), NativeMaxKind::Amax);
        assert_eq!(NativeMaxKind::of(false, true), NativeMaxKind::Ext);
        assert_eq!(NativeMaxKind::of(false, false), NativeMaxKind::Lba28);
    }

    #[test]
    fn native_sectors_from_registers() {
        assert_eq!(NativeMaxKind::Ext.native_sectors(1953525167), 1953525168);
        // 28-bit: bits 27:24 from HOB LBA low's low nibble; higher bits ignored.
        assert_eq!(
            NativeMaxKind::Lba28.native_sectors(0x77_F1FF_FFFF),
            0x0200_0000
        );
        assert_eq!(
            NativeMaxKind::Lba28.native_sectors(0x00FF_FFFF),
            0x0100_0000
        );
    }

    #[test]
    fn verbose_lines() {
        assert_eq!(
            NativeMaxKind::Ext.verbose_line(0x0102_0304_0506).as_deref(),
            Some("READ_NATIVE_MAX_ADDRESS_EXT response: hob={01 02 03} lob={04 05 06}\n")
        );
        assert!(NativeMaxKind::Amax
            .verbose_line(0)
            .is_some_and(|l| l.starts_with("GET_NATIVE_MAX_ADDRESS_EXT response: ")));
        assert_eq!(NativeMaxKind::Lba28.verbose_line(0), None);
    }

    #[test]
    fn set_max_commands() {
        let s = SetMax::new(true, true, 999_999, true);
        assert_eq!(
            hex(&s.taskfile.cdb16()),
            "85 07 20 00 01 00 01 00 3f 00 42 00 0f e0 78 00"
        );
        assert!(!s.needs_native_read_first);
        assert_eq!(s.taskfile.timeout_secs, 15);
        let s = SetMax::new(false, true, 999_999, false);
        assert_eq!(
            hex(&s.taskfile.cdb16()),
            "85 07 20 00 00 00 00 00 3f 00 42 00 0f 40 37 00"
        );
        assert!(s.needs_native_read_first);
        assert_eq!(s.taskfile.timeout_secs, 0);
        // 28-bit: LBA 27:24 in the device register.
        let s = SetMax::new(false, false, 0x0123_4567, true);
        assert_eq!(
            hex(&s.taskfile.cdb16()),
            "85 06 20 00 00 00 01 00 67 00 45 00 23 e1 f9 00"
        );
        // A 28-bit drive asked for an LBA beyond 28 bits still gets the EXT command.
        let s = SetMax::new(false, false, LBA28_LIMIT, false);
        assert_eq!(s.taskfile.command, op::SET_MAX_EXT);
        assert_eq!(s.failure_label, " SET_MAX_ADDRESS(_EXT) failed");
    }

    #[test]
    fn lines() {
        assert_eq!(
            max_sectors_line(10, 10, false, None),
            " max sectors   = 10/10, HPA is disabled\n"
        );
        assert_eq!(
            max_sectors_line(5, 10, false, None),
            " max sectors   = 5/10, HPA is enabled\n"
        );
        assert_eq!(
            max_sectors_line(10, 10, true, None),
            " max sectors   = 10/10, ACCESSIBLE MAX ADDRESS disabled\n"
        );
        assert_eq!(
            max_sectors_line(20, 10, false, Some(30)),
            " max sectors   = 20/10(30?), HPA setting seems invalid (buggy kernel device driver?)\n"
        );
        assert_eq!(
            max_sectors_line(1 << 40, 1 << 30, false, None),
            " max sectors   = 1099511627776/1073741824, HPA setting seems invalid\n"
        );
    }
}
