//! End-to-end tests of `antichess tb … --game lasker`: building Lasker chess tables,
//! probing (text and JSON, every move with its value and depth), statistics with the
//! paper's figures for KPk and the DTS line, and clear errors.

use antichess_core::orthodox::{Ending, OrthoPosition};
use antichess_testkit::temp_dir;
use std::process::{Command, Output};

fn antichess(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .output()
        .expect("runs")
}

fn text(out: &[u8]) -> String {
    String::from_utf8_lossy(out).into_owned()
}

fn json(out: &Output) -> serde_json::Value {
    assert!(out.status.success(), "{}", text(&out.stderr));
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn build_probe_stats() {
    let dir = temp_dir("lasker");
    let d = dir.to_str().unwrap();
    let out = antichess(&[
        "tb", "build", "--game", "lasker", "KQk", "KPk", "--tables", d,
    ]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(
        text(&out.stdout).contains("Lasker tables built"),
        "{}",
        text(&out.stdout)
    );
    assert!(dir.join("KQvK.lctb").exists() && dir.join("KPvK.lctb").exists());
    // The antichess default is untouched: no antichess table was written.
    assert!(!dir.join("KQvK.actb").exists());
    let v = json(&antichess(&[
        "tb", "build", "--game", "lasker", "KQk", "--format", "json", "--tables", d,
    ]));
    assert_eq!(v["built"], 0);
    assert_eq!(v["present"], 1);

    // Mate in one with White to move: the value, and every move with the value after it.
    let fen = "6k1/8/6K1/8/8/8/8/Q7 w - - 0 1";
    let out = antichess(&[
        "tb", "probe", "--game", "lasker", "--fen", fen, "--tables", d,
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(t.contains("value: 4 wins by mate (mate-win, dtm 1)"), "{t}");
    let v = json(&antichess(&[
        "tb", "probe", "--game", "lasker", "--fen", fen, "--format", "json", "--tables", d,
    ]));
    assert_eq!(v["value"], 4);
    assert_eq!(v["category"], "mate-win");
    assert_eq!(v["depth"], 1);
    assert_eq!(v["metric"], "dtm");
    let moves = v["moves"].as_array().unwrap();
    let pos = OrthoPosition::from_fen(fen).unwrap();
    assert_eq!(moves.len(), pos.legal_moves().len());
    assert_eq!(moves[0]["value"], 0, "the best move mates: {}", moves[0]);
    assert_eq!(moves[0]["depth"], 0);
    assert!(moves[0]["san"].as_str().unwrap().ends_with('#'));

    // Black to move, stalemated.
    let v = json(&antichess(&[
        "tb",
        "probe",
        "--game",
        "lasker",
        "--fen",
        "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "--format",
        "json",
        "--tables",
        d,
    ]));
    assert_eq!(v["value"], 1);
    assert_eq!(v["depth"], 0);
    assert_eq!(v["moves"].as_array().unwrap().len(), 0);

    // Statistics of KPk: the paper's White-to-move percentages (4 3 2 1 0), the deepest
    // forced stalemate (42 plies, 21 unique positions, Black to move) and its line.
    let v = json(&antichess(&[
        "tb", "stats", "--game", "lasker", "KPk", "--format", "json", "--tables", d,
    ]));
    let t = &v["tables"][0];
    let pct: Vec<f64> = t["white_to_move"]["percent"]
        .as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap())
        .collect();
    assert_eq!(pct, [0.0, 0.002, 13.159, 10.33, 76.509]);
    // One pawn: no position with an en passant right, and the percentages with them are the
    // same (the second row, for pawns of both colours, is pinned on KPkp in antichess-tb's
    // lasker_paper::kpkp_row).
    let ep = &t["white_to_move"]["en_passant"];
    assert_eq!(ep["unique"], serde_json::json!([0, 0, 0, 0, 0]));
    assert_eq!(ep["percent_with"], t["white_to_move"]["percent"]);
    assert_eq!(t["black_to_move"]["deepest_dts"]["depth"], 42);
    assert_eq!(t["black_to_move"]["deepest_dts"]["unique"], 21);
    let line = &t["dts_line"];
    let mut pos = OrthoPosition::from_fen(line["start"].as_str().unwrap()).unwrap();
    let moves = line["moves"].as_array().unwrap();
    assert_eq!(moves.len(), 42);
    for m in moves {
        let mv = pos.parse_move(m["uci"].as_str().unwrap()).expect("legal");
        pos = pos.play(mv);
    }
    assert_eq!(pos.ending(), Some(Ending::Stalemate));
    assert_eq!(line["end"].as_str().unwrap(), pos.fen());
    let out = antichess(&["tb", "stats", "--game", "lasker", "KPk", "--tables", d]);
    let t = text(&out.stdout);
    assert!(
        t.contains("76.509%") && t.contains("deepest DTS: 42 plies"),
        "{t}"
    );
    assert!(t.contains("ends in stalemate"), "{t}");
    assert!(!t.contains("en passant right"), "{t}");
}

#[test]
fn errors_name_the_input() {
    let dir = temp_dir("lasker-errors");
    let d = dir.to_str().unwrap();
    let out = antichess(&["tb", "build", "--game", "lasker", "KQ", "--tables", d]);
    assert!(!out.status.success());
    let out = antichess(&["tb", "build", "--game", "lasker", "KQQ", "--tables", d]);
    assert!(text(&out.stderr).contains("KQQ"), "{}", text(&out.stderr));
    // The side not to move in check: not a legal position of orthodox chess.
    let out = antichess(&[
        "tb",
        "probe",
        "--game",
        "lasker",
        "--fen",
        "k6R/8/8/8/8/8/8/K7 w - - 0 1",
        "--tables",
        d,
    ]);
    assert!(!out.status.success());
    assert!(
        text(&out.stderr).contains("in check but not to move"),
        "{}",
        text(&out.stderr)
    );
    let out = antichess(&[
        "tb", "build", "--game", "lasker", "--units", "7", "--tables", d,
    ]);
    assert!(
        text(&out.stderr).contains("--units 7"),
        "{}",
        text(&out.stderr)
    );
}

#[test]
fn dry_run_plans_without_building() {
    let dir = temp_dir("lasker-dry");
    let d = dir.to_str().unwrap();
    let out = antichess(&["tb", "build", "--game", "lasker", "KQk", "--tables", d]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let before = std::fs::read_dir(&dir).unwrap().count();
    let v = json(&antichess(&[
        "tb",
        "build",
        "--game",
        "lasker",
        "KQPkq",
        "--dry-run",
        "--format",
        "json",
        "--tables",
        d,
    ]));
    assert_eq!(
        std::fs::read_dir(&dir).unwrap().count(),
        before,
        "nothing built"
    );
    let plan = v["plan"].as_array().unwrap();
    let names: Vec<&str> = plan
        .iter()
        .map(|r| r["material"].as_str().unwrap())
        .collect();
    assert_eq!(names.last(), Some(&"KQPkq"), "{names:?}");
    // Its promotions lead to the four 5-man tables without pawns, before it.
    for m in ["KQQkq", "KQRkq", "KQBkq", "KQNkq", "KQkq", "KQk", "KPk"] {
        assert!(names.contains(&m), "{m} in {names:?}");
    }
    let status = |m: &str| plan.iter().find(|r| r["material"] == m).unwrap()["status"].clone();
    assert_eq!(status("KQk"), "present");
    assert_eq!(status("KQPkq"), "missing");
    assert_eq!(v["tables"], plan.len());
    assert_eq!(v["to_build"], plan.len() - 1);
    let missing: Vec<&serde_json::Value> =
        plan.iter().filter(|r| r["status"] == "missing").collect();
    let positions: u64 = missing
        .iter()
        .map(|r| r["positions"].as_u64().unwrap())
        .sum();
    assert_eq!(v["positions"], positions);
    let largest = missing
        .iter()
        .map(|r| r["memory_estimate"].as_u64().unwrap())
        .max()
        .unwrap();
    assert_eq!(v["largest_memory_estimate"], largest);
    // The table itself needs the most: over 2 bytes per position (its words and marks).
    let kqpkq = plan.last().unwrap();
    let p = kqpkq["positions"].as_u64().unwrap();
    assert!(kqpkq["memory_estimate"].as_u64().unwrap() > 2 * p);
    assert_eq!(largest, kqpkq["memory_estimate"].as_u64().unwrap());

    let out = antichess(&[
        "tb",
        "build",
        "--game",
        "lasker",
        "KQPkq",
        "--dry-run",
        "--tables",
        d,
    ]);
    let t = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(t.contains("KQPkq") && t.contains("to build"), "{t}");
    assert!(
        t.contains(&format!(
            "{} Lasker tables needed, 1 present, {} to build",
            plan.len(),
            plan.len() - 1
        )),
        "{t}"
    );
}
