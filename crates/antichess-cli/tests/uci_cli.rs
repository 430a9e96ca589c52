//! `antichess uci` driven by a real client: python-chess's `chess.engine` (and plain pipes
//! where python-chess hides what is checked). Each test runs one script of `tests/uci/`
//! against the built binary with the shipped proofs of the replies to 1. e3 that are under a
//! megabyte (see [`small_proofs`]):
//!
//! - `proved_game.py`: a full game from 1. e3 g6, won against a random mover by following
//!   `proofs/e3-g6.proof` (mate scores from the proof);
//! - `random_games.py`: legal moves in every position of random games (international and
//!   FICS rules, with and without proofs; node, depth and time budgets);
//! - `stop_infinite.py`: `stop` during `go infinite` (no `bestmove` before it);
//! - `time_control.py`: a game at 1 s + 0.1 s per move, no clock falls to zero;
//! - `bad_input.py`: bad commands, illegal moves, malformed FENs, bad options and random
//!   garbage get an `info string` naming them; the engine stays alive and exits with 0.
//!
//! and, on plain pipes from Rust, `go ponder` answered after `ponderhit` without `stop`.
//!
//! Needs `python3` with the `chess` package (`.ci/run` installs it). Outside CI a missing
//! python-chess skips the tests with a message; under CI (`CI=true`) it is a failure.

use std::process::Command;

const SCRIPTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/uci");
const PROOFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proofs");

/// The proofs the engine loads in the scripts: links to the shipped `proofs/e3-<reply>.proof`
/// files of less than a megabyte (1. e3 g6 among them), in a directory of the test's own.
/// The engine indexes a proof file when a game reaches a position that may be in it; the
/// proof of 1. e3 Nc6 (ten million nodes) takes seconds to index in the test profile, which
/// a random game that came near its line would spend on its clock.
fn small_proofs(test: &str) -> std::path::PathBuf {
    let dir = antichess_testkit::temp_dir(&format!("uci-proofs-{test}"));
    for entry in std::fs::read_dir(PROOFS).expect("proofs/") {
        let path = entry.expect("proofs/ entry").path();
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let one_reply = name
            .strip_prefix("e3-")
            .and_then(|rest| rest.strip_suffix(".proof"))
            .is_some_and(|reply| !reply.contains('-'));
        if one_reply && path.metadata().expect("proof file").len() < 1 << 20 {
            std::os::unix::fs::symlink(&path, dir.join(&name)).expect("link a proof");
        }
    }
    assert!(dir.join("e3-g6.proof").exists(), "proofs/e3-g6.proof");
    dir
}

/// Whether python-chess can be used; panics under CI when it cannot.
fn python_chess() -> bool {
    let probe = Command::new("python3")
        .args(["-c", "import chess.engine, chess.variant"])
        .output();
    if probe.is_ok_and(|o| o.status.success()) {
        return true;
    }
    let ci = std::env::var("CI").is_ok_and(|v| !v.is_empty() && v != "false" && v != "0");
    assert!(
        !ci,
        "python3 with python-chess is required under CI (pip install chess)"
    );
    eprintln!("skipping: python3 with python-chess not found (pip install chess)");
    false
}

/// Runs `tests/uci/<script>` on the binary; fails with its output unless it exits with 0.
fn script(name: &str) {
    if !python_chess() {
        return;
    }
    let out = Command::new("python3")
        .arg(format!("{SCRIPTS}/{name}"))
        .arg(env!("CARGO_BIN_EXE_antichess"))
        .arg(small_proofs(name))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "{name} failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    assert!(
        stdout.contains("all checks passed"),
        "{name}:\n{stdout}\n{stderr}"
    );
    eprintln!("{name}:\n{stdout}");
}

#[test]
fn a_proved_line_is_won_against_a_random_mover() {
    script("proved_game.py");
}

#[test]
fn every_move_of_random_games_is_legal() {
    script("random_games.py");
}

#[test]
fn stop_ends_go_infinite() {
    script("stop_infinite.py");
}

#[test]
fn the_time_control_is_respected() {
    script("time_control.py");
}

