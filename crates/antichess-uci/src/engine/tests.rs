//! The engine's tests: UCI sessions run through [`super::run`] into a buffer.
use super::*;
use antichess_proof::test_support::{forged_proof, ProverWinsEverywhere};
use std::io::Write;

/// A writer into a shared buffer.
#[derive(Clone, Default)]
struct Buffer(Arc<Mutex<Vec<u8>>>);
impl Write for Buffer {
    fn write(&mut self, data: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(data);
        Ok(data.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The move of the first `bestmove` line (without its `ponder` move).
fn bestmove(out: &str) -> &str {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a bestmove");
    line.split_whitespace().next().unwrap()
}

/// The `ponder` move of the first `bestmove` line, if it names one.
fn ponder(out: &str) -> Option<&str> {
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a bestmove");
    line.split_whitespace()
        .skip_while(|w| *w != "ponder")
        .nth(1)
}

fn after(fen: Option<&str>, moves: &[&str]) -> Position {
    let start = fen.map_or(Position::start(Rules::INTERNATIONAL), |f| {
        Position::from_fen(f, Rules::INTERNATIONAL).unwrap()
    });
    moves
        .iter()
        .fold(start, |p, m| p.play(p.parse_uci(m).unwrap()))
}

/// The index directory of the tests' engines (not the user's cache).
fn test_index_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| antichess_testkit::temp_dir("uci-engine-index"))
        .clone()
}

fn session(input: &str) -> String {
    let buffer = Buffer::default();
    let input = format!(
        "setoption name ProofIndex value {}\n{input}",
        test_index_dir().display()
    );
    run(input.as_bytes(), buffer.clone()).unwrap();
    let bytes = buffer.0.lock().unwrap().clone();
    String::from_utf8(bytes).unwrap()
}

#[test]
fn answers_uci_and_isready() {
    let out = session("uci\nisready\nquit\n");
    assert!(out.contains("id name antichess"), "{out}");
    assert!(out.contains("option name UCI_Variant type combo"), "{out}");
    assert!(
        out.contains("option name Ponder type check default false\n"),
        "{out}"
    );
    assert!(out.contains("uciok\n"), "{out}");
    assert!(out.contains("readyok\n"), "{out}");
}

#[test]
fn plays_a_legal_move_within_a_node_budget() {
    let out = session(
        "setoption name Proofs value <empty>\nposition startpos moves e2e3 b7b5\ngo nodes 3000\n",
    );
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .expect("a bestmove");
    assert_eq!(best, "f1b5", "the capture is forced: {out}");
}

#[test]
fn garbage_gets_an_info_string_and_the_engine_goes_on() {
    let input = "flurb\nposition fen not/a/fen w - - 0 1\nposition startpos moves e2e4 e7e5\n\
                 position startpos moves e2e3 e7e5 e1e3\ngo depth 1 sideways\n\
                 setoption name Hash value big\n\u{0}\u{7f}\u{ff}\ngo depth 2\n";
    let out = session(input);
    for expected in [
        "info string unknown command 'flurb'",
        "info string malformed FEN 'not/a/fen w - - 0 1'",
        "info string illegal move 'e1e3'",
        "unknown parameter 'sideways'",
        "option 'Hash': 'big' is not a whole number",
    ] {
        assert!(out.contains(expected), "{expected}: {out}");
    }
    // e2e4 is legal: the position is after 1. e3 e5 (e1e3 is refused), White to move.
    let best = bestmove(&out);
    let pos = ["e2e3", "e7e5"]
        .iter()
        .fold(Position::start(Rules::INTERNATIONAL), |p, m| {
            p.play(p.parse_uci(m).unwrap())
        });
    assert!(pos.is_legal(pos.parse_uci(best).unwrap()), "{best}");
}

#[test]
fn a_finished_game_answers_bestmove_0000() {
    let out = session("position fen 8/8/8/8/8/8/8/1N6 b - - 0 1\ngo movetime 10\n");
    assert!(
        out.contains("no legal move: the game is over (the side to move has won)"),
        "{out}"
    );
    assert!(out.contains("bestmove 0000"), "{out}");
}

#[test]
fn plays_the_table_move_where_tables_cover_the_position() {
    use antichess_tb::{build, BuildOptions, Material, Strategy};
    let dir = std::env::temp_dir().join(format!("antichess-uci-tables-{}", std::process::id()));
    let options = BuildOptions {
        rules: Rules::INTERNATIONAL,
        dir: dir.clone(),
        threads: 1,
        strategy: Strategy::default(),
    };
    let material: Material = "KNk".parse().unwrap();
    build(&[material], &options, &|_| {}).unwrap();
    let fen = "8/8/8/3k4/8/8/8/KN6 w - - 0 1";
    let out = session(&format!(
        "setoption name Tables value {}\nsetoption name Proofs value\nposition fen {fen}\ngo movetime 1000\n",
        dir.display()
    ));
    let tb = Tablebase::open(&dir, Rules::INTERNATIONAL).unwrap();
    let pos = Position::from_fen(fen, Rules::INTERNATIONAL).unwrap();
    let best = tb.probe_moves(&pos).unwrap()[0];
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.contains("info string tablebase: "), "{out}");
    assert!(
        out.contains(&format!("bestmove {}", best.mv.to_uci())),
        "{best:?}: {out}"
    );
}

