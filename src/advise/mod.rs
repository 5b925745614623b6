//! `--advise` (ours): what is off about a drive's settings, why it matters, what it risks, and
//! the exact command that changes it. Each rule is a pure function of a recorded [`DriveState`],
//! so every rule is tested over drive states, real drives' IDENTIFY data among them.
//!
//! The rules, and why each one exists:
//! - `dma_off`: the drive lists Ultra DMA modes but none is selected: PIO is a fraction of the
//!   speed and costs CPU;
//! - `slow_link`: the SATA link runs below what both the drive and the port can do (a bad cable
//!   or a forced limit);
//! - `apm_parks_heads`: APM 1..127 lets the drive park its heads, and the load-cycle count shows
//!   it does (the killer of WD Green drives);
//! - `write_cache_off`: the drive's write cache is off, which makes writes several times slower
//!   (on purpose only behind a controller with its own cache, or for some databases);
//! - `small_read_ahead`: a rotating disk with under 128 KiB read-ahead streams poorly;
//! - `ncq_off`: the drive can queue commands (NCQ) but the kernel sends one at a time;
//! - `security_not_frozen`: any program could set a password and lock the drive until the next
//!   power cycle (firmware normally freezes security at boot);
//! - `raid_member_spins_down`: a drive in an md array that lets itself spin down (APM ≤ 127)
//!   delays the whole array when it wakes, and may be dropped from it;
//! - `failing_sectors`: reallocated or pending sectors: back the data up.
//!
//! What this module must not do: ask the system; `exec/modes/advise.rs` fills [`DriveState`].

use crate::ata::identify::Identify;
use crate::ata::smart::{self, Attribute};
use crate::ata::values::Apm;
use serde::Serialize;

/// What is known about one drive (None: could not be read, and the rules that need it are
/// silent).
#[derive(Clone, Debug, Default)]
pub struct DriveState {
    pub device: String,
    pub identify: Option<Identify>,
    /// `queue/rotational` (true: spinning).
    pub rotational: Option<bool>,
    /// Read-ahead in 512-byte sectors (`-a`).
    pub readahead_sectors: Option<u64>,
    /// The kernel's queue depth (`device/queue_depth`).
    pub queue_depth: Option<u32>,
    /// The negotiated link speed and the port's own limit, in Gbit/s.
    pub link_gbps: Option<f64>,
    pub port_max_gbps: Option<f64>,
    pub smart: Option<Vec<Attribute>>,
    /// The md arrays the drive (or a partition of it) belongs to.
    pub raid_arrays: Vec<String>,
}

/// One piece of advice.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Advice {
    /// The rule's stable name (JSON consumers key on it): the schema lists each rule of
    /// [`RULES`].
    #[schemars(extend("enum" = ["failing_sectors", "dma_off", "slow_link", "apm_parks_heads", "raid_member_spins_down", "write_cache_off", "ncq_off", "small_read_ahead", "security_not_frozen"]))]
    pub rule: &'static str,
    /// What is off.
    pub finding: String,
    /// Why it matters.
    pub reason: &'static str,
    /// What changing it risks.
    pub risk: &'static str,
    /// The command that changes it (None where no command can).
    pub command: Option<String>,
}

/// Every rule, in the order they are reported.
const RULES: [fn(&DriveState) -> Option<Advice>; 9] = [
    failing_sectors,
    dma_off,
    slow_link,
    apm_parks_heads,
    raid_member_spins_down,
    write_cache_off,
    ncq_off,
    small_read_ahead,
    security_not_frozen,
];

/// The advice for one drive.
pub fn advise(state: &DriveState) -> Vec<Advice> {
    RULES.iter().filter_map(|rule| rule(state)).collect()
}

/// A head-parking count past which APM's parking is worth stopping: about 300 000 is the rated
/// life of many 2.5" and "green" drives; a tenth of it already means it parks all day.
const LOAD_CYCLES_WORTH_STOPPING: u64 = 30_000;

