//! One slice: the positions of one pawn configuration (every placement of the units
//! other than pawns, both sides to move), solved on their own once the more advanced
//! configurations of the material are in the store.
//!
//! Each position's legal moves are sorted into three kinds: *external* moves (captures
//! and promotions, which leave the material, read from the children tables through
//! [`Tablebase::probe_wdl_within`]; double steps that allow an en passant capture, whose
//! position is not stored and is resolved by its captures the same way, as the whole-index
//! generator does), *pawn moves* within the material (read from the store: a more advanced
//! configuration), and *internal* moves of the other units (another position of this
//! slice, with the other side to move). The internal moves form a small graph, solved by
//! iterating to the fixpoint: a position wins if some move leads to a loss of the
//! opponent, and loses if every move leads to a win of the opponent; what never settles
//! is a draw. Values are WDL for the side to move.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use antichess_core::{Color, Position, Role, Rules};

use super::layout::SliceLayout;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use crate::TbError;

/// A slice position's state while solving (the store's codes are `1 + Wdl::code()`).
const UNKNOWN: u8 = 0;
const LOSS: u8 = 1;
const DRAW: u8 = 2;
const WIN: u8 = 3;
const INVALID: u8 = 4;

/// What one solve reads and writes.
pub(super) struct SliceGen<'a> {
    pub(super) layout: &'a SliceLayout,
    pub(super) rules: Rules,
    pub(super) bound: Option<Color>,
    pub(super) children: &'a Tablebase,
    /// Two bits per position: 0 not written, else `1 + Wdl::code()`.
    pub(super) store: &'a [AtomicU64],
}

/// Buffers reused from slice to slice on one thread.
#[derive(Default)]
pub(super) struct Scratch {
    values: Vec<u8>,
    ext_draw: Vec<bool>,
    offsets: Vec<u32>,
    edges: Vec<u32>,
}

/// Counts of one solved slice.
#[derive(Debug, Default, Clone, Copy)]
pub(super) struct SliceCounts {
    pub(super) positions: u64,
    pub(super) wins: u64,
    pub(super) draws: u64,
    pub(super) losses: u64,
    /// Sweeps of the internal fixpoint (0 when no position was left open by its moves).
    pub(super) sweeps: u32,
}

/// The store's code of a WDL.
#[inline]
pub(super) fn code(wdl: Wdl) -> u8 {
    wdl.code() + 1
}

/// Reads a position's code from the store.
#[inline]
pub(super) fn load(store: &[AtomicU64], position: u64) -> u8 {
    ((store[(position / 32) as usize].load(Relaxed) >> (2 * (position % 32))) & 3) as u8
}

#[inline]
fn save(store: &[AtomicU64], position: u64, code: u8) {
    store[(position / 32) as usize].fetch_or(u64::from(code) << (2 * (position % 32)), Relaxed);
}

impl SliceGen<'_> {
    fn probe(&self, child: &Position) -> Result<Wdl, TbError> {
        self.children.probe_wdl_within(child, self.bound)
    }

    /// The value of a position of this material in a more advanced configuration.
    fn stored(&self, child: &Position) -> Wdl {
        let c = load(self.store, self.layout.locate(child.board(), child.turn()));
        assert!(
            c != 0,
            "a more advanced slice is not solved: {}",
            child.fen()
        );
        Wdl::from_code(c - 1).expect("a stored code")
    }

    /// Solves the slice of `config` and writes it into the store.
    pub(super) fn solve(&self, config: u64, s: &mut Scratch) -> Result<SliceCounts, TbError> {
        let (white, black) = self.layout.pawns(config);
        let placements = self.layout.placements() as usize;
        let n = 2 * placements;
        s.values.clear();
        s.values.resize(n, UNKNOWN);
        s.ext_draw.clear();
        s.ext_draw.resize(n, false);
        s.offsets.clear();
        s.edges.clear();
        let mut field_of = [0u8; 64];
        for side in Color::ALL {
            let base = side.index() * placements;
            let other_base = side.other().index() * placements;
            for placement in 0..placements {
                let local = base + placement;
                s.offsets.push(s.edges.len() as u32);
                let Some(board) = self.layout.board(white, black, placement as u64) else {
                    s.values[local] = INVALID;
                    continue;
                };
                for i in 0..self.layout.units.len() {
                    field_of[(placement >> (6 * i)) & 63] = i as u8;
                }
                let pos = Position::from_board_unhashed(board, side, self.rules);
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    let wdl = Wdl::from_outcome(pos.no_move_outcome(), side);
                    s.values[local] = code(wdl);
                    continue;
                }
                let mut best: Option<Wdl> = None;
                for &m in moves.iter() {
                    let (from, to) = (m.from(), m.to());
                    let role = board.role_at(from).expect("a unit moves");
                    let ext = if board.occupied().contains(to)
                        || m.is_en_passant()
                        || m.promotion().is_some()
                    {
                        -self.probe(&pos.play(m))?
                    } else if role == Role::Pawn {
                        let child = pos.play(m);
                        if child.ep_square().is_some() {
                            -self.probe(&child)?
                        } else {
                            -self.stored(&child)
                        }
                    } else {
                        let shift = 6 * u32::from(field_of[from.index()]);
                        let moved = (placement & !(63 << shift)) | to.index() << shift;
                        s.edges.push((other_base + moved) as u32);
                        continue;
                    };
                    best = best.max(Some(ext));
                    if ext == Wdl::Win {
                        break;
                    }
                }
                if best == Some(Wdl::Win) {
                    s.values[local] = WIN;
                } else {
                    let draw = best == Some(Wdl::Draw);
                    s.ext_draw[local] = draw;
                    if s.edges.len() == s.offsets[local] as usize {
                        s.values[local] = if draw { DRAW } else { LOSS };
                    }
                }
            }
        }
        s.offsets.push(s.edges.len() as u32);
        let mut counts = SliceCounts::default();
        loop {
            let mut changed = false;
            for local in 0..n {
                if s.values[local] != UNKNOWN {
                    continue;
                }
                let (mut win, mut all_win) = (false, true);
                for &c in &s.edges[s.offsets[local] as usize..s.offsets[local + 1] as usize] {
                    match s.values[c as usize] {
                        LOSS => {
                            win = true;
                            break;
                        }
                        WIN => {}
                        _ => all_win = false,
                    }
                }
                if win {
                    s.values[local] = WIN;
                    changed = true;
                } else if all_win && !s.ext_draw[local] {
                    s.values[local] = LOSS;
                    changed = true;
                }
            }
            if !changed {
                break;
            }
            counts.sweeps += 1;
        }
        for side in Color::ALL {
            for placement in 0..placements {
                let v = match s.values[side.index() * placements + placement] {
                    INVALID => continue,
                    UNKNOWN | DRAW => DRAW,
                    v => v,
                };
                counts.positions += 1;
                match v {
                    WIN => counts.wins += 1,
                    LOSS => counts.losses += 1,
                    _ => counts.draws += 1,
                }
                save(
                    self.store,
                    self.layout.position(config, side, placement as u64),
                    v,
                );
            }
        }
        Ok(counts)
    }
}
