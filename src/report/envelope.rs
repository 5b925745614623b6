//! The JSON envelope of `--json`, in the manner of `smartctl -j`.
//!
//! ```json
//! {
//!   "json_format_version": [3, 1],
//!   "hdparm_rs": { "version": "0.1.0", "argv": ["hdparm", "--json", "-I", "/dev/sda"],
//!                  "exit_status": 0 },
//!   "devices": [
//!     { "name": "/dev/sda", "kind": "ata_disk", "description": "...",
//!       "settings": [ {"setting": "readahead", "sectors": 256}, ... ],  // see report::settings
//!       "actions": [ {"action": "standby", "option": "-y", "outcome": "done"} ],
//!       "identify": { ... },            // -I: see report::identify_json
//!       "kernel_identity": { ... },     // -i: see report::identify_json
//!       "timing": [ { ... } ],          // -T, -t, --bench: see timing::reads, timing::bench
//!       "max_sectors": { ... },         // -N; and the other sections of report::sections:
//!                                       // read_sector, identify_words, drive_temperature
//!       "messages": [ {"severity": "error", "class": "not_applicable", "text": "..."} ] }
//!   ],
//!   "help": "...",                      // -h, --help, --security-help: the text
//!   "stop": { ... },                    // a run a signal stopped: see report::stop
//!   "messages": [ ... ]                 // messages not tied to one device (usage errors...)
//! }
//! ```
//!
//! With `--json` stdout is this one document in every case: a usage error (then `devices` is
//! empty and the error is in `messages` with class `usage`), `-V` (the version is
//! `hdparm_rs.version`), `-h`. `--apply`/`--check` write a document of their own with the same
//! first keys (`exec/modes/apply.rs`). `doc/hdparm-rs.schema.json` is the JSON Schema of all of it,
//! and a test validates every document the test suites produce against it.
//!
//! `actions` records each action asked for (`-y`, `-Y`, `-z`, `-F`, `-f`, `-w`,
//! `--idle-immediate`, `--dco-freeze`, `--security-freeze`, `-Z`, `--Iraw`), in the order
//! carried out, with its `outcome`: `done`, or `failed` when an error followed (the error is in
//! the device's `messages`).
//!
//! `json_format_version` is `[major, minor]`: the major number changes when a key changes
//! meaning or disappears, the minor when keys are added. Version 2 (from 1): `-i`'s mode lists
//! are objects with `selected`; sets carry `outcome`; `actions`, `help` and `-H`'s
//! `drive_temperature` are new; `max_sectors`, `read_sector` and `identify_words` are keys of
//! the device (version 1 nested them under `other`); `--apply`'s messages have this file's
//! shape (they were `{class, message}`). Version 3 (from 2): a `--surface` zone's read errors
//! are `error_blocks` and at most 16 `error_ranges` (`error_lbas` listed every failed block,
//! without bound), and the scan says how it `ended`. In `argv` a password word reads
//! `(password)`. Version 3.1: the `--apply`/`--check` document has `dropped` (blocks that apply to
//! nothing), and each device `settings_digest`, `dropped`, `unverified`, `last_apply`, and
//! `recorded`/`reason` where the record of the last `--apply` decided a setting; a run a signal
//! stopped has `stop` (`report::stop`). Keys are
//! snake_case with units in their names. A key whose value is unknown is left out rather than
//! set to null, except where the section documents null. Messages are kept apart from data;
//! every message also goes to stderr as text. `-q` hides text only: in JSON every value and
//! set the command line names is reported.

use super::settings::Outcome;
use serde::Serialize;

/// `[major, minor]` of the JSON format.
pub const JSON_FORMAT_VERSION: [u32; 2] = [3, 1];

/// A warning or an error, as data.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Message {
    /// `error` or `warning`.
    #[schemars(extend("enum" = ["error", "warning"]))]
    pub severity: &'static str,
    /// The error class (`usage`, `guard`, `cannot_open`, `failed`, `not_applicable`, `drift`);
    /// absent for a warning.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::schema::error_class_ref")]
    pub class: Option<&'static str>,
    /// The line as printed on stderr, without the leading space hdparm puts before many of
    /// its messages (a column of its text report, noise in a JSON string).
    #[serde(serialize_with = "trimmed")]
    pub text: String,
}

/// Serializes a message without its leading white space.
pub fn trimmed<S: serde::Serializer>(text: &str, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_str(text.trim_start())
}

/// An action carried out on the device, in the order carried out.
#[derive(Clone, Debug, Serialize, PartialEq, Eq, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct ActionRecord {
    /// What was done, snake_case (`standby`, `reread_partitions`, `flush_drive_cache`...): the
    /// schema lists every name a step passes to `Output::action`.
    #[schemars(extend("enum" = [
        "flush_buffer_cache",
        "reread_partitions",
        "idle_immediate",
        "standby",
        "sleep",
        "reset",
        "dco_freeze",
        "security_freeze",
        "seagate_powersave_off",
        "flush_drive_cache",
        "write_identify_raw",
        "security_set_pass",
        "security_unlock",
        "security_disable",
        "security_erase",
        "security_erase_enhanced",
        "sanitize_status",
        "sanitize_crypto_scramble",
        "sanitize_block_erase",
        "sanitize_overwrite",
        "sanitize_freeze_lock",
        "sanitize_antifreeze_lock",
        "dco_restore",
        "dco_setmax",
        "set_max_sectors",
        "make_bad_sector",
        "trim_sector_ranges",
        "trim",
        "sanitize",
        "write_sector",
        "drq_hsm_error",
        "set_sector_size",
        "idle_unload",
        "fwdownload",
        "fallocate"
    ]))]
    pub action: &'static str,
    /// The option that asked for it.
    pub option: String,
    /// `done`, or `failed` when an error followed (it is in the device's `messages`).
    pub outcome: Outcome,
    /// The file written, for `--Iraw`.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub path: Option<String>,
}

