//! Tables of the royal-king rule sets (`pritchard3`, `pritchard4`) against code that does
//! not share the royal generator's logic:
//!
//! - `verify_table` re-derives every stored value and DTC of every position from its
//!   successors, generated *forwards* by the core's royal move generator (checks, compulsory
//!   captures, bare king, mate scored per variant), and checks that exactly the boards
//!   whose side not to move is in check are stored as "not a position" (code 3). Local
//!   consistency everywhere implies the table is right (see `verify.rs`).
//! - A brute-force solver (the pattern of `brute_force.rs`: no index, no symmetry, no
//!   table files inside the explored region) explores the game graph from a root forwards
//!   with `Position`'s royal rules and solves it (WDL by fixpoint, DTC level by level);
//!   every explored position is compared with the table, DTC included. Nodes of other
//!   materials (after a promotion) are valued by their tables; a capture leaves a bare
//!   king, which the rules decide. Where the reachable graph is the whole material
//!   (pawnless tables, about 30 million boards) the exploration stops after a node budget
//!   and the nodes beyond it are valued by the table as boundary: the region inside is
//!   then solved by minimax over several plies against those values.
//! - Hand-checked positions in which the two variants disagree because of a mate.
//!
//! In CI: one table per variant (`KRkn`, about 20 s each to build in the test profile on
//! the loaded shared machine; `verify_table` on one of them). `every_royal_table_up_to_four_units` (ignored; run it with `--ignored`)
//! builds and checks all 15 tables of each variant, and explores the whole reachable graph
//! (closed, so with no table inside it) from `KPkp` roots.

use std::collections::HashMap;
use std::path::Path;

use antichess_core::{Board, Color, Position, Rules, Square};
use antichess_tb::royal::is_position;
use antichess_tb::{build, verify_table, BuildOptions, Material, Strategy, Tablebase, Value, Wdl};
use antichess_testkit::{random::random_placement, temp_dir};

struct Graph {
    positions: Vec<Position>,
    /// Children (node id, move converts) per node.
    children: Vec<Vec<(usize, bool)>>,
    /// Value of a boundary node (not expanded), from its table or the bare-king rule.
    boundary: Vec<Option<Value>>,
}

/// Explores from `root`, expanding positions of the root's material until `budget` nodes
/// are known; other nodes are boundary nodes valued by `tb`.
fn explore(root: Position, tb: &Tablebase, budget: usize) -> Graph {
    let material = Material::from_board(root.board());
    let key = |p: &Position| (*p.board(), p.turn(), p.ep_square());
    let mut ids: HashMap<(Board, Color, Option<Square>), usize> = HashMap::new();
    let mut graph = Graph {
        positions: vec![root],
        children: vec![Vec::new()],
        boundary: vec![None],
    };
    ids.insert(key(&root), 0);
    let mut next = 0;
    while next < graph.positions.len() {
        let pos = graph.positions[next];
        let expand = Material::from_board(pos.board()) == material
            && (next < budget || pos.legal_moves().is_empty());
        if !expand {
            graph.boundary[next] = Some(tb.probe(&pos).unwrap().expect("boundary value"));
            next += 1;
            continue;
        }
        let mut kids = Vec::new();
        for m in pos.legal_moves() {
            let child = pos.play(m).with_clocks(0, 1);
            let conversion = pos.is_capture(m) || m.is_promotion();
            let id = *ids.entry(key(&child)).or_insert_with(|| {
                graph.positions.push(child);
                graph.children.push(Vec::new());
                graph.boundary.push(None);
                graph.positions.len() - 1
            });
            kids.push((id, conversion));
        }
        graph.children[next] = kids;
        next += 1;
    }
    graph
}

/// WDL and DTC of every node: WDL by forward fixpoint, DTC level by level.
fn solve(graph: &Graph) -> Vec<Value> {
    let n = graph.positions.len();
    let mut wdl: Vec<Option<Wdl>> = graph.boundary.iter().map(|b| b.map(|v| v.wdl)).collect();
    for (i, pos) in graph.positions.iter().enumerate() {
        if graph.boundary[i].is_none() && graph.children[i].is_empty() {
            wdl[i] = Some(Wdl::from_outcome(pos.no_move_outcome(), pos.turn()));
        }
    }
    loop {
        let mut changed = false;
        for i in 0..n {
            if wdl[i].is_some() {
                continue;
            }
            let kids = &graph.children[i];
            if kids.iter().any(|&(c, _)| wdl[c] == Some(Wdl::Loss)) {
                wdl[i] = Some(Wdl::Win);
                changed = true;
            } else if kids.iter().all(|&(c, _)| wdl[c] == Some(Wdl::Win)) {
                wdl[i] = Some(Wdl::Loss);
                changed = true;
            }
        }
        if !changed {
            break;
        }
    }
    let wdl: Vec<Wdl> = wdl.into_iter().map(|w| w.unwrap_or(Wdl::Draw)).collect();
    let mut dtc: Vec<Option<u16>> = (0..n)
        .map(|i| match graph.boundary[i] {
            Some(v) => Some(v.dtc),
            None => graph.children[i].is_empty().then_some(0),
        })
        .collect();
    for level in 1..4000u16 {
        let snapshot = dtc.clone();
        let mut open = 0;
        for i in 0..n {
            if snapshot[i].is_some() || wdl[i] == Wdl::Draw {
                continue;
            }
            open += 1;
            let contribution = |&(c, conversion): &(usize, bool)| {
                if conversion {
                    Some(1)
                } else {
                    snapshot[c].map(|d| d + 1)
                }
            };
            let kids = &graph.children[i];
            let done = match wdl[i] {
                Wdl::Win => kids
                    .iter()
                    .any(|k| wdl[k.0] == Wdl::Loss && contribution(k).is_some_and(|d| d <= level)),
                _ => kids
                    .iter()
                    .all(|k| contribution(k).is_some_and(|d| d <= level)),
            };
            if done {
                dtc[i] = Some(level);
            }
        }
        if open == 0 {
            break;
        }
    }
    (0..n)
        .map(|i| Value {
            wdl: wdl[i],
            dtc: if wdl[i] == Wdl::Draw {
                0
            } else {
                dtc[i].expect("decided")
            },
        })
        .collect()
}

