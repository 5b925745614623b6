//! hdparm.conf's keys (Debian's `hdparm.conf`, reference §9), one row a key, keyed by the
//! option definition each stands for. Both directions read this table: `debian.rs` turns a
//! `KEY = VALUE` line into the option Debian's `hdparm_options` gives hdparm, and
//! `report::experiment` writes the line that sets an option at boot.
//!
//! Must not: know how a line is split or how the shell glues words (that is `debian.rs`).

use crate::cli::defs::{self as d, OptionDef};

/// How Debian's script turns a key's value into option words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// The option glued to the value's first word (`-a$VALUE`).
    Number,
    /// `hdparm_eval_value`: `on`/`1` or `off`/`0` after the option (`-W1`).
    OnOff,
    /// The option alone: the value goes in an argument `hdparm_set_option` never reads.
    Bare,
    /// A line that is the key alone (`standby`), no `=` and no value: the option alone.
    Alone,
}

/// When Debian's script reads the key: `apm` on mains, `apm_battery` on battery.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Power {
    Always,
    OnMains,
    OnBattery,
}

/// One key of hdparm.conf.
pub struct ConfKey {
    pub key: &'static str,
    pub option: &'static OptionDef,
    pub form: Form,
    pub when: Power,
}

const fn key(key: &'static str, option: &'static OptionDef, form: Form) -> ConfKey {
    ConfKey {
        key,
        option,
        form,
        when: Power::Always,
    }
}

/// Debian's keys, as `hdparm_options` reads them. The first key of an option is the one
/// written for it.
pub const KEYS: &[ConfKey] = &[
    key("read_ahead_sect", &d::READAHEAD, Form::Number),
    key("lookahead", &d::LOOKAHEAD, Form::OnOff),
    key("bus", &d::BUSSTATE, Form::OnOff),
    ConfKey {
        when: Power::OnMains,
        ..key("apm", &d::APM, Form::Number)
    },
    ConfKey {
        when: Power::OnBattery,
        ..key("apm_battery", &d::APM, Form::Number)
    },
    key("io32_support", &d::IO32BIT, Form::Number),
    key("dma", &d::DMA, Form::OnOff),
    key("defect_mana", &d::DEFECT_MGMT, Form::OnOff),
    key("cd_speed", &d::CDROM_SPEED, Form::Number),
    key("mult_sect_io", &d::MULTCOUNT, Form::Number),
    key("prefetch_sect", &d::PREFETCH, Form::Number),
    key("read_only", &d::READONLY, Form::OnOff),
    key("write_read_verify", &d::WRITE_READ_VERIFY, Form::OnOff),
    key("spindown_time", &d::STANDBY, Form::Number),
    key("poweron_standby", &d::POWERUP_IN_STANDBY, Form::OnOff),
    key("interrupt_unmask", &d::UNMASK_IRQ, Form::OnOff),
    key("write_cache", &d::WRITE_CACHE, Form::OnOff),
    key("transfer_mode", &d::XFER_MODE, Form::Number),
    key("acoustic_management", &d::ACOUSTIC, Form::Number),
    key("keep_settings_over_reset", &d::KEEP_SETTINGS, Form::OnOff),
    key("keep_features_over_reset", &d::KEEP_FEATURES, Form::OnOff),
    key("chipset_pio_mode", &d::PIO_MODE, Form::Number),
    key("security_unlock", &d::SECURITY_UNLOCK, Form::Bare),
    key("security_pass", &d::SECURITY_SET_PASS, Form::Bare),
    key("security_disable", &d::SECURITY_DISABLE, Form::Bare),
    key("user-master", &d::USER_MASTER, Form::Bare),
    key("security_mode", &d::SECURITY_MODE, Form::Bare),
    key("standby", &d::STANDBY_NOW, Form::Alone),
    key("sleep", &d::SLEEP_NOW, Form::Alone),
    key("disable_seagate", &d::SEAGATE_POWERSAVE, Form::Alone),
    key("security_freeze", &d::SECURITY_FREEZE, Form::Alone),
];

/// The row of a `KEY = VALUE` key as written in the file.
pub fn by_key(name: &str) -> Option<&'static ConfKey> {
    KEYS.iter().find(|k| k.key == name && k.form != Form::Alone)
}

/// The row of a key written alone on its line.
pub fn alone(name: &str) -> Option<&'static ConfKey> {
    KEYS.iter().find(|k| k.key == name && k.form == Form::Alone)
}

/// The key written for an option (the first of its rows).
pub fn of_option(option: &OptionDef) -> Option<&'static ConfKey> {
    KEYS.iter().find(|k| k.option == option)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_unique_and_each_option_is_written_with_a_key_read_back_as_it() {
        for (i, k) in KEYS.iter().enumerate() {
            assert!(
                KEYS[..i].iter().all(|other| other.key != k.key),
                "{} twice",
                k.key
            );
            let written = of_option(k.option).map(|w| w.key);
            let read = |key| by_key(key).or(alone(key));
            assert!(
                written.and_then(read).is_some_and(|w| w.option == k.option),
                "{}",
                k.key
            );
        }
    }
}
