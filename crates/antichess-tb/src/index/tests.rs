//! Tests of the index: round trips, neighbours, stabilisers, sizes.

use super::*;
use crate::symmetry::transform_board;

#[test]
fn binomials() {
    assert_eq!(binomial(64, 2), 2016);
    assert_eq!(binomial(48, 4), 194_580);
    assert_eq!(binomial(3, 5), 0);
}

#[test]
fn lead_maps_fold_the_board() {
    assert_eq!(LeadMap::shared(1, false).orbits(), 10);
    assert_eq!(LeadMap::shared(1, true).orbits(), 24);
    // Pairs of squares under the 8 symmetries: (2016 + 8*4 + ... ) / 8 orbits; just check
    // every set maps to a representative in its orbit with the stored transform.
    let map = LeadMap::shared(2, false);
    assert!(map.orbits() > 2016 / 8 && map.orbits() < 2016 / 4);
}

#[test]
fn division_by_multiplication_is_exact_on_32_bits() {
    let numerators = |d: u64| {
        [
            0,
            1,
            d - 1,
            d,
            d + 1,
            2 * d - 1,
            2 * d,
            u64::from(u32::MAX) / d * d - 1,
        ]
        .into_iter()
        .chain([
            u64::from(u32::MAX) / d * d,
            u64::from(u32::MAX) - 1,
            u64::from(u32::MAX),
        ])
        .chain((0..200u64).map(move |i| i.wrapping_mul(0x9e37_79b9) % (1 << 32)))
    };
    let divisors = (2..5000u64).chain((0..2000u64).map(|i| 5000 + i * i * 1013 % (1 << 31)));
    for d in divisors {
        let recip = (u64::MAX / d).wrapping_add(1);
        for n in numerators(d) {
            let q = ((u128::from(recip) * u128::from(n)) >> 64) as u64;
            assert_eq!(q, n / d, "{n} / {d}");
        }
    }
}

fn check_round_trip(name: &str) {
    let material: Material = name.parse().unwrap();
    let index = TableIndex::new(&material.canonical().0);
    let step = (index.size() / 20_000).max(1);
    let mut idx = 0;
    let mut canonical = 0;
    while idx < index.size() {
        let board = index.decode(idx);
        assert_eq!(
            Material::from_board(&board),
            material.canonical().0,
            "{name} {idx}"
        );
        let j = index.encode(&board);
        if index.is_canonical(idx, &board) {
            canonical += 1;
            assert_eq!(j, idx, "{name} {idx} {board:?}");
        } else {
            assert!(
                j < idx,
                "{name}: a duplicate index maps to a smaller canonical one"
            );
        }
        // Every symmetric image has the same index.
        let transforms: &[u8] = if material.has_pawns() {
            &PAWN_TRANSFORMS
        } else {
            &ALL_TRANSFORMS
        };
        let mut fixed = 0;
        for &t in transforms {
            let image = transform_board(t, &board);
            assert_eq!(index.encode(&image), j, "{name}: image {t} of {idx}");
            fixed += u32::from(image == board);
        }
        assert_eq!(
            index.encode_with_stab(&board).1,
            fixed,
            "{name} {idx}: stabiliser size"
        );
        idx += step;
    }
    assert!(canonical > 0);
}

#[test]
fn encode_decode_round_trip() {
    for name in [
        "Kk", "KPk", "KBBk", "PPpp", "KNkn", "KKkk", "Ppp", "KPPkp", "BBbbb", "NPPPPk", "KQRkb",
    ] {
        check_round_trip(name);
    }
}

#[test]
fn neighbour_encoding_matches_full_encoding() {
    // The 5-unit pawnless ones are chiefly for positions whose lead lies on a diagonal
    // (one image); symmetric boards among them are too rare for the sample.
    for name in [
        "KRkb", "Kk", "KNNk", "NNbb", "KPPkp", "KBNkr", "BBBkp", "KKRkn",
    ] {
        let material: Material = name.parse().unwrap();
        let index = TableIndex::new(&material.canonical().0);
        let step = (index.size() / 2000).max(1);
        let mut checked = 0;
        let mut symmetric = 0;
        for idx in (0..index.size()).step_by(step as usize) {
            let n = index.neighbourhood(idx);
            let board = *n.board();
            if !index.is_canonical(idx, &board) {
                continue;
            }
            assert_eq!(n.stab(), index.stab_of_decoded(&board));
            for (sq, piece) in board.pieces() {
                for to in antichess_core::Square::all() {
                    if board.occupied().contains(to)
                        || (piece.role == Role::Pawn && (to.rank() == 0 || to.rank() == 7))
                    {
                        continue;
                    }
                    if let Some(fast) = index.encode_neighbour(&n, piece, sq, to) {
                        let mut moved = board;
                        moved.remove_unchecked(sq, piece);
                        moved.put_unchecked(to, piece);
                        assert_eq!(
                            fast,
                            index.encode_with_stab(&moved),
                            "{name}: {sq}-{to} from {idx}"
                        );
                        checked += 1;
                        symmetric += usize::from(fast.1 > 1);
                    }
                }
            }
        }
        assert!(checked > 1000, "{name}: {checked}");
        if !material.has_pawns() && material.units() < 5 {
            assert!(symmetric > 0, "{name}: no symmetric neighbour met");
        }
    }
}

