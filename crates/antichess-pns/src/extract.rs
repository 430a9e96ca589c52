//! Proof extraction: once a root is proved, walks the proof with `antichess-proof`'s
//! builder. At the prover's nodes it takes a proved child from the transposition table
//! (the one with the least work), re-searching the node if the table has lost it; at the
//! opponent's nodes every move is expanded. Positions decided by the tablebases become
//! tablebase leaves. The builder shares repeated positions and writes the file.

use std::path::Path;
use std::rc::Rc;

use antichess_core::{Color, Move, Position};
use antichess_proof::{
    build_with, write_proof_file, ByteOrder, Expander, Format, ProofCounts, ProofTree, Step,
};
use antichess_tb::Wdl;

use crate::search::{SearchOptions, Shared, Solver, Worker, INF};

/// Why a proof could not be written.
#[derive(Debug)]
pub enum ExtractError {
    /// The root is not proved.
    NotProved,
    /// Building or writing the proof failed.
    Proof(antichess_proof::ProofError),
}

impl std::fmt::Display for ExtractError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ExtractError::NotProved => {
                f.write_str("the position is not proved, so there is no proof to write")
            }
            ExtractError::Proof(e) => write!(f, "{e}"),
        }
    }
}

impl std::error::Error for ExtractError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ExtractError::Proof(e) => Some(e),
            ExtractError::NotProved => None,
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
    key: u64,
    path: Option<Rc<History>>,
}

struct Extractor<'s, 'a> {
    solver: &'s Solver<'a>,
    shared: &'s Shared<'a>,
    prover: Color,
    units: u32,
    /// Nodes re-searched because the table had lost their proof.
    researched: u64,
}

impl Extractor<'_, '_> {
    fn worker_at(&self, ctx: &Ctx) -> Worker<'_, '_> {
        let mut worker = Worker::new(self.shared, 0);
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

    fn child_ctx(&self, parent: &Position, ctx: &Ctx, child: &Position) -> Ctx {
        let worker = Worker::new(self.shared, 0);
        Ctx {
            key: worker.child_key(ctx.key, child),
            path: Some(Rc::new(History {
                key: parent.key(),
                parent: ctx.path.clone(),
            })),
        }
    }

    fn tablebase_win(&self, pos: &Position) -> Result<bool, String> {
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

    /// A proved child of a prover node: the least work among children the table (or a
    /// terminal test) shows won.
    fn proved_child(&self, pos: &Position, ctx: &Ctx) -> Option<(Move, Position)> {
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
}

impl Expander for Extractor<'_, '_> {
    type Handle = Ctx;

    fn prover(&mut self, pos: &Position, ctx: &Ctx) -> Result<Step<Ctx>, String> {
        if self.tablebase_win(pos)? {
            return Ok(Step::TablebaseLeaf);
        }
        let found = match self.proved_child(pos, ctx) {
            Some(found) => Some(found),
            None => {
                // The table lost this part of the proof: prove the node again.
                self.researched += 1;
                let mut worker = self.worker_at(ctx);
                let (proof, _, _) = worker.mid(pos, ctx.key, INF, INF, 0);
                if proof != 0 {
                    return Err(format!("re-searching {} did not prove it again", pos.fen()));
                }
                self.proved_child(pos, ctx)
            }
        };
        let (mv, child) = found.ok_or_else(|| format!("no proved move found in {}", pos.fen()))?;
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
    let mut search_options = options.clone();
    search_options.max_nodes = None;
    search_options.max_time = None;
    let shared = solver.shared_for(root, search_options);
    let mut extractor = Extractor {
        solver,
        shared: &shared,
        prover: options.prover,
        units: options.tablebase_units,
        researched: 0,
    };
    let root_worker = Worker::new(&shared, 0);
    let root_ctx = Ctx {
        key: root_worker.root_key(root),
        path: None,
    };
    if solver
        .table()
        .get(root_ctx.key)
        .is_none_or(|e| e.proof != 0)
        && !extractor.tablebase_win(root).unwrap_or(false)
        && !root.legal_moves().is_empty()
    {
        return Err(ExtractError::NotProved);
    }
    let tree = build_with(
        *root,
        options.prover,
        prolog.to_vec(),
        &mut extractor,
        root_ctx,
    )
    .map_err(ExtractError::Proof)?;
    Ok((tree, extractor.researched))
}

/// Builds the proof that `prover` wins from `root` (which the solver has proved) and
/// writes it to `path` in our compact format. `prolog` is the move list from the game's
/// start to `root`, if known (recorded in the file).
pub fn write_proof(
    solver: &Solver<'_>,
    root: &Position,
    prolog: &[Move],
    options: &SearchOptions,
    path: &Path,
) -> Result<(WrittenProof, ProofTree), ExtractError> {
    let (tree, researched) = extract_proof(solver, root, prolog, options)?;
    write_proof_file(&tree, path, Format::Compact, ByteOrder::Little)
        .map_err(ExtractError::Proof)?;
    let bytes = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    Ok((
        WrittenProof {
            counts: tree.counts(),
            researched,
            bytes,
        },
        tree,
    ))
}
