//! PGN-style move lists: `1. e3 b5 2. Bxb5 Bb7`. Accepted and skipped: move numbers
//! (`12.`, `12...`, glued as in `1.e3`), comments (`{...}`, `;` to end of line), variations
//! in parentheses, NAGs (`$1`), tag pairs (`[Event "..."]`) and a final result token
//! (`1-0`, `0-1`, `1/2-1/2`, `*`). Moves may be SAN or UCI. Every error names the token and
//! its ply. Written the other way: [`format_moves`] and [`Game::pgn_moves`].

use crate::{Color, Error, Game, Move, Position};

/// Splits movetext into move tokens, dropping everything that is not a move. Stops at a
/// result token.
pub fn move_tokens(text: &str) -> Result<Vec<String>, Error> {
    let syntax = |token: &str, reason: &str| Error::MoveListSyntax {
        token: token.to_string(),
        reason: reason.to_string(),
    };
    let mut tokens = Vec::new();
    let mut chars = text.char_indices().peekable();
    let mut current = String::new();
    let mut finished_by: Option<String> = None;

    let flush = |current: &mut String,
                 tokens: &mut Vec<String>,
                 finished_by: &mut Option<String>|
     -> Result<(), Error> {
        if current.is_empty() {
            return Ok(());
        }
        let token = std::mem::take(current);
        if matches!(token.as_str(), "1-0" | "0-1" | "1/2-1/2" | "½-½" | "*") {
            if finished_by.is_none() {
                *finished_by = Some(token);
            }
            return Ok(());
        }
        // Strip a move number prefix: "12." "12..." "12…".
        let digits = token.chars().take_while(char::is_ascii_digit).count();
        let rest = &token[digits..];
        let move_text = if digits > 0 && (rest.starts_with('.') || rest.starts_with('…')) {
            rest.trim_start_matches(['.', '…'])
        } else {
            token.as_str()
        };
        if move_text.is_empty() {
            return Ok(());
        }
        if let Some(result) = finished_by {
            return Err(Error::MoveListSyntax {
                token: move_text.to_string(),
                reason: format!("a move after the result {result}"),
            });
        }
        tokens.push(move_text.to_string());
        Ok(())
    };

    while let Some((i, c)) = chars.next() {
        match c {
            '{' => {
                flush(&mut current, &mut tokens, &mut finished_by)?;
                let end = text[i..]
                    .find('}')
                    .ok_or_else(|| syntax(&text[i..], "comment not closed by '}'"))?;
                while chars.peek().is_some_and(|(j, _)| *j <= i + end) {
                    chars.next();
                }
            }
            ';' => {
                flush(&mut current, &mut tokens, &mut finished_by)?;
                while chars.peek().is_some_and(|(_, c)| *c != '\n') {
                    chars.next();
                }
            }
            '(' => {
                flush(&mut current, &mut tokens, &mut finished_by)?;
                let mut depth = 1;
                for (_, c) in chars.by_ref() {
                    match c {
                        '(' => depth += 1,
                        ')' => depth -= 1,
                        _ => {}
                    }
                    if depth == 0 {
                        break;
                    }
                }
                if depth != 0 {
                    return Err(syntax(&text[i..], "variation not closed by ')'"));
                }
            }
            ')' => return Err(syntax(")", "')' without a matching '('")),
            '[' => {
                flush(&mut current, &mut tokens, &mut finished_by)?;
                let end = text[i..]
                    .find(']')
                    .ok_or_else(|| syntax(&text[i..], "tag not closed by ']'"))?;
                while chars.peek().is_some_and(|(j, _)| *j <= i + end) {
                    chars.next();
                }
            }
            '$' => {
                flush(&mut current, &mut tokens, &mut finished_by)?;
                while chars.peek().is_some_and(|(_, c)| c.is_ascii_digit()) {
                    chars.next();
                }
            }
            c if c.is_whitespace() || c == ',' => {
                flush(&mut current, &mut tokens, &mut finished_by)?
            }
            c => current.push(c),
        }
    }
    flush(&mut current, &mut tokens, &mut finished_by)?;
    Ok(tokens)
}

/// Plays a move list from `start`.
pub fn play_move_text(start: Position, text: &str) -> Result<Game, Error> {
    let mut game = Game::new(start);
    for (i, token) in move_tokens(text)?.iter().enumerate() {
        let pos = *game.position();
        let label = move_label(&pos, token);
        game.play_text(token).map_err(|source| Error::MoveList {
            ply: i + 1,
            label,
            source: Box::new(source),
        })?;
    }
    Ok(game)
}

fn move_label(pos: &Position, token: &str) -> String {
    match pos.turn() {
        Color::White => format!("{}. {token}", pos.fullmoves()),
        Color::Black => format!("{}... {token}", pos.fullmoves()),
    }
}

/// Formats moves from `start` as movetext: `1. e3 b5 2. Bxb5`.
#[must_use]
pub fn format_moves(start: &Position, moves: &[Move]) -> String {
    let mut pos = *start;
    let mut out = String::new();
    for (i, m) in moves.iter().enumerate() {
        if !out.is_empty() {
            out.push(' ');
        }
        match pos.turn() {
            Color::White => out.push_str(&format!("{}. ", pos.fullmoves())),
            Color::Black if i == 0 => out.push_str(&format!("{}... ", pos.fullmoves())),
            Color::Black => {}
        }
        out.push_str(&pos.san(*m));
        pos.play_mut(*m);
    }
    out
}

impl Game {
    /// The moves as PGN movetext: `1. e3 b5 2. Bxb5` (`1... b5` when Black moves first).
    #[must_use]
    pub fn pgn_moves(&self) -> String {
        format_moves(self.start(), self.moves())
    }
}
