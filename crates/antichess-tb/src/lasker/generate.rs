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
//! Tables with pawns of both colours, where a double step can give an en passant capture
//! (a position that is not stored but has moves inside the table), are not supported yet.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use antichess_core::attacks;
use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, MoveList, Piece, Role, Square};
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
    (e & !(1 << 63)) as usize
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
/// captures, no promotions), as (piece, square now, square before).
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
            if empty.contains(start) {
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
        let mut internal = 0u32;
        let (mut win4, mut no_loss_a, mut ext_a) = (None::<u16>, false, 0u16);
        let (mut win3, mut no_loss_b, mut ext_b) = (NO_WIN as u16, false, 0u16);
        for &m in moves.iter() {
            if !(m.is_promotion() || them.contains(m.to()) || m.is_en_passant()) {
                internal += 1;
                continue;
            }
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
        if internal > COUNTER_MASK {
            return Err(TbError::Unsupported(format!(
                "{}: more than 255 moves",
                pos.fen()
            )));
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

    /// Marks an undecided position as a win of `phase` at `level`; false if it was final.
    #[inline]
    fn mark_win(&self, side: Color, idx: u64, phase: Phase, level: u16) -> bool {
        let word = &self.words[side.index()][idx as usize];
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

    /// Takes `amount` moves of an undecided position as losing (into wins of the opponent
    /// at `level`); returns the loss level if it became a loss.
    #[inline]
    fn decrement(
        &self,
        side: Color,
        idx: u64,
        amount: u32,
        level: u16,
        phase: Phase,
    ) -> Option<u16> {
        let word = &self.words[side.index()][idx as usize];
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
                let l = (level + 1).max(ext);
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

    /// Propagates one decided position to its predecessors.
    fn retro_one(
        &self,
        e: u64,
        phase: Phase,
        out: &mut Vec<(u16, u64)>,
        preds: &mut Vec<(u64, u32)>,
        near: &mut Neighbourhood,
    ) {
        let side = entry_side(e);
        let idx = entry_idx(e);
        let v = self.words[side.index()][idx].load(Relaxed);
        let level = (v & DEPTH_MASK) as u16;
        let is_win = word_value(v) == phase.win;
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
                if self.mark_win(mover, pidx, phase, level + 1) {
                    out.push((level + 1, entry(mover, pidx)));
                }
            }
            return;
        }
        let stab = near.stab();
        if stab == 1 {
            for &(pidx, w) in preds.iter() {
                if let Some(l) = self.decrement(mover, pidx, w, level, phase) {
                    out.push((l, entry(mover, pidx)));
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
                if let Some(l) = self.decrement(mover, pidx, sum / stab, level, phase) {
                    out.push((l, entry(mover, pidx)));
                }
            }
        }
    }

    /// Runs the retrograde levels of one phase.
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
                    if self.mark_win(entry_side(e), entry_idx(e) as u64, phase, level) {
                        levels[l].push(e);
                    }
                }
            }
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
                let dl = usize::from(dl);
                if levels.len() <= dl {
                    levels.resize(dl + 1, Vec::new());
                }
                levels[dl].push(e);
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
        for side in Color::ALL {
            let s = side.index();
            let other = &self.words[side.other().index()];
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
                            let cidx =
                                match self.index.encode_neighbour(&near, piece, m.from(), m.to()) {
                                    Some((c, _)) => c,
                                    None => {
                                        let mut child = board;
                                        child.remove_unchecked(m.from(), piece);
                                        child.put_unchecked(m.to(), piece);
                                        self.index.encode(&child)
                                    }
                                };
                            let cw = other[cidx as usize].load(Relaxed);
                            if !(cw & FINAL != 0 && word_value(cw) == 4) {
                                counter += 1;
                            }
                        }
                        let b = self.ext_b[s][idx as usize].load(Relaxed);
                        let win3 = (b & 0xffff) as u16;
                        let ext = ((b >> 16) & 0x7fff) as u16;
                        let no_loss = b & B_NO_LOSS != 0;
                        let (new, decided) = if win3 != NO_WIN as u16 && (win3 == 1 || counter == 0)
                        {
                            (final_word(3, win3), Some(win3))
                        } else if win3 != NO_WIN as u16 {
                            (NO_LOSS | counter, None)
                        } else if counter == 0 && no_loss {
                            (final_word(2, 0), None)
                        } else if counter == 0 {
                            (final_word(1, ext), Some(ext))
                        } else if no_loss {
                            (NO_LOSS | counter, None)
                        } else {
                            (u32::from(ext) << EXT_SHIFT | counter, None)
                        };
                        word.store(new, Relaxed);
                        let pend = win3 != NO_WIN as u16 && decided.is_none();
                        if decided.is_some() || pend {
                            out.push((entry(side, idx), decided.unwrap_or(win3), pend));
                        }
                    }
                    out
                })
                .collect();
            for (e, l, pend) in parts.into_iter().flatten() {
                let l = usize::from(l);
                let target = if pend { &mut pending } else { &mut levels };
                if target.len() <= l {
                    target.resize(l + 1, Vec::new());
                }
                target[l].push(e);
            }
        }
        (levels, pending)
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
    if material.count(Color::White, Role::Pawn) > 0 && material.count(Color::Black, Role::Pawn) > 0
    {
        return Err(TbError::Unsupported(format!(
            "{material}: Lasker tables with pawns of both colours (where a double step can allow an en passant capture) are not supported yet"
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
        let gen = Gen {
            index,
            children,
            words: [alloc(), alloc()],
            ext_b: [alloc(), alloc()],
        };
        let (mate, pending, stalemates) = gen.initialise()?;
        gen.run_phase(MATE, mate, pending)?;
        let (levels, pending) = gen.prepare_stalemate_phase(stalemates);
        gen.run_phase(STALEMATE, levels, pending)?;
        let mut stats = LaskerGenStats {
            indices: 2 * size,
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
