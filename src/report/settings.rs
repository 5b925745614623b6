//! The settings report: the lines of the default report (`hdparm DEV`, `-v`), each get option
//! (`-a -c -d -m -u -k -n -r -g -Q -b -A -W -B -M -R -C -H`) and each set option's
//! "setting ..." message, as typed values rendered to hdparm's exact text or to JSON.
//!
//! Text: every line is byte-identical to hdparm 9.65 (reference §4.1, §4.2, §5.1), quirks
//! included: `IO_support` has no space before its value and a trailing space after
//! `(default)`, `APM_level` uses a TAB, `write-read-verify` prints word 120's bit 1 (0 or 2).
//!
//! JSON: each item serializes as an object with a `"setting"` tag naming it (snake_case) and
//! its values; numbers are plain numbers, units in the key names. For example
//! `{"setting":"readahead","sectors":256}`, `{"setting":"geometry","cylinders":..,
//! "heads":..,"sectors_per_track":..,"total_sectors":..,"start_sector":0}`,
//! `{"setting":"drive_state","state":"active_idle"}`, and for a set
//! `{"setting":"set","option":"-W","value":1,"message":"setting drive write-caching to 1 (on)",
//! "outcome":"done"}` (`outcome` is `done`, or `failed` when the set was refused or failed:
//! then its error is in the device's `messages`). In JSON every set is recorded, quiet or not.
//!
//! | `setting` | keys |
//! |---|---|
//! | `multcount` | `count` |
//! | `io_support` | `mode` (0 default, 1 32-bit, 2 16-bit, 3 32-bit w/sync, 8 Request-Queue-Bypass) |
//! | `unmaskirq`, `using_dma`, `keepsettings`, `nowerr`, `readonly`, `busstate` | `value` |
//! | `queue_depth` | `depth` |
//! | `readahead` | `sectors` |
//! | `geometry` | `cylinders`, `heads`, `sectors_per_track`, `total_sectors`, `start_sector` (null: unknown) |
//! | `drive_state` | `state`: `standby`, `nvcache_spindown`, `nvcache_spinup`, `idle`, `active_idle`, `unknown` |
//! | `look_ahead`, `write_caching` | `enabled` (null: not supported) |
//! | `apm_level` | `apm`: `{"state":"not_supported"}`, `{"state":"off"}`, `{"state":"level","level":N}` |
//! | `acoustic` | `level` (null: not supported) |
//! | `write_read_verify` | `value` (null: not supported) |
//! | `set` | `option`, `value`, `message`, `outcome` |
//!
//! Their JSON Schema is `$defs/settings_item` of `doc/hdparm-rs.schema.json`, generated from
//! these types (`report::schema`): doc comments here are its descriptions.
//!
//! Nothing here touches a device.

use crate::ata::values::Apm;
use schemars::JsonSchema;
use serde::{Serialize, Serializer};
use std::fmt::Write as _;

/// hdparm's `on_off`: the `(on)` / `(off)` suffix.
pub fn on_off(value: i64) -> &'static str {
    if value != 0 {
        " (on)"
    } else {
        " (off)"
    }
}

/// The power state reported by CHECK POWER MODE (`-C`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum PowerState {
    Standby,
    NvcacheSpindown,
    NvcacheSpinup,
    Idle,
    ActiveIdle,
    Unknown,
}

impl PowerState {
    /// From the sector count register returned by CHECK POWER MODE.
    pub fn from_count(count: u8) -> Self {
        match count {
            0x00 => PowerState::Standby,
            0x40 => PowerState::NvcacheSpindown,
            0x41 => PowerState::NvcacheSpinup,
            0x80 => PowerState::Idle,
            0xff => PowerState::ActiveIdle,
            _ => PowerState::Unknown,
        }
    }

    /// hdparm's word for it.
    pub fn as_str(self) -> &'static str {
        match self {
            PowerState::Standby => "standby",
            PowerState::NvcacheSpindown => "NVcache_spindown",
            PowerState::NvcacheSpinup => "NVcache_spinup",
            PowerState::Idle => "idle",
            PowerState::ActiveIdle => "active/idle",
            PowerState::Unknown => "unknown",
        }
    }
}

