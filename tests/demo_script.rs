//! Quick checks of `scripts/demo`, the README's first command, without booting its VM (a run
//! takes minutes; see tests/vm/README.md): the script parses, answers `--help`, refuses what
//! it does not know; its scenario list suits the harness and the `demo` profile of
//! `tests/vm/run.sh`; and its summary, printed from a hand-made results folder, says
//! identical, differs and ours-only where it should.

use std::path::{Path, PathBuf};
use std::process::Command;

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn demo() -> Command {
    let mut c = Command::new("bash");
    c.arg(repo().join("scripts/demo"));
    c
}

#[test]
fn script_parses_and_answers_help() {
    let n = Command::new("bash")
        .arg("-n")
        .arg(repo().join("scripts/demo"))
        .output()
        .unwrap();
    assert!(
        n.status.success(),
        "bash -n: {}",
        String::from_utf8_lossy(&n.stderr)
    );

    let h = demo().arg("--help").output().unwrap();
    assert!(h.status.success());
    let text = String::from_utf8_lossy(&h.stdout);
    for want in ["usage: scripts/demo", "--out DIR", "emulated", "/dev/sdX"] {
        assert!(text.contains(want), "--help lacks {want:?}:\n{text}");
    }
    assert!(
        !text.contains("set -euo"),
        "--help runs past the header:\n{text}"
    );

    let bad = demo().arg("--no-such-option").output().unwrap();
    assert_eq!(bad.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("unknown option --no-such-option"));
}

/// `id TAB kinds TAB steps [TAB options]` lines of a scenario list, comments left out.
fn scenario_lines(path: &Path) -> Vec<Vec<String>> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .map(|l| l.split('\t').map(str::to_string).collect())
        .collect()
}

