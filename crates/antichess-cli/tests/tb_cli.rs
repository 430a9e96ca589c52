//! End-to-end tests of `antichess tb`: building small tables, probing (text, JSON, many
//! FENs from standard input, automatic building of missing tables), statistics,
//! verification, and clear errors for bad input.

use antichess_testkit::temp_dir;
use std::io::Write;
use std::process::{Command, Output, Stdio};

fn antichess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .output()
        .expect("runs")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

#[test]
fn build_probe_stats_verify() {
    let dir = temp_dir("main");
    let d = dir.to_str().unwrap();
    let out = antichess(&["tb", "build", "KRk", "--tables", d]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("tables built"),
        "{}",
        text(&out.stdout)
    );
    // A second build finds everything present.
    let out = antichess(&["tb", "build", "KRk", "--tables", d]);
    assert!(
        text(&out.stdout).starts_with("0 tables built"),
        "{}",
        text(&out.stdout)
    );

    // White to move with K+R against a lone king: text output lists moves best first.
    let fen = "8/8/8/8/8/2k5/8/KR6 w - - 0 1";
    let out = antichess(&["tb", "probe", "--fen", fen, "--tables", d]);
    let s = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        s.contains("result: ") && s.contains("moves, best first"),
        "{s}"
    );

    let out = antichess(&[
        "tb", "probe", "--fen", fen, "--tables", d, "--format", "json",
    ]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    assert_eq!(v["fen"], fen);
    assert!(["win", "draw", "loss"].contains(&v["category"].as_str().unwrap()));
    let moves = v["moves"].as_array().unwrap();
    assert!(!moves.is_empty());
    for m in moves {
        assert!(m["uci"].is_string() && m["san"].is_string() && m["category"].is_string());
    }

    let out = antichess(&["tb", "stats", "KRk", "--tables", d, "--format", "json"]);
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("json");
    let table = &v["tables"][0];
    assert_eq!(table["material"], "KRk");
    let w = &table["white_to_move"];
    let total =
        w["wins"].as_u64().unwrap() + w["draws"].as_u64().unwrap() + w["losses"].as_u64().unwrap();
    assert_eq!(total, table["positions"].as_u64().unwrap());
    let out = antichess(&["tb", "stats", "KRk", "--tables", d]);
    assert!(
        text(&out.stdout).contains("mutual zugzwangs"),
        "{}",
        text(&out.stdout)
    );

    let out = antichess(&["tb", "verify", "--all", "--tables", d]);
    assert!(out.status.success(), "{}", text(&out.stdout));
    assert!(
        text(&out.stdout).contains("KRk: ok"),
        "{}",
        text(&out.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn probe_many_fens_from_stdin_builds_missing_tables() {
    let dir = temp_dir("stdin");
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args([
            "tb",
            "probe",
            "--fen",
            "-",
            "--format",
            "json",
            "--tables",
            dir.to_str().unwrap(),
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Two positions of different materials (built on demand), an en passant position with
    // two capturing pawns, and a bad line.
    let input = "8/8/8/8/8/8/1p6/B7 w - - 0 1\n8/8/8/2PpP3/8/8/8/8 w - d6 0 1\nnot a fen\n8/8/8/8/8/2k5/8/KN6 b - - 0 1\n";
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let lines: Vec<serde_json::Value> = text(&out.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect();
    assert_eq!(lines.len(), 4, "{}", text(&out.stdout));
    assert!(lines[0]["category"].is_string());
    assert_eq!(lines[1]["moves"].as_array().unwrap().len(), 2);
    assert!(
        lines[2]["error"].as_str().unwrap().contains("invalid FEN"),
        "{}",
        lines[2]
    );
    assert!(lines[3]["category"].is_string());
    assert!(
        !out.status.success(),
        "a bad line makes the exit code non-zero"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_input_is_a_clear_error() {
    let dir = temp_dir("tb-errors");
    let d = dir.to_str().unwrap();
    let cases: &[(&[&str], &str)] = &[
        (
            &["tb", "build", "KRx", "--tables", d],
            "'x' is not a piece letter",
        ),
        (&["tb", "build", "KR", "--tables", d], "black has no pieces"),
        (
            &[
                "tb",
                "probe",
                "--fen",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                "--tables",
                d,
            ],
            "the board is empty",
        ),
        (
            &[
                "tb",
                "probe",
                "--fen",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w - - 0 1",
                "--tables",
                d,
            ],
            "tables have at most 6 units",
        ),
        (
            // Six units: probed when the directory holds the tables, never built on the way.
            &[
                "tb",
                "probe",
                "--fen",
                "8/8/8/3k4/8/8/1NN5/NN2K3 w - - 0 1",
                "--tables",
                d,
            ],
            "no KNNNNk table in",
        ),
        (&["tb", "verify", "KRk", "--tables", d], "no table for KRk"),
    ];
    for (args, words) in cases {
        let out = antichess(args);
        assert!(!out.status.success(), "{args:?}");
        assert!(
            text(&out.stderr).contains(words),
            "{args:?}: {}",
            text(&out.stderr)
        );
    }
    // A table of another rule set is refused with both rule sets named.
    let out = antichess(&["tb", "build", "Kk", "--tables", d, "--rules", "fics"]);
    assert!(out.status.success());
    let out = antichess(&[
        "tb",
        "probe",
        "--fen",
        "8/8/8/8/8/8/8/Kk6 w - - 0 1",
        "--tables",
        d,
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(
        err.contains("fics rules") && err.contains("international rules were requested"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