/// A random legal position of `material` under `rules` (deterministic in `seed`).
fn random_position(material: &Material, turn: Color, seed: &mut u64, rules: Rules) -> Position {
    loop {
        let pos = random_placement(&material.groups().collect::<Vec<_>>(), turn, rules, seed);
        if is_position(pos.board(), turn) {
            return pos;
        }
    }
}

fn build_tables(rules: Rules, targets: &[&str], dir: &Path) -> Tablebase {
    let targets: Vec<Material> = targets.iter().map(|m| m.parse().unwrap()).collect();
    let report = build(
        &targets,
        &BuildOptions {
            rules,
            dir: dir.to_path_buf(),
            threads: 2,
            strategy: Strategy::Auto,
        },
        &|_| {},
    )
    .unwrap();
    for b in &report.built {
        eprintln!(
            "{rules} {}: built in {:.1} s, {} positions ({} wins, {} draws, {} losses), \
             longest DTC {}, {} bytes",
            b.material,
            b.seconds,
            b.stats.positions,
            b.stats.wins,
            b.stats.draws,
            b.stats.losses,
            b.stats.max_dtc,
            b.bytes
        );
    }
    Tablebase::open(dir, rules).unwrap()
}

/// Verifies every table of `tb`; returns the positions checked.
fn verify_all(tb: &Tablebase) -> u64 {
    let mut positions = 0;
    for material in tb.materials() {
        let report = verify_table(tb, &material).unwrap();
        assert_eq!(
            report.mismatches,
            0,
            "{} {material}: {:?}",
            tb.rules(),
            report.examples
        );
        positions += report.positions;
    }
    positions
}

/// Explores from `roots` random roots of `material` and compares every expanded position
/// with the table; returns the positions compared.
fn compare_with_brute_force(
    tb: &Tablebase,
    material: &str,
    roots: usize,
    budget: usize,
    seed: &mut u64,
) -> usize {
    let material: Material = material.parse().unwrap();
    let roots: Vec<Position> = (0..roots)
        .map(|r| {
            let turn = if r % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            random_position(&material, turn, seed, tb.rules())
        })
        .collect();
    compare_from(tb, &roots, budget)
}

/// Explores from each root and compares every expanded position with the table.
fn compare_from(tb: &Tablebase, roots: &[Position], budget: usize) -> usize {
    let rules = tb.rules();
    let mut compared = 0;
    for root in roots {
        let graph = explore(*root, tb, budget);
        let values = solve(&graph);
        let mut here = 0;
        let mut en_passant = 0;
        for (i, (pos, value)) in graph.positions.iter().zip(&values).enumerate() {
            if graph.boundary[i].is_some() || pos.has_bare_king() {
                continue;
            }
            let got = tb
                .probe(pos)
                .unwrap()
                .unwrap_or_else(|| panic!("no table for {}", pos.fen()));
            assert_eq!(
                got,
                *value,
                "{rules} {}: table {got:?}, brute force {value:?}",
                pos.fen()
            );
            here += 1;
            en_passant += usize::from(pos.ep_square().is_some());
        }
        assert!(here > 0);
        eprintln!(
            "{rules} root {}: {here} positions agree ({en_passant} with en passant)",
            root.fen()
        );
        compared += here;
    }
    compared
}

fn probe(tb: &Tablebase, fen: &str) -> Value {
    let pos = Position::from_fen(fen, tb.rules()).unwrap();
    tb.probe(&pos).unwrap().expect("a value")
}

