//! The model's whole state: what a power cycle keeps, what it loses, and the sector data.
//! Serialised as one JSON file so that each scenario can start from a fresh copy, and so that
//! the end state can be compared between the two tools' runs.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Which feature sets the drive has. A drive "lacking the feature" aborts its commands and
/// clears its IDENTIFY bits, as a drive without it would.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Features {
    pub security: bool,
    pub hpa: bool,
    pub amax: bool,
    pub dco: bool,
    pub sanitize: bool,
    pub trim: bool,
    pub download_microcode: bool,
    pub write_uncorrectable: bool,
    pub sector_config: bool,
    pub wd_vendor: bool,
}

impl Features {
    pub fn all() -> Self {
        Features {
            security: true,
            hpa: true,
            amax: false,
            dco: true,
            sanitize: true,
            trim: true,
            download_microcode: true,
            write_uncorrectable: true,
            sector_config: true,
            wd_vendor: true,
        }
    }
    pub fn none() -> Self {
        Features {
            security: false,
            hpa: false,
            amax: false,
            dco: false,
            sanitize: false,
            trim: false,
            download_microcode: false,
            write_uncorrectable: false,
            sector_config: false,
            wd_vendor: false,
        }
    }
}

/// How the SCSI side answers (a libata disk, or a USB-SATA bridge).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Personality {
    /// "descriptor" (libata, hdparm's expectation) or "fixed" (SAT's fixed format).
    pub sense: String,
    /// "ata" (vendor `ATA     `, like libata) or "usb" (a bridge's own strings).
    pub inquiry: String,
    /// Return the ATA Status Return sense for every pass-through command, not only for
    /// CK_COND or errors (some bridges do; libata does not).
    pub always_sense: bool,
}

/// What an injected fault does to the pass-through command it hits.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "lowercase")]
pub enum FaultKind {
    /// The drive aborts the command (ERR, ABRT) without carrying it out.
    Abort,
    /// The drive carries the command out and answers `secs` late.
    Delay,
    /// The drive never answers: the target holds the command `secs`, then reports what a
    /// SATL reports for a drive that did not answer (ABORTED COMMAND, LOGICAL UNIT
    /// COMMUNICATION TIME-OUT). A host whose own time-out is shorter gives up first (the
    /// kernel's SG_IO time-out: DID_TIME_OUT). Not carried out.
    Timeout,
    /// A bus reset interrupts the command: not carried out, the drive is reset (what ACS keeps
    /// over a hardware reset, as [`State::power_cycle`]), and the command ends with UNIT
    /// ATTENTION, POWER ON, RESET, OR BUS DEVICE RESET OCCURRED.
    Reset,
    /// The drive is pulled out: the LUN is removed from the SCSI target (the kernel deletes
    /// the disk) and the command ends with LOGICAL UNIT NOT SUPPORTED. Not carried out.
    Unplug,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            FaultKind::Abort => "abort",
            FaultKind::Delay => "delay",
            FaultKind::Timeout => "timeout",
            FaultKind::Reset => "reset",
            FaultKind::Unplug => "unplug",
        }
    }
}

/// A fault to inject into the pass-through commands matching `command` (and `feature`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Fault {
    pub command: u8,
    pub feature: Option<u16>,
    pub kind: FaultKind,
    /// Delay, or how long a time-out holds the command.
    pub secs: u64,
    /// Only the nth matching command (1-based), once: "in the middle" of a sequence. None:
    /// every matching command.
    #[serde(default)]
    pub nth: Option<u32>,
    /// Matching commands seen so far (for `nth`).
    #[serde(default)]
    pub seen: u32,
}

impl Fault {
    /// Counts a command; whether the fault hits it.
    pub fn hits(&mut self, command: u8, feature: u16) -> bool {
        if self.command != command || self.feature.is_some_and(|f| f != feature) {
            return false;
        }
        self.seen += 1;
        self.nth.is_none_or(|n| n == self.seen)
    }
}

