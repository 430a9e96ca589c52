//! Joining proofs: the proof of a position built from proofs of its children, so that the
//! proof of a line grows out of the proofs of its replies (`antichess proof join`, and the
//! book's seeds). At a node where the opponent is to move every legal move needs a child
//! proof; where the prover is to move one does (the smallest given is taken).
//!
//! The children are spliced in with [`crate::build_with`], which walks the game tree from
//! the new root and shares identical positions: a position that occurs in two child
//! proofs is written once and referred to from the other place, so the result is a DAG
//! no larger than the children together (plus the root). A child proof's own references
//! are followed to the subtree they stand for.
//!
//! Nothing here judges the leaves: the joined tree is a proof only if the children are.
//! The caller writes it and runs the verifier ([`join_files`] does both).

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use antichess_core::{pgn, Move, Position};

use crate::build::{build_with, Expander, Step};
use crate::position_id::{ordered_moves, PositionId};
use crate::tables::TableRecord;
use crate::tree::{NodeKind, ProofTree};
use crate::{
    read_proof_file, verify_file, write_proof_file, ByteOrder, Format, LeafOracle, ProofError,
    ProofStats, ReferenceOptions, VerifyOptions,
};

/// A proof tree with each node's children listed, for walking it from any node: the form
/// in which child proofs are spliced into a larger one.
#[derive(Debug, Clone)]
pub struct IndexedTree {
    tree: ProofTree,
    children: Vec<Vec<u32>>,
}

impl IndexedTree {
    /// Indexes a tree (its structure is assumed checked, as every constructor does).
    #[must_use]
    pub fn new(tree: ProofTree) -> IndexedTree {
        let nodes = tree.nodes();
        let mut children = vec![Vec::new(); nodes.len()];
        let mut open: Vec<(usize, u32)> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            if i > 0 {
                if let Some(top) = open.last_mut() {
                    children[top.0].push(i as u32);
                    top.1 -= 1;
                }
            }
            match node.kind {
                NodeKind::Prover => open.push((i, 1)),
                NodeKind::Opponent { children } if children > 0 => {
                    open.push((i, u32::from(children)));
                }
                _ => {}
            }
            while open.last().is_some_and(|t| t.1 == 0) {
                open.pop();
            }
        }
        IndexedTree { tree, children }
    }

    /// The tree.
    #[must_use]
    pub fn tree(&self) -> &ProofTree {
        &self.tree
    }

    /// Follows references to the node that holds the subtree.
    fn resolve(&self, mut index: u32) -> u32 {
        let mut hops = 0;
        while let NodeKind::Reference { target } = self.tree.nodes()[index as usize].kind {
            index = target;
            hops += 1;
            if hops > self.tree.len() {
                break;
            }
        }
        index
    }

    /// What the proof does at node `index`, a prover node (or a tablebase leaf): the
    /// move and the child's index.
    ///
    /// # Errors
    /// When the node is of another kind (the proof does not fit the position).
    pub fn prover_step(&self, index: u32) -> Result<Step<u32>, String> {
        let i = self.resolve(index);
        match self.tree.nodes()[i as usize].kind {
            NodeKind::Prover => {
                let child = self.children[i as usize][0];
                let mv = self.tree.nodes()[child as usize]
                    .mv
                    .ok_or("a proof node without a move")?;
                Ok(Step::Play(mv, child))
            }
            NodeKind::Tablebase => Ok(Step::TablebaseLeaf),
            kind => Err(format!(
                "node {i} of the proof is {}, not a prover node",
                kind_name(kind)
            )),
        }
    }

    /// The children of node `index`, an opponent node, for `moves` (in that order), or
    /// `None` for a tablebase leaf.
    ///
    /// # Errors
    /// When the node is of another kind or lacks one of `moves`.
    pub fn opponent_children(
        &self,
        index: u32,
        moves: &[Move],
    ) -> Result<Option<Vec<u32>>, String> {
        let i = self.resolve(index);
        match self.tree.nodes()[i as usize].kind {
            NodeKind::Opponent { .. } => {
                let by_move: HashMap<Move, u32> = self.children[i as usize]
                    .iter()
                    .filter_map(|&c| self.tree.nodes()[c as usize].mv.map(|m| (m, c)))
                    .collect();
                moves
                    .iter()
                    .map(|m| {
                        by_move
                            .get(m)
                            .copied()
                            .ok_or_else(|| format!("node {i} of the proof lacks the move {m}"))
                    })
                    .collect::<Result<Vec<_>, _>>()
                    .map(Some)
            }
            NodeKind::Tablebase => Ok(None),
            kind => Err(format!(
                "node {i} of the proof is {}, not an opponent node",
                kind_name(kind)
            )),
        }
    }
}

