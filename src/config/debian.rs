//! Debian's hdparm.conf, read exactly as Debian's own scripts read it.
//!
//! Debian applies `/etc/hdparm.conf` with shell: `hdparm_options` in `/lib/hdparm/hdparm-functions`
//! turns the file into an option string for one disk, `/lib/udev/hdparm` runs it on an add
//! event, and `/usr/lib/pm-utils/power.d/95hdparm-apm` applies `-B` and `-S` (reference §9).
//! [`hdparm_options`] reproduces the first word for word, quirks included, and [`udev_add_plan`]
//! the hdparm command lines the other two run for one disk. The differential test
//! `tests/config_debian.rs` runs Debian's own functions on the same files and compares.
//!
//! The quirks kept, because a drop-in must read the same file the same way:
//! - `read KEY SEP VALUE`: a line is split on blanks; `KEY = VALUE` needs the blanks around `=`,
//!   and VALUE is the rest of the line; a backslash escapes the next character;
//! - an option replaces every earlier one with the same first two characters, so any `--...`
//!   option replaces all earlier `--...` options, and the `-q` right before it goes too;
//! - `security_unlock = PWD` and its kin append only the option name: the shell passes the
//!   password as an argument that `hdparm_set_option` never reads;
//! - options after the first block's `}` go to that block's copy, not to the defaults;
//! - a `/dev/disk/by-*` name is resolved (`readlink -m`) and cut at its first digit.
//!
//! Not reproduced: pathname expansion of the unquoted option words (a `*` in the file), and the
//! cut for NVMe: it made every namespace `/dev/nvme`, so a by-id block never applied to an NVMe
//! disk; ours keeps the namespace (`block_device`).
//!
//! Beyond the reader: [`diagnose`] names every line the reader would give up on, with its line
//! number, and the lines it reads otherwise than they look; [`udev_add_drops`] says which APM
//! and spindown settings Debian's hooks never send to a disk, and by which rule.
//!
//! One extension: a block keyed by a selector (`model:GLOB`, `class:ssd`..., see `select.rs`)
//! applies to the drives it selects. Debian's scripts never match such a key (no DEVNAME looks
//! like it), so a file read by both still means the same to both for every other block.
//!
//! What this file must not do: read files, ask udev or the power supply; the caller passes what
//! they say.

use super::keys::{self, Form, Power};
use super::select::{self, Identity};
use std::fmt;

/// What the scripts ask the system about one disk and the machine.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Facts {
    /// `on_ac_power` exited 1.
    pub on_battery: bool,
    /// `hdparm_try_apm`: not on USB or FireWire (`ID_PATH`) and `ID_ATA_FEATURE_SET_APM=1`.
    pub try_apm: bool,
    /// What the drive is, for blocks keyed by a selector (ours; Debian's scripts have none).
    pub identity: Identity,
}

/// Why Debian's scripts give up on the file: the text they print.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConfError {
    pub message: String,
}

impl fmt::Display for ConfError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

fn error(message: impl Into<String>) -> ConfError {
    ConfError {
        message: message.into(),
    }
}

/// The lines `egrep -v '^[[:space:]]*(#|$)'` lets through.
fn significant_lines(conf: &str) -> impl Iterator<Item = &str> {
    numbered_lines(conf).map(|(_, line)| line)
}

/// [`significant_lines`] with their line numbers in the file (from 1), for messages.
fn numbered_lines(conf: &str) -> impl Iterator<Item = (usize, &str)> {
    conf.lines().enumerate().filter_map(|(n, line)| {
        let t = line.trim_start_matches([' ', '\t', '\r', '\x0b', '\x0c']);
        (!(t.is_empty() || t.starts_with('#'))).then_some((n + 1, line))
    })
}

