//! The ATA Security feature set as hdparm 9.65 sends it (reference §4.7; ACS-3 §7.36-7.41):
//! the 512-byte data sector of SET PASSWORD, UNLOCK, DISABLE PASSWORD and ERASE UNIT, the
//! taskfile that carries it, the master password revision code, and the SECURITY ERASE UNIT
//! timeout hdparm computes from IDENTIFY words 89/90 and the capacity.
//!
//! Must not: send anything, print anything, or decide what a step says; the step in
//! `exec/steps/security.rs` does that from these values.

use super::command::{op, Protocol, TaskFile, DEV_LBA};
use super::identify::Identify;
use super::secret::Secret;

/// The password commands, as hdparm names them in its messages (` Issuing SECURITY_UNLOCK
/// command...`) and perror labels.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation {
    SetPassword,
    Unlock,
    /// DISABLE PASSWORD, which hdparm sends after an UNLOCK with the same data.
    Disable,
    /// SECURITY ERASE UNIT, preceded by ERASE PREPARE; `enhanced` sets the enhanced erase bit.
    Erase {
        enhanced: bool,
    },
}

impl Operation {
    /// The ATA opcode of the command that carries the password.
    pub fn opcode(self) -> u8 {
        match self {
            Operation::SetPassword => op::SECURITY_SET_PASS,
            Operation::Unlock => op::SECURITY_UNLOCK,
            Operation::Disable => op::SECURITY_DISABLE,
            Operation::Erase { .. } => op::SECURITY_ERASE_UNIT,
        }
    }

    /// hdparm's name in ` Issuing <name> command` (and its perror label but for the erase,
    /// whose failure is labelled `SECURITY_ERASE` too).
    pub fn name(self) -> &'static str {
        match self {
            Operation::SetPassword => "SECURITY_SET_PASS",
            Operation::Unlock => "SECURITY_UNLOCK",
            Operation::Disable => "SECURITY_DISABLE",
            Operation::Erase { .. } => "SECURITY_ERASE",
        }
    }
}

/// What the data sector says besides the password.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Options {
    /// `--user-master m`: the master password is meant (byte 0 bit 0).
    pub master: bool,
    /// `--security-mode m`: maximum security (byte 1 bit 0; SET PASSWORD only).
    pub maximum: bool,
}

/// Byte 0 bit 0: the master password is meant (ACS-3 table 57 and friends).
const IDENTIFIER_MASTER: u8 = 0x01;
/// Byte 0 bit 1: enhanced erase (SECURITY ERASE UNIT only).
const ERASE_ENHANCED: u8 = 0x02;
/// Byte 1 bit 0: maximum security level (SET PASSWORD only).
const LEVEL_MAXIMUM: u8 = 0x01;
/// Where the 32 password bytes start.
const PASSWORD_AT: usize = 2;
/// Where SET PASSWORD's master password identifier (revision code) goes, little-endian.
const REVISION_AT: usize = 34;

/// The master password revision code hdparm sends with a master SET PASSWORD: IDENTIFY word
/// 92 plus one, where 0xFFFE (the "not supported" value of ACS-3) counts as 0. It wraps as
/// hdparm's `__u16` does (0xFFFF becomes 0).
pub fn next_master_revision(word92: u16) -> u16 {
    let current = if word92 == 0xFFFE { 0 } else { word92 };
    current.wrapping_add(1)
}

/// The 512-byte data sector hdparm sends with `operation`. `revision` is the master
/// password revision code, used only by a master SET PASSWORD (see [`next_master_revision`]).
pub fn data_sector(
    operation: Operation,
    password: &[u8; 32],
    options: Options,
    revision: Option<u16>,
) -> Secret<512> {
    let mut sector = Secret::<512>::zeroed();
    let data = sector.as_mut_bytes();
    if options.master {
        data[0] |= IDENTIFIER_MASTER;
    }
    data[PASSWORD_AT..PASSWORD_AT + 32].copy_from_slice(password);
    match operation {
        Operation::Erase { enhanced: true } => data[0] |= ERASE_ENHANCED,
        Operation::SetPassword => {
            if options.maximum {
                data[1] = LEVEL_MAXIMUM;
            }
            if options.master {
                let [lo, hi] = revision.unwrap_or(0).to_le_bytes();
                data[REVISION_AT] = lo;
                data[REVISION_AT + 1] = hi;
            }
        }
        _ => {}
    }
    sector
}

