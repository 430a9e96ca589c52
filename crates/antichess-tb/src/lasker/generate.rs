//! Retrograde generation of one Lasker table, in two phases over the same index.
//!
//! **Phase A (mate).** A position is a win by mate (4) if some move leads to a position
//! lost by mate (0); it is lost by mate if every move leads to a mate win for the
//! opponent. Stalemates, draws and stalemate wins are all escapes from mate. This is plain
//! DTM: levels are taken in order of depth; a loss at depth `d` makes its predecessors wins
//! at `d + 1`; a win at `d` decrements its predecessors' counters of moves not yet known to
//! lose, and a predecessor whose counter reaches zero (and no external move escapes) is
//! lost at the largest depth of its moves.
//!
//! **Phase B (stalemate).** Among the positions phase A left undecided: a win by
//! stalemate (3) if some move leads to a stalemate loss (1); a stalemate loss if every move
//! leads to a stalemate win or a mate win for the opponent and at least one to a stalemate
//! win (moves into mate wins are the worst moves and are taken off the counters first;
//! the depth is one more than the deepest stalemate-win child). Terminal stalemates are
//! its level 0. Whatever both phases leave undecided is a draw (2).
//!
//! External moves (captures and promotions) are probed in the smaller tables at
//! initialisation and enter as pending wins or as lower bounds of loss depths. Positions
//! in which the side not to move is in check are illegal and never touched again. Words
//! are 32-bit atomics updated by compare-and-swap, so each level runs on many threads.
//!
//! **En passant.** With pawns of both colours, a double step can give the opponent an en
//! passant capture. The position reached, `E`, is not stored (the index has no en passant
//! square) but it is a node of its own: its moves are the en passant captures (external,
//! into a smaller table) and every move of its *twin* `T`, the stored position with the
//! same board and side to move, so its value is the better of the en passant captures'
//! and `T`'s. The generator keeps such nodes in a side list (one per board, side to move
//! and en passant square with a legal en passant capture and a legal predecessor), each
//! with one internal "move" of no ply into its twin: when `T` is decided as a win at level
//! `d`, `E` is a win at `d`; when `T` is decided as a loss at `d`, `E`'s counter drops to
//! zero and, if no en passant capture escapes, `E` is a loss at `max(d, deepest loss by en
//! passant)`. Levels are re-run until empty so that a node decided at its twin's level is
//! propagated in that level. The double step that made `E` is counted as one internal
//! move of its predecessor, which is told by `E` (not by `T`) when `E` is decided; the
//! un-moves of `T` leave such double steps out.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use antichess_core::attacks;
use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, Move, MoveList, Piece, Role, Square};
use rayon::prelude::*;

use super::format::LaskerTableData;
use super::probe::LaskerTablebase;
use super::{lasker_material_ok, LaskerValue, CODE_NONE};
use crate::index::{Neighbourhood, TableIndex};
use crate::material::Material;
use crate::TbError;

// Words: bit 31 FINAL. Final: bits 28..31 value (0..=4, 7 = not a position), bits 0..16
// depth. Undecided: bits 0..8 counter, bits 8..24 largest depth of the losing external
// moves (the lower bound of a loss depth), bit 24 NO_LOSS (an external move escapes).
const FINAL: u32 = 1 << 31;
const NOT_POSITION: u32 = FINAL | 7 << 28;
const DEPTH_MASK: u32 = 0xffff;
const COUNTER_MASK: u32 = 0xff;
const EXT_SHIFT: u32 = 8;
const NO_LOSS: u32 = 1 << 24;
/// Phase B's external information, kept per position from initialisation: bits 0..16 the
/// shortest stalemate win by an external move (`NO_WIN` if none), bits 16..31 the deepest
/// external stalemate loss, bit 31 an external move draws or better.
const NO_WIN: u32 = 0xffff;
const B_NO_LOSS: u32 = 1 << 31;

#[inline]
fn final_word(value: u8, depth: u16) -> u32 {
    FINAL | u32::from(value) << 28 | u32::from(depth)
}

#[inline]
fn word_value(w: u32) -> u8 {
    ((w >> 28) & 7) as u8
}

/// Entry flag of an en passant node (its position in [`EpNodes`] below the flags).
const EP_ENTRY: u64 = 1 << 62;

#[inline]
fn entry(side: Color, idx: u64) -> u64 {
    (side.index() as u64) << 63 | idx
}