fn failing_sectors(s: &DriveState) -> Option<Advice> {
    let attrs = s.smart.as_ref()?;
    let reallocated = smart::raw_of(attrs, smart::REALLOCATED_SECTORS).unwrap_or(0) & 0xFFFF_FFFF;
    let pending = smart::raw_of(attrs, smart::PENDING_SECTORS).unwrap_or(0) & 0xFFFF_FFFF;
    (reallocated > 0 || pending > 0).then(|| Advice {
        rule: "failing_sectors",
        finding: format!(
            "{reallocated} reallocated and {pending} pending sectors (SMART 5 and 197)"
        ),
        reason: "the media is failing in places; more sectors usually follow",
        risk: "none in reading this; the data on the drive is what is at risk",
        command: Some(format!(
            "smartctl -t long {}   # then back the data up",
            s.device
        )),
    })
}

fn dma_off(s: &DriveState) -> Option<Advice> {
    let id = s.identify.as_ref()?;
    let udma = id.udma_modes();
    let listed = id.udma_word_valid() && udma & 0x7F != 0;
    let selected = udma & 0x7F00 != 0 || id.mdma_modes() & 0x0700 != 0;
    (listed && !selected).then(|| {
        let best = (0..7).rev().find(|b| udma & (1 << b) != 0).unwrap_or(0);
        Advice {
            rule: "dma_off",
            finding: format!("the drive lists UDMA modes up to udma{best} but uses none"),
            reason: "PIO moves every byte through the CPU at a fraction of DMA's speed",
            risk: "a controller or cable that cannot do the mode corrupts transfers: check dmesg after",
            command: Some(format!("hdparm -d1 -X udma{best} {}", s.device)),
        }
    })
}

fn slow_link(s: &DriveState) -> Option<Advice> {
    let link = s.link_gbps?;
    let drive = s.identify.as_ref()?.sata_max_gbps()?;
    let possible = s.port_max_gbps.map_or(drive, |port| port.min(drive));
    (link + 0.01 < possible).then(|| Advice {
        rule: "slow_link",
        finding: format!("the SATA link runs at {link} Gb/s; the drive and port can do {possible} Gb/s"),
        reason: "a link that trained down usually means a bad cable or connector (or a limit set on the kernel command line)",
        risk: "none in checking; reseat or replace the cable, then look at the link again",
        command: Some(format!(
            "cat /sys/class/ata_link/*/sata_spd; dmesg | grep -i 'SATA link'   # for {}",
            s.device
        )),
    })
}

fn apm_level(s: &DriveState) -> Option<u8> {
    match s.identify.as_ref()?.apm() {
        Apm::Enabled { level, .. } => Some(level),
        _ => None,
    }
}

fn apm_parks_heads(s: &DriveState) -> Option<Advice> {
    let level = apm_level(s)?;
    let cycles = smart::raw_of(s.smart.as_ref()?, smart::LOAD_CYCLE_COUNT)? & 0xFFFF_FFFF;
    ((1..=127).contains(&level) && cycles >= LOAD_CYCLES_WORTH_STOPPING).then(|| Advice {
        rule: "apm_parks_heads",
        finding: format!(
            "APM level {level} lets the drive park its heads, and it has done so {cycles} times"
        ),
        reason: "every park is a load cycle; drives are rated for a few hundred thousand",
        risk: "a little more power and heat while idle",
        command: Some(format!(
            "hdparm -B 254 {}   # and apm = 254 in /etc/hdparm.conf to keep it",
            s.device
        )),
    })
}

fn raid_member_spins_down(s: &DriveState) -> Option<Advice> {
    let level = apm_level(s)?;
    (!s.raid_arrays.is_empty() && (1..=127).contains(&level)).then(|| Advice {
        rule: "raid_member_spins_down",
        finding: format!(
            "the drive is in {} and APM level {level} lets it spin down",
            s.raid_arrays.join(", ")
        ),
        reason: "the array waits for the slowest member to spin up, and md may drop a drive that answers late",
        risk: "more power while idle",
        command: Some(format!("hdparm -B 254 {}", s.device)),
    })
}

fn write_cache_off(s: &DriveState) -> Option<Advice> {
    let id = s.identify.as_ref()?;
    (id.write_cache().enabled() == Some(false)).then(|| Advice {
        rule: "write_cache_off",
        finding: "the drive's write cache is off".into(),
        reason: "every write waits for the media: several times slower",
        risk: "writes in the cache are lost on a power cut unless the file system flushes (ext4 and xfs do, with barriers on)",
        command: Some(format!("hdparm -W1 {}", s.device)),
    })
}

