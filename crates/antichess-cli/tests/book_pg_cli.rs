//! `antichess book` on PostgreSQL, against a throwaway server on loopback (see
//! `antichess_testkit::pg_server`; skipped without Debian's postgresql package
//! unless ANTICHESS_REQUIRE_POSTGRES=1): two `grow` processes with two workers each on
//! one book, one of them killed with SIGKILL mid-run and restarted, until solved; the
//! proof verifies; no leaf was ever searched by two workers at once; `book copy` to
//! SQLite proves to the same proof file; one worker grows the same book on PostgreSQL as
//! on SQLite, node for node, with byte-identical proofs; and a `grow` goes on after the
//! server restarts under it; leases follow the server's clock, not a worker's.

use crate::common::{antichess, json, ok, s, text};

use antichess_testkit::pg_server;

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use antichess_book::{open_store, Book, Status};
use antichess_testkit::temp_dir as temp;

/// A quick grow without tables: the most-proving walk with 20,000 nodes per search needs
/// a few hundred searches for 1. e3 Na6.
const GROW: [&str; 8] = [
    "--tb-units",
    "0",
    "--hash",
    "16M",
    "--search-nodes",
    "20000",
    "--select",
    "best",
];

fn spawn_grow(book: &str, workers: &str) -> Child {
    let mut args = vec![
        "book",
        "grow",
        book,
        "--workers",
        workers,
        "--format",
        "json",
    ];
    args.extend(GROW);
    Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn finish(child: Child) -> serde_json::Value {
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)))
}

/// Proves a book into `proof` and checks that the verifier accepted it.
fn prove(book: &str, proof: &Path) -> serde_json::Value {
    let v = json(&[
        "book",
        "prove",
        book,
        "-o",
        s(proof),
        "--tb-units",
        "0",
        "--hash",
        "32M",
        "--format",
        "json",
    ]);
    assert_eq!(v["verified"], true, "{v}");
    v
}

/// The store's event counter now.
fn event_seq(book: &str) -> i64 {
    let mut store = open_store(book).unwrap();
    let mut txn = store.read().unwrap();
    txn.meta("event_seq")
        .unwrap()
        .map_or(0, |v| v.parse().unwrap())
}

/// The server restarts while a `grow` process runs: its workers and its progress line
/// wait for the store and go on; the book is solved and sound.
#[test]
fn pg_grow_goes_on_after_a_server_restart() {
    let Some(mut server) = pg_server::dedicated() else {
        return;
    };
    let url = server.url("restart");
    ok(&["book", "new", &url, "--moves", "e3 Na6"]);
    let mut args = vec![
        "book",
        "grow",
        &url,
        "--workers",
        "2",
        "--report-every",
        "1s",
    ];
    args.extend(GROW);
    let grow = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(&args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let searches = Book::open(&url)
            .and_then(|mut b| b.counts())
            .map_or(0, |c| c.searches);
        if searches >= 10 {
            break;
        }
        assert!(start.elapsed() < Duration::from_secs(120), "no searches");
    }
    server.stop();
    // Longer than --report-every: the progress line meets the stopped server too.
    std::thread::sleep(Duration::from_secs(3));
    server.start_again();
    let out = grow.wait_with_output().unwrap();
    assert!(out.status.success(), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stdout.contains("solved: root win"), "{}", text(&out));
    assert!(stdout.contains("the workers tried again"), "{}", text(&out));
    assert!(
        stderr.contains("the store cannot be reached or is locked, trying again"),
        "{}",
        text(&out)
    );
    assert!(ok(&["book", "check", &url]).contains("sound"));
    assert_eq!(Book::open(&url).unwrap().counts().unwrap().claimed, 0);
    eprintln!("{}", text(&out));
}

