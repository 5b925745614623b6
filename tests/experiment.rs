//! `--experiment` end to end, through the binary, on a loop device of its own (needs root and
//! `losetup`): the text report, `--plot`, `--json` with `--keep`, a SIGTERM in the middle, and
//! the refusal of an original `-a` cannot set back. Each run checks the read-ahead afterwards
//! with `blockdev --getra`, which does not go through our code.
//!
//! Trials are few (3 per arm, about 20 s a run): the machine is shared.

mod common;

use std::path::PathBuf;
use std::process::Command;

/// A loop device over a sparse file, detached and deleted on drop.
struct LoopDev {
    dev: String,
    backing: PathBuf,
}

impl LoopDev {
    fn new(tag: &str) -> Result<LoopDev, String> {
        let backing = std::env::temp_dir().join(format!(
            "hdparm-rs-experiment-{tag}-{}.img",
            std::process::id()
        ));
        let f = std::fs::File::create(&backing).map_err(|e| e.to_string())?;
        f.set_len(64 << 20).map_err(|e| e.to_string())?;
        drop(f);
        let out = Command::new("losetup")
            .args(["-f", "--show"])
            .arg(&backing)
            .output()
            .map_err(|e| format!("losetup: {e}"))?;
        if !out.status.success() {
            let _ = std::fs::remove_file(&backing);
            return Err(format!(
                "losetup failed: {}",
                String::from_utf8_lossy(&out.stderr).trim()
            ));
        }
        let dev = String::from_utf8_lossy(&out.stdout).trim().to_string();
        Ok(LoopDev { dev, backing })
    }

    fn set_ra(&self, sectors: u32) {
        let ok = Command::new("blockdev")
            .args(["--setra", &sectors.to_string(), &self.dev])
            .status()
            .is_ok_and(|s| s.success());
        assert!(ok, "blockdev --setra {sectors} {}", self.dev);
    }

    fn ra(&self) -> u32 {
        let out = Command::new("blockdev")
            .args(["--getra", &self.dev])
            .output()
            .expect("blockdev --getra");
        String::from_utf8_lossy(&out.stdout)
            .trim()
            .parse()
            .expect("a number from blockdev --getra")
    }
}

impl Drop for LoopDev {
    fn drop(&mut self) {
        let _ = Command::new("losetup").arg("-d").arg(&self.dev).status();
        let _ = std::fs::remove_file(&self.backing);
    }
}

fn loop_dev(test: &str) -> Option<LoopDev> {
    if !common::is_root() {
        common::skip(test, "needs root (loop devices)");
        return None;
    }
    match LoopDev::new(test) {
        Ok(d) => Some(d),
        Err(e) => {
            common::skip(test, &e);
            None
        }
    }
}