/// The taskfile of a password command as hdparm's `do_taskfile_cmd` sends it: the opcode,
/// count 1, device register 0x40, feature 0, LBA 0, the 28-bit layout, PIO data out.
pub fn password_taskfile(opcode: u8, timeout_secs: u32) -> TaskFile {
    TaskFile {
        command: opcode,
        feature: 0,
        count: 1,
        lba: 0,
        device: DEV_LBA,
        lba48: false,
        protocol: Protocol::PioOut,
        timeout_secs,
    }
}

/// SECURITY ERASE PREPARE as hdparm's `do_drive_cmd` sends it: non-data, hdparm's default
/// timeout (15 s).
pub fn erase_prepare_taskfile() -> TaskFile {
    TaskFile::drive_cmd([op::SECURITY_ERASE_PREPARE, 0, 0, 0])
}

/// The registers hdparm's `do_taskfile_cmd` is told to write (its `oflags`), as it numbers
/// them: bit 1 feature, 2 LBA low, 3 count, 4 LBA mid, 5 LBA high, 6 device, 7 command (the
/// same bits for the HOB bytes, without the command).
pub mod oflags {
    pub const FEATURE: u8 = 1 << 1;
    pub const LBA_LOW: u8 = 1 << 2;
    pub const COUNT: u8 = 1 << 3;
    pub const LBA_MID: u8 = 1 << 4;
    pub const LBA_HIGH: u8 = 1 << 5;
    pub const DEVICE: u8 = 1 << 6;
    pub const COMMAND: u8 = 1 << 7;
    /// The password commands: command, feature and count.
    pub const PASSWORD: u8 = COMMAND | FEATURE | COUNT;
}

/// The two lines hdparm's `do_taskfile_cmd` prints on stdout under `--verbose`, before it
/// sends a taskfile command: which current (`lob`) and HOB registers it writes.
pub fn taskfile_flags_dump(lob: u8, hob: u8) -> String {
    let names = |bits: u8, with_command: bool| {
        let mut list = String::new();
        for (bit, name) in [
            (oflags::FEATURE, "feat"),
            (oflags::COUNT, "nsect"),
            (oflags::LBA_LOW, "lbal"),
            (oflags::LBA_MID, "lbam"),
            (oflags::LBA_HIGH, "lbah"),
            (oflags::DEVICE, "dev"),
            (oflags::COMMAND, "command"),
        ] {
            if bits & bit != 0 && (with_command || bit != oflags::COMMAND) {
                list.push(' ');
                list.push_str(name);
            }
        }
        list
    };
    format!(
        "oflags.bits.lob_all=0x{lob:02x}, flags={{{} }}\noflags.bits.hob_all=0x{hob:02x}, flags={{{} }}\n",
        names(lob, true),
        names(hob, false)
    )
}

/// hdparm's timeout for SET PASSWORD, UNLOCK and DISABLE PASSWORD.
pub const PASSWORD_TIMEOUT_SECS: u32 = 15;

/// The erase timeout when there is no IDENTIFY data: twelve hours, as hdparm.
pub const ERASE_TIMEOUT_WITHOUT_IDENTIFY_SECS: u32 = 12 * 60 * 60;

/// The drive's own estimate of an erase, from IDENTIFY word 89 (normal) or 90 (enhanced), in
/// the encoding ACS-3 gives it: bit 15 selects the 15-bit format, else 8 bits count; the
/// value is minutes / 2.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EraseEstimate {
    /// The drive does not say (value 0).
    NotGiven,
    /// About this many minutes.
    Minutes(u32),
    /// More than this many minutes (the largest value of the format).
    MoreThan(u32),
}

