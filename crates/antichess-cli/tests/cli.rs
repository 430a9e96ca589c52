//! End-to-end tests of the `antichess` binary: output of perft and moves, and clear errors
//! with a non-zero exit code for bad input.

use std::process::{Command, Output};

fn antichess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .output()
        .expect("runs")
}

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

#[test]
fn perft_from_moves_and_fen() {
    let out = antichess(&["perft", "--depth", "4"]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).trim(), "153299");
    let out = antichess(&["perft", "--moves", "e3 b5", "--depth", "2"]);
    // 2. Bxb5 is forced; Black then has 20 replies (python-chess agrees).
    assert_eq!(stdout(&out).trim(), "20", "{}", stderr(&out));
    let out = antichess(&[
        "perft",
        "--fen",
        "8/2p5/8/8/8/8/P7/8 w - - 0 1",
        "--depth",
        "12",
        "--full",
    ]);
    assert_eq!(stdout(&out).trim(), "2557");
}

#[test]
fn perft_divide_lists_every_root_move() {
    let out = antichess(&["perft", "--depth", "3", "--divide"]);
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().filter(|l| !l.is_empty()).collect();
    assert_eq!(lines.len(), 21, "{text}");
    assert!(lines.iter().any(|l| l.starts_with("e2e3 e3")), "{text}");
    let sum: u64 = lines[..20]
        .iter()
        .map(|l| l.split_whitespace().last().unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(sum, 8067);
    assert_eq!(lines[20], "8067");
}

#[test]
fn moves_lists_san_and_uci() {
    let out = antichess(&["moves", "--moves", "1. e3 b5"]);
    let text = stdout(&out);
    assert!(
        text.contains("legal moves: 1 (captures are compulsory)"),
        "{text}"
    );
    assert!(text.contains("Bxb5     f1b5"), "{text}");
}

#[test]
fn moves_reports_results_per_rule_set() {
    let fen = "8/8/8/8/p7/P7/P7/8 w - - 0 1";
    let intl = stdout(&antichess(&["moves", "--fen", fen]));
    assert!(intl.contains("result: 1-0 (white is stalemated)"), "{intl}");
    let fics = stdout(&antichess(&["moves", "--fen", fen, "--rules", "fics"]));
    assert!(fics.contains("result: 0-1"), "{fics}");
    let gone = stdout(&antichess(&[
        "moves",
        "--fen",
        "8/8/8/8/8/8/8/k7 w - - 0 1",
    ]));
    assert!(
        gone.contains("result: 1-0 (white has no pieces left)"),
        "{gone}"
    );
}

#[test]
fn bad_input_is_a_clear_error() {
    let cases: &[(&[&str], &str)] = &[
        (
            &[
                "moves",
                "--fen",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x - - 0 1",
            ],
            "side to move field \"x\"",
        ),
        (&["moves", "--moves", "e3 b5 Nf3"], "ply 3 (2. Nf3)"),
        (
            &["moves", "--rules", "losers"],
            "unknown rule set \"losers\"",
        ),
        (
            &[
                "perft",
                "--fen",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                "--depth",
                "1",
            ],
            "the board is empty",
        ),
    ];
    for (args, words) in cases {
        let out = antichess(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        assert!(stderr(&out).contains(words), "{args:?}: {}", stderr(&out));
        assert!(
            !stderr(&out).contains("panicked"),
            "{args:?}: {}",
            stderr(&out)
        );
    }
}

#[test]
fn an_error_says_each_cause_once() {
    // The move list's error carries the illegal move's error as its source and also writes it
    // into its own message: the chain must not print it twice.
    let out = antichess(&["moves", "--moves", "e4 e5 e6"]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(text.contains("ply 3 (2. e6)"), "{text}");
    assert_eq!(text.matches("illegal move").count(), 1, "{text}");
    // A directory opens but cannot be read: the I/O error is the source of our message.
    let dir = std::env::temp_dir();
    let out = antichess(&["proof", "verify", dir.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = stderr(&out);
    assert!(text.contains("reading "), "{text}");
    assert_eq!(text.matches("os error").count(), 1, "{text}");
}

#[test]
fn bench_movegen_asserts_its_counts() {
    let out = antichess(&["bench", "movegen", "--repeat", "1"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let text = stdout(&out);
    assert!(
        text.contains("46264162") && text.contains("Mnodes/s"),
        "{text}"
    );
}
