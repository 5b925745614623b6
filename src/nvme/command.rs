//! NVMe admin and I/O commands as plain data (what `NVME_IOCTL_ADMIN_CMD` and
//! `NVME_IOCTL_IO_CMD` carry), with one builder per command hdparm's jobs send. The data
//! buffer is not part of the command: the caller passes it beside it, and its direction is the
//! opcode's (bits 1:0: 01 host to controller, 10 controller to host; NVMe Base 2.0 §5).
//!
//! Must not: send anything, or decide which command a job needs (that is `exec::steps::nvme`).

use serde::Serialize;

/// Which queue a command goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Queue {
    Admin,
    Io,
}

/// Admin command opcodes (NVMe Base 2.0 Figure 28).
pub mod admin {
    pub const GET_LOG_PAGE: u8 = 0x02;
    pub const IDENTIFY: u8 = 0x06;
    pub const SET_FEATURES: u8 = 0x09;
    pub const GET_FEATURES: u8 = 0x0A;
    pub const FIRMWARE_COMMIT: u8 = 0x10;
    pub const FIRMWARE_IMAGE_DOWNLOAD: u8 = 0x11;
    pub const FORMAT_NVM: u8 = 0x80;
    pub const SANITIZE: u8 = 0x84;
}

/// NVM command set I/O opcodes (NVM Command Set 1.0 Figure 18).
pub mod io {
    pub const FLUSH: u8 = 0x00;
    pub const WRITE: u8 = 0x01;
    pub const READ: u8 = 0x02;
    pub const DATASET_MANAGEMENT: u8 = 0x09;
}

/// Identify CNS values.
pub const CNS_NAMESPACE: u32 = 0x00;
pub const CNS_CONTROLLER: u32 = 0x01;

/// Log page identifiers.
pub const LOG_SMART_HEALTH: u8 = 0x02;
pub const LOG_SANITIZE_STATUS: u8 = 0x81;

/// The broadcast namespace ID: the controller as a whole (the SMART / Health log over all
/// namespaces).
pub const NSID_ALL: u32 = 0xFFFF_FFFF;

/// The timeout the kernel applies when a command names none (0: the driver's admin or I/O
/// timeout, 60 s and 30 s by default).
pub const DEFAULT_TIMEOUT_MS: u32 = 0;

/// Format NVM and Sanitize can take as long as the drive says (minutes on a large one): the
/// timeout hdparm gives its ATA security erase is the drive's estimate; NVMe gives none, so
/// one generous hour.
pub const LONG_TIMEOUT_MS: u32 = 60 * 60 * 1000;

/// One command as sent: opcode, namespace, the command dwords 10-15, and the timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NvmeCommand {
    pub queue: Queue,
    pub opcode: u8,
    pub nsid: u32,
    pub cdw10: u32,
    pub cdw11: u32,
    pub cdw12: u32,
    pub cdw13: u32,
    pub cdw14: u32,
    pub cdw15: u32,
    pub timeout_ms: u32,
}

/// Which way a command's data moves (from the opcode's low bits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataDirection {
    None,
    ToDevice,
    FromDevice,
}

impl NvmeCommand {
    /// An admin command with all dwords zero.
    pub fn admin(opcode: u8, nsid: u32) -> NvmeCommand {
        NvmeCommand {
            queue: Queue::Admin,
            opcode,
            nsid,
            cdw10: 0,
            cdw11: 0,
            cdw12: 0,
            cdw13: 0,
            cdw14: 0,
            cdw15: 0,
            timeout_ms: DEFAULT_TIMEOUT_MS,
        }
    }

    /// An I/O command with all dwords zero.
    pub fn io(opcode: u8, nsid: u32) -> NvmeCommand {
        NvmeCommand {
            queue: Queue::Io,
            ..NvmeCommand::admin(opcode, nsid)
        }
    }

    /// The direction of the command's data, from its opcode.
    pub fn direction(&self) -> DataDirection {
        match self.opcode & 0x3 {
            0x1 => DataDirection::ToDevice,
            0x2 => DataDirection::FromDevice,
            _ => DataDirection::None,
        }
    }

    /// The six command dwords 10-15, in order (for logs and the JSON `actions`).
    pub fn cdws(&self) -> [u32; 6] {
        [
            self.cdw10, self.cdw11, self.cdw12, self.cdw13, self.cdw14, self.cdw15,
        ]
    }

    /// Identify (CNS 01h, controller; CNS 00h, namespace `nsid`): 4096 bytes in.
    pub fn identify(cns: u32, nsid: u32) -> NvmeCommand {
        NvmeCommand {
            cdw10: cns,
            ..NvmeCommand::admin(admin::IDENTIFY, nsid)
        }
    }

