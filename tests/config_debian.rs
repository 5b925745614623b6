//! Debian's own scripts are the oracle for hdparm.conf: each configuration file of a table (the
//! stock Debian file, every option key, blocks, by-id names, `command_line`, battery and AC,
//! quirks and errors, and two hundred generated ones) goes through Debian's
//! `hdparm_options` (`/lib/hdparm/hdparm-functions`, run by dash) and through ours; the option
//! strings and the failures must be the same. Then the same files go through Debian's udev hook
//! and `95hdparm-apm resume`, with `hdparm` replaced by a logger, and the hdparm command lines
//! they run must be the ones our plan holds.
//!
//! Needs Debian's hdparm package (the scripts), dash and perl; says so when they are missing
//! (a failure under HDPARM_RS_REQUIRE_ALL=1).

mod common;

use hdparm::config::debian::{hdparm_options, udev_add_plan, Facts};
use hdparm::config::select::Identity;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

const FUNCTIONS: &str = "/lib/hdparm/hdparm-functions";
const UDEV_HOOK: &str = "/lib/udev/hdparm";
const PM_HOOK: &str = "/usr/lib/pm-utils/power.d/95hdparm-apm";

/// The scratch directory of one test, removed at the end.
struct Scratch(PathBuf);

impl Scratch {
    fn new(tag: &str) -> Scratch {
        let dir = std::env::temp_dir().join(format!("hdparm-rs-conf-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("scratch dir");
        Scratch(dir)
    }
    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn have_scripts() -> bool {
    let missing: Vec<&str> = [
        FUNCTIONS,
        UDEV_HOOK,
        PM_HOOK,
        "/usr/bin/dash",
        "/usr/bin/perl",
    ]
    .into_iter()
    .filter(|p| !Path::new(p).exists())
    .collect();
    if missing.is_empty() {
        return true;
    }
    common::skip(
        "config_debian",
        &format!(
            "Debian's hdparm scripts are missing ({}): apt-get install hdparm dash perl",
            missing.join(", ")
        ),
    );
    false
}

/// Debian's functions with the configuration file swapped for ours.
fn functions_for(scratch: &Scratch, conf: &Path) -> PathBuf {
    let text = std::fs::read_to_string(FUNCTIONS).expect("hdparm-functions");
    let text = text.replace("/etc/hdparm.conf", &conf.display().to_string());
    let path = scratch.path("functions");
    std::fs::write(&path, text).expect("write functions");
    path
}

/// The environment the functions see: on_ac_power's answer and udev's properties (set, so
/// that the functions do not ask udevadm).
fn shell_prelude(facts: &Facts) -> String {
    format!(
        "on_ac_power() {{ return {}; }}\nexport ID_PATH=pci-0000:00:1f.2-ata-1\nexport ID_ATA_FEATURE_SET_APM={}\n",
        if facts.on_battery { 1 } else { 0 },
        if facts.try_apm { 1 } else { 0 },
    )
}

/// Runs Debian's `hdparm_options DISK`: what it printed and whether it succeeded.
fn debian_options(scratch: &Scratch, conf: &str, disk: &str, facts: &Facts) -> (String, bool) {
    let conf_path = scratch.path("hdparm.conf");
    std::fs::write(&conf_path, conf).expect("write conf");
    let functions = functions_for(scratch, &conf_path);
    let script = format!(
        "{}. {}\nhdparm_options {disk}\n",
        shell_prelude(facts),
        functions.display()
    );
    let out = Command::new("dash")
        .arg("-c")
        .arg(&script)
        .output()
        .expect("run dash");
    let stdout = String::from_utf8_lossy(&out.stdout).trim_end().to_string();
    let stderr = String::from_utf8_lossy(&out.stderr).trim_end().to_string();
    // The failures print on stdout or stderr; which one does not matter to --apply.
    let text = if out.status.success() {
        stdout
    } else {
        format!("{stdout}{stderr}")
    };
    (text, out.status.success())
}

/// Resolves symlinks the way `[ -h ] && readlink -m` does, for the links a case made.
fn resolver(links: &HashMap<String, String>) -> impl Fn(&str) -> Option<String> + '_ {
    move |name| links.get(name).cloned()
}

struct Conf {
    name: String,
    text: String,
}

fn conf(name: &str, text: &str) -> Conf {
    Conf {
        name: name.into(),
        text: text.into(),
    }
}

/// The table: Debian's stock file, every key, blocks, names, quirks and errors.
fn table(links_dir: &Path) -> Vec<Conf> {
    let by_id = links_dir
        .join("ata-WDC_WD10EFRX_WD-1")
        .display()
        .to_string();
    let by_id_part = links_dir
        .join("ata-WDC_WD10EFRX_WD-1-part1")
        .display()
        .to_string();
    let mut v = vec![
        conf("empty", ""),
        conf("stock", &std::fs::read_to_string("/etc/hdparm.conf").unwrap_or_default()),
        conf("quiet", "quiet\n"),
        conf(
            "every-key",
            "quiet\nread_ahead_sect = 12\nlookahead = on\nbus = on\napm = 255\napm_battery = 127\nio32_support = 1\ndma = off\ndefect_mana = off\ncd_speed = 16\nkeep_settings_over_reset = off\nkeep_features_over_reset = on\nmult_sect_io = 32\nprefetch_sect = 12\nread_only = off\nwrite_read_verify = off\npoweron_standby = off\nspindown_time = 24\nforce_spindown_time = 24\ninterrupt_unmask = on\nwrite_cache = off\ntransfer_mode = 34\nstandby\nsleep\ndisable_seagate\nacoustic_management = 128\nchipset_pio_mode = 4\nsecurity_freeze\nsecurity_unlock = PWD\nsecurity_pass = password\nsecurity_disable = PWD\nuser-master = u\nsecurity_mode = h\nROOTFS = /dev/sda1\n",
        ),
        conf(
            "blocks",
            "quiet\nwrite_cache = on\n/dev/sda {\n\tmult_sect_io = 16\n\twrite_cache = off\n\tdma = on\n}\n/dev/sdb {\n\tapm = 128\n\tspindown_time = 240\n}\n",
        ),
        conf(
            "by-id",
            &format!("{by_id} {{\n        apm = 128\n        acoustic_management = 128\n        spindown_time = 240\n}}\n"),
        ),
        conf("by-id-part", &format!("{by_id_part} {{\n dma = on\n}}\n")),
        conf(
            "command-line",
            "command_line {\n hdparm -d1 /dev/sda\n}\n/dev/sda {\n write_cache = on\n}\n",
        ),
        conf("after-a-block", "/dev/sdc {\n dma = on\n}\nwrite_cache = off\n"),
        conf("battery-and-ac", "apm = 254\napm_battery = 128\nspindown_time = 60\n"),
        conf("repeat", "quiet\napm = 128\nquiet\napm = 200\ndma = on\ndma = off\n"),
        conf("long-options-replace-each-other", "security_freeze\nsecurity_mode = m\n"),
        conf("inline-comment", "apm = 128 # quiet please\n"),
        conf("values-with-words", "dma = on off\nread_ahead_sect = 8 16\n"),
        conf("empty-value", "read_ahead_sect =\n"),
        conf("tabs-and-blanks", "\t \n   # comment\n\twrite_cache\t=\ton\n"),
        conf("bad-boolean", "write_cache = yes\n"),
        conf("bad-boolean-empty", "dma =\n"),
        conf("unknown-key", "speed = 3\n"),
        conf("unknown-bare", "turbo\n"),
        conf("no-blanks", "apm=128\n"),
        conf("bad-separator", "apm : 128\n"),
        conf("close-without-open", "}\n"),
        conf("second-block-same-disk", "/dev/sda {\n dma = on\n}\n/dev/sda {\n dma = off\n}\n"),
        conf("empty-block", "/dev/sda {\n}\n"),
        conf("backslash", "apm = 1\\28\nwrite\\_cache = on\n"),
        conf("sdaa", "/dev/sdaa {\n spindown_time = 12\n write_cache = on\n}\n"),
        conf("nvme", "/dev/nvme0n1 {\n write_cache = on\n apm = 1\n}\n"),
    ];
    v.extend(generated(200));
    v
}

/// Generated files: lines drawn from a vocabulary with a fixed seed, so a failure can be run
/// again.
fn generated(count: usize) -> Vec<Conf> {
    const LINES: &[&str] = &[
        "quiet",
        "apm = 128",
        "apm = 254",
        "apm_battery = 127",
        "spindown_time = 24",
        "force_spindown_time = 36",
        "write_cache = on",
        "write_cache = off",
        "dma = on",
        "lookahead = off",
        "read_ahead_sect = 256",
        "mult_sect_io = 16",
        "acoustic_management = 128",
        "standby",
        "security_freeze",
        "security_mode = m",
        "/dev/sda {",
        "/dev/sdb {",
        "/dev/hda {",
        "}",
        "# comment",
        "",
        "transfer_mode = 69",
        "keep_features_over_reset = on",
        "io32_support = 3",
    ];
    let mut seed: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    (0..count)
        .map(|n| {
            let lines = 1 + next() % 12;
            let text: String = (0..lines)
                .map(|_| format!("{}\n", LINES[(next() % LINES.len() as u64) as usize]))
                .collect();
            conf(&format!("generated-{n}"), &text)
        })
        .collect()
}

const FACTS: [Facts; 4] = [
    facts(false, true),
    facts(true, true),
    facts(false, false),
    facts(true, false),
];

const fn facts(on_battery: bool, try_apm: bool) -> Facts {
    Facts {
        on_battery,
        try_apm,
        identity: Identity {
            model: String::new(),
            serial: String::new(),
            wwn: String::new(),
            classes: Vec::new(),
        },
    }
}

fn make_links(scratch: &Scratch) -> HashMap<String, String> {
    let dir = scratch.path("by-id");
    std::fs::create_dir_all(&dir).expect("by-id dir");
    let mut links = HashMap::new();
    for (name, target) in [
        ("ata-WDC_WD10EFRX_WD-1", "/dev/sdb"),
        ("ata-WDC_WD10EFRX_WD-1-part1", "/dev/sdb1"),
    ] {
        let link = dir.join(name);
        let _ = std::os::unix::fs::symlink(target, &link);
        links.insert(link.display().to_string(), target.to_string());
    }
    links
}

#[test]
fn option_strings_match_debians_hdparm_options() {
    if !have_scripts() {
        return;
    }
    let scratch = Scratch::new("options");
    let links = make_links(&scratch);
    let resolve = resolver(&links);
    let mut compared = 0;
    let mut failures = Vec::new();
    for c in table(&scratch.path("by-id")) {
        for facts in &FACTS {
            for disk in ["/dev/sda", "/dev/sdb", "/dev/sdaa", "/dev/nvme"] {
                let (theirs, ok) = debian_options(&scratch, &c.text, disk, facts);
                let ours = hdparm_options(&c.text, disk, facts, &resolve);
                compared += 1;
                let same = match &ours {
                    Ok(text) => ok && *text == theirs,
                    // For a bad on/off value Debian calls log_failure_msg, which its shell
                    // does not define: it prints "log_failure_msg: not found" and gives up.
                    // Ours gives up too, and says what was wrong.
                    Err(e) => {
                        !ok && (theirs.contains(&e.message)
                            || (e.message.starts_with("Unknown Value for ")
                                && theirs.contains("log_failure_msg: not found")))
                    }
                };
                if !same {
                    failures.push(format!(
                        "{} on {disk} {facts:?}:\n  Debian: {theirs:?} (ok {ok})\n  ours:   {ours:?}",
                        c.name
                    ));
                }
            }
        }
    }
    eprintln!(
        "hdparm_options: {compared} compared, {} differ",
        failures.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Debian's udev hook and pm-utils hook for one disk, with every hdparm run logged instead:
/// the command lines, in order.
fn debian_udev_commands(scratch: &Scratch, conf: &str, disk: &str, facts: &Facts) -> Vec<String> {
    let conf_path = scratch.path("hdparm.conf");
    std::fs::write(&conf_path, conf).expect("write conf");
    let functions = functions_for(scratch, &conf_path);
    let log = scratch.path("log");
    let _ = std::fs::remove_file(&log);
    let logger = scratch.path("hdparm");
    std::fs::write(
        &logger,
        format!("#!/bin/sh\necho \"$*\" >> {}\n", log.display()),
    )
    .expect("logger");
    // pm-utils walks /dev/sd? and /dev/hd? for block devices: here, the one disk.
    let walked = if disk.len() == "/dev/sda".len()
        && (disk.starts_with("/dev/sd") || disk.starts_with("/dev/hd"))
    {
        disk.to_string()
    } else {
        String::new()
    };
    let pm = std::fs::read_to_string(PM_HOOK)
        .expect("95hdparm-apm")
        .replace(FUNCTIONS, &functions.display().to_string())
        .replace("/dev/sd? /dev/hd?", &walked)
        .replace("[ -b $dev ]", "true")
        .replace(
            "hdparm $apm_opt",
            &format!("sh {} $apm_opt", logger.display()),
        );
    let pm_path = scratch.path("95hdparm-apm");
    std::fs::write(&pm_path, format!("#!/bin/sh\n{}{pm}", shell_prelude(facts))).expect("pm");
    let hook = std::fs::read_to_string(UDEV_HOOK)
        .expect("udev hook")
        .replace(FUNCTIONS, &functions.display().to_string())
        .replace(PM_HOOK, &format!("sh {}", pm_path.display()))
        .replace("/sbin/hdparm", &format!("sh {}", logger.display()));
    let hook_path = scratch.path("udev-hdparm");
    std::fs::write(
        &hook_path,
        format!("#!/bin/sh\n{}{hook}", shell_prelude(facts)),
    )
    .expect("hook");
    // Through sh, not exec: a script written a moment ago can still be open in a child that
    // another test thread forked (ETXTBSY).
    let _ = Command::new("sh")
        .arg(&hook_path)
        .env("DEVNAME", disk)
        .output()
        .expect("run the udev hook");
    std::fs::read_to_string(&log)
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn udev_add_runs_the_command_lines_debian_runs() {
    if !have_scripts() {
        return;
    }
    if std::fs::read_to_string("/proc/cmdline").is_ok_and(|c| c.contains("nohdparm")) {
        common::skip(
            "udev_add_runs_the_command_lines_debian_runs",
            "this kernel was booted with nohdparm: Debian's hooks do nothing",
        );
        return;
    }
    let scratch = Scratch::new("udev");
    let links = make_links(&scratch);
    let resolve = resolver(&links);
    let mut compared = 0;
    let mut commands = 0;
    let mut failures = Vec::new();
    for c in table(&scratch.path("by-id")).into_iter().take(120) {
        for facts in &FACTS {
            for disk in ["/dev/sda", "/dev/sdaa"] {
                let theirs = debian_udev_commands(&scratch, &c.text, disk, facts);
                let ours: Vec<String> = udev_add_plan(&c.text, disk, facts, &resolve)
                    .map(|plan| plan.iter().map(|line| line.join(" ")).collect())
                    .unwrap_or_default();
                compared += 1;
                commands += theirs.len();
                if theirs != ours {
                    failures.push(format!(
                        "{} on {disk} {facts:?}:\n  Debian: {theirs:?}\n  ours:   {ours:?}",
                        c.name
                    ));
                }
            }
        }
    }
    eprintln!(
        "udev add: {compared} compared ({commands} hdparm runs), {} differ",
        failures.len()
    );
    assert!(
        commands > compared,
        "the logger saw too few runs: {commands}"
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The one place ours reads a block otherwise than Debian's reader (DIFFERENCES.md
/// `cli:apply-nvme-by-id`): a by-id link to an NVMe namespace. Debian cuts the resolved name at
/// its first digit, `/dev/nvme`, which no disk is called, so the block never applies; ours keeps
/// the namespace. Both read every other key of the same file alike.
#[test]
fn a_by_id_block_for_an_nvme_disk_applies_to_it_where_debians_never_does() {
    if !have_scripts() {
        return;
    }
    let scratch = Scratch::new("nvme-by-id");
    let links = scratch.path("by-id");
    std::fs::create_dir_all(&links).expect("by-id dir");
    let link = links.join("nvme-Samsung_SSD_980_S6-1");
    std::os::unix::fs::symlink("/dev/nvme0n1", &link).expect("link");
    let conf = format!(
        "quiet\nwrite_cache = on\n{} {{\n  write_cache = off\n}}\n",
        link.display()
    );
    let facts = facts(false, false);
    let resolve = |name: &str| (Path::new(name) == link).then(|| "/dev/nvme0n1".to_string());
    let (theirs, ok) = debian_options(&scratch, &conf, "/dev/nvme0n1", &facts);
    assert!(ok, "{theirs}");
    assert_eq!(
        theirs, "-q -W1",
        "Debian: the defaults only, the block never matches"
    );
    let (theirs, _) = debian_options(&scratch, &conf, "/dev/nvme", &facts);
    assert_eq!(theirs, "-q -W0", "Debian matched a disk named /dev/nvme");
    let ours = hdparm_options(&conf, "/dev/nvme0n1", &facts, &resolve).expect("ours");
    assert_eq!(ours, "-q -W0", "ours: the block for this namespace");
}

/// The man page's hdparm.conf examples (section HDPARM.CONF) are what they claim: a file both
/// readers take without a word, ours with no warning.
#[test]
fn the_man_pages_hdparm_conf_examples_read_cleanly() {
    let man = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/doc/hdparm.8"))
        .expect("doc/hdparm.8");
    let section = &man[man.find(".SH HDPARM.CONF").expect("HDPARM.CONF section")..];
    let example =
        &section[section.find(".nf\n").expect(".nf") + 4..section.find(".fi\n").expect(".fi")];
    let example = example.replace("\\-", "-");
    assert!(example.contains("spindown_time"), "{example}");
    let findings = hdparm::config::debian::diagnose(&example);
    assert!(findings.is_empty(), "{findings:?}");
    if !have_scripts() {
        return;
    }
    let scratch = Scratch::new("man-examples");
    for facts in &FACTS {
        let (theirs, ok) = debian_options(&scratch, &example, "/dev/sda", facts);
        assert!(
            ok,
            "Debian's reader gives up on the man page's example: {theirs}"
        );
    }
}
