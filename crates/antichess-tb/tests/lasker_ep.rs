//! Lasker tables with pawns of both colours (en passant), checked without the retrograde
//! engine.
//!
//! The generator is a function of the material and of the tables its captures and
//! promotions lead to. Here KPkp is generated over *synthetic* child tables (KPk, where
//! every capture leads, en passant ones included, and KQkp, KRkp, KBkp, KNkp, with values
//! hashed from the index), which keeps the test fast and makes every kind of en passant
//! capture occur (winning, drawing and losing ones, which real KPk values rarely give);
//! the checks use the same child tables, so they test the generator's handling of KPkp,
//! en passant included, whatever those values are:
//!
//! - **Bellman equations** (on every position with a double step that allows en passant and
//!   on every 16th index; on all positions in `real_tables`): each stored value equals the best, for the
//!   side to move, of its legal moves' values (mate 0 and stalemate 1 at depth 0 when there
//!   is none), where a position with an en passant capture is valued through its moves
//!   by the orthodox rules (`LaskerTablebase::probe`), not by the generator's en passant
//!   nodes. With depths in the equations the solution is unique (by induction on depth:
//!   a labelled win or loss at depth d is forced within d, and a true one at depth d is
//!   labelled so), so this is a complete check of the table.
//! - **A bounded game-tree search** (memoised interval minimax over orthodox moves, the
//!   unknown beyond its horizon bounded by "mated at 1" and "mates at 1") on random
//!   positions, positions just after a double step that allows en passant among them:
//!   the table's value lies in the interval, and mates and mated positions within the
//!   horizon are found exactly.
//!
//! - **The positions with an en passant right counted by the statistics** (the paper's
//!   KPkp convention) against an enumeration of the whole board that does not use the
//!   index.
//!
//! `real_tables` (ignored; `LASKER_TB_DIR=<dir with every 4-man table> cargo test -p
//! antichess-tb --test integration lasker_ep:: -- --ignored`) runs both checks on the real
//! KPkp.

use std::collections::HashMap;
use std::path::Path;

use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, Move};
use antichess_tb::index::TableIndex;
use antichess_tb::lasker::{
    lasker_generate, lasker_side_stats, LaskerTable, LaskerTableData, LaskerTablebase, LaskerValue,
};
use antichess_tb::Material;
use rayon::prelude::*;

fn splitmix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

/// A table of `material` whose every index has a value hashed from (material, side,
/// index): any of the five, depths up to 40.
fn synthetic(material: &Material) -> LaskerTableData {
    let size = TableIndex::new(material).size();
    let salt = splitmix(material.key());
    let codes = [0u64, 1].map(|side| {
        (0..size)
            .map(|i| {
                let h = splitmix(salt ^ side << 62 ^ i);
                let value = (h % 5) as u16;
                let depth = if value == 2 {
                    0
                } else {
                    1 + (h >> 8) as u16 % 40
                };
                value << 12 | depth
            })
            .collect()
    });
    LaskerTableData {
        material: *material,
        codes,
    }
}

/// The value of a position from its moves (children probed; en passant positions through
/// their moves), or mate / stalemate without moves.
fn from_moves(tb: &LaskerTablebase, pos: &OrthoPosition) -> LaskerValue {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return if pos.is_check() {
            LaskerValue::MATED
        } else {
            LaskerValue::STALEMATED
        };
    }
    moves
        .iter()
        .map(|&m| LaskerValue::for_mover(tb.probe(&pos.play(m)).unwrap()))
        .max_by_key(|v| v.key())
        .unwrap()
}

/// Checks the Bellman equation on the stored positions of `material` that have a double
/// step allowing en passant and on every `every`-th index (1: all); returns the number of
/// positions checked and of those with a double step allowing en passant.
fn bellman(tb: &LaskerTablebase, material: &Material, every: u64) -> (u64, u64) {
    let table = tb.table(material).unwrap().unwrap();
    let index = table.index();
    let mut total = (0, 0);
    for side in Color::ALL {
        let (n, ep) = (0..index.size())
            .into_par_iter()
            .filter_map(|i| {
                let v = table.value(side, i)?;
                let board = index.decode(i);
                let pos = OrthoPosition::from_board_unchecked(board, side);
                let ep = pos.legal_moves().iter().any(|&m| {
                    m.from().index().abs_diff(m.to().index()) == 16
                        && pos.play(m).ep_square().is_some()
                });
                if !ep && i % every != 0 {
                    return None;
                }
                let expected = from_moves(tb, &pos);
                assert_eq!(
                    v,
                    expected,
                    "{}: stored {v}, from its moves {expected}",
                    pos.fen()
                );
                Some((1u64, u64::from(ep)))
            })
            .reduce(|| (0, 0), |a, b| (a.0 + b.0, a.1 + b.1));
        total.0 += n;
        total.1 += ep;
    }
    total
}

