//! The per-device IDENTIFY cache, as hdparm 9.65 keeps it (its static `id`): read at the first
//! step that needs it, kept for the process until a step drops it (after the sets that change
//! it), so the drive sees the same IDENTIFY commands from both tools.
//!
//! One thing more: the guards of `-N COUNT` and `--dco-setmax N` read IDENTIFY before any step
//! runs (whether the drive would shrink decides the guard). That read stands for the first one
//! a step makes, as long as nothing else was sent to the drive since ([`IdentifyCache::seed`],
//! [`IdentifyCache::sent`]): `-N1000000 --yes-i-know-what-i-am-doing` then sends one IDENTIFY,
//! as hdparm does, not two. A command sent in between may change what IDENTIFY says, so the
//! seed is then dropped and the step reads IDENTIFY afresh. Must not: send anything itself.

use crate::exec::access::AtaFailure;

pub type Words = [u16; 256];

/// IDENTIFY as a device has it for its steps.
#[derive(Debug, Default)]
pub struct IdentifyCache {
    cached: Option<Result<Words, AtaFailure>>,
    /// The guard's IDENTIFY, not yet used by a step nor made stale by a command.
    seed: std::cell::Cell<Option<Words>>,
}

impl IdentifyCache {
    /// The words the guards read before the steps started.
    pub fn seed(&mut self, words: Words) {
        self.seed.set(Some(words));
    }

    /// Something other than IDENTIFY went to the drive: the guard's words may be stale.
    pub fn sent(&self) {
        self.seed.set(None);
    }

    /// The cached answer, else the seed, else what `read` gives (which is then cached).
    pub fn get(
        &mut self,
        read: impl FnOnce() -> Result<Words, AtaFailure>,
    ) -> Result<Words, AtaFailure> {
        if let Some(cached) = &self.cached {
            return cached.clone();
        }
        let result = match self.seed.take() {
            Some(words) => Ok(words),
            None => read(),
        };
        self.cached = Some(result.clone());
        result
    }

    /// A step changed what IDENTIFY says: the next `get` reads it again.
    pub fn forget(&mut self) {
        self.cached = None;
        self.seed.set(None);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(w0: u16) -> Words {
        let mut w = [0u16; 256];
        w[0] = w0;
        w
    }

    #[test]
    fn read_once_until_forgotten() {
        let mut cache = IdentifyCache::default();
        let mut reads = 0;
        for _ in 0..3 {
            let got = cache.get(|| {
                reads += 1;
                Ok(words(1))
            });
            assert_eq!(got.map(|w| w[0]).ok(), Some(1));
        }
        assert_eq!(reads, 1);
        cache.forget();
        let _ = cache.get(|| {
            reads += 1;
            Ok(words(2))
        });
        assert_eq!(reads, 2);
    }

    #[test]
    fn the_guards_words_stand_for_the_first_read_when_nothing_was_sent_since() {
        let mut cache = IdentifyCache::default();
        cache.seed(words(7));
        let got = cache.get(|| panic!("the seed is used, nothing is read"));
        assert_eq!(got.map(|w| w[0]).ok(), Some(7));
        // After a forget the seed is gone too: the drive is asked again.
        cache.forget();
        let got = cache.get(|| Ok(words(8)));
        assert_eq!(got.map(|w| w[0]).ok(), Some(8));
    }

    #[test]
    fn a_command_sent_before_the_first_read_makes_the_seed_stale() {
        let mut cache = IdentifyCache::default();
        cache.seed(words(7));
        cache.sent();
        let mut reads = 0;
        let got = cache.get(|| {
            reads += 1;
            Ok(words(9))
        });
        assert_eq!((got.map(|w| w[0]).ok(), reads), (Some(9), 1));
    }
}
