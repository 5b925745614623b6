//! Fuzz target: arbitrary bytes through every decoder of `src/scsi/` (standard INQUIRY, VPD
//! 00h/80h/83h/B0h/B1h/B2h, READ CAPACITY(16), the mode parameter header and pages 08h/1Ah,
//! sense data, log pages 0Dh/2Fh, READ BUFFER's descriptor), and through the decisions built
//! on them: the MODE SELECT of `-W`/`-A`/`-S` (the first half as the current values, the
//! second as the changeable mask), `-C` and `--sanitize-status` from REQUEST SENSE, the UNMAP
//! split and the WRITE BUFFER segments. Must never panic; a MODE SELECT sends no more than
//! the MODE SENSE gave, and the UNMAP descriptors and WRITE BUFFER segments cover exactly what
//! was asked.

#![no_main]

use hdparm::scsi::{capacity, firmware, inquiry, log, mode, sanitize, sense, unmap};
use libfuzzer_sys::fuzz_target;

fn u32_at(d: &[u8], at: usize) -> u32 {
    let mut b = [0u8; 4];
    for (i, x) in b.iter_mut().enumerate() {
        *x = d.get(at + i).copied().unwrap_or(0);
    }
    u32::from_be_bytes(b)
}

fuzz_target!(|data: &[u8]| {
    // every decoder over the whole input, and over it with its page code byte forced, so
    // that the page-specific paths run on most inputs
    let _ = inquiry::standard(data);
    let mut paged = data.to_vec();
    for code in [0x00u8, 0x80, 0x83, 0xB0, 0xB1, 0xB2] {
        if let Some(b) = paged.get_mut(1) {
            *b = code;
        }
        let _ = inquiry::supported_pages(&paged);
        let _ = inquiry::serial_number(&paged);
        if let Some(w) = inquiry::wwn(&paged) {
            assert!(w.bytes.len() == 8 || w.bytes.len() == 16);
            let _ = (w.hex(), w.ieee_oui(), w.first_64());
        }
        let _ = inquiry::designators(&paged);
        let _ = inquiry::block_limits(&paged);
        let _ = inquiry::characteristics(&paged).map(|c| c.form_factor_name());
        let _ = inquiry::provisioning(&paged).map(|p| p.provisioning_type_name());
    }
    if let Some(c) = capacity::decode(data) {
        let _ = (
            c.blocks(),
            c.bytes(),
            c.physical_block_length(),
            c.sectors_512(),
        );
    }
    let _ = mode::header10(data);
    let _ = mode::caching(data);
    let _ = mode::power_condition(data);
    let _ = firmware::buffer_descriptor(data);
    for page in [0x0Du8, 0x2F] {
        if let Some(b) = paged.get_mut(0) {
            *b = page;
        }
        let t = log::temperature(&paged);
        let ie = log::informational_exceptions(&paged);
        if let Some(t) = t {
            let _ = log::in_range(&t, ie.as_ref());
        }
    }
    if let Some(s) = sense::decode(data) {
        assert!(!s.describe().is_empty());
        let _ = s.progress_fraction();
        let _ = sanitize::status_of(&s).percent();
    }
    let (first, second) = data.split_at(data.len() / 2);
    let _ = sense::power_state_of(Some(first), Some(second)).word();
    let _ = sanitize::status(data);

    // the MODE SELECTs: never longer than the answer, never with a mode data length
    let (current, mask) = (first, second);
    let on = data.first().is_some_and(|b| b & 1 == 1);
    for r in [
        mode::set_write_cache(current, Some(mask), on),
        mode::set_read_ahead(current, Some(mask), on),
        mode::set_write_cache(current, None, on),
        mode::set_standby(
            current,
            Some(mask),
            u32::from(data.last().copied().unwrap_or(0)),
        ),
    ] {
        match r {
            Ok(c) => {
                assert!(c.data_out.len() <= current.len());
                assert_eq!(&c.data_out[..2], &[0, 0]);
                assert_eq!(
                    usize::from(u16::from_be_bytes([c.cdb[7], c.cdb[8]])),
                    c.data_out.len()
                );
            }
            Err(e) => assert!(!e.0.is_empty()),
        }
    }

    // UNMAP: ranges from the input, limits from its first bytes
    let limits = unmap::Limits {
        max_lba_count: u32_at(data, 0) % 5000 + 1,
        max_descriptors: u32_at(data, 4) % 300 + 1,
    };
    let ranges: Vec<(u64, u64)> = data
        .chunks(6)
        .take(64)
        .map(|c| (u64::from(u32_at(c, 0)), u64::from(u32_at(c, 2) & 0xFFFF)))
        .collect();
    let cmds = unmap::commands(&ranges, limits);
    let mut covered = 0u64;
    for c in &cmds {
        let descs = &c.data_out[8..];
        assert_eq!(descs.len() % 16, 0);
        assert!(descs.len() / 16 <= limits.max_descriptors as usize);
        let sum: u64 = descs.chunks(16).map(|d| u64::from(u32_at(d, 8))).sum();
        assert!(sum <= u64::from(limits.max_lba_count));
        covered += sum;
    }
    assert_eq!(covered, ranges.iter().map(|r| r.1).sum::<u64>());

    // WRITE BUFFER: the segments cover the image, in order
    let image = &data[..data.len().min(8192)];
    let seg = firmware::segment_bytes(
        Some(usize::from(data.first().copied().unwrap_or(1))),
        firmware::buffer_descriptor(data),
    );
    for m in [
        firmware::Mode::Whole,
        firmware::Mode::Segmented,
        firmware::Mode::Deferred,
    ] {
        if let Ok(cmds) = firmware::commands(m, image, seg) {
            let sent: Vec<u8> = cmds
                .iter()
                .flat_map(|c| c.data_out.iter().copied())
                .collect();
            assert_eq!(sent, image);
        }
    }
});
