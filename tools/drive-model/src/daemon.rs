//! The running model: the state behind a lock, the command log, the state file, and the
//! control commands (`drive-model ctl ...`) that load a fresh state, power-cycle the drive,
//! change its personality, inject faults and dump the log and the end state.

use crate::ata;
use crate::scsi;
use crate::state::{self, Fault, FaultKind, Features, State};
use crate::tcmu::{self, Reply};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

pub struct Model {
    pub state: State,
    pub state_path: PathBuf,
    pub log_path: PathBuf,
    pub log: Vec<String>,
    /// The backstore's configfs directory, for plugging the drive back in (None in tests).
    pub backstore: Option<PathBuf>,
    /// The drive was pulled out (an `unplug` fault): the removal of its LUN, until joined.
    pub unplugged: Option<std::thread::JoinHandle<Result<(), String>>>,
    /// Holds the kernel's SYNCHRONIZE CACHE to the pulled-out disk (see `command`).
    pub removal_hold: Arc<tcmu::Latch>,
}

impl Model {
    pub fn new(state: State, state_path: PathBuf, log_path: PathBuf) -> Model {
        Model {
            state,
            state_path,
            log_path,
            log: Vec::new(),
            backstore: None,
            unplugged: None,
            removal_hold: Arc::new(tcmu::Latch::default()),
        }
    }

    pub fn save(&self) {
        if let Ok(t) = serde_json::to_string(&self.state) {
            let tmp = self.state_path.with_extension("tmp");
            if std::fs::write(&tmp, t).is_ok() {
                let _ = std::fs::rename(&tmp, &self.state_path);
            }
        }
    }

    fn log_command(
        &mut self,
        req: &ata::Request,
        resp: &ata::Response,
        fault: Option<&'static str>,
    ) {
        let e = ata::log_entry(req, resp, fault);
        if let Ok(line) = serde_json::to_string(&e) {
            self.append_log(line);
        }
    }

    fn append_log(&mut self, line: String) {
        if let Ok(mut f) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&self.log_path)
        {
            let _ = writeln!(f, "{line}");
        }
        self.log.push(line);
    }
}

/// SPC: ILLEGAL REQUEST, LOGICAL UNIT NOT SUPPORTED (25/00), what a target answers for a LUN
/// it no longer has.
fn lun_gone() -> Reply {
    let mut sense = vec![0u8; 18];
    sense[0] = 0x70;
    sense[2] = 0x05;
    sense[7] = 10;
    sense[12] = 0x25;
    Reply {
        status: scsi::CHECK_CONDITION,
        sense,
        ..Default::default()
    }
}

impl crate::tcmu::Handler for Model {
    fn command(&mut self, cdb: &[u8], data_out: &[u8], len: usize) -> Reply {
        // The kernel's SYNCHRONIZE CACHE while it deletes the pulled-out disk (sd's shutdown,
        // after the disk itself is gone): held until the next `ctl load`, so the removal stays
        // half done, the same for every command of the tool after the fault (their fate would
        // otherwise depend on how far the removal got: ENODEV, EBADE, EINVAL).
        if self.unplugged.is_some() && matches!(cdb.first(), Some(0x35 | 0x91)) {
            return Reply {
                hold: Some(Arc::clone(&self.removal_hold)),
                ..Default::default()
            };
        }
        if self.unplugged.is_some() && matches!(cdb.first(), Some(0x85 | 0xA1)) {
            // Nothing reaches a drive that was pulled out; were a command to come through
            // anyway, the log says so (the kernel should refuse it first).
            if let Some(req) = scsi::decode_passthrough(cdb, data_out, len) {
                self.log_command(&req, &ata::Response::default(), Some("unplugged"));
            }
            return lun_gone();
        }
        let o = scsi::handle(&mut self.state, cdb, data_out, len);
        if self.state.scsi.is_some() {
            // a SCSI-only disk logs every command it gets, with its CDB and data out
            let v = crate::scsi_disk::log_line(cdb, data_out, len, &o);
            self.append_log(v.to_string());
        }
        if let Some((req, resp)) = &o.ata {
            self.log_command(req, resp, o.fault.map(FaultKind::name));
        }
        if o.dirty {
            self.save();
        }
        let mut reply = Reply {
            status: o.status,
            data_in: o.data_in,
            sense: o.sense,
            delay_s: o.delay_s,
            ..Default::default()
        };
        if o.fault == Some(FaultKind::Unplug) {
            // The disk as the kernel has it now; its removal waits for this very command, so
            // it runs on a thread of its own, and the answer waits until the removal began.
            reply.after_gone = tcmu::scsi_devices().into_iter().next();
            self.removal_hold = Arc::new(tcmu::Latch::default());
            self.unplugged = Some(std::thread::spawn(tcmu::unlink_lun));
        }
        reply
    }
}

