//! Identify Controller (CNS 01h) and Identify Namespace (CNS 00h) data, 4096 bytes each,
//! decoded into named fields (NVMe Base 2.0 Figure 275; NVM Command Set 1.0 Figure 97).
//!
//! The field names are the specification's abbreviations in lower case, which are also
//! nvme-cli's JSON keys (`nvme id-ctrl -o json`), so that `-I --json`'s `nvme` object can be
//! compared with nvme-cli's key by key. Strings are bytes with their space padding removed.
//!
//! Must not: print; a short or garbage buffer decodes to zeros and odd values, never a panic
//! (the fuzz target `nvme_identify` holds this).

use super::{ascii_field, le_u128, le_u16, le_u32, le_u64};
use serde::Serialize;

/// Identify data is one 4 KiB page.
pub const IDENTIFY_BYTES: usize = 4096;

/// One power state descriptor (32 bytes from byte 2048).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct PowerState {
    /// Maximum power, in units of `max_power_scale` (0: 0.01 W, 1: 0.0001 W).
    pub max_power: u16,
    pub max_power_scale: u8,
    #[serde(rename = "non-operational_state")]
    pub non_operational_state: u8,
    /// Entry and exit latency, microseconds.
    pub entry_lat: u32,
    pub exit_lat: u32,
    pub read_tput: u8,
    pub read_lat: u8,
    pub write_tput: u8,
    pub write_lat: u8,
    pub idle_power: u16,
    pub idle_scale: u8,
    pub active_power: u16,
    pub active_power_work: u8,
    pub active_power_scale: u8,
}

impl PowerState {
    fn decode(b: &[u8]) -> PowerState {
        PowerState {
            max_power: le_u16(b, 0),
            max_power_scale: b[3] & 1,
            non_operational_state: (b[3] >> 1) & 1,
            entry_lat: le_u32(b, 4),
            exit_lat: le_u32(b, 8),
            read_tput: b[12] & 0x1F,
            read_lat: b[13] & 0x1F,
            write_tput: b[14] & 0x1F,
            write_lat: b[15] & 0x1F,
            idle_power: le_u16(b, 16),
            idle_scale: b[18] >> 6,
            active_power: le_u16(b, 20),
            active_power_work: b[22] & 0x7,
            active_power_scale: b[22] >> 6,
        }
    }

    /// Maximum power in watts.
    pub fn max_power_watts(&self) -> f64 {
        let unit = if self.max_power_scale == 1 {
            0.0001
        } else {
            0.01
        };
        f64::from(self.max_power) * unit
    }
}

/// The Identify Controller fields hdparm's jobs use, and those `-I` shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct IdCtrl {
    pub vid: u16,
    pub ssvid: u16,
    #[serde(serialize_with = "bytes_as_string")]
    #[schemars(with = "String")]
    pub sn: Vec<u8>,
    #[serde(serialize_with = "bytes_as_string")]
    #[schemars(with = "String")]
    pub mn: Vec<u8>,
    #[serde(serialize_with = "bytes_as_string")]
    #[schemars(with = "String")]
    pub fr: Vec<u8>,
    pub rab: u8,
    /// IEEE OUI, as nvme-cli prints it (the three bytes, little-endian, as one number).
    pub ieee: u32,
    pub cmic: u8,
    pub mdts: u8,
    pub cntlid: u16,
    /// Version: major in 31:16, minor in 15:8, tertiary in 7:0.
    pub ver: u32,
    pub rtd3r: u32,
    pub rtd3e: u32,
    pub oaes: u32,
    pub ctratt: u32,
    pub cntrltype: u8,
    pub oacs: u16,
    pub acl: u8,
    pub aerl: u8,
    pub frmw: u8,
    pub lpa: u8,
    pub elpe: u8,
    pub npss: u8,
    pub avscc: u8,
    pub apsta: u8,
    /// Warning and critical composite temperature thresholds, kelvin.
    pub wctemp: u16,
    pub cctemp: u16,
    pub mtfa: u16,
    pub hmpre: u32,
    pub hmmin: u32,
    /// Total and unallocated NVM capacity, bytes.
    #[serde(serialize_with = "wide_number")]
    #[schemars(with = "WideNumber")]
    pub tnvmcap: u128,
    #[serde(serialize_with = "wide_number")]
    #[schemars(with = "WideNumber")]
    pub unvmcap: u128,
    pub rpmbs: u32,
    pub edstt: u16,
    pub dsto: u8,
    pub fwug: u8,
    pub kas: u16,
    pub hctma: u16,
    pub mntmt: u16,
    pub mxtmt: u16,
    pub sanicap: u32,
    pub sqes: u8,
    pub cqes: u8,
    pub maxcmd: u16,
    pub nn: u32,
    pub oncs: u16,
    pub fuses: u16,
    pub fna: u8,
    pub vwc: u8,
    pub awun: u16,
    pub awupf: u16,
    pub icsvscc: u8,
    pub nwpc: u8,
    pub acwu: u16,
    pub sgls: u32,
    pub mnan: u32,
    #[serde(serialize_with = "bytes_as_string")]
    #[schemars(with = "String")]
    pub subnqn: Vec<u8>,
    pub psds: Vec<PowerState>,
}

