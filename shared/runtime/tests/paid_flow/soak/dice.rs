//! Seeded dice (SplitMix64): every random choice of the soak comes from one, keyed by the
//! run's seed and what the choice is about, so a seed replays the same plan and the same
//! faults for the same payment whatever order 32 clients happen to run in.

use sha2::{Digest, Sha256};

/// A stream of pseudo-random numbers.
#[derive(Debug, Clone)]
pub struct Dice(u64);

impl Dice {
    /// The dice of `seed` for the thing `parts` name.
    pub fn keyed(seed: u64, parts: &[&[u8]]) -> Self {
        let mut hash = Sha256::new();
        hash.update(seed.to_le_bytes());
        for part in parts {
            hash.update((part.len() as u64).to_le_bytes());
            hash.update(part);
        }
        let digest = hash.finalize();
        Self(u64::from_le_bytes(digest[..8].try_into().expect("8 bytes")))
    }

    /// The next number.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number below `n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// True `per_mille` times in a thousand.
    pub fn chance(&mut self, per_mille: u64) -> bool {
        self.below(1_000) < per_mille
    }

    /// One of `weighted`'s values, each as likely as its weight.
    pub fn pick<T: Copy>(&mut self, weighted: &[(u64, T)]) -> T {
        let total: u64 = weighted.iter().map(|(weight, _)| weight).sum();
        let mut roll = self.below(total);
        for &(weight, value) in weighted {
            if roll < weight {
                return value;
            }
            roll -= weight;
        }
        unreachable!("the roll is below the total weight")
    }
}
