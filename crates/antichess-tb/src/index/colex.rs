//! Combinations of squares: the binomials, colex ranks and their inverse, and the
//! combination digit of a group among the squares left free (the index's arithmetic for
//! repeated pieces).

/// Binomial coefficients C(n, k) for n < 65, k < 17.
static BINOM: [[u64; 17]; 65] = {
    let mut t = [[0u64; 17]; 65];
    let mut n = 0;
    while n < 65 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 17 && k <= n {
            t[n][k] = t[n - 1][k - 1] + if k < n { t[n - 1][k] } else { 0 };
            k += 1;
        }
        n += 1;
    }
    t
};

/// C(n, k).
#[must_use]
#[inline(always)]
pub fn binomial(n: u32, k: u32) -> u64 {
    if k > n || k > 16 {
        0
    } else {
        BINOM[n as usize][k as usize]
    }
}

/// The `rank`-th set bit of `mask` (0-based), as a bit index.
#[inline(always)]
pub(super) fn select(mask: u64, rank: u32) -> u32 {
    #[cfg(all(target_arch = "x86_64", target_feature = "bmi2"))]
    {
        // Safety: the bmi2 target feature is enabled at compile time for this code path.
        unsafe { core::arch::x86_64::_pdep_u64(1u64 << rank, mask).trailing_zeros() }
    }
    #[cfg(not(all(target_arch = "x86_64", target_feature = "bmi2")))]
    {
        let mut m = mask;
        for _ in 0..rank {
            m &= m - 1;
        }
        m.trailing_zeros()
    }
}

/// Colex rank of a set of bit indices among all sets of the same size.
#[inline]
pub(crate) fn colex_rank(mut bits: u64) -> u64 {
    let mut i = 1;
    let mut v = 0;
    while bits != 0 {
        v += BINOM[bits.trailing_zeros() as usize][i];
        i += 1;
        bits &= bits - 1;
    }
    v
}

/// Combination index of `bits` among the positions not in `occ` (ranks of free squares).
#[inline(always)]
pub(super) fn comb_index(mut bits: u64, occ: u64) -> u64 {
    let mut i = 1;
    let mut v = 0;
    while bits != 0 {
        let s = bits.trailing_zeros();
        let r = s - (occ & ((1u64 << s) - 1)).count_ones();
        v += BINOM[r as usize][i];
        i += 1;
        bits &= bits - 1;
    }
    v
}

/// `COLEX_PAIRS[v]`: the two ranks (ascending, 6 bits each) of pair number `v` in colex
/// order, `a | b << 6` for the pair `a < b` (its number is C(a, 1) + C(b, 2)).
static COLEX_PAIRS: [u16; 2016] = {
    let mut table = [0u16; 2016];
    let mut b = 1;
    while b < 64 {
        let mut a = 0;
        while a < b {
            table[a + b * (b - 1) / 2] = (a | b << 6) as u16;
            a += 1;
        }
        b += 1;
    }
    table
};

/// `COLEX_TRIPLES[v]`: the three ranks of triple number `v`, `a | b << 6 | c << 12` for
/// `a < b < c` (its number is C(a, 1) + C(b, 2) + C(c, 3)). 166 KB: a lookup instead of
/// two binary searches whose branches the processor cannot predict.
static COLEX_TRIPLES: [u32; 41_664] = {
    let mut table = [0u32; 41_664];
    let mut c = 2;
    while c < 64 {
        let mut b = 1;
        while b < c {
            let mut a = 0;
            while a < b {
                table[a + b * (b - 1) / 2 + c * (c - 1) * (c - 2) / 6] =
                    (a | b << 6 | c << 12) as u32;
                a += 1;
            }
            b += 1;
        }
        c += 1;
    }
    table
};

/// Inverse of colex rank: the `k` ranks (ascending) of combination number `v`.
#[inline]
pub(super) fn colex_unrank(v: u64, k: usize, out: &mut [u32; 16]) {
    match k {
        2 => {
            let packed = u32::from(COLEX_PAIRS[v as usize]);
            out[0] = packed & 63;
            out[1] = packed >> 6;
        }
        3 => {
            let packed = COLEX_TRIPLES[v as usize];
            out[0] = packed & 63;
            out[1] = (packed >> 6) & 63;
            out[2] = packed >> 12;
        }
        _ => colex_unrank_search(v, k, out),
    }
}

/// [`colex_unrank`] by binary searches in the binomials (any `k`).
#[inline]
pub(super) fn colex_unrank_search(mut v: u64, k: usize, out: &mut [u32; 16]) {
    let mut hi = 64u32;
    for i in (1..=k).rev() {
        if i == 1 {
            out[0] = v as u32;
            break;
        }
        // The largest r < hi with C(r, i) <= v, by binary search (C(i - 1, i) = 0 <= v).
        let mut lo = i as u32 - 1;
        let mut top = hi;
        while top - lo > 1 {
            let mid = (lo + top) / 2;
            if BINOM[mid as usize][i] <= v {
                lo = mid;
            } else {
                top = mid;
            }
        }
        v -= BINOM[lo as usize][i];
        out[i - 1] = lo;
        hi = lo;
    }
}
