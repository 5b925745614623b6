//! The hdparm 9.65 grammar as a pure state machine: argv in, [`Parsed`] out.
//!
//! The rules (reference §1), in the order this file applies them:
//! - words are read left to right; a word not starting with `-` (or any word after `--`) is a
//!   device, and it is processed with a snapshot of every flag seen so far (flags are never
//!   reset). A device reached before any action flag switches on the default report, for it and
//!   every later device;
//! - a flag word is a cluster of letters; a letter that takes a number reads decimal digits from
//!   the rest of the word, or from the next word when the word is used up and the next word
//!   starts with a digit; whatever follows the number is read as more letters;
//! - `-` inside a cluster starts a long option whose name is the rest of the word (so `--name`
//!   and, quirkily, `-a-verbose`); names compare case-insensitively and take their values from
//!   the following words;
//! - `-q` makes the next option quiet and hides the device header from then on;
//! - after each flag word at least one more word must follow (clue 11).
//!
//! Where hdparm acts while it parses (a device before a later usage error is already done), we
//! parse everything first and do nothing on a usage error; DIFFERENCES.md lists that.
//!
//! Each option is read as its definition (`defs.rs`) says: a flag or a decimal into a field
//! here, anything more by the reader the definition names (`parse/readers.rs`); our modes
//! read the rest of the command line with grammars of their own (`parse/modes.rs`).
//!
//! This module never touches the system: `--Istdin`, `--fibmap`, `--fallocate` and the help
//! texts come back as [`Invocation`] variants for the caller to run.

use super::flags::*;
use crate::ata::secret::Secret;
use std::ffi::OsString;
use std::path::PathBuf;

pub use super::flags::ParseError;

mod modes;
mod readers;

/// The result of parsing: what to do, plus what hdparm prints while it parses.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Parsed {
    pub result: Result<Invocation, ParseError>,
    /// Lines hdparm prints on stdout while parsing (the `security_password:` echo).
    pub stdout_lines: Vec<String>,
    /// Lines printed on stderr while parsing without stopping (hdparm's `-X: missing value`
    /// is a usage error here, so none at present).
    pub stderr_lines: Vec<String>,
    /// The argv indices of the words that are passwords, which no report may show (the JSON
    /// envelope's `argv` shows them redacted).
    pub secret_args: Vec<usize>,
}

use super::defs::{self, Apply, Label, OptionDef, Role, Value, LBA_LIMIT};

const LBA_MSG: &str = "bad/missing sector value";
const COUNT_MSG: &str = "bad/missing sector count";

/// Parses a whole command line (argv[0] included).
pub fn parse(args: &[OsString]) -> Parsed {
    let mut parser = Parser::new(args);
    let result = parser.run();
    Parsed {
        result,
        stdout_lines: parser.stdout_lines,
        stderr_lines: parser.stderr_lines,
        secret_args: parser.secret_args,
    }
}

/// What the JSON envelope's `argv` shows for a password word.
pub const REDACTED: &str = "(password)";

/// argv as text for a report: each password word replaced by [`REDACTED`].
pub fn redacted_argv(args: &[OsString]) -> Vec<String> {
    let secret = parse(args).secret_args;
    args.iter()
        .enumerate()
        .map(|(i, a)| {
            if secret.contains(&i) {
                REDACTED.to_string()
            } else {
                a.to_string_lossy().into_owned()
            }
        })
        .collect()
}

/// One arm of `--experiment`: its words parsed as a command line for a placeholder device.
/// Returns the flags, and the options read, in order.
pub fn parse_arm(words: &[String]) -> Result<(Flags, Vec<String>), ParseError> {
    let args: Vec<OsString> = std::iter::once("hdparm".to_string())
        .chain(words.iter().cloned())
        .chain(std::iter::once(ARM_DEVICE.to_string()))
        .map(OsString::from)
        .collect();
    let mut parser = Parser::new(&args);
    match parser.run()? {
        Invocation::Devices(mut runs) if runs.len() == 1 => {
            Ok((runs.remove(0).flags, std::mem::take(&mut parser.used)))
        }
        _ => Err(message(format!(
            "--experiment: arm '{}' is not a group of settings",
            words.join(" ")
        ))),
    }
}