fn hdparm(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(common::our_hdparm())
        .args(args)
        .output()
        .expect("run our hdparm");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn experiment_prints_arms_and_a_verdict_plots_and_restores() {
    let Some(d) = loop_dev("experiment_text") else {
        return;
    };
    d.set_ra(256);
    let svg = std::env::temp_dir().join(format!("hdparm-rs-experiment-{}.svg", std::process::id()));
    let svg_arg = svg.display().to_string();
    let (status, out, err) = hdparm(&[
        "--experiment",
        "-a 8",
        "-a 2048",
        "--trials",
        "3",
        "--plot",
        &svg_arg,
        &d.dev,
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    assert!(out.contains(" before: -a 256\n"), "{out}");
    assert!(out.contains(" arm 1 '-a 8'     median "), "{out}");
    assert!(out.contains(" arm 2 '-a 2048'  median "), "{out}");
    assert!(out.contains("(3 trials)"), "{out}");
    assert!(out.contains(" '-a 2048' / '-a 8' = "), "{out}");
    assert!(
        out.contains("no difference this run can detect; the noise is ±")
            || out.contains("' is faster, by ")
            || out.contains("' is slower, by "),
        "{out}"
    );
    assert!(out.contains(" trials (MB/s):\n"), "{out}");
    assert!(
        out.ends_with(" restored: -a 256 (reads back 256)\n"),
        "{out}"
    );
    assert_eq!(d.ra(), 256);
    let picture = std::fs::read_to_string(&svg).expect("the SVG was written");
    let _ = std::fs::remove_file(&svg);
    assert!(picture.starts_with("<svg "));
    assert!(picture.contains(">-a 8</text>") && picture.contains(">-a 2048</text>"));
    assert!(picture.contains(">read rate (MB/s)</text>"));
    assert_eq!(picture.matches("class=\"trial\"").count(), 6);
    check_renders(&picture);
}

/// The SVG renders (rsvg-convert, librsvg's strict parser) to a PNG of the size it declares.
fn check_renders(svg: &str) {
    let test = "experiment_svg_renders";
    let have = Command::new("rsvg-convert")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !have {
        common::skip(test, "rsvg-convert is not installed (librsvg2-bin)");
        return;
    }
    let dir = std::env::temp_dir();
    let svg_path = dir.join(format!("hdparm-rs-render-{}.svg", std::process::id()));
    let png_path = svg_path.with_extension("png");
    std::fs::write(&svg_path, svg).expect("write the SVG");
    let out = Command::new("rsvg-convert")
        .arg(&svg_path)
        .arg("-o")
        .arg(&png_path)
        .output()
        .expect("run rsvg-convert");
    let png = std::fs::read(&png_path).unwrap_or_default();
    let _ = std::fs::remove_file(&svg_path);
    let _ = std::fs::remove_file(&png_path);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        png.starts_with(b"\x89PNG\r\n\x1a\n") && png.len() > 2000,
        "{} bytes",
        png.len()
    );
    let be32 = |at: usize| u32::from_be_bytes([png[at], png[at + 1], png[at + 2], png[at + 3]]);
    let declared = |name: &str| -> u32 {
        let key = format!(" {name}=\"");
        let start = svg.find(&key).expect("a declared size") + key.len();
        svg[start..]
            .split('"')
            .next()
            .and_then(|v| v.parse().ok())
            .expect("a number")
    };
    assert_eq!(
        (be32(16), be32(20)),
        (declared("width"), declared("height"))
    );
}

#[test]
fn experiment_json_holds_every_trial_and_keep_keeps_only_a_winner() {
    let Some(d) = loop_dev("experiment_json") else {
        return;
    };
    d.set_ra(256);
    let (status, out, err) = hdparm(&[
        "--experiment",
        "-a 8",
        "-a 2048",
        "--trials",
        "3",
        "--keep",
        "--json",
        &d.dev,
    ]);
    assert_eq!(status, 0, "{out}\n{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
    assert_eq!(
        doc["json_format_version"][0],
        hdparm::report::envelope::JSON_FORMAT_VERSION[0]
    );
    let e = &doc["devices"][0]["experiment"];
    assert_eq!(e["unit"], "mib_per_second");
    assert_eq!(e["trials_per_arm"], 3);
    for arm in 0..2 {
        let trials = e["arms"][arm]["trials_mib_per_second"]
            .as_array()
            .expect("the arm's trials");
        assert_eq!(trials.len(), 3, "{e}");
        assert!(trials.iter().all(|t| t.as_f64().is_some_and(|v| v > 0.0)));
        assert_eq!(e["arms"][arm]["summary"]["count"], 3);
    }
    assert_eq!(e["trials"].as_array().map(Vec::len), Some(6));
    assert!(e["warmup"]["mib_per_second"].as_f64().is_some());
    assert!(e["comparisons"][0]["ci95_low"].as_f64().is_some());
    assert!(e["comparisons"][0]["verdict"]["verdict"].is_string());
    match e["kept"].as_u64() {
        Some(w) => {
            // A winner: it stays applied, and the stanza says how to keep it.
            let want = if w == 0 { 8 } else { 2048 };
            assert_eq!(d.ra(), want, "{e}");
            assert!(e["stanza"]
                .as_str()
                .is_some_and(|s| s.contains(&format!("read_ahead_sect = {want}"))));
            assert_eq!(e["restored"].as_array().map(Vec::len), Some(0));
        }
        None => {
            assert!(e["winner"].is_null());
            assert_eq!(d.ra(), 256);
            assert_eq!(e["restored"][0]["reads_back"], "256");
            assert!(err.contains("--keep: no arm won, so the original settings were restored"));
        }
    }
}

/// Every stop signal restores the read-ahead and then ends the process with that signal
/// (issue 18: SIGHUP and SIGQUIT left it at the trial value, exit 129; SIGTERM exited 5).
#[test]
fn experiment_restores_on_every_stop_signal_and_dies_of_it() {
    use std::os::unix::process::ExitStatusExt;
    let Some(d) = loop_dev("experiment_signal") else {
        return;
    };
    for (name, number) in [
        ("TERM", libc::SIGTERM),
        ("HUP", libc::SIGHUP),
        ("QUIT", libc::SIGQUIT),
        ("INT", libc::SIGINT),
    ] {
        d.set_ra(256);
        let child = common::take_stop_signals(Command::new(common::our_hdparm()).args([
            "--experiment",
            "-a 8",
            "-a 2048",
            "--trials",
            "3",
            &d.dev,
        ]))
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn our hdparm");
        // Into the trials: an arm's read-ahead is applied.
        while d.ra() == 256 {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        common::send_signal(&child, name);
        let out = child.wait_with_output().expect("wait for our hdparm");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert_eq!(
            out.status.signal(),
            Some(number),
            "SIG{name}: {:?}\n{stdout}\n{stderr}",
            out.status
        );
        assert!(
            stdout.contains(" stopped early: interrupted by a signal after "),
            "{stdout}"
        );
        assert!(
            stdout.contains(" restored: -a 256 (reads back 256)"),
            "{stdout}"
        );
        assert!(
            stderr.contains(&format!("--experiment stopped early by SIG{name}: ")),
            "{stderr}"
        );
        assert_eq!(d.ra(), 256, "SIG{name}: the read-ahead was not restored");
    }
}

#[test]
fn experiment_refuses_an_original_it_could_not_restore() {
    let Some(d) = loop_dev("experiment_refuse") else {
        return;
    };
    d.set_ra(5120);
    let (status, out, err) = hdparm(&["--experiment", "-a 8", "-a 2048", &d.dev]);
    assert_eq!(status, 5, "{out}\n{err}");
    assert!(
        err.contains("-a is 5120 now, outside what -a can set (0..2048)"),
        "{err}"
    );
    assert_eq!(d.ra(), 5120);
}

/// No device needed: a risky arm without its guard flag is refused before anything is read.
#[test]
fn a_risky_arm_needs_the_guard_flag() {
    let (status, out, err) = hdparm(&["--experiment", "-a 8", "-d0", "/dev/null"]);
    assert_eq!(status, 1, "{out}\n{err}");
    assert!(
        err.contains("arm '-d0' sets -d 0, which hdparm's manual calls dangerous"),
        "{err}"
    );
    assert!(err.contains("--yes-i-know-what-i-am-doing"), "{err}");
    assert!(out.is_empty());
    let (status, out, _) = hdparm(&["--experiment", "-a 8", "-d0", "--json", "/dev/null"]);
    assert_eq!(status, 1);
    let doc: serde_json::Value = serde_json::from_str(&out).expect("JSON on stdout");
    assert_eq!(doc["devices"][0]["messages"][0]["class"], "guard");
}

/// No device needed: a setting whose get fails is refused before anything is set.
#[test]
fn an_unreadable_original_is_refused() {
    let (status, out, err) = hdparm(&["--experiment", "-W0", "-W1", "/dev/null"]);
    assert_eq!(status, 5, "{out}\n{err}");
    assert!(
        err.contains("--experiment: cannot read -W before changing it ("),
        "{err}"
    );
    assert!(
        err.contains("so it could not be restored: nothing was changed"),
        "{err}"
    );
}