/// Plugs a pulled-out drive back in (before `load`): waits for the removal, links the LUN
/// again and waits for the kernel's disk; its name, None when the drive was not pulled out.
/// The model's lock is not held meanwhile: the kernel's scan of the disk is served by the
/// ring thread, which needs it.
pub fn replug(model: &Mutex<Model>) -> Result<Option<String>, String> {
    let (removal, backstore) = {
        let mut m = model.lock().map_err(|_| "model lock poisoned")?;
        match m.unplugged.take() {
            Some(h) => {
                // the removal finishes once its held SYNCHRONIZE CACHE is answered
                m.removal_hold.open();
                (h, m.backstore.clone())
            }
            None => return Ok(None),
        }
    };
    removal
        .join()
        .map_err(|_| "the unplug thread panicked".to_string())??;
    let backstore = backstore.ok_or("no backstore to plug the drive back into")?;
    tcmu::link_lun(&backstore)?;
    tcmu::wait_disk(Duration::from_secs(10))
        .map(Some)
        .ok_or_else(|| "the disk did not come back within 10 s of plugging it in".to_string())
}

fn parse_num(s: &str) -> Result<u64, String> {
    let r = if let Some(h) = s.strip_prefix("0x") {
        u64::from_str_radix(h, 16)
    } else {
        s.parse()
    };
    r.map_err(|e| format!("{s}: {e}"))
}

fn set_feature(f: &mut Features, name: &str, on: bool) -> Result<(), String> {
    match name {
        "all" => {
            *f = if on {
                Features::all()
            } else {
                Features::none()
            }
        }
        "security" => f.security = on,
        "hpa" => f.hpa = on,
        "amax" => f.amax = on,
        "dco" => f.dco = on,
        "sanitize" => f.sanitize = on,
        "trim" => f.trim = on,
        "microcode" => f.download_microcode = on,
        "write-unc" => f.write_uncorrectable = on,
        "sector-config" => f.sector_config = on,
        "wd" => f.wd_vendor = on,
        _ => return Err(format!("unknown feature {name}")),
    }
    Ok(())
}

/// Whether a command log line is a pure read (see [`ata::is_pure_read`]).
fn logged_pure_read(line: &str) -> bool {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(line) else {
        return false;
    };
    let num = |k: &str| {
        v.get(k)
            .and_then(|x| x.as_str())
            .and_then(|x| parse_num(x).ok())
            .unwrap_or(u64::MAX)
    };
    let (c, f, l) = (num("command"), num("feature"), num("lba"));
    c <= 0xFF && f <= 0xFFFF && ata::is_pure_read(c as u8, f as u16, l)
}