#[test]
fn scenario_list_suits_the_harness_and_the_profile() {
    let dir = repo().join("tests/vm/scenarios");
    let demo = scenario_lines(&dir.join("demo.tsv"));
    // the drive kinds of run.sh's demo profile: "demo) ide_hd; ide_cd; ahci; ahci_hd; nvme;;"
    let run_sh = std::fs::read_to_string(repo().join("tests/vm/run.sh")).unwrap();
    let profile = run_sh
        .lines()
        .find_map(|l| l.strip_prefix("demo) "))
        .expect("run.sh has a demo profile");
    let kinds: Vec<String> = profile
        .trim_end_matches(";;")
        .split(';')
        .map(|f| f.trim().replace('_', "-"))
        .filter(|k| !k.is_empty() && k != "ahci")
        .collect();
    assert_eq!(kinds, ["ide-hd", "ide-cd", "ahci-hd", "nvme"]);

    // ids of the lists vm_bench compares: a demo id among them would keep the bench from
    // judging that id's DIFFERENCES.md rows stale (it skips rows whose scenario did not run)
    let mut others = Vec::new();
    for e in std::fs::read_dir(&dir).unwrap().flatten() {
        let p = e.path();
        if p.extension().is_some_and(|x| x == "tsv") && p.file_stem().is_some_and(|s| s != "demo") {
            others.extend(scenario_lines(&p).into_iter().map(|f| f[0].clone()));
        }
    }
    let mut seen = Vec::new();
    for f in &demo {
        let id = &f[0];
        assert!((3..=4).contains(&f.len()), "{id}: {} fields", f.len());
        assert!(id.starts_with("demo-"), "{id}: demo ids start with demo-");
        assert!(
            !others.contains(id) && !seen.contains(id),
            "{id}: id used twice"
        );
        seen.push(id.clone());
        // tests/vm_bench.rs parses every list in the folder and knows one option
        if let Some(o) = f.get(3) {
            assert!(o.split(',').all(|o| o == "timing"), "{id}: option {o:?}");
        }
        assert!(
            f[1] == "*" || f[1].split(',').all(|k| kinds.iter().any(|p| p == k)),
            "{id}: kinds {} not in the demo profile",
            f[1]
        );
        for s in f[2].split(" ;; ") {
            assert!(s.contains("DEV"), "{id}: step {s:?} names no device");
            assert!(
                !s.starts_with('!') || s.starts_with("!ours "),
                "{id}: step {s:?}"
            );
        }
    }
    for job in [
        "demo-default",
        "demo-I",
        "demo-tT",
        "demo-C",
        "demo-W",
        "demo-json-I",
        "demo-bench",
    ] {
        assert!(seen.iter().any(|s| s == job), "demo.tsv lacks {job}");
    }
    // The NVMe drive under TCG on a busy host: its driver waits 120 s for a read, not 30 s,
    // before it aborts and resets the controller, passed on to insmod as modprobe would; and a
    // step may run 300 s, so that it outlives that wait (at 60 s it was killed, exit 143)
    assert!(
        run_sh.contains("APPEND_PROFILE=\" nvme_core.io_timeout=120\""),
        "run.sh's demo profile sets the NVMe driver's timeout"
    );
    let init = std::fs::read_to_string(repo().join("tests/vm/guest/init")).unwrap();
    assert!(
        init.contains("insmod \"/lib/modules/$m\" $_args"),
        "guest/init hands MODULE.PARAM= kernel arguments to insmod"
    );
    let script = std::fs::read_to_string(repo().join("scripts/demo")).unwrap();
    assert!(
        script.contains("--cmd-timeout 300"),
        "scripts/demo's step limit"
    );
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// One step's files, as run.sh splits them: `base` is `<kind>/<id>/<tool>.<step>`.
fn step(dir: &Path, base: &str, cmd: &str, out: &str, exit: u8) {
    write(dir, &format!("{base}.cmd"), cmd);
    write(dir, &format!("{base}.stdout"), out);
    write(dir, &format!("{base}.stderr"), "");
    write(dir, &format!("{base}.exit"), &format!("{exit}\n"));
    write(dir, &format!("{base}.dmesg"), "");
}

/// `scripts/demo --summary-only` over a results folder, which it then removes: the run and
/// its stdout.
fn summary_of(dir: &Path) -> (std::process::Output, String) {
    let o = demo()
        .args(["--summary-only", "--out"])
        .arg(dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let _ = std::fs::remove_dir_all(dir);
    (o, text)
}

#[test]
fn summary_of_a_results_folder() {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-demo-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // steps no list in the repository has, so that no DIFFERENCES.md row applies
    write(
        &dir,
        "scenarios.tsv",
        "demo-tT\t*\t-tT DEV\ttiming\n\
         demo-C\t*\t-C DEV ;; -C DEV ;; -C DEV\n\
         demo-json-I\t*\t!ours --json -I DEV\n\
         demo-bench\t*\t!ours --bench DEV\n\
         demo-advise\t*\t!ours -a8 DEV ;; !ours --advise DEV\n",
    );
    write(&dir, "results.log", "");
    write(&dir, "expected-kinds", "ahci-hd\n");
    write(&dir, "_boot/devmap/sh.1.stdout", "ahci-hd /dev/sdb\n");
    let t = |mb: &str| {
        format!(
            "\n/dev/sdb:\n Timing cached reads:   1000 MB in  2.00 seconds = 500.00 MB/sec\n \
             Timing buffered disk reads: 300 MB in  3.00 seconds = {mb} MB/sec\n"
        )
    };
    step(&dir, "ahci-hd/demo-tT/hdparm.1", "-tT DEV", &t("100.00"), 0);
    step(
        &dir,
        "ahci-hd/demo-tT/hdparm-rs.1",
        "-tT DEV",
        &t("123.40"),
        0,
    );
    let state = |s: &str| format!("\n/dev/sdb:\n drive state is:  {s}\n");
    for n in 1..=3 {
        let ours = if n == 3 { "standby" } else { "active/idle" };
        step(
            &dir,
            &format!("ahci-hd/demo-C/hdparm.{n}"),
            "-C DEV",
            &state("active/idle"),
            0,
        );
        step(
            &dir,
            &format!("ahci-hd/demo-C/hdparm-rs.{n}"),
            "-C DEV",
            &state(ours),
            0,
        );
    }
    let json = "!ours --json -I DEV";
    step(&dir, "ahci-hd/demo-json-I/hdparm.1", json, "", 0);
    step(
        &dir,
        "ahci-hd/demo-json-I/hdparm-rs.1",
        json,
        "{\"devices\": []}\n",
        0,
    );

    // --bench killed by the step's time limit, after an NVMe timeout in the guest.
    let bench = "!ours --bench DEV";
    step(&dir, "ahci-hd/demo-bench/hdparm.1", bench, "", 0);
    step(&dir, "ahci-hd/demo-bench/hdparm-rs.1", bench, "", 143);
    write(
        &dir,
        "ahci-hd/demo-bench/hdparm-rs.1.stderr",
        "/dev/sdb: --bench: starting\n trial 1 of 2\n",
    );
    write(
        &dir,
        "ahci-hd/demo-bench/hdparm-rs.1.dmesg",
        "[   31.000000] ok\n[   61.250000] nvme nvme0: I/O 12 QID 1 timeout, reset controller\n",
    );

    // --advise after -a8: the rule it gives is in the figures.
    for (n, cmd, out) in [
        (1, "!ours -a8 DEV", "\n/dev/sdb:\n setting fs readahead to 8\n"),
        (
            2,
            "!ours --advise DEV",
            "\n/dev/sdb:\n small_read_ahead: read-ahead is 8 sectors (4 KiB) on a rotating disk\n    fix:  hdparm -a 256 /dev/sdb\n",
        ),
    ] {
        step(&dir, &format!("ahci-hd/demo-advise/hdparm.{n}"), cmd, "", 0);
        step(&dir, &format!("ahci-hd/demo-advise/hdparm-rs.{n}"), cmd, out, 0);
    }

    let (o, text) = summary_of(&dir);
    assert!(
        o.status.success(),
        "{text}\n{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let row = |label: &str| {
        text.lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} line:\n{text}"))
            .split_whitespace()
            .skip(label.split_whitespace().count())
            .collect::<Vec<_>>()
            .join(" ")
    };
    assert_eq!(row("-tT"), "identical", "{text}");
    assert_eq!(row("-C, -C, -C"), "DIFFERS[1]", "{text}");
    assert!(
        text.contains("[1] differs: stdout; no DIFFERENCES.md row"),
        "{text}"
    );
    assert!(
        row("--json -I").starts_with("valid JSON") || row("--json -I") == "ran",
        "{text}"
    );
    // One run each, hdparm's first: ours only, no bracketed figure to compare with.
    assert_eq!(row("-t MB/s"), "123", "{text}");
    assert_eq!(row("-T MB/s"), "500", "{text}");
    let figures = text.split("figures (").nth(1).unwrap_or_default();
    assert!(
        figures
            .lines()
            .any(|l| l.split_whitespace().collect::<Vec<_>>() == ["--advise", "small_read_ahead"]),
        "{text}"
    );
    // A failed job says what happened: how it ended, its last stderr line, the guest's dmesg.
    assert_eq!(row("--bench"), "ran, exit 143[2]", "{text}");
    let note = text
        .split("[2] ")
        .nth(1)
        .map(|n| {
            n.split("\n[")
                .next()
                .unwrap_or(n)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" ")
        })
        .unwrap_or_default();
    assert!(
        note.starts_with("ahci-hd: ours \"--bench DEV\" killed by SIGTERM (the step's time limit ran out); its last stderr line: \"trial 1 of 2\"; the guest's dmesg: ok | nvme nvme0: I/O 12 QID 1 timeout, reset controller"),
        "{note}\n{text}"
    );
    assert_eq!(row("model (-I)"), "-", "{text}");
    assert!(text.contains("/dev/sdb"), "{text}");
}

