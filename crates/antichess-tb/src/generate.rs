//! Retrograde generation of one table (WDL and DTC, both sides to move).
//!
//! 1. **Initialisation** (a parallel pass over all indices): a position whose side to move
//!    must capture takes its value from the smaller tables its captures lead to (DTC 1); a
//!    position without legal moves is scored by the rule set (DTC 0). A quiet position
//!    probes its *external* moves — promotions (another table) and double pawn steps that
//!    give the opponent an en passant capture (that position is not stored; it is resolved
//!    by its captures) — and counts its *internal* moves, which stay in this table.
//! 2. **Retrograde passes by DTC level**: the positions decided at level `L` are taken in
//!    parallel; for each, the un-moves of the side that just moved give its predecessors.
//!    A loss at `L` makes every undecided predecessor a win at `L + 1`; a win at `L`
//!    decrements the predecessor's count of internal moves not yet known to lose, and a
//!    predecessor whose count reaches zero (and which has no drawing or winning external
//!    move) is a loss at `L + 1`. Positions fixed by a symmetry are counted with the
//!    stabiliser sizes reported by the index, so counts stay exact.
//! 3. Whatever is still undecided is a draw.
//!
//! Each position has one 16-bit word holding its value or, while undecided, its counter
//! and flags; words are updated with compare-and-swap, so passes run on many threads
//! without locks and a position is decided exactly once.

use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

use antichess_core::attacks;
use antichess_core::{
    Bitboard, Board, Color, Move, Piece, Position, PromotionRule, Role, Rules, Square,
};
use rayon::prelude::*;

use crate::format::TableData;
use crate::index::{Neighbourhood, TableIndex};
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use crate::TbError;

// One 16-bit word per position and side to move:
// - decided: bit 15 set, bit 14 = win, bits 0..14 = DTC;
// - `FIXED_DRAW`: a draw fixed at initialisation (never updated again);
// - undecided: bit 15 clear, bits 0..8 = internal moves not yet known to lose (the
//   counter), bits 8..10 = the largest DTC contribution of losing external moves (0..=2),
//   bit 10 = `NO_LOSS` (some external move draws or wins).
const RESOLVED: u16 = 0x8000;
const WIN: u16 = 0x4000;
const DTC_MASK: u16 = 0x3fff;
/// Final draw; its external-contribution field (3) never occurs in undecided words.
const FIXED_DRAW: u16 = 0x7fff;
const COUNTER_MASK: u16 = 0x00ff;
const EXT_SHIFT: u16 = 8;
const EXT_MASK: u16 = 0x0300;
const NO_LOSS: u16 = 0x0400;

#[inline]
fn is_final(v: u16) -> bool {
    v & RESOLVED != 0 || v == FIXED_DRAW
}

/// Hints the CPU to fetch the cache line of `p` (a pure performance hint).
#[inline(always)]
fn prefetch<T>(p: &T) {
    #[cfg(target_arch = "x86_64")]
    // Safety: prefetching has no architectural effect; any address is allowed.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(
            (p as *const T).cast::<i8>(),
        );
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Entries (see [`entry`]) by the level they are decided at.
type Levels = Vec<Vec<u64>>;

/// What one chunk of the initialisation found: decided entries by level, pending level-2
/// wins, and the number of positions left undecided.
type InitChunk = (Levels, Vec<u64>, u64);

/// What one chunk of a retrograde pass found: entries decided at the next level, and
/// (level, entry) pairs decided later.
type PassChunk = (Vec<u64>, Vec<(u16, u64)>);

/// An entry of a level list: side in bit 63, index below.
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

/// How the positions decided at initialisation are propagated to their predecessors.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Strategy {
    /// Forward when initialisation decided more positions than it left undecided.
    #[default]
    Auto,
    /// Generate the un-moves of every position decided at initialisation.
    Backward,
    /// Look forward once from every undecided position at its children instead: much
    /// cheaper when most positions are decided captures whose predecessors are captures
    /// too (tables with queens and rooks).
    Forward,
}

/// Progress events of one table's generation.
#[derive(Debug, Clone, Copy)]
pub enum GenEvent {
    /// Initialisation finished; `decided` positions were decided by it.
    Initialised { decided: u64 },
    /// A retrograde level finished.
    Level { level: u16, decided: u64 },
}

/// Counts of a generated table.
#[derive(Debug, Clone, Copy, Default)]
pub struct GenStats {
    pub positions: u64,
    pub wins: u64,
    pub draws: u64,
    pub losses: u64,
    pub max_dtc: u16,
}

