//! The prove pipeline ([`antichess_pns::prove_position`], [`antichess_pns::finish_proof`]):
//! from a position to a written, verified proof, with minimisation and saves as it goes,
//! and the JSON report of a solve.

use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_pns::{
    extract_proof, finish_proof, prove_position, MinimizeOptions, ProofOutput, ProveEvent,
    ProveOptions, SearchOptions, SearchStatus, SolveReport, Solver,
};
use antichess_proof::{verify_file, Format, NoTablebases, VerifyOptions};

fn temp(name: &str) -> std::path::PathBuf {
    let dir =
        std::env::temp_dir().join(format!("antichess-pns-prove-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn after(moves: &str) -> (Position, Vec<antichess_core::Move>) {
    let game = play_move_text(Position::start(Rules::INTERNATIONAL), moves).unwrap();
    (*game.position(), game.moves().to_vec())
}

#[test]
fn a_position_goes_to_a_minimised_verified_file_saved_as_it_goes() {
    let dir = temp("file");
    let (pos, prolog) = after("e3 Na6");
    let solver = Solver::new(64 << 20, None);
    let mut options = ProveOptions::new(SearchOptions::new(Color::White));
    let path = dir.join("na6.proof");
    options.prolog = prolog.clone();
    options.output = ProofOutput::File(path.clone());
    options.minimize = Some(MinimizeOptions::with_work(500_000));
    // Every save is due: the proof as found is saved first, then each smaller one.
    options.save_every = std::time::Duration::from_nanos(1);
    let (mut saves, mut told) = (Vec::new(), 0);
    let solved = prove_position(&solver, &pos, &options, &mut |event| match event {
        ProveEvent::Search(_) => {}
        ProveEvent::Minimizing(_) => told += 1,
        ProveEvent::Saved { nodes, path: saved } => {
            assert_eq!(saved, path.as_path());
            saves.push(nodes);
        }
        ProveEvent::NotSaved(e) => panic!("{e}"),
    })
    .unwrap();
    assert_eq!(solved.search.status, SearchStatus::Proved);
    assert!(!solved.main_line.is_empty());
    let proof = solved.proof.as_ref().expect("a proof");
    assert!(proof.verified(), "{:?}", proof.verdict);
    assert_eq!(proof.path.as_deref(), Some(path.as_path()));
    let minimized = proof.minimized.expect("minimised");
    assert_eq!(minimized.nodes_after, proof.counts.total);
    assert!(told > 0);
    assert!(
        saves.len() >= 2 && saves[0] == minimized.nodes_before,
        "{saves:?}"
    );
    assert!(saves.windows(2).all(|w| w[1] < w[0]), "{saves:?}");
    let stats = verify_file(
        &path,
        Some(Format::Compact),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .unwrap();
    assert_eq!(stats.counts.total, proof.counts.total);
    assert_eq!(std::fs::metadata(&path).unwrap().len(), proof.bytes);
    // The JSON of the solve: "inf" for infinite numbers, the proof written.
    let json = serde_json::to_value(SolveReport::new(&solved, None)).unwrap();
    assert_eq!(json["result"], "proved");
    assert_eq!(json["proof"], 0);
    assert_eq!(json["disproof"], "inf");
    assert_eq!(json["verified"], true);
    assert_eq!(json["proof_nodes"], proof.counts.total);
    assert_eq!(json["unminimized_proof_nodes"], minimized.nodes_before);
    assert_eq!(json["proof_tree"]["verified"], true);
    assert_eq!(json["proof_tree"]["error"], serde_json::Value::Null);
    assert_eq!(json["proof_file"], path.display().to_string());
    assert_eq!(json["time_limit"], serde_json::Value::Null);
    assert!(json["main_line"].as_str().unwrap().starts_with("2. Bxa6"));
    assert_eq!(json["main_line_uci"][0], "f1a6");
    let moves = json["moves"].as_array().unwrap();
    assert!(moves
        .iter()
        .any(|m| m["proof"] == 0 && m["disproof"] == "inf"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn unproved_positions_and_proofs_kept_in_memory() {
    // Not proved: no proof, whatever the output.
    let (pos, _) = after("e3 c6");
    let solver = Solver::new(16 << 20, None);
    let mut search = SearchOptions::new(Color::White);
    search.max_nodes = Some(2_000);
    let mut options = ProveOptions::new(search);
    options.output = ProofOutput::Memory { verify: true };
    let solved = prove_position(&solver, &pos, &options, &mut |_| {}).unwrap();
    assert_eq!(solved.search.status, SearchStatus::Unknown);
    assert!(solved.proof.is_none());
    let json = serde_json::to_value(SolveReport::new(
        &solved,
        Some(std::time::Duration::from_secs(3)),
    ))
    .unwrap();
    assert_eq!(json["proof_tree"], serde_json::Value::Null);
    assert_eq!(json["verified"], serde_json::Value::Null);
    assert_eq!(json["time_limit"], 3.0);
    assert!(
        json["proof"].is_u64() && json["disproof"].is_u64(),
        "{json}"
    );
    // Proved and kept in memory, verified there.
    let (pos, _) = after("e3 Na6");
    let solver = Solver::new(64 << 20, None);
    let options = ProveOptions {
        output: ProofOutput::Memory { verify: true },
        ..ProveOptions::new(SearchOptions::new(Color::White))
    };
    let solved = prove_position(&solver, &pos, &options, &mut |_| {}).unwrap();
    let proof = solved.proof.expect("a proof");
    assert!(proof.verified() && proof.bytes > 0 && proof.path.is_none());
    let tree = proof.tree.expect("kept");
    assert_eq!(tree.len() as u64, proof.counts.total);
    // A given tree (as a book assembles one), minimised and verified by the second half.
    let (first, _) = extract_proof(&solver, &pos, &[], &SearchOptions::new(Color::White)).unwrap();
    let fresh = Solver::new(64 << 20, None);
    let mut options = ProveOptions::new(SearchOptions::new(Color::White));
    options.output = ProofOutput::Memory { verify: true };
    options.minimize = Some(MinimizeOptions::with_work(300_000));
    let outcome = finish_proof(&fresh, first.clone(), &options, &mut |_| {}).unwrap();
    assert!(outcome.verified());
    let minimized = outcome.minimized.expect("minimised");
    assert_eq!(minimized.nodes_before, first.len() as u64);
    assert!(outcome.counts.total <= first.len() as u64);
    assert!(minimized.pool.is_some());
}

/// `extract_proof_at`: the proof of a node below a searched root, found along the search's
/// path keys (what a book worker keeps of the won children of a leaf it searched).
#[test]
fn a_proved_node_below_the_root_has_its_own_verified_proof() {
    let dir = temp("at");
    let (pos, _) = after("e3 Na6");
    let solver = Solver::new(64 << 20, None);
    let options = SearchOptions::new(Color::White);
    let result = solver.search(&pos, &options, &mut |_| {});
    assert_eq!(result.status, SearchStatus::Proved);
    let win = result
        .moves
        .iter()
        .find(|m| m.proof == 0)
        .expect("a winning move")
        .mv;
    let after_win = pos.play(win);
    let reply = after_win.legal_moves()[0];
    let line = [win, reply];
    let (tree, _) = antichess_pns::extract_proof_at(&solver, &pos, &line, &options).unwrap();
    assert!(tree.root().same_position(&after_win.play(reply)));
    assert_eq!(tree.prover(), Color::White);
    let path = dir.join("at.proof");
    antichess_proof::write_proof_file(
        &tree,
        &path,
        Format::Compact,
        antichess_proof::ByteOrder::Little,
    )
    .unwrap();
    let stats = verify_file(
        &path,
        Some(Format::Compact),
        &NoTablebases,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .expect("the verifier accepts the proof of the node");
    assert_eq!(stats.counts.total, tree.len() as u64);
    // A move the table does not hold as winning, and an illegal line, are errors.
    if let Some(open) = result.moves.iter().find(|m| m.proof != 0) {
        let error = antichess_pns::extract_proof_at(&solver, &pos, &[open.mv], &options);
        assert!(
            matches!(error, Err(antichess_pns::PnsError::NotProved)),
            "{error:?}"
        );
    }
    let error = antichess_pns::extract_proof_at(&solver, &pos, &[reply], &options);
    assert!(
        matches!(error, Err(antichess_pns::PnsError::Invalid(_))),
        "{error:?}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
