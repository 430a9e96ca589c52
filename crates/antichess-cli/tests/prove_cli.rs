//! End-to-end test of `antichess prove`: a run stopped by its budget keeps its book (exit
//! code 3, the solved subtrees written beside it), the same command run again resumes that
//! book instead of starting over, proves the line, and writes a proof that verifies.

use crate::common::{antichess_in as antichess, text};

use std::path::Path;
use std::process::Output;

use antichess_testkit::temp_dir;

fn json(out: &Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(out)))
}

#[test]
fn prove_resumes_its_book_and_writes_a_verified_proof() {
    let dir = temp_dir("prove");
    let tables = dir.join("no-tables");
    let cache = dir.join("cache");
    let output = dir.join("line.proof");
    let run = |extra: &[&str]| {
        let mut args = vec![
            "prove",
            "--moves",
            "e3 Na6 Bxa6 bxa6 Qe2",
            "--prover",
            "white",
            "-o",
            output.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--units",
            "0",
            "--workers",
            "1",
            "--search-nodes",
            "20K",
            "--hash",
            "64M",
            "--format",
            "json",
        ];
        args.extend(extra);
        antichess(&args, &tables)
    };
    // A first run cut short by its budget.
    let out = run(&["--searches", "20"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let first = json(&out);
    assert_eq!(first["solved"], false, "{first}");
    assert_eq!(first["resumed"], false);
    assert_eq!(first["searches"], 20);
    let book = first["book"].as_str().unwrap().to_string();
    assert!(
        book.ends_with("international-white-e3-Na6-Bxa6-bxa6-Qe2.book"),
        "{book}"
    );
    assert!(Path::new(&book).exists());
    assert!(!output.exists());

    // The same command goes on from the book (a walk may change between runs); with
    // time left but --no-minimize the proof is written as assembled.
    let out = run(&[
        "--select",
        "dominant",
        "--dominance",
        "3",
        "--effort",
        "0.25",
        "--time",
        "1h",
        "--no-minimize",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let second = json(&out);
    assert_eq!(second["resumed"], true, "{second}");
    assert_eq!(second["solved"], true);
    assert_eq!(second["verified"], true);
    assert_eq!(second["minimized"], false, "{second}");
    let this_run = second["searches"].as_u64().unwrap();
    assert_eq!(
        second["searches_in_all"].as_u64().unwrap(),
        20 + this_run,
        "the second run did not continue the first one's book: {second}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("resumed"), "{err}");

    let out = antichess(
        &[
            "proof",
            "verify",
            output.to_str().unwrap(),
            "--format",
            "json",
        ],
        &tables,
    );
    let v = json(&out);
    assert_eq!(v["verified"], true, "{}", text(&out));
    assert_eq!(v["counts"]["total"], second["proof_nodes"]);
    assert_eq!(
        v["root_fen"],
        "r1bqkbnr/p1pppppp/p7/8/8/4P3/PPPPQPPP/RNB1K1NR b - - 1 3"
    );
}

/// `--grow-tables`: every `--tables-every` searches, beside the searches, the bound tables of the
/// materials the book met most are built (one unit beyond `--units`) and probed from then
/// on; a run cut short by `--searches` reports them.
#[test]
fn prove_grows_its_tables_between_rounds() {
    let dir = temp_dir("prove-grow-tables");
    let tables = dir.join("tables");
    let out = antichess(
        &[
            "tb",
            "build",
            "--units",
            "2",
            "--tables",
            tables.to_str().unwrap(),
        ],
        &tables,
    );
    assert!(out.status.success(), "{}", text(&out));
    let out = antichess(
        &[
            "prove",
            "--fen",
            "k7/8/8/8/8/2p5/1P1P4/R7 w - - 0 1",
            "-o",
            dir.join("p.proof").to_str().unwrap(),
            "--cache",
            dir.join("cache").to_str().unwrap(),
            "--tables",
            tables.to_str().unwrap(),
            "--units",
            "2",
            "--workers",
            "1",
            "--search-nodes",
            "2K",
            "--hash",
            "64M",
            "--searches",
            "30",
            "--grow-tables",
            "2",
            "--tables-every",
            "10",
            "--format",
            "json",
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let report = json(&out);
    assert_eq!(report["searches"], 30, "{report}");
    let grown = &report["tables_grown"];
    assert!(grown["rounds"].as_u64().unwrap() >= 1, "{report}");
    assert!(grown["tables"].as_u64().unwrap() >= 2, "{report}");
    assert_eq!(report["tables_complete_units"], 2, "{report}");
    assert_eq!(report["tables_units"], 3, "{report}");
    let bound: Vec<String> = std::fs::read_dir(&tables)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".bound-white.actb"))
        .collect();
    assert!(bound.len() >= 2, "{bound:?}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("building bound tables for white"), "{err}");

    // Without tables to grow from, a clear error.
    let out = antichess(
        &[
            "prove",
            "--fen",
            "k7/8/8/8/8/2p5/1P1P4/R7 w - - 0 1",
            "-o",
            dir.join("q.proof").to_str().unwrap(),
            "--units",
            "0",
            "--grow-tables",
            "2",
        ],
        &tables,
    );
    assert!(!out.status.success());
    assert!(
        text(&out).contains("--grow-tables needs tables"),
        "{}",
        text(&out)
    );
}

/// `--frontier`: a run cut short writes its book's frontier; with the cache gone (a fresh
/// checkout), the same command builds the book from that file and goes on to a verified
/// proof. `--line` queues a known line; `book save-frontier` and `load-frontier` do the
/// same by hand; a frontier of another line is refused by name.
#[test]
fn prove_goes_on_from_its_frontier_file_on_a_fresh_cache() {
    let dir = temp_dir("prove-frontier");
    let tables = dir.join("no-tables");
    let frontier = dir.join("line.frontier");
    let output = dir.join("line.proof");
    let run = |cache: &str, moves: &str, extra: &[&str]| {
        let cache = dir.join(cache);
        let mut args = vec![
            "prove",
            "--moves",
            moves,
            "--prover",
            "white",
            "-o",
            output.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--frontier",
            frontier.to_str().unwrap(),
            "--units",
            "0",
            "--workers",
            "1",
            "--search-nodes",
            "20K",
            "--hash",
            "64M",
            "--format",
            "json",
        ];
        args.extend(extra);
        antichess(&args, &tables)
    };
    let line = "e3 Na6 Bxa6 bxa6 Qe2";
    let out = run("cache1", line, &["--searches", "20", "--line", "e6"]);
    assert_eq!(out.status.code(), Some(3), "{}", text(&out));
    let first = json(&out);
    assert_eq!(first["from_frontier"], false, "{first}");
    assert_eq!(first["frontier"]["saves"], 1, "{first}");
    assert!(
        first["frontier"]["last"]["nodes"].as_u64().unwrap() > 1,
        "{first}"
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("line queued: e6"), "{err}");
    assert!(err.contains("frontier written to"), "{err}");
    assert!(frontier.exists());

    // By hand: the file makes a book, and that book's frontier is the same size.
    let by_hand = dir.join("by-hand.book");
    let out = antichess(
        &[
            "book",
            "load-frontier",
            frontier.to_str().unwrap(),
            "-o",
            by_hand.to_str().unwrap(),
            "--tb-units",
            "0",
            "--format",
            "json",
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let loaded = json(&out);
    assert_eq!(
        loaded["report"]["nodes"], first["frontier"]["last"]["nodes"],
        "{loaded}"
    );
    assert_eq!(loaded["report"]["rejected"].as_array().unwrap().len(), 0);
    let again = dir.join("again.frontier");
    let out = antichess(
        &[
            "book",
            "save-frontier",
            by_hand.to_str().unwrap(),
            "-o",
            again.to_str().unwrap(),
            "--tb-units",
            "0",
            "--format",
            "json",
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let saved = json(&out);
    assert_eq!(
        saved["report"]["nodes"], first["frontier"]["last"]["nodes"],
        "{saved}"
    );

    // Another line's frontier is refused.
    let out = run("cache3", "e3 Na6 Bxa6 bxa6 Qf3", &["--searches", "1"]);
    assert_ne!(out.status.code(), Some(0));
    assert!(
        text(&out).contains("is the frontier of a book of another position"),
        "{}",
        text(&out)
    );

    // A fresh cache: built from the file, then proved.
    let out = run("cache2", line, &["--time", "1h", "--no-minimize"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let second = json(&out);
    assert_eq!(second["from_frontier"], true, "{second}");
    assert_eq!(second["resumed"], false, "{second}");
    assert_eq!(second["verified"], true, "{second}");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("built from"), "{err}");
}

/// Issue 63: the prover defaults to the side to move, Black after `--moves e3`. Given
/// White's proofs as seeds, `prove` built its tables, created an empty book in its cache
/// and only then failed on the first seed. It fails at once now, saying which `--prover`
/// to give, before any table is built or book created; and `--units 1` names `--units`.
#[test]
fn prove_refuses_seeds_of_the_other_prover_before_building_anything() {
    let dir = temp_dir("prove-prover");
    let tables = dir.join("tables");
    let cache = dir.join("cache");
    let d5 = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-d5.proof");
    let out = antichess(
        &[
            "prove",
            "--moves",
            "e3",
            "--seed",
            d5.to_str().unwrap(),
            "-o",
            dir.join("e3.proof").to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--tables",
            tables.to_str().unwrap(),
            "--units",
            "3",
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains(
            "e3-d5.proof: the proof proves a win for white, but the book would prove one for black"
        ) && err.contains("give --prover white"),
        "{err}"
    );
    assert!(!tables.exists(), "no table built");
    assert!(!cache.exists(), "no book created");

    let out = antichess(
        &[
            "prove",
            "--moves",
            "e3 Na6",
            "-o",
            dir.join("na6.proof").to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--units",
            "1",
        ],
        &tables,
    );
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--units 1: choose 0 (no tables) or 2 to 5"),
        "{err}"
    );
    assert!(!cache.exists(), "no book created");
}

/// `--hints`: a bad file is refused before anything is built, naming the line and the
/// move; a good one is read (a line on stderr) and the run proves as without it.
#[test]
fn prove_reads_hints_and_refuses_a_bad_hints_file() {
    let dir = temp_dir("prove-hints");
    let tables = dir.join("tables");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.hints");
    std::fs::write(
        &bad,
        "# the record\ne2e3 b8a6 f1a6\ne2e3 b8a6 f1a6 b7a6 e2e4\n",
    )
    .unwrap();
    let good = dir.join("good.hints");
    std::fs::write(&good, "e2e3 b8a6 f1a6 b7a6 d1e2\n").unwrap();
    let run = |hints: &Path| {
        antichess(
            &[
                "prove",
                "--moves",
                "e3 Na6 Bxa6 bxa6",
                "--prover",
                "white",
                "-o",
                dir.join("line.proof").to_str().unwrap(),
                "--cache",
                cache.to_str().unwrap(),
                "--tables",
                tables.to_str().unwrap(),
                "--units",
                "0",
                "--workers",
                "1",
                "--search-nodes",
                "20K",
                "--hash",
                "16M",
                "--no-minimize",
                "--hints",
                hints.to_str().unwrap(),
            ],
            &tables,
        )
    };
    let out = run(&bad);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("bad.hints, line 3: move 5 (e2e4)"),
        "the error names the file, line and move: {err}"
    );
    assert!(!cache.exists(), "no book created");
    let out = run(&good);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("hints: 1 line(s)") && err.contains("the prover's move at 3 position(s)"),
        "{err}"
    );
}
