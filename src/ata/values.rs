//! Value checks that need the drive's IDENTIFY data, done before anything is sent: the transfer
//! modes a drive lists (`-X`). Pure.

/// The transfer modes IDENTIFY lists, by hdparm's `-X` numbering.
pub fn listed_xfer_modes(id: &[u16; 256]) -> Vec<u32> {
    let mut modes = vec![0, 1, 8, 9, 10];
    if id[53] & 0x2 != 0 {
        for bit in 0..2 {
            if id[64] & (1 << bit) != 0 {
                modes.push(11 + bit);
            }
        }
    }
    if id[49] & 0x100 != 0 {
        for bit in 0..3 {
            if id[62] & (1 << bit) != 0 {
                modes.push(16 + bit);
            }
        }
        for bit in 0..3 {
            if id[63] & (1 << bit) != 0 {
                modes.push(32 + bit);
            }
        }
        if id[53] & 0x4 != 0 {
            for bit in 0..8 {
                if id[88] & (1 << bit) != 0 {
                    modes.push(64 + bit);
                }
            }
        }
    }
    modes
}

/// hdparm's short name of a `-X` mode number (`udma5`, `mdma2`, `pio4`), if it has one.
pub fn xfer_mode_name(mode: u32) -> Option<String> {
    match mode {
        8..=15 => Some(format!("pio{}", mode - 8)),
        16..=23 => Some(format!("sdma{}", mode - 16)),
        32..=39 => Some(format!("mdma{}", mode - 32)),
        64..=71 => Some(format!("udma{}", mode - 64)),
        _ => None,
    }
}

/// Why `-X mode` must not be sent to this drive, or None when the drive lists the mode.
pub fn xfer_mode_unsupported(id: &[u16; 256], mode: u32) -> Option<String> {
    let listed = listed_xfer_modes(id);
    if listed.contains(&mode) {
        return None;
    }
    let names: Vec<String> = listed.iter().filter_map(|&m| xfer_mode_name(m)).collect();
    Some(match xfer_mode_name(mode) {
        Some(name) => format!("the drive does not list {name} (it lists {})", names.join(" ")),
        None => format!("{mode} is not a transfer mode (use pio0-4, sdma0-2, mdma0-2, udma0-7, or 0/1 for default PIO)"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn drive_with_udma5() -> [u16; 256] {
        let mut id = [0u16; 256];
        id[49] = 0x0f00; // DMA and LBA supported
        id[53] = 0x0007; // words 64-70 and 88 valid
        id[63] = 0x0407; // mdma0-2, mdma2 selected
        id[64] = 0x0003; // pio3, pio4
        id[88] = 0x203f; // udma0-5, udma5 selected
        id
    }

    #[test]
    fn listed_modes_pass_and_others_are_refused() {
        let id = drive_with_udma5();
        assert_eq!(xfer_mode_unsupported(&id, 69), None);
        assert_eq!(xfer_mode_unsupported(&id, 34), None);
        assert_eq!(xfer_mode_unsupported(&id, 12), None);
        let why = xfer_mode_unsupported(&id, 70).unwrap_or_default();
        assert!(why.contains("udma6") && why.contains("udma5"), "{why}");
        let why = xfer_mode_unsupported(&id, 99).unwrap_or_default();
        assert!(why.contains("not a transfer mode"), "{why}");
    }
}
