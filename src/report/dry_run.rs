//! The plan `--dry-run` prints (ours): what a run would send to each device, one line per ATA
//! command (its name, every taskfile register, the protocol, the timeout, and a summary of the
//! data it would write), one line per kernel call that would change something, per file it
//! would write, per timing it would run, the guard flags the real run needs (saying which of
//! them are given) and, where the real run would be refused or fail, why.
//!
//! The data a command would write is summed up by its length, its first 16 bytes and an FNV-1a
//! digest, except for the security commands, whose data holds the password: for those the plan
//! says only how many bytes there are and that they hold the password (a digest of a sector
//! that is all zeros but a short password can be brute-forced).
//!
//! JSON (`devices[].dry_run`): `sent` (always false), `guards_needed` (the flags a real run
//! needs, as typed), `guards_missing` (those of them not given), `refused_because` (the in-use
//! sentence, or null), `would_fail` (`[{class, text}]`: what the real run would fail or be
//! refused with that the dry run can know, the device's nature, the kernel's IDENTIFY, the
//! files), `identify_source` (`kernel` when the kernel's copy of IDENTIFY was read to plan,
//! `none` when there was none, `not_needed`), `ata_commands_failing` and
//! `ata_commands_failing_because` (the ATA commands a device without ATA would fail, and its
//! description, or 0 and null), and `commands`: for an ATA command `{"kind": "ata", "name",
//! "command", "feature", "count", "lba", "device", "lba48", "protocol", "timeout_seconds",
//! "data_out_bytes", "data_out_head_hex", "data_out_fnv1a64", "data_out_holds_password"}`
//! (registers as numbers; the data fields null without data out, and the head and digest null
//! when the data holds the password), for a NVMe command `{"kind": "nvme", "name", "queue"
//! (`admin` or `io`), "opcode", "nsid", "cdw10"..."cdw15", and the same four data fields}`, for
//! a SCSI command `{"kind": "scsi", "name", "cdb" (hex), "timeout_secs", and the same four data
//! fields}`, for a kernel call `{"kind": "kernel", "call"}`, for a timing `{"kind": "reads", "what"}`, for a
//! file `{"kind": "file", "what"}`.
//!
//! Owns: the plan types and both renderings. Must not: reach a device.

use crate::ata::command::{Protocol, TaskFile, DEFAULT_TIMEOUT_SECS};
use crate::ata::names::command_name;
use crate::error::ErrorClass;
use crate::nvme::command::{admin, io, NvmeCommand, Queue};
use schemars::JsonSchema;
use serde::Serialize;
use serde_json::Value;

/// One thing the run would do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Planned {
    /// An ATA command, with the data it would write.
    Ata {
        taskfile: TaskFile,
        data_out: Option<DataOut>,
    },
    /// An NVMe admin or I/O command, with the data it would write.
    Nvme {
        command: NvmeCommand,
        data_out: Option<DataOut>,
    },
    /// A SCSI command (issue 22's twins), its parameter data inside it.
    Scsi(crate::scsi::Command),
    /// A kernel call that changes a setting (`BLKRASET 256 (read-ahead)`).
    Kernel(String),
    /// Reads the run would time (`-t`, `-T`, `--bench`), named as the option says.
    Reads(String),
    /// A file the run would create or write (`--Iraw FILE`, `--fallocate`, `--surface --csv`).
    File(String),
}

/// What an ATA command would write: its length, its first bytes, and a digest of all of them
/// (FNV-1a, 64 bits: enough to tell two payloads apart in a plan; not a security hash). Data
/// that holds a password has neither head nor digest.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataOut {
    pub bytes: usize,
    pub head: Vec<u8>,
    pub fnv1a64: Option<u64>,
    pub holds_password: bool,
}

impl DataOut {
    /// The summary of `data`.
    pub fn of(data: &[u8]) -> DataOut {
        DataOut {
            bytes: data.len(),
            head: data.iter().take(16).copied().collect(),
            fnv1a64: Some(crate::digest::fnv1a64(data)),
            holds_password: false,
        }
    }

    /// The summary of data that holds a password (the SECURITY commands' sector): its length
    /// only. Not one byte of it, nor a digest, which would give the password away to anyone
    /// who hashes the guesses the same way.
    pub fn holding_password(data: &[u8]) -> DataOut {
        DataOut {
            bytes: data.len(),
            head: Vec::new(),
            fnv1a64: None,
            holds_password: true,
        }
    }