/// `-B`'s JSON: `{"state":"not_supported"}`, `{"state":"off"}`, `{"state":"level","level":N}`.
fn apm_json<S: Serializer>(apm: &Apm, serializer: S) -> Result<S::Ok, S::Error> {
    match *apm {
        Apm::NotSupported => ApmJson::NotSupported,
        Apm::Disabled => ApmJson::Off,
        Apm::Enabled { level, .. } => ApmJson::Level(level),
    }
    .serialize(serializer)
}

/// [`Apm`] as `-B`'s JSON has it (and its schema).
#[derive(Serialize, JsonSchema)]
#[serde(rename_all = "snake_case", tag = "state", content = "level")]
#[schemars(deny_unknown_fields)]
enum ApmJson {
    NotSupported,
    Off,
    Level(u8),
}

/// What became of a set or an action: `done`, or `failed` (refused or failed; the error is in
/// the device's `messages`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Done,
    Failed,
}

/// One line of the settings report, tagged by `setting` (src/report/settings.rs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(tag = "setting", rename_all = "snake_case")]
#[schemars(deny_unknown_fields)]
pub enum SettingsItem {
    Multcount {
        count: i64,
    },
    IoSupport {
        mode: i64,
    },
    Unmaskirq {
        value: i64,
    },
    UsingDma {
        value: i64,
    },
    QueueDepth {
        depth: u32,
    },
    Keepsettings {
        value: i64,
    },
    Nowerr {
        value: i64,
    },
    Readonly {
        value: i64,
    },
    Readahead {
        sectors: i64,
    },
    Geometry {
        cylinders: u32,
        heads: u32,
        sectors_per_track: u32,
        total_sectors: u64,
        /// None when the start is unknown (md and other virtual devices).
        start_sector: Option<u64>,
    },
    DriveState {
        state: PowerState,
    },
    LookAhead {
        enabled: Option<bool>,
    },
    WriteCaching {
        enabled: Option<bool>,
    },
    ApmLevel {
        #[serde(serialize_with = "apm_json")]
        #[schemars(with = "ApmJson")]
        apm: Apm,
    },
    Acoustic {
        level: Option<u8>,
    },
    WriteReadVerify {
        value: Option<u16>,
    },
    Busstate {
        value: i64,
    },
    /// A set: the "setting ..." message printed before it (its text without hdparm's leading
    /// space in JSON), and whether it was carried out (`done`) or refused or failed
    /// (`failed`, its error in `messages`).
    Set {
        option: String,
        value: i64,
        #[serde(serialize_with = "crate::report::envelope::trimmed")]
        message: String,
        outcome: Outcome,
    },
}

impl SettingsItem {
    /// The number a get read, for the modes that compare it with what they set (`--apply`'s
    /// read-back, `--experiment`): the value its line prints after the `=`. None for a get
    /// that read no number (`not supported`, APM `off`, the drive state), for the geometry
    /// (several numbers) and for a set.
    pub fn number(&self) -> Option<i64> {
        match self {
            SettingsItem::Multcount { count: v }
            | SettingsItem::IoSupport { mode: v }
            | SettingsItem::Unmaskirq { value: v }
            | SettingsItem::UsingDma { value: v }
            | SettingsItem::Keepsettings { value: v }
            | SettingsItem::Nowerr { value: v }
            | SettingsItem::Readonly { value: v }
            | SettingsItem::Readahead { sectors: v }
            | SettingsItem::Busstate { value: v } => Some(*v),
            SettingsItem::QueueDepth { depth } => Some(i64::from(*depth)),
            SettingsItem::LookAhead { enabled } | SettingsItem::WriteCaching { enabled } => {
                enabled.map(i64::from)
            }
            SettingsItem::ApmLevel { apm } => match apm {
                Apm::Enabled { level, .. } => Some(i64::from(*level)),
                Apm::NotSupported | Apm::Disabled => None,
            },
            SettingsItem::Acoustic { level } => level.map(i64::from),
            SettingsItem::WriteReadVerify { value } => value.map(i64::from),
            SettingsItem::Geometry { .. }
            | SettingsItem::DriveState { .. }
            | SettingsItem::Set { .. } => None,
        }
    }

