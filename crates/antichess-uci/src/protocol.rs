//! The UCI protocol's text: one input line parsed into a [`Command`] (or a [`UciError`]
//! naming what is wrong with it), and the parameters of `go` ([`GoParams`]). Nothing here
//! knows about positions or rules: `position` keeps its FEN and moves as text, which the
//! engine checks against the rules.
//!
//! Tolerant as GUIs expect: words are separated by any whitespace, a negative clock (some
//! GUIs send one when a player's time ran out) counts as 0, a number too large for 64 bits
//! counts as the largest (no limit in practice), and `setoption` names may hold spaces
//! (`setoption name Move Overhead value 30`). A `go` is never refused: what it cannot use
//! (an unknown word, a parameter without its number) is left out and named in
//! [`GoParams::ignored`], and the search runs with the rest, so that every `go` is answered
//! with a `bestmove`.

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
    /// What the line held that could not be used and was left out, each naming it.
    pub ignored: Vec<UciError>,
}

/// The parameters of `go` that take a number.
const NUMBER_KEYS: [&str; 9] = [
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "depth",
    "nodes",
    "mate",
    "movetime",
];

/// Whether `word` starts a parameter of `go`.
fn is_go_key(word: &str) -> bool {
    NUMBER_KEYS.contains(&word) || matches!(word, "infinite" | "ponder" | "searchmoves")
}

/// A count of milliseconds or units: a negative one is 0 (a GUI's clock past zero), one
/// too large for 64 bits is `u64::MAX` (no limit in practice). `None`: not a whole number.
fn count(text: &str) -> Option<u64> {
    let (negative, digits) = match text.strip_prefix('-') {
        Some(digits) => (true, digits),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    if negative {
        return Some(0);
    }
    Some(digits.parse().unwrap_or(u64::MAX))
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
        "go" => Ok(Command::Go(parse_go(rest))),
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

fn parse_go(words: &[&str]) -> GoParams {
    let mut go = GoParams::default();
    let mut i = 0;
    while i < words.len() {
        let key = words[i];
        i += 1;
        if NUMBER_KEYS.contains(&key) {
            // The next word, unless it is the next parameter.
            let text = words.get(i).copied().filter(|w| !is_go_key(w));
            let Some(text) = text else {
                go.ignored
                    .push(bad("go", format!("'{key}' needs a number; it is left out")));
                continue;
            };
            i += 1;
            let Some(n) = count(text) else {
                go.ignored.push(bad(
                    "go",
                    format!(
                        "'{key}' needs a number, got '{}'; it is left out",
                        shorten(text)
                    ),
                ));
                continue;
            };
            let small = || n.min(u64::from(u32::MAX)) as u32;
            match key {
                "wtime" => go.wtime = Some(n),
                "btime" => go.btime = Some(n),
                "winc" => go.winc = Some(n),
                "binc" => go.binc = Some(n),
                "movestogo" => go.movestogo = Some(small()),
                "depth" => go.depth = Some(small()),
                "nodes" => go.nodes = Some(n),
                "mate" => go.mate = Some(small()),
                _ => go.movetime = Some(n),
            }
            continue;
        }
        match key {
            "infinite" => go.infinite = true,
            "ponder" => go.ponder = true,
            "searchmoves" => {
                while i < words.len() && !is_go_key(words[i]) {
                    go.searchmoves.push(words[i].to_string());
                    i += 1;
                }
            }
            other => go.ignored.push(bad(
                "go",
                format!("unknown parameter '{}' is left out", shorten(other)),
            )),
        }
    }
    go
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

    /// Issue 63: `go movetime 99999999999999999999999` was refused (an `info string` and
    /// never a `bestmove`). A number too large is the largest; a `go` with a bad word is
    /// run without it, the word named.
    #[test]
    fn a_go_is_never_refused() {
        let go = |line: &str| match parse(line) {
            Ok(Command::Go(go)) => go,
            other => panic!("{line}: {other:?}"),
        };
        let huge = "99999999999999999999999";
        let all = go(&format!(
            "go wtime {huge} btime {huge} winc {huge} binc {huge} movestogo {huge} \
             depth {huge} nodes {huge} mate {huge} movetime {huge}"
        ));
        assert_eq!(
            (
                all.wtime,
                all.btime,
                all.winc,
                all.binc,
                all.nodes,
                all.movetime
            ),
            (
                Some(u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX),
                Some(u64::MAX)
            )
        );
        assert_eq!(
            (all.movestogo, all.depth, all.mate),
            (Some(u32::MAX), Some(u32::MAX), Some(u32::MAX))
        );
        assert!(all.ignored.is_empty(), "{:?}", all.ignored);
        assert_eq!(go(&format!("go wtime -{huge}")).wtime, Some(0));
        assert_eq!(go("go movetime +250").movetime, Some(250));

        let cases = [
            (
                "go movetime soon",
                "go: 'movetime' needs a number, got 'soon'; it is left out",
            ),
            (
                "go movetime",
                "go: 'movetime' needs a number; it is left out",
            ),
            (
                "go sideways",
                "go: unknown parameter 'sideways' is left out",
            ),
            ("go movetime 1.5", "'movetime' needs a number, got '1.5'"),
        ];
        for (line, expected) in cases {
            let go = go(line);
            assert_eq!(go.movetime, None, "{line}");
            let message = go
                .ignored
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>();
            assert!(
                message.iter().any(|m| m.contains(expected)),
                "{line}: {message:?}"
            );
        }
        // A parameter without its number does not swallow the next one.
        let go = go("go movetime depth 3 nodes");
        assert_eq!((go.movetime, go.depth, go.nodes), (None, Some(3), None));
        assert_eq!(go.ignored.len(), 2, "{:?}", go.ignored);
    }
}
