//! The `book` commands as jobs: each takes options (and an open [`Book`] where it works
//! on one), reports what happens through one event callback where it runs long, and
//! returns one serializable report that the CLI and the web print as text or JSON.
//! [`show`] (a node and its children; the check), [`steer`] (queue, pin, mark),
//! [`grow`] (workers with a progress monitor), [`transfer`] (export, import, copy), [`prove`] (the
//! proof file of a solved book, and of its solved subtrees; [`book_prove`] the command whole), [`seed`] (seed, new),
//! [`tables`] (the materials met without a table), [`bench`] (`bench book`),
//! [`store_bench`] (`bench store`), [`expand_leaves`] and [`expand_leaves_file`] (`proof expand-leaves`),
//! [`frontier`] (the reports of save-frontier and load-frontier), [`tb_build`] (the
//! book's side of `tb build`: a frontier's tables, a table queue worker). This module holds what they share: a
//! proof or disproof number and a ratio in JSON, a node's line as text.

use serde::Serializer;

use crate::error::Result;
use crate::node::{Node, NodeId, INF};
use crate::Book;

pub mod bench;
pub mod book_prove;
pub mod expand_leaves;
pub mod expand_leaves_file;
pub mod frontier;
pub mod grow;
pub mod prove;
pub mod seed;
pub mod show;
pub mod steer;
pub mod store_bench;
pub mod tables;
pub mod tb_build;
pub mod transfer;

/// A proof or disproof number in JSON: an integer, or the string `"inf"` for infinity.
///
/// # Errors
/// The serializer's.
pub fn number<S: Serializer>(n: &u32, s: S) -> std::result::Result<S::Ok, S::Error> {
    if *n == INF {
        s.serialize_str("inf")
    } else {
        s.serialize_u32(*n)
    }
}

/// A node's ratio in JSON: `"inf"` for a won node, else the number.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
#[serde(untagged)]
pub enum Ratio {
    Finite(f64),
    Inf(&'static str),
}

impl Ratio {
    #[must_use]
    pub fn of(node: &Node) -> Ratio {
        if node.proof == 0 {
            Ratio::Inf("inf")
        } else {
            Ratio::Finite(node.ratio())
        }
    }
}

/// The line to a node, in SAN with move numbers (`(root)` for the root).
///
/// # Errors
/// The store's.
pub fn line_text(book: &mut Book, id: NodeId) -> Result<String> {
    let line = book.line_to(id)?;
    Ok(if line.is_empty() {
        "(root)".to_string()
    } else {
        antichess_core::pgn::format_moves(book.root_position(), &line)
    })
}

/// A node named in a report: its id and its line from the root.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct NodeRef {
    pub id: NodeId,
    pub line: String,
}

impl NodeRef {
    /// The node `id` of `book`, with its line.
    ///
    /// # Errors
    /// The store's.
    pub fn of(book: &mut Book, id: NodeId) -> Result<NodeRef> {
        Ok(NodeRef {
            id,
            line: line_text(book, id)?,
        })
    }
}

/// The root's (or a node's) status and numbers.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Numbers {
    pub status: &'static str,
    #[serde(serialize_with = "number")]
    pub proof: u32,
    #[serde(serialize_with = "number")]
    pub disproof: u32,
}

impl Numbers {
    #[must_use]
    pub fn of(node: &Node) -> Numbers {
        Numbers {
            status: node.status.name(),
            proof: node.proof,
            disproof: node.disproof,
        }
    }
}
