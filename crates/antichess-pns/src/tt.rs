//! The transposition table: 4-entry buckets shared by all search threads without locks,
//! in a reserved memory map of which a growing prefix is in use.
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
//! kernel hands out zeroed pages on first touch and huge pages spare the TLB misses of
//! random probes.
//!
//! The table grows: it starts with a small prefix of the reserved memory in use and
//! doubles it whenever about a third of its entries are filled, until it reaches the size asked
//! for. A bucket is found by multiplying the key by the number of buckets in use and
//! keeping the high 64 bits, so doubling sends the entries of bucket `b` to buckets `2b`
//! and `2b + 1`, and the table is rehashed in place, last bucket first. First touches of
//! memory are expensive (the kernel zeroes every page: 1. e3 g6 in a 4 GB table that did
//! not grow spent 10.7 s in the kernel and 1.9 s searching; growing, it spends 0.02 s in
//! the kernel), so a search touches only about three times the memory its entries fill.
//! Growing needs the table to
//! itself: [`TranspositionTable::put`] only asks for it ([`TranspositionTable::wants_growth`]),
//! and the search threads grow it when all of them have paused (see `search.rs`).

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

use antichess_core::Move;

use crate::error::PnsError;

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

/// A *seed*: a position known proved from elsewhere (the minimiser's proof pool), with
/// no proved child in the table. Marked by the largest work and no best move (a searched
/// entry's work would need 4·10⁹ positions below it to saturate).
pub const SEED: TtEntry = TtEntry {
    proof: 0,
    disproof: u32::MAX,
    work: u32::MAX,
    best: 0,
};

