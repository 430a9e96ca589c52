//! Tablebase answers in the shape of lichess's tablebase API (`category`, `dtz`,
//! `precise_dtz`, `dtm`, `checkmate`, `stalemate`, `variant_win`, `variant_loss`,
//! `insufficient_material`, and `moves` with the same fields plus `uci`, `san`, `zeroing`),
//! with our own `dtc` beside, and random positions of a given material.
//!
//! A lichess client changes only its base URL: the fields it reads are there with lichess's
//! types. `dtz` is our DTC signed as lichess signs it (positive: the side to move wins,
//! negative: it loses, 0: a draw, `null`: unknown); it counts plies to the next capture or
//! promotion (not to the next pawn move) and is exact, so `precise_dtz` is the same. We
//! have no depth to mate: `dtm` is always `null`. There is no check in this game, so
//! `checkmate` is false, except under the royal-king rule sets (`pritchard3`, `pritchard4`).
//!
//! As in lichess's API, the position's `category` is for the side to move, and a move's
//! `category` and `dtc` describe the position *after* the move, for the side then to move:
//! a move whose category is `"loss"` wins for the player making it. `dtc` is the distance
//! to conversion in plies (a capture or promotion, or the end of the game), `null` for
//! draws and unknown positions. Moves are sorted best first for the side to move. A
//! position no loaded table covers has category `"unknown"` and names the missing table in
//! `missing`.

use antichess_core::{Color, Position, Role, Rules};
use antichess_tb::{Material, MoveValue, Tablebase, Value, Wdl};
use serde::Serialize;

use crate::error::{ApiError, ApiResult};

/// A value's category for the side to move: `"win"`, `"draw"`, `"loss"` or `"unknown"`.
#[must_use]
pub fn category(value: Option<Value>) -> &'static str {
    match value {
        Some(v) => v.wdl.name(),
        None => "unknown",
    }
}

/// The tablebase's answer for one position.
#[derive(Debug, Clone, Serialize)]
pub struct TablebaseReport {
    pub fen: String,
    /// The material in our notation (`KRkb`).
    pub material: String,
    /// `"win"`, `"draw"`, `"loss"` (for the side to move) or `"unknown"`.
    pub category: &'static str,
    /// Plies to conversion; `null` for draws and unknown positions.
    pub dtc: Option<u16>,
    /// lichess's field: the DTC signed for the side to move (see the module doc).
    pub dtz: Option<i32>,
    /// lichess's field: the same as `dtz` (a DTC is never rounded).
    pub precise_dtz: Option<i32>,
    /// lichess's field: always `null` (no depth-to-mate tables).
    pub dtm: Option<i32>,
    /// lichess's field: always false (no check in this game).
    pub checkmate: bool,
    /// The side to move has pieces but no legal move.
    pub stalemate: bool,
    /// Drawn by the rules: only bishops on squares of opposite colours, which can never
    /// meet (lichess's `insufficient_material` in antichess).
    pub insufficient_material: bool,
    /// The game is over and the side to move has won (no pieces left, or stalemated where
    /// the rules score that as a win).
    pub variant_win: bool,
    /// The game is over and the side to move has lost.
    pub variant_loss: bool,
    /// The game is over, drawn (stalemate under some rule sets, or only bishops that can
    /// never meet).
    pub game_over_draw: bool,
    /// The table (canonical name) that would answer, when it is not loaded.
    pub missing: Option<String>,
    /// Every legal move, best first.
    pub moves: Vec<TablebaseMove>,
}

/// One legal move in a [`TablebaseReport`].
#[derive(Debug, Clone, Serialize)]
pub struct TablebaseMove {
    pub uci: String,
    pub san: String,
    /// Category of the position after the move, for the side then to move.
    pub category: &'static str,
    /// Plies to conversion of the position after the move.
    pub dtc: Option<u16>,
    /// lichess's field: `dtc` signed for the side to move after the move.
    pub dtz: Option<i32>,
    /// lichess's field: the same as `dtz`.
    pub precise_dtz: Option<i32>,
    /// lichess's field: always `null`.
    pub dtm: Option<i32>,
    /// lichess's field: always false.
    pub checkmate: bool,
    /// After the move, the side to move has pieces but no legal move.
    pub stalemate: bool,
    /// After the move, only bishops that can never meet are left.
    pub insufficient_material: bool,
    /// A capture or a pawn move (resets the halfmove clock), as lichess's `zeroing`.
    pub zeroing: bool,
    /// A capture or a promotion (the move itself converts).
    pub conversion: bool,
    /// The game is over after the move and the side then to move has won.
    pub variant_win: bool,
    /// The game is over after the move and the side then to move has lost.
    pub variant_loss: bool,
}

