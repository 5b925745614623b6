//! The `-i` report: the identity the kernel keeps for a drive (HDIO_GET_IDENTITY), decoded
//! into a typed [`KernelIdentityReport`] and rendered in hdparm 9.65's layout (reference §5.2).
//!
//! Owns: the decode of the 512-byte HDIO_GET_IDENTITY buffer and the text. Unlike `-I`'s
//! IDENTIFY data, the kernel has already put the string fields (serial, firmware, model) into
//! natural byte order, so they are read as plain bytes; the other words are little-endian.
//!
//! Must not: call the ioctl (that is `device`), or guess the multiple-sector count: the caller
//! passes what hdparm would put in word 59 (its `multcount`, from HDIO_GET_MULTCOUNT or
//! IDENTIFY), or `None` when it has none.

use std::io::{self, Write};

use schemars::JsonSchema;
use serde::{Serialize, Serializer};

use super::identify::{IdText, BUFFER_TYPES, MINOR_VERSIONS};
use crate::ata::identify::Identify;
use crate::ata::values::Apm;

/// Word 0 bit names; bit 0 has none (hdparm prints nothing for it).
const CONFIG_NAMES: [&str; 16] = [
    "",
    "HardSect",
    "SoftSect",
    "NotMFM",
    "HdSw>15uSec",
    "SpinMotCtl",
    "Fixed",
    "Removable",
    "DTR<=5Mbs",
    "DTR>5Mbs",
    "DTR>10Mbs",
    "RotSpdTol>.5%",
    "dStbOff",
    "TrkOff",
    "FmtGapReq",
    "nonMagnetic",
];

/// Word 81 text for codes 0..=31, as `-i` prints it after "Drive conforms to: " (the same
/// table `-I` uses; `-i` stops at 31).
fn minor_text(code: u16) -> &'static str {
    if code <= 31 {
        MINOR_VERSIONS[usize::from(code)].0
    } else {
        "unknown"
    }
}

/// -i: the identity the kernel keeps (its keys: `report::identify_json`).
// A key left out when unknown is `with` its inner type in the schema: it is never null.
#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct KernelIdentityReport {
    /// Model (words 27-46), serial (10-19), firmware (23-26): up to the first NUL, leading and
    /// trailing spaces removed.
    pub model: IdText,
    pub firmware: IdText,
    pub serial: IdText,
    /// Word 0 bit names ("Config={ ... }"), bits 1-15.
    pub config: Vec<&'static str>,
    pub raw_cylinders: u16,
    pub raw_heads: u16,
    pub raw_sectors: u16,
    pub track_size: u16,
    pub sector_size: u16,
    pub ecc_bytes: u16,
    /// Word 20: a name, or the number when above 3.
    pub buffer_type: String,
    /// Word 21 / 2; `None` prints "unknown".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u16")]
    pub buffer_size_kbytes: Option<u16>,
    pub max_mult_sect: u8,
    /// "MultSect=": shown when max_mult_sect is non-zero.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "MultSect")]
    pub mult_sect: Option<MultSect>,
    /// " (maybe):" before CurCHS: word 53 bit 0 clear.
    pub current_chs_uncertain: bool,
    pub current_cylinders: u16,
    pub current_heads: u16,
    pub current_sectors: u16,
    pub current_capacity_sectors: u32,
    pub lba: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "u64")]
    pub lba_sectors: Option<u64>,
    /// `on/off`, `yes` or `no`.
    #[schemars(extend("enum" = ["on/off", "yes", "no"]))]
    pub iordy: &'static str,
    /// tPIO={min,w/IORDY} (ns): [min, with IORDY].
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "[u16; 2]")]
    pub pio_cycle_ns: Option<[u16; 2]>,
    /// tDMA={min,rec} (ns): [min, recommended].
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "[u16; 2]")]
    pub dma_cycle_ns: Option<[u16; 2]>,
    /// PIO mode names (none is ever marked active).
    #[schemars(inner(regex(pattern = "^pio[0-9?]$")))]
    pub pio_modes: Vec<String>,
    /// DMA and UDMA modes, each with whether it is the active one (the text's `*`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dma_modes: Vec<Mode>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub udma_modes: Vec<Mode>,
    pub advanced_pm: bool,
    /// The APM detail after "AdvancedPM=yes": `disabled`, `unknown`, or the level.
    #[serde(skip_serializing_if = "Option::is_none", serialize_with = "apm_json")]
    #[schemars(with = "ApmJson")]
    pub advanced_pm_level: Option<Apm>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "bool")]
    pub write_cache_enabled: Option<bool>,
    /// "Drive conforms to:".
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(with = "Conformance")]
    pub conforms_to: Option<Conformance>,
}

