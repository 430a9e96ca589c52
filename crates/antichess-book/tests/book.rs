//! End-to-end tests of the book library on small books that solve in seconds: grow until
//! solved, prove, verify; grow keeping the leaves' proofs for prove; several workers never search one leaf at overlapping times;
//! steering (queue, pin, marks); export and import; errors that name the bad input.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use antichess_book::{
    apply, export, grow, import, open_store, prove_to_file, Applied, AssembleOptions, Book,
    BookError, Expansion, GrowEnd, GrowOptions, GrowStats, LeafOutcome, NewChild, ProveEvent,
    Selection, Status, INF,
};
use antichess_core::{play_move_text, Color, Move, Position, Rules};
use antichess_testkit::temp_dir as temp;

fn new_book(dir: &std::path::Path, name: &str, moves: &str) -> (String, Book) {
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), moves).unwrap();
    let location = dir.join(name).display().to_string();
    let book = Book::create(&location, game.position(), Color::White, game.moves()).unwrap();
    (location, book)
}

/// Options of a quick grow: the most-proving walk (the random walk's number of searches
/// varies a lot from run to run).
fn options(search_nodes: u64, workers: usize) -> GrowOptions {
    GrowOptions {
        workers,
        search_nodes,
        hash_bytes: 16 << 20,
        selection: Selection::MostProving,
        ..GrowOptions::default()
    }
}

/// One `grow` run on the book at `location`, never interrupted.
fn grow_on(location: &str, opts: &GrowOptions, stats: &GrowStats) -> GrowEnd {
    grow(
        location,
        None,
        opts,
        &Arc::new(AtomicBool::new(false)),
        stats,
    )
    .unwrap()
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

#[test]
fn grows_until_solved_then_proves_and_verifies() {
    let dir = temp("solve");
    let (location, book) = new_book(&dir, "e3-na6.book", "e3 Na6");
    drop(book);
    let stats = GrowStats::default();
    let end = grow_on(&location, &options(100_000, 1), &stats);
    assert_eq!(end, GrowEnd::Solved);
    let mut book = Book::open(&location).unwrap();
    let root = book.root().unwrap();
    assert_eq!(root.status, Status::Win);
    assert_eq!((root.proof, root.disproof), (0, INF));
    let counts = book.counts().unwrap();
    eprintln!("{counts:?} searches {:?}", stats);
    assert!(counts.nodes > 1 && counts.searches > 1, "{counts:?}");
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    let proof = dir.join("e3-na6.proof");
    let (report, verified) = prove_to_file(
        &mut book,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            ..AssembleOptions::default()
        },
        &proof,
        &mut |_| {},
    )
    .unwrap();
    eprintln!("{report:?} {verified:?}");
    let stats = verified.verdict.expect("the verifier accepts the proof");
    assert_eq!(stats.counts, report.counts);
    assert!(report.leaves >= 1 && report.book_nodes >= 1);
    // With minimisation: no larger, and valid.
    let (small, verified) = prove_to_file(
        &mut book,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            // (A budget in positions searched, not time: the same run on every machine.)
            minimize_work: Some(200_000),
            ..AssembleOptions::default()
        },
        &dir.join("small.proof"),
        &mut |_| {},
    )
    .unwrap();
    let stats = verified
        .verdict
        .expect("the verifier accepts the minimised proof");
    assert_eq!(stats.counts, small.counts);
    assert_eq!(small.assembled_nodes, report.counts.total);
    assert!(small.counts.total <= report.counts.total, "{small:?}");
    // (Its exact searches may take the whole budget, before any other search.)
    assert!(
        small
            .minimized
            .is_some_and(|m| m.searched + m.exact_searched > 0),
        "{small:?}"
    );
    // Stopped (Ctrl-C) once its two hours have begun: the assembled proof, valid.
    let stop = Arc::new(AtomicBool::new(false));
    let (stopped, verified) = prove_to_file(
        &mut book,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            minimize: Some(std::time::Duration::from_secs(7200)),
            stop: Some(stop.clone()),
            ..AssembleOptions::default()
        },
        &dir.join("stopped.proof"),
        &mut |e| {
            if matches!(e, ProveEvent::Minimizing { .. }) {
                stop.store(true, Ordering::Relaxed);
            }
        },
    )
    .unwrap();
    let stats = verified.verdict.expect("the verifier accepts it");
    assert_eq!(stats.counts, stopped.counts);
    assert!(stopped.seconds < 1800.0, "{stopped:?}");
    assert!(stopped.counts.total <= report.counts.total, "{stopped:?}");
    resumable_prove(&mut book, &dir, report.leaves);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The walk that weighs the work spent (`Effort`) still reaches every leaf it must: a
