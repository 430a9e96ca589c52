//! Bound tables (`tb build --bound`): built with promotions left open, each value is a
//! lower bound for the table's colour. Checked against the exact tables, position by
//! position: the bound for White never exceeds the exact value from White's side, the
//! bound for Black never falls below it, the two agree somewhere and differ somewhere (so
//! the promotions left open matter), the probes built on them never contradict the exact
//! tables, and the verifier accepts them.

use antichess_core::{Color, Position, Rules};
use antichess_tb::format::{kind_file_name, TableKind};
use antichess_tb::{
    bound_dependencies, bound_plan, build, build_bounds, verify_table_kind, BuildOptions, Material,
    Tablebase, Wdl,
};
use antichess_testkit::temp_dir;

const RULES: Rules = Rules::INTERNATIONAL;

/// Build options for `dir` (also used by `slices.rs`).
pub(crate) fn options(dir: &std::path::Path) -> BuildOptions {
    BuildOptions {
        rules: RULES,
        dir: dir.to_path_buf(),
        threads: 2,
        strategy: Default::default(),
    }
}

/// The exact tables of at most 3 units in one directory; in another only the pawnless
/// ones of at most 2 units, and the bound tables (both colours) of every 3-unit material
/// with a pawn, with what their captures need.
/// The exact tables, the bound tables, and the bound plan that was built.
type Setup = (Tablebase, Tablebase, Vec<(Material, TableKind)>);

fn setup() -> &'static Setup {
    static SETUP: std::sync::OnceLock<Setup> = std::sync::OnceLock::new();
    SETUP.get_or_init(|| make("bound"))
}

fn make(name: &str) -> Setup {
    let exact_dir = temp_dir(&format!("{name}-exact"));
    build(&Material::all_up_to(3), &options(&exact_dir), &|_| {}).unwrap();
    let bound_dir = temp_dir(&format!("{name}-bound"));
    let pawnless: Vec<Material> = Material::all_up_to(2)
        .into_iter()
        .filter(|m| m.pawns() == 0)
        .collect();
    build(&pawnless, &options(&bound_dir), &|_| {}).unwrap();
    let targets: Vec<(Material, Color)> = Material::all_up_to(3)
        .into_iter()
        .filter(|m| m.units() == 3 && m.pawns() > 0)
        .flat_map(|m| Color::ALL.map(|c| (m, c)))
        .collect();
    let before = Tablebase::open(&bound_dir, RULES).unwrap();
    let plan = bound_dependencies(&targets, &before);
    let report = build_bounds(&targets, &options(&bound_dir), &|_| {}).unwrap();
    assert_eq!(report.built.len(), plan.len());
    // The 2-unit pawn materials the captures lead to came in as bound tables.
    assert!(plan.iter().any(|(m, _)| m.units() == 2 && m.pawns() > 0));
    (
        Tablebase::open(&exact_dir, RULES).unwrap(),
        Tablebase::open(&bound_dir, RULES).unwrap(),
        plan,
    )
}

/// Checks that `m`'s bound table for `c` in `bound` is, at every position, a lower bound
/// for `c` of the exact table in `exact`; returns how many values are equal and how many
/// differ.
fn bracket(bound: &Tablebase, exact: &Tablebase, m: &Material, c: Color) -> (u64, u64) {
    let table = bound.bound_table(m, c).unwrap().expect("built");
    assert_eq!(table.header().kind, TableKind::Bound(c));
    let truth = exact.table(m).unwrap().expect("the exact set is complete");
    let (mut agree, mut differ) = (0u64, 0u64);
    for side in Color::ALL {
        for idx in 0..table.index().size() {
            let board = table.index().decode(idx);
            if !table.index().is_canonical(idx, &board) {
                continue;
            }
            let (b, e) = (table.wdl(side, idx), truth.wdl(side, idx));
            // From c's side the bound is at most the truth.
            let sound = if side == c { b <= e } else { b >= e };
            assert!(
                sound,
                "{m} bound for {c}, {side} to move, index {idx}: bound {b:?}, exact {e:?}"
            );
            if b == e {
                agree += 1;
            } else {
                differ += 1;
            }
        }
    }
    (agree, differ)
}

#[test]
fn bounds_bracket_the_exact_values_and_verify() {
    let (exact, bound, plan) = setup();
    let (mut agree, mut differ) = (0u64, 0u64);
    for &(m, kind) in plan {
        let TableKind::Bound(c) = kind else {
            panic!("a bound plan")
        };
        let (a, d) = bracket(bound, exact, &m, c);
        agree += a;
        differ += d;
        let report = verify_table_kind(bound, &m, kind).unwrap();
        assert_eq!(report.mismatches, 0, "{m} {kind}: {:?}", report.examples);
    }
    eprintln!("bound values equal to the exact ones: {agree}, different: {differ}");
    assert!(agree > 0 && differ > 0, "agree {agree}, differ {differ}");
}

