//! Turning a solved book into one proof file: prune the book to one winning prover move
//! per node (the won child with the smallest subtree estimate, among those won before the
//! node itself), re-solve each leaf of the pruned book with proof output, and assemble the
//! book's moves and the leaves' proofs into one [`ProofTree`] with
//! `antichess_proof::build_with` (which shares identical positions). The file is written
//! in the compact format and checked by the independent verifier.
//!
//! Each leaf goes through the prove pipeline of `antichess-pns`
//! ([`antichess_pns::prove_position`], the proof kept in memory), and so does the
//! assembled proof ([`antichess_pns::finish_proof`]: the minimisation, the atomic write
//! and the verification).
//!
//! A node whose position has a seed proof ([`crate::seed`]) takes that proof as it is
//! (spliced in like a re-solved leaf's), whatever the book holds below it.
//!
//! The builder walks the game tree and asks an [`Expander`] what to play; our handle on a
//! node is either a book node or a node of one leaf's proof tree (references in those
//! trees are followed to their targets).
//!
//! Re-solving the leaves is the long part of a large book's proof. With a leaf directory
//! ([`AssembleOptions::leaf_dir`], see [`crate::leaves`]) each leaf's proof is saved there as
//! it is found (and `book grow` may have saved it there when it proved the leaf) and read
//! back instead of searched again, so a prove that was stopped (Ctrl-C: the
//! [`AssembleOptions::stop`] flag interrupts the search under way) or killed resumes where it
//! was. A saved proof is used only if its root is the leaf's position with the same
//! prover and rules; anything else there is searched again and overwritten. Saved proofs
//! need no trust: the assembled file goes through the verifier like any other.
//!
//! With several threads ([`AssembleOptions::threads`]) a first pass of the builder walks the
//! pruned book only, treating its leaves as won, to list them; the threads re-solve them
//! (each with a solver of its own), and the assembly then takes their proofs.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::Arc;
use std::time::{Duration, Instant};

use antichess_core::{Color, Move, Position};
use antichess_pns::{
    extract_proof, finish_proof, prove_position, MinimizeOptions, PoolReport, ProofOutput,
    SearchOptions, SearchStatus, Solver,
};
use antichess_proof::{
    build_with, Expander, IndexedTree, PositionId, ProofCounts, ProofStats, ProofTree, Step,
};
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::node::{Node, NodeId, Status};
use crate::Book;

/// How to re-solve the leaves.
#[derive(Debug, Clone)]
pub struct AssembleOptions {
    /// The solver's transposition table, in bytes (one solver serves every leaf).
    pub hash_bytes: usize,
    /// Node budget of one leaf's re-solve (`None`: no limit).
    pub leaf_nodes: Option<u64>,
    pub tablebase_units: u32,
    pub lone_bishop_rule: bool,
    /// Time for `antichess_pns::minimize_proof` on the assembled proof (`None`: none).
    pub minimize: Option<Duration>,
    /// A work budget for that minimisation instead of (or as well as) the time: positions
    /// its searches may evaluate, the same on every machine (`None`: none; alone, it
    /// minimises with no time limit).
    pub minimize_work: Option<u64>,
    /// Raised (Ctrl-C) while the leaves are re-solved, the search under way stops and the
    /// prove fails with [`BookError::Interrupted`] (the leaves already saved in
    /// `leaf_dir` are kept for the next run); raised during the minimisation, that ends as
    /// if its time were up and the proof is written as it then is.
    pub stop: Option<Arc<AtomicBool>>,
    /// Where re-solved leaves' proofs are saved and looked up (see the module
    /// documentation); `None`: every leaf is searched and nothing is saved.
    pub leaf_dir: Option<PathBuf>,
    /// Threads re-solving leaves, each with a solver of its own (a table of `hash_bytes`
    /// each). With more than one, the pruned book is walked first to list its leaves.
    pub threads: usize,
}

impl Default for AssembleOptions {
    fn default() -> AssembleOptions {
        AssembleOptions {
            hash_bytes: 1 << 30,
            leaf_nodes: None,
            tablebase_units: 0,
            lone_bishop_rule: true,
            minimize: None,
            minimize_work: None,
            stop: None,
            leaf_dir: None,
            threads: 1,
        }
    }
}

