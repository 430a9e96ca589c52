//! Proof pool: the union of many proofs from one root (the proof as found, the
//! alternatives the minimiser proved, other proof files), and the choice of one move per
//! prover position that makes the proof written from them smallest.
//!
//! Every proof added is valid on its own, so each prover position of the pool has at least
//! one move whose subtree (in the proof it came from) is complete and acyclic. Positions are
//! identified as the proof format identifies them ([`PositionId`]: board, side to move, en
//! passant square), so a position met in several proofs is one pool node with the union of
//! the moves played there.
//!
//! Size model: a proof file has one node per edge of the proof DAG plus the root, so its
//! size is `1 + Σ w(v)` over the distinct internal positions `v` it expands, where `w` is 1
//! at a prover position (its one move) and the number of legal moves at an opponent
//! position; leaves (terminal or tablebase) cost only the edge into them. Choosing the
//! moves that minimise this is a minimum AND/OR DAG problem (NP-hard in general); the pool
//! uses the two heuristics of DAG-aware technology mapping:
//!
//! - *tree costs* (Knuth's generalisation of Dijkstra's algorithm to AND/OR graphs): the
//!   smallest proof of each position written as a tree; the choices are acyclic because a
//!   position's move leads to a position settled before it.
//! - *exact local area*: with reference counts over the current DAG, switching the move of
//!   one prover position frees the part of the old subtree no one else uses and adds the
//!   part of the new one not already present; a switch is kept when it makes the DAG smaller
//!   and creates no cycle. Passes over all positions repeat until none helps.
//! - *anchoring*: before the passes, the positions the proof does not use get the moves
//!   of Knuth's tree costs with the used positions free, so that a switch brings in the
//!   new subtree as it would best join the proof, not as the proof that added it was built.
//! - *kicks* ([`Dag::force`](super::dag::Dag::force)): a switch that makes the proof
//!   larger, followed by passes that may more than make up for it (tried on a copy by the
//!   minimiser's last phase).
//! - *exact alternatives*: the minimiser offers the pool the smallest proof of a prover
//!   node that ends in the positions the rest of the proof uses
//!   ([`Dag::detached`](super::dag::Dag::detached) shows them; `exact` finds the proof).
//!
//! The search starts from the given proof's own choices and from the tree-cost choices,
//! and keeps the smaller result. It works on the DAG, so it is in `dag.rs`
//! ([`ProofPool::optimize`] and the starts), which builds on this module and not the
//! other way round.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use antichess_core::{Color, Move, Position};
use antichess_proof::{build_with, Expander, NodeKind, PositionId, ProofTree, Step};

use crate::error::{PnsError, Result};

/// A child in the pool: a pool node, or [`TERMINAL`].
pub(super) type Child = u32;

/// The child of a move that ends the game (no legal move).
pub(crate) const TERMINAL: Child = u32::MAX;

/// What the pool knows about a position.
#[derive(Debug, Clone)]
pub(super) enum Kind {
    /// The prover is to move: the moves proved here, with their children.
    Prover(Vec<(Move, Child)>),
    /// The opponent is to move: one child per legal move, in the proof format's order
    /// (empty until a proof expanding it is added).
    Opponent(Vec<Child>),
    /// A tablebase win: a leaf wherever it occurs.
    Leaf,
}

impl Kind {
    /// Whether no proof expanded the node yet.
    pub(super) fn is_empty(&self) -> bool {
        match self {
            Kind::Prover(moves) => moves.is_empty(),
            Kind::Opponent(children) => children.is_empty(),
            Kind::Leaf => true,
        }
    }
}

