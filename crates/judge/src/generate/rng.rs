//! The generator's seeded random numbers: SplitMix64, written out here so
//! that a seed means the same file on every platform and every version of
//! every dependency.
//!
//! SplitMix64 (Steele, Lea and Flood, "Fast splittable pseudorandom number
//! generators", OOPSLA 2014; the constants are those of Java's
//! `SplittableRandom`) is a 64-bit counter passed through a strong mixing
//! function. It is not for secrets, but it is more than random enough to
//! shuffle a grid, and it is small enough to check by eye. Only integer
//! arithmetic with explicit wrapping is used, so the stream does not depend
//! on the target's word size or float behaviour.

/// The golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

/// A SplitMix64 stream.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rng {
    state: u64,
}

impl Rng {
    /// The stream of `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng { state: seed }
    }

    /// An independent stream for item `index` of the run seeded `seed`, so
    /// that puzzle `i` of a seed is the same whatever the count asked for.
    pub fn for_item(seed: u64, index: u64) -> Rng {
        // Mix both through the output function so that neighbouring seeds
        // and indices start far apart.
        let a = mix(seed.wrapping_add(GAMMA));
        let b = mix(index
            .wrapping_mul(GAMMA)
            .wrapping_add(0x5851_F42D_4C95_7F2D));
        Rng::new(a ^ b.rotate_left(17))
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GAMMA);
        mix(self.state)
    }

    /// A uniform number in `0..bound`; 0 if `bound` is 0.
    ///
    /// Lemire's multiply-and-shift with rejection ("Fast random integer
    /// generation in an interval", 2019): exact, no modulo bias.
    pub fn below(&mut self, bound: usize) -> usize {
        if bound == 0 {
            return 0;
        }
        let bound = bound as u64;
        let threshold = bound.wrapping_neg() % bound;
        loop {
            let product = u128::from(self.next_u64()) * u128::from(bound);
            if (product as u64) >= threshold {
                return (product >> 64) as usize;
            }
        }
    }

    /// True with probability one half.
    pub fn coin(&mut self) -> bool {
        self.next_u64() >> 63 == 1
    }

    /// Shuffles `items` uniformly (Fisher-Yates).
    pub fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let j = self.below(i + 1);
            items.swap(i, j);
        }
    }

    /// A uniform permutation of `0..len`.
    pub fn permutation(&mut self, len: usize) -> Vec<usize> {
        let mut items: Vec<usize> = (0..len).collect();
        self.shuffle(&mut items);
        items
    }
}

/// SplitMix64's output function (a variant of MurmurHash3's finaliser).
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_the_published_splitmix64_stream() {
        // The first outputs of SplitMix64 seeded with 0, as printed by the
        // reference C code (Vigna, prng.di.unimi.it/splitmix64.c).
        let mut rng = Rng::new(0);
        assert_eq!(rng.next_u64(), 0xE220_A839_7B1D_CDAF);
        assert_eq!(rng.next_u64(), 0x6E78_9E6A_A1B9_65F4);
        assert_eq!(rng.next_u64(), 0x06C4_5D18_8009_454F);
    }

    #[test]
    fn below_stays_in_range_and_hits_every_value() {
        let mut rng = Rng::new(42);
        let mut seen = [0u32; 7];
        for _ in 0..7_000 {
            let v = rng.below(7);
            assert!(v < 7);
            seen[v] += 1;
        }
        // Each value expected 1000 times; a loose bound that a bias of a
        // modulo or an off-by-one would still break.
        assert!(seen.iter().all(|&k| (850..1150).contains(&k)), "{seen:?}");
        assert_eq!(rng.below(0), 0);
        assert_eq!(rng.below(1), 0);
    }

    #[test]
    fn permutation_is_a_permutation() {
        let mut rng = Rng::new(7);
        let mut p = rng.permutation(25);
        p.sort_unstable();
        assert_eq!(p, (0..25).collect::<Vec<_>>());
    }

    #[test]
    fn item_streams_are_deterministic_and_distinct() {
        let a = Rng::for_item(1, 0).next_u64();
        assert_eq!(a, Rng::for_item(1, 0).next_u64());
        assert_ne!(a, Rng::for_item(1, 1).next_u64());
        assert_ne!(a, Rng::for_item(2, 0).next_u64());
    }
}
