//! Files the tool writes on the user's behalf (the metrics of `--prometheus FILE`, the plots
//! and CSV of `--surface` and `--experiment`, `--Iraw FILE`, the records of `--apply`), the
//! firmware file of `--fwdownload`, and reading an input stream whole. Kept in `device/`
//! because this layer is the only one that opens files.
//!
//! Every output file goes through [`write_output`], because we run as root and the directory
//! may belong to someone else (node_exporter's textfile directory is often owned by its
//! service user), who could otherwise plant a link there and make us overwrite any file:
//! - a missing name or a regular file is replaced: a temporary file with a name nobody can
//!   guess is created beside it with O_CREAT|O_EXCL|O_NOFOLLOW (it cannot be a planted link),
//!   written, fsynced and renamed over the name (a rename replaces a link, it never follows
//!   one); a reader sees the old file or the new one, never half of one; on any failure the
//!   temporary file is removed;
//! - a name that is not a regular file (a FIFO, a terminal, `/dev/null`) is written in place,
//!   as hdparm writes it, opened with O_NOFOLLOW;
//! - a symbolic link is followed, and what it leads to written in place (`--Iraw /dev/stdout`,
//!   as hdparm does), only when no other user can write to its directory, so that only root
//!   or we could have made it; in a directory others can write to it is refused;
//! - a block device or a directory is refused: a report is never written over a disk.
//!
//! Must not: decide the file's contents or its name, or say anything to the user; the caller
//! reports the error under the file's name.

use crate::device::sys::fs::{self as sysfs, Kind};
use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::AsFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::Path;

/// The permissions of a file we create, before the umask: what hdparm gives `--Iraw`'s file,
/// and what a metrics collector running as another user needs to read it.
const OUTPUT_MODE: u32 = 0o644;

/// Why a symbolic link at the name is not followed (printed after the file's name).
pub const LINK_REFUSED: &str = "a symbolic link in a directory that other users can write to is not followed (one of them may have made it); remove it, or name the file it leads to";

/// How many unpredictable names are tried before giving up (each collision is a 2^-64 event,
/// or someone creating names on purpose).
const TEMP_ATTEMPTS: usize = 8;

/// Writes `bytes` to the file `path` names, as the module doc says; the error is what to print
/// after the path.
pub fn write_output(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let name = path
        .file_name()
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EISDIR))?;
    let dir_path = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let dir = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY)
        .open(dir_path)?;
    let meta = dir.metadata()?;
    let us = sysfs::effective_uid();
    let others_can_write = (meta.uid() != 0 && meta.uid() != us) || meta.mode() & 0o022 != 0;
    match sysfs::entry_at(dir.as_fd(), name)?.map(|e| e.kind) {
        None | Some(Kind::Regular) => replace(&dir, name, bytes),
        Some(Kind::Directory) => Err(io::Error::from_raw_os_error(libc::EISDIR)),
        Some(Kind::BlockDevice) => Err(not_over_a_disk()),
        Some(Kind::Symlink) if others_can_write => Err(io::Error::other(LINK_REFUSED)),
        Some(Kind::Symlink) => in_place(&dir, name, bytes, true),
        Some(Kind::Fifo | Kind::CharDevice | Kind::Socket) => in_place(&dir, name, bytes, false),
    }
}

fn not_over_a_disk() -> io::Error {
    io::Error::other("is a block device; a report is not written over a disk")
}

/// Writes a new file beside `name` and renames it over `name`.
fn replace(dir: &File, name: &OsStr, bytes: &[u8]) -> io::Result<()> {
    let flags = libc::O_WRONLY | libc::O_CREAT | libc::O_EXCL | libc::O_NOFOLLOW;
    for _ in 0..TEMP_ATTEMPTS {
        let temporary = temporary_name(name)?;
        let file = match sysfs::open_at(dir.as_fd(), &temporary, flags, OUTPUT_MODE) {
            Ok(file) => file,
            Err(e) if e.raw_os_error() == Some(libc::EEXIST) => continue,
            Err(e) => return Err(e),
        };
        let written = write_synced(file, bytes)
            .and_then(|()| sysfs::rename_at(dir.as_fd(), &temporary, name));
        if written.is_err() {
            // A full disk (ENOSPC), a quota, an I/O error: nothing of ours stays behind.
            let _ = sysfs::unlink_at(dir.as_fd(), &temporary);
        } else {
            // The rename itself lasts once the directory is on disk; a failure here changes
            // nothing a reader sees.
            let _ = dir.sync_all();
        }
        return written;
    }
    Err(io::Error::from_raw_os_error(libc::EEXIST))
}

fn write_synced(mut file: File, bytes: &[u8]) -> io::Result<()> {
    file.write_all(bytes)?;
    file.sync_all()
}

/// `.NAME.` and 16 random hex digits, within the 255 bytes a name may have.
fn temporary_name(name: &OsStr) -> io::Result<OsString> {
    let mut random = [0u8; 8];
    sysfs::random_bytes(&mut random)?;
    let suffix: String = random.iter().map(|b| format!("{b:02x}")).collect();
    let keep = name.len().min(255 - 2 - suffix.len());
    let mut temporary = OsString::from(".");
    temporary.push(OsStr::from_bytes(&name.as_bytes()[..keep]));
    temporary.push(".");
    temporary.push(suffix);
    Ok(temporary)
}

