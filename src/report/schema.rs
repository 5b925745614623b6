//! The JSON Schema of `--json` (`doc/hdparm-rs.schema.json`), generated: `hdparm --generate
//! schema` prints [`document`], and a test fails when the checked-in copy differs from it.
//!
//! Every definition is derived (the [`GENERATED`] table, in the document's order): the
//! reports' from their types with `schemars` (the documents, `device` from `DeviceJson` and
//! the sections of `report::sections`, `identify`, `kernel_identity`, `nvme_identify`,
//! `scsi_identify`, the timings, the plans...), so a key added to a report is in the schema with
//! no hand edit; `error_class` and the exit statuses from the exit table; `format_version` from
//! `JSON_FORMAT_VERSION`. A definition that another refers to is named by a `$ref` (the
//! `*_ref` functions below, which a test resolves), the others are inlined.
//!
//! What is still written by hand, in `schema/hand.json`, is no Rust type: the document's header
//! (`$schema`, `$id`, `title`, `description`) and the `if`/`then`/`else` that tells the four
//! kinds of document apart by their keys (`--apply`/`--check`'s `mode`, `--advise`'s and
//! `--surface`'s `report`, else a report document): each kind is a type of its own, written by
//! its own mode, and no one type holds them. Its `"$defs"` is a placeholder for the table.
//!
//! Must not: change a document; the schema describes what the reports already write.

use schemars::generate::{Contract, SchemaSettings};
use schemars::JsonSchema;

/// The hand-written part of the document: its header and the choice among the kinds of
/// document, with a placeholder for the definitions.
const HAND: &str = include_str!("schema/hand.json");

/// Where the definitions go in [`HAND`].
const DEFINITIONS: &str = "\"@generated definitions\"";

/// A generated definition: its `$defs` name, and the function that derives its schema.
pub type Generated = (&'static str, fn() -> serde_json::Value);

/// The definitions, in the document's order.
pub const GENERATED: &[Generated] = &[
    ("format_version", format_version),
    ("program", definition::<super::envelope::Program>),
    ("error_class", error_class),
    ("message", definition::<super::envelope::Message>),
    ("messages", messages),
    ("stop", definition::<super::stop::StopJson<'static>>),
    ("outcome", definition::<super::settings::Outcome>),
    ("settings_item", definition::<super::settings::SettingsItem>),
    ("action", definition::<super::envelope::ActionRecord>),
    (
        "read_figure",
        definition::<crate::timing::reads::ReadFigure>,
    ),
    ("bench", definition::<crate::timing::bench::BenchReport>),
    ("identify", definition::<super::identify::IdentifyReport>),
    (
        "kernel_identity",
        definition::<super::kernel_identity::KernelIdentityReport>,
    ),
    ("device", definition::<super::envelope::DeviceJson>),
    ("report_document", definition::<super::envelope::Envelope>),
    (
        "apply_document",
        definition::<crate::exec::modes::apply::ApplyDocument<'static>>,
    ),
    ("summary", definition::<crate::stats::Summary>),
    (
        "experiment",
        definition::<super::experiment::ExperimentReport>,
    ),
    (
        "advise_document",
        definition::<crate::exec::modes::advise::AdviseDocument<'static>>,
    ),
    (
        "surface_document",
        definition::<crate::exec::modes::surface::SurfaceDocument<'static>>,
    ),
    ("dry_run", definition::<super::dry_run::PlanJson<'static>>),
    (
        "scsi_identify",
        definition::<super::scsi::ScsiIdentifyReport>,
    ),
    ("nvme_identify", definition::<super::nvme::NvmeIdentify>),
];

/// The error classes of `messages`, from the exit table (`ErrorClass::table`, in its order),
/// so a class added there is in the schema.
fn error_class() -> serde_json::Value {
    let names: Vec<&str> = crate::error::ErrorClass::table()
        .iter()
        .map(|(class, _)| class.name())
        .collect();
    serde_json::json!({
        "description": "The class of an error; it decides the exit status (src/error.rs).",
        "enum": names,
    })
}

/// `json_format_version`: its major number is the one this build writes
/// (`JSON_FORMAT_VERSION`), so a reader can refuse a major it does not know.
fn format_version() -> serde_json::Value {
    serde_json::json!({
        "description": "[major, minor]: the major number changes when a key changes meaning or disappears, the minor when keys are added.",
        "type": "array",
        "prefixItems": [
            {"const": super::envelope::JSON_FORMAT_VERSION[0]},
            {"type": "integer", "minimum": 0},
        ],
        "items": false,
        "minItems": 2,
    })
}

/// The `messages` of a document and of a device: each a `message`.
fn messages() -> serde_json::Value {
    serde_json::json!({"type": "array", "items": {"$ref": "#/$defs/message"}})
}

/// A reference to the document's `format_version` (`json_format_version` of a document).
pub fn format_version_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/format_version"})
}

/// A reference to the document's `program` (`hdparm_rs` of a document).
pub fn program_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/program"})
}

/// A reference to the document's `messages`.
pub fn messages_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/messages"})
}