/// A position of the search and its horizon.
type SearchKey = (Board, Color, Option<antichess_core::Square>, u32);

/// Interval minimax with `plies` of horizon: (lower, upper) bounds of the value for the
/// side to move. Captures and promotions are valued exactly from the smaller tables.
struct Search<'a> {
    tb: &'a LaskerTablebase,
    material: Material,
    memo: HashMap<SearchKey, (LaskerValue, LaskerValue)>,
}

impl Search<'_> {
    fn bounds(&mut self, pos: &OrthoPosition, plies: u32) -> (LaskerValue, LaskerValue) {
        let key = (*pos.board(), pos.turn(), pos.ep_square(), plies);
        if let Some(&b) = self.memo.get(&key) {
            return b;
        }
        let moves = pos.legal_moves();
        let out = if moves.is_empty() {
            let v = if pos.is_check() {
                LaskerValue::MATED
            } else {
                LaskerValue::STALEMATED
            };
            (v, v)
        } else if plies == 0 {
            (
                LaskerValue { value: 0, depth: 1 },
                LaskerValue { value: 4, depth: 1 },
            )
        } else {
            let mut lo: Option<LaskerValue> = None;
            let mut hi: Option<LaskerValue> = None;
            for &m in moves.iter() {
                let child = pos.play(m);
                let (clo, chi) = if Material::from_board(child.board()) == self.material {
                    self.bounds(&child, plies - 1)
                } else {
                    let v = self.tb.probe(&child).unwrap();
                    (v, v)
                };
                let (mlo, mhi) = (LaskerValue::for_mover(chi), LaskerValue::for_mover(clo));
                if lo.is_none_or(|l| mlo.key() > l.key()) {
                    lo = Some(mlo);
                }
                if hi.is_none_or(|h| mhi.key() > h.key()) {
                    hi = Some(mhi);
                }
            }
            (lo.unwrap(), hi.unwrap())
        };
        self.memo.insert(key, out);
        out
    }
}

/// Random legal positions of `material` (some of them just after a double step that
/// allows en passant) checked by a bounded search; returns (checked, exact, en passant).
fn bounded_search(
    tb: &LaskerTablebase,
    material: &Material,
    samples: usize,
    plies: u32,
) -> (usize, usize, usize) {
    let index = TableIndex::new(material);
    let mut search = Search {
        tb,
        material: *material,
        memo: HashMap::new(),
    };
    let (mut checked, mut exact, mut ep) = (0, 0, 0);
    let mut seed = 39;
    while checked < samples {
        seed = splitmix(seed);
        let side = if seed & 1 == 0 {
            Color::White
        } else {
            Color::Black
        };
        let board = index.decode((seed >> 1) % index.size());
        if in_check(&board, side.other()) || board != index.decode(index.encode(&board)) {
            continue;
        }
        let mut pos = OrthoPosition::from_board_unchecked(board, side);
        // Every other sample: the position after a double step with en passant, if any.
        if checked % 2 == 1 {
            let step: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|&m| pos.play(m).ep_square().is_some())
                .collect();
            if step.is_empty() {
                continue;
            }
            pos = pos.play(step[0]);
        }
        let v = tb.probe(&pos).unwrap();
        // A third of the samples: mates within the horizon only.
        if checked % 3 == 2 && !(matches!(v.value, 0 | 4) && u32::from(v.depth) <= plies) {
            continue;
        }
        if pos.ep_square().is_some() {
            ep += 1;
        }
        let (lo, hi) = search.bounds(&pos, plies);
        assert!(
            lo.key() <= v.key() && v.key() <= hi.key(),
            "{}: table {v}, search within {plies} plies between {lo} and {hi}",
            pos.fen()
        );
        if matches!(v.value, 0 | 4) && u32::from(v.depth) <= plies {
            assert_eq!((lo, hi), (v, v), "{}: mate within the horizon", pos.fen());
            exact += 1;
        }
        checked += 1;
        if search.memo.len() > 2_000_000 {
            search.memo.clear();
        }
    }
    (checked, exact, ep)
}

#[test]
fn kpkp_over_synthetic_promotions() {
    let mut tb = LaskerTablebase::empty();
    for name in ["KPk", "KQkp", "KRkp", "KBkp", "KNkp"] {
        let m: Material = name.parse().unwrap();
        let m = m.canonical().0;
        tb.add_table(&m, LaskerTable::from_data(synthetic(&m)));
    }
    let kpkp: Material = "KPkp".parse().unwrap();
    let (data, stats) = lasker_generate(&kpkp, &tb, 0).unwrap();
    assert!(
        stats.ep_nodes > 10_000,
        "{} en passant nodes",
        stats.ep_nodes
    );
    tb.add_table(&kpkp, LaskerTable::from_data(data));
    let (n, ep) = bellman(&tb, &kpkp, 16);
    assert!(n > stats.positions / 16, "{n} positions checked");
    assert!(
        ep > 10_000,
        "{ep} positions with a double step allowing en passant"
    );
    let (checked, exact, ep) = bounded_search(&tb, &kpkp, 200, 5);
    assert_eq!((checked, ep), (200, 100));
    assert!(
        exact >= 60,
        "{exact} mates within the horizon among the samples"
    );
    ep_positions_counted(&tb, &kpkp, stats.ep_nodes);
}

