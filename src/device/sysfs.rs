//! Finding a device in sysfs and reading its attributes.
//!
//! Owns: the mapping from a device number to its `/sys/block/...` directory (the same directory
//! hdparm's scan of `/sys/block/*/dev` and one level of partitions finds, spelled the same way,
//! since hdparm prints it in `-Q` errors), attribute reads and writes, and the md major number
//! from `/proc/devices`. Must not: issue ioctls.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// A device number split as the kernel does (`MAJOR`/`MINOR` of glibc's `dev_t` layout).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DevNum {
    pub major: u32,
    pub minor: u32,
}

impl DevNum {
    pub fn from_raw(dev: u64) -> DevNum {
        DevNum {
            major: (((dev >> 32) & 0xFFFF_F000) | ((dev >> 8) & 0x0FFF)) as u32,
            minor: (((dev >> 12) & 0xFFFF_FF00) | (dev & 0x00FF)) as u32,
        }
    }
}

impl std::fmt::Display for DevNum {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}:{}", self.major, self.minor)
    }
}

/// The sysfs directory of a block device number, as `/sys/block/<disk>` or
/// `/sys/block/<disk>/<partition>`; ENOENT when the device is not there (hdparm's
/// `sysfs_find_dev` failure).
pub fn block_dir(dev: DevNum) -> io::Result<PathBuf> {
    block_dir_in(Path::new("/sys"), dev)
}

fn block_dir_in(sys: &Path, dev: DevNum) -> io::Result<PathBuf> {
    // /sys/dev/block/M:m is the kernel's own index; the /sys/block spelling is what hdparm
    // prints, so rebuild it from the canonical path.
    let link = sys.join("dev/block").join(dev.to_string());
    let real = fs::canonicalize(&link).map_err(|_| io::Error::from_raw_os_error(libc::ENOENT))?;
    let name = file_name(&real);
    let block = sys.join("block");
    let spelled = if real.join("partition").exists() {
        let parent = real.parent().map(file_name).unwrap_or_default();
        block.join(parent).join(&name)
    } else {
        block.join(&name)
    };
    if spelled.join("dev").exists() {
        Ok(spelled)
    } else {
        Ok(real)
    }
}

/// Whether the block device whose sysfs directory is `dir` went away: the directory lost its
/// `dev` attribute (the kernel deleted the disk), or, for a SCSI disk (`scsi`), its SCSI
/// device's `state` is unreadable (its attributes go first when the kernel deletes it) or
/// says it is being deleted or is offline. A disk in error recovery (`blocked`) or suspended
/// (`quiesce`) is still there.
pub fn device_gone(dir: &Path, scsi: bool) -> bool {
    if !dir.join("dev").exists() {
        return true;
    }
    if !scsi {
        return false;
    }
    match fs::read_to_string(dir.join("device/state")) {
        Ok(state) => matches!(
            state.trim(),
            "offline" | "transport-offline" | "cancel" | "deleted"
        ),
        Err(_) => true,
    }
}

/// The canonical `/sys/devices/...` path behind a sysfs directory (symlinks resolved).
pub fn canonical(dir: &Path) -> Option<PathBuf> {
    fs::canonicalize(dir).ok()
}

/// The last path component as a string.
pub fn file_name(p: &Path) -> String {
    p.file_name()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}

/// An attribute's content without the trailing newline.
pub fn read_attr(dir: &Path, attr: &str) -> io::Result<String> {
    let text = fs::read_to_string(dir.join(attr))?;
    Ok(text.trim_end_matches('\n').to_string())
}

/// An attribute parsed as the first whitespace-separated number, as `fscanf("%llu")` would:
/// EINVAL when it is not a number.
pub fn read_u64(dir: &Path, attr: &str) -> io::Result<u64> {
    let text = read_attr(dir, attr)?;
    text.split_whitespace()
        .next()
        .and_then(|w| w.parse().ok())
        .ok_or_else(|| io::Error::from_raw_os_error(libc::EINVAL))
}

/// Writes an attribute (the kernel parses the text).
pub fn write_attr(dir: &Path, attr: &str, value: &str) -> io::Result<()> {
    fs::write(dir.join(attr), value)
}

/// The basename of a symlink's target (`driver` -> `ahci`).
pub fn link_name(path: &Path) -> Option<String> {
    fs::read_link(path).ok().map(|t| file_name(&t))
}

/// The major number `/proc/devices` gives for a driver name (`md`), if any.
pub fn driver_major(driver: &str) -> Option<u32> {
    let text = fs::read_to_string("/proc/devices").ok()?;
    parse_driver_major(&text, driver)
}

fn parse_driver_major(text: &str, driver: &str) -> Option<u32> {
    text.lines().find_map(|line| {
        let mut words = line.split_whitespace();
        let major = words.next()?.parse().ok()?;
        (words.next()? == driver && words.next().is_none()).then_some(major)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dev_numbers_split_like_glibc() {
        // makedev(8, 17) and makedev(259, 65536) in glibc's encoding.
        assert_eq!(
            DevNum::from_raw(0x0811),
            DevNum {
                major: 8,
                minor: 17
            }
        );
        let raw = (259u64 << 8) | (65536u64 << 12);
        assert_eq!(
            DevNum::from_raw(raw),
            DevNum {
                major: 259,
                minor: 65536
            }
        );
        assert_eq!(DevNum { major: 7, minor: 2 }.to_string(), "7:2");
    }

    #[test]
    fn proc_devices_parsing() {
        let text = "Character devices:\n  1 mem\n  4 /dev/vc/0\n\nBlock devices:\n  7 loop\n  9 md\n259 blkext\n";
        assert_eq!(parse_driver_major(text, "md"), Some(9));
        assert_eq!(parse_driver_major(text, "loop"), Some(7));
        assert_eq!(parse_driver_major(text, "sd"), None);
    }

    #[test]
    fn a_disk_is_gone_when_sysfs_says_so() {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-gone-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("device")).unwrap();
        fs::write(dir.join("dev"), "8:0\n").unwrap();
        // a loop device has no SCSI state: there while its directory is
        assert!(!device_gone(&dir, false));
        // a SCSI disk whose state attribute went first (the kernel is deleting it)
        assert!(device_gone(&dir, true));
        for (state, gone) in [
            ("running", false),
            ("blocked", false),
            ("quiesce", false),
            ("cancel", true),
            ("deleted", true),
            ("offline", true),
            ("transport-offline", true),
        ] {
            fs::write(dir.join("device/state"), format!("{state}\n")).unwrap();
            assert_eq!(device_gone(&dir, true), gone, "{state}");
        }
        fs::remove_file(dir.join("dev")).unwrap();
        assert!(
            device_gone(&dir, false),
            "the disk's directory lost its dev"
        );
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn null_device_is_not_a_block_device() {
        assert!(block_dir(DevNum { major: 1, minor: 3 }).is_err());
    }
}
