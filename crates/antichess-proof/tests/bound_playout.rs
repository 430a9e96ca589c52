//! Playing a position out from a bound table (`TablebaseOracle::best_move` where only a
//! bound table covers the material: `Tablebase::probe_bound_best_move`). Sampled positions
//! of 3-unit pawn materials that the bound table for White shows won for White are played
//! out down to 2 units, and every proof verifies with the exact 2-unit tables alone (the
//! bound tables play no part in the check); the exact 3-unit tables confirm each win.

use antichess_core::{Color, Position, Rules};
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
    eprintln!("{played} positions played out from bound tables, {nodes} nodes in all");
    // Some playouts are real games, not one capture into a 2-unit table.
    eprintln!("deepest playout: {longest} plies");
    assert!(longest >= 6, "deepest playout: {longest} plies");
    for dir in [small_dir, exact_dir, bound_dir] {
        let _ = std::fs::remove_dir_all(dir);
    }
}
