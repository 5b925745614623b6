//! The `-I` text: an [`IdentifyReport`] formatted exactly as hdparm 9.65 prints it.
//!
//! Must not: decide anything. Every condition is already in the report (`None` = no line);
//! the few quirks of layout (trailing spaces, a missing newline, the `(0x%04x]` typo) are
//! reproduced here on purpose and commented where they occur.

use std::io::{self, Write};

use super::*;

fn feature_line(out: &mut dyn Write, f: &Feature) -> io::Result<()> {
    writeln!(
        out,
        "\t   {}\t{}",
        if f.enabled { '*' } else { ' ' },
        f.name
    )
}

fn mode_text(modes: &[XferMode]) -> String {
    modes
        .iter()
        .map(|m| format!("{}{} ", if m.selected { "*" } else { "" }, m.name))
        .collect()
}

/// Writes the `-I` text for a report, starting with hdparm's blank line.
pub fn render_report(r: &IdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    if !device_lines(r, out)? {
        return Ok(());
    }
    if let Some(s) = &r.standards {
        standards(out, s)?;
    }
    if let Some(c) = &r.configuration {
        configuration(out, c)?;
    }
    if let Some(c) = &r.capabilities {
        capabilities(out, c)?;
    }
    features_sections(r, out)?;
    if let Some(c) = &r.cfa {
        cfa(out, c)?;
    }
    if r.removable_media_status_notification {
        out.write_all(b"\t\tRemovable Media Status Notification feature set supported\n")?;
    }
    if let Some(s) = &r.security {
        security(out, s)?;
    }
    wwn_reset_sleep_integrity(r, out)
}

/// The device line, its identity strings and transport; false for an unknown device type,
/// whose report ends there.
fn device_lines(r: &IdentifyReport, out: &mut dyn Write) -> io::Result<bool> {
    out.write_all(b"\n")?;
    let d = &r.device;
    match d.kind {
        DeviceKind::Cfa => out.write_all(b"CompactFlash ATA device\n")?,
        DeviceKind::Unknown => {
            out.write_all(b"Unknown device type:\n\tbits 15&14 of general configuration word 0 both set to 1.\n")?;
            return Ok(false);
        }
        DeviceKind::Ata | DeviceKind::Atapi => {
            if d.kind == DeviceKind::Ata {
                out.write_all(b"ATA device, with ")?;
            } else {
                write!(
                    out,
                    "ATAPI {}, with ",
                    d.atapi_device_type_name.as_deref().unwrap_or("")
                )?;
            }
            if d.removable_media != Some(true) {
                out.write_all(b"non-")?;
            }
            out.write_all(b"removable media\n")?;
        }
    }
    if let Some(sc) = &r.specific_configuration {
        if sc.powers_up_in_standby {
            out.write_all(b"powers-up in standby; SET FEATURES subcmd spins-up.\n")?;
        }
        if sc.response_incomplete {
            out.write_all(b"\n\tWARNING: ID response incomplete.\n\tWARNING: Following data may be incorrect.\n\n")?;
        }
    }
    for (label, text) in [
        ("Model Number:", &r.model),
        ("Serial Number:", &r.serial),
        ("Firmware Revision:", &r.firmware),
        ("Media Serial Num:", &r.media_serial),
        ("Media Manufacturer:", &r.media_manufacturer),
    ] {
        if let Some(t) = text {
            write!(out, "\t{label:<20}")?;
            out.write_all(&t.0)?;
            out.write_all(b"\n")?;
        }
    }
    if let Some(t) = &r.transport {
        write!(out, "\t{:<20}{}", "Transport:", t.description)?;
        if let Some(rev) = &t.revision {
            write!(out, "; Revision: {rev}")?;
        }
        out.write_all(b"\n")?;
    }
    Ok(true)
}

/// `Commands/features:` and the additional features (TRIM).
fn features_sections(r: &IdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    if let Some(groups) = &r.commands_features {
        out.write_all(b"Commands/features:\n\tEnabled\tSupported:\n")?;
        for g in groups {
            for f in &g.features {
                feature_line(out, f)?;
            }
            if let Some(ms) = g.tlc_completion_timer_msec {
                writeln!(out, "                ({ms} msec for TLC completion timer)")?;
            }
        }
    }
    if let Some(a) = &r.additional_features {
        for f in &a.features {
            feature_line(out, f)?;
        }
        if let Some(t) = &a.trim {
            out.write_all(b"\t   *\tData Set Management TRIM supported")?;
            match t.limit_blocks {
                Some(n) => writeln!(out, " (limit {n} block{})", if n > 1 { "s" } else { "" })?,
                None => out.write_all(b" (limit unknown)\n")?,
            }
            match t.deterministic_read {
                Some("zeros") => out.write_all(b"\t   *\tDeterministic read ZEROs after TRIM\n")?,
                Some(_) => out.write_all(b"\t   *\tDeterministic read data after TRIM\n")?,
                None => {}
            }
        }
    }
    Ok(())
}

