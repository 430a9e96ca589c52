//! Tables against an independent brute-force solver: the game graph reachable from a root
//! position is explored forwards (no indexing, no symmetry, no table files), WDL is
//! computed by fixpoint iteration and DTC level by level; every explored position is then
//! compared with the tables.
//!
//! The root's material and every position with at most two units are expanded. Positions
//! of other materials (reached only by conversions, so only their WDL matters) are
//! boundary nodes valued by their tables; those tables are themselves checked by
//! brute force when they are pawnless (their graphs are closed). Also checks the generator
//! against `verify_table`, and that a corrupt or foreign table is refused.

use std::collections::HashMap;

use antichess_core::{Board, Color, Piece, Position, Role, Rules, Square};
use antichess_tb::{build, verify_table, BuildOptions, Material, Strategy, Tablebase, Value, Wdl};
use antichess_testkit::{random::random_placement, temp_dir};

struct Graph {
    positions: Vec<Position>,
    /// Children (node id, move converts) per node.
    children: Vec<Vec<(usize, bool)>>,
    /// Value of a boundary node (not expanded), from its table.
    boundary: Vec<Option<Wdl>>,
}

fn explore(root: Position, tb: &Tablebase) -> Graph {
    let material = Material::from_board(root.board());
    let expand = |p: &Position| {
        p.board().occupied().count() <= 2 || Material::from_board(p.board()) == material
    };
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
        if !expand(&pos) {
            graph.boundary[next] = Some(tb.probe_wdl(&pos).unwrap().expect("boundary table"));
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

/// WDL and DTC of every node by forward iteration.
fn solve(graph: &Graph) -> Vec<Value> {
    let n = graph.positions.len();
    let mut wdl: Vec<Option<Wdl>> = graph.boundary.clone();
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
    // DTC level by level, using only values fixed at earlier levels.
    // Boundary nodes are reached only by conversions: their DTC never counts.
    let mut dtc: Vec<Option<u16>> = (0..n)
        .map(|i| (graph.boundary[i].is_some() || graph.children[i].is_empty()).then_some(0))
        .collect();
    for level in 1..2000u16 {
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

fn random_position(material: &Material, turn: Color, seed: &mut u64, rules: Rules) -> Position {
    random_placement(&material.groups().collect::<Vec<_>>(), turn, rules, seed)
}

fn compare_with_brute_force(rules: Rules, materials: &[&str], roots_per_material: usize) {
    let dir = temp_dir(&format!("brute-{rules}"));
    let targets: Vec<Material> = materials.iter().map(|m| m.parse().unwrap()).collect();
    // Both propagation strategies must give byte-identical files.
    for (strategy, sub) in [
        (Strategy::Backward, "backward"),
        (Strategy::Forward, "forward"),
    ] {
        build(
            &targets,
            &BuildOptions {
                rules,
                dir: dir.join(sub),
                threads: 2,
                strategy,
            },
            &|_| {},
        )
        .unwrap();
    }
    let mut files = 0;
    for entry in std::fs::read_dir(dir.join("backward")).unwrap() {
        let path = entry.unwrap().path();
        let forward = dir.join("forward").join(path.file_name().unwrap());
        assert!(
            std::fs::read(&path).unwrap() == std::fs::read(&forward).unwrap(),
            "{} differs between strategies",
            path.display()
        );
        files += 1;
    }
    assert!(files >= targets.len());
    let dir = dir.join("forward");
    let tb = Tablebase::open(&dir, rules).unwrap();
    let mut seed = 0x1234_5678_9abc_def1u64;
    for material in &targets {
        // A pawnless material's graph is the whole material from any root: one is enough.
        let roots = if material.has_pawns() {
            roots_per_material
        } else {
            1
        };
        for r in 0..roots {
            let turn = if r % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let root = random_position(material, turn, &mut seed, rules);
            let graph = explore(root, &tb);
            let values = solve(&graph);
            let mut compared = 0;
            for (i, (pos, value)) in graph.positions.iter().zip(&values).enumerate() {
                if pos.us().is_empty() || pos.them().is_empty() || graph.boundary[i].is_some() {
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
                compared += 1;
            }
            assert!(compared > 0);
            eprintln!(
                "{rules} {material} root {}: {} positions agree",
                root.fen(),
                compared
            );
        }
    }
    // The generator's output passes the separate verifier.
    for material in tb.materials() {
        let report = verify_table(&tb, &material).unwrap();
        assert_eq!(report.mismatches, 0, "{material}: {:?}", report.examples);
    }
    let _ = std::fs::remove_dir_all(dir.parent().unwrap());
}

#[test]
fn international_tables_agree_with_brute_force() {
    compare_with_brute_force(
        Rules::INTERNATIONAL,
        &["KBk", "NNk", "Rb", "Pk", "KPk", "Ppn", "PPp"],
        2,
    );
}

#[test]
fn fics_tables_agree_with_brute_force() {
    // Under FICS rules stalemates can be lost or drawn, so all three results occur.
    compare_with_brute_force(Rules::FICS, &["KRk", "Bn", "KPp", "Pnb", "PPk"], 2);
}

#[test]
fn vinciperdi_and_queen_only_tables_agree_with_brute_force() {
    compare_with_brute_force(Rules::PRITCHARD, &["KQk", "KPk", "Pp"], 2);
}

/// Building international tables into `dir` on one thread.
fn international_build(dir: &std::path::Path) -> BuildOptions {
    BuildOptions {
        rules: Rules::INTERNATIONAL,
        dir: dir.to_path_buf(),
        threads: 1,
        strategy: Strategy::Auto,
    }
}

#[test]
fn corrupt_and_foreign_tables_are_refused() {
    let dir = temp_dir("corrupt");
    let material: Material = "KNk".parse().unwrap();
    build(&[material], &international_build(&dir), &|_| {}).unwrap();
    let path = dir.join("KNvK.actb");
    let bytes = std::fs::read(&path).unwrap();
    let open = |bytes: Vec<u8>, rules| {
        antichess_tb::Table::from_bytes(&path, bytes, &material, rules)
            .map(|_| ())
            .unwrap_err()
            .to_string()
    };
    // Another rule set.
    let err = open(bytes.clone(), Rules::FICS);
    assert!(
        err.contains("international rules") && err.contains("fics rules were requested"),
        "{err}"
    );
    // A flipped byte in the body.
    let mut flipped = bytes.clone();
    let last = flipped.len() - 1;
    flipped[last] ^= 0x40;
    assert!(open(flipped, Rules::INTERNATIONAL).contains("checksum"));
    // Truncated.
    assert!(open(bytes[..bytes.len() - 10].to_vec(), Rules::INTERNATIONAL).contains("truncated"));
    assert!(open(bytes[..20].to_vec(), Rules::INTERNATIONAL).contains("shorter than"));
    // Not a table.
    let mut magic = bytes.clone();
    magic[0] = b'X';
    assert!(open(magic, Rules::INTERNATIONAL).contains("magic"));
    // Another version.
    let mut version = bytes.clone();
    version[8] = 9;
    assert!(open(version, Rules::INTERNATIONAL).contains("version 9"));
    // A header naming a material with more units than tables have is refused before its
    // index is built (for seven pawns that alone took 40 s and 2 GB; found by fuzzing).
    let mut large = bytes.clone();
    large[16..32].fill(0);
    large[16..26].copy_from_slice(b"KPPPPPPPkr");
    let err = open(large, Rules::INTERNATIONAL);
    assert!(err.contains("10 units; tables have at most 6"), "{err}");
    let err = build(
        &["KPPPPPPk".parse().unwrap()],
        &international_build(&dir),
        &|_| {},
    )
    .unwrap_err()
    .to_string();
    assert!(err.contains("8 units; tables have at most 6"), "{err}");
    // Through the tablebase: the error names the file.
    std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
    let tb = Tablebase::open(&dir, Rules::INTERNATIONAL).unwrap();
    let pos = Position::from_fen("8/8/8/8/8/8/5k2/KN6 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let err = tb.probe_wdl(&pos).unwrap_err().to_string();
    assert!(err.contains("KNvK.actb"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn en_passant_positions_resolve_by_captures() {
    let dir = temp_dir("ep");
    let rules = Rules::INTERNATIONAL;
    build(
        &["PPp".parse().unwrap()],
        &BuildOptions {
            rules,
            dir: dir.clone(),
            threads: 2,
            strategy: Strategy::Auto,
        },
        &|_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&dir, rules).unwrap();
    // Two white pawns can take en passant on d6; compare with brute force.
    let pos = Position::from_fen("8/8/8/2PpP3/8/8/8/8 w - d6 0 1", rules).unwrap();
    assert_eq!(pos.legal_moves().len(), 2);
    let graph = explore(pos, &tb);
    let values = solve(&graph);
    assert_eq!(tb.probe(&pos).unwrap().unwrap(), values[0]);
    let moves = tb.probe_moves(&pos).unwrap();
    assert_eq!(moves.len(), 2);
    for mv in &moves {
        let child = pos.play(mv.mv);
        let id = graph
            .positions
            .iter()
            .position(|p| p.same_position(&child))
            .unwrap();
        assert_eq!(mv.after, values[id], "{}", mv.mv);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn piece_counts_and_sides_share_tables() {
    // A position of the colour-swapped material probes the same table.
    let dir = temp_dir("swap");
    let rules = Rules::INTERNATIONAL;
    build(
        &["KRk".parse().unwrap()],
        &international_build(&dir),
        &|_| {},
    )
    .unwrap();
    let tb = Tablebase::open(&dir, rules).unwrap();
    let a = Position::from_fen("8/8/8/8/8/2k5/8/KR6 w - - 0 1", rules).unwrap();
    let b = a.swap_colors();
    assert_eq!(tb.probe(&a).unwrap(), tb.probe(&b).unwrap());
    assert!(tb.contains(&"Kkr".parse().unwrap()));
    let _ = Piece::new(Color::White, Role::King);
    let _ = std::fs::remove_dir_all(&dir);
}
