//! The SANITIZE DEVICE command (0xB4, ACS-3 §7.34) as hdparm 9.65 sends it (reference §4.8):
//! the sub-command in the feature register, its key in the LBA, the overwrite passes in the
//! count; the status hdparm decodes from the returned registers (state from COUNT 15:8,
//! progress from LBA 15:0), the failure reason from LBA 7:0, all worded as hdparm words them;
//! and the remaining-time estimate of our `--sanitize-status --wait`.
//!
//! Must not: send anything or print anything; `exec/steps/sanitize.rs` does.

use super::command::{op, AtaRegisters, Protocol, TaskFile, DEV_LBA};

/// A SANITIZE DEVICE sub-command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sub {
    Status,
    CryptoScramble,
    BlockErase,
    /// OVERWRITE EXT with a 32-bit pattern and the pass count (0..7; 0 means 16).
    Overwrite {
        pattern: u32,
        passes: u8,
    },
    FreezeLock,
    AntifreezeLock,
}

/// The key of each sub-command (ACS-3 table 47: ASCII in the LBA register).
pub const CRYPTO_SCRAMBLE_KEY: u64 = 0x4372_7970; // "Cryp"
pub const BLOCK_ERASE_KEY: u64 = 0x426B_4572; // "BkEr"
pub const OVERWRITE_KEY: u64 = 0x4F57; // "OW", in LBA 47:32
pub const FREEZE_LOCK_KEY: u64 = 0x4672_4C6B; // "FrLk"
pub const ANTIFREEZE_LOCK_KEY: u64 = 0x416E_7469; // "Anti"

/// hdparm's timeout for every SANITIZE DEVICE command (the erase runs in the background).
pub const TIMEOUT_SECS: u32 = 10;

impl Sub {
    /// The FEATURE register value.
    pub fn feature(self) -> u16 {
        match self {
            Sub::Status => 0x0000,
            Sub::CryptoScramble => 0x0011,
            Sub::BlockErase => 0x0012,
            Sub::Overwrite { .. } => 0x0014,
            Sub::FreezeLock => 0x0020,
            Sub::AntifreezeLock => 0x0040,
        }
    }

    /// The LBA register value (the key).
    pub fn lba(self) -> u64 {
        match self {
            Sub::Status => 0,
            Sub::CryptoScramble => CRYPTO_SCRAMBLE_KEY,
            Sub::BlockErase => BLOCK_ERASE_KEY,
            Sub::Overwrite { pattern, .. } => (OVERWRITE_KEY << 32) | u64::from(pattern),
            Sub::FreezeLock => FREEZE_LOCK_KEY,
            Sub::AntifreezeLock => ANTIFREEZE_LOCK_KEY,
        }
    }

    /// hdparm's name in `Issuing <name> command`.
    pub fn name(self) -> &'static str {
        match self {
            Sub::Status => "SANITIZE_STATUS",
            Sub::CryptoScramble => "SANITIZE_CRYPTO_SCRAMBLE",
            Sub::BlockErase => "SANITIZE_BLOCK_ERASE",
            Sub::Overwrite { .. } => "SANITIZE_OVERWRITE",
            Sub::FreezeLock => "SANITIZE_FREEZE_LOCK",
            Sub::AntifreezeLock => "SANITIZE_ANTIFREEZE_LOCK",
        }
    }

    /// Whether it destroys the user data (and starts a background operation).
    pub fn destroys_data(self) -> bool {
        matches!(
            self,
            Sub::CryptoScramble | Sub::BlockErase | Sub::Overwrite { .. }
        )
    }

    /// The taskfile hdparm's `do_sanitize_cmd` sends: the 48-bit layout (it sets the HOB LBA
    /// bytes), device register 0x40, count 0 but for OVERWRITE, non-data, 10 s.
    pub fn taskfile(self) -> TaskFile {
        let count = match self {
            Sub::Overwrite { passes, .. } => u16::from(passes),
            _ => 0,
        };
        TaskFile {
            command: op::SANITIZE,
            feature: self.feature(),
            count,
            lba: self.lba(),
            device: DEV_LBA,
            lba48: true,
            protocol: Protocol::NonData,
            timeout_secs: TIMEOUT_SECS,
        }
    }
}

/// COUNT 15:8 bits of the status (ACS-3 §7.34.1 table 45).
const SANITIZE_COMPLETED_WITHOUT_ERROR: u16 = 1 << 15;
const OPERATION_IN_PROGRESS: u16 = 1 << 14;
const DEVICE_FROZEN: u16 = 1 << 13;
const ANTIFREEZE: u16 = 1 << 12;