/// The WWN, HW reset, Device Sleep and checksum sections.
fn wwn_reset_sleep_integrity(r: &IdentifyReport, out: &mut dyn Write) -> io::Result<()> {
    if let Some(w) = &r.wwn {
        writeln!(out, "Logical Unit WWN Device Identifier: {}", w.wwn)?;
        writeln!(out, "\tNAA\t\t: {:x}", w.naa)?;
        writeln!(out, "\tIEEE OUI\t: {:06x}", w.ieee_oui)?;
        writeln!(
            out,
            "\tUnique ID\t: {:x}{:08x}",
            w.unique_id >> 32,
            w.unique_id & 0xFFFF_FFFF
        )?;
    }
    if let Some(h) = &r.hw_reset {
        out.write_all(b"HW reset results:\n")?;
        writeln!(
            out,
            "\tCBLID- {} Vih",
            if h.cblid_above_vih { "above" } else { "below" }
        )?;
        write!(out, "\tDevice num = {}", h.device_number)?;
        match h.determined_by {
            Some("jumper") => out.write_all(b" determined by the jumper")?,
            Some(_) => out.write_all(b" determined by CSEL")?,
            None => {}
        }
        out.write_all(b"\n")?;
    }
    if let Some(s) = &r.device_sleep {
        out.write_all(b"Device Sleep:\n")?;
        writeln!(
            out,
            "\tDEVSLP Exit Timeout (DETO): {} ms ({})",
            s.exit_timeout_ms, s.exit_timeout_source
        )?;
        writeln!(
            out,
            "\tMinimum DEVSLP Assertion Time (MDAT): {} ms ({})",
            s.min_assertion_ms, s.min_assertion_source
        )?;
    }
    if let Some(i) = &r.integrity {
        let sum = u32::from(i.byte_sum);
        match i.checksum_correct {
            Some(true) => out.write_all(b"Checksum: correct\n")?,
            // hdparm ends this line and then adds its usual newline: one blank line follows.
            Some(false) => writeln!(
                out,
                "Checksum: incorrect (0x{sum:02x}), expected 0x{:02x}\n",
                0x100 - sum
            )?,
            // With a zero sum, "expected" prints 0x100 before the a5: kept as hdparm does.
            None => writeln!(
                out,
                "Integrity word not set (found 0x{:04x}, expected 0x{:02x}a5)",
                i.word,
                0x100 - sum
            )?,
        }
    }
    Ok(())
}

fn standards(out: &mut dyn Write, s: &Standards) -> io::Result<()> {
    out.write_all(b"Standards:")?;
    match s {
        Standards::Ata {
            used,
            supported,
            likely_used,
            some_of,
            ..
        } => {
            if let Some(u) = used {
                write!(out, "\n\tUsed: {u} ")?;
            }
            if let Some(list) = supported {
                out.write_all(b"\n\tSupported: ")?;
                for v in list {
                    write!(out, "{v} ")?;
                }
            }
            if let Some(l) = likely_used {
                writeln!(out, "\n\tLikely used: {l}")?;
            } else if let Some(n) = some_of {
                writeln!(out, "& some of {n}")?;
            } else {
                out.write_all(b"\n")?;
            }
        }
        Standards::Cdrom {
            used_sff_8020i,
            supported_atapi,
            likely_atapi_1,
        } => {
            if *used_sff_8020i {
                out.write_all(b"\n\tUsed: ATAPI for CD-ROMs, SFF-8020i, r2.5")?;
            }
            if let Some(list) = supported_atapi {
                out.write_all(b"\n\tSupported: CD-ROM ATAPI")?;
                for v in list {
                    write!(out, "-{v} ")?;
                }
            }
            if *likely_atapi_1 {
                out.write_all(b"\n\tLikely used CD-ROM ATAPI-1\n")?;
            } else {
                out.write_all(b"\n")?;
            }
        }
    }
    Ok(())
}