#[inline]
fn entry_side(e: u64) -> Color {
    if e >> 63 == 0 {
        Color::White
    } else {
        Color::Black
    }
}

#[inline]
fn entry_idx(e: u64) -> usize {
    (e & !(3 << 62)) as usize
}

/// Key of an en passant node: the side to move, its twin's index, and the en passant
/// square in the frame of the board the twin's index decodes to.
#[inline]
fn ep_key(side: Color, idx: u64, ep: Square) -> u64 {
    (side.index() as u64) << 63 | idx << 6 | ep.index() as u64
}

/// The positions reached by a double step that gives the opponent a legal en passant
/// capture (see the module documentation), sorted by key, with their words.
#[derive(Default)]
struct EpNodes {
    keys: Vec<u64>,
    words: Vec<AtomicU32>,
    ext_b: Vec<AtomicU32>,
}

/// The en passant square of a double step `from` → `to` that leaves `board` (after the
/// step) with a legal en passant capture for the side to move `turn`; `None` otherwise.
#[inline]
fn ep_after(board: &Board, turn: Color, from: Square, to: Square) -> Option<Square> {
    let pawns = board.pawns();
    if !pawns.contains(to) || from.index().abs_diff(to.index()) != 16 {
        return None;
    }
    let ep = Square::from_index(((from.index() + to.index()) / 2) as u32);
    if (attacks::pawn_attacks(turn.other(), ep) & pawns & board.by_color(turn)).is_empty() {
        return None;
    }
    OrthoPosition::from_board_with_ep_unchecked(*board, turn, Some(ep)).ep_square()
}

/// Counts of a generated table (indices that are positions, both sides to move).
#[derive(Debug, Clone, Copy, Default)]
pub struct LaskerGenStats {
    /// Indices per side times two.
    pub indices: u64,
    /// Legal positions (canonical indices), both sides.
    pub positions: u64,
    /// Positions by value 0..=4.
    pub by_value: [u64; 5],
    pub max_dtm: u16,
    pub max_dts: u16,
    /// En passant nodes (positions after a double step with a legal en passant capture;
    /// not stored, not counted in `positions`).
    pub ep_nodes: u64,
}

#[derive(Clone, Copy)]
struct Phase {
    win: u8,
    loss: u8,
}

const MATE: Phase = Phase { win: 4, loss: 0 };
const STALEMATE: Phase = Phase { win: 3, loss: 1 };

struct Gen<'a> {
    index: TableIndex,
    children: &'a LaskerTablebase,
    words: [Vec<AtomicU32>; 2],
    ext_b: [Vec<AtomicU32>; 2],
    ep: EpNodes,
}

/// What initialising one position found.
struct Init {
    word: u32,
    ext_b: u32,
    /// Decided now: (phase 0 = mate / 1 = stalemate, level).
    decided: Option<(usize, u16)>,
    /// A mate win by an external move, pending at this level.
    pending: Option<u16>,
}

/// Levels of entries per phase.
type Levels = Vec<Vec<u64>>;

/// The quiet moves by which `mover` could have reached `board` inside the table (no
/// captures, no promotions), as (piece, square now, square before). Double steps after
/// which the opponent has a legal en passant capture are left out: they lead to an en
/// passant node, not to `board`'s stored position.
fn un_moves(board: &Board, mover: Color, mut f: impl FnMut(Piece, Square, Square)) {
    let occupied = board.occupied();
    let empty = !occupied;
    let ours = board.by_color(mover);
    for role in [
        Role::Knight,
        Role::Bishop,
        Role::Rook,
        Role::Queen,
        Role::King,
    ] {
        let piece = Piece::new(mover, role);
        for to in ours & board.by_role(role) {
            for from in attacks::attacks(mover, role, to, occupied) & empty {
                f(piece, to, from);
            }
        }
    }
    let pawn = Piece::new(mover, Role::Pawn);
    let (back, double_rank): (i32, u8) = match mover {
        Color::White => (-8, 3),
        Color::Black => (8, 4),
    };
    for to in ours & board.pawns() {
        if to.relative_rank(mover) < 2 {
            continue;
        }
        let from = Square::from_index((to.index() as i32 + back) as u32);
        if !empty.contains(from) {
            continue;
        }
        f(pawn, to, from);
        if to.rank() == double_rank {
            let start = Square::from_index((to.index() as i32 + 2 * back) as u32);
            if empty.contains(start) && ep_after(board, mover.other(), start, to).is_none() {
                f(pawn, to, start);
            }
        }
    }
}