/// ACS security: passwords, enabled/locked/frozen, the attempt counter.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Security {
    pub user_password: Option<String>,
    pub master_password: String,
    pub master_revision: u16,
    pub enabled: bool,
    pub locked: bool,
    pub frozen: bool,
    pub level_max: bool,
    pub attempts_left: u8,
    /// SECURITY ERASE PREPARE was the previous command.
    pub erase_prepared: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Sanitize {
    pub frozen: bool,
    pub antifreeze: bool,
    /// The operation in progress: "block-erase", "crypto-scramble", "overwrite".
    pub operation: Option<String>,
    pub overwrite_pattern: u32,
    /// Status queries left until the operation ends (the model's clock: see `ata::sanitize`).
    pub steps_left: u32,
    pub steps_total: u32,
    pub last_completed_ok: bool,
    pub failed: bool,
    /// Status queries an operation lasts (`ctl set sanitize_steps=N`); 0: the default, 3.
    #[serde(default)]
    pub steps_setting: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Firmware {
    pub revision: String,
    /// Blocks received in the current segmented download.
    pub received_blocks: u32,
    /// Blocks the image declares (its header), once the first segment arrived.
    pub expected_blocks: Option<u32>,
    pub downloads_completed: u32,
    pub digest: Option<String>,
    #[serde(default)]
    pub image: Vec<u8>,
}

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Wd {
    pub vsc_enabled: bool,
    /// The key sector's action: 1 read, 2 write.
    pub key_action: Option<u8>,
    pub idle3: u8,
}

// The SCSI-only disk's state (`drive-model new --scsi-only`), which `scsi_disk` answers from.

/// The mode page values the host can change (current or saved).
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
pub struct ModeValues {
    pub wce: bool,
    pub dra: bool,
    pub idle_a: bool,
    /// 100 ms units.
    pub idle_a_timer: u32,
    pub standby_z: bool,
    /// 100 ms units (`-S`'s timer).
    pub standby_z_timer: u32,
}

impl ModeValues {
    pub fn defaults() -> Self {
        ModeValues {
            wce: true,
            dra: false,
            idle_a: false,
            idle_a_timer: 20,
            standby_z: false,
            standby_z_timer: 9000,
        }
    }
}

/// The power condition (SPC-5 §5.12), and how it was entered.
#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Power {
    Active,
    IdleA,
    IdleB,
    IdleC,
    StandbyY,
    StandbyZ,
    /// START=0: medium access gets NOT READY, INITIALIZING COMMAND REQUIRED until a START.
    Stopped,
}

/// What a SCSI-only disk keeps beside the sector data, IDENTIFY and faults of [`State`].
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct ScsiDisk {
    pub vendor: String,
    pub product: String,
    pub serial: String,
    /// VPD 83h's NAA 5 designator.
    pub wwn: u64,
    pub rotation_rpm: u16,
    pub current: ModeValues,
    pub saved: ModeValues,
    pub power: Power,
    /// START STOP UNIT ACTIVE/IDLE/STANDBY took power control from the device server (its
    /// timers) until a LU_CONTROL; the FORCE_*_0 conditions leave it.
    pub power_by_command: bool,
    pub temperature_c: u8,
    pub reference_c: u8,
    /// The sense the next command gets instead of running (a unit attention), SPC-5 §5.14.
    pub unit_attention: Option<(u8, u8, u8)>,
    /// The running sanitize: (what, start ms, end ms); its pattern in `sanitize_pattern`.
    pub sanitize: Option<(u8, u64, u64)>,
    pub sanitize_pattern: Vec<u8>,
    /// How long a sanitize lasts.
    pub sanitize_ms: u64,
    /// The last sanitize failed (`ctl set sanitize_failed`): medium access gets MEDIUM
    /// ERROR, SANITIZE COMMAND FAILED until EXIT FAILURE MODE or a sanitize that succeeds.
    pub sanitize_failed: bool,
    /// The image of WRITE BUFFER mode 0Eh, waiting for a mode 0Fh.
    pub deferred: Vec<u8>,
    /// Activated downloads (modes 05h, 07h's last segment, 0Fh).
    pub activations: u32,
}

impl ScsiDisk {
    pub fn new() -> Self {
        ScsiDisk {
            vendor: "HDPARMRS".into(),
            product: "MODEL SAS DISK".into(),
            serial: "HRS-MODEL-0001".into(),
            wwn: 0x5000_c500_a1b2_c407,
            rotation_rpm: 10_000,
            current: ModeValues::defaults(),
            saved: ModeValues::defaults(),
            power: Power::Active,
            power_by_command: false,
            temperature_c: 35,
            reference_c: 60,
            unit_attention: None,
            sanitize: None,
            sanitize_pattern: Vec::new(),
            sanitize_ms: SANITIZE_MS,
            sanitize_failed: false,
            deferred: Vec::new(),
            activations: 0,
        }
    }

