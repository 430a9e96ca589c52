//! Book nodes and their numbers: [`Status`], [`Node`], the ratio, and the minimax rule that
//! gives an expanded node its proof and disproof numbers from its children's.
//!
//! **Numbers** are those of `antichess-pns`: `u32`, [`INF`] meaning solved. They are
//! always from the *prover's* point of view: proof number 0 = the prover wins, disproof
//! number 0 = the prover cannot force a win. At the prover's nodes (OR nodes) proof = min
//! and disproof = sum over the children; at the opponent's nodes (AND nodes) the reverse;
//! sums saturate below `INF` (and are `INF` if a term is).
//!
//! **Status** follows the numbers: a node whose proof number is 0 is won, one whose
//! disproof number is 0 is lost, otherwise unknown. A won or lost node is *proven* when
//! only searches, tablebases and the rules decided it, *marked* when a person's mark
//! (`book mark`) takes part. Proven statuses are final; marked ones follow their marks.
//!
//! **Ratio** is disproof / proof (the prover's view): large when the prover is close to a
//! win. It is `RATIO_WON` for won nodes and 0 for lost ones.
//!
//! **Positions** of nodes are compared by their FENs without the clocks
//! ([`same_position`]): transpositions, seeds and transfers all do.

use antichess_core::{Move, Position, UciMove};
pub use antichess_pns::INF;

use crate::error::{BookError, Result};

/// A node's id in its store (a row id; the root has the smallest id).
pub type NodeId = i64;

/// The ratio stored for a won node (proof number 0), in place of infinity.
pub const RATIO_WON: f64 = 1e18;

/// What is known about a node.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Status {
    /// Not decided yet.
    Unknown,
    /// The prover wins (proven by searches, tablebases or the rules).
    Win,
    /// The prover cannot force a win (disproved; a draw counts as a failure).
    Loss,
    /// Counted as a win because a person marked it (or a marked node decides it).
    MarkedWin,
    /// Counted as a loss because a person marked it (or a marked node decides it).
    MarkedLoss,
}

impl Status {
    /// The code stored in the `status` column.
    #[must_use]
    pub const fn code(self) -> i64 {
        match self {
            Status::Unknown => 0,
            Status::Win => 1,
            Status::Loss => 2,
            Status::MarkedWin => 3,
            Status::MarkedLoss => 4,
        }
    }

    #[must_use]
    pub const fn from_code(code: i64) -> Option<Status> {
        Some(match code {
            0 => Status::Unknown,
            1 => Status::Win,
            2 => Status::Loss,
            3 => Status::MarkedWin,
            4 => Status::MarkedLoss,
            _ => return None,
        })
    }

    #[must_use]
    pub const fn name(self) -> &'static str {
        match self {
            Status::Unknown => "unknown",
            Status::Win => "win",
            Status::Loss => "loss",
            Status::MarkedWin => "marked win",
            Status::MarkedLoss => "marked loss",
        }
    }

    /// Won, proven or marked.
    #[must_use]
    pub const fn is_win(self) -> bool {
        matches!(self, Status::Win | Status::MarkedWin)
    }

    /// Lost, proven or marked.
    #[must_use]
    pub const fn is_loss(self) -> bool {
        matches!(self, Status::Loss | Status::MarkedLoss)
    }

    /// Won or lost.
    #[must_use]
    pub const fn is_decided(self) -> bool {
        !matches!(self, Status::Unknown)
    }

    /// Proven won or lost: final.
    #[must_use]
    pub const fn is_proven(self) -> bool {
        matches!(self, Status::Win | Status::Loss)
    }

    /// The numbers of a decided status (`None` for unknown).
    #[must_use]
    pub const fn numbers(self) -> Option<(u32, u32)> {
        if self.is_win() {
            Some((0, INF))
        } else if self.is_loss() {
            Some((INF, 0))
        } else {
            None
        }
    }
}