struct Generator<'a> {
    index: TableIndex,
    rules: Rules,
    children: &'a Tablebase,
    words: [Vec<AtomicU16>; 2],
}

/// The moves of a quiet position that leave the table without capturing: promotions and
/// double steps that allow an en passant capture, with their DTC contribution (1 for a
/// promotion, 2 for the double step: the opponent's capture converts on the next ply).
fn external_moves(pos: &Position, out: &mut Vec<(Move, u16)>) {
    out.clear();
    let board = pos.board();
    let us = pos.turn();
    let our_pawns = board.by_piece(Piece::new(us, Role::Pawn));
    if our_pawns.is_empty() {
        return;
    }
    let their_pawns = board.by_piece(Piece::new(us.other(), Role::Pawn));
    let empty = !board.occupied();
    let (push, seventh, second): (i32, u8, u8) = match us {
        Color::White => (8, 6, 1),
        Color::Black => (-8, 1, 6),
    };
    for from in our_pawns & Bitboard::rank(seventh) {
        let to = Square::from_index((from.index() as i32 + push) as u32);
        if empty.contains(to) {
            match pos.rules().promotion {
                PromotionRule::Any => {
                    for role in Role::PROMOTIONS {
                        out.push((Move::new(from, to, Some(role)), 1));
                    }
                }
                PromotionRule::QueenOnly => out.push((Move::new(from, to, Some(Role::Queen)), 1)),
            }
        }
    }
    for from in our_pawns & Bitboard::rank(second) {
        let mid = Square::from_index((from.index() as i32 + push) as u32);
        let to = Square::from_index((from.index() as i32 + 2 * push) as u32);
        if empty.contains(mid)
            && empty.contains(to)
            && (attacks::pawn_attacks(us, mid) & their_pawns).any()
        {
            out.push((Move::normal(from, to), 2));
        }
    }
}
/// The quiet moves that stay in the table by which `mover` could have reached `board`
/// (not captures, not promotions, not double steps that allow en passant), reported as
/// (piece, square it stands on now, square it came from).
fn predecessors(board: &Board, mover: Color, mut f: impl FnMut(Piece, Square, Square)) {
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
    let their_pawns = board.by_piece(Piece::new(mover.other(), Role::Pawn));
    let (back, min_rank, double_rank): (i32, u8, u8) = match mover {
        Color::White => (-8, 2, 3),
        Color::Black => (8, 5, 4),
    };
    for to in ours & board.pawns() {
        let from = Square::from_index((to.index() as i32 + back) as u32);
        let rank_ok = match mover {
            Color::White => to.rank() >= min_rank,
            Color::Black => to.rank() <= min_rank,
        };
        if !rank_ok || !empty.contains(from) {
            continue;
        }
        f(pawn, to, from);
        if to.rank() == double_rank {
            let start = Square::from_index((to.index() as i32 + 2 * back) as u32);
            // After the double step the opponent must not be able to take en passant,
            // or the position reached would not be this stored one.
            let passed = from;
            if empty.contains(start)
                && (attacks::pawn_attacks(mover, passed) & their_pawns).is_empty()
            {
                f(pawn, to, start);
            }
        }
    }
}