fn kind_name(kind: NodeKind) -> &'static str {
    match kind {
        NodeKind::Prover => "a prover node",
        NodeKind::Opponent { .. } => "an opponent node",
        NodeKind::Terminal => "a terminal leaf",
        NodeKind::Tablebase => "a tablebase leaf",
        NodeKind::Reference { .. } => "a reference",
    }
}

/// A child proof to join, with the name it goes by in messages (e.g. its file).
#[derive(Debug, Clone)]
pub struct ChildProof {
    pub name: String,
    pub tree: ProofTree,
}

/// The builder's handle: the new root, or a node of one child proof.
#[derive(Debug, Clone, Copy)]
enum Handle {
    Root,
    Child { tree: usize, index: u32 },
}

struct Joiner<'a> {
    trees: &'a [IndexedTree],
    /// The child proof taken for each move of the root.
    by_move: HashMap<Move, usize>,
}

impl Expander for Joiner<'_> {
    type Handle = Handle;

    fn prover(&mut self, _: &Position, handle: &Handle) -> Result<Step<Handle>, String> {
        match *handle {
            Handle::Root => {
                let (&m, &tree) = self
                    .by_move
                    .iter()
                    .next()
                    .ok_or("no child proof for the root")?;
                Ok(Step::Play(m, Handle::Child { tree, index: 0 }))
            }
            Handle::Child { tree, index } => Ok(match self.trees[tree].prover_step(index)? {
                Step::Play(m, child) => Step::Play(m, Handle::Child { tree, index: child }),
                Step::TablebaseLeaf => Step::TablebaseLeaf,
            }),
        }
    }

    fn opponent(
        &mut self,
        _: &Position,
        handle: &Handle,
        moves: &[Move],
    ) -> Result<Option<Vec<Handle>>, String> {
        match *handle {
            Handle::Root => moves
                .iter()
                .map(|m| {
                    self.by_move
                        .get(m)
                        .map(|&tree| Handle::Child { tree, index: 0 })
                        .ok_or_else(|| format!("no child proof for the move {m}"))
                })
                .collect::<Result<Vec<_>, _>>()
                .map(Some),
            Handle::Child { tree, index } => {
                Ok(self.trees[tree].opponent_children(index, moves)?.map(|c| {
                    c.into_iter()
                        .map(|index| Handle::Child { tree, index })
                        .collect()
                }))
            }
        }
    }

    /// A child proof's node proves its position by itself (it never comes back to its own
    /// positions), so a child proof that leads back to a position on the path (the root)
    /// is walked from there instead.
    fn restart_at_repeat(&self, handle: &Handle) -> bool {
        matches!(handle, Handle::Child { .. })
    }
}

/// The parent that child proofs given by move lists share: every child has a prolog (the
/// moves from the start position to its root), all the same but for the last move. Returns
/// the parent position and its prolog.
///
/// # Errors
/// When a child has no prolog or the prologs do not share a parent.
pub fn common_parent(children: &[ChildProof]) -> Result<(Position, Vec<Move>), ProofError> {
    let refuse = |m: String| Err(ProofError::Join(m));
    let Some(first) = children.first() else {
        return refuse("no child proofs given".into());
    };
    let parent_of = |c: &ChildProof| -> Result<Vec<Move>, ProofError> {
        let prolog = c.tree.prolog();
        if prolog.is_empty() {
            return Err(ProofError::Join(format!(
                "{}: the proof does not record the moves from the start position to its root ({}), so its parent is not known: give the parent position",
                c.name,
                c.tree.root().fen()
            )));
        }
        Ok(prolog[..prolog.len() - 1].to_vec())
    };
    let prolog = parent_of(first)?;
    for c in &children[1..] {
        if parent_of(c)? != prolog {
            let start = Position::start(first.tree.rules());
            return refuse(format!(
                "{} and {} are not proofs of children of one position (their lines are {} and {})",
                first.name,
                c.name,
                pgn::format_moves(&start, first.tree.prolog()),
                pgn::format_moves(&start, c.tree.prolog()),
            ));
        }
    }
    let mut pos = Position::start(first.tree.rules());
    for &m in &prolog {
        pos = pos.play(m);
    }
    Ok((pos, prolog))
}

