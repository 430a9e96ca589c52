//! Statistics of a Lasker table: per side to move, the number of legal positions of each
//! of the five values in three conventions — up to symmetry (one per stored position), in
//! the "unique position" convention of the published figures ([`unique_images`]), and on
//! the whole board (each stored position weighted by the number of distinct boards it
//! stands for: 8 / stabiliser without pawns, 2 / stabiliser with pawns) — the deepest DTS
//! and DTM positions with their counts and an example, and the stalemate line from the
//! deepest DTS position, each move chosen by the table and checked legal by the orthodox
//! rules.
//!
//! Illegal positions (the side not to move in check) are not counted; positions with an
//! en passant capture available are not stored and not counted in those three counts.
//! They are counted apart ([`LaskerSideStats::ep_unique`] and its siblings), as positions
//! of their own valued through their moves: with them added, the "unique" percentages are
//! the published KPkp figures ([`LaskerSideStats::percentages_with_ep`]; the convention is
//! [`ep_positions_of`]'s).

use antichess_core::orthodox::{Ending, OrthoPosition};
use antichess_core::{Board, Color, Move, Piece, Role, Square};
use rayon::prelude::*;

use super::probe::{LaskerTable, LaskerTablebase};
use super::LaskerValue;
use crate::material::Material;
use crate::TbError;

/// The deepest positions of one metric (DTS: values 3 and 1; DTM: values 4 and 0) for
/// one side to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaskerDeepest {
    pub depth: u16,
    /// The value of those positions for the side to move.
    pub value: u8,
    /// Positions at that depth, up to symmetry (one per class of symmetric boards).
    pub positions: u64,
    /// Positions at that depth in the paper's "unique" convention (see [`unique_images`]).
    pub unique: u64,
    /// Positions at that depth on the whole board.
    pub boards: u64,
    /// The first such position (smallest index).
    pub fen: String,
}

/// Counts for one side to move (index = value 0..=4).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LaskerSideStats {
    /// Legal positions up to symmetry.
    pub positions: [u64; 5],
    /// Legal positions in the paper's "unique" convention.
    pub unique: [u64; 5],
    /// Legal positions on the whole board.
    pub boards: [u64; 5],
    pub deepest_dts: Option<LaskerDeepest>,
    pub deepest_dtm: Option<LaskerDeepest>,
    /// Positions with an en passant right ([`ep_positions_of`]), each valued through its
    /// moves, up to symmetry; not in `positions`.
    pub ep_positions: [u64; 5],
    /// The same in the paper's "unique" convention; not in `unique`.
    pub ep_unique: [u64; 5],
    /// The same on the whole board; not in `boards`.
    pub ep_boards: [u64; 5],
    /// Of `ep_unique`, those whose position before the double step is illegal (the side
    /// now to move was in check from the pawn on its start square): counted by the
    /// paper's convention, but not nodes of the generator.
    pub ep_unique_illegal_before: [u64; 5],
}

impl LaskerSideStats {
    /// Percentages of the five values (index = value) among the "unique" positions, the
    /// convention of Müller and Haworth's figures.
    #[must_use]
    pub fn percentages(&self) -> [f64; 5] {
        let total: u64 = self.unique.iter().sum();
        self.unique
            .map(|n| 100.0 * n as f64 / (total.max(1)) as f64)
    }

    /// Percentages of the five values among the "unique" positions together with the
    /// positions with an en passant right counted as positions of their own
    /// ([`ep_positions_of`]): the convention that reproduces Müller and Haworth's KPkp
    /// row (docs/research/lasker-engine.md). The same as [`Self::percentages`] for a
    /// table without pawns of both colours.
    #[must_use]
    pub fn percentages_with_ep(&self) -> [f64; 5] {
        let counts: [u64; 5] = std::array::from_fn(|v| self.unique[v] + self.ep_unique[v]);
        let total: u64 = counts.iter().sum();
        counts.map(|n| 100.0 * n as f64 / (total.max(1)) as f64)
    }
}

