//! The shell: the only code that opens files or calls the kernel. Block ioctls, the legacy HDIO
//! ioctls, ATA commands over SG_IO, and knowing what kind of device a node is.
//! All `unsafe` is in [`sys`].
//!
//! Owns: [`Device`] (an open node, opened the way hdparm opens it), its [`DeviceKind`], block
//! queries and settings ([`block`]), geometry and the raw-device check ([`geometry`]), and the
//! ATA transport ([`ata`]). Must not: print anything or decide exit statuses; callers get
//! values and `io::Error`/[`AtaError`] and render them.

pub mod ata;
pub mod block;
pub mod cdrom;
pub mod fd_target;
pub mod filemap;
pub mod files;
pub mod flush;
pub mod geometry;
pub mod kind;
pub mod lock;
pub mod nvme;
pub mod read_buffer;
pub mod scsi;
pub mod sys;
pub mod sysfs;
pub mod system;
pub mod usage;

use std::cell::Cell;
use std::fs::{File, OpenOptions};
use std::io;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};

pub use ata::{AtaError, AtaOptions, AtaResult, Via};
pub use geometry::{Geometry, GeometryError, RawCheck, StartLba};
pub use kind::{DeviceKind, ScsiHost};
pub use sys::{HdioGet, HdioSet};

/// How to open a device.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct OpenMode {
    /// Add `O_DIRECT` (hdparm's `--direct`).
    pub direct: bool,
    /// Open read-write (`O_RDWR`), as hdparm does for `--trim-sector-ranges`.
    pub write: bool,
}

/// An open device node (or file), opened as hdparm opens it: `O_RDONLY|O_NONBLOCK`, plus
/// `O_DIRECT` or `O_RDWR` when asked. `O_NONBLOCK` lets a CD drive without a disc open.
#[derive(Debug)]
pub struct Device {
    path: PathBuf,
    file: File,
    kind: DeviceKind,
    sysfs: Option<PathBuf>,
    partition_of: Option<String>,
    is_char: bool,
    /// Set once the target refused ATA PASS-THROUGH(16) but took (12): later 28-bit commands
    /// go straight to (12).
    pt12_learned: Cell<bool>,
    /// The JMicron/ioSafe bridge's port once [`Device::apt_detect`] found one: every ATA
    /// command then goes through the bridge's vendor CDB (reference §2.6).
    apt_port: Cell<Option<u8>>,
}

impl Device {
    /// Opens `path`; the error is the `open(2)` error (hdparm prints `perror(devname)`).
    pub fn open(path: impl AsRef<Path>, mode: OpenMode) -> io::Result<Device> {
        let path = path.as_ref().to_path_buf();
        let mut flags = libc::O_NONBLOCK;
        if mode.direct {
            flags |= libc::O_DIRECT;
        }
        let file = OpenOptions::new()
            .read(true)
            .write(mode.write)
            .custom_flags(flags)
            .open(&path)?;
        let meta = file.metadata()?;
        let detected = kind::detect(&meta);
        use std::os::unix::fs::FileTypeExt;
        Ok(Device {
            path,
            file,
            kind: detected.kind,
            sysfs: detected.sysfs,
            partition_of: detected.partition_of,
            is_char: meta.file_type().is_char_device(),
            pt12_learned: Cell::new(false),
            apt_port: Cell::new(None),
        })
    }

    /// Whether the device went away since it was opened (pulled out, deleted by the kernel):
    /// its sysfs directory is gone, or for a SCSI disk its SCSI device is being deleted or is
    /// offline. False where sysfs did not know the node when it was opened.
    pub fn gone(&self) -> bool {
        match &self.sysfs {
            Some(dir) => sysfs::device_gone(dir, matches!(self.kind, DeviceKind::Scsi { .. })),
            None => false,
        }
    }

    /// The path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file descriptor, borrowed.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }

    /// The open file, for reads and seeks (timing, sector reads through the page cache).
    pub fn file(&self) -> &File {
        &self.file
    }

    /// What kind of device this is.
    pub fn kind(&self) -> &DeviceKind {
        &self.kind
    }

    /// One sentence for users about what this device is and whether it takes ATA commands.
    pub fn describe(&self) -> String {
        self.kind.describe(&self.path, self.partition_of.as_deref())
    }

    /// What this device is, without the ATA note: for failures that are not ATA requests.
    pub fn describe_plain(&self) -> String {
        self.kind
            .describe_plain(&self.path, self.partition_of.as_deref())
    }

