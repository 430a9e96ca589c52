//! The PostgreSQL store against a throwaway server (see `antichess_testkit::pg_server`): the same book logic
//! as on SQLite — grown until solved by concurrent workers without two searching one leaf
//! at once; one worker grows a node-for-node identical book on both stores; leases block
//! until they expire and a late result is dropped; claims skip rows that another claim
//! holds instead of waiting; `copy_book` SQLite → PostgreSQL → SQLite keeps everything;
//! errors name the URL without its password; a grow goes on after the server restarts;
//! TLS encrypts and checks the server's certificate as `sslmode` says, and sends a client
//! certificate to a server that asks for one. Both stores apply one claim rule and one
//! row mapping: a stored depth that does not fit is refused on both.

use antichess_testkit::pg_server;

use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_book::{
    apply, copy_book, grow, open_store, Applied, Book, Expansion, GrowEnd, GrowOptions, GrowStats,
    LeafOutcome, Node, Selection, Status,
};
use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_testkit::temp_dir as temp;

fn new_book(location: &str, moves: &str) -> Book {
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), moves).unwrap();
    Book::create(location, game.position(), Color::White, game.moves()).unwrap()
}

fn options(search_nodes: u64, workers: usize) -> GrowOptions {
    GrowOptions {
        workers,
        search_nodes,
        hash_bytes: 16 << 20,
        selection: Selection::MostProving,
        ..GrowOptions::default()
    }
}

fn grow_until_solved(location: &str, search_nodes: u64, workers: usize) -> GrowStats {
    let stats = GrowStats::default();
    let end = grow(
        location,
        None,
        &options(search_nodes, workers),
        &Arc::new(AtomicBool::new(false)),
        &stats,
    )
    .unwrap();
    assert_eq!(end, GrowEnd::Solved);
    stats
}

/// No leaf was searched by two workers at overlapping times (by the store's event order).
fn assert_no_overlap(book: &mut Book) -> usize {
    let log = book.search_log().unwrap();
    for (i, a) in log.iter().enumerate() {
        for b in &log[i + 1..] {
            if a.node != b.node {
                continue;
            }
            let a_end = a.end_seq.unwrap_or(i64::MAX);
            let b_end = b.end_seq.unwrap_or(i64::MAX);
            assert!(
                a_end < b.start_seq || b_end < a.start_seq,
                "node {} searched at overlapping times: {a:?} and {b:?}",
                a.node
            );
        }
    }
    log.len()
}

/// The nodes without what depends on timing (claims are never left after a grow).
fn nodes(book: &mut Book) -> Vec<Node> {
    book.all_nodes().unwrap()
}

#[test]
fn pg_concurrent_workers_solve_without_overlap() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let url = server.url("workers");
    drop(new_book(&url, "e3 Na6"));
    let start = Instant::now();
    let stats = grow_until_solved(&url, 100_000, 3);
    let mut book = Book::open(&url).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    let searches = assert_no_overlap(&mut book);
    let log = book.search_log().unwrap();
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.clone()).collect();
    eprintln!(
        "{searches} searches by {} workers in {:.1} s ({stats:?})",
        workers.len(),
        start.elapsed().as_secs_f64()
    );
    assert!(workers.len() >= 2, "{workers:?}");
    assert!(log.iter().all(|l| l.end_seq.is_some()));
    assert_eq!(book.check().unwrap(), Vec::<String>::new());
    assert_eq!(book.counts().unwrap().claimed, 0);
}

