//! The proof DAG that a choice of moves makes over a [`ProofPool`]: reference counts, the
//! exact local area of a switch, cycle checks, kicks ([`Dag::force`]), near misses and the
//! detached view that exact searches use (see the pool's module documentation for the
//! size model). It holds no borrow of the pool, so the pool may grow between calls.

use std::collections::{HashMap, HashSet};

use antichess_proof::{PositionId, ProofTree};

use super::pool::{Child, Kind, PoolReport, ProofPool, TERMINAL};
use crate::error::Result;

/// A switch that would make the proof larger (see [`Dag::near_misses`]).
#[derive(Debug, Clone)]
pub(crate) struct NearMiss {
    /// The prover node and the index of its other move.
    pub(crate) node: u32,
    pub(crate) k: u32,
    /// How many nodes larger.
    pub(crate) excess: u64,
    /// The weight the new move's subtree would add.
    pub(crate) added: u64,
    /// Prover nodes the new move's subtree would add: smaller proofs there may turn the
    /// switch into a gain.
    pub(crate) new_provers: Vec<u32>,
}

/// The proof DAG that a choice of moves makes over a pool, with reference counts. It
/// holds no borrow of the pool, so the pool may grow between calls ([`Dag::grow`]).
#[derive(Debug, Clone)]
pub(crate) struct Dag {
    root: u32,
    /// The pool's `conversions` when the references were counted.
    conversions: u64,
    /// Per prover node, the index of its chosen move.
    pub(crate) choice: Vec<u32>,
    refs: Vec<u32>,
    total: u64,
    /// Visit marks of the cycle check.
    mark: Vec<u32>,
    stamp: u32,
    /// The pool's size when the unused nodes were last anchored (0: never).
    anchored: usize,
}

impl Dag {
    pub(crate) fn new(pool: &ProofPool, root: u32, mut choice: Vec<u32>) -> Dag {
        let n = pool.kinds.len();
        choice.resize(n, 0);
        let mut dag = Dag {
            root,
            conversions: pool.conversions,
            choice,
            refs: vec![0; n],
            total: 1,
            mark: vec![0; n],
            stamp: 0,
            anchored: 0,
        };
        let added = dag.add_ref(pool, root, None);
        dag.total += added;
        dag
    }

    /// Takes in the nodes added to the pool since (unused, with their first moves), and
    /// nodes that became tablebase leaves.
    pub(crate) fn grow(&mut self, pool: &ProofPool) {
        let n = pool.kinds.len();
        self.choice.resize(n, 0);
        self.refs.resize(n, 0);
        self.mark.resize(n, 0);
        if self.conversions != pool.conversions {
            // Expanded nodes became leaves: count the references again.
            self.conversions = pool.conversions;
            self.refs.iter_mut().for_each(|r| *r = 0);
            self.total = 1 + self.add_ref(pool, self.root, None);
        }
    }

    /// The root's pool node.
    pub(crate) fn root(&self) -> u32 {
        self.root
    }

    /// Cycles of the used nodes' choices (at most `limit`), each as its nodes in order
    /// along the cycle: depth-first from the root, one cycle per edge back to a node on
    /// the current path.
    #[cfg_attr(not(feature = "mip"), allow(dead_code))]
    pub(crate) fn cycles(&self, pool: &ProofPool, limit: usize) -> Vec<Vec<u32>> {
        // 0: not visited, 1: on the path, 2: done.
        let mut state = vec![0u8; pool.kinds.len()];
        let mut work: Vec<(u32, Vec<Child>, usize)> = Vec::new();
        let mut cycles = Vec::new();
        let children = |dag: &Dag, v: u32| {
            let mut list = Vec::new();
            dag.for_children(pool, v, |c| {
                if c != TERMINAL {
                    list.push(c);
                }
            });
            list
        };
        state[self.root as usize] = 1;
        work.push((self.root, children(self, self.root), 0));
        while let Some((v, kids, i)) = work.pop() {
            let Some(&c) = kids.get(i) else {
                state[v as usize] = 2;
                continue;
            };
            work.push((v, kids, i + 1));
            match state[c as usize] {
                0 => {
                    state[c as usize] = 1;
                    let grand = children(self, c);
                    work.push((c, grand, 0));
                }
                1 => {
                    let from = work
                        .iter()
                        .position(|w| w.0 == c)
                        .expect("c is on the path");
                    cycles.push(work[from..].iter().map(|w| w.0).collect());
                    if cycles.len() >= limit {
                        break;
                    }
                }
                _ => {}
            }
        }
        cycles
    }

