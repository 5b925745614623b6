//! What kind of thing a device node is, told from `fstat` and sysfs, in words a user reads.
//!
//! Owns: [`DeviceKind`], its detection (which driver sits above the node: libata, legacy IDE,
//! SCSI, a USB bridge, NVMe, virtio-blk, loop, md, ...), and the sentence that explains it
//! ("/dev/nvme0n1 is an NVMe namespace; it has no ATA interface"), with the ATA note for ATA
//! requests and without it for everything else. Must not: send commands to the device;
//! detection only reads sysfs.

use std::fs;
use std::path::{Path, PathBuf};

use super::sysfs;

/// What controls a SCSI device (a `sdX`, `srX` or `sgN` node).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ScsiHost {
    /// libata: a SATA or PATA drive behind a SCSI translation in the kernel (`ahci`,
    /// `ata_piix`, ...). It takes ATA PASS-THROUGH.
    Libata { driver: Option<String> },
    /// USB mass storage (`usb-storage`, `uas`): ATA commands work only through a bridge that
    /// implements SAT.
    Usb {
        driver: Option<String>,
        vendor: u16,
        product: u16,
    },
    /// Anything else: virtio-scsi, SAS/FC HBAs, iSCSI... ATA commands work only if the target
    /// translates them (SAS HBAs with SATA drives usually do).
    Other { driver: Option<String> },
}

/// The kind of a device node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum DeviceKind {
    /// A SCSI block device (`sdX`, `srX`); `scsi_type` is the peripheral type (0 disk, 5 CD/DVD).
    Scsi {
        host: ScsiHost,
        scsi_type: u8,
    },
    /// A SCSI generic node (`/dev/sgN`) for the device `host` controls.
    ScsiGeneric {
        host: ScsiHost,
        scsi_type: u8,
    },
    /// A drive of the old IDE driver (`hdX`, removed from Linux in 5.14).
    LegacyIde,
    /// An NVMe namespace (`nvme0n1`) or controller (`/dev/nvme0`).
    Nvme,
    /// A virtio-blk disk (`vdX`).
    VirtioBlk,
    /// A loop device; `backing_file` as the kernel reports it.
    Loop {
        backing_file: Option<String>,
    },
    /// A software RAID array.
    Md,
    /// Any other block device (device-mapper, zram, mmc, ...), with its kernel name and driver.
    OtherBlock {
        name: String,
        driver: Option<String>,
    },
    /// A character device that is not a SCSI generic node (`/dev/null`).
    CharDevice,
    RegularFile,
    Directory,
    /// A FIFO, socket or something else that is none of the above.
    Other,
}

impl DeviceKind {
    /// Whether ATA commands are worth trying: true for libata, legacy IDE, SCSI and USB devices
    /// (some of which translate ATA PASS-THROUGH, some not); false where no ATA transport can
    /// exist (NVMe, virtio-blk, loop, md, files...).
    pub fn ata_capable(&self) -> bool {
        matches!(
            self,
            DeviceKind::Scsi { .. } | DeviceKind::ScsiGeneric { .. } | DeviceKind::LegacyIde
        )
    }

    /// Whether this is a CD/DVD drive (SCSI peripheral type 5).
    pub fn is_cdrom(&self) -> bool {
        matches!(
            self,
            DeviceKind::Scsi { scsi_type: 5, .. } | DeviceKind::ScsiGeneric { scsi_type: 5, .. }
        )
    }

    /// What the node is, without the ATA note ("/dev/loop0 is a loop device backed by x.img"):
    /// for failures that are not ATA requests (a block ioctl, a sysfs attribute), where "it has
    /// no ATA interface" would explain nothing.
    pub fn describe_plain(&self, path: &Path, partition_of: Option<&str>) -> String {
        match partition_of {
            Some(disk) => format!(
                "{} is a partition of {}, {}",
                path.display(),
                disk,
                self.noun()
            ),
            None => format!("{} is {}", path.display(), self.noun()),
        }
    }

