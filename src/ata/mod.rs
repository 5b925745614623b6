//! Pure ATA protocol: commands as data and their SAT CDBs ([`command`]), what a command sent
//! through SAT came back as ([`sat`], reading [`sense`] data), the legacy HDIO argument blocks
//! ([`hdio`]), IDENTIFY decoding, the value codecs of hdparm's options, and the vendor and
//! firmware sequences ([`wdidle3`], [`fwdownload`]). Nothing here touches
//! a device.

pub mod command;
pub mod features;
pub mod fwdownload;
pub mod hdio;
pub mod identify;
pub mod identify_hex;
pub mod jmicron;
pub mod mmc;
pub mod sat;
pub mod sense;
pub mod smart;
pub mod values;
pub mod wdidle3;
