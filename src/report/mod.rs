//! Pure renderers: hdparm's text, byte for byte, and JSON, from the same typed reports.
//! Nothing here touches a device.

pub mod axis;
pub mod dco;
pub mod dry_run;
pub mod envelope;
pub mod experiment;
pub mod filemap;
pub mod hexdump;
pub mod identify;
pub mod identify_json;
pub mod kernel_identity;
pub mod nvme;
pub mod prometheus;
pub mod schema;
pub mod scsi;
pub mod sections;
pub mod settings;
pub mod stop;
pub mod surface;
