//! The argument blocks of the legacy ATA ioctls hdparm falls back to when SG_IO cannot carry a
//! command (reference §2.1): `HDIO_DRIVE_CMD`'s four bytes and `HDIO_DRIVE_TASKFILE`'s
//! request header, built from a [`TaskFile`] as hdparm builds them, and the result registers
//! read back out of them.
//!
//! Must not: call the ioctls. `device::ata` copies [`TaskfileRequest`] into the kernel struct
//! (`device::sys::IdeTaskRequest`), makes the call and hands the ports back here.

use super::command::{op, AtaRegisters, Protocol, TaskFile, DEV_LBA, SMART_LBA_SIGNATURE};

/// The `HDIO_DRIVE_CMD` argument block equivalent to `tf`, when it can express it: a 28-bit
/// command with no address (SMART's signature aside), device 0x40, no data or PIO in whole
/// sectors.
pub fn drive_cmd_args(tf: &TaskFile, data_len: usize) -> Option<[u8; 4]> {
    let sectors = u8::try_from(data_len / 512).ok()?;
    if data_len % 512 != 0
        || tf.device != DEV_LBA
        || tf.feature > 0xFF
        || tf.count > 0xFF
        || !matches!(tf.protocol, Protocol::NonData | Protocol::PioIn)
    {
        return None;
    }
    if tf.command == op::SMART {
        if tf.lba & !0xFF != SMART_LBA_SIGNATURE {
            return None;
        }
        return Some([tf.command, tf.lba as u8, tf.feature as u8, sectors]);
    }
    if tf.lba != 0 {
        return None;
    }
    Some([tf.command, tf.count as u8, tf.feature as u8, sectors])
}

/// The registers `HDIO_DRIVE_CMD` leaves in `args[0..3]`: status, error, sector count.
pub fn drive_cmd_registers(args: &[u8]) -> AtaRegisters {
    let at = |i: usize| args.get(i).copied().unwrap_or(0);
    AtaRegisters {
        status: at(0),
        error: at(1),
        count: at(2).into(),
        ..Default::default()
    }
}

/// Register-valid bits of `ide_reg_valid_t` (linux/hdreg.h), in the kernel's order.
const TF_FEATURE: u16 = 1 << 1;
const TF_LBAL: u16 = 1 << 2;
const TF_NSECT: u16 = 1 << 3;
const TF_LBAM: u16 = 1 << 4;
const TF_LBAH: u16 = 1 << 5;
const TF_DEVICE: u16 = 1 << 6;
const TF_COMMAND: u16 = 1 << 7;
const TF_LOB_ALL: u16 =
    TF_FEATURE | TF_LBAL | TF_NSECT | TF_LBAM | TF_LBAH | TF_DEVICE | TF_COMMAND;
const TF_HOB_SHIFT: u16 = 8;

/// `TASKFILE_*` data phases and `IDE_DRIVE_TASK_*` request kinds (linux/hdreg.h).
pub const DPHASE_NONE: i32 = 0;
pub const DPHASE_PIO_IN: i32 = 1;
pub const DPHASE_PIO_OUT: i32 = 4;
pub const DPHASE_DMA_IN: i32 = 0x20;
pub const DPHASE_DMA_OUT: i32 = 0x40;
pub const REQ_NODATA: i32 = 0;
pub const REQ_IN: i32 = 2;
pub const REQ_OUT: i32 = 3;
pub const REQ_RAW_OUT: i32 = 4;

/// The fields of `ide_task_request_t` for one command, as hdparm's `init_hdio_taskfile` fills
/// them. `io_ports`/`hob_ports` are indexed data, feature, nsect, lbal, lbam, lbah, device,
/// command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TaskfileRequest {
    pub io_ports: [u8; 8],
    pub hob_ports: [u8; 8],
    pub out_flags: u16,
    pub in_flags: u16,
    pub data_phase: i32,
    pub req_cmd: i32,
    /// Bytes sent after the header.
    pub out_size: usize,
    /// Bytes received after the header and the bytes sent.
    pub in_size: usize,
}