    /// The line exactly as hdparm prints it, with its newline.
    pub fn text(&self) -> String {
        let mut s = String::new();
        match self {
            SettingsItem::Multcount { count } => {
                let _ = write!(s, " multcount     = {count:2}{}", on_off(*count));
            }
            SettingsItem::IoSupport { mode } => {
                let desc = match mode {
                    0 => "default) ",
                    1 => "32-bit)",
                    2 => "16-bit)",
                    3 => "32-bit w/sync)",
                    8 => "Request-Queue-Bypass)",
                    _ => "???)",
                };
                let _ = write!(s, " IO_support    ={mode:3} ({desc}");
            }
            SettingsItem::Unmaskirq { value } => {
                let _ = write!(s, " unmaskirq     = {value:2}{}", on_off(*value));
            }
            SettingsItem::UsingDma { value } => {
                let suffix = if *value == 8 {
                    " (DMA-Assisted-PIO)"
                } else {
                    on_off(*value)
                };
                let _ = write!(s, " using_dma     = {value:2}{suffix}");
            }
            SettingsItem::QueueDepth { depth } => {
                let _ = write!(s, " queue_depth   = {depth:2}");
            }
            SettingsItem::Keepsettings { value } => {
                let _ = write!(s, " keepsettings  = {value:2}{}", on_off(*value));
            }
            SettingsItem::Nowerr { value } => {
                let _ = write!(s, " nowerr        = {value:2}{}", on_off(*value));
            }
            SettingsItem::Readonly { value } => {
                let _ = write!(s, " readonly      = {value:2}{}", on_off(*value));
            }
            SettingsItem::Readahead { sectors } => {
                let _ = write!(s, " readahead     = {sectors:2}{}", on_off(*sectors));
            }
            SettingsItem::Geometry {
                cylinders,
                heads,
                sectors_per_track,
                total_sectors,
                start_sector,
            } => {
                let _ = write!(
                    s,
                    " geometry      = {cylinders}/{heads}/{sectors_per_track}, sectors = {total_sectors}, start = "
                );
                match start_sector {
                    Some(start) => {
                        let _ = write!(s, "{start}");
                    }
                    None => s.push_str("unknown"),
                }
            }
            SettingsItem::DriveState { state } => {
                let _ = write!(s, " drive state is:  {}", state.as_str());
            }
            SettingsItem::LookAhead { enabled } => match enabled {
                Some(on) => {
                    let v = i64::from(*on);
                    let _ = write!(s, " look-ahead    = {v:2}{}", on_off(v));
                }
                None => s.push_str(" look-ahead    = not supported"),
            },
            SettingsItem::WriteCaching { enabled } => match enabled {
                Some(on) => {
                    let v = i64::from(*on);
                    let _ = write!(s, " write-caching = {v:2}{}", on_off(v));
                }
                None => s.push_str(" write-caching = not supported"),
            },
            SettingsItem::ApmLevel { apm } => {
                s.push_str(" APM_level\t= ");
                match apm {
                    Apm::NotSupported => s.push_str("not supported"),
                    Apm::Disabled => s.push_str("off"),
                    Apm::Enabled { level, .. } => {
                        let _ = write!(s, "{level}");
                    }
                }
            }
            SettingsItem::Acoustic { level } => match level {
                Some(level) => {
                    let _ = write!(s, " acoustic      = {level:2} (128=quiet ... 254=fast)");
                }
                None => s.push_str(" acoustic      = not supported"),
            },
            SettingsItem::WriteReadVerify { value } => match value {
                Some(v) => {
                    let _ = write!(s, " write-read-verify = {v:2}");
                }
                None => s.push_str(" write-read-verify = not supported"),
            },
            SettingsItem::Busstate { value } => {
                let _ = write!(s, " busstate      = {value:2} ({})", busstate_name(*value));
            }
            SettingsItem::Set { message, .. } => s.push_str(message),
        }
        s.push('\n');
        s
    }
}

