//! Golden test for `-I`: every `*.hex` IDENTIFY dump in the shared corpus, fed to `--Istdin`
//! through [`hdparm::run_streams`] (the function the binary calls), must give byte for byte
//! the stdout that
//! Debian's hdparm 9.65 gave for it (`<name>.hdparm.txt`, recorded with
//! `hdparm --Istdin < <name>.hex`).
//!
//! The corpus lives outside the repository (see [`corpus_dir`]); when it is missing the test
//! says so and passes, unless `HDPARM_RS_REQUIRE_ALL=1`, where it fails.

mod common;

use std::fs;
use std::path::PathBuf;

/// `$HDPARM_RS_IDENTIFY_CORPUS`, else `../shared/identify` beside the crate (the main checkout),
/// else `../../shared/identify` (a worktree one level deeper).
fn corpus_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("HDPARM_RS_IDENTIFY_CORPUS") {
        return PathBuf::from(dir);
    }
    let near = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/identify"));
    let far = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../shared/identify"
    ));
    if near.is_dir() || !far.is_dir() {
        near
    } else {
        far
    }
}

/// The first differing line, shown with its number, for the failure message.
fn first_diff(expected: &[u8], got: &[u8]) -> String {
    let e = String::from_utf8_lossy(expected);
    let g = String::from_utf8_lossy(got);
    for (n, (a, b)) in e.split('\n').zip(g.split('\n')).enumerate() {
        if a != b {
            return format!("line {}:\n  hdparm: {a:?}\n  ours:   {b:?}", n + 1);
        }
    }
    format!(
        "lengths differ: hdparm {} bytes, ours {} bytes",
        expected.len(),
        got.len()
    )
}

/// Runs every `*.hex` of `dir` through our `--Istdin` and compares the stdout with the
/// `.hdparm.txt` beside it. Returns the number of dumps and the differences.
fn compare_dir(dir: &std::path::Path) -> (usize, Vec<String>) {
    let entries = fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut hex_files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "hex"))
        .collect();
    hex_files.sort();
    assert!(!hex_files.is_empty(), "no *.hex files in {}", dir.display());

    let mut failures = Vec::new();
    for hex in &hex_files {
        let expected_path = hex.with_extension("hdparm.txt");
        let input = fs::read(hex).unwrap_or_else(|e| panic!("{}: {e}", hex.display()));
        let expected =
            fs::read(&expected_path).unwrap_or_else(|e| panic!("{}: {e}", expected_path.display()));
        let (status, out, err) = ours_istdin(&input);
        let name = hex
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if status != 0 || !err.is_empty() {
            failures.push(format!(
                "{name}: status {status}, stderr {:?}",
                String::from_utf8_lossy(&err)
            ));
        } else if out != expected {
            failures.push(format!("{name}: {}", first_diff(&expected, &out)));
        }
    }
    (hex_files.len(), failures)
}

#[test]
fn istdin_output_matches_hdparm_for_every_dump() {
    let dir = corpus_dir();
    if !dir.is_dir() {
        let reason = format!("identify corpus {} not readable", dir.display());
        common::skip("istdin_output_matches_hdparm_for_every_dump", &reason);
        return;
    }
    let (total, failures) = compare_dir(&dir);
    eprintln!(
        "identify golden: {} of {total} identical",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} differ; first: {}",
        failures.len(),
        failures[0]
    );
}

/// QEMU's own IDE and AHCI disks and CD-ROMs, captured in the VM bench (tests/vm/fixtures.sh):
/// the same comparison, on fixtures that live in the repository.
#[test]
fn istdin_output_matches_hdparm_for_qemu_drives() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/identify"
    ));
    let (total, failures) = compare_dir(&dir);
    eprintln!(
        "identify golden (QEMU drives): {} of {total} identical",
        total - failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} differ; first: {}",
        failures.len(),
        failures[0]
    );
}

