//! Tables for the royal-king rule sets (`pritchard3`, `pritchard4`): which materials have
//! a table, what they depend on, their retrograde generator, and the probing rules that
//! [`crate::Tablebase`] applies under these rule sets. The generator probes the smaller
//! tables through [`crate::Tablebase`], so what the tablebase needs lives below it: the
//! probing rules in `tablebase.rs`, [`royal_table_ok`] in [`crate::material`] and
//! [`CODE_NOT_POSITION`] in [`crate::format`] (both re-exported here).
//!
//! Under these rules a side reduced to a bare king has won at once, so a material in
//! which a side has only its king needs no table (its positions are decided by the rule,
//! or cannot arise), and neither does any material without exactly one king per side.
//! Up to 4 units the tables are those of K+X against K+Y (X, Y in Q R B N P): 15
//! materials. Their files are ordinary `.actb` files (WDL + DTC, rule codes 8–11), with one
//! addition: WDL code 3 marks an index that is *not a position* — the side not to move is
//! in check (the move that led there was illegal), or an unused duplicate index of a
//! symmetric board — so that such boards are neither values nor counted.
//!
//! **The generator** is separate from the antichess one ([`crate::generate`], untouched):
//! it is a plain retrograde counter algorithm over the same index, using the core's royal
//! legality (`Position` under a royal rule set) forwards at initialisation and exact
//! legal predecessors backwards:
//!
//! 1. Initialisation: an index whose side not to move is in check is not a position. A
//!    position without legal moves is scored by the rules (mate per variant, stalemate a
//!    draw; DTC 0). Its captures and promotions are probed in the smaller tables (a capture
//!    that leaves the opponent a bare king loses at once); a winning one decides it (DTC
//!    1). Its other moves stay in the table: the counter is the number of *distinct*
//!    positions they reach.
//! 2. Level `L` (in increasing order): for each position decided at `L`, its legal
//!    predecessors by a quiet move of the side that just moved — the un-moved board must
//!    be legal (the side not to move there not in check) and the move legal in it (a
//!    capture was not compulsory there: that side was in check or had no legal capture),
//!    deduplicated. A loss makes an undecided predecessor a win at `L + 1`; a win
//!    decrements its counter, and at zero the predecessor is a loss at `L + 1` (or a draw
//!    if a capture or promotion draws).
//! 3. What is left undecided is a draw.
//!
//! **En passant.** A double step after which the opponent has a legal en passant capture
//! reaches a position `E` that is not stored. Not in check, `E`'s captures are compulsory,
//! so its value is that of its captures (fixed at initialisation). In check, `E`'s moves
//! are those of its *twin* `T` (the stored position with the same board: its evasions)
//! plus the en passant captures, so `E` is decided with `T` at `T`'s level unless an en
//! passant capture wins (DTC 1) or draws. Such nodes are kept in a side list; the double
//! step into `E` is one move of its predecessor, counted and propagated like the others;
//! the un-moves of `T` leave it out.

use std::sync::atomic::{AtomicU32, Ordering::Relaxed};

use antichess_core::orthodox::in_check;
use antichess_core::royal::is_bare_king;
use antichess_core::{attacks, Board, Color, Move, Piece, Position, Role, Rules, Square};
use rayon::prelude::*;

pub use crate::format::CODE_NOT_POSITION;
pub use crate::material::royal_table_ok;

use crate::format::TableValues;
use crate::generate::{piece_un_moves, GenStats};
use crate::index::TableIndex;
use crate::material::Material;
use crate::symmetry::{transform_board, transform_square, ALL_TRANSFORMS, PAWN_TRANSFORMS};
use crate::tablebase::Tablebase;
use crate::wdl::Wdl;
use crate::zeroed::ZeroedArray;
use crate::TbError;

/// The most units of a royal table this program builds.
pub const ROYAL_MAX_UNITS: u32 = 4;