#[test]
fn sizes() {
    let size = |name: &str| TableIndex::new(&name.parse::<Material>().unwrap()).size();
    assert_eq!(size("Kk"), 10 * 63);
    assert_eq!(size("KPk"), 24 * 63 * 62);
    assert_eq!(size("KRkb"), 10 * 63 * 62 * 61);
    assert_eq!(size("Pp"), 24 * 47);
}

#[test]
fn stabilizers_count_symmetric_boards() {
    let material: Material = "Kk".parse().unwrap();
    let index = TableIndex::new(&material);
    // Both kings on the long diagonal: fixed by the transpose.
    let board = antichess_core::Setup::from_fen("7k/8/8/8/8/8/1K6/8 w - - 0 1")
        .unwrap()
        .board;
    assert_eq!(index.encode_with_stab(&board).1, 2);
    let board = antichess_core::Setup::from_fen("6k1/8/8/8/8/8/1K6/8 w - - 0 1")
        .unwrap()
        .board;
    assert_eq!(index.encode_with_stab(&board).1, 1);
}

/// Decoding into a value that holds another index's decoding (the incremental path) gives
/// exactly what a fresh decoding gives: consecutive indices, small and large steps both
/// ways, across lead orbits, for pawnless, pawn and repeated-piece materials.
#[test]
fn incremental_decoding_equals_fresh_decoding() {
    for name in ["KBNkr", "BBBkp", "KPPkp", "RRkk", "NNNk", "KPk"] {
        let material: Material = name.parse().unwrap();
        let index = TableIndex::new(&material.canonical().0);
        let size = index.size();
        let mut reused = Decoded::default();
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut idx = 0u64;
        for step in 0..60_000u64 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            idx = match step % 4 {
                0 => (idx + 1) % size,
                1 => (idx + x % 70) % size,
                2 => idx.saturating_sub(x % 5_000),
                _ => x % size,
            };
            index.decode_into(idx, &mut reused);
            let fresh = index.decode_full(idx);
            assert_eq!(reused.board, fresh.board, "{name} index {idx}");
            assert_eq!(reused.idx, fresh.idx, "{name} index {idx}");
            assert_eq!(reused.digits, fresh.digits, "{name} index {idx}");
            assert_eq!(reused.group_bits, fresh.group_bits, "{name} index {idx}");
            assert_eq!(reused.occ_before, fresh.occ_before, "{name} index {idx}");
            assert_eq!(
                reused.pawn_occ_before, fresh.pawn_occ_before,
                "{name} index {idx}"
            );
            assert_eq!((reused.orbit, reused.simple), (fresh.orbit, fresh.simple));
        }
        // A value decoded by another index is never taken as a starting point.
        let other = TableIndex::new(&"KRkb".parse::<Material>().unwrap());
        other.decode_into(5, &mut reused);
        index.decode_into(5, &mut reused);
        assert_eq!(
            reused.board,
            index.decode_full(5).board,
            "{name} after KRkb"
        );
    }
}

#[test]
fn colex_unranking_by_table_equals_the_binary_search() {
    for k in [2usize, 3] {
        for v in 0..binomial(64, k as u32) {
            let (mut by_table, mut by_search) = ([0u32; 16], [0u32; 16]);
            colex_unrank(v, k, &mut by_table);
            colex_unrank_search(v, k, &mut by_search);
            assert_eq!(by_table[..k], by_search[..k], "k = {k}, v = {v}");
            let bits = by_table[..k].iter().fold(0u64, |b, &r| b | 1 << r);
            assert_eq!(colex_rank(bits), v);
        }
    }
}
