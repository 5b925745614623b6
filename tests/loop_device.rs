//! The device layer against real loop devices (needs root and `losetup`).
//!
//! Each test attaches its own loop device over a file in /tmp and detaches it when done, even
//! when an assertion fails (a guard with `Drop`). Nothing here opens any other device: the ATA
//! tests send their commands to the loop device only, never to the machine's own disk.
//!
//! Without root or losetup the tests print why and pass; with `HDPARM_RS_REQUIRE_ALL=1` (CI)
//! they fail instead.

mod common;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::process::Command;

use hdparm::ata::command::{op, Protocol, TaskFile};
use hdparm::device::{AtaError, AtaOptions, Device, DeviceKind, GeometryError, HdioGet, OpenMode};
use hdparm::error::ErrorClass;

/// A loop device over a sparse file, detached and deleted on drop.
struct LoopDev {
    dev: PathBuf,
    backing: PathBuf,
}

impl LoopDev {
    /// Attaches a new loop device over a fresh file of `bytes` bytes; `extra` goes to losetup
    /// (e.g. `--sector-size 4096`).
    fn new(tag: &str, bytes: u64, extra: &[&str]) -> io::Result<LoopDev> {
        let backing =
            std::env::temp_dir().join(format!("hdparm-rs-loop-{}-{}.img", tag, std::process::id()));
        let f = fs::File::create(&backing)?;
        f.set_len(bytes)?;
        drop(f);
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .args(extra)
            .arg(&backing)
            .output();
        let out = match out {
            Ok(o) if o.status.success() => o,
            Ok(o) => {
                let _ = fs::remove_file(&backing);
                return Err(io::Error::other(format!(
                    "losetup failed: {}",
                    String::from_utf8_lossy(&o.stderr).trim()
                )));
            }
            Err(e) => {
                let _ = fs::remove_file(&backing);
                return Err(e);
            }
        };
        let dev = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        Ok(LoopDev { dev, backing })
    }

    fn open(&self) -> Device {
        Device::open(&self.dev, OpenMode::default()).expect("open the loop device")
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = fs::remove_file(&self.backing);
    }
}

fn is_root() -> bool {
    fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("Uid:"))
                .map(|l| l.split_whitespace().nth(2) == Some("0"))
        })
        .unwrap_or(false)
}

fn have_losetup() -> bool {
    Command::new("losetup")
        .arg("--version")
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false)
}

/// A loop device for a test, or `None` (after saying why) when the machine cannot make one.
/// Under `HDPARM_RS_REQUIRE_ALL=1` a missing component is a failure.
fn loop_dev(tag: &str, bytes: u64, extra: &[&str]) -> Option<LoopDev> {
    let why = if !is_root() {
        Some("not running as root".to_string())
    } else if !have_losetup() {
        Some("losetup is not installed".to_string())
    } else {
        match LoopDev::new(tag, bytes, extra) {
            Ok(l) => return Some(l),
            Err(e) => Some(format!("cannot attach a loop device: {e}")),
        }
    };
    common::skip(&format!("loop device test {tag}"), &why.unwrap_or_default());
    None
}

const MIB: u64 = 1024 * 1024;

