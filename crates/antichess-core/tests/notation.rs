//! FEN, UCI, SAN and PGN move-list text: round trips over random positions, and one clear
//! error per kind of malformed input, naming the offending field or token.

use antichess_testkit::random;

use antichess_core::{
    play_move_text, Error, FenField, Position, PositionError, Rules, Setup, Square, START_FEN,
};

fn fen_error(fen: &str) -> Error {
    match Position::from_fen(fen, Rules::INTERNATIONAL) {
        Ok(pos) => panic!("{fen} was accepted as {pos:?}"),
        Err(err) => err,
    }
}

#[test]
fn fen_round_trip_over_random_positions() {
    let mut positions = random::playout_positions(3, 20_000, Rules::INTERNATIONAL);
    positions.extend(random::sparse_positions(4, 5_000, Rules::INTERNATIONAL));
    for pos in positions {
        let fen = pos.fen();
        let again = Position::from_fen(&fen, Rules::INTERNATIONAL).unwrap();
        assert_eq!(again, pos, "{fen}");
        assert_eq!(again.fen(), fen);
        assert_eq!(Setup::from_fen(&fen).unwrap().fen(), fen);
    }
}

#[test]
fn san_and_uci_round_trip_over_random_positions() {
    for pos in random::playout_positions(5, 20_000, Rules::INTERNATIONAL) {
        for m in pos.legal_moves() {
            let san = pos.san(m);
            assert!(!san.contains('+') && !san.contains('#'));
            assert_eq!(pos.parse_san(&san).unwrap(), m, "{san} in {}", pos.fen());
            assert_eq!(pos.parse_move(&san).unwrap(), m);
            let uci = m.to_string();
            assert_eq!(pos.parse_uci(&uci).unwrap(), m, "{uci} in {}", pos.fen());
            assert_eq!(pos.parse_move(&uci).unwrap(), m);
        }
    }
}

#[test]
fn fen_accepts_castling_rights_and_short_forms() {
    let lichess = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let pos = Position::from_fen(lichess, Rules::INTERNATIONAL).unwrap();
    assert_eq!(pos.fen(), START_FEN);
    let epd = Position::from_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - -",
        Rules::INTERNATIONAL,
    );
    assert_eq!(epd.unwrap().fen(), START_FEN);
    assert_eq!(
        Setup::from_fen("8/8/8/8/8/8/8/k6K").unwrap().fen(),
        "8/8/8/8/8/8/8/k6K w - - 0 1"
    );
    // Shredder-style castling letters are accepted too.
    assert!(Position::from_fen(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
        Rules::INTERNATIONAL
    )
    .is_ok());
}

#[test]
fn an_en_passant_square_without_a_capture_is_dropped() {
    // After 1. e4 no black pawn can take: the FEN written by some tools still has e3.
    let pos = Position::from_fen(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
        Rules::INTERNATIONAL,
    )
    .unwrap();
    assert_eq!(pos.ep_square(), None);
    assert_eq!(
        pos.fen(),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b - - 0 1"
    );
    let start = Position::start(Rules::INTERNATIONAL);
    assert_eq!(pos.key(), start.play(start.parse_san("e4").unwrap()).key());
}

#[test]
fn each_malformed_fen_field_has_its_own_error() {
    let cases: &[(&str, FenField, &str, &str)] = &[
        ("", FenField::Board, "", "empty"),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w - - 0 1",
            FenField::Board,
            "PPPPPPPP",
            "7 ranks",
        ),
        (
            "rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            FenField::Board,
            "ppppxppp",
            "'x'",
        ),
        (
            "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            FenField::Board,
            "ppppppppp",
            "more than 8",
        ),
        (
            "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            FenField::Board,
            "ppppppp",
            "covers 7",
        ),
        (
            "rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
            FenField::Board,
            "9",
            "digit 9",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x - - 0 1",
            FenField::Turn,
            "x",
            "'w' or 'b'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
            FenField::Castling,
            "KQxq",
            "'x'",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KK - 0 1",
            FenField::Castling,
            "KK",
            "repeat",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - e9 0 1",
            FenField::EnPassant,
            "e9",
            "square",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - -1 1",
            FenField::Halfmoves,
            "-1",
            "non-negative",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - x 1",
            FenField::Halfmoves,
            "x",
            "non-negative",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 y",
            FenField::Fullmoves,
            "y",
            "positive",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1 extra",
            FenField::Extra,
            "extra",
            "six fields",
        ),
    ];
    for &(fen, field, token, words) in cases {
        match fen_error(fen) {
            Error::Fen {
                field: f, token: t, ..
            } if f == field => {
                let message = fen_error(fen).to_string();
                assert!(t.contains(token), "{fen}: token {t}");
                assert!(message.contains(field.name()), "{fen}: {message}");
                assert!(message.contains(words), "{fen}: {message}");
            }
            other => panic!("{fen}: expected a {field:?} error, got {other:?}"),
        }
    }
}

