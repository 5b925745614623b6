//! The sections that steps add to a device object of `--json` (`devices[].max_sectors`,
//! `security`, `drive_temperature`...), as typed structures: a step builds one and hands it to
//! `Output::put`, which files it under its key ([`Section::KEY`]).
//!
//! Owns: each section's keys and their documentation, and [`Sections`], the list of every key
//! a device object may carry beside its fixed ones, from which the `device` definition of
//! `doc/hdparm-rs.schema.json` is derived (`report::schema`). The one list (`sections!`)
//! names a key, its schema and the types a step may put under it, so a section cannot be put
//! under a key the schema does not know.
//!
//! Must not: decide anything, or change what a document says: a section is serialized through
//! a `serde_json::Value`, as the `json!` maps it replaces were, so its keys are sorted and a
//! `None` without `skip_serializing_if` is written as null, exactly as before.

use schemars::JsonSchema;
use serde::Serialize;

use super::identify::IdText;

/// A section of a device object, filed under [`Section::KEY`].
pub trait Section: Serialize {
    /// The key of the device object it goes under.
    const KEY: &'static str;
}

/// The sections: each `key: Schema => [types a step puts under it]`. It defines [`Sections`]
/// (the schema of the device's other keys) and each type's [`Section`] key.
macro_rules! sections {
    ($($(#[$doc:meta])* $key:ident: $schema:ty => [$($put:ty),*],)*) => {
        /// The keys of a device object beside `name`, `kind`, `description`, `settings`,
        /// `actions`, `identify`, `kernel_identity`, `timing` and `messages`, each present when
        /// its option ran. Only the schema is derived from it: the device keeps its sections
        /// as values (`DeviceJson::other`).
        #[derive(JsonSchema)]
        #[allow(dead_code)]
        pub struct Sections {
            $(
                $(#[$doc])*
                #[serde(skip_serializing_if = "absent")]
                pub $key: $schema,
            )*
        }
        $($(
            impl Section for $put {
                const KEY: &'static str = stringify!($key);
            }
        )*)*
    };
}

/// What makes each key of [`Sections`] optional in its schema (the schema of a key that is
/// written only when its option ran); nothing serializes [`Sections`].
#[allow(dead_code)]
fn absent<T>(_: &T) -> bool {
    true
}

/// A reference to one of the document's definitions, for a section that is one.
macro_rules! definition_ref {
    ($name:ident, $def:literal) => {
        #[doc = concat!("The document's `", $def, "` (a schema only).")]
        pub struct $name;
        impl JsonSchema for $name {
            fn schema_name() -> std::borrow::Cow<'static, str> {
                $def.into()
            }
            fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
                schemars::json_schema!({"$ref": concat!("#/$defs/", $def)})
            }
        }
    };
}

definition_ref!(DryRunRef, "dry_run");
definition_ref!(ExperimentRef, "experiment");

sections! {
    /// --Istdout: the 256 IDENTIFY words in hex.
    identify_words: IdentifyWords => [IdentifyWords],
    /// -N.
    max_sectors: MaxSectors => [MaxSectors],
    /// --dco-identify: DEVICE CONFIGURATION IDENTIFY decoded.
    dco_identify: super::dco::DcoReport => [super::dco::DcoReport],
    /// --read-sector.
    read_sector: ReadSector => [ReadSector],
    /// -H (on NVMe also the SMART / Health log's kelvin values and thresholds; on SCSI the
    /// reference temperature).
    drive_temperature: DriveTemperature => [DriveTemperature],
    /// --Istdout on NVMe: the 4096 bytes of Identify Controller in hex; on a SCSI disk, the
    /// INQUIRY data.
    identify_bytes_hex: IdentifyBytesHex => [IdentifyBytesHex],
    /// -i on NVMe: the controller's sysfs attributes.
    nvme_kernel_identity: NvmeKernelIdentity => [NvmeKernelIdentity],
    /// -i on a SCSI disk that does not take ATA: INQUIRY's strings, VPD 80h's serial and
    /// READ CAPACITY(16)'s size.
    scsi_kernel_identity: ScsiKernelIdentity => [ScsiKernelIdentity],
    /// -C on NVMe: the power state (Get Features 02h) and APST.
    nvme_power: NvmePower => [NvmePower],
    /// -B get on NVMe: APST.
    apst: Apst => [Apst],
    /// --sanitize-status on NVMe: the Sanitize Status log.
    sanitize_status: NvmeSanitizeStatus => [NvmeSanitizeStatus],
    /// --experiment: the report.
    experiment: ExperimentRef => [super::experiment::ExperimentReport],
    /// --dry-run --experiment (src/exec/modes/experiment/plan.rs): the plan of each command line the
    /// experiment runs; nothing was set, read or timed.
    experiment_plan: crate::exec::modes::experiment::plan::PlanReport<'static>
        => [crate::exec::modes::experiment::plan::PlanReport<'_>],
    /// --security-set-pass, -unlock, -disable, -erase, -erase-enhanced (the password is not
    /// recorded).
    security: Security => [Security],
    /// --sanitize-*.
    sanitize: Sanitize => [Sanitize],
    /// --dry-run: what the command line would do; nothing was sent.
    dry_run: DryRunRef => [super::dry_run::PlanJson<'_>],
    /// -J: the WD idle3 timer as read.
    wdidle3: Wdidle3 => [Wdidle3],
    /// --fwdownload*: what was downloaded.
    fwdownload: Fwdownload => [Fwdownload],
    /// --fibmap FILE (the device entry is named by the file).
    fibmap: super::filemap::FibmapReport => [super::filemap::FibmapReport],
}

// The device's own keys, which `DeviceJson` keeps apart.
impl Section for super::identify::IdentifyReport {
    const KEY: &'static str = "identify";
}
impl Section for super::nvme::NvmeIdentify {
    const KEY: &'static str = "identify";
}
impl Section for super::scsi::ScsiIdentify {
    const KEY: &'static str = "identify";
}
impl Section for super::kernel_identity::KernelIdentityReport {
    const KEY: &'static str = "kernel_identity";
}

/// `--Istdout`: IDENTIFY's 256 words, each four lowercase hex digits.
#[derive(Serialize, JsonSchema)]
pub struct IdentifyWords(
    #[schemars(length(min = 256, max = 256), inner(regex(pattern = "^[0-9a-f]{4}$")))]
    pub  Vec<String>,
);

impl IdentifyWords {
    pub fn of(words: &[u16; 256]) -> Self {
        IdentifyWords(words.iter().map(|w| format!("{w:04x}")).collect())
    }
}

/// `--Istdout` on NVMe and SCSI: the bytes in lowercase hex.
#[derive(Serialize, JsonSchema)]
pub struct IdentifyBytesHex(#[schemars(regex(pattern = "^([0-9a-f]{2})*$"))] pub String);

impl IdentifyBytesHex {
    pub fn of(bytes: &[u8]) -> Self {
        IdentifyBytesHex(hex(bytes))
    }
}

/// Bytes in lowercase hex, two digits each.
pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// `-N`: the visible and native maximum, in sectors.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct MaxSectors {
    pub visible_sectors: u64,
    pub native_sectors: u64,
    /// Whether IDENTIFY says the drive has the Accessible Max Address feature (the native
    /// maximum was read with its command, else with HPA's).
    pub accessible_max_address: bool,
}

/// `--read-sector`: the sector read.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ReadSector {
    pub lba: u64,
    pub bytes: usize,
    #[schemars(regex(pattern = "^([0-9a-f]{2})*$"))]
    pub data_hex: String,
}

/// `-H`: the drive's temperature, one shape per protocol.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
pub enum DriveTemperature {
    /// ATA (Hitachi's SENSE CONDITION): the count register's temperature.
    Ata(AtaTemperature),
    /// NVMe: the SMART / Health log's composite temperature and the controller's thresholds.
    Nvme(NvmeTemperature),
    /// SCSI: the Temperature log page (0Dh).
    Scsi(ScsiTemperature),
}

/// The temperature of an ATA drive.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AtaTemperature {
    /// below: under -20; above: over 107 (hdparm's "under -20", "over 107").
    pub kind: TemperatureKind,
    pub celsius: i32,
    /// Whether the drive says it is in range (error bit 4 clear).
    pub in_range: bool,
}

/// How a temperature reads: in degrees, or beyond what the drive can tell.
#[derive(Serialize, JsonSchema, Clone, Copy)]
#[serde(rename_all = "snake_case")]
pub enum TemperatureKind {
    Celsius,
    Below,
    Above,
}

/// The temperature of an NVMe controller.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmeTemperature {
    #[schemars(extend("const" = "celsius"))]
    pub kind: TemperatureKind,
    pub celsius: i32,
    /// Below the warning threshold, and no temperature warning.
    pub in_range: bool,
    /// The composite temperature.
    pub kelvin: u16,
    /// WCTEMP (0: none).
    pub warning_kelvin: u16,
    /// CCTEMP (0: none).
    pub critical_kelvin: u16,
    /// The log's Critical Warning byte.
    pub critical_warning: u8,
}

