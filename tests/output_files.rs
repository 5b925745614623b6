//! The files we write as root cannot be hijacked (issue 18, section 3), through the binary on
//! loop devices (root): an unprivileged user (`nobody`, through `Command::uid`) who owns the
//! output directory, as node_exporter's service user owns its textfile directory, plants
//! symbolic links to a root-owned 0600 file at the names we would use: the temporary names of
//! the old writer (`.NAME.<pid>`, for the next few thousand pids) and the final name. The file
//! stays intact, a link at the final name is refused in one line (exit 74), and the output is
//! written where no link was. A full file system leaves no temporary file behind, and a FIFO
//! at the name is written in place, as hdparm writes it.

mod common;

use std::os::unix::fs::{FileTypeExt, MetadataExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const NOBODY: u32 = 65534;
const SECRET: &[u8] = b"root's secret, mode 0600\n";

/// A directory owned by `nobody` (0755), and a root-owned 0600 file elsewhere that a planted
/// link points to; both removed on drop.
struct Scene {
    dir: PathBuf,
    victim_dir: PathBuf,
    victim: PathBuf,
}

impl Scene {
    fn new(tag: &str) -> Scene {
        let base =
            std::env::temp_dir().join(format!("hdparm-rs-files-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&base);
        let dir = base.join("textfile");
        let victim_dir = base.join("root-only");
        std::fs::create_dir_all(&dir).expect("dir");
        std::fs::create_dir_all(&victim_dir).expect("victim dir");
        std::fs::set_permissions(&base, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        std::os::unix::fs::chown(&dir, Some(NOBODY), Some(NOBODY)).expect("chown");
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o755)).expect("chmod");
        let victim = victim_dir.join("shadow");
        std::fs::write(&victim, SECRET).expect("victim");
        std::fs::set_permissions(&victim, std::fs::Permissions::from_mode(0o600)).expect("chmod");
        Scene {
            dir,
            victim_dir,
            victim,
        }
    }

    /// Links to the victim at `names`, made by `nobody` (perl's symlink, one process).
    fn plant(&self, names: &[String]) {
        let status = Command::new("perl")
            .arg("-e")
            .arg("my $t = shift; for (@ARGV) { symlink($t, $_) or die \"$_: $!\" }")
            .arg(&self.victim)
            .args(names.iter().map(|n| self.dir.join(n)))
            .uid(NOBODY)
            .gid(NOBODY)
            .status()
            .expect("perl");
        assert!(status.success(), "nobody could not plant the links");
        let link = std::fs::symlink_metadata(self.dir.join(&names[0])).expect("planted");
        assert!(link.file_type().is_symlink() && link.uid() == NOBODY);
    }

    /// The old writer's temporary names for `name`, for the pids the next processes get.
    fn plant_pid_temporaries(&self, name: &str) {
        let last: u64 = std::fs::read_to_string("/proc/sys/kernel/ns_last_pid")
            .expect("ns_last_pid")
            .trim()
            .parse()
            .expect("a pid");
        let names: Vec<String> = (last + 1..last + 4000)
            .map(|pid| format!(".{name}.{pid}"))
            .collect();
        self.plant(&names);
    }

    fn assert_victim_intact(&self) {
        let meta = std::fs::metadata(&self.victim).expect("victim");
        assert_eq!(
            std::fs::read(&self.victim).expect("victim"),
            SECRET,
            "root's file was overwritten through a planted link"
        );
        assert_eq!(meta.mode() & 0o777, 0o600);
        assert_eq!(meta.uid(), 0);
    }

    /// The entries of the directory that are neither links nor `keep`: temporary files left.
    fn leftovers(&self, keep: &str) -> Vec<String> {
        std::fs::read_dir(&self.dir)
            .expect("dir")
            .flatten()
            .filter(|e| !e.file_type().is_ok_and(|t| t.is_symlink()))
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .filter(|n| n != keep)
            .collect()
    }
}

impl Drop for Scene {
    fn drop(&mut self) {
        if let Some(base) = self.victim_dir.parent() {
            let _ = std::fs::remove_dir_all(base);
        }
    }
}

fn ours(args: &[&str], env: &[(&str, &Path)]) -> Output {
    let mut command = Command::new(common::our_hdparm());
    command.args(args).env_remove("ACTION");
    for (k, v) in env {
        command.env(k, v);
    }
    command.output().expect("run hdparm")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Root and a loop device, or a skip.
fn setup(test: &str) -> Option<common::Loop> {
    if !common::is_root() {
        common::skip(test, "needs root (losetup, chown to nobody)");
        return None;
    }
    let lo = common::Loop::new(&format!("files-{test}"), 16);
    if lo.is_none() {
        common::skip(test, "losetup could not attach a loop device");
    }
    lo
}

fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

#[test]
fn prometheus_writes_past_planted_temporaries() {
    let test = "prometheus_writes_past_planted_temporaries";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("prom-temp");
    scene.plant_pid_temporaries("hdparm.prom");
    let file = scene.dir.join("hdparm.prom");
    let out = ours(&["--prometheus", file.to_str().unwrap(), &lo.dev], &[]);
    scene.assert_victim_intact();
    assert!(is_regular(&file), "{}", stderr(&out));
    let text = std::fs::read_to_string(&file).expect("metrics");
    assert!(text.contains("hdparm_query_success{device="), "{text}");
    assert_eq!(scene.leftovers("hdparm.prom"), Vec::<String>::new());
}

#[test]
fn prometheus_refuses_a_planted_final_name() {
    let test = "prometheus_refuses_a_planted_final_name";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("prom-final");
    scene.plant(&["hdparm.prom".to_string()]);
    let file = scene.dir.join("hdparm.prom");
    let out = ours(&["--prometheus", file.to_str().unwrap(), &lo.dev], &[]);
    scene.assert_victim_intact();
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(74), "{err}");
    assert!(
        err.contains(&format!(
            "{}: a symbolic link in a directory that other users can write to is not followed",
            file.display()
        )),
        "{err}"
    );
    assert!(std::fs::symlink_metadata(&file)
        .unwrap()
        .file_type()
        .is_symlink());
    assert_eq!(scene.leftovers("hdparm.prom"), Vec::<String>::new());
}

#[test]
fn surface_csv_and_plot_write_past_planted_links() {
    let test = "surface_csv_and_plot_write_past_planted_links";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("surface");
    scene.plant_pid_temporaries("scan.csv");
    scene.plant(&["scan.svg".to_string()]);
    let (csv, svg) = (scene.dir.join("scan.csv"), scene.dir.join("scan.svg"));
    let out = ours(
        &[
            "--surface",
            "--zones",
            "2",
            "--surface-quick",
            "--csv",
            csv.to_str().unwrap(),
            "--plot",
            svg.to_str().unwrap(),
            &lo.dev,
        ],
        &[],
    );
    scene.assert_victim_intact();
    let err = stderr(&out);
    assert!(is_regular(&csv), "{err}");
    assert_eq!(std::fs::read_to_string(&csv).unwrap().lines().count(), 3);
    // The plot's name was a planted link: refused, the CSV still written.
    assert!(
        err.contains(&format!("{}: a symbolic link", svg.display())),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(74), "{err}");
}

#[test]
fn experiment_plot_refuses_a_planted_final_name() {
    let test = "experiment_plot_refuses_a_planted_final_name";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("experiment");
    scene.plant(&["plot.svg".to_string()]);
    let svg = scene.dir.join("plot.svg");
    let out = ours(
        &[
            "--experiment",
            "-a 8",
            "-a 16",
            "--trials",
            "2",
            "--plot",
            svg.to_str().unwrap(),
            &lo.dev,
        ],
        &[],
    );
    scene.assert_victim_intact();
    let err = stderr(&out);
    assert!(
        err.contains("a symbolic link in a directory that other users"),
        "{err}"
    );
    assert_eq!(out.status.code(), Some(74), "{err}");
    assert_eq!(lo.readahead(), "256", "the read-ahead was set back");
}

#[test]
fn apply_records_are_written_past_planted_links() {
    let test = "apply_records_are_written_past_planted_links";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("records");
    let name = Path::new(&lo.dev)
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    scene.plant_pid_temporaries(&format!("{name}.json"));
    let out = ours(
        &["--apply", "--config", "/dev/null", &lo.dev],
        &[("HDPARM_RS_RECORD_DIR", &scene.dir)],
    );
    scene.assert_victim_intact();
    let record = scene.dir.join(format!("{name}.json"));
    assert!(is_regular(&record), "{}", stderr(&out));
    let doc: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&record).unwrap()).expect("a JSON record");
    assert!(doc.is_object());
    assert_eq!(
        scene.leftovers(&format!("{name}.json")),
        Vec::<String>::new()
    );
}

