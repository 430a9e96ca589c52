//! Keeping a book's solved subtrees as proof files, so that a line that takes several runs
//! advances by them: [`prove_subtrees`] writes the proof of every won node near the root
//! whose parent is not won (the largest solved subtrees; a won node below a won node is
//! in its parent's proof already), each assembled as [`crate::prove`] assembles a book's
//! proof and verified. A later book, on this machine or another, is seeded with them
//! ([`crate::seed`]); `antichess proof join` builds the parent's proof once every child
//! has one.
//!
//! File names: the line from the start position in SAN, moves joined by `-` (e.g.
//! `e3-c6-Bb5.proof`), or, for a book whose root is not given by moves, the root's
//! Zobrist key in hexadecimal and the line from the root.

use std::path::{Path, PathBuf};

use antichess_core::Position;
use antichess_tb::Tablebase;

use crate::error::{BookError, Result};
use crate::node::NodeId;
use crate::prove::{prove_node_to_file, AssembleOptions, ProveEvent, ProveReport, Verified};
use crate::Book;

/// One solved subtree: its proof written, or why it could not be assembled.
#[derive(Debug)]
pub struct SubtreeProof {
    pub node: NodeId,
    /// The line from the book's root in SAN with move numbers.
    pub line: String,
    pub path: PathBuf,
    /// The proof's report and verification, or the assembly's error (for example a
    /// cycle through positions the book's wins share): the other subtrees are written all
    /// the same.
    pub result: std::result::Result<(ProveReport, Verified), String>,
}

/// The file name of the proof of the position reached by `line` from the book's root.
fn file_name(book: &Book, line: &[antichess_core::Move]) -> String {
    let root = *book.root_position();
    let start = Position::start(root.rules());
    let prolog = &book.meta().prolog;
    let (mut pos, mut parts) = if prolog.is_empty() && !root.same_position(&start) {
        (root, vec![format!("{:016x}", root.key())])
    } else {
        let mut pos = start;
        let mut parts = Vec::new();
        for &m in prolog {
            parts.push(pos.san(m));
            pos = pos.play(m);
        }
        (pos, parts)
    };
    for &m in line {
        parts.push(pos.san(m));
        pos = pos.play(m);
    }
    let name: String = parts
        .join("-")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '-' || c == '=' {
                c
            } else {
                '_'
            }
        })
        .collect();
    format!("{name}.proof")
}

/// Writes into `dir` the proof of every won node at depth 1 to `max_depth` whose parent is
/// not won, each verified (see the module documentation); returns them in the order of
/// the book's node ids. Nodes that defer to a transposition are left to the node they
/// defer to.
///
/// A subtree whose proof cannot be assembled ([`BookError::Proof`]) is returned with its
/// error and the others are written all the same.
///
/// # Errors
/// Creating `dir`; writing a proof; the stop flag; the store.
pub fn prove_subtrees(
    book: &mut Book,
    tablebase: Option<&Tablebase>,
    options: &AssembleOptions,
    dir: &Path,
    max_depth: u32,
    progress: &mut dyn FnMut(ProveEvent),
) -> Result<Vec<SubtreeProof>> {
    std::fs::create_dir_all(dir).map_err(|source| BookError::Io {
        context: format!("creating {}", dir.display()),
        source,
    })?;
    let nodes = book.all_nodes()?;
    let won: std::collections::HashSet<NodeId> = nodes
        .iter()
        .filter(|n| n.status.is_win())
        .map(|n| n.id)
        .collect();
    let mut out = Vec::new();
    for node in &nodes {
        let Some(parent) = node.parent else { continue };
        if node.depth > max_depth
            || node.status != crate::node::Status::Win
            || node.same_as.is_some()
            || won.contains(&parent)
        {
            continue;
        }
        let line = book.line_to(node.id)?;
        let path = dir.join(file_name(book, &line));
        let result =
            match prove_node_to_file(book, Some(node.id), tablebase, options, &path, progress) {
                Ok(done) => Ok(done),
                // A proof that cannot be assembled fails alone; a stop or a store error ends all.
                Err(BookError::Proof(e)) => Err(e),
                Err(e) => return Err(e),
            };
        out.push(SubtreeProof {
            node: node.id,
            line: antichess_core::pgn::format_moves(book.root_position(), &line),
            path,
            result,
        });
    }
    Ok(out)
}
