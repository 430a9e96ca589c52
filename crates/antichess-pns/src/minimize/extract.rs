//! Proof extraction: once a root is proved, walks the proof with `antichess-proof`'s
//! builder. At the prover's nodes it takes a proved child from the transposition table
//! (the one with the least work), re-searching the node if the table has lost it; at the
//! opponent's nodes every move is expanded. Positions decided by the tablebases become
//! tablebase leaves. The builder shares repeated positions and writes the file.
//! The minimiser ([`super::passes`]) drives the same extractor with its own choices.

use std::collections::HashMap;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use antichess_core::{Color, Move, Position};
use antichess_proof::{build_with, Expander, ProofTree, Step};
use antichess_tb::Wdl;

use crate::error::{PnsError, Result};
use crate::search::{SearchOptions, Shared, Solver, Worker, INF};

/// Zobrist keys of the positions from the root to a node, shared between siblings.
#[derive(Debug)]
struct History {
    key: u64,
    parent: Option<Rc<History>>,
}

/// The extractor's handle on a node: its path key and the path to it.
#[derive(Debug, Clone)]
pub(crate) struct Ctx {
    pub(crate) key: u64,
    path: Option<Rc<History>>,
}

pub(crate) struct Extractor<'s, 'a> {
    pub(crate) solver: &'s Solver<'a>,
    pub(crate) shared: &'s Shared<'a>,
    pub(crate) prover: Color,
    units: u32,
    /// Nodes re-searched because the table had lost their proof.
    pub(crate) researched: u64,
    /// Prover moves chosen by the minimiser, by the path key of the node.
    pub(crate) overrides: HashMap<u64, Move>,
    /// Record every prover move chosen in `overrides` (the minimiser sets this so that the
    /// choices of the proof do not change when its searches add new proved entries).
    pub(crate) pin_choices: bool,
    /// The minimiser's stop flag: its searches for other moves stop when it is raised (the
    /// extractor's own re-searches never do, so that a proof is always complete).
    pub(crate) stop: Option<Arc<AtomicBool>>,
}

impl<'s, 'a> Extractor<'s, 'a> {
    pub(crate) fn new(
        solver: &'s Solver<'a>,
        shared: &'s Shared<'a>,
        options: &SearchOptions,
    ) -> Extractor<'s, 'a> {
        Extractor {
            solver,
            shared,
            prover: options.prover,
            units: options.tablebase_units,
            researched: 0,
            overrides: HashMap::new(),
            pin_choices: false,
            stop: None,
        }
    }

    /// A worker of `shared` whose path is the one leading to the node of `ctx` (the node
    /// itself excluded).
    pub(crate) fn worker_for<'t, 'b>(shared: &'t Shared<'b>, ctx: &Ctx) -> Worker<'t, 'b> {
        let mut worker = Worker::new(shared, 0);
        let mut keys = Vec::new();
        let mut at = ctx.path.clone();
        while let Some(h) = at {
            keys.push(h.key);
            at = h.parent.clone();
        }
        keys.reverse();
        worker.history = keys;
        worker
    }

    fn worker_at(&self, ctx: &Ctx) -> Worker<'s, 'a> {
        Self::worker_for(self.shared, ctx)
    }

    /// The extractor's handle on the root of a search.
    pub(crate) fn root_ctx(&self, root: &Position) -> Ctx {
        Ctx {
            key: Worker::new(self.shared, 0).root_key(root),
            path: None,
        }
    }

    pub(crate) fn child_ctx(&self, parent: &Position, ctx: &Ctx, child: &Position) -> Ctx {
        let worker = Worker::new(self.shared, 0);
        Ctx {
            key: worker.child_key(ctx.key, child),
            path: Some(Rc::new(History {
                key: parent.key(),
                parent: ctx.path.clone(),
            })),
        }
    }

    pub(crate) fn tablebase_win(&self, pos: &Position) -> Result<bool> {
        if pos.board().occupied().count() > self.units {
            return Ok(false);
        }
        let Some(tb) = self.solver.tablebase() else {
            return Ok(false);
        };
        let wdl = tb
            .probe_wdl(pos)
            .map_err(|e| PnsError::tablebase(pos.fen(), e))?;
        Ok(match wdl {
            Some(w) => {
                (pos.turn() == self.prover && w == Wdl::Win)
                    || (pos.turn() != self.prover && w == Wdl::Loss)
            }
            None => false,
        })
    }