impl Generator<'_> {
    fn child_wdl(&self, child: &Position) -> Result<Wdl, TbError> {
        self.children.probe_wdl_required(child)
    }

    /// The initial word, the level it is decided at (if decided), and whether it is a
    /// pending external win at level 2.
    fn init_one(
        &self,
        idx: u64,
        side: Color,
        ext: &mut Vec<(Move, u16)>,
    ) -> Result<(u16, Option<u16>, bool), TbError> {
        let board = self.index.decode(idx);
        if !self.index.is_canonical(idx, &board) {
            // An unused duplicate index of a symmetric position: never a predecessor,
            // never probed.
            return Ok((FIXED_DRAW, None, false));
        }
        let pos = Position::from_board_unchecked(board, side, self.rules);
        if pos.has_capture() {
            let mut best = Wdl::Loss;
            for m in pos.captures() {
                best = best.max(-self.child_wdl(&pos.play(m))?);
                if best == Wdl::Win {
                    break;
                }
            }
            return Ok(match best {
                Wdl::Win => (RESOLVED | WIN | 1, Some(1), false),
                Wdl::Loss => (RESOLVED | 1, Some(1), false),
                Wdl::Draw => (FIXED_DRAW, None, false),
            });
        }
        let moves = pos.count_moves();
        if moves == 0 {
            return Ok(match Wdl::from_outcome(pos.no_move_outcome(), side) {
                Wdl::Win => (RESOLVED | WIN, Some(0), false),
                Wdl::Loss => (RESOLVED, Some(0), false),
                Wdl::Draw => (FIXED_DRAW, None, false),
            });
        }
        external_moves(&pos, ext);
        let internal = moves - ext.len() as u32;
        if internal > u32::from(COUNTER_MASK) {
            return Err(TbError::Unsupported(format!(
                "{}: more than 255 moves",
                pos.fen()
            )));
        }
        let counter = internal as u16;
        let (mut win, mut draw, mut loss_max) = (None::<u16>, false, 0u16);
        for &(m, contribution) in ext.iter() {
            match -self.child_wdl(&pos.play(m))? {
                Wdl::Win => win = Some(win.map_or(contribution, |w| w.min(contribution))),
                Wdl::Draw => draw = true,
                Wdl::Loss => loss_max = loss_max.max(contribution),
            }
        }
        if let Some(dtc) = win {
            if dtc == 1 || internal == 0 {
                return Ok((RESOLVED | WIN | dtc, Some(dtc), false));
            }
            // A win at DTC 2 unless an internal move wins at DTC 1: decided at level 2.
            return Ok((NO_LOSS | counter, None, true));
        }
        if internal == 0 {
            return Ok(if draw {
                (FIXED_DRAW, None, false)
            } else {
                (RESOLVED | loss_max, Some(loss_max), false)
            });
        }
        let flags = if draw { NO_LOSS } else { loss_max << EXT_SHIFT };
        Ok((flags | counter, None, false))
    }

    /// Initialises both sides; returns the decided positions by level and the pending
    /// level-2 wins.
    fn initialise(&self) -> Result<InitChunk, TbError> {
        const CHUNK: usize = 1 << 14;
        let mut levels: Vec<Vec<u64>> = vec![Vec::new(); 3];
        let mut pending = Vec::new();
        let mut undecided = 0;
        for side in Color::ALL {
            let parts: Result<Vec<InitChunk>, TbError> = self.words[side.index()]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(chunk, words)| {
                    let mut lv: Vec<Vec<u64>> = vec![Vec::new(); 3];
                    let mut pend = Vec::new();
                    let mut ext = Vec::new();
                    let mut undecided = 0u64;
                    for (i, word) in words.iter().enumerate() {
                        let idx = (chunk * CHUNK + i) as u64;
                        let (value, level, is_pending) = self.init_one(idx, side, &mut ext)?;
                        word.store(value, Relaxed);
                        if let Some(l) = level {
                            lv[usize::from(l)].push(entry(side, idx));
                        }
                        if is_pending {
                            pend.push(entry(side, idx));
                        }
                        undecided += u64::from(!is_final(value));
                    }
                    Ok((lv, pend, undecided))
                })
                .collect();
            for (lv, pend, n) in parts? {
                for (l, list) in lv.into_iter().enumerate() {
                    levels[l].extend(list);
                }
                pending.extend(pend);
                undecided += n;
            }
        }
        Ok((levels, pending, undecided))
    }

    /// Takes `amount` internal moves of a predecessor as known to lose (its opponent wins
    /// after them); returns the level it is decided at if it became a loss.
    #[inline]
    fn decrement(&self, side: Color, pidx: u64, amount: u32, level: u16) -> Option<u16> {
        let word = &self.words[side.index()][pidx as usize];
        let amount = amount as u16;
        let mut cur = word.load(Relaxed);
        loop {
            if is_final(cur) {
                return None;
            }
            let counter = cur & COUNTER_MASK;
            debug_assert!(counter >= amount, "counter underflow");
            let lost = counter == amount && cur & NO_LOSS == 0;
            let l = (level + 1).max((cur & EXT_MASK) >> EXT_SHIFT);
            let new = if lost { RESOLVED | l } else { cur - amount };
            match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return lost.then_some(l),
                Err(v) => cur = v,
            }
        }
    }

    /// Marks a predecessor as won at `level`; returns whether this call decided it.
    #[inline]
    fn mark_win(&self, side: Color, pidx: u64, level: u16) -> bool {
        let word = &self.words[side.index()][pidx as usize];
        let mut cur = word.load(Relaxed);
        loop {
            if is_final(cur) {
                return false;
            }
            match word.compare_exchange_weak(cur, RESOLVED | WIN | level, Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(v) => cur = v,
            }
        }
    }

    /// The forward alternative to processing the positions decided at initialisation:
    /// every undecided position looks at its internal moves once. A move to a decided
    /// loss makes it a win pending at the next level (a later loss at a lower level may
    /// still win sooner); moves to decided wins are taken off its counter, and their
    /// largest contribution is kept as a lower bound of its loss level. Returns the
    /// positions decided (by level) and the pending wins (by level). Only positions
    /// decided at initialisation are read: all updates are applied after the pass.
    fn forward_pass(&self) -> (Vec<Vec<u64>>, Vec<Vec<u64>>) {
        const CHUNK: usize = 1 << 12;
        enum Update {
            Word(u64, u16),
            Decided(u64, u16),
            Pending(u64, u16),
        }
        let mut updates: Vec<Update> = Vec::new();
        for side in Color::ALL {
            let other = &self.words[side.other().index()];
            let parts: Vec<Vec<Update>> = self.words[side.index()]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(chunk, words)| {
                    let mut out = Vec::new();
                    let mut kids: Vec<u64> = Vec::with_capacity(64);
                    let mut near = Neighbourhood::default();
                    for (i, word) in words.iter().enumerate() {
                        let v = word.load(Relaxed);
                        if is_final(v) {
                            continue;
                        }
                        let idx = (chunk * CHUNK + i) as u64;
                        self.index.neighbourhood_into(idx, &mut near);
                        let board = *near.board();
                        let pos = Position::from_board_unchecked(board, side, self.rules);
                        let their_pawns = board.by_piece(Piece::new(side.other(), Role::Pawn));
                        // Indices of the internal children, prefetched before they are read.
                        kids.clear();
                        for m in pos.legal_moves() {
                            if m.is_promotion() {
                                continue;
                            }
                            let (from, to) = (m.from(), m.to());
                            let piece = board.piece_at(from).expect("a piece moves");
                            if piece.role == Role::Pawn && from.index().abs_diff(to.index()) == 16 {
                                let passed =
                                    Square::from_index(((from.index() + to.index()) / 2) as u32);
                                if (attacks::pawn_attacks(side, passed) & their_pawns).any() {
                                    continue; // allows en passant: an external move
                                }
                            }
                            let cidx = match self.index.encode_neighbour(&near, piece, from, to) {
                                Some((cidx, _)) => cidx,
                                None => {
                                    let mut child = board;
                                    child.remove_unchecked(from, piece);
                                    child.put_unchecked(to, piece);
                                    self.index.encode(&child)
                                }
                            };
                            prefetch(&other[cidx as usize]);
                            kids.push(cidx);
                        }
                        let (mut min_loss, mut wins, mut max_win) = (None::<u16>, 0u16, 0u16);
                        for &cidx in &kids {
                            let cw = other[cidx as usize].load(Relaxed);
                            if cw & RESOLVED != 0 {
                                let l = cw & DTC_MASK;
                                if cw & WIN != 0 {
                                    wins += 1;
                                    max_win = max_win.max(l);
                                } else {
                                    min_loss = Some(min_loss.map_or(l, |x| x.min(l)));
                                }
                            }
                        }
                        let e = entry(side, idx);
                        if let Some(l) = min_loss {
                            out.push(Update::Pending(e, l + 1));
                        } else if wins > 0 {
                            let counter = v & COUNTER_MASK;
                            debug_assert!(counter >= wins, "counter underflow");
                            let ext = ((v & EXT_MASK) >> EXT_SHIFT).max(max_win + 1);
                            if counter == wins && v & NO_LOSS == 0 {
                                out.push(Update::Decided(e, ext));
                            } else {
                                out.push(Update::Word(
                                    e,
                                    (v & NO_LOSS) | ext << EXT_SHIFT | (counter - wins),
                                ));
                            }
                        }
                    }
                    out
                })
                .collect();
            updates.extend(parts.into_iter().flatten());
        }
        let mut decided: Vec<Vec<u64>> = vec![Vec::new(); 4];
        let mut pending: Vec<Vec<u64>> = vec![Vec::new(); 4];
        for update in updates {
            let (e, word) = match update {
                Update::Word(e, w) => (e, w),
                Update::Decided(e, l) => {
                    decided[usize::from(l)].push(e);
                    (e, RESOLVED | l)
                }
                Update::Pending(e, l) => {
                    pending[usize::from(l)].push(e);
                    continue;
                }
            };
            self.words[entry_side(e).index()][(e & !(1 << 63)) as usize].store(word, Relaxed);
        }
        (decided, pending)
    }

    /// Processes one decided position: updates its predecessors, appending newly decided
    /// (level, entry) pairs to `out`.
    fn retro_one(
        &self,
        e: u64,
        out: &mut Vec<(u16, u64)>,
        preds: &mut Vec<(u64, u32)>,
        near: &mut Neighbourhood,
    ) {
        let side = entry_side(e);
        let idx = e & !(1 << 63);
        let v = self.words[side.index()][idx as usize].load(Relaxed);
        debug_assert!(v & RESOLVED != 0);
        let level = v & DTC_MASK;
        let is_win = v & WIN != 0;
        self.index.neighbourhood_into(idx, near);
        let near = &*near;
        let board = near.board();
        let mover = side.other();
        let words = &self.words[mover.index()];
        // Gather the predecessors first and prefetch their words, so that the cache misses
        // overlap. Most are indexed incrementally from this position's digits.
        preds.clear();
        predecessors(board, mover, |piece, now, before| {
            let (pidx, w) = self
                .index
                .encode_neighbour(near, piece, now, before)
                .unwrap_or_else(|| {
                    let mut prev = *board;
                    prev.remove_unchecked(now, piece);
                    prev.put_unchecked(before, piece);
                    self.index.encode_with_stab(&prev)
                });
            prefetch(&words[pidx as usize]);
            preds.push((pidx, w));
        });
        if !is_win {
            for &(pidx, _) in preds.iter() {
                if self.mark_win(mover, pidx, level + 1) {
                    out.push((level + 1, entry(mover, pidx)));
                }
            }
            return;
        }
        let stab = near.stab();
        if stab == 1 {
            for &(pidx, w) in preds.iter() {
                if let Some(l) = self.decrement(mover, pidx, w, level) {
                    out.push((l, entry(mover, pidx)));
                }
            }
        } else {
            // The board is fixed by a symmetry: several un-moves may stand for one move.
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
                if let Some(l) = self.decrement(mover, pidx, sum / stab, level) {
                    out.push((l, entry(mover, pidx)));
                }
            }
        }
    }
}