fn ncq_off(s: &DriveState) -> Option<Advice> {
    let id = s.identify.as_ref()?;
    let depth = s.queue_depth?;
    (id.ncq_supported() && depth <= 1).then(|| Advice {
        rule: "ncq_off",
        finding: format!(
            "the drive can queue {} commands (NCQ) but the kernel sends one at a time",
            id.queue_depth()
        ),
        reason: "without queueing the drive cannot reorder random I/O",
        risk: "a few drives have broken NCQ firmware (libata blacklists the known ones)",
        command: Some(format!("hdparm -Q {} {}", id.queue_depth(), s.device)),
    })
}

/// 128 KiB, the kernel's default read-ahead, in 512-byte sectors.
const STREAMING_READ_AHEAD: u64 = 256;

fn small_read_ahead(s: &DriveState) -> Option<Advice> {
    let sectors = s.readahead_sectors?;
    (s.rotational == Some(true) && sectors < STREAMING_READ_AHEAD).then(|| Advice {
        rule: "small_read_ahead",
        finding: format!(
            "read-ahead is {sectors} sectors ({} KiB) on a rotating disk",
            sectors / 2
        ),
        reason: "sequential reads stall between requests; 128 KiB or more keeps the disk streaming",
        risk: "more memory for read-ahead, wasted on purely random access",
        command: Some(format!("hdparm -a 256 {}", s.device)),
    })
}