/// Progress of proof assembly.
#[derive(Debug, Clone)]
pub enum ProveEvent {
    /// A leaf was re-solved.
    LeafSolved {
        leaves: u64,
        fen: String,
        proof_nodes: u64,
        search_nodes: u64,
    },
    /// The minimiser's state: the proof's size now, and the searches it made.
    Minimizing { proof_nodes: u64, searches: u64 },
}

/// What assembling a proof did.
#[derive(Debug, Clone)]
pub struct ProveReport {
    /// Node counts of the assembled proof.
    pub counts: ProofCounts,
    /// Book nodes the pruned book kept (each visited once).
    pub book_nodes: u64,
    /// Leaves re-solved or read back from the leaf directory.
    pub leaves: u64,
    /// Of those, the leaves whose proofs were read from the leaf directory.
    pub leaves_reused: u64,
    /// Book nodes whose proofs were taken from the book's seeds.
    pub seeds_used: u64,
    /// Positions evaluated by the leaves' searches.
    pub search_nodes: u64,
    /// Nodes the extraction had to search again (the table had lost them).
    pub researched: u64,
    /// With minimisation: the assembled proof's size, and the minimiser's report.
    pub assembled_nodes: u64,
    pub minimized: Option<PoolReport>,
    pub seconds: f64,
}

/// The builder's handle on a node.
#[derive(Debug, Clone, Copy)]
enum Handle {
    Book(NodeId),
    Leaf { tree: usize, index: u32 },
}

struct Assembler<'b, 't, 's> {
    book: &'b mut Book,
    solver: Solver<'t>,
    options: AssembleOptions,
    /// The book's seed proofs (tree indices below `seed_trees.len()`).
    seed_trees: &'s [IndexedTree],
    /// The leaves' proof trees (tree indices from `seed_trees.len()` on).
    trees: Vec<IndexedTree>,
    /// Leaf trees by book node.
    solved: HashMap<NodeId, usize>,
    /// Seed proofs (see [`crate::seed`]), by their root positions.
    seeds: &'s HashMap<PositionId, usize>,
    book_nodes: u64,
    search_nodes: u64,
    researched: u64,
    leaves_reused: u64,
    seeds_used: u64,
    /// Set when the stop flag cut a leaf's search short.
    interrupted: bool,
    /// Book node → the first-won node of its position (see [`Assembler::resolve`]).
    first_won: HashMap<NodeId, Node>,
    /// Leaves the parallel phase solved, by book node.
    presolved: HashMap<NodeId, SolvedLeaf>,
    /// In the collecting pass (before the parallel phase): the leaves met, which the
    /// pass treats as won without looking further.
    collect: Option<Vec<(Node, Position)>>,
    progress: &'b mut dyn FnMut(ProveEvent),
}