/// The server restarts while two workers grow the book: they find the store unreachable,
/// reconnect once it is back and grow the book until it is solved, sound and with no
/// claim left.
#[test]
fn pg_grow_reconnects_after_a_server_restart() {
    let Some(mut server) = pg_server::dedicated() else {
        return;
    };
    let url = server.url("restart");
    drop(new_book(&url, "e3 Na6"));
    let stats = GrowStats::default();
    let stop = Arc::new(AtomicBool::new(false));
    let end = std::thread::scope(|scope| {
        let grower = scope.spawn(|| grow(&url, None, &options(100_000, 2), &stop, &stats));
        let start = Instant::now();
        while stats.searches.load(std::sync::atomic::Ordering::Relaxed) < 10 {
            assert!(!grower.is_finished(), "the grow ended before the restart");
            assert!(start.elapsed() < Duration::from_secs(120), "no searches");
            std::thread::sleep(Duration::from_millis(20));
        }
        server.stop();
        std::thread::sleep(Duration::from_secs(2));
        server.start_again();
        grower.join().unwrap()
    });
    assert_eq!(end.unwrap(), GrowEnd::Solved, "{stats:?}");
    assert!(
        stats.retries.load(std::sync::atomic::Ordering::Relaxed) > 0,
        "{stats:?}"
    );
    let mut book = Book::open(&url).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    assert_no_overlap(&mut book);
    assert_eq!(book.check().unwrap(), Vec::<String>::new());
    assert_eq!(book.counts().unwrap().claimed, 0);
    eprintln!("{stats:?}");
}

/// Without retries, the grow stops with the error when the server goes away.
#[test]
fn pg_grow_without_retry_fails_when_the_server_stops() {
    let Some(mut server) = pg_server::dedicated() else {
        return;
    };
    let url = server.url("noretry");
    drop(new_book(&url, "e3 Na6"));
    let stats = GrowStats::default();
    let stop = Arc::new(AtomicBool::new(false));
    let mut no_retry = options(100_000, 1);
    no_retry.retry = Duration::ZERO;
    let end = std::thread::scope(|scope| {
        let grower = scope.spawn(|| grow(&url, None, &no_retry, &stop, &stats));
        while stats.searches.load(std::sync::atomic::Ordering::Relaxed) < 3 {
            assert!(!grower.is_finished(), "the grow ended before the stop");
            std::thread::sleep(Duration::from_millis(20));
        }
        server.stop();
        grower.join().unwrap()
    });
    let error = end.expect_err("the grow fails without its store");
    assert!(error.is_transient(), "{error}");
    assert_eq!(stats.retries.load(std::sync::atomic::Ordering::Relaxed), 0);
}