/// The temperature of a SCSI disk.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ScsiTemperature {
    #[schemars(extend("const" = "celsius"))]
    pub kind: TemperatureKind,
    pub celsius: u8,
    /// Below the reference temperature, and no temperature warning in the Informational
    /// Exceptions page (2Fh); null when neither says (no reference temperature, no warning).
    pub in_range: Option<bool>,
    /// The most the disk is made to run at; null when the page does not give it.
    pub reference_celsius: Option<u8>,
}

/// `-i` on NVMe.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmeKernelIdentity {
    pub model: String,
    pub firmware_rev: String,
    pub serial: String,
    /// The namespace's size; null when the kernel's could not be read.
    pub size_512_byte_sectors: Option<u64>,
    /// Null when the kernel's could not be read.
    pub logical_block_bytes: Option<u32>,
}

/// `-i` on a SCSI disk.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ScsiKernelIdentity {
    pub vendor: IdText,
    pub product: IdText,
    pub revision: IdText,
    /// Null without VPD 80h.
    pub serial: Option<IdText>,
    /// Null without READ CAPACITY(16).
    pub logical_blocks: Option<u64>,
    pub logical_block_bytes: Option<u32>,
}

/// `-C` on NVMe.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmePower {
    pub power_state: u8,
    /// Null without Identify Controller's power state descriptor.
    pub non_operational: Option<bool>,
    /// Null when the controller has no APST or its feature could not be read.
    pub apst_enabled: Option<bool>,
}

