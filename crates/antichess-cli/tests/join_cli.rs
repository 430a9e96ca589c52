//! End-to-end tests of `antichess proof join`: child proofs written by `solve` are joined
//! into the proof of their parent (all replies at an opponent node, one move at a prover
//! node), the joins compose up to the proof of 1. e3 Na6, every result verifies, and a
//! missing child, a proof of another position and a child of another line are refused
//! with messages that name them.

use crate::common::{antichess_in as antichess, json_of as json, s, text};

use std::path::{Path, PathBuf};
use std::process::Output;

use antichess_testkit::temp_dir;

/// The legal moves after `line`, in SAN.
fn moves_after(line: &str, tables: &Path) -> Vec<String> {
    let v = json(&antichess(
        &["moves", "--moves", line, "--format", "json"],
        tables,
    ));
    v["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["san"].as_str().unwrap().to_string())
        .collect()
}

/// `solve --moves line --prover prover --proof file` without tables; returns the file.
fn solve_for(prover: &str, line: &str, file: PathBuf, tables: &Path) -> PathBuf {
    let v = json(&antichess(
        &[
            "solve",
            "--moves",
            line,
            "--prover",
            prover,
            "--tb-units",
            "0",
            "--hash",
            "64M",
            "--nodes",
            "20M",
            "--proof",
            s(&file),
            "--format",
            "json",
        ],
        tables,
    ));
    assert_eq!(v["result"], "proved", "{line}: {v}");
    file
}

/// A proof that White wins after `line`.
fn solve(line: &str, file: PathBuf, tables: &Path) -> PathBuf {
    solve_for("white", line, file, tables)
}

/// `proof join CHILDREN -o OUT EXTRA --format json`.
fn join(children: &[PathBuf], out: &Path, extra: &[&str], tables: &Path) -> Output {
    let mut args = vec!["proof", "join"];
    args.extend(children.iter().map(|p| s(p)));
    args.extend(["-o", s(out), "--format", "json"]);
    args.extend(extra);
    antichess(&args, tables)
}

/// `proof verify FILE --format json`: must verify; returns the statistics.
fn verify(file: &Path, tables: &Path) -> serde_json::Value {
    let v = json(&antichess(
        &["proof", "verify", s(file), "--format", "json"],
        tables,
    ));
    assert_eq!(v["verified"], true);
    v
}

#[test]
fn joins_compose_to_the_proof_of_a_line_and_refuse_what_does_not_fit() {
    let dir = temp_dir("join");
    // No tables anywhere: every leaf of these proofs is a won end of the game.
    let tables = dir.join("no-tables");
    let parent = "e3 Na6 Bxa6 bxa6 Qe2";
    let replies = moves_after(parent, &tables);
    assert_eq!(replies.len(), 17, "{replies:?}");
    let children: Vec<PathBuf> = replies
        .iter()
        .map(|m| {
            solve(
                &format!("{parent} {m}"),
                dir.join(format!("{m}.proof")),
                &tables,
            )
        })
        .collect();

    // Black to move: every reply's proof, parent found from the recorded lines.
    let qe2 = dir.join("qe2.proof");
    let v = json(&join(&children, &qe2, &[], &tables));
    assert_eq!(v["verified"], true, "{v}");
    assert_eq!(v["children"].as_array().unwrap().len(), 17);
    let joined = v["counts"]["total"].as_u64().unwrap();
    let child_nodes = v["child_nodes"].as_u64().unwrap();
    // The root plus the children, positions they share written once.
    assert!(joined <= child_nodes + 1, "{joined} > {child_nodes} + 1");
    let stats = verify(&qe2, &tables);
    assert_eq!(stats["counts"]["total"].as_u64(), Some(joined));
    assert_eq!(
        stats["root_fen"],
        "r1bqkbnr/p1pppppp/p7/8/8/4P3/PPPPQPPP/RNB1K1NR b - - 1 3"
    );

    // Up the line: a prover node (one child), an opponent node with one move, a prover
    // node again: the proof of 1. e3 Na6.
    let bxa6 = dir.join("bxa6.proof");
    json(&join(std::slice::from_ref(&qe2), &bxa6, &[], &tables));
    let bxa6_parent = dir.join("Bxa6.proof");
    json(&join(
        std::slice::from_ref(&bxa6),
        &bxa6_parent,
        &[],
        &tables,
    ));
    let na6 = dir.join("e3-na6.proof");
    // With the parent given by moves, and a second proof of the child (one is taken).
    let other = dir.join("Bxa6-copy.proof");
    std::fs::copy(&bxa6_parent, &other).unwrap();
    let v = json(&join(
        &[bxa6_parent.clone(), other],
        &na6,
        &["--moves", "e3 Na6"],
        &tables,
    ));
    assert_eq!(v["children"].as_array().unwrap().len(), 1, "{v}");
    let stats = verify(&na6, &tables);
    assert_eq!(stats["prover"], "white");
    assert!(stats["counts"]["prover"].as_u64().unwrap() >= 2);
    assert_eq!(
        stats["root_fen"],
        "r1bqkbnr/pppppppp/n7/8/8/4P3/PPPP1PPP/RNBQKBNR w - - 1 2"
    );

    // A missing reply: refused, naming it; nothing written.
    let missing = dir.join("missing.proof");
    let k = replies.iter().position(|m| m == "Bb7").unwrap();
    let mut fewer = children.clone();
    fewer.remove(k);
    let out = join(&fewer, &missing, &[], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no proof given for 1 of its 17 moves: Bb7"),
        "{err}"
    );
    assert!(!missing.exists());

    // A proof of another line among the children: refused, naming the file.
    let stranger = solve("e3 d5", dir.join("d5.proof"), &tables);
    let mut wrong = children.clone();
    wrong.push(stranger.clone());
    let out = join(&wrong, &missing, &[], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("d5.proof") && err.contains("not proofs of children of one position"),
        "{err}"
    );
    // The same with the parent given: the stranger's root is not a child.
    let out = join(&wrong, &missing, &["--moves", parent], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("d5.proof") && err.contains("is not reached by a legal move"),
        "{err}"
    );
    assert!(!missing.exists());
}

#[test]
fn a_prover_node_takes_one_child_and_an_opponent_node_names_every_missing_move() {
    let dir = temp_dir("join-start");
    let tables = dir.join("no-tables");
    // 1. e3 d5 2. Qg4: White (the prover) to move after 1. e3 d5 needs one child.
    let child = solve("e3 d5 Qg4", dir.join("qg4.proof"), &tables);
    let d5 = dir.join("d5.proof");
    let v = json(&join(&[child], &d5, &[], &tables));
    assert_eq!(
        v["root_fen"],
        "rnbqkbnr/ppp1pppp/8/3p4/8/4P3/PPPP1PPP/RNBQKBNR w - - 0 2"
    );
    verify(&d5, &tables);

    // Black wins after 1. d3 and after 1. e4, but at the start White (now the opponent)
    // has 18 other moves: refused, naming them.
    let d3 = solve_for("black", "d3", dir.join("d3.proof"), &tables);
    let e4 = solve_for("black", "e4", dir.join("e4.proof"), &tables);
    let start = dir.join("start.proof");
    let out = join(&[d3, e4], &start, &[], &tables);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("no proof given for 18 of its 20 moves"),
        "{err}"
    );
    assert!(err.contains("e3") && err.contains("Nf3"), "{err}");
    assert!(!start.exists());
}

