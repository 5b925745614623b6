//! Every option of hdparm 9.65, and every option of ours, as one definition each.
//!
//! A definition says everything the program knows about an option spelling: its short letter
//! and/or long name, the kind and range of its value (with hdparm's exact range-error text), how
//! it takes part in the grammar (get/set, set-only, action, modifier, standalone...), the guard
//! flags it needs, its usage clue, its line in `-h`/`--help`, a one-line summary and its man page
//! entry (`.man_page(argument, roff)`). The parser ([`super::parse`]), the help texts
//! ([`super::usage`]), the man page ([`super::man`]), the completions ([`super::complete`]) and
//! the option tables of the bad-input and differential tests read [`OPTIONS`]; nothing else
//! lists options.
//!
//! To add an option: write its definition below (in hdparm's usage order, ours at the end) with
//! its man page entry, its field in [`Flags`] and its step in `exec/`, then regenerate the page
//! (`hdparm --generate man > doc/hdparm.8`). The tests below each definition check what it
//! parses to.
//!
//! What this file must not do: touch the system, know how an option is carried out, or call
//! the parser: a definition names the parser's reader for its value ([`Reader`]), and
//! `cli/parse/readers.rs` holds the readers, so the arrow points from the parser to here only.

use super::flags::*;

/// Whose option it is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An option of hdparm 9.65: same grammar, same output.
    Hdparm,
    /// An option of hdparm-rs (hdparm 9.65 rejects it as an unknown flag).
    Ours,
}

/// How an option takes part in hdparm's grammar (reference §1.3, §1.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Optional value: with one it sets, and it always gets (prints) unless `-q` came before.
    GetSet,
    /// Value required; sets, with a message unless `-q` came before.
    SetOnly,
    /// No value; a command sent to the drive, with a message unless `-q` came before.
    PlainSet,
    /// An action or report, not affected by `-q`; counts as an action flag.
    Action,
    /// Changes how other options work; does not count as an action flag.
    Modifier,
    /// Must be the first action flag (clue 1), and no flag word may follow it (clue 7).
    Standalone,
    /// Decides the whole invocation while parsing (help, version, file helpers).
    Immediate,
    /// Listed in hdparm's usage text as "Obsolete" and rejected (clue 10).
    Obsolete,
}

/// Which guard flags an option needs before anything is sent (reference §7). Some guards apply
/// only to some values or devices (`-s1`, not `-s0`; `-m` only where SET MULTIPLE MODE would be
/// sent): `exec/guards.rs` decides those conditions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Guard {
    None,
    /// `--yes-i-know-what-i-am-doing`.
    YesIKnow,
    /// `--please-destroy-my-drive`.
    PleaseDestroy,
    /// Both, `--yes-i-know-what-i-am-doing` checked first.
    Both,
}

/// How an error names a 64-bit option: as the user typed it (`offset`, `OFFSET`), or fixed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Label {
    Typed,
    Fixed(&'static str),
}

/// The value an option takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Value {
    None,
    /// hdparm's `numeric_parm`: decimal digits in `min..=max`, attached or in the next word when
    /// it starts with a digit; optional for get/set options, required for set-only ones. Error:
    /// `  -<letter>: bad/missing <name> value (<min>..<max>)`.
    Decimal {
        name: &'static str,
        min: i32,
        max: i32,
    },
    /// hdparm's `get_u64_parm`: C notation (`0x` hex, leading-0 octal) in `min..=max`, with an
    /// optional one-letter prefix. Error: `  <label>: <message>`.
    Number {
        prefix: Option<u8>,
        min: u64,
        max: u64,
        label: Label,
        message: &'static str,
        optional: bool,
    },
    /// A `-p`/`-X` transfer mode: a name (`udma5`) or a number (reference §1.4).
    TransferMode,
    /// The next word, whatever it is (`  <name>: bad/missing filename parameter`).
    Filename,
    /// A KiB count (`bad/missing block-count`, 0..2^53) and a file name.
    KibThenFilename,
    /// A security password: text, `NULL` or `hex:` and 64 hex digits.
    Password,
    /// `hex:` and 8 hex digits.
    Pattern,
    /// `LBA:COUNT` words (LBA 0..2^48-1, COUNT 1..65535).
    TrimRanges,
    /// The next word when it starts with a letter; its first letter is one of `choices`.
    Letter {
        choices: &'static str,
    },
    /// The next word, checked by our own parser for it (the `--bench-*` values).
    Word {
        example: &'static str,
    },
    /// The rest of the command line: `[--config FILE] [--dry-run] [DEVICE...]`.
    ApplyArguments,
    /// The rest of the command line: `ARM ARM... [--trials N] [--direct|--bench] [--keep]
    /// [--plot FILE] DEVICE`.
    ExperimentArguments,
    /// The rest of the command line: `[FILE] [--no-wake] [DEVICE...]`.
    PrometheusArguments,
    /// The rest of the command line: `[--wake] [DEVICE...]`.
    AdviseArguments,
    /// The rest of the command line: `[--zones N] [--surface-quick] [--plot FILE] [--csv FILE]
    /// DEVICE`.
    SurfaceArguments,
}

/// Where a parsed option's value goes.
#[derive(Clone, Copy)]
pub(crate) enum Apply {
    GetSet(fn(&mut Flags) -> &mut GetSet<u32>),
    SetOnly(fn(&mut Flags) -> &mut SetOnly<u32>),
    PlainSet(fn(&mut Flags) -> &mut Action),
    /// Switches a flag on. A short letter also ends a `-q` (hdparm's DO_FLAG); a long one does
    /// not.
    Flag(fn(&mut Flags) -> &mut bool),
    /// Everything else: one of the parser's own readers, which reads the value as the
    /// definition describes it.
    Custom(Reader),
    Rejected,
}

/// The parser's readers for the options that are more than a flag or a decimal into a field.
/// `cli::parse` carries each out: a definition is data, and knows nothing of the parser.
#[derive(Clone, Copy)]
pub(crate) enum Reader {
    /// `-h`, `--help`.
    Help {
        extended: bool,
    },
    /// `-V`.
    Version,
    /// `--security-help`.
    SecurityHelp,
    /// `-I`, `--Istdout`, `--Iraw FILE`: one setting, the last one given wins.
    IdentifyDecode,
    IdentifyHex,
    IdentifyRaw,
    /// `-q`.
    Quiet,
    /// `-N [p]COUNT`.
    MaxSectors,
    /// `-p`, `-X`: a transfer mode into the field.
    TransferMode(fn(&mut Flags) -> &mut SetOnly<u32>),
    /// The definition's [`Value::Number`] into the field.
    Number(fn(&mut Flags) -> &mut Option<u64>),
    /// `--make-bad-sector [f]LBA`.
    MakeBadSector,
    /// `--fallocate KiB FILE`, `--fibmap FILE`, `--Istdin`: the invocation itself.
    Fallocate,
    Fibmap,
    Istdin,
    /// `--fwdownload*`.
    Fwdownload(FwMode),
    /// A sanitize command without a value.
    Sanitize(SanitizeCommand),
    SanitizeOverwrite,
    SanitizeOverwritePasses,
    /// `--sanitize-status [--wait]`.
    SanitizeStatus,
    TrimRanges,
    /// `--security-mode h|m`, `--user-master u|m`.
    SecurityLetter,
    /// A security command and its password.
    Security(SecurityCommand),
    /// `--security-password-file FILE`.
    PasswordFile,
    Bench,
    BenchRandom,
    /// A `--bench-*` value: the benchmark's own parser stores the word.
    BenchSetting(fn(&mut crate::timing::bench::BenchOptions, &str) -> Result<(), String>),
    /// `--apply`, `--check`, `--config FILE`, `--experiment`, `--prometheus`, `--generate`,
    /// `--advise`, `--surface`: ours, most reading the rest of the command line.
    Apply {
        check: bool,
    },
    Config,
    Experiment,
    Prometheus,
    Generate,
    Advise,
    Surface {
        quick: bool,
    },
}

/// One option spelling.
#[derive(Clone, Copy)]
pub struct OptionDef {
    /// The letter after `-`, for short options.
    pub short: Option<u8>,
    /// The name after `--`, spelled as hdparm spells it (matched case-insensitively).
    pub long: Option<&'static str>,
    pub role: Role,
    pub value: Value,
    pub guard: Guard,
    /// The usage clue printed when the option is misplaced (not alone, not first...).
    pub clue: Option<u8>,
    /// Its line in hdparm's usage text (`-h`), or in our part of `--help`, byte for byte.
    pub usage: Option<&'static str>,
    /// What it does, in one line.
    pub summary: &'static str,
    /// A command line fragment that uses it with a valid value (for the test tables).
    pub example: &'static [&'static str],
    pub origin: Origin,
    /// Its entry in the man page (`hdparm --generate man`); none for the obsolete letters,
    /// which the page leaves out.
    pub man: Option<ManEntry>,
    /// Its lines in `--security-help`, byte for byte as hdparm 9.65 prints them (the layout
    /// around them is in `usage.rs`).
    pub security_help: Option<&'static str>,
    pub(crate) apply: Apply,
}

/// An option's entry in doc/hdparm.8, in roff: the argument shown in italics after the
/// spelling (empty for none), and the paragraphs below it. `super::man` puts the page together.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ManEntry {
    pub argument: &'static str,
    pub text: &'static str,
}

impl OptionDef {
    /// The definition with its man page entry (roff: `argument` in italics after the
    /// spelling, empty for none; `text` the paragraphs below it).
    const fn man_page(self, argument: &'static str, text: &'static str) -> OptionDef {
        OptionDef {
            man: Some(ManEntry { argument, text }),
            ..self
        }
    }

    /// Whether an experiment may set it: it has a get to read the value before, and a set to
    /// put it back after (`-X` is read back from IDENTIFY's selected mode). Never an option
    /// that needs --please-destroy-my-drive (`-J`, a vendor sequence hdparm itself calls risky).
    pub fn restorable(&self) -> bool {
        !matches!(self.guard, Guard::PleaseDestroy | Guard::Both)
            && ((self.role == Role::GetSet && matches!(self.value, Value::Decimal { .. }))
                || self.short == Some(b'X'))
    }

    /// The definition with its lines in `--security-help` (several lines joined by `\n`).
    const fn in_security_help(self, lines: &'static str) -> OptionDef {
        OptionDef {
            security_help: Some(lines),
            ..self
        }
    }

    /// How a user writes it: `-B` or `--security-erase`.
    pub fn spelling(&self) -> String {
        match (self.short, self.long) {
            (Some(c), _) => format!("-{}", c as char),
            (None, Some(name)) => format!("--{name}"),
            (None, None) => String::new(),
        }
    }

    /// Whether `typed` (the word after `--`) names this option.
    pub fn is_named(&self, typed: &str) -> bool {
        self.long
            .is_some_and(|name| name.eq_ignore_ascii_case(typed))
    }
}

/// A definition is the key of the tables outside `cli/` (the step rows, the guards, the
/// hdparm.conf keys): two are the same option when they have the same spellings. (The
/// definitions are constants, so their addresses say nothing.)
impl PartialEq for OptionDef {
    fn eq(&self, other: &Self) -> bool {
        (self.short, self.long) == (other.short, other.long)
    }
}

impl Eq for OptionDef {}

/// The definition of a short letter.
pub fn by_letter(letter: u8) -> Option<&'static OptionDef> {
    OPTIONS.iter().copied().find(|d| d.short == Some(letter))
}

/// The definition of a long name (case-insensitive).
pub fn by_name(typed: &str) -> Option<&'static OptionDef> {
    OPTIONS.iter().copied().find(|d| d.is_named(typed))
}

/// The definition of a spelling as [`OptionDef::spelling`] gives it (`-B`, `--dco-setmax`).
pub fn by_spelling(spelled: &str) -> Option<&'static OptionDef> {
    match spelled.strip_prefix("--") {
        Some(long) => by_name(long),
        None => match spelled.as_bytes() {
            [b'-', letter] => by_letter(*letter),
            _ => None,
        },
    }
}

/// The 48-bit LBA limit of sector options (reference §1.5).
pub const LBA_LIMIT: u64 = (1 << 48) - 1;
const LBA_MSG: &str = "bad/missing sector value";

/// A short option's letter as the byte the parser compares (every letter is ASCII).
const fn ascii(letter: char) -> u8 {
    letter as u8
}

/// Returns a fn that borrows one field of [`Flags`].
macro_rules! field {
    ($t:ty, $($f:ident).+) => {{
        fn field(flags: &mut Flags) -> &mut $t {
            &mut flags.$($f).+
        }
        field
    }};
}

/// An option with a decimal value in `$min..=$max`, whose example is `-<letter><$example>`:
/// what [`get_set!`] and [`set_only!`] share.
macro_rules! decimal {
    ($letter:literal, $name:literal, $min:literal..=$max:literal, $example:literal, $role:expr, $usage:literal, $summary:literal, $apply:expr) => {
        OptionDef {
            value: Value::Decimal {
                name: $name,
                min: $min,
                max: $max,
            },
            example: &[concat!("-", $letter, $example)],
            ..plain(
                Some(ascii($letter)),
                None,
                $role,
                Some($usage),
                $summary,
                &[],
                $apply,
            )
        }
    };
}

/// A get/set option with a decimal value.
macro_rules! get_set {
    ($letter:literal, $name:literal, $min:literal..=$max:literal, $field:ident, $usage:literal, $summary:literal) => {
        decimal!(
            $letter,
            $name,
            $min..=$max,
            $max,
            Role::GetSet,
            $usage,
            $summary,
            Apply::GetSet(field!(GetSet<u32>, $field))
        )
    };
}

/// A set-only option with a required decimal value.
macro_rules! set_only {
    ($letter:literal, $name:literal, $min:literal..=$max:literal, $field:ident, $usage:literal, $summary:literal) => {
        decimal!(
            $letter,
            $name,
            $min..=$max,
            $min,
            Role::SetOnly,
            $usage,
            $summary,
            Apply::SetOnly(field!(SetOnly<u32>, $field))
        )
    };
}

/// An option with no value and no special rule.
const fn plain(
    short: Option<u8>,
    long: Option<&'static str>,
    role: Role,
    usage: Option<&'static str>,
    summary: &'static str,
    example: &'static [&'static str],
    apply: Apply,
) -> OptionDef {
    OptionDef {
        short,
        long,
        role,
        value: Value::None,
        guard: Guard::None,
        clue: None,
        usage,
        summary,
        example,
        origin: Origin::Hdparm,
        man: None,
        security_help: None,
        apply,
    }
}

/// `-p` and `-X`: a set-only transfer mode, given as a name (`udma5`) or a number.
const fn transfer_mode(
    letter: u8,
    usage: &'static str,
    summary: &'static str,
    example: &'static [&'static str],
    field: fn(&mut Flags) -> &mut SetOnly<u32>,
) -> OptionDef {
    OptionDef {
        value: Value::TransferMode,
        ..plain(
            Some(letter),
            None,
            Role::SetOnly,
            Some(usage),
            summary,
            example,
            Apply::Custom(Reader::TransferMode(field)),
        )
    }
}

/// A test beside a definition: the command line parses to one device whose flags satisfy the
/// condition.
macro_rules! parses {
    ($test:ident, $args:expr, |$f:ident| $cond:expr) => {
        #[cfg(test)]
        #[test]
        fn $test() {
            let $f = tests::flags_of($args);
            assert!($cond, "{}: {:?}", $args, $f);
        }
    };
}

/// A test beside a definition: the command line is this invocation.
macro_rules! invokes {
    ($test:ident, $args:expr, $invocation:expr) => {
        #[cfg(test)]
        #[test]
        fn $test() {
            assert_eq!(tests::parse_words($args), Ok($invocation), "{}", $args);
        }
    };
}