/// The promotions under the royal rule sets' default promotion rule (no king: it is
/// royal); [`PromotionRule::QueenOnly`](antichess_core::PromotionRule) keeps the queen.
fn promotions(rules: Rules) -> &'static [Role] {
    match rules.promotion {
        antichess_core::PromotionRule::Any => {
            &[Role::Queen, Role::Rook, Role::Bishop, Role::Knight]
        }
        antichess_core::PromotionRule::QueenOnly => &[Role::Queen],
    }
}

/// The royal tables `m`'s captures and promotions lead to, canonical (captures of a
/// side's last man lead to a bare king: no table).
#[must_use]
pub fn royal_successors(m: &Material, rules: Rules) -> Vec<Material> {
    let mut out: Vec<Material> = m
        .successors(promotions(rules))
        .into_iter()
        .filter(royal_table_ok)
        .map(|n| n.canonical().0)
        .collect();
    out.sort();
    out.dedup();
    out
}

// Words: bit 31 FINAL. Final: bits 28..31 the WDL code (3 = not a position), bits 0..16
// the DTC. Undecided: bits 0..8 the counter of distinct positions reached by quiet moves
// not yet known to be won by the opponent, bit 8 a capture or promotion loses (DTC
// contribution 1), bit 24 NO_LOSS (a capture or promotion draws).
const FINAL: u32 = 1 << 31;
const NOT_POSITION: u32 = FINAL | (CODE_NOT_POSITION as u32) << 28;
const DRAW: u32 = FINAL | 1 << 28;
const COUNTER_MASK: u32 = 0xff;
const EXT_LOSS: u32 = 1 << 8;
const NO_LOSS: u32 = 1 << 24;

#[inline]
fn final_word(wdl: Wdl, dtc: u16) -> u32 {
    FINAL | u32::from(wdl.code()) << 28 | u32::from(dtc)
}

#[inline]
fn word_wdl(w: u32) -> Wdl {
    Wdl::from_code(((w >> 28) & 3) as u8).unwrap_or(Wdl::Draw)
}

/// An entry: bit 63 the side to move (1 Black), bit 62 an en passant node (its number in
/// the side list below), else a stored index.
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
fn entry_idx(e: u64) -> u64 {
    e & !(3 << 62)
}

/// Key of an en passant node: side to move, its twin's index, the en passant square in
/// the frame of the board the twin's index decodes to.
#[inline]
fn ep_key(side: Color, idx: u64, ep: Square) -> u64 {
    (side.index() as u64) << 63 | idx << 6 | ep.index() as u64
}

/// Whether a board of a royal table with `side` to move is a position: the side not to
/// move is not in check and neither side has a bare king (the material of a table has
/// one king and another man per side, so only the first can fail).
#[must_use]
pub fn is_position(board: &Board, side: Color) -> bool {
    !in_check(board, side.other())
        && !is_bare_king(board, side)
        && !is_bare_king(board, side.other())
}

/// Whether `mover` (not in check) has a legal capture on `board` (no en passant: stored
/// positions have none): whether a quiet move of `mover` is illegal there.
fn must_capture(board: &Board, mover: Color) -> bool {
    if in_check(board, mover) {
        return false;
    }
    let occupied = board.occupied();
    let targets = board.by_color(mover.other()) & !board.kings();
    if targets.is_empty() {
        return false;
    }
    for from in board.by_color(mover) {
        let piece = board.piece_at(from).expect("a piece");
        let reach = if piece.role == Role::Pawn {
            attacks::pawn_attacks(mover, from)
        } else {
            attacks::attacks(mover, piece.role, from, occupied)
        };
        for to in reach & targets {
            let victim = board.piece_at(to).expect("a victim");
            let mut after = *board;
            after.remove_unchecked(to, victim);
            after.remove_unchecked(from, piece);
            after.put_unchecked(to, piece);
            if !in_check(&after, mover) {
                return true;
            }
        }
    }
    false
}

/// The generated values of a royal table, per side to move.
#[derive(Debug)]
pub struct RoyalTable {
    pub material: Material,
    pub rules: Rules,
    words: [ZeroedArray<AtomicU32>; 2],
}