/// Writes what is at `name` in place: a FIFO or a device (never following a link, unless
/// `follow`: a link the caller found trustworthy). A regular file found there after all (the
/// name was changed meanwhile) is replaced as any regular file; a block device is refused.
fn in_place(dir: &File, name: &OsStr, bytes: &[u8], follow: bool) -> io::Result<()> {
    let mut flags = libc::O_WRONLY | libc::O_NOCTTY;
    if follow {
        // A dangling link of ours is made, as hdparm's O_CREAT makes it.
        flags |= libc::O_CREAT;
    } else {
        flags |= libc::O_NOFOLLOW;
    }
    let mut file = sysfs::open_at(dir.as_fd(), name, flags, OUTPUT_MODE)?;
    let kind = file.metadata()?.file_type();
    if kind.is_block_device() {
        return Err(not_over_a_disk());
    }
    if kind.is_file() {
        if !follow {
            drop(file);
            return replace(dir, name, bytes);
        }
        // hdparm opens with O_TRUNC; truncated only now that it is known not to be a disk.
        file.set_len(0)?;
        return write_synced(file, bytes);
    }
    file.write_all(bytes)
}

/// Reads the start of a password file into `buf` (`--security-password-file`): the whole file
/// when it is shorter than `buf`; `-` is standard input, read without std's buffer so that no
/// copy of the password stays in it. Returns the byte count; the caller judges the length.
pub fn read_password_file(path: &Path, buf: &mut [u8]) -> io::Result<usize> {
    let mut file = if path == Path::new("-") {
        None
    } else {
        Some(File::open(path)?)
    };
    let mut filled = 0;
    while filled < buf.len() {
        let n = match file.as_mut() {
            Some(f) => f.read(&mut buf[filled..]),
            None => crate::device::sys::secret::read_stdin(&mut buf[filled..]),
        };
        match n {
            Ok(0) => break,
            Ok(n) => filled += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(filled)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;
    use std::path::PathBuf;

    fn scratch(tag: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("hdparm-rs-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn a_regular_file_is_replaced_and_nothing_else_stays() {
        let dir = scratch("replace");
        let path = dir.join("out.prom");
        write_output(&path, b"one\n").unwrap();
        let first = std::fs::metadata(&path).unwrap().ino();
        write_output(&path, b"two\n").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two\n");
        // A new file took the name: a reader holding the old one sees it whole.
        assert_ne!(std::fs::metadata(&path).unwrap().ino(), first);
        assert_eq!(names(&dir), ["out.prom"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_in_a_directory_others_can_write_is_refused() {
        let dir = scratch("shared");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o777)).unwrap();
        let target = dir.join("target");
        std::fs::write(&target, b"keep").unwrap();
        std::os::unix::fs::symlink(&target, dir.join("out.prom")).unwrap();
        let e = write_output(&dir.join("out.prom"), b"x").unwrap_err();
        assert_eq!(e.to_string(), LINK_REFUSED);
        assert_eq!(std::fs::read(&target).unwrap(), b"keep");
        assert_eq!(names(&dir), ["out.prom", "target"]);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_link_only_we_could_have_made_is_written_through_in_place() {
        // /proc/self/fd is ours alone (0500): `--Iraw /proc/self/fd/N`, as `/dev/stdout` is,
        // is written to the descriptor's file, truncated first as hdparm's O_TRUNC does.
        let dir = scratch("own-link");
        let target = dir.join("stdout.bin");
        std::fs::write(&target, b"a longer old content").unwrap();
        let held = File::options().write(true).open(&target).unwrap();
        use std::os::fd::AsRawFd;
        let link = PathBuf::from(format!("/proc/self/fd/{}", held.as_raw_fd()));
        write_output(&link, b"new").unwrap();
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn directories_and_block_devices_are_refused() {
        let dir = scratch("refused");
        std::fs::create_dir(dir.join("sub")).unwrap();
        let e = write_output(&dir.join("sub"), b"x").unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::EISDIR));
        // A block device node (loop minor 255, never attached here, so even a bug could not
        // write anywhere): refused before it is opened. mknod needs root.
        let node = dir.join("disk");
        let made = std::process::Command::new("mknod")
            .arg(&node)
            .args(["b", "7", "255"])
            .status()
            .is_ok_and(|s| s.success());
        if made {
            let e = write_output(&node, b"x").unwrap_err();
            assert!(e.to_string().contains("block device"), "{e}");
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn temporary_names_are_unpredictable_and_fit() {
        let a = temporary_name(OsStr::new("hdparm.prom")).unwrap();
        let b = temporary_name(OsStr::new("hdparm.prom")).unwrap();
        assert_ne!(a, b);
        assert!(a.to_string_lossy().starts_with(".hdparm.prom."));
        let long = "x".repeat(255);
        assert!(temporary_name(OsStr::new(&long)).unwrap().len() <= 255);
    }
}