impl Gen<'_> {
    fn init_one(&self, idx: u64, side: Color, moves: &mut MoveList) -> Result<Init, TbError> {
        let none = Init {
            word: NOT_POSITION,
            ext_b: 0,
            decided: None,
            pending: None,
        };
        let board = self.index.decode(idx);
        if !self.index.is_canonical(idx, &board) || in_check(&board, side.other()) {
            return Ok(none);
        }
        let pos = OrthoPosition::from_board_unchecked(board, side);
        pos.legal_moves_into(moves);
        if moves.is_empty() {
            return Ok(if pos.is_check() {
                Init {
                    word: final_word(0, 0),
                    decided: Some((0, 0)),
                    ..none
                }
            } else {
                Init {
                    word: final_word(1, 0),
                    decided: Some((1, 0)),
                    ..none
                }
            });
        }
        let them = board.by_color(side.other());
        let internal = moves
            .iter()
            .filter(|m| !(m.is_promotion() || them.contains(m.to()) || m.is_en_passant()))
            .count() as u32;
        if internal > COUNTER_MASK {
            return Err(TbError::Unsupported(format!(
                "{}: more than 255 moves",
                pos.fen()
            )));
        }
        let externals = moves
            .iter()
            .copied()
            .filter(|m| m.is_promotion() || them.contains(m.to()) || m.is_en_passant());
        self.classify(&pos, externals, internal)
    }

    /// The starting word of a position from its external moves (probed in the smaller
    /// tables) and its number of internal moves.
    fn classify(
        &self,
        pos: &OrthoPosition,
        externals: impl Iterator<Item = Move>,
        internal: u32,
    ) -> Result<Init, TbError> {
        let (mut win4, mut no_loss_a, mut ext_a) = (None::<u16>, false, 0u16);
        let (mut win3, mut no_loss_b, mut ext_b) = (NO_WIN as u16, false, 0u16);
        for m in externals {
            let child = pos.play(m);
            let v = LaskerValue::for_mover(self.children.probe(&child)?);
            match v.value {
                4 => win4 = Some(win4.map_or(v.depth, |w| w.min(v.depth))),
                0 => ext_a = ext_a.max(v.depth),
                _ => no_loss_a = true,
            }
            match v.value {
                3 => win3 = win3.min(v.depth),
                1 => ext_b = ext_b.max(v.depth),
                2..=4 => no_loss_b = true,
                _ => {}
            }
        }
        let b = u32::from(win3) | u32::from(ext_b) << 16 | if no_loss_b { B_NO_LOSS } else { 0 };
        if let Some(d) = win4 {
            if d == 1 || internal == 0 {
                return Ok(Init {
                    word: final_word(4, d),
                    ext_b: b,
                    decided: Some((0, d)),
                    pending: None,
                });
            }
            return Ok(Init {
                word: NO_LOSS | internal,
                ext_b: b,
                decided: None,
                pending: Some(d),
            });
        }
        if internal == 0 && !no_loss_a {
            return Ok(Init {
                word: final_word(0, ext_a),
                ext_b: b,
                decided: Some((0, ext_a)),
                pending: None,
            });
        }
        let flags = if no_loss_a {
            NO_LOSS
        } else {
            u32::from(ext_a) << EXT_SHIFT
        };
        Ok(Init {
            word: flags | internal,
            ext_b: b,
            decided: None,
            pending: None,
        })
    }

    /// The en passant nodes of the table: for each legal stored position and each pawn of
    /// the side not to move that may just have made a double step (both squares behind it
    /// empty, the position before it legal) after which the side to move has a legal en
    /// passant capture. Keys in increasing order.
    fn find_ep_nodes(&self) -> Vec<u64> {
        const CHUNK: usize = 1 << 12;
        let mut keys = Vec::new();
        for side in Color::ALL {
            let size = self.index.size() as usize;
            let parts: Vec<Vec<u64>> = (0..size.div_ceil(CHUNK))
                .into_par_iter()
                .map(|chunk| {
                    let mut out = Vec::new();
                    let end = ((chunk + 1) * CHUNK).min(size);
                    for i in chunk * CHUNK..end {
                        let idx = i as u64;
                        if self.words[side.index()][i].load(Relaxed) == NOT_POSITION {
                            continue;
                        }
                        let board = self.index.decode(idx);
                        ep_nodes_of(&board, side, |ep| out.push(ep_key(side, idx, ep)));
                    }
                    out
                })
                .collect();
            keys.extend(parts.into_iter().flatten());
        }
        debug_assert!(keys.windows(2).all(|w| w[0] < w[1]));
        keys
    }

    /// Initialises the en passant nodes (after the stored positions): their en passant
    /// captures are external moves, their twin one internal move. Returns the decided
    /// ones (mate phase, by level) and the pending mate wins by level.
    fn initialise_ep(&self) -> Result<(Levels, Levels), TbError> {
        let parts: Result<Vec<(usize, Init)>, TbError> = self
            .ep
            .keys
            .par_iter()
            .enumerate()
            .map(|(i, &key)| {
                let (side, idx, ep) = split_ep_key(key);
                let board = self.index.decode(idx);
                let pos = OrthoPosition::from_board_with_ep_unchecked(board, side, Some(ep));
                debug_assert_eq!(pos.ep_square(), Some(ep));
                let moves = pos.legal_moves();
                let externals = moves.iter().copied().filter(|m| m.is_en_passant());
                Ok((i, self.classify(&pos, externals, 1)?))
            })
            .collect();
        let (mut decided, mut pending): (Levels, Levels) = (Vec::new(), Vec::new());
        for (i, init) in parts? {
            self.ep.words[i].store(init.word, Relaxed);
            self.ep.ext_b[i].store(init.ext_b, Relaxed);
            let e = EP_ENTRY | i as u64;
            if let Some((_, l)) = init.decided {
                push_level(&mut decided, l, e);
            }
            if let Some(l) = init.pending {
                push_level(&mut pending, l, e);
            }
        }
        Ok((decided, pending))
    }

    /// The word of an entry (stored position or en passant node).
    #[inline]
    fn word_of(&self, e: u64) -> &AtomicU32 {
        if e & EP_ENTRY != 0 {
            &self.ep.words[entry_idx(e)]
        } else {
            &self.words[entry_side(e).index()][entry_idx(e)]
        }
    }

    /// The entry of the en passant node with `board` (any frame), `turn` to move and en
    /// passant square `ep`.
    fn ep_entry(&self, board: &Board, turn: Color, ep: Square) -> u64 {
        let idx = self.index.encode(board);
        let ep = if self.index.decode(idx) == *board {
            ep
        } else {
            ep.flip_horizontal()
        };
        let key = ep_key(turn, idx, ep);
        let i = self
            .ep
            .keys
            .binary_search(&key)
            .expect("every en passant node is listed");
        EP_ENTRY | i as u64
    }

    /// Initialises both sides: the mate phase's decided positions and pending wins by
    /// level, and the terminal stalemates.
    fn initialise(&self) -> Result<(Levels, Levels, Vec<u64>), TbError> {
        const CHUNK: usize = 1 << 12;
        type Part = (Levels, Levels, Vec<u64>);
        let mut mate: Levels = Vec::new();
        let mut pending: Levels = Vec::new();
        let mut stalemates = Vec::new();
        let push = |levels: &mut Levels, l: u16, e: u64| {
            let l = usize::from(l);
            if levels.len() <= l {
                levels.resize(l + 1, Vec::new());
            }
            levels[l].push(e);
        };
        for side in Color::ALL {
            let s = side.index();
            let parts: Result<Vec<Part>, TbError> = self.words[s]
                .par_chunks(CHUNK)
                .zip(self.ext_b[s].par_chunks(CHUNK))
                .enumerate()
                .map(|(chunk, (words, exts))| {
                    let (mut m, mut p, mut st) = (Vec::new(), Vec::new(), Vec::new());
                    let mut moves = MoveList::new();
                    for (i, (word, ext)) in words.iter().zip(exts).enumerate() {
                        let idx = (chunk * CHUNK + i) as u64;
                        let init = self.init_one(idx, side, &mut moves)?;
                        word.store(init.word, Relaxed);
                        ext.store(init.ext_b, Relaxed);
                        match init.decided {
                            Some((0, l)) => push(&mut m, l, entry(side, idx)),
                            Some((_, _)) => st.push(entry(side, idx)),
                            None => {}
                        }
                        if let Some(l) = init.pending {
                            push(&mut p, l, entry(side, idx));
                        }
                    }
                    Ok((m, p, st))
                })
                .collect();
            for (m, p, st) in parts? {
                for (l, list) in m.into_iter().enumerate() {
                    for e in list {
                        push(&mut mate, l as u16, e);
                    }
                }
                for (l, list) in p.into_iter().enumerate() {
                    for e in list {
                        push(&mut pending, l as u16, e);
                    }
                }
                stalemates.extend(st);
            }
        }
        Ok((mate, pending, stalemates))
    }

    /// Marks an undecided entry as a win of `phase` at `level`; false if it was final.
    #[inline]
    fn mark_win(&self, e: u64, phase: Phase, level: u16) -> bool {
        let word = self.word_of(e);
        let mut cur = word.load(Relaxed);
        loop {
            if cur & FINAL != 0 {
                return false;
            }
            match word.compare_exchange_weak(cur, final_word(phase.win, level), Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(v) => cur = v,
            }
        }
    }

    /// Takes `amount` moves of an undecided entry as losing (into wins of the opponent at
    /// `level`, or for an en passant node its twin lost at `level`: `plies` is 1 for a
    /// move, 0 for the twin); returns the loss level if it became a loss.
    #[inline]
    fn decrement(&self, e: u64, amount: u32, level: u16, plies: u16, phase: Phase) -> Option<u16> {
        let word = self.word_of(e);
        let mut cur = word.load(Relaxed);
        loop {
            if cur & FINAL != 0 {
                return None;
            }
            let counter = cur & COUNTER_MASK;
            debug_assert!(counter >= amount, "counter underflow");
            let left = counter - amount;
            let (new, decided) = if left == 0 && cur & NO_LOSS == 0 {
                let ext = ((cur >> EXT_SHIFT) & DEPTH_MASK) as u16;
                let l = (level + plies).max(ext);
                (final_word(phase.loss, l), Some(l))
            } else {
                ((cur & !COUNTER_MASK) | left, None)
            };
            match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return decided,
                Err(v) => cur = v,
            }
        }
    }

    /// Propagates one decided entry to its predecessors (and a stored position to its en
    /// passant twins).
    fn retro_one(
        &self,
        e: u64,
        phase: Phase,
        out: &mut Vec<(u16, u64)>,
        preds: &mut Vec<(u64, u32)>,
        near: &mut Neighbourhood,
    ) {
        let v = self.word_of(e).load(Relaxed);
        let level = (v & DEPTH_MASK) as u16;
        let is_win = word_value(v) == phase.win;
        if e & EP_ENTRY != 0 {
            // The one predecessor: the double step back.
            let (side, idx, ep) = split_ep_key(self.ep.keys[entry_idx(e)]);
            let mut board = self.index.decode(idx);
            let mover = side.other();
            let pawn = Piece::new(mover, Role::Pawn);
            let (to, start) = double_step_squares(mover, ep);
            board.remove_unchecked(to, pawn);
            board.put_unchecked(start, pawn);
            let (pidx, w) = self.index.encode_with_stab(&board);
            debug_assert_eq!(w, 1, "no symmetric boards with pawns of both colours");
            let p = entry(mover, pidx);
            if !is_win {
                if self.mark_win(p, phase, level + 1) {
                    out.push((level + 1, p));
                }
            } else if let Some(l) = self.decrement(p, 1, level, 1, phase) {
                out.push((l, p));
            }
            return;
        }
        let side = entry_side(e);
        let idx = entry_idx(e);
        if !self.ep.keys.is_empty() {
            let lo = ep_key(side, idx as u64, Square::from_index(0));
            let first = self.ep.keys.partition_point(|&k| k < lo);
            for (i, _) in self.ep.keys[first..]
                .iter()
                .enumerate()
                .take_while(|(_, &k)| k >> 6 == lo >> 6)
            {
                let twin = EP_ENTRY | (first + i) as u64;
                if is_win {
                    if self.mark_win(twin, phase, level) {
                        out.push((level, twin));
                    }
                } else if let Some(l) = self.decrement(twin, 1, level, 0, phase) {
                    out.push((l, twin));
                }
            }
        }
        self.index.neighbourhood_into(idx as u64, near);
        let near = &*near;
        let board = near.board();
        let mover = side.other();
        preds.clear();
        un_moves(board, mover, |piece, now, before| {
            let (pidx, w) = self
                .index
                .encode_neighbour(near, piece, now, before)
                .unwrap_or_else(|| {
                    let mut prev = *board;
                    prev.remove_unchecked(now, piece);
                    prev.put_unchecked(before, piece);
                    self.index.encode_with_stab(&prev)
                });
            preds.push((pidx, w));
        });
        if !is_win {
            for &(pidx, _) in preds.iter() {
                let p = entry(mover, pidx);
                if self.mark_win(p, phase, level + 1) {
                    out.push((level + 1, p));
                }
            }
            return;
        }
        let stab = near.stab();
        if stab == 1 {
            for &(pidx, w) in preds.iter() {
                let p = entry(mover, pidx);
                if let Some(l) = self.decrement(p, w, level, 1, phase) {
                    out.push((l, p));
                }
            }
        } else {
            preds.sort_unstable();
            let mut i = 0;
            while i < preds.len() {
                let pidx = preds[i].0;
                let mut sum = 0;
                while i < preds.len() && preds[i].0 == pidx {
                    sum += preds[i].1;
                    i += 1;
                }
                debug_assert_eq!(sum % stab, 0, "stabiliser weights must divide");
                let p = entry(mover, pidx);
                if let Some(l) = self.decrement(p, sum / stab, level, 1, phase) {
                    out.push((l, p));
                }
            }
        }
    }

    /// Runs the retrograde levels of one phase. A level is re-run until no entry of its
    /// own depth is left (an en passant node decided by its twin is at the twin's level).
    fn run_phase(
        &self,
        phase: Phase,
        mut levels: Levels,
        mut pending: Levels,
    ) -> Result<(), TbError> {
        let mut level: u16 = 0;
        while levels
            .iter()
            .skip(usize::from(level))
            .any(|l| !l.is_empty())
            || pending
                .iter()
                .skip(usize::from(level))
                .any(|l| !l.is_empty())
        {
            let l = usize::from(level);
            if levels.len() <= l + 1 {
                levels.resize(l + 2, Vec::new());
            }
            if let Some(list) = pending.get_mut(l) {
                for e in std::mem::take(list) {
                    if self.mark_win(e, phase, level) {
                        levels[l].push(e);
                    }
                }
            }
            while !levels[l].is_empty() {
                let current = std::mem::take(&mut levels[l]);
                let found: Vec<Vec<(u16, u64)>> = current
                    .par_chunks(1024)
                    .map(|chunk| {
                        let mut out = Vec::new();
                        let mut preds = Vec::with_capacity(64);
                        let mut near = Neighbourhood::default();
                        for &e in chunk {
                            self.retro_one(e, phase, &mut out, &mut preds, &mut near);
                        }
                        out
                    })
                    .collect();
                for (dl, e) in found.into_iter().flatten() {
                    push_level(&mut levels, dl, e);
                }
            }
            level += 1;
            if u32::from(level) >= 0x0fff {
                return Err(TbError::Unsupported(format!(
                    "{}: depth beyond 4095 plies",
                    self.index.material()
                )));
            }
        }
        Ok(())
    }

    /// Phase B's starting words: for every position phase A left undecided, the counter of
    /// internal moves not into mate wins of the opponent, with the external information.
    /// Returns the decided positions and the pending wins by level.
    fn prepare_stalemate_phase(&self, stalemates: Vec<u64>) -> (Levels, Levels) {
        const CHUNK: usize = 1 << 12;
        let mut levels: Levels = vec![stalemates];
        let mut pending: Levels = Vec::new();
        let mut collect = |parts: Vec<Vec<(u64, u16, bool)>>| {
            for (e, l, pend) in parts.into_iter().flatten() {
                push_level(if pend { &mut pending } else { &mut levels }, l, e);
            }
        };
        for side in Color::ALL {
            let s = side.index();
            let parts: Vec<Vec<(u64, u16, bool)>> = self.words[s]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(chunk, words)| {
                    let mut out = Vec::new();
                    let mut moves = MoveList::new();
                    let mut near = Neighbourhood::default();
                    for (i, word) in words.iter().enumerate() {
                        if word.load(Relaxed) & FINAL != 0 {
                            continue;
                        }
                        let idx = (chunk * CHUNK + i) as u64;
                        self.index.neighbourhood_into(idx, &mut near);
                        let board = *near.board();
                        let pos = OrthoPosition::from_board_unchecked(board, side);
                        pos.legal_moves_into(&mut moves);
                        let them = board.by_color(side.other());
                        let mut counter = 0u32;
                        for &m in moves.iter() {
                            if m.is_promotion() || them.contains(m.to()) || m.is_en_passant() {
                                continue;
                            }
                            let piece = board.piece_at(m.from()).expect("a piece moves");
                            let mut child = board;
                            child.remove_unchecked(m.from(), piece);
                            child.put_unchecked(m.to(), piece);
                            let cw = if let Some(ep) = (piece.role == Role::Pawn)
                                .then(|| ep_after(&child, side.other(), m.from(), m.to()))
                                .flatten()
                            {
                                self.word_of(self.ep_entry(&child, side.other(), ep))
                                    .load(Relaxed)
                            } else {
                                let cidx = match self.index.encode_neighbour(
                                    &near,
                                    piece,
                                    m.from(),
                                    m.to(),
                                ) {
                                    Some((c, _)) => c,
                                    None => self.index.encode(&child),
                                };
                                self.words[side.other().index()][cidx as usize].load(Relaxed)
                            };
                            if !(cw & FINAL != 0 && word_value(cw) == 4) {
                                counter += 1;
                            }
                        }
                        let b = self.ext_b[s][idx as usize].load(Relaxed);
                        let (new, decided, pend) = stalemate_start(counter, b);
                        word.store(new, Relaxed);
                        if let Some(l) = decided {
                            out.push((entry(side, idx), l, pend));
                        }
                    }
                    out
                })
                .collect();
            collect(parts);
        }
        // En passant nodes: the twin is their one internal move, left out if it is mated
        // (the worst outcome, as a move into a mate win of the opponent).
        let parts: Vec<Vec<(u64, u16, bool)>> = vec![self
            .ep
            .keys
            .par_iter()
            .enumerate()
            .filter_map(|(i, &key)| {
                let word = &self.ep.words[i];
                if word.load(Relaxed) & FINAL != 0 {
                    return None;
                }
                let (side, idx, _) = split_ep_key(key);
                let tw = self.words[side.index()][idx as usize].load(Relaxed);
                let counter = u32::from(!(tw & FINAL != 0 && word_value(tw) == 0));
                let (new, decided, pend) = stalemate_start(counter, self.ep.ext_b[i].load(Relaxed));
                word.store(new, Relaxed);
                decided.map(|l| (EP_ENTRY | i as u64, l, pend))
            })
            .collect()];
        collect(parts);
        (levels, pending)
    }
}