/// `-B` get on NVMe.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Apst {
    pub supported: bool,
    /// Null when the controller has no APST.
    pub enabled: Option<bool>,
}

/// `--sanitize-status` on NVMe.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct NvmeSanitizeStatus {
    pub state: crate::nvme::log::SanitizeState,
    pub progress_percent: f64,
    pub log: crate::nvme::log::SanitizeStatus,
}

/// The security command sent (the password is not recorded).
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Security {
    #[schemars(extend("enum" = [
        "security_set_pass",
        "security_unlock",
        "security_disable",
        "security_erase",
        "security_erase_enhanced"
    ]))]
    pub operation: &'static str,
    #[schemars(extend("enum" = ["user", "master"]))]
    pub user: &'static str,
    /// --security-set-pass only.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(extend("enum" = ["high", "max"]))]
    pub level: Option<&'static str>,
    /// The revision code sent with a master --security-set-pass.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master_password_revision: Option<u16>,
    /// The erase's command timeout, as hdparm computes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_secs: Option<u32>,
    /// The drive's own erase estimate (IDENTIFY word 89 or 90); a lower bound when the drive
    /// says 'more than'.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub estimate_minutes: Option<u32>,
    /// Every command went through.
    pub done: bool,
}

/// What a `--sanitize-*` did, one shape per outcome.
#[derive(Serialize, JsonSchema)]
#[serde(untagged)]
#[schemars(deny_unknown_fields)]
pub enum Sanitize {
    /// An erase the drive started; it runs in the background.
    Started {
        #[schemars(with = "SanitizeCommand")]
        command: &'static str,
        #[schemars(extend("const" = true))]
        started: bool,
    },
    /// A freeze lock or an antifreeze lock that went through.
    Done {
        #[schemars(with = "SanitizeCommand")]
        command: &'static str,
        #[schemars(extend("const" = true))]
        done: bool,
    },
    /// A command the drive refused.
    Failed {
        #[schemars(with = "SanitizeCommand")]
        command: &'static str,
        /// The drive's reason, worded as hdparm words it.
        failure_reason: String,
    },
    /// An ATA drive's status.
    AtaStatus(AtaSanitizeStatus),
    /// A SCSI disk's status (REQUEST SENSE).
    ScsiStatus(ScsiSanitizeStatus),
}

/// The sub-commands of `--sanitize-*` (the names of their actions).
// Its variants are the action names, which all begin with `sanitize`.
#[derive(JsonSchema)]
#[allow(dead_code, clippy::enum_variant_names)]
#[serde(rename_all = "snake_case")]
enum SanitizeCommand {
    SanitizeStatus,
    SanitizeCryptoScramble,
    SanitizeBlockErase,
    SanitizeOverwrite,
    SanitizeFreezeLock,
    SanitizeAntifreezeLock,
}

/// `--sanitize-status` on ATA.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct AtaSanitizeStatus {
    #[schemars(extend("const" = "sanitize_status"))]
    pub command: &'static str,
    #[schemars(extend("enum" = ["SD0", "SD1", "SD2"]))]
    pub state: &'static str,
    pub state_text: &'static str,
    pub completed_without_error: bool,
    pub antifreeze: bool,
    /// SD2: done, in 1/65536ths.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub progress: Option<u16>,
    /// SD2: done, in percent.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(max = 100))]
    pub percent: Option<u32>,
}

/// `--sanitize-status` on SCSI.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ScsiSanitizeStatus {
    #[schemars(extend("const" = "sanitize_status"))]
    pub command: &'static str,
    #[schemars(extend("enum" = ["idle", "in_progress", "failed"]))]
    pub state: &'static str,
    /// Done, in percent; null unless in progress with a progress indication.
    #[schemars(range(max = 100))]
    pub percent: Option<u32>,
}

/// `-J`.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Wdidle3 {
    pub raw: u8,
    /// The timer in words, as `-J` prints it without `--verbose`.
    pub text: String,
}

/// `--fwdownload*`.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Fwdownload {
    /// The file, as named on the command line.
    pub file: String,
    /// The bytes sent.
    pub bytes: u64,
    /// DOWNLOAD MICROCODE's mode: 3 (segmented), 7 (the whole image), 14 (deferred segments).
    #[schemars(extend("enum" = [3, 7, 14]))]
    pub xfer_mode: u8,
    pub segment_bytes: u64,
}