    /// A power cycle: the saved mode values become current, the disk is active, a deferred
    /// image is dropped, a running sanitize goes on; the next command gets POWER ON (29/00).
    pub fn power_cycle(&mut self) {
        self.current = self.saved;
        self.power = Power::Active;
        self.power_by_command = false;
        self.deferred.clear();
        self.unit_attention = Some((0x06, 0x29, 0x00));
    }
}

impl Default for ScsiDisk {
    fn default() -> Self {
        Self::new()
    }
}

/// How long a sanitize lasts by default: long enough for a test to poll it.
pub const SANITIZE_MS: u64 = 3000;

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct State {
    /// The real drive's IDENTIFY words the model starts from.
    pub base_identify: Vec<u16>,
    pub base_name: String,
    pub features: Features,
    pub personality: Personality,
    pub faults: Vec<Fault>,
    /// Sectors the factory configuration has (DCO restore goes back to it).
    pub factory_sectors: u64,
    /// DCO's max LBA (the native max).
    pub dco_max_lba: u64,
    pub dco_frozen: bool,
    /// The non-volatile max LBA (HPA or AMAX).
    pub max_lba: u64,
    /// A volatile SET MAX, lost at power cycle.
    pub max_lba_volatile: Option<u64>,
    pub set_max_frozen: bool,
    pub set_max_nonvolatile_done: bool,
    pub last_was_read_native: bool,
    pub security: Security,
    pub sanitize: Sanitize,
    pub firmware: Firmware,
    pub wd: Wd,
    /// Index of the active Sector Configuration descriptor (log 0x2F).
    pub sector_config: u8,
    /// The descriptors' command checkwords (descriptor 0: 512-byte sectors, 1: 4096).
    #[serde(default = "default_checks")]
    pub sector_config_checks: Vec<u16>,
    /// 0xFF active/idle, 0x00 standby, 0x01 sleep (needs a reset).
    pub power: u8,
    pub write_cache: bool,
    pub look_ahead: bool,
    pub apm: Option<u8>,
    pub aam: Option<u8>,
    pub smart_enabled: bool,
    pub multiple: u8,
    pub ticks: u64,
    pub power_cycles: u64,
    /// Written sectors (hex), newest content.
    pub sectors: BTreeMap<u64, String>,
    /// Trimmed ranges (start, count): read zero (deterministic, RZAT). Sorted, and merged
    /// where they touch (see [`State::trim`]).
    pub trimmed: Vec<(u64, u64)>,
    /// After an erase or sanitize, every sector not written since reads this 32-bit pattern.
    pub wiped: Option<u32>,
    /// A pattern of any length that every sector not written since reads, cycled (SCSI
    /// SANITIZE OVERWRITE's initialization pattern); takes precedence over `wiped`.
    #[serde(default)]
    pub wiped_bytes: Option<String>,
    pub uncorrectable: BTreeSet<u64>,
    /// A SCSI-only disk (a SAS drive, `drive-model new --scsi-only`): ATA PASS-THROUGH is
    /// refused and the SCSI commands are answered by `scsi_disk`. None: a SATA disk behind a
    /// SATL (libata or a USB bridge), as before.
    #[serde(default)]
    pub scsi: Option<ScsiDisk>,
}

pub const SECTOR: usize = 512;

pub fn default_checks() -> Vec<u16> {
    vec![0x1E2D, 0x4B5A]
}
/// 1 GiB, like the bench's other disks.
pub const DEFAULT_SECTORS: u64 = 2 * 1024 * 1024;
pub const ATTEMPTS: u8 = 5;

impl State {
    pub fn new(base_identify: Vec<u16>, base_name: &str, sectors: u64) -> Self {
        let rev = fw_rev_of(&base_identify);
        State {
            base_identify,
            base_name: base_name.to_string(),
            features: Features::all(),
            personality: Personality {
                sense: "descriptor".into(),
                inquiry: "ata".into(),
                always_sense: false,
            },
            faults: Vec::new(),
            factory_sectors: sectors,
            dco_max_lba: sectors - 1,
            dco_frozen: false,
            max_lba: sectors - 1,
            max_lba_volatile: None,
            set_max_frozen: false,
            set_max_nonvolatile_done: false,
            last_was_read_native: false,
            security: Security {
                user_password: None,
                master_password: hex(&[0u8; 32]),
                master_revision: 0xFFFE,
                enabled: false,
                locked: false,
                frozen: false,
                level_max: false,
                attempts_left: ATTEMPTS,
                erase_prepared: false,
            },
            sanitize: Sanitize {
                frozen: false,
                antifreeze: false,
                operation: None,
                overwrite_pattern: 0,
                steps_left: 0,
                steps_setting: 0,
                steps_total: 0,
                last_completed_ok: false,
                failed: false,
            },
            firmware: Firmware {
                revision: rev,
                received_blocks: 0,
                expected_blocks: None,
                downloads_completed: 0,
                digest: None,
                image: Vec::new(),
            },
            wd: Wd {
                vsc_enabled: false,
                key_action: None,
                idle3: 0x50,
            },
            sector_config: 0,
            sector_config_checks: default_checks(),
            power: 0xFF,
            write_cache: true,
            look_ahead: true,
            apm: None,
            aam: None,
            smart_enabled: true,
            multiple: 16,
            ticks: 0,
            power_cycles: 0,
            sectors: BTreeMap::new(),
            trimmed: Vec::new(),
            wiped: None,
            wiped_bytes: None,
            uncorrectable: BTreeSet::new(),
            scsi: None,
        }
    }

