//! Whether a drive is in use by this system: one of its partitions (or the disk itself) is
//! mounted, used as swap, or held by md, dm or LVM, or the kernel refuses to let it be opened
//! exclusively. hdparm checks none of this before a destructive command; we refuse such a
//! drive (DIFFERENCES.md, "in use").
//!
//! Owns: finding the whole disk behind a node (a partition, or a SCSI generic node; the lock of
//! `device::lock` is taken on it too), reading
//! `/proc/self/mountinfo`, `/proc/swaps` and sysfs `holders/`, and the `O_EXCL` probe. The
//! answer is one sentence naming the first user found. Must not: print, or decide what is
//! destructive (the executor does).

use super::sysfs::{self, DevNum};
use std::fs::{self, OpenOptions};

use std::os::unix::fs::{FileTypeExt, MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

/// What uses the drive behind `path`, as a sentence fragment ("/dev/sdb1 is mounted on
/// /home"), or None when nothing does (or the node is not a block device we can place: a
/// regular file, a directory).
pub fn in_use(path: &Path) -> Option<String> {
    let disk = whole_disk(path)?;
    let members = members(&disk.sysfs);
    let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
    for (name, dev) in &members {
        if let Some(point) = mounted_on(&mounts, *dev) {
            return Some(format!("/dev/{name} is mounted on {point}"));
        }
    }
    let swaps = fs::read_to_string("/proc/swaps").unwrap_or_default();
    for (name, dev) in &members {
        if swap_devices(&swaps).contains(dev) {
            return Some(format!("/dev/{name} is in use as swap"));
        }
    }
    for (name, _) in &members {
        let dir = if *name == disk.name {
            disk.sysfs.clone()
        } else {
            disk.sysfs.join(name)
        };
        if let Some(holder) = first_holder(&dir) {
            return Some(format!("/dev/{name} is held by {holder}"));
        }
    }
    // What sysfs does not show (a program holding the disk open exclusively, a file system
    // mounted in another mount namespace) shows as EBUSY here. Our own descriptor on the
    // device is not exclusive, so it does not count.
    let node = disk_node(&disk, path);
    let exclusive = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_EXCL | libc::O_NONBLOCK)
        .open(&node);
    match exclusive {
        Err(e) if e.raw_os_error() == Some(libc::EBUSY) => Some(format!(
            "{} is in use (the kernel refuses an exclusive open: a mount, a swap area, or a program holds it)",
            node.display()
        )),
        _ => None,
    }
}

/// The node of the whole disk behind `path` (`/dev/sdb` for `/dev/sdb1` or the SCSI generic
/// node `/dev/sg1`), or None when `path` is not a block device we can place (a regular file).
pub fn whole_disk_node(path: &Path) -> Option<PathBuf> {
    let disk = whole_disk(path)?;
    Some(disk_node(&disk, path))
}

/// `/dev/<disk>`, or `path` itself where udev named the disk otherwise.
fn disk_node(disk: &Disk, path: &Path) -> PathBuf {
    let node = Path::new("/dev").join(&disk.name);
    if node.exists() {
        node
    } else {
        path.to_path_buf()
    }
}

/// The whole disk behind a node: its name and `/sys/block/<disk>` directory.
struct Disk {
    name: String,
    sysfs: PathBuf,
}

fn whole_disk(path: &Path) -> Option<Disk> {
    let meta = fs::metadata(path).ok()?;
    let dir = if meta.file_type().is_block_device() {
        sysfs::block_dir(DevNum::from_raw(meta.rdev())).ok()?
    } else if meta.file_type().is_char_device() {
        // A SCSI generic node: the disk of the same SCSI device, if it has one.
        let dev = DevNum::from_raw(meta.rdev());
        let blocks = Path::new("/sys/dev/char")
            .join(dev.to_string())
            .join("device/block");
        let name = fs::read_dir(blocks).ok()?.flatten().next()?.file_name();
        Path::new("/sys/block").join(name)
    } else {
        return None;
    };
    let dir = if dir.join("partition").exists() {
        dir.parent()?.to_path_buf()
    } else {
        dir
    };
    Some(Disk {
        name: sysfs::file_name(&dir),
        sysfs: dir,
    })
}