/// A 128-bit counter as a JSON number when it fits in 64 bits (always, for capacities below
/// 16 EiB), else as its decimal string (what nvme-cli prints for all of them): JSON numbers
/// past 2^64 are not portable, and serde_json refuses them.
fn wide_number<S: serde::Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
    match u64::try_from(*v) {
        Ok(n) => s.serialize_u64(n),
        Err(_) => s.serialize_str(&v.to_string()),
    }
}

/// The schema of what [`wide_number`] writes.
#[derive(schemars::JsonSchema)]
#[serde(untagged)]
#[allow(dead_code)]
enum WideNumber {
    Number(u64),
    Decimal(#[schemars(regex(pattern = "^[0-9]+$"))] String),
}

fn bytes_as_string<S: serde::Serializer>(b: &[u8], s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&String::from_utf8_lossy(b))
}

/// Optional Admin Command Support (OACS) bits.
pub mod oacs {
    pub const SECURITY: u16 = 1 << 0;
    pub const FORMAT: u16 = 1 << 1;
    pub const FW_DOWNLOAD: u16 = 1 << 2;
    pub const NS_MGMT: u16 = 1 << 3;
    pub const SELF_TEST: u16 = 1 << 4;
}

/// Optional NVM Command Support (ONCS) bits.
pub mod oncs {
    pub const COMPARE: u16 = 1 << 0;
    pub const WRITE_UNCORRECTABLE: u16 = 1 << 1;
    pub const DSM: u16 = 1 << 2;
    pub const WRITE_ZEROES: u16 = 1 << 3;
    pub const SAVE_SELECT: u16 = 1 << 4;
    pub const RESERVATIONS: u16 = 1 << 5;
    pub const TIMESTAMP: u16 = 1 << 6;
    pub const VERIFY: u16 = 1 << 7;
}

/// Sanitize Capabilities (SANICAP) bits.
pub mod sanicap {
    pub const CRYPTO_ERASE: u32 = 1 << 0;
    pub const BLOCK_ERASE: u32 = 1 << 1;
    pub const OVERWRITE: u32 = 1 << 2;
}

/// Format NVM Attributes (FNA) bits.
pub mod fna {
    /// Format and secure erase apply to all namespaces.
    pub const ALL_NAMESPACES: u8 = 1 << 0;
    pub const SECURE_ERASE_ALL_NAMESPACES: u8 = 1 << 1;
    pub const CRYPTO_ERASE: u8 = 1 << 2;
}