/// The en passant squares of the positions with an en passant right that the published
/// figures count beside the stored position `board`, `side` to move (the paper's
/// convention, found by reproducing its KPkp row): one for each pawn of the other side on
/// its fourth rank whose two squares behind are empty and which a pawn of `side` can
/// capture en passant legally — the FEN rule for an en passant square plus a legal
/// capture. The position before the double step is *not* required to be legal; `f` gets
/// the square and whether it was (the side now to move not in check from the pawn on its
/// start square). `board` must be a legal position with `side` to move.
pub fn ep_positions_of(board: &Board, side: Color, mut f: impl FnMut(Square, bool)) {
    let them = side.other();
    let pawn = Piece::new(them, Role::Pawn);
    let occupied = board.occupied();
    for to in board.by_piece(pawn) {
        if to.relative_rank(them) != 3 {
            continue;
        }
        let (ep, start) = match them {
            Color::White => (to.offset(-8), to.offset(-16)),
            Color::Black => (to.offset(8), to.offset(16)),
        };
        let (Some(ep), Some(start)) = (ep, start) else {
            continue;
        };
        if occupied.contains(ep) || occupied.contains(start) {
            continue;
        }
        if OrthoPosition::from_board_with_ep_unchecked(*board, side, Some(ep))
            .ep_square()
            .is_none()
        {
            continue;
        }
        let mut before = *board;
        before.remove_unchecked(to, pawn);
        before.put_unchecked(start, pawn);
        f(ep, !antichess_core::orthodox::in_check(&before, side));
    }
}

/// The number of boards of `board`'s symmetry class that the "unique position"
/// convention of Nalimov-style tables (and of the paper's figures) counts: without pawns,
/// the boards with the White king in the a1–d1–d4 triangle and, when that king stands on
/// the a1–h8 diagonal, the Black king on or below it (so a class with both kings on the
/// diagonal but other men off it counts twice); with pawns, the boards with the White king
/// on files a–d (exactly one per class, since kings are never fixed by the mirror).
#[must_use]
pub fn unique_images(board: &antichess_core::Board, pawns: bool) -> u64 {
    use crate::symmetry::transform_board;
    use antichess_core::{Piece, Role};
    let transforms: &[u8] = if pawns {
        &[0, 1]
    } else {
        &[0, 1, 2, 3, 4, 5, 6, 7]
    };
    let mut images: arrayvec::ArrayVec<antichess_core::Board, 8> = arrayvec::ArrayVec::new();
    for &t in transforms {
        let b = transform_board(t, board);
        if !images.contains(&b) {
            images.push(b);
        }
    }
    images
        .iter()
        .filter(|b| {
            let king = |c| b.by_piece(Piece::new(c, Role::King)).first();
            let (Some(wk), Some(bk)) = (king(Color::White), king(Color::Black)) else {
                return false;
            };
            if pawns {
                wk.file() < 4
            } else {
                wk.file() < 4
                    && wk.rank() <= wk.file()
                    && (wk.rank() != wk.file() || bk.rank() <= bk.file())
            }
        })
        .count() as u64
}

/// One move of a stalemate line, with the value of the position it is played from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMove {
    pub san: String,
    pub uci: String,
    pub before: LaskerValue,
}

/// Statistics of one Lasker table.
#[derive(Debug, Clone, PartialEq)]
pub struct LaskerStats {
    pub material: Material,
    /// White to move, Black to move.
    pub sides: [LaskerSideStats; 2],
    /// The line from the deepest stalemate position (either side to move; White to move
    /// on a tie).
    pub line_start: Option<String>,
    pub line: Vec<LineMove>,
    /// The position the line ends in (the loser stalemated).
    pub line_end: Option<String>,
}

/// (depth, value, positions, unique, boards, smallest index).
type Deep = (u16, u8, u64, u64, u64, u64);