    /// What it is, after "is": "an ATA disk (libata, ahci)".
    pub fn noun(&self) -> String {
        match self {
            DeviceKind::Scsi { host, scsi_type } => scsi_noun(host, *scsi_type, false),
            DeviceKind::ScsiGeneric { host, scsi_type } => scsi_noun(host, *scsi_type, true),
            DeviceKind::LegacyIde => "an IDE drive (legacy ide driver)".to_string(),
            DeviceKind::Nvme => "an NVMe namespace".to_string(),
            DeviceKind::VirtioBlk => "a virtio block device".to_string(),
            DeviceKind::Loop {
                backing_file: Some(f),
            } => format!("a loop device backed by {f}"),
            DeviceKind::Loop { backing_file: None } => "a loop device".to_string(),
            DeviceKind::Md => "a software RAID (md) array".to_string(),
            DeviceKind::OtherBlock {
                name,
                driver: Some(d),
            } => {
                format!("a block device ({name}, driver {d})")
            }
            DeviceKind::OtherBlock { name, driver: None } => {
                let what = if name.starts_with("dm-") {
                    "device-mapper"
                } else {
                    name
                };
                format!("a block device ({what})")
            }
            DeviceKind::CharDevice => "a character device, not a disk".to_string(),
            DeviceKind::RegularFile => "a regular file, not a device".to_string(),
            DeviceKind::Directory => "a directory, not a device".to_string(),
            DeviceKind::Other => "not a disk".to_string(),
        }
    }

    /// What that means for ATA commands, after a semicolon, or "" when nothing needs saying.
    pub fn ata_note(&self) -> &'static str {
        match self {
            DeviceKind::Scsi {
                host: ScsiHost::Libata { .. },
                ..
            }
            | DeviceKind::ScsiGeneric {
                host: ScsiHost::Libata { .. },
                ..
            }
            | DeviceKind::LegacyIde => "",
            DeviceKind::Scsi {
                host: ScsiHost::Usb { .. },
                ..
            }
            | DeviceKind::ScsiGeneric {
                host: ScsiHost::Usb { .. },
                ..
            } => "ATA commands reach the drive only if the USB bridge translates them",
            DeviceKind::Scsi { .. } | DeviceKind::ScsiGeneric { .. } => {
                "ATA commands reach it only if the SCSI target translates them"
            }
            DeviceKind::Md => "ATA commands must go to its member disks",
            // NVMe has an IDENTIFY of its own, but no ATA command set at all: what is missing
            // for FLUSH CACHE or SET FEATURES is the interface, not only the IDENTIFY data.
            DeviceKind::Nvme
            | DeviceKind::VirtioBlk
            | DeviceKind::Loop { .. }
            | DeviceKind::OtherBlock { .. } => "it has no ATA interface",
            DeviceKind::CharDevice
            | DeviceKind::RegularFile
            | DeviceKind::Directory
            | DeviceKind::Other => "",
        }
    }

    /// One sentence for users, for a failed ATA request: "/dev/nvme0n1 is an NVMe namespace;
    /// it has no ATA interface". `partition_of` names the whole disk when the node is a
    /// partition.
    pub fn describe(&self, path: &Path, partition_of: Option<&str>) -> String {
        let mut s = self.describe_plain(path, partition_of);
        let note = self.ata_note();
        if !note.is_empty() {
            s.push_str("; ");
            s.push_str(note);
        }
        s
    }
}

fn scsi_noun(host: &ScsiHost, scsi_type: u8, generic: bool) -> String {
    let what = match scsi_type {
        0 => "disk",
        1 => "tape drive",
        5 => "CD/DVD drive",
        7 => "optical disk",
        0x0E => "disk (RBC)",
        _ => "device",
    };
    let generic = if generic {
        "the SCSI generic node of "
    } else {
        ""
    };
    match host {
        ScsiHost::Libata { driver } => {
            let ata = if scsi_type == 5 { "an ATAPI" } else { "an ATA" };
            match driver {
                Some(d) => format!("{generic}{ata} {what} (libata, {d})"),
                None => format!("{generic}{ata} {what} (libata)"),
            }
        }
        ScsiHost::Usb {
            vendor, product, ..
        } => {
            format!("{generic}a USB storage {what} (USB id {vendor:04x}:{product:04x})")
        }
        ScsiHost::Other { driver: Some(d) } => format!("{generic}a SCSI {what} ({d})"),
        ScsiHost::Other { driver: None } => format!("{generic}a SCSI {what}"),
    }
}

/// What detection found: the kind, the sysfs directory, and the parent disk for a partition.
#[derive(Clone, Debug)]
pub struct Detected {
    pub kind: DeviceKind,
    /// `/sys/block/<disk>[/<part>]` for block devices sysfs knows.
    pub sysfs: Option<PathBuf>,
    /// The kernel name of the whole disk when the node is a partition (`sda` for `sda1`).
    pub partition_of: Option<String>,
}

