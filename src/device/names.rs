//! A device's stable name: the udev link in `/dev/disk/by-id/` that leads to it, which names the
//! drive by model and serial and so survives the renumbering of `/dev/sdX` between boots. The
//! hdparm.conf block that `--experiment --keep` prints uses it, as Debian's own examples do.
//!
//! Owns: reading the links of a by-id folder and choosing one. Must not: print, or decide
//! anything beyond which name to offer.

use std::fs;
use std::path::{Path, PathBuf};

/// udev's folder of by-id links.
pub const BY_ID: &str = "/dev/disk/by-id";

/// The by-id link that resolves to `device`, or None (no udev, no link, a partition's link
/// only). Where several do, the one naming the drive as an administrator writes it: ATA or
/// NVMe model and serial before SCSI, USB and the rest, and the WWN and EUI forms last.
pub fn by_id(device: &Path) -> Option<PathBuf> {
    by_id_in(Path::new(BY_ID), device)
}

/// [`by_id`] over any folder of links (the tests make one).
pub fn by_id_in(dir: &Path, device: &Path) -> Option<PathBuf> {
    let target = fs::canonicalize(device).ok()?;
    let mut names: Vec<String> = fs::read_dir(dir)
        .ok()?
        .flatten()
        .filter(|e| fs::canonicalize(e.path()).is_ok_and(|p| p == target))
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort_by_key(|n| (rank(n), n.clone()));
    names.first().map(|n| dir.join(n))
}

/// Lower is preferred.
fn rank(name: &str) -> u8 {
    if name.starts_with("wwn-") || name.starts_with("nvme-eui.") || name.starts_with("nvme-nvme.") {
        4
    } else if name.starts_with("ata-") || name.starts_with("nvme-") {
        0
    } else if name.starts_with("scsi-") || name.starts_with("usb-") {
        1
    } else {
        2
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    #[test]
    fn the_model_and_serial_link_is_chosen() {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-by-id-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(dir.join("dev")).unwrap();
        let disk = dir.join("dev/sdz");
        let other = dir.join("dev/sdy");
        fs::write(&disk, b"").unwrap();
        fs::write(&other, b"").unwrap();
        let links = dir.join("by-id");
        fs::create_dir_all(&links).unwrap();
        symlink("../dev/sdz", links.join("wwn-0x5000c500a1b2c3d4")).unwrap();
        symlink("../dev/sdz", links.join("ata-QEMU_HARDDISK_QM00001")).unwrap();
        symlink("../dev/sdy", links.join("ata-OTHER_DISK_1")).unwrap();
        assert_eq!(
            by_id_in(&links, &disk),
            Some(links.join("ata-QEMU_HARDDISK_QM00001"))
        );
        // a device with no link of its own, and a folder that does not exist
        fs::remove_file(links.join("ata-OTHER_DISK_1")).unwrap();
        assert_eq!(by_id_in(&links, &other), None);
        assert_eq!(by_id_in(&dir.join("none"), &disk), None);
        let _ = fs::remove_dir_all(&dir);
        assert!(rank("nvme-QEMU_NVMe_Ctrl_HRSNVME0001") < rank("nvme-eui.0123"));
    }
}
