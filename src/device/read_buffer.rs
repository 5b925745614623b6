//! The buffer the read timings read into, prepared as hdparm prepares its own: mapped,
//! touched, locked.
//!
//! What it must not do: read, measure or decide the size; the timing loops do.

use std::io;

use super::sys;
use super::sys::mem::{self, MappedBuffer};
use crate::error::{Error, ErrorClass};

/// The 2 MiB timing buffer, prepared as hdparm prepares it: an anonymous mapping (page aligned,
/// so `O_DIRECT` reads can land in it), every page touched, locked, the whole process locked
/// (`mlockall`, failure ignored as in hdparm), and a `sync()` so pending writes do not compete
/// with the reads. The caller then sleeps the settle time (the timing loops do).
/// Dropping it unlocks the process (`munlockall`) and unmaps the buffer.
pub struct TimingBuffer {
    buf: MappedBuffer,
}

impl TimingBuffer {
    /// `len` bytes: the timing loops' `TIMING_BUF_BYTES`, 2 MiB as in hdparm.
    pub fn prepare(len: usize) -> Result<TimingBuffer, Error> {
        TimingBuffer::prepared(MappedBuffer::map(len))
    }

    /// The same buffer on a huge page where the kernel has one (`--surface`): a 1 MiB
    /// `O_DIRECT` read into small pages is split at the queue's `max_segments` (two requests
    /// of 512 KiB on a loop device), into one folio it is one request. `-T` and `-t` keep
    /// hdparm's plain buffer, so that their reads are the ones hdparm makes.
    pub fn prepare_for_large_reads(len: usize) -> Result<TimingBuffer, Error> {
        TimingBuffer::prepared(MappedBuffer::map_for_large_reads(len))
    }

    fn prepared(mapped: io::Result<MappedBuffer>) -> Result<TimingBuffer, Error> {
        let mut buf = mapped
            .map_err(|e| Error::os(ErrorClass::Failed, "could not allocate timing buf", &e))?;
        buf.lock()
            .map_err(|e| Error::os(ErrorClass::Failed, "mlock() failed on timing buf", &e))?;
        let _ = mem::mlockall_current_future();
        sys::sync_all_filesystems();
        Ok(TimingBuffer { buf })
    }

    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        self.buf.as_mut_slice()
    }
}

impl Drop for TimingBuffer {
    fn drop(&mut self) {
        mem::munlockall();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TWO_MIB: usize = 2 << 20;

    #[test]
    fn timing_buffer_is_two_mib_and_writable() {
        // mlock may be refused to an unprivileged user with a small RLIMIT_MEMLOCK; then the
        // error must carry hdparm's message.
        match TimingBuffer::prepare(TWO_MIB)
            .and_then(|a| Ok((a, TimingBuffer::prepare_for_large_reads(TWO_MIB)?)))
        {
            Ok((mut a, mut b)) => {
                for buf in [&mut a, &mut b] {
                    let s = buf.as_mut_slice();
                    assert_eq!(s.len(), TWO_MIB);
                    s[TWO_MIB - 1] = 1;
                }
                // --surface's lies on a huge page boundary, so that one folio can back it.
                assert_eq!(b.as_mut_slice().as_ptr() as usize % mem::HUGE_PAGE, 0);
            }
            Err(e) => assert!(
                e.message.starts_with("mlock() failed on timing buf: "),
                "{}",
                e.message
            ),
        }
    }
}
