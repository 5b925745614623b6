//! Settings that last: hdparm.conf read as Debian reads it (`debian.rs`), the plans that apply
//! it, and what `--check` compares with the record of the last apply (`verify.rs`). Pure: the
//! caller reads the file and asks the system what the plans need to know.

pub mod debian;
pub mod keys;
pub mod select;
pub mod verify;

/// The file's text from its bytes. Debian's scripts read the file as bytes (dash and `read`
/// care about no encoding), so a byte that is not UTF-8 (a Latin-1 `ü` in a comment) must not
/// stop anything: such bytes become U+FFFD, which matter only outside comments, where
/// [`debian::diagnose`] warns about them.
pub fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}
