//! Royal-king tablebases from the command line: `tb build` plans the 15 tables of
//! `--units 4` under pritchard3 and builds one, refuses more than 4 units; `tb probe`
//! answers a mate in one and a bare-king win; `solve` under pritchard3 uses the table (its
//! proof is one table leaf, no missing table; without tables the same budget does not
//! settle it) and proves what the table says.

use crate::common;

use crate::common::{json, ok, text};

fn temp(name: &str) -> std::path::PathBuf {
    antichess_testkit::temp_dir(name)
}

/// White to move mates in one with Rb8# (no capture is possible).
const MATE_IN_ONE: &str = "7k/8/6K1/8/n7/8/8/1R6 w - - 0 1";
/// Black's bare king, to move: Black has won by the rule.
const BARE_KING: &str = "7k/8/6K1/8/8/8/8/R7 b - - 0 1";
/// White must take the knight and leave Black a bare king: lost in one ply.
const FORCED_CAPTURE: &str = "7k/8/6K1/8/8/8/8/nR6 w - - 0 1";

#[test]
fn royal_tables_build_probe_and_serve_the_solver() {
    let dir = temp("royal-tb-cli");
    let tables = dir.join("p3");
    let t = tables.to_str().unwrap();
    // The plan of --units 4: the 15 materials K+X against K+Y, nothing smaller.
    let plan = json(&[
        "tb",
        "build",
        "--rules",
        "pritchard3",
        "--units",
        "4",
        "--dry-run",
        "--format",
        "json",
        "--tables",
        t,
    ]);
    assert_eq!(plan["tables"], 15, "{plan}");
    for row in plan["plan"].as_array().unwrap() {
        assert_eq!(row["units"], 4, "{row}");
        assert_eq!(row["status"], "missing", "{row}");
    }
    // More than 4 units is refused, naming the limit.
    let out = common::antichess(&[
        "tb",
        "build",
        "--rules",
        "pritchard4",
        "--units",
        "5",
        "--tables",
        t,
    ]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("at most 4"),
        "{}",
        text(&out)
    );
    // One table (KRkn needs no other).
    let built = json(&[
        "tb",
        "build",
        "--rules",
        "pritchard3",
        "KRkn",
        "--format",
        "json",
        "--tables",
        t,
    ]);
    assert_eq!(built["built"], 1, "{built}");
    assert_eq!(built["tables"][0]["material"], "KRkn", "{built}");

    let probe = |fen: &str| {
        json(&[
            "tb",
            "probe",
            "--rules",
            "pritchard3",
            "--fen",
            fen,
            "--format",
            "json",
            "--tables",
            t,
        ])
    };
    let v = probe(MATE_IN_ONE);
    assert_eq!(v["category"], "win", "{v}");
    assert_eq!(v["dtc"], 1, "{v}");
    assert_eq!(v["moves"][0]["san"], "Rb8#", "{v}");
    assert_eq!(v["moves"][0]["category"], "loss", "{v}");
    let v = probe(BARE_KING);
    assert_eq!(v["category"], "win", "{v}");
    assert_eq!(v["dtc"], 0, "{v}");
    let v = probe(FORCED_CAPTURE);
    assert_eq!(v["category"], "loss", "{v}");
    assert_eq!(v["dtc"], 1, "{v}");
    assert_eq!(v["moves"].as_array().unwrap().len(), 1, "{v}");

    // solve uses the table: Black wins this KRkn position in 16 plies to conversion
    // (`tb stats`' longest win with Black to move); with the table the search proves it at
    // once, its proof is one table leaf (verified), and no material is missing.
    let deep = "1n6/8/8/8/3k4/8/3K4/3R4 b - - 0 1";
    let v = probe(deep);
    assert_eq!(v["category"], "win", "{v}");
    assert_eq!(v["dtc"], 16, "{v}");
    let proof = dir.join("deep.proof");
    let solve = |tables: &[&str], nodes: &str| {
        let mut args = vec![
            "solve",
            "--rules",
            "pritchard3",
            "--fen",
            deep,
            "--hash",
            "16M",
            "--nodes",
            nodes,
            "--format",
            "json",
        ];
        args.extend_from_slice(tables);
        json(&args)
    };
    let v = solve(&["--tables", t, "--proof", proof.to_str().unwrap()], "100K");
    assert_eq!(v["result"], "proved", "{v}");
    assert_eq!(v["prover"], "black", "{v}");
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["proof_nodes"], 1, "a table leaf: {v}");
    assert!(v["nodes"].as_u64().unwrap() < 100, "{v}");
    assert_eq!(v["missing_tables"], serde_json::json!([]), "{v}");
    // Without tables the same budget does not settle it, and the search says which table
    // it missed.
    let v = solve(&["--tb-units", "0"], "20K");
    assert_eq!(v["result"], "unknown", "{v}");
    assert_eq!(v["missing_tables"][0]["material"], "KRkn", "{v}");
    // A position the table says White loses: the solver disproves White at once.
    let v = json(&[
        "solve",
        "--rules",
        "pritchard3",
        "--fen",
        FORCED_CAPTURE,
        "--tables",
        t,
        "--hash",
        "16M",
        "--nodes",
        "100K",
        "--format",
        "json",
    ]);
    assert_eq!(v["result"], "disproved", "{v}");
    let _ = ok(&[
        "tb",
        "verify",
        "--rules",
        "pritchard3",
        "KRkn",
        "--tables",
        t,
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}