impl Assembler<'_, '_, '_> {
    /// The node a handle's book node stands for: following transpositions, then the node
    /// of the same position that was won first.
    ///
    /// Two nodes of one position can both be won on their own (each by its own subtree,
    /// before either could defer to the other). The builder shares identical positions, so
    /// a walk that took one node's winning line into the other's position would close a
    /// cycle. Every position is therefore walked from its first-won node only: the walk
    /// then goes to strictly earlier wins at every step (a winning child won before its
    /// parent, an opponent node's children all won before it), and no position can come
    /// back on a path.
    fn resolve(&mut self, id: NodeId) -> std::result::Result<Node, String> {
        let mut node = self.book.node(id).map_err(|e| e.to_string())?;
        let mut hops = 0;
        while let Some(target) = node.same_as {
            node = self.book.node(target).map_err(|e| e.to_string())?;
            hops += 1;
            if hops > 1000 {
                return Err(format!("node {id}: a cycle of transpositions"));
            }
        }
        if !node.status.is_win() {
            return Err(format!(
                "book node {} ({}) is not won but the proof needs it",
                node.id, node.fen
            ));
        }
        if let Some(first) = self.first_won.get(&node.id) {
            return Ok(first.clone());
        }
        let first = self
            .book
            .nodes_with_key(node.key)
            .map_err(|e| e.to_string())?
            .into_iter()
            .filter(|t| {
                t.status.is_win()
                    && t.same_as.is_none()
                    && t.win_seq.is_some()
                    && crate::node::same_position(&t.fen, &node.fen)
            })
            .min_by_key(|t| (t.win_seq, t.id));
        let from = node.id;
        let first = match first {
            Some(f) if f.win_seq < node.win_seq || node.win_seq.is_none() => f,
            _ => node,
        };
        self.first_won.insert(from, first.clone());
        Ok(first)
    }

    /// The winning move of a won prover node from its children, if the book has one.
    fn winning_child(&mut self, node: &Node) -> std::result::Result<Option<Node>, String> {
        if !node.expanded || node.marked {
            return Ok(None);
        }
        let children = self.book.children(node.id).map_err(|e| e.to_string())?;
        let earlier = |c: &Node| match (c.win_seq, node.win_seq) {
            (Some(c), Some(n)) => c < n,
            _ => false,
        };
        // Proven before marked, won before the node, then the smallest subtree.
        Ok(children
            .into_iter()
            .filter(|c| c.status.is_win())
            .min_by_key(|c| (c.status != Status::Win, !earlier(c), c.size, c.id)))
    }

    /// Whether the tablebases (within the units searched) say the prover wins at `pos`.
    fn tablebase_win(&self, pos: &Position) -> bool {
        !pos.legal_moves().is_empty()
            && crate::expand::decide_without_search(
                pos,
                self.book.meta().prover,
                &self.solver,
                self.options.tablebase_units,
            ) == Some(Status::Win)
    }

    /// Re-solves a book leaf at `pos` (or takes its proof from the parallel phase or the
    /// leaf directory) and returns its tree's index.
    fn solve_leaf(&mut self, node: &Node, pos: &Position) -> std::result::Result<usize, String> {
        if let Some(&t) = self.solved.get(&node.id) {
            return Ok(t);
        }
        if let Some(leaf) = self.presolved.remove(&node.id) {
            return Ok(self.add_leaf(node, pos, leaf.tree, None));
        }
        let prover = self.book.meta().prover;
        if let Some(tree) = saved_leaf(&self.options, prover, pos) {
            self.leaves_reused += 1;
            return Ok(self.add_leaf(node, pos, tree, Some(0)));
        }
        match solve_one(&self.solver, pos, node.id, prover, &self.options) {
            Ok(leaf) => {
                self.search_nodes += leaf.nodes;
                self.researched += leaf.researched;
                Ok(self.add_leaf(node, pos, leaf.tree, Some(leaf.nodes)))
            }
            Err(LeafFailure::Interrupted) => {
                self.interrupted = true;
                Err(format!("interrupted while re-solving {}", pos.fen()))
            }
            Err(LeafFailure::Failed(why)) => Err(why),
        }
    }

    /// In the collecting pass: notes a leaf to re-solve and says so.
    fn collected(&mut self, node: &Node, pos: &Position) -> bool {
        let Some(leaves) = &mut self.collect else {
            return false;
        };
        if self.solved.insert(node.id, usize::MAX).is_none() {
            leaves.push((node.clone(), *pos));
        }
        true
    }

    /// Keeps a leaf's proof tree for the assembly and tells the progress callback (unless
    /// `searched` is `None`: the parallel phase told it).
    fn add_leaf(
        &mut self,
        node: &Node,
        pos: &Position,
        tree: ProofTree,
        searched: Option<u64>,
    ) -> usize {
        let t = self.seed_trees.len() + self.trees.len();
        let proof_nodes = tree.len() as u64;
        self.trees.push(IndexedTree::new(tree));
        self.solved.insert(node.id, t);
        if let Some(search_nodes) = searched {
            (self.progress)(ProveEvent::LeafSolved {
                leaves: self.trees.len() as u64,
                fen: pos.fen(),
                proof_nodes,
                search_nodes,
            });
        }
        t
    }

    /// A tree by its index: a seed's, then the leaves'.
    fn tree(&self, t: usize) -> &IndexedTree {
        match t.checked_sub(self.seed_trees.len()) {
            None => &self.seed_trees[t],
            Some(leaf) => &self.trees[leaf],
        }
    }

    fn leaf_prover(&self, tree: usize, index: u32) -> std::result::Result<Step<Handle>, String> {
        Ok(match self.tree(tree).prover_step(index)? {
            Step::Play(mv, child) => Step::Play(mv, Handle::Leaf { tree, index: child }),
            Step::TablebaseLeaf => Step::TablebaseLeaf,
        })
    }

    fn leaf_opponent(
        &self,
        tree: usize,
        index: u32,
        moves: &[Move],
    ) -> std::result::Result<Option<Vec<Handle>>, String> {
        let children = self.tree(tree).opponent_children(index, moves)?;
        Ok(children.map(|c| {
            c.into_iter()
                .map(|index| Handle::Leaf { tree, index })
                .collect()
        }))
    }
}

