//! Proof extraction: once a root is proved, walks the proof with `antichess-proof`'s
//! builder. At the prover's nodes it takes a proved child from the transposition table
//! (the one with the least work), re-searching the node if the table has lost it; at the
//! opponent's nodes every move is expanded. Positions decided by the tablebases become
//! tablebase leaves. The builder shares repeated positions and writes the file.
//! Optionally [`crate::minimize`] first replaces prover moves by ones with smaller proofs.

use std::collections::HashMap;
use std::path::Path;
use std::rc::Rc;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use antichess_core::{Color, Move, Position};
use antichess_proof::{
    build_with, write_proof_file, ByteOrder, Expander, Format, ProofCounts, ProofTree, Step,
};
use antichess_tb::Wdl;

use crate::minimize::{MinimizeOptions, MinimizeProgress, MinimizeReport};
use crate::search::{SearchOptions, Shared, Solver, Worker, INF};

/// Why a proof could not be written.
#[derive(Debug)]
pub enum ExtractError {
    /// The root is not proved.
    NotProved,
    /// Building or writing the proof failed.
    Proof(antichess_proof::ProofError),
    /// The minimiser failed (a node it had proved could not be extracted again).
    Minimize(String),
}

impl std::fmt::Display for ExtractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtractError::NotProved => {
                f.write_str("the position is not proved, so there is no proof to write")
            }
            ExtractError::Proof(e) => write!(f, "{e}"),
            ExtractError::Minimize(e) => write!(f, "proof minimisation failed: {e}"),
        }
    }
}

impl std::error::Error for ExtractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExtractError::Proof(e) => Some(e),
            ExtractError::NotProved | ExtractError::Minimize(_) => None,
        }
    }
}

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

    pub(crate) fn tablebase_win(&self, pos: &Position) -> Result<bool, String> {
        if pos.board().occupied().count() > self.units {
            return Ok(false);
        }
        let Some(tb) = self.solver.tablebase() else {
            return Ok(false);
        };
        let wdl = tb.probe_wdl(pos).map_err(|e| e.to_string())?;
        Ok(match wdl {
            Some(w) => {
                (pos.turn() == self.prover && w == Wdl::Win)
                    || (pos.turn() != self.prover && w == Wdl::Loss)
            }
            None => false,
        })
    }

    /// A proved child of a prover node: the minimiser's choice if it made one, else the
    /// least work among children the table (or a terminal test) shows won.
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
        best.map(|(_, mv, child)| (mv, child))
    }
    /// The move the proof plays at a prover node (re-searching the node if the table lost
    /// its proof), and the child it leads to.
    pub(crate) fn prover_move(
        &mut self,
        pos: &Position,
        ctx: &Ctx,
    ) -> Result<(Move, Position), String> {
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
                    return Err(format!("re-searching {} did not prove it again", pos.fen()));
                }
                self.proved_child(pos, ctx)
            }
        };
        let (mv, child) = found.ok_or_else(|| format!("no proved move found in {}", pos.fen()))?;
        if self.pin_choices {
            self.overrides.entry(ctx.key).or_insert(mv);
        }
        Ok((mv, child))
    }
}

impl Expander for Extractor<'_, '_> {
    type Handle = Ctx;

    fn prover(&mut self, pos: &Position, ctx: &Ctx) -> Result<Step<Ctx>, String> {
        if self.tablebase_win(pos)? {
            return Ok(Step::TablebaseLeaf);
        }
        let (mv, child) = self.prover_move(pos, ctx)?;
        Ok(Step::Play(mv, self.child_ctx(pos, ctx, &child)))
    }

    fn opponent(
        &mut self,
        pos: &Position,
        ctx: &Ctx,
        moves: &[Move],
    ) -> Result<Option<Vec<Ctx>>, String> {
        if self.tablebase_win(pos)? {
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

/// The statistics of a written proof.
#[derive(Debug, Clone, Copy)]
pub struct WrittenProof {
    pub counts: ProofCounts,
    /// Nodes that had to be searched again because the table had lost them.
    pub researched: u64,
    pub bytes: u64,
    /// What the minimiser did, if it ran.
    pub minimized: Option<MinimizeReport>,
}

/// Builds, in memory, the proof that `options.prover` wins from `root` (which the solver has
/// proved). `prolog` is the move list from the game's start to `root`, if known. Returns the
/// tree and the number of nodes that had to be searched again.
pub fn extract_proof(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
) -> Result<(ProofTree, u64), ExtractError> {
    let (tree, researched, _) =
        extract_minimized(solver, root, prolog, options, None, &mut |_| {})?;
    Ok((tree, researched))
}

/// As [`extract_proof`], first looking for smaller proofs with the minimiser
/// (`minimize.rs`) within the limits of `minimize` (if given); also returns what the
/// minimiser did. `progress` is told how the minimisation stands as it goes (see
/// [`MinimizeProgress`]).
pub fn extract_minimized(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(ProofTree, u64, Option<MinimizeReport>), ExtractError> {
    let mut search_options = options.clone();
    search_options.max_nodes = None;
    search_options.max_time = None;
    // The search's Ctrl-C must not cut short the re-searches of lost parts of the proof.
    search_options.interrupt = None;
    let shared = solver.shared_for(root, search_options);
    let mut extractor = Extractor::new(solver, &shared, options);
    extractor.stop = minimize.and_then(|m| m.stop.clone());
    let root_ctx = extractor.root_ctx(root);
    if solver
        .table()
        .get(root_ctx.key)
        .is_none_or(|e| e.proof != 0)
        && !extractor.tablebase_win(root).unwrap_or(false)
        && !root.legal_moves().is_empty()
    {
        return Err(ExtractError::NotProved);
    }
    let (tree, report) = match minimize {
        Some(m) => {
            let (mut report, mut tree) =
                crate::minimize::minimize(&mut extractor, root, &root_ctx, m, progress)
                    .map_err(ExtractError::Minimize)?;
            tree.set_prolog(prolog.to_vec());
            report.nodes_after = tree.len() as u64;
            (tree, Some(report))
        }
        None => {
            let tree = build_with(
                *root,
                options.prover,
                prolog.to_vec(),
                &mut extractor,
                root_ctx,
            )
            .map_err(ExtractError::Proof)?;
            (tree, None)
        }
    };
    Ok((tree, extractor.researched, report))
}

/// Builds the proof that `prover` wins from `root` (which the solver has proved) and
/// writes it to `path` in our compact format. `prolog` is the move list from the game's
/// start to `root`, if known (recorded in the file). With `minimize`, looks for smaller
/// proofs first.
pub fn write_proof(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    path: &Path,
) -> Result<(WrittenProof, ProofTree), ExtractError> {
    write_proof_with_progress(solver, root, prolog, options, minimize, path, &mut |_| {})
}

/// As [`write_proof`], telling `progress` how the minimisation stands as it goes (e.g. to
/// save the proof so far elsewhere while a long minimisation runs).
pub fn write_proof_with_progress(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    minimize: Option<&MinimizeOptions>,
    path: &Path,
    progress: &mut dyn FnMut(&MinimizeProgress<'_>),
) -> Result<(WrittenProof, ProofTree), ExtractError> {
    let (tree, researched, minimized) =
        extract_minimized(solver, root, prolog, options, minimize, progress)?;
    write_proof_file(&tree, path, Format::Compact, ByteOrder::Little)
        .map_err(ExtractError::Proof)?;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok((
        WrittenProof {
            counts: tree.counts(),
            researched,
            bytes,
            minimized,
        },
        tree,
    ))
}
