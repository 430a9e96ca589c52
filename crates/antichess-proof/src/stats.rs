//! Statistics of a proof, gathered while a file is walked (verified or only decoded): node
//! counts, depths, sizes with references unfolded, and one row per root move.
//!
//! Units: depths are in plies from the proof's root (the root is at depth 0). "Nodes" are
//! nodes in the file; "unfolded" counts a reference as a copy of its target's subtree (so
//! it is the size of the same proof written as a tree without sharing; it saturates at
//! `u64::MAX`).

use std::fmt;

use antichess_core::{Color, Move, Position};
use serde::Serialize;

use crate::tables::TableCheck;
use crate::ProofCounts;

/// Statistics of a whole proof.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProofStats {
    /// "compact" or "reference".
    pub format: &'static str,
    /// FEN of the root.
    pub root_fen: String,
    /// The side the proof shows to win ("white" or "black").
    pub prover: String,
    /// Rule set name.
    pub rules: String,
    pub counts: ProofCounts,
    /// Nodes that references point to.
    pub reference_targets: u64,
    /// Largest number of units among tablebase leaves (0 if none).
    pub tablebase_units: u32,
    /// Deepest node in the file, in plies from the root.
    pub max_depth: u32,
    /// Deepest node with references unfolded.
    pub max_unfolded_depth: u32,
    /// Node count with references unfolded.
    pub unfolded_nodes: u64,
    /// File size in bytes, when known.
    pub file_bytes: Option<u64>,
    /// One row per child of the root: for an opponent-to-move root every reply, for a
    /// prover root the chosen move.
    pub root_moves: Vec<RootMoveStats>,
    /// The tables the file records that its tablebase leaves rely on, compared with the
    /// tables given to the verifier (`not_checked` in statistics); `None` when the file
    /// records none (compact version 1, the reference format).
    pub tables: Option<Vec<TableCheck>>,
}

/// Statistics of the subtree below one root move.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RootMoveStats {
    pub uci: String,
    pub san: String,
    /// Nodes of the file in this subtree (the move's node included; for the reference
    /// format, nodes first visited under this move).
    pub nodes: u64,
    /// Nodes with references unfolded.
    pub unfolded_nodes: u64,
    /// Deepest node of the subtree, in plies from the proof's root.
    pub depth: u32,
    /// Deepest node with references unfolded.
    pub unfolded_depth: u32,
}

impl ProofStats {
    /// Bytes per node of the file, when its size is known.
    #[must_use]
    pub fn bytes_per_node(&self) -> Option<f64> {
        self.file_bytes
            .map(|bytes| bytes as f64 / self.counts.total.max(1) as f64)
    }
}

/// Accounting of one subtree while it is walked.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct Subtree {
    pub(crate) first_node: u64,
    pub(crate) unfolded: u64,
    pub(crate) height: u32,
    pub(crate) unfolded_height: u32,
}

impl Subtree {
    pub(crate) fn leaf(node: u64, unfolded: u64, unfolded_height: u32) -> Subtree {
        Subtree {
            first_node: node,
            unfolded,
            height: 0,
            unfolded_height,
        }
    }

    pub(crate) fn internal(node: u64) -> Subtree {
        Subtree {
            first_node: node,
            unfolded: 1,
            height: 0,
            unfolded_height: 0,
        }
    }

    pub(crate) fn absorb(&mut self, child: &Subtree) {
        self.unfolded = self.unfolded.saturating_add(child.unfolded);
        self.height = self.height.max(child.height + 1);
        self.unfolded_height = self.unfolded_height.max(child.unfolded_height + 1);
    }
}

/// Builds the root-move rows and the totals.
#[derive(Debug, Default)]
pub(crate) struct StatsBuilder {
    pub(crate) counts: ProofCounts,
    pub(crate) max_depth: u32,
    pub(crate) tablebase_units: u32,
    pub(crate) root_moves: Vec<RootMoveStats>,
}

