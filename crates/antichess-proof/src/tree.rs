//! `ProofTree`: a proof held in memory, as its nodes in preorder (the root is node 0).
//!
//! Every node is a position. A node stores the move that reaches it from its parent and
//! its kind: an internal prover node (one child: the prover's move), an internal opponent
//! node (`children` children, normally every legal move in the fixed order of
//! [`crate::ordered_moves`]), a terminal leaf (no legal move), a tablebase leaf, or a
//! reference to an earlier node of the same position (its subtree is that node's). The
//! children of an internal node follow it in preorder, each followed by its own subtree.
//!
//! The tree is only structurally checked here ([`ProofTree::from_parts`]); whether it is a
//! proof is the verifier's business, after it was written to a file. The tables its
//! tablebase leaves rely on are found here too ([`tables_used`],
//! [`ProofTree::record_tables`]).

use std::collections::BTreeMap;

use antichess_core::{Color, Move, Position, Rules};
use serde::Serialize;

use crate::oracle::LeafOracle;
use crate::position_id::units;
use crate::tables::TableRecord;
use crate::ProofError;

/// What a node of a proof is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum NodeKind {
    /// The prover is to move; its one child (the next node) is the move it plays.
    Prover,
    /// The opponent is to move; its children are its moves (in a valid proof: all legal
    /// moves, in the fixed order).
    Opponent { children: u16 },
    /// No legal move: the game is over (a win for the prover in a valid proof).
    Terminal,
    /// A position whose value is taken from the tablebases.
    Tablebase,
    /// The same position as node `target` (earlier in preorder, with its subtree complete).
    Reference { target: u32 },
}

/// One node: the move from its parent (`None` for the root) and its kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Node {
    pub mv: Option<Move>,
    pub kind: NodeKind,
}

/// Node counts of a proof, as recorded in file headers and reported by statistics.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct ProofCounts {
    /// All nodes: the sum of the five counts below.
    pub total: u64,
    /// Internal nodes with the prover to move.
    pub prover: u64,
    /// Internal nodes with the opponent to move.
    pub opponent: u64,
    /// Leaves with no legal move.
    pub terminal: u64,
    /// Leaves decided by tablebases.
    pub tablebase: u64,
    /// References to earlier nodes of the same position.
    pub references: u64,
}

impl ProofCounts {
    pub(crate) fn add(&mut self, kind: &NodeKind) {
        self.total += 1;
        match kind {
            NodeKind::Prover => self.prover += 1,
            NodeKind::Opponent { .. } => self.opponent += 1,
            NodeKind::Terminal => self.terminal += 1,
            NodeKind::Tablebase => self.tablebase += 1,
            NodeKind::Reference { .. } => self.references += 1,
        }
    }
}

/// A proof in memory. See the module documentation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProofTree {
    root: Position,
    prover: Color,
    prolog: Vec<Move>,
    nodes: Vec<Node>,
    /// The tables the tablebase leaves rely on (written in the compact header).
    tables: Vec<TableRecord>,
}

impl ProofTree {
    /// A tree from its parts, checked for structure only: node 0 is the root (no move), the
    /// others have moves, the children counts add up to exactly `nodes.len()`, and every
    /// reference points to an earlier node. `prolog` is the move list from the standard
    /// start position to `root` (may be empty; it is checked when the reference format is
    /// written).
    pub fn from_parts(
        root: Position,
        prover: Color,
        prolog: Vec<Move>,
        nodes: Vec<Node>,
    ) -> Result<ProofTree, ProofError> {
        let tree = ProofTree {
            root,
            prover,
            prolog,
            nodes,
            tables: Vec::new(),
        };
        tree.check_structure()?;
        Ok(tree)
    }

    pub(crate) fn from_parts_unchecked(
        root: Position,
        prover: Color,
        prolog: Vec<Move>,
        nodes: Vec<Node>,
    ) -> ProofTree {
        ProofTree {
            root,
            prover,
            prolog,
            nodes,
            tables: Vec::new(),
        }
    }

