//! End-to-end tests of `antichess book`: a small book grown until solved, proved and
//! verified (also by `antichess proof verify`); a `grow` killed with SIGKILL and resumed
//! loses nothing and reaches the same result; two `grow` processes on one file never
//! search one leaf at overlapping times; steering and transfer commands; errors that
//! name the bad input.

use crate::common::{antichess, json, ok, s, text};

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use antichess_book::{Book, Status};
use antichess_testkit::temp_dir as temp;

/// Options of a quick grow without tables. The most-proving walk needs about a hundred
/// searches of 10^5 nodes for 1. e3 Na6, always the same number; the random walk's count
/// varies a lot from run to run (from under a hundred to thousands).
const GROW: [&str; 8] = [
    "--tb-units",
    "0",
    "--hash",
    "16M",
    "--search-nodes",
    "100000",
    "--select",
    "best",
];

#[test]
fn grow_until_solved_then_prove_and_verify() {
    let dir = temp("solve");
    let book = dir.join("na6.book");
    let out = ok(&["book", "new", s(&book), "--moves", "e3 Na6"]);
    assert!(out.contains("proving a win for white"), "{out}");
    let mut args = vec![
        "book",
        "grow",
        s(&book),
        "--until-solved",
        "--format",
        "json",
    ];
    args.extend(GROW);
    let v = json(&args);
    assert_eq!(v["end"], "solved", "{v}");
    assert_eq!(v["status"], "win");
    assert_eq!(v["proof"], 0);
    assert!(v["searches"].as_u64().unwrap() > 1, "{v}");
    // Show: the root's one move 2. Bxa6 is won.
    let shown = json(&["book", "show", s(&book), "--format", "json"]);
    assert_eq!(shown["node"]["status"], "win");
    assert_eq!(shown["children"][0]["san"], "Bxa6");
    assert_eq!(shown["children"][0]["status"], "win");
    let out = ok(&["book", "show", s(&book), "--moves", "Bxa6 bxa6"]);
    assert!(
        out.contains("2. Bxa6 bxa6") && out.contains("status win"),
        "{out}"
    );
    assert!(ok(&["book", "check", s(&book)]).contains("sound"));
    let checked = json(&["book", "check", s(&book), "--format", "json"]);
    assert_eq!(checked["sound"], true, "{checked}");
    assert_eq!(checked["problems"], serde_json::json!([]));
    assert_eq!(checked["nodes"], shown["counts"]["nodes"]);
    // Proves into `name` in the test's directory, with these arguments besides.
    let prove = |name: &str, more: &[&str]| {
        let out = dir.join(name);
        let mut args = vec!["book", "prove", s(&book), "-o", s(&out)];
        args.extend(more);
        args.extend(["--tb-units", "0", "--hash", "32M", "--format", "json"]);
        json(&args)
    };
    let proof = dir.join("na6.proof");
    let v = prove("na6.proof", &[]);
    assert_eq!(v["verified"], true, "{v}");
    let nodes = v["proof_nodes"].as_u64().unwrap();
    assert!(nodes > 100, "{v}");
    // The independent verifier agrees, and counts the same nodes.
    let out = antichess(&["proof", "verify", s(&proof), "--json"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(String::from_utf8_lossy(&out.stdout).contains(&nodes.to_string()));
    // The default leaf directory is gone once the proof verifies.
    let leaves = v["leaves"].as_u64().unwrap();
    assert!(leaves > 1, "{v}");
    assert!(!dir.join("na6.proof.leaves").exists());
    // A leaf directory given is kept, and a second prove reads every leaf back from it.
    let leaf_dir = dir.join("leaves");
    let leaf_args = ["--leaf-dir", s(&leaf_dir)];
    let first = prove("first.proof", &leaf_args);
    assert_eq!(
        (first["verified"].as_bool(), first["leaves_reused"].as_u64()),
        (Some(true), Some(0)),
        "{first}"
    );
    assert_eq!(std::fs::read_dir(&leaf_dir).unwrap().count() as u64, leaves);
    let again = prove("again.proof", &leaf_args);
    assert_eq!(again["verified"], true, "{again}");
    assert_eq!(again["leaves_reused"].as_u64(), Some(leaves), "{again}");
    assert_eq!(again["search_nodes"], 0, "{again}");
    assert_eq!(
        std::fs::read(dir.join("first.proof")).unwrap(),
        std::fs::read(dir.join("again.proof")).unwrap()
    );
    let threads = prove("threads.proof", &["--threads", "2"]);
    assert_eq!(threads["verified"], true, "{threads}");
    assert_eq!(threads["leaves"].as_u64(), Some(leaves), "{threads}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The nodes of a book as (id, parent, move, expanded).
fn snapshot(book: &Path) -> Vec<(i64, Option<i64>, Option<String>, bool)> {
    let mut book = Book::open(s(book)).unwrap();
    book.all_nodes()
        .unwrap()
        .into_iter()
        .map(|n| (n.id, n.parent, n.uci, n.expanded))
        .collect()
}

#[test]
fn killed_grow_resumes_with_nothing_lost() {
    let dir = temp("kill");
    let book = dir.join("na6.book");
    ok(&["book", "new", s(&book), "--moves", "e3 Na6"]);
    let mut args = vec!["book", "grow", s(&book)];
    args.extend(GROW);
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(&args)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Wait until a few searches are written, then kill it (SIGKILL) in the middle.
    loop {
        std::thread::sleep(Duration::from_millis(50));
        let searches = Book::open(s(&book))
            .and_then(|mut b| b.counts())
            .map_or(0, |c| c.searches);
        if searches >= 8 || child.try_wait().unwrap().is_some() {
            break;
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = snapshot(&book);
    assert!(ok(&["book", "check", s(&book)]).contains("sound"));
    // Resume: the dead process's claim is released, and the book is solved.
    let mut args = vec!["book", "grow", s(&book), "--format", "json"];
    args.extend(GROW);
    let v = json(&args);
    assert_eq!(v["status"], "win", "{v}");
    let after = snapshot(&book);
    // Nothing written before the kill was lost: every node is still there, unchanged
    // except that leaves may have been expanded since.
    for node in &before {
        let now = after
            .iter()
            .find(|n| n.0 == node.0)
            .unwrap_or_else(|| panic!("node {} lost", node.0));
        assert_eq!((now.1, &now.2), (node.1, &node.2));
        assert!(now.3 || !node.3);
    }
    assert!(ok(&["book", "check", s(&book)]).contains("sound"));
    let mut b = Book::open(s(&book)).unwrap();
    assert_eq!(b.root().unwrap().status, Status::Win);
    // At most the killed search is unfinished in the log; no claim is left.
    let log = b.search_log().unwrap();
    assert!(log.iter().filter(|l| l.end_seq.is_none()).count() <= 1);
    assert_eq!(b.counts().unwrap().claimed, 0);
    let proof = dir.join("na6.proof");
    let v = json(&[
        "book",
        "prove",
        s(&book),
        "-o",
        s(&proof),
        "--tb-units",
        "0",
        "--hash",
        "32M",
        "--format",
        "json",
    ]);
    assert_eq!(v["verified"], true, "{v}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn two_processes_share_a_book() {
    let dir = temp("two");
    let book = dir.join("na6.book");
    ok(&["book", "new", s(&book), "--moves", "e3 Na6"]);
    let mut args = vec![
        "book",
        "grow",
        s(&book),
        "--workers",
        "2",
        "--format",
        "json",
    ];
    args.extend(GROW);
    let children: Vec<_> = (0..2)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_antichess"))
                .args(&args)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for child in children {
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "{}", text(&out));
    }
    let mut b = Book::open(s(&book)).unwrap();
    assert_eq!(b.root().unwrap().status, Status::Win);
    let log = b.search_log().unwrap();
    for (i, a) in log.iter().enumerate() {
        for c in &log[i + 1..] {
            if a.node == c.node {
                let a_end = a.end_seq.unwrap_or(i64::MAX);
                let c_end = c.end_seq.unwrap_or(i64::MAX);
                assert!(
                    a_end < c.start_seq || c_end < a.start_seq,
                    "node {} searched at overlapping times: {a:?} {c:?}",
                    a.node
                );
            }
        }
    }
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.clone()).collect();
    assert!(workers.len() >= 2, "{workers:?}");
    assert!(ok(&["book", "check", s(&book)]).contains("sound"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn steering_and_transfer_commands() {
    let dir = temp("steer");
    let book = dir.join("na6.book");
    ok(&["book", "new", s(&book), "--moves", "e3 Na6"]);
    let mut args = vec!["book", "grow", s(&book), "--searches", "1"];
    args.extend(GROW);
    ok(&args);
    // Queue a leaf: the next search is that one.
    let out = ok(&["book", "queue", s(&book), "--moves", "Bxa6 bxa6 g4"]);
    assert!(out.contains("queue: 1 entry"), "{out}");
    ok(&args);
    let v = json(&[
        "book",
        "show",
        s(&book),
        "--moves",
        "Bxa6 bxa6 g4",
        "--format",
        "json",
    ]);
    assert_eq!(v["node"]["searches"], 1, "{v}");
    assert_eq!(v["queue"].as_array().unwrap().len(), 0);
    // A line beyond the book: queued at the leaf where the book ends, the rest to follow.
    let queue_json = || json(&["book", "queue", s(&book), "--format", "json"]);
    let v = json(&[
        "book",
        "queue",
        s(&book),
        "--moves",
        "Bxa6 bxa6 g4 Bb7 g5 Bxh1",
        "--format",
        "json",
    ]);
    let then = |v: &serde_json::Value| v["then"].as_str().unwrap().to_string();
    let ahead = then(&v["queued"]);
    assert!(
        v["queued"]["line"]
            .as_str()
            .unwrap()
            .starts_with("2. Bxa6 bxa6 3. g4"),
        "{v}"
    );
    assert!(
        "c8b7 g4g5 b7h1".ends_with(&ahead) && !ahead.is_empty(),
        "{v}"
    );
    let out = ok(&["book", "queue", s(&book)]);
    assert!(out.contains(", as the book grows)"), "{out}");
    // One search: the entry moves on along the line, or ends there if the search decided
    // its node (here 3... Bb7 is won: White gives up the bishop's rook and more).
    let queued_line = v["queued"]["line"].as_str().unwrap().to_string();
    ok(&args);
    let v = queue_json();
    match v["queue"].as_array().unwrap().as_slice() {
        [] => {
            let shown = json(&[
                "book",
                "show",
                s(&book),
                "--moves",
                &queued_line,
                "--format",
                "json",
            ]);
            assert_eq!(shown["node"]["searches"], 1, "{shown}");
            assert_ne!(shown["node"]["status"], "unknown", "{shown}");
        }
        [entry] => assert!(then(entry).len() < ahead.len(), "{v}"),
        _ => panic!("one entry at most: {v}"),
    }
    let out = antichess(&["book", "queue", s(&book), "--moves", "Bxa6 bxa6 g4 Qxd1"]);
    assert!(!out.status.success(), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("Qxd1"),
        "{}",
        text(&out)
    );
    ok(&["book", "queue", s(&book), "--clear"]);
    // Pin and unpin.
    let out = ok(&["book", "pin", s(&book), "--moves", "Bxa6 bxa6 e4"]);
    assert!(out.contains("the walk starts at node"), "{out}");
    let v = json(&["book", "show", s(&book), "--format", "json"]);
    assert!(v["pin"].is_i64(), "{v}");
    ok(&["book", "pin", s(&book), "--clear"]);
    // Mark a move as won: the root counts as won (marked); unmark.
    let out = ok(&[
        "book",
        "mark",
        s(&book),
        "--moves",
        "Bxa6 bxa6 b3",
        "--as",
        "win",
    ]);
    assert!(out.contains("root: marked win"), "{out}");
    let out = ok(&[
        "book",
        "mark",
        s(&book),
        "--moves",
        "Bxa6 bxa6 b3",
        "--as",
        "none",
    ]);
    assert!(out.contains("root: unknown"), "{out}");
    // A few searches with the random walk (the default selection).
    let mut args = vec![
        "book",
        "grow",
        s(&book),
        "--searches",
        "3",
        "--select",
        "weighted",
    ];
    args.extend(&GROW[..6]);
    ok(&args);
    // Cut the subtree after 2. Bxa6 bxa6, solve it on its own, splice it back, prove.
    let sub = dir.join("sub.book");
    let out = ok(&[
        "book",
        "export",
        s(&book),
        "--moves",
        "Bxa6 bxa6",
        "-o",
        s(&sub),
    ]);
    assert!(out.contains("exported"), "{out}");
    let mut grow_sub = vec!["book", "grow", s(&sub)];
    grow_sub.extend(GROW);
    ok(&grow_sub);
    let out = ok(&["book", "import", s(&book), s(&sub)]);
    assert!(out.contains("root: win"), "{out}");
    assert!(ok(&["book", "check", s(&book)]).contains("sound"));
    let proof = dir.join("na6.proof");
    let out = ok(&[
        "book",
        "prove",
        s(&book),
        "-o",
        s(&proof),
        "--tb-units",
        "0",
        "--hash",
        "32M",
    ]);
    assert!(out.contains("verified: the proof is valid"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_the_bad_input() {
    let dir = temp("errors");
    let book = dir.join("a.book");
    let fail = |args: &[&str], needle: &str| {
        let out = antichess(args);
        assert!(!out.status.success(), "{args:?} succeeded\n{}", text(&out));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains(needle),
            "{args:?}: missing {needle:?}\n{}",
            text(&out)
        );
    };
    fail(
        &["book", "show", s(&dir.join("missing.book"))],
        "no book at",
    );
    let notes = dir.join("notes.txt");
    std::fs::write(
        &notes,
        "some text, not a database at all, long enough to be read",
    )
    .unwrap();
    fail(&["book", "show", s(&notes)], "is not a book");
    fail(
        &[
            "book",
            "new",
            s(&book),
            "--fen",
            "8/8/8/8/8/8/8/8 w - - 0 1",
        ],
        "empty",
    );
    ok(&["book", "new", s(&book), "--moves", "e3 e6"]);
    fail(
        &["book", "new", s(&book), "--moves", "e3 e6"],
        "already exists",
    );
    fail(
        &["book", "show", s(&book), "--moves", "Nf3"],
        "not in the book",
    );
    fail(&["book", "show", s(&book), "--moves", "Ke2"], "Ke2");
    fail(
        &[
            "book",
            "prove",
            s(&book),
            "-o",
            s(&dir.join("x.proof")),
            "--tb-units",
            "0",
        ],
        "not won yet",
    );
    fail(&["book", "grow", "postgres://localhost/book"], "PostgreSQL");
    fail(
        &[
            "book",
            "grow",
            s(&book),
            "--select",
            "dominant",
            "--dominance=-1",
        ],
        "--dominance -1",
    );
    fail(&["book", "grow", s(&book), "--slack", "NaN"], "--slack NaN");
    fail(
        &["book", "grow", s(&book), "--effort=-0.5"],
        "--effort -0.5",
    );
    let fics = dir.join("fics.book");
    ok(&[
        "book",
        "new",
        s(&fics),
        "--moves",
        "e3 e6",
        "--rules",
        "fics",
    ]);
    fail(
        &["book", "import", s(&book), s(&fics), "--moves", ""],
        "fics rules",
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bench_book_solves_proves_and_verifies() {
    let out = ok(&[
        "bench",
        "book",
        "--search-nodes",
        "20000",
        "--workers",
        "2",
        "--tb-units",
        "0",
    ]);
    let row = out
        .lines()
        .find(|l| l.trim_start().starts_with("20000"))
        .unwrap_or_else(|| panic!("no result row:\n{out}"));
    assert!(row.contains("solved") && row.ends_with("valid"), "{out}");
}

/// `book show --hints`: the proof number of the record's tree below the node and each
/// child. After a grow that followed the hint 2. b4, the root's record number is b4's.
#[test]
fn show_gives_the_record_trees_proof_number() {
    let dir = temp("show-hints");
    let book = dir.join("e6.book");
    let hints = dir.join("e6.hints");
    std::fs::write(&hints, "# the record\ne2e3 e7e6 b2b4\n").unwrap();
    ok(&[
        "book",
        "new",
        s(&book),
        "--moves",
        "e3 e6",
        "--prover",
        "white",
    ]);
    let mut args = vec![
        "book",
        "grow",
        s(&book),
        "--searches",
        "20",
        "--hints",
        s(&hints),
    ];
    args.extend(GROW);
    ok(&args);
    let v = json(&[
        "book",
        "show",
        s(&book),
        "--hints",
        s(&hints),
        "--format",
        "json",
    ]);
    let b4 = v["children"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["uci"] == "b2b4")
        .unwrap()
        .clone();
    assert_eq!(v["node"]["hinted"], b4["hinted"], "{v}");
    let (root, record) = (&v["node"]["proof"], &v["node"]["hinted"]);
    assert!(
        record.as_u64().unwrap() >= root.as_u64().unwrap(),
        "the record's tree is one of the root's: {v}"
    );
    assert!(
        v["children"]
            .as_array()
            .unwrap()
            .iter()
            .all(|c| c.get("hinted").is_some()),
        "{v}"
    );
    // Without --hints the field is absent; in text the node line names it.
    let plain = json(&["book", "show", s(&book), "--format", "json"]);
    assert!(plain["node"].get("hinted").is_none(), "{plain}");
    let out = ok(&["book", "show", s(&book), "--hints", s(&hints)]);
    assert!(out.contains("record tree proof"), "{out}");
    // A hints file with an illegal move is refused with its line and move.
    let bad = dir.join("bad.hints");
    std::fs::write(&bad, "e2e3 e7e6 b2b5\n").unwrap();
    let out = antichess(&["book", "show", s(&book), "--hints", s(&bad)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("bad.hints, line 1: move 3 (b2b5)"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