/// Builds the proof that the children's prover wins from `root` (reached from the start
/// position by `prolog`, which may be empty) out of proofs of its children: where the
/// opponent is to move at `root`, one for every legal move; where the prover is, at least
/// one (the smallest is taken). Positions shared between the children are written once.
///
/// The tables recorded by the children are recorded in the result (the union; two
/// children recording different tables of one material are refused).
///
/// # Errors
/// [`ProofError::Join`] naming the child whose root is not a child of `root`, whose rules
/// or prover differ, or the moves that have no child proof; a malformed child.
pub fn join_proofs(
    root: Position,
    prolog: Vec<Move>,
    children: &[ChildProof],
) -> Result<ProofTree, ProofError> {
    let refuse = |m: String| Err(ProofError::Join(m));
    let Some(first) = children.first() else {
        return refuse("no child proofs given".into());
    };
    let prover = first.tree.prover();
    let moves = ordered_moves(&root);
    if moves.is_empty() {
        return refuse(format!(
            "the position {} has no legal move: it has no children to join",
            root.fen()
        ));
    }
    let by_id: HashMap<PositionId, Move> = moves
        .iter()
        .map(|&m| (PositionId::of(&root.play(m)), m))
        .collect();
    let mut by_move: HashMap<Move, usize> = HashMap::new();
    let mut tables: BTreeMap<String, (u64, &str)> = BTreeMap::new();
    for (i, child) in children.iter().enumerate() {
        let tree = &child.tree;
        if tree.rules() != root.rules() {
            return refuse(format!(
                "{}: the proof is under {} rules, the position {} under {}",
                child.name,
                tree.rules(),
                root.fen(),
                root.rules()
            ));
        }
        if tree.prover() != prover {
            return refuse(format!(
                "{}: the proof shows a win for {}, {} shows one for {prover}",
                child.name,
                tree.prover(),
                first.name
            ));
        }
        let Some(&m) = by_id.get(&PositionId::of(tree.root())) else {
            return refuse(format!(
                "{}: its root {} is not reached by a legal move from {}",
                child.name,
                tree.root().fen(),
                root.fen()
            ));
        };
        for record in tree.tables() {
            match tables.get(&record.material) {
                Some(&(checksum, other)) if checksum != record.checksum => {
                    return refuse(format!(
                        "{} and {other} were written with different {} tables (checksums {:016x} and {checksum:016x})",
                        child.name, record.material, record.checksum
                    ));
                }
                Some(_) => {}
                None => {
                    tables.insert(record.material.clone(), (record.checksum, &child.name));
                }
            }
        }
        // Of several proofs of one child, the smallest.
        match by_move.get(&m) {
            Some(&j) if children[j].tree.len() <= tree.len() => {}
            _ => {
                by_move.insert(m, i);
            }
        }
    }
    if root.turn() == prover {
        // One child is enough: keep the smallest.
        if let Some((&m, &i)) = by_move
            .iter()
            .min_by_key(|(m, &i)| (children[i].tree.len(), m.bits()))
        {
            by_move = HashMap::from([(m, i)]);
        }
    } else {
        let missing: Vec<String> = moves
            .iter()
            .filter(|m| !by_move.contains_key(m))
            .map(|&m| root.san(m))
            .collect();
        if !missing.is_empty() {
            let side = match root.turn() {
                antichess_core::Color::White => "White",
                antichess_core::Color::Black => "Black",
            };
            return refuse(format!(
                "{side} to move at {}: no proof given for {} of its {} moves: {}",
                root.fen(),
                missing.len(),
                moves.len(),
                missing.join(", ")
            ));
        }
    }
    let trees: Vec<IndexedTree> = children
        .iter()
        .map(|c| IndexedTree::new(c.tree.clone()))
        .collect();
    let mut joiner = Joiner {
        trees: &trees,
        by_move,
    };
    let mut tree = build_with(root, prover, prolog, &mut joiner, Handle::Root)?;
    tree.set_tables(
        tables
            .into_iter()
            .map(|(material, (checksum, _))| TableRecord { material, checksum })
            .collect(),
    );
    Ok(tree)
}

