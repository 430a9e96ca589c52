//! The proof checker: the rules of a proof (docs/formats/proof.md), enforced once for both
//! file formats. A format is a [`Decoder`] that says, node by node, what the file holds;
//! the checker replays the moves, knows every node's position, and decides whether the
//! whole is a proof:
//!
//! * every move is legal where it is played; a prover node gives exactly one move, an
//!   opponent node every legal move exactly once;
//! * no internal node or reference stands for a position that is already on the line from
//!   the root (a tablebase leaf's verdict comes from the tables, so it is not held to
//!   this; a terminal leaf has no move, so it cannot repeat an internal node);
//! * a reference stands for a complete node (not an ancestor) of the same position;
//! * every leaf is won: judged by the [`Visitor`] (the verifier's leaf checker; the reader
//!   and the statistics judge nothing), terminal if the position has no legal move,
//!   tablebase leaf otherwise.
//!
//! The walk is a stream in preorder: memory is the open line (one frame per ply) and one
//! small record per reference target, whatever the size of the proof. The decoders keep
//! what is specific to their format: the compact format's bits and header counts, the
//! reference format's links and the rule that every node of the file is reached once.
//!
//! Targets: a decoder names the nodes that references point to by dense slots (0, 1, ...).
//! A reference to a slot whose node has not been met yet (a *forward* reference, possible
//! in the reference format only) is verified where it stands: the decoder gives that
//! node's children ([`Decoder::expand`]), and when the walk later meets the node itself it
//! is only compared with what was verified.

use std::collections::HashSet;

use antichess_core::{Color, Move, MoveList, Position};

use crate::position_id::{label, ordered_moves, units, PositionId};
use crate::stats::{StatsBuilder, Subtree};
use crate::tree::{Node, NodeKind};
use crate::walk::{map_leaf_error, Visitor};
use crate::{NodeLabel, ProofError};

/// What a decoder found at a node.
pub(crate) enum Item<C> {
    /// No children: a terminal leaf if the position has no legal move, else a tablebase
    /// leaf. `target`: the slot of this node if references point to it.
    Leaf { target: Option<usize> },
    /// An internal node; its children come from [`Decoder::next_child`] with `children`.
    Internal { children: C, target: Option<usize> },
    /// A reference to the node of slot `target`.
    Reference { target: usize },
}

/// A file format, as the checker reads it.
pub(crate) trait Decoder {
    /// Where the decoder stands in an internal node's list of children.
    type Children;

    /// Decodes the node at `at` (its position and legal moves are known).
    fn node(&mut self, at: &At<'_>) -> Result<Item<Self::Children>, ProofError>;

    /// A reference at `at` to the node of slot `target`, not met yet: that node's number
    /// (named in errors) and its children (`None`: it is a leaf), to be verified here.
    fn expand(
        &mut self,
        target: usize,
        at: &At<'_>,
    ) -> Result<(u64, Option<Self::Children>), ProofError>;

    /// The next child of an internal node whose legal moves (in the fixed order) are
    /// `legal`: its number and its move, or `None` after the last.
    fn next_child(
        &mut self,
        children: &mut Self::Children,
        legal: &MoveList,
    ) -> Result<Option<(u64, Move)>, ProofError>;
}

/// The node a decoder is asked about.
pub(crate) struct At<'a> {
    /// The node's number (compact: preorder; reference: index in the file).
    pub(crate) number: u64,
    /// Legal moves in the fixed order (ascending `Move::bits`).
    pub(crate) legal: &'a MoveList,
    /// Whether the prover is to move.
    pub(crate) prover_to_move: bool,
    mv: Option<Move>,
    line: &'a [Move],
    proof: &'a Proof<'a>,
}

impl At<'_> {
    /// The node's name in errors.
    pub(crate) fn label(&self) -> NodeLabel {
        self.proof.label(self.number, self.line, self.mv)
    }
}

/// What the checker is told about a proof besides its nodes.
pub(crate) struct Proof<'a> {
    pub(crate) root: Position,
    pub(crate) prover: Color,
    /// Moves from the standard start position to the root, shown in node labels (empty
    /// if the root is not given by moves).
    pub(crate) prolog: &'a [Move],
    /// The largest number of units a tablebase leaf may have (the compact header's
    /// promise), if the file makes one.
    pub(crate) tablebase_units: Option<u32>,
    /// Tablebase leaves in the proof, if known, for the "cannot be checked without tables"
    /// message (0: unknown).
    pub(crate) tablebase_leaves: u64,
}