/// A pool node as `global` sees it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum View<'p> {
    /// The prover's moves proved here, with their children.
    Prover(&'p [(Move, Child)]),
    /// One child per legal move of the opponent.
    Opponent(&'p [Child]),
    /// A tablebase win.
    Leaf,
    /// No proof has expanded the position.
    Unproved,
}

/// The union of proofs from one root. See the module documentation.
#[derive(Debug, Clone)]
pub struct ProofPool {
    pub(super) root: Position,
    prover: Color,
    ids: HashMap<PositionId, u32>,
    pub(super) kinds: Vec<Kind>,
    positions: Vec<Position>,
    /// Expanded positions turned into tablebase leaves since the pool was made.
    pub(super) conversions: u64,
}

/// What [`ProofPool::optimize`] found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PoolReport {
    /// Positions in the pool.
    pub positions: u64,
    /// Moves proved at prover positions, over all of them.
    pub prover_moves: u64,
    /// Size of the best proof made of the first proof's own choices (after local passes;
    /// the best over the given proofs when there are several), and of the tree-cost start
    /// (after local passes); the result is the smaller.
    pub from_first: u64,
    pub from_tree_costs: u64,
    /// Moves switched by the local passes, over both starts.
    pub switches: u64,
    /// Second phase (minimisation only): switches looked at again, prover nodes whose
    /// moves were searched, searches, positions they evaluated, proofs found, and the
    /// proof's size at the end.
    pub near_misses: u64,
    /// Near misses forced and followed by local passes that made the proof smaller.
    pub kicks: u64,
    /// Budget rounds after the first, of the passes over the proof ([`crate::minimize_proof`]
    /// only) and of the last phase.
    pub rounds: u64,
    pub deep_rounds: u64,
    pub explored: u64,
    pub searched: u64,
    pub search_nodes: u64,
    pub proved: u64,
    pub after_deepening: u64,
    /// Alternatives near the root minimised on their own ([`crate::minimize_proof`]).
    pub top_minimized: u64,
    /// Exact searches for the smallest proof of a prover node that builds on the rest of
    /// the proof, positions they evaluated, milliseconds they took, and smaller proofs they
    /// found.
    pub exact_searched: u64,
    pub exact_nodes: u64,
    pub exact_millis: u64,
    pub exact_found: u64,
    /// Exact searches that ran out of their budget, and the smallest node weight (what the
    /// node's move freed, plus one) at which one did (0 if none did): below it, every node
    /// searched is known to have no smaller proof that builds on the rest of the proof.
    pub exact_gave_up: u64,
    pub exact_gave_up_min: u64,
    /// Prover nodes of the proof that no exact search had looked at when the last exact
    /// pass ran out of time (among those whose subtree it would have looked at).
    pub exact_unreached: u64,
    /// The global phase ([`crate::minimize_proof`] with `global_time`): exact searches of
    /// the other moves at the proof's prover nodes, the positions they evaluated and the
    /// proofs they found; global
    /// choices made, how many the solver failed at (the proof unchanged), how many made the
    /// proof smaller, their time; the last one's program
    /// (positions), its lower bound on the smallest proof the pool can make, and whether it
    /// proved its choice optimal over the pool.
    pub alternatives_searched: u64,
    pub alternatives_nodes: u64,
    pub alternatives_found: u64,
    pub global_runs: u64,
    pub global_failed: u64,
    pub global_found: u64,
    pub global_millis: u64,
    pub global_positions: u64,
    pub global_bound: u64,
    pub global_optimal: bool,
}

impl ProofPool {
    /// An empty pool for proofs that `prover` wins from `root`.
    #[must_use]
    pub fn new(root: Position, prover: Color) -> ProofPool {
        ProofPool {
            root,
            prover,
            ids: HashMap::new(),
            kinds: Vec::new(),
            positions: Vec::new(),
            conversions: 0,
        }
    }

    /// Positions in the pool.
    #[must_use]
    pub fn len(&self) -> usize {
        self.kinds.len()
    }