/// The end state, as compared between the two tools' runs.
pub fn end_state(s: &State, extra: &[u64]) -> serde_json::Value {
    let mut lbas: Vec<u64> = vec![0, 1, 2, 100, 1000, 2048, 4096, 1_048_576];
    lbas.push(s.current_max_lba());
    lbas.extend(s.sectors.keys().copied());
    lbas.extend(s.uncorrectable.iter().copied());
    for &(a, n) in &s.trimmed {
        lbas.push(a);
        lbas.push(a + n - 1);
        lbas.push(a + n);
    }
    lbas.extend(extra);
    lbas.sort_unstable();
    lbas.dedup();
    let sectors: serde_json::Map<String, serde_json::Value> = lbas
        .iter()
        .map(|&l| {
            let d = s.read_sector(l);
            let v = if d.iter().all(|&b| b == 0) {
                "zero".to_string()
            } else {
                state::digest(&d)
            };
            (l.to_string(), json!(v))
        })
        .collect();
    let sec = &s.security;
    json!({
        "security": {
            "enabled": sec.enabled, "locked": sec.locked, "frozen": sec.frozen,
            "level": if sec.level_max { "max" } else { "high" },
            "attempts_left": sec.attempts_left,
            "user_password": sec.user_password,
            "master_password": sec.master_password,
            "master_revision": format!("0x{:04x}", sec.master_revision),
        },
        "max_lba": s.current_max_lba(),
        "max_lba_nonvolatile": s.max_lba,
        "max_lba_volatile": s.max_lba_volatile,
        "native_max_lba": s.dco_max_lba,
        "set_max_frozen": s.set_max_frozen,
        "dco_frozen": s.dco_frozen,
        "sanitize": {
            "frozen": s.sanitize.frozen, "antifreeze": s.sanitize.antifreeze,
            "operation": s.sanitize.operation, "steps_left": s.sanitize.steps_left,
            "last_completed_ok": s.sanitize.last_completed_ok,
        },
        "firmware": {
            "revision": s.firmware.revision,
            "received_blocks": s.firmware.received_blocks,
            "downloads_completed": s.firmware.downloads_completed,
            "digest": s.firmware.digest,
        },
        "wd_idle3": format!("0x{:02x}", s.wd.idle3),
        "wd_vsc_enabled": s.wd.vsc_enabled,
        "sector_config": s.sector_config,
        "power": format!("0x{:02x}", s.power),
        // the SCSI-only disk's own state (absent for a SATA disk, so those logs stay as
        // they were)
        "scsi": s.scsi.as_ref().map(|d| json!({
            "power": d.power, "power_by_command": d.power_by_command,
            "mode_current": d.current, "mode_saved": d.saved,
            "sanitize_running": d.sanitize.is_some(), "sanitize_failed": d.sanitize_failed,
            "deferred_bytes": d.deferred.len(), "activations": d.activations,
            "temperature_c": d.temperature_c,
        })),
        "write_cache": s.write_cache, "look_ahead": s.look_ahead,
        "apm": s.apm, "aam": s.aam, "multiple": s.multiple, "smart": s.smart_enabled,
        "trimmed": s.trimmed,
        "wiped": s.wiped.map(|p| format!("0x{p:08x}")),
        "uncorrectable": s.uncorrectable,
        "sectors": sectors,
    })
}

const FAULT_USAGE: &str = "fault abort|delay|timeout|reset|unplug CMD [feat=F] [secs=S] [nth=N] | fault abort CMD [FEAT] | fault delay CMD SECS | fault clear";