fn configuration(out: &mut dyn Write, c: &Configuration) -> io::Result<()> {
    out.write_all(b"Configuration:\n")?;
    for f in &c.ata1_flags {
        writeln!(out, "\t{f}")?;
    }
    if let Some(a) = &c.atapi {
        writeln!(out, "\tDRQ response: {}", a.drq_response)?;
        writeln!(out, "\tPacket size: {}", a.packet_size)?;
    }
    if let Some(a) = &c.addressing {
        match &a.chs {
            None => out.write_all(b"\tCHS addressing not supported\n")?,
            Some(chs) => {
                out.write_all(b"\tLogical\t\tmax\tcurrent\n")?;
                writeln!(
                    out,
                    "\tcylinders\t{}\t{}",
                    chs.cylinders_max, chs.cylinders_current
                )?;
                writeln!(out, "\theads\t\t{}\t{}", chs.heads_max, chs.heads_current)?;
                writeln!(
                    out,
                    "\tsectors/track\t{}\t{}",
                    chs.sectors_per_track_max, chs.sectors_per_track_current
                )?;
                out.write_all(b"\t--\n")?;
                if let (Some(t), Some(s)) = (chs.bytes_per_track, chs.bytes_per_sector) {
                    writeln!(out, "\tbytes/track: {t}\tbytes/sector: {s}")?;
                }
                if let Some(n) = chs.current_addressable_sectors {
                    writeln!(out, "\tCHS current addressable sectors:{n:>12}")?;
                }
            }
        }
        if let Some(n) = a.lba28_sectors {
            writeln!(out, "\tLBA    user addressable sectors:{n:>12}")?;
        }
        if let Some(n) = a.lba48_sectors {
            writeln!(out, "\tLBA48  user addressable sectors:{n:>12}")?;
        }
        let s = &a.sector_size;
        if !s.reported {
            writeln!(
                out,
                "\t{:<31} {:>11} bytes",
                "Logical/Physical Sector size:", s.logical_bytes
            )?;
        } else {
            write!(
                out,
                "\t{:<31} {:>11} bytes",
                "Logical  Sector size:", s.logical_bytes
            )?;
            if let Some(list) = s.supported_logical_bytes.as_ref().filter(|l| !l.is_empty()) {
                out.write_all(b" [ Supported:")?;
                for v in list {
                    write!(out, " {v}")?;
                }
                out.write_all(b" ]")?;
            }
            out.write_all(b"\n")?;
            writeln!(
                out,
                "\t{:<31} {:>11} bytes",
                "Physical Sector size:", s.physical_bytes
            )?;
            if let Some(off) = s.sector0_offset_bytes {
                writeln!(
                    out,
                    "\t{:<31} {:>11} bytes",
                    "Logical Sector-0 offset:", off
                )?;
            }
        }
        writeln!(
            out,
            "\tdevice size with M = 1024*1024: {:>11} MBytes",
            a.device_size_mebibytes
        )?;
        write!(
            out,
            "\tdevice size with M = 1000*1000: {:>11} MBytes ",
            a.device_size_mbytes
        )?;
        match a.device_size_gbytes {
            Some(gb) => writeln!(out, "({gb} GB)")?,
            None => out.write_all(b"\n")?,
        }
    }
    out.write_all(b"\tcache/buffer size  = ")?;
    match c.cache_buffer_kbytes {
        Some(kb) => {
            write!(out, "{kb} KBytes")?;
            if let Some(t) = c.cache_buffer_type {
                write!(out, " (type={t})")?;
            }
        }
        None => out.write_all(b"unknown")?,
    }
    out.write_all(b"\n")?;
    if let Some(ff) = &c.form_factor {
        writeln!(out, "\tForm Factor: {}", ff.text)?;
    }
    match c.rotation {
        Some(Rotation::SolidState) => {
            out.write_all(b"\tNominal Media Rotation Rate: Solid State Device\n")?
        }
        Some(Rotation::Rpm { rpm }) => writeln!(out, "\tNominal Media Rotation Rate: {rpm}")?,
        None => {}
    }
    Ok(())
}

fn capabilities(out: &mut dyn Write, c: &Capabilities) -> io::Result<()> {
    capability_flags_and_buffer(out, c)?;
    timers_and_power(out, c)?;
    dma_and_pio(out, c)
}

