//! Settings that last: hdparm.conf read as Debian reads it (`debian.rs`), and the plans that
//! apply it. Pure: the caller reads the file and asks the system what the plans need to know.

pub mod debian;
pub mod select;