#[test]
fn invalid_positions_are_named() {
    let cases: &[(&str, PositionError, &str)] = &[
        (
            "8/8/8/8/8/8/8/8 w - - 0 1",
            PositionError::EmptyBoard,
            "empty",
        ),
        (
            "8/8/8/8/8/8/8/K7 w - - 0 1",
            PositionError::NoPiecesForSideNotToMove(antichess_core::Color::Black),
            "black has no pieces",
        ),
        (
            "P7/8/8/8/8/8/8/k7 w - - 0 1",
            PositionError::PawnOnBackRank(Square::A8),
            "pawn on a8",
        ),
        (
            "8/8/8/8/8/8/8/p6K w - - 0 1",
            PositionError::PawnOnBackRank(Square::A1),
            "pawn on a1",
        ),
        (
            "QQQQQQQQ/QQQQQQQQ/Q7/8/8/8/8/k7 w - - 0 1",
            PositionError::TooManyPieces(antichess_core::Color::White, 17),
            "17 pieces",
        ),
        (
            "8/PPPPPPPP/P7/8/8/8/8/k7 w - - 0 1",
            PositionError::TooManyPawns(antichess_core::Color::White, 9),
            "9 pawns",
        ),
        (
            "QQ6/PPPPPPPP/8/8/8/8/8/k7 w - - 0 1",
            PositionError::TooManyPromotedPieces(antichess_core::Color::White, 1),
            "promoted",
        ),
        (
            "8/8/8/3pP3/8/8/8/k7 w - d5 0 1",
            PositionError::InvalidEnPassant(Square::D5, ""),
            "sixth rank",
        ),
        (
            "8/8/8/4P3/8/8/8/k7 w - d6 0 1",
            PositionError::InvalidEnPassant(Square::D6, ""),
            "no black pawn",
        ),
        (
            "8/8/3n4/3pP3/8/8/8/k7 w - d6 0 1",
            PositionError::InvalidEnPassant(Square::D6, ""),
            "occupied",
        ),
        (
            "8/3n4/8/3pP3/8/8/8/k7 w - d6 0 1",
            PositionError::InvalidEnPassant(Square::D6, ""),
            "came from",
        ),
        (
            "K7/8/8/8/3Pp3/8/8/8 b - d4 0 1",
            PositionError::InvalidEnPassant(Square::D4, ""),
            "third rank",
        ),
    ];
    for (fen, expected, words) in cases {
        let err = fen_error(fen);
        let message = err.to_string();
        match (&err, expected) {
            (
                Error::Position(PositionError::InvalidEnPassant(sq, _)),
                PositionError::InvalidEnPassant(esq, _),
            ) => {
                assert_eq!(sq, esq, "{fen}");
                assert!(message.contains("en passant field"), "{message}");
            }
            (Error::Position(got), expected) => {
                assert_eq!(got, expected, "{fen}");
                assert!(message.contains("board field"), "{message}");
            }
            _ => panic!("{fen}: {err:?}"),
        }
        assert!(message.contains(words), "{fen}: {message}");
    }
}

#[test]
fn san_output_forms() {
    let pos = |fen: &str| Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
    // Promotion to king, pawn capture with file, no check marks.
    let p = pos("3n4/4P3/8/8/8/8/8/k7 w - - 0 1");
    let sans: Vec<String> = p.legal_moves().iter().map(|m| p.san(*m)).collect();
    assert!(sans.contains(&"exd8=K".to_string()), "{sans:?}");
    assert!(
        !sans.iter().any(|s| s.starts_with("e8")),
        "captures are compulsory: {sans:?}"
    );
    // Disambiguation by file, by rank, and by square; also between kings.
    let p = pos("k7/8/8/8/8/8/8/N3N2K w - - 0 1");
    assert!(p.legal_moves().iter().any(|m| p.san(*m) == "Nac2"));
    let p = pos("k7/8/8/N7/8/8/8/N6K w - - 0 1");
    assert!(p.legal_moves().iter().any(|m| p.san(*m) == "N5b3"));
    assert!(p.legal_moves().iter().any(|m| p.san(*m) == "N1b3"));
    let p = pos("7k/8/8/8/Q1Q5/8/Q7/7K w - - 0 1");
    assert!(p.legal_moves().iter().any(|m| p.san(*m) == "Qa4b3"));
    let p = pos("k7/8/8/8/8/8/8/K1K5 w - - 0 1");
    assert!(p.legal_moves().iter().any(|m| p.san(*m) == "Kab1"));
}

