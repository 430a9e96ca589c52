//! Statistics of a table: positions by result and side to move, the longest win for each
//! side to move (with an example), and mutual zugzwangs (positions lost for whichever side
//! is to move). Counts are of positions up to the board's symmetries (8 without pawns, 2
//! with pawns); positions with an en passant capture available are not stored and not
//! counted, nor are the boards a royal table marks as not positions.

use antichess_core::{Color, Position, Role};
use rayon::prelude::*;

use crate::material::Material;
use crate::table::Table;
use crate::wdl::Wdl;
use crate::TbError;

/// Counts for one side to move.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SideStats {
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    /// The longest DTC among wins (plies) and a position with it.
    pub longest_win: Option<(u16, String)>,
}

/// Statistics of one table.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TableStats {
    pub material: Material,
    /// Positions up to symmetry, per side to move.
    pub positions: u64,
    /// White to move, Black to move (colours of the canonical orientation).
    pub sides: [SideStats; 2],
    pub mutual_zugzwangs: u64,
    /// An example mutual zugzwang (FEN with White to move).
    pub zugzwang_example: Option<String>,
}

impl TableStats {
    /// The material has no knights and no pawns.
    #[must_use]
    pub fn without_knights_and_pawns(&self) -> bool {
        Color::ALL.iter().all(|&c| {
            self.material.count(c, Role::Knight) == 0 && self.material.count(c, Role::Pawn) == 0
        })
    }
}

#[derive(Default)]
struct Partial {
    positions: u64,
    counts: [[u64; 3]; 2],
    longest: [Option<(u16, u64)>; 2],
    mzug: u64,
    mzug_example: Option<u64>,
}

/// Computes the statistics of a loaded table.
pub fn table_stats(table: &Table) -> Result<TableStats, TbError> {
    let index = table.index();
    let rules = table.header().rules;
    let dtc = [table.dtc_all(Color::White)?, table.dtc_all(Color::Black)?];
    let partial = (0..index.size())
        .into_par_iter()
        .fold(Partial::default, |mut acc, idx| {
            let board = index.decode(idx);
            // Count each position once: skip the unused duplicates of symmetric lead groups.
            if !index.is_canonical(idx, &board) {
                return acc;
            }
            // Royal tables mark boards that are not positions (the side not to move in
            // check) with code 3: neither values nor counted.
            let legal = [Color::White, Color::Black].map(|c| {
                !rules.is_royal() || table.wdl_code(c, idx) != crate::royal::CODE_NOT_POSITION
            });
            if legal == [false, false] {
                return acc;
            }
            acc.positions += 1;
            let w = [table.wdl(Color::White, idx), table.wdl(Color::Black, idx)];
            for side in 0..2 {
                if !legal[side] {
                    continue;
                }
                acc.counts[side][w[side].code() as usize] += 1;
                if w[side] == Wdl::Win {
                    let d = dtc[side][idx as usize];
                    if acc.longest[side]
                        .is_none_or(|(best, at)| d > best || (d == best && idx < at))
                    {
                        acc.longest[side] = Some((d, idx));
                    }
                }
            }
            if legal == [true, true] && w[0] == Wdl::Loss && w[1] == Wdl::Loss {
                acc.mzug += 1;
                if acc.mzug_example.is_none_or(|at| idx < at) {
                    acc.mzug_example = Some(idx);
                }
            }
            acc
        })
        .reduce(Partial::default, |mut a, b| {
            a.positions += b.positions;
            for side in 0..2 {
                for k in 0..3 {
                    a.counts[side][k] += b.counts[side][k];
                }
                a.longest[side] = match (a.longest[side], b.longest[side]) {
                    (Some(x), Some(y)) => Some(if y.0 > x.0 || (y.0 == x.0 && y.1 < x.1) {
                        y
                    } else {
                        x
                    }),
                    (x, y) => x.or(y),
                };
            }
            a.mzug += b.mzug;
            a.mzug_example = match (a.mzug_example, b.mzug_example) {
                (Some(x), Some(y)) => Some(x.min(y)),
                (x, y) => x.or(y),
            };
            a
        });
    let fen = |idx: u64, side: Color| {
        Position::from_board_unchecked(index.decode(idx), side, rules).fen()
    };
    let side_stats = |side: Color| SideStats {
        wins: partial.counts[side.index()][Wdl::Win.code() as usize],
        draws: partial.counts[side.index()][Wdl::Draw.code() as usize],
        losses: partial.counts[side.index()][Wdl::Loss.code() as usize],
        longest_win: partial.longest[side.index()].map(|(d, idx)| (d, fen(idx, side))),
    };
    Ok(TableStats {
        material: *index.material(),
        positions: partial.positions,
        sides: [side_stats(Color::White), side_stats(Color::Black)],
        mutual_zugzwangs: partial.mzug,
        zugzwang_example: partial.mzug_example.map(|idx| fen(idx, Color::White)),
    })
}
