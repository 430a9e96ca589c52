//! The proofs the engine plays from: loading the `Proofs` option (one proof file, or every
//! `*.proof` file of a directory), finding where they are by default, and the move a proof
//! gives in a position.
//!
//! The proofs are indexed by position with `antichess_proof::LoadedProof` (the web
//! explorer's index too: positions identified by board, side to move and en passant, so that
//! other move orders are found too). In a position of a proof:
//!
//! - where the prover is to move, the engine plays the proof's move;
//! - where the opponent is to move, it plays the reply whose subtree in the proof is the
//!   largest (references unfolded): the longest resistance.
//!
//! **Distance.** The proof also bounds how long the game lasts: following it, the prover
//! wins within the height of the proof's subtree (the longest line to a leaf). When every
//! leaf below is a game end (no tablebase leaf), that height in moves is reported as
//! `score mate N`: a proved bound ("wins in at most N moves"), which may exceed the shortest
//! win. Heights are computed on demand and remembered; a subtree larger than
//! [`HEIGHT_BUDGET`] positions is not measured (the score is then a `cp` win score).
//!
//! **Default location** ([`default_proofs_path`]): the environment variable
//! `ANTICHESS_PROOFS`; else `proofs/` in the current directory (running from a checkout);
//! else the `proofs/` directory of the source tree the binary was built from (its path is
//! recorded at compile time, so a binary installed with `cargo install --path` from a
//! checkout finds the shipped proofs while the checkout exists). None of them: no proofs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use antichess_core::{Move, Position, Rules};
use antichess_proof::LoadedProof;
use antichess_proof::PositionId;

use crate::UciError;

/// Positions measured at most when computing a subtree's height.
pub const HEIGHT_BUDGET: u64 = 2_000_000;

/// The environment variable that names the default proofs (a file or a directory).
pub const PROOFS_ENV: &str = "ANTICHESS_PROOFS";

/// The shipped `proofs/` directory as seen from the source tree at compile time.
const SOURCE_PROOFS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../proofs");

/// Where the proofs are by default (see the module documentation).
#[must_use]
pub fn default_proofs_path() -> Option<PathBuf> {
    if let Some(path) = std::env::var_os(PROOFS_ENV) {
        return Some(PathBuf::from(path));
    }
    let here = PathBuf::from("proofs");
    if has_proof_files(&here) {
        return Some(here);
    }
    let source = PathBuf::from(SOURCE_PROOFS);
    if has_proof_files(&source) {
        return Some(source.canonicalize().unwrap_or(source));
    }
    None
}

fn has_proof_files(dir: &Path) -> bool {
    proof_files(dir).is_ok_and(|files| !files.is_empty())
}

/// The `*.proof` files of a directory, sorted by name.
fn proof_files(dir: &Path) -> std::io::Result<Vec<PathBuf>> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "proof"))
        .collect();
    files.sort();
    Ok(files)
}

/// What a proof says to play.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofMove {
    pub mv: Move,
    /// The proof's file name.
    pub proof: String,
    /// The side to move is the proof's prover (it wins).
    pub winning: bool,
    /// Nodes of the proof below the position (references unfolded).
    pub nodes: u64,
    /// Moves of the side to move until the game ends, at most, following the proof
    /// (`None`: not measured, or the subtree has tablebase leaves).
    pub moves_to_end: Option<u32>,
}

/// The loaded proofs, with the heights measured so far.
#[derive(Debug, Default)]
pub struct ProofSet {
    proofs: Vec<LoadedProof>,
    heights: Vec<HashMap<PositionId, Option<u32>>>,
}

impl ProofSet {
    /// Loads `path` (a proof file or a directory of `*.proof` files) for `rules`. Files
    /// that cannot be used are skipped; the errors name them.
    #[must_use]
    pub fn load(path: &Path, rules: Rules) -> (ProofSet, Vec<UciError>) {
        let mut set = ProofSet::default();
        let mut errors = Vec::new();
        let files = if path.is_dir() {
            match proof_files(path) {
                Ok(files) => files,
                Err(e) => {
                    errors.push(UciError::Load {
                        what: format!("proofs directory {}", path.display()),
                        message: e.to_string(),
                    });
                    Vec::new()
                }
            }
        } else if path.exists() {
            vec![path.to_path_buf()]
        } else {
            errors.push(UciError::Load {
                what: format!("proofs {}", path.display()),
                message: "no such file or directory".into(),
            });
            Vec::new()
        };
        for file in files {
            match LoadedProof::load(set.proofs.len(), &file, rules) {
                Ok(proof) => {
                    set.proofs.push(proof);
                    set.heights.push(HashMap::new());
                }
                Err(message) => errors.push(UciError::Load {
                    what: "proof".into(),
                    // The explorer's wording, for the engine's options.
                    message: message
                        .replace("the server uses", "the engine uses")
                        .replace("(--rules)", "(options Rules and UCI_Variant)"),
                }),
            }
        }
        (set, errors)
    }

