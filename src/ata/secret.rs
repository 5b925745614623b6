//! [`Secret`]: bytes that hold a drive password (the 32-byte password field, the 512-byte data
//! sector that carries it), zeroed when dropped and never shown by `Debug`.
//!
//! The bytes live in a box of their own: moving a `Secret` moves a pointer, so no copy of the
//! password is left behind in an old stack slot, and the one place they live stays at one
//! address while held (so `device::sys::secret` can lock its page in memory).
//!
//! Must not: copy the bytes out except into the data sector sent to the drive, or format them.
//! Zeroing is done in safe code (`fill` then `black_box`, which the optimiser must assume reads
//! the zeros, so the stores are kept); a volatile write would need `unsafe` outside
//! `device::sys`.

use std::fmt;

/// `N` bytes that are zeroed on drop; see the module doc.
pub struct Secret<const N: usize>(Box<[u8; N]>);

impl<const N: usize> Secret<N> {
    /// All zeros (an empty password).
    pub fn zeroed() -> Secret<N> {
        Secret(Box::new([0u8; N]))
    }

    /// The first `bytes.len()` bytes from `bytes` (at most `N`), the rest zero.
    pub fn from_slice(bytes: &[u8]) -> Secret<N> {
        let mut secret = Secret::zeroed();
        let n = bytes.len().min(N);
        secret.0[..n].copy_from_slice(&bytes[..n]);
        secret
    }

    pub fn as_bytes(&self) -> &[u8; N] {
        &self.0
    }

    pub fn as_mut_bytes(&mut self) -> &mut [u8; N] {
        &mut self.0
    }
}

impl<const N: usize> Drop for Secret<N> {
    fn drop(&mut self) {
        self.0.fill(0);
        std::hint::black_box(&mut self.0);
    }
}

impl<const N: usize> Clone for Secret<N> {
    fn clone(&self) -> Secret<N> {
        Secret::from_slice(&self.0[..])
    }
}

impl<const N: usize> PartialEq for Secret<N> {
    fn eq(&self, other: &Secret<N>) -> bool {
        self.0[..] == other.0[..]
    }
}

impl<const N: usize> Eq for Secret<N> {}

impl<const N: usize> fmt::Debug for Secret<N> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Secret<{N}>(not shown)")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn debug_never_shows_the_bytes() {
        let s = Secret::<32>::from_slice(b"hunter2");
        assert_eq!(format!("{s:?}"), "Secret<32>(not shown)");
        assert!(!format!("{:?}", Some(s.clone())).contains("hunter2"));
        assert_eq!(&s.as_bytes()[..8], b"hunter2\0");
        assert_eq!(s, s.clone());
    }

    #[test]
    fn from_slice_takes_at_most_n_bytes() {
        let s = Secret::<4>::from_slice(b"abcdef");
        assert_eq!(s.as_bytes(), b"abcd");
    }
}