/// The text written to `buffer` once a line starting with `prefix` is in it, waiting
/// at most `seconds`; `None` if none came.
fn wait_for(buffer: &Buffer, prefix: &str, seconds: u64) -> Option<String> {
    let until = Instant::now() + Duration::from_secs(seconds);
    while Instant::now() < until {
        let text = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
        if text.lines().any(|l| l.starts_with(prefix)) {
            return Some(text);
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    None
}

/// Issue 63: `ponderhit` was ignored, so a `go ponder` answered only after `stop`.
/// Now the search goes on as a normal one, its `go`'s time counted from `ponderhit`.
#[test]
fn ponderhit_makes_the_ponder_search_a_timed_one() {
    let buffer = Buffer::default();
    let mut engine = Engine::new(Output::new(buffer.clone()));
    for line in [
        "setoption name Proofs value <empty>",
        "position startpos moves e2e3 b7b6",
        "go ponder movetime 200",
    ] {
        assert!(engine.handle(line));
    }
    assert_eq!(wait_for(&buffer, "bestmove", 1), None, "pondering answers");
    let hit = Instant::now();
    assert!(engine.handle("ponderhit"));
    let out = wait_for(&buffer, "bestmove", 60).expect("a bestmove after ponderhit");
    // 200 ms less the overhead (50), counted from the ponderhit.
    assert!(hit.elapsed() >= Duration::from_millis(140), "{out}");
    let best = bestmove(&out);
    let pos = ["e2e3", "b7b6"]
        .iter()
        .fold(Position::start(Rules::INTERNATIONAL), |p, m| {
            p.play(p.parse_uci(m).unwrap())
        });
    assert!(pos.is_legal(pos.parse_uci(best).unwrap()), "{best}");

    // A ponder search with a depth limit answers at the ponderhit; a ponderhit with
    // no search pondering does nothing.
    buffer.0.lock().unwrap().clear();
    assert!(engine.handle("go ponder depth 2"));
    assert_eq!(wait_for(&buffer, "bestmove", 1), None, "pondering answers");
    assert!(engine.handle("ponderhit"));
    assert!(wait_for(&buffer, "bestmove", 60).is_some());
    buffer.0.lock().unwrap().clear();
    assert!(engine.handle("ponderhit"));
    assert!(engine.handle("isready"));
    let out = wait_for(&buffer, "readyok", 60).unwrap();
    assert_eq!(out, "readyok\n");
    assert!(!engine.handle("quit"));
}

/// Issue 63: `go movetime 99999999999999999999999` got an `info string` and never a
/// `bestmove`. Every `go` is answered: huge numbers are no limit in practice (the
/// search runs until `stop`), bad words are named and left out.
#[test]
fn every_go_ends_in_a_bestmove() {
    let huge = "99999999999999999999999";
    let gos = [
        format!("go movetime {huge}"),
        format!("go wtime {huge} btime {huge}"),
        format!("go wtime 1000 btime 1000 winc {huge} binc {huge}"),
        format!("go wtime 1000 btime 1000 movestogo {huge}"),
        format!("go nodes {huge}"),
        "go nodes 9223372036854775807".to_string(),
        format!("go depth {huge}"),
        format!("go mate {huge}"),
        "go movetime soon".to_string(),
        "go sideways".to_string(),
    ];
    let mut input =
        "setoption name Proofs value <empty>\nposition startpos moves e2e3\n".to_string();
    for go in &gos {
        input.push_str(go);
        input.push_str("\nstop\n");
    }
    input.push_str("go movetime 1.5 depth 1\n");
    let out = session(&input);
    let answers = out.lines().filter(|l| l.starts_with("bestmove ")).count();
    assert_eq!(answers, gos.len() + 1, "{out}");
    assert!(!out.contains("internal error"), "{out}");
    for expected in [
        "info string go: 'movetime' needs a number, got 'soon'; it is left out",
        "info string go: unknown parameter 'sideways' is left out",
        "info string go: 'movetime' needs a number, got '1.5'; it is left out",
    ] {
        assert!(out.contains(expected), "{expected}: {out}");
    }
    // With no legal move: `bestmove 0000`.
    let out = session(&format!(
        "position fen 8/8/8/8/8/8/8/1N6 b - - 0 1\ngo movetime {huge}\n"
    ));
    assert!(out.ends_with("bestmove 0000\n"), "{out}");
}

/// Issue 63: `bestmove` names the reply the engine expects (`ponder`), from a proof,
/// from the search's principal variation; none where nothing is known (the only move).
#[test]
fn bestmove_names_the_expected_reply_as_the_ponder_move() {
    // The shipped proof of 1. e3 g6: 2. Qh5, and the proof's longest resistance to it.
    let out = session("position startpos moves e2e3 g7g6\ngo movetime 2000\n");
    assert_eq!(bestmove(&out), "d1h5", "{out}");
    let reply = ponder(&out).unwrap_or_else(|| panic!("no ponder move: {out}"));
    let pos = after(None, &["e2e3", "g7g6", "d1h5"]);
    assert!(pos.is_legal(pos.parse_uci(reply).unwrap()), "{out}");
    let (mut set, _) = ProofSet::load(
        &default_proofs_path().unwrap(),
        Rules::INTERNATIONAL,
        &test_index_dir(),
    );
    // The game's path through the proof's root: e3-g6 is asked first (no other file is
    // indexed, the ten million nodes of e3-Nc6 among them).
    let path: Vec<u64> = [&[][..], &["e2e3"], &["e2e3", "g7g6"]]
        .iter()
        .map(|moves| after(None, moves).key())
        .collect();
    let expected = set.choose(&pos, &path, &|| true, &mut |_| {}).unwrap();
    assert_eq!(set.indexed(), ["e3-g6.proof"]);
    assert!(!expected.winning);
    assert_eq!(reply, expected.mv.to_uci(), "the longest resistance: {out}");
    assert!(out.contains(&format!("pv d1h5 {reply}\n")), "{out}");

    // The search: the second move of the last principal variation.
    let out = session(
        "setoption name Proofs value <empty>\nposition startpos moves e2e3 b7b6\ngo depth 3\n",
    );
    let pv = out
        .lines()
        .rfind(|l| l.starts_with("info depth"))
        .and_then(|l| l.split(" pv ").nth(1))
        .unwrap();
    let pv: Vec<&str> = pv.split_whitespace().collect();
    assert!(pv.len() >= 2, "{out}");
    assert_eq!(
        (bestmove(&out), ponder(&out)),
        (pv[0], Some(pv[1])),
        "{out}"
    );
    let pos = after(None, &["e2e3", "b7b6", pv[0]]);
    assert!(pos.is_legal(pos.parse_uci(pv[1]).unwrap()), "{out}");

    // The only legal move: no reply is known.
    let out = session(
        "setoption name Proofs value <empty>\nposition startpos moves e2e3 b7b5\ngo depth 3\n",
    );
    assert!(out.contains("bestmove f1b5\n"), "{out}");
}

/// The position after 12... Qxa2 of a game of the engine against itself from 1. e3 g6:
/// df-pn proves White's win in a few thousand nodes (mate in 7 by its proof).
const PROVED_IN_SEVEN: &str = "rnbqkbnr/pppppp1p/8/3P4/4P3/N3B3/q7/R7 w - - 0 13";

/// Issue 63: a win df-pn proves is followed on the next moves: its proof is extracted,
/// verified and kept, and the next moves come from it even when the search's budget
/// could not prove it again; `ucinewgame` forgets it.
#[test]
fn a_win_the_search_proves_is_kept_for_the_next_moves() {
    let buffer = Buffer::default();
    let mut engine = Engine::new(Output::new(buffer.clone()));
    let fen = PROVED_IN_SEVEN;
    for line in [
        "setoption name Proofs value <empty>",
        &format!("position fen {fen}"),
        "go nodes 20000",
    ] {
        assert!(engine.handle(line));
    }
    let out = wait_for(&buffer, "bestmove", 120).expect("a bestmove");
    assert!(
        out.contains("verified and kept for the next moves"),
        "{out}"
    );
    let mate = |out: &str| -> u32 {
        let score = out.split("score mate ").nth(1).expect("a mate score");
        score.split_whitespace().next().unwrap().parse().unwrap()
    };
    let first = mate(&out);
    let (ours, reply) = (
        bestmove(&out).to_string(),
        ponder(&out).expect("a reply").to_string(),
    );
    let mut moves = vec![ours, reply];
    // 40 nodes: 10 for df-pn, which proves nothing this deep; the kept proof answers.
    for _ in 0..2 {
        buffer.0.lock().unwrap().clear();
        assert!(engine.handle(&format!("position fen {fen} moves {}", moves.join(" "))));
        assert!(engine.handle("go nodes 40"));
        let out = wait_for(&buffer, "bestmove", 60).expect("a bestmove");
        assert!(
            out.contains("info string proof found at move 13: the prover's move"),
            "{out}"
        );
        assert!(mate(&out) < first, "{out}");
        let pos = after(
            Some(fen),
            &moves.iter().map(String::as_str).collect::<Vec<_>>(),
        );
        let m = bestmove(&out);
        assert!(pos.is_legal(pos.parse_uci(m).unwrap()), "{out}");
        let next = pos.play(pos.parse_uci(m).unwrap());
        if next.legal_moves().is_empty() {
            break;
        }
        moves.push(m.to_string());
        moves.push(ponder(&out).expect("a reply").to_string());
    }
    // Another game: forgotten (df-pn, whose node limit is checked now and then, may
    // prove the position again: a proof of its own, found at move 14).
    buffer.0.lock().unwrap().clear();
    assert!(engine.handle("ucinewgame"));
    assert!(engine.handle(&format!(
        "position fen {fen} moves {} {}",
        moves[0], moves[1]
    )));
    assert!(engine.handle("go nodes 40"));
    let out = wait_for(&buffer, "bestmove", 60).expect("a bestmove");
    assert!(!out.contains("proof found at move 13"), "{out}");
    assert!(!engine.handle("quit"));
}

/// Issue 63: `MultiPV` N gives the N best root moves, each on its own `info multipv K`
/// line: a proved win first (`score mate`), then the search's best by score.
#[test]
fn multipv_reports_the_best_root_moves() {
    let out = session(
        "uci\nsetoption name Proofs value <empty>\nsetoption name MultiPV value 3\n\
         position startpos moves e2e3 b7b6\ngo depth 3\n",
    );
    assert!(
        out.contains("option name MultiPV type spin default 1 min 1 max 256\n"),
        "{out}"
    );
    let last_depth: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info depth 3 "))
        .collect();
    assert_eq!(last_depth.len(), 3, "{out}");
    let mut firsts = Vec::new();
    let mut scores = Vec::new();
    for (k, line) in last_depth.iter().enumerate() {
        assert!(
            line.contains(&format!(" multipv {} score cp ", k + 1)),
            "{line}"
        );
        let score: i32 = line
            .split("score cp ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap();
        scores.push(score);
        firsts.push(
            line.split(" pv ")
                .nth(1)
                .unwrap()
                .split(' ')
                .next()
                .unwrap(),
        );
    }
    assert!(scores.windows(2).all(|w| w[0] >= w[1]), "{out}");
    firsts.dedup();
    assert_eq!(firsts.len(), 3, "three different moves: {out}");
    assert_eq!(bestmove(&out), firsts[0], "{out}");

    // A proved win first, then the search's lines.
    let out = session(&format!(
        "setoption name Proofs value <empty>\nsetoption name MultiPV value 2\n\
         position fen {PROVED_IN_SEVEN}\ngo nodes 20000\n"
    ));
    let first = out
        .lines()
        .find(|l| l.contains(" multipv 1 "))
        .expect("a first line");
    assert!(first.contains("score mate "), "{out}");
    assert!(
        out.lines().any(|l| l.contains(" multipv 2 score cp ")),
        "{out}"
    );
    assert!(!out.lines().any(|l| l.contains(" multipv 3 ")), "{out}");
    let win = first
        .split(" pv ")
        .nth(1)
        .unwrap()
        .split(' ')
        .next()
        .unwrap();
    assert_eq!(bestmove(&out), win, "{out}");
}

/// Issue 63: with a proof's index present, a fresh engine plays the proof's move from
/// it: `go depth 1` after 1. e3 f5 answers the shipped proof's move, the index opened
/// (not built: the engine has no tables to verify a proof with tablebase leaves). A
/// small proof keeps the test quick; the index is the same for the large ones.
#[test]
fn with_its_index_present_a_proof_answers_go_depth_1() {
    let index = antichess_testkit::temp_dir("uci-index-present");
    let proofs = default_proofs_path().unwrap();
    let (built, _) = antichess_proof::open_or_build_index(
        &proofs.join("e3-f5.proof"),
        Rules::INTERNATIONAL,
        &index,
        &ProverWinsEverywhere(Color::White),
    )
    .unwrap();
    let root = after(None, &["e2e3", "f7f5"]);
    let expected = built.play(&root).unwrap().mv.to_uci();
    assert!(root.parse_uci(&expected).is_ok(), "{expected}");
    let buffer = Buffer::default();
    let input = format!(
        "setoption name ProofIndex value {}\nsetoption name Proofs value {}\n\
         position startpos moves e2e3 f7f5\ngo depth 1\n",
        index.display(),
        proofs.display()
    );
    run(input.as_bytes(), buffer.clone()).unwrap();
    let out = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    assert_eq!(bestmove(&out), expected, "{out}");
    assert!(
        out.contains("proof e3-f5.proof: indexed (its index opened)"),
        "{out}"
    );
    assert!(
        !out.contains("e3-Nc6.proof: indexed"),
        "no other file: {out}"
    );
}

/// Issue 63: the forged proof (12 bytes of the reference format: 1. e3 to a fake
/// tablebase leaf) is refused with a message naming it, and not believed.
#[test]
fn a_forged_proof_is_refused_by_the_engine() {
    let dir = antichess_testkit::temp_dir("uci-engine-forged");
    std::fs::write(dir.join("forged.proof"), forged_proof()).unwrap();
    let out = session(&format!(
        "setoption name Proofs value {}\nposition startpos\ngo depth 1\n",
        dir.display()
    ));
    assert!(
        out.contains("forged.proof: not used, it did not verify"),
        "{out}"
    );
    assert!(
        !out.contains("score cp 20000") && !out.contains("score mate"),
        "{out}"
    );
}

/// Timing, run by hand (`ANTICHESS_PROOF_INDEX=DIR cargo test -p antichess-uci
/// timing_fresh_engine -- --ignored --nocapture`, DIR holding the indexes of the shipped
/// proofs, e.g. from `antichess proof index proofs/`): a fresh engine, `position startpos
/// moves e2e3 c7c5` then `go depth 1` (1. e3 c5 is proved by no shipped proof, but may
/// follow from the roots of e3-Na6, -Nc6, -Nf6 and -Nh6, which are all opened); prints the
/// time from the `position` command to `bestmove`.
#[test]
#[ignore = "timing, by hand"]
fn timing_fresh_engine_go_depth_1_after_e3_c5() {
    let Some(index) = std::env::var_os("ANTICHESS_PROOF_INDEX") else {
        return;
    };
    let proofs = default_proofs_path().unwrap();
    let buffer = Buffer::default();
    let mut engine = Engine::new(Output::new(buffer.clone()));
    engine.handle(&format!(
        "setoption name ProofIndex value {}",
        PathBuf::from(index).display()
    ));
    engine.handle(&format!("setoption name Proofs value {}", proofs.display()));
    let started = Instant::now();
    engine.handle("position startpos moves e2e3 c7c5");
    engine.handle("go depth 1");
    engine.finish_search();
    let elapsed = started.elapsed();
    let out = String::from_utf8(buffer.0.lock().unwrap().clone()).unwrap();
    println!(
        "{out}position to bestmove: {:.1} ms",
        elapsed.as_secs_f64() * 1e3
    );
    assert!(out.contains("bestmove "), "{out}");
}