/// One device's reports.
#[derive(Clone, Debug, Serialize, Default, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DeviceJson {
    /// The device as named on the command line (stdin for --Istdin).
    pub name: String,
    /// What the device is: ata_disk, usb_disk, scsi_disk, scsi_generic, cdrom, ide, nvme,
    /// virtio_blk, loop, md, block, char_device, regular_file, directory, other.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(regex(pattern = "^[a-z][a-z0-9_]*$"))]
    pub kind: Option<String>,
    /// One sentence saying what the device is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::schema::settings_ref")]
    pub settings: Vec<super::settings::SettingsItem>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::schema::actions_ref")]
    pub actions: Vec<ActionRecord>,
    /// -I: the ATA report, or on NVMe and on a SCSI disk that does not take ATA theirs.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::schema::identify_any")]
    pub identify: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::schema::kernel_identity_ref")]
    pub kernel_identity: Option<serde_json::Value>,
    /// -T, -t, --bench: one figure each, in the order run.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schemars(schema_with = "super::schema::timing_items")]
    pub timing: Vec<serde_json::Value>,
    /// Other results (`max_sectors`, `read_sector`, `identify_words`, `drive_temperature`...),
    /// keys of the device object beside the others: `report::sections` lists them.
    #[serde(flatten)]
    #[schemars(with = "super::sections::Sections")]
    pub other: serde_json::Map<String, serde_json::Value>,
    #[schemars(schema_with = "super::schema::messages_ref")]
    pub messages: Vec<Message>,
}

/// The program that wrote the document.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Program {
    /// hdparm-rs's version.
    pub version: &'static str,
    /// The command line, argv[0] included.
    pub argv: Vec<String>,
    /// The process exit status: one of the classes of EXIT STATUS in hdparm(8) (src/error.rs),
    /// or 128+N when signal N stopped the run.
    #[schemars(schema_with = "super::schema::exit_status")]
    pub exit_status: u8,
}

/// The whole document: every --json document but --apply/--check's: the devices' reports (an
/// --Istdin decode is one device named stdin), or a usage error, -V or -h.
#[derive(Clone, Debug, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Envelope {
    #[schemars(schema_with = "super::schema::format_version_ref")]
    pub json_format_version: [u32; 2],
    #[schemars(schema_with = "super::schema::program_ref")]
    pub hdparm_rs: Program,
    #[schemars(schema_with = "super::schema::devices_ref")]
    pub devices: Vec<DeviceJson>,
    /// The help text (`-h`, `--help`, `--security-help`): the text hdparm prints.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "String")]
    pub help: Option<String>,
    /// A run that a signal stopped: which devices were done, interrupted, never started
    /// (`report::stop`).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(schema_with = "super::schema::stop_ref")]
    pub stop: Option<serde_json::Value>,
    #[schemars(schema_with = "super::schema::messages_ref")]
    pub messages: Vec<Message>,
}

/// The `hdparm_rs` object of a document that is not built through [`Envelope`] (`--apply`,
/// `--advise`, `--surface`): the program's version, its argv and the exit status.
/// `argv` comes with its passwords redacted (`cli::parse::redacted_argv`).
pub fn program(argv: Vec<String>, exit_status: u8) -> Program {
    Program {
        version: env!("CARGO_PKG_VERSION"),
        argv,
        exit_status,
    }
}

/// The text of a document that a mode writes itself (`--apply`, `--advise`, `--surface`),
/// from its typed structure, as these documents have always been written: through a
/// `serde_json::Value`, whose objects sort their keys at every level (they were `json!` maps),
/// pretty-printed. No newline at the end.
pub fn render_sorted<T: Serialize>(document: &T) -> String {
    let value = serde_json::to_value(document).unwrap_or_default();
    serde_json::to_string_pretty(&value).unwrap_or_default()
}

impl Envelope {
    pub fn new(argv: Vec<String>) -> Self {
        Envelope {
            json_format_version: JSON_FORMAT_VERSION,
            hdparm_rs: Program {
                version: env!("CARGO_PKG_VERSION"),
                argv,
                exit_status: 0,
            },
            devices: Vec::new(),
            help: None,
            stop: None,
            messages: Vec::new(),
        }
    }

    /// The document as pretty-printed JSON with a final newline.
    pub fn render(&self) -> String {
        let mut s =
            serde_json::to_string_pretty(self).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"));
        s.push('\n');
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_has_version_program_and_devices() {
        let mut env = Envelope::new(vec!["hdparm".into(), "--json".into(), "/dev/x".into()]);
        env.hdparm_rs.exit_status = 25;
        env.devices.push(DeviceJson {
            name: "/dev/x".into(),
            ..Default::default()
        });
        let v: serde_json::Value = serde_json::from_str(&env.render()).unwrap_or_default();
        assert_eq!(v["json_format_version"][0], 3);
        assert_eq!(v["hdparm_rs"]["exit_status"], 25);
        assert_eq!(v["hdparm_rs"]["argv"][1], "--json");
        assert_eq!(v["devices"][0]["name"], "/dev/x");
        assert!(v["devices"][0]["messages"]
            .as_array()
            .is_some_and(|m| m.is_empty()));
    }

    #[test]
    fn other_sections_are_keys_of_the_device() {
        let mut device = DeviceJson {
            name: "/dev/x".into(),
            ..Default::default()
        };
        device.other.insert(
            "max_sectors".into(),
            serde_json::json!({"native_sectors": 8}),
        );
        let v = serde_json::to_value(&device).unwrap_or_default();
        assert_eq!(v["max_sectors"]["native_sectors"], 8);
        assert!(v.get("other").is_none());
    }
}
