//! Test helpers: a brute-force prover (exhaustive AND/OR search to a small depth) that
//! serves as a `ProofSource`, a brute-force `LeafOracle` for small endgames, and the
//! positions the tests prove.

#![allow(dead_code)]

use std::collections::HashMap;

use antichess_core::{Color, Move, Outcome, Position, Rules};
use antichess_proof::{
    build_proof, units, LeafOracle, LeafValue, PositionId, ProofSource, ProofTree, ProverChoice,
};

/// Exhaustive search: does `prover` win within `depth` plies?
pub struct BruteForce {
    pub prover: Color,
    pub max_depth: u32,
    memo: HashMap<(PositionId, u32), bool>,
    /// Positions with at most this many units become tablebase leaves (0: none).
    pub tablebase_units: u32,
}

impl BruteForce {
    pub fn new(prover: Color, max_depth: u32) -> BruteForce {
        BruteForce {
            prover,
            max_depth,
            memo: HashMap::new(),
            tablebase_units: 0,
        }
    }

    pub fn wins(&mut self, pos: &Position, depth: u32) -> bool {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            return pos.no_move_outcome() == Outcome::Win(self.prover);
        }
        if depth == 0 {
            return false;
        }
        let key = (PositionId::of(pos), depth);
        if let Some(&known) = self.memo.get(&key) {
            return known;
        }
        let result = if pos.turn() == self.prover {
            moves.iter().any(|&m| self.wins(&pos.play(m), depth - 1))
        } else {
            moves.iter().all(|&m| self.wins(&pos.play(m), depth - 1))
        };
        self.memo.insert(key, result);
        result
    }

    /// Plies to a forced win, if within `max_depth`.
    pub fn distance(&mut self, pos: &Position) -> Option<u32> {
        (0..=self.max_depth).find(|&d| self.wins(pos, d))
    }

    /// A move that keeps a win within `depth - 1` plies.
    pub fn winning_move(&mut self, pos: &Position, depth: u32) -> Option<Move> {
        let mut moves = pos.legal_moves();
        moves.sort_by_key(|m| m.bits());
        moves
            .into_iter()
            .find(|&m| depth > 0 && self.wins(&pos.play(m), depth - 1))
    }
}

impl ProofSource for BruteForce {
    fn prover_choice(&mut self, pos: &Position) -> Result<ProverChoice, String> {
        if self.tablebase_units > 0 && units(pos) <= self.tablebase_units {
            return Ok(ProverChoice::TablebaseLeaf);
        }
        let depth = self
            .distance(pos)
            .ok_or_else(|| format!("no win within {} plies in {}", self.max_depth, pos.fen()))?;
        self.winning_move(pos, depth)
            .map(ProverChoice::Play)
            .ok_or_else(|| "no winning move".to_string())
    }

    fn opponent_leaf(&mut self, pos: &Position) -> Result<bool, String> {
        Ok(self.tablebase_units > 0 && units(pos) <= self.tablebase_units)
    }
}

/// A "tablebase" by brute force for tiny positions (values within `depth` plies; a
/// position not decided within that depth is a draw).
pub struct BruteOracle {
    pub max_units: u32,
    pub depth: u32,
    /// Positions (by FEN board + turn) the oracle lies about: it calls them wins.
    pub lies: Vec<PositionId>,
}

impl BruteOracle {
    pub fn new(max_units: u32, depth: u32) -> BruteOracle {
        BruteOracle {
            max_units,
            depth,
            lies: Vec::new(),
        }
    }

    fn value(&self, pos: &Position) -> LeafValue {
        let me = pos.turn();
        let mut search = BruteForce::new(me, self.depth);
        if search.distance(pos).is_some() {
            return LeafValue::Win;
        }
        let mut search = BruteForce::new(me.other(), self.depth);
        if search.distance(pos).is_some() {
            LeafValue::Loss
        } else {
            LeafValue::Draw
        }
    }
}

impl LeafOracle for BruteOracle {
    fn max_units(&self) -> u32 {
        self.max_units
    }

    fn probe(&self, pos: &Position) -> Result<Option<LeafValue>, String> {
        if units(pos) > self.max_units {
            return Ok(None);
        }
        if self.lies.contains(&PositionId::of(pos)) {
            return Ok(Some(LeafValue::Win));
        }
        Ok(Some(self.value(pos)))
    }

    fn best_move(&self, pos: &Position) -> Result<Option<Move>, String> {
        if units(pos) > self.max_units {
            return Ok(None);
        }
        let mut search = BruteForce::new(pos.turn(), self.depth);
        match search.distance(pos) {
            Some(d) => Ok(search.winning_move(pos, d)),
            None => Ok(None),
        }
    }
}