impl Expander for Assembler<'_, '_, '_> {
    type Handle = Handle;

    fn prover(
        &mut self,
        pos: &Position,
        handle: &Handle,
    ) -> std::result::Result<Step<Handle>, String> {
        match *handle {
            Handle::Leaf { tree, index } => self.leaf_prover(tree, index),
            Handle::Book(id) => {
                let node = self.resolve(id)?;
                self.book_nodes += 1;
                if let Some(&t) = self.seeds.get(&PositionId::of(pos)) {
                    self.seeds_used += 1;
                    return self.leaf_prover(t, 0);
                }
                if let Some(child) = self.winning_child(&node)? {
                    let mv = child.move_from(pos).map_err(|e| e.to_string())?;
                    return Ok(Step::Play(mv, Handle::Book(child.id)));
                }
                if self.tablebase_win(pos) || self.collected(&node, pos) {
                    return Ok(Step::TablebaseLeaf);
                }
                let tree = self.solve_leaf(&node, pos)?;
                self.leaf_prover(tree, 0)
            }
        }
    }

    fn opponent(
        &mut self,
        pos: &Position,
        handle: &Handle,
        moves: &[Move],
    ) -> std::result::Result<Option<Vec<Handle>>, String> {
        match *handle {
            Handle::Leaf { tree, index } => self.leaf_opponent(tree, index, moves),
            Handle::Book(id) => {
                let node = self.resolve(id)?;
                self.book_nodes += 1;
                if let Some(&t) = self.seeds.get(&PositionId::of(pos)) {
                    self.seeds_used += 1;
                    return self.leaf_opponent(t, 0, moves);
                }
                if node.expanded && !node.marked {
                    let children = self.book.children(node.id).map_err(|e| e.to_string())?;
                    if children.iter().all(|c| c.status.is_win()) {
                        let by_uci: HashMap<String, NodeId> = children
                            .iter()
                            .filter_map(|c| c.uci.clone().map(|u| (u, c.id)))
                            .collect();
                        return moves
                            .iter()
                            .map(|m| {
                                by_uci
                                    .get(&m.to_uci())
                                    .map(|&c| Handle::Book(c))
                                    .ok_or_else(|| {
                                        format!("book node {} lacks the move {m}", node.id)
                                    })
                            })
                            .collect::<std::result::Result<Vec<_>, _>>()
                            .map(Some);
                    }
                }
                if self.tablebase_win(pos) || self.collected(&node, pos) {
                    return Ok(None);
                }
                let tree = self.solve_leaf(&node, pos)?;
                self.leaf_opponent(tree, 0, moves)
            }
        }
    }

    /// A leaf's search knows only the path below the leaf, so its proof may lead back to a
    /// position on the book's path above it (1. e3 Nc6 ... 3... Nb8 met this: a rook
    /// ending's 35. Rg7 Kh1 came back after 36. Re7 Kg2 37. Rg7 Kh1). That position is
    /// then proved from the leaf proof's node, a proof complete by itself, instead of by
    /// the book's line. Book handles never restart: their walk goes to strictly earlier
    /// wins ([`Assembler::resolve`]) and cannot come back.
    fn restart_at_repeat(&self, handle: &Handle) -> bool {
        matches!(handle, Handle::Leaf { .. })
    }
}

/// A leaf's proof, and what finding it took.
struct SolvedLeaf {
    tree: ProofTree,
    nodes: u64,
    researched: u64,
}

/// Why a leaf has no proof.
enum LeafFailure {
    /// The stop flag was raised.
    Interrupted,
    /// The search did not prove it, or the extraction or the saving failed.
    Failed(String),
}

