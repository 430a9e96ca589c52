//! The transposition table: a fixed number of 4-entry buckets shared by all search threads
//! without locks.
//!
//! An entry is 24 bytes, three 64-bit words written with relaxed atomics:
//!
//! | word | content |
//! |---|---|
//! | 0 | key XOR word 1 XOR word 2 (a torn or foreign entry fails the check) |
//! | 1 | proof number (low 32 bits), disproof number (high 32 bits) |
//! | 2 | work: positions searched below the node (32 bits, saturating), best move (16 bits), generation (16 bits) |
//!
//! A lookup accepts an entry only if word 0 XOR word 1 XOR word 2 equals the key, so a
//! concurrent write can at worst make a lookup miss. A store replaces the entry with the
//! same key (unless that one is solved and the new one is not: solved values are final),
//! else an empty one, else the one with the least work.
//!
//! The entries live in an anonymous memory map advised to use transparent huge pages: the
//! kernel hands out zeroed pages on first touch (so a large table costs nothing until it is
//! used) and huge pages spare the TLB misses of random probes.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use antichess_core::Move;

/// Bytes per entry.
pub const ENTRY_BYTES: usize = 24;
const BUCKET: usize = 4;

/// What a lookup returns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TtEntry {
    pub proof: u32,
    pub disproof: u32,
    /// Positions searched below the node (saturating), an estimate of its subtree size.
    pub work: u32,
    /// The move that was best when the entry was stored (0 if none).
    pub best: u16,
}

impl TtEntry {
    #[must_use]
    pub fn best_move(&self) -> Option<Move> {
        if self.best == 0 {
            None
        } else {
            Move::from_bits(self.best)
        }
    }
}

/// Zero-initialised 64-bit atomic words in an anonymous memory map.
struct Words {
    ptr: *const AtomicU64,
    len: usize,
    /// Owns the memory `ptr` points into.
    _map: memmap2::MmapMut,
}

// SAFETY: the words are only accessed through atomics; the map lives as long as `Words`.
unsafe impl Send for Words {}
// SAFETY: as above.
unsafe impl Sync for Words {}

impl Words {
    fn new(len: usize) -> Words {
        let bytes = (len * 8).max(8);
        let mut map = memmap2::MmapMut::map_anon(bytes)
            .unwrap_or_else(|e| panic!("cannot reserve {bytes} bytes for the hash table: {e}"));
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        // Page-aligned, zeroed, and AtomicU64 has the layout of u64.
        let ptr = map.as_mut_ptr().cast::<AtomicU64>().cast_const();
        Words {
            ptr,
            len,
            _map: map,
        }
    }
}

impl std::ops::Deref for Words {
    type Target = [AtomicU64];

    fn deref(&self) -> &[AtomicU64] {
        // SAFETY: `ptr` points to `len` zero-initialised, aligned words owned by `_map`,
        // which is never accessed otherwise.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

/// A lock-free table of [`TtEntry`] keyed by 64-bit hashes.
pub struct TranspositionTable {
    words: Words,
    buckets: u64,
}

impl std::fmt::Debug for TranspositionTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TranspositionTable")
            .field("entries", &self.capacity())
            .finish()
    }
}

impl TranspositionTable {
    /// A table using at most `bytes` of memory (at least one bucket). The memory is
    /// reserved at once but only touched as entries are stored.
    #[must_use]
    pub fn new(bytes: usize) -> TranspositionTable {
        let buckets = (bytes / (ENTRY_BYTES * BUCKET)).max(1);
        TranspositionTable {
            words: Words::new(buckets * BUCKET * 3),
            buckets: buckets as u64,
        }
    }

