//! The on-disk proof index (`antichess_proof::open_or_build_index`): it answers as the
//! proof loaded in memory does at every position of shipped proofs, and as a slow reference
//! computed by positions; a damaged, truncated or stale index is built again and never
//! trusted; a proof that does not verify (the forged one of issue 63) gets no index.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use antichess_core::{Color, Move, Position, Rules};
use antichess_proof::test_support::{forged_proof, ProverWinsEverywhere};
use antichess_proof::{
    index_path, open_or_build_index, proof_checksum, read_proof_file, verify_file, IndexSource,
    LeafOracle, LeafValue, LoadedProof, NoTablebases, PositionId, ProofError, ProofIndex,
    ReferenceOptions, VerifyOptions,
};

fn shipped(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../proofs")
        .join(name)
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "antichess-proof-index-{name}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The slow reference: the height of `pos` by positions (the engine's former walk): 0 at
/// a terminal leaf, unknown at a tablebase leaf, one more than the prover's move's or the
/// highest reply's.
fn reference_height(
    proof: &LoadedProof,
    pos: &Position,
    memo: &mut HashMap<PositionId, Option<u32>>,
) -> Option<u32> {
    let id = PositionId::of(pos);
    if let Some(&h) = memo.get(&id) {
        return h;
    }
    let hit = proof.lookup(pos)?;
    let h = match hit.kind {
        "terminal" => Some(0),
        "prover" => reference_height(proof, &pos.play(hit.proof_move?), memo).map(|h| h + 1),
        "opponent" => {
            let mut most = Some(0);
            for m in pos.legal_moves() {
                let h = reference_height(proof, &pos.play(m), memo);
                most = most.zip(h).map(|(a, b)| a.max(b));
            }
            most.map(|h| h + 1)
        }
        _ => None,
    };
    memo.insert(id, h);
    h
}

/// The slow reference of the opponent's choice: the reply whose position has the largest
/// unfolded subtree, the smallest move among equals.
fn reference_reply(proof: &LoadedProof, pos: &Position) -> Option<Move> {
    pos.legal_moves()
        .into_iter()
        .filter_map(|m| proof.lookup(&pos.play(m)).map(|h| (h.unfolded, m)))
        .max_by_key(|&(size, m)| (size, std::cmp::Reverse(m.bits())))
        .map(|(_, m)| m)
}

#[test]
fn the_index_answers_as_the_loaded_proof_at_every_position() {
    let dir = temp_dir("round-trip");
    let rules = Rules::INTERNATIONAL;
    for name in ["e3-g6.proof", "e3-Nf6.proof", "e3-a6.proof", "e3-e5.proof"] {
        let path = shipped(name);
        let (index, source) =
            open_or_build_index(&path, rules, &dir, &ProverWinsEverywhere(Color::White))
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(source, IndexSource::Built { replaced: None }, "{name}");
        let loaded = LoadedProof::load(0, &path, rules).unwrap();
        let tree = read_proof_file(&path, None, &ReferenceOptions::default()).unwrap();
        let mut memo = HashMap::new();
        let (mut internal, mut with_height) = (0, 0);
        tree.for_each_position(|_, pos, _| {
            let play = index.play(pos);
            assert_eq!(play, loaded.play(pos), "{name}: {}", pos.fen());
            let hit = loaded
                .lookup(pos)
                .expect("every position of the tree is indexed");
            match hit.kind {
                "prover" | "opponent" => {
                    internal += 1;
                    let play = play.expect("an internal position");
                    assert_eq!(play.prover_to_move, hit.kind == "prover");
                    assert_eq!(play.nodes, hit.nodes);
                    let expected = if hit.kind == "prover" {
                        hit.proof_move
                    } else {
                        reference_reply(&loaded, pos)
                    };
                    assert_eq!(Some(play.mv), expected, "{name}: {}", pos.fen());
                    let height = reference_height(&loaded, pos, &mut memo);
                    assert_eq!(play.plies_to_end, height, "{name}: {}", pos.fen());
                    with_height += usize::from(height.is_some());
                }
                _ => assert_eq!(play, None, "a leaf has no move: {}", pos.fen()),
            }
            Ok(())
        })
        .unwrap();
        assert!(internal > 0 && with_height > 0, "{name}");
        assert_eq!(index.header().positions as usize, {
            let mut n = 0;
            loaded.for_each_play(|_, _| n += 1);
            n
        });
        index.check_records().unwrap();
        // A second time: found, not built.
        let (again, source) =
            open_or_build_index(&path, rules, &dir, &NoTablebases).expect("found");
        assert_eq!(source, IndexSource::Found, "{name}");
        assert_eq!(again.play(loaded.root()), loaded.play(loaded.root()));
    }
    // Positions outside the proofs are not found.
    let (index, _) = open_or_build_index(&shipped("e3-g6.proof"), rules, &dir, &NoTablebases)
        .expect("e3-g6 has no tablebase leaf");
    assert_eq!(index.play(&Position::start(rules)), None);
}

/// Copies `name` into `dir` and builds its index; returns the proof's path and the index's.
fn built(dir: &Path, name: &str) -> (PathBuf, PathBuf) {
    let path = dir.join(name);
    std::fs::copy(shipped(name), &path).unwrap();
    let (_, source) = open_or_build_index(&path, Rules::INTERNATIONAL, dir, &NoTablebases)
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(source, IndexSource::Built { replaced: None });
    let bytes = std::fs::read(&path).unwrap();
    let index = index_path(dir, proof_checksum(&bytes), Rules::INTERNATIONAL);
    assert!(index.exists(), "{}", index.display());
    (path, index)
}

/// Builds the index of `proof` again after `damage` was done to its index file: the damaged
/// index is refused with a message containing `expected`, and the rebuilt one is whole.
fn rebuilt_after(proof: &Path, index: &Path, damage: impl FnOnce(&mut Vec<u8>), expected: &str) {
    let dir = index.parent().unwrap();
    let mut bytes = std::fs::read(index).unwrap();
    let good = bytes.clone();
    damage(&mut bytes);
    std::fs::write(index, &bytes).unwrap();
    let (rebuilt, source) =
        open_or_build_index(proof, Rules::INTERNATIONAL, dir, &NoTablebases).unwrap();
    match source {
        IndexSource::Built {
            replaced: Some(why),
        } => assert!(why.contains(expected), "{expected}: {why}"),
        other => panic!("{expected}: {other:?}"),
    }
    rebuilt.check_records().unwrap();
    assert_eq!(std::fs::read(index).unwrap(), good, "built the same again");
}

#[test]
fn a_damaged_truncated_or_stale_index_is_built_again() {
    let dir = temp_dir("damaged");
    let (proof, index) = built(&dir, "e3-Nf6.proof");
    let header_len = {
        let bytes = std::fs::read(&index).unwrap();
        u32::from_le_bytes(bytes[12..16].try_into().unwrap()) as usize
    };
    rebuilt_after(&proof, &index, |b| b.truncate(b.len() - 24), "truncated");
    rebuilt_after(&proof, &index, |b| b.truncate(40), "truncated");
    rebuilt_after(&proof, &index, |b| b.clear(), "bad magic");
    rebuilt_after(&proof, &index, |b| b[0] = b'X', "bad magic");
    rebuilt_after(&proof, &index, |b| b[8] = 2, "format version 2");
    rebuilt_after(&proof, &index, |b| b[40] ^= 1, "checksum does not match");
    rebuilt_after(&proof, &index, |b| b.push(0), "unexpected bytes");
    // Stale: the index of another proof under this one's name.
    let (_, other) = built(&dir, "e3-g6.proof");
    let good = std::fs::read(&index).unwrap();
    let theirs = std::fs::read(&other).unwrap();
    rebuilt_after(&proof, &index, |b| *b = theirs, "stale");
    assert_eq!(std::fs::read(&index).unwrap(), good);

    // Any bytes: opened or refused, never a panic; lookups in a damaged record region
    // never panic either.
    let loaded = LoadedProof::load(0, &proof, Rules::INTERNATIONAL).unwrap();
    let positions = {
        let tree = read_proof_file(&proof, None, &ReferenceOptions::default()).unwrap();
        let mut all = Vec::new();
        tree.for_each_position(|_, pos, _| {
            all.push(*pos);
            Ok(())
        })
        .unwrap();
        all
    };
    for cut in (0..good.len()).step_by(97) {
        let _ = ProofIndex::from_bytes(good[..cut].to_vec());
    }
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    for round in 0..200 {
        let mut bytes = good.clone();
        for _ in 0..8 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let at = if round % 2 == 0 {
                (seed as usize) % header_len
            } else {
                header_len + (seed as usize) % (bytes.len() - header_len)
            };
            bytes[at] ^= (seed >> 32) as u8 | 1;
        }
        if let Ok(index) = ProofIndex::from_bytes(bytes) {
            assert!(round % 2 == 1, "a damaged header was accepted");
            assert!(
                index.check_records().is_err(),
                "damaged records pass their checksum"
            );
            for pos in positions.iter().step_by(7) {
                let _ = index.play(pos);
            }
        }
    }
    assert!(loaded.play(loaded.root()).is_some());
}