    /// The max LBA the host sees now.
    pub fn current_max_lba(&self) -> u64 {
        self.max_lba_volatile.unwrap_or(self.max_lba)
    }

    /// A power cycle (or hard reset): what ACS says survives, survives.
    pub fn power_cycle(&mut self) {
        self.power_cycles += 1;
        self.max_lba_volatile = None;
        self.set_max_frozen = false;
        self.set_max_nonvolatile_done = false;
        self.last_was_read_native = false;
        self.dco_frozen = false;
        let s = &mut self.security;
        s.frozen = false;
        s.erase_prepared = false;
        s.attempts_left = ATTEMPTS;
        s.locked = s.enabled;
        self.sanitize.frozen = false;
        self.sanitize.antifreeze = false;
        self.wd.vsc_enabled = false;
        self.wd.key_action = None;
        self.power = 0xFF;
        self.firmware.received_blocks = 0;
        self.firmware.expected_blocks = None;
        self.firmware.image.clear();
    }

    pub fn read_sector(&self, lba: u64) -> Vec<u8> {
        if let Some(h) = self.sectors.get(&lba) {
            if let Some(v) = unhex(h) {
                return v;
            }
        }
        if self.in_trimmed(lba) {
            return vec![0; SECTOR];
        }
        if let Some(p) = self.wiped_bytes.as_deref().and_then(unhex) {
            if !p.is_empty() {
                return p.iter().copied().cycle().take(SECTOR).collect();
            }
        }
        if let Some(p) = self.wiped {
            return p
                .to_le_bytes()
                .iter()
                .copied()
                .cycle()
                .take(SECTOR)
                .collect();
        }
        base_sector(lba)
    }

    pub fn write_sector(&mut self, lba: u64, data: &[u8]) {
        let mut v = data.to_vec();
        v.resize(SECTOR, 0);
        self.uncorrectable.remove(&lba);
        self.sectors.insert(lba, hex(&v));
    }

    /// Trims `count` sectors from `start`. The trimmed ranges stay sorted, with the ones
    /// that touch or overlap merged: a drive trimmed by millions of ranges (issue 21's
    /// `--trim-sector-ranges-stdin` bench) keeps a small state, and the state file written
    /// after every command stays small with it.
    pub fn trim(&mut self, start: u64, count: u64) {
        if count == 0 {
            return;
        }
        let end = start + count;
        let written: Vec<u64> = self.sectors.range(start..end).map(|(&l, _)| l).collect();
        for l in written {
            self.sectors.remove(&l);
        }
        // the first range that ends at or after `start`, and those from there that begin
        // at or before the new range's end: all merge into one
        let first = self.trimmed.partition_point(|&(a, n)| a + n < start);
        let (mut lo, mut hi) = (start, end);
        let mut past = first;
        while let Some(&(a, n)) = self.trimmed.get(past) {
            if a > hi {
                break;
            }
            lo = lo.min(a);
            hi = hi.max(a + n);
            past += 1;
        }
        self.trimmed.splice(first..past, [(lo, hi - lo)]);
    }

    /// Whether `lba` lies in a trimmed range (written or not since).
    pub fn in_trimmed(&self, lba: u64) -> bool {
        let after = self.trimmed.partition_point(|&(a, _)| a <= lba);
        after > 0 && {
            let (a, n) = self.trimmed[after - 1];
            lba < a + n
        }
    }

