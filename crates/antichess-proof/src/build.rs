//! Building a proof tree by walking the game tree from a root: the solver only says which
//! move the prover plays ([`ProofSource`]); the builder expands every opponent move, shares
//! repeated positions and rejects cycles.
//!
//! Sharing: the first occurrence of a position (by [`PositionId`]) is written in full; a
//! later occurrence, once the first one's subtree is complete, becomes a
//! [`NodeKind::Reference`]. Tablebase leaves repeat as leaves (cheaper than a reference)
//! without asking the source again; terminal leaves (no legal move) are never shared. A
//! position that repeats on the current path is an error: the source cycles.
//!
//! The walk uses an explicit stack, so deep proofs do not overflow the thread's stack.

use std::collections::{HashMap, HashSet};

use antichess_core::{Color, Move, Outcome, Position};

use crate::position_id::{label, ordered_moves, PositionId};
use crate::tree::{Node, NodeKind, ProofTree};
use crate::ProofError;

/// What the prover does in a position where it is to move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProverChoice {
    /// Play this move (it must be legal).
    Play(Move),
    /// The position is a tablebase win for the prover: make it a leaf.
    TablebaseLeaf,
}

/// The solver's side of proof building.
pub trait ProofSource {
    /// Called for every distinct position where the prover is to move and that is not a
    /// terminal win (a terminal position = no legal move; it is a leaf). Return the move
    /// that proves it.
    fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String>;

    /// Called at opponent-to-move positions: return true to make this position a tablebase
    /// leaf instead of expanding all opponent moves (default: false).
    fn opponent_leaf(&mut self, pos: &Position) -> Result<bool, String> {
        let _ = pos;
        Ok(false)
    }
}

/// What an expander does at a prover node: play a move (and where to continue), or stop at
/// a tablebase leaf.
#[derive(Debug)]
pub enum Step<H> {
    Play(Move, H),
    TablebaseLeaf,
}

/// The general form of a proof source: `H` is the source's own handle on a node (e.g. a node
/// of another file, or a solver's key for the path to it), passed back when the builder
/// asks about that node's children.
pub trait Expander {
    type Handle;

    fn prover(
        &mut self,
        pos: &Position,
        handle: &Self::Handle,
    ) -> Result<Step<Self::Handle>, String>;

    /// `None`: a tablebase leaf; otherwise one handle per move of `moves` (the legal moves
    /// in the fixed order), in that order.
    fn opponent(
        &mut self,
        pos: &Position,
        handle: &Self::Handle,
        moves: &[Move],
    ) -> Result<Option<Vec<Self::Handle>>, String>;
}

struct SourceExpander<'a, S: ?Sized>(&'a mut S);

impl<S: ProofSource + ?Sized> Expander for SourceExpander<'_, S> {
    type Handle = ();

    fn prover(&mut self, pos: &Position, _: &()) -> Result<Step<()>, String> {
        Ok(match self.0.prover_choice(pos)? {
            ProverChoice::Play(m) => Step::Play(m, ()),
            ProverChoice::TablebaseLeaf => Step::TablebaseLeaf,
        })
    }

    fn opponent(
        &mut self,
        pos: &Position,
        _: &(),
        moves: &[Move],
    ) -> Result<Option<Vec<()>>, String> {
        Ok(if self.0.opponent_leaf(pos)? {
            None
        } else {
            Some(vec![(); moves.len()])
        })
    }
}

/// Builds the proof that `prover` wins from `root`, asking `source` for the prover's moves.
pub fn build_proof<S: ProofSource + ?Sized>(
    root: Position,
    prover: Color,
    source: &mut S,
) -> Result<ProofTree, ProofError> {
    build_with(root, prover, Vec::new(), &mut SourceExpander(source), ())
}

#[derive(Clone, Copy)]
enum Memo {
    Internal(u32),
    Tablebase,
}

struct Frame<H> {
    pos: Position,
    id: PositionId,
    index: u32,
    mv: Option<Move>,
    /// Children still to visit, last first.
    pending: Vec<(Move, H)>,
}

