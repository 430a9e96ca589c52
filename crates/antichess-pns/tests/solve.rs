//! The solver against tablebases and the verifier: on random small positions a search
//! without tables must reach the tables' verdict; proofs of opening lines are written and
//! pass the independent verifier, also when the transposition table is too small to keep
//! the proof (forcing re-searches); budgets return the root's numbers; threads agree.

use antichess_core::{play_move_text, Color, Piece, Position, Role, Rules};
use antichess_pns::{
    extract_proof, minimize_proof, write_proof, write_proof_with_progress, MinimizeOptions,
    ProofPool, SearchOptions, SearchStatus, Solver, SEED,
};
use antichess_proof::{
    verify_file, write_proof_file, ByteOrder, Format, NoTablebases, ProofTree, TablebaseOracle,
    VerifyOptions,
};
use antichess_tb::{build, BuildOptions, Material, Tablebase, Wdl};
use antichess_testkit::random::random_placement;
use antichess_testkit::temp_dir as temp;

fn after(moves: &str) -> Position {
    *play_move_text(Position::start(Rules::INTERNATIONAL), moves)
        .unwrap()
        .position()
}

/// A random placement of `material` with `turn` to move, a legal move, and no dead draw.
fn random_position(material: &Material, turn: Color, seed: &mut u64) -> Position {
    let pieces: Vec<_> = material.groups().collect();
    loop {
        let pos = random_placement(&pieces, turn, Rules::INTERNATIONAL, seed);
        if !pos.is_dead_draw() {
            return pos;
        }
    }
}

