//! The book's walk converges where the bare solver does: a book on a line that `solve`
//! proves in about a second, grown with small searches and every default, solves within a
//! bounded number of searches. (The ratio-weighted walk, once the default, stalled on such
//! lines; see docs/research/book-walk.md.)

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use antichess_book::{grow, Book, GrowEnd, GrowOptions, GrowStats, Status};
use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_testkit::temp_dir as temp;

#[test]
fn a_line_solve_proves_quickly_solves_in_few_searches() {
    let dir = temp("walk");
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), "e3 Na6").unwrap();
    let location = dir.join("na6.book").display().to_string();
    drop(Book::create(&location, game.position(), Color::White, game.moves()).unwrap());
    // `solve --moves "e3 Na6"` proves it with 1.3 million nodes; searches of 10,000 make the book
    // do the work. The most-proving walk solves it in about 400 searches; the bound leaves
    // room for a different search, not for a walk that stalls (the weighted walk needs
    // about 1,600).
    let opts = GrowOptions {
        search_nodes: 10_000,
        hash_bytes: 16 << 20,
        max_searches: Some(800),
        ..GrowOptions::default()
    };
    let stats = GrowStats::default();
    let end = grow(
        &location,
        None,
        &opts,
        &Arc::new(AtomicBool::new(false)),
        &stats,
    )
    .unwrap();
    let mut book = Book::open(&location).unwrap();
    let root = book.root().unwrap();
    assert_eq!(
        (end, root.status),
        (GrowEnd::Solved, Status::Win),
        "not solved in 800 searches of 10,000 nodes: {stats:?}, root proof {} disproof {}",
        root.proof,
        root.disproof
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With hints (the record's moves), the walk takes the hinted move at the prover's nodes
/// instead of choosing by the numbers: every search after the root's own is below it.
#[test]
fn the_walk_follows_the_hinted_move() {
    let dir = temp("hints");
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), "e3 e6").unwrap();
    let location = dir.join("e6.book").display().to_string();
    drop(Book::create(&location, game.position(), Color::White, game.moves()).unwrap());
    // The record's move against 1... e6, one of twenty moves alike by the numbers.
    let hints = antichess_book::Hints::parse(
        "e2e3 e7e6 b2b4\n",
        Rules::INTERNATIONAL,
        Color::White,
        "test",
    )
    .unwrap();
    let opts = GrowOptions {
        search_nodes: 2_000,
        hash_bytes: 16 << 20,
        max_searches: Some(20),
        hints: Some(Arc::new(hints.clone())),
        ..GrowOptions::default()
    };
    let stats = GrowStats::default();
    grow(
        &location,
        None,
        &opts,
        &Arc::new(AtomicBool::new(false)),
        &stats,
    )
    .unwrap();
    let mut book = Book::open(&location).unwrap();
    let root = book.root().unwrap();
    let children = book.children(root.id).unwrap();
    let b4 = children
        .iter()
        .find(|c| c.uci.as_deref() == Some("b2b4"))
        .unwrap();
    assert!(b4.expanded || b4.status.is_decided(), "{b4:?}");
    let elsewhere: Vec<_> = children
        .iter()
        .filter(|c| c.id != b4.id && (c.expanded || c.searches > 0))
        .map(|c| c.uci.clone())
        .collect();
    assert!(
        elsewhere.is_empty() || b4.status.is_decided(),
        "searched beside the hinted move: {elsewhere:?}"
    );
    // The hinted tree's proof number is b4's (the root's is the least over its moves).
    let hinted = {
        let mut view = book.view().unwrap();
        antichess_book::hints::hinted_proof(&mut view, root.id, &hints).unwrap()
    };
    assert_eq!(hinted, b4.proof);
    assert!(hinted >= root.proof);
    // Without hints the same budget spreads over other moves too.
    let location2 = dir.join("e6-free.book").display().to_string();
    drop(Book::create(&location2, game.position(), Color::White, game.moves()).unwrap());
    let opts = GrowOptions {
        hints: None,
        ..opts
    };
    grow(
        &location2,
        None,
        &opts,
        &Arc::new(AtomicBool::new(false)),
        &GrowStats::default(),
    )
    .unwrap();
    let mut book = Book::open(&location2).unwrap();
    let root = book.root().unwrap();
    let searched = book
        .children(root.id)
        .unwrap()
        .iter()
        .filter(|c| c.uci.as_deref() != Some("b2b4") && (c.expanded || c.searches > 0))
        .count();
    assert!(searched > 0, "the control walk never left b4");
    let _ = std::fs::remove_dir_all(&dir);
}
