//! The fake's drive model from tools/drive-model, the VM bench's model used as a library: the
//! fake's model disks (`FakeDevice::model_disk`, in `fake`) answer every ATA command no rule
//! scripts from the model's state (IDENTIFY, SET FEATURES, SET MULTIPLE MODE, HPA, security,
//! sanitize, SMART, ...), as the VM's TCMU drive does, so a test of a sequence sees a drive
//! that remembers. The model shares no code with `ata/`; this file only carries a taskfile to
//! it and its registers back, and a CDB to its SCSI face and its data or sense back, the job
//! SAT and the SCSI target do between the tool and a real drive.
//!
//! Must not: decode what the model answers (the steps do that, and a model that agreed with
//! their decoders would agree with their bugs: style.md), or know the fake it sits under: the
//! fake calls down here, never the other way.

use crate::ata::command::{AtaRegisters, Protocol, TaskFile};
use crate::exec::access::{AtaAnswer, AtaFailure};
use drive_model::ata::{self as model, Dir, Request};
use drive_model::state::State;

/// The real drive whose IDENTIFY the VM bench's model starts from.
const WD10EZEX: &str = include_str!("../../../tools/drive-model/identify/wdc-wd10ezex-08wn4a0.hex");

/// A fresh model of that drive, as the VM bench starts it (1 GiB visible, every feature).
pub fn wd10ezex() -> Box<State> {
    let words = drive_model::state::parse_identify_hex(WD10EZEX).unwrap_or_default();
    Box::new(State::new(
        words,
        "WDC WD10EZEX-08WN4A0",
        drive_model::state::DEFAULT_SECTORS,
    ))
}

/// One command through the model: its registers, and its data in copied to `data`; a
/// command the model failed (ERR in status) is a failure with the registers, as the real
/// device reports one.
pub fn execute(state: &mut State, tf: &TaskFile, data: &mut [u8]) -> AtaAnswer {
    let dir = match tf.protocol {
        Protocol::PioIn | Protocol::DmaIn => Dir::In,
        Protocol::PioOut | Protocol::DmaOut => Dir::Out,
        Protocol::NonData => Dir::None,
    };
    let request = Request {
        tf: model::Taskfile {
            command: tf.command,
            feature: tf.feature,
            count: tf.count,
            lba: tf.lba,
            device: tf.device,
            extend: tf.lba48,
        },
        protocol: tf.protocol.sat_code(),
        dir,
        data_out: if dir == Dir::Out {
            data.to_vec()
        } else {
            Vec::new()
        },
        data_in_len: if dir == Dir::In { data.len() } else { 0 },
        ck_cond: true,
        cdb_len: 16,
    };
    let response = model::execute(state, &request);
    let n = response.data_in.len().min(data.len());
    data[..n].copy_from_slice(&response.data_in[..n]);
    let registers = AtaRegisters {
        status: response.status,
        error: response.error,
        count: response.count,
        lba: response.lba,
        device: response.device,
        lba48: tf.lba48,
    };
    if response.is_error() {
        let failure = AtaFailure {
            reason: format!(
                "ATA command 0x{:02x} failed: status 0x{:02x}, error 0x{:02x}",
                tf.command, response.status, response.error
            ),
            not_ata: false,
            refused_by_kernel: false,
            lost: None,
        };
        return Err((failure, Some(registers)));
    }
    Ok(registers)
}

/// IDENTIFY DEVICE as the model answers it now.
pub fn identify(state: &mut State) -> Result<[u16; 256], AtaFailure> {
    let mut tf = TaskFile::new(0xEC, 0, 1);
    tf.protocol = Protocol::PioIn;
    let mut bytes = [0u8; 512];
    execute(state, &tf, &mut bytes).map_err(|(f, _)| f)?;
    let mut words = [0u16; 256];
    for (w, pair) in words.iter_mut().zip(bytes.chunks_exact(2)) {
        *w = u16::from_le_bytes([pair[0], pair[1]]);
    }
    Ok(words)
}

/// One SCSI command through the model's SCSI face (`drive_model::scsi::handle`), as the VM's
/// TCMU disk answers it: its data in, or its CHECK CONDITION as the real device reports one.
pub fn execute_scsi(
    state: &mut State,
    cmd: &crate::scsi::Command,
) -> Result<Vec<u8>, crate::exec::access::ScsiFailure> {
    let out = drive_model::scsi::handle(state, &cmd.cdb, &cmd.data_out, cmd.alloc_len as usize);
    if out.status == drive_model::scsi::GOOD {
        let mut data = out.data_in;
        data.truncate(cmd.alloc_len as usize);
        return Ok(data);
    }
    let sense = crate::scsi::sense::decode(&out.sense);
    let class = match sense {
        Some(s) if s.key == crate::scsi::sense::key::ILLEGAL_REQUEST => {
            crate::error::ErrorClass::NotApplicable
        }
        _ => crate::error::ErrorClass::Failed,
    };
    let words = sense.map_or("the disk gave no sense data".to_string(), |s| s.describe());
    Err(crate::exec::access::ScsiFailure {
        reason: format!("{} failed: {words}", cmd.name),
        sense,
        class,
    })
}
