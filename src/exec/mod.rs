//! Executes an invocation: per device, hdparm's fixed order of steps (reference §3).

pub mod timing;

use std::ffi::OsString;
use std::io::Write;

pub fn run(_args: &[OsString], _stdout: &mut dyn Write, _stderr: &mut dyn Write) -> u8 {
    0
}