    fn head_hex(&self) -> String {
        self.head
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// A device's plan.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Plan {
    /// The guard flags a real run needs (none when it needs none).
    pub guards_needed: Vec<&'static str>,
    /// Those of them the command line gives.
    pub guards_given: Vec<&'static str>,
    /// Why a real run would be refused before sending anything (a drive in use).
    pub refused_because: Option<String>,
    /// What the real run would fail or be refused with, as far as the dry run can know it: the
    /// class name (`not_applicable`...) and the line the real run prints.
    pub would_fail: Vec<(ErrorClass, String)>,
    /// Whether IDENTIFY was needed and came from the kernel's copy (Some(true)), was needed and
    /// the kernel had none (Some(false)), or was not needed (None).
    pub identify_from_kernel: Option<bool>,
    /// The ATA commands that would fail because the device has none, and why (the device's
    /// description), when there were any.
    pub not_ata: Option<(usize, String)>,
    pub steps: Vec<Planned>,
}

fn protocol_text(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::NonData => "non-data",
        Protocol::PioIn => "PIO in",
        Protocol::PioOut => "PIO out",
        Protocol::DmaIn => "DMA in",
        Protocol::DmaOut => "DMA out",
    }
}

fn protocol_key(protocol: Protocol) -> &'static str {
    match protocol {
        Protocol::NonData => "non_data",
        Protocol::PioIn => "pio_in",
        Protocol::PioOut => "pio_out",
        Protocol::DmaIn => "dma_in",
        Protocol::DmaOut => "dma_out",
    }
}

fn timeout(tf: &TaskFile) -> u32 {
    if tf.timeout_secs == 0 {
        DEFAULT_TIMEOUT_SECS
    } else {
        tf.timeout_secs
    }
}

/// What a command would write, as the end of its plan line (nothing without data out).
fn data_out_text(data_out: &Option<DataOut>) -> String {
    data_out
        .as_ref()
        .map_or(String::new(), |data| match data.fnv1a64 {
            Some(hash) if !data.holds_password => format!(
                ", data out {} bytes ({} ...; fnv1a64 {hash:016x})",
                data.bytes,
                data.head_hex(),
            ),
            _ => format!(
                ", data out {} bytes, holds the password (not shown)",
                data.bytes
            ),
        })
}

/// The data fields of a command in JSON (null without data out; head and digest null when the
/// data holds the password).
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct DataOutJson {
    data_out_bytes: Option<usize>,
    data_out_head_hex: Option<String>,
    #[schemars(regex(pattern = r"^[0-9a-f]{16}$"))]
    data_out_fnv1a64: Option<String>,
    /// The data holds the security password: head and digest are null.
    data_out_holds_password: Option<bool>,
}

/// A SCSI command's parameter data, summed up as an ATA command's data out is (a SCSI
/// command carries no password: `--security-*` has no SCSI form).
fn scsi_data_out(c: &crate::scsi::Command) -> Option<DataOut> {
    (c.direction == crate::scsi::Direction::ToDevice).then(|| DataOut::of(&c.data_out))
}

impl DataOutJson {
    fn of(data_out: &Option<DataOut>) -> DataOutJson {
        let shown = data_out.as_ref().filter(|d| !d.holds_password);
        DataOutJson {
            data_out_bytes: data_out.as_ref().map(|d| d.bytes),
            data_out_head_hex: shown.map(DataOut::head_hex),
            data_out_fnv1a64: shown
                .and_then(|d| d.fnv1a64)
                .map(|hash| format!("{hash:016x}")),
            data_out_holds_password: data_out.as_ref().map(|d| d.holds_password),
        }
    }
}

/// The name of an NVMe command (NVMe base spec 2.0 §5 and NVM command set §3).
fn nvme_name(c: &NvmeCommand) -> &'static str {
    match (c.queue, c.opcode) {
        (Queue::Admin, admin::GET_LOG_PAGE) => "GET LOG PAGE",
        (Queue::Admin, admin::IDENTIFY) => "IDENTIFY",
        (Queue::Admin, admin::SET_FEATURES) => "SET FEATURES",
        (Queue::Admin, admin::GET_FEATURES) => "GET FEATURES",
        (Queue::Admin, admin::FIRMWARE_COMMIT) => "FIRMWARE COMMIT",
        (Queue::Admin, admin::FIRMWARE_IMAGE_DOWNLOAD) => "FIRMWARE IMAGE DOWNLOAD",
        (Queue::Admin, admin::FORMAT_NVM) => "FORMAT NVM",
        (Queue::Admin, admin::SANITIZE) => "SANITIZE",
        (Queue::Io, io::FLUSH) => "FLUSH",
        (Queue::Io, io::WRITE) => "WRITE",
        (Queue::Io, io::READ) => "READ",
        (Queue::Io, io::DATASET_MANAGEMENT) => "DATASET MANAGEMENT",
        _ => "command",
    }
}

