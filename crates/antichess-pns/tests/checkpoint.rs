//! Checkpoints: a search stopped by its budget, saved, loaded into a new table (of another
//! size) and resumed reaches the same proof; damaged files are clear errors.

use antichess_core::{play_move_text, Color, Position, Rules};
use antichess_pns::{
    load_checkpoint, read_checkpoint_info, save_checkpoint, CheckpointInfo, SearchOptions,
    SearchStatus, Solver,
};
use antichess_testkit::temp_dir as temp;

fn after(moves: &str) -> Position {
    *play_move_text(Position::start(Rules::INTERNATIONAL), moves)
        .unwrap()
        .position()
}

#[test]
fn a_stopped_search_resumes_from_its_checkpoint() {
    let dir = temp("resume");
    let path = dir.join("na6.ckpt");
    let pos = after("e3 Na6");
    let mut options = SearchOptions::new(Color::White);

    // The whole search, for reference.
    let full = Solver::new(64 << 20, None).search(&pos, &options, &mut |_| {});
    assert_eq!(full.status, SearchStatus::Proved);

    // A third of it, saved.
    options.max_nodes = Some(full.nodes / 3);
    let first = Solver::new(64 << 20, None);
    let part = first.search(&pos, &options, &mut |_| {});
    assert_eq!(part.status, SearchStatus::Unknown);
    let info = CheckpointInfo::for_search(&pos, Color::White, part.nodes, 1.5);
    let saved = save_checkpoint(first.table(), &info, &path).unwrap();
    assert!(saved > 1000, "{saved} entries");
    let header = read_checkpoint_info(&path).unwrap();
    assert_eq!((header.nodes, header.prover), (part.nodes, Color::White));
    header.matches(&pos, Color::White).unwrap();
    assert!(header.matches(&pos, Color::Black).is_err());
    assert!(header.matches(&after("e3 Nh6"), Color::White).is_err());

    // Loaded into a table of another size, the search goes on from there.
    let second = Solver::new(32 << 20, None);
    let loaded = load_checkpoint(second.table(), &path).unwrap();
    assert_eq!(loaded.entries, saved);
    options.max_nodes = None;
    let rest = second.search(&pos, &options, &mut |_| {});
    assert_eq!(rest.status, SearchStatus::Proved);
    assert!(
        rest.nodes < full.nodes,
        "resuming searched {} nodes, a fresh search {}",
        rest.nodes,
        full.nodes
    );

    // Damaged files.
    let bytes = std::fs::read(&path).unwrap();
    let bad = dir.join("bad.ckpt");
    for (what, damaged) in [
        ("truncated", bytes[..bytes.len() / 2].to_vec()),
        ("no trailer", bytes[..bytes.len() - 16].to_vec()),
        ("flipped byte", {
            let mut b = bytes.clone();
            let at = b.len() - 100;
            b[at] ^= 0x40;
            b
        }),
        ("not a checkpoint", b"hello world, this is not it".to_vec()),
    ] {
        std::fs::write(&bad, &damaged).unwrap();
        let table = Solver::new(1 << 20, None);
        let err = load_checkpoint(table.table(), &bad).expect_err(what);
        assert!(err.to_string().contains("bad.ckpt"), "{what}: {err}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
