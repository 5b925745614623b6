//! The `-I` report: IDENTIFY data decoded into a typed [`IdentifyReport`], rendered as hdparm
//! 9.65's text byte for byte (reference §5.3) or serialized as JSON (fields documented in
//! [`crate::report::identify_json`]).
//!
//! Owns: the decode (`decode.rs`: every decision hdparm's `identify()` makes, including its
//! guesses about the standard a device follows) and the text (`text.rs`: only formatting).
//! `--Istdin`, `-I` and `-i` run through `exec`, which reads the input and prints the bytes.
//!
//! Must not: touch a device. What only a live device can give (log pages) arrives in an
//! [`IdentifyContext`] filled by the caller.
//!
//! The text renderer consumes only the report, so every value the text shows is in the JSON.

mod decode;
mod text;

use std::io::{self, Write};

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use crate::ata::identify::{sata_settings_devslp, sector_config_sizes, DevSleepTimings, Identify};
use crate::ata::values::Apm;
use crate::error::ErrorClass;

pub use decode::identify_report;
pub(crate) use decode::{BUFFER_TYPES, MINOR_VERSIONS};
pub use text::render_report;

/// What only a live device gives the `-I` decode. Empty (the default) for `--Istdin`.
#[derive(Clone, Debug, Default)]
pub struct IdentifyContext {
    /// A device is open (hdparm's `fd != -1`). Log-derived output needs it.
    pub live: bool,
    /// The raw sizes of the valid descriptors of the Sector Configuration log (0x2F page 0),
    /// when it was read successfully (see [`Identify::wants_sector_config_log`] and
    /// [`sector_config_sizes`]); the decode turns them into bytes as hdparm does.
    pub sector_config_sizes: Option<Vec<u32>>,
    /// DEVSLP timings from the SATA Settings log (0x30 page 8), when it was read and its valid
    /// bit is set (see [`Identify::wants_sata_settings_log`]).
    pub devslp: Option<DevSleepTimings>,
}

impl IdentifyContext {
    /// A live context from the raw log pages the device layer read (`None` = not read or failed).
    pub fn from_log_pages(
        sector_config: Option<&[u8; 512]>,
        sata_settings_page8: Option<&[u8; 512]>,
    ) -> Self {
        IdentifyContext {
            live: true,
            sector_config_sizes: sector_config.map(sector_config_sizes),
            devslp: sata_settings_page8.and_then(sata_settings_devslp),
        }
    }
}

/// Renders `-I` for one device: the decode of [`identify_report`], then the text.
/// The output starts with hdparm's blank line; the `\n/dev/sda:\n` header is the caller's.
pub fn render_identify(
    id: &Identify,
    ctx: &IdentifyContext,
    out: &mut dyn Write,
) -> io::Result<()> {
    render_report(&identify_report(id, ctx), out)
}

// ---------------------------------------------------------------------------------------------
// The report. Field order follows the text. `None` means "the text prints nothing for this".
// ---------------------------------------------------------------------------------------------

/// Bytes of an IDENTIFY string as hdparm prints them (leading spaces dropped, NULs dropped,
/// trailing spaces kept). JSON gets the text with trailing spaces trimmed (lossy UTF-8).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct IdText(pub Vec<u8>);

impl Serialize for IdText {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(String::from_utf8_lossy(&self.0).trim_end())
    }
}

impl JsonSchema for IdText {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "IdText".into()
    }
    fn inline_schema() -> bool {
        true
    }
    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

/// -I and --Istdin: the IDENTIFY decode (keys: `report::identify_json`).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct IdentifyReport {
    pub device: DeviceLine,
    /// Word 2 (specific configuration), when it holds one of the four defined values.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub specific_configuration: Option<SpecificConfiguration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<IdText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub serial: Option<IdText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub firmware: Option<IdText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_serial: Option<IdText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub media_manufacturer: Option<IdText>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transport: Option<Transport>,
    /// `None` only for an unknown device type (hdparm stops after the first line).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standards: Option<Standards>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub configuration: Option<Configuration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capabilities: Option<Capabilities>,
    /// The "Commands/features:" table; `None` when word 83 is not valid (no table).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub commands_features: Option<Vec<FeatureGroup>>,
    /// Word 69 features and TRIM, printed for ATA-7+ devices whether or not the table is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub additional_features: Option<AdditionalFeatures>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cfa: Option<Cfa>,
    /// Word 127 bits 1:0 = 01.
    pub removable_media_status_notification: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub security: Option<Security>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub wwn: Option<Wwn>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hw_reset: Option<HwReset>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_sleep: Option<DeviceSleep>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub integrity: Option<Integrity>,
}

