//! End-to-end tests of `antichess proof verify / stats / convert` on proofs written by the
//! test (a small brute-force prover), with the exit codes 0 (verified), 1 (rejected) and
//! 2 (usage, I/O, missing tables).

use crate::common::{antichess, text};

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use antichess_core::{Color, Outcome, Position, Rules};
use antichess_proof::{
    build_proof, encode_compact, units, write_atomic, PositionId, ProofSource, ProofTree,
    ProverChoice,
};
use antichess_testkit::temp_dir;

/// Runs the binary and asserts that it succeeded.
fn succeeds(args: &[&str]) -> Output {
    let out = antichess(args);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    out
}

/// Runs `proof verify --json` on `path`, which must pass; returns its node count.
fn verified_nodes(path: &Path) -> u64 {
    let out = succeeds(&["proof", "verify", path_str(path), "--json"]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    stats["counts"]["total"].as_u64().unwrap()
}

/// Exhaustive search to a small depth; positions of at most `tablebase_units` units become
/// tablebase leaves.
struct Brute {
    prover: Color,
    memo: HashMap<(PositionId, u32), bool>,
    tablebase_units: u32,
}

impl Brute {
    fn wins(&mut self, pos: &Position, depth: u32) -> bool {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.no_move_outcome() == Outcome::Win(self.prover);
        }
        if depth == 0 {
            return false;
        }
        if let Some(&v) = self.memo.get(&(PositionId::of(pos), depth)) {
            return v;
        }
        let v = if pos.turn() == self.prover {
            moves.iter().any(|&m| self.wins(&pos.play(m), depth - 1))
        } else {
            moves.iter().all(|&m| self.wins(&pos.play(m), depth - 1))
        };
        self.memo.insert((PositionId::of(pos), depth), v);
        v
    }
}

impl ProofSource for Brute {
    fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
        if units(pos) <= self.tablebase_units {
            return Ok(ProverChoice::TablebaseLeaf);
        }
        let d = (0..12).find(|&d| self.wins(pos, d)).ok_or("not won")?;
        pos.legal_moves()
            .into_iter()
            .find(|&m| self.wins(&pos.play(m), d - 1))
            .map(ProverChoice::Play)
            .ok_or_else(|| "no move".to_string())
    }

    fn opponent_leaf(&mut self, pos: &Position) -> Result<bool, String> {
        Ok(units(pos) <= self.tablebase_units)
    }
}

const FEN: &str = "8/1p2p1p1/8/8/8/8/3K4/8 w - - 0 1";

fn proof(tablebase_units: u32) -> ProofTree {
    let root = Position::from_fen(FEN, Rules::INTERNATIONAL).unwrap();
    let mut source = Brute {
        prover: Color::White,
        memo: HashMap::new(),
        tablebase_units,
    };
    build_proof(root, Color::White, &mut source).unwrap()
}

/// A fresh temporary directory `name` holding the test's proof (`proof(0)`) as
/// `p.proof`: the directory, the proof and the file.
fn proof_file(name: &str) -> (PathBuf, ProofTree, PathBuf) {
    let dir = temp_dir(name);
    let tree = proof(0);
    let input = dir.join("p.proof");
    write_atomic(&input, &encode_compact(&tree).unwrap()).unwrap();
    (dir, tree, input)
}

fn path_str(path: &Path) -> &str {
    path.to_str().unwrap()
}

/// Writes `tree` with its first reference turned into one to the root (an ancestor) as
/// `dir/wrong.proof`; returns the path and the node changed.
fn write_ancestor_reference(tree: &ProofTree, dir: &Path) -> (PathBuf, usize) {
    let mut wrong = tree.clone();
    let r = wrong
        .nodes()
        .iter()
        .position(|n| matches!(n.kind, antichess_proof::NodeKind::Reference { .. }))
        .unwrap();
    wrong.nodes_mut()[r].kind = antichess_proof::NodeKind::Reference { target: 0 };
    let bad = dir.join("wrong.proof");
    write_atomic(&bad, &encode_compact(&wrong).unwrap()).unwrap();
    (bad, r)
}

