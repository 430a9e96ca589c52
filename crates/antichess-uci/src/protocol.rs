//! The UCI protocol's text: one input line parsed into a [`Command`] (or a [`UciError`]
//! naming what is wrong with it), and the parameters of `go` ([`GoParams`]). Nothing here
//! knows about positions or rules: `position` keeps its FEN and moves as text, which the
//! engine checks against the rules.
//!
//! Tolerant as GUIs expect: words are separated by any whitespace, a negative clock (some
//! GUIs send one when a player's time ran out) counts as 0, and `setoption` names may hold
//! spaces (`setoption name Move Overhead value 30`).

use crate::UciError;

/// One command of the protocol.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Command {
    /// An empty line (ignored).
    Empty,
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    UciNewGame,
    Position {
        start: Start,
        moves: Vec<String>,
    },
    Go(GoParams),
    Stop,
    PonderHit,
    Quit,
}

/// Where `position` starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Start {
    StartPos,
    Fen(String),
}

/// The parameters of `go`. Times are in milliseconds.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GoParams {
    pub wtime: Option<u64>,
    pub btime: Option<u64>,
    pub winc: Option<u64>,
    pub binc: Option<u64>,
    pub movestogo: Option<u32>,
    pub depth: Option<u32>,
    pub nodes: Option<u64>,
    pub mate: Option<u32>,
    pub movetime: Option<u64>,
    pub infinite: bool,
    pub ponder: bool,
    /// `searchmoves`: restrict the choice to these moves (UCI text, checked later).
    pub searchmoves: Vec<String>,
}

/// Parses one line of input.
///
/// # Errors
/// An unknown command, or a known one with arguments it cannot use; the message names them.
pub fn parse(line: &str) -> Result<Command, UciError> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let Some((&first, rest)) = words.split_first() else {
        return Ok(Command::Empty);
    };
    match first {
        "uci" => Ok(Command::Uci),
        "isready" => Ok(Command::IsReady),
        "ucinewgame" => Ok(Command::UciNewGame),
        "stop" => Ok(Command::Stop),
        "ponderhit" => Ok(Command::PonderHit),
        "quit" => Ok(Command::Quit),
        "debug" => match rest.first().copied() {
            Some("on") => Ok(Command::Debug(true)),
            Some("off") | None => Ok(Command::Debug(false)),
            Some(other) => Err(bad(
                "debug",
                format!("expected 'on' or 'off', got '{other}'"),
            )),
        },
        "setoption" => parse_setoption(rest),
        "position" => parse_position(rest),
        "go" => parse_go(rest).map(Command::Go),
        _ => Err(UciError::UnknownCommand(shorten(first))),
    }
}

fn bad(command: &'static str, message: String) -> UciError {
    UciError::BadArgument { command, message }
}

/// At most 60 characters of a token, for messages about garbage.
fn shorten(token: &str) -> String {
    let mut out: String = token.chars().take(60).collect();
    if out.len() < token.len() {
        out.push('…');
    }
    out
}

fn parse_setoption(words: &[&str]) -> Result<Command, UciError> {
    if words.first() != Some(&"name") {
        return Err(bad(
            "setoption",
            "expected 'setoption name <name> [value <value>]'".into(),
        ));
    }
    let words = &words[1..];
    let split = words.iter().position(|w| *w == "value");
    let (name, value) = match split {
        Some(i) => (&words[..i], Some(words[i + 1..].join(" "))),
        None => (words, None),
    };
    if name.is_empty() {
        return Err(bad("setoption", "the option has no name".into()));
    }
    Ok(Command::SetOption {
        name: name.join(" "),
        value,
    })
}

fn parse_position(words: &[&str]) -> Result<Command, UciError> {
    let moves_at = words.iter().position(|w| *w == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (&words[..i], &words[i + 1..]),
        None => (words, &[][..]),
    };
    let start = match head.split_first() {
        Some((&"startpos", [])) => Start::StartPos,
        Some((&"startpos", extra)) => {
            return Err(bad(
                "position",
                format!("unexpected '{}' after 'startpos'", shorten(extra[0])),
            ))
        }
        Some((&"fen", fen)) if !fen.is_empty() => Start::Fen(fen.join(" ")),
        Some((&"fen", _)) => return Err(bad("position", "'fen' without a FEN".into())),
        Some((other, _)) => {
            return Err(bad(
                "position",
                format!("expected 'startpos' or 'fen', got '{}'", shorten(other)),
            ))
        }
        None => return Err(bad("position", "expected 'startpos' or 'fen <FEN>'".into())),
    };
    Ok(Command::Position {
        start,
        moves: moves.iter().map(|m| (*m).to_string()).collect(),
    })
}