/// The plan as text, one line per item, each starting with a space as hdparm's device lines do.
pub fn text(plan: &Plan) -> String {
    let mut s = String::from(" dry run: nothing was sent to the drive\n");
    s.push_str(&guards_text(plan));
    if let Some(why) = &plan.refused_because {
        s.push_str(&format!(" a real run would be refused: {why}\n"));
    }
    for line in step_lines(plan) {
        s.push_str(&format!(" {line}\n"));
    }
    s
}

/// The lines of a plan after its guard and refusal lines, without their leading space: why
/// ATA commands would fail, the IDENTIFY note, each step, and how the real run would fail.
pub fn step_lines(plan: &Plan) -> Vec<String> {
    let mut lines = Vec::new();
    if let Some((count, why)) = &plan.not_ata {
        lines.push(format!(
            "{count} ATA command{} would fail: {why}",
            if *count == 1 { "" } else { "s" }
        ));
    }
    if plan.identify_from_kernel == Some(false) && plan.not_ata.is_none() {
        lines.push(
            "(no IDENTIFY was read: the kernel holds no copy, so what depends on it is planned only up to the IDENTIFY a real run would send first)".to_string(),
        );
    }
    if plan.steps.is_empty() {
        lines.push("nothing would be sent".to_string());
    }
    for step in &plan.steps {
        lines.push(match step {
            Planned::Ata {
                taskfile: tf,
                data_out,
            } => format!(
                "would send {}: command 0x{:02x}, feature 0x{:04x}, count 0x{:04x}, lba 0x{:012x}, device 0x{:02x}, {}, {}, timeout {} s{}",
                command_name(tf.command, tf.feature),
                tf.command,
                tf.feature,
                tf.count,
                tf.lba,
                tf.device,
                if tf.lba48 { "48-bit" } else { "28-bit" },
                protocol_text(tf.protocol),
                timeout(tf),
                data_out_text(data_out),
            ),
            Planned::Nvme {
                command: c,
                data_out,
            } => format!(
                "would send NVMe {}: {} queue, opcode 0x{:02x}, nsid 0x{:x}, cdw10 0x{:08x}, cdw11 0x{:08x}, cdw12 0x{:08x}, cdw13 0x{:08x}, cdw14 0x{:08x}, cdw15 0x{:08x}{}",
                nvme_name(c),
                if c.queue == Queue::Admin { "admin" } else { "I/O" },
                c.opcode,
                c.nsid,
                c.cdw10,
                c.cdw11,
                c.cdw12,
                c.cdw13,
                c.cdw14,
                c.cdw15,
                data_out_text(data_out),
            ),
            Planned::Scsi(c) => format!(
                "would send SCSI {}: CDB {}, timeout {} s{}{}",
                c.name,
                crate::scsi::hex(&c.cdb),
                c.timeout_secs,
                match c.direction {
                    crate::scsi::Direction::FromDevice => format!(", up to {} bytes in", c.alloc_len),
                    _ => String::new(),
                },
                data_out_text(&scsi_data_out(c)),
            ),
            Planned::Kernel(call) => format!("would call {call}"),
            Planned::Reads(what) => format!("would time {what}"),
            Planned::File(what) => format!("would write {what}"),
        });
    }
    for (_, why) in &plan.would_fail {
        lines.push(format!("a real run would fail: {}", why.trim()));
    }
    lines
}

/// The plan of a mode that sends nothing to a drive (`--fallocate`, `--surface`): `first` (the
/// line that says what was not done), then its steps (the reads it would time, the files it
/// would write) and how the real run would fail.
pub fn mode_text(first: &str, plan: &Plan) -> String {
    let mut s = format!(" dry run: {first}\n");
    for line in step_lines(plan) {
        s.push_str(&format!(" {line}\n"));
    }
    s
}

/// The guard flags a real run needs not given.
pub fn guards_missing(plan: &Plan) -> Vec<&'static str> {
    plan.guards_needed
        .iter()
        .filter(|g| !plan.guards_given.contains(g))
        .copied()
        .collect()
}

