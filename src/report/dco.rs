//! The `--dco-identify` report (reference §5.5): hdparm 9.65's text byte for byte, and the same
//! facts as JSON.
//!
//! Must not: read the device; it renders the 256 DCO IDENTIFY words it is given.

use crate::ata::dco::{checksum_ok, real_max_sectors};

/// Word 7 bits 0-8, then 9-15: the ATA feature sets that DCO can hide.
const WORD7: [&str; 16] = [
    "SMART",
    "self_test",
    "error_log",
    "security",
    "PUIS",
    "TCQ",
    "AAM",
    "HPA",
    "48_bit",
    "streaming",
    "TLC_Reserved_7[10]",
    "FUA",
    "selective_test",
    "conveyance_test",
    "write_read_verify",
    "reserved_7[15]",
];

/// Word 21 bits 11-15.
const WORD21: [(u32, &str); 5] = [
    (11, "free_fall"),
    (12, "trusted_computing"),
    (13, "WRITE_UNC_EXT"),
    (14, "NV_cache_power_management"),
    (15, "NV_cache"),
];

/// Word 8 bits 0-4: the SATA feature sets.
const WORD8: [&str; 5] = [
    "NCQ",
    "NZ_buffer_offsets",
    "interface_power_management",
    "async_notification",
    "SSP",
];

fn bit(w: u16, b: u32) -> bool {
    w & (1 << b) != 0
}

/// The highest mode of a mode word's low `n` bits, as hdparm lists it (all modes up to it).
fn modes(prefix: &str, word: u16, n: u32) -> Vec<String> {
    match (0..n).rev().find(|&b| bit(word, b)) {
        Some(top) => (0..=top).map(|m| format!("{prefix}{m}")).collect(),
        None => Vec::new(),
    }
}

/// The names of the bits set in `word`, in table order.
fn set_names<'a>(word: u16, names: impl IntoIterator<Item = (u32, &'a str)>) -> Vec<&'a str> {
    names
        .into_iter()
        .filter(|&(b, _)| bit(word, b))
        .map(|(_, name)| name)
        .collect()
}

/// A table that lists its bits in order from bit 0, with their numbers.
fn numbered<'a>(names: &'a [&'a str]) -> impl Iterator<Item = (u32, &'a str)> + 'a {
    (0..).zip(names.iter().copied())
}

/// hdparm's ` name` for each of `names`.
fn push_each(s: &mut String, names: &[impl AsRef<str>]) {
    for name in names {
        s.push(' ');
        s.push_str(name.as_ref());
    }
}

/// One line of feature names, none when no bit is set: `head`, then ` (?):` when the
/// revision is one hdparm does not know (`doubtful`), then the names.
fn push_features(s: &mut String, head: &str, doubtful: bool, names: &[&str]) {
    if names.is_empty() {
        return;
    }
    s.push_str(head);
    if doubtful {
        s.push_str(" (?):");
    }
    push_each(s, names);
}

/// hdparm's checksum line, then its decode.
pub fn text(words: &[u16; 256]) -> String {
    let mut s = String::new();
    s.push_str(if checksum_ok(words) {
        "DCO Checksum verified.\n"
    } else {
        "DCO Checksum FAILED!\n"
    });
    s.push_str(&decode(words));
    s
}

/// hdparm's `dco_identify_print`.
fn decode(w: &[u16; 256]) -> String {
    let rev = w[0];
    let old = rev < 2;
    let mut s = format!("DCO Revision: 0x{rev:04x}");
    if rev == 0 || rev > 2 {
        s.push_str(" -- unknown, treating as 0002");
    }
    s.push_str("\nThe following features can be selectively disabled via DCO:\n");
    s.push_str("\tTransfer modes:\n\t\t");
    let mdma = modes("mdma", w[1], 3);
    if !mdma.is_empty() {
        push_each(&mut s, &mdma);
        s.push_str("\n\t\t");
    }
    push_each(&mut s, &modes("udma", w[2], 7));
    if bit(w[2], 6) && old {
        s.push_str("(?)");
    }
    s.push('\n');
    s.push_str(&format!("\tReal max sectors: {}\n", real_max_sectors(w)));
    s.push_str("\tATA command/feature sets:");
    // Word 7 bits 0-8 on one line, 9-15 on the next, then word 21.
    let ata = [
        (false, set_names(w[7], numbered(&WORD7).take(9))),
        (old, set_names(w[7], numbered(&WORD7).skip(9))),
        (old, set_names(w[21], WORD21)),
    ];
    for (doubtful, names) in ata {
        push_features(&mut s, "\n\t\t", doubtful, &names);
    }
    s.push('\n');
    let sata = set_names(w[8], numbered(&WORD8));
    if !sata.is_empty() {
        push_features(&mut s, "\tSATA command/feature sets:\n\t\t", old, &sata);
        s.push('\n');
    }
    s
}

