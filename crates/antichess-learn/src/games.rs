//! The games source of the data set: PGN files of played games, as lichess and
//! python-chess write them (tag pairs, then movetext; any number of games a file).
//!
//! A file is read a game at a time: a game's tag pairs, then its movetext, which ends where
//! the next tag block begins (a line starting with `[` outside a `{...}` comment). Lines
//! starting with `%` are skipped (PGN's escape). Of a game, three tags are read:
//! - `Result`: `1-0` and `0-1` decide the game; `1/2-1/2` and `*` (or no result at all)
//!   skip it, and anything else is an error. Without the tag, the result token ending the
//!   movetext is read instead.
//! - `Variant`: `Antichess` or `Giveaway` is played under the international rules,
//!   `Suicide` under FICS's; a game without one under
//!   [`crate::dataset::DatasetOptions::rules`]; any other variant is an error.
//! - `FEN`: the start position (else the standard one).
//!
//! Every position of a decided game from ply
//! [`crate::dataset::DatasetOptions::games_skip_plies`] on (plies counted from the game's
//! start position), but not the final one and not one whose side to move has a single legal
//! move, is a row labelled 1 when its side to move is the winner. A position that recurs
//! gives a row each time. When a decided game ends where the side to move has no legal
//! move, the rules must agree with its result (else the variant is likely wrong, and the
//! file is refused). The rows are made in [`crate::dataset`], which reads the games with
//! this module's [`PgnReader`].
//!
//! Every error names the file, the game's number in it (from 1) and the line it starts on.

use std::io::BufRead;

use antichess_core::{Color, Rules};

use crate::LearnError;

/// One game of a PGN file as read: nothing is checked but the tag pairs' syntax.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct PgnGame {
    /// Its number in the file, from 1.
    pub number: u64,
    /// The line of the file it starts on, from 1.
    pub line: u64,
    /// Its tag pairs (name, value), in order.
    pub tags: Vec<(String, String)>,
    /// Its movetext, the lines joined by line breaks.
    pub movetext: String,
}

impl PgnGame {
    fn new(number: u64, line: u64) -> PgnGame {
        PgnGame {
            number,
            line,
            ..PgnGame::default()
        }
    }

    /// The value of the first tag of this name (names compared without case).
    pub fn tag(&self, name: &str) -> Option<&str> {
        self.tags
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The winner, `None` for a draw or an unfinished game: the `Result` tag, else the
    /// result token ending the movetext.
    pub fn winner(&self) -> Result<Option<Color>, String> {
        let result = match self.tag("Result") {
            Some(result) => result.trim(),
            None => match self.movetext.split_whitespace().last() {
                Some(token @ ("1-0" | "0-1" | "1/2-1/2" | "½-½" | "*")) => token,
                _ => return Ok(None),
            },
        };
        match result {
            "1-0" => Ok(Some(Color::White)),
            "0-1" => Ok(Some(Color::Black)),
            "1/2-1/2" | "½-½" | "*" => Ok(None),
            other => Err(format!(
                "Result \"{other}\" is none of 1-0, 0-1, 1/2-1/2 and *"
            )),
        }
    }

    /// The rules the game is played under: its `Variant` tag's, else `default`.
    pub fn rules(&self, default: Rules) -> Result<Rules, String> {
        let Some(variant) = self.tag("Variant").filter(|v| !v.trim().is_empty()) else {
            return Ok(default);
        };
        // "Antichess", "Anti chess", "giveaway", "Give away chess", "Suicide chess", ...
        let word: String = variant
            .chars()
            .filter(char::is_ascii_alphanumeric)
            .collect::<String>()
            .to_ascii_lowercase();
        match word.strip_suffix("chess").unwrap_or(&word) {
            "anti" | "giveaway" => Ok(Rules::INTERNATIONAL),
            "suicide" => Ok(Rules::FICS),
            _ => Err(format!(
                "Variant \"{variant}\" is not losing chess (expected Antichess, Giveaway or \
                 Suicide)"
            )),
        }
    }
}

/// Reads the games of a PGN file one at a time.
pub(crate) struct PgnReader<R> {
    input: R,
    /// The file, for messages.
    path: String,
    /// Lines read so far.
    line: u64,
    /// Games begun so far.
    games: u64,
    /// A tag line read past the end of the previous game: (its number, its text).
    pending: Option<(u64, String)>,
    buffer: Vec<u8>,
}

impl<R: BufRead> PgnReader<R> {
    pub fn new(input: R, path: &str) -> PgnReader<R> {
        PgnReader {
            input,
            path: path.to_string(),
            line: 0,
            games: 0,
            pending: None,
            buffer: Vec::new(),
        }
    }