#[test]
fn search_agrees_with_tablebases_on_small_positions() {
    let dir = temp("tb");
    let materials: Vec<Material> = ["KNk", "Rpp", "KPk", "NBb", "Ppn"]
        .iter()
        .map(|m| m.parse().unwrap())
        .collect();
    build(
        &materials,
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
    let solver = Solver::new(16 << 20, None);
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let (mut proved, mut disproved, mut unknown_decided, mut unknown_draws) = (0, 0, 0, 0);
    for material in &materials {
        for i in 0..24 {
            let turn = if i % 2 == 0 {
                Color::White
            } else {
                Color::Black
            };
            let pos = random_position(material, turn, &mut seed);
            let prover = if i % 4 < 2 {
                pos.turn()
            } else {
                pos.turn().other()
            };
            let mut options = SearchOptions::new(prover);
            options.max_nodes = Some(3_000_000);
            options.lone_bishop_rule = false;
            solver.table().clear();
            let result = solver.search(&pos, &options, &mut |_| {});
            let wdl = tb.probe_wdl(&pos).unwrap().unwrap();
            let prover_wins = if pos.turn() == prover {
                wdl == Wdl::Win
            } else {
                wdl == Wdl::Loss
            };
            // A proof or disproof must agree with the tables. Without tables a decided
            // position can still lie deep (KPk may need a rook chase after its promotion) and
            // disproving a draw may need to explore repetition cycles, so the budget may run
            // out; that is counted and must stay the exception.
            match result.status {
                SearchStatus::Proved => {
                    assert!(
                        prover_wins,
                        "{} prover {prover}: proved, but the tables say {wdl}",
                        pos.fen()
                    );
                    proved += 1;
                }
                SearchStatus::Disproved => {
                    assert!(
                        !prover_wins,
                        "{} prover {prover}: disproved, but the tables say {wdl}",
                        pos.fen()
                    );
                    disproved += 1;
                }
                SearchStatus::Unknown if wdl == Wdl::Draw => unknown_draws += 1,
                SearchStatus::Unknown => unknown_decided += 1,
            }
        }
    }
    eprintln!("proved {proved}, disproved {disproved}, unknown: {unknown_decided} decided, {unknown_draws} drawn");
    // Most random positions are decided quickly; a budget overrun must stay the exception.
    assert!(
        unknown_decided <= 6,
        "{unknown_decided} decided positions not solved within the budget"
    );
    assert!(
        proved >= 20 && disproved >= 20,
        "proved {proved}, disproved {disproved}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proofs_of_easy_lines_verify() {
    let dir = temp("proofs");
    for (moves, max_nodes) in [
        ("e3 d5", 100_000),
        ("e3 d6", 100_000),
        ("e3 Na6", 5_000_000),
    ] {
        let pos = after(moves);
        let solver = Solver::new(64 << 20, None);
        let mut options = SearchOptions::new(Color::White);
        options.max_nodes = Some(max_nodes);
        let result = solver.search(&pos, &options, &mut |_| {});
        assert_eq!(result.status, SearchStatus::Proved, "{moves}");
        assert!(result.moves.iter().any(|m| m.proof == 0));
        let path = dir.join("p.proof");
        let prolog = play_move_text(Position::start(Rules::INTERNATIONAL), moves)
            .unwrap()
            .moves()
            .to_vec();
        let (written, _) = write_proof(&solver, &pos, &prolog, &options, None, &path).unwrap();
        assert!(written.counts.total > 10);
        let stats = verify_file(
            &path,
            Some(Format::Compact),
            &NoTablebases,
            &VerifyOptions::default(),
            &mut |_| {},
        )
        .unwrap();
        assert_eq!(stats.counts.total, written.counts.total, "{moves}");
        eprintln!(
            "{moves}: {} nodes searched, proof of {} nodes, {} bytes",
            result.nodes, written.counts.total, written.bytes
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// 1. e3 Na6 solved for White without tables (64 MB table).
fn solved_na6() -> (Position, Solver<'static>, SearchOptions) {
    solved("e3 Na6", 64 << 20)
}

/// The position after `moves` solved for White without tables, with a table of `bytes`.
fn solved(moves: &str, bytes: usize) -> (Position, Solver<'static>, SearchOptions) {
    let pos = after(moves);
    let solver = Solver::new(bytes, None);
    let options = SearchOptions::new(Color::White);
    assert_eq!(
        solver.search(&pos, &options, &mut |_| {}).status,
        SearchStatus::Proved
    );
    (pos, solver, options)
}

#[test]
fn top_alternatives_are_proved_with_their_budget_and_minimised_on_their_own() {
    let dir = temp("top");
    // Deep in the proof of 1. e3 Na6, where several White moves win with proofs of about
    // a thousand nodes.
    let (pos, solver, options) = solved(
        "e3 Na6 Bxa6 bxa6 Qe2 Bb7 Qxa6 Bxg2 Qxa7 Bxh1 Qxc7 Qxc7 e4 Qxc2 Kd1 Qxd1",
        64 << 20,
    );
    let (first, _) = extract_proof(&solver, &pos, &[], &options).unwrap();
    // Only the top alternatives' phase: no exact searches, the passes' smallest budgets.
    // (Budgets in positions searched, not time: the same run on every machine.)
    let mut minimize = MinimizeOptions::with_work(4_000_000);
    minimize.exact_nodes = 0;
    minimize.max_nodes_per_node = 4;
    minimize.deep_nodes_per_node = 4;
    minimize.top_nodes = 3;
    minimize.top_nodes_per_node = 1;
    minimize.top_work = Some(250_000);
    // Each run with a table of its own, as for a proof read from a file.
    let run = |minimize: &MinimizeOptions| {
        let fresh = Solver::new(64 << 20, None);
        minimize_proof(&fresh, &first, &[], &options, minimize, &mut |_| {}).unwrap()
    };
    // One node per node of the subtree proves none of the other moves at the top...
    let (_, starved) = run(&minimize);
    assert_eq!(starved.top_minimized, 0, "{starved:?}");
    // ... the floor does, and each is minimised on its own before the pool compares it.
    minimize.top_min_budget = 300_000;
    let (smaller, report) = run(&minimize);
    assert!(report.top_minimized > 0, "{report:?}");
    assert!(smaller.len() <= first.len());
    assert_eq!(
        write_and_verify(&smaller, &dir.join("top.proof")),
        smaller.len() as u64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn minimised_proofs_are_smaller_and_verify() {
    let dir = temp("minimise");
    let (pos, solver, options) = solved_na6();
    // The passes converge within half the budget; the pool's last phase then runs to its
    // end. (A budget in positions searched, not time: the same run on every machine.)
    let mut minimize = MinimizeOptions::with_work(4_000_000);
    minimize.nodes_per_node = 4;
    minimize.deep_nodes_per_node = 4;
    minimize.max_nodes_per_node = 16;
    let path = dir.join("min.proof");
    // Every proof the minimiser tells of as it goes (the one it starts from, after each
    // pass, then the pool's) is whole and of the size told.
    let told_path = dir.join("told.proof");
    let mut told: Vec<(u64, bool)> = Vec::new();
    let (written, _) = write_proof_with_progress(
        &solver,
        &pos,
        &[],
        &options,
        Some(&minimize),
        &path,
        &mut |p| {
            let tree = p.proof().unwrap();
            assert_eq!(tree.len() as u64, p.size);
            assert_eq!(write_and_verify(&tree, &told_path), p.size);
            told.push((p.size, p.report.is_some()));
        },
    )
    .unwrap();
    let report = written.minimized.expect("the minimiser ran");
    assert!(report.revisited > 0 && report.proved > 0, "{report:?}");
    assert!(report.replaced > 0, "{report:?}");
    assert!(report.nodes_after < report.nodes_before, "{report:?}");
    assert_eq!(report.nodes_after, written.counts.total);
    assert_eq!(verified_nodes(&path), written.counts.total);
    assert_eq!(told[0], (report.nodes_before, false), "{told:?}");
    let passes = told.iter().filter(|t| !t.1).count() as u64;
    assert_eq!(passes, report.passes + 1, "{told:?}");
    assert!(told[passes as usize..].iter().all(|t| t.1), "{told:?}");
    assert!(
        told.len() as u64 > passes,
        "the pool's phase told: {told:?}"
    );
    assert!(told.iter().all(|t| t.0 >= report.nodes_after), "{told:?}");
    eprintln!("minimised {report:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn minimisation_leaves_the_pool_half_the_time() {
    // 600,000 positions are far too few for the passes over 1. e3 Na6's 3,739-node
    // proof: they stop at 300,000, and the pool's phase (its exact searches first) gets
    // the other half.
    let dir = temp("half");
    let (pos, solver, options) = solved_na6();
    let minimize = MinimizeOptions::with_work(600_000);
    let path = dir.join("half.proof");
    let (written, _) = write_proof(&solver, &pos, &[], &options, Some(&minimize), &path).unwrap();
    let report = written.minimized.expect("the minimiser ran");
    assert!(
        report.timed_out,
        "the passes stopped at their limit: {report:?}"
    );
    let pool = report.pool.expect("the pool ran");
    assert!(pool.exact_searched > 0, "{pool:?}");
    assert!(report.nodes_after < report.nodes_before, "{report:?}");
    assert_eq!(report.nodes_after, written.counts.total);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A raised stop flag (Ctrl-C) ends a minimisation early with a valid proof no larger than
/// the first: in `solve`'s path, where the same flag stops the search too (the extraction's
/// re-searches must not stop with it), raised before the proof is written; and in
/// `minimize_proof`'s, raised two seconds into a two-hour run.
#[test]
fn a_raised_stop_flag_ends_the_minimisation_with_a_valid_proof() {
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    let dir = temp("stop");
    let started = Instant::now();
    let (pos, solver, mut options) = solved_na6();
    let stop = Arc::new(AtomicBool::new(true));
    options.interrupt = Some(Arc::clone(&stop));
    let mut minimize = MinimizeOptions::new(Duration::from_secs(7200));
    minimize.stop = Some(Arc::clone(&stop));
    let path = dir.join("stopped.proof");
    let (written, _) = write_proof(&solver, &pos, &[], &options, Some(&minimize), &path).unwrap();
    let report = written.minimized.expect("the minimiser ran");
    assert!(report.interrupted, "{report:?}");
    assert!(report.nodes_after <= report.nodes_before, "{report:?}");
    assert_eq!(verified_nodes(&path), written.counts.total);
    // Raised while it runs.
    stop.store(false, Ordering::Relaxed);
    let (first, _) = extract_proof(&solver, &pos, &[], &options).unwrap();
    let fresh = Solver::new(64 << 20, None);
    let raise = {
        let stop = Arc::clone(&stop);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_secs(2));
            stop.store(true, Ordering::Relaxed);
        })
    };
    let (smaller, _) =
        minimize_proof(&fresh, &first, &[], &options, &minimize, &mut |_| {}).unwrap();
    raise.join().unwrap();
    assert!(smaller.len() <= first.len());
    assert_eq!(
        write_and_verify(&smaller, &dir.join("smaller.proof")),
        smaller.len() as u64
    );
    // Both minimisations had two hours; the flag ended them.
    assert!(
        started.elapsed() < Duration::from_secs(1800),
        "{:?}",
        started.elapsed()
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Writes `tree` and runs the verifier on the file; returns its node count.
fn write_and_verify(tree: &ProofTree, path: &std::path::Path) -> u64 {
    write_proof_file(tree, path, Format::Compact, ByteOrder::Little).unwrap();
    verified_nodes(path)
}

/// Runs the verifier on a proof file of ours; returns its node count.
fn verified_nodes(path: &std::path::Path) -> u64 {
    verify_file(
        path,
        Some(Format::Compact),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap()
    .counts
    .total
}

#[test]
fn the_proof_pool_shrinks_a_given_proof_and_merges_proofs() {
    let dir = temp("pool");
    let (pos, solver, options) = solved_na6();
    let (first, _) = extract_proof(&solver, &pos, &[], &options).unwrap();
    // A fresh solver, as for a proof read from a file: every search starts from nothing.
    // The passes take part of the budget (positions searched, the same on every machine);
    // the last phase runs to its end.
    let fresh = Solver::new(64 << 20, None);
    let mut minimize = MinimizeOptions::with_work(2_000_000);
    minimize.max_nodes_per_node = 4;
    minimize.deep_nodes_per_node = 4;
    minimize.exact_max_subtree = 200;
    // The proofs it tells of as it goes (what `proof minimize --save-every` saves).
    let mut told: Vec<ProofTree> = Vec::new();
    let (smaller, report) = minimize_proof(&fresh, &first, &[], &options, &minimize, &mut |p| {
        let proof = p.proof().unwrap();
        assert_eq!(proof.len() as u64, p.size);
        told.push(proof);
    })
    .unwrap();
    assert!(
        told.len() > 1 && report.proved > 0 && report.switches > 0,
        "{report:?}"
    );
    for (i, proof) in told.iter().enumerate() {
        let path = dir.join(format!("told-{i}.proof"));
        assert_eq!(write_and_verify(proof, &path), proof.len() as u64);
    }
    assert!(told.iter().all(|t| t.len() <= first.len()));
    assert_eq!(told.last().map(ProofTree::len), Some(smaller.len()));
    // The exact searches found smaller proofs of small subtrees that join the proof.
    assert!(
        report.exact_searched > 0 && report.exact_found > 0,
        "{report:?}"
    );
    assert!(
        smaller.len() < first.len(),
        "{} -> {}",
        first.len(),
        smaller.len()
    );
    assert_eq!(report.after_deepening, smaller.len() as u64);
    assert_eq!(
        write_and_verify(&smaller, &dir.join("smaller.proof")),
        smaller.len() as u64
    );
    // Given the smaller proof to merge, a minimisation with no time at all (the pool's
    // starts and local passes only) of the first proof is no larger than the smaller one;
    // alone it has only the first proof's moves.
    let instant = MinimizeOptions::new(std::time::Duration::ZERO);
    let (alone, _) = minimize_proof(&fresh, &first, &[], &options, &instant, &mut |_| {}).unwrap();
    let (with_merge, merge_report) = minimize_proof(
        &fresh,
        &first,
        std::slice::from_ref(&smaller),
        &options,
        &instant,
        &mut |_| {},
    )
    .unwrap();
    assert!(
        with_merge.len() <= smaller.len() && with_merge.len() < alone.len(),
        "merged {}, smaller {}, alone {}: {merge_report:?}",
        with_merge.len(),
        smaller.len(),
        alone.len()
    );
    assert_eq!(with_merge.prolog(), first.prolog());
    assert_eq!(
        write_and_verify(&with_merge, &dir.join("with_merge.proof")),
        with_merge.len() as u64
    );
    // A proof for the other side is refused.
    let other_side = ProofTree::from_parts(
        *smaller.root(),
        Color::Black,
        Vec::new(),
        smaller.nodes().to_vec(),
    )
    .unwrap();
    assert!(minimize_proof(
        &fresh,
        &first,
        &[other_side],
        &options,
        &instant,
        &mut |_| {}
    )
    .unwrap_err()
    .to_string()
    .contains("another prover"));
    // A pool of both proofs gives one no larger than the proof it starts from (the local
    // passes only ever shrink it), and valid.
    let mut pool = ProofPool::new(pos, Color::White);
    pool.add(&first).unwrap();
    pool.add(&smaller).unwrap();
    for start in [&first, &smaller] {
        let (merged, merge_report) = pool.optimize(start).unwrap();
        assert!(
            merge_report.from_first <= start.len() as u64,
            "{} nodes: {merge_report:?}",
            start.len()
        );
        assert_eq!(
            merged.len() as u64,
            merge_report.from_first.min(merge_report.from_tree_costs)
        );
        assert_eq!(
            write_and_verify(&merged, &dir.join("merged.proof")),
            merged.len() as u64
        );
    }
    // Proofs for the other side do not mix.
    let mut black = ProofPool::new(pos, Color::Black);
    assert!(black.add(&first).unwrap_err().to_string().contains("white"));
    eprintln!("{} -> {} nodes: {report:?}", first.len(), smaller.len());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proof_extraction_survives_seeds() {
    // The minimiser seeds the table with positions proved elsewhere (no proved child in
    // the table): extraction must search them again, not stop there.
    let dir = temp("seeds");
    let (pos, solver, options) = solved_na6();
    let (first, _) = extract_proof(&solver, &pos, &[], &options).unwrap();
    // A fresh table holding only seeds: the search stops at them.
    let fresh = Solver::new(64 << 20, None);
    let mut seeded = 0;
    first
        .for_each_position(|i, p, _| {
            let node = &first.nodes()[i];
            if i > 0 && p.halfmoves() == 0 && node.kind == antichess_proof::NodeKind::Prover {
                // White proves: the table's key of a position after an irreversible move
                // is its Zobrist key.
                fresh.table().put(p.key(), SEED);
                seeded += 1;
            }
            Ok(())
        })
        .unwrap();
    assert!(seeded > 100, "{seeded}");
    let result = fresh.search(&pos, &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Proved);
    let (again, researched) = extract_proof(&fresh, &pos, &[], &options).unwrap();
    assert!(researched > 0);
    assert_eq!(
        write_and_verify(&again, &dir.join("again.proof")),
        again.len() as u64
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Tables of one to 128 buckets (four entries each): the search stores a node after its
/// children, and in a full bucket that store evicts the entry of least work, often the
/// proved child of a short forced win. Extraction then takes the node's own best move (the
/// child it was proved by) instead of failing with "no proved move found" (as it did,
/// deterministically, at every size here, and in about one book search in a thousand
/// with a 4 GB table).
#[test]
fn proof_extraction_survives_the_proved_childs_eviction_by_its_parent() {
    let dir = temp("evicted");
    let pos = after("e3 Na6 Bxa6 bxa6 Qe2 Bb7 Qxa6 Bxg2 Qxa7 Bxh1 Qxc7 Qxc7 e4 Qxc2 Kd1 Qxd1");
    let options = SearchOptions::new(Color::White);
    for buckets in [1usize, 2, 4, 8, 16, 32, 64, 128] {
        let solver = Solver::new(buckets * 4 * antichess_pns::ENTRY_BYTES, None);
        let result = solver.search(&pos, &options, &mut |_| {});
        assert_eq!(result.status, SearchStatus::Proved);
        let (tree, researched) = extract_proof(&solver, &pos, &[], &options)
            .unwrap_or_else(|e| panic!("{buckets} buckets: {e}"));
        assert!(researched > 0, "{buckets} buckets: nothing was lost");
        let path = dir.join(format!("b{buckets}.proof"));
        assert_eq!(write_and_verify(&tree, &path), tree.len() as u64);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proof_extraction_survives_a_tiny_table() {
    // A 96 KB table cannot hold the proof: extraction must re-search the lost parts.
    let dir = temp("tiny");
    let (pos, solver, options) = solved("e3 Na6", 96 << 10);
    let path = dir.join("tiny.proof");
    let (written, _) = write_proof(&solver, &pos, &[], &options, None, &path).unwrap();
    assert!(
        written.researched > 0,
        "the tiny table should have lost some of the proof"
    );
    verify_file(
        &path,
        Some(Format::Compact),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn proofs_with_tablebase_leaves_verify_with_tables() {
    let dir = temp("leaves");
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
    assert_eq!(tb.complete_units(), 3);
    let pos = after("e3 Na6");
    let solver = Solver::new(64 << 20, Some(&tb));
    let mut options = SearchOptions::new(Color::White);
    options.tablebase_units = 3;
    assert_eq!(
        solver.search(&pos, &options, &mut |_| {}).status,
        SearchStatus::Proved
    );
    let path = dir.join("leaves.proof");
    let (written, _) = write_proof(&solver, &pos, &[], &options, None, &path).unwrap();
    let oracle = TablebaseOracle::new(&tb);
    let stats = verify_file(
        &path,
        Some(Format::Compact),
        &oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(stats.counts.total, written.counts.total);
    if written.counts.tablebase > 0 {
        // Without tables the same file cannot be checked.
        assert!(verify_file(
            &path,
            Some(Format::Compact),
            &NoTablebases,
            &VerifyOptions::default(),
            &mut |_| {}
        )
        .is_err());
        // Played out to the end of the game instead of trusted.
        let expand = VerifyOptions {
            expand_tablebase_leaves: true,
            ..VerifyOptions::default()
        };
        verify_file(&path, Some(Format::Compact), &oracle, &expand, &mut |_| {}).unwrap();
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn budgets_return_numbers_for_every_root_move() {
    let pos = Position::start(Rules::INTERNATIONAL);
    let solver = Solver::new(16 << 20, None);
    let mut options = SearchOptions::new(Color::White);
    options.max_nodes = Some(20_000);
    let result = solver.search(&pos, &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Unknown);
    assert_eq!(result.moves.len(), 20);
    assert!(result.proof > 0 && result.disproof > 0);
    assert!(
        result.nodes >= 20_000 && result.nodes < 100_000,
        "{}",
        result.nodes
    );
    options.max_nodes = None;
    options.max_time = Some(std::time::Duration::from_millis(300));
    let result = solver.search(&pos, &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Unknown);
    assert!(result.elapsed.as_secs_f64() < 5.0);
    // Progress, once a second, gives the root's current numbers (combined from its
    // children: the root's own entry is written only when the search returns).
    // A fresh table: the searches above left the root's entry in this one.
    let solver = Solver::new(16 << 20, None);
    options.max_time = Some(std::time::Duration::from_millis(2500));
    let mut reports = Vec::new();
    let result = solver.search(&pos, &options, &mut |p| reports.push((p.proof, p.disproof)));
    assert!(!reports.is_empty());
    assert!(
        reports.iter().all(|&(p, d)| p > 1 && d > 1),
        "{reports:?}, at the end {} {}",
        result.proof,
        result.disproof
    );
    // Through forced moves: after 7. Kf1 Qxh2 8. Na3 below, Black's only move is 8...
    // Qxf2 and White's then 9. Kxf2 (a line no search here solves in seconds). Their
    // entries, like the root's, are written only when the search returns: the old
    // progress showed the first one's initial numbers, (1, 1), throughout. The reports
    // are combined from the nodes below, the first with a choice being Black's after 9.
    // Kxf2, whose proof number sums those of Black's moves.
    let pos = after("e3 g6 Qh5 gxh5 g4 hxg4 Nf3 gxf3 Bg2 fxg2 d4 gxh1=Q Kf1 Qxh2 Na3");
    let forced = pos.play(pos.legal_moves()[0]);
    assert_eq!(pos.legal_moves().len(), 1);
    assert_eq!(forced.legal_moves().len(), 1);
    let solver = Solver::new(16 << 20, None);
    let mut reports = Vec::new();
    let result = solver.search(&pos, &options, &mut |p| reports.push((p.proof, p.disproof)));
    assert_eq!(result.status, SearchStatus::Unknown);
    assert!(!reports.is_empty());
    assert!(
        reports.iter().all(|&(p, _)| p > 1),
        "{reports:?}, at the end {} {}",
        result.proof,
        result.disproof
    );
}

#[test]
fn two_threads_agree() {
    let pos = after("e3 Na6");
    let solver = Solver::new(64 << 20, None);
    let mut options = SearchOptions::new(Color::White);
    options.threads = 2;
    let first_size = solver.table().bytes_in_use();
    let result = solver.search(&pos, &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Proved);
    // The threads paused together for the table to grow. One thread stores about 400,000
    // entries here (the table starts with room for 262,144 and asks to double when a third
    // of them are in use), but how much two threads store depends on their scheduling: a
    // CI run once proved it after a single doubling. Growing at least once is what is tested.
    assert!(
        solver.table().bytes_in_use() >= 2 * first_size,
        "the table never grew: {} bytes",
        solver.table().bytes_in_use()
    );
    // Three threads on two cores: a thread that finishes while others wait at the gate
    // lets them go on.
    let solver = Solver::new(64 << 20, None);
    options.threads = 3;
    let result = solver.search(&after("e3 g6"), &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Proved);
    // The lone-bishop rule is a failure for the prover, never a false proof.
    let lone = Position::from_fen("8/8/8/8/8/8/1b6/B7 w - - 0 1", Rules::INTERNATIONAL).unwrap();
    let _ = Piece::new(Color::White, Role::Bishop);
    let options = SearchOptions::new(Color::White);
    assert_ne!(
        solver.search(&lone, &options, &mut |_| {}).status,
        SearchStatus::Proved
    );
}