/// Generates the table of `material` (canonical orientation) under `rules`, probing the
/// tables its captures and promotions lead to in `children`. `threads` sizes the worker
/// pool (0 = all cores).
pub fn generate(
    material: &Material,
    rules: Rules,
    children: &Tablebase,
    threads: usize,
    strategy: Strategy,
    progress: &(dyn Fn(GenEvent) + Sync),
) -> Result<(TableData, GenStats), TbError> {
    if !material.is_canonical() {
        return Err(TbError::Unsupported(format!(
            "{material} is not in canonical orientation"
        )));
    }
    let index = TableIndex::new(material);
    let size = index.size();
    if size >= 1 << 62 || size > usize::MAX as u64 / 4 {
        return Err(TbError::Unsupported(format!(
            "{material} is too large to build"
        )));
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TbError::Unsupported(format!("thread pool: {e}")))?;
    let timing = std::env::var_os("ANTICHESS_TB_TIMING").is_some();
    pool.install(|| {
        let start = std::time::Instant::now();
        let alloc = || (0..size).into_par_iter().map(|_| AtomicU16::new(0)).collect::<Vec<_>>();
        let gen = Generator { index, rules, children, words: [alloc(), alloc()] };
        let (mut levels, ext_pending, undecided) = gen.initialise()?;
        progress(GenEvent::Initialised { decided: levels.iter().map(|l| l.len() as u64).sum() });
        let decided_at_init: u64 = levels.iter().map(|l| l.len() as u64).sum();
        let forward = match strategy {
            Strategy::Auto => decided_at_init > undecided,
            Strategy::Backward => false,
            Strategy::Forward => true,
        };
        // Wins that become final at the start of their level unless decided sooner.
        let mut pending: Vec<Vec<u64>> = vec![Vec::new(); 3];
        pending[2] = ext_pending;
        if forward {
            let (decided, forward_pending) = gen.forward_pass();
            levels = decided;
            for (l, list) in forward_pending.into_iter().enumerate() {
                if pending.len() <= l {
                    pending.resize(l + 1, Vec::new());
                }
                pending[l].extend(list);
            }
        }
        let initialised = start.elapsed();

        let mut level: u16 = 0;
        let remaining = |levels: &[Vec<u64>], pending: &[Vec<u64>], level: usize| {
            levels.iter().skip(level).any(|l| !l.is_empty()) || pending.iter().skip(level).any(|l| !l.is_empty())
        };
        while remaining(&levels, &pending, level as usize) {
            if levels.len() <= level as usize {
                levels.resize(level as usize + 1, Vec::new());
            }
            if let Some(list) = pending.get_mut(level as usize) {
                for e in std::mem::take(list) {
                    let word = &gen.words[entry_side(e).index()][(e & !(1 << 63)) as usize];
                    if word.load(Relaxed) & RESOLVED == 0 {
                        word.store(RESOLVED | WIN | level, Relaxed);
                        levels[level as usize].push(e);
                    }
                }
            }
            let current = std::mem::take(&mut levels[level as usize]);
            // Newly decided positions: those of the next level (nearly all) are gathered in
            // parallel; the few decided further ahead go to their lists one by one.
            let found: Vec<PassChunk> = current
                .par_chunks(1024)
                .map(|chunk| {
                    let (mut next, mut later, mut out) = (Vec::new(), Vec::new(), Vec::new());
                    let mut preds = Vec::with_capacity(64);
                    let mut near = Neighbourhood::default();
                    for &e in chunk {
                        gen.retro_one(e, &mut out, &mut preds, &mut near);
                        for (l, x) in out.drain(..) {
                            if l == level + 1 {
                                next.push(x);
                            } else {
                                later.push((l, x));
                            }
                        }
                    }
                    (next, later)
                })
                .collect();
            let next: Vec<u64> = found.par_iter().flat_map_iter(|(n, _)| n.iter().copied()).collect();
            let target = level as usize + 1;
            if levels.len() <= target {
                levels.resize(target + 1, Vec::new());
            }
            if levels[target].is_empty() {
                levels[target] = next;
            } else {
                levels[target].extend_from_slice(&next);
            }
            for (l, e) in found.into_iter().flat_map(|(_, later)| later) {
                if levels.len() <= l as usize {
                    levels.resize(l as usize + 1, Vec::new());
                }
                levels[l as usize].push(e);
            }
            progress(GenEvent::Level { level, decided: current.len() as u64 });
            level += 1;
            if level >= DTC_MASK {
                return Err(TbError::Unsupported(format!("{material}: DTC beyond {DTC_MASK} plies")));
            }
        }
        let retro = start.elapsed() - initialised;

        let mut stats = GenStats { positions: 2 * size, ..GenStats::default() };
        let mut wdl: [Vec<u8>; 2] = [Vec::new(), Vec::new()];
        let mut dtc: [Vec<u16>; 2] = [Vec::new(), Vec::new()];
        for side in 0..2 {
            let (w, d): (Vec<u8>, Vec<u16>) = gen.words[side]
                .par_iter()
                .map(|v| {
                    let v = v.load(Relaxed);
                    if v & RESOLVED != 0 {
                        (if v & WIN != 0 { Wdl::Win.code() } else { Wdl::Loss.code() }, v & DTC_MASK)
                    } else {
                        (Wdl::Draw.code(), 0)
                    }
                })
                .unzip();
            let (wins, draws, losses, max_dtc) = w
                .par_iter()
                .zip(d.par_iter())
                .fold(
                    || (0u64, 0u64, 0u64, 0u16),
                    |(wi, dr, lo, mx), (&code, &d)| match Wdl::from_code(code) {
                        Some(Wdl::Win) => (wi + 1, dr, lo, mx.max(d)),
                        Some(Wdl::Loss) => (wi, dr, lo + 1, mx.max(d)),
                        _ => (wi, dr + 1, lo, mx),
                    },
                )
                .reduce(|| (0, 0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3.max(b.3)));
            stats.wins += wins;
            stats.draws += draws;
            stats.losses += losses;
            stats.max_dtc = stats.max_dtc.max(max_dtc);
            wdl[side] = w;
            dtc[side] = d;
        }
        if timing {
            eprintln!(
                "{material}: init {initialised:?}, retrograde {retro:?} ({level} levels), finish {:?}",
                start.elapsed() - initialised - retro
            );
        }
        Ok((TableData { material: *material, rules, wdl, dtc }, stats))
    })
}
