//! IDENTIFY data as hex text: the reader behind `--Istdin` and the dump behind `--Istdout`.
//!
//! Owns: the exact tokenizing rules of hdparm 9.65's `--Istdin` (reference §5.4) and the
//! 32-line layout of `--Istdout`. Pure: takes bytes, returns words or text.
//!
//! Must not: read stdin itself or print; the caller owns the streams and the messages.
//!
//! The reader rules, as the real program behaves (checked against `hdparm --Istdin`):
//! * characters are taken in groups of four hex digits (either case), first digit most
//!   significant, each group one word;
//! * a non-hex character where a group should start, or inside a group, ends the attempt: the
//!   partial group is lost, and the offending character too;
//! * before the first word, such a character makes the reader skip to the end of its line
//!   (so headers like `/dev/sda:` pass), the newline included;
//! * it stops after 256 words (the rest of the input is never read) or at end of input.

use super::identify::IDENTIFY_WORDS;

/// The input ended before 256 words were read; carries how many were.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ShortInput {
    pub words_read: usize,
}

fn hex_value(c: u8) -> Option<u16> {
    match c {
        b'0'..=b'9' => Some(u16::from(c - b'0')),
        b'a'..=b'f' => Some(u16::from(c - b'a' + 10)),
        b'A'..=b'F' => Some(u16::from(c - b'A' + 10)),
        _ => None,
    }
}

/// Reads 256 IDENTIFY words from hex text with `--Istdin`'s rules (see the module doc).
pub fn parse_identify_hex(input: &[u8]) -> Result<[u16; IDENTIFY_WORDS], ShortInput> {
    let mut words = [0u16; IDENTIFY_WORDS];
    let mut count = 0usize;
    let mut pos = 0usize;
    let mut next = || {
        let c = input.get(pos).copied();
        pos += 1;
        c
    };
    while count < IDENTIFY_WORDS {
        let mut value = 0u16;
        let mut stopped_at = None;
        for _ in 0..4 {
            match next() {
                Some(c) => match hex_value(c) {
                    Some(v) => value = (value << 4) | v,
                    None => {
                        stopped_at = Some(Some(c));
                        break;
                    }
                },
                None => {
                    stopped_at = Some(None);
                    break;
                }
            }
        }
        match stopped_at {
            None => {
                words[count] = value;
                count += 1;
            }
            Some(None) => return Err(ShortInput { words_read: count }),
            Some(Some(c)) if count == 0 => {
                // Skip the rest of a leading line of cruft.
                let mut c = c;
                while c != b'\n' {
                    match next() {
                        Some(n) => c = n,
                        None => return Err(ShortInput { words_read: count }),
                    }
                }
            }
            Some(Some(_)) => {}
        }
    }
    Ok(words)
}

/// The `--Istdout` dump: 32 lines of 8 words, each `%04x`, separated by one space.
pub fn format_identify_hex(words: &[u16; IDENTIFY_WORDS]) -> String {
    let mut out = String::with_capacity(32 * 40);
    for (i, w) in words.iter().enumerate() {
        out.push_str(&format!("{w:04x}"));
        out.push(if i % 8 == 7 { '\n' } else { ' ' });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dump(words: &[u16; 256]) -> Vec<u8> {
        format_identify_hex(words).into_bytes()
    }

    fn sample() -> [u16; 256] {
        let mut w = [0u16; 256];
        for (i, x) in w.iter_mut().enumerate() {
            *x = (i as u16).wrapping_mul(0x9E37) ^ 0xA5C3;
        }
        w
    }

    #[test]
    fn dump_layout_is_32_lines_of_8() {
        let text = format_identify_hex(&sample());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 32);
        assert!(lines
            .iter()
            .all(|l| l.len() == 39 && l.split(' ').count() == 8));
        assert!(text.ends_with('\n'));
    }

    #[test]
    fn round_trip_and_case() {
        let w = sample();
        assert_eq!(parse_identify_hex(&dump(&w)), Ok(w));
        let upper = String::from_utf8_lossy(&dump(&w)).to_uppercase();
        assert_eq!(parse_identify_hex(upper.as_bytes()), Ok(w));
        let packed: Vec<u8> = dump(&w)
            .into_iter()
            .filter(|c| !c.is_ascii_whitespace())
            .collect();
        assert_eq!(parse_identify_hex(&packed), Ok(w));
    }

    #[test]
    fn header_lines_are_skipped_before_the_first_word() {
        let w = sample();
        let mut input = b"\n/dev/sda:\nzz 1234\n".to_vec();
        input.extend(dump(&w));
        assert_eq!(parse_identify_hex(&input), Ok(w));
        // A leading line that begins with a full word is data, not a header.
        let mut input = b"12345\n".to_vec();
        input.extend(dump(&w));
        let got = parse_identify_hex(&input).unwrap_or([0; 256]);
        assert_eq!(got[0], 0x1234);
        assert_eq!(got[1], w[0]);
    }

    #[test]
    fn partial_groups_are_lost_after_the_first_word() {
        assert_eq!(
            parse_identify_hex(b"1234 12x5678"),
            Err(ShortInput { words_read: 2 })
        );
        // The same partial group before the first word skips the whole line.
        assert_eq!(
            parse_identify_hex(b"12x5678\n9abc"),
            Err(ShortInput { words_read: 1 })
        );
    }

    #[test]
    fn short_input_counts_words() {
        assert_eq!(parse_identify_hex(b""), Err(ShortInput { words_read: 0 }));
        assert_eq!(parse_identify_hex(b"x"), Err(ShortInput { words_read: 0 }));
        assert_eq!(
            parse_identify_hex(b"0c5a 12"),
            Err(ShortInput { words_read: 1 })
        );
        assert_eq!(
            parse_identify_hex(b"1234\nzz\n1234"),
            Err(ShortInput { words_read: 2 })
        );
    }

    #[test]
    fn stops_after_256_words() {
        let w = sample();
        let mut input = dump(&w);
        input.extend(b"ffff ffff garbage");
        assert_eq!(parse_identify_hex(&input), Ok(w));
    }
}
