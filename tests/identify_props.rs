//! Properties of the IDENTIFY decoders over arbitrary data: whatever 512 bytes a device (or a
//! file fed to `--Istdin`) hands us, `-I` and `-i` never panic and always produce a complete
//! report, ending where hdparm ends it. The `-I` text without a device comes from `--Istdin`
//! through [`hdparm::run_streams`], the function the binary calls; only what needs a live
//! device's log pages (and `-i`, which needs the kernel's ioctl) is rendered by the library.

use hdparm::ata::identify::Identify;
use hdparm::ata::identify_hex::{format_identify_hex, parse_identify_hex};
use hdparm::error::ErrorClass;
use hdparm::report::identify::{
    identify_report, render_report, DeviceKind, IdentifyContext, IdentifyReport,
};
use hdparm::report::identify_json::{identify_value, kernel_identity_value};
use hdparm::report::kernel_identity::{kernel_identity_report, render_kernel_identity};

/// Our `hdparm --Istdin` with `input` on standard input: exit status, stdout, stderr.
fn istdin(input: &[u8]) -> (u8, Vec<u8>, Vec<u8>) {
    let args = ["hdparm", "--Istdin"].map(std::ffi::OsString::from);
    let mut out = Vec::new();
    let mut err = Vec::new();
    let status = hdparm::run_streams(
        &args,
        hdparm::Streams::new(&mut &input[..], &mut out, &mut err),
    );
    (status, out, err)
}

/// xorshift64*: deterministic, so a failing case can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
}

fn live_context(rng: &mut Rng) -> IdentifyContext {
    let mut sizes = Vec::new();
    for _ in 0..rng.next() % 4 {
        sizes.push((rng.next() % 70000) as u32);
    }
    IdentifyContext {
        live: true,
        sector_config_sizes: Some(sizes),
        devslp: Some(hdparm::ata::identify::DevSleepTimings {
            deto_ms: rng.next() as u8,
            mdat_ms: (rng.next() % 32) as u8,
        }),
    }
}

/// Renders one buffer every way and checks the shape of what comes out.
fn check(bytes: &[u8; 512], ctx: &IdentifyContext, what: &str) {
    let id = Identify::from_le_bytes(bytes);
    let report = identify_report(&id, ctx);
    let text = if ctx.live {
        let mut text = Vec::new();
        render_report(&report, &mut text).expect("writing to a Vec cannot fail");
        text
    } else {
        let (status, out, err) = istdin(format_identify_hex(id.words()).as_bytes());
        assert!(
            err.is_empty(),
            "{what}: stderr {:?}",
            String::from_utf8_lossy(&err)
        );
        let want = if report.device.kind == DeviceKind::Unknown {
            22
        } else {
            0
        };
        assert_eq!(status, want, "{what}: exit status");
        // --Istdin prints one more blank line before the report.
        out.strip_prefix(b"\n".as_slice())
            .unwrap_or_else(|| panic!("{what}: --Istdin output starts without a blank line"))
            .to_vec()
    };
    check_text(&report, &text, what);
    // JSON is the same report: it must serialize, and agree on the device kind.
    let v = identify_value(&report);
    assert!(v.is_object(), "{what}: JSON is not an object");
    // `-i` on the same bytes, with and without a multiple-sector count.
    for mult in [None, Some(16)] {
        let k = kernel_identity_report(bytes, mult);
        let mut out = Vec::new();
        render_kernel_identity(&k, &mut out).expect("writing to a Vec cannot fail");
        assert!(out.starts_with(b"\n Model="), "{what}: -i starts wrong");
        assert!(
            out.ends_with(b"\n\n * signifies the current active mode\n\n"),
            "{what}: -i ends wrong"
        );
        assert!(kernel_identity_value(&k).is_object());
    }
}

fn check_text(report: &IdentifyReport, text: &[u8], what: &str) {
    let s = String::from_utf8_lossy(text);
    assert!(
        s.starts_with('\n'),
        "{what}: -I must start with hdparm's blank line"
    );
    assert!(s.ends_with('\n'), "{what}: -I must end with a newline");
    if report.device.kind == DeviceKind::Unknown {
        assert_eq!(
            s,
            "\nUnknown device type:\n\tbits 15&14 of general configuration word 0 both set to 1.\n"
        );
        assert_eq!(report.failure(), Some(ErrorClass::Usage));
        return;
    }
    assert_eq!(report.failure(), None, "{what}");
    // The sections come in hdparm's order.
    let mut at = 0;
    for header in [
        "\nStandards:",
        "\nConfiguration:\n",
        "\nCapabilities:\n",
        "\tPIO: ",
    ] {
        match s[at..].find(header) {
            Some(i) => at += i + header.len(),
            None => panic!("{what}: section {header:?} missing or out of order:\n{s}"),
        }
    }
    // The report is complete: with an integrity line it is the last thing printed.
    let last = s.trim_end_matches('\n').rsplit('\n').next().unwrap_or("");
    match &report.integrity {
        Some(i) => match i.checksum_correct {
            Some(true) => assert_eq!(last, "Checksum: correct", "{what}"),
            Some(false) => {
                assert!(
                    last.starts_with("Checksum: incorrect (0x"),
                    "{what}: {last:?}"
                );
                assert!(
                    s.ends_with("\n\n"),
                    "{what}: an incorrect checksum is followed by a blank line"
                );
            }
            None => assert!(
                last.starts_with("Integrity word not set (found 0x"),
                "{what}: {last:?}"
            ),
        },
        None => assert!(
            !last.starts_with("Checksum") && !last.starts_with("Integrity"),
            "{what}: {last:?}"
        ),
    }
    // CD-ROMs never get an integrity line; a defined word 2 makes hdparm assume ATA-5 and print it.
    if report.device.atapi_device_type == Some(5) {
        assert!(
            report.integrity.is_none(),
            "{what}: CD-ROM with an integrity line"
        );
    }
    if report.specific_configuration.is_some() && report.device.atapi_device_type != Some(5) {
        assert!(
            report.integrity.is_some(),
            "{what}: ATA-5 word 2 but no integrity line"
        );
    }
}

