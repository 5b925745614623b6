//! Pure ATA protocol: commands as data and their SAT CDBs ([`command`]), what a command sent
//! through SAT came back as ([`sat`], reading [`sense`] data), the legacy HDIO argument blocks
//! ([`hdio`]), IDENTIFY decoding, the value codecs of hdparm's options, and the vendor and
//! firmware sequences ([`wdidle3`], [`fwdownload`]). Nothing here touches
//! a device.

pub mod command;
pub mod dco;
pub mod features;
pub mod fwdownload;
pub mod hdio;
pub mod hpa;
pub mod identify;
pub mod identify_hex;
pub mod jmicron;
pub mod mmc;
pub mod names;
pub mod sanitize;
pub mod sat;
pub mod secret;
pub mod sector_config;
pub mod security;
pub mod sense;
pub mod smart;
pub mod trim;
pub mod values;
pub mod wdidle3;