/// One DMA or UDMA mode of `-i`: its name, and whether it is selected (the text's `*`).
#[derive(Clone, Debug, Serialize, PartialEq, Eq, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Mode {
    pub name: String,
    pub selected: bool,
    /// False for a mode marked selected whose supported bit is clear: hdparm prints a lone
    /// `*` for it, glued to the next name. Present only then.
    #[serde(skip_serializing_if = "is_true")]
    #[schemars(extend("const" = false))]
    pub supported: bool,
}

fn is_true(b: &bool) -> bool {
    *b
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(deny_unknown_fields)]
pub enum MultSect {
    /// Word 59 bit 8 clear: printed `?N?`.
    Invalid {
        value: u8,
    },
    Off,
    On {
        value: u8,
    },
}

/// `-i`'s JSON for APM (present only when supported): `{"kind":"disabled"}`,
/// `{"kind":"unknown"}` (word 91 not marked valid) or `{"kind":"level","level":N}`.
fn apm_json<S: Serializer>(apm: &Option<Apm>, serializer: S) -> Result<S::Ok, S::Error> {
    let json = match *apm {
        Some(Apm::Disabled) => Some(ApmJson::Disabled),
        Some(Apm::Enabled {
            level_valid: false, ..
        }) => Some(ApmJson::Unknown),
        Some(Apm::Enabled { level, .. }) => Some(ApmJson::Level { level }),
        Some(Apm::NotSupported) | None => None,
    };
    json.serialize(serializer)
}

/// `advanced_pm_level`, as [`apm_json`] writes it.
#[derive(Serialize, JsonSchema)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[schemars(deny_unknown_fields)]
enum ApmJson {
    Disabled,
    Unknown,
    Level { level: u8 },
}

#[derive(Clone, Debug, Serialize, JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct Conformance {
    /// The word 81 text, or `unknown`.
    pub minor: &'static str,
    /// ATA/ATAPI versions from word 80 bits 0-7 (hdparm prints bit numbers).
    pub ata_versions: Vec<u8>,
}

/// hdparm's strndup + strip: bytes up to the first NUL, without leading/trailing spaces.
fn text_field(raw: &[u8]) -> IdText {
    let end = raw.iter().position(|&b| b == 0).unwrap_or(raw.len());
    let s = &raw[..end];
    let start = s.iter().position(|&b| b != b' ').unwrap_or(s.len());
    let stop = s.iter().rposition(|&b| b != b' ').map_or(start, |i| i + 1);
    IdText(s[start..stop.max(start)].to_vec())
}