#[test]
fn pg_and_sqlite_grow_identical_books_with_one_worker() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let dir = temp("same");
    let sqlite = dir.join("na6.book").display().to_string();
    let url = server.url("same");
    drop(new_book(&sqlite, "e3 Na6"));
    drop(new_book(&url, "e3 Na6"));
    grow_until_solved(&sqlite, 100_000, 1);
    grow_until_solved(&url, 100_000, 1);
    let mut a = Book::open(&sqlite).unwrap();
    let mut b = Book::open(&url).unwrap();
    let (na, nb) = (nodes(&mut a), nodes(&mut b));
    assert_eq!(na.len(), nb.len());
    assert!(na == nb, "the two stores grew different books");
    let strip = |log: Vec<antichess_book::SearchLog>| -> Vec<_> {
        log.into_iter()
            .map(|l| (l.id, l.node, l.start_seq, l.end_seq, l.nodes, l.result))
            .collect()
    };
    assert_eq!(
        strip(a.search_log().unwrap()),
        strip(b.search_log().unwrap())
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Sets the root's stored depth with the store's own SQL, behind the book's back.
fn set_root_depth(location: &str, depth: i64) {
    if location.starts_with("postgres") {
        let mut client = postgres::Client::connect(location, postgres::NoTls).unwrap();
        client
            .execute(
                "UPDATE nodes SET depth = $1 WHERE parent IS NULL",
                &[&depth],
            )
            .unwrap();
    } else {
        let conn = rusqlite::Connection::open(location).unwrap();
        conn.execute("UPDATE nodes SET depth = ?1 WHERE parent IS NULL", [depth])
            .unwrap();
    }
}

/// A stored depth outside `0..=u32::MAX` is refused, naming the node and the value; one
/// that fits reads back as it is.
fn check_depth_rule(location: &str) {
    let mut book = new_book(location, "e3 Na6");
    let root = book.root_id();
    for bad in [-1, 1 << 32, (1 << 32) + 5, i64::MIN] {
        set_root_depth(location, bad);
        let err = book.node(root).unwrap_err().to_string();
        assert!(
            err.contains(&format!("node {root}: depth {bad} is out of range")),
            "{location}: {err}"
        );
    }
    set_root_depth(location, i64::from(u32::MAX));
    assert_eq!(book.node(root).unwrap().depth, u32::MAX, "{location}");
}

/// The store's claim statement takes exactly the leaves [`Node::is_claimable`] calls
/// claimable.
fn check_claim_rule(location: &str) {
    let book = new_book(location, "e3 Na6");
    let root = book.root_id();
    drop(book);
    let now = 10_000;
    let mut store = open_store(location).unwrap();
    let mut txn = store.write().unwrap();
    let base = txn.node(root).unwrap().unwrap();
    let case = |f: &dyn Fn(&mut Node)| {
        let mut n = base.clone();
        n.parent = Some(root);
        n.depth = 1;
        f(&mut n);
        n
    };
    let cases: Vec<(&str, Node)> = vec![
        ("an open leaf", case(&|_| {})),
        (
            "a leased leaf",
            case(&|n| {
                n.claimed_by = Some("a:1:0".into());
                n.lease_until = Some(now + 1);
            }),
        ),
        (
            "a leaf whose lease ends now",
            case(&|n| {
                n.claimed_by = Some("a:1:0".into());
                n.lease_until = Some(now);
            }),
        ),
        (
            "a claim without an end",
            case(&|n| n.claimed_by = Some("a:1:0".into())),
        ),
        (
            "a lease without a worker",
            case(&|n| n.lease_until = Some(now + 1)),
        ),
        ("an expanded node", case(&|n| n.expanded = true)),
        (
            "a won leaf",
            case(&|n| {
                n.proof = 0;
                n.status = Status::Win;
            }),
        ),
        (
            "a lost leaf",
            case(&|n| {
                n.disproof = 0;
                n.status = Status::Loss;
            }),
        ),
    ];
    for (what, node) in &cases {
        let id = txn.insert_node(node).unwrap();
        let node = txn.node(id).unwrap().unwrap();
        assert_eq!(
            txn.claim(id, "b:2:0", now, now + 1_000).unwrap(),
            node.is_claimable(now),
            "{location}: {what}"
        );
    }
    let claimable: Vec<&str> = cases
        .iter()
        .filter(|(_, n)| n.is_claimable(now))
        .map(|(what, _)| *what)
        .collect();
    assert_eq!(
        claimable,
        [
            "an open leaf",
            "a leaf whose lease ends now",
            "a claim without an end",
            "a lease without a worker"
        ]
    );
    txn.commit().unwrap();
}

#[test]
fn pg_and_sqlite_apply_one_claim_rule_and_one_depth_rule() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let dir = temp("rules");
    for (i, location) in [
        dir.join("depth.book").display().to_string(),
        server.url("depth"),
    ]
    .iter()
    .enumerate()
    {
        check_depth_rule(location);
        let claims = if i == 0 {
            dir.join("claims.book").display().to_string()
        } else {
            server.url("claims")
        };
        check_claim_rule(&claims);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pg_leases_block_until_they_expire_and_claims_skip_locked_rows() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let url = server.url("lease");
    let mut book = new_book(&url, "e3 Na6");
    let root = book.root_id();
    let mut store = open_store(&url).unwrap();
    let mut txn = store.write().unwrap();
    assert!(txn.claim(root, "a:1:0", 1_000, 2_000).unwrap());
    assert!(!txn.claim(root, "b:2:0", 1_999, 3_000).unwrap());
    assert!(txn.claim(root, "b:2:0", 2_000, 3_000).unwrap());
    let log = txn.log_start(root, "a:1:0", 1_000, 1).unwrap();
    let expansion = Expansion {
        outcome: LeafOutcome::Decided(Status::Win),
        nodes: 0,
        missing_tables: Vec::new(),
    };
    let applied = apply(
        &mut *txn,
        root,
        "a:1:0",
        &expansion,
        log,
        Rules::INTERNATIONAL,
        Color::White,
    )
    .unwrap();
    assert_eq!(applied, Applied::LostClaim);
    txn.commit().unwrap();
    assert_eq!(book.root().unwrap().status, Status::Unknown);
    assert_eq!(
        book.root().unwrap().claimed_by.as_deref(),
        Some("b:2:0"),
        "the late result left the other worker's claim alone"
    );
    // A claim in progress (uncommitted) holds the row: a second claimer skips it at once
    // instead of waiting, and can take it when the first gives up.
    let mut txn = store.write().unwrap();
    txn.release(root, "b:2:0").unwrap();
    txn.commit().unwrap();
    let mut first = store.claim_txn().unwrap();
    assert!(first.claim(root, "c:3:0", 10_000, 20_000).unwrap());
    let mut other = open_store(&url).unwrap();
    let start = Instant::now();
    {
        let mut second = other.claim_txn().unwrap();
        assert!(!second.claim(root, "d:4:0", 10_000, 20_000).unwrap());
    }
    assert!(start.elapsed() < Duration::from_secs(5), "the claim waited");
    drop(first); // rolls back
    let mut second = other.claim_txn().unwrap();
    assert!(second.claim(root, "d:4:0", 10_000, 20_000).unwrap());
    second.commit().unwrap();
    // A claim of a dead process of this host is released at once.
    let mut txn = store.write().unwrap();
    txn.release(root, "d:4:0").unwrap();
    let dead = format!(
        "{}:{}:0",
        antichess_book::worker_id(0).split(':').next().unwrap(),
        u32::MAX - 7
    );
    assert!(txn
        .claim(root, &dead, antichess_book::now_ms(), i64::MAX)
        .unwrap());
    txn.commit().unwrap();
    assert_eq!(antichess_book::release_dead_claims(&mut *store).unwrap(), 1);
    assert!(book.root().unwrap().claimed_by.is_none());
    // ... but not the claim of the same host name in another process table (another
    // machine or container): that one waits for its lease.
    let other_table = format!("{dead}:0badc0de");
    let mut txn = store.write().unwrap();
    assert!(txn
        .claim(root, &other_table, antichess_book::now_ms(), i64::MAX)
        .unwrap());
    txn.commit().unwrap();
    assert_eq!(antichess_book::release_dead_claims(&mut *store).unwrap(), 0);
    assert_eq!(
        book.root().unwrap().claimed_by.as_deref(),
        Some(other_table.as_str())
    );
}

#[test]
fn pg_copy_round_trip_keeps_everything() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let dir = temp("copy");
    let sqlite = dir.join("a.book").display().to_string();
    let back = dir.join("b.book").display().to_string();
    let url = server.url("copy");
    drop(new_book(&sqlite, "e3 Na6"));
    let stats = GrowStats::default();
    let mut opts = options(20_000, 1);
    opts.max_searches = Some(30);
    grow(
        &sqlite,
        None,
        &opts,
        &Arc::new(AtomicBool::new(false)),
        &stats,
    )
    .unwrap();
    let mut a = Book::open(&sqlite).unwrap();
    let leaf = a
        .all_nodes()
        .unwrap()
        .into_iter()
        .find(|n| n.is_open() && !n.expanded)
        .unwrap();
    a.queue_push(leaf.id).unwrap();
    a.pin(Some(leaf.parent.unwrap())).unwrap();
    let mut calls = 0;
    let report = copy_book(&sqlite, &url, &mut |done, total| {
        calls += 1;
        assert!(done <= total);
    })
    .unwrap();
    assert!(calls >= 1 && report.nodes > 30, "{report:?}");
    copy_book(&url, &back, &mut |_, _| {}).unwrap();
    let mut b = Book::open(&url).unwrap();
    let mut c = Book::open(&back).unwrap();
    let meta = |location: &str| {
        let mut store = open_store(location).unwrap();
        let mut txn = store.read().unwrap();
        txn.all_meta().unwrap()
    };
    let want = meta(&sqlite);
    assert!(want.iter().any(|(n, _)| n == "event_seq"), "{want:?}");
    assert_eq!(meta(&url), want);
    assert_eq!(meta(&back), want);
    let want = a.all_nodes().unwrap();
    assert_eq!(b.all_nodes().unwrap(), want);
    assert_eq!(c.all_nodes().unwrap(), want);
    assert_eq!(b.queue().unwrap(), a.queue().unwrap());
    assert_eq!(c.queue().unwrap(), a.queue().unwrap());
    assert_eq!(b.search_log().unwrap(), a.search_log().unwrap());
    assert_eq!(c.search_log().unwrap(), a.search_log().unwrap());
    assert_eq!(b.check().unwrap(), Vec::<String>::new());
    // New rows follow the copied ones: the copy grows on.
    let before = b.counts().unwrap();
    drop(b);
    let mut opts = options(20_000, 1);
    opts.max_searches = Some(3);
    grow(&url, None, &opts, &Arc::new(AtomicBool::new(false)), &stats).unwrap();
    let mut b = Book::open(&url).unwrap();
    let after = b.counts().unwrap();
    assert_eq!(after.searches, before.searches + 3);
    assert_eq!(b.check().unwrap(), Vec::<String>::new());
    let log = b.search_log().unwrap();
    let seqs: Vec<i64> = log.iter().map(|l| l.start_seq).collect();
    assert!(seqs.windows(2).all(|w| w[0] < w[1]), "{seqs:?}");
    // An existing destination is refused, in both directions.
    let err = copy_book(&sqlite, &url, &mut |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    let err = copy_book(&url, &back, &mut |_, _| {}).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    // ... and nothing of it was touched.
    assert_eq!(Book::open(&url).unwrap().counts().unwrap(), after);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn pg_errors_name_the_url_without_password() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let url = server.url("errors");
    let err = Book::open(&url).unwrap_err();
    assert!(err.to_string().contains("no book at"), "{err}");
    drop(new_book(&url, "e3 e6"));
    let err = Book::create(
        &url,
        &Position::start(Rules::INTERNATIONAL),
        Color::White,
        &[],
    )
    .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    // Wrong password: the message names the URL with the password hidden.
    let port = server.port();
    let refused = format!("postgres://someone:s3cret@127.0.0.1:{}/x", free_port());
    let err = Book::open(&refused).unwrap_err().to_string();
    assert!(
        err.contains("cannot connect to the PostgreSQL database") && err.contains("someone:***@"),
        "{err}"
    );
    assert!(!err.contains("s3cret"), "{err}");
    let err = Book::open(&format!("postgres://127.0.0.1:{port}/x?nonsense=1"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("not a valid PostgreSQL URL"), "{err}");
    // Removing a book leaves an empty database; one with other tables of the same names
    // is not a book, and a book is not created over them.
    let other = server.url("other");
    drop(new_book(&other, "e3 e6"));
    antichess_book::remove_store(&other).unwrap();
    let err = Book::open(&other).unwrap_err();
    assert!(err.to_string().contains("no book at"), "{err}");
    let mut client = postgres::Client::connect(&other, postgres::NoTls).unwrap();
    client
        .batch_execute("CREATE TABLE nodes (id BIGINT)")
        .unwrap();
    let err = Book::open(&other).unwrap_err().to_string();
    assert!(err.contains("is not a book"), "{err}");
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), "e3 e6").unwrap();
    let err = Book::create(&other, game.position(), Color::White, game.moves())
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("already has a table or sequence named nodes"),
        "{err}"
    );
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// TLS as libpq's `sslmode` and `sslrootcert` say, against a server that refuses
/// unencrypted TCP and whose certificate, signed by a test CA, names `localhost` only.
#[test]
fn pg_tls_modes_encrypt_and_check_the_certificate() {
    let Some(mut server) = pg_server::dedicated() else {
        return;
    };
    let Some(files) = server.require_tls() else {
        return;
    };
    let (ca, other_ca) = (&files.ca, &files.other_ca);
    let url = server.url("tls");
    let by_name = url.replace("@127.0.0.1:", "@localhost:");
    let with = |url: &str, query: &str| format!("{url}?{query}");
    // Created over TLS (the default, prefer: encrypted, certificate unchecked).
    drop(new_book(&url, "e3 Na6"));
    let opens = |location: String| match Book::open(&location) {
        Ok(mut book) => {
            assert_eq!(book.root().unwrap().status, Status::Unknown);
            Ok(())
        }
        Err(e) => Err(e),
    };
    for query in [
        "sslmode=prefer".to_string(),
        "sslmode=require".to_string(),
        format!("sslmode=verify-ca&sslrootcert={}", ca.display()),
        format!("sslmode=require&sslrootcert={}", ca.display()),
    ] {
        opens(with(&url, &query)).unwrap_or_else(|e| panic!("{query}: {e}"));
    }
    opens(with(
        &by_name,
        &format!("sslmode=verify-full&sslrootcert={}", ca.display()),
    ))
    .expect("verify-full by the certificate's name");
    // Refused: no TLS, a certificate not issued for 127.0.0.1, a CA that did not sign it.
    let refused = |location: String, why: &str| {
        let error = opens(location.clone()).expect_err(&location);
        let text = error.to_string();
        eprintln!("refused as it should be: {text}");
        assert!(text.contains(why), "{location}: {text}");
        assert!(!text.contains("secret"), "{text}");
        assert!(!error.is_transient(), "{location}: {text}");
    };
    refused(with(&url, "sslmode=disable"), "no encryption");
    refused(
        with(
            &url,
            &format!("sslmode=verify-full&sslrootcert={}", ca.display()),
        ),
        "certificate",
    );
    refused(
        with(
            &url,
            &format!("sslmode=verify-ca&sslrootcert={}", other_ca.display()),
        ),
        "certificate",
    );
    refused(
        with(
            &url,
            &format!("sslmode=require&sslrootcert={}", other_ca.display()),
        ),
        "certificate",
    );
    // Client certificates: `certuser` logs in only with one the server's CA signed.
    let as_certuser = server.url("tls_cert").replace("postgres@", "certuser@");
    let identity = |mode: &str, (cert, key): &(std::path::PathBuf, std::path::PathBuf)| {
        format!(
            "sslmode={mode}&sslrootcert={}&sslcert={}&sslkey={}",
            ca.display(),
            cert.display(),
            key.display()
        )
    };
    let by_name = as_certuser.replace("@127.0.0.1:", "@localhost:");
    drop(new_book(
        &with(&by_name, &identity("verify-full", &files.client)),
        "e3 Na6",
    ));
    opens(with(&as_certuser, &identity("require", &files.client)))
        .expect("certuser with its certificate");
    refused(with(&as_certuser, "sslmode=require"), "certificate");
    refused(
        with(&as_certuser, &identity("require", &files.foreign_client)),
        "fatal alert",
    );
    // A key that does not match the certificate is refused before anything is sent.
    let mismatched = (files.client.0.clone(), files.foreign_client.1.clone());
    refused(
        with(&as_certuser, &identity("require", &mismatched)),
        "client certificate",
    );
}