/// Phase B's starting word of an undecided position from its counter of internal moves
/// not into mate wins of the opponent and its external information `b`: the word, the
/// level at which it is decided or pending, and whether that is a pending win.
fn stalemate_start(counter: u32, b: u32) -> (u32, Option<u16>, bool) {
    let win3 = (b & 0xffff) as u16;
    let ext = ((b >> 16) & 0x7fff) as u16;
    let no_loss = b & B_NO_LOSS != 0;
    if win3 != NO_WIN as u16 && (win3 == 1 || counter == 0) {
        (final_word(3, win3), Some(win3), false)
    } else if win3 != NO_WIN as u16 {
        (NO_LOSS | counter, Some(win3), true)
    } else if counter == 0 && no_loss {
        (final_word(2, 0), None, false)
    } else if counter == 0 {
        (final_word(1, ext), Some(ext), false)
    } else if no_loss {
        (NO_LOSS | counter, None, false)
    } else {
        (u32::from(ext) << EXT_SHIFT | counter, None, false)
    }
}

/// Appends `e` to the list of level `l`.
fn push_level(levels: &mut Levels, l: u16, e: u64) {
    let l = usize::from(l);
    if levels.len() <= l {
        levels.resize(l + 1, Vec::new());
    }
    levels[l].push(e);
}