    /// Everything reads `pattern` (0 for an erase), as after a whole-drive erase.
    pub fn wipe(&mut self, pattern: u32) {
        self.sectors.clear();
        self.trimmed.clear();
        self.uncorrectable.clear();
        self.wiped = Some(pattern);
        self.wiped_bytes = None;
    }

    /// Everything reads `pattern` repeated (any length), as after SANITIZE OVERWRITE.
    pub fn wipe_with(&mut self, pattern: &[u8]) {
        self.wipe(0);
        self.wiped_bytes = Some(hex(pattern));
    }
}

/// What a never-written sector holds: sector 0 like the bench's other disks (a tag, then the
/// bytes 0..255), every other sector a tag naming its LBA, so that zeroing shows.
pub fn base_sector(lba: u64) -> Vec<u8> {
    let tag = if lba == 0 {
        "HDPARM-RS-VM model SECTOR 0 ".to_string()
    } else {
        format!("MODEL LBA {lba} ")
    };
    let mut v: Vec<u8> = tag.bytes().cycle().take(256).collect();
    if lba == 0 {
        v.extend(0..=255u8);
    } else {
        v.extend(tag.bytes().cycle().take(256));
    }
    v
}

pub fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

pub fn unhex(s: &str) -> Option<Vec<u8>> {
    if s.len() & 1 != 0 {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok())
        .collect()
}

/// FNV-1a 64: a short digest for the log and the end state.
pub fn digest(b: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &x in b {
        h ^= u64::from(x);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// IDENTIFY words 23-26 as text (the firmware revision, byte-swapped pairs).
pub fn fw_rev_of(w: &[u16]) -> String {
    let mut s = String::new();
    for &x in w.get(23..27).unwrap_or(&[]) {
        s.push(char::from((x >> 8) as u8));
        s.push(char::from((x & 0xFF) as u8));
    }
    s.trim_end().to_string()
}

/// Parses hdparm's `--Istdout` layout: 256 four-digit hex words.
pub fn parse_identify_hex(text: &str) -> Result<Vec<u16>, String> {
    let w: Vec<u16> = text
        .split_whitespace()
        .filter(|t| t.len() == 4)
        .map(|t| u16::from_str_radix(t, 16).map_err(|e| format!("{t}: {e}")))
        .collect::<Result<_, _>>()?;
    if w.len() != 256 {
        return Err(format!("{} words, not 256", w.len()));
    }
    Ok(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_follow_writes_trims_and_wipes() {
        let mut s = State::new(vec![0; 256], "t", 1000);
        assert_eq!(&s.read_sector(5)[..12], b"MODEL LBA 5 ");
        s.write_sector(5, &[7; 512]);
        assert_eq!(s.read_sector(5), vec![7; 512]);
        s.trim(4, 2);
        assert_eq!(s.read_sector(5), vec![0; 512]);
        assert_eq!(&s.read_sector(6)[..12], b"MODEL LBA 6 ");
        s.wipe(0);
        assert_eq!(s.read_sector(6), vec![0; 512]);
    }

    #[test]
    fn trimmed_ranges_stay_sorted_and_merge_where_they_touch() {
        let mut s = State::new(vec![0; 256], "t", 1000);
        for (start, count) in [
            (10, 2),
            (20, 1),
            (5, 1),
            (12, 3),
            (30, 5),
            (19, 2),
            (32, 10),
        ] {
            s.trim(start, count);
        }
        assert_eq!(s.trimmed, [(5, 1), (10, 5), (19, 2), (30, 12)]);
        // a range spanning several merges them all
        s.trim(4, 20);
        assert_eq!(s.trimmed, [(4, 20), (30, 12)]);
        for (lba, trimmed) in [
            (3, false),
            (4, true),
            (23, true),
            (24, false),
            (41, true),
            (42, false),
        ] {
            assert_eq!(s.in_trimmed(lba), trimmed, "LBA {lba}");
        }
        // a million touching one-sector ranges are one range
        for lba in 100..1_000_100 {
            s.trim(lba % 1000 + 100, 1);
        }
        assert_eq!(s.trimmed, [(4, 20), (30, 12), (100, 1000)]);
    }

    #[test]
    fn power_cycle_locks_an_enabled_drive_and_drops_volatile_state() {
        let mut s = State::new(vec![0; 256], "t", 1000);
        s.security.enabled = true;
        s.security.frozen = true;
        s.max_lba_volatile = Some(10);
        s.power_cycle();
        assert!(s.security.locked && !s.security.frozen);
        assert_eq!(s.current_max_lba(), 999);
    }
}