impl IdCtrl {
    /// Decodes 4096 bytes (fewer are read as zero-padded).
    pub fn decode(b: &[u8]) -> IdCtrl {
        let mut page = [0u8; IDENTIFY_BYTES];
        let n = b.len().min(IDENTIFY_BYTES);
        page[..n].copy_from_slice(&b[..n]);
        let b = &page[..];
        let npss = b[263];
        let psds = (0..=usize::from(npss).min(31))
            .map(|i| PowerState::decode(&b[2048 + 32 * i..2048 + 32 * (i + 1)]))
            .collect();
        IdCtrl {
            vid: le_u16(b, 0),
            ssvid: le_u16(b, 2),
            sn: ascii_field(b, 4, 20),
            mn: ascii_field(b, 24, 40),
            fr: ascii_field(b, 64, 8),
            rab: b[72],
            ieee: u32::from(b[73]) | (u32::from(b[74]) << 8) | (u32::from(b[75]) << 16),
            cmic: b[76],
            mdts: b[77],
            cntlid: le_u16(b, 78),
            ver: le_u32(b, 80),
            rtd3r: le_u32(b, 84),
            rtd3e: le_u32(b, 88),
            oaes: le_u32(b, 92),
            ctratt: le_u32(b, 96),
            cntrltype: b[111],
            oacs: le_u16(b, 256),
            acl: b[258],
            aerl: b[259],
            frmw: b[260],
            lpa: b[261],
            elpe: b[262],
            npss,
            avscc: b[264],
            apsta: b[265],
            wctemp: le_u16(b, 266),
            cctemp: le_u16(b, 268),
            mtfa: le_u16(b, 270),
            hmpre: le_u32(b, 272),
            hmmin: le_u32(b, 276),
            tnvmcap: le_u128(b, 280),
            unvmcap: le_u128(b, 296),
            rpmbs: le_u32(b, 312),
            edstt: le_u16(b, 316),
            dsto: b[318],
            fwug: b[319],
            kas: le_u16(b, 320),
            hctma: le_u16(b, 322),
            mntmt: le_u16(b, 324),
            mxtmt: le_u16(b, 326),
            sanicap: le_u32(b, 328),
            sqes: b[512],
            cqes: b[513],
            maxcmd: le_u16(b, 514),
            nn: le_u32(b, 516),
            oncs: le_u16(b, 520),
            fuses: le_u16(b, 522),
            fna: b[524],
            vwc: b[525],
            awun: le_u16(b, 526),
            awupf: le_u16(b, 528),
            icsvscc: b[530],
            nwpc: b[531],
            acwu: le_u16(b, 532),
            sgls: le_u32(b, 536),
            mnan: le_u32(b, 540),
            subnqn: ascii_field(b, 768, 256),
            psds,
        }
    }

    /// The version as `major.minor` (`.tertiary` when not 0); "1.0" for a 1.0 controller,
    /// which reports 0 here (VER is optional before 1.2).
    pub fn version_text(&self) -> String {
        let (major, minor, ter) = (self.ver >> 16, (self.ver >> 8) & 0xFF, self.ver & 0xFF);
        match (major, ter) {
            (0, _) => "1.0".to_string(),
            (_, 0) => format!("{major}.{minor}"),
            _ => format!("{major}.{minor}.{ter}"),
        }
    }

    /// Whether a volatile write cache is present (VWC bit 0).
    pub fn has_volatile_write_cache(&self) -> bool {
        self.vwc & 1 != 0
    }

    /// Whether Autonomous Power State Transitions are supported (APSTA bit 0).
    pub fn has_apst(&self) -> bool {
        self.apsta & 1 != 0
    }

    /// The number of firmware slots (FRMW 3:1) and whether slot 1 is read-only (bit 0).
    pub fn firmware_slots(&self) -> (u8, bool) {
        ((self.frmw >> 1) & 0x7, self.frmw & 1 != 0)
    }

    /// Whether firmware activation without reset is supported (FRMW bit 4).
    pub fn fw_activate_without_reset(&self) -> bool {
        self.frmw & 0x10 != 0
    }
}

/// One LBA format (4 bytes from byte 128 of Identify Namespace).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct LbaFormat {
    /// Metadata bytes per block.
    pub ms: u16,
    /// Data size as a power of two (9: 512 bytes).
    pub ds: u8,
    /// Relative performance (0 best .. 3 degraded).
    pub rp: u8,
}

impl LbaFormat {
    /// The logical block size in bytes (0 for a format not in use, LBADS 0).
    pub fn block_bytes(&self) -> u64 {
        if self.ds == 0 || self.ds >= 64 {
            0
        } else {
            1u64 << self.ds
        }
    }

    pub fn performance_text(&self) -> &'static str {
        ["best", "better", "good", "degraded"][usize::from(self.rp & 3)]
    }
}