#[derive(Default, Clone)]
struct Partial {
    positions: [u64; 5],
    unique: [u64; 5],
    boards: [u64; 5],
    deepest: [Option<Deep>; 2],
    ep_positions: [u64; 5],
    ep_unique: [u64; 5],
    ep_boards: [u64; 5],
    ep_unique_illegal_before: [u64; 5],
    error: Option<TbError>,
}

fn merge_deepest(a: Option<Deep>, b: Option<Deep>) -> Option<Deep> {
    match (a, b) {
        (Some(x), Some(y)) if x.0 == y.0 => {
            Some((x.0, x.1, x.2 + y.2, x.3 + y.3, x.4 + y.4, x.5.min(y.5)))
        }
        (Some(x), Some(y)) => Some(if x.0 > y.0 { x } else { y }),
        (x, y) => x.or(y),
    }
}

fn side_stats(
    tb: &LaskerTablebase,
    table: &LaskerTable,
    side: Color,
) -> Result<LaskerSideStats, TbError> {
    let index = table.index();
    let material = index.material();
    let pawns = material.has_pawns();
    // En passant needs a pawn of each colour.
    let ep = material.count(Color::White, Role::Pawn) > 0
        && material.count(Color::Black, Role::Pawn) > 0;
    let group = if pawns { 2 } else { 8 };
    let p = (0..index.size())
        .into_par_iter()
        .fold(Partial::default, |mut acc, idx| {
            let Some(v) = table.value(side, idx) else {
                return acc;
            };
            let board = index.decode(idx);
            let weight = group / u64::from(index.stab_of_decoded(&board));
            let unique = unique_images(&board, pawns);
            let k = usize::from(v.value);
            acc.positions[k] += 1;
            acc.unique[k] += unique;
            acc.boards[k] += weight;
            if ep && acc.error.is_none() {
                ep_positions_of(&board, side, |sq, legal_before| {
                    let pos = OrthoPosition::from_board_with_ep_unchecked(board, side, Some(sq));
                    match tb.probe(&pos) {
                        Ok(e) => {
                            let k = usize::from(e.value);
                            acc.ep_positions[k] += 1;
                            acc.ep_unique[k] += unique;
                            acc.ep_boards[k] += weight;
                            if !legal_before {
                                acc.ep_unique_illegal_before[k] += unique;
                            }
                        }
                        Err(e) => acc.error = Some(e),
                    }
                });
            }
            let kind = match v.value {
                4 | 0 => 0,
                3 | 1 => 1,
                _ => return acc,
            };
            acc.deepest[kind] = merge_deepest(
                acc.deepest[kind],
                Some((v.depth, v.value, 1, unique, weight, idx)),
            );
            acc
        })
        .reduce(Partial::default, |mut a, b| {
            for k in 0..5 {
                a.positions[k] += b.positions[k];
                a.unique[k] += b.unique[k];
                a.boards[k] += b.boards[k];
                a.ep_positions[k] += b.ep_positions[k];
                a.ep_unique[k] += b.ep_unique[k];
                a.ep_boards[k] += b.ep_boards[k];
                a.ep_unique_illegal_before[k] += b.ep_unique_illegal_before[k];
            }
            a.error = a.error.or(b.error);
            for k in 0..2 {
                a.deepest[k] = merge_deepest(a.deepest[k], b.deepest[k]);
            }
            a
        });
    let deepest = |k: usize| {
        p.deepest[k].map(
            |(depth, value, positions, unique, boards, idx)| LaskerDeepest {
                depth,
                value,
                positions,
                unique,
                boards,
                fen: OrthoPosition::from_board_unchecked(index.decode(idx), side).fen(),
            },
        )
    };
    if let Some(e) = p.error {
        return Err(e);
    }
    Ok(LaskerSideStats {
        positions: p.positions,
        unique: p.unique,
        boards: p.boards,
        deepest_dtm: deepest(0),
        deepest_dts: deepest(1),
        ep_positions: p.ep_positions,
        ep_unique: p.ep_unique,
        ep_boards: p.ep_boards,
        ep_unique_illegal_before: p.ep_unique_illegal_before,
    })
}

