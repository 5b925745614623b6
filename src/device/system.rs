//! What `--apply` asks of the system besides the drives: the configuration file, the power
//! supply, udev's properties of a disk, the disks present, and where records go.
//!
//! Each answer is the one Debian's scripts get from the same source (`on_ac_power`,
//! `udevadm info`, `readlink -m`), read from sysfs and udev's database directly.
//!
//! What this file must not do: decide anything; `config/` and `exec/modes/apply.rs` do.

use std::io;
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};

/// The configuration file's bytes (`config::text_of` reads them as Debian's scripts do).
pub fn read_config(path: &Path) -> io::Result<Vec<u8>> {
    std::fs::read(path)
}

/// The device number of a block device (following links: a by-id name is its disk's), or None
/// for anything else.
pub fn block_device_number(device: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(device).ok()?;
    meta.file_type().is_block_device().then(|| meta.rdev())
}

/// The kernel's name of a block device (`sda`, `nvme0n1`: what node_exporter labels its disk
/// series with, and /sys/block's entry), found by its device number, so that a by-id link, a
/// node of another name and the kernel's own node give the same answer. None for a path that
/// is no block device.
pub fn kernel_name(device: &Path) -> Option<String> {
    let rdev = block_device_number(device)?;
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let link = std::fs::read_link(format!("/sys/dev/block/{major}:{minor}")).ok()?;
    Some(link.file_name()?.to_string_lossy().into_owned())
}

/// Whether the machine runs on battery, as `on_ac_power` answers (exit 1): a mains supply
/// exists and none is online, or no mains supply exists and a battery discharges. No supply at
/// all (a server, a VM) is AC.
pub fn on_battery() -> bool {
    let Ok(entries) = std::fs::read_dir("/sys/class/power_supply") else {
        return false;
    };
    let mut mains = 0;
    let mut mains_online = 0;
    let mut discharging = false;
    for entry in entries.flatten() {
        let read = |name: &str| {
            std::fs::read_to_string(entry.path().join(name))
                .map(|s| s.trim().to_string())
                .unwrap_or_default()
        };
        match read("type").as_str() {
            "Mains" => {
                mains += 1;
                if read("online") == "1" {
                    mains_online += 1;
                }
            }
            "Battery" => discharging |= read("status") == "Discharging",
            _ => {}
        }
    }
    if mains > 0 {
        mains_online == 0
    } else {
        discharging
    }
}

/// One property of a block device from udev's database (`udevadm info -q property`), e.g.
/// `ID_PATH` or `ID_ATA_FEATURE_SET_APM`.
pub fn udev_property(device: &Path, key: &str) -> Option<String> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(device).ok()?;
    if !meta.file_type().is_block_device() {
        return None;
    }
    let rdev = meta.rdev();
    let (major, minor) = (libc::major(rdev), libc::minor(rdev));
    let data = std::fs::read_to_string(format!("/run/udev/data/b{major}:{minor}")).ok()?;
    let prefix = format!("E:{key}=");
    data.lines()
        .find_map(|line| line.strip_prefix(&prefix).map(str::to_string))
}

/// `[ -h NAME ] && readlink -m NAME`: the target of a symlink with every link resolved, or None
/// when NAME is not a symlink.
pub fn resolve_symlink(name: &str) -> Option<String> {
    let path = Path::new(name);
    let meta = std::fs::symlink_metadata(path).ok()?;
    if !meta.file_type().is_symlink() {
        return None;
    }
    let resolved = std::fs::canonicalize(path).ok().or_else(|| {
        // A dangling link: readlink -m still answers with the joined target.
        let target = std::fs::read_link(path).ok()?;
        Some(path.parent().unwrap_or(Path::new("/")).join(target))
    })?;
    Some(resolved.display().to_string())
}

/// The `/dev/disk/by-id/` name of a device, when udev made one: a block in hdparm.conf under
/// that name follows the disk when its `sdX` letter changes at the next boot.
pub fn by_id_name(device: &Path) -> Option<String> {
    by_id_name_in(Path::new("/dev/disk/by-id"), device)
}

/// [`by_id_name`] over a given directory. Of several names for one disk, the model-and-serial
/// names (`ata-`, `nvme-`, `scsi-`, `usb-`) come before the `wwn-` and EUI ones a person cannot
/// read, then by name, so that the choice is the same on every run.
pub fn by_id_name_in(dir: &Path, device: &Path) -> Option<String> {
    let target = std::fs::canonicalize(device).ok()?;
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| std::fs::canonicalize(e.path()).is_ok_and(|t| t == target))
        .filter_map(|e| e.file_name().to_str().map(str::to_string))
        .collect();
    let opaque =
        |n: &str| n.starts_with("wwn-") || n.contains("eui.") || n.starts_with("nvme-nvme.");
    names.sort_by(|a, b| (opaque(a), a).cmp(&(opaque(b), b)));
    names.first().map(|n| dir.join(n).display().to_string())
}

