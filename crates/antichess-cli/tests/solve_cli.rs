//! End-to-end tests of `antichess solve` and `antichess bench solve`: results and their JSON
//! form, proofs written and then checked by `antichess proof verify`, budgets, and errors
//! that name the bad input. Small tables are built into a temporary directory.

use crate::common::{antichess, json_of as json, text};

use antichess_testkit::temp_dir as temp;
use std::process::Command;

#[test]
fn proves_writes_and_verifies_with_tables() {
    let dir = temp("proof");
    let tables = dir.join("tables");
    let proof = dir.join("e3-d5.proof");
    let out = antichess(&[
        "solve",
        "--moves",
        "e3 d5",
        "--tables",
        tables.to_str().unwrap(),
        "--tb-units",
        "2",
        "--hash",
        "16M",
        "--proof",
        proof.to_str().unwrap(),
        "--format",
        "json",
    ]);
    let v = json(&out);
    assert_eq!(v["result"], "proved");
    assert_eq!(v["prover"], "white");
    assert_eq!(v["verified"], true);
    assert!(v["nodes"].as_u64().unwrap() > 0);
    assert!(v["seconds"].as_f64().is_some());
    let proof_nodes = v["proof_nodes"].as_u64().unwrap();
    assert!(proof_nodes > 10, "{v}");
    let moves = v["moves"].as_array().unwrap();
    // After 1. e3 d5 White has 30 legal moves; exactly the winning ones have proof 0.
    assert_eq!(moves.len(), 30);
    assert!(moves
        .iter()
        .all(|m| m["uci"].is_string() && m["san"].is_string()));
    let winning: Vec<_> = moves.iter().filter(|m| m["proof"] == 0).collect();
    assert!(!winning.is_empty());
    assert!(winning.iter().all(|m| m["disproof"] == "inf"));

    // The independent verifier agrees, and counts the same nodes.
    let out = antichess(&["proof", "verify", proof.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&proof_nodes.to_string()),
        "{}",
        text(&out)
    );

    // Text form: result, root moves, main line, proof report.
    let out = antichess(&[
        "solve",
        "--moves",
        "e3 d5",
        "--tables",
        tables.to_str().unwrap(),
        "--tb-units",
        "2",
        "--hash",
        "16M",
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    for needle in [
        "result: proved: white wins",
        "nodes/s",
        "main line: 2.",
        "proof",
        "disproof",
    ] {
        assert!(
            stdout.contains(needle),
            "missing {needle:?}\n{}",
            text(&out)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn black_prover_and_budgets() {
    // Black wins after 1. e4 (e.g. 1... b5); proved for Black, not for White.
    let args = [
        "solve",
        "--moves",
        "e4",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--format",
        "json",
    ];
    let v = json(&antichess(&[&args[..], &["--prover", "black"]].concat()));
    assert_eq!(v["result"], "proved");
    assert_eq!(v["prover"], "black");
    // Too small a budget: unknown, with finite numbers at the root.
    let v = json(&antichess(
        &[&args[..], &["--prover", "black", "--nodes", "50"]].concat(),
    ));
    assert_eq!(v["result"], "unknown", "{v}");
    let proof_number = v["proof"].as_u64().unwrap();
    assert!(proof_number > 0);
    // The text form says what the root's proof number means for a proof's size.
    let text_args: Vec<&str> = args
        .iter()
        .copied()
        .filter(|a| !["--format", "json"].contains(a))
        .collect();
    let out = antichess(&[&text_args[..], &["--prover", "black", "--nodes", "50"]].concat());
    assert!(out.status.success(), "{}", text(&out));
    let expected = format!(
        "root: proof {proof_number}, disproof {} (a proof would have at least {} nodes written as a tree)",
        v["disproof"],
        proof_number + 1
    );
    assert!(
        String::from_utf8_lossy(&out.stdout).contains(&expected),
        "{expected}\n{}",
        text(&out)
    );
    // A budget with a unit: 2K is 2,000 nodes (the search stops within a few expansions).
    let v = json(&antichess(
        &[&args[..], &["--prover", "black", "--nodes", "2K"]].concat(),
    ));
    assert_eq!(v["result"], "unknown", "{v}");
    let nodes = v["nodes"].as_u64().unwrap();
    assert!((2_000..2_500).contains(&nodes), "{v}");
    // White's only move, axb3, leaves Black without pieces, which wins for Black: disproved.
    let v = json(&antichess(&[
        "solve",
        "--fen",
        "8/8/8/8/8/1r6/P7/8 w - - 0 1",
        "--prover",
        "white",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--format",
        "json",
    ]));
    assert_eq!(v["result"], "disproved", "{v}");
}

#[test]
fn bad_input_is_named() {
    for (args, needle) in [
        (
            vec!["solve", "--fen", "8/8/8/8/8/8/8/8/8 w - - 0 1"],
            "8/8/8/8/8/8/8/8/8",
        ),
        (vec!["solve", "--moves", "e3 Ke7x"], "Ke7x"),
        (vec!["solve", "--prover", "green"], "green"),
        (vec!["solve", "--hash", "lots"], "lots"),
        (vec!["solve", "--time", "5 fortnights"], "fortnights"),
        (
            vec!["solve", "--fen", "8/8/8/8/8/8/8/K7 b - - 0 1"],
            "game is over",
        ),
        (vec!["bench", "solve", "--lines", "e3 Qh5"], "Qh5"),
        // More threads than a system can start, and a table larger than any address space:
        // errors that name the value, not a panic when the thread or the map fails.
        (
            vec!["solve", "--moves", "e3", "--threads", "100000"],
            "\"100000\" is not a count from 1 to 1024",
        ),
        (
            vec!["solve", "--moves", "e3", "--nodes", "2Q"],
            "\"2Q\" is not a number of nodes (e.g. 5000000, 500K, 20M, 2G)",
        ),
        (
            vec!["solve", "--moves", "e3", "--nodes", "1e30G"],
            "\"1e30G\" is not a number of nodes",
        ),
        (
            vec!["solve", "--moves", "e3", "--threads", "0"],
            "\"0\" is not a count",
        ),
        (
            vec!["solve", "--moves", "e3", "--hash", "1000000G"],
            "cannot reserve 1024000000 MB for the transposition table (--hash)",
        ),
    ] {
        let out = antichess(&args);
        assert!(
            !out.status.success(),
            "{args:?} should fail\n{}",
            text(&out)
        );
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(needle),
            "{args:?}: error should name {needle:?}\n{}",
            text(&out)
        );
        assert!(!stderr.contains("panicked"), "{}", text(&out));
    }
}

#[test]
fn bench_solve_verifies_its_proofs() {
    let dir = temp("bench");
    let out = antichess(&[
        "bench",
        "solve",
        "--lines",
        "d5,d6,e4",
        "--minimize-nodes",
        "1M",
        "--no-speed",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--proof-dir",
        dir.to_str().unwrap(),
    ]);
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<&str> = stdout.lines().filter(|l| l.contains(" proved ")).collect();
    assert_eq!(rows.len(), 3, "{}", text(&out));
    assert!(rows.iter().all(|r| r.ends_with("valid")), "{}", text(&out));
    assert!(stdout.contains("table entry: 24 bytes"));
    for name in ["e3-d5.proof", "e3-d6.proof", "e4.proof"] {
        let out = antichess(&["proof", "verify", dir.join(name).to_str().unwrap()]);
        assert!(out.status.success(), "{name}: {}", text(&out));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_checkpointed_solve_resumes_and_minimises() {
    let dir = temp("checkpoint");
    let ckpt = dir.join("na6.ckpt");
    let ckpt_s = ckpt.to_str().unwrap();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "solve",
            "--moves",
            "e3 Na6",
            "--tb-units",
            "0",
            "--hash",
            "32M",
            "--format",
            "json",
            "--checkpoint",
            ckpt_s,
        ];
        args.extend_from_slice(extra);
        antichess(&args)
    };
    // Stopped by its budget: unknown, and the state is saved.
    let first = json(&run(&["--nodes", "200000"]));
    assert_eq!(first["result"], "unknown");
    assert!(ckpt.exists());
    // Resumed: proved, with fewer nodes than a fresh search needs.
    let fresh = json(&antichess(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--tb-units",
        "0",
        "--hash",
        "32M",
        "--format",
        "json",
    ]));
    let second = json(&run(&[]));
    assert_eq!(second["result"], "proved");
    assert!(
        second["nodes"].as_u64().unwrap() < fresh["nodes"].as_u64().unwrap(),
        "resumed {} vs fresh {}",
        second["nodes"],
        fresh["nodes"]
    );
    // Solved in the checkpoint: the proof comes at once, minimised, and verifies.
    let proof = dir.join("na6.proof");
    let third = json(&run(&[
        "--proof",
        proof.to_str().unwrap(),
        "--minimize-nodes",
        "1M",
    ]));
    assert_eq!(third["result"], "proved");
    assert_eq!(third["nodes"], 0);
    assert_eq!(third["verified"], true);
    assert!(
        third["proof_nodes"].as_u64().unwrap()
            <= third["unminimized_proof_nodes"].as_u64().unwrap()
    );
    // Another position, or a damaged file: an error naming the file.
    let other = antichess(&[
        "solve",
        "--moves",
        "e3 d5",
        "--tb-units",
        "0",
        "--checkpoint",
        ckpt_s,
    ]);
    assert_eq!(other.status.code(), Some(2), "{}", text(&other));
    let err = String::from_utf8_lossy(&other.stderr);
    assert!(
        err.contains("na6.ckpt") && err.contains("position"),
        "{err}"
    );
    let bytes = std::fs::read(&ckpt).unwrap();
    std::fs::write(&ckpt, &bytes[..bytes.len() / 2]).unwrap();
    let damaged = run(&[]);
    assert_eq!(damaged.status.code(), Some(2), "{}", text(&damaged));
    assert!(String::from_utf8_lossy(&damaged.stderr).contains("na6.ckpt"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn output_to_a_closed_pipe_is_not_a_panic() {
    // As in `antichess moves | head -0`: the reader is gone before anything is printed.
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(["moves", "--moves", "e3"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert_eq!(out.status.code(), Some(0), "{stderr}");
}