    /// The next line without its line break (bytes that are not UTF-8 replaced: they can
    /// only be in tags or comments), or `None` at the end.
    fn next_line(&mut self) -> Result<Option<(u64, String)>, LearnError> {
        self.buffer.clear();
        let read = self
            .input
            .read_until(b'\n', &mut self.buffer)
            .map_err(|e| {
                LearnError::io(format!("reading {} line {}", self.path, self.line + 1), e)
            })?;
        if read == 0 {
            return Ok(None);
        }
        self.line += 1;
        let text = String::from_utf8_lossy(&self.buffer);
        let mut text = text.trim_end_matches(['\n', '\r']);
        if self.line == 1 {
            text = text.trim_start_matches('\u{feff}');
        }
        Ok(Some((self.line, text.to_string())))
    }

    /// The next game, or `None` after the last.
    ///
    /// # Errors
    /// A failing read, or a malformed tag pair (naming the game and the line).
    pub fn next_game(&mut self) -> Result<Option<PgnGame>, LearnError> {
        let mut game: Option<PgnGame> = None;
        let mut has_movetext = false;
        let mut in_comment = false;
        loop {
            let (number, text) = match self.pending.take() {
                Some(line) => line,
                None => match self.next_line()? {
                    Some(line) => line,
                    None => break,
                },
            };
            let trimmed = text.trim();
            if !in_comment && (trimmed.is_empty() || text.starts_with('%')) {
                continue;
            }
            if !in_comment && trimmed.starts_with('[') {
                if has_movetext {
                    self.pending = Some((number, text));
                    break;
                }
                let game = game.get_or_insert_with(|| {
                    self.games += 1;
                    PgnGame::new(self.games, number)
                });
                parse_tags(trimmed, &mut game.tags).map_err(|why| LearnError::Game {
                    path: self.path.clone(),
                    game: game.number,
                    line: game.line,
                    message: format!("line {number}: {why}"),
                })?;
                continue;
            }
            let game = game.get_or_insert_with(|| {
                self.games += 1;
                PgnGame::new(self.games, number)
            });
            game.movetext.push_str(&text);
            game.movetext.push('\n');
            has_movetext = true;
            in_comment = comment_open_after(&text, in_comment);
        }
        Ok(game)
    }
}

/// Whether a `{...}` comment is still open at the end of `line`, given whether one was at
/// its start (a `;` comment runs to the end of the line and hides any brace).
fn comment_open_after(line: &str, mut open: bool) -> bool {
    for c in line.chars() {
        if open {
            open = c != '}';
        } else if c == '{' {
            open = true;
        } else if c == ';' {
            break;
        }
    }
    open
}

/// Parses a line of tag pairs, `[Name "value"]` (several allowed; `\"` and `\\` escaped in
/// the value), appending them to `tags`.
fn parse_tags(line: &str, tags: &mut Vec<(String, String)>) -> Result<(), String> {
    let mut rest = line.trim();
    while !rest.is_empty() {
        let Some(inner) = rest.strip_prefix('[') else {
            return Err(format!(
                "a tag pair [Name \"value\"] expected at \"{rest}\""
            ));
        };
        let inner = inner.trim_start();
        let name_end = inner
            .find(|c: char| c.is_whitespace() || c == '"' || c == ']')
            .unwrap_or(inner.len());
        let name = &inner[..name_end];
        if name.is_empty() {
            return Err(format!("a tag pair without a name at \"{rest}\""));
        }
        let Some(quoted) = inner[name_end..].trim_start().strip_prefix('"') else {
            return Err(format!("tag {name}: the value is not in quotes"));
        };
        let mut value = String::new();
        let mut end = None;
        let mut chars = quoted.char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '\\' => {
                    if let Some((_, escaped)) = chars.next() {
                        value.push(escaped);
                    }
                }
                '"' => {
                    end = Some(i + 1);
                    break;
                }
                c => value.push(c),
            }
        }
        let Some(end) = end else {
            return Err(format!("tag {name}: the value is not closed by '\"'"));
        };
        let Some(after) = quoted[end..].trim_start().strip_prefix(']') else {
            return Err(format!("tag {name}: not closed by ']'"));
        };
        tags.push((name.to_string(), value));
        rest = after.trim_start();
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::build_dataset;
    use crate::dataset::{DatasetOptions, Row, SourceKind};
    use antichess_core::{play_move_text, Game, Position};
    use std::path::{Path, PathBuf};
    use std::sync::Arc;