    /// Asks the CPU to fetch the bucket of `key` into the cache, ahead of a lookup.
    #[inline]
    pub fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let base = self.bucket(key);
            let first = self.words[base..].as_ptr().cast::<i8>();
            let last = self.words[base + BUCKET * 3 - 1..].as_ptr().cast::<i8>();
            // SAFETY: prefetching is a hint; both addresses are inside the table.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch(first, _MM_HINT_T0);
                _mm_prefetch(last, _MM_HINT_T0);
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Memory used by the entries, in bytes.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Number of entries.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.words.len() / 3
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        (((u128::from(key) * u128::from(self.buckets)) >> 64) as usize) * BUCKET * 3
    }

    /// The entry stored for `key`, if any.
    #[inline]
    #[must_use]
    pub fn get(&self, key: u64) -> Option<TtEntry> {
        let base = self.bucket(key);
        for i in 0..BUCKET {
            let at = base + i * 3;
            let w0 = self.words[at].load(Relaxed);
            let w1 = self.words[at + 1].load(Relaxed);
            let w2 = self.words[at + 2].load(Relaxed);
            if w0 ^ w1 ^ w2 == key && (w1 != 0 || w2 != 0) {
                return Some(TtEntry {
                    proof: w1 as u32,
                    disproof: (w1 >> 32) as u32,
                    work: w2 as u32,
                    best: (w2 >> 32) as u16,
                });
            }
        }
        None
    }

    /// Stores an entry for `key`.
    #[inline]
    pub fn put(&self, key: u64, e: TtEntry) {
        let w1 = u64::from(e.proof) | u64::from(e.disproof) << 32;
        let w2 = u64::from(e.work) | u64::from(e.best) << 32;
        let base = self.bucket(key);
        let mut victim = base;
        let mut victim_work = u64::MAX;
        for i in 0..BUCKET {
            let at = base + i * 3;
            let o0 = self.words[at].load(Relaxed);
            let o1 = self.words[at + 1].load(Relaxed);
            let o2 = self.words[at + 2].load(Relaxed);
            if o1 == 0 && o2 == 0 {
                victim = at;
                break;
            }
            if o0 ^ o1 ^ o2 == key {
                // A solved entry is final: a worker stopped mid-search must not replace
                // it with the partial numbers it unwinds with.
                let solved = o1 as u32 == 0 || (o1 >> 32) as u32 == 0;
                if solved && e.proof != 0 && e.disproof != 0 {
                    return;
                }
                victim = at;
                break;
            }
            let work = u64::from(o2 as u32);
            if work < victim_work {
                victim_work = work;
                victim = at;
            }
        }
        // A zero entry would read as empty: keep at least one bit set.
        let w2 = if w1 == 0 && w2 == 0 { 1 } else { w2 };
        self.words[victim].store(key ^ w1 ^ w2, Relaxed);
        self.words[victim + 1].store(w1, Relaxed);
        self.words[victim + 2].store(w2, Relaxed);
    }

    /// Fraction of entries in use, estimated from the first buckets.
    #[must_use]
    pub fn usage(&self) -> f64 {
        let sample = (self.words.len() / 3).min(30_000);
        if sample == 0 {
            return 0.0;
        }
        let used = (0..sample)
            .filter(|i| {
                self.words[i * 3 + 1].load(Relaxed) != 0 || self.words[i * 3 + 2].load(Relaxed) != 0
            })
            .count();
        used as f64 / sample as f64
    }

    /// Calls `f` with the key and value of every entry in use (entries being written
    /// concurrently may be skipped; they fail the key check).
    pub fn for_each(&self, mut f: impl FnMut(u64, TtEntry)) {
        for at in (0..self.words.len()).step_by(3) {
            let w0 = self.words[at].load(Relaxed);
            let w1 = self.words[at + 1].load(Relaxed);
            let w2 = self.words[at + 2].load(Relaxed);
            if w1 == 0 && w2 == 0 {
                continue;
            }
            let key = w0 ^ w1 ^ w2;
            if self.bucket(key) != at - at % (BUCKET * 3) {
                continue; // torn by a concurrent write
            }
            f(
                key,
                TtEntry {
                    proof: w1 as u32,
                    disproof: (w1 >> 32) as u32,
                    work: w2 as u32,
                    best: (w2 >> 32) as u16,
                },
            );
        }
    }

    /// Empties the table.
    pub fn clear(&self) {
        for w in self.words.iter() {
            w.store(0, Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn store_and_find() {
        let tt = TranspositionTable::new(1 << 16);
        let e = TtEntry {
            proof: 3,
            disproof: 7,
            work: 100,
            best: 0x1234,
        };
        tt.put(42, e);
        assert_eq!(tt.get(42), Some(e));
        assert_eq!(tt.get(43), None);
        let solved = TtEntry {
            proof: 0,
            disproof: u32::MAX,
            work: 5,
            best: 0,
        };
        tt.put(42, solved);
        assert_eq!(tt.get(42), Some(solved));
    }

    #[test]
    fn solved_entries_are_final() {
        let tt = TranspositionTable::new(1 << 16);
        let proved = TtEntry {
            proof: 0,
            disproof: u32::MAX,
            work: 9,
            best: 0,
        };
        tt.put(7, proved);
        tt.put(
            7,
            TtEntry {
                proof: 3,
                disproof: 4,
                work: 10,
                best: 0,
            },
        );
        assert_eq!(tt.get(7), Some(proved));
    }

    #[test]
    fn replaces_least_work_in_a_full_bucket() {
        let tt = TranspositionTable::new(ENTRY_BYTES * BUCKET); // one bucket
        for k in 1..=4u64 {
            tt.put(
                k,
                TtEntry {
                    proof: 1,
                    disproof: 1,
                    work: k as u32 * 10,
                    best: 0,
                },
            );
        }
        tt.put(
            99,
            TtEntry {
                proof: 1,
                disproof: 1,
                work: 1000,
                best: 0,
            },
        );
        assert_eq!(tt.get(1), None, "the least-work entry is replaced");
        assert!(tt.get(99).is_some() && tt.get(4).is_some());
    }
}