/// A test beside a definition: the command line is refused with this error.
macro_rules! rejects {
    ($test:ident, $args:expr, $error:expr) => {
        #[cfg(test)]
        #[test]
        fn $test() {
            assert_eq!(tests::parse_words($args), Err($error), "{}", $args);
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Short options, in the order of hdparm's usage text.

pub const READAHEAD: OptionDef = get_set!(
    'a',
    "filesystem-read-ahead",
    0..=2048,
    readahead,
    " -a   Get/set fs readahead",
    "Get/set the block layer's read-ahead, in 512-byte sectors"
)
.man_page("[N]", r#"Get or set the filesystem read\-ahead of the block device, in 512\-byte sectors (0..2048). This is the kernel's setting (BLKRAGET/BLKRASET), not the drive's."#);
parses!(
    readahead_repeated_bare_only_adds_the_get,
    "-a512 -a /dev/x",
    |f| {
        f.readahead
            == GetSet {
                get: true,
                set: true,
                value: 512,
            }
    }
);
parses!(readahead_parses, "-a256 /dev/x", |f| f.readahead
    == GetSet {
        get: true,
        set: true,
        value: 256
    });
parses!(readahead_2_parses, "-q -a /dev/x", |f| f.readahead
    == GetSet::default());
pub const LOOKAHEAD: OptionDef = get_set!(
    'A',
    "look-ahead",
    0..=1,
    lookahead,
    " -A   Get/set the drive look-ahead flag (0/1)",
    "Get/set the drive's read look-ahead (SET FEATURES 0xAA/0x55)"
)
.man_page("[0|1]", r#"Get or set the drive's read\-look\-ahead feature (SET FEATURES 0xAA/0x55). The get reads IDENTIFY words 82 and 85."#);
parses!(lookahead_parses, "-A0 /dev/x", |f| f.lookahead
    == GetSet {
        get: true,
        set: true,
        value: 0
    });
pub const BUSSTATE: OptionDef = get_set!(
    'b',
    "bus-state",
    0..=2,
    busstate,
    " -b   Get/set bus state (0 == off, 1 == on, 2 == tristate)",
    "Get/set the IDE bus state (HDIO_GET/SET_BUSSTATE)"
)
.man_page("[0|1|2]", r#"Get or set the bus state of an old IDE interface (off, on, tristate). Only the legacy IDE driver implements it."#);
parses!(busstate_parses, "-b /dev/x", |f| f.busstate
    == GetSet {
        get: true,
        set: false,
        value: 0
    });
pub const APM: OptionDef = get_set!(
    'B',
    "power-management-mode",
    0..=255,
    apm,
    " -B   Set Advanced Power Management setting (1-255)",
    "Get/set Advanced Power Management (SET FEATURES 0x05/0x85)"
)
.man_page("[N]", r#"Get or set Advanced Power Management: 1..127 allow spin\-down, 128..254 do not, 255 disables APM. The get reads IDENTIFY word 91. On NVMe: APST (see NVME)."#);
parses!(apm_parses, "-B 254 /dev/x", |f| f.apm
    == GetSet {
        get: true,
        set: true,
        value: 254
    });
parses!(apm_2_parses, "-q -B1 /dev/x", |f| f.apm
    == GetSet {
        get: false,
        set: true,
        value: 1
    });
pub const IO32BIT: OptionDef = get_set!(
    'c',
    "32-bit-IO",
    0..=3,
    io32bit,
    " -c   Get/set IDE 32-bit IO setting",
    "Get/set the IDE driver's 32-bit I/O (HDIO_GET/SET_32BIT)"
)
.man_page("[0..3]", r#"Get or set 32\-bit I/O support of the interface: 0 16\-bit, 1 32\-bit, 3 32\-bit with a sync sequence."#);
parses!(io32bit_parses, "-c3 /dev/x", |f| f.io32bit.value == 3
    && f.io32bit.set);
pub const CHECK_POWER: OptionDef = plain(
    Some(b'C'),
    None,
    Role::PlainSet,
    Some(" -C   Check drive power mode status"),
    "Print the drive's power mode (CHECK POWER MODE)",
    &["-C"],
    Apply::PlainSet(field!(Action, check_power)),
)
.man_page("", r#"Check the drive's power mode with CHECK POWER MODE: unknown, active/idle, standby, sleeping, NVcache states. This does not spin up a drive in standby."#);
parses!(check_power_parses, "-C /dev/x", |f| f.check_power
    == Action {
        set: true,
        noisy: true
    });
parses!(check_power_2_parses, "-qC /dev/x", |f| f.check_power
    == Action {
        set: true,
        noisy: false
    });
pub const DMA: OptionDef = get_set!(
    'd',
    "dma-enable",
    0..=1,
    dma,
    " -d   Get/set using_dma flag",
    "Get/set the IDE driver's DMA flag (HDIO_GET/SET_DMA)"
)
.man_page("[0|1]", r#"Get or set the using_dma flag of the legacy IDE driver. libata has no such switch; the kernel decides."#);
parses!(dma_parses, "-d1 /dev/x", |f| f.dma
    == GetSet {
        get: true,
        set: true,
        value: 1
    });
pub const DEFECT_MGMT: OptionDef = set_only!(
    'D',
    "defects-management",
    0..=1,
    defect_mgmt,
    " -D   Enable/disable drive defect management",
    "Enable/disable the drive's defect management (SET FEATURES 0x04/0x84)"
)
.man_page(
    "0|1",
    r#"Enable or disable the drive's defect management (SET FEATURES 0x04/0x84)."#,
);
parses!(defect_mgmt_parses, "-D0 /dev/x", |f| f.defect_mgmt
    == SetOnly {
        set: true,
        noisy: true,
        value: 0
    });
pub const CDROM_SPEED: OptionDef = set_only!(
    'E',
    "CDROM/DVD-speed",
    0..=255,
    cdrom_speed,
    " -E   Set cd/dvd drive speed",
    "Set a CD/DVD drive's read speed"
)
.man_page("N", r#"Set the speed of a CD/DVD drive, N times 177 kB/s (0..255; 0 restores the drive's default): SET STREAMING through the cdrom driver's packet interface, then the driver's CDROM_SELECT_SPEED (SET CD SPEED). It fails only when both fail."#);
parses!(cdrom_speed_parses, "-E 4 /dev/x", |f| f.cdrom_speed
    == SetOnly {
        set: true,
        noisy: true,
        value: 4
    });
pub const FLUSH_BUFFERS: OptionDef = plain(
    Some(b'f'),
    None,
    Role::Action,
    Some(" -f   Flush buffer cache for device on exit"),
    "Flush the kernel's buffer cache for the device (BLKFLSBUF)",
    &["-f"],
    Apply::Flag(field!(bool, flush_buffers)),
)
.man_page("", r#"Flush the kernel's buffer cache for the device when the tool finishes with it (sync, fsync, BLKFLSBUF)."#);
parses!(flush_buffers_parses, "-qf -W /dev/x", |f| f.flush_buffers
    && f.write_cache.get);
pub const FLUSH_DRIVE_CACHE: OptionDef = plain(
    Some(b'F'),
    None,
    Role::Action,
    Some(" -F   Flush drive write cache"),
    "Flush the drive's write cache (FLUSH CACHE EXT)",
    &["-F"],
    Apply::Flag(field!(bool, flush_drive_cache)),
)
.man_page(
    "",
    r#"Flush the drive's own write cache (FLUSH CACHE or FLUSH CACHE EXT)."#,
);
parses!(flush_drive_cache_parses, "-F /dev/x", |f| f
    .flush_drive_cache);
pub const GEOMETRY: OptionDef = plain(
    Some(b'g'),
    None,
    Role::Action,
    Some(" -g   Display drive geometry"),
    "Print the geometry, size and start sector",
    &["-g"],
    Apply::Flag(field!(bool, geometry)),
)
.man_page("", r#"Show the geometry: cylinders/heads/sectors, size in sectors and the start sector of a partition."#);
parses!(geometry_parses, "-g /dev/x", |f| f.geometry && !f.defaults);
pub const HELP: OptionDef = plain(
    Some(b'h'),
    None,
    Role::Immediate,
    Some(" -h   Display terse usage information"),
    "Print hdparm's usage text",
    &["-h"],
    Apply::Custom(Reader::Help { extended: false }),
)
.man_page("", r#"Show hdparm's terse usage text."#);
invokes!(help_invokes, "-h", Invocation::Help { extended: false });
pub const HITACHI_TEMP: OptionDef = plain(
    Some(b'H'),
    None,
    Role::PlainSet,
    Some(" -H   Read temperature from drive (Hitachi only)"),
    "Read the drive temperature (Hitachi/HGST SMART vendor command)",
    &["-H"],
    Apply::PlainSet(field!(Action, hitachi_temp)),
)
.man_page(
    "",
    r#"Read the drive temperature with the Hitachi vendor command."#,
);
parses!(hitachi_temp_parses, "-H /dev/x", |f| f.hitachi_temp.set);
pub const IDENTITY: OptionDef = plain(
    Some(b'i'),
    None,
    Role::Action,
    Some(" -i   Display drive identification"),
    "Print the kernel's cached identification (HDIO_GET_IDENTITY)",
    &["-i"],
    Apply::Flag(field!(bool, identity)),
)
.man_page(
    "",
    r#"Show the identification the kernel kept when it probed the drive (HDIO_GET_IDENTITY)."#,
);
parses!(identity_parses, "-i /dev/x", |f| f.identity);
pub const IDENTIFY: OptionDef = plain(
    Some(b'I'),
    None,
    Role::Action,
    Some(" -I   Detailed/current information directly from drive"),
    "Decode IDENTIFY DEVICE read from the drive",
    &["-I"],
    Apply::Custom(Reader::IdentifyDecode),
)
.man_page("", r#"Ask the drive for its IDENTIFY data now and decode all of it: model, serial, firmware, standards, geometry and size, capabilities, transfer modes, features with their enabled state, security, WWN and checksum."#);
parses!(identify_parses, "--Istdout -I /dev/x", |f| f.identify
    && !f.identify_stdout);
parses!(identify_2_parses, "-qI -W /dev/x", |f| f.identify
    && f.write_cache.get);
pub const WDIDLE3: OptionDef = OptionDef {
    guard: Guard::PleaseDestroy,
    ..get_set!(
        'J',
        "WDC-idle3-timeout",
        0..=300,
        wdidle3,
        " -J   Get/set Western DIgital \"Idle3\" timeout for a WDC \"Green\" drive (DANGEROUS)",
        "Get/set the idle3 timer of WD Green drives (vendor command)"
    )
}
.man_page("[SECONDS]", r#"Get or set the idle3 timer of Western Digital Green drives (vendor commands; setting needs \-\-please\-destroy\-my\-drive). SECONDS is 0 (off) to 300: 1 to 12 give 8.0 to 12.0 s in tenths, longer times round up to 30 s units. The value read is shown as the drive may mean it, with the older drives' reading in brackets; \-\-verbose adds the raw byte. The sequence (vendor command 0x80 with 'E', a key through SMART 0xD6, the timer through SMART 0xD5/0xD6, then 0x80 with 'D') goes through SG_IO only, 12 s per command, as hdparm sends it."#);
parses!(wdidle3_parses, "-J300 /dev/x", |f| f.wdidle3
    == GetSet {
        get: true,
        set: true,
        value: 300
    });
pub const KEEP_SETTINGS: OptionDef = get_set!(
    'k',
    "kernel-keep-settings",
    0..=1,
    keep_settings,
    " -k   Get/set keep_settings_over_reset flag (0/1)",
    "Get/set the IDE driver's keep-settings-over-reset flag"
)
.man_page(
    "[0|1]",
    r#"Get or set the legacy IDE driver's keep_settings_over_reset flag."#,
);
parses!(keep_settings_parses, "-k1 /dev/x", |f| f.keep_settings.set
    && f.keep_settings.value == 1);
pub const KEEP_FEATURES: OptionDef = set_only!(
    'K',
    "drive-keep-settings",
    0..=1,
    keep_features,
    " -K   Set drive keep_features_over_reset flag (0/1)",
    "Set the drive's keep-features-over-reset (SET FEATURES 0x66/0xCC)"
)
.man_page(
    "0|1",
    r#"Set the drive's keep\-features\-over\-reset flag (SET FEATURES 0x66/0xCC)."#,
);
parses!(keep_features_parses, "-K1 /dev/x", |f| f.keep_features
    == SetOnly {
        set: true,
        noisy: true,
        value: 1
    });
pub const DOORLOCK: OptionDef = set_only!(
    'L',
    "door-lock",
    0..=1,
    doorlock,
    " -L   Set drive doorlock (0/1) (removable harddisks only)",
    "Lock/unlock the door of a removable drive (DOOR LOCK/UNLOCK)"
)
.man_page(
    "0|1",
    r#"Lock (1) or unlock (0) the door of a removable\-media drive."#,
);
parses!(doorlock_parses, "-L1 /dev/x", |f| f.doorlock
    == SetOnly {
        set: true,
        noisy: true,
        value: 1
    });
pub const MULTCOUNT: OptionDef = OptionDef {
    guard: Guard::YesIKnow,
    ..get_set!(
        'm',
        "multmode-count",
        0..=64,
        multcount,
        " -m   Get/set multiple sector count",
        "Get/set the multiple-sector count (HDIO_SET_MULTCOUNT, SET MULTIPLE MODE)"
    )
}
.man_page("[N]", r#"Get or set the multiple\-sector count (0..64) for PIO multiple\-sector transfers. On libata the get comes from IDENTIFY word 59 and the set needs \-\-yes\-i\-know\-what\-i\-am\-doing."#);
parses!(multcount_parses, "-m16d1 /dev/x", |f| f.multcount.value
    == 16
    && f.dma.value == 1);
pub const ACOUSTIC: OptionDef = get_set!(
    'M',
    "acoustic-management",
    0..=255,
    acoustic,
    " -M   Get/set acoustic management (0-254, 128: quiet, 254: fast)",
    "Get/set Automatic Acoustic Management (SET FEATURES 0x42/0xC2)"
)
.man_page(
    "[N]",
    r#"Get or set Automatic Acoustic Management: 128 quiet ... 254 fast, 0 disables."#,
);
parses!(acoustic_parses, "-M128 /dev/x", |f| f.acoustic
    == GetSet {
        get: true,
        set: true,
        value: 128
    });
pub const NOWERR: OptionDef = get_set!(
    'n',
    "ignore-write-errors",
    0..=1,
    nowerr,
    " -n   Get/set ignore-write-errors flag (0/1)",
    "Get/set the IDE driver's ignore-write-errors flag"
)
.man_page(
    "[0|1]",
    r#"Get or set the legacy IDE driver's ignore\-write\-errors flag."#,
);
parses!(nowerr_parses, "-n1 /dev/x", |f| f.nowerr.set
    && f.nowerr.value == 1);
pub const MAX_SECTORS: OptionDef = OptionDef {
    short: Some(b'N'),
    long: None,
    role: Role::GetSet,
    value: Value::Number {
        prefix: Some(b'p'),
        min: 1,
        max: LBA_LIMIT,
        label: Label::Fixed("-N"),
        message: LBA_MSG,
        optional: true,
    },
    // Only when the drive would shrink (exec/guards.rs).
    guard: Guard::YesIKnow,
    clue: None,
    usage: Some(" -N   Get/set max visible number of sectors (HPA) (VERY DANGEROUS)"),
    summary: "Get/set the max visible sectors (HPA); p makes it permanent",
    example: &["-N"],
    origin: Origin::Hdparm,
    man: None,
    security_help: None,
    apply: Apply::Custom(Reader::MaxSectors),
}
.man_page("[[p]COUNT]", r#"Get or set the number of visible sectors (Host Protected Area / Accessible Max Address). A p prefix makes the setting permanent (it survives a power cycle). The set uses SET ACCESSIBLE MAX ADDRESS EXT where the drive has Accessible Max Address, else READ NATIVE MAX ADDRESS (EXT) immediately followed by SET MAX ADDRESS (EXT); the get is printed afterwards. Reducing the size below what IDENTIFY shows needs \-\-yes\-i\-know\-what\-i\-am\-doing. When IDENTIFY shows more sectors than the native maximum, the get adds the DCO real maximum as (N?)."#);
parses!(max_sectors_parses, "-N p0x10 /dev/x", |f| f.max_sectors
    == GetSet {
        get: true,
        set: true,
        value: 16
    }
    && f.max_sectors_permanent);
parses!(max_sectors_2_parses, "-N /dev/x", |f| f.max_sectors.get
    && !f.max_sectors.set);
parses!(max_sectors_3_parses, "-N010 /dev/x", |f| f
    .max_sectors
    .value
    == 8
    && !f.max_sectors_permanent);
pub const PIO_MODE: OptionDef = transfer_mode(
    b'p',
    " -p   Set PIO mode on IDE interface chipset (0,1,2,3,4,...)",
    "Set the chipset's PIO mode (HDIO_SET_PIO_MODE)",
    &["-p", "pio4"],
    field!(SetOnly<u32>, pio_mode),
)
.man_page("MODE", r#"Ask the legacy IDE driver to program the interface chipset for PIO MODE (a number or a name such as pio4)."#);
parses!(pio_mode_parses, "-p pio4 /dev/x", |f| f.pio_mode
    == SetOnly {
        set: true,
        noisy: true,
        value: 12
    });
parses!(pio_mode_2_parses, "-p /dev/x", |f| f.pio_mode.set
    && f.pio_mode.value == 0);
pub const PREFETCH: OptionDef = set_only!(
    'P',
    "prefetch",
    0..=255,
    prefetch,
    " -P   Set drive prefetch count",
    "Set the drive's prefetch count (SET FEATURES 0xAB)"
)
.man_page("N", r#"Set the drive's prefetch count."#);
parses!(prefetch_parses, "-P255 /dev/x", |f| f.prefetch.value == 255);
pub const QUIET: OptionDef = plain(
    Some(b'q'),
    None,
    Role::Action,
    Some(" -q   Change next setting quietly"),
    "Make the next option quiet, and hide the device header from here on",
    &["-q"],
    Apply::Custom(Reader::Quiet),
)
.man_page("", r#"Make the next option quiet: its messages are not printed. Once \-q is seen the device header line is not printed either."#);
parses!(quiet_parses, "-q -W0 -A /dev/x", |f| f.quiet
    && !f.write_cache.get
    && f.lookahead.get);
pub const QUEUE_DEPTH: OptionDef = get_set!(
    'Q',
    "queue-depth",
    0..=1024,
    queue_depth,
    " -Q   Get/set DMA queue_depth (if supported)",
    "Get/set the command queue depth (sysfs device/queue_depth)"
)
.man_page(
    "[N]",
    r#"Get or set the command queue depth through sysfs (device/queue_depth)."#,
);
parses!(queue_depth_parses, "-Q 1024 /dev/x", |f| f
    .queue_depth
    .value
    == 1024);
pub const READONLY: OptionDef = get_set!(
    'r',
    "read-only",
    0..=1,
    readonly,
    " -r   Get/set device readonly flag (DANGEROUS to set)",
    "Get/set the block device's read-only flag (BLKROGET/BLKROSET)"
)
.man_page(
    "[0|1]",
    r#"Get or set the read\-only flag of the block device (BLKROGET/BLKROSET)."#,
);
parses!(readonly_parses, "-r1 /dev/x", |f| f.readonly
    == GetSet {
        get: true,
        set: true,
        value: 1
    });
pub const WRITE_READ_VERIFY: OptionDef = get_set!(
    'R',
    "write-read-verify",
    0..=3,
    write_read_verify,
    " -R   Get/set device write-read-verify flag",
    "Get/set the drive's write-read-verify (SET FEATURES 0x0B/0x8B)"
)
.man_page(
    "[0..3]",
    r#"Get or set the drive's Write\-Read\-Verify feature."#,
);
parses!(write_read_verify_parses, "-R3 /dev/x", |f| f
    .write_read_verify
    .value
    == 3);
pub const POWERUP_IN_STANDBY: OptionDef = OptionDef {
    guard: Guard::YesIKnow,
    ..set_only!(
        's',
        "powerup-in-standby",
        0..=1,
        powerup_in_standby,
        " -s   Set power-up in standby flag (0/1) (DANGEROUS)",
        "Set the drive's power-up in standby (SET FEATURES 0x06/0x86); 1 needs the guard"
    )
}
.man_page("0|1", r#"Enable or disable power\-up in standby (enabling needs \-\-yes\-i\-know\-what\-i\-am\-doing)."#);
parses!(powerup_in_standby_parses, "-s1 /dev/x", |f| f
    .powerup_in_standby
    == SetOnly {
        set: true,
        noisy: true,
        value: 1
    });
pub const STANDBY: OptionDef = set_only!(
    'S',
    "standby-interval",
    0..=255,
    standby,
    " -S   Set standby (spindown) timeout",
    "Set the standby (spindown) timer (IDLE with a timer code)"
)
.man_page("N", r#"Set the standby (spin\-down) timeout: 0 off, 1..240 multiples of 5 seconds, 241..251 multiples of 30 minutes, 252 21 minutes, 253 vendor\-specific, 255 21 minutes 15 seconds. On NVMe: APST (see NVME)."#);
parses!(standby_parses, "-S 12 /dev/x", |f| f.standby
    == SetOnly {
        set: true,
        noisy: true,
        value: 12
    });
pub const TIME_DEVICE: OptionDef = plain(
    Some(b't'),
    None,
    Role::Action,
    Some(" -t   Perform device read timings"),
    "Time buffered reads from the device",
    &["-t"],
    Apply::Flag(field!(bool, time_device)),
)
.man_page("", r#"Time sequential reads from the device through the page cache (or with O_DIRECT when \-\-direct is given): 2 MiB reads for about 3 seconds, reported in MB/sec (MB = 2^20 bytes)."#);
parses!(time_device_parses, "-t /dev/x", |f| f.time_device
    && !f.time_cache);
pub const TIME_CACHE: OptionDef = plain(
    Some(b'T'),
    None,
    Role::Action,
    Some(" -T   Perform cache read timings"),
    "Time reads from the kernel's buffer cache",
    &["-T"],
    Apply::Flag(field!(bool, time_cache)),
)
.man_page("", r#"Time reads of the same 2 MiB from the kernel's cache for about 2 seconds: a measure of memory, processor and cache throughput, not of the drive."#);
parses!(time_cache_parses, "-T /dev/x", |f| f.time_cache);
pub const UNMASK_IRQ: OptionDef = get_set!(
    'u',
    "unmask-irq",
    0..=1,
    unmask_irq,
    " -u   Get/set unmaskirq flag (0/1)",
    "Get/set the IDE driver's unmask-irq flag"
)
.man_page(
    "[0|1]",
    r#"Get or set the legacy IDE driver's unmask\-irq flag."#,
);
parses!(unmask_irq_parses, "-u1 /dev/x", |f| f.unmask_irq.value == 1);
pub const OBSOLETE_U: OptionDef = plain(
    Some(b'U'),
    None,
    Role::Obsolete,
    Some(" -U   Obsolete"),
    "Obsolete: rejected",
    &[],
    Apply::Rejected,
);
rejects!(
    obsolete_u_is_rejected,
    "-U /dev/x",
    ParseError::Usage { clue: 10 }
);
pub const DEFAULTS: OptionDef = plain(
    Some(b'v'),
    None,
    Role::Action,
    Some(" -v   Use defaults; same as -acdgkmur for IDE drives"),
    "Print the default report",
    &["-v"],
    Apply::Flag(field!(bool, defaults)),
)
.man_page("", r#"Show the default report: multcount, IO_support, unmaskirq, using_dma, keepsettings, readonly, readahead, geometry (each where the driver supports it). This is also what a device alone on the command line gets."#);
parses!(defaults_parses, "-v /dev/x", |f| f.defaults);
pub const VERSION: OptionDef = plain(
    Some(b'V'),
    None,
    Role::Immediate,
    Some(" -V   Display program version and exit immediately"),
    "Print the version",
    &["-V"],
    Apply::Custom(Reader::Version),
)
.man_page(
    "",
    concat!(
        r#"Show the version: \fBhdparm v9.65.0 (hdparm\-rs "#,
        env!("CARGO_PKG_VERSION"),
        r#")\fR, the hdparm release this program
reproduces in the form scripts check (they read it as 9.65), then its own name and version."#
    ),
);
invokes!(version_invokes, "-V", Invocation::Version);
pub const RESET: OptionDef = plain(
    Some(b'w'),
    None,
    Role::PlainSet,
    Some(" -w   Perform device reset (DANGEROUS)"),
    "Reset the device (HDIO_DRIVE_RESET)",
    &["-w"],
    Apply::PlainSet(field!(Action, reset)),
)
.man_page(
    "",
    r#"Reset the device through the legacy IDE driver (dangerous)."#,
);
parses!(reset_parses, "-w /dev/x", |f| f.reset.set);
pub const WRITE_CACHE: OptionDef = get_set!(
    'W',
    "write-cache",
    0..=1,
    write_cache,
    " -W   Get/set drive write-caching flag (0/1)",
    "Get/set the drive's write cache (SET FEATURES 0x02/0x82)"
)
.man_page(
    "[0|1]",
    r#"Get or set the drive's write cache. Disabling it flushes the cache before and after."#,
);
parses!(
    write_cache_repeated_bare_only_adds_the_get,
    "-W1 -W /dev/x",
    |f| {
        f.write_cache
            == GetSet {
                get: true,
                set: true,
                value: 1,
            }
    }
);
parses!(write_cache_parses, "-W0 /dev/x", |f| f.write_cache
    == GetSet {
        get: true,
        set: true,
        value: 0
    });
pub const OBSOLETE_X: OptionDef = plain(
    Some(b'x'),
    None,
    Role::Obsolete,
    Some(" -x   Obsolete"),
    "Obsolete: rejected",
    &[],
    Apply::Rejected,
);
rejects!(
    obsolete_x_is_rejected,
    "-x /dev/x",
    ParseError::Usage { clue: 10 }
);
pub const XFER_MODE: OptionDef = transfer_mode(
    b'X',
    " -X   Set IDE xfer mode (DANGEROUS)",
    "Set the drive's transfer mode (SET FEATURES 0x03)",
    &["-X", "udma5"],
    field!(SetOnly<u32>, xfer_mode),
)
.man_page("MODE", r#"Set the drive's transfer mode with SET FEATURES: a number or a name such as udma5, mdma2, pio4 (hdparm's N+64 arithmetic: \-X69 is UltraDMA mode 5). libata refuses this through pass\-through; the tool says so."#);
parses!(xfer_mode_parses, "-X udma5 /dev/x", |f| f.xfer_mode
    == SetOnly {
        set: true,
        noisy: true,
        value: 69
    });
parses!(xfer_mode_2_parses, "-X66 /dev/x", |f| f.xfer_mode.value
    == 66);
pub const STANDBY_NOW: OptionDef = plain(
    Some(b'y'),
    None,
    Role::PlainSet,
    Some(" -y   Put drive in standby mode"),
    "Spin the drive down now (STANDBY IMMEDIATE)",
    &["-y"],
    Apply::PlainSet(field!(Action, standby_now)),
)
.man_page("", r#"Put the drive in standby now (STANDBY IMMEDIATE)."#);
parses!(standby_now_parses, "-y /dev/x", |f| f.standby_now.set);
pub const SLEEP_NOW: OptionDef = plain(
    Some(b'Y'),
    None,
    Role::PlainSet,
    Some(" -Y   Put drive to sleep"),
    "Put the drive to sleep now (SLEEP)",
    &["-Y"],
    Apply::PlainSet(field!(Action, sleep_now)),
)
.man_page(
    "",
    r#"Put the drive to sleep now (SLEEP); only a reset wakes it."#,
);
parses!(sleep_now_parses, "-Y /dev/x", |f| f.sleep_now.set);
pub const REREAD_PARTITIONS: OptionDef = plain(
    Some(b'z'),
    None,
    Role::PlainSet,
    Some(" -z   Re-read partition table"),
    "Make the kernel re-read the partition table (BLKRRPART)",
    &["-z"],
    Apply::PlainSet(field!(Action, reread_partitions)),
)
.man_page(
    "",
    r#"Ask the kernel to re\-read the partition table (BLKRRPART)."#,
);
parses!(reread_partitions_parses, "-z /dev/x", |f| f
    .reread_partitions
    .set);
pub const SEAGATE_POWERSAVE: OptionDef = plain(
    Some(b'Z'),
    None,
    Role::PlainSet,
    Some(" -Z   Disable Seagate auto-powersaving mode"),
    "Disable the auto power saving of old Seagate drives (vendor command)",
    &["-Z"],
    Apply::PlainSet(field!(Action, seagate_powersave)),
)
.man_page(
    "",
    r#"Disable the automatic power saving of some old Seagate drives."#,
);
parses!(seagate_powersave_parses, "-Z /dev/x", |f| f
    .seagate_powersave
    .set);

// ---------------------------------------------------------------------------------------------
// Long options of hdparm 9.65, in the order of its usage text.

/// A long option that switches a flag on.
const fn long_flag(
    name: &'static str,
    role: Role,
    usage: Option<&'static str>,
    summary: &'static str,
    example: &'static [&'static str],
    apply: Apply,
) -> OptionDef {
    plain(None, Some(name), role, usage, summary, example, apply)
}

/// A long option with a 64-bit value in C notation (required, no prefix).
// A definition's fields, in definition order: a struct literal would say no more.
#[allow(clippy::too_many_arguments)]
const fn long_number(
    name: &'static str,
    role: Role,
    (min, max): (u64, u64),
    label: Label,
    message: &'static str,
    usage: Option<&'static str>,
    summary: &'static str,
    example: &'static [&'static str],
    apply: Apply,
) -> OptionDef {
    OptionDef {
        value: Value::Number {
            prefix: None,
            min,
            max,
            label,
            message,
            optional: false,
        },
        ..plain(None, Some(name), role, usage, summary, example, apply)
    }
}

pub const DCO_FREEZE: OptionDef = long_flag(
    "dco-freeze",
    Role::Action,
    Some(" --dco-freeze      Freeze/lock current device configuration until next power cycle"),
    "Freeze the Device Configuration Overlay until power-off (DCO FREEZE LOCK)",
    &["--dco-freeze"],
    Apply::Flag(field!(bool, dco_freeze)),
)
.man_page(
    "",
    r#"Freeze the Device Configuration Overlay until the next power cycle."#,
);
parses!(dco_freeze_parses, "--dco-freeze /dev/x", |f| f.dco_freeze);
pub const DCO_IDENTIFY: OptionDef = long_flag(
    "dco-identify",
    Role::Action,
    Some(" --dco-identify    Read/dump device configuration identify data"),
    "Decode the Device Configuration Overlay (DCO IDENTIFY)",
    &["--dco-identify"],
    Apply::Flag(field!(bool, dco_identify)),
)
.man_page("", r#"Read and show the Device Configuration Overlay identify data: whether its checksum verifies, then the features and the real maximum that DCO can restrict (with \-\-json, a \fBdco_identify\fR object)."#);
parses!(dco_identify_parses, "--DCO-IDENTIFY /dev/x", |f| f
    .dco_identify);
pub const DCO_RESTORE: OptionDef = OptionDef {
    guard: Guard::YesIKnow,
    ..long_flag(
        "dco-restore",
        Role::Standalone,
        Some(" --dco-restore     Reset device configuration back to factory defaults"),
        "Reset the Device Configuration Overlay to factory defaults (DCO RESTORE)",
        &["--yes-i-know-what-i-am-doing", "--dco-restore"],
        Apply::Flag(field!(bool, dco_restore)),
    )
}
.man_page("", r#"Reset the Device Configuration Overlay to the factory settings (needs \-\-yes\-i\-know\-what\-i\-am\-doing)."#);
parses!(dco_restore_parses, "--dco-restore /dev/x", |f| f
    .dco_restore);
pub const DCO_SETMAX: OptionDef = OptionDef {
    // Only when the drive would shrink (exec/guards.rs).
    guard: Guard::YesIKnow,
    ..long_number(
        "dco-setmax",
        Role::Standalone,
        (1, LBA_LIMIT),
        Label::Fixed("--dco-setmax"),
        LBA_MSG,
        Some(" --dco-setmax      Use DCO to set maximum addressable sectors"),
        "Set the maximum addressable sectors through DCO SET",
        &["--dco-setmax", "1000000"],
        Apply::Custom(Reader::Number(field!(Option<u64>, dco_setmax))),
    )
}
.man_page("N", r#"Set the maximum addressable sectors through DCO: the drive's DCO identify data, checked against its checksum (DCO Checksum FAILED! otherwise, and nothing is sent), is sent back with DEVICE CONFIGURATION SET with the new maximum and checksum (needs \-\-yes\-i\-know\-what\-i\-am\-doing when it shrinks the drive)."#);
parses!(dco_setmax_parses, "--dco-setmax 0x1000 /dev/x", |f| f
    .dco_setmax
    == Some(4096));
pub const DIRECT: OptionDef = long_flag(
    "direct",
    Role::Modifier,
    Some(" --direct          Use O_DIRECT to bypass page cache for timings"),
    "Time reads with O_DIRECT, bypassing the page cache",
    &["--direct", "-t"],
    Apply::Flag(field!(bool, direct)),
)
.man_page(
    "",
    r#"Open the device with O_DIRECT for \-t and \-T, bypassing the page cache."#,
);
parses!(direct_parses, "--direct -t /dev/x", |f| f.direct
    && f.time_device);
pub const DRQ_HSM_ERROR: OptionDef = long_flag(
    "drq-hsm-error",
    Role::Action,
    Some(" --drq-hsm-error   Crash system with a \"stuck DRQ\" error (VERY DANGEROUS)"),
    "Provoke a stuck-DRQ error in the kernel (a test of error handling)",
    &["--drq-hsm-error"],
    Apply::Flag(field!(bool, drq_hsm_error)),
)
.man_page("", r#"Provoke a stuck\-DRQ host state machine error (a kernel debugging aid; very dangerous): after a buffer\-cache flush and one second, the IDENTIFY opcode is sent as a command without data."#);
parses!(drq_hsm_error_parses, "--drq-hsm-error /dev/x", |f| f
    .drq_hsm_error);
pub const FALLOCATE: OptionDef = OptionDef {
    value: Value::KibThenFilename,
    clue: Some(4),
    ..long_flag(
        "fallocate",
        Role::Immediate,
        Some(" --fallocate       Create a file without writing data to disk"),
        "Create a file of N KiB without writing its data (fallocate)",
        &[],
        Apply::Custom(Reader::Fallocate),
    )
}
.man_page("KiB FILE", r#"Create FILE (it must not exist; mode 0600) with KiB kibibytes allocated and no data written (fallocate(2)), then sync it. No device argument."#);
invokes!(
    fallocate_invokes,
    "--fallocate 0x10 /mnt/file",
    Invocation::Fallocate {
        kib: 16,
        path: "/mnt/file".into(),
        dry_run: false,
    }
);
invokes!(
    dry_run_fallocate_is_a_plan,
    "--dry-run --fallocate 1 /mnt/file",
    Invocation::Fallocate {
        kib: 1,
        path: "/mnt/file".into(),
        dry_run: true,
    }
);
pub const FIBMAP: OptionDef = OptionDef {
    value: Value::Filename,
    clue: Some(5),
    ..long_flag(
        "fibmap",
        Role::Immediate,
        Some(" --fibmap          Show device extents (and fragmentation) for a file"),
        "Print where a file's blocks lie on the device",
        &[],
        Apply::Custom(Reader::Fibmap),
    )
}
.man_page("FILE", r#"Show the extents of FILE as absolute sector ranges of the disk: the file system's start (from sysfs or the geometry) plus its blocks, from FIEMAP, else FIBMAP. Holes and extents of unknown place show dashes. No device argument. Unlike hdparm 9.65, it finds the start of a partition whose major number differs from its disk's (loop and other extended partitions)."#);
invokes!(
    fibmap_invokes,
    "--fibmap /mnt/file",
    Invocation::Fibmap {
        path: "/mnt/file".into()
    }
);

/// The man page entry of each `--fwdownload-*` variant.
const FWDOWNLOAD_VARIANT_MAN: &str = r#"See \-\-fwdownload (needs \-\-yes\-i\-know\-what\-i\-am\-doing and \-\-please\-destroy\-my\-drive)."#;

/// One `--fwdownload*` spelling.
const fn fwdownload(name: &'static str, usage: &'static str, mode: FwMode) -> OptionDef {
    let apply = Apply::Custom(Reader::Fwdownload(mode));
    OptionDef {
        value: Value::Filename,
        guard: Guard::Both,
        clue: Some(15),
        ..long_flag(
            name,
            Role::Action,
            Some(usage),
            "Download firmware to the drive (DOWNLOAD MICROCODE)",
            &[],
            apply,
        )
    }
    // The variants' entries point to --fwdownload's, which overrides this.
    .man_page("FILE", FWDOWNLOAD_VARIANT_MAN)
}

pub const FWDOWNLOAD: OptionDef = fwdownload(
    "fwdownload",
    " --fwdownload            Download firmware file to drive (EXTREMELY DANGEROUS)",
    FwMode::Default,
)
.man_page("FILE", r#"Download firmware FILE to the drive (needs \-\-yes\-i\-know\-what\-i\-am\-doing and \-\-please\-destroy\-my\-drive). The variants \-\-fwdownload\-mode3, \-\-fwdownload\-mode3\-max, \-\-fwdownload\-mode7, \-\-fwdownload\-modee and \-\-fwdownload\-modee\-max choose the DOWNLOAD MICROCODE mode and segment size. FILE must be a regular file, a non-zero multiple of 512 bytes and at most 65535 blocks. The default is mode 3 (segments of the drive's minimum size, IDENTIFY word 234) when the drive supports it (words 119/120), else mode 7 (the whole file at once); the \-max variants use the maximum (word 235); mode E saves the firmware for later activation. One DOWNLOAD MICROCODE command per segment (120 s each), a dot printed after each; the drive's answer between segments is checked. Refused on a partition."#);
parses!(fwdownload_parses, "--fwdownload fw.bin /dev/x", |f| f
    .fwdownload
    == Some((FwMode::Default, "fw.bin".into())));
pub const FWDOWNLOAD_MODE3: OptionDef = fwdownload(
    "fwdownload-mode3",
    " --fwdownload-mode3      Download firmware using min-size segments (EXTREMELY DANGEROUS)",
    FwMode::Mode3,
);
pub const FWDOWNLOAD_MODE3_MAX: OptionDef = fwdownload(
    "fwdownload-mode3-max",
    " --fwdownload-mode3-max  Download firmware using max-size segments (EXTREMELY DANGEROUS)",
    FwMode::Mode3Max,
);
pub const FWDOWNLOAD_MODE7: OptionDef = fwdownload(
    "fwdownload-mode7",
    " --fwdownload-mode7      Download firmware using a single segment (EXTREMELY DANGEROUS)",
    FwMode::Mode7,
);
pub const FWDOWNLOAD_MODEE: OptionDef = fwdownload(
    "fwdownload-modee",
    " --fwdownload-modee      Download firmware using mode E (min-size segments) (EXTREMELY DANGEROUS)",
    FwMode::ModeE,
);
pub const FWDOWNLOAD_MODEE_MAX: OptionDef = fwdownload(
    "fwdownload-modee-max",
    " --fwdownload-modee-max  Download firmware using mode E (max-size segments) (EXTREMELY DANGEROUS)",
    FwMode::ModeEMax,
);
/// The variants' test: each spelling picks its mode (one table for the five).
#[cfg(test)]
#[test]
fn fwdownload_variants_parse() {
    for (spelling, mode) in [
        ("--fwdownload-mode3", FwMode::Mode3),
        ("--fwdownload-mode3-max", FwMode::Mode3Max),
        ("--fwdownload-mode7", FwMode::Mode7),
        ("--fwdownload-modee", FwMode::ModeE),
        ("--fwdownload-modee-max", FwMode::ModeEMax),
    ] {
        let words = format!("{spelling} fw.bin /dev/x");
        let f = tests::flags_of(&words);
        assert_eq!(f.fwdownload, Some((mode, "fw.bin".into())), "{words}");
    }
}
pub const IDLE_IMMEDIATE: OptionDef = long_flag(
    "idle-immediate",
    Role::PlainSet,
    Some(" --idle-immediate  Idle drive immediately"),
    "Put the drive in idle now (IDLE IMMEDIATE)",
    &["--idle-immediate"],
    Apply::PlainSet(field!(Action, idle_immediate)),
)
.man_page("", r#"Put the drive in idle now."#);
parses!(idle_immediate_parses, "-q --idle-immediate /dev/x", |f| f
    .idle_immediate
    == Action {
        set: true,
        noisy: false
    });
pub const IDLE_UNLOAD: OptionDef = long_flag(
    "idle-unload",
    Role::PlainSet,
    Some(" --idle-unload     Idle immediately and unload heads"),
    "Idle now and unload the heads (IDLE IMMEDIATE with UNLOAD)",
    &["--idle-unload"],
    Apply::PlainSet(field!(Action, idle_unload)),
)
.man_page("", r#"Put the drive in idle now and unload its heads (IDLE IMMEDIATE with the UNLOAD feature). Refused on a partition."#);
parses!(idle_unload_parses, "--idle-unload /dev/x", |f| f
    .idle_unload
    == Action {
        set: true,
        noisy: true
    });
pub const IRAW: OptionDef = OptionDef {
    value: Value::Filename,
    ..long_flag(
        "Iraw",
        Role::Action,
        Some(" --Iraw filename   Write raw binary identify data to the specfied file"),
        "Write the raw IDENTIFY data to a file",
        &[],
        Apply::Custom(Reader::IdentifyRaw),
    )
}
.man_page(
    "FILE",
    r#"Write the raw 512 bytes of IDENTIFY data to FILE."#,
);
parses!(iraw_parses, "--Iraw id.bin /dev/x", |f| f.identify_raw
    == Some("id.bin".into())
    && !f.identify);
pub const ISTDIN: OptionDef = OptionDef {
    clue: Some(2),
    ..long_flag(
        "Istdin",
        Role::Standalone,
        Some(" --Istdin          Read identify data from stdin as ASCII hex"),
        "Decode IDENTIFY data read from stdin as hex words",
        &[],
        Apply::Custom(Reader::Istdin),
    )
}
.man_page("", r#"Decode IDENTIFY data given as hexadecimal words on standard input (the output of \-\-Istdout), without a device."#);
invokes!(
    istdin_invokes,
    "--Istdin",
    Invocation::IdentifyStdin { json: false }
);
pub const ISTDOUT: OptionDef = long_flag(
    "Istdout",
    Role::Action,
    Some(" --Istdout         Write identify data to stdout as ASCII hex"),
    "Print the IDENTIFY data as hex words",
    &["--Istdout"],
    Apply::Custom(Reader::IdentifyHex),
)
.man_page(
    "",
    r#"Print the IDENTIFY data as hexadecimal words, 8 per line."#,
);
parses!(istdout_parses, "-I --Istdout /dev/x", |f| f.identify_stdout
    && !f.identify);
pub const MAKE_BAD_SECTOR: OptionDef = OptionDef {
    value: Value::Number {
        prefix: Some(b'f'),
        min: 0,
        max: LBA_LIMIT,
        label: Label::Typed,
        message: LBA_MSG,
        optional: false,
    },
    guard: Guard::YesIKnow,
    ..long_flag(
        "make-bad-sector",
        Role::Action,
        Some(" --make-bad-sector Deliberately corrupt a sector directly on the media (VERY DANGEROUS)"),
        "Make a sector unreadable (WRITE UNCORRECTABLE EXT or WRITE LONG); f flags it",
        &[],
        Apply::Custom(Reader::MakeBadSector),
    )
}
.man_page("[f]LBA", r#"Deliberately corrupt sector LBA (needs \-\-yes\-i\-know\-what\-i\-am\-doing): WRITE UNCORRECTABLE EXT (pseudo, or flagged with f) where the drive claims it, f is given or LBA needs 48 bits, else WRITE LONG. The raw device only (not a partition)."#);
parses!(
    make_bad_sector_parses,
    "--make-bad-sector f100 /dev/x",
    |f| f.make_bad_sector == Some((100, true))
);
parses!(
    make_bad_sector_2_parses,
    "--make-bad-sector 7 /dev/x",
    |f| f.make_bad_sector == Some((7, false))
);
pub const OFFSET: OptionDef = long_number(
    "offset",
    Role::Action,
    (0, u64::MAX),
    Label::Typed,
    "GB offset for -t flag",
    Some(" --offset          use with -t, to begin timings at given offset (in GiB) from start of drive"),
    "Start -t at this offset, in GiB",
    &["--offset", "0", "-t"],
    Apply::Custom(Reader::Number(field!(Option<u64>, offset_gib))),
)
.man_page("GiB", r#"Start \-t that many GiB into the device."#);
parses!(offset_parses, "--OFFSET 2 -t /dev/x", |f| f.offset_gib
    == Some(2));
pub const PLEASE_DESTROY: OptionDef = long_flag(
    "please-destroy-my-drive",
    Role::Modifier,
    None,
    "The guard flag of the options that can destroy a drive",
    &["--please-destroy-my-drive", "-C"],
    Apply::Flag(field!(bool, please_destroy)),
)
.man_page(
    "",
    r#"Guard flag for the operations that can destroy a drive."#,
);
parses!(
    please_destroy_parses,
    "--please-destroy-my-drive -C /dev/x",
    |f| f.please_destroy
);
pub const PREFER_ATA12: OptionDef = long_flag(
    "prefer-ata12",
    Role::Modifier,
    Some(" --prefer-ata12    Use 12-byte (instead of 16-byte) SAT commands when possible"),
    "Send 12-byte ATA PASS-THROUGH where a command fits",
    &["--prefer-ata12", "-C"],
    Apply::Flag(field!(bool, prefer_ata12)),
)
.man_page(
    "",
    r#"Use ATA PASS\-THROUGH(12) instead of (16) where the command allows it."#,
);
parses!(prefer_ata12_parses, "--prefer-ata12 -C /dev/x", |f| f
    .prefer_ata12);
pub const READ_SECTOR: OptionDef = long_number(
    "read-sector",
    Role::Action,
    (0, LBA_LIMIT),
    Label::Typed,
    LBA_MSG,
    Some(" --read-sector     Read and dump (in hex) a sector directly from the media"),
    "Read one sector from the media and print it in hex (READ SECTORS EXT)",
    &["--read-sector", "0"],
    Apply::Custom(Reader::Number(field!(Option<u64>, read_sector))),
)
.man_page(
    "LBA",
    r#"Read one sector straight from the media and dump it in hexadecimal."#,
);
parses!(read_sector_parses, "--read-sector 0x10 /dev/x", |f| f
    .read_sector
    == Some(16));

/// `--write-sector` and its alias `--repair-sector`.
const fn write_sector(name: &'static str, usage: &'static str) -> OptionDef {
    OptionDef {
        guard: Guard::YesIKnow,
        clue: Some(14),
        ..long_number(
            name,
            Role::Action,
            (0, LBA_LIMIT),
            Label::Typed,
            LBA_MSG,
            Some(usage),
            "Overwrite one sector with zeros (WRITE SECTORS EXT)",
            &[],
            Apply::Custom(Reader::Number(field!(Option<u64>, write_sector))),
        )
    }
}

pub const REPAIR_SECTOR: OptionDef = write_sector(
    "repair-sector",
    " --repair-sector   Alias for the --write-sector option (VERY DANGEROUS)",
)
.man_page(
    "LBA",
    r#"Same as \-\-write\-sector (needs \-\-yes\-i\-know\-what\-i\-am\-doing)."#,
);
parses!(repair_sector_parses, "--repair-sector 9 /dev/x", |f| f
    .write_sector
    == Some(9));

/// A `--sanitize-*` command without a value.
const fn sanitize(
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    guard: Guard,
    apply: Apply,
) -> OptionDef {
    OptionDef {
        guard,
        ..long_flag(name, Role::Standalone, Some(usage), summary, &[], apply)
    }
}

pub const SANITIZE_ANTIFREEZE_LOCK: OptionDef = sanitize(
    "sanitize-antifreeze-lock",
    " --sanitize-antifreeze-lock  Block sanitize-freeze-lock command until next power cycle",
    "Block SANITIZE FREEZE LOCK until power-off (SANITIZE ANTIFREEZE LOCK)",
    Guard::None,
    Apply::Custom(Reader::Sanitize(SanitizeCommand::AntifreezeLock)),
)
.man_page(
    "",
    r#"Send SANITIZE ANTIFREEZE LOCK: block SANITIZE FREEZE LOCK until the next power cycle.
Prints \fBIssuing SANITIZE_ANTIFREEZE_LOCK command\fR."#,
);
parses!(
    sanitize_antifreeze_lock_parses,
    "--sanitize-antifreeze-lock /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::AntifreezeLock)
);
pub const SANITIZE_BLOCK_ERASE: OptionDef = sanitize(
    "sanitize-block-erase",
    " --sanitize-block-erase      Start block erase operation",
    "Erase every block of the media (SANITIZE BLOCK ERASE)",
    Guard::YesIKnow,
    Apply::Custom(Reader::Sanitize(SanitizeCommand::BlockErase)),
)
.man_page("", r#"Start a SANITIZE BLOCK ERASE (needs \-\-yes\-i\-know\-what\-i\-am\-doing; destroys all data).
The drive erases in the background; \-\-sanitize\-status shows its progress.
Every sanitize option reads IDENTIFY first and needs word 59 bit 12 (\fBSANITIZE feature set is not supported\fR otherwise); on a failure the drive's reason follows \fBSANITIZE failed:\fR, worded as hdparm words it."#);
parses!(
    sanitize_block_erase_parses,
    "--sanitize-block-erase /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::BlockErase)
);
pub const SANITIZE_CRYPTO_SCRAMBLE: OptionDef = sanitize(
    "sanitize-crypto-scramble",
    " --sanitize-crypto-scramble  Change the internal encryption keys that used for used data",
    "Change the media encryption keys (SANITIZE CRYPTO SCRAMBLE)",
    Guard::YesIKnow,
    Apply::Custom(Reader::Sanitize(SanitizeCommand::CryptoScramble)),
)
.man_page("", r#"Start a SANITIZE CRYPTO SCRAMBLE: the drive changes its media encryption keys (needs \-\-yes\-i\-know\-what\-i\-am\-doing; destroys all data)."#);
parses!(
    sanitize_crypto_scramble_parses,
    "--sanitize-crypto-scramble /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::CryptoScramble)
);
pub const SANITIZE_FREEZE_LOCK: OptionDef = sanitize(
    "sanitize-freeze-lock",
    " --sanitize-freeze-lock      Lock drive's sanitize features until next power cycle",
    "Lock the sanitize commands until power-off (SANITIZE FREEZE LOCK)",
    Guard::None,
    Apply::Custom(Reader::Sanitize(SanitizeCommand::FreezeLock)),
)
.man_page(
    "",
    r#"Send SANITIZE FREEZE LOCK: the sanitize commands are refused until the next power cycle."#,
);
parses!(
    sanitize_freeze_lock_parses,
    "--sanitize-freeze-lock /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::FreezeLock)
);
pub const SANITIZE_OVERWRITE: OptionDef = OptionDef {
    value: Value::Pattern,
    ..sanitize(
        "sanitize-overwrite",
        " --sanitize-overwrite  PATTERN  Overwrite the internal media with constant PATTERN",
        "Overwrite the media with a 32-bit pattern (SANITIZE OVERWRITE)",
        Guard::YesIKnow,
        Apply::Custom(Reader::SanitizeOverwrite),
    )
}
.man_page("hex:PATTERN", r#"Start a SANITIZE OVERWRITE with a 32\-bit PATTERN, given as \fBhex:\fR and 8 hex digits (needs \-\-yes\-i\-know\-what\-i\-am\-doing; destroys all data)."#);
parses!(
    sanitize_overwrite_parses,
    "--sanitize-overwrite hex:0000abcd /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::Overwrite { pattern: 0xabcd })
);
pub const SANITIZE_OVERWRITE_PASSES: OptionDef = long_number(
    "sanitize-overwrite-passes",
    Role::Modifier,
    (0, 7),
    Label::Typed,
    "Number of passes must be in range 0..7",
    Some(" --sanitize-overwrite-passes COUNT  Number of overwrite passes from 0 to 7, default 0 means 16 passes"),
    "The number of passes of --sanitize-overwrite (0 means 16)",
    &["--sanitize-overwrite-passes", "1", "-C"],
    Apply::Custom(Reader::SanitizeOverwritePasses),
)
.man_page("N", r#"Number of overwrite passes of \-\-sanitize\-overwrite, 0..7 (0 means 16); give it before \-\-sanitize\-overwrite."#);
parses!(
    sanitize_overwrite_passes_parses,
    "--sanitize-overwrite-passes 3 --sanitize-status /dev/x",
    |f| f.sanitize_passes == 3
);
pub const SANITIZE_STATUS: OptionDef = sanitize(
    "sanitize-status",
    " --sanitize-status           Show sanitize status information",
    "Print the sanitize state and progress (SANITIZE STATUS)",
    Guard::None,
    Apply::Custom(Reader::SanitizeStatus),
)
.man_page("", r#"Show the sanitize state (SD0 idle, SD1 frozen, SD2 in progress with its progress), whether the last sanitize completed without error, and the antifreeze bit.
Followed by \-\-wait (ours), it asks again every second until the operation ends, showing the percentage done and the time left on stderr when that is a terminal, and prints the final status."#);
parses!(
    sanitize_status_takes_a_wait_after_it,
    "--sanitize-status --wait /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::Status) && f.sanitize_wait
);
parses!(
    sanitize_status_parses,
    "--verbose --sanitize-status /dev/x",
    |f| f.sanitize == Some(SanitizeCommand::Status) && f.verbose
);
pub const SECURITY_HELP: OptionDef = long_flag(
    "security-help",
    Role::Standalone,
    Some(" --security-help             Display help for ATA security commands"),
    "Print the help of the security options",
    &[],
    Apply::Custom(Reader::SecurityHelp),
)
.man_page("", r#"Show the help on the security options."#);
invokes!(
    security_help_invokes,
    "--security-help",
    Invocation::SecurityHelp
);
pub const SET_SECTOR_SIZE: OptionDef = OptionDef {
    guard: Guard::PleaseDestroy,
    clue: Some(16),
    ..long_number(
        "set-sector-size",
        Role::Action,
        (0x200, 0x1080),
        Label::Fixed("--set-sector-size"),
        "sector size out of range",
        Some(" --set-sector-size           Change logical sector size of drive"),
        "Change the drive's logical sector size (SET SECTOR CONFIGURATION EXT)",
        &[],
        Apply::Custom(Reader::Number(field!(Option<u64>, set_sector_size))),
    )
}
.man_page("N", r#"Change the logical sector size of a drive that supports it to one of the sizes of its Sector Configuration log (needs \-\-please\-destroy\-my\-drive; must be the only option). A size the log does not list is refused (exit 25)."#);
parses!(
    set_sector_size_parses,
    "--set-sector-size 4096 /dev/x",
    |f| f.set_sector_size == Some(4096)
);
pub const TRIM_SECTOR_RANGES: OptionDef = OptionDef {
    value: Value::TrimRanges,
    guard: Guard::PleaseDestroy,
    clue: Some(13),
    ..long_flag(
        "trim-sector-ranges",
        Role::Action,
        Some(" --trim-sector-ranges        Tell SSD firmware to discard unneeded data sectors: lba:count .."),
        "Tell the drive that these sectors hold no data (DATA SET MANAGEMENT TRIM)",
        &[],
        Apply::Custom(Reader::TrimRanges),
    )
}
.man_page("LBA:COUNT ...", r#"TRIM the given sector ranges (COUNT 1..65535) with one DATA SET MANAGEMENT command (needs \-\-please\-destroy\-my\-drive; must be the only option; the raw device only)."#);
parses!(
    trim_sector_ranges_parses,
    "--trim-sector-ranges 1:2 10:0x10 /dev/x",
    |f| f.trim_ranges == Some(vec![(1, 2), (10, 16)])
);
pub const TRIM_SECTOR_RANGES_STDIN: OptionDef = OptionDef {
    guard: Guard::PleaseDestroy,
    clue: Some(12),
    ..long_flag(
        "trim-sector-ranges-stdin",
        Role::Action,
        Some(" --trim-sector-ranges-stdin  Same as above, but reads lba:count pairs from stdin"),
        "The same, with the lba:count pairs read from stdin",
        &[],
        Apply::Flag(field!(bool, trim_ranges_stdin)),
    )
}
.man_page("", r#"TRIM the LBA:COUNT pairs read from standard input, in batches as large as the drive (IDENTIFY word 105) and the queue (max_sectors_kb) take (needs \-\-please\-destroy\-my\-drive; must be the only option). A bad pair stops the run; the batches already full were sent."#);
parses!(
    trim_sector_ranges_stdin_parses,
    "--trim-sector-ranges-stdin /dev/x",
    |f| f.trim_ranges_stdin
);
pub const VERBOSE: OptionDef = long_flag(
    "verbose",
    Role::Modifier,
    Some(" --verbose                   Display extra diagnostics from some commands"),
    "Trace the commands sent and their results on stderr",
    &["--verbose", "-C"],
    Apply::Flag(field!(bool, verbose)),
)
.man_page(
    "",
    r#"Show extra diagnostics, such as the commands sent and the sense data returned."#,
);
parses!(verbose_parses, "--verbose -C /dev/x", |f| f.verbose);
pub const WRITE_SECTOR: OptionDef = write_sector(
    "write-sector",
    " --write-sector              Repair/overwrite a (possibly bad) sector directly on the media (VERY DANGEROUS)",
)
.man_page("LBA", r#"Overwrite sector LBA with zeros, to make a drive reallocate a bad sector (needs \-\-yes\-i\-know\-what\-i\-am\-doing; must be the only option; the raw device only)."#);
parses!(write_sector_parses, "--write-sector 0 /dev/x", |f| f
    .write_sector
    == Some(0));

// Long options of hdparm 9.65 that its usage text leaves out (the security help lists most).

pub const YES_I_KNOW: OptionDef = long_flag(
    "yes-i-know-what-i-am-doing",
    Role::Modifier,
    None,
    "The guard flag of the dangerous options",
    &["--yes-i-know-what-i-am-doing", "-C"],
    Apply::Flag(field!(bool, yes_i_know)),
)
.man_page(
    "",
    r#"Guard flag for the operations that can lose data or make a drive unusable."#,
);
parses!(
    yes_i_know_parses,
    "--yes-i-know-what-i-am-doing -C /dev/x",
    |f| f.yes_i_know
);
pub const SECURITY_FREEZE: OptionDef = long_flag(
    "security-freeze",
    Role::Action,
    None,
    "Freeze the security settings until reset (SECURITY FREEZE LOCK)",
    &["--security-freeze"],
    Apply::Flag(field!(bool, security_freeze)),
)
.man_page("", r#"Freeze the security settings until the next reset."#)
.in_security_help(" --security-freeze           Freeze security settings until reset.");
parses!(security_freeze_parses, "--security-freeze /dev/x", |f| f
    .security_freeze);
pub const SECURITY_PROMPT: OptionDef = long_flag(
    "security-prompt-for-password",
    Role::Modifier,
    None,
    "Read the security password from the terminal",
    &[],
    Apply::Flag(field!(bool, security_prompt)),
)
.man_page("", r#"Read the password from the terminal, without echo, instead of the command line (\fBPlease enter the drive password:\fR). Give it before the password command.
hdparm\-rs's \fB Issuing ...\fR line then says \fBpassword from the terminal (not shown)\fR
where hdparm prints the password (see SAFETY, Passwords)."#)
.in_security_help(" --security-prompt-for-password   Prompt user to enter the drive password.");
parses!(
    security_prompt_parses,
    "--security-prompt-for-password --security-unlock /dev/x",
    |f| f.security_prompt && f.security.is_some()
);

/// `--security-mode h|m` and `--user-master u|m`.
const fn security_letter(
    name: &'static str,
    choices: &'static str,
    summary: &'static str,
) -> OptionDef {
    OptionDef {
        value: Value::Letter { choices },
        ..long_flag(
            name,
            Role::Modifier,
            None,
            summary,
            &[],
            Apply::Custom(Reader::SecurityLetter),
        )
    }
}

pub const SECURITY_MODE: OptionDef = security_letter(
    "security-mode",
    "hm",
    "The security level of --security-set-pass: h high, m maximum",
)
.man_page("h|m", r#"Security level for \-\-security\-set\-pass: high (default) or maximum. Give it before the password command."#)
.in_security_help(concat!(
    " --security-mode  LEVEL      Use LEVEL to select security level:\n",
    "                                  h   high security (default).\n",
    "                                  m   maximum security.",
));
parses!(
    security_mode_parses,
    "--security-mode m --security-set-pass pw /dev/x",
    |f| f.security_level == SecurityLevel::Maximum
);
pub const USER_MASTER: OptionDef = security_letter(
    "user-master",
    "um",
    "Whose password the security options use: u user, m master",
)
.man_page("u|m", r#"Whether the password is the user's (default) or the master's. Give it before the password command."#)
.in_security_help(concat!(
    " --user-master    WHICH      Use WHICH to choose password type:\n",
    "                                  u   user-password (default).\n",
    "                                  m   master-password",
));
parses!(
    user_master_parses,
    "--user-master m --security-unlock pw /dev/x",
    |f| f.security_user == SecurityUser::Master
);

/// A `--security-*` command that takes a password.
const fn security(
    name: &'static str,
    summary: &'static str,
    command: SecurityCommand,
) -> OptionDef {
    let apply = Apply::Custom(Reader::Security(command));
    OptionDef {
        value: Value::Password,
        ..long_flag(name, Role::Standalone, None, summary, &[], apply)
    }
}

pub const SECURITY_UNLOCK: OptionDef = security(
    "security-unlock",
    "Unlock the drive with a password (SECURITY UNLOCK)",
    SecurityCommand::Unlock,
)
.man_page("PASSWORD", r#"Unlock a locked drive (SECURITY UNLOCK). A drive counts wrong passwords and refuses further attempts until a power cycle after five."#)
.in_security_help(" --security-unlock   PASSWD  Unlock drive.");
parses!(
    security_unlock_parses,
    "--security-unlock NULL /dev/x",
    |f| matches!(&f.security, Some((SecurityCommand::Unlock, p)) if p.bytes.as_bytes() == &[0; 32])
);
pub const SECURITY_SET_PASS: OptionDef = security(
    "security-set-pass",
    "Set a password, which locks the drive (SECURITY SET PASSWORD)",
    SecurityCommand::SetPass,
)
.man_page("PASSWORD", r#"Set a user or master password (\-\-user\-master); a user password locks the drive at its next power cycle, and hdparm\-rs says so once on stderr.
A master password is sent with the next master password revision code (IDENTIFY word 92 plus one)."#)
.in_security_help(concat!(
    " --security-set-pass PASSWD  Lock drive, using password PASSWD:\n",
    "                                  Use 'NULL' to set empty password.\n",
    "                                  Drive gets locked if user-passwd is selected.",
));
parses!(
    security_set_pass_parses,
    "--security-set-pass abc /dev/x",
    |f| matches!(&f.security, Some((SecurityCommand::SetPass, p)) if p.bytes.as_bytes()[..4] == *b"abc\0")
);
pub const SECURITY_DISABLE: OptionDef = security(
    "security-disable",
    "Remove the password (SECURITY DISABLE PASSWORD)",
    SecurityCommand::Disable,
)
.man_page("PASSWORD", r#"Remove the password: SECURITY UNLOCK, then SECURITY DISABLE PASSWORD with the same data.
PASSWORD is text of up to 32 characters, \fBNULL\fR for an empty one, or \fBhex:\fR and 64 hex digits; hdparm prints it (\fBsecurity_password: ...\fR) while reading the command line.
A failure ends the device's processing.
None of the password commands needs a guard flag."#)
.in_security_help(" --security-disable  PASSWD  Disable drive locking.");
parses!(
    security_disable_parses,
    "--security-disable pw /dev/x",
    |f| matches!(&f.security, Some((SecurityCommand::Disable, p)) if p.bytes.as_bytes()[..3] == *b"pw\0")
);
pub const SECURITY_ERASE: OptionDef = security(
    "security-erase",
    "Erase the drive (SECURITY ERASE UNIT)",
    SecurityCommand::Erase,
)
.man_page("PASSWORD", r#"SECURITY ERASE PREPARE, then SECURITY ERASE UNIT: erase the whole drive. The drive must have a password set (\-\-security\-set\-pass).
The command's timeout is computed as hdparm computes it from IDENTIFY words 89 and 90 and the capacity (12 hours without IDENTIFY).
hdparm\-rs prints the drive's own estimate on stderr before it starts, the elapsed time while it runs when stderr is a terminal, and does not send anything to a drive whose security is frozen (it says how to unfreeze it: suspend and resume, or a hot\-plug).
SIGINT, SIGTERM, SIGHUP and SIGQUIT do not stop the erase: hdparm\-rs says that the drive keeps erasing and stays locked with this password, waits for the end, sends nothing to the devices after it, and then ends (see SIGNALS)."#)
.in_security_help(" --security-erase    PASSWD  Erase a (locked) drive.");
parses!(
    security_erase_parses,
    "--security-erase pw /dev/x",
    |f| matches!(f.security, Some((SecurityCommand::Erase, _)))
);
pub const SECURITY_ERASE_ENHANCED: OptionDef = security(
    "security-erase-enhanced",
    "Erase the drive, reserved areas too (SECURITY ERASE UNIT, enhanced)",
    SecurityCommand::EraseEnhanced,
)
.man_page("PASSWORD", r#"Enhanced SECURITY ERASE UNIT (also the reallocated and reserved areas), with the time of IDENTIFY word 90; as \-\-security\-erase otherwise."#)
.in_security_help(" --security-erase-enhanced PASSWD   Enhanced-erase a (locked) drive.");
parses!(
    security_erase_enhanced_parses,
    "--security-erase-enhanced pw /dev/x",
    |f| matches!(f.security, Some((SecurityCommand::EraseEnhanced, _)))
);

// ---------------------------------------------------------------------------------------------
// Options of ours.

const fn ours(def: OptionDef) -> OptionDef {
    OptionDef {
        origin: Origin::Ours,
        ..def
    }
}

pub const SECURITY_PASSWORD_FILE: OptionDef = OptionDef {
    value: Value::Filename,
    ..ours(long_flag(
        "security-password-file",
        Role::Modifier,
        Some(" --security-password-file FILE  Read the security password from FILE (- stdin, /dev/fd/N)"),
        "Read the security password from a file or descriptor (one trailing newline dropped, 32 bytes at most)",
        &["--security-password-file", "/root/pw", "--security-unlock"],
        Apply::Custom(Reader::PasswordFile),
    ))
}
.man_page("FILE", r#"Read the security password from FILE instead of the command line, where \fBps\fR and the
shell's history would see it: \fB\-\fR is standard input, \fB/dev/fd/\fR\fIN\fR a descriptor
the caller left open (\fBhdparm \-\-security\-password\-file /dev/fd/3 \-\-security\-unlock
/dev/sdb 3< key\fR), as cryptsetup's \-\-key\-file. One trailing newline is dropped
(\fBecho pw > key\fR means \fBpw\fR); the other bytes are the password as they are, and more
than 32 (the size of ATA's password field) is an error (exit 22) before anything is sent. Give
it before the password command, instead of \-\-security\-prompt\-for\-password. The file is
read once, before the first device. The \fB Issuing ...\fR line says \fBpassword from FILE
(not shown)\fR (see SAFETY, Passwords)."#);
parses!(
    security_password_file_parses,
    "--security-password-file /root/pw --security-unlock /dev/x",
    |f| f.security_password_file == Some("/root/pw".into())
        && matches!(&f.security, Some((SecurityCommand::Unlock, p)) if p.bytes.as_bytes() == &[0; 32])
);
rejects!(
    security_password_file_and_prompt_are_one_too_many,
    "--security-prompt-for-password --security-password-file - --security-unlock /dev/x",
    ParseError::Message(
        "--security-prompt-for-password and --security-password-file: give one of them".into()
    )
);

pub const LONG_HELP: OptionDef = ours(long_flag(
    "help",
    Role::Immediate,
    Some(" --help            Display this usage text with the hdparm-rs options"),
    "Print the usage text with the options of hdparm-rs",
    &["--help"],
    Apply::Custom(Reader::Help { extended: true }),
))
.man_page(
    "",
    r#"Show hdparm's usage text followed by the options hdparm\-rs adds."#,
);
invokes!(
    long_help_invokes,
    "--help",
    Invocation::Help { extended: true }
);
pub const JSON: OptionDef = ours(long_flag(
    "json",
    Role::Modifier,
    Some(" --json            Print reports as JSON (versioned; see hdparm(8))"),
    "Print one JSON document instead of the text",
    &["--json", "-C"],
    Apply::Flag(field!(bool, json)),
))
.man_page("", r#"Print every report as one JSON document on standard output instead of text (see JSON OUTPUT)."#);
parses!(json_parses, "--json -C /dev/x", |f| f.json);
pub const DRY_RUN: OptionDef = ours(long_flag(
    "dry-run",
    Role::Modifier,
    Some(" --dry-run         Print the ATA commands the options would send, and send none"),
    "Print the commands the run would send (taskfile, protocol, data), send none, and name the guard flags a real run needs",
    &["--dry-run", "--security-erase", "NULL"],
    Apply::Flag(field!(bool, dry_run)),
))
.man_page("", r#"Print what the command line would do, and do none of it: nothing is sent to a drive (no SG_IO
at all, no NVMe command, no old IDE driver command), no kernel setting is changed, no file is
created, written, renamed or removed, no device is opened for writing and no data is read from
a device. Like every flag it applies to the devices after it, so it must come before the first
device: a command line with a device before \-\-dry\-run and one after it, where the first would
be run for real, is refused (exit 22). Each mode either prints its plan or refuses \-\-dry\-run; what a dry run may still
ask, read\-only, is listed for each (the test that runs every option under \-\-dry\-run,
tests/dry_run.rs, fails on anything else):
.RS
.TP
\fBthe device options (\-a ... \-\-security\-erase, \-t, \-T, \-\-bench)\fR
Plan. Each ATA command is one line with its name and every register (command, feature, count,
LBA, device, 28\- or 48\-bit, protocol, timeout) and, for a command that writes data, its
length, first bytes and an FNV\-1a digest; the data of the SECURITY commands holds the
password, so for them the plan gives the length only and says it holds the password. Each
NVMe command is one line with its dwords; each kernel call that changes a setting (BLKRASET,
BLKROSET, BLKFLSBUF, BLKRRPART, an old IDE driver set, a queue_depth write) is one line, a
file \-\-Iraw would write is one line, and the timings (\-t, \-T, \-\-bench) are listed, not
run. The commands that depend on IDENTIFY are chosen from the kernel's copy of it; where there
is none the plan says so, and commands that depend on an answer of the drive are planned as if
it answered with zero registers. No guard flag is needed: the plan names those the real run
needs and says which are given, and whether the real run would be refused because the drive is
in use (see SAFETY). \-\-security\-prompt\-for\-password does not prompt. Read\-only probes:
the device opened read\-only (O_NONBLOCK; O_DIRECT with \-\-direct) and its kind from fstat
and sysfs; the kernel's copy of IDENTIFY (HDIO_GET_IDENTITY); the gets the real run decides
with (BLKRAGET, BLKROGET, BLKGETSIZE64, BLKGETSIZE, BLKSSZGET, BLKPBSZGET, HDIO_GETGEO, the
HDIO_GET_* ioctls, LOOP_GET_STATUS64, NVME_IOCTL_ID, sysfs attributes such as queue_depth and
max_sectors_kb); for a destructive option the in\-use check (mountinfo, swaps, holders, an
O_EXCL open, closed at once); the firmware file of \-\-fwdownload and standard input of
\-\-trim\-sector\-ranges\-stdin, which are read as the real run reads them.
.TP
\fB\-\-apply \-\-dry\-run\fR
Plan: for each device, the command lines Debian's hooks would run. Probes: hdparm.conf, udev's
database, sysfs and the power supply; no device is opened and no record is written.
.TP
\fB\-\-experiment\fR
Plan: the number of trials and what each measures, and for each command line the experiment
runs (the get of every setting an arm changes, each arm's settings, the restore) its device
plan as above, with how many times it runs. \-\-dry\-run goes before \-\-experiment or among
its words. Probes: those of the device options, for each of those command lines.
.TP
\fB\-\-surface, \-\-surface\-quick\fR
Plan: the bytes and zones the scan would read and the CSV and plot files it would write. Probes:
the device opened as the scan opens it (read\-only, O_DIRECT) and its size (a seek to its end).
\-\-dry\-run goes before \-\-surface or among its words.
.TP
\fB\-\-fallocate\fR
Plan: the file it would create and the space it would allocate. Probes: whether the file exists
and its directory does (stat).
.TP
\fB\-\-check, \-\-advise, \-\-prometheus, \-\-fibmap, \-\-Istdin\fR
Refused with exit 22 before anything is opened: they change no drive, and all they do is read
(\-\-check, \-\-advise and \-\-prometheus with commands sent to the drives, \-\-prometheus \-t
with timed reads and a cache flush), so their dry run would be either the run itself or
nothing. Run them without \-\-dry\-run (\-\-apply \-\-dry\-run shows what \-\-apply would run).
.TP
\fB\-h, \-\-help, \-V, \-\-security\-help, \-\-generate\fR
Print their text, as without \-\-dry\-run: they touch nothing.
.RE
.IP
The exit status is the one the real run would have, where the plan shows it: 1 (guard) when a
guard flag is missing, 16 (busy) when the drive is in use, 25 (not_applicable) when the device
cannot take what the plan sends (no ATA interface, a feature its IDENTIFY says it lacks, an
ioctl its driver does not have), 22 for a value IDENTIFY rules out (\-X), 2 when the device
cannot be opened, 5 for \-\-fallocate on a file that exists and for an \-\-experiment whose
command lines would fail; each reason is also a line on stderr
(\fIDEVICE\fR: \-\-dry\-run: a real run would ...). Failures only a command sent could reveal
are not foreseen, and the plan is exit 0 then. With \-\-json the plan is the device's
\fBdry_run\fR object (\fBexperiment_plan\fR for \-\-experiment, the document's \fBdry_run\fR for
\-\-surface). Before \-\-apply it is \-\-apply's \-\-dry\-run."#);
parses!(dry_run_parses, "--dry-run -W0 /dev/x", |f| f.dry_run
    && f.write_cache.set);
invokes!(
    dry_run_before_apply_is_the_apply_plan,
    "--dry-run --apply /dev/sda",
    Invocation::Apply(ApplyRequest {
        check: false,
        dry_run: true,
        config: DEFAULT_CONFIG.into(),
        json: false,
        devices: vec!["/dev/sda".into()],
    })
);
pub const WAIT: OptionDef = ours(long_flag(
    "wait",
    Role::Modifier,
    Some(" --wait            With --sanitize-status: poll until the sanitize operation ends"),
    "Make --sanitize-status poll until the sanitize operation ends",
    &["--wait", "--sanitize-status"],
    Apply::Flag(field!(bool, sanitize_wait)),
))
.man_page("", r#"With \-\-sanitize\-status (before or right after it): ask for the status every second until the sanitize operation ends; the percentage done and the time left go to stderr when it is a terminal, the final status to stdout."#);
parses!(wait_parses, "--wait --sanitize-status /dev/x", |f| f
    .sanitize_wait
    && f.sanitize == Some(SanitizeCommand::Status));
pub const BENCH: OptionDef = ours(long_flag(
    "bench",
    Role::Action,
    Some(" --bench           Benchmark reads: repeated O_DIRECT trials at a queue depth"),
    "Time O_DIRECT reads at a queue depth, in repeated trials",
    &["--bench"],
    Apply::Custom(Reader::Bench),
))
.man_page("", r#"Benchmark reads: repeated trials of O_DIRECT reads at a queue depth through io_uring (a plain read loop where io_uring is not available), reported as mean \(+- standard deviation and min ... max, then per read: the reads per second and the latency percentiles p50, p99 and p99.9 of every read, from its submission to its completion (what fio reports with lat_percentiles=1)."#);
parses!(bench_parses, "--bench /dev/x", |f| f.bench
    == Some(Default::default()));

/// A `--bench-*` setting: the next word, read by the benchmark's own parser.
const fn bench_setting(
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    example: &'static str,
    apply: Apply,
) -> OptionDef {
    OptionDef {
        value: Value::Word { example },
        ..ours(long_flag(
            name,
            Role::Action,
            Some(usage),
            summary,
            &[],
            apply,
        ))
    }
}

pub const BENCH_TRIALS: OptionDef = bench_setting(
    "bench-trials",
    " --bench-trials N  Number of trials (default 5)",
    "The number of --bench trials",
    "3",
    Apply::Custom(Reader::BenchSetting(|o, w| {
        o.trials = crate::timing::bench::parse_trials(w)?;
        Ok(())
    })),
)
.man_page("N", r#"Number of trials (default 5)."#);
parses!(bench_trials_parses, "--bench-trials 3 /dev/x", |f| f
    .bench
    .as_ref()
    .is_some_and(|b| b.trials == 3));
pub const BENCH_DEPTH: OptionDef = bench_setting(
    "bench-depth",
    " --bench-depth N   Queue depth (default 32)",
    "The queue depth of --bench",
    "4",
    Apply::Custom(Reader::BenchSetting(|o, w| {
        o.depth = crate::timing::bench::parse_depth(w)?;
        Ok(())
    })),
)
.man_page("N", r#"Number of reads in flight (default 32)."#);
parses!(
    bench_limits_hold_for_the_final_values,
    "--bench-bs 512M --bench-depth 4 /dev/x",
    |f| f
        .bench
        .as_ref()
        .is_some_and(|b| b.depth == 4 && b.block_size == 512 << 20)
);
parses!(
    bench_limit_is_inclusive,
    "--bench-bs 256M --bench-depth 16 /dev/x",
    |f| f.bench.is_some()
);
parses!(bench_depth_parses, "--bench-depth 4 /dev/x", |f| f
    .bench
    .as_ref()
    .is_some_and(|b| b.depth == 4));
pub const BENCH_BS: OptionDef = bench_setting(
    "bench-bs",
    " --bench-bs N      Block size in bytes, K or M suffix allowed (default 2M)",
    "The block size of --bench reads",
    "64K",
    Apply::Custom(Reader::BenchSetting(|o, w| {
        o.block_size = crate::timing::bench::parse_block_size(w)?;
        Ok(())
    })),
)
.man_page(
    "SIZE",
    r#"Size of each read in bytes; K and M suffixes allowed (default 2M)."#,
);
parses!(bench_bs_parses, "--bench-bs 64K /dev/x", |f| f
    .bench
    .as_ref()
    .is_some_and(|b| b.block_size == 65536));
pub const BENCH_SECONDS: OptionDef = bench_setting(
    "bench-seconds",
    " --bench-seconds N Seconds per trial (default 3)",
    "The length of one --bench trial, in seconds",
    "0.5",
    Apply::Custom(Reader::BenchSetting(|o, w| {
        o.trial_duration = crate::timing::bench::parse_seconds(w)?;
        Ok(())
    })),
)
.man_page("S", r#"Length of each trial in seconds (default 3)."#);
parses!(bench_seconds_parses, "--bench-seconds 0.5 /dev/x", |f| f
    .bench
    .as_ref()
    .is_some_and(
        |b| b.trial_duration == std::time::Duration::from_millis(500)
    ));
pub const BENCH_RANDOM: OptionDef = ours(long_flag(
    "bench-random",
    Role::Action,
    Some(" --bench-random    Random offsets instead of sequential reads"),
    "Read at random offsets in --bench",
    &["--bench-random"],
    Apply::Custom(Reader::BenchRandom),
))
.man_page(
    "",
    r#"Read at random aligned offsets instead of sequentially."#,
);
parses!(bench_random_parses, "--bench-random /dev/x", |f| f
    .bench
    .as_ref()
    .is_some_and(|b| b.random));

/// An option of ours that reads the rest of the command line itself (`--apply`, `--surface`).
const fn immediate(
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    value: Value,
    apply: Apply,
) -> OptionDef {
    OptionDef {
        value,
        ..ours(long_flag(
            name,
            Role::Immediate,
            Some(usage),
            summary,
            &[],
            apply,
        ))
    }
}

/// `--apply` and `--check`: they read the rest of the command line themselves.
const fn apply_mode(
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    check: bool,
) -> OptionDef {
    let apply = Apply::Custom(Reader::Apply { check });
    immediate(name, usage, summary, Value::ApplyArguments, apply)
}

pub const APPLY: OptionDef = apply_mode(
    "apply",
    " --apply [--config FILE] [--dry-run] [DEVICE...]  Apply hdparm.conf as Debian's hooks do",
    "Apply /etc/hdparm.conf to the devices, as Debian's udev and pm-utils hooks would",
    false,
)
.man_page(
    r#"[\-\-config FILE] [\-\-dry\-run] [DEVICE...]"#,
    r#"Apply /etc/hdparm.conf (or FILE) the way Debian's udev hook (/lib/udev/hdparm) and
pm\-utils script (95hdparm\-apm) would on an add event: the same option string per disk, read
with the same quirks, and the same hdparm command lines (the \-B and \-S settings alone, then
the rest with \-q). With no DEVICE, every disk Debian's udev rule covers and every device
named by a block of the file. Each setting with a get is read back afterwards; one that did
not take is an error (exit 5), and so is one that reads back no value after its command line
went through (a CD\-ROM takes \-W0 and has no write cache to report). A record of what was
asked, run and read back, with a digest of the settings planned for the device, goes to
/run/hdparm/NAME.json, NAME being the kernel's name of the disk (sda, also when it was named
by a by\-id link; $HDPARM_RS_RECORD_DIR overrides the directory). \-\-dry\-run prints the
command lines and sends nothing.
.IP
The whole file is read first, in every mode. Each line Debian's reader would give up on is
listed as FILE:LINE: and the reason, and then nothing is applied, planned or checked (exit 22).
A line that is read otherwise than it looks gets a warning: a \fB#\fR after a value is no
comment (\fBwrite_cache = on  # -W1\fR gives hdparm the word \fB#1\fR, which it opens as a
device). Bytes that are not UTF\-8 (a Latin\-1 comment) are read, as Debian's shell reads them.
A DEVICE named that is not there is an error (exit 2); it is not planned and gets no record.
.IP
What Debian's rules leave out is said, one line each, in \-\-apply, \-\-dry\-run and \-\-check:
an \fBapm\fR or \fBspindown_time\fR that is never sent to the disk, with the rule
(95hdparm\-apm sends \-B and \-S only to /dev/sd? and /dev/hd?; hdparm_try_apm sends neither
over USB or FireWire, nor to a drive udev reports no APM for, but force_spindown_time), a block
for a device that is not there (with no DEVICE named), and a \fBcommand_line\fR block, which
Debian has ignored since 9.39\-1.
.IP
A block may also be keyed by what a drive is instead of its node (Debian's scripts read such a
key as a device that is never present):
.BI model: GLOB
,
.BI serial: GLOB
,
.BI wwn: GLOB
(with \fB*\fR and \fB?\fR; a blank in a model is written \fB\e\ \fR or matched with \fB?\fR)
and
.BI class: NAME
with NAME one of rotational, ssd, nvme, usb. The first block that matches a drive applies. A
block named by a by\-id link to an NVMe namespace applies to that namespace (Debian's reader
cut the name to /dev/nvme, which matched nothing). See HDPARM.CONF for examples."#,
);
invokes!(
    apply_invokes,
    "--apply --config /tmp/x.conf --dry-run /dev/sda /dev/sdb",
    Invocation::Apply(ApplyRequest {
        check: false,
        dry_run: true,
        config: "/tmp/x.conf".into(),
        json: false,
        devices: vec!["/dev/sda".into(), "/dev/sdb".into()],
    })
);
rejects!(
    apply_needs_a_config_file_name,
    "--apply --config",
    ParseError::Message("--config: missing file name".into())
);
pub const CHECK: OptionDef = apply_mode(
    "check",
    " --check [--config FILE] [DEVICE...]  Compare the devices with hdparm.conf; exit 4 on drift",
    "Compare the devices with /etc/hdparm.conf, change nothing, exit 4 when they differ",
    true,
)
.man_page(
    r#"[\-\-config FILE] [DEVICE...]"#,
    r#"Compare the devices with hdparm.conf without changing anything: each setting the file gives a
value and that has a get is read and compared. A setting the drive cannot report (\-S has no
get, and some drives take \-B but report no level) is compared with the record of the last
\-\-apply: it is in line when that \-\-apply sent the same word and its command line succeeded,
and it drifts when the command line failed, when it did not read back right after, or when
hdparm.conf now asks for another value (an edited spindown_time is drift). A setting that
\-\-apply reported as failed drifts too. When the settings the file gives the device changed
since the record (its digest differs, a comment does not count), that is drift as well. Lists
what differs and exits 4 when something does, 0 when nothing does. What it could not compare
(a get that failed, as without root, or a setting that cannot be read back and no record) is
named on standard error, and then it exits 6: it cannot say the device is in line."#,
);
invokes!(
    check_invokes,
    "--json --check",
    Invocation::Apply(ApplyRequest {
        check: true,
        dry_run: false,
        config: DEFAULT_CONFIG.into(),
        json: true,
        devices: vec![],
    })
);
pub const CONFIG: OptionDef = OptionDef {
    value: Value::Filename,
    ..ours(long_flag(
        "config",
        Role::Modifier,
        Some(" --config FILE     Before --apply or --check: the hdparm.conf they read"),
        "Name the hdparm.conf that a later --apply or --check reads",
        // It modifies --apply or --check, which read the rest of the command line, so no
        // device run shows it (config_before_apply_invokes does).
        &[],
        Apply::Custom(Reader::Config),
    ))
}
.man_page(
    "FILE",
    r#"Before \-\-apply or \-\-check (\fBhdparm \-\-config FILE \-\-check\fR): the hdparm.conf
they read, as their own \-\-config FILE would name it (the later one wins). Anywhere else it is
a usage error."#,
);
invokes!(
    config_before_apply_invokes,
    "--config /tmp/x.conf --dry-run --apply /dev/sda",
    Invocation::Apply(ApplyRequest {
        check: false,
        dry_run: true,
        config: "/tmp/x.conf".into(),
        json: false,
        devices: vec!["/dev/sda".into()],
    })
);
invokes!(
    config_after_apply_wins,
    "--config /tmp/x.conf --check --config /tmp/y.conf",
    Invocation::Apply(ApplyRequest {
        check: true,
        dry_run: false,
        config: "/tmp/y.conf".into(),
        json: false,
        devices: vec![],
    })
);
rejects!(
    config_without_apply_is_refused,
    "--config /tmp/x.conf -a /dev/sda",
    ParseError::Message(
        "--config FILE is for --apply and --check: give one of them after it".into()
    )
);

/// What follows a sub-option's spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SubValue {
    None,
    File,
    Number,
}

/// A word that belongs to one of our long options and is parsed by it, not by the option
/// table (`--surface --zones 8`, `--apply --config FILE`): listed here so that the
/// completions offer it too. A test in `complete.rs` holds this list to the parser.
pub struct SubOption {
    pub spelling: &'static str,
    pub value: SubValue,
    pub summary: &'static str,
}

pub const SUB_OPTIONS: &[SubOption] = &[
    SubOption {
        spelling: "--config",
        value: SubValue::File,
        summary: "Read this file instead of /etc/hdparm.conf (--apply, --check)",
    },
    SubOption {
        spelling: "--zones",
        value: SubValue::Number,
        summary: "The number of zones --surface reads",
    },
    SubOption {
        spelling: "--plot",
        value: SubValue::File,
        summary: "Write the SVG plot to this file (--surface, --experiment)",
    },
    SubOption {
        spelling: "--csv",
        value: SubValue::File,
        summary: "Write every zone's figures as CSV (--surface)",
    },
    SubOption {
        spelling: "--trials",
        value: SubValue::Number,
        summary: "The trials of each arm (--experiment)",
    },
    SubOption {
        spelling: "--keep",
        value: SubValue::None,
        summary: "Leave the winning arm applied (--experiment)",
    },
    SubOption {
        spelling: "--wake",
        value: SubValue::None,
        summary: "Read drives in standby too, waking them (--advise)",
    },
    SubOption {
        spelling: "--no-wake",
        value: SubValue::None,
        summary: "Ask a drive in standby nothing more (--prometheus)",
    },
];

pub const EXPERIMENT: OptionDef = OptionDef {
    value: Value::ExperimentArguments,
    ..ours(long_flag(
        "experiment",
        Role::Immediate,
        Some(" --experiment ARM ARM... [--trials N] [--direct|--bench] [--keep] [--plot FILE] DEVICE"),
        "Compare groups of settings by interleaved timed trials, and restore the settings after",
        &[],
        Apply::Custom(Reader::Experiment),
    ))
}
.man_page(r#"ARM ARM... [\-\-trials N] [\-\-direct|\-\-bench] [\-\-keep] [\-\-plot FILE] DEVICE"#, r#"Compare groups of settings (each ARM one quoted group in hdparm's grammar, such as '\-a 8' or
\&'\-d1 \-X udma5') by timed trials, interleaved in a balanced order, with the original settings
restored afterwards. Only options with a get, that can be read and set back, may appear in an
arm (\-a \-A \-b \-B \-c \-d \-k \-m \-M \-n \-Q \-r \-R \-u \-W \-X); the arms are checked before
anything runs.
.IP
First the original value of every option the arms set is read (\-X from IDENTIFY's selected
mode); if one cannot be read, nothing is changed. \-X, \-d0 and \-u1 in an arm need
\fB\-\-yes\-i\-know\-what\-i\-am\-doing\fR before \fB\-\-experiment\fR, as do the options
hdparm itself guards. Then one warm\-up trial (discarded) and \fB\-\-trials\fR N (default 8) per
arm, in ABBA blocks (forwards, then backwards), so that a slow drift of the machine weighs on
every arm alike. Before each trial the arm's settings are applied and read back; a setting that
does not read back stops the run. A trial flushes the caches and measures as \-t does, or as
\-t \-\-direct or one \-\-bench trial.
.IP
Printed per arm: median, mean \(+- standard deviation, min to max and the 95% confidence
interval of the mean (Student's t), in MB/s, its low end clamped at 0 (a rate is never
negative; a few noisy trials give an interval wider than the mean); per arm against the first, the ratio of the means
with its 95% percentile\-bootstrap interval, and a verdict only when the interval excludes 1
(else: "no difference this run can detect; the noise is \(+-N%"); a chart of the trials; and
what was restored. \fB\-\-json\fR carries every raw trial, the summaries, ratios, verdicts and
restored values; \fB\-\-plot\fR FILE writes an SVG strip plot of the trials per arm.
On a terminal, stderr shows the trial under way, redrawn in place; otherwise (a pipe, a log)
a plain line at the start and at each tenth of the run.
.IP
The original settings are restored after the run, on an error, and on SIGINT, SIGTERM, SIGHUP
or SIGQUIT (checked between trials; the process then dies of the signal). The disk is locked
for the whole run (see LOCKING): a second \-\-experiment, an \-\-apply or a destructive
operation on it is refused or skips it. \fB\-\-keep\fR leaves the winning arm applied when there is one,
and prints the /etc/hdparm.conf stanza that makes it last, under the device's
/dev/disk/by\-id/ name when udev made one (an sdX letter can change at the next boot); with no winner it restores and says
so. Exit 5 when the run stopped early or the restore did not read back."#);
invokes!(
    experiment_invokes,
    "--yes-i-know-what-i-am-doing --experiment -a8 -a2048 --trials 3 --keep --plot /tmp/p.svg /dev/sdz",
    Invocation::Experiment(ExperimentRequest {
        arms: vec![
            Arm {
                text: "-a8".into(),
                words: vec!["-a8".into()],
                options: vec!["-a".into()],
                flags: tests::flags_of("-a8 /dev/experiment-arm"),
            },
            Arm {
                text: "-a2048".into(),
                words: vec!["-a2048".into()],
                options: vec!["-a".into()],
                flags: tests::flags_of("-a2048 /dev/experiment-arm"),
            },
        ],
        device: "/dev/sdz".into(),
        measurement: Measurement::Buffered,
        trials: 3,
        keep: true,
        plot: Some("/tmp/p.svg".into()),
        json: false,
        yes_i_know: true,
        please_destroy: false,
        dry_run: false,
    })
);
/// `--dry-run` before `--experiment` or `--surface`, or among their words: the same plan
/// request.
#[cfg(test)]
#[test]
fn dry_run_experiment_and_surface_are_plans() {
    for line in [
        "--dry-run --experiment -a8 -a2048 /dev/sdz",
        "--experiment -a8 --dry-run -a2048 /dev/sdz",
        "--dry-run --surface-quick /dev/sdz",
        "--surface --zones 4 --dry-run /dev/sdz",
    ] {
        match tests::parse_words(line) {
            Ok(Invocation::Experiment(request)) => {
                assert!(request.dry_run, "{line}");
                assert_eq!(request.arms.len(), 2, "{line}");
            }
            Ok(Invocation::Surface(request)) => {
                assert!(request.dry_run, "{line}");
                assert_eq!(request.device, "/dev/sdz", "{line}");
            }
            other => panic!("{line}: {other:?}"),
        }
    }
}
rejects!(
    experiment_arms_may_only_set_what_can_be_set_back,
    "--experiment -S12 -S24 /dev/sdz",
    ParseError::Message(
        "--experiment: arm '-S12' sets -S, which cannot be read back and restored (arms may set -a -A -b -B -c -d -k -m -M -n -Q -r -R -u -W -X)".into()
    )
);
rejects!(
    experiment_needs_two_arms_and_a_device,
    "--experiment -a8 /dev/sdz",
    ParseError::Message("--experiment: needs at least two arms and a device".into())
);

pub const PROMETHEUS: OptionDef = OptionDef {
    value: Value::PrometheusArguments,
    ..ours(long_flag(
        "prometheus",
        Role::Immediate,
        Some(" --prometheus [FILE] [--no-wake] [-t] [DEVICE...]  Drive state as node_exporter textfile metrics"),
        "Write every drive's state as node_exporter textfile metrics, waking none with --no-wake",
        &[],
        Apply::Custom(Reader::Prometheus),
    ))
}
.man_page(r#"[FILE] [\-\-no\-wake] [\-t] [DEVICE...]"#, r#"Write every drive's state (or the DEVICEs') in the node_exporter textfile\-collector format: an
info series with model, serial, firmware and WWN, the power state from CHECK POWER MODE (which
wakes nothing), the APM and AAM levels, the write cache, the security state, the SATA link
speed (hdparm_sata_link_speed_bytes_per_second: the line rate, Gbit/s divided by 8), the HPA
state (hdparm_hpa_enabled, with hdparm_visible_bytes and hdparm_native_max_bytes from the
sector counts that \-N reads), the temperature from the SCT status page
(hdparm_temperature_celsius, on drives that have SCT), and hdparm_query_success per drive.
With \-t (before or after \-\-prometheus) each drive's buffered reads are timed as \-t times
them, after a buffer\-cache flush, and written as hdparm_read_bytes_per_second (the drives are
read at the same time). Every series is labelled \fBdevice\fR with the kernel's name of the disk
(device="sda"), as node_exporter labels its node_disk_* series, so the two join; a disk named
twice, or by a by\-id link and by /dev/sda, is one series (node_exporter rejects a file with a
series twice). Values are in base units; issue 19 renamed hdparm_sata_link_speed_gbps,
hdparm_visible_sectors and hdparm_native_max_sectors to the names above, and the device label
from /dev/sda to sda. Drives are queried in parallel, each with its own deadline, so one that
fails or hangs never keeps the others out. FILE (a first word not under /dev/) is written
through a rename; without it the metrics go to standard output. With \-\-no\-wake a drive in
standby is asked nothing more, and not timed; its hdparm_query_skipped series says so, and the
exit status stays 0: on a NAS the disks sleep, and the timer in contrib/systemd must not fail
each time one does."#);
invokes!(
    prometheus_invokes,
    "--prometheus /var/lib/node_exporter/hdparm.prom --no-wake /dev/sda /dev/sdb",
    Invocation::Prometheus(PrometheusRequest {
        file: Some("/var/lib/node_exporter/hdparm.prom".into()),
        no_wake: true,
        time_device: false,
        devices: vec!["/dev/sda".into(), "/dev/sdb".into()],
    })
);
invokes!(
    prometheus_to_stdout_invokes,
    "--prometheus /dev/sda",
    Invocation::Prometheus(PrometheusRequest {
        file: None,
        no_wake: false,
        time_device: false,
        devices: vec!["/dev/sda".into()],
    })
);
invokes!(
    prometheus_with_t_times_reads,
    "-t --prometheus /dev/sda",
    Invocation::Prometheus(PrometheusRequest {
        file: None,
        no_wake: false,
        time_device: true,
        devices: vec!["/dev/sda".into()],
    })
);
invokes!(
    prometheus_takes_t_after_it_too,
    "--prometheus /tmp/x.prom -t --no-wake",
    Invocation::Prometheus(PrometheusRequest {
        file: Some("/tmp/x.prom".into()),
        no_wake: true,
        time_device: true,
        devices: vec![],
    })
);

pub const GENERATE: OptionDef = OptionDef {
    value: Value::Word {
        example: "complete-bash",
    },
    ..ours(long_flag(
        "generate",
        Role::Immediate,
        Some(
            " --generate complete-bash|complete-zsh|complete-fish|man|schema  Print a shell completion script, the man page or the JSON schema",
        ),
        "Print a shell's completion script, the man page or the JSON schema, made from these definitions",
        &[],
        Apply::Custom(Reader::Generate),
    ))
}
.man_page(
    r#"complete\-bash|complete\-zsh|complete\-fish|man|schema"#,
    r#"Print the shell's completion script, made from the same option definitions as the parser and
this page (the Debian package installs all three); \fBman\fR prints this page, and \fBschema\fR
the JSON Schema of \fB\-\-json\fR's documents (doc/hdparm\-rs.schema.json), made from the
report types."#,
);
invokes!(generate_man_invokes, "--generate man", Invocation::ManPage);
invokes!(
    generate_schema_invokes,
    "--generate schema",
    Invocation::Schema
);
invokes!(
    generate_invokes,
    "--generate complete-zsh",
    Invocation::Completions {
        shell: "zsh".into()
    }
);
rejects!(
    generate_knows_its_shells,
    "--generate complete-tcsh",
    ParseError::Message(
        "--generate: expected complete-bash, complete-zsh, complete-fish, man or schema, got 'complete-tcsh'"
            .into()
    )
);

pub const ADVISE: OptionDef = OptionDef {
    value: Value::AdviseArguments,
    ..ours(long_flag(
        "advise",
        Role::Immediate,
        Some(" --advise [--wake] [DEVICE...]  What is off about each drive, and the command that changes it"),
        "Read each drive and say what is off, why, the risk, and the command that changes it",
        &[],
        Apply::Custom(Reader::Advise),
    ))
}
.man_page(r#"[\-\-wake] [DEVICE...]"#, r#"Read each drive (IDENTIFY, SMART attributes, the kernel's settings, sysfs) and print what is
off, why it matters, what changing it risks, and the exact command that changes it: DMA not in
use, a SATA link slower than drive and port allow, APM that parks the heads of a drive with a
high load\-cycle count, a spin\-down on a RAID member, the write cache off, NCQ off, a small
read\-ahead on a rotating disk, security not frozen, reallocated or pending sectors. It changes
nothing, and it reads no drive in standby unless \-\-wake is given."#);
invokes!(
    advise_invokes,
    "--json --advise --wake /dev/sda",
    Invocation::Advise(AdviseRequest {
        wake: true,
        json: true,
        devices: vec!["/dev/sda".into()],
    })
);

/// `--surface` and `--surface-quick`.
const fn surface(
    name: &'static str,
    usage: &'static str,
    summary: &'static str,
    quick: bool,
) -> OptionDef {
    let apply = Apply::Custom(Reader::Surface { quick });
    immediate(name, usage, summary, Value::SurfaceArguments, apply)
}

pub const SURFACE: OptionDef = surface(
    "surface",
    " --surface [--zones N] [--surface-quick] [--plot FILE.svg] [--csv FILE] DEVICE  Read-scan the whole device",
    "Read the whole device zone by zone (O_DIRECT): read rate, access time, slow zones, errors",
    false,
)
.man_page(r#"[\-\-zones N] [\-\-surface\-quick] [\-\-plot FILE.svg] [\-\-csv FILE] DEVICE"#, r#"Read the whole device with O_DIRECT in N zones (default 100): the sequential read rate of each
zone and its random access time, a chart of the rate across the device, and the zones that are
slow (under half the median) or failed to read, with their sectors. A read error never stops
the scan (exit 5 when there was one); the failed sectors of a zone are listed as ranges (the
first 16, and how many more), so a disk that fails everywhere gives a short report. A device
that shrinks or goes away during the scan (a read at or past its size now) is not a run of
read errors: the scan stops, says \fBdevice went away at sector\fR \fIN\fR, and reports the
zones read before it (exit 5). SIGINT, SIGTERM, SIGHUP or SIGQUIT stops the scan too, between
two reads, and the zones already read are reported before that signal ends the process. \-\-plot draws the rate and access time across the
capacity as SVG (\-\-plot \- writes it to standard output, the text to standard error);
\-\-csv writes a line per zone; \-\-json carries every zone. Progress and an
estimate go to standard error when it is a terminal."#);
invokes!(
    surface_invokes,
    "--surface --zones 8 --plot /tmp/s.svg --csv /tmp/s.csv /dev/sdz",
    Invocation::Surface(SurfaceRequest {
        device: "/dev/sdz".into(),
        zones: 8,
        quick: false,
        plot: Some("/tmp/s.svg".into()),
        csv: Some("/tmp/s.csv".into()),
        json: false,
        dry_run: false,
    })
);
pub const SURFACE_QUICK: OptionDef = surface(
    "surface-quick",
    " --surface-quick DEVICE  The same, sampling 8 MiB of each zone",
    "A surface scan that reads 8 MiB of each zone instead of all of it",
    true,
)
.man_page(
    "DEVICE",
    r#"The same scan, reading 8 MiB at the start of each zone instead of all of it."#,
);
invokes!(
    surface_quick_invokes,
    "--json --surface-quick /dev/sdz",
    Invocation::Surface(SurfaceRequest {
        device: "/dev/sdz".into(),
        zones: DEFAULT_ZONES,
        quick: true,
        plot: None,
        csv: None,
        json: true,
        dry_run: false,
    })
);
rejects!(
    a_dry_run_after_a_device_would_act_on_it,
    "-a8 /dev/sda --dry-run /dev/sdb",
    ParseError::Message("--dry-run comes after /dev/sda, which would then be run for real: put --dry-run before the first device (it applies to the devices after it)".into())
);
parses!(
    dry_run_applies_to_every_device_after_it,
    "--dry-run -a8 /dev/x",
    |f| f.dry_run
);
/// The modes that only read have no dry run: refused before anything is opened.
#[cfg(test)]
#[test]
fn the_modes_that_only_read_refuse_dry_run() {
    for line in [
        "--dry-run --check /dev/sda",
        "--check --dry-run /dev/sda",
        "--dry-run --advise",
        "--advise --dry-run /dev/sda",
        "--dry-run --prometheus /tmp/x.prom",
        "--prometheus --dry-run /dev/sda",
        "--dry-run --fibmap /mnt/file",
        "--dry-run --Istdin",
    ] {
        match tests::parse_words(line) {
            Err(ParseError::Message(text)) => assert!(
                text.starts_with("--dry-run: --")
                    && text.contains(" has no dry run: it changes nothing, but "),
                "{line}: {text}"
            ),
            other => panic!("{line}: {other:?}"),
        }
    }
}
rejects!(
    surface_needs_one_device,
    "--surface --zones 4",
    ParseError::Message("--surface: needs one device".into())
);

/// Every option, in the order of the usage text (hdparm's, then ours).
pub static OPTIONS: &[&OptionDef] = &[
    &READAHEAD,
    &LOOKAHEAD,
    &BUSSTATE,
    &APM,
    &IO32BIT,
    &CHECK_POWER,
    &DMA,
    &DEFECT_MGMT,
    &CDROM_SPEED,
    &FLUSH_BUFFERS,
    &FLUSH_DRIVE_CACHE,
    &GEOMETRY,
    &HELP,
    &HITACHI_TEMP,
    &IDENTITY,
    &IDENTIFY,
    &WDIDLE3,
    &KEEP_SETTINGS,
    &KEEP_FEATURES,
    &DOORLOCK,
    &MULTCOUNT,
    &ACOUSTIC,
    &NOWERR,
    &MAX_SECTORS,
    &PIO_MODE,
    &PREFETCH,
    &QUIET,
    &QUEUE_DEPTH,
    &READONLY,
    &WRITE_READ_VERIFY,
    &POWERUP_IN_STANDBY,
    &STANDBY,
    &TIME_DEVICE,
    &TIME_CACHE,
    &UNMASK_IRQ,
    &OBSOLETE_U,
    &DEFAULTS,
    &VERSION,
    &RESET,
    &WRITE_CACHE,
    &OBSOLETE_X,
    &XFER_MODE,
    &STANDBY_NOW,
    &SLEEP_NOW,
    &REREAD_PARTITIONS,
    &SEAGATE_POWERSAVE,
    &DCO_FREEZE,
    &DCO_IDENTIFY,
    &DCO_RESTORE,
    &DCO_SETMAX,
    &DIRECT,
    &DRQ_HSM_ERROR,
    &FALLOCATE,
    &FIBMAP,
    &FWDOWNLOAD,
    &FWDOWNLOAD_MODE3,
    &FWDOWNLOAD_MODE3_MAX,
    &FWDOWNLOAD_MODE7,
    &FWDOWNLOAD_MODEE,
    &FWDOWNLOAD_MODEE_MAX,
    &IDLE_IMMEDIATE,
    &IDLE_UNLOAD,
    &IRAW,
    &ISTDIN,
    &ISTDOUT,
    &MAKE_BAD_SECTOR,
    &OFFSET,
    &PREFER_ATA12,
    &READ_SECTOR,
    &REPAIR_SECTOR,
    &SANITIZE_ANTIFREEZE_LOCK,
    &SANITIZE_BLOCK_ERASE,
    &SANITIZE_CRYPTO_SCRAMBLE,
    &SANITIZE_FREEZE_LOCK,
    &SANITIZE_OVERWRITE,
    &SANITIZE_OVERWRITE_PASSES,
    &SANITIZE_STATUS,
    &SECURITY_HELP,
    &SET_SECTOR_SIZE,
    &TRIM_SECTOR_RANGES,
    &TRIM_SECTOR_RANGES_STDIN,
    &VERBOSE,
    &WRITE_SECTOR,
    &PLEASE_DESTROY,
    &YES_I_KNOW,
    &SECURITY_FREEZE,
    &SECURITY_PROMPT,
    &SECURITY_PASSWORD_FILE,
    &SECURITY_MODE,
    &USER_MASTER,
    &SECURITY_UNLOCK,
    &SECURITY_SET_PASS,
    &SECURITY_DISABLE,
    &SECURITY_ERASE,
    &SECURITY_ERASE_ENHANCED,
    &LONG_HELP,
    &JSON,
    &DRY_RUN,
    &WAIT,
    &BENCH,
    &BENCH_TRIALS,
    &BENCH_DEPTH,
    &BENCH_BS,
    &BENCH_SECONDS,
    &BENCH_RANDOM,
    &APPLY,
    &CHECK,
    &CONFIG,
    &EXPERIMENT,
    &PROMETHEUS,
    &GENERATE,
    &ADVISE,
    &SURFACE,
    &SURFACE_QUICK,
];

#[cfg(test)]
mod tests {
    use super::*;
    use std::ffi::OsString;

    /// Parses `hdparm WORDS...` (words split on spaces).
    pub(super) fn parse_words(words: &str) -> Result<Invocation, ParseError> {
        let argv: Vec<OsString> = std::iter::once("hdparm")
            .chain(words.split(' '))
            .map(OsString::from)
            .collect();
        super::super::parse(&argv).result
    }

    /// The flags of the one device of `hdparm WORDS...`.
    pub(super) fn flags_of(words: &str) -> Flags {
        match parse_words(words) {
            Ok(Invocation::Devices(mut runs)) if runs.len() == 1 => runs.remove(0).flags,
            other => panic!("{words}: {other:?}"),
        }
    }

    #[test]
    fn every_spelling_is_defined_once() {
        let mut seen = std::collections::HashSet::new();
        for def in OPTIONS {
            assert!(def.short.is_some() || def.long.is_some());
            if let Some(c) = def.short {
                assert!(seen.insert(format!("-{}", c as char)), "{}", def.spelling());
            }
            if let Some(name) = def.long {
                let key = format!("--{}", name.to_ascii_lowercase());
                assert!(seen.insert(key), "--{name}");
            }
        }
    }

    #[test]
    fn hdparm_has_44_short_and_48_long_spellings() {
        // Reference §11: the 92 spellings of hdparm 9.65, plus -U and -x, listed as obsolete.
        let hdparm = || OPTIONS.iter().filter(|d| d.origin == Origin::Hdparm);
        let short = hdparm()
            .filter(|d| d.short.is_some() && d.role != Role::Obsolete)
            .count();
        let long = hdparm().filter(|d| d.long.is_some()).count();
        assert_eq!((short, long), (44, 48));
    }

    #[test]
    fn every_option_of_ours_and_most_of_hdparm_have_a_usage_line() {
        for def in OPTIONS {
            // hdparm's usage text leaves out the guard flags and the security options, which
            // the security help lists.
            let unlisted = def.origin == Origin::Hdparm
                && (def
                    .long
                    .is_some_and(|n| n.starts_with("security-") && n != "security-help")
                    || matches!(
                        def.long,
                        Some(
                            "yes-i-know-what-i-am-doing"
                                | "please-destroy-my-drive"
                                | "user-master"
                        )
                    ));
            assert_eq!(def.usage.is_none(), unlisted, "{}", def.spelling());
            if let Some(line) = def.usage {
                let spelled = line.split_whitespace().next().unwrap_or("");
                assert_eq!(spelled, def.spelling(), "{line}");
            }
        }
    }

    #[test]
    fn decimal_values_are_range_checked_with_hdparm_text() {
        for def in OPTIONS {
            let (Some(letter), Value::Decimal { name, min, max }) = (def.short, def.value) else {
                continue;
            };
            let letter = letter as char;
            let text = format!("  -{letter}: bad/missing {name} value ({min}..{max})");
            let refused = Err(ParseError::Message(text));
            assert_eq!(
                parse_words(&format!("-{letter}{} /dev/x", max + 1)),
                refused
            );
            assert_eq!(
                parse_words(&format!("-{letter} 99999999999 /dev/x")),
                refused
            );
            if def.role == Role::SetOnly {
                assert_eq!(parse_words(&format!("-{letter} /dev/x")), refused);
            }
            assert!(parse_words(&format!("-{letter}{max} /dev/x")).is_ok());
            assert!(parse_words(&format!("-{letter}{min} /dev/x")).is_ok());
        }
    }

    #[test]
    fn number_values_are_range_checked_with_hdparm_text() {
        for def in OPTIONS {
            let Value::Number {
                max,
                label,
                message,
                ..
            } = def.value
            else {
                continue;
            };
            let spelled = def.spelling();
            let label = match label {
                Label::Typed => spelled.trim_start_matches('-').to_string(),
                Label::Fixed(text) => text.to_string(),
            };
            let over = u128::from(max) + 1;
            let got = parse_words(&format!("{spelled} {over} /dev/x"));
            assert_eq!(
                got,
                Err(ParseError::Message(format!("  {label}: {message}"))),
                "{spelled}"
            );
        }
    }

    #[test]
    fn examples_parse_and_change_something() {
        for def in OPTIONS {
            if def.example.is_empty() || def.role == Role::Immediate {
                continue;
            }
            let words = format!("{} /dev/x", def.example.join(" "));
            let flags = flags_of(&words);
            assert_ne!(flags, Flags::default(), "{words}");
        }
    }

    #[test]
    fn standalone_options_must_come_first_and_alone() {
        for def in OPTIONS.iter().filter(|d| d.role == Role::Standalone) {
            let spelled = def.spelling();
            let value = match def.value {
                Value::Password => " pw",
                Value::Pattern => " hex:00000000",
                Value::Number { .. } => " 100",
                _ => "",
            };
            assert_eq!(
                parse_words(&format!("-C {spelled}{value} /dev/x")),
                Err(ParseError::Usage { clue: 1 }),
                "{spelled}"
            );
            if def.long != Some("Istdin") && def.long != Some("security-help") {
                assert_eq!(
                    parse_words(&format!("{spelled}{value} -C /dev/x")),
                    Err(ParseError::MessageThenUsage {
                        message: "Excess flags given.".into(),
                        clue: 7
                    }),
                    "{spelled}"
                );
            }
        }
    }

    #[test]
    fn modifiers_do_not_count_as_action_flags() {
        // A device reached before any action flag gets the default report.
        // --config modifies --apply and --check, and a device after it is refused.
        let device_modifiers = OPTIONS
            .iter()
            .filter(|d| d.role == Role::Modifier && d.long != Some("config"));
        for def in device_modifiers {
            let words = match def.value {
                Value::None => def.spelling(),
                Value::Letter { choices } => format!("{} {}", def.spelling(), &choices[..1]),
                _ => format!("{} 1", def.spelling()),
            };
            let flags = flags_of(&format!("{words} /dev/x"));
            assert!(flags.defaults, "{words}");
        }
    }
}
