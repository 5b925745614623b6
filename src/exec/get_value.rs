//! Reading a value back out of a get's text (`-a DEV`, `-W DEV`...), for the callers that run
//! hdparm's own gets through this program and need the number: `--apply`'s read-back and
//! `--experiment`'s originals and read-backs. Pure: it takes the text and returns the number.

/// The number a get prints after its `=` (` write-caching =  1 (on)`, ` APM_level = 254`).
pub fn value_of_get(stdout: &str) -> Option<i64> {
    let line = stdout
        .lines()
        .find(|l| l.contains(" = ") || l.contains("="))?;
    let after = line.split_once('=')?.1.trim_start();
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_value_of_a_get_is_the_number_after_its_equals_sign() {
        assert_eq!(
            value_of_get("\n/dev/sda:\n write-caching =  1 (on)\n"),
            Some(1)
        );
        assert_eq!(value_of_get(" APM_level\t= 254\n"), Some(254));
        assert_eq!(value_of_get(" readahead     = 64 (on)\n"), Some(64));
        assert_eq!(value_of_get(" APM_level\t= not supported\n"), None);
        assert_eq!(value_of_get(""), None);
    }
}
