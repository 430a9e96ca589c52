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
//! External moves (captures and promotions) are probed in the smaller tables: at
//! initialisation for phase A, when phase B starts for phase B (only the positions phase
//! A left undecided), and once more for a position whose counter reaches zero while one
//! of them loses (its depth is a lower bound of the loss depth). A winning external move
//! makes a *pending* win: a win at its depth unless the position is decided sooner.
//! Positions in which the side not to move is in check are illegal and never touched
//! again.
//!
//! **Memory** (docs/research/lasker-engine.md, "Memory"). Each position has one 16-bit
//! word: its final code (the file's: value and depth), or while undecided its counter and
//! two flags, or a pending win's depth. Words are updated by compare-and-swap, so each
//! level runs on many threads and a position is decided exactly once. Beside the words,
//! one *mark* bit per position: set when a position is decided or given a pending win,
//! cleared once it has been propagated. A level's positions are found by scanning the
//! marks and reading the depth in the word; no list of positions is kept. That is 2.125
//! bytes per position (both sides to move) while generating; the words then become the
//! file's codes in place.
//!
//! **En passant** ([`super::ep`]). With pawns of both colours, the position `E` reached by
//! a double step that gives the opponent an en passant capture is a node of its own, with
//! a word and a mark like a stored position: its en passant captures are external moves,
//! and it has one internal "move" of no ply into its *twin* `T`, the stored position with
//! the same board and side to move. When `T` is decided as a win at level `d`, `E` is a
//! win at `d`; when `T` is decided as a loss at `d`, `E`'s counter drops to zero and, if no
//! en passant capture escapes, `E` is a loss at `max(d, deepest loss by en passant)`.
//! Levels are re-scanned until no position of their own depth is left, so that a node
//! decided at its twin's level is propagated in that level. The double step that made `E`
//! is counted as one internal move of its predecessor, which is told by `E` (not by `T`)
//! when `E` is decided; the un-moves of `T` leave such double steps out.

use std::sync::atomic::{AtomicBool, AtomicU16, AtomicU64, Ordering::Relaxed};

use antichess_core::orthodox::{in_check, OrthoPosition};
use antichess_core::{Board, Color, Move, MoveList, Piece, Role, Square};
use rayon::prelude::*;

use super::ep::{ep_after, EpNodes};
use super::format::LaskerTableData;
use super::probe::LaskerTablebase;
use super::{lasker_material_ok, LaskerValue, CODE_NONE};
use crate::generate::piece_un_moves;
use crate::index::{Neighbourhood, TableIndex};
use crate::material::Material;
use crate::TbError;

// One 16-bit word per index and side to move (and per en passant node):
// - final: the file's code, `value << 12 | depth` (value 0..=4), below `FINAL_END`;
// - `NOT_POSITION` (the file's `CODE_NONE`): not a position;
// - undecided: `UNDECIDED | counter`, the counter (bits 0..8) of internal moves not yet
//   known to lose, `NO_LOSS` (an external move escapes the phase's loss) and `EXT_LOSS`
//   (an external move loses in the phase: its depth bounds the loss depth from below and
//   is probed again when the counter reaches zero);
// - pending: `PENDING | depth`: a win of the phase at that depth by an external move
//   unless decided sooner (never a loss, so no counter is kept).
const FINAL_END: u16 = 0x5000;
const NOT_POSITION: u16 = CODE_NONE;
const UNDECIDED: u16 = 0x8000;
const COUNTER_MASK: u16 = 0x00ff;
const NO_LOSS: u16 = 0x0100;
const EXT_LOSS: u16 = 0x0200;
const PENDING: u16 = 0xc000;
const KIND_MASK: u16 = 0xf000;
const DEPTH_MASK: u16 = 0x0fff;

#[inline]
fn final_word(value: u8, depth: u16) -> u16 {
    u16::from(value) << 12 | depth
}

#[inline]
fn is_final(w: u16) -> bool {
    w < FINAL_END
}

#[inline]
fn word_value(w: u16) -> u8 {
    (w >> 12) as u8
}

/// Whether `w` is undecided with a counter (not final, not pending, a position).
#[inline]
fn has_counter(w: u16) -> bool {
    w & 0xc000 == UNDECIDED
}

#[inline]
fn is_pending(w: u16) -> bool {
    w & KIND_MASK == PENDING
}

/// Bitmap number of the en passant nodes (0 and 1 are the sides to move).
const EP_MAP: usize = 2;

