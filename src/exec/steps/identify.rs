//! The identification steps: `-i` (the kernel's cached IDENTIFY, reference §5.2) and `-I`,
//! `--Istdout`, `--Iraw` (a live IDENTIFY, §5.3), plus `--Istdin` with no device (§5.4).
//!
//! Must not: decode or format IDENTIFY itself (that is `ata::identify` and `report`); this
//! file only fetches the data, reads the log pages `-I` wants, and files the results.

use super::Ctx;
use crate::ata::identify::Identify;
use crate::ata::identify_hex::{format_identify_hex, parse_identify_hex};
use crate::error::{strerror, Error, ErrorClass};
use crate::exec::output::Output;
use crate::report::identify::{identify_report, render_report, IdentifyContext};
use std::path::Path;

/// `--Iraw FILE`, ATA, SCSI or NVMe: the identification bytes (`what` they are, for the note)
/// written to FILE, or why they could not be.
pub(super) fn write_identify_raw(ctx: &mut Ctx, path: &Path, bytes: &[u8], what: &str) {
    ctx.out.action_on(
        "write_identify_raw",
        &crate::cli::defs::IRAW,
        Some(path.display().to_string()),
    );
    match crate::device::files::write_output(path, bytes) {
        Ok(()) => ctx
            .out
            .note(&format!("Wrote {what} to \"{}\"", path.display())),
        Err(e) => {
            let message = format!("{}: {}", path.display(), strerror(&e));
            ctx.out
                .error(&Error::new(ErrorClass::OutputFailed, message));
        }
    }
}

/// `-I`, `--Istdout`, `--Iraw FILE`.
pub fn identify(ctx: &mut Ctx) {
    if !ctx.dev.ata_capable() {
        let message = format!(
            "{}: no ATA IDENTIFY data: {}",
            ctx.name,
            ctx.dev.description()
        );
        ctx.out.error(&Error::not_applicable(message));
        return;
    }
    let words = match ctx.dev.identify() {
        Ok(words) => words,
        Err(f) => {
            ctx.out.error(&Error::new(
                f.class(),
                format!("{}: IDENTIFY failed: {}", ctx.name, f.reason),
            ));
            return;
        }
    };
    let id = Identify::from_words(words);
    if ctx.flags.identify_stdout {
        ctx.out.text(&format_identify_hex(&words));
        ctx.out
            .put(&crate::report::sections::IdentifyWords::of(&words));
        return;
    }
    if let Some(path) = ctx.flags.identify_raw.clone() {
        write_identify_raw(ctx, &path, &id.to_le_bytes(), "IDENTIFY DEVICE data");
        return;
    }
    let mut directory = LogDirectory::default();
    let sector_config = if id.wants_sector_config_log() && id.log_ext_allowed() {
        directory.read_page(ctx, 0x2f, 0)
    } else {
        None
    };
    let sata_settings = if id.wants_sata_settings_log() && id.log_ext_allowed() {
        directory.read_page(ctx, 0x30, 8)
    } else {
        None
    };
    let log_ctx = IdentifyContext::from_log_pages(sector_config.as_ref(), sata_settings.as_ref());
    let report = identify_report(&id, &log_ctx);
    if !ctx.out.json {
        let mut text = Vec::new();
        let _ = render_report(&report, &mut text);
        ctx.out.bytes(&text);
    }
    ctx.out.put(&report);
    if report.failure().is_some() {
        // hdparm's own words for this are already on stdout ("Unknown device type").
        ctx.out.verdict.record(ErrorClass::Failed);
    }
}

/// The General Purpose Log directory (log 0), read once per `-I` as hdparm does, saying how
/// many pages each log has; a page is read only when the directory lists it.
#[derive(Default)]
struct LogDirectory {
    pages: Option<Option<[u8; 512]>>,
}

impl LogDirectory {
    fn read_page(&mut self, ctx: &mut Ctx, log: u8, page: u8) -> Option<[u8; 512]> {
        if self.pages.is_none() {
            let read = ctx.dev.read_log(0, 0);
            if let Err(f) = &read {
                // Not fatal to -I (hdparm prints the same line and decodes without the log).
                ctx.out
                    .note(&format!("READ_LOG_EXT(0,0) failed: {}", f.reason));
            }
            self.pages = Some(read.ok());
        }
        let directory = self.pages.flatten()?;
        let at = 2 * usize::from(log);
        let count = u16::from_le_bytes([directory[at], directory[at + 1]]);
        if count <= u16::from(page) {
            return None;
        }
        match ctx.dev.read_log(log, page) {
            Ok(data) => Some(data),
            Err(f) => {
                ctx.out.note(&format!(
                    "READ_LOG_EXT(0x{log:02x}, {page}) failed: {}",
                    f.reason
                ));
                None
            }
        }
    }
}

/// `-i`: the identification the kernel kept (HDIO_GET_IDENTITY), word 59 replaced by the
/// multiple-sector count found earlier, as hdparm does.
pub fn kernel_identity(ctx: &mut Ctx, multcount: Option<i64>) {
    match ctx.dev.hdio_identity() {
        Ok(bytes) => {
            let multcount = multcount.map(|m| m as u16);
            let report = crate::report::kernel_identity::kernel_identity_report(&bytes, multcount);
            if !ctx.out.json {
                let mut text = Vec::new();
                let _ = crate::report::kernel_identity::render_kernel_identity(&report, &mut text);
                ctx.out.bytes(&text);
            }
            ctx.out.put(&report);
        }
        Err(e) => {
            let class = ErrorClass::of_io(&e);
            let mut message = format!(" HDIO_GET_IDENTITY failed: {}", strerror(&e));
            if class == ErrorClass::NotApplicable {
                message.push_str(&format!(" ({})", ctx.dev.description()));
            }
            ctx.out.error(&Error {
                class,
                message,
                errno: e.raw_os_error(),
            });
        }
    }
}

/// `--Istdin`: the decode of hex words read from standard input, with no device.
/// Short input prints hdparm's line (`read only N/256 IDENTIFY words from stdin: Success`) but
/// exits 22, not 0: nothing was decoded.
pub fn identify_stdin(input: &[u8], out: &mut Output) {
    match parse_identify_hex(input) {
        Err(short) => {
            // hdparm's line, then what was expected (a newcomer reads "Success" and wonders).
            let line = format!(
                "read only {}/256 IDENTIFY words from stdin: Success (expected 256 hex words of 4 digits, as --Istdout prints them)",
                short.words_read
            );
            out.error(&Error::usage(line));
        }
        Ok(words) => {
            let report = identify_report(&Identify::from_words(words), &IdentifyContext::default());
            if !out.json {
                let mut text = b"\n".to_vec();
                let _ = render_report(&report, &mut text);
                out.bytes(&text);
            }
            out.begin_device("stdin", true);
            out.put(&report);
            out.end_device();
            if let Some(class) = report.failure() {
                // hdparm's own words for this are already on stdout ("Unknown device type").
                out.verdict.record(class);
            }
        }
    }
}
