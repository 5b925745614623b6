//! A scripted NVMe controller for the fake device (tests only): Identify data, feature values
//! that Set Features changes and Get Features reads back, log pages, blocks that Write,
//! Dataset Management and Format change and Read reads, and opcodes scripted to fail with an
//! NVMe status. What it answers is written here byte by byte, not built with `nvme`'s
//! decoders, so a decoder bug shows as a test failure rather than agreeing with itself.
//!
//! Must not: touch a device.

use crate::error::ErrorClass;
use crate::exec::access::NvmeFailure;
use crate::nvme::command::{admin, io, NvmeCommand, Queue};
use std::collections::BTreeMap;

pub struct FakeNvme {
    pub id_ctrl: Vec<u8>,
    pub id_ns: Vec<u8>,
    /// Namespace ID of the node (None: the controller's node).
    pub nsid: Option<u32>,
    /// Feature values by FID (CDW11 of Set Features; dword 0 of Get Features).
    pub features: BTreeMap<u8, u32>,
    /// Feature data (APST's table) by FID.
    pub feature_data: BTreeMap<u8, Vec<u8>>,
    pub logs: BTreeMap<u8, Vec<u8>>,
    /// Pages a log reads as next, in order, each after one read of the one before (a
    /// sanitize that moves on while `--wait` polls).
    pub later_logs: Vec<(u8, Vec<u8>)>,
    /// Logical blocks written (LBA -> contents); others read as `fill`.
    pub blocks: BTreeMap<u64, Vec<u8>>,
    pub fill: u8,
    /// (queue, opcode) -> the status the command fails with.
    pub failing: Vec<(Queue, u8, u32)>,
    pub sysfs: Vec<(String, String)>,
    /// The whole namespace, when the node is a partition of it.
    pub partition_of: Option<String>,
}

impl FakeNvme {
    /// A controller shaped like QEMU 7.2's (`-device nvme,serial=HRSNVME0001` on a 1 GiB
    /// image): volatile write cache, no APST, no sanitize, one power state, 512-byte blocks.
    pub fn qemu() -> FakeNvme {
        let mut c = vec![0u8; 4096];
        c[0..2].copy_from_slice(&[0x36, 0x1b]);
        c[2..4].copy_from_slice(&[0xf4, 0x1a]);
        c[4..24].copy_from_slice(b"HRSNVME0001         ");
        c[24..64].copy_from_slice(b"QEMU NVMe Ctrl                          ");
        c[64..72].copy_from_slice(b"7.2.0   ");
        c[77] = 7;
        c[80..84].copy_from_slice(&[0x00, 0x04, 0x01, 0x00]); // 1.4
        c[256] = 0x0a; // OACS: format, namespace management
        c[260] = 0x03; // FRMW: slot 1 read-only, 1 slot
        c[263] = 0; // NPSS: one state
        c[266..268].copy_from_slice(&[0x57, 0x01]); // WCTEMP 343 K
        c[268..270].copy_from_slice(&[0x75, 0x01]); // CCTEMP 373 K
        c[520] = 0x5d; // ONCS: compare, DSM, write zeroes, save/select, timestamp
        c[521] = 0x01; // verify
        c[525] = 0x07; // VWC present
        c[2048..2050].copy_from_slice(&[0xc4, 0x09]); // PS0 25 W
        c[2052] = 16;
        c[2056] = 4;
        let mut n = vec![0u8; 4096];
        n[0..8].copy_from_slice(&[0, 0, 0x20, 0, 0, 0, 0, 0]); // 2097152 blocks
        n[8..16].copy_from_slice(&[0, 0, 0x20, 0, 0, 0, 0, 0]);
        n[16..24].copy_from_slice(&[0, 0, 0x20, 0, 0, 0, 0, 0]);
        n[24] = 0x14;
        n[25] = 1; // two formats
        n[33] = 0x09; // deallocated blocks read zeros
        n[128..132].copy_from_slice(&[0, 0, 9, 0]); // 512 + 0
        n[132..136].copy_from_slice(&[0, 0, 12, 0]); // 4096 + 0
        let mut smart = vec![0u8; 512];
        smart[1..3].copy_from_slice(&[0x43, 0x01]); // 323 K
        smart[3] = 100;
        smart[4] = 10;
        let mut logs = BTreeMap::new();
        logs.insert(0x02, smart);
        let mut features = BTreeMap::new();
        features.insert(0x06, 1);
        features.insert(0x02, 0);
        features.insert(0x04, 343);
        FakeNvme {
            id_ctrl: c,
            id_ns: n,
            nsid: Some(1),
            features,
            feature_data: BTreeMap::new(),
            logs,
            blocks: BTreeMap::new(),
            fill: 0,
            failing: Vec::new(),
            sysfs: vec![
                ("model".into(), "QEMU NVMe Ctrl".into()),
                ("serial".into(), "HRSNVME0001".into()),
                ("firmware_rev".into(), "7.2.0".into()),
                ("transport".into(), "pcie".into()),
                ("device/current_link_speed".into(), "2.5 GT/s PCIe".into()),
                ("device/current_link_width".into(), "1".into()),
                ("kname".into(), "nvme0".into()),
            ],
            partition_of: None,
            later_logs: Vec::new(),
        }
    }