impl std::fmt::Display for Status {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// One node of a book, as its store holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct Node {
    pub id: NodeId,
    /// `None` at the root.
    pub parent: Option<NodeId>,
    /// The move from the parent, in UCI (`None` at the root).
    pub uci: Option<String>,
    /// Plies from the book's root.
    pub depth: u32,
    /// The position's Zobrist key ([`Position::key`]).
    pub key: u64,
    /// The position, with the clocks of the line that reached it.
    pub fen: String,
    /// The prover is to move (an OR node).
    pub prover_to_move: bool,
    /// Current proof number (minimaxed from the children once expanded).
    pub proof: u32,
    /// Current disproof number.
    pub disproof: u32,
    /// The numbers the node had as a leaf (from its own search or its parent's).
    pub leaf_proof: u32,
    pub leaf_disproof: u32,
    pub status: Status,
    /// A person set this node's status (`book mark`).
    pub marked: bool,
    /// Estimated size of the subtree below the node, in positions searched.
    pub size: u64,
    /// Positions searched below the node by the search that gave its leaf numbers.
    pub work: u64,
    /// Searches run on this node (as a leaf).
    pub searches: u32,
    /// The node's children (all its legal moves) are in the book.
    pub expanded: bool,
    /// A transposition: the proven node of the same position this one defers to.
    pub same_as: Option<NodeId>,
    /// Order in which nodes became won (a won node's proof only uses nodes won earlier).
    pub win_seq: Option<i64>,
    /// The worker holding the node (a leaf being searched) and until when (ms since the
    /// Unix epoch).
    pub claimed_by: Option<String>,
    pub lease_until: Option<i64>,
}

impl Node {
    /// A fresh leaf for `pos` with the given numbers (status from the numbers).
    #[must_use]
    pub fn leaf(
        parent: Option<NodeId>,
        uci: Option<String>,
        depth: u32,
        pos: &Position,
        prover_to_move: bool,
        proof: u32,
        disproof: u32,
        work: u64,
    ) -> Node {
        let status = status_of(proof, disproof);
        Node {
            id: 0,
            parent,
            uci,
            depth,
            key: pos.key(),
            fen: pos.fen(),
            prover_to_move,
            proof,
            disproof,
            leaf_proof: proof,
            leaf_disproof: disproof,
            status,
            marked: false,
            size: work.max(1),
            work,
            searches: 0,
            expanded: false,
            same_as: None,
            win_seq: None,
            claimed_by: None,
            lease_until: None,
        }
    }

    /// The ratio disproof / proof (see the module documentation).
    #[must_use]
    pub fn ratio(&self) -> f64 {
        ratio(self.proof, self.disproof)
    }

    /// Neither won nor lost.
    #[must_use]
    pub fn is_open(&self) -> bool {
        self.proof != 0 && self.disproof != 0
    }

    // `is_claimable` and `is_leased`: the claim rule, in `crate::store::claim`.

    /// The node's position under `rules`.
    pub fn position(&self, rules: antichess_core::Rules) -> Result<Position> {
        Position::from_fen(&self.fen, rules)
            .map_err(|e| BookError::Corrupt(format!("node {}: FEN {:?}: {e}", self.id, self.fen)))
    }

    /// The move from the parent, checked against the parent's position.
    pub fn move_from(&self, parent: &Position) -> Result<Move> {
        let uci = self
            .uci
            .as_deref()
            .ok_or_else(|| BookError::Corrupt(format!("node {} has no move", self.id)))?;
        UciMove::parse(uci)
            .and_then(|m| m.to_move(parent, uci))
            .map_err(|e| BookError::Corrupt(format!("node {}: move {uci}: {e}", self.id)))
    }
}

/// Whether two FENs describe the same position (board, side to move, castling, en passant;
/// clocks ignored).
#[must_use]
pub fn same_position(a: &str, b: &str) -> bool {
    a.split_whitespace()
        .take(4)
        .eq(b.split_whitespace().take(4))
}

/// The status that numbers imply (unmarked).
#[must_use]
pub fn status_of(proof: u32, disproof: u32) -> Status {
    if proof == 0 {
        Status::Win
    } else if disproof == 0 {
        Status::Loss
    } else {
        Status::Unknown
    }
}

/// disproof / proof, with [`RATIO_WON`] for proof 0.
#[must_use]
pub fn ratio(proof: u32, disproof: u32) -> f64 {
    if proof == 0 {
        RATIO_WON
    } else if disproof == INF {
        RATIO_WON.min(f64::from(u32::MAX))
    } else {
        f64::from(disproof) / f64::from(proof)
    }
}

