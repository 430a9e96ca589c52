//! Proof files loaded for looking positions up (the web explorer, the UCI engine): each
//! file is read into memory (either format) and indexed by position, so that for any
//! position a caller can say whether
//! it is in the proof, what kind of node it is there (the prover's move, the opponent's
//! replies, a terminal or tablebase leaf), how large its subtree is, and which move the
//! proof plays. The **main line** is the proof's longest resistance: the prover's move at
//! its nodes, the reply with the largest subtree at the opponent's.
//!
//! Positions are identified as in the proof format ([`PositionId`]: board, side to move,
//! en passant; clocks ignored), so a position reached by another move order is found too.
//! Memory: about 50 bytes per proof node, the index (one entry per distinct position)
//! included; loading replays every move once.
//!
//! **What a player needs** ([`LoadedProof::play`], [`ProofPlay`]): at an internal position,
//! the move to play (the prover's move, or the opponent's longest resistance: the reply
//! whose subtree is the largest with shared positions unfolded, the first in file order
//! among equals) and the height of the position's node, in plies: the longest line of its
//! subtree to a game end (references followed; unknown when a line ends on a tablebase leaf
//! or is longer than [`MAX_HEIGHT`]). Following the proof from there, the prover wins
//! within that many plies. The on-disk index (`crate::disk_index`) stores exactly these
//! answers.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use crate::{read_proof_file, NodeKind, PositionId, ProofCounts, ProofTree, ReferenceOptions};
use antichess_core::{pgn, Color, Move, Position, Rules};
use serde::Serialize;

/// A proof in memory with its position index.
#[derive(Debug)]
pub struct LoadedProof {
    /// Index among the loaded proofs.
    pub id: usize,
    /// File name (without directories).
    pub name: String,
    pub path: PathBuf,
    tree: ProofTree,
    /// One past the end of each node's subtree in preorder.
    ends: Vec<u32>,
    /// Each node's subtree size with references unfolded (saturating).
    unfolded: Vec<u64>,
    /// Each node's height in plies ([`NO_HEIGHT`]: unknown).
    heights: Vec<u16>,
    /// The first (non-reference) node of each position.
    index: HashMap<PositionId, u32>,
    /// The main line from the root.
    main_line: Vec<Move>,
    /// Positions of the main line and the main line's move there.
    main_line_moves: HashMap<PositionId, Move>,
    /// Made once (the counts walk every node).
    summary: Option<ProofSummary>,
}

/// What a proof says about one position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofHit {
    /// `prover`, `opponent`, `terminal` or `tablebase`.
    pub kind: &'static str,
    /// Nodes of the file in the position's subtree (its first occurrence).
    pub nodes: u64,
    /// Subtree size with shared positions unfolded.
    pub unfolded: u64,
    /// At the prover's nodes: the move the proof plays.
    pub proof_move: Option<Move>,
    /// On the main line: its next move.
    pub main_line_move: Option<Move>,
}

/// What a proof plays at one of its internal positions (see the module documentation).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProofPlay {
    /// The prover's move, or the opponent's longest resistance.
    pub mv: Move,
    /// The side to move is the prover (it wins).
    pub prover_to_move: bool,
    /// Nodes of the file in the position's subtree (its first occurrence).
    pub nodes: u64,
    /// Plies to the game's end at most, following the proof (`None`: a line ends on a
    /// tablebase leaf, or is longer than [`MAX_HEIGHT`]).
    pub plies_to_end: Option<u32>,
}

/// The largest height recorded; a longer one is unknown.
pub const MAX_HEIGHT: u32 = 0xfffe;
/// A node height that is unknown.
pub(crate) const NO_HEIGHT: u16 = 0xffff;

