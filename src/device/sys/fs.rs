//! The directory-relative file calls the output writer (`device::files`) needs and std does not
//! offer: `openat`, `fstatat` without following a link, `renameat`, `unlinkat`, `getrandom`
//! for unpredictable names, and the effective user id.
//!
//! Owns: those calls and their errno. Must not: decide what is safe to follow or replace;
//! `device::files` does, and every call here takes the directory it decided on.

use std::ffi::{CString, OsStr};
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;

/// What a directory entry is, as `lstat` sees it (a link is not followed).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Regular,
    Directory,
    Symlink,
    Fifo,
    CharDevice,
    BlockDevice,
    Socket,
}

/// The facts about one directory entry the writer decides on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub kind: Kind,
    pub uid: u32,
}

fn name_of(name: &OsStr) -> io::Result<CString> {
    CString::new(name.as_bytes()).map_err(|_| io::Error::from_raw_os_error(libc::EINVAL))
}

fn kind_of(mode: libc::mode_t) -> Kind {
    match mode & libc::S_IFMT {
        libc::S_IFDIR => Kind::Directory,
        libc::S_IFLNK => Kind::Symlink,
        libc::S_IFIFO => Kind::Fifo,
        libc::S_IFCHR => Kind::CharDevice,
        libc::S_IFBLK => Kind::BlockDevice,
        libc::S_IFSOCK => Kind::Socket,
        _ => Kind::Regular,
    }
}

/// `fstatat(dir, name, AT_SYMLINK_NOFOLLOW)`: the entry itself (a link as a link), or None when
/// there is no such entry.
pub fn entry_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<Option<Entry>> {
    let name = name_of(name)?;
    // SAFETY: a zeroed stat is a valid out-parameter (plain integers).
    let mut st: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: `name` is a NUL-terminated string alive for the call, `st` a live, writable stat,
    // and `dir` a descriptor borrowed for the call.
    let rc = unsafe {
        libc::fstatat(
            dir.as_raw_fd(),
            name.as_ptr(),
            &mut st,
            libc::AT_SYMLINK_NOFOLLOW,
        )
    };
    if rc != 0 {
        let e = io::Error::last_os_error();
        return match e.raw_os_error() {
            Some(libc::ENOENT) => Ok(None),
            _ => Err(e),
        };
    }
    Ok(Some(Entry {
        kind: kind_of(st.st_mode),
        uid: st.st_uid,
    }))
}

/// `openat(dir, name, flags | O_CLOEXEC, mode)`.
pub fn open_at(dir: BorrowedFd<'_>, name: &OsStr, flags: i32, mode: u32) -> io::Result<File> {
    let name = name_of(name)?;
    // SAFETY: `name` is a NUL-terminated string alive for the call; `dir` is borrowed for it.
    // The mode is passed as the variadic argument open(2) reads when O_CREAT is given.
    let fd = unsafe {
        libc::openat(
            dir.as_raw_fd(),
            name.as_ptr(),
            flags | libc::O_CLOEXEC,
            mode as libc::c_uint,
        )
    };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: `fd` was just returned by openat and is owned by nobody else.
    Ok(File::from(unsafe { OwnedFd::from_raw_fd(fd) }))
}

/// `renameat(dir, from, dir, to)`: replaces `to` (a link at `to` is replaced, not followed).
pub fn rename_at(dir: BorrowedFd<'_>, from: &OsStr, to: &OsStr) -> io::Result<()> {
    let (from, to) = (name_of(from)?, name_of(to)?);
    // SAFETY: both names are NUL-terminated strings alive for the call; `dir` is borrowed.
    let rc =
        unsafe { libc::renameat(dir.as_raw_fd(), from.as_ptr(), dir.as_raw_fd(), to.as_ptr()) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// `unlinkat(dir, name, 0)`.
pub fn unlink_at(dir: BorrowedFd<'_>, name: &OsStr) -> io::Result<()> {
    let name = name_of(name)?;
    // SAFETY: `name` is a NUL-terminated string alive for the call; `dir` is borrowed.
    let rc = unsafe { libc::unlinkat(dir.as_raw_fd(), name.as_ptr(), 0) };
    if rc != 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

/// Fills `buf` from the kernel's random source (`getrandom(2)`), for names nobody can guess.
pub fn random_bytes(buf: &mut [u8]) -> io::Result<()> {
    let mut filled = 0;
    while filled < buf.len() {
        let rest = &mut buf[filled..];
        // SAFETY: `rest` is a live, writable buffer of `rest.len()` bytes for the call.
        let n = unsafe { libc::getrandom(rest.as_mut_ptr().cast(), rest.len(), 0) };
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() == io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        filled += n as usize;
    }
    Ok(())
}

/// The effective user id of the process.
pub fn effective_uid() -> u32 {
    // SAFETY: geteuid takes nothing, cannot fail and touches no memory of ours.
    unsafe { libc::geteuid() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::fd::AsFd;

    #[test]
    fn entries_are_seen_without_following_links() {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-sysfs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("file"), b"x").unwrap();
        std::os::unix::fs::symlink("file", dir.join("link")).unwrap();
        let handle = File::open(&dir).unwrap();
        let fd = handle.as_fd();
        let kind = |name: &str| entry_at(fd, OsStr::new(name)).unwrap().map(|e| e.kind);
        assert_eq!(kind("file"), Some(Kind::Regular));
        assert_eq!(kind("link"), Some(Kind::Symlink));
        assert_eq!(kind("missing"), None);
        // O_NOFOLLOW refuses the link itself.
        let e = open_at(fd, OsStr::new("link"), libc::O_WRONLY | libc::O_NOFOLLOW, 0).unwrap_err();
        assert_eq!(e.raw_os_error(), Some(libc::ELOOP));
        rename_at(fd, OsStr::new("file"), OsStr::new("link")).unwrap();
        assert_eq!(kind("link"), Some(Kind::Regular));
        unlink_at(fd, OsStr::new("link")).unwrap();
        assert_eq!(kind("link"), None);
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn random_bytes_differ() {
        let (mut a, mut b) = ([0u8; 16], [0u8; 16]);
        random_bytes(&mut a).unwrap();
        random_bytes(&mut b).unwrap();
        assert_ne!(a, b);
    }
}