#[test]
fn san_input_is_lenient_but_exact() {
    let start = Position::start(Rules::INTERNATIONAL);
    for token in [
        "e4", "e4!", "e4?!", "e4+", "Pe4", "e2e4", "Nf3", "Ng1f3", "Ngf3", "N1f3",
    ] {
        assert!(start.parse_move(token).is_ok(), "{token}");
    }
    let p = Position::from_fen("8/4P3/8/8/8/8/8/k7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    for token in ["e8=K", "e8K", "e8=k", "e8k", "e7e8k"] {
        assert_eq!(p.parse_move(token).unwrap().to_string(), "e7e8k", "{token}");
    }
    let err = p.parse_move("e8").unwrap_err().to_string();
    assert!(err.contains("\"e8\"") && err.contains("promotion"), "{err}");
}

#[test]
fn move_errors_name_the_token() {
    let start = Position::start(Rules::INTERNATIONAL);
    let cases = [
        ("O-O", "castling"),
        ("0-0-0", "castling"),
        ("0000", "null"),
        ("Ke2", "no white king can move to e2"),
        ("e5", "no white pawn can move to e5"),
        ("Nf3=Q", "only pawns promote"),
        ("xyz", "not a move"),
        ("e2e5", "cannot move there"),
        ("e3e4", "no white piece stands on e3"),
        ("e7e8x", "not a move"),
        ("Zf3", "'Z' is not a piece letter"),
    ];
    for (token, words) in cases {
        let err = start.parse_move(token).unwrap_err().to_string();
        assert!(err.contains(&format!("\"{token}\"")), "{token}: {err}");
        assert!(err.contains(words), "{token}: {err}");
    }
    let p = Position::from_fen(
        "rnbqkbnr/p1pppppp/8/1p6/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2",
        Rules::INTERNATIONAL,
    )
    .unwrap();
    let err = p.parse_move("Nf3").unwrap_err().to_string();
    assert!(err.contains("captures are compulsory"), "{err}");
    let p = Position::from_fen("k7/8/8/8/8/8/8/N3N2K w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let err = p.parse_move("Nc2").unwrap_err().to_string();
    assert!(
        err.contains("ambiguous") && err.contains("Nac2") && err.contains("Nec2"),
        "{err}"
    );
}

#[test]
fn move_lists_in_pgn_style() {
    let start = Position::start(Rules::INTERNATIONAL);
    let game = play_move_text(start, "1. e3 b5 2. Bxb5 Bb7").unwrap();
    assert_eq!(game.moves().len(), 4);
    assert_eq!(game.pgn_moves(), "1. e3 b5 2. Bxb5 Bb7");
    let text = "[Event \"test\"]\n[Site \"?\"]\n1.e3 {a comment} b5 (1... e5 2. Ba6) 2. Bxb5 $1 ; rest of line\n Bb7 1-0";
    let game2 = play_move_text(start, text).unwrap();
    assert_eq!(game2.moves(), game.moves());
    let uci = play_move_text(start, "e2e3 b7b5 f1b5").unwrap();
    assert_eq!(uci.moves(), &game.moves()[..3]);
    let black_first = play_move_text(*game.position(), "3. Bxb7").unwrap_err();
    // Bishop on b5 cannot reach b7 in one move; White to move must capture somewhere.
    assert!(
        black_first.to_string().contains("ply 1 (3. Bxb7)"),
        "{black_first}"
    );
    let after_black = play_move_text(
        start.play(start.parse_move("e3").unwrap()),
        "1... b5 2. Bxb5",
    )
    .unwrap();
    assert_eq!(after_black.pgn_moves(), "1... b5 2. Bxb5");
}

#[test]
fn move_list_errors_name_token_and_ply() {
    let start = Position::start(Rules::INTERNATIONAL);
    let err = play_move_text(start, "1. e3 b5 2. Nf3")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("ply 3 (2. Nf3)") && err.contains("compulsory"),
        "{err}"
    );
    let err = play_move_text(start, "1. e3 e5 2. Qh5 {unterminated")
        .unwrap_err()
        .to_string();
    assert!(err.contains("comment not closed"), "{err}");
    let err = play_move_text(start, "1. e3 (1. e4")
        .unwrap_err()
        .to_string();
    assert!(err.contains("variation not closed"), "{err}");
    let err = play_move_text(start, "1. e3 b5 1-0 2. Bxb5")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("\"Bxb5\"") && err.contains("after the result"),
        "{err}"
    );
    let err = play_move_text(start, "1. e3 b5 2. Bxb5 Bh7")
        .unwrap_err()
        .to_string();
    assert!(err.contains("ply 4 (2... Bh7)"), "{err}");
}