/// The value of a position: from the tables, or from the rules when the game is over.
fn value_of(tb: Option<&Tablebase>, pos: &Position) -> ApiResult<Option<Value>> {
    if let Some(outcome) = pos.outcome() {
        let wdl = Wdl::from_outcome(outcome, pos.turn());
        return Ok(Some(Value { wdl, dtc: 0 }));
    }
    match tb {
        Some(tb) => Ok(tb.probe(pos)?),
        None => Ok(None),
    }
}

/// lichess's `dtz` of a value: the DTC, positive for a win of the side to move, negative
/// for a loss, 0 for a draw, `None` when unknown.
#[must_use]
pub fn signed_dtc(value: Option<Value>) -> Option<i32> {
    let value = value?;
    Some(match value.wdl {
        Wdl::Win => i32::from(value.dtc),
        Wdl::Loss => -i32::from(value.dtc),
        Wdl::Draw => 0,
    })
}

/// Checkmate: only under the royal-king rule sets (`pritchard3`, `pritchard4`), where a
/// side in check can have no legal move; always false under the others.
fn is_checkmate(pos: &Position) -> bool {
    pos.is_check() && pos.legal_moves().is_empty()
}

/// (stalemate, insufficient material) of a position, as lichess names them.
fn end_flags(pos: &Position) -> (bool, bool) {
    // Royal-king rule sets: a bare king or a checkmate is no stalemate.
    let royal_end = pos.is_check() || (pos.rules().is_royal() && pos.has_bare_king());
    let stalemate = pos.legal_moves().is_empty() && !pos.us().is_empty() && !royal_end;
    (stalemate, !stalemate && pos.is_dead_draw())
}

fn game_over_flags(pos: &Position) -> (bool, bool, bool) {
    match pos.outcome() {
        Some(outcome) => match outcome.winner() {
            Some(w) if w == pos.turn() => (true, false, false),
            Some(_) => (false, true, false),
            None => (false, false, true),
        },
        None => (false, false, false),
    }
}

/// Probes a position and all its moves.
pub fn probe(tb: Option<&Tablebase>, pos: &Position) -> ApiResult<TablebaseReport> {
    let value = value_of(tb, pos)?;
    let material = Material::from_board(pos.board());
    let (variant_win, variant_loss, game_over_draw) = game_over_flags(pos);
    let mut known = Vec::new();
    let mut unknown = Vec::new();
    for m in pos.legal_moves() {
        let after = pos.play(m);
        let after_value = value_of(tb, &after)?;
        let (win, loss, _) = game_over_flags(&after);
        let (stalemate, insufficient_material) = end_flags(&after);
        let dtz = signed_dtc(after_value);
        let entry = TablebaseMove {
            uci: m.to_uci(),
            san: pos.san(m),
            category: category(after_value),
            dtc: after_value.and_then(Value::dtc),
            dtz,
            precise_dtz: dtz,
            dtm: None,
            checkmate: is_checkmate(&after),
            stalemate,
            insufficient_material,
            zeroing: pos.is_irreversible(m),
            conversion: pos.is_capture(m) || m.is_promotion(),
            variant_win: win,
            variant_loss: loss,
        };
        match after_value {
            Some(after) => {
                let key = MoveValue {
                    mv: m,
                    after,
                    conversion: entry.conversion,
                }
                .order_key();
                known.push((key, entry));
            }
            None => unknown.push(entry),
        }
    }
    known.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.uci.cmp(&b.1.uci)));
    unknown.sort_by(|a, b| a.san.cmp(&b.san));
    let moves: Vec<TablebaseMove> = known.into_iter().map(|(_, e)| e).chain(unknown).collect();
    let missing = match (value, tb) {
        (None, _) => Some(material.canonical().0.name()),
        _ => None,
    };
    let (stalemate, insufficient_material) = end_flags(pos);
    let dtz = signed_dtc(value);
    Ok(TablebaseReport {
        fen: pos.fen(),
        material: material.name(),
        category: category(value),
        dtc: value.and_then(Value::dtc),
        dtz,
        precise_dtz: dtz,
        dtm: None,
        checkmate: is_checkmate(pos),
        stalemate,
        insufficient_material,
        variant_win,
        variant_loss,
        game_over_draw,
        missing,
        moves,
    })
}