/// The shell's `read KEY SEP VALUE` (without `-r`) on one line: fields split on blanks, the last
/// one takes the rest of the line without its trailing blanks, a backslash keeps the next
/// character as it is.
fn read_fields(line: &str) -> (String, String, String) {
    let blank = |c: char| c == ' ' || c == '\t';
    // Characters with whether they were escaped.
    let mut chars: Vec<(char, bool)> = Vec::new();
    let mut it = line.chars();
    while let Some(c) = it.next() {
        if c == '\\' {
            if let Some(next) = it.next() {
                chars.push((next, true));
            }
        } else {
            chars.push((c, false));
        }
    }
    let mut fields = [String::new(), String::new(), String::new()];
    let mut i = 0;
    for (n, field) in fields.iter_mut().enumerate() {
        while i < chars.len() && !chars[i].1 && blank(chars[i].0) {
            i += 1;
        }
        if n == 2 {
            let mut end = chars.len();
            while end > i && !chars[end - 1].1 && blank(chars[end - 1].0) {
                end -= 1;
            }
            *field = chars[i..end].iter().map(|&(c, _)| c).collect();
        } else {
            while i < chars.len() && (chars[i].1 || !blank(chars[i].0)) {
                field.push(chars[i].0);
                i += 1;
            }
        }
    }
    let [key, sep, value] = fields;
    (key, sep, value)
}

/// The first two characters of a word (`${i%${i#??}}`).
fn head2(word: &str) -> &str {
    match word.char_indices().nth(2) {
        Some((at, _)) => &word[..at],
        None => word,
    }
}

/// Unquoted `$VAR` in a command: the words.
fn words(s: &str) -> impl Iterator<Item = &str> {
    s.split([' ', '\t', '\n']).filter(|w| !w.is_empty())
}

/// The state of `hdparm_options` while it reads the file.
#[derive(Default)]
struct Reader {
    disc: Option<String>,
    default: String,
    def_quiet: String,
    options: String,
    opt_quiet: String,
    command_line: bool,
}

impl Reader {
    /// `hdparm_set_option`.
    fn set_option(&mut self, new: &str) {
        let (list, quiet) = if self.disc.is_some() {
            (&mut self.options, &self.opt_quiet)
        } else {
            (&mut self.default, &self.def_quiet)
        };
        let mut kept = String::new();
        for word in words(list) {
            if head2(word) != head2(new) {
                kept.push(' ');
                kept.push_str(word);
            } else if let Some(stripped) = kept.strip_suffix("-q") {
                // ${NEW_OPT%-q}: the quiet that came with the replaced option.
                kept = stripped.to_string();
            }
        }
        *list = format!("{kept} {quiet} {new}");
    }

    /// `hdparm_eval_value`: on/off and 1/0.
    fn set_boolean(&mut self, value: &str, option: &str) -> Result<(), ConfError> {
        match value {
            "off" | "0" => self.set_option(&format!("{option}0")),
            "on" | "1" => self.set_option(&format!("{option}1")),
            // log_failure_msg is not defined in the scripts' shell: only its name is printed
            // as an error; then the reader exits.
            _ => return Err(error(format!("Unknown Value for {option}: {value}"))),
        }
        Ok(())
    }
}

/// `echo $OPTIONS`: the words joined by one space.
fn echo(s: &str) -> String {
    words(s).collect::<Vec<_>>().join(" ")
}

/// The option string `hdparm_options WANTED` prints (already word-joined, as `echo` prints it),
/// or an error where Debian's reader gives up. `resolve` answers `readlink -m` for a block name
/// that is a symlink, and None for one that is not.
pub fn hdparm_options(
    conf: &str,
    wanted: &str,
    facts: &Facts,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ConfError> {
    let mut r = Reader::with_policy(facts);
    for line in significant_lines(conf) {
        if r.step(line, facts, resolve)? == Step::Closed {
            let selected = r
                .disc
                .as_deref()
                .is_some_and(|disc| disc == wanted || select::matches(disc, &facts.identity));
            if !r.options.is_empty() && selected {
                return Ok(echo(&r.options));
            }
        }
    }
    // The disk has no block: the defaults.
    Ok(echo(&r.default))
}

/// What one line did to the reader.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Step {
    /// Read on.
    Next,
    /// A block's `}`: the block's options are complete.
    Closed,
}

impl Reader {
    /// The reader before the first line: the built-in APM policy of `hdparm_options`.
    fn with_policy(facts: &Facts) -> Reader {
        let mut r = Reader::default();
        if facts.try_apm {
            if facts.on_battery {
                r.set_option("-B128");
                // A spindown of 3 minutes, so that a busy machine does not cycle the disk.
                r.set_option("-S36");
            } else {
                r.set_option("-B254");
            }
        }
        r
    }