/// Side to move, twin index and en passant square of an en passant key.
#[inline]
fn split_ep_key(key: u64) -> (Color, u64, Square) {
    let side = if key >> 63 == 0 {
        Color::White
    } else {
        Color::Black
    };
    let idx = (key & !(1 << 63)) >> 6;
    (side, idx, Square::from_index((key & 63) as u32))
}

/// The square a pawn of `mover` reached by a double step over `ep`, and its start square.
#[inline]
fn double_step_squares(mover: Color, ep: Square) -> (Square, Square) {
    let e = ep.index() as u32;
    match mover {
        Color::White => (Square::from_index(e + 8), Square::from_index(e - 8)),
        Color::Black => (Square::from_index(e - 8), Square::from_index(e + 8)),
    }
}

/// The en passant squares of the en passant nodes with `board`, `side` to move: every pawn
/// of the other side that may just have made a double step (both squares behind it empty,
/// the position before it legal) after which `side` has a legal en passant capture.
fn ep_nodes_of(board: &Board, side: Color, mut f: impl FnMut(Square)) {
    let mover = side.other();
    let rank = match mover {
        Color::White => 3,
        Color::Black => 4,
    };
    let empty = !board.occupied();
    let pawn = Piece::new(mover, Role::Pawn);
    for to in board.by_piece(pawn) {
        if to.rank() != rank {
            continue;
        }
        let ep = match mover {
            Color::White => Square::from_index(to.index() as u32 - 8),
            Color::Black => Square::from_index(to.index() as u32 + 8),
        };
        let (_, start) = double_step_squares(mover, ep);
        if !empty.contains(ep) || !empty.contains(start) {
            continue;
        }
        if ep_after(board, side, start, to).is_none() {
            continue;
        }
        let mut before = *board;
        before.remove_unchecked(to, pawn);
        before.put_unchecked(start, pawn);
        if !in_check(&before, side) {
            f(ep);
        }
    }
}