    /// Whether no proof was added.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.kinds.is_empty()
    }

    fn node(&mut self, pos: &Position, leaf: bool) -> u32 {
        let id = PositionId::of(pos);
        let index = match self.ids.get(&id) {
            Some(&i) => i,
            None => {
                let i = self.kinds.len() as u32;
                self.kinds.push(if pos.turn() == self.prover {
                    Kind::Prover(Vec::new())
                } else {
                    Kind::Opponent(Vec::new())
                });
                self.ids.insert(id, i);
                self.positions.push(*pos);
                i
            }
        };
        if leaf && !matches!(self.kinds[index as usize], Kind::Leaf) {
            // A position another proof expanded (e.g. one made with smaller tables): a leaf
            // from now on. DAGs over the pool recount their references.
            if !self.kinds[index as usize].is_empty() {
                self.conversions += 1;
            }
            self.kinds[index as usize] = Kind::Leaf;
        }
        index
    }

    /// Adds a proof (of the pool's root or of any position below it, for the same prover).
    /// The tree must be structurally sound (as built or read; it is replayed here, and a
    /// move that is not legal is an error naming the node). Returns the pool's handle on
    /// the tree's root.
    ///
    /// With `stubs`, a tablebase leaf at a position the pool has already expanded stands
    /// for that expansion (the tree was extracted with [`ProofPool::stub`] cutting it off
    /// where the pool knows a proof) instead of turning the position into a leaf.
    pub(crate) fn add_tree(&mut self, tree: &ProofTree, stubs: bool) -> Result<Child> {
        if tree.prover() != self.prover {
            return Err(PnsError::Mismatch(format!(
                "the proof is for {}, the pool for {}",
                tree.prover(),
                self.prover
            )));
        }
        struct Frame {
            pos: Position,
            index: u32,
            left: u32,
            /// Opponent node whose children are recorded from this tree.
            fill: bool,
        }
        let nodes = tree.nodes();
        let mut of_tree: Vec<Child> = Vec::with_capacity(nodes.len());
        let mut stack: Vec<Frame> = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            let pos = match (node.mv, stack.last()) {
                (None, _) => *tree.root(),
                (Some(m), Some(parent)) => {
                    if !parent.pos.is_legal(m) {
                        return Err(PnsError::invalid(format!(
                            "node {i}: {m} is not legal in {}",
                            parent.pos.fen()
                        )));
                    }
                    parent.pos.play(m)
                }
                (Some(_), None) => {
                    return Err(PnsError::invalid(format!(
                        "node {i}: a move without a parent"
                    )))
                }
            };
            let child = match node.kind {
                NodeKind::Terminal => TERMINAL,
                NodeKind::Tablebase => match self.id(&pos) {
                    Some(v) if stubs && !self.kinds[v as usize].is_empty() => v,
                    _ => self.node(&pos, true),
                },
                NodeKind::Reference { target } => {
                    *of_tree.get(target as usize).ok_or_else(|| {
                        PnsError::invalid(format!("node {i}: reference to a later node"))
                    })?
                }
                NodeKind::Prover | NodeKind::Opponent { .. } => self.node(&pos, false),
            };
            of_tree.push(child);
            if let Some(parent) = stack.last_mut() {
                parent.left -= 1;
                let (index, fill) = (parent.index, parent.fill);
                let mv = node.mv.expect("non-root nodes have moves");
                match &mut self.kinds[index as usize] {
                    Kind::Prover(_) => self.add_move(index, mv, child),
                    Kind::Opponent(children) if fill => children.push(child),
                    _ => {}
                }
            }
            let left = match node.kind {
                NodeKind::Prover => 1,
                NodeKind::Opponent { children } => u32::from(children),
                _ => 0,
            };
            if left > 0 {
                let fill = matches!(&self.kinds[child as usize], Kind::Opponent(c) if c.is_empty());
                stack.push(Frame {
                    pos,
                    index: child,
                    left,
                    fill,
                });
            }
            while stack.last().is_some_and(|f| f.left == 0) {
                stack.pop();
            }
        }
        of_tree
            .first()
            .copied()
            .ok_or_else(|| PnsError::invalid("an empty proof"))
    }

    /// Adds a proof (of the pool's root or of any position below it, for the same prover).
    /// The tree is replayed; a move that is not legal is an error naming the node.
    pub fn add(&mut self, tree: &ProofTree) -> Result<()> {
        self.add_tree(tree, false).map(|_| ())
    }

    /// The pool node of `pos` if the pool has a proof of it (an expansion or a tablebase
    /// leaf): a search may stop there, and the tree it extracts may end in a stub for it.
    pub(crate) fn stub(&self, pos: &Position) -> Option<u32> {
        self.id(pos).filter(|&v| {
            let kind = &self.kinds[v as usize];
            matches!(kind, Kind::Leaf) || !kind.is_empty()
        })
    }

    /// Records that the prover's move `mv` in `parent` leads to `child` (a handle from
    /// [`ProofPool::add_tree`] of the proof of `parent.play(mv)`).
    pub(crate) fn link(&mut self, parent: &Position, mv: Move, child: Child) {
        let v = self.node(parent, false);
        self.add_move(v, mv, child);
    }

    /// Records move `mv` to `child` at prover node `v`, unless it is known already.
    fn add_move(&mut self, v: u32, mv: Move, child: Child) {
        if let Kind::Prover(moves) = &mut self.kinds[v as usize] {
            if !moves.iter().any(|(m, _)| *m == mv) {
                moves.push((mv, child));
            }
        }
    }

    /// The pool node of a position, if any.
    pub(crate) fn id(&self, pos: &Position) -> Option<u32> {
        self.ids.get(&PositionId::of(pos)).copied()
    }

    /// What the pool knows of node `v`.
    pub(crate) fn view(&self, v: u32) -> View<'_> {
        match &self.kinds[v as usize] {
            Kind::Leaf => View::Leaf,
            kind if kind.is_empty() => View::Unproved,
            Kind::Prover(moves) => View::Prover(moves),
            Kind::Opponent(children) => View::Opponent(children),
        }
    }

    /// The position of a pool node.
    pub(crate) fn position(&self, v: u32) -> &Position {
        &self.positions[v as usize]
    }

    /// Whether the pool has a proof of the prover's move `mv` at node `v`.
    pub(crate) fn has_move(&self, v: u32, mv: Move) -> bool {
        matches!(&self.kinds[v as usize], Kind::Prover(moves) if moves.iter().any(|(m, _)| *m == mv))
    }

    /// The weight of a node: the file nodes its expansion writes (one per child).
    pub(super) fn weight(&self, v: u32) -> u64 {
        match &self.kinds[v as usize] {
            Kind::Prover(_) => 1,
            Kind::Opponent(children) => children.len() as u64,
            Kind::Leaf => 0,
        }
    }

    pub(crate) fn root_node(&self) -> Result<u32> {
        self.id(&self.root)
            .ok_or_else(|| PnsError::invalid("the pool holds no proof of its root"))
    }

    /// Writes the proof that `choice` makes.
    pub(crate) fn build_choice(&self, choice: &[u32], prolog: Vec<Move>) -> Result<ProofTree> {
        let root = self.root_node()?;
        let mut expander = PoolExpander { pool: self, choice };
        Ok(build_with(
            self.root,
            self.prover,
            prolog,
            &mut expander,
            root,
        )?)
    }

    /// The choices of `tree` (which must be in the pool), as indices into the moves of each
    /// prover node; prover nodes it does not reach keep theirs in `choice` (the tree-cost
    /// choices: the result is acyclic, since no position of the tree leads to another).
    pub(super) fn choices_of(&self, tree: &ProofTree, mut choice: Vec<u32>) -> Result<Vec<u32>> {
        let nodes = tree.nodes();
        let mut result = Ok(());
        tree.for_each_position(|i, pos, _| {
            if nodes[i].kind == NodeKind::Prover {
                let Some(&v) = self.ids.get(&PositionId::of(pos)) else {
                    result = Err(PnsError::invalid(format!(
                        "node {i} of the proof is not in the pool"
                    )));
                    return Ok(());
                };
                let mv = nodes[i + 1].mv;
                if let Kind::Prover(moves) = &self.kinds[v as usize] {
                    if let Some(k) = moves.iter().position(|(m, _)| Some(*m) == mv) {
                        choice[v as usize] = k as u32;
                    }
                }
            }
            Ok(())
        })?;
        result.map(|()| choice)
    }

    /// The tree-cost choices: Knuth's algorithm, every position settled in order of the
    /// size of its smallest proof written as a tree.
    pub(super) fn tree_cost_choices(&self, root: u32) -> Result<Vec<u32>> {
        let (choice, cost) = self.knuth(vec![0; self.kinds.len()], |_| false);
        if cost[root as usize] == u64::MAX {
            return Err(PnsError::invalid(
                "the pool has no complete proof of its root",
            ));
        }
        Ok(choice)
    }

    /// Knuth's generalisation of Dijkstra's algorithm over the pool: the cost of a
    /// position is the size of its smallest proof written as a tree, where the positions
    /// `free` says are already paid for cost nothing (they keep their choice in `choice`).
    /// Returns the choices and the costs (`u64::MAX` where the pool has no proof). Each
    /// prover position's choice leads to a position settled before it, so the choices of
    /// the positions that are not free form no cycle among themselves.
    pub(super) fn knuth(
        &self,
        mut choice: Vec<u32>,
        free: impl Fn(u32) -> bool,
    ) -> (Vec<u32>, Vec<u64>) {
        let n = self.kinds.len();
        // Parents in compressed rows: (parent, index of the move at a prover parent).
        let mut start = vec![0u32; n + 1];
        let each_edge = |f: &mut dyn FnMut(u32, u32, u32)| {
            for (v, kind) in self.kinds.iter().enumerate() {
                if free(v as u32) {
                    continue;
                }
                match kind {
                    Kind::Prover(moves) => {
                        for (k, &(_, c)) in moves.iter().enumerate() {
                            if c != TERMINAL {
                                f(c, v as u32, k as u32);
                            }
                        }
                    }
                    Kind::Opponent(children) => {
                        for &c in children {
                            if c != TERMINAL {
                                f(c, v as u32, 0);
                            }
                        }
                    }
                    Kind::Leaf => {}
                }
            }
        };
        each_edge(&mut |c, _, _| start[c as usize + 1] += 1);
        for i in 0..n {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut parents = vec![(0u32, 0u32); start[n] as usize];
        each_edge(&mut |c, p, k| {
            parents[fill[c as usize] as usize] = (p, k);
            fill[c as usize] += 1;
        });
        drop(fill);
        let mut waiting = vec![0u32; n];
        let mut cost = vec![u64::MAX; n];
        let mut partial = vec![0u64; n];
        let mut heap: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
        for (v, kind) in self.kinds.iter().enumerate() {
            if free(v as u32) {
                heap.push(Reverse((0, v as u32)));
                continue;
            }
            match kind {
                Kind::Leaf => heap.push(Reverse((0, v as u32))),
                Kind::Prover(moves) => {
                    if let Some(k) = moves.iter().position(|&(_, c)| c == TERMINAL) {
                        partial[v] = 1;
                        choice[v] = k as u32;
                        heap.push(Reverse((1, v as u32)));
                    }
                }
                Kind::Opponent(children) => {
                    let inner = children.iter().filter(|&&c| c != TERMINAL).count() as u32;
                    waiting[v] = inner;
                    partial[v] = children.len() as u64;
                    if inner == 0 && !children.is_empty() {
                        heap.push(Reverse((partial[v], v as u32)));
                    }
                }
            }
        }
        while let Some(Reverse((c, v))) = heap.pop() {
            if cost[v as usize] != u64::MAX {
                continue;
            }
            cost[v as usize] = c;
            let range = start[v as usize] as usize..start[v as usize + 1] as usize;
            for &(p, k) in &parents[range] {
                let p = p as usize;
                if cost[p] != u64::MAX {
                    continue;
                }
                match &self.kinds[p] {
                    Kind::Prover(_) => {
                        // The first child settled is the cheapest: settle the parent
                        // through it (a later, cheaper push cannot exist).
                        if partial[p] == 0 {
                            partial[p] = 1;
                            choice[p] = k;
                            heap.push(Reverse((c.saturating_add(1), p as u32)));
                        }
                    }
                    Kind::Opponent(_) => {
                        partial[p] = partial[p].saturating_add(c);
                        waiting[p] -= 1;
                        if waiting[p] == 0 {
                            heap.push(Reverse((partial[p], p as u32)));
                        }
                    }
                    Kind::Leaf => {}
                }
            }
        }
        (choice, cost)
    }
}