    /// One significant line of the file, as the `while read KEY SEP VALUE` loop takes it.
    fn step(
        &mut self,
        line: &str,
        facts: &Facts,
        resolve: &dyn Fn(&str) -> Option<String>,
    ) -> Result<Step, ConfError> {
        let (key, sep, value) = read_fields(line);
        match sep.as_str() {
            "{" => {
                if key == "command_line" {
                    self.disc = None;
                    self.options.clear();
                    self.opt_quiet.clear();
                    self.command_line = true;
                } else {
                    let disc = block_device(&key, resolve);
                    // An empty name is an unset DISC to the shell's `test -n`.
                    self.disc = Some(disc).filter(|d| !d.is_empty());
                    self.options = self.default.clone();
                    self.opt_quiet = self.def_quiet.clone();
                }
            }
            "=" => set_keyed(self, &key, &value, facts)?,
            "" => match key.as_str() {
                "}" => {
                    if self.disc.is_none() && !self.command_line {
                        return Err(error("No disk enabled. Exiting"));
                    }
                    self.command_line = false;
                    return Ok(Step::Closed);
                }
                "quiet" => {
                    if self.disc.is_some() {
                        self.opt_quiet = "-q".into();
                    } else {
                        self.def_quiet = "-q".into();
                    }
                }
                other => match keys::alone(other) {
                    Some(k) => self.set_option(&k.option.spelling()),
                    None if self.command_line => {}
                    None => return Err(error(format!("unknown option {key}"))),
                },
            },
            _ if self.command_line => {}
            _ => return Err(error(format!("unknown separator {sep}"))),
        }
        Ok(Step::Next)
    }

    /// The option list the next `hdparm_set_option` goes to.
    fn current_list(&self) -> &str {
        if self.disc.is_some() {
            &self.options
        } else {
            &self.default
        }
    }
}

/// The device a block's key names, as the reader compares it with DEVNAME. Debian resolves a
/// link (`readlink -m`) and cuts the target at its first digit, so that a by-id link to a
/// partition (`/dev/sdb1`) names its disk; that cut makes every NVMe namespace `/dev/nvme`,
/// which no DEVNAME is, so a by-id block for an NVMe disk never applies. Ours cuts an NVMe
/// target at its partition number instead (`/dev/nvme0n1p2` is `/dev/nvme0n1`), which is what
/// the cut means for the other disks (DIFFERENCES.md `cli:apply-nvme-by-id`).
fn block_device(key: &str, resolve: &dyn Fn(&str) -> Option<String>) -> String {
    let Some(target) = resolve(key) else {
        return key.to_string();
    };
    if let Some(namespace) = nvme_namespace(&target) {
        return namespace.to_string();
    }
    match target.find(|c: char| c.is_ascii_digit()) {
        Some(at) => target[..at].to_string(),
        None => target,
    }
}

/// `/dev/nvmeXnY` of a namespace or of one of its partitions (`/dev/nvmeXnYpZ`).
fn nvme_namespace(target: &str) -> Option<&str> {
    let rest = target.strip_prefix("/dev/nvme")?;
    let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
    let controller = digits(rest);
    let after = rest[controller..].strip_prefix('n')?;
    let namespace = digits(after);
    if controller == 0 || namespace == 0 {
        return None;
    }
    let end = "/dev/nvme".len() + controller + 1 + namespace;
    let tail = &target[end..];
    let partition = tail
        .strip_prefix('p')
        .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
    (tail.is_empty() || partition).then(|| &target[..end])
}