/// The binary's `--Istdin` prints the same bytes as the library (the wiring in exec adds no
/// header and no trailing text). `ahci-hd-8bit` is the AHCI disk with bytes of 0x80 and above
/// in its model, serial and firmware strings: hdparm prints them as they are, and so must we
/// (not as U+FFFD). Its `.hdparm.txt` was recorded with `/usr/sbin/hdparm --Istdin` (9.65).
#[test]
fn binary_istdin_matches_hdparm_for_qemu_drives() {
    let dir = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/identify"
    ));
    for kind in ["ide-hd", "ahci-hd", "ide-cd", "ahci-cd", "ahci-hd-8bit"] {
        let hex = fs::read(dir.join(format!("{kind}.hex"))).expect("fixture");
        let expected = fs::read(dir.join(format!("{kind}.hdparm.txt"))).expect("fixture");
        let out = run_istdin_program(std::path::Path::new(env!("CARGO_BIN_EXE_hdparm")), &hex);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{kind}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            out.stdout == expected,
            "{kind}: {}",
            first_diff(&expected, &out.stdout)
        );
    }
}

/// Our `hdparm --Istdin` with `input` on standard input, through the function the binary calls:
/// exit status, stdout, stderr.
fn ours_istdin(input: &[u8]) -> (u8, Vec<u8>, Vec<u8>) {
    let args = ["hdparm", "--Istdin"].map(std::ffi::OsString::from);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let status = hdparm::run_streams(
        &args,
        hdparm::Streams::new(&mut &input[..], &mut out, &mut err),
    );
    (status, out, err)
}

/// Runs `program --Istdin` with `input` on its standard input.
fn run_istdin_program(program: &std::path::Path, input: &[u8]) -> std::process::Output {
    use std::io::Write as _;
    use std::process::{Command, Stdio};
    let mut child = Command::new(program)
        .arg("--Istdin")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn hdparm");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("write stdin");
    child.wait_with_output().expect("hdparm output")
}

/// Small deterministic PRNG (xorshift64*), so failures reproduce.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// The reference hdparm, through the one finder (which also fails on a version other than 9.65).
fn real_hdparm() -> Option<PathBuf> {
    common::reference_hdparm()
}

fn to_hex(words: &[u16; 256]) -> String {
    hdparm::ata::identify_hex::format_identify_hex(words)
}

/// Words that steer the decode into its rarer branches, with values worth trying.
const INTERESTING: &[(usize, &[u16])] = &[
    (
        0,
        &[
            0x0040, 0x0080, 0x848A, 0x844A, 0x85C0, 0x8580, 0x8000, 0x80A0, 0xC000, 0x0C5A, 0x045A,
            0x0000, 0xFFFF,
        ],
    ),
    (2, &[0x37C8, 0x738C, 0x8C73, 0xC837, 0]),
    (49, &[0x0F00, 0x0200, 0x2F00, 0xFF00, 0x0000, 0x0100]),
    (53, &[0x0007, 0x0006, 0x0001, 0x0000]),
    (62, &[0x0000, 0x0107, 0x8407, 0x0007, 0x00F8, 0x0307]),
    (
        80,
        &[0x0000, 0xFFFF, 0x007E, 0x01F0, 0x0FF0, 0x0006, 0x0010],
    ),
    (
        81,
        &[
            0x0000, 0x0001, 0x0013, 0x0018, 0x001A, 0x001F, 0x0021, 0x0022, 0x0027, 0x0107, 0x0110,
            0xFFFF,
        ],
    ),
    (83, &[0x4000, 0x7C6B, 0x4004, 0x0000, 0xC000]),
    (106, &[0x4000, 0x6003, 0x5000, 0x7003, 0x0000]),
    (128, &[0x0000, 0x0001, 0x0021, 0x003F, 0x0129, 0x0002]),
    (222, &[0x0000, 0x1000, 0x103F, 0x0001, 0x2000, 0xFFFF]),
    (255, &[0x00A5, 0x0000, 0x12A5]),
    (84, &[0x5800, 0x4100, 0x0100, 0x7FFF]),
    (87, &[0x4000, 0x5800]),
    (116, &[0x0000, 0x0010, 0xFFFF]),
    (160, &[0x8000, 0xA064, 0x9FFF, 0x0000]),
    (163, &[0x0052, 0x0092, 0x048A, 0x0000]),
    (164, &[0x8000, 0xA1B2, 0x91FF, 0xF6DB]),
    (169, &[0x0001, 0xFFFF]),
    (69, &[0x4020, 0x4000, 0xFFFF, 0x0000]),
    (57, &[0x1234, 0x0000]),
    (58, &[0x0001, 0x3412]),
];