/// An arm, parsed and held to what an experiment can set and set back.
fn checked_arm(text: String) -> Step<Arm> {
    let words: Vec<String> = text.split_whitespace().map(str::to_string).collect();
    let (flags, used) = parse_arm(&words)?;
    let allowed: Vec<String> = defs::OPTIONS
        .iter()
        .filter(|d| d.restorable())
        .map(|d| d.spelling())
        .collect();
    let mut options = Vec::new();
    for spelled in used {
        if spelled == "-q" {
            continue;
        }
        if !allowed.contains(&spelled) {
            return Err(message(format!(
                "--experiment: arm '{text}' sets {spelled}, which cannot be read back and restored (arms may set {})",
                allowed.join(" ")
            )));
        }
        if !options.contains(&spelled) {
            options.push(spelled);
        }
    }
    let sets_something = options.iter().any(|o| {
        defs::by_letter(o.as_bytes().get(1).copied().unwrap_or(0)).is_some_and(|d| {
            let mut probe = flags.clone();
            match d.apply {
                Apply::GetSet(field) => field(&mut probe).set,
                Apply::Custom(_) => probe.xfer_mode.set,
                _ => false,
            }
        })
    });
    if !sets_something {
        return Err(message(format!(
            "--experiment: arm '{text}' sets nothing (give each option its value, as in '-a 256')"
        )));
    }
    Ok(Arm {
        text,
        words,
        options,
        flags,
    })
}

/// The device word an arm is parsed with.
const ARM_DEVICE: &str = "/dev/experiment-arm";

/// Transfer-mode names for `-p` and `-X` (reference §1.4): a name (the table lives in
/// `ata::values`), else a decimal number.
pub fn translate_xfermode(name: &str) -> Option<u32> {
    if let Some(mode) = crate::ata::values::xfer_mode_by_name(name) {
        return Some(mode);
    }
    // hdparm: strtol(name, &end, 10) and accept only when the whole string was used; the
    // empty string therefore means 0. The long result is stored in an int (truncation kept).
    let (value, used) = strtol_decimal(name.as_bytes());
    if used == name.len() {
        let as_int = value as i32;
        if as_int == -1 {
            return None;
        }
        Some(as_int as u32)
    } else {
        None
    }
}

/// C's `strtol(s, &end, 10)` on an already-trimmed alphanumeric string: saturating value and
/// the number of bytes consumed (0 when no digits).
fn strtol_decimal(s: &[u8]) -> (i64, usize) {
    let mut value: i64 = 0;
    let mut i = 0;
    let mut saturated = false;
    while i < s.len() && s[i].is_ascii_digit() {
        let d = i64::from(s[i] - b'0');
        match value.checked_mul(10).and_then(|v| v.checked_add(d)) {
            Some(v) if !saturated => value = v,
            _ => {
                saturated = true;
                value = i64::MAX;
            }
        }
        i += 1;
    }
    (value, i)
}

/// C's `strtoll(s, &end, 0)`: optional leading whitespace and sign, `0x` hex, leading-0 octal.
/// Returns (value, bytes consumed, overflowed). Consumed is 0 when no number was found.
fn strtoll_auto(s: &[u8]) -> (i64, usize, bool) {
    let mut i = 0;
    while i < s.len() && matches!(s[i], b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c) {
        i += 1;
    }
    let mut negative = false;
    if i < s.len() && (s[i] == b'+' || s[i] == b'-') {
        negative = s[i] == b'-';
        i += 1;
    }
    let mut base = 10u32;
    let digits_start;
    if i + 1 < s.len()
        && s[i] == b'0'
        && (s[i + 1] | 0x20) == b'x'
        && i + 2 < s.len()
        && s[i + 2].is_ascii_hexdigit()
    {
        base = 16;
        digits_start = i + 2;
    } else if i < s.len() && s[i] == b'0' {
        base = 8;
        digits_start = i;
    } else {
        digits_start = i;
    }
    let mut j = digits_start;
    let mut magnitude: u64 = 0;
    let mut overflow = false;
    while j < s.len() {
        let d = match (s[j] as char).to_digit(base) {
            Some(d) => d,
            None => break,
        };
        match magnitude
            .checked_mul(u64::from(base))
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => magnitude = v,
            None => overflow = true,
        }
        j += 1;
    }
    if j == digits_start {
        // No digits: nothing converted (a lone "0x" converts its "0" in C; treated by the
        // hex check above, which requires a hex digit after the x).
        return (0, 0, false);
    }
    let limit = if negative {
        1u64 << 63
    } else {
        i64::MAX as u64
    };
    if overflow || magnitude > limit {
        let v = if negative { i64::MIN } else { i64::MAX };
        return (v, j, true);
    }
    let v = if negative {
        (magnitude as i64).wrapping_neg()
    } else {
        magnitude as i64
    };
    (v, j, false)
}

struct Parser<'a> {
    args: &'a [OsString],
    /// Index of the next unread argv word.
    next: usize,
    /// The word being read as flags, and the position in it.
    word: Vec<u8>,
    pos: usize,
    flags: Flags,
    /// Whether the option being read prints (false right after `-q`).
    noisy: bool,
    /// Action flags counted so far (modifiers do not count).
    num_flags: i32,
    /// The spellings of the options read, in order (an experiment's arms are checked by them).
    used: Vec<String>,
    devices: Vec<DeviceRun>,
    stdout_lines: Vec<String>,
    stderr_lines: Vec<String>,
    /// argv indices of password words.
    secret_args: Vec<usize>,
}

