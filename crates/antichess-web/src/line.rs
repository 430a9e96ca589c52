//! Positions named in requests: a start FEN (default: the start position) and/or a move
//! list (SAN or UCI, PGN move numbers and comments allowed), or a PGN text whose `[FEN]`
//! tag gives the start. As in lichess's APIs, `_` may stand for the spaces of a `fen`
//! (`8/8/8/8/8/2k5/8/KR6_w_-_-_0_1`). Every error names the offending field or move token.

use antichess_core::{play_move_text, Game, Move, Position, Rules};

use crate::error::{ApiError, ApiResult};

/// The most plies a request may play (a bound on the work of one request).
pub const MAX_PLIES: usize = 2000;

/// A line of play: the start position and the moves from it.
#[derive(Debug, Clone)]
pub struct Line {
    pub game: Game,
    /// The position before each move and after the last (`moves.len() + 1` positions).
    pub positions: Vec<Position>,
}

impl Line {
    /// The start position.
    #[must_use]
    pub fn start(&self) -> &Position {
        self.game.start()
    }

    /// The moves played.
    #[must_use]
    pub fn moves(&self) -> &[Move] {
        self.game.moves()
    }

    /// The position reached.
    #[must_use]
    pub fn position(&self) -> &Position {
        self.game.position()
    }

    /// The moves in UCI, space-separated (what the pages put in their URLs).
    #[must_use]
    pub fn uci_text(&self) -> String {
        self.moves()
            .iter()
            .map(|m| m.to_uci())
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// Splits PGN text into its `[FEN "..."]` tag value (if any) and its movetext (the tag
/// pairs removed).
fn split_pgn(pgn: &str) -> (Option<String>, String) {
    let mut fen = None;
    let mut movetext = String::new();
    for line in pgn.lines() {
        let trimmed = line.trim();
        if trimmed.starts_with('[') && trimmed.ends_with(']') {
            let inner = &trimmed[1..trimmed.len() - 1];
            if let Some((name, value)) = inner.split_once(char::is_whitespace) {
                if name.eq_ignore_ascii_case("fen") {
                    fen = Some(value.trim().trim_matches('"').to_string());
                }
            }
            continue;
        }
        movetext.push_str(line);
        movetext.push('\n');
    }
    (fen, movetext)
}

fn nonempty(text: Option<&str>) -> Option<&str> {
    text.map(str::trim).filter(|t| !t.is_empty())
}

/// Parses a request's position: `fen` (default: the start position, or a PGN `[FEN]`
/// tag; `_` stands for a space), then the moves of `pgn`, then `moves`.
pub fn parse_line(
    rules: Rules,
    fen: Option<&str>,
    moves: Option<&str>,
    pgn: Option<&str>,
) -> ApiResult<Line> {
    let (pgn_fen, pgn_moves) = match nonempty(pgn) {
        Some(pgn) => {
            let (fen, moves) = split_pgn(pgn);
            (fen, Some(moves))
        }
        None => (None, None),
    };
    // No FEN has an underscore: lichess's clients write them for spaces.
    let fen = fen.map(|f| f.replace('_', " "));
    let start = match nonempty(fen.as_deref()).map(str::to_string).or(pgn_fen) {
        Some(fen) => Position::from_fen(&fen, rules)
            .map_err(|e| ApiError::bad_request(format!("fen \"{fen}\": {e}")))?,
        None => Position::start(rules),
    };
    let mut text = String::new();
    if let Some(pgn_moves) = pgn_moves {
        text.push_str(&pgn_moves);
        text.push(' ');
    }
    if let Some(moves) = nonempty(moves) {
        text.push_str(moves);
    }
    let tokens = text.split_whitespace().count();
    if tokens > MAX_PLIES * 3 {
        return Err(ApiError::bad_request(format!(
            "the move list is too long ({tokens} tokens; at most {MAX_PLIES} plies)"
        )));
    }
    let game =
        play_move_text(start, &text).map_err(|e| ApiError::bad_request(format!("moves: {e}")))?;
    if game.moves().len() > MAX_PLIES {
        return Err(ApiError::bad_request(format!(
            "the move list is too long ({} plies; at most {MAX_PLIES})",
            game.moves().len()
        )));
    }
    let mut positions = Vec::with_capacity(game.moves().len() + 1);
    let mut pos = start;
    positions.push(pos);
    for &m in game.moves() {
        pos = pos.play(m);
        positions.push(pos);
    }
    Ok(Line { game, positions })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_from_fen_moves_and_pgn() {
        let rules = Rules::INTERNATIONAL;
        let line = parse_line(rules, None, Some("e3 b5 Bxb5"), None).unwrap();
        assert_eq!(line.uci_text(), "e2e3 b7b5 f1b5");
        assert_eq!(line.positions.len(), 4);
        let pgn = "[Event \"x\"]\n[FEN \"8/8/8/8/8/p7/8/1N6 w - - 0 1\"]\n\n1. Nxa3 *";
        let line = parse_line(rules, None, None, Some(pgn)).unwrap();
        assert_eq!(line.position().fen(), "8/8/8/8/8/N7/8/8 b - - 0 1");
        // Underscores for spaces, as lichess's clients write a FEN in a URL.
        let under = parse_line(rules, Some("8/8/8/8/8/p7/8/1N6_w_-_-_0_1"), None, None).unwrap();
        assert_eq!(under.position().fen(), "8/8/8/8/8/p7/8/1N6 w - - 0 1");
        let err = parse_line(rules, Some("8/8/8 w - - 0 1"), None, None).unwrap_err();
        assert!(err.message.contains("fen"), "{}", err.message);
        let err = parse_line(rules, None, Some("e3 e5 Nc4"), None).unwrap_err();
        assert!(err.message.contains("Nc4"), "{}", err.message);
    }
}
