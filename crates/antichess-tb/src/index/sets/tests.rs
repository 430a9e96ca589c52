//! The set-field layout against the file's index: round trips, neighbours, stabilisers,
//! and the file's order.

use super::*;
use antichess_core::attacks;

/// Every used slot (or every `step`-th slot) decodes to a board whose encoding is the
/// slot, with the stabiliser of [`TableIndex`]; every move of a piece to an empty square
/// it attacks (pawns: one rank up or down, staying on ranks 2–7) is indexed as the
/// encoding of the board after it; the used slots are as many as the file index's
/// canonical indices when `step` is 1.
fn check(name: &str, step: u64) {
    let material = name.parse::<Material>().unwrap().canonical().0;
    let fast = FastSetIndex::new(&material).unwrap();
    let file = TableIndex::new(&material);
    let mut near = FastSetNear::default();
    let mut used = 0u64;
    let mut idx = 0;
    while idx < fast.size() {
        if fast.decode_used(idx, &mut near) {
            used += 1;
            let board = *near.board();
            assert_eq!(
                fast.encode_with_stab(&board),
                (idx, near.stab()),
                "{name} {idx}"
            );
            assert_eq!(file.encode_with_stab(&board).1, near.stab(), "{name} {idx}");
            for (from, piece) in board.pieces() {
                let targets = if piece.role == Role::Pawn {
                    let f = 1u64 << from.index();
                    Bitboard((f << 8 | f >> 8) & PAWN_SQUARES)
                } else {
                    attacks::attacks(piece.color, piece.role, from, board.occupied())
                } & !board.occupied();
                for to in targets {
                    let mut child = board;
                    child.remove_unchecked(from, piece);
                    child.put_unchecked(to, piece);
                    let expected = fast.encode_with_stab(&child);
                    assert_eq!(
                        fast.neighbour(&near, piece, from, to),
                        expected,
                        "{name} {idx} {from:?} {to:?}"
                    );
                    assert_eq!(file.encode_with_stab(&child).1, expected.1, "{name}");
                    let mut child_near = FastSetNear::default();
                    assert!(
                        fast.decode_used(expected.0, &mut child_near),
                        "{name} {idx} {from:?} {to:?} {expected:?}"
                    );
                    assert_eq!(child_near.board(), &{
                        let c = fast.encode(&child);
                        let mut n = FastSetNear::default();
                        fast.decode_used(c, &mut n);
                        *n.board()
                    });
                }
            }
        }
        idx += step;
    }
    if step == 1 {
        let canonical = (0..file.size())
            .filter(|&i| file.is_canonical(i, &file.decode(i)))
            .count() as u64;
        assert_eq!(used, canonical, "{name}");
    }
}

/// The file's indices, enumerated without decoding, with the slots of their positions
/// (every `step`-th index decoded and compared); never a slot below its file index.
fn check_file_order(name: &str, step: u64) {
    let material = name.parse::<Material>().unwrap().canonical().0;
    let fast = FastSetIndex::new(&material).unwrap();
    let file = TableIndex::new(&material);
    let mut next = 0;
    for orbit in 0..fast.orbits() {
        fast.for_each_file_index(&file, orbit, |idx, slot| {
            assert_eq!(idx, next, "{name}");
            next += 1;
            assert!(slot.is_none_or(|slot| slot >= idx), "{name} {idx}");
            if idx % step != 0 {
                return;
            }
            let board = file.decode(idx);
            if file.is_canonical(idx, &board) {
                assert_eq!(slot, Some(fast.encode(&board)), "{name} {idx}");
            } else {
                assert_eq!(slot, None, "{name} {idx}");
            }
        });
    }
    assert_eq!(next, file.size(), "{name}");
}

#[test]
fn file_indices_in_order_with_their_slots() {
    // Single pieces (as the shift layout), a pair, a triple, a pawn pair beside a lead
    // pawn of the other colour, lead pawns with a pawn pair, a pair and a triple of
    // pieces after a pawn lead, four pieces.
    // Pairs leading (several symmetries may fix them). Materials of more than about
    // 100,000 indices have every `step`-th decoded.
    for (name, step) in [
        ("Kk", 1),
        ("KBn", 1),
        ("KPkp", 43),
        ("PPkn", 1),
        ("KKk", 1),
        ("BBk", 1),
        ("KBBk", 11),
        ("KKKk", 3),
        ("PPp", 1),
        ("PPpp", 5),
        ("PPkp", 17),
        ("Pppk", 233),
        ("KKp", 1),
        ("NNNp", 11),
        ("BBBBk", 61),
        ("KKkk", 5),
        ("KKKkk", 101),
    ] {
        check_file_order(name, step);
    }
}

#[test]
fn slots_round_trip_and_index_their_neighbours() {
    // Every slot of the small materials (their used slots counted against the file's
    // canonical indices), every `step`-th of the larger ones.
    check("Kk", 1);
    check("KRkn", 97);
    check("KPkp", 97);
    check("KKk", 1);
    check("BBk", 1);
    check("KBBk", 23);
    check("KKKk", 7);
    check("PPp", 1);
    check("PPpp", 7);
    check("PPkp", 29);
    check("Pppk", 503);
    check("KKp", 1);
    check("NNNp", 19);
    check("KBBkr", 20_011);
    check("KPPkp", 19_997);
    check("KRRkp", 40_009);
    // A pair leads (several symmetries may fix it).
    check("KKkk", 7);
    check("BBnn", 7);
    check("KKKkk", 1009);
}

#[test]
fn every_material_up_to_five_units() {
    for material in Material::all_up_to(5) {
        let material = material.canonical().0;
        let index = TableIndex::new(&material);
        if index.groups.is_empty() {
            continue;
        }
        let fast = FastSetIndex::new(&material).unwrap();
        assert!(fast.size() >= index.size(), "{material}");
        assert!(fast.size() <= 1 << 29, "{material}");
    }
    // Sizes: the fields' radices against the file's (docs/research/tb-memory.md).
    let size = |name: &str| {
        let m = name.parse::<Material>().unwrap().canonical().0;
        (
            FastSetIndex::new(&m).unwrap().size(),
            TableIndex::new(&m).size(),
        )
    };
    assert_eq!(size("KBBkr"), (10 * 2016 * 64 * 64, 10 * 1953 * 61 * 60));
    assert_eq!(size("KBBkn"), (10 * 2016 * 64 * 64, 10 * 1953 * 61 * 60));
    assert_eq!(size("KPPkp"), (24 * 1128 * 64 * 64, 24 * 1081 * 61 * 60));
    assert_eq!(size("KRRkp"), (24 * 64 * 2016 * 64, 24 * 63 * 1891 * 60));
    assert_eq!(size("BBBkp"), (24 * 41664 * 64, 24 * 39711 * 60));
}
