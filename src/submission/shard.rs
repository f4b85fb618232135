//! `--shard K/N`: which submissions one of N machines grades.
//!
//! A submission belongs to shard `1 + (h mod N)`, where `h` is the first 8
//! bytes (big-endian) of the SHA-256 of its id. The choice depends on the
//! id alone, not on what else is in the folder, so every machine agrees even
//! if their copies of the folder differ, and a student keeps their shard
//! when others are added. Shards are even in expectation, not exactly; a
//! shard may be empty (a small class on many machines).

use sha2::{Digest, Sha256};
use std::fmt;
use std::str::FromStr;

/// Shard `index` of `count`, both 1-based as written (`2/3`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    /// 1..=count.
    pub index: u64,
    /// At least 1.
    pub count: u64,
}

impl Shard {
    /// The shard (1-based) of the submission `id` among `count`.
    pub fn of(id: &str, count: u64) -> u64 {
        let digest = Sha256::digest(id.as_bytes());
        let mut first = [0u8; 8];
        first.copy_from_slice(&digest[..8]);
        1 + u64::from_be_bytes(first) % count.max(1)
    }

    /// Whether this shard grades the submission `id`.
    pub fn holds(self, id: &str) -> bool {
        Shard::of(id, self.count) == self.index
    }
}

impl FromStr for Shard {
    type Err = String;

    fn from_str(text: &str) -> Result<Shard, String> {
        let usage = || {
            format!(
                "`{text}` is not a shard: write K/N with 1 <= K <= N, e.g. 2/3 for the second of three"
            )
        };
        let (index, count) = text.split_once('/').ok_or_else(usage)?;
        let index: u64 = index.trim().parse().map_err(|_| usage())?;
        let count: u64 = count.trim().parse().map_err(|_| usage())?;
        if count == 0 || index == 0 || index > count {
            return Err(usage());
        }
        Ok(Shard { index, count })
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_k_of_n_and_refuses_the_rest() {
        assert_eq!("2/3".parse(), Ok(Shard { index: 2, count: 3 }));
        for bad in ["0/3", "4/3", "1/0", "3", "a/b", "-1/2", ""] {
            let err = bad.parse::<Shard>().unwrap_err();
            assert!(err.contains("K/N"), "{bad}: {err}");
        }
    }

    #[test]
    fn every_id_is_in_exactly_one_shard_and_the_split_is_even_enough() {
        let ids: Vec<String> = (0..300).map(|i| format!("student-{i}")).collect();
        let mut sizes = [0usize; 3];
        for id in &ids {
            let holders: Vec<u64> = (1..=3)
                .filter(|&k| Shard { index: k, count: 3 }.holds(id))
                .collect();
            assert_eq!(holders.len(), 1, "{id}: {holders:?}");
            sizes[(holders[0] - 1) as usize] += 1;
        }
        assert!(sizes.iter().all(|&n| (70..=130).contains(&n)), "{sizes:?}");
        // Stable: the same id, the same shard, whatever else there is.
        assert_eq!(Shard::of("alice", 7), Shard::of("alice", 7));
        assert!((1..=7).contains(&Shard::of("alice", 7)));
    }
}