/// What a letter handler tells the main loop.
enum Outcome {
    /// Go on reading letters.
    Continue,
    /// A standalone long option was read: no further flag word may follow.
    NoMoreFlags,
    /// The invocation is decided now (help, version, `--Istdin`, ...).
    Done(Invocation),
}

type Step<T> = Result<T, ParseError>;

fn usage(clue: u8) -> ParseError {
    ParseError::Usage { clue }
}

fn message(text: impl Into<String>) -> ParseError {
    ParseError::Message(text.into())
}

/// The refusal of `--dry-run` by a mode that changes nothing: its run is all reads, some of
/// them commands to the drive or time spent reading it, so a dry run of it would be either the
/// run itself or nothing. `what` says what it reads; `hint` (empty, or starting with `;`) what
/// to do instead. Exit 22, before anything is opened.
fn no_dry_run(mode: &str, what: &str, hint: &str) -> ParseError {
    message(format!(
        "--dry-run: {mode} has no dry run: it changes nothing, but {what}; run it without --dry-run{hint}"
    ))
}

impl<'a> Parser<'a> {
    fn new(args: &'a [OsString]) -> Self {
        Parser {
            args,
            next: 1,
            word: Vec::new(),
            pos: 0,
            flags: Flags::default(),
            noisy: true,
            num_flags: 0,
            used: Vec::new(),
            devices: Vec::new(),
            stdout_lines: Vec::new(),
            stderr_lines: Vec::new(),
            secret_args: Vec::new(),
        }
    }

    fn remaining(&self) -> usize {
        self.args.len().saturating_sub(self.next)
    }

    fn peek_word(&self) -> Option<Vec<u8>> {
        self.args.get(self.next).map(os_bytes)
    }

    /// hdparm's `argp = *argv++`: makes the next argv word the current one.
    fn take_next_word(&mut self) {
        self.word = self.peek_word().unwrap_or_default();
        self.pos = 0;
        self.next += 1;
    }

    /// Takes the next argv word when it is `word` (ASCII case ignored, as long options) and
    /// a device still follows it; says whether it did.
    fn take_word_if(&mut self, word: &[u8]) -> bool {
        let matches = self
            .peek_word()
            .is_some_and(|w| w.eq_ignore_ascii_case(word));
        if matches && self.remaining() > 1 {
            self.take_next_word();
            self.pos = self.word.len();
            true
        } else {
            false
        }
    }

    fn at_word_end(&self) -> bool {
        self.pos >= self.word.len()
    }

    fn rest(&self) -> &[u8] {
        &self.word[self.pos.min(self.word.len())..]
    }

    fn run(&mut self) -> Step<Invocation> {
        if self.args.len() <= 1 {
            return Err(usage(6));
        }
        let mut no_more_flags = false;
        let mut disallow_flags = false;
        while self.next < self.args.len() {
            let word = os_bytes(&self.args[self.next]);
            self.next += 1;
            if no_more_flags || word.first() != Some(&b'-') {
                if self.num_flags == 0 {
                    self.flags.defaults = true;
                }
                self.add_device(&self.args[self.next - 1].clone())?;
                if !no_more_flags {
                    self.old_form_numbers()?;
                }
                continue;
            }
            if word == b"--" {
                no_more_flags = true;
                continue;
            }
            if disallow_flags {
                return Err(ParseError::MessageThenUsage {
                    message: "Excess flags given.".to_string(),
                    clue: 7,
                });
            }
            if word.len() == 1 {
                return Err(usage(8));
            }
            self.word = word;
            self.pos = 1;
            while !self.at_word_end() {
                let letter = self.word[self.pos];
                self.pos += 1;
                match self.letter(letter)? {
                    Outcome::Continue => {}
                    Outcome::NoMoreFlags => disallow_flags = true,
                    Outcome::Done(invocation) => return Ok(invocation),
                }
                self.num_flags += 1;
            }
            if self.remaining() == 0 {
                return Err(usage(11));
            }
        }
        let devices = std::mem::take(&mut self.devices);
        refuse_half_dry_run(&devices)?;
        Ok(Invocation::Devices(devices))
    }
}

/// A command line whose `--dry-run` comes after a device: flags apply to the devices after
/// them (hdparm's grammar), so that device would be run for real and the later ones only
/// planned. A dry run that acts on some devices is refused as a whole (ours).
fn refuse_half_dry_run(devices: &[DeviceRun]) -> Step<()> {
    let Some(real) = devices.iter().find(|d| !d.flags.dry_run) else {
        return Ok(());
    };
    if !devices.iter().any(|d| d.flags.dry_run) {
        return Ok(());
    }
    Err(message(format!(
        "--dry-run comes after {}, which would then be run for real: put --dry-run before the first device (it applies to the devices after it)",
        real.path.to_string_lossy()
    )))
}