#[test]
fn pg_two_processes_one_killed_and_restarted_solve_the_book() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let start = Instant::now();
    let dir = temp("pg-kill");
    let url = server.url("grow");
    ok(&["book", "new", &url, "--moves", "e3 Na6"]);
    let killed = spawn_grow(&url, "2");
    let killed_pid = killed.id();
    let other = spawn_grow(&url, "2");
    // Kill the first one with SIGKILL in the middle of its searches.
    let mut killed = killed;
    loop {
        std::thread::sleep(Duration::from_millis(20));
        let searches = Book::open(&url)
            .and_then(|mut b| b.counts())
            .map_or(0, |c| c.searches);
        if searches >= 30 || killed.try_wait().unwrap().is_some() {
            break;
        }
    }
    killed.kill().unwrap();
    killed.wait().unwrap();
    // Every claim and write after this point has a larger event number than any
    // moment of the killed process's searches.
    let kill_seq = event_seq(&url);
    assert!(ok(&["book", "check", &url]).contains("sound"));
    let restarted = spawn_grow(&url, "2");
    let a = finish(other);
    let b = finish(restarted);
    assert_eq!(a["status"], "win", "{a}");
    assert_eq!(b["status"], "win", "{b}");

    let mut book = Book::open(&url).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    assert!(ok(&["book", "check", &url]).contains("sound"));
    assert_eq!(book.counts().unwrap().claimed, 0);
    // No leaf was searched by two workers at once: a search that never finished belongs
    // to the killed process and ended when it was killed.
    let log = book.search_log().unwrap();
    let killed_prefix = format!(":{killed_pid}:");
    let end = |l: &antichess_book::SearchLog| {
        l.end_seq.unwrap_or_else(|| {
            assert!(
                l.worker.contains(&killed_prefix),
                "an unfinished search of a live worker: {l:?}"
            );
            kill_seq
        })
    };
    let unfinished = log.iter().filter(|l| l.end_seq.is_none()).count();
    assert!(unfinished <= 2, "{unfinished} unfinished searches");
    for (i, x) in log.iter().enumerate() {
        for y in &log[i + 1..] {
            if x.node == y.node {
                assert!(
                    end(x) < y.start_seq || end(y) < x.start_seq,
                    "node {} searched at overlapping times: {x:?} {y:?}",
                    x.node
                );
            }
        }
    }
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.clone()).collect();
    assert!(workers.len() >= 4, "{workers:?}");
    assert!(
        log.iter().any(|l| l.worker.contains(&killed_prefix)),
        "the killed process searched"
    );
    // The proof verifies, and the book copied to SQLite gives the same proof file.
    let pg_proof = dir.join("pg.proof");
    let v = prove(&url, &pg_proof);
    let copy = dir.join("copy.book");
    let out = ok(&["book", "copy", &url, s(&copy)]);
    assert!(out.contains("copied"), "{out}");
    let copy_proof = dir.join("copy.proof");
    let w = prove(s(&copy), &copy_proof);
    assert_eq!(v["proof_nodes"], w["proof_nodes"]);
    assert!(
        std::fs::read(&pg_proof).unwrap() == std::fs::read(&copy_proof).unwrap(),
        "the copy's proof differs"
    );
    eprintln!(
        "{} searches by {} workers ({unfinished} killed), proof {} nodes; {:.1} s",
        log.len(),
        workers.len(),
        v["proof_nodes"],
        start.elapsed().as_secs_f64()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pg_and_sqlite_books_grown_alike_give_the_same_proof() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let dir = temp("same");
    let url = server.url("same");
    let file = dir.join("na6.book");
    let mut results = Vec::new();
    for book in [url.as_str(), s(&file)] {
        ok(&["book", "new", book, "--moves", "e3 Na6"]);
        let v = finish(spawn_grow(book, "1"));
        assert_eq!(v["status"], "win", "{v}");
        let shown = json(&["book", "show", book, "--format", "json"]);
        results.push((
            v["searches"].clone(),
            v["book_nodes"].clone(),
            shown["children"].clone(),
        ));
    }
    assert_eq!(results[0], results[1]);
    let pg_nodes = Book::open(&url).unwrap().all_nodes().unwrap();
    let file_nodes = Book::open(s(&file)).unwrap().all_nodes().unwrap();
    assert!(pg_nodes == file_nodes, "the books differ");
    let (p, q) = (dir.join("pg.proof"), dir.join("sqlite.proof"));
    let v = prove(&url, &p);
    let w = prove(s(&file), &q);
    assert_eq!(v["proof_nodes"], w["proof_nodes"]);
    assert!(
        std::fs::read(&p).unwrap() == std::fs::read(&q).unwrap(),
        "the proofs differ"
    );
    // Errors name the location: a book that exists, a server that is not there.
    let out = antichess(&["book", "new", &url, "--moves", "e3 Na6"]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already exists"),
        "{}",
        text(&out)
    );
    let out = antichess(&["book", "copy", s(&file), &url]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("already exists"),
        "{}",
        text(&out)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// libfaketime's preload library, or `None` (the test skips) when Debian's `faketime`
/// package is not installed and ANTICHESS_REQUIRE_FAKETIME is not set.
fn faketime_library() -> Option<&'static str> {
    const LIB: &str = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1";
    if Path::new(LIB).exists() {
        return Some(LIB);
    }
    assert!(
        std::env::var_os("ANTICHESS_REQUIRE_FAKETIME").is_none(),
        "{LIB} is missing (apt-get install faketime)"
    );
    eprintln!("skipped: {LIB} is missing (apt-get install faketime)");
    None
}

/// Leases are measured on the server's clock, not the workers': a `grow` on a host whose
/// clock is two hours ahead (libfaketime) leaves alone a leaf whose lease, by the server's
/// clock, has ten minutes to run; by its own clock that lease ran out long ago.
#[test]
fn pg_leases_follow_the_servers_clock() {
    let Some(library) = faketime_library() else {
        return;
    };
    let Some(server) = pg_server::server() else {
        return;
    };
    let url = server.url("clock");
    ok(&["book", "new", &url, "--moves", "e3 Na6"]);
    let other = "another-host:1:0";
    let root = {
        let mut store = open_store(&url).unwrap();
        let mut txn = store.claim_txn().unwrap();
        let now = txn.clock_ms().unwrap();
        let root = txn.root().unwrap().unwrap().id;
        assert!(txn.claim(root, other, now, now + 600_000).unwrap());
        txn.commit().unwrap();
        root
    };
    let mut args = vec!["book", "grow", &url, "--time", "3s"];
    args.extend(GROW);
    let run = |skew: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_antichess"))
            .args(&args)
            .env("LD_PRELOAD", library)
            .env("FAKETIME", skew)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", text(&out));
        let mut store = open_store(&url).unwrap();
        let claims = store.read().unwrap().claims().unwrap();
        (Book::open(&url).unwrap().counts().unwrap().searches, claims)
    };
    let (searches, claims) = run("+2h");
    assert_eq!(searches, 0);
    assert_eq!(claims.len(), 1);
    assert_eq!((claims[0].0, claims[0].1.as_str()), (root, other));
    // The control: once the lease has run out by the server's clock, a worker whose clock
    // is two hours behind takes the leaf at once.
    {
        let mut store = open_store(&url).unwrap();
        let mut txn = store.claim_txn().unwrap();
        let now = txn.clock_ms().unwrap();
        assert!(txn.refresh(root, other, now - 1).unwrap());
        txn.commit().unwrap();
    }
    let (searches, claims) = run("-2h");
    assert!(searches > 0);
    assert!(claims.is_empty(), "{claims:?}");
}