    /// A 1-0 game from the standard start, with lichess-style clock comments, a NAG, a
    /// variation and a comment spanning lines whose second line starts with `[`. From ply 4
    /// on its positions are (W: White to move) B W B W B B W B, plies 4 and 10 having a
    /// single legal move (python-chess agrees).
    const WON_BY_WHITE: &str = "[Event \"Rated Antichess game\"]
[Site \"https://lichess.org/abcdefgh\"]
[White \"a\"]
[Black \"b\"]
[Result \"1-0\"]
[Variant \"Antichess\"]

1. h4 { [%clk 0:03:00] } 1... g5 { [%clk 0:03:00] } 2. hxg5 $2 e6 (2... Bg7 3. gxh6)
3. Rxh7 { a comment
[not a tag] } Qxg5 4. Rxf7 Qxg2 5. Rxd7 Qxg1 6. Rxc7 Qxf2 7. Rxb7 Qxe2 1-0
";

    /// The movetext of [`WON_BY_WHITE`] without its annotations.
    const WON_BY_WHITE_MOVES: &str =
        "h4 g5 hxg5 e6 Rxh7 Qxg5 Rxf7 Qxg2 Rxd7 Qxg1 Rxc7 Qxf2 Rxb7 Qxe2";

    /// A 0-1 game from a FEN, written as python-chess writes it, ending where Black has no
    /// piece left. From ply 4 on: W B B W B.
    const WON_BY_BLACK: &str = "[Event \"?\"]
[Result \"0-1\"]
[Variant \"Giveaway\"]
[FEN \"4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1\"]
[SetUp \"1\"]

1. d4 e5 2. dxe5 Kf8 3. e4 d6 4. exd6 Ke8 5. Kf1 Ke7 6. dxe7# 0-1

";

    const DRAWN: &str = "[Event \"?\"]\n[Result \"1/2-1/2\"]\n\n1. e3 b5 2. Bxb5 1/2-1/2\n\n";
    const UNFINISHED: &str = "[Event \"?\"]\n[Result \"*\"]\n\n1. e3 *\n";

    fn temp(name: &str, text: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("antichess-learn-games-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path
    }

    fn games_options(path: &Path) -> DatasetOptions {
        DatasetOptions {
            games: vec![path.to_path_buf()],
            ..DatasetOptions::default()
        }
    }

    /// The rows of a game's positions from ply `skip` on, built here by replaying it.
    fn expected_rows(start: Position, moves: &str, winner: Color, skip: usize) -> Vec<Row> {
        let game: Game = play_move_text(start, moves).unwrap();
        let mut pos = start;
        let mut out = Vec::new();
        for (ply, &m) in game.moves().iter().enumerate() {
            if ply >= skip && pos.count_moves() != 1 {
                out.push(Row::of(&pos, pos.turn() == winner, 0, Arc::from("small")));
            }
            pos.play_mut(m);
        }
        out
    }

    #[test]
    fn decided_games_give_rows_labelled_by_their_winner() {
        let text = format!("{WON_BY_WHITE}\n{DRAWN}{WON_BY_BLACK}{UNFINISHED}");
        let path = temp("small.pgn", &text);
        let mut events = Vec::new();
        let (rows, report) = build_dataset(&games_options(&path), &mut |e| events.push(e)).unwrap();
        assert_eq!(events.len(), 2);
        let source = &report.sources[0];
        assert_eq!(source.source, "small");
        assert_eq!(source.kind, SourceKind::Games);
        assert_eq!(source.games, Some(4));
        assert_eq!(source.games_skipped, Some(2));
        assert_eq!(source.nodes, 14 + 11);
        assert_eq!((source.positions, source.rows), (8 + 5, 8 + 5));
        assert_eq!(rows.len(), 13);
        // 1-0: the rows with White to move (plies 6, 8, 12) say 1, the others 0.
        let labels: Vec<f32> = rows.iter().map(|r| r.label).collect();
        assert_eq!(&labels[..8], &[0., 1., 0., 1., 0., 0., 1., 0.]);
        // 0-1 from the FEN: the rows with Black to move say 1.
        assert_eq!(&labels[8..], &[0., 1., 1., 0., 1.]);
        assert_eq!((source.wins, source.losses), (6, 7));
        assert!(rows.iter().all(|r| r.cost == 0 && &*r.source == "small"));
        let white = expected_rows(
            Position::start(Rules::INTERNATIONAL),
            WON_BY_WHITE_MOVES,
            Color::White,
            4,
        );
        assert_eq!(rows[..8], white[..]);
        let fen = Position::from_fen("4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1", Rules::INTERNATIONAL)
            .unwrap();
        let black = expected_rows(
            fen,
            "d4 e5 dxe5 Kf8 e4 d6 exd6 Ke8 Kf1 Ke7 dxe7",
            Color::Black,
            4,
        );
        assert_eq!(rows[8..], black[..]);

        // From ply 0: 11 and 8 rows (python-chess agrees).
        let options = DatasetOptions {
            games_skip_plies: 0,
            ..games_options(&path)
        };
        let (rows, _) = build_dataset(&options, &mut |_| {}).unwrap();
        assert_eq!(rows.len(), 11 + 8);

        // A sample: the same rows every time, in file order.
        let options = DatasetOptions {
            max_rows_per_source: 5,
            ..games_options(&path)
        };
        let (a, report) = build_dataset(&options, &mut |_| {}).unwrap();
        let (b, _) = build_dataset(&options, &mut |_| {}).unwrap();
        assert_eq!(a, b);
        assert_eq!((report.sources[0].positions, report.rows), (13, 5));
        let all: Vec<Row> = white.into_iter().chain(black).collect();
        let mut at = all.iter();
        assert!(
            a.iter().all(|row| at.any(|r| r == row)),
            "not a subsequence"
        );
    }

    #[test]
    fn bad_games_are_refused_naming_file_and_game() {
        let illegal = format!("{WON_BY_BLACK}[Result \"1-0\"]\n\n1. e3 b5 2. Nf3 1-0\n");
        let path = temp("illegal.pgn", &illegal);
        let e = build_dataset(&games_options(&path), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("illegal.pgn game 2 (line 9)"), "{e}");
        assert!(e.contains("Nf3"), "{e}");

        let chess = format!("{DRAWN}[Variant \"Standard\"]\n[Result \"1/2-1/2\"]\n\n1. e4 *\n");
        let path = temp("chess.pgn", &chess);
        let e = build_dataset(&games_options(&path), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("chess.pgn game 2") && e.contains("\"Standard\""),
            "{e}"
        );

        let path = temp("result.pgn", "[Result \"2-0\"]\n\n1. e3 2-0\n");
        let e = build_dataset(&games_options(&path), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("result.pgn game 1") && e.contains("\"2-0\""),
            "{e}"
        );

        // The game ends with Black out of pieces: Black won, not White.
        let path = temp("wrong.pgn", &WON_BY_BLACK.replace("0-1", "1-0"));
        let e = build_dataset(&games_options(&path), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("wrong.pgn game 1") && e.contains("Variant"),
            "{e}"
        );

        let path = temp("tag.pgn", "[Result \"1-0]\n\n1. e3 1-0\n");
        let e = build_dataset(&games_options(&path), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("tag.pgn game 1") && e.contains("not closed"),
            "{e}"
        );

        let missing = path.with_file_name("none.pgn");
        let e = build_dataset(&games_options(&missing), &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("none.pgn"), "{e}");
    }

    #[test]
    fn a_games_file_shares_the_proofs_names() {
        let path = temp("e3-d5.pgn", WON_BY_BLACK);
        let options = DatasetOptions {
            proofs: vec![PathBuf::from("proofs/e3-d5.proof")],
            ..games_options(&path)
        };
        let e = build_dataset(&options, &mut |_| {})
            .unwrap_err()
            .to_string();
        assert!(e.contains("both source \"e3-d5\""), "{e}");
    }

    #[test]
    fn tags_variants_and_results_are_read() {
        let mut tags = Vec::new();
        parse_tags(r#"[White "a \"b\" c"] [Black "d"]"#, &mut tags).unwrap();
        assert_eq!(
            tags,
            [
                ("White".to_string(), "a \"b\" c".to_string()),
                ("Black".to_string(), "d".to_string())
            ]
        );
        let game = |tags: &[(&str, &str)], movetext: &str| PgnGame {
            tags: tags
                .iter()
                .map(|(n, v)| (n.to_string(), v.to_string()))
                .collect(),
            movetext: movetext.to_string(),
            ..PgnGame::default()
        };
        for (variant, rules) in [
            ("Antichess", Rules::INTERNATIONAL),
            ("giveaway chess", Rules::INTERNATIONAL),
            ("Suicide", Rules::FICS),
        ] {
            assert_eq!(
                game(&[("Variant", variant)], "").rules(Rules::JOINT),
                Ok(rules)
            );
        }
        assert_eq!(game(&[], "").rules(Rules::JOINT), Ok(Rules::JOINT));
        assert!(game(&[("Variant", "Crazyhouse")], "")
            .rules(Rules::JOINT)
            .is_err());
        assert_eq!(game(&[], "1. e3 0-1\n").winner(), Ok(Some(Color::Black)));
        assert_eq!(game(&[], "1. e3\n").winner(), Ok(None));
        assert_eq!(game(&[("Result", "*")], "1. e3 1-0").winner(), Ok(None));

        let text =
            "\u{feff}% a PGN escape line\n[Event \"1\"]\n1. e3 *\n\n\n[Event \"2\"]\n\n1. d3\n1-0";
        let mut reader = PgnReader::new(text.as_bytes(), "x.pgn");
        let first = reader.next_game().unwrap().unwrap();
        assert_eq!((first.number, first.line), (1, 2));
        assert_eq!(first.movetext, "1. e3 *\n");
        let second = reader.next_game().unwrap().unwrap();
        assert_eq!(
            (second.number, second.line, second.tag("event")),
            (2, 6, Some("2"))
        );
        assert_eq!(second.movetext, "1. d3\n1-0\n");
        assert_eq!(reader.next_game().unwrap(), None);
    }
}