impl<'a> Parser<'a> {
    fn add_device(&mut self, path: &OsString) -> Step<()> {
        let f = &self.flags;
        let more_args = self.remaining() > 0;
        let crowded = self.num_flags > 1 || more_args;
        // Options that must be alone on their command line (hdparm checks these when it
        // reaches the device; we check before doing anything).
        if f.set_sector_size.is_some() && crowded {
            return Err(usage(16));
        }
        if f.trim_ranges_stdin && crowded {
            return Err(usage(12));
        }
        if f.trim_ranges.is_some() && crowded {
            return Err(usage(13));
        }
        if f.write_sector.is_some() && crowded {
            return Err(usage(14));
        }
        if f.fwdownload.is_some() && crowded {
            return Err(usage(15));
        }
        if f.apply_config.is_some() {
            return Err(message(
                "--config FILE is for --apply and --check: give one of them after it",
            ));
        }
        if f.security_prompt && f.security_password_file.is_some() {
            return Err(message(
                "--security-prompt-for-password and --security-password-file: give one of them",
            ));
        }
        // The benchmark's limits hold for the values in force at this device, whatever order
        // its options came in.
        if let Some(bench) = &f.bench {
            bench.validate().map_err(message)?;
        }
        self.devices.push(DeviceRun {
            path: path.clone(),
            flags: self.flags.clone(),
        });
        Ok(())
    }
}

impl<'a> Parser<'a> {
    /// hdparm 2.0's form (its 1994 README): `hdparm DEVICE [MULTCOUNT [UNMASK]]`. Up to two
    /// all-digit words right after a device set the multiple-sector count and the unmask-irq
    /// flag for that device, as `-m` and `-u` would. hdparm 9.65 would try to open a device
    /// named "16"; DIFFERENCES.md lists this.
    fn old_form_numbers(&mut self) -> Step<()> {
        for letter in [b'm', b'u'] {
            let Some(word) = self.peek_word() else {
                return Ok(());
            };
            if word.is_empty() || !word.iter().all(u8::is_ascii_digit) {
                return Ok(());
            }
            self.take_next_word();
            let Some(def) = defs::by_letter(letter) else {
                return Ok(());
            };
            let value = self.numeric(def, true)?;
            let Some(run) = self.devices.last_mut() else {
                return Ok(());
            };
            let field = if letter == b'm' {
                &mut run.flags.multcount
            } else {
                &mut run.flags.unmask_irq
            };
            field.set = true;
            field.get = true;
            field.value = value.unwrap_or(0);
        }
        Ok(())
    }
}

fn os_bytes(s: &OsString) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    s.as_os_str().as_bytes().to_vec()
}

fn bytes_to_path(b: &[u8]) -> PathBuf {
    use std::os::unix::ffi::OsStrExt;
    PathBuf::from(std::ffi::OsStr::from_bytes(b))
}

/// Which IDENTIFY output `-I`, `--Istdout` and `--Iraw` ask for: they share one setting in
/// hdparm, so the last one given wins.
enum IdentifyOutput {
    Decode,
    Hex,
    Raw(PathBuf),
}

impl<'a> Parser<'a> {
    /// Takes the noisy state for the option being read and resets it, as every hdparm option
    /// does.
    fn take_noisy(&mut self) -> bool {
        std::mem::replace(&mut self.noisy, true)
    }

    /// When the current word is used up, the next word becomes the value's when its first byte
    /// passes `starts` (hdparm: `if (!*p && argc && isdigit(**argv)) p = *argv++`).
    fn value_from_next_word_if(&mut self, starts: fn(&u8) -> bool) {
        let first = self.peek_word().and_then(|w| w.first().copied());
        if self.at_word_end() && self.remaining() > 0 && first.as_ref().is_some_and(starts) {
            self.take_next_word();
        }
    }

    /// hdparm's `numeric_parm`: optional (or required) decimal digits, range-checked.
    fn numeric(&mut self, def: &OptionDef, required: bool) -> Step<Option<u32>> {
        let (letter, name, min, max) = match (def.short, def.value) {
            (Some(letter), Value::Decimal { name, min, max }) => (letter, name, min, max),
            _ => return Err(usage(10)),
        };
        self.value_from_next_word_if(|c| c.is_ascii_digit());
        let mut value: i32 = 0;
        let mut got_digit = false;
        while let Some(&c) = self.rest().first() {
            if !c.is_ascii_digit() {
                break;
            }
            // hdparm's C int wraps, so -S4294967301 would set 5; saturating keeps every
            // overflowing value out of range (DIFFERENCES.md: cli:numeric-overflow).
            value = value.saturating_mul(10).saturating_add(i32::from(c - b'0'));
            got_digit = true;
            self.pos += 1;
        }
        if (required && !got_digit) || value < min || value > max {
            return Err(message(format!(
                "  -{}: bad/missing {name} value ({min}..{max})",
                letter as char
            )));
        }
        Ok(if got_digit { Some(value as u32) } else { None })
    }