impl Proof<'_> {
    fn label(&self, number: u64, line: &[Move], extra: Option<Move>) -> NodeLabel {
        match extra {
            None => label(number, &self.root, self.prolog, line),
            Some(m) => {
                let mut moves = line.to_vec();
                moves.push(m);
                label(number, &self.root, self.prolog, &moves)
            }
        }
    }
}

/// The outcome of a walk that found no fault.
pub(crate) struct Checked {
    pub(crate) stats: StatsBuilder,
    /// The root's subtree (unfolded size and height).
    pub(crate) root: Subtree,
    /// Reference targets met.
    pub(crate) targets: u64,
}

/// Walks a proof with `decoder` from `proof.root`, enforcing the rules (see the module
/// docs) and giving every node to `visitor` in preorder. `progress` is called with the
/// number of nodes walked from time to time.
pub(crate) fn check<D: Decoder>(
    proof: &Proof<'_>,
    decoder: &mut D,
    visitor: &mut dyn Visitor,
    progress: &mut dyn FnMut(u64),
) -> Result<Checked, ProofError> {
    let mut checker = Checker {
        proof,
        decoder,
        visitor,
        progress,
        stats: StatsBuilder::default(),
        stack: Vec::new(),
        line: Vec::new(),
        path: HashSet::new(),
        targets: Vec::new(),
        declared: 0,
        walked: 0,
    };
    checker.run()
}

#[derive(Debug, Clone, Copy)]
enum State {
    Unseen,
    /// Entered, its subtree not complete: an ancestor of the nodes walked now.
    Open,
    Done {
        id: PositionId,
        unfolded: u64,
        unfolded_height: u32,
    },
}

#[derive(Debug, Clone, Copy)]
struct Target {
    /// The node's number, named in errors.
    node: u64,
    state: State,
}

/// An open internal node.
struct Frame<C> {
    pos: Position,
    id: PositionId,
    number: u64,
    mv: Option<Move>,
    legal: MoveList,
    /// Which legal moves were met among the children (bit k: `legal[k]`).
    seen: [u64; 4],
    seen_count: usize,
    children: C,
    target: Option<usize>,
    subtree: Subtree,
}

struct Checker<'a, 'p, D: Decoder> {
    proof: &'a Proof<'p>,
    decoder: &'a mut D,
    visitor: &'a mut dyn Visitor,
    progress: &'a mut dyn FnMut(u64),
    stats: StatsBuilder,
    stack: Vec<Frame<D::Children>>,
    /// The moves of the open frames (the root's excepted): the line from the root.
    line: Vec<Move>,
    /// The positions of the open frames.
    path: HashSet<PositionId>,
    targets: Vec<Target>,
    declared: u64,
    walked: u64,
}

impl<D: Decoder> Checker<'_, '_, D> {
    fn run(&mut self) -> Result<Checked, ProofError> {
        let root = self.proof.root;
        let mut done = self.visit(0, root, None)?.map(|s| (s, None));
        loop {
            if let Some((subtree, mv)) = done.take() {
                let Some(parent) = self.stack.last_mut() else {
                    (self.progress)(self.walked);
                    return Ok(Checked {
                        stats: std::mem::take(&mut self.stats),
                        root: subtree,
                        targets: self.declared,
                    });
                };
                parent.subtree.absorb(&subtree);
                if self.stack.len() == 1 {
                    if let Some(m) = mv {
                        self.stats.root_child(&root, m, &subtree, self.walked);
                    }
                }
            }
            let top = self.stack.last_mut().expect("a frame is open");
            let Some((number, m)) = self.decoder.next_child(&mut top.children, &top.legal)? else {
                done = Some(self.close()?);
                continue;
            };
            // The move: legal, not met before among these children, the prover's only one.
            let Ok(k) = top.legal.binary_search_by_key(&m.bits(), |x| x.bits()) else {
                let fen = top.pos.fen();
                return Err(self.reject(number, None, format!("move {m} is not legal in {fen}")));
            };
            if top.seen[k / 64] & 1 << (k % 64) != 0 {
                let san = top.pos.san(m);
                return Err(self.reject(
                    number,
                    Some(m),
                    format!("the move {san} appears twice among its parent's children"),
                ));
            }
            if top.pos.turn() == self.proof.prover && top.seen_count == 1 {
                return Err(self.reject(
                    number,
                    Some(m),
                    "the prover has more than one move at its parent; a proof gives one".into(),
                ));
            }
            top.seen[k / 64] |= 1 << (k % 64);
            top.seen_count += 1;
            let pos = top.pos.play(m);
            done = self.visit(number, pos, Some(m))?.map(|s| (s, Some(m)));
        }
    }