/// Decodes the HDIO_GET_IDENTITY buffer. `multcount` is what hdparm stores in word 59 before
/// printing (`multcount | 0x100`), or `None` to clear word 59's valid bit.
pub fn kernel_identity_report(raw: &[u8; 512], multcount: Option<u16>) -> KernelIdentityReport {
    let id = Identify::from_le_bytes(raw).with_multcount(multcount);

    let mut pio_modes = Vec::new();
    let t_pio = id.pio_timing_mode();
    if t_pio <= 5 {
        pio_modes.push("pio0".to_string());
        if t_pio >= 1 {
            pio_modes.push("pio1".to_string());
        }
        if t_pio >= 2 {
            pio_modes.push("pio2".to_string());
        }
    }
    let starred = |word: u16, sel: u16, sup: u16, name: &str, list: &mut Vec<Mode>| {
        // hdparm appends "*" and the name separately: a selected bit without its supported
        // bit leaves a lone "*" that glues onto the next name.
        let selected = word & sel != 0;
        let supported = word & sup != 0;
        if supported || selected {
            list.push(Mode {
                name: name.to_string(),
                selected,
                supported,
            });
        }
    };
    let mut dma_modes = Vec::new();
    if id.dma_supported() && (id.sdma_modes() | id.mdma_modes()) != 0 {
        for (word, prefix) in [(id.sdma_modes(), "sdma"), (id.mdma_modes(), "mdma")] {
            starred(word, 0x100, 1, &format!("{prefix}0"), &mut dma_modes);
            starred(word, 0x200, 2, &format!("{prefix}1"), &mut dma_modes);
            starred(word, 0x400, 4, &format!("{prefix}2"), &mut dma_modes);
            starred(word, 0xF800, 0xF8, &format!("{prefix}?"), &mut dma_modes);
        }
    }
    let iordy = if id.iordy_supported() {
        if id.iordy_can_be_disabled() {
            "on/off"
        } else {
            "yes"
        }
    } else {
        "no"
    };
    let mut udma_modes = Vec::new();
    let mut pio_cycle_ns = None;
    if id.iordy_supported() || id.timing_words_valid() {
        if id.timing_words_valid() {
            pio_cycle_ns = Some(id.pio_cycle_ns());
            let advanced = id.advanced_pio_modes();
            if advanced & 1 != 0 {
                pio_modes.push("pio3".to_string());
            }
            if advanced & 2 != 0 {
                pio_modes.push("pio4".to_string());
            }
            if advanced & !3 != 0 {
                pio_modes.push("pio?".to_string());
            }
        }
        if id.udma_word_valid() {
            for n in 0..7u16 {
                starred(
                    id.udma_modes(),
                    0x100 << n,
                    1 << n,
                    &format!("udma{n}"),
                    &mut udma_modes,
                );
            }
        }
    }
    let apm = id.apm_unchecked();
    let major = id.major_version_word();
    let minor = id.minor_version();
    let conforms_to = (minor != 0 || major != 0).then(|| Conformance {
        minor: minor_text(minor),
        ata_versions: if major != 0 && major != 0xFFFF {
            (0..=7u8).filter(|&i| major & (1 << i) != 0).collect()
        } else {
            Vec::new()
        },
    });
    let (raw_cylinders, raw_heads, raw_sectors) = id.default_chs();
    let (track_size, sector_size) = id.ata1_track_and_sector_bytes();
    let (current_cylinders, current_heads, current_sectors) = id.current_chs();
    let buffer_type = id.buffer_type();
    let buffer_size = id.buffer_size_sectors();
    KernelIdentityReport {
        model: text_field(&raw[54..94]),
        firmware: text_field(&raw[46..54]),
        serial: text_field(&raw[20..40]),
        config: (1..16)
            .filter(|&i| id.general_configuration() & (1 << i) != 0)
            .map(|i| CONFIG_NAMES[i])
            .collect(),
        raw_cylinders,
        raw_heads,
        raw_sectors,
        track_size,
        sector_size,
        ecc_bytes: id.ecc_bytes(),
        buffer_type: BUFFER_TYPES
            .get(usize::from(buffer_type))
            .map_or_else(|| buffer_type.to_string(), |s| s.to_string()),
        buffer_size_kbytes: (buffer_size != 0 && buffer_size != 0xFFFF).then_some(buffer_size / 2),
        max_mult_sect: id.max_multiple_sectors(),
        mult_sect: (id.max_multiple_sectors() != 0).then(|| match id.current_multiple_sectors() {
            None => MultSect::Invalid {
                value: id.current_multiple_sectors_raw(),
            },
            Some(0) => MultSect::Off,
            Some(value) => MultSect::On { value },
        }),
        current_chs_uncertain: !id.current_chs_valid(),
        current_cylinders,
        current_heads,
        current_sectors,
        current_capacity_sectors: id.chs_current_sectors(),
        lba: id.lba_supported(),
        lba_sectors: id.lba_supported().then(|| id.capacity_sectors()),
        iordy,
        pio_cycle_ns,
        dma_cycle_ns: (id.dma_supported() && id.timing_words_valid()).then(|| id.dma_cycle_ns()),
        pio_modes,
        dma_modes,
        udma_modes,
        advanced_pm: apm.is_supported(),
        advanced_pm_level: Some(apm).filter(|apm| apm.is_supported()),
        write_cache_enabled: id.write_cache().enabled(),
        conforms_to,
    }
}

