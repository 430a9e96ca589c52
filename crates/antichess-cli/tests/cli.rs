//! End-to-end tests of the `antichess` binary: output of perft and moves, and clear errors
//! with a non-zero exit code for bad input.

use crate::common::antichess;

use std::process::Output;

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

fn json(args: &[&str]) -> serde_json::Value {
    let out = antichess(args);
    assert!(out.status.success(), "{args:?}: {}", stderr(&out));
    serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{args:?}: {e}: {}", stdout(&out)))
}

#[test]
fn moves_and_perft_print_json() {
    let v = json(&["moves", "--moves", "1. e3 b5", "--format", "json"]);
    assert_eq!(v["turn"], "white");
    assert_eq!(v["rules"], "international");
    assert_eq!(v["outcome"], serde_json::Value::Null);
    assert_eq!(v["captures_compulsory"], true);
    assert_eq!(
        v["moves"],
        serde_json::json!([{ "uci": "f1b5", "san": "Bxb5" }])
    );
    let v = json(&[
        "moves",
        "--fen",
        "8/8/8/8/p7/P7/P7/8 w - - 0 1",
        "--format",
        "json",
    ]);
    assert_eq!(v["outcome"]["result"], "1-0");
    assert_eq!(v["outcome"]["reason"], "white is stalemated");
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);

    let v = json(&["perft", "--depth", "3", "--divide", "--format", "json"]);
    assert_eq!(v["nodes"], 8067);
    assert_eq!(v["depth"], 3);
    let divide = v["divide"].as_array().unwrap();
    assert_eq!(divide.len(), 20);
    let sum: u64 = divide.iter().map(|m| m["nodes"].as_u64().unwrap()).sum();
    assert_eq!(sum, 8067);
    assert!(divide
        .iter()
        .any(|m| m["uci"] == "e2e3" && m["san"] == "e3"));
    let v = json(&["perft", "--depth", "2", "--format", "json"]);
    assert_eq!(v["nodes"], 400);
    assert!(v.get("divide").is_none());
}

#[test]
fn benches_print_one_json_object() {
    let v = json(&["bench", "movegen", "--repeat", "1", "--format", "json"]);
    let results = v["results"].as_array().unwrap();
    assert_eq!(results.len(), 8);
    assert_eq!(results[0]["nodes"], 46_264_162);
    assert!(v["nodes_per_second_last_ply_counted"].as_f64().unwrap() > 0.0);

    let v = json(&["bench", "tablebase", "--units", "2", "--format", "json"]);
    assert_eq!(v["by_units"][0]["units"], 2);
    assert!(v["tables_built"].as_u64().unwrap() > 0, "{v}");
    assert!(v["positions_per_second"].as_f64().unwrap() > 0.0);

    let v = json(&[
        "bench",
        "solve",
        "--lines",
        "d5",
        "--minimize",
        "0",
        "--no-speed",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--format",
        "json",
    ]);
    let line = &v["lines"][0];
    assert_eq!(line["line"], "e3 d5");
    assert_eq!(line["result"], "proved");
    assert_eq!(line["verified"], true);
    assert_eq!(line["reference_proof_nodes"], 33);
    assert_eq!(v["entry_bytes"], 24);

    let v = json(&[
        "bench",
        "book",
        "--moves",
        "e3 d5",
        "--search-nodes",
        "20000",
        "--workers",
        "1",
        "--tb-units",
        "0",
        "--format",
        "json",
    ]);
    let row = &v["results"][0];
    assert_eq!(row["result"], "solved", "{v}");
    assert_eq!(row["verified"], true, "{v}");
    assert!(row["proof_nodes"].as_u64().unwrap() > 0);

    let v = json(&[
        "bench",
        "store",
        "--processes",
        "1",
        "--time",
        "1s",
        "--format",
        "json",
    ]);
    assert_eq!(v["store"], "SQLite");
    assert!(v["claims"].as_u64().unwrap() > 0, "{v}");
    assert!(v["claims_per_second"].as_f64().unwrap() > 0.0);
}
