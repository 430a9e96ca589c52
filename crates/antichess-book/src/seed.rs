//! Seeds: verified proofs that a book takes as given. A node whose position has a seed
//! proof (same rules, same prover) is won at once, whether it is in the book when the
//! seed is added ([`seed_file`]) or created later (by an expansion, which looks its position
//! up in `seed_meta`); proof assembly ([`crate::prove`]) splices the seed proof in where
//! the book reaches its position, so the book's proof verifies as a whole.
//!
//! A seed is verified by the independent verifier (`antichess-proof`, with the tables
//! given) before it is stored; the assembled proof is verified again, so a seed is never
//! trusted on its own word.
//!
//! Storage: one meta entry per seeded position (the layout, the [`Seed`] type and the
//! lookups are in `seed_meta`, below the tree's changes); a smaller proof of the same
//! position replaces a larger one.

use std::path::Path;

use antichess_core::Position;
use antichess_proof::{
    read_compact, verify_compact, LeafOracle, PositionId, ProofTree, TablebaseOracle, VerifyOptions,
};
use antichess_tb::Tablebase;

pub use crate::seed_meta::Seed;

use crate::error::{BookError, Result};
use crate::node::{same_position, Status};
use crate::seed_meta::{is_seed_name, meta_name, SEEDS_FLAG};
use crate::store::{next_counter, Txn};
use crate::tree::{propagate_up, settle, Changes};
use crate::Book;

/// What seeding one proof did.
#[derive(Debug, Clone)]
pub struct SeedReport {
    /// The seed's root position.
    pub fen: String,
    /// Nodes of the seed proof.
    pub proof_nodes: u64,
    /// Book nodes of that position won by it now (later ones are won when created).
    pub won_now: u64,
    /// Whether the book had a seed of this position already that was as small or smaller
    /// (this one is then not stored).
    pub kept_earlier: bool,
}

/// Verifies the proof file at `path` (compact format) with `tablebase`, checks that it is
/// a proof for this book's rules and prover, stores it as a seed, and decides every open
/// node of its position won (propagated to the root, shared with transpositions).
///
/// # Errors
/// [`BookError::Seed`] when the file does not verify or cannot be verified with
/// `tablebase` (the proof error tells which), [`BookError::Mismatch`] when it is for other
/// rules or another prover; I/O and store errors.
pub fn seed_file(
    book: &mut Book,
    path: &Path,
    tablebase: Option<&Tablebase>,
) -> Result<SeedReport> {
    let bytes = std::fs::read(path).map_err(|source| BookError::Io {
        context: format!("reading the seed proof {}", path.display()),
        source,
    })?;
    seed_bytes(book, bytes, &path.display().to_string(), tablebase)
}

/// [`seed_file`] for a proof already read (`name` says where it came from, in errors).
///
/// # Errors
/// As [`seed_file`].
pub fn seed_bytes(
    book: &mut Book,
    bytes: Vec<u8>,
    name: &str,
    tablebase: Option<&Tablebase>,
) -> Result<SeedReport> {
    let path = std::path::Path::new(name);
    let oracle = tablebase.map(TablebaseOracle::new);
    let oracle: &dyn LeafOracle = &oracle;
    verify_compact(
        &bytes[..],
        Some(bytes.len() as u64),
        oracle,
        &VerifyOptions::default(),
        &mut |_| {},
    )
    .map_err(|error| BookError::Seed {
        file: path.display().to_string(),
        error,
    })?;
    let tree = read_compact(&bytes[..]).map_err(|error| BookError::Seed {
        file: path.display().to_string(),
        error,
    })?;
    let meta = book.meta().clone();
    if tree.rules() != meta.rules {
        return Err(BookError::Mismatch(format!(
            "{}: the proof is under {} rules, the book under {}",
            path.display(),
            tree.rules(),
            meta.rules
        )));
    }
    if tree.prover() != meta.prover {
        return Err(BookError::Mismatch(format!(
            "{}: the proof shows a win for {}, the book is to prove one for {}",
            path.display(),
            tree.prover(),
            meta.prover
        )));
    }
    let root = *tree.root();
    let seed = Seed {
        fen: root.fen(),
        bytes,
    };
    let proof_nodes = tree.len() as u64;
    book.write_txn(|txn| {
        let name = meta_name(root.key());
        let kept_earlier = match txn.meta(&name)? {
            Some(value) => {
                let earlier = Seed::decode(&name, &value)?;
                same_position(&earlier.fen, &seed.fen)
                    && earlier.tree()?.len() as u64 <= proof_nodes
            }
            None => false,
        };
        if !kept_earlier {
            txn.set_meta(&name, &seed.encode())?;
            txn.set_meta(SEEDS_FLAG, "1")?;
        }
        let won_now = win_position(txn, &root, proof_nodes)?;
        Ok(SeedReport {
            fen: seed.fen.clone(),
            proof_nodes,
            won_now,
            kept_earlier,
        })
    })
}

/// Decides every open node of `pos` won by a seed of `size` nodes; returns how many.
fn win_position(txn: &mut dyn Txn, pos: &Position, size: u64) -> Result<u64> {
    let fen = pos.fen();
    let mut changes = Changes::default();
    let mut won = 0;
    for mut node in txn.nodes_with_key(pos.key())? {
        if node.status.is_proven() || node.same_as.is_some() || !same_position(&node.fen, &fen) {
            continue;
        }
        // A person's mark gives way to a proof.
        node.marked = false;
        win_node(txn, &mut node, size)?;
        txn.update_node(&node)?;
        changes.won.push(node.id);
        propagate_up(txn, node.parent, &mut changes)?;
        won += 1;
    }
    settle(txn, &mut changes)?;
    Ok(won)
}

/// Sets a node won by a seed of `size` nodes (the caller writes it).
fn win_node(txn: &mut dyn Txn, node: &mut crate::node::Node, size: u64) -> Result<()> {
    node.status = Status::Win;
    node.proof = 0;
    node.disproof = crate::node::INF;
    if !node.expanded {
        node.leaf_proof = 0;
        node.leaf_disproof = crate::node::INF;
    }
    node.size = size.max(1);
    node.win_seq = Some(next_counter(txn, "win_seq")?);
    Ok(())
}

/// Every seed of the book.
pub fn seeds(book: &mut Book) -> Result<Vec<Seed>> {
    book.read_txn(|txn| {
        txn.all_meta()?
            .into_iter()
            .filter(|(name, _)| is_seed_name(name))
            .map(|(name, value)| Seed::decode(&name, &value))
            .collect()
    })
}

/// The seed trees of a book by the identity of their root positions.
pub(crate) fn seed_trees(
    book: &mut Book,
) -> Result<std::collections::HashMap<PositionId, ProofTree>> {
    let mut out = std::collections::HashMap::new();
    for seed in seeds(book)? {
        let tree = seed.tree()?;
        out.insert(PositionId::of(tree.root()), tree);
    }
    Ok(out)
}
