//! hdparm's help texts: the usage (`-h` and usage errors) and the security help.
//!
//! These are program output that scripts and users compare against hdparm 9.65, so they are
//! kept byte for byte; `--help` (which hdparm 9.65 rejects as an unknown flag) adds our own
//! options after hdparm's list.

use std::io::{self, Write};

/// The option lines of hdparm 9.65's usage text, in its order.
const OPTION_LINES: &[&str] = &[
    " -a   Get/set fs readahead",
    " -A   Get/set the drive look-ahead flag (0/1)",
    " -b   Get/set bus state (0 == off, 1 == on, 2 == tristate)",
    " -B   Set Advanced Power Management setting (1-255)",
    " -c   Get/set IDE 32-bit IO setting",
    " -C   Check drive power mode status",
    " -d   Get/set using_dma flag",
    " -D   Enable/disable drive defect management",
    " -E   Set cd/dvd drive speed",
    " -f   Flush buffer cache for device on exit",
    " -F   Flush drive write cache",
    " -g   Display drive geometry",
    " -h   Display terse usage information",
    " -H   Read temperature from drive (Hitachi only)",
    " -i   Display drive identification",
    " -I   Detailed/current information directly from drive",
    " -J   Get/set Western DIgital \"Idle3\" timeout for a WDC \"Green\" drive (DANGEROUS)",
    " -k   Get/set keep_settings_over_reset flag (0/1)",
    " -K   Set drive keep_features_over_reset flag (0/1)",
    " -L   Set drive doorlock (0/1) (removable harddisks only)",
    " -m   Get/set multiple sector count",
    " -M   Get/set acoustic management (0-254, 128: quiet, 254: fast)",
    " -n   Get/set ignore-write-errors flag (0/1)",
    " -N   Get/set max visible number of sectors (HPA) (VERY DANGEROUS)",
    " -p   Set PIO mode on IDE interface chipset (0,1,2,3,4,...)",
    " -P   Set drive prefetch count",
    " -q   Change next setting quietly",
    " -Q   Get/set DMA queue_depth (if supported)",
    " -r   Get/set device readonly flag (DANGEROUS to set)",
    " -R   Get/set device write-read-verify flag",
    " -s   Set power-up in standby flag (0/1) (DANGEROUS)",
    " -S   Set standby (spindown) timeout",
    " -t   Perform device read timings",
    " -T   Perform cache read timings",
    " -u   Get/set unmaskirq flag (0/1)",
    " -U   Obsolete",
    " -v   Use defaults; same as -acdgkmur for IDE drives",
    " -V   Display program version and exit immediately",
    " -w   Perform device reset (DANGEROUS)",
    " -W   Get/set drive write-caching flag (0/1)",
    " -x   Obsolete",
    " -X   Set IDE xfer mode (DANGEROUS)",
    " -y   Put drive in standby mode",
    " -Y   Put drive to sleep",
    " -z   Re-read partition table",
    " -Z   Disable Seagate auto-powersaving mode",
    " --dco-freeze      Freeze/lock current device configuration until next power cycle",
    " --dco-identify    Read/dump device configuration identify data",
    " --dco-restore     Reset device configuration back to factory defaults",
    " --dco-setmax      Use DCO to set maximum addressable sectors",
    " --direct          Use O_DIRECT to bypass page cache for timings",
    " --drq-hsm-error   Crash system with a \"stuck DRQ\" error (VERY DANGEROUS)",
    " --fallocate       Create a file without writing data to disk",
    " --fibmap          Show device extents (and fragmentation) for a file",
    " --fwdownload            Download firmware file to drive (EXTREMELY DANGEROUS)",
    " --fwdownload-mode3      Download firmware using min-size segments (EXTREMELY DANGEROUS)",
    " --fwdownload-mode3-max  Download firmware using max-size segments (EXTREMELY DANGEROUS)",
    " --fwdownload-mode7      Download firmware using a single segment (EXTREMELY DANGEROUS)",
    " --fwdownload-modee      Download firmware using mode E (min-size segments) (EXTREMELY DANGEROUS)",
    " --fwdownload-modee-max  Download firmware using mode E (max-size segments) (EXTREMELY DANGEROUS)",
    " --idle-immediate  Idle drive immediately",
    " --idle-unload     Idle immediately and unload heads",
    " --Iraw filename   Write raw binary identify data to the specfied file",
    " --Istdin          Read identify data from stdin as ASCII hex",
    " --Istdout         Write identify data to stdout as ASCII hex",
    " --make-bad-sector Deliberately corrupt a sector directly on the media (VERY DANGEROUS)",
    " --offset          use with -t, to begin timings at given offset (in GiB) from start of drive",
    " --prefer-ata12    Use 12-byte (instead of 16-byte) SAT commands when possible",
    " --read-sector     Read and dump (in hex) a sector directly from the media",
    " --repair-sector   Alias for the --write-sector option (VERY DANGEROUS)",
    " --sanitize-antifreeze-lock  Block sanitize-freeze-lock command until next power cycle",
    " --sanitize-block-erase      Start block erase operation",
    " --sanitize-crypto-scramble  Change the internal encryption keys that used for used data",
    " --sanitize-freeze-lock      Lock drive's sanitize features until next power cycle",
    " --sanitize-overwrite  PATTERN  Overwrite the internal media with constant PATTERN",
    " --sanitize-overwrite-passes COUNT  Number of overwrite passes from 0 to 7, default 0 means 16 passes",
    " --sanitize-status           Show sanitize status information",
    " --security-help             Display help for ATA security commands",
    " --set-sector-size           Change logical sector size of drive",
    " --trim-sector-ranges        Tell SSD firmware to discard unneeded data sectors: lba:count ..",
    " --trim-sector-ranges-stdin  Same as above, but reads lba:count pairs from stdin",
    " --verbose                   Display extra diagnostics from some commands",
    " --write-sector              Repair/overwrite a (possibly bad) sector directly on the media (VERY DANGEROUS)",
];

