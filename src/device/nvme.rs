//! The NVMe transport: admin and I/O commands through the kernel's passthrough ioctls, the
//! namespace ID of a node, and the controller's sysfs attributes (model, serial, firmware, the
//! PCIe link). `/dev/nvme0n1` (a namespace's block node) takes both queues; `/dev/nvme0` (the
//! controller's character node) takes admin commands, and I/O commands for namespace 1 when
//! the controller has a single namespace (the kernel allows that, with a warning).
//!
//! Must not: decode what comes back (that is `nvme`), or decide what to send.

use super::sys::nvme as sys;
use super::Device;
use crate::nvme::command::{NvmeCommand, Queue};
use std::io;
use std::path::{Path, PathBuf};

pub use sys::NvmeCompletion;

/// Sends one command with its data buffer (its length is the transfer length).
pub fn submit(dev: &Device, cmd: &NvmeCommand, data: &mut [u8]) -> io::Result<NvmeCompletion> {
    let raw = sys::NvmePassthruCmd {
        opcode: cmd.opcode,
        nsid: cmd.nsid,
        cdw10: cmd.cdw10,
        cdw11: cmd.cdw11,
        cdw12: cmd.cdw12,
        cdw13: cmd.cdw13,
        cdw14: cmd.cdw14,
        cdw15: cmd.cdw15,
        timeout_ms: cmd.timeout_ms,
        ..Default::default()
    };
    match cmd.queue {
        Queue::Admin => sys::admin_cmd(dev.fd(), &raw, data),
        Queue::Io => sys::io_cmd(dev.fd(), &raw, data),
    }
}

/// The namespace ID: `NVME_IOCTL_ID` on a namespace node; None on the controller node (which
/// answers ENOTTY), where the caller uses namespace 1.
pub fn namespace_id(dev: &Device) -> Option<u32> {
    sys::namespace_id(dev.fd()).ok().filter(|&n| n != 0)
}

/// The controller's sysfs directory (`/sys/class/nvme/nvme0`), from the node's name:
/// `nvme0n1`, `nvme0n1p2`, `nvme0` and `ng0n1` all belong to controller `nvme0`.
pub fn controller_dir(path: &Path) -> Option<PathBuf> {
    controller_name(&path.file_name()?.to_string_lossy())
        .map(|c| Path::new("/sys/class/nvme").join(c))
}

/// The controller's kernel name for a node's name.
pub fn controller_name(node: &str) -> Option<String> {
    let digits_of = |s: &str| -> String { s.chars().take_while(char::is_ascii_digit).collect() };
    let rest = node
        .strip_prefix("nvme")
        .or_else(|| node.strip_prefix("ng"))?;
    let n = digits_of(rest);
    (!n.is_empty()).then(|| format!("nvme{n}"))
}

/// One attribute of the controller (`model`, `serial`, `firmware_rev`, `transport`) or of
/// its PCI function (`device/current_link_speed`), trimmed.
pub fn controller_attr(path: &Path, attr: &str) -> io::Result<String> {
    let dir = controller_dir(path).ok_or_else(|| io::Error::from_raw_os_error(libc::ENODEV))?;
    Ok(std::fs::read_to_string(dir.join(attr))?.trim().to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controller_names() {
        assert_eq!(controller_name("nvme0n1").as_deref(), Some("nvme0"));
        assert_eq!(controller_name("nvme12n3p4").as_deref(), Some("nvme12"));
        assert_eq!(controller_name("nvme1").as_deref(), Some("nvme1"));
        assert_eq!(controller_name("ng0n1").as_deref(), Some("nvme0"));
        assert_eq!(controller_name("nvme-fabrics"), None);
        assert_eq!(controller_name("sda"), None);
        assert_eq!(
            controller_dir(Path::new("/dev/nvme0n1")),
            Some(PathBuf::from("/sys/class/nvme/nvme0"))
        );
    }
}
