//! Differential test against shakmaty's `Antichess` (an independent implementation of the
//! international rules): legal move sets, move counts, game results, FEN after every move,
//! and SAN of every legal move, over random playouts and random sparse positions.

use antichess_testkit::{random, scaled};

use antichess_core::{Outcome, Position, Rules};
use shakmaty::fen::Fen;
use shakmaty::san::San;
use shakmaty::variant::Antichess;
use shakmaty::{CastlingMode, EnPassantMode, KnownOutcome, Position as _};

fn shakmaty_position(fen: &str) -> Antichess {
    Fen::from_ascii(fen.as_bytes())
        .unwrap_or_else(|e| panic!("shakmaty cannot parse our FEN {fen}: {e}"))
        .into_position(CastlingMode::Standard)
        .unwrap_or_else(|e| panic!("shakmaty rejects our position {fen}: {e}"))
}

fn their_outcome(pos: &Antichess) -> Option<Outcome> {
    pos.outcome().known().map(|o| match o {
        KnownOutcome::Decisive { winner } => Outcome::Win(match winner {
            shakmaty::Color::White => antichess_core::Color::White,
            shakmaty::Color::Black => antichess_core::Color::Black,
        }),
        KnownOutcome::Draw => Outcome::Draw,
    })
}

#[derive(Default, Debug)]
struct Coverage {
    positions: usize,
    en_passant: usize,
    two_en_passant: usize,
    promotions: usize,
    king_promotions: usize,
    at_most_four_units: usize,
    no_pieces_left: usize,
    stalemates: usize,
    dead_draws: usize,
}

/// Compares one position in every respect; returns the shakmaty position for chaining.
fn compare(pos: &Position, cov: &mut Coverage) {
    let fen = pos.fen();
    let theirs = shakmaty_position(&fen);

    let mut ours: Vec<String> = pos.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut their_moves: Vec<String> = theirs
        .legal_moves()
        .iter()
        .map(|m| m.to_uci(CastlingMode::Standard).to_string())
        .collect();
    ours.sort();
    their_moves.sort();
    assert_eq!(ours, their_moves, "legal moves differ in {fen}");
    assert_eq!(
        pos.count_moves() as usize,
        ours.len(),
        "count_moves differs in {fen}"
    );
    assert_eq!(
        pos.has_capture(),
        pos.legal_moves().iter().any(|m| pos.is_capture(*m)),
        "{fen}"
    );
    assert_eq!(
        pos.outcome(),
        their_outcome(&theirs),
        "outcome differs in {fen}"
    );
    assert_eq!(
        pos.key(),
        pos.compute_key(),
        "incremental key differs in {fen}"
    );

    for m in theirs.legal_moves() {
        let uci = m.to_uci(CastlingMode::Standard).to_string();
        let ours = pos.parse_uci(&uci).unwrap();
        let their_san = San::from_move(&theirs, m).to_string();
        assert_eq!(pos.san(ours), their_san, "SAN of {uci} differs in {fen}");
        assert_eq!(
            pos.parse_san(&their_san).unwrap(),
            ours,
            "SAN {their_san} in {fen}"
        );
        let mut after_theirs = theirs.clone();
        after_theirs.play_unchecked(m);
        let their_fen = Fen::from_position(&after_theirs, EnPassantMode::Legal).to_string();
        assert_eq!(
            pos.play(ours).fen(),
            their_fen,
            "position after {uci} differs from {fen}"
        );
    }

    cov.positions += 1;
    let moves = pos.legal_moves();
    let ep = moves.iter().filter(|m| m.is_en_passant()).count();
    cov.en_passant += usize::from(ep > 0);
    cov.two_en_passant += usize::from(ep > 1);
    cov.promotions += usize::from(moves.iter().any(|m| m.is_promotion()));
    cov.king_promotions += usize::from(
        moves
            .iter()
            .any(|m| m.promotion() == Some(antichess_core::Role::King)),
    );
    cov.at_most_four_units += usize::from(pos.board().occupied().count() <= 4);
    if moves.is_empty() {
        if pos.us().is_empty() {
            cov.no_pieces_left += 1;
        } else {
            cov.stalemates += 1;
        }
    }
    cov.dead_draws += usize::from(pos.is_dead_draw());
}

#[test]
fn playouts_agree_with_shakmaty() {
    let mut cov = Coverage::default();
    for pos in random::playout_positions(1, scaled(120_000), Rules::INTERNATIONAL) {
        compare(&pos, &mut cov);
    }
    println!("{cov:?}");
    assert!(cov.positions >= 100_000);
    assert!(
        cov.en_passant >= 100,
        "too few en passant positions: {cov:?}"
    );
    assert!(cov.promotions >= 500, "too few promotions: {cov:?}");
    assert!(
        cov.at_most_four_units >= 1_000,
        "too few near-empty boards: {cov:?}"
    );
    assert!(cov.no_pieces_left >= 100, "too few finished games: {cov:?}");
    assert!(cov.stalemates >= 100, "too few stalemates: {cov:?}");
}

#[test]
fn sparse_positions_agree_with_shakmaty() {
    let mut cov = Coverage::default();
    for pos in random::sparse_positions(2, scaled(60_000), Rules::INTERNATIONAL) {
        compare(&pos, &mut cov);
    }
    println!("{cov:?}");
    assert!(
        cov.two_en_passant >= 1_000,
        "too few double en passant positions: {cov:?}"
    );
    assert!(cov.stalemates >= 20, "too few stalemates: {cov:?}");
    assert!(cov.dead_draws >= 20, "too few dead draws: {cov:?}");
    assert!(
        cov.king_promotions >= 1_000,
        "too few king promotions: {cov:?}"
    );
}
