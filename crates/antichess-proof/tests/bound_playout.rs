//! Playing a position out from a bound table (`TablebaseOracle::best_move` where only a
//! bound table covers the material: `Tablebase::probe_bound_best_move`). Sampled positions
//! of 3-unit pawn materials that the bound table for White shows won for White are played
//! out down to 2 units, and every proof verifies with the exact 2-unit tables alone (the
//! bound tables play no part in the check); the exact 3-unit tables confirm each win. A
//! position with an en-passant capture to make, which has no table of its own, is played
//! out through its capture.

use antichess_core::{Bitboard, Color, Piece, Position, Role, Rules, Square};
use antichess_proof::{
    encode_compact, playout_proof, verify_compact, TablebaseOracle, VerifyOptions,
};
use antichess_tb::{build, build_bounds, BuildOptions, Material, Strategy, Tablebase, Wdl};

const RULES: Rules = Rules::INTERNATIONAL;

fn built(name: &str, up_to: u32) -> (std::path::PathBuf, BuildOptions) {
    let dir = std::env::temp_dir()
        .join(format!(
            "antichess-proof-bound-playout-{}",
            std::process::id()
        ))
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    let options = BuildOptions {
        rules: RULES,
        dir: dir.clone(),
        threads: 2,
        strategy: Strategy::Auto,
    };
    build(&Material::all_up_to(up_to), &options, &|_| {}).unwrap();
    (dir, options)
}

#[test]
fn positions_won_by_a_bound_table_play_out_to_smaller_tables() {
    // The exact tables of at most 2 units (the verifier's), of at most 3 (the truth), and
    // the 2-unit set with bound tables for White of three 3-unit pawn materials.
    let (small_dir, _) = built("small", 2);
    let (exact_dir, _) = built("exact", 3);
    let (bound_dir, options) = built("bound", 2);
    let materials: Vec<Material> = ["KPk", "NPp", "RPk"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    let targets: Vec<(Material, Color)> = materials.iter().map(|&m| (m, Color::White)).collect();
    build_bounds(&targets, &options, &|_| {}).unwrap();
    let small = Tablebase::open(&small_dir, RULES).unwrap();
    let exact = Tablebase::open(&exact_dir, RULES).unwrap();
    let bound = Tablebase::open(&bound_dir, RULES).unwrap();
    let guide = TablebaseOracle::new(&bound);
    let checker = TablebaseOracle::new(&small);

    let (mut played, mut longest, mut nodes) = (0u64, 0u32, 0u64);
    for m in &materials {
        assert!(!bound.contains(m), "{m}: only a bound table");
        let table = bound.bound_table(m, Color::White).unwrap().unwrap();
        let index = table.index();
        let mut of_material = 0;
        for idx in (0..index.size()).step_by(11) {
            let board = index.decode(idx);
            if !index.is_canonical(idx, &board) {
                continue;
            }
            for side in Color::ALL {
                let pos = Position::from_board_unchecked(board, side, RULES);
                if bound.probe_wins(&pos, Color::White).unwrap() != Some(true) {
                    continue;
                }
                // The truth agrees (a bound table's wins are true wins).
                let truth = exact.probe_wdl(&pos).unwrap().unwrap();
                let white_wins = if side == Color::White {
                    truth == Wdl::Win
                } else {
                    truth == Wdl::Loss
                };
                assert!(white_wins, "{}: {truth:?} for the side to move", pos.fen());
                let tree = playout_proof(&pos, Color::White, &guide, 2)
                    .unwrap_or_else(|e| panic!("{}: {e}", pos.fen()));
                assert!(tree.tablebase_units().unwrap() <= 2, "{}", pos.fen());
                let bytes = encode_compact(&tree).unwrap();
                let stats = verify_compact(
                    &bytes[..],
                    Some(bytes.len() as u64),
                    &checker,
                    &VerifyOptions::default(),
                    &mut |_| {},
                )
                .unwrap_or_else(|e| panic!("{}: the playout does not verify: {e}", pos.fen()));
                longest = longest.max(stats.max_depth);
                nodes += tree.len() as u64;
                played += 1;
                of_material += 1;
            }
        }
        assert!(
            of_material > 0,
            "{m}: no sampled position won by its bound table"
        );
    }
    // A position with an en-passant capture to make (4 units: the capture leads into the
    // 3-unit bound table of RPk) needs no table of its own: the playout takes a capture
    // the tables show won and goes on from there.
    let mut with_ep = 0;
    let base = Position::from_fen("8/8/8/3pP3/8/8/8/8 w - d6 0 1", RULES).unwrap();
    // The pawns, the en-passant square and the square the pawn came from stay free.
    let taken = ["d5", "e5", "d6", "d7"]
        .iter()
        .fold(Bitboard::EMPTY, |b, s| {
            b | Bitboard::from_square(Square::from_name(s).unwrap())
        });
    for (rook, king) in Square::all().flat_map(|r| Square::all().map(move |k| (r, k))) {
        if rook == king
            || (taken & (Bitboard::from_square(rook) | Bitboard::from_square(king))).any()
        {
            continue;
        }
        let mut board = *base.board();
        board.put_unchecked(
            rook,
            Piece {
                color: Color::White,
                role: Role::Rook,
            },
        );
        board.put_unchecked(
            king,
            Piece {
                color: Color::Black,
                role: Role::King,
            },
        );
        let placement = Position::from_board_unchecked(board, Color::White, RULES).fen();
        let fen = format!("{} w - d6 0 1", placement.split(' ').next().unwrap());
        let pos = Position::from_fen(&fen, RULES).unwrap();
        if pos.ep_square().is_none()
            || pos.legal_moves().len() != 1
            || bound.probe_wins(&pos, Color::White).unwrap() != Some(true)
        {
            continue;
        }
        let tree =
            playout_proof(&pos, Color::White, &guide, 2).unwrap_or_else(|e| panic!("{fen}: {e}"));
        assert!(tree.tablebase_units().unwrap() <= 2, "{fen}");
        let bytes = encode_compact(&tree).unwrap();
        verify_compact(
            &bytes[..],
            Some(bytes.len() as u64),
            &checker,
            &VerifyOptions::default(),
            &mut |_| {},
        )
        .unwrap_or_else(|e| panic!("{fen}: the playout does not verify: {e}"));
        with_ep += 1;
    }
    eprintln!("{with_ep} positions with an en-passant capture to make played out");
    assert!(with_ep > 0);
    eprintln!("{played} positions played out from bound tables, {nodes} nodes in all");
    // Some playouts are real games, not one capture into a 2-unit table.
    eprintln!("deepest playout: {longest} plies");
    assert!(longest >= 6, "deepest playout: {longest} plies");
    for dir in [small_dir, exact_dir, bound_dir] {
        let _ = std::fs::remove_dir_all(dir);
    }
}