/// The line of optimal play from `start` (value 3 or 1) down to the stalemate: every move
/// is one of the position's legal moves whose value equals the position's (ties by UCI),
/// and the line must end with the side to move stalemated.
pub fn stalemate_line(
    tb: &LaskerTablebase,
    start: &OrthoPosition,
) -> Result<(Vec<LineMove>, OrthoPosition), TbError> {
    let mut pos = *start;
    let mut line = Vec::new();
    loop {
        let value = tb.probe(&pos)?;
        let moves = pos.legal_moves();
        if moves.is_empty() {
            if pos.ending() != Some(Ending::Stalemate) || value != LaskerValue::STALEMATED {
                return Err(TbError::Unsupported(format!(
                    "the stalemate line ends in {} without a stalemate",
                    pos.fen()
                )));
            }
            return Ok((line, pos));
        }
        let mut best: Option<(Move, LaskerValue)> = None;
        let mut sorted: Vec<Move> = moves.to_vec();
        sorted.sort_by_key(|m| m.to_string());
        for m in sorted {
            let v = LaskerValue::for_mover(tb.probe(&pos.play(m))?);
            if v == value {
                best = Some((m, v));
                break;
            }
        }
        let Some((m, _)) = best else {
            return Err(TbError::Verification {
                table: Material::from_board(pos.board()).name(),
                reason: format!("no move of {} keeps its value {value}", pos.fen()),
            });
        };
        if value.value != 3 && value.value != 1 {
            return Err(TbError::Unsupported(format!(
                "{} has value {value}, not a stalemate win or loss",
                pos.fen()
            )));
        }
        debug_assert!(pos.is_legal(m));
        line.push(LineMove {
            san: pos.san(m),
            uci: m.to_string(),
            before: value,
        });
        pos = pos.play(m);
    }
}

/// The counts and deepest positions of the Lasker table of `material` in `tb` with
/// `side` to move (the statistics without the line). With pawns of both colours, `tb`
/// must also hold the tables the moves of positions with an en passant right lead to.
pub fn lasker_side_stats(
    tb: &LaskerTablebase,
    material: &Material,
    side: Color,
) -> Result<LaskerSideStats, TbError> {
    let material = material.canonical().0;
    let table = tb.table(&material)?.ok_or_else(|| TbError::Missing {
        material: material.name(),
        dir: tb.dir().map(|d| d.to_path_buf()).unwrap_or_default(),
    })?;
    side_stats(tb, table, side)
}

/// Computes the statistics of the Lasker table of `material` in `tb` (which must also
/// hold the tables its captures and promotions lead to, for the line).
pub fn lasker_stats(tb: &LaskerTablebase, material: &Material) -> Result<LaskerStats, TbError> {
    let material = material.canonical().0;
    let sides = [
        lasker_side_stats(tb, &material, Color::White)?,
        lasker_side_stats(tb, &material, Color::Black)?,
    ];
    let start = match (&sides[0].deepest_dts, &sides[1].deepest_dts) {
        (Some(w), Some(b)) if b.depth > w.depth => Some(b.fen.clone()),
        (Some(w), _) => Some(w.fen.clone()),
        (None, Some(b)) => Some(b.fen.clone()),
        (None, None) => None,
    };
    let (line, line_end) = match &start {
        Some(fen) => {
            let pos = OrthoPosition::from_fen(fen)?;
            let (line, end) = stalemate_line(tb, &pos)?;
            (line, Some(end.fen()))
        }
        None => (Vec::new(), None),
    };
    Ok(LaskerStats {
        material,
        sides,
        line_start: start,
        line,
        line_end,
    })
}