/// A reference to the document's `dry_run` (a `--dry-run` plan).
pub fn dry_run_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/dry_run"})
}

/// The devices of a report document: each the document's `device`.
pub fn devices_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "array", "items": {"$ref": "#/$defs/device"}})
}

/// A device's `settings`: each the document's `settings_item`.
pub fn settings_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "array", "items": {"$ref": "#/$defs/settings_item"}})
}

/// A device's `actions`: each the document's `action`.
pub fn actions_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"type": "array", "items": {"$ref": "#/$defs/action"}})
}

/// A device's `identify`: the document's `identify` (ATA), `nvme_identify`, or a SCSI disk's.
pub fn identify_any(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let scsi = generator.subschema_for::<super::scsi::ScsiIdentify>();
    schemars::json_schema!({
        "anyOf": [
            {"$ref": "#/$defs/identify"},
            {"$ref": "#/$defs/nvme_identify"},
            scsi,
        ],
    })
}

/// A device's `kernel_identity`: the document's `kernel_identity`.
pub fn kernel_identity_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/kernel_identity"})
}

/// A device's `timing`: each a `read_figure` (-T, -t) or a `bench`.
pub fn timing_items(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "array",
        "items": {"oneOf": [{"$ref": "#/$defs/read_figure"}, {"$ref": "#/$defs/bench"}]},
    })
}

/// A reference to the document's `scsi_identify`.
pub fn scsi_identify_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/scsi_identify"})
}

/// A reference to the document's `stop`.
pub fn stop_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/stop"})
}

/// A message's `class`: one of the document's `error_class`.
pub fn error_class_ref(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({"$ref": "#/$defs/error_class"})
}

/// `hdparm_rs.exit_status`: 0, a class's status from the exit table, or 128+N for signal N.
pub fn exit_status(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut statuses: Vec<u8> = crate::error::ErrorClass::table()
        .iter()
        .filter(|(class, _)| !matches!(class, crate::error::ErrorClass::Stopped(_)))
        .map(|(class, _)| class.exit_status())
        .chain([0])
        .collect();
    statuses.sort_unstable();
    statuses.dedup();
    schemars::json_schema!({
        "anyOf": [
            {"enum": statuses},
            {"type": "integer", "minimum": 129, "maximum": 255},
        ],
    })
}

/// One type's schema as a definition of the document: its subschemas inlined (the document's
/// `$defs` are its own), without the root's `$schema` and `title`, with its doc comment as
/// the description.
fn definition<T: JsonSchema>() -> serde_json::Value {
    // What the reports write (a field that is always serialized is required), not what a
    // reader would accept.
    let generator = SchemaSettings::draft2020_12()
        .with(|s| {
            s.inline_subschemas = true;
            s.contract = Contract::Serialize;
        })
        .into_generator();
    let mut value = generator.into_root_schema_for::<T>().to_value();
    if let Some(object) = value.as_object_mut() {
        object.remove("$schema");
        object.remove("title");
    }
    absent_is_never_null(&mut value);
    value
}