    /// The whole disk's kernel name when this node is a partition (`sda` for `/dev/sda1`).
    pub fn partition_of(&self) -> Option<&str> {
        self.partition_of.as_deref()
    }

    /// Whether the node is a character device (`/dev/sg*`): hdparm skips the raw-device check
    /// for these.
    pub fn is_char_device(&self) -> bool {
        self.is_char
    }

    /// The device's sysfs directory, spelled as hdparm spells it (`/sys/block/sda`). For a
    /// regular file this is the directory of the filesystem's device, as in hdparm. ENOENT when
    /// sysfs does not know the device.
    pub fn sysfs_dir(&self) -> io::Result<PathBuf> {
        if let Some(dir) = &self.sysfs {
            return Ok(dir.clone());
        }
        sysfs::block_dir(self.sysfs_dev_num()?)
    }

    /// The device number sysfs is searched for: the node's own, or for a regular file the
    /// filesystem's device (hdparm's choice).
    fn sysfs_dev_num(&self) -> io::Result<sysfs::DevNum> {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let meta = self.file.metadata()?;
        let ft = meta.file_type();
        let raw = if ft.is_block_device() || ft.is_char_device() {
            meta.rdev()
        } else {
            meta.dev()
        };
        Ok(sysfs::DevNum::from_raw(raw))
    }

    /// What hdparm's `perror` names when an attribute cannot be read or written: the
    /// attribute's path (`/sys/block/nvme0n1/device/queue_depth`), or `sysfs_find_dev(1:3)`
    /// when sysfs does not know the device at all.
    pub fn sysfs_attr_label(&self, attr: &str) -> String {
        match self.sysfs_dir() {
            Ok(dir) => dir.join(attr).display().to_string(),
            Err(_) => match self.sysfs_dev_num() {
                Ok(dev) => format!("sysfs_find_dev({dev})"),
                Err(_) => format!("sysfs_find_dev({})", self.path.display()),
            },
        }
    }

    /// Whether the kernel does not scan this disk for partitions, so that BLKRRPART answers
    /// EINVAL: the disk's `partscan` attribute (Linux 6.10 and later) is 0, or on older kernels
    /// a loop device's `loop/partscan` (attached without `losetup -P`). False where it cannot be
    /// told, and for a partition (BLKRRPART is refused there for another reason).
    pub fn partition_scan_off(&self) -> bool {
        if self.partition_of.is_some() {
            return false;
        }
        let off = |attr| self.sysfs_read(attr).ok().map(|v| v.trim() == "0");
        match off("partscan") {
            Some(off) => off,
            None if matches!(self.kind, DeviceKind::Loop { .. }) => {
                off("loop/partscan").unwrap_or(false)
            }
            None => false,
        }
    }

    /// Reads a sysfs attribute of the device (`size`, `device/queue_depth`).
    pub fn sysfs_read(&self, attr: &str) -> io::Result<String> {
        sysfs::read_attr(&self.sysfs_dir()?, attr)
    }

    /// Reads a numeric sysfs attribute.
    pub fn sysfs_u64(&self, attr: &str) -> io::Result<u64> {
        sysfs::read_u64(&self.sysfs_dir()?, attr)
    }

    /// Writes a sysfs attribute (hdparm's `-Q` writes `device/queue_depth`).
    pub fn sysfs_write(&self, attr: &str, value: &str) -> io::Result<()> {
        sysfs::write_attr(&self.sysfs_dir()?, attr, value)
    }
}

impl AsFd for Device {
    fn as_fd(&self) -> BorrowedFd<'_> {
        self.file.as_fd()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn open_reports_the_os_error() {
        let e = Device::open("/nonexistent/dev/sdz", OpenMode::default()).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ENOENT));
    }

    #[test]
    fn open_null_and_a_directory() {
        let d = Device::open("/dev/null", OpenMode::default()).unwrap();
        assert_eq!(d.kind(), &DeviceKind::CharDevice);
        assert!(d.is_char_device());
        assert_eq!(d.describe(), "/dev/null is a character device, not a disk");
        assert_eq!(
            d.sysfs_attr_label("device/queue_depth"),
            "sysfs_find_dev(1:3)"
        );
        assert!(!d.partition_scan_off());
        let d = Device::open("/", OpenMode::default()).unwrap();
        assert_eq!(d.kind(), &DeviceKind::Directory);
    }
}
