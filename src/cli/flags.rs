//! The settings one device is processed with: every option of hdparm 9.65 as typed state.
//!
//! Field names follow what the option does, with the hdparm letter in the doc comment. The
//! shapes follow hdparm's own bookkeeping (reference §1.3): a get/set option remembers whether a
//! get was asked for (noisily), whether a set was asked for, and the value; later occurrences on
//! the command line override earlier ones, and nothing is ever reset between devices.

use std::ffi::OsString;
use std::path::PathBuf;

/// A get/set option (`-a -A -b -B -c -d -J -k -m -M -n -Q -r -R -u -W`, and `-N`).
///
/// `get` is true when the option was given without `-q` in front: it asks for the value to be
/// printed, and for a set to print its "setting ..." message. `set` is true when a value was
/// given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GetSet<T> {
    pub get: bool,
    pub set: bool,
    pub value: T,
}

/// A set-only option (`-D -E -K -L -P -s -S`, `-p`, `-X`): present with a value, and whether
/// it was given noisily (prints its "setting ..." message).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SetOnly<T> {
    pub set: bool,
    pub noisy: bool,
    pub value: T,
}

/// A plain set flag (`-C -H -w -y -Y -z -Z --idle-immediate --idle-unload`): requested, and
/// whether it was given noisily.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Action {
    pub set: bool,
    pub noisy: bool,
}

/// Who a security password belongs to (`--user-master u|m`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecurityUser {
    #[default]
    User,
    Master,
}

/// `--security-mode h|m`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SecurityLevel {
    #[default]
    High,
    Maximum,
}

/// The standalone security commands that take a password.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecurityCommand {
    Unlock,
    SetPass,
    Disable,
    Erase,
    EraseEnhanced,
}

/// A security password from the command line: text (`NULL` = empty) or 32 raw bytes from
/// `hex:`; all zeros when it is read at run time (`--security-prompt-for-password`,
/// `--security-password-file`). Zeroed when dropped, never shown by `Debug`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Password {
    pub bytes: crate::ata::secret::Secret<32>,
}

/// The standalone sanitize commands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SanitizeCommand {
    Status,
    FreezeLock,
    AntifreezeLock,
    BlockErase,
    CryptoScramble,
    Overwrite { pattern: u32 },
}

/// The firmware download variants (`--fwdownload*`): defined with the firmware code, which
/// chooses the DOWNLOAD MICROCODE mode from them.
pub use crate::ata::fwdownload::FwMode;

