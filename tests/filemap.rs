//! `--fibmap` and `--fallocate` through the binary, on an ext4 file system in a partition of a
//! loop device (root, losetup, partx, mkfs.ext4 and mount needed), and against the reference
//! hdparm where it can answer.
//!
//! The map is proven by reading the sectors it names back from the loop device and comparing
//! them with the file. Nothing here maps a file of the machine's own file system (hdparm would
//! open its disk): the files are in the loop device's file system, or on tmpfs, which has no
//! block device at all.
//!
//! hdparm 9.65 cannot map a file in a loop device's partition: its sysfs lookup skips a disk
//! whose major differs from the partition's (loop 7, partitions blkext 259), then falls back to
//! HDIO_GETGEO, which loop lacks (DIFFERENCES.md, "filemap"). So the rows are compared with
//! the LBAs read back, and the reference is compared where it answers.

mod common;

use std::fs;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// A loop device with one MBR partition at LBA 2048, ext4 in it, mounted; all undone on drop.
struct Ext4OnLoop {
    dev: String,
    backing: PathBuf,
    mnt: PathBuf,
}

fn run(cmd: &str, args: &[&str]) -> Option<Output> {
    let out = Command::new(cmd).args(args).output().ok()?;
    out.status.success().then_some(out)
}

impl Ext4OnLoop {
    fn new(tag: &str) -> Result<Ext4OnLoop, String> {
        let pid = std::process::id();
        let backing = std::env::temp_dir().join(format!("hdparm-rs-fibmap-{tag}-{pid}.img"));
        let mnt = std::env::temp_dir().join(format!("hdparm-rs-fibmap-{tag}-{pid}.mnt"));
        let size: u64 = 64 << 20;
        let mut mbr = vec![0u8; 512];
        let start: u32 = 2048;
        let sectors = (size / 512) as u32 - start;
        mbr[0x1BE + 4] = 0x83;
        mbr[0x1BE + 8..0x1BE + 12].copy_from_slice(&start.to_le_bytes());
        mbr[0x1BE + 12..0x1BE + 16].copy_from_slice(&sectors.to_le_bytes());
        mbr[510] = 0x55;
        mbr[511] = 0xAA;
        fs::write(&backing, &mbr).map_err(|e| e.to_string())?;
        fs::OpenOptions::new()
            .write(true)
            .open(&backing)
            .and_then(|f| f.set_len(size))
            .map_err(|e| e.to_string())?;
        let b = backing.to_string_lossy().into_owned();
        let Some(out) = run("losetup", &["-f", "--show", "-P", &b]) else {
            let _ = fs::remove_file(&backing);
            return Err("losetup -P failed".into());
        };
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        let mut this = Ext4OnLoop { dev, backing, mnt };
        // Some kernels do not scan the table of a loop device: add the partition by hand.
        if !Path::new(&this.part()).exists() {
            run("partx", &["-a", &this.dev]);
        }
        fs::create_dir_all(&this.mnt).map_err(|e| e.to_string())?;
        let part = this.part();
        let mnt = this.mnt.to_string_lossy().into_owned();
        if run("mkfs.ext4", &["-q", "-F", "-b", "1024", &part]).is_none() {
            return Err("mkfs.ext4 failed".into());
        }
        if run("mount", &[&part, &mnt]).is_none() {
            this.mnt = PathBuf::new();
            return Err("mount failed".into());
        }
        Ok(this)
    }

    fn part(&self) -> String {
        format!("{}p1", self.dev)
    }

    /// Reads `count` sectors from LBA `lba` of the whole loop device.
    fn sectors(&self, lba: u64, count: u64) -> Vec<u8> {
        let mut f = fs::File::open(&self.dev).unwrap();
        f.seek(SeekFrom::Start(lba * 512)).unwrap();
        let mut buf = vec![0u8; (count * 512) as usize];
        f.read_exact(&mut buf).unwrap();
        buf
    }
}

impl Drop for Ext4OnLoop {
    fn drop(&mut self) {
        if !self.mnt.as_os_str().is_empty() {
            run("umount", &[&self.mnt.to_string_lossy()]);
            let _ = fs::remove_dir(&self.mnt);
        }
        run("losetup", &["-d", &self.dev]);
        let _ = fs::remove_file(&self.backing);
    }
}

fn setup(test: &str) -> Option<Ext4OnLoop> {
    if !common::is_root() {
        common::skip(test, "needs root (loop devices, mount)");
        return None;
    }
    match Ext4OnLoop::new(test) {
        Ok(l) => Some(l),
        Err(why) => {
            common::skip(test, &format!("no ext4 over a loop partition: {why}"));
            None
        }
    }
}

