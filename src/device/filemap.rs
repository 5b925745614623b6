//! The file system side of `--fibmap` and `--fallocate` (reference §4.12): opening the file,
//! finding the block device its file system lives on (hdparm scans `/dev` for a block node
//! with the file's `st_dev`) and where that device begins on its disk, the block size, the
//! FIEMAP and FIBMAP calls, and creating a preallocated file.
//!
//! Must not: print, or decide what a failure means to the user (the exec layer does).

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::sys::fsmap;
pub use super::sys::fsmap::FiemapExtent;
use super::{Device, GeometryError, OpenMode, StartLba};

/// A file opened for mapping, with what `fstat` said about it.
pub struct MappedFile {
    file: File,
    /// The device its file system is on.
    pub st_dev: u64,
    pub size: u64,
    pub is_regular: bool,
}

/// Opens `path` read-only and stats it (hdparm's `open` + `fstat`).
pub fn open_for_map(path: &Path) -> io::Result<MappedFile> {
    let file = File::open(path)?;
    let meta = file.metadata()?;
    Ok(MappedFile {
        st_dev: meta.dev(),
        size: meta.len(),
        is_regular: meta.file_type().is_file(),
        file,
    })
}

impl MappedFile {
    /// `FIGETBSZ`: the file system's block size.
    pub fn block_size(&self) -> io::Result<u32> {
        fsmap::figetbsz(&self.file)
    }

    /// One FIEMAP call from byte `start` (up to 8000 extents, as hdparm asks).
    pub fn fiemap(&self, start: u64) -> io::Result<Vec<FiemapExtent>> {
        fsmap::fiemap(&self.file, start)
    }

    /// FIBMAP of file block `index` (0 for a hole).
    pub fn fibmap(&self, index: u32) -> io::Result<u32> {
        fsmap::fibmap(&self.file, index)
    }
}

/// Why the file system's place on its disk could not be found.
#[derive(Debug)]
pub enum StartError {
    /// No block node in `/dev` has this device number (major, minor).
    NotFound(u32, u32),
    /// The node was found and could not be opened.
    Open(PathBuf, io::Error),
    Geometry(GeometryError),
}

/// Where the block device `st_dev` begins on its disk, and its logical sector size: the node
/// is the first block device in `/dev` (not its subdirectories, as hdparm) with that number.
pub fn fs_start(st_dev: u64) -> Result<(StartLba, u32), StartError> {
    let major = libc::major(st_dev);
    let minor = libc::minor(st_dev);
    let not_found = || StartError::NotFound(major, minor);
    let entries = std::fs::read_dir("/dev").map_err(|_| not_found())?;
    let path = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_block_device()))
        .map(|e| e.path())
        .find(|p| {
            std::fs::metadata(p)
                .is_ok_and(|m| m.file_type().is_block_device() && m.rdev() == st_dev)
        })
        .ok_or_else(not_found)?;
    let dev = Device::open(&path, OpenMode::default()).map_err(|e| StartError::Open(path, e))?;
    let sector_bytes = dev.current_sector_size();
    let start = dev.start_lba().map_err(StartError::Geometry)?;
    Ok((start, sector_bytes))
}

/// What `--fallocate` would find, asked without creating anything (`--dry-run`): the error
/// its create would fail with that a look at the names shows (the file exists, its directory
/// does not), or Ok.
pub fn fallocate_probe(path: &Path) -> io::Result<()> {
    if std::fs::symlink_metadata(path).is_ok() {
        return Err(io::Error::from_raw_os_error(libc::EEXIST));
    }
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    std::fs::metadata(parent).map(|_| ())
}

/// `--fallocate`: creates `path` (it must not exist; mode 0600), allocates `len` bytes
/// without writing them, and syncs; on failure after creating it, removes it again.
pub fn fallocate_new(path: &Path, len: u64) -> io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    match fsmap::fallocate(&file, len) {
        Ok(()) => {
            // hdparm ignores fsync's result.
            let _ = file.sync_all();
            Ok(())
        }
        Err(e) => {
            drop(file);
            let _ = std::fs::remove_file(path);
            Err(e)
        }
    }
}