    /// A rejection at node `number`, reached by the open line and `extra`.
    fn reject(&self, number: u64, extra: Option<Move>, reason: String) -> ProofError {
        ProofError::Rejected {
            node: self.proof.label(number, &self.line, extra),
            reason,
        }
    }

    /// The slot's record (met for the first time: unseen).
    fn target(&mut self, slot: usize) -> &mut Target {
        if slot >= self.targets.len() {
            self.targets.resize(
                slot + 1,
                Target {
                    node: 0,
                    state: State::Unseen,
                },
            );
        }
        &mut self.targets[slot]
    }

    /// Decodes and checks the node at `pos`: a leaf or a reference gives its subtree, an
    /// internal node opens a frame (`None`).
    fn visit(
        &mut self,
        number: u64,
        pos: Position,
        mv: Option<Move>,
    ) -> Result<Option<Subtree>, ProofError> {
        self.walked += 1;
        if self.walked & 0xffff == 0 {
            (self.progress)(self.walked);
        }
        let depth = self.stack.len() as u32;
        self.stats.max_depth = self.stats.max_depth.max(depth);
        let legal = ordered_moves(&pos);
        let at = At {
            number,
            legal: &legal,
            prover_to_move: pos.turn() == self.proof.prover,
            mv,
            line: &self.line,
            proof: self.proof,
        };
        match self.decoder.node(&at)? {
            Item::Reference { target } => self.reference(number, pos, mv, &legal, target),
            Item::Leaf { target } => self.enter(number, pos, mv, &legal, None, target, true),
            Item::Internal { children, target } => {
                self.enter(number, pos, mv, &legal, Some(children), target, true)
            }
        }
    }

    /// A reference to the node of slot `slot`.
    fn reference(
        &mut self,
        number: u64,
        pos: Position,
        mv: Option<Move>,
        legal: &MoveList,
        slot: usize,
    ) -> Result<Option<Subtree>, ProofError> {
        let target = *self.target(slot);
        match target.state {
            State::Done {
                id: target_id,
                unfolded,
                unfolded_height,
            } => {
                let id = PositionId::of(&pos);
                if id != target_id {
                    return Err(self.reject(
                        number,
                        mv,
                        format!(
                            "refers to node {}, which is a different position (this one is {})",
                            target.node,
                            pos.fen()
                        ),
                    ));
                }
                if self.path.contains(&id) {
                    return Err(self.repeats(number, mv, &pos));
                }
                let node = Node {
                    mv,
                    kind: NodeKind::Reference {
                        target: u32::try_from(target.node).unwrap_or(u32::MAX),
                    },
                };
                self.stats.counts.add(&node.kind);
                self.visitor
                    .visit(&node, &pos)
                    .map_err(|e| map_leaf_error(e, self.reject_label(number, mv), 0))?;
                Ok(Some(Subtree::leaf(number, unfolded, unfolded_height)))
            }
            State::Open => Err(self.reject(
                number,
                mv,
                format!(
                    "refers to node {}, which is not complete: it is an ancestor of this node (the proof would go round in a circle)",
                    target.node
                ),
            )),
            State::Unseen => {
                // A forward reference: the target's subtree is verified here, in its stead.
                let at = At {
                    number,
                    legal,
                    prover_to_move: pos.turn() == self.proof.prover,
                    mv,
                    line: &self.line,
                    proof: self.proof,
                };
                let (node, children) = self.decoder.expand(slot, &at)?;
                self.target(slot).node = node;
                self.stats.counts.add(&NodeKind::Reference {
                    target: u32::try_from(node).unwrap_or(u32::MAX),
                });
                self.enter(number, pos, mv, legal, children, Some(slot), false)
            }
        }
    }

    fn reject_label(&self, number: u64, mv: Option<Move>) -> NodeLabel {
        self.proof.label(number, &self.line, mv)
    }

    fn repeats(&self, number: u64, mv: Option<Move>, pos: &Position) -> ProofError {
        self.reject(
            number,
            mv,
            format!(
                "the position repeats on the path from the root ({})",
                pos.fen()
            ),
        )
    }