/// Where the proof of the leaf at `pos` is saved, if leaves are saved.
/// The saved proof of the leaf at `pos`, if there is a readable one of this position,
/// prover and rule set.
fn saved_leaf(options: &AssembleOptions, prover: Color, pos: &Position) -> Option<ProofTree> {
    let dir = options.leaf_dir.as_ref()?;
    crate::leaves::saved(dir, options.tablebase_units, prover, pos)
}

/// Searches the leaf at `pos` (book node `id`), extracts its proof and saves it.
fn solve_one(
    solver: &Solver<'_>,
    pos: &Position,
    id: NodeId,
    prover: Color,
    options: &AssembleOptions,
) -> std::result::Result<SolvedLeaf, LeafFailure> {
    let stopped = || options.stop.as_ref().is_some_and(|s| s.load(Relaxed));
    if stopped() {
        return Err(LeafFailure::Interrupted);
    }
    let mut search = SearchOptions::new(prover);
    search.max_nodes = options.leaf_nodes;
    search.tablebase_units = options.tablebase_units;
    search.lone_bishop_rule = options.lone_bishop_rule;
    search.interrupt.clone_from(&options.stop);
    // The extraction's re-searches of lost nodes never take the stop flag: a proof found
    // is always extracted whole.
    let mut prove = antichess_pns::ProveOptions::new(search.clone());
    prove.output = ProofOutput::Memory { verify: false };
    prove.main_line_plies = 0;
    let solved = prove_position(solver, pos, &prove, &mut |_| {})
        .map_err(|e| LeafFailure::Failed(e.to_string()))?;
    let result = solved.search;
    if result.status == SearchStatus::Unknown && stopped() {
        return Err(LeafFailure::Interrupted);
    }
    if result.status != SearchStatus::Proved && !pos.legal_moves().is_empty() {
        return Err(LeafFailure::Failed(format!(
            "re-solving the leaf {} (book node {id}) did not prove it ({}, proof {}, disproof {}, {} nodes)",
            pos.fen(),
            result.status.name(),
            result.proof,
            result.disproof,
            result.nodes
        )));
    }
    let (tree, researched) = match solved.proof {
        Some(proof) => (
            proof.tree.ok_or_else(|| {
                LeafFailure::Failed(format!("no proof of the leaf {} in memory", pos.fen()))
            })?,
            proof.researched,
        ),
        // A leaf with no legal move: the extraction says whether it is won.
        None => {
            search.interrupt = None;
            extract_proof(solver, pos, &[], &search)
                .map_err(|e| LeafFailure::Failed(e.to_string()))?
        }
    };
    if let Some(dir) = &options.leaf_dir {
        crate::leaves::save(dir, options.tablebase_units, &tree)
            .map_err(|e| LeafFailure::Failed(e.to_string()))?;
    }
    Ok(SolvedLeaf {
        tree,
        nodes: result.nodes,
        researched,
    })
}

/// The error of a prove stopped after `done` leaves.
fn interrupted(options: &AssembleOptions, done: usize) -> BookError {
    BookError::Interrupted(match (&options.leaf_dir, done) {
        (_, 0) => "interrupted before any leaf was re-solved".to_string(),
        (Some(d), _) => format!(
            "interrupted after {done} leaves re-solved; their proofs are saved in {} and the same command goes on from them",
            d.display()
        ),
        (None, _) => format!("interrupted after {done} leaves re-solved"),
    })
}

/// What the parallel phase did.
#[derive(Default)]
struct Parallel {
    solved: HashMap<NodeId, SolvedLeaf>,
    reused: u64,
    search_nodes: u64,
    researched: u64,
}

