//! Differential test of the orthodox rules ([`antichess_core::orthodox`], used by the
//! Lasker chess tables) against python-chess's `chess.Board`: legal move sets, checkmate
//! and stalemate, and perft to depth 2 (depth 3 for one position in twenty) on random
//! legal positions of at most 5 men with both kings, a quarter of them with an en passant
//! square set up.
//!
//! Needs `python3` with the `chess` package (`pip install chess`; `.ci/run` installs it).
//! Outside CI the test is skipped with a message when they are missing; under CI (`CI` set)
//! their absence is a failure.

use std::io::Write;
use std::process::Command;

use antichess_core::orthodox::{perft, Ending, OrthoPosition};
use antichess_core::{Board, Color, Piece, Role, Setup, Square};
use antichess_testkit::random::Rng;
use antichess_testkit::{scaled, temp_dir};

/// Random legal positions: two kings and up to three other men, random side to move.
fn random_positions(seed: u64, count: usize) -> Vec<OrthoPosition> {
    let mut rng = Rng::new(seed);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut board = Board::empty();
        let turn = if rng.below(2) == 0 {
            Color::White
        } else {
            Color::Black
        };
        let mut ep = None;
        if rng.below(4) == 0 {
            // A pawn of the side not to move has just advanced two squares, beside a pawn
            // of the side to move.
            let them = turn.other();
            let file = rng.below(8) as u8;
            let (to_rank, passed_rank) = if them == Color::White { (3, 2) } else { (4, 5) };
            board.set(
                Square::from_coords(file, to_rank),
                Piece::new(them, Role::Pawn),
            );
            let f = if file == 0 || (file < 7 && rng.below(2) == 0) {
                file + 1
            } else {
                file - 1
            };
            board.set(
                Square::from_coords(f, to_rank),
                Piece::new(turn, Role::Pawn),
            );
            ep = Some(Square::from_coords(file, passed_rank));
        }
        // A third of the positions crowd the men round the side to move's king on an edge,
        // where mates and stalemates are common.
        let crowd = ep.is_none() && rng.below(3) == 0;
        let edge = [0u8, 7][rng.below(2)];
        let along = rng.below(8) as u8;
        let centre = if rng.below(2) == 0 {
            (edge, along)
        } else {
            (along, edge)
        };
        let mut first = true;
        let mut place = |board: &mut Board, piece: Piece, rng: &mut Rng| loop {
            let sq = if crowd && first && piece.color == turn && piece.role == Role::King {
                Square::from_coords(centre.0, centre.1)
            } else {
                Square::from_index(rng.below(64) as u32)
            };
            let near = i32::from(sq.file()).abs_diff(i32::from(centre.0)) <= 3
                && i32::from(sq.rank()).abs_diff(i32::from(centre.1)) <= 3;
            if board.occupied().contains(sq)
                || (crowd && !near)
                || (piece.role == Role::Pawn && (sq.rank() == 0 || sq.rank() == 7))
            {
                continue;
            }
            board.set(sq, piece);
            if piece.role == Role::King && piece.color == turn {
                first = false;
            }
            break;
        };
        place(&mut board, Piece::new(turn, Role::King), &mut rng);
        place(&mut board, Piece::new(turn.other(), Role::King), &mut rng);
        let extra = rng.below(4).min(5 - board.occupied().count() as usize);
        for _ in 0..extra {
            let role = [
                Role::Queen,
                Role::Rook,
                Role::Bishop,
                Role::Knight,
                Role::Pawn,
            ][rng.below(5)];
            let color = if rng.below(2) == 0 {
                Color::White
            } else {
                Color::Black
            };
            place(&mut board, Piece::new(color, role), &mut rng);
        }
        let mut setup = Setup::new(board, turn);
        setup.ep_square = ep;
        if let Ok(pos) = OrthoPosition::from_setup(setup) {
            out.push(pos);
        }
    }
    out
}

#[test]
fn orthodox_rules_agree_with_python_chess() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/python_chess_orthodox.py"
    );
    if !antichess_testkit::python_chess("chess") {
        return;
    }
    let positions = random_positions(39, scaled(3000));
    let (mut mates, mut stalemates, mut en_passant) = (0, 0, 0);
    let dir = temp_dir("pychess-orthodox");
    let path = dir.join("positions.tsv");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for (i, pos) in positions.iter().enumerate() {
        let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        moves.sort();
        let ending = match pos.ending() {
            Some(Ending::Checkmate) => {
                mates += 1;
                "checkmate"
            }
            Some(Ending::Stalemate) => {
                stalemates += 1;
                "stalemate"
            }
            None => "-",
        };
        en_passant += usize::from(pos.ep_square().is_some());
        let depth = if i % 20 == 0 { 3 } else { 2 };
        writeln!(
            file,
            "{}\t{}\t{ending}\t{depth}\t{}",
            pos.fen(),
            moves.join(" "),
            perft(pos, depth)
        )
        .unwrap();
    }
    file.flush().unwrap();
    drop(file);
    // The sample must reach the rules it is meant to test.
    assert!(
        mates > 0 && stalemates > 0 && en_passant > 0,
        "{mates} {stalemates} {en_passant}"
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
    assert!(
        stdout.contains(&format!("checked {}", positions.len())),
        "{stdout}"
    );
}
