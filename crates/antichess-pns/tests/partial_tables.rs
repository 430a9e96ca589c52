//! Tables on demand: the search uses every table present, not only complete sets of n
//! units, and records the materials it met without a table (issue 37, item 1).

use antichess_core::{Color, Position, Rules};
use antichess_pns::{SearchOptions, SearchStatus, Solver};
use antichess_tb::{build, BuildOptions, Material, Tablebase, Wdl};
use antichess_testkit::temp_dir as temp;

/// White king and rook against a black knight, White to move, no capture.
const FEN: &str = "8/8/8/3n4/8/8/8/KR6 w - - 0 1";

fn build_into(dir: &std::path::Path, materials: &[Material]) {
    build(
        materials,
        &BuildOptions {
            rules: Rules::INTERNATIONAL,
            dir: dir.to_path_buf(),
            threads: 2,
            strategy: Default::default(),
        },
        &|_| {},
    )
    .unwrap();
}

fn search(tb: &Tablebase, prover: Color) -> antichess_pns::SearchResult {
    let pos = Position::from_fen(FEN, Rules::INTERNATIONAL).unwrap();
    let solver = Solver::new(16 << 20, Some(tb));
    let mut options = SearchOptions::new(prover);
    options.tablebase_units = tb.max_units();
    options.record_missing_units = 5;
    options.max_nodes = Some(200_000);
    solver.search(&pos, &options, &mut |_| {})
}

#[test]
fn a_partial_set_is_used_and_what_is_missing_is_recorded() {
    let dir = temp("partial-tables");
    let krn: Material = "KRn".parse().unwrap();
    build_into(&dir, &Material::all_up_to(2));
    let two = Tablebase::open(&dir, Rules::INTERNATIONAL).unwrap();
    assert_eq!((two.complete_units(), two.max_units()), (2, 2));

    // Without its table the search meets KRn at the root and below, and says so.
    let before = search(&two, Color::White);
    let met = before
        .missing_tables
        .iter()
        .find(|m| m.material == "KRn")
        .unwrap_or_else(|| panic!("KRn not recorded: {:?}", before.missing_tables));
    assert_eq!(met.units, 3);
    assert!(met.positions > 0);
    assert!(before.missing_tables.iter().all(|m| m.units == 3));

    // With that one 3-unit table (the set of 3 units is not complete), the root is
    // decided by the table, as the table says, and nothing of KRn is recorded.
    build_into(&dir, &[krn]);
    let partial = Tablebase::open(&dir, Rules::INTERNATIONAL).unwrap();
    assert_eq!((partial.complete_units(), partial.max_units()), (2, 3));
    let pos = Position::from_fen(FEN, Rules::INTERNATIONAL).unwrap();
    let wdl = partial
        .probe_wdl(&pos)
        .unwrap()
        .expect("KRn covers the position");
    // The root is expanded; every child is decided by the tables.
    let at_most = 1 + pos.legal_moves().len() as u64;
    for prover in [Color::White, Color::Black] {
        let after = search(&partial, prover);
        let table_says = if prover == Color::White {
            wdl == Wdl::Win
        } else {
            wdl == Wdl::Loss
        };
        let expected = if table_says {
            SearchStatus::Proved
        } else {
            SearchStatus::Disproved
        };
        assert_eq!(after.status, expected, "prover {prover}, table {wdl:?}");
        assert!(
            after.missing_tables.iter().all(|m| m.material != "KRn"),
            "{:?}",
            after.missing_tables
        );
        assert!(
            after.nodes <= at_most,
            "decided by the tables: {} nodes",
            after.nodes
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