/// `proof expand-leaves`: the shipped proof of 1. e3 e5 relies on 3-unit tables; with
/// `--units 2` each of its 3-unit leaves is proved again and spliced in, and the result
/// verifies with the 2-unit tables alone (and is refused by a run that has no tables).
#[test]
fn expand_leaves_makes_a_proof_that_needs_smaller_tables() {
    let dir = temp_dir("expand-leaves");
    let tables = dir.join("tables");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-e5.proof");
    let output = dir.join("e5-tb2.proof");
    // `proof expand-leaves INPUT -o OUT --units 2 --tables DIR EXTRA… --format json`.
    let expand = |out: &Path, tables: &Path, extra: &[&str]| {
        let mut args = vec![
            "proof",
            "expand-leaves",
            s(&input),
            "-o",
            s(out),
            "--units",
            "2",
            "--tables",
            s(tables),
            "--hash",
            "16M",
            "--format",
            "json",
        ];
        args.extend_from_slice(extra);
        json(&antichess(&args, tables))
    };
    let v = expand(&output, &tables, &[]);
    assert_eq!(v["verified"], true, "{v}");
    assert!(v["input_tablebase_leaves"].as_u64().unwrap() > 0, "{v}");
    assert!(v["leaves_expanded"].as_u64().unwrap() > 0, "{v}");
    assert!(v["tables_units"].as_u64().unwrap() <= 2, "{v}");
    // The tables directory holds only tables of at most 2 units, and the file verifies
    // with it; the input does not (it needs 3-unit tables).
    let verify = |file: &Path| {
        antichess(
            &["proof", "verify", s(file), "--tables", s(&tables)],
            &tables,
        )
    };
    let out = verify(&output);
    assert!(out.status.success(), "{}", text(&out));
    assert!(!verify(&input).status.success());
    assert_eq!(v["leaves_played_out"], 0, "{v}");

    // `--leaf-dir`: the first run saves each leaf's proof; a second run (as after Ctrl-C)
    // reads them all back, searches nothing, and writes the same proof.
    let leaves = dir.join("leaves");
    let leaf_dir = ["--leaf-dir", s(&leaves)];
    let first = expand(&dir.join("first.proof"), &tables, &leaf_dir);
    assert_eq!(first["leaves_reused"], 0, "{first}");
    let saved = std::fs::read_dir(&leaves).unwrap().count() as u64;
    assert_eq!(saved, first["leaves_expanded"].as_u64().unwrap(), "{first}");
    let again = expand(&dir.join("again.proof"), &tables, &leaf_dir);
    assert_eq!(again["leaves_reused"], first["leaves_expanded"], "{again}");
    assert_eq!(again["positions_searched"], 0, "{again}");
    assert_eq!(
        again["counts"]["total"], first["counts"]["total"],
        "{again}"
    );
    assert_eq!(
        std::fs::read(dir.join("again.proof")).unwrap(),
        std::fs::read(dir.join("first.proof")).unwrap()
    );

    // With the 3-unit tables present and `--method playout`, the leaves are played out
    // from them (no search); the result still needs the 2-unit tables only.
    let tables3 = dir.join("tables3");
    let out = antichess(
        &["tb", "build", "--units", "3", "--tables", s(&tables3)],
        &tables3,
    );
    assert!(out.status.success(), "{}", text(&out));
    let played = dir.join("e5-played.proof");
    let v = expand(&played, &tables3, &["--method", "playout"]);
    assert_eq!(v["leaves_played_out"], v["leaves_expanded"], "{v}");
    assert_eq!(v["positions_searched"], 0, "{v}");
    assert!(v["tables_units"].as_u64().unwrap() <= 2, "{v}");
    let out = verify(&played);
    assert!(out.status.success(), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// `proof extract`: the shipped proof of 1. e3 g6 cut at the first node of its main line
/// where Black has several replies, and at each reply; the replies' proofs join back into
/// a proof of that node, and all verify. A move the proof does not play, or an illegal
/// one, is refused by name, and nothing is written.
#[test]
fn extract_cuts_a_proof_into_parts_that_join_again() {
    let dir = temp_dir("extract");
    let tables = dir.join("no-tables");
    let g6 = PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../proofs/e3-g6.proof"
    ));
    let extract = |moves: &str, out: &Path| {
        antichess(
            &[
                "proof",
                "extract",
                s(&g6),
                "--moves",
                moves,
                "-o",
                s(out),
                "--format",
                "json",
            ],
            &tables,
        )
    };
    // Down the proof's main line (its move for White, Black's only reply or the reply
    // with the largest subtree) to a Black node with at least three replies.
    let node = dir.join("node.proof");
    let mut line = String::new();
    let replies = loop {
        let v = json(&antichess(
            &["proof", "stats", s(&g6), "--format", "json"],
            &tables,
        ));
        let root_moves = |v: &serde_json::Value| v["root_moves"].as_array().unwrap().clone();
        let stats = if line.is_empty() {
            v
        } else {
            let v = json(&extract(&line, &node));
            assert_eq!(v["verified"], true, "{line}: {v}");
            json(&antichess(
                &["proof", "stats", s(&node), "--format", "json"],
                &tables,
            ))
        };
        let moves = root_moves(&stats);
        let white = stats["root_fen"].as_str().unwrap().contains(" w ");
        if !white && moves.len() >= 3 {
            break moves;
        }
        let next = moves
            .iter()
            .max_by_key(|m| m["nodes"].as_u64().unwrap())
            .unwrap()["san"]
            .as_str()
            .unwrap()
            .to_string();
        line = format!("{line} {next}").trim().to_string();
        assert!(line.split(' ').count() < 30, "no such node on {line}");
    };
    let node_nodes = json(&antichess(
        &["proof", "stats", s(&node), "--format", "json"],
        &tables,
    ))["counts"]["total"]
        .as_u64()
        .unwrap();
    let mut parts = Vec::new();
    for reply in &replies {
        let reply = reply["san"].as_str().unwrap();
        let part = dir.join(format!("part-{reply}.proof"));
        let v = json(&extract(&format!("{line} {reply}"), &part));
        assert_eq!(v["verified"], true, "{reply}: {v}");
        parts.push(part);
    }
    let joined = dir.join("joined.proof");
    let v = json(&join(&parts, &joined, &[], &tables));
    assert!(v["counts"]["total"].as_u64().unwrap() <= node_nodes, "{v}");
    verify(&joined, &tables);

    let out = extract("Qg4", &dir.join("qg4.proof"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("the proof plays Qh5"), "{err}");
    assert!(!dir.join("qg4.proof").exists());
    let out = extract("Qh5 Nf6", &dir.join("bad.proof"));
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stderr).contains("captures are compulsory"));
    assert!(!dir.join("bad.proof").exists());
}

