//! The CD/DVD speed calls of `-E` (hdparm's dvdspeed.c and its CDROM_SELECT_SPEED): SET
//! STREAMING sent as a packet command through the cdrom driver, and the driver's own speed
//! ioctl (SET CD SPEED). The CDB and descriptor are built in [`crate::ata::mmc`].
//!
//! Must not: decide what to do when one or both fail (the step does).

use std::io;

use super::sys::fsmap;
use super::Device;
use crate::ata::mmc;

impl Device {
    /// SET STREAMING with hdparm's Performance descriptor for `speed` (×177 kB/s; 0 restores
    /// the default), through `CDROM_SEND_PACKET`.
    pub fn cdrom_set_streaming(&self, speed: u32) -> io::Result<()> {
        let (cdb, mut descriptor) = mmc::set_streaming(speed);
        fsmap::cdrom_send_packet_out(self.fd(), cdb, &mut descriptor)
    }

    /// `CDROM_SELECT_SPEED`.
    pub fn cdrom_select_speed(&self, speed: u32) -> io::Result<()> {
        fsmap::cdrom_select_speed(self.fd(), speed)
    }
}