fn modes(list: &[String]) -> String {
    list.iter().map(|m| format!("{m} ")).collect()
}

/// The text of a DMA/UDMA list: `*` before the selected name, each name followed by a space;
/// a selected mode that is not supported is a lone `*` (no name, no space), as hdparm prints.
fn starred_modes(list: &[Mode]) -> String {
    list.iter()
        .map(|m| match (m.supported, m.selected) {
            (false, _) => "*".to_string(),
            (true, true) => format!("*{} ", m.name),
            (true, false) => format!("{} ", m.name),
        })
        .collect()
}

/// Writes the `-i` text (it starts with hdparm's blank line and ends with the legend).
pub fn render_kernel_identity(r: &KernelIdentityReport, out: &mut dyn Write) -> io::Result<()> {
    out.write_all(b"\n Model=")?;
    out.write_all(&r.model.0[..r.model.0.len().min(40)])?;
    out.write_all(b", FwRev=")?;
    out.write_all(&r.firmware.0[..r.firmware.0.len().min(8)])?;
    out.write_all(b", SerialNo=")?;
    out.write_all(&r.serial.0[..r.serial.0.len().min(20)])?;
    out.write_all(b"\n Config={")?;
    for name in &r.config {
        write!(out, " {name}")?;
    }
    out.write_all(b" }\n")?;
    writeln!(
        out,
        " RawCHS={}/{}/{}, TrkSize={}, SectSize={}, ECCbytes={}",
        r.raw_cylinders, r.raw_heads, r.raw_sectors, r.track_size, r.sector_size, r.ecc_bytes
    )?;
    write!(out, " BuffType={}", r.buffer_type)?;
    match r.buffer_size_kbytes {
        Some(kb) => write!(out, ", BuffSize={kb}kB")?,
        None => out.write_all(b", BuffSize=unknown")?,
    }
    write!(out, ", MaxMultSect={}", r.max_mult_sect)?;
    match &r.mult_sect {
        Some(MultSect::Invalid { value }) => write!(out, ", MultSect=?{value}?")?,
        Some(MultSect::Off) => out.write_all(b", MultSect=off")?,
        Some(MultSect::On { value }) => write!(out, ", MultSect={value}")?,
        None => {}
    }
    out.write_all(b"\n")?;
    if r.current_chs_uncertain {
        out.write_all(b" (maybe):")?;
    }
    write!(
        out,
        " CurCHS={}/{}/{}, CurSects={}, LBA={}",
        r.current_cylinders,
        r.current_heads,
        r.current_sectors,
        r.current_capacity_sectors,
        if r.lba { "yes" } else { "no" }
    )?;
    if let Some(n) = r.lba_sectors {
        write!(out, ", LBAsects={n}")?;
    }
    write!(out, "\n IORDY={}", r.iordy)?;
    if let Some([min, iordy]) = r.pio_cycle_ns {
        write!(out, ", tPIO={{min:{min},w/IORDY:{iordy}}}")?;
    }
    if let Some([min, rec]) = r.dma_cycle_ns {
        write!(out, ", tDMA={{min:{min},rec:{rec}}}")?;
    }
    write!(out, "\n PIO modes:  {}", modes(&r.pio_modes))?;
    if !r.dma_modes.is_empty() {
        write!(out, "\n DMA modes:  {}", starred_modes(&r.dma_modes))?;
    }
    if !r.udma_modes.is_empty() {
        write!(out, "\n UDMA modes: {}", starred_modes(&r.udma_modes))?;
    }
    write!(
        out,
        "\n AdvancedPM={}",
        if r.advanced_pm { "yes" } else { "no" }
    )?;
    match &r.advanced_pm_level {
        Some(Apm::Disabled) => out.write_all(b": disabled (255)")?,
        Some(Apm::Enabled {
            level_valid: false, ..
        }) => out.write_all(b": unknown setting")?,
        Some(Apm::Enabled { level, .. }) => write!(out, ": mode=0x{level:02X} ({level})")?,
        Some(Apm::NotSupported) | None => {}
    }
    if let Some(enabled) = r.write_cache_enabled {
        write!(
            out,
            " WriteCache={}",
            if enabled { "enabled" } else { "disabled" }
        )?;
    }
    if let Some(c) = &r.conforms_to {
        write!(out, "\n Drive conforms to: {}: ", c.minor)?;
        for (i, v) in c.ata_versions.iter().enumerate() {
            write!(out, "{}{v}", if i == 0 { " ATA/ATAPI-" } else { "," })?;
        }
    }
    out.write_all(b"\n\n * signifies the current active mode\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A libata-like buffer for a WD10EFRX (the reference's verified sample, §5.2).
    fn sample() -> [u8; 512] {
        let mut w = [0u16; 256];
        w[0] = 0x0C5A;
        w[1] = 16383;
        w[3] = 16;
        w[6] = 63;
        w[47] = 0x8010;
        w[49] = 0x2F00;
        w[51] = 0x0200;
        w[53] = 0x0007;
        w[54] = 16383;
        w[55] = 16;
        w[56] = 63;
        w[57] = 0xFC10;
        w[58] = 0x00FB;
        w[59] = 0x0110;
        w[60] = 0xFFFF;
        w[61] = 0x0FFF;
        w[63] = 0x0007;
        w[64] = 0x0003;
        w[65] = 120;
        w[66] = 120;
        w[67] = 120;
        w[68] = 120;
        w[80] = 0x07F0;
        w[81] = 0x006D;
        w[82] = 0x746B;
        w[83] = 0x7F69;
        w[85] = 0x7469;
        w[86] = 0xBC49;
        w[88] = 0x407F;
        w[91] = 0x40FE;
        w[100] = 0x6DB0;
        w[101] = 0x7470;
        let mut raw = [0u8; 512];
        for (i, v) in w.iter().enumerate() {
            raw[2 * i..2 * i + 2].copy_from_slice(&v.to_le_bytes());
        }
        let put = |raw: &mut [u8; 512], at: usize, len: usize, s: &str| {
            let mut field = vec![b' '; len];
            field[..s.len()].copy_from_slice(s.as_bytes());
            raw[at..at + len].copy_from_slice(&field);
        };
        put(&mut raw, 20, 20, "     WD-WCC4J0998391");
        put(&mut raw, 46, 8, "82.00A82");
        put(&mut raw, 54, 40, "WDC WD10EFRX-68PJCN0");
        raw
    }

    fn render(raw: &[u8; 512], mult: Option<u16>) -> String {
        let mut out = Vec::new();
        render_kernel_identity(&kernel_identity_report(raw, mult), &mut out).unwrap_or(());
        String::from_utf8_lossy(&out).into_owned()
    }

    #[test]
    fn reference_sample_layout() {
        let expected = "\n Model=WDC WD10EFRX-68PJCN0, FwRev=82.00A82, SerialNo=WD-WCC4J0998391\n \
Config={ HardSect NotMFM HdSw>15uSec Fixed DTR>10Mbs RotSpdTol>.5% }\n \
RawCHS=16383/16/63, TrkSize=0, SectSize=0, ECCbytes=0\n \
BuffType=unknown, BuffSize=unknown, MaxMultSect=16, MultSect=16\n \
CurCHS=16383/16/63, CurSects=16514064, LBA=yes, LBAsects=1953525168\n \
IORDY=on/off, tPIO={min:120,w/IORDY:120}, tDMA={min:120,rec:120}\n \
PIO modes:  pio0 pio1 pio2 pio3 pio4 \n \
DMA modes:  mdma0 mdma1 mdma2 \n \
UDMA modes: udma0 udma1 udma2 udma3 udma4 udma5 *udma6 \n \
AdvancedPM=yes: mode=0xFE (254) WriteCache=enabled\n \
Drive conforms to: unknown:  ATA/ATAPI-4,5,6,7,8,9,10\n\n * signifies the current active mode\n\n";
        // Word 80 0x07F0 has bits 4-10; -i prints only bits 0-7.
        let expected = expected.replace("4,5,6,7,8,9,10", "4,5,6,7");
        assert_eq!(render(&sample(), Some(16)), expected);
    }

    #[test]
    fn multcount_override() {
        let raw = sample();
        assert!(render(&raw, Some(0)).contains("MaxMultSect=16, MultSect=off\n"));
        assert!(render(&raw, None).contains("MaxMultSect=16, MultSect=?16?\n"));
    }

    #[test]
    fn sparse_buffer() {
        let mut raw = [0u8; 512];
        raw[40] = 7; // word 20 = 7: not a known buffer type
        let text = render(&raw, None);
        assert!(text.starts_with("\n Model=, FwRev=, SerialNo=\n Config={ }\n"));
        assert!(text.contains(" BuffType=7, BuffSize=unknown, MaxMultSect=0\n (maybe): CurCHS=0/0/0, CurSects=0, LBA=no\n IORDY=no\n PIO modes:  pio0 \n AdvancedPM=no\n\n"));
    }

    /// The sample with words 83, 86 and 91 replaced.
    fn with_apm(w83: u16, w86: u16, w91: u16) -> [u8; 512] {
        let mut raw = sample();
        for (n, v) in [(83, w83), (86, w86), (91, w91)] {
            raw[2 * n..2 * n + 2].copy_from_slice(&v.to_le_bytes());
        }
        raw
    }

    #[test]
    fn apm_states_and_their_json() {
        let line = |raw: &[u8; 512]| {
            let text = render(raw, Some(16));
            text.lines()
                .find(|l| l.starts_with(" AdvancedPM="))
                .unwrap_or_default()
                .to_string()
        };
        let json = |raw: &[u8; 512]| {
            let v = serde_json::to_value(kernel_identity_report(raw, Some(16))).unwrap_or_default();
            v.get("advanced_pm_level").map(|v| v.to_string())
        };
        let disabled = with_apm(0x7F69, 0xBC41, 0x40FE);
        assert_eq!(
            line(&disabled),
            " AdvancedPM=yes: disabled (255) WriteCache=enabled"
        );
        assert_eq!(json(&disabled).as_deref(), Some(r#"{"kind":"disabled"}"#));
        // Word 91 without 0x40 in its high byte: the level is not trusted.
        let unknown = with_apm(0x7F69, 0xBC49, 0x00FE);
        assert_eq!(
            line(&unknown),
            " AdvancedPM=yes: unknown setting WriteCache=enabled"
        );
        assert_eq!(json(&unknown).as_deref(), Some(r#"{"kind":"unknown"}"#));
        let level = with_apm(0x7F69, 0xBC49, 0x4080);
        assert_eq!(
            line(&level),
            " AdvancedPM=yes: mode=0x80 (128) WriteCache=enabled"
        );
        assert_eq!(
            json(&level).as_deref(),
            Some(r#"{"kind":"level","level":128}"#)
        );
        // -i tests word 83 bit 3 alone, even when the word is not marked valid.
        let unchecked = with_apm(0x0008, 0x0008, 0x4080);
        assert_eq!(
            line(&unchecked),
            " AdvancedPM=yes: mode=0x80 (128) WriteCache=enabled"
        );
        let none = with_apm(0x7F61, 0xBC49, 0x4080);
        assert_eq!(line(&none), " AdvancedPM=no WriteCache=enabled");
        assert_eq!(json(&none), None);
    }

    #[test]
    fn selected_without_supported_glues_star() {
        let mut raw = sample();
        // word 63: mdma2 selected but only mdma0 supported
        raw[126] = 0x01;
        raw[127] = 0x04;
        assert!(render(&raw, Some(16)).contains("\n DMA modes:  mdma0 *\n"));
        let v = serde_json::to_value(kernel_identity_report(&raw, Some(16))).unwrap_or_default();
        assert_eq!(
            v["dma_modes"][1],
            serde_json::json!({"name": "mdma2", "selected": true, "supported": false})
        );
    }

    #[test]
    fn modes_are_values_with_selected() {
        let v =
            serde_json::to_value(kernel_identity_report(&sample(), Some(16))).unwrap_or_default();
        assert_eq!(
            v["udma_modes"][6],
            serde_json::json!({"name": "udma6", "selected": true})
        );
        assert_eq!(
            v["dma_modes"][2],
            serde_json::json!({"name": "mdma2", "selected": false})
        );
        assert_eq!(v["pio_modes"][4], "pio4");
    }
}