/// Issue 63: `proof join … -o X` where X is one of the children would replace that child
/// with the joined proof. It is refused before anything is read, however the path is
/// spelled (another spelling, a hard link), and the child is left as it was; an output
/// that exists but is not a child is still replaced.
#[test]
fn join_refuses_to_write_over_one_of_its_children() {
    let dir = temp_dir("join-over-child");
    let tables = dir.join("no-tables");
    let child = solve("e3 d5 Qg4", dir.join("qg4.proof"), &tables);
    let before = std::fs::read(&child).unwrap();
    let linked = dir.join("linked.proof");
    std::fs::hard_link(&child, &linked).unwrap();
    std::fs::create_dir_all(dir.join("sub")).unwrap();
    let spellings = [
        child.clone(),
        dir.join(".").join("qg4.proof"),
        dir.join("sub/../qg4.proof"),
        linked,
    ];
    for output in &spellings {
        let out = join(std::slice::from_ref(&child), output, &[], &tables);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(&format!("-o {}", output.display()))
                && err.contains("qg4.proof given to the join")
                && err.contains("another file"),
            "{err}"
        );
        assert_eq!(std::fs::read(&child).unwrap(), before);
    }
    // An existing file that is not a child is replaced as before.
    let d5 = dir.join("d5.proof");
    std::fs::write(&d5, b"old").unwrap();
    let v = json(&join(std::slice::from_ref(&child), &d5, &[], &tables));
    assert_eq!(v["verified"], true, "{v}");
    verify(&d5, &tables);
}

/// Issue 63: `proof expand-leaves --units 1` named `--tb-units` (another command's
/// option) in its error; it names `--units`, the option given.
#[test]
fn expand_leaves_names_its_own_units_option() {
    let dir = temp_dir("expand-units");
    let tables = dir.join("tables");
    let input = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-e5.proof");
    for (units, words) in [
        ("1", "--units 1: choose 0 (no tables) or 2 to 5"),
        ("6", "--units 6: choose 0 (no tables) or 2 to 5"),
        ("0", "--units 0: the leaves need tables of some size"),
    ] {
        let out = antichess(
            &[
                "proof",
                "expand-leaves",
                "--units",
                units,
                s(&input),
                "-o",
                s(&dir.join("out.proof")),
                "--tables",
                s(&tables),
            ],
            &tables,
        );
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(words), "{err}");
        assert!(!err.contains("--tb-units"), "{err}");
        assert!(!dir.join("out.proof").exists());
        // Nothing built.
        assert!(!tables.exists() || std::fs::read_dir(&tables).unwrap().next().is_none());
    }
}