/// Detects the kind of an open node from its metadata.
pub fn detect(meta: &fs::Metadata) -> Detected {
    use std::os::unix::fs::{FileTypeExt, MetadataExt};
    let ft = meta.file_type();
    let none = |kind| Detected {
        kind,
        sysfs: None,
        partition_of: None,
    };
    if ft.is_dir() {
        return none(DeviceKind::Directory);
    }
    if ft.is_file() {
        return none(DeviceKind::RegularFile);
    }
    let dev = sysfs::DevNum::from_raw(meta.rdev());
    if ft.is_char_device() {
        return none(detect_char(Path::new("/sys"), dev));
    }
    if !ft.is_block_device() {
        return none(DeviceKind::Other);
    }
    let Ok(dir) = sysfs::block_dir(dev) else {
        return none(DeviceKind::OtherBlock {
            name: dev.to_string(),
            driver: None,
        });
    };
    let real = sysfs::canonical(&dir).unwrap_or_else(|| dir.clone());
    let (disk, partition_of) = if real.join("partition").exists() {
        let parent = real
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| real.clone());
        let name = sysfs::file_name(&parent);
        (parent, Some(name))
    } else {
        (real, None)
    };
    Detected {
        kind: detect_block_disk(&disk),
        sysfs: Some(dir),
        partition_of,
    }
}

/// The kind of a whole-disk sysfs directory (canonical `/sys/devices/...` path).
fn detect_block_disk(disk: &Path) -> DeviceKind {
    let name = sysfs::file_name(disk);
    let driver = sysfs::link_name(&disk.join("device/driver"));
    if name.starts_with("loop") {
        let backing_file = sysfs::read_attr(disk, "loop/backing_file").ok();
        return DeviceKind::Loop { backing_file };
    }
    if disk.join("md").is_dir() {
        return DeviceKind::Md;
    }
    if name.starts_with("nvme") {
        return DeviceKind::Nvme;
    }
    if driver.as_deref() == Some("virtio_blk") {
        return DeviceKind::VirtioBlk;
    }
    if is_legacy_ide_name(&name) {
        return DeviceKind::LegacyIde;
    }
    if let Ok(t) = sysfs::read_u64(disk, "device/type") {
        // A SCSI device: the node's `device` link is the scsi_device directory.
        let scsi_dev =
            sysfs::canonical(&disk.join("device")).unwrap_or_else(|| disk.join("device"));
        return DeviceKind::Scsi {
            host: scsi_host(&scsi_dev),
            scsi_type: t as u8,
        };
    }
    DeviceKind::OtherBlock { name, driver }
}

fn is_legacy_ide_name(name: &str) -> bool {
    let b = name.as_bytes();
    b.len() == 3 && b[0] == b'h' && b[1] == b'd' && b[2].is_ascii_lowercase()
}

/// Character devices: SCSI generic nodes are told apart by their sysfs class.
fn detect_char(sys: &Path, dev: sysfs::DevNum) -> DeviceKind {
    let link = sys.join("dev/char").join(dev.to_string());
    let Some(real) = sysfs::canonical(&link) else {
        return DeviceKind::CharDevice;
    };
    let class_parent = real.parent().map(sysfs::file_name).unwrap_or_default();
    if class_parent == "scsi_generic" {
        // .../<h:c:t:l>/scsi_generic/sgN: the scsi_device is two levels up.
        if let Some(scsi_dev) = real.parent().and_then(Path::parent) {
            let scsi_type = sysfs::read_u64(scsi_dev, "type").unwrap_or(0) as u8;
            return DeviceKind::ScsiGeneric {
                host: scsi_host(scsi_dev),
                scsi_type,
            };
        }
    }
    if class_parent == "nvme" || class_parent == "nvme-generic" {
        return DeviceKind::Nvme;
    }
    DeviceKind::CharDevice
}

/// Who drives a SCSI device, from its canonical sysfs path
/// (`/sys/devices/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0`).
fn scsi_host(scsi_dev: &Path) -> ScsiHost {
    let comps: Vec<String> = scsi_dev
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    let host_at = comps.iter().position(|c| is_numbered(c, "host"));
    // The controller is the directory above `hostN` (or above `ataN` for libata).
    let ata_at = comps.iter().position(|c| is_numbered(c, "ata"));
    let controller_at = match (ata_at, host_at) {
        (Some(a), _) => a.checked_sub(1),
        (None, Some(h)) => h.checked_sub(1),
        _ => None,
    };
    let controller: Option<PathBuf> =
        controller_at.map(|i| comps[..=i].iter().collect::<PathBuf>());
    let driver = controller
        .as_ref()
        .and_then(|c| sysfs::link_name(&c.join("driver")));
    if ata_at.is_some() {
        return ScsiHost::Libata { driver };
    }
    // USB: some ancestor has idVendor/idProduct (the usb_device above the interface).
    let mut dir = scsi_dev.to_path_buf();
    while dir.pop() {
        if let (Ok(v), Ok(p)) = (
            sysfs::read_attr(&dir, "idVendor"),
            sysfs::read_attr(&dir, "idProduct"),
        ) {
            let vendor = u16::from_str_radix(v.trim(), 16).unwrap_or(0);
            let product = u16::from_str_radix(p.trim(), 16).unwrap_or(0);
            return ScsiHost::Usb {
                driver,
                vendor,
                product,
            };
        }
        if dir.as_os_str().len() <= "/sys/devices".len() {
            break;
        }
    }
    ScsiHost::Other { driver }
}

