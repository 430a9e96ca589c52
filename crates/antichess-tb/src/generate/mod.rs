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
//! A **bound table** for colour `c` ([`TableKind::Bound`], [`generate_kind`]) is built the
//! same way, except that a move leading to a material without a table (exact, or bound
//! for `c`) is not an error: the position after it counts as a win for `c`'s opponent.
//! Captures and promotions into bound tables for `c` read those. Every value is then a
//! lower bound for `c` (minimax and the retrograde fixpoint are monotone in these leaf
//! values), so `c`'s wins are true wins.
//!
//! **Memory** (docs/research/tb-memory.md): each position has one 16-bit word holding its
//! value or, while undecided, its counter and flags; words are updated with
//! compare-and-swap, so passes run on many threads without locks and a position is decided
//! exactly once. Beside the words there is one bit per position, the *mark*: set when a
//! position is decided (or given a pending win) and cleared once it has been propagated.
//! A level's positions are found by scanning the marks (1/16 of the words' size) and
//! reading the level in the word, so no list of positions is ever kept: 2.125 bytes per
//! position (both sides to move) in all. The file image is written from the words
//! directly ([`crate::format::table_image`]).
//!
//! **Layout**: materials up to five units whose pieces other than the lead group are
//! distinct single pieces (KBNkr, KRNkp, KPkp, PPkn) are generated in [`FastIndex`]'s
//! layout (the lead orbit, then one 6-bit square field per other piece: decoding is bit
//! extraction, a move adds `(to − from) << shift`), whose slots with two pieces on one
//! square or a pawn on rank 1 or 8 are unused fixed draws. Materials with a repeated piece
//! (KBBkr, KPPkp, BBBkp, KKkk) are generated in
//! [`FastSetIndex`]'s layout (one field per group holding the colex rank of its set of
//! squares, in a mixed radix: a move changes one field). At the end the words are
//! compacted in place into the file's [`TableIndex`] order, so the file is the same. That
//! costs `orbits × 64^(n−1)` words per side during generation (48 instead of 64 for a
//! first field that is a pawn's; KBNkr: 17% more than the file's index, KRNkp 17%), or
//! the product of C(64, k) (C(48, k) for pawns) over the groups (KBBkr 16%, KPPkp 17%).
//! Every other material (most of six units and more, whose slots would be too many for
//! the memory such a build has; none of six with a repeated piece) runs on [`TableIndex`]
//! directly.

use std::sync::atomic::{AtomicU16, AtomicU64, Ordering::Relaxed};

use antichess_core::{Board, Color, Move, Piece, Position, Rules};
use rayon::prelude::*;

use crate::format::{TableKind, TableValues};
use crate::index::{FastIndex, FastSetIndex, TableIndex};
use crate::material::Material;
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use crate::zeroed::ZeroedArray;
use crate::TbError;

mod layout;
mod moves;
mod targets;
use layout::{to_file_layout, FileOrder, GenIndex};
use moves::{external_moves, internal_moves, predecessors};
pub(crate) use moves::{for_each_predecessor_move, piece_un_moves};
use targets::{capture_targets, CaptureTarget, CaptureTargets, NO_CAPTURE};

// One 16-bit word per position and side to move:
// - decided: bit 15 set, bit 14 = win, bits 0..14 = DTC;
// - `FIXED_DRAW`: a draw fixed at initialisation (never updated again);
// - undecided: bit 15 clear, bits 0..8 = internal moves not yet known to lose (the
//   counter), bits 8..10 = the largest DTC contribution of losing external moves (0..=3),
//   bit 10 = `NO_LOSS` (some external move draws or wins), bits 11..13 = the level of a
//   *pending* win (0 = none, else 1..=3: a win at that level unless decided sooner),
//   bits 13..15 clear;
// - `FORWARD_LOSS | l`: during the forward pass only, a loss at level `l` (1..=3) found by
//   it, not yet visible as decided to the positions the pass is still reading.
const RESOLVED: u16 = 0x8000;
const WIN: u16 = 0x4000;
const DTC_MASK: u16 = 0x3fff;
/// Final draw; its bits 13..15 are set, which never happens in undecided words.
const FIXED_DRAW: u16 = 0x7fff;
const COUNTER_MASK: u16 = 0x00ff;
const EXT_SHIFT: u16 = 8;
const EXT_MASK: u16 = 0x0300;
const NO_LOSS: u16 = 0x0400;
const PENDING_SHIFT: u16 = 11;
const PENDING_MASK: u16 = 0x1800;
/// The largest level a pending win or a forward-pass loss can have: wins and losses
/// decided at initialisation have DTC at most 2.
const EARLY_LEVELS: u16 = 3;
const FORWARD_LOSS: u16 = 0x7800;