    /// A proved child of a prover node: the minimiser's choice if it made one, else the
    /// least work among children the table (or a terminal test) shows won, else the best
    /// move of the node's own entry if that says proved.
    fn proved_child(&self, pos: &Position, ctx: &Ctx) -> Option<(Move, Position)> {
        if let Some(&mv) = self.overrides.get(&ctx.key) {
            return Some((mv, pos.play(mv)));
        }
        let mut worker = self.worker_at(ctx);
        worker.history.push(pos.key());
        let mut best: Option<(u32, Move, Position)> = None;
        for mv in pos.legal_moves() {
            let child = pos.play(mv);
            let key = worker.child_key(ctx.key, &child);
            let (proof, work) = match self.solver.table().get(key) {
                Some(e) => (e.proof, e.work),
                None => (worker.evaluate(&child).0, 0),
            };
            if proof == 0 && best.as_ref().is_none_or(|b| work < b.0) {
                best = Some((work, mv, child));
            }
        }
        if let Some((_, mv, child)) = best {
            return Some((mv, child));
        }
        // No child's entry says proved, but the node's does: the search stores a node after
        // its children, and that store can evict the proved child's entry (the least work
        // of a full bucket, as a short forced win's is). The node's best move is then the
        // child it was proved by (at a proved prover node, a child of proof number 0). A
        // seed has no best move.
        let entry = self.solver.table().get(ctx.key)?;
        let mv = entry
            .best_move()
            .filter(|&mv| entry.proof == 0 && pos.is_legal(mv))?;
        Some((mv, pos.play(mv)))
    }
    /// What the table holds for a node and its children, for an error message: the
    /// evidence needed to tell a lost entry from an inconsistent one.
    fn table_state(&self, pos: &Position, ctx: &Ctx) -> String {
        let show = |e: Option<crate::tt::TtEntry>| match e {
            Some(e) => format!("{}/{}/w{}", e.proof, e.disproof, e.work),
            None => "none".to_string(),
        };
        let mut worker = self.worker_at(ctx);
        worker.history.push(pos.key());
        let mut out = format!(
            "table: node {} halfmoves {} path {}; children",
            show(self.solver.table().get(ctx.key)),
            pos.halfmoves(),
            worker.history.len()
        );
        for mv in pos.legal_moves() {
            let child = pos.play(mv);
            let key = worker.child_key(ctx.key, &child);
            let (p, d) = worker.evaluate(&child);
            out.push_str(&format!(
                " {}: {} eval {p}/{d}",
                pos.san(mv),
                show(self.solver.table().get(key))
            ));
        }
        out
    }

    /// The move the proof plays at a prover node (re-searching the node if the table lost
    /// its proof), and the child it leads to.
    pub(crate) fn prover_move(&mut self, pos: &Position, ctx: &Ctx) -> Result<(Move, Position)> {
        let found = match self.proved_child(pos, ctx) {
            Some(found) => Some(found),
            None => {
                // The table lost this part of the proof (or holds only a seed of the
                // minimiser's): prove the node again.
                self.researched += 1;
                if self
                    .solver
                    .table()
                    .get(ctx.key)
                    .is_some_and(|e| e.is_seed())
                {
                    self.solver.table().remove(ctx.key);
                }
                let mut worker = self.worker_at(ctx);
                let (proof, _, _) = worker.mid(pos, ctx.key, INF, INF, 0);
                if proof != 0 {
                    return Err(PnsError::lost(format!(
                        "re-searching {} did not prove it again",
                        pos.fen()
                    )));
                }
                self.proved_child(pos, ctx)
            }
        };
        let (mv, child) = found.ok_or_else(|| {
            PnsError::lost(format!(
                "no proved move found in {} ({})",
                pos.fen(),
                self.table_state(pos, ctx)
            ))
        })?;
        if self.pin_choices {
            self.overrides.entry(ctx.key).or_insert(mv);
        }
        Ok((mv, child))
    }
}