/// Runs SQL on a book with the store's own driver, behind the book's back.
fn behind_the_back(location: &str, sql: &str) {
    if location.starts_with("postgres") {
        let mut client = postgres::Client::connect(location, postgres::NoTls).unwrap();
        client.batch_execute(sql).unwrap();
    } else {
        let conn = rusqlite::Connection::open(location).unwrap();
        conn.execute_batch(sql).unwrap();
    }
}

/// `check_all` runs the store's integrity check first and says what it covered; a claim
/// leased until the year 287,000 is reported by the check, and `grow` stops naming the
/// node instead of waiting for the lease.
fn check_damaged_lease(location: &str) {
    let mut book = new_book(location, "e3 Na6");
    let (integrity, problems) = book.check_all().unwrap();
    assert!(problems.is_empty(), "{location}: {problems:?}");
    assert!(integrity.problems.is_empty(), "{location}: {integrity:?}");
    behind_the_back(
        location,
        "UPDATE nodes SET claimed_by = 'elsewhere:1:0', lease_until = 9000000000000000",
    );
    let (_, problems) = book.check_all().unwrap();
    assert!(
        problems.iter().any(
            |p| p.starts_with("node 1 (the root): claimed by elsewhere:1:0 until the year 287")
        ),
        "{location}: {problems:?}"
    );
    let stop = Arc::new(AtomicBool::new(false));
    let mut opts = options(1000, 2);
    opts.max_time = Some(Duration::from_secs(60));
    let start = Instant::now();
    let err = grow(location, None, &opts, &stop, &GrowStats::default()).unwrap_err();
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "{location}: waited"
    );
    assert!(
        err.to_string()
            .contains("node 1 (the root): claimed by elsewhere:1:0"),
        "{location}: {err}"
    );
}