/// Builds a proof from `root` (reached from the game's start by `prolog`) with a general
/// [`Expander`]; `root_handle` is the expander's handle on the root.
pub fn build_with<E: Expander>(
    root: Position,
    prover: Color,
    prolog: Vec<Move>,
    expander: &mut E,
    root_handle: E::Handle,
) -> Result<ProofTree, ProofError> {
    let mut nodes: Vec<Node> = Vec::new();
    let mut memo: HashMap<PositionId, Memo> = HashMap::new();
    let mut path: HashSet<PositionId> = HashSet::new();
    let mut stack: Vec<Frame<E::Handle>> = Vec::new();
    let mut next: Option<(Position, Option<Move>, E::Handle)> = Some((root, None, root_handle));

    loop {
        if let Some((pos, mv, handle)) = next.take() {
            let index = u32::try_from(nodes.len())
                .map_err(|_| ProofError::Unsupported("proof has more than 2^32 nodes".into()))?;
            let node_label = || {
                let mut moves: Vec<Move> = stack.iter().filter_map(|f| f.mv).collect();
                moves.extend(mv);
                label(u64::from(index), &root, &prolog, &moves)
            };
            let moves = ordered_moves(&pos);
            if moves.is_empty() {
                let outcome = pos.no_move_outcome();
                if outcome != Outcome::Win(prover) {
                    return Err(ProofError::Rejected {
                        node: node_label(),
                        reason: format!(
                            "{} to move has no legal move: {outcome} under {} rules, not a win for {prover}",
                            pos.turn(),
                            pos.rules()
                        ),
                    });
                }
                nodes.push(Node {
                    mv,
                    kind: NodeKind::Terminal,
                });
            } else {
                let id = PositionId::of(&pos);
                if let Some(seen) = memo.get(&id) {
                    let kind = match *seen {
                        Memo::Internal(target) => NodeKind::Reference { target },
                        Memo::Tablebase => NodeKind::Tablebase,
                    };
                    nodes.push(Node { mv, kind });
                } else if path.contains(&id) {
                    return Err(ProofError::Source {
                        node: node_label(),
                        message:
                            "the position repeats on the path from the root (the source cycles)"
                                .into(),
                    });
                } else if pos.turn() == prover {
                    let step =
                        expander
                            .prover(&pos, &handle)
                            .map_err(|message| ProofError::Source {
                                node: node_label(),
                                message,
                            })?;
                    match step {
                        Step::TablebaseLeaf => {
                            memo.insert(id, Memo::Tablebase);
                            nodes.push(Node {
                                mv,
                                kind: NodeKind::Tablebase,
                            });
                        }
                        Step::Play(m, child) => {
                            if !moves.contains(&m) {
                                return Err(ProofError::Source {
                                    node: node_label(),
                                    message: format!(
                                        "the source chose {m}, which is not a legal move in {}",
                                        pos.fen()
                                    ),
                                });
                            }
                            nodes.push(Node {
                                mv,
                                kind: NodeKind::Prover,
                            });
                            path.insert(id);
                            stack.push(Frame {
                                pos,
                                id,
                                index,
                                mv,
                                pending: vec![(m, child)],
                            });
                        }
                    }
                } else {
                    let children = expander
                        .opponent(&pos, &handle, &moves)
                        .map_err(|message| ProofError::Source {
                            node: node_label(),
                            message,
                        })?;
                    match children {
                        None => {
                            memo.insert(id, Memo::Tablebase);
                            nodes.push(Node {
                                mv,
                                kind: NodeKind::Tablebase,
                            });
                        }
                        Some(handles) => {
                            if handles.len() != moves.len() {
                                return Err(ProofError::Source {
                                    node: node_label(),
                                    message: format!(
                                        "{} children for {} legal moves",
                                        handles.len(),
                                        moves.len()
                                    ),
                                });
                            }
                            nodes.push(Node {
                                mv,
                                kind: NodeKind::Opponent {
                                    children: moves.len() as u16,
                                },
                            });
                            path.insert(id);
                            let mut pending: Vec<(Move, E::Handle)> =
                                moves.iter().copied().zip(handles).collect();
                            pending.reverse();
                            stack.push(Frame {
                                pos,
                                id,
                                index,
                                mv,
                                pending,
                            });
                        }
                    }
                }
            }
        }
        // Descend into the next pending child, or close finished nodes.
        loop {
            let Some(top) = stack.last_mut() else {
                return Ok(ProofTree::from_parts_unchecked(root, prover, prolog, nodes));
            };
            if let Some((m, handle)) = top.pending.pop() {
                next = Some((top.pos.play(m), Some(m), handle));
                break;
            }
            let done = stack.pop().expect("non-empty");
            path.remove(&done.id);
            memo.insert(done.id, Memo::Internal(done.index));
        }
    }
}
