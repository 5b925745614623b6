//! The subcommands of SET FEATURES (0xEF, ACS-4 §7.45, table 138) and of DEVICE CONFIGURATION
//! OVERLAY (0xB1, ACS-3 §7.9) that hdparm sends, as named constants, with the on/off pairs
//! together so that an option's two values cannot drift apart.
//!
//! Must not: decide messages or send anything; the executor builds its commands from these.

/// A feature switched with two subcommands, one to enable it and one to disable it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Toggle {
    pub enable: u8,
    pub disable: u8,
}

impl Toggle {
    const fn new(enable: u8, disable: u8) -> Toggle {
        Toggle { enable, disable }
    }

    /// The subcommand that turns the feature `on` or off.
    pub fn subcommand(self, on: bool) -> u8 {
        if on {
            self.enable
        } else {
            self.disable
        }
    }
}

/// Volatile write cache (`-W`): 0x02 enable, 0x82 disable.
pub const WRITE_CACHE: Toggle = Toggle::new(0x02, 0x82);

/// Set transfer mode (`-X`): the mode goes in the count register.
pub const SET_TRANSFER_MODE: u8 = 0x03;

/// Automatic defect reassignment (`-D`, hdparm's "defect management"; obsolete since ATA-4):
/// 0x04 enable, 0x84 disable.
pub const DEFECT_MANAGEMENT: Toggle = Toggle::new(0x04, 0x84);

/// Advanced Power Management (`-B`): 0x05 enable with the level in the count register, 0x85
/// disable.
pub const APM: Toggle = Toggle::new(0x05, 0x85);

/// Power-Up In Standby (`-s`): 0x06 enable, 0x86 disable.
pub const POWER_UP_IN_STANDBY: Toggle = Toggle::new(0x06, 0x86);

/// PUIS feature set device spin-up (`-s0` sends it first, so a drive that powered up in
/// standby spins up before the feature is switched off).
pub const PUIS_SPIN_UP: u8 = 0x07;

/// Write-Read-Verify (`-R`): 0x0B enable with the mode in the count register, 0x8B disable.
pub const WRITE_READ_VERIFY: Toggle = Toggle::new(0x0B, 0x8B);

/// Automatic Acoustic Management (`-M`): 0x42 enable with the level in the count register,
/// 0xC2 disable.
pub const AAM: Toggle = Toggle::new(0x42, 0xC2);

/// Read look-ahead (`-A`): 0xAA enable, 0x55 disable.
pub const LOOK_AHEAD: Toggle = Toggle::new(0xAA, 0x55);

/// Keeping features over a software reset (`-K`): 0x66 disables reverting to power-on
/// defaults (keep), 0xCC enables it.
pub const KEEP_FEATURES: Toggle = Toggle::new(0x66, 0xCC);

/// Maximum prefetch (`-P`, obsolete since ATA-4): the count in the count register.
pub const PREFETCH: u8 = 0xAB;

/// DEVICE CONFIGURATION RESTORE (`--dco-restore`).
pub const DCO_RESTORE: u8 = 0xC0;
/// DEVICE CONFIGURATION FREEZE LOCK (`--dco-freeze`).
pub const DCO_FREEZE_LOCK: u8 = 0xC1;
/// DEVICE CONFIGURATION IDENTIFY (`--dco-identify`).
pub const DCO_IDENTIFY: u8 = 0xC2;
/// DEVICE CONFIGURATION SET (`--dco-setmax`).
pub const DCO_SET: u8 = 0xC3;

/// The feature register of Hitachi's vendor command 0xF0 that reads the temperature (`-H`).
pub const HITACHI_SENSE_CONDITION: u8 = 0x01;

/// hdparm's 4-byte `drive_cmd` for SET FEATURES `subcommand` with `count`.
pub fn set_features(subcommand: u8, count: u8) -> [u8; 4] {
    [super::command::op::SETFEATURES, count, subcommand, 0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toggles_pick_their_subcommand() {
        assert_eq!(APM.subcommand(true), 0x05);
        assert_eq!(APM.subcommand(false), 0x85);
        assert_eq!(KEEP_FEATURES.subcommand(false), 0xCC);
    }

    #[test]
    fn disable_is_enable_with_bit_7_except_where_acs_says_otherwise() {
        // ACS numbers most disable subcommands as enable | 0x80; look-ahead and the
        // revert-to-defaults pair are the exceptions, which is why each pair is written out.
        for t in [
            WRITE_CACHE,
            DEFECT_MANAGEMENT,
            APM,
            POWER_UP_IN_STANDBY,
            WRITE_READ_VERIFY,
            AAM,
        ] {
            assert_eq!(t.disable, t.enable | 0x80, "{t:?}");
        }
        for t in [LOOK_AHEAD, KEEP_FEATURES] {
            assert_ne!(t.disable, t.enable | 0x80, "{t:?}");
        }
    }

    #[test]
    fn set_features_puts_count_and_subcommand_where_drive_cmd_reads_them() {
        let tf = super::super::command::TaskFile::drive_cmd(set_features(APM.enable, 254));
        assert_eq!((tf.command, tf.feature, tf.count), (0xEF, 0x05, 254));
    }
}