/// A loaded proof, as listed by the API.
#[derive(Debug, Clone, Serialize)]
pub struct ProofSummary {
    pub id: usize,
    pub name: String,
    pub root_fen: String,
    pub prover: &'static str,
    pub rules: String,
    pub counts: ProofCounts,
    /// Unfolded size of the whole proof.
    pub unfolded_nodes: u64,
    /// Moves from the start position to the root, in UCI and as movetext (empty if the
    /// file does not record them).
    pub prolog_uci: String,
    pub prolog_san: String,
    /// The main line from the root, in UCI and as movetext.
    pub main_line_uci: String,
    pub main_line_san: String,
}

fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Prover => "prover",
        NodeKind::Opponent { .. } => "opponent",
        NodeKind::Terminal => "terminal",
        NodeKind::Tablebase => "tablebase",
        NodeKind::Reference { .. } => "reference",
    }
}

/// A proof file's name without its directories (the whole path if it has none).
#[must_use]
pub fn file_name(path: &Path) -> String {
    path.file_name().map_or_else(
        || path.display().to_string(),
        |n| n.to_string_lossy().into_owned(),
    )
}

/// Refuses a proof file of other rules than the server's (`found`: the file's).
///
/// # Errors
/// The message names the file and both rule sets.
pub fn check_rules(path: &Path, found: Rules, rules: Rules) -> Result<(), String> {
    if found == rules {
        return Ok(());
    }
    Err(format!(
        "proof {}: it is for the {found} rules, the server uses {rules} (--rules)",
        path.display()
    ))
}

impl LoadedProof {
    /// Reads and indexes a proof file. `rules` is used for reference-format files, which
    /// do not record them (they are assumed to prove a White win from the start position's
    /// line, as the published solution does); compact files must match `rules`.
    pub fn load(id: usize, path: &Path, rules: Rules) -> Result<LoadedProof, String> {
        let reference = ReferenceOptions {
            rules,
            ..ReferenceOptions::default()
        };
        let tree = read_proof_file(path, None, &reference)
            .map_err(|e| format!("proof {}: {e}", path.display()))?;
        check_rules(path, tree.rules(), rules)?;
        LoadedProof::from_tree(id, file_name(path), path.to_path_buf(), tree)
            .map_err(|e| format!("proof {}: {e}", path.display()))
    }