    /// Nodes the proof file would have.
    pub(crate) fn size(&self) -> u64 {
        self.total
    }

    /// Whether node `v` is part of the proof.
    pub(crate) fn used(&self, v: u32) -> bool {
        self.refs[v as usize] > 0
    }

    /// The nodes of the proof.
    pub(crate) fn used_nodes(&self) -> Vec<u32> {
        (0..self.refs.len() as u32)
            .filter(|&v| self.used(v))
            .collect()
    }

    /// The distinct nodes below `v` under the current choices (`v` included).
    pub(crate) fn nodes_below(&mut self, pool: &ProofPool, v: u32) -> Vec<u32> {
        let mut nodes = Vec::new();
        self.walk(pool, v, |u| {
            nodes.push(u);
            true
        });
        nodes
    }

    /// The prover nodes of the proof, largest subtree first (sizes as in a proof of the
    /// node's own).
    pub(crate) fn provers_by_size(&mut self, pool: &ProofPool) -> Vec<(u64, u32)> {
        let used: Vec<u32> = (0..pool.kinds.len() as u32)
            .filter(|&v| self.used(v) && matches!(pool.kinds[v as usize], Kind::Prover(_)))
            .collect();
        let mut out: Vec<(u64, u32)> = used.into_iter().map(|v| (self.cone(pool, v), v)).collect();
        out.sort_by(|a, b| b.cmp(a));
        out
    }

    /// The children of `v` under the current choice.
    fn for_children(&self, pool: &ProofPool, v: u32, mut f: impl FnMut(Child)) {
        match &pool.kinds[v as usize] {
            Kind::Prover(moves) => f(moves[self.choice[v as usize] as usize].1),
            Kind::Opponent(children) => children.iter().for_each(|&c| f(c)),
            Kind::Leaf => {}
        }
    }

    /// Adds a reference to `c`; returns the weight of the nodes that became used (and
    /// collects the prover nodes among them into `provers`, if given).
    fn add_ref(&mut self, pool: &ProofPool, c: Child, mut provers: Option<&mut Vec<u32>>) -> u64 {
        let mut added = 0;
        let mut stack = vec![c];
        while let Some(v) = stack.pop() {
            if v == TERMINAL {
                continue;
            }
            self.refs[v as usize] += 1;
            if self.refs[v as usize] == 1 {
                added += pool.weight(v);
                if let Some(p) = provers.as_mut() {
                    if matches!(pool.kinds[v as usize], Kind::Prover(_)) {
                        p.push(v);
                    }
                }
                self.for_children(pool, v, |c| stack.push(c));
            }
        }
        added
    }

    /// Removes a reference to `c`; returns the weight of the nodes no longer used.
    fn remove_ref(&mut self, pool: &ProofPool, c: Child) -> u64 {
        let mut freed = 0;
        let mut stack = vec![c];
        while let Some(v) = stack.pop() {
            if v == TERMINAL {
                continue;
            }
            self.refs[v as usize] -= 1;
            if self.refs[v as usize] == 0 {
                freed += pool.weight(v);
                self.for_children(pool, v, |c| stack.push(c));
            }
        }
        freed
    }