impl TableValues for RoyalTable {
    fn size(&self) -> u64 {
        self.words[0].len() as u64
    }

    #[inline]
    fn value(&self, side: usize, idx: u64) -> (u8, u16) {
        let w = self.words[side][idx as usize].load(Relaxed);
        if w & FINAL == 0 {
            (Wdl::Draw.code(), 0)
        } else {
            let code = ((w >> 28) & 7) as u8;
            let dtc = if code == Wdl::Draw.code() || code == CODE_NOT_POSITION {
                0
            } else {
                (w & 0xffff) as u16
            };
            (code, dtc)
        }
    }
}

impl RoyalTable {
    /// Writes the table into `dir` atomically. Returns the final path.
    pub fn write(&self, dir: &std::path::Path) -> Result<std::path::PathBuf, TbError> {
        crate::format::write_table(
            &self.material,
            self.rules,
            crate::format::TableKind::Exact,
            self,
            dir,
        )
    }

    /// Serialises to the file image.
    pub fn to_bytes(&self) -> Result<Vec<u8>, TbError> {
        crate::format::table_image(
            &self.material,
            self.rules,
            crate::format::TableKind::Exact,
            self,
        )
    }
}

type Levels = Vec<Vec<u64>>;

fn push_level(levels: &mut Levels, l: u16, e: u64) {
    let l = usize::from(l);
    if levels.len() <= l {
        levels.resize(l + 1, Vec::new());
    }
    levels[l].push(e);
}

struct Gen<'a> {
    index: TableIndex,
    rules: Rules,
    children: &'a Tablebase,
    transforms: &'static [u8],
    words: [ZeroedArray<AtomicU32>; 2],
    ep_keys: Vec<u64>,
    ep_words: Vec<AtomicU32>,
}

