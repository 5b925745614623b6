//! Plain files the tool writes on the user's behalf (`--Iraw FILE`), and reading an input
//! stream whole. Kept in `device/` because this layer is the only one that opens files.

use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Creates or truncates `path` with mode 0644 (as hdparm's `--Iraw` does) and writes `bytes`.
pub fn write_new_or_truncate(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o644)
        .open(path)?;
    file.write_all(bytes)
}

/// Reads all of an input stream (`--Istdin` reads the standard input the binary hands in).
pub fn read_all(input: &mut dyn Read) -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    input.read_to_end(&mut buf)?;
    Ok(buf)
}
