//! drive-model's command line: `new` (a state file from an IDENTIFY dump; `--scsi-only`: a
//! SAS disk that refuses ATA PASS-THROUGH), `serve` (configure
//! the kernel's SCSI target and serve the TCMU ring, with a control socket) and `ctl` (send
//! one control command to a running model).

use drive_model::daemon::{control, replug, Model};
use drive_model::state::{parse_identify_hex, State, DEFAULT_SECTORS};
use drive_model::tcmu;
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

const USAGE: &str = "usage:
  drive-model new --identify FILE.hex --out STATE.json [--sectors N]
  drive-model new --scsi-only [--identify FILE.hex] --out STATE.json [--sectors N]
  drive-model serve --state STATE.json [--name NAME] [--socket PATH] [--log PATH]
  drive-model ctl [--socket PATH] COMMAND...
control commands: load FILE | save FILE | reboot | set KEY=VALUE... (sense=fixed|descriptor,
  inquiry=ata|usb, always_sense=0|1, lacks=FEATURE, has=FEATURE, frozen, power=N,
  sanitize_failed, sanitize_steps=N, checkwords=A,B; SCSI-only: temperature=C,
  sanitize_secs=N) |
  fault abort|delay|timeout|reset|unplug CMD [feat=F] [secs=S] [nth=N] | fault abort CMD [FEAT] |
  fault delay CMD SECS | fault clear | replug | log | dump [LBA...] |
  end [--writes-only] [LBA...] | sector LBA
features: all security hpa amax dco sanitize trim microcode write-unc sector-config wd";

const SOCKET: &str = "/run/drive-model.sock";

fn opt(args: &[String], name: &str) -> Option<String> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1).cloned())
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let r = match args.first().map(String::as_str) {
        Some("new") => cmd_new(&args[1..]),
        Some("serve") => cmd_serve(&args[1..]),
        Some("ctl") => cmd_ctl(&args[1..]),
        _ => Err(USAGE.to_string()),
    };
    if let Err(e) = r {
        eprintln!("drive-model: {e}");
        std::process::exit(1);
    }
}

fn cmd_new(args: &[String]) -> Result<(), String> {
    // --scsi-only: a SAS disk (scsi_disk), which needs no IDENTIFY words but keeps them when
    // given (the firmware revision comes from them)
    let scsi_only = args.iter().any(|a| a == "--scsi-only");
    let id = opt(args, "--identify");
    let out = opt(args, "--out").ok_or(USAGE)?;
    let sectors = match opt(args, "--sectors") {
        Some(n) => n.parse().map_err(|e| format!("--sectors {n}: {e}"))?,
        None => DEFAULT_SECTORS,
    };
    let (words, name) = match id {
        Some(id) => {
            let text = std::fs::read_to_string(&id).map_err(|e| format!("{id}: {e}"))?;
            let words = parse_identify_hex(&text).map_err(|e| format!("{id}: {e}"))?;
            let name = std::path::Path::new(&id)
                .file_stem()
                .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
            (words, name)
        }
        None if scsi_only => (vec![0; 256], "scsi-only".to_string()),
        None => return Err(USAGE.into()),
    };
    let mut s = State::new(words, &name, sectors);
    if scsi_only {
        s.scsi = Some(drive_model::state::ScsiDisk::new());
    }
    let t = serde_json::to_string_pretty(&s).map_err(|e| e.to_string())?;
    std::fs::write(&out, t).map_err(|e| format!("{out}: {e}"))
}

fn cmd_serve(args: &[String]) -> Result<(), String> {
    let state_path = PathBuf::from(opt(args, "--state").ok_or(USAGE)?);
    let name = opt(args, "--name").unwrap_or_else(|| "model".into());
    let socket = opt(args, "--socket").unwrap_or_else(|| SOCKET.into());
    let log_path = PathBuf::from(
        opt(args, "--log")
            .unwrap_or_else(|| state_path.with_extension("log").display().to_string()),
    );
    let text = std::fs::read_to_string(&state_path)
        .map_err(|e| format!("{}: {e}", state_path.display()))?;
    let state: State =
        serde_json::from_str(&text).map_err(|e| format!("{}: {e}", state_path.display()))?;
    let bytes = state.factory_sectors * 512;
    let model = Arc::new(Mutex::new(Model::new(state, state_path, log_path)));
    // the control socket first, so that `ctl` works as soon as the disk appears
    let _ = std::fs::remove_file(&socket);
    let listener = UnixListener::bind(&socket).map_err(|e| format!("{socket}: {e}"))?;
    let m2 = Arc::clone(&model);
    std::thread::spawn(move || {
        for conn in listener.incoming().flatten() {
            serve_control(&m2, conn);
        }
    });
    let backstore = tcmu::create_backstore(&name, bytes)?;
    if let Ok(mut m) = model.lock() {
        m.backstore = Some(backstore.clone());
    }
    let (uio, len) = tcmu::find_uio(&name)?;
    let m3 = Arc::clone(&model);
    let ring = std::thread::spawn(move || tcmu::serve(&uio, len, m3));
    tcmu::create_loopback(&backstore)?;
    eprintln!(
        "drive-model: serving {name} (backstore {})",
        backstore.display()
    );
    match ring.join() {
        Ok(r) => r,
        Err(_) => Err("ring thread panicked".into()),
    }
}

fn serve_control(model: &Arc<Mutex<Model>>, conn: UnixStream) {
    let mut line = String::new();
    let mut rd = BufReader::new(&conn);
    if rd.read_line(&mut line).is_err() {
        return;
    }
    let words: Vec<&str> = line.split_whitespace().collect();
    // A drive pulled out (fault unplug) is plugged back in before a fresh state is loaded,
    // outside the lock (daemon::replug)
    let replugged = match words.first() {
        Some(&"load") | Some(&"replug") => replug(model),
        _ => Ok(None),
    };
    let answer = match (replugged, words.as_slice()) {
        (Err(e), _) => Err(e),
        (Ok(disk), ["replug"]) => Ok(match disk {
            Some(d) => format!("plugged in again: {d}\n"),
            None => "was not unplugged\n".to_string(),
        }),
        (Ok(_), _) => match model.lock() {
            Ok(mut m) => control(&mut m, &words),
            Err(_) => Err("model lock poisoned".into()),
        },
    };
    let mut w = &conn;
    let _ = match answer {
        Ok(t) => write!(w, "0\n{t}"),
        Err(e) => write!(w, "1\n{e}\n"),
    };
}

fn cmd_ctl(args: &[String]) -> Result<(), String> {
    let (socket, words) = if args.first().map(String::as_str) == Some("--socket") {
        (
            args.get(1).cloned().ok_or(USAGE)?,
            &args[2.min(args.len())..],
        )
    } else {
        (SOCKET.to_string(), args)
    };
    if words.is_empty() {
        return Err(USAGE.into());
    }
    let mut c = UnixStream::connect(&socket).map_err(|e| format!("{socket}: {e}"))?;
    writeln!(c, "{}", words.join(" ")).map_err(|e| e.to_string())?;
    let mut t = String::new();
    c.read_to_string(&mut t).map_err(|e| e.to_string())?;
    let (code, body) = t.split_once('\n').unwrap_or(("1", "no answer"));
    if code == "0" {
        print!("{body}");
        Ok(())
    } else {
        Err(body.trim_end().to_string())
    }
}