#[test]
fn probes_on_bounds_never_contradict_the_exact_tables() {
    let (exact, bound, plan) = setup();
    let (mut settled, mut open) = (0u64, 0u64);
    for &(m, kind) in plan.iter().filter(|(m, _)| m.units() == 3) {
        if kind != TableKind::Bound(Color::White) {
            continue;
        }
        let table = bound.bound_table(&m, Color::White).unwrap().unwrap();
        let index = table.index();
        for side in Color::ALL {
            for idx in (0..index.size()).step_by(7) {
                let board = index.decode(idx);
                if !index.is_canonical(idx, &board) {
                    continue;
                }
                let pos = Position::from_board_unchecked(board, side, RULES);
                let truth = exact.probe_wdl(&pos).unwrap().expect("exact set");
                let (lo, hi) = bound.probe_wdl_bounds(&pos).unwrap().expect("covered");
                assert!(
                    lo <= truth && truth <= hi,
                    "{}: {lo:?}..{hi:?}, exact {truth:?}",
                    pos.fen()
                );
                match bound.probe_wdl(&pos).unwrap() {
                    Some(v) => {
                        assert_eq!(v, truth, "{}", pos.fen());
                        settled += 1;
                    }
                    None => open += 1,
                }
                for prover in Color::ALL {
                    let wins = if pos.turn() == prover {
                        truth == Wdl::Win
                    } else {
                        truth == Wdl::Loss
                    };
                    if let Some(w) = bound.probe_wins(&pos, prover).unwrap() {
                        assert_eq!(w, wins, "{} prover {prover}", pos.fen());
                    }
                }
            }
        }
    }
    eprintln!("positions settled by the bound for White: {settled}, left open: {open}");
    assert!(settled > 0 && open > 0, "settled {settled}, open {open}");
}

/// `tb build --bound --dry-run`'s plan: the tables of [`bound_dependencies`], present
/// once built (whether their files are checked or only seen), missing in a fresh directory.
#[test]
fn the_bound_plan_lists_the_dependencies_and_what_is_present() {
    let (_, bound, plan) = setup();
    let targets: Vec<(Material, Color)> = plan
        .iter()
        .filter_map(|(m, kind)| match kind {
            TableKind::Bound(c) if m.units() == 3 => Some((*m, *c)),
            _ => None,
        })
        .collect();
    let dir = bound.dir().unwrap();
    for check_files in [true, false] {
        let entries = bound_plan(&targets, &options(dir), check_files).unwrap();
        let kinds: Vec<(Material, TableKind)> =
            entries.iter().map(|e| (e.material, e.kind)).collect();
        assert_eq!(kinds, bound_dependencies(&targets, bound));
        assert!(entries.iter().all(|e| e.present), "{entries:?}");
    }
    let fresh = temp_dir("bound-plan-fresh");
    let entries = bound_plan(&targets, &options(&fresh), true).unwrap();
    assert!(!entries.is_empty() && entries.iter().all(|e| !e.present));
    assert!(entries
        .iter()
        .all(|e| e.positions == antichess_tb::positions(&e.material)));
}

#[test]
fn a_bound_file_under_an_exact_name_is_refused() {
    let dir = temp_dir("bound-renamed");
    let pawnless: Vec<Material> = Material::all_up_to(2)
        .into_iter()
        .filter(|m| m.pawns() == 0)
        .collect();
    build(&pawnless, &options(&dir), &|_| {}).unwrap();
    let kp: Material = "Kp".parse().unwrap();
    build_bounds(&[(kp, Color::White)], &options(&dir), &|_| {}).unwrap();
    let from = dir.join(kind_file_name(&kp, TableKind::Bound(Color::White)));
    std::fs::rename(&from, dir.join(kind_file_name(&kp, TableKind::Exact))).unwrap();
    let tb = Tablebase::open(&dir, RULES).unwrap();
    let err = tb.table(&kp).unwrap_err().to_string();
    assert!(
        err.contains("bound for white") && err.contains("exact"),
        "{err}"
    );
}

/// At 4 units, against a complete exact set given by `ANTICHESS_EXACT_TABLES` (a directory
/// holding every table of at most 4 units; skipped without it): the bound tables of a
/// sample of 4-unit pawn materials, built beside the exact tables of at most 3 units only,
/// bracket the exact values everywhere.
#[test]
fn four_unit_bounds_bracket_a_complete_exact_set() {
    let Some(exact_dir) = std::env::var_os("ANTICHESS_EXACT_TABLES") else {
        eprintln!("skipped: ANTICHESS_EXACT_TABLES names no directory of 4-unit tables");
        return;
    };
    let exact = Tablebase::open(std::path::Path::new(&exact_dir), RULES).unwrap();
    assert!(
        exact.complete_units() >= 4,
        "{exact_dir:?} lacks 4-unit tables"
    );
    let dir = temp_dir("bound-four");
    build(&Material::all_up_to(3), &options(&dir), &|_| {}).unwrap();
    let sample: Vec<Material> = Material::all_up_to(4)
        .into_iter()
        .filter(|m| m.units() == 4 && m.pawns() > 0)
        .step_by(9)
        .collect();
    let targets: Vec<(Material, Color)> = sample
        .iter()
        .flat_map(|m| Color::ALL.map(|c| (*m, c)))
        .collect();
    build_bounds(&targets, &options(&dir), &|_| {}).unwrap();
    let bound = Tablebase::open(&dir, RULES).unwrap();
    let (mut agree, mut differ) = (0u64, 0u64);
    for &(m, c) in &targets {
        let (a, d) = bracket(&bound, &exact, &m, c);
        agree += a;
        differ += d;
    }
    eprintln!(
        "{} materials, both bounds: {agree} values equal to the exact ones, {differ} different",
        sample.len()
    );
    assert!(agree > 0 && differ > 0);
}