/// A footnote carries its DIFFERENCES.md row whole: the summary once cut rows at 240
/// characters, mid-sentence.
#[test]
fn summary_footnotes_carry_the_whole_row() {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-demo-notes-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // "-C DEV" is main.tsv's job C, which a long row explains on the CD-ROMs.
    write(&dir, "scenarios.tsv", "demo-C\t*\t-C DEV\n");
    write(&dir, "results.log", "");
    write(&dir, "expected-kinds", "ide-cd\n");
    write(&dir, "_boot/devmap/sh.1.stdout", "ide-cd /dev/sr0\n");
    step(
        &dir,
        "ide-cd/demo-C/hdparm.1",
        "-C DEV",
        "\n/dev/sr0:\n drive state is:  standby\n",
        0,
    );
    step(
        &dir,
        "ide-cd/demo-C/hdparm-rs.1",
        "-C DEV",
        "\n/dev/sr0:\n drive state is:  unknown\n",
        5,
    );
    write(
        &dir,
        "ide-cd/demo-C/hdparm-rs.1.stderr",
        "/dev/sr0: -C: aborted\n",
    );
    let (_, text) = summary_of(&dir);
    let diffs = std::fs::read_to_string(repo().join("DIFFERENCES.md")).unwrap();
    let why = diffs
        .lines()
        .find(|l| l.starts_with("| vm:ide-cd,ahci-cd:C |"))
        .and_then(|l| l.trim_end_matches(" |").rsplit(" | ").next())
        .expect("the row of job C on the CD-ROMs");
    assert!(why.len() > 240, "the row is long enough to have been cut");
    let flat = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(flat(&text).contains(&flat(why)), "{why}\n{text}");
}
