//! Log pages for `-H` (SPC-5 §7.3): temperature 0Dh (current and reference temperature) and
//! informational exceptions 2Fh (the IE ASC/ASCQ and the most recent temperature).
//!
//! Must not: touch a device. Total: a page that is not the one asked for decodes to `None`,
//! a parameter cut short reads as absent.

use super::{be16, byte, slice};

/// One log parameter (SPC-5 §7.3.2.2): its code, control byte and value bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Parameter<'a> {
    pub code: u16,
    pub control: u8,
    pub value: &'a [u8],
}

/// The parameters of log page `page` (subpage 0), as many as fit; `None` when the answer is
/// another page.
pub fn parameters(answer: &[u8], page: u8) -> Option<Vec<Parameter<'_>>> {
    if answer.len() < 4 || answer[0] & 0x3F != page || answer[0] & 0x40 != 0 {
        return None;
    }
    let end = (4 + usize::from(be16(answer, 2))).min(answer.len());
    let mut out = Vec::new();
    let mut at = 4;
    while at + 4 <= end {
        let len = usize::from(answer[at + 3]);
        out.push(Parameter {
            code: be16(answer, at),
            control: answer[at + 2],
            value: slice(answer, at + 4, (at + 4 + len).min(end)),
        });
        at += 4 + len;
    }
    Some(out)
}

/// A temperature byte: FFh means "not available".
fn celsius(b: Option<u8>) -> Option<u8> {
    b.filter(|&t| t != 0xFF)
}

/// The temperature log page 0Dh.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Temperature {
    /// Parameter 0000h: the current temperature, °C (0 also means "0 or less").
    pub current: Option<u8>,
    /// Parameter 0001h: the reference temperature, the most the disk is made to run at.
    pub reference: Option<u8>,
}

/// Page 0Dh.
pub fn temperature(answer: &[u8]) -> Option<Temperature> {
    let mut t = Temperature::default();
    for p in parameters(answer, 0x0D)? {
        // the temperature is byte 1 of the parameter's value (byte 0 is reserved)
        let v = celsius(p.value.get(1).copied());
        match p.code {
            0 => t.current = v,
            1 => t.reference = v,
            _ => {}
        }
    }
    Some(t)
}

/// The informational exceptions log page 2Fh, its general parameter 0000h.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InformationalExceptions {
    /// INFORMATIONAL EXCEPTION ADDITIONAL SENSE CODE and QUALIFIER: 0/0 means nothing to
    /// report; 5Dh a failure prediction threshold exceeded, 0Bh/01h a temperature warning.
    pub asc: u8,
    pub ascq: u8,
    pub temperature: Option<u8>,
    pub threshold: Option<u8>,
    pub maximum: Option<u8>,
}

/// Page 2Fh; `None` also when its general parameter is missing.
pub fn informational_exceptions(answer: &[u8]) -> Option<InformationalExceptions> {
    let params = parameters(answer, 0x2F)?;
    let p = params.iter().find(|p| p.code == 0 && p.value.len() >= 2)?;
    Some(InformationalExceptions {
        asc: byte(p.value, 0),
        ascq: byte(p.value, 1),
        temperature: celsius(p.value.get(2).copied()),
        threshold: celsius(p.value.get(3).copied()),
        maximum: celsius(p.value.get(4).copied()),
    })
}

impl InformationalExceptions {
    /// The disk reports a temperature warning (ASC 0Bh, ASCQ 01h: warning, specified
    /// temperature exceeded) or a failure prediction (ASC 5Dh).
    pub fn warns(&self) -> bool {
        self.asc == 0x0B || self.asc == 0x5D
    }
}

/// `-H`'s "drive temperature in range": the current temperature below the reference one when
/// the disk says both, and no temperature warning in 2Fh.
pub fn in_range(t: &Temperature, ie: Option<&InformationalExceptions>) -> Option<bool> {
    let below = match (t.current, t.reference) {
        (Some(c), Some(r)) => Some(c < r),
        _ => None,
    };
    match ie {
        Some(ie) if ie.asc == 0x0B => Some(false),
        _ => below,
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// scsi_debug's temperature page: 38 C, reference 65 C.
    pub(crate) fn scsi_debug_0d() -> Vec<u8> {
        vec![
            0x0D, 0x00, 0x00, 0x0C, 0x00, 0x00, 0x03, 0x02, 0x00, 38, 0x00, 0x01, 0x03, 0x02, 0x00,
            65,
        ]
    }

    /// scsi_debug's informational exceptions page: IE ASC 0, 38 C.
    pub(crate) fn scsi_debug_2f() -> Vec<u8> {
        vec![
            0x2F, 0x00, 0x00, 0x07, 0x00, 0x00, 0x03, 0x03, 0x00, 0x00, 38,
        ]
    }

    #[test]
    fn temperature_page() {
        let t = temperature(&scsi_debug_0d()).unwrap();
        assert_eq!((t.current, t.reference), (Some(38), Some(65)));
        assert_eq!(in_range(&t, None), Some(true));
        let mut na = scsi_debug_0d();
        na[9] = 0xFF;
        assert_eq!(temperature(&na).unwrap().current, None);
        assert_eq!(temperature(&scsi_debug_2f()), None);
        // a page cut inside its second parameter
        let t = temperature(&scsi_debug_0d()[..13]).unwrap();
        assert_eq!((t.current, t.reference), (Some(38), None));
    }

    #[test]
    fn ie_page() {
        let ie = informational_exceptions(&scsi_debug_2f()).unwrap();
        assert_eq!((ie.asc, ie.ascq, ie.temperature), (0, 0, Some(38)));
        assert_eq!(ie.threshold, None);
        assert!(!ie.warns());
        let t = Temperature {
            current: Some(38),
            reference: Some(65),
        };
        let hot = InformationalExceptions {
            asc: 0x0B,
            ascq: 0x01,
            ..ie
        };
        assert_eq!(in_range(&t, Some(&hot)), Some(false));
        assert_eq!(informational_exceptions(&[0x2F, 0, 0, 0]), None);
    }
}