/// Re-solves `leaves` on `options.threads` threads, each with a solver of its own; leaves
/// with a saved proof are left to the assembly, which reads them.
fn solve_in_parallel(
    leaves: Vec<(Node, Position)>,
    tablebase: Option<&Tablebase>,
    prover: Color,
    options: &AssembleOptions,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<Parallel> {
    let mut done = Parallel::default();
    let mut queue = Vec::new();
    for (node, pos) in leaves {
        if saved_leaf(options, prover, &pos).is_some() {
            done.reused += 1;
        } else {
            queue.push((node.id, pos));
        }
    }
    // Popped from the end: in the order of the walk.
    queue.reverse();
    let queue = std::sync::Mutex::new(queue);
    let failed = AtomicBool::new(false);
    let (send, receive) = std::sync::mpsc::channel();
    let threads = options.threads.max(1);
    let errors = std::thread::scope(|scope| {
        for _ in 0..threads {
            let send = send.clone();
            let (queue, failed) = (&queue, &failed);
            scope.spawn(move || {
                let solver = match Solver::try_new(options.hash_bytes, tablebase) {
                    Ok(s) => s,
                    Err(e) => {
                        failed.store(true, Relaxed);
                        let _ = send.send(Err(LeafFailure::Failed(e.to_string())));
                        return;
                    }
                };
                while !failed.load(Relaxed) {
                    let Some((id, pos)) = queue.lock().unwrap_or_else(|e| e.into_inner()).pop()
                    else {
                        break;
                    };
                    let leaf = solve_one(&solver, &pos, id, prover, options);
                    if leaf.is_err() {
                        failed.store(true, Relaxed);
                    }
                    let _ = send.send(leaf.map(|l| (id, pos, l)));
                }
            });
        }
        drop(send);
        let mut errors = Vec::new();
        for message in receive {
            match message {
                Ok((id, pos, leaf)) => {
                    done.search_nodes += leaf.nodes;
                    done.researched += leaf.researched;
                    progress(ProveEvent::LeafSolved {
                        leaves: done.reused + done.solved.len() as u64 + 1,
                        fen: pos.fen(),
                        proof_nodes: leaf.tree.len() as u64,
                        search_nodes: leaf.nodes,
                    });
                    done.solved.insert(id, leaf);
                }
                Err(e) => errors.push(e),
            }
        }
        errors
    });
    // A real failure says more than the interruptions it caused on other threads.
    if let Some(why) = errors.iter().find_map(|e| match e {
        LeafFailure::Failed(why) => Some(why.clone()),
        LeafFailure::Interrupted => None,
    }) {
        return Err(BookError::Proof(format!("assembling the proof: {why}")));
    }
    if !errors.is_empty() {
        return Err(interrupted(options, done.solved.len()));
    }
    Ok(done)
}

/// Assembles the proof of a solved book in memory (minimised with `options.minimize`,
/// unverified).
pub fn assemble_proof(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProofTree, ProveReport)> {
    let (tree, solver, mut report) = assemble(book, None, tablebase, options, None, progress)?;
    let prover = book.meta().prover;
    let start = Instant::now();
    let outcome = finish(
        &solver,
        tree,
        prover,
        options,
        ProofOutput::Memory { verify: false },
        progress,
    )?;
    report.counts = outcome.counts;
    report.minimized = outcome.minimized.and_then(|m| m.pool);
    report.seconds += start.elapsed().as_secs_f64();
    let tree = outcome
        .tree
        .ok_or_else(|| BookError::Proof("the assembled proof was not kept".into()))?;
    Ok((tree, report))
}

/// Assembles the proof of a won node (`None`: the root) in memory, as [`prove_node_to_file`]
/// does but neither minimised nor written nor verified (verify what is made of it).
pub fn assemble_node(
    book: &mut Book,
    node: Option<NodeId>,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProofTree, ProveReport)> {
    let (tree, _, report) = assemble(book, node, tablebase, options, None, progress)?;
    Ok((tree, report))
}

/// The seed proofs of a book, decoded and indexed once: [`assemble_node_with`] takes them,
/// so that assembling many nodes of one book (a frontier save) does not decode every seed
/// again for each (27,650 seeds of 27 M nodes on 1. e3 g5: a save that never ended).
pub struct SeedIndex {
    trees: Vec<IndexedTree>,
    by_position: HashMap<PositionId, usize>,
}

impl std::fmt::Debug for SeedIndex {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SeedIndex({} seeds)", self.trees.len())
    }
}