    /// Visits the distinct nodes reachable from `from` under the current choices (`from`
    /// included) until `visit` returns false; returns whether it stopped early.
    fn walk(&mut self, pool: &ProofPool, from: Child, mut visit: impl FnMut(u32) -> bool) -> bool {
        self.stamp += 1;
        let stamp = self.stamp;
        let mut stack = vec![from];
        while let Some(v) = stack.pop() {
            if v == TERMINAL || self.mark[v as usize] == stamp {
                continue;
            }
            if !visit(v) {
                return true;
            }
            self.mark[v as usize] = stamp;
            self.for_children(pool, v, |c| stack.push(c));
        }
        false
    }

    /// Whether `target` is reachable from `from` under the current choices.
    fn reaches(&mut self, pool: &ProofPool, from: Child, target: u32) -> bool {
        self.walk(pool, from, |v| v != target)
    }

    /// The parents of every node of the proof under the current choices.
    pub(crate) fn parents(&mut self, pool: &ProofPool) -> HashMap<u32, Vec<u32>> {
        let mut parents: HashMap<u32, Vec<u32>> = HashMap::new();
        for u in self.nodes_below(pool, self.root) {
            self.for_children(pool, u, |c| {
                if c != TERMINAL {
                    parents.entry(c).or_default().push(u);
                }
            });
        }
        parents
    }

    /// `v` and the nodes from which the proof reaches it (`parents` from [`Dag::parents`]).
    pub(crate) fn ancestors(parents: &HashMap<u32, Vec<u32>>, v: u32) -> HashSet<u32> {
        let mut seen = HashSet::from([v]);
        let mut stack = vec![v];
        while let Some(u) = stack.pop() {
            for &p in parents.get(&u).map_or(&[][..], Vec::as_slice) {
                if seen.insert(p) {
                    stack.push(p);
                }
            }
        }
        seen
    }

    /// Runs `f` with the current move of used prover node `v` taken out of the proof (the
    /// nodes only it used are unused meanwhile) and the weight that freed; puts it back.
    /// What `f` sees used is what a new proof of `v` can end in, but for `v`'s ancestors.
    pub(crate) fn detached<R>(
        &mut self,
        pool: &ProofPool,
        v: u32,
        f: impl FnOnce(&Dag, u64) -> R,
    ) -> R {
        let Kind::Prover(moves) = &pool.kinds[v as usize] else {
            return f(self, 0);
        };
        let old_child = moves[self.choice[v as usize] as usize].1;
        let freed = self.remove_ref(pool, old_child);
        let result = f(self, freed);
        self.add_ref(pool, old_child, None);
        result
    }

    /// The weight of the distinct nodes below `v` (its subtree's size in a proof of its
    /// own).
    pub(crate) fn cone(&mut self, pool: &ProofPool, v: u32) -> u64 {
        let mut total = 0;
        self.walk(pool, v, |u| {
            total += pool.weight(u);
            true
        });
        total
    }

    /// What switching used prover node `v` to its move `k` would change: the weight it
    /// frees, the weight it adds, and the prover nodes it adds. Nothing is changed.
    fn evaluate(
        &mut self,
        pool: &ProofPool,
        v: u32,
        k: u32,
        provers: Option<&mut Vec<u32>>,
    ) -> (u64, u64) {
        let Kind::Prover(moves) = &pool.kinds[v as usize] else {
            return (0, 0);
        };
        let old_child = moves[self.choice[v as usize] as usize].1;
        let new_child = moves[k as usize].1;
        let freed = self.remove_ref(pool, old_child);
        let added = self.add_ref(pool, new_child, provers);
        self.remove_ref(pool, new_child);
        self.add_ref(pool, old_child, None);
        (freed, added)
    }

