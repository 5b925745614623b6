//! Plain files the tool writes on the user's behalf (`--Iraw FILE`), the firmware file of
//! `--fwdownload`, and reading an input
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

/// A firmware file for `--fwdownload`, as hdparm looks at it: whether it is a regular file,
/// its size, and (when regular and no larger than `max_len`) its contents.
#[derive(Debug)]
pub struct FirmwareFile {
    pub is_regular: bool,
    pub len: u64,
    /// Empty when the file was not read (not regular, or too large).
    pub bytes: Vec<u8>,
}

/// Opens and stats `path` (hdparm's `open` + `fstat`, whose failure it reports under the
/// file's name), and reads a regular file of at most `max_len` bytes whole.
pub fn read_firmware(path: &Path, max_len: u64) -> io::Result<FirmwareFile> {
    let mut file = std::fs::File::open(path)?;
    let meta = file.metadata()?;
    let is_regular = meta.file_type().is_file();
    let len = meta.len();
    let mut bytes = Vec::new();
    if is_regular && len <= max_len {
        file.read_to_end(&mut bytes)?;
        // A file that changed size under us is read as it is now.
        if bytes.len() as u64 != len {
            return Err(io::Error::other(format!(
                "the file changed size while being read ({len} then {} bytes)",
                bytes.len()
            )));
        }
    }
    Ok(FirmwareFile {
        is_regular,
        len,
        bytes,
    })
}
