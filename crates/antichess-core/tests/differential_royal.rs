//! Differential test of the royal-king rule sets (`pritchard3`, `pritchard4`; module
//! `antichess_core::royal`) against an independent implementation of their rules built on
//! python-chess's orthodox `chess.Board` (tests/oracle/python_chess_royal.py): on every
//! position of random playouts, under both variants, the set of legal moves, their SAN
//! (with `+` and `#`), the outcome, and perft to depth 1 (depth 2 for one position in ten).
//! Playouts start from the start position and from random sparse positions (both kings and
//! up to five other men), where checks, mates, stalemates and bare kings are common.
//!
//! Needs `python3` with the `chess` package (`.ci/run` installs it). Outside CI the test is
//! skipped with a message when they are missing; under CI (`CI` set) their absence is a
//! failure.

use std::io::Write;
use std::process::Command;

use antichess_core::{perft, Board, Color, Piece, Position, Role, Rules, Setup, Square};
use antichess_testkit::random::Rng;
use antichess_testkit::{scaled, temp_dir};

/// A random position of the royal rule sets: both kings and up to five other men.
fn sparse_start(rng: &mut Rng, rules: Rules) -> Position {
    loop {
        let mut board = Board::empty();
        let turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut men = vec![
            Piece::new(Color::White, Role::King),
            Piece::new(Color::Black, Role::King),
        ];
        for _ in 0..2 + rng.below(4) {
            let role = [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
                Role::Pawn,
            ][rng.below(6)];
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            men.push(Piece::new(color, role));
        }
        for piece in men {
            loop {
                let sq = Square::from_index(rng.below(64) as u32);
                let back = sq.rank() == 0 || sq.rank() == 7;
                let pawn_on_back_rank = piece.role == Role::Pawn && back;
                if !(board.occupied().contains(sq) || pawn_on_back_rank) {
                    board.set(sq, piece);
                    break;
                }
            }
        }
        if let Ok(pos) = Position::from_setup(Setup::new(board, turn), rules) {
            return pos;
        }
    }
}

/// Fixed starts besides the random ones: a stalemate, a mate, and positions a move or two
/// from one, so that every sample meets both endings.
const FIXED_STARTS: &[&str] = &[
    "7k/5Q2/6K1/p7/P7/8/8/8 b - - 0 1",
    "7k/8/6K1/p7/P4Q2/8/8/8 w - - 0 1",
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "k7/2Q5/1K6/p7/P7/8/8/8 b - - 0 1",
    "7k/8/8/8/8/8/1p4PP/2q3K1 w - - 0 1",
];

#[derive(Default, Debug)]
struct Coverage {
    checks: usize,
    mates: usize,
    stalemates: usize,
    bare_kings: usize,
    en_passant: usize,
    promotions: usize,
    compulsory: usize,
}

#[test]
fn royal_rules_agree_with_python_chess() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/python_chess_royal.py"
    );
    if !antichess_testkit::python_chess("chess") {
        return;
    }
    let dir = temp_dir("pychess-royal");
    let path = dir.join("positions.tsv");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let mut cov = Coverage::default();
    let mut lines = 0usize;
    let mut rng = Rng::new(41);
    let playouts = scaled(60);
    for (variant, rules) in [(3, Rules::PRITCHARD3), (4, Rules::PRITCHARD4)] {
        let mut starts: Vec<Position> = FIXED_STARTS
            .iter()
            .map(|fen| Position::from_fen(fen, rules).unwrap())
            .collect();
        for i in 0..playouts {
            starts.push(if i % 3 == 0 {
                Position::start(rules)
            } else {
                sparse_start(&mut rng, rules)
            });
        }
        for mut pos in starts {
            for _ply in 0..300 {
                let mut moves: Vec<_> = pos.legal_moves().iter().copied().collect();
                moves.sort_by_key(|m| m.to_string());
                let outcome = pos.outcome();
                let end = outcome.map_or("-", |o| o.pgn());
                cov.checks += usize::from(pos.is_check());
                cov.en_passant += usize::from(pos.ep_square().is_some());
                cov.compulsory += usize::from(pos.has_capture());
                cov.promotions += usize::from(moves.iter().any(|m| m.is_promotion()));
                if outcome.is_some() {
                    if pos.has_bare_king() {
                        cov.bare_kings += 1;
                    } else if pos.is_check() {
                        cov.mates += 1;
                    } else {
                        cov.stalemates += 1;
                    }
                }
                let depth = if lines % 10 == 0 { 2 } else { 1 };
                let uci: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
                let san: Vec<String> = moves.iter().map(|m| pos.san(*m)).collect();
                writeln!(
                    file,
                    "{variant}\t{}\t{}\t{end}\t{}\t{depth}\t{}",
                    pos.fen(),
                    uci.join(" "),
                    san.join(" "),
                    perft(&pos, depth)
                )
                .unwrap();
                lines += 1;
                if moves.is_empty() {
                    break;
                }
                pos = pos.play(moves[rng.below(moves.len())]);
            }
        }
    }
    file.flush().unwrap();
    drop(file);
    eprintln!("{lines} positions, {cov:?}");
    // The sample must reach the rules it is meant to test.
    assert!(
        cov.checks > 0
            && cov.mates > 0
            && cov.stalemates > 0
            && cov.bare_kings > 0
            && cov.en_passant > 0
            && cov.promotions > 0
            && cov.compulsory > 0,
        "{cov:?}"
    );

    let output = Command::new("python3")
        .arg(script)
        .arg(&path)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(
        output.status.success(),
        "python-chess disagrees:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(stdout.contains(&format!("checked {lines}")), "{stdout}");
}