    /// Get Features `fid`, current value (SEL 000b).
    pub fn get_features(fid: u8, nsid: u32) -> NvmeCommand {
        NvmeCommand {
            cdw10: u32::from(fid),
            ..NvmeCommand::admin(admin::GET_FEATURES, nsid)
        }
    }

    /// Set Features `fid` to `value` (CDW11), not saved across power cycles (SV 0, as hdparm's
    /// ATA sets are volatile unless `-K`).
    pub fn set_features(fid: u8, nsid: u32, value: u32) -> NvmeCommand {
        NvmeCommand {
            cdw10: u32::from(fid),
            cdw11: value,
            ..NvmeCommand::admin(admin::SET_FEATURES, nsid)
        }
    }

    /// Get Log Page `lid` of `len` bytes (a multiple of 4), offset 0, Retain Asynchronous Event
    /// clear: CDW10 NUMDL (31:16) and LID (7:0), CDW11 NUMDU (15:0), NUMD 0's based.
    pub fn get_log_page(lid: u8, nsid: u32, len: u32) -> NvmeCommand {
        let numd = (len / 4).saturating_sub(1);
        NvmeCommand {
            cdw10: ((numd & 0xFFFF) << 16) | u32::from(lid),
            cdw11: numd >> 16,
            ..NvmeCommand::admin(admin::GET_LOG_PAGE, nsid)
        }
    }

    /// Flush (I/O): the volatile write cache to media.
    pub fn flush(nsid: u32) -> NvmeCommand {
        NvmeCommand::io(io::FLUSH, nsid)
    }

    /// Read or Write of `blocks` (at least 1) logical blocks from `slba`: CDW10-11 SLBA,
    /// CDW12 NLB 0's based.
    pub fn read_write(write: bool, nsid: u32, slba: u64, blocks: u16) -> NvmeCommand {
        let op = if write { io::WRITE } else { io::READ };
        NvmeCommand {
            cdw10: slba as u32,
            cdw11: (slba >> 32) as u32,
            cdw12: u32::from(blocks.saturating_sub(1)),
            ..NvmeCommand::io(op, nsid)
        }
    }

    /// Dataset Management with the Deallocate attribute over `ranges` (1..=256) ranges: CDW10
    /// NR 0's based, CDW11 AD (bit 2). The data is [`dsm_ranges`]'s.
    pub fn dsm_deallocate(nsid: u32, ranges: usize) -> NvmeCommand {
        NvmeCommand {
            cdw10: (ranges.clamp(1, DSM_MAX_RANGES) - 1) as u32,
            cdw11: DSM_ATTR_DEALLOCATE,
            ..NvmeCommand::io(io::DATASET_MANAGEMENT, nsid)
        }
    }

    /// Format NVM of namespace `nsid` keeping LBA format `lbaf` (0..=63), no protection
    /// information, with Secure Erase Settings `ses`: CDW10 LBAFL (3:0), SES (11:9), LBAFU
    /// (13:12).
    pub fn format_nvm(nsid: u32, lbaf: u8, ses: SecureErase) -> NvmeCommand {
        let lbaf = u32::from(lbaf);
        NvmeCommand {
            cdw10: (lbaf & 0xF) | ((ses as u32) << 9) | (((lbaf >> 4) & 0x3) << 12),
            timeout_ms: LONG_TIMEOUT_MS,
            ..NvmeCommand::admin(admin::FORMAT_NVM, nsid)
        }
    }

    /// Sanitize (the whole NVM subsystem; no namespace): CDW10 SANACT (2:0), AUSE (3), OWPASS
    /// (7:4), OIPBP (8), NDAS (9); CDW11 the overwrite pattern.
    pub fn sanitize(action: SanitizeAction) -> NvmeCommand {
        let (sanact, owpass, pattern) = match action {
            SanitizeAction::ExitFailure => (1, 0, 0),
            SanitizeAction::BlockErase => (2, 0, 0),
            SanitizeAction::Overwrite { passes, pattern } => {
                (3, u32::from(passes.clamp(1, 15)), pattern)
            }
            SanitizeAction::CryptoErase => (4, 0, 0),
        };
        NvmeCommand {
            cdw10: sanact | (owpass << 4),
            cdw11: pattern,
            ..NvmeCommand::admin(admin::SANITIZE, 0)
        }
    }

