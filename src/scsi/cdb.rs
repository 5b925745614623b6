//! The CDBs of the SCSI twins (SPC-5 §6, SBC-4 §5), each a pure function that returns a
//! [`Command`]: the CDB bytes, the direction, the data out and the allocation length.
//!
//! Owns: opcodes, the CDB layouts, the allocation lengths we ask for, and the timeouts. The
//! parameter data of MODE SELECT, UNMAP, SANITIZE and WRITE BUFFER is built in
//! [`super::mode`], [`super::unmap`], [`super::sanitize`] and [`super::firmware`], which call
//! the builders here. Must not: touch a device.
//!
//! Where a command changes the disk, its bytes are those of the oracle the VM bench compares
//! with (tests/vm/README.md, "The fields the twins will be compared on"): sdparm's MODE
//! SELECT(10) `55 10 00 00 00 00 00 00 LL 00`, `sg_start --pc=0xb` `1b 00 00 00 b0 00`,
//! `sg_start --stop` `1b 00 00 00 00 00`, `sg_sync` `35 00 .. 00`, `sg_unmap` `42 00 .. LL
//! 00`, `sg_sanitize --early` `48 8N .. LL 00`, `sg_write_buffer` `3b MM 00 OOOOOO LLLLLL 00`.
//! Reads may differ from theirs in the allocation length only.

use super::Command;

/// Operation codes (SPC-5 Annex E, SBC-4 table 17).
pub mod op {
    pub const TEST_UNIT_READY: u8 = 0x00;
    pub const REQUEST_SENSE: u8 = 0x03;
    pub const INQUIRY: u8 = 0x12;
    pub const START_STOP_UNIT: u8 = 0x1B;
    pub const SYNCHRONIZE_CACHE_10: u8 = 0x35;
    pub const WRITE_BUFFER: u8 = 0x3B;
    pub const READ_BUFFER: u8 = 0x3C;
    pub const UNMAP: u8 = 0x42;
    pub const SANITIZE: u8 = 0x48;
    pub const LOG_SENSE: u8 = 0x4D;
    pub const MODE_SELECT_10: u8 = 0x55;
    pub const MODE_SENSE_10: u8 = 0x5A;
    pub const READ_16: u8 = 0x88;
    pub const WRITE_16: u8 = 0x8A;
    pub const SERVICE_ACTION_IN_16: u8 = 0x9E;
}

/// READ CAPACITY(16)'s service action under SERVICE ACTION IN(16) (SBC-4 §5.20).
pub const READ_CAPACITY_16_SA: u8 = 0x10;

/// Allocation lengths we ask for. A standard INQUIRY of 36 bytes is the one every device
/// must answer (SPC-5 §6.7.2, and what sg_inq asks first); 252 bytes is sg3_utils' usual
/// VPD/REQUEST SENSE length, enough for every page the twins read.
pub const INQUIRY_LEN: u16 = 36;
pub const VPD_LEN: u16 = 252;
pub const READ_CAPACITY_16_LEN: u32 = 32;
pub const MODE_SENSE_LEN: u16 = 252;
pub const REQUEST_SENSE_LEN: u8 = 252;
pub const LOG_SENSE_LEN: u16 = 252;

/// VPD page codes (SPC-5 §7.7, SBC-4 §6.6).
pub mod vpd {
    pub const SUPPORTED_PAGES: u8 = 0x00;
    pub const UNIT_SERIAL_NUMBER: u8 = 0x80;
    pub const DEVICE_IDENTIFICATION: u8 = 0x83;
    pub const BLOCK_LIMITS: u8 = 0xB0;
    pub const BLOCK_DEVICE_CHARACTERISTICS: u8 = 0xB1;
    pub const LOGICAL_BLOCK_PROVISIONING: u8 = 0xB2;
}

/// INQUIRY (SPC-5 §6.7): the standard data.
pub fn inquiry() -> Command {
    inquiry_cdb(false, 0, INQUIRY_LEN)
}

/// INQUIRY with EVPD=1 for VPD page `page`.
pub fn inquiry_vpd(page: u8) -> Command {
    inquiry_cdb(true, page, VPD_LEN)
}

