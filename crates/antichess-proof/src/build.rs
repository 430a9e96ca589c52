//! Building a proof tree by walking the game tree from a root: the solver only says which
//! move the prover plays ([`ProofSource`]); the builder expands every opponent move, shares
//! repeated positions and rejects cycles.
//!
//! Sharing: the first occurrence of a position (by [`PositionId`]) is written in full; a
//! later occurrence, once the first one's subtree is complete, becomes a
//! [`NodeKind::Reference`]. Tablebase leaves repeat as leaves (cheaper than a reference)
//! without asking the source again; terminal leaves (no legal move) are never shared. A
//! position that repeats on the current path is an error: the source cycles, unless the
//! expander can prove that position from the later occurrence's handle (a node of a proof
//! tree that is complete by itself: [`Expander::restart_at_repeat`]). The builder then
//! unwinds to the earlier occurrence, drops the nodes built below it (and the shared
//! positions among them) and walks it again from that handle.
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

    /// Whether the builder may prove a position again from `handle` when the walk, coming
    /// there by `handle`, met the position on its own path (the source cycled). The builder
    /// then drops what it built below the earlier occurrence and walks the position from
    /// `handle` instead: right when `handle` stands for a proof of the position that is
    /// complete by itself, such as a node of a verified proof tree (which never comes back
    /// to its own positions). A restarted walk that meets its path again may restart again,
    /// up to [`MAX_RESTARTS`] in one build. Default: never; the cycle is an error.
    fn restart_at_repeat(&self, handle: &Self::Handle) -> bool {
        let _ = handle;
        false
    }
}

/// The most restarts ([`Expander::restart_at_repeat`]) one build makes before it reports
/// the cycle as an error.
pub const MAX_RESTARTS: u32 = 10_000;

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

/// Unwinds the walk to the frame of the position `id` (on the path): pops the frames above
/// it and it, drops the nodes from its own on and the shared positions among them, and
/// returns what to walk next: that position, reached by the same move, from `handle`.
fn unwind_to<H>(
    id: PositionId,
    handle: H,
    stack: &mut Vec<Frame<H>>,
    path: &mut HashSet<PositionId>,
    nodes: &mut Vec<Node>,
    memo: &mut HashMap<PositionId, Memo>,
) -> (Position, Option<Move>, H) {
    loop {
        let frame = stack.pop().expect("a position on the path has a frame");
        path.remove(&frame.id);
        if frame.id == id {
            nodes.truncate(frame.index as usize);
            memo.retain(|_, m| !matches!(*m, Memo::Internal(t) if t >= frame.index));
            return (frame.pos, frame.mv, handle);
        }
    }
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
    let mut restarts = 0u32;

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
                    if restarts < MAX_RESTARTS && expander.restart_at_repeat(&handle) {
                        restarts += 1;
                        next = Some(unwind_to(
                            id, handle, &mut stack, &mut path, &mut nodes, &mut memo,
                        ));
                        continue;
                    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use antichess_core::Rules;

    /// Knights only: White's g1, Black's b8. `Cycle(k)` walks g1f3 b8c6 f3g1 c6b8, back to
    /// the root; `Proof` plays g1f3 at the root and f3g5 with the black knight on a6, and
    /// stops at a tablebase leaf everywhere else (the builder trusts those).
    #[derive(Clone, Copy, Debug, PartialEq)]
    enum H {
        Cycle(u8),
        Proof,
    }

    struct Knights {
        /// The handle the cycle comes back to the root with.
        back: H,
        restart: bool,
    }

    fn uci(pos: &Position, m: &str) -> Move {
        pos.parse_uci(m).unwrap()
    }

    impl Expander for Knights {
        type Handle = H;

        fn prover(&mut self, pos: &Position, handle: &H) -> Result<Step<H>, String> {
            let knights = |w: &str, b: &str| {
                let fen = pos.fen();
                fen.starts_with(b) && fen.contains(w)
            };
            Ok(match *handle {
                H::Cycle(0) => Step::Play(uci(pos, "g1f3"), H::Cycle(1)),
                H::Cycle(2) => Step::Play(uci(pos, "f3g1"), H::Cycle(3)),
                H::Proof if knights("6N1 ", "1n6/") => Step::Play(uci(pos, "g1f3"), H::Proof),
                H::Proof if knights("5N2/", "8/8/n7/") => Step::Play(uci(pos, "f3g5"), H::Proof),
                _ => Step::TablebaseLeaf,
            })
        }

        fn opponent(
            &mut self,
            _: &Position,
            handle: &H,
            moves: &[Move],
        ) -> Result<Option<Vec<H>>, String> {
            Ok(Some(
                moves
                    .iter()
                    .map(|m| match (*handle, m.to_uci().as_str()) {
                        (H::Cycle(1), "b8c6") => H::Cycle(2),
                        (H::Cycle(3), "c6b8") => self.back,
                        _ => H::Proof,
                    })
                    .collect(),
            ))
        }

        fn restart_at_repeat(&self, _: &H) -> bool {
            self.restart
        }
    }

    fn root() -> Position {
        Position::from_fen("1n6/8/8/8/8/8/8/6N1 w - - 0 1", Rules::INTERNATIONAL).unwrap()
    }

    #[test]
    fn a_cycle_is_an_error_unless_the_expander_restarts() {
        let mut plain = Knights {
            back: H::Proof,
            restart: false,
        };
        let err = build_with(root(), Color::White, Vec::new(), &mut plain, H::Cycle(0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("repeats on the path"), "{err}");

        // Restarted from the later handle: the root is proved by `Proof` alone, and the
        // shared positions of the abandoned walk (the prover node with the black knight on
        // a6, complete before the cycle closed) are not referred to.
        let mut restarting = Knights {
            back: H::Proof,
            restart: true,
        };
        let tree = build_with(
            root(),
            Color::White,
            Vec::new(),
            &mut restarting,
            H::Cycle(0),
        )
        .unwrap();
        let mut fresh = Knights {
            back: H::Proof,
            restart: false,
        };
        let direct = build_with(root(), Color::White, Vec::new(), &mut fresh, H::Proof).unwrap();
        assert_eq!(tree.nodes(), direct.nodes());
        assert!(tree
            .nodes()
            .iter()
            .all(|n| !matches!(n.kind, NodeKind::Reference { .. })));
        let a6 = tree
            .nodes()
            .iter()
            .filter(|n| n.mv.map(|m| m.to_uci()) == Some("f3g5".into()))
            .count();
        assert_eq!(a6, 1);
    }

    #[test]
    fn a_source_that_cycles_for_ever_ends_in_the_error() {
        let mut looping = Knights {
            back: H::Cycle(0),
            restart: true,
        };
        let err = build_with(root(), Color::White, Vec::new(), &mut looping, H::Cycle(0))
            .unwrap_err()
            .to_string();
        assert!(err.contains("repeats on the path"), "{err}");
    }
}