#[test]
fn sizes_and_sector_sizes() {
    let Some(lo) = loop_dev("sizes", 64 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    assert_eq!(d.size_bytes().unwrap(), 64 * MIB);
    assert_eq!(d.size_sectors().unwrap(), 64 * MIB / 512);
    assert_eq!(d.logical_sector_size().unwrap(), 512);
    assert_eq!(d.physical_sector_size().unwrap(), 512);
    assert_eq!(d.current_sector_size(), 512);
}

#[test]
fn sector_size_4096() {
    let Some(lo) = loop_dev("4k", 16 * MIB, &["--sector-size", "4096"]) else {
        return;
    };
    let d = lo.open();
    assert_eq!(d.logical_sector_size().unwrap(), 4096);
    // The 512-byte sector count does not depend on the logical sector size.
    assert_eq!(d.size_sectors().unwrap(), 16 * MIB / 512);
}

#[test]
fn readahead_get_and_set() {
    let Some(lo) = loop_dev("ra", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    let before = d.readahead().unwrap();
    let want = if before == 64 { 128 } else { 64 };
    d.set_readahead(want).unwrap();
    assert_eq!(d.readahead().unwrap(), want);
    // A second open sees the same setting: it belongs to the device, not the fd.
    assert_eq!(lo.open().readahead().unwrap(), want);
}

#[test]
fn readonly_get_and_set() {
    let Some(lo) = loop_dev("ro", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    assert_eq!(d.readonly().unwrap(), 0);
    d.set_readonly(1).unwrap();
    assert_eq!(d.readonly().unwrap(), 1);
    assert_eq!(
        fs::read_to_string(
            Path::new("/sys/block")
                .join(lo.dev.file_name().unwrap())
                .join("ro")
        )
        .unwrap()
        .trim(),
        "1"
    );
    d.set_readonly(0).unwrap();
    assert_eq!(d.readonly().unwrap(), 0);
}

#[test]
fn flush_and_reread() {
    let Some(lo) = loop_dev("flush", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    d.flush_buffers().expect("BLKFLSBUF works on loop devices");
    // Without partition scanning the kernel refuses BLKRRPART with EINVAL (hdparm -z prints
    // " BLKRRPART failed: Invalid argument").
    let e = d.reread_partitions().unwrap_err();
    assert_eq!(e.raw_os_error(), Some(libc::EINVAL));
}

#[test]
fn geometry_is_not_available() {
    let Some(lo) = loop_dev("geo", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    match d.geometry() {
        Err(GeometryError::Geo(e)) => assert_eq!(e.raw_os_error(), Some(libc::ENOTTY), "{e}"),
        other => panic!("expected HDIO_GETGEO to fail with ENOTTY, got {other:?}"),
    }
    // The raw-device check needs the start and fails the same way (hdparm exits 25 here).
    let e = d.raw_device_check().unwrap_err();
    assert_eq!(e.label(), " HDIO_GETGEO failed");
}

#[test]
fn kind_is_loop() {
    let Some(lo) = loop_dev("kind", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    match d.kind() {
        DeviceKind::Loop { backing_file } => {
            let bf = backing_file.as_deref().unwrap_or("");
            assert!(bf.contains("hdparm-rs-loop-kind"), "backing file {bf:?}");
        }
        other => panic!("expected a loop device, got {other:?}"),
    }
    assert!(!d.kind().ata_capable());
    assert!(d.partition_of().is_none());
    let s = d.describe();
    assert!(
        s.starts_with(&format!("{} is a loop device backed by ", lo.dev.display())),
        "{s}"
    );
    assert!(s.ends_with("; it has no ATA interface"), "{s}");
    assert_eq!(
        d.sysfs_dir().unwrap(),
        Path::new("/sys/block").join(lo.dev.file_name().unwrap())
    );
    assert_eq!(d.sysfs_u64("size").unwrap(), 8 * MIB / 512);
}

#[test]
fn legacy_hdio_ioctls_are_refused() {
    let Some(lo) = loop_dev("hdio", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    assert!(d.hdio_get(HdioGet::Io32Bit).is_err());
    assert!(d.hdio_get(HdioGet::MultCount).is_err());
    assert!(d.hdio_identity().is_err());
}

#[test]
fn ata_commands_are_refused_as_not_applicable() {
    let Some(lo) = loop_dev("ata", 8 * MIB, &[]) else {
        return;
    };
    let d = lo.open();
    let mut trace = Vec::new();
    let err = {
        let mut opts = AtaOptions {
            trace: Some(&mut trace),
            ..Default::default()
        };
        d.identify(&mut opts).unwrap_err()
    };
    assert!(
        matches!(err, AtaError::Unsupported { .. } | AtaError::NotAta { .. }),
        "{err:?}"
    );
    assert_eq!(err.class(), ErrorClass::NotApplicable);
    let text = String::from_utf8(trace).unwrap();
    // The same CDB hdparm sends, and (loop answers EINVAL) hdparm's legacy fallback.
    assert!(
        text.contains("outgoing cdb:  85 08 0e 00 00 00 01 00 00 00 00 00 00 40 ec 00"),
        "{text}"
    );
    assert!(text.contains("Trying legacy HDIO_DRIVE_CMD"), "{text}");

    // A non-data command through the hdparm-style helper: the same verdict, args untouched.
    let mut args = [op::CHECKPOWERMODE1, 0, 0, 0];
    let e = d
        .drive_cmd(&mut args, &mut [], &mut AtaOptions::default())
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::NotApplicable, "{e}");
    assert_eq!(args, [op::CHECKPOWERMODE1, 0, 0, 0]);

    // A sector command takes the taskfile path and is refused too.
    let tf = TaskFile::sector_command(op::READ_PIO, 0, 1, Protocol::PioIn, false);
    let mut buf = [0u8; 512];
    let e = d
        .ata_command(&tf, &mut buf, &mut AtaOptions::default())
        .unwrap_err();
    assert_eq!(e.class(), ErrorClass::NotApplicable, "{e}");
    assert!(
        e.to_string()
            .starts_with("ATA commands are not supported on this device"),
        "{e}"
    );
}