fn inquiry_cdb(evpd: bool, page: u8, alloc: u16) -> Command {
    let [hi, lo] = alloc.to_be_bytes();
    Command::data_in(
        "INQUIRY",
        vec![op::INQUIRY, u8::from(evpd), page, hi, lo, 0],
        u32::from(alloc),
    )
}

/// READ CAPACITY(16) (SBC-4 §5.20), allocation length in bytes 10-13.
pub fn read_capacity_16() -> Command {
    let mut cdb = vec![0u8; 16];
    cdb[0] = op::SERVICE_ACTION_IN_16;
    cdb[1] = READ_CAPACITY_16_SA;
    cdb[10..14].copy_from_slice(&READ_CAPACITY_16_LEN.to_be_bytes());
    Command::data_in("READ CAPACITY(16)", cdb, READ_CAPACITY_16_LEN)
}

/// MODE SENSE's page control (SPC-5 §6.13.2, CDB byte 2 bits 7:6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PageControl {
    Current = 0,
    Changeable = 1,
    Default = 2,
    Saved = 3,
}

/// MODE SENSE(10) (SPC-5 §6.14) of one page. DBD=0 and LLBAA=0, as sdparm asks: the block
/// descriptor comes back, and [`super::mode::select_parameter_list`] sends it back unchanged,
/// as sdparm does.
pub fn mode_sense_10(page: u8, subpage: u8, pc: PageControl) -> Command {
    let [hi, lo] = MODE_SENSE_LEN.to_be_bytes();
    Command::data_in(
        "MODE SENSE(10)",
        vec![
            op::MODE_SENSE_10,
            0,
            ((pc as u8) << 6) | (page & 0x3F),
            subpage,
            0,
            0,
            0,
            hi,
            lo,
            0,
        ],
        u32::from(MODE_SENSE_LEN),
    )
}

/// MODE SELECT(10) (SPC-5 §6.12) with PF=1, SP=0 (nothing saved), as sdparm `--set` sends
/// it: `55 10 00 00 00 00 00 LL LL 00`. `parameters` is the whole parameter list (header,
/// block descriptors, page). A list longer than 65535 bytes cannot be sent: it is cut
/// there, which no mode page comes near.
pub fn mode_select_10(mut parameters: Vec<u8>) -> Command {
    parameters.truncate(usize::from(u16::MAX));
    let [hi, lo] = (parameters.len() as u16).to_be_bytes();
    Command::data_out(
        "MODE SELECT(10)",
        vec![op::MODE_SELECT_10, 0x10, 0, 0, 0, 0, 0, hi, lo, 0],
        parameters,
    )
}

/// REQUEST SENSE (SPC-5 §6.39), fixed format asked (DESC=0, as sg_requests by default); the
/// decoder reads either format.
pub fn request_sense() -> Command {
    Command::data_in(
        "REQUEST SENSE",
        vec![op::REQUEST_SENSE, 0, 0, 0, REQUEST_SENSE_LEN, 0],
        u32::from(REQUEST_SENSE_LEN),
    )
}

/// TEST UNIT READY (SPC-5 §6.47): takes a pending UNIT ATTENTION, as sg_turs does.
pub fn test_unit_ready() -> Command {
    Command::none("TEST UNIT READY", vec![op::TEST_UNIT_READY, 0, 0, 0, 0, 0])
}

/// What START STOP UNIT asks for (SBC-4 §5.25, byte 4).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum StartStop {
    /// `-y`: POWER CONDITION FORCE_STANDBY_0 (Bh). Unlike STANDBY (3h) it keeps the standby
    /// timer in force: 3h hands power control to the application client until a LU_CONTROL,
    /// which would cancel `-S`.
    ForceStandby0,
    /// `-Y`: START=0, the disk stops (hdparm's sleep has no closer SCSI form).
    Stop,
    /// START=1: spins the disk up again.
    Start,
}

