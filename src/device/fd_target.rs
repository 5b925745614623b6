//! The descriptor side of the read timings: the `-T`/`-t` reader over the executor's
//! descriptor, the `O_DIRECT` open of `--bench` and `--surface`, and a size found by seeking.
//!
//! What it must not do: measure, format or decide. The loops, the statistics and the lines are
//! in `timing`, and the adapter that makes [`FdTarget`] timing's reader is in
//! `exec::measure::engines`, so that `device` imports nothing of `timing`.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom};
use std::os::fd::BorrowedFd;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use crate::error::{Error, ErrorClass};

/// The `-T`/`-t` reader over the executor's file descriptor. It reads and seeks through a
/// duplicate of the descriptor, which shares the file offset and the open flags (`O_DIRECT`
/// included) with the original, so the position `-T` leaves is the one `-t` starts from, as
/// in hdparm.
pub struct FdTarget<'fd> {
    fd: BorrowedFd<'fd>,
    file: File,
}

impl<'fd> FdTarget<'fd> {
    pub fn new(fd: BorrowedFd<'fd>) -> io::Result<FdTarget<'fd>> {
        let file = File::from(fd.try_clone_to_owned()?);
        Ok(FdTarget { fd, file })
    }
}

impl FdTarget<'_> {
    pub fn seek(&mut self, offset: u64) -> io::Result<u64> {
        // lseek takes a signed offset: hdparm passes values of 2^63 and above as negative ones,
        // which the kernel refuses with EINVAL. std does the same conversion.
        self.file.seek(SeekFrom::Start(offset))
    }

    pub fn read_block(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        // One read(2), like hdparm: no retry on a short count, which is reported as such.
        self.file.read(buf)
    }

    pub fn flush_buffer_cache(&mut self) -> Result<(), Error> {
        super::flush::flush_buffer_cache(self.fd)
    }

    pub fn size_bytes(&mut self) -> Option<u64> {
        // A block device's size as the kernel has it now (a loop device after `losetup -c`,
        // a disk after a resize); a regular file's length.
        super::sys::blk_getsize64(self.fd)
            .ok()
            .or_else(|| self.file.metadata().ok().map(|m| m.len()))
    }
}

/// The size in 512-byte sectors of what `fd` refers to, found by seeking to its end (a block
/// device reports its size that way, a regular file its length) and back to where it was.
/// For callers that have no better source (the device layer's size query is preferred: it is
/// what hdparm uses).
pub fn size_sectors_by_seek(fd: BorrowedFd<'_>) -> io::Result<u64> {
    let mut file = File::from(fd.try_clone_to_owned()?);
    let here = file.stream_position()?;
    let end = file.seek(SeekFrom::End(0))?;
    file.seek(SeekFrom::Start(here))?;
    Ok(end / 512)
}

/// Opens `path` for the benchmark: read-only, `O_DIRECT` (no page cache), non-blocking open
/// as hdparm opens devices.
pub fn open_direct(path: &Path) -> Result<File, Error> {
    OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECT | libc::O_NONBLOCK)
        .open(path)
        .map_err(|e| Error::os(ErrorClass::CannotOpen, &path.display().to_string(), &e))
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    /// A test that cannot run here says so, and fails instead under HDPARM_RS_REQUIRE_ALL=1
    /// (CI), where a skip must not count as a pass.
    pub(crate) fn skip(why: &str) {
        assert!(
            std::env::var("HDPARM_RS_REQUIRE_ALL").as_deref() != Ok("1"),
            "cannot run: {why}"
        );
        eprintln!("SKIPPED: {why}");
    }

    /// A scratch file of `blocks` × 64 KiB, each block filled with its own number.
    pub(crate) fn scratch_file(name: &str, blocks: u8) -> std::path::PathBuf {
        let path =
            std::env::temp_dir().join(format!("hdparm-rs-reader-{}-{name}", std::process::id()));
        let mut f = File::create(&path).expect("create scratch file");
        for b in 0..blocks {
            f.write_all(&vec![b; 64 << 10]).expect("fill scratch file");
        }
        f.sync_all().expect("sync scratch file");
        path
    }

    #[test]
    fn fd_target_reads_seeks_and_shares_the_offset() {
        let path = scratch_file("target", 4);
        let file = File::open(&path).unwrap();
        let mut t = FdTarget::new(file.as_fd()).unwrap();
        let mut buf = vec![0u8; 64 << 10];
        assert_eq!(t.read_block(&mut buf).unwrap(), 64 << 10);
        assert!(buf.iter().all(|&b| b == 0));
        assert_eq!(t.seek(3 * (64 << 10)).unwrap(), 3 * (64 << 10));
        assert_eq!(t.read_block(&mut buf).unwrap(), 64 << 10);
        assert!(buf.iter().all(|&b| b == 3));
        assert_eq!(t.read_block(&mut buf).unwrap(), 0, "end of file");
        // The duplicate shares the offset with the executor's descriptor.
        assert_eq!((&file).stream_position().unwrap(), 4 * (64 << 10));
        assert_eq!(
            size_sectors_by_seek(file.as_fd()).unwrap(),
            4 * (64 << 10) / 512
        );
        assert_eq!(
            (&file).stream_position().unwrap(),
            4 * (64 << 10),
            "size query restores the offset"
        );
        // No block buffer cache on a regular file: the flush is quiet and succeeds.
        t.flush_buffer_cache().expect("flush of a regular file");
        let _ = std::fs::remove_file(&path);
    }
}