/// The estimate word 89 (or 90 when `enhanced`) gives.
pub fn erase_estimate(id: &Identify, enhanced: bool) -> EraseEstimate {
    let word = id.word(if enhanced { 90 } else { 89 });
    let extended = word & 0x8000 != 0;
    let value = u32::from(if extended {
        word & 0x7FFF
    } else {
        word & 0x00FF
    });
    match (extended, value) {
        (_, 0) => EraseEstimate::NotGiven,
        (true, 0x7FFF) => EraseEstimate::MoreThan(65532),
        (false, 0xFF) => EraseEstimate::MoreThan(508),
        (_, v) => EraseEstimate::Minutes(v * 2),
    }
}

/// hdparm's SECURITY ERASE UNIT timeout in seconds (`get_erase_timeout_secs`): the capacity
/// estimate (1 s per 30 MiB, plus 30 minutes) or, when the drive gives its own, that many
/// minutes plus 60 (more-than values: the maximum plus 90), whichever is larger. Without
/// IDENTIFY, twelve hours. Computed in 32 bits, as hdparm returns it.
pub fn erase_timeout_secs(id: Option<&Identify>, enhanced: bool) -> u32 {
    let Some(id) = id else {
        return ERASE_TIMEOUT_WITHOUT_IDENTIFY_SECS;
    };
    let estimate = (id.capacity_sectors() / 2048 / 30) + 30 * 60;
    let minutes = match erase_estimate(id, enhanced) {
        EraseEstimate::NotGiven => return estimate as u32,
        EraseEstimate::MoreThan(m) => m + 90,
        EraseEstimate::Minutes(m) => m + 60,
    };
    let timeout = u64::from(minutes) * 60;
    // hdparm compares as 64 bits and returns an unsigned int.
    timeout.max(estimate) as u32
}