impl IdentifyReport {
    /// The failure hdparm reports after printing this report, if any: an unknown device type,
    /// where hdparm stops in the middle of `-I` and exits with EINVAL ([`ErrorClass::Usage`]'s
    /// status). The exit status itself is decided in [`crate::error`].
    pub fn failure(&self) -> Option<ErrorClass> {
        (self.device.kind == DeviceKind::Unknown).then_some(ErrorClass::Usage)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum DeviceKind {
    Ata,
    Atapi,
    Cfa,
    Unknown,
}

/// The first line: what kind of device, and removable media.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DeviceLine {
    pub kind: DeviceKind,
    /// Word 0.
    pub general_configuration: u16,
    /// ATAPI peripheral device type (word 0 bits 12:8) and its name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atapi_device_type: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atapi_device_type_name: Option<String>,
    /// Word 0 bit 7; not shown for CompactFlash or unknown devices.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub removable_media: Option<bool>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SpecificConfiguration {
    pub word: u16,
    /// "powers-up in standby; SET FEATURES subcmd spins-up."
    pub powers_up_in_standby: bool,
    /// "WARNING: ID response incomplete."
    pub response_incomplete: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Transport {
    /// Word 222.
    pub major: u16,
    /// `parallel`, `serial` or `other` (word 222 bits 15:12).
    #[schemars(extend("enum" = ["parallel", "serial", "other"]))]
    pub kind: &'static str,
    /// The text after "Transport:" (without the revision).
    pub description: String,
    /// The text after "; Revision: ", from word 223.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub revision: Option<String>,
}

/// "Standards:" — for CD-ROMs hdparm reads other words.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Standards {
    Ata {
        /// Word 81.
        minor_version_code: u16,
        /// The text after "Used: ".
        #[serde(skip_serializing_if = "Option::is_none")]
        used: Option<String>,
        /// "Supported:" list (word 80 bits, newest first, as many as hdparm shows).
        #[serde(skip_serializing_if = "Option::is_none")]
        supported: Option<Vec<u16>>,
        /// "Likely used: N" (no version code recognised).
        #[serde(skip_serializing_if = "Option::is_none")]
        likely_used: Option<u16>,
        /// "& some of N" (the device uses words of a newer standard than it claims).
        #[serde(skip_serializing_if = "Option::is_none")]
        some_of: Option<u16>,
    },
    Cdrom {
        /// Word 74 = 9: "ATAPI for CD-ROMs, SFF-8020i, r2.5".
        used_sff_8020i: bool,
        /// "Supported: CD-ROM ATAPI-N..." from word 73.
        #[serde(skip_serializing_if = "Option::is_none")]
        supported_atapi: Option<Vec<u16>>,
        /// Neither of the above: "Likely used CD-ROM ATAPI-1".
        likely_atapi_1: bool,
    },
}

/// "Configuration:".
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Configuration {
    /// ATA-1 general configuration bits (word 0), as text.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub ata1_flags: Vec<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub atapi: Option<AtapiConfiguration>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub addressing: Option<Addressing>,
    /// "cache/buffer size  = N KBytes" (word 21 / 2); `None` prints "unknown".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_buffer_kbytes: Option<u16>,
    /// "(type=...)" from word 20.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cache_buffer_type: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub form_factor: Option<FormFactor>,
    /// "Nominal Media Rotation Rate" (word 217).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rotation: Option<Rotation>,
}

/// Word 217: 1 = non-rotating media, 0x0401..=0xFFFE = nominal rpm.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Rotation {
    SolidState,
    Rpm { rpm: u16 },
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AtapiConfiguration {
    pub drq_response: &'static str,
    pub packet_size: &'static str,
}

/// CHS table, LBA counts, sector sizes and the device size (ATA devices).
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Addressing {
    /// `None` prints "CHS addressing not supported".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chs: Option<Chs>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lba28_sectors: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lba48_sectors: Option<u64>,
    pub sector_size: SectorSize,
    /// Sectors × logical sector size (64-bit arithmetic, wrapping as hdparm's).
    pub device_size_bytes: u64,
    /// "device size with M = 1024*1024".
    pub device_size_mebibytes: u64,
    /// "device size with M = 1000*1000".
    pub device_size_mbytes: u64,
    /// "(N GB)", shown above 1000 MB.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_size_gbytes: Option<u64>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Chs {
    pub cylinders_max: u16,
    pub cylinders_current: u16,
    pub heads_max: u16,
    pub heads_current: u16,
    pub sectors_per_track_max: u16,
    pub sectors_per_track_current: u16,
    /// ATA-1 "bytes/track" and "bytes/sector" (words 4 and 5).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_track: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bytes_per_sector: Option<u16>,
    /// "CHS current addressable sectors".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub current_addressable_sectors: Option<u32>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SectorSize {
    /// Word 106 is valid: logical and physical sizes are printed separately.
    pub reported: bool,
    pub logical_bytes: u32,
    pub physical_bytes: u32,
    /// "[ Supported: ... ]" from the Sector Configuration log (live devices only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub supported_logical_bytes: Option<Vec<u32>>,
    /// "Logical Sector-0 offset" (word 209).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sector0_offset_bytes: Option<u32>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FormFactor {
    /// Word 168.
    pub code: u16,
    pub text: String,
}

/// "Capabilities:".
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Capabilities {
    pub cmd_queuing: bool,
    pub cmd_overlap: bool,
    pub lba: bool,
    /// `None` prints "IORDY not likely" (ATA-1 devices).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iordy: Option<Iordy>,
    /// ATA-1 "Buffer type" (word 20).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_type: Option<u16>,
    /// ATA-1 "Buffer size" (word 21, in 512-byte units).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub buffer_size_bytes: Option<u32>,
    /// "bytes avail on r/w long" (word 22).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rw_long_bytes: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub queue_depth: Option<u16>,
    /// ATA-1 "Can/Cannot perform double-word IO".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub double_word_io: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub standby_timer: Option<StandbyTimer>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub multiple_sector_transfer: Option<MultipleSectorTransfer>,
    /// "Advanced power management level": a level, or `null` for "disabled".
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "apm_json")]
    #[schemars(with = "ApmJson")]
    pub advanced_power_management: Option<Apm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub acoustic_management: Option<AcousticManagement>,
    /// ATAPI "ATA sw reset required".
    pub atapi_sw_reset_required: bool,
    /// ATAPI "Overlap support".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub overlap: Option<Overlap>,
    /// ATAPI "DMADIR bit required in PACKET commands".
    pub dmadir_required: bool,
    pub dma: Dma,
    pub pio: Pio,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Iordy {
    /// Word 49 bit 11 (else "(may be)").
    pub supported: bool,
    /// Word 49 bit 10.
    pub can_be_disabled: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct StandbyTimer {
    /// "spec'd by Standard" (word 49 bit 13), else "Vendor".
    pub standard_values: bool,
    /// ", with/no device specific minimum" (word 50), when shown.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub device_specific_minimum: Option<bool>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum MultipleSectorTransfer {
    NotSupported,
    Supported {
        max_sectors: u8,
        /// `None` prints "?".
        #[serde(skip_serializing_if = "Option::is_none")]
        current_sectors: Option<u8>,
    },
}

/// `-I`'s JSON for APM (present only when supported): `{"kind":"disabled"}` or
/// `{"kind":"level","level":N}`. The state itself is [`crate::ata::values::Apm`].
fn apm_json<S: Serializer>(apm: &Option<Apm>, serializer: S) -> Result<S::Ok, S::Error> {
    let json = match *apm {
        Some(Apm::Enabled { level, .. }) => Some(ApmJson::Level { level }),
        Some(Apm::Disabled) => Some(ApmJson::Disabled),
        Some(Apm::NotSupported) | None => None,
    };
    json.serialize(serializer)
}

/// `advanced_power_management`, as [`apm_json`] writes it.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(deny_unknown_fields)]
enum ApmJson {
    Disabled,
    Level { level: u8 },
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AcousticManagement {
    pub recommended: u8,
    pub current: u8,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Overlap {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub release_bus_us: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clear_bsy_us: Option<u16>,
}

/// A transfer mode in a list; `selected` is shown as a leading `*`.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct XferMode {
    pub name: String,
    pub selected: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum DmaModes {
    NotSupported,
    /// Only the obsolete word 52 says something: "sdmaN".
    Legacy {
        sdma: u16,
    },
    List {
        modes: Vec<XferMode>,
        /// "(?)": no mode or more than one mode selected.
        questionable: bool,
    },
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Dma {
    pub modes: DmaModes,
    pub interleaved: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_min_ns: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_recommended_ns: Option<u16>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Pio {
    /// PIO mode numbers; `None` prints "unknown".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modes: Option<Vec<u8>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_no_flow_control_ns: Option<u16>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cycle_iordy_flow_control_ns: Option<u16>,
}

/// One line of the features table: `*` when enabled.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Feature {
    pub bit: u8,
    pub name: &'static str,
    pub enabled: bool,
}

/// The features one IDENTIFY word contributes to the table, in print order.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct FeatureGroup {
    /// The word the "supported" bits come from.
    pub word: u16,
    pub features: Vec<Feature>,
    /// "(N msec for TLC completion timer)" after the word 84 group.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tlc_completion_timer_msec: Option<u32>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AdditionalFeatures {
    /// Word 69 features (always shown as enabled).
    pub features: Vec<Feature>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trim: Option<Trim>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Trim {
    /// "(limit N block(s))" from word 105; `None` prints "(limit unknown)".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit_blocks: Option<u16>,
    /// "Deterministic read ZEROs/data after TRIM": `zeros` or `data`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["zeros", "data"]))]
    pub deterministic_read: Option<&'static str>,
}

/// CompactFlash extras.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Cfa {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_io_udma_cycle_ns: Option<u8>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_mem_udma_cycle_ns: Option<u8>,
    /// "CFA advanced modes:".
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub advanced_modes: Vec<XferMode>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub power_level_1: Option<CfaPowerLevel>,
    /// "Key Management (CPRM) feature set".
    pub cprm: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct CfaPowerLevel {
    pub supported: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_current_ma: Option<u16>,
}

/// "Security:".
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Security {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master_password_revision: Option<u16>,
    /// The six status lines, shown when word 128 is non-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub status: Option<SecurityFlags>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub erase_time: Option<EraseTime>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enhanced_erase_time: Option<EraseTime>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct SecurityFlags {
    pub supported: bool,
    pub enabled: bool,
    pub locked: bool,
    pub frozen: bool,
    pub count_expired: bool,
    pub enhanced_erase_supported: bool,
    /// "Security level high|maximum", shown when enabled.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["high", "maximum"]))]
    pub level: Option<&'static str>,
}

/// An erase time estimate: minutes, or "more than" the largest encodable value.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct EraseTime {
    pub minutes: u32,
    pub more_than: bool,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Wwn {
    /// The 64-bit name as 16 hex digits.
    #[schemars(regex(pattern = "^[0-9a-f]{16}$"))]
    pub wwn: String,
    pub naa: u8,
    pub ieee_oui: u32,
    pub unique_id: u64,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct HwReset {
    /// "CBLID- above Vih" (else below).
    pub cblid_above_vih: bool,
    pub device_number: u8,
    /// `jumper` or `csel` when word 93 says how the number was determined.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["jumper", "csel"]))]
    pub determined_by: Option<&'static str>,
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DeviceSleep {
    pub exit_timeout_ms: u8,
    /// `drive` or `default`.
    #[schemars(extend("enum" = ["drive", "default"]))]
    pub exit_timeout_source: &'static str,
    pub min_assertion_ms: u8,
    /// `drive` or `default` (hdparm decides this from DETO, a quirk kept).
    #[schemars(extend("enum" = ["drive", "default"]))]
    pub min_assertion_source: &'static str,
}

/// The last line: checksum or integrity word.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Integrity {
    /// Word 255 low byte is 0xA5.
    pub signature_present: bool,
    /// Sum of all 512 bytes mod 256 (0 = correct).
    pub byte_sum: u8,
    /// Word 255.
    pub word: u16,
    /// `true`/`false` with a signature, absent without.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub checksum_correct: Option<bool>,
}
