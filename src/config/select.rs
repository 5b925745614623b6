//! Blocks of hdparm.conf that name drives by what they are, not by their node (ours):
//! `model:GLOB {`, `serial:GLOB {`, `wwn:GLOB {` and `class:NAME {` (`rotational`, `ssd`,
//! `nvme`, `usb`), so one file serves a fleet. Debian's scripts read such a block as a device
//! that is never there, so the same file still works with Debian's hdparm.
//!
//! A glob has `*` (any run of characters) and `?` (one character); case matters. A blank in a
//! model name is written `\ ` or matched with `?`, since the file's lines are split on blanks.
//!
//! What this file must not do: ask the system; the caller fills [`Identity`].

/// What a drive is, for the selectors.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Identity {
    pub model: String,
    pub serial: String,
    pub wwn: String,
    /// The classes the drive belongs to (`rotational`, `ssd`, `nvme`, `usb`).
    pub classes: Vec<&'static str>,
}

/// The classes a `class:` selector can name.
pub const CLASSES: [&str; 4] = ["rotational", "ssd", "nvme", "usb"];

/// Whether the block key is a selector that this drive matches. A key that is no selector
/// matches nothing here (it is a device name, compared by the caller).
pub fn matches(key: &str, drive: &Identity) -> bool {
    let Some((kind, pattern)) = key.split_once(':') else {
        return false;
    };
    match kind {
        "model" => !drive.model.is_empty() && glob(pattern, &drive.model),
        "serial" => !drive.serial.is_empty() && glob(pattern, &drive.serial),
        "wwn" => !drive.wwn.is_empty() && glob(pattern, &drive.wwn),
        "class" => drive.classes.contains(&pattern),
        _ => false,
    }
}

/// Whether the key is one of our selectors (so it names no device node).
pub fn is_selector(key: &str) -> bool {
    key.split_once(':')
        .is_some_and(|(kind, _)| matches!(kind, "model" | "serial" | "wwn" | "class"))
}

/// `*` and `?` glob matching, iterative with one backtrack point (linear in practice).
fn glob(pattern: &str, text: &str) -> bool {
    let p: Vec<char> = pattern.chars().collect();
    let t: Vec<char> = text.chars().collect();
    let (mut i, mut j) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while j < t.len() {
        if i < p.len() && (p[i] == '?' || p[i] == t[j]) {
            i += 1;
            j += 1;
        } else if i < p.len() && p[i] == '*' {
            star = Some((i, j));
            i += 1;
        } else if let Some((si, sj)) = star {
            i = si + 1;
            j = sj + 1;
            star = Some((si, sj + 1));
        } else {
            return false;
        }
    }
    while i < p.len() && p[i] == '*' {
        i += 1;
    }
    i == p.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn wd_green() -> Identity {
        Identity {
            model: "WDC WD20EARX-00PASB0".into(),
            serial: "WD-WMAZA1234567".into(),
            wwn: "0x50014ee2b1234567".into(),
            classes: vec!["rotational"],
        }
    }

    #[test]
    fn globs_match_model_serial_and_wwn() {
        let d = wd_green();
        assert!(matches("model:WDC?WD20EARX*", &d));
        assert!(matches("model:WDC WD20EARX-00PASB0", &d));
        assert!(!matches("model:ST*", &d));
        assert!(matches("serial:WD-WMAZA*", &d));
        assert!(matches("wwn:0x50014ee*", &d));
        assert!(!matches("wwn:0x5000c5*", &d));
    }

    #[test]
    fn classes_match_by_name() {
        let d = wd_green();
        assert!(matches("class:rotational", &d));
        assert!(!matches("class:ssd", &d));
        assert!(!matches("class:rot*", &d), "a class is a name, not a glob");
    }

    #[test]
    fn device_names_and_unknown_drives_match_nothing() {
        assert!(!matches("/dev/sda", &wd_green()));
        assert!(!matches("model:*", &Identity::default()));
        assert!(!is_selector("/dev/disk/by-id/ata-X"));
        assert!(is_selector("class:nvme"));
    }

    #[test]
    fn glob_backtracks() {
        assert!(glob("*a*b", "xaxxab"));
        assert!(!glob("*a*b", "xaxxa"));
        assert!(glob("", ""));
        assert!(glob("*", ""));
        assert!(!glob("?", ""));
    }
}
