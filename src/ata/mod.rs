//! Pure ATA protocol: commands as data, IDENTIFY decoding, SAT CDBs, sense decoding, and the
//! value codecs of hdparm's options. Nothing here touches a device.

pub mod command;
pub mod features;
pub mod identify;
pub mod identify_hex;
pub mod sense;
pub mod values;