/// Test positions: (name, FEN, prover) with a win for the prover within 9 plies.
pub const POSITIONS: &[(&str, &str, Color)] = &[
    ("bishop-pawn", "8/8/8/8/8/8/1p6/B7 w - - 0 1", Color::Black),
    (
        "rook-two-pawns",
        "8/p1p5/8/8/8/8/8/R7 w - - 0 1",
        Color::White,
    ),
    (
        "knight-pawns",
        "8/8/8/3p4/8/2p5/8/1N6 w - - 0 1",
        Color::White,
    ),
];

pub fn position(fen: &str) -> Position {
    Position::from_fen(fen, Rules::INTERNATIONAL).expect("valid FEN")
}

/// Builds the proof of one of the test positions.
pub fn prove(fen: &str, prover: Color, depth: u32) -> ProofTree {
    let root = position(fen);
    let mut source = BruteForce::new(prover, depth);
    build_proof(root, prover, &mut source).expect("the test position is won")
}

/// The proofs the tests use: (name, FEN, prover, search depth).
pub const PROOFS: &[(&str, &str, Color, u32)] = &[
    (
        "bishop-gives-up",
        "8/8/8/8/8/8/1p6/B7 w - - 0 1",
        Color::Black,
        3,
    ),
    (
        "rook-two-pawns",
        "8/p1p5/8/8/8/8/8/R7 w - - 0 1",
        Color::White,
        8,
    ),
    (
        "king-two-pawns",
        "8/1p4p1/8/8/8/8/3K4/8 w - - 0 1",
        Color::White,
        8,
    ),
    (
        "pawns-black-wins",
        "8/pp6/8/8/8/8/PP6/8 w - - 0 1",
        Color::Black,
        9,
    ),
    (
        "king-three-pawns",
        "8/1p2p1p1/8/8/8/8/3K4/8 w - - 0 1",
        Color::White,
        8,
    ),
    (
        "king-five-pawns",
        "8/ppp1p2p/8/8/8/8/4K3/8 w - - 0 1",
        Color::White,
        10,
    ),
    (
        "king-four-pawns",
        "8/pp2p2p/8/8/8/8/4K3/8 w - - 0 1",
        Color::White,
        10,
    ),
];

/// For each node, one past the end of its subtree.
pub fn subtree_ends(tree: &ProofTree) -> Vec<usize> {
    use antichess_proof::NodeKind;
    let nodes = tree.nodes();
    let mut ends = vec![0; nodes.len()];
    fn walk(nodes: &[antichess_proof::Node], i: usize, ends: &mut [usize]) -> usize {
        let mut next = i + 1;
        let children = match nodes[i].kind {
            NodeKind::Prover => 1,
            NodeKind::Opponent { children } => usize::from(children),
            _ => 0,
        };
        for _ in 0..children {
            next = walk(nodes, next, ends);
        }
        ends[i] = next;
        next
    }
    walk(nodes, 0, &mut ends);
    ends
}

/// Parent of each node (None for the root).
pub fn parents(tree: &ProofTree) -> Vec<Option<usize>> {
    let ends = subtree_ends(tree);
    let mut parent = vec![None; tree.len()];
    for p in 0..tree.len() {
        let mut c = p + 1;
        while c < ends[p] {
            parent[c] = Some(p);
            c = ends[c];
        }
    }
    parent
}

/// The tree with the subtree of node `i` replaced by the single node `replacement`;
/// references are renumbered (none may point into the removed part).
pub fn replace_subtree(
    tree: &ProofTree,
    i: usize,
    replacement: antichess_proof::Node,
) -> ProofTree {
    use antichess_proof::NodeKind;
    let ends = subtree_ends(tree);
    let removed = ends[i] - i - 1;
    let mut nodes = Vec::new();
    for (k, node) in tree.nodes().iter().enumerate() {
        if k == i {
            nodes.push(replacement);
        } else if k > i && k < ends[i] {
            continue;
        } else {
            let mut node = *node;
            if let NodeKind::Reference { target } = node.kind {
                let t = target as usize;
                assert!(
                    !(t > i && t < ends[i]),
                    "reference into the removed subtree"
                );
                if t >= ends[i] {
                    node.kind = NodeKind::Reference {
                        target: (t - removed) as u32,
                    };
                }
            }
            nodes.push(node);
        }
    }
    ProofTree::from_parts(*tree.root(), tree.prover(), tree.prolog().to_vec(), nodes)
        .expect("well-formed")
}