/// START STOP UNIT, IMMED=0 (the command returns when the disk is there), as sg_start.
pub fn start_stop_unit(what: StartStop) -> Command {
    let byte4 = match what {
        StartStop::ForceStandby0 => 0xB << 4,
        StartStop::Stop => 0x00,
        StartStop::Start => 0x01,
    };
    Command::none(
        "START STOP UNIT",
        vec![op::START_STOP_UNIT, 0, 0, 0, byte4, 0],
    )
}

/// SYNCHRONIZE CACHE(10) (SBC-4 §5.31) of the whole medium (LBA 0, 0 blocks), as sg_sync.
pub fn synchronize_cache_10() -> Command {
    Command::none(
        "SYNCHRONIZE CACHE(10)",
        vec![op::SYNCHRONIZE_CACHE_10, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    )
}

/// Log pages the twins read (SPC-5 §7.3).
pub mod log_page {
    pub const SUPPORTED: u8 = 0x00;
    pub const TEMPERATURE: u8 = 0x0D;
    pub const INFORMATIONAL_EXCEPTIONS: u8 = 0x2F;
}

/// LOG SENSE (SPC-5 §6.10) of `page`, cumulative values (PC=01b), as `sg_logs -p temp`
/// sends it: `4d 00 4d 00 ..`.
pub fn log_sense(page: u8, subpage: u8) -> Command {
    let [hi, lo] = LOG_SENSE_LEN.to_be_bytes();
    Command::data_in(
        "LOG SENSE",
        vec![
            op::LOG_SENSE,
            0,
            0x40 | (page & 0x3F),
            subpage,
            0,
            0,
            0,
            hi,
            lo,
            0,
        ],
        u32::from(LOG_SENSE_LEN),
    )
}

/// UNMAP (SBC-4 §5.32) of the parameter list [`super::unmap::parameter_list`] builds:
/// ANCHOR=0, group 0, as sg_unmap.
pub fn unmap(parameters: Vec<u8>) -> Command {
    let [hi, lo] = (parameters.len().min(usize::from(u16::MAX)) as u16).to_be_bytes();
    Command::data_out(
        "UNMAP",
        vec![op::UNMAP, 0, 0, 0, 0, 0, 0, hi, lo, 0],
        parameters,
    )
}

fn rw16(opcode: u8, lba: u64) -> Vec<u8> {
    let mut cdb = vec![0u8; 16];
    cdb[0] = opcode;
    cdb[2..10].copy_from_slice(&lba.to_be_bytes());
    cdb[10..14].copy_from_slice(&1u32.to_be_bytes());
    cdb
}

/// READ(16) (SBC-4 §5.16) of the one logical block at `lba`, `block_len` bytes.
pub fn read_16(lba: u64, block_len: u32) -> Command {
    Command::data_in("READ(16)", rw16(op::READ_16, lba), block_len)
}

/// WRITE(16) (SBC-4 §5.43) of the one logical block at `lba`; `data` is the block.
pub fn write_16(lba: u64, data: Vec<u8>) -> Command {
    Command::data_out("WRITE(16)", rw16(op::WRITE_16, lba), data)
}

/// SANITIZE service actions (SBC-4 §5.24.1, table 89).
pub mod sanitize_sa {
    pub const OVERWRITE: u8 = 0x01;
    pub const BLOCK_ERASE: u8 = 0x02;
    pub const CRYPTOGRAPHIC_ERASE: u8 = 0x03;
    pub const EXIT_FAILURE_MODE: u8 = 0x1F;
}

/// SANITIZE (SBC-4 §5.24) with `service_action`, IMMED as given, ZNR=0, AUSE=0, and the
/// parameter list (OVERWRITE's; empty for the others), as sg_sanitize sends it.
pub fn sanitize(service_action: u8, immed: bool, parameters: Vec<u8>) -> Command {
    let [hi, lo] = (parameters.len().min(usize::from(u16::MAX)) as u16).to_be_bytes();
    let cdb = vec![
        op::SANITIZE,
        (u8::from(immed) << 7) | (service_action & 0x1F),
        0,
        0,
        0,
        0,
        0,
        hi,
        lo,
        0,
    ];
    if parameters.is_empty() {
        Command::none("SANITIZE", cdb)
    } else {
        Command::data_out("SANITIZE", cdb, parameters)
    }
}

/// WRITE BUFFER modes (SPC-5 §6.49.1, table 254).
pub mod wb_mode {
    /// Download microcode and save (the whole image in one command).
    pub const DOWNLOAD_SAVE: u8 = 0x05;
    /// Download microcode with offsets and save (segments).
    pub const DOWNLOAD_OFFSETS_SAVE: u8 = 0x07;
    /// Download microcode with offsets, save, and defer activation.
    pub const DOWNLOAD_OFFSETS_DEFER: u8 = 0x0E;
    /// Activate deferred microcode.
    pub const ACTIVATE_DEFERRED: u8 = 0x0F;
}

/// WRITE BUFFER's timeout: hdparm's for each DOWNLOAD MICROCODE segment, seconds (a disk
/// may write its flash before it answers).
pub const WRITE_BUFFER_TIMEOUT_SECS: u32 = 120;

/// WRITE BUFFER (SPC-5 §6.49): `3b mode id offset(3) length(3) 00`, mode-specific bits 0, as
/// sg_write_buffer. `offset` and the data's length must fit 24 bits ([`super::firmware`]
/// checks that before it builds one).
pub fn write_buffer(mode: u8, buffer_id: u8, offset: u32, data: Vec<u8>) -> Command {
    let o = offset.to_be_bytes();
    let l = (data.len() as u32).to_be_bytes();
    let cdb = vec![
        op::WRITE_BUFFER,
        mode & 0x1F,
        buffer_id,
        o[1],
        o[2],
        o[3],
        l[1],
        l[2],
        l[3],
        0,
    ];
    let mut c = if data.is_empty() {
        Command::none("WRITE BUFFER", cdb)
    } else {
        Command::data_out("WRITE BUFFER", cdb, data)
    };
    c.timeout_secs = WRITE_BUFFER_TIMEOUT_SECS;
    c
}

/// READ BUFFER (SPC-5 §6.20) in descriptor mode (03h) of buffer 0: the offset boundary and
/// the capacity a download's segments must respect ([`super::firmware::BufferDescriptor`]).
pub fn read_buffer_descriptor() -> Command {
    Command::data_in(
        "READ BUFFER",
        vec![op::READ_BUFFER, 0x03, 0, 0, 0, 0, 0, 0, 4, 0],
        4,
    )
}

#[cfg(test)]
mod tests {
    use super::super::{hex, Direction};
    use super::*;

    #[test]
    fn reads_are_spc_layouts() {
        assert_eq!(hex(&inquiry().cdb), "12 00 00 00 24 00");
        assert_eq!(hex(&inquiry_vpd(0x83).cdb), "12 01 83 00 fc 00");
        let rc = read_capacity_16();
        assert_eq!(
            hex(&rc.cdb),
            "9e 10 00 00 00 00 00 00 00 00 00 00 00 20 00 00"
        );
        assert_eq!((rc.direction, rc.alloc_len), (Direction::FromDevice, 32));
        assert_eq!(
            hex(&mode_sense_10(0x08, 0, PageControl::Current).cdb),
            "5a 00 08 00 00 00 00 00 fc 00"
        );
        assert_eq!(
            hex(&mode_sense_10(0x1A, 0, PageControl::Changeable).cdb),
            "5a 00 5a 00 00 00 00 00 fc 00"
        );
        assert_eq!(hex(&request_sense().cdb), "03 00 00 00 fc 00");
        assert_eq!(hex(&test_unit_ready().cdb), "00 00 00 00 00 00");
        assert_eq!(
            hex(&read_16(4128, 512).cdb),
            "88 00 00 00 00 00 00 00 10 20 00 00 00 01 00 00"
        );
        assert_eq!(
            hex(&read_buffer_descriptor().cdb),
            "3c 03 00 00 00 00 00 00 04 00"
        );
    }

    #[test]
    fn log_sense_is_sg_logs_cdb() {
        // sg_logs -p temp: 4d 00 4d 00 (PC=01b cumulative, page 0Dh)
        let c = log_sense(log_page::TEMPERATURE, 0);
        assert_eq!(&c.cdb[..3], &[0x4d, 0x00, 0x4d]);
        assert_eq!(hex(&c.cdb), "4d 00 4d 00 00 00 00 00 fc 00");
        assert_eq!(
            hex(&log_sense(log_page::INFORMATIONAL_EXCEPTIONS, 0).cdb[..3]),
            "4d 00 6f"
        );
    }

    #[test]
    fn mode_select_is_sdparms() {
        // sdparm --set=WCE=0 on the VM's virtio-scsi disk: 55 10 00 00 00 00 00 00 24 00
        let c = mode_select_10(vec![0; 36]);
        assert_eq!(hex(&c.cdb), "55 10 00 00 00 00 00 00 24 00");
        assert_eq!(c.direction, Direction::ToDevice);
        assert_eq!(c.alloc_len, 0);
    }

    #[test]
    fn start_stop_is_sg_starts() {
        assert_eq!(
            hex(&start_stop_unit(StartStop::ForceStandby0).cdb),
            "1b 00 00 00 b0 00"
        );
        assert_eq!(
            hex(&start_stop_unit(StartStop::Stop).cdb),
            "1b 00 00 00 00 00"
        );
        assert_eq!(
            hex(&start_stop_unit(StartStop::Start).cdb),
            "1b 00 00 00 01 00"
        );
        assert_eq!(start_stop_unit(StartStop::Stop).direction, Direction::None);
    }

    #[test]
    fn sync_is_sg_syncs() {
        assert_eq!(
            hex(&synchronize_cache_10().cdb),
            "35 00 00 00 00 00 00 00 00 00"
        );
    }

    #[test]
    fn unmap_cdb_is_sg_unmaps() {
        // sg_unmap --lba=4096 --num=32: 42 00 00 00 00 00 00 00 18 00
        assert_eq!(
            hex(&unmap(vec![0; 24]).cdb),
            "42 00 00 00 00 00 00 00 18 00"
        );
    }

    #[test]
    fn write_16_sends_one_block() {
        let c = write_16(0x1_0000_0001, vec![0x55; 4096]);
        assert_eq!(
            hex(&c.cdb),
            "8a 00 00 00 00 01 00 00 00 01 00 00 00 01 00 00"
        );
        assert_eq!((c.direction, c.data_out.len()), (Direction::ToDevice, 4096));
    }

    #[test]
    fn sanitize_is_sg_sanitizes() {
        // sg_sanitize --early --overwrite --zero: 48 81 00 00 00 00 00 00 08 00 (+ 8 bytes)
        let c = sanitize(sanitize_sa::OVERWRITE, true, vec![0; 8]);
        assert_eq!(hex(&c.cdb), "48 81 00 00 00 00 00 00 08 00");
        assert_eq!(c.direction, Direction::ToDevice);
        let b = sanitize(sanitize_sa::BLOCK_ERASE, true, Vec::new());
        assert_eq!(hex(&b.cdb), "48 82 00 00 00 00 00 00 00 00");
        assert_eq!(b.direction, Direction::None);
        let c = sanitize(sanitize_sa::CRYPTOGRAPHIC_ERASE, false, Vec::new());
        assert_eq!(hex(&c.cdb), "48 03 00 00 00 00 00 00 00 00");
    }

    #[test]
    fn write_buffer_is_sg_write_buffers() {
        let c = write_buffer(wb_mode::DOWNLOAD_OFFSETS_SAVE, 0, 2048, vec![0x46; 1024]);
        assert_eq!(hex(&c.cdb), "3b 07 00 00 08 00 00 04 00 00");
        let w = write_buffer(wb_mode::DOWNLOAD_SAVE, 0, 0, vec![0x46; 4096]);
        assert_eq!(hex(&w.cdb), "3b 05 00 00 00 00 00 10 00 00");
        let a = write_buffer(wb_mode::ACTIVATE_DEFERRED, 0, 0, Vec::new());
        assert_eq!(hex(&a.cdb), "3b 0f 00 00 00 00 00 00 00 00");
        assert_eq!(a.direction, Direction::None);
    }
}