/// Everything asked of one device. A snapshot of the flags seen before the device's word.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Flags {
    // --- get/set options ---
    /// `-a`: filesystem read-ahead, in 512-byte sectors (0..2048).
    pub readahead: GetSet<u32>,
    /// `-A`: drive read-look-ahead (0..1).
    pub lookahead: GetSet<u32>,
    /// `-b`: bus state (0..2).
    pub busstate: GetSet<u32>,
    /// `-B`: Advanced Power Management level (0..255).
    pub apm: GetSet<u32>,
    /// `-c`: 32-bit I/O support (0..3).
    pub io32bit: GetSet<u32>,
    /// `-d`: using DMA (0..1).
    pub dma: GetSet<u32>,
    /// `-J`: WD Green idle3 timer in seconds (0..300).
    pub wdidle3: GetSet<u32>,
    /// `-k`: kernel keep settings over reset (0..1).
    pub keep_settings: GetSet<u32>,
    /// `-m`: multiple-sector count (0..64).
    pub multcount: GetSet<u32>,
    /// `-M`: Automatic Acoustic Management level (0..255).
    pub acoustic: GetSet<u32>,
    /// `-n`: ignore write errors (0..1).
    pub nowerr: GetSet<u32>,
    /// `-Q`: queue depth (0..1024).
    pub queue_depth: GetSet<u32>,
    /// `-r`: block device read-only flag (0..1).
    pub readonly: GetSet<u32>,
    /// `-R`: write-read-verify (0..3).
    pub write_read_verify: GetSet<u32>,
    /// `-u`: unmask other interrupts (0..1).
    pub unmask_irq: GetSet<u32>,
    /// `-W`: drive write cache (0..1).
    pub write_cache: GetSet<u32>,
    /// `-N`: max visible sectors (a sector count); `max_sectors_permanent` for the `p` prefix.
    pub max_sectors: GetSet<u64>,
    pub max_sectors_permanent: bool,

    // --- set-only options ---
    /// `-D`: drive defect management (0..1).
    pub defect_mgmt: SetOnly<u32>,
    /// `-E`: CD/DVD speed (0..255).
    pub cdrom_speed: SetOnly<u32>,
    /// `-K`: drive keeps features over reset (0..1).
    pub keep_features: SetOnly<u32>,
    /// `-L`: door lock (0..1).
    pub doorlock: SetOnly<u32>,
    /// `-P`: prefetch (0..255).
    pub prefetch: SetOnly<u32>,
    /// `-s`: power-up in standby (0..1).
    pub powerup_in_standby: SetOnly<u32>,
    /// `-S`: standby (spindown) timer code (0..255).
    pub standby: SetOnly<u32>,
    /// `-p`: PIO mode for the chipset (hdparm's number, see reference §1.4).
    pub pio_mode: SetOnly<u32>,
    /// `-X`: transfer mode for SET FEATURES (hdparm's number).
    pub xfer_mode: SetOnly<u32>,

    // --- plain set flags ---
    /// `-C`: check power mode.
    pub check_power: Action,
    /// `-H`: Hitachi temperature.
    pub hitachi_temp: Action,
    /// `-w`: reset the device.
    pub reset: Action,
    /// `-y`: standby now.
    pub standby_now: Action,
    /// `-Y`: sleep now.
    pub sleep_now: Action,
    /// `-z`: re-read partition table.
    pub reread_partitions: Action,
    /// `-Z`: disable Seagate auto power saving.
    pub seagate_powersave: Action,
    /// `--idle-immediate`.
    pub idle_immediate: Action,
    /// `--idle-unload`.
    pub idle_unload: Action,

    // --- actions (not affected by -q) ---
    /// `-f`: flush buffer cache.
    pub flush_buffers: bool,
    /// `-F`: flush the drive's write cache.
    pub flush_drive_cache: bool,
    /// `-g`: geometry.
    pub geometry: bool,
    /// `-i`: kernel's identify data.
    pub identity: bool,
    /// `-I`: live IDENTIFY decode.
    pub identify: bool,
    /// `-t`: time device reads.
    pub time_device: bool,
    /// `-T`: time cache reads.
    pub time_cache: bool,
    /// `-v`, or a device given before any flag: the default report.
    pub defaults: bool,
    /// `--Istdout`.
    pub identify_stdout: bool,
    /// `--Iraw FILE`.
    pub identify_raw: Option<PathBuf>,
    /// `--read-sector LBA`.
    pub read_sector: Option<u64>,
    /// `--write-sector` / `--repair-sector LBA`.
    pub write_sector: Option<u64>,
    /// `--make-bad-sector [f]LBA`: (lba, flagged).
    pub make_bad_sector: Option<(u64, bool)>,
    /// `--drq-hsm-error`.
    pub drq_hsm_error: bool,
    /// `--dco-freeze`.
    pub dco_freeze: bool,
    /// `--dco-identify`.
    pub dco_identify: bool,
    /// `--dco-restore` (standalone).
    pub dco_restore: bool,
    /// `--dco-setmax N` (standalone).
    pub dco_setmax: Option<u64>,
    /// `--security-freeze`.
    pub security_freeze: bool,
    /// `--security-unlock|set-pass|disable|erase|erase-enhanced PWD` (standalone).
    pub security: Option<(SecurityCommand, Password)>,
    pub security_user: SecurityUser,
    pub security_level: SecurityLevel,
    /// `--security-prompt-for-password`: read the password from the terminal at run time.
    pub security_prompt: bool,
    /// `--security-password-file FILE` (ours): read the password from FILE at run time (`-`
    /// is standard input, `/dev/fd/N` a descriptor).
    pub security_password_file: Option<PathBuf>,
    /// `--config FILE` (ours) before `--apply` or `--check`: the hdparm.conf they read.
    pub apply_config: Option<PathBuf>,
    /// `--sanitize-*` (standalone).
    pub sanitize: Option<SanitizeCommand>,
    /// `--sanitize-overwrite-passes N` (0..7; 0 means 16).
    pub sanitize_passes: u32,
    /// `--wait` (ours): `--sanitize-status` polls until the sanitize operation ends.
    pub sanitize_wait: bool,
    /// `--set-sector-size N` (exclusive).
    pub set_sector_size: Option<u64>,
    /// `--trim-sector-ranges LBA:COUNT ...` (exclusive).
    pub trim_ranges: Option<Vec<(u64, u64)>>,
    /// `--trim-sector-ranges-stdin` (exclusive).
    pub trim_ranges_stdin: bool,
    /// `--fwdownload* FILE` (exclusive).
    pub fwdownload: Option<(FwMode, PathBuf)>,

    // --- modifiers ---
    /// `--offset N`: GiB offset for `-t`.
    pub offset_gib: Option<u64>,
    /// `--direct`: O_DIRECT for timings.
    pub direct: bool,
    /// `--verbose`.
    pub verbose: bool,
    /// `--prefer-ata12`.
    pub prefer_ata12: bool,
    /// `--yes-i-know-what-i-am-doing`.
    pub yes_i_know: bool,
    /// `--please-destroy-my-drive`.
    pub please_destroy: bool,
    /// `-q` was seen anywhere before: suppresses the device header (sticky).
    pub quiet: bool,
    /// `--json`: print reports as JSON (ours).
    pub json: bool,
    /// `--dry-run`: print the commands the run would send, and send none (ours).
    pub dry_run: bool,
    /// `--bench` and its `--bench-*` settings: the queue-depth benchmark (ours).
    pub bench: Option<crate::timing::bench::BenchOptions>,
}