#[test]
fn pg_and_sqlite_check_the_store_and_stop_on_a_damaged_lease() {
    let dir = temp("damaged-lease");
    let sqlite = dir.join("b.book").display().to_string();
    check_damaged_lease(&sqlite);
    let mut book = Book::open(&sqlite).unwrap();
    assert_eq!(
        book.integrity(false).unwrap().checked,
        "SQLite's PRAGMA integrity_check"
    );
    let Some(server) = pg_server::server() else {
        eprintln!("skipped the PostgreSQL part: no PostgreSQL binaries");
        return;
    };
    let url = server.url("damaged_lease");
    check_damaged_lease(&url);
    let mut book = Book::open(&url).unwrap();
    let without = book.integrity(false).unwrap();
    assert!(without.problems.is_empty(), "{without:?}");
    assert!(without.checked.contains("were not verified"), "{without:?}");
    behind_the_back(&url, "CREATE EXTENSION IF NOT EXISTS amcheck");
    let with = book.integrity(false).unwrap();
    assert!(with.problems.is_empty(), "{with:?}");
    assert!(with.checked.contains("bt_index_check"), "{with:?}");
    // The quick form (the writers') checks index validity only.
    assert!(!book.integrity(true).unwrap().checked.contains("amcheck"));
}

/// Seeds on PostgreSQL as on SQLite: a seed (here the proof of 1. e3 Na6 2. Bxa6, the
/// only move after 1. e3 Na6) wins the node of its position when the first search creates
/// it, so the root is won after one search; the book's proof splices the seed in and
/// verifies; a copy to SQLite keeps the seed.
#[test]
fn pg_seeds_win_new_nodes_and_are_spliced_into_the_proof() {
    let Some(server) = pg_server::server() else {
        return;
    };
    let dir = temp("pg-seed");
    let seed = dir.join("bxa6.proof");
    let child = *play_move_text(Position::start(Rules::INTERNATIONAL), "e3 Na6 Bxa6")
        .unwrap()
        .position();
    let solver = antichess_pns::Solver::try_new(16 << 20, None).unwrap();
    let mut prove =
        antichess_pns::ProveOptions::new(antichess_pns::SearchOptions::new(Color::White));
    prove.output = antichess_pns::ProofOutput::File(seed.clone());
    prove.main_line_plies = 0;
    antichess_pns::prove_position(&solver, &child, &prove, &mut |_| {}).unwrap();

    let url = server.url("seeded");
    let mut book = new_book(&url, "e3 Na6");
    let report = antichess_book::seed_file(&mut book, &seed, None).unwrap();
    assert_eq!(report.won_now, 0, "no node of that position yet");
    drop(book);
    let stats = grow_until_solved(&url, 100_000, 1);
    assert_eq!(stats.searches.load(std::sync::atomic::Ordering::Relaxed), 1);
    let mut book = Book::open(&url).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    assert!(book.check().unwrap().is_empty());
    let proof = dir.join("na6.proof");
    let (report, verified) = antichess_book::prove_to_file(
        &mut book,
        None,
        &antichess_book::AssembleOptions {
            hash_bytes: 16 << 20,
            ..Default::default()
        },
        &proof,
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(report.seeds_used, 1);
    assert_eq!(
        report.leaves, 0,
        "nothing re-solved: the seed covers the line"
    );
    assert!(verified.verdict.is_ok(), "{:?}", verified.verdict);

    let copy = dir.join("copy.book").display().to_string();
    copy_book(&url, &copy, &mut |_, _| {}).unwrap();
    let mut copied = Book::open(&copy).unwrap();
    assert_eq!(antichess_book::seeds(&mut copied).unwrap().len(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}
