//! Exclusive use of a disk (issue 18): the whole-disk lock of the block-device locking
//! convention (systemd's "Locking Block Device Access", which systemd-udevd and util-linux's
//! tools honour): a BSD lock (flock) on the whole disk's node. udevd takes it shared, without
//! waiting, while it handles an event on the disk (the change event our own close after a
//! write triggers included) and while it runs a rule's RUN programs; a program that changes
//! the disk takes it exclusive, and udevd then leaves the disk alone until it is released.
//!
//! - [`Mode::Exclusive`] (a destructive operation): the whole disk is opened
//!   with O_EXCL as well, so that nothing can mount it, swap on it or assemble it while the
//!   descriptor is open (mount fails with EBUSY), and the lock is tried again, without
//!   blocking, every 100 ms for up to `Wait::limit` while only shared holders (udev's brief
//!   probes) have it. An exclusive holder is another run's destructive operation: no point in
//!   waiting for it.
//! - [`Mode::ExclusiveLock`] (`--experiment`): the exclusive flock alone; the disk may stay
//!   mounted.
//! - [`Mode::Shared`] (everything else that talks to a drive): tried once or for a bounded
//!   time; it conflicts only with an exclusive holder.
//!
//! A process holds each disk once: a run inside this process (`--experiment`'s and
//! `--apply`'s own command lines) that asks for a disk this process holds gets it at once,
//! without a second lock (a second open file's flock would conflict with our own).
//!
//! Owns: finding the node to lock (`usage::whole_disk_node`), the opens, the tries and the
//! waiting, naming the holders from `/proc/locks`, and the register of this process's locks.
//! Must not: print, or decide what is destructive; callers say which mode and how long.

use super::sys::lock::{try_flock, Flock};
use std::fs::{File, OpenOptions};
use std::os::fd::AsFd;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// How long a destructive operation or `--experiment` tries for a lock that only shared
/// holders have (udev's probe of a disk takes well under a second; a RUN program a little
/// longer).
pub const LOCK_WAIT: Duration = Duration::from_secs(10);

/// How long a wait goes on before the caller is told that it waits.
const SAY_AFTER: Duration = Duration::from_secs(1);

/// Between two tries.
const RETRY: Duration = Duration::from_millis(100);

/// Which lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// O_EXCL and flock LOCK_EX: nothing else may use the disk (a destructive operation).
    Exclusive,
    /// flock LOCK_EX alone: no other run may change or probe the disk, which may stay mounted
    /// (`--experiment` tunes disks in use).
    ExclusiveLock,
    /// flock LOCK_SH: the disk is not being changed by another run.
    Shared,
}

/// How long to try, and what to do meanwhile.
pub struct Wait<'a> {
    /// Zero: one try.
    pub limit: Duration,
    /// Whether a stop signal came (the wait then ends).
    pub stop: &'a dyn Fn() -> bool,
    /// Told once, after about a second of waiting, who holds the lock.
    pub waiting: &'a mut dyn FnMut(&str),
}

/// Why the disk could not be had.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Denied {
    /// The kernel refused the exclusive open: the disk is mounted, swap, held by md/dm/LVM
    /// or opened exclusively by a program. The sentence names what, where it is known.
    InUse(String),
    /// Another open file holds a conflicting lock. Who, in words (`hdparm, pid 812,
    /// exclusive`), and whether an exclusive holder was seen.
    Locked { holder: String, exclusive: bool },
    /// A stop signal came while waiting.
    Stopped,
}

/// A disk held by this process: the lock goes with the descriptor, when it is dropped.
#[derive(Debug)]
pub struct DiskLock {
    file: Option<File>,
    /// The disk's device number in this process's register, when this lock put it there.
    registered: Option<u64>,
}

impl DiskLock {
    /// Nothing held (not a disk, or held already by this process).
    fn none() -> DiskLock {
        DiskLock {
            file: None,
            registered: None,
        }
    }

    /// Whether this lock holds the disk itself (not nested in another of this process).
    pub fn holds(&self) -> bool {
        self.file.is_some()
    }
}

impl Drop for DiskLock {
    fn drop(&mut self) {
        // The descriptor is closed (and the lock released) after the register forgets it: a
        // nested request in between would otherwise be granted a lock about to go.
        if let Some(dev) = self.registered {
            let mut held = register();
            if let Some(at) = held.iter().position(|&d| d == dev) {
                held.swap_remove(at);
            }
        }
        self.file.take();
    }
}

/// The disks (device numbers) this process holds a lock on.
static HELD: Mutex<Vec<u64>> = Mutex::new(Vec::new());