/// `host3`, `ata12`: a prefix followed by digits only.
fn is_numbered(component: &str, prefix: &str) -> bool {
    component
        .strip_prefix(prefix)
        .is_some_and(|rest| !rest.is_empty() && rest.bytes().all(|b| b.is_ascii_digit()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sentences() {
        let nvme = DeviceKind::Nvme;
        assert_eq!(
            nvme.describe(Path::new("/dev/nvme0n1"), None),
            "/dev/nvme0n1 is an NVMe namespace; it has no ATA interface"
        );
        assert_eq!(
            nvme.describe_plain(Path::new("/dev/nvme0n1"), None),
            "/dev/nvme0n1 is an NVMe namespace"
        );
        assert!(!nvme.ata_capable());
        let sata = DeviceKind::Scsi {
            host: ScsiHost::Libata {
                driver: Some("ahci".into()),
            },
            scsi_type: 0,
        };
        assert_eq!(
            sata.describe(Path::new("/dev/sda"), None),
            "/dev/sda is an ATA disk (libata, ahci)"
        );
        assert!(sata.ata_capable());
        assert_eq!(
            sata.describe(Path::new("/dev/sda1"), Some("sda")),
            "/dev/sda1 is a partition of sda, an ATA disk (libata, ahci)"
        );
        let cd = DeviceKind::Scsi {
            host: ScsiHost::Libata {
                driver: Some("ata_piix".into()),
            },
            scsi_type: 5,
        };
        assert_eq!(cd.noun(), "an ATAPI CD/DVD drive (libata, ata_piix)");
        assert!(cd.is_cdrom());
        let vscsi = DeviceKind::Scsi {
            host: ScsiHost::Other {
                driver: Some("virtio_scsi".into()),
            },
            scsi_type: 0,
        };
        assert_eq!(
            vscsi.describe(Path::new("/dev/sdc"), None),
            "/dev/sdc is a SCSI disk (virtio_scsi); ATA commands reach it only if the SCSI target translates them"
        );
        let usb = DeviceKind::Scsi {
            host: ScsiHost::Usb {
                driver: Some("usb-storage".into()),
                vendor: 0x152d,
                product: 0x2339,
            },
            scsi_type: 0,
        };
        assert_eq!(usb.noun(), "a USB storage disk (USB id 152d:2339)");
        let lo = DeviceKind::Loop {
            backing_file: Some("/tmp/x.img".into()),
        };
        assert_eq!(
            lo.describe(Path::new("/dev/loop3"), None),
            "/dev/loop3 is a loop device backed by /tmp/x.img; it has no ATA interface"
        );
        assert_eq!(
            DeviceKind::RegularFile.describe(Path::new("/etc/passwd"), None),
            "/etc/passwd is a regular file, not a device"
        );
    }

    #[test]
    fn detects_files_directories_and_null() {
        assert_eq!(
            detect(&fs::metadata("/").unwrap()).kind,
            DeviceKind::Directory
        );
        assert_eq!(
            detect(&fs::metadata("/proc/self/status").unwrap()).kind,
            DeviceKind::RegularFile
        );
        assert_eq!(
            detect(&fs::metadata("/dev/null").unwrap()).kind,
            DeviceKind::CharDevice
        );
    }

    #[test]
    fn numbered_components() {
        assert!(is_numbered("host0", "host"));
        assert!(is_numbered("ata12", "ata"));
        assert!(!is_numbered("ata", "ata"));
        assert!(!is_numbered("ata_piix", "ata"));
        assert!(!is_numbered("hostx", "host"));
        assert!(is_legacy_ide_name("hda"));
        assert!(!is_legacy_ide_name("hda1"));
    }

    #[test]
    fn scsi_host_from_paths() {
        // No sysfs behind these paths: only the path shape decides libata versus other.
        let p = Path::new("/nonexistent/pci0000:00/0000:00:1f.2/ata3/host2/target2:0:0/2:0:0:0");
        assert!(matches!(scsi_host(p), ScsiHost::Libata { driver: None }));
        let p = Path::new("/nonexistent/pci0000:00/0000:00:03.0/virtio2/host0/target0:0:0/0:0:0:0");
        assert!(matches!(scsi_host(p), ScsiHost::Other { driver: None }));
    }
}
