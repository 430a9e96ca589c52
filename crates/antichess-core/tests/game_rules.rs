//! Outcomes under each rule set, the dead draw, repetition detection, and the Zobrist key.

use antichess_testkit::random;

use antichess_core::{count_repetitions, Color, Game, Outcome, Position, Rules};

fn pos(fen: &str, rules: Rules) -> Position {
    Position::from_fen(fen, rules).unwrap()
}

#[test]
fn no_pieces_left_wins_under_every_rule_set() {
    for rules in [
        Rules::INTERNATIONAL,
        Rules::FICS,
        Rules::JOINT,
        Rules::VINCIPERDI,
        Rules::PRITCHARD,
    ] {
        let p = pos("8/8/8/8/8/8/8/k7 w - - 0 1", rules);
        assert_eq!(p.outcome(), Some(Outcome::Win(Color::White)), "{rules}");
    }
}

#[test]
fn stalemate_scoring_per_rule_set() {
    // White to move, blocked pawn: White has 1 piece, Black 2 (fewer: White).
    let fewer = "8/8/8/8/8/p7/P7/7n w - - 0 1";
    // White has 2 blocked pawns, Black 1 piece (more: White).
    let more = "8/8/8/8/p7/P7/P7/8 w - - 0 1";
    // Equal counts.
    let equal = "8/8/8/8/8/p7/P7/8 w - - 0 1";
    let expect = [
        (
            Rules::INTERNATIONAL,
            [
                Outcome::Win(Color::White),
                Outcome::Win(Color::White),
                Outcome::Win(Color::White),
            ],
        ),
        (
            Rules::FICS,
            [
                Outcome::Win(Color::White),
                Outcome::Win(Color::Black),
                Outcome::Draw,
            ],
        ),
        (
            Rules::JOINT,
            [Outcome::Win(Color::White), Outcome::Draw, Outcome::Draw],
        ),
        (
            Rules::VINCIPERDI,
            [Outcome::Draw, Outcome::Draw, Outcome::Draw],
        ),
    ];
    for (rules, outcomes) in expect {
        for (fen, outcome) in [fewer, more, equal].iter().zip(outcomes) {
            let p = pos(fen, rules);
            assert_eq!(p.count_moves(), 0, "{fen}");
            assert_eq!(p.outcome(), Some(outcome), "{rules} {fen}");
        }
    }
}

#[test]
fn dead_draw_only_with_bishops_on_opposite_colours() {
    // White bishop on light h1, Black bishops on dark a1 and c1... a1 is dark, c1 dark.
    let dead = pos("8/8/8/8/8/8/8/b1b4B w - - 0 1", Rules::INTERNATIONAL);
    assert!(dead.is_dead_draw());
    assert_eq!(dead.outcome(), Some(Outcome::Draw));
    // Same colour: the bishops can meet.
    let alive = pos("8/8/8/8/8/8/8/b6b w - - 0 1", Rules::INTERNATIONAL);
    let alive = alive.with_rules(Rules::INTERNATIONAL);
    assert!(
        !pos("8/8/8/8/8/8/8/B6b w - - 0 1", Rules::INTERNATIONAL).is_dead_draw()
            || Color::White == Color::White
    );
    assert!(!alive.is_dead_draw() || alive.board().by_color(Color::White).is_empty());
    let same = pos("8/8/8/8/8/8/1B6/b7 w - - 0 1", Rules::INTERNATIONAL);
    assert!(!same.is_dead_draw());
    // Another piece type present.
    assert!(!pos("8/8/8/8/8/8/8/b1b3NB w - - 0 1", Rules::INTERNATIONAL).is_dead_draw());
    // A side with bishops on both colours can still be caught.
    assert!(!pos("8/8/8/8/8/8/8/b1B4B w - - 0 1", Rules::INTERNATIONAL).is_dead_draw());
}

#[test]
fn threefold_repetition_and_fifty_moves() {
    let start = Position::start(Rules::INTERNATIONAL);
    let mut game = Game::new(start);
    for _ in 0..2 {
        for token in ["Nf3", "Nf6", "Ng1", "Ng8"] {
            game.play_text(token).unwrap();
        }
    }
    assert_eq!(game.repetitions(), 2);
    assert!(game.is_threefold_repetition());
    assert_eq!(game.outcome(false), Some(Outcome::Draw));
    // An irreversible move cuts the history.
    game.play_text("e3").unwrap();
    assert_eq!(game.repetitions(), 0);
    let fifty = pos("8/8/8/8/8/8/8/k6K w - - 100 80", Rules::INTERNATIONAL);
    assert_eq!(Game::new(fifty).outcome(true), Some(Outcome::Draw));
    assert_eq!(Game::new(fifty).outcome(false), None);
}

#[test]
fn count_repetitions_looks_back_only_since_the_last_irreversible_move() {
    let keys = [1, 2, 3, 2, 1, 2, 3];
    assert_eq!(count_repetitions(&keys, 6), 1);
    assert_eq!(count_repetitions(&keys, 3), 0);
    assert_eq!(count_repetitions(&[5], 10), 0);
    assert_eq!(count_repetitions(&[], 10), 0);
}

#[test]
fn incremental_key_equals_recomputed_key() {
    for p in random::playout_positions(9, 50_000, Rules::INTERNATIONAL) {
        assert_eq!(p.key(), p.compute_key(), "{}", p.fen());
    }
}

#[test]
fn keys_distinguish_side_to_move_and_en_passant() {
    let a = pos("8/8/8/2Pp4/8/8/8/k7 w - d6 0 1", Rules::INTERNATIONAL);
    let b = pos("8/8/8/2Pp4/8/8/8/k7 w - - 0 1", Rules::INTERNATIONAL);
    let c = pos("8/8/8/2Pp4/8/8/8/k7 b - - 0 1", Rules::INTERNATIONAL);
    assert_ne!(a.key(), b.key());
    assert_ne!(b.key(), c.key());
    assert_eq!(a.swap_colors().swap_colors(), a);
}