impl Extractor<'_, '_> {
    /// Whether the solver proved `root`: [`PnsError::NotProved`] if not.
    pub(crate) fn check_proved(&self, root: &Position, root_ctx: &Ctx) -> Result<()> {
        if self
            .solver
            .table()
            .get(root_ctx.key)
            .is_none_or(|e| e.proof != 0)
            && !self.tablebase_win(root).unwrap_or(false)
            && !root.legal_moves().is_empty()
        {
            return Err(PnsError::NotProved);
        }
        Ok(())
    }
}

impl Expander for Extractor<'_, '_> {
    type Handle = Ctx;

    fn prover(&mut self, pos: &Position, ctx: &Ctx) -> Result<Step<Ctx>, String> {
        if self.tablebase_win(pos).map_err(|e| e.to_string())? {
            return Ok(Step::TablebaseLeaf);
        }
        let (mv, child) = self.prover_move(pos, ctx).map_err(|e| e.to_string())?;
        Ok(Step::Play(mv, self.child_ctx(pos, ctx, &child)))
    }

    fn opponent(
        &mut self,
        pos: &Position,
        ctx: &Ctx,
        moves: &[Move],
    ) -> Result<Option<Vec<Ctx>>, String> {
        if self.tablebase_win(pos).map_err(|e| e.to_string())? {
            return Ok(None);
        }
        Ok(Some(
            moves
                .iter()
                .map(|mv| self.child_ctx(pos, ctx, &pos.play(*mv)))
                .collect(),
        ))
    }
}

/// Builds, in memory, the proof that `options.prover` wins from `root` (which the solver has
/// proved). `prolog` is the move list from the game's start to `root`, if known. Returns the
/// tree and the number of nodes that had to be searched again.
pub fn extract_proof(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
) -> Result<(ProofTree, u64)> {
    let shared = extraction(solver, root, options);
    let mut extractor = Extractor::new(solver, &shared, options);
    let root_ctx = extractor.root_ctx(root);
    extractor.check_proved(root, &root_ctx)?;
    let tree = build_with(
        *root,
        options.prover,
        prolog.to_vec(),
        &mut extractor,
        root_ctx,
    )?;
    Ok((tree, extractor.researched))
}

/// Builds the proof of the node reached from the search root `root` by `line` (which the
/// solver has proved, searched from `root`): the proof's root is that node's position.
/// The table's entries are found along the same path keys the search used, so a book can
/// keep the proofs of the won children of a leaf it searched. Returns the tree and the
/// number of nodes that had to be searched again.
///
/// # Errors
/// [`PnsError::NotProved`] if the table does not hold that node as proved; an illegal
/// move in `line` is [`PnsError::Invalid`].
pub fn extract_proof_at(
    solver: &Solver<'_>,
    root: &Position,
    line: &[Move],
    options: &SearchOptions,
) -> Result<(ProofTree, u64)> {
    let shared = extraction(solver, root, options);
    let mut extractor = Extractor::new(solver, &shared, options);
    let mut ctx = extractor.root_ctx(root);
    let mut pos = *root;
    for &mv in line {
        if !pos.legal_moves().contains(&mv) {
            return Err(PnsError::Invalid(format!(
                "{mv} is not a legal move in {}",
                pos.fen()
            )));
        }
        let child = pos.play(mv);
        ctx = extractor.child_ctx(&pos, &ctx, &child);
        pos = child;
    }
    extractor.check_proved(&pos, &ctx)?;
    let tree = build_with(pos, options.prover, Vec::new(), &mut extractor, ctx)?;
    Ok((tree, extractor.researched))
}

/// The search state of an extraction from `root`: no budget, and no stop flag (the
/// search's Ctrl-C must not cut short the re-searches of lost parts of the proof).
pub(crate) fn extraction<'a>(
    solver: &'a Solver<'_>,
    root: &Position,
    options: &SearchOptions,
) -> Shared<'a> {
    let mut search_options = options.clone();
    search_options.max_nodes = None;
    search_options.max_time = None;
    search_options.interrupt = None;
    solver.shared_for(root, search_options)
}

/// The proof of the subtree at `pos` as the extractor currently builds it.
pub(crate) fn subtree(ex: &mut Extractor<'_, '_>, pos: &Position, ctx: &Ctx) -> Result<ProofTree> {
    let prover = ex.prover;
    Ok(build_with(*pos, prover, Vec::new(), ex, ctx.clone())?)
}