impl StatsBuilder {
    /// A child of the root finished: `next_node` is the number the next node would get.
    pub(crate) fn root_child(
        &mut self,
        root: &Position,
        mv: Move,
        subtree: &Subtree,
        next_node: u64,
    ) {
        self.root_moves.push(RootMoveStats {
            uci: mv.to_uci(),
            san: root.san(mv),
            nodes: next_node - subtree.first_node,
            unfolded_nodes: subtree.unfolded,
            depth: subtree.height + 1,
            unfolded_depth: subtree.unfolded_height + 1,
        });
    }

    pub(crate) fn finish(
        self,
        format: &'static str,
        root: &Position,
        prover: Color,
        reference_targets: u64,
        root_subtree: &Subtree,
        file_bytes: Option<u64>,
    ) -> ProofStats {
        ProofStats {
            format,
            root_fen: root.fen(),
            prover: prover.name().to_string(),
            rules: root.rules().to_string(),
            counts: self.counts,
            reference_targets,
            tablebase_units: self.tablebase_units,
            max_depth: self.max_depth,
            max_unfolded_depth: root_subtree.unfolded_height,
            unfolded_nodes: root_subtree.unfolded,
            file_bytes,
            root_moves: self.root_moves,
            tables: None,
        }
    }
}

impl fmt::Display for ProofStats {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let c = &self.counts;
        writeln!(f, "format:            {}", self.format)?;
        writeln!(f, "root:              {}", self.root_fen)?;
        writeln!(f, "prover:            {}", self.prover)?;
        writeln!(f, "rules:             {}", self.rules)?;
        writeln!(f, "nodes:             {}", c.total)?;
        writeln!(f, "  prover internal: {}", c.prover)?;
        writeln!(f, "  opponent internal: {}", c.opponent)?;
        writeln!(f, "  terminal leaves: {}", c.terminal)?;
        writeln!(f, "  tablebase leaves: {}", c.tablebase)?;
        writeln!(f, "  references:      {}", c.references)?;
        writeln!(f, "shared nodes:      {}", self.reference_targets)?;
        writeln!(f, "tablebase units:   {}", self.tablebase_units)?;
        writeln!(f, "max depth:         {} plies", self.max_depth)?;
        writeln!(
            f,
            "unfolded:          {} nodes, max depth {} plies",
            unfolded_text(self.unfolded_nodes),
            self.max_unfolded_depth
        )?;
        if let (Some(bytes), Some(per_node)) = (self.file_bytes, self.bytes_per_node()) {
            writeln!(
                f,
                "file size:         {bytes} bytes ({per_node:.3} bytes/node)"
            )?;
        }
        if let Some(tables) = &self.tables {
            if tables.is_empty() {
                writeln!(f, "tables recorded:   none")?;
            } else {
                writeln!(f, "tables recorded:   {}", tables.len())?;
                for table in tables {
                    writeln!(f, "  {}", table.describe())?;
                }
            }
        }
        if !self.root_moves.is_empty() {
            writeln!(f)?;
            writeln!(
                f,
                "{:<8} {:<8} {:>12} {:>14} {:>6} {:>9}",
                "move", "san", "nodes", "unfolded", "depth", "unf.depth"
            )?;
            for row in &self.root_moves {
                writeln!(
                    f,
                    "{:<8} {:<8} {:>12} {:>14} {:>6} {:>9}",
                    row.uci,
                    row.san,
                    row.nodes,
                    unfolded_text(row.unfolded_nodes),
                    row.depth,
                    row.unfolded_depth
                )?;
            }
        }
        Ok(())
    }
}

/// An unfolded node count as text: the count saturates at `u64::MAX` (a proof that shares
/// many positions unfolds to more than 2^64 nodes), which is shown as such rather than as
/// a number.
fn unfolded_text(n: u64) -> String {
    if n == u64::MAX {
        "over 2^64".to_string()
    } else {
        n.to_string()
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_saturated_unfolded_count_is_not_shown_as_a_number() {
        assert_eq!(super::unfolded_text(12), "12");
        assert_eq!(
            super::unfolded_text(u64::MAX - 1),
            (u64::MAX - 1).to_string()
        );
        assert_eq!(super::unfolded_text(u64::MAX), "over 2^64");
    }
}