/// [`HELD`], locked (a thread that panicked with it leaves a list that is still right).
fn register() -> std::sync::MutexGuard<'static, Vec<u64>> {
    HELD.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Takes the lock of the whole disk behind `path` in `mode`. A path that is not a disk (a
/// regular file, a directory) needs none and gets an empty lock; so does a disk whose node
/// this process cannot open (the run's own open then says why).
pub fn lock(path: &Path, mode: Mode, wait: Wait<'_>) -> Result<DiskLock, Denied> {
    let Some(node) = super::usage::whole_disk_node(path) else {
        return Ok(DiskLock::none());
    };
    let Ok(meta) = std::fs::metadata(&node) else {
        return Ok(DiskLock::none());
    };
    let dev = meta.rdev();
    // Not held across the wait: the threads of `--prometheus` lock their disks at once.
    if register().contains(&dev) {
        return Ok(DiskLock::none());
    }
    let mut flags = libc::O_NONBLOCK | libc::O_CLOEXEC;
    if mode == Mode::Exclusive {
        flags |= libc::O_EXCL;
    }
    let file = match OpenOptions::new()
        .read(true)
        .custom_flags(flags)
        .open(&node)
    {
        Ok(file) => file,
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
            let user = super::usage::in_use(path).unwrap_or_else(|| {
                format!(
                    "{} is in use (the kernel refuses an exclusive open: a mount, a swap area, or a program holds it)",
                    node.display()
                )
            });
            return Err(Denied::InUse(user));
        }
        Err(_) => return Ok(DiskLock::none()),
    };
    let flock = match mode {
        Mode::Exclusive | Mode::ExclusiveLock => Flock::Exclusive,
        Mode::Shared => Flock::Shared,
    };
    let started = Instant::now();
    let mut said = false;
    loop {
        match try_flock(file.as_fd(), flock) {
            Ok(true) => break,
            // A file system without locks: nothing to honour.
            Err(_) => return Ok(DiskLock::none()),
            Ok(false) => {}
        }
        let holders = holders(&node);
        let exclusive = holders.iter().any(|h| h.exclusive);
        let holder = describe(&holders);
        if exclusive || started.elapsed() >= wait.limit {
            return Err(Denied::Locked { holder, exclusive });
        }
        if (wait.stop)() {
            return Err(Denied::Stopped);
        }
        if !said && started.elapsed() >= SAY_AFTER {
            said = true;
            (wait.waiting)(&holder);
        }
        std::thread::sleep(RETRY);
        // A stop that came during the sleep: the disk is not taken for a turn that ends.
        if (wait.stop)() {
            return Err(Denied::Stopped);
        }
    }
    register().push(dev);
    Ok(DiskLock {
        file: Some(file),
        registered: Some(dev),
    })
}

/// One lock holder of `/proc/locks`.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Holder {
    pid: u32,
    exclusive: bool,
}

/// Who holds a flock on `node`, from `/proc/locks` (empty when it cannot be read).
fn holders(node: &Path) -> Vec<Holder> {
    let Ok(meta) = std::fs::metadata(node) else {
        return Vec::new();
    };
    let text = std::fs::read_to_string("/proc/locks").unwrap_or_default();
    flock_holders(&text, meta.dev(), meta.ino())
}

/// The FLOCK lines of `/proc/locks` on the inode `ino` of the file system `dev`:
/// `1: FLOCK  ADVISORY  WRITE 1234 00:05:567 0 EOF` (the device in hex, as the kernel prints
/// it); the lines of processes waiting for a lock (`1: -> FLOCK ...`) hold none.
fn flock_holders(text: &str, dev: u64, ino: u64) -> Vec<Holder> {
    let number = super::sysfs::DevNum::from_raw(dev);
    let want = format!("{:02x}:{:02x}:{ino}", number.major, number.minor);
    text.lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            if fields.get(1) != Some(&"FLOCK") || fields.get(5) != Some(&want.as_str()) {
                return None;
            }
            Some(Holder {
                pid: fields.get(4)?.parse().ok()?,
                exclusive: fields.get(3) == Some(&"WRITE"),
            })
        })
        .collect()
}

/// The holders in words: `hdparm, pid 812, exclusive`; `another program` when none is known.
fn describe(holders: &[Holder]) -> String {
    if holders.is_empty() {
        return "another program".into();
    }
    let named: Vec<String> = holders
        .iter()
        .map(|h| {
            let name = std::fs::read_to_string(format!("/proc/{}/comm", h.pid))
                .map(|n| n.trim().to_string())
                .unwrap_or_else(|_| "a process".into());
            let kind = if h.exclusive { "exclusive" } else { "shared" };
            format!("{name}, pid {}, {kind}", h.pid)
        })
        .collect();
    named.join("; ")
}

/// The node [`lock`] would lock for `path`, for messages.
pub fn node_of(path: &Path) -> Option<PathBuf> {
    super::usage::whole_disk_node(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io;

    #[test]
    fn proc_locks_lines_give_the_holders_of_one_inode() {
        let text = "1: FLOCK  ADVISORY  WRITE 812 00:05:330 0 EOF\n\
                    1: -> FLOCK  ADVISORY  READ 900 00:05:330 0 EOF\n\
                    2: FLOCK  ADVISORY  READ 88 00:05:330 0 EOF\n\
                    3: POSIX  ADVISORY  WRITE 77 00:05:330 0 EOF\n\
                    4: FLOCK  ADVISORY  WRITE 66 00:05:331 0 EOF\n\
                    5: FLOCK  ADVISORY  READ 55 fd:01:330 0 EOF\n";
        let dev = libc::makedev(0, 5);
        assert_eq!(
            flock_holders(text, dev, 330),
            vec![
                Holder {
                    pid: 812,
                    exclusive: true
                },
                Holder {
                    pid: 88,
                    exclusive: false
                }
            ]
        );
        assert_eq!(
            flock_holders(text, libc::makedev(0xfd, 1), 330),
            vec![Holder {
                pid: 55,
                exclusive: false
            }]
        );
    }

    #[test]
    fn a_regular_file_needs_no_lock() -> io::Result<()> {
        let file = std::env::temp_dir().join(format!("hdparm-rs-lock-{}", std::process::id()));
        std::fs::write(&file, b"x")?;
        let mut said = |_: &str| {};
        let got = lock(
            &file,
            Mode::Exclusive,
            Wait {
                limit: Duration::ZERO,
                stop: &|| false,
                waiting: &mut said,
            },
        );
        std::fs::remove_file(&file)?;
        assert!(got.is_ok_and(|l| !l.holds()));
        Ok(())
    }
}