/// The guard line of a plan: it asks only for the flags that are missing, and names those
/// given as given.
pub fn guards_text(plan: &Plan) -> String {
    let missing = guards_missing(plan);
    let given: Vec<&str> = plan
        .guards_needed
        .iter()
        .filter(|g| plan.guards_given.contains(g))
        .copied()
        .collect();
    match (missing.is_empty(), given.is_empty()) {
        (true, true) => " a real run needs no guard flag\n".to_string(),
        (true, false) => format!(
            " a real run needs {}, which {} given\n",
            given.join(" and "),
            if given.len() == 1 { "is" } else { "are" }
        ),
        (false, true) => format!(" a real run needs {}\n", missing.join(" ")),
        (false, false) => format!(
            " a real run needs {} too ({} is given)\n",
            missing.join(" "),
            given.join(" and ")
        ),
    }
}

/// --dry-run's plan for the device (src/report/dry_run.rs): nothing was sent. guards_missing
/// lists the guard flags the real run needs that were not given; would_fail what the real run
/// would fail with that the dry run can know (its class gives the exit status).
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PlanJson<'a> {
    /// Always false.
    #[schemars(extend("const" = false))]
    sent: bool,
    #[schemars(extend("items" = {"enum": ["--yes-i-know-what-i-am-doing", "--please-destroy-my-drive"]}))]
    guards_needed: &'a [&'static str],
    #[schemars(extend("items" = {"enum": ["--yes-i-know-what-i-am-doing", "--please-destroy-my-drive"]}))]
    guards_missing: Vec<&'static str>,
    refused_because: Option<&'a str>,
    would_fail: Vec<WouldFail<'a>>,
    /// `kernel`: the kernel's copy of IDENTIFY was read to plan; `none`: it had none.
    #[schemars(extend("enum" = ["kernel", "none", "not_needed"]))]
    identify_source: &'static str,
    ata_commands_failing: usize,
    ata_commands_failing_because: Option<&'a str>,
    commands: Vec<CommandJson<'a>>,
}

/// What the real run would fail or be refused with.
#[derive(Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
struct WouldFail<'a> {
    #[schemars(schema_with = "super::schema::error_class_ref")]
    class: &'static str,
    text: &'a str,
}