#[inline]
fn is_final(v: u16) -> bool {
    v & RESOLVED != 0 || v == FIXED_DRAW
}

/// The level of a pending win in an undecided word (0 = none).
#[inline]
fn pending_level(v: u16) -> u16 {
    (v & PENDING_MASK) >> PENDING_SHIFT
}

/// `v` (undecided) with a pending win at `level`, or sooner if one was pending already.
#[inline]
fn with_pending(v: u16, level: u16) -> u16 {
    debug_assert!((1..=EARLY_LEVELS).contains(&level));
    let old = pending_level(v);
    let level = if old == 0 { level } else { old.min(level) };
    (v & !PENDING_MASK) | level << PENDING_SHIFT
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

/// Positions per work unit of the parallel scans (a multiple of 64, so that a unit owns
/// whole words of the mark bitmap).
const CHUNK: usize = 1 << 14;

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

/// A generated table: its final words, from which the file is written without copying
/// the values into other arrays.
#[derive(Debug)]
pub struct GeneratedTable {
    pub material: Material,
    pub rules: Rules,
    pub kind: TableKind,
    words: [ZeroedArray<AtomicU16>; 2],
}

impl TableValues for GeneratedTable {
    fn size(&self) -> u64 {
        self.words[0].len() as u64
    }

    #[inline]
    fn value(&self, side: usize, idx: u64) -> (u8, u16) {
        decode_final(self.words[side][idx as usize].load(Relaxed))
    }
}

impl GeneratedTable {
    /// Serialises to the file image.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TbError> {
        crate::format::table_image(&self.material, self.rules, self.kind, self)
    }

    /// Writes the table into `dir` atomically (temporary file, then rename). Returns the
    /// final path.
    pub fn write(&self, dir: &std::path::Path) -> Result<std::path::PathBuf, TbError> {
        crate::format::write_table(&self.material, self.rules, self.kind, self, dir)
    }
}

/// The WDL code and DTC of a word after generation (undecided = draw, DTC 0).
#[inline]
fn decode_final(v: u16) -> (u8, u16) {
    if v & RESOLVED != 0 {
        let code = if v & WIN != 0 {
            Wdl::Win.code()
        } else {
            Wdl::Loss.code()
        };
        (code, v & DTC_MASK)
    } else {
        (Wdl::Draw.code(), 0)
    }
}

struct Generator<'a, I: GenIndex> {
    index: I,
    rules: Rules,
    /// `Some(c)` in a bound build for `c`.
    bound: Option<Color>,
    children: &'a Tablebase,
    /// The tables captures lead to.
    captures: CaptureTargets<'a>,
    words: [ZeroedArray<AtomicU16>; 2],
    /// One bit per position: decided and not yet propagated, or a pending win.
    marks: [ZeroedArray<AtomicU64>; 2],
}