/// line the most-proving walk solves is solved with it too, within a bounded number of
/// searches, and the book checks clean.
#[test]
fn the_effort_walk_solves_what_the_most_proving_walk_does() {
    let dir = temp("effort");
    let (location, book) = new_book(&dir, "e3-na6.book", "e3 Na6");
    drop(book);
    let stats = GrowStats::default();
    let mut opts = options(20_000, 2);
    // A small min_size, so that the weighting acts from the first expansions on.
    opts.effort = Some(antichess_book::Effort {
        fraction: 0.25,
        min_size: 20_000,
        min_depth: 0,
    });
    opts.max_searches = Some(2_000);
    let end = grow_on(&location, &opts, &stats);
    assert_eq!(end, GrowEnd::Solved, "{stats:?}");
    let mut book = Book::open(&location).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    assert_no_overlap(&mut book);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `grow` with a proof directory keeps the proof of every node its searches prove, so the
/// assembly of the proof afterwards reads every leaf and searches none (issue 37: a leaf
/// proved inside a worker's warm table may be much harder for a search of its own).
#[test]
fn grow_keeps_the_leaf_proofs_prove_needs() {
    let dir = temp("keep");
    let (location, book) = new_book(&dir, "e3-na6.book", "e3 Na6");
    drop(book);
    let kept = dir.join("kept");
    let stats = GrowStats::default();
    let opts = GrowOptions {
        proof_dir: Some(kept.clone()),
        ..options(20_000, 2)
    };
    assert_eq!(grow_on(&location, &opts, &stats), GrowEnd::Solved);
    let written = stats.proofs_kept.load(Ordering::Relaxed);
    let files = std::fs::read_dir(&kept).unwrap().count() as u64;
    assert!(written >= 2, "{stats:?}");
    // One file per position: two workers that prove the same position at the same moment
    // (a transposition between their leaves) both write its file, atomically, and both
    // count it (a CI run saw 110 writes for 109 files).
    assert!(
        files >= 2 && files <= written && written - files <= written / 10,
        "{files} files for {written} proofs kept"
    );
    let mut book = Book::open(&location).unwrap();
    let (report, verified) = prove_to_file(
        &mut book,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            leaf_dir: Some(kept.clone()),
            ..AssembleOptions::default()
        },
        &dir.join("kept.proof"),
        &mut |_| {},
    )
    .unwrap();
    verified.verdict.expect("the verifier accepts the proof");
    assert!(report.leaves >= 2, "{report:?}");
    assert_eq!(
        (report.leaves_reused, report.search_nodes),
        (report.leaves, 0),
        "every leaf read from the kept proofs: {report:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// `prove_to_file` with a leaf directory: stopped before the first leaf, nothing is saved;
/// stopped after the first leaf, it is saved; run again, the saved leaves are read back
/// (one of them damaged is searched again), and the proof verifies.
fn resumable_prove(book: &mut Book, dir: &std::path::Path, leaves: u64) {
    assert!(leaves >= 2, "the test needs a book with several leaves");
    let leaf_dir = dir.join("leaves");
    let options = |stop: &Arc<AtomicBool>| AssembleOptions {
        hash_bytes: 32 << 20,
        stop: Some(stop.clone()),
        leaf_dir: Some(leaf_dir.clone()),
        ..AssembleOptions::default()
    };
    let saved = || std::fs::read_dir(&leaf_dir).map_or(0, Iterator::count);
    let proof = dir.join("resumed.proof");
    let stop = Arc::new(AtomicBool::new(true));
    let error = prove_to_file(book, None, &options(&stop), &proof, &mut |_| {}).unwrap_err();
    assert!(matches!(error, BookError::Interrupted(_)), "{error}");
    assert_eq!(saved(), 0);
    assert!(!proof.exists());
    let stop = Arc::new(AtomicBool::new(false));
    let error = prove_to_file(book, None, &options(&stop), &proof, &mut |e| {
        if matches!(e, ProveEvent::LeafSolved { .. }) {
            stop.store(true, Ordering::Relaxed);
        }
    })
    .unwrap_err();
    assert!(error.to_string().contains("saved in"), "{error}");
    assert_eq!(saved(), 1);
    assert!(!proof.exists());
    // Finish, then damage one saved leaf and prove again.
    let stop = Arc::new(AtomicBool::new(false));
    let (first, verified) =
        prove_to_file(book, None, &options(&stop), &proof, &mut |_| {}).unwrap();
    verified
        .verdict
        .expect("the verifier accepts the resumed proof");
    assert_eq!(first.leaves, leaves);
    assert_eq!(first.leaves_reused, 1, "{first:?}");
    assert_eq!(saved() as u64, leaves);
    let damaged = std::fs::read_dir(&leaf_dir)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    std::fs::write(&damaged, b"not a proof").unwrap();
    let (again, verified) =
        prove_to_file(book, None, &options(&stop), &proof, &mut |_| {}).unwrap();
    verified.verdict.expect("the verifier accepts the proof");
    assert_eq!(again.leaves_reused, leaves - 1, "{again:?}");
    assert!(again.search_nodes > 0, "{again:?}");
    assert_eq!(saved() as u64, leaves);
    // Two threads: every saved leaf read back; with none saved, all searched, and valid.
    let two = |leaf_dir: Option<std::path::PathBuf>| AssembleOptions {
        hash_bytes: 32 << 20,
        threads: 2,
        leaf_dir,
        ..AssembleOptions::default()
    };
    let (reread, verified) = prove_to_file(
        book,
        None,
        &two(Some(leaf_dir.clone())),
        &proof,
        &mut |_| {},
    )
    .unwrap();
    verified.verdict.expect("the verifier accepts the proof");
    assert_eq!((reread.leaves_reused, reread.search_nodes), (leaves, 0));
    let mut told = 0;
    let (threads, verified) = prove_to_file(book, None, &two(None), &proof, &mut |e| {
        if matches!(e, ProveEvent::LeafSolved { .. }) {
            told += 1;
        }
    })
    .unwrap();
    let stats = verified.verdict.expect("the verifier accepts the proof");
    assert_eq!(stats.counts, threads.counts);
    assert_eq!(
        (threads.leaves, threads.leaves_reused, told),
        (leaves, 0, leaves)
    );
    let stopped = AssembleOptions {
        stop: Some(Arc::new(AtomicBool::new(true))),
        ..two(None)
    };
    let error = prove_to_file(book, None, &stopped, &proof, &mut |_| {}).unwrap_err();
    assert!(matches!(error, BookError::Interrupted(_)), "{error}");
}

#[test]
fn concurrent_workers_never_search_one_leaf_at_once() {
    let dir = temp("workers");
    let (location, book) = new_book(&dir, "na6.book", "e3 Na6");
    drop(book);
    let stats = GrowStats::default();
    let end = grow_on(&location, &options(100_000, 3), &stats);
    assert_eq!(end, GrowEnd::Solved);
    let mut book = Book::open(&location).unwrap();
    assert_eq!(book.root().unwrap().status, Status::Win);
    let searches = assert_no_overlap(&mut book);
    let log = book.search_log().unwrap();
    let workers: std::collections::HashSet<_> = log.iter().map(|l| l.worker.clone()).collect();
    eprintln!("{searches} searches by {} workers", workers.len());
    assert!(workers.len() >= 2, "{workers:?}");
    assert!(
        log.iter().all(|l| l.end_seq.is_some()),
        "every search finished"
    );
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn leases_block_other_workers_until_they_expire() {
    let dir = temp("lease");
    let (location, mut book) = new_book(&dir, "lease.book", "e3 Na6");
    let root = book.root_id();
    let mut store = open_store(&location).unwrap();
    let mut txn = store.write().unwrap();
    assert!(txn.claim(root, "a:1:0", 1_000, 2_000).unwrap());
    // Another worker cannot take it while the lease holds, and can once it has expired.
    assert!(!txn.claim(root, "b:2:0", 1_999, 3_000).unwrap());
    assert!(txn.claim(root, "b:2:0", 2_000, 3_000).unwrap());
    let log = txn.log_start(root, "a:1:0", 1_000, 1).unwrap();
    // The first worker's late result is dropped.
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
    // A claim of a process that no longer runs on this host is released at once.
    let mut txn = store.write().unwrap();
    let dead = format!(
        "{}:{}:0",
        antichess_book::worker_id(0).split(':').next().unwrap(),
        u32::MAX - 7
    );
    txn.release(root, "b:2:0").unwrap();
    assert!(txn
        .claim(root, &dead, antichess_book::now_ms(), i64::MAX)
        .unwrap());
    txn.commit().unwrap();
    assert_eq!(antichess_book::release_dead_claims(&mut *store).unwrap(), 1);
    assert!(book.root().unwrap().claimed_by.is_none());
    let _ = std::fs::remove_dir_all(&dir);
}

/// A stored depth that does not fit a node's depth (`u32`) is refused as a corrupt row
/// naming the node and the value, never wrapped (SQLite did) or clamped (PostgreSQL did);
/// `book_pg.rs` checks the same on both stores.
#[test]
fn a_stored_depth_that_does_not_fit_is_refused() {
    let dir = temp("depth");
    let (location, mut book) = new_book(&dir, "depth.book", "e3 Na6");
    let root = book.root_id();
    let conn = rusqlite::Connection::open(&location).unwrap();
    let set_depth = |depth: i64| {
        conn.execute("UPDATE nodes SET depth = ?1 WHERE id = ?2", (depth, root))
            .unwrap();
    };
    for bad in [-1, 1 << 32, (1 << 32) + 5, i64::MAX] {
        set_depth(bad);
        let err = book.node(root).unwrap_err();
        assert!(matches!(err, BookError::Corrupt(_)), "{err:?}");
        assert!(
            err.to_string()
                .contains(&format!("node {root}: depth {bad} is out of range")),
            "{err}"
        );
    }
    set_depth(i64::from(u32::MAX));
    assert_eq!(book.node(root).unwrap().depth, u32::MAX);
    set_depth(0);
    assert_eq!(book.node(root).unwrap().depth, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Claims the node at `line` and writes a made-up search result: every child gets
/// numbers (2, 2) unless `decided` says otherwise.
fn fake_expand(location: &str, book: &mut Book, line: &str, outcome: Option<Status>) {
    let moves: Vec<Move> = play_move_text(*book.root_position(), line)
        .unwrap()
        .moves()
        .to_vec();
    let node = book.find(&moves).unwrap();
    let pos = book.position(&node).unwrap();
    let outcome = match outcome {
        Some(status) => LeafOutcome::Decided(status),
        None => LeafOutcome::Searched {
            proof: 2,
            disproof: 2,
            work: 10,
            children: pos
                .legal_moves()
                .iter()
                .map(|&mv| NewChild {
                    mv,
                    proof: 2,
                    disproof: 2,
                    work: 1,
                    children: None,
                })
                .collect(),
        },
    };
    let mut store = open_store(location).unwrap();
    let mut txn = store.write().unwrap();
    assert!(txn.claim(node.id, "t:1:0", 0, i64::MAX).unwrap(), "{line}");
    let log = txn.log_start(node.id, "t:1:0", 0, 0).unwrap();
    let expansion = Expansion {
        outcome,
        nodes: 1,
        missing_tables: Vec::new(),
    };
    let applied = apply(
        &mut *txn,
        node.id,
        "t:1:0",
        &expansion,
        log,
        Rules::INTERNATIONAL,
        Color::White,
    )
    .unwrap();
    assert_eq!(applied, Applied::Written);
    txn.commit().unwrap();
}

fn node_at(book: &mut Book, line: &str) -> antichess_book::Node {
    let moves: Vec<Move> = play_move_text(*book.root_position(), line)
        .unwrap()
        .moves()
        .to_vec();
    book.find(&moves).unwrap()
}

#[test]
fn transpositions_share_proven_positions() {
    let dir = temp("transpositions");
    let (location, mut book) = new_book(&dir, "tp.book", "e3 e6");
    for line in ["", "Nf3", "Nc3", "Nf3 Nc6", "Nc3 Nc6"] {
        fake_expand(&location, &mut book, line, None);
    }
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    // Proving the position after Nf3 Nc6 Nc3 proves Nc3 Nc6 Nf3 too (same position).
    fake_expand(&location, &mut book, "Nf3 Nc6 Nc3", Some(Status::Win));
    let twin = node_at(&mut book, "Nc3 Nc6 Nf3");
    let won = node_at(&mut book, "Nf3 Nc6 Nc3");
    assert_eq!(twin.status, Status::Win);
    assert_eq!(twin.same_as, Some(won.id));
    assert!(twin.win_seq > won.win_seq);
    // Both parents are won through them (OR nodes), and the numbers reached the root.
    assert_eq!(node_at(&mut book, "Nc3 Nc6").status, Status::Win);
    assert_eq!(node_at(&mut book, "Nf3 Nc6").status, Status::Win);
    let root = book.root().unwrap();
    assert!(root.proof > 0 && root.status == Status::Unknown);
    // A node created later for a won position (reached by another move order) is won at
    // once: here the position after Nc3 Nc6, won through its child Nf3.
    for line in ["Nc3 Nc6 Ne4", "Nc3 Nc6 Ne4 Nb8", "Nc3 Nc6 Ne4 Nb8 Nc3"] {
        fake_expand(&location, &mut book, line, None);
    }
    let late = node_at(&mut book, "Nc3 Nc6 Ne4 Nb8 Nc3 Nc6");
    let earlier = node_at(&mut book, "Nc3 Nc6");
    assert_eq!((late.status, late.same_as), (Status::Win, Some(earlier.id)));
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_queued_line_beyond_the_book_is_grown_along_first() {
    let dir = temp("queue-line");
    let (location, mut book) = new_book(&dir, "line.book", "e3 e6");
    let moves = |book: &Book, line: &str| -> Vec<Move> {
        play_move_text(*book.root_position(), line)
            .unwrap()
            .moves()
            .to_vec()
    };
    // A line no walk would take first; the book holds only its root.
    let line = moves(&book, "h3 h6 a3");
    let (node, ahead) = book.queue_line(&line).unwrap();
    assert_eq!(node.id, book.root().unwrap().id);
    assert_eq!(ahead, line);
    let queued = book.queue_lines().unwrap();
    assert_eq!(queued.len(), 1);
    assert_eq!(queued[0].1, ["h2h3", "h7h6", "a2a3"]);
    // Illegal moves are refused, naming the ply.
    let err = book
        .queue_line(&[line[0], line[0]])
        .unwrap_err()
        .to_string();
    assert!(err.contains("ply 2"), "{err}");
    book.queue_clear().unwrap();
    assert!(book.queue_lines().unwrap().is_empty());
    book.queue_line(&line).unwrap();

    // Each search moves the entry one node on along the line (or more, through nodes the
    // search expanded), until it is an ordinary entry on the line's last node.
    let mut opts = options(2_000, 1);
    opts.max_searches = Some(1);
    let mut searches = 0;
    while !book.queue().unwrap().is_empty() {
        grow_on(&location, &opts, &GrowStats::default());
        searches += 1;
        assert!(searches <= 4, "{:?}", book.queue_lines().unwrap());
    }
    let last = node_at(&mut book, "h3 h6 a3");
    assert_eq!(last.searches, 1);
    for prefix in ["h3", "h3 h6"] {
        assert!(node_at(&mut book, prefix).expanded, "{prefix}");
    }
    // Every search went along the line: the root, h3, h3 h6 and the line's end.
    assert_eq!(book.counts().unwrap().searches as usize, searches);
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );

    // A line through a decided node is refused.
    let h3 = node_at(&mut book, "h3");
    book.mark(h3.id, Some(true)).unwrap();
    let err = book
        .queue_line(&moves(&book, "h3 h6"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("already decided"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn steering_marks_queue_pin() {
    let dir = temp("steer");
    let (location, mut book) = new_book(&dir, "steer.book", "e3 e6");
    fake_expand(&location, &mut book, "", None);
    // Marks decide a node and its ancestors, and come off again.
    let nf3 = node_at(&mut book, "Nf3");
    book.mark(nf3.id, Some(true)).unwrap();
    assert_eq!(book.root().unwrap().status, Status::MarkedWin);
    assert_eq!(book.root().unwrap().proof, 0);
    book.mark(nf3.id, None).unwrap();
    let root = book.root().unwrap();
    assert_eq!(
        (root.status, root.proof, root.disproof),
        (Status::Unknown, 2, 2 * 30)
    );
    // A move marked lost is out of the prover's reach: the root's proof number is the
    // other moves' minimum and its disproof number loses the move's share; with every
    // move but one marked lost, the walk can only go to that one.
    book.mark(nf3.id, Some(false)).unwrap();
    let lost = book.node(nf3.id).unwrap();
    assert_eq!(
        (lost.status, lost.proof, lost.disproof),
        (Status::MarkedLoss, INF, 0)
    );
    let root = book.root().unwrap();
    assert_eq!(
        (root.status, root.proof, root.disproof),
        (Status::Unknown, 2, 2 * 29)
    );
    let root_id = root.id;
    let others: Vec<_> = book
        .children(root_id)
        .unwrap()
        .into_iter()
        .filter(|c| c.id != nf3.id)
        .collect();
    let (left, marked) = others.split_last().unwrap();
    for child in marked {
        book.mark(child.id, Some(false)).unwrap();
    }
    let root = book.root().unwrap();
    assert_eq!((root.proof, root.disproof), (2, 2), "only one move left");
    let mut opts = options(2_000, 1);
    opts.max_searches = Some(1);
    grow_on(&location, &opts, &GrowStats::default());
    assert_eq!(book.node(left.id).unwrap().searches, 1);
    // Every move lost: the root is lost too, by judgement; unmarked, it is as before.
    book.mark(left.id, Some(false)).unwrap();
    assert_eq!(book.root().unwrap().status, Status::MarkedLoss);
    for child in others.iter().chain([&nf3]) {
        book.mark(child.id, None).unwrap();
    }
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    // A queued leaf is searched first, whatever its numbers.
    let h4 = node_at(&mut book, "h4");
    book.queue_push(h4.id).unwrap();
    let stats = GrowStats::default();
    let mut opts = options(2_000, 1);
    opts.max_searches = Some(1);
    grow_on(&location, &opts, &stats);
    assert_eq!(book.node(h4.id).unwrap().searches, 1);
    assert!(book.queue().unwrap().is_empty());
    // A pinned walk starts at the pinned node (here with the random walk).
    let a3 = node_at(&mut book, "a3");
    book.pin(Some(a3.id)).unwrap();
    opts.selection = Selection::Weighted { exponent: 2.0 };
    grow_on(&location, &opts, &stats);
    assert_eq!(book.node(a3.id).unwrap().searches, 1);
    opts.max_searches = Some(1);
    grow_on(&location, &opts, &stats);
    let last = book.search_log().unwrap().pop().unwrap();
    let line = book.line_to(last.node).unwrap();
    assert_eq!(line[0].to_uci(), "a2a3", "the walk started below the pin");
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn export_grow_import_then_prove() {
    let dir = temp("transfer");
    let (location, mut book) = new_book(&dir, "main.book", "e3 Na6");
    let stats = GrowStats::default();
    let mut opts = options(100_000, 1);
    opts.max_searches = Some(1);
    grow_on(&location, &opts, &stats);
    // The first search keeps the forced line 2. Bxa6 bxa6 in the book (the 70% rule).
    let cut = node_at(&mut book, "Bxa6 bxa6");
    assert!(cut.expanded);
    let sub_location = dir.join("sub.book").display().to_string();
    let copied = export(&mut book, cut.id, &sub_location).unwrap();
    assert!(copied > 1);
    let mut sub = Book::open(&sub_location).unwrap();
    assert_eq!(sub.meta().prolog.len(), 4);
    assert_eq!(sub.all_nodes().unwrap().len() as u64, copied);
    drop(sub);
    let end = grow_on(&sub_location, &options(100_000, 1), &stats);
    assert_eq!(end, GrowEnd::Solved);
    let report = import(&mut book, &sub_location, None).unwrap();
    assert!(report.added > 0 && report.updated > 0, "{report:?}");
    assert_eq!(book.root().unwrap().status, Status::Win);
    assert!(
        book.check().unwrap().is_empty(),
        "{:?}",
        book.check().unwrap()
    );
    let (_, verified) = prove_to_file(
        &mut book,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            ..AssembleOptions::default()
        },
        &dir.join("main.proof"),
        &mut |_| {},
    )
    .unwrap();
    verified.verdict.expect("the verifier accepts the proof");
    // A book of other rules does not fit.
    let fics = dir.join("fics.book").display().to_string();
    let pos = Position::from_fen(&book.meta().root_fen, Rules::FICS).unwrap();
    Book::create(&fics, &pos, Color::White, &[]).unwrap();
    let err = import(&mut book, &fics, Some(&[])).unwrap_err();
    assert!(matches!(err, BookError::Mismatch(_)), "{err}");
    assert!(err.to_string().contains("fics"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn errors_name_the_bad_input() {
    let dir = temp("errors");
    let missing = dir.join("missing.book").display().to_string();
    let err = Book::open(&missing).unwrap_err();
    assert!(err.to_string().contains("no book at"), "{err}");
    let text = dir.join("notes.txt");
    std::fs::write(
        &text,
        "not a database, just some words that are long enough to matter",
    )
    .unwrap();
    let err = Book::open(text.to_str().unwrap()).unwrap_err();
    assert!(err.to_string().contains("is not a book"), "{err}");
    let (location, _) = new_book(&dir, "a.book", "e3 e6");
    let err = Book::create(
        &location,
        &Position::start(Rules::INTERNATIONAL),
        Color::White,
        &[],
    )
    .unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    let err = Book::open("postgres://localhost/book").unwrap_err();
    assert!(err.to_string().contains("PostgreSQL"), "{err}");
    let mut book = Book::open(&location).unwrap();
    let err = book
        .find(&[Position::start(Rules::INTERNATIONAL).legal_moves()[0]])
        .unwrap_err();
    assert!(err.to_string().contains("not in the book"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A frontier file carries a book that is not solved yet to a new book: the same numbers at
/// every open node, the won subtrees seeded from their proofs, and the new book goes on to
/// a proof that verifies. A damaged file is refused with a message naming it.
#[test]
fn a_frontier_carries_a_book_to_a_new_one_that_goes_on() {
    use antichess_book::frontier::{load_frontier, read_header, save_frontier};
    let dir = temp("frontier");
    let (location, book) = new_book(&dir, "e3-na6.book", "e3 Na6");
    drop(book);
    let kept = dir.join("kept");
    let stats = GrowStats::default();
    let opts = GrowOptions {
        proof_dir: Some(kept.clone()),
        max_searches: Some(8),
        ..options(20_000, 1)
    };
    assert_eq!(grow_on(&location, &opts, &stats), GrowEnd::Budget);
    let mut book = Book::open(&location).unwrap();
    let old_root = book.root().unwrap();
    assert!(!old_root.status.is_decided(), "{old_root:?}");
    let file = dir.join("na6.frontier");
    let prove = AssembleOptions {
        hash_bytes: 32 << 20,
        leaf_nodes: Some(1_000_000),
        leaf_dir: Some(kept.clone()),
        ..AssembleOptions::default()
    };
    let saved = save_frontier(&mut book, None, &prove, &file, &mut |_| {}).unwrap();
    eprintln!("{saved:?}");
    assert!(saved.proofs > 0 && saved.unproved.is_empty(), "{saved:?}");
    assert!(saved.nodes <= book.counts().unwrap().nodes, "{saved:?}");
    assert_eq!(saved.bytes, std::fs::metadata(&file).unwrap().len());
    let header = read_header(&file).unwrap();
    assert_eq!(
        (header.prover, header.searches, header.prolog.len()),
        (Color::White, book.counts().unwrap().searches, 2)
    );

    let new_location = dir.join("loaded.book").display().to_string();
    let loaded = load_frontier(&file, &new_location, None, &mut |_| {}).unwrap();
    assert_eq!(
        (loaded.nodes, loaded.seeded, loaded.rejected.len()),
        (saved.nodes, saved.proofs, 0),
        "{loaded:?}"
    );
    let mut new = Book::open(&new_location).unwrap();
    let new_root = new.root().unwrap();
    assert_eq!(
        (new_root.proof, new_root.disproof, new_root.status),
        (old_root.proof, old_root.disproof, old_root.status)
    );
    assert!(
        new.check().unwrap().is_empty(),
        "{:?}",
        new.check().unwrap()
    );
    let counts = new.counts().unwrap();
    assert_eq!(counts.open_leaves, saved.open_leaves, "{counts:?}");
    // Every node of the new book is the old book's node of that line, with its numbers.
    for node in new.all_nodes().unwrap() {
        let line = new.line_to(node.id).unwrap();
        let old = book.find(&line).unwrap();
        assert_eq!(
            (
                node.proof,
                node.disproof,
                node.status.is_win(),
                node.status.is_loss()
            ),
            (
                old.proof,
                old.disproof,
                old.status.is_win(),
                old.status.is_loss()
            ),
            "{line:?}"
        );
        if !node.status.is_decided() {
            assert_eq!(
                (
                    node.leaf_proof,
                    node.leaf_disproof,
                    node.work,
                    node.searches,
                    node.expanded
                ),
                (
                    old.leaf_proof,
                    old.leaf_disproof,
                    old.work,
                    old.searches,
                    old.expanded
                ),
                "{line:?}"
            );
            // (An expanded node's size sums its children's, and a won child's size is now
            // its proof's.)
            if !node.expanded {
                assert_eq!(node.size, old.size, "{line:?}");
            }
        }
    }
    drop(new);
    // The new book goes on to a verified proof.
    let stats = GrowStats::default();
    let opts = GrowOptions {
        proof_dir: Some(dir.join("kept2")),
        ..options(20_000, 1)
    };
    assert_eq!(grow_on(&new_location, &opts, &stats), GrowEnd::Solved);
    let mut new = Book::open(&new_location).unwrap();
    let (_, verified) = prove_to_file(
        &mut new,
        None,
        &AssembleOptions {
            hash_bytes: 32 << 20,
            leaf_dir: Some(dir.join("kept2")),
            ..AssembleOptions::default()
        },
        &dir.join("loaded.proof"),
        &mut |_| {},
    )
    .unwrap();
    verified.verdict.expect("the verifier accepts the proof");
    // A won subtree whose proof cannot be assembled (no kept proofs, a tiny budget: here
    // the solved root's) is written as an open leaf without its children, and the file
    // loads. (The first b5 frontier wrote such a node's child count but not its children.)
    let starved = AssembleOptions {
        hash_bytes: 16 << 20,
        leaf_nodes: Some(1),
        ..AssembleOptions::default()
    };
    let unproved = dir.join("unproved.frontier");
    let saved = save_frontier(&mut new, None, &starved, &unproved, &mut |_| {}).unwrap();
    assert_eq!(
        (saved.nodes, saved.open_leaves, saved.unproved.len()),
        (1, 1, 1),
        "{saved:?}"
    );
    let out = dir.join("unproved.book").display().to_string();
    let loaded = load_frontier(&unproved, &out, None, &mut |_| {}).unwrap();
    assert_eq!(loaded.nodes, 1, "{loaded:?}");
    let root = Book::open(&out).unwrap().root().unwrap();
    assert!(!root.expanded && !root.status.is_decided(), "{root:?}");

    // Damage is named.
    let bytes = std::fs::read(&file).unwrap();
    let broken = dir.join("broken.frontier");
    let load = |b: &[u8], name: &str| {
        std::fs::write(&broken, b).unwrap();
        let out = dir.join(name).display().to_string();
        load_frontier(&broken, &out, None, &mut |_| {})
            .unwrap_err()
            .to_string()
    };
    let err = load(&bytes[..bytes.len() - 9], "a.book");
    assert!(err.contains("broken.frontier is damaged"), "{err}");
    let mut flipped = bytes.clone();
    let at = flipped.len() / 2;
    flipped[at] ^= 0x10;
    let err = load(&flipped, "b.book");
    assert!(err.contains("broken.frontier is damaged"), "{err}");
    let err = load(b"SQLite format 3\0", "c.book");
    assert!(err.contains("is not a frontier file"), "{err}");
    let mut version = bytes.clone();
    version[7] = 9;
    let err = load(&version, "d.book");
    assert!(err.contains("version 9"), "{err}");
    let err = load_frontier(&file, &new_location, None, &mut |_| {}).unwrap_err();
    assert!(err.to_string().contains("already exists"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A frontier proof that rests on a table this machine lacks is kept in the book (not
/// dropped): written back by the next frontier save, its materials counted as met, and
/// seeded (verified) once the tables exist.
#[test]
fn a_frontier_proof_waits_for_its_tables() {
    use antichess_book::frontier::{load_frontier, save_frontier};
    use antichess_book::pending::{pending_proofs, retry_pending};
    use antichess_tb::{BuildOptions, Material, Tablebase};
    let dir = temp("pending");
    let tables = dir.join("tables");
    let build = BuildOptions {
        rules: Rules::INTERNATIONAL,
        dir: tables.clone(),
        threads: 1,
        strategy: Default::default(),
    };
    antichess_tb::build(&Material::all_up_to(2), &build, &|_| {}).unwrap();
    let tb = Tablebase::open(&tables, Rules::INTERNATIONAL).unwrap();
    // King and two pawns against two pawns, with the 2-unit tables: some of the searches'
    // proofs end at tablebase leaves.
    let root = Position::from_fen("8/p7/8/8/8/8/1PP4p/K7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let location = dir.join("krn.book").display().to_string();
    drop(Book::create(&location, &root, Color::White, &[]).unwrap());
    let kept = dir.join("kept");
    let opts = GrowOptions {
        proof_dir: Some(kept.clone()),
        max_searches: Some(12),
        tablebase_units: 2,
        ..options(40, 1)
    };
    grow(
        &location,
        Some(&tb),
        &opts,
        &Arc::new(AtomicBool::new(false)),
        &GrowStats::default(),
    )
    .unwrap();
    let mut book = Book::open(&location).unwrap();
    let assemble = AssembleOptions {
        hash_bytes: 16 << 20,
        leaf_nodes: Some(100_000),
        tablebase_units: 2,
        leaf_dir: Some(kept.clone()),
        ..AssembleOptions::default()
    };
    let file = dir.join("krn.frontier");
    let saved = save_frontier(&mut book, Some(&tb), &assemble, &file, &mut |_| {}).unwrap();
    assert!(saved.proofs > 0 && saved.pending == 0, "{saved:?}");

    // Loaded without tables: the proofs with tablebase leaves wait, none is rejected.
    let loc2 = dir.join("loaded.book").display().to_string();
    let loaded = load_frontier(&file, &loc2, None, &mut |_| {}).unwrap();
    eprintln!("{saved:?}\n{loaded:?}");
    assert!(loaded.pending > 0, "{loaded:?}");
    assert!(loaded.rejected.is_empty(), "{loaded:?}");
    assert_eq!(loaded.seeded + loaded.pending, saved.proofs, "{loaded:?}");
    let mut book2 = Book::open(&loc2).unwrap();
    assert_eq!(
        pending_proofs(&mut book2).unwrap().len() as u64,
        loaded.pending
    );
    let met = book2.missing_tables().unwrap();
    assert!(
        met.iter().any(|m| m.units == 2 && m.positions > 0),
        "the pending proofs' materials are counted as met: {met:?}"
    );
    // Still without tables: nothing is seeded, and a frontier save writes them back.
    let report = retry_pending(&mut book2, None).unwrap();
    assert_eq!(
        (report.seeded, report.left),
        (0, loaded.pending),
        "{report:?}"
    );
    let file2 = dir.join("again.frontier");
    let assemble2 = AssembleOptions {
        tablebase_units: 0,
        leaf_dir: Some(dir.join("kept2")),
        ..assemble.clone()
    };
    let saved2 = save_frontier(&mut book2, None, &assemble2, &file2, &mut |_| {}).unwrap();
    assert_eq!(saved2.pending, loaded.pending, "{saved2:?}");
    assert_eq!(saved2.proofs, saved.proofs, "no proof lost: {saved2:?}");
    // With the tables, every one is verified and seeded: the numbers are the old book's.
    let report = retry_pending(&mut book2, Some(&tb)).unwrap();
    assert_eq!(
        (report.seeded, report.left, report.dropped.len()),
        (loaded.pending, 0, 0),
        "{report:?}"
    );
    assert!(pending_proofs(&mut book2).unwrap().is_empty());
    let (old, new) = (book.root().unwrap(), book2.root().unwrap());
    assert_eq!((new.proof, new.disproof), (old.proof, old.disproof));
    assert!(
        book2.check().unwrap().is_empty(),
        "{:?}",
        book2.check().unwrap()
    );
    let _ = std::fs::remove_dir_all(&dir);
}
