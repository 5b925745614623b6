//! SCSI commands through SG_IO for the SCSI twins of hdparm's jobs (issue 22): one
//! [`crate::scsi::Command`] sent as it is built, its data in clipped to what the disk
//! returned, and the way it ended in the kernel's words (status, host and driver status,
//! sense bytes).
//!
//! Must not: decide what a command or its sense means to the user (the steps do that with
//! `crate::scsi`), or retry.

use std::io;

use super::sys::sg::{self, Direction};
use super::Device;
use crate::scsi::{self, Command};

/// Sense bytes asked for: fixed format needs 18, descriptor format with a sense key specific
/// descriptor 16; 64 leaves room for the vendor's descriptors.
const SENSE_BYTES: usize = 64;

/// SAM status GOOD and CHECK CONDITION.
const GOOD: u8 = 0x00;
const CHECK_CONDITION: u8 = 0x02;

/// Why a SCSI command did not succeed, as the kernel said it.
#[derive(Debug)]
pub enum ScsiError {
    /// The ioctl itself failed (ENOTTY on a node that takes no SG_IO, EPERM, ENOMEM...).
    Ioctl(io::Error),
    /// The disk answered CHECK CONDITION with this sense data (an error key: RECOVERED
    /// ERROR and NO SENSE count as done).
    Check { sense: Vec<u8> },
    /// Another status (BUSY, RESERVATION CONFLICT, TASK SET FULL), or a host or driver
    /// status the transport set; `sense` when some came with it.
    Status {
        status: u8,
        host_status: u16,
        driver_status: u16,
        sense: Vec<u8>,
    },
}

impl Device {
    /// Sends `cmd` and returns its data in (empty for a command that reads nothing).
    pub fn scsi_command(&self, cmd: &Command) -> Result<Vec<u8>, ScsiError> {
        let (direction, mut buffer) = match cmd.direction {
            scsi::Direction::None => (Direction::None, Vec::new()),
            scsi::Direction::ToDevice => (Direction::ToDevice, cmd.data_out.clone()),
            scsi::Direction::FromDevice => {
                (Direction::FromDevice, vec![0u8; cmd.alloc_len as usize])
            }
        };
        let mut sense = [0u8; SENSE_BYTES];
        let timeout_ms = cmd.timeout_secs.saturating_mul(1000);
        let st = sg::sg_io(
            self,
            &cmd.cdb,
            direction,
            &mut buffer,
            &mut sense,
            timeout_ms,
            0,
        )
        .map_err(ScsiError::Ioctl)?;
        let sense = sense[..usize::from(st.sb_len_wr).min(SENSE_BYTES)].to_vec();
        // A CHECK CONDITION whose key says the command was done (NO SENSE with a progress or
        // power condition word, RECOVERED ERROR) is a success.
        let done_anyway = || {
            scsi::sense::decode(&sense).is_some_and(|s| {
                matches!(
                    s.key,
                    scsi::sense::key::NO_SENSE | scsi::sense::key::RECOVERED_ERROR
                )
            })
        };
        // The low nibble of driver_status is DRIVER_SENSE (sense was written): not a fault.
        let driver_fault = st.driver_status & !0x08 != 0;
        if st.host_status != 0 || driver_fault {
            return Err(ScsiError::Status {
                status: st.status,
                host_status: st.host_status,
                driver_status: st.driver_status,
                sense,
            });
        }
        match st.status {
            GOOD => {}
            CHECK_CONDITION if done_anyway() => {}
            CHECK_CONDITION => return Err(ScsiError::Check { sense }),
            status => {
                return Err(ScsiError::Status {
                    status,
                    host_status: st.host_status,
                    driver_status: st.driver_status,
                    sense,
                })
            }
        }
        if direction == Direction::FromDevice {
            let resid = usize::try_from(st.resid.max(0)).unwrap_or(0);
            buffer.truncate(buffer.len().saturating_sub(resid));
            Ok(buffer)
        } else {
            Ok(Vec::new())
        }
    }
}