/// A `KEY = VALUE` line.
fn set_keyed(r: &mut Reader, key: &str, value: &str, facts: &Facts) -> Result<(), ConfError> {
    // The value goes through the shell unquoted, so it is words: `-a$VALUE` is the option
    // glued to the first word (the others are arguments nobody reads), and
    // `hdparm_eval_value $VALUE -A` reads its first two arguments, whatever they are.
    let value_words: Vec<&str> = words(value).collect();
    let first = value_words.first().copied().unwrap_or("");
    match key {
        // pm-utils' own key, read back by `udev_add_plan`: not an option of hdparm's.
        "force_spindown_time" => r.set_option(&format!("force_spindown_time{first}")),
        "ROOTFS" => {}
        _ => {
            let Some(k) = keys::by_key(key) else {
                return Err(error(format!("Unknown option {key}")));
            };
            let option = k.option.spelling();
            let applies = match k.when {
                Power::Always => true,
                Power::OnMains => !facts.on_battery,
                Power::OnBattery => facts.on_battery,
            };
            match k.form {
                _ if !applies => {}
                Form::Number => r.set_option(&format!("{option}{first}")),
                Form::OnOff => {
                    let mut args = value_words
                        .iter()
                        .copied()
                        .chain(std::iter::once(option.as_str()));
                    let one = args.next().unwrap_or("");
                    let two = args.next().unwrap_or("");
                    r.set_boolean(one, two)?;
                }
                // The value is passed as a second argument, which hdparm_set_option ignores.
                Form::Bare => r.set_option(&option),
                // Not a `KEY = VALUE` key (by_key finds none).
                Form::Alone => {}
            }
        }
    }
    Ok(())
}

/// A block of the file: where it starts and its key, as written (`/dev/sda`, `model:WDC*`,
/// `command_line`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Block {
    pub line: usize,
    pub key: String,
}

/// The file's blocks (`KEY {`), in order.
pub fn blocks(conf: &str) -> Vec<Block> {
    numbered_lines(conf)
        .map(|(line, text)| (line, read_fields(text)))
        .filter(|(_, (_, sep, _))| sep == "{")
        .map(|(line, (key, _, _))| Block { line, key })
        .collect()
}

/// The device names of the file's blocks (`DEV {`), as written.
pub fn block_names(conf: &str) -> Vec<String> {
    blocks(conf)
        .into_iter()
        .filter(|b| b.key != COMMAND_LINE)
        .map(|b| b.key)
        .collect()
}

/// The key of the blocks Debian's reader accepts and ignores (since 9.39-1).
pub const COMMAND_LINE: &str = "command_line";

/// How bad a finding about the file is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// Debian's reader gives up on the file here.
    Error,
    /// The line is read, but not as it looks.
    Warning,
}

/// A finding about one line of the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Finding {
    pub line: usize,
    pub severity: Severity,
    pub message: String,
}

/// Every line of the file Debian's reader would give up on (it stops at the first, for the
/// disk it reads for; this reads on, so that each error is named once), and the lines it reads
/// otherwise than they look: a `#` after a value, which is no comment there (`write_cache = on
/// # -W1` gives hdparm the word `#1`, which it opens as a device), and bytes that are not
/// UTF-8 outside a comment (the caller read them as U+FFFD).
pub fn diagnose(conf: &str) -> Vec<Finding> {
    let facts = Facts::default();
    let no_links = |_: &str| None;
    let mut r = Reader::default();
    let mut findings = Vec::new();
    for (line, text) in numbered_lines(conf) {
        let mut say = |severity, message| {
            findings.push(Finding {
                line,
                severity,
                message,
            })
        };
        if text.contains(char::REPLACEMENT_CHARACTER) {
            say(
                Severity::Warning,
                "bytes that are not UTF-8 are read as U+FFFD in this line".to_string(),
            );
        }
        if let Err(e) = r.step(text, &facts, &no_links) {
            say(Severity::Error, e.message);
            continue;
        }
        let (_, sep, value) = read_fields(text);
        if sep == "=" && words(&value).any(|w| w.starts_with('#')) {
            let given = words(r.current_list()).last().unwrap_or("").to_string();
            let opened = if given.starts_with('#') {
                ", which hdparm opens as a device"
            } else {
                ""
            };
            say(
                Severity::Warning,
                format!(
                    "\"#\" starts no comment after a value: Debian's scripts read the rest of the line as the value, and this line gives hdparm \"{given}\"{opened}; put the comment on a line of its own"
                ),
            );
        }
    }
    findings
}

/// The Debian rule that leaves an APM or spindown setting of a disk's options unsent.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DropRule {
    /// `95hdparm-apm` walks `/dev/sd?` and `/dev/hd?` only.
    NotWalked,
    /// `hdparm_try_apm` said no (a USB or FireWire path, or no APM in udev's IDENTIFY), and
    /// the setting is not `force_spindown_time`.
    NoApm,
}

