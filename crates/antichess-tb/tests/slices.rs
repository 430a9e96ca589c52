//! The slice generator (`antichess_tb::slices`) against the whole-index generator: every
//! position's WDL equal, exact tables and bound tables for White. The quick test covers
//! every 3-unit material with a pawn (exact) and PPpp and KPkp (bound for White, their
//! promotions left open); the ignored one, KPkp, PPkp and KRkp exact (with the 4-unit
//! tables they need) and KPPkp and RPPpp bound for White (with the bound tables their
//! captures need).

use antichess_core::{Color, Rules};
use antichess_tb::slices::{generate_slices, SliceOptions};
use antichess_tb::{build, build_bounds, Material, TableKind, Tablebase};
use antichess_testkit::temp_dir;

const RULES: Rules = Rules::INTERNATIONAL;

use super::bound::options;

/// Generates `m` by slices from the tables in `tb` and compares every position with the
/// whole-index table of `kind` in `tb`.
fn check(tb: &Tablebase, m: &Material, kind: TableKind) -> u64 {
    let (table, report) = generate_slices(
        m,
        RULES,
        tb,
        kind,
        SliceOptions {
            threads: 2,
            levels: None,
        },
        &|_| {},
    )
    .unwrap();
    let (compared, wrong, first) = table.compare(tb, 5).unwrap();
    assert_eq!(
        wrong,
        0,
        "{} ({kind:?}): {wrong} of {compared} positions differ, e.g. {first:?}",
        m.name()
    );
    assert_eq!(compared, report.positions, "{}", m.name());
    compared
}

#[test]
fn slices_equal_the_whole_index_tables() {
    let dir = temp_dir("slices-quick");
    build(&Material::all_up_to(3), &options(&dir), &|_| {}).unwrap();
    let targets: Vec<(Material, Color)> = ["PPpp", "KPkp"]
        .iter()
        .map(|s| (s.parse().unwrap(), Color::White))
        .collect();
    build_bounds(&targets, &options(&dir), &|_| {}).unwrap();
    let tb = Tablebase::open(&dir, RULES).unwrap();
    let mut compared = 0;
    for m in Material::all_up_to(3) {
        if m.units() == 3 && m.has_pawns() {
            compared += check(&tb, &m, TableKind::Exact);
        }
    }
    for (m, c) in &targets {
        compared += check(&tb, m, TableKind::Bound(*c));
    }
    assert!(compared > 1_000_000, "{compared}");
}

#[test]
#[ignore = "minutes: builds the 4-unit tables KPkp, PPkp and KRkp need"]
fn slices_equal_the_whole_index_tables_4_and_5_units() {
    let dir = temp_dir("slices-large");
    let exact: Vec<Material> = ["KPkp", "PPkp", "KRkp"]
        .iter()
        .map(|s| s.parse().unwrap())
        .collect();
    build(&exact, &options(&dir), &|_| {}).unwrap();
    // The tables the bound tables' captures lead to and that have no exact table here
    // come as bound tables for White (promotions open).
    let bounds: Vec<(Material, Color)> = ["KPPkp", "RPPpp"]
        .iter()
        .map(|s| (s.parse().unwrap(), Color::White))
        .collect();
    build_bounds(&bounds, &options(&dir), &|_| {}).unwrap();
    let tb = Tablebase::open(&dir, RULES).unwrap();
    for m in &exact {
        check(&tb, m, TableKind::Exact);
    }
    for (m, c) in &bounds {
        check(&tb, m, TableKind::Bound(*c));
    }
}