/// Whether the kernel was booted with this word on its command line (`nohdparm`).
pub fn kernel_cmdline_has(word: &str) -> bool {
    std::fs::read_to_string("/proc/cmdline")
        .is_ok_and(|line| line.split_whitespace().any(|w| w == word))
}

/// Whether an md array is resyncing, repairing, recovering or checking (`/proc/mdstat`), when
/// Debian's udev hook leaves the disks alone.
pub fn raid_is_busy() -> bool {
    std::fs::read_to_string("/proc/mdstat").is_ok_and(|text| {
        let text = text.to_ascii_lowercase();
        ["resync", "repair", "recover", "check"]
            .iter()
            .any(|w| text.contains(w))
    })
}

/// Whether the path is a block device (Ok(false): it is something else), following links.
pub fn stat_block_device(path: &Path) -> io::Result<bool> {
    std::fs::metadata(path).map(|m| m.file_type().is_block_device())
}

/// Whether the path is a block device.
pub fn is_block_device(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|m| m.file_type().is_block_device())
}

/// One sysfs attribute of a disk (`/sys/block/NAME/ATTR`), trimmed; empty when absent.
pub fn block_attribute(device: &Path, attribute: &str) -> String {
    let Some(name) = device.file_name() else {
        return String::new();
    };
    std::fs::read_to_string(Path::new("/sys/block").join(name).join(attribute))
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

/// The devices named on the command line, or, when none is, every disk present.
pub fn named_or_present(named: &[std::ffi::OsString]) -> Vec<String> {
    if named.is_empty() {
        present_disks()
    } else {
        named
            .iter()
            .map(|d| d.to_string_lossy().into_owned())
            .collect()
    }
}

/// The disks present that our udev rule covers (`sd*`, `hd*`, `nvme*n*`), as /dev names.
pub fn present_disks() -> Vec<String> {
    disks_where(|name| {
        name.starts_with("sd")
            || name.starts_with("hd")
            || name
                .strip_prefix("nvme")
                .is_some_and(|rest| rest.contains('n'))
    })
}

/// The disks Debian's udev rule covers (`KERNEL=="[sh]d[a-z]"`) that are present, as /dev names.
pub fn present_udev_disks() -> Vec<String> {
    disks_where(|name| {
        let b = name.as_bytes();
        b.len() == 3 && (b[0] == b's' || b[0] == b'h') && b[1] == b'd' && b[2].is_ascii_lowercase()
    })
}

/// The entries of /sys/block (whole disks only) whose names pass `keep`, as sorted /dev names.
fn disks_where(keep: impl Fn(&str) -> bool) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/sys/block") else {
        return Vec::new();
    };
    let mut disks: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| keep(name))
        .map(|name| format!("/dev/{name}"))
        .collect();
    disks.sort();
    disks
}

/// Where `--apply` records what it did: `$HDPARM_RS_RECORD_DIR`, or `/run/hdparm`.
pub fn record_dir() -> PathBuf {
    std::env::var_os("HDPARM_RS_RECORD_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/run/hdparm"))
}