impl<I: GenIndex> Generator<'_, I> {
    fn child_wdl(&self, child: &Position) -> Result<Wdl, TbError> {
        self.children.probe_wdl_within(child, self.bound)
    }

    /// The WDL, for the opponent (to move after it), of the capture `m` by `side` on
    /// `board` (no en passant: stored positions have no en passant square), probed in the
    /// table the capture leads to without building the child position.
    #[inline]
    fn capture_wdl(&self, board: &Board, side: Color, m: Move) -> Result<Wdl, TbError> {
        let (from, to) = (m.from(), m.to());
        let mover = board.piece_at(from).expect("a piece captures");
        let captured = board.piece_at(to).expect("a capture takes a piece");
        let promo = m.promotion().map_or(0, |r| r.index() + 1);
        self.leave_wdl(board, side, m, Some(captured), mover, promo)
    }

    /// The WDL, for the opponent, of the promotion `m` without a capture by `side` on
    /// `board`, probed in the table it leads to without building the child position.
    #[inline]
    fn promotion_wdl(&self, board: &Board, side: Color, m: Move) -> Result<Wdl, TbError> {
        let pawn = board.piece_at(m.from()).expect("a pawn promotes");
        let promo = m.promotion().expect("a promotion").index() + 1;
        self.leave_wdl(board, side, m, None, pawn, promo)
    }

    /// The WDL, for the opponent, of the move `m` of `mover` that leaves the table (a
    /// capture of `captured`, a promotion to the role of index `promo - 1`, or both).
    #[inline(always)]
    fn leave_wdl(
        &self,
        board: &Board,
        side: Color,
        m: Move,
        captured: Option<Piece>,
        mover: Piece,
        promo: usize,
    ) -> Result<Wdl, TbError> {
        let (from, to) = (m.from(), m.to());
        let slot = captured.map_or(NO_CAPTURE, |c| c.role.index());
        match self.captures[side.index()][slot][promo] {
            CaptureTarget::OpponentBare => Ok(Wdl::Win),
            CaptureTarget::Table(table, swapped) => {
                let mut child = *board;
                if let Some(captured) = captured {
                    child.remove_unchecked(to, captured);
                }
                child.remove_unchecked(from, mover);
                child.put_unchecked(to, m.promotion().map_or(mover, |r| Piece::new(side, r)));
                Ok(if swapped {
                    table.wdl_of(&child.swap_colors(), side)
                } else {
                    table.wdl_of(&child, side.other())
                })
            }
            CaptureTarget::Missing(material) => Err(self.children.missing(&material)),
            CaptureTarget::Assumed(wdl) => Ok(wdl),
            CaptureTarget::Impossible => unreachable!("a capture the material does not allow"),
        }
    }

    /// Marks a position: decided and not yet propagated, or given a pending win.
    #[inline]
    fn mark(&self, side: Color, idx: u64) {
        self.marks[side.index()][(idx >> 6) as usize].fetch_or(1 << (idx & 63), Relaxed);
    }

    /// The initial word, and whether it is decided (a level to propagate).
    fn init_one(
        &self,
        idx: u64,
        side: Color,
        ext: &mut Vec<(Move, u16)>,
        decoded: &mut I::Near,
    ) -> Result<(u16, bool), TbError> {
        if !self.index.decode_used(idx, decoded) {
            // An unused index (a duplicate of a symmetric position, or pieces on one
            // square in the fast layout): never a predecessor, never probed.
            return Ok((FIXED_DRAW, false));
        }
        let board = *I::board(decoded);
        let pos = Position::from_board_unhashed(board, side, self.rules);
        if pos.has_capture() {
            let mut best = Wdl::Loss;
            for m in pos.captures() {
                best = best.max(-self.capture_wdl(&board, side, m)?);
                if best == Wdl::Win {
                    break;
                }
            }
            return Ok(match best {
                Wdl::Win => (RESOLVED | WIN | 1, true),
                Wdl::Loss => (RESOLVED | 1, true),
                Wdl::Draw => (FIXED_DRAW, false),
            });
        }
        let moves = pos.count_moves();
        if moves == 0 {
            return Ok(match Wdl::from_outcome(pos.no_move_outcome(), side) {
                Wdl::Win => (RESOLVED | WIN, true),
                Wdl::Loss => (RESOLVED, true),
                Wdl::Draw => (FIXED_DRAW, false),
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
            // A promotion goes straight to its table; a double step that allows en
            // passant stays in this material and is probed through the child position.
            let child = if m.promotion().is_some() {
                self.promotion_wdl(&board, side, m)?
            } else {
                self.child_wdl(&pos.play(m))?
            };
            match -child {
                Wdl::Win => win = Some(win.map_or(contribution, |w| w.min(contribution))),
                Wdl::Draw => draw = true,
                Wdl::Loss => loss_max = loss_max.max(contribution),
            }
        }
        if let Some(dtc) = win {
            if dtc == 1 || internal == 0 {
                return Ok((RESOLVED | WIN | dtc, true));
            }
            // A win at DTC 2 unless an internal move wins at DTC 1: pending at level 2.
            return Ok((with_pending(NO_LOSS | counter, 2), false));
        }
        if internal == 0 {
            return Ok(if draw {
                (FIXED_DRAW, false)
            } else {
                (RESOLVED | loss_max, true)
            });
        }
        let flags = if draw { NO_LOSS } else { loss_max << EXT_SHIFT };
        Ok((flags | counter, false))
    }

    /// Initialises both sides and marks the pending wins; returns the numbers of
    /// positions decided and left undecided.
    fn initialise(&self) -> Result<(u64, u64), TbError> {
        let mut totals = (0, 0);
        for side in Color::ALL {
            let marks = &self.marks[side.index()];
            let parts: Result<Vec<(u64, u64)>, TbError> = self.words[side.index()]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(chunk, words)| {
                    let mut ext = Vec::new();
                    let mut decoded = I::Near::default();
                    let (mut decided, mut undecided) = (0u64, 0u64);
                    for (i, word) in words.iter().enumerate() {
                        let idx = (chunk * CHUNK + i) as u64;
                        let (value, is_decided) =
                            self.init_one(idx, side, &mut ext, &mut decoded)?;
                        word.store(value, Relaxed);
                        decided += u64::from(is_decided);
                        if !is_final(value) {
                            undecided += 1;
                            if pending_level(value) != 0 {
                                marks[(idx >> 6) as usize].fetch_or(1 << (idx & 63), Relaxed);
                            }
                        }
                    }
                    Ok((decided, undecided))
                })
                .collect();
            for (d, u) in parts? {
                totals.0 += d;
                totals.1 += u;
            }
        }
        Ok(totals)
    }

    /// Applies `f` in parallel to every word of the mark bitmaps (side, index of its
    /// first position, the bitmap word), summing what it returns.
    fn scan_marks(&self, f: impl Fn(Color, u64, &AtomicU64) -> u64 + Sync) -> u64 {
        self.scan_marks_with(|| (), |(), side, first, m| f(side, first, m))
    }

    /// [`Generator::scan_marks`] with a scratch value made by `init` per work unit.
    fn scan_marks_with<S>(
        &self,
        init: impl Fn() -> S + Sync,
        f: impl Fn(&mut S, Color, u64, &AtomicU64) -> u64 + Sync,
    ) -> u64 {
        const MARK_CHUNK: usize = CHUNK / 64;
        Color::ALL
            .into_par_iter()
            .flat_map_iter(|side| {
                self.marks[side.index()]
                    .chunks(MARK_CHUNK)
                    .enumerate()
                    .map(move |(c, m)| (side, c, m))
            })
            .map(|(side, c, marks)| {
                let mut scratch = init();
                let mut sum = 0;
                for (j, m) in marks.iter().enumerate() {
                    sum += f(&mut scratch, side, ((c * MARK_CHUNK + j) as u64) << 6, m);
                }
                sum
            })
            .sum()
    }

    /// Marks every decided position (for backward propagation from initialisation).
    fn mark_decided(&self) {
        self.scan_marks(|side, first, m| {
            let words = &self.words[side.index()];
            let end = (first as usize + 64).min(words.len());
            let mut bits = 0u64;
            for (j, w) in words[first as usize..end].iter().enumerate() {
                if w.load(Relaxed) & RESOLVED != 0 {
                    bits |= 1 << j;
                }
            }
            if bits != 0 {
                m.fetch_or(bits, Relaxed);
            }
            0
        });
    }

    /// The calls `f(position index, word)` for the marked positions of one bitmap word.
    #[inline]
    fn for_marked(&self, side: Color, first: u64, bits: u64, mut f: impl FnMut(u64, &AtomicU16)) {
        let words = &self.words[side.index()];
        let mut b = bits;
        while b != 0 {
            let idx = first + u64::from(b.trailing_zeros());
            b &= b - 1;
            f(idx, &words[idx as usize]);
        }
    }

    /// At the start of `level` (at most [`EARLY_LEVELS`]): the pending wins of that level
    /// still undecided become wins.
    fn resolve_pending(&self, level: u16) {
        self.scan_marks(|side, first, m| {
            self.for_marked(side, first, m.load(Relaxed), |_, w| {
                let v = w.load(Relaxed);
                if v & RESOLVED == 0 && v != FIXED_DRAW && pending_level(v) == level {
                    w.store(RESOLVED | WIN | level, Relaxed);
                }
            });
            0
        });
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
    /// largest contribution is kept as a lower bound of its loss level. Only positions
    /// decided at initialisation may be read as decided: a position writes only its own
    /// word, and a loss found here is written as `FORWARD_LOSS` (undecided to the others)
    /// and made final after the pass. Every position decided or pending is marked.
    fn forward_pass(&self) {
        const FORWARD_CHUNK: usize = 1 << 12;
        for side in Color::ALL {
            let other = &self.words[side.other().index()];
            self.words[side.index()]
                .par_chunks(FORWARD_CHUNK)
                .enumerate()
                .for_each(|(chunk, words)| {
                    let mut kids: Vec<u64> = Vec::with_capacity(64);
                    let mut near = I::Near::default();
                    for (i, word) in words.iter().enumerate() {
                        let v = word.load(Relaxed);
                        if is_final(v) {
                            continue;
                        }
                        let idx = (chunk * FORWARD_CHUNK + i) as u64;
                        self.index.near_into(idx, &mut near);
                        let board = *I::board(&near);
                        // Indices of the internal children, prefetched before they are read.
                        kids.clear();
                        internal_moves(&board, side, |piece, from, to| {
                            let (cidx, _) = self.index.neighbour(&near, piece, from, to);
                            prefetch(&other[cidx as usize]);
                            kids.push(cidx);
                        });
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
                        if let Some(l) = min_loss {
                            word.store(with_pending(v, l + 1), Relaxed);
                            self.mark(side, idx);
                        } else if wins > 0 {
                            let counter = v & COUNTER_MASK;
                            debug_assert!(counter >= wins, "counter underflow");
                            let ext = ((v & EXT_MASK) >> EXT_SHIFT).max(max_win + 1);
                            debug_assert!(ext <= EARLY_LEVELS);
                            if counter == wins && v & NO_LOSS == 0 {
                                word.store(FORWARD_LOSS | ext, Relaxed);
                                self.mark(side, idx);
                            } else {
                                word.store(
                                    (v & (NO_LOSS | PENDING_MASK))
                                        | ext << EXT_SHIFT
                                        | (counter - wins),
                                    Relaxed,
                                );
                            }
                        }
                    }
                });
        }
        // The losses found by the pass become final.
        self.scan_marks(|side, first, m| {
            self.for_marked(side, first, m.load(Relaxed), |_, w| {
                let v = w.load(Relaxed);
                if v & !EARLY_LEVELS == FORWARD_LOSS {
                    w.store(RESOLVED | (v & EARLY_LEVELS), Relaxed);
                }
            });
            0
        });
    }

    /// One retrograde pass: propagates every marked position decided at `level` and
    /// unmarks it. Returns the number propagated and the number of positions marked
    /// afterwards is nonzero (something remains for later levels).
    fn pass(&self, level: u16) -> (u64, bool) {
        let remaining = std::sync::atomic::AtomicBool::new(false);
        let processed = self.scan_marks_with(
            || (Vec::with_capacity(64), I::Near::default()),
            |(preds, near), side, first, m| {
                let bits = m.load(Relaxed);
                if bits == 0 {
                    return 0;
                }
                let mut done = 0u64;
                let mut decided_more = false;
                self.for_marked(side, first, bits, |idx, w| {
                    let v = w.load(Relaxed);
                    if v & RESOLVED != 0 && v & DTC_MASK == level {
                        decided_more |= self.retro_one(side, idx, v, preds, near);
                        done |= 1 << (idx - first);
                    }
                });
                if done != bits || decided_more {
                    remaining.store(true, Relaxed);
                }
                if done != 0 {
                    m.fetch_and(!done, Relaxed);
                }
                u64::from(done.count_ones())
            },
        );
        (processed, remaining.into_inner())
    }

    /// Propagates one position decided at its level (word `v`) to its predecessors,
    /// marking those it decides; returns whether it decided any.
    fn retro_one(
        &self,
        side: Color,
        idx: u64,
        v: u16,
        preds: &mut Vec<(u64, u32)>,
        near: &mut I::Near,
    ) -> bool {
        debug_assert!(v & RESOLVED != 0);
        let level = v & DTC_MASK;
        let is_win = v & WIN != 0;
        self.index.near_into(idx, near);
        let near = &*near;
        let board = I::board(near);
        let mover = side.other();
        let words = &self.words[mover.index()];
        // Gather the predecessors first and prefetch their words, so that the cache misses
        // overlap. Most are indexed incrementally from this position's digits.
        preds.clear();
        predecessors(board, mover, |piece, now, before| {
            let (pidx, w) = self.index.neighbour(near, piece, now, before);
            prefetch(&words[pidx as usize]);
            preds.push((pidx, w));
        });
        let mut decided = false;
        if !is_win {
            for &(pidx, _) in preds.iter() {
                if self.mark_win(mover, pidx, level + 1) {
                    self.mark(mover, pidx);
                    decided = true;
                }
            }
            return decided;
        }
        let stab = I::stab(near);
        if stab == 1 {
            for &(pidx, w) in preds.iter() {
                if self.decrement(mover, pidx, w, level).is_some() {
                    self.mark(mover, pidx);
                    decided = true;
                }
            }
        } else {
            for_each_predecessor_move(preds, stab, |pidx, moves| {
                if self.decrement(mover, pidx, moves, level).is_some() {
                    self.mark(mover, pidx);
                    decided = true;
                }
            });
        }
        decided
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
) -> Result<(GeneratedTable, GenStats), TbError> {
    generate_kind(
        material,
        rules,
        TableKind::Exact,
        children,
        threads,
        strategy,
        progress,
    )
}

/// Like [`generate`], for a table of `kind`: exact, or a bound table (colours of the
/// canonical `material`), whose moves into materials without a table count as the result
/// worst for the colour it is a bound for. Bound tables exist for antichess rules only.
pub fn generate_kind(
    material: &Material,
    rules: Rules,
    kind: TableKind,
    children: &Tablebase,
    threads: usize,
    strategy: Strategy,
    progress: &(dyn Fn(GenEvent) + Sync),
) -> Result<(GeneratedTable, GenStats), TbError> {
    generate_layout(
        material,
        rules,
        kind,
        children,
        threads,
        strategy,
        progress,
        Layout::Fast,
    )
}

/// The index layout a generation runs on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Layout {
    /// The fastest that applies: [`FastIndex`], else [`FastSetIndex`], else the file's.
    Fast,
    /// [`FastSetIndex`] where it applies (also for single pieces), else the file's.
    #[cfg(test)]
    Sets,
    /// The file's [`TableIndex`].
    #[cfg(test)]
    File,
}

/// [`generate_kind`] on `layout` where it applies (a generation-only layout of at most
/// [`MAX_FAST_SIZE`] slots per side), otherwise on the file's index.
#[allow(clippy::too_many_arguments)]
fn generate_layout(
    material: &Material,
    rules: Rules,
    kind: TableKind,
    children: &Tablebase,
    threads: usize,
    strategy: Strategy,
    progress: &(dyn Fn(GenEvent) + Sync),
    layout: Layout,
) -> Result<(GeneratedTable, GenStats), TbError> {
    let bound = match kind {
        TableKind::Exact => None,
        TableKind::Bound(c) => Some(c),
    };
    if bound.is_some() && rules.is_royal() {
        return Err(TbError::Unsupported(format!(
            "bound tables are built for antichess rules, not {rules}"
        )));
    }
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
    let fast =
        FastIndex::new(material).filter(|f| layout == Layout::Fast && f.size() <= MAX_FAST_SIZE);
    let sets = FastSetIndex::new(material).filter(|f| {
        #[cfg(test)]
        if layout == Layout::File {
            return false;
        }
        fast.is_none() && material.units() <= 5 && f.size() <= MAX_FAST_SIZE
    });
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TbError::Unsupported(format!("thread pool: {e}")))?;
    let timing = std::env::var_os("ANTICHESS_TB_TIMING").is_some();
    pool.install(|| {
        let start = std::time::Instant::now();
        let run = Run {
            material,
            rules,
            bound,
            children,
            strategy,
            progress,
            timing,
        };
        let words = match (fast, sets) {
            (Some(fast), _) => run.words_via(&index, fast)?,
            (None, Some(sets)) => run.words_via(&index, sets)?,
            (None, None) => run.words(index)?,
        };
        let finishing = std::time::Instant::now();
        let table = GeneratedTable {
            material: *material,
            rules,
            kind,
            words,
        };

        let mut stats = GenStats {
            positions: 2 * size,
            ..GenStats::default()
        };
        for side in 0..2 {
            let (wins, draws, losses, max_dtc) = table.words[side]
                .par_iter()
                .fold(
                    || (0u64, 0u64, 0u64, 0u16),
                    |(wi, dr, lo, mx), w| match decode_final(w.load(Relaxed)) {
                        (code, d) if code == Wdl::Win.code() => (wi + 1, dr, lo, mx.max(d)),
                        (code, d) if code == Wdl::Loss.code() => (wi, dr, lo + 1, mx.max(d)),
                        _ => (wi, dr + 1, lo, mx),
                    },
                )
                .reduce(
                    || (0, 0, 0, 0),
                    |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2, a.3.max(b.3)),
                );
            stats.wins += wins;
            stats.draws += draws;
            stats.losses += losses;
            stats.max_dtc = stats.max_dtc.max(max_dtc);
        }
        if timing {
            eprintln!(
                "{material}: total {:?} (counting {:?})",
                start.elapsed(),
                finishing.elapsed()
            );
        }
        Ok((table, stats))
    })
}