fn parse_go(words: &[&str]) -> Result<GoParams, UciError> {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        i += 1;
        // The value after `key`, as a count of milliseconds or units (negative → 0).
        let mut number = |what: &str| -> Result<u64, UciError> {
            let Some(text) = words.get(i) else {
                return Err(bad("go", format!("'{what}' needs a number")));
            };
            i += 1;
            match text.parse::<i64>() {
                Ok(v) => Ok(v.max(0) as u64),
                Err(_) => Err(bad(
                    "go",
                    format!("'{what}' needs a number, got '{}'", shorten(text)),
                )),
            }
        };
        match key {
            "wtime" => go.wtime = Some(number(key)?),
            "btime" => go.btime = Some(number(key)?),
            "winc" => go.winc = Some(number(key)?),
            "binc" => go.binc = Some(number(key)?),
            "movestogo" => go.movestogo = Some(number(key)?.min(u64::from(u32::MAX)) as u32),
            "depth" => go.depth = Some(number(key)?.min(u64::from(u32::MAX)) as u32),
            "nodes" => go.nodes = Some(number(key)?),
            "mate" => go.mate = Some(number(key)?.min(u64::from(u32::MAX)) as u32),
            "movetime" => go.movetime = Some(number(key)?),
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                const KEYS: [&str; 12] = [
                    "wtime",
                    "btime",
                    "winc",
                    "binc",
                    "movestogo",
                    "depth",
                    "nodes",
                    "mate",
                    "movetime",
                    "infinite",
                    "ponder",
                    "searchmoves",
                ];
                while i < words.len() && !KEYS.contains(&words[i]) {
                    go.searchmoves.push(words[i].to_string());
                    i += 1;
                }
            }
            other => return Err(bad("go", format!("unknown parameter '{}'", shorten(other)))),
        }
    }
    Ok(go)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_commands() {
        assert_eq!(parse("  uci \r"), Ok(Command::Uci));
        assert_eq!(parse(""), Ok(Command::Empty));
        assert_eq!(
            parse("setoption name Move Overhead value 30"),
            Ok(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("30".into())
            })
        );
        assert_eq!(
            parse("position fen 8/8/8/8/8/p7/8/1N6 w - - 0 1 moves b1a3"),
            Ok(Command::Position {
                start: Start::Fen("8/8/8/8/8/p7/8/1N6 w - - 0 1".into()),
                moves: vec!["b1a3".into()]
            })
        );
        let Ok(Command::Go(go)) = parse("go wtime -5 btime 1000 winc 100 binc 100 movestogo 3")
        else {
            panic!("go")
        };
        assert_eq!(
            (go.wtime, go.btime, go.winc, go.movestogo),
            (Some(0), Some(1000), Some(100), Some(3))
        );
        let Ok(Command::Go(go)) = parse("go searchmoves e2e3 b2b3 depth 3") else {
            panic!("go")
        };
        assert_eq!((go.searchmoves.len(), go.depth), (2, Some(3)));
    }

    #[test]
    fn errors_name_the_bad_input() {
        let cases = [
            ("xyzzy 1 2", "unknown command 'xyzzy'"),
            ("go movetime soon", "'movetime' needs a number, got 'soon'"),
            ("go movetime", "'movetime' needs a number"),
            ("go sideways", "unknown parameter 'sideways'"),
            (
                "position somewhere",
                "expected 'startpos' or 'fen', got 'somewhere'",
            ),
            ("position fen", "'fen' without a FEN"),
            ("setoption Hash 3", "expected 'setoption name"),
        ];
        for (line, expected) in cases {
            let message = parse(line).unwrap_err().to_string();
            assert!(message.contains(expected), "{line}: {message}");
        }
    }
}