/// Where the parent of a join comes from.
#[derive(Debug, Clone)]
pub enum JoinParent {
    /// The children's prologs say (see [`common_parent`]).
    FromChildren,
    /// This position, reached from the start position by these moves (may be empty).
    Given(Position, Vec<Move>),
}

/// What [`join_files`] did.
#[derive(Debug, Clone)]
pub struct JoinReport {
    /// The parent's FEN.
    pub root_fen: String,
    /// The child files used (at a prover node, the one taken), with the move to each.
    pub used: Vec<(String, PathBuf)>,
    /// The children's node counts together, and the joined proof's (smaller when the
    /// children share positions).
    pub child_nodes: u64,
    /// The verifier's statistics of the written file.
    pub stats: ProofStats,
}

/// Reads the child proof files, joins them at the parent, writes the proof to `output`
/// (compact format, atomically) and verifies the written file with `oracle`. The tables
/// recorded in the file are those the tablebase leaves read in `oracle` when it has tables
/// for them, else the children's records.
///
/// # Errors
/// As [`join_proofs`]; reading or writing; a rejection by the verifier (the output file is
/// then removed, so that no unverified proof is left under the name asked for).
pub fn join_files(
    inputs: &[PathBuf],
    parent: JoinParent,
    output: &Path,
    oracle: &dyn LeafOracle,
    options: &VerifyOptions,
) -> Result<JoinReport, ProofError> {
    let mut children = Vec::with_capacity(inputs.len());
    for path in inputs {
        let tree = read_proof_file(path, None, &ReferenceOptions::default()).map_err(|e| {
            if e.is_rejection() {
                ProofError::Join(format!("{}: not a readable proof: {e}", path.display()))
            } else {
                e
            }
        })?;
        children.push(ChildProof {
            name: path.display().to_string(),
            tree,
        });
    }
    let (root, prolog) = match parent {
        JoinParent::FromChildren => common_parent(&children)?,
        JoinParent::Given(pos, prolog) => (pos, prolog),
    };
    let mut tree = join_proofs(root, prolog, &children)?;
    let recorded = tree.tables().to_vec();
    if tree.counts().tablebase > 0 && oracle.max_units() > 0 {
        tree.record_tables(oracle)?;
        if tree.tables().is_empty() {
            tree.set_tables(recorded);
        }
    }
    let used = used_children(&tree, &children, inputs);
    write_proof_file(&tree, output, Format::Compact, ByteOrder::Little)?;
    match verify_file(output, Some(Format::Compact), oracle, options, &mut |_| {}) {
        Ok(stats) => Ok(JoinReport {
            root_fen: root.fen(),
            used,
            child_nodes: children.iter().map(|c| c.tree.len() as u64).sum(),
            stats,
        }),
        Err(e) => {
            let _ = std::fs::remove_file(output);
            Err(e)
        }
    }
}

/// The child files behind the root's moves in `tree`, with the moves in SAN.
fn used_children(
    tree: &ProofTree,
    children: &[ChildProof],
    inputs: &[PathBuf],
) -> Vec<(String, PathBuf)> {
    let root = tree.root();
    let indexed = IndexedTree::new(tree.clone());
    let mut used = Vec::new();
    for &c in &indexed.children[0] {
        let Some(m) = tree.nodes()[c as usize].mv else {
            continue;
        };
        let id = PositionId::of(&root.play(m));
        // The smallest proof of that child, as the join took it.
        if let Some(i) = (0..children.len())
            .filter(|&i| PositionId::of(children[i].tree.root()) == id)
            .min_by_key(|&i| children[i].tree.len())
        {
            used.push((root.san(m), inputs[i].clone()));
        }
    }
    used
}