    /// Switches used prover node `v` to whichever of its moves makes the proof smallest
    /// without a cycle; whether it switched.
    pub(crate) fn improve_node(&mut self, pool: &ProofPool, v: u32) -> bool {
        let Kind::Prover(moves) = &pool.kinds[v as usize] else {
            return false;
        };
        let mut switched = false;
        for k in 0..moves.len() as u32 {
            let old = self.choice[v as usize];
            if k == old || !self.used(v) {
                continue;
            }
            let old_child = moves[old as usize].1;
            let new_child = moves[k as usize].1;
            let freed = self.remove_ref(pool, old_child);
            let added = self.add_ref(pool, new_child, None);
            if added < freed && !self.reaches(pool, new_child, v) {
                self.choice[v as usize] = k;
                self.total = self.total + added - freed;
                switched = true;
            } else {
                self.remove_ref(pool, new_child);
                self.add_ref(pool, old_child, None);
            }
        }
        switched
    }

    /// Re-chooses the moves of the prover nodes the proof does not use so that each leads
    /// into the proof most cheaply: Knuth's tree costs with the used nodes free. A switch
    /// then brings in the new move's subtree as it would best join what is already there,
    /// not as the proof that added it was built (which knew nothing of the current DAG).
    /// The proof itself is unchanged; no cycle can form, since the used nodes reach no
    /// unused one and the unused nodes' choices are acyclic among themselves.
    pub(crate) fn anchor(&mut self, pool: &ProofPool) {
        let refs = &self.refs;
        #[cfg(debug_assertions)]
        let before = self.choice.clone();
        let (choice, _) = pool.knuth(std::mem::take(&mut self.choice), |v| refs[v as usize] > 0);
        #[cfg(debug_assertions)]
        debug_assert!(
            (0..choice.len()).all(|v| refs[v] == 0 || choice[v] == before[v]),
            "anchoring keeps the proof's own choices"
        );
        self.choice = choice;
    }

    /// Switches used prover node `v` to its move `k` whatever the size (a *kick*: the local
    /// passes that follow may make up for it); refused if it would close a cycle. Whether
    /// it switched.
    pub(crate) fn force(&mut self, pool: &ProofPool, v: u32, k: u32) -> bool {
        let Kind::Prover(moves) = &pool.kinds[v as usize] else {
            return false;
        };
        let old = self.choice[v as usize];
        if k == old || k as usize >= moves.len() || !self.used(v) {
            return false;
        }
        let (old_child, new_child) = (moves[old as usize].1, moves[k as usize].1);
        let freed = self.remove_ref(pool, old_child);
        let added = self.add_ref(pool, new_child, None);
        if self.reaches(pool, new_child, v) {
            self.remove_ref(pool, new_child);
            self.add_ref(pool, old_child, None);
            return false;
        }
        self.choice[v as usize] = k;
        self.total = self.total + added - freed;
        true
    }

    /// Passes over the used prover nodes, switching moves while a switch makes the proof
    /// smaller, the unused nodes anchored to the proof before each pass; returns the
    /// number of switches.
    pub(crate) fn local_passes(&mut self, pool: &ProofPool) -> u64 {
        let mut switches = 0;
        // Anchoring costs a pass over the whole pool: again only once the pool has grown
        // by a twentieth, or the proof has changed.
        let mut anchor = self.anchored == 0 || pool.len() >= self.anchored + self.anchored / 20;
        loop {
            if anchor {
                self.anchor(pool);
                self.anchored = pool.len();
            }
            anchor = true;
            let mut improved = false;
            for v in 0..pool.kinds.len() as u32 {
                if self.used(v)
                    && matches!(&pool.kinds[v as usize], Kind::Prover(m) if m.len() > 1)
                    && self.improve_node(pool, v)
                {
                    switches += 1;
                    improved = true;
                }
            }
            if !improved {
                return switches;
            }
        }
    }