impl Gen<'_> {
    fn word(&self, e: u64) -> &AtomicU32 {
        if e & EP_ENTRY != 0 {
            &self.ep_words[entry_idx(e) as usize]
        } else {
            &self.words[entry_side(e).index()][entry_idx(e) as usize]
        }
    }

    /// Whether the stored index is a position: canonical, and [`is_position`].
    fn is_position(&self, idx: u64, board: &Board, side: Color) -> bool {
        self.index.is_canonical(idx, board) && is_position(board, side)
    }

    /// The entry of the position reached by a quiet move (a stored position or an en
    /// passant node).
    fn child_entry(&self, child: &Position) -> u64 {
        let side = child.turn();
        let idx = self.index.encode(child.board());
        match child.ep_square() {
            None => entry(side, idx),
            Some(ep) => {
                let canon = self.index.decode(idx);
                let t = self
                    .transforms
                    .iter()
                    .copied()
                    .find(|&t| transform_board(t, child.board()) == canon)
                    .expect("the canonical board is an image");
                let key = ep_key(side, idx, transform_square(t, ep));
                let i = self
                    .ep_keys
                    .binary_search(&key)
                    .expect("every en passant node is listed");
                (side.index() as u64) << 63 | EP_ENTRY | i as u64
            }
        }
    }

    /// Value for the mover of a capture or promotion (probed in the smaller tables).
    fn external(&self, pos: &Position, m: Move) -> Result<Wdl, TbError> {
        Ok(-self.children.probe_wdl_required(&pos.play(m))?)
    }

    /// The starting word of a stored position and the level at which it is decided.
    fn init_one(&self, side: Color, idx: u64) -> Result<(u32, Option<u16>), TbError> {
        let board = self.index.decode(idx);
        if !self.is_position(idx, &board, side) {
            return Ok((NOT_POSITION, None));
        }
        let pos = Position::from_board_unchecked(board, side, self.rules);
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return Ok(match Wdl::from_outcome(pos.no_move_outcome(), side) {
                Wdl::Draw => (DRAW, None),
                wdl => (final_word(wdl, 0), Some(0)),
            });
        }
        let (mut win, mut draw, mut loss) = (false, false, false);
        let mut kids: arrayvec::ArrayVec<u64, { antichess_core::MAX_MOVES }> =
            arrayvec::ArrayVec::new();
        for &m in &moves {
            if pos.is_capture(m) || m.is_promotion() {
                match self.external(&pos, m)? {
                    Wdl::Win => win = true,
                    Wdl::Draw => draw = true,
                    Wdl::Loss => loss = true,
                }
                if win {
                    break;
                }
            } else {
                let piece = board.piece_at(m.from()).expect("a piece moves");
                if piece.role == Role::Pawn && m.from().index().abs_diff(m.to().index()) == 16 {
                    // A double step may reach an en passant node.
                    kids.push(self.child_entry(&pos.play(m)));
                } else {
                    let mut child = board;
                    child.remove_unchecked(m.from(), piece);
                    child.put_unchecked(m.to(), piece);
                    kids.push(entry(side.other(), self.index.encode(&child)));
                }
            }
        }
        if win {
            return Ok((final_word(Wdl::Win, 1), Some(1)));
        }
        kids.sort_unstable();
        let mut n = 0u32;
        for (i, k) in kids.iter().enumerate() {
            if i == 0 || kids[i - 1] != *k {
                n += 1;
            }
        }
        if n == 0 {
            return Ok(if draw {
                (DRAW, None)
            } else {
                (final_word(Wdl::Loss, 1), Some(1))
            });
        }
        if n > COUNTER_MASK {
            return Err(TbError::Unsupported(format!(
                "{}: more than 255 moves",
                pos.fen()
            )));
        }
        let flags = if draw {
            NO_LOSS
        } else if loss {
            EXT_LOSS
        } else {
            0
        };
        Ok((flags | n, None))
    }

    /// The en passant nodes of stored position `idx` (`side` to move): for each pawn of
    /// the other side that may just have made a double step (both squares behind it
    /// empty, the board before it a position in which the double step is legal) after
    /// which `side` has a legal en passant capture, the node's position.
    fn ep_nodes_of(&self, board: &Board, side: Color, mut f: impl FnMut(Position)) {
        let mover = side.other();
        let (rank, back): (u8, i32) = match mover {
            Color::White => (3, -8),
            Color::Black => (4, 8),
        };
        let empty = !board.occupied();
        let pawn = Piece::new(mover, Role::Pawn);
        for to in board.by_piece(pawn) {
            if to.rank() != rank {
                continue;
            }
            let mid = Square::from_index((to.index() as i32 + back) as u32);
            let start = Square::from_index((to.index() as i32 + 2 * back) as u32);
            if !empty.contains(mid) || !empty.contains(start) {
                continue;
            }
            let mut before = *board;
            before.remove_unchecked(to, pawn);
            before.put_unchecked(start, pawn);
            // The board before must be a position, and the double step legal there (a
            // capture not compulsory): otherwise the node is never reached.
            if in_check(&before, side) || must_capture(&before, mover) {
                continue;
            }
            let after = Position::from_board_unchecked(before, mover, self.rules)
                .play(Move::normal(start, to));
            if after.ep_square().is_some() {
                f(after);
            }
        }
    }

    /// Lists the en passant nodes (sorted keys).
    fn find_ep_nodes(&self) -> Vec<u64> {
        const CHUNK: u64 = 1 << 12;
        let size = self.index.size();
        let mut keys: Vec<u64> = Color::ALL
            .into_par_iter()
            .flat_map_iter(|side| (0..size.div_ceil(CHUNK)).map(move |c| (side, c)))
            .flat_map_iter(|(side, c)| {
                let mut out = Vec::new();
                for idx in c * CHUNK..((c + 1) * CHUNK).min(size) {
                    let board = self.index.decode(idx);
                    if !self.is_position(idx, &board, side) {
                        continue;
                    }
                    self.ep_nodes_of(&board, side, |p| {
                        out.push(ep_key(
                            side,
                            idx,
                            p.ep_square().expect("an en passant node"),
                        ));
                    });
                }
                out
            })
            .collect();
        keys.sort_unstable();
        keys
    }

    /// The starting word of en passant node `i` and its level if decided.
    fn init_ep(&self, i: usize) -> Result<(u32, Option<u16>), TbError> {
        let key = self.ep_keys[i];
        let side = entry_side(key);
        let idx = (key & !(1 << 63)) >> 6;
        let ep = Square::from_index((key & 63) as u32);
        let pos = Position::from_board_with_ep_unchecked(
            self.index.decode(idx),
            side,
            Some(ep),
            self.rules,
        );
        debug_assert_eq!(pos.ep_square(), Some(ep));
        let twin = Position::from_board_unchecked(*pos.board(), side, self.rules);
        if !pos.is_check() || twin.count_moves() == 0 {
            // Every move is a capture (compulsory), or only en passant evades: decided by
            // the captures.
            let mut best = Wdl::Loss;
            for m in pos.legal_moves() {
                debug_assert!(pos.is_capture(m) || pos.is_check());
                best = best.max(self.external(&pos, m)?);
            }
            return Ok(match best {
                Wdl::Draw => (DRAW, None),
                wdl => (final_word(wdl, 1), Some(1)),
            });
        }
        let mut flags = 0;
        for m in pos.legal_moves() {
            if m.is_en_passant() {
                match self.external(&pos, m)? {
                    Wdl::Win => return Ok((final_word(Wdl::Win, 1), Some(1))),
                    Wdl::Draw => flags = NO_LOSS,
                    Wdl::Loss => {}
                }
            }
        }
        Ok((flags, None))
    }

    /// Initialises the stored positions and the en passant nodes; returns the levels.
    fn initialise(&self) -> Result<Levels, TbError> {
        const CHUNK: usize = 1 << 12;
        let mut levels = Levels::new();
        for side in Color::ALL {
            let parts: Result<Vec<Vec<(u16, u64)>>, TbError> = self.words[side.index()]
                .par_chunks(CHUNK)
                .enumerate()
                .map(|(c, words)| {
                    let mut out = Vec::new();
                    for (j, w) in words.iter().enumerate() {
                        let idx = (c * CHUNK + j) as u64;
                        let (word, level) = self.init_one(side, idx)?;
                        w.store(word, Relaxed);
                        if let Some(l) = level {
                            out.push((l, entry(side, idx)));
                        }
                    }
                    Ok(out)
                })
                .collect();
            for (l, e) in parts?.into_iter().flatten() {
                push_level(&mut levels, l, e);
            }
        }
        let parts: Result<Vec<(u16, u64)>, TbError> = (0..self.ep_keys.len())
            .into_par_iter()
            .filter_map(|i| match self.init_ep(i) {
                Ok((word, level)) => {
                    self.ep_words[i].store(word, Relaxed);
                    let side = entry_side(self.ep_keys[i]);
                    level.map(|l| Ok((l, (side.index() as u64) << 63 | EP_ENTRY | i as u64)))
                }
                Err(e) => Some(Err(e)),
            })
            .collect();
        for (l, e) in parts? {
            push_level(&mut levels, l, e);
        }
        Ok(levels)
    }

    /// The legal predecessors (canonical indices, side `mover` to move) of `board` by a
    /// quiet move of `mover` that reaches the stored position (not an en passant node).
    fn predecessors(&self, board: &Board, side: Color, idx: u64, out: &mut Vec<u64>) {
        out.clear();
        let mover = side.other();
        let occupied = board.occupied();
        let empty = !occupied;
        let mut consider = |piece: Piece, to: Square, from: Square| {
            let mut before = *board;
            before.remove_unchecked(to, piece);
            before.put_unchecked(from, piece);
            if in_check(&before, side) || must_capture(&before, mover) {
                return;
            }
            out.push(self.index.encode(&before));
        };
        piece_un_moves(board, mover, &mut consider);
        let pawn = Piece::new(mover, Role::Pawn);
        let (back, double_rank): (i32, u8) = match mover {
            Color::White => (-8, 3),
            Color::Black => (8, 4),
        };
        for to in board.by_piece(pawn) {
            if to.relative_rank(mover) < 2 {
                continue;
            }
            let from = Square::from_index((to.index() as i32 + back) as u32);
            if !empty.contains(from) {
                continue;
            }
            consider(pawn, to, from);
            if to.rank() == double_rank {
                let start = Square::from_index((to.index() as i32 + 2 * back) as u32);
                // A double step that gives an en passant capture reaches the node, not
                // this position.
                if empty.contains(start)
                    && self
                        .ep_keys
                        .binary_search(&ep_key(side, idx, from))
                        .is_err()
                {
                    consider(pawn, to, start);
                }
            }
        }
        out.sort_unstable();
        out.dedup();
    }

    /// Tells predecessor `p` (side `mover`) that one of its moves reaches a position of
    /// value `v` (for the side then to move) decided at `level`; returns the level at
    /// which `p` is decided by it.
    fn tell(&self, p: u64, v: Wdl, level: u16) -> Option<u16> {
        let word = self.word(p);
        let mut cur = word.load(Relaxed);
        loop {
            if cur & FINAL != 0 {
                return None;
            }
            let (new, decided) = match v {
                Wdl::Loss => (final_word(Wdl::Win, level + 1), Some(level + 1)),
                _ => {
                    let counter = cur & COUNTER_MASK;
                    debug_assert!(counter > 0, "counter underflow");
                    if counter > 1 {
                        (cur - 1, None)
                    } else if cur & NO_LOSS != 0 {
                        (DRAW, None)
                    } else {
                        (final_word(Wdl::Loss, level + 1), Some(level + 1))
                    }
                }
            };
            match word.compare_exchange_weak(cur, new, Relaxed, Relaxed) {
                Ok(_) => return decided,
                Err(now) => cur = now,
            }
        }
    }

    /// Propagates entry `e` decided at `level`: its en passant twins are decided at the
    /// same level (pushed to `same`), its predecessors told (pushed to `next`).
    fn retro_one(
        &self,
        e: u64,
        level: u16,
        same: &mut Vec<u64>,
        next: &mut Vec<u64>,
        preds: &mut Vec<u64>,
    ) {
        let w = self.word(e).load(Relaxed);
        debug_assert!(w & FINAL != 0);
        let v = word_wdl(w);
        let side = entry_side(e);
        let mover = side.other();
        if e & EP_ENTRY != 0 {
            let key = self.ep_keys[entry_idx(e) as usize];
            let idx = (key & !(1 << 63)) >> 6;
            let ep = Square::from_index((key & 63) as u32);
            let board = self.index.decode(idx);
            let (to, start) = match mover {
                Color::White => (
                    Square::from_index(ep.index() as u32 + 8),
                    Square::from_index(ep.index() as u32 - 8),
                ),
                Color::Black => (
                    Square::from_index(ep.index() as u32 - 8),
                    Square::from_index(ep.index() as u32 + 8),
                ),
            };
            let pawn = Piece::new(mover, Role::Pawn);
            let mut before = board;
            before.remove_unchecked(to, pawn);
            before.put_unchecked(start, pawn);
            if !in_check(&before, side) && !must_capture(&before, mover) {
                let p = entry(mover, self.index.encode(&before));
                if self.tell(p, v, level).is_some() {
                    next.push(p);
                }
            }
            return;
        }
        let idx = entry_idx(e);
        let board = self.index.decode(idx);
        if !self.ep_keys.is_empty() {
            let lo = self
                .ep_keys
                .partition_point(|&k| k < ep_key(side, idx, Square::from_index(0)));
            let mut i = lo;
            while i < self.ep_keys.len()
                && (self.ep_keys[i] & !63) == ep_key(side, idx, Square::from_index(0))
            {
                let ew = &self.ep_words[i];
                let cur = ew.load(Relaxed);
                if cur & FINAL == 0 {
                    // The twin decides the node (see the module documentation).
                    let new = match v {
                        Wdl::Win => final_word(Wdl::Win, level),
                        _ if cur & NO_LOSS != 0 => DRAW,
                        _ => final_word(Wdl::Loss, level),
                    };
                    ew.store(new, Relaxed);
                    if new != DRAW {
                        same.push((side.index() as u64) << 63 | EP_ENTRY | i as u64);
                    }
                }
                i += 1;
            }
        }
        self.predecessors(&board, side, idx, preds);
        for &q in preds.iter() {
            let p = entry(mover, q);
            if self.tell(p, v, level).is_some() {
                next.push(p);
            }
        }
    }

    fn run(&self, mut levels: Levels) {
        let mut level = 0u16;
        while usize::from(level) < levels.len() {
            let l = usize::from(level);
            while !levels[l].is_empty() {
                let current = std::mem::take(&mut levels[l]);
                let found: Vec<(Vec<u64>, Vec<u64>)> = current
                    .par_chunks(256)
                    .map(|chunk| {
                        let (mut same, mut next, mut preds) = (Vec::new(), Vec::new(), Vec::new());
                        for &e in chunk {
                            self.retro_one(e, level, &mut same, &mut next, &mut preds);
                        }
                        (same, next)
                    })
                    .collect();
                for (same, next) in found {
                    levels[l].extend(same);
                    for e in next {
                        push_level(&mut levels, level + 1, e);
                    }
                }
            }
            level += 1;
        }
    }
}