/// A small tmpfs, unmounted and removed on drop.
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(tag: &str, size: &str) -> Option<Tmpfs> {
        let dir =
            std::env::temp_dir().join(format!("hdparm-rs-tmpfs-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).ok()?;
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            let _ = std::fs::remove_dir(&dir);
            return None;
        }
        Some(Tmpfs(dir))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
        let _ = std::fs::remove_dir(&self.0);
    }
}

#[test]
fn a_full_file_system_leaves_no_temporary_file_and_the_old_file_intact() {
    let test = "a_full_file_system_leaves_no_temporary_file_and_the_old_file_intact";
    let Some(lo) = setup(test) else { return };
    let Some(fs) = Tmpfs::mount("full", "64k") else {
        common::skip(test, "cannot mount a tmpfs");
        return;
    };
    let old = b"old metrics\n";
    let file = fs.0.join("hdparm.prom");
    std::fs::write(&file, old).unwrap();
    // Fill it: the writes stop at ENOSPC.
    let mut filler = std::fs::File::create(fs.0.join("filler")).unwrap();
    let chunk = vec![0u8; 4096];
    while std::io::Write::write_all(&mut filler, &chunk).is_ok() {}
    drop(filler);
    let out = ours(&["--prometheus", file.to_str().unwrap(), &lo.dev], &[]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(74), "{err}");
    assert!(
        err.contains(&format!("{}: No space left on device", file.display())),
        "{err}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), old, "the old file is intact");
    let mut names: Vec<String> = std::fs::read_dir(&fs.0)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["filler", "hdparm.prom"],
        "a temporary file was left"
    );
}