    /// A node with its own children (`None`: a leaf), possibly a reference target.
    /// `counted`: false when the node stands in for a forward reference (the reference
    /// was counted).
    fn enter(
        &mut self,
        number: u64,
        pos: Position,
        mv: Option<Move>,
        legal: &MoveList,
        children: Option<D::Children>,
        target: Option<usize>,
        counted: bool,
    ) -> Result<Option<Subtree>, ProofError> {
        if let Some(slot) = target {
            let record = self.target(slot);
            match record.state {
                State::Unseen => {
                    if counted {
                        record.node = number;
                    }
                    self.declared += 1;
                }
                State::Open => return Err(self.reject(
                    number,
                    mv,
                    "this node is reached again while its own subtree is being verified (a cycle)"
                        .into(),
                )),
                State::Done {
                    id: target_id,
                    unfolded,
                    unfolded_height,
                } => {
                    // Met before through a forward reference, and verified there.
                    let id = PositionId::of(&pos);
                    if id != target_id {
                        return Err(self.reject(
                            number,
                            mv,
                            format!(
                                "a transposition to this node, met earlier, reached a different position than this one ({})",
                                pos.fen()
                            ),
                        ));
                    }
                    if self.path.contains(&id) {
                        return Err(self.repeats(number, mv, &pos));
                    }
                    let kind = self.kind(&pos, legal, children.is_some());
                    self.stats.counts.add(&kind);
                    return Ok(Some(Subtree::leaf(number, unfolded, unfolded_height)));
                }
            }
        }
        let kind = self.kind(&pos, legal, children.is_some());
        let Some(children) = children else {
            // A leaf.
            let mut leaves = 0;
            if kind == NodeKind::Tablebase {
                leaves = self.proof.tablebase_leaves;
                let n = units(&pos);
                self.stats.tablebase_units = self.stats.tablebase_units.max(n);
                if let Some(limit) = self.proof.tablebase_units {
                    if n > limit {
                        return Err(self.reject(
                            number,
                            mv,
                            format!(
                                "tablebase leaf with {n} units, but the header says the proof relies on at most {limit}"
                            ),
                        ));
                    }
                }
            }
            if counted {
                self.stats.counts.add(&kind);
            }
            let node = Node { mv, kind };
            self.visitor
                .visit(&node, &pos)
                .map_err(|e| map_leaf_error(e, self.reject_label(number, mv), leaves))?;
            if let Some(slot) = target {
                self.target(slot).state = State::Done {
                    id: PositionId::of(&pos),
                    unfolded: 1,
                    unfolded_height: 0,
                };
            }
            return Ok(Some(Subtree::leaf(number, 1, 0)));
        };
        if legal.is_empty() {
            return Err(self.reject(
                number,
                mv,
                "the node has children but the position has no legal move".into(),
            ));
        }
        let id = PositionId::of(&pos);
        if !self.path.insert(id) {
            return Err(self.repeats(number, mv, &pos));
        }
        if counted {
            self.stats.counts.add(&kind);
        }
        let node = Node { mv, kind };
        self.visitor
            .visit(&node, &pos)
            .map_err(|e| map_leaf_error(e, self.reject_label(number, mv), 0))?;
        if let Some(slot) = target {
            self.target(slot).state = State::Open;
        }
        self.stack.push(Frame {
            pos,
            id,
            number,
            mv,
            // A clone copies the moves only; a move would copy the whole array.
            legal: legal.clone(),
            seen: [0; 4],
            seen_count: 0,
            children,
            target,
            subtree: Subtree::internal(number),
        });
        self.line.extend(mv);
        Ok(None)
    }

    /// The kind of a node of `pos` with or without children of its own.
    fn kind(&self, pos: &Position, legal: &MoveList, internal: bool) -> NodeKind {
        match (internal, legal.is_empty()) {
            (false, true) => NodeKind::Terminal,
            (false, false) => NodeKind::Tablebase,
            (true, _) if pos.turn() == self.proof.prover => NodeKind::Prover,
            (true, _) => NodeKind::Opponent {
                children: legal.len() as u16,
            },
        }
    }

    /// The top frame has no more children: checks it is complete and closes it.
    fn close(&mut self) -> Result<(Subtree, Option<Move>), ProofError> {
        let frame = self.stack.pop().expect("a frame is open");
        if frame.mv.is_some() {
            self.line.pop();
        }
        if frame.pos.turn() != self.proof.prover && frame.seen_count != frame.legal.len() {
            let missing: Vec<String> = frame
                .legal
                .iter()
                .enumerate()
                .filter(|(k, _)| frame.seen[k / 64] & 1 << (k % 64) == 0)
                .map(|(_, m)| frame.pos.san(*m))
                .collect();
            return Err(self.reject(
                frame.number,
                frame.mv,
                format!("opponent moves missing: {}", missing.join(", ")),
            ));
        }
        self.path.remove(&frame.id);
        if let Some(slot) = frame.target {
            self.target(slot).state = State::Done {
                id: frame.id,
                unfolded: frame.subtree.unfolded,
                unfolded_height: frame.subtree.unfolded_height,
            };
        }
        Ok((frame.subtree, frame.mv))
    }
}