    /// hdparm's `get_u64_parm`: a C-notation 64-bit number, with an optional one-letter prefix.
    /// Returns the value (if one was given) and whether the prefix was present.
    fn u64_parm(
        &mut self,
        optional: bool,
        prefix: Option<u8>,
        min: u64,
        limit: u64,
        eprefix: &str,
        emsg: &str,
    ) -> Step<(Option<u64>, bool)> {
        if self.at_word_end() && self.remaining() > 0 {
            let first = self.peek_word().and_then(|w| w.first().copied());
            if first.is_some_and(|c| c.is_ascii_digit() || Some(c) == prefix) {
                self.take_next_word();
            }
        }
        let mut prefixed = false;
        if let Some(p) = prefix {
            if self.rest().first() == Some(&p) {
                prefixed = true;
                self.pos += 1;
            }
        }
        let (value, used, overflow) = strtoll_auto(self.rest());
        let error = || message(format!("  {eprefix}: {emsg}"));
        if overflow || (used > 0 && (value < min as i64 || (value as u64) > limit)) {
            return Err(error());
        }
        if used > 0 {
            self.pos += used;
            return Ok((Some(value as u64), prefixed));
        }
        if !optional {
            return Err(error());
        }
        Ok((None, prefixed))
    }

    /// hdparm's `get_filename_parm`: the next word, whatever it is.
    fn filename(&mut self, name: &str) -> Step<PathBuf> {
        if self.at_word_end() && self.remaining() > 0 {
            self.take_next_word();
        }
        if self.at_word_end() {
            return Err(message(format!("  {name}: bad/missing filename parameter")));
        }
        let path = bytes_to_path(self.rest());
        self.pos = self.word.len();
        Ok(path)
    }

    /// `-p` / `-X`: up to 31 alphanumerics, a mode name or a decimal number. A word that is
    /// neither is a usage error naming the option and the word: hdparm 9.65 ignores it (`-p`)
    /// or prints `-X: missing value`, and exits 0 having set nothing (DIFFERENCES.md:
    /// args:-X foo*, args:-p foo*).
    fn xfer_mode(&mut self, letter: u8) -> Step<u32> {
        self.value_from_next_word_if(|c| c.is_ascii_alphanumeric());
        let mut name = String::new();
        while let Some(&c) = self.rest().first() {
            if !c.is_ascii_alphanumeric() || name.len() >= 31 {
                break;
            }
            name.push(c as char);
            self.pos += 1;
        }
        translate_xfermode(&name).ok_or_else(|| {
            message(format!(
                "  -{}: bad transfer mode '{name}' (pio0..7, sdma0..7, mdma0..7, udma0..7 or a number)",
                letter as char
            ))
        })
    }

    fn set_identify_output(&mut self, which: IdentifyOutput) {
        let f = &mut self.flags;
        f.identify = false;
        f.identify_stdout = false;
        f.identify_raw = None;
        match which {
            IdentifyOutput::Decode => f.identify = true,
            IdentifyOutput::Hex => f.identify_stdout = true,
            IdentifyOutput::Raw(path) => f.identify_raw = Some(path),
        }
    }

    /// One letter of a flag cluster: its definition decides what it reads and where it goes.
    fn letter(&mut self, letter: u8) -> Step<Outcome> {
        if letter == b'-' {
            return self.long_option();
        }
        match defs::by_letter(letter) {
            Some(def) => self.apply(def, ""),
            None => Err(usage(10)),
        }
    }

    /// A long option: the rest of the current word is its name.
    fn long_option(&mut self) -> Step<Outcome> {
        let name_bytes = self.rest().to_vec();
        self.pos = self.word.len();
        let typed = String::from_utf8_lossy(&name_bytes).into_owned();
        match defs::by_name(&typed) {
            Some(def) => self.apply(def, &typed),
            // An unknown name is judged as a standalone option would be (hdparm's fallthrough).
            None if self.num_flags != 0 => Err(usage(1)),
            None => Err(message(format!("{typed}: unknown flag"))),
        }
    }