/// Black mated by the rook: under pritchard3 Black has lost, under pritchard4 won.
const MATED: &str = "1R5k/8/6K1/8/8/8/8/n7 b - - 0 1";
/// White to move mates in one (Rb8#, no capture is possible) — a win under pritchard3; under
/// pritchard4 that same move makes Black win.
const MATE_IN_ONE: &str = "7k/8/6K1/8/n7/8/8/1R6 w - - 0 1";
/// White must take the knight (not in check, a capture is possible): Black is left a bare
/// king and wins at once, under both variants.
const FORCED_CAPTURE: &str = "7k/8/6K1/8/8/8/8/nR6 w - - 0 1";

fn hand_checked(tb: &Tablebase) {
    let p3 = tb.rules() == Rules::PRITCHARD3;
    let mated = probe(tb, MATED);
    let expected = if p3 { Wdl::Loss } else { Wdl::Win };
    assert_eq!(
        mated,
        Value {
            wdl: expected,
            dtc: 0
        },
        "{} {MATED}",
        tb.rules()
    );
    let pos = Position::from_fen(MATE_IN_ONE, tb.rules()).unwrap();
    let moves = tb.probe_moves(&pos).unwrap();
    let rb8 = moves.iter().find(|m| m.mv.to_string() == "b1b8").unwrap();
    assert_eq!(
        rb8.after,
        mated,
        "{}: Rb8# leads to the mate above",
        tb.rules()
    );
    assert_eq!(rb8.wdl_for_mover(), -expected);
    if p3 {
        assert_eq!(
            probe(tb, MATE_IN_ONE),
            Value {
                wdl: Wdl::Win,
                dtc: 1
            }
        );
    } else {
        assert_ne!(
            probe(tb, MATE_IN_ONE),
            Value {
                wdl: Wdl::Win,
                dtc: 1
            }
        );
    }
    assert_eq!(
        probe(tb, FORCED_CAPTURE),
        Value {
            wdl: Wdl::Loss,
            dtc: 1
        }
    );
    // The position after the capture needs no table: Black's bare king has won.
    let bare = Position::from_fen("7k/8/6K1/8/8/8/8/R7 b - - 0 1", tb.rules()).unwrap();
    assert_eq!(
        tb.probe(&bare).unwrap(),
        Some(Value {
            wdl: Wdl::Win,
            dtc: 0
        })
    );
}

#[test]
fn krkn_tables_of_both_variants_agree_with_independent_checks() {
    let dir = temp_dir("royal-krkn");
    let mut seed = 0x5eed_0041_u64;
    for rules in [Rules::PRITCHARD3, Rules::PRITCHARD4] {
        let tb = build_tables(rules, &["KRkn"], &dir.join(rules.to_string()));
        assert_eq!(tb.materials().len(), 1, "KRkn needs no other table");
        hand_checked(&tb);
        if rules == Rules::PRITCHARD3 {
            // Every position (about 27 s in the test profile on the loaded shared
            // machine, more than the build: CI verifies one variant; the ignored test
            // below verifies every table of both).
            assert!(verify_all(&tb) > 4_000_000);
        }
        // A region of 30,000 positions around each root, solved by brute force.
        compare_with_brute_force(&tb, "KRkn", 2, 30_000, &mut seed);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Every table of both variants: built (or taken from `$ANTICHESS_ROYAL_TABLES/<rules>`
/// if set, where missing tables are built), every position verified, the hand-checked
/// positions, and the whole reachable graph of `KPkp` roots brute-forced.
#[test]
#[ignore = "builds the 30 tables of both variants (minutes); run with --ignored"]
fn every_royal_table_up_to_four_units() {
    let given = std::env::var_os("ANTICHESS_ROYAL_TABLES").map(std::path::PathBuf::from);
    let dir = given.clone().unwrap_or_else(|| temp_dir("royal-all"));
    let mut seed = 0x5eed_0004_u64;
    for rules in [Rules::PRITCHARD3, Rules::PRITCHARD4] {
        let all: Vec<String> = Material::all_up_to(4).iter().map(Material::name).collect();
        let all: Vec<&str> = all.iter().map(String::as_str).collect();
        let tb = build_tables(rules, &all, &dir.join(rules.to_string()));
        assert_eq!(tb.materials().len(), 15);
        let verified = verify_all(&tb);
        hand_checked(&tb);
        // KPkp: the whole graph reachable from a root is explored (pawns only move
        // forwards, so it is a few hundred thousand positions) and solved with no table
        // inside it; promotions lead to the other tables.
        let mut compared = compare_with_brute_force(&tb, "KPkp", 4, usize::MAX, &mut seed);
        // Roots with en passant: e2-e4 can give check to the king on f5, and d4xe3 en
        // passant then evades it (a node decided with its twin); c7-c5 lets b5xc6.
        let fixed: Vec<Position> = [
            "8/8/8/5k2/3p4/8/4P3/4K3 w - - 0 1",
            "8/2p5/8/1P6/8/8/8/K6k b - - 0 1",
        ]
        .iter()
        .map(|f| Position::from_fen(f, rules).unwrap())
        .collect();
        compared += compare_from(&tb, &fixed, usize::MAX);
        eprintln!("{rules}: {verified} indices verified, {compared} positions brute-forced");
    }
    if given.is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    }
}