#[test]
fn bad_input_is_named_and_the_engine_survives() {
    script("bad_input.py");
}

/// The whole shipped set: `isready` reads the files' headers only (indexing all of it took
/// 15 s and 1.5 GB), and a game indexes the proof of its line when it gets there.
#[test]
fn the_whole_shipped_set_is_indexed_as_the_game_reaches_it() {
    use std::io::{BufRead, Write};
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(["uci", "--proofs", PROOFS])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("antichess uci runs");
    let mut stdin = child.stdin.take().unwrap();
    stdin
        .write_all(b"uci\nisready\nposition startpos moves e2e3 g7g6\ngo nodes 100\n")
        .unwrap();
    stdin.flush().unwrap();
    // `quit` only after the move: it would end the wait for the proof's index.
    let mut stdout = String::new();
    for line in std::io::BufReader::new(child.stdout.take().unwrap()).lines() {
        let line = line.expect("engine output");
        stdout.push_str(&line);
        stdout.push('\n');
        if line.starts_with("bestmove") {
            break;
        }
    }
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
    let found = stdout
        .lines()
        .find(|l| l.starts_with("info string proofs found"))
        .unwrap_or_else(|| panic!("no list of the proofs:\n{stdout}"));
    assert!(found.contains("e3-Nc6.proof"), "{found}");
    let indexed: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains(": indexed "))
        .collect();
    assert!(
        indexed
            .iter()
            .any(|l| l.starts_with("info string proof e3-g6.proof: indexed")),
        "{stdout}"
    );
    assert!(!indexed.iter().any(|l| l.contains("Nc6")), "{indexed:?}");
    assert!(
        stdout.contains("bestmove d1h5"),
        "the proof's 2. Qh5:\n{stdout}"
    );
}

/// Issue 63: `ponderhit` was ignored (no `bestmove` after `go ponder` until `stop`). On
/// the binary's pipes: nothing while it ponders, a legal move after `ponderhit` with the
/// input still open, the `go`'s 300 ms (less the overhead) counted from the `ponderhit`.
#[test]
fn ponderhit_turns_pondering_into_a_timed_search() {
    use std::io::{BufRead, Write};
    use std::sync::mpsc;
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(["uci", "--proofs", ""])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("antichess uci runs");
    let mut stdin = child.stdin.take().unwrap();
    let (lines, received) = mpsc::channel();
    let stdout = child.stdout.take().unwrap();
    std::thread::spawn(move || {
        for line in std::io::BufReader::new(stdout).lines() {
            if lines.send(line.expect("engine output")).is_err() {
                break;
            }
        }
    });
    let next_bestmove = |within: Duration| -> Option<String> {
        let until = Instant::now() + within;
        while let Some(left) = until.checked_duration_since(Instant::now()) {
            match received.recv_timeout(left) {
                Ok(line) if line.starts_with("bestmove ") => return Some(line),
                Ok(_) => {}
                Err(_) => return None,
            }
        }
        None
    };
    stdin
        .write_all(b"uci\nposition startpos moves e2e3 b7b6\ngo ponder movetime 300\n")
        .unwrap();
    stdin.flush().unwrap();
    assert_eq!(
        next_bestmove(Duration::from_millis(800)),
        None,
        "pondering answered"
    );
    stdin.write_all(b"ponderhit\n").unwrap();
    stdin.flush().unwrap();
    let hit = Instant::now();
    let line = next_bestmove(Duration::from_secs(60)).expect("a bestmove after ponderhit");
    assert!(hit.elapsed() >= Duration::from_millis(200), "{line}");
    let best = line.split_whitespace().nth(1).unwrap();
    let pos = ["e2e3", "b7b6"].iter().fold(
        antichess_core::Position::start(antichess_core::Rules::INTERNATIONAL),
        |p, m| p.play(p.parse_uci(m).unwrap()),
    );
    assert!(pos.is_legal(pos.parse_uci(best).unwrap()), "{line}");
    stdin.write_all(b"quit\n").unwrap();
    drop(stdin);
    assert!(child.wait().unwrap().success());
}