/// Generates the royal table of `material` (canonical orientation) under `rules` (a royal
/// rule set), probing the tables its captures and promotions lead to in `children`.
pub fn royal_generate(
    material: &Material,
    rules: Rules,
    children: &Tablebase,
    threads: usize,
) -> Result<(RoyalTable, GenStats), TbError> {
    if !rules.is_royal() || !material.is_canonical() || !royal_table_ok(material) {
        return Err(TbError::Unsupported(format!(
            "{material}: no {rules} table (royal tables need exactly one king and another man per side, canonical orientation)"
        )));
    }
    let index = TableIndex::new(material);
    let size = index.size();
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| TbError::Unsupported(format!("thread pool: {e}")))?;
    pool.install(|| {
        let alloc = || ZeroedArray::<AtomicU32>::new(size as usize);
        let mut gen = Gen {
            index,
            rules,
            children,
            transforms: if material.has_pawns() {
                &PAWN_TRANSFORMS
            } else {
                &ALL_TRANSFORMS
            },
            words: [alloc()?, alloc()?],
            ep_keys: Vec::new(),
            ep_words: Vec::new(),
        };
        if material.count(Color::White, Role::Pawn) > 0
            && material.count(Color::Black, Role::Pawn) > 0
        {
            gen.ep_keys = gen.find_ep_nodes();
            gen.ep_words = (0..gen.ep_keys.len()).map(|_| AtomicU32::new(0)).collect();
        }
        let timing = std::env::var_os("ANTICHESS_TB_TIMING").is_some();
        let start = std::time::Instant::now();
        let levels = gen.initialise()?;
        let initialised = start.elapsed();
        gen.run(levels);
        if timing {
            eprintln!(
                "{material}: {} en passant nodes, init {initialised:?}, retrograde {:?}",
                gen.ep_keys.len(),
                start.elapsed() - initialised
            );
        }
        let Gen { words, .. } = gen;
        let table = RoyalTable {
            material: *material,
            rules,
            words,
        };
        let mut stats = GenStats::default();
        for side in 0..2 {
            for i in 0..size {
                let (code, dtc) = table.value(side, i);
                match Wdl::from_code(code) {
                    Some(Wdl::Win) => stats.wins += 1,
                    Some(Wdl::Draw) => stats.draws += 1,
                    Some(Wdl::Loss) => stats.losses += 1,
                    None => continue,
                }
                stats.max_dtc = stats.max_dtc.max(dtc);
            }
        }
        stats.positions = stats.wins + stats.draws + stats.losses;
        Ok((table, stats))
    })
}