/// The largest generation-only layout used (slots per side): tables of up to five units
/// (at most 24 × 64^4 slots, a lone pawn leading four pieces). A 6-unit material's slots would be
/// 27% more than its file's indices, and memory is what limits a 6-unit build.
const MAX_FAST_SIZE: u64 = 1 << 29;

/// One generation's parameters, for running it on either index.
struct Run<'a> {
    material: &'a Material,
    rules: Rules,
    bound: Option<Color>,
    children: &'a Tablebase,
    strategy: Strategy,
    progress: &'a (dyn Fn(GenEvent) + Sync),
    timing: bool,
}

impl Run<'_> {
    /// Generates the table's final words in the generation-only layout `fast` and moves
    /// them to `index`, the file's.
    fn words_via<F: FileOrder + Clone>(
        &self,
        index: &TableIndex,
        fast: F,
    ) -> Result<[ZeroedArray<AtomicU16>; 2], TbError> {
        let size = fast.size();
        let kind = F::NAME;
        let words = self.words(fast.clone())?;
        let converting = std::time::Instant::now();
        let words = to_file_layout(index, &fast, words, FIXED_DRAW);
        if self.timing {
            eprintln!(
                "{}: {kind} ({size} slots per side), converted to the file's index in {:?}",
                self.material,
                converting.elapsed()
            );
        }
        Ok(words)
    }

    /// Generates the table's final words in `index`'s layout.
    fn words<I: GenIndex>(&self, index: I) -> Result<[ZeroedArray<AtomicU16>; 2], TbError> {
        let Run {
            material,
            rules,
            bound,
            children,
            strategy,
            progress,
            timing,
        } = *self;
        let start = std::time::Instant::now();
        let size = index.size();
        let alloc = || ZeroedArray::<AtomicU16>::new(size as usize);
        let alloc_marks = || ZeroedArray::<AtomicU64>::new(size.div_ceil(64) as usize);
        let gen = Generator {
            index,
            rules,
            bound,
            children,
            captures: capture_targets(material, children, bound)?,
            words: [alloc()?, alloc()?],
            marks: [alloc_marks()?, alloc_marks()?],
        };
        let (decided_at_init, undecided) = gen.initialise()?;
        let probed = start.elapsed();
        progress(GenEvent::Initialised {
            decided: decided_at_init,
        });
        let forward = match strategy {
            Strategy::Auto => decided_at_init > undecided,
            Strategy::Backward => false,
            Strategy::Forward => true,
        };
        if forward {
            gen.forward_pass();
        } else {
            gen.mark_decided();
        }
        let initialised = start.elapsed();

        let mut level: u16 = 0;
        let mut remaining = gen.scan_marks(|_, _, m| u64::from(m.load(Relaxed) != 0)) > 0;
        while remaining {
            if level <= EARLY_LEVELS {
                gen.resolve_pending(level);
            }
            let (processed, more) = gen.pass(level);
            remaining = more;
            progress(GenEvent::Level {
                level,
                decided: processed,
            });
            level += 1;
            if level >= DTC_MASK {
                return Err(TbError::Unsupported(format!(
                    "{material}: DTC beyond {DTC_MASK} plies"
                )));
            }
        }
        let retro = start.elapsed() - initialised;
        if timing {
            eprintln!(
                "{material}: init {initialised:?} (probes {probed:?}, then {} {:?}), retrograde {retro:?} ({level} levels)",
                if forward { "forward pass" } else { "marks" },
                initialised - probed,
            );
        }
        let Generator { words, .. } = gen;
        Ok(words)
    }
}

#[cfg(test)]
mod tests;