    /// Reads one option as its definition says. `typed` is the long name as the user typed it
    /// (some error messages show it).
    fn apply(&mut self, def: &OptionDef, typed: &str) -> Step<Outcome> {
        if def.role == Role::Standalone && self.num_flags != 0 {
            return Err(usage(1));
        }
        self.used.push(def.spelling());
        let outcome = match def.apply {
            Apply::GetSet(field) => {
                let noisy = self.take_noisy();
                let value = self.numeric(def, false)?;
                let field = field(&mut self.flags);
                field.get = noisy;
                // A bare repeat of an option that was set only adds the get: hdparm 9.65 zeroes
                // the value here and keeps `set`, so `-a512 -a` set read-ahead to 0
                // (DIFFERENCES.md: args:repeat-get).
                if let Some(value) = value {
                    field.value = value;
                    field.set = true;
                }
                Outcome::Continue
            }
            Apply::SetOnly(field) => {
                let noisy = self.take_noisy();
                let value = self.numeric(def, true)?;
                let field = field(&mut self.flags);
                field.noisy = noisy;
                field.value = value.unwrap_or(0);
                field.set = true;
                Outcome::Continue
            }
            Apply::PlainSet(field) => {
                let noisy = self.take_noisy();
                let field = field(&mut self.flags);
                field.noisy = noisy;
                field.set = true;
                Outcome::Continue
            }
            Apply::Flag(field) => {
                *field(&mut self.flags) = true;
                if def.short.is_some() {
                    self.end_quiet();
                }
                Outcome::Continue
            }
            Apply::Custom(reader) => self.read_with(reader, def, typed)?,
            Apply::Rejected => return Err(usage(10)),
        };
        if def.role == Role::Modifier {
            self.num_flags -= 1;
        }
        Ok(match outcome {
            Outcome::Continue if def.role == Role::Standalone => Outcome::NoMoreFlags,
            other => other,
        })
    }

    /// A plain short action ends a `-q` too (hdparm's DO_FLAG).
    fn end_quiet(&mut self) {
        self.noisy = true;
    }

    /// hdparm's `get_u64_parm` for an option whose definition holds a [`Value::Number`].
    fn number(&mut self, def: &OptionDef, typed: &str) -> Step<(Option<u64>, bool)> {
        let Value::Number {
            prefix,
            min,
            max,
            label,
            message,
            optional,
        } = def.value
        else {
            return Err(usage(10));
        };
        let label = match label {
            Label::Typed => typed,
            Label::Fixed(text) => text,
        };
        self.u64_parm(optional, prefix, min, max, label, message)
    }

    /// `-p` / `-X`: stores the transfer mode in `field`.
    fn set_transfer_mode(
        &mut self,
        def: &OptionDef,
        field: fn(&mut Flags) -> &mut SetOnly<u32>,
    ) -> Step<Outcome> {
        let noisy = self.take_noisy();
        let mode = self.xfer_mode(def.short.unwrap_or(b'X'))?;
        let field = field(&mut self.flags);
        field.noisy = noisy;
        field.set = true;
        field.value = mode;
        Ok(Outcome::Continue)
    }

    /// `--fwdownload*`: the file and which protocol variant.
    fn set_fwdownload(&mut self, mode: FwMode, typed: &str) -> Step<Outcome> {
        let path = self.filename(typed)?;
        self.flags.fwdownload = Some((mode, path));
        Ok(Outcome::Continue)
    }

    /// A `--sanitize-*` command.
    fn set_sanitize(&mut self, command: SanitizeCommand) -> Step<Outcome> {
        self.flags.sanitize = Some(command);
        Ok(Outcome::Continue)
    }

    /// A `--security-*` command and its password.
    fn set_security(&mut self, command: SecurityCommand) -> Step<Outcome> {
        let password = self.password()?;
        self.flags.security = Some((command, password));
        Ok(Outcome::Continue)
    }

    /// `--security-mode h|m` / `--user-master u|m`: the next word, only when it starts with a
    /// letter; another letter prints the security help (exit 22).
    fn security_letter(&mut self, def: &OptionDef) -> Step<Outcome> {
        let starts_with_letter = self
            .peek_word()
            .and_then(|w| w.first().copied())
            .is_some_and(|c| c.is_ascii_alphabetic());
        if self.remaining() > 0 && starts_with_letter {
            self.take_next_word();
            let first = self.word[0];
            self.pos = self.word.len();
            let f = &mut self.flags;
            match (def.long, first) {
                (Some("security-mode"), b'm') => f.security_level = SecurityLevel::Maximum,
                (Some("security-mode"), b'h') => f.security_level = SecurityLevel::High,
                (Some("user-master"), b'u') => f.security_user = SecurityUser::User,
                (Some("user-master"), b'm') => f.security_user = SecurityUser::Master,
                _ => return Err(ParseError::SecurityHelp),
            }
        }
        Ok(Outcome::Continue)
    }