    /// Names of the loaded proofs.
    #[must_use]
    pub fn names(&self) -> Vec<&str> {
        self.proofs.iter().map(|p| p.name.as_str()).collect()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.proofs.is_empty()
    }

    /// The move the first proof that has `pos` as an internal node gives.
    pub fn choose(&mut self, pos: &Position) -> Option<ProofMove> {
        for i in 0..self.proofs.len() {
            let proof = &self.proofs[i];
            let Some(hit) = proof.lookup(pos) else {
                continue;
            };
            let (mv, nodes) = match hit.kind {
                "prover" => (hit.proof_move?, hit.unfolded),
                "opponent" => {
                    let best = pos
                        .legal_moves()
                        .into_iter()
                        .filter_map(|m| proof.lookup(&pos.play(m)).map(|h| (h.unfolded, m)))
                        .max_by_key(|&(size, m)| (size, std::cmp::Reverse(m.bits())));
                    match best {
                        Some((_, m)) => (m, hit.unfolded),
                        None => continue,
                    }
                }
                _ => continue,
            };
            if !pos.is_legal(mv) {
                continue;
            }
            let mut budget = HEIGHT_BUDGET;
            let plies = height(proof, &mut self.heights[i], pos, &mut budget);
            return Some(ProofMove {
                mv,
                proof: proof.name.clone(),
                winning: hit.kind == "prover",
                nodes,
                moves_to_end: plies.map(|h| h.div_ceil(2)),
            });
        }
        None
    }
}

/// Plies from `pos` to the end of the game at most, following the proof (the longest line
/// of its subtree); `None` if a line ends on a tablebase leaf, leaves the proof, or the
/// budget runs out.
fn height(
    proof: &LoadedProof,
    memo: &mut HashMap<PositionId, Option<u32>>,
    pos: &Position,
    budget: &mut u64,
) -> Option<u32> {
    let id = PositionId::of(pos);
    if let Some(&h) = memo.get(&id) {
        return h;
    }
    if *budget == 0 {
        return None;
    }
    *budget -= 1;
    let hit = proof.lookup(pos)?;
    let h = match hit.kind {
        "terminal" => Some(0),
        "prover" => {
            let m = hit.proof_move.filter(|m| pos.is_legal(*m))?;
            height(proof, memo, &pos.play(m), budget).map(|h| h + 1)
        }
        "opponent" => {
            let mut most = 0;
            for m in pos.legal_moves() {
                most = most.max(height(proof, memo, &pos.play(m), budget)?);
            }
            Some(most + 1)
        }
        _ => None,
    };
    if h.is_some() || *budget > 0 {
        memo.insert(id, h);
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shipped() -> PathBuf {
        PathBuf::from(SOURCE_PROOFS)
    }

    #[test]
    fn plays_the_shipped_proof_on_both_sides() {
        let (mut set, errors) = ProofSet::load(&shipped(), Rules::INTERNATIONAL);
        assert!(errors.is_empty(), "{errors:?}");
        assert!(set.names().contains(&"e3-g6.proof"), "{:?}", set.names());
        let start = Position::start(Rules::INTERNATIONAL);
        let mut pos = start;
        for m in ["e2e3", "g7g6"] {
            pos = pos.play(pos.parse_uci(m).unwrap());
        }
        let white = set.choose(&pos).expect("in the proof");
        assert!(white.winning);
        assert_eq!(white.mv.to_uci(), "d1h5", "the proof's 2. Qh5");
        let n = white
            .moves_to_end
            .expect("no tablebase leaf in the shipped proof");
        assert!(n > 2, "{n}");
        let after = pos.play(white.mv);
        let black = set.choose(&after).expect("in the proof");
        assert!(!black.winning);
        assert!(black.moves_to_end.unwrap() <= n);
        // The start position is in no proof.
        assert!(set.choose(&start).is_none());
    }

    #[test]
    fn a_missing_or_bad_file_is_named() {
        let (set, errors) = ProofSet::load(Path::new("/no/such/proofs"), Rules::INTERNATIONAL);
        assert!(set.is_empty());
        assert!(
            errors[0].to_string().contains("/no/such/proofs"),
            "{errors:?}"
        );
        let readme = shipped().join("README.md");
        let (set, errors) = ProofSet::load(&readme, Rules::INTERNATIONAL);
        assert!(set.is_empty());
        assert!(errors[0].to_string().contains("README.md"), "{errors:?}");
    }
}