/// The forged proof of issue 63 ([`forged_proof`]: the reference format's 12 bytes for
/// the start position and one prover move, 1. e3, to a "tablebase leaf" of 32 units,
/// which no table covers), written into `dir`.
fn forged(dir: &Path) -> PathBuf {
    let bytes = forged_proof();
    let path = dir.join("forged.proof");
    std::fs::write(&path, bytes).unwrap();
    path
}

#[test]
fn a_proof_that_does_not_verify_is_never_indexed() {
    let dir = temp_dir("forged");
    let path = forged(&dir);
    let index_dir = dir.join("index");
    // `proof verify` refuses it, with tables or without.
    for oracle in [&NoTablebases as &dyn LeafOracle, &OneUnit] {
        assert!(verify_file(&path, None, oracle, &VerifyOptions::default(), &mut |_| {}).is_err());
        let error = open_or_build_index(&path, Rules::INTERNATIONAL, &index_dir, oracle)
            .expect_err("the forged proof is refused");
        assert!(
            matches!(
                error,
                ProofError::NeedTablebases { .. } | ProofError::Rejected { .. }
            ),
            "{error}"
        );
    }
    assert!(
        !index_dir.exists() || std::fs::read_dir(&index_dir).unwrap().next().is_none(),
        "no index was written"
    );
    // A proof with a wrong prover move is refused too (rejected, not a missing table).
    let mut bytes = std::fs::read(shipped("e3-g6.proof")).unwrap();
    let middle = bytes.len() / 2;
    bytes[middle] ^= 0xff;
    let damaged = dir.join("damaged.proof");
    std::fs::write(&damaged, &bytes).unwrap();
    assert!(
        open_or_build_index(&damaged, Rules::INTERNATIONAL, &index_dir, &NoTablebases).is_err()
    );
    assert!(!index_dir.exists() || std::fs::read_dir(&index_dir).unwrap().next().is_none());
}