impl SeedIndex {
    /// Decodes and indexes the seeds of `book`.
    ///
    /// # Errors
    /// The store; a seed that cannot be decoded.
    pub fn load(book: &mut Book) -> Result<SeedIndex> {
        let mut trees = Vec::new();
        let mut by_position = HashMap::new();
        for (id, tree) in crate::seed::seed_trees(book)? {
            by_position.insert(id, trees.len());
            trees.push(IndexedTree::new(tree));
        }
        Ok(SeedIndex { trees, by_position })
    }
}

/// [`assemble_node`] with the book's seeds decoded beforehand ([`SeedIndex::load`]; the
/// book's seeds must not change between the two).
pub fn assemble_node_with(
    book: &mut Book,
    node: Option<NodeId>,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    seeds: &SeedIndex,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProofTree, ProveReport)> {
    let (tree, _, report) = assemble(book, node, tablebase, options, Some(seeds), progress)?;
    Ok((tree, report))
}

/// The pipeline's options for the assembled proof of a book whose prover is `prover`.
fn pipeline_options(
    prover: Color,
    options: &AssembleOptions,
    output: ProofOutput,
) -> antichess_pns::ProveOptions {
    let mut search = SearchOptions::new(prover);
    search.tablebase_units = options.tablebase_units;
    search.lone_bishop_rule = options.lone_bishop_rule;
    let mut pipeline = antichess_pns::ProveOptions::new(search);
    pipeline.output = output;
    pipeline.main_line_plies = 0;
    pipeline.minimize = match (options.minimize, options.minimize_work) {
        (None, None) => None,
        (time, work) => {
            let mut minimize = MinimizeOptions::new(time.unwrap_or(Duration::MAX));
            minimize.work = work;
            minimize.top_work = work.map(|w| w / 16);
            minimize.stop.clone_from(&options.stop);
            Some(minimize)
        }
    };
    pipeline
}

/// Minimises (as `options` say), writes and verifies an assembled proof through the prove
/// pipeline, telling `progress` how the minimisation stands.
fn finish(
    solver: &Solver<'_>,
    tree: ProofTree,
    prover: Color,
    options: &AssembleOptions,
    output: ProofOutput,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<antichess_pns::ProofOutcome> {
    let pipeline = pipeline_options(prover, options, output);
    finish_proof(solver, tree, &pipeline, &mut |event| {
        if let antichess_pns::ProveEvent::Minimizing(p) = event {
            progress(ProveEvent::Minimizing {
                proof_nodes: p.size,
                searches: p.report.map_or(0, |r| r.searched),
            });
        }
    })
    .map_err(|e| BookError::Proof(e.to_string()))
}

/// Assembles the proof of a solved book (not minimised); returns it with the solver that
/// re-solved its leaves and the report so far.
fn assemble<'t>(
    book: &mut Book,
    start_node: Option<NodeId>,
    tablebase: Option<&'t Tablebase>,
    options: &AssembleOptions,
    seeds: Option<&SeedIndex>,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProofTree, Solver<'t>, ProveReport)> {
    let start = Instant::now();
    let root = match start_node {
        Some(id) => book.node(id)?,
        None => book.root()?,
    };
    if !root.status.is_win() {
        return Err(BookError::NotReady(match start_node {
            None => format!(
                "the book's root is not won yet (status {}, proof {}, disproof {}): grow it first",
                root.status, root.proof, root.disproof
            ),
            Some(id) => format!("book node {id} is not won (status {})", root.status),
        }));
    }
    let prover = book.meta().prover;
    let (root_pos, prolog) = match start_node {
        None => (*book.root_position(), book.meta().prolog.clone()),
        Some(id) => {
            let pos = book.position(&root)?;
            let line = book.line_to(id)?;
            let start = Position::start(pos.rules());
            let book_root = *book.root_position();
            let mut prolog = book.meta().prolog.clone();
            // The line from the start position, when the book's root has one.
            if prolog.is_empty() && !book_root.same_position(&start) {
                (pos, Vec::new())
            } else {
                prolog.extend(line);
                (pos, prolog)
            }
        }
    };
    let loaded;
    let seeds = match seeds {
        Some(index) => index,
        None => {
            loaded = SeedIndex::load(book)?;
            &loaded
        }
    };
    let mut assembler = Assembler {
        book,
        solver: Solver::try_new(options.hash_bytes, tablebase)
            .map_err(|e| BookError::Input(e.to_string()))?,
        options: options.clone(),
        seed_trees: &seeds.trees,
        trees: Vec::new(),
        solved: HashMap::new(),
        seeds: &seeds.by_position,
        book_nodes: 0,
        search_nodes: 0,
        researched: 0,
        leaves_reused: 0,
        seeds_used: 0,
        interrupted: false,
        presolved: HashMap::new(),
        first_won: HashMap::new(),
        collect: None,
        progress,
    };
    if let Some(dir) = &options.leaf_dir {
        std::fs::create_dir_all(dir).map_err(|e| BookError::Io {
            context: format!("creating the leaf directory {}", dir.display()),
            source: e,
        })?;
    }
    if options.threads > 1 {
        // Walk the pruned book once to list its leaves, solve them on the threads, then
        // assemble as below with their proofs at hand.
        assembler.collect = Some(Vec::new());
        build_with(
            root_pos,
            prover,
            prolog.clone(),
            &mut assembler,
            Handle::Book(root.id),
        )
        .map_err(|e| BookError::Proof(format!("walking the pruned book: {e}")))?;
        let leaves = assembler.collect.take().unwrap_or_default();
        assembler.solved.clear();
        assembler.book_nodes = 0;
        assembler.seeds_used = 0;
        let parallel =
            solve_in_parallel(leaves, tablebase, prover, options, &mut *assembler.progress)?;
        assembler.presolved = parallel.solved;
        assembler.search_nodes = parallel.search_nodes;
        assembler.researched = parallel.researched;
    }
    let tree = build_with(
        root_pos,
        prover,
        prolog,
        &mut assembler,
        Handle::Book(root.id),
    )
    .map_err(|e| {
        if assembler.interrupted {
            interrupted(options, assembler.seed_trees.len() + assembler.trees.len())
        } else {
            BookError::Proof(format!("assembling the proof: {e}"))
        }
    })?;
    let assembled_nodes = tree.len() as u64;
    let report = ProveReport {
        counts: tree.counts(),
        book_nodes: assembler.book_nodes,
        leaves: assembler.trees.len() as u64,
        seeds_used: assembler.seeds_used,
        leaves_reused: assembler.leaves_reused,
        search_nodes: assembler.search_nodes,
        researched: assembler.researched,
        assembled_nodes,
        minimized: None,
        seconds: start.elapsed().as_secs_f64(),
    };
    Ok((tree, assembler.solver, report))
}

