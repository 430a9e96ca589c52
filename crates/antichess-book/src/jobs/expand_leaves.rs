//! The `proof expand-leaves` job, [`expand_leaves`]: a proof whose tablebase leaves need
//! tables of up to n units made into one that needs tables of at most
//! [`ExpandLeavesOptions::units`] units. Each larger leaf is proved again and its proof
//! spliced in where the leaf was (`antichess_proof::expand_tablebase_leaves`): by the
//! proof-number search with the smaller tables within a budget, else played out from its
//! own table when the tables hold it (`antichess_proof::playout_proof`). A leaf-proof
//! directory (the one `book grow` fills, module [`crate::leaves`]) makes the job
//! resumable: each new leaf proof is saved there at once and read back instead of proved
//! again. Reading the input, writing and verifying the result are the caller's.

use std::path::PathBuf;
use std::time::Instant;

use antichess_core::Position;
use antichess_pns::{extract_proof, Progress, SearchOptions, SearchStatus, Solver};
use antichess_proof::{
    expand_tablebase_leaves, playout_proof, LeafOracle, ProofTree, TablebaseOracle,
};
use antichess_tb::Tablebase;
use serde::Serialize;

use crate::error::{BookError, Result};
use crate::leaves::{save, saved};

/// How a leaf is proved again.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
pub enum ExpandMethod {
    /// Search within the budget; if that does not prove it, play it out from its table.
    Both,
    /// Search only (a leaf the search does not prove is an error).
    Search,
    /// Play out every leaf whose table is present; search the others.
    Playout,
}

/// What [`expand_leaves`] does.
#[derive(Debug, Clone)]
pub struct ExpandLeavesOptions {
    /// Keep tablebase leaves of at most this many units; prove the others again with the
    /// tables of at most this many units.
    pub units: u32,
    /// The solver's transposition table in bytes, kept from one leaf to the next.
    pub hash: usize,
    /// The most positions the search of one leaf may evaluate.
    pub leaf_nodes: u64,
    /// How a leaf is proved again.
    pub method: ExpandMethod,
    /// Search threads per leaf.
    pub threads: usize,
    /// The leaf-proof directory to save new leaf proofs in and read saved ones from.
    pub leaf_dir: Option<PathBuf>,
}

/// What happens while [`expand_leaves`] runs.
#[derive(Debug)]
pub enum ExpandEvent<'a> {
    /// The search of a leaf reports (about once a second).
    Searching {
        /// Leaves proved so far.
        proved: u64,
        /// The leaf being searched.
        leaf: &'a Position,
        /// Seconds spent on this leaf.
        leaf_seconds: f64,
        /// The search's numbers and positions.
        progress: Progress,
        /// Seconds since the job started.
        seconds: f64,
    },
    /// A leaf was played out from its table.
    PlayedOut {
        /// Leaves proved so far (this one included).
        proved: u64,
        /// Of them played out.
        played_out: u64,
        /// Seconds since the job started.
        seconds: f64,
    },
}

/// What [`expand_leaves`] did.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ExpandLeavesReport {
    /// Nodes of the input proof.
    pub input_nodes: u64,
    /// Its tablebase leaves.
    pub input_tablebase_leaves: u64,
    /// Distinct leaf positions proved again.
    pub leaves_expanded: u64,
    /// Positions the searches evaluated.
    pub positions_searched: u64,
    /// Leaves played out from their tables.
    pub leaves_played_out: u64,
    /// Leaves read back from the leaf-proof directory.
    pub leaves_reused: u64,
    /// Seconds spent.
    pub seconds: f64,
}

/// Proves the tablebase leaves of `tree` larger than `options.units` again (see the module
/// documentation), `tablebase` holding at least every table of up to `options.units`
/// units (larger ones guide the playouts). The result's new tablebase leaves are recorded
/// against `tablebase`.
///
/// # Errors
/// A leaf neither the search nor a playout proves (named), a leaf-proof directory that
/// cannot be written, or a table that cannot be read.
pub fn expand_leaves(
    tree: ProofTree,
    tablebase: &Tablebase,
    options: &ExpandLeavesOptions,
    on_event: &mut dyn FnMut(ExpandEvent<'_>),
) -> Result<(ProofTree, ExpandLeavesReport)> {
    let input_nodes = tree.len() as u64;
    let input_tablebase_leaves = tree.counts().tablebase;
    let guide = TablebaseOracle::new(tablebase);
    let prover = tree.prover();
    let mut search = SearchOptions::new(prover);
    search.tablebase_units = options.units;
    search.max_nodes = Some(options.leaf_nodes);
    search.threads = options.threads.max(1);
    let solver = Solver::try_new(options.hash, Some(tablebase))
        .map_err(|e| BookError::Input(e.to_string()))?;
    let start = Instant::now();
    let (mut proved, mut positions, mut played_out, mut reused) = (0u64, 0u64, 0u64, 0u64);
    let leaf_dir = options.leaf_dir.as_deref();
    let mut solve = |pos: &Position| -> std::result::Result<ProofTree, String> {
        if let Some(tree) = leaf_dir.and_then(|dir| saved(dir, options.units, prover, pos)) {
            reused += 1;
            proved += 1;
            return Ok(tree);
        }
        let has_table = matches!(guide.probe(pos), Ok(Some(_)));
        let mut failure = None;
        let mut leaf = None;
        if options.method != ExpandMethod::Playout || !has_table {
            let leaf_start = Instant::now();
            let result = solver.search(pos, &search, &mut |progress| {
                on_event(ExpandEvent::Searching {
                    proved,
                    leaf: pos,
                    leaf_seconds: leaf_start.elapsed().as_secs_f64(),
                    progress,
                    seconds: start.elapsed().as_secs_f64(),
                });
            });
            positions += result.nodes;
            if result.status == SearchStatus::Proved {
                let (tree, _) =
                    extract_proof(&solver, pos, &[], &search).map_err(|e| e.to_string())?;
                leaf = Some(tree);
            } else {
                failure = Some(format!(
                    "not proved within {} positions (--leaf-nodes): {:?}",
                    options.leaf_nodes, result.status
                ));
            }
        }
        let leaf = match (leaf, failure) {
            (Some(tree), _) => tree,
            (None, Some(failure)) if options.method == ExpandMethod::Search || !has_table => {
                return Err(format!(
                    "{failure}, and no table of its material to play it out from"
                ));
            }
            (None, _) => {
                let tree =
                    playout_proof(pos, prover, &guide, options.units).map_err(|e| e.to_string())?;
                played_out += 1;
                on_event(ExpandEvent::PlayedOut {
                    proved: proved + 1,
                    played_out,
                    seconds: start.elapsed().as_secs_f64(),
                });
                tree
            }
        };
        proved += 1;
        if let Some(dir) = leaf_dir {
            save(dir, options.units, &leaf).map_err(|e| e.to_string())?;
        }
        Ok(leaf)
    };
    let (mut out, report) = expand_tablebase_leaves(tree, options.units, &mut solve)
        .map_err(|e| BookError::Proof(e.to_string()))?;
    if out.counts().tablebase > 0 {
        let oracle: &dyn LeafOracle = &guide;
        out.record_tables(oracle)
            .map_err(|e| BookError::Proof(e.to_string()))?;
    }
    Ok((
        out,
        ExpandLeavesReport {
            input_nodes,
            input_tablebase_leaves,
            leaves_expanded: report.leaves_expanded,
            positions_searched: positions,
            leaves_played_out: played_out,
            leaves_reused: reused,
            seconds: start.elapsed().as_secs_f64(),
        },
    ))
}