    /// Indexes a proof held in memory.
    pub fn from_tree(
        id: usize,
        name: String,
        path: PathBuf,
        tree: ProofTree,
    ) -> Result<LoadedProof, String> {
        let nodes = tree.nodes();
        let n = nodes.len();
        let mut ends = vec![0u32; n];
        let mut unfolded = vec![0u64; n];
        let mut heights = vec![NO_HEIGHT; n];
        // (node, children left, unfolded sum so far, highest child so far)
        let mut open: Vec<(usize, u32, u64, u16)> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let children = match node.kind {
                NodeKind::Prover => 1,
                NodeKind::Opponent { children } => u32::from(children),
                _ => 0,
            };
            if children > 0 {
                open.push((i, children, 1, 0));
                continue;
            }
            let (mut value, mut height) = match node.kind {
                NodeKind::Reference { target } => {
                    let t = target as usize;
                    if t >= i {
                        return Err(format!("node {i} refers to a later node {t}"));
                    }
                    (unfolded[t], heights[t])
                }
                NodeKind::Terminal => (1, 0),
                _ => (1, NO_HEIGHT),
            };
            unfolded[i] = value;
            heights[i] = height;
            ends[i] = i as u32 + 1;
            while let Some(top) = open.last_mut() {
                top.1 -= 1;
                top.2 = top.2.saturating_add(value);
                top.3 = if top.3 == NO_HEIGHT || height == NO_HEIGHT {
                    NO_HEIGHT
                } else {
                    top.3.max(height)
                };
                if top.1 > 0 {
                    break;
                }
                let (j, _, sum, highest) = open.pop().expect("nonempty");
                unfolded[j] = sum;
                height = if u32::from(highest) >= MAX_HEIGHT {
                    NO_HEIGHT
                } else {
                    highest + 1
                };
                heights[j] = height;
                ends[j] = i as u32 + 1;
                value = sum;
            }
        }
        if !open.is_empty() {
            return Err("the tree ends before every node has its children".into());
        }
        let mut index = HashMap::new();
        tree.for_each_position(|i, pos, _| {
            if !matches!(nodes[i].kind, NodeKind::Reference { .. }) {
                index.entry(PositionId::of(pos)).or_insert(i as u32);
            }
            Ok(())
        })
        .map_err(|e| e.to_string())?;
        let mut proof = LoadedProof {
            id,
            name,
            path,
            tree,
            ends,
            unfolded,
            heights,
            index,
            main_line: Vec::new(),
            main_line_moves: HashMap::new(),
            summary: None,
        };
        proof.compute_main_line();
        proof.summary = Some(proof.make_summary());
        Ok(proof)
    }

    /// The children of node `i` (indices).
    fn children(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let end = self.ends[i] as usize;
        let mut c = i + 1;
        while c < end {
            out.push(c);
            c = self.ends[c] as usize;
        }
        out
    }

    /// Follows references to the node that holds the subtree.
    fn resolve(&self, mut i: usize) -> usize {
        while let NodeKind::Reference { target } = self.tree.nodes()[i].kind {
            i = target as usize;
        }
        i
    }

    /// The child the proof plays at internal node `i`: the prover's move, or the opponent's
    /// reply with the largest unfolded subtree (the first among equals).
    fn chosen_child(&self, i: usize) -> Option<usize> {
        match self.tree.nodes()[i].kind {
            NodeKind::Prover => Some(i + 1),
            NodeKind::Opponent { .. } => self
                .children(i)
                .into_iter()
                .max_by_key(|&c| (self.unfolded[self.resolve(c)], std::cmp::Reverse(c))),
            _ => None,
        }
    }

    /// What the proof plays at node `i` (`None`: not an internal node).
    fn play_at(&self, i: usize) -> Option<ProofPlay> {
        let mv = self.tree.nodes()[self.chosen_child(i)?].mv?;
        let height = self.heights[i];
        Some(ProofPlay {
            mv,
            prover_to_move: matches!(self.tree.nodes()[i].kind, NodeKind::Prover),
            nodes: u64::from(self.ends[i]) - i as u64,
            plies_to_end: (height != NO_HEIGHT).then_some(u32::from(height)),
        })
    }

    /// What the proof plays at `pos` (`None`: not an internal position of the proof).
    #[must_use]
    pub fn play(&self, pos: &Position) -> Option<ProofPlay> {
        let &i = self.index.get(&PositionId::of(pos))?;
        self.play_at(i as usize)
    }

    /// Every internal position of the proof (the first node of each) with what the proof
    /// plays there, in the file's order.
    pub fn for_each_play(&self, mut f: impl FnMut(PositionId, ProofPlay)) {
        let mut internal: Vec<(u32, PositionId)> = self
            .index
            .iter()
            .map(|(&id, &i)| (i, id))
            .filter(|&(i, _)| {
                matches!(
                    self.tree.nodes()[i as usize].kind,
                    NodeKind::Prover | NodeKind::Opponent { .. }
                )
            })
            .collect();
        internal.sort_unstable_by_key(|&(i, _)| i);
        for (i, id) in internal {
            if let Some(play) = self.play_at(i as usize) {
                f(id, play);
            }
        }
    }

    /// The proof's rules.
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.tree.rules()
    }

    /// Nodes of the file.
    #[must_use]
    pub fn node_count(&self) -> u64 {
        self.tree.nodes().len() as u64
    }

    fn compute_main_line(&mut self) {
        let mut pos = *self.tree.root();
        let mut i = 0;
        let mut line = Vec::new();
        let mut moves = HashMap::new();
        // A proof is acyclic; the bound only guards against a damaged file.
        for _ in 0..10_000 {
            i = self.resolve(i);
            let Some(c) = self.chosen_child(i) else { break };
            let Some(m) = self.tree.nodes()[c].mv else {
                break;
            };
            moves.entry(PositionId::of(&pos)).or_insert(m);
            line.push(m);
            pos = pos.play(m);
            i = c;
        }
        self.main_line = line;
        self.main_line_moves = moves;
    }

    /// The proof's root position.
    #[must_use]
    pub fn root(&self) -> &Position {
        self.tree.root()
    }

    #[must_use]
    pub fn prover(&self) -> Color {
        self.tree.prover()
    }

    /// Moves from the start position to the root (empty if unknown).
    #[must_use]
    pub fn prolog(&self) -> &[Move] {
        self.tree.prolog()
    }

    #[must_use]
    pub fn main_line(&self) -> &[Move] {
        &self.main_line
    }

    /// What the proof says about `pos` (`None`: not in the proof).
    #[must_use]
    pub fn lookup(&self, pos: &Position) -> Option<ProofHit> {
        let id = PositionId::of(pos);
        let &i = self.index.get(&id)?;
        let i = i as usize;
        let node = self.tree.nodes()[i];
        let proof_move = match node.kind {
            NodeKind::Prover => self.tree.nodes().get(i + 1).and_then(|c| c.mv),
            _ => None,
        };
        Some(ProofHit {
            kind: kind_name(node.kind),
            nodes: u64::from(self.ends[i]) - i as u64,
            unfolded: self.unfolded[i],
            proof_move,
            main_line_move: self.main_line_moves.get(&id).copied(),
        })
    }

    /// The proof's main-line move at `pos`, if `pos` is on the main line.
    #[must_use]
    pub fn main_line_move(&self, pos: &Position) -> Option<Move> {
        self.main_line_moves.get(&PositionId::of(pos)).copied()
    }

    /// The summary listed by the API.
    #[must_use]
    pub fn summary(&self) -> ProofSummary {
        self.summary.clone().unwrap_or_else(|| self.make_summary())
    }

    fn make_summary(&self) -> ProofSummary {
        let root = self.tree.root();
        let start = Position::start(root.rules());
        let uci = |moves: &[Move]| {
            moves
                .iter()
                .map(|m| m.to_uci())
                .collect::<Vec<_>>()
                .join(" ")
        };
        ProofSummary {
            id: self.id,
            name: self.name.clone(),
            root_fen: root.fen(),
            prover: self.prover().name(),
            rules: root.rules().to_string(),
            counts: self.tree.counts(),
            unfolded_nodes: self.unfolded.first().copied().unwrap_or(0),
            prolog_uci: uci(self.prolog()),
            prolog_san: pgn::format_moves(&start, self.prolog()),
            main_line_uci: uci(&self.main_line),
            main_line_san: pgn::format_moves(root, &self.main_line),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{build_proof, ProofSource, ProverChoice};

    /// Plays the first legal move.
    struct FirstMove;
    impl ProofSource for FirstMove {
        fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
            Ok(ProverChoice::Play(pos.legal_moves()[0]))
        }
    }

    #[test]
    fn indexes_a_small_proof() {
        // White's knight must take a3; Black, without pieces, wins.
        let root =
            Position::from_fen("8/8/8/8/8/p7/8/1N6 w - - 0 1", Rules::INTERNATIONAL).unwrap();
        let tree = build_proof(root, Color::Black, &mut FirstMove).unwrap();
        let proof = LoadedProof::from_tree(0, "t".into(), PathBuf::new(), tree).unwrap();
        let hit = proof.lookup(&root).unwrap();
        assert_eq!(hit.kind, "opponent");
        assert_eq!(hit.nodes, 2);
        assert_eq!(proof.main_line().len(), 1);
        assert_eq!(hit.main_line_move, Some(proof.main_line()[0]));
        let after = root.play(proof.main_line()[0]);
        assert_eq!(proof.lookup(&after).unwrap().kind, "terminal");
    }
}