fn mutate(rng: &mut Rng, base: &[u16; 256]) -> [u16; 256] {
    let mut w = *base;
    match rng.below(4) {
        0 => {
            for x in w.iter_mut() {
                *x = rng.next() as u16;
            }
        }
        _ => {
            for _ in 0..rng.below(12) {
                let n = rng.below(256) as usize;
                w[n] = match rng.below(3) {
                    0 => rng.next() as u16,
                    1 => w[n] ^ (1 << rng.below(16)),
                    _ => 0,
                };
            }
        }
    }
    for _ in 0..rng.below(4) {
        let (n, values) = INTERESTING[rng.below(INTERESTING.len() as u64) as usize];
        w[n] = values[rng.below(values.len() as u64) as usize];
    }
    if rng.below(2) == 0 {
        // Fix the checksum half of the time, so both checksum lines are exercised.
        w[255] = (w[255] & 0xFF00) | 0xA5;
        let sum = w.iter().fold(0u8, |a, &x| {
            a.wrapping_add(x as u8).wrapping_add((x >> 8) as u8)
        });
        w[255] = w[255].wrapping_add(u16::from(sum.wrapping_neg()) << 8);
    }
    w
}

/// Differential test: mutated and random IDENTIFY data through the real `hdparm --Istdin` and
/// through ours; stdout, stderr and exit status must agree. Needs the real hdparm 9.65.
#[test]
fn istdin_matches_real_hdparm_on_mutated_dumps() {
    let Some(hdparm_bin) = real_hdparm() else {
        common::skip(
            "istdin_matches_real_hdparm_on_mutated_dumps",
            "the real hdparm is not installed",
        );
        return;
    };
    let bases = corpus_words();
    let cases: u64 = std::env::var("HDPARM_RS_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500);
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut mismatches = 0;
    for case in 0..cases {
        let base = &bases[rng.below(bases.len() as u64) as usize];
        let words = mutate(&mut rng, base);
        let input = to_hex(&words);
        let real = run_istdin_program(std::path::Path::new(&hdparm_bin), input.as_bytes());
        let (status, out, err) = ours_istdin(input.as_bytes());
        let real_status = real.status.code().unwrap_or(-1);
        if out != real.stdout || err != real.stderr || i32::from(status) != real_status {
            mismatches += 1;
            if mismatches <= 3 {
                eprintln!(
                    "case {case}: status ours {status} hdparm {real_status}; {}\ninput:\n{input}",
                    first_diff(&real.stdout, &out)
                );
            }
        }
    }
    assert_eq!(
        mismatches, 0,
        "{mismatches} of {cases} cases differ from the real hdparm"
    );
}

/// An LD_PRELOAD shim that makes the real hdparm believe a regular file is a drive, so its
/// live-device paths can be compared with ours; nothing ever reaches a device:
/// * HDIO_GET_IDENTITY answers the 512 bytes of `$FAKE_KID`;
/// * HDIO_GET_MULTCOUNT answers `$FAKE_MULT` (ENOTTY when empty);
/// * SG_IO with ATA PASS-THROUGH(16) answers IDENTIFY DEVICE with `$FAKE_ID`, and READ LOG EXT
///   with a log directory (log 0x2F: 1 page, log 0x30: 9 pages), `$FAKE_LOG2F` for 0x2F page 0
///   and `$FAKE_LOG30` for 0x30 page 8, with the sense data of a successful command;
/// * every other ATA path fails;
/// * with `$FAKE_DISK` (set for our binary only: hdparm sends ATA commands to any node, we only
///   to disks that can take them), that file stats as block device 259:999, whose sysfs
///   directory `/sys/dev/block/259:999` resolves to `$FAKE_SYSFS_DISK`, a fake sysfs tree of a
///   SCSI disk on libata (see [`fake_sysfs_disk`]).
const SHIM_SOURCE: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <scsi/sg.h>
static int load(const char *env, unsigned char *dst) {
  const char *p = getenv(env);
  if (!p || !*p) return -1;
  FILE *f = fopen(p, "rb");
  if (!f) return -1;
  size_t n = fread(dst, 1, 512, f);
  fclose(f);
  return n == 512 ? 0 : -1;
}
int ioctl(int fd, unsigned long req, ...) {
  va_list ap; va_start(ap, req); void *arg = va_arg(ap, void *); va_end(ap);
  if (req == 0x030d) {
    if (load("FAKE_KID", arg)) { errno = EIO; return -1; }
    return 0;
  }
  if (req == 0x0304) {
    const char *m = getenv("FAKE_MULT");
    if (m && *m) { *(long *)arg = strtol(m, 0, 0); return 0; }
    errno = ENOTTY; return -1;
  }
  if (req == SG_IO) {
    sg_io_hdr_t *h = arg;
    unsigned char *cdb = h->cmdp;
    int ok = -1;
    if (cdb[0] == 0x85 && h->dxfer_len >= 512) {
      unsigned char *d = h->dxferp;
      if (cdb[14] == 0xEC) ok = load("FAKE_ID", d);
      if (cdb[14] == 0x2F) {
        memset(d, 0, 512);
        if (cdb[8] == 0 && cdb[10] == 0) { d[0] = 1; d[0x2F * 2] = 1; d[0x30 * 2] = 9; ok = 0; }
        else if (cdb[8] == 0x2F && cdb[10] == 0) ok = load("FAKE_LOG2F", d);
        else if (cdb[8] == 0x30 && cdb[10] == 8) ok = load("FAKE_LOG30", d);
      }
    }
    if (ok) { errno = EIO; return -1; }
    unsigned char *sb = h->sbp;
    memset(sb, 0, h->mx_sb_len);
    sb[0] = 0x72; sb[7] = 14; sb[8] = 9; sb[9] = 12; sb[8 + 13] = 0x50;
    h->status = 2; h->host_status = 0; h->driver_status = 0x08; h->sb_len_wr = 22; h->resid = 0;
    return 0;
  }
  if (req == 0x031f || req == 0x031e || req == 0x031d) { errno = ENOTTY; return -1; }
  int (*real)(int, unsigned long, ...) = (int (*)(int, unsigned long, ...))dlsym(RTLD_NEXT, "ioctl");
  return real(fd, req, arg);
}
#include <sys/stat.h>
#include <sys/sysmacros.h>
int statx(int dirfd, const char *path, int flags, unsigned int mask, struct statx *buf) {
  int (*real)(int, const char *, int, unsigned int, struct statx *) =
      (int (*)(int, const char *, int, unsigned int, struct statx *))dlsym(RTLD_NEXT, "statx");
  int rc = real(dirfd, path, flags, mask, buf);
  const char *disk = getenv("FAKE_DISK");
  struct stat st;
  if (rc == 0 && disk && *disk && stat(disk, &st) == 0 && buf->stx_ino == st.st_ino &&
      makedev(buf->stx_dev_major, buf->stx_dev_minor) == st.st_dev) {
    buf->stx_mode = (buf->stx_mode & 07777) | S_IFBLK;
    buf->stx_rdev_major = 259;
    buf->stx_rdev_minor = 999;
  }
  return rc;
}
char *realpath(const char *path, char *resolved) {
  const char *fake = getenv("FAKE_SYSFS_DISK");
  if (fake && *fake && strcmp(path, "/sys/dev/block/259:999") == 0) {
    if (resolved) { strcpy(resolved, fake); return resolved; }
    return strdup(fake);
  }
  char *(*real)(const char *, char *) =
      (char *(*)(const char *, char *))dlvsym(RTLD_NEXT, "realpath", "GLIBC_2.3");
  return real(path, resolved);
}
"#;

/// Builds the shim in a fresh temp dir; `None` (with the reason printed, or a failure under
/// `HDPARM_RS_REQUIRE_ALL=1`) when there is no C compiler.
fn build_shim(tag: &str) -> Option<(PathBuf, PathBuf)> {
    use std::process::Command;
    let dir = std::env::temp_dir().join(format!("hdparm-rs-shim-{tag}-{}", std::process::id()));
    fs::create_dir_all(&dir).expect("temp dir");
    let src = dir.join("shim.c");
    let lib = dir.join("shim.so");
    fs::write(&src, SHIM_SOURCE).expect("write shim");
    let built = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(&lib)
        .arg(&src)
        .arg("-ldl")
        .status();
    if !built.is_ok_and(|s| s.success()) {
        let _ = fs::remove_dir_all(&dir);
        common::skip(
            &format!("the {tag} shim test"),
            "no C compiler to build the ioctl shim",
        );
        return None;
    }
    Some((dir, lib))
}

/// A sysfs tree under `dir` for a SCSI disk `sdzz` on libata, as the kernel lays it out
/// (`.../ata1/host0/target0:0:0/0:0:0:0/block/sdzz`, `device` linking back to the scsi_device,
/// whose `type` is 0); returns the disk's directory.
fn fake_sysfs_disk(dir: &std::path::Path) -> PathBuf {
    let scsi = dir.join("sys/devices/pci0000:00/0000:00:1f.2/ata1/host0/target0:0:0/0:0:0:0");
    let disk = scsi.join("block/sdzz");
    fs::create_dir_all(&disk).expect("fake sysfs");
    fs::write(scsi.join("type"), "0\n").expect("fake sysfs");
    std::os::unix::fs::symlink("../..", disk.join("device")).expect("fake sysfs");
    disk
}

fn corpus_words() -> Vec<[u16; 256]> {
    let mut bases: Vec<[u16; 256]> = vec![[0u16; 256]];
    if let Ok(entries) = fs::read_dir(corpus_dir()) {
        for e in entries.flatten() {
            if e.path().extension().is_some_and(|x| x == "hex") {
                if let Ok(words) = hdparm::ata::identify_hex::parse_identify_hex(
                    &fs::read(e.path()).unwrap_or_default(),
                ) {
                    bases.push(words);
                }
            }
        }
    }
    bases
}

/// Differential test of `-i`: HDIO_GET_IDENTITY buffers (random, and the corpus drives with
/// their strings in the kernel's natural byte order) through the real `hdparm -i` and through
/// our binary's `-i`, both fed by the shim; stdout must agree byte for byte (the strings carry
/// random bytes, 0x80 and above included). Needs the real hdparm and a C compiler.
#[test]
fn kernel_identity_matches_real_hdparm() {
    use std::process::Command;

    let Some(hdparm_bin) = real_hdparm() else {
        common::skip(
            "kernel_identity_matches_real_hdparm",
            "the real hdparm is not installed",
        );
        return;
    };
    let Some((dir, lib)) = build_shim("i") else {
        return;
    };
    let disk = dir.join("disk.img");
    fs::write(&disk, [0u8; 4096]).expect("fake disk");
    let id_file = dir.join("id.bin");

    let bases = corpus_words();
    let cases: u64 = std::env::var("HDPARM_RS_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
        / 10;
    let mut rng = Rng(0xD1B5_4A32_D192_ED03);
    let mut mismatches = 0;
    for case in 0..cases {
        let base = bases[rng.below(bases.len() as u64) as usize];
        let words = mutate(&mut rng, &base);
        let mut raw = [0u8; 512];
        for (i, w) in words.iter().enumerate() {
            // The kernel hands the string words over in natural byte order.
            let string_word = (10..20).contains(&i) || (23..47).contains(&i);
            let b = if string_word {
                w.to_be_bytes()
            } else {
                w.to_le_bytes()
            };
            raw[2 * i..2 * i + 2].copy_from_slice(&b);
        }
        let mult = match rng.below(3) {
            0 => None,
            _ => Some(rng.below(300) as u16),
        };
        fs::write(&id_file, raw).expect("write id");
        let real = Command::new(&hdparm_bin)
            .arg("-i")
            .arg(&disk)
            .env("LD_PRELOAD", &lib)
            .env("FAKE_KID", &id_file)
            .env("FAKE_MULT", mult.map(|m| m.to_string()).unwrap_or_default())
            .output()
            .expect("run hdparm");
        let header = format!("\n{}:\n", disk.display());
        let real_out = real
            .stdout
            .strip_prefix(header.as_bytes())
            .unwrap_or(&real.stdout)
            .to_vec();
        // Ours: the binary, fed by the same shim.
        let ours = Command::new(env!("CARGO_BIN_EXE_hdparm"))
            .arg("-i")
            .arg(&disk)
            .env("LD_PRELOAD", &lib)
            .env("FAKE_KID", &id_file)
            .env("FAKE_MULT", mult.map(|m| m.to_string()).unwrap_or_default())
            .output()
            .expect("run our hdparm");
        let ours = ours
            .stdout
            .strip_prefix(header.as_bytes())
            .unwrap_or(&ours.stdout)
            .to_vec();
        if ours != real_out {
            mismatches += 1;
            if mismatches <= 3 {
                eprintln!(
                    "case {case} (multcount {mult:?}): {}",
                    first_diff(&real_out, &ours)
                );
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        mismatches, 0,
        "{mismatches} of {cases} -i cases differ from the real hdparm"
    );
}

/// Hand-made IDENTIFY data aimed at the rare branches of the decode (ATA-1 drives, swapped CHS
/// capacity words, legacy DMA, CD-ROMs, ATAPI DMADIR, CompactFlash, word 2 values, security
/// time formats, TLC, reset results, TRIM, native 4K and overflowing sizes), each compared with
/// the real `hdparm --Istdin`.
#[test]
fn istdin_matches_real_hdparm_on_rare_branches() {
    let Some(hdparm_bin) = real_hdparm() else {
        common::skip(
            "istdin_matches_real_hdparm_on_rare_branches",
            "the real hdparm is not installed",
        );
        return;
    };
    #[rustfmt::skip]
    let cases: &[(&str, &[(usize, u16)])] = &[
        ("zero", &[]),
        ("ata1", &[(0, 0x7FFE), (1, 100), (3, 4), (6, 17), (4, 0x1234), (5, 600), (20, 3), (21, 0x81), (22, 4), (48, 1), (53, 1), (54, 100), (55, 4), (56, 17), (57, 6800)]),
        ("ata1 swapped capacity", &[(0, 0x0040), (1, 1000), (3, 16), (6, 63), (53, 1), (54, 1000), (55, 16), (56, 63), (57, 0x000F), (58, 0xC180), (21, 0x101), (22, 4)]),
        ("ata1 capacity in order", &[(0, 0x0040), (1, 1000), (3, 16), (6, 63), (53, 1), (54, 1000), (55, 16), (56, 63), (58, 0x000F), (57, 0x6180)]),
        ("ata2", &[(0, 0x0040), (49, 0x0B00), (51, 0x0200), (52, 0x0200), (53, 3), (64, 3), (67, 240), (68, 180), (47, 0x8010)]),
        ("legacy sdma", &[(0, 0x0040), (49, 0x0100), (52, 0x0200)]),
        ("cdrom", &[(0, 0x85C0), (49, 0x0F00), (73, 0x001E), (74, 9), (62, 0x8407), (63, 0x0407), (88, 0x203F), (53, 6), (71, 10), (72, 20), (128, 0x21), (82, 2)]),
        ("cdrom without versions", &[(0, 0x8580)]),
        ("atapi tape", &[(0, 0x81A1), (49, 0xFF00), (62, 0x0107), (63, 0x0107), (80, 0x001E), (81, 0x12)]),
        ("cfa", &[(0, 0x848A), (160, 0xA064), (162, 1), (163, 0x0092), (164, 0x91FF), (83, 0x4004), (255, 0x00A5)]),
        ("word 2 incomplete", &[(0, 0x0044), (2, 0x37C8)]),
        ("security extended times", &[(0, 0x0040), (80, 0x07F0), (82, 0x0002), (128, 0x013F), (89, 0x8123), (90, 0xFFFF), (92, 0xFFFE)]),
        ("security max time", &[(0, 0x0040), (80, 0x07F0), (82, 0x0002), (89, 0x00FF)]),
        ("security no times", &[(0, 0x0040), (80, 0x07F0), (82, 0x0002), (128, 0x0010)]),
        ("tlc", &[(0, 0x0040), (83, 0x4000), (84, 0x5800), (87, 0x4000), (116, 7), (80, 0x00F0)]),
        ("reset device 0", &[(0, 0x0040), (93, 0x600B), (80, 0x0070)]),
        ("reset device 1", &[(0, 0x0040), (93, 0x4C00), (80, 0x0070)]),
        ("trim", &[(0, 0x0040), (80, 0x01F0), (169, 1), (105, 1), (69, 0x4020)]),
        ("form factor and rpm", &[(0, 0x0040), (168, 7), (217, 0x0402)]),
        ("native 4k", &[(0, 0x0040), (49, 0x0200), (60, 0x1000), (83, 0x4400), (100, 0x2000), (106, 0x7003), (117, 0x0800), (209, 0x4003)]),
        ("overflowing sizes", &[(0, 0x0040), (49, 0x0200), (83, 0x4400), (100, 0xFFFF), (101, 0xFFFF), (102, 0xFFFF), (103, 0xFFFF), (106, 0x500F), (117, 0xFFFF), (118, 0xFFFF), (209, 0x5FFF)]),
        ("unknown device", &[(0, 0xC000)]),
    ];
    let mut failures = Vec::new();
    for (name, set) in cases {
        let mut words = [0u16; 256];
        for &(n, v) in set.iter() {
            words[n] = v;
        }
        let input = to_hex(&words);
        let real = run_istdin_program(std::path::Path::new(&hdparm_bin), input.as_bytes());
        let (status, out, _err) = ours_istdin(input.as_bytes());
        if out != real.stdout || i32::from(status) != real.status.code().unwrap_or(-1) {
            failures.push(format!("{name}: {}", first_diff(&real.stdout, &out)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} rare-branch cases differ: {failures:#?}",
        failures.len()
    );
}

/// Differential test of live `-I`: the real `hdparm -I` and our binary's on a fake drive (the
/// shim answers IDENTIFY and the two log pages; for ours it also makes the file a SCSI disk on
/// libata), stdout compared byte for byte, including the lines that come from the log pages:
/// the "[ Supported: ... ]" list and the "Device Sleep:" block. The first cases also compare
/// `--Istdout`'s dump.
#[test]
fn live_identify_matches_real_hdparm() {
    use std::process::Command;

    let Some(hdparm_bin) = real_hdparm() else {
        common::skip(
            "live_identify_matches_real_hdparm",
            "the real hdparm is not installed",
        );
        return;
    };
    let Some((dir, lib)) = build_shim("live") else {
        return;
    };
    let disk = dir.join("disk.img");
    fs::write(&disk, [0u8; 4096]).expect("fake disk");
    let sysfs_disk = fake_sysfs_disk(&dir);
    // Our binary, on the same drive made to look like a libata disk.
    let ours_cmd = |option: &str| {
        let mut c = Command::new(env!("CARGO_BIN_EXE_hdparm"));
        c.arg(option)
            .arg(&disk)
            .env("LD_PRELOAD", &lib)
            .env("FAKE_DISK", &disk)
            .env("FAKE_SYSFS_DISK", &sysfs_disk);
        c
    };
    let (id_file, log2f_file, log30_file) = (
        dir.join("id.bin"),
        dir.join("log2f.bin"),
        dir.join("log30.bin"),
    );
    let bases = corpus_words();
    let cases: u64 = std::env::var("HDPARM_RS_DIFF_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1500)
        / 10;
    let mut rng = Rng(0x6A09_E667_F3BC_C908);
    let mut mismatches = 0;
    for case in 0..cases {
        let base = bases[rng.below(bases.len() as u64) as usize];
        let mut words = mutate(&mut rng, &base);
        // Steer towards the log-derived lines: word 106 valid, DEVSLP supported, GPL present.
        if rng.below(2) == 0 {
            words[106] = 0x4000 | (words[106] & 0x3FFF);
        }
        if rng.below(2) == 0 {
            words[78] |= 0x0100;
        }
        if rng.below(4) != 0 {
            words[84] |= 0x0020;
        }
        let mut log2f = [0u8; 512];
        for d in 0..9 {
            if rng.below(2) == 0 {
                log2f[d * 16] = 0x80 | rng.below(0x80) as u8;
            }
            let size = match rng.below(3) {
                0 => 256u32 << rng.below(4),
                1 => rng.next() as u32,
                _ => 0,
            };
            log2f[d * 16 + 4..d * 16 + 8].copy_from_slice(&size.to_le_bytes());
        }
        let mut log30 = [0u8; 512];
        log30[0x30] = rng.next() as u8;
        log30[0x31] = if rng.below(2) == 0 {
            0
        } else {
            rng.next() as u8
        };
        log30[0x37] = rng.next() as u8;
        let raw = hdparm::ata::identify::Identify::from_words(words).to_le_bytes();
        fs::write(&id_file, raw).expect("write id");
        fs::write(&log2f_file, log2f).expect("write log");
        fs::write(&log30_file, log30).expect("write log");
        let real = Command::new(&hdparm_bin)
            .arg("-I")
            .arg(&disk)
            .env("LD_PRELOAD", &lib)
            .env("FAKE_ID", &id_file)
            .env("FAKE_LOG2F", &log2f_file)
            .env("FAKE_LOG30", &log30_file)
            .output()
            .expect("run hdparm");
        let header = format!("\n{}:\n", disk.display());
        let real_out = real
            .stdout
            .strip_prefix(header.as_bytes())
            .unwrap_or(&real.stdout)
            .to_vec();

        if case < 30 {
            // --Istdout of the same drive: the 32-line hex dump.
            let dump = Command::new(&hdparm_bin)
                .arg("--Istdout")
                .arg(&disk)
                .env("LD_PRELOAD", &lib)
                .env("FAKE_ID", &id_file)
                .output()
                .expect("run hdparm");
            let header = format!("\n{}:\n", disk.display());
            let real_dump = dump
                .stdout
                .strip_prefix(header.as_bytes())
                .unwrap_or(&dump.stdout);
            let ours_dump = ours_cmd("--Istdout")
                .env("FAKE_ID", &id_file)
                .output()
                .expect("run our hdparm");
            let ours_dump = ours_dump
                .stdout
                .strip_prefix(header.as_bytes())
                .unwrap_or(&ours_dump.stdout);
            assert_eq!(
                String::from_utf8_lossy(real_dump),
                String::from_utf8_lossy(ours_dump),
                "--Istdout differs (case {case})"
            );
        }
        let ours = ours_cmd("-I")
            .env("FAKE_ID", &id_file)
            .env("FAKE_LOG2F", &log2f_file)
            .env("FAKE_LOG30", &log30_file)
            .output()
            .expect("run our hdparm");
        let ours = ours
            .stdout
            .strip_prefix(header.as_bytes())
            .unwrap_or(&ours.stdout)
            .to_vec();
        if ours != real_out {
            mismatches += 1;
            if mismatches <= 3 {
                eprintln!("case {case}: {}", first_diff(&real_out, &ours));
            }
        }
    }
    let _ = fs::remove_dir_all(&dir);
    assert_eq!(
        mismatches, 0,
        "{mismatches} of {cases} live -I cases differ from the real hdparm"
    );
}