/// The verifier's verdict on a written proof.
#[derive(Debug, Clone)]
pub struct Verified {
    pub bytes: u64,
    /// The verifier's statistics, or why it rejected the file.
    pub verdict: std::result::Result<ProofStats, String>,
    pub seconds: Duration,
}

/// Assembles the proof of a solved book, writes it to `path` (compact format, written
/// atomically) and verifies the file.
pub fn prove_to_file(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    path: &Path,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProveReport, Verified)> {
    prove_node_to_file(book, None, tablebase, options, path, progress)
}

/// [`prove_to_file`] for the subtree of a won node (`None`: the root): the proof's root
/// is that node's position, reached from the start position by the book's prolog and the
/// node's line when the book's root has a prolog (or is the start position).
pub fn prove_node_to_file(
    book: &mut Book,
    node: Option<NodeId>,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    path: &Path,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<(ProveReport, Verified)> {
    let (tree, solver, mut report) = assemble(book, node, tablebase, options, None, progress)?;
    let prover = book.meta().prover;
    let start = Instant::now();
    let outcome = finish(
        &solver,
        tree,
        prover,
        options,
        ProofOutput::File(path.to_path_buf()),
        progress,
    )?;
    report.counts = outcome.counts;
    report.minimized = outcome.minimized.and_then(|m| m.pool);
    let verdict = match outcome.verdict {
        Some(verdict) => verdict.map_err(|e| e.to_string()),
        None => Err("the proof was not verified".to_string()),
    };
    // (The pipeline times the minimisation, the write and the verification together.)
    report.seconds += outcome.elapsed.as_secs_f64();
    Ok((
        report,
        Verified {
            bytes: outcome.bytes,
            verdict,
            seconds: start.elapsed(),
        },
    ))
}