/// Options of ours, shown by `--help` after hdparm's list (and documented in hdparm.8).
const EXTENSION_LINES: &[&str] = &[
    "",
    "Options of hdparm-rs (not in hdparm 9.65):",
    " --help            Display this usage text with the hdparm-rs options",
    " --json            Print reports as JSON (versioned; see hdparm(8))",
    " --bench           Benchmark reads: repeated O_DIRECT trials at a queue depth",
    " --bench-trials N  Number of trials (default 5)",
    " --bench-depth N   Queue depth (default 32)",
    " --bench-bs N      Block size in bytes, K or M suffix allowed (default 2M)",
    " --bench-seconds N Seconds per trial (default 3)",
    " --bench-random    Random offsets instead of sequential reads",
    "",
    "The hdparm 2.0 form is accepted too: 'hdparm DEVICE [MULTCOUNT [UNMASK]]' sets the",
    "multiple-sector count and the unmask-irq flag, and 'hdparm DEVICE' shows the settings.",
];

/// Writes the usage text. `clue` is printed for usage errors (stderr), not for `-h`.
pub fn write_usage(
    out: &mut dyn Write,
    program: &str,
    clue: Option<u8>,
    extended: bool,
) -> io::Result<()> {
    write!(
        out,
        "\n{program} - get/set hard disk parameters - version v9.65, by Mark Lord.\n\n"
    )?;
    if let Some(clue) = clue {
        writeln!(out, "clue={clue}")?;
    }
    write!(out, "Usage:  {program}  [options] [device ...]\n\n")?;
    writeln!(out, "Options:")?;
    for line in OPTION_LINES {
        writeln!(out, "{line}")?;
    }
    if extended {
        for line in EXTENSION_LINES {
            writeln!(out, "{line}")?;
        }
    }
    writeln!(out)
}

/// The lines of `--security-help` (stdout, exit 0) and of a bad security letter (stderr, 22).
const SECURITY_HELP_LINES: &[&str] = &[
    "",
    "ATA Security Commands:",
    " Most of these are VERY DANGEROUS and can destroy all of your data!",
    " Due to bugs in older Linux kernels, use of these commands may even",
    " trigger kernel segfaults or worse.  EXPERIMENT AT YOUR OWN RISK!",
    "",
    " --security-freeze           Freeze security settings until reset.",
    "",
    " --security-set-pass PASSWD  Lock drive, using password PASSWD:",
    "                                  Use 'NULL' to set empty password.",
    "                                  Drive gets locked if user-passwd is selected.",
    " --security-prompt-for-password   Prompt user to enter the drive password.",
    "",
    " --security-unlock   PASSWD  Unlock drive.",
    " --security-disable  PASSWD  Disable drive locking.",
    " --security-erase    PASSWD  Erase a (locked) drive.",
    " --security-erase-enhanced PASSWD   Enhanced-erase a (locked) drive.",
    "",
    " The above four commands may optionally be preceded by these options:",
    " --security-mode  LEVEL      Use LEVEL to select security level:",
    "                                  h   high security (default).",
    "                                  m   maximum security.",
    " --user-master    WHICH      Use WHICH to choose password type:",
    "                                  u   user-password (default).",
    "                                  m   master-password",
];

/// Writes the security help.
pub fn write_security_help(out: &mut dyn Write) -> io::Result<()> {
    for line in SECURITY_HELP_LINES {
        writeln!(out, "{line}")?;
    }
    Ok(())
}
