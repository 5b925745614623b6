//! drive-model: an ATA drive that answers what QEMU's drives abort (security, sanitize, DCO,
//! DOWNLOAD MICROCODE, SET SECTOR CONFIGURATION, WD vendor commands), for hdparm-rs's VM
//! differential bench. A pure core (`state`, `identify`, `ata`, `scsi`: a CDB and its data out
//! in, data in + status + sense out; `scsi_disk`: a SCSI-only disk, a SAS drive that refuses ATA
//! PASS-THROUGH; `scsi_wire`: the answer and the CDB fields both SCSI faces use) and a TCMU
//! front-end (`tcmu`) that puts it behind the kernel's SCSI target as a real /dev/sdX. Shares
//! no code with hdparm-rs's `ata/`.

pub mod ata;
pub mod daemon;
pub mod identify;
pub mod scsi;
pub mod scsi_disk;
pub mod scsi_wire;
pub mod state;
pub mod tcmu;
