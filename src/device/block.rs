//! Block-layer queries and settings, and the legacy HDIO get/set ioctls, on a [`Device`].
//!
//! Owns: sizes, sector sizes, readahead, read-only flag, the buffer-cache flush routine of
//! hdparm (reference §6.1), partition re-read, the `HDIO_*` settings and `HDIO_GET_IDENTITY`.
//! Must not: print; each call returns the kernel's answer or its `io::Error`.

use std::io;

use super::{sys, Device, HdioGet, HdioSet};

impl Device {
    /// Size in bytes (`BLKGETSIZE64`).
    pub fn size_bytes(&self) -> io::Result<u64> {
        sys::blk_getsize64(self)
    }

    /// Size in 512-byte sectors, found as hdparm finds it: sysfs `size`, then
    /// `BLKGETSIZE64 / 512`, then `BLKGETSIZE`; the error is BLKGETSIZE's (hdparm prints
    /// ` BLKGETSIZE failed`).
    pub fn size_sectors(&self) -> io::Result<u64> {
        if let Ok(n) = self.sysfs_u64("size") {
            return Ok(n);
        }
        if let Ok(bytes) = sys::blk_getsize64(self) {
            return Ok(bytes / 512);
        }
        sys::blk_getsize(self)
    }

    /// Logical sector size in bytes (`BLKSSZGET`).
    pub fn logical_sector_size(&self) -> io::Result<u32> {
        sys::blk_sszget(self)
    }

    /// hdparm's "current sector size": `BLKSSZGET`, or 512 when that fails.
    pub fn current_sector_size(&self) -> u32 {
        self.logical_sector_size().unwrap_or(512)
    }

    /// Physical sector size in bytes (`BLKPBSZGET`).
    pub fn physical_sector_size(&self) -> io::Result<u32> {
        sys::blk_pbszget(self)
    }

    /// Filesystem readahead in 512-byte sectors (`BLKRAGET`).
    pub fn readahead(&self) -> io::Result<u64> {
        sys::blk_raget(self)
    }

    /// Sets readahead (`BLKRASET`); needs CAP_SYS_ADMIN.
    pub fn set_readahead(&self, sectors: u64) -> io::Result<()> {
        sys::blk_raset(self, sectors)
    }

    /// The read-only flag as the kernel returns it (`BLKROGET`: 0 or 1).
    pub fn readonly(&self) -> io::Result<i32> {
        sys::blk_roget(self)
    }

    /// Sets the read-only flag (`BLKROSET`).
    pub fn set_readonly(&self, value: i32) -> io::Result<()> {
        sys::blk_roset(self, value)
    }

    /// Re-reads the partition table (`BLKRRPART`).
    pub fn reread_partitions(&self) -> io::Result<()> {
        sys::blk_rrpart(self)
    }

    /// hdparm's buffer-cache flush (reference §6.1); see [`super::flush::flush_buffer_cache`],
    /// the one implementation, which `-T` and `-t` use too. The error carries the errno of
    /// `BLKFLSBUF` (hdparm prints `BLKFLSBUF failed`).
    pub fn flush_buffers(&self) -> io::Result<()> {
        use std::os::fd::AsFd;
        super::flush::flush_buffer_cache(self.file().as_fd())
            .map_err(|e| io::Error::from_raw_os_error(e.errno.unwrap_or(libc::EIO)))
    }

    /// One legacy `HDIO_GET_*` setting; libata answers most of them with ENOTTY or EINVAL.
    // c_long is i32 on 32-bit targets.
    #[allow(clippy::useless_conversion)]
    pub fn hdio_get(&self, what: HdioGet) -> io::Result<i64> {
        sys::hdio_get(self, what).map(i64::from)
    }

    /// One legacy `HDIO_SET_*` setting (the value is passed as hdparm passes it).
    pub fn hdio_set(&self, what: HdioSet, value: u64) -> io::Result<()> {
        sys::hdio_set(self, what, value as libc::c_ulong)
    }

    /// `HDIO_DRIVE_RESET` (`-w`).
    pub fn drive_reset(&self) -> io::Result<()> {
        sys::hdio_drive_reset(self)
    }

    /// `HDIO_DRIVE_TASK`: seven taskfile bytes (command, feature, count, LBA low/mid/high,
    /// device) in, the result registers out; only the old IDE driver implements it.
    pub fn hdio_drive_task(&self, regs: &mut [u8; 7]) -> io::Result<()> {
        sys::hdio_drive_task(self, regs)
    }

    /// `HDIO_GET_IDENTITY`: the IDENTIFY data the kernel kept from probing (`-i`), as 256
    /// words converted from little-endian.
    pub fn hdio_identity(&self) -> io::Result<[u16; 256]> {
        Ok(le_words(&self.hdio_identity_bytes()?))
    }

    /// `HDIO_GET_IDENTITY` as the kernel gives it: 512 bytes, the words little-endian.
    pub fn hdio_identity_bytes(&self) -> io::Result<[u8; 512]> {
        sys::hdio_get_identity(self)
    }
}

/// 512 little-endian bytes as 256 words.
pub(crate) fn le_words(bytes: &[u8; 512]) -> [u16; 256] {
    let mut words = [0u16; 256];
    for (w, pair) in words.iter_mut().zip(bytes.chunks_exact(2)) {
        *w = u16::from_le_bytes([pair[0], pair[1]]);
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::OpenMode;

    #[test]
    fn words_are_little_endian() {
        let mut b = [0u8; 512];
        b[0] = 0x40;
        b[1] = 0x0c;
        b[510] = 0xa5;
        b[511] = 0x12;
        let w = le_words(&b);
        assert_eq!(w[0], 0x0c40);
        assert_eq!(w[255], 0x12a5);
    }

    #[test]
    fn block_queries_fail_on_a_character_device() {
        let d = Device::open("/dev/null", OpenMode::default()).unwrap();
        assert!(d.size_bytes().is_err());
        assert!(d.readahead().is_err());
        assert!(d.hdio_identity().is_err());
        // A character device has no block buffer cache: nothing to flush, nothing to fail.
        assert!(d.flush_buffers().is_ok());
    }
}