/// One device to process, with the flags in force when its word was reached.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceRun {
    pub path: OsString,
    pub flags: Flags,
}

/// What the command line asks for, validated, before anything touches the system.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Invocation {
    /// `-h` (hdparm's text) or `--help` (with our options added): usage on stdout, exit 0.
    Help { extended: bool },
    /// `-V`: version on stdout, exit 0.
    Version,
    /// `--security-help`: the security help on stdout, exit 0.
    SecurityHelp,
    /// `--Istdin`: decode IDENTIFY hex words from stdin.
    IdentifyStdin { json: bool },
    /// `--fibmap FILE`.
    Fibmap { path: PathBuf },
    /// `--fallocate KiB FILE` (with `--dry-run`: the plan only).
    Fallocate {
        kib: u64,
        path: PathBuf,
        dry_run: bool,
    },
    /// Process these devices in order.
    Devices(Vec<DeviceRun>),
    /// `--apply` / `--check` (ours): hdparm.conf applied to, or compared with, devices.
    Apply(ApplyRequest),
    /// `--experiment` (ours): settings compared by interleaved timed trials.
    Experiment(ExperimentRequest),
    /// `--prometheus` (ours): drive state as node_exporter textfile metrics.
    Prometheus(PrometheusRequest),
    /// `--generate complete-SHELL` (ours): a shell completion script on stdout.
    Completions { shell: String },
    /// `--generate man` (ours): doc/hdparm.8, made from the option definitions, on stdout.
    ManPage,
    /// `--generate schema` (ours): the JSON schema of `--json` (doc/hdparm-rs.schema.json).
    Schema,
    /// `--advise` (ours): what is off about each drive, and the command that changes it.
    Advise(AdviseRequest),
    /// `--surface` (ours): a read scan of the whole device, zone by zone.
    Surface(SurfaceRequest),
}