/// Tables of one unit: a tablebase leaf of 32 units is covered by none.
struct OneUnit;

impl LeafOracle for OneUnit {
    fn max_units(&self) -> u32 {
        1
    }
    fn probe(&self, _pos: &Position) -> Result<Option<LeafValue>, String> {
        Ok(None)
    }
    fn best_move(&self, _pos: &Position) -> Result<Option<Move>, String> {
        Ok(None)
    }
}

/// Timing, run by hand in a release build (`cargo test --release -p antichess-proof --test
/// integration disk_index::timing -- --ignored --nocapture`): builds the index of every
/// shipped proof into `$ANTICHESS_PROOF_INDEX` (else a temporary directory) and prints each
/// file's time. Tablebase leaves are judged by the stand-in (no probe), so that the figure
/// can be had where the 4-unit tables are not built; `antichess proof index proofs/
/// --tables DIR` gives it with the tables.
#[test]
#[ignore = "timing, by hand"]
fn timing_index_every_shipped_proof() {
    let dir =
        std::env::var_os("ANTICHESS_PROOF_INDEX").map_or_else(|| temp_dir("timing"), PathBuf::from);
    let proofs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../proofs");
    let started = std::time::Instant::now();
    let report = antichess_proof::index_proof_files(
        &[proofs],
        Rules::INTERNATIONAL,
        &dir,
        &ProverWinsEverywhere(Color::White),
        &mut |f| {
            println!(
                "{} {}: {} nodes, {} positions, {} bytes, {:.2} s",
                f.file.display(),
                f.outcome,
                f.nodes,
                f.positions,
                f.index_bytes,
                f.seconds
            );
        },
    )
    .unwrap();
    let bytes: u64 = report.iter().map(|f| f.index_bytes).sum();
    println!(
        "{} files, {} index bytes in {}, {:.1} s",
        report.len(),
        bytes,
        dir.display(),
        started.elapsed().as_secs_f64()
    );
}

/// `index_proof_files` (the job of `antichess proof index`): a directory's `*.proof` files
/// in name order, each built once and found the next time; a file that does not verify is
/// reported refused, with its reason, and the others go on.
#[test]
fn indexing_a_directory_builds_each_file_once_and_reports_the_refused() {
    let dir = temp_dir("directory");
    std::fs::copy(shipped("e3-g6.proof"), dir.join("e3-g6.proof")).unwrap();
    forged(&dir);
    std::fs::write(dir.join("notes.txt"), "not a proof").unwrap();
    let index_dir = dir.join("index");
    let run = || {
        let mut heard = Vec::new();
        let report = antichess_proof::index_proof_files(
            std::slice::from_ref(&dir),
            Rules::INTERNATIONAL,
            &index_dir,
            &NoTablebases,
            &mut |f| heard.push(f.outcome),
        )
        .unwrap();
        assert_eq!(heard, report.iter().map(|f| f.outcome).collect::<Vec<_>>());
        report
    };
    let first = run();
    let names: Vec<_> = first
        .iter()
        .map(|f| f.file.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["e3-g6.proof", "forged.proof"]);
    assert_eq!(first[0].outcome, "built");
    assert_eq!(first[0].nodes, 4534);
    assert!(first[0].index.as_ref().unwrap().exists());
    assert_eq!(first[1].outcome, "refused");
    assert!(
        first[1].error.as_ref().unwrap().contains("tablebase"),
        "{:?}",
        first[1]
    );
    let second = run();
    assert_eq!(second[0].outcome, "found");
    assert_eq!(second[0].positions, first[0].positions);
    assert_eq!(second[1].outcome, "refused");
}