/// A key that is not required is one a report leaves out when it has no value
/// (`skip_serializing_if = "Option::is_none"`, the only way our reports skip an `Option`), so
/// it is never null: `schemars` still allows null for an `Option`, and this takes it out.
fn absent_is_never_null(schema: &mut serde_json::Value) {
    match schema {
        serde_json::Value::Object(object) => {
            let required: Vec<String> = object
                .get("required")
                .and_then(|r| r.as_array())
                .map(|r| {
                    r.iter()
                        .filter_map(|k| k.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            if let Some(serde_json::Value::Object(properties)) = object.get_mut("properties") {
                for (key, property) in properties.iter_mut() {
                    if !required.contains(key) {
                        without_null(property);
                    }
                }
            }
            for value in object.values_mut() {
                absent_is_never_null(value);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(absent_is_never_null),
        _ => {}
    }
}

/// `schema` without null: `"type": [T, "null"]` becomes `T`, and `anyOf: [S, {"type": "null"}]`
/// becomes `S` (with `schema`'s own keywords, its description, kept).
fn without_null(schema: &mut serde_json::Value) {
    let Some(object) = schema.as_object_mut() else {
        return;
    };
    if let Some(serde_json::Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    let is_null = |s: &serde_json::Value| s.get("type").is_some_and(|t| t == "null");
    if let Some(serde_json::Value::Array(any)) = object.get("anyOf") {
        if any.len() == 2 && any.iter().any(is_null) {
            let rest = any.iter().find(|s| !is_null(s)).cloned();
            object.remove("anyOf");
            if let Some(serde_json::Value::Object(rest)) = rest {
                for (key, value) in rest {
                    object.entry(key).or_insert(value);
                }
            }
        }
    }
}

/// The whole document, as `doc/hdparm-rs.schema.json` holds it: the hand-written part with
/// the definitions in its placeholder, each pretty-printed at its depth.
pub fn document() -> String {
    // The placeholder's line gives the indentation of the definitions.
    let indent = HAND
        .find(DEFINITIONS)
        .map(|at| {
            let line = &HAND[HAND[..at].rfind('\n').map_or(0, |nl| nl + 1)..at];
            line.len() - line.trim_start().len()
        })
        .unwrap_or(0);
    let pad = " ".repeat(indent);
    let definitions: Vec<String> = GENERATED
        .iter()
        .map(|(name, schema)| {
            let pretty = serde_json::to_string_pretty(&schema()).unwrap_or_default();
            let indented = pretty.replace('\n', &format!("\n{pad}  "));
            format!("{pad}  \"{name}\": {indented}")
        })
        .collect();
    // The header names the format's version, from the one constant the documents carry, so
    // that `$id` moves with the major.
    let [major, minor] = super::envelope::JSON_FORMAT_VERSION;
    HAND.replace("@major", &major.to_string())
        .replace("@version", &format!("{major}.{minor}"))
        .replace(
            DEFINITIONS,
            &format!("{{\n{}\n{pad}}}", definitions.join(",\n")),
        )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checked_in_schema_is_the_generated_one() {
        let checked_in = include_str!("../../doc/hdparm-rs.schema.json");
        assert!(
            checked_in == document(),
            "doc/hdparm-rs.schema.json is stale: regenerate it with \
             `cargo run -- --generate schema > doc/hdparm-rs.schema.json` \
             (its header is in src/report/schema/hand.json, its definitions derive from types)"
        );
    }

    #[test]
    fn the_hand_written_part_is_only_the_header() {
        let hand: serde_json::Value = serde_json::from_str(HAND).unwrap_or_default();
        assert_eq!(hand["$defs"], "@generated definitions");
        let mut keys: Vec<&String> = hand
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        keys.sort();
        assert_eq!(
            keys,
            [
                "$defs",
                "$id",
                "$schema",
                "description",
                "else",
                "if",
                "then",
                "title"
            ]
        );
    }

    /// Every `$ref` of the document (the `*_ref` functions write them by hand) names a part
    /// of the document that exists.
    #[test]
    fn every_reference_resolves() {
        fn refs<'a>(value: &'a serde_json::Value, found: &mut Vec<&'a str>) {
            match value {
                serde_json::Value::Object(object) => {
                    if let Some(serde_json::Value::String(r)) = object.get("$ref") {
                        found.push(r);
                    }
                    object.values().for_each(|v| refs(v, found));
                }
                serde_json::Value::Array(items) => items.iter().for_each(|v| refs(v, found)),
                _ => {}
            }
        }
        let document: serde_json::Value = serde_json::from_str(&document()).unwrap_or_default();
        let mut found = Vec::new();
        refs(&document, &mut found);
        assert!(found.len() > 20, "{found:?}");
        for r in found {
            let pointer = r.strip_prefix('#').unwrap_or(r);
            assert!(
                document.pointer(pointer).is_some(),
                "{r} resolves to nothing"
            );
        }
    }
}
