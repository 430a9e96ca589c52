//! The position the 2016 tables scored wrongly: white pawns f5 and g2 against black pawns
//! f4 and h4, White to move. They called it a win for White; after 1. g4 Black may take en
//! passant with either pawn, and the position is a draw (lichess's tables agree). Here the
//! solver, with the 3-unit tables at its leaves, must find that neither side can force a
//! win, and the move generator must offer both captures en passant.

use antichess_core::{Color, Position, Rules};
use antichess_pns::{SearchOptions, SearchStatus, Solver};
use antichess_tb::{build, BuildOptions, Material, Tablebase};
use antichess_testkit::temp_dir as temp;

const FEN: &str = "8/8/8/5P2/5p1p/8/6P1/8 w - - 0 1";

#[test]
fn both_captures_en_passant_after_g4() {
    let pos = Position::from_fen(FEN, Rules::INTERNATIONAL).unwrap();
    let g4 = pos
        .legal_moves()
        .iter()
        .copied()
        .find(|m| m.to_uci() == "g2g4")
        .expect("g2g4 is legal");
    let after = pos.play(g4);
    let mut replies: Vec<String> = after.legal_moves().iter().map(|m| m.to_uci()).collect();
    replies.sort();
    assert_eq!(replies, ["f4g3", "h4g3"], "after 1. g4: {}", after.fen());
}

#[test]
fn it_is_a_draw() {
    let dir = temp("double-ep");
    build(
        &Material::all_up_to(3),
        &BuildOptions {
            rules: Rules::INTERNATIONAL,
            dir: dir.clone(),
            threads: 2,
            strategy: Default::default(),
        },
        &|_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&dir, Rules::INTERNATIONAL).unwrap();
    let pos = Position::from_fen(FEN, Rules::INTERNATIONAL).unwrap();
    for prover in [Color::White, Color::Black] {
        let solver = Solver::new(16 << 20, Some(&tb));
        let mut options = SearchOptions::new(prover);
        options.tablebase_units = 3;
        let result = solver.search(&pos, &options, &mut |_| {});
        assert_eq!(
            result.status,
            SearchStatus::Disproved,
            "{prover} must not be able to force a win from {FEN}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
