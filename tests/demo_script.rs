//! Quick checks of `scripts/demo`, the README's first command, without booting its VM (a run
//! takes minutes; see tests/vm/README.md): the script parses, answers `--help`, refuses what
//! it does not know; its scenario list suits the harness and the `demo` profile of
//! `tests/vm/run.sh`, with the settings that let the NVMe drive's jobs finish under TCG; and its
//! summary, printed from a hand-made results folder, says identical, differs and ours-only
//! where it should, what happened when a job failed, whole sentences of a DIFFERENCES.md row,
//! the -t ratio of alternating pairs rather than single runs side by side, and what --advise
//! found.

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
                !s.starts_with('!') || s.starts_with("!ours ") || s.starts_with("!ours-sh "),
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
        "demo-t-pairs",
        "demo-advise",
    ] {
        assert!(seen.iter().any(|s| s == job), "demo.tsv lacks {job}");
    }
    // -t in alternating pairs, both tools in one pass: hdparm, ours; ours, hdparm; ...
    let pairs = demo.iter().find(|f| f[0] == "demo-t-pairs").unwrap();
    let tools: Vec<&str> = pairs[2]
        .split(" ;; ")
        .map(|s| if s.contains("/sbin/hdparm") { "h" } else { "o" })
        .collect();
    assert_eq!(tools.concat(), "hoohho", "{}", pairs[2]);
    // --advise gets a setting spoiled first, and set back after
    let advise = demo.iter().find(|f| f[0] == "demo-advise").unwrap();
    let steps: Vec<&str> = advise[2].split(" ;; ").collect();
    assert_eq!(steps.len(), 3, "{steps:?}");
    assert!(
        steps[0].contains("-W0") && steps[2].contains("-W1"),
        "{steps:?}"
    );
    // The NVMe drive under TCG: a small queue for --bench, a driver timeout longer than 30 s
    // and a step limit longer than that (the bench and the scan were killed at 60 s before)
    let bench = demo.iter().find(|f| f[0] == "demo-bench").unwrap();
    let depth = bench[2]
        .split_whitespace()
        .skip_while(|w| *w != "--bench-depth")
        .nth(1)
        .and_then(|d| d.parse::<u32>().ok())
        .expect("--bench-depth N in demo-bench");
    assert!(depth <= 8, "{}", bench[2]);
    assert!(
        run_sh.contains("APPEND_PROFILE=\" nvme_core.io_timeout=120\""),
        "run.sh's demo profile"
    );
    let script = std::fs::read_to_string(repo().join("scripts/demo")).unwrap();
    assert!(script.contains("--cmd-timeout 300"), "scripts/demo");
    let init = std::fs::read_to_string(repo().join("tests/vm/guest/init")).unwrap();
    assert!(
        init.contains("insmod \"/lib/modules/$m\" $_args"),
        "guest/init"
    );
}

fn write(dir: &Path, rel: &str, text: &str) {
    let p = dir.join(rel);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, text).unwrap();
}

/// One step's files, as run.sh splits them: `base` is `<kind>/<id>/<tool>.<step>`.
fn step(dir: &Path, base: &str, cmd: &str, out: &str, exit: u8) {
    step_with(dir, base, cmd, out, exit, "", "");
}

/// A step with its stderr and the guest kernel's messages.
fn step_with(dir: &Path, base: &str, cmd: &str, out: &str, exit: u8, err: &str, dmesg: &str) {
    write(dir, &format!("{base}.cmd"), cmd);
    write(dir, &format!("{base}.stdout"), out);
    write(dir, &format!("{base}.stderr"), err);
    write(dir, &format!("{base}.exit"), &format!("{exit}\n"));
    write(dir, &format!("{base}.dmesg"), dmesg);
}

