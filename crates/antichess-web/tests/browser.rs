//! The pages in a real browser: starts the server on a free loopback port (tables, the
//! proof of 1. e3 Na6, a small book) and runs `node web/tests/browser.mjs`, which drives
//! Debian's chromium with playwright-core: it loads the explorer, plays moves by clicking
//! in the move list and on the board, checks that the move list and the statuses follow,
//! steers the book from the search page, watches a second book that `book grow` grows
//! beside the server (its worker is shown), visits the tablebase page (antichess, then
//! Lasker chess with the game selector, from a KQk Lasker table), checks the layout
//! (the line and the Solve box beside the board at 1400×1000, folded moves, the PGN box and
//! its export, grouped tablebase moves, no horizontal scroll at 800 px wide, disabled
//! buttons where the server would refuse), and saves screenshots of the three pages in
//! `target/screenshots` (and in `docs/screenshots`, shown by the guide, with
//! `ANTICHESS_SCREENSHOTS_TO_DOCS=1`).
//!
//! Skipped with a message when chromium, node or the front end's packages
//! (`cd web && npm ci`) are missing, unless `ANTICHESS_REQUIRE_BROWSER=1` (as in CI), when
//! that is a failure.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use antichess_book::{grow, Book, GrowOptions, GrowStats};
use antichess_core::{Color, Rules};
use antichess_tb::Tablebase;
use antichess_web::assets;

const CHROMIUM: &str = "/usr/bin/chromium";

fn required() -> bool {
    std::env::var("ANTICHESS_REQUIRE_BROWSER").is_ok_and(|v| v == "1")
}

/// Skips (or fails under ANTICHESS_REQUIRE_BROWSER=1) with a message.
fn skip(why: &str) {
    if required() {
        panic!("browser test: {why} (ANTICHESS_REQUIRE_BROWSER=1)");
    }
    eprintln!(
        "SKIPPED browser test: {why} (set ANTICHESS_REQUIRE_BROWSER=1 to make this a failure)"
    );
}

fn web_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../web")
}

#[test]
fn explorer_search_and_tablebase_pages_in_chromium() {
    let web = web_dir();
    if !Path::new(CHROMIUM).exists() {
        return skip(&format!("{CHROMIUM} is missing (apt-get install chromium)"));
    }
    if Command::new("node").arg("--version").output().is_err() {
        return skip("node is missing");
    }
    if !web.join("node_modules/playwright-core").exists() {
        return skip("web/node_modules is missing (run `cd web && npm ci`)");
    }
    let dist = match assets::ensure_built(&web, &mut |line| eprintln!("{line}")) {
        Ok(dist) => dist,
        Err(e) => return skip(&e),
    };
    let book = common::book_copy("na6");
    // A book that `book grow` grows while the pages are visited: rooted at 1. e3, so that
    // it is far from solved.
    let grown = common::fixture()
        .dir
        .join(format!("books-{}/e3-grow.book", std::process::id()))
        .display()
        .to_string();
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{grown}{suffix}"));
    }
    let start = antichess_core::Position::start(Rules::INTERNATIONAL);
    let e3 = start.parse_san("e3").unwrap();
    drop(Book::create(&grown, &start.play(e3), Color::White, &[e3]).unwrap());
    // The Lasker table the tablebase page's game selector shows (`lasker` beside the tables).
    let lasker = common::fixture().tables.parent().unwrap().join("lasker");
    antichess_tb::lasker::lasker_build(&["KQk".parse().unwrap()], &lasker, 1, &|_| {}).unwrap();
    let state = Arc::new(common::state(vec![book, grown.clone()], Some(dist)));

    // The server, on its own runtime, until the test ends.
    let (addr_tx, addr_rx) = std::sync::mpsc::channel();
    let (stop_tx, stop_rx) = tokio::sync::oneshot::channel::<()>();
    let server = std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
            addr_tx.send(listener.local_addr().unwrap()).unwrap();
            antichess_web::serve_on(state, listener, async {
                let _ = stop_rx.await;
            })
            .await
            .unwrap();
        });
    });
    let addr = addr_rx.recv().unwrap();
    // `book grow` beside the server (its own connections, as another process would have),
    // so that the search page shows a worker and the root moving.
    let stop = Arc::new(AtomicBool::new(false));
    let grower = {
        let stop = Arc::clone(&stop);
        let location = grown.clone();
        let tables = common::fixture().tables.clone();
        std::thread::spawn(move || {
            let tb = Tablebase::open(&tables, Rules::INTERNATIONAL).unwrap();
            let options = GrowOptions {
                workers: 1,
                search_nodes: 1_000_000,
                hash_bytes: 32 << 20,
                max_time: Some(Duration::from_secs(90)),
                tablebase_units: 3,
                ..GrowOptions::default()
            };
            grow(&location, Some(&tb), &options, &stop, &GrowStats::default()).unwrap()
        })
    };
    let out_dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .join("screenshots");
    let mut node = Command::new("node");
    if std::env::var("ANTICHESS_SCREENSHOTS_TO_DOCS").is_ok_and(|v| v == "1") {
        node.env("DOCS_DIR", web.join("../docs/screenshots"));
    }
    let output = node
        .arg("tests/browser.mjs")
        .arg(format!("http://{addr}"))
        .arg(&out_dir)
        .env("ROOT_MOVES", common::ROOT_MOVES)
        .env("BOOK", "na6")
        .env("GROW_BOOK", "e3-grow")
        .env("CHROMIUM", CHROMIUM)
        .current_dir(&web)
        .output()
        .expect("running node");
    stop.store(true, Ordering::SeqCst);
    grower.join().unwrap();
    let _ = stop_tx.send(());
    server.join().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    eprintln!("{stdout}{stderr}");
    assert!(
        output.status.success(),
        "the browser test failed ({}): {stderr}",
        output.status
    );
    for page in [
        "explorer.png",
        "search.png",
        "tablebase.png",
        "tablebase-lasker.png",
    ] {
        let path = out_dir.join(page);
        let size = std::fs::metadata(&path).map(|m| m.len()).unwrap_or(0);
        assert!(size > 10_000, "{} is missing or empty", path.display());
    }
    eprintln!("screenshots: {}", out_dir.display());
}