    /// The word after a password option (hdparm's `get_security_password`).
    fn password(&mut self) -> Step<Password> {
        if self.flags.security_prompt || self.flags.security_password_file.is_some() {
            // Read at run time from the terminal or the file; nothing is echoed while parsing.
            return Ok(Password {
                bytes: Secret::zeroed(),
            });
        }
        if self.remaining() < 2 {
            return Err(message("missing PASSWD"));
        }
        self.take_next_word();
        self.secret_args.push(self.next - 1);
        let word = self.word.clone();
        self.pos = self.word.len();
        let mut bytes = [0u8; 32];
        if let Some(hex) = word.strip_prefix(b"hex:") {
            if hex.len() != 64 {
                return Err(message(
                    "invalid PASSWD length (hex string must be exactly 64 chars)",
                ));
            }
            for (i, pair) in hex.chunks(2).enumerate() {
                bytes[i] = (hex_digit(pair[0])? << 4) | hex_digit(pair[1])?;
            }
            let mut line = String::from("security_password:");
            for b in bytes {
                line.push_str(&format!(" {b:02x}"));
            }
            self.stdout_lines.push(line);
            let password = Password {
                bytes: Secret::from_slice(&bytes),
            };
            bytes.fill(0);
            return Ok(password);
        }
        if word.len() > 32 {
            return Err(message("PASSWD too long (must be 32 chars max)"));
        }
        if word != b"NULL" {
            bytes[..word.len()].copy_from_slice(&word);
        }
        // C's "%s" stops at the first NUL.
        let shown_len = bytes.iter().position(|&b| b == 0).unwrap_or(32);
        let shown = String::from_utf8_lossy(&bytes[..shown_len]).into_owned();
        self.stdout_lines
            .push(format!("security_password: \"{shown}\""));
        let password = Password {
            bytes: Secret::from_slice(&bytes),
        };
        bytes.fill(0);
        Ok(password)
    }

    /// `--sanitize-overwrite hex:XXXXXXXX`.
    fn overwrite_pattern(&mut self) -> Step<u32> {
        if self.remaining() < 2 {
            return Err(message("missing PATTERN"));
        }
        self.take_next_word();
        let word = self.word.clone();
        self.pos = self.word.len();
        let Some(hex) = word.strip_prefix(b"hex:") else {
            return Err(message("invalid PATTERN format (must be hex:XXXXXXXX)"));
        };
        if hex.len() != 8 {
            return Err(message(
                "invalid PATTERN length (hex string must be exactly 8 chars)",
            ));
        }
        let mut pattern = 0u32;
        for &c in hex {
            pattern = (pattern << 4) | u32::from(hex_digit(c)?);
        }
        Ok(pattern)
    }

    /// `--trim-sector-ranges LBA:COUNT ...`: consecutive words that start with a digit.
    fn trim_ranges(&mut self, name: &str) -> Step<Vec<(u64, u64)>> {
        let max_ranges = self.remaining();
        let mut ranges = Vec::new();
        for i in 0..max_ranges {
            let prefix = format!("{name}[{i}]");
            let optional = i > 0;
            let (lba, _) = self.u64_parm(optional, None, 0, LBA_LIMIT, &prefix, LBA_MSG)?;
            let Some(lba) = lba else { break };
            let colon = self.rest().first() == Some(&b':');
            self.pos += 1;
            let digit_follows = self.rest().first().is_some_and(|c| c.is_ascii_digit());
            if !colon || !digit_follows {
                return Err(message(format!("{prefix}: {COUNT_MSG}")));
            }
            let (count, _) = self.u64_parm(false, None, 1, 0xffff, &prefix, COUNT_MSG)?;
            ranges.push((lba, count.unwrap_or(0)));
        }
        Ok(ranges)
    }
}

