//! End-to-end tests of `antichess learn dataset / train / eval` on two small shipped proofs
//! and a small PGN file, and of its refusals: a malformed data set and a weights file of other features give a
//! message naming the problem and exit code 2, never a panic.

use crate::common::{antichess, json, ok, s, text};

use std::path::{Path, PathBuf};

use antichess_testkit::temp_dir;

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../proofs")
        .join(name)
}

/// Runs `antichess` with `args`, which must fail with exit code 2 and end its stderr with
/// an `error:` line (no panic); that line.
fn fails(args: &[&str]) -> String {
    let out = antichess(args);
    assert_eq!(out.status.code(), Some(2), "{args:?}\n{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!stderr.contains("panicked"), "{}", text(&out));
    let last = stderr.lines().last().unwrap_or("");
    assert!(last.starts_with("error: "), "{}", text(&out));
    last.to_string()
}

const FEN: &str = "rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w - - 0 2";

#[test]
fn dataset_train_and_eval() {
    let dir = temp_dir("learn-cli");
    let data = dir.join("data.csv");
    let weights = dir.join("weights.json");
    let d5 = shipped("e3-d5.proof");
    let na6 = shipped("e3-Na6.proof");
    let report = json(&[
        "learn",
        "dataset",
        "--proof",
        s(&d5),
        "--proof",
        s(&na6),
        "-o",
        s(&data),
        "--format",
        "json",
    ]);
    let sources = report["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 2);
    assert_eq!(sources[0]["source"], "e3-d5");
    assert_eq!(sources[0]["nodes"], 33);
    assert_eq!(sources[1]["source"], "e3-Na6");
    assert_eq!(sources[1]["nodes"], 3739);
    let rows = report["rows"].as_u64().unwrap();
    assert!(report["wins"].as_u64().unwrap() > 0 && report["losses"].as_u64().unwrap() > 0);
    let text_of_data = std::fs::read_to_string(&data).unwrap();
    assert!(text_of_data.starts_with("source,units,label,cost,us_units,"));
    assert_eq!(text_of_data.lines().count() as u64, rows + 1);

    // The same command gives the same file.
    let again = dir.join("again.csv");
    ok(&[
        "learn",
        "dataset",
        "--proof",
        s(&d5),
        "--proof",
        s(&na6),
        "-o",
        s(&again),
    ]);
    assert_eq!(std::fs::read(&again).unwrap(), text_of_data.as_bytes());

    let report = json(&[
        "learn",
        "train",
        s(&data),
        "-o",
        s(&weights),
        "--holdout",
        "e3-Na6",
        "--format",
        "json",
    ]);
    assert_eq!(report["train_rows"], 33);
    assert_eq!(report["holdout_rows"], rows - 33);
    assert!(report["holdout_log_loss"].as_f64().unwrap().is_finite());
    let fits = report["sources"].as_array().unwrap();
    assert_eq!(fits[1]["source"], "e3-Na6");
    assert_eq!(fits[1]["held_out"], true);
    assert_eq!(report["weights"].as_array().unwrap().len(), 24);
    let model: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&weights).unwrap()).unwrap();
    assert_eq!(model["format"], "antichess-eval-linear");
    assert_eq!(model["provenance"]["rows"], 33);

    let eval = json(&[
        "learn",
        "eval",
        FEN,
        "--model",
        s(&weights),
        "--format",
        "json",
    ]);
    let p = eval["win_probability"].as_f64().unwrap();
    assert!(p > 0.0 && p < 1.0, "{eval}");
    assert_eq!(eval["turn"], "white");
    assert_eq!(eval["features"].as_array().unwrap().len(), 24);
    assert_eq!(eval["features"][2]["name"], "us_moves");
    assert_eq!(eval["features"][2]["value"], 1.0);
    // Text, and the built-in weights.
    let out = ok(&["learn", "eval", FEN]);
    assert!(out.contains("model: builtin"), "{out}");
    assert!(out.contains("wins with probability"), "{out}");
    let out = ok(&["learn", "train", s(&data), "-o", s(&weights)]);
    assert!(out.contains("train: "), "{out}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_input_is_refused_with_a_message() {
    let dir = temp_dir("learn-cli-bad");
    let data = dir.join("data.csv");
    ok(&[
        "learn",
        "dataset",
        "--proof",
        s(&shipped("e3-d5.proof")),
        "-o",
        s(&data),
    ]);
    let good = std::fs::read_to_string(&data).unwrap();

    // A malformed line, named by number.
    let bad = dir.join("bad.csv");
    let mut lines: Vec<String> = good.lines().map(str::to_string).collect();
    lines[3] = lines[3].replacen(",1,", ",x,", 1).replacen(",0,", ",x,", 1);
    std::fs::write(&bad, lines.join("\n")).unwrap();
    let e = fails(&["learn", "train", s(&bad), "-o", s(&dir.join("w.json"))]);
    assert!(e.contains("line 4"), "{e}");
    // A header of other columns, named by column.
    std::fs::write(&bad, good.replacen("pawn_advance", "pawn_race", 1)).unwrap();
    let e = fails(&["learn", "train", s(&bad), "-o", s(&dir.join("w.json"))]);
    assert!(
        e.contains("\"pawn_race\", expected \"pawn_advance\""),
        "{e}"
    );
    // Not a CSV at all.
    let e = fails(&[
        "learn",
        "train",
        s(&shipped("e3-d5.proof")),
        "-o",
        s(&dir.join("w.json")),
    ]);
    assert!(e.contains("line 1"), "{e}");
    assert!(!dir.join("w.json").exists());
    // A held-out source that is not there.
    let e = fails(&[
        "learn",
        "train",
        s(&data),
        "-o",
        s(&dir.join("w.json")),
        "--holdout",
        "e3-zz",
    ]);
    assert!(e.contains("\"e3-zz\""), "{e}");

    // Weights of other features.
    let weights = dir.join("w.json");
    ok(&["learn", "train", s(&data), "-o", s(&weights)]);
    let text = std::fs::read_to_string(&weights).unwrap();
    let other = dir.join("other.json");
    std::fs::write(&other, text.replacen("\"us_hanging\"", "\"material\"", 1)).unwrap();
    let e = fails(&["learn", "eval", FEN, "--model", s(&other)]);
    assert!(e.contains("material") && e.contains("other.json"), "{e}");
    // Not a weights file, a missing file, a bad FEN, a missing proof.
    let e = fails(&["learn", "eval", FEN, "--model", s(&data)]);
    assert!(e.contains("not an evaluation weights file"), "{e}");
    fails(&["learn", "eval", FEN, "--model", s(&dir.join("none.json"))]);
    let e = fails(&["learn", "eval", "8/8/8/8/8/8/8/8 w - - 0 1"]);
    assert!(e.contains("FEN"), "{e}");
    let e = fails(&[
        "learn",
        "dataset",
        "--proof",
        s(&dir.join("none.proof")),
        "-o",
        s(&bad),
    ]);
    assert!(e.contains("none.proof"), "{e}");
    let e = fails(&["learn", "dataset", "--proof", s(&data), "-o", s(&bad)]);
    assert!(e.contains("data.csv"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Two decided games (one from a FEN, as python-chess writes it) and a draw.
const SMALL_PGN: &str = "[Event \"Rated Antichess game\"]
[Result \"1-0\"]
[Variant \"Antichess\"]

1. h4 { [%clk 0:03:00] } 1... g5 2. hxg5 e6 3. Rxh7 Qxg5 4. Rxf7 Qxg2 5. Rxd7 Qxg1
6. Rxc7 Qxf2 7. Rxb7 Qxe2 1-0

[Event \"?\"]
[Result \"1/2-1/2\"]
[Variant \"Antichess\"]

1. e3 b5 2. Bxb5 1/2-1/2

[Event \"?\"]
[Result \"0-1\"]
[Variant \"Antichess\"]
[FEN \"4k3/3pp3/8/8/8/8/3PP3/4K3 w - - 0 1\"]
[SetUp \"1\"]

1. d4 e5 2. dxe5 Kf8 3. e4 d6 4. exd6 Ke8 5. Kf1 Ke7 6. dxe7# 0-1
";

/// A data set of games alone (no proof, no tables) trains; a game with an illegal move is
/// refused by file, game and move.
#[test]
fn dataset_of_games_alone_trains() {
    let dir = temp_dir("learn-cli-games");
    let pgn = dir.join("small.pgn");
    std::fs::write(&pgn, SMALL_PGN).unwrap();
    let data = dir.join("d.csv");
    let report = json(&[
        "learn",
        "dataset",
        "--games",
        s(&pgn),
        "-o",
        s(&data),
        "--format",
        "json",
    ]);
    let source = &report["sources"][0];
    assert_eq!(source["source"], "small", "{report}");
    assert_eq!(source["kind"], "games", "{report}");
    assert_eq!(source["games"], 3, "{report}");
    assert_eq!(source["games_skipped"], 1, "{report}");
    assert_eq!(report["rows"], 8 + 5, "{report}");
    let out = ok(&["learn", "train", s(&data), "-o", s(&dir.join("m.json"))]);
    assert!(out.contains("train: 13 rows"), "{out}");
    // Fewer skipped plies give more rows; text output names the games.
    let out = ok(&[
        "learn",
        "dataset",
        "--games",
        s(&pgn),
        "--games-skip-plies",
        "0",
        "-o",
        s(&data),
    ]);
    assert!(out.contains("19 rows"), "{out}");
    assert!(out.contains("small: 3 games read, 1 skipped"), "{out}");

    let bad = dir.join("bad.pgn");
    std::fs::write(&bad, SMALL_PGN.replace("5. Rxd7", "5. Rxa8")).unwrap();
    let e = fails(&["learn", "dataset", "--games", s(&bad), "-o", s(&data)]);
    assert!(e.contains("bad.pgn game 1") && e.contains("Rxa8"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The search with the evaluation's initial numbers (`--initial model`) proves a line and
/// its proof verifies; a weights file of other features, or a negative strength, is
/// refused by name before any search.
#[test]
fn solve_with_the_model_proves_and_refuses_bad_weights() {
    let dir = temp_dir("learn-cli-solve");
    let proof = dir.join("na6.proof");
    let out = json(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--tb-units",
        "0",
        "--initial",
        "model",
        "--eval-strength",
        "0.1",
        "--proof",
        s(&proof),
        "--format",
        "json",
    ]);
    assert_eq!(out["result"], "proved", "{out}");
    assert_eq!(out["verified"], true, "{out}");
    ok(&["proof", "verify", s(&proof)]);

    let weights = dir.join("w.json");
    let builtin = antichess_eval::Model::builtin().to_json();
    std::fs::write(
        &weights,
        builtin.replacen("\"us_hanging\"", "\"material\"", 1),
    )
    .unwrap();
    let e = fails(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--initial",
        "model",
        "--eval-model",
        s(&weights),
    ]);
    assert!(e.contains("--eval-model") || e.contains("material"), "{e}");
    let e = fails(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--initial",
        "model",
        "--eval-strength=-1",
    ]);
    assert!(e.contains("--eval-strength"), "{e}");
    let e = fails(&["solve", "--moves", "e3 Na6", "--eval-model", s(&weights)]);
    assert!(e.contains("--initial model"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `learn train-cost` fits the cost model on a data set's proof rows (one source held
/// out), writes a weights file the search reads, and the search with `--initial cost`
/// proves a line whose proof verifies; a strength above 1, a cost model without
/// `--initial cost` and a file of the other kind are refused by name.
#[test]
fn train_cost_then_solve_with_the_cost_model() {
    let dir = temp_dir("learn-cli-cost");
    let data = dir.join("data.csv");
    let weights = dir.join("cost.json");
    ok(&[
        "learn",
        "dataset",
        "--proof",
        s(&shipped("e3-d5.proof")),
        "--proof",
        s(&shipped("e3-Na6.proof")),
        "-o",
        s(&data),
    ]);
    let report = json(&[
        "learn",
        "train-cost",
        s(&data),
        "-o",
        s(&weights),
        "--holdout",
        "e3-d5",
        "--format",
        "json",
    ]);
    let parts = report["parts"].as_array().unwrap();
    assert_eq!(parts.len(), 2, "{report}");
    assert_eq!(parts[0]["part"], "prover");
    assert_eq!(parts[1]["part"], "opponent");
    for part in parts {
        // The features explain a good share of the subtree sizes of the line trained on.
        assert!(part["train_r2"].as_f64().unwrap() > 0.3, "{report}");
        assert!(part["holdout_rows"].as_u64().unwrap() > 0, "{report}");
        assert_eq!(part["weights"].as_array().unwrap().len(), 24);
    }
    assert_eq!(report["skipped_rows"], 0);
    let sources = report["sources"].as_array().unwrap();
    assert!(sources
        .iter()
        .any(|s| s["source"] == "e3-d5" && s["held_out"] == true));
    let model = antichess_eval::CostModel::load(&weights).unwrap();
    assert_eq!(model.provenance.holdout, vec!["e3-d5".to_string()]);
    let out = ok(&["learn", "train-cost", s(&data), "-o", s(&weights)]);
    assert!(
        out.contains("prover's turn: ") && out.contains("R²"),
        "{out}"
    );

    let proof = dir.join("na6.proof");
    let out = json(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--tb-units",
        "0",
        "--initial",
        "cost",
        "--cost-model",
        s(&weights),
        "--eval-strength",
        "0.5",
        "--proof",
        s(&proof),
        "--format",
        "json",
    ]);
    assert_eq!(out["result"], "proved", "{out}");
    assert_eq!(out["verified"], true, "{out}");
    ok(&["proof", "verify", s(&proof)]);

    let e = fails(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--initial",
        "cost",
        "--eval-strength",
        "1.5",
    ]);
    assert!(e.contains("--eval-strength 1.5"), "{e}");
    let e = fails(&["solve", "--moves", "e3 Na6", "--cost-model", s(&weights)]);
    assert!(e.contains("--initial cost"), "{e}");
    let linear = dir.join("linear.json");
    std::fs::write(&linear, antichess_eval::Model::builtin().to_json()).unwrap();
    let e = fails(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--initial",
        "cost",
        "--cost-model",
        s(&linear),
    ]);
    assert!(e.contains("--cost-model"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