    /// Firmware Image Download of `len` bytes (a multiple of 4) at byte `offset`: CDW10 NUMD
    /// 0's based, CDW11 OFST in dwords.
    pub fn fw_download(offset: u32, len: u32) -> NvmeCommand {
        NvmeCommand {
            cdw10: (len / 4).saturating_sub(1),
            cdw11: offset / 4,
            ..NvmeCommand::admin(admin::FIRMWARE_IMAGE_DOWNLOAD, 0)
        }
    }

    /// Firmware Commit: CDW10 FS (2:0, 0 lets the controller choose), CA (5:3).
    pub fn fw_commit(slot: u8, action: u8) -> NvmeCommand {
        NvmeCommand {
            cdw10: u32::from(slot & 0x7) | (u32::from(action & 0x7) << 3),
            ..NvmeCommand::admin(admin::FIRMWARE_COMMIT, 0)
        }
    }
}

/// Format NVM's Secure Erase Settings (SES).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SecureErase {
    None = 0,
    UserData = 1,
    Cryptographic = 2,
}

/// Sanitize actions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SanitizeAction {
    ExitFailure,
    BlockErase,
    Overwrite { passes: u8, pattern: u32 },
    CryptoErase,
}

/// Firmware Commit action 001b: the downloaded image replaces the one in the slot and is
/// activated at the next controller reset (the one action every controller with firmware
/// update support takes; hdparm's ATA `--fwdownload` likewise leaves activation to the drive).
pub const FW_COMMIT_REPLACE_ACTIVATE_AT_RESET: u8 = 1;

/// Dataset Management's Deallocate attribute (CDW11 bit 2).
pub const DSM_ATTR_DEALLOCATE: u32 = 1 << 2;
/// At most 256 ranges per command.
pub const DSM_MAX_RANGES: usize = 256;

/// The Dataset Management range list: 16 bytes each, context attributes 0, length in logical
/// blocks (bytes 4-7), starting LBA (bytes 8-15).
pub fn dsm_ranges(ranges: &[(u64, u32)]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ranges.len() * 16);
    for &(slba, nlb) in ranges {
        out.extend_from_slice(&0u32.to_le_bytes());
        out.extend_from_slice(&nlb.to_le_bytes());
        out.extend_from_slice(&slba.to_le_bytes());
    }
    out
}

/// The chunk size Firmware Image Download must use: FWUG (Identify Controller byte 319) in
/// 4 KiB units; 0 (no information) and FFh (no restriction) give 4 KiB, what nvme-cli uses too.
pub fn fw_chunk_bytes(fwug: u8) -> u32 {
    match fwug {
        0 | 0xFF => 4096,
        n => u32::from(n) * 4096,
    }
}

