//! Plain files the tool writes on the user's behalf (`--Iraw FILE`). Kept in `device/` because
//! this layer is the only one that opens files.

use std::io::{self, Write};
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

/// Reads all of standard input (`--Istdin`, `--trim-sector-ranges-stdin`).
pub fn read_stdin() -> io::Result<Vec<u8>> {
    let mut buf = Vec::new();
    io::Read::read_to_end(&mut io::stdin(), &mut buf)?;
    Ok(buf)
}
