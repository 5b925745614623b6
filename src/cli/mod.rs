//! The command line: argv in, a validated [`Invocation`] out, with no system calls.
//!
//! hdparm's grammar (reference §1) is odd enough that a general parser would fight it: flags
//! accumulate left to right and are never reset, a device word is acted on with whatever flags
//! were seen so far, characters after a number are more flags, and long options are
//! case-insensitive with no `=` form. [`parse`] is a hand-written state machine that reproduces
//! it; [`usage`] holds hdparm's usage text.
//!
//! What this module must not do: open files, read devices, print. The one exception to "no
//! system calls" is none: `--Istdin`, `--fibmap` and `--fallocate` are returned as actions for
//! the caller to run.

pub mod complete;
pub mod defs;
pub mod flags;
pub mod man;
pub mod parse;
pub mod usage;

pub use flags::*;
pub use parse::parse;