/// The sanitize states hdparm names (SD3 only in a failure's text).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum State {
    Idle,
    Frozen,
    InProgress,
}

impl State {
    pub fn text(self) -> &'static str {
        match self {
            State::Idle => "SD0 Sanitize Idle",
            State::Frozen => "SD1 Sanitize Frozen",
            State::InProgress => "SD2 Sanitize operation In Process",
        }
    }

    /// A short stable name, for JSON.
    pub fn key(self) -> &'static str {
        match self {
            State::Idle => "SD0",
            State::Frozen => "SD1",
            State::InProgress => "SD2",
        }
    }
}

/// hdparm's text of the failed state (SD3).
pub const FAILED_STATE: &str = "SD3 Sanitize Operation Failed";

/// What SANITIZE STATUS EXT returned.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Status {
    pub state: State,
    /// LBA 15:0 while in progress: done, in 1/65536ths.
    pub progress: u16,
    pub completed_without_error: bool,
    pub antifreeze: bool,
}

impl Status {
    /// Decodes the returned registers as hdparm does: frozen wins over in progress.
    pub fn from_registers(r: &AtaRegisters) -> Status {
        let state = if r.count & DEVICE_FROZEN != 0 {
            State::Frozen
        } else if r.count & OPERATION_IN_PROGRESS != 0 {
            State::InProgress
        } else {
            State::Idle
        };
        Status {
            state,
            progress: (r.lba & 0xFFFF) as u16,
            completed_without_error: r.count & SANITIZE_COMPLETED_WITHOUT_ERROR != 0,
            antifreeze: r.count & ANTIFREEZE != 0,
        }
    }

    /// hdparm's percentage: 100 for 0xFFFF, else 100 × (progress + 1) / 0xFFFF, in integers.
    pub fn percent(&self) -> u32 {
        if self.progress == 0xFFFF {
            100
        } else {
            100 * (u32::from(self.progress) + 1) / 0xFFFF
        }
    }

    /// hdparm's lines after `Sanitize status:`.
    pub fn text(&self) -> String {
        let mut s = format!("    State:    {}\n", self.state.text());
        if self.state == State::InProgress {
            s.push_str(&format!(
                "    Progress: 0x{:x} ({}%)\n",
                self.progress,
                self.percent()
            ));
        }
        if self.completed_without_error {
            s.push_str("    Last Sanitize Operation Completed Without Error\n");
        }
        if self.antifreeze {
            s.push_str("    Antifreeze bit set\n");
        }
        s
    }

    /// The fraction done, 0.0 to 1.0 (in progress only).
    pub fn fraction(&self) -> Option<f64> {
        (self.state == State::InProgress).then(|| f64::from(self.progress) / 65535.0)
    }
}

/// Why the drive aborted a SANITIZE command: LBA 7:0 of the returned registers, worded as
/// hdparm words it; values hdparm does not know count as "not reported".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Reason {
    NotReported,
    LastFailed,
    Unsupported,
    Frozen,
    AntifreezeLock,
}

impl Reason {
    pub fn from_registers(r: &AtaRegisters) -> Reason {
        match r.lba & 0xFF {
            1 => Reason::LastFailed,
            2 => Reason::Unsupported,
            3 => Reason::Frozen,
            4 => Reason::AntifreezeLock,
            _ => Reason::NotReported,
        }
    }

    pub fn text(self) -> &'static str {
        match self {
            Reason::NotReported => "Reason not reported",
            Reason::LastFailed => "Last Sanitize Command completed unsuccessfully",
            Reason::Unsupported => "Unsupported command",
            Reason::Frozen => "Device in FROZEN state",
            Reason::AntifreezeLock => "Antifreeze lock enabled",
        }
    }

    /// hdparm's lines on stderr after `SANITIZE failed: ...`.
    pub fn lines(self) -> Vec<String> {
        let mut lines = vec![format!("SANITIZE device error reason: {}", self.text())];
        if self == Reason::LastFailed {
            lines.push(format!("Drive in {FAILED_STATE} state"));
        }
        lines
    }
}

