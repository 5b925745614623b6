//! Pure ATA protocol: commands as data and their SAT CDBs ([`command`]), what a command sent
//! through SAT came back as ([`sat`], reading [`sense`] data), the legacy HDIO argument blocks
//! ([`hdio`]), IDENTIFY decoding, and the value codecs of hdparm's options. Nothing here touches
//! a device.

pub mod command;
pub mod dco;
pub mod features;
pub mod hdio;
pub mod hpa;
pub mod identify;
pub mod identify_hex;
pub mod names;
pub mod sanitize;
pub mod sat;
pub mod sector_config;
pub mod security;
pub mod sense;
pub mod smart;
pub mod trim;
pub mod values;