impl TtEntry {
    /// Whether this is a [`SEED`].
    #[must_use]
    pub fn is_seed(&self) -> bool {
        *self == SEED
    }

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
    fn new(len: usize) -> std::io::Result<Words> {
        let bytes = len.saturating_mul(8).max(8);
        let mut map = memmap2::MmapMut::map_anon(bytes)?;
        #[cfg(target_os = "linux")]
        let _ = map.advise(memmap2::Advice::HugePage);
        // Page-aligned, zeroed, and AtomicU64 has the layout of u64.
        let ptr = map.as_mut_ptr().cast::<AtomicU64>().cast_const();
        Ok(Words {
            ptr,
            len,
            _map: map,
        })
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

/// Buckets in use when a table starts (6 MB), unless it is smaller.
const FIRST_BUCKETS: u64 = 1 << 16;

/// A lock-free table of [`TtEntry`] keyed by 64-bit hashes.
pub struct TranspositionTable {
    words: Words,
    /// Buckets reserved: `first_buckets` times a power of two.
    buckets: u64,
    /// Buckets in use when the table starts or is cleared.
    first_buckets: u64,
    /// Buckets in use now.
    active: AtomicU64,
    /// Buckets in use whose four entries are all filled (the load signal).
    full: AtomicU64,
    /// Set by `put` when the table should double.
    grow: AtomicBool,
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
    ///
    /// # Panics
    /// If the system refuses to reserve the memory ([`TranspositionTable::try_new`] says so
    /// instead).
    #[must_use]
    pub fn new(bytes: usize) -> TranspositionTable {
        TranspositionTable::try_new(bytes).unwrap_or_else(|e| panic!("{e}"))
    }

    /// As [`TranspositionTable::new`], but a size the system cannot reserve is an error that
    /// names it.
    ///
    /// # Errors
    /// When the anonymous memory map of `bytes` cannot be made (e.g. more than the machine
    /// allows).
    pub fn try_new(bytes: usize) -> Result<TranspositionTable, PnsError> {
        let mut buckets = (bytes / (ENTRY_BYTES * BUCKET)).max(1) as u64;
        let mut first = buckets;
        if buckets > FIRST_BUCKETS {
            let doublings = (buckets / FIRST_BUCKETS).ilog2();
            first = buckets >> doublings;
            buckets = first << doublings;
        }
        let words =
            Words::new(buckets as usize * BUCKET * 3).map_err(|e| PnsError::TableMemory {
                bytes,
                message: e.to_string(),
            })?;
        Ok(TranspositionTable {
            words,
            buckets,
            first_buckets: first,
            active: AtomicU64::new(first),
            full: AtomicU64::new(0),
            grow: AtomicBool::new(false),
        })
    }

    /// Whether the table has asked to double (half its entries in use).
    #[inline]
    #[must_use]
    pub fn wants_growth(&self) -> bool {
        self.grow.load(Relaxed)
    }

    /// Doubles the buckets in use (up to the size reserved), moving every entry to its
    /// new bucket. Entries are not lost, but lookups and stores made by other threads while
    /// this runs may miss or be lost: call it only when no other thread uses the table.
    pub fn grow_now(&self) {
        self.grow.store(false, Relaxed);
        let n = self.active.load(Relaxed);
        if n >= self.buckets {
            return;
        }
        let wide = u128::from(2 * n);
        let mut full = 0u64;
        for b in (0..n as usize).rev() {
            let base = b * BUCKET * 3;
            let mut entries = [(0u64, 0u64, 0u64); BUCKET];
            for (i, e) in entries.iter_mut().enumerate() {
                let at = base + i * 3;
                *e = (
                    self.words[at].load(Relaxed),
                    self.words[at + 1].load(Relaxed),
                    self.words[at + 2].load(Relaxed),
                );
                for w in 0..3 {
                    self.words[at + w].store(0, Relaxed);
                }
            }
            let mut filled = [0usize; 2];
            for (w0, w1, w2) in entries {
                if w1 == 0 && w2 == 0 {
                    continue;
                }
                let key = w0 ^ w1 ^ w2;
                let target = ((u128::from(key) * wide) >> 64) as usize;
                // `target` is 2b or 2b + 1 (unless the entry was torn, then it is dropped).
                let Some(half) = target.checked_sub(2 * b).filter(|h| *h < 2) else {
                    continue;
                };
                let at = target * BUCKET * 3 + filled[half] * 3;
                filled[half] += 1;
                self.words[at].store(w0, Relaxed);
                self.words[at + 1].store(w1, Relaxed);
                self.words[at + 2].store(w2, Relaxed);
            }
            full += filled.iter().filter(|f| **f == BUCKET).count() as u64;
        }
        self.full.store(full, Relaxed);
        self.active.store(2 * n, Relaxed);
    }

    /// Grows the table (when no other thread uses it) until `entries` more entries fit at
    /// half load, or it reaches its reserved size.
    pub fn reserve(&self, entries: u64) {
        while self.active.load(Relaxed) < self.buckets
            && self.active.load(Relaxed) * BUCKET as u64 / 2 < entries
        {
            self.grow_now();
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

    /// Memory reserved for the entries (the most the table grows to), in bytes.
    #[must_use]
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Memory of the entries in use now, in bytes.
    #[must_use]
    pub fn bytes_in_use(&self) -> usize {
        self.active.load(Relaxed) as usize * BUCKET * ENTRY_BYTES
    }

    /// Number of entries.
    #[must_use]
    pub fn capacity(&self) -> usize {
        self.words.len() / 3
    }

    #[inline]
    fn bucket(&self, key: u64) -> usize {
        let active = self.active.load(Relaxed);
        (((u128::from(key) * u128::from(active)) >> 64) as usize) * BUCKET * 3
    }

    /// The slot holding `key` (its first word's index) and the entry's two data words.
    #[inline]
    fn find(&self, key: u64) -> Option<(usize, u64, u64)> {
        let base = self.bucket(key);
        for i in 0..BUCKET {
            let at = base + i * 3;
            let w0 = self.words[at].load(Relaxed);
            let w1 = self.words[at + 1].load(Relaxed);
            let w2 = self.words[at + 2].load(Relaxed);
            if w0 ^ w1 ^ w2 == key && (w1 != 0 || w2 != 0) {
                return Some((at, w1, w2));
            }
        }
        None
    }

    /// The entry stored for `key`, if any.
    #[inline]
    #[must_use]
    pub fn get(&self, key: u64) -> Option<TtEntry> {
        self.find(key).map(|(_, w1, w2)| TtEntry {
            proof: w1 as u32,
            disproof: (w1 >> 32) as u32,
            work: w2 as u32,
            best: (w2 >> 32) as u16,
        })
    }

    /// Removes the entry for `key`, if any.
    pub fn remove(&self, key: u64) {
        if let Some((at, _, _)) = self.find(key) {
            for word in &self.words[at..at + 3] {
                word.store(0, Relaxed);
            }
        }
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
                if i == BUCKET - 1 {
                    // The bucket is now full. Under random keys, one bucket in 32 is full
                    // when about a third of the entries are in use: growing then loses
                    // almost no entries to replacement (1. e3 g6 needs 7.23 M positions
                    // instead of 7.18 M in a table that never grows; growing at half
                    // load, one bucket in 8 full, needed 8.6 M).
                    let full = self.full.fetch_add(1, Relaxed) + 1;
                    let active = self.active.load(Relaxed);
                    if full * 32 >= active && active < self.buckets {
                        self.grow.store(true, Relaxed);
                    }
                }
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

    /// Fraction of the reserved entries in use, estimated from the first buckets.
    #[must_use]
    pub fn usage(&self) -> f64 {
        let active = self.active.load(Relaxed) as usize;
        let sample = (active * BUCKET).min(30_000);
        if sample == 0 {
            return 0.0;
        }
        let used = (0..sample)
            .filter(|i| {
                self.words[i * 3 + 1].load(Relaxed) != 0 || self.words[i * 3 + 2].load(Relaxed) != 0
            })
            .count();
        used as f64 / sample as f64 * active as f64 / self.buckets as f64
    }

    /// Calls `f` with the key and value of every entry in use (entries being written
    /// concurrently may be skipped; they fail the key check).
    pub fn for_each(&self, mut f: impl FnMut(u64, TtEntry)) {
        let end = self.active.load(Relaxed) as usize * BUCKET * 3;
        for at in (0..end).step_by(3) {
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

    /// Empties the table and shrinks it to its first size (when no other thread uses it).
    pub fn clear(&self) {
        let end = self.active.load(Relaxed) as usize * BUCKET * 3;
        for w in &self.words[..end] {
            w.store(0, Relaxed);
        }
        self.active.store(self.first_buckets, Relaxed);
        self.full.store(0, Relaxed);
        self.grow.store(false, Relaxed);
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
    fn seeds_are_found_and_removed() {
        let tt = TranspositionTable::new(1 << 16);
        tt.put(42, SEED);
        tt.put(43, SEED);
        assert!(tt.get(42).is_some_and(|e| e.is_seed() && e.proof == 0));
        tt.remove(42);
        assert_eq!(tt.get(42), None);
        assert_eq!(tt.get(43), Some(SEED));
        // A searched entry is not a seed, and removing a missing key changes nothing.
        let searched = TtEntry { work: 5, ..SEED };
        tt.put(44, searched);
        assert!(!tt.get(44).unwrap().is_seed());
        tt.remove(45);
        assert_eq!(tt.get(44), Some(searched));
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

    fn entry(k: u64) -> TtEntry {
        TtEntry {
            proof: (k % 1000) as u32 + 1,
            disproof: (k % 777) as u32 + 1,
            work: k as u32,
            best: 0,
        }
    }

    /// A pseudo-random key (splitmix64).
    fn key(i: u64) -> u64 {
        let mut z = i.wrapping_add(0x9e37_79b9_7f4a_7c15);
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn growing_keeps_every_entry() {
        // 64 times the first size: six doublings are possible.
        let tt = TranspositionTable::new(FIRST_BUCKETS as usize * BUCKET * ENTRY_BYTES * 64);
        assert_eq!(
            tt.bytes_in_use(),
            FIRST_BUCKETS as usize * BUCKET * ENTRY_BYTES
        );
        let n = 100_000u64;
        for i in 0..n {
            tt.put(key(i), entry(i));
            if tt.wants_growth() {
                tt.grow_now();
            }
        }
        assert!(tt.bytes_in_use() > FIRST_BUCKETS as usize * BUCKET * ENTRY_BYTES);
        // A few entries are replaced in buckets that filled up before the table grew.
        let found: Vec<u64> = (0..n).filter(|&i| tt.get(key(i)).is_some()).collect();
        assert!(
            found.len() as u64 * 100 >= n * 99,
            "only {} of {n} entries kept",
            found.len()
        );
        for &i in &found {
            assert_eq!(tt.get(key(i)), Some(entry(i)), "entry {i}");
        }
        let mut seen = 0;
        tt.for_each(|k, e| {
            seen += 1;
            assert_eq!(tt.get(k), Some(e));
        });
        assert_eq!(seen, found.len());
        // A doubling moves entries without losing any.
        tt.grow_now();
        for i in 0..n {
            let expected = found.binary_search(&i).is_ok().then(|| entry(i));
            assert_eq!(tt.get(key(i)), expected, "entry {i} after a doubling");
        }
        tt.clear();
        assert_eq!(
            tt.bytes_in_use(),
            FIRST_BUCKETS as usize * BUCKET * ENTRY_BYTES
        );
        assert_eq!(tt.get(key(1)), None);
        tt.reserve(1_000_000);
        // Room for a million entries at half load: 2^19 buckets (2^21 entries).
        assert_eq!(tt.bytes_in_use(), (1 << 19) * BUCKET * ENTRY_BYTES);
        tt.reserve(u64::MAX);
        assert_eq!(
            tt.bytes(),
            tt.bytes_in_use(),
            "reserve stops at the size reserved"
        );
    }
}