fn ours(args: &[&str]) -> Output {
    Command::new(common::our_hdparm())
        .args(args)
        .output()
        .unwrap()
}

/// One row of a `--fibmap` table: (byte offset, begin LBA, end LBA, sectors), None for `-`.
type Row = (u64, Option<u64>, Option<u64>, Option<u64>);

/// The rows of a `--fibmap` table.
fn rows(stdout: &str) -> Vec<Row> {
    stdout
        .lines()
        .skip_while(|l| !l.starts_with(" byte_offset"))
        .skip(1)
        .map(|l| {
            let w: Vec<&str> = l.split_whitespace().collect();
            let n = |s: &str| s.parse::<u64>().ok();
            if w.len() == 4 {
                (n(w[0]).unwrap(), n(w[1]), n(w[2]), n(w[3]))
            } else {
                // `offset - - -` or `offset - - count`
                (n(w[0]).unwrap(), None, None, w.get(3).and_then(|s| n(s)))
            }
        })
        .collect()
}

#[test]
fn fibmap_rows_name_the_sectors_that_hold_the_file() {
    let Some(fs_) = setup("fibmap_rows") else {
        return;
    };
    // A fragmented file: two writes with another file allocated between them, and a hole.
    let file = fs_.mnt.join("data");
    let other = fs_.mnt.join("other");
    let mut content: Vec<u8> = (0..40960u32).map(|i| (i * 7 + 3) as u8).collect();
    fs::write(&file, &content[..20480]).unwrap();
    Command::new("sync").status().unwrap();
    fs::write(&other, vec![1u8; 8192]).unwrap();
    Command::new("sync").status().unwrap();
    {
        use std::io::Write;
        // Not O_APPEND: the seek below must place the last write after a hole.
        let mut f = fs::OpenOptions::new().write(true).open(&file).unwrap();
        f.seek(SeekFrom::Start(20480)).unwrap();
        f.write_all(&content[20480..]).unwrap();
        // A hole of 64 KiB, then 4 KiB of data.
        f.seek(SeekFrom::Start(40960 + 65536)).unwrap();
        f.write_all(&[9u8; 4096]).unwrap();
    }
    content.resize(40960 + 65536, 0);
    content.extend_from_slice(&[9u8; 4096]);
    Command::new("sync").status().unwrap();

    let name = file.to_string_lossy().into_owned();
    let o = ours(&["--fibmap", &name]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    let stdout = String::from_utf8(o.stdout).unwrap();
    let header = format!(
        "\n{name}:\n filesystem blocksize 1024, begins at LBA 2048; assuming 512 byte sectors.\n byte_offset  begin_LBA    end_LBA    sectors\n"
    );
    assert!(stdout.starts_with(&header), "{stdout}");
    let rows = rows(&stdout);
    assert!(!rows.is_empty(), "{stdout}");
    let mut covered = 0u64;
    for (offset, begin, end, sectors) in rows {
        let (Some(begin), Some(end), Some(sectors)) = (begin, end, sectors) else {
            continue;
        };
        assert_eq!(end - begin + 1, sectors, "{stdout}");
        let on_disk = fs_.sectors(begin, sectors);
        let len = on_disk.len().min(content.len() - offset as usize);
        let want = &content[offset as usize..offset as usize + len];
        let first_difference = on_disk[..len].iter().zip(want).position(|(a, b)| a != b);
        assert_eq!(
            first_difference, None,
            "extent at byte {offset}: LBA {begin}..{end} does not hold the file's bytes\n{stdout}"
        );
        covered += len as u64;
    }
    // Everything but the hole is found on the disk.
    assert_eq!(covered, 40960 + 4096, "{stdout}");
    // --json has the same extents.
    let o = ours(&["--json", "--fibmap", &name]);
    assert_eq!(o.status.code(), Some(0));
    let doc: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let map = &doc["devices"][0]["fibmap"];
    assert_eq!(map["start_lba"], 2048);
    assert_eq!(map["filesystem_block_bytes"], 1024);
    let extents = map["extents"].as_array().unwrap();
    let text_rows = self::rows(&stdout);
    assert_eq!(extents.len(), text_rows.len());
    for (e, (offset, begin, end, sectors)) in extents.iter().zip(text_rows) {
        assert_eq!(e["byte_offset"], offset);
        assert_eq!(e["begin_lba"].as_u64(), begin);
        assert_eq!(e["end_lba"].as_u64(), end);
        assert_eq!(e["sectors"].as_u64(), sectors);
    }
    // And it is valid against the documented schema, when a validator is at hand.
    let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm-rs.schema.json");
    let check = Command::new("python3")
        .args([
            "-c",
            "import json,sys,jsonschema; jsonschema.validate(json.load(sys.stdin), json.load(open(sys.argv[1])))",
            schema,
        ])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn();
    if let Ok(mut child) = check {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(&o.stdout).unwrap();
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        if !err.contains("No module named") {
            assert!(out.status.success(), "{err}");
        }
    }
}

#[test]
fn fibmap_of_an_empty_file_and_fallocate_as_hdparm() {
    let Some(fs_) = setup("fibmap_empty") else {
        return;
    };
    let empty = fs_.mnt.join("empty");
    fs::write(&empty, b"").unwrap();
    let name = empty.to_string_lossy().into_owned();
    let o = ours(&["--fibmap", &name]);
    assert_eq!(
        String::from_utf8_lossy(&o.stdout),
        format!("\n{name}:\n filesystem blocksize 1024, begins at LBA 2048; assuming 512 byte sectors.\n byte_offset  begin_LBA    end_LBA    sectors\n           0       -          -          -   \n")
    );
    // --fallocate: the same file as hdparm makes (size, blocks, mode), nothing written.
    let ours_file = fs_.mnt.join("fa-ours");
    let o = ours(&["--fallocate", "100", &ours_file.to_string_lossy()]);
    assert_eq!(o.status.code(), Some(0), "{o:?}");
    assert!(o.stdout.is_empty() && o.stderr.is_empty(), "{o:?}");
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let meta = fs::metadata(&ours_file).unwrap();
    assert_eq!(meta.len(), 102400);
    assert_eq!(meta.blocks(), 200);
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    // Its extent is there, allocated and unwritten (reads as zeros).
    let o = ours(&["--fibmap", &ours_file.to_string_lossy()]);
    let rows = rows(&String::from_utf8_lossy(&o.stdout));
    assert_eq!(
        rows.iter().filter_map(|r| r.3).sum::<u64>(),
        200,
        "{rows:?}"
    );
    // An existing file is refused and left alone.
    let o = ours(&["--fallocate", "100", &ours_file.to_string_lossy()]);
    assert_eq!(
        String::from_utf8_lossy(&o.stderr),
        format!("{}: File exists\n", ours_file.display())
    );
    assert_ne!(o.status.code(), Some(0));
    assert_eq!(fs::metadata(&ours_file).unwrap().len(), 102400);
    if let Some(reference) = common::reference_hdparm() {
        let theirs = fs_.mnt.join("fa-theirs");
        let t = Command::new(&reference)
            .args(["--fallocate", "100", &theirs.to_string_lossy()])
            .output()
            .unwrap();
        assert_eq!(t.status.code(), Some(0));
        let m = fs::metadata(&theirs).unwrap();
        assert_eq!(
            (m.len(), m.blocks(), m.permissions().mode() & 0o777),
            (meta.len(), meta.blocks(), meta.permissions().mode() & 0o777)
        );
        let t = Command::new(&reference)
            .args(["--fallocate", "100", &theirs.to_string_lossy()])
            .output()
            .unwrap();
        assert_eq!(
            t.stderr,
            format!("{}: File exists\n", theirs.display()).into_bytes()
        );
    }
}

/// Where hdparm answers without a block device at all (tmpfs, a directory, a missing file),
/// both give the same lines.
#[test]
fn fibmap_failures_match_the_reference() {
    const TEST: &str = "fibmap_failures_match_the_reference";
    let Some(reference) = common::reference_hdparm() else {
        common::skip(TEST, "no reference hdparm 9.65");
        return;
    };
    let dir = Path::new("/dev/shm");
    if !dir.is_dir() {
        common::skip(TEST, "no /dev/shm (tmpfs)");
        return;
    }
    let tmpfs_file = dir.join(format!("hdparm-rs-fibmap-{}", std::process::id()));
    fs::write(&tmpfs_file, b"x").unwrap();
    let cases = [
        tmpfs_file.to_string_lossy().into_owned(),
        "/dev/shm".to_string(),
        "/nonexistent/hdparm-rs".to_string(),
    ];
    for path in &cases {
        let t = Command::new(&reference)
            .args(["--fibmap", path])
            .output()
            .unwrap();
        let o = ours(&["--fibmap", path]);
        assert_eq!(o.stdout, t.stdout, "{path}");
        assert_eq!(
            String::from_utf8_lossy(&o.stderr),
            String::from_utf8_lossy(&t.stderr),
            "{path}"
        );
        assert_eq!(o.status.code(), t.status.code(), "{path}");
    }
    let _ = fs::remove_file(&tmpfs_file);
}