/// The disk and its partitions, with their device numbers, disk first.
fn members(disk: &Path) -> Vec<(String, DevNum)> {
    let mut found = Vec::new();
    if let Some(dev) = dev_attr(disk) {
        found.push((sysfs::file_name(disk), dev));
    }
    let mut parts: Vec<(String, DevNum)> = fs::read_dir(disk)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.join("partition").exists())
        .filter_map(|p| Some((sysfs::file_name(&p), dev_attr(&p)?)))
        .collect();
    parts.sort_by(|a, b| a.0.cmp(&b.0));
    found.extend(parts);
    found
}

fn dev_attr(dir: &Path) -> Option<DevNum> {
    parse_devnum(sysfs::read_attr(dir, "dev").ok()?.trim())
}

fn parse_devnum(text: &str) -> Option<DevNum> {
    let (major, minor) = text.split_once(':')?;
    Some(DevNum {
        major: major.parse().ok()?,
        minor: minor.parse().ok()?,
    })
}

/// Where `dev` is mounted, from mountinfo's lines ("36 35 8:1 / /boot rw ..."): the third
/// field is the device number, the fifth the mount point (octal escapes kept as the kernel
/// writes them).
fn mounted_on(mountinfo: &str, dev: DevNum) -> Option<String> {
    mountinfo.lines().find_map(|line| {
        let mut fields = line.split_whitespace();
        let number = parse_devnum(fields.nth(2)?)?;
        let point = fields.nth(1)?;
        (number == dev).then(|| point.to_string())
    })
}

/// The device numbers of the swap partitions in `/proc/swaps` (a swap file's device is its
/// file system's, which mountinfo covers).
fn swap_devices(swaps: &str) -> Vec<DevNum> {
    swaps
        .lines()
        .skip(1)
        .filter_map(|line| line.split_whitespace().next())
        .filter_map(|name| fs::metadata(name).ok())
        .filter(|m| m.file_type().is_block_device())
        .map(|m| DevNum::from_raw(m.rdev()))
        .collect()
}

/// The first holder of a disk or partition (`holders/dm-0`), named as LVM or md names it
/// where sysfs says (`dm/name`, `md/..`).
fn first_holder(dir: &Path) -> Option<String> {
    let mut holders: Vec<PathBuf> = fs::read_dir(dir.join("holders"))
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    holders.sort();
    let holder = holders.first()?;
    let name = sysfs::file_name(holder);
    let mapped = sysfs::read_attr(holder, "dm/name")
        .ok()
        .map(|n| n.trim().to_string());
    Some(match mapped {
        Some(mapped) if !mapped.is_empty() => {
            format!("/dev/{name} (device-mapper {mapped}: LVM, dm-crypt or similar)")
        }
        _ if name.starts_with("md") => format!("/dev/{name} (an md RAID array)"),
        _ => format!("/dev/{name}"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mountinfo_lines_give_the_mount_point_of_a_device_number() {
        let text = "22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw\n\
                    40 22 7:1 / /mnt/test\\040dir rw - ext4 /dev/loop0p1 rw\n";
        let loop_part = DevNum { major: 7, minor: 1 };
        assert_eq!(
            mounted_on(text, loop_part).as_deref(),
            Some("/mnt/test\\040dir")
        );
        assert_eq!(mounted_on(text, DevNum { major: 7, minor: 0 }), None);
    }

    #[test]
    fn device_numbers_parse_as_sysfs_writes_them() {
        assert_eq!(
            parse_devnum("259:3"),
            Some(DevNum {
                major: 259,
                minor: 3
            })
        );
        assert_eq!(parse_devnum("259"), None);
        assert_eq!(parse_devnum("a:b"), None);
    }

    #[test]
    fn a_regular_file_is_not_placed() -> std::io::Result<()> {
        let file = std::env::temp_dir().join(format!("hdparm-rs-usage-{}", std::process::id()));
        fs::write(&file, b"x")?;
        let answer = in_use(&file);
        fs::remove_file(&file)?;
        assert_eq!(answer, None);
        Ok(())
    }
}
