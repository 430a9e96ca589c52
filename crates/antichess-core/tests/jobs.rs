//! The `perft` and `moves` jobs (`antichess_core::jobs`): counts, divide order and events;
//! the moves of a position and the reason a game ended.

use antichess_core::jobs::{moves_report, run_perft, PerftEvent, PerftOptions};
use antichess_core::{Game, Position, Rules};

#[test]
fn perft_job_counts_divides_and_reports_each_root_move() {
    let pos = Position::start(Rules::INTERNATIONAL);
    let (mut started, mut done) = (0, 0);
    let options = PerftOptions {
        depth: 3,
        divide: true,
        full: false,
    };
    let report = run_perft(&pos, options, &mut |e| match e {
        PerftEvent::Started { root_moves } => started = root_moves,
        PerftEvent::RootMove => done += 1,
    });
    assert_eq!(report.nodes, 8067);
    assert_eq!((started, done), (20, 20));
    let divide = report.divide.expect("divide asked for");
    assert_eq!(divide.len(), 20);
    assert_eq!(divide.iter().map(|r| r.nodes).sum::<u64>(), 8067);
    assert!(divide.windows(2).all(|w| w[0].uci < w[1].uci));
    let options = PerftOptions {
        depth: 3,
        divide: false,
        full: true,
    };
    let full = run_perft(&pos, options, &mut |_| {});
    assert_eq!(full.nodes, 8067);
    assert!(full.divide.is_none());
    let json = serde_json::to_value(&full).unwrap();
    assert!(json.get("divide").is_none());
    let options = PerftOptions {
        depth: 0,
        divide: true,
        full: false,
    };
    let leaf = run_perft(&pos, options, &mut |_| panic!("no event at depth 0"));
    assert_eq!(leaf.nodes, 1);
    assert_eq!(leaf.divide.map(|d| d.len()), Some(0));
}

#[test]
fn moves_job_lists_moves_or_says_why_the_game_ended() {
    let start = moves_report(&Game::new(Position::start(Rules::INTERNATIONAL)));
    assert_eq!(start.moves.len(), 20);
    assert!(start.outcome.is_none());
    assert!(!start.captures_compulsory);
    assert_eq!(start.turn, "white");
    // White has no pieces left: White, to move, has won.
    let pos = Position::from_fen("8/8/8/8/8/8/8/k7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let over = moves_report(&Game::new(pos));
    let outcome = over.outcome.expect("the game is over");
    assert_eq!(outcome.result, "1-0");
    assert_eq!(outcome.reason, "white has no pieces left");
    assert!(over.moves.is_empty());
    // A capture is compulsory.
    let pos = Position::from_fen("8/8/8/8/8/8/1p6/B7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let capture = moves_report(&Game::new(pos));
    assert!(capture.captures_compulsory);
    assert_eq!(capture.moves.len(), 1);
    assert_eq!(capture.moves[0].uci, "a1b2");
}