/// One hex digit of a password or pattern; hdparm exits on anything else.
fn hex_digit(c: u8) -> Step<u8> {
    match (c as char).to_digit(16) {
        Some(d) => Ok(d as u8),
        None => Err(message(format!("bad char: '{}' 0x{:02x}", c as char, c))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn argv(words: &[&str]) -> Vec<OsString> {
        std::iter::once("hdparm")
            .chain(words.iter().copied())
            .map(OsString::from)
            .collect()
    }

    fn devices(words: &[&str]) -> Vec<DeviceRun> {
        match parse(&argv(words)).result {
            Ok(Invocation::Devices(d)) => d,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    fn error(words: &[&str]) -> ParseError {
        match parse(&argv(words)).result {
            Err(e) => e,
            other => panic!("{words:?}: {other:?}"),
        }
    }

    #[test]
    fn flags_accumulate_and_defaults_are_sticky() {
        let d = devices(&["/dev/a", "-r", "/dev/b"]);
        assert!(d[0].flags.defaults);
        assert!(d[1].flags.defaults, "defaults mode stays on");
        assert!(d[1].flags.readonly.get);
        let d = devices(&["-a", "/dev/a", "-A", "/dev/b"]);
        assert!(!d[0].flags.defaults);
        assert!(d[1].flags.readahead.get && d[1].flags.lookahead.get);
    }

    #[test]
    fn values_attached_separate_and_followed_by_flags() {
        let d = devices(&["-m16d1", "/dev/a"]);
        assert_eq!(
            (d[0].flags.multcount.set, d[0].flags.multcount.value),
            (true, 16)
        );
        assert_eq!((d[0].flags.dma.set, d[0].flags.dma.value), (true, 1));
        let d = devices(&["-m", "16", "/dev/a"]);
        assert_eq!(d[0].flags.multcount.value, 16);
        let d = devices(&["-q", "-W0", "/dev/a"]);
        assert!(d[0].flags.write_cache.set && !d[0].flags.write_cache.get);
        assert!(d[0].flags.quiet);
    }

    #[test]
    fn unknown_transfer_modes_are_usage_errors() {
        for (words, text) in [
            (
                &["-X", "udma9", "/dev/a"][..],
                "-X: bad transfer mode 'udma9'",
            ),
            (&["-pfoo", "/dev/a"], "-p: bad transfer mode 'foo'"),
        ] {
            match error(words) {
                ParseError::Message(m) => assert!(m.contains(text), "{words:?}: {m}"),
                other => panic!("{words:?}: {other:?}"),
            }
        }
        // No word (or one that is not alphanumeric) is mode 0, as in hdparm.
        let d = devices(&["-X", "/dev/a"]);
        assert!(d[0].flags.xfer_mode.set && d[0].flags.xfer_mode.value == 0);
    }

    #[test]
    fn transfer_modes_and_c_notation() {
        let d = devices(&["-X", "udma5", "/dev/a"]);
        assert_eq!(d[0].flags.xfer_mode.value, 69);
        let d = devices(&["-p", "pio4", "/dev/a"]);
        assert_eq!(d[0].flags.pio_mode.value, 12);
        let d = devices(&["-N", "010", "/dev/a"]);
        assert_eq!(d[0].flags.max_sectors.value, 8);
        let d = devices(&["-Np0x10", "/dev/a"]);
        assert!(d[0].flags.max_sectors_permanent);
        assert_eq!(d[0].flags.max_sectors.value, 16);
        let d = devices(&["--OFFSET", "2", "-t", "/dev/a"]);
        assert_eq!(d[0].flags.offset_gib, Some(2));
    }

    #[test]
    fn usage_clues() {
        assert_eq!(error(&[]), ParseError::Usage { clue: 6 });
        assert_eq!(error(&["-"]), ParseError::Usage { clue: 8 });
        assert_eq!(error(&["-a"]), ParseError::Usage { clue: 11 });
        assert_eq!(error(&["-x", "/dev/a"]), ParseError::Usage { clue: 10 });
        assert_eq!(
            error(&["-a", "--security-help"]),
            ParseError::Usage { clue: 1 }
        );
        assert_eq!(error(&["--Istdin", "x"]), ParseError::Usage { clue: 2 });
        assert_eq!(
            error(&["-S", "300", "/dev/a"]),
            ParseError::Message("  -S: bad/missing standby-interval value (0..255)".into())
        );
        assert_eq!(
            error(&["--foo", "/dev/a"]),
            ParseError::Message("foo: unknown flag".into())
        );
        assert_eq!(
            error(&["--sanitize-status", "-a", "/dev/a"]),
            ParseError::MessageThenUsage {
                message: "Excess flags given.".into(),
                clue: 7
            }
        );
        assert_eq!(
            error(&["--write-sector", "5", "-a", "/dev/a"]),
            ParseError::Usage { clue: 14 }
        );
    }

    #[test]
    fn old_two_number_form() {
        let d = devices(&["/dev/hda", "16", "1"]);
        assert_eq!(d.len(), 1);
        assert_eq!(
            (d[0].flags.multcount.set, d[0].flags.multcount.value),
            (true, 16)
        );
        assert_eq!(
            (d[0].flags.unmask_irq.set, d[0].flags.unmask_irq.value),
            (true, 1)
        );
        assert!(d[0].flags.defaults);
        let d = devices(&["/dev/hda", "8", "/dev/hdb"]);
        assert_eq!(d.len(), 2);
        assert_eq!(d[0].flags.multcount.value, 8);
        assert!(!d[1].flags.multcount.set);
        assert_eq!(
            error(&["/dev/hda", "99"]),
            ParseError::Message("  -m: bad/missing multmode-count value (0..64)".into())
        );
    }

    #[test]
    fn identify_outputs_share_one_setting() {
        let d = devices(&["-I", "--Istdout", "/dev/a"]);
        assert!(!d[0].flags.identify && d[0].flags.identify_stdout);
        let d = devices(&["--Istdout", "-I", "/dev/a"]);
        assert!(d[0].flags.identify && !d[0].flags.identify_stdout);
    }
}