/// A small, fast pseudo-random generator (SplitMix64): random positions need no more.
#[derive(Debug, Clone)]
pub struct SplitMix(u64);

impl SplitMix {
    #[must_use]
    pub fn new(seed: u64) -> SplitMix {
        SplitMix(seed)
    }

    /// Seeded from the clock and a counter.
    #[must_use]
    pub fn from_time() -> SplitMix {
        use std::sync::atomic::{AtomicU64, Ordering};
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as u64);
        SplitMix(
            nanos
                ^ COUNTER
                    .fetch_add(0x9e37_79b9, Ordering::Relaxed)
                    .rotate_left(32),
        )
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next_u64()) * u128::from(n)) >> 64) as u64
    }
}

/// Parses a material signature (`KRkb`, `KRvKB`) for a random position.
pub fn parse_material(text: &str) -> ApiResult<Material> {
    let material: Material = text
        .parse()
        .map_err(|e| ApiError::bad_request(format!("material \"{text}\": {e}")))?;
    for color in Color::ALL {
        if material.side_units(color) == 0 {
            return Err(ApiError::bad_request(format!(
                "material \"{text}\": {color} has no pieces; give both sides at least one"
            )));
        }
        let pawns = material.count(color, Role::Pawn);
        if pawns > 8 || material.side_units(color) > 16 {
            return Err(ApiError::bad_request(format!(
                "material \"{text}\": too many pieces for {color}"
            )));
        }
    }
    Ok(material)
}

/// A random legal position with exactly `material` (see
/// [`Material::random_position`]; `turn` or a random side to move).
pub fn random_position(
    material: &Material,
    rules: Rules,
    turn: Option<Color>,
    rng: &mut SplitMix,
) -> ApiResult<Position> {
    material
        .random_position(rules, turn, &mut |n| rng.below(n))
        .map_err(|e| {
            ApiError::bad_request(format!(
                "material {}: no legal position found ({e})",
                material.name()
            ))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_positions_have_the_material() {
        let mut rng = SplitMix::new(7);
        for text in ["KRkb", "KPkp", "Kk", "QQQqqq"] {
            let material = parse_material(text).unwrap();
            for _ in 0..50 {
                let pos = random_position(&material, Rules::INTERNATIONAL, None, &mut rng).unwrap();
                assert_eq!(Material::from_board(pos.board()), material, "{}", pos.fen());
            }
        }
        assert!(parse_material("Kx").is_err());
        assert!(parse_material("KR").is_err());
        let black = random_position(
            &parse_material("Kk").unwrap(),
            Rules::INTERNATIONAL,
            Some(Color::Black),
            &mut rng,
        )
        .unwrap();
        assert_eq!(black.turn(), Color::Black);
    }

    #[test]
    fn game_over_positions_need_no_table() {
        // White to move has no pieces: White has won.
        let pos = Position::from_fen("8/8/8/8/8/8/8/k7 w - - 0 1", Rules::INTERNATIONAL);
        if let Ok(pos) = pos {
            let report = probe(None, &pos).unwrap();
            assert_eq!(report.category, "win");
            assert!(report.variant_win);
        }
        let pos = Position::from_fen("8/8/8/8/8/8/8/KR6 w - - 0 1", Rules::INTERNATIONAL);
        assert!(pos.is_err() || probe(None, &pos.unwrap()).is_ok());
    }
}