/// The time left, from two observations of the fraction done: `(seconds, fraction)` when
/// first seen and now. None until the fraction has moved.
pub fn remaining_secs(first: (f64, f64), now: (f64, f64)) -> Option<f64> {
    let (t0, f0) = first;
    let (t1, f1) = now;
    let rate = (f1 - f0) / (t1 - t0);
    if rate.is_nan() || rate <= 0.0 || !rate.is_finite() {
        return None;
    }
    Some(((1.0 - f1) / rate).max(0.0))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn regs(count: u16, lba: u64) -> AtaRegisters {
        AtaRegisters {
            count,
            lba,
            lba48: true,
            ..Default::default()
        }
    }

    #[test]
    fn taskfiles_as_hdparm_sends_them() {
        let tf = Sub::Status.taskfile();
        assert_eq!((tf.command, tf.feature, tf.count, tf.lba), (0xB4, 0, 0, 0));
        assert!(tf.lba48);
        assert_eq!(tf.timeout(), 10);
        assert_eq!(tf.device_register(), 0x40);
        let tf = Sub::BlockErase.taskfile();
        assert_eq!((tf.feature, tf.lba), (0x12, 0x426B4572));
        assert_eq!(
            tf.cdb16(),
            [0x85, 0x07, 0x20, 0, 0x12, 0, 0, 0x42, 0x72, 0, 0x45, 0, 0x6B, 0x40, 0xB4, 0]
        );
        let tf = Sub::Overwrite {
            pattern: 0xDEADBEEF,
            passes: 3,
        }
        .taskfile();
        assert_eq!((tf.feature, tf.count, tf.lba), (0x14, 3, 0x4F57_DEAD_BEEF));
        assert_eq!(Sub::CryptoScramble.taskfile().lba, 0x43727970);
        assert_eq!(Sub::FreezeLock.taskfile().feature, 0x20);
        assert_eq!(Sub::AntifreezeLock.taskfile().lba, 0x416E7469);
    }

    #[test]
    fn status_lines() {
        let s = Status::from_registers(&regs(0x8000, 0));
        assert_eq!(
            s.text(),
            "    State:    SD0 Sanitize Idle\n    Last Sanitize Operation Completed Without Error\n"
        );
        let s = Status::from_registers(&regs(0x4000 | 0x1000, 0x7FFF));
        assert_eq!(
            s.text(),
            "    State:    SD2 Sanitize operation In Process\n    Progress: 0x7fff (50%)\n    Antifreeze bit set\n"
        );
        // Frozen wins; the progress is not shown then.
        let s = Status::from_registers(&regs(0x6000, 0x1234));
        assert_eq!(s.text(), "    State:    SD1 Sanitize Frozen\n");
        assert_eq!(Status::from_registers(&regs(0x4000, 0xFFFF)).percent(), 100);
        assert_eq!(Status::from_registers(&regs(0x4000, 0xFFFE)).percent(), 100);
        assert_eq!(Status::from_registers(&regs(0x4000, 0)).percent(), 0);
        assert_eq!(Status::from_registers(&regs(0x4000, 0x028E)).percent(), 0);
        assert_eq!(Status::from_registers(&regs(0x4000, 0x028F)).percent(), 1);
        // The low COUNT byte is not looked at.
        assert_eq!(Status::from_registers(&regs(0x00FF, 0)).state, State::Idle);
    }

    #[test]
    fn failure_reasons() {
        let lines = |lba| Reason::from_registers(&regs(0, lba)).lines();
        assert_eq!(
            lines(0),
            ["SANITIZE device error reason: Reason not reported"]
        );
        assert_eq!(
            lines(1),
            [
                "SANITIZE device error reason: Last Sanitize Command completed unsuccessfully",
                "Drive in SD3 Sanitize Operation Failed state"
            ]
        );
        assert_eq!(
            lines(2),
            ["SANITIZE device error reason: Unsupported command"]
        );
        assert_eq!(
            lines(3),
            ["SANITIZE device error reason: Device in FROZEN state"]
        );
        assert_eq!(
            lines(4),
            ["SANITIZE device error reason: Antifreeze lock enabled"]
        );
        assert_eq!(
            lines(5),
            ["SANITIZE device error reason: Reason not reported"]
        );
        // Only LBA 7:0 counts.
        assert_eq!(lines(0x0103), lines(3));
    }

    #[test]
    fn remaining_time() {
        assert_eq!(remaining_secs((0.0, 0.1), (10.0, 0.1)), None);
        assert_eq!(remaining_secs((0.0, 0.1), (0.0, 0.1)), None);
        let left = remaining_secs((0.0, 0.1), (10.0, 0.2)).unwrap_or_default();
        assert!((left - 80.0).abs() < 1e-9, "{left}");
    }
}