impl TaskfileRequest {
    /// The request for `tf` with `data_len` bytes of data.
    pub fn new(tf: &TaskFile, data_len: usize) -> TaskfileRequest {
        let mut req = TaskfileRequest::default();
        let lba = tf.lba;
        req.io_ports = [
            0,
            tf.feature as u8,
            tf.count as u8,
            lba as u8,
            (lba >> 8) as u8,
            (lba >> 16) as u8,
            tf.device_register(),
            tf.command,
        ];
        req.out_flags = TF_LOB_ALL;
        req.in_flags = TF_LOB_ALL;
        if tf.lba48 {
            req.hob_ports = [
                0,
                (tf.feature >> 8) as u8,
                (tf.count >> 8) as u8,
                (lba >> 24) as u8,
                (lba >> 32) as u8,
                (lba >> 40) as u8,
                0,
                0,
            ];
            let hob = (TF_FEATURE | TF_LBAL | TF_NSECT | TF_LBAM | TF_LBAH) << TF_HOB_SHIFT;
            req.out_flags |= hob;
            req.in_flags |= hob;
        }
        let (phase, kind) = match tf.protocol {
            Protocol::NonData => (DPHASE_NONE, REQ_NODATA),
            Protocol::PioIn => (DPHASE_PIO_IN, REQ_IN),
            Protocol::PioOut => (DPHASE_PIO_OUT, REQ_RAW_OUT),
            Protocol::DmaIn => (DPHASE_DMA_IN, REQ_IN),
            Protocol::DmaOut => (DPHASE_DMA_OUT, REQ_OUT),
        };
        req.data_phase = phase;
        req.req_cmd = kind;
        if tf.protocol.is_write() {
            req.out_size = data_len;
        } else if tf.protocol.has_data() {
            req.in_size = data_len;
        }
        req
    }

    /// The result registers the kernel wrote back into the ports (the HOB bytes only for a
    /// 48-bit command).
    pub fn registers(&self, lba48: bool) -> AtaRegisters {
        let p = self.io_ports;
        let h = self.hob_ports;
        let mut registers = AtaRegisters {
            status: p[7],
            error: p[1],
            count: p[2].into(),
            lba: u64::from(p[3]) | u64::from(p[4]) << 8 | u64::from(p[5]) << 16,
            device: p[6],
            lba48,
        };
        if lba48 {
            registers.count |= u16::from(h[2]) << 8;
            registers.lba |= u64::from(h[3]) << 24 | u64::from(h[4]) << 32 | u64::from(h[5]) << 40;
        }
        registers
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drive_cmd_args_round_trip() {
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xEC, 0, 0, 1]), 512),
            Some([0xEC, 1, 0, 1])
        );
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xE3, 5, 0, 0]), 0),
            Some([0xE3, 5, 0, 0])
        );
        assert_eq!(
            drive_cmd_args(&TaskFile::drive_cmd([0xB0, 0x06, 0xD0, 1]), 512),
            Some([0xB0, 0x06, 0xD0, 1])
        );
        // Sector commands are taskfile commands.
        let tf = TaskFile::sector_command(op::READ_PIO, 10, 1, Protocol::PioIn, false);
        assert_eq!(drive_cmd_args(&tf, 512), None);
    }

    #[test]
    fn taskfile_request_layout() {
        let tf = TaskFile::sector_command(
            op::READ_PIO_EXT,
            0x0102_0304_0506,
            1,
            Protocol::PioIn,
            false,
        );
        let req = TaskfileRequest::new(&tf, 512);
        assert_eq!(req.io_ports, [0, 0, 1, 0x06, 0x05, 0x04, 0xE0, 0x24]);
        assert_eq!(req.hob_ports, [0, 0, 0, 0x03, 0x02, 0x01, 0, 0]);
        assert_eq!(req.in_size, 512);
        assert_eq!(req.out_size, 0);
        assert_eq!((req.data_phase, req.req_cmd), (DPHASE_PIO_IN, REQ_IN));
        assert_eq!(req.out_flags & 0x00FE, 0x00FE);
    }

    #[test]
    fn registers_read_back_from_the_ports() {
        let req = TaskfileRequest {
            io_ports: [0, 0x04, 0x01, 0x06, 0x05, 0x04, 0xE0, 0x51],
            hob_ports: [0, 0, 0x02, 0x03, 0x02, 0x01, 0, 0],
            ..Default::default()
        };
        let r = req.registers(true);
        assert_eq!((r.status, r.error, r.count), (0x51, 0x04, 0x0201));
        assert_eq!(r.lba, 0x0102_0304_0506);
        assert_eq!(req.registers(false).lba, 0x04_0506);
        let r = drive_cmd_registers(&[0x50, 0, 0xFF, 0]);
        assert_eq!((r.status, r.error, r.count), (0x50, 0, 0xFF));
    }
}
