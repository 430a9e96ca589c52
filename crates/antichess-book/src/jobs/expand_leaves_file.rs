//! The `proof expand-leaves` job on files: the input proof read ([`read_input`]), its
//! larger tablebase leaves proved again ([`super::expand_leaves::expand_leaves`]), the
//! result written atomically in our compact format and verified with the smaller tables
//! before success is reported ([`expand_leaves_file`]); a result that does not verify is
//! removed. Opening the tables (and building the missing ones) is the caller's: the input's
//! rule set says which. The events' and the report's `Display` are the command's text.

use std::fmt;
use std::path::Path;

use antichess_proof::{
    read_proof_file, verify_file, write_proof_file, ByteOrder, Format, LeafOracle, ProofStats,
    ProofTree, ReferenceOptions, TablebaseOracle, VerifyOptions,
};
use antichess_tb::Tablebase;
use serde::Serialize;

use super::expand_leaves::{expand_leaves, ExpandEvent, ExpandLeavesOptions, ExpandLeavesReport};
use crate::error::{BookError, Result};

/// What [`expand_leaves_file`] did: the verifier's statistics of the written file, the
/// expansion's report and the largest tablebase leaf left.
#[derive(Debug, Clone, Serialize)]
pub struct ExpandFileReport {
    /// The verifier's statistics of the written file.
    #[serde(flatten)]
    pub stats: ProofStats,
    /// Always true.
    pub verified: bool,
    /// The file written.
    pub output: String,
    /// What the expansion did.
    #[serde(flatten)]
    pub expand: ExpandLeavesReport,
    /// The most units of a tablebase leaf of the result.
    pub tables_units: u32,
}

impl fmt::Display for ExpandFileReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (stats, report) = (&self.stats, &self.expand);
        write!(
            f,
            "wrote {}: {} nodes ({} bytes; the input had {}), {} tablebase leaves of at most {} units; {} leaves proved again in {:.1} s ({} read back from --leaf-dir, {} played out from their tables, the others searched: {} positions); verified",
            self.output,
            stats.counts.total,
            stats.file_bytes.unwrap_or(0),
            report.input_nodes,
            stats.counts.tablebase,
            self.tables_units,
            report.leaves_expanded,
            report.seconds,
            report.leaves_reused,
            report.leaves_played_out,
            report.positions_searched,
        )
    }
}

/// The progress line of an event.
impl fmt::Display for ExpandEvent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ExpandEvent::Searching {
                proved,
                leaf,
                leaf_seconds,
                progress,
                seconds,
            } => write!(
                f,
                "{seconds:>6.0}s  {proved} leaves proved again; leaf {} for {leaf_seconds:.0} s: proof {} disproof {}, {} positions",
                leaf.fen(),
                progress.proof,
                progress.disproof,
                progress.nodes
            ),
            ExpandEvent::PlayedOut {
                proved,
                played_out,
                seconds,
            } => write!(
                f,
                "{seconds:>6.0}s  {proved} leaves proved again ({played_out} played out from their tables)"
            ),
        }
    }
}

/// Reads the proof to expand (either format; a reference-format file with the default
/// rules and prover).
///
/// # Errors
/// When it cannot be read, or has no nodes.
pub fn read_input(path: &Path) -> Result<ProofTree> {
    let tree = read_proof_file(path, None, &ReferenceOptions::default())
        .map_err(|e| BookError::Proof(format!("reading {}: {e}", path.display())))?;
    if tree.is_empty() {
        return Err(BookError::Input(format!(
            "{}: the proof has no nodes",
            path.display()
        )));
    }
    Ok(tree)
}

/// Expands the leaves of `tree` (see [`expand_leaves`]), writes the result to `output`
/// and verifies it with `tablebase`.
///
/// # Errors
/// As [`expand_leaves`]; writing; a result that does not verify (it is removed).
pub fn expand_leaves_file(
    tree: ProofTree,
    tablebase: &Tablebase,
    options: &ExpandLeavesOptions,
    output: &Path,
    on_event: &mut dyn FnMut(ExpandEvent<'_>),
) -> Result<ExpandFileReport> {
    let (out, report) = expand_leaves(tree, tablebase, options, on_event)?;
    let proof_error = |e: antichess_proof::ProofError| BookError::Proof(e.to_string());
    write_proof_file(&out, output, Format::Compact, ByteOrder::Little).map_err(proof_error)?;
    let guide = TablebaseOracle::new(tablebase);
    let oracle: &dyn LeafOracle = &guide;
    let verify = VerifyOptions::default();
    let stats = match verify_file(output, Some(Format::Compact), oracle, &verify, &mut |_| {}) {
        Ok(stats) => stats,
        Err(e) => {
            let _ = std::fs::remove_file(output);
            return Err(BookError::Proof(format!(
                "the expanded proof does not verify (not kept): {e}"
            )));
        }
    };
    Ok(ExpandFileReport {
        stats,
        verified: true,
        output: output.display().to_string(),
        expand: report,
        tables_units: out.tablebase_units().map_err(proof_error)?,
    })
}