/// The same facts for `--json` (the device's `dco_identify`).
pub fn report(w: &[u16; 256]) -> DcoReport {
    let owned = |names: Vec<&str>| -> Vec<String> { names.into_iter().map(String::from).collect() };
    let mut ata = set_names(w[7], numbered(&WORD7));
    ata.extend(set_names(w[21], WORD21));
    DcoReport {
        revision: w[0],
        checksum_ok: checksum_ok(w),
        mdma_modes: modes("mdma", w[1], 3),
        udma_modes: modes("udma", w[2], 7),
        real_max_sectors: real_max_sectors(w),
        ata_features: owned(ata),
        sata_features: owned(set_names(w[8], numbered(&WORD8))),
    }
}

/// `--dco-identify`'s JSON section: the revision, whether the checksum holds, the modes and
/// features the drive could be configured with, and its real maximum sector count.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, schemars::JsonSchema)]
#[schemars(deny_unknown_fields)]
pub struct DcoReport {
    pub revision: u16,
    pub checksum_ok: bool,
    pub mdma_modes: Vec<String>,
    pub udma_modes: Vec<String>,
    pub real_max_sectors: u64,
    pub ata_features: Vec<String>,
    pub sata_features: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ata::dco::tests::sample;

    #[test]
    fn sample_layout() {
        assert_eq!(
            text(&sample()),
            "DCO Checksum verified.\n\
DCO Revision: 0x0002\n\
The following features can be selectively disabled via DCO:\n\
\tTransfer modes:\n\
\t\t mdma0 mdma1 mdma2\n\
\t\t udma0 udma1 udma2 udma3 udma4 udma5 udma6\n\
\tReal max sectors: 976773168\n\
\tATA command/feature sets:\n\
\t\t SMART self_test error_log security PUIS AAM HPA 48_bit\n\
\t\t WRITE_UNC_EXT\n\
\tSATA command/feature sets:\n\
\t\t NCQ NZ_buffer_offsets interface_power_management SSP\n"
        );
    }

    #[test]
    fn old_revision_and_nothing_set() {
        let mut w = [0u16; 256];
        w[0] = 1;
        w[2] = 0x0040;
        w[7] = 0x0800;
        w[8] = 0x0001;
        assert_eq!(
            decode(&w),
            "DCO Revision: 0x0001\n\
The following features can be selectively disabled via DCO:\n\
\tTransfer modes:\n\
\t\t udma0 udma1 udma2 udma3 udma4 udma5 udma6(?)\n\
\tReal max sectors: 1\n\
\tATA command/feature sets:\n\
\t\t (?): FUA\n\
\tSATA command/feature sets:\n\
\t\t (?): NCQ\n"
        );
        let w = [0u16; 256];
        assert_eq!(
            decode(&w),
            "DCO Revision: 0x0000 -- unknown, treating as 0002\n\
The following features can be selectively disabled via DCO:\n\
\tTransfer modes:\n\
\t\t\n\
\tReal max sectors: 1\n\
\tATA command/feature sets:\n"
        );
    }

    #[test]
    fn json_facts() {
        let j = serde_json::to_value(report(&sample())).unwrap_or_default();
        assert_eq!(j["real_max_sectors"], 976773168u64);
        assert_eq!(j["checksum_ok"], true);
        assert_eq!(j["udma_modes"].as_array().map(Vec::len), Some(7));
        assert_eq!(j["ata_features"][7], "48_bit");
        assert_eq!(j["ata_features"][8], "WRITE_UNC_EXT");
    }
}