#[test]
fn verify_stats_convert() {
    let dir = temp_dir("ok");
    let tree = proof(0);
    let ours = dir.join("p.proof");
    write_atomic(&ours, &encode_compact(&tree).unwrap()).unwrap();

    let out = succeeds(&["proof", "verify", path_str(&ours)]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with("verified: white wins from 8/1p2p1p1"),
        "{}",
        text(&out)
    );
    assert!(
        stdout.contains(&format!("nodes:             {}", tree.len())),
        "{}",
        text(&out)
    );

    let out = succeeds(&["proof", "stats", path_str(&ours), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(json["counts"]["total"], tree.len() as u64);
    assert_eq!(json["counts"]["references"], tree.counts().references);
    assert_eq!(json["root_moves"].as_array().unwrap().len(), 1);

    // --format json (the convention of every command) says the same as the hidden --json.
    let out = succeeds(&["proof", "stats", path_str(&ours), "--format", "json"]);
    let same: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(same, json);
    let out = succeeds(&["proof", "verify", path_str(&ours), "--format", "json"]);
    let verified: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(verified["verified"], true, "{}", text(&out));
    assert_eq!(verified["counts"]["total"], tree.len() as u64);
    assert_eq!(verified["root_fen"], json["root_fen"]);
    // --format names the output, not the proof file's format (that is --proof-format).
    let out = antichess(&["proof", "stats", path_str(&ours), "--format", "ours"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("give it with --proof-format"),
        "{}",
        text(&out)
    );
    let out = succeeds(&[
        "proof",
        "stats",
        path_str(&ours),
        "--proof-format",
        "compact",
        "--format",
        "json",
    ]);
    let same: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(same, json);

    let out = antichess(&["proof", "stats", path_str(&ours)]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bytes/node"),
        "{}",
        text(&out)
    );

    // To the reference format and back.
    let theirs = dir.join("p.ref");
    let out = succeeds(&[
        "proof",
        "convert",
        path_str(&ours),
        path_str(&theirs),
        "--to",
        "reference",
    ]);
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--fen"),
        "{}",
        text(&out)
    );
    assert_eq!(
        std::fs::metadata(&theirs).unwrap().len(),
        6 * tree.len() as u64
    );
    let out = succeeds(&["proof", "verify", path_str(&theirs), "--fen", FEN]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("reference format"),
        "{}",
        text(&out)
    );
    let back = dir.join("back.proof");
    succeeds(&[
        "proof",
        "convert",
        path_str(&theirs),
        path_str(&back),
        "--to",
        "ours",
        "--fen",
        FEN,
    ]);
    assert_eq!(std::fs::read(&back).unwrap(), std::fs::read(&ours).unwrap());
    // Without --fen the reference file's root is the start position: rejected.
    let out = antichess(&[
        "proof",
        "verify",
        path_str(&theirs),
        "--proof-format",
        "reference",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).starts_with("rejected: node "),
        "{}",
        text(&out)
    );
    // In JSON the rejection is an object too.
    let out = antichess(&[
        "proof",
        "verify",
        path_str(&theirs),
        "--proof-format",
        "reference",
        "--format",
        "json",
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let rejected: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(rejected["verified"], false);
    assert!(
        rejected["error"].as_str().unwrap().starts_with("node "),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn rejections_and_errors() {
    let dir = temp_dir("bad");
    let tree = proof(0);
    let good = encode_compact(&tree).unwrap();
    // A flipped byte.
    let mut bytes = good.clone();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x01;
    let damaged = dir.join("damaged.proof");
    write_atomic(&damaged, &bytes).unwrap();
    let out = antichess(&["proof", "verify", path_str(&damaged)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("checksum mismatch"),
        "{}",
        text(&out)
    );
    // A wrong proof: a reference to an ancestor.
    let (bad, r) = write_ancestor_reference(&tree, &dir);
    let out = antichess(&["proof", "verify", path_str(&bad)]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.starts_with(&format!("rejected: node {r} (1. K")),
        "{}",
        text(&out)
    );
    // Missing file, bad arguments: exit 2.
    let out = antichess(&["proof", "verify", path_str(&dir.join("missing.proof"))]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let out = antichess(&[
        "proof",
        "convert",
        path_str(&bad),
        path_str(&dir.join("x")),
        "--to",
        "nonsense",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    // Tablebase leaves without tables: exit 2 with a clear message.
    let tb = dir.join("tb.proof");
    write_atomic(&tb, &encode_compact(&proof(3)).unwrap()).unwrap();
    let out = antichess(&["proof", "verify", path_str(&tb), "--tables", path_str(&dir)]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stderr)
            .contains("tablebase leaves cannot be checked without tables"),
        "{}",
        text(&out)
    );
    // Stats still work on it.
    let out = succeeds(&["proof", "stats", path_str(&tb)]);
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("tablebase units:   3"),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn minimize_merges_other_proofs() {
    let (dir, _, input) = proof_file("merge");
    let minimize = |args: &[&str]| {
        let mut all = vec!["proof", "minimize", "--tb-units", "0", "--hash", "16M"];
        all.extend_from_slice(args);
        antichess(&all)
    };
    let small = dir.join("small.proof");
    // (A budget in positions searched, not time: the same run on every machine.)
    let out = minimize(&[path_str(&input), "-o", path_str(&small), "--nodes", "2M"]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    // No time at all: only the pool's starts and local passes, which take the merged
    // proof's moves.
    let merged = dir.join("merged.proof");
    let out = minimize(&[
        path_str(&input),
        "--merge",
        path_str(&small),
        "-o",
        path_str(&merged),
        "--time",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(text(&out).contains("(merged: "), "{}", text(&out));
    assert!(verified_nodes(&merged) <= verified_nodes(&small));
    // A file to merge in the reference format is detected as such, even when --proof-format
    // names the input's; its root comes from --fen like the input's would.
    let theirs = dir.join("small.ref");
    succeeds(&[
        "proof",
        "convert",
        path_str(&small),
        path_str(&theirs),
        "--to",
        "reference",
    ]);
    let mixed = dir.join("mixed.proof");
    let out = minimize(&[
        path_str(&input),
        "--proof-format",
        "ours",
        "--merge",
        path_str(&theirs),
        "--fen",
        FEN,
        "-o",
        path_str(&mixed),
        "--time",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    assert!(verified_nodes(&mixed) <= verified_nodes(&small));
    // A truncated file to merge is named, and nothing is written.
    let bytes = std::fs::read(&small).unwrap();
    let truncated = dir.join("truncated.proof");
    std::fs::write(&truncated, &bytes[..bytes.len() - 3]).unwrap();
    let none = dir.join("none.proof");
    let out = minimize(&[
        path_str(&input),
        "--merge",
        path_str(&truncated),
        "-o",
        path_str(&none),
        "--time",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("truncated.proof"), "{}", text(&out));
    assert!(!none.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn minimize_writes_a_verified_proof_no_larger() {
    let (dir, tree, input) = proof_file("minimize");
    let output = dir.join("m.proof");
    let out = succeeds(&[
        "proof",
        "minimize",
        path_str(&input),
        "--output",
        path_str(&output),
        "--nodes",
        "4M",
        "--tb-units",
        "0",
        "--hash",
        "16M",
        "--top-nodes",
        "2",
        "--top-budget",
        "100000",
        "--top-time",
        "10m",
    ]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains("(verified)"), "{}", text(&out));
    // The top alternatives' budget and time mean nothing without --top-nodes.
    let out = antichess(&[
        "proof",
        "minimize",
        path_str(&input),
        "-o",
        path_str(&dir.join("x.proof")),
        "--top-budget",
        "100000",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--top-nodes"), "{}", text(&out));
    assert!(!dir.join("x.proof").exists());
    // The exact searches ran by default and are off with --exact-nodes 0.
    assert!(!stdout.contains(" 0 exact searches"), "{stdout}");
    let with_exact_nodes = |n: &str, budget: [&str; 2]| {
        let out = succeeds(&[
            "proof",
            "minimize",
            path_str(&input),
            "-o",
            path_str(&dir.join("x.proof")),
            budget[0],
            budget[1],
            "--tb-units",
            "0",
            "--hash",
            "16M",
            "--exact-nodes",
            n,
        ]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    let off = with_exact_nodes("0", ["--nodes", "2M"]);
    assert!(
        off.contains(" 0 exact searches in ")
            && off.contains(" s with 0 positions found 0 smaller;"),
        "{off}"
    );
    // With one position each, the exact searches give up, and the report says so.
    let starved = with_exact_nodes("1", ["--nodes", "2M"]);
    assert!(
        starved.contains(" gave up (the smallest at a move freeing "),
        "{starved}"
    );
    // With no time no node is searched, and the report says how many were left.
    let no_time = with_exact_nodes("1000000", ["--time", "0"]);
    assert!(
        no_time.contains(" 0 exact searches in ")
            && no_time.contains(" s with 0 positions found 0 smaller, ")
            && no_time.contains(" prover nodes not searched in time;"),
        "{no_time}"
    );
    let nodes = verified_nodes(&output);
    assert!(nodes <= tree.len() as u64, "{nodes} > {}", tree.len());
    assert!(
        stdout.contains(&format!("{} -> {nodes} nodes", tree.len())),
        "{}",
        text(&out)
    );
    // With 3-unit tables the positions the input expands after the first capture become
    // tablebase leaves: smaller, and still verified (with the tables).
    let tables = dir.join("tables");
    let with_tables = dir.join("t.proof");
    succeeds(&[
        "proof",
        "minimize",
        path_str(&input),
        "-o",
        path_str(&with_tables),
        "--nodes",
        "4M",
        "--tables",
        path_str(&tables),
        "--tb-units",
        "3",
    ]);
    let out = succeeds(&[
        "proof",
        "verify",
        path_str(&with_tables),
        "--tables",
        path_str(&tables),
        "--json",
    ]);
    let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(
        stats["counts"]["tablebase"].as_u64().unwrap() > 0,
        "{}",
        text(&out)
    );
    assert!(
        stats["counts"]["total"].as_u64().unwrap() < nodes,
        "{}",
        text(&out)
    );
    // A wrong proof (a reference to an ancestor) is refused with the reason, and nothing
    // is written.
    let (bad, r) = write_ancestor_reference(&tree, &dir);
    let refused = dir.join("refused.proof");
    let out = antichess(&[
        "proof",
        "minimize",
        path_str(&bad),
        "-o",
        path_str(&refused),
        "--tb-units",
        "0",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("wrong.proof") && stderr.contains(&format!("node {r}")),
        "{}",
        text(&out)
    );
    assert!(!refused.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `proof minimize --global`: with the `mip` feature the global phase runs and says what it
/// did; without it the option is refused with the way to get it, and nothing is written.
#[test]
fn minimize_global_phase() {
    let (dir, tree, input) = proof_file("global");
    let output = dir.join("g.proof");
    let args = [
        "proof",
        "minimize",
        path_str(&input),
        "-o",
        path_str(&output),
        // (The passes within a budget in positions searched; the integer program's root
        // has no such bound in HiGHS, so the global phase keeps its time.)
        "--nodes",
        "1M",
        "--global",
        "10s",
        "--global-slack",
        "4",
        "--tb-units",
        "0",
        "--hash",
        "16M",
    ];
    if cfg!(feature = "mip") {
        let out = succeeds(&args);
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("; global phase: ")
                && stdout.contains(" integer programs in ")
                && (stdout.contains("optimal over the pool")
                    || stdout.contains("stopped by its time limit or Ctrl-C"))
                && stdout.contains("(verified)"),
            "{}",
            text(&out)
        );
        let nodes = verified_nodes(&output);
        assert!(nodes <= tree.len() as u64, "{nodes} > {}", tree.len());
        // A bound it reports is a lower bound on the proof written.
        if let Some(bound) = stdout
            .split("no proof from the pool has fewer than ")
            .nth(1)
            .and_then(|rest| rest.split(' ').next())
            .and_then(|n| n.parse::<u64>().ok())
        {
            assert!(bound <= nodes, "{bound} > {nodes}");
        } else {
            assert!(stdout.contains("before a lower bound"), "{stdout}");
        }
    } else {
        let out = antichess(&args);
        assert_eq!(out.status.code(), Some(2), "{}", text(&out));
        assert!(text(&out).contains("--features mip"), "{}", text(&out));
        assert!(!output.exists());
    }
    // The slack means nothing without --global.
    let out = antichess(&[
        "proof",
        "minimize",
        path_str(&input),
        "-o",
        path_str(&output),
        "--global-slack",
        "4",
    ]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--global"), "{}", text(&out));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The proofs shipped in `proofs/` verify, with the node counts `proofs/README.md` gives.
#[test]
fn the_shipped_proofs_verify() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs");
    let shipped: &[(&str, u64)] = &[("e3-g6.proof", 4534)];
    for &(file, nodes) in shipped {
        let out = succeeds(&["proof", "verify", path_str(&dir.join(file)), "--json"]);
        let stats: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(stats["counts"]["total"].as_u64(), Some(nodes), "{file}");
        assert_eq!(stats["prover"], "white", "{file}");
    }
}

/// Runs the binary with `args`, sends it SIGINT (Ctrl-C) after `after`, and waits for it to
/// end. The runs given are set times far beyond the test's, so that only the interrupt
/// ends them: a run still going five minutes after it fails the test.
#[cfg(unix)]
fn interrupted(args: &[&str], after: std::time::Duration) -> Output {
    use std::process::Stdio;
    use std::time::{Duration, Instant};
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    std::thread::sleep(after);
    let sent = Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(sent.success(), "kill -INT failed");
    let waited = Instant::now();
    while child.try_wait().expect("waits").is_none() {
        if waited.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!(
                "`antichess {}` still runs 5 minutes after Ctrl-C",
                args.join(" ")
            );
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.wait_with_output().expect("output")
}

/// Ctrl-C ends `proof minimize` early, here in its global phase's integer program (the
/// library's tests interrupt the passes): the smallest proof found so far is verified and
/// written.
#[cfg(unix)]
#[test]
fn minimize_ctrl_c_writes_the_proof_so_far() {
    use std::time::Duration;
    if !cfg!(feature = "mip") {
        return;
    }
    let (dir, tree, input) = proof_file("ctrl-c");
    let output = dir.join("global.proof");
    // The passes over this pool and the other moves' searches end within a second; its
    // program does not finish within an hour (see `minimize_global_phase`), so the
    // interrupt finds it running.
    let out = interrupted(
        &[
            "proof",
            "minimize",
            path_str(&input),
            "-o",
            path_str(&output),
            "--time",
            "1s",
            "--global",
            "1h",
            "--global-slack",
            "4",
            "--tb-units",
            "0",
            "--hash",
            "16M",
        ],
        Duration::from_secs(5),
    );
    assert_eq!(out.status.code(), Some(0), "{}", text(&out));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("interrupted after ")
            && stdout.contains("1 integer programs in ")
            && stdout.contains("(verified)"),
        "{}",
        text(&out)
    );
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("interrupted: finishing"),
        "{}",
        text(&out)
    );
    let nodes = verified_nodes(&output);
    assert!(nodes <= tree.len() as u64, "{nodes} > {}", tree.len());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `proof minimize --save-every` saves the smallest proof so far to the output as it goes:
/// killed outright (SIGKILL) after a save, the output holds a verified proof smaller than
/// the input, and a second run goes on from it.
/// Runs `antichess args` reading its stderr, and kills it (SIGKILL) once it has said
/// "saved the proof so far (N nodes) to ..." `saves` times (each within 5 minutes);
/// returns the N of each save.
fn killed_after_saves(args: &[&str], saves: usize) -> Vec<u64> {
    use std::io::{BufRead, BufReader};
    use std::process::Stdio;
    use std::time::Duration;
    let mut child = Command::new(env!("CARGO_BIN_EXE_antichess"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("runs");
    let stderr = child.stderr.take().unwrap();
    let (send, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stderr).lines().map_while(Result::ok) {
            if send.send(line).is_err() {
                break;
            }
        }
    });
    let mut seen = Vec::new();
    let mut sizes = Vec::new();
    while sizes.len() < saves {
        match lines.recv_timeout(Duration::from_secs(300)) {
            Ok(line) => {
                if let Some(rest) = line.strip_prefix("saved the proof so far (") {
                    let n = rest.split(' ').next().unwrap();
                    sizes.push(n.parse().unwrap_or_else(|_| panic!("size in {line:?}")));
                }
                seen.push(line);
            }
            Err(e) => {
                let _ = child.kill();
                panic!(
                    "{} saves of {saves} in time ({e}); stderr: {seen:?}",
                    sizes.len()
                );
            }
        }
    }
    child.kill().unwrap();
    child.wait().unwrap();
    sizes
}

#[test]
fn minimize_saves_the_proof_as_it_goes() {
    let dir = temp_dir("save-every");
    let input = dir.join("na6.proof");
    succeeds(&[
        "solve",
        "--moves",
        "e3 Na6",
        "--tb-units",
        "0",
        "--hash",
        "64M",
        "--proof",
        path_str(&input),
    ]);
    let first = verified_nodes(&input);
    let output = dir.join("saved.proof");
    let saves = killed_after_saves(
        &[
            "proof",
            "minimize",
            path_str(&input),
            "-o",
            path_str(&output),
            "--time",
            "1h",
            // No exact searches: the local passes make their first smaller proof within
            // seconds (the exact pass first takes minutes of a debug build).
            "--exact-nodes",
            "0",
            "--save-every",
            "1s",
            "--tb-units",
            "0",
            "--hash",
            "64M",
        ],
        1,
    );
    // (A save may have finished between the line and the kill: only smaller ones are made.)
    let saved = verified_nodes(&output);
    assert!(
        saved <= saves[0] && saves[0] < first,
        "{saved}, {saves:?}, {first}"
    );
    // Going on from the saved proof.
    let again = dir.join("again.proof");
    succeeds(&[
        "proof",
        "minimize",
        path_str(&output),
        "-o",
        path_str(&again),
        "--nodes",
        "1M",
        "--tb-units",
        "0",
        "--hash",
        "64M",
    ]);
    assert!(verified_nodes(&again) <= saved);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn solve_minimize_saves_the_proof_as_it_goes() {
    // The proof as found is saved before the minimisation starts, then smaller ones; a
    // solve killed outright keeps the last.
    let dir = temp_dir("solve-save-every");
    let output = dir.join("na6.proof");
    let saves = killed_after_saves(
        &[
            "solve",
            "--moves",
            "e3 Na6",
            "--tb-units",
            "0",
            "--hash",
            "64M",
            "--proof",
            path_str(&output),
            "--minimize",
            "1h",
            "--save-every",
            "1s",
        ],
        2,
    );
    assert!(saves[1] < saves[0], "{saves:?}");
    assert!(verified_nodes(&output) <= saves[1], "{saves:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `proof index`: a verified proof gets its index (built, then found on the next call);
/// a damaged index is replaced, naming what was wrong; a file that does not verify gets
/// none and the command exits 1 naming it; a directory is indexed file by file.
#[test]
fn index_builds_keeps_replaces_and_refuses() {
    let dir = temp_dir("proof-cli-index");
    let index = dir.join("index");
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs/e3-d5.proof");
    let proofs = dir.join("proofs");
    std::fs::create_dir_all(&proofs).unwrap();
    let d5 = proofs.join("e3-d5.proof");
    std::fs::copy(&shipped, &d5).unwrap();
    let index_json = |args: &[&str]| -> (Option<i32>, serde_json::Value) {
        let mut all = vec!["proof", "index"];
        all.extend_from_slice(args);
        all.extend_from_slice(&["--index-dir", path_str(&index), "--format", "json"]);
        let out = antichess(&all);
        let report =
            serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", text(&out)));
        (out.status.code(), report)
    };
    let (code, report) = index_json(&[path_str(&d5)]);
    assert_eq!(code, Some(0), "{report}");
    assert_eq!(report[0]["outcome"], "built", "{report}");
    assert_eq!(report[0]["nodes"], 33);
    let file = PathBuf::from(report[0]["index"].as_str().unwrap());
    assert!(file.starts_with(&index) && file.exists(), "{report}");
    let (_, report) = index_json(&[path_str(&d5)]);
    assert_eq!(report[0]["outcome"], "found", "{report}");

    // A damaged index is replaced.
    let bytes = std::fs::read(&file).unwrap();
    std::fs::write(&file, &bytes[..bytes.len() / 2]).unwrap();
    let (code, report) = index_json(&[path_str(&d5)]);
    assert_eq!(code, Some(0));
    assert_eq!(report[0]["outcome"], "built", "{report}");
    assert!(
        report[0]["replaced"]
            .as_str()
            .unwrap()
            .contains("proof index"),
        "{report}"
    );
    assert_eq!(std::fs::read(&file).unwrap(), bytes);

    // A file that does not verify: no index, exit 1, named; the good one still found.
    let bad = proofs.join("bad.proof");
    let mut forged = std::fs::read(&d5).unwrap();
    let last = forged.len() - 1;
    forged[last] ^= 0x5a;
    std::fs::write(&bad, &forged).unwrap();
    let before = std::fs::read_dir(&index).unwrap().count();
    let (code, report) = index_json(&[path_str(&proofs)]);
    assert_eq!(code, Some(1), "{report}");
    let outcomes: HashMap<String, String> = report
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let name = Path::new(r["file"].as_str().unwrap()).file_name().unwrap();
            (
                name.to_string_lossy().into_owned(),
                r["outcome"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    assert_eq!(outcomes["e3-d5.proof"], "found", "{report}");
    assert_eq!(outcomes["bad.proof"], "refused", "{report}");
    assert_eq!(std::fs::read_dir(&index).unwrap().count(), before);
    let out = antichess(&[
        "proof",
        "index",
        path_str(&bad),
        "--index-dir",
        path_str(&index),
    ]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out));
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("bad.proof: not indexed"),
        "{}",
        text(&out)
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