fn security_not_frozen(s: &DriveState) -> Option<Advice> {
    let security = s.identify.as_ref()?.security_status();
    (security.supported && !security.enabled && !security.frozen).then(|| Advice {
        rule: "security_not_frozen",
        finding: "ATA security is not frozen".into(),
        reason: "any program with access to the device could set a password and lock the drive",
        risk: "none: a frozen drive only refuses password commands until the next power cycle",
        command: Some(format!(
            "hdparm --security-freeze {}   # at every boot: security_freeze in /etc/hdparm.conf",
            s.device
        )),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::identify_hex::parse_identify_hex;
    use std::path::Path;

    fn state(id: Identify) -> DriveState {
        DriveState {
            device: "/dev/sdx".into(),
            identify: Some(id),
            ..DriveState::default()
        }
    }

    fn words(set: &[(usize, u16)]) -> Identify {
        let mut w = [0u16; 256];
        for &(n, v) in set {
            w[n] = v;
        }
        Identify::from_words(w)
    }

    fn rules_of(s: &DriveState) -> Vec<&'static str> {
        advise(s).iter().map(|a| a.rule).collect()
    }

    fn attribute(id: u8, raw: u64) -> Attribute {
        Attribute {
            id,
            value: 100,
            raw,
        }
    }

    #[test]
    fn head_parking_needs_both_a_low_apm_level_and_a_high_count() {
        // APM supported and enabled at 128 (word 83 bit 3, 86 bit 3, 91).
        let apm = |level: u16| words(&[(83, 0x4008), (86, 0x0008), (91, 0x4000 | level)]);
        let mut s = state(apm(96));
        s.smart = Some(vec![attribute(smart::LOAD_CYCLE_COUNT, 450_000)]);
        let advice = advise(&s);
        let parking = advice
            .iter()
            .find(|a| a.rule == "apm_parks_heads")
            .expect("advice");
        assert_eq!(
            parking.command.as_deref(),
            Some("hdparm -B 254 /dev/sdx   # and apm = 254 in /etc/hdparm.conf to keep it")
        );
        assert!(parking.finding.contains("450000 times"));
        s.smart = Some(vec![attribute(smart::LOAD_CYCLE_COUNT, 200)]);
        assert!(!rules_of(&s).contains(&"apm_parks_heads"));
        let mut s = state(apm(254));
        s.smart = Some(vec![attribute(smart::LOAD_CYCLE_COUNT, 450_000)]);
        assert!(!rules_of(&s).contains(&"apm_parks_heads"));
    }

    #[test]
    fn write_cache_queueing_and_security() {
        // Write cache supported (82 bit 5) and off (85 bit 5 clear); NCQ (76 bit 8) with depth
        // 32 (75 = 31); security supported, not frozen (128 bit 0).
        let s = DriveState {
            queue_depth: Some(1),
            ..state(words(&[
                (82, 1 << 5),
                (76, 1 << 8),
                (75, 31),
                (128, 0x0001),
            ]))
        };
        let rules = rules_of(&s);
        assert_eq!(rules, ["write_cache_off", "ncq_off", "security_not_frozen"]);
        let ncq = advise(&s)
            .into_iter()
            .find(|a| a.rule == "ncq_off")
            .unwrap();
        assert_eq!(ncq.command.as_deref(), Some("hdparm -Q 32 /dev/sdx"));
        // Frozen, cache on, queueing on: nothing to say.
        let s = DriveState {
            queue_depth: Some(31),
            ..state(words(&[
                (82, 1 << 5),
                (85, 1 << 5),
                (76, 1 << 8),
                (75, 31),
                (128, 0x0009),
            ]))
        };
        assert!(advise(&s).is_empty(), "{:?}", advise(&s));
    }

    #[test]
    fn links_read_ahead_dma_raid_and_failing_media() {
        // A 6 Gb/s drive (word 76 bits 1..3) on a 6 Gb/s port, linked at 1.5.
        let s = DriveState {
            link_gbps: Some(1.5),
            port_max_gbps: Some(6.0),
            ..state(words(&[(76, 0b1110)]))
        };
        assert_eq!(rules_of(&s), ["slow_link"]);
        let s = DriveState {
            link_gbps: Some(3.0),
            port_max_gbps: Some(3.0),
            ..state(words(&[(76, 0b1110)]))
        };
        assert!(advise(&s).is_empty(), "the port is the limit");
        let s = DriveState {
            rotational: Some(true),
            readahead_sectors: Some(16),
            ..DriveState::default()
        };
        assert_eq!(rules_of(&s), ["small_read_ahead"]);
        // UDMA 0..5 listed (word 88 low bits), none selected, word 53 bit 2: word 88 valid.
        let s = state(words(&[(53, 0x0004), (88, 0x003F)]));
        let dma = advise(&s)
            .into_iter()
            .find(|a| a.rule == "dma_off")
            .expect("dma advice");
        assert_eq!(dma.command.as_deref(), Some("hdparm -d1 -X udma5 /dev/sdx"));
        let s = DriveState {
            raid_arrays: vec!["md0".into()],
            ..state(words(&[(83, 0x4008), (86, 0x0008), (91, 0x4000 | 127)]))
        };
        assert_eq!(rules_of(&s), ["raid_member_spins_down"]);
        let s = DriveState {
            smart: Some(vec![attribute(smart::PENDING_SECTORS, 3)]),
            ..DriveState::default()
        };
        assert_eq!(rules_of(&s), ["failing_sectors"]);
    }

    /// Every real drive's IDENTIFY in ../shared/identify goes through every rule without a
    /// panic, and the rules that need only IDENTIFY answer as its words say.
    #[test]
    fn real_drives() {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/identify");
        let Ok(entries) = std::fs::read_dir(&dir) else {
            assert!(
                std::env::var("HDPARM_RS_REQUIRE_ALL").map_or(true, |v| v != "1"),
                "../shared/identify is missing"
            );
            return;
        };
        let mut drives = 0;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|e| e != "hex") {
                continue;
            }
            let text = std::fs::read(&path).unwrap();
            let Ok(words) = parse_identify_hex(&text) else {
                continue;
            };
            let id = Identify::from_words(words);
            let expect_frozen_advice = {
                let s = id.security_status();
                s.supported && !s.enabled && !s.frozen
            };
            let expect_cache_advice = id.write_cache().enabled() == Some(false);
            let rules = rules_of(&state(id));
            assert_eq!(
                rules.contains(&"security_not_frozen"),
                expect_frozen_advice,
                "{path:?}"
            );
            assert_eq!(
                rules.contains(&"write_cache_off"),
                expect_cache_advice,
                "{path:?}"
            );
            drives += 1;
        }
        assert!(drives >= 30, "only {drives} drives read");
    }
}
