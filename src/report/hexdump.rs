//! hdparm's sector dump: 8 sixteen-bit words per line, each as its two bytes in disk order.

/// The dump of `data` as hdparm's `--read-sector` prints it.
pub fn sector_dump(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len() * 3);
    for line in data.chunks(16) {
        let words: Vec<String> = line
            .chunks(2)
            .map(|w| w.iter().map(|b| format!("{b:02x}")).collect())
            .collect();
        s.push_str(&words.join(" "));
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    #[test]
    fn eight_words_per_line_in_disk_order() {
        let mut data = [0u8; 32];
        data[0] = 0x12;
        data[1] = 0x34;
        let dump = super::sector_dump(&data);
        assert_eq!(dump.lines().count(), 2);
        assert_eq!(
            dump.lines().next(),
            Some("1234 0000 0000 0000 0000 0000 0000 0000")
        );
    }
}