/// An entry: a stored position (side to move, index) or an en passant node.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Entry {
    Stored(Color, u64),
    Ep(usize),
}

impl Entry {
    #[inline]
    fn of(map: usize, i: u64) -> Entry {
        match map {
            0 => Entry::Stored(Color::White, i),
            1 => Entry::Stored(Color::Black, i),
            _ => Entry::Ep(i as usize),
        }
    }
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

/// What a position's external moves give, for one phase.
#[derive(Clone, Copy, Default)]
struct External {
    /// The fastest win of the phase by an external move.
    win: Option<u16>,
    /// The deepest loss of the phase by an external move (0 if none).
    loss: u16,
    /// An external move neither wins nor loses in the phase.
    escape: bool,
}

/// The starting word of an entry in `phase` from its external moves and its counter of
/// internal moves (in phase B, those not into mate wins of the opponent): the word, and
/// whether it is marked (decided or pending). Without internal moves, an escape is a draw
/// in phase B and leaves the entry undecided in phase A (phase B may still decide it).
fn start_word(ext: External, counter: u32, phase: Phase) -> (u16, bool) {
    let counter = counter as u16;
    if let Some(d) = ext.win {
        if d == 1 || counter == 0 {
            return (final_word(phase.win, d), true);
        }
        return (PENDING | d, true);
    }
    if counter == 0 && !ext.escape {
        return (final_word(phase.loss, ext.loss), true);
    }
    if counter == 0 && phase.win == STALEMATE.win {
        return (LaskerValue::DRAW.code(), false);
    }
    let flags = if ext.escape {
        NO_LOSS
    } else if ext.loss > 0 {
        EXT_LOSS
    } else {
        0
    };
    (UNDECIDED | flags | counter, false)
}

struct Gen<'a> {
    index: TableIndex,
    children: &'a LaskerTablebase,
    words: [Vec<AtomicU16>; 2],
    marks: [Vec<AtomicU64>; 2],
    ep: EpNodes,
    /// The deepest pending win of the current phase.
    pending_max: AtomicU16,
}