/// One control command (a line of words); the answer text, or an error.
pub fn control(m: &mut Model, words: &[&str]) -> Result<String, String> {
    let s = &mut m.state;
    let out = match words {
        ["load", path] => {
            let t = std::fs::read_to_string(path).map_err(|e| format!("{path}: {e}"))?;
            m.state = serde_json::from_str(&t).map_err(|e| format!("{path}: {e}"))?;
            m.log.clear();
            let _ = std::fs::write(&m.log_path, "");
            m.save();
            "loaded\n".to_string()
        }
        ["save", path] => {
            let t = serde_json::to_string_pretty(s).map_err(|e| e.to_string())?;
            std::fs::write(path, t).map_err(|e| format!("{path}: {e}"))?;
            "saved\n".to_string()
        }
        ["reboot"] => {
            s.power_cycle();
            if let Some(d) = s.scsi.as_mut() {
                d.power_cycle();
            }
            m.save();
            "power cycled\n".to_string()
        }
        ["set", rest @ ..] => {
            for kv in rest {
                let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
                match k {
                    "sense" if v == "fixed" || v == "descriptor" => s.personality.sense = v.into(),
                    "inquiry" if v == "ata" || v == "usb" => s.personality.inquiry = v.into(),
                    "always_sense" => s.personality.always_sense = v == "1",
                    "lacks" => set_feature(&mut s.features, v, false)?,
                    "has" => set_feature(&mut s.features, v, true)?,
                    "frozen" => {
                        s.security.frozen = true;
                        s.sanitize.frozen = true;
                        s.dco_frozen = true;
                        s.set_max_frozen = true;
                    }
                    "power" => s.power = parse_num(v)? as u8,
                    // SD3: the last sanitize failed (status aborts with reason 1 until a
                    // status with the CLEAR SANITIZE OPERATION FAILED bit, LBA bit 0)
                    "sanitize_failed" => {
                        s.sanitize.failed = true;
                        if let Some(d) = s.scsi.as_mut() {
                            d.sanitize_failed = true;
                        }
                    }
                    // SCSI-only disk: the temperature log page's (and 2Fh's) current
                    // temperature, and how long a SANITIZE lasts
                    "temperature" => {
                        let t = parse_num(v)? as u8;
                        s.scsi
                            .as_mut()
                            .ok_or("set temperature: not a SCSI-only disk")?
                            .temperature_c = t;
                    }
                    "sanitize_secs" => {
                        let n = parse_num(v)?;
                        s.scsi
                            .as_mut()
                            .ok_or("set sanitize_secs: not a SCSI-only disk")?
                            .sanitize_ms = n * 1000;
                    }
                    // an operation that lasts N status queries (the progress demo)
                    "sanitize_steps" => s.sanitize.steps_setting = parse_num(v)? as u32,
                    "checkwords" => {
                        s.sector_config_checks = v
                            .split(',')
                            .map(|c| parse_num(c).map(|n| n as u16))
                            .collect::<Result<_, _>>()?;
                    }
                    _ => return Err(format!("set: unknown {kv}")),
                }
            }
            m.save();
            "set\n".to_string()
        }
        ["fault", "clear"] => {
            s.faults.clear();
            "faults cleared\n".to_string()
        }
        ["fault", kind, cmd, rest @ ..] => {
            let kind = match *kind {
                "abort" => FaultKind::Abort,
                "delay" => FaultKind::Delay,
                "timeout" => FaultKind::Timeout,
                "reset" => FaultKind::Reset,
                "unplug" => FaultKind::Unplug,
                _ => return Err(FAULT_USAGE.into()),
            };
            let mut fault = Fault {
                command: parse_num(cmd)? as u8,
                feature: None,
                kind,
                secs: if kind == FaultKind::Timeout { 2 } else { 0 },
                nth: None,
                seen: 0,
            };
            for word in rest {
                match word.split_once('=') {
                    Some(("feat", v)) => fault.feature = Some(parse_num(v)? as u16),
                    Some(("secs", v)) => fault.secs = parse_num(v)?,
                    Some(("nth", v)) => fault.nth = Some(parse_num(v)? as u32),
                    // the first forms: `fault abort CMD FEAT`, `fault delay CMD SECS`
                    None if kind == FaultKind::Abort => {
                        fault.feature = Some(parse_num(word)? as u16)
                    }
                    None if kind == FaultKind::Delay => fault.secs = parse_num(word)?,
                    _ => return Err(FAULT_USAGE.into()),
                }
            }
            s.faults.push(fault);
            m.save();
            "fault set\n".to_string()
        }
        ["log"] => m.log.iter().map(|l| format!("{l}\n")).collect(),
        ["dump", lbas @ ..] => {
            let extra: Vec<u64> = lbas
                .iter()
                .map(|l| parse_num(l))
                .collect::<Result<_, _>>()?;
            let v = end_state(s, &extra);
            format!(
                "{}\n",
                serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?
            )
        }
        ["end", args @ ..] => {
            // --writes-only: the log without the pure reads (ata::is_pure_read), for
            // scenarios whose two tools read the drive differently but must change it alike
            let writes_only = args.first() == Some(&"--writes-only");
            let lbas = if writes_only { &args[1..] } else { args };
            let extra: Vec<u64> = lbas
                .iter()
                .map(|l| parse_num(l))
                .collect::<Result<_, _>>()?;
            let kept: Vec<&String> = m
                .log
                .iter()
                .filter(|l| !writes_only || !logged_pure_read(l))
                .collect();
            let what = if s.scsi.is_some() { "SCSI" } else { "ATA" };
            let mut t = if writes_only {
                format!(
                    "# {what} commands received that are not pure reads: {}\n",
                    kept.len()
                )
            } else {
                format!("# {what} commands received: {}\n", m.log.len())
            };
            for l in kept {
                t.push_str(l);
                t.push('\n');
            }
            t.push_str("# end state\n");
            let v = end_state(&m.state, &extra);
            t.push_str(&serde_json::to_string_pretty(&v).map_err(|e| e.to_string())?);
            t.push('\n');
            t
        }
        ["sector", lba] => {
            let d = s.read_sector(parse_num(lba)?);
            format!("{}\n", state::hex(&d))
        }
        _ => return Err(format!("unknown control command: {}", words.join(" "))),
    };
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> Model {
        let dir = std::env::temp_dir().join(format!("drive-model-test-{}", std::process::id()));
        let _ = std::fs::create_dir_all(&dir);
        Model::new(
            State::new(vec![0; 256], "t", 4096),
            dir.join("state.json"),
            dir.join("log.jsonl"),
        )
    }

    #[test]
    fn control_commands_change_personality_and_faults() {
        let mut m = model();
        control(&mut m, &["set", "sense=fixed", "lacks=security"]).unwrap();
        assert_eq!(m.state.personality.sense, "fixed");
        assert!(!m.state.features.security);
        control(&mut m, &["fault", "abort", "0xe5"]).unwrap();
        let cdb = [
            0x85, 0x06, 0x20, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, 0xe5, 0,
        ];
        let r = crate::tcmu::Handler::command(&mut m, &cdb, &[], 0);
        assert_eq!((r.status, r.sense[0], r.sense[3]), (2, 0x70, 0x04));
        let end = control(&mut m, &["end"]).unwrap();
        assert!(end.starts_with("# ATA commands received: 1\n"));
        assert!(control(&mut m, &["bogus"]).is_err());
        // --writes-only leaves IDENTIFY and CHECK POWER MODE out, keeps SET FEATURES
        m.log.clear();
        let ata = |cmd: u8, feat: u8| {
            [
                0x85, 0x06, 0x20, 0, feat, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, cmd, 0,
            ]
        };
        for cdb in [ata(0xec, 0), ata(0xef, 0x82), ata(0xe5, 0), ata(0xe0, 0)] {
            let _ = crate::tcmu::Handler::command(&mut m, &cdb, &[], 512);
        }
        let all = control(&mut m, &["end"]).unwrap();
        assert!(all.starts_with("# ATA commands received: 4\n"));
        let w = control(&mut m, &["end", "--writes-only"]).unwrap();
        assert!(w.starts_with("# ATA commands received that are not pure reads: 2\n"));
        let cmds: Vec<&str> = w.lines().filter(|l| l.starts_with('{')).collect();
        assert!(
            cmds[0].contains("\"command\":\"0xef\"") && cmds[1].contains("\"command\":\"0xe0\"")
        );
    }

    #[test]
    fn faults_hit_the_nth_command_and_say_what_happened() {
        let mut m = model();
        let ata = |cmd: u8, feat: u8| {
            [
                0x85, 0x06, 0x20, 0, feat, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, cmd, 0,
            ]
        };
        // the second SET FEATURES 0x02 is reset; the first and third are carried out
        control(&mut m, &["fault", "reset", "0xef", "feat=0x02", "nth=2"]).unwrap();
        control(&mut m, &["fault", "timeout", "0xe5", "secs=3"]).unwrap();
        let r: Vec<_> = (0..3)
            .map(|_| crate::tcmu::Handler::command(&mut m, &ata(0xef, 0x02), &[], 0))
            .collect();
        assert_eq!(r[0].sense[1], 0x01, "the first is answered (CK_COND)");
        assert_eq!(
            (r[1].sense[0], r[1].sense[1], r[1].sense[2]),
            (0x72, 0x06, 0x29)
        );
        assert_eq!(r[2].sense[1], 0x01, "the fault fired once");
        assert_eq!(m.state.power_cycles, 1, "the reset is a hardware reset");
        let t = crate::tcmu::Handler::command(&mut m, &ata(0xe5, 0), &[], 0);
        assert_eq!(
            (t.sense[1], t.sense[2], t.sense[3], t.delay_s),
            (0x0B, 0x08, 0x01, 3)
        );
        let faults: Vec<Option<String>> = m
            .log
            .iter()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v.get("fault").and_then(|f| f.as_str()).map(str::to_string)
            })
            .collect();
        assert_eq!(
            faults,
            [None, Some("reset".into()), None, Some("timeout".into())]
        );
        assert!(control(&mut m, &["fault", "melt", "0xef"]).is_err());
        assert!(control(&mut m, &["fault", "reset", "0xef", "bogus"]).is_err());
    }

    #[test]
    fn a_scsi_only_disk_logs_every_command_with_its_cdb() {
        let mut m = model();
        m.state.scsi = Some(crate::state::ScsiDisk::new());
        let ata16 = [
            0x85, 0x08, 0x0e, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x40, 0xec, 0,
        ];
        let _ = crate::tcmu::Handler::command(&mut m, &[0x12, 0, 0, 0, 36, 0], &[], 36);
        let r = crate::tcmu::Handler::command(&mut m, &ata16, &[], 512);
        assert_eq!((r.status, r.sense[2], r.sense[12]), (2, 0x05, 0x20));
        let list = [
            0, 22, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x20, 0, 0, 0, 0,
        ];
        let _ =
            crate::tcmu::Handler::command(&mut m, &[0x42, 0, 0, 0, 0, 0, 0, 0, 24, 0], &list, 24);
        let end = control(&mut m, &["end"]).unwrap();
        assert!(end.starts_with("# SCSI commands received: 3\n"), "{end}");
        let lines: Vec<serde_json::Value> = end
            .lines()
            .filter(|l| l.starts_with("{\""))
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(lines[0]["scsi"], "12 00 00 00 24 00");
        assert_eq!(lines[1]["sense"], "5/20/00");
        assert!(lines[2]["data_out"]
            .as_str()
            .unwrap()
            .starts_with("00 16 00 10"));
        assert!(
            end.contains("\"scsi\": {"),
            "the end state has the SCSI disk's"
        );
        control(&mut m, &["set", "temperature=44", "sanitize_secs=5"]).unwrap();
        let d = m.state.scsi.as_ref().unwrap();
        assert_eq!((d.temperature_c, d.sanitize_ms), (44, 5000));
    }

    #[test]
    fn standby_is_left_only_for_media_access() {
        let mut m = model();
        let ata = |cmd: u8, feat: u8| {
            [
                0x85, 0x06, 0x20, 0, feat, 0, 0, 0, 0, 0, 0, 0, 0, 0x40, cmd, 0,
            ]
        };
        let _ = crate::tcmu::Handler::command(&mut m, &ata(0xe0, 0), &[], 0);
        assert_eq!(m.state.power, 0x00);
        for cdb in [ata(0xe5, 0), ata(0xec, 0), ata(0xef, 0x02)] {
            let _ = crate::tcmu::Handler::command(&mut m, &cdb, &[], 512);
            assert_eq!(m.state.power, 0x00, "{cdb:02x?} woke the drive");
        }
        let _ = crate::tcmu::Handler::command(&mut m, &ata(0xb0, 0xd0), &[], 512);
        assert_eq!(m.state.power, 0xFF, "SMART READ DATA spins up");
        let _ = crate::tcmu::Handler::command(&mut m, &ata(0xe0, 0), &[], 0);
        let read10 = [0x28, 0, 0, 0, 0, 9, 0, 0, 1, 0];
        let _ = crate::tcmu::Handler::command(&mut m, &read10, &[], 512);
        assert_eq!(m.state.power, 0xFF, "a SCSI READ spins up");
    }
}