/// A setting of the file that Debian's hooks never send to this disk.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Dropped {
    /// The option word (`-B128`, `-S24`).
    pub option: String,
    /// The key of the file it comes from (`apm`, `spindown_time`, `force_spindown_time`).
    pub key: &'static str,
    pub rule: DropRule,
}

/// The `-B`, `-S` and `force_spindown_time` words of the disk's options that
/// [`udev_add_plan`] leaves out, and the rule that drops each: the main run strips them all,
/// and only `95hdparm-apm` sends them, under its own conditions. Words that come from
/// `hdparm_options`' built-in policy, not from the file, are not listed.
pub fn udev_add_drops(
    conf: &str,
    devname: &str,
    facts: &Facts,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<Dropped>, ConfError> {
    let options = hdparm_options(conf, devname, facts, resolve)?;
    let no_policy = Facts {
        try_apm: false,
        ..facts.clone()
    };
    let from_file = hdparm_options(conf, devname, &no_policy, resolve)?;
    let walked = pm_utils_walks(devname);
    let forced = options.contains("force_spindown_time");
    let mut dropped = Vec::new();
    for word in words(&options) {
        let Some((key, letter)) = apm_word(word, facts) else {
            continue;
        };
        if !words(&from_file).any(|w| w == word) {
            continue;
        }
        let rule = if !walked {
            DropRule::NotWalked
        } else if !(facts.try_apm || (letter == 'S' && forced)) {
            DropRule::NoApm
        } else {
            continue;
        };
        let value = word.trim_start_matches(|c: char| !c.is_ascii_digit());
        dropped.push(Dropped {
            option: format!("-{letter}{value}"),
            key,
            rule,
        });
    }
    Ok(dropped)
}

/// The key and hdparm option of an APM or spindown word (`-B128`, `-S24`,
/// `force_spindown_time24`).
fn apm_word(word: &str, facts: &Facts) -> Option<(&'static str, char)> {
    if word.starts_with("force_spindown_time") {
        Some(("force_spindown_time", 'S'))
    } else if word.starts_with("-S") {
        Some(("spindown_time", 'S'))
    } else if word.starts_with("-B") {
        Some((
            if facts.on_battery {
                "apm_battery"
            } else {
                "apm"
            },
            'B',
        ))
    } else {
        None
    }
}

/// One run of hdparm that Debian's scripts make: its arguments after the program name.
pub type CommandLine = Vec<String>;

/// The hdparm command lines that an add event of `devname` makes Debian run on that disk:
/// `95hdparm-apm resume` when the options hold `-B`, `-S` or `force_spindown_time` (its `-B`,
/// then its `-S`, each alone), then `/lib/udev/hdparm`'s `hdparm -q OPTIONS DEVNAME` with
/// those three and every `-q` taken out.
///
/// `95hdparm-apm` walks `/dev/sd?` and `/dev/hd?` only, so a disk with another name (`sdaa`,
/// `nvme0n1`) gets no `-B` or `-S` from it.
pub fn udev_add_plan(
    conf: &str,
    devname: &str,
    facts: &Facts,
    resolve: &dyn Fn(&str) -> Option<String>,
) -> Result<Vec<CommandLine>, ConfError> {
    let options = hdparm_options(conf, devname, facts, resolve)?;
    let mut plan = Vec::new();
    if options.is_empty() {
        return Ok(plan);
    }
    let apm_related = words(&options)
        .any(|w| w.contains("-B") || w.contains("-S") || w.contains("force_spindown_time"));
    if apm_related && pm_utils_walks(devname) {
        plan.extend(resume_plan(&options, devname, facts));
    }
    let rest = strip_apm_and_quiet(&options);
    if !rest.is_empty() {
        let mut line = vec!["-q".to_string()];
        line.extend(words(&rest).map(str::to_string));
        line.push(devname.to_string());
        plan.push(line);
    }
    Ok(plan)
}

/// Whether `for dev in /dev/sd? /dev/hd?` reaches this name.
fn pm_utils_walks(devname: &str) -> bool {
    let Some(rest) = devname
        .strip_prefix("/dev/sd")
        .or_else(|| devname.strip_prefix("/dev/hd"))
    else {
        return false;
    };
    rest.chars().count() == 1
}

/// `95hdparm-apm resume` for one disk: the last `-B` word, then the last `-S` word (where
/// `force_spindown_time` is written back as `-S`, and also applies without APM).
fn resume_plan(options: &str, devname: &str, facts: &Facts) -> Vec<CommandLine> {
    let mut plan = Vec::new();
    if facts.try_apm {
        if let Some(apm) = words(options).filter(|w| w.starts_with("-B")).last() {
            plan.push(vec![apm.to_string(), devname.to_string()]);
        }
    }
    let forced = options.contains("force_spindown_time");
    if facts.try_apm || forced {
        let spindown = words(options)
            .map(|w| w.replacen("force_spindown_time", "-S", 1))
            .filter(|w| w.starts_with("-S"))
            .last();
        if let Some(spindown) = spindown {
            plan.push(vec![spindown, devname.to_string()]);
        }
    }
    plan
}

/// The udev hook's `perl -pe 's/((-S|-B|force_spindown_time)[\d]{1,3})|(-q\s?)//g'`.
fn strip_apm_and_quiet(options: &str) -> String {
    let bytes = options.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < bytes.len() {
        let rest = &options[i..];
        let prefix = ["-S", "-B", "force_spindown_time"]
            .iter()
            .find(|p| rest.starts_with(*p))
            .map(|p| p.len());
        if let Some(len) = prefix {
            let digits = rest[len..]
                .bytes()
                .take(3)
                .take_while(u8::is_ascii_digit)
                .count();
            if digits > 0 {
                i += len + digits;
                continue;
            }
        }
        if rest.starts_with("-q") {
            i += 2;
            if options[i..].starts_with(|c: char| c.is_whitespace()) {
                i += 1;
            }
            continue;
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        i += c.len_utf8();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_links(_: &str) -> Option<String> {
        None
    }

    const AC_APM: Facts = Facts {
        on_battery: false,
        try_apm: true,
        identity: Identity {
            model: String::new(),
            serial: String::new(),
            wwn: String::new(),
            classes: Vec::new(),
        },
    };

    fn options(conf: &str, disk: &str, facts: &Facts) -> Result<String, ConfError> {
        hdparm_options(conf, disk, facts, &no_links)
    }

    #[test]
    fn the_builtin_policy_comes_first() {
        assert_eq!(options("", "/dev/sda", &AC_APM).unwrap(), "-B254");
        let battery = Facts {
            on_battery: true,
            try_apm: true,
            ..Facts::default()
        };
        assert_eq!(options("", "/dev/sda", &battery).unwrap(), "-B128 -S36");
        assert_eq!(
            options("quiet\n", "/dev/sda", &Facts::default()).unwrap(),
            ""
        );
    }

    #[test]
    fn a_later_option_replaces_an_earlier_one_and_its_quiet() {
        let conf = "quiet\napm = 128\nwrite_cache = off\napm = 200\n";
        assert_eq!(
            options(conf, "/dev/sda", &AC_APM).unwrap(),
            "-q -W0 -q -B200"
        );
    }

    #[test]
    fn a_block_adds_to_a_copy_of_the_defaults() {
        let conf = "write_cache = on\n/dev/sdb {\n\tquiet\n\tspindown_time = 24\n}\n";
        let facts = Facts::default();
        assert_eq!(options(conf, "/dev/sdb", &facts).unwrap(), "-W1 -q -S24");
        assert_eq!(options(conf, "/dev/sdc", &facts).unwrap(), "-W1");
    }

    #[test]
    fn by_id_names_are_resolved_and_cut_at_the_first_digit() {
        let conf = "/dev/disk/by-id/ata-X {\n dma = on\n}\n";
        let resolve = |p: &str| (p == "/dev/disk/by-id/ata-X").then(|| "/dev/sdb".to_string());
        let got = hdparm_options(conf, "/dev/sdb", &Facts::default(), &resolve);
        assert_eq!(got.unwrap(), "-d1");
    }

    #[test]
    fn by_id_nvme_names_match_their_namespace() {
        let conf = "/dev/disk/by-id/nvme-X {\n write_cache = on\n}\n";
        let facts = Facts::default();
        for target in ["/dev/nvme0n1", "/dev/nvme0n1p2"] {
            let resolve = |_: &str| Some(target.to_string());
            let got = hdparm_options(conf, "/dev/nvme0n1", &facts, &resolve);
            assert_eq!(got.unwrap(), "-W1", "{target}");
            // Debian's cut made it /dev/nvme, which no DEVNAME is.
            let got = hdparm_options(conf, "/dev/nvme", &facts, &resolve);
            assert_eq!(got.unwrap(), "", "{target}");
        }
        assert_eq!(nvme_namespace("/dev/nvme10n3"), Some("/dev/nvme10n3"));
        assert_eq!(nvme_namespace("/dev/nvme0"), None, "a controller");
        assert_eq!(nvme_namespace("/dev/nvme0n1x"), None);
        assert_eq!(nvme_namespace("/dev/sda1"), None);
    }

    #[test]
    fn every_error_is_found_with_its_line() {
        let conf = "# ok\ndma = maybe\n\nspeed = 3\n/dev/sda {\n apm=128\n}\nquiet\n";
        let found = diagnose(conf);
        let errors: Vec<(usize, &str)> = found
            .iter()
            .filter(|f| f.severity == Severity::Error)
            .map(|f| (f.line, f.message.as_str()))
            .collect();
        assert_eq!(
            errors,
            vec![
                (2, "Unknown Value for -d: maybe"),
                (4, "Unknown option speed"),
                (6, "unknown option apm=128"),
            ]
        );
        assert!(diagnose("}\n")[0].message.contains("No disk enabled"));
        assert!(
            diagnose("/dev/sda {\n}\n}\n").is_empty(),
            "Debian's DISC stays set after a block"
        );
    }

    #[test]
    fn a_hash_after_a_value_is_no_comment_and_says_so() {
        let found = diagnose("write_cache = on  # -W1\nread_ahead_sect = 256 # big\n");
        assert_eq!(found.len(), 2, "{found:?}");
        assert!(found.iter().all(|f| f.severity == Severity::Warning));
        assert_eq!(found[0].line, 1);
        assert!(
            found[0]
                .message
                .contains("gives hdparm \"#1\", which hdparm opens as a device"),
            "{}",
            found[0].message
        );
        assert!(found[1].message.contains("gives hdparm \"-a256\";"));
        // What the warning describes is what Debian's reader does.
        assert_eq!(
            options("write_cache = on  # -W1\n", "/dev/sda", &Facts::default()).unwrap(),
            "#1"
        );
        assert!(diagnose("# write_cache = on  # -W1\n").is_empty());
    }

    #[test]
    fn blocks_are_listed_with_their_lines() {
        let conf = "quiet\n/dev/sda {\n}\ncommand_line {\n hdparm -d1 /dev/sda\n}\n";
        assert_eq!(
            blocks(conf),
            vec![
                Block {
                    line: 2,
                    key: "/dev/sda".into()
                },
                Block {
                    line: 4,
                    key: COMMAND_LINE.into()
                }
            ]
        );
    }

    #[test]
    fn the_dropped_apm_and_spindown_settings_name_their_rule() {
        let conf =
            "/dev/sda {\n apm = 128\n spindown_time = 24\n}\n/dev/sdaa {\n spindown_time = 12\n}\n";
        let drops = |disk, facts: &Facts| udev_add_drops(conf, disk, facts, &no_links).unwrap();
        // Walked, with APM: everything is sent.
        assert_eq!(drops("/dev/sda", &AC_APM), vec![]);
        // Without APM neither goes out.
        let no_apm = drops("/dev/sda", &Facts::default());
        assert_eq!(
            no_apm,
            vec![
                Dropped {
                    option: "-B128".into(),
                    key: "apm",
                    rule: DropRule::NoApm
                },
                Dropped {
                    option: "-S24".into(),
                    key: "spindown_time",
                    rule: DropRule::NoApm
                }
            ]
        );
        // sdaa is never walked; the built-in -B254 is not the file's, so it is not listed.
        assert_eq!(
            drops("/dev/sdaa", &AC_APM),
            vec![Dropped {
                option: "-S12".into(),
                key: "spindown_time",
                rule: DropRule::NotWalked
            }]
        );
        // force_spindown_time goes out without APM.
        let forced = "force_spindown_time = 60\n";
        assert_eq!(
            udev_add_drops(forced, "/dev/sdb", &Facts::default(), &no_links).unwrap(),
            vec![]
        );
        // The drops are the words the plan lacks.
        let plan = udev_add_plan(conf, "/dev/sda", &Facts::default(), &no_links).unwrap();
        assert!(plan
            .iter()
            .flatten()
            .all(|w| !w.starts_with("-B") && !w.starts_with("-S")));
    }

    #[test]
    fn errors_are_worded_as_the_scripts_word_them() {
        let f = Facts::default();
        let e = |conf| options(conf, "/dev/sda", &f).unwrap_err().message;
        assert_eq!(e("dma = yes\n"), "Unknown Value for -d: yes");
        assert_eq!(e("apm=254\n"), "unknown option apm=254");
        assert_eq!(e("speed = 3\n"), "Unknown option speed");
        assert_eq!(e("dma : on\n"), "unknown separator :");
        assert_eq!(e("}\n"), "No disk enabled. Exiting");
    }

    #[test]
    fn passwords_are_dropped_as_the_scripts_drop_them() {
        let conf = "security_unlock = secret\nsecurity_freeze\n";
        assert_eq!(
            options(conf, "/dev/sda", &Facts::default()).unwrap(),
            "--security-freeze"
        );
    }

    #[test]
    fn read_splits_like_the_shell() {
        assert_eq!(
            read_fields("  apm =  128  # not a comment "),
            ("apm".into(), "=".into(), "128  # not a comment".into())
        );
        assert_eq!(
            read_fields("a\\ b = c"),
            ("a b".into(), "=".into(), "c".into())
        );
    }

    #[test]
    fn the_udev_plan_sends_apm_and_spindown_alone_then_the_rest_quietly() {
        let conf = "quiet\nspindown_time = 24\nwrite_cache = off\n";
        let plan = udev_add_plan(conf, "/dev/sda", &AC_APM, &no_links).unwrap();
        assert_eq!(
            plan,
            vec![
                vec!["-B254".to_string(), "/dev/sda".into()],
                vec!["-S24".to_string(), "/dev/sda".into()],
                vec!["-q".to_string(), "-W0".into(), "/dev/sda".into()],
            ]
        );
        // pm-utils never walks sdaa: no -B and no -S there.
        let plan = udev_add_plan(conf, "/dev/sdaa", &AC_APM, &no_links).unwrap();
        assert_eq!(
            plan,
            vec![vec!["-q".to_string(), "-W0".into(), "/dev/sdaa".into()]]
        );
    }

    #[test]
    fn force_spindown_applies_without_apm() {
        let conf = "force_spindown_time = 120\n";
        let plan = udev_add_plan(conf, "/dev/sdb", &Facts::default(), &no_links).unwrap();
        assert_eq!(plan, vec![vec!["-S120".to_string(), "/dev/sdb".into()]]);
    }

    #[test]
    fn a_selector_block_applies_to_the_drives_it_selects() {
        let conf =
            "class:ssd {\n write_cache = on\n}\nmodel:WDC?WD20* {\n spindown_time = 240\n}\n";
        let ssd = Facts {
            identity: Identity {
                model: "Samsung SSD 870".into(),
                classes: vec!["ssd"],
                ..Identity::default()
            },
            ..Facts::default()
        };
        assert_eq!(options(conf, "/dev/sdx", &ssd).unwrap(), "-W1");
        let green = Facts {
            identity: Identity {
                model: "WDC WD20EARX-00PASB0".into(),
                classes: vec!["rotational"],
                ..Identity::default()
            },
            ..Facts::default()
        };
        assert_eq!(options(conf, "/dev/sdy", &green).unwrap(), "-S240");
        assert_eq!(options(conf, "/dev/sdz", &Facts::default()).unwrap(), "");
    }

    #[test]
    fn block_names_are_the_devices_of_the_blocks() {
        let conf = "quiet\n/dev/sda {\n}\ncommand_line {\n}\n/dev/disk/by-id/x {\n}\n";
        assert_eq!(block_names(conf), vec!["/dev/sda", "/dev/disk/by-id/x"]);
    }

    #[test]
    fn the_strip_is_the_perl_expression() {
        assert_eq!(strip_apm_and_quiet("-q -B254 -q -W0 -S1234"), " -W0 4");
        assert_eq!(strip_apm_and_quiet("-qW1"), "W1");
    }
}