/// Saturating sum of numbers: `INF` if either is, else at most `INF - 1`.
#[must_use]
pub fn add(a: u32, b: u32) -> u32 {
    if a == INF || b == INF {
        INF
    } else {
        a.saturating_add(b).min(INF - 1)
    }
}

/// What an expanded node gets from its children: numbers, status, subtree size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Combined {
    pub proof: u32,
    pub disproof: u32,
    pub status: Status,
    pub size: u64,
}

/// Minimaxes the children of a node (`or_node`: the prover is to move). Children are
/// `(proof, disproof, status, size)`.
#[must_use]
pub fn combine(or_node: bool, children: &[(u32, u32, Status, u64)]) -> Combined {
    let (mut proof, mut disproof) = if or_node { (INF, 0) } else { (0, INF) };
    for &(p, d, _, _) in children {
        if or_node {
            proof = proof.min(p);
            disproof = add(disproof, d);
        } else {
            proof = add(proof, p);
            disproof = disproof.min(d);
        }
    }
    // Status: the prover's side decides at OR nodes by one child, the opponent's by all.
    let any = |s: Status| children.iter().any(|c| c.2 == s);
    let all = |f: fn(Status) -> bool| children.iter().all(|c| f(c.2));
    let status = if or_node {
        if any(Status::Win) {
            Status::Win
        } else if any(Status::MarkedWin) {
            Status::MarkedWin
        } else if all(Status::is_loss) {
            if all(|s| s == Status::Loss) {
                Status::Loss
            } else {
                Status::MarkedLoss
            }
        } else {
            Status::Unknown
        }
    } else if any(Status::Loss) {
        Status::Loss
    } else if any(Status::MarkedLoss) {
        Status::MarkedLoss
    } else if all(Status::is_win) {
        if all(|s| s == Status::Win) {
            Status::Win
        } else {
            Status::MarkedWin
        }
    } else {
        Status::Unknown
    };
    // A decided status fixes the numbers (they agree with the minimax anyway).
    if let Some((p, d)) = status.numbers() {
        proof = p;
        disproof = d;
    }
    let size = if or_node && status.is_win() {
        children
            .iter()
            .filter(|c| c.2.is_win())
            .map(|c| c.3)
            .min()
            .unwrap_or(0)
    } else {
        children.iter().fold(0u64, |acc, c| acc.saturating_add(c.3))
    }
    .saturating_add(1);
    Combined {
        proof,
        disproof,
        status,
        size,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimax_of_or_and_and_nodes() {
        let u = Status::Unknown;
        let kids = [(3, 5, u, 10), (2, 7, u, 20)];
        let or = combine(true, &kids);
        assert_eq!((or.proof, or.disproof, or.status, or.size), (2, 12, u, 31));
        let and = combine(false, &kids);
        assert_eq!((and.proof, and.disproof, and.status), (5, 5, u));
        // One won child decides an OR node; the cheapest won child gives the size.
        let kids = [
            (0, INF, Status::Win, 40),
            (0, INF, Status::Win, 9),
            (4, 1, u, 3),
        ];
        let or = combine(true, &kids);
        assert_eq!(
            (or.proof, or.disproof, or.status, or.size),
            (0, INF, Status::Win, 10)
        );
        // An AND node needs every child; a marked child makes the result marked.
        let kids = [(0, INF, Status::Win, 4), (0, INF, Status::MarkedWin, 5)];
        assert_eq!(combine(false, &kids).status, Status::MarkedWin);
        let kids = [(0, INF, Status::Win, 4), (INF, 0, Status::Loss, 5)];
        assert_eq!(combine(false, &kids).status, Status::Loss);
        assert_eq!(combine(false, &kids).disproof, 0);
        // Sums saturate below INF.
        let kids = [(INF - 1, 1, u, 1), (INF - 1, 1, u, 1)];
        assert_eq!(combine(false, &kids).proof, INF - 1);
    }

    #[test]
    fn ratios() {
        assert_eq!(ratio(0, 5), RATIO_WON);
        assert_eq!(ratio(5, 0), 0.0);
        assert_eq!(ratio(4, 8), 2.0);
        for s in [
            Status::Unknown,
            Status::Win,
            Status::Loss,
            Status::MarkedWin,
            Status::MarkedLoss,
        ] {
            assert_eq!(Status::from_code(s.code()), Some(s));
        }
    }
}
