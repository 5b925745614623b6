//! Geometry (`-g`) and the starting LBA of a partition, found as hdparm 9.65 finds them
//! (reference §4.6), and the raw-device check that guards sector commands (§6.5).
//!
//! Owns: the order of sources (sysfs `size` and `start`, the md raid1 member offsets,
//! `HDIO_GETGEO_BIG`/`HDIO_GETGEO`), the cylinder recomputation, and the refusal text of the
//! raw-device check. Must not: print (the refusal lines are returned for the caller to print).

use std::io;

use super::{sys, sysfs, Device};

/// Where a device starts on its disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartLba {
    Known(u64),
    /// An md array that is not a raid1 with equal member offsets: no single start.
    Unknown,
}

/// What `-g` prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Geometry {
    pub cylinders: u32,
    pub heads: u32,
    pub sectors_per_track: u32,
    /// Device size in 512-byte sectors.
    pub total_sectors: u64,
    pub start: StartLba,
}

/// Which step failed; hdparm prints ` BLKGETSIZE failed` or ` HDIO_GETGEO failed`.
#[derive(Debug)]
pub enum GeometryError {
    Size(io::Error),
    Geo(io::Error),
}

impl GeometryError {
    /// hdparm's perror label for it (with its leading space).
    pub fn label(&self) -> &'static str {
        match self {
            GeometryError::Size(_) => " BLKGETSIZE failed",
            GeometryError::Geo(_) => " HDIO_GETGEO failed",
        }
    }

    pub fn io_error(&self) -> &io::Error {
        match self {
            GeometryError::Size(e) | GeometryError::Geo(e) => e,
        }
    }
}

impl std::fmt::Display for GeometryError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{}: {}",
            self.label().trim_start(),
            crate::error::strerror(self.io_error())
        )
    }
}

/// The outcome of the raw-device check.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RawCheck {
    /// A whole disk (start 0) or a character device: absolute LBAs are safe.
    Raw,
    /// A RAID device (or unknown start).
    Raid,
    /// A partition starting at this LBA.
    Offset(u64),
}

impl RawCheck {
    /// The lines hdparm prints on stderr when it refuses (without newlines), ending in
    /// `Aborting.`; empty for [`RawCheck::Raw`]. `devname` as given on the command line;
    /// `parent` the whole disk's kernel name as sysfs gives it (`nvme0n1` for `nvme0n1p1`),
    /// when it is known.
    pub fn refusal_lines(&self, devname: &str, lba: u64, parent: Option<&str>) -> Vec<String> {
        match *self {
            RawCheck::Raw => Vec::new(),
            RawCheck::Raid => vec![
                format!(
                    "{devname} is a RAID device: please specify an absolute LBA of a raw member device instead (raid1 only)"
                ),
                "Aborting.".to_string(),
            ],
            RawCheck::Offset(start) => vec![
                format!("Device {devname} has non-zero LBA starting offset of {start}."),
                "Please use an absolute LBA with the /dev/ entry for the raw device, rather than a partition or raid name.".to_string(),
                format!("{devname} is probably a partition of {} (?)", parent_disk(devname, parent)),
                format!(
                    "The absolute LBA of sector {lba} from {devname} should be {}",
                    start.wrapping_add(lba)
                ),
                "Aborting.".to_string(),
            ],
        }
    }
}

/// The whole disk a partition belongs to, as hdparm's line names it (`/dev/sda`): sysfs's
/// parent when known, since hdparm's digit-stripping guess is wrong for every name whose
/// partitions are `p<N>` (`/dev/nvme0n1p` for `/dev/nvme0n1p1`, likewise mmcblk and md). Where
/// the guess is right (`/dev/sda1`) both give the same name, so the line stays hdparm's.
fn parent_disk(devname: &str, parent: Option<&str>) -> String {
    match parent {
        Some(disk) => format!("/dev/{disk}"),
        None => parent_disk_name(devname),
    }
}

/// hdparm's guess at the whole disk: trailing digits stripped (keeping at least 3 characters),
/// or "the full disk" when there were none.
pub fn parent_disk_name(devname: &str) -> String {
    let b = devname.as_bytes();
    let mut end = b.len();
    while end > 3 && b[end - 1].is_ascii_digit() {
        end -= 1;
    }
    if end == b.len() {
        "the full disk".to_string()
    } else {
        devname[..end].to_string()
    }
}