    /// Switches that would make the proof larger, least relative growth first: for every
    /// used prover node and other move, the growth and the prover nodes the new move would
    /// add.
    pub(crate) fn near_misses(&mut self, pool: &ProofPool) -> Vec<NearMiss> {
        let mut misses = Vec::new();
        for v in 0..pool.kinds.len() as u32 {
            if !self.used(v) {
                continue;
            }
            let Kind::Prover(moves) = &pool.kinds[v as usize] else {
                continue;
            };
            for k in 0..moves.len() as u32 {
                if k == self.choice[v as usize] {
                    continue;
                }
                let mut new_provers = Vec::new();
                let (freed, added) = self.evaluate(pool, v, k, Some(&mut new_provers));
                if added >= freed {
                    misses.push(NearMiss {
                        node: v,
                        k,
                        excess: added - freed,
                        added,
                        new_provers,
                    });
                }
            }
        }
        // Least growth relative to the new subtree first: minimising a large subtree by
        // a few percent is as likely as a small one by many.
        misses.sort_by(|a, b| {
            (u128::from(a.excess) * u128::from(b.added.max(1)))
                .cmp(&(u128::from(b.excess) * u128::from(a.added.max(1))))
        });
        misses
    }
}

// The pool's choice of moves, which works on the DAG: here, so that the pool itself
// (`pool.rs`) does not use the DAG.
impl ProofPool {
    /// The smallest proof the pool can make (see the pool's module documentation), and what the
    /// search did. `first` is the proof whose choices are the first start (normally the
    /// one the pool was first filled with); its root must be the pool's root.
    pub fn optimize(&self, first: &ProofTree) -> Result<(ProofTree, PoolReport)> {
        let (choice, report) = self.start(first)?;
        let tree = self.build_choice(&choice, first.prolog().to_vec())?;
        Ok((tree, report))
    }

    /// The best choice of moves from the two starts (see the pool's module documentation).
    pub(crate) fn start(&self, first: &ProofTree) -> Result<(Vec<u32>, PoolReport)> {
        self.start_from(first, &[])
    }

    /// [`ProofPool::start`] with more starts: the choices of each of `others` (proofs of
    /// the pool's root that were added to it; proofs of other positions are skipped), and
    /// the smallest after local passes wins. `from_first` reports the best of these.
    pub(crate) fn start_from(
        &self,
        first: &ProofTree,
        others: &[ProofTree],
    ) -> Result<(Vec<u32>, PoolReport)> {
        let root = self.root_node()?;
        let mut report = PoolReport {
            positions: self.kinds.len() as u64,
            prover_moves: self
                .kinds
                .iter()
                .map(|k| match k {
                    Kind::Prover(m) => m.len() as u64,
                    _ => 0,
                })
                .sum(),
            ..PoolReport::default()
        };
        let tree_costs = self.tree_cost_choices(root)?;
        let mut starts = vec![self.choices_of(first, tree_costs.clone())?];
        for other in others {
            if PositionId::of(other.root()) == PositionId::of(&self.root) {
                starts.push(self.choices_of(other, tree_costs.clone())?);
            }
        }
        let from_proofs = starts.len();
        starts.push(tree_costs);
        let mut best: Option<(u64, Vec<u32>)> = None;
        report.from_first = u64::MAX;
        for (i, start) in starts.into_iter().enumerate() {
            let mut dag = Dag::new(self, root, start);
            report.switches += dag.local_passes(self);
            let size = dag.size();
            if i < from_proofs {
                report.from_first = report.from_first.min(size);
            } else {
                report.from_tree_costs = size;
            }
            if best.as_ref().is_none_or(|b| size < b.0) {
                best = Some((size, dag.choice));
            }
        }
        Ok((best.expect("at least two starts").1, report))
    }

    /// The proof DAG of `choice` (extended to nodes added since with their first moves,
    /// which keeps the choices acyclic: a new node's first move is from the proof that
    /// added it).
    pub(crate) fn dag(&self, choice: Vec<u32>) -> Result<Dag> {
        Ok(Dag::new(self, self.root_node()?, choice))
    }
}