/// Generates the Lasker table of `material` (canonical orientation), probing the tables
/// its captures and promotions lead to in `children`, with `threads` workers (0 = all).
pub fn lasker_generate(
    material: &Material,
    children: &LaskerTablebase,
    threads: usize,
) -> Result<(LaskerTableData, LaskerGenStats), TbError> {
    if !material.is_canonical() || !lasker_material_ok(material) {
        return Err(TbError::Unsupported(format!(
            "{material}: a Lasker table needs exactly one king per side, another man, and the canonical orientation"
        )));
    }
    if material.count(Color::White, Role::Pawn) > 1 && material.count(Color::Black, Role::Pawn) > 1
    {
        // Such boards can be symmetric, which the en passant nodes do not handle (6 men).
        return Err(TbError::Unsupported(format!(
            "{material}: Lasker tables with two or more pawns of each colour are not supported"
        )));
    }
    let index = TableIndex::new(material);
    let size = index.size();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TbError::Unsupported(format!("thread pool: {e}")))?;
    pool.install(|| {
        let alloc = || {
            (0..size)
                .into_par_iter()
                .map(|_| AtomicU32::new(0))
                .collect::<Vec<_>>()
        };
        let mut gen = Gen {
            index,
            children,
            words: [alloc(), alloc()],
            ext_b: [alloc(), alloc()],
            ep: EpNodes::default(),
        };
        let (mut mate, mut pending, stalemates) = gen.initialise()?;
        let both_pawns = material.count(Color::White, Role::Pawn) > 0
            && material.count(Color::Black, Role::Pawn) > 0;
        if both_pawns {
            let keys = gen.find_ep_nodes();
            let n = keys.len();
            gen.ep = EpNodes {
                keys,
                words: (0..n).map(|_| AtomicU32::new(0)).collect(),
                ext_b: (0..n).map(|_| AtomicU32::new(0)).collect(),
            };
            let (m, p) = gen.initialise_ep()?;
            for (l, list) in m.into_iter().enumerate() {
                for e in list {
                    push_level(&mut mate, l as u16, e);
                }
            }
            for (l, list) in p.into_iter().enumerate() {
                for e in list {
                    push_level(&mut pending, l as u16, e);
                }
            }
        }
        gen.run_phase(MATE, mate, pending)?;
        let (levels, pending) = gen.prepare_stalemate_phase(stalemates);
        gen.run_phase(STALEMATE, levels, pending)?;
        let mut stats = LaskerGenStats {
            indices: 2 * size,
            ep_nodes: gen.ep.keys.len() as u64,
            ..LaskerGenStats::default()
        };
        let mut codes: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
        for side in 0..2 {
            codes[side] = gen.words[side]
                .par_iter()
                .map(|w| {
                    let w = w.load(Relaxed);
                    if w == NOT_POSITION {
                        CODE_NONE
                    } else if w & FINAL == 0 {
                        LaskerValue::DRAW.code()
                    } else {
                        LaskerValue {
                            value: word_value(w),
                            depth: (w & DEPTH_MASK) as u16,
                        }
                        .code()
                    }
                })
                .collect();
            for &c in &codes[side] {
                if let Some(v) = LaskerValue::from_code(c) {
                    stats.positions += 1;
                    stats.by_value[usize::from(v.value)] += 1;
                    match v.value {
                        4 | 0 => stats.max_dtm = stats.max_dtm.max(v.depth),
                        3 | 1 => stats.max_dts = stats.max_dts.max(v.depth),
                        _ => {}
                    }
                }
            }
        }
        Ok((
            LaskerTableData {
                material: *material,
                codes,
            },
            stats,
        ))
    })
}