/// The quiet moves by which `mover` could have reached `board` inside the table (no
/// captures, no promotions), as (piece, square now, square before). Double steps after
/// which the opponent has a legal en passant capture are left out: they lead to an en
/// passant node, not to `board`'s stored position.
fn un_moves(board: &Board, mover: Color, mut f: impl FnMut(Piece, Square, Square)) {
    let occupied = board.occupied();
    let empty = !occupied;
    let ours = board.by_color(mover);
    piece_un_moves(board, mover, &mut f);
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

/// Whether `m` leaves the table of a stored position (`them`: the opponent's men).
#[inline]
fn leaves_table(m: &Move, them: antichess_core::Bitboard) -> bool {
    m.is_promotion() || them.contains(m.to()) || m.is_en_passant()
}

impl Gen<'_> {
    fn words_of(&self, map: usize) -> &[AtomicU16] {
        if map == EP_MAP {
            &self.ep.words
        } else {
            &self.words[map]
        }
    }

    fn marks_of(&self, map: usize) -> &[AtomicU64] {
        if map == EP_MAP {
            &self.ep.marks
        } else {
            &self.marks[map]
        }
    }

    #[inline]
    fn word_of(&self, e: Entry) -> &AtomicU16 {
        match e {
            Entry::Stored(side, idx) => &self.words[side.index()][idx as usize],
            Entry::Ep(i) => &self.ep.words[i],
        }
    }

    #[inline]
    fn mark(&self, e: Entry) {
        let (map, i) = match e {
            Entry::Stored(side, idx) => (side.index(), idx),
            Entry::Ep(i) => (EP_MAP, i as u64),
        };
        self.marks_of(map)[(i >> 6) as usize].fetch_or(1 << (i & 63), Relaxed);
    }

    /// The position of an entry (a node with its en passant right).
    fn position(&self, e: Entry) -> OrthoPosition {
        match e {
            Entry::Stored(side, idx) => {
                OrthoPosition::from_board_unchecked(self.index.decode(idx), side)
            }
            Entry::Ep(i) => self.ep.position(&self.index, i),
        }
    }

    /// What the external moves of `pos` give in each phase (captures, promotions and en
    /// passant captures of a stored position; the en passant captures of a node).
    fn external(
        &self,
        pos: &OrthoPosition,
        ep_node: bool,
        moves: &MoveList,
    ) -> Result<[External; 2], TbError> {
        let them = pos.board().by_color(pos.turn().other());
        let mut out = [External::default(); 2];
        for m in moves.iter() {
            let external = if ep_node {
                m.is_en_passant()
            } else {
                leaves_table(m, them)
            };
            if !external {
                continue;
            }
            let v = LaskerValue::for_mover(self.children.probe(&pos.play(*m))?);
            for (ext, phase) in out.iter_mut().zip([MATE, STALEMATE]) {
                if v.value == phase.win {
                    ext.win = Some(ext.win.map_or(v.depth, |w| w.min(v.depth)));
                } else if v.value == phase.loss {
                    ext.loss = ext.loss.max(v.depth);
                } else if phase.win == 4 || v.value >= 2 {
                    // Phase A: every other value escapes mate. Phase B: mated by an
                    // external move is no escape from a stalemate loss.
                    ext.escape = true;
                }
            }
        }
        Ok(out)
    }

    /// Phase A's starting word of one index: (word, marked).
    fn init_one(
        &self,
        idx: u64,
        side: Color,
        moves: &mut MoveList,
    ) -> Result<(u16, bool), TbError> {
        let board = self.index.decode(idx);
        if !self.index.is_canonical(idx, &board) || in_check(&board, side.other()) {
            return Ok((NOT_POSITION, false));
        }
        let pos = OrthoPosition::from_board_unchecked(board, side);
        pos.legal_moves_into(moves);
        if moves.is_empty() {
            // Mated (phase A's level 0) or stalemated (phase B's level 0).
            return Ok((final_word(u8::from(!pos.is_check()), 0), true));
        }
        let them = board.by_color(side.other());
        let internal = moves.iter().filter(|m| !leaves_table(m, them)).count() as u32;
        if internal > u32::from(COUNTER_MASK) {
            return Err(TbError::Unsupported(format!(
                "{}: more than 255 moves",
                pos.fen()
            )));
        }
        let [ext, _] = self.external(&pos, false, moves)?;
        let (w, marked) = start_word(ext, internal, MATE);
        if is_pending(w) {
            self.pending_max.fetch_max(w & DEPTH_MASK, Relaxed);
        }
        Ok((w, marked))
    }

    /// Initialises the stored positions of both sides for phase A, marking the decided
    /// ones, the pending wins and the terminal stalemates.
    fn initialise(&self) -> Result<(), TbError> {
        const CHUNK: usize = 1 << 12;
        for side in Color::ALL {
            let s = side.index();
            self.words[s]
                .par_chunks(CHUNK)
                .zip(self.marks[s].par_chunks(CHUNK / 64))
                .enumerate()
                .try_for_each(|(chunk, (words, marks))| {
                    let mut moves = MoveList::new();
                    for (i, word) in words.iter().enumerate() {
                        let idx = (chunk * CHUNK + i) as u64;
                        let (w, marked) = self.init_one(idx, side, &mut moves)?;
                        word.store(w, Relaxed);
                        if marked {
                            marks[i >> 6].fetch_or(1 << (i & 63), Relaxed);
                        }
                    }
                    Ok::<(), TbError>(())
                })?;
        }
        Ok(())
    }

    /// Initialises the en passant nodes for phase A (after the stored positions): their en
    /// passant captures are external moves, their twin one internal move.
    fn initialise_ep(&self) -> Result<(), TbError> {
        (0..self.ep.len()).into_par_iter().try_for_each(|i| {
            let pos = self.ep.position(&self.index, i);
            let moves = pos.legal_moves();
            let [ext, _] = self.external(&pos, true, &moves)?;
            let (w, marked) = start_word(ext, 1, MATE);
            if is_pending(w) {
                self.pending_max.fetch_max(w & DEPTH_MASK, Relaxed);
            }
            self.ep.words[i].store(w, Relaxed);
            if marked {
                self.mark(Entry::Ep(i));
            }
            Ok(())
        })
    }

    /// The deepest loss of `phase` by an external move of an entry (probed again when its
    /// counter reaches zero).
    fn external_loss(&self, e: Entry, phase: Phase) -> u16 {
        let pos = self.position(e);
        let moves = pos.legal_moves();
        let ext = self
            .external(&pos, matches!(e, Entry::Ep(_)), &moves)
            .expect("the tables probed at initialisation answer again");
        ext[usize::from(phase.win == STALEMATE.win)].loss
    }

    /// Makes an undecided entry a win of `phase` at `level`; false if it was final. A
    /// pending win is decided at the smaller of its depth and `level`.
    #[inline]
    fn mark_win(&self, e: Entry, phase: Phase, level: u16) -> bool {
        let word = self.word_of(e);
        let mut cur = word.load(Relaxed);
        loop {
            if is_final(cur) || cur == NOT_POSITION {
                return false;
            }
            let depth = if is_pending(cur) {
                level.min(cur & DEPTH_MASK)
            } else {
                level
            };
            match word.compare_exchange_weak(cur, final_word(phase.win, depth), Relaxed, Relaxed) {
                Ok(_) => return true,
                Err(v) => cur = v,
            }
        }
    }

    /// Takes `amount` moves of an undecided entry as losing (into wins of the opponent at
    /// `level`, or for an en passant node its twin lost at `level`: `plies` is 1 for a
    /// move, 0 for the twin); returns the loss level if it became a loss.
    #[inline]
    fn decrement(
        &self,
        e: Entry,
        amount: u32,
        level: u16,
        plies: u16,
        phase: Phase,
    ) -> Option<u16> {
        let word = self.word_of(e);
        let mut cur = word.load(Relaxed);
        let mut ext: Option<u16> = None;
        loop {
            if !has_counter(cur) {
                return None;
            }
            let counter = u32::from(cur & COUNTER_MASK);
            debug_assert!(counter >= amount, "counter underflow");
            let left = counter - amount;
            let (new, decided) = if left == 0 && cur & NO_LOSS == 0 {
                let x = if cur & EXT_LOSS != 0 {
                    *ext.get_or_insert_with(|| self.external_loss(e, phase))
                } else {
                    0
                };
                let l = (level + plies).max(x);
                (final_word(phase.loss, l), Some(l))
            } else {
                ((cur & !COUNTER_MASK) | left as u16, None)
            };
            match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return decided,
                Err(v) => cur = v,
            }
        }
    }

    /// Propagates one entry decided at `level` (word `v`) to its predecessors (and a
    /// stored position to its en passant twins), marking what it decides. Returns whether
    /// it decided an entry at `level` itself (an en passant twin) and whether it decided
    /// any.
    fn retro_one(
        &self,
        e: Entry,
        v: u16,
        phase: Phase,
        preds: &mut Vec<(u64, u32)>,
        near: &mut Neighbourhood,
    ) -> (bool, bool) {
        let level = v & DEPTH_MASK;
        let is_win = word_value(v) == phase.win;
        let (mut same, mut any) = (false, false);
        let mut decided = |p: Entry, l: u16| {
            self.mark(p);
            any = true;
            same |= l == level;
        };
        let (side, idx) = match e {
            Entry::Ep(i) => {
                // The one predecessor: the double step back.
                let (mover, board) = self.ep.predecessor(&self.index, i);
                let (pidx, w) = self.index.encode_with_stab(&board);
                debug_assert_eq!(w, 1, "no symmetric boards with pawns of both colours");
                let p = Entry::Stored(mover, pidx);
                if !is_win {
                    if self.mark_win(p, phase, level + 1) {
                        decided(p, level + 1);
                    }
                } else if let Some(l) = self.decrement(p, 1, level, 1, phase) {
                    decided(p, l);
                }
                return (same, any);
            }
            Entry::Stored(side, idx) => (side, idx),
        };
        for i in self.ep.twins_of(side, idx) {
            let twin = Entry::Ep(i);
            if is_win {
                if self.mark_win(twin, phase, level) {
                    decided(twin, level);
                }
            } else if let Some(l) = self.decrement(twin, 1, level, 0, phase) {
                decided(twin, l);
            }
        }
        self.index.neighbourhood_into(idx, near);
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
                let p = Entry::Stored(mover, pidx);
                if self.mark_win(p, phase, level + 1) {
                    decided(p, level + 1);
                }
            }
            return (same, any);
        }
        let stab = near.stab();
        if stab == 1 {
            for &(pidx, w) in preds.iter() {
                let p = Entry::Stored(mover, pidx);
                if let Some(l) = self.decrement(p, w, level, 1, phase) {
                    decided(p, l);
                }
            }
        } else {
            crate::generate::for_each_predecessor_move(preds, stab, |pidx, moves| {
                let p = Entry::Stored(mover, pidx);
                if let Some(l) = self.decrement(p, moves, level, 1, phase) {
                    decided(p, l);
                }
            });
        }
        (same, any)
    }

    /// Applies `f` in parallel to every word of the mark bitmaps (bitmap, index of its
    /// first entry, the bitmap word).
    fn scan_marks(&self, f: impl Fn(usize, u64, &AtomicU64) + Sync) {
        const MARK_CHUNK: usize = 64;
        [0, 1, EP_MAP]
            .into_par_iter()
            .flat_map_iter(|map| {
                self.marks_of(map)
                    .chunks(MARK_CHUNK)
                    .enumerate()
                    .map(move |(c, m)| (map, c, m))
            })
            .for_each(|(map, c, marks)| {
                for (j, m) in marks.iter().enumerate() {
                    f(map, ((c * MARK_CHUNK + j) as u64) << 6, m);
                }
            });
    }

    /// The calls `f(entry index, word)` for the marked entries of one bitmap word.
    #[inline]
    fn for_marked(&self, map: usize, first: u64, bits: u64, mut f: impl FnMut(u64, &AtomicU16)) {
        let words = self.words_of(map);
        let mut b = bits;
        while b != 0 {
            let i = first + u64::from(b.trailing_zeros());
            b &= b - 1;
            f(i, &words[i as usize]);
        }
    }

    /// At the start of `level`: the pending wins of that depth still undecided become
    /// wins of `phase`.
    fn resolve_pending(&self, level: u16, phase: Phase) {
        self.scan_marks(|map, first, m| {
            self.for_marked(map, first, m.load(Relaxed), |_, w| {
                if w.load(Relaxed) == PENDING | level {
                    // Only this scan changes a pending word of this depth into a win now,
                    // and `mark_win` would give the same word.
                    let _ = w.compare_exchange(
                        PENDING | level,
                        final_word(phase.win, level),
                        Relaxed,
                        Relaxed,
                    );
                }
            });
        });
    }

    /// One scan at `level`: propagates every marked entry decided at `level` in `phase`
    /// and unmarks it. Returns whether an entry was decided at `level` itself (the level
    /// must be scanned again) and whether anything of the phase is left for later levels.
    fn pass(&self, level: u16, phase: Phase) -> (bool, bool) {
        let again = AtomicBool::new(false);
        let remaining = AtomicBool::new(false);
        self.scan_marks(|map, first, m| {
            let bits = m.load(Relaxed);
            if bits == 0 {
                return;
            }
            thread_local! {
                static SCRATCH: std::cell::RefCell<(Vec<(u64, u32)>, Neighbourhood)> =
                    std::cell::RefCell::new((Vec::with_capacity(64), Neighbourhood::default()));
            }
            SCRATCH.with(|scratch| {
                let (preds, near) = &mut *scratch.borrow_mut();
                let mut done = 0u64;
                let (mut same, mut left) = (false, false);
                self.for_marked(map, first, bits, |i, w| {
                    let v = w.load(Relaxed);
                    let ours = is_pending(v)
                        || (is_final(v)
                            && (word_value(v) == phase.win || word_value(v) == phase.loss));
                    if !ours {
                        return;
                    }
                    if is_final(v) && v & DEPTH_MASK == level {
                        let (s, any) = self.retro_one(Entry::of(map, i), v, phase, preds, near);
                        same |= s;
                        left |= any;
                        done |= 1 << (i - first);
                    } else {
                        left = true;
                    }
                });
                if done != 0 {
                    m.fetch_and(!done, Relaxed);
                }
                if same {
                    again.store(true, Relaxed);
                }
                if left {
                    remaining.store(true, Relaxed);
                }
            });
        });
        (again.into_inner(), remaining.into_inner())
    }

    /// Runs the retrograde levels of one phase from the marked entries.
    fn run_phase(&self, phase: Phase) -> Result<(), TbError> {
        let mut level: u16 = 0;
        loop {
            if level <= self.pending_max.load(Relaxed) {
                self.resolve_pending(level, phase);
            }
            let remaining = loop {
                let (again, remaining) = self.pass(level, phase);
                if !again {
                    break remaining;
                }
            };
            if !remaining {
                return Ok(());
            }
            level += 1;
            if level >= DEPTH_MASK {
                return Err(TbError::Unsupported(format!(
                    "{}: depth beyond 4095 plies",
                    self.index.material()
                )));
            }
        }
    }

    /// Phase B's starting word of an entry phase A left undecided, from its counter of
    /// internal moves not into mate wins of the opponent and its external moves; marks it
    /// if decided or pending.
    fn start_stalemate(&self, e: Entry, word: &AtomicU16, counter: u32, ext: External) {
        let (w, marked) = start_word(ext, counter, STALEMATE);
        if is_pending(w) {
            self.pending_max.fetch_max(w & DEPTH_MASK, Relaxed);
        }
        word.store(w, Relaxed);
        if marked {
            self.mark(e);
        }
    }

    /// Phase B's starting words: for every entry phase A left undecided, the counter of
    /// internal moves not into mate wins of the opponent and its external moves probed
    /// again. The terminal stalemates are marked already (its level 0).
    fn prepare_stalemate_phase(&self) -> Result<(), TbError> {
        const CHUNK: usize = 1 << 12;
        self.pending_max.store(0, Relaxed);
        for side in Color::ALL {
            let s = side.index();
            self.words[s]
                .par_chunks(CHUNK)
                .enumerate()
                .try_for_each(|(chunk, words)| {
                    let mut moves = MoveList::new();
                    let mut near = Neighbourhood::default();
                    for (i, word) in words.iter().enumerate() {
                        if !has_counter(word.load(Relaxed)) {
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
                            if leaves_table(&m, them) {
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
                                let n = self.ep.lookup(&self.index, &child, side.other(), ep);
                                self.ep.words[n].load(Relaxed)
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
                            if !(is_final(cw) && word_value(cw) == MATE.win) {
                                counter += 1;
                            }
                        }
                        let [_, ext] = self.external(&pos, false, &moves)?;
                        self.start_stalemate(Entry::Stored(side, idx), word, counter, ext);
                    }
                    Ok::<(), TbError>(())
                })?;
        }
        // En passant nodes: the twin is their one internal move, left out if it is mated
        // (the worst outcome, as a move into a mate win of the opponent).
        (0..self.ep.len()).into_par_iter().try_for_each(|i| {
            let word = &self.ep.words[i];
            if !has_counter(word.load(Relaxed)) {
                return Ok(());
            }
            let (side, idx) = self.ep.twin(i);
            let tw = self.words[side.index()][idx as usize].load(Relaxed);
            let counter = u32::from(!(is_final(tw) && word_value(tw) == MATE.loss));
            let pos = self.ep.position(&self.index, i);
            let moves = pos.legal_moves();
            let [_, ext] = self.external(&pos, true, &moves)?;
            self.start_stalemate(Entry::Ep(i), word, counter, ext);
            Ok(())
        })
    }
}