/// The `Capabilities:` line, the buffer and queue depth.
fn capability_flags_and_buffer(out: &mut dyn Write, c: &Capabilities) -> io::Result<()> {
    out.write_all(b"Capabilities:\n\t")?;
    if c.cmd_queuing {
        out.write_all(b"Cmd queuing, ")?;
    }
    if c.cmd_overlap {
        out.write_all(b"Cmd overlap, ")?;
    }
    if c.lba {
        out.write_all(b"LBA, ")?;
    }
    match &c.iordy {
        Some(i) => {
            out.write_all(b"IORDY")?;
            if !i.supported {
                out.write_all(b"(may be)")?;
            }
            out.write_all(if i.can_be_disabled {
                b"(can be disabled)"
            } else {
                b"(cannot be disabled)"
            })?;
        }
        None => out.write_all(b"IORDY not likely")?,
    }
    out.write_all(b"\n")?;
    if let Some(t) = c.buffer_type {
        write!(out, "\tBuffer type: {t:04x}: ")?;
        out.write_all(if t < 2 {
            b"single port, single-sector"
        } else {
            b"dual port, multi-sector"
        })?;
        if t > 2 {
            out.write_all(b" with read caching ability")?;
        }
        out.write_all(b"\n")?;
    }
    let mut any = false;
    if let Some(bytes) = c.buffer_size_bytes {
        // hdparm prints word 21 / 2 with %.1f: the fraction is always .0 or .5.
        let halves = bytes / 512;
        write!(
            out,
            "\tBuffer size: {}.{}kB",
            halves / 2,
            if halves % 2 == 1 { 5 } else { 0 }
        )?;
        any = true;
    }
    if let Some(n) = c.rw_long_bytes {
        write!(out, "\tbytes avail on r/w long: {n}")?;
        any = true;
    }
    if let Some(q) = c.queue_depth {
        write!(out, "\tQueue depth: {q}")?;
        any = true;
    }
    if any {
        out.write_all(b"\n")?;
    }
    Ok(())
}

/// Double-word IO, the standby timer, multiple sector transfer, APM, AAM, ATAPI's overlap.
fn timers_and_power(out: &mut dyn Write, c: &Capabilities) -> io::Result<()> {
    if let Some(dw) = c.double_word_io {
        writeln!(
            out,
            "\tCan{} perform double-word IO",
            if dw { "" } else { "not" }
        )?;
    }
    if let Some(st) = &c.standby_timer {
        write!(
            out,
            "\tStandby timer values: spec'd by {}",
            if st.standard_values {
                "Standard"
            } else {
                "Vendor"
            }
        )?;
        match st.device_specific_minimum {
            Some(true) => out.write_all(b", with device specific minimum\n")?,
            Some(false) => out.write_all(b", no device specific minimum\n")?,
            None => out.write_all(b"\n")?,
        }
    }
    if let Some(m) = &c.multiple_sector_transfer {
        out.write_all(b"\tR/W multiple sector transfer: ")?;
        match m {
            MultipleSectorTransfer::NotSupported => out.write_all(b"not supported\n")?,
            MultipleSectorTransfer::Supported {
                max_sectors,
                current_sectors,
            } => {
                write!(out, "Max = {max_sectors}\tCurrent = ")?;
                match current_sectors {
                    Some(n) => writeln!(out, "{n}")?,
                    None => out.write_all(b"?\n")?,
                }
            }
        }
    }
    match &c.advanced_power_management {
        Some(Apm::Enabled { level, .. }) => {
            writeln!(out, "\tAdvanced power management level: {level}")?
        }
        Some(Apm::Disabled) => out.write_all(b"\tAdvanced power management level: disabled\n")?,
        Some(Apm::NotSupported) | None => {}
    }
    if let Some(a) = &c.acoustic_management {
        writeln!(
            out,
            "\tRecommended acoustic management value: {}, current value: {}",
            a.recommended, a.current
        )?;
    }
    if c.atapi_sw_reset_required {
        out.write_all(b"\tATA sw reset required\n")?;
    }
    if let Some(o) = &c.overlap {
        out.write_all(b"\tOverlap support:")?;
        if let Some(v) = o.release_bus_us {
            write!(out, " {v}us to release bus.")?;
        }
        if let Some(v) = o.clear_bsy_us {
            write!(out, " {v}us to clear BSY after SERVICE cmd.")?;
        }
        out.write_all(b"\n")?;
    }
    if c.dmadir_required {
        out.write_all(b"\tDMADIR bit required in PACKET commands\n")?;
    }
    Ok(())
}