    /// One command: the answer (completion dword 0) or the scripted failure.
    pub fn answer(&mut self, cmd: &NvmeCommand, data: &mut [u8]) -> Result<u32, NvmeFailure> {
        if let Some(&(_, _, status)) = self
            .failing
            .iter()
            .find(|(q, op, _)| *q == cmd.queue && *op == cmd.opcode)
        {
            return Err(NvmeFailure {
                reason: crate::nvme::command::status_text(status),
                status: Some(status),
                class: ErrorClass::Failed,
            });
        }
        let copy = |data: &mut [u8], src: &[u8]| {
            let n = data.len().min(src.len());
            data[..n].copy_from_slice(&src[..n]);
        };
        match (cmd.queue, cmd.opcode) {
            (Queue::Admin, admin::IDENTIFY) => match cmd.cdw10 & 0xFF {
                1 => copy(data, &self.id_ctrl),
                0 => copy(data, &self.id_ns),
                _ => return Err(invalid_field()),
            },
            (Queue::Admin, admin::GET_FEATURES) => {
                let fid = (cmd.cdw10 & 0xFF) as u8;
                if let Some(d) = self.feature_data.get(&fid) {
                    copy(data, d);
                }
                return self.features.get(&fid).copied().ok_or_else(invalid_field);
            }
            (Queue::Admin, admin::SET_FEATURES) => {
                let fid = (cmd.cdw10 & 0xFF) as u8;
                if !self.features.contains_key(&fid) {
                    return Err(invalid_field());
                }
                self.features.insert(fid, cmd.cdw11);
                if !data.is_empty() {
                    self.feature_data.insert(fid, data.to_vec());
                }
            }
            (Queue::Admin, admin::GET_LOG_PAGE) => {
                let lid = (cmd.cdw10 & 0xFF) as u8;
                let log = self.logs.get(&lid).ok_or_else(invalid_field)?;
                copy(data, log);
                if let Some(i) = self.later_logs.iter().position(|(l, _)| *l == lid) {
                    let (_, next) = self.later_logs.remove(i);
                    self.logs.insert(lid, next);
                }
            }
            (Queue::Admin, admin::FORMAT_NVM) => {
                self.blocks.clear();
                self.fill = 0;
            }
            (Queue::Admin, _) => {}
            (Queue::Io, io::READ) => {
                let lba = u64::from(cmd.cdw10) | (u64::from(cmd.cdw11) << 32);
                match self.blocks.get(&lba) {
                    Some(b) => copy(data, b),
                    None => data.fill(self.fill),
                }
            }
            (Queue::Io, io::WRITE) => {
                let lba = u64::from(cmd.cdw10) | (u64::from(cmd.cdw11) << 32);
                self.blocks.insert(lba, data.to_vec());
            }
            (Queue::Io, io::DATASET_MANAGEMENT) => {
                for r in data.chunks(16) {
                    let nlb = u32::from_le_bytes([r[4], r[5], r[6], r[7]]);
                    let mut s = [0u8; 8];
                    s.copy_from_slice(&r[8..16]);
                    let slba = u64::from_le_bytes(s);
                    for lba in slba..slba + u64::from(nlb) {
                        self.blocks.remove(&lba);
                    }
                }
            }
            (Queue::Io, _) => {}
        }
        Ok(0)
    }
}

fn invalid_field() -> NvmeFailure {
    NvmeFailure {
        reason: crate::nvme::command::status_text(0x4002),
        status: Some(0x4002),
        class: ErrorClass::Failed,
    }
}