#[test]
fn a_fifo_at_the_name_is_written_in_place() {
    let test = "a_fifo_at_the_name_is_written_in_place";
    let Some(lo) = setup(test) else { return };
    let scene = Scene::new("fifo");
    let fifo = scene.dir.join("scan.csv");
    assert!(Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap()
        .success());
    // The reader is there before the run (open with O_NONBLOCK returns at once), so the
    // run's open for writing does not wait, and nothing hangs if the FIFO were replaced.
    use std::os::unix::fs::OpenOptionsExt;
    let mut reader = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(&fifo)
        .unwrap();
    let out = ours(
        &[
            "--surface",
            "--zones",
            "2",
            "--surface-quick",
            "--csv",
            fifo.to_str().unwrap(),
            &lo.dev,
        ],
        &[],
    );
    assert_eq!(out.status.code(), Some(0), "{}", stderr(&out));
    let meta = std::fs::symlink_metadata(&fifo).unwrap();
    assert!(
        meta.file_type().is_fifo(),
        "the FIFO was replaced by a file"
    );
    let mut text = String::new();
    std::io::Read::read_to_string(&mut reader, &mut text).unwrap();
    assert!(text.starts_with("zone,first_lba,"), "{text:?}");
    assert_eq!(text.lines().count(), 3);
}