/// The Identify Namespace fields `-I` uses.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct IdNs {
    /// Size, capacity and utilisation, logical blocks.
    pub nsze: u64,
    pub ncap: u64,
    pub nuse: u64,
    pub nsfeat: u8,
    /// Number of LBA formats, 0's based.
    pub nlbaf: u8,
    pub flbas: u8,
    pub mc: u8,
    pub dpc: u8,
    pub dps: u8,
    pub nmic: u8,
    pub rescap: u8,
    pub fpi: u8,
    pub dlfeat: u8,
    pub nawun: u16,
    pub nawupf: u16,
    pub nacwu: u16,
    pub nabsn: u16,
    pub nabo: u16,
    pub nabspf: u16,
    pub noiob: u16,
    #[serde(serialize_with = "wide_number")]
    #[schemars(with = "WideNumber")]
    pub nvmcap: u128,
    pub npwg: u16,
    pub npwa: u16,
    pub npdg: u16,
    pub npda: u16,
    pub nows: u16,
    pub anagrpid: u32,
    pub nsattr: u8,
    pub nvmsetid: u16,
    pub endgid: u16,
    /// NGUID and EUI64 as nvme-cli prints them: lower-case hex, no separators.
    pub nguid: String,
    pub eui64: String,
    pub lbafs: Vec<LbaFormat>,
}

fn hex(b: &[u8]) -> String {
    b.iter().map(|x| format!("{x:02x}")).collect()
}

impl IdNs {
    pub fn decode(b: &[u8]) -> IdNs {
        let mut page = [0u8; IDENTIFY_BYTES];
        let n = b.len().min(IDENTIFY_BYTES);
        page[..n].copy_from_slice(&b[..n]);
        let b = &page[..];
        let nlbaf = b[25];
        let lbafs = (0..=usize::from(nlbaf).min(63))
            .map(|i| {
                let v = le_u32(b, 128 + 4 * i);
                LbaFormat {
                    ms: (v & 0xFFFF) as u16,
                    ds: ((v >> 16) & 0xFF) as u8,
                    rp: ((v >> 24) & 0x3) as u8,
                }
            })
            .collect();
        IdNs {
            nsze: le_u64(b, 0),
            ncap: le_u64(b, 8),
            nuse: le_u64(b, 16),
            nsfeat: b[24],
            nlbaf,
            flbas: b[26],
            mc: b[27],
            dpc: b[28],
            dps: b[29],
            nmic: b[30],
            rescap: b[31],
            fpi: b[32],
            dlfeat: b[33],
            nawun: le_u16(b, 34),
            nawupf: le_u16(b, 36),
            nacwu: le_u16(b, 38),
            nabsn: le_u16(b, 40),
            nabo: le_u16(b, 42),
            nabspf: le_u16(b, 44),
            noiob: le_u16(b, 46),
            nvmcap: le_u128(b, 48),
            npwg: le_u16(b, 64),
            npwa: le_u16(b, 66),
            npdg: le_u16(b, 68),
            npda: le_u16(b, 70),
            nows: le_u16(b, 72),
            anagrpid: le_u32(b, 92),
            nsattr: b[99],
            nvmsetid: le_u16(b, 100),
            endgid: le_u16(b, 102),
            nguid: hex(&b[104..120]),
            eui64: hex(&b[120..128]),
            lbafs,
        }
    }

    /// The LBA format in use (FLBAS bits 3:0, and 6:5 above them when there are more than 16).
    pub fn lbaf_in_use(&self) -> u8 {
        let low = self.flbas & 0xF;
        if self.nlbaf >= 16 {
            low | ((self.flbas >> 1) & 0x30)
        } else {
            low
        }
    }

    /// The format in use, if the namespace lists it.
    pub fn current_format(&self) -> Option<&LbaFormat> {
        self.lbafs.get(usize::from(self.lbaf_in_use()))
    }

    /// The logical block size in bytes (512 when the data says nothing usable).
    pub fn block_bytes(&self) -> u64 {
        match self.current_format().map(LbaFormat::block_bytes) {
            Some(n) if n >= 512 => n,
            _ => 512,
        }
    }

    /// Whether metadata is transferred at the end of each block (FLBAS bit 4), else in a
    /// separate buffer.
    pub fn metadata_extended(&self) -> bool {
        self.flbas & 0x10 != 0
    }