/// One planned step, by its `kind`.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(deny_unknown_fields)]
enum CommandJson<'a> {
    /// An ATA command: its registers as numbers.
    Ata {
        name: &'static str,
        command: u8,
        feature: u16,
        count: u16,
        lba: u64,
        device: u8,
        lba48: bool,
        #[schemars(extend("enum" = ["non_data", "pio_in", "pio_out", "dma_in", "dma_out"]))]
        protocol: &'static str,
        timeout_seconds: u32,
        #[serde(flatten)]
        data_out: DataOutJson,
    },
    /// An NVMe admin or I/O command.
    Nvme {
        name: &'static str,
        #[schemars(extend("enum" = ["admin", "io"]))]
        queue: &'static str,
        opcode: u8,
        nsid: u32,
        cdw10: u32,
        cdw11: u32,
        cdw12: u32,
        cdw13: u32,
        cdw14: u32,
        cdw15: u32,
        #[serde(flatten)]
        data_out: DataOutJson,
    },
    /// A SCSI command: its CDB in hex, the parameter data it would write as an ATA command's.
    Scsi {
        name: &'static str,
        cdb: String,
        timeout_secs: u32,
        #[serde(flatten)]
        data_out: DataOutJson,
    },
    /// A kernel call that changes a setting.
    Kernel { call: &'a str },
    /// Reads the run would time.
    Reads { what: &'a str },
    /// A file the run would create or write.
    File { what: &'a str },
}

impl<'a> CommandJson<'a> {
    fn of(step: &'a Planned) -> CommandJson<'a> {
        match step {
            Planned::Ata {
                taskfile: tf,
                data_out,
            } => CommandJson::Ata {
                name: command_name(tf.command, tf.feature),
                command: tf.command,
                feature: tf.feature,
                count: tf.count,
                lba: tf.lba,
                device: tf.device,
                lba48: tf.lba48,
                protocol: protocol_key(tf.protocol),
                timeout_seconds: timeout(tf),
                data_out: DataOutJson::of(data_out),
            },
            Planned::Nvme {
                command: c,
                data_out,
            } => CommandJson::Nvme {
                name: nvme_name(c),
                queue: if c.queue == Queue::Admin {
                    "admin"
                } else {
                    "io"
                },
                opcode: c.opcode,
                nsid: c.nsid,
                cdw10: c.cdw10,
                cdw11: c.cdw11,
                cdw12: c.cdw12,
                cdw13: c.cdw13,
                cdw14: c.cdw14,
                cdw15: c.cdw15,
                data_out: DataOutJson::of(data_out),
            },
            Planned::Scsi(c) => CommandJson::Scsi {
                name: c.name,
                cdb: crate::scsi::hex(&c.cdb),
                timeout_secs: c.timeout_secs,
                data_out: DataOutJson::of(&scsi_data_out(c)),
            },
            Planned::Kernel(call) => CommandJson::Kernel { call },
            Planned::Reads(what) => CommandJson::Reads { what },
            Planned::File(what) => CommandJson::File { what },
        }
    }
}

impl<'a> PlanJson<'a> {
    /// The `dry_run` object of `plan`.
    pub fn of(plan: &'a Plan) -> PlanJson<'a> {
        PlanJson {
            sent: false,
            guards_needed: &plan.guards_needed,
            guards_missing: guards_missing(plan),
            refused_because: plan.refused_because.as_deref(),
            would_fail: plan
                .would_fail
                .iter()
                .map(|(class, text)| WouldFail {
                    class: class.name(),
                    text: text.trim(),
                })
                .collect(),
            identify_source: match plan.identify_from_kernel {
                Some(true) => "kernel",
                Some(false) => "none",
                None => "not_needed",
            },
            ata_commands_failing: plan.not_ata.as_ref().map_or(0, |(count, _)| *count),
            ata_commands_failing_because: plan.not_ata.as_ref().map(|(_, why)| why.as_str()),
            commands: plan.steps.iter().map(CommandJson::of).collect(),
        }
    }
}

/// The plan as the `dry_run` object of a device in the JSON document (its keys sorted, as
/// every section of a device).
pub fn json(plan: &Plan) -> Value {
    serde_json::to_value(PlanJson::of(plan)).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set_pass(data_out: fn(&[u8]) -> DataOut) -> Planned {
        let mut tf = TaskFile::new(0xF1, 0, 1);
        tf.protocol = Protocol::PioOut;
        let mut data = [0u8; 512];
        data[2..8].copy_from_slice(b"secret");
        Planned::Ata {
            taskfile: tf,
            data_out: Some(data_out(&data)),
        }
    }

    fn trim() -> Planned {
        let mut tf = TaskFile::new(0x06, 0, 1);
        tf.feature = 1;
        tf.protocol = Protocol::DmaOut;
        let mut data = [0u8; 512];
        data[0] = 1;
        data[6] = 8;
        Planned::Ata {
            taskfile: tf,
            data_out: Some(DataOut::of(&data)),
        }
    }

    fn plan(steps: Vec<Planned>) -> Plan {
        Plan {
            identify_from_kernel: Some(true),
            steps,
            ..Plan::default()
        }
    }

    #[test]
    fn a_command_line_names_the_command_and_every_register() {
        let text = text(&plan(vec![
            trim(),
            Planned::Kernel("BLKRASET 256 (read-ahead)".into()),
        ]));
        assert!(
            text.starts_with(
                " dry run: nothing was sent to the drive\n a real run needs no guard flag\n"
            ),
            "{text}"
        );
        assert!(text.contains(" would send DATA SET MANAGEMENT (TRIM): command 0x06, feature 0x0001, count 0x0001, lba 0x000000000000, device 0x40, 48-bit, DMA out, timeout 15 s, data out 512 bytes (01 00 00 00 00 00 08 00 00 00 00 00 00 00 00 00 ...; fnv1a64 "), "{text}");
        assert!(
            text.ends_with(" would call BLKRASET 256 (read-ahead)\n"),
            "{text}"
        );
    }

    #[test]
    fn data_that_holds_the_password_shows_neither_bytes_nor_digest() {
        let plan = plan(vec![set_pass(DataOut::holding_password)]);
        let text = text(&plan);
        assert!(
            text.contains(", 28-bit, PIO out, timeout 15 s, data out 512 bytes, holds the password (not shown)\n"),
            "{text}"
        );
        let json = json(&plan);
        let command = &json["commands"][0];
        assert_eq!(command["data_out_bytes"], 512);
        assert_eq!(command["data_out_holds_password"], true);
        assert!(command["data_out_head_hex"].is_null());
        assert!(command["data_out_fnv1a64"].is_null());
        let all = format!("{text}{json}");
        // "secret" in hex, spaced as the head is, or not.
        for needle in ["secret", "73 65 63", "736563"] {
            assert!(!all.contains(needle), "{needle} in {all}");
        }
    }

    #[test]
    fn the_guard_line_asks_only_for_flags_not_given() {
        let know = "--yes-i-know-what-i-am-doing";
        let destroy = "--please-destroy-my-drive";
        let line = |needed: Vec<&'static str>, given: Vec<&'static str>| {
            guards_text(&Plan {
                guards_needed: needed,
                guards_given: given,
                ..Plan::default()
            })
        };
        assert_eq!(line(vec![], vec![]), " a real run needs no guard flag\n");
        assert_eq!(
            line(vec![know], vec![]),
            " a real run needs --yes-i-know-what-i-am-doing\n"
        );
        assert_eq!(
            line(vec![know], vec![know]),
            " a real run needs --yes-i-know-what-i-am-doing, which is given\n"
        );
        assert_eq!(
            line(vec![know, destroy], vec![know]),
            " a real run needs --please-destroy-my-drive too (--yes-i-know-what-i-am-doing is given)\n"
        );
        // A flag given that the run does not need is not mentioned.
        assert_eq!(
            line(vec![], vec![know]),
            " a real run needs no guard flag\n"
        );
    }

    #[test]
    fn json_carries_the_registers_as_numbers() {
        let plan = Plan {
            guards_needed: vec!["--yes-i-know-what-i-am-doing"],
            refused_because: Some("/dev/x1 is mounted on /home".into()),
            would_fail: vec![(ErrorClass::NotApplicable, "no ATA here".into())],
            identify_from_kernel: Some(false),
            steps: vec![trim(), Planned::File("a file".into())],
            ..Plan::default()
        };
        let v = json(&plan);
        assert_eq!(v["sent"], false);
        assert_eq!(v["guards_needed"][0], "--yes-i-know-what-i-am-doing");
        assert_eq!(v["guards_missing"][0], "--yes-i-know-what-i-am-doing");
        assert_eq!(v["would_fail"][0]["class"], "not_applicable");
        assert_eq!(v["identify_source"], "none");
        assert_eq!(v["commands"][0]["command"], 0x06);
        assert_eq!(v["commands"][0]["protocol"], "dma_out");
        assert_eq!(v["commands"][0]["data_out_bytes"], 512);
        assert_eq!(v["commands"][0]["data_out_holds_password"], false);
        assert_eq!(v["commands"][0]["timeout_seconds"], 15);
        assert_eq!(v["commands"][1]["kind"], "file");
    }

    #[test]
    fn a_scsi_command_keeps_its_cdb_timeout_and_data_fields() {
        let select = crate::scsi::Command::data_out("MODE SELECT(10)", vec![0x55, 0x10], vec![7]);
        let sense = crate::scsi::Command::data_in("INQUIRY", vec![0x12], 36);
        let v = json(&plan(vec![Planned::Scsi(select), Planned::Scsi(sense)]));
        assert_eq!(
            v["commands"][0],
            serde_json::json!({
                "kind": "scsi", "name": "MODE SELECT(10)", "cdb": "55 10", "timeout_secs": 60,
                "data_out_bytes": 1, "data_out_head_hex": "07",
                "data_out_fnv1a64": format!("{:016x}", crate::digest::fnv1a64(&[7])),
                "data_out_holds_password": false,
            })
        );
        assert_eq!(
            v["commands"][1],
            serde_json::json!({
                "kind": "scsi", "name": "INQUIRY", "cdb": "12", "timeout_secs": 60,
                "data_out_bytes": null, "data_out_head_hex": null,
                "data_out_fnv1a64": null, "data_out_holds_password": null,
            })
        );
    }

    #[test]
    fn the_digest_tells_payloads_apart() {
        assert_eq!(DataOut::of(b"").fnv1a64, Some(0xcbf2_9ce4_8422_2325));
        assert_eq!(DataOut::of(b"a").fnv1a64, Some(0xaf63_dc4c_8601_ec8c));
        assert_ne!(
            DataOut::of(&[0; 512]).fnv1a64,
            DataOut::of(&[1; 512]).fnv1a64
        );
    }
}
