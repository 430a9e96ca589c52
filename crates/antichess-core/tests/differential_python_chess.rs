//! Differential test against python-chess (`chess.variant.AntichessBoard` for international
//! rules, `SuicideBoard` for FICS rules): legal move sets and game results over random
//! playouts and random sparse positions.
//!
//! Needs `python3` with the `chess` package (`pip install chess`; `.ci/run` installs it).
//! Outside CI the test is skipped with a message when they are missing; under CI (`CI` set)
//! their absence is a failure.

use antichess_testkit::{random, scaled, temp_dir};

use std::io::Write;
use std::process::Command;

use antichess_core::{Position, Rules};

fn result(pos: &Position) -> &'static str {
    pos.outcome().map_or("*", |o| o.pgn())
}

#[test]
fn positions_agree_with_python_chess() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/oracle/python_chess_check.py"
    );
    if !antichess_testkit::python_chess("chess.variant") {
        return;
    }

    let mut positions = random::playout_positions(11, scaled(100_000), Rules::INTERNATIONAL);
    positions.extend(random::sparse_positions(
        12,
        scaled(30_000),
        Rules::INTERNATIONAL,
    ));
    let dir = temp_dir("pychess");
    let path = dir.join("positions.tsv");
    let mut file = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for pos in &positions {
        let mut moves: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
        moves.sort();
        let fics = pos.with_rules(Rules::FICS);
        writeln!(
            file,
            "{}\t{}\t{}\t{}",
            pos.fen(),
            moves.join(" "),
            result(pos),
            result(&fics)
        )
        .unwrap();
    }
    file.flush().unwrap();
    drop(file);

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