/// The record `--apply` wrote for NAME (`DIR/NAME.json`), or None when there is none.
pub fn read_record(dir: &Path, name: &str) -> io::Result<Option<Vec<u8>>> {
    match std::fs::read(dir.join(format!("{name}.json"))) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Writes one record (`DIR/NAME.json`, DIR made if missing) through the one output writer
/// (`files::write_output`: a planted link is not followed, a reader never sees half a record).
pub fn write_record(dir: &Path, name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(format!("{name}.json"));
    super::files::write_output(&path, bytes)?;
    Ok(path)
}

/// The negotiated SATA link speed of a libata disk, in Gbit/s: the disk's sysfs device path
/// runs through its port (`.../ata3/host2/...`), whose link says `6.0 Gbps`.
pub fn sata_link_speed_gbps(device: &Path) -> Option<f64> {
    ata_link_gbps(device, "sata_spd")
}

/// The speed limit of the disk's SATA port (`hw_sata_spd_limit`), in Gbit/s.
pub fn sata_port_limit_gbps(device: &Path) -> Option<f64> {
    ata_link_gbps(device, "hw_sata_spd_limit")
}

fn ata_link_gbps(device: &Path, attribute: &str) -> Option<f64> {
    let name = device.file_name()?;
    let real = std::fs::canonicalize(Path::new("/sys/block").join(name).join("device")).ok()?;
    let port = real.components().find_map(|c| {
        let part = c.as_os_str().to_string_lossy();
        part.strip_prefix("ata")
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
            .map(str::to_string)
    })?;
    let speed =
        std::fs::read_to_string(format!("/sys/class/ata_link/link{port}/{attribute}")).ok()?;
    speed.split_whitespace().next()?.parse().ok()
}

/// The md arrays that hold the disk or one of its partitions (`holders/md*` in sysfs).
pub fn raid_arrays(device: &Path) -> Vec<String> {
    let Some(name) = device.file_name() else {
        return Vec::new();
    };
    let disk = Path::new("/sys/block").join(name);
    let mut places = vec![disk.join("holders")];
    if let Ok(entries) = std::fs::read_dir(&disk) {
        for entry in entries.flatten() {
            if entry.path().join("partition").exists() {
                places.push(entry.path().join("holders"));
            }
        }
    }
    let mut arrays: Vec<String> = places
        .iter()
        .filter_map(|p| std::fs::read_dir(p).ok())
        .flat_map(|entries| entries.flatten())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with("md"))
        .collect();
    arrays.sort();
    arrays.dedup();
    arrays
}

/// A writer of its own on this process's stderr, for a thread that must write while `main()`
/// holds `std::io::stderr()`'s lock (see [`writer_sharing`]); a sink when there is none.
pub fn own_stderr() -> Box<dyn std::io::Write + Send> {
    use std::os::fd::AsFd;
    match writer_sharing(std::io::stderr().as_fd()) {
        Ok(f) => Box::new(f),
        Err(_) => Box::new(std::io::sink()),
    }
}

/// A second descriptor for the open file behind `fd` (dup, close-on-exec): the same open file
/// description, so both write at one shared offset. A file reopened through
/// `/proc/self/fd/N` would be a new description with an offset of its own, and in a
/// redirected stderr file (`2> log`, not appending) the run's next line would overwrite what
/// it wrote.
pub fn writer_sharing(fd: std::os::fd::BorrowedFd<'_>) -> std::io::Result<std::fs::File> {
    fd.try_clone_to_owned().map(std::fs::File::from)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;
    use std::os::fd::AsFd;

    #[test]
    fn the_by_id_name_is_the_readable_link_to_the_same_device() {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-by-id-{}", std::process::id()));
        let links = dir.join("by-id");
        std::fs::create_dir_all(&links).unwrap();
        let (disk, other) = (dir.join("sdb"), dir.join("sdc"));
        std::fs::write(&disk, b"").unwrap();
        std::fs::write(&other, b"").unwrap();
        let link = |name: &str, to: &Path| std::os::unix::fs::symlink(to, links.join(name));
        link("wwn-0x5000c500a1b2c3d4", &disk).unwrap();
        link("ata-QEMU_HARDDISK_QM00002", &disk).unwrap();
        link("ata-QEMU_HARDDISK_QM00003", &other).unwrap();
        assert_eq!(
            by_id_name_in(&links, &disk),
            Some(
                links
                    .join("ata-QEMU_HARDDISK_QM00002")
                    .display()
                    .to_string()
            )
        );
        assert_eq!(by_id_name_in(&links, &dir.join("sdd")), None);
        std::fs::write(dir.join("sdd"), b"").unwrap();
        assert_eq!(by_id_name_in(&links, &dir.join("sdd")), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// `hdparm --security-erase ... 2> log`: the shell opens the log for writing (not
    /// appending), the run writes through fd 2 and the erase's watcher through its own
    /// descriptor. Its "cannot be stopped" line must survive the run's next line (issue 18:
    /// a descriptor reopened with O_APPEND had an offset of its own, which the run's next write
    /// overwrote).
    #[test]
    fn a_writer_of_its_own_shares_the_offset_of_a_redirected_stderr() -> std::io::Result<()> {
        let path =
            std::env::temp_dir().join(format!("hdparm-rs-own-stderr-{}", std::process::id()));
        let mut stderr = std::fs::File::create(&path)?;
        stderr.write_all(b"before the erase\n")?;
        let mut watcher = writer_sharing(stderr.as_fd())?;
        watcher.write_all(b"the erase cannot be stopped\n")?;
        stderr.write_all(b"after the erase\n")?;
        drop((stderr, watcher));
        let text = std::fs::read_to_string(&path)?;
        std::fs::remove_file(&path)?;
        assert_eq!(
            text,
            "before the erase\nthe erase cannot be stopped\nafter the erase\n"
        );
        Ok(())
    }
}