/// An `unsigned long` from the kernel as u64 (a no-op on 64-bit targets).
#[allow(clippy::unnecessary_cast)]
fn ulong(v: libc::c_ulong) -> u64 {
    v as u64
}

/// The md driver's major number, when md is loaded.
fn md_major() -> Option<u32> {
    sysfs::driver_major("md")
}

impl Device {
    /// Whether this node belongs to the md driver (hdparm's `fd_is_raid`).
    pub fn is_raid(&self) -> bool {
        use std::os::unix::fs::MetadataExt;
        let (Some(md), Ok(meta)) = (md_major(), self.file().metadata()) else {
            return false;
        };
        sysfs::DevNum::from_raw(meta.rdev()).major == md
    }

    /// The start of an md raid1 array on its members: all members must agree (hdparm's
    /// `get_raid1_start_lba`). ENODEV when this is not an md array, EINVAL when it has no
    /// single start.
    fn raid1_start(&self) -> io::Result<u64> {
        let enodev = || io::Error::from_raw_os_error(libc::ENODEV);
        let einval = || io::Error::from_raw_os_error(libc::EINVAL);
        let level = self.sysfs_read("md/level").map_err(|_| enodev())?;
        let disks = self.sysfs_u64("md/raid_disks").map_err(|_| enodev())?;
        if level.split_whitespace().next() != Some("raid1") || disks == 0 {
            return Err(einval());
        }
        let md = md_major();
        let mut first: Option<(u64, u64)> = None;
        for member in 0..disks {
            let offset = self
                .sysfs_u64(&format!("md/rd{member}/offset"))
                .unwrap_or(0);
            let dev = self
                .sysfs_read(&format!("md/rd{member}/block/dev"))
                .map_err(|_| einval())?;
            let major: Option<u32> = dev.split(':').next().and_then(|m| m.trim().parse().ok());
            if md.is_some() && major == md {
                return Err(einval()); // an array of arrays
            }
            let start = self
                .sysfs_u64(&format!("md/rd{member}/block/start"))
                .map_err(|_| enodev())?;
            match first {
                None => first = Some((start, offset)),
                Some(f) if f != (start, offset) => return Err(einval()),
                Some(_) => {}
            }
        }
        first.map(|(start, _)| start).ok_or_else(einval)
    }

    /// The start from sysfs or md, without ioctls: `None` when only HDIO_GETGEO can tell.
    fn start_without_ioctl(&self) -> Option<StartLba> {
        if let Ok(start) = self.sysfs_u64("start") {
            // sysfs counts 512-byte units even on 4Kn disks; hdparm divides accordingly.
            let per = (self.current_sector_size() / 512).max(1);
            return Some(StartLba::Known(start / u64::from(per)));
        }
        if let Ok(start) = self.raid1_start() {
            return Some(StartLba::Known(start));
        }
        if self.is_raid() {
            return Some(StartLba::Unknown);
        }
        None
    }

    /// HDIO_GETGEO_BIG first only when sysfs had nothing (a pre-sysfs kernel), else plain
    /// HDIO_GETGEO with BIG as the last try; the error is the last ioctl's.
    fn chs(&self, big_first: bool) -> Result<(u32, u32, u32, u64), GeometryError> {
        // (cylinders, heads, sectors, start) out of either struct.
        let big = |g: sys::HdBigGeometry| {
            (
                g.cylinders,
                g.heads.into(),
                g.sectors.into(),
                ulong(g.start),
            )
        };
        if big_first {
            if let Ok(g) = sys::hdio_getgeo_big(self) {
                return Ok(big(g));
            }
        }
        match sys::hdio_getgeo(self) {
            Ok(g) => Ok((
                g.cylinders.into(),
                g.heads.into(),
                g.sectors.into(),
                ulong(g.start),
            )),
            Err(e) => {
                if !big_first {
                    if let Ok(g) = sys::hdio_getgeo_big(self) {
                        return Ok(big(g));
                    }
                }
                Err(GeometryError::Geo(e))
            }
        }
    }

