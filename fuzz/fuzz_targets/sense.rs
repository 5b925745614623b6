//! Fuzz target: arbitrary sense buffers through the sense decoder and hdparm's own reading of
//! them, in both fixed-format layouts. Must never panic; a decoded sense must describe itself in words.

#![no_main]

use hdparm::ata::sense;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    for layout in [sense::FixedLayout::Libata, sense::FixedLayout::Sat] {
        if let Some(s) = sense::decode_as(data, layout) {
            assert!(!s.describe().is_empty());
            let _ = s.refuses_pass_through();
            let _ = s.rejects_cdb_field();
        }
    }
    let _ = sense::hdparm_accepts(data);
    let _ = sense::hdparm_registers(data);
});