/// The positions with an en passant right that the statistics count beside the stored
/// ones (the convention of the paper's KPkp row, docs/research/lasker-engine.md), against
/// an enumeration of the whole board that does not use the index: every board with a pawn
/// of the side not to move on its fourth rank, both squares behind it empty, a pawn of the
/// side to move beside it and the kings anywhere else, legal, counted once per class of
/// mirror images (the White king on files a–d), by its value through its moves. The
/// generator's en passant nodes are those whose position before the double step is legal.
fn ep_positions_counted(tb: &LaskerTablebase, kpkp: &Material, ep_nodes: u64) {
    use antichess_core::{Piece, Role, Square};
    let mut nodes = 0;
    for side in Color::ALL {
        let st = lasker_side_stats(tb, kpkp, side).unwrap();
        let them = side.other();
        let (mut counts, mut illegal_before) = ([0u64; 5], [0u64; 5]);
        for file in 0..8u8 {
            let (to, ep, start) = match them {
                Color::White => (
                    Square::from_coords(file, 3),
                    Square::from_coords(file, 2),
                    Square::from_coords(file, 1),
                ),
                Color::Black => (
                    Square::from_coords(file, 4),
                    Square::from_coords(file, 5),
                    Square::from_coords(file, 6),
                ),
            };
            for beside in [file.wrapping_sub(1), file + 1] {
                if beside >= 8 {
                    continue;
                }
                let capturer = Square::from_coords(beside, to.rank());
                for ks in Square::all() {
                    for kt in Square::all() {
                        let used = [to, ep, start, capturer];
                        if ks == kt || used.contains(&ks) || used.contains(&kt) {
                            continue;
                        }
                        let mut board = Board::empty();
                        board.set(to, Piece::new(them, Role::Pawn));
                        board.set(capturer, Piece::new(side, Role::Pawn));
                        board.set(ks, Piece::new(side, Role::King));
                        board.set(kt, Piece::new(them, Role::King));
                        let white_king = if side == Color::White { ks } else { kt };
                        if in_check(&board, them) || white_king.file() >= 4 {
                            continue;
                        }
                        let pos =
                            OrthoPosition::from_board_with_ep_unchecked(board, side, Some(ep));
                        assert_eq!(pos.ep_square(), Some(ep), "{}", pos.fen());
                        let v = usize::from(tb.probe(&pos).unwrap().value);
                        counts[v] += 1;
                        let mut before = board;
                        before.clear(to);
                        before.set(start, Piece::new(them, Role::Pawn));
                        if in_check(&before, side) {
                            illegal_before[v] += 1;
                        }
                    }
                }
            }
        }
        assert_eq!(st.ep_unique, counts, "{side:?} to move");
        assert_eq!(
            st.ep_unique_illegal_before, illegal_before,
            "{side:?} to move"
        );
        // No KPkp board is symmetric: up to symmetry is the same count.
        assert_eq!(st.ep_positions, counts);
        // The geometry alone fixes how many there are, whatever the values.
        assert_eq!(counts.iter().sum::<u64>(), 21_893);
        assert_eq!(illegal_before.iter().sum::<u64>(), 710);
        nodes += 21_893 - 710;
        // The percentages with them.
        let total: u64 = (0..5).map(|v| st.unique[v] + counts[v]).sum();
        let with = st.percentages_with_ep();
        for v in 0..5 {
            let p = 100.0 * (st.unique[v] + counts[v]) as f64 / total as f64;
            assert!(
                (with[v] - p).abs() < 1e-9,
                "value {v}: {} against {p}",
                with[v]
            );
        }
    }
    assert_eq!(nodes, ep_nodes);
}

#[test]
#[ignore = "needs every 4-man Lasker table in LASKER_TB_DIR"]
fn real_tables() {
    let dir = std::env::var("LASKER_TB_DIR").expect("LASKER_TB_DIR");
    let tb = LaskerTablebase::open(Path::new(&dir)).unwrap();
    let kpkp: Material = "KPkp".parse().unwrap();
    let (n, ep) = bellman(&tb, &kpkp, 1);
    println!("KPkp: Bellman equations hold on {n} positions ({ep} with a double step allowing en passant)");
    let (checked, exact, ep) = bounded_search(&tb, &kpkp, 200, 5);
    println!("KPkp: bounded search on {checked} positions ({ep} after a double step with en passant), {exact} mates within 5 plies exact");
}