struct PoolExpander<'p> {
    pool: &'p ProofPool,
    choice: &'p [u32],
}

impl Expander for PoolExpander<'_> {
    type Handle = Child;

    fn prover(&mut self, pos: &Position, &v: &Child) -> Result<Step<Child>, String> {
        match self.pool.kinds.get(v as usize) {
            Some(Kind::Leaf) => Ok(Step::TablebaseLeaf),
            Some(Kind::Prover(moves)) if !moves.is_empty() => {
                let (mv, child) = moves[self.choice[v as usize] as usize];
                Ok(Step::Play(mv, child))
            }
            _ => Err(format!("the pool has no move for {}", pos.fen())),
        }
    }

    fn opponent(
        &mut self,
        pos: &Position,
        &v: &Child,
        moves: &[Move],
    ) -> Result<Option<Vec<Child>>, String> {
        match self.pool.kinds.get(v as usize) {
            Some(Kind::Leaf) => Ok(None),
            Some(Kind::Opponent(children)) if children.len() == moves.len() => {
                Ok(Some(children.clone()))
            }
            _ => Err(format!("the pool has no expansion of {}", pos.fen())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::dag::Dag;
    use super::*;
    use crate::testing::verified;
    use crate::{extract_proof, minimize_proof, MinimizeOptions, SearchOptions, Solver};
    use antichess_core::{play_move_text, Rules};

    #[test]
    fn kicks_and_anchoring_keep_the_counts_exact() {
        let pos = *play_move_text(Position::start(Rules::INTERNATIONAL), "e3 Na6")
            .unwrap()
            .position();
        let solver = Solver::new(64 << 20, None);
        let options = SearchOptions::new(Color::White);
        solver.search(&pos, &options, &mut |_| {});
        let (first, _) = extract_proof(&solver, &pos, &[], &options).unwrap();
        let mut minimize = MinimizeOptions::with_work(300_000);
        minimize.max_nodes_per_node = 4;
        let (smaller, _) =
            minimize_proof(&solver, &first, &[], &options, &minimize, &mut |_| {}).unwrap();
        let mut pool = ProofPool::new(pos, Color::White);
        pool.add(&first).unwrap();
        pool.add(&smaller).unwrap();
        let (start, _) = pool.start(&first).unwrap();
        let mut dag = pool.dag(start).unwrap();

        // Anchoring changes no choice of the proof, so neither the proof nor its size.
        let before = pool.build_choice(&dag.choice, Vec::new()).unwrap();
        dag.anchor(&pool);
        let after = pool.build_choice(&dag.choice, Vec::new()).unwrap();
        assert_eq!(before.nodes(), after.nodes());
        assert_eq!(dag.size(), after.len() as u64);

        // Every switch the proof allows, forced: the running count is the file's size, the
        // proof verifies, and the passes after it never make it larger.
        let root = pool.root_node().unwrap();
        let mut forced = 0;
        for v in dag.used_nodes() {
            let Kind::Prover(moves) = &pool.kinds[v as usize] else {
                continue;
            };
            for k in 0..moves.len() as u32 {
                let mut trial = dag.clone();
                if !trial.force(&pool, v, k) {
                    continue;
                }
                forced += 1;
                let tree = pool.build_choice(&trial.choice, Vec::new()).unwrap();
                assert_eq!(trial.size(), tree.len() as u64);
                assert_eq!(
                    Dag::new(&pool, root, trial.choice.clone()).size(),
                    trial.size()
                );
                if forced % 8 == 1 {
                    assert_eq!(verified(&tree), trial.size());
                }
                let kicked = trial.size();
                trial.local_passes(&pool);
                assert!(trial.size() <= kicked);
                let tree = pool.build_choice(&trial.choice, Vec::new()).unwrap();
                assert_eq!(trial.size(), tree.len() as u64);
            }
        }
        assert!(forced > 10, "{forced} switches forced");

        // Detaching a node's move shows the rest of the proof and changes nothing; every
        // node's ancestors include the root, and no node is its own descendant's ancestor.
        let parents = dag.parents(&pool);
        let used = dag.used_nodes();
        for &v in &used {
            if !matches!(pool.kinds[v as usize], Kind::Prover(_)) {
                continue;
            }
            let ancestors = Dag::ancestors(&parents, v);
            assert!(ancestors.contains(&root) && ancestors.contains(&v));
            let below = dag.nodes_below(&pool, v);
            assert!(below.iter().all(|u| *u == v || !ancestors.contains(u)));
            let freed = dag.detached(&pool, v, |d, freed| {
                assert!(d.used(v) && d.used(root));
                freed
            });
            assert!(freed < dag.size() && freed <= dag.cone(&pool, v));
            assert_eq!(dag.used_nodes(), used);
        }
    }
}

#[cfg(all(test, feature = "mip"))]
mod global_tests {
    use super::super::dag::Dag;
    use super::super::deadline::Deadline;
    use super::super::global::choose;
    use super::*;
    use antichess_core::Rules;
    use std::sync::atomic::AtomicBool;
    use std::sync::Arc;
    use std::time::Duration;

    /// A pool made by hand where the cheapest choice is a cycle (node 2's only move leads
    /// back to node 1): the global choice must cut it and take the real proof.
    #[test]
    fn a_cycle_is_cut_and_the_real_proof_chosen() {
        let start = Position::start(Rules::INTERNATIONAL);
        let m: Vec<Move> = start.legal_moves().iter().copied().take(3).collect();
        let kinds = vec![
            // 0: the root, with a move into the cycle, a proof of 6 and one of 8 nodes.
            Kind::Prover(vec![(m[0], 1), (m[1], 3), (m[2], 6)]),
            Kind::Opponent(vec![2]),
            Kind::Prover(vec![(m[0], 1)]),
            Kind::Opponent(vec![4, 5]),
            Kind::Prover(vec![(m[0], TERMINAL)]),
            Kind::Prover(vec![(m[0], TERMINAL)]),
            Kind::Opponent(vec![7, 8, 9]),
            Kind::Prover(vec![(m[0], TERMINAL)]),
            Kind::Prover(vec![(m[0], TERMINAL)]),
            Kind::Prover(vec![(m[0], TERMINAL)]),
        ];
        let pool = ProofPool {
            root: start,
            prover: Color::White,
            ids: HashMap::new(),
            positions: vec![start; kinds.len()],
            kinds,
            conversions: 0,
        };
        let mut dag = Dag::new(&pool, 0, vec![2, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        assert_eq!(dag.size(), 8);
        // Stopped (Ctrl-C) before it starts: the proof stays as it is.
        let raised = Some(Arc::new(AtomicBool::new(true)));
        let stopped = choose(
            &pool,
            &mut dag,
            &Deadline::new(Some(Duration::from_secs(30)), None, raised),
            None,
        );
        assert_eq!(stopped.unwrap().size, 8);
        assert_eq!((dag.choice[0], dag.size()), (2, 8));
        let outcome = choose(
            &pool,
            &mut dag,
            &Deadline::new(Some(Duration::from_secs(30)), None, None),
            None,
        )
        .unwrap();
        assert_eq!(outcome.cuts, 1, "{outcome:?}");
        assert!(outcome.optimal, "{outcome:?}");
        assert_eq!((dag.choice[0], dag.size(), outcome.bound), (1, 6, 6));
        assert!(dag.cycles(&pool, 1).is_empty());
        // The cycle itself, as the check sees it.
        let cyclic = Dag::new(&pool, 0, vec![0; 10]);
        assert_eq!(cyclic.cycles(&pool, 8), vec![vec![1, 2]]);
    }
}