#[test]
fn summary_of_a_results_folder() {
    let dir = std::env::temp_dir().join(format!("hdparm-rs-demo-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // steps no list in the repository has, so that no DIFFERENCES.md row applies, but for -I,
    // whose row is in the run's own copy of the rows (judged-by/)
    let pairs = "!ours-sh /sbin/hdparm -t DEV ;; !ours-sh /opt/hdparm-rs/hdparm -t DEV ;; \
                 !ours-sh /opt/hdparm-rs/hdparm -t DEV ;; !ours-sh /sbin/hdparm -t DEV ;; \
                 !ours-sh /sbin/hdparm -t DEV ;; !ours-sh /opt/hdparm-rs/hdparm -t DEV";
    let bench = "!ours --bench --bench-depth 4 DEV";
    let advise = "!ours -W0 -a8 DEV ;; !ours --advise DEV ;; !ours -W1 -a256 DEV";
    write(
        &dir,
        "scenarios.tsv",
        &format!(
            "demo-I\t*\t-I DEV\n\
             demo-tT\t*\t-tT DEV\ttiming\n\
             demo-t-pairs\tahci-hd\t{pairs}\n\
             demo-C\t*\t-C DEV ;; -C DEV ;; -C DEV\n\
             demo-json-I\t*\t!ours --json -I DEV\n\
             demo-bench\t*\t{bench}\n\
             demo-advise\tahci-hd\t{advise}\n"
        ),
    );
    // a row of three sentences, longer than a footnote's 300 characters
    let long = format!(
        "The first sentence says what differs, e.g. the decode, at some length {}. \
         The second says why. The third sentence is where a cut at a fixed length fell {}.",
        "and more ".repeat(20),
        "and more ".repeat(10)
    );
    write(&dir, "judged-by/main.tsv", "I\t*\t-I DEV\n");
    write(
        &dir,
        "judged-by/DIFFERENCES.md",
        &format!("| key | streams | reason |\n|---|---|---|\n| vm:ahci-hd:I | stdout | {long} |\n"),
    );
    write(
        &dir,
        "results.log",
        "@@R nvme demo-bench hdparm-rs 1 143 300.01 10 0 0 0\n",
    );
    write(
        &dir,
        "qemu-cmdline.txt",
        "qemu-system-x86_64 -append 'console=ttyS0 bench.timeout=300 nvme_core.io_timeout=120'\n",
    );
    write(&dir, "expected-kinds", "ahci-hd\nnvme\n");
    write(
        &dir,
        "_boot/devmap/sh.1.stdout",
        "ahci-hd /dev/sdb\nnvme /dev/nvme0n1\n",
    );
    let t = |mb: &str| {
        format!(
            "\n/dev/sdb:\n Timing cached reads:   1000 MB in  2.00 seconds = 500.00 MB/sec\n \
             Timing buffered disk reads: 300 MB in  3.00 seconds = {mb} MB/sec\n"
        )
    };
    for k in ["ahci-hd", "nvme"] {
        step(
            &dir,
            &format!("{k}/demo-I/hdparm.1"),
            "-I DEV",
            "\n/dev/x:\n",
            0,
        );
        step(
            &dir,
            &format!("{k}/demo-I/hdparm-rs.1"),
            "-I DEV",
            "\n/dev/x:\n\tModel Number:       QEMU HARDDISK\n",
            0,
        );
        step(
            &dir,
            &format!("{k}/demo-tT/hdparm.1"),
            "-tT DEV",
            &t("100.00"),
            0,
        );
        step(
            &dir,
            &format!("{k}/demo-tT/hdparm-rs.1"),
            "-tT DEV",
            &t("123.40"),
            0,
        );
    }
    // the pairs: ours / hdparm's = 1.10, 0.90, 1.02
    for (n, mb) in [
        (1, "100.00"),
        (2, "110.00"),
        (3, "90.00"),
        (4, "100.00"),
        (5, "100.00"),
        (6, "102.00"),
    ] {
        let cmd = pairs.split(" ;; ").nth(n - 1).unwrap();
        step(
            &dir,
            &format!("ahci-hd/demo-t-pairs/hdparm-rs.{n}"),
            cmd,
            &t(mb),
            0,
        );
        step(
            &dir,
            &format!("ahci-hd/demo-t-pairs/hdparm.{n}"),
            cmd,
            "",
            0,
        );
    }
    let state = |s: &str| format!("\n/dev/sdb:\n drive state is:  {s}\n");
    for k in ["ahci-hd", "nvme"] {
        for n in 1..=3 {
            let ours = if n == 3 { "standby" } else { "active/idle" };
            step(
                &dir,
                &format!("{k}/demo-C/hdparm.{n}"),
                "-C DEV",
                &state("active/idle"),
                0,
            );
            step(
                &dir,
                &format!("{k}/demo-C/hdparm-rs.{n}"),
                "-C DEV",
                &state(ours),
                0,
            );
        }
        let json = "!ours --json -I DEV";
        step(&dir, &format!("{k}/demo-json-I/hdparm.1"), json, "", 0);
        step(
            &dir,
            &format!("{k}/demo-json-I/hdparm-rs.1"),
            json,
            "{\"devices\": []}\n",
            0,
        );
        step(&dir, &format!("{k}/demo-bench/hdparm.1"), bench, "", 0);
    }
    step(
        &dir,
        "ahci-hd/demo-bench/hdparm-rs.1",
        bench,
        "\n/dev/sdb:\n  Throughput (mean ± σ):   634.50 MB/sec ±   1.00 MB/sec\n",
        0,
    );
    // the NVMe bench killed at the step limit, the kernel having reset the controller
    step_with(
        &dir,
        "nvme/demo-bench/hdparm-rs.1",
        bench,
        "\n/dev/nvme0n1:\n",
        143,
        "\n  Trial 1/2: 0.3 s of 0.5 s, 12.00 MB/sec\n",
        "[   71.204518] nvme nvme0: I/O 12 QID 1 timeout, aborting\n\
         [   71.204990] nvme nvme0: I/O 12 QID 1 timeout, reset controller\n\
         [   72.000001] nvme0n1: detected capacity change\n",
    );
    for (n, cmd) in advise.split(" ;; ").enumerate() {
        let out = if n == 1 {
            "\n/dev/sdb:\n write_cache_off: the drive's write cache is off\n    why:  every write waits\n    risk: lost writes\n    fix:  hdparm -W1 /dev/sdb\n small_read_ahead: read-ahead is 8 sectors (4 KiB) on a rotating disk\n    why:  stalls\n    risk: memory\n    fix:  hdparm -a 256 /dev/sdb\n"
        } else {
            ""
        };
        step(
            &dir,
            &format!("ahci-hd/demo-advise/hdparm-rs.{}", n + 1),
            cmd,
            out,
            0,
        );
        step(
            &dir,
            &format!("ahci-hd/demo-advise/hdparm.{}", n + 1),
            cmd,
            "",
            0,
        );
    }

    let o = demo()
        .args(["--summary-only", "--out"])
        .arg(&dir)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).to_string();
    let _ = std::fs::remove_dir_all(&dir);
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
    // the footnote for a note number, its lines joined
    let note = |cell: &str| -> String {
        let n = cell
            .split('[')
            .nth(1)
            .and_then(|r| r.split(']').next())
            .unwrap_or_else(|| panic!("no note in {cell:?}"));
        let mut lines = text
            .lines()
            .skip_while(|l| !l.starts_with(&format!("[{n}] ")));
        let mut t = lines.next().unwrap_or_default().to_string();
        for l in lines.take_while(|l| l.starts_with("    ")) {
            t.push(' ');
            t.push_str(l.trim_start());
        }
        t
    };
    // the two drives' cells of a line (each 22 characters wide, after a 16-character label)
    let cells = |label: &str| -> Vec<String> {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(label))
            .unwrap_or_else(|| panic!("no {label:?} line:\n{text}"));
        vec![
            line.get(17..39).unwrap_or_default().trim().to_string(),
            line.get(40..).unwrap_or_default().trim().to_string(),
        ]
    };
    assert_eq!(row("-tT"), "identical identical", "{text}");
    assert!(row("-C, -C, -C").starts_with("DIFFERS["), "{text}");
    assert!(
        text.contains("] differs: stdout; no DIFFERENCES.md row"),
        "{text}"
    );
    assert!(row("--json -I").starts_with("valid JSON") || row("--json -I").starts_with("ran"));
    // single runs are shown, not compared
    assert_eq!(row("-t MB/s"), "123 123", "{text}");
    assert_eq!(row("-T MB/s"), "500 500", "{text}");
    assert_eq!(row("model (-I)"), "QEMU HARDDISK QEMU HARDDISK", "{text}");
    assert!(
        text.contains("/dev/sdb") && text.contains("/dev/nvme0n1"),
        "{text}"
    );
    // -t in pairs: the median of 1.10, 0.90, 1.02, and the range
    let t_pairs = cells("-t, median");
    assert!(t_pairs[0].starts_with("1.02 (0.90-1.10)["), "{text}");
    assert_eq!(t_pairs[1], "-", "{text}");
    let pn = note(&t_pairs[0]);
    assert!(
        pn.contains("3 alternating pairs (hdparm then ours, ours then hdparm, hdparm then ours)"),
        "{pn}"
    );
    assert!(pn.contains("1.10, 0.90, 1.02"), "{pn}");
    // a failed job says how: the exit status and what it means, the last stderr line, the kernel
    let b = cells("--bench");
    assert_eq!(b[0], "ran", "{text}");
    assert!(b[1].starts_with("FAILED, exit 143["), "{text}");
    let why = note(&b[1]);
    for want in [
        "nvme, --bench: `hdparm --bench --bench-depth 4 /dev/nvme0n1` exited 143",
        "killed by SIGTERM after 300.01 s, at the guest's limit of 300 s per step",
        "the last line on stderr: \"Trial 1/2: 0.3 s of 0.5 s, 12.00 MB/sec\"",
        "the guest kernel logged: nvme nvme0: I/O 12 QID 1 timeout, aborting; nvme nvme0: I/O 12 QID 1 timeout, reset controller.",
    ] {
        assert!(why.contains(want), "{want:?} not in {why:?}");
    }
    assert!(!why.contains("capacity change"), "{why}");
    // --advise after a setting was spoiled: what it found
    let a = cells("--advise");
    assert!(a[0].starts_with("found 2["), "{text}");
    assert_eq!(a[1], "-", "{text}");
    let found = note(&a[0]);
    assert!(found.contains("after `-W0 -a8` spoiled its settings: write_cache_off (the drive's write cache is off); small_read_ahead (read-ahead is 8 sectors (4 KiB) on a rotating disk)"), "{found}");
    // a long row: whole sentences, never cut inside one
    let i = cells("-I");
    assert!(i[0].starts_with("on purpose["), "{text}");
    let row_note = note(&i[0]);
    assert!(
        row_note.ends_with("The second says why. (more in DIFFERENCES.md)"),
        "{row_note}"
    );
    assert!(row_note.contains("e.g. the decode"), "{row_note}");
    assert!(!row_note.contains("The third"), "{row_note}");
}
