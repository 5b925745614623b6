//! The running model: the state behind a lock, the command log, the state file, and the
//! control commands (`drive-model ctl ...`) that load a fresh state, power-cycle the drive,
//! change its personality, inject faults and dump the log and the end state.

use crate::ata;
use crate::scsi;
use crate::state::{self, Fault, Features, State};
use serde_json::json;
use std::io::Write;
use std::path::PathBuf;

pub struct Model {
    pub state: State,
    pub state_path: PathBuf,
    pub log_path: PathBuf,
    pub log: Vec<String>,
}

impl Model {
    pub fn save(&self) {
        if let Ok(t) = serde_json::to_string(&self.state) {
            let tmp = self.state_path.with_extension("tmp");
            if std::fs::write(&tmp, t).is_ok() {
                let _ = std::fs::rename(&tmp, &self.state_path);
            }
        }
    }
}

impl crate::tcmu::Handler for Model {
    fn command(&mut self, cdb: &[u8], data_out: &[u8], len: usize) -> (u8, Vec<u8>, Vec<u8>, u64) {
        let o = scsi::handle(&mut self.state, cdb, data_out, len);
        if let Some((req, resp)) = &o.ata {
            let e = ata::log_entry(req, resp);
            if let Ok(line) = serde_json::to_string(&e) {
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
        if o.dirty {
            self.save();
        }
        (o.status, o.data_in, o.sense, o.delay_s)
    }
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
        "write_cache": s.write_cache, "look_ahead": s.look_ahead,
        "apm": s.apm, "aam": s.aam, "multiple": s.multiple, "smart": s.smart_enabled,
        "trimmed": s.trimmed,
        "wiped": s.wiped.map(|p| format!("0x{p:08x}")),
        "uncorrectable": s.uncorrectable,
        "sectors": sectors,
    })
}

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
                    "sanitize_failed" => s.sanitize.failed = true,
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
        ["fault", kind @ ("abort" | "delay"), cmd, rest @ ..] => {
            let command = parse_num(cmd)? as u8;
            let (feature, delay_s) = match (*kind, rest) {
                ("abort", []) => (None, 0),
                ("abort", [f]) => (Some(parse_num(f)? as u16), 0),
                ("delay", [d]) => (None, parse_num(d)?),
                _ => return Err("fault abort CMD [FEAT] | fault delay CMD SECS".into()),
            };
            s.faults.push(Fault {
                command,
                feature,
                abort: *kind == "abort",
                delay_s,
            });
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
            let mut t = if writes_only {
                format!(
                    "# ATA commands received that are not pure reads: {}\n",
                    kept.len()
                )
            } else {
                format!("# ATA commands received: {}\n", m.log.len())
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
        Model {
            state: State::new(vec![0; 256], "t", 4096),
            state_path: dir.join("state.json"),
            log_path: dir.join("log.jsonl"),
            log: Vec::new(),
        }
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
        let (st, _, sense, _) = crate::tcmu::Handler::command(&mut m, &cdb, &[], 0);
        assert_eq!((st, sense[0], sense[3]), (2, 0x70, 0x04));
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