/// The `DMA:` and `PIO:` modes with their cycle times.
fn dma_and_pio(out: &mut dyn Write, c: &Capabilities) -> io::Result<()> {
    out.write_all(b"\tDMA: ")?;
    match &c.dma.modes {
        DmaModes::NotSupported => out.write_all(b"not supported\n")?,
        other => {
            match other {
                DmaModes::Legacy { sdma } => write!(out, "sdma{sdma}")?,
                DmaModes::List {
                    modes,
                    questionable,
                } => {
                    out.write_all(mode_text(modes).as_bytes())?;
                    if *questionable {
                        out.write_all(b"(?)")?;
                    }
                }
                DmaModes::NotSupported => {}
            }
            out.write_all(b"\n")?;
            if c.dma.interleaved {
                out.write_all(b"\t     Interleaved DMA support\n")?;
            }
            if c.dma.cycle_min_ns.is_some() || c.dma.cycle_recommended_ns.is_some() {
                out.write_all(b"\t     Cycle time:")?;
                if let Some(v) = c.dma.cycle_min_ns {
                    write!(out, " min={v}ns")?;
                }
                if let Some(v) = c.dma.cycle_recommended_ns {
                    write!(out, " recommended={v}ns")?;
                }
                out.write_all(b"\n")?;
            }
        }
    }
    out.write_all(b"\tPIO: ")?;
    match &c.pio.modes {
        Some(modes) => {
            for m in modes {
                write!(out, "pio{m} ")?;
            }
            out.write_all(b"\n")?;
        }
        None => out.write_all(b"unknown\n")?,
    }
    if c.pio.cycle_no_flow_control_ns.is_some() || c.pio.cycle_iordy_flow_control_ns.is_some() {
        out.write_all(b"\t     Cycle time:")?;
        if let Some(v) = c.pio.cycle_no_flow_control_ns {
            write!(out, " no flow control={v}ns")?;
        }
        if let Some(v) = c.pio.cycle_iordy_flow_control_ns {
            write!(out, "  IORDY flow control={v}ns")?;
        }
        out.write_all(b"\n")?;
    }
    Ok(())
}

fn cfa(out: &mut dyn Write, c: &Cfa) -> io::Result<()> {
    if let Some(ns) = c.max_io_udma_cycle_ns {
        writeln!(out, "\t\tCFA max advanced io_udma cycle time: {ns}ns")?;
    }
    if let Some(ns) = c.max_mem_udma_cycle_ns {
        writeln!(out, "\t\tCFA max advanced mem_udma cycle time: {ns}ns")?;
    }
    if !c.advanced_modes.is_empty() {
        writeln!(
            out,
            "\t   *\tCFA advanced modes: {}",
            mode_text(&c.advanced_modes)
        )?;
    }
    if let Some(p) = &c.power_level_1 {
        out.write_all(b"\t")?;
        if p.supported {
            out.write_all(b"   *")?;
        }
        out.write_all(b"\tCFA Power Level 1 ")?;
        if !p.supported {
            out.write_all(b" not supported")?;
        }
        if let Some(ma) = p.max_current_ma {
            write!(out, " (max {ma}mA)")?;
        }
        out.write_all(b"\n")?;
    }
    if c.cprm {
        out.write_all(b"\t\tKey Management (CPRM) feature set\n")?;
    }
    Ok(())
}

fn security(out: &mut dyn Write, s: &Security) -> io::Result<()> {
    out.write_all(b"Security: \n")?;
    if let Some(code) = s.master_password_revision {
        writeln!(out, "\tMaster password revision code = {code}")?;
    }
    if let Some(f) = &s.status {
        let lines = [
            (f.supported, "supported"),
            (f.enabled, "enabled"),
            (f.locked, "locked"),
            (f.frozen, "frozen"),
            (f.count_expired, "expired: security count"),
            (f.enhanced_erase_supported, "supported: enhanced erase"),
        ];
        for (i, (set, name)) in lines.iter().enumerate() {
            let prefix = match (set, i) {
                (true, _) => "\t\t",
                (false, 0) => "\t(?)\t",
                (false, _) => "\tnot\t",
            };
            writeln!(out, "{prefix}{name}")?;
        }
        if let Some(level) = f.level {
            writeln!(out, "\tSecurity level {level}")?;
        }
    }
    let time = |t: &EraseTime| {
        if t.more_than {
            format!("more than {}", t.minutes)
        } else {
            t.minutes.to_string()
        }
    };
    if s.erase_time.is_some() || s.enhanced_erase_time.is_some() {
        out.write_all(b"\t")?;
    }
    if let Some(t) = &s.erase_time {
        write!(out, "{}min for SECURITY ERASE UNIT.", time(t))?;
    }
    if s.erase_time.is_some() && s.enhanced_erase_time.is_some() {
        out.write_all(b" ")?;
    }
    if let Some(t) = &s.enhanced_erase_time {
        write!(out, "{}min for ENHANCED SECURITY ERASE UNIT.", time(t))?;
    }
    out.write_all(b"\n")
}