fn words_to_bytes(words: &[u16; 256]) -> [u8; 512] {
    Identify::from_words(*words).to_le_bytes()
}

#[test]
fn random_buffers_always_render_completely() {
    let cases: u64 = std::env::var("HDPARM_RS_PROP_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20_000);
    let mut rng = Rng(0x1234_5678_9ABC_DEF1);
    for case in 0..cases {
        let mut bytes = [0u8; 512];
        for chunk in bytes.chunks_exact_mut(8) {
            chunk.copy_from_slice(&rng.next().to_le_bytes());
        }
        // Keep word 0 out of the "unknown" class most of the time so the full decode runs.
        if case % 4 != 0 {
            bytes[1] &= 0x7F;
        }
        let ctx = if case % 2 == 0 {
            IdentifyContext::default()
        } else {
            live_context(&mut rng)
        };
        check(&bytes, &ctx, &format!("random case {case}"));
    }
}

#[test]
fn extreme_buffers_render_completely() {
    check(&[0u8; 512], &IdentifyContext::default(), "all zero");
    check(&[0xFFu8; 512], &IdentifyContext::default(), "all 0xFF");
    let mut rng = Rng(7);
    for n in 0..256 {
        let mut words = [0u16; 256];
        words[n] = 0xFFFF;
        check(
            &words_to_bytes(&words),
            &IdentifyContext::default(),
            &format!("word {n} = 0xFFFF"),
        );
        let mut ones = [0xFFFFu16; 256];
        ones[0] = 0x0040;
        ones[n] = 0;
        check(
            &words_to_bytes(&ones),
            &live_context(&mut rng),
            &format!("all ones but word {n}"),
        );
    }
}

#[test]
fn every_atapi_type_and_cfa_signature() {
    for t in 0..32u16 {
        for base in [0x8000u16, 0x8080, 0x80E3] {
            let mut words = [0u16; 256];
            words[0] = base | (t << 8);
            words[73] = 0x001E;
            words[74] = 9;
            words[49] = 0xFF00;
            words[62] = 0x8407;
            check(
                &words_to_bytes(&words),
                &IdentifyContext::default(),
                &format!("ATAPI type {t:#x}"),
            );
        }
    }
    for sig in [0x848A, 0x844A] {
        let mut words = [0u16; 256];
        words[0] = sig;
        words[160] = 0x8123;
        words[162] = 1;
        words[163] = 0x0092;
        words[164] = 0x91FF;
        let report = identify_report(&Identify::from_words(words), &IdentifyContext::default());
        assert_eq!(report.device.kind, DeviceKind::Cfa);
        check(
            &words_to_bytes(&words),
            &IdentifyContext::default(),
            &format!("CFA {sig:#x}"),
        );
    }
}

#[test]
fn istdin_round_trip_of_random_words() {
    let mut rng = Rng(99);
    for _ in 0..500 {
        let mut words = [0u16; 256];
        for w in words.iter_mut() {
            *w = rng.next() as u16;
        }
        let hex = format_identify_hex(&words);
        assert_eq!(parse_identify_hex(hex.as_bytes()), Ok(words));
        let (status, out, err) = istdin(hex.as_bytes());
        assert!(err.is_empty());
        assert!(
            out.starts_with(b"\n\n"),
            "--Istdin output starts with two blank lines"
        );
        assert!(status == 0 || status == 22);
    }
}

#[test]
fn istdin_arbitrary_text_never_panics() {
    let mut rng = Rng(4242);
    let alphabet = b"0123456789abcdefABCDEF \n\txyz:/\x00\xff";
    for _ in 0..2000 {
        let len = (rng.next() % 3000) as usize;
        let text: Vec<u8> = (0..len)
            .map(|_| alphabet[(rng.next() % alphabet.len() as u64) as usize])
            .collect();
        let (status, out, err) = istdin(&text);
        if out.is_empty() {
            let msg = String::from_utf8_lossy(&err);
            assert!(
                msg.starts_with("read only ")
                    && msg.contains(
                        "/256 IDENTIFY words from stdin: Success (expected 256 hex words"
                    ),
                "{msg}"
            );
            // hdparm exits 0 here (errno is 0 at a clean end of file); we exit with the usage
            // class, 22: nothing was decoded (DIFFERENCES.md).
            assert_eq!(status, 22);
        } else {
            assert!(err.is_empty(), "{:?}", String::from_utf8_lossy(&err));
            assert!(status == 0 || status == 22);
        }
    }
}