    /// Geometry as `-g` reports it.
    pub fn geometry(&self) -> Result<Geometry, GeometryError> {
        let total = self.size_sectors().map_err(GeometryError::Size)?;
        let known = self.start_without_ioctl();
        let (mut cyls, heads, sects, geo_start) = self.chs(known.is_none())?;
        // HDIO_GETGEO's cylinder count is 16 bits: recompute it from the size when short.
        if total != 0 && cyls != 0 && heads != 0 && sects != 0 {
            let hs = u64::from(heads) * u64::from(sects);
            if u64::from(cyls) * hs < total {
                cyls = (total / hs) as u32;
            }
        }
        Ok(Geometry {
            cylinders: cyls,
            heads,
            sectors_per_track: sects,
            total_sectors: total,
            start: known.unwrap_or(StartLba::Known(geo_start)),
        })
    }

    /// Where this device starts on its disk.
    pub fn start_lba(&self) -> Result<StartLba, GeometryError> {
        match self.start_without_ioctl() {
            Some(s) => Ok(s),
            None => self
                .chs(true)
                .map(|(_, _, _, start)| StartLba::Known(start)),
        }
    }

    /// hdparm's raw-device check before sector commands: character devices pass; otherwise
    /// the start must be 0. An error means the geometry could not be found (hdparm exits with
    /// that errno: on a loop device, HDIO_GETGEO's ENOTTY).
    pub fn raw_device_check(&self) -> Result<RawCheck, GeometryError> {
        if self.is_char_device() {
            return Ok(RawCheck::Raw);
        }
        Ok(match self.start_lba()? {
            StartLba::Known(0) => RawCheck::Raw,
            StartLba::Unknown => RawCheck::Raid,
            StartLba::Known(_) if self.is_raid() => RawCheck::Raid,
            StartLba::Known(start) => RawCheck::Offset(start),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parent_names() {
        assert_eq!(parent_disk_name("/dev/sda1"), "/dev/sda");
        assert_eq!(parent_disk_name("/dev/sda"), "the full disk");
        // hdparm only strips digits: nvme partitions keep their 'p'.
        assert_eq!(parent_disk_name("/dev/nvme0n1p2"), "/dev/nvme0n1p");
        assert_eq!(parent_disk_name("sd1"), "the full disk");
    }

    #[test]
    fn refusal_text() {
        let lines = RawCheck::Offset(2048).refusal_lines("/dev/sdb1", 10, None);
        assert_eq!(
            lines,
            [
                "Device /dev/sdb1 has non-zero LBA starting offset of 2048.",
                "Please use an absolute LBA with the /dev/ entry for the raw device, rather than a partition or raid name.",
                "/dev/sdb1 is probably a partition of /dev/sdb (?)",
                "The absolute LBA of sector 10 from /dev/sdb1 should be 2058",
                "Aborting.",
            ]
        );
        assert_eq!(
            lines,
            RawCheck::Offset(2048).refusal_lines("/dev/sdb1", 10, Some("sdb"))
        );
        assert!(RawCheck::Raw.refusal_lines("/dev/sda", 0, None).is_empty());
        assert_eq!(RawCheck::Raid.refusal_lines("/dev/md0", 0, None).len(), 2);
    }

    #[test]
    fn refusal_names_the_parent_sysfs_gives() {
        for (part, disk) in [
            ("/dev/nvme0n1p1", "nvme0n1"),
            ("/dev/mmcblk0p2", "mmcblk0"),
            ("/dev/md0p1", "md0"),
        ] {
            let lines = RawCheck::Offset(2048).refusal_lines(part, 0, Some(disk));
            assert_eq!(
                lines[2],
                format!("{part} is probably a partition of /dev/{disk} (?)")
            );
        }
    }

    #[test]
    fn error_labels() {
        let e = GeometryError::Geo(io::Error::from_raw_os_error(libc::ENOTTY));
        assert_eq!(e.label(), " HDIO_GETGEO failed");
        assert_eq!(
            e.to_string(),
            "HDIO_GETGEO failed: Inappropriate ioctl for device"
        );
    }
}