/// What `--surface` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SurfaceRequest {
    pub device: OsString,
    /// `--zones N` (default [`DEFAULT_ZONES`]).
    pub zones: usize,
    /// `--surface-quick`: read the start of each zone only.
    pub quick: bool,
    pub plot: Option<PathBuf>,
    pub csv: Option<PathBuf>,
    pub json: bool,
    /// `--dry-run` (before `--surface` or among its words): the plan, nothing read.
    pub dry_run: bool,
}

/// Zones of a surface scan unless `--zones` says otherwise.
pub const DEFAULT_ZONES: usize = 100;

/// What `--advise` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AdviseRequest {
    /// `--wake`: read drives in standby too (IDENTIFY and SMART can spin them up).
    pub wake: bool,
    pub json: bool,
    /// The drives; none means every disk present.
    pub devices: Vec<OsString>,
}

/// What `--prometheus` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrometheusRequest {
    /// Where the metrics go (through a rename); stdout when None.
    pub file: Option<PathBuf>,
    /// `--no-wake`: a drive in standby or sleep is asked nothing beyond CHECK POWER MODE.
    pub no_wake: bool,
    /// `-t` (before or after `--prometheus`): time each drive's buffered reads as `-t` does.
    pub time_device: bool,
    /// The drives; none means every disk present.
    pub devices: Vec<OsString>,
}

/// One arm of an experiment: a group of settings in hdparm's grammar.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Arm {
    /// As given (`-a 8`).
    pub text: String,
    /// Its words.
    pub words: Vec<String>,
    /// The options it sets, by spelling (`-a`).
    pub options: Vec<String>,
    pub flags: Flags,
}

/// What an experiment's trials measure.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Measurement {
    /// `-t`'s buffered read (the default).
    Buffered,
    /// `-t --direct`.
    Direct,
    /// `--bench`, at its depth and block size.
    Bench(crate::timing::bench::BenchOptions),
}

/// What `--experiment` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ExperimentRequest {
    pub arms: Vec<Arm>,
    pub device: OsString,
    pub measurement: Measurement,
    /// `--trials N`: trials per arm (the warm-up trial not counted).
    pub trials: u32,
    /// `--keep`: leave the winning arm applied.
    pub keep: bool,
    /// `--plot FILE.svg`.
    pub plot: Option<PathBuf>,
    pub json: bool,
    /// Guard flags given before `--experiment`.
    pub yes_i_know: bool,
    pub please_destroy: bool,
    /// `--dry-run` (before `--experiment` or among its words): the plan, nothing set or timed.
    pub dry_run: bool,
}

/// Trials per arm unless `--trials` says otherwise: with 8 a 95% interval on the ratio is
/// about ±10% for the noise of a busy machine's -t, which is the size of effect worth keeping.
pub const DEFAULT_TRIALS: u32 = 8;

/// What `--apply` or `--check` was asked to do.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ApplyRequest {
    /// `--check`: apply nothing; report the drift and exit 4 when there is some.
    pub check: bool,
    /// `--dry-run`: print the plan, send nothing.
    pub dry_run: bool,
    /// `--config FILE` (default `/etc/hdparm.conf`).
    pub config: PathBuf,
    /// `--json` came before.
    pub json: bool,
    /// The devices; none means every configured device present.
    pub devices: Vec<OsString>,
}

/// Debian's configuration file.
pub const DEFAULT_CONFIG: &str = "/etc/hdparm.conf";

/// Why the command line was refused. Each prints on stderr and exits 22 (usage).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ParseError {
    /// hdparm's usage text on stderr with `clue=N`.
    Usage { clue: u8 },
    /// One message line (without newline), as hdparm prints it.
    Message(String),
    /// A message line, then the usage text with a clue (`Excess flags given.`).
    MessageThenUsage { message: String, clue: u8 },
    /// The security help text on stderr (bad `--security-mode` / `--user-master` letter).
    SecurityHelp,
}