    fn check_structure(&self) -> Result<(), ProofError> {
        let bad = |i: usize, why: String| {
            Err(ProofError::Unsupported(format!(
                "malformed proof tree at node {i}: {why}"
            )))
        };
        if self.nodes.is_empty() {
            return bad(0, "the tree has no nodes".into());
        }
        if u32::try_from(self.nodes.len()).is_err() {
            return bad(0, "more than 2^32 nodes in memory".into());
        }
        // Remaining children to read, per open internal node.
        let mut open: Vec<u32> = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            if i == 0 {
                if node.mv.is_some() {
                    return bad(0, "the root has a move".into());
                }
            } else {
                if node.mv.is_none() {
                    return bad(i, "a non-root node has no move".into());
                }
                match open.last_mut() {
                    Some(left) => *left -= 1,
                    None => return bad(i, "the node is outside the root's subtree".into()),
                }
            }
            match node.kind {
                NodeKind::Prover => open.push(1),
                NodeKind::Opponent { children } => open.push(u32::from(children)),
                NodeKind::Reference { target } if target as usize >= i => {
                    return bad(
                        i,
                        format!("reference to node {target}, not an earlier node"),
                    );
                }
                _ => {}
            }
            while open.last() == Some(&0) {
                open.pop();
            }
        }
        if !open.is_empty() {
            return bad(
                self.nodes.len(),
                "the tree ends before every internal node has its children".into(),
            );
        }
        Ok(())
    }

    /// The root position.
    #[must_use]
    pub fn root(&self) -> &Position {
        &self.root
    }

    /// The side that the proof shows to win.
    #[must_use]
    pub fn prover(&self) -> Color {
        self.prover
    }

    /// The rules of the proof (those of the root position).
    #[must_use]
    pub fn rules(&self) -> Rules {
        self.root.rules()
    }

    /// Moves from the standard start position to the root (empty if not known).
    #[must_use]
    pub fn prolog(&self) -> &[Move] {
        &self.prolog
    }

    /// Sets the prolog (moves from the standard start position to the root).
    pub fn set_prolog(&mut self, prolog: Vec<Move>) {
        self.prolog = prolog;
    }

    /// The tables the tablebase leaves rely on, as recorded (empty if not known).
    #[must_use]
    pub fn tables(&self) -> &[TableRecord] {
        &self.tables
    }

    /// Sets the recorded tables (sorted by material and deduplicated here).
    pub fn set_tables(&mut self, mut tables: Vec<TableRecord>) {
        tables.sort();
        tables.dedup_by(|a, b| a.material == b.material);
        self.tables = tables;
    }

    /// Records the tables that the tablebase leaves' probes read in `oracle` (the
    /// tables the proof is written with), replacing any earlier record. A writer calls
    /// this before writing, so that `proof verify` can tell when it is given other tables.
    ///
    /// # Errors
    /// When the tree is malformed or the oracle fails.
    pub fn record_tables(&mut self, oracle: &dyn LeafOracle) -> Result<(), ProofError> {
        let tables = tables_used(self, oracle)?;
        self.set_tables(tables);
        Ok(())
    }

    /// The nodes in preorder.
    #[must_use]
    pub fn nodes(&self) -> &[Node] {
        &self.nodes
    }

    /// The nodes, mutable: for tools and tests that edit a proof. The structure is not
    /// rechecked; the writers and the verifier reject what is wrong.
    pub fn nodes_mut(&mut self) -> &mut Vec<Node> {
        &mut self.nodes
    }

    /// Number of nodes.
    #[must_use]
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    /// Whether the tree is empty (never true for a tree built by this crate).
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// Node counts by kind.
    #[must_use]
    pub fn counts(&self) -> ProofCounts {
        let mut counts = ProofCounts::default();
        for node in &self.nodes {
            counts.add(&node.kind);
        }
        counts
    }

    /// For each node, the index one past its subtree (so its next sibling, if any).
    pub(crate) fn subtree_ends(&self) -> Result<Vec<u32>, ProofError> {
        self.check_structure()?;
        let n = self.nodes.len();
        let mut ends = vec![0u32; n];
        // (node, children left)
        let mut open: Vec<(usize, u32)> = Vec::new();
        for i in 0..n {
            if i > 0 {
                if let Some(top) = open.last_mut() {
                    top.1 -= 1;
                }
            }
            match self.nodes[i].kind {
                NodeKind::Prover => open.push((i, 1)),
                NodeKind::Opponent { children } if children > 0 => {
                    open.push((i, u32::from(children)));
                }
                _ => ends[i] = i as u32 + 1,
            }
            // Close every internal node whose last child's subtree ends here.
            if ends[i] != 0 {
                while let Some(&(j, 0)) = open.last() {
                    ends[j] = i as u32 + 1;
                    open.pop();
                }
            }
        }
        Ok(ends)
    }

    /// Replays the tree: calls `f(index, position, depth)` for every node in preorder,
    /// where the position of a node is its parent's after its move. Fails if a move is
    /// not legal where it is played.
    pub fn for_each_position(
        &self,
        mut f: impl FnMut(usize, &Position, u32) -> Result<(), ProofError>,
    ) -> Result<(), ProofError> {
        self.check_structure()?;
        // (position, children left)
        let mut open: Vec<(Position, u32)> = Vec::new();
        for (i, node) in self.nodes.iter().enumerate() {
            let pos = match node.mv {
                None => self.root,
                Some(m) => {
                    let parent = &open.last().expect("structure checked").0;
                    if !parent.is_legal(m) {
                        return Err(ProofError::Unsupported(format!(
                            "node {i}: move {m} is not legal in {}",
                            parent.fen()
                        )));
                    }
                    parent.play(m)
                }
            };
            if i > 0 {
                if let Some(top) = open.last_mut() {
                    top.1 -= 1;
                }
            }
            f(i, &pos, open.len() as u32)?;
            match node.kind {
                NodeKind::Prover => open.push((pos, 1)),
                NodeKind::Opponent { children } if children > 0 => {
                    open.push((pos, u32::from(children)));
                }
                _ => {}
            }
            while open.last().is_some_and(|top| top.1 == 0) {
                open.pop();
            }
        }
        Ok(())
    }

    /// The largest number of units among tablebase leaves (0 if there are none).
    pub fn tablebase_units(&self) -> Result<u32, ProofError> {
        let mut max = 0;
        self.for_each_position(|i, pos, _| {
            if self.nodes[i].kind == NodeKind::Tablebase {
                max = max.max(units(pos));
            }
            Ok(())
        })?;
        Ok(max)
    }
}

/// The tables a probe of each tablebase leaf of `tree` reads, by the oracle's account,
/// sorted by material, each once.
///
/// # Errors
/// When a leaf's move is illegal (a malformed tree) or the oracle fails.
pub fn tables_used(
    tree: &ProofTree,
    oracle: &dyn LeafOracle,
) -> Result<Vec<TableRecord>, ProofError> {
    let mut found: BTreeMap<String, u64> = BTreeMap::new();
    let nodes = tree.nodes();
    tree.for_each_position(|i, pos, _| {
        if nodes[i].kind == NodeKind::Tablebase {
            let records = oracle.tables_read(pos).map_err(|message| {
                ProofError::Unsupported(format!(
                    "cannot record the tables of tablebase leaf node {i} ({}): {message}",
                    pos.fen()
                ))
            })?;
            for r in records {
                found.insert(r.material, r.checksum);
            }
        }
        Ok(())
    })?;
    Ok(found
        .into_iter()
        .map(|(material, checksum)| TableRecord { material, checksum })
        .collect())
}
