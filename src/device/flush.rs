//! hdparm's buffer-cache flush routine (`-T`, `-t` and `-f` all run it): the syncs and
//! BLKFLSBUF in hdparm's order.
//!
//! What it must not do: decide when to flush; the callers do.

use std::fs::File;
use std::os::fd::BorrowedFd;
use std::os::unix::fs::FileTypeExt;

use super::sys;
use crate::error::{Error, ErrorClass};

/// hdparm's buffer-cache flush routine (reference §6.1), used by `-T`, `-t` and `-f`:
/// `sync`, `fsync`, `fdatasync`, `sync`, `BLKFLSBUF` (then the legacy "wait for the drive"
/// `HDIO_DRIVE_CMD` with no command, whose failure is ignored), `sync`.
///
/// On a node that is not a block device (a regular file, a directory, `/dev/sg*`) there is no
/// block buffer cache, so `BLKFLSBUF` is skipped instead of failing with "Inappropriate ioctl
/// for device" as hdparm does (a stderr-only difference, listed in DIFFERENCES.md).
/// An error carries hdparm's line: `BLKFLSBUF failed: <strerror>`.
pub fn flush_buffer_cache(fd: BorrowedFd<'_>) -> Result<(), Error> {
    sys::sync_all_filesystems();
    let is_block = match fd.try_clone_to_owned() {
        Ok(owned) => {
            let file = File::from(owned);
            // hdparm ignores both results: a directory or a pipe cannot be synced, and the
            // flush that matters is the ioctl below.
            let _ = file.sync_all();
            let _ = file.sync_data();
            file.metadata()
                .map(|m| m.file_type().is_block_device())
                .unwrap_or(false)
        }
        Err(_) => false,
    };
    sys::sync_all_filesystems();
    let result = if is_block {
        match sys::blk_flsbuf(fd) {
            Ok(()) => {
                // hdparm's "wait for the drive": a NULL argument (libata answers EINVAL).
                let _ = sys::hdio_drive_cmd(fd, None);
                Ok(())
            }
            Err(e) => Err(Error::os(ErrorClass::Failed, "BLKFLSBUF failed", &e)),
        }
    } else {
        Ok(())
    };
    sys::sync_all_filesystems();
    result
}
