//! The record's moves as hints for the walk: a map from positions to the prover's move,
//! read from lines of moves (a published solution's lines, or any line a person trusts).
//!
//! At a prover's node whose position has a hint, the walk takes the hinted move (when it
//! is open; when it is held by another worker the node has no free leaf for now) instead
//! of choosing by the numbers, so the book grows along the record's tree and its own
//! searches decide the leaves and everything the record does not name. A hint whose
//! move turned out lost is ignored (the walk chooses as without it). Hints steer; they
//! prove nothing: every won node is still won by the book's own searches and checked by
//! `book prove` and the verifier.
//!
//! The file format (docs/formats/hints.md): one line per line of moves in UCI from the
//! start position of the book's rules, separated by spaces; `#` begins a comment; blank
//! lines are skipped. Positions are keyed by their Zobrist key (clocks aside), so a hint
//! also applies where another line transposes into its position.

use std::collections::HashMap;

use antichess_core::{Color, Position, Rules};

use crate::error::{BookError, Result};
use crate::nav::BookView;
use crate::node::{add, NodeId, INF};

/// Hinted moves by position key.
#[derive(Debug, Clone, Default)]
pub struct Hints {
    moves: HashMap<u64, String>,
    /// Lines read.
    pub lines: usize,
    /// Positions where two lines hinted different moves (the first line's is kept).
    pub conflicts: usize,
}

impl Hints {
    /// The line that says what was read from `path`: the lines, the positions where they
    /// name the prover's move, and the positions where they disagree.
    #[must_use]
    pub fn summary_line(&self, path: &std::path::Path) -> String {
        format!(
            "hints: {} line(s) from {}, the prover's move at {} position(s){}",
            self.lines,
            path.display(),
            self.len(),
            if self.conflicts > 0 {
                format!(
                    " ({} position(s) where lines disagree: the first line's move kept)",
                    self.conflicts
                )
            } else {
                String::new()
            }
        )
    }

    /// Reads hints for `prover` from `text` (lines of UCI moves from the start position
    /// under `rules`). `source` names the text in errors. An illegal move is an error that
    /// names the line and the move.
    pub fn parse(text: &str, rules: Rules, prover: Color, source: &str) -> Result<Hints> {
        let mut hints = Hints::default();
        for (number, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            hints.lines += 1;
            let mut pos = Position::start(rules);
            for (ply, token) in line.split_whitespace().enumerate() {
                let mv = pos.parse_uci(token).map_err(|e| {
                    BookError::Input(format!(
                        "{source}, line {}: move {} ({token}): {e}",
                        number + 1,
                        ply + 1
                    ))
                })?;
                if pos.turn() == prover {
                    let uci = mv.to_uci();
                    match hints.moves.get(&pos.key()) {
                        None => {
                            hints.moves.insert(pos.key(), uci);
                        }
                        Some(known) if *known != uci => hints.conflicts += 1,
                        Some(_) => {}
                    }
                }
                pos = pos.play(mv);
            }
        }
        Ok(hints)
    }

    /// The hinted move (UCI) at a position.
    #[must_use]
    pub fn get(&self, key: u64) -> Option<&str> {
        self.moves.get(&key).map(String::as_str)
    }

    /// Positions with a hint.
    #[must_use]
    pub fn len(&self) -> usize {
        self.moves.len()
    }

    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }
}

/// The proof number of `start` if the prover plays the hinted move wherever `hints` names
/// an open one (else the most-proving move, as the book does): the work left on the
/// record's tree, which the book's own proof number hides while the prover has untried
/// alternatives with small numbers. Nodes reached twice (transpositions) are counted once
/// per path, like the book's numbers. Reads one snapshot of the book.
pub fn hinted_proof(view: &mut BookView<'_>, start: NodeId, hints: &Hints) -> Result<u32> {
    HintedProof::new(hints).of(view, start)
}

/// [`hinted_proof`] of several nodes of one snapshot (a node and its children, as `book
/// show --hints` gives them): each node's number is computed once and remembered.
#[derive(Debug)]
pub struct HintedProof<'h> {
    hints: &'h Hints,
    memo: HashMap<NodeId, u32>,
}

impl<'h> HintedProof<'h> {
    #[must_use]
    pub fn new(hints: &'h Hints) -> HintedProof<'h> {
        HintedProof {
            hints,
            memo: HashMap::new(),
        }
    }

    /// The record tree's proof number of `id` (see [`hinted_proof`]).
    ///
    /// # Errors
    /// The store's; a missing node.
    pub fn of(&mut self, view: &mut BookView<'_>, id: NodeId) -> Result<u32> {
        hinted(view, id, self.hints, &mut self.memo)
    }
}

fn hinted(
    view: &mut BookView<'_>,
    id: NodeId,
    hints: &Hints,
    memo: &mut HashMap<NodeId, u32>,
) -> Result<u32> {
    if let Some(&p) = memo.get(&id) {
        return Ok(p);
    }
    let node = view
        .node(id)?
        .ok_or_else(|| BookError::Corrupt(format!("there is no node {id}")))?;
    let proof = if !node.is_open() || !node.expanded {
        node.proof
    } else {
        let children = view.children(id)?;
        let hinted_kid = hints
            .get(node.key)
            .filter(|_| node.prover_to_move)
            .and_then(|uci| {
                children
                    .iter()
                    .find(|k| k.uci.as_deref() == Some(uci) && k.disproof != 0)
            });
        if let Some(kid) = hinted_kid {
            hinted(view, kid.id, hints, memo)?
        } else if node.prover_to_move {
            let mut best = INF;
            for kid in &children {
                best = best.min(hinted(view, kid.id, hints, memo)?);
            }
            best
        } else {
            let mut sum = 0;
            for kid in &children {
                sum = add(sum, hinted(view, kid.id, hints, memo)?);
            }
            sum
        }
    };
    memo.insert(id, proof);
    Ok(proof)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hints_are_the_provers_moves_by_position() {
        let text = "# 1. e3 Nh6 2. Ba6 (both captures)\n\
                    e2e3 g8h6 f1a6 b7a6 d1h5\n\
                    e2e3 g8h6 f1a6 b8a6 d1h5\n\
                    \n\
                    e2e3 g8h6 f1b5 # a conflicting White move after 1... Nh6\n";
        let hints = Hints::parse(text, Rules::INTERNATIONAL, Color::White, "t").unwrap();
        assert_eq!(hints.lines, 3);
        assert_eq!(hints.conflicts, 1);
        let start = Position::start(Rules::INTERNATIONAL);
        assert_eq!(hints.get(start.key()), Some("e2e3"));
        let e3 = start.play(start.parse_uci("e2e3").unwrap());
        let nh6 = e3.play(e3.parse_uci("g8h6").unwrap());
        assert_eq!(
            hints.get(nh6.key()),
            Some("f1a6"),
            "the first line's move is kept"
        );
        // White's start, e3 Nh6 Ba6 and the two positions before d1h5.
        assert_eq!(hints.len(), 4);
        // Black's moves are not hints for White.
        let black = Hints::parse(text, Rules::INTERNATIONAL, Color::Black, "t").unwrap();
        assert_eq!(black.get(start.key()), None);
    }

    #[test]
    fn an_illegal_move_names_its_line_and_ply() {
        let err = Hints::parse(
            "e2e3 g8h6\ne2e3 e2e4\n",
            Rules::INTERNATIONAL,
            Color::White,
            "f.txt",
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("f.txt, line 2: move 2 (e2e4)"), "{err}");
    }
}