/// A completion's status field (bits 15:1 of DW3, as the kernel returns it from the ioctl:
/// SC in 7:0, SCT in 10:8, DNR in 14), in words.
pub fn status_text(status: u32) -> String {
    let sc = status & 0xFF;
    let sct = (status >> 8) & 0x7;
    let name = match (sct, sc) {
        (0, 0x01) => "Invalid Command Opcode",
        (0, 0x02) => "Invalid Field in Command",
        (0, 0x04) => "Data Transfer Error",
        (0, 0x06) => "Internal Error",
        (0, 0x07) => "Command Abort Requested",
        (0, 0x0B) => "Invalid Namespace or Format",
        (0, 0x0C) => "Command Sequence Error",
        (0, 0x1D) => "Sanitize In Progress",
        (0, 0x80) => "LBA Out of Range",
        (1, 0x02) => "Invalid Field in Command",
        (1, 0x06) => "Invalid Firmware Slot",
        (1, 0x07) => "Invalid Firmware Image",
        (1, 0x0A) => "Invalid Format",
        (1, 0x0B) => "Firmware Activation Requires Conventional Reset",
        (1, 0x0D) => "Feature Identifier Not Saveable",
        (1, 0x0E) => "Feature Not Changeable",
        (1, 0x0F) => "Feature Not Namespace Specific",
        (1, 0x10) => "Firmware Activation Requires NVM Subsystem Reset",
        (1, 0x11) => "Firmware Activation Requires Controller Level Reset",
        (1, 0x14) => "Overlapping Range",
        (1, 0x23) => "Sanitize Prohibited While Persistent Memory Region is Enabled",
        (2, 0x81) => "Unrecovered Read Error",
        (2, 0x86) => "Access Denied",
        _ => "",
    };
    if name.is_empty() {
        format!("NVMe status 0x{status:04x} (SCT {sct}, SC 0x{sc:02x})")
    } else {
        format!("NVMe status 0x{status:04x}: {name}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn directions_come_from_the_opcode() {
        assert_eq!(
            NvmeCommand::identify(1, 0).direction(),
            DataDirection::FromDevice
        );
        assert_eq!(
            NvmeCommand::fw_download(0, 4096).direction(),
            DataDirection::ToDevice
        );
        assert_eq!(NvmeCommand::flush(1).direction(), DataDirection::None);
        assert_eq!(
            NvmeCommand::dsm_deallocate(1, 1).direction(),
            DataDirection::ToDevice
        );
        assert_eq!(
            NvmeCommand::sanitize(SanitizeAction::BlockErase).direction(),
            DataDirection::None
        );
        assert_eq!(
            NvmeCommand::read_write(false, 1, 0, 1).direction(),
            DataDirection::FromDevice
        );
        assert_eq!(
            NvmeCommand::read_write(true, 1, 0, 1).direction(),
            DataDirection::ToDevice
        );
    }

    #[test]
    fn dwords_are_laid_out_as_the_spec_says() {
        let c = NvmeCommand::get_log_page(LOG_SMART_HEALTH, NSID_ALL, 512);
        assert_eq!(
            (c.opcode, c.nsid, c.cdw10, c.cdw11),
            (0x02, NSID_ALL, (127 << 16) | 2, 0)
        );
        let c = NvmeCommand::get_log_page(0x81, 0, 4 * 0x2_0000);
        assert_eq!((c.cdw10 >> 16, c.cdw11), (0xFFFF, 1));
        let c = NvmeCommand::set_features(0x06, 0, 1);
        assert_eq!((c.opcode, c.cdw10, c.cdw11), (0x09, 6, 1));
        let c = NvmeCommand::get_features(0x02, 0);
        assert_eq!((c.opcode, c.cdw10), (0x0A, 2));
        let c = NvmeCommand::read_write(true, 1, 0x1_2345_6789, 1);
        assert_eq!(
            (c.opcode, c.cdw10, c.cdw11, c.cdw12),
            (0x01, 0x2345_6789, 1, 0)
        );
        let c = NvmeCommand::dsm_deallocate(1, 3);
        assert_eq!((c.opcode, c.cdw10, c.cdw11), (0x09, 2, 4));
        let c = NvmeCommand::format_nvm(1, 0x13, SecureErase::Cryptographic);
        assert_eq!((c.opcode, c.cdw10), (0x80, 0x3 | (2 << 9) | (1 << 12)));
        let c = NvmeCommand::format_nvm(1, 0, SecureErase::UserData);
        assert_eq!(c.cdw10, 0x200);
        assert_eq!(NvmeCommand::sanitize(SanitizeAction::CryptoErase).cdw10, 4);
        assert_eq!(NvmeCommand::sanitize(SanitizeAction::BlockErase).cdw10, 2);
        let c = NvmeCommand::sanitize(SanitizeAction::Overwrite {
            passes: 3,
            pattern: 0xA5A5_A5A5,
        });
        assert_eq!(
            (c.opcode, c.nsid, c.cdw10, c.cdw11),
            (0x84, 0, 0x33, 0xA5A5_A5A5)
        );
        let c = NvmeCommand::fw_download(8192, 4096);
        assert_eq!((c.opcode, c.cdw10, c.cdw11), (0x11, 1023, 2048));
        let c = NvmeCommand::fw_commit(0, FW_COMMIT_REPLACE_ACTIVATE_AT_RESET);
        assert_eq!((c.opcode, c.cdw10), (0x10, 0x08));
    }

    #[test]
    fn dsm_ranges_are_16_bytes_each() {
        let d = dsm_ranges(&[(0x0102_0304_0506_0708, 0x10), (5, 1)]);
        assert_eq!(d.len(), 32);
        assert_eq!(&d[0..4], &[0, 0, 0, 0]);
        assert_eq!(&d[4..8], &[0x10, 0, 0, 0]);
        assert_eq!(&d[8..16], &[8, 7, 6, 5, 4, 3, 2, 1]);
        assert_eq!(&d[20..24], &[1, 0, 0, 0]);
    }

    #[test]
    fn firmware_chunks_follow_fwug() {
        assert_eq!(fw_chunk_bytes(0), 4096);
        assert_eq!(fw_chunk_bytes(0xFF), 4096);
        assert_eq!(fw_chunk_bytes(2), 8192);
    }

    #[test]
    fn statuses_in_words() {
        assert_eq!(
            status_text(0x4002),
            "NVMe status 0x4002: Invalid Field in Command"
        );
        assert_eq!(
            status_text(0x0107),
            "NVMe status 0x0107: Invalid Firmware Image"
        );
        assert_eq!(status_text(0x0077), "NVMe status 0x0077 (SCT 0, SC 0x77)");
    }
}