    /// Whether deallocated blocks read as zeros (DLFEAT bits 2:0 = 001b).
    pub fn deallocated_reads_zero(&self) -> bool {
        self.dlfeat & 0x7 == 1
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The Identify Controller page of QEMU 7.2's emulated controller, as far as these tests
    /// need it (fields the VM test compares with nvme-cli).
    pub fn qemu_ctrl() -> Vec<u8> {
        let mut b = vec![0u8; IDENTIFY_BYTES];
        b[0..2].copy_from_slice(&0x1b36u16.to_le_bytes());
        b[2..4].copy_from_slice(&0x1af4u16.to_le_bytes());
        b[4..24].copy_from_slice(b"HRSNVME0001         ");
        let mut mn = [b' '; 40];
        mn[..14].copy_from_slice(b"QEMU NVMe Ctrl");
        b[24..64].copy_from_slice(&mn);
        b[64..72].copy_from_slice(b"7.2.0   ");
        b[72] = 6;
        b[73..76].copy_from_slice(&[0x00, 0x54, 0x52]);
        b[77] = 7;
        b[80..84].copy_from_slice(&0x0001_0400u32.to_le_bytes());
        b[256..258].copy_from_slice(&0x000au16.to_le_bytes());
        b[258] = 3;
        b[259] = 3;
        b[260] = 3;
        b[261] = 7;
        b[266..268].copy_from_slice(&343u16.to_le_bytes());
        b[268..270].copy_from_slice(&373u16.to_le_bytes());
        b[319] = 0;
        b[512] = 0x66;
        b[513] = 0x44;
        b[516..520].copy_from_slice(&256u32.to_le_bytes());
        b[520..522].copy_from_slice(&0x015du16.to_le_bytes());
        b[525] = 7;
        b[768..768 + 24].copy_from_slice(b"nqn.2019-08.org.qemu:foo");
        // Power state 0: 25 W, entry/exit latency 16 us.
        b[2048..2050].copy_from_slice(&2500u16.to_le_bytes());
        b[2052..2056].copy_from_slice(&16u32.to_le_bytes());
        b[2056..2060].copy_from_slice(&4u32.to_le_bytes());
        b
    }

    pub fn qemu_ns() -> Vec<u8> {
        let mut b = vec![0u8; IDENTIFY_BYTES];
        let blocks = 2_097_152u64;
        b[0..8].copy_from_slice(&blocks.to_le_bytes());
        b[8..16].copy_from_slice(&blocks.to_le_bytes());
        b[16..24].copy_from_slice(&blocks.to_le_bytes());
        b[24] = 0x14;
        b[25] = 7;
        b[26] = 0;
        b[33] = 0x09;
        b[120..128].copy_from_slice(&[0x52, 0x54, 0, 0, 0, 0, 0, 1]);
        let formats: [(u16, u8); 8] = [
            (0, 9),
            (8, 9),
            (16, 9),
            (64, 9),
            (0, 12),
            (8, 12),
            (16, 12),
            (64, 12),
        ];
        for (i, (ms, ds)) in formats.iter().enumerate() {
            let v = u32::from(*ms) | (u32::from(*ds) << 16);
            b[128 + 4 * i..132 + 4 * i].copy_from_slice(&v.to_le_bytes());
        }
        b
    }

    #[test]
    fn controller_fields_at_their_offsets() {
        let c = IdCtrl::decode(&qemu_ctrl());
        assert_eq!((c.vid, c.ssvid), (0x1b36, 0x1af4));
        assert_eq!(c.sn, b"HRSNVME0001");
        assert_eq!(c.mn, b"QEMU NVMe Ctrl");
        assert_eq!(c.fr, b"7.2.0");
        assert_eq!((c.rab, c.ieee, c.mdts), (6, 0x525400, 7));
        assert_eq!(c.version_text(), "1.4");
        assert_eq!((c.oacs, c.acl, c.aerl, c.frmw, c.lpa), (0xa, 3, 3, 3, 7));
        assert_eq!(c.firmware_slots(), (1, true));
        assert_eq!((c.wctemp, c.cctemp), (343, 373));
        assert_eq!(
            (c.sqes, c.cqes, c.nn, c.oncs, c.vwc),
            (0x66, 0x44, 256, 0x15d, 7)
        );
        assert!(c.has_volatile_write_cache());
        assert!(!c.has_apst());
        assert_eq!(c.subnqn, b"nqn.2019-08.org.qemu:foo");
        assert_eq!(c.psds.len(), 1);
        assert_eq!(c.psds[0].max_power, 2500);
        assert!((c.psds[0].max_power_watts() - 25.0).abs() < 1e-9);
        assert_eq!((c.psds[0].entry_lat, c.psds[0].exit_lat), (16, 4));
    }

    #[test]
    fn power_state_bits() {
        let mut b = vec![0u8; IDENTIFY_BYTES];
        b[263] = 1;
        let p = 2048 + 32;
        b[p..p + 2].copy_from_slice(&350u16.to_le_bytes());
        b[p + 3] = 0b11; // MXPS, NOPS
        b[p + 12] = 0x21; // RRT 1 (reserved bits above)
        b[p + 16..p + 18].copy_from_slice(&7u16.to_le_bytes());
        b[p + 18] = 0x80; // IPS 2
        b[p + 20..p + 22].copy_from_slice(&9u16.to_le_bytes());
        b[p + 22] = 0x42; // APS 1, APW 2
        let c = IdCtrl::decode(&b);
        let ps = &c.psds[1];
        assert_eq!(
            (ps.max_power, ps.max_power_scale, ps.non_operational_state),
            (350, 1, 1)
        );
        assert!((ps.max_power_watts() - 0.035).abs() < 1e-9);
        assert_eq!((ps.read_tput, ps.idle_power, ps.idle_scale), (1, 7, 2));
        assert_eq!(
            (ps.active_power, ps.active_power_work, ps.active_power_scale),
            (9, 2, 1)
        );
    }

    #[test]
    fn capacities_past_64_bits_are_strings() {
        let mut b = qemu_ctrl();
        b[280..288].copy_from_slice(&1_000_204_886_016u64.to_le_bytes());
        b[296 + 8] = 1;
        let v = serde_json::to_value(IdCtrl::decode(&b)).unwrap();
        assert_eq!(v["tnvmcap"], 1_000_204_886_016u64);
        assert_eq!(v["unvmcap"], "18446744073709551616");
    }

    #[test]
    fn version_spellings() {
        let mut b = vec![0u8; 4096];
        assert_eq!(IdCtrl::decode(&b).version_text(), "1.0");
        b[80..84].copy_from_slice(&0x0002_0001u32.to_le_bytes());
        assert_eq!(IdCtrl::decode(&b).version_text(), "2.0.1");
    }

    #[test]
    fn namespace_fields_and_formats() {
        let n = IdNs::decode(&qemu_ns());
        assert_eq!((n.nsze, n.ncap, n.nuse), (2_097_152, 2_097_152, 2_097_152));
        assert_eq!((n.nsfeat, n.nlbaf, n.flbas, n.dlfeat), (0x14, 7, 0, 9));
        assert_eq!(n.lbafs.len(), 8);
        assert_eq!(
            n.lbafs[3],
            LbaFormat {
                ms: 64,
                ds: 9,
                rp: 0
            }
        );
        assert_eq!(n.lbafs[4].block_bytes(), 4096);
        assert_eq!(n.lbaf_in_use(), 0);
        assert_eq!(n.block_bytes(), 512);
        assert!(n.deallocated_reads_zero());
        assert_eq!(n.eui64, "5254000000000001");
        assert_eq!(n.nguid, "00000000000000000000000000000000");
    }

    #[test]
    fn format_in_use_above_16() {
        let mut b = qemu_ns();
        b[25] = 20;
        b[26] = 0x20 | 0x10 | 0x2; // bits 6:5 = 01 -> +16, extended metadata, low 2
        let n = IdNs::decode(&b);
        assert_eq!(n.lbaf_in_use(), 18);
        assert!(n.metadata_extended());
        b[25] = 7;
        assert_eq!(
            IdNs::decode(&b).lbaf_in_use(),
            2,
            "upper bits only with >16 formats"
        );
    }

    #[test]
    fn short_and_garbage_buffers_decode() {
        let c = IdCtrl::decode(&[0xFF; 10]);
        assert_eq!(c.vid, 0xFFFF);
        assert_eq!(c.psds.len(), 1);
        let c = IdCtrl::decode(&[0xFF; 4096]);
        assert_eq!(c.psds.len(), 32);
        let n = IdNs::decode(&[0xFF; 4096]);
        assert_eq!(n.lbafs.len(), 64);
        assert_eq!(n.lbaf_in_use(), 63);
        assert_eq!(n.block_bytes(), 512, "LBADS 255 is not a size");
    }
}