/// hdparm's names for `-b` values.
pub fn busstate_name(value: i64) -> &'static str {
    match value {
        0 => "off",
        1 => "on",
        2 => "tristate",
        _ => "unknown",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_report_lines_match_hdparm() {
        assert_eq!(
            SettingsItem::Multcount { count: 16 }.text(),
            " multcount     = 16 (on)\n"
        );
        assert_eq!(
            SettingsItem::IoSupport { mode: 0 }.text(),
            " IO_support    =  0 (default) \n"
        );
        assert_eq!(
            SettingsItem::IoSupport { mode: 1 }.text(),
            " IO_support    =  1 (32-bit)\n"
        );
        assert_eq!(
            SettingsItem::Readonly { value: 0 }.text(),
            " readonly      =  0 (off)\n"
        );
        assert_eq!(
            SettingsItem::Readahead { sectors: 256 }.text(),
            " readahead     = 256 (on)\n"
        );
        let g = SettingsItem::Geometry {
            cylinders: 121601,
            heads: 255,
            sectors_per_track: 63,
            total_sectors: 1953525168,
            start_sector: Some(0),
        };
        assert_eq!(
            g.text(),
            " geometry      = 121601/255/63, sectors = 1953525168, start = 0\n"
        );
        assert_eq!(
            SettingsItem::UsingDma { value: 8 }.text(),
            " using_dma     =  8 (DMA-Assisted-PIO)\n"
        );
        assert_eq!(
            SettingsItem::ApmLevel {
                apm: Apm::Enabled {
                    level: 254,
                    level_valid: true
                }
            }
            .text(),
            " APM_level\t= 254\n"
        );
        assert_eq!(
            SettingsItem::DriveState {
                state: PowerState::ActiveIdle
            }
            .text(),
            " drive state is:  active/idle\n"
        );
    }

    #[test]
    fn the_number_of_a_get_is_the_value_its_line_prints_after_the_equals_sign() {
        let on = SettingsItem::WriteCaching {
            enabled: Some(true),
        };
        assert_eq!(on.number(), Some(1));
        let apm = |apm| SettingsItem::ApmLevel { apm }.number();
        let level = Apm::Enabled {
            level: 254,
            level_valid: true,
        };
        assert_eq!(apm(level), Some(254));
        // -B255 switches APM off: its get prints `off`, no number (--apply's drift).
        assert_eq!(apm(Apm::Disabled), None);
        assert_eq!(apm(Apm::NotSupported), None);
        assert_eq!(SettingsItem::Readahead { sectors: 64 }.number(), Some(64));
        assert_eq!(SettingsItem::Acoustic { level: None }.number(), None);
        let set = SettingsItem::Set {
            option: "-W".into(),
            value: 1,
            message: " setting drive write-caching to 1 (on)".into(),
            outcome: Outcome::Done,
        };
        assert_eq!(set.number(), None);
    }

    #[test]
    fn json_is_tagged_snake_case() {
        let v = serde_json::to_value(SettingsItem::Readahead { sectors: 256 }).unwrap_or_default();
        assert_eq!(v["setting"], "readahead");
        assert_eq!(v["sectors"], 256);
        let v = serde_json::to_value(SettingsItem::DriveState {
            state: PowerState::ActiveIdle,
        })
        .unwrap_or_default();
        assert_eq!(v["state"], "active_idle");
    }

    #[test]
    fn apm_json_keeps_its_shape() {
        let json = |apm| serde_json::to_string(&SettingsItem::ApmLevel { apm }).unwrap_or_default();
        assert_eq!(
            json(Apm::NotSupported),
            r#"{"setting":"apm_level","apm":{"state":"not_supported"}}"#
        );
        assert_eq!(
            json(Apm::Disabled),
            r#"{"setting":"apm_level","apm":{"state":"off"}}"#
        );
        assert_eq!(
            json(Apm::Enabled {
                level: 128,
                level_valid: false
            }),
            r#"{"setting":"apm_level","apm":{"state":"level","level":128}}"#
        );
    }
}
