//! Zobrist hashing: fixed 64-bit keys for piece-on-square, side to move and en passant file,
//! generated at compile time by SplitMix64 from a fixed seed (so keys are stable across
//! builds and machines; book and proof files may store them).
//!
//! A position's key is the XOR of the keys of its pieces, `BLACK_TO_MOVE` when Black is to
//! move, and the en passant file's key when an en passant capture is available.

use crate::{Color, Role, Square};

const fn splitmix64(state: u64) -> (u64, u64) {
    let state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    (state, z ^ (z >> 31))
}

const PIECE_KEY_COUNT: usize = 2 * 6 * 64;

const fn build_keys() -> ([u64; PIECE_KEY_COUNT], [u64; 8], u64) {
    let mut state = 0x616e_7469_6368_6573; // "antiches"
    let mut pieces = [0u64; PIECE_KEY_COUNT];
    let mut i = 0;
    while i < PIECE_KEY_COUNT {
        let (s, k) = splitmix64(state);
        state = s;
        pieces[i] = k;
        i += 1;
    }
    let mut ep = [0u64; 8];
    i = 0;
    while i < 8 {
        let (s, k) = splitmix64(state);
        state = s;
        ep[i] = k;
        i += 1;
    }
    let (_, turn) = splitmix64(state);
    (pieces, ep, turn)
}

const KEYS: ([u64; PIECE_KEY_COUNT], [u64; 8], u64) = build_keys();
static PIECE_KEYS: [u64; PIECE_KEY_COUNT] = KEYS.0;
static EP_KEYS: [u64; 8] = KEYS.1;

/// XORed into the key when Black is to move.
pub const BLACK_TO_MOVE: u64 = KEYS.2;

/// Key of a piece on a square.
#[must_use]
#[inline(always)]
pub fn piece_key(color: Color, role: Role, sq: Square) -> u64 {
    PIECE_KEYS[(color.index() * 6 + role.index()) * 64 + sq.index()]
}

/// Key of an en passant capture being available on `file`.
#[must_use]
#[inline(always)]
pub fn en_passant_key(file: u8) -> u64 {
    EP_KEYS[(file & 7) as usize]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_distinct() {
        let mut all: Vec<u64> = PIECE_KEYS.iter().chain(EP_KEYS.iter()).copied().collect();
        all.push(BLACK_TO_MOVE);
        let n = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), n);
    }
}