/// Word 128 bit 3: the drive's security is frozen, so every password command but the ones
/// that only read is aborted until a power cycle or hard reset.
pub fn frozen(id: &Identify) -> bool {
    let status = id.security_status();
    status.supported && status.frozen
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id_with(f: impl FnOnce(&mut [u16; 256])) -> Identify {
        let mut w = [0u16; 256];
        f(&mut w);
        Identify::from_words(w)
    }

    #[test]
    fn data_sector_layout() {
        let mut pw = [0u8; 32];
        pw[..3].copy_from_slice(b"abc");
        let d = *data_sector(Operation::Unlock, &pw, Options::default(), None).as_bytes();
        assert_eq!(d[0], 0);
        assert_eq!(d[1], 0);
        assert_eq!(&d[2..5], b"abc");
        assert!(d[5..].iter().all(|&b| b == 0));

        let master = Options {
            master: true,
            maximum: true,
        };
        let d = *data_sector(Operation::Erase { enhanced: true }, &pw, master, Some(7)).as_bytes();
        assert_eq!(d[0], 0x03, "master and enhanced");
        assert_eq!(d[1], 0, "the level is SET PASSWORD's only");
        assert_eq!(&d[34..36], &[0, 0], "the revision is SET PASSWORD's only");

        let d = *data_sector(Operation::SetPassword, &pw, master, Some(0x1234)).as_bytes();
        assert_eq!((d[0], d[1]), (0x01, 0x01));
        assert_eq!(&d[34..36], &[0x34, 0x12]);

        let user_max = Options {
            master: false,
            maximum: true,
        };
        let d = *data_sector(Operation::SetPassword, &pw, user_max, Some(0x1234)).as_bytes();
        assert_eq!((d[0], d[1]), (0x00, 0x01));
        assert_eq!(&d[34..36], &[0, 0], "no revision for a user password");
        let d = *data_sector(Operation::Erase { enhanced: false }, &pw, user_max, None).as_bytes();
        assert_eq!((d[0], d[1]), (0, 0));
    }

    #[test]
    fn master_revision_is_word_92_plus_one() {
        assert_eq!(next_master_revision(0xFFFE), 1);
        assert_eq!(next_master_revision(0), 1);
        assert_eq!(next_master_revision(5), 6);
        assert_eq!(next_master_revision(0xFFFF), 0);
    }

    #[test]
    fn taskfiles() {
        let tf = password_taskfile(op::SECURITY_UNLOCK, 15);
        assert_eq!(
            tf.cdb16(),
            [0x85, 0x0A, 0x06, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xF2, 0]
        );
        let tf = erase_prepare_taskfile();
        assert_eq!((tf.command, tf.count, tf.lba48), (0xF3, 0, false));
        assert_eq!(tf.protocol, Protocol::NonData);
        assert_eq!(tf.timeout(), 15);
    }

    #[test]
    fn erase_timeout_as_hdparm_computes_it() {
        assert_eq!(erase_timeout_secs(None, false), 43200);
        // 1 TB (1953525168 sectors), no estimate: 1953525168/2048/30 + 1800.
        let tb = |w: &mut [u16; 256]| {
            w[49] = 0x0200;
            w[83] = 0x4400;
            w[86] = 0x0400;
            w[100] = 0x6DB0;
            w[101] = 0x7470;
        };
        assert_eq!(erase_timeout_secs(Some(&id_with(tb)), false), 31795 + 1800);
        // Word 89 = 100 (8-bit format): 200 + 60 minutes beats the estimate.
        let id = id_with(|w| {
            w[89] = 100;
            w[90] = 0x8000 | 0x7FFF;
        });
        assert_eq!(erase_timeout_secs(Some(&id), false), 260 * 60);
        // On the 1 TB drive the capacity's estimate is the larger.
        let id_tb = id_with(|w| {
            tb(w);
            w[89] = 100;
        });
        assert_eq!(erase_timeout_secs(Some(&id_tb), false), 31795 + 1800);
        assert_eq!(erase_timeout_secs(Some(&id), true), (65532 + 90) * 60);
        assert_eq!(erase_estimate(&id, false), EraseEstimate::Minutes(200));
        assert_eq!(erase_estimate(&id, true), EraseEstimate::MoreThan(65532));
        // The reserved bits of the 8-bit format are ignored; 0xFF is "more than 508".
        let id = id_with(|w| w[89] = 0x7FFF);
        assert_eq!(erase_estimate(&id, false), EraseEstimate::MoreThan(508));
        assert_eq!(erase_timeout_secs(Some(&id), false), 598 * 60);
        // A small estimate loses to the capacity's (28-bit capacity from words 60-61).
        let id = id_with(|w| {
            w[49] = 0x0200;
            w[60] = 0;
            w[61] = 0x1000;
            w[89] = 1;
        });
        assert_eq!(
            erase_timeout_secs(Some(&id), false),
            0x1000_0000 / 2048 / 30 + 1800
        );
        // The extended format with a small value.
        let id = id_with(|w| w[90] = 0x8000 | 3);
        assert_eq!(erase_estimate(&id, true), EraseEstimate::Minutes(6));
        assert_eq!(erase_timeout_secs(Some(&id), true), 66 * 60);
    }

    #[test]
    fn verbose_flags_dump_as_hdparm_prints_it() {
        assert_eq!(
            taskfile_flags_dump(oflags::PASSWORD, 0),
            "oflags.bits.lob_all=0x8a, flags={ feat nsect command }\noflags.bits.hob_all=0x00, flags={ }\n"
        );
        let lba = oflags::LBA_LOW | oflags::LBA_MID | oflags::LBA_HIGH;
        assert_eq!(
            taskfile_flags_dump(oflags::COMMAND | oflags::FEATURE | lba, lba),
            "oflags.bits.lob_all=0xb6, flags={ feat lbal lbam lbah command }\noflags.bits.hob_all=0x34, flags={ lbal lbam lbah }\n"
        );
    }

    #[test]
    fn frozen_needs_the_feature_supported() {
        assert!(frozen(&id_with(|w| w[128] = 0x0009)));
        assert!(!frozen(&id_with(|w| w[128] = 0x0008)));
        assert!(!frozen(&id_with(|w| w[128] = 0x0001)));
    }
}