/// The file's code of a word at the end: undecided is a draw.
#[inline]
fn final_code(w: u16) -> u16 {
    if is_final(w) || w == NOT_POSITION {
        w
    } else {
        debug_assert!(has_counter(w), "no pending win is left");
        LaskerValue::DRAW.code()
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
                .map(|_| AtomicU16::new(0))
                .collect::<Vec<_>>()
        };
        let alloc_marks = || {
            (0..size.div_ceil(64))
                .into_par_iter()
                .map(|_| AtomicU64::new(0))
                .collect::<Vec<_>>()
        };
        let mut gen = Gen {
            index,
            children,
            words: [alloc(), alloc()],
            marks: [alloc_marks(), alloc_marks()],
            ep: EpNodes::default(),
            pending_max: AtomicU16::new(0),
        };
        gen.initialise()?;
        let both_pawns = material.count(Color::White, Role::Pawn) > 0
            && material.count(Color::Black, Role::Pawn) > 0;
        if both_pawns {
            let words = &gen.words;
            gen.ep = EpNodes::find(&gen.index, |side, idx| {
                words[side.index()][idx as usize].load(Relaxed) != NOT_POSITION
            });
            gen.initialise_ep()?;
        }
        gen.run_phase(MATE)?;
        gen.prepare_stalemate_phase()?;
        gen.run_phase(STALEMATE)?;
        let mut stats = LaskerGenStats {
            indices: 2 * size,
            ep_nodes: gen.ep.len() as u64,
            ..LaskerGenStats::default()
        };
        let Gen { words, marks, .. } = gen;
        drop(marks);
        // The words become the codes in place (same size and alignment).
        let codes = words.map(|side| {
            side.into_iter()
                .map(|w| final_code(w.into_inner()))
                .collect::<Vec<u16>>()
        });
        for side in &codes {
            for &c in side {
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
